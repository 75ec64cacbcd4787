//! Upper-case names in kernels are constants inlined into the WGSL (so the
//! shader compiler can fold and unroll them, as C++ AMP's template
//! parameters are); their values are part of the compiled kernel's key, so
//! an upper-case *variable* that changes between launches is still right.

use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

const TILE: i32 = 8;

#[amp_test]
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
                        .any(|s| s.contains("kernels/consts.rs") && s.contains(lit)),
                    "{acc}: no compiled kernel inlines {lit}"
                );
            }
            // `TILE` (8) bounds a loop the compiler unrolled, which it can
            // only do with the value inlined; `i32::MAX / 1_000_000` folded.
            assert!(
                sources.iter().any(|s| s.contains("kernels/consts.rs")
                    && s.contains("2147i")
                    && !s.contains("loop {")),
                "{acc}: the TILE loop was not unrolled"
            );
        }
    }
}

/// A 5x5 Gaussian-like weight table shared by host and kernel.
const GAUSS: [[f32; 5]; 5] = [
    [1.0, 4.0, 6.0, 4.0, 1.0],
    [4.0, 16.0, 24.0, 16.0, 4.0],
    [6.0, 24.0, -36.0, 24.0, 6.0],
    [4.0, 16.0, 24.0, 16.0, 4.0],
    [1.0, 4.0, 6.0, 4.0, 1.0],
];

mod tables {
    /// Small primes (a constant reached through a module path).
    pub(crate) const PRIMES: [i32; 7] = [2, 3, 5, 7, 11, 13, -17];
}

/// Constant arrays in kernels (`const GAUSS: [[f32; 5]; 5]`, C++ AMP code
/// keeps such tables in `static const` arrays): read with dynamic indices,
/// with `#[unroll]`ed constant indices (folded to the element), through a
/// module path, and copied whole into a local; an upper-case array variable
/// is keyed by value like a scalar. Compared with the same formulas on the
/// host (sums of small integers times exact weights: exact in `f32`).
#[amp_test]
#[allow(non_snake_case)]
fn constant_arrays_are_inlined_and_indexed() {
    const N: i32 = 333;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(900 + k as u64);
        let xs: Vec<i32> = (0..N).map(|_| rng.range(-1000, 1000)).collect();
        for WEIGHTS in [[1i32, 2, 3], [-4, 0, 9]] {
            let mut out = vec![f32::NAN; N as usize];
            let mut iout = vec![i32::MIN; N as usize];
            {
                let x = ArrayView::new([N], &xs).unwrap();
                let o = ArrayView::new_mut([N], &mut out).unwrap();
                let io = ArrayView::new_mut([N], &mut iout).unwrap();
                o.discard_data();
                io.discard_data();
                parallel_for_each!(&view, o.extent(), |idx: Index<1>| {
                    let v = x[idx];
                    let r = v & 3;
                    let c = (v >> 2) & 3;
                    // Dynamic indices.
                    let mut s = GAUSS[r as usize][(c + 1) as usize] * v as f32;
                    // Constant indices after unrolling.
                    #[unroll]
                    for j in 0..5 {
                        s += GAUSS[2][j as usize] * (v + j) as f32;
                    }
                    let table = tables::PRIMES;
                    let p = tables::PRIMES[(idx[0] % 7) as usize] + table[((v & 7) % 7) as usize];
                    o[idx] = s;
                    io[idx] = p * WEIGHTS[(idx[0] % 3) as usize];
                })
                .unwrap();
            }
            for i in 0..N as usize {
                let v = xs[i];
                let (r, c) = ((v & 3) as usize, ((v >> 2) & 3) as usize);
                let mut s = GAUSS[r][c + 1] * v as f32;
                for j in 0..5 {
                    s += GAUSS[2][j as usize] * (v + j) as f32;
                }
                let p = tables::PRIMES[i % 7] + tables::PRIMES[((v & 7) % 7) as usize];
                assert_eq!(out[i], s, "{acc}: element {i} (x = {v})");
                assert_eq!(iout[i], p * WEIGHTS[i % 3], "{acc}: element {i} (x = {v})");
            }
        }
    }
}
