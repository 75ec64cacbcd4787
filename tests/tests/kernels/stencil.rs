//! Stencil and reduction-by-loop kernels (C++ AMP spec ch. 7 kernels over
//! rank-1, -2 and -3 views): 1-D and 2-D blurs with clamped borders, a
//! 5-point Laplacian built with `Index` arithmetic, a 7-point 3-D stencil,
//! row sums, per-row dot products, per-element prefix sums, a transpose,
//! matrix multiplication over `Array`s, kernels over sections (views with
//! an offset and strides), and Jacobi iterations that ping-pong between two
//! views for many launches.
//!
//! Every kernel runs on every accelerator and is compared with the same
//! loops in plain Rust; outputs are poisoned first.

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_tests::Rng;
use amp_tests::amp_test;

/// A 3-tap 1-D blur; the borders clamp the neighbour index.
#[amp_test]
fn blur_1d_clamped() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6000 + k as u64);
        let n = 5000;
        let a = f32s(&mut rng, n, -10.0, 10.0);
        let last = n as i32 - 1;
        let mut out = vec![f32::NAN; n];
        {
            let av = ArrayView::new([n as i32], &a).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            o.discard_data();
            parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                let i = idx[0];
                let l = if i > 0 { i - 1 } else { 0 };
                let r = (i + 1).min(last);
                o[idx] = 0.25 * av[l] + 0.5 * av[i] + 0.25 * av[r];
            })
            .unwrap();
        }
        let want: Vec<f32> = (0..n)
            .map(|i| 0.25 * a[i.saturating_sub(1)] + 0.5 * a[i] + 0.25 * a[(i + 1).min(n - 1)])
            .collect();
        assert_close32(&out, &want, F32_BASIC, 1e-6, &what);
    }
}

/// A 3x3 box blur on a 2-D view, clamped at the borders, reading with both
/// `a[[y, x]]` and `a[y][x]`.
#[amp_test]
fn blur_2d_box_clamped() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6100 + k as u64);
        let (h, w) = (67usize, 93usize);
        let a = f32s(&mut rng, h * w, 0.0, 255.0);
        let mut out = vec![f32::NAN; h * w];
        {
            let av = ArrayView::new([h as i32, w as i32], &a).unwrap();
            let o = ArrayView::new_mut([h as i32, w as i32], &mut out).unwrap();
            let (hh, ww) = (h as i32, w as i32);
            parallel_for_each!(view, o.extent(), |idx: Index<2>| {
                let mut sum = 0.0;
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let y = (idx[0] + dy).clamp(0, hh - 1);
                        let x = (idx[1] + dx).clamp(0, ww - 1);
                        if dx == 0 {
                            sum += av[[y, x]];
                        } else {
                            sum += av[y][x];
                        }
                    }
                }
                o[idx] = sum / 9.0;
            })
            .unwrap();
        }
        for y in 0..h as i32 {
            for x in 0..w as i32 {
                let mut sum = 0.0f32;
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let yy = (y + dy).clamp(0, h as i32 - 1) as usize;
                        let xx = (x + dx).clamp(0, w as i32 - 1) as usize;
                        sum += a[yy * w + xx];
                    }
                }
                let got = out[y as usize * w + x as usize];
                assert!(
                    close32(got, sum / 9.0, F32_BASIC, 1e-4),
                    "{what} ({y}, {x}): {got} vs {}",
                    sum / 9.0
                );
            }
        }
    }
}

/// The 5-point Laplacian with `idx ± Index::new([..])`; the border copies
/// the input.
#[amp_test]
fn laplacian_5_point() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6200 + k as u64);
        let (h, w) = (40usize, 57usize);
        let a = i32s(&mut rng, h * w, -1000, 1000);
        let mut out = vec![POISON_I32; h * w];
        {
            let av = ArrayView::new([h as i32, w as i32], &a).unwrap();
            let o = ArrayView::new_mut([h as i32, w as i32], &mut out).unwrap();
            let e = av.extent();
            let (hh, ww) = (e[0], e[1]);
            parallel_for_each!(view, e, |idx: Index<2>| {
                let y = idx[0];
                let x = idx[1];
                if y == 0 || x == 0 || y == hh - 1 || x == ww - 1 {
                    o[idx] = av[idx];
                    return;
                }
                let up = idx - Index::new([1, 0]);
                let down = idx + Index::new([1, 0]);
                let left: Index<2> = Index::new([y, x - 1]);
                let right = idx + Index::new([0, 1]);
                o[idx] = av[up] + av[down] + av[left] + av[right] - 4 * av[idx];
            })
            .unwrap();
        }
        let at = |y: usize, x: usize| a[y * w + x];
        for y in 0..h {
            for x in 0..w {
                let want = if y == 0 || x == 0 || y == h - 1 || x == w - 1 {
                    at(y, x)
                } else {
                    at(y - 1, x) + at(y + 1, x) + at(y, x - 1) + at(y, x + 1) - 4 * at(y, x)
                };
                assert_eq!(out[y * w + x], want, "{what} ({y}, {x})");
            }
        }
    }
}

/// A 7-point stencil on a rank-3 view with clamped neighbours.
#[amp_test]
fn stencil_3d_7_point() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6300 + k as u64);
        let (d, h, w) = (9usize, 13usize, 17usize);
        let a = i32s(&mut rng, d * h * w, -500, 500);
        let mut out = vec![POISON_I32; d * h * w];
        {
            let av = ArrayView::new([d as i32, h as i32, w as i32], &a).unwrap();
            let o = ArrayView::new_mut([d as i32, h as i32, w as i32], &mut out).unwrap();
            let e = av.extent();
            let (ed, eh, ew) = (e[0], e[1], e[2]);
            parallel_for_each!(view, e, |p: Index<3>| {
                let z = p[0];
                let y = p[1];
                let x = p[2];
                let zm = (z - 1).max(0);
                let zp = (z + 1).min(ed - 1);
                let ym = (y - 1).max(0);
                let yp = (y + 1).min(eh - 1);
                let xm = (x - 1).max(0);
                let xp = (x + 1).min(ew - 1);
                o[p] = 6 * av[z][y][x]
                    - av[zm][y][x]
                    - av[zp][y][x]
                    - av[z][ym][x]
                    - av[z][yp][x]
                    - av[[z, y, xm]]
                    - av[[z, y, xp]];
            })
            .unwrap();
        }
        let at = |z: usize, y: usize, x: usize| a[(z * h + y) * w + x];
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let want = 6 * at(z, y, x)
                        - at(z.saturating_sub(1), y, x)
                        - at((z + 1).min(d - 1), y, x)
                        - at(z, y.saturating_sub(1), x)
                        - at(z, (y + 1).min(h - 1), x)
                        - at(z, y, x.saturating_sub(1))
                        - at(z, y, (x + 1).min(w - 1));
                    assert_eq!(out[(z * h + y) * w + x], want, "{what} ({z}, {y}, {x})");
                }
            }
        }
    }
}

/// Row sums: one work item per row loops over the columns.
#[amp_test]
fn row_sums() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6400 + k as u64);
        let (rows, cols) = (333usize, 129usize);
        let a = f32s(&mut rng, rows * cols, -1.0, 1.0);
        let ints = i32s(&mut rng, rows * cols, -100_000, 100_000);
        let mut sums = vec![f32::NAN; rows];
        let mut isums = vec![POISON_I32; rows];
        {
            let av = ArrayView::new([rows as i32, cols as i32], &a).unwrap();
            let iv = ArrayView::new([rows as i32, cols as i32], &ints).unwrap();
            let s = ArrayView::new_mut([rows as i32], &mut sums).unwrap();
            let si = ArrayView::new_mut([rows as i32], &mut isums).unwrap();
            si.discard_data();
            let ncols = cols as i32;
            parallel_for_each!(view, s.extent(), |idx: Index<1>| {
                let r = idx[0];
                let mut acc = 0.0;
                let mut iacc = 0;
                for c in 0..ncols {
                    acc += av[r][c];
                    iacc += iv[[r, c]];
                }
                s[idx] = acc;
                si[idx] = iacc;
            })
            .unwrap();
        }
        for r in 0..rows {
            let want: f32 = a[r * cols..(r + 1) * cols].iter().fold(0.0, |s, v| s + v);
            assert!(
                close32(sums[r], want, F32_BASIC, 1e-5),
                "{what} row {r}: {} vs {want}",
                sums[r]
            );
            let iwant = ints[r * cols..(r + 1) * cols]
                .iter()
                .fold(0i32, |s, v| s.wrapping_add(*v));
            assert_eq!(isums[r], iwant, "{what} int row {r}");
        }
    }
}

/// A dot product per row: a matrix-vector product.
#[amp_test]
fn dot_product_per_row() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6500 + k as u64);
        let (rows, cols) = (200usize, 301usize);
        let m = f32s(&mut rng, rows * cols, -1.0, 1.0);
        let x = f32s(&mut rng, cols, -1.0, 1.0);
        let mut y = vec![f32::NAN; rows];
        {
            let mv = ArrayView::new([rows as i32, cols as i32], &m).unwrap();
            let xv = ArrayView::new([cols as i32], &x).unwrap();
            let yv = ArrayView::new_mut([rows as i32], &mut y).unwrap();
            let ncols = xv.extent()[0];
            parallel_for_each!(view, yv.extent(), |idx: Index<1>| {
                let mut dot = 0.0f32;
                let mut c = 0;
                while c < ncols {
                    dot = mv[idx[0]][c].mul_add(xv[c], dot);
                    c += 1;
                }
                yv[idx] = dot;
            })
            .unwrap();
        }
        for r in 0..rows {
            let want: f32 = (0..cols).map(|c| m[r * cols + c] * x[c]).sum();
            assert!(
                close32(y[r], want, 1e-4, 1e-4),
                "{what} row {r}: {} vs {want}",
                y[r]
            );
        }
    }
}

/// Inclusive prefix sums: element `(r, c)` sums row `r` up to `c`.
#[amp_test]
fn prefix_sums_per_element() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6600 + k as u64);
        let (rows, cols) = (50usize, 200usize);
        let a = i32s(&mut rng, rows * cols, -1000, 1000);
        let mut out = vec![POISON_I32; rows * cols];
        {
            let av = ArrayView::new([rows as i32, cols as i32], &a).unwrap();
            let o = ArrayView::new_mut([rows as i32, cols as i32], &mut out).unwrap();
            parallel_for_each!(view, o.extent(), |idx: Index<2>| {
                let mut s = 0;
                for c in 0..=idx[1] {
                    s += av[idx[0]][c];
                }
                o[idx] = s;
            })
            .unwrap();
        }
        for r in 0..rows {
            let mut s = 0;
            for c in 0..cols {
                s += a[r * cols + c];
                assert_eq!(out[r * cols + c], s, "{what} ({r}, {c})");
            }
        }
    }
}

/// A transpose: `o[[j, i]] = a[[i, j]]` over the input's domain.
#[amp_test]
fn transpose() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6700 + k as u64);
        let (rows, cols) = (31usize, 77usize);
        let a = any_u32s(&mut rng, rows * cols);
        let mut out = vec![POISON_U32; rows * cols];
        {
            let av = ArrayView::new([rows as i32, cols as i32], &a).unwrap();
            let o = ArrayView::new_mut([cols as i32, rows as i32], &mut out).unwrap();
            o.discard_data();
            parallel_for_each!(view, av.extent(), |idx: Index<2>| {
                let t = Index::new([idx[1], idx[0]]);
                o[t] = av[idx];
            })
            .unwrap();
        }
        for r in 0..rows {
            for c in 0..cols {
                assert_eq!(out[c * rows + r], a[r * cols + c], "{what} ({r}, {c})");
            }
        }
    }
}

/// Matrix multiplication over `Array`s: the launch goes to the arrays'
/// view (the macro names none).
#[amp_test]
fn matmul_arrays() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6800 + k as u64);
        let (m, kk, n) = (37usize, 23usize, 41usize);
        let va = f32s(&mut rng, m * kk, -2.0, 2.0);
        let vb = f32s(&mut rng, kk * n, -2.0, 2.0);
        let a = Array::from_slice([m as i32, kk as i32], &va, &view).unwrap();
        let b = Array::from_slice([kk as i32, n as i32], &vb, &view).unwrap();
        let c = Array::<f32, 2>::new([m as i32, n as i32], &view).unwrap();
        let inner = kk as i32;
        parallel_for_each!(c.extent(), |idx: Index<2>| {
            let row = idx[0];
            let col = idx[1];
            let mut sum = 0.0;
            for i in 0..inner {
                sum += a[[row, i]] * b[[i, col]];
            }
            c[idx] = sum;
        })
        .unwrap();
        let got = c.to_vec().unwrap();
        for r in 0..m {
            for col in 0..n {
                let want: f32 = (0..kk).map(|i| va[r * kk + i] * vb[i * n + col]).sum();
                let g = got[r * n + col];
                assert!(
                    close32(g, want, 1e-4, 1e-4),
                    "{what} ({r}, {col}): {g} vs {want}"
                );
            }
        }
    }
}

/// Kernels over sections: the captured views start at an offset and (in
/// 2-D) have a row stride wider than their extent; elements outside the
/// written section keep their values.
#[amp_test]
fn kernels_over_sections() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(6900 + k as u64);
        let (h, w) = (30usize, 40usize);
        let a = i32s(&mut rng, h * w, -1000, 1000);
        let mut out = vec![POISON_I32; h * w];
        {
            let full = ArrayView::new([h as i32, w as i32], &a).unwrap();
            let src = full.section([3, 5], [20, 25]).unwrap();
            let dst_full = ArrayView::new_mut([h as i32, w as i32], &mut out).unwrap();
            let dst = dst_full.section([7, 11], [20, 25]).unwrap();
            let row = full.project(2).unwrap().section([4], [25]).unwrap();
            parallel_for_each!(view, dst.extent(), |idx: Index<2>| {
                dst[idx] = src[idx] * 2 + row[idx[1]];
            })
            .unwrap();
            dst.synchronize().unwrap();
        }
        for y in 0..h {
            for x in 0..w {
                let inside = (7..27).contains(&y) && (11..36).contains(&x);
                let want = if inside {
                    let (sy, sx) = (y - 7, x - 11);
                    a[(sy + 3) * w + sx + 5] * 2 + a[2 * w + 4 + sx]
                } else {
                    POISON_I32
                };
                assert_eq!(out[y * w + x], want, "{what} ({y}, {x})");
            }
        }
    }
}

/// Jacobi relaxation of a 1-D heat equation: 40 launches ping-ponging
/// between two views, with fixed boundary values.
#[amp_test]
fn jacobi_iterations() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(7000 + k as u64);
        let n = 300;
        let init = f32s(&mut rng, n, 0.0, 1.0);
        let mut u = init.clone();
        let mut v = vec![f32::NAN; n];
        let last = n as i32 - 1;
        {
            let uv = ArrayView::new_mut([n as i32], &mut u).unwrap();
            let vv = ArrayView::new_mut([n as i32], &mut v).unwrap();
            vv.discard_data();
            for step in 0..40 {
                let (from, to) = if step % 2 == 0 {
                    (&uv, &vv)
                } else {
                    (&vv, &uv)
                };
                parallel_for_each!(view, to.extent(), |idx: Index<1>| {
                    let i = idx[0];
                    if i == 0 || i == last {
                        to[idx] = from[idx];
                    } else {
                        to[idx] = 0.5 * from[i] + 0.25 * (from[i - 1] + from[i + 1]);
                    }
                })
                .unwrap();
            }
            uv.synchronize().unwrap();
        }
        let mut want = init.clone();
        for _ in 0..40 {
            let prev = want.clone();
            for i in 1..n - 1 {
                want[i] = 0.5 * prev[i] + 0.25 * (prev[i - 1] + prev[i + 1]);
            }
        }
        assert_close32(&u, &want, 1e-4, 1e-5, &what);
    }
}

/// A read-only view made from a read-write one (C++ AMP's
/// `array_view<const T, N>(array_view<T, N>)`) shares its coherence: a
/// kernel reads through it what another kernel wrote through the writable
/// view (no host round trip), a host `set` is seen by its `get`, and
/// `view[idx]` on it panics with a message naming `get` (it cannot hand out
/// a `&T` into memory a writer may change).
#[amp_test]
fn read_only_views_of_writable_views_share_coherence() {
    let mut rng = Rng::new(0xA5_0001);
    for (view, what) in all_views() {
        let n = rng.range(1, 3000);
        let xs: Vec<i32> = (0..n).map(|_| rng.range(-100_000, 100_000)).collect();
        let mut data = vec![POISON_I32; n as usize];
        let mut out = vec![POISON_I32; n as usize];
        {
            let x = ArrayView::new([n], &xs).unwrap();
            let rw = ArrayView::new_mut([n], &mut data).unwrap();
            let ro = rw.as_read_only();
            let o = ArrayView::new_mut([n], &mut out).unwrap();
            rw.discard_data();
            o.discard_data();
            parallel_for_each!(&view, rw.extent(), |i: Index<1>| {
                rw[i] = x[i] * 3;
            })
            .unwrap();
            parallel_for_each!(&view, o.extent(), |i: Index<1>| {
                o[i] = ro[i] - ro[[(i[0] + 1) % ro.extent()[0]]];
            })
            .unwrap();
            rw.set([0], 42).unwrap();
            assert_eq!(ro.get([0]).unwrap(), 42, "{what}");
            let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ro[[0]]))
                .expect_err("indexing a read-only view of writable data");
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            assert!(message.contains("get(idx)"), "{what}: {message}");
        }
        for i in 0..n as usize {
            let next = (i + 1) % n as usize;
            assert_eq!(out[i], xs[i] * 3 - xs[next] * 3, "{what}: element {i}");
        }
        assert_eq!(data[0], 42, "{what}");
        for i in 1..n as usize {
            assert_eq!(data[i], xs[i] * 3, "{what}: element {i}");
        }
    }
}
