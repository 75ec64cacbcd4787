use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        fn helper(x: f32) -> f32 {
            x * 2.0
        }
        struct Pair {
            a: f32,
        }
        use std::f32::consts::PI;
        static COUNTER: i32 = 0;
        c[idx] = 1.0;
    });
}
