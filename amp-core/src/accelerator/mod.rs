//! [`Accelerator`]: one compute device (a wgpu adapter or the native CPU).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use crate::backend::device::{DeviceContext, GpuAdapter};
mod registry;
use crate::{AcceleratorView, QueuingMode, Result};

/// A compute device: every wgpu adapter that can run compute shaders, plus the
/// native CPU accelerator, which always exists and needs no driver.
///
/// `Accelerator` is a cheap handle (clone it freely); the list of accelerators
/// is enumerated once per process, and each GPU accelerator creates its wgpu
/// device lazily, once, on first use, with the adapter's full limits.
///
/// Corresponds to C++ AMP `accelerator`.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
///
/// for acc in Accelerator::all() {
///     println!("{} [{}] emulated={}", acc.description(), acc.device_path(), acc.is_emulated());
/// }
/// assert!(Accelerator::all().iter().any(|a| a.device_path() == "cpu"));
/// ```
#[derive(Clone)]
pub struct Accelerator {
    inner: Arc<AcceleratorInner>,
}

struct AcceleratorInner {
    props: Properties,
    kind: Kind,
    default_view: OnceLock<AcceleratorView>,
}

/// What an accelerator runs on.
pub(crate) enum Kind {
    /// Kernels run as native Rust on host threads.
    Cpu,
    /// Kernels run as WGSL on a wgpu adapter.
    Gpu(GpuAdapter),
}

/// The fixed properties of an accelerator, read at enumeration.
#[derive(Clone)]
pub(crate) struct Properties {
    pub(crate) description: String,
    pub(crate) device_path: String,
    pub(crate) version: String,
    pub(crate) backend: &'static str,
    pub(crate) dedicated_memory: u64,
    pub(crate) is_emulated: bool,
    pub(crate) double_precision: bool,
    /// Kernels may use `f16` (wgpu `SHADER_F16`; the `half` feature).
    pub(crate) half_precision: bool,
    pub(crate) limits: AcceleratorLimits,
    /// Preference for the default choice; higher is better.
    pub(crate) rank: u8,
}

/// The limits of an accelerator that kernels and containers must respect.
///
/// C++ AMP fixes most of these (1024 threads per tile, 32 KiB of
/// `tile_static` memory); on wgpu they are the adapter's own limits.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
///
/// let limits = Accelerator::cpu().limits();
/// assert_eq!(limits.max_threads_per_tile, 1024);
/// assert!(limits.max_tile_static_bytes >= 16 * 1024);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AcceleratorLimits {
    /// The most threads (work items) one tile may have.
    pub max_threads_per_tile: u32,
    /// The largest tile extent in each of the three dimensions (x, y, z:
    /// least significant first, as the backend counts them).
    pub max_tile_dims: [u32; 3],
    /// The most `tile_static` (workgroup) memory one tile may use, in bytes.
    pub max_tile_static_bytes: u32,
    /// The largest buffer the accelerator can allocate, in bytes.
    pub max_buffer_size: u64,
    /// The largest buffer a kernel can bind at once, in bytes.
    pub max_binding_size: u64,
    /// The most tiles (workgroups) one dispatch may have in a dimension; the
    /// runtime splits larger launches.
    pub max_tiles_per_dimension: u32,
}

impl Accelerator {
    pub(crate) fn from_parts(props: Properties, kind: Kind) -> Accelerator {
        Accelerator {
            inner: Arc::new(AcceleratorInner {
                props,
                kind,
                default_view: OnceLock::new(),
            }),
        }
    }

    /// Every accelerator of this machine, best first: each wgpu adapter that
    /// can run compute shaders (on every backend wgpu was built with; the
    /// `WGPU_BACKEND` variable narrows them), then the CPU accelerator.
    ///
    /// The list is enumerated once per process; later calls return the same
    /// accelerators.
    ///
    /// Corresponds to C++ AMP `accelerator::get_all`.
    ///
    /// # Examples
    ///
    /// ```
    /// let all = amp_core::Accelerator::all();
    /// assert!(!all.is_empty());
    /// ```
    pub fn all() -> Vec<Accelerator> {
        registry::registry().accelerators.clone()
    }

    /// The native CPU accelerator, which always exists.
    ///
    /// Kernels on it run as native Rust on host threads; it needs no GPU and no
    /// driver. Getting it does not enumerate GPU adapters.
    ///
    /// Corresponds to C++ AMP `accelerator(accelerator::cpu_accelerator)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let cpu = amp_core::Accelerator::cpu();
    /// assert_eq!(cpu.device_path(), "cpu");
    /// assert!(cpu.supports_double_precision());
    /// ```
    pub fn cpu() -> Accelerator {
        registry::cpu().clone()
    }

    /// The default accelerator.
    ///
    /// Chosen, in order, by [`set_default`](Self::set_default), by the
    /// `AMP_DEFAULT_ACCELERATOR` environment variable (a device path or a
    /// case-insensitive part of a description), or by preference: discrete
    /// GPU > integrated GPU > virtual GPU > software Vulkan > the CPU
    /// accelerator > Mesa's llvmpipe (lavapipe, which stops every work item's
    /// loops after 65,535 iterations in all) > other software adapters. Once
    /// this returns, the default can no longer change.
    ///
    /// Corresponds to C++ AMP `accelerator()` (the default constructor).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownAccelerator`](crate::Error::UnknownAccelerator) if
    /// `AMP_DEFAULT_ACCELERATOR` names no accelerator: a misspelt name is
    /// reported, never silently replaced.
    ///
    /// # Examples
    ///
    /// ```
    /// let acc = amp_core::Accelerator::default()?;
    /// assert!(amp_core::Accelerator::all().contains(&acc));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    #[allow(clippy::should_implement_trait)] // fallible, unlike `Default::default`
    pub fn default() -> Result<Accelerator> {
        registry::default_accelerator()
    }

    /// Makes the accelerator `name` names (a device path, or a part of a
    /// description) the default, unless the default was already used.
    ///
    /// Corresponds to C++ AMP `accelerator::set_default`.
    ///
    /// # Errors
    ///
    /// - [`Error::DefaultAcceleratorInUse`](crate::Error::DefaultAcceleratorInUse)
    ///   once [`Accelerator::default`] (or anything that uses the default,
    ///   such as a launch without an explicit view) has run;
    /// - [`Error::UnknownAccelerator`](crate::Error::UnknownAccelerator) if
    ///   nothing matches `name`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Error};
    ///
    /// let used = Accelerator::default()?;
    /// assert!(matches!(
    ///     Accelerator::set_default("cpu"),
    ///     Err(Error::DefaultAcceleratorInUse { .. })
    /// ));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn set_default(name: &str) -> Result<()> {
        registry::set_default(name)
    }

    /// The accelerator that `name` names: an exact device path, or else the
    /// best-ranked accelerator whose description contains `name` (ignoring
    /// case).
    ///
    /// Corresponds to C++ AMP `accelerator(device_path)`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownAccelerator`](crate::Error::UnknownAccelerator), listing
    /// the accelerators that exist, if nothing matches.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// assert_eq!(Accelerator::find("cpu")?, Accelerator::cpu());
    /// assert!(Accelerator::find("no such device").is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn find(name: &str) -> Result<Accelerator> {
        registry::find(&registry::registry().accelerators, name)
    }

    /// A human-readable description (the adapter's name).
    ///
    /// Corresponds to C++ AMP `accelerator::description`.
    ///
    /// # Examples
    ///
    /// ```
    /// let cpu = amp_core::Accelerator::cpu();
    /// assert!(cpu.description().contains("CPU"));
    /// ```
    pub fn description(&self) -> &str {
        &self.inner.props.description
    }

    /// A stable, unique path that selects this accelerator (in
    /// [`find`](Self::find), [`set_default`](Self::set_default) and
    /// `AMP_DEFAULT_ACCELERATOR`): `cpu` for the CPU accelerator,
    /// `backend/vendor-device/n` for an adapter, `n` counting identical
    /// adapters in the driver's order (e.g. `vulkan/10de-2335/0`).
    ///
    /// Corresponds to C++ AMP `accelerator::device_path`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// for acc in Accelerator::all() {
    ///     // A device path always finds its own accelerator again.
    ///     assert_eq!(Accelerator::find(acc.device_path())?, acc);
    /// }
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn device_path(&self) -> &str {
        &self.inner.props.device_path
    }

    /// The driver's name and version, as the backend reports them.
    ///
    /// Corresponds to C++ AMP `accelerator::version` (which held the
    /// Direct3D version; here the driver says more).
    ///
    /// # Examples
    ///
    /// ```
    /// let cpu = amp_core::Accelerator::cpu();
    /// assert!(cpu.version().starts_with("amp-core"));
    /// ```
    pub fn version(&self) -> &str {
        &self.inner.props.version
    }

    /// The graphics backend: `vulkan`, `metal`, `dx12`, `gl`, or `cpu` for the
    /// CPU accelerator.
    ///
    /// Has no C++ AMP counterpart (C++ AMP ran on Direct3D only).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// assert_eq!(Accelerator::cpu().backend(), "cpu");
    /// let acc = Accelerator::default()?;
    /// assert!(["vulkan", "metal", "dx12", "gl", "cpu"].contains(&acc.backend()));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn backend(&self) -> &str {
        self.inner.props.backend
    }

    /// The device-local memory in bytes (the sum of the Vulkan heaps marked
    /// device-local), or 0 where the backend cannot tell and for the CPU
    /// accelerator.
    ///
    /// Corresponds to C++ AMP `accelerator::dedicated_memory` (which counts
    /// kilobytes).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// assert_eq!(Accelerator::cpu().dedicated_memory(), 0);
    /// let mib = Accelerator::default()?.dedicated_memory() / (1024 * 1024);
    /// println!("{mib} MiB of device memory");
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn dedicated_memory(&self) -> u64 {
        self.inner.props.dedicated_memory
    }

    /// Whether this is an emulator rather than a hardware GPU: true for
    /// software adapters such as lavapipe and for the CPU accelerator.
    ///
    /// Corresponds to C++ AMP `accelerator::is_emulated`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// assert!(Accelerator::cpu().is_emulated());
    /// let hardware: Vec<_> = Accelerator::all().into_iter().filter(|a| !a.is_emulated()).collect();
    /// assert!(hardware.iter().all(|a| !a.is_cpu()));
    /// ```
    pub fn is_emulated(&self) -> bool {
        self.inner.props.is_emulated
    }

    /// Whether kernels may use `f64` with full arithmetic (the wgpu
    /// `SHADER_F64` feature; always true on the CPU accelerator).
    ///
    /// Corresponds to C++ AMP `accelerator::supports_double_precision`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// assert!(Accelerator::cpu().supports_double_precision());
    /// // Pick an accelerator that can run `f64` kernels; the CPU one always can.
    /// let acc = Accelerator::all().into_iter().find(|a| a.supports_double_precision());
    /// assert!(acc.is_some());
    /// ```
    pub fn supports_double_precision(&self) -> bool {
        self.inner.props.double_precision
    }

    /// Whether kernels may use 16-bit floats (`half::f16` elements, with the
    /// crate's `half` feature): the wgpu `SHADER_F16` feature; always true
    /// on the CPU accelerator.
    ///
    /// C++ AMP has no half-precision type; this follows
    /// [`supports_double_precision`](Self::supports_double_precision). A
    /// kernel that uses `f16` on an accelerator without it fails at launch
    /// with [`Error::UnsupportedFeature`](crate::Error::UnsupportedFeature).
    /// Containers of `f16` work everywhere: only kernels need the feature.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// assert!(Accelerator::cpu().supports_half_precision());
    /// ```
    pub fn supports_half_precision(&self) -> bool {
        self.inner.props.half_precision
    }

    /// Whether kernels may use `f64` at least for basic arithmetic. WGSL has
    /// no partial double support, so this equals
    /// [`supports_double_precision`](Self::supports_double_precision).
    ///
    /// Corresponds to C++ AMP
    /// `accelerator::supports_limited_double_precision`.
    ///
    /// # Examples
    ///
    /// ```
    /// for acc in amp_core::Accelerator::all() {
    ///     assert_eq!(acc.supports_limited_double_precision(), acc.supports_double_precision());
    /// }
    /// ```
    pub fn supports_limited_double_precision(&self) -> bool {
        self.inner.props.double_precision
    }

    /// Whether the accelerator drives a display. Always false: amp-rs uses
    /// accelerators for compute only.
    ///
    /// Corresponds to C++ AMP `accelerator::has_display`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(amp_core::Accelerator::all().iter().all(|a| !a.has_display()));
    /// ```
    pub fn has_display(&self) -> bool {
        false
    }

    /// Whether this is the native CPU accelerator.
    ///
    /// Kernels on the CPU accelerator run as native Rust on host threads
    /// rather than as WGSL. Unlike C++ AMP's `cpu_accelerator`, which could
    /// only hold data, this one runs kernels too; C++ AMP has no direct
    /// counterpart beyond comparing `device_path` with
    /// `accelerator::cpu_accelerator`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// assert!(Accelerator::cpu().is_cpu());
    /// assert_eq!(Accelerator::all().iter().filter(|a| a.is_cpu()).count(), 1);
    /// ```
    pub fn is_cpu(&self) -> bool {
        matches!(self.inner.kind, Kind::Cpu)
    }

    /// The limits kernels and containers must respect on this accelerator.
    ///
    /// On the CPU accelerator they are C++ AMP's fixed limits (1024 threads
    /// per tile, 32 KiB of `tile_static` memory); on a GPU they are the
    /// adapter's own. Check them before choosing a tile size.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// // Does a 16 x 16 tile fit? (Dimension 0 of `max_tile_dims` is x, the last index.)
    /// let fits = |acc: &Accelerator| {
    ///     let l = acc.limits();
    ///     16 * 16 <= l.max_threads_per_tile && 16 <= l.max_tile_dims[0] && 16 <= l.max_tile_dims[1]
    /// };
    /// assert!(fits(&Accelerator::cpu()));
    /// assert_eq!(Accelerator::cpu().limits().max_tile_static_bytes, 32 * 1024);
    /// ```
    pub fn limits(&self) -> AcceleratorLimits {
        self.inner.props.limits
    }

    /// The accelerator's default view (automatic queuing), shared by every
    /// caller.
    ///
    /// Corresponds to C++ AMP `accelerator::default_view`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, QueuingMode};
    ///
    /// let cpu = Accelerator::cpu();
    /// assert_eq!(cpu.default_view(), cpu.default_view());
    /// assert_eq!(cpu.default_view().queuing_mode(), QueuingMode::Automatic);
    /// ```
    pub fn default_view(&self) -> AcceleratorView {
        self.inner
            .default_view
            .get_or_init(|| AcceleratorView::new(self.clone(), QueuingMode::Automatic))
            .clone()
    }

    /// A new view with its own command queue state and queuing `mode`.
    ///
    /// Views of one accelerator share its device; each orders its own
    /// commands. The device is created on first use, not here.
    ///
    /// Corresponds to C++ AMP `accelerator::create_view`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, QueuingMode};
    ///
    /// let cpu = Accelerator::cpu();
    /// let view = cpu.create_view(QueuingMode::Immediate);
    /// assert_ne!(view, cpu.default_view());
    /// assert_eq!(view.accelerator(), &cpu);
    /// ```
    pub fn create_view(&self, mode: QueuingMode) -> AcceleratorView {
        AcceleratorView::new(self.clone(), mode)
    }

    pub(crate) fn rank(&self) -> u8 {
        self.inner.props.rank
    }

    /// The device of a GPU accelerator (created on first use); `None` for the
    /// CPU accelerator.
    pub(crate) fn device(&self) -> Result<Option<&Arc<DeviceContext>>> {
        match &self.inner.kind {
            Kind::Cpu => Ok(None),
            Kind::Gpu(gpu) => gpu.device().map(Some),
        }
    }
}

impl PartialEq for Accelerator {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner) || self.device_path() == other.device_path()
    }
}

impl Eq for Accelerator {}

impl Hash for Accelerator {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.device_path().hash(state);
    }
}

impl fmt::Debug for Accelerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.inner.props;
        f.debug_struct("Accelerator")
            .field("description", &p.description)
            .field("device_path", &p.device_path)
            .field("backend", &p.backend)
            .field("is_emulated", &p.is_emulated)
            .finish_non_exhaustive()
    }
}

impl fmt::Display for Accelerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.description(), self.device_path())
    }
}
