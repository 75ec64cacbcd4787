use amp_core::prelude::*;

// An ordinary function: kernels may call only `#[kernel]` functions.
fn square(x: f32) -> f32 {
    x * x
}

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        c[idx] = square(idx[0] as f32);
    });
    let _ = square(2.0);
}
