// A captured view has no fields but `extent` (C++ AMP's data member);
// other names are refused by rustc.
use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let data = vec![0.0f32; 4];
    let a = ArrayView::new([4], &data).unwrap();
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let n = a.len;
        c[idx] = 1.0;
    });
    let _ = a;
}
