//! Regressions found by the differential fuzzer and the adversarial review
//! of the reliability issue: each kernel gives plain Rust's answer on every
//! accelerator (or, where a construct was refused, now compiles and runs).

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_tests::Rng;
use amp_tests::amp_test;

/// A point of one `f32` and one `i32`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, amp_core::Element)]
struct P {
    x: f32,
    y: i32,
}

/// A compound assignment whose right side changes its own target: Rust
/// evaluates the value first, then reads the place (`v -= { v += 1; v }` is
/// 0). The CPU accelerator read the local before the block ran (`u32::MAX`),
/// for locals and for fields of locals and of view elements.
#[amp_test]
fn compound_assignment_value_changes_its_own_target() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(20_000 + k as u64);
        let n = 257;
        let a = any_u32s(&mut rng, n);
        let ps: Vec<P> = (0..n)
            .map(|i| P {
                x: i as f32 * 0.5,
                y: i as i32 - 100,
            })
            .collect();
        let mut out = vec![POISON_U32; n * 4];
        let mut pout = vec![
            P {
                x: f32::NAN,
                y: POISON_I32
            };
            n * 2
        ];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let pv = ArrayView::new([n as i32], &ps).unwrap();
            let o = ArrayView::new_mut([n as i32, 4], &mut out).unwrap();
            let po = ArrayView::new_mut([n as i32, 2], &mut pout).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let mut v = av[idx];
                v -= {
                    v += 1;
                    v
                };
                let mut w = av[idx] % 1000;
                w += {
                    w += 5;
                    w
                };
                let mut m = av[idx] | 1;
                m *= {
                    m = m.wrapping_add(3);
                    m
                };
                let mut s = av[idx];
                s ^= {
                    s = s.wrapping_mul(7);
                    s
                };
                o[[i, 0]] = v;
                o[[i, 1]] = w;
                o[[i, 2]] = m;
                o[[i, 3]] = s;
                let mut p = pv[idx];
                p.x -= {
                    p.x += 1.0;
                    p.x
                };
                p.y += {
                    p.y *= 3;
                    p.y
                };
                po[[i, 0]] = p;
                po[[i, 1]] = pv[idx];
                po[[i, 1]].y -= {
                    po[[i, 1]].y += 10;
                    po[[i, 1]].y * 2
                };
            })
            .unwrap();
        }
        let mut want = Vec::new();
        let mut pwant = Vec::new();
        for i in 0..n {
            // Rust evaluates a compound assignment's value before its place
            // (the host's `wrapping_*` method calls would read the
            // receiver first: spelled out).
            let mut v = a[i];
            v = v.wrapping_add(1);
            v = v.wrapping_sub(v);
            let mut w = a[i] % 1000;
            w += {
                w += 5;
                w
            };
            let mut m = a[i] | 1;
            m = m.wrapping_add(3);
            m = m.wrapping_mul(m);
            let mut s = a[i];
            s ^= {
                s = s.wrapping_mul(7);
                s
            };
            want.extend([v, w, m, s]);
            let mut p = ps[i];
            p.x -= {
                p.x += 1.0;
                p.x
            };
            p.y += {
                p.y *= 3;
                p.y
            };
            let mut q = ps[i];
            q.y -= {
                q.y += 10;
                q.y * 2
            };
            pwant.extend([p, q]);
        }
        assert_same(&out, &want, &what);
        assert_same(&pout, &pwant, &what);
    }
}

/// `tgamma` and `lgamma` at the infinities and other special values, on
/// every accelerator and on the host: `tgamma(+inf)` and `lgamma(±inf)` are
/// `+inf` (Lanczos' formula gave `inf - inf`, NaN), `tgamma(-inf)` is NaN.
#[amp_test]
fn gamma_functions_at_special_values() {
    use amp_core::precise_math::{lgamma, tgamma};
    let xs = [
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.0,
        -0.0,
        -1.0,
        -7.0,
        1.0,
        2.0,
        3.0,
        1e30,
    ];
    // (tgamma, lgamma): exact specials, or finite values checked to 1e-4.
    let want = [
        (f32::INFINITY, f32::INFINITY),
        (f32::NAN, f32::INFINITY),
        (f32::NAN, f32::NAN),
        (f32::INFINITY, f32::INFINITY),
        (f32::NEG_INFINITY, f32::INFINITY),
        (f32::NAN, f32::INFINITY),
        (f32::NAN, f32::INFINITY),
        (1.0, 0.0),
        (1.0, 0.0),
        (2.0, std::f32::consts::LN_2),
        (f32::INFINITY, 1e30 * (1e30f32.ln() - 1.0)),
    ];
    let check = |got: (f32, f32), want: (f32, f32), what: &str| {
        for (g, w) in [(got.0, want.0), (got.1, want.1)] {
            assert!(close32(g, w, 1e-4, 1e-5), "{what}: got {g:e}, want {w:e}");
        }
    };
    for (i, (&x, &w)) in xs.iter().zip(&want).enumerate() {
        check((tgamma(x), lgamma(x)), w, &format!("host, x = {x:e} ({i})"));
    }
    for (view, what) in all_views() {
        let n = xs.len();
        let mut out = vec![POISON_U32; 2 * n];
        {
            let xv = ArrayView::new([n as i32], &xs[..]).unwrap();
            let o = ArrayView::new_mut([n as i32, 2], &mut out).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let x = xv[idx];
                o[[idx[0], 0]] = tgamma(x).to_bits();
                o[[idx[0], 1]] = lgamma(x).to_bits();
            })
            .unwrap();
        }
        for (i, &w) in want.iter().enumerate() {
            let got = (f32::from_bits(out[2 * i]), f32::from_bits(out[2 * i + 1]));
            check(got, w, &format!("{what}, x = {:e}", xs[i]));
        }
    }
}

/// A `while` condition that reads a uniform `tile_static` value (written by
/// one work item before a barrier, not written in the loop), with barriers
/// in the body: the CPU accelerator's split form did not compile ("cannot
/// find value `cnt` in this scope").
#[amp_test]
fn while_on_a_uniform_tile_static_value_with_barriers() {
    const TS: i32 = 16;
    let mut rng = Rng::new(20_010);
    for (view, what) in all_views() {
        let tiles = rng.range(1, 6);
        let n = tiles * TS;
        let counts: Vec<u32> = (0..tiles).map(|_| rng.range(0, 7) as u32).collect();
        let xs: Vec<u32> = (0..n).map(|_| rng.range(0, 1000) as u32).collect();
        let mut out = vec![POISON_U32; n as usize];
        {
            let cv = ArrayView::new([tiles], &counts).unwrap();
            let xv = ArrayView::new([n], &xs).unwrap();
            let o = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(view, domain, |t: TiledIndex<1>| {
                tile_static! {
                    let cnt: u32;
                    let acc: [u32; 16];
                }
                if t.local[0] == 0 {
                    cnt = cv[t.tile];
                }
                acc[t.local[0] as usize] = xv[t.global];
                t.barrier.wait();
                let mut i = 0u32;
                while i < cnt {
                    // Each round, every work item adds its right neighbour's
                    // value (a rotation within the tile).
                    let next = acc[((t.local[0] + 1) % TS) as usize];
                    t.barrier.wait();
                    acc[t.local[0] as usize] = acc[t.local[0] as usize] + next;
                    t.barrier.wait();
                    i += 1;
                }
                o[t.global] = acc[t.local[0] as usize] + i * 1_000_000;
            })
            .unwrap();
        }
        let mut want = Vec::new();
        for (k, &c) in counts.iter().enumerate() {
            let mut acc: Vec<u32> = xs[k * TS as usize..(k + 1) * TS as usize].to_vec();
            for _ in 0..c {
                let next: Vec<u32> = (0..TS as usize)
                    .map(|l| acc[(l + 1) % TS as usize])
                    .collect();
                for l in 0..TS as usize {
                    acc[l] += next[l];
                }
            }
            want.extend(acc.iter().map(|a| a + c * 1_000_000));
        }
        assert_same(&out, &want, &what);
    }
}

/// Operators that gave invalid WGSL (every GPU launch failed while the CPU
/// ran them): `bool ^ bool` (WGSL has no `^` on `bool`: 14 of 150 random
/// kernels hit it), `u32::wrapping_neg()` (WGSL has no unary `-` on `u32`),
/// and a reversed `step_by` whose step folds to the constant 0 (a constant
/// division by zero in the shader, though the loop must not run).
#[amp_test]
fn bool_xor_u32_wrapping_neg_and_constant_zero_steps() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(20_020 + k as u64);
        let n = 300;
        let a = any_u32s(&mut rng, n);
        let b = any_u32s(&mut rng, n);
        let mut out = vec![POISON_U32; n * 4];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let o = ArrayView::new_mut([n as i32, 4], &mut out).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let (x, y) = (av[idx], bv[idx]);
                let p = x % 2 == 0;
                let q = y > x;
                let mut r = p ^ q;
                r ^= x > 1000;
                o[[i, 0]] = (p ^ q) as u32 + 2 * (r as u32) + 4 * ((p ^ true) as u32);
                o[[i, 1]] = x.wrapping_neg();
                o[[i, 2]] = 5u32.wrapping_neg() ^ 0u32.wrapping_neg();
                let zero = 0;
                let mut s = 7u32;
                for v in (0..10u32).step_by(zero as usize).rev() {
                    s += v;
                }
                for v in (0..=10u32).step_by(zero as usize).rev() {
                    s += v * 2;
                }
                o[[i, 3]] = s;
            })
            .unwrap();
        }
        let mut want = Vec::new();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let (p, q) = (x % 2 == 0, y > x);
            let mut r = p ^ q;
            r ^= x > 1000;
            want.extend([
                (p ^ q) as u32 + 2 * (r as u32) + 4 * ((p ^ true) as u32),
                x.wrapping_neg(),
                5u32.wrapping_neg() ^ 0u32.wrapping_neg(),
                7,
            ]);
        }
        assert_same(&out, &want, &what);
    }
}

/// `f16` `%` (C's `fmod`, exact) gave WGSL that did not parse, and `f16`
/// `!=` with a NaN operand was false on lavapipe (the NaN-correct
/// `!(a == b)` form was written for `f32` and `f64` only). Accelerators
/// without `f16` arithmetic are skipped (their launch is refused with
/// `UnsupportedFeature`, tested in `half.rs`).
#[amp_test]
fn half_remainder_and_not_equal_with_nan() {
    use amp_core::f16;
    let xs: Vec<f16> = [
        7.5f32,
        -7.5,
        100.0,
        1.0,
        0.0,
        -0.0,
        65504.0,
        3.25,
        f32::NAN,
        2.0,
    ]
    .iter()
    .map(|&v| f16::from_f32(v))
    .collect();
    let ys: Vec<f16> = [
        2.0f32,
        2.0,
        0.7,
        1e-3,
        3.0,
        3.0,
        0.1,
        f32::NAN,
        1.0,
        f32::INFINITY,
    ]
    .iter()
    .map(|&v| f16::from_f32(v))
    .collect();
    let n = xs.len();
    for (view, what) in all_views() {
        if !view.accelerator().supports_half_precision() {
            continue;
        }
        let mut rem = vec![POISON_U32; n];
        let mut ne = vec![POISON_U32; n];
        {
            let xv = ArrayView::new([n as i32], &xs).unwrap();
            let yv = ArrayView::new([n as i32], &ys).unwrap();
            let r = ArrayView::new_mut([n as i32], &mut rem).unwrap();
            let e = ArrayView::new_mut([n as i32], &mut ne).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let (x, y) = (xv[idx], yv[idx]);
                r[idx] = (x % y).to_f32().to_bits();
                e[idx] = (x != y) as u32 + 2 * (x != x) as u32;
            })
            .unwrap();
        }
        for i in 0..n {
            let (x, y) = (xs[i], ys[i]);
            let want = (x % y).to_f32();
            let got = f32::from_bits(rem[i]);
            assert!(
                (want.is_nan() && got.is_nan()) || want.to_bits() == got.to_bits(),
                "{what}: {x} % {y}: got {got:e}, want {want:e}"
            );
            let want_ne = (x != y) as u32 + 2 * (x.is_nan() as u32);
            assert_eq!(ne[i], want_ne, "{what}: {x} != {y}");
        }
    }
}

/// An `Array` shared between threads through an `Arc` is captured as the
/// array it holds, read and written (writing one was refused as "a
/// read-only view"); two threads launch on their own `Arc`s of one array.
#[amp_test]
fn arrays_behind_arcs_are_captured() {
    use amp_core::Array;
    use std::sync::Arc;
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(20_030 + k as u64);
        let n = 512;
        let a = i32s(&mut rng, n, -1000, 1000);
        let src = Arc::new(Array::from_slice([n as i32], &a, &view).unwrap());
        let dst = Arc::new(Array::<i32, 1>::new([n as i32], &view).unwrap());
        std::thread::scope(|s| {
            for half in 0..2 {
                let (src, dst, view) = (Arc::clone(&src), Arc::clone(&dst), view.clone());
                s.spawn(move || {
                    let off = half * (n as i32 / 2);
                    parallel_for_each!(view, Extent::new([n as i32 / 2]), |idx: Index<1>| {
                        let i = idx[0] + off;
                        dst[[i]] = src[[i]] * 3 - i;
                    })
                    .unwrap();
                });
            }
        });
        let got = dst.to_vec().unwrap();
        let want: Vec<i32> = (0..n).map(|i| a[i] * 3 - i as i32).collect();
        assert_same(&got, &want, &what);
    }
}

/// What holds for NaN and infinities in cancelling arithmetic
/// (`docs/kernel-language.md` section 5): the CPU accelerator computes
/// Rust's NaN for `x - x`, `0.0 * x` and `x * 0.0` of a non-finite `x`;
/// GPU compilers that assume no NaN may fold them to `0.0` (lavapipe does;
/// measured), never to anything else; bit tests of the loaded value
/// (`is_nan`, `is_infinite`) and non-cancelling arithmetic (`x + 0.0`,
/// `x / x`) keep NaN and infinities everywhere.
#[amp_test]
fn cancelling_arithmetic_on_nan_and_infinities() {
    // (Signed zeros are a latitude of their own: section 5's table.)
    let xs = [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.5, 0.0];
    let n = xs.len();
    for (view, what) in all_views() {
        let mut out = vec![[POISON_U32; 7]; n];
        {
            let xv = ArrayView::new([n as i32], &xs[..]).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let x = xv[idx];
                o[idx] = [
                    (x - x).to_bits(),
                    (0.0 * x).to_bits(),
                    (x * 0.0).to_bits(),
                    (x + 0.0).to_bits(),
                    (x / x).to_bits(),
                    x.is_nan() as u32,
                    x.is_infinite() as u32,
                ];
            })
            .unwrap();
        }
        let cpu = view.accelerator().is_cpu();
        for (i, &x) in xs.iter().enumerate() {
            let got: Vec<f32> = out[i][..5].iter().map(|&b| f32::from_bits(b)).collect();
            // The point: what these forms give for NaN and infinities.
            #[allow(clippy::eq_op)]
            let want = [x - x, 0.0 * x, x * 0.0, x + 0.0, x / x];
            for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
                let same = (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits();
                // GPUs may fold the cancelling forms (k < 3) to zero, of
                // either sign (signed zeros are not kept either).
                let folded = !cpu && k < 3 && (w.is_nan() || w == 0.0) && g == 0.0;
                // `x / x` at zero (NaN) is outside the claim on GPUs too,
                // and NVIDIA's compiler folds `x / x` to 1.0 for every `x`,
                // infinities and NaN included (kernel-language section 12).
                let latitude = !cpu && k == 4 && (x == 0.0 || (!x.is_finite() && g == 1.0));
                assert!(
                    same || folded || latitude,
                    "{what}: form {k} of {x}: got {g:e}, want {w:e}"
                );
            }
            assert_eq!(out[i][5], x.is_nan() as u32, "{what}: is_nan({x})");
            assert_eq!(
                out[i][6],
                x.is_infinite() as u32,
                "{what}: is_infinite({x})"
            );
        }
    }
}

/// `sin`, `cos` and `tan` within the accuracy `docs/kernel-language.md`
/// claims, over the argument range it claims it for, sampled in every
/// binary exponent up to 2^22: on the CPU accelerator and lavapipe 1e-6
/// absolute for `|x| < 2^22` (lavapipe's results from 2^24 on are
/// unrelated to the argument: `sin(1e10)` is -1.0); on other GPUs WGSL's
/// own bound only, 2^-11 absolute on `[-pi, pi]` (NVIDIA's `sin(-6.645327)`
/// is 1.02e-6 off). The largest error of each binary exponent is printed.
#[amp_test]
fn trigonometric_accuracy_over_the_claimed_range() {
    let mut rng = Rng::new(20_040);
    let mut xs = Vec::new();
    for k in -4..22 {
        for _ in 0..200 {
            let x = (1.0 + unit(&mut rng)) * 2f64.powi(k);
            xs.push(if rng.range(0, 2) == 0 { x } else { -x } as f32);
        }
    }
    let n = xs.len();
    for (view, what) in all_views() {
        let mut out = vec![[f32::NAN; 3]; n];
        {
            let xv = ArrayView::new([n as i32], &xs[..]).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let x = xv[idx];
                o[idx] = [x.sin(), x.cos(), x.tan()];
            })
            .unwrap();
        }
        // The claim: 1e-6 (sin, cos) and 1e-3 relative (tan) for |x| <
        // 2^22 where it was measured, WGSL's 2^-11 on [-pi, pi] elsewhere.
        let d = view.accelerator().description().to_ascii_lowercase();
        let measured = view.accelerator().is_cpu() || d.contains("llvmpipe");
        let mut worst = std::collections::BTreeMap::<i32, f64>::new();
        for (i, &x) in xs.iter().enumerate() {
            let x64 = f64::from(x);
            let [s, c, t] = out[i].map(f64::from);
            let err = (s - x64.sin()).abs().max((c - x64.cos()).abs());
            let e = worst.entry(x64.abs().log2().floor() as i32).or_insert(0.0);
            *e = e.max(err);
            if !measured {
                if x64.abs() <= std::f64::consts::PI {
                    assert!(
                        err <= 2f64.powi(-11),
                        "{what}: sin/cos({x:e}) off by {err:e}"
                    );
                }
                continue;
            }
            assert!((s - x64.sin()).abs() <= 1e-6, "{what}: sin({x:e}) = {s:e}");
            assert!((c - x64.cos()).abs() <= 1e-6, "{what}: cos({x:e}) = {c:e}");
            let tw = x64.tan();
            assert!(
                (t - tw).abs() <= 1e-3 * tw.abs().max(1.0),
                "{what}: tan({x:e}) = {t:e}, want {tw:e}"
            );
        }
        let table: Vec<String> = worst
            .iter()
            .map(|(k, e)| format!("2^{k}: {e:.1e}"))
            .collect();
        eprintln!(
            "{what}: largest sin/cos error per binary exponent: {}",
            table.join(", ")
        );
    }
}

/// Found by the fuzzer: a block (or a one-arm `match`) whose value is a
/// constant, as an operand of an operator with another constant, formed a
/// WGSL constant expression that overflows, which naga refuses ("Float
/// literal is infinite", "<< operation overflowed", "sqrt built-in
/// function argument is out of valid range"): every GPU launch failed.
/// Division by a literal zero (`x / 0.0`, `x / -0.0`) left the output
/// unwritten on lavapipe, whose compiler assumes no infinities; amp-rs now
/// writes IEEE's result out. (Through a local, `let z = 0.0; x / z`, the
/// driver still sees the zero: a documented latitude, section 12 of
/// `docs/kernel-language.md`.)
#[amp_test]
fn constant_blocks_and_division_by_a_constant_zero() {
    let xs = [1.5f32, -2.0, 0.0, -0.0, f32::INFINITY, f32::NAN, 3e38];
    let n = xs.len();
    for (view, what) in all_views() {
        let mut out = vec![[POISON_U32; 8]; n];
        {
            let xv = ArrayView::new([n as i32], &xs[..]).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let x = xv[idx];
                o[idx] = [
                    (({
                        let _t = 1u32;
                        1e30f32
                    }) * 1e30f32)
                        .to_bits(),
                    65536u32
                        << (match 8u32 {
                            _ => 20u32,
                        }),
                    ({
                        let _t = 1u32;
                        -1.0f32
                    })
                    .sqrt()
                    .to_bits(),
                    (x / 0.0).to_bits(),
                    (x / -0.0).to_bits(),
                    (x / -(0.0)).to_bits(),
                    (x / 0.0 + 1.0).to_bits(),
                    idx[0] as u32,
                ];
            })
            .unwrap();
        }
        for (i, &x) in xs.iter().enumerate() {
            let want = [
                (1e30f32 * 1e30f32).to_bits(),
                65536u32.wrapping_shl(20),
                (-1.0f32).sqrt().to_bits(),
                (x / 0.0).to_bits(),
                (x / -0.0).to_bits(),
                (x / -(0.0)).to_bits(),
                (x / 0.0 + 1.0).to_bits(),
                i as u32,
            ];
            for (k, (&g, &w)) in out[i].iter().zip(&want).enumerate() {
                let (gf, wf) = (f32::from_bits(g), f32::from_bits(w));
                let same = g == w || (k != 1 && k != 7 && gf.is_nan() && wf.is_nan());
                assert!(
                    same,
                    "{what}: value {k} for x = {x:e}: got {gf:e} ({g:#x}), want {wf:e} ({w:#x})"
                );
            }
        }
    }
}
