//! What the native (CPU accelerator) form of a kernel body calls.
//!
//! The macros rewrite a kernel body for the CPU so that it has exactly the
//! semantics of its WGSL form: integer arithmetic wraps, integer division by
//! zero gives WGSL's result instead of panicking, container accesses go
//! through the accelerator's memory (never the host copy), and writes to
//! read-only views do not compile.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::backend::storage::CpuMem;
use crate::layout::Layout;
use crate::{Access, Element, Index, ReadWrite};

/// A container as a CPU kernel sees it: the accelerator's copy and the
/// view's placement in it, in units of [`unit`] bytes (32-bit words, or
/// half-words for 2-byte elements).
pub struct CpuView<T: Element, const N: usize, A: Access> {
    mem: Arc<CpuMem>,
    /// The unit of element `[0, .., 0]`.
    base: usize,
    /// The view's extent.
    bounds: [i32; N],
    /// The view's extent again, read by a kernel's `a.extent` (C++ AMP's
    /// `array_view::extent` data member; `a.extent()` is the method).
    #[doc(hidden)]
    pub extent: crate::Extent<N>,
    /// Units between neighbours along each dimension.
    word_strides: [usize; N],
    _marker: std::marker::PhantomData<(T, A)>,
}

impl<T: Element, const N: usize, A: Access> CpuView<T, N, A> {
    /// The view of `layout` in `mem`.
    pub(crate) fn new(mem: Arc<CpuMem>, layout: &Layout<N>) -> Self {
        let units = (size_of::<T>() / unit::<T>()) as u64;
        CpuView {
            mem,
            base: (layout.offset / unit::<T>() as u64) as usize,
            bounds: layout.extent.to_array(),
            extent: layout.extent,
            word_strides: std::array::from_fn(|d| (layout.strides[d] * units) as usize),
            _marker: std::marker::PhantomData,
        }
    }

    /// Where the view's elements lie, for a plain launch's plan.
    pub(crate) fn plain_parts(&self) -> super::plain::PlainParts<'_, N> {
        super::plain::PlainParts {
            mem: &self.mem,
            base: self.base,
            bounds: self.bounds,
            word_strides: self.word_strides,
        }
    }

    /// The view's extent (`a.extent()` in a kernel).
    pub fn extent(&self) -> crate::Extent<N> {
        crate::Extent::from(self.bounds)
    }

    /// The same view with another access mode.
    pub(crate) fn retag<B: Access>(self) -> CpuView<T, N, B> {
        CpuView {
            mem: self.mem,
            base: self.base,
            bounds: self.bounds,
            extent: self.extent,
            word_strides: self.word_strides,
            _marker: std::marker::PhantomData,
        }
    }

    /// The first unit of the element at `idx`.
    #[inline(always)]
    #[track_caller]
    fn word(&self, idx: Index<N>) -> usize {
        let mut w = self.base;
        for d in 0..N {
            // One unsigned comparison covers negative components too.
            if idx[d] as u32 >= self.bounds[d] as u32 {
                out_of_bounds(
                    "kernel index",
                    idx,
                    "extent",
                    self.bounds.map(|b| b as usize),
                    std::panic::Location::caller(),
                );
            }
            w += idx[d] as usize * self.word_strides[d];
        }
        w
    }

    /// Reads the element at `idx`.
    ///
    /// # Panics
    ///
    /// If `idx` is out of bounds (the launch reports it as an error).
    #[inline]
    #[track_caller]
    pub fn load(&self, idx: impl IntoIndex<N>) -> T {
        load_elem(self.mem.words_held(), self.word(idx.into_index()))
    }
}

/// Stops the work item at an out-of-bounds access: the launch reports
/// `what` (`"kernel index"`, `"tile_static index"`) `idx` out of bounds of
/// `of` (`"extent"`, `"dimensions"`) `bounds` at the access's own line (`at`: the kernel code, through
/// `#[track_caller]`). It unwinds without the panic hook, so that nothing
/// but the launch's error is printed. Everything is passed by value: the
/// hot path never takes the index's address.
#[cold]
#[inline(never)]
pub(crate) fn out_of_bounds<const N: usize>(
    what: &'static str,
    idx: Index<N>,
    of: &'static str,
    bounds: [usize; N],
    at: &'static std::panic::Location<'static>,
) -> ! {
    let bounds: Vec<String> = bounds.iter().map(|b| b.to_string()).collect();
    std::panic::resume_unwind(Box::new(format!(
        "{what} {idx} is out of bounds of {of} [{}] at {}:{}:{}",
        bounds.join(", "),
        at.file(),
        at.line(),
        at.column()
    )))
}

/// Types made of 4-byte scalars with no padding, which views made with
/// `reinterpret_as` inside kernels read and write word by word: `i32`,
/// `u32`, `f32`, their 2- and 4-component vectors, arrays of them.
#[diagnostic::on_unimplemented(
    message = "`reinterpret_as` in a kernel reads and writes types made of 4-byte scalars, not `{Self}`",
    label = "not made of i32, u32 or f32 words",
    note = "i32, u32, f32, Int2, Int4, UInt2, UInt4, Float2, Float4 and arrays of them (3-component vectors have padding); make other reinterpretations on the host"
)]
pub trait Words: Element {
    /// How many 32-bit words a value has.
    const WORDS: usize;
}

impl Words for i32 {
    const WORDS: usize = 1;
}
impl Words for u32 {
    const WORDS: usize = 1;
}
impl Words for f32 {
    const WORDS: usize = 1;
}
impl Words for crate::Int2 {
    const WORDS: usize = 2;
}
impl Words for crate::UInt2 {
    const WORDS: usize = 2;
}
impl Words for crate::Float2 {
    const WORDS: usize = 2;
}
impl Words for crate::Int4 {
    const WORDS: usize = 4;
}
impl Words for crate::UInt4 {
    const WORDS: usize = 4;
}
impl Words for crate::Float4 {
    const WORDS: usize = 4;
}

impl<T: Words, const M: usize> Words for [T; M]
where
    [T; M]: Element,
{
    const WORDS: usize = M * T::WORDS;
}

impl<T: Element, const N: usize, A: Access> CpuView<T, N, A> {
    /// The memory word holding word `j` of the value `k` of a view of `W`
    /// words per value over this one's elements in row-major order (the
    /// elements' words: `T` is [`Words`] wherever a kernel compiles).
    #[track_caller]
    fn reinterpreted_word(&self, k: i32, w: usize, j: usize) -> usize {
        let p = k.wrapping_mul(w as i32).wrapping_add(j as i32);
        let v = (std::mem::size_of::<T>() / 4).max(1) as i32;
        let (e, c) = if v == 1 {
            (p, 0)
        } else {
            (p.wrapping_div(v), p.wrapping_rem(v))
        };
        let idx = delinearize(self.extent().to_array(), e);
        self.word(idx) + c as usize
    }
}

/// The position in a view made with `reinterpret_as` inside a kernel
/// (rank 1): an `i32`, or an `Index<1>` (`w[idx]`).
pub trait WordIndex: Copy {
    /// The position as an `i32`.
    fn position(self) -> i32;
}

impl WordIndex for i32 {
    fn position(self) -> i32 {
        self
    }
}

impl WordIndex for Index<1> {
    fn position(self) -> i32 {
        self[0]
    }
}

/// A value read through a view made with `reinterpret_as` inside a
/// kernel (`w[k]`): its words, from the elements of the view in row-major
/// order.
pub trait ReinterpretAs: Copy {
    /// The value at position `k`, of the witness's type (not read).
    fn reinterpret_load<U: Words>(self, k: impl WordIndex, witness: U) -> U;
}

impl<T: Element, const N: usize, A: Access> ReinterpretAs for &CpuView<T, N, A> {
    #[track_caller]
    fn reinterpret_load<U: Words>(self, k: impl WordIndex, _: U) -> U {
        let k = k.position();
        let mut out = U::zeroed();
        let bytes = bytemuck::bytes_of_mut(&mut out);
        for j in 0..U::WORDS {
            let w = self.mem.words_held()[self.reinterpreted_word(k, U::WORDS, j)]
                .load(Ordering::Relaxed);
            bytes[4 * j..4 * j + 4].copy_from_slice(&w.to_ne_bytes());
        }
        out
    }
}

/// A value written through a view made with `reinterpret_as` inside a
/// kernel (`w[k] = v`); only writable views have it.
#[diagnostic::on_unimplemented(
    message = "cannot write to a read-only view (`ArrayView<T, N, ReadOnly>`) in a kernel",
    label = "read-only view written here",
    note = "capture an `ArrayView<_, _, ReadWrite>` (from `ArrayView::new_mut`) to write results"
)]
pub trait ReinterpretStore: Copy {
    /// Stores `value`'s words at position `k` (the value first, as Rust
    /// evaluates `w[k] = value`).
    fn reinterpret_store<U: Words>(self, value: U, k: impl WordIndex);
}

// Every access and element type, as `Store` (`assert_reinterpretable`
// refuses other element types where the kernel is written).
impl<T: Element, const N: usize, A: Access> ReinterpretStore for &CpuView<T, N, A> {
    #[track_caller]
    fn reinterpret_store<U: Words>(self, value: U, k: impl WordIndex) {
        let k = k.position();
        assert!(A::WRITABLE, "a kernel wrote a read-only view");
        let bytes = bytemuck::bytes_of(&value);
        for j in 0..U::WORDS {
            let word = u32::from_ne_bytes([
                bytes[4 * j],
                bytes[4 * j + 1],
                bytes[4 * j + 2],
                bytes[4 * j + 3],
            ]);
            self.mem.words_held()[self.reinterpreted_word(k, U::WORDS, j)]
                .store(word, Ordering::Relaxed);
        }
    }
}

/// A read of a captured value by index, as generated code spells
/// `name[idx]`: an element of a container, or a component of an
/// `Index`/`Extent` captured by value.
pub trait Load<I>: Copy {
    /// What the read gives.
    type Output;
    /// The element or component at `idx`.
    fn load_at(self, idx: I) -> Self::Output;
}

impl<T: Element, const N: usize, A: Access, I: IntoIndex<N>> Load<I> for &CpuView<T, N, A> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn load_at(self, idx: I) -> T {
        self.load(idx)
    }
}

impl<const N: usize, I: ops::CastTo<usize>> Load<I> for Index<N> {
    type Output = i32;
    #[inline(always)]
    fn load_at(self, idx: I) -> i32 {
        self[idx.cast()]
    }
}

impl<const N: usize, I: ops::CastTo<usize>> Load<I> for crate::Extent<N> {
    type Output = i32;
    #[inline(always)]
    fn load_at(self, idx: I) -> i32 {
        self[idx.cast()]
    }
}

/// The unit in which memory holding `T` is addressed: the element's size
/// for 1- and 2-byte elements (`u8`, `i8`, `u16`, `i16`, `f16`), else 4
/// (elements are whole 32-bit words).
#[inline(always)]
const fn unit<T>() -> usize {
    if size_of::<T>() < 4 {
        size_of::<T>()
    } else {
        4
    }
}

/// The `T` at unit `u` of `words` (see [`unit`]).
#[inline(always)]
fn load_elem<T: Element>(words: &[std::sync::atomic::AtomicU32], u: usize) -> T {
    let size = size_of::<T>();
    if size < 4 {
        let per = 4 / size;
        let bytes = words[u / per].load(Ordering::Relaxed).to_ne_bytes();
        let at = (u % per) * size;
        bytemuck::pod_read_unaligned(&bytes[at..at + size])
    } else {
        load_words(&words[u..u + size / 4])
    }
}

/// Writes `value` at unit `u` of `words`. An element smaller than a word
/// shares it with neighbours that other work items may write at the same
/// time, so it is merged in with a compare-and-swap.
#[inline(always)]
fn store_elem<T: Element>(words: &[std::sync::atomic::AtomicU32], u: usize, value: T) {
    let size = size_of::<T>();
    if size < 4 {
        let per = 4 / size;
        let new = bytemuck::bytes_of(&value);
        let at = (u % per) * size;
        let _ = words[u / per].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
            let mut bytes = old.to_ne_bytes();
            bytes[at..at + size].copy_from_slice(new);
            Some(u32::from_ne_bytes(bytes))
        });
    } else {
        store_words(&words[u..u + size_of::<T>() / 4], value);
    }
}

/// The value of `T` held in `words` (relaxed atomic loads: racing kernels
/// stay defined behaviour).
#[inline(always)]
fn load_words<T: Element>(words: &[std::sync::atomic::AtomicU32]) -> T {
    let mut value = T::zeroed();
    let bytes = bytemuck::bytes_of_mut(&mut value);
    if let [word] = words {
        bytes.copy_from_slice(&word.load(Ordering::Relaxed).to_ne_bytes());
    } else {
        for (chunk, word) in bytes.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&word.load(Ordering::Relaxed).to_ne_bytes());
        }
    }
    value
}

/// Writes `value` to `words` (relaxed atomic stores).
#[inline(always)]
fn store_words<T: Element>(words: &[std::sync::atomic::AtomicU32], value: T) {
    let bytes = bytemuck::bytes_of(&value);
    if let [word] = words {
        word.store(
            u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            Ordering::Relaxed,
        );
    } else {
        for (chunk, word) in bytes.chunks_exact(4).zip(words) {
            word.store(
                u32::from_ne_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]),
                Ordering::Relaxed,
            );
        }
    }
}

/// Writing a container element in a CPU kernel; only writable views have it.
#[diagnostic::on_unimplemented(
    message = "cannot write to a read-only view (`ArrayView<T, N, ReadOnly>`) in a kernel",
    label = "read-only view written here",
    note = "capture an `ArrayView<_, _, ReadWrite>` (from `ArrayView::new_mut`) to write results"
)]
pub trait Store<T, const N: usize> {
    /// Writes `value` at `idx`.
    fn store(&self, idx: impl IntoIndex<N>, value: T);
}

/// The access of a view that a `#[kernel]` function writes through: only
/// [`ReadWrite`]. A read-only view passed for such a parameter is reported
/// in the user's terms.
#[diagnostic::on_unimplemented(
    message = "a read-only view is passed to a `#[kernel]` function parameter that writes through it",
    label = "a read-only view (`ArrayView<T, N, ReadOnly>`)",
    note = "pass a writable view (`ArrayView::new_mut`, `Array::view`), or take `&ArrayView<'_, T, N, ReadOnly>` where the function only reads"
)]
pub trait WritableAccess: crate::Access {}

impl WritableAccess for ReadWrite {}

// Every access: kernels that write a read-only view do not compile
// (`assert_writable` at the write, on the user's type); the assertion
// guards the CPU form's memory all the same.
impl<T: Element, const N: usize, A: Access> Store<T, N> for CpuView<T, N, A> {
    #[inline]
    #[track_caller]
    fn store(&self, idx: impl IntoIndex<N>, value: T) {
        assert!(A::WRITABLE, "a kernel wrote a read-only view");
        store_elem(self.mem.words_held(), self.word(idx.into_index()), value);
    }
}

/// The element an atomic operation applies to (`&a[idx]` as the first
/// argument of `atomic_fetch_add` and the others); only writable views and
/// `tile_static` arrays of `i32`, `u32` and `f32` have it.
#[diagnostic::on_unimplemented(
    message = "an atomic operation writes: its element must be one of a writable view or array, not of a read-only view",
    label = "an element of a read-only view",
    note = "atomics write: capture an `ArrayView<_, _, ReadWrite>` (from `ArrayView::new_mut`) of `i32`, `u32` or `f32`"
)]
pub trait AtomicAccess<T, const N: usize> {
    /// The element at `idx`.
    fn atomic(&self, idx: impl IntoIndex<N>) -> crate::atomic::AtomicRef<'_, T>;
}

// Every access, as `Store`.
impl<T: Element, const N: usize, A: Access> AtomicAccess<T, N> for CpuView<T, N, A> {
    #[inline]
    #[track_caller]
    fn atomic(&self, idx: impl IntoIndex<N>) -> crate::atomic::AtomicRef<'_, T> {
        assert!(A::WRITABLE, "a kernel wrote a read-only view");
        let w = self.word(idx.into_index());
        crate::atomic::AtomicRef::shared(&self.mem.words_held()[w])
    }
}

#[diagnostic::do_not_recommend]
impl<E: Element, const D: usize> AtomicAccess<E, D> for TileArray<'_, E, D> {
    fn atomic(&self, idx: impl IntoIndex<D>) -> crate::atomic::AtomicRef<'_, E> {
        let range = self.word_range(&idx.into_index());
        crate::atomic::AtomicRef::shared(&self.words[range.start])
    }
}

mod index;
pub use index::IntoIndex;

/// Kernel arithmetic with WGSL's (and release Rust's) semantics.
pub mod ops;

/// The `tile_static` memory of one tile on the CPU accelerator: words shared
/// by the tile's work items (atomics with relaxed ordering, so that racing
/// kernels stay defined behaviour; barriers order them).
pub struct TileMemory {
    words: Box<[std::sync::atomic::AtomicU32]>,
}

impl TileMemory {
    /// Memory for `bytes` of `tile_static` data.
    pub(crate) fn new(bytes: u32) -> TileMemory {
        TileMemory {
            words: (0..bytes.div_ceil(4))
                .map(|_| std::sync::atomic::AtomicU32::new(0))
                .collect(),
        }
    }

    /// The `tile_static` array of `E` with `dims` (most significant first)
    /// at word `offset`; the next array starts at the returned offset.
    ///
    /// # Panics
    ///
    /// If the arrays exceed the accelerator's `tile_static` memory (the
    /// launch reports it as an error).
    pub fn array<E: Element, const D: usize>(
        &self,
        offset: usize,
        dims: [usize; D],
    ) -> (TileArray<'_, E, D>, usize) {
        let words = (dims.iter().product::<usize>() * size_of::<E>()).div_ceil(4);
        assert!(
            offset + words <= self.words.len(),
            "tile_static arrays need more than the {} bytes of tile_static memory a tile has",
            self.words.len() * 4
        );
        (
            TileArray {
                words: &self.words[offset..offset + words],
                dims,
                _marker: std::marker::PhantomData,
            },
            offset + words,
        )
    }
}

/// A `tile_static` array as a CPU kernel sees it.
pub struct TileArray<'m, E: Element, const D: usize> {
    words: &'m [std::sync::atomic::AtomicU32],
    dims: [usize; D],
    _marker: std::marker::PhantomData<E>,
}

impl<E: Element, const D: usize> TileArray<'_, E, D> {
    /// The units (see [`unit`]) of the element at `idx`.
    #[track_caller]
    fn word_range(&self, idx: &Index<D>) -> std::ops::Range<usize> {
        let mut linear = 0usize;
        for d in 0..D {
            let i = idx[d];
            if i < 0 || i as usize >= self.dims[d] {
                out_of_bounds(
                    "tile_static index",
                    *idx,
                    "dimensions",
                    self.dims,
                    std::panic::Location::caller(),
                );
            }
            linear = linear * self.dims[d] + i as usize;
        }
        let w = size_of::<E>() / unit::<E>();
        linear * w..(linear + 1) * w
    }

    /// Reads the element at `idx`.
    #[track_caller]
    pub fn load(&self, idx: impl IntoIndex<D>) -> E {
        load_elem(self.words, self.word_range(&idx.into_index()).start)
    }
}

#[diagnostic::do_not_recommend]
impl<E: Element, const D: usize> Store<E, D> for TileArray<'_, E, D> {
    #[track_caller]
    fn store(&self, idx: impl IntoIndex<D>, value: E) {
        store_elem(self.words, self.word_range(&idx.into_index()).start, value);
    }
}

/// The barrier of one tile's work items on the CPU accelerator. A panic in
/// any work item aborts it, so that no other work item waits forever.
pub(crate) struct TileGate {
    state: parking_lot::Mutex<GateState>,
    cv: parking_lot::Condvar,
    /// The `tile_static` memory of `#[kernel]` functions, by function
    /// instance and declaration: made by the first work item that reaches
    /// the declaration, shared by the tile's others.
    #[allow(clippy::type_complexity)]
    functions: parking_lot::Mutex<std::collections::HashMap<(&'static str, u32), Arc<TileMemory>>>,
}

struct GateState {
    arrived: usize,
    members: usize,
    generation: u64,
    aborted: bool,
}

impl TileGate {
    pub(crate) fn new(members: usize) -> TileGate {
        TileGate {
            state: parking_lot::Mutex::new(GateState {
                arrived: 0,
                members,
                generation: 0,
                aborted: false,
            }),
            cv: parking_lot::Condvar::new(),
            functions: parking_lot::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Makes every waiter (now and later) return at once.
    pub(crate) fn abort(&self) {
        self.state.lock().aborted = true;
        self.cv.notify_all();
    }

    pub(crate) fn aborted(&self) -> bool {
        self.state.lock().aborted
    }
}

impl crate::TileSync for TileGate {
    fn function_tile_memory(
        &self,
        function: &'static str,
        id: u32,
        bytes: usize,
    ) -> Option<Arc<TileMemory>> {
        Some(Arc::clone(
            self.functions
                .lock()
                .entry((function, id))
                .or_insert_with(|| Arc::new(TileMemory::new(bytes as u32))),
        ))
    }

    fn wait(&self) {
        let mut st = self.state.lock();
        if st.aborted {
            return;
        }
        st.arrived += 1;
        if st.arrived == st.members {
            st.arrived = 0;
            st.generation += 1;
            self.cv.notify_all();
            return;
        }
        let generation = st.generation;
        while st.generation == generation && !st.aborted {
            self.cv.wait(&mut st);
        }
    }
}

/// What a kernel local holds: a value (every kernel type is `Copy`), not
/// the `&mut` result of a `#[kernel]` function bound without a use that
/// tells it is one (`*r`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is the `&mut` result of a #[kernel] function, bound as a value: read and write it as `*r`",
    label = "a `&mut` result, used as a value",
    note = "a kernel learns which `&mut` argument a function's result refers to where the result is dereferenced (`let r = f(&mut a, &mut b); *r += 1;`); it cannot be passed on to another function"
)]
pub trait KernelValue {}

impl<T: Copy> KernelValue for T {}

/// `v` itself, checked to be a [`KernelValue`] (the CPU form of a `let`
/// bound to a call that passes `&mut` arguments).
#[inline(always)]
pub fn value<T: KernelValue>(v: T) -> T {
    v
}

/// The index of linear position `k` in row-major order of extent `e`, with
/// WGSL's `%` and `/` (a zero extent cannot reach a kernel).
pub(crate) fn delinearize<const N: usize>(e: [i32; N], mut k: i32) -> crate::Index<N> {
    let mut r = [0i32; N];
    for d in (1..N).rev() {
        r[d] = k.checked_rem(e[d]).unwrap_or(0);
        k = k.checked_div(e[d]).unwrap_or(k);
    }
    if N > 0 {
        r[0] = k;
    }
    crate::Index::new(r)
}
