// A #[kernel] function's `&mut` result is one of its `&mut` parameters,
// and the caller reads and writes it as `*r`; other uses are refused.
use amp_core::prelude::*;

#[kernel]
fn larger<'a>(a: &'a mut i32, b: &'a mut i32) -> &'a mut i32 {
    if *a >= *b { a } else { b }
}

#[kernel]
fn local_result<'a>(a: &'a mut i32) -> &'a mut i32 {
    if *a > 0 {
        return a;
    }
    let mut t = *a;
    &mut t
}

#[kernel]
fn bump(x: &mut i32) {
    *x += 1;
}

#[kernel]
fn twice(x: i32) -> i32 {
    x * 2
}

fn main() {
    let mut out = [0i32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let (mut x, mut y) = (1, 2);
        let r = larger(&mut x, &mut y);
        bump(r);
        let v = twice(x);
        o[i] = *v;
    })
    .unwrap();
}

// A `&mut` result bound and passed on, never dereferenced: a value to the
// kernel, refused by the CPU form's type check.
fn passed_on() {
    let mut out = [0i32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let (mut x, mut y) = (1, 2);
        let r = larger(&mut x, &mut y);
        bump(r);
        o[i] = x;
    })
    .unwrap();
}
