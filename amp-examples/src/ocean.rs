//! An FFT ocean, in the shape of C++ AMP's OceanCS sample (itself a port
//! of the DirectX SDK's compute-shader ocean): a height field of an `n x n`
//! patch of sea made by an inverse 2-D FFT of a wave spectrum, one frame
//! per time.
//!
//! The host draws the spectrum once ([`Spectrum::phillips`]: Tessendorf's
//! Phillips spectrum, random Gaussian amplitudes `h0(k)` and the deep-water
//! dispersion `omega(k) = sqrt(g |k|)`). Each frame of [`heights`] is four
//! launches over one `Array` that stays on the accelerator:
//!
//! 1. the spectrum at time `t`, `H(k) = h0(k) e^(i omega t) + conj(h0(-k))
//!    e^(-i omega t)` (hermitian, so the height field is real);
//! 2. the inverse FFT of every row, one tile per row;
//! 3. the same FFT down every column, one tile per column;
//! 4. the heights: the real parts.
//!
//! The FFT ([`fft_2d`]) is a radix-2 Cooley-Tukey transform in the kernel
//! language: a tile of [`THREADS`] work items loads its line into
//! `tile_static` memory in bit-reversed order, then runs the `log2 n`
//! stages of butterflies in place, a barrier after each, with twiddle
//! factors from a table computed on the host in `f64`. Frequencies are in
//! the FFT's natural order (`k` and `k - n` alike for `k >= n/2`), so no
//! shift is needed.

use amp_core::Result;
use amp_core::prelude::*;

/// Work items per tile (per row or column of the FFT).
pub const THREADS: i32 = 256;
/// The largest transform: the `tile_static` buffer holds a line of this
/// many complex values. An `i32`, as the sizes of `tile_static` arrays
/// are in the other samples (a `usize` constant there does not compile on
/// the CPU accelerator).
pub const MAX_N: i32 = 1024;
/// Gravity, m/s^2.
pub const GRAVITY: f32 = 9.81;
/// 2 pi in `f32`.
pub const TWO_PI: f32 = std::f32::consts::TAU;

/// `n` as a checked size: a power of two in `2..=MAX_N`, and its log2.
fn size(n: usize) -> Result<(i32, i32)> {
    if n.is_power_of_two() && (2..=MAX_N as usize).contains(&n) {
        Ok((n as i32, n.trailing_zeros() as i32))
    } else {
        Err(Error::InvalidArgument(format!(
            "ocean FFTs are n x n with n a power of two from 2 to {MAX_N}, not {n}"
        )))
    }
}

/// The twiddle factors `e^(s 2 pi i k / n)` for `k < n / 2`, with `s` the
/// transform's sign (+1 inverse, -1 forward), rounded from `f64`.
pub fn twiddles(n: usize, inverse: bool) -> Vec<Float2> {
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n / 2)
        .map(|k| {
            let a = sign * std::f64::consts::TAU * k as f64 / n as f64;
            Float2::new(a.cos() as f32, a.sin() as f32)
        })
        .collect()
}

/// The FFT of every row (`columns` false) or every column of `data`, in
/// place, one tile per line; `tw` holds [`twiddles`].
fn fft_lines(
    view: &AcceleratorView,
    data: &ArrayView<'_, Float2, 2>,
    tw: &ArrayView<'_, Float2, 1, ReadOnly>,
    columns: bool,
) -> Result<()> {
    let n = data.extent()[0];
    let bits = n.trailing_zeros() as i32;
    let domain = Extent::new([n, THREADS]).tile::<1, THREADS>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! { let buf: [Float2; MAX_N]; }
        let line = t.tile[0];
        let me = t.local[1];
        // The line, in bit-reversed order.
        let mut k = me;
        while k < n {
            let r = ((k as u32).reverse_bits() >> (32 - bits)) as i32;
            buf[r] = if columns {
                data[[k, line]]
            } else {
                data[[line, k]]
            };
            k += THREADS;
        }
        t.barrier.wait_with_tile_static_memory_fence();
        // The stages: butterflies of spans 2, 4, .., n.
        let mut half = 1;
        while half < n {
            let step = n / (2 * half);
            let mut j = me;
            while j < n / 2 {
                let pos = j % half;
                let i0 = (j / half) * 2 * half + pos;
                let i1 = i0 + half;
                let w = tw[pos * step];
                let (a, b) = (buf[i0], buf[i1]);
                let bw = Float2::new(b.x * w.x - b.y * w.y, b.x * w.y + b.y * w.x);
                buf[i0] = a + bw;
                buf[i1] = a - bw;
                j += THREADS;
            }
            t.barrier.wait_with_tile_static_memory_fence();
            half *= 2;
        }
        let mut k = me;
        while k < n {
            if columns {
                data[[k, line]] = buf[k];
            } else {
                data[[line, k]] = buf[k];
            }
            k += THREADS;
        }
    })
}

/// The unnormalised 2-D FFT of the `n x n` complex matrix `data` (row-major,
/// `x` real, `y` imaginary), in place on `view`: every row, then every
/// column. `inverse` uses `e^(+2 pi i ..)`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] unless `n` is a power of two in
/// `2..=MAX_N` and `data` holds `n * n` values; any error of the launches.
///
/// # Examples
///
/// ```
/// use amp_core::Float2;
///
/// let view = amp_core::Accelerator::cpu().default_view();
/// // A single 1 transforms to all ones.
/// let mut d = vec![Float2::new(0.0, 0.0); 16];
/// d[0] = Float2::new(1.0, 0.0);
/// amp_examples::ocean::fft_2d(&view, &mut d, 4, false)?;
/// assert!(d.iter().all(|v| v.x == 1.0 && v.y == 0.0));
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn fft_2d(view: &AcceleratorView, data: &mut [Float2], n: usize, inverse: bool) -> Result<()> {
    let (side, _) = size(n)?;
    if data.len() != n * n {
        return Err(Error::InvalidArgument(format!(
            "fft_2d of {n} x {n} needs {} values, not {}",
            n * n,
            data.len()
        )));
    }
    let table = twiddles(n, inverse);
    let tw = ArrayView::new([side / 2], &table)?;
    let d = ArrayView::new_mut([side, side], data)?;
    fft_lines(view, &d, &tw, false)?;
    fft_lines(view, &d, &tw, true)?;
    d.synchronize()
}

/// The reference: the 2-D DFT of `data` in `f64`, by the definition along
/// the rows, then the columns (`[re, im]` per value).
///
/// # Panics
///
/// If `data` does not hold `n * n` values.
pub fn dft_2d_cpu(data: &[[f64; 2]], n: usize, inverse: bool) -> Vec<[f64; 2]> {
    assert_eq!(data.len(), n * n, "an n x n matrix");
    let sign = if inverse { 1.0 } else { -1.0 };
    let roots: Vec<[f64; 2]> = (0..n)
        .map(|k| {
            let a = sign * std::f64::consts::TAU * k as f64 / n as f64;
            [a.cos(), a.sin()]
        })
        .collect();
    let line = |get: &dyn Fn(usize) -> [f64; 2], out: &mut dyn FnMut(usize, [f64; 2])| {
        for f in 0..n {
            let mut s = [0.0f64; 2];
            for x in 0..n {
                let v = get(x);
                let r = roots[(f * x) % n];
                s[0] += v[0] * r[0] - v[1] * r[1];
                s[1] += v[0] * r[1] + v[1] * r[0];
            }
            out(f, s);
        }
    };
    let mut rows = vec![[0.0f64; 2]; n * n];
    for y in 0..n {
        line(&|x| data[y * n + x], &mut |f, s| rows[y * n + f] = s);
    }
    let mut out = vec![[0.0f64; 2]; n * n];
    for x in 0..n {
        line(&|y| rows[y * n + x], &mut |f, s| out[f * n + x] = s);
    }
    out
}

/// The largest error that an `f32` FFT of `values` values should make on
/// an output, with `norm` the 2-norm of the exact outputs: each of the
/// `log2(values)` stages adds a few rounding errors relative to the values
/// it combines, and the twiddles are within half an ulp.
pub fn fft_tolerance(values: usize, norm: f64) -> f64 {
    4.0 * f64::from(values.trailing_zeros().max(1)) * f64::from(f32::EPSILON) * norm
}

/// How far [`heights`] at time `time` may be from [`heights_cpu`]'s
/// `want` for `spec`: the FFT's error ([`fft_tolerance`] of the heights'
/// norm) plus that of the spectrum, each `H(k)` off by at most
/// `2 (trig + 2 eps |omega t|) + 4 eps` times `|h0(k)| + |h0(-k)|` (the
/// phase `omega t` and its reduction to `[-pi, pi]` rounded in `f32`, then
/// `sin` and `cos` within `trig`), summed over `k` since each such error
/// reaches every height.
///
/// `trig` is 2^-11 on GPUs (WGSL's bound on `[-pi, pi]`) and 1e-6 on the
/// CPU accelerator and lavapipe (`docs/kernel-language.md`, section 5).
pub fn heights_tolerance(spec: &Spectrum, time: f32, want: &[f64], trig: f64) -> f64 {
    let eps = f64::from(f32::EPSILON);
    let norm = want.iter().map(|v| v * v).sum::<f64>().sqrt();
    let n = spec.n;
    let mut spectrum = 0.0;
    for i in 0..n {
        for j in 0..n {
            let h = spec.h0[i * n + j];
            let m = spec.h0[((n - i) % n) * n + (n - j) % n];
            let phase = (f64::from(spec.omega[i * n + j]) * f64::from(time)).abs();
            let size = f64::from(h.x).hypot(f64::from(h.y)) + f64::from(m.x).hypot(f64::from(m.y));
            spectrum += (2.0 * (trig + 2.0 * eps * phase) + 4.0 * eps) * size;
        }
    }
    fft_tolerance(want.len(), norm) + spectrum
}

/// A wave spectrum over an `n x n` patch: the amplitudes `h0(k)` and the
/// angular frequencies `omega(k)`, row-major in the FFT's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Spectrum {
    /// Samples per side.
    pub n: usize,
    /// `h0(k)`, complex.
    pub h0: Vec<Float2>,
    /// `omega(k)` in radians per second.
    pub omega: Vec<f32>,
}

impl Spectrum {
    /// The signed frequency index of FFT index `i` of `n`.
    fn freq(i: usize, n: usize) -> f64 {
        if i < n / 2 {
            i as f64
        } else {
            i as f64 - n as f64
        }
    }

    /// Tessendorf's Phillips spectrum over a `patch` x `patch` metre sea
    /// with a wind of `wind` m/s along `(cos dir, sin dir)` and overall
    /// amplitude `amplitude`, its Gaussian draws from `seed`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] unless `n` is a power of two in
    /// `2..=MAX_N`.
    pub fn phillips(
        n: usize,
        patch: f32,
        wind: f32,
        dir: f32,
        amplitude: f32,
        seed: u64,
    ) -> Result<Spectrum> {
        size(n)?;
        let mut rng = crate::gallery::Rand::new(seed);
        let mut gauss = || {
            // Box-Muller.
            let u = f64::from(rng.range_f32(1e-6, 1.0));
            let v = f64::from(rng.range_f32(0.0, 1.0));
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let g = f64::from(GRAVITY);
        let l = f64::from(wind) * f64::from(wind) / g;
        let (wx, wy) = (f64::from(dir).cos(), f64::from(dir).sin());
        let mut h0 = Vec::with_capacity(n * n);
        let mut omega = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                let kx = std::f64::consts::TAU * Self::freq(j, n) / f64::from(patch);
                let ky = std::f64::consts::TAU * Self::freq(i, n) / f64::from(patch);
                let k2 = kx * kx + ky * ky;
                let p = if k2 == 0.0 {
                    0.0
                } else {
                    let cos = (kx * wx + ky * wy) / k2.sqrt();
                    f64::from(amplitude) * (-1.0 / (k2 * l * l)).exp() / (k2 * k2) * cos * cos
                };
                let s = (p / 2.0).sqrt();
                h0.push(Float2::new((gauss() * s) as f32, (gauss() * s) as f32));
                omega.push((g * k2.sqrt()).sqrt() as f32);
            }
        }
        Ok(Spectrum { n, h0, omega })
    }
}

/// The heights of the sea of `spec` at time `time` (seconds) into `out`
/// (`n x n`, row-major), on `view`: the spectrum at that time, the inverse
/// FFT of its rows and of its columns, and the real parts, four launches
/// over one array on the accelerator.
///
/// # Errors
///
/// [`Error::InvalidArgument`] unless `n` is a power of two in `2..=MAX_N`
/// and the slices hold `n * n` values; any error of the launches.
///
/// # Examples
///
/// ```
/// use amp_examples::ocean::{Spectrum, heights, heights_cpu};
///
/// let view = amp_core::Accelerator::cpu().default_view();
/// let spec = Spectrum::phillips(8, 100.0, 10.0, 0.5, 1.0, 3)?;
/// let mut h = vec![0.0f32; 64];
/// heights(&view, &spec, 2.0, &mut h)?;
/// let want = heights_cpu(&spec, 2.0);
/// assert!(h.iter().zip(&want).all(|(g, w)| (f64::from(*g) - w).abs() < 1e-3));
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn heights(view: &AcceleratorView, spec: &Spectrum, time: f32, out: &mut [f32]) -> Result<()> {
    let (n, _) = size(spec.n)?;
    let len = spec.n * spec.n;
    if spec.h0.len() != len || spec.omega.len() != len || out.len() != len {
        return Err(Error::InvalidArgument(format!(
            "an ocean of {0} x {0} needs {len} amplitudes, frequencies and heights, not {1}, {2} and {3}",
            spec.n,
            spec.h0.len(),
            spec.omega.len(),
            out.len()
        )));
    }
    let h0 = ArrayView::new([n, n], &spec.h0)?;
    let omega = ArrayView::new([n, n], &spec.omega)?;
    let table = twiddles(spec.n, true);
    let tw = ArrayView::new([n / 2], &table)?;
    let field = Array::<Float2, 2>::new([n, n], view)?;
    let f = field.view();
    let o = ArrayView::new_mut([n, n], out)?;
    o.discard_data();
    parallel_for_each!(view, f.extent(), |idx: Index<2>| {
        let (i, j) = (idx[0], idx[1]);
        // The phase omega t, reduced to [-pi, pi] for sin and cos.
        let a = omega[idx] * time;
        let a = a - TWO_PI * (a / TWO_PI).round();
        let (c, s) = (a.cos(), a.sin());
        let h = h0[idx];
        let m = h0[[(n - i) % n, (n - j) % n]];
        // h e^(i a) + conj(m) e^(-i a)
        f[idx] = Float2::new(
            (h.x * c - h.y * s) + (m.x * c - m.y * s),
            (h.x * s + h.y * c) - (m.x * s + m.y * c),
        );
    })?;
    fft_lines(view, &f, &tw, false)?;
    fft_lines(view, &f, &tw, true)?;
    parallel_for_each!(view, o.extent(), |idx: Index<2>| {
        o[idx] = f[idx].x;
    })?;
    o.synchronize()
}

/// The spectrum of `spec` at time `time`, in `f64` (`[re, im]` per value).
pub fn spectrum_at_cpu(spec: &Spectrum, time: f32) -> Vec<[f64; 2]> {
    let n = spec.n;
    let mut out = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            let a = f64::from(spec.omega[i * n + j]) * f64::from(time);
            let (s, c) = a.sin_cos();
            let h = spec.h0[i * n + j];
            let m = spec.h0[((n - i) % n) * n + (n - j) % n];
            let (hx, hy, mx, my) = (
                f64::from(h.x),
                f64::from(h.y),
                f64::from(m.x),
                f64::from(m.y),
            );
            out.push([
                (hx * c - hy * s) + (mx * c - my * s),
                (hx * s + hy * c) - (mx * s + my * c),
            ]);
        }
    }
    out
}

/// The reference: the heights of [`heights`] in `f64`, by the DFT.
///
/// # Panics
///
/// If the spectrum's vectors do not hold `n * n` values.
pub fn heights_cpu(spec: &Spectrum, time: f32) -> Vec<f64> {
    dft_2d_cpu(&spectrum_at_cpu(spec, time), spec.n, true)
        .iter()
        .map(|v| v[0])
        .collect()
}

/// A shaded picture of a height field (light where high), with the range
/// of the heights stretched over the grey levels.
pub fn picture(h: &[f32], n: usize) -> crate::gaussian_blur::Image {
    let (lo, hi) = h
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let span = (hi - lo).max(f32::MIN_POSITIVE);
    let rgb = h
        .iter()
        .flat_map(|&v| {
            let g = (v - lo) / span;
            [
                (10.0 + 120.0 * g) as u8,
                (50.0 + 160.0 * g) as u8,
                (90.0 + 165.0 * g) as u8,
            ]
        })
        .collect();
    crate::gaussian_blur::Image {
        width: n as u32,
        height: n as u32,
        rgb,
    }
}
