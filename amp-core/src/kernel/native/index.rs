//! The indices kernels index containers with.

use crate::Index;

/// What a kernel may index a container with: an `Index<N>`, `[i32; N]`, or
/// (rank 1) an `i32`.
#[diagnostic::on_unimplemented(
    message = "a container of rank {N} cannot be indexed with `{Self}`",
    label = "this container has rank {N}",
    note = "index a rank-{N} view or array with an `Index<{N}>` (a kernel launched over its extent, `v.extent()`, has one) or an `[i32; {N}]` (`v[[i, j]]` for rank 2); rank 1 also takes an `i32` or `u32`",
    note = "to address rows of a 2-D view from a 1-D kernel, build the index: `v[[row, col]]`"
)]
pub trait IntoIndex<const N: usize> {
    /// The index.
    fn into_index(self) -> Index<N>;
}

#[diagnostic::do_not_recommend]
impl<const N: usize> IntoIndex<N> for Index<N> {
    fn into_index(self) -> Index<N> {
        self
    }
}

#[diagnostic::do_not_recommend]
impl<const N: usize> IntoIndex<N> for [i32; N] {
    fn into_index(self) -> Index<N> {
        Index::new(self)
    }
}

#[diagnostic::do_not_recommend]
impl IntoIndex<1> for i32 {
    fn into_index(self) -> Index<1> {
        Index::new([self])
    }
}

#[diagnostic::do_not_recommend]
impl IntoIndex<1> for u32 {
    fn into_index(self) -> Index<1> {
        Index::new([self as i32])
    }
}
