//! An n-body simulation, in the shape of C++ AMP's NBody sample.
//!
//! The original moves particles under their mutual gravity: each step, each
//! work item sums the accelerations its particle receives from every other
//! one (softened, so that close pairs stay finite), then updates its
//! velocity and position. Its tiled version stages the other particles a
//! tile at a time in `tile_static` memory, so that a tile reads each
//! particle from global memory once. The port keeps `float_4`-like
//! `Float4` particles (`xyz` the position, `w` the mass), both versions,
//! and `rsqrt` for the inverse distance.

use amp_core::precise_math::rsqrt;
use amp_core::prelude::*;
use amp_core::{Element, Result, kernel};

/// Particles per tile.
pub const TILE: i32 = 256;
/// The time step.
pub const DT: f32 = 0.01;
/// The squared softening length.
pub const SOFTENING: f32 = 0.01;
/// Velocity kept per step.
pub const DAMPING: f32 = 0.999;

/// Particles: positions (`w`: mass) and velocities.
#[derive(Debug, Clone, PartialEq)]
pub struct Bodies {
    /// `xyz`: the position, `w`: the mass.
    pub pos: Vec<Float4>,
    /// `xyz`: the velocity.
    pub vel: Vec<Float4>,
}

fn count(b: &Bodies) -> Result<i32> {
    let n = b.pos.len();
    if n == 0 || n != b.vel.len() || !n.is_multiple_of(TILE as usize) || i32::try_from(n).is_err() {
        return Err(Error::InvalidArgument(format!(
            "nbody needs as many velocities as positions, a non-zero multiple of {TILE}, not {} and {}",
            n,
            b.vel.len()
        )));
    }
    Ok(n as i32)
}

/// Advances `bodies` by `steps` steps on `view`; `tiled` stages the
/// particles in `tile_static` memory.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the count is not a non-zero multiple of
/// [`TILE`] or the vectors' lengths differ; any error of the launches.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, Float4};
/// use amp_examples::nbody::{Bodies, simulate, simulate_cpu};
///
/// let view = Accelerator::cpu().default_view();
/// let mut b = Bodies {
///     pos: (0..256).map(|i| Float4::new(i as f32, (i % 7) as f32, 0.0, 1.0)).collect(),
///     vel: vec![Float4::splat(0.0); 256],
/// };
/// let mut want = b.clone();
/// simulate(&view, &mut b, 2, true)?;
/// simulate_cpu(&mut want, 2);
/// assert!((b.pos[3].x - want.pos[3].x).abs() < 1e-3);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn simulate(
    view: &AcceleratorView,
    bodies: &mut Bodies,
    steps: u32,
    tiled: bool,
) -> Result<()> {
    let n = count(bodies)?;
    let mut pos = [
        Array::from_slice([n], &bodies.pos, view)?,
        Array::<Float4, 1>::new([n], view)?,
    ];
    let mut vel = [
        Array::from_slice([n], &bodies.vel, view)?,
        Array::<Float4, 1>::new([n], view)?,
    ];
    for _ in 0..steps {
        {
            let (p, np) = (pos[0].view(), pos[1].view());
            let (v, nv) = (vel[0].view(), vel[1].view());
            if tiled {
                let domain = Extent::new([n]).tile::<TILE>()?;
                parallel_for_each!(view, domain, |t: TiledIndex<1>| {
                    tile_static! { let block: [Float4; TILE]; }
                    let me = p[t.global];
                    let mut acc = Float4::splat(0.0);
                    let mut base = 0;
                    while base < n {
                        block[t.local[0]] = p[[base + t.local[0]]];
                        t.barrier.wait_with_tile_static_memory_fence();
                        for k in 0..TILE {
                            let q = block[k];
                            let d = Float4::new(q.x - me.x, q.y - me.y, q.z - me.z, 0.0);
                            let inv = rsqrt(d.x * d.x + d.y * d.y + d.z * d.z + SOFTENING);
                            acc = acc + d * (q.w * inv * inv * inv);
                        }
                        t.barrier.wait_with_tile_static_memory_fence();
                        base += TILE;
                    }
                    let vel = (v[t.global] + acc * DT) * DAMPING;
                    nv[t.global] = vel;
                    np[t.global] = Float4::new(
                        me.x + vel.x * DT,
                        me.y + vel.y * DT,
                        me.z + vel.z * DT,
                        me.w,
                    );
                })?;
            } else {
                parallel_for_each!(view, p.extent(), |i: Index<1>| {
                    let me = p[i];
                    let mut acc = Float4::splat(0.0);
                    for j in 0..n {
                        let q = p[[j]];
                        let d = Float4::new(q.x - me.x, q.y - me.y, q.z - me.z, 0.0);
                        let inv = rsqrt(d.x * d.x + d.y * d.y + d.z * d.z + SOFTENING);
                        acc = acc + d * (q.w * inv * inv * inv);
                    }
                    let vel = (v[i] + acc * DT) * DAMPING;
                    nv[i] = vel;
                    np[i] = Float4::new(
                        me.x + vel.x * DT,
                        me.y + vel.y * DT,
                        me.z + vel.z * DT,
                        me.w,
                    );
                })?;
            }
        }
        pos.swap(0, 1);
        vel.swap(0, 1);
    }
    bodies.pos = pos[0].to_vec()?;
    bodies.vel = vel[0].to_vec()?;
    Ok(())
}

/// A particle as the C++ sample's `ParticleCpp` holds it: `float_3`
/// position and velocity (the masses travel in a view of their own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Element)]
#[repr(C)]
pub struct Particle {
    /// The position.
    pub pos: Float3,
    /// The velocity.
    pub vel: Float3,
}

/// The C++ sample's `BodyBodyInteraction`: adds to `acceleration` the pull
/// of a particle of `mass` at `other` on the particle at `me`.
#[kernel]
pub fn body_body_interaction(acceleration: &mut Float3, me: Float3, other: Float3, mass: f32) {
    let r = other - me;
    let dist_sqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING;
    let inv_dist = rsqrt(dist_sqr);
    let inv_dist_cube = inv_dist * inv_dist * inv_dist;
    *acceleration += r * (mass * inv_dist_cube);
}

/// One step of a tile of particles, in the shape of the C++ sample's tiled
/// kernel: each pass stages a tile of the other particles (structs with
/// `Float3` members) and their masses in `tile_static` arrays, and the work
/// item's own particle is updated in place in a `tile_static` array of its
/// tile before it is written out.
#[kernel]
pub fn step_tile(
    ti: &TiledIndex<1>,
    particles_in: &ArrayView<'_, Particle, 1, ReadOnly>,
    masses: &ArrayView<'_, f32, 1, ReadOnly>,
    particles_out: &ArrayView<'_, Particle, 1>,
    num_tiles: i32,
) {
    tile_static! { let others: [Particle; TILE]; }
    tile_static! { let others_mass: [f32; TILE]; }
    tile_static! { let mine: [Particle; TILE]; }
    let idx_local = ti.local[0];
    mine[idx_local] = particles_in[ti.global];
    let mut acc = Float3::new(0.0, 0.0, 0.0);
    for tile in 0..num_tiles {
        others[idx_local] = particles_in[[tile * TILE + idx_local]];
        others_mass[idx_local] = masses[[tile * TILE + idx_local]];
        ti.barrier.wait();
        for j in 0..TILE {
            body_body_interaction(&mut acc, mine[idx_local].pos, others[j].pos, others_mass[j]);
        }
        ti.barrier.wait();
    }
    mine[idx_local].vel += acc * DT;
    mine[idx_local].vel *= DAMPING;
    mine[idx_local].pos += mine[idx_local].vel * DT;
    particles_out[ti.global] = mine[idx_local];
}

/// Advances `bodies` by `steps` steps on `view` in the C++ sample's shape:
/// [`Particle`]s of `Float3` members, [`body_body_interaction`] and the
/// tiled [`step_tile`] as `#[kernel]` functions (the masses, `w` of
/// `bodies.pos`, in a view of their own).
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, Float4};
/// use amp_examples::nbody::{Bodies, simulate_cpu, simulate_particles};
///
/// let view = Accelerator::cpu().default_view();
/// let mut b = Bodies {
///     pos: (0..256).map(|i| Float4::new(i as f32, (i % 7) as f32, 0.0, 1.0)).collect(),
///     vel: vec![Float4::splat(0.0); 256],
/// };
/// let mut want = b.clone();
/// simulate_particles(&view, &mut b, 2)?;
/// simulate_cpu(&mut want, 2);
/// assert!((b.pos[3].y - want.pos[3].y).abs() < 1e-3);
/// # Ok::<(), amp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`simulate`].
// The CPU accelerator runs this kernel with a thread per work item: it
// calls a `#[kernel]` function that waits on the tile barrier (the
// split form cuts only a kernel's own body).
#[allow(deprecated)]
pub fn simulate_particles(view: &AcceleratorView, bodies: &mut Bodies, steps: u32) -> Result<()> {
    let n = count(bodies)?;
    let particles: Vec<Particle> = bodies
        .pos
        .iter()
        .zip(&bodies.vel)
        .map(|(p, v)| Particle {
            pos: Float3::new(p.x, p.y, p.z),
            vel: Float3::new(v.x, v.y, v.z),
        })
        .collect();
    let mass: Vec<f32> = bodies.pos.iter().map(|p| p.w).collect();
    let masses = Array::from_slice([n], &mass, view)?;
    let mut state = [
        Array::from_slice([n], &particles, view)?,
        Array::<Particle, 1>::new([n], view)?,
    ];
    let num_tiles = n / TILE;
    for _ in 0..steps {
        {
            let (particles_in, particles_out) = (state[0].view().as_read_only(), state[1].view());
            let m = masses.view().as_read_only();
            let domain = Extent::new([n]).tile::<TILE>()?;
            parallel_for_each!(view, domain, |ti: TiledIndex<1>| {
                step_tile(&ti, &particles_in, &m, &particles_out, num_tiles);
            })?;
        }
        state.swap(0, 1);
    }
    for (k, p) in state[0].to_vec()?.into_iter().enumerate() {
        bodies.pos[k] = Float4::new(p.pos.x, p.pos.y, p.pos.z, mass[k]);
        bodies.vel[k] = Float4::new(p.vel.x, p.vel.y, p.vel.z, 0.0);
    }
    Ok(())
}

/// The reference: the same steps in `f64`.
pub fn simulate_cpu(bodies: &mut Bodies, steps: u32) {
    let n = bodies.pos.len();
    let mut pos: Vec<[f64; 4]> = bodies
        .pos
        .iter()
        .map(|p| [p.x, p.y, p.z, p.w].map(f64::from))
        .collect();
    let mut vel: Vec<[f64; 3]> = bodies
        .vel
        .iter()
        .map(|v| [v.x, v.y, v.z].map(f64::from))
        .collect();
    let (dt, soft, damp) = (f64::from(DT), f64::from(SOFTENING), f64::from(DAMPING));
    for _ in 0..steps {
        let old = pos.clone();
        for i in 0..n {
            let mut acc = [0.0f64; 3];
            for q in &old {
                let d = [q[0] - old[i][0], q[1] - old[i][1], q[2] - old[i][2]];
                let inv = 1.0 / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + soft).sqrt();
                let s = q[3] * inv * inv * inv;
                for c in 0..3 {
                    acc[c] += d[c] * s;
                }
            }
            for c in 0..3 {
                vel[i][c] = (vel[i][c] + acc[c] * dt) * damp;
                pos[i][c] = old[i][c] + vel[i][c] * dt;
            }
        }
    }
    for i in 0..n {
        bodies.pos[i] = Float4::new(
            pos[i][0] as f32,
            pos[i][1] as f32,
            pos[i][2] as f32,
            pos[i][3] as f32,
        );
        bodies.vel[i] = Float4::new(vel[i][0] as f32, vel[i][1] as f32, vel[i][2] as f32, 0.0);
    }
}

/// The largest distance between the positions of `a` and `b`, relative to
/// `max(|position|, 1)`.
pub fn max_error(a: &Bodies, b: &Bodies) -> f32 {
    a.pos
        .iter()
        .zip(&b.pos)
        .map(|(p, q)| {
            let d = (p.x - q.x)
                .abs()
                .max((p.y - q.y).abs())
                .max((p.z - q.z).abs());
            let m = q.x.abs().max(q.y.abs()).max(q.z.abs()).max(1.0);
            if d.is_finite() { d / m } else { f32::INFINITY }
        })
        .fold(0.0, f32::max)
}
