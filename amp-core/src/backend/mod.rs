//! Everything that talks to wgpu or enumerates hardware, kept out of the
//! public types (as wgpu keeps its HAL calls out of its API types).
//!
//! - [`device`]: the lazily created wgpu device of one adapter, with its
//!   loss and uncaptured-error tracking;
//! - [`storage`]: the coherence record of one data source and the
//!   transfers between host and accelerators;
//! - [`upload`]: staging memory kept per device for large uploads;
//! - [`buffer_pool`]: device buffers of dropped containers, kept for reuse;
//! - [`host_copy`]: the host copies of large transfers, split over threads;
//! - [`memory`]: backend-specific property queries wgpu does not expose;
//! - [`failure`]: failures of host commands, kept until reported;
//! - [`waiter`]: the thread per device that completes awaited work.
//!
//! Dependencies flow one way: the backend uses nothing above it (the
//! accelerator, view, container and kernel modules). What a layer above
//! keeps per device it attaches to the device
//! ([`DeviceContext::attached`](device::DeviceContext::attached)).

pub(crate) mod buffer_pool;
pub(crate) mod cpu_gate;
pub(crate) mod device;
pub(crate) mod failure;
pub(crate) mod host_copy;
pub(crate) mod memory;
pub(crate) mod storage;
pub(crate) mod upload;
pub(crate) mod waiter;
