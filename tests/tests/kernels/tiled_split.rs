//! Tiled kernels whose control flow crosses barriers, as the CPU
//! accelerator's split form runs them (each region between barriers a loop
//! over the tile's work items; see `amp-macros`' `kernel/split.rs`): locals
//! that live across barriers, `break`/`continue` in loops with barriers,
//! early `return`, `while` conditions on locals, rank 2 and 3 tiles, a
//! kernel the split form leaves to the threaded form, and a failing kernel.
//! Every output element is poisoned first and compared with plain Rust on
//! fresh random inputs on every accelerator.

use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

const T: i32 = 64;

fn own_view(acc: &Accelerator) -> AcceleratorView {
    acc.create_view(QueuingMode::Automatic)
}

/// A uniform `break` out of a `loop` with barriers (tree reduction until
/// the stride reaches zero), a uniform `continue` that skips a barrier
/// step, and locals (`acc`, `stride`, `l`) that live across barriers.
#[amp_test]
fn uniform_break_and_continue_in_loops_with_barriers() {
    const TILES: i32 = 24;
    let n = T * TILES;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(7100 + k as u64);
        let x: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut sums = vec![i32::MIN; n as usize];
        let mut steps = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([n], &x).unwrap();
            let sv = ArrayView::new_mut([n], &mut sums).unwrap();
            let stv = ArrayView::new_mut([n], &mut steps).unwrap();
            let domain = Extent::new([n]).tile::<T>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let part: [i32; T]; }
                let l = t.local[0];
                part[l] = xv[t.global];
                t.barrier.wait();
                let mut stride = T / 2;
                let mut acc = 0;
                loop {
                    if stride == 0 {
                        break;
                    }
                    if l < stride {
                        part[l] += part[l + stride];
                    }
                    acc += 1;
                    t.barrier.wait();
                    stride /= 2;
                }
                // Skip the odd rounds: `continue` before a barrier.
                for round in 0..4 {
                    if round % 2 == 1 {
                        continue;
                    }
                    acc += 10;
                    t.barrier.wait();
                }
                sv[t.global] = part[0];
                stv[t.global] = acc;
            })
            .unwrap();
        }
        if acc.is_cpu() {
            assert_eq!(
                amp_core::__private::kernel::last_tiled_cpu_form(),
                Some("split")
            );
        }
        for tile in 0..TILES as usize {
            let want: i32 = x[tile * T as usize..(tile + 1) * T as usize].iter().sum();
            for i in 0..T as usize {
                let g = tile * T as usize + i;
                assert_eq!(sums[g], want, "{}: sum at {g}", acc.description());
                assert_eq!(steps[g], 6 + 20, "{}: steps at {g}", acc.description());
            }
        }
    }
}

/// A `continue` that only some work items take, at the end of a loop body
/// with a barrier, and an early `return` that only some take after the last
/// barrier: those work items skip the rest, the others go on.
#[amp_test]
fn divergent_continue_and_return_after_the_last_barrier() {
    const TILES: i32 = 16;
    let n = T * TILES;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(7200 + k as u64);
        let x: Vec<i32> = (0..n).map(|_| rng.range(0, 1000)).collect();
        let mut out = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([n], &x).unwrap();
            let ov = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<T>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; T]; }
                let l = t.local[0];
                let mut total = 0;
                for k in 0..5 {
                    s[l] = xv[t.global] + k;
                    t.barrier.wait();
                    let left = s[(l + T - 1) % T];
                    t.barrier.wait();
                    if (left + k) % 3 == 0 {
                        continue;
                    }
                    total += left;
                }
                if xv[t.global] % 4 == 0 {
                    ov[t.global] = -1;
                    return;
                }
                ov[t.global] = total;
            })
            .unwrap();
        }
        for g in 0..n as usize {
            let (tile, l) = (g / T as usize, g % T as usize);
            let want = if x[g] % 4 == 0 {
                -1
            } else {
                let mut total = 0;
                for k in 0..5 {
                    let left = x[tile * T as usize + (l + T as usize - 1) % T as usize] + k;
                    if (left + k) % 3 != 0 {
                        total += left;
                    }
                }
                total
            };
            assert_eq!(out[g], want, "{}: element {g}", acc.description());
        }
    }
}

/// An early `return` that whole tiles take before a barrier (uniform: it
/// depends on the tile), and a `while` whose condition reads a local
/// assigned between barriers.
#[amp_test]
fn uniform_return_before_a_barrier_and_while_on_a_local() {
    const TILES: i32 = 12;
    let n = T * TILES;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(7300 + k as u64);
        let x: Vec<f32> = (0..n).map(|_| rng.range(-500, 500) as f32 / 8.0).collect();
        let mut out = vec![f32::NAN; n as usize];
        {
            let xv = ArrayView::new([n], &x).unwrap();
            let ov = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<T>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let s: [f32; T]; }
                if t.tile[0] % 3 == 2 {
                    return;
                }
                let l = t.local[0];
                let mut width = 1;
                let mut v = xv[t.global];
                while width < 8 {
                    s[l] = v;
                    t.barrier.wait();
                    if l >= width {
                        v += s[l - width];
                    }
                    t.barrier.wait();
                    width *= 2;
                }
                ov[t.global] = v;
            })
            .unwrap();
        }
        for (g, &got) in out.iter().enumerate() {
            let (tile, l) = (g / T as usize, g % T as usize);
            if tile % 3 == 2 {
                assert!(got.is_nan(), "{}: element {g} written", acc.description());
                continue;
            }
            // A scan of width 8 over the tile, step by step.
            let mut v: Vec<f32> = x[tile * T as usize..(tile + 1) * T as usize].to_vec();
            let mut width = 1;
            while width < 8 {
                let prev = v.clone();
                for i in width..T as usize {
                    v[i] = prev[i] + prev[i - width];
                }
                width *= 2;
            }
            assert_eq!(got, v[l], "{}: element {g}", acc.description());
        }
    }
}

/// Rank 2 and rank 3 tiles: a transpose through `tile_static` (rank 2) and
/// a sum over the z axis of each 2x4x8 tile (rank 3).
#[amp_test]
fn rank_two_and_three_tiles_exchange_through_tile_static() {
    const S: i32 = 16;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(7400 + k as u64);
        let (rows, cols) = (3 * S, 5 * S);
        let m: Vec<u32> = (0..rows * cols).map(|_| rng.next_u64() as u32).collect();
        let mut tr = vec![0xDEAD_BEEFu32; (rows * cols) as usize];
        {
            let mv = ArrayView::new([rows, cols], &m).unwrap();
            let tv = ArrayView::new_mut([cols, rows], &mut tr).unwrap();
            let domain = Extent::new([rows, cols]).tile::<S, S>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<2>| {
                tile_static! { let blk: [[u32; S]; S]; }
                let (r, c) = (t.local[0], t.local[1]);
                blk[r][c] = mv[t.global];
                t.barrier.wait();
                let o = t.tile_origin;
                tv[[o[1] + r, o[0] + c]] = blk[c][r];
            })
            .unwrap();
        }
        for r in 0..rows as usize {
            for c in 0..cols as usize {
                assert_eq!(
                    tr[c * rows as usize + r],
                    m[r * cols as usize + c],
                    "{}: transpose at {r},{c}",
                    acc.description()
                );
            }
        }

        let e = [4, 8, 16];
        let len = (e[0] * e[1] * e[2]) as usize;
        let x: Vec<i32> = (0..len).map(|_| rng.range(-100, 100)).collect();
        let mut out = vec![i32::MIN; len];
        {
            let xv = ArrayView::new(e, &x).unwrap();
            let ov = ArrayView::new_mut(e, &mut out).unwrap();
            let domain = Extent::new(e).tile::<2, 4, 8>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<3>| {
                tile_static! { let s: [[[i32; 8]; 4]; 2]; }
                let (a, b, c) = (t.local[0], t.local[1], t.local[2]);
                s[a][b][c] = xv[t.global];
                t.barrier.wait();
                let mut sum = 0;
                for z in 0..8 {
                    sum += s[a][b][z];
                }
                ov[t.global] = sum;
            })
            .unwrap();
        }
        for i in 0..e[0] as usize {
            for j in 0..e[1] as usize {
                for z in 0..e[2] as usize {
                    let base = (i * e[1] as usize + j) * e[2] as usize;
                    let tile_z = z / 8 * 8;
                    let want: i32 = x[base + tile_z..base + tile_z + 8].iter().sum();
                    assert_eq!(
                        out[base + z],
                        want,
                        "{}: sum at {i},{j},{z}",
                        acc.description()
                    );
                }
            }
        }
    }
}

/// A local used across a barrier whose name is declared again (`let v`
/// twice) runs in the split form (the locals are renamed apart first: it
/// fell back to the threaded form, 250-330x slower, without a word), and a
/// kernel outside what the split form covers (a local declared without a
/// value and used across a barrier) runs in the threaded form: the same
/// results either way, and the launch says which form ran.
#[amp_test]
// Runs in the CPU accelerator's threaded form (the macro's warning says why).
#[allow(deprecated)]
fn a_kernel_left_to_the_threaded_form_gives_the_same_results() {
    const TILES: i32 = 4;
    let n = T * TILES;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(7500 + k as u64);
        let x: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut out = vec![i32::MIN; n as usize];
        let mut out2 = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([n], &x).unwrap();
            let ov = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<T>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; T]; }
                let v = xv[t.global];
                s[t.local[0]] = v;
                t.barrier.wait();
                let right = s[(t.local[0] + 1) % T];
                let v = v * 2 + right;
                ov[t.global] = v;
            })
            .unwrap();
            if acc.is_cpu() {
                assert_eq!(
                    amp_core::__private::kernel::last_tiled_cpu_form(),
                    Some("split")
                );
            }
            let ov2 = ArrayView::new_mut([n], &mut out2).unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; T]; }
                let v;
                v = xv[t.global];
                s[t.local[0]] = v;
                t.barrier.wait();
                let right = s[(t.local[0] + 1) % T];
                ov2[t.global] = v * 2 + right;
            })
            .unwrap();
            if acc.is_cpu() {
                assert_eq!(
                    amp_core::__private::kernel::last_tiled_cpu_form(),
                    Some("threaded")
                );
            }
        }
        for g in 0..n as usize {
            let (tile, l) = (g / T as usize, g % T as usize);
            let right = x[tile * T as usize + (l + 1) % T as usize];
            let what = acc.description();
            assert_eq!(out[g], x[g] * 2 + right, "{what}: element {g}");
            assert_eq!(out2[g], x[g] * 2 + right, "{what}: element {g}");
        }
    }
}

/// A split kernel that indexes out of bounds after a barrier fails with an
/// error and leaves the data it had written as it was.
#[test]
fn a_failing_split_kernel_leaves_data_as_it_was() {
    let n = T * 8;
    let acc = Accelerator::cpu();
    let view = own_view(&acc);
    let before: Vec<i32> = (0..n).collect();
    let mut data = before.clone();
    let short = vec![1i32; (n - 1) as usize];
    {
        let dv = ArrayView::new_mut([n], &mut data).unwrap();
        let sv = ArrayView::new([n - 1], &short).unwrap();
        let domain = Extent::new([n]).tile::<T>().unwrap();
        let result = parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
            tile_static! { let s: [i32; T]; }
            s[t.local[0]] = 5;
            dv[t.global] = -7;
            t.barrier.wait();
            dv[t.global] = s[t.local[0]] + sv[t.global];
        })
        .and_then(|()| dv.synchronize());
        let err = result.expect_err("the last element is out of bounds of `sv`");
        assert!(err.to_string().contains("out of bounds"), "{err}");
    }
    assert_eq!(data, before);
}

/// Reversed loops with barriers inside: a tree reduction whose strides
/// come from `(0..levels).rev()`, over a captured level count (a loop the
/// split form keeps at tile level) and over constants (unrolled on GPUs).
#[amp_test]
fn reversed_loops_with_barriers() {
    const TILES: i32 = 12;
    let n = T * TILES;
    let levels = T.trailing_zeros() as i32;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = own_view(&acc);
        let mut rng = Rng::new(7600 + k as u64);
        let x: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut sums = vec![i32::MIN; n as usize];
        let mut again = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([n], &x).unwrap();
            let sv = ArrayView::new_mut([n], &mut sums).unwrap();
            let av = ArrayView::new_mut([n], &mut again).unwrap();
            let domain = Extent::new([n]).tile::<T>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let part: [i32; T]; let more: [i32; T]; }
                let l = t.local[0];
                part[l] = xv[t.global];
                more[l] = xv[t.global];
                t.barrier.wait();
                for p in (0..levels).rev() {
                    let stride = 1 << p;
                    if l < stride {
                        part[l] += part[l + stride];
                    }
                    t.barrier.wait();
                }
                for p in (0..6).rev() {
                    let stride = 1 << p;
                    if l < stride {
                        more[l] += more[l + stride];
                    }
                    t.barrier.wait();
                }
                sv[t.global] = part[0];
                av[t.global] = more[0];
            })
            .unwrap();
        }
        for tile in 0..TILES as usize {
            let want: i32 = x[tile * T as usize..(tile + 1) * T as usize].iter().sum();
            for i in 0..T as usize {
                let g = tile * T as usize + i;
                assert_eq!(sums[g], want, "{}: sum at {g}", acc.description());
                assert_eq!(
                    again[g],
                    want,
                    "{}: constant-range sum at {g}",
                    acc.description()
                );
            }
        }
    }
}
