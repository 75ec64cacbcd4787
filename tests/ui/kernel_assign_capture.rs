use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let mut total = 0.0f32;
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        total += 1.0;
        c[idx] = total;
    });
    total = 1.0;
    let _ = total;
}
