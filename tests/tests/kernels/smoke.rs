//! Smoke test of the kernel pipeline.
use amp_core::prelude::*;
use amp_tests::amp_test;

#[amp_test]
fn smoke() {
    for acc in amp_tests::accelerators() {
        let view = acc.default_view();
        let input: Vec<f32> = (0..100).map(|i| i as f32).collect();
        let mut out = vec![0.0f32; 100];
        {
            let a = ArrayView::new([100], &input).unwrap();
            let c = ArrayView::new_mut([100], &mut out).unwrap();
            c.discard_data();
            let k = 3i32;
            parallel_for_each!(view, c.extent(), |idx: Index<1>| {
                let mut s = 0.0;
                for _i in 0..k {
                    s += a[idx] * 2.0;
                }
                c[idx] = s + (idx[0] as f32);
            })
            .unwrap();
        }
        for (i, v) in out.iter().enumerate() {
            assert_eq!(*v, 6.0 * i as f32 + i as f32, "{acc} {i}");
        }
    }
}
