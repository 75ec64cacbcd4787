//! Views made inside kernels (C++ AMP's `array_view::section` in
//! `restrict(amp)` code): `let s = a.section(origin, extent);` and
//! `a.section_from(origin)` of a captured view or of another section, read
//! and written element by element, with `s.extent()`; on every
//! accelerator against plain Rust on random inputs and random origins.

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_tests::Rng;
use amp_tests::amp_test;

#[amp_test]
fn sections_made_inside_kernels_read_their_part_of_the_view() {
    let (rows, cols) = (24usize, 40usize);
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(12_000 + k as u64);
        let data = i32s(&mut rng, rows * cols, -1000, 1000);
        let (r0, c0) = (rng.range(0, 16), rng.range(0, 24));
        let mut out = vec![POISON_I32; 8 * 16];
        {
            let a = ArrayView::new([rows as i32, cols as i32], &data).unwrap();
            let o = ArrayView::new_mut([8, 16], &mut out).unwrap();
            parallel_for_each!(&view, o.extent(), |idx: Index<2>| {
                let s = a.section([r0, c0], [8, 16]);
                // A section of the section, to its end: 7 x 14.
                let inner = s.section_from([1, 2]);
                let e = inner.extent();
                let mut v = s[idx] * 2;
                if idx[0] < e[0] && idx[1] < e[1] {
                    v += inner[idx];
                }
                // One row of it, indexed by two components.
                let row = s.section([idx[0], 0], [1, 16]);
                v += row[[0, 15]] + row[0][idx[1]];
                o[idx] = v + e[0] * 100 + e[1];
            })
            .unwrap();
        }
        let at = |r: usize, c: usize| data[r * cols + c];
        let (r0, c0) = (r0 as usize, c0 as usize);
        let mut want = vec![0; 8 * 16];
        for i in 0..8 {
            for j in 0..16 {
                let mut v = at(r0 + i, c0 + j) * 2;
                if i < 7 && j < 14 {
                    v += at(r0 + 1 + i, c0 + 2 + j);
                }
                v += at(r0 + i, c0 + 15) + at(r0 + i, c0 + j);
                want[i * 16 + j] = v + 7 * 100 + 14;
            }
        }
        assert_same(&out, &want, &format!("{what} origin ({r0}, {c0})"));
    }
}

#[amp_test]
fn sections_made_inside_kernels_are_written_through() {
    let n = 300usize;
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(12_100 + k as u64);
        let src = i32s(&mut rng, n, -1000, 1000);
        let off = rng.range(0, 100);
        let mut out = vec![POISON_I32; n];
        {
            let s = ArrayView::new([n as i32], &src).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            // Every element once: the window [off, off + 200) doubled,
            // written through a rank-1 section indexed by an `i32`; the
            // rest copied.
            parallel_for_each!(&view, o.extent(), |idx: Index<1>| {
                let i = idx[0];
                let window = o.section([off], [200]);
                if i >= off && i < off + window.extent()[0] {
                    window[i - off] = s[idx] * 2;
                } else {
                    o[idx] = s[idx];
                }
            })
            .unwrap();
        }
        let off = off as usize;
        let want: Vec<i32> = (0..n)
            .map(|i| {
                if (off..off + 200).contains(&i) {
                    src[i] * 2
                } else {
                    src[i]
                }
            })
            .collect();
        assert_same(&out, &want, &format!("{what} window at {off}"));
    }
}

/// Projections made inside kernels (C++ AMP's `a[i]` of a view in
/// `restrict(amp)` code): `let row = a.project(i);` of a rank-3 view, of a
/// projection and of a section, read by one and by two components, with
/// `row.extent()[k]`.
#[amp_test]
fn projections_made_inside_kernels_read_their_row() {
    let (d0, d1, d2) = (5usize, 7usize, 9usize);
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(12_200 + k as u64);
        let data = i32s(&mut rng, d0 * d1 * d2, -1000, 1000);
        let plane = rng.range(0, d0 as i32);
        let (r0, c0) = (rng.range(0, 3), rng.range(0, 4));
        let mut out = vec![POISON_I32; d1 * d2];
        {
            let a = ArrayView::new([d0 as i32, d1 as i32, d2 as i32], &data).unwrap();
            let o = ArrayView::new_mut([d1 as i32, d2 as i32], &mut out).unwrap();
            parallel_for_each!(&view, o.extent(), |idx: Index<2>| {
                let (i, j) = (idx[0], idx[1]);
                // Rank 3 -> 2 -> 1.
                let p = a.project(plane);
                let row = p.project(i);
                let mut v = p[[i, j]] + row[j] * 2 + p[i][j] * 4;
                v += p.extent()[0] * 1000 + p.extent()[1] * 100 + row.extent()[0] * 10;
                // A projection of a section of the plane (4 x 5 from (r0, c0)).
                let s = a.section([plane, r0, c0], [1, 4, 5]);
                let sp = s.project(0);
                if i < 4 && j < 5 {
                    let srow = sp.project(i);
                    v += srow[j] * 8 + srow.extent()[0] * 100_000;
                }
                o[idx] = v;
            })
            .unwrap();
        }
        let at = |x: usize, y: usize, z: usize| data[(x * d1 + y) * d2 + z];
        let (p, r0, c0) = (plane as usize, r0 as usize, c0 as usize);
        let mut want = vec![0; d1 * d2];
        for i in 0..d1 {
            for j in 0..d2 {
                let mut v = at(p, i, j) * 7 + (d1 * 1000 + d2 * 100 + d2 * 10) as i32;
                if i < 4 && j < 5 {
                    v += at(p, r0 + i, c0 + j) * 8 + 5 * 100_000;
                }
                want[i * d2 + j] = v;
            }
        }
        assert_same(&out, &want, &format!("{what} plane {plane}, ({r0}, {c0})"));
    }
}

/// A projection made inside a kernel is written through: each work item
/// writes its row of the output through `o.project(i)`.
#[amp_test]
fn projections_made_inside_kernels_are_written_through() {
    let (rows, cols) = (33usize, 17usize);
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(12_300 + k as u64);
        let src = i32s(&mut rng, rows * cols, -1000, 1000);
        let mut out = vec![POISON_I32; rows * cols];
        {
            let s = ArrayView::new([rows as i32, cols as i32], &src).unwrap();
            let o = ArrayView::new_mut([rows as i32, cols as i32], &mut out).unwrap();
            parallel_for_each!(&view, Extent::new([rows as i32]), |idx: Index<1>| {
                let i = idx[0];
                let row = o.project(i);
                let from = s.project(i);
                for j in 0..row.extent()[0] {
                    row[j] = from[j] - j;
                }
            })
            .unwrap();
        }
        let want: Vec<i32> = (0..rows * cols)
            .map(|w| src[w] - (w % cols) as i32)
            .collect();
        assert_same(&out, &want, &what);
    }
}

/// Views of another shape made inside kernels (C++ AMP's `view_as` in
/// `restrict(amp)` code): a rank-1 view read as rows x cols, a rank-2 view
/// read flat, and a section reshaped, on every accelerator against plain
/// Rust; each work item also writes through a reshaped output.
#[amp_test]
fn views_reshaped_inside_kernels_read_and_write_row_major() {
    let (rows, cols) = (12usize, 10usize);
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(12_400 + k as u64);
        let flat = i32s(&mut rng, rows * cols, -1000, 1000);
        let grid = i32s(&mut rng, rows * cols, -1000, 1000);
        let (r0, c0) = (rng.range(0, 6), rng.range(0, 4));
        let mut out = vec![POISON_I32; rows * cols];
        {
            let f = ArrayView::new([(rows * cols) as i32], &flat).unwrap();
            let g = ArrayView::new([rows as i32, cols as i32], &grid).unwrap();
            let o = ArrayView::new_mut([(rows * cols) as i32], &mut out).unwrap();
            let (r, c) = (rows as i32, cols as i32);
            parallel_for_each!(&view, Extent::new([r, c]), |idx: Index<2>| {
                let m = f.view_as([r, c]);
                let line = g.view_as([r * c]);
                let e = m.extent();
                let mut v = m[idx] + m[idx[0]][idx[1]] * 2;
                v += line[idx[0] * c + idx[1]] * 4 + e[0] * 10_000 + e[1] * 1000;
                // A 6 x 6 section of the grid, read as 4 x 9.
                let s = g.section([r0, c0], [6, 6]);
                let s49 = s.view_as([4, 9]);
                if idx[0] < 4 && idx[1] < 9 {
                    v += s49[[idx[0], idx[1]]] * 8;
                }
                let out2 = o.view_as([r, c]);
                out2[idx] = v;
            })
            .unwrap();
        }
        let (r0, c0) = (r0 as usize, c0 as usize);
        let mut want = vec![0; rows * cols];
        for i in 0..rows {
            for j in 0..cols {
                let mut v = flat[i * cols + j] * 3
                    + grid[i * cols + j] * 4
                    + (rows * 10_000 + cols * 1000) as i32;
                if i < 4 && j < 9 {
                    let p = i * 9 + j;
                    v += grid[(r0 + p / 6) * cols + c0 + p % 6] * 8;
                }
                want[i * cols + j] = v;
            }
        }
        assert_same(&out, &want, &format!("{what} section at ({r0}, {c0})"));
    }
}

/// An index outside a reshaped view's extent fails the kernel on the CPU
/// accelerator, as any out-of-bounds access does there (`m[[0, 10]]` of a
/// 10 x 10 view is not silently element 10), and changes no data.
#[amp_test(cpu)]
fn an_index_outside_a_reshaped_view_fails_on_the_cpu() {
    for (view, what) in views(QueuingMode::Immediate) {
        let src: Vec<i32> = (0..100).collect();
        let before = vec![POISON_I32; 10];
        let mut out = before.clone();
        {
            let s = ArrayView::new([100], &src).unwrap();
            let o = ArrayView::new_mut([10], &mut out).unwrap();
            let result = parallel_for_each!(&view, o.extent(), |idx: Index<1>| {
                let m = s.view_as([10, 10]);
                o[idx] = m[[0, idx[0] + 1]];
            })
            .and_then(|()| o.synchronize());
            let err = result.expect_err("m[[0, 10]] is outside the 10 x 10 view");
            assert!(err.to_string().contains("out of bounds"), "{what}: {err}");
        }
        assert_eq!(out, before, "{what}");
    }
}

/// Views made inside kernels without a `let`: `a.section(o, e)[idx]`,
/// `a.section_from(o)[[i, j]]`, `a.project(i)[j]` and `a.view_as(e)[idx]`
/// read, and `o.project(i)[j] = ..` writes, as the `let` forms do.
#[amp_test]
fn views_made_inline_read_and_write_like_their_let_forms() {
    let (rows, cols) = (9usize, 11usize);
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(12_500 + k as u64);
        let data = i32s(&mut rng, rows * cols, -1000, 1000);
        let (r0, c0) = (rng.range(0, 4), rng.range(0, 5));
        let mut out = vec![POISON_I32; 4 * 6];
        {
            let a = ArrayView::new([rows as i32, cols as i32], &data).unwrap();
            let o = ArrayView::new_mut([4, 6], &mut out).unwrap();
            let n = (rows * cols) as i32;
            parallel_for_each!(&view, Extent::new([4, 6]), |idx: Index<2>| {
                let (i, j) = (idx[0], idx[1]);
                let v = a.section([r0, c0], [4, 6])[idx]
                    + a.section_from([r0, c0])[[i, j]] * 2
                    + a.project(r0 + i)[c0 + j] * 4
                    + a.view_as([n])[(r0 + i) * 11 + c0 + j] * 8;
                o.project(i)[j] = v;
            })
            .unwrap();
        }
        let mut want = vec![0; 4 * 6];
        for i in 0..4 {
            for j in 0..6 {
                want[i * 6 + j] = data[(r0 as usize + i) * cols + c0 as usize + j] * 15;
            }
        }
        assert_same(&out, &want, &format!("{what} origin ({r0}, {c0})"));
    }
}

/// Chains of views made where they are used, without `let`s, and views of
/// views made by a `let` indexed where they are made: sections of
/// sections, projections of sections and of projections, a reshaped
/// section, a section's extent; read and written, against plain Rust on
/// random origins.
#[amp_test]
fn chains_of_views_made_inline() {
    let (d0, d1, d2) = (5usize, 9usize, 11usize);
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(12_600 + k as u64);
        let data = i32s(&mut rng, d0 * d1 * d2, -1000, 1000);
        let (p, r0, c0) = (rng.range(0, 5), rng.range(0, 4), rng.range(0, 4));
        let (r1, c1) = (rng.range(0, 2), rng.range(0, 2));
        let mut out = vec![POISON_I32; 3 * 5];
        let mut copy = data.clone();
        {
            let a = ArrayView::new([d0 as i32, d1 as i32, d2 as i32], &data).unwrap();
            let w = ArrayView::new_mut([d0 as i32, d1 as i32, d2 as i32], &mut copy).unwrap();
            let o = ArrayView::new_mut([3, 5], &mut out).unwrap();
            parallel_for_each!(&view, Extent::new([3, 5]), |idx: Index<2>| {
                let (i, j) = (idx[0], idx[1]);
                let s = a.project(p).section([r0, c0], [5, 7]);
                let v = a.project(p).project(r0 + r1 + i)[c0 + c1 + j]
                    + a.project(p)
                        .section([r0, c0], [5, 7])
                        .section([r1, c1], [3, 5])[i][j]
                        * 2
                    + s.project(r1 + i)[c1 + j] * 4
                    + s.section([r1, c1], [3, 5]).view_as([15])[i * 5 + j] * 8
                    + a.project(p).section([r0, c0], [5, 7]).extent()[1] * 16;
                o.section_from([0, 0]).project(i)[[j]] = v;
                w.project(p).section([r0 + r1, c0 + c1], [3, 5]).project(i)[j] = -v;
            })
            .unwrap();
        }
        let at = |r: usize, c: usize| data[(p as usize * d1 + r) * d2 + c];
        let mut want = vec![0; 3 * 5];
        let mut want_copy = data.clone();
        for i in 0..3 {
            for j in 0..5 {
                let (r, c) = ((r0 + r1) as usize + i, (c0 + c1) as usize + j);
                want[i * 5 + j] = at(r, c) * 15 + 7 * 16;
                want_copy[(p as usize * d1 + r) * d2 + c] = -want[i * 5 + j];
            }
        }
        let case = format!("{what} p {p} origin ({r0}, {c0}) + ({r1}, {c1})");
        assert_same(&out, &want, &case);
        assert_same(&copy, &want_copy, &case);
    }
}

/// Views reinterpreted inside kernels as types of another size, counted in
/// 32-bit words over the view's elements in row-major order: a section of
/// a rank-2 `Float4` view read as `f32` and as `UInt2`, an `f32` view read
/// as `Float4` (with and without a `let`), and a `u32` view written as
/// `Int4` and a `Float4` view written as `u32`; bit-exact against plain
/// Rust on random inputs.
#[amp_test]
fn views_reinterpreted_as_other_sizes_inside_kernels() {
    let (rows, cols) = (6usize, 7usize);
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(12_700 + k as u64);
        let mut f = || rng.range(-100_000, 100_000) as f32 / 64.0;
        let vecs: Vec<Float4> = (0..rows * cols)
            .map(|_| Float4::new(f(), f(), f(), f()))
            .collect();
        let flat: Vec<f32> = (0..4 * 20).map(|_| f()).collect();
        let (r0, c0) = (rng.range(0, 3), rng.range(0, 3));
        let (h, w) = (3usize, 4usize); // the section
        let n = h * w * 4; // its words
        let mut as_f32 = vec![f32::NAN; n];
        let mut as_pairs = vec![UInt2::splat(0xDEAD); n / 2];
        let mut as_vec = vec![Float4::splat(f32::NAN); 20];
        let mut as_vec_inline = vec![Float4::splat(f32::NAN); 20];
        let mut words = vec![0u32; 4 * 20];
        let mut written = vec![Float4::splat(f32::NAN); 20];
        {
            let a = ArrayView::new([rows as i32, cols as i32], &vecs).unwrap();
            let s = a.section([r0, c0], [h as i32, w as i32]).unwrap();
            let fl = ArrayView::new([4 * 20], &flat).unwrap();
            let o1 = ArrayView::new_mut([n as i32], &mut as_f32).unwrap();
            let o2 = ArrayView::new_mut([n as i32 / 2], &mut as_pairs).unwrap();
            let o3 = ArrayView::new_mut([20], &mut as_vec).unwrap();
            let o4 = ArrayView::new_mut([20], &mut as_vec_inline).unwrap();
            let o5 = ArrayView::new_mut([4 * 20], &mut words).unwrap();
            let o6 = ArrayView::new_mut([20], &mut written).unwrap();
            parallel_for_each!(&view, Extent::new([n as i32]), |i: Index<1>| {
                let k = i[0];
                let sf = s.reinterpret_as::<f32>();
                o1[k] = sf[k];
                if k % 2 == 0 {
                    let sp = s.reinterpret_as::<UInt2>();
                    o2[k / 2] = sp[k / 2];
                }
                if k < 20 {
                    let v = fl.reinterpret_as::<Float4>();
                    o3[k] = v[k];
                    o4[k] = fl.reinterpret_as::<Float4>()[k] * 2.0;
                    let ow = o5.reinterpret_as::<Int4>();
                    ow[k] = Int4::new(k, -k, k * 3, 7);
                    let wf = o6.reinterpret_as::<u32>();
                    wf[4 * k] = (fl[4 * k] * 2.0).to_bits();
                    wf[4 * k + 1] = (k as f32).to_bits();
                    wf[4 * k + 2] = 0x7fc0_0001u32;
                    wf[4 * k + 3] = fl[4 * k + 3].to_bits();
                }
            })
            .unwrap();
        }
        let section_words: Vec<u32> = (0..h)
            .flat_map(|r| (0..w).map(move |c| (r, c)))
            .flat_map(|(r, c)| {
                let v = vecs[(r0 as usize + r) * cols + c0 as usize + c];
                [v.x, v.y, v.z, v.w]
            })
            .map(f32::to_bits)
            .collect();
        let case = format!("{what} section at ({r0}, {c0})");
        let got: Vec<u32> = as_f32.iter().map(|x| x.to_bits()).collect();
        assert_same(&got, &section_words, &case);
        let pairs: Vec<UInt2> = section_words
            .chunks(2)
            .map(|p| UInt2::new(p[0], p[1]))
            .collect();
        assert_same(&as_pairs, &pairs, &case);
        let fours: Vec<Float4> = flat
            .chunks(4)
            .map(|p| Float4::new(p[0], p[1], p[2], p[3]))
            .collect();
        assert_same(&as_vec, &fours, &case);
        let doubled: Vec<Float4> = fours.iter().map(|&v| v * 2.0).collect();
        assert_same(&as_vec_inline, &doubled, &case);
        let ints: Vec<u32> = (0..20i32)
            .flat_map(|k| [k, -k, k * 3, 7])
            .map(|x| x as u32)
            .collect();
        assert_same(&words, &ints, &case);
        let bits: Vec<[u32; 4]> = written
            .iter()
            .map(|v| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits(), v.w.to_bits()])
            .collect();
        let want: Vec<[u32; 4]> = (0..20)
            .map(|k| {
                [
                    (flat[4 * k] * 2.0).to_bits(),
                    (k as f32).to_bits(),
                    0x7fc0_0001,
                    flat[4 * k + 3].to_bits(),
                ]
            })
            .collect();
        assert_same(&bits, &want, &case);
    }
}

/// Views reinterpreted inside kernels (C++ AMP's `reinterpret_as` in
/// `restrict(amp)` code, for 4-byte elements): the bits of a rank-2 `f32`
/// view read as `u32` at row-major positions, and `f32` and `i32` results
/// written through `u32` views of them; bit-exact against plain Rust on
/// random inputs with signed zeros, infinities and NaN.
#[amp_test]
fn views_reinterpreted_inside_kernels_read_and_write_bits() {
    let (rows, cols) = (7usize, 13usize);
    let n = rows * cols;
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(12_600 + k as u64);
        let mut data = f32s(&mut rng, n, -1e6, 1e6);
        data[0] = -0.0;
        data[1] = f32::NEG_INFINITY;
        data[2] = f32::from_bits(0x7fc0_0001);
        let mut abs = vec![f32::NAN; n];
        let mut flipped = vec![POISON_U32; n];
        let mut ints = vec![POISON_I32; n];
        {
            let a = ArrayView::new([rows as i32, cols as i32], &data).unwrap();
            let ab = ArrayView::new_mut([n as i32], &mut abs).unwrap();
            let fl = ArrayView::new_mut([n as i32], &mut flipped).unwrap();
            let it = ArrayView::new_mut([n as i32], &mut ints).unwrap();
            parallel_for_each!(&view, Extent::new([n as i32]), |idx: Index<1>| {
                let k = idx[0];
                let bits = a.reinterpret_as::<u32>();
                let b = bits[k];
                fl[idx] = b ^ 0x8000_0000u32;
                let ab_bits = ab.reinterpret_as::<u32>();
                ab_bits[k] = b & 0x7fff_ffffu32;
                let as_u32 = it.reinterpret_as::<u32>();
                as_u32[[k]] = b >> 1u32;
            })
            .unwrap();
        }
        for i in 0..n {
            let b = data[i].to_bits();
            assert_eq!(flipped[i], b ^ 0x8000_0000, "{what}: element {i}");
            assert_eq!(abs[i].to_bits(), b & 0x7fff_ffff, "{what}: element {i}");
            assert_eq!(ints[i], (b >> 1) as i32, "{what}: element {i}");
        }
    }
}

/// Twice `v[i]` through a view parameter, itself copied.
#[kernel]
fn doubled_at(v: &ArrayView<'_, f32, 1, ReadOnly>, i: i32) -> f32 {
    let w = v;
    w[[i]] * 2.0
}

/// Copies of views in kernels (C++ AMP copy-constructs an `array_view`
/// in `restrict(amp)` code, and the copy views the same data): `let x2 =
/// xv;` of a captured read-only view, `let o2 = o;` of a writable one
/// written through the copy, a copy of a section made in the kernel, a
/// copy of a view parameter inside a `#[kernel]` function, `extent()` of a
/// copy, and a copied scalar capture; against plain Rust on fresh random
/// inputs on every accelerator, every output element checked.
#[amp_test]
fn views_are_copied_in_kernels() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9700 + k as u64);
        let n = rng.range(2, 300) as usize;
        let x = f32s(&mut rng, n, -4.0, 4.0);
        let scale = rng.range(1, 5) as f32;
        let mut out = vec![f32::NAN; n];
        {
            let xv = ArrayView::new([n as i32], &x).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                let x2 = xv;
                let o2 = o;
                let s = scale;
                let rest = xv.section_from([1]);
                let rest2 = rest;
                let i = idx[0];
                let next = if i + 1 < x2.extent()[0] {
                    rest2[[i]]
                } else {
                    0.0
                };
                o2[idx] = x2[idx] * s + next + doubled_at(&x2, i);
            })
            .unwrap();
            o.synchronize().unwrap();
        }
        for i in 0..n {
            let next = if i + 1 < n { x[i + 1] } else { 0.0 };
            let want = x[i] * scale + next + x[i] * 2.0;
            assert_eq!(out[i], want, "{what}: element {i}");
        }
    }
}

/// Views over local arrays made in kernels (C++ AMP's `array_view<T, 2>
/// v(rows, cols, data)` over a local array in `restrict(amp)` code): a
/// rank-2 view written through (`new_mut`), read back through a rank-1
/// and a rank-3 read-only view of the same array (`new`, with `?` and
/// `.unwrap()` as host code writes them), its `extent()`, and the array
/// itself; the extents come from captured values. Against plain Rust on
/// fresh random inputs, every output element poisoned first.
#[amp_test]
fn views_over_local_arrays_in_kernels() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(0x10CA1 + k as u64);
        let n = rng.range(1, 200) as usize;
        let x = i32s(&mut rng, n, -1000, 1000);
        let cols = rng.range(1, 5);
        // The largest view of `cols` columns that the 12 elements hold.
        let rows = 12 / cols;
        let mut out = vec![i32::MIN; n];
        {
            let xv = ArrayView::new([n as i32], &x).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                let mut data = [0i32; 12];
                let m = ArrayView::new_mut([rows, cols], &mut data).unwrap();
                for i in 0..rows {
                    for j in 0..cols {
                        m[[i, j]] = xv[idx] * i + j;
                    }
                }
                let flat = ArrayView::new(Extent::new([rows * cols]), &data)?;
                let cube = ArrayView::new([1, rows, cols], &data).unwrap();
                let e = m.extent();
                let last = flat[rows * cols - 1];
                o[idx] = last * 7 + cube[[0, rows - 1, 0]] * 3 + data[0] + e[0] * 100 + e[1];
            })
            .unwrap();
            o.synchronize().unwrap();
        }
        for i in 0..n {
            let at = |r: i32, c: i32| x[i].wrapping_mul(r) + c;
            let last = at(rows - 1, cols - 1);
            let want = last * 7 + at(rows - 1, 0) * 3 + at(0, 0) + rows * 100 + cols;
            assert_eq!(out[i], want, "{what}: element {i} ({rows} x {cols})");
        }
    }
}
