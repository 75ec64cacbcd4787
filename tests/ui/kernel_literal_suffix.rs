use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let big = 1i64;
        let wide = 1u64;
        let size = 1usize;
        c[idx] = 1.0;
    });
}
