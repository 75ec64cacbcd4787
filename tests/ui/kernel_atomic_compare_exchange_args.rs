use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |idx: Index<1>| {
        // `expected` must be a `&mut` local.
        let ok = atomic_compare_exchange(&o[[0]], 0, idx[0]);
        // Three arguments, not two.
        atomic_exchange(&o[[1]]);
    })
    .unwrap();
}
