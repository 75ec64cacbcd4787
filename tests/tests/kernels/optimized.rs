//! Kernels written for speed, as the GPU passes (folding, unrolling,
//! scalar replacement of local arrays) rewrite them: a register-blocked
//! matmul with local accumulator arrays in `#[unroll]` loops, nested and
//! flat, arrays indexed at run time (which stay arrays), `#[unroll]` in a
//! `#[kernel]` function, division by constants, and `#[unroll]` on a loop
//! that cannot be unrolled (the same error everywhere, host data intact).
//! Every output element is poisoned first and compared with plain Rust on
//! fresh random inputs on every accelerator.

use amp_core::prelude::*;
use amp_core::{Error, kernel};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

/// Threads per tile side.
const TS: i32 = 8;
/// Outputs per thread side (R x R per thread).
const R: i32 = 4;
/// The block of C one tile computes (BM x BM).
const BM: i32 = TS * R;
/// The depth of one step over K.
const BK: i32 = 8;

fn random_matrix(rng: &mut Rng, len: usize) -> Vec<f32> {
    (0..len).map(|_| rng.range(-64, 64) as f32 / 16.0).collect()
}

fn check_matmul(name: &str, n: usize, a: &[f32], b: &[f32], c: &[f32]) {
    for i in 0..n {
        for j in 0..n {
            let mut want = 0.0f64;
            let mut scale = 0.0f64;
            for k in 0..n {
                let p = f64::from(a[i * n + k]) * f64::from(b[k * n + j]);
                want += p;
                scale += p.abs();
            }
            let got = f64::from(c[i * n + j]);
            assert!(
                (got - want).abs() <= 1e-5 * scale + 1e-6,
                "{name}: c[{i}][{j}] = {got}, want {want}"
            );
        }
    }
}

/// A register-blocked matmul (64 threads per tile, 4x4 outputs each) with
/// its accumulators in a nested local array `[[f32; R]; R]` and operand
/// rows in `[f32; R]` arrays, in loops over constants (`#[unroll]` on
/// some): the passes turn every array into scalars on GPUs.
#[amp_test]
fn register_blocked_matmul_with_local_arrays() {
    let n = 2 * BM;
    let nu = n as usize;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(8100 + k as u64);
        let a = random_matrix(&mut rng, nu * nu);
        let b = random_matrix(&mut rng, nu * nu);
        let mut c = vec![f32::NAN; nu * nu];
        {
            let av = ArrayView::new([n, n], &a).unwrap();
            let bv = ArrayView::new([n, n], &b).unwrap();
            let cv = ArrayView::new_mut([n, n], &mut c).unwrap();
            let domain = Extent::new([n / R, n / R]).tile::<TS, TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<2>| {
                tile_static! {
                    let a_s: [[f32; BK]; BM];
                    let b_s: [[f32; BM]; BK];
                }
                let ty = t.local[0];
                let tx = t.local[1];
                let me = ty * TS + tx;
                let row0 = t.tile[0] * BM;
                let col0 = t.tile[1] * BM;
                let mut sums = [[0.0f32; R as usize]; R as usize];
                let mut k0 = 0;
                while k0 < n {
                    // BM * BK elements of each operand, TS * TS threads.
                    #[unroll]
                    for q in 0..(BM * BK) / (TS * TS) {
                        let e = me + q * TS * TS;
                        a_s[e / BK][e % BK] = av[[row0 + e / BK, k0 + e % BK]];
                        b_s[e / BM][e % BM] = bv[[k0 + e / BM, col0 + e % BM]];
                    }
                    t.barrier.wait();
                    for kk in 0..BK {
                        let mut ar = [0.0f32; R as usize];
                        let mut br = [0.0f32; R as usize];
                        #[unroll]
                        for i in 0..R {
                            ar[i] = a_s[ty * R + i][kk];
                            br[i] = b_s[kk][tx * R + i];
                        }
                        for i in 0..R {
                            for j in 0..R {
                                sums[i][j] += ar[i] * br[j];
                            }
                        }
                    }
                    t.barrier.wait();
                    k0 += BK;
                }
                for i in 0..R {
                    for j in 0..R {
                        cv[[row0 + ty * R + i, col0 + tx * R + j]] = sums[i][j];
                    }
                }
            })
            .unwrap();
        }
        check_matmul(acc.description(), nu, &a, &b, &c);
    }
}

/// The same blocking over a flat `[f32; 16]` accumulator indexed
/// `acc[i * R + j]`: the index arithmetic folds after unrolling.
#[amp_test]
fn flat_accumulator_indexed_by_arithmetic() {
    let n = 2 * BM;
    let nu = n as usize;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(8200 + k as u64);
        let a = random_matrix(&mut rng, nu * nu);
        let b = random_matrix(&mut rng, nu * nu);
        let mut c = vec![f32::NAN; nu * nu];
        {
            let av = ArrayView::new([n, n], &a).unwrap();
            let bv = ArrayView::new([n, n], &b).unwrap();
            let cv = ArrayView::new_mut([n, n], &mut c).unwrap();
            parallel_for_each!(&view, Extent::new([n / R, n / R]), |idx: Index<2>| {
                let mut sums = [0.0f32; 16];
                for kk in 0..n {
                    for i in 0..R {
                        let x = av[[idx[0] * R + i, kk]];
                        for j in 0..R {
                            sums[(i * R + j) as usize] += x * bv[[kk, idx[1] * R + j]];
                        }
                    }
                }
                for i in 0..R {
                    for j in 0..R {
                        cv[[idx[0] * R + i, idx[1] * R + j]] = sums[(i * R + j) as usize];
                    }
                }
            })
            .unwrap();
        }
        check_matmul(acc.description(), nu, &a, &b, &c);
    }
}

/// A local array indexed by a value known only at run time stays an array
/// (and reads what was stored at that index); one indexed by constants in
/// the same kernel is split.
#[amp_test]
fn arrays_indexed_at_run_time_keep_their_semantics() {
    const N: i32 = 1000;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(8300 + k as u64);
        let x: Vec<i32> = (0..N).map(|_| rng.range(-100_000, 100_000)).collect();
        let mut out = vec![i32::MIN; N as usize];
        {
            let xv = ArrayView::new([N], &x).unwrap();
            let ov = ArrayView::new_mut([N], &mut out).unwrap();
            parallel_for_each!(&view, Extent::new([N]), |idx: Index<1>| {
                let v = xv[idx];
                let mut lut = [0i32; 8];
                let mut fixed = [1i32, 2, 3];
                for q in 0..8 {
                    lut[q as usize] = v * q - q;
                }
                fixed[1] += v;
                ov[idx] = lut[(v & 7) as usize] + fixed[0] * fixed[1] - fixed[2];
            })
            .unwrap();
        }
        for (i, (&v, &got)) in x.iter().zip(&out).enumerate() {
            let q = v & 7;
            let want = (v * q - q) + (2 + v) - 3;
            assert_eq!(got, want, "{}: out[{i}] for {v}", acc.description());
        }
    }
}

/// Dot product of `row` with a fixed stencil, the loop unrolled on request.
#[kernel]
fn stencil5(x0: f32, x1: f32, x2: f32, x3: f32, x4: f32) -> f32 {
    let xs = [x0, x1, x2, x3, x4];
    let w = [0.0625f32, 0.25, 0.375, 0.25, 0.0625];
    let mut s = 0.0f32;
    #[unroll]
    for i in 0..5 {
        s += xs[i] * w[i];
    }
    s
}

fn stencil5_host(x: [f32; 5]) -> f32 {
    let w = [0.0625f32, 0.25, 0.375, 0.25, 0.0625];
    let mut s = 0.0f32;
    for i in 0..5 {
        s += x[i] * w[i];
    }
    s
}

/// `#[unroll]` inside a `#[kernel]` function, with the function's local
/// arrays split into scalars.
#[amp_test]
fn unroll_in_a_kernel_function() {
    const N: i32 = 777;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(8400 + k as u64);
        let x: Vec<f32> = (0..N + 4)
            .map(|_| rng.range(-512, 512) as f32 / 8.0)
            .collect();
        let mut out = vec![f32::NAN; N as usize];
        {
            let xv = ArrayView::new([N + 4], &x).unwrap();
            let ov = ArrayView::new_mut([N], &mut out).unwrap();
            parallel_for_each!(&view, Extent::new([N]), |idx: Index<1>| {
                let i = idx[0];
                ov[idx] = stencil5(xv[[i]], xv[[i + 1]], xv[[i + 2]], xv[[i + 3]], xv[[i + 4]]);
            })
            .unwrap();
        }
        for i in 0..N as usize {
            let want = stencil5_host([x[i], x[i + 1], x[i + 2], x[i + 3], x[i + 4]]);
            assert_eq!(out[i], want, "{}: out[{i}]", acc.description());
        }
    }
}

/// Division and remainder by constants (no guard on GPUs where the
/// divisor is a constant other than 0 and -1) give Rust's wrapping
/// results, `i32::MIN` included.
#[amp_test]
fn division_by_constants() {
    const N: i32 = 2048;
    const NEG: i32 = -7;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(8500 + k as u64);
        let mut x: Vec<i32> = (0..N).map(|_| rng.range(i32::MIN, i32::MAX)).collect();
        x[0] = i32::MIN;
        x[1] = i32::MAX;
        x[2] = -1;
        x[3] = 0;
        let u: Vec<u32> = x.iter().map(|&v| v as u32).collect();
        let mut out = vec![[i32::MIN; 6]; N as usize];
        let mut uout = vec![[u32::MAX; 2]; N as usize];
        {
            let xv = ArrayView::new([N], &x).unwrap();
            let uv = ArrayView::new([N], &u).unwrap();
            let ov = ArrayView::new_mut([N], &mut out).unwrap();
            let uo = ArrayView::new_mut([N], &mut uout).unwrap();
            parallel_for_each!(&view, Extent::new([N]), |idx: Index<1>| {
                let v = xv[idx];
                ov[idx] = [v / 4, v % 4, v / NEG, v % NEG, v / 3 + v % 3, v / -1];
                let w = uv[idx];
                uo[idx] = [w / 16u32, w % 10u32];
            })
            .unwrap();
        }
        for i in 0..N as usize {
            let v = x[i];
            let want = [
                v / 4,
                v % 4,
                v / NEG,
                v % NEG,
                v / 3 + v % 3,
                v.wrapping_div(-1),
            ];
            assert_eq!(out[i], want, "{}: for {v}", acc.description());
            assert_eq!(
                uout[i],
                [u[i] / 16, u[i] % 10],
                "{}: for {}",
                acc.description(),
                u[i]
            );
        }
    }
}

/// `#[unroll]` on a loop whose range is known only at run time is refused
/// with the same error on every accelerator, before anything runs.
#[amp_test]
fn unroll_of_a_runtime_range_is_refused_everywhere() {
    const N: i32 = 64;
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let x: Vec<i32> = (0..N).collect();
        let mut out = vec![-5i32; N as usize];
        let err = {
            let xv = ArrayView::new([N], &x).unwrap();
            let ov = ArrayView::new_mut([N], &mut out).unwrap();
            parallel_for_each!(&view, Extent::new([N]), |idx: Index<1>| {
                let mut s = 0;
                #[unroll]
                for q in 0..xv[idx] {
                    s += q;
                }
                ov[idx] = s;
            })
            .expect_err("a runtime range cannot be unrolled")
        };
        match &err {
            Error::KernelCompile { message, .. } => {
                assert!(
                    message.contains("#[unroll]") && message.contains("not constant"),
                    "{}: {message}",
                    acc.description()
                );
            }
            other => panic!("{}: {other}", acc.description()),
        }
        assert!(out.iter().all(|&v| v == -5), "{}", acc.description());
    }
}

/// `.rev()` ranges (with `step_by`, inclusive, over `u32` down to 0, with
/// `break` and `continue`, over bounds known only at run time and over
/// constants, which unroll) visit Rust's values in Rust's order: an
/// order-sensitive hash of the visited values is compared with Rust's.
#[amp_test]
fn reversed_ranges_visit_rusts_values_in_rusts_order() {
    const N: i32 = 600;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(8600 + k as u64);
        let a: Vec<i32> = (0..N).map(|_| rng.range(-50, 50)).collect();
        let b: Vec<i32> = (0..N).map(|_| rng.range(-50, 50)).collect();
        let s: Vec<i32> = (0..N).map(|_| rng.range(0, 5)).collect();
        let mut hashes = vec![i32::MIN; N as usize];
        let mut counts = vec![u32::MAX; N as usize];
        {
            let av = ArrayView::new([N], &a).unwrap();
            let bv = ArrayView::new([N], &b).unwrap();
            let sv = ArrayView::new([N], &s).unwrap();
            let hv = ArrayView::new_mut([N], &mut hashes).unwrap();
            let cv = ArrayView::new_mut([N], &mut counts).unwrap();
            parallel_for_each!(&view, Extent::new([N]), |idx: Index<1>| {
                let lo = av[idx];
                let hi = bv[idx];
                let step = sv[idx];
                let mut h = 7i32;
                for i in (lo..hi).rev() {
                    h = h * 31 + i;
                }
                for i in (lo..=hi).step_by(step as usize).rev() {
                    h = h * 17 + i;
                }
                for i in (0..6).rev() {
                    h = h * 3 + i;
                }
                for i in (1..=9).step_by(4).rev() {
                    h -= i * 7;
                }
                let mut c = 0u32;
                for u in (0u32..(hi - lo).max(0) as u32).rev() {
                    if u % 5 == 3 {
                        continue;
                    }
                    c = c * 3 + u;
                    if c > 1_000_000 {
                        break;
                    }
                }
                for u in (0u32..=3).rev() {
                    c = c * 10 + u;
                }
                hv[idx] = h;
                cv[idx] = c;
            })
            .unwrap();
        }
        for i in 0..N as usize {
            let (lo, hi, step) = (a[i], b[i], s[i]);
            let mut h = 7i32;
            for v in (lo..hi).rev() {
                h = h.wrapping_mul(31).wrapping_add(v);
            }
            // Rust has no `.rev()` of an inclusive `i32` range's steps; the
            // kernel language gives the forward values, last first.
            if step > 0 {
                let forward: Vec<i32> = (lo..=hi).step_by(step as usize).collect();
                for &v in forward.iter().rev() {
                    h = h.wrapping_mul(17).wrapping_add(v);
                }
            }
            for v in (0..6).rev() {
                h = h.wrapping_mul(3).wrapping_add(v);
            }
            for v in [9, 5, 1] {
                h = h.wrapping_sub(v * 7);
            }
            let mut c = 0u32;
            for u in (0u32..(hi - lo).max(0) as u32).rev() {
                if u % 5 == 3 {
                    continue;
                }
                c = c.wrapping_mul(3).wrapping_add(u);
                if c > 1_000_000 {
                    break;
                }
            }
            for u in (0u32..=3).rev() {
                c = c.wrapping_mul(10).wrapping_add(u);
            }
            assert_eq!(
                hashes[i],
                h,
                "{}: hash for {lo}..{hi} step {step}",
                acc.description()
            );
            assert_eq!(counts[i], c, "{}: count for {lo}..{hi}", acc.description());
        }
    }
}

/// `#[unroll]` on a loop over a parameter of a `#[kernel]` function.
#[kernel]
fn sum_below(n: i32) -> i32 {
    let mut s = 0;
    #[unroll]
    for q in 0..n {
        s += q;
    }
    s
}

/// `#[unroll]` that cannot be unrolled inside a `#[kernel]` function is
/// refused with the same error on every accelerator.
#[amp_test]
fn unroll_of_a_runtime_range_in_a_function_is_refused_everywhere() {
    const N: i32 = 32;
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut out = vec![-5i32; N as usize];
        let err = {
            let ov = ArrayView::new_mut([N], &mut out).unwrap();
            parallel_for_each!(&view, Extent::new([N]), |idx: Index<1>| {
                ov[idx] = sum_below(idx[0]);
            })
            .expect_err("a parameter's range cannot be unrolled")
        };
        assert!(
            matches!(&err, Error::KernelCompile { message, .. } if message.contains("#[unroll]")),
            "{}: {err}",
            acc.description()
        );
        assert!(out.iter().all(|&v| v == -5), "{}", acc.description());
    }
}
