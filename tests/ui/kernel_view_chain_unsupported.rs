// Views of views are made inside kernels, with or without `let`s; a section
// of a reshaped view is not one of them.
use amp_core::prelude::*;

fn main() {
    let data = [0i32; 16];
    let mut out = [0i32; 4];
    let a = ArrayView::new([4, 4], &data).unwrap();
    let o = ArrayView::new_mut([4], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let s = a.section([1, 0], [3, 4]);
        o[i] = s.project(0)[i[0]] + a.view_as([16]).section([2], [4])[i];
    })
    .unwrap();
}
