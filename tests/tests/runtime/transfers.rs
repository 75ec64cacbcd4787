//! Laziness of the coherence protocol, proven with the transfer counters:
//! a matmul-shaped workload uploads A and B once, never uploads the
//! discarded C, and downloads C once. The kernel is hand-written WGSL (and
//! the same loop in Rust on the CPU accelerator) bound through the runtime's
//! test hook, which makes captured views coherent exactly as launches do.

use std::sync::atomic::Ordering;

use amp_core::__private::{launch_test_kernel, read_arg, write_arg};
use amp_core::{AcceleratorView, ArrayView, QueuingMode};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

const M: usize = 33;
const W: usize = 17;
const N: usize = 29;

fn matmul_wgsl() -> String {
    format!(
        "@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let row = g.y; let col = g.x;
    if (row >= {M}u || col >= {N}u) {{ return; }}
    var sum = 0.0;
    for (var i = 0u; i < {W}u; i++) {{ sum += a[row * {W}u + i] * b[i * {N}u + col]; }}
    c[row * {N}u + col] = sum;
}}"
    )
}

fn matmul(
    view: &AcceleratorView,
    a: &ArrayView<'_, f32, 2, amp_core::ReadOnly>,
    b: &ArrayView<'_, f32, 2, amp_core::ReadOnly>,
    c: &ArrayView<'_, f32, 2>,
) {
    launch_test_kernel(
        view,
        &[read_arg(a), read_arg(b), write_arg(c)],
        &matmul_wgsl(),
        [(N as u32).div_ceil(8), (M as u32).div_ceil(8), 1],
        |mem| {
            let get = |m: &[std::sync::atomic::AtomicU32], i: usize| {
                f32::from_bits(m[i].load(Ordering::Relaxed))
            };
            for row in 0..M {
                for col in 0..N {
                    let mut sum = 0.0f32;
                    for i in 0..W {
                        sum += get(mem[0], row * W + i) * get(mem[1], i * N + col);
                    }
                    mem[2][row * N + col].store(sum.to_bits(), Ordering::Relaxed);
                }
            }
        },
    )
    .unwrap();
}

fn reference(a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut c = vec![0.0f32; M * N];
    for row in 0..M {
        for col in 0..N {
            c[row * N + col] = (0..W).map(|i| a[row * W + i] * b[i * N + col]).sum();
        }
    }
    c
}

#[amp_test]
fn matmul_moves_each_operand_once() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for mode in [QueuingMode::Automatic, QueuingMode::Immediate] {
            let mut rng = Rng::new(7 + k as u64);
            let va: Vec<f32> = (0..M * W)
                .map(|_| rng.range(-100, 100) as f32 / 10.0)
                .collect();
            let vb: Vec<f32> = (0..W * N)
                .map(|_| rng.range(-100, 100) as f32 / 10.0)
                .collect();
            let mut vc = vec![f32::NAN; M * N];
            let view = acc.create_view(mode);
            {
                let a = ArrayView::new([M as i32, W as i32], &va).unwrap();
                let b = ArrayView::new([W as i32, N as i32], &vb).unwrap();
                let c = ArrayView::new_mut([M as i32, N as i32], &mut vc).unwrap();
                c.discard_data();
                matmul(&view, &a, &b, &c);
                // A second launch reuses the device copies: no new transfers.
                matmul(&view, &a, &b, &c);
                let t = view.transfers();
                assert_eq!(
                    (t.uploads, t.bytes_uploaded),
                    (2, ((M * W + W * N) * 4) as u64),
                    "{acc} {mode}"
                );
                assert_eq!(t.downloads, 0, "{acc} {mode}: nothing read back yet");
                c.synchronize().unwrap();
                c.synchronize().unwrap();
                let t = view.transfers();
                assert_eq!(
                    (t.downloads, t.bytes_downloaded),
                    (1, (M * N * 4) as u64),
                    "{acc} {mode}"
                );
                assert_eq!(t.uploads, 2, "{acc} {mode}: C was never uploaded");
            }
            // Dropping the views wrote nothing more back (C was synchronized).
            assert_eq!(view.transfers().downloads, 1, "{acc} {mode}");
            let expected = reference(&va, &vb);
            for (i, (got, want)) in vc.iter().zip(&expected).enumerate() {
                assert!(
                    (got - want).abs() <= 1e-3 * want.abs().max(1.0),
                    "{acc} {mode} element {i}: {got} vs {want}"
                );
            }
        }
    }
}

/// Uploads of tens of MiB go through each GPU's staging slots (16 MiB
/// each, several per upload, reused by the next upload): a whole view
/// uploaded twice (a partial last slot, slots reused), and a section at an
/// odd word offset of a view written on the host; a kernel reads every
/// element, compared with the host's data on every accelerator.
#[amp_test]
fn large_uploads_arrive_intact() {
    use amp_core::prelude::*;
    // 40 MiB and 12 bytes: two whole slots and a partial third.
    const N: usize = 10 * 1024 * 1024 + 3;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0x10AD + k as u64);
        let data: Vec<u32> = (0..N).map(|_| rng.next_u64() as u32).collect();
        for round in 0..2u32 {
            let mut out = vec![0u32; N];
            {
                let dv = ArrayView::new([N as i32], &data).unwrap();
                let ov = ArrayView::new_mut([N as i32], &mut out).unwrap();
                ov.discard_data();
                parallel_for_each!(&view, ov.extent(), |i: Index<1>| {
                    ov[i] = dv[i] ^ round;
                })
                .unwrap();
            }
            let bad = (0..N).find(|&j| out[j] != data[j] ^ round);
            assert_eq!(bad, None, "{acc}: round {round}");
        }
        let mut big = data.clone();
        let (lo, len) = (12_345usize, N - 20_000);
        {
            let bv = ArrayView::new_mut([N as i32], &mut big).unwrap();
            let sec = bv.section([lo as i32], [len as i32]).unwrap();
            parallel_for_each!(&view, sec.extent(), |i: Index<1>| {
                sec[i] = sec[i].wrapping_add(1);
            })
            .unwrap();
        }
        for (j, (&got, &was)) in big.iter().zip(&data).enumerate() {
            let want = if (lo..lo + len).contains(&j) {
                was.wrapping_add(1)
            } else {
                was
            };
            assert_eq!(got, want, "{acc}: element {j}");
        }
    }
}

/// Downloads of tens of MiB in 32 MiB chunks: a strided 2-D section (a
/// band of columns of every row, written by a kernel) whose download
/// covers many separate ranges over several chunks; every element compared
/// with the host's computation on every accelerator, the elements outside
/// the section unchanged.
#[amp_test]
fn large_downloads_arrive_intact() {
    use amp_core::prelude::*;
    const ROWS: usize = 4099;
    const COLS: usize = 2048;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xD0AD + k as u64);
        let data: Vec<u32> = (0..ROWS * COLS).map(|_| rng.next_u64() as u32).collect();
        let mut m = data.clone();
        let (c0, cols) = (101usize, 1333usize);
        {
            let mv = ArrayView::new_mut([ROWS as i32, COLS as i32], &mut m).unwrap();
            let band = mv
                .section([0, c0 as i32], [ROWS as i32, cols as i32])
                .unwrap();
            parallel_for_each!(&view, band.extent(), |i: Index<2>| {
                band[i] = band[i].rotate_left(7) ^ (i[0] as u32);
            })
            .unwrap();
            band.synchronize().unwrap();
        }
        for r in 0..ROWS {
            for c in 0..COLS {
                let was = data[r * COLS + c];
                let want = if (c0..c0 + cols).contains(&c) {
                    was.rotate_left(7) ^ r as u32
                } else {
                    was
                };
                assert_eq!(m[r * COLS + c], want, "{acc}: element [{r}, {c}]");
            }
        }
    }
}

/// The device memory of dropped arrays is kept and handed to the next
/// array of its size (`backend/buffer_pool.rs`): a kernel recorded on an
/// array just before it is dropped still reads that array's data (the
/// memory's clear for its next owner runs after it), the next array of the
/// size reads as zeros, and one made from a slice holds that slice; in each
/// queuing mode, on every accelerator, over several rounds.
#[amp_test]
fn dropped_arrays_memory_is_reused_in_order_and_cleared() {
    use amp_core::prelude::*;
    // 4 MiB of u32: above the size from which buffers are kept.
    const N: usize = 1 << 20;
    for (k, acc) in accelerators().into_iter().enumerate() {
        for mode in [QueuingMode::Automatic, QueuingMode::Immediate] {
            let view = acc.create_view(mode);
            let mut rng = Rng::new(0xB0F + k as u64);
            let out = Array::<u32, 1>::new([N as i32], &view).unwrap();
            for round in 0..3u32 {
                let data: Vec<u32> = (0..N).map(|_| rng.next_u64() as u32).collect();
                {
                    let a = Array::from_slice([N as i32], &data, &view).unwrap();
                    parallel_for_each!(&view, a.extent(), |i: Index<1>| {
                        out[i] = a[i] ^ round;
                        a[i] = 7;
                    })
                    .unwrap();
                    // `a` dropped with its kernel perhaps not yet submitted.
                }
                let fresh = Array::<u32, 1>::new([N as i32], &view).unwrap();
                let zeros = fresh.to_vec().unwrap();
                let bad = zeros.iter().position(|&z| z != 0);
                assert_eq!(bad, None, "{acc} {mode:?} round {round}: new array");
                drop(fresh);
                let more: Vec<u32> = (0..N).map(|_| rng.next_u64() as u32).collect();
                let b = Array::from_slice([N as i32], &more, &view).unwrap();
                assert!(
                    b.to_vec().unwrap() == more,
                    "{acc} {mode:?} round {round}: from_slice"
                );
                drop(b);
                let got = out.to_vec().unwrap();
                let bad = (0..N).find(|&j| got[j] != data[j] ^ round);
                assert_eq!(
                    bad, None,
                    "{acc} {mode:?} round {round}: the dropped array's kernel"
                );
            }
        }
    }
}
