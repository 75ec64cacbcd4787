use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |i: i32| {
        c[i] = 1.0;
    });
    let _ = parallel_for_each!(c.extent(), |idx| {
        c[idx] = 1.0;
    });
}
