//! The radiation pattern of a planar antenna array, in the shape of C++
//! AMP's Antenna sample.
//!
//! Each element `k` of the array sits at `(x_k, y_k)` (in wavelengths) and
//! is fed with amplitude `a_k` and phase `p_k`. In the direction of
//! elevation `theta` (from the array's broadside) and azimuth `phi`, the
//! array factor is the sum of the elements' waves,
//!
//! ```text
//! AF(theta, phi) = sum_k a_k * exp(i * (2 pi (x_k u + y_k v) + p_k)),
//! u = sin(theta) cos(phi), v = sin(theta) sin(phi),
//! ```
//!
//! a `sin` and a `cos` per element and direction; [`pattern`] computes its
//! magnitude (`sqrt`) and phase (`atan2`) for every direction of a grid,
//! one work item per direction, and the pattern's maximum, reduced per tile
//! in `tile_static` memory and across tiles with one atomic per tile.
//! [`pattern_cpu`] is the same in `f64`. [`steer`] chooses the phases that
//! point the main beam at a direction.

use amp_core::Result;
use amp_core::prelude::*;

/// The side of the tiles (`TS x TS` directions each).
pub const TS: i32 = 16;
/// 2 pi in `f32`.
pub const TWO_PI: f32 = std::f32::consts::TAU;
/// How far [`pattern`]'s complex values (`magnitude * e^(i phase)`) may be
/// from [`pattern_cpu`]'s, as a fraction of the sum of the amplitudes.
///
/// From WGSL's accuracy latitude (`docs/kernel-language.md`, sections 5
/// and 12): `sin` and `cos` within 2^-11 absolute on `[-pi, pi]` (the
/// kernel reduces their arguments there), so the sum of the terms within
/// 2^-11 of the amplitudes' sum; `atan2` within 4096 ulp (about 1.5e-3
/// radians at pi), which moves a value by that fraction of its magnitude.
/// The CPU accelerator and lavapipe are far closer (about 1e-6).
pub const TOLERANCE: f64 = 4e-3;

/// The grid of directions: `thetas` elevations evenly spaced over
/// `[0, pi/2)` (cell centres) and `phis` azimuths over `[0, 2 pi)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Elevations (rows of the pattern).
    pub thetas: usize,
    /// Azimuths (columns of the pattern).
    pub phis: usize,
}

impl Grid {
    /// The direction of cell `(row, col)`: `(theta, phi)` in radians.
    pub fn direction(&self, row: usize, col: usize) -> (f64, f64) {
        let d_theta = std::f64::consts::FRAC_PI_2 / self.thetas as f64;
        let d_phi = std::f64::consts::TAU / self.phis as f64;
        ((row as f64 + 0.5) * d_theta, col as f64 * d_phi)
    }
}

/// The elements of an `nx x ny` rectangular array with `spacing`
/// wavelengths between neighbours, centred on the origin, with a cosine
/// taper of the amplitudes, as `Float4(x, y, amplitude, phase)`; the
/// phases are 0 (see [`steer`]).
pub fn rectangular(nx: usize, ny: usize, spacing: f32) -> Vec<Float4> {
    let mut elems = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let x = (i as f32 - (nx as f32 - 1.0) / 2.0) * spacing;
            let y = (j as f32 - (ny as f32 - 1.0) / 2.0) * spacing;
            let taper = |k: usize, n: usize| {
                (std::f32::consts::PI * (k as f32 + 0.5) / n as f32 - std::f32::consts::FRAC_PI_2)
                    .cos()
            };
            elems.push(Float4::new(x, y, 0.3 + taper(i, nx) * taper(j, ny), 0.0));
        }
    }
    elems
}

/// Sets each element's phase so that the waves add up in phase in the
/// direction `(theta, phi)`: the main beam points there.
pub fn steer(elems: &mut [Float4], theta: f64, phi: f64) {
    let (u, v) = (theta.sin() * phi.cos(), theta.sin() * phi.sin());
    for e in elems {
        let p = -std::f64::consts::TAU * (f64::from(e.x) * u + f64::from(e.y) * v);
        e.w = p.rem_euclid(std::f64::consts::TAU) as f32;
    }
}

/// The array factor of `elems` (`Float4(x, y, amplitude, phase)`) over
/// `grid`: its magnitude into `magnitude` and its phase (in `(-pi, pi]`)
/// into `phase`, row-major by elevation then azimuth; returns the largest
/// magnitude.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for no elements, an empty grid, or outputs
/// that do not hold `grid.thetas * grid.phis` values; any error of the
/// launch.
///
/// # Examples
///
/// ```
/// use amp_core::Float4;
/// use amp_examples::antenna::{Grid, pattern};
/// let view = amp_core::Accelerator::cpu().default_view();
/// // One element: the same magnitude everywhere.
/// let grid = Grid { thetas: 3, phis: 5 };
/// let (mut m, mut p) = (vec![0.0; 15], vec![0.0; 15]);
/// let max = pattern(&view, &[Float4::new(0.0, 0.0, 2.0, 0.0)], grid, &mut m, &mut p)?;
/// assert!(m.iter().all(|&x| (x - 2.0).abs() < 1e-6) && (max - 2.0).abs() < 1e-6);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn pattern(
    view: &AcceleratorView,
    elems: &[Float4],
    grid: Grid,
    magnitude: &mut [f32],
    phase: &mut [f32],
) -> Result<f32> {
    let cells = grid.thetas.checked_mul(grid.phis);
    let sizes = i32::try_from(elems.len())
        .ok()
        .zip(i32::try_from(grid.thetas).ok())
        .zip(i32::try_from(grid.phis).ok())
        .filter(|&((e, t), p)| {
            e > 0
                && t > 0
                && p > 0
                && cells.is_some_and(|c| {
                    c <= i32::MAX as usize / 2 && magnitude.len() == c && phase.len() == c
                })
        });
    let Some(((count, thetas), phis)) = sizes else {
        return Err(Error::InvalidArgument(format!(
            "antenna::pattern needs 1 or more elements and a nonempty grid with an output each, \
             not {} elements, {} x {} directions, {} and {} outputs",
            elems.len(),
            grid.thetas,
            grid.phis,
            magnitude.len(),
            phase.len()
        )));
    };
    let d_theta = std::f32::consts::FRAC_PI_2 / thetas as f32;
    let d_phi = TWO_PI / phis as f32;
    let mut best = [0u32];
    {
        let ev = ArrayView::new([count], elems)?;
        let mv = ArrayView::new_mut([thetas, phis], magnitude)?;
        let pv = ArrayView::new_mut([thetas, phis], phase)?;
        let bv = ArrayView::new_mut([1], &mut best)?;
        mv.discard_data();
        pv.discard_data();
        let domain = Extent::new([thetas, phis]).tile::<TS, TS>()?.pad()?;
        parallel_for_each!(view, domain, |t: TiledIndex<2>| {
            tile_static! { let part: [f32; TS * TS]; }
            let (row, col) = (t.global[0], t.global[1]);
            let l = t.local[0] * TS + t.local[1];
            let mut m = 0.0f32;
            if row < thetas && col < phis {
                let theta = (row as f32 + 0.5) * d_theta;
                let phi = col as f32 * d_phi;
                let st = theta.sin();
                let (u, v) = (st * phi.cos(), st * phi.sin());
                let mut re = 0.0f32;
                let mut im = 0.0f32;
                for k in 0..count {
                    let e = ev[[k]];
                    let arg = TWO_PI * (e.x * u + e.y * v) + e.w;
                    // Into [-pi, pi], where GPUs' sin and cos are accurate.
                    let arg = arg - TWO_PI * (arg / TWO_PI).round();
                    re += e.z * arg.cos();
                    im += e.z * arg.sin();
                }
                m = (re * re + im * im).sqrt();
                mv[[row, col]] = m;
                pv[[row, col]] = im.atan2(re);
            }
            // The tile's maximum, then the largest of the tiles': for
            // floats of one sign, the order of their bits as u32 is theirs.
            part[l] = m;
            t.barrier.wait_with_tile_static_memory_fence();
            let mut half = TS * TS / 2;
            while half > 0 {
                if l < half {
                    part[l] = part[l].max(part[l + half]);
                }
                t.barrier.wait_with_tile_static_memory_fence();
                half /= 2;
            }
            if l == 0 {
                atomic_fetch_max(&bv[[0]], part[0].to_bits());
            }
        })?;
        mv.synchronize()?;
        pv.synchronize()?;
        bv.synchronize()?;
    }
    Ok(f32::from_bits(best[0]))
}

/// The reference: the array factor's magnitude and phase over `grid` in
/// `f64` (as [`pattern`] lays them out), and their maximum magnitude.
pub fn pattern_cpu(elems: &[Float4], grid: Grid) -> (Vec<f64>, Vec<f64>, f64) {
    let mut magnitude = Vec::with_capacity(grid.thetas * grid.phis);
    let mut phase = Vec::with_capacity(grid.thetas * grid.phis);
    for row in 0..grid.thetas {
        for col in 0..grid.phis {
            let (theta, phi) = grid.direction(row, col);
            let (u, v) = (theta.sin() * phi.cos(), theta.sin() * phi.sin());
            let (mut re, mut im) = (0.0f64, 0.0f64);
            for e in elems {
                let arg = std::f64::consts::TAU * (f64::from(e.x) * u + f64::from(e.y) * v)
                    + f64::from(e.w);
                re += f64::from(e.z) * arg.cos();
                im += f64::from(e.z) * arg.sin();
            }
            magnitude.push(re.hypot(im));
            phase.push(im.atan2(re));
        }
    }
    let max = magnitude.iter().copied().fold(0.0, f64::max);
    (magnitude, phase, max)
}

/// The largest distance between the complex values `m e^(i p)` of a
/// pattern (`m`, `p`) and of the reference (`want_m`, `want_p`); a NaN, or
/// lengths that differ, count as infinitely far.
pub fn pattern_error(m: &[f32], p: &[f32], want_m: &[f64], want_p: &[f64]) -> f64 {
    if m.len() != want_m.len() || p.len() != want_p.len() || m.len() != p.len() {
        return f64::INFINITY;
    }
    let mut worst = 0.0f64;
    for i in 0..m.len() {
        let (gm, gp) = (f64::from(m[i]), f64::from(p[i]));
        let d = (gm * gp.cos() - want_m[i] * want_p[i].cos())
            .hypot(gm * gp.sin() - want_m[i] * want_p[i].sin());
        worst = worst.max(if d.is_nan() { f64::INFINITY } else { d });
    }
    worst
}
