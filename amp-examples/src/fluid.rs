//! A 2-D fluid, in the shape of C++ AMP's FluidSimulation sample: Jos
//! Stam's stable fluids on a grid, several kernels per step over `Array`s
//! that stay on the accelerator.
//!
//! The state is a velocity per cell (`Float2`, in cells per unit of time),
//! a pressure per cell, and a dye density carried by the flow. A step of
//! [`simulate`] is five kinds of launch:
//!
//! 1. **advection**: each cell traces its velocity back by `dt` and takes
//!    the velocity and the density found there (bilinear, positions outside
//!    the grid clamped to its border): the semi-Lagrangian step that stays
//!    stable for any `dt`;
//! 2. **divergence** of the advected velocity (central differences);
//! 3. **Jacobi iterations** of the pressure's Poisson equation
//!    (`laplacian p = divergence`), [`Params::iterations`] launches, each
//!    from one pressure array into the other, warm-started from the last
//!    step's pressure;
//! 4. **projection**: the pressure's gradient is subtracted from the
//!    velocity, which leaves it (nearly) free of divergence.
//!
//! Neighbours outside the grid are the border cells themselves (reads are
//! clamped), a zero-gradient boundary for every quantity.
//!
//! Each formula is a `#[kernel]` function ([`divergence`], [`relax`],
//! [`gradient`], and the sampling of [`crate::morph`]) that the plain-Rust
//! reference [`simulate_cpu`] calls as well, so that the reference does the
//! same operations in the same order.

use amp_core::Result;
use amp_core::prelude::*;

use crate::morph::{bilerp, lower, upper, warp};

/// The constants of a simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// The time step (velocities are in cells per unit of time).
    pub dt: f32,
    /// Jacobi iterations of the pressure per step.
    pub iterations: u32,
}

/// The fluid: row-major fields over a `width x height` grid.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Cells per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// The velocity of each cell (`x` along a row, `y` down the rows).
    pub velocity: Vec<Float2>,
    /// The pressure of each cell (the last step's solution).
    pub pressure: Vec<f32>,
    /// The dye density of each cell.
    pub density: Vec<f32>,
}

impl State {
    /// A fluid at rest, without dye, on a `width x height` grid.
    pub fn still(width: usize, height: usize) -> State {
        let n = width * height;
        State {
            width,
            height,
            velocity: vec![Float2::new(0.0, 0.0); n],
            pressure: vec![0.0; n],
            density: vec![0.0; n],
        }
    }

    /// The sizes as `i32`s, checked against the fields' lengths.
    fn sizes(&self) -> Result<(i32, i32)> {
        let lens = [self.velocity.len(), self.pressure.len(), self.density.len()];
        match crate::gallery::grid_sizes(self.width, self.height, &lens) {
            Some(sizes) => Ok(sizes),
            None => Err(Error::InvalidArgument(format!(
                "fluid needs non-empty {} x {} fields, not {}, {} and {} cells",
                self.width,
                self.height,
                self.velocity.len(),
                self.pressure.len(),
                self.density.len()
            ))),
        }
    }

    /// The largest divergence of the velocity (central differences, as the
    /// solver computes it).
    pub fn max_divergence(&self) -> f32 {
        let (w, h) = (self.width as i32, self.height as i32);
        let v =
            |x: i32, y: i32| self.velocity[(y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize];
        let mut worst = 0.0f32;
        for y in 0..h {
            for x in 0..w {
                let d = divergence(v(x - 1, y).x, v(x + 1, y).x, v(x, y - 1).y, v(x, y + 1).y);
                worst = worst.max(d.abs());
            }
        }
        worst
    }
}

/// The divergence at a cell from the `x` velocities of its left and right
/// neighbours and the `y` velocities of the ones above and below.
#[kernel]
pub fn divergence(left: f32, right: f32, above: f32, below: f32) -> f32 {
    0.5 * ((right - left) + (below - above))
}

/// One Jacobi update of the pressure at a cell, from its four neighbours'
/// pressures and its divergence.
///
/// # Examples
///
/// ```
/// assert_eq!(amp_examples::fluid::relax(1.0, 2.0, 3.0, 4.0, 2.0), 2.0);
/// ```
#[kernel]
pub fn relax(left: f32, right: f32, above: f32, below: f32, div: f32) -> f32 {
    ((left + right) + (above + below) - div) * 0.25
}

/// The pressure gradient along one axis from the pressures on either side.
#[kernel]
pub fn gradient(before: f32, after: f32) -> f32 {
    0.5 * (after - before)
}

fn check(state: &State, params: Params) -> Result<(i32, i32)> {
    let sizes = state.sizes()?;
    if !(params.dt.is_finite() && params.dt >= 0.0) {
        return Err(Error::InvalidArgument(format!(
            "fluid needs a finite time step >= 0, not {}",
            params.dt
        )));
    }
    Ok(sizes)
}

/// Advances `state` by `steps` steps on `view`: the fields are uploaded
/// once, every step's launches work on `Array`s on the accelerator, and the
/// fields come back at the end. The scratch arrays (the divergence, the
/// second pressure and the advected fields) start as NaN, so that a cell a
/// kernel failed to write would show.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for an empty grid, fields whose lengths are
/// not `width * height`, or a negative or non-finite `dt`; any error of
/// the launches.
///
/// # Examples
///
/// ```
/// use amp_core::Float2;
/// use amp_examples::fluid::{Params, State, simulate, simulate_cpu};
///
/// let view = amp_core::Accelerator::cpu().default_view();
/// let mut s = State::still(8, 6);
/// s.velocity[20] = Float2::new(3.0, -1.0);
/// s.density[21] = 1.0;
/// let mut want = s.clone();
/// let params = Params { dt: 0.5, iterations: 10 };
/// simulate(&view, &mut s, 3, params)?;
/// simulate_cpu(&mut want, 3, params);
/// assert_eq!(s, want);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn simulate(
    view: &AcceleratorView,
    state: &mut State,
    steps: u32,
    params: Params,
) -> Result<()> {
    let (w, h) = check(state, params)?;
    let n = state.velocity.len();
    let nan = vec![f32::NAN; n];
    let mut vel = [
        Array::from_slice([h, w], &state.velocity, view)?,
        Array::from_slice([h, w], &vec![Float2::new(f32::NAN, f32::NAN); n], view)?,
    ];
    let mut dens = [
        Array::from_slice([h, w], &state.density, view)?,
        Array::from_slice([h, w], &nan, view)?,
    ];
    let mut pres = [
        Array::from_slice([h, w], &state.pressure, view)?,
        Array::from_slice([h, w], &nan, view)?,
    ];
    let div = Array::from_slice([h, w], &nan, view)?;
    let back = -params.dt;
    for _ in 0..steps {
        {
            // 1. Advection of the velocity and the dye, by the velocity.
            let (v, nv) = (vel[0].view(), vel[1].view());
            let (d, nd) = (dens[0].view(), dens[1].view());
            parallel_for_each!(view, v.extent(), |idx: Index<2>| {
                let (y, x) = (idx[0], idx[1]);
                let u = v[idx];
                let (px, py) = (warp(x, u.x, back), warp(y, u.y, back));
                let (x0, x1, y0, y1) = (lower(px, w), upper(px, w), lower(py, h), upper(py, h));
                let (fx, fy) = (px - px.floor(), py - py.floor());
                let (a, b, c, e) = (v[[y0, x0]], v[[y0, x1]], v[[y1, x0]], v[[y1, x1]]);
                nv[idx] = Float2::new(
                    bilerp(a.x, b.x, c.x, e.x, fx, fy),
                    bilerp(a.y, b.y, c.y, e.y, fx, fy),
                );
                nd[idx] = bilerp(d[[y0, x0]], d[[y0, x1]], d[[y1, x0]], d[[y1, x1]], fx, fy);
            })?;
        }
        vel.swap(0, 1);
        dens.swap(0, 1);
        {
            // 2. Its divergence.
            let (v, dv) = (vel[0].view(), div.view());
            parallel_for_each!(view, v.extent(), |idx: Index<2>| {
                let (y, x) = (idx[0], idx[1]);
                let (xl, xr) = ((x - 1).max(0), (x + 1).min(w - 1));
                let (ya, yb) = ((y - 1).max(0), (y + 1).min(h - 1));
                dv[idx] = divergence(v[[y, xl]].x, v[[y, xr]].x, v[[ya, x]].y, v[[yb, x]].y);
            })?;
        }
        // 3. Jacobi iterations of the pressure.
        for _ in 0..params.iterations {
            {
                let (p, np, dv) = (pres[0].view(), pres[1].view(), div.view());
                parallel_for_each!(view, p.extent(), |idx: Index<2>| {
                    let (y, x) = (idx[0], idx[1]);
                    let (xl, xr) = ((x - 1).max(0), (x + 1).min(w - 1));
                    let (ya, yb) = ((y - 1).max(0), (y + 1).min(h - 1));
                    np[idx] = relax(p[[y, xl]], p[[y, xr]], p[[ya, x]], p[[yb, x]], dv[idx]);
                })?;
            }
            pres.swap(0, 1);
        }
        {
            // 4. Projection: the velocity minus the pressure's gradient.
            let (v, p) = (vel[0].view(), pres[0].view());
            parallel_for_each!(view, v.extent(), |idx: Index<2>| {
                let (y, x) = (idx[0], idx[1]);
                let (xl, xr) = ((x - 1).max(0), (x + 1).min(w - 1));
                let (ya, yb) = ((y - 1).max(0), (y + 1).min(h - 1));
                let u = v[idx];
                v[idx] = Float2::new(
                    u.x - gradient(p[[y, xl]], p[[y, xr]]),
                    u.y - gradient(p[[ya, x]], p[[yb, x]]),
                );
            })?;
        }
    }
    state.velocity = vel[0].to_vec()?;
    state.density = dens[0].to_vec()?;
    state.pressure = pres[0].to_vec()?;
    Ok(())
}

/// The reference: the same steps in plain Rust, with the same `#[kernel]`
/// functions in the same order.
///
/// # Panics
///
/// If the fields' lengths are not `width * height`, or `dt` is negative or
/// not finite.
pub fn simulate_cpu(state: &mut State, steps: u32, params: Params) {
    let (w, h) = check(state, params).expect("a valid fluid");
    let at = |x: i32, y: i32| (y * w + x) as usize;
    let back = -params.dt;
    let n = state.velocity.len();
    let mut div = vec![0.0f32; n];
    let mut next_p = vec![0.0f32; n];
    for _ in 0..steps {
        let (v, d) = (state.velocity.clone(), state.density.clone());
        for y in 0..h {
            for x in 0..w {
                let u = v[at(x, y)];
                let (px, py) = (warp(x, u.x, back), warp(y, u.y, back));
                let (x0, x1, y0, y1) = (lower(px, w), upper(px, w), lower(py, h), upper(py, h));
                let (fx, fy) = (px - px.floor(), py - py.floor());
                let (a, b, c, e) = (v[at(x0, y0)], v[at(x1, y0)], v[at(x0, y1)], v[at(x1, y1)]);
                state.velocity[at(x, y)] = Float2::new(
                    bilerp(a.x, b.x, c.x, e.x, fx, fy),
                    bilerp(a.y, b.y, c.y, e.y, fx, fy),
                );
                state.density[at(x, y)] = bilerp(
                    d[at(x0, y0)],
                    d[at(x1, y0)],
                    d[at(x0, y1)],
                    d[at(x1, y1)],
                    fx,
                    fy,
                );
            }
        }
        let v = &state.velocity;
        for y in 0..h {
            for x in 0..w {
                let (xl, xr) = ((x - 1).max(0), (x + 1).min(w - 1));
                let (ya, yb) = ((y - 1).max(0), (y + 1).min(h - 1));
                div[at(x, y)] = divergence(
                    v[at(xl, y)].x,
                    v[at(xr, y)].x,
                    v[at(x, ya)].y,
                    v[at(x, yb)].y,
                );
            }
        }
        for _ in 0..params.iterations {
            let p = &state.pressure;
            for y in 0..h {
                for x in 0..w {
                    let (xl, xr) = ((x - 1).max(0), (x + 1).min(w - 1));
                    let (ya, yb) = ((y - 1).max(0), (y + 1).min(h - 1));
                    next_p[at(x, y)] = relax(
                        p[at(xl, y)],
                        p[at(xr, y)],
                        p[at(x, ya)],
                        p[at(x, yb)],
                        div[at(x, y)],
                    );
                }
            }
            std::mem::swap(&mut state.pressure, &mut next_p);
        }
        let p = &state.pressure;
        for y in 0..h {
            for x in 0..w {
                let (xl, xr) = ((x - 1).max(0), (x + 1).min(w - 1));
                let (ya, yb) = ((y - 1).max(0), (y + 1).min(h - 1));
                let u = state.velocity[at(x, y)];
                state.velocity[at(x, y)] = Float2::new(
                    u.x - gradient(p[at(xl, y)], p[at(xr, y)]),
                    u.y - gradient(p[at(x, ya)], p[at(x, yb)]),
                );
            }
        }
    }
}

/// A starting state for the example: a few vortices of random sign and
/// size, and dye in bands.
pub fn vortices(width: usize, height: usize, count: usize, seed: u64) -> State {
    let mut rng = crate::gallery::Rand::new(seed);
    let mut s = State::still(width, height);
    let scale = width.min(height) as f32;
    let centres: Vec<(f32, f32, f32, f32)> = (0..count)
        .map(|_| {
            (
                rng.range_f32(0.2, 0.8) * width as f32,
                rng.range_f32(0.2, 0.8) * height as f32,
                rng.range_f32(0.05, 0.15) * scale,
                rng.range_f32(-1.0, 1.0) * scale * 0.02,
            )
        })
        .collect();
    for y in 0..height {
        for x in 0..width {
            let i = y * width + x;
            let (mut u, mut v) = (0.0f32, 0.0f32);
            for &(cx, cy, r, strength) in &centres {
                let (dx, dy) = (x as f32 - cx, y as f32 - cy);
                let fall = (-(dx * dx + dy * dy) / (r * r)).exp();
                u -= strength * dy / r * fall;
                v += strength * dx / r * fall;
            }
            s.velocity[i] = Float2::new(u, v);
            s.density[i] = if (x * 8 / width + y * 8 / height).is_multiple_of(2) {
                1.0
            } else {
                0.0
            };
        }
    }
    s
}

/// The density as an RGB image (dark blue where 0, light where 1).
pub fn picture(state: &State) -> crate::gaussian_blur::Image {
    let rgb = state
        .density
        .iter()
        .flat_map(|&d| {
            let d = d.clamp(0.0, 1.0);
            [
                (20.0 + 230.0 * d) as u8,
                (40.0 + 200.0 * d) as u8,
                (90.0 + 160.0 * d) as u8,
            ]
        })
        .collect();
    crate::gaussian_blur::Image {
        width: state.width as u32,
        height: state.height as u32,
        rgb,
    }
}
