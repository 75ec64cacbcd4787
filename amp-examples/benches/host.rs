//! Host-side benchmarks with divan: what the runtime costs the host, on the
//! CPU accelerator (present on every machine) and on the default
//! accelerator. Run with `cargo bench -p amp-examples --bench host`.
//!
//! Device-side figures need GPU timestamps and a peer in the same process:
//! those stay in the `bench-samples`, `bench-launch` and `cpu-bench`
//! binaries (see `docs/benchmarks.md`).

use amp_core::prelude::*;
use amp_examples::matmul;

fn main() {
    divan::main();
}

/// An empty kernel launched and waited for: the fixed cost of a launch.
#[divan::bench]
fn launch_and_wait_cpu(bencher: divan::Bencher<'_, '_>) {
    let view = Accelerator::cpu().create_view(QueuingMode::Immediate);
    let out = Array::<i32, 1>::new([1], &view).unwrap();
    bencher.bench_local(|| {
        parallel_for_each!(view, out.extent(), |idx: Index<1>| {
            out[idx] = 1;
        })
        .unwrap();
        view.wait().unwrap();
    });
}

/// `y = 2 x + y` over `n` elements on the CPU accelerator.
#[divan::bench(args = [1 << 10, 1 << 16, 1 << 20])]
fn saxpy_cpu(bencher: divan::Bencher<'_, '_>, n: usize) {
    let view = Accelerator::cpu().create_view(QueuingMode::Immediate);
    let x = Array::from_slice([n as i32], &vec![1.5f32; n], &view).unwrap();
    let y = Array::from_slice([n as i32], &vec![0.5f32; n], &view).unwrap();
    bencher
        .counter(divan::counter::ItemsCount::new(n))
        .bench_local(|| {
            parallel_for_each!(view, y.extent(), |idx: Index<1>| {
                y[idx] = 2.0 * x[idx] + y[idx];
            })
            .unwrap();
            view.wait().unwrap();
        });
}

/// The sample's tiled matrix multiplication (barriers compiled away) on the
/// CPU accelerator, `n x n`.
#[divan::bench(args = [64, 256])]
fn matmul_tiled_cpu(bencher: divan::Bencher<'_, '_>, n: i32) {
    let view = Accelerator::cpu().create_view(QueuingMode::Immediate);
    let len = (n * n) as usize;
    let a = Array::from_slice([n, n], &vec![0.25f32; len], &view).unwrap();
    let b = Array::from_slice([n, n], &vec![2.0f32; len], &view).unwrap();
    let c = Array::<f32, 2>::new([n, n], &view).unwrap();
    bencher.bench_local(|| {
        matmul::matmul_tiled_on(&view, &c.view(), &a.view(), &b.view()).unwrap();
        view.wait().unwrap();
    });
}

/// A host slice through an `ArrayView` to the default accelerator and
/// back: upload, one kernel, download.
#[divan::bench(args = [1 << 12, 1 << 20])]
fn view_round_trip_default(bencher: divan::Bencher<'_, '_>, n: usize) {
    let view = Accelerator::default().unwrap().default_view();
    let mut data = vec![1u32; n];
    bencher
        .counter(divan::counter::BytesCount::new(4 * n))
        .bench_local(|| {
            let v = ArrayView::from_slice_mut(&mut data).unwrap();
            parallel_for_each!(view, v.extent(), |idx: Index<1>| {
                v[idx] += 1;
            })
            .unwrap();
            v.synchronize().unwrap();
        });
}
