use amp_core::prelude::*;

fn main() {
    let data = [1u32, 2, 3];
    let mut out = [0u32; 3];
    let a = ArrayView::new([3], &data).unwrap();
    let o = ArrayView::new_mut([3], &mut out).unwrap();
    parallel_for_each!(o.extent(), |idx: Index<1>| {
        o[idx] = -a[idx];
    })
    .unwrap();
}
