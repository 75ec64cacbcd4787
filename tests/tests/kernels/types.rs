//! Short vectors, `#[derive(Element)]` structs and tuples in kernels: as
//! container elements, locals, fields (read and assigned) and values,
//! compared with the same code in plain Rust on every accelerator.

use amp_core::kernel;
use amp_core::prelude::*;
use amp_tests::amp_test;
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

#[amp_test]
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

/// Launch parameters gathered in a struct (C++ AMP lambdas capture such
/// amp-compatible classes by value).
#[repr(C)]
#[derive(Clone, Copy, Element)]
struct LaunchParams {
    origin: Float4,
    scale: f32,
    count: u32,
    flags: Int2,
    weights: [f32; 4],
}

/// `#[derive(Element)]` structs captured by value: vector, scalar and
/// array fields read in the kernel (rebuilt from the launch's parameter
/// words on GPUs), with random values, on every accelerator; a second
/// launch with other values reuses the compiled kernel and sees them.
#[amp_test]
fn structs_are_captured_by_value() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0x57_0000 + k as u64);
        for _ in 0..2 {
            let count = rng.range(0, 1000) as u32;
            let flags = Int2::new(rng.range(-50, 50), rng.range(-50, 50));
            let mut f = || rng.range(-1000, 1000) as f32 / 8.0;
            let p = LaunchParams {
                origin: Float4::new(f(), f(), f(), f()),
                scale: f(),
                count,
                flags,
                weights: [f(), f(), f(), f()],
            };
            let n = 77;
            let mut out = vec![f32::NAN; n];
            {
                let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
                parallel_for_each!(&view, o.extent(), |i: Index<1>| {
                    let w = p.weights[(i[0] % 4) as usize];
                    o[i] = p.origin.y * p.scale + w + (p.count as i32 + p.flags.y - i[0]) as f32
                        - p.origin.w;
                })
                .unwrap();
            }
            for (i, &got) in out.iter().enumerate() {
                let want = p.origin.y * p.scale
                    + p.weights[i % 4]
                    + (p.count as i32 + p.flags.y - i as i32) as f32
                    - p.origin.w;
                assert_eq!(got, want, "{acc}: element {i}");
            }
        }
    }
}
