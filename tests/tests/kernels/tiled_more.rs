//! More tiled kernels (C++ AMP spec chapters 7 and 8): tree reductions in
//! `tile_static` memory, a rank-3 tiled domain, `tile_static` arrays of every
//! element type, the four barrier kinds, `#[kernel]` functions and const
//! generics in tiled kernels, padded and truncated domains, a halo stencil,
//! and one kernel launched with several tile shapes. Every output element is
//! poisoned first and compared with plain Rust on every accelerator.

use amp_core::kernel;
use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

/// The tile of the reductions.
const RT: i32 = 256;

/// A view of `acc` used by this test only (the tests of this file run in
/// parallel threads; sharing one view among them is tested by
/// `cpu_view_shared_by_threads_waits_for_kernels`).
fn own_view(acc: &Accelerator) -> AcceleratorView {
    acc.create_view(QueuingMode::Automatic)
}

/// Sums of each 256-element tile of a 1-D array through a `tile_static`
/// tree reduction, one barrier per halving step (outside the thread guard):
/// `u32` with a `while` loop and `i32` with a `for` loop, both wrapping.
/// Every thread also writes the tile's sum, read after the last barrier.
#[amp_test]
fn tile_static_tree_reduction_sums_each_tile() {
    const TILES: i32 = 40;
    let n = RT * TILES;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(1100 + k as u64);
        let xu: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let xi: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        let mut tile_u = vec![0xDEAD_BEEFu32; TILES as usize];
        let mut each_u = vec![0xDEAD_BEEFu32; n as usize];
        let mut tile_i = vec![i32::MIN; TILES as usize];
        let mut each_i = vec![i32::MIN; n as usize];
        {
            let x = ArrayView::new([n], &xu).unwrap();
            let tu = ArrayView::new_mut([TILES], &mut tile_u).unwrap();
            let eu = ArrayView::new_mut([n], &mut each_u).unwrap();
            let domain = Extent::new([n]).tile::<RT>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let part: [u32; RT]; }
                let l = t.local[0];
                part[l] = x[t.global];
                t.barrier.wait();
                let mut stride = RT / 2;
                while stride > 0 {
                    if l < stride {
                        part[l] += part[l + stride];
                    }
                    t.barrier.wait();
                    stride /= 2;
                }
                if l == 0 {
                    tu[t.tile] = part[0];
                }
                eu[t.global] = part[0];
            })
            .unwrap();

            let x = ArrayView::new([n], &xi).unwrap();
            let ti = ArrayView::new_mut([TILES], &mut tile_i).unwrap();
            let ei = ArrayView::new_mut([n], &mut each_i).unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let part: [i32; RT]; }
                let l = t.local[0];
                part[l] = x[t.global];
                t.barrier.wait();
                for step in 1..9 {
                    let stride = RT >> step;
                    if l < stride {
                        part[l] = part[l] + part[l + stride];
                    }
                    t.barrier.wait();
                }
                if l == 0 {
                    ti[t.tile] = part[0];
                }
                ei[t.global] = part[0];
            })
            .unwrap();
        }
        for tile in 0..TILES as usize {
            let span = tile * RT as usize..(tile + 1) * RT as usize;
            let want_u = xu[span.clone()]
                .iter()
                .fold(0u32, |s, &v| s.wrapping_add(v));
            let want_i = xi[span.clone()]
                .iter()
                .fold(0i32, |s, &v| s.wrapping_add(v));
            assert_eq!(tile_u[tile], want_u, "{acc}: u32 tile {tile}");
            assert_eq!(tile_i[tile], want_i, "{acc}: i32 tile {tile}");
            for i in span {
                assert_eq!(each_u[i], want_u, "{acc}: u32 element {i}");
                assert_eq!(each_i[i], want_i, "{acc}: i32 element {i}");
            }
        }
    }
}

/// A rank-3 domain [8, 12, 16] tiled <2, 4, 8>: every field of the
/// `TiledIndex` of every thread, and a 3-D `tile_static` array whose mirrored
/// element (written by another thread of the tile) each thread reads.
#[amp_test]
fn rank_3_tiled_index_fields_and_3d_tile_static() {
    const F: i32 = 16;
    let (e0, e1, e2) = (8i32, 12i32, 16i32);
    let (t0, t1, t2) = (2i32, 4i32, 8i32);
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(1200 + k as u64);
        let input: Vec<i32> = (0..e0 * e1 * e2).map(|_| rng.next_u64() as i32).collect();
        let mut out = vec![i32::MIN; (e0 * e1 * e2 * F) as usize];
        {
            let x = ArrayView::new([e0, e1, e2], &input).unwrap();
            let o = ArrayView::new_mut([e0, e1, e2, F], &mut out).unwrap();
            let domain = Extent::new([e0, e1, e2]).tile::<2, 4, 8>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<3>| {
                tile_static! { let cube: [[[i32; 8]; 4]; 2]; }
                let l = t.local;
                cube[l[0]][l[1]][l[2]] = x[t.global];
                t.barrier.wait();
                let g = t.global;
                for d in 0..3 {
                    o[[g[0], g[1], g[2], d]] = g[d];
                    o[[g[0], g[1], g[2], 3 + d]] = t.local[d];
                    o[[g[0], g[1], g[2], 6 + d]] = t.tile[d];
                    o[[g[0], g[1], g[2], 9 + d]] = t.tile_origin[d];
                    o[[g[0], g[1], g[2], 12 + d]] = t.tile_extent[d];
                }
                o[[g[0], g[1], g[2], 15]] = cube[1 - l[0]][3 - l[1]][7 - l[2]];
            })
            .unwrap();
        }
        let tile = [t0, t1, t2];
        for g0 in 0..e0 {
            for g1 in 0..e1 {
                for g2 in 0..e2 {
                    let g = [g0, g1, g2];
                    let base = (((g0 * e1 + g1) * e2 + g2) * F) as usize;
                    let at = |f: usize| out[base + f];
                    for d in 0..3 {
                        let local = g[d] % tile[d];
                        let which = format!("{acc}: global {g:?}, component {d}");
                        assert_eq!(at(d), g[d], "global, {which}");
                        assert_eq!(at(3 + d), local, "local, {which}");
                        assert_eq!(at(6 + d), g[d] / tile[d], "tile, {which}");
                        assert_eq!(at(9 + d), g[d] - local, "tile_origin, {which}");
                        assert_eq!(at(12 + d), tile[d], "tile_extent, {which}");
                    }
                    let m: Vec<i32> = (0..3)
                        .map(|d| g[d] - g[d] % tile[d] + (tile[d] - 1 - g[d] % tile[d]))
                        .collect();
                    let want = input[((m[0] * e1 + m[1]) * e2 + m[2]) as usize];
                    assert_eq!(at(15), want, "{acc}: mirrored element at {g:?}");
                }
            }
        }
    }
}

/// `tile_static` arrays of `f32` (2-D), `u32` (1-D, indexed linearly) and
/// `f64` (2-D, where the accelerator has double precision), written by one
/// thread and read by another after `wait_with_tile_static_memory_fence()`.
/// The values are exact in binary, so the results are exact everywhere.
#[amp_test]
fn tile_static_f32_u32_f64_across_threads() {
    let (rows, cols) = (32i32, 48i32);
    let len = (rows * cols) as usize;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(1300 + k as u64);
        let xf: Vec<f32> = (0..len)
            .map(|_| rng.range(-4096, 4096) as f32 / 16.0)
            .collect();
        let xu: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
        let mut of = vec![f32::NAN; len];
        let mut ou = vec![0xDEAD_BEEFu32; len];
        {
            let a = ArrayView::new([rows, cols], &xf).unwrap();
            let b = ArrayView::new([rows, cols], &xu).unwrap();
            let fo = ArrayView::new_mut([rows, cols], &mut of).unwrap();
            let uo = ArrayView::new_mut([rows, cols], &mut ou).unwrap();
            let domain = Extent::new([rows, cols]).tile::<8, 16>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<2>| {
                tile_static! {
                    let fs: [[f32; 16]; 8];
                    let us: [u32; 128];
                }
                let r = t.local[0];
                let c = t.local[1];
                let id = r * 16 + c;
                fs[r][c] = a[t.global];
                us[id] = b[t.global];
                t.barrier.wait_with_tile_static_memory_fence();
                fo[t.global] = fs[(r + 3) % 8][(c + 5) % 16] * 2.0 + fs[r][c];
                uo[t.global] = us[(id * 7 + 1) % 128] ^ (us[id] >> 3);
            })
            .unwrap();
        }
        for i in 0..rows {
            for j in 0..cols {
                let at = (i * cols + j) as usize;
                let (oi, oj) = (i - i % 8 + (i % 8 + 3) % 8, j - j % 16 + (j % 16 + 5) % 16);
                let want_f = xf[(oi * cols + oj) as usize] * 2.0 + xf[at];
                assert_eq!(of[at], want_f, "{acc}: f32 ({i}, {j})");
                let id = (i % 8) * 16 + j % 16;
                let pid = (id * 7 + 1) % 128;
                let (pi, pj) = (i - i % 8 + pid / 16, j - j % 16 + pid % 16);
                let want_u = xu[(pi * cols + pj) as usize] ^ (xu[at] >> 3);
                assert_eq!(ou[at], want_u, "{acc}: u32 ({i}, {j})");
            }
        }

        if !acc.supports_double_precision() {
            eprintln!("{acc}: no double precision, f64 tile_static skipped");
            continue;
        }
        let (dr, dc) = (16i32, 40i32);
        let xd: Vec<f64> = (0..dr * dc)
            .map(|_| f64::from(rng.range(-1 << 20, 1 << 20)) / 1024.0)
            .collect();
        let mut od = vec![f64::NAN; (dr * dc) as usize];
        {
            let a = ArrayView::new([dr, dc], &xd).unwrap();
            let o = ArrayView::new_mut([dr, dc], &mut od).unwrap();
            let domain = Extent::new([dr, dc]).tile::<8, 8>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<2>| {
                tile_static! { let ds: [[f64; 8]; 8]; }
                let r = t.local[0];
                let c = t.local[1];
                ds[r][c] = a[t.global];
                t.barrier.wait_with_tile_static_memory_fence();
                o[t.global] = ds[c][r] * ds[r][c] - ds[7 - r][(c + 1) % 8];
            })
            .unwrap();
        }
        for i in 0..dr {
            for j in 0..dc {
                let (oi, oj) = (i - i % 8, j - j % 8);
                let (r, c) = (i % 8, j % 8);
                let v = |y: i32, x: i32| xd[((oi + y) * dc + oj + x) as usize];
                let want = v(c, r) * v(r, c) - v(7 - r, (c + 1) % 8);
                assert_eq!(od[(i * dc + j) as usize], want, "{acc}: f64 ({i}, {j})");
            }
        }
    }
}

/// A 64x48 matrix transposed through 16x16 `tile_static` tiles, then read
/// back through the other barrier kinds: `wait()` orders the tile load,
/// `wait_with_global_memory_fence()` makes the transposed element written by
/// thread (l1, l0) visible to thread (l0, l1) in global memory,
/// `wait_with_all_memory_fence()` separates the reads of a `tile_static`
/// array from its rewrite, and `wait_with_tile_static_memory_fence()` orders
/// the rewrite before the final reads.
#[amp_test]
fn transpose_with_the_four_barrier_kinds() {
    const B: i32 = 16;
    let (m, n) = (64i32, 48i32);
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(1400 + k as u64);
        let va: Vec<f32> = (0..m * n)
            .map(|_| rng.range(-2048, 2048) as f32 / 16.0)
            .collect();
        let mut vt = vec![f32::NAN; (m * n) as usize];
        let mut vback = vec![f32::NAN; (m * n) as usize];
        {
            let a = ArrayView::new([m, n], &va).unwrap();
            let tr = ArrayView::new_mut([n, m], &mut vt).unwrap();
            let back = ArrayView::new_mut([m, n], &mut vback).unwrap();
            let domain = a.extent().tile::<B, B>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<2>| {
                tile_static! {
                    let blk: [[f32; B]; B];
                    let blk2: [[f32; B]; B];
                }
                let l0 = t.local[0];
                let l1 = t.local[1];
                let o0 = t.tile_origin[0];
                let o1 = t.tile_origin[1];
                blk[l0][l1] = a[t.global];
                t.barrier.wait();
                tr[[o1 + l0, o0 + l1]] = blk[l1][l0];
                t.barrier.wait_with_global_memory_fence();
                // Written by thread (l1, l0) of this tile: a[t.global].
                let mine = tr[[o1 + l1, o0 + l0]];
                blk2[l0][l1] = mine * 2.0 + blk[l0][l1];
                t.barrier.wait_with_all_memory_fence();
                blk[l0][l1] = blk2[B - 1 - l0][B - 1 - l1];
                t.barrier.wait_with_tile_static_memory_fence();
                back[t.global] = blk[(l0 + 1) % B][l1];
            })
            .unwrap();
        }
        for i in 0..m {
            for j in 0..n {
                let a_at = |y: i32, x: i32| va[(y * n + x) as usize];
                assert_eq!(
                    vt[(j * m + i) as usize],
                    a_at(i, j),
                    "{acc}: transposed ({j}, {i})"
                );
                let (o0, o1) = (i - i % B, j - j % B);
                let (l0, l1) = (i % B, j % B);
                let v = a_at(o0 + B - 1 - (l0 + 1) % B, o1 + B - 1 - l1);
                let want = v * 2.0 + v;
                assert_eq!(vback[(i * n + j) as usize], want, "{acc}: back ({i}, {j})");
            }
        }
    }
}

/// The linear number of `l` in a row-major block `width` wide.
#[kernel]
fn tile_linear(l: Index<2>, width: i32) -> i32 {
    l[0] * width + l[1]
}

/// A wrapping mix of three integers.
#[kernel]
fn mix3(a: i32, b: i32, c: i32) -> i32 {
    a * 31 + b * 7 - c
}

fn mix3_ref(a: i32, b: i32, c: i32) -> i32 {
    a.wrapping_mul(31)
        .wrapping_add(b.wrapping_mul(7))
        .wrapping_sub(c)
}

/// A tiled kernel calling `#[kernel]` functions, one taking an `Index<2>`,
/// before and after the barrier.
#[amp_test]
fn tiled_kernel_calls_kernel_functions() {
    let (rows, cols) = (24i32, 40i32);
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(1500 + k as u64);
        let input: Vec<i32> = (0..rows * cols).map(|_| rng.next_u64() as i32).collect();
        let mut out = vec![i32::MIN; (rows * cols) as usize];
        {
            let x = ArrayView::new([rows, cols], &input).unwrap();
            let o = ArrayView::new_mut([rows, cols], &mut out).unwrap();
            let domain = o.extent().tile::<8, 8>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<2>| {
                tile_static! { let v: [i32; 64]; }
                let id = tile_linear(t.local, 8);
                v[id] = mix3(x[t.global], id, t.tile[1]);
                t.barrier.wait();
                o[t.global] = mix3(v[63 - id], v[(id + 9) % 64], tile_linear(t.tile, 5));
            })
            .unwrap();
        }
        for i in 0..rows {
            for j in 0..cols {
                let (oi, oj) = (i - i % 8, j - j % 8);
                let (ti, tj) = (i / 8, j / 8);
                let stored = |id: i32| {
                    let (y, x) = (oi + id / 8, oj + id % 8);
                    mix3_ref(input[(y * cols + x) as usize], id, tj)
                };
                let id = (i % 8) * 8 + j % 8;
                let want = mix3_ref(stored(63 - id), stored((id + 9) % 64), ti * 5 + tj);
                assert_eq!(out[(i * cols + j) as usize], want, "{acc}: ({i}, {j})");
            }
        }
    }
}

/// A tiled kernel in a const-generic host function with a fixed tile of 32:
/// each thread reads the `tile_static` element `K` places further round its
/// tile (K negative too).
fn rotate_in_tile<const K: i32>(
    view: &AcceleratorView,
    x: &ArrayView<'_, i32, 1, ReadOnly>,
    out: &ArrayView<'_, i32, 1>,
) {
    let domain = out.extent().tile::<32>().unwrap();
    parallel_for_each!(view, domain, |t: TiledIndex<1>| {
        tile_static! { let s: [i32; 32]; }
        s[t.local[0]] = x[t.global];
        t.barrier.wait();
        let j = ((t.local[0] + K) % 32 + 32) % 32;
        out[t.global] = s[j] * K + t.tile[0];
    })
    .unwrap();
}

#[amp_test]
fn tiled_kernel_in_const_generic_host_function() {
    const N: i32 = 32 * 23;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(1600 + k as u64);
        let input: Vec<i32> = (0..N).map(|_| rng.next_u64() as i32).collect();
        let mut outs = [
            vec![i32::MIN; N as usize],
            vec![i32::MIN; N as usize],
            vec![i32::MIN; N as usize],
        ];
        {
            let x = ArrayView::new([N], &input).unwrap();
            let [o1, o7, om3] = &mut outs;
            let o1 = ArrayView::new_mut([N], o1).unwrap();
            let o7 = ArrayView::new_mut([N], o7).unwrap();
            let om3 = ArrayView::new_mut([N], om3).unwrap();
            rotate_in_tile::<1>(&view, &x, &o1);
            rotate_in_tile::<7>(&view, &x, &o7);
            rotate_in_tile::<-3>(&view, &x, &om3);
        }
        for (out, kk) in outs.iter().zip([1i32, 7, -3]) {
            for i in 0..N {
                let j = i - i % 32 + (i % 32 + kk).rem_euclid(32);
                let want = input[j as usize].wrapping_mul(kk).wrapping_add(i / 32);
                assert_eq!(out[i as usize], want, "{acc}: K = {kk}, element {i}");
            }
        }
    }
}

/// Padded domains (1-D 1000 tiled 16, 2-D [37, 23] tiled <8, 8>) with the
/// loads and the writes guarded and the barrier outside the guard; and a
/// truncated one, whose elements beyond the truncated extent stay untouched.
#[amp_test]
fn padded_and_truncated_tiled_domains() {
    const N: i32 = 1000;
    let (rows, cols) = (37i32, 23i32);
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(1700 + k as u64);
        let input: Vec<i32> = (0..N).map(|_| rng.range(-1 << 24, 1 << 24)).collect();
        let grid: Vec<i32> = (0..rows * cols).map(|_| rng.next_u64() as i32).collect();
        let mut padded_out = vec![i32::MIN; N as usize];
        let mut trunc_out = vec![i32::MIN; N as usize];
        let mut grid_out = vec![i32::MIN; (rows * cols) as usize];
        let tiled = Extent::new([N]).tile::<16>().unwrap();
        let padded = tiled.pad().unwrap();
        let truncated = tiled.truncate();
        assert_eq!(padded.extent()[0], (N + 15) / 16 * 16);
        assert_eq!(truncated.extent()[0], N / 16 * 16);
        {
            let x = ArrayView::new([N], &input).unwrap();
            let po = ArrayView::new_mut([N], &mut padded_out).unwrap();
            let n = N;
            parallel_for_each!(&view, padded, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; 16]; }
                let l = t.local[0];
                if t.global[0] < n {
                    s[l] = x[t.global];
                } else {
                    s[l] = 0;
                }
                t.barrier.wait();
                if t.global[0] < n {
                    po[t.global] = s[15 - l] + x[t.global] * 2;
                }
            })
            .unwrap();

            let to = ArrayView::new_mut([N], &mut trunc_out).unwrap();
            parallel_for_each!(&view, truncated, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; 16]; }
                s[t.local[0]] = x[t.global];
                t.barrier.wait_with_tile_static_memory_fence();
                to[t.global] = s[(t.local[0] + 1) % 16] - t.tile[0];
            })
            .unwrap();

            let g = ArrayView::new([rows, cols], &grid).unwrap();
            let go = ArrayView::new_mut([rows, cols], &mut grid_out).unwrap();
            let domain = Extent::new([rows, cols])
                .tile::<8, 8>()
                .unwrap()
                .pad()
                .unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<2>| {
                tile_static! { let s: [[i32; 8]; 8]; }
                let inside = t.global[0] < rows && t.global[1] < cols;
                if inside {
                    s[t.local[0]][t.local[1]] = g[t.global];
                } else {
                    s[t.local[0]][t.local[1]] = 0;
                }
                t.barrier.wait();
                if inside {
                    // The sum of this thread's column of the tile.
                    let mut sum = 0;
                    for i in 0..8 {
                        sum += s[i][t.local[1]];
                    }
                    go[t.global] = sum;
                }
            })
            .unwrap();
        }
        for i in 0..N {
            let partner = i - i % 16 + 15 - i % 16;
            let other = if partner < N {
                input[partner as usize]
            } else {
                0
            };
            let want = other.wrapping_add(input[i as usize].wrapping_mul(2));
            assert_eq!(padded_out[i as usize], want, "{acc}: padded element {i}");
            let want_t = if i < truncated.extent()[0] {
                input[(i - i % 16 + (i % 16 + 1) % 16) as usize] - i / 16
            } else {
                i32::MIN
            };
            assert_eq!(
                trunc_out[i as usize], want_t,
                "{acc}: truncated element {i}"
            );
        }
        for i in 0..rows {
            for j in 0..cols {
                let top = i - i % 8;
                let want = (top..(top + 8).min(rows))
                    .fold(0i32, |s, y| s.wrapping_add(grid[(y * cols + j) as usize]));
                assert_eq!(
                    grid_out[(i * cols + j) as usize],
                    want,
                    "{acc}: grid ({i}, {j})"
                );
            }
        }
    }
}

/// The tile and the halo radius of the stencil.
const CT: i32 = 64;
const R: i32 = 4;

/// A 1-D convolution of radius `R` over tiles of `CT` threads: each tile
/// loads its elements and a halo of `R` on each side (the first `R` threads
/// load the halo) into `tile_static` memory, reads clamped at the array's
/// borders; the domain is padded and the writes guarded.
fn conv1d(
    view: &AcceleratorView,
    x: &ArrayView<'_, f32, 1, ReadOnly>,
    w: &ArrayView<'_, f32, 1, ReadOnly>,
    out: &ArrayView<'_, f32, 1>,
) {
    let n = out.extent()[0];
    let domain = out.extent().tile::<CT>().unwrap().pad().unwrap();
    parallel_for_each!(view, domain, |t: TiledIndex<1>| {
        tile_static! { let s: [f32; CT + 2 * R]; }
        let l = t.local[0];
        let g = t.global[0];
        s[l + R] = x[g.min(n - 1)];
        if l < R {
            s[l] = x[(t.tile_origin[0] - R + l).clamp(0, n - 1)];
            s[l + CT + R] = x[(t.tile_origin[0] + CT + l).clamp(0, n - 1)];
        }
        t.barrier.wait();
        if g < n {
            let mut sum = 0.0f32;
            for k in 0..2 * R + 1 {
                sum += w[k] * s[l + k];
            }
            out[t.global] = sum;
        }
    })
    .unwrap();
}

/// The stencil of [`conv1d`] for 1280 elements (20 whole tiles), 1000 (a
/// padded last tile) and 37 (one partial tile, clamped on both sides). The
/// inputs are multiples of 1/16 and the weights of 1/8, small enough that
/// every sum is exact in any order (fused or not).
#[amp_test]
fn halo_stencil_through_tile_static() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(1800 + k as u64);
        let weights: Vec<f32> = (0..2 * R + 1)
            .map(|_| rng.range(-8, 9) as f32 / 8.0)
            .collect();
        for n in [1280i32, 1000, 37] {
            let input: Vec<f32> = (0..n).map(|_| rng.range(-128, 128) as f32 / 16.0).collect();
            let mut out = vec![f32::NAN; n as usize];
            {
                let x = ArrayView::new([n], &input).unwrap();
                let w = ArrayView::new([2 * R + 1], &weights).unwrap();
                let o = ArrayView::new_mut([n], &mut out).unwrap();
                conv1d(&view, &x, &w, &o);
            }
            for i in 0..n {
                let mut want = 0.0f32;
                for kk in 0..2 * R + 1 {
                    let j = (i - R + kk).clamp(0, n - 1);
                    want += weights[kk as usize] * input[j as usize];
                }
                assert_eq!(out[i as usize], want, "{acc}: n = {n}, element {i}");
            }
        }
    }
}

/// One call site launched over tiled domains of different tile shapes, given
/// at run time: the kernel reverses each tile through `tile_static` memory
/// using `t.tile_extent`, so a launch that ran with another launch's
/// workgroup size would give wrong results.
fn reverse_in_tiles(
    view: &AcceleratorView,
    domain: TiledExtent<1>,
    x: &ArrayView<'_, i32, 1, ReadOnly>,
    out: &ArrayView<'_, i32, 1>,
) {
    parallel_for_each!(view, domain, |t: TiledIndex<1>| {
        tile_static! { let s: [i32; 256]; }
        s[t.local[0]] = x[t.global];
        t.barrier.wait();
        out[t.global] = s[t.tile_extent[0] - 1 - t.local[0]] * 3 + t.tile[0];
    })
    .unwrap();
}

/// The same tiled kernel launched five times on one view: twice with the
/// same tile and different inputs, then with tiles of 64, 256 and 32 again.
#[amp_test]
fn one_tiled_kernel_with_several_inputs_and_tile_shapes() {
    const N: i32 = 1024;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(1900 + k as u64);
        let e = Extent::new([N]);
        let runs = [
            e.tile::<32>().unwrap(),
            e.tile::<32>().unwrap(),
            e.tile::<64>().unwrap(),
            e.tile::<256>().unwrap(),
            e.tile::<32>().unwrap(),
        ];
        let inputs: Vec<Vec<i32>> = runs
            .iter()
            .map(|_| (0..N).map(|_| rng.next_u64() as i32).collect())
            .collect();
        let mut outs = vec![vec![i32::MIN; N as usize]; runs.len()];
        for ((domain, input), out) in runs.iter().zip(&inputs).zip(outs.iter_mut()) {
            let x = ArrayView::new([N], input).unwrap();
            let o = ArrayView::new_mut([N], out).unwrap();
            reverse_in_tiles(&view, *domain, &x, &o);
        }
        for ((domain, input), out) in runs.iter().zip(&inputs).zip(&outs) {
            let ts = domain.tile_extent()[0];
            for i in 0..N {
                let j = i - i % ts + (ts - 1 - i % ts);
                let want = input[j as usize].wrapping_mul(3).wrapping_add(i / ts);
                assert_eq!(out[i as usize], want, "{acc}: tile {ts}, element {i}");
            }
        }
    }
}

/// The same kernel body with the tile shape a const parameter of the host
/// function: the tile, the `tile_static` array's length and the kernel's
/// arithmetic all use `T`.
fn tile_prefix_max<const T: i32>(
    view: &AcceleratorView,
    x: &ArrayView<'_, i32, 1, ReadOnly>,
    out: &ArrayView<'_, i32, 1>,
) {
    let domain = out.extent().tile::<T>().unwrap();
    parallel_for_each!(view, domain, |t: TiledIndex<1>| {
        tile_static! { let s: [i32; T]; }
        let l = t.local[0];
        s[l] = x[t.global];
        t.barrier.wait();
        // The maximum of the tile's elements up to this one.
        let mut best = s[0];
        for i in 1..T {
            if i <= l {
                best = best.max(s[i]);
            }
        }
        out[t.global] = best + T;
    })
    .unwrap();
}

#[amp_test]
fn tile_shape_as_const_parameter_of_host_function() {
    const N: i32 = 960;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(2000 + k as u64);
        let input: Vec<i32> = (0..N).map(|_| rng.range(-1 << 30, 1 << 30)).collect();
        let mut out8 = vec![i32::MIN; N as usize];
        let mut out64 = vec![i32::MIN; N as usize];
        {
            let x = ArrayView::new([N], &input).unwrap();
            let o8 = ArrayView::new_mut([N], &mut out8).unwrap();
            let o64 = ArrayView::new_mut([N], &mut out64).unwrap();
            tile_prefix_max::<8>(&view, &x, &o8);
            tile_prefix_max::<64>(&view, &x, &o64);
        }
        for (out, ts) in [(&out8, 8i32), (&out64, 64)] {
            for i in 0..N {
                let start = (i - i % ts) as usize;
                let best = *input[start..=i as usize].iter().max().unwrap();
                assert_eq!(out[i as usize], best + ts, "{acc}: tile {ts}, element {i}");
            }
        }
    }
}

/// Barriers under control flow that is the same for every thread of the
/// tile (a loop over a captured count, an `if` on a captured `bool`): each
/// round rotates the tile's `tile_static` values by one, and the flip
/// reverses them.
#[amp_test]
fn barriers_under_uniform_control_flow() {
    const N: i32 = 512;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(2100 + k as u64);
        let input: Vec<i32> = (0..N).map(|_| rng.next_u64() as i32).collect();
        for rounds in [0i32, 1, 5] {
            for flip in [false, true] {
                let mut out = vec![i32::MIN; N as usize];
                {
                    let x = ArrayView::new([N], &input).unwrap();
                    let o = ArrayView::new_mut([N], &mut out).unwrap();
                    let domain = o.extent().tile::<32>().unwrap();
                    parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                        tile_static! { let s: [i32; 32]; }
                        let l = t.local[0];
                        s[l] = x[t.global];
                        t.barrier.wait();
                        for _ in 0..rounds {
                            let next = s[(l + 1) % 32];
                            t.barrier.wait();
                            s[l] = next;
                            t.barrier.wait();
                        }
                        if flip {
                            let v = s[31 - l];
                            t.barrier.wait_with_tile_static_memory_fence();
                            s[l] = v;
                            t.barrier.wait_with_tile_static_memory_fence();
                        }
                        o[t.global] = s[l];
                    })
                    .unwrap();
                }
                for i in 0..N {
                    let l = i % 32;
                    let from = if flip { 31 - l } else { l };
                    let want = input[(i - l + (from + rounds) % 32) as usize];
                    assert_eq!(
                        out[i as usize], want,
                        "{acc}: rounds {rounds}, flip {flip}, element {i}"
                    );
                }
            }
        }
    }
}

/// Four host threads launching tiled kernels on one shared view (the
/// accelerator's default view) and reading their results back. A regression
/// test: on the CPU accelerator a thread that records or flushes takes the
/// view's whole pending batch, other threads' kernels included, and runs it
/// after releasing the view's lock; a thread whose kernel was in that batch
/// used to find nothing pending in `flush`/`wait` and copy the results back
/// while the kernel was still running (whole tiles still held the poison).
/// Host batches now run in submission order, and `flush`, `wait` and
/// markers wait for every batch submitted before them.
#[amp_test]
fn cpu_view_shared_by_threads_waits_for_kernels() {
    const N: i32 = 64 * 64;
    for acc in accelerators() {
        let view = acc.default_view();
        std::thread::scope(|s| {
            for th in 0..4u64 {
                let (view, acc) = (view.clone(), &acc);
                s.spawn(move || {
                    let mut rng = Rng::new(2200 + th);
                    for round in 0..25 {
                        let input: Vec<i32> = (0..N).map(|_| rng.next_u64() as i32).collect();
                        let mut out = vec![i32::MIN; N as usize];
                        {
                            let x = ArrayView::new([N], &input).unwrap();
                            let o = ArrayView::new_mut([N], &mut out).unwrap();
                            let domain = o.extent().tile::<64>().unwrap();
                            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                                tile_static! { let s: [i32; 64]; }
                                s[t.local[0]] = x[t.global];
                                t.barrier.wait();
                                o[t.global] = s[63 - t.local[0]];
                            })
                            .unwrap();
                            // Host work while the kernel is queued.
                            std::thread::sleep(std::time::Duration::from_millis(1));
                            o.synchronize().unwrap();
                        }
                        for i in 0..N {
                            let want = input[(i - i % 64 + 63 - i % 64) as usize];
                            assert_eq!(
                                out[i as usize], want,
                                "{acc}: thread {th}, round {round}, element {i}"
                            );
                        }
                    }
                });
            }
        });
    }
}

/// A `#[derive(Element)]` struct for `tile_static` memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Element)]
struct Body {
    pos: Float4,
    mass: f32,
    _pad: [f32; 3],
}

/// Reverses each tile of `data` through `tile_static` memory of any
/// element type `T` (C++ AMP's template kernels with `tile_static T s[..]`).
fn reverse_tiles<T: Element>(view: &AcceleratorView, data: &[T], out: &mut [T]) {
    const TS: i32 = 32;
    let d = ArrayView::from_slice(data).unwrap();
    let o = ArrayView::from_slice_mut(out).unwrap();
    parallel_for_each!(view, d.extent().tile::<TS>().unwrap(), |t: TiledIndex<
        1,
    >| {
        tile_static! { let s: [T; TS]; }
        s[t.local[0]] = d[t.global];
        t.barrier.wait();
        o[t.global] = s[TS - 1 - t.local[0]];
    })
    .unwrap();
    o.synchronize().unwrap();
}

/// `tile_static` arrays of short vectors (a per-tile sum of `Float4`s and
/// their `dot` with the tile's first vector), of a `#[derive(Element)]`
/// struct and of a generic `T: Element`, against plain Rust.
#[amp_test]
fn tile_static_arrays_of_vectors_structs_and_generic_elements() {
    const TS: i32 = 64;
    const TILES: usize = 6;
    let n = TS as usize * TILES;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(9600 + k as u64);
        let xs: Vec<Float4> = (0..n)
            .map(|_| {
                let c: Vec<f32> = (0..4).map(|_| rng.range(-100, 100) as f32 / 8.0).collect();
                Float4::new(c[0], c[1], c[2], c[3])
            })
            .collect();
        let mut sums = vec![Float4::splat(f32::NAN); n];
        let mut dots = vec![f32::NAN; n];
        {
            let x = ArrayView::from_slice(&xs).unwrap();
            let s = ArrayView::from_slice_mut(&mut sums).unwrap();
            let dv = ArrayView::from_slice_mut(&mut dots).unwrap();
            parallel_for_each!(&view, x.extent().tile::<TS>().unwrap(), |t: TiledIndex<
                1,
            >| {
                tile_static! { let part: [Float4; TS]; }
                let l = t.local[0];
                part[l] = x[t.global];
                t.barrier.wait();
                let mut stride = TS / 2;
                while stride > 0 {
                    if l < stride {
                        part[l] = part[l] + part[l + stride];
                    }
                    t.barrier.wait();
                    stride /= 2;
                }
                s[t.global] = part[0];
                dv[t.global] = part[0].dot(x[t.tile_origin]);
            })
            .unwrap();
        }
        let what = acc.description();
        for tile in 0..TILES {
            let range = tile * TS as usize..(tile + 1) * TS as usize;
            // Small integers over 8: every order of the sum is exact.
            let sum = xs[range.clone()]
                .iter()
                .fold(Float4::splat(0.0), |a, &b| a + b);
            for g in range {
                assert_eq!(sums[g], sum, "{what}: sum at {g}");
                let want = sum.dot(xs[tile * TS as usize]);
                assert!(
                    (dots[g] - want).abs() <= 1e-3 * want.abs().max(1.0),
                    "{what}: dot at {g}"
                );
            }
        }

        let bodies: Vec<Body> = xs
            .iter()
            .map(|p| Body {
                pos: *p,
                mass: p.x * 2.0,
                _pad: [0.0; 3],
            })
            .collect();
        let mut reversed = vec![
            Body {
                pos: Float4::splat(f32::NAN),
                mass: f32::NAN,
                _pad: [0.0; 3],
            };
            n
        ];
        reverse_tiles(&view, &bodies, &mut reversed);
        let ints: Vec<i32> = (0..n as i32).map(|i| i * 7 - 100).collect();
        let mut rints = vec![POISON; n];
        reverse_tiles(&view, &ints, &mut rints);
        for g in 0..n {
            let (tile, l) = (g / 32, g % 32);
            let src = tile * 32 + 31 - l;
            assert_eq!(reversed[g], bodies[src], "{what}: struct at {g}");
            assert_eq!(rints[g], ints[src], "{what}: i32 at {g}");
        }
    }
}

const POISON: i32 = 0xDEAD_BEEF_u32 as i32;

/// `tile_static` scalars (`tile_static! { let count: u32; }`): written by
/// one work item, read by all after a barrier, and counted into with
/// atomics (C++ AMP's `tile_static int count;`); a per-tile count of the
/// positive inputs and their maximum, in the CPU accelerator's split form
/// and on every accelerator, against plain Rust.
#[amp_test]
fn tile_static_scalars() {
    const TS: i32 = 64;
    const TILES: usize = 7;
    let n = TS as usize * TILES;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(9700 + k as u64);
        let xs: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut out = vec![[POISON; 3]; n];
        {
            let x = ArrayView::from_slice(&xs).unwrap();
            let o = ArrayView::from_slice_mut(&mut out).unwrap();
            parallel_for_each!(&view, x.extent().tile::<TS>().unwrap(), |t: TiledIndex<
                1,
            >| {
                tile_static! {
                    let count: u32;
                    let best: i32;
                    let first: i32;
                }
                if t.local[0] == 0 {
                    count = 0;
                    best = i32::MIN;
                    first = x[t.global];
                }
                t.barrier.wait();
                let v = x[t.global];
                if v > 0 {
                    atomic_fetch_inc(&count);
                }
                atomic_fetch_max(&best, v);
                t.barrier.wait();
                o[t.global] = [count as i32, best, first + v];
            })
            .unwrap();
        }
        let what = acc.description();
        for tile in 0..TILES {
            let part = &xs[tile * TS as usize..(tile + 1) * TS as usize];
            let count = part.iter().filter(|&&v| v > 0).count() as i32;
            let best = *part.iter().max().unwrap();
            for (l, &v) in part.iter().enumerate() {
                let g = tile * TS as usize + l;
                assert_eq!(out[g], [count, best, part[0] + v], "{what}: element {g}");
            }
        }
    }
}

/// C++ AMP's MandelBrot sample stops a tile's loop once every work item of
/// the tile is done: the work items record in a `tile_static` flag whether
/// any of them is still busy, and all of them `break` on the flag after a
/// barrier. Such a load (an address the tile shares, after a barrier, no
/// write since) is uniform, so the barriers of the loop are accepted, and
/// GPUs load it with `workgroupUniformLoad`. Here each work item runs the
/// Collatz sequence of its input (exact integer steps, capped at `MAX`);
/// every count and each tile's number of loop trips (the largest count of
/// the tile) match the host's.
#[amp_test]
fn a_tile_breaks_out_of_a_loop_on_a_uniform_tile_static_flag() {
    const TS: i32 = 64;
    const MAX: u32 = 200;
    let mut rng = Rng::new(0x3A4D_E1B0);
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let what = acc.to_string();
        let tiles = rng.range(1, 9);
        let n = tiles * TS;
        let xs: Vec<u32> = (0..n).map(|_| rng.range(1, 10_000) as u32).collect();
        let mut counts = vec![u32::MAX; n as usize];
        let mut trips = vec![u32::MAX; tiles as usize];
        {
            let x = ArrayView::new([n], &xs).unwrap();
            let c = ArrayView::new_mut([n], &mut counts).unwrap();
            let tr = ArrayView::new_mut([tiles], &mut trips).unwrap();
            c.discard_data();
            tr.discard_data();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let busy: u32; }
                let mut v = x[t.global];
                let mut steps = 0u32;
                let mut finished = v <= 1;
                let mut loops = 0u32;
                loop {
                    t.barrier.wait();
                    if t.local[0] == 0 {
                        busy = 0;
                    }
                    t.barrier.wait();
                    if !finished {
                        busy = 1;
                    }
                    t.barrier.wait();
                    if busy == 0 {
                        break;
                    }
                    loops += 1;
                    if !finished {
                        v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
                        steps += 1;
                        if v == 1 || steps >= MAX {
                            finished = true;
                        }
                    }
                }
                c[t.global] = steps;
                if t.local[0] == 0 {
                    tr[t.tile] = loops;
                }
            })
            .unwrap();
        }
        let want: Vec<u32> = xs
            .iter()
            .map(|&x0| {
                let (mut v, mut steps) = (x0, 0u32);
                while v > 1 && steps < MAX {
                    v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
                    steps += 1;
                }
                steps
            })
            .collect();
        assert_eq!(counts, want, "{what}");
        for (k, &got) in trips.iter().enumerate() {
            let tile = &want[k * TS as usize..(k + 1) * TS as usize];
            assert_eq!(got, *tile.iter().max().unwrap(), "{what}: tile {k}");
        }
    }
}

/// A whole row of a 2-D `tile_static` array read as a value (`let row =
/// m[k];`, an array local), and a plane of a 3-D one: each work item sums
/// the row and the plane its neighbour filled; against the host on random
/// data on every accelerator.
#[amp_test]
fn rows_of_tile_static_arrays_are_values() {
    const TS: i32 = 8;
    let mut rng = Rng::new(0x2_0110);
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let tiles = rng.range(1, 5);
        let n = tiles * TS;
        let data: Vec<i32> = (0..n * TS).map(|_| rng.range(-1000, 1000)).collect();
        let mut out = vec![i32::MIN; n as usize];
        {
            let d = ArrayView::new([n, TS], &data).unwrap();
            let o = ArrayView::new_mut([n], &mut out).unwrap();
            o.discard_data();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! {
                    let m: [[i32; TS]; TS];
                    let cube: [[[i32; 2]; 2]; TS];
                }
                let l = t.local[0];
                for k in 0..TS {
                    m[l][k] = d[[t.global[0], k]];
                }
                for a in 0..2 {
                    for b in 0..2 {
                        cube[l][a][b] = d[[t.global[0], a * 2 + b]] * 3;
                    }
                }
                t.barrier.wait();
                let row = m[(l + 1) % TS];
                let plane = cube[(l + 2) % TS];
                let mut s = 0;
                for k in 0..TS {
                    s += row[k as usize];
                }
                o[t.global] = s + plane[1][0] - plane[0][1];
            })
            .unwrap();
        }
        for (g, &got) in out.iter().enumerate() {
            let tile = g / TS as usize * TS as usize;
            let l = g % TS as usize;
            let r = tile + (l + 1) % TS as usize;
            let p = tile + (l + 2) % TS as usize;
            let row: i32 = data[r * TS as usize..(r + 1) * TS as usize].iter().sum();
            let plane = data[p * TS as usize + 2] * 3 - data[p * TS as usize + 1] * 3;
            assert_eq!(got, row + plane, "{acc}: {g}");
        }
    }
}

/// The length of a `tile_static!` array given by a `usize` constant
/// (Rust's array-length type, as a porter writes `[T; N]`), and by an
/// `i32` one: each work item reverses its tile through the array; against
/// plain Rust on fresh random inputs on every accelerator, every element
/// checked.
#[amp_test]
fn tile_static_lengths_of_usize_and_i32_constants() {
    const LEN: usize = 32;
    const TS: i32 = 32;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.default_view();
        let mut rng = Rng::new(0x75E + k as u64);
        let n = rng.range(1, 9) * TS;
        let xs: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut out = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([n], &xs).unwrap();
            let ov = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let a: [i32; LEN]; }
                tile_static! { let b: [i32; TS]; }
                a[t.local[0]] = xv[t.global];
                b[t.local[0]] = 2 * xv[t.global];
                t.barrier.wait();
                ov[t.global] = a[TS - 1 - t.local[0]] + b[t.local[0]];
            })
            .unwrap();
            ov.synchronize().unwrap();
        }
        for g in 0..n as usize {
            let tile = g / TS as usize * TS as usize;
            let mirrored = tile + TS as usize - 1 - g % TS as usize;
            assert_eq!(out[g], xs[mirrored] + 2 * xs[g], "{acc}: element {g}");
        }
    }
}

/// What a generic-rank helper reads of a captured `TiledExtent`: the
/// product of its tile counts, its tile size, whether it divides, and its
/// rank through `Extent::<N>::rank()`, packed into one `i32`.
fn tiled_extent_summary<const N: usize>(
    view: &AcceleratorView,
    te: TiledExtent<N>,
    out: &ArrayView<'_, i32, 1>,
) -> amp_core::Result<()> {
    parallel_for_each!(view, out.extent(), |i: Index<1>| {
        let counts = te.tile_count();
        let mut tiles = 1;
        for d in 0..N {
            tiles *= counts[d];
        }
        let divisible = if te.is_divisible() { 1 } else { 0 };
        out[i] = ((tiles * 1000 + te.tile_size() as i32) * 2 + divisible) * 10
            + Extent::<N>::rank() as i32;
    })
}

/// A captured `TiledExtent` in kernel code (C++ AMP's `tiled_extent`
/// captured by value, and its members read in `restrict(amp)` code):
/// `te.extent()`, `te.tile_extent()`, `te.tile_count()`, `te.tile_size()`
/// and `te.is_divisible()` in a tiled kernel launched over `te` itself and
/// in a generic-rank helper, against the host's values on random extents;
/// every output element poisoned first.
#[amp_test]
fn tiled_extents_are_captured_and_read_in_kernels() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(0x7E7E + k as u64);
        for _ in 0..3 {
            // A divisible rank-2 domain: launched over `te` itself.
            let (rows, cols) = (4 * rng.range(1, 9), 8 * rng.range(1, 9));
            let mut out = vec![i32::MIN; (rows * cols) as usize];
            {
                let ov = ArrayView::new_mut([rows, cols], &mut out).unwrap();
                let te = ov.extent().tile::<4, 8>().unwrap();
                parallel_for_each!(&view, te, |t: TiledIndex<2>| {
                    let e = te.extent();
                    let tile = te.tile_extent();
                    let counts = te.tile_count();
                    ov[t.global] = (e[0] * 100 + e[1]) * 10000
                        + (tile[0] * 10 + tile[1]) * 100
                        + counts[0] * 10
                        + counts[1];
                })
                .unwrap();
                ov.synchronize().unwrap();
            }
            let want = (rows * 100 + cols) * 10000 + 48 * 100 + (rows / 4) * 10 + cols / 8;
            assert!(
                out.iter().all(|&v| v == want),
                "{acc}: {rows} x {cols}: {:?} != {want}",
                &out[..4]
            );
            // A generic-rank helper over a rank-3 tiled extent that need
            // not divide.
            let ext = Extent::new([rng.range(1, 40), rng.range(1, 40), rng.range(1, 40)]);
            let te = ext.tile::<2, 4, 8>().unwrap();
            let n = rng.range(1, 50);
            let mut got = vec![i32::MIN; n as usize];
            {
                let ov = ArrayView::new_mut([n], &mut got).unwrap();
                tiled_extent_summary(&view, te, &ov).unwrap();
                ov.synchronize().unwrap();
            }
            let c = te.tile_count();
            let tiles = c[0] * c[1] * c[2];
            let want = ((tiles * 1000 + 64) * 2 + i32::from(te.is_divisible())) * 10 + 3;
            assert!(
                got.iter().all(|&v| v == want),
                "{acc}: {ext}: {got:?} != {want}"
            );
        }
    }
}
