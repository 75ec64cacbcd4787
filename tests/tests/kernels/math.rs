//! Kernel math functions (the `x.sqrt()`-style built-ins of the kernel
//! language): basic float functions (exact or within a few ulp), rounding
//! half away from zero as Rust does, transcendental functions within GPU
//! precision (relative 1e-3), integer `abs`/`min`/`max`/`clamp`, bit
//! functions, `f64` math on double-precision accelerators, float `%`, and a
//! Newton iteration.
//!
//! Every kernel runs on every accelerator and is compared with Rust's own
//! functions; documented deviations from `std` (FMA fusing in `mul_add`)
//! are spelled out in the references.

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_tests::Rng;
use amp_tests::amp_test;

/// Basic `f32` functions: `sqrt abs floor ceil trunc round fract min max
/// clamp signum recip mul_add`, with exact halves for `round`.
#[amp_test]
fn f32_basic_functions() {
    let edges = [
        0.5f32,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.499_999_97,
        -0.499_999_97,
        0.0,
        1.0,
        -1.0,
        8_388_609.0,
        -8_388_609.5,
        1e-3,
        123.456,
    ];
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(5000 + k as u64);
        let n = 1000;
        let mut a = f32s(&mut rng, n, -100.0, 100.0);
        a[..edges.len()].copy_from_slice(&edges);
        let b = f32s(&mut rng, n, -100.0, 100.0);
        let rows = 13;
        let mut out = vec![f32::NAN; rows * n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let o = ArrayView::new_mut([rows as i32, n as i32], &mut out).unwrap();
            o.discard_data();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let y = bv[idx];
                o[0][i] = x.abs().sqrt();
                o[1][i] = x.abs();
                o[2][i] = x.floor();
                o[3][i] = x.ceil();
                o[4][i] = x.trunc();
                o[5][i] = x.round();
                o[6][i] = x.fract();
                o[7][i] = x.min(y);
                o[8][i] = x.max(y);
                o[9][i] = x.clamp(-10.0, 20.0);
                o[10][i] = x.signum();
                o[11][i] = (x + 200.0).recip();
                o[12][i] = x.mul_add(y, 0.5);
            })
            .unwrap();
        }
        let row = |r: usize| &out[r * n..(r + 1) * n];
        let want = |f: &dyn Fn(f32, f32) -> f32| {
            a.iter().zip(&b).map(|(x, y)| f(*x, *y)).collect::<Vec<_>>()
        };
        assert_close32(
            row(0),
            &want(&|x, _| x.abs().sqrt()),
            F32_BASIC,
            0.0,
            &format!("{what} sqrt"),
        );
        assert_bits32(row(1), &want(&|x, _| x.abs()), &format!("{what} abs"));
        assert_close32(
            row(2),
            &want(&|x, _| x.floor()),
            0.0,
            0.0,
            &format!("{what} floor"),
        );
        assert_close32(
            row(3),
            &want(&|x, _| x.ceil()),
            0.0,
            0.0,
            &format!("{what} ceil"),
        );
        assert_close32(
            row(4),
            &want(&|x, _| x.trunc()),
            0.0,
            0.0,
            &format!("{what} trunc"),
        );
        assert_close32(
            row(5),
            &want(&|x, _| x.round()),
            0.0,
            0.0,
            &format!("{what} round"),
        );
        assert_close32(
            row(6),
            &want(&|x, _| x.fract()),
            0.0,
            1e-6,
            &format!("{what} fract"),
        );
        assert_bits32(row(7), &want(&|x, y| x.min(y)), &format!("{what} min"));
        assert_bits32(row(8), &want(&|x, y| x.max(y)), &format!("{what} max"));
        assert_bits32(
            row(9),
            &want(&|x, _| x.clamp(-10.0, 20.0)),
            &format!("{what} clamp"),
        );
        assert_bits32(
            row(10),
            &want(&|x, _| x.signum()),
            &format!("{what} signum"),
        );
        assert_close32(
            row(11),
            &want(&|x, _| 1.0 / (x + 200.0)),
            F32_BASIC,
            0.0,
            &format!("{what} recip"),
        );
        // mul_add may be fused (one rounding) or not (two).
        assert_close32(
            row(12),
            &want(&|x, y| x * y + 0.5),
            F32_BASIC,
            1e-4,
            &format!("{what} mul_add"),
        );
    }
}

/// `exp exp2 ln log2 powf` on `f32`, within transcendental tolerance.
#[amp_test]
fn f32_exponential_functions() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(5100 + k as u64);
        let n = 1000;
        let x = f32s(&mut rng, n, -20.0, 20.0);
        let p = f32s(&mut rng, n, 1e-3, 1e4);
        let e = f32s(&mut rng, n, -5.0, 5.0);
        let base = f32s(&mut rng, n, 0.1, 10.0);
        let mut out = vec![f32::NAN; 5 * n];
        {
            let xv = ArrayView::new([n as i32], &x).unwrap();
            let pv = ArrayView::new([n as i32], &p).unwrap();
            let ev = ArrayView::new([n as i32], &e).unwrap();
            let bv = ArrayView::new([n as i32], &base).unwrap();
            let o = ArrayView::new_mut([5, n as i32], &mut out).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let i = idx[0];
                o[[0, i]] = xv[idx].exp();
                o[[1, i]] = (xv[idx] * 1.5).exp2();
                o[[2, i]] = pv[idx].ln();
                o[[3, i]] = pv[idx].log2();
                o[[4, i]] = bv[idx].powf(ev[idx]);
            })
            .unwrap();
        }
        let row = |r: usize| &out[r * n..(r + 1) * n];
        let t = F32_TRANSCENDENTAL;
        let exp: Vec<f32> = x.iter().map(|v| v.exp()).collect();
        let exp2: Vec<f32> = x.iter().map(|v| (v * 1.5).exp2()).collect();
        let ln: Vec<f32> = p.iter().map(|v| v.ln()).collect();
        let log2: Vec<f32> = p.iter().map(|v| v.log2()).collect();
        let pow: Vec<f32> = base.iter().zip(&e).map(|(b, e)| b.powf(*e)).collect();
        assert_close32(row(0), &exp, t, 0.0, &format!("{what} exp"));
        assert_close32(row(1), &exp2, t, 0.0, &format!("{what} exp2"));
        assert_close32(row(2), &ln, t, 1e-4, &format!("{what} ln"));
        assert_close32(row(3), &log2, t, 1e-4, &format!("{what} log2"));
        assert_close32(row(4), &pow, t, 1e-6, &format!("{what} powf"));
    }
}

/// `sin cos tan asin acos atan atan2` on `f32`.
#[amp_test]
fn f32_trigonometry() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(5200 + k as u64);
        let n = 1000;
        let x = f32s(&mut rng, n, -std::f32::consts::PI, std::f32::consts::PI);
        let t = f32s(&mut rng, n, -1.2, 1.2);
        let u = f32s(&mut rng, n, -1.0, 1.0);
        let y = f32s(&mut rng, n, -50.0, 50.0);
        let mut out = vec![f32::NAN; 7 * n];
        {
            let xv = ArrayView::new([n as i32], &x).unwrap();
            let tv = ArrayView::new([n as i32], &t).unwrap();
            let uv = ArrayView::new([n as i32], &u).unwrap();
            let yv = ArrayView::new([n as i32], &y).unwrap();
            let o = ArrayView::new_mut([7, n as i32], &mut out).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let i = idx[0];
                let v = xv[idx];
                o[0][i] = v.sin();
                o[1][i] = v.cos();
                o[2][i] = tv[idx].tan();
                o[3][i] = uv[idx].asin();
                o[4][i] = uv[idx].acos();
                o[5][i] = yv[idx].atan();
                o[6][i] = yv[idx].atan2(v);
            })
            .unwrap();
        }
        let row = |r: usize| &out[r * n..(r + 1) * n];
        let tr = F32_TRANSCENDENTAL;
        let map = |v: &[f32], f: fn(f32) -> f32| v.iter().map(|x| f(*x)).collect::<Vec<_>>();
        // Vulkan bounds sin/cos by an absolute error (2^-11) on [-pi, pi].
        assert_close32(row(0), &map(&x, f32::sin), tr, 1e-3, &format!("{what} sin"));
        assert_close32(row(1), &map(&x, f32::cos), tr, 1e-3, &format!("{what} cos"));
        assert_close32(row(2), &map(&t, f32::tan), tr, 1e-3, &format!("{what} tan"));
        assert_close32(
            row(3),
            &map(&u, f32::asin),
            tr,
            1e-3,
            &format!("{what} asin"),
        );
        assert_close32(
            row(4),
            &map(&u, f32::acos),
            tr,
            1e-3,
            &format!("{what} acos"),
        );
        assert_close32(
            row(5),
            &map(&y, f32::atan),
            tr,
            1e-4,
            &format!("{what} atan"),
        );
        let atan2: Vec<f32> = y.iter().zip(&x).map(|(y, x)| y.atan2(*x)).collect();
        assert_close32(row(6), &atan2, tr, 1e-3, &format!("{what} atan2"));
    }
}

/// `sinh cosh tanh` on `f32`.
#[amp_test]
fn f32_hyperbolic() {
    for (k, (view, what)) in views(QueuingMode::Automatic).into_iter().enumerate() {
        let mut rng = Rng::new(5300 + k as u64);
        let n = 777;
        let x = f32s(&mut rng, n, -5.0, 5.0);
        let mut out = vec![f32::NAN; 3 * n];
        {
            let xv = ArrayView::new([n as i32], &x).unwrap();
            let o = ArrayView::new_mut([3, n as i32], &mut out).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let i = idx[0];
                let v = xv[idx];
                o[0][i] = v.sinh();
                o[1][i] = v.cosh();
                o[2][i] = v.tanh();
            })
            .unwrap();
        }
        let row = |r: usize| &out[r * n..(r + 1) * n];
        let map = |f: fn(f32) -> f32| x.iter().map(|v| f(*v)).collect::<Vec<_>>();
        let tr = F32_TRANSCENDENTAL;
        assert_close32(row(0), &map(f32::sinh), tr, 1e-4, &format!("{what} sinh"));
        assert_close32(row(1), &map(f32::cosh), tr, 1e-4, &format!("{what} cosh"));
        assert_close32(row(2), &map(f32::tanh), tr, 1e-4, &format!("{what} tanh"));
    }
}

/// Integer `abs` (wrapping at `i32::MIN`), `min`, `max`, `clamp` on `i32`
/// and `u32`.
#[amp_test]
fn integer_abs_min_max_clamp() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(5400 + k as u64);
        let n = 600;
        let mut a = any_i32s(&mut rng, n);
        let b = any_i32s(&mut rng, n);
        a[0] = i32::MIN;
        a[1] = i32::MAX;
        a[2] = 0;
        a[3] = -1;
        let ua = any_u32s(&mut rng, n);
        let mut out = vec![POISON_I32; 4 * n];
        let mut uout = vec![POISON_U32; 4 * n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let uav = ArrayView::new([n as i32], &ua).unwrap();
            let o = ArrayView::new_mut([4, n as i32], &mut out).unwrap();
            let u = ArrayView::new_mut([4, n as i32], &mut uout).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let y = bv[idx];
                o[0][i] = x.abs();
                o[1][i] = x.min(y);
                o[2][i] = x.max(y);
                o[3][i] = x.clamp(-1000, 1_000_000);
                let p = uav[idx];
                let q = y as u32;
                u[0][i] = p;
                u[1][i] = p.min(q);
                u[2][i] = p.max(q);
                u[3][i] = p.clamp(1000, 3_000_000_000);
            })
            .unwrap();
        }
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [
                x.wrapping_abs(),
                x.min(y),
                x.max(y),
                x.clamp(-1000, 1_000_000),
            ];
            let (p, q) = (ua[i], b[i] as u32);
            let uwant = [p, p.min(q), p.max(q), p.clamp(1000, 3_000_000_000)];
            for r in 0..4 {
                assert_eq!(out[r * n + i], want[r], "{what} i32 row {r}: {x}, {y}");
                assert_eq!(uout[r * n + i], uwant[r], "{what} u32 row {r}: {p}, {q}");
            }
        }
    }
}

/// `count_ones leading_zeros trailing_zeros reverse_bits` on `i32` and
/// `u32`, including 0, -1, `MIN` and `MAX`.
#[amp_test]
fn bit_functions() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(5500 + k as u64);
        let n = 500;
        let mut a = any_i32s(&mut rng, n);
        for (j, v) in [0, -1, i32::MIN, i32::MAX, 1, 0x0001_0000, -0x0001_0000]
            .iter()
            .enumerate()
        {
            a[j] = *v;
        }
        let mut out = vec![POISON_U32; 8 * n];
        let mut rev = vec![POISON_I32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([8, n as i32], &mut out).unwrap();
            let r = ArrayView::new_mut([n as i32], &mut rev).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let u = x as u32;
                o[0][i] = x.count_ones();
                o[1][i] = x.leading_zeros();
                o[2][i] = x.trailing_zeros();
                o[3][i] = u.count_ones();
                o[4][i] = u.leading_zeros();
                o[5][i] = u.trailing_zeros();
                o[6][i] = u.reverse_bits();
                o[7][i] = (u >> 7).leading_zeros() + (u << 3).trailing_zeros();
                r[idx] = x.reverse_bits();
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            let u = x as u32;
            let want = [
                x.count_ones(),
                x.leading_zeros(),
                x.trailing_zeros(),
                u.count_ones(),
                u.leading_zeros(),
                u.trailing_zeros(),
                u.reverse_bits(),
                (u >> 7).leading_zeros() + (u << 3).trailing_zeros(),
            ];
            for (r, w) in want.iter().enumerate() {
                assert_eq!(out[r * n + i], *w, "{what} row {r} of {x:#x}");
            }
            assert_eq!(rev[i], x.reverse_bits(), "{what} reverse_bits of {x:#x}");
        }
    }
}

/// Basic `f64` functions on double-precision accelerators (exact or to
/// 1e-15); `UnsupportedFeature` elsewhere.
#[amp_test]
fn f64_basic_functions() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(5600 + k as u64);
        let n = 500;
        let mut a = f64s(&mut rng, n, -1e4, 1e4);
        a[..6].copy_from_slice(&[
            0.5,
            -0.5,
            2.5,
            -2.5,
            0.499_999_999_999_999_9,
            4_503_599_627_370_497.0,
        ]);
        let b = f64s(&mut rng, n, -1e4, 1e4);
        let rows = 11;
        let mut out = vec![f64::NAN; rows * n];
        let result = {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let o = ArrayView::new_mut([rows as i32, n as i32], &mut out).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let y = bv[idx];
                o[0][i] = x.abs().sqrt();
                o[1][i] = x.abs();
                o[2][i] = x.floor();
                o[3][i] = x.ceil();
                o[4][i] = x.trunc();
                o[5][i] = x.round();
                o[6][i] = x.fract();
                o[7][i] = x.min(y).max(-5000.0);
                o[8][i] = x.clamp(-10.0, 20.0);
                o[9][i] = x.signum() * (x + 2e4).recip();
                o[10][i] = x.mul_add(y, 0.25);
            })
        };
        if !view.accelerator().supports_double_precision() {
            assert!(
                matches!(result, Err(Error::UnsupportedFeature { .. })),
                "{what}: {result:?}"
            );
            continue;
        }
        result.unwrap();
        let row = |r: usize| &out[r * n..(r + 1) * n];
        let want = |f: &dyn Fn(f64, f64) -> f64| {
            a.iter().zip(&b).map(|(x, y)| f(*x, *y)).collect::<Vec<_>>()
        };
        assert_close64(
            row(0),
            &want(&|x, _| x.abs().sqrt()),
            1e-15,
            0.0,
            &format!("{what} sqrt"),
        );
        assert_close64(
            row(1),
            &want(&|x, _| x.abs()),
            0.0,
            0.0,
            &format!("{what} abs"),
        );
        assert_close64(
            row(2),
            &want(&|x, _| x.floor()),
            0.0,
            0.0,
            &format!("{what} floor"),
        );
        assert_close64(
            row(3),
            &want(&|x, _| x.ceil()),
            0.0,
            0.0,
            &format!("{what} ceil"),
        );
        assert_close64(
            row(4),
            &want(&|x, _| x.trunc()),
            0.0,
            0.0,
            &format!("{what} trunc"),
        );
        assert_close64(
            row(5),
            &want(&|x, _| x.round()),
            0.0,
            0.0,
            &format!("{what} round"),
        );
        assert_close64(
            row(6),
            &want(&|x, _| x.fract()),
            0.0,
            1e-12,
            &format!("{what} fract"),
        );
        assert_close64(
            row(7),
            &want(&|x, y| x.min(y).max(-5000.0)),
            0.0,
            0.0,
            &format!("{what} min/max"),
        );
        assert_close64(
            row(8),
            &want(&|x, _| x.clamp(-10.0, 20.0)),
            0.0,
            0.0,
            &format!("{what} clamp"),
        );
        assert_close64(
            row(9),
            &want(&|x, _| x.signum() / (x + 2e4)),
            1e-15,
            0.0,
            &format!("{what} signum/recip"),
        );
        assert_close64(
            row(10),
            &want(&|x, y| x * y + 0.25),
            1e-15,
            1e-9,
            &format!("{what} mul_add"),
        );
    }
}

/// `f64` transcendental functions: exact to `std` on the CPU accelerator;
/// GPUs refuse them (`UnsupportedFeature`) because WGSL/SPIR-V only have
/// them for `f32` (lavapipe silently computed garbage before).
#[amp_test]
fn f64_transcendental_functions() {
    for (view, what) in all_views() {
        let a: Vec<f64> = (1..=64).map(|i| f64::from(i) * 0.03).collect();
        let mut out = vec![f64::NAN; 4 * 64];
        let result = {
            let av = ArrayView::new([64], &a).unwrap();
            let o = ArrayView::new_mut([4, 64], &mut out).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                o[0][i] = x.exp();
                o[1][i] = x.sin() + x.cos();
                o[2][i] = x.ln() + x.powf(1.5);
                o[3][i] = (x * 0.5).asin() + x.tanh() + x.atan2(0.5);
            })
        };
        if !view.accelerator().is_cpu() {
            assert!(
                matches!(result, Err(Error::UnsupportedFeature { .. })),
                "{what}: {result:?}"
            );
            assert!(out.iter().all(|v| v.is_nan()), "{what}: data changed");
            continue;
        }
        result.unwrap();
        for (i, x) in a.iter().enumerate() {
            let want = [
                x.exp(),
                x.sin() + x.cos(),
                x.ln() + x.powf(1.5),
                (x * 0.5).asin() + x.tanh() + x.atan2(0.5),
            ];
            for (r, w) in want.iter().enumerate() {
                assert_eq!(out[r * 64 + i], *w, "{what} row {r} of {x}");
            }
        }
    }
}

/// Float `%` truncates like Rust's (C `fmod`); WGSL computes
/// `x - y * trunc(x / y)`, so the GPU result may differ by an ulp of `x`.
#[amp_test]
fn f32_remainder_and_division() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(5700 + k as u64);
        let n = 800;
        let x = f32s(&mut rng, n, -100.0, 100.0);
        let mut y = f32s(&mut rng, n, 0.5, 10.0);
        for (j, v) in y.iter_mut().enumerate() {
            if j % 2 == 1 {
                *v = -*v;
            }
        }
        let mut out = vec![f32::NAN; 2 * n];
        {
            let xv = ArrayView::new([n as i32], &x).unwrap();
            let yv = ArrayView::new([n as i32], &y).unwrap();
            let o = ArrayView::new_mut([2, n as i32], &mut out).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let i = idx[0];
                o[0][i] = xv[idx] % yv[idx];
                o[1][i] = xv[idx] / yv[idx];
            })
            .unwrap();
        }
        for i in 0..n {
            let (a, b) = (x[i], y[i]);
            let r = out[i];
            assert!(
                close32(r, a % b, 0.0, 1e-4),
                "{what} {a} % {b}: {r} vs {}",
                a % b
            );
            assert!(
                r == 0.0 || r.signum() == a.signum(),
                "{what} {a} % {b}: sign of {r}"
            );
            assert!(
                close32(out[n + i], a / b, F32_BASIC, 0.0),
                "{what} {a} / {b}"
            );
        }
    }
}

/// A Newton iteration for square roots (a loop of divisions) converges to
/// `sqrt` on every accelerator.
#[amp_test]
fn newton_square_root() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(5800 + k as u64);
        let n = 512;
        let a = f32s(&mut rng, n, 0.01, 1e6);
        let mut out = vec![f32::NAN; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let v = av[idx];
                let mut g = if v > 1.0 { v * 0.5 } else { 1.0 };
                let mut iterations = 0;
                while iterations < 40 {
                    let next = 0.5 * (g + v / g);
                    if (next - g).abs() <= 1e-7 * g {
                        g = next;
                        break;
                    }
                    g = next;
                    iterations += 1;
                }
                o[idx] = g;
            })
            .unwrap();
        }
        let want: Vec<f32> = a.iter().map(|v| v.sqrt()).collect();
        assert_close32(&out, &want, 1e-5, 0.0, &what);
    }
}

/// `amp_core::direct3d`'s intrinsics in a kernel give what the same
/// functions give on the host, on random inputs and the edge cases
/// (`0`, `-1`, `i32::MIN`/`MAX`, `u32::MAX`, NaN, values outside `[0, 1]`):
/// integers and the selecting float functions exactly; `radians`, `rcp`,
/// `smoothstep` and `mad` within 1e-6 relative (a GPU may divide within
/// 2.5 ulp and fuse or reassociate multiplications).
#[amp_test]
fn direct3d_intrinsics_match_the_host() {
    use amp_core::direct3d::*;
    const N: usize = 1000;
    for (k, acc) in amp_tests::accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(9800 + k as u64);
        let mut xi: Vec<i32> = (0..N).map(|_| rng.range(i32::MIN, i32::MAX)).collect();
        let mut yi: Vec<i32> = (0..N).map(|_| rng.range(-1000, 1000)).collect();
        let mut xf: Vec<f32> = (0..N)
            .map(|_| rng.range(-3000, 3000) as f32 / 1000.0)
            .collect();
        for (j, v) in [0, -1, 1, i32::MIN, i32::MAX, 8, -8]
            .into_iter()
            .enumerate()
        {
            xi[j] = v;
            yi[j] = v.wrapping_neg() / 2;
        }
        for (j, v) in [0.0f32, 1.0, -0.0, f32::NAN, 0.5, 1e-30, 7.0]
            .into_iter()
            .enumerate()
        {
            xf[j] = v;
        }
        let xu: Vec<u32> = xi.iter().map(|&v| v as u32).collect();
        let mut ints = vec![[i32::MIN; 8]; N];
        let mut uints = vec![[u32::MAX; 5]; N];
        let mut floats = vec![[f32::NAN; 7]; N];
        {
            let (a, b) = (
                ArrayView::new([N as i32], &xi).unwrap(),
                ArrayView::new([N as i32], &yi).unwrap(),
            );
            let (f, u) = (
                ArrayView::new([N as i32], &xf).unwrap(),
                ArrayView::new([N as i32], &xu).unwrap(),
            );
            let oi = ArrayView::new_mut([N as i32], &mut ints).unwrap();
            let ou = ArrayView::new_mut([N as i32], &mut uints).unwrap();
            let of = ArrayView::new_mut([N as i32], &mut floats).unwrap();
            parallel_for_each!(&view, oi.extent(), |idx: Index<1>| {
                let (x, y, z, w) = (a[idx], b[idx], f[idx], u[idx]);
                oi[idx] = [
                    abs(x),
                    clamp(x, -y.abs(), y.abs()),
                    firstbithigh(x),
                    firstbitlow(x),
                    imax(x, y),
                    imin(x, y),
                    sign(x),
                    mad(x, y, 7),
                ];
                ou[idx] = [
                    countbits(w),
                    reversebits(w),
                    umax(w, 1000u32),
                    umin(w, 1000u32),
                    mad(w, 3u32, w),
                ];
                of[idx] = [
                    saturate(z),
                    step(0.5, z),
                    radians(z * 90.0),
                    clamp(z, -1.0, 1.0),
                    rcp(z),
                    smoothstep(-1.0, 2.0, z),
                    mad(z, 2.0, 0.25),
                ];
            })
            .unwrap();
        }
        let what = acc.description();
        for j in 0..N {
            let (x, y, z, w) = (xi[j], yi[j], xf[j], xu[j]);
            let want_i = [
                abs(x),
                clamp(x, -y.abs(), y.abs()),
                firstbithigh(x),
                firstbitlow(x),
                imax(x, y),
                imin(x, y),
                sign(x),
                mad(x, y, 7),
            ];
            assert_eq!(ints[j], want_i, "{what}: ints of {x}, {y}");
            let want_u = [
                countbits(w),
                reversebits(w),
                umax(w, 1000),
                umin(w, 1000),
                mad(w, 3, w),
            ];
            assert_eq!(uints[j], want_u, "{what}: uints of {w}");
            let want_f = [
                saturate(z),
                step(0.5, z),
                radians(z * 90.0),
                clamp(z, -1.0, 1.0),
                rcp(z),
                smoothstep(-1.0, 2.0, z),
                mad(z, 2.0, 0.25),
            ];
            for (c, (&got, &want)) in floats[j].iter().zip(&want_f).enumerate() {
                let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
                let close = (got - want).abs() <= 1e-6 * want.abs().max(1.0);
                // saturate, step and clamp compare and select: exact.
                let exact = matches!(c, 0 | 1 | 3);
                // NVIDIA's Vulkan compiler assumes no NaN: `clamp(NaN, -1,
                // 1)` is a bound there (kernel-language section 12).
                let nan_clamp = !acc.is_cpu() && c == 3 && z.is_nan() && got.abs() == 1.0;
                assert!(
                    same || (!exact && close) || nan_clamp,
                    "{what}: float {c} of {z}: {got} vs {want}"
                );
            }
        }
        // C++ AMP's documented values.
        assert_eq!(
            (firstbitlow(0), firstbithigh(0), firstbithigh(-1)),
            (-1, -1, -1)
        );
        assert_eq!(
            (firstbithigh(1), firstbithigh(0x80), firstbithigh(-2)),
            (0, 7, 0)
        );
        assert_eq!(
            (abs(i32::MIN), countbits(u32::MAX), reversebits(1)),
            (i32::MIN, 32, 1 << 31)
        );
    }
}

/// Rust's integer and float methods in kernels (`wrapping_*`, `rotate_*`,
/// `pow`, `count_zeros`, `leading_ones`, `trailing_ones`, `powi`, `log10`,
/// `to_radians`, `to_degrees`, `copysign`, `is_nan`, `is_finite`,
/// `is_infinite`, `is_sign_negative`, `is_sign_positive`) against the same
/// methods on the host: integers and the bit tests exactly, `powi` and
/// `log10` within GPU precision.
#[amp_test]
fn rust_scalar_methods_match_the_host() {
    const N: usize = 1000;
    for (k, acc) in amp_tests::accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(9900 + k as u64);
        let mut xi: Vec<i32> = (0..N).map(|_| rng.range(i32::MIN, i32::MAX)).collect();
        let yi: Vec<i32> = (0..N).map(|_| rng.range(i32::MIN, i32::MAX)).collect();
        let ni: Vec<u32> = (0..N).map(|_| rng.range(0, 80) as u32).collect();
        let mut xf: Vec<f32> = (0..N)
            .map(|_| rng.range(-4000, 4000) as f32 / 256.0)
            .collect();
        let pi: Vec<i32> = (0..N).map(|_| rng.range(-6, 7)).collect();
        for (j, v) in [0, -1, 1, i32::MIN, i32::MAX].into_iter().enumerate() {
            xi[j] = v;
        }
        let specials = [
            0.0f32,
            -0.0,
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-30,
        ];
        for (j, v) in specials.into_iter().enumerate() {
            xf[j] = v;
        }
        let xu: Vec<u32> = xi.iter().map(|&v| v as u32).collect();
        let mut ints = vec![[0i32; 7]; N];
        let mut uints = vec![[0u32; 7]; N];
        let mut bits = vec![[0u32; 2]; N];
        let mut floats = vec![[0.0f32; 5]; N];
        {
            let (a, b, n) = (
                ArrayView::new([N as i32], &xi).unwrap(),
                ArrayView::new([N as i32], &yi).unwrap(),
                ArrayView::new([N as i32], &ni).unwrap(),
            );
            let (f, p, u) = (
                ArrayView::new([N as i32], &xf).unwrap(),
                ArrayView::new([N as i32], &pi).unwrap(),
                ArrayView::new([N as i32], &xu).unwrap(),
            );
            let oi = ArrayView::new_mut([N as i32], &mut ints).unwrap();
            let ou = ArrayView::new_mut([N as i32], &mut uints).unwrap();
            let ob = ArrayView::new_mut([N as i32], &mut bits).unwrap();
            let of = ArrayView::new_mut([N as i32], &mut floats).unwrap();
            parallel_for_each!(&view, oi.extent(), |idx: Index<1>| {
                let (x, y, s, w) = (a[idx], b[idx], n[idx], u[idx]);
                oi[idx] = [
                    x.wrapping_add(y),
                    x.wrapping_sub(y),
                    x.wrapping_mul(y),
                    x.wrapping_neg(),
                    x.rotate_left(s),
                    x.rotate_right(s),
                    x.pow(s % 5),
                ];
                ou[idx] = [
                    w.rotate_left(s),
                    w.rotate_right(s),
                    w.pow(s % 7),
                    x.count_zeros(),
                    x.leading_ones(),
                    w.trailing_ones(),
                    i32::MAX.wrapping_add(1) as u32,
                ];
                let z = f[idx];
                let flags = (z.is_nan() as u32)
                    | ((z.is_finite() as u32) << 1)
                    | ((z.is_infinite() as u32) << 2)
                    | ((z.is_sign_negative() as u32) << 3)
                    | ((z.is_sign_positive() as u32) << 4);
                ob[idx] = [flags, z.copysign(-z).to_bits()];
                of[idx] = [
                    z.to_radians(),
                    z.to_degrees(),
                    z.powi(p[idx]),
                    z.abs().log10(),
                    1.5f32.powi(p[idx]),
                ];
            })
            .unwrap();
        }
        let what = acc.description();
        for j in 0..N {
            let (x, y, s, w) = (xi[j], yi[j], ni[j], xu[j]);
            let want_i = [
                x.wrapping_add(y),
                x.wrapping_sub(y),
                x.wrapping_mul(y),
                x.wrapping_neg(),
                x.rotate_left(s),
                x.rotate_right(s),
                x.wrapping_pow(s % 5),
            ];
            assert_eq!(ints[j], want_i, "{what}: ints of {x}, {y}, {s}");
            let want_u = [
                w.rotate_left(s),
                w.rotate_right(s),
                w.wrapping_pow(s % 7),
                x.count_zeros(),
                x.leading_ones(),
                w.trailing_ones(),
                i32::MIN as u32,
            ];
            assert_eq!(uints[j], want_u, "{what}: uints of {w}, {s}");
            let z = xf[j];
            let flags = (z.is_nan() as u32)
                | ((z.is_finite() as u32) << 1)
                | ((z.is_infinite() as u32) << 2)
                | ((z.is_sign_negative() as u32) << 3)
                | ((z.is_sign_positive() as u32) << 4);
            assert_eq!(
                bits[j],
                [flags, z.copysign(-z).to_bits()],
                "{what}: bits of {z}"
            );
            let want_f = [
                z.to_radians(),
                z.to_degrees(),
                z.powi(pi[j]),
                z.abs().log10(),
                1.5f32.powi(pi[j]),
            ];
            for (c, (&got, &want)) in floats[j].iter().zip(&want_f).enumerate() {
                let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
                // to_radians/to_degrees: one multiplication, exact; powi:
                // the same multiplications (a GPU may contract); log10:
                // GPU precision.
                let tolerance = match c {
                    0 | 1 => 0.0,
                    2 | 4 => 1e-6,
                    _ => 1e-5,
                };
                let close = (got - want).abs() <= tolerance * want.abs().max(1e-30)
                    || (got.is_infinite() && got == want)
                    || (want.abs() < 1e-37 && got.abs() < 1e-37);
                assert!(
                    same || close,
                    "{what}: float {c} of {z}, {}: {got} vs {want}",
                    pi[j]
                );
            }
        }
    }
}

/// `rem_euclid`, `div_euclid` (wrapping; a zero divisor as for `%` and
/// `/`), `abs_diff` and `u32::is_power_of_two` against Rust.
#[amp_test]
fn euclid_abs_diff_and_powers_of_two_match_rust() {
    const N: usize = 1000;
    for (k, acc) in amp_tests::accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(9950 + k as u64);
        let mut xi: Vec<i32> = (0..N).map(|_| rng.range(i32::MIN, i32::MAX)).collect();
        let mut yi: Vec<i32> = (0..N).map(|_| rng.range(-50, 50)).collect();
        for (j, (x, y)) in [
            (i32::MIN, -1),
            (7, 0),
            (-7, 3),
            (7, -3),
            (-7, -3),
            (i32::MIN, 1),
        ]
        .into_iter()
        .enumerate()
        {
            xi[j] = x;
            yi[j] = y;
        }
        let xu: Vec<u32> = xi.iter().map(|&v| (v as u32) >> (v as u32 % 32)).collect();
        let yu: Vec<u32> = yi.iter().map(|&v| v.unsigned_abs()).collect();
        let mut ints = vec![[0i32; 2]; N];
        let mut uints = vec![[0u32; 5]; N];
        {
            let (a, b) = (
                ArrayView::new([N as i32], &xi).unwrap(),
                ArrayView::new([N as i32], &yi).unwrap(),
            );
            let (c, d) = (
                ArrayView::new([N as i32], &xu).unwrap(),
                ArrayView::new([N as i32], &yu).unwrap(),
            );
            let oi = ArrayView::new_mut([N as i32], &mut ints).unwrap();
            let ou = ArrayView::new_mut([N as i32], &mut uints).unwrap();
            parallel_for_each!(&view, oi.extent(), |idx: Index<1>| {
                let (x, y, v, w) = (a[idx], b[idx], c[idx], d[idx]);
                oi[idx] = [x.rem_euclid(y), x.div_euclid(y)];
                ou[idx] = [
                    v.rem_euclid(w),
                    v.div_euclid(w),
                    x.abs_diff(y),
                    v.abs_diff(w),
                    v.is_power_of_two() as u32,
                ];
            })
            .unwrap();
        }
        let what = acc.description();
        for j in 0..N {
            let (x, y, v, w) = (xi[j], yi[j], xu[j], yu[j]);
            let want_i = if y == 0 {
                [0, x]
            } else {
                [x.wrapping_rem_euclid(y), x.wrapping_div_euclid(y)]
            };
            assert_eq!(ints[j], want_i, "{what}: {x} euclid {y}");
            let (ru, du) = if w == 0 {
                (0, v)
            } else {
                (v.rem_euclid(w), v.div_euclid(w))
            };
            let want_u = [
                ru,
                du,
                x.abs_diff(y),
                v.abs_diff(w),
                v.is_power_of_two() as u32,
            ];
            assert_eq!(uints[j], want_u, "{what}: {v}, {w}, {x}, {y}");
        }
    }
}

/// Rust's float methods that WGSL lacks, lowered on GPUs (`hypot`, `log`,
/// `ln_1p`, `exp_m1`, `cbrt`, `sin_cos`) or written with care there
/// (`asinh`, `acosh`, `atanh`, `rem_euclid`, `div_euclid`, `f32::from_bits`),
/// against the same methods on the host: special values (zeros of both
/// signs, infinities, NaN), tiny arguments where the naive formulas cancel,
/// and large ones where they overflow. Tolerances: GPU precision for the
/// transcendental ones, exact for the Euclidean ones and `from_bits`.
#[amp_test]
fn rust_float_methods_wgsl_lacks_match_the_host() {
    const N: usize = 1200;
    for (k, acc) in amp_tests::accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(9970 + k as u64);
        let mut xs: Vec<f32> = (0..N)
            .map(|_| {
                // Magnitudes from 1e-6 to 1e6, both signs.
                let e = rng.range(-60, 60) as f32 / 10.0;
                let s = if rng.range(0, 2) == 0 { 1.0 } else { -1.0 };
                s * 10f32.powf(e) * (1.0 + rng.range(0, 1000) as f32 / 1000.0)
            })
            .collect();
        let mut ys: Vec<f32> = (0..N)
            .map(|_| rng.range(-4000, 4000) as f32 / 64.0)
            .collect();
        let specials = [
            (0.0f32, 3.0f32),
            (-0.0, -3.0),
            (f32::INFINITY, f32::NAN),
            (f32::NEG_INFINITY, 2.0),
            (f32::NAN, f32::INFINITY),
            (1e-7, 1e-7),
            (-1e-7, 0.5),
            (3e19, 4e19),
            (-7.5, 2.0),
            (7.5, -2.0),
            (0.5, 1e-8),
            (-0.9999, 0.25),
        ];
        for (j, (x, y)) in specials.into_iter().enumerate() {
            xs[j] = x;
            ys[j] = y;
        }
        let bits: Vec<u32> = xs.iter().map(|x| x.to_bits() ^ 0x8000_0000).collect();
        // Arguments of atanh (|t| < 1) and acosh (u >= 1), rounded on the
        // host: a GPU may reassociate `(|x| + 1) - 1` to `|x|`.
        // |t| <= 0.999: nearer to 1, atanh's condition number (1 / (1 -
        // t^2)) turns the last-ulp differences of Rust's own formula into
        // visible ones.
        let ts: Vec<f32> = xs.iter().map(|v| 0.999 * v / (1.0 + v.abs())).collect();
        let us: Vec<f32> = xs.iter().map(|v| v.abs() + 1.0).collect();
        let mut out = vec![[f32::from_bits(POISON_U32); 14]; N];
        {
            let (x, y, b) = (
                ArrayView::new([N as i32], &xs).unwrap(),
                ArrayView::new([N as i32], &ys).unwrap(),
                ArrayView::new([N as i32], &bits).unwrap(),
            );
            let (tv, uv) = (
                ArrayView::new([N as i32], &ts).unwrap(),
                ArrayView::new([N as i32], &us).unwrap(),
            );
            let o = ArrayView::new_mut([N as i32], &mut out).unwrap();
            parallel_for_each!(&view, o.extent(), |i: Index<1>| {
                let (v, w) = (x[i], y[i]);
                let (s, c) = v.sin_cos();
                let (t, u) = (tv[i], uv[i]);
                o[i] = [
                    v.hypot(w),
                    v.abs().log(w.abs() + 2.0),
                    t.ln_1p(),
                    (v / 1000.0).exp_m1(),
                    v.cbrt(),
                    v.asinh(),
                    u.acosh(),
                    t.atanh(),
                    s,
                    c,
                    v.rem_euclid(w),
                    v.div_euclid(w),
                    f32::from_bits(b[i]),
                    (1.0f32).hypot(0.0),
                ];
            })
            .unwrap();
        }
        let what = acc.description();
        for j in 0..N {
            let (v, w) = (xs[j], ys[j]);
            let (s, c) = v.sin_cos();
            let (t, u) = (ts[j], us[j]);
            let want = [
                v.hypot(w),
                v.abs().log(w.abs() + 2.0),
                t.ln_1p(),
                (v / 1000.0).exp_m1(),
                v.cbrt(),
                v.asinh(),
                u.acosh(),
                t.atanh(),
                s,
                c,
                v.rem_euclid(w),
                v.div_euclid(w),
                f32::from_bits(bits[j]),
                1.0,
            ];
            for (m, (&got, &want)) in out[j].iter().zip(&want).enumerate() {
                let exact = m >= 10;
                let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
                // Trigonometry of large arguments: absolute error (GPUs
                // reduce the argument in f32).
                let (rel, abs) = match m {
                    8 | 9 => (1e-3, 2e-3 * v.abs().clamp(1.0, 1e3)),
                    _ => (F32_TRANSCENDENTAL, 1e-30),
                };
                let close = !exact
                    && (close32(got, want, rel, abs) || (want.abs() < 1e-37 && got.abs() < 1e-37));
                assert!(
                    same || close,
                    "{what}: method {m} of {v}, {w}: {got} vs {want}"
                );
            }
        }
    }
}

/// Short-vector math in kernels against the same methods on the host:
/// component-wise `sqrt`, `abs`, `floor`, `ceil`, `min`, `max`, `clamp`,
/// `mul_add`, `recip`, `exp`, `ln`, `cos`; `dot`, `length`, `distance`,
/// `normalize`; `cross` of 3-component vectors; scalar * vector both ways;
/// integer vector `abs`, `min`, `max`.
#[amp_test]
fn short_vector_math_matches_the_host() {
    const N: usize = 600;
    for (k, acc) in amp_tests::accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(9990 + k as u64);
        let v4 = |rng: &mut Rng| {
            let c = f32s(rng, 4, -8.0, 8.0);
            Float4::new(c[0], c[1], c[2], c[3])
        };
        let ps: Vec<Float4> = (0..N).map(|_| v4(&mut rng)).collect();
        let qs: Vec<Float4> = (0..N).map(|_| v4(&mut rng)).collect();
        let a3: Vec<Float3> = ps.iter().map(|p| Float3::new(p.x, p.y, p.z)).collect();
        let b3: Vec<Float3> = qs.iter().map(|q| Float3::new(q.w, q.x, q.y)).collect();
        let is: Vec<Int4> = (0..N)
            .map(|_| {
                let c = any_i32s(&mut rng, 4);
                Int4::new(c[0], c[1], c[2], c[3])
            })
            .collect();
        let poison = Float4::splat(f32::from_bits(POISON_U32));
        let mut vecs = vec![[poison; 12]; N];
        let mut scalars = vec![[f32::from_bits(POISON_U32); 3]; N];
        let mut crosses = vec![Float3::splat(f32::from_bits(POISON_U32)); N];
        let mut ints = vec![[Int4::splat(POISON_I32); 3]; N];
        {
            let (p, q) = (
                ArrayView::from_slice(&ps).unwrap(),
                ArrayView::from_slice(&qs).unwrap(),
            );
            let (a, b) = (
                ArrayView::from_slice(&a3).unwrap(),
                ArrayView::from_slice(&b3).unwrap(),
            );
            let iv = ArrayView::from_slice(&is).unwrap();
            let ov = ArrayView::from_slice_mut(&mut vecs).unwrap();
            let os = ArrayView::from_slice_mut(&mut scalars).unwrap();
            let oc = ArrayView::from_slice_mut(&mut crosses).unwrap();
            let oi = ArrayView::from_slice_mut(&mut ints).unwrap();
            parallel_for_each!(&view, p.extent(), |i: Index<1>| {
                let (x, y) = (p[i], q[i]);
                let lo = x.min(y);
                ov[i] = [
                    x.abs().sqrt(),
                    x.floor(),
                    x.ceil(),
                    lo,
                    x.max(y),
                    y.clamp(lo, lo + 1.0),
                    x.normalize(),
                    2.0 * x + y * 0.5,
                    x.mul_add(y, x),
                    (x.abs() + 1.0).recip(),
                    (x * 0.25).exp() + (x.abs() + 1.0).ln(),
                    x.cos(),
                ];
                os[i] = [x.dot(y), x.length(), x.distance(y)];
                oc[i] = a[i].cross(b[i]);
                let j = iv[i];
                oi[i] = [j.abs(), j.min(Int4::splat(7)), j.max(-j)];
            })
            .unwrap();
        }
        let what = acc.description();
        let comps = |v: Float4| v.to_array();
        for n in 0..N {
            let (x, y) = (ps[n], qs[n]);
            let each = |f: &dyn Fn(f32, f32) -> f32| {
                Float4::new(f(x.x, y.x), f(x.y, y.y), f(x.z, y.z), f(x.w, y.w))
            };
            let lo = each(&|a, b| a.min(b));
            let want = [
                each(&|a, _| a.abs().sqrt()),
                each(&|a, _| a.floor()),
                each(&|a, _| a.ceil()),
                lo,
                each(&|a, b| a.max(b)),
                Float4::new(
                    y.x.clamp(lo.x, lo.x + 1.0),
                    y.y.clamp(lo.y, lo.y + 1.0),
                    y.z.clamp(lo.z, lo.z + 1.0),
                    y.w.clamp(lo.w, lo.w + 1.0),
                ),
                x.normalize(),
                2.0 * x + y * 0.5,
                each(&|a, b| a * b + a),
                each(&|a, _| 1.0 / (a.abs() + 1.0)),
                each(&|a, _| (a * 0.25).exp() + (a.abs() + 1.0).ln()),
                each(&|a, _| a.cos()),
            ];
            for (m, (&got, &want)) in vecs[n].iter().zip(&want).enumerate() {
                for (g, w) in comps(got).into_iter().zip(comps(want)) {
                    assert!(
                        close32(g, w, F32_TRANSCENDENTAL, 1e-5),
                        "{what}: vector result {m} of {x}, {y}: {got} vs {want}"
                    );
                }
            }
            let want_s = [x.dot(y), x.length(), x.distance(y)];
            for (m, (&g, &w)) in scalars[n].iter().zip(&want_s).enumerate() {
                assert!(
                    close32(g, w, F32_BASIC * 10.0, 1e-5),
                    "{what}: scalar result {m} of {x}, {y}: {g} vs {w}"
                );
            }
            let want_c = a3[n].cross(b3[n]);
            for (g, w) in crosses[n].to_array().into_iter().zip(want_c.to_array()) {
                assert!(close32(g, w, F32_BASIC * 10.0, 1e-4), "{what}: cross {n}");
            }
            let j = is[n];
            let want_i = [
                Int4::new(
                    j.x.wrapping_abs(),
                    j.y.wrapping_abs(),
                    j.z.wrapping_abs(),
                    j.w.wrapping_abs(),
                ),
                Int4::new(j.x.min(7), j.y.min(7), j.z.min(7), j.w.min(7)),
                Int4::new(
                    j.x.max(j.x.wrapping_neg()),
                    j.y.max(j.y.wrapping_neg()),
                    j.z.max(j.z.wrapping_neg()),
                    j.w.max(j.w.wrapping_neg()),
                ),
            ];
            assert_eq!(ints[n], want_i, "{what}: int vectors of {j}");
        }
    }
}

/// Short vectors captured by value, next to scalars (each vector at WGSL's
/// alignment in the launch parameters), used in vector arithmetic and
/// component by component; fresh random values each launch.
#[amp_test]
fn short_vectors_are_captured_by_value() {
    const N: usize = 256;
    for (k, acc) in amp_tests::accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(9995 + k as u64);
        let xs = f32s(&mut rng, N, -4.0, 4.0);
        for round in 0..3 {
            let c = f32s(&mut rng, 10, -8.0, 8.0);
            let scale = c[0];
            let v3 = Float3::new(c[1], c[2], c[3]);
            let shift = rng.range(-100, 100);
            let v2 = Float2::new(c[4], c[5]);
            let v4 = Float4::new(c[6], c[7], c[8], c[9]);
            let iv = Int2::new(rng.range(-1000, 1000), rng.range(-1000, 1000));
            let mut out = vec![Float4::splat(f32::from_bits(POISON_U32)); N];
            {
                let x = ArrayView::from_slice(&xs).unwrap();
                let o = ArrayView::from_slice_mut(&mut out).unwrap();
                parallel_for_each!(&view, x.extent(), |i: Index<1>| {
                    let t = x[i] * scale;
                    let a = v3 * t + v3;
                    let b = v2 * t;
                    let n = iv * shift;
                    o[i] = v4 * t + Float4::new(a.x + a.y, a.z, b.x + b.y, (n.x - n.y) as f32);
                })
                .unwrap();
            }
            for (j, got) in out.iter().enumerate() {
                let t = xs[j] * scale;
                let a = v3 * t + v3;
                let b = v2 * t;
                let n = iv * shift;
                let want = v4 * t + Float4::new(a.x + a.y, a.z, b.x + b.y, (n.x - n.y) as f32);
                for (g, w) in got.to_array().into_iter().zip(want.to_array()) {
                    assert!(
                        close32(g, w, F32_BASIC * 10.0, 1e-4),
                        "{}: round {round}, element {j}: {got} vs {want}",
                        acc.description()
                    );
                }
            }
        }
    }
}

/// `erf` in `f64` from its Taylor series (|x| < 3) or, for `erfc`, Lentz's
/// continued fraction (|x| >= 3): an independent reference for
/// `precise_math`.
fn erf_reference(x: f64) -> (f64, f64) {
    let z = x.abs();
    let (erf, erfc) = if z < 3.0 {
        let (mut term, mut sum, mut n) = (z, z, 0.0f64);
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -z * z / n;
            sum += term / (2.0 * n + 1.0);
        }
        let e = sum * 2.0 / std::f64::consts::PI.sqrt();
        (e, 1.0 - e)
    } else {
        // erfc(z) = e^(-z^2)/sqrt(pi) * 1/(z + 1/2 /(z + 1/(z + 3/2 /(z + ...))))
        let mut f = z;
        for k in (1..60).rev() {
            f = z + (k as f64 / 2.0) / f;
        }
        let c = (-z * z).exp() / std::f64::consts::PI.sqrt() / f;
        (1.0 - c, c)
    };
    if x < 0.0 {
        (-erf, 2.0 - erfc)
    } else {
        (erf, erfc)
    }
}

/// `ln |Gamma(x)|` and the sign of `Gamma(x)` in `f64` (recurrence into
/// [10, 11), then Stirling's series; reflection below 0.5): an independent
/// reference for `precise_math`.
fn lgamma_reference(x: f64) -> (f64, f64) {
    use std::f64::consts::PI;
    // Gamma(+inf) = +inf (Stirling's terms would give `inf - inf`).
    if x == f64::INFINITY {
        return (f64::INFINITY, 1.0);
    }
    if x < 0.5 {
        let (l, s) = lgamma_reference(1.0 - x);
        let sin = (PI * x).sin();
        return ((PI / sin.abs()).ln() - l, s * sin.signum());
    }
    let (mut y, mut shift) = (x, 0.0f64);
    while y < 10.0 {
        shift += y.ln();
        y += 1.0;
    }
    let y2 = y * y;
    let series = 1.0 / (12.0 * y) - 1.0 / (360.0 * y * y2) + 1.0 / (1260.0 * y * y2 * y2)
        - 1.0 / (1680.0 * y * y2 * y2 * y2);
    (
        (y - 0.5) * y.ln() - y + 0.5 * (2.0 * PI).ln() + series - shift,
        1.0,
    )
}

/// `amp_core::precise_math` (`erf`, `erfc`, `tgamma`, `lgamma`, `rsqrt`,
/// `exp10`, `fdim`) in kernels against independent `f64` references (and
/// against the same functions called on the host), with special values:
/// zeros, infinities, NaN, negative integers (poles), large arguments.
#[amp_test]
fn precise_math_matches_f64_references() {
    use amp_core::precise_math::{cospi, erf, erfc, exp10, fdim, lgamma, rsqrt, sinpi, tgamma};
    const N: usize = 1500;
    for (k, acc) in amp_tests::accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(9998 + k as u64);
        let mut xs: Vec<f32> = (0..N)
            .map(|_| rng.range(-60_000, 60_000) as f32 / 2000.0)
            .collect();
        let specials = [
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -3.0,
            1.0,
            2.0,
            0.5,
            1e-6,
            -1e-6,
            9.0,
            -9.0,
            34.5,
            -4.5,
        ];
        for (j, v) in specials.into_iter().enumerate() {
            xs[j] = v;
        }
        let mut out = vec![[f32::from_bits(POISON_U32); 9]; N];
        {
            let x = ArrayView::from_slice(&xs).unwrap();
            let o = ArrayView::from_slice_mut(&mut out).unwrap();
            parallel_for_each!(&view, o.extent(), |i: Index<1>| {
                let v = x[i];
                o[i] = [
                    erf(v),
                    erfc(v),
                    tgamma(v),
                    lgamma(v),
                    rsqrt(v.abs()),
                    exp10(v * 0.5),
                    fdim(v, 1.0),
                    sinpi(v),
                    cospi(v),
                ];
            })
            .unwrap();
        }
        let what = acc.description();
        for (j, &v) in xs.iter().enumerate() {
            let x = f64::from(v);
            let (e, c) = erf_reference(x);
            let (lg, sign) = lgamma_reference(x);
            let pole = x <= 0.0 && x == x.floor();
            // sin(pi x), cos(pi x) with x reduced exactly in f64.
            let (n, r) = (x.round(), x - x.round());
            let parity = if n.rem_euclid(2.0) == 0.0 { 1.0 } else { -1.0 };
            let finite = |f: f64| if v.is_finite() { f } else { f64::NAN };
            let want: [f64; 9] = [
                if v.is_nan() { f64::NAN } else { e },
                if v.is_nan() { f64::NAN } else { c },
                if pole {
                    if x == 0.0 { 1.0 / x } else { f64::NAN }
                } else if x == f64::NEG_INFINITY || v.is_nan() {
                    f64::NAN
                } else {
                    sign * lg.exp()
                },
                if pole {
                    f64::INFINITY
                } else if v.is_nan() {
                    f64::NAN
                } else {
                    lg
                },
                1.0 / x.abs().sqrt(),
                10f64.powf(x * 0.5),
                if v.is_nan() {
                    f64::NAN
                } else {
                    (x - 1.0).max(0.0)
                },
                finite(parity * (std::f64::consts::PI * r).sin()),
                finite(parity * (std::f64::consts::PI * r).cos()),
            ];
            // Relative tolerances (lgamma also absolute, near its zeros);
            // erfc's error grows with z^2 through exp (GPU exp: 3 + 2|x| ulp).
            let tol: [(f64, f64); 9] = [
                (2e-6, 1e-7),
                (1e-6 + 2e-6 * x * x, 1e-38),
                (1e-4, 1e-38),
                (1e-5, 1e-5),
                (1e-6, 0.0),
                (2e-6 * x.abs().max(1.0), 0.0),
                (1e-7, 0.0),
                (1e-5, 1e-6),
                (1e-5, 1e-6),
            ];
            for (m, (&got, &want)) in out[j].iter().zip(&want).enumerate() {
                let got = f64::from(got);
                let (rel, abs) = tol[m];
                // Beyond f32's range, the f32 result is ±inf or 0.
                let want32 = want as f32;
                let ok = (got.is_nan() && want.is_nan())
                    || (want32.is_infinite() && got == f64::from(want32))
                    || (want.abs() < 1e-37 && got.abs() < 1e-37)
                    || (got - want).abs() <= abs.max(rel * want.abs());
                assert!(ok, "{what}: precise_math {m} of {v}: {got} vs {want}");
            }
            // The same functions on the host (the same code, compiled as
            // ordinary Rust; the kernel's native form may round an
            // intermediate differently).
            if acc.is_emulated() {
                for (m, host) in [(0, erf(v)), (2, tgamma(v)), (3, lgamma(v))] {
                    let got = out[j][m];
                    assert!(
                        (got.is_nan() && host.is_nan())
                            || got == host
                            || (got - host).abs() <= 1e-4 * host.abs() + 1e-5,
                        "host {m} of {v}: {got} vs {host}"
                    );
                }
            }
        }
    }
}

/// Short-vector swizzles (C++ AMP's `v.zyx`, `v.xy`): `v.zyx()`, `v.wx()`,
/// `v.yxwz()` of `Float4`/`Int3`/`UInt2` values in kernels, compared with
/// the host's methods of the same names on random inputs; bit-exact (a
/// swizzle moves components).
#[amp_test]
fn swizzles_match_the_host() {
    const N: usize = 300;
    let mut rng = Rng::new(0x5_1122);
    for (view, what) in all_views() {
        let f: Vec<Float4> = (0..N)
            .map(|_| {
                Float4::new(
                    rng.range(-1000, 1000) as f32 / 7.0,
                    rng.range(-1000, 1000) as f32 / 3.0,
                    rng.range(-1000, 1000) as f32,
                    rng.range(-1000, 1000) as f32 / 9.0,
                )
            })
            .collect();
        let i: Vec<Int3> = (0..N)
            .map(|_| Int3::new(rng.range(-99, 99), rng.range(-99, 99), rng.range(-99, 99)))
            .collect();
        let poison = Float4::splat(f32::from_bits(POISON_U32));
        let mut a = vec![poison; N];
        let mut b = vec![Float2::splat(f32::NAN); N];
        let mut c = vec![Int3::splat(POISON_I32); N];
        let mut d = vec![UInt2::splat(POISON_U32); N];
        {
            let fv = ArrayView::new([N as i32], &f).unwrap();
            let iv = ArrayView::new([N as i32], &i).unwrap();
            let av = ArrayView::new_mut([N as i32], &mut a).unwrap();
            let bv = ArrayView::new_mut([N as i32], &mut b).unwrap();
            let cv = ArrayView::new_mut([N as i32], &mut c).unwrap();
            let dv = ArrayView::new_mut([N as i32], &mut d).unwrap();
            parallel_for_each!(&view, av.extent(), |k: Index<1>| {
                let v = fv[k];
                av[k] = v.yxwz();
                bv[k] = v.wx() + v.zyx().xy();
                let w = iv[k];
                cv[k] = w.zxy() * 2;
                let u = UInt2::new(w.x as u32, w.z as u32);
                dv[k] = u.yx();
            })
            .unwrap();
        }
        for k in 0..N {
            let (v, w) = (f[k], i[k]);
            assert_eq!(a[k].to_array(), v.yxwz().to_array(), "{what}: {k}");
            assert_eq!(
                b[k].to_array(),
                (v.wx() + v.zyx().xy()).to_array(),
                "{what}: {k}"
            );
            assert_eq!(c[k], w.zxy() * 2, "{what}: {k}");
            assert_eq!(d[k], UInt2::new(w.z as u32, w.x as u32), "{what}: {k}");
        }
    }
}
