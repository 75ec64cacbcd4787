//! Plain memory for CPU launches that cannot race.
//!
//! The CPU accelerator's containers are words read and written with
//! relaxed atomics ([`CpuView`]), which keeps every kernel defined
//! behaviour but stops LLVM from vectorising or even reordering the
//! accesses. Where the macro proves, for a non-tiled kernel, that a
//! capture is
//!
//! - only read (`Read`): no work item of the launch writes it, or
//! - read and written only at the work item's own index (`Own`: `v[idx]`
//!   with the kernel's index parameter; the index is injective over the
//!   domain, so no two work items touch one element),
//!
//! it also emits a *plain* form of the body, in which those captures are
//! [`PlainView`]s: plain loads and stores through a pointer, with no bounds
//! check for accesses at the work item's own index (the launch checked once
//! that the view covers the domain). The launch runs the plain form when
//! its [`Plan`] obtains, without waiting, a pass of every memory's gate in
//! the mode it needs (see `backend::cpu_gate`): a plain writer excludes
//! every other access to its memory, this launch's other captures
//! included, and a plain reader excludes every writer. Otherwise it runs
//! the atomic form as before.
//!
//! The soundness argument is in docs/ARCHITECTURE.md ("Plain memory on the
//! CPU accelerator").

use std::marker::PhantomData;
use std::sync::Arc;

use crate::backend::cpu_gate::{Mode, Pass};
use crate::backend::storage::CpuMem;
use crate::kernel::native::{CpuView, IntoIndex, Load};
use crate::{Access, Element, Extent, Index};

/// The work item's own index in the plain form of a kernel: made only by
/// the launch, for indices of its domain.
pub struct Own<'a, const N: usize> {
    idx: Index<N>,
    _launch: PhantomData<&'a ()>,
}

impl<const N: usize> Own<'_, N> {
    /// The own index `idx` (the launch's runner: an index of its domain).
    #[inline(always)]
    pub(crate) fn new(idx: Index<N>) -> Self {
        Own {
            idx,
            _launch: PhantomData,
        }
    }

    /// Moves to `i` along the innermost dimension (within the domain).
    #[inline(always)]
    pub(crate) fn set_inner(&mut self, i: i32) {
        self.idx[N - 1] = i;
    }

    /// The index (the kernel's index parameter).
    #[inline(always)]
    pub fn index(&self) -> Index<N> {
        self.idx
    }
}

/// A container a plain launch reads (or, at the work item's own index,
/// writes) with plain loads and stores.
///
/// Made only by a [`Plan`] that holds a pass of the memory's gate in the
/// mode its accesses need, for the duration of the launch (the plain form
/// of a kernel never outlives it). Not `Clone`: the body borrows it.
pub struct PlainView<T: Element, const N: usize> {
    /// The memory's first word (from `AtomicU32::as_ptr`: plain accesses to
    /// atomics' storage are allowed while nothing accesses it concurrently).
    words: *mut u32,
    /// Keeps the memory alive.
    _mem: Option<Arc<CpuMem>>,
    base: usize,
    bounds: [i32; N],
    word_strides: [usize; N],
    _elem: PhantomData<T>,
}

// SAFETY: a `PlainView` is only used by the work items of the launch whose
// plan made it; the plan's pass excludes every conflicting access by any
// other thread, and the macro's proof excludes conflicting accesses among
// the work items (distinct elements for writes, no writes for reads).
unsafe impl<T: Element, const N: usize> Send for PlainView<T, N> {}
// SAFETY: as above.
unsafe impl<T: Element, const N: usize> Sync for PlainView<T, N> {}

impl<T: Element, const N: usize> PlainView<T, N> {
    /// The word of the element at `idx`, which the launch proved in bounds
    /// (the work item's own index, and the view covers the domain).
    #[inline(always)]
    fn own_word(&self, idx: Index<N>) -> usize {
        let mut w = self.base;
        for d in 0..N {
            w += idx[d] as usize * self.word_strides[d];
        }
        w
    }

    /// The word of the element at `idx`, checked.
    #[inline(always)]
    fn word(&self, idx: Index<N>) -> usize {
        for d in 0..N {
            if idx[d] as u32 >= self.bounds[d] as u32 {
                out_of_bounds(idx, self.bounds);
            }
        }
        self.own_word(idx)
    }

    #[inline(always)]
    fn read(&self, w: usize) -> T {
        // SAFETY: `w` is the first word of an element of the view, inside
        // the memory (the view's layout lies in it; `word`/`own_word`);
        // the plan's pass and the macro's proof exclude concurrent writes.
        unsafe { self.words.add(w).cast::<T>().read_unaligned() }
    }

    /// Reads the element at the work item's own index.
    #[inline(always)]
    pub fn load_own(&self, own: &Own<'_, N>) -> T {
        self.read(self.own_word(own.idx))
    }

    /// Writes the element at the work item's own index.
    #[inline(always)]
    pub fn store_own(&self, own: &Own<'_, N>, value: T) {
        let w = self.own_word(own.idx);
        // SAFETY: as in `read`; only this work item accesses the element
        // (the own index is injective and the plan's pass is exclusive).
        unsafe { self.words.add(w).cast::<T>().write_unaligned(value) }
    }

    /// Reads the element at `idx`.
    ///
    /// # Panics
    ///
    /// If `idx` is out of bounds (the launch reports it as an error).
    #[inline(always)]
    pub fn load(&self, idx: impl IntoIndex<N>) -> T {
        self.read(self.word(idx.into_index()))
    }
}

#[cold]
#[inline(never)]
fn out_of_bounds<const N: usize>(idx: Index<N>, bounds: [i32; N]) -> ! {
    panic!(
        "kernel index {idx} is out of bounds of extent {}",
        Extent::new(bounds)
    )
}

/// A load in the plain form of a kernel: `name[i]` of a capture the plan
/// reads plainly (a container) or by value (an `Index`, an `Extent`).
pub trait PlainLoad<I> {
    /// What the load gives.
    type Output;
    /// The element or component at `idx`.
    fn plain_load(&self, idx: I) -> Self::Output;
}

impl<T: Element, const N: usize, I: IntoIndex<N>> PlainLoad<I> for PlainView<T, N> {
    type Output = T;
    #[inline(always)]
    fn plain_load(&self, idx: I) -> T {
        self.load(idx)
    }
}

impl<const N: usize, I> PlainLoad<I> for Index<N>
where
    Index<N>: Load<I>,
{
    type Output = <Index<N> as Load<I>>::Output;
    #[inline(always)]
    fn plain_load(&self, idx: I) -> Self::Output {
        Load::load_at(*self, idx)
    }
}

impl<const N: usize, I> PlainLoad<I> for Extent<N>
where
    Extent<N>: Load<I>,
{
    type Output = <Extent<N> as Load<I>>::Output;
    #[inline(always)]
    fn plain_load(&self, idx: I) -> Self::Output {
        Load::load_at(*self, idx)
    }
}

/// A capture the plan may read plainly: a container (its [`PlainView`]),
/// or an `Index`/`Extent` captured by value (itself).
pub trait PlainRead<const M: usize> {
    /// What the plain form's body gets.
    type Plain;
    /// Asks `plan` for read access (`own_loads`: the body reads it at the
    /// work item's own index without a check).
    fn plain_read(&self, plan: &mut Plan<'_, M>, capture: usize, own_loads: bool) -> Self::Plain;
}

impl<T: Element, const N: usize, A: Access, const M: usize> PlainRead<M> for &CpuView<T, N, A> {
    type Plain = PlainView<T, N>;
    fn plain_read(
        &self,
        plan: &mut Plan<'_, M>,
        capture: usize,
        own_loads: bool,
    ) -> PlainView<T, N> {
        plan.view(self, capture, Mode::PlainRead, own_loads)
    }
}

impl<const N: usize, const M: usize> PlainRead<M> for Index<N> {
    type Plain = Index<N>;
    fn plain_read(&self, _: &mut Plan<'_, M>, _: usize, _: bool) -> Index<N> {
        *self
    }
}

impl<const N: usize, const M: usize> PlainRead<M> for Extent<N> {
    type Plain = Extent<N>;
    fn plain_read(&self, _: &mut Plan<'_, M>, _: usize, _: bool) -> Extent<N> {
        *self
    }
}

/// The plain form of one launch in the making: the passes it took, which
/// captures they cover, and whether every one was granted.
pub struct Plan<'m, const M: usize> {
    domain: Extent<M>,
    /// Per capture: a container's memory and whether the kernel's atomic
    /// form may write it (declared read-write), else `None` (scalars).
    mems: &'m [Option<(Arc<CpuMem>, bool)>],
    claimed: Vec<bool>,
    passes: Vec<Pass<'m>>,
    granted: bool,
}

impl<'m, const M: usize> Plan<'m, M> {
    pub(crate) fn new(domain: Extent<M>, mems: &'m [Option<(Arc<CpuMem>, bool)>]) -> Self {
        Plan {
            domain,
            claimed: vec![false; mems.len()],
            mems,
            passes: Vec::new(),
            granted: true,
        }
    }

    /// Asks for plain read and write access to `view` (capture `capture`),
    /// which the body reads and writes only at the work item's own index.
    pub fn own<T: Element, const N: usize, A: Access>(
        &mut self,
        view: &CpuView<T, N, A>,
        capture: usize,
    ) -> PlainView<T, N> {
        self.view(view, capture, Mode::PlainWrite, true)
    }

    /// Asks for plain access to `view` in `mode`; the view is unusable
    /// (and the plan refused) if a check or the gate refuses.
    fn view<T: Element, const N: usize, A: Access>(
        &mut self,
        view: &CpuView<T, N, A>,
        capture: usize,
        mode: Mode,
        own_accesses: bool,
    ) -> PlainView<T, N> {
        let refused = PlainView {
            words: std::ptr::null_mut(),
            _mem: None,
            base: 0,
            bounds: [0; N],
            word_strides: [0; N],
            _elem: PhantomData,
        };
        let parts = view.plain_parts();
        // Whole 32-bit words per element (2-byte elements share words with
        // their neighbours), and an own index that stays in bounds.
        let covers = N == M && (0..N).all(|d| parts.bounds[d] >= self.domain[d]);
        // The memory this capture is bound to (the gate's) must be the
        // view's own.
        let same =
            matches!(self.mems.get(capture), Some(Some((m, _))) if Arc::ptr_eq(m, parts.mem));
        if !self.granted
            || !size_of::<T>().is_multiple_of(4)
            || (own_accesses && !covers)
            || (mode == Mode::PlainWrite
                && !injective(&parts.bounds, &parts.word_strides, size_of::<T>() / 4))
            || !same
            || self.claimed[capture]
        {
            self.granted = false;
            return refused;
        }
        let Some((mem, _)) = &self.mems[capture] else {
            self.granted = false;
            return refused;
        };
        match mem.try_enter(mode) {
            Some(pass) => self.passes.push(pass),
            None => {
                self.granted = false;
                return refused;
            }
        }
        self.claimed[capture] = true;
        PlainView {
            words: mem.words_held().as_ptr().cast_mut().cast::<u32>(),
            _mem: Some(Arc::clone(mem)),
            base: parts.base,
            bounds: parts.bounds,
            word_strides: parts.word_strides,
            _elem: PhantomData,
        }
    }

    /// Takes atomic passes, without waiting, for the captures no plain
    /// view claimed; whether the whole plan was granted.
    pub(crate) fn finish(&mut self) -> bool {
        if !self.granted {
            return false;
        }
        for (i, m) in self.mems.iter().enumerate() {
            if let (Some((mem, write)), false) = (m, self.claimed[i]) {
                let mode = if *write {
                    Mode::AtomicWrite
                } else {
                    Mode::AtomicRead
                };
                match mem.try_enter(mode) {
                    Some(pass) => self.passes.push(pass),
                    None => {
                        self.granted = false;
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Gives every pass back.
    pub(crate) fn release(&mut self) {
        self.passes.clear();
    }
}

/// Whether distinct indices below `bounds` reach disjoint elements of
/// `units` words: each dimension's stride spans the whole of the
/// dimensions inside it.
fn injective<const N: usize>(bounds: &[i32; N], word_strides: &[usize; N], units: usize) -> bool {
    // The words one index of the dimensions inside `d` reaches lie in
    // `[0, span)` from its first; each step along `d` must clear them.
    let mut span = units;
    for d in (0..N).rev() {
        if bounds[d] > 1 {
            if word_strides[d] < span {
                return false;
            }
            span += word_strides[d] * (bounds[d] as usize - 1);
        }
    }
    true
}

/// Takes atomic passes for every container capture, waiting for plain
/// launches that exclude them (the atomic form's launch).
pub(crate) fn enter_atomic(mems: &[Option<(Arc<CpuMem>, bool)>]) -> Vec<Pass<'_>> {
    mems.iter()
        .flatten()
        .map(|(mem, write)| {
            mem.enter(if *write {
                Mode::AtomicWrite
            } else {
                Mode::AtomicRead
            })
        })
        .collect()
}

/// What a plan needs of a [`CpuView`]: where its elements lie.
pub(crate) struct PlainParts<'v, const N: usize> {
    pub(crate) mem: &'v Arc<CpuMem>,
    pub(crate) base: usize,
    pub(crate) bounds: [i32; N],
    pub(crate) word_strides: [usize; N],
}
