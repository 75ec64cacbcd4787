//! `bench-samples`: the ported samples' kernels on device-resident arrays,
//! beside a hand-written WGSL peer of the tiled matrix multiplication run
//! through raw wgpu on the same adapter, in one run.
//!
//! Run: `cargo run --release -p amp-examples --bin bench-samples
//! [--mm N] [--conv N] [--radius R] [--reps K] [--batch B] [--reduce N]`
//! (defaults 4096, 8192, 8, 10, 10, 2^26; the transpose is `--conv`
//! square). `AMP_DEFAULT_ACCELERATOR` picks the adapter. Each case:
//! two warm-up rounds (the first compiles), then `K` rounds of `B` launches
//! and one wait, wall clock, median per launch. The raw-wgpu peer runs one
//! dispatch and a wait per round. Outputs are poisoned first and checked against a CPU
//! reference: every convolution pixel, and 512 random elements of each
//! product (accumulated in `f64` on the host).

use std::time::Instant;

use amp_core::prelude::*;
use amp_examples::{convolution, matmul};

/// A tiled matrix multiplication written by hand in WGSL: the same
/// algorithm as `matmul_tiled` (16 x 16 tiles staged in workgroup memory,
/// guarded loads and store).
const HAND_WGSL: &str = r"
struct P { m: u32, n: u32, w: u32, pad: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: P;
var<workgroup> ta: array<array<f32, 16>, 16>;
var<workgroup> tb: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) g: vec3<u32>) {
    let row = g.y * 16u + l.y;
    let col = g.x * 16u + l.x;
    var sum = 0.0;
    for (var i = 0u; i < p.w; i += 16u) {
        var x = 0.0;
        if (row < p.m && i + l.x < p.w) { x = a[row * p.w + i + l.x]; }
        ta[l.y][l.x] = x;
        var y = 0.0;
        if (i + l.y < p.w && col < p.n) { y = b[(i + l.y) * p.n + col]; }
        tb[l.y][l.x] = y;
        workgroupBarrier();
        for (var k = 0u; k < 16u; k++) {
            sum += ta[l.y][k] * tb[k][l.x];
        }
        workgroupBarrier();
    }
    if (row < p.m && col < p.n) { c[row * p.n + col] = sum; }
}
";

/// `matmul_optimized`'s algorithm written with sixteen scalar accumulators
/// and eight scalar operands instead of local arrays: the peer of the
/// "arrays in loops cost nothing" figure (sizes multiples of 64).
fn blocked_scalars(
    view: &AcceleratorView,
    c: &ArrayView<'_, f32, 2>,
    a: &ArrayView<'_, f32, 2, ReadWrite>,
    b: &ArrayView<'_, f32, 2, ReadWrite>,
) -> amp_core::Result<()> {
    const TS: i32 = 16;
    const BM: i32 = 64;
    const BK: i32 = 16;
    let (m, n, w) = (c.extent()[0], c.extent()[1], a.extent()[1]);
    let domain = Extent::new([m / 4, n / 4]).tile::<TS, TS>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! {
            let a_s: [[f32; BM]; BK];
            let b_s: [[f32; BM]; BK];
        }
        let ty = t.local[0];
        let tx = t.local[1];
        let me = ty * TS + tx;
        let row0 = t.tile[0] * BM;
        let col0 = t.tile[1] * BM;
        let (mut s00, mut s01, mut s02, mut s03) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        let (mut s10, mut s11, mut s12, mut s13) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        let (mut s20, mut s21, mut s22, mut s23) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        let (mut s30, mut s31, mut s32, mut s33) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        let mut k0 = 0;
        while k0 < w {
            let e0 = me;
            let e1 = me + 256;
            let e2 = me + 512;
            let e3 = me + 768;
            a_s[e0 % BK][e0 / BK] = a[[row0 + e0 / BK, k0 + e0 % BK]];
            a_s[e1 % BK][e1 / BK] = a[[row0 + e1 / BK, k0 + e1 % BK]];
            a_s[e2 % BK][e2 / BK] = a[[row0 + e2 / BK, k0 + e2 % BK]];
            a_s[e3 % BK][e3 / BK] = a[[row0 + e3 / BK, k0 + e3 % BK]];
            b_s[e0 / BM][e0 % BM] = b[[k0 + e0 / BM, col0 + e0 % BM]];
            b_s[e1 / BM][e1 % BM] = b[[k0 + e1 / BM, col0 + e1 % BM]];
            b_s[e2 / BM][e2 % BM] = b[[k0 + e2 / BM, col0 + e2 % BM]];
            b_s[e3 / BM][e3 % BM] = b[[k0 + e3 / BM, col0 + e3 % BM]];
            t.barrier.wait_with_tile_static_memory_fence();
            for k in 0..BK {
                let a0 = a_s[k][ty];
                let a1 = a_s[k][ty + 16];
                let a2 = a_s[k][ty + 32];
                let a3 = a_s[k][ty + 48];
                let b0 = b_s[k][tx];
                let b1 = b_s[k][tx + 16];
                let b2 = b_s[k][tx + 32];
                let b3 = b_s[k][tx + 48];
                s00 += a0 * b0;
                s01 += a0 * b1;
                s02 += a0 * b2;
                s03 += a0 * b3;
                s10 += a1 * b0;
                s11 += a1 * b1;
                s12 += a1 * b2;
                s13 += a1 * b3;
                s20 += a2 * b0;
                s21 += a2 * b1;
                s22 += a2 * b2;
                s23 += a2 * b3;
                s30 += a3 * b0;
                s31 += a3 * b1;
                s32 += a3 * b2;
                s33 += a3 * b3;
            }
            t.barrier.wait_with_tile_static_memory_fence();
            k0 += BK;
        }
        let (r0, r1, r2, r3) = (row0 + ty, row0 + ty + 16, row0 + ty + 32, row0 + ty + 48);
        let (c0, c1, c2, c3) = (col0 + tx, col0 + tx + 16, col0 + tx + 32, col0 + tx + 48);
        c[[r0, c0]] = s00;
        c[[r0, c1]] = s01;
        c[[r0, c2]] = s02;
        c[[r0, c3]] = s03;
        c[[r1, c0]] = s10;
        c[[r1, c1]] = s11;
        c[[r1, c2]] = s12;
        c[[r1, c3]] = s13;
        c[[r2, c0]] = s20;
        c[[r2, c1]] = s21;
        c[[r2, c2]] = s22;
        c[[r2, c3]] = s23;
        c[[r3, c0]] = s30;
        c[[r3, c1]] = s31;
        c[[r3, c2]] = s32;
        c[[r3, c3]] = s33;
    })
}

fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            ((x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) % 256) as f32 / 64.0 - 2.0
        })
        .collect()
}

/// Median seconds of `reps` rounds of `f` after two warm-ups.
/// The median time per launch of rounds of `batch` launches and one wait
/// (the submission and wait latency spread over the batch, so that the
/// figure is the kernels' own, as GPU timestamps would give).
fn time_batched(reps: usize, batch: usize, mut launch: impl FnMut(), wait: impl Fn()) -> f64 {
    time(reps, || {
        for _ in 0..batch {
            launch();
        }
        wait();
    }) / batch as f64
}

/// The median device time of `reps` runs of `run` (after one warm-up), in
/// seconds: the sum of the GPU timestamps of every kernel one run launches,
/// read with the runtime's kernel timing. `None` where the view cannot time
/// kernels.
fn device_time(view: &AcceleratorView, reps: usize, run: impl Fn()) -> Option<f64> {
    view.set_kernel_timing(true).ok()?;
    run();
    view.kernel_timings().ok()?;
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            run();
            view.kernel_timings()
                .map(|ts| ts.iter().map(|k| k.duration.as_secs_f64()).sum())
                .unwrap_or(f64::NAN)
        })
        .collect();
    view.set_kernel_timing(false).ok()?;
    t.sort_by(f64::total_cmp);
    Some(t[t.len() / 2])
}

/// Prints the GPU-timestamp row of a case (when the view can time kernels),
/// its rate from `work / seconds` in `unit`.
fn device_row(label: &str, secs: Option<f64>, work: f64, unit: &str) {
    if let Some(secs) = secs {
        println!(
            "| {label}, device time (kernel timing) | {:.3} | {:.1} {unit} | |",
            secs * 1e3,
            work / secs / 1e9
        );
    }
}

fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// Checks 512 random elements of `c = a x b` (n x n); the worst relative
/// error.
fn check_product(c: &[f32], a: &[f32], b: &[f32], n: usize) -> f64 {
    let mut worst = 0.0f64;
    let mut x = 12345u64;
    for _ in 0..512 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (r, col) = ((x >> 33) as usize % n, (x >> 13) as usize % n);
        let want: f64 = (0..n)
            .map(|i| f64::from(a[r * n + i]) * f64::from(b[i * n + col]))
            .sum();
        let got = f64::from(c[r * n + col]);
        worst = worst.max(if got.is_nan() {
            f64::INFINITY
        } else {
            (got - want).abs() / want.abs().max(1.0)
        });
    }
    worst
}

struct Hand {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    c: wgpu::Buffer,
    groups: u32,
}

impl Hand {
    /// The hand-written peer on its own device of the adapter named `name`,
    /// with `a` and `b` uploaded.
    fn new(name: &str, a: &[f32], b: &[f32], n: u32) -> Option<Hand> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter =
            futures::executor::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
                .into_iter()
                .find(|a| a.get_info().name == name)?;
        let (device, queue) =
            futures::executor::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("hand-written peer"),
                required_limits: adapter.limits(),
                ..Default::default()
            }))
            .ok()?;
        let storage = |data: &[f32], usage| {
            let buf = device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: std::mem::size_of_val(data) as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | usage,
                mapped_at_creation: false,
            });
            queue.write_buffer(&buf, 0, bytemuck::cast_slice(data));
            buf
        };
        let (ba, bb) = (
            storage(a, wgpu::BufferUsages::empty()),
            storage(b, wgpu::BufferUsages::empty()),
        );
        let c = storage(
            &vec![f32::NAN; (n * n) as usize],
            wgpu::BufferUsages::COPY_SRC,
        );
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        queue.write_buffer(&params, 0, bytemuck::cast_slice(&[n, n, n, 0]));
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(HAND_WGSL.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[&ba, &bb, &c, &params]
                .iter()
                .enumerate()
                .map(|(i, buf)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: buf.as_entire_binding(),
                })
                .collect::<Vec<_>>(),
        });
        Some(Hand {
            device,
            queue,
            pipeline,
            bind_group,
            c,
            groups: n.div_ceil(16),
        })
    }

    fn run(&self) {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(self.groups, self.groups, 1);
        }
        self.queue.submit([encoder.finish()]);
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
    }

    fn result(&self) -> Vec<f32> {
        let size = self.c.size();
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.c, 0, &staging, 0, size);
        self.queue.submit([encoder.finish()]);
        staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        let range = staging.slice(..).get_mapped_range().expect("mapped");
        bytemuck::cast_slice(&range).to_vec()
    }
}

fn main() -> amp_core::Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut mm, mut conv, mut radius, mut reps, mut batch, mut reduce) =
        (4096i32, 8192i32, 8i32, 10usize, 10usize, 1i32 << 26);
    while let Some(flag) = args.next() {
        let v: i64 = args
            .next()
            .and_then(|v| v.parse().ok())
            .filter(|&v| v > 0)
            .unwrap_or_else(|| {
                eprintln!("bench-samples: {flag} needs a positive number");
                std::process::exit(2)
            });
        match flag.as_str() {
            "--mm" => mm = v as i32,
            "--conv" => conv = v as i32,
            "--radius" => radius = v as i32,
            "--reps" => reps = v as usize,
            "--batch" => batch = v as usize,
            "--reduce" => reduce = v as i32,
            _ => {
                eprintln!("bench-samples: unknown argument {flag}");
                std::process::exit(2)
            }
        }
    }
    let acc = Accelerator::default()?;
    let view = acc.create_view(QueuingMode::Automatic);
    println!(
        "adapter: {acc}; {reps} rounds of {batch} launches and a wait per case, median time per launch (wall clock)"
    );
    println!("| case | time (ms) | rate | check |");
    println!("|---|---|---|---|");

    let n = mm as usize;
    let (va, vb) = (values(n * n, 1), values(n * n, 2));
    let a = Array::from_slice([mm, mm], &va, &view)?;
    let b = Array::from_slice([mm, mm], &vb, &view)?;
    let c = Array::from_slice([mm, mm], &vec![f32::NAN; n * n], &view)?;
    let flops = 2.0 * (mm as f64).powi(3);
    let mut mm_times = Vec::new();
    let cases: [&str; 6] = [
        "matmul_simple",
        "matmul_tiled",
        "matmul_optimized",
        "blocked 64x64, local arrays",
        "blocked 64x64, scalars",
        "blocked 128x128, f32 loads",
    ];
    for name in cases {
        if name.starts_with("blocked") && mm % if name.contains("128") { 128 } else { 64 } != 0 {
            continue;
        }
        let run = || {
            let (cv, av, bv) = (&c.view(), &a.view(), &b.view());
            let r = match name {
                "matmul_simple" => matmul::matmul_simple_on(&view, cv, av, bv),
                "matmul_tiled" => matmul::matmul_tiled_on(&view, cv, av, bv),
                "matmul_optimized" => matmul::matmul_optimized_on(&view, cv, av, bv),
                "blocked 64x64, local arrays" => matmul::matmul_blocked_on(&view, cv, av, bv, 64),
                "blocked 128x128, f32 loads" => matmul::matmul_blocked_on(&view, cv, av, bv, 128),
                _ => blocked_scalars(&view, cv, av, bv),
            };
            r.expect("launch");
        };
        let secs = time_batched(reps, batch, run, || view.wait().expect("wait"));
        let err = check_product(&c.to_vec()?, &va, &vb, n);
        println!(
            "| {name} {mm}^3 | {:.3} | {:.1} GFLOP/s | max rel. err {err:.1e} |",
            secs * 1e3,
            flops / secs / 1e9
        );
        mm_times.push(secs);
        if name == "matmul_optimized" {
            let gpu = device_time(&view, reps, run);
            device_row(&format!("{name} {mm}^3"), gpu, flops, "GFLOP/s");
        }
    }
    if let Some(hand) = Hand::new(acc.description(), &va, &vb, mm as u32) {
        let secs = time(reps, || hand.run());
        let err = check_product(&hand.result(), &va, &vb, n);
        println!(
            "| hand-written WGSL tiled {mm}^3 (raw wgpu) | {:.3} | {:.1} GFLOP/s | max rel. err {err:.1e} |",
            secs * 1e3,
            flops / secs / 1e9
        );
        println!(
            "| ratio matmul_tiled / hand-written | {:.2}x | | |",
            mm_times[1] / secs
        );
        if let (Some(arrays), Some(scalars)) = (mm_times.get(3), mm_times.get(4)) {
            println!(
                "| ratio blocked 64x64 local arrays / scalars | {:.2}x | | |",
                arrays / scalars
            );
        }
    } else {
        println!(
            "| hand-written WGSL peer | no wgpu adapter named {:?} | | |",
            acc.description()
        );
    }

    let (w, h) = (conv, conv);
    let pixels = (w as usize) * (h as usize);
    let img = values(pixels, 3);
    let taps = 2 * radius + 1;
    let filter: Vec<f32> = (0..taps).map(|k| 1.0 + (k % 3) as f32 / 4.0).collect();
    let mut want = vec![0.0f32; pixels];
    convolution::convolution_cpu(&mut want, &img, &filter, w, h)?;
    let image = Array::from_slice([h, w], &img, &view)?;
    let filt = Array::from_slice([taps], &filter, &view)?;
    let tmp = Array::<f32, 2>::new([h, w], &view)?;
    let out = Array::from_slice([h, w], &vec![f32::NAN; pixels], &view)?;
    // One read and one write of the image per pass, as the peer script counts.
    let bytes = 2.0 * 2.0 * 4.0 * pixels as f64;
    for name in [
        "convolution_simple",
        "convolution_tiling",
        "convolution_optimized",
    ] {
        let run = || {
            let passes = match name {
                "convolution_simple" => convolution::convolution_simple_on,
                "convolution_tiling" => convolution::convolution_tiling_on,
                _ => convolution::convolution_optimized_on,
            };
            let r = passes(&view, &out.view(), &image.view(), &filt.view(), &tmp);
            r.expect("launch");
        };
        let secs = time_batched(reps, batch, run, || view.wait().expect("wait"));
        let err = amp_examples::max_relative_error(&out.to_vec()?, &want)
            .map_or("NaN".into(), |e| format!("{e:.1e}"));
        println!(
            "| {name} {w}^2 r{radius} | {:.3} | {:.1} GB/s eff. | max rel. err {err} |",
            secs * 1e3,
            bytes / secs / 1e9
        );
        if name == "convolution_optimized" {
            let gpu = device_time(&view, reps, run);
            device_row(&format!("{name} {w}^2 r{radius}"), gpu, bytes, "GB/s eff.");
        }
    }

    // Reduction and transpose: bytes read and written, as a copy counts them.
    let rn = reduce as usize;
    let rdata = values(rn, 4);
    let want = amp_examples::reduction::sum_cpu(&rdata);
    let scale: f32 = rdata.iter().map(|x| x.abs()).sum();
    let data = Array::from_slice([reduce], &rdata, &view)?;
    let partials = Array::<f32, 1>::new([amp_examples::reduction::PARTIALS], &view)?;
    let total = Array::from_slice([1], &[f32::NAN], &view)?;
    let run = || {
        amp_examples::reduction::sum_on(&view, &data.view(), &partials, &total.view())
            .expect("launch");
    };
    let secs = time_batched(reps, batch, run, || view.wait().expect("wait"));
    let got = total.to_vec()?[0];
    let ok = (got - want).abs() <= 1e-5 * scale.max(1.0);
    println!(
        "| reduction {} f32 | {:.3} | {:.1} GB/s | {} |",
        if rn.is_power_of_two() {
            format!("2^{}", rn.trailing_zeros())
        } else {
            rn.to_string()
        },
        secs * 1e3,
        4.0 * rn as f64 / secs / 1e9,
        if ok {
            format!("sum {got}")
        } else {
            format!("WRONG: {got} vs {want}")
        }
    );
    device_row(
        "reduction",
        device_time(&view, reps, run),
        4.0 * rn as f64,
        "GB/s",
    );
    let tn = conv as usize;
    let tdata = values(tn * tn, 5);
    let tin = Array::from_slice([conv, conv], &tdata, &view)?;
    let tout = Array::from_slice([conv, conv], &vec![f32::NAN; tn * tn], &view)?;
    for (name, tiled) in [("transpose_simple", false), ("transpose_tiled", true)] {
        let run = || {
            let r = if tiled {
                amp_examples::transpose::transpose_tiled_on(&view, &tout.view(), &tin.view())
            } else {
                amp_examples::transpose::transpose_simple_on(&view, &tout.view(), &tin.view())
            };
            r.expect("launch");
        };
        let secs = time_batched(reps, batch, run, || view.wait().expect("wait"));
        let got = tout.to_vec()?;
        let bad = (0..tn * tn)
            .step_by(997)
            .filter(|&k| got[k] != tdata[(k % tn) * tn + k / tn])
            .count();
        println!(
            "| {name} {conv}^2 | {:.3} | {:.1} GB/s | {} |",
            secs * 1e3,
            2.0 * 4.0 * (tn * tn) as f64 / secs / 1e9,
            if bad == 0 {
                "ok".to_string()
            } else {
                format!("WRONG in {bad} samples")
            }
        );
        if tiled {
            let gpu = device_time(&view, reps, run);
            device_row(
                &format!("{name} {conv}^2"),
                gpu,
                2.0 * 4.0 * (tn * tn) as f64,
                "GB/s",
            );
        }
    }
    Ok(())
}
