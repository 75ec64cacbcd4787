//! Devices (C++ AMP spec chapter 3): enumeration, properties and views.

use amp_core::{Accelerator, Error, QueuingMode};
use amp_tests::amp_test;
use amp_tests::{accelerators, adapter_required, gpu_accelerators};

#[test]
fn the_cpu_accelerator_always_exists_and_is_last_resort() {
    let all = accelerators();
    let cpu = all
        .iter()
        .find(|a| a.is_cpu())
        .expect("CPU accelerator listed");
    assert_eq!(cpu, &Accelerator::cpu());
    assert_eq!(cpu.device_path(), "cpu");
    assert_eq!(cpu.backend(), "cpu");
    assert!(cpu.is_emulated());
    assert!(cpu.supports_double_precision());
    assert!(cpu.supports_limited_double_precision());
    assert!(!cpu.has_display());
    // Only software adapters may rank below the CPU accelerator: llvmpipe
    // (its loops stop after 65,535 iterations) and non-Vulkan ones.
    let cpu_pos = all.iter().position(|a| a.is_cpu()).unwrap();
    for a in &all[cpu_pos + 1..] {
        let llvmpipe = a.description().to_lowercase().contains("llvmpipe");
        assert!(
            a.is_emulated() && (a.backend() != "vulkan" || llvmpipe),
            "{a:?} ranks below the CPU"
        );
    }
}

#[test]
fn enumeration_is_stable_and_paths_are_unique() {
    let first = Accelerator::all();
    let second = Accelerator::all();
    assert_eq!(first, second);
    let mut paths: Vec<&str> = first.iter().map(|a| a.device_path()).collect();
    paths.sort_unstable();
    paths.dedup();
    assert_eq!(
        paths.len(),
        first.len(),
        "duplicate device paths in {first:?}"
    );
    for a in &first {
        assert_eq!(&Accelerator::find(a.device_path()).unwrap(), a);
    }
}

#[amp_test(wgpu)]
fn a_wgpu_adapter_is_found_when_required() {
    let gpus = gpu_accelerators();
    if adapter_required() {
        assert!(!gpus.is_empty());
    }
    for gpu in &gpus {
        assert_ne!(gpu.backend(), "cpu");
        assert!(!gpu.description().is_empty());
        assert!(!gpu.version().is_empty());
        let limits = gpu.limits();
        assert!(limits.max_threads_per_tile >= 256, "{limits:?}");
        assert!(limits.max_tile_static_bytes >= 16 * 1024, "{limits:?}");
        assert!(limits.max_buffer_size >= 128 * 1024 * 1024, "{limits:?}");
        assert!(limits.max_tiles_per_dimension >= 65535, "{limits:?}");
        assert_eq!(
            gpu.supports_double_precision(),
            gpu.supports_limited_double_precision()
        );
        if gpu.backend() == "vulkan" {
            assert!(
                gpu.dedicated_memory() > 0,
                "Vulkan reports memory heaps: {gpu:?}"
            );
        }
        if gpu.description().contains("llvmpipe") {
            assert!(gpu.is_emulated(), "lavapipe is a software adapter");
        }
    }
}

#[test]
fn find_matches_paths_then_descriptions_and_reports_unknown_names() {
    assert_eq!(
        Accelerator::find("CPU ACCELERATOR").unwrap(),
        Accelerator::cpu()
    );
    match Accelerator::find("no accelerator has this name") {
        Err(Error::UnknownAccelerator { name, available }) => {
            assert_eq!(name, "no accelerator has this name");
            assert_eq!(available.len(), Accelerator::all().len());
            assert!(available.iter().any(|a| a.starts_with("cpu ")));
        }
        other => panic!("expected UnknownAccelerator, got {other:?}"),
    }
}

#[amp_test]
fn views_are_distinct_handles_with_their_queuing_mode() {
    for acc in accelerators() {
        let default = acc.default_view();
        assert_eq!(
            default,
            acc.default_view(),
            "one default view per accelerator"
        );
        assert_eq!(default.queuing_mode(), QueuingMode::Automatic);
        let immediate = acc.create_view(QueuingMode::Immediate);
        let automatic = acc.create_view(QueuingMode::Automatic);
        assert_eq!(immediate.queuing_mode(), QueuingMode::Immediate);
        assert_eq!(automatic.queuing_mode(), QueuingMode::Automatic);
        assert_ne!(immediate, automatic);
        assert_ne!(automatic, default);
        assert_eq!(immediate.clone(), immediate);
        assert_eq!(immediate.accelerator(), &acc);
        assert_eq!(immediate.is_emulated(), acc.is_emulated());
        immediate.wait().unwrap();
        automatic.flush().unwrap();
    }
}

#[test]
fn handles_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Accelerator>();
    assert_send_sync::<amp_core::AcceleratorView>();
    assert_send_sync::<amp_core::CompletionFuture>();
}
