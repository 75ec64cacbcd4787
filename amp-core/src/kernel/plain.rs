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
//! it also emits a *plain* form of the body, in which the accesses of those
//! captures at the work item's own index go through [`PlainView`]s: plain
//! loads and stores through a pointer, with no bounds check (the launch
//! checked once that the view covers the domain). Every other access is the
//! atomic form's code, token for token, so that a mistake in the kernel is
//! reported once: rustc merges identical errors of the two forms. The launch runs the plain form when
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
use crate::kernel::native::CpuView;
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
    /// The word of the element at the own index, which the launch proved
    /// in bounds (the view covers the domain).
    #[inline(always)]
    fn own_word<const K: usize>(&self, own: &Own<'_, K>) -> usize {
        // The plan grants plain views only for a domain of the view's rank;
        // a body of another rank does not compile in the atomic form, and
        // its plain form never runs.
        assert!(K == N, "a plain view indexed with another rank");
        let mut w = self.base;
        for d in 0..N {
            w += own.idx[d] as usize * self.word_strides[d];
        }
        w
    }
}

/// An access at the work item's own index in the plain form of a kernel.
pub trait PlainOwn<const K: usize> {
    /// The element type.
    type Elem;
    /// Reads the element at the work item's own index.
    fn load_own(&self, own: &Own<'_, K>) -> Self::Elem;
    /// Writes the element at the work item's own index.
    fn store_own(&self, own: &Own<'_, K>, value: Self::Elem);
}

impl<T: Element, const N: usize, const K: usize> PlainOwn<K> for PlainView<T, N> {
    type Elem = T;

    #[inline(always)]
    fn load_own(&self, own: &Own<'_, K>) -> T {
        let w = self.own_word(own);
        // SAFETY: `w` is the first word of an element of the view, inside
        // the memory (the view's layout lies in it, and the own index lies
        // in the domain, which the view covers); the plan's pass and the
        // macro's proof exclude concurrent writes.
        unsafe { self.words.add(w).cast::<T>().read_unaligned() }
    }

    #[inline(always)]
    fn store_own(&self, own: &Own<'_, K>, value: T) {
        let w = self.own_word(own);
        // SAFETY: as in `load_own`; only this work item accesses the
        // element (the own index and the view's layout are injective, and
        // the plain writer's pass excludes every other access).
        unsafe { self.words.add(w).cast::<T>().write_unaligned(value) }
    }
}

/// A capture the plan may read plainly: a container (its [`PlainView`]),
/// or an `Index`/`Extent` captured by value (itself).
pub trait PlainRead<const M: usize> {
    /// What the plain form's body gets.
    type Plain;
    /// Asks `plan` for plain read access at the work item's own index.
    fn plain_read(&self, plan: &mut Plan<'_, M>, capture: usize) -> Self::Plain;
}

impl<T: Element, const N: usize, A: Access, const M: usize> PlainRead<M> for &CpuView<T, N, A> {
    type Plain = PlainView<T, N>;
    fn plain_read(&self, plan: &mut Plan<'_, M>, capture: usize) -> PlainView<T, N> {
        plan.view(self, capture, Mode::PlainRead)
    }
}

impl<const N: usize, const M: usize> PlainRead<M> for Index<N> {
    type Plain = Index<N>;
    fn plain_read(&self, _: &mut Plan<'_, M>, _: usize) -> Index<N> {
        *self
    }
}

impl<const N: usize, const M: usize> PlainRead<M> for Extent<N> {
    type Plain = Extent<N>;
    fn plain_read(&self, _: &mut Plan<'_, M>, _: usize) -> Extent<N> {
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
        self.view(view, capture, Mode::PlainWrite)
    }

    /// Asks for plain access to `view` in `mode`; the view is unusable
    /// (and the plan refused) if a check or the gate refuses.
    fn view<T: Element, const N: usize, A: Access>(
        &mut self,
        view: &CpuView<T, N, A>,
        capture: usize,
        mode: Mode,
    ) -> PlainView<T, N> {
        let refused = PlainView {
            words: std::ptr::null_mut(),
            _mem: None,
            base: 0,
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
            || !covers
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

#[cfg(test)]
mod tests {
    use super::injective;

    #[test]
    fn row_major_layouts_and_sections_are_injective_overlaps_are_not() {
        // A dense 3x4 array of one-word elements.
        assert!(injective(&[3, 4], &[4, 1], 1));
        // A section of its middle columns (rows still 4 words apart).
        assert!(injective(&[3, 2], &[4, 1], 1));
        // Rows that overlap: 4 elements per row, 2 words apart.
        assert!(!injective(&[3, 4], &[2, 1], 1));
        // Two-word elements one word apart.
        assert!(!injective(&[5], &[1], 2));
        assert!(injective(&[5], &[2], 2));
        // A dimension of one is never stepped along.
        assert!(injective(&[1, 4], &[0, 1], 1));
    }
}
