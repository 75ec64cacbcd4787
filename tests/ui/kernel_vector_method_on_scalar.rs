use amp_core::prelude::*;

fn main() {
    let data = [1.0f32; 16];
    let mut out = [0f32; 16];
    let d = ArrayView::new([16], &data).unwrap();
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |idx: Index<1>| {
        o[idx] = d[idx].length();
    })
    .unwrap();
}
