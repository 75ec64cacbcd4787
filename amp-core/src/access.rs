//! [`ReadOnly`] and [`ReadWrite`]: the access of an
//! [`ArrayView`](crate::ArrayView), in its type.

/// The access an [`ArrayView`](crate::ArrayView) grants: [`ReadOnly`] or
/// [`ReadWrite`]. Sealed: no other implementations exist.
///
/// Corresponds to the `const` in C++ AMP `array_view<const T, N>`.
///
/// Generic code over views of either access bounds its parameter with it;
/// [`WRITABLE`](Self::WRITABLE) tells them apart.
///
/// # Examples
///
/// ```
/// use amp_core::{Access, ArrayView, ReadOnly, ReadWrite};
///
/// fn describe<A: Access>(_: &ArrayView<'_, i32, 1, A>) -> &'static str {
///     if A::WRITABLE { "read-write" } else { "read-only" }
/// }
///
/// let mut data = [1, 2, 3];
/// assert_eq!(describe(&ArrayView::new([3], &data)?), "read-only");
/// assert_eq!(describe(&ArrayView::new_mut([3], &mut data)?), "read-write");
/// assert!(!ReadOnly::WRITABLE && ReadWrite::WRITABLE);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub trait Access: sealed::Sealed + Send + Sync + 'static {
    /// Whether views with this access may be written.
    const WRITABLE: bool;
}

/// Read-only access: the view is never written, on the host or in a kernel
/// (a write is a compile error), and never copied back to its source.
///
/// Corresponds to C++ AMP `array_view<const T, N>`.
///
/// # Examples
///
/// ```
/// use amp_core::{ArrayView, ReadOnly};
///
/// let data = [1, 2, 3];
/// let view: ArrayView<'_, i32, 1, ReadOnly> = ArrayView::new([3], &data)?;
/// assert_eq!(view[[2]], 3);
/// # Ok::<(), amp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReadOnly;

/// Read-write access (the default).
///
/// Corresponds to C++ AMP `array_view<T, N>`.
///
/// # Examples
///
/// ```
/// use amp_core::{ArrayView, ReadWrite};
///
/// let mut data = [1, 2, 3];
/// let view: ArrayView<'_, i32, 1, ReadWrite> = ArrayView::new_mut([3], &mut data)?;
/// view.set([0], 7)?;
/// drop(view);
/// assert_eq!(data, [7, 2, 3]);
/// # Ok::<(), amp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReadWrite;

impl Access for ReadOnly {
    const WRITABLE: bool = false;
}

impl Access for ReadWrite {
    const WRITABLE: bool = true;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::ReadOnly {}
    impl Sealed for super::ReadWrite {}
}
