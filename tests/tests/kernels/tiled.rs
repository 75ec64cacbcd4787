//! Tiled kernels (C++ AMP spec chapters 7 and 8): `TiledIndex` fields,
//! `tile_static` memory shared by a tile, barriers, the tiled matrix
//! multiplication of the C++ AMP samples, and domain errors; every result
//! compared with plain Rust on every accelerator.

use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

const TS: i32 = 16;

#[amp_test]
fn tiled_matrix_multiplication() {
    let (m, w, n) = (64, 48, 80);
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(40 + k as u64);
        let va: Vec<f32> = (0..m * w)
            .map(|_| rng.range(-100, 100) as f32 / 16.0)
            .collect();
        let vb: Vec<f32> = (0..w * n)
            .map(|_| rng.range(-100, 100) as f32 / 16.0)
            .collect();
        let mut vc = vec![f32::NAN; (m * n) as usize];
        {
            let a = ArrayView::new([m, w], &va).unwrap();
            let b = ArrayView::new([w, n], &vb).unwrap();
            let c = ArrayView::new_mut([m, n], &mut vc).unwrap();
            c.discard_data();
            parallel_for_each!(
                acc.default_view(),
                c.extent().tile::<TS, TS>().unwrap(),
                |t: TiledIndex<2>| {
                    let row = t.local[0];
                    let col = t.local[1];
                    let mut sum = 0.0f32;
                    let mut i = 0;
                    while i < w {
                        tile_static! {
                            let loc_a: [[f32; TS]; TS];
                            let loc_b: [[f32; TS]; TS];
                        }
                        loc_a[row][col] = a[[t.global[0], col + i]];
                        loc_b[row][col] = b[[row + i, t.global[1]]];
                        t.barrier.wait();
                        for kk in 0..TS {
                            sum += loc_a[row][kk] * loc_b[kk][col];
                        }
                        t.barrier.wait();
                        i += TS;
                    }
                    c[t.global] = sum;
                }
            )
            .unwrap();
        }
        for r in 0..m as usize {
            for col in 0..n as usize {
                let want: f32 = (0..w as usize)
                    .map(|i| va[r * w as usize + i] * vb[i * n as usize + col])
                    .sum();
                let got = vc[r * n as usize + col];
                assert!(
                    (got - want).abs() <= 1e-3 * want.abs().max(1.0),
                    "{acc} ({r}, {col}): {got} vs {want}"
                );
            }
        }
    }
}

#[amp_test]
fn tiled_index_fields_and_shared_memory() {
    // An 8x6 extent tiled 2x2 (and a 3-D boundary shape <64, 4, 4>).
    for acc in accelerators() {
        let mut out = vec![-1i32; 8 * 6 * 5];
        {
            let o = ArrayView::new_mut([8, 6, 5], &mut out).unwrap();
            let domain = Extent::new([8, 6]).tile::<2, 2>().unwrap();
            parallel_for_each!(acc.default_view(), domain, |t: TiledIndex<2>| {
                tile_static! { let seen: [[i32; 2]; 2]; }
                // Every thread writes its cell; after the barrier each reads
                // its neighbour's, written by another thread of the tile.
                seen[t.local[0]][t.local[1]] = t.global[0] * 100 + t.global[1];
                t.barrier.wait_with_tile_static_memory_fence();
                let other = seen[1 - t.local[0]][1 - t.local[1]];
                let g = t.global;
                o[[g[0], g[1], 0]] = t.local[0] * 10 + t.local[1];
                o[[g[0], g[1], 1]] = t.tile[0] * 10 + t.tile[1];
                o[[g[0], g[1], 2]] = t.tile_origin[0] * 10 + t.tile_origin[1];
                o[[g[0], g[1], 3]] = other;
                o[[g[0], g[1], 4]] = t.tile_extent[0] * 10 + t.tile_extent[1];
            })
            .unwrap();
        }
        for gy in 0..8 {
            for gx in 0..6 {
                let at = |f: usize| out[(gy * 6 + gx) * 5 + f];
                let (ly, lx) = (gy % 2, gx % 2);
                assert_eq!(at(0) as usize, ly * 10 + lx, "{acc} local ({gy},{gx})");
                assert_eq!(at(1) as usize, (gy / 2) * 10 + gx / 2, "{acc} tile");
                assert_eq!(at(2) as usize, (gy - ly) * 10 + (gx - lx), "{acc} origin");
                let (oy, ox) = (gy - ly + (1 - ly), gx - lx + (1 - lx));
                assert_eq!(at(3) as usize, oy * 100 + ox, "{acc} neighbour ({gy},{gx})");
                assert_eq!(at(4), 22, "{acc} tile extent");
            }
        }
        // The conformance case: global (6, 3) has local (0, 1), tile (3, 1), origin (6, 2).
        let at = |f: usize| out[(6 * 6 + 3) * 5 + f];
        assert_eq!((at(0), at(1), at(2)), (1, 31, 62), "{acc}");

        // A boundary tile shape, <64, 4, 4> (1024 threads).
        let mut sums = vec![0u32; 64 * 8 * 4];
        {
            let s = ArrayView::new_mut([64, 8, 4], &mut sums).unwrap();
            let domain = s.extent().tile::<64, 4, 4>().unwrap();
            parallel_for_each!(acc.default_view(), domain, |t: TiledIndex<3>| {
                tile_static! { let count: [u32; 1024]; }
                let me = (t.local[0] * 16 + t.local[1] * 4 + t.local[2]) as u32;
                count[me as usize] = me;
                t.barrier.wait();
                let mut total = 0u32;
                for i in 0..1024 {
                    total += count[i as usize];
                }
                s[t.global] = total;
            })
            .unwrap();
        }
        assert!(
            sums.iter().all(|&x| x == 1023 * 1024 / 2),
            "{acc}: every thread saw the whole tile"
        );
    }
}

#[amp_test]
fn tiled_domain_errors() {
    for acc in accelerators() {
        let mut data = vec![7u32; 1764];
        let v = ArrayView::new_mut([1764], &mut data).unwrap();
        let domain = Extent::new([1764]).tile::<19>().unwrap();
        let err = parallel_for_each!(acc.default_view(), domain, |t: TiledIndex<1>| {
            v[t.global] = 1;
        })
        .unwrap_err();
        assert!(
            matches!(err, Error::InvalidComputeDomain(_)),
            "{acc}: {err:?}"
        );
        // Padded, it runs (and the extra threads must not write).
        let padded = domain.pad().unwrap();
        parallel_for_each!(acc.default_view(), padded, |t: TiledIndex<1>| {
            if t.global[0] < 1764 {
                v[t.global] = 1;
            }
        })
        .unwrap();
        assert!(v.to_vec().unwrap().iter().all(|&x| x == 1), "{acc}");
    }
}

#[amp_test]
fn tiled_domain_errors_leave_data_unchanged() {
    // CONFORMANCE ch. 7: 1024 / 1023 and 1023 / 1024 do not divide; zero and
    // negative extents are invalid. Nothing runs, no data changes.
    for acc in accelerators() {
        let mut rng = Rng::new(77);
        let before: Vec<i32> = (0..1024).map(|_| rng.range(-1000, 1000)).collect();
        let mut data = before.clone();
        {
            let v = ArrayView::new_mut([1024], &mut data).unwrap();
            let cases = [
                Extent::new([1024]).tile::<1023>().unwrap(),
                Extent::new([1023]).tile::<1024>().unwrap(),
            ];
            for domain in cases {
                let err = parallel_for_each!(acc.default_view(), domain, |t: TiledIndex<1>| {
                    v[t.global] = -1;
                })
                .unwrap_err();
                assert!(
                    matches!(err, Error::InvalidComputeDomain(_)),
                    "{acc} {domain:?}: {err:?}"
                );
            }
            for bad in [[0, 8], [-8, 8], [8, 0]] {
                // Refused when tiled, before any launch.
                let err = Extent::new(bad).tile::<4, 4>().unwrap_err();
                assert!(
                    matches!(err, Error::InvalidComputeDomain(_)),
                    "{acc} {bad:?}: {err:?}"
                );
            }
        }
        assert_eq!(data, before, "{acc}: a refused launch changed data");
    }
}

#[amp_test]
fn more_than_65535_tiles_in_a_dimension() {
    // 70 000 tiles of 2 threads along one dimension (beyond the 65535
    // workgroups a GPU dispatches per dimension), then 2 x 70 000 tiles of a
    // rank-2 domain: every work item runs once, with the right tile fields,
    // and the tile's threads see each other's tile_static writes.
    const TILES: i32 = 70_000;
    for acc in accelerators() {
        let mut rng = Rng::new(91);
        let input: Vec<i32> = (0..2 * TILES)
            .map(|_| rng.range(-1 << 20, 1 << 20))
            .collect();
        let mut out = vec![i32::MIN; (2 * TILES) as usize];
        {
            let x = ArrayView::new([2 * TILES], &input).unwrap();
            let o = ArrayView::new_mut([2 * TILES], &mut out).unwrap();
            o.discard_data();
            let domain = o.extent().tile::<2>().unwrap();
            parallel_for_each!(acc.default_view(), domain, |t: TiledIndex<1>| {
                tile_static! { let pair: [i32; 2]; }
                pair[t.local[0]] = x[t.global];
                t.barrier.wait();
                // The partner's value, written by the other thread of the tile.
                o[t.global] = pair[1 - t.local[0]];
            })
            .unwrap();
        }
        for (i, &got) in out.iter().enumerate() {
            assert_eq!(got, input[i ^ 1], "{acc}: element {i}");
        }

        let mut tiles = vec![-1i32; (2 * TILES) as usize * 2];
        {
            let o = ArrayView::new_mut([4, TILES], &mut tiles).unwrap();
            let domain = o.extent().tile::<2, 1>().unwrap();
            parallel_for_each!(acc.default_view(), domain, |t: TiledIndex<2>| {
                o[t.global] = t.tile[0] * TILES + t.tile[1];
            })
            .unwrap();
        }
        for r in 0..4 {
            for c in 0..TILES {
                let got = tiles[(r * TILES + c) as usize];
                assert_eq!(got, (r / 2) * TILES + c, "{acc}: ({r}, {c})");
            }
        }
    }
}

#[amp_test]
fn barriers_after_divergent_loops_are_accepted_and_run() {
    // Threads leave the search loop at different iterations (a thread-
    // dependent `break`) and skip iterations (`continue`), then meet again
    // after the loops: the barrier there is uniform, as C++ AMP allows.
    for acc in accelerators() {
        let mut rng = Rng::new(123);
        let input: Vec<i32> = (0..256 * 8).map(|_| rng.range(0, 100)).collect();
        let mut out = vec![i32::MIN; 256];
        {
            let a = ArrayView::new([256, 8], &input).unwrap();
            let o = ArrayView::new_mut([256], &mut out).unwrap();
            o.discard_data();
            let domain = o.extent().tile::<16>().unwrap();
            parallel_for_each!(acc.default_view(), domain, |t: TiledIndex<1>| {
                tile_static! { let found: [i32; 16]; }
                let row = t.global[0];
                // The first column holding a value >= 50, or 8.
                let mut first = 8;
                for k in 0..8 {
                    if a[[row, k]] >= 50 {
                        first = k;
                        break;
                    }
                }
                // Plus the number of odd values.
                let mut odd = 0;
                for k in 0..8 {
                    if a[[row, k]] % 2 == 0 {
                        continue;
                    }
                    odd += 1;
                }
                found[t.local[0]] = first * 100 + odd;
                t.barrier.wait();
                o[t.global] = found[15 - t.local[0]];
            })
            .unwrap();
        }
        for (i, &got) in out.iter().enumerate() {
            let partner = i - i % 16 + (15 - i % 16);
            let row = &input[partner * 8..partner * 8 + 8];
            let first = row.iter().position(|&v| v >= 50).unwrap_or(8) as i32;
            let odd = row.iter().filter(|&&v| v % 2 != 0).count() as i32;
            assert_eq!(got, first * 100 + odd, "{acc}: element {i}");
        }
    }
}
