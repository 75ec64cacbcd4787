//! Everything that talks to wgpu or enumerates hardware, kept out of the
//! public types (as wgpu keeps its HAL calls out of its API types).
//!
//! - [`registry`]: enumerates adapters once per process, ranks them, and
//!   resolves the default accelerator;
//! - [`device`]: the lazily created wgpu device of one adapter, with its
//!   loss and uncaptured-error tracking;
//! - [`storage`]: the coherence record of one data source and the
//!   transfers between host and accelerators;
//! - [`upload`]: staging memory kept per device for large uploads;
//! - [`memory`]: backend-specific property queries wgpu does not expose;
//! - [`failure`]: failures of host commands, kept until reported.

pub(crate) mod device;
pub(crate) mod failure;
pub(crate) mod memory;
pub(crate) mod registry;
pub(crate) mod storage;
pub(crate) mod upload;
