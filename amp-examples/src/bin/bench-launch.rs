//! `bench-launch`: the cost of a cached `parallel_for_each!` launch against a
//! raw wgpu dispatch of the same WGSL, measured in one run on one adapter.
//!
//! Run: `cargo run --release -p amp-examples --bin bench-launch [ITERS]`.
//! Optionally `AMP_DEFAULT_ACCELERATOR` picks the adapter. The raw peer uses
//! the WGSL the kernel compiler generated (same bindings, same immediates),
//! on its own device of the same adapter, with its bind group created once.
//!
//! Cases (median of repeated rounds, wall clock):
//! - `single`: one dispatch, then wait for it (amp: immediate view + `wait`).
//! - `batched`: 1000 dispatches, one submission, then wait (amp: automatic
//!   view, one `wait`), reported per dispatch.
//! - `immediate`: 1000 dispatches each submitted, then wait (amp: immediate
//!   view), reported per dispatch.

use std::time::{Duration, Instant};

use amp_core::prelude::*;

const N: usize = 4096;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn amp_launch(
    view: &AcceleratorView,
    a: &ArrayView<'_, f32, 1, ReadOnly>,
    c: &ArrayView<'_, f32, 1>,
) {
    parallel_for_each!(view, c.extent(), |idx: Index<1>| {
        c[idx] = a[idx] * 2.0 + 1.0;
    })
    .expect("launch");
}

struct Raw {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    immediates: Vec<u8>,
    groups: u32,
}

impl Raw {
    fn new(adapter_name: &str, wgsl: &str) -> Option<Raw> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapters =
            futures::executor::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
        let adapter = adapters.into_iter().find(|a| {
            let info = a.get_info();
            info.name == adapter_name && info.backend == wgpu::Backend::Vulkan
        })?;
        let features =
            adapter.features() & (wgpu::Features::IMMEDIATES | wgpu::Features::SHADER_F64);
        let (device, queue) =
            futures::executor::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("raw peer"),
                required_features: features,
                required_limits: adapter.limits(),
                ..Default::default()
            }))
            .ok()?;
        let immediates = wgsl.contains("var<immediate>");
        // The containers' bindings, in the generated shader's order.
        let read_only: Vec<bool> = wgsl
            .lines()
            .filter(|l| l.contains("var<storage"))
            .map(|l| !l.contains("read_write"))
            .collect();
        let mut entries: Vec<wgpu::BindGroupLayoutEntry> = read_only
            .iter()
            .enumerate()
            .map(|(i, ro)| storage_entry(i as u32, *ro))
            .collect();
        if !immediates {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: entries.len() as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            });
        }
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &entries,
        });
        // Parameter block: total, extent, then per container offset, extent, stride.
        let words: Vec<u32> = vec![N as u32, N as u32, 0, N as u32, 1, 0, N as u32, 1];
        let mut block = bytemuck::cast_slice::<u32, u8>(&words).to_vec();
        block.resize(block.len().next_multiple_of(16), 0);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&layout)],
            immediate_size: if immediates { block.len() as u32 } else { 0 },
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let buffer = |usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: (N * 4) as u64,
                usage: wgpu::BufferUsages::STORAGE | usage,
                mapped_at_creation: false,
            })
        };
        let buffers: Vec<wgpu::Buffer> = read_only
            .iter()
            .map(|_| buffer(wgpu::BufferUsages::COPY_DST))
            .collect();
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: block.len() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        queue.write_buffer(&params, 0, &block);
        let mut bind: Vec<wgpu::BindGroupEntry<'_>> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        if !immediates {
            bind.push(wgpu::BindGroupEntry {
                binding: bind.len() as u32,
                resource: params.as_entire_binding(),
            });
        }
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &bind,
        });
        Some(Raw {
            device,
            queue,
            pipeline,
            bind_group,
            immediates: if immediates { block } else { Vec::new() },
            groups: (N as u32).div_ceil(256),
        })
    }

    fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        if !self.immediates.is_empty() {
            pass.set_immediates(0, &self.immediates);
        }
        pass.dispatch_workgroups(self.groups, 1, 1);
    }

    fn submit(&self, count: usize) {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for _ in 0..count {
            self.record(&mut encoder);
        }
        self.queue.submit([encoder.finish()]);
    }

    fn wait(&self) {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
    }
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn time(rounds: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm up
    median(
        (0..rounds)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn main() -> amp_core::Result<()> {
    let iters: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let acc = Accelerator::default()?;
    if acc.is_cpu() || acc.backend() != "vulkan" {
        eprintln!("bench-launch needs a Vulkan adapter; the default accelerator is {acc}");
        std::process::exit(2);
    }
    let input: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut output = vec![0.0f32; N];
    let immediate = acc.create_view(QueuingMode::Immediate);
    let automatic = acc.create_view(QueuingMode::Automatic);
    let a = ArrayView::new([N as i32], &input)?;
    let c = ArrayView::new_mut([N as i32], &mut output)?;
    amp_launch(&immediate, &a, &c);
    immediate.wait()?;
    let wgsl = amp_core::__private::kernel::compiled_sources(&immediate)
        .pop()
        .expect("the kernel was compiled");
    let raw = Raw::new(acc.description(), &wgsl).expect("a raw wgpu device on the same adapter");
    let rounds = 15;

    let amp_single = time(rounds * 10, || {
        amp_launch(&immediate, &a, &c);
        immediate.wait().expect("wait");
    });
    let raw_single = time(rounds * 10, || {
        raw.submit(1);
        raw.wait();
    });
    let amp_batched = time(rounds, || {
        for _ in 0..iters {
            amp_launch(&automatic, &a, &c);
        }
        automatic.wait().expect("wait");
    });
    let raw_batched = time(rounds, || {
        raw.submit(iters);
        raw.wait();
    });
    let amp_imm = time(rounds, || {
        for _ in 0..iters {
            amp_launch(&immediate, &a, &c);
        }
        immediate.wait().expect("wait");
    });
    let raw_imm = time(rounds, || {
        for _ in 0..iters {
            raw.submit(1);
        }
        raw.wait();
    });
    // CPU cost of recording alone (no waiting inside the timing).
    let mut amp_record = Vec::new();
    let mut raw_record = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..iters {
            amp_launch(&automatic, &a, &c);
        }
        amp_record.push(t.elapsed());
        automatic.wait().expect("wait");
        let t = Instant::now();
        let mut encoder = raw.device.create_command_encoder(&Default::default());
        for _ in 0..iters {
            raw.record(&mut encoder);
        }
        let commands = encoder.finish();
        raw_record.push(t.elapsed());
        raw.queue.submit([commands]);
        raw.wait();
    }
    let (amp_record, raw_record) = (median(amp_record), median(raw_record));
    // The results must be right, too.
    c.synchronize()?;
    drop(c);
    for (i, v) in output.iter().enumerate() {
        assert_eq!(*v, i as f32 * 2.0 + 1.0, "element {i}");
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / iters as f64;
    println!(
        "adapter: {} ({}), {} elements, {iters} dispatches per batch",
        acc.description(),
        acc.device_path(),
        N
    );
    println!("| case | amp-rs (us) | raw wgpu (us) | ratio |");
    println!("|---|---|---|---|");
    let row = |name: &str, amp: f64, raw: f64| {
        println!("| {name} | {amp:.2} | {raw:.2} | {:.2}x |", amp / raw)
    };
    row(
        "single dispatch + wait",
        amp_single.as_secs_f64() * 1e6,
        raw_single.as_secs_f64() * 1e6,
    );
    row(
        "batched (automatic), per dispatch",
        per(amp_batched),
        per(raw_batched),
    );
    row(
        "immediate submits, per dispatch",
        per(amp_imm),
        per(raw_imm),
    );
    row(
        "recording only (CPU), per dispatch",
        per(amp_record),
        per(raw_record),
    );
    Ok(())
}
