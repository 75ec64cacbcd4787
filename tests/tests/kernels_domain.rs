//! `parallel_for_each` compute domains (C++ AMP spec ch. 7, the non-tiled
//! cases of CONFORMANCE.md): every index of the domain is visited exactly
//! once for extents 1, 255, 1024, 1025, (25, 41), (5, 5, 41), a rank-4 and a
//! rank-6 domain, and a 1-D domain of more than 65535 workgroups of 256
//! (16 777 219 work items on GPUs); zero, negative and oversized extents
//! fail with `InvalidComputeDomain` before anything runs or moves (the host
//! data, the transfer counters and the view's command count are unchanged);
//! a domain smaller than the captured views touches only its indices.
//!
//! Each work item records its index in an output element chosen by that
//! index (with a value that encodes the components independently of the
//! element's position, so a wrong index cannot write the value expected at
//! the place it hits) and increments a per-element counter; the host checks
//! every value and that every counter is exactly 1.

mod kernel_support;

use amp_core::prelude::*;
use amp_tests::Rng;
use kernel_support::*;

/// Rank-1 domains of `n` work items.
fn visit_1d(view: &AcceleratorView, n: i32, what: &str) {
    let len = n as usize;
    let mut seen = vec![POISON_U32; len];
    let mut count = vec![0u32; len];
    {
        let s = ArrayView::new_mut([n], &mut seen).unwrap();
        let c = ArrayView::new_mut([n], &mut count).unwrap();
        s.discard_data();
        parallel_for_each!(view, [n], |idx: Index<1>| {
            s[idx] = (idx[0] as u32) ^ 0x5555_0000;
            c[idx] += 1;
        })
        .unwrap();
    }
    for i in 0..len {
        assert_eq!(
            seen[i],
            (i as u32) ^ 0x5555_0000,
            "{what} n = {n}: index {i}"
        );
        assert_eq!(
            count[i], 1,
            "{what} n = {n}: index {i} visited {} times",
            count[i]
        );
    }
}

/// Extents 1, 255, 256, 257, 1024 and 1025 (one workgroup, partial and
/// whole workgroups).
#[test]
fn rank_1_domains_visit_every_index_once() {
    for (view, what) in all_views() {
        for n in [1, 255, 256, 257, 1024, 1025] {
            visit_1d(&view, n, &what);
        }
    }
}

/// A (25, 41) domain, checked through a rank-2 view and through a rank-1
/// view indexed by the row-major linear index computed in the kernel.
#[test]
fn rank_2_domain_25_by_41() {
    for (view, what) in all_views() {
        let (h, w) = (25usize, 41usize);
        let mut seen = vec![POISON_U32; h * w];
        let mut count = vec![0u32; h * w];
        let mut linear = vec![POISON_U32; h * w];
        {
            let s = ArrayView::new_mut([h as i32, w as i32], &mut seen).unwrap();
            let c = ArrayView::new_mut([h as i32, w as i32], &mut count).unwrap();
            let l = ArrayView::new_mut([(h * w) as i32], &mut linear).unwrap();
            let width = w as i32;
            parallel_for_each!(view, Extent::new([h as i32, w as i32]), |idx: Index<2>| {
                s[idx] = (idx[0] * 1000 + idx[1]) as u32;
                c[idx] += 1;
                l[idx[0] * width + idx[1]] = (idx[1] * 1000 + idx[0]) as u32;
            })
            .unwrap();
        }
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                assert_eq!(seen[i], (y * 1000 + x) as u32, "{what} ({y}, {x})");
                assert_eq!(count[i], 1, "{what} ({y}, {x}) visited {} times", count[i]);
                assert_eq!(linear[i], (x * 1000 + y) as u32, "{what} linear ({y}, {x})");
            }
        }
    }
}

/// A (5, 5, 41) domain.
#[test]
fn rank_3_domain_5_5_41() {
    for (view, what) in all_views() {
        let e = [5usize, 5, 41];
        let total = e.iter().product::<usize>();
        let mut seen = vec![POISON_U32; total];
        let mut count = vec![0u32; total];
        {
            let ext = [e[0] as i32, e[1] as i32, e[2] as i32];
            let s = ArrayView::new_mut(ext, &mut seen).unwrap();
            let c = ArrayView::new_mut(ext, &mut count).unwrap();
            c.discard_data();
            parallel_for_each!(view, s.extent(), |idx: Index<3>| {
                s[idx] = (idx[0] * 1_000_000 + idx[1] * 1000 + idx[2]) as u32;
                c[idx] = 1;
            })
            .unwrap();
        }
        let mut i = 0;
        for z in 0..e[0] {
            for y in 0..e[1] {
                for x in 0..e[2] {
                    assert_eq!(
                        seen[i],
                        (z * 1_000_000 + y * 1000 + x) as u32,
                        "{what} ({z}, {y}, {x})"
                    );
                    assert_eq!(count[i], 1, "{what} ({z}, {y}, {x})");
                    i += 1;
                }
            }
        }
    }
}

/// Rank-4 (3, 1, 7, 11) and rank-6 (2, 3, 4, 1, 5, 3) domains, each index
/// packed in 4-bit fields, also written through a rank-1 view at the
/// row-major linear index computed in the kernel.
#[test]
fn rank_4_and_rank_6_domains() {
    fn pack(idx: &[usize]) -> u32 {
        idx.iter().fold(0u32, |acc, &v| (acc << 4) | v as u32)
    }
    for (view, what) in all_views() {
        // Rank 4.
        let e4 = [3usize, 1, 7, 11];
        let n4: usize = e4.iter().product();
        let mut seen4 = vec![POISON_U32; n4];
        let mut count4 = vec![0u32; n4];
        {
            let ext = [e4[0] as i32, e4[1] as i32, e4[2] as i32, e4[3] as i32];
            let s = ArrayView::new_mut(ext, &mut seen4).unwrap();
            let c = ArrayView::new_mut([n4 as i32], &mut count4).unwrap();
            let dims = s.extent();
            let (d1, d2, d3) = (dims[1], dims[2], dims[3]);
            parallel_for_each!(view, dims, |idx: Index<4>| {
                let mut packed = 0u32;
                for d in 0..4 {
                    packed = (packed << 4) | idx[d] as u32;
                }
                s[idx] = packed;
                let lin = ((idx[0] * d1 + idx[1]) * d2 + idx[2]) * d3 + idx[3];
                c[lin] += 1;
            })
            .unwrap();
        }
        let mut i = 0;
        for a in 0..e4[0] {
            for b in 0..e4[1] {
                for c in 0..e4[2] {
                    for d in 0..e4[3] {
                        assert_eq!(seen4[i], pack(&[a, b, c, d]), "{what} rank 4 at {i}");
                        assert_eq!(count4[i], 1, "{what} rank 4 at {i}");
                        i += 1;
                    }
                }
            }
        }

        // Rank 6.
        let e6 = [2usize, 3, 4, 1, 5, 3];
        let n6: usize = e6.iter().product();
        let mut seen6 = vec![POISON_U32; n6];
        let mut linear6 = vec![POISON_U32; n6];
        {
            let ext: [i32; 6] = std::array::from_fn(|d| e6[d] as i32);
            let s = ArrayView::new_mut(ext, &mut seen6).unwrap();
            let l = ArrayView::new_mut([n6 as i32], &mut linear6).unwrap();
            let dims = s.extent();
            let (d1, d2, d3, d4, d5) = (dims[1], dims[2], dims[3], dims[4], dims[5]);
            parallel_for_each!(view, dims, |idx: Index<6>| {
                let mut packed = 0u32;
                for d in 0..6 {
                    packed = (packed << 4) | idx[d] as u32;
                }
                s[idx] += packed - POISON_U32;
                let lin = ((((idx[0] * d1 + idx[1]) * d2 + idx[2]) * d3 + idx[3]) * d4 + idx[4])
                    * d5
                    + idx[5];
                l[lin] = packed;
            })
            .unwrap();
        }
        let mut i = 0;
        for a in 0..e6[0] {
            for b in 0..e6[1] {
                for c in 0..e6[2] {
                    for d in 0..e6[3] {
                        for e in 0..e6[4] {
                            for f in 0..e6[5] {
                                let p = pack(&[a, b, c, d, e, f]);
                                assert_eq!(seen6[i], p, "{what} rank 6 at {i} (visited once)");
                                assert_eq!(linear6[i], p, "{what} rank 6 linear {i}");
                                i += 1;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A 1-D domain of more than 65535 workgroups of 256 threads (the
/// per-dimension dispatch limit of wgpu): 65536 * 256 + 3 work items on
/// GPUs (one 64 MiB `u32` array on the device; a second kernel checks it
/// there and only per-chunk counts come back), 2^20 + 3 on the CPU.
#[test]
fn large_1d_domain_beyond_65535_workgroups() {
    const MIX: u32 = 0x9E37_79B9;
    const CHUNK: i32 = 4096;
    for (view, what) in default_views() {
        let n: i32 = if view.accelerator().is_cpu() {
            (1 << 20) + 3
        } else {
            65536 * 256 + 3
        };
        if !view.accelerator().is_cpu() {
            let groups = (n as u32).div_ceil(256);
            assert!(
                groups > view.accelerator().limits().max_tiles_per_dimension,
                "{what}"
            );
        }
        let big = Array::<u32, 1>::new([n], &view).unwrap();
        parallel_for_each!(view, big.extent(), |idx: Index<1>| {
            big[idx] += (idx[0] as u32) ^ MIX;
        })
        .unwrap();
        let chunks = (n + CHUNK - 1) / CHUNK;
        let good = Array::<u32, 1>::new([chunks], &view).unwrap();
        let first_bad = Array::<i32, 1>::new([chunks], &view).unwrap();
        parallel_for_each!(view, good.extent(), |t: Index<1>| {
            let start = t[0] * CHUNK;
            let end = (start + CHUNK).min(n);
            let mut ok = 0u32;
            let mut bad = -1;
            for j in start..end {
                if big[j] == (j as u32) ^ MIX {
                    ok += 1;
                } else if bad < 0 {
                    bad = j;
                }
            }
            good[t] = ok;
            first_bad[t] = bad;
        })
        .unwrap();
        let good = good.to_vec().unwrap();
        let first_bad = first_bad.to_vec().unwrap();
        let bad: Vec<i32> = first_bad
            .iter()
            .copied()
            .filter(|b| *b >= 0)
            .take(5)
            .collect();
        assert!(bad.is_empty(), "{what}: wrong elements at {bad:?}");
        let total: u64 = good.iter().map(|g| u64::from(*g)).sum();
        assert_eq!(total, n as u64, "{what}: elements visited exactly once");
        // Spot-check the far end on the host.
        let tail = big.section([n - 3], [3]).unwrap().to_vec().unwrap();
        let want: Vec<u32> = (n - 3..n).map(|j| (j as u32) ^ MIX).collect();
        assert_eq!(tail, want, "{what}: last elements");
    }
}

/// Zero, negative and oversized extents (rank 1, 2, 3 and 6) fail with
/// `InvalidComputeDomain`; no kernel is recorded, nothing is transferred,
/// the data is unchanged, and a valid launch afterwards works.
#[test]
fn invalid_domains_fail_before_anything_runs() {
    for (view, what) in all_views() {
        let mut data = vec![7u32; 16];
        let input = vec![1u32; 16];
        {
            let o = ArrayView::new_mut([16], &mut data).unwrap();
            let a = ArrayView::new([16], &input).unwrap();
            let check = |r: amp_core::Result<()>, domain: &str| {
                assert!(
                    matches!(r, Err(Error::InvalidComputeDomain(_))),
                    "{what} domain {domain}: {r:?}"
                );
            };
            for e in [[0], [-1], [i32::MIN]] {
                let r = parallel_for_each!(view, Extent::new(e), |idx: Index<1>| {
                    o[idx] = a[idx] + 98;
                });
                check(r, &format!("{e:?}"));
            }
            for e in [[3, 0], [0, 3], [4, -2], [-4, -2], [65536, 65537]] {
                let r = parallel_for_each!(view, Extent::new(e), |idx: Index<2>| {
                    o[idx[0]] = a[idx[1]] + 98;
                });
                check(r, &format!("{e:?}"));
            }
            for e in [[0, 0, 0], [2, 2, -1], [2048, 2048, 1025]] {
                let r = parallel_for_each!(view, Extent::new(e), |idx: Index<3>| {
                    o[idx[2]] = 99;
                });
                check(r, &format!("{e:?}"));
            }
            for e in [[1, 2, 3, 0, 2, 1], [1, 1, 1, 1, 1, -1]] {
                let r = parallel_for_each!(view, Extent::new(e), |_idx: Index<6>| {
                    o[0] = 99;
                });
                check(r, &format!("{e:?}"));
            }
            let t = view.transfers();
            assert_eq!(
                (t.uploads, t.downloads),
                (0, 0),
                "{what}: transfers after invalid launches"
            );
            assert_eq!(
                view.statistics().commands,
                0,
                "{what}: commands after invalid launches"
            );
            assert_eq!(
                o.to_vec().unwrap(),
                vec![7; 16],
                "{what}: data after invalid launches"
            );
            // The view still works.
            parallel_for_each!(view, Extent::new([8]), |idx: Index<1>| {
                o[idx] = a[idx] + 98;
            })
            .unwrap();
        }
        let mut want = vec![99u32; 8];
        want.extend([7; 8]);
        assert_eq!(data, want, "{what}: after a valid launch");
    }
}

/// A domain smaller than the captured views visits only its own indices:
/// the rest of the (uploaded, not discarded) output keeps its values.
#[test]
fn domain_smaller_than_the_views() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(8000 + k as u64);
        let (h, w) = (20usize, 20usize);
        let a = i32s(&mut rng, h * w, -100, 100);
        let mut out = vec![POISON_I32; h * w];
        {
            let av = ArrayView::new([h as i32, w as i32], &a).unwrap();
            let o = ArrayView::new_mut([h as i32, w as i32], &mut out).unwrap();
            parallel_for_each!(view, Extent::new([5, 7]), |idx: Index<2>| {
                o[idx] = av[idx] * 3;
            })
            .unwrap();
        }
        for y in 0..h {
            for x in 0..w {
                let want = if y < 5 && x < 7 {
                    a[y * w + x] * 3
                } else {
                    POISON_I32
                };
                assert_eq!(out[y * w + x], want, "{what} ({y}, {x})");
            }
        }
    }
}

/// `a.extent()` and `a.extent()[k]` inside kernels, of a view, a section of
/// it (its own extent, not its parent's) and an `Array`, in a plain and in
/// a tiled kernel: row sums whose loop bound is read from the view, and
/// the extents themselves, compared with the host's.
#[test]
fn extents_of_captured_containers_in_kernels() {
    const ROWS: i32 = 37;
    const COLS: i32 = 23;
    for (k, acc) in amp_tests::accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(9700 + k as u64);
        let m: Vec<i32> = (0..ROWS * COLS).map(|_| rng.range(-100, 100)).collect();
        let arr = Array::<f32, 3>::new([2, 3, 4], &view).unwrap();
        let mut sums = vec![i32::MIN; ROWS as usize];
        let mut shapes = vec![[i32::MIN; 5]; ROWS as usize];
        let mut tiled = vec![i32::MIN; 64];
        {
            let mv = ArrayView::new([ROWS, COLS], &m).unwrap();
            let sec = mv.section([3, 5], [10, 7]).unwrap();
            let sv = ArrayView::new_mut([ROWS], &mut sums).unwrap();
            let hv = ArrayView::new_mut([ROWS], &mut shapes).unwrap();
            parallel_for_each!(&view, sv.extent(), |idx: Index<1>| {
                let mut s = 0;
                for c in 0..mv.extent()[1] {
                    s += mv[[idx[0], c]];
                }
                sv[idx] = s;
                let e = sec.extent();
                hv[idx] = [
                    e[0],
                    e[1],
                    mv.extent()[0],
                    arr.extent()[2] * 100 + arr.extent()[1] * 10 + arr.extent()[0],
                    sv.extent()[0],
                ];
            })
            .unwrap();
            let tv = ArrayView::new_mut([64], &mut tiled).unwrap();
            let domain = Extent::new([64]).tile::<16>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; 16]; }
                s[t.local[0]] = tv.extent()[0] - t.global[0];
                t.barrier.wait();
                tv[t.global] = s[15 - t.local[0]] + mv.extent()[1];
            })
            .unwrap();
        }
        for r in 0..ROWS as usize {
            let want: i32 = m[r * COLS as usize..(r + 1) * COLS as usize].iter().sum();
            assert_eq!(sums[r], want, "{}: row {r}", acc.description());
            assert_eq!(shapes[r], [10, 7, ROWS, 432, ROWS], "{}", acc.description());
        }
        for (g, &v) in tiled.iter().enumerate() {
            let partner = (g / 16) * 16 + 15 - g % 16;
            assert_eq!(v, 64 - partner as i32 + COLS, "{}: {g}", acc.description());
        }
    }
}
