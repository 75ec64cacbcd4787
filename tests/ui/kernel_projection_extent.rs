// A projection's extent is read by component in kernels.
use amp_core::prelude::*;

fn main() {
    let data = [0i32; 16];
    let mut out = [0i32; 4];
    let a = ArrayView::new([4, 4], &data).unwrap();
    let o = ArrayView::new_mut([4], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let row = a.project(i[0]);
        let e = row.extent();
        o[i] = e[0];
    })
    .unwrap();
}
