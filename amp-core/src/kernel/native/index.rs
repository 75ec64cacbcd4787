//! The indices kernels index containers with.

use crate::Index;

/// What a kernel may index a container with: an `Index<N>`, `[i32; N]`, or
/// (rank 1) an `i32`.
pub trait IntoIndex<const N: usize> {
    /// The index.
    fn into_index(self) -> Index<N>;
}

impl<const N: usize> IntoIndex<N> for Index<N> {
    fn into_index(self) -> Index<N> {
        self
    }
}

impl<const N: usize> IntoIndex<N> for [i32; N] {
    fn into_index(self) -> Index<N> {
        Index::new(self)
    }
}

impl IntoIndex<1> for i32 {
    fn into_index(self) -> Index<1> {
        Index::new([self])
    }
}

impl IntoIndex<1> for u32 {
    fn into_index(self) -> Index<1> {
        Index::new([self as i32])
    }
}
