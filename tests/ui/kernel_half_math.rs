use amp_core::f16;
use amp_core::prelude::*;

fn main() {
    let data = [f16::ONE; 3];
    let mut out = [f16::ZERO; 3];
    let a = ArrayView::new([3], &data).unwrap();
    let o = ArrayView::new_mut([3], &mut out).unwrap();
    parallel_for_each!(o.extent(), |idx: Index<1>| {
        o[idx] = a[idx].sqrt();
    })
    .unwrap();
}
