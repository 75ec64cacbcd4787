//! [`ArrayView`]: a lazily coherent view of host data, an [`Array`], or no
//! data source.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::backend::storage::{Origin, Storage};
use crate::layout::{Layout, Project, check_container_extent};
use crate::{
    AcceleratorView, Access, CompletionFuture, Element, Error, Extent, Index, ReadOnly, ReadWrite,
    Result,
};

/// A view of rank-`N` data of element type `T`, over a host slice, an
/// [`Array`](crate::Array), or no data source, that moves data between the
/// host and accelerators only when a reader needs it.
///
/// Every view and section over one source shares one coherence record, which
/// knows which locations (the host, each accelerator) hold valid data for
/// which elements. A kernel that captures the view gets the data uploaded
/// where it runs (only what is stale there); host access
/// ([`get`](Self::get), [`to_vec`](Self::to_vec), indexing read-only views)
/// and [`synchronize`](Self::synchronize) download only what the host lacks;
/// when the last view over a writable host slice drops, pending results are
/// written back. A [`ReadOnly`] view is never copied back.
///
/// A destructor cannot return an error: if the write-back at the drop
/// fails (a kernel that wrote the data failed, or the device was lost), the
/// host slice keeps its old contents, the error is printed to standard
/// error and logged, and the view that ran the kernel still reports it at
/// its next `wait`. Call [`synchronize`](Self::synchronize) before the view
/// drops to handle the error yourself.
///
/// Clones and sections are shallow: they share the data, as C++ AMP views
/// do. Host element access therefore works by value (`get`/`set`): handing
/// out `&mut T` into data that other views share would not be sound Rust.
/// Read-only views over host slices also implement `Index`, since nothing can
/// change their data.
///
/// Corresponds to C++ AMP `array_view<T, N>` (and `array_view<const T, N>`
/// with `A = ReadOnly`).
///
/// # Examples
///
/// ```
/// use amp_core::prelude::*;
///
/// let input = vec![1.0f32; 12];
/// let mut output = vec![0.0f32; 12];
/// let a = ArrayView::new([3, 4], &input)?;         // read-only, never copied back
/// let c = ArrayView::new_mut([3, 4], &mut output)?;
/// c.discard_data();                                 // c's old contents are not needed
/// for idx in c.extent().indices() {
///     c.set(idx, a[idx] * 2.0)?;
/// }
/// c.synchronize()?;
/// drop(c);
/// assert!(output.iter().all(|&x| x == 2.0));
/// # Ok::<(), amp_core::Error>(())
/// ```
pub struct ArrayView<'a, T: Element, const N: usize, A: Access = ReadWrite> {
    storage: Arc<Storage>,
    layout: Layout<N>,
    _marker: PhantomData<(&'a mut [T], A)>,
}

fn elem_size<T: Element>() -> u64 {
    const {
        assert!(
            (size_of::<T>().is_multiple_of(4) && size_of::<T>() > 0)
                || size_of::<T>() == 2
                || size_of::<T>() == 1,
            "element sizes are whole 32-bit words, or 1 or 2 bytes (`u8`, `i8`, `u16`, `i16`, `f16`)"
        );
        // The element type's own layout checks (an array of small
        // integers is refused there).
        let _ = T::WGSL_SIZE;
    };
    size_of::<T>() as u64
}

/// Checks a host slice against an extent; returns the byte length used.
fn check_slice<T: Element, const N: usize>(extent: &Extent<N>, len: usize) -> Result<u64> {
    check_container_extent(extent, "ArrayView")?;
    let needed = extent.size();
    if (len as u64) < needed {
        return Err(Error::InvalidArgument(format!(
            "extent {extent} needs {needed} elements but the slice has {len}"
        )));
    }
    Ok(needed * elem_size::<T>())
}

impl<'a, T: Element, const N: usize> ArrayView<'a, T, N, ReadOnly> {
    /// A read-only view of `data` with `extent` (row-major; `data` may be
    /// longer than the extent needs).
    ///
    /// Corresponds to C++ AMP `array_view<const T, N>(extent, container)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `extent` has a negative component or
    /// `data` is shorter than it. Empty extents are allowed.
    ///
    /// # Examples
    ///
    /// ```
    /// let data = [1, 2, 3, 4, 5, 6];
    /// let v = amp_core::ArrayView::new([2, 3], &data)?;
    /// assert_eq!(v[[1, 2]], 6);
    /// assert!(amp_core::ArrayView::new([4, 3], &data).is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn new(extent: impl Into<Extent<N>>, data: &'a [T]) -> Result<Self> {
        let extent = extent.into();
        let bytes = check_slice::<T, N>(&extent, data.len())?;
        // SAFETY: `data` is borrowed for 'a, which every view over this
        // storage carries, and it is only read (the storage is read-only).
        let storage =
            unsafe { Storage::borrowed(data.as_ptr() as *mut u8, bytes, false, T::REQUIRES_F64) };
        Ok(Self::from_storage(
            Arc::new(storage),
            Layout::contiguous(extent, 0, elem_size::<T>()),
        ))
    }
}

impl<'a, T: Element, const N: usize> ArrayView<'a, T, N, ReadWrite> {
    /// A writable view of `data` with `extent` (row-major). Results written
    /// on an accelerator come back on [`synchronize`](Self::synchronize) or
    /// when the last view over `data` drops.
    ///
    /// Corresponds to C++ AMP `array_view<T, N>(extent, container)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `extent` has a negative component or
    /// `data` is shorter than it. Empty extents are allowed.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::ArrayView;
    ///
    /// let mut data = vec![0u32; 6];
    /// {
    ///     let v = ArrayView::new_mut([2, 3], &mut data)?;
    ///     v.set([1, 2], 42)?;
    /// } // the last view over `data` drops: everything is written back
    /// assert_eq!(data, [0, 0, 0, 0, 0, 42]);
    /// assert!(ArrayView::new_mut([4, 4], &mut data).is_err()); // 16 elements needed
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn new_mut(extent: impl Into<Extent<N>>, data: &'a mut [T]) -> Result<Self> {
        let extent = extent.into();
        let bytes = check_slice::<T, N>(&extent, data.len())?;
        // SAFETY: `data` is mutably borrowed for 'a, which every view over
        // this storage carries; only the storage touches it meanwhile.
        let storage = unsafe {
            Storage::borrowed(data.as_mut_ptr() as *mut u8, bytes, true, T::REQUIRES_F64)
        };
        Ok(Self::from_storage(
            Arc::new(storage),
            Layout::contiguous(extent, 0, elem_size::<T>()),
        ))
    }
}

/// The rank-1 extent of a slice of `len` elements.
fn extent_of_len(len: usize) -> Result<Extent<1>> {
    i32::try_from(len).map(|n| Extent::new([n])).map_err(|_| {
        Error::InvalidArgument(format!(
            "a slice of {len} elements is longer than an extent can describe (at most {} elements per dimension)",
            i32::MAX
        ))
    })
}

impl<'a, T: Element> ArrayView<'a, T, 1, ReadOnly> {
    /// A read-only rank-1 view of all of `data`: the extent is the slice's
    /// length, checked (no `len() as i32` that could truncate).
    ///
    /// Corresponds to C++ AMP `array_view<const T, 1>(container)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `data` has more than `i32::MAX`
    /// elements.
    ///
    /// # Examples
    ///
    /// ```
    /// let data = vec![1.0f32, 2.0, 3.0];
    /// let v = amp_core::ArrayView::from_slice(&data)?;
    /// assert_eq!(v.extent()[0], 3);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn from_slice(data: &'a [T]) -> Result<Self> {
        Self::new(extent_of_len(data.len())?, data)
    }
}

impl<'a, T: Element> ArrayView<'a, T, 1, ReadWrite> {
    /// A writable rank-1 view of all of `data`, as
    /// [`from_slice`](ArrayView::from_slice).
    ///
    /// Corresponds to C++ AMP `array_view<T, 1>(container)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `data` has more than `i32::MAX`
    /// elements.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::prelude::*;
    ///
    /// let mut data = vec![0i32; 5];
    /// {
    ///     let v = ArrayView::from_slice_mut(&mut data)?;
    ///     parallel_for_each!(v.extent(), |idx: Index<1>| {
    ///         v[idx] = idx[0] * 10;
    ///     })?;
    /// }
    /// assert_eq!(data, [0, 10, 20, 30, 40]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn from_slice_mut(data: &'a mut [T]) -> Result<Self> {
        Self::new_mut(extent_of_len(data.len())?, data)
    }
}

impl<T: Element, const N: usize> ArrayView<'static, T, N, ReadWrite> {
    /// A view with no data source: the runtime holds its data (zeros at
    /// first) wherever it is used. Discarding it never loses its only copy.
    ///
    /// Corresponds to C++ AMP `array_view<T, N>(extent)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `extent` has a negative component.
    ///
    /// # Examples
    ///
    /// ```
    /// let v = amp_core::ArrayView::<u32, 2>::with_extent([2, 2])?;
    /// v.set([1, 1], 5)?;
    /// assert_eq!(v.to_vec()?, [0, 0, 0, 5]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn with_extent(extent: impl Into<Extent<N>>) -> Result<Self> {
        let extent = extent.into();
        check_container_extent(&extent, "ArrayView::with_extent")?;
        let bytes = extent
            .checked_size()
            .and_then(|n| n.checked_mul(elem_size::<T>()))
            .ok_or_else(|| Error::InvalidArgument(format!("extent {extent} is too large")))?;
        let storage = Storage::no_source(bytes, T::REQUIRES_F64);
        Ok(Self::from_storage(
            Arc::new(storage),
            Layout::contiguous(extent, 0, elem_size::<T>()),
        ))
    }
}

impl<'a, T: Element, const N: usize, A: Access> ArrayView<'a, T, N, A> {
    pub(crate) fn from_storage(storage: Arc<Storage>, layout: Layout<N>) -> Self {
        storage.add_view();
        ArrayView {
            storage,
            layout,
            _marker: PhantomData,
        }
    }

    fn derive<U: Element, const M: usize>(&self, layout: Layout<M>) -> ArrayView<'a, U, M, A> {
        ArrayView::from_storage(Arc::clone(&self.storage), layout)
    }

    /// The view's extent.
    ///
    /// Corresponds to C++ AMP `array_view::extent` (`get_extent`).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{ArrayView, Extent};
    ///
    /// let data = [0.0f32; 12];
    /// let v = ArrayView::new([3, 4], &data)?;
    /// assert_eq!(v.extent(), Extent::new([3, 4]));
    /// assert_eq!(v.section([1, 1], [2, 2])?.extent().size(), 4);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn extent(&self) -> Extent<N> {
        self.layout.extent
    }

    /// Whether the view has a data source (host data or an array).
    ///
    /// A view made by [`with_extent`](ArrayView::with_extent) has none: the
    /// runtime owns its data. Has no C++ AMP counterpart.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, ArrayView};
    ///
    /// let data = [1, 2, 3];
    /// assert!(ArrayView::new([3], &data)?.has_data_source());
    /// assert!(!ArrayView::<i32, 1>::with_extent([3])?.has_data_source());
    /// let a = Array::<i32, 1>::new([3], &Accelerator::default()?.default_view())?;
    /// assert!(a.view().has_data_source());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn has_data_source(&self) -> bool {
        !matches!(self.storage.origin(), Origin::NoSource)
    }

    /// Whether the elements are dense in row-major order in their source
    /// (whole views, sections of whole rows, `view_as`, projections of those).
    ///
    /// Only a contiguous view can be reshaped with [`view_as`](Self::view_as)
    /// or [`reinterpret_as`](Self::reinterpret_as). Has no C++ AMP counterpart.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::ArrayView;
    ///
    /// let data: Vec<i32> = (0..12).collect();
    /// let v = ArrayView::new([3, 4], &data)?;
    /// assert!(v.is_contiguous());
    /// assert!(v.section([1, 0], [2, 4])?.is_contiguous()); // whole rows
    /// let block = v.section([0, 1], [3, 2])?;
    /// assert!(!block.is_contiguous()); // two columns of each row
    /// assert!(block.view_as([6]).is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

    /// The sub-view at `origin` with `extent`, sharing this view's data.
    ///
    /// Corresponds to C++ AMP `array_view::section`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a zero or negative extent or a section
    /// that does not fit inside this view.
    ///
    /// # Examples
    ///
    /// ```
    /// let data: Vec<i32> = (0..100).collect();
    /// let av = amp_core::ArrayView::new([100], &data)?;
    /// let s = av.section([10], [30])?.view_as([3, 10])?;
    /// assert_eq!(s[[2, 2]], av[[32]]);
    /// assert!(av.section([90], [20]).is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn section(
        &self,
        origin: impl Into<Index<N>>,
        extent: impl Into<Extent<N>>,
    ) -> Result<Self> {
        Ok(self.derive(self.layout.section(origin.into(), extent.into())?))
    }

    /// The sub-view from `origin` to the end in every dimension.
    ///
    /// Corresponds to C++ AMP `array_view::section(idx)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `origin` lies outside the view.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{ArrayView, Extent};
    ///
    /// let data: Vec<i32> = (0..12).collect();
    /// let v = ArrayView::new([3, 4], &data)?;
    /// let corner = v.section_from([1, 2])?;
    /// assert_eq!(corner.extent(), Extent::new([2, 2]));
    /// assert_eq!(corner.to_vec()?, [6, 7, 10, 11]);
    /// assert!(v.section_from([3, 0]).is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn section_from(&self, origin: impl Into<Index<N>>) -> Result<Self> {
        let origin = origin.into();
        let extent = self.layout.extent - origin;
        self.section(origin, extent)
    }

    /// The same elements with another extent (of any rank, no more
    /// elements); the view must be contiguous.
    ///
    /// Corresponds to C++ AMP `array_view::view_as`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if the view is not contiguous or `extent`
    /// is invalid or larger.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::ArrayView;
    ///
    /// let data: Vec<i32> = (0..12).collect();
    /// let flat = ArrayView::new([12], &data)?;
    /// let grid = flat.view_as([3, 4])?;
    /// assert_eq!(grid[[2, 1]], 9);
    /// assert!(flat.view_as([4, 4]).is_err()); // more elements than the view has
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn view_as<const M: usize>(
        &self,
        extent: impl Into<Extent<M>>,
    ) -> Result<ArrayView<'a, T, M, A>> {
        Ok(self.derive(self.layout.view_as(extent.into())?))
    }

    /// The same bytes as a rank-1 view of `U`; the view must be contiguous
    /// and its size a whole number of `U`s.
    ///
    /// Corresponds to C++ AMP `array_view::reinterpret_as`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if the view is not contiguous or its byte
    /// size is not a multiple of `U`'s.
    ///
    /// # Examples
    ///
    /// ```
    /// let data = [1u32, 2, 3, 4];
    /// let v = amp_core::ArrayView::new([4], &data)?;
    /// let pairs = v.reinterpret_as::<amp_core::UInt2>()?;
    /// assert_eq!(pairs.extent(), amp_core::Extent::new([2]));
    /// assert_eq!(pairs.get([1])?, amp_core::UInt2::new(3, 4));
    /// assert!(v.section([0], [3])?.reinterpret_as::<amp_core::UInt2>().is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn reinterpret_as<U: Element>(&self) -> Result<ArrayView<'a, U, 1, A>> {
        let layout = self.layout.reinterpret(elem_size::<U>())?;
        let base = self.storage.host_ptr().map_or(0, |p| p as usize as u64);
        if !(base + layout.offset).is_multiple_of(align_of::<U>() as u64) {
            return Err(Error::InvalidArgument(format!(
                "reinterpret_as: the view starts at byte {}, not aligned for a {}-byte-aligned type",
                layout.offset,
                align_of::<U>()
            )));
        }
        Ok(self.derive(layout))
    }

    /// The element at `idx`, read on the host (downloading it if the host
    /// copy is stale).
    ///
    /// Corresponds to C++ AMP `array_view::operator()` / `operator[]` on the
    /// host.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `idx` is out of bounds;
    /// [`Error::AcceleratorViewRemoved`] if the only valid copy was on a lost
    /// device.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::ArrayView;
    ///
    /// let mut data = vec![1, 2, 3, 4];
    /// let v = ArrayView::new_mut([2, 2], &mut data)?;
    /// assert_eq!(v.get([1, 0])?, 3);
    /// assert!(v.get([2, 0]).is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn get(&self, idx: impl Into<Index<N>>) -> Result<T> {
        let idx = idx.into();
        self.layout.check_index(&idx)?;
        let mut bytes = Vec::new();
        self.storage
            .read_host(&self.layout.element_region(&idx), &mut bytes)?;
        Ok(bytemuck::pod_read_unaligned(&bytes))
    }

    /// Every element, in row-major order, read on the host.
    ///
    /// # Errors
    ///
    /// As [`get`](Self::get).
    ///
    /// Corresponds to C++ AMP `concurrency::copy` from an `array_view` into a
    /// host container.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::ArrayView;
    ///
    /// let data: Vec<i32> = (0..9).collect();
    /// let v = ArrayView::new([3, 3], &data)?;
    /// assert_eq!(v.to_vec()?, data);
    /// assert_eq!(v.section([0, 1], [2, 2])?.to_vec()?, [1, 2, 4, 5]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn to_vec(&self) -> Result<Vec<T>> {
        // The result is the only full-size allocation: fallible, so that a
        // host short of memory gets an error instead of an abort.
        let len = usize::try_from(self.layout.len()).map_err(|_| out_of_host_memory(u64::MAX))?;
        let mut out: Vec<T> = Vec::new();
        out.try_reserve_exact(len)
            .map_err(|_| out_of_host_memory(self.layout.len() * size_of::<T>() as u64))?;
        if self.layout.is_contiguous() {
            out.resize(len, T::zeroed());
            self.storage.read_host_into(
                &self.layout.region(),
                bytemuck::cast_slice_mut(&mut out),
                true,
            )?;
            return Ok(out);
        }
        let mut bytes = Vec::new();
        // Make the whole section valid once, then gather element by element.
        self.storage.make_host_valid(&self.layout.region())?;
        for idx in self.layout.extent.indices() {
            self.storage
                .read_host(&self.layout.element_region(&idx), &mut bytes)?;
            out.push(bytemuck::pod_read_unaligned(&bytes));
        }
        Ok(out)
    }

    /// Makes the view's data valid at its source: the host slice, the
    /// array's accelerator, or the runtime's host copy. Downloads only what
    /// is stale there.
    ///
    /// Corresponds to C++ AMP `array_view::synchronize`.
    ///
    /// # Errors
    ///
    /// [`Error::AcceleratorViewRemoved`] if the valid copy was on a lost device.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::prelude::*;
    ///
    /// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
    /// let mut data = vec![1, 2, 3, 4];
    /// {
    ///     let v = ArrayView::new_mut([4], &mut data)?;
    ///     parallel_for_each!(view, v.extent(), |idx: Index<1>| {
    ///         v[idx] = v[idx] * 10;
    ///     })?;
    ///     v.synchronize()?; // the results are in `data` now
    ///     v.synchronize()?; // nothing is stale: no second download
    ///     assert_eq!(view.transfers().downloads, 1);
    /// }
    /// assert_eq!(data, [10, 20, 30, 40]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.storage.synchronize(&self.layout.region())
    }

    /// [`synchronize`](Self::synchronize), returning a future.
    ///
    /// Downloads from GPUs run in the background and the future completes
    /// when they have finished. Their bytes are written into the host data
    /// at the next access through any view of it (a `get`, a `synchronize`,
    /// the drop of the last view), while the views' borrow of the host data
    /// is alive; data written after this call (by a kernel or on the host)
    /// wins over the older bytes in flight. Transfers from the CPU
    /// accelerator complete before this returns.
    ///
    /// Corresponds to C++ AMP `array_view::synchronize_async`.
    ///
    /// # Errors
    ///
    /// As [`synchronize`](Self::synchronize).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array};
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let a = Array::<i32, 1>::new([4], &view)?;
    /// let v = a.view();
    /// v.set([2], 7)?; // written on the host
    /// let done = v.synchronize_async()?; // back to the array's accelerator
    /// assert!(done.is_ready()); // already: the transfer happened in the call
    /// done.wait()?;
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn synchronize_async(&self) -> Result<CompletionFuture> {
        self.storage.synchronize_async(&self.layout.region())
    }

    /// Makes the view's data valid on `view`'s accelerator ahead of use.
    ///
    /// Corresponds to C++ AMP `array_view::synchronize_to`.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] if the accelerator cannot hold the data;
    /// [`Error::AcceleratorViewRemoved`] if its device was lost.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, ArrayView, QueuingMode};
    ///
    /// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
    /// let data = vec![1.0f32; 1024];
    /// let v = ArrayView::new([1024], &data)?;
    /// v.synchronize_to(&view)?; // uploaded now, ahead of the kernels that read it
    /// v.synchronize_to(&view)?; // already there: nothing moves
    /// let t = view.transfers();
    /// assert_eq!((t.uploads, t.bytes_uploaded), (1, 4096));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn synchronize_to(&self, view: &AcceleratorView) -> Result<()> {
        self.storage.synchronize_to(&self.layout.region(), view)
    }

    /// Tells the runtime that the host data changed behind the view's back:
    /// copies on accelerators are stale and the next reader there gets the
    /// host data again.
    ///
    /// Corresponds to C++ AMP `array_view::refresh`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, ArrayView, QueuingMode};
    ///
    /// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
    /// let data = vec![1.0f32; 64];
    /// let v = ArrayView::new([64], &data)?;
    /// v.synchronize_to(&view)?;
    /// v.refresh(); // the accelerator's copy is now stale...
    /// v.synchronize_to(&view)?; // ...so it is uploaded again
    /// assert_eq!(view.transfers().uploads, 2);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn refresh(&self) {
        self.storage.refresh(&self.layout.region());
    }

    /// The view's source and placement in it (for commands that use it).
    pub(crate) fn parts(&self) -> (&Arc<Storage>, &Layout<N>) {
        (&self.storage, &self.layout)
    }
}

impl<'a, T: Element, const N: usize> ArrayView<'a, T, N, ReadWrite> {
    /// A read-only view of the same elements, sharing this view's data
    /// source and coherence: kernels that capture it may only read it (and
    /// bind it read-only), and what this view or a kernel writes is what it
    /// reads.
    ///
    /// Corresponds to C++ AMP's `array_view<const T, N>(array_view<T, N>)`.
    /// Host reads of it go through [`get`](ArrayView::get) and
    /// [`to_vec`](ArrayView::to_vec): `view[idx]` hands out a `&T` into host
    /// memory, which only views over immutable data (`ArrayView::new`) can do.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::prelude::*;
    ///
    /// let mut data = vec![1, 2, 3, 4];
    /// let rw = ArrayView::new_mut([4], &mut data)?;
    /// let ro = rw.as_read_only();
    /// let mut doubled = vec![0; 4];
    /// let out = ArrayView::new_mut([4], &mut doubled)?;
    /// parallel_for_each!(out.extent(), |i: Index<1>| {
    ///     out[i] = ro[i] * 2;
    /// })?;
    /// rw.set([0], 10)?;                 // seen through the read-only view
    /// assert_eq!(ro.get([0])?, 10);
    /// assert_eq!(out.to_vec()?, [2, 4, 6, 8]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn as_read_only(&self) -> ArrayView<'a, T, N, ReadOnly> {
        ArrayView::from_storage(Arc::clone(&self.storage), self.layout)
    }

    /// Writes `value` at `idx` on the host; the host becomes the only valid
    /// copy of that element.
    ///
    /// Corresponds to C++ AMP `array_view::operator()` used as an lvalue on
    /// the host.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `idx` is out of bounds.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::ArrayView;
    ///
    /// let mut data = [0; 4];
    /// {
    ///     let v = ArrayView::new_mut([2, 2], &mut data)?;
    ///     v.set([1, 1], 9)?;
    ///     assert!(v.set([2, 0], 1).is_err());
    /// }
    /// assert_eq!(data, [0, 0, 0, 9]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn set(&self, idx: impl Into<Index<N>>, value: T) -> Result<()> {
        let idx = idx.into();
        self.layout.check_index(&idx)?;
        let start = self.layout.byte_offset(&idx);
        self.storage
            .write_host(start..start + self.layout.elem, bytemuck::bytes_of(&value))
    }

    /// Declares the view's current contents unneeded: the next reader on an
    /// accelerator gets no upload (write them in a kernel before reading
    /// them). A view with no data source keeps its data: it has no other copy.
    ///
    /// Corresponds to C++ AMP `array_view::discard_data`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::prelude::*;
    ///
    /// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
    /// let mut out = vec![0.0f32; 256];
    /// {
    ///     let v = ArrayView::new_mut([256], &mut out)?;
    ///     v.discard_data(); // the kernel overwrites every element
    ///     parallel_for_each!(view, v.extent(), |idx: Index<1>| {
    ///         v[idx] = 1.5;
    ///     })?;
    /// }
    /// assert_eq!(view.transfers().uploads, 0); // `out` was never uploaded
    /// assert!(out.iter().all(|&x| x == 1.5));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn discard_data(&self) {
        self.storage.discard(&self.layout.region());
    }
}

/// Projections (C++ AMP `array_view::operator[](int)` on rank > 1): rank
/// `N` to `N - 1`, for ranks 2 to 8.
macro_rules! impl_view_projection {
    ($($n:literal => $m:literal),*) => {$(
        impl<'a, T: Element, A: Access> ArrayView<'a, T, $n, A> {
            /// The rank-reduced view at index `i` of the most significant
            /// dimension, sharing this view's data.
            ///
            /// Corresponds to C++ AMP `array_view::operator[](int)`.
            ///
            /// # Errors
            ///
            /// [`Error::InvalidArgument`] if `i` is out of bounds.
            ///
            /// # Examples
            ///
            /// ```
            /// use amp_core::{ArrayView, Extent};
            ///
            /// let data: Vec<i32> = (0..6).collect();
            /// let m = ArrayView::new([2, 3], &data)?;
            /// let row = m.project(1)?;
            /// assert_eq!(row.extent(), Extent::new([3]));
            /// assert_eq!(row.to_vec()?, [3, 4, 5]);
            /// assert!(m.project(2).is_err());
            /// # Ok::<(), amp_core::Error>(())
            /// ```
            pub fn project(&self, i: i32) -> Result<ArrayView<'a, T, $m, A>> {
                Ok(self.derive(Project::<$m>::project(&self.layout, i)?))
            }
        }
    )*};
}

impl_view_projection!(2 => 1, 3 => 2, 4 => 3, 5 => 4, 6 => 5, 7 => 6, 8 => 7);

impl<T: Element, const N: usize, A: Access> Clone for ArrayView<'_, T, N, A> {
    /// Another handle on the same data (a shallow copy, as in C++ AMP).
    fn clone(&self) -> Self {
        self.derive(self.layout)
    }
}

impl<T: Element, const N: usize, A: Access> Drop for ArrayView<'_, T, N, A> {
    /// The last view over a writable host slice writes pending results back.
    fn drop(&mut self) {
        self.storage.drop_view();
    }
}

impl<T: Element, const N: usize, A: Access> fmt::Debug for ArrayView<'_, T, N, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayView")
            .field("extent", &self.layout.extent)
            .field("writable", &A::WRITABLE)
            .field("contiguous", &self.layout.is_contiguous())
            .finish_non_exhaustive()
    }
}

/// Host indexing of read-only views: the data is the caller's immutable
/// slice, always valid on the host, so handing out `&T` is sound.
impl<T: Element, const N: usize> std::ops::Index<Index<N>> for ArrayView<'_, T, N, ReadOnly> {
    type Output = T;

    /// # Panics
    ///
    /// If `idx` is out of bounds (use [`ArrayView::get`] for an `Err`), or
    /// the view was made by [`ArrayView::as_read_only`] from a writable
    /// view (its elements may change while a `&T` is held: use
    /// [`ArrayView::get`]).
    fn index(&self, idx: Index<N>) -> &T {
        if let Err(e) = self.layout.check_index(&idx) {
            panic!("{e}");
        }
        let offset = self.layout.byte_offset(&idx);
        let Some(ptr) = self.storage.host_ptr() else {
            panic!(
                "`view[idx]` on the host needs a view over immutable data (`ArrayView::new`); this read-only view shares a writable data source: read it with `get(idx)` or `to_vec()`"
            );
        };
        // SAFETY: `host_ptr` is `Some` only for a source created over a
        // `&'a [T]` borrowed for the view's lifetime (never for writable
        // sources, which `as_read_only` views share); `offset` is in bounds (checked above) and
        // aligned for `T` (offsets are multiples of `size_of::<T>()` from a
        // `T`-aligned start, and `reinterpret_as` checks alignment); nothing
        // writes that memory while it is borrowed immutably.
        unsafe { &*(ptr.add(offset as usize) as *const T) }
    }
}

impl<T: Element, const N: usize> std::ops::Index<[i32; N]> for ArrayView<'_, T, N, ReadOnly> {
    type Output = T;

    /// # Panics
    ///
    /// If `idx` is out of bounds (use [`ArrayView::get`] for an `Err`).
    fn index(&self, idx: [i32; N]) -> &T {
        &self[Index::new(idx)]
    }
}

/// `OutOfMemory` for a host allocation of `bytes` that failed.
fn out_of_host_memory(bytes: u64) -> Error {
    Error::OutOfMemory {
        accelerator: "host".to_string(),
        detail: format!("cannot allocate {bytes} bytes of host memory for the copy"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_lengths_become_extents_or_errors() {
        assert_eq!(extent_of_len(0).unwrap(), Extent::new([0]));
        assert_eq!(extent_of_len(7).unwrap(), Extent::new([7]));
        assert_eq!(
            extent_of_len(i32::MAX as usize).unwrap(),
            Extent::new([i32::MAX])
        );
        let err = extent_of_len(i32::MAX as usize + 1).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("2147483648 elements")),
            "{err}"
        );
    }
}
