use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let wide: i64 = 0;
        let size: [usize; 2] = [0; 2];
        c[idx] = 1.0;
    });
}
