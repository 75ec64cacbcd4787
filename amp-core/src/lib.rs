//! C++ AMP's data-parallel programming model for Rust, on every GPU through
//! [wgpu](https://wgpu.rs) and on the CPU with no driver at all.
//!
//! amp-rs recreates Microsoft's C++ Accelerated Massive Parallelism: kernels
//! run over an [`Extent`] (or a tiled [`TiledExtent`]), each work item sees its
//! [`Index`] (or [`TiledIndex`]), and data lives in containers that move
//! between the host and the accelerators lazily. This crate holds the runtime:
//!
//! - geometry: [`Extent`], [`Index`], [`TiledExtent`], [`TiledIndex`],
//!   [`TileBarrier`] (C++ AMP `extent`, `index`, `tiled_extent`,
//!   `tiled_index`, `tile_barrier`);
//! - devices: [`Accelerator`] (every wgpu adapter plus the native CPU
//!   accelerator), [`AcceleratorView`] with its [`QueuingMode`], and
//!   [`CompletionFuture`] (C++ AMP `accelerator`, `accelerator_view`,
//!   `queuing_mode`, `completion_future`);
//! - one error type, [`Error`], mirroring C++ AMP's `runtime_exception` family.
//!
//! The [`guide`] walks through kernels, tiled kernels, `#[kernel]`
//! functions, choosing an accelerator, logging and the C++ AMP names;
//! [`kernel_language`] is the reference of what a kernel may contain (and
//! the error each refused construct gives), and [`porting_guide`] ports
//! the C++ AMP samples. `docs/ARCHITECTURE.md` in the repository describes
//! how the pieces fit.
//!
//! # Examples
//!
//! A kernel, `c = a * b + 1` over a 32 x 32 grid, on the default
//! accelerator (the best GPU, else the CPU accelerator, which always
//! exists):
//!
//! ```
//! use amp_core::prelude::*;
//!
//! let a: Vec<f32> = (0..1024).map(|i| i as f32).collect();
//! let b = vec![2.0f32; 1024];
//! let mut c = vec![0.0f32; 1024];
//! {
//!     let av = ArrayView::new([32, 32], &a)?; // read-only: never copied back
//!     let bv = ArrayView::new([32, 32], &b)?;
//!     let cv = ArrayView::new_mut([32, 32], &mut c)?;
//!     cv.discard_data(); // its old contents are not uploaded
//!     parallel_for_each!(cv.extent(), |idx: Index<2>| {
//!         cv[idx] = av[idx] * bv[idx] + 1.0;
//!     })?;
//!     cv.synchronize()?; // the results back, with any error of the kernel
//! }
//! assert_eq!(c[33], 33.0 * 2.0 + 1.0);
//!
//! // Or on an accelerator of your choice: here the CPU accelerator.
//! let view = Accelerator::cpu().default_view();
//! let squares = Array::<i32, 1>::new([8], &view)?;
//! parallel_for_each!(view, squares.extent(), |idx: Index<1>| {
//!     squares[idx] = idx[0] * idx[0];
//! })?;
//! assert_eq!(squares.to_vec()?, [0, 1, 4, 9, 16, 25, 36, 49]);
//! # Ok::<(), amp_core::Error>(())
//! ```

mod accelerator;
mod accelerator_view;
mod access;
mod array;
mod array_view;
mod atomic;
mod backend;
mod completion_future;
mod copy;
pub mod direct3d;
mod element;
mod error;
mod extent;
pub mod guide;
mod index;
mod kernel;
mod kernel_timing;
mod layout;
mod number;
pub mod precise_math;
mod queuing_mode;
mod range_set;
mod short_vector;
mod staging;
mod subgroup;
mod tiled_extent;
mod tiled_index;

pub use accelerator::{Accelerator, AcceleratorLimits};
pub use accelerator_view::{AcceleratorView, TransferStatistics, ViewStatistics};
pub use access::{Access, ReadOnly, ReadWrite};
pub use array::Array;
pub use array_view::ArrayView;
pub use atomic::{
    AtomicElement, AtomicInteger, AtomicRef, atomic_compare_exchange, atomic_exchange,
    atomic_fetch_add, atomic_fetch_and, atomic_fetch_dec, atomic_fetch_inc, atomic_fetch_max,
    atomic_fetch_min, atomic_fetch_or, atomic_fetch_sub, atomic_fetch_xor,
};
pub use completion_future::CompletionFuture;
pub use copy::{CopySource, CopyTarget, copy, copy_async};
pub use element::{Element, ElementKind, ElementType, FieldType, ScalarType};
pub use error::{Error, Result};
pub use extent::Extent;
/// The 16-bit float element type, re-exported from the `half` crate (with
/// the `half` feature).
///
/// Containers of `f16` work on every accelerator; kernels that compute with
/// it need
/// [`Accelerator::supports_half_precision`](crate::Accelerator::supports_half_precision)
/// on GPUs. Inside kernels, `f16::from_f32(x)`, `h.to_f32()`, the
/// arithmetic operators and comparisons are available
/// ([`kernel_language`], section 3).
///
/// # Examples
///
/// ```
/// use amp_core::{ArrayView, f16};
///
/// let data = [f16::from_f32(1.5), f16::from_f32(-2.0), f16::from_f32(0.25)];
/// let v = ArrayView::new([3], &data)?;
/// assert_eq!(v.get([1])?.to_f32(), -2.0);
/// # Ok::<(), amp_core::Error>(())
/// ```
#[cfg(feature = "half")]
pub use half::f16;
pub use index::Index;
pub use kernel_timing::KernelTiming;
pub use number::{Float, Integer, Number};
pub use queuing_mode::QueuingMode;
pub use short_vector::{
    Double2, Double3, Double4, Float2, Float3, Float4, Int2, Int3, Int4, UInt2, UInt3, UInt4,
};
pub use subgroup::{
    subgroup_add, subgroup_ballot, subgroup_broadcast, subgroup_lane, subgroup_max, subgroup_min,
    subgroup_size,
};
pub use tiled_extent::TiledExtent;
pub use tiled_index::{TileBarrier, TileSync, TiledIndex};

/// Derives [`Element`] for a `#[repr(C)]` struct of element types.
///
/// # Examples
///
/// ```
/// use amp_core::{Element, Float3};
///
/// #[repr(C)]
/// #[derive(Clone, Copy, Element)]
/// struct Light {
///     direction: Float3,
///     color: Float3,
/// }
///
/// assert_eq!(Light::WGSL_SIZE, 32);
/// ```
pub use amp_macros::Element;
/// Makes a function callable from kernels (and still from Rust); on a
/// method or an `impl` block, its methods and associated functions
/// ([`kernel_language`], section 10).
///
/// # Examples
///
/// ```
/// use amp_core::prelude::*;
/// use amp_core::{Float, kernel};
///
/// #[kernel]
/// fn lerp<T: Float>(a: T, b: T, t: T) -> T {
///     a + (b - a) * t
/// }
///
/// assert_eq!(lerp(1.0f32, 3.0, 0.5), 2.0); // an ordinary Rust function too
/// let mut out = vec![0.0f32; 4];
/// {
///     let ov = ArrayView::new_mut([4], &mut out)?;
///     parallel_for_each!(ov.extent(), |idx: Index<1>| {
///         ov[idx] = lerp(0.0f32, 8.0, idx[0] as f32 / 4.0);
///     })?;
/// }
/// assert_eq!(out, [0.0, 2.0, 4.0, 6.0]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub use amp_macros::kernel;
/// Runs a kernel over every index of a compute domain, on an accelerator
/// view (by default, the default accelerator's).
///
/// # Examples
///
/// ```
/// use amp_core::prelude::*;
///
/// let view = Accelerator::default()?.default_view();
/// let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let mut out = vec![0.0f32; 6];
/// {
///     let av = ArrayView::new([2, 3], &a)?;
///     let ov = ArrayView::new_mut([2, 3], &mut out)?;
///     ov.discard_data();
///     parallel_for_each!(view, ov.extent(), |idx: Index<2>| {
///         ov[idx] = av[idx] * 2.0 + idx[0] as f32;
///     })?;
///     ov.synchronize()?; // the results, or the kernel's error
/// }
/// assert_eq!(out, [2.0, 4.0, 6.0, 9.0, 11.0, 13.0]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub use amp_macros::parallel_for_each;

// Lets the macros' code, which names `::amp_core`, work in this crate: in
// its tests (`#[derive(Element)]`) and in `direct3d` (`#[kernel]`).
extern crate self as amp_core;

/// The names most programs need, for a glob import: the types, the
/// launch macro, `#[kernel]` and the number traits its generic functions
/// are bounded by.
///
/// # Examples
///
/// ```
/// use amp_core::prelude::*;
///
/// #[kernel]
/// fn twice<T: Number>(x: T) -> T {
///     x + x
/// }
///
/// let e = Extent::new([3, 4]);
/// assert!(e.contains(&Index::new([2, 3])));
/// let mut out = [0i32; 4];
/// {
///     let o = ArrayView::new_mut([4], &mut out)?;
///     parallel_for_each!(o.extent(), |idx: Index<1>| {
///         o[idx] = twice(idx[0]);
///     })?;
/// }
/// assert_eq!(out, [0, 2, 4, 6]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub mod prelude {
    pub use crate::{
        Accelerator, AcceleratorView, Array, ArrayView, CompletionFuture, Double2, Double3,
        Double4, Element, Error, Extent, Float, Float2, Float3, Float4, Index, Int2, Int3, Int4,
        Integer, Number, QueuingMode, ReadOnly, ReadWrite, TileBarrier, TiledExtent, TiledIndex,
        UInt2, UInt3, UInt4, atomic_compare_exchange, atomic_exchange, atomic_fetch_add,
        atomic_fetch_and, atomic_fetch_dec, atomic_fetch_inc, atomic_fetch_max, atomic_fetch_min,
        atomic_fetch_or, atomic_fetch_sub, atomic_fetch_xor, copy, copy_async, direct3d,
        parallel_for_each, precise_math, subgroup_add, subgroup_ballot, subgroup_broadcast,
        subgroup_lane, subgroup_max, subgroup_min, subgroup_size,
    };
    pub use amp_macros::kernel;
}

#[doc(hidden)]
pub mod __private;

#[doc = include_str!("kernel_language.md")]
pub mod kernel_language {}

#[doc = include_str!("porting_guide.md")]
pub mod porting_guide {}

/// The crate README's example, compiled and run as a doc test.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctest;
