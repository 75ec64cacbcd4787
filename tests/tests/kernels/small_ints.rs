//! `u8`, `i8`, `u16` and `i16` elements and kernel values (issue 24):
//! containers pack them four or two to a 32-bit word, kernels compute with
//! them as Rust does (wrapping arithmetic, saturating float casts, shift
//! amounts modulo the width), and a store never loses a neighbour another
//! work item writes. Every result is compared with the same computation in
//! plain Rust, on every accelerator; outputs are poisoned twice with
//! different values, so an element the kernel did not write cannot match.

use amp_core::prelude::*;
use amp_core::{Array, atomic_fetch_add};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

/// Kernel `/` on integers: `x / 0 == x`, wrapping `MIN / -1`.
fn kdiv_i8(x: i8, y: i8) -> i8 {
    if y == 0 { x } else { x.wrapping_div(y) }
}

/// Kernel `%` on integers: `x % 0 == 0`, `MIN % -1 == 0`.
fn krem_i8(x: i8, y: i8) -> i8 {
    if y == 0 { 0 } else { x.wrapping_rem(y) }
}

fn kdiv_u8(x: u8, y: u8) -> u8 {
    x.checked_div(y).unwrap_or(x)
}

fn krem_u8(x: u8, y: u8) -> u8 {
    if y == 0 { 0 } else { x % y }
}

/// Random values of each type, with the edge values at the front.
fn bytes(rng: &mut Rng, n: usize, edges: &[u8]) -> Vec<u8> {
    let mut v: Vec<u8> = (0..n).map(|_| rng.range(0, 256) as u8).collect();
    v[..edges.len()].copy_from_slice(edges);
    v
}

#[amp_test]
fn small_integer_arithmetic_wraps_as_in_rust() {
    const N: usize = 1003; // not a multiple of 4: the last word is shared with padding
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(2400 + k as u64);
        let a = bytes(&mut rng, N, &[0, 255, 128, 1]);
        let b = bytes(&mut rng, N, &[0, 0, 255, 2]);
        let c: Vec<i8> = bytes(&mut rng, N, &[0x80, 0x80, 0x7f, 0xff])
            .into_iter()
            .map(|x| x as i8)
            .collect();
        let d: Vec<i8> = bytes(&mut rng, N, &[0xff, 0, 0x80, 0x01])
            .into_iter()
            .map(|x| x as i8)
            .collect();
        let e: Vec<u16> = (0..N).map(|_| rng.range(0, 65536) as u16).collect();
        let f: Vec<i16> = (0..N).map(|_| rng.range(-32768, 32768) as i16).collect();
        let mut x: Vec<f32> = (0..N)
            .map(|_| rng.range(-80_000, 80_000) as f32 / 3.0)
            .collect();
        x[..4].copy_from_slice(&[f32::NAN, -0.5, 255.9, 1e9]);
        let sh: Vec<u32> = (0..N).map(|_| rng.range(0, 40) as u32).collect();
        let (m, q): (u8, i16) = (250, -300); // captured by value
        let run = |poison: u8| {
            let mut o1 = vec![poison; N];
            let mut o2 = vec![poison; N];
            let mut o3 = vec![poison as i8; N];
            let mut o4 = vec![poison as i8; N];
            let mut o5 = vec![u16::from(poison) * 257; N];
            let mut o6 = vec![i16::from(poison) * -129; N];
            let mut o7 = vec![poison; N];
            let mut o8 = vec![poison; N];
            let mut o9 = vec![i32::from(poison) * -7; N];
            {
                let av = ArrayView::new([N as i32], &a).unwrap();
                let bv = ArrayView::new([N as i32], &b).unwrap();
                let cv = ArrayView::new([N as i32], &c).unwrap();
                let dv = ArrayView::new([N as i32], &d).unwrap();
                let ev = ArrayView::new([N as i32], &e).unwrap();
                let fv = ArrayView::new([N as i32], &f).unwrap();
                let xv = ArrayView::new([N as i32], &x).unwrap();
                let sv = ArrayView::new([N as i32], &sh).unwrap();
                let w1 = ArrayView::new_mut([N as i32], &mut o1).unwrap();
                let w2 = ArrayView::new_mut([N as i32], &mut o2).unwrap();
                let w3 = ArrayView::new_mut([N as i32], &mut o3).unwrap();
                let w4 = ArrayView::new_mut([N as i32], &mut o4).unwrap();
                let w5 = ArrayView::new_mut([N as i32], &mut o5).unwrap();
                let w6 = ArrayView::new_mut([N as i32], &mut o6).unwrap();
                let w7 = ArrayView::new_mut([N as i32], &mut o7).unwrap();
                let w8 = ArrayView::new_mut([N as i32], &mut o8).unwrap();
                let w9 = ArrayView::new_mut([N as i32], &mut o9).unwrap();
                parallel_for_each!(acc.default_view(), w1.extent(), |i: Index<1>| {
                    let (p, r) = (av[i], bv[i]);
                    let (s, t) = (cv[i], dv[i]);
                    w1[i] = ((p + r) * 3u8 ^ !p) + m;
                    w2[i] = p / r + p % r;
                    w3[i] = -(s * t) + s / t - s % t;
                    w4[i] = (s << sv[i]) >> 2u32;
                    w8[i] = p;
                    w8[i] += r;
                    w8[i] *= 2;
                    w8[i] -= 1;
                })
                .unwrap();
                parallel_for_each!(acc.default_view(), w5.extent(), |i: Index<1>| {
                    let (p, s) = (av[i], cv[i]);
                    w5[i] = ev[i] * 7 - fv[i] as u16 + (ev[i] >> 3);
                    w6[i] = xv[i] as i16 + (p as i16) * q;
                    w7[i] = xv[i] as u8;
                    w9[i] = (s as i32) * 1000 + ev[i] as i32 + (fv[i] as u32 >> 20) as i32;
                })
                .unwrap();
            }
            (o1, o2, o3, o4, o5, o6, o7, o8, o9)
        };
        for poison in [0x5a, 0xa5] {
            let (o1, o2, o3, o4, o5, o6, o7, o8, o9) = run(poison);
            for i in 0..N {
                let (p, r, s, t) = (a[i], b[i], c[i], d[i]);
                let at = format!("{acc}, element {i} ({p}, {r}, {s}, {t}, {})", x[i]);
                assert_eq!(
                    o1[i],
                    (p.wrapping_add(r).wrapping_mul(3) ^ !p).wrapping_add(m),
                    "{at}"
                );
                assert_eq!(o2[i], kdiv_u8(p, r).wrapping_add(krem_u8(p, r)), "{at}");
                assert_eq!(
                    o3[i],
                    s.wrapping_mul(t)
                        .wrapping_neg()
                        .wrapping_add(kdiv_i8(s, t))
                        .wrapping_sub(krem_i8(s, t)),
                    "{at}"
                );
                assert_eq!(o4[i], s.wrapping_shl(sh[i]) >> 2, "{at}, shift {}", sh[i]);
                assert_eq!(
                    o5[i],
                    e[i].wrapping_mul(7)
                        .wrapping_sub(f[i] as u16)
                        .wrapping_add(e[i] >> 3),
                    "{at}"
                );
                assert_eq!(
                    o6[i],
                    (x[i] as i16).wrapping_add((p as i16).wrapping_mul(q)),
                    "{at}"
                );
                assert_eq!(o7[i], x[i] as u8, "{at}");
                assert_eq!(
                    o8[i],
                    p.wrapping_add(r).wrapping_mul(2).wrapping_sub(1),
                    "{at}"
                );
                assert_eq!(
                    o9[i],
                    i32::from(s) * 1000 + i32::from(e[i]) + ((f[i] as u32 >> 20) as i32),
                    "{at}"
                );
            }
        }
    }
}

/// Work items that write every other byte of an array, and a section of a
/// `u16` array that starts inside a word: the elements not written keep
/// their values, and no written one is lost to a neighbour's store.
#[amp_test]
fn neighbouring_small_elements_are_kept() {
    const N: usize = 1001;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(2410 + k as u64);
        let orig = bytes(&mut rng, N, &[]);
        let halves: Vec<u16> = (0..N).map(|_| rng.range(0, 65536) as u16).collect();
        let view = acc.default_view();
        let arr = Array::from_slice([N as i32], &orig, &view).unwrap();
        let hs = Array::from_slice([N as i32], &halves, &view).unwrap();
        {
            let av = arr.view();
            let evens = Extent::new([(N as i32 + 1) / 2]);
            parallel_for_each!(view, evens, |i: Index<1>| {
                let at = Index::new([i[0] * 2]);
                av[at] = av[at] ^ 0xffu8;
            })
            .unwrap();
            let sec = hs
                .view()
                .section(Index::new([3]), Extent::new([517]))
                .unwrap();
            parallel_for_each!(view, sec.extent(), |i: Index<1>| {
                sec[i] = sec[i].wrapping_add(1000) + i[0] as u16;
            })
            .unwrap();
        }
        let got = arr.to_vec().unwrap();
        let got_h = hs.to_vec().unwrap();
        for i in 0..N {
            let want = if i % 2 == 0 { orig[i] ^ 0xff } else { orig[i] };
            assert_eq!(got[i], want, "{acc}: byte {i}");
            let want = if (3..520).contains(&i) {
                halves[i].wrapping_add(1000).wrapping_add((i - 3) as u16)
            } else {
                halves[i]
            };
            assert_eq!(got_h[i], want, "{acc}: u16 {i}");
        }
    }
}

/// The C++ AMP Histogram sample's kernel on a byte image: each work item
/// reads one byte and counts it in a bin with an atomic add.
#[amp_test]
fn bytes_are_counted_in_a_histogram() {
    const N: usize = 4099;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(2420 + k as u64);
        let image = bytes(&mut rng, N, &[0, 255, 255]);
        let mut bins = vec![0u32; 256];
        {
            let img = ArrayView::new([N as i32], &image).unwrap();
            let hist = ArrayView::new_mut([256], &mut bins).unwrap();
            parallel_for_each!(acc.default_view(), img.extent(), |i: Index<1>| {
                atomic_fetch_add(&hist[[img[i] as i32]], 1u32);
            })
            .unwrap();
        }
        let mut want = vec![0u32; 256];
        for &b in &image {
            want[b as usize] += 1;
        }
        assert_eq!(bins, want, "{acc}");
    }
}

/// `tile_static` arrays and locals of small integers in a tiled kernel,
/// with a `u8` loop counter and `wrapping_add` by name.
#[amp_test]
fn small_integers_in_tile_static_memory_and_loops() {
    const TS: usize = 64;
    const N: usize = TS * 9;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(2430 + k as u64);
        let src: Vec<i8> = bytes(&mut rng, N, &[0x80, 0x7f])
            .into_iter()
            .map(|x| x as i8)
            .collect();
        let mut out = vec![-1i16; N];
        {
            let s = ArrayView::new([N as i32], &src).unwrap();
            let o = ArrayView::new_mut([N as i32], &mut out).unwrap();
            let domain = o.extent().tile::<64>().unwrap();
            parallel_for_each!(acc.default_view(), domain, |t: TiledIndex<1>| {
                tile_static! {
                    let tile: [i8; TS];
                }
                let l = t.local[0];
                tile[l as usize] = s[t.global];
                t.barrier.wait();
                let mut acc16: i16 = 0;
                for j in 0u8..4 {
                    let other = tile[((l + j as i32 * 16) % 64) as usize];
                    acc16 = acc16.wrapping_add(other as i16 * 300);
                }
                o[t.global] = acc16;
            })
            .unwrap();
        }
        for (g, got) in out.iter().enumerate() {
            let (base, l) = (g - g % TS, g % TS);
            let mut want: i16 = 0;
            for j in 0..4 {
                let other = src[base + (l + j * 16) % 64];
                want = want.wrapping_add((other as i16).wrapping_mul(300));
            }
            assert_eq!(*got, want, "{acc}: element {g}");
        }
    }
}

/// A `u8` constant inlined into kernels.
const BIAS: u8 = 200;

/// Minimum literals of the signed small types (`-128i8`, `-32768i16`, a
/// `-128` pattern), constants and paths of small types (`u8::MAX`,
/// `BIAS`), and `wrapping_neg` of the unsigned ones (found by the
/// fuzzer: each failed on one accelerator).
#[amp_test]
fn minimum_literals_constants_and_unsigned_negation() {
    const N: usize = 515;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(2440 + k as u64);
        let src = bytes(&mut rng, N, &[0x80, 0x7f, 0, 1, 0xff]);
        let run = |poison: i32| {
            let mut out = vec![poison; N];
            {
                let s = ArrayView::new([N as i32], &src).unwrap();
                let o = ArrayView::new_mut([N as i32], &mut out).unwrap();
                parallel_for_each!(acc.default_view(), o.extent(), |i: Index<1>| {
                    let b = s[i];
                    let signed = b as i8;
                    let low: i8 = -128i8;
                    let lowest = -32768i16;
                    let class = match signed {
                        -128 => 1,
                        -1 => 2,
                        _ => 3,
                    };
                    let neg = b.wrapping_neg() as i32 + (b as u16).wrapping_neg() as i32;
                    let top = (u8::MAX - b) as i32 + (b.wrapping_add(BIAS)) as i32;
                    o[i] = class * 1_000_000
                        + neg * 3
                        + top
                        + (signed.max(low) as i32)
                        + (lowest as i32 / 1024);
                })
                .unwrap();
            }
            out
        };
        for poison in [i32::MIN, -7] {
            let out = run(poison);
            for (i, (&b, got)) in src.iter().zip(&out).enumerate() {
                let signed = b as i8;
                let class = match signed {
                    -128 => 1,
                    -1 => 2,
                    _ => 3,
                };
                let neg = i32::from(b.wrapping_neg()) + i32::from(u16::from(b).wrapping_neg());
                let top = i32::from(u8::MAX - b) + i32::from(b.wrapping_add(BIAS));
                let want = class * 1_000_000 + neg * 3 + top + i32::from(signed) + (-32768 / 1024);
                assert_eq!(*got, want, "{acc}: element {i} (byte {b})");
            }
        }
    }
}
