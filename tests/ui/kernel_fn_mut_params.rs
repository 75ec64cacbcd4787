// `&mut` parameters of #[kernel] functions are read and written as `*p`,
// and take locals (or whole local arrays), or elements in a call that runs
// once where it is written (copied in and stored back), not one evaluated
// conditionally.
use amp_core::prelude::*;

#[kernel]
fn bump(x: &mut i32) {
    x += 1;
}

#[kernel]
fn twice(x: &mut i32) -> i32 {
    *x = *x * 2;
    *x
}

fn main() {
    let mut out = [0i32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let mut a = [1, 2];
        twice(&mut a[0]);
        let v = 1 + twice(&mut o[i]);
        let w = v > 0 && twice(&mut o[i]) > 1;
        a[1] = v + w as i32;
    })
    .unwrap();
}
