//! Enumeration of accelerators (once per process), their ranking, and the
//! resolution of the default accelerator.

use std::sync::OnceLock;

use parking_lot::Mutex;

use super::{Accelerator, Kind, Properties};
use crate::backend::device::{GpuAdapter, features_for, is_llvmpipe};
use crate::backend::memory;
use crate::{AcceleratorLimits, Error, Result};

/// The environment variable that names the default accelerator.
pub(crate) const DEFAULT_ACCELERATOR_VAR: &str = "AMP_DEFAULT_ACCELERATOR";

/// Preference ranks: the default accelerator is the highest-ranked one.
mod rank {
    pub(crate) const DISCRETE: u8 = 60;
    pub(crate) const INTEGRATED: u8 = 50;
    pub(crate) const VIRTUAL: u8 = 40;
    pub(crate) const OTHER: u8 = 30;
    pub(crate) const SOFTWARE_VULKAN: u8 = 20;
    pub(crate) const NATIVE_CPU: u8 = 10;
    /// Mesa's llvmpipe (lavapipe): below the CPU accelerator, because it
    /// cuts the loops of a work item after 65,535 iterations in all (see
    /// `docs/kernel-language.md`), where the CPU accelerator runs Rust's
    /// semantics. Still listed, and chosen by name.
    pub(crate) const LLVMPIPE: u8 = 5;
    pub(crate) const SOFTWARE_OTHER: u8 = 0;
}

/// The process-wide list of accelerators, best first.
pub(crate) struct Registry {
    pub(crate) accelerators: Vec<Accelerator>,
    /// Kept alive for as long as the adapters are.
    _instance: wgpu::Instance,
}

static REGISTRY: OnceLock<Registry> = OnceLock::new();
static CPU: OnceLock<Accelerator> = OnceLock::new();

/// The accelerator list, enumerated on first use.
pub(crate) fn registry() -> &'static Registry {
    REGISTRY.get_or_init(enumerate)
}

/// The native CPU accelerator; needs no enumeration.
pub(crate) fn cpu() -> &'static Accelerator {
    CPU.get_or_init(|| Accelerator::from_parts(cpu_properties(), Kind::Cpu))
}

fn cpu_properties() -> Properties {
    Properties {
        description: "CPU accelerator (native Rust)".to_string(),
        device_path: "cpu".to_string(),
        version: format!("amp-core {}", env!("CARGO_PKG_VERSION")),
        backend: "cpu",
        dedicated_memory: 0,
        is_emulated: true,
        double_precision: true,
        half_precision: true,
        limits: AcceleratorLimits {
            max_threads_per_tile: 1024,
            max_tile_dims: [1024, 1024, 1024],
            max_tile_static_bytes: 32 * 1024,
            max_buffer_size: isize::MAX as u64,
            max_binding_size: isize::MAX as u64,
            max_tiles_per_dimension: u32::MAX,
        },
        rank: rank::NATIVE_CPU,
    }
}

fn backend_name(backend: wgpu::Backend) -> &'static str {
    match backend {
        wgpu::Backend::Vulkan => "vulkan",
        wgpu::Backend::Metal => "metal",
        wgpu::Backend::Dx12 => "dx12",
        wgpu::Backend::Gl => "gl",
        wgpu::Backend::BrowserWebGpu => "webgpu",
        _ => "other",
    }
}

/// The preference rank of an adapter.
fn rank_of(info: &wgpu::AdapterInfo) -> u8 {
    let base = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => rank::DISCRETE,
        wgpu::DeviceType::IntegratedGpu => rank::INTEGRATED,
        wgpu::DeviceType::VirtualGpu => rank::VIRTUAL,
        wgpu::DeviceType::Other => rank::OTHER,
        wgpu::DeviceType::Cpu if is_llvmpipe(info) => rank::LLVMPIPE,
        wgpu::DeviceType::Cpu if info.backend == wgpu::Backend::Vulkan => rank::SOFTWARE_VULKAN,
        wgpu::DeviceType::Cpu => rank::SOFTWARE_OTHER,
    };
    // Among equals, prefer the backend with the best compute support.
    let backend_bonus = match info.backend {
        wgpu::Backend::Vulkan => 3,
        wgpu::Backend::Metal => 2,
        wgpu::Backend::Dx12 => 1,
        _ => 0,
    };
    base + backend_bonus
}

fn enumerate() -> Registry {
    let desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    let backends = desc.backends;
    let instance = wgpu::Instance::new(desc);
    let adapters = futures::executor::block_on(instance.enumerate_adapters(backends));

    let mut accelerators = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    // GL exposes the same GPUs as Vulkan, Metal or DX12 where those exist,
    // with fewer features, and its headless devices often cannot be
    // created (seen on NVIDIA); keep a GL adapter only for a vendor that no
    // other backend serves.
    let native_vendors: Vec<u32> = adapters
        .iter()
        .map(|a| a.get_info())
        .filter(|i| i.backend != wgpu::Backend::Gl)
        .map(|i| i.vendor)
        .collect();
    for adapter in adapters {
        let gl_duplicate = {
            let info = adapter.get_info();
            info.backend == wgpu::Backend::Gl && native_vendors.contains(&info.vendor)
        };
        if gl_duplicate {
            continue;
        }
        let caps = adapter.get_downlevel_capabilities();
        if !caps.flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS) {
            continue; // cannot run kernels: not an accelerator
        }
        let info = adapter.get_info();
        let backend = backend_name(info.backend);
        let stem = format!("{backend}/{:04x}-{:04x}", info.vendor, info.device);
        let ordinal = seen.iter().filter(|s| **s == stem).count();
        seen.push(stem.clone());
        let limits = adapter.limits();
        let features = features_for(&adapter);
        let version = match (info.driver.is_empty(), info.driver_info.is_empty()) {
            (true, true) => "unknown driver".to_string(),
            (false, true) => info.driver.clone(),
            (true, false) => info.driver_info.clone(),
            (false, false) => format!("{} {}", info.driver, info.driver_info),
        };
        let props = Properties {
            description: info.name.clone(),
            device_path: format!("{stem}/{ordinal}"),
            version,
            backend,
            dedicated_memory: memory::dedicated_memory(&adapter),
            is_emulated: info.device_type == wgpu::DeviceType::Cpu,
            double_precision: features.contains(wgpu::Features::SHADER_F64),
            half_precision: features.contains(wgpu::Features::SHADER_F16),
            limits: AcceleratorLimits {
                max_threads_per_tile: limits.max_compute_invocations_per_workgroup,
                max_tile_dims: [
                    limits.max_compute_workgroup_size_x,
                    limits.max_compute_workgroup_size_y,
                    limits.max_compute_workgroup_size_z,
                ],
                max_tile_static_bytes: limits.max_compute_workgroup_storage_size,
                max_buffer_size: limits.max_buffer_size,
                max_binding_size: limits.max_storage_buffer_binding_size,
                max_tiles_per_dimension: limits.max_compute_workgroups_per_dimension,
            },
            rank: rank_of(&info),
        };
        let label = format!("amp-rs {} ({})", props.description, props.device_path);
        accelerators.push(Accelerator::from_parts(
            props,
            Kind::Gpu(GpuAdapter::new(adapter, label)),
        ));
    }
    accelerators.push(cpu().clone());
    // Stable: equal ranks keep the driver's enumeration order.
    accelerators.sort_by_key(|a| std::cmp::Reverse(a.rank()));
    Registry {
        accelerators,
        _instance: instance,
    }
}

/// Finds the accelerator `name` names: an exact device path first, then a
/// case-insensitive substring of the description (the best-ranked match).
pub(crate) fn find(accelerators: &[Accelerator], name: &str) -> Result<Accelerator> {
    let name = name.trim();
    if let Some(a) = accelerators.iter().find(|a| a.device_path() == name) {
        return Ok(a.clone());
    }
    let needle = name.to_lowercase();
    if !needle.is_empty() {
        // The list is sorted best first, so the first match is the best.
        if let Some(a) = accelerators
            .iter()
            .find(|a| a.description().to_lowercase().contains(&needle))
        {
            return Ok(a.clone());
        }
    }
    Err(Error::UnknownAccelerator {
        name: name.to_string(),
        available: accelerators
            .iter()
            .map(|a| format!("{} ({})", a.device_path(), a.description()))
            .collect(),
    })
}

/// The default accelerator for `accelerators` (sorted best first) when the
/// environment variable holds `requested`: the named one, or the best-ranked.
pub(crate) fn choose_default(
    accelerators: &[Accelerator],
    requested: Option<&str>,
) -> Result<Accelerator> {
    match requested {
        Some(name) if !name.trim().is_empty() => find(accelerators, name).map_err(|e| match e {
            Error::UnknownAccelerator { name, available } => Error::UnknownAccelerator {
                name: format!("{name} (from {DEFAULT_ACCELERATOR_VAR})"),
                available,
            },
            other => other,
        }),
        _ => accelerators
            .first()
            .cloned()
            .ok_or_else(|| Error::Runtime("no accelerator exists".to_string())),
    }
}

/// The default accelerator's state: chosen by `set_default` or on first use,
/// and frozen once used.
struct DefaultState {
    chosen: Option<Accelerator>,
    used: bool,
}

static DEFAULT: Mutex<DefaultState> = Mutex::new(DefaultState {
    chosen: None,
    used: false,
});

/// The default accelerator; marks it used, so that it can no longer change.
pub(crate) fn default_accelerator() -> Result<Accelerator> {
    let mut state = DEFAULT.lock();
    if let Some(a) = state.chosen.clone() {
        state.used = true;
        return Ok(a);
    }
    let requested = std::env::var(DEFAULT_ACCELERATOR_VAR).ok();
    let chosen = choose_default(&registry().accelerators, requested.as_deref())?;
    state.chosen = Some(chosen.clone());
    state.used = true;
    Ok(chosen)
}

/// Makes `name` the default accelerator unless the default was used already.
pub(crate) fn set_default(name: &str) -> Result<()> {
    let mut state = DEFAULT.lock();
    if state.used {
        let current = state
            .chosen
            .as_ref()
            .map(|a| a.device_path().to_string())
            .unwrap_or_default();
        return Err(Error::DefaultAcceleratorInUse { current });
    }
    state.chosen = Some(find(&registry().accelerators, name)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(path: &str, description: &str, rank: u8) -> Accelerator {
        let mut props = cpu_properties();
        props.device_path = path.to_string();
        props.description = description.to_string();
        props.rank = rank;
        Accelerator::from_parts(props, Kind::Cpu)
    }

    fn sorted(mut list: Vec<Accelerator>) -> Vec<Accelerator> {
        list.sort_by_key(|a| std::cmp::Reverse(a.rank()));
        list
    }

    #[test]
    fn ranks_follow_the_preference_order() {
        let info = |device_type, backend| wgpu::AdapterInfo {
            name: String::new(),
            vendor: 0,
            device: 0,
            device_type,
            device_pci_bus_id: String::new(),
            driver: String::new(),
            driver_info: String::new(),
            backend,
            subgroup_min_size: 0,
            subgroup_max_size: 0,
            transient_saves_memory: None,
            limit_bucket: None,
        };
        use wgpu::{Backend as B, DeviceType as D};
        let llvmpipe = wgpu::AdapterInfo {
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".to_string(),
            ..info(D::Cpu, B::Vulkan)
        };
        let order = [
            rank_of(&info(D::DiscreteGpu, B::Gl)),
            rank_of(&info(D::IntegratedGpu, B::Vulkan)),
            rank_of(&info(D::VirtualGpu, B::Vulkan)),
            rank_of(&info(D::Cpu, B::Vulkan)),
            rank::NATIVE_CPU,
            // Below the CPU accelerator: it cuts long loops.
            rank_of(&llvmpipe),
            rank_of(&info(D::Cpu, B::Gl)),
        ];
        assert!(order.windows(2).all(|w| w[0] > w[1]), "{order:?}");
        assert!(rank_of(&info(D::DiscreteGpu, B::Vulkan)) > rank_of(&info(D::DiscreteGpu, B::Gl)));
    }

    #[test]
    fn default_is_the_best_ranked_without_the_variable() {
        let list = sorted(vec![
            fake("cpu", "CPU", rank::NATIVE_CPU),
            fake(
                "vulkan/10005-0000/0",
                "llvmpipe (LLVM 15.0.6, 256 bits)",
                rank::LLVMPIPE + 3,
            ),
            fake("vulkan/10de-2335/0", "NVIDIA H200", rank::DISCRETE + 3),
        ]);
        assert_eq!(
            choose_default(&list, None).unwrap().device_path(),
            "vulkan/10de-2335/0"
        );
        assert_eq!(
            choose_default(&list, Some("  ")).unwrap().device_path(),
            "vulkan/10de-2335/0"
        );
    }

    #[test]
    fn variable_selects_by_path_or_description() {
        let list = sorted(vec![
            fake("cpu", "CPU accelerator", rank::NATIVE_CPU),
            fake(
                "vulkan/10005-0000/0",
                "llvmpipe (LLVM 15.0.6, 256 bits)",
                rank::LLVMPIPE + 3,
            ),
            fake("vulkan/10de-2335/0", "NVIDIA H200", rank::DISCRETE + 3),
            fake("vulkan/10de-2335/1", "NVIDIA H200", rank::DISCRETE + 3),
        ]);
        assert_eq!(
            choose_default(&list, Some("cpu")).unwrap().device_path(),
            "cpu"
        );
        assert_eq!(
            choose_default(&list, Some("LLVMPIPE"))
                .unwrap()
                .device_path(),
            "vulkan/10005-0000/0"
        );
        assert_eq!(
            choose_default(&list, Some("vulkan/10de-2335/1"))
                .unwrap()
                .device_path(),
            "vulkan/10de-2335/1"
        );
        // An ambiguous description picks the first (best-ranked, then enumeration order).
        assert_eq!(
            choose_default(&list, Some("h200")).unwrap().device_path(),
            "vulkan/10de-2335/0"
        );
    }

    #[test]
    fn unknown_name_in_the_variable_is_an_error_listing_the_choices() {
        let list = vec![fake("cpu", "CPU accelerator", rank::NATIVE_CPU)];
        let err = choose_default(&list, Some("no-such-gpu")).unwrap_err();
        match &err {
            Error::UnknownAccelerator { name, available } => {
                assert!(name.contains("no-such-gpu") && name.contains(DEFAULT_ACCELERATOR_VAR));
                assert_eq!(available, &["cpu (CPU accelerator)".to_string()]);
            }
            other => panic!("unexpected error {other:?}"),
        }
        assert!(err.to_string().contains("no-such-gpu"));
    }
}
