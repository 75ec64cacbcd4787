// A view's host methods are not kernel code; a constant is not a variable.
use amp_core::prelude::*;

const N: i32 = 4;

fn main() {
    let mut out = [0i32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let s = o.view_as([4, 4]);
        N = 5;
        o[i] = 1;
    })
    .unwrap();
}
