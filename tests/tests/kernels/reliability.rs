//! Reliability of kernel translation (the adversarial-testing issue): a
//! kernel that compiles gives Rust's answer on every accelerator. Each test
//! compares every accelerator with plain Rust.

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::{Rng, gpu_accelerators};

/// Negating a negative constant (`-NEG`, `-R * T` with `R = -0.01`, as in
/// C++ AMP's BlackScholes) is valid WGSL: it wrote `--0.5f` and every GPU
/// launch failed while the CPU ran it.
#[amp_test]
fn negated_negative_constants() {
    const NEG: f32 = -0.5;
    const R: f32 = -0.01;
    const NI: i32 = -7;
    const MIN: i32 = i32::MIN;
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9500 + k as u64);
        let n = 300;
        let x = f32s(&mut rng, n, 0.0, 4.0);
        let mut out = vec![f32::NAN; n];
        let mut iout = vec![POISON_I32; n];
        {
            let xv = ArrayView::new([n as i32], &x).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            let io = ArrayView::new_mut([n as i32], &mut iout).unwrap();
            parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                let t = xv[idx];
                o[idx] = -NEG + (-R * t).exp() + -(-NEG);
                io[idx] = -NI + -(-NI) + (-MIN - MIN) + idx[0];
            })
            .unwrap();
        }
        let want: Vec<f32> = x.iter().map(|t| 0.5 + (0.01 * t).exp() + -0.5).collect();
        assert_close32(&out, &want, F32_TRANSCENDENTAL, 1e-6, &what);
        // -NI + -(-NI) is 0; -MIN wraps to MIN, and MIN - MIN is 0.
        let iwant: Vec<i32> = (0..n as i32)
            .map(|i| NI.wrapping_neg() + NI + MIN.wrapping_neg().wrapping_sub(MIN) + i)
            .collect();
        assert_same(&iout, &iwant, &what);
    }
}

/// A domain just below 2^32 work items runs each work item once on GPUs
/// (D10): the grid's extra workgroups computed an index that wrapped past
/// 2^32 and repeated the first 16 million work items. The CPU accelerator
/// has no grid (and would take minutes in a debug build).
#[amp_test(wgpu)]
fn domains_near_two_to_the_32_run_each_work_item_once() {
    for acc in gpu_accelerators() {
        let view = acc.create_view(QueuingMode::Immediate);
        let total: i64 = (1 << 32) - 256;
        let mut counts = vec![0u32; 1024];
        {
            let c = ArrayView::new_mut([1024], &mut counts).unwrap();
            // Rank 2, so that the extent fits `i32`: 2^23 - 1/2 rows of 512.
            let rows = (total / 512) as i32;
            parallel_for_each!(view, Extent::new([rows, 512]), |idx: Index<2>| {
                if idx[0] < 2 {
                    let i = idx[0] * 512 + idx[1];
                    c[[i]] += 1;
                }
            })
            .unwrap();
        }
        assert!(counts.iter().all(|&c| c == 1), "{acc}: {:?}", &counts[..8]);
    }
}

/// A step that is 0 at run time skips the loop on every accelerator (D16:
/// the CPU accelerator failed the launch, GPUs skipped the loop); a literal
/// `step_by(0)` does not compile (`tests/ui/kernel_step_by_zero.rs`).
#[amp_test]
fn a_zero_step_skips_the_loop_everywhere() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9510 + k as u64);
        let n = 200;
        let steps: Vec<i32> = (0..n)
            .map(|i| if i % 3 == 0 { 0 } else { rng.range(1, 5) })
            .collect();
        let mut out = vec![POISON_I32; n];
        {
            let s = ArrayView::new([n as i32], &steps).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                let mut sum = 1000;
                for v in (0..40).step_by(s[idx] as usize) {
                    sum += v;
                }
                for v in (5..=9).step_by(s[idx] as usize) {
                    sum += v * 100;
                }
                o[idx] = sum;
            })
            .unwrap();
        }
        let want: Vec<i32> = steps
            .iter()
            .map(|&s| {
                if s == 0 {
                    1000
                } else {
                    1000 + (0..40).step_by(s as usize).sum::<i32>()
                        + (5..=9).step_by(s as usize).map(|v| v * 100).sum::<i32>()
                }
            })
            .collect();
        assert_same(&out, &want, &what);
    }
}

/// Statements inside block and `if` expressions run where Rust runs them
/// (D11): `&&` and `||` short-circuit their right operand's effects, and
/// an operand is read before the statements of the operands after it.
#[amp_test]
fn effects_in_expressions_run_in_rust_order() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9520 + k as u64);
        let n = 256;
        let a = i32s(&mut rng, n, -50, 50);
        let mut o = vec![POISON_I32; n];
        let mut p = vec![POISON_I32; n];
        let mut q = vec![POISON_I32; n * 4];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let ov = ArrayView::new_mut([n as i32], &mut o).unwrap();
            let pv = ArrayView::new_mut([n as i32], &mut p).unwrap();
            let qv = ArrayView::new_mut([n as i32, 4], &mut q).unwrap();
            parallel_for_each!(view, ov.extent(), |idx: Index<1>| {
                let i = idx[0];
                ov[idx] = -1;
                pv[idx] = -1;
                // The block runs only where `i >= 2`.
                if i >= 2 && {
                    ov[idx] = 7;
                    true
                } {
                    pv[idx] = 1;
                }
                // ... and only where `av[idx] <= 0`.
                let skipped = av[idx] > 0 || {
                    pv[idx] += 100;
                    false
                };
                // `x` is read before the block assigns it.
                let mut x = av[idx];
                let y = x + {
                    x = 10;
                    0
                };
                let z = {
                    x += 1;
                    x
                } * x;
                qv[[i, 0]] = y;
                qv[[i, 1]] = z;
                qv[[i, 2]] = if skipped { 1 } else { 0 };
                // Call arguments, left to right.
                let mut c = i;
                qv[[i, 3]] = c.min({
                    c = -c;
                    c
                }) * 1000
                    + c;
            })
            .unwrap();
        }
        for i in 0..n {
            let iw = i as i32;
            let wo = if iw >= 2 { 7 } else { -1 };
            let mut wp = if iw >= 2 { 1 } else { -1 };
            let skipped = a[i] > 0;
            if !skipped {
                wp += 100;
            }
            assert_eq!(o[i], wo, "{what}: o[{i}]");
            assert_eq!(p[i], wp, "{what}: p[{i}]");
            assert_eq!(
                &q[i * 4..i * 4 + 4],
                &[a[i], 11 * 11, skipped as i32, iw.min(-iw) * 1000 - iw],
                "{what}: q[{i}]"
            );
        }
    }
}

/// The index of a compound assignment is evaluated once, after the value
/// (D12: the CPU form evaluated `arr[{ j += 1; j } as usize] += 5`'s index
/// twice), on local arrays and containers alike.
#[amp_test]
fn compound_assignment_indices_are_evaluated_once() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9530 + k as u64);
        let n = 128;
        let start = i32s(&mut rng, n, 0, 4);
        let mut out = vec![POISON_I32; n * 16];
        {
            let s = ArrayView::new([n as i32], &start).unwrap();
            let o = ArrayView::new_mut([n as i32, 16], &mut out).unwrap();
            parallel_for_each!(view, s.extent(), |idx: Index<1>| {
                let i = idx[0];
                let mut arr = [0i32; 12];
                let mut j = s[idx];
                arr[{
                    j += 1;
                    j
                } as usize] += 5;
                // The value first (Rust's order for primitives), then the
                // place: `j` is 10x, then one more.
                arr[{
                    j += 1;
                    j
                } as usize] = {
                    j *= 2;
                    j
                };
                for c in 0..12 {
                    o[[i, c]] = arr[c as usize];
                }
                let mut m = s[idx];
                o[[i, 12]] = 0;
                o[[
                    i,
                    {
                        m += 12;
                        m
                    } % 4
                        + 12,
                ]] += 3;
                o[[i, 13]] = j;
                o[[i, 14]] = m;
            })
            .unwrap();
        }
        for i in 0..n {
            let mut arr = [0i32; 12];
            let mut j = start[i];
            arr[{
                j += 1;
                j
            } as usize] += 5;
            arr[{
                j += 1;
                j
            } as usize] = {
                j *= 2;
                j
            };
            let mut row = [POISON_I32; 16];
            row[..12].copy_from_slice(&arr);
            let m = start[i] + 12;
            row[12] = 0;
            let at = (m % 4 + 12) as usize;
            row[at] = row[at].wrapping_add(3);
            row[13] = j;
            row[14] = m;
            assert_eq!(&out[i * 16..i * 16 + 16], &row, "{what}: row {i}");
        }
    }
}

/// Two structs named `State` from different modules.
mod first {
    use amp_core::Element;

    /// A state of three `i32`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, Element)]
    pub(crate) struct State {
        pub(crate) a: i32,
        pub(crate) b: i32,
        pub(crate) c: i32,
    }
}

mod second {
    use amp_core::Element;

    /// A state of one `f32` and one `i32`, in another order.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, Element)]
    pub(crate) struct State {
        pub(crate) x: f32,
        pub(crate) a: i32,
    }
}

/// A struct named like the runtime's parameter block.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, amp_core::Element)]
struct AmpParams {
    total: u32,
    scale: f32,
}

/// Structs of one name from different modules keep their own layouts in
/// one kernel, and a struct may be named `AmpParams` (D13: WGSL used the
/// bare Rust name, so both `State`s shared one declaration, and `AmpParams`
/// collided with the parameter block).
#[amp_test]
fn structs_of_one_name_keep_their_layouts() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9540 + k as u64);
        let n = 100;
        let firsts: Vec<first::State> = (0..n)
            .map(|_| first::State {
                a: rng.range(-100, 100),
                b: rng.range(-100, 100),
                c: rng.range(-100, 100),
            })
            .collect();
        let params: Vec<AmpParams> = (0..n)
            .map(|_| AmpParams {
                total: rng.range(0, 1000) as u32,
                scale: rng.range(-10, 10) as f32 * 0.5,
            })
            .collect();
        let mut seconds = vec![
            second::State {
                x: f32::NAN,
                a: POISON_I32
            };
            n
        ];
        {
            let f = ArrayView::new([n as i32], &firsts).unwrap();
            let p = ArrayView::new([n as i32], &params).unwrap();
            let s = ArrayView::new_mut([n as i32], &mut seconds).unwrap();
            parallel_for_each!(view, s.extent(), |idx: Index<1>| {
                let v = f[idx];
                let q = p[idx];
                let local = second::State {
                    x: (v.a + v.c) as f32 * q.scale,
                    a: v.b * 2 + q.total as i32,
                };
                s[idx] = local;
            })
            .unwrap();
        }
        for i in 0..n {
            let want = second::State {
                x: (firsts[i].a + firsts[i].c) as f32 * params[i].scale,
                a: firsts[i].b * 2 + params[i].total as i32,
            };
            assert_eq!(seconds[i], want, "{what}: {i}");
        }
    }
}

/// Constant vector expressions give Rust's (wrapping, guarded) results
/// instead of WGSL that does not parse (D14: `Int2::new(7, 8) /
/// Int2::new(0, 1)` and `Float2` overflow were constant-evaluated by the
/// shader compiler, which rejects division by zero and infinities).
#[amp_test]
fn constant_vector_expressions() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9550 + k as u64);
        let n = 64;
        let a = i32s(&mut rng, n, -100, 100);
        let mut out = vec![Int2::new(POISON_I32, POISON_I32); n * 3];
        let mut fout = vec![Float2::new(0.0, 0.0); n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32, 3], &mut out).unwrap();
            let fo = ArrayView::new_mut([n as i32], &mut fout).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let q = Int2::new(7, 8) / Int2::new(0, 1);
                let r = Int2::new(7, i32::MIN) % Int2::new(0, -1);
                let w = Int2::new(i32::MAX, 3) * Int2::new(2, 2) + Int2::new(av[idx], 0);
                o[[i, 0]] = q;
                o[[i, 1]] = r;
                o[[i, 2]] = w;
                fo[idx] = Float2::new(3.0e38, -3.0e38) * Float2::new(10.0, 10.0)
                    + Float2::new(av[idx] as f32, 0.0);
            })
            .unwrap();
        }
        for i in 0..n {
            // WGSL's (and the CPU form's) defined results: x / 0 == x,
            // x % 0 == 0, i32::MIN % -1 == 0; integers wrap.
            let want = [
                Int2::new(7, 8),
                Int2::new(0, 0),
                Int2::new(i32::MAX.wrapping_mul(2).wrapping_add(a[i]), 6),
            ];
            assert_eq!(&out[i * 3..i * 3 + 3], &want, "{what}: {i}");
            assert_eq!(
                fout[i],
                Float2::new(f32::INFINITY, f32::NEG_INFINITY),
                "{what}: {i}"
            );
        }
    }
}

/// Float results that are amp-rs's own lowering equal Rust's on every
/// accelerator (D15): `!=` with NaN, `round` of infinities and signed
/// zeros, `powf` of negative bases with integral exponents and of the
/// special operands Rust defines, `sinh` and `tanh` of small arguments
/// (drivers cancel exponentials there) and of large ones, `%` (C's fmod,
/// exact where the quotient is below 2^24), `atan(NaN)`. What drivers may
/// still do differently is in docs/kernel-language.md (section 5).
#[amp_test]
fn float_special_values_match_rust() {
    let xs: Vec<f32> = vec![
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -2.5,
        2.5,
        -3.0,
        1e-4,
        -3e-3,
        0.05,
        -0.09,
        25.0,
        -30.0,
        1.0,
        8_388_609.0,
        -2.0,
        100.0,
        1000.5,
        123.45,
        -100.0,
        -0.0,
    ];
    let ys: Vec<f32> = vec![
        2.0,
        3.0,
        -1.0,
        0.0,
        f32::NAN,
        0.5,
        -2.0,
        4.0,
        5.0,
        0.0,
        3.0,
        1.0,
        2.0,
        -3.0,
        1.0,
        0.0,
        2.0,
        f32::NAN,
        1.0,
        1.5,
        0.7,
        0.3,
        0.1,
        -0.7,
        1.0,
    ];
    let n = xs.len();
    for (view, what) in all_views() {
        let mut out = vec![f32::from_bits(0x7fbad000); n * 8];
        {
            let xv = ArrayView::new([n as i32], &xs).unwrap();
            let yv = ArrayView::new([n as i32], &ys).unwrap();
            let o = ArrayView::new_mut([n as i32, 8], &mut out).unwrap();
            parallel_for_each!(view, xv.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = xv[idx];
                let y = yv[idx];
                o[[i, 0]] = if x != x { 1.0 } else { 0.0 };
                o[[i, 1]] = if x != y { 1.0 } else { 0.0 };
                o[[i, 2]] = x.round();
                o[[i, 3]] = x.powf(y);
                o[[i, 4]] = x.sinh();
                o[[i, 5]] = x.tanh();
                o[[i, 6]] = x % y;
                o[[i, 7]] = x.atan();
            })
            .unwrap();
        }
        for i in 0..n {
            let (x, y) = (xs[i], ys[i]);
            let got = &out[i * 8..i * 8 + 8];
            let exact = [
                f32::from(x.is_nan()),
                f32::from(x != y),
                x.round(),
                x.powf(y),
                0.0,
                0.0,
                x % y,
            ];
            for (k, (g, w)) in got
                .iter()
                .zip(exact)
                .enumerate()
                .filter(|(k, _)| ![4, 5].contains(k))
            {
                let same = (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits();
                // pow: exact where Rust's result is exact, else the
                // documented driver latitude (NVIDIA: 1.4e-6 relative for
                // `0.05.powf(-3.0)`).
                let close = k == 3 && close32(*g, w, POWF_REL, 0.0) && g.signum() == w.signum()
                    // `%`: within the rounding of `y * trunc(x / y)`, 4 ULP
                    // of `x`, where the driver does not fuse `fma`
                    // (lavapipe); exact where it does and on the CPU.
                    || k == 6 && close32(*g, w, 0.0, 4.0 * f32::EPSILON * x.abs());
                assert!(
                    same || close,
                    "{what}: column {k} of x={x:e} y={y:e}: got {g:e} ({:#x}), want {w:e} ({:#x})",
                    g.to_bits(),
                    w.to_bits()
                );
            }
            for (k, w) in [(4, x.sinh()), (5, x.tanh()), (7, x.atan())] {
                let g = got[k];
                // Infinities and NaN exactly; small arguments within 1e-6
                // relative (they were 1e-1 off); others within the
                // transcendental tolerance.
                // (atan: WGSL's accuracy everywhere, 4096 ULP.)
                let rel = if x.abs() < 0.1 && k != 7 {
                    1e-6
                } else {
                    F32_TRANSCENDENTAL
                };
                assert!(
                    close32(g, w, rel, 0.0),
                    "{what}: column {k} of x={x:e}: got {g:e}, want {w:e}"
                );
            }
        }
    }
}

/// Special `f32` values (and ordinary ones) to combine pairwise.
fn special_f32s() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -2.5,
        0.5,
        -0.5,
        1e-3,
        -1e-3,
        1e-5,
        -1e-5,
        1e-30,
        3.0,
        -3.0,
        -2.0,
        7.0,
        -7.5,
        0.49999997,
        8388609.0,
        -8388609.0,
        1e38,
        -1e38,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ]
}

/// Whether `got` is `want` exactly, NaN matching NaN (signed zeros differ).
fn same32(got: f32, want: f32) -> bool {
    (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits()
}

/// Whether `got` is within the documented driver latitude of `want`
/// (`docs/kernel-language.md`, "Floating point on GPUs"): NaN, infinities
/// and zeros exact (with their signs), relative error `rel` otherwise,
/// and results below `f32::MIN_POSITIVE` may be flushed to a zero of the
/// same sign.
fn within32(got: f32, want: f32, rel: f32) -> bool {
    if want.is_nan() || got.is_nan() || want.is_infinite() || want == 0.0 {
        return same32(got, want);
    }
    if want.abs() < f32::MIN_POSITIVE && got == 0.0 {
        return got.is_sign_negative() == want.is_sign_negative();
    }
    got.is_sign_negative() == want.is_sign_negative() && close32(got, want, rel, 0.0)
}

/// Float comparisons, `round`, `%`, `powf` and the odd functions on special
/// values: `!=` is true with a NaN operand, `round` keeps infinities and
/// signed zeros, `%` is exact (`fmod`), `powf` has Rust's special values
/// and negative bases, `atan`/`sinh`/`tanh`/... keep NaN, signed zeros and
/// tiny arguments, exactly as Rust on every accelerator; the magnitude of
/// `powf`, `atan`, `sinh` and `tanh` within the driver latitude documented
/// in `docs/kernel-language.md`.
#[amp_test]
fn float_special_values() {
    let specials = special_f32s();
    for (k, (view, what)) in default_views().into_iter().enumerate() {
        let mut rng = Rng::new(7600 + k as u64);
        let mut a = Vec::new();
        let mut b = Vec::new();
        for &x in &specials {
            for &y in &specials {
                a.push(x);
                b.push(y);
            }
        }
        // Random operands of `%` far apart in magnitude (a long reduction).
        for _ in 0..500 {
            let x = f32s(&mut rng, 1, -1.0, 1.0)[0] * 10f32.powi(rng.range(-20, 30));
            let y = f32s(&mut rng, 1, -1.0, 1.0)[0] * 10f32.powi(rng.range(-20, 10));
            a.push(x);
            b.push(y);
        }
        let n = a.len();
        let mut cmp = vec![POISON_U32; n];
        let mut exact = [
            vec![f32::NAN; n],
            vec![f32::NAN; n],
            vec![f32::NAN; n],
            vec![f32::NAN; n],
        ];
        let mut approx = [vec![f32::NAN; n], vec![f32::NAN; n], vec![f32::NAN; n]];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let cv = ArrayView::new_mut([n as i32], &mut cmp).unwrap();
            let [e0, e1, e2, e3] = &mut exact;
            let [p0, p1, p2] = &mut approx;
            let e0 = ArrayView::new_mut([n as i32], e0).unwrap();
            let e1 = ArrayView::new_mut([n as i32], e1).unwrap();
            let e2 = ArrayView::new_mut([n as i32], e2).unwrap();
            let e3 = ArrayView::new_mut([n as i32], e3).unwrap();
            let p0 = ArrayView::new_mut([n as i32], p0).unwrap();
            let p1 = ArrayView::new_mut([n as i32], p1).unwrap();
            let p2 = ArrayView::new_mut([n as i32], p2).unwrap();
            parallel_for_each!(view, cv.extent(), |idx: Index<1>| {
                let x = av[idx];
                let y = bv[idx];
                let v = Float2::new(x, 1.0);
                let w = Float2::new(y, 1.0);
                cv[idx] = (x != y) as u32
                    | ((x == y) as u32) << 1
                    | ((x < y) as u32) << 2
                    | ((x >= y) as u32) << 3
                    | ((v != w) as u32) << 4
                    | ((v == w) as u32) << 5;
                e0[idx] = x.round();
                e1[idx] = x % y;
                e2[idx] = (v % w).x;
                // Tiny, zero and NaN arguments of the odd functions.
                let t = x * 1e-4;
                let f = idx[0] % 6;
                e3[idx] = if f == 0 {
                    t.atan()
                } else if f == 1 {
                    t.sinh()
                } else if f == 2 {
                    t.tanh()
                } else if f == 3 {
                    t.sin()
                } else if f == 4 {
                    t.tan()
                } else {
                    t.asin()
                };
                p0[idx] = x.powf(y);
                p1[idx] = x.atan();
                p2[idx] = x.sinh() + x.tanh();
            })
            .unwrap();
            for v in [&e0, &e1, &e2, &e3, &p0, &p1, &p2] {
                v.synchronize().unwrap();
            }
            cv.synchronize().unwrap();
        }
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let (v, w) = (Float2::new(x, 1.0), Float2::new(y, 1.0));
            let want_cmp = (x != y) as u32
                | ((x == y) as u32) << 1
                | ((x < y) as u32) << 2
                | ((x >= y) as u32) << 3
                | ((v != w) as u32) << 4
                | ((v == w) as u32) << 5;
            assert_eq!(cmp[i], want_cmp, "{what}: comparisons of {x:e} and {y:e}");
            let t = x * 1e-4;
            let want = [
                x.round(),
                x % y,
                x % y,
                [t.atan(), t.sinh(), t.tanh(), t.sin(), t.tan(), t.asin()][i % 6],
            ];
            let names = ["round", "%", "vector %", "odd functions of x * 1e-4"];
            for j in 0..4 {
                // The odd functions are exact below 2^-12 only (GPUs give
                // `x`, correctly rounded; the platform's `sinhf` and
                // `tanhf`, which Rust calls, can be 1 ulp off there).
                if j == 3 && !(t.abs() < 1.0 / 4096.0 || t.is_nan()) {
                    continue;
                }
                let libm_ulp = j == 3 && matches!(i % 6, 1 | 2) && t.is_finite() && t != 0.0;
                let ok = if libm_ulp {
                    (exact[j][i].to_bits() as i64 - want[j].to_bits() as i64).abs() <= 1
                } else {
                    same32(exact[j][i], want[j])
                };
                assert!(
                    ok,
                    "{what}: {} of {x:e}, {y:e}: got {:e}, want {:e}",
                    names[j], exact[j][i], want[j]
                );
            }
            let want = [x.powf(y), x.atan(), x.sinh() + x.tanh()];
            let names = ["powf", "atan", "sinh + tanh"];
            let rel = [POWF_REL, TRANSCENDENTAL_REL, TRANSCENDENTAL_REL];
            for j in 0..3 {
                assert!(
                    within32(approx[j][i], want[j], rel[j]),
                    "{what}: {} of {x:e}, {y:e}: got {:e}, want {:e}",
                    names[j],
                    approx[j][i],
                    want[j]
                );
            }
        }
    }
}

/// The documented driver latitude of `powf` (relative; lavapipe measured
/// 2.8e-6).
const POWF_REL: f32 = 1e-5;
/// The documented driver latitude of `atan`, `sinh`, `tanh` (relative;
/// lavapipe measured 2.1e-5).
const TRANSCENDENTAL_REL: f32 = F32_TRANSCENDENTAL;

/// `round`, `trunc`, `fract` and `%` on `f64` special values, exactly as
/// Rust (lavapipe's own `f64` `trunc` is wrong from 2^31 on).
#[amp_test]
fn f64_round_and_rem_special_values() {
    let specials: Vec<f64> = special_f32s().into_iter().map(f64::from).collect();
    for (k, (view, what)) in default_views().into_iter().enumerate() {
        if !view.accelerator().supports_double_precision() {
            continue;
        }
        let mut rng = Rng::new(7700 + k as u64);
        let mut a = Vec::new();
        let mut b = Vec::new();
        for &x in &specials {
            for &y in &specials {
                a.push(x);
                b.push(y);
            }
        }
        for _ in 0..300 {
            a.push(f64s(&mut rng, 1, -1.0, 1.0)[0] * 10f64.powi(rng.range(-100, 250)));
            b.push(f64s(&mut rng, 1, -1.0, 1.0)[0] * 10f64.powi(rng.range(-100, 50)));
        }
        let n = a.len();
        let mut r = vec![f64::NAN; n];
        let mut m = vec![f64::NAN; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let bv = ArrayView::new([n as i32], &b).unwrap();
            let rv = ArrayView::new_mut([n as i32], &mut r).unwrap();
            let mv = ArrayView::new_mut([n as i32], &mut m).unwrap();
            parallel_for_each!(view, rv.extent(), |idx: Index<1>| {
                rv[idx] = av[idx].round() + av[idx].trunc() * 4.0 + av[idx].fract() * 8.0;
                mv[idx] = av[idx] % bv[idx];
            })
            .unwrap();
            rv.synchronize().unwrap();
            mv.synchronize().unwrap();
        }
        for i in 0..n {
            let same = |g: f64, w: f64| (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits();
            let x = a[i];
            let want = x.round() + x.trunc() * 4.0 + x.fract() * 8.0;
            assert!(
                same(r[i], want),
                "{what}: round, trunc, fract of {x:e}: got {:e}, want {want:e}",
                r[i]
            );
            let want = a[i] % b[i];
            assert!(
                same(m[i], want),
                "{what}: {:e} % {:e}: got {:e}, want {want:e}",
                a[i],
                b[i],
                m[i]
            );
        }
    }
}

/// A read-only view and a writable view of one array in one kernel: GPUs
/// cannot bind one buffer both as read-only and as read-write storage, and
/// the launch used to do nothing there (no error, no write) while the CPU
/// ran it. Also two writable sections of one array, one read through the
/// other's neighbour.
#[amp_test]
fn read_only_and_writable_views_of_one_array() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9900 + k as u64);
        let n = 512;
        let half = n as i32;
        let init = i32s(&mut rng, 2 * n, -1000, 1000);
        let a = Array::from_slice([2 * half], &init, &view).unwrap();
        let ro = a.view().as_read_only();
        let rw = a.view();
        // The second half reads the first: disjoint, so the order of the
        // work items does not matter.
        parallel_for_each!(&view, Extent::new([half]), |idx: Index<1>| {
            rw[[idx[0] + half]] = ro[idx] * 3 + 1;
        })
        .unwrap();
        let got = a.to_vec().unwrap();
        let mut want = init.clone();
        for i in 0..n {
            want[n + i] = init[i] * 3 + 1;
        }
        assert_same(&got, &want, &format!("{what} read-only + writable"));

        let lo = a.view().section([0], [half]).unwrap();
        let hi = a.view().section([half], [half]).unwrap();
        parallel_for_each!(&view, lo.extent(), |idx: Index<1>| {
            lo[idx] = hi[idx] - lo[idx];
            hi[idx] = 0;
        })
        .unwrap();
        let got = a.to_vec().unwrap();
        let mut again = want.clone();
        for i in 0..n {
            again[i] = want[n + i] - want[i];
            again[n + i] = 0;
        }
        assert_same(&got, &again, &format!("{what} two writable sections"));

        // Two writable views, one only read: GPUs bind a writable view the
        // kernel never writes read-only, except where another binding of
        // the launch writes its buffer.
        let src = a.view();
        let dst = a.view();
        parallel_for_each!(&view, Extent::new([half]), |idx: Index<1>| {
            dst[idx] = src[[idx[0] + half]] + 5;
        })
        .unwrap();
        let got = a.to_vec().unwrap();
        let mut third = again.clone();
        for i in 0..n {
            third[i] = again[n + i] + 5;
        }
        assert_same(&got, &third, &format!("{what} a writable view only read"));
    }
}

/// 64 nested loops (a conformance-suite case, "deeply nested loops"): the
/// kernel compiler's recursive stages run on a thread with room for deep
/// nesting instead of overflowing the launching thread's stack (which
/// aborted the process); every work item counts the iterations of the
/// innermost loop, against plain Rust's count, on every accelerator.
#[amp_test]
fn sixty_four_nested_loops() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9600 + k as u64);
        let n = rng.range(1, 64) as usize;
        let starts: Vec<i32> = (0..n).map(|_| rng.range(0, 2)).collect();
        let mut out = vec![POISON_I32; n];
        // A run-time trip count: the loops are not unrolled away.
        let one = rng.range(1, 2);
        {
            let sv = ArrayView::new([n as i32], &starts).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                let s = sv[idx];
                let mut count = 0i32;
                for l0 in s..2 {
                    for _l1 in 0..one {
                        for _l2 in 0..one {
                            for _l3 in 0..one {
                                for _l4 in 0..one {
                                    for _l5 in 0..one {
                                        for _l6 in 0..one {
                                            for _l7 in 0..one {
                                                for _l8 in 0..one {
                                                    for _l9 in 0..one {
                                                        for _l10 in 0..one {
                                                            for _l11 in 0..one {
                                                                for _l12 in 0..one {
                                                                    for _l13 in 0..one {
                                                                        for _l14 in 0..one {
                                                                            for _l15 in 0..one {
                                                                                for _l16 in 0..one {
                                                                                    for _l17 in 0..one {
                                                                                        for _l18 in 0..one {
                                                                                            for _l19 in 0..one {
                                                                                                for _l20 in 0..one {
                                                                                                    for _l21 in 0..one {
                                                                                                        for _l22 in 0..one {
                                                                                                            for _l23 in 0..one {
                                                                                                                for _l24 in 0..one {
                                                                                                                    for _l25 in 0..one {
                                                                                                                        for _l26 in 0..one {
                                                                                                                            for _l27 in 0..one {
                                                                                                                                for _l28 in 0..one {
                                                                                                                                    for _l29 in 0..one {
                                                                                                                                        for _l30 in 0..one {
                                                                                                                                            for _l31 in 0..one {
                                                                                                                                                for _l32 in 0..one {
                                                                                                                                                    for _l33 in 0..one {
                                                                                                                                                        for _l34 in 0..one {
                                                                                                                                                            for _l35 in 0..one {
                                                                                                                                                                for _l36 in 0..one {
                                                                                                                                                                    for _l37 in 0..one {
                                                                                                                                                                        for _l38 in 0..one {
                                                                                                                                                                            for _l39 in 0..one {
                                                                                                                                                                                for _l40 in 0..one {
                                                                                                                                                                                    for _l41 in 0..one {
                                                                                                                                                                                        for _l42 in 0..one {
                                                                                                                                                                                            for _l43 in 0..one {
                                                                                                                                                                                                for _l44 in 0..one {
                                                                                                                                                                                                    for _l45 in 0..one {
                                                                                                                                                                                                        for _l46 in 0..one {
                                                                                                                                                                                                            for _l47 in 0..one {
                                                                                                                                                                                                                for _l48 in 0..one {
                                                                                                                                                                                                                    for _l49 in 0..one {
                                                                                                                                                                                                                        for _l50 in 0..one {
                                                                                                                                                                                                                            for _l51 in 0..one {
                                                                                                                                                                                                                                for _l52 in 0..one {
                                                                                                                                                                                                                                    for _l53 in 0..one {
                                                                                                                                                                                                                                        for _l54 in 0..one {
                                                                                                                                                                                                                                            for _l55 in 0..one {
                                                                                                                                                                                                                                                for _l56 in 0..one {
                                                                                                                                                                                                                                                    for _l57 in 0..one {
                                                                                                                                                                                                                                                        for _l58 in 0..one {
                                                                                                                                                                                                                                                            for _l59 in 0..one {
                                                                                                                                                                                                                                                                for _l60 in 0..one {
                                                                                                                                                                                                                                                                    for _l61 in 0..one {
                                                                                                                                                                                                                                                                        for _l62 in 0..one {
                                                                                                                                                                                                                                                                            for l63 in 0..3 {
                                                                                                                                                                                                                                                                                count += 1 + l0 + l63;
                                                                                                                                                                                                                                                                            }
                                                                                                                                                                                                                                                                        }
                                                                                                                                                                                                                                                                    }
                                                                                                                                                                                                                                                                }
                                                                                                                                                                                                                                                            }
                                                                                                                                                                                                                                                        }
                                                                                                                                                                                                                                                    }
                                                                                                                                                                                                                                                }
                                                                                                                                                                                                                                            }
                                                                                                                                                                                                                                        }
                                                                                                                                                                                                                                    }
                                                                                                                                                                                                                                }
                                                                                                                                                                                                                            }
                                                                                                                                                                                                                        }
                                                                                                                                                                                                                    }
                                                                                                                                                                                                                }
                                                                                                                                                                                                            }
                                                                                                                                                                                                        }
                                                                                                                                                                                                    }
                                                                                                                                                                                                }
                                                                                                                                                                                            }
                                                                                                                                                                                        }
                                                                                                                                                                                    }
                                                                                                                                                                                }
                                                                                                                                                                            }
                                                                                                                                                                        }
                                                                                                                                                                    }
                                                                                                                                                                }
                                                                                                                                                            }
                                                                                                                                                        }
                                                                                                                                                    }
                                                                                                                                                }
                                                                                                                                            }
                                                                                                                                        }
                                                                                                                                    }
                                                                                                                                }
                                                                                                                            }
                                                                                                                        }
                                                                                                                    }
                                                                                                                }
                                                                                                            }
                                                                                                        }
                                                                                                    }
                                                                                                }
                                                                                            }
                                                                                        }
                                                                                    }
                                                                                }
                                                                            }
                                                                        }
                                                                    }
                                                                }
                                                            }
                                                        }
                                                    }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                o[idx] = count;
            })
            .unwrap();
        }
        for i in 0..n {
            let mut want = 0;
            for l0 in starts[i]..2 {
                for last in 0..3 {
                    want += 1 + l0 + last;
                }
            }
            assert_eq!(out[i], want, "{what}: element {i}");
        }
    }
}
