use amp_core::prelude::*;

fn scale(weights: &[f32], out: &mut [f32]) {
    let c = ArrayView::new_mut([out.len() as i32], out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        c[idx] = weights[idx];
    });
}

fn main() {
    let mut out = vec![0.0f32; 4];
    scale(&[0.5; 4], &mut out);
}
