//! [`copy`] and [`copy_async`]: data movement between arrays, views and host
//! slices, in every direction.
//!
//! The rank and the element type are in the types, so copying between ranks
//! or element types does not compile; extents that differ are an `Err`.
//! Array-to-array copies on one accelerator run on the device; everything
//! else moves through the host, where the coherence records keep every
//! location's copy consistent.

use std::sync::Arc;

use crate::backend::storage::{DeviceBinding, Storage};
use crate::range_set::RangeSet;
use crate::{
    AcceleratorView, Access, Array, ArrayView, CompletionFuture, Element, Error, Extent, ReadWrite,
    Result,
};

mod sealed {
    pub trait Sealed {}
}

/// Something [`copy`] can read: an [`Array`], an [`ArrayView`], or a host
/// slice (`[T]`, of any rank's size). Sealed.
///
/// Bound a generic function with it to accept all three.
///
/// Corresponds to the source arguments of C++ AMP `concurrency::copy`.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, AcceleratorView, Array, ArrayView, CopySource, copy};
///
/// /// Uploads any source of three `f32`s to a new array on `view`.
/// fn upload<S>(src: &S, view: &AcceleratorView) -> amp_core::Result<Array<f32, 1>>
/// where
///     S: CopySource<f32, 1> + ?Sized,
/// {
///     let mut a = Array::new([3], view)?;
///     copy(src, &mut a)?;
///     Ok(a)
/// }
///
/// let view = Accelerator::default()?.default_view();
/// let host = [1.0f32, 2.0, 3.0];
/// let from_slice = upload(&host[..], &view)?;
/// let from_array = upload(&from_slice, &view)?;
/// let from_view = upload(&ArrayView::new([3], &host)?, &view)?;
/// assert_eq!(from_array.to_vec()?, host);
/// assert_eq!(from_view.to_vec()?, host);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub trait CopySource<T: Element, const N: usize>: sealed::Sealed {
    /// The extent, or `None` for a host slice.
    #[doc(hidden)]
    fn copy_extent(&self) -> Option<Extent<N>>;
    /// The number of elements.
    #[doc(hidden)]
    fn copy_len(&self) -> u64;
    /// Every element in row-major order.
    #[doc(hidden)]
    fn read_all(&self) -> Result<Vec<T>>;
    /// The whole array, when the source is one (for device-side copies).
    #[doc(hidden)]
    fn as_array(&self) -> Option<&Array<T, N>> {
        None
    }
    /// The elements, when the source is a host slice (copied from without
    /// a temporary).
    #[doc(hidden)]
    fn as_host_slice(&self) -> Option<&[T]> {
        None
    }
    /// Every element in row-major order, into `out` (of the same length),
    /// which is written only once they are all known.
    #[doc(hidden)]
    fn read_into(&self, out: &mut [T]) -> Result<()> {
        out.copy_from_slice(&self.read_all()?);
        Ok(())
    }
}

/// Something [`copy`] can write: an [`Array`], a writable [`ArrayView`], or a
/// host slice. Sealed.
///
/// A read-only [`ArrayView`] is not one. Bound a generic function with it to
/// accept all three.
///
/// Corresponds to the destination arguments of C++ AMP `concurrency::copy`.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, Array, CopyTarget, copy};
///
/// /// Fills `dest` with 0, 1, 2, ... (`n` elements).
/// fn fill<D: CopyTarget<u32, 1> + ?Sized>(dest: &mut D, n: u32) -> amp_core::Result<()> {
///     let data: Vec<u32> = (0..n).collect();
///     copy(&data[..], dest)
/// }
///
/// let view = Accelerator::default()?.default_view();
/// let mut a = Array::<u32, 1>::new([4], &view)?;
/// fill(&mut a, 4)?;
/// let mut host = [0u32; 4];
/// fill(&mut host[..], 4)?;
/// assert_eq!(a.to_vec()?, host);
/// assert!(fill(&mut a, 5).is_err()); // the element counts differ
/// # Ok::<(), amp_core::Error>(())
/// ```
pub trait CopyTarget<T: Element, const N: usize>: sealed::Sealed {
    /// The extent, or `None` for a host slice.
    #[doc(hidden)]
    fn copy_extent(&self) -> Option<Extent<N>>;
    /// The number of elements.
    #[doc(hidden)]
    fn copy_len(&self) -> u64;
    /// Overwrites every element, in row-major order.
    #[doc(hidden)]
    fn write_all(&mut self, data: &[T]) -> Result<()>;
    /// The elements, when the target is a host slice (copied into without
    /// a temporary).
    #[doc(hidden)]
    fn as_host_slice_mut(&mut self) -> Option<&mut [T]> {
        None
    }
    /// The whole array, when the target is one (for device-side copies).
    #[doc(hidden)]
    fn as_array(&self) -> Option<&Array<T, N>> {
        None
    }
}

impl<T: Element> sealed::Sealed for [T] {}
impl<T: Element, const N: usize> sealed::Sealed for Array<T, N> {}
impl<T: Element, const N: usize, A: Access> sealed::Sealed for ArrayView<'_, T, N, A> {}

impl<T: Element, const N: usize> CopySource<T, N> for [T] {
    fn copy_extent(&self) -> Option<Extent<N>> {
        None
    }
    fn copy_len(&self) -> u64 {
        self.len() as u64
    }
    fn read_all(&self) -> Result<Vec<T>> {
        Ok(self.to_vec())
    }
    fn as_host_slice(&self) -> Option<&[T]> {
        Some(self)
    }
}

impl<T: Element, const N: usize> CopyTarget<T, N> for [T] {
    fn copy_extent(&self) -> Option<Extent<N>> {
        None
    }
    fn copy_len(&self) -> u64 {
        self.len() as u64
    }
    fn write_all(&mut self, data: &[T]) -> Result<()> {
        self.copy_from_slice(data);
        Ok(())
    }
    fn as_host_slice_mut(&mut self) -> Option<&mut [T]> {
        Some(self)
    }
}

impl<T: Element, const N: usize> CopySource<T, N> for Array<T, N> {
    fn copy_extent(&self) -> Option<Extent<N>> {
        Some(self.extent())
    }
    fn copy_len(&self) -> u64 {
        self.extent().size()
    }
    fn read_all(&self) -> Result<Vec<T>> {
        self.to_vec()
    }
    fn read_into(&self, out: &mut [T]) -> Result<()> {
        self.view().read_into(out)
    }
    fn as_array(&self) -> Option<&Array<T, N>> {
        Some(self)
    }
}

impl<T: Element, const N: usize> CopyTarget<T, N> for Array<T, N> {
    fn copy_extent(&self) -> Option<Extent<N>> {
        Some(self.extent())
    }
    fn copy_len(&self) -> u64 {
        self.extent().size()
    }
    fn write_all(&mut self, data: &[T]) -> Result<()> {
        let mut view = self.view();
        view.write_all(data)
    }
    fn as_array(&self) -> Option<&Array<T, N>> {
        Some(self)
    }
}

impl<T: Element, const N: usize, A: Access> CopySource<T, N> for ArrayView<'_, T, N, A> {
    fn copy_extent(&self) -> Option<Extent<N>> {
        Some(self.extent())
    }
    fn copy_len(&self) -> u64 {
        self.extent().size()
    }
    fn read_all(&self) -> Result<Vec<T>> {
        self.to_vec()
    }
    fn read_into(&self, out: &mut [T]) -> Result<()> {
        let (storage, layout) = self.parts();
        if layout.is_contiguous() {
            // Straight from where the data is valid into `out` (an array's
            // host copy is not filled on the way: a copy transfers).
            return storage.read_host_into(&layout.region(), bytemuck::cast_slice_mut(out), false);
        }
        out.copy_from_slice(&self.to_vec()?);
        Ok(())
    }
}

impl<T: Element, const N: usize> CopyTarget<T, N> for ArrayView<'_, T, N, ReadWrite> {
    fn copy_extent(&self) -> Option<Extent<N>> {
        Some(self.extent())
    }
    fn copy_len(&self) -> u64 {
        self.extent().size()
    }
    fn write_all(&mut self, data: &[T]) -> Result<()> {
        let (storage, layout) = self.parts();
        if layout.is_contiguous() {
            let start = layout.offset;
            return storage.write_host(
                start..start + layout.len() * layout.elem,
                bytemuck::cast_slice(data),
            );
        }
        for (idx, value) in self.extent().indices().zip(data) {
            self.set(idx, *value)?;
        }
        Ok(())
    }
}

fn check_shapes<T: Element, const N: usize>(
    src: &(impl CopySource<T, N> + ?Sized),
    dst: &(impl CopyTarget<T, N> + ?Sized),
) -> Result<()> {
    if let (Some(a), Some(b)) = (src.copy_extent(), dst.copy_extent())
        && a != b
    {
        return Err(Error::InvalidArgument(format!(
            "copy between different extents: {a} and {b}"
        )));
    }
    if src.copy_len() != dst.copy_len() {
        return Err(Error::InvalidArgument(format!(
            "copy between different sizes: {} and {} elements",
            src.copy_len(),
            dst.copy_len()
        )));
    }
    Ok(())
}

/// Copies every element of `src` into `dest`, in row-major order.
///
/// Sources: [`Array`], [`ArrayView`], host slices; targets: [`Array`],
/// writable [`ArrayView`], host slices. Between two arrays on one
/// accelerator the copy runs on the device (in the queuing mode of the
/// target's view); otherwise data moves through the host, lazily for views
/// (a copy into a view updates its source and marks other copies stale).
///
/// Corresponds to C++ AMP `concurrency::copy`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the extents (or, with a slice, the element
/// counts) differ; transfer errors otherwise. Nothing is written on error.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, Array, copy};
///
/// let view = Accelerator::default()?.default_view();
/// let a = Array::from_slice([2, 2], &[1, 2, 3, 4], &view)?;
/// let mut b = Array::<i32, 2>::new([2, 2], &view)?;
/// copy(&a, &mut b)?;
/// let mut host = [0; 4];
/// copy(&b, &mut host[..])?;
/// assert_eq!(host, [1, 2, 3, 4]);
/// assert!(copy(&host[..3], &mut b).is_err());
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn copy<T: Element, const N: usize>(
    src: &(impl CopySource<T, N> + ?Sized),
    dest: &mut (impl CopyTarget<T, N> + ?Sized),
) -> Result<()> {
    copy_inner(src, dest).map(drop)
}

/// [`copy`], returning a future that completes when the copy has finished on
/// the device. A device-side array-to-array copy is only recorded (and, in
/// automatic mode, submitted with the marker); other copies complete before
/// this returns, since they read or write host memory borrowed for this call.
///
/// Corresponds to C++ AMP `concurrency::copy_async`.
///
/// # Errors
///
/// As [`copy`].
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, Array, copy_async};
///
/// let view = Accelerator::default()?.default_view();
/// let a = Array::from_slice([3], &[1.0f32, 2.0, 3.0], &view)?;
/// let mut b = Array::<f32, 1>::new([3], &view)?;
/// let done = copy_async(&a, &mut b)?;
/// done.then(|r| assert!(r.is_ok()));
/// done.wait()?;
/// assert_eq!(b.to_vec()?, [1.0, 2.0, 3.0]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn copy_async<T: Element, const N: usize>(
    src: &(impl CopySource<T, N> + ?Sized),
    dest: &mut (impl CopyTarget<T, N> + ?Sized),
) -> Result<CompletionFuture> {
    match copy_inner(src, dest)? {
        Some(view) => view.create_marker(),
        None => Ok(CompletionFuture::ready(Ok(()))),
    }
}

/// Copies; returns the view a device-side copy was recorded on.
fn copy_inner<T: Element, const N: usize>(
    src: &(impl CopySource<T, N> + ?Sized),
    dest: &mut (impl CopyTarget<T, N> + ?Sized),
) -> Result<Option<AcceleratorView>> {
    check_shapes(src, dest)?;
    if let (Some(a), Some(b)) = (src.as_array(), dest.as_array()) {
        // Staging arrays move data through their mappable buffers.
        if let Some(st) = a.staging()
            && !st.associated.accelerator().is_cpu()
            && b.accelerator_view().accelerator() == st.associated.accelerator()
        {
            crate::staging::upload(st, a.storage(), b.storage(), b.accelerator_view())?;
            return Ok(Some(b.accelerator_view().clone()));
        }
        if let Some(st) = b.staging()
            && !st.associated.accelerator().is_cpu()
            && a.accelerator_view().accelerator() == st.associated.accelerator()
        {
            crate::staging::download(st, a.storage(), b.storage(), a.accelerator_view())?;
            return Ok(None);
        }
    }
    if let (Some(a), Some(b)) = (src.as_array(), dest.as_array())
        && a.accelerator_view().accelerator() == b.accelerator_view().accelerator()
    {
        copy_array_to_array(a, b)?;
        return Ok(Some(b.accelerator_view().clone()));
    }
    // Host slices are read or written in place (no temporary copy).
    if let Some(data) = src.as_host_slice() {
        dest.write_all(data)?;
        return Ok(None);
    }
    if let Some(out) = dest.as_host_slice_mut() {
        src.read_into(out)?;
        return Ok(None);
    }
    let data = src.read_all()?;
    dest.write_all(&data)?;
    Ok(None)
}

/// Copies all of `src` into `dst` (same extent, same accelerator) with a
/// command on `dst`'s view.
pub(crate) fn copy_array_to_array<T: Element, const N: usize>(
    src: &Array<T, N>,
    dst: &Array<T, N>,
) -> Result<()> {
    let view = dst.accelerator_view();
    let bytes = src.storage().bytes();
    let region = RangeSet::from_range(0..bytes);
    copy_device(src.storage(), dst.storage(), &region, view)
}

/// Records a device copy of `region` from `src` to the same bytes of `dst`.
/// `region` covers whole arrays: it is copied in whole 32-bit words.
fn copy_device(
    src: &Arc<Storage>,
    dst: &Arc<Storage>,
    region: &RangeSet,
    view: &AcceleratorView,
) -> Result<()> {
    let from = src.use_on(region, view, false, false)?;
    let to = dst.use_on(region, view, true, true)?;
    let ranges = region.ranges().to_vec();
    match (from, to) {
        (DeviceBinding::Gpu(from), DeviceBinding::Gpu(to)) => view.record(
            |_, encoder| {
                for r in &ranges {
                    // Whole words (both buffers are allocated in words; the
                    // region is a whole array, so the padding of its last
                    // word belongs to no element).
                    let end = r.end.next_multiple_of(4);
                    encoder.copy_buffer_to_buffer(&from, r.start, &to, r.start, end - r.start);
                }
                Ok(())
            },
            || Ok(()),
            None,
        ),
        (DeviceBinding::Cpu(from), DeviceBinding::Cpu(to)) => view.record(
            |_, _| Ok(()),
            move || {
                let from = from.access(crate::backend::cpu_gate::Mode::AtomicRead);
                let to = to.access(crate::backend::cpu_gate::Mode::AtomicWrite);
                for r in &ranges {
                    let (lo, hi) = ((r.start / 4) as usize, r.end.div_ceil(4) as usize);
                    for (d, s) in to[lo..hi].iter().zip(&from[lo..hi]) {
                        d.store(
                            s.load(std::sync::atomic::Ordering::Relaxed),
                            std::sync::atomic::Ordering::Relaxed,
                        );
                    }
                }
                Ok(())
            },
            None,
        ),
        _ => Err(Error::Runtime(
            "device copy between different kinds of memory".to_string(),
        )),
    }
}
