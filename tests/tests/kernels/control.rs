//! Kernel control flow (C++ AMP spec ch. 7 kernels, with Rust semantics):
//! `if`/`else` chains, `if` and blocks as expressions, `while` with `break`
//! and `continue`, `loop` with counters, `for` over `a..b`, `a..=b` and
//! `(a..b).step_by(s)` (including ranges that end at `i32::MAX`), early
//! `return`, boolean logic, fixed-size local arrays, scoping and shadowing,
//! and locals named like WGSL built-ins.
//!
//! Every kernel runs on every accelerator and is checked against the same
//! code in plain Rust; outputs are poisoned first (or hold known values that
//! a kernel may deliberately leave) so that skipped elements are caught.

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_tests::Rng;
use amp_tests::amp_test;

/// An `if` / `else if` / `else` chain with nested `if`s, `&&` and `||`.
#[amp_test]
fn if_else_chain() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(3000 + k as u64);
        let n = 2000;
        let mut a = i32s(&mut rng, n, -1000, 1000);
        a[0] = 0;
        a[1] = 777;
        let mut out = vec![POISON_I32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            o.discard_data();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let x = av[idx];
                if x < -500 {
                    o[idx] = 0;
                } else if x < 0 {
                    o[idx] = 1;
                } else if x == 0 {
                    o[idx] = 2;
                } else if x % 2 == 0 && x < 500 {
                    o[idx] = 3;
                } else {
                    if x > 900 || x == 777 {
                        o[idx] = 4;
                    } else {
                        o[idx] = 5;
                    }
                    if !(x < 600) {
                        o[idx] += 10;
                    }
                }
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            let want = if x < -500 {
                0
            } else if x < 0 {
                1
            } else if x == 0 {
                2
            } else if x % 2 == 0 && x < 500 {
                3
            } else {
                (if x > 900 || x == 777 { 4 } else { 5 }) + if x >= 600 { 10 } else { 0 }
            };
            assert_eq!(out[i], want, "{what} x = {x}");
        }
    }
}

/// `if` as an expression: nested, in arithmetic, as an index, as a `bool`,
/// as a block's tail.
#[amp_test]
fn if_as_expression() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(3100 + k as u64);
        let n = 1000;
        let a = f32s(&mut rng, n, -50.0, 50.0);
        let mut out = vec![f32::NAN; n];
        let mut flags = vec![POISON_U32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            let fl = ArrayView::new_mut([n as i32], &mut flags).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let v = if x > 0.0 {
                    if x > 10.0 { x.sqrt() } else { x * x }
                } else {
                    -x
                };
                let prev = av[if i > 0 { i - 1 } else { 0 }];
                let w = 1.0 + if prev > x { prev - x } else { 0.0 };
                let positive = if x > 0.0 { true } else { x == -1.0 };
                o[idx] = v * w;
                fl[idx] = if positive { 1 } else { 0 } + { if v > 5.0 { 2 } else { 4 } };
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            let v = if x > 0.0 {
                if x > 10.0 { x.sqrt() } else { x * x }
            } else {
                -x
            };
            let prev = a[i.saturating_sub(1)];
            let w = 1.0 + if prev > x { prev - x } else { 0.0 };
            let wf = u32::from(x > 0.0 || x == -1.0) + if v > 5.0 { 2 } else { 4 };
            assert!(
                close32(out[i], v * w, F32_BASIC, 0.0),
                "{what} {i}: {} vs {}",
                out[i],
                v * w
            );
            assert_eq!(flags[i], wf, "{what} {i}");
        }
    }
}

/// Blocks as expressions and as statements, with shadowing inside them.
#[amp_test]
fn block_expressions_and_shadowing() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(3200 + k as u64);
        let n = 500;
        let a = i32s(&mut rng, n, -3000, 3000);
        let mut out = vec![POISON_I32; n * 3];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([3, n as i32], &mut out).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let v = {
                    let t = x * 2;
                    let u = t + 1;
                    u * u
                };
                let x = x + 1;
                {
                    let x = x * 100;
                    o[0][i] = x + v;
                }
                o[1][i] = x;
                let y = {
                    let z = { x - 3 };
                    if z > 0 { z } else { -z }
                };
                o[2][i] = y;
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            let v = (x * 2 + 1) * (x * 2 + 1);
            assert_eq!(out[i], (x + 1) * 100 + v, "{what} row 0, {x}");
            assert_eq!(out[n + i], x + 1, "{what} row 1, {x}");
            assert_eq!(out[2 * n + i], (x + 1 - 3).abs(), "{what} row 2, {x}");
        }
    }
}

/// `while` with `break` and `continue`: Collatz steps (capped) and a sum
/// that skips multiples of three.
#[amp_test]
fn while_with_break_and_continue() {
    fn collatz(mut n: u32) -> u32 {
        let mut steps = 0;
        while n != 1 {
            if n.is_multiple_of(2) {
                n /= 2;
            } else {
                n = 3 * n + 1;
            }
            steps += 1;
            if steps >= 300 {
                break;
            }
        }
        steps
    }
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(3300 + k as u64);
        let n = 1000;
        let a: Vec<u32> = (0..n).map(|_| rng.range(1, 20_000) as u32).collect();
        let mut steps = vec![POISON_U32; n];
        let mut sums = vec![POISON_I32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let sv = ArrayView::new_mut([n as i32], &mut steps).unwrap();
            let su = ArrayView::new_mut([n as i32], &mut sums).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let mut m = av[idx];
                let mut count = 0u32;
                while m != 1 {
                    if m % 2 == 0 {
                        m /= 2;
                    } else {
                        m = 3 * m + 1;
                    }
                    count += 1;
                    if count >= 300 {
                        break;
                    }
                }
                sv[idx] = count;
                let limit = (av[idx] % 200) as i32;
                let mut i = 0;
                let mut s = 0;
                while i < limit {
                    i += 1;
                    if i % 3 == 0 {
                        continue;
                    }
                    s += i;
                }
                su[idx] = s;
            })
            .unwrap();
        }
        for i in 0..n {
            assert_eq!(steps[i], collatz(a[i]), "{what} collatz({})", a[i]);
            let limit = (a[i] % 200) as i32;
            let s: i32 = (1..=limit).filter(|v| v % 3 != 0).sum();
            assert_eq!(sums[i], s, "{what} sum to {limit}");
        }
    }
}

/// `loop` with a counter, exited by `break` on a data-dependent condition.
#[amp_test]
fn loop_with_counter() {
    for (k, (view, what)) in views(QueuingMode::Immediate).into_iter().enumerate() {
        let mut rng = Rng::new(3400 + k as u64);
        let n = 700;
        let a = any_u32s(&mut rng, n);
        let mut counts = vec![POISON_I32; n];
        let mut states = vec![POISON_U32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let c = ArrayView::new_mut([n as i32], &mut counts).unwrap();
            let s = ArrayView::new_mut([n as i32], &mut states).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let mut v = av[idx];
                let mut count = 0;
                loop {
                    v = v * 1_103_515_245 + 12345;
                    count += 1;
                    if (v >> 16) & 15 == 0 || count == 60 {
                        break;
                    }
                }
                c[idx] = count;
                s[idx] = v;
            })
            .unwrap();
        }
        for i in 0..n {
            let mut v = a[i];
            let mut count = 0;
            loop {
                v = v.wrapping_mul(1_103_515_245).wrapping_add(12345);
                count += 1;
                if (v >> 16) & 15 == 0 || count == 60 {
                    break;
                }
            }
            assert_eq!((counts[i], states[i]), (count, v), "{what} seed {}", a[i]);
        }
    }
}

/// `return` ends the work item early, at top level and inside a loop; an
/// element it leaves keeps the value uploaded with the view.
#[amp_test]
fn early_return() {
    const KEPT: i32 = 12345;
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(3500 + k as u64);
        let n = 900;
        let mut a = i32s(&mut rng, n, -100, 100);
        a[0] = 0;
        let mut out = vec![KEPT; n];
        let mut found = vec![POISON_I32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            let f = ArrayView::new_mut([n as i32], &mut found).unwrap();
            // No discard: elements the kernel leaves keep KEPT.
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let x = av[idx];
                let mut j = 0;
                while j < 100 {
                    if j * j > x + 100 {
                        f[idx] = j;
                        j = 1000;
                    }
                    j += 1;
                }
                if j < 1000 {
                    f[idx] = -2;
                }
                if x < 0 {
                    o[idx] = -1;
                    return;
                }
                if x == 0 {
                    return;
                }
                for i in 0..x {
                    if i * i >= x {
                        o[idx] = i;
                        return;
                    }
                }
                o[idx] = x * 2;
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            let want = if x < 0 {
                -1
            } else if x == 0 {
                KEPT
            } else {
                (0..x).find(|j| j * j >= x).unwrap_or(x * 2)
            };
            assert_eq!(out[i], want, "{what} x = {x}");
            let f = (0..100).find(|j| j * j > x + 100).unwrap_or(-2);
            assert_eq!(found[i], f, "{what} found for {x}");
        }
    }
}

/// `for` over `a..b`, `a..=b` and `(a..b).step_by(s)` with run-time bounds,
/// empty ranges, negative bounds, `u32` counters, and ranges ending at
/// `i32::MAX` / `u32::MAX` (where a naive `i += s` overflows).
#[amp_test]
fn for_ranges() {
    fn reference(lo: i32, hi: i32, step: i32) -> [i32; 8] {
        let a: i32 = (lo..hi)
            .map(|i| i.wrapping_mul(3) ^ 5)
            .fold(0, i32::wrapping_add);
        let b: i32 = (lo..=hi).count() as i32;
        let c: i32 = (lo..hi).step_by(step as usize).fold(0, i32::wrapping_add);
        let d: i32 = (lo..=hi).step_by(step as usize).count() as i32;
        let e = (i32::MAX - 10..=i32::MAX).count() as i32
            + (i32::MAX - step..i32::MAX).step_by(4).count() as i32;
        let f = (i32::MAX - 10..i32::MAX).step_by(step as usize).count() as i32;
        let g = (u32::MAX - 20..u32::MAX).step_by(step as usize).count() as i32
            + (u32::MAX - 3..=u32::MAX).count() as i32;
        let h = (i32::MIN..i32::MIN + 5).count() as i32 + (i32::MIN..=i32::MIN).count() as i32;
        [a, b, c, d, e, f, g, h]
    }
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(3600 + k as u64);
        let n = 300;
        let lo = i32s(&mut rng, n, -60, 60);
        let hi = i32s(&mut rng, n, -60, 60);
        let step = i32s(&mut rng, n, 1, 9);
        let mut out = vec![POISON_I32; n * 8];
        {
            let lv = ArrayView::new([n as i32], &lo).unwrap();
            let hv = ArrayView::new([n as i32], &hi).unwrap();
            let sv = ArrayView::new([n as i32], &step).unwrap();
            let o = ArrayView::new_mut([n as i32, 8], &mut out).unwrap();
            parallel_for_each!(view, lv.extent(), |idx: Index<1>| {
                let i = idx[0];
                let a = lv[idx];
                let b = hv[idx];
                let s = sv[idx];
                let mut r0 = 0;
                for v in a..b {
                    r0 += v * 3 ^ 5;
                }
                let mut r1 = 0;
                for _v in a..=b {
                    r1 += 1;
                }
                let mut r2 = 0;
                for v in (a..b).step_by(s as usize) {
                    r2 += v;
                }
                let mut r3 = 0;
                for _v in (a..=b).step_by(s as usize) {
                    r3 += 1;
                }
                let mut r4 = 0;
                for _v in i32::MAX - 10..=i32::MAX {
                    r4 += 1;
                }
                for _v in (i32::MAX - s..i32::MAX).step_by(4) {
                    r4 += 1;
                }
                let mut r5 = 0;
                for _v in (i32::MAX - 10..i32::MAX).step_by(s as usize) {
                    r5 += 1;
                }
                let mut r6 = 0;
                for _v in (u32::MAX - 20..u32::MAX).step_by(s as usize) {
                    r6 += 1;
                }
                for _v in u32::MAX - 3..=u32::MAX {
                    r6 += 1;
                }
                let mut r7 = 0;
                for _v in i32::MIN..i32::MIN + 5 {
                    r7 += 1;
                }
                for _v in i32::MIN..=i32::MIN {
                    r7 += 1;
                }
                o[[i, 0]] = r0;
                o[[i, 1]] = r1;
                o[[i, 2]] = r2;
                o[[i, 3]] = r3;
                o[[i, 4]] = r4;
                o[[i, 5]] = r5;
                o[[i, 6]] = r6;
                o[[i, 7]] = r7;
            })
            .unwrap();
        }
        for i in 0..n {
            let want = reference(lo[i], hi[i], step[i]);
            assert_eq!(
                &out[i * 8..i * 8 + 8],
                &want,
                "{what} {}..{} by {}",
                lo[i],
                hi[i],
                step[i]
            );
        }
    }
}

/// Nested loops: `break` leaves only the inner loop, `continue` in the
/// outer loop skips the rest of its body.
#[amp_test]
fn nested_loops() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(3700 + k as u64);
        let n = 400;
        let a = i32s(&mut rng, n, 1, 40);
        let mut out = vec![POISON_I32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            o.discard_data();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let m = av[idx];
                let mut total = 0;
                for i in 0..m {
                    if i % 4 == 3 {
                        continue;
                    }
                    let mut j = 0;
                    while j < m {
                        if i + j > m {
                            break;
                        }
                        total += i * j + 1;
                        j += 1;
                    }
                    let mut t = 0;
                    loop {
                        t += 1;
                        if t * t > i {
                            break;
                        }
                    }
                    total += t;
                }
                o[idx] = total;
            })
            .unwrap();
        }
        for i in 0..n {
            let m = a[i];
            let mut total = 0;
            for i in 0..m {
                if i % 4 == 3 {
                    continue;
                }
                for j in 0..m {
                    if i + j > m {
                        break;
                    }
                    total += i * j + 1;
                }
                total += (1..).find(|t| t * t > i).unwrap();
            }
            assert_eq!(out[i], total, "{what} m = {m}");
        }
    }
}

/// Boolean logic: `&&` and `||` short-circuit around out-of-range reads,
/// `!`, `==`/`!=` on `bool`, `bool` locals and a captured `bool`.
#[amp_test]
fn boolean_logic() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(3800 + k as u64);
        let n = 1024;
        let a = i32s(&mut rng, n, -10, 10);
        let strict = k % 2 == 0;
        let mut out = vec![POISON_U32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let i = idx[0];
                let x = av[idx];
                let has_next = i + 1 < 1024;
                let rising = has_next && av[i + 1] > x;
                let edge = i == 0 || !has_next;
                let p = x > 0;
                let q = x % 2 == 0;
                let same = p == q;
                let differ = p != q;
                let mut bits = 0u32;
                if rising {
                    bits |= 1;
                }
                if edge {
                    bits |= 2;
                }
                if same && !differ {
                    bits |= 4;
                }
                if (p || q) && !(p && q) {
                    bits |= 8;
                }
                if strict == (x != 0) {
                    bits |= 16;
                }
                o[idx] = bits;
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            let has_next = i + 1 < n;
            let rising = has_next && a[i + 1] > x;
            let edge = i == 0 || !has_next;
            let (p, q) = (x > 0, x % 2 == 0);
            let want = u32::from(rising)
                | u32::from(edge) << 1
                | u32::from(p == q) << 2
                | u32::from(p ^ q) << 3
                | u32::from(strict == (x != 0)) << 4;
            assert_eq!(out[i], want, "{what} element {i}");
        }
    }
}

/// Fixed-size local arrays: a sort of five values, a histogram with `+=`
/// on elements, a 3x3 array of arrays, a typed array of weights, and copy
/// semantics of `let b = a;`.
#[amp_test]
fn fixed_size_local_arrays() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(3900 + k as u64);
        let rows = 300;
        let a = i32s(&mut rng, rows * 5, -100, 100);
        let mut sorted = vec![POISON_I32; rows * 5];
        let mut hist = vec![POISON_U32; rows * 4];
        let mut misc = vec![POISON_I32; rows * 3];
        let mut weighted = vec![f32::NAN; rows];
        {
            let av = ArrayView::new([rows as i32, 5], &a).unwrap();
            let s = ArrayView::new_mut([rows as i32, 5], &mut sorted).unwrap();
            let h = ArrayView::new_mut([rows as i32, 4], &mut hist).unwrap();
            let m = ArrayView::new_mut([rows as i32, 3], &mut misc).unwrap();
            let w = ArrayView::new_mut([rows as i32], &mut weighted).unwrap();
            parallel_for_each!(view, w.extent(), |idx: Index<1>| {
                let r = idx[0];
                let mut v = [0; 5];
                for j in 0..5 {
                    v[j] = av[r][j];
                }
                // Bubble sort.
                for pass in 0..4 {
                    for j in 0..4 - pass {
                        if v[j] > v[j + 1] {
                            let t = v[j];
                            v[j] = v[j + 1];
                            v[j + 1] = t;
                        }
                    }
                }
                for j in 0..5 {
                    s[[r, j]] = v[j];
                }
                // Histogram of quartiles of [-100, 100).
                let mut bins = [0u32; 4];
                for j in 0..5 {
                    let b = (v[j] + 100) / 50;
                    bins[b] += 1;
                }
                for j in 0..4 {
                    h[r][j] = bins[j];
                }
                // A 3x3 matrix of arrays, its trace and a corner.
                let mut mat = [[0i32; 3]; 3];
                for p in 0..3 {
                    for q in 0..3 {
                        mat[p][q] = v[p] * 10 + v[q + 2];
                    }
                }
                let copy = mat;
                mat[0][0] = 999;
                m[[r, 0]] = copy[0][0] + copy[1][1] + copy[2][2];
                m[[r, 1]] = mat[0][0] + copy[2][0];
                let lit = [v[4], v[0], 7];
                m[[r, 2]] = lit[0] - lit[1] + lit[2];
                let weights: [f32; 3] = [0.25, 0.5, 0.25];
                let mut acc = 0.0;
                for j in 0..3 {
                    acc += weights[j] * v[j + 1] as f32;
                }
                w[idx] = acc;
            })
            .unwrap();
        }
        for r in 0..rows {
            let mut v: Vec<i32> = a[r * 5..r * 5 + 5].to_vec();
            v.sort();
            assert_eq!(&sorted[r * 5..r * 5 + 5], &v[..], "{what} row {r}");
            let mut bins = [0u32; 4];
            for x in &v {
                bins[((x + 100) / 50) as usize] += 1;
            }
            assert_eq!(&hist[r * 4..r * 4 + 4], &bins, "{what} histogram {r}");
            let mat = |p: usize, q: usize| v[p] * 10 + v[q + 2];
            assert_eq!(
                misc[r * 3],
                mat(0, 0) + mat(1, 1) + mat(2, 2),
                "{what} trace {r}"
            );
            assert_eq!(misc[r * 3 + 1], 999 + mat(2, 0), "{what} copy {r}");
            assert_eq!(misc[r * 3 + 2], v[4] - v[0] + 7, "{what} literal {r}");
            let want = 0.25 * v[1] as f32 + 0.5 * v[2] as f32 + 0.25 * v[3] as f32;
            assert!(
                close32(weighted[r], want, F32_BASIC, 1e-6),
                "{what} weights {r}"
            );
        }
    }
}

/// A `let` without an initialiser, assigned on every path; `u32` loop
/// counters; a loop whose bound is a captured scalar.
#[amp_test]
fn deferred_initialisation_and_u32_loops() {
    for (k, (view, what)) in default_views().into_iter().enumerate() {
        let mut rng = Rng::new(4000 + k as u64);
        let n = 256;
        let a = any_u32s(&mut rng, n);
        let rounds: u32 = 7;
        let mut out = vec![POISON_U32; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, av.extent(), |idx: Index<1>| {
                let x = av[idx];
                let mixed;
                if x % 3 == 0 {
                    mixed = x ^ 0xA5A5_A5A5;
                } else if x % 3 == 1 {
                    mixed = x.reverse_bits();
                } else {
                    mixed = !x;
                }
                let mut h = mixed;
                for r in 0u32..rounds {
                    h = (h ^ (h >> 15)) * 0x2c1b_3c6d + r;
                }
                o[idx] = h;
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            let mixed = match x % 3 {
                0 => x ^ 0xA5A5_A5A5,
                1 => x.reverse_bits(),
                _ => !x,
            };
            let mut h = mixed;
            for r in 0..rounds {
                h = (h ^ (h >> 15)).wrapping_mul(0x2c1b_3c6d).wrapping_add(r);
            }
            assert_eq!(out[i], h, "{what} {x}");
        }
    }
}

/// Locals and captures named like WGSL built-in functions (`select`,
/// `clamp`, `min`, `trunc`, ...), which the generated code itself calls.
#[amp_test]
fn locals_named_like_wgsl_builtins() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(4100 + k as u64);
        let n = 300;
        let a = i32s(&mut rng, n, -1000, 1000);
        let b = f32s(&mut rng, n, -100.0, 100.0);
        let mut max = vec![POISON_I32; n];
        let mut out_f = vec![f32::NAN; n];
        {
            let select = ArrayView::new([n as i32], &a).unwrap();
            let sqrt = ArrayView::new([n as i32], &b).unwrap();
            let max = ArrayView::new_mut([n as i32], &mut max).unwrap();
            let clamp = ArrayView::new_mut([n as i32], &mut out_f).unwrap();
            parallel_for_each!(view, max.extent(), |idx: Index<1>| {
                let min = select[idx];
                let trunc = min / 7;
                let abs = min % 5;
                let bitcast = sqrt[idx];
                let fma = bitcast as i32;
                let sign = (bitcast * 0.5).floor();
                max[idx] = trunc + abs + fma;
                clamp[idx] = sign;
            })
            .unwrap();
        }
        for i in 0..n {
            let x = a[i];
            assert_eq!(max[i], x / 7 + x % 5 + b[i] as i32, "{what} {x}");
            assert_eq!(out_f[i], (b[i] * 0.5).floor(), "{what} {}", b[i]);
        }
    }
}
