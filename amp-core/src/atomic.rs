//! Atomic operations on container and `tile_static` elements, with C++ AMP's
//! names; see [`AtomicRef`] for the kernel form and an example.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};

/// An element an atomic operation applies to: `&a[idx]` in a kernel.
///
/// Made by the kernel macros from the first argument of an atomic function;
/// it has no public constructor, since atomics exist only in kernels.
///
/// C++ AMP's atomic functions (`concurrency::atomic_fetch_add`, ...) are
/// [`atomic_fetch_add`] and its siblings here.
///
/// Inside a kernel, the first argument is written `&a[idx]`: an element of a
/// captured writable view or array, or of a `tile_static` array, of `i32`,
/// `u32` (every operation) or `f32` (add, sub and exchange). Each function
/// returns the value the element held before, as C++ AMP's do. On a GPU the
/// kernel uses WGSL's atomics (a compare-exchange loop for `f32`, so that it
/// needs no adapter feature); on the CPU accelerator, the processor's. The
/// memory order is relaxed, as in WGSL: atomics order nothing but
/// themselves; a tile barrier orders the rest.
///
/// The functions exist only inside kernels (C++ AMP's are `restrict(amp)`):
/// an `AtomicRef` cannot be made on the host.
///
/// # Examples
///
/// A histogram, one atomic increment per input element:
///
/// ```
/// use amp_core::prelude::*;
///
/// let view = Accelerator::cpu().create_view(QueuingMode::Immediate);
/// let data: Vec<u32> = (0..1000).map(|i| (i * 7919) % 16).collect();
/// let mut hist = vec![0u32; 16];
/// {
///     let d = ArrayView::from_slice(&data)?;
///     let h = ArrayView::from_slice_mut(&mut hist)?;
///     parallel_for_each!(view, d.extent(), |i: Index<1>| {
///         let bin = d[i] as i32;
///         atomic_fetch_inc(&h[[bin]]);
///     })?;
///     h.synchronize()?;
/// }
/// let mut expected = vec![0u32; 16];
/// data.iter().for_each(|&b| expected[b as usize] += 1);
/// assert_eq!(hist, expected);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub struct AtomicRef<'a, T> {
    slot: Slot<'a, T>,
}

enum Slot<'a, T> {
    /// Memory that other threads may access at the same time.
    Shared(&'a AtomicU32),
    /// Memory of one thread (the CPU accelerator's split tiled kernels run
    /// a whole tile on one thread).
    Local(&'a Cell<T>),
}

impl<'a, T> AtomicRef<'a, T> {
    /// The element held in `word`.
    pub(crate) fn shared(word: &'a AtomicU32) -> Self {
        AtomicRef {
            slot: Slot::Shared(word),
        }
    }

    /// The element held in `cell`, which only this thread accesses.
    pub(crate) fn local(cell: &'a Cell<T>) -> Self {
        AtomicRef {
            slot: Slot::Local(cell),
        }
    }
}

impl<T: AtomicElement> AtomicRef<'_, T> {
    /// Replaces the element by `f(old)`, atomically; returns `old`.
    #[inline]
    fn update(&self, f: impl Fn(T) -> T) -> T {
        match self.slot {
            Slot::Shared(word) => {
                let old = word
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
                        Some(f(T::from_word(w)).to_word())
                    })
                    .unwrap_or_else(|w| w);
                T::from_word(old)
            }
            Slot::Local(cell) => {
                let old = cell.get();
                cell.set(f(old));
                old
            }
        }
    }

    /// Applies a word operation the processor has (`fetch_add`, ...).
    #[inline]
    fn word_op(&self, shared: impl Fn(&AtomicU32) -> u32, local: impl Fn(T) -> T) -> T {
        match self.slot {
            Slot::Shared(word) => T::from_word(shared(word)),
            Slot::Local(cell) => {
                let old = cell.get();
                cell.set(local(old));
                old
            }
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for f32 {}
}

/// The element types of atomic operations: `i32`, `u32` and `f32`.
#[diagnostic::on_unimplemented(
    message = "atomic operations apply to `i32`, `u32` and `f32` elements, not `{Self}`",
    label = "`{Self}` has no atomic operations",
    note = "C++ AMP's atomics are on 32-bit integers (and `f32` for exchange); GPUs have no 64-bit or struct atomics in WGSL"
)]
pub trait AtomicElement: crate::Element + Copy + sealed::Sealed {
    #[doc(hidden)]
    fn to_word(self) -> u32;
    #[doc(hidden)]
    fn from_word(w: u32) -> Self;
    #[doc(hidden)]
    fn add(self, v: Self) -> Self;
    #[doc(hidden)]
    fn sub(self, v: Self) -> Self;
    #[doc(hidden)]
    const IS_FLOAT: bool;
}

/// The integer element types of atomic operations: `i32` and `u32` (bitwise
/// operations, minimum, maximum, increment, decrement, compare-exchange).
#[diagnostic::on_unimplemented(
    message = "this atomic operation applies to `i32` and `u32` elements, not `{Self}`",
    label = "not `i32` or `u32`",
    note = "on `f32` elements, atomics add, subtract and exchange"
)]
pub trait AtomicInteger: AtomicElement + Ord {
    #[doc(hidden)]
    const ONE: Self;
}

impl AtomicElement for i32 {
    fn to_word(self) -> u32 {
        self as u32
    }
    fn from_word(w: u32) -> Self {
        w as i32
    }
    fn add(self, v: Self) -> Self {
        self.wrapping_add(v)
    }
    fn sub(self, v: Self) -> Self {
        self.wrapping_sub(v)
    }
    const IS_FLOAT: bool = false;
}

impl AtomicElement for u32 {
    fn to_word(self) -> u32 {
        self
    }
    fn from_word(w: u32) -> Self {
        w
    }
    fn add(self, v: Self) -> Self {
        self.wrapping_add(v)
    }
    fn sub(self, v: Self) -> Self {
        self.wrapping_sub(v)
    }
    const IS_FLOAT: bool = false;
}

impl AtomicElement for f32 {
    fn to_word(self) -> u32 {
        self.to_bits()
    }
    fn from_word(w: u32) -> Self {
        f32::from_bits(w)
    }
    fn add(self, v: Self) -> Self {
        self + v
    }
    fn sub(self, v: Self) -> Self {
        self - v
    }
    const IS_FLOAT: bool = true;
}

impl AtomicInteger for i32 {
    const ONE: Self = 1;
}

impl AtomicInteger for u32 {
    const ONE: Self = 1;
}

/// Adds `value` to the element (integers wrap); returns its old value.
///
/// Corresponds to C++ AMP `atomic_fetch_add`. `f32` is accepted too: on a
/// GPU through a compare-exchange loop, so that it needs no adapter feature.
/// See [`AtomicRef`] for the kernel form.
pub fn atomic_fetch_add<T: AtomicElement>(dest: AtomicRef<'_, T>, value: T) -> T {
    if T::IS_FLOAT {
        dest.update(|old| old.add(value))
    } else {
        dest.word_op(
            |w| w.fetch_add(value.to_word(), Ordering::Relaxed),
            |old| old.add(value),
        )
    }
}

/// Subtracts `value` from the element (integers wrap); returns its old
/// value.
///
/// Corresponds to C++ AMP `atomic_fetch_sub`.
pub fn atomic_fetch_sub<T: AtomicElement>(dest: AtomicRef<'_, T>, value: T) -> T {
    if T::IS_FLOAT {
        dest.update(|old| old.sub(value))
    } else {
        dest.word_op(
            |w| w.fetch_sub(value.to_word(), Ordering::Relaxed),
            |old| old.sub(value),
        )
    }
}

/// Adds one to the element (wrapping); returns its old value.
///
/// Corresponds to C++ AMP `atomic_fetch_inc`.
pub fn atomic_fetch_inc<T: AtomicInteger>(dest: AtomicRef<'_, T>) -> T {
    atomic_fetch_add(dest, T::ONE)
}

/// Subtracts one from the element (wrapping); returns its old value.
///
/// Corresponds to C++ AMP `atomic_fetch_dec`.
pub fn atomic_fetch_dec<T: AtomicInteger>(dest: AtomicRef<'_, T>) -> T {
    atomic_fetch_sub(dest, T::ONE)
}

/// Replaces the element by `value & element`; returns its old value.
///
/// Corresponds to C++ AMP `atomic_fetch_and`.
pub fn atomic_fetch_and<T: AtomicInteger>(dest: AtomicRef<'_, T>, value: T) -> T {
    let v = value.to_word();
    dest.word_op(
        |w| w.fetch_and(v, Ordering::Relaxed),
        |old| T::from_word(old.to_word() & v),
    )
}

/// Replaces the element by `value | element`; returns its old value.
///
/// Corresponds to C++ AMP `atomic_fetch_or`.
pub fn atomic_fetch_or<T: AtomicInteger>(dest: AtomicRef<'_, T>, value: T) -> T {
    let v = value.to_word();
    dest.word_op(
        |w| w.fetch_or(v, Ordering::Relaxed),
        |old| T::from_word(old.to_word() | v),
    )
}

/// Replaces the element by `value ^ element`; returns its old value.
///
/// Corresponds to C++ AMP `atomic_fetch_xor`.
pub fn atomic_fetch_xor<T: AtomicInteger>(dest: AtomicRef<'_, T>, value: T) -> T {
    let v = value.to_word();
    dest.word_op(
        |w| w.fetch_xor(v, Ordering::Relaxed),
        |old| T::from_word(old.to_word() ^ v),
    )
}

/// Replaces the element by the smaller of it and `value`; returns its old
/// value.
///
/// Corresponds to C++ AMP `atomic_fetch_min`.
pub fn atomic_fetch_min<T: AtomicInteger>(dest: AtomicRef<'_, T>, value: T) -> T {
    dest.update(|old| old.min(value))
}

/// Replaces the element by the larger of it and `value`; returns its old
/// value.
///
/// Corresponds to C++ AMP `atomic_fetch_max`.
pub fn atomic_fetch_max<T: AtomicInteger>(dest: AtomicRef<'_, T>, value: T) -> T {
    dest.update(|old| old.max(value))
}

/// Replaces the element by `value`; returns its old value.
///
/// Corresponds to C++ AMP `atomic_exchange` (`f32` included).
pub fn atomic_exchange<T: AtomicElement>(dest: AtomicRef<'_, T>, value: T) -> T {
    let v = value.to_word();
    dest.word_op(|w| w.swap(v, Ordering::Relaxed), |_| value)
}

/// If the element equals `*expected`, replaces it by `value` and returns
/// `true`; otherwise stores the element's value in `*expected` and returns
/// `false`.
///
/// Corresponds to C++ AMP `atomic_compare_exchange`. `expected` is a local
/// variable of the kernel (`&mut expected`). The exchange is strong: it
/// fails only when the values differ.
pub fn atomic_compare_exchange<T: AtomicInteger>(
    dest: AtomicRef<'_, T>,
    expected: &mut T,
    value: T,
) -> bool {
    let (want, new) = (expected.to_word(), value.to_word());
    let result = match dest.slot {
        Slot::Shared(w) => w
            .compare_exchange(want, new, Ordering::Relaxed, Ordering::Relaxed)
            .map_err(T::from_word),
        Slot::Local(cell) => {
            let old = cell.get();
            if old == *expected {
                cell.set(value);
                Ok(want)
            } else {
                Err(old)
            }
        }
    };
    match result {
        Ok(_) => true,
        Err(old) => {
            *expected = old;
            false
        }
    }
}
