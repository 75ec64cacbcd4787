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

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_tests::Rng;
use amp_tests::amp_test;

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
#[amp_test]
fn rank_1_domains_visit_every_index_once() {
    for (view, what) in all_views() {
        for n in [1, 255, 256, 257, 1024, 1025] {
            visit_1d(&view, n, &what);
        }
    }
}

/// A (25, 41) domain, checked through a rank-2 view and through a rank-1
/// view indexed by the row-major linear index computed in the kernel.
#[amp_test]
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
#[amp_test]
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
#[amp_test]
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
#[amp_test]
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
#[amp_test]
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
#[amp_test]
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

/// `a.extent()` and `a.extent()[k]` (and C++ AMP's data-member spelling
/// `a.extent`, `a.extent[k]`) inside kernels, of a view, a section of
/// it (its own extent, not its parent's) and an `Array`, in a plain and in
/// a tiled kernel: row sums whose loop bound is read from the view, and
/// the extents themselves, compared with the host's.
#[amp_test]
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
                // `mv.extent`: C++ AMP's data member, as `mv.extent()`.
                for c in 0..mv.extent[1] {
                    s += mv[[idx[0], c]];
                }
                sv[idx] = s;
                let e = sec.extent;
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

/// `x / d` and `x % d` by the kernel language's integer rules (`x / 0 == x`,
/// `x % 0 == 0`, `MIN / -1 == MIN`, `MIN % -1 == 0`), on the host.
fn kernel_div(x: i32, d: i32) -> i32 {
    if d == 0 { x } else { x.wrapping_div(d) }
}

fn kernel_rem(x: i32, d: i32) -> i32 {
    if d == 0 { 0 } else { x.wrapping_rem(d) }
}

/// Geometry values inside kernels (C++ AMP's `index` and `extent` are
/// `restrict(cpu, amp)`): `Index` and `Extent` captured by value, built with
/// `new`, combined with each other and with `i32`s (`+ - * / %`, `+=`,
/// `-=`, `*=`), compared, negated, stepped (`inc`, `dec`, `post_inc`,
/// `post_dec`), and `contains`, `size`, `RANK`: each work item writes 16
/// results, compared with the host's `Index`/`Extent` operators on random
/// captured values with edge components (0, -1, `i32::MIN`, `i32::MAX`).
#[amp_test]
fn index_and_extent_values_in_kernels_match_the_host() {
    const OUTS: usize = 16;
    const ROWS: i32 = 6;
    const COLS: i32 = 7;
    let mut rng = Rng::new(0x6E0_2026);
    for (case, (view, what)) in all_views().into_iter().enumerate() {
        let pick = |rng: &mut Rng| match rng.range(0, 8) {
            0 => 0,
            1 => -1,
            2 => i32::MIN,
            3 => i32::MAX,
            _ => rng.range(-1000, 1000),
        };
        let i0 = Index::new([pick(&mut rng), pick(&mut rng)]);
        // Extents that contain some of the domain, and random ones.
        let e0 = if case % 2 == 0 {
            Extent::new([rng.range(1, ROWS + 2), rng.range(1, COLS + 2)])
        } else {
            Extent::new([pick(&mut rng), pick(&mut rng)])
        };
        let k = rng.range(-50, 50);
        let len = (ROWS * COLS) as usize * OUTS;
        let mut out = vec![POISON_I32; len];
        {
            let ov = ArrayView::new_mut([ROWS * COLS * OUTS as i32], &mut out).unwrap();
            ov.discard_data();
            parallel_for_each!(view, [ROWS, COLS], |idx: Index<2>| {
                let base = (idx[0] * COLS + idx[1]) * OUTS as i32;
                let a = idx + i0;
                let b = (a - 3) * k;
                let c = b / i0;
                let d = 7 - idx % (i0 + 2);
                let mut e = e0 + idx;
                e -= 1;
                e *= 2;
                e += Index::new([k, -k]);
                let inside = e0.contains(&idx);
                let mut m = idx;
                let p = m.post_inc();
                let q = m.dec();
                let r = m.post_dec();
                let s = m.inc();
                let same = (a == b) as i32
                    + 2 * (a != idx) as i32
                    + 4 * (e == e0) as i32
                    + 8 * (Extent::new([ROWS, COLS]) == e0) as i32;
                let n = -a;
                let _ = n;
                ov[[base]] = a[0] ^ a[1];
                ov[[base + 1]] = b[0];
                ov[[base + 2]] = b[1];
                ov[[base + 3]] = c[0];
                ov[[base + 4]] = c[1];
                ov[[base + 5]] = d[0] * 31 + d[1];
                ov[[base + 6]] = e[0];
                ov[[base + 7]] = e[1];
                ov[[base + 8]] = inside as i32;
                ov[[base + 9]] = e0.size() as i32;
                ov[[base + 10]] = p[0] * 1000 + q[1] * 100 + r[0] * 10 + s[1];
                ov[[base + 11]] = m[0] - idx[0] + m[1] - idx[1];
                ov[[base + 12]] = same;
                ov[[base + 13]] = n[0].wrapping_add(n[1]);
                ov[[base + 14]] = Index::<2>::RANK as i32 + i0[1] - e0[0];
                ov[[base + 15]] = (idx - i0)[1];
            })
            .unwrap();
        }
        for r in 0..ROWS {
            for c in 0..COLS {
                let idx = Index::new([r, c]);
                let base = (r * COLS + c) as usize * OUTS;
                let a = idx + i0;
                let b = Index::new([
                    (a[0].wrapping_sub(3)).wrapping_mul(k),
                    (a[1].wrapping_sub(3)).wrapping_mul(k),
                ]);
                let c_ = [kernel_div(b[0], i0[0]), kernel_div(b[1], i0[1])];
                let d = [
                    7 - kernel_rem(r, i0[0].wrapping_add(2)),
                    7 - kernel_rem(c, i0[1].wrapping_add(2)),
                ];
                let mut e = e0 + idx;
                e -= 1;
                e *= 2;
                e += Index::new([k, k.wrapping_neg()]);
                let p = idx;
                let q = idx;
                let s = idx;
                let same = (a == b) as i32
                    + 2 * (a != idx) as i32
                    + 4 * (e == e0) as i32
                    + 8 * (Extent::new([ROWS, COLS]) == e0) as i32;
                let size = e0
                    .to_array()
                    .iter()
                    .fold(0u32.wrapping_add(1), |p, &x| p.wrapping_mul(x as u32));
                let want = [
                    a[0] ^ a[1],
                    b[0],
                    b[1],
                    c_[0],
                    c_[1],
                    d[0].wrapping_mul(31).wrapping_add(d[1]),
                    e[0],
                    e[1],
                    e0.contains(&idx) as i32,
                    size as i32,
                    p[0] * 1000 + q[1] * 100 + idx[0] * 10 + s[1],
                    0,
                    same,
                    a[0].wrapping_neg().wrapping_add(a[1].wrapping_neg()),
                    2i32.wrapping_add(i0[1]).wrapping_sub(e0[0]),
                    c.wrapping_sub(i0[1]),
                ];
                assert_eq!(
                    &out[base..base + OUTS],
                    &want[..],
                    "{what}: index {idx}, i0 = {i0}, e0 = {e0}, k = {k}"
                );
            }
        }
    }
}

/// `v[i] = v[i] * k + i[0] - i[N - 1]` over every index of `v`, in one
/// generic host function for every rank (C++ AMP code writes such helpers
/// as `template <int N>`).
fn scale_any_rank<const N: usize>(
    view: &AcceleratorView,
    v: &ArrayView<'_, i32, N>,
    k: i32,
) -> amp_core::Result<()> {
    parallel_for_each!(view, v.extent(), |i: Index<N>| {
        let last = Index::<N>::RANK as i32 - 1;
        v[i] = v[i] * k + i[0] - i[last];
    })
}

/// Kernels generic over their rank: `|i: Index<N>|` where `N` is a const
/// generic parameter of the enclosing function; ranks 1, 2, 3 and 4 through
/// the same function, on random data, every element checked.
#[amp_test]
fn kernels_generic_over_the_rank() {
    let mut rng = Rng::new(0xA11_4A4C);
    for (view, what) in all_views() {
        let k = rng.range(-9, 9);
        let shapes: [&[i32]; 4] = [&[37], &[5, 9], &[3, 4, 7], &[2, 3, 2, 5]];
        for shape in shapes {
            let len: i32 = shape.iter().product();
            let data: Vec<i32> = (0..len).map(|_| rng.range(-10_000, 10_000)).collect();
            let mut got = data.clone();
            {
                match shape.len() {
                    1 => {
                        scale_any_rank(&view, &ArrayView::new_mut([shape[0]], &mut got).unwrap(), k)
                    }
                    2 => scale_any_rank(
                        &view,
                        &ArrayView::new_mut([shape[0], shape[1]], &mut got).unwrap(),
                        k,
                    ),
                    3 => scale_any_rank(
                        &view,
                        &ArrayView::new_mut([shape[0], shape[1], shape[2]], &mut got).unwrap(),
                        k,
                    ),
                    _ => scale_any_rank(
                        &view,
                        &ArrayView::new_mut([shape[0], shape[1], shape[2], shape[3]], &mut got)
                            .unwrap(),
                        k,
                    ),
                }
                .unwrap();
            }
            for (lin, (&g, &d)) in got.iter().zip(&data).enumerate() {
                // Row-major: the first component is the slowest.
                let mut rest = lin as i32;
                let mut comps = vec![0; shape.len()];
                for dim in (0..shape.len()).rev() {
                    comps[dim] = rest % shape[dim];
                    rest /= shape[dim];
                }
                let want = d * k + comps[0] - comps[shape.len() - 1];
                assert_eq!(g, want, "{what}: shape {shape:?}, element {lin}");
            }
        }
    }
}

/// Geometry made in kernel code the C++ AMP way: default-constructed
/// (`index<3> z;`, `extent<2> e;`: `Index::<3>::default()`,
/// `Extent::<2>::default()`, zeros) and built from a local array
/// (`index<3> i(arr);`: `Index::new(arr)`, `Extent::new(lens)` of an
/// array written element by element); against plain Rust on every
/// accelerator, every output element checked.
#[amp_test]
fn geometry_default_and_array_constructed_in_kernels() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9900 + k as u64);
        let n = rng.range(1, 300) as usize;
        let mut out = vec![POISON_I32; n];
        {
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                let z = Index::<3>::default();
                let e = Extent::<2>::default();
                let arr = [idx[0], 2 * idx[0], 7];
                let i3 = Index::new(arr);
                let mut lens = [1, 2];
                lens[1] = idx[0] + 1;
                let e2 = Extent::new(lens);
                o[idx] = z[0]
                    + z[1]
                    + z[2]
                    + e[0]
                    + e[1]
                    + i3[0] * 100
                    + i3[1] * 10
                    + i3[2]
                    + e2[0] * 10000
                    + e2[1] * 1000;
            })
            .unwrap();
            o.synchronize().unwrap();
        }
        for (i, got) in out.iter().enumerate() {
            let i = i as i32;
            let want = i * 100 + 2 * i * 10 + 7 + 10000 + (i + 1) * 1000;
            assert_eq!(*got, want, "{what}: element {i}");
        }
    }
}
