use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let double = |x: f32| x * 2.0;
        let g = double;
        c[idx] = g(1.0);
    });
}
