// `&mut` parameters of #[kernel] functions are read and written as `*p`,
// and take locals (or whole local arrays), not elements.
use amp_core::prelude::*;

#[kernel]
fn bump(x: &mut i32) {
    x += 1;
}

#[kernel]
fn twice(x: &mut i32) {
    *x = *x * 2;
}

fn main() {
    let mut out = [0i32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let mut a = [1, 2];
        twice(&mut a[0]);
        twice(&mut o[i]);
    })
    .unwrap();
}
