//! The kernel pipeline: IR -> types -> optimising passes -> WGSL -> naga
//! validation -> a cached compute pipeline, and the launch path for GPUs and
//! the CPU accelerator.
//!
//! The compiler is the `amp-ir` crate: [`amp_ir::compile`] takes the IR the
//! macros build through typing, resource checks, the optimising passes, the
//! WGSL writer and naga validation. This module is the runtime's side:
//! [`launch`](launch()) (binding, parameters, dispatch, the pipeline cache)
//! for GPUs, and the CPU accelerator's native forms, which call [`native`]
//! and [`math`]. [`types`] maps element types to kernel types.

pub(crate) mod cancel;
pub(crate) mod capture;
pub(crate) mod cpu;
pub(crate) mod math;
pub(crate) mod native;
pub(crate) mod plain;
pub(crate) mod snapshot;
pub(crate) mod types;

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::backend::device::DeviceContext;
use crate::backend::storage::{CpuMem, DeviceBinding};
use crate::kernel_timing::TimingLog;
use crate::{AcceleratorView, Error, Extent, Index, Result, TiledIndex};
use amp_ir::{Block, CaptureKind, Compiled, Kernel, Resources, Span, Target};
use capture::{BoundOrScalar, CaptureList, ScalarValue};
use plain::{Own, Plan};

/// Where a kernel is in the user's source, and its captures' names.
#[derive(Debug)]
pub struct KernelSite {
    /// The `parallel_for_each!` call's location.
    pub span: Span,
    /// The captured variables' names, in capture order.
    pub capture_names: &'static [&'static str],
    /// Whether the macro proved that the kernel cannot fail once started
    /// if every captured container's extent is the domain's (its accesses
    /// are all at its own index; it has no loop): the CPU accelerator then
    /// keeps no copy of what it writes and does not poll for cancellation.
    pub infallible: bool,
    /// Whether the crate that wrote the kernel was compiled with debug
    /// assertions (`cfg!(debug_assertions)` there: a dev build, whose
    /// native kernels are unoptimised).
    pub debug_build: bool,
}

/// Logs, once per process, that the CPU accelerator runs a kernel compiled
/// without optimisation, and what to do about it.
fn warn_unoptimised(site: &KernelSite) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    use std::sync::atomic::Ordering::Relaxed;
    // A load first: every later launch of a debug build reads, never writes.
    if site.debug_build && !WARNED.load(Relaxed) && !WARNED.swap(true, Relaxed) {
        log::warn!(
            "the kernel at {} runs on the CPU accelerator from a debug build: kernels compile into the crate that writes them, here without optimisation, and run about 50-130x slower than in a release build; `[profile.dev] opt-level = 1` in that crate's Cargo.toml brings that to about 10x, `--release` removes it (this warning is logged once)",
            site.span
        );
    }
}

/// A kernel instance: its native closure's type, then the values inlined
/// into its WGSL: the tile shape of a tiled kernel, and the kernel's
/// upper-case names (constants, usually).
type KernelKey = (TypeId, Vec<u64>);

/// A kernel compiled for one device.
pub(crate) struct CompiledKernel {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    params: amp_ir::ParamLayout,
    immediates: bool,
    /// Whether the kernel binds the device's loop-guard status buffer.
    loop_guard: bool,
    /// The WGSL it was built from.
    source: String,
    /// Per capture: whether it is bound as read-write storage (writable
    /// views the kernel never writes are bound read-only).
    writable: Vec<bool>,
    /// Recent bind groups by their buffers (immediates only: then a bind
    /// group depends on nothing else). Small, so that it keeps few buffers
    /// alive.
    bind_groups: Mutex<Vec<(Vec<wgpu::Buffer>, wgpu::BindGroup)>>,
}

/// How many bind groups a compiled kernel remembers.
const BIND_GROUP_CACHE: usize = 8;

/// Compiled kernels of one device, by the type of the kernel's native
/// closure (unique per kernel and per instantiation of generic code).
#[derive(Default)]
pub(crate) struct KernelCache {
    kernels: Mutex<HashMap<KernelKey, Arc<CompiledKernel>>>,
}

/// The WGSL of every kernel compiled for `view`'s device (for benchmarks
/// that run the same shader through raw wgpu).
pub fn compiled_sources(view: &AcceleratorView) -> Vec<String> {
    match view.accelerator().device() {
        Ok(Some(device)) => device
            .attached::<KernelCache>()
            .kernels
            .lock()
            .values()
            .map(|k| k.source.clone())
            .collect(),
        _ => Vec::new(),
    }
}

/// Lowers `kernel` to validated WGSL for a device with `features` and
/// returns the source (for snapshots and `AMP_DUMP_WGSL`).
///
/// # Errors
///
/// [`Error::KernelCompile`] if the kernel cannot be lowered.
pub fn lower_to_wgsl(kernel: Kernel, features: wgpu::Features) -> Result<String> {
    lower(kernel, features, 0, false, &[]).map(|c| c.shader.source)
}

/// What the compiler may use on a device with `features`.
pub(crate) fn target(features: wgpu::Features, max_immediate: u32, loop_guard: bool) -> Target {
    Target {
        immediates: features.contains(wgpu::Features::IMMEDIATES),
        max_immediate_bytes: max_immediate,
        f16: features.contains(wgpu::Features::SHADER_F16),
        f64: features.contains(wgpu::Features::SHADER_F64),
        subgroups: features.contains(wgpu::Features::SUBGROUP),
        loop_guard,
    }
}

/// Lowers `kernel` to validated WGSL for a device with `features` (see
/// [`amp_ir::compile`]), passing the parameters as immediates when they fit
/// in `max_immediate` bytes, with the loop guard of llvmpipe if
/// `loop_guard`.
pub(crate) fn lower(
    kernel: Kernel,
    features: wgpu::Features,
    max_immediate: u32,
    loop_guard: bool,
    keep: &[usize],
) -> Result<Compiled> {
    Ok(amp_ir::compile(
        kernel,
        &target(features, max_immediate, loop_guard),
        keep,
    )?)
}

/// What the native form of each kernel needs (and whether it may run at
/// all), measured on the first launch on the CPU accelerator.
static CPU_KERNELS: Mutex<Option<HashMap<KernelKey, Result<amp_ir::NativeNeeds>>>> =
    Mutex::new(None);

/// Types and measures `kernel` for the CPU accelerator: the same checks as
/// for a GPU (types, recursion, sizes), without writing WGSL.
fn measure_native(kernel: Kernel) -> Result<amp_ir::NativeNeeds> {
    Ok(amp_ir::measure_native(kernel)?)
}

/// Whether `AMP_DENY_F64` is set (to anything but `0`): kernels that
/// compute in `f64` are refused on every accelerator, as a GPU without
/// double precision refuses them, so that tests on the CPU accelerator or
/// lavapipe find them. Read once per process.
pub(crate) fn deny_f64() -> bool {
    static DENY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DENY.get_or_init(|| std::env::var("AMP_DENY_F64").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// The error for a kernel that computes in `f64` on `view`'s accelerator,
/// which has no double precision (or `AMP_DENY_F64` refuses it): the
/// kernel's place, the first `f64` value of its body, and the usual cause,
/// an unsuffixed float literal (`let half = 0.5;` is `f64` unless the code
/// makes it `f32`).
fn f64_refusal(needs: &Resources, view: &AcceleratorView, site: &KernelSite) -> Error {
    let acc = view.accelerator();
    let why = if acc.supports_double_precision() {
        "; refused because AMP_DENY_F64 is set".to_string()
    } else {
        String::new()
    };
    let first = match needs.f64_at {
        Some(at) if at != site.span && Some(at) != needs.f64_literal => format!(", first at {at}"),
        _ => String::new(),
    };
    let literal = match needs.f64_literal {
        Some(at) => format!(
            "; the float literal at {at} has no suffix and nothing makes it f32, so Rust makes it f64: write it with `f32` (`0.5f32`) or give its `let` a type (`let half: f32 = 0.5;`)"
        ),
        None => String::new(),
    };
    Error::UnsupportedFeature {
        accelerator: acc.description().to_string(),
        feature: format!(
            "double precision (f64), used by the kernel at {}{first}{literal}{why}",
            site.span
        ),
    }
}

/// Refuses a kernel that needs more than `view`'s accelerator has: more
/// `tile_static` memory than its limit, or more local memory per work item
/// than [`amp_ir::MAX_LOCAL_BYTES`].
fn check_resources(needs: &Resources, view: &AcceleratorView, site: &KernelSite) -> Result<()> {
    let acc = view.accelerator();
    let unsupported = |feature: String| Error::UnsupportedFeature {
        accelerator: acc.description().to_string(),
        feature: format!("{feature} ({})", site.span),
    };
    let tile_limit = u64::from(acc.limits().max_tile_static_bytes);
    if needs.tile_static_bytes > tile_limit {
        return Err(unsupported(format!(
            "tile_static arrays of {} bytes: the max_tile_static_bytes limit is {tile_limit}",
            needs.tile_static_bytes
        )));
    }
    if needs.local_bytes > amp_ir::MAX_LOCAL_BYTES {
        return Err(unsupported(format!(
            "local variables of {} bytes per work item (arrays included, along the deepest chain of #[kernel] calls): kernels may hold at most {} bytes",
            needs.local_bytes,
            amp_ir::MAX_LOCAL_BYTES
        )));
    }
    Ok(())
}

fn build_kernel<const N: usize>(site: &KernelSite, kinds: Vec<CaptureKind>, body: Block) -> Kernel {
    Kernel {
        name: site.span.to_string(),
        rank: N as u32,
        captures: site.capture_names.iter().copied().zip(kinds).collect(),
        body,
        span: site.span,
        tile: None,
    }
}

fn compile_gpu(
    device: &DeviceContext,
    kernel: Kernel,
    shader: amp_ir::Shader,
) -> Result<CompiledKernel> {
    let mut entries = Vec::new();
    for (_, kind) in &kernel.captures {
        if let CaptureKind::Container { writable, .. } = kind {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: entries.len() as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage {
                        read_only: !writable,
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            });
        }
    }
    if shader.loop_guard {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: entries.len() as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        });
    }
    if !shader.immediates {
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
    let immediate_size = if shader.immediates {
        shader.params.words * 4
    } else {
        0
    };
    let scope = device
        .device
        .push_error_scope(wgpu::ErrorFilter::Validation);
    let layout = device
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("amp-rs kernel"),
            entries: &entries,
        });
    let pipeline_layout = device
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("amp-rs kernel"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size,
        });
    let module = device
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&kernel.name),
            // The module naga validated in `lower`; the WGSL otherwise.
            source: match &shader.module {
                Some(module) => {
                    wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(naga::Module::clone(module)))
                }
                None => wgpu::ShaderSource::Wgsl(shader.source.as_str().into()),
            },
        });
    let pipeline = device
        .device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&kernel.name),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: device.pipeline_cache.as_ref().map(|c| &c.cache),
        });
    if let Some(e) = futures::executor::block_on(scope.pop()) {
        return Err(Error::KernelCompile {
            kernel: kernel.name,
            message: format!("the device rejected the kernel: {e}"),
        });
    }
    if let Some(cache) = &device.pipeline_cache {
        cache.save();
    }
    Ok(CompiledKernel {
        pipeline,
        layout,
        params: shader.params,
        immediates: shader.immediates,
        loop_guard: shader.loop_guard,
        source: shader.source,
        writable: writable_flags(kernel.captures.iter().map(|(_, k)| k)),
        bind_groups: Mutex::new(Vec::new()),
    })
}

/// The 32-bit words of a launch's parameter block.
fn param_words(
    params: &amp_ir::ParamLayout,
    extent: &[i32],
    total: u32,
    bound: &[BoundOrScalar],
) -> Vec<u32> {
    let mut words = vec![0u32; params.words as usize];
    words[0] = total;
    for (d, e) in extent.iter().enumerate() {
        words[1 + d] = *e as u32;
    }
    for (b, &at) in bound.iter().zip(&params.capture_words) {
        let at = at as usize;
        match b {
            BoundOrScalar::Container(c) => {
                words[at] = (c.offset / c.elem) as u32;
                let rank = c.extent.len();
                for d in 0..rank {
                    words[at + 1 + d] = c.extent[d] as u32;
                    words[at + 1 + rank + d] = c.strides[d] as u32;
                }
            }
            BoundOrScalar::Scalar(v) => match v {
                ScalarValue::I32(x) => words[at] = *x as u32,
                ScalarValue::U32(x) => words[at] = *x,
                ScalarValue::F32(x) => words[at] = x.to_bits(),
                ScalarValue::Bool(x) => words[at] = u32::from(*x),
                ScalarValue::F64(x) => {
                    let bits = x.to_bits();
                    words[at] = bits as u32;
                    words[at + 1] = (bits >> 32) as u32;
                }
                ScalarValue::Vector { words: w, len } => {
                    let len = usize::from(*len);
                    words[at..at + len].copy_from_slice(&w[..len]);
                }
                ScalarValue::Words(w) => words[at..at + w.len()].copy_from_slice(w),
            },
        }
    }
    words
}

/// Returns `body`: gives the native form of a kernel its parameter types
/// (from the captures) where `parallel_for_each!` binds it to a variable.
pub fn native_kernel<const N: usize, C, F>(_captures: &C, body: F) -> F
where
    C: CaptureList,
    F: Fn(&C::Cpu, Index<N>) + Send + Sync + 'static,
{
    body
}

/// Launches a kernel over `domain`: the entry point `parallel_for_each!`
/// expands to.
///
/// `build` constructs the body's IR (called once per device and kernel
/// instantiation); `cpu` is the body's native form, run on the CPU
/// accelerator. Launches on `view`, else on the view of the first captured
/// `Array`, else on the default accelerator's default view.
///
/// # Errors
///
/// - [`Error::InvalidComputeDomain`] for a zero or negative extent or more
///   than 2^32 work items (nothing runs, no data changes);
/// - [`Error::UnsupportedFeature`] if the kernel uses `f64` on an
///   accelerator without it;
/// - [`Error::KernelCompile`] if the kernel cannot be lowered (a bug);
/// - transfer and device errors.
pub fn launch<const N: usize, C, B, F>(
    view: Option<&AcceleratorView>,
    domain: Extent<N>,
    site: &'static KernelSite,
    captures: C,
    consts: &[u64],
    build: B,
    cpu: F,
) -> Result<()>
where
    C: CaptureList,
    B: FnOnce() -> Block,
    F: Fn(&C::Cpu, Index<N>) + Send + Sync + 'static,
{
    let (total, dispatch) = untiled_dispatch(&domain, site)?;
    launch_with::<N, C, B>(
        view,
        site,
        captures,
        build,
        kernel_key::<F>(None, consts),
        dispatch,
        move |native, needs, infallible, mems| {
            Box::new(move || {
                let local_bytes = needs.local_bytes;
                log::debug!("kernel {}: the atomic form runs", site.span);
                let _passes = plain::enter_atomic(&mems);
                cpu::run_native(site, domain, total, local_bytes, infallible, &native, &cpu)
            })
        },
    )
}

/// A non-tiled kernel's plain form: `prepare` asks the launch's plan for
/// the captures the body reads or writes with plain memory, `body` runs one
/// work item with them (the module docs of `kernel/plain.rs`).
pub fn native_plain_kernel<const N: usize, C, P, Prep, F>(
    _captures: &C,
    prepare: Prep,
    body: F,
) -> (Prep, F)
where
    C: CaptureList,
    Prep: Fn(&C::Cpu, &mut Plan<'_, N>) -> P + Send + Sync + 'static,
    F: Fn(&C::Cpu, &P, &Own<'_, N>) + Send + Sync + 'static,
    P: Sync,
{
    (prepare, body)
}

/// [`launch`] for a kernel that also has a plain form (`plain`, made by
/// [`native_plain_kernel`]): the CPU accelerator runs that form when the
/// launch's plan is granted, else `cpu`. GPUs run the same kernel as
/// [`launch`] would.
///
/// # Errors
///
/// As [`launch`].
#[allow(clippy::too_many_arguments)]
pub fn launch_plain<const N: usize, C, B, F, Prep, G, P>(
    view: Option<&AcceleratorView>,
    domain: Extent<N>,
    site: &'static KernelSite,
    captures: C,
    consts: &[u64],
    build: B,
    cpu: F,
    plain: (Prep, G),
) -> Result<()>
where
    C: CaptureList,
    B: FnOnce() -> Block,
    F: Fn(&C::Cpu, Index<N>) + Send + Sync + 'static,
    Prep: Fn(&C::Cpu, &mut Plan<'_, N>) -> P + Send + Sync + 'static,
    G: Fn(&C::Cpu, &P, &Own<'_, N>) + Send + Sync + 'static,
    P: Sync,
{
    let (total, dispatch) = untiled_dispatch(&domain, site)?;
    launch_with::<N, C, B>(
        view,
        site,
        captures,
        build,
        kernel_key::<F>(None, consts),
        dispatch,
        move |native, needs, infallible, mems| {
            Box::new(move || {
                let local_bytes = needs.local_bytes;
                let (prepare, body) = &plain;
                let ran = cpu::run_plain(
                    site,
                    domain,
                    total,
                    local_bytes,
                    infallible,
                    &native,
                    &mems,
                    prepare,
                    body,
                );
                if let Some(result) = ran {
                    PLAIN_LAUNCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    log::debug!("kernel {}: the plain form ran", site.span);
                    return result;
                }
                log::debug!(
                    "kernel {}: memory shared with another command; its atomic form runs",
                    site.span
                );
                let _passes = plain::enter_atomic(&mems);
                cpu::run_native(site, domain, total, local_bytes, infallible, &native, &cpu)
            })
        },
    )
}

/// How many launches of this process ran a kernel's plain form (tests
/// check that a kernel they expect to run plainly does).
static PLAIN_LAUNCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many launches of this process ran a kernel's plain form on the CPU
/// accelerator.
pub fn plain_launches() -> u64 {
    PLAIN_LAUNCHES.load(std::sync::atomic::Ordering::Relaxed)
}

/// The work items of a non-tiled launch over `domain`, and its dispatch.
fn untiled_dispatch<const N: usize>(
    domain: &Extent<N>,
    site: &KernelSite,
) -> Result<(u32, Dispatch)> {
    let total = work_items(domain, site)?;
    let dispatch = Dispatch {
        extent: domain.to_array().to_vec(),
        total,
        tile: None,
    };
    Ok((total, dispatch))
}

/// The number of work items of a launch over `extent`, which must be
/// positive in every component and hold at most 2^32 - 1 of them.
fn work_items<const N: usize>(extent: &Extent<N>, site: &KernelSite) -> Result<u32> {
    if !extent.is_positive() {
        return Err(Error::InvalidComputeDomain(format!(
            "extent {extent} has a zero or negative component ({})",
            site.span
        )));
    }
    u32::try_from(extent.size()).map_err(|_| {
        Error::InvalidComputeDomain(format!(
            "extent {extent} has more than 2^32 - 1 work items ({})",
            site.span
        ))
    })
}

/// The threaded native form of a tiled kernel (see the `cpu` module): `body` runs
/// one work item, on a thread of its own.
pub fn native_tiled_kernel<const N: usize, C, F>(_captures: &C, body: F) -> Threaded<F>
where
    C: CaptureList,
    F: Fn(&C::Cpu, &TiledIndex<N>, &native::TileMemory) + Send + Sync + 'static,
{
    Threaded(body)
}

/// The split native form of a tiled kernel (see the `cpu` module): `body` runs a
/// batch of tiles, its barriers compiled away.
pub fn native_split_kernel<const N: usize, C, F>(_captures: &C, body: F) -> Split<F>
where
    C: CaptureList,
    F: Fn(&C::Cpu, &cpu::TileBatch<N>) + Send + Sync + 'static,
{
    Split(body)
}

/// A tiled kernel's native form: [`Threaded`] or [`Split`].
pub trait TiledNative<const N: usize, C>: Send + Sync + 'static {
    /// The form's name: `"split"` or `"threaded"`.
    const FORM: &'static str;
    /// Runs the kernel over `domain` on the CPU accelerator.
    fn run(
        &self,
        site: &KernelSite,
        domain: crate::TiledExtent<N>,
        tile_static_bytes: u32,
        local_bytes: u64,
        captures: &C,
    ) -> Result<()>;
}

/// A tiled kernel's native form that runs each work item on a thread.
pub struct Threaded<F>(F);

/// A tiled kernel's native form with its barriers compiled away.
pub struct Split<F>(F);

impl<const N: usize, C: Sync, F> TiledNative<N, C> for Threaded<F>
where
    F: Fn(&C, &TiledIndex<N>, &native::TileMemory) + Send + Sync + 'static,
{
    const FORM: &'static str = "threaded";
    fn run(
        &self,
        site: &KernelSite,
        domain: crate::TiledExtent<N>,
        tile_static_bytes: u32,
        local_bytes: u64,
        captures: &C,
    ) -> Result<()> {
        let stack = TILE_STACK + 4 * local_bytes as usize;
        cpu::run_threaded(site, domain, tile_static_bytes, stack, captures, &self.0)
    }
}

impl<const N: usize, C: Sync, F> TiledNative<N, C> for Split<F>
where
    F: Fn(&C, &cpu::TileBatch<N>) + Send + Sync + 'static,
{
    const FORM: &'static str = "split";
    fn run(
        &self,
        site: &KernelSite,
        domain: crate::TiledExtent<N>,
        _tile_static_bytes: u32,
        _local_bytes: u64,
        captures: &C,
    ) -> Result<()> {
        cpu::run_split(site, domain, captures, &self.0)
    }
}

thread_local! {
    /// The native form of the last tiled kernel this thread launched on the
    /// CPU accelerator.
    static LAST_TILED_FORM: std::cell::Cell<Option<&'static str>> =
        const { std::cell::Cell::new(None) };
}

/// The native form (`"split"` or `"threaded"`) of the last tiled kernel
/// that this thread launched on the CPU accelerator: tests check which form
/// a kernel runs in (the launch also logs it at `debug` level).
pub fn last_tiled_cpu_form() -> Option<&'static str> {
    LAST_TILED_FORM.with(std::cell::Cell::get)
}

/// Launches a tiled kernel (one workgroup per tile): the entry point of
/// `parallel_for_each!` with a `TiledIndex` parameter.
///
/// # Errors
///
/// As [`launch`], and:
/// - [`Error::InvalidComputeDomain`] if the tile does not divide the extent
///   (use `pad()` or `truncate()`);
/// - [`Error::UnsupportedFeature`] naming the limit if the tile has more
///   threads or dimensions larger than the accelerator allows. Any number of
///   tiles is dispatched (the grid is linearised over the workgroup axes).
pub fn launch_tiled<const N: usize, C, B, F>(
    view: Option<&AcceleratorView>,
    domain: crate::TiledExtent<N>,
    site: &'static KernelSite,
    captures: C,
    consts: &[u64],
    build: B,
    cpu: F,
) -> Result<()>
where
    C: CaptureList,
    B: FnOnce() -> Block,
    F: TiledNative<N, C::Cpu>,
{
    let (extent, tile) = (domain.extent(), domain.tile_extent());
    let total = work_items(&extent, site)?;
    if !domain.is_divisible() {
        return Err(Error::InvalidComputeDomain(format!(
            "extent {extent} is not divisible by the tile {tile}: pad() or truncate() it ({})",
            site.span
        )));
    }
    let view = match view {
        Some(v) => v.clone(),
        None => match captures.home_view() {
            Some(v) => v,
            None => crate::Accelerator::default()?.default_view(),
        },
    };
    if view.accelerator().is_cpu() {
        LAST_TILED_FORM.with(|f| f.set(Some(F::FORM)));
        log::debug!(
            "tiled kernel at {} runs on the CPU accelerator in the {} form{}",
            site.span,
            F::FORM,
            if F::FORM == "threaded" {
                " (a thread per work item, much slower: the split form does not cover it)"
            } else {
                ""
            }
        );
    }
    let limits = view.accelerator().limits();
    let unsupported = |what: String| Error::UnsupportedFeature {
        accelerator: view.accelerator().description().to_string(),
        feature: format!("{what} ({})", site.span),
    };
    if domain.tile_size() > limits.max_threads_per_tile {
        return Err(unsupported(format!(
            "a tile of {} threads: the max_threads_per_tile limit is {}",
            domain.tile_size(),
            limits.max_threads_per_tile
        )));
    }
    for d in 0..N {
        let (axis, max) = (N - 1 - d, limits.max_tile_dims[N - 1 - d]);
        if tile[d] as u32 > max {
            return Err(unsupported(format!(
                "a tile extent of {} in dimension {d}: the limit for that workgroup axis ({axis}) is {max}",
                tile[d]
            )));
        }
    }
    let dispatch = Dispatch {
        extent: extent.to_array().to_vec(),
        total,
        tile: Some(tile.to_array().iter().map(|&t| t as u32).collect()),
    };
    let tile_static_bytes = limits.max_tile_static_bytes;
    launch_with::<N, C, B>(
        Some(&view),
        site,
        captures,
        build,
        kernel_key::<F>(dispatch.tile.as_deref(), consts),
        dispatch,
        move |native, needs, _, mems| {
            Box::new(move || {
                let _passes = plain::enter_atomic(&mems);
                cpu.run(site, domain, tile_static_bytes, needs.local_bytes, &native)
            })
        },
    )
}

/// The stack of a thread running one work item of a tiled kernel (the
/// threaded form), before room for the kernel's locals (a tile may start
/// 1024 of them).
const TILE_STACK: usize = 512 * 1024;

/// The error of a CPU kernel whose work item unwound with `payload`: a
/// stop (cancel, timeout) or a panic (an out-of-bounds index).
fn kernel_error(site: &KernelSite, payload: &(dyn std::any::Any + Send)) -> Error {
    match cancel::classify(payload) {
        cancel::Panic::Stop(stop) => stop.error(&format!("the kernel at {}", site.span)),
        cancel::Panic::Message(msg) => Error::Runtime(format!(
            "kernel failed on the CPU accelerator: {msg} ({})",
            site.span
        )),
    }
}

/// What a launch covers: the domain, and the tile shape of tiled kernels.
struct Dispatch {
    extent: Vec<i32>,
    total: u32,
    tile: Option<Vec<u32>>,
}

/// The key of the kernel whose native closure is `F`, with the values its
/// WGSL inlines: the tile shape, then the upper-case names' values.
fn kernel_key<F: 'static>(tile: Option<&[u32]>, consts: &[u64]) -> KernelKey {
    let tile = tile.unwrap_or_default().iter().map(|&t| u64::from(t));
    (
        TypeId::of::<F>(),
        tile.chain(consts.iter().copied()).collect(),
    )
}

/// The launch path shared by tiled and non-tiled kernels: `key` identifies
/// the kernel instance (with the tile shape, the compiled pipeline); `host`
/// turns the bound CPU captures into the host command.
#[allow(clippy::type_complexity)]
fn launch_with<const N: usize, C, B>(
    view: Option<&AcceleratorView>,
    site: &'static KernelSite,
    captures: C,
    build: B,
    key: KernelKey,
    dispatch: Dispatch,
    host: impl FnOnce(
        C::Cpu,
        Resources,
        bool,
        Vec<Option<(Arc<CpuMem>, bool)>>,
    ) -> Box<dyn FnOnce() -> Result<()> + Send>,
) -> Result<()>
where
    C: CaptureList,
    B: FnOnce() -> Block,
{
    let view = match view {
        Some(v) => v.clone(),
        None => match captures.home_view() {
            Some(v) => v,
            None => crate::Accelerator::default()?.default_view(),
        },
    };
    let kinds = captures.kinds();
    let mut build = Some(build);
    let mut block: Option<Block> = None;
    // Tests record the kernels they launch, lowered for a reference device
    // on every accelerator (WGSL snapshots need no GPU).
    if snapshot::recording() {
        snapshot::record(&key, &site.span.to_string(), || {
            let body = block
                .insert(build.take().map_or_else(Block::default, |b| b()))
                .clone();
            let mut kernel = build_kernel::<N>(site, kinds.clone(), body);
            kernel.tile = dispatch.tile.clone();
            kernel
        });
    }
    match view.accelerator().device()? {
        Some(device) => {
            device.check()?;
            let (bound, _) = captures.bind_all(&view)?;
            // Captures declared read_write whatever their kind, and whether
            // or not the kernel writes them: those whose buffer a read_write
            // binding of this launch also binds (one dispatch cannot bind a
            // buffer both read-only and read-write; wgpu refuses it). Such a
            // launch is a kernel instance of its own.
            let mut keep = shared_with_writable(&writable_flags(&kinds), &kinds, &bound);
            let compiled = loop {
                // The common case (nothing kept) looks the kernel up by the
                // launch's own key, without copying it.
                let kept_key = (!keep.is_empty()).then(|| {
                    let (id, mut values) = key.clone();
                    values.push(u64::MAX);
                    values.extend(keep.iter().map(|&i| i as u64));
                    (id, values)
                });
                let key = kept_key.as_ref().unwrap_or(&key);
                let cached = device
                    .attached::<KernelCache>()
                    .kernels
                    .lock()
                    .get(key)
                    .cloned();
                let compiled = match cached {
                    Some(k) => {
                        log::trace!(
                            "kernel {} on {}: compiled before",
                            site.span,
                            view.accelerator()
                        );
                        k
                    }
                    None => {
                        let body = match &block {
                            Some(b) => b.clone(),
                            None => block
                                .insert(build.take().map_or_else(Block::default, |b| b()))
                                .clone(),
                        };
                        compile_on_device::<N>(
                            device, &view, site, &kinds, &keep, key, &dispatch, body,
                        )?
                    }
                };
                let more: Vec<usize> = shared_with_writable(&compiled.writable, &kinds, &bound)
                    .into_iter()
                    .filter(|i| !keep.contains(i))
                    .collect();
                if more.is_empty() {
                    break compiled;
                }
                keep.extend(more);
            };
            let words = param_words(&compiled.params, &dispatch.extent, dispatch.total, &bound);
            let max = view.accelerator().limits().max_tiles_per_dimension.max(1);
            // Workgroups: one per tile, or one per WORKGROUP_SIZE work items;
            // the kernel linearises them, so they spread over x, then y, then z.
            let groups = match &dispatch.tile {
                Some(tile) => dispatch.total / tile.iter().product::<u32>(),
                None => dispatch.total.div_ceil(amp_ir::WORKGROUP_SIZE),
            };
            let [gx, gy, gz] = grid(groups, max);
            record_gpu_dispatch(&view, device, compiled, &bound, &words, [gx, gy, gz], site)
        }
        None => cpu_launch::<N, C, B>(
            view, site, captures, kinds, key, dispatch, build, block, host,
        ),
    }
}

/// Records a compiled kernel's dispatch on `view`: its bind group (cached
/// by buffers where the parameters travel as immediates), the parameter
/// words, the `grid` of workgroups, and GPU timestamps when the view times
/// its launches.
fn record_gpu_dispatch(
    view: &AcceleratorView,
    device: &Arc<DeviceContext>,
    compiled: Arc<CompiledKernel>,
    bound: &[BoundOrScalar],
    words: &[u32],
    grid: [u32; 3],
    site: &'static KernelSite,
) -> Result<()> {
    let [gx, gy, gz] = grid;
    let timing = Arc::clone(view.timing());
    let device_arc = device;
    view.record(
        |device, encoder| {
            let mut buffers = Vec::new();
            for b in bound {
                if let BoundOrScalar::Container(c) = b {
                    match &c.binding {
                        Some(DeviceBinding::Gpu(buffer)) => buffers.push(buffer.clone()),
                        _ => {
                            return Err(Error::Runtime(
                                "a container is not on the GPU".to_string(),
                            ));
                        }
                    }
                }
            }
            if compiled.loop_guard {
                let guard = device.loop_guard.as_ref().ok_or_else(|| {
                    Error::Runtime(
                        "a guarded kernel on a device without the loop guard".to_string(),
                    )
                })?;
                buffers.push(guard.status.clone());
            }
            let cached = if compiled.immediates {
                let cache = compiled.bind_groups.lock();
                cache
                    .iter()
                    .find(|(k, _)| *k == buffers)
                    .map(|(_, g)| g.clone())
            } else {
                None
            };
            let bind_group = match cached {
                Some(g) => g,
                None => {
                    // Without immediates, the parameters go in a small
                    // uniform buffer of their own (commands of one batch
                    // cannot share a rewritten one).
                    let params = (!compiled.immediates).then(|| {
                        let params = device.device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some("amp-rs launch parameters"),
                            size: (words.len() * 4) as u64,
                            usage: wgpu::BufferUsages::UNIFORM,
                            mapped_at_creation: true,
                        });
                        if let Ok(mut range) = params.get_mapped_range_mut(..) {
                            range.copy_from_slice(bytemuck::cast_slice(words));
                        }
                        params.unmap();
                        params
                    });
                    let mut entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
                        .iter()
                        .enumerate()
                        .map(|(i, b)| wgpu::BindGroupEntry {
                            binding: i as u32,
                            resource: b.as_entire_binding(),
                        })
                        .collect();
                    if let Some(params) = &params {
                        entries.push(wgpu::BindGroupEntry {
                            binding: entries.len() as u32,
                            resource: params.as_entire_binding(),
                        });
                    }
                    let group = device.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("amp-rs launch"),
                        layout: &compiled.layout,
                        entries: &entries,
                    });
                    if compiled.immediates {
                        let mut cache = compiled.bind_groups.lock();
                        if cache.len() >= BIND_GROUP_CACHE {
                            cache.remove(0);
                        }
                        cache.push((buffers, group.clone()));
                    }
                    group
                }
            };
            // Timed launches write GPU timestamps around their pass.
            let queries = timing.enabled().then(|| TimingLog::begin_gpu(device));
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: queries.as_ref().map(|q| wgpu::ComputePassTimestampWrites {
                    query_set: q,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            });
            pass.set_pipeline(&compiled.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            if compiled.immediates {
                pass.set_immediates(0, bytemuck::cast_slice(words));
            }
            pass.dispatch_workgroups(gx, gy, gz);
            drop(pass);
            if let Some(queries) = &queries {
                timing.end_gpu(site.span, device_arc, encoder, queries);
            }
            Ok(())
        },
        || Ok(()),
        // The guard's status is read after this submission, never
        // before it (a batch may wait in automatic mode).
        compiled.loop_guard.then(|| {
            let device = Arc::clone(device);
            Box::new(move || {
                if let Some(guard) = &device.loop_guard {
                    guard.armed();
                }
            }) as Box<dyn FnOnce() + Send>
        }),
    )
}

/// Compiles a kernel for `device` (its captures of `kinds`, those of
/// `keep` bound read-write), checks it against the accelerator's
/// features, and keeps it in the device's cache under `key`.
#[allow(clippy::too_many_arguments)]
fn compile_on_device<const N: usize>(
    device: &Arc<DeviceContext>,
    view: &AcceleratorView,
    site: &'static KernelSite,
    kinds: &[CaptureKind],
    keep: &[usize],
    key: &KernelKey,
    dispatch: &Dispatch,
    body: Block,
) -> Result<Arc<CompiledKernel>> {
    let started = std::time::Instant::now();
    let mut kinds_now = kinds.to_vec();
    for &i in keep {
        if let CaptureKind::Container { writable, .. } = &mut kinds_now[i] {
            *writable = true;
        }
    }
    let mut kernel = build_kernel::<N>(site, kinds_now, body);
    kernel.tile = dispatch.tile.clone();
    let Compiled {
        shader,
        resources: needs,
        demoted,
    } = lower(
        kernel.clone(),
        device.device.features()
            | wgpu::Features::SHADER_F64
            | wgpu::Features::SHADER_F16
            | wgpu::Features::SUBGROUP,
        device.device.limits().max_immediate_size,
        device.loop_guard.is_some(),
        keep,
    )?;
    // Writable views the kernel only reads are bound read-only.
    for &i in &demoted {
        if let CaptureKind::Container { writable, .. } = &mut kernel.captures[i].1 {
            *writable = false;
        }
    }
    check_resources(&needs, view, site)?;
    if shader.uses_f64 && (!view.accelerator().supports_double_precision() || deny_f64()) {
        return Err(f64_refusal(&needs, view, site));
    }
    if shader.uses_f16 && !view.accelerator().supports_half_precision() {
        return Err(Error::UnsupportedFeature {
            accelerator: view.accelerator().description().to_string(),
            feature: format!(
                "half precision (f16; the SHADER_F16 feature), used by the kernel at {}",
                site.span
            ),
        });
    }
    if shader.uses_subgroups && !device.device.features().contains(wgpu::Features::SUBGROUP) {
        return Err(Error::UnsupportedFeature {
            accelerator: view.accelerator().description().to_string(),
            feature: format!(
                "subgroup operations (the SUBGROUP feature), used by the kernel at {}",
                site.span
            ),
        });
    }
    // A panic inside the shader compilers (naga's back ends,
    // the driver's front end) is an error of this launch,
    // not of the caller's thread.
    let name = kernel.name.clone();
    let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        compile_gpu(device, kernel, shader)
    }))
    .unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(Error::KernelCompile {
            kernel: name,
            message: format!(
                "the shader compiler panicked (a bug in amp-rs or its compilers): {what}"
            ),
        })
    })?;
    let compiled = Arc::new(compiled);
    log::debug!(
        "kernel {} compiled for {} in {:.1} ms",
        site.span,
        view.accelerator(),
        started.elapsed().as_secs_f64() * 1e3
    );
    device
        .attached::<KernelCache>()
        .kernels
        .lock()
        .insert(key.clone(), Arc::clone(&compiled));
    Ok(compiled)
}

/// A launch on the CPU accelerator: the kernel's resources measured once
/// per kernel (`build` or the `block` built already gives its body), the
/// captures bound, and the native body (`host`) recorded to run
/// transactionally (what it writes is saved, and put back if it fails).
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn cpu_launch<const N: usize, C, B>(
    view: AcceleratorView,
    site: &'static KernelSite,
    captures: C,
    kinds: Vec<CaptureKind>,
    key: KernelKey,
    dispatch: Dispatch,
    mut build: Option<B>,
    mut block: Option<Block>,
    host: impl FnOnce(
        C::Cpu,
        Resources,
        bool,
        Vec<Option<(Arc<CpuMem>, bool)>>,
    ) -> Box<dyn FnOnce() -> Result<()> + Send>,
) -> Result<()>
where
    C: CaptureList,
    B: FnOnce() -> Block,
{
    if kinds
        .iter()
        .any(|k| matches!(k, CaptureKind::Container { .. }))
        && !view.accelerator().is_cpu()
    {
        return Err(Error::Runtime("a GPU view without a device".to_string()));
    }
    warn_unoptimised(site);
    let needs = {
        let mut cache = CPU_KERNELS.lock();
        let cache = cache.get_or_insert_with(HashMap::new);
        match cache.get(&key) {
            Some(known) => known.clone(),
            None => {
                let body = match block.take() {
                    Some(b) => b,
                    None => build.take().map_or_else(Block::default, |b| b()),
                };
                let mut kernel = build_kernel::<N>(site, kinds.clone(), body);
                kernel.tile = dispatch.tile.clone();
                let needs = measure_native(kernel);
                cache.insert(key, needs.clone());
                needs
            }
        }
    }?;
    let amp_ir::NativeNeeds {
        resources: needs,
        unwritten,
    } = needs;
    check_resources(&needs, &view, site)?;
    if needs.uses_f64 && deny_f64() {
        return Err(f64_refusal(&needs, &view, site));
    }
    let (bound, native) = captures.bind_all(&view)?;
    let native = native.ok_or_else(|| Error::Runtime("captures are not on the CPU".to_string()))?;
    // A kernel that cannot fail (the macro's proof, and every
    // container of the domain's extent) changes data only by
    // finishing.
    let infallible = site.infallible
        && bound.iter().all(|b| match b {
            BoundOrScalar::Container(c) => c.extent == dispatch.extent,
            _ => true,
        });
    // What the kernel may write: saved before it runs and put back
    // if it fails, so that a failed kernel leaves the data as it was.
    let written: Vec<(Arc<CpuMem>, Vec<std::ops::Range<u64>>)> = bound
        .iter()
        .zip(&kinds)
        .filter_map(|(b, kind)| match (b, kind) {
            (BoundOrScalar::Container(c), CaptureKind::Container { writable: true, .. }) => {
                match &c.binding {
                    Some(DeviceBinding::Cpu(mem)) => Some((Arc::clone(mem), byte_runs(c))),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    let mems = written.iter().map(|(m, _)| Arc::clone(m)).collect();
    // Saved: what the kernel writes (not every view declared
    // read-write: a kernel that reads a large `Array` through its
    // read-write view copied all of it per launch).
    let written = if infallible {
        Vec::new()
    } else {
        bound
            .iter()
            .zip(&kinds)
            .enumerate()
            .filter_map(|(i, (b, kind))| match (b, kind) {
                (BoundOrScalar::Container(c), CaptureKind::Container { writable: true, .. })
                    if !unwritten.contains(&i) =>
                {
                    match &c.binding {
                        Some(DeviceBinding::Cpu(mem)) => Some((Arc::clone(mem), byte_runs(c))),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect()
    };
    // Every container's memory, and whether the atomic form may
    // write it: the passes the launch takes (see `plain`).
    let gates = bound
        .iter()
        .zip(&kinds)
        .map(|(b, kind)| match (b, kind) {
            (BoundOrScalar::Container(c), CaptureKind::Container { writable, .. }) => {
                match &c.binding {
                    // Declared, not analysed: a pass's mode is part of
                    // the soundness argument (see `plain`), which
                    // does not rest on the IR analysis.
                    Some(DeviceBinding::Cpu(mem)) => Some((Arc::clone(mem), *writable)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    let body = host(native, needs, infallible, gates);
    let timing = view.timing().enabled().then(|| Arc::clone(view.timing()));
    view.record_writing(
        |_, _| Ok(()),
        move || {
            // Cancelled before it started: nothing to run or undo.
            if let Some(stop) = cancel::current().and_then(|t| t.check()) {
                return Err(stop.error(&format!("the kernel at {}", site.span)));
            }
            let logged = log::log_enabled!(log::Level::Debug);
            let started = (timing.is_some() || logged).then(std::time::Instant::now);
            run_transactionally(&written, body)?;
            if let Some(started) = started {
                let elapsed = started.elapsed();
                if let Some(timing) = timing {
                    timing.push_cpu(site.span, elapsed);
                }
                log::debug!(
                    "kernel {} ran on the CPU accelerator in {:.3} ms",
                    site.span,
                    elapsed.as_secs_f64() * 1e3
                );
            }
            Ok(())
        },
        None,
        mems,
    )
}

/// The workgroup grid for `groups` workgroups at most `max` per dimension:
/// `[groups, 1, 1]` where it fits, else rows (and planes) of equal length,
/// so that fewer than one row's worth of workgroups start only to return
/// (rows of `max` left up to a fifth of a large launch idle: 2^26 work items
/// are 262,144 workgroups, which rows of 65,535 made 327,675).
fn grid(groups: u32, max: u32) -> [u32; 3] {
    let max = max.max(1);
    if groups <= max {
        return [groups, 1, 1];
    }
    let rows = groups.div_ceil(max);
    let gx = groups.div_ceil(rows);
    if rows <= max {
        return [gx, rows, 1];
    }
    let planes = rows.div_ceil(max);
    [gx, rows.div_ceil(planes), planes]
}

/// Per capture: whether it is a container declared read-write.
fn writable_flags<'k>(kinds: impl IntoIterator<Item = &'k CaptureKind>) -> Vec<bool> {
    kinds
        .into_iter()
        .map(|k| matches!(k, CaptureKind::Container { writable: true, .. }))
        .collect()
}

/// The container captures declared read-only (`writable[i]` false) whose
/// GPU buffer a capture declared read-write also binds in this launch.
fn shared_with_writable(
    writable: &[bool],
    kinds: &[CaptureKind],
    bound: &[BoundOrScalar],
) -> Vec<usize> {
    let buffer = |i: usize| match bound.get(i) {
        Some(BoundOrScalar::Container(c)) => match &c.binding {
            Some(DeviceBinding::Gpu(b)) => Some(b),
            _ => None,
        },
        _ => None,
    };
    let declared = |i: usize| writable.get(i).copied().unwrap_or(false);
    (0..kinds.len())
        .filter(|&i| matches!(kinds[i], CaptureKind::Container { .. }) && !declared(i))
        .filter(|&i| {
            buffer(i).is_some_and(|b| (0..kinds.len()).any(|j| declared(j) && buffer(j) == Some(b)))
        })
        .collect()
}

/// The bytes of CPU memory that a bound container's elements occupy: one
/// run per row of the innermost dimension (or per element where that
/// dimension is strided), adjacent runs merged. A section's layout, not its
/// hull: the bytes between its rows belong to other sections, which other
/// kernels may be writing at the same time.
fn byte_runs(c: &capture::BoundContainer) -> Vec<std::ops::Range<u64>> {
    let n = c.extent.len();
    if n == 0 || c.extent.iter().any(|&e| e <= 0) {
        return Vec::new();
    }
    let inner = c.extent[n - 1] as u64;
    let (run_len, per_row) = if c.strides[n - 1] == 1 {
        (inner * c.elem, 1)
    } else {
        (c.elem, inner)
    };
    let mut runs: Vec<std::ops::Range<u64>> = Vec::new();
    let mut push = |start: u64| match runs.last_mut() {
        Some(last) if last.end == start => last.end = start + run_len,
        _ => runs.push(start..start + run_len),
    };
    // Row-major over the outer dimensions.
    let mut at = vec![0i32; n - 1];
    loop {
        let row: u64 = at.iter().zip(&c.strides).map(|(&i, &s)| i as u64 * s).sum();
        for k in 0..per_row {
            push(c.offset + (row + k * c.strides[n - 1]) * c.elem);
        }
        // The next outer index, last dimension fastest.
        let mut d = n - 1;
        loop {
            if d == 0 {
                return runs;
            }
            d -= 1;
            at[d] += 1;
            if at[d] < c.extent[d] {
                break;
            }
            at[d] = 0;
        }
    }
}

/// The bytes of `run` that the word at byte `word_start` holds, as a
/// mask of the word (little-endian: byte `k` is bits `8k..8k+8`).
fn word_mask(run: &std::ops::Range<u64>, word_start: u64) -> u32 {
    if run.end <= word_start || run.start >= word_start + 4 {
        return 0;
    }
    let lo = run.start.max(word_start) - word_start;
    let hi = run.end.min(word_start + 4) - word_start;
    (lo..hi).fold(0u32, |m, b| m | (0xff << (8 * b)))
}

/// Runs a host command that writes the byte runs `written`: saves those
/// bytes first and puts them back if the command fails (an out-of-bounds
/// access, a cancellation), so that a failed kernel changes no data. Only
/// the runs' own bytes are put back (a word shared with bytes outside the
/// runs is merged with a compare-and-swap), so that a kernel writing a
/// disjoint section of the same memory at the same time keeps its results.
///
/// # Errors
///
/// The command's error; `OutOfMemory` (and nothing runs) if the bytes
/// cannot be saved.
fn run_transactionally(
    written: &[(Arc<CpuMem>, Vec<std::ops::Range<u64>>)],
    body: Box<dyn FnOnce() -> Result<()> + Send>,
) -> Result<()> {
    use std::sync::atomic::Ordering::Relaxed;
    let words_of =
        |run: &std::ops::Range<u64>| (run.start / 4) as usize..run.end.div_ceil(4) as usize;
    let mut saved: Vec<Vec<u32>> = Vec::with_capacity(written.len());
    for (mem, runs) in written {
        let total: usize = runs.iter().map(|r| words_of(r).len()).sum();
        let mut copy = Vec::new();
        copy.try_reserve_exact(total)
            .map_err(|_| Error::OutOfMemory {
                accelerator: "CPU accelerator".to_string(),
                detail: format!(
                    "cannot save the {} bytes a kernel writes, to restore them if it fails",
                    total * 4
                ),
            })?;
        let words = mem.access(crate::backend::cpu_gate::Mode::AtomicRead);
        for run in runs {
            copy.extend(words[words_of(run)].iter().map(|w| w.load(Relaxed)));
        }
        saved.push(copy);
    }
    let result = body();
    if result.is_err() {
        // In reverse, so that overlapping captures end as they began.
        for ((mem, runs), copy) in written.iter().zip(&saved).rev() {
            let mut values = copy.iter();
            let words = mem.access(crate::backend::cpu_gate::Mode::AtomicWrite);
            for run in runs {
                for w in words_of(run) {
                    let v = *values.next().expect("a saved word per word of the runs");
                    let mask = word_mask(run, w as u64 * 4);
                    let word = &words[w];
                    if mask == u32::MAX {
                        word.store(v, Relaxed);
                    } else {
                        // The other bytes of the word may be another
                        // kernel's: keep them.
                        let _ = word
                            .fetch_update(Relaxed, Relaxed, |cur| Some((cur & !mask) | (v & mask)));
                    }
                }
            }
        }
    }
    result
}

#[cfg(test)]
mod rollback_tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    /// A rank-2 section of `cols`-wide rows of `elem`-byte elements.
    fn section(
        origin: [u64; 2],
        extent: [i32; 2],
        cols: u64,
        elem: u64,
    ) -> capture::BoundContainer {
        capture::BoundContainer {
            offset: (origin[0] * cols + origin[1]) * elem,
            elem,
            extent: extent.to_vec(),
            strides: vec![cols, 1],
            binding: None,
        }
    }

    #[test]
    fn grids_cover_every_workgroup_and_waste_less_than_a_row() {
        assert_eq!(grid(0, 65535), [0, 1, 1]);
        assert_eq!(grid(65535, 65535), [65535, 1, 1]);
        // 2^26 work items in workgroups of 256: 5 rows of 52,429.
        assert_eq!(grid(262_144, 65535), [52_429, 5, 1]);
        for (groups, max) in [
            (65_536, 65_535),
            (262_144, 65_535),
            (1_000_003, 1000),
            (u32::MAX, 65_535),
            (300, 7),
            (20, 3),
        ] {
            let [x, y, z] = grid(groups, max);
            assert!(
                x <= max && y <= max && z <= max,
                "{groups} in {max}: {x} {y} {z}"
            );
            let cover = u64::from(x) * u64::from(y) * u64::from(z);
            assert!(cover >= u64::from(groups), "{groups} in {max}: {x} {y} {z}");
            assert!(
                cover - u64::from(groups) < u64::from(x) * u64::from(z),
                "{groups} in {max}: {x} {y} {z} wastes {}",
                cover - u64::from(groups)
            );
        }
    }

    #[test]
    fn byte_runs_follow_the_layout() {
        // Columns 2..5 of 4 rows of 8 `f32`: one run per row.
        let runs = byte_runs(&section([1, 2], [4, 3], 8, 4));
        assert_eq!(runs, [40..52, 72..84, 104..116, 136..148]);
        // Whole rows merge into one run.
        let whole = byte_runs(&section([1, 0], [2, 8], 8, 4));
        assert_eq!((whole.len(), whole.first()), (1, Some(&(32..96))));
        // A strided innermost dimension: one run per element.
        let strided = capture::BoundContainer {
            offset: 0,
            elem: 4,
            extent: vec![3],
            strides: vec![2],
            binding: None,
        };
        assert_eq!(byte_runs(&strided), [0..4, 8..12, 16..20]);
        assert!(byte_runs(&section([0, 0], [0, 3], 8, 4)).is_empty());
    }

    /// A failed command puts back only the bytes of its own section: what
    /// another kernel wrote next to it in the meantime (simulated by the
    /// body itself, which writes the other column band before failing)
    /// stays, and so do the neighbours of 2-byte elements in shared words.
    #[test]
    fn a_failed_command_restores_only_its_layout() {
        for elem in [4u64, 2] {
            let (rows, cols) = (6u64, 8u64);
            let mem = Arc::new(CpuMem::zeroed(rows * cols * elem).unwrap());
            let words = mem.words_held().len();
            for (i, w) in mem.words_held().iter().enumerate() {
                w.store(i as u32, Relaxed);
            }
            // The left band: columns 0..3 (with 2-byte elements, column 3
            // shares a word with column 2 and column 4 with 5).
            let left = section([0, 0], [rows as i32, 3], cols, elem);
            let written = vec![(Arc::clone(&mem), byte_runs(&left))];
            let other = Arc::clone(&mem);
            let body: Box<dyn FnOnce() -> Result<()> + Send> = Box::new(move || {
                for w in other.words_held() {
                    w.store(0xAAAA_AAAA, Relaxed);
                }
                Err(Error::Runtime("failed".into()))
            });
            assert!(run_transactionally(&written, body).is_err());
            // The band's own bytes, row by row (not from `byte_runs`).
            let runs: Vec<std::ops::Range<u64>> = (0..rows)
                .map(|r| r * cols * elem..(r * cols + 3) * elem)
                .collect();
            for k in 0..words {
                let got = mem.words_held()[k].load(Relaxed);
                let mask = runs
                    .iter()
                    .fold(0u32, |m, r| m | word_mask(r, k as u64 * 4));
                let want = (k as u32 & mask) | (0xAAAA_AAAA & !mask);
                assert_eq!(got, want, "element size {elem}, word {k}");
            }
        }
    }
}
