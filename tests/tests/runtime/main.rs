//! The runtime: accelerators, views and queuing, containers and their
//! coherence, copies and transfers, limits, and the reliability checks of
//! the runtime (one test binary, as wgpu organises its tests).

#[path = "../kernel_support/mod.rs"]
mod kernel_support;

mod accelerators;
mod containers;
mod copies;
mod elements;
mod geometry;
mod limits;
mod queuing;
mod reliability;
mod reliability_limits;
mod round_trip;
mod sections;
mod staging;
mod synchronize_async;
mod timing;
mod transfers;
