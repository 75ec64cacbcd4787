//! Subgroup operations, beyond C++ AMP: a GPU runs the work items of a
//! workgroup in subgroups (warps, wavefronts) of a fixed size, which can
//! combine their values without memory or barriers.
//!
//! In kernels these are WGSL's subgroup built-ins, on accelerators with
//! the `SUBGROUP` feature (a launch elsewhere fails with
//! [`Error::UnsupportedFeature`](crate::Error::UnsupportedFeature)). The
//! CPU accelerator, and host code, behave as subgroups of one work item:
//! each operation gives the work item's own value.

use crate::{Number, UInt4};

/// The sum of `x` over the active work items of the subgroup.
///
/// WGSL `subgroupAdd`. Integer sums wrap; the order of a float sum is the
/// GPU's. On the CPU accelerator (a subgroup of one), `x`.
///
/// # Examples
///
/// ```
/// use amp_core::prelude::*;
///
/// let xs: Vec<u32> = (0..256).collect();
/// let mut sums = vec![0u32; 256];
/// let x = ArrayView::new([256], &xs)?;
/// let s = ArrayView::new_mut([256], &mut sums)?;
/// let cpu = Accelerator::cpu().default_view();
/// parallel_for_each!(&cpu, s.extent(), |i: Index<1>| {
///     s[i] = subgroup_add(x[i]) * subgroup_size();
/// })?;
/// assert_eq!(s.get([5])?, 5); // a subgroup of one on the CPU
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn subgroup_add<T: Number>(x: T) -> T {
    x
}

/// The least `x` over the active work items of the subgroup (WGSL
/// `subgroupMin`); on the CPU accelerator, `x`.
pub fn subgroup_min<T: Number>(x: T) -> T {
    x
}

/// The greatest `x` over the active work items of the subgroup (WGSL
/// `subgroupMax`); on the CPU accelerator, `x`.
pub fn subgroup_max<T: Number>(x: T) -> T {
    x
}

/// `x` of the work item at `lane` of the subgroup (WGSL
/// `subgroupShuffle`; `lane` must be an active lane); on the CPU
/// accelerator, `x`.
pub fn subgroup_broadcast<T: Number>(x: T, lane: u32) -> T {
    let _ = lane;
    x
}

/// One bit per lane of the subgroup, set where `p` is true, in four 32-bit
/// words (lane 0 is bit 0 of `x`; WGSL `subgroupBallot`); on the CPU
/// accelerator, `p` in bit 0.
pub fn subgroup_ballot(p: bool) -> UInt4 {
    UInt4::new(u32::from(p), 0, 0, 0)
}

/// The number of work items of a subgroup (WGSL `subgroup_size`); 1 on
/// the CPU accelerator.
pub fn subgroup_size() -> u32 {
    1
}

/// The work item's index in its subgroup (WGSL `subgroup_invocation_id`);
/// 0 on the CPU accelerator.
pub fn subgroup_lane() -> u32 {
    0
}
