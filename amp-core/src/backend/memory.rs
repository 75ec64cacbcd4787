//! Adapter properties that wgpu's portable API does not report.

/// The total size in bytes of the adapter's device-local memory heaps, or 0
/// where the backend cannot tell (every backend but Vulkan).
#[cfg(any(
    windows,
    all(unix, not(target_vendor = "apple"), not(target_os = "emscripten"))
))]
pub(crate) fn dedicated_memory(adapter: &wgpu::Adapter) -> u64 {
    use ash::vk;
    // SAFETY: the HAL adapter is only borrowed for the duration of this
    // function to read memory properties; no handle is retained, destroyed or
    // used to create objects, so wgpu's own use of the adapter is unaffected.
    let Some(hal) = (unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }) else {
        return 0;
    };
    let instance = hal.shared_instance().raw_instance();
    // SAFETY: `raw_physical_device` belongs to `instance`, which outlives this
    // call (both are kept alive by the borrowed HAL adapter).
    let props =
        unsafe { instance.get_physical_device_memory_properties(hal.raw_physical_device()) };
    props
        .memory_heaps_as_slice()
        .iter()
        .filter(|heap| heap.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|heap| heap.size)
        .sum()
}

/// The total size in bytes of the adapter's device-local memory heaps, or 0
/// where the backend cannot tell.
#[cfg(not(any(
    windows,
    all(unix, not(target_vendor = "apple"), not(target_os = "emscripten"))
)))]
pub(crate) fn dedicated_memory(_adapter: &wgpu::Adapter) -> u64 {
    0
}
