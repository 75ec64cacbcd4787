//! `f16` elements (`half::f16`, amp-core's `half` feature): containers of
//! 2-byte elements, whose neighbours share a 32-bit word, and kernels that
//! compute with them; every result compared with the same computation in
//! plain Rust (the `half` crate) on every accelerator.

use amp_core::prelude::*;
use amp_core::{Array, f16};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

/// A `#[kernel]` function on `f16` values.
#[amp_core::kernel]
fn mix(a: f16, b: f16, t: f16) -> f16 {
    let d: f16 = b - a;
    a + d * t
}

/// A random `f16` in about `[-lim, lim]`, on a grid of 1/64.
fn random_half(rng: &mut Rng, lim: i32) -> f16 {
    f16::from_f32(rng.range(-lim * 64, lim * 64) as f32 / 64.0)
}

/// Whether `got` is within `ulps` units in the last place of `want` (f16
/// arithmetic on GPUs may be fused or, for division, not correctly
/// rounded; Vulkan allows 2.5 ulp for f16 division).
fn close(got: f16, want: f16, ulps: f32) -> bool {
    let (g, w) = (got.to_f32(), want.to_f32());
    if w.is_nan() {
        return g.is_nan();
    }
    if w.is_infinite() {
        return g == w;
    }
    // One ulp of `w` (f16 has 10 fraction bits; subnormal spacing 2^-24).
    let ulp = (w.abs().max(f32::from(f16::MIN_POSITIVE))).log2().floor();
    (g - w).abs() <= ulps * 2f32.powf(ulp - 10.0)
}

#[amp_test]
fn half_arithmetic_and_conversions() {
    const N: usize = 1001; // odd: the last element shares its word with padding
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(1600 + k as u64);
        let mut a: Vec<f16> = (0..N).map(|_| random_half(&mut rng, 16)).collect();
        let b: Vec<f16> = (0..N)
            .map(|_| {
                let x = random_half(&mut rng, 8);
                if x == f16::ZERO { f16::ONE } else { x }
            })
            .collect();
        let x: Vec<f32> = (0..N)
            .map(|_| rng.range(-100_000, 100_000) as f32 / 7.0)
            .collect();
        // Edge values: signed zeros, the largest finite value, the
        // smallest normal one.
        a[0] = f16::ZERO;
        a[1] = f16::NEG_ZERO;
        a[2] = f16::MAX;
        a[3] = f16::MIN_POSITIVE;
        let mut sum = vec![f16::NAN; N];
        let mut quot = vec![f16::NAN; N];
        let mut wide = vec![f32::NAN; N];
        let mut narrow = vec![f16::NAN; N];
        let mut larger = vec![-1i32; N];
        let mut mixed = vec![f16::NAN; N];
        {
            let av = ArrayView::new([N as i32], &a).unwrap();
            let bv = ArrayView::new([N as i32], &b).unwrap();
            let xv = ArrayView::new([N as i32], &x).unwrap();
            let s = ArrayView::new_mut([N as i32], &mut sum).unwrap();
            let q = ArrayView::new_mut([N as i32], &mut quot).unwrap();
            let w = ArrayView::new_mut([N as i32], &mut wide).unwrap();
            let n = ArrayView::new_mut([N as i32], &mut narrow).unwrap();
            let l = ArrayView::new_mut([N as i32], &mut larger).unwrap();
            let m = ArrayView::new_mut([N as i32], &mut mixed).unwrap();
            let one = f16::ONE; // captured by value
            parallel_for_each!(acc.default_view(), s.extent(), |i: Index<1>| {
                let (p, r) = (av[i], bv[i]);
                s[i] = p + r - r * p * one;
                q[i] = -(p / r);
                w[i] = p.to_f32() * 0.5 + r.to_f32();
                n[i] = f16::from_f32(xv[i] / 128.0);
                l[i] = if p > r {
                    1
                } else if p == r {
                    0
                } else {
                    2
                };
                m[i] = mix(p, r, f16::from_f32(0.25));
            })
            .unwrap();
        }
        for i in 0..N {
            let (p, r) = (a[i], b[i]);
            let want = p + r - r * p * f16::ONE;
            assert!(
                close(sum[i], want, 2.0),
                "{acc}: {p} + {r} - {r} * {p} = {} (want {want})",
                sum[i]
            );
            let want = -(p / r);
            assert!(
                close(quot[i], want, 3.0),
                "{acc}: -({p} / {r}) = {} (want {want})",
                quot[i]
            );
            assert_eq!(wide[i], p.to_f32() * 0.5 + r.to_f32(), "{acc}: element {i}");
            let want = f16::from_f32(x[i] / 128.0);
            assert!(
                close(narrow[i], want, 1.0),
                "{acc}: f16::from_f32({}) = {} (want {want})",
                x[i] / 128.0,
                narrow[i]
            );
            let want = if p > r {
                1
            } else if p == r {
                0
            } else {
                2
            };
            assert_eq!(larger[i], want, "{acc}: comparing {p} and {r}");
            let want = p + (r - p) * f16::from_f32(0.25);
            assert!(
                close(mixed[i], want, 2.0),
                "{acc}: mix({p}, {r}) = {} (want {want})",
                mixed[i]
            );
        }
        // Signed zeros keep their sign: -(±0 / r).
        for i in 0..2 {
            let want = -(a[i] / b[i]);
            assert_eq!(
                quot[i].to_bits(),
                want.to_bits(),
                "{acc}: -({} / {})",
                a[i],
                b[i]
            );
        }
    }
}

/// `f16::from_f64` and `to_f64`, where the accelerator has doubles.
#[amp_test]
fn half_double_conversions() {
    const N: usize = 333;
    for (k, acc) in accelerators().into_iter().enumerate() {
        if !acc.supports_double_precision() {
            continue;
        }
        let mut rng = Rng::new(1650 + k as u64);
        let x: Vec<f64> = (0..N)
            .map(|_| rng.range(-1_000_000, 1_000_000) as f64 / 977.0)
            .collect();
        let mut back = vec![f64::NAN; N];
        {
            let xv = ArrayView::new([N as i32], &x).unwrap();
            let out = ArrayView::new_mut([N as i32], &mut back).unwrap();
            parallel_for_each!(acc.default_view(), out.extent(), |i: Index<1>| {
                out[i] = f16::from_f64(xv[i]).to_f64() * 2.0;
            })
            .unwrap();
        }
        for i in 0..N {
            let want = f16::from_f64(x[i]);
            let got = f16::from_f64(back[i] / 2.0);
            assert!(
                close(got, want, 1.0),
                "{acc}: f16::from_f64({}) = {got} (want {want})",
                x[i]
            );
            assert_eq!(
                f16::from_f64(back[i] / 2.0).to_f64(),
                back[i] / 2.0,
                "{acc}: not an f16: {}",
                back[i] / 2.0
            );
        }
    }
}

/// Neighbouring `f16` elements share a 32-bit word, and accelerators move
/// words: a section that ends in the middle of a word, written on the
/// accelerator while the host writes the other half, must lose neither.
#[amp_test]
fn half_neighbours_in_one_word_lose_nothing() {
    const N: i32 = 1001;
    const SPLIT: i32 = 501; // element 500 and 501 share a word
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(1700 + k as u64);
        let start: Vec<f16> = (0..N).map(|_| random_half(&mut rng, 100)).collect();
        let marker = random_half(&mut rng, 50);
        let mut data = start.clone();
        let picked_up;
        {
            let v = ArrayView::new_mut([N], &mut data).unwrap();
            let lo = v.section([0], [SPLIT]).unwrap();
            let hi = v.section([SPLIT], [N - SPLIT]).unwrap();
            // The accelerator writes elements 0..501 (the word of 500 and
            // 501 becomes newer there) ...
            parallel_for_each!(acc.default_view(), lo.extent(), |i: Index<1>| {
                lo[i] = lo[i] + lo[i];
            })
            .unwrap();
            // ... the host writes element 501 (the other half of that word)
            hi.set([0], marker).unwrap();
            // ... and a kernel over 501.. needs the host's 501 uploaded
            // without overwriting the accelerator's 500.
            let (zero, one) = (f16::ZERO, f16::ONE); // in one parameter word each
            parallel_for_each!(acc.default_view(), hi.extent(), |i: Index<1>| {
                hi[i] = hi[i] - f16::from_f32(1.0) + zero * one;
            })
            .unwrap();
            // A host read of one half of a word the accelerator holds.
            picked_up = hi.get([0]).unwrap();
            // An asynchronous download that starts and ends inside words.
            let inner = v.section([SPLIT - 2], [5]).unwrap();
            parallel_for_each!(acc.default_view(), inner.extent(), |i: Index<1>| {
                inner[i] = -inner[i];
            })
            .unwrap();
            inner.synchronize_async().unwrap().wait().unwrap();
            v.synchronize().unwrap();
        }
        assert_eq!(
            picked_up,
            marker - f16::ONE,
            "{acc}: element {SPLIT} read on the host"
        );
        for i in 0..N as usize {
            let mut want = if i < SPLIT as usize {
                start[i] + start[i]
            } else if i == SPLIT as usize {
                marker - f16::ONE
            } else {
                start[i] - f16::ONE
            };
            if (SPLIT as usize - 2..SPLIT as usize + 3).contains(&i) {
                want = -want;
            }
            assert_eq!(data[i], want, "{acc}: element {i}");
        }
    }
}

/// An `Array<f16>` of odd length on each accelerator: filled from the host,
/// transformed by a tiled kernel through `tile_static` `f16` memory
/// (reversing each tile), copied to another array and back to the host.
#[amp_test]
fn half_arrays_and_tile_static() {
    const TS: i32 = 64;
    const N: i32 = 64 * 7;
    const TAIL: i32 = 37;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(1800 + k as u64);
        let host: Vec<f16> = (0..N + TAIL).map(|_| random_half(&mut rng, 1000)).collect();
        let view = acc.default_view();
        let a = Array::from_slice([N + TAIL], &host, &view).unwrap();
        let tiles = a.section([0], [N]).unwrap();
        parallel_for_each!(
            view,
            tiles.extent().tile::<TS>().unwrap(),
            |t: TiledIndex<1>| {
                tile_static! { let s: [f16; TS]; }
                s[t.local[0]] = tiles[t.global];
                t.barrier.wait();
                tiles[t.global] = s[TS - 1 - t.local[0]] * f16::from_f32(-2.0);
            }
        )
        .unwrap();
        let mut b = Array::<f16, 1>::new([N + TAIL], &view).unwrap();
        amp_core::copy(&a, &mut b).unwrap();
        let out = b.to_vec().unwrap();
        for i in 0..(N + TAIL) as usize {
            let want = if i < N as usize {
                let tile = i / TS as usize * TS as usize;
                host[tile + (TS as usize - 1 - i % TS as usize)] * f16::from_f32(-2.0)
            } else {
                host[i]
            };
            assert_eq!(out[i], want, "{acc}: element {i}");
        }
    }
}

/// Staging arrays of an odd number of `f16` elements: host -> staging ->
/// accelerator array -> kernel -> staging -> host, every element checked.
#[amp_test]
fn half_staging_arrays_round_trip() {
    const N: i32 = 4097;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.default_view();
        let mut rng = Rng::new(1900 + k as u64);
        let data: Vec<f16> = (0..N).map(|_| random_half(&mut rng, 500)).collect();
        let mut staging = Array::<f16, 1>::new_staging([N], &view).unwrap();
        amp_core::copy(&data[..], &mut staging).unwrap();
        let mut on_device = Array::<f16, 1>::new([N], &view).unwrap();
        amp_core::copy(&staging, &mut on_device).unwrap();
        let dev = on_device.view();
        parallel_for_each!(view, dev.extent(), |i: Index<1>| {
            dev[i] = dev[i] * f16::from_f32(0.5);
        })
        .unwrap();
        let mut back = Array::<f16, 1>::new_staging([N], &view).unwrap();
        amp_core::copy(&on_device, &mut back).unwrap();
        let out = back.to_vec().unwrap();
        for i in 0..N as usize {
            assert_eq!(out[i], data[i] * f16::from_f32(0.5), "{acc}: element {i}");
        }
    }
}
