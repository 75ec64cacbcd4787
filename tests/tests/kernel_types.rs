//! Short vectors, `#[derive(Element)]` structs and tuples in kernels: as
//! container elements, locals, fields (read and assigned) and values,
//! compared with the same code in plain Rust on every accelerator.

use amp_core::kernel;
use amp_core::prelude::*;
use amp_tests::{Rng, accelerators};

/// A `#[kernel]` function on vectors and tuples.
#[kernel]
fn length_and_sum(v: Float4) -> (f32, f32) {
    let s: Float4 = v * v;
    ((s.x + s.y + s.z + s.w).sqrt(), v.x + v.y + v.z + v.w)
}

/// An N-body particle (the C++ AMP NBody sample's layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Element)]
struct Particle {
    position: Float4,
    velocity: Float4,
    mass: f32,
    _pad: [f32; 3],
}

fn step(p: Particle, dt: f32) -> Particle {
    let acc = Float4::new(0.0, -9.8, 0.0, 0.0) * (1.0 / p.mass);
    let velocity = p.velocity + acc * dt;
    Particle {
        position: p.position + velocity * dt,
        velocity,
        mass: p.mass,
        _pad: [0.0; 3],
    }
}

#[test]
fn structs_and_vectors_in_kernels() {
    const N: usize = 777;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(900 + k as u64);
        let mut f = || rng.range(-1000, 1000) as f32 / 100.0;
        let particles: Vec<Particle> = (0..N)
            .map(|_| Particle {
                position: Float4::new(f(), f(), f(), 1.0),
                velocity: Float4::new(f(), f(), f(), 0.0),
                mass: 1.0 + f().abs(),
                _pad: [0.0; 3],
            })
            .collect();
        let mut out = vec![
            Particle {
                position: Float4::splat(f32::NAN),
                velocity: Float4::splat(f32::NAN),
                mass: f32::NAN,
                _pad: [0.0; 3],
            };
            N
        ];
        let mut speeds = vec![Float2::splat(f32::NAN); N];
        let dt = 0.01f32;
        {
            let input = ArrayView::new([N as i32], &particles).unwrap();
            let output = ArrayView::new_mut([N as i32], &mut out).unwrap();
            let sp = ArrayView::new_mut([N as i32], &mut speeds).unwrap();
            parallel_for_each!(acc.default_view(), output.extent(), |idx: Index<1>| {
                let p = input[idx];
                let acc = Float4::new(0.0, -9.8, 0.0, 0.0) * (1.0 / p.mass);
                let velocity = p.velocity + acc * dt;
                output[idx] = Particle {
                    position: p.position + velocity * dt,
                    velocity,
                    mass: p.mass,
                    _pad: [0.0; 3],
                };
                let (vx, vy) = (velocity.x, velocity.y);
                let (len, sum) = length_and_sum(velocity);
                let mut moved = idx;
                moved[0] += 0;
                if moved == idx && len >= 0.0 && sum == sum {
                    output[idx].mass = output[idx].mass + 0.0;
                }
                let mut s = Float2::splat(0.0);
                s.x = vx * vx;
                s.y = vy * vy;
                sp[idx] = s;
                sp[idx].y += 1.0;
                if p.mass < 0.0 {
                    output[idx].mass = 0.0;
                }
            })
            .unwrap();
        }
        for i in 0..N {
            let want = step(particles[i], dt);
            let got = out[i];
            let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * b.abs().max(1.0);
            for (a, b) in [
                (got.position.x, want.position.x),
                (got.position.y, want.position.y),
                (got.position.z, want.position.z),
                (got.position.w, want.position.w),
                (got.velocity.y, want.velocity.y),
                (got.mass, want.mass),
            ] {
                assert!(close(a, b), "{acc} {i}: {got:?} vs {want:?}");
            }
            let v = want.velocity;
            assert!(close(speeds[i].x, v.x * v.x), "{acc} {i}");
            assert!(close(speeds[i].y, v.y * v.y + 1.0), "{acc} {i}");
        }
    }
}
