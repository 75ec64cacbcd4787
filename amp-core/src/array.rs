//! [`Array`]: rank-`N` data resident on one accelerator view.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::backend::storage::Storage;
use crate::layout::{Layout, check_container_extent};
use crate::{AcceleratorView, ArrayView, Element, Error, Extent, Index, ReadWrite, Result};

/// Rank-`N` data of element type `T` that lives on one accelerator view.
///
/// Unlike an [`ArrayView`], an array owns its data and has deep-copy
/// semantics: [`try_clone`](Self::try_clone) (and `clone`) copies the data on
/// the device. Its contents are never uninitialised: a new array is zeros.
/// Host access ([`get`](Self::get), [`to_vec`](Self::to_vec)) downloads what
/// it reads; [`view`](Self::view) gives a view for kernels and sections.
///
/// Corresponds to C++ AMP `array<T, N>`.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, Array};
///
/// let view = Accelerator::default()?.default_view();
/// let a = Array::from_slice([2, 3], &[1, 2, 3, 4, 5, 6], &view)?;
/// let b = a.try_clone()?;                 // deep copy, on the device
/// a.set([0, 0], 10)?;
/// assert_eq!(a.to_vec()?, [10, 2, 3, 4, 5, 6]);
/// assert_eq!(b.to_vec()?, [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub struct Array<T: Element, const N: usize> {
    storage: Arc<Storage>,
    extent: Extent<N>,
    view: AcceleratorView,
    /// For staging arrays: the associated view and its mappable buffers.
    staging: Option<Arc<crate::staging::Staging>>,
    _marker: PhantomData<T>,
}

/// The byte size of `extent` elements of `T`, checked.
fn byte_size<T: Element, const N: usize>(
    extent: &Extent<N>,
    view: &AcceleratorView,
) -> Result<u64> {
    check_container_extent(extent, "Array")?;
    extent
        .checked_size()
        .and_then(|n| n.checked_mul(size_of::<T>() as u64))
        .ok_or_else(|| Error::OutOfMemory {
            accelerator: view.accelerator().description().to_string(),
            detail: format!("an array of extent {extent} does not fit in 64-bit addressing"),
        })
}

fn check_f64<T: Element>(view: &AcceleratorView) -> Result<()> {
    if T::REQUIRES_F64 && !view.accelerator().supports_double_precision() {
        return Err(Error::UnsupportedFeature {
            accelerator: view.accelerator().description().to_string(),
            feature: "double precision (f64) data: the adapter lacks SHADER_F64".to_string(),
        });
    }
    Ok(())
}

impl<T: Element, const N: usize> Array<T, N> {
    fn build(extent: Extent<N>, view: &AcceleratorView, init: Option<&[T]>) -> Result<Self> {
        let bytes = byte_size::<T, N>(&extent, view)?;
        check_f64::<T>(view)?;
        let init = init.map(bytemuck::cast_slice::<T, u8>);
        Ok(Array {
            storage: Arc::new(Storage::array(view, bytes, T::REQUIRES_F64, init)?),
            extent,
            view: view.clone(),
            staging: None,
            _marker: PhantomData,
        })
    }

    /// A staging array: an array of `extent` (zeros) on the CPU
    /// accelerator, associated with the GPU view `associated`. Host access
    /// to it needs no device round trip, and [`copy`](crate::copy) between
    /// it and arrays on `associated` goes through mappable buffers that the
    /// staging array keeps: one copy each way, no intermediate host buffer.
    ///
    /// Corresponds to C++ AMP `array<T, N>(extent, cpu_view,
    /// associated_view)`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, copy};
    ///
    /// let gpu = Accelerator::default()?.default_view();
    /// let staging = Array::<f32, 1>::new_staging([4], &gpu)?;
    /// for i in 0..4 {
    ///     staging.set([i], i as f32)?;
    /// }
    /// let mut on_gpu = Array::<f32, 1>::new([4], &gpu)?;
    /// copy(&staging, &mut on_gpu)?;
    /// assert_eq!(on_gpu.to_vec()?, [0.0, 1.0, 2.0, 3.0]);
    /// assert_eq!(staging.associated_accelerator_view(), Some(&gpu));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn new_staging(extent: impl Into<Extent<N>>, associated: &AcceleratorView) -> Result<Self> {
        let cpu = crate::Accelerator::cpu().default_view();
        let mut array = Self::build(extent.into(), &cpu, None)?;
        array.staging = Some(Arc::new(crate::staging::Staging::new(associated.clone())));
        Ok(array)
    }

    /// The view a staging array is associated with (`None` for other
    /// arrays).
    ///
    /// Corresponds to C++ AMP `array::associated_accelerator_view`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let gpu = Accelerator::default()?.default_view();
    /// let plain = Array::<f32, 1>::new([4], &gpu)?;
    /// assert_eq!(plain.associated_accelerator_view(), None);
    /// let staging = Array::<f32, 1>::new_staging([4], &gpu)?;
    /// assert_eq!(staging.associated_accelerator_view(), Some(&gpu));
    /// assert!(staging.accelerator_view().accelerator().is_cpu()); // it lives on the CPU
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn associated_accelerator_view(&self) -> Option<&AcceleratorView> {
        self.staging.as_ref().map(|s| &s.associated)
    }

    pub(crate) fn staging(&self) -> Option<&Arc<crate::staging::Staging>> {
        self.staging.as_ref()
    }

    /// A zero-filled array of `extent` on `view`.
    ///
    /// Corresponds to C++ AMP `array<T, N>(extent, accelerator_view)`.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidArgument`] for a negative extent component (empty
    ///   arrays are allowed);
    /// - [`Error::OutOfMemory`] if the accelerator cannot hold it (naming the
    ///   limit exceeded);
    /// - [`Error::UnsupportedFeature`] for `f64` data on an accelerator
    ///   without double precision.
    ///
    /// # Examples
    ///
    /// ```
    /// let view = amp_core::Accelerator::cpu().default_view();
    /// let a = amp_core::Array::<f32, 2>::new([2, 2], &view)?;
    /// assert_eq!(a.to_vec()?, [0.0; 4]);
    /// assert!(amp_core::Array::<f32, 1>::new([-1], &view).is_err());
    /// assert!(amp_core::Array::<f32, 1>::new([0], &view)?.to_vec()?.is_empty());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn new(extent: impl Into<Extent<N>>, view: &AcceleratorView) -> Result<Self> {
        Self::build(extent.into(), view, None)
    }

    /// An array of `extent` on `view` holding `data` (row-major, exactly
    /// `extent.size()` elements).
    ///
    /// Corresponds to C++ AMP `array<T, N>(extent, begin, end, accelerator_view)`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), and [`Error::InvalidArgument`] if `data` has
    /// another length.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::from_slice([2, 3], &[1, 2, 3, 4, 5, 6], &view)?;
    /// assert_eq!(a.get([1, 0])?, 4);
    /// assert!(Array::from_slice([2, 2], &[1, 2, 3], &view).is_err()); // 3 elements for 4
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn from_slice(
        extent: impl Into<Extent<N>>,
        data: &[T],
        view: &AcceleratorView,
    ) -> Result<Self> {
        let extent = extent.into();
        if data.len() as u64 != extent.size() || (0..N).any(|d| extent[d] < 0) {
            return Err(Error::InvalidArgument(format!(
                "extent {extent} needs {} elements but the slice has {}",
                extent.size(),
                data.len()
            )));
        }
        Self::build(extent, view, Some(data))
    }

    /// An array of `extent` on `view` holding the items of `iter`, which must
    /// yield exactly `extent.size()` of them.
    ///
    /// # Errors
    ///
    /// As [`from_slice`](Self::from_slice).
    ///
    /// Corresponds to C++ AMP `array<T, N>(extent, begin, accelerator_view)`
    /// (the constructor that takes only a start iterator).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let squares = Array::from_iter_on([2, 2], (0..4).map(|i| i * i), &view)?;
    /// assert_eq!(squares.to_vec()?, [0, 1, 4, 9]);
    /// assert!(Array::<i32, 1>::from_iter_on([3], 0..4, &view).is_err()); // one too many
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn from_iter_on(
        extent: impl Into<Extent<N>>,
        iter: impl IntoIterator<Item = T>,
        view: &AcceleratorView,
    ) -> Result<Self> {
        let data: Vec<T> = iter.into_iter().collect();
        Self::from_slice(extent, &data, view)
    }

    /// An array on `view` holding a copy of `source`'s data.
    ///
    /// Corresponds to C++ AMP `array<T, N>(array_view, accelerator_view)`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, ArrayView};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let data = [1.0f32, 2.0, 3.0, 4.0];
    /// let host = ArrayView::new([2, 2], &data)?;
    /// let a = Array::from_view(&host, &view)?;
    /// assert_eq!(a.extent(), host.extent());
    /// assert_eq!(a.get([1, 1])?, 4.0);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn from_view<A: crate::Access>(
        source: &ArrayView<'_, T, N, A>,
        view: &AcceleratorView,
    ) -> Result<Self> {
        Self::from_slice(source.extent(), &source.to_vec()?, view)
    }

    /// A deep copy of the array on the same view, copied on the device.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] if the accelerator cannot hold a second copy.
    ///
    /// Corresponds to C++ AMP's `array` copy constructor; [`Clone`] does the
    /// same but panics where this returns an error.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::from_slice([3], &[1, 2, 3], &view)?;
    /// let b = a.try_clone()?;
    /// b.set([0], 9)?;
    /// assert_eq!(a.to_vec()?, [1, 2, 3]); // the copy is deep: `a` is unchanged
    /// assert_eq!(b.to_vec()?, [9, 2, 3]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn try_clone(&self) -> Result<Self> {
        let mut copy = Self::new(self.extent, &self.view)?;
        copy.staging = self
            .staging
            .as_ref()
            .map(|s| Arc::new(crate::staging::Staging::new(s.associated.clone())));
        crate::copy::copy_array_to_array(self, &copy)?;
        Ok(copy)
    }

    /// The array's extent.
    ///
    /// Corresponds to C++ AMP `array::extent` (`get_extent`).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, Extent};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::<u32, 3>::new([2, 3, 4], &view)?;
    /// assert_eq!(a.extent(), Extent::new([2, 3, 4]));
    /// assert_eq!(a.extent().size(), 24);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn extent(&self) -> Extent<N> {
        self.extent
    }

    /// The accelerator view the array lives on.
    ///
    /// Corresponds to C++ AMP `array::accelerator_view`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, QueuingMode};
    ///
    /// let view = Accelerator::cpu().create_view(QueuingMode::Immediate);
    /// let a = Array::<f32, 1>::new([8], &view)?;
    /// assert_eq!(a.accelerator_view(), &view);
    /// assert!(a.accelerator_view().accelerator().is_cpu());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn accelerator_view(&self) -> &AcceleratorView {
        &self.view
    }

    /// A read-write view of the whole array, for kernels and host access.
    ///
    /// Corresponds to C++ AMP `array_view<T, N>(array)`.
    ///
    /// The view shares the array's data: what it writes, the array holds.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::from_slice([2, 2], &[1, 2, 3, 4], &view)?;
    /// let v = a.view();
    /// v.set([0, 1], 20)?;
    /// assert_eq!(a.get([0, 1])?, 20);
    /// assert_eq!(v.extent(), a.extent());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn view(&self) -> ArrayView<'_, T, N, ReadWrite> {
        ArrayView::from_storage(
            Arc::clone(&self.storage),
            Layout::contiguous(self.extent, 0, size_of::<T>() as u64),
        )
    }

    /// A view of the section at `origin` with `extent`.
    ///
    /// Corresponds to C++ AMP `array::section`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a section that does not fit.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::from_iter_on([4, 4], 0..16, &view)?;
    /// let s = a.section([1, 1], [2, 2])?;
    /// assert_eq!(s.to_vec()?, [5, 6, 9, 10]);
    /// assert!(a.section([3, 3], [2, 2]).is_err()); // does not fit
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn section(
        &self,
        origin: impl Into<Index<N>>,
        extent: impl Into<Extent<N>>,
    ) -> Result<ArrayView<'_, T, N>> {
        self.view().section(origin, extent)
    }

    /// A view of the same elements with another extent.
    ///
    /// Corresponds to C++ AMP `array::view_as`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `extent` is invalid or larger.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::from_iter_on([6], 0..6, &view)?;
    /// let m = a.view_as([2, 3])?;
    /// assert_eq!(m.get([1, 0])?, 3);
    /// assert!(a.view_as([7]).is_err()); // more elements than the array has
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn view_as<const M: usize>(
        &self,
        extent: impl Into<Extent<M>>,
    ) -> Result<ArrayView<'_, T, M>> {
        self.view().view_as(extent)
    }

    /// A rank-1 view of the same bytes as elements of `U`.
    ///
    /// Corresponds to C++ AMP `array::reinterpret_as`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if the size is not a whole number of `U`s.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, Extent, Float2};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::from_slice([2, 2], &[1.0f32, 2.0, 3.0, 4.0], &view)?;
    /// let pairs = a.reinterpret_as::<Float2>()?;
    /// assert_eq!(pairs.extent(), Extent::new([2]));
    /// assert_eq!(pairs.get([1])?, Float2::new(3.0, 4.0));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn reinterpret_as<U: Element>(&self) -> Result<ArrayView<'_, U, 1>> {
        self.view().reinterpret_as()
    }

    /// The element at `idx`, read on the host.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `idx` is out of bounds.
    ///
    /// Corresponds to C++ AMP `array::operator()` on the host.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::from_slice([2, 3], &[1, 2, 3, 4, 5, 6], &view)?;
    /// assert_eq!(a.get([1, 2])?, 6);
    /// assert!(a.get([2, 0]).is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn get(&self, idx: impl Into<Index<N>>) -> Result<T> {
        self.view().get(idx)
    }

    /// Writes `value` at `idx` (through the host; uploaded when next used).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `idx` is out of bounds.
    ///
    /// Corresponds to C++ AMP `array::operator()` used as an lvalue on the host.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::<i32, 2>::new([2, 2], &view)?;
    /// a.set([1, 0], 7)?;
    /// assert_eq!(a.to_vec()?, [0, 0, 7, 0]);
    /// assert!(a.set([0, 2], 1).is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn set(&self, idx: impl Into<Index<N>>, value: T) -> Result<()> {
        self.view().set(idx, value)
    }

    /// Every element in row-major order, read on the host.
    ///
    /// Corresponds to C++ AMP's conversion of an `array` to `std::vector`.
    ///
    /// # Errors
    ///
    /// [`Error::AcceleratorViewRemoved`] if the device was lost.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::from_iter_on([3], [1.5f32, 2.5, 3.5], &view)?;
    /// assert_eq!(a.to_vec()?, [1.5, 2.5, 3.5]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.view().to_vec()
    }

    /// Copies this array's data into `dest` (same extent).
    ///
    /// Corresponds to C++ AMP `array::copy_to`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if the extents differ.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, ArrayView};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::from_slice([3], &[1, 2, 3], &view)?;
    /// let mut b = Array::<i32, 1>::new([3], &view)?;
    /// a.copy_to(&mut b)?;
    /// assert_eq!(b.to_vec()?, [1, 2, 3]);
    /// let mut host = [0; 3];
    /// a.copy_to(&mut ArrayView::new_mut([3], &mut host)?)?;
    /// assert_eq!(host, [1, 2, 3]);
    /// assert!(a.copy_to(&mut Array::<i32, 1>::new([4], &view)?).is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn copy_to(&self, dest: &mut (impl crate::CopyTarget<T, N> + ?Sized)) -> Result<()> {
        crate::copy(self, dest)
    }

    pub(crate) fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }
}

impl<T: Element, const N: usize> Clone for Array<T, N> {
    /// A deep copy, on the device.
    ///
    /// # Panics
    ///
    /// If the accelerator cannot hold the copy; use
    /// [`try_clone`](Array::try_clone) to get an `Err` instead.
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(a) => a,
            Err(e) => panic!("Array::clone failed: {e}"),
        }
    }
}

impl<T: Element, const N: usize> fmt::Debug for Array<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Array")
            .field("extent", &self.extent)
            .field("accelerator", &self.view.accelerator().device_path())
            .finish_non_exhaustive()
    }
}
