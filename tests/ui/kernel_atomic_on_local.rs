use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |idx: Index<1>| {
        let mut counts = [0i32; 4];
        o[idx] = atomic_fetch_add(&counts[0], 1);
    })
    .unwrap();
}
