//! Upper-case names in kernels are constants inlined into the WGSL (so the
//! shader compiler can fold and unroll them, as C++ AMP's template
//! parameters are); their values are part of the compiled kernel's key, so
//! an upper-case *variable* that changes between launches is still right.

use amp_core::prelude::*;
use amp_tests::{Rng, accelerators};

const TILE: i32 = 8;

#[test]
#[allow(non_snake_case)]
fn upper_case_names_are_inlined_and_keyed_by_value() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(700 + k as u64);
        let xs: Vec<i32> = (0..500).map(|_| rng.range(-1000, 1000)).collect();
        // 3, then 7, then 3 again: the third launch reuses the first kernel.
        for SCALE in [3i32, 7, 3] {
            let OFFSET = SCALE as f32 * 0.5;
            let mut out = vec![i32::MIN; 500];
            let mut fout = vec![f32::NAN; 500];
            {
                let x = ArrayView::new([500], &xs).unwrap();
                let o = ArrayView::new_mut([500], &mut out).unwrap();
                let fo = ArrayView::new_mut([500], &mut fout).unwrap();
                parallel_for_each!(&view, o.extent(), |idx: Index<1>| {
                    let mut acc = 0;
                    for _ in 0..TILE {
                        acc += x[idx];
                    }
                    o[idx] = acc * SCALE + i32::MAX / 1_000_000;
                    fo[idx] = x[idx] as f32 + OFFSET;
                })
                .unwrap();
            }
            for i in 0..500 {
                let want = (xs[i] * TILE) * SCALE + i32::MAX / 1_000_000;
                assert_eq!(out[i], want, "{acc} SCALE={SCALE} {i}");
                assert_eq!(fout[i], xs[i] as f32 + OFFSET, "{acc} SCALE={SCALE} {i}");
            }
        }
        if !acc.is_cpu() {
            // Inlined, not passed as parameters: the WGSL holds the values.
            let sources = amp_core::__private::kernel::compiled_sources(&view);
            for lit in ["3i", "7i", "1.5f", "3.5f"] {
                assert!(
                    sources
                        .iter()
                        .any(|s| s.contains("kernel_consts.rs") && s.contains(lit)),
                    "{acc}: no compiled kernel inlines {lit}"
                );
            }
            // `TILE` (8) bounds a loop the compiler unrolled, which it can
            // only do with the value inlined; `i32::MAX / 1_000_000` folded.
            assert!(
                sources.iter().any(|s| s.contains("kernel_consts.rs")
                    && s.contains("2147i")
                    && !s.contains("loop {")),
                "{acc}: the TILE loop was not unrolled"
            );
        }
    }
}
