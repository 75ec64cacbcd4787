//! Kernel arithmetic (C++ AMP spec ch. 7 kernels, with Rust semantics):
//! element-wise kernels per element type, wrapping integer arithmetic and
//! its edge cases (`i32::MIN / -1`, `% 0`, `/ 0`, negative `%`, shifts by 32
//! or more), casts between every pair of kernel scalars (saturating
//! float-to-int, NaN to 0), captured scalars of each type, inlined consts
//! and literal type inference.
//!
//! Every kernel runs on every accelerator (each wgpu adapter, through WGSL,
//! and the CPU accelerator, through the kernel's native form) and is checked
//! against the same computation in plain Rust; outputs are poisoned first so
//! that an element the kernel skipped fails the comparison.

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_tests::Rng;
use amp_tests::amp_test;

fn wdiv(x: i32, y: i32) -> i32 {
    if y == 0 { x } else { x.wrapping_div(y) }
}

fn wrem(x: i32, y: i32) -> i32 {
    if y == 0 { 0 } else { x.wrapping_rem(y) }
}

/// `c = a + b` on `f32`: exact on every accelerator (IEEE addition).
#[amp_test]
fn add_f32() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(1000 + k as u64);
        let n = 1000;
        let a = f32s(&mut rng, n, -1e3, 1e3);
        let b = f32s(&mut rng, n, -1e3, 1e3);
        let mut c = vec![f32::NAN; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let cv = ArrayView::new_mut([n as i32], &mut c).unwrap();
            cv.discard_data();
            parallel_for_each!(view, cv.extent(), |idx: Index<1>| {
                cv[idx] = av[idx] + bv[idx];
            })
            .unwrap();
            cv.synchronize().unwrap();
        }
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert_bits32(&c, &want, &what);
    }
}

/// `y = alpha * x + y` in place, with `alpha` a captured `f32`.
#[amp_test]
fn saxpy_f32() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(1100 + k as u64);
        let n = 4099;
        let x = f32s(&mut rng, n, -10.0, 10.0);
        let y0 = f32s(&mut rng, n, -10.0, 10.0);
        let alpha = f32s(&mut rng, 1, 0.5, 4.0)[0];
        let mut y = y0.clone();
        {
            let xv = ArrayView::new([n as i32], &x).unwrap();
            let yv = ArrayView::new_mut([n as i32], &mut y).unwrap();
            parallel_for_each!(view, yv.extent(), |i: Index<1>| {
                yv[i] = alpha * xv[i] + yv[i];
            })
            .unwrap();
        }
        let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| alpha * x + y).collect();
        assert_close32(&y, &want, F32_BASIC, 1e-5, &what);
    }
}

/// `i32` `+ - *` wrap on overflow; bit operators and unary `-`/`!`.
#[amp_test]
fn elementwise_i32_wrapping() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(1200 + k as u64);
        let n = 777;
        let mut a = any_i32s(&mut rng, n);
        let mut b = any_i32s(&mut rng, n);
        // Overflowing pairs that must wrap.
        let edges = [
            (i32::MAX, 1),
            (i32::MIN, -1),
            (i32::MAX, i32::MAX),
            (i32::MIN, i32::MIN),
            (i32::MIN, i32::MAX),
            (65536, 65536),
            (-1, i32::MIN),
            (0, 0),
        ];
        for (j, (x, y)) in edges.iter().enumerate() {
            a[j] = *x;
            b[j] = *y;
        }
        let mut sum = vec![POISON_I32; n];
        let mut diff = vec![POISON_I32; n];
        let mut prod = vec![POISON_I32; n];
        let mut bits = vec![POISON_I32; n];
        let mut neg = vec![POISON_I32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let s = ArrayView::new_mut([n as i32], &mut sum).unwrap();
            let d = ArrayView::new_mut([n as i32], &mut diff).unwrap();
            let p = ArrayView::new_mut([n as i32], &mut prod).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut bits).unwrap();
            let m = ArrayView::new_mut([n as i32], &mut neg).unwrap();
            s.discard_data();
            parallel_for_each!(view, s.extent(), |idx: Index<1>| {
                let x = av[idx];
                let y = bv[idx];
                s[idx] = x + y;
                d[idx] = x - y;
                p[idx] = x * y;
                o[idx] = ((x & y) | (x ^ 0x0F0F_0F0F)) ^ !y;
                m[idx] = -x;
            })
            .unwrap();
        }
        let f =
            |g: fn(i32, i32) -> i32| a.iter().zip(&b).map(|(x, y)| g(*x, *y)).collect::<Vec<_>>();
        assert_same(&sum, &f(i32::wrapping_add), &format!("{what} a + b"));
        assert_same(&diff, &f(i32::wrapping_sub), &format!("{what} a - b"));
        assert_same(&prod, &f(i32::wrapping_mul), &format!("{what} a * b"));
        assert_same(
            &bits,
            &f(|x, y| ((x & y) | (x ^ 0x0F0F_0F0F)) ^ !y),
            &format!("{what} bits"),
        );
        assert_same(&neg, &f(|x, _| x.wrapping_neg()), &format!("{what} -a"));
    }
}

/// `u32` `+ - *` wrap; bit operators; comparisons as `u32` (unsigned order).
#[amp_test]
fn elementwise_u32_wrapping() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(1300 + k as u64);
        let n = 1500;
        let mut a = any_u32s(&mut rng, n);
        let mut b = any_u32s(&mut rng, n);
        for (j, (x, y)) in [
            (u32::MAX, 1),
            (0, 1),
            (u32::MAX, u32::MAX),
            (1 << 31, 2),
            (0, 0),
        ]
        .iter()
        .enumerate()
        {
            a[j] = *x;
            b[j] = *y;
        }
        let mut out = vec![POISON_U32; n * 5];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let o = ArrayView::new_mut([5, n as i32], &mut out).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let y = bv[i];
                o[0][i] = x + y;
                o[1][i] = x - y;
                o[2][i] = x * y;
                o[[3, i]] = (x | y) & !(x ^ y);
                o[4][i] = if x < y { 1 } else { 0 } + if x >= y { 10 } else { 0 };
            })
            .unwrap();
        }
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [
                x.wrapping_add(y),
                x.wrapping_sub(y),
                x.wrapping_mul(y),
                (x | y) & !(x ^ y),
                u32::from(x < y) + if x >= y { 10 } else { 0 },
            ];
            for (r, w) in want.iter().enumerate() {
                assert_eq!(out[r * n + i], *w, "{what} row {r} element {i} ({x}, {y})");
            }
        }
    }
}

/// `f64` arithmetic on accelerators with double precision; elsewhere the
/// launch fails with `UnsupportedFeature`.
#[amp_test]
fn elementwise_f64() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(1400 + k as u64);
        let n = 1000;
        let a = f64s(&mut rng, n, -1e6, 1e6);
        let b = f64s(&mut rng, n, 0.5, 1e3);
        let mut sum = vec![f64::NAN; n];
        let mut quot = vec![f64::NAN; n];
        let mut fused = vec![f64::NAN; n];
        let result = {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let s = ArrayView::new_mut([n as i32], &mut sum).unwrap();
            let q = ArrayView::new_mut([n as i32], &mut quot).unwrap();
            let f = ArrayView::new_mut([n as i32], &mut fused).unwrap();
            q.discard_data();
            parallel_for_each!(view, s.extent(), |idx: Index<1>| {
                let x = av[idx];
                let y = bv[idx];
                s[idx] = x + y * 2.0;
                q[idx] = x / y - y;
                f[idx] = x * x - y * 1e-3;
            })
        };
        if !view.accelerator().supports_double_precision() {
            assert!(
                matches!(result, Err(Error::UnsupportedFeature { .. })),
                "{what}: {result:?}"
            );
            assert!(sum.iter().all(|v| v.is_nan()), "{what}: data changed");
            continue;
        }
        result.unwrap();
        let f =
            |g: fn(f64, f64) -> f64| a.iter().zip(&b).map(|(x, y)| g(*x, *y)).collect::<Vec<_>>();
        assert_close64(
            &sum,
            &f(|x, y| x + y * 2.0),
            1e-15,
            0.0,
            &format!("{what} x + 2y"),
        );
        assert_close64(
            &quot,
            &f(|x, y| x / y - y),
            1e-14,
            1e-9,
            &format!("{what} x / y - y"),
        );
        assert_close64(
            &fused,
            &f(|x, y| x * x - y * 1e-3),
            1e-14,
            0.0,
            &format!("{what} x*x - y/1000"),
        );
    }
}

/// `/` and `%` on `i32`: truncating like Rust, `MIN / -1 == MIN`,
/// `MIN % -1 == 0`, `x / 0 == x`, `x % 0 == 0`.
#[amp_test]
fn i32_division_edge_cases() {
    let edges = [
        (i32::MIN, -1),
        (i32::MIN, 1),
        (i32::MIN, 0),
        (i32::MIN, 2),
        (i32::MIN, i32::MIN),
        (i32::MAX, -1),
        (i32::MAX, i32::MIN),
        (-1, i32::MIN),
        (7, 0),
        (-7, 0),
        (0, 0),
        (7, 2),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (-1, 3),
        (5, i32::MAX),
    ];
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(1500 + k as u64);
        let n = 600;
        let mut a = any_i32s(&mut rng, n);
        let mut b = i32s(&mut rng, n, -100, 100);
        for j in 0..100 {
            b[100 + j] = (rng.next_u64() >> 32) as i32;
        }
        for (j, (x, y)) in edges.iter().enumerate() {
            a[j] = *x;
            b[j] = *y;
        }
        let mut q = vec![POISON_I32; n];
        let mut r = vec![POISON_I32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let qv = ArrayView::new_mut([n as i32], &mut q).unwrap();
            let rv = ArrayView::new_mut([n as i32], &mut r).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                qv[idx] = av[idx] / bv[idx];
                rv[idx] = av[idx] % bv[idx];
            })
            .unwrap();
        }
        for i in 0..n {
            assert_eq!(q[i], wdiv(a[i], b[i]), "{what} {} / {}", a[i], b[i]);
            assert_eq!(r[i], wrem(a[i], b[i]), "{what} {} % {}", a[i], b[i]);
        }
    }
}

/// The same edge cases with constant operands: the WGSL writer must not
/// turn them into constant expressions that the shader compiler rejects.
#[amp_test]
fn integer_edge_cases_with_constant_operands() {
    const ZERO: i32 = 0;
    const MINUS_ONE: i32 = -1;
    const SEVEN: u32 = 7;
    const UZERO: u32 = 0;
    for (view, what) in all_views() {
        let mut out = vec![POISON_I32; 12];
        let mut uout = vec![POISON_U32; 6];
        {
            let o = ArrayView::new_mut([12], &mut out).unwrap();
            let u = ArrayView::new_mut([6], &mut uout).unwrap();
            parallel_for_each!(view, Extent::new([1]), |_idx: Index<1>| {
                o[0] = i32::MIN / MINUS_ONE;
                o[1] = i32::MIN % MINUS_ONE;
                o[2] = 7 / ZERO;
                o[3] = -7 % ZERO;
                o[4] = i32::MAX + 1;
                o[5] = i32::MIN - 1;
                o[6] = i32::MAX * 2;
                o[7] = 65536 * 65536;
                o[8] = -i32::MIN;
                o[9] = 1 << 31;
                o[10] = 0x4000_0000 << 2;
                o[11] = -7 / 2 + -7 % 2;
                u[0] = SEVEN / UZERO;
                u[1] = SEVEN % UZERO;
                u[2] = u32::MAX + 1;
                u[3] = 0 - SEVEN;
                u[4] = 4_000_000_000 * 3;
                u[5] = SEVEN << 33;
            })
            .unwrap();
        }
        let want = [
            i32::MIN,
            0,
            7,
            0,
            i32::MIN,
            i32::MAX,
            -2,
            0,
            i32::MIN,
            i32::MIN,
            0,
            -4,
        ];
        assert_same(&out, &want, &format!("{what} i32"));
        let uwant = [
            7,
            0,
            0,
            7u32.wrapping_neg(),
            4_000_000_000u32.wrapping_mul(3),
            14,
        ];
        assert_same(&uout, &uwant, &format!("{what} u32"));
    }
}

/// A division whose dividend assigns the local its divisor reads: Rust
/// evaluates the dividend first, for `u32` and `i32` (the differential
/// fuzzer's seed 20261201, kernel 185, found GPUs reading the divisor
/// first for `u32`).
#[amp_test]
fn a_dividend_that_assigns_what_its_divisor_reads() {
    for (k, (view, what)) in views(QueuingMode::Automatic).into_iter().enumerate() {
        let mut rng = Rng::new(1650 + k as u64);
        let n = 517;
        let a = any_u32s(&mut rng, n);
        let b: Vec<u32> = (0..n).map(|_| rng.range(0, 50) as u32).collect();
        let mut q = vec![POISON_U32; n];
        let mut s = vec![POISON_U32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let qv = ArrayView::new_mut([n as i32], &mut q).unwrap();
            let sv = ArrayView::new_mut([n as i32], &mut s).unwrap();
            qv.discard_data();
            sv.discard_data();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let mut d = bv[idx];
                qv[idx] = {
                    d = d / 2;
                    av[idx]
                } / (d + 1);
                let mut e = bv[idx] as i32;
                sv[idx] = ({
                    e -= 7;
                    av[idx] as i32
                } / e) as u32;
            })
            .unwrap();
        }
        for i in 0..n {
            let d = b[i] / 2;
            let wq = a[i] / (d + 1);
            let e = b[i] as i32 - 7;
            let ws = if e == 0 {
                a[i] as i32
            } else {
                (a[i] as i32).wrapping_div(e)
            } as u32;
            assert_eq!((q[i], s[i]), (wq, ws), "{what}: {} and {}", a[i], b[i]);
        }
    }
}

/// `/` and `%` on `u32`, with zero divisors.
#[amp_test]
fn u32_division() {
    for (k, (view, what)) in views(QueuingMode::Automatic).into_iter().enumerate() {
        let mut rng = Rng::new(1600 + k as u64);
        let n = 513;
        let a = any_u32s(&mut rng, n);
        let mut b: Vec<u32> = (0..n)
            .map(|i| {
                if i % 7 == 0 {
                    0
                } else {
                    rng.range(1, 1000) as u32
                }
            })
            .collect();
        b[1] = u32::MAX;
        b[2] = 1 << 31;
        let mut q = vec![POISON_U32; n];
        let mut r = vec![POISON_U32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let qv = ArrayView::new_mut([n as i32], &mut q).unwrap();
            let rv = ArrayView::new_mut([n as i32], &mut r).unwrap();
            qv.discard_data();
            rv.discard_data();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let x = av[idx];
                let mut y = bv[idx];
                qv[idx] = x / y;
                y %= 1 << 20;
                rv[idx] = x % y;
            })
            .unwrap();
        }
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let wq = x.checked_div(y).unwrap_or(x);
            let y2 = y % (1 << 20);
            let wr = x.checked_rem(y2).unwrap_or(0);
            assert_eq!((q[i], r[i]), (wq, wr), "{what} {x} / {y}, {x} % {y2}");
        }
    }
}

/// Shifts take the amount modulo 32 (as `wrapping_shl`/`wrapping_shr`);
/// `>>` is arithmetic on `i32` and logical on `u32`; the amount may be
/// `i32` or `u32`; compound `<<=`/`>>=`.
#[amp_test]
fn shifts() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(1700 + k as u64);
        let n = 400;
        let a = any_i32s(&mut rng, n);
        let s: Vec<u32> = (0..n)
            .map(|i| {
                if i < 100 {
                    i as u32
                } else {
                    rng.range(0, 1000) as u32
                }
            })
            .collect();
        let mut out = vec![POISON_I32; n * 3];
        let mut uout = vec![POISON_U32; n * 3];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let sv = ArrayView::new([n as i32], &s).unwrap();
            let o = ArrayView::new_mut([3, n as i32], &mut out).unwrap();
            let u = ArrayView::new_mut([3, n as i32], &mut uout).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let amount = sv[idx];
                let signed_amount = amount as i32;
                o[[0, i]] = x << amount;
                o[[1, i]] = x >> signed_amount;
                let mut y = x;
                y <<= 3;
                y >>= amount;
                o[[2, i]] = y;
                let ux = x as u32;
                u[[0, i]] = ux << signed_amount;
                u[[1, i]] = ux >> amount;
                let mut z = ux;
                z >>= 35;
                z <<= signed_amount;
                u[[2, i]] = z;
            })
            .unwrap();
        }
        for i in 0..n {
            let (x, sh) = (a[i], s[i]);
            let ux = x as u32;
            let want = [
                x.wrapping_shl(sh),
                x.wrapping_shr(sh),
                x.wrapping_shl(3).wrapping_shr(sh),
            ];
            let uwant = [
                ux.wrapping_shl(sh),
                ux.wrapping_shr(sh),
                ux.wrapping_shr(35).wrapping_shl(sh),
            ];
            for r in 0..3 {
                assert_eq!(out[r * n + i], want[r], "{what} i32 row {r}: {x} by {sh}");
                assert_eq!(
                    uout[r * n + i],
                    uwant[r],
                    "{what} u32 row {r}: {ux} by {sh}"
                );
            }
        }
    }
}

/// Casts from `f32` to every integer type saturate like Rust (`NaN -> 0`,
/// negative to `u32` gives 0, huge gives `MAX`), and truncate toward zero.
#[amp_test]
fn casts_from_f32() {
    let edges = [
        0.0f32,
        -0.0,
        0.99,
        -0.99,
        1.5,
        -1.5,
        2.9,
        -2.9,
        -1.0,
        1e10,
        -1e10,
        2_147_483_520.0,
        2_147_483_648.0,
        -2_147_483_648.0,
        -2_147_483_904.0,
        4_294_967_040.0,
        4_294_967_296.0,
        16_777_217.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
    ];
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(1800 + k as u64);
        let n = 300;
        let mut a = f32s(&mut rng, n, -5e9, 5e9);
        for j in 0..100 {
            a[100 + j] = f32s(&mut rng, 1, -300.0, 300.0)[0];
        }
        a[..edges.len()].copy_from_slice(&edges);
        let mut as_i = vec![POISON_I32; n];
        let mut as_u = vec![POISON_U32; n];
        let mut same = vec![f32::NAN; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let iv = ArrayView::new_mut([n as i32], &mut as_i).unwrap();
            let uv = ArrayView::new_mut([n as i32], &mut as_u).unwrap();
            let fv = ArrayView::new_mut([n as i32], &mut same).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let x = av[idx];
                iv[idx] = x as i32;
                uv[idx] = x as u32;
                fv[idx] = x as f32;
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            assert_eq!(as_i[i], x as i32, "{what} {x:e} as i32");
            assert_eq!(as_u[i], x as u32, "{what} {x:e} as u32");
        }
        assert_bits32(&same, &a, &format!("{what} f32 as f32"));
    }
}

/// Casts between `i32`, `u32`, `f32` and from `bool`: bit reinterpretation
/// between the integers, rounding to the nearest `f32`.
#[amp_test]
fn casts_between_integers_and_to_f32() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(1900 + k as u64);
        let n = 500;
        let mut a = any_i32s(&mut rng, n);
        for v in a.iter_mut().take(200) {
            *v = rng.range(-(1 << 24), 1 << 24);
        }
        a[0] = i32::MIN;
        a[1] = i32::MAX;
        a[2] = -1;
        a[3] = 0;
        let mut out_u = vec![POISON_U32; n];
        let mut out_i = vec![POISON_I32; n];
        let mut out_f = vec![f32::NAN; 2 * n];
        let mut out_b = vec![POISON_I32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let ou = ArrayView::new_mut([n as i32], &mut out_u).unwrap();
            let oi = ArrayView::new_mut([n as i32], &mut out_i).unwrap();
            let of = ArrayView::new_mut([2, n as i32], &mut out_f).unwrap();
            let ob = ArrayView::new_mut([n as i32], &mut out_b).unwrap();
            ob.discard_data();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let u = x as u32;
                ou[idx] = u;
                oi[idx] = (u ^ 0x8000_0000) as i32;
                of[0][i] = x as f32;
                of[1][i] = u as f32;
                let negative = x < 0;
                ob[idx] = negative as i32 + ((x > 1000) as u32 * 2) as i32;
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            assert_eq!(out_u[i], x as u32, "{what} {x} as u32");
            assert_eq!(out_i[i], ((x as u32) ^ 0x8000_0000) as i32, "{what} {x}");
            assert_eq!(out_f[i], x as f32, "{what} {x} as f32");
            assert_eq!(
                out_f[n + i],
                (x as u32) as f32,
                "{what} {} as f32",
                x as u32
            );
            assert_eq!(
                out_b[i],
                i32::from(x < 0) + 2 * i32::from(x > 1000),
                "{what} bool casts of {x}"
            );
        }
    }
}

/// Casts involving `f64` (on accelerators with double precision).
#[amp_test]
fn casts_with_f64() {
    let edges = [
        0.0f64,
        -0.0,
        0.5,
        -0.5,
        2_147_483_647.5,
        2_147_483_648.0,
        -2_147_483_648.9,
        -2_147_483_649.0,
        4_294_967_295.9,
        4_294_967_296.0,
        -1.0,
        1e300,
        -1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0 + f64::EPSILON,
        3.4e38,
        1e39,
    ];
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(2000 + k as u64);
        let n = 256;
        let mut a = f64s(&mut rng, n, -6e9, 6e9);
        a[..edges.len()].copy_from_slice(&edges);
        let ints = any_i32s(&mut rng, n);
        let mut oi = vec![POISON_I32; n];
        let mut ou = vec![POISON_U32; n];
        let mut of = vec![f32::NAN; n];
        let mut back = vec![f64::NAN; 3 * n];
        let result = {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let iv = ArrayView::new([n as i32], &ints).unwrap();
            let oiv = ArrayView::new_mut([n as i32], &mut oi).unwrap();
            let ouv = ArrayView::new_mut([n as i32], &mut ou).unwrap();
            let ofv = ArrayView::new_mut([n as i32], &mut of).unwrap();
            let bv = ArrayView::new_mut([3, n as i32], &mut back).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                oiv[idx] = x as i32;
                ouv[idx] = x as u32;
                ofv[idx] = x as f32;
                bv[[0, i]] = iv[idx] as f64;
                bv[[1, i]] = (iv[idx] as u32) as f64;
                bv[[2, i]] = (x as f32) as f64;
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
        for i in 0..n {
            let x = a[i];
            assert_eq!(oi[i], x as i32, "{what} {x:e} as i32");
            assert_eq!(ou[i], x as u32, "{what} {x:e} as u32");
            let f = x as f32;
            assert!(
                of[i] == f || (f.is_nan() && of[i].is_nan()),
                "{what} {x:e} as f32: {}",
                of[i]
            );
            assert_eq!(back[i], f64::from(ints[i]), "{what} i32 as f64");
            assert_eq!(back[n + i], f64::from(ints[i] as u32), "{what} u32 as f64");
            let ff = f64::from(f);
            assert!(
                back[2 * n + i] == ff || ff.is_nan() && back[2 * n + i].is_nan(),
                "{what} f32 as f64"
            );
        }
    }
}

/// Captured scalars of every type reach the kernel by value.
#[amp_test]
fn captured_scalars() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(2100 + k as u64);
        let n = 300;
        let a = i32s(&mut rng, n, -1000, 1000);
        let offset: i32 = rng.range(-50, 50);
        let mask: u32 = (rng.next_u64() >> 32) as u32;
        let scale: f32 = f32s(&mut rng, 1, -3.0, 3.0)[0];
        let negate = rng.next_u64().is_multiple_of(2);
        let keep = !negate;
        let mut oi = vec![POISON_I32; n];
        let mut ou = vec![POISON_U32; n];
        let mut of = vec![f32::NAN; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let oiv = ArrayView::new_mut([n as i32], &mut oi).unwrap();
            let ouv = ArrayView::new_mut([n as i32], &mut ou).unwrap();
            let ofv = ArrayView::new_mut([n as i32], &mut of).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let x = av[idx] + offset;
                oiv[idx] = if negate { -x } else { x };
                ouv[idx] = (x as u32) & mask;
                ofv[idx] = if keep && !negate {
                    x as f32 * scale
                } else {
                    scale - x as f32
                };
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i] + offset;
            assert_eq!(oi[i], if negate { -x } else { x }, "{what} i32/bool");
            assert_eq!(ou[i], (x as u32) & mask, "{what} u32");
            let wf = if keep && !negate {
                x as f32 * scale
            } else {
                scale - x as f32
            };
            assert!(
                close32(of[i], wf, F32_BASIC, 0.0),
                "{what} f32: {} vs {wf}",
                of[i]
            );
        }
    }
}

/// A captured `f64` (double precision accelerators only).
#[amp_test]
fn captured_f64_scalar() {
    for (view, what) in all_views() {
        let d: f64 = 1.0 / 3.0;
        let mut out = vec![f64::NAN; 64];
        let result = {
            let o = ArrayView::new_mut([64], &mut out).unwrap();
            parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                o[idx] = d * (idx[0] as f64) + d;
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
        let want: Vec<f64> = (0..64).map(|i| d * f64::from(i) + d).collect();
        assert_close64(&out, &want, 1e-15, 0.0, &what);
    }
}

const SCALE: f32 = 0.25;
const BIAS: i32 = -7;
const MASK: u32 = 0xF0F0_F0F0;
const ENABLED: bool = true;
const NEG_SHIFT: f32 = -2.5;

/// Constants (items and paths such as `i32::MAX`, `f32::consts::PI`) are
/// inlined by value.
#[amp_test]
fn consts_inlined() {
    for (k, (view, what)) in default_views().into_iter().enumerate() {
        let mut rng = Rng::new(2200 + k as u64);
        let n = 200;
        let a = i32s(&mut rng, n, -10_000, 10_000);
        let mut out_i = vec![POISON_I32; n * 3];
        let mut out_u = vec![POISON_U32; n * 2];
        let mut out_f = vec![f32::NAN; n * 4];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let oi = ArrayView::new_mut([3, n as i32], &mut out_i).unwrap();
            let ou = ArrayView::new_mut([2, n as i32], &mut out_u).unwrap();
            let of = ArrayView::new_mut([4, n as i32], &mut out_f).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                oi[0][i] = if ENABLED { x + BIAS } else { x };
                oi[1][i] = x.min(i32::MAX - 5).max(i32::MIN + 5) ^ i32::MIN;
                oi[2][i] = if x < 0 { i32::MIN } else { i32::MAX };
                ou[0][i] = (x as u32) & MASK;
                ou[1][i] = u32::MAX - (x as u32);
                let fx = x as f32;
                of[0][i] = fx * SCALE - NEG_SHIFT;
                of[1][i] = fx * std::f32::consts::PI;
                of[2][i] = if fx * f32::EPSILON < 1.0 {
                    f32::MAX
                } else {
                    f32::MIN_POSITIVE
                };
                of[3][i] = -fx + NEG_SHIFT * std::f32::consts::E;
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            assert_eq!(out_i[i], x + BIAS, "{what}");
            assert_eq!(
                out_i[n + i],
                x.clamp(i32::MIN + 5, i32::MAX - 5) ^ i32::MIN,
                "{what}"
            );
            assert_eq!(
                out_i[2 * n + i],
                if x < 0 { i32::MIN } else { i32::MAX },
                "{what}"
            );
            assert_eq!(out_u[i], (x as u32) & MASK, "{what}");
            assert_eq!(out_u[n + i], u32::MAX - x as u32, "{what}");
            let fx = x as f32;
            let wf = [
                fx * SCALE - NEG_SHIFT,
                fx * std::f32::consts::PI,
                if fx * f32::EPSILON < 1.0 {
                    f32::MAX
                } else {
                    f32::MIN_POSITIVE
                },
                -fx + NEG_SHIFT * std::f32::consts::E,
            ];
            for (r, w) in wf.iter().enumerate() {
                let g = out_f[r * n + i];
                assert!(
                    close32(g, *w, F32_BASIC, 0.0),
                    "{what} f32 row {r} of {x}: {g} vs {w}"
                );
            }
        }
    }
}

/// Unsuffixed float literals used with `f32` data are `f32` (the kernel
/// runs on adapters without `f64`); an unconstrained `let x = 1.5;` is
/// `f64`, so it runs only where double precision exists.
#[amp_test]
fn literal_inference() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(2300 + k as u64);
        let n = 256;
        let a = f32s(&mut rng, n, -100.0, 100.0);
        let mut out = vec![f32::NAN; n];
        let mut ints = vec![POISON_I32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            let oi = ArrayView::new_mut([n as i32], &mut ints).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let x = av[idx];
                let mut y = x * 0.5 + 1.25;
                let z = 3.0;
                y = y * z - 1e-3;
                o[idx] = if y > 0.0 { y } else { -y };
                // Unconstrained integers are i32 and wrap.
                let big = 100_000;
                oi[idx] = big * big + idx[0];
            })
            .unwrap();
        }
        for i in 0..n {
            let y = (a[i] * 0.5 + 1.25) * 3.0 - 1e-3;
            assert!(
                close32(out[i], y.abs(), F32_BASIC, 1e-6),
                "{what}: {} vs {}",
                out[i],
                y.abs()
            );
            assert_eq!(
                ints[i],
                100_000i32.wrapping_mul(100_000) + i as i32,
                "{what}"
            );
        }

        // `let t = 0.1;` alone is f64: 0.1 * 3 - 0.3 is 5.55e-17 in f64
        // (2.98e-8 in f32).
        let mut out = vec![f32::NAN; 4];
        let result = {
            let o = ArrayView::new_mut([4], &mut out).unwrap();
            parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                let t = 0.1;
                let u = t * 3.0 - 0.3;
                o[idx] = (u * 1e20) as f32 + idx[0] as f32;
            })
        };
        if view.accelerator().supports_double_precision() {
            result.unwrap();
            let u = (0.1f64 * 3.0 - 0.3) * 1e20;
            for (i, v) in out.iter().enumerate() {
                assert!(
                    close32(*v, u as f32 + i as f32, 1e-6, 0.0),
                    "{what}: {v} vs {u}"
                );
            }
        } else {
            assert!(
                matches!(result, Err(Error::UnsupportedFeature { .. })),
                "{what}: {result:?}"
            );
            assert!(out.iter().all(|v| v.is_nan()), "{what}: data changed");
        }
    }
}

/// Compound assignments to container elements (`+=`, `-=`, `*=`, `/=`,
/// `%=`, `&=`, `|=`, `^=`) read and write the same element.
#[amp_test]
fn compound_assignment_on_elements() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(2400 + k as u64);
        let n = 333;
        let a = i32s(&mut rng, n, -1000, 1000);
        let b = i32s(&mut rng, n, -20, 20);
        let f = f32s(&mut rng, n, 1.0, 2.0);
        let mut acc = a.clone();
        let mut facc = f.clone();
        {
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let fv = ArrayView::new([n as i32], &f).unwrap();
            let c = ArrayView::new_mut([n as i32], &mut acc).unwrap();
            let fc = ArrayView::new_mut([n as i32], &mut facc).unwrap();
            parallel_for_each!(view, c.extent(), |idx: Index<1>| {
                let y = bv[idx];
                c[idx] += y;
                c[idx] *= 3;
                c[idx] -= y * y;
                c[idx] /= y;
                c[idx] %= 1000;
                c[idx] ^= 0x55;
                c[idx] |= 0x100;
                c[idx] &= !0x1;
                fc[idx] *= fv[idx];
                fc[idx] += 0.5;
                fc[idx] /= 2.0;
                fc[idx] -= fv[idx];
            })
            .unwrap();
        }
        for i in 0..n {
            let y = b[i];
            let mut c = a[i].wrapping_add(y);
            c = c.wrapping_mul(3);
            c = c.wrapping_sub(y * y);
            c = wdiv(c, y);
            c = wrem(c, 1000);
            c = ((c ^ 0x55) | 0x100) & !0x1;
            assert_eq!(acc[i], c, "{what} element {i}");
            let w = (f[i] * f[i] + 0.5) / 2.0 - f[i];
            assert!(
                close32(facc[i], w, F32_BASIC, 1e-6),
                "{what} f32 element {i}: {} vs {w}",
                facc[i]
            );
        }
    }
}

/// `Array` captures: the launch goes to the array's own view when the
/// macro names none.
#[amp_test]
fn arrays_launch_on_their_view() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(2500 + k as u64);
        let n = 1024;
        let a = any_u32s(&mut rng, n);
        let src = Array::from_slice([n as i32], &a, &view).unwrap();
        let dst = Array::<u32, 1>::new([n as i32], &view).unwrap();
        parallel_for_each!(dst.extent(), |idx: Index<1>| {
            let x = src[idx];
            dst[idx] = (x ^ (x >> 16)) * 0x045d_9f3b;
        })
        .unwrap();
        let got = dst.to_vec().unwrap();
        let want: Vec<u32> = a
            .iter()
            .map(|x| (x ^ (x >> 16)).wrapping_mul(0x045d_9f3b))
            .collect();
        assert_same(&got, &want, &what);
    }
}

const F_ZERO: f32 = 0.0;

/// Non-finite constants and constant operations whose result is not finite
/// (`f32::MAX * 2.0`, `1.0 / 0.0`) give Rust's values: WGSL has no literal
/// for them and rejects non-finite constant expressions.
#[amp_test]
fn non_finite_float_constants() {
    for (view, what) in all_views() {
        let mut out = vec![0.0f32; 8];
        {
            let o = ArrayView::new_mut([8], &mut out).unwrap();
            o.discard_data();
            parallel_for_each!(view, Extent::new([1]), |_idx: Index<1>| {
                o[0] = f32::INFINITY;
                o[1] = f32::NEG_INFINITY;
                o[2] = f32::NAN;
                o[3] = f32::MAX * 2.0;
                o[4] = 1.0 / F_ZERO;
                o[5] = -1.0 / F_ZERO;
                o[6] = f32::MIN - f32::MAX;
                o[7] = if f32::INFINITY > f32::MAX { 1.0 } else { 2.0 };
            })
            .unwrap();
        }
        let want = [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::INFINITY,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY,
            1.0,
        ];
        assert_bits32(&out[..2], &want[..2], &what);
        assert!(out[2].is_nan(), "{what}: NaN constant gave {}", out[2]);
        assert_bits32(&out[3..], &want[3..], &what);
    }
}
