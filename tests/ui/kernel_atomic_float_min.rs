use amp_core::prelude::*;

fn main() {
    let mut out = [0f32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |idx: Index<1>| {
        atomic_fetch_min(&o[[0]], 1.0f32);
    })
    .unwrap();
}
