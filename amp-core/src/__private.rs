//! Implementation details used by generated code and by the project's own
//! tests. Not part of the public API: anything here may change without notice.

use crate::{AcceleratorView, Result};

pub use crate::element::{StructLayout, struct_element_type};
pub use bytemuck;

/// Records one probe command on `view`: on a GPU, a clear of a small scratch
/// buffer; on the CPU, a host command. `on_run` is called when the command's
/// batch is submitted (GPU) or executed (CPU).
pub fn enqueue_probe_command(
    view: &AcceleratorView,
    on_run: impl FnOnce() + Send + 'static,
) -> Result<()> {
    view.record(
        |device, encoder| {
            encoder.clear_buffer(device.scratch_buffer(), 0, None);
            Ok(())
        },
        || Ok(()),
        Some(Box::new(on_run)),
    )
}

/// Records a GPU command the device refuses (a clear past the end of a
/// small buffer), as a bug in the runtime would. Does nothing on the CPU
/// accelerator.
pub fn enqueue_refused_command(view: &AcceleratorView) -> Result<()> {
    view.record(
        |device, encoder| {
            let scratch = device.scratch_buffer();
            encoder.clear_buffer(scratch, 0, Some(scratch.size() + 256));
            Ok(())
        },
        || Ok(()),
        None,
    )
}

/// Sets the age past which `view`'s automatic-mode batch is submitted when
/// the next command is recorded (2 ms by default). Tests that count the
/// commands of one batch raise it, so that a slow or busy machine cannot
/// split the batch.
pub fn set_automatic_max_age(view: &AcceleratorView, age: std::time::Duration) {
    view.set_automatic_max_age(age);
}

/// Destroys the device of `view`'s accelerator, as a driver reset would.
/// Does nothing on the CPU accelerator. The accelerator stays unusable for
/// the rest of the process.
pub fn destroy_device(view: &AcceleratorView) -> Result<()> {
    if let Some(device) = view.accelerator().device()? {
        device.destroy();
    }
    Ok(())
}

/// One container bound to a test kernel: a whole view's source, read-only or
/// written.
pub struct TestKernelArg {
    storage: std::sync::Arc<crate::backend::storage::Storage>,
    region: crate::range_set::RangeSet,
    write: bool,
}

/// Binds `view` for reading.
pub fn read_arg<T: crate::Element, const N: usize, A: crate::Access>(
    view: &crate::ArrayView<'_, T, N, A>,
) -> TestKernelArg {
    let (storage, layout) = view.parts();
    TestKernelArg {
        storage: std::sync::Arc::clone(storage),
        region: layout.region(),
        write: false,
    }
}

/// Binds `view` for reading and writing.
pub fn write_arg<T: crate::Element, const N: usize>(
    view: &crate::ArrayView<'_, T, N, crate::ReadWrite>,
) -> TestKernelArg {
    TestKernelArg {
        write: true,
        ..read_arg(view)
    }
}

/// Launches a hand-written kernel on `view`, binding each argument's whole
/// source buffer at `@group(0) @binding(i)`: on a GPU, `wgsl`'s entry point
/// `main` over `workgroups`; on the CPU accelerator, `cpu` with each
/// argument's words. The arguments are made coherent first (uploading only
/// what is stale) and written ones are marked dirty on the device, exactly
/// as kernel launches do. Used by the container tests until kernels can be
/// written in Rust.
pub fn launch_test_kernel(
    view: &AcceleratorView,
    args: &[TestKernelArg],
    wgsl: &str,
    workgroups: [u32; 3],
    cpu: impl FnOnce(&[&[std::sync::atomic::AtomicU32]]) + Send + 'static,
) -> Result<()> {
    use crate::backend::storage::DeviceBinding;
    let mut bindings = Vec::with_capacity(args.len());
    for arg in args {
        bindings.push(arg.storage.use_on(&arg.region, view, arg.write, false)?);
    }
    let wgsl = wgsl.to_string();
    let cpu_bindings = bindings.clone();
    view.record(
        move |device, encoder| {
            let module = device
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("amp-rs test kernel"),
                    source: wgpu::ShaderSource::Wgsl(wgsl.into()),
                });
            let pipeline =
                device
                    .device
                    .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some("amp-rs test kernel"),
                        layout: None,
                        module: &module,
                        entry_point: Some("main"),
                        compilation_options: Default::default(),
                        cache: None,
                    });
            let entries: Vec<wgpu::BindGroupEntry<'_>> = bindings
                .iter()
                .enumerate()
                .map(|(i, b)| match b {
                    DeviceBinding::Gpu(buffer) => Ok(wgpu::BindGroupEntry {
                        binding: i as u32,
                        resource: buffer.as_entire_binding(),
                    }),
                    DeviceBinding::Cpu(_) => Err(crate::Error::Runtime(
                        "CPU memory bound to a GPU kernel".to_string(),
                    )),
                })
                .collect::<Result<_>>()?;
            let bind_group = device.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("amp-rs test kernel"),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(workgroups[0], workgroups[1], workgroups[2]);
            Ok(())
        },
        move || {
            let words: Vec<crate::backend::storage::Words<'_>> = cpu_bindings
                .iter()
                .map(|b| match b {
                    DeviceBinding::Cpu(mem) => {
                        Ok(mem.access(crate::backend::cpu_gate::Mode::AtomicWrite))
                    }
                    DeviceBinding::Gpu(_) => Err(crate::Error::Runtime(
                        "GPU memory bound to a CPU kernel".to_string(),
                    )),
                })
                .collect::<Result<_>>()?;
            let words: Vec<&[std::sync::atomic::AtomicU32]> = words.iter().map(|w| &**w).collect();
            cpu(&words);
            Ok(())
        },
        None,
    )
}

/// The kernel pipeline, for code generated by `parallel_for_each!` and
/// `#[kernel]`.
/// WGSL snapshots of the kernels a thread launches (for the project's
/// tests): [`snapshot::start`], then [`snapshot::finish`].
pub mod snapshot {
    pub use crate::kernel::snapshot::{
        REFERENCE_IMMEDIATE_BYTES, Recorded, finish, reference_features, start,
    };
}

pub mod kernel {
    /// An `i32` const generic argument as a type (keys of `#[kernel]`
    /// function instances).
    pub struct ConstI32<const V: i32>;
    /// A `u32` const generic argument as a type.
    pub struct ConstU32<const V: u32>;
    /// A `bool` const generic argument as a type.
    pub struct ConstBool<const V: bool>;

    pub use crate::kernel::cancel::poll;
    pub use crate::kernel::capture::{
        BindNative, Bound, Capture, CaptureList, assert_capture, assert_reinterpretable,
        assert_words, assert_writable, struct_bind, struct_kind,
    };
    pub use crate::kernel::cpu::{LocalTile, Slots, TileAt, TileBatch, WorkItem};
    /// The kernel IR, as the generated code names it.
    pub mod ir {
        pub use crate::kernel::types::type_of;
        pub use amp_ir::*;
    }
    pub use crate::kernel::math::{
        Abs, BitcastAs, Bits, Componentwise, Cross, Euclid, Float, FromBits, Geometric, Num,
        PowerOfTwo, Reshape, Shape, ToBits, Wrapping,
    };
    #[cfg(feature = "half")]
    pub use crate::kernel::math::{HalfFromF32, HalfFromF64, HalfTo};
    pub use crate::kernel::native::{
        AtomicAccess, CpuView, IntoIndex, KernelValue, Load, ReinterpretAs, ReinterpretStore,
        Store, TileArray, TileMemory, Words, WritableAccess, ops, value,
    };
    pub use crate::kernel::plain::{Own, PlainOwn, PlainRead, PlainView, Plan};
    pub use crate::kernel::{
        KernelSite, Split, Threaded, TiledNative, compiled_sources, last_tiled_cpu_form, launch,
        launch_plain, launch_tiled, lower_to_wgsl, native_kernel, native_plain_kernel,
        native_split_kernel, native_tiled_kernel, plain_launches,
    };
}

/// How many threads this process has started to complete awaited or
/// continued [`CompletionFuture`](crate::CompletionFuture)s: at most one per
/// GPU device, however many futures were awaited.
pub fn completion_threads_started() -> usize {
    crate::backend::waiter::waiter_threads_started()
}
