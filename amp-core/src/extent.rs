//! Multi-dimensional sizes: [`Extent<N>`](crate::Extent).
//!
//! An [`Extent<N>`](crate::Extent) is the shape of an `N`-dimensional compute
//! domain or array: the number of elements along each dimension, most
//! significant first (`[rows, columns]` for rank 2), exactly like C++ AMP's
//! `extent<N>`. The indices it contains run from `[0, 0, ...]` up to (but
//! excluding) its components, in row-major order.
//!
//! An extent may hold any `i32` values; whether it is usable as a compute
//! domain (all components positive) is checked where it is used, for example
//! by [`Extent::tile`](crate::Extent::tile) and
//! [`TiledExtent::new`](crate::TiledExtent::new).
//!
//! Arithmetic on extents is componentwise and *wrapping*, as it is inside
//! kernels: overflow never panics. Division and remainder by zero panic on the
//! CPU.

use core::fmt;
use core::iter::FusedIterator;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Index as IndexOp, IndexMut, Mul, MulAssign, Neg, Rem,
    RemAssign, Sub, SubAssign,
};

use crate::{Index, Result, TiledExtent};

/// The shape of an `N`-dimensional domain, most significant component first.
///
/// `Extent<N>` is a small `Copy` value type: a `[i32; N]` with the C++ AMP
/// operator set and the queries a compute domain needs ([`size`](Self::size),
/// [`contains`](Self::contains), row-major [`indices`](Self::indices), ...).
/// Any rank `N >= 1` is allowed; rank 0 is rejected at compile time.
///
/// Corresponds to C++ AMP `extent<N>`.
///
/// # Operators
///
/// All operators are componentwise and use wrapping arithmetic (overflow wraps
/// around in two's complement instead of panicking, as in kernels; in
/// particular `i32::MIN / -1 == i32::MIN` and `i32::MIN % -1 == 0`):
///
/// | Expression | Result |
/// |---|---|
/// | `ext + ext`, `ext - ext` | `Extent<N>` |
/// | `ext + idx`, `ext - idx` (with an [`Index<N>`]) | `Extent<N>` |
/// | `ext {+ - * / %} i32` | `Extent<N>` |
/// | `i32 {+ - * / %} ext` | `Extent<N>` (the scalar is the left operand of every component) |
/// | `ext += ext`, `ext -= ext`, `ext += idx`, `ext -= idx` | in place |
/// | `ext {+= -= *= /= %=} i32` | in place |
/// | `-ext` | `Extent<N>` |
///
/// C++ AMP's `++`/`--` are the methods [`inc`](Extent::inc),
/// [`post_inc`](Extent::post_inc), [`dec`](Extent::dec) and
/// [`post_dec`](Extent::post_dec).
///
/// # Panics
///
/// `/` and `%` (and `/=`, `%=`) panic if a divisor component is zero.
///
/// # Examples
///
/// ```
/// use amp_core::{Extent, Index};
///
/// let ext = Extent::new([3, 4]);
/// assert_eq!(ext.size(), 12);
/// assert!(ext.contains(&Index::new([2, 3])));
/// assert!(!ext.contains(&Index::new([3, 0])));
/// assert_eq!(ext * 2, Extent::new([6, 8]));
/// assert_eq!(ext + Index::new([1, 1]), Extent::new([4, 5]));
/// assert_eq!(ext.to_string(), "[3, 4]");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Extent<const N: usize>([i32; N]);

impl<const N: usize> Extent<N> {
    /// The rank (number of dimensions) `N`.
    ///
    /// Corresponds to C++ AMP `extent<N>::rank`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// assert_eq!(Extent::<3>::RANK, 3);
    /// ```
    pub const RANK: usize = N;

    /// Creates an extent from its components, most significant first.
    ///
    /// Any values are accepted; usability as a compute domain is checked
    /// where the extent is used. Corresponds to C++ AMP's
    /// `extent<N>(e0, e1, ...)` and `extent<N>(const int components[])`
    /// constructors. Rank 0 does not compile.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let ext = Extent::new([2, 5]);
    /// assert_eq!(ext.to_array(), [2, 5]);
    /// ```
    ///
    /// Rank 0 is a compile-time error:
    ///
    /// ```compile_fail,E0080
    /// let _ = amp_core::Extent::<0>::new([]);
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(components: [i32; N]) -> Self {
        const { assert!(N >= 1, "Extent<N> needs a rank N >= 1") };
        Self(components)
    }

    /// Returns the rank (number of dimensions) `N`.
    ///
    /// The same as [`Extent::RANK`]. Corresponds to C++ AMP `extent<N>::rank`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// assert_eq!(Extent::<2>::rank(), 2);
    /// ```
    #[inline]
    #[must_use]
    pub const fn rank() -> usize {
        N
    }

    /// Returns the components as an array, most significant first.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// assert_eq!(Extent::new([1, 2, 3]).to_array(), [1, 2, 3]);
    /// ```
    #[inline]
    #[must_use]
    pub const fn to_array(self) -> [i32; N] {
        self.0
    }

    /// Borrows the components as an array, most significant first.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let ext = Extent::new([4, 5]);
    /// assert_eq!(ext.as_array().iter().max(), Some(&5));
    /// ```
    #[inline]
    #[must_use]
    pub const fn as_array(&self) -> &[i32; N] {
        &self.0
    }

    /// Returns whether every component is positive, i.e. whether the extent
    /// is a non-empty compute domain.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// assert!(Extent::new([3, 4]).is_positive());
    /// assert!(!Extent::new([3, 0]).is_positive());
    /// assert!(!Extent::new([-3, 4]).is_positive());
    /// ```
    #[inline]
    #[must_use]
    pub fn is_positive(&self) -> bool {
        self.0.iter().all(|&c| c > 0)
    }

    /// Returns whether `idx` lies inside this extent: `0 <= idx[i] < self[i]`
    /// for every dimension `i`.
    ///
    /// Corresponds to C++ AMP `extent<N>::contains`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Extent, Index};
    ///
    /// let ext = Extent::new([2, 3]);
    /// assert!(ext.contains(&Index::new([0, 0])));
    /// assert!(ext.contains(&Index::new([1, 2])));
    /// assert!(!ext.contains(&Index::new([1, 3])));
    /// assert!(!ext.contains(&Index::new([-1, 0])));
    /// ```
    #[inline]
    #[must_use]
    pub fn contains(&self, idx: &Index<N>) -> bool {
        self.0
            .iter()
            .zip(idx.as_array())
            .all(|(&e, &i)| 0 <= i && i < e)
    }

    /// Returns the number of indices in the extent: the product of its
    /// components.
    ///
    /// The product is computed without overflow and saturates at `u64::MAX`
    /// (possible from rank 3 on). An extent with a zero or negative component
    /// has size 0. Use [`checked_size`](Self::checked_size) to tell saturation
    /// and negative components apart.
    ///
    /// Corresponds to C++ AMP `extent<N>::size()` (which returns a possibly
    /// overflowing `unsigned int`).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// assert_eq!(Extent::new([3, 4, 5]).size(), 60);
    /// assert_eq!(Extent::new([3, -4]).size(), 0);
    /// assert_eq!(Extent::new([i32::MAX; 3]).size(), u64::MAX);
    /// ```
    #[must_use]
    pub fn size(&self) -> u64 {
        if !self.is_positive() {
            return 0;
        }
        let mut product: u128 = 1;
        for &c in &self.0 {
            // `product <= u64::MAX` and `c < 2^31`, so this fits in u128.
            product *= c as u128;
            if product > u64::MAX as u128 {
                return u64::MAX;
            }
        }
        product as u64
    }

    /// Returns the number of indices in the extent, or `None` if a component
    /// is negative or the product does not fit in a `u64`.
    ///
    /// An extent with a zero component (and no negative one) has size
    /// `Some(0)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// assert_eq!(Extent::new([3, 4]).checked_size(), Some(12));
    /// assert_eq!(Extent::new([0, i32::MAX]).checked_size(), Some(0));
    /// assert_eq!(Extent::new([-1, 4]).checked_size(), None);
    /// assert_eq!(Extent::new([i32::MAX; 3]).checked_size(), None);
    /// ```
    #[must_use]
    pub fn checked_size(&self) -> Option<u64> {
        if self.0.iter().any(|&c| c < 0) {
            return None;
        }
        if self.0.contains(&0) {
            return Some(0);
        }
        self.0
            .iter()
            .try_fold(1u64, |product, &c| product.checked_mul(c as u64))
    }

    /// Returns an iterator over every index of the extent in row-major order
    /// (the last component varies fastest).
    ///
    /// The iterator is empty if a component is zero or negative. It knows its
    /// exact length (`ExactSizeIterator`); for an extent of more than
    /// `usize::MAX` indices, which can never be iterated to its end, the
    /// length saturates at `usize::MAX`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Extent, Index};
    ///
    /// let all: Vec<Index<2>> = Extent::new([2, 2]).indices().collect();
    /// assert_eq!(
    ///     all,
    ///     [[0, 0], [0, 1], [1, 0], [1, 1]].map(Index::new).to_vec()
    /// );
    /// assert_eq!(Extent::new([3, 0]).indices().len(), 0);
    /// ```
    pub fn indices(
        &self,
    ) -> impl ExactSizeIterator<Item = Index<N>> + FusedIterator + Clone + fmt::Debug + use<N> {
        let size = self.size();
        Indices {
            extent: self.0,
            next: [0; N],
            remaining: size,
            done: size == 0,
        }
    }

    /// Returns the row-major linear offset of `idx`, or `None` if the extent
    /// does not [contain](Self::contains) it (or the offset does not fit in a
    /// `u64`).
    ///
    /// The offset of `[i0, i1, ..., i(N-1)]` is
    /// `((i0 * e1 + i1) * e2 + i2) ...`; [`index_of`](Self::index_of) is its
    /// inverse.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Extent, Index};
    ///
    /// let ext = Extent::new([3, 4]);
    /// assert_eq!(ext.linear_offset(&Index::new([0, 0])), Some(0));
    /// assert_eq!(ext.linear_offset(&Index::new([2, 1])), Some(9));
    /// assert_eq!(ext.linear_offset(&Index::new([3, 0])), None);
    /// ```
    #[must_use]
    pub fn linear_offset(&self, idx: &Index<N>) -> Option<u64> {
        if !self.contains(idx) {
            return None;
        }
        let mut offset: u64 = 0;
        for (&e, &i) in self.0.iter().zip(idx.as_array()) {
            offset = offset.checked_mul(e as u64)?.checked_add(i as u64)?;
        }
        Some(offset)
    }

    /// Returns the index at row-major linear offset `linear`, or `None` if
    /// `linear` is not below [`size`](Self::size) (every offset is out of
    /// range for an extent with a zero or negative component).
    ///
    /// The inverse of [`linear_offset`](Self::linear_offset).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Extent, Index};
    ///
    /// let ext = Extent::new([3, 4]);
    /// assert_eq!(ext.index_of(9), Some(Index::new([2, 1])));
    /// assert_eq!(ext.index_of(11), Some(Index::new([2, 3])));
    /// assert_eq!(ext.index_of(12), None);
    /// ```
    #[must_use]
    pub fn index_of(&self, linear: u64) -> Option<Index<N>> {
        if !self.is_positive() {
            return None;
        }
        // `checked_size` is `None` here only on overflow: then every `u64`
        // offset is in range.
        if let Some(size) = self.checked_size()
            && linear >= size
        {
            return None;
        }
        let mut rest = linear;
        let mut components = [0; N];
        for (c, &e) in components.iter_mut().zip(&self.0).rev() {
            let e = e as u64;
            *c = (rest % e) as i32;
            rest /= e;
        }
        debug_assert_eq!(rest, 0);
        Some(Index::new(components))
    }

    /// Adds 1 to every component (wrapping) and returns the new value.
    ///
    /// Corresponds to C++ AMP's prefix `++ext`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let mut ext = Extent::new([1, 2]);
    /// assert_eq!(ext.inc(), Extent::new([2, 3]));
    /// assert_eq!(ext, Extent::new([2, 3]));
    /// ```
    #[inline]
    pub fn inc(&mut self) -> Self {
        *self += 1;
        *self
    }

    /// Adds 1 to every component (wrapping) and returns the old value.
    ///
    /// Corresponds to C++ AMP's postfix `ext++`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let mut ext = Extent::new([1, 2]);
    /// assert_eq!(ext.post_inc(), Extent::new([1, 2]));
    /// assert_eq!(ext, Extent::new([2, 3]));
    /// ```
    #[inline]
    pub fn post_inc(&mut self) -> Self {
        let old = *self;
        *self += 1;
        old
    }

    /// Subtracts 1 from every component (wrapping) and returns the new value.
    ///
    /// Corresponds to C++ AMP's prefix `--ext`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let mut ext = Extent::new([1, 2]);
    /// assert_eq!(ext.dec(), Extent::new([0, 1]));
    /// assert_eq!(ext, Extent::new([0, 1]));
    /// ```
    #[inline]
    pub fn dec(&mut self) -> Self {
        *self -= 1;
        *self
    }

    /// Subtracts 1 from every component (wrapping) and returns the old value.
    ///
    /// Corresponds to C++ AMP's postfix `ext--`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let mut ext = Extent::new([1, 2]);
    /// assert_eq!(ext.post_dec(), Extent::new([1, 2]));
    /// assert_eq!(ext, Extent::new([0, 1]));
    /// ```
    #[inline]
    pub fn post_dec(&mut self) -> Self {
        let old = *self;
        *self -= 1;
        old
    }

    #[inline]
    fn map(self, f: impl Fn(i32) -> i32) -> Self {
        Self(core::array::from_fn(|i| f(self.0[i])))
    }

    #[inline]
    fn zip_map(self, rhs: [i32; N], f: impl Fn(i32, i32) -> i32) -> Self {
        Self(core::array::from_fn(|i| f(self.0[i], rhs[i])))
    }
}

impl Extent<1> {
    /// Divides this rank-1 extent into tiles of `D0` threads.
    ///
    /// The extent need not be a multiple of the tile; use
    /// [`TiledExtent::pad`] or [`TiledExtent::truncate`] to make it one.
    ///
    /// The tile shape is checked **at compile time**: `D0 <= 0` or
    /// `D0 > 1024` is a compile-time error (a post-monomorphization error,
    /// reported by `cargo build`/`cargo test`, not necessarily by
    /// `cargo check`).
    ///
    /// Corresponds to C++ AMP `extent<1>::tile<D0>()`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidComputeDomain`](crate::Error::InvalidComputeDomain) if the extent's component is zero or
    /// negative.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let tiled = Extent::new([25]).tile::<4>()?;
    /// assert_eq!(tiled.tile_extent(), Extent::new([4]));
    /// assert_eq!(tiled.pad()?.extent(), Extent::new([28]));
    /// assert_eq!(tiled.truncate().extent(), Extent::new([24]));
    /// assert!(Extent::new([0]).tile::<4>().is_err());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    ///
    /// A tile of more than 1024 threads does not compile:
    ///
    /// ```compile_fail,E0080
    /// let _ = amp_core::Extent::new([4096]).tile::<2048>();
    /// ```
    ///
    /// Neither does an empty one:
    ///
    /// ```compile_fail,E0080
    /// let _ = amp_core::Extent::new([4096]).tile::<0>();
    /// ```
    pub fn tile<const D0: i32>(&self) -> Result<TiledExtent<1>> {
        const {
            assert!(D0 > 0, "tile dimensions must be positive");
            assert!(D0 <= 1024, "a tile holds at most 1024 threads");
        };
        TiledExtent::new(*self, Extent::new([D0]))
    }
}

impl Extent<2> {
    /// Divides this rank-2 extent into tiles of `D0 x D1` threads.
    ///
    /// The extent need not be a multiple of the tile; use
    /// [`TiledExtent::pad`] or [`TiledExtent::truncate`] to make it one.
    ///
    /// The tile shape is checked **at compile time**: a zero or negative
    /// tile dimension, or `D0 * D1 > 1024`, is a compile-time error (a
    /// post-monomorphization error, reported by `cargo build`/`cargo test`,
    /// not necessarily by `cargo check`).
    ///
    /// Corresponds to C++ AMP `extent<2>::tile<D0, D1>()`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidComputeDomain`](crate::Error::InvalidComputeDomain) if a component of the extent is zero
    /// or negative.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let tiled = Extent::new([25, 51]).tile::<4, 8>()?;
    /// assert_eq!(tiled.tile_size(), 32);
    /// assert_eq!(tiled.pad()?.extent(), Extent::new([28, 56]));
    /// assert_eq!(tiled.truncate().extent(), Extent::new([24, 48]));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    ///
    /// A tile of more than 1024 threads does not compile:
    ///
    /// ```compile_fail,E0080
    /// let _ = amp_core::Extent::new([64, 64]).tile::<64, 32>();
    /// ```
    pub fn tile<const D0: i32, const D1: i32>(&self) -> Result<TiledExtent<2>> {
        const {
            assert!(D0 > 0 && D1 > 0, "tile dimensions must be positive");
            assert!(
                (D0 as i128) * (D1 as i128) <= 1024,
                "a tile holds at most 1024 threads"
            );
        };
        TiledExtent::new(*self, Extent::new([D0, D1]))
    }
}

impl Extent<3> {
    /// Divides this rank-3 extent into tiles of `D0 x D1 x D2` threads.
    ///
    /// The extent need not be a multiple of the tile; use
    /// [`TiledExtent::pad`] or [`TiledExtent::truncate`] to make it one.
    ///
    /// The tile shape is checked **at compile time**: a zero or negative
    /// tile dimension, `D0 > 64` (the first dimension runs along GPUs'
    /// workgroup `z` axis, which allows 64; C++ AMP's rule too), or
    /// `D0 * D1 * D2 > 1024`, is a compile-time error (a
    /// post-monomorphization error, reported by `cargo build`/`cargo test`,
    /// not necessarily by `cargo check`).
    ///
    /// Corresponds to C++ AMP `extent<3>::tile<D0, D1, D2>()`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidComputeDomain`](crate::Error::InvalidComputeDomain) if a component of the extent is zero
    /// or negative.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let tiled = Extent::new([25, 51, 85]).tile::<4, 8, 16>()?;
    /// assert_eq!(tiled.tile_size(), 512);
    /// assert_eq!(tiled.pad()?.extent(), Extent::new([28, 56, 96]));
    /// assert_eq!(tiled.truncate().extent(), Extent::new([24, 48, 80]));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    ///
    /// A negative tile dimension does not compile:
    ///
    /// ```compile_fail,E0080
    /// let _ = amp_core::Extent::new([8, 8, 8]).tile::<2, -2, 2>();
    /// ```
    ///
    /// Nor does a first dimension above 64 (`<64, 4, 4>` is the largest
    /// such tile):
    ///
    /// ```compile_fail,E0080
    /// let _ = amp_core::Extent::new([130, 2, 2]).tile::<65, 1, 1>();
    /// ```
    pub fn tile<const D0: i32, const D1: i32, const D2: i32>(&self) -> Result<TiledExtent<3>> {
        const {
            assert!(
                D0 > 0 && D1 > 0 && D2 > 0,
                "tile dimensions must be positive"
            );
            assert!(
                D0 <= 64,
                "the first dimension of a rank-3 tile is at most 64 (GPUs' workgroup z axis)"
            );
            assert!(
                (D0 as i128) * (D1 as i128) * (D2 as i128) <= 1024,
                "a tile holds at most 1024 threads"
            );
        };
        TiledExtent::new(*self, Extent::new([D0, D1, D2]))
    }
}

/// The row-major iterator behind [`Extent::indices`].
#[derive(Clone, Debug)]
struct Indices<const N: usize> {
    extent: [i32; N],
    next: [i32; N],
    /// Saturates at `u64::MAX` (see [`Extent::size`]); never used to stop.
    remaining: u64,
    done: bool,
}

impl<const N: usize> Iterator for Indices<N> {
    type Item = Index<N>;

    fn next(&mut self) -> Option<Index<N>> {
        if self.done {
            return None;
        }
        let current = Index::new(self.next);
        self.remaining = self.remaining.saturating_sub(1);
        // Row-major increment with carry; a carry out of the most significant
        // component ends the iteration.
        self.done = true;
        for (c, &e) in self.next.iter_mut().zip(&self.extent).rev() {
            *c += 1;
            if *c < e {
                self.done = false;
                break;
            }
            *c = 0;
        }
        Some(current)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        (len, Some(len))
    }
}

impl<const N: usize> ExactSizeIterator for Indices<N> {}

impl<const N: usize> FusedIterator for Indices<N> {}

impl<const N: usize> Default for Extent<N> {
    /// The empty extent: every component zero.
    #[inline]
    fn default() -> Self {
        Self::new([0; N])
    }
}

impl<const N: usize> From<[i32; N]> for Extent<N> {
    #[inline]
    fn from(components: [i32; N]) -> Self {
        Self::new(components)
    }
}

impl<const N: usize> From<Extent<N>> for [i32; N] {
    #[inline]
    fn from(ext: Extent<N>) -> Self {
        ext.0
    }
}

impl<const N: usize> AsRef<[i32]> for Extent<N> {
    #[inline]
    fn as_ref(&self) -> &[i32] {
        &self.0
    }
}

impl<const N: usize> AsMut<[i32]> for Extent<N> {
    #[inline]
    fn as_mut(&mut self) -> &mut [i32] {
        &mut self.0
    }
}

impl<const N: usize> IndexOp<usize> for Extent<N> {
    type Output = i32;

    /// Returns component `dim` (0 is the most significant).
    ///
    /// # Panics
    ///
    /// Panics if `dim >= N`.
    #[inline]
    fn index(&self, dim: usize) -> &i32 {
        &self.0[dim]
    }
}

impl<const N: usize> IndexMut<usize> for Extent<N> {
    /// Returns component `dim` (0 is the most significant) mutably.
    ///
    /// # Panics
    ///
    /// Panics if `dim >= N`.
    #[inline]
    fn index_mut(&mut self, dim: usize) -> &mut i32 {
        &mut self.0[dim]
    }
}

impl<const N: usize> fmt::Display for Extent<N> {
    /// Formats as `[e0, e1, ...]`, e.g. `[3, 4]`; formatting flags apply to
    /// every component.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, c) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            fmt::Display::fmt(c, f)?;
        }
        f.write_str("]")
    }
}

impl<const N: usize> Neg for Extent<N> {
    type Output = Self;

    /// Negates every component (wrapping: `-i32::MIN == i32::MIN`).
    #[inline]
    fn neg(self) -> Self {
        self.map(i32::wrapping_neg)
    }
}

/// `Extent op Rhs` and `Extent op= Rhs` for a same-rank `Extent` or `Index`
/// right operand, componentwise and wrapping.
macro_rules! extent_vector_ops {
    ($Rhs:ident: $($Op:ident $op:ident $OpAssign:ident $op_assign:ident $wrapping:ident $sym:literal;)*) => {$(
        impl<const N: usize> $Op<$Rhs<N>> for Extent<N> {
            type Output = Self;

            #[doc = concat!("Componentwise wrapping `self ", $sym, " rhs`.")]
            #[inline]
            fn $op(self, rhs: $Rhs<N>) -> Self {
                self.zip_map(rhs.to_array(), i32::$wrapping)
            }
        }

        impl<const N: usize> $OpAssign<$Rhs<N>> for Extent<N> {
            #[doc = concat!("Componentwise wrapping `self = self ", $sym, " rhs`.")]
            #[inline]
            fn $op_assign(&mut self, rhs: $Rhs<N>) {
                *self = $Op::$op(*self, rhs);
            }
        }
    )*};
}

extent_vector_ops! { Extent:
    Add add AddAssign add_assign wrapping_add "+";
    Sub sub SubAssign sub_assign wrapping_sub "-";
}

extent_vector_ops! { Index:
    Add add AddAssign add_assign wrapping_add "+";
    Sub sub SubAssign sub_assign wrapping_sub "-";
}

/// `Extent op i32`, `i32 op Extent` and `Extent op= i32`, componentwise and
/// wrapping.
macro_rules! extent_scalar_ops {
    ($($Op:ident $op:ident $OpAssign:ident $op_assign:ident $wrapping:ident $sym:literal;)*) => {$(
        impl<const N: usize> $Op<i32> for Extent<N> {
            type Output = Self;

            #[doc = concat!("Componentwise wrapping `self[i] ", $sym, " rhs`.")]
            #[inline]
            fn $op(self, rhs: i32) -> Self {
                self.map(|c| c.$wrapping(rhs))
            }
        }

        impl<const N: usize> $Op<Extent<N>> for i32 {
            type Output = Extent<N>;

            #[doc = concat!("Componentwise wrapping `self ", $sym, " rhs[i]`.")]
            #[inline]
            fn $op(self, rhs: Extent<N>) -> Extent<N> {
                rhs.map(|c| self.$wrapping(c))
            }
        }

        impl<const N: usize> $OpAssign<i32> for Extent<N> {
            #[doc = concat!("Componentwise wrapping `self[i] = self[i] ", $sym, " rhs`.")]
            #[inline]
            fn $op_assign(&mut self, rhs: i32) {
                *self = $Op::$op(*self, rhs);
            }
        }
    )*};
}

extent_scalar_ops! {
    Add add AddAssign add_assign wrapping_add "+";
    Sub sub SubAssign sub_assign wrapping_sub "-";
    Mul mul MulAssign mul_assign wrapping_mul "*";
    Div div DivAssign div_assign wrapping_div "/";
    Rem rem RemAssign rem_assign wrapping_rem "%";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use std::collections::HashSet;

    /// A tiny xorshift64* generator for reproducible pseudo-random values.
    struct XorShift(u64);

    impl XorShift {
        fn next_u64(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        /// Mixes edge values, small values and the full `i32` range.
        fn next_i32(&mut self) -> i32 {
            const EDGES: [i32; 8] = [i32::MIN, i32::MIN + 1, -2, -1, 0, 1, 2, i32::MAX];
            let r = self.next_u64();
            match r % 4 {
                0 => EDGES[((r >> 8) % EDGES.len() as u64) as usize],
                1 => ((r >> 16) % 41) as i32 - 20,
                _ => (r >> 32) as u32 as i32,
            }
        }

        fn nonzero_i32(&mut self) -> i32 {
            loop {
                let v = self.next_i32();
                if v != 0 {
                    return v;
                }
            }
        }

        /// A value in `lo..=hi`.
        fn range(&mut self, lo: i32, hi: i32) -> i32 {
            lo + (self.next_u64() % (hi - lo + 1) as u64) as i32
        }

        fn array<const N: usize>(&mut self) -> [i32; N] {
            core::array::from_fn(|_| self.next_i32())
        }

        fn nonzero_array<const N: usize>(&mut self) -> [i32; N] {
            core::array::from_fn(|_| self.nonzero_i32())
        }
    }

    const ROUNDS: usize = 2000;

    fn per_component<const N: usize>(a: [i32; N], b: [i32; N], f: fn(i32, i32) -> i32) -> [i32; N] {
        core::array::from_fn(|i| f(a[i], b[i]))
    }

    /// Checks `Extent op Extent`, `Extent op Index` and their assignments.
    fn check_vector_ops<const N: usize>(rng: &mut XorShift) {
        for _ in 0..ROUNDS {
            let a = Extent::new(rng.array::<N>());
            let b = Extent::new(rng.array::<N>());
            let i = Index::new(rng.array::<N>());
            let (aa, ba, ia) = (a.to_array(), b.to_array(), i.to_array());
            assert_eq!((a + b).to_array(), per_component(aa, ba, i32::wrapping_add));
            assert_eq!((a - b).to_array(), per_component(aa, ba, i32::wrapping_sub));
            assert_eq!((a + i).to_array(), per_component(aa, ia, i32::wrapping_add));
            assert_eq!((a - i).to_array(), per_component(aa, ia, i32::wrapping_sub));
            let mut m = a;
            m += b;
            assert_eq!(m, a + b);
            let mut m = a;
            m -= b;
            assert_eq!(m, a - b);
            let mut m = a;
            m += i;
            assert_eq!(m, a + i);
            let mut m = a;
            m -= i;
            assert_eq!(m, a - i);
            assert_eq!((-a).to_array(), aa.map(i32::wrapping_neg));
        }
    }

    /// Checks `v op s`, `l op w` and `v op= s` against a per-component
    /// computation with `f`.
    macro_rules! check_scalar_op {
        ($v:expr, $s:expr, $l:expr, $w:expr, $op:tt, $op_assign:tt, $f:path) => {{
            let (v, s, l, w) = ($v, $s, $l, $w);
            assert_eq!((v $op s).to_array(), v.to_array().map(|c| $f(c, s)), "{v} {} {s}", stringify!($op));
            assert_eq!((l $op w).to_array(), w.to_array().map(|c| $f(l, c)), "{l} {} {w}", stringify!($op));
            let mut m = v;
            m $op_assign s;
            assert_eq!(m, v $op s, "{v} {} {s}", stringify!($op_assign));
        }};
    }

    /// Checks every `Extent op i32`, `i32 op Extent` and `Extent op= i32`.
    fn check_scalar_ops<const N: usize>(rng: &mut XorShift) {
        for _ in 0..ROUNDS {
            let a = Extent::new(rng.array::<N>());
            let s = rng.next_i32();
            let l = rng.next_i32();
            let d = rng.nonzero_i32();
            let nz = Extent::new(rng.nonzero_array::<N>());
            check_scalar_op!(a, s, l, a, +, +=, i32::wrapping_add);
            check_scalar_op!(a, s, l, a, -, -=, i32::wrapping_sub);
            check_scalar_op!(a, s, l, a, *, *=, i32::wrapping_mul);
            check_scalar_op!(a, d, l, nz, /, /=, i32::wrapping_div);
            check_scalar_op!(a, d, l, nz, %, %=, i32::wrapping_rem);
        }
    }

    #[test]
    fn operators_match_per_component_wrapping_arithmetic() {
        let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
        check_vector_ops::<1>(&mut rng);
        check_vector_ops::<2>(&mut rng);
        check_vector_ops::<3>(&mut rng);
        check_vector_ops::<4>(&mut rng);
        check_scalar_ops::<1>(&mut rng);
        check_scalar_ops::<2>(&mut rng);
        check_scalar_ops::<3>(&mut rng);
        check_scalar_ops::<6>(&mut rng);
    }

    #[test]
    #[allow(
        clippy::modulo_one,
        reason = "`% -1` on an overloaded operator is the wrapping edge case under test"
    )]
    fn edge_cases_wrap() {
        let min = Extent::new([i32::MIN, i32::MIN]);
        assert_eq!(min / -1, min);
        assert_eq!(min % -1, Extent::new([0, 0]));
        assert_eq!(
            i32::MIN / Extent::new([-1, 2]),
            Extent::new([i32::MIN, -(1 << 30)])
        );
        assert_eq!(-min, min);
        assert_eq!(Extent::new([i32::MAX]) + 1, Extent::new([i32::MIN]));
        assert_eq!(
            Extent::new([i32::MAX]) + Index::new([1]),
            Extent::new([i32::MIN])
        );
        assert_eq!(
            Extent::new([i32::MIN]) - Index::new([1]),
            Extent::new([i32::MAX])
        );
        assert_eq!(Extent::new([-7, 7]) % 3, Extent::new([-1, 1]));
        assert_eq!(-7 % Extent::new([3, -3]), Extent::new([-1, -1]));
        assert_eq!(10 - Extent::new([1, 20]), Extent::new([9, -10]));
    }

    #[test]
    #[should_panic(expected = "divide by zero")]
    fn division_by_zero_panics() {
        let _ = Extent::new([4, 4]) / 0;
    }

    #[test]
    #[should_panic(expected = "divisor of zero")]
    fn scalar_remainder_by_zero_component_panics() {
        let _ = 4 % Extent::new([4, 0]);
    }

    #[test]
    #[should_panic(expected = "divide by zero")]
    fn divide_assign_by_zero_panics() {
        let mut ext = Extent::new([4, 4]);
        ext /= 0;
    }

    #[test]
    fn increment_and_decrement() {
        let mut ext = Extent::new([0, i32::MAX]);
        assert_eq!(ext.inc(), Extent::new([1, i32::MIN]));
        assert_eq!(ext.post_inc(), Extent::new([1, i32::MIN]));
        assert_eq!(ext, Extent::new([2, i32::MIN + 1]));
        assert_eq!(ext.dec(), Extent::new([1, i32::MIN]));
        assert_eq!(ext.post_dec(), Extent::new([1, i32::MIN]));
        assert_eq!(ext, Extent::new([0, i32::MAX]));
    }

    #[test]
    fn construction_and_conversion() {
        let ext = Extent::new([3, 4, 5]);
        assert_eq!(Extent::from([3, 4, 5]), ext);
        let arr: [i32; 3] = ext.into();
        assert_eq!(arr, [3, 4, 5]);
        assert_eq!(ext.as_array(), &arr);
        assert_eq!(ext.as_ref(), &[3, 4, 5][..]);
        assert_eq!(Extent::<3>::rank(), 3);
        assert_eq!(Extent::<5>::RANK, 5);
        assert_eq!(Extent::<2>::default(), Extent::new([0, 0]));
        let mut m = ext;
        m[0] = 7;
        m.as_mut()[2] = 1;
        assert_eq!(m, Extent::new([7, 4, 1]));
        assert_eq!(m[1], 4);
        let set: HashSet<Extent<3>> = [ext, ext, m].into_iter().collect();
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn display_and_debug() {
        assert_eq!(Extent::new([3, 4]).to_string(), "[3, 4]");
        assert_eq!(Extent::new([7]).to_string(), "[7]");
        assert_eq!(Extent::new([1, -2, 3]).to_string(), "[1, -2, 3]");
        assert_eq!(format!("{:03}", Extent::new([1, 2])), "[001, 002]");
        assert_eq!(format!("{:?}", Extent::new([1, 2])), "Extent([1, 2])");
    }

    #[test]
    fn contains_matches_bounds() {
        let mut rng = XorShift(42);
        for _ in 0..ROUNDS {
            let ext = Extent::new([rng.range(-3, 6), rng.range(-3, 6), rng.range(-3, 6)]);
            let idx = Index::new([rng.range(-4, 7), rng.range(-4, 7), rng.range(-4, 7)]);
            let want = (0..3).all(|i| 0 <= idx[i] && idx[i] < ext[i]);
            assert_eq!(ext.contains(&idx), want, "{ext} contains {idx}");
        }
        let ext = Extent::new([i32::MAX]);
        assert!(ext.contains(&Index::new([i32::MAX - 1])));
        assert!(!ext.contains(&Index::new([i32::MAX])));
        assert!(!ext.contains(&Index::new([i32::MIN])));
    }

    #[test]
    fn size_and_checked_size() {
        assert_eq!(Extent::new([7]).size(), 7);
        assert_eq!(Extent::new([3, 4, 5]).size(), 60);
        assert_eq!(Extent::new([3, 4, 5]).checked_size(), Some(60));
        assert_eq!(Extent::new([0, 4]).size(), 0);
        assert_eq!(Extent::new([0, 4]).checked_size(), Some(0));
        assert_eq!(Extent::new([-1, 4]).size(), 0);
        assert_eq!(Extent::new([-1, 4]).checked_size(), None);
        assert_eq!(Extent::new([-1, 0]).checked_size(), None);
        assert_eq!(Extent::new([-2, -4]).size(), 0);
        // Rank 2 always fits in u64.
        let big2 = Extent::new([i32::MAX, i32::MAX]);
        let want2 = (i32::MAX as u64) * (i32::MAX as u64);
        assert_eq!(big2.size(), want2);
        assert_eq!(big2.checked_size(), Some(want2));
        // Rank 3 can overflow u64: size saturates, checked_size reports it.
        let big3 = Extent::new([i32::MAX, i32::MAX, i32::MAX]);
        assert_eq!(big3.size(), u64::MAX);
        assert_eq!(big3.checked_size(), None);
        // A zero component wins over the overflow of the other ones.
        assert_eq!(
            Extent::new([i32::MAX, 0, i32::MAX, i32::MAX]).checked_size(),
            Some(0)
        );
        assert_eq!(Extent::new([i32::MAX, 0, i32::MAX, i32::MAX]).size(), 0);
        // The u64 boundary: 2^30 * 2^30 * 16 == 2^64 overflows, * 15 fits.
        let over = Extent::new([1 << 30, 1 << 30, 16]);
        assert_eq!(over.checked_size(), None);
        assert_eq!(over.size(), u64::MAX);
        let just = Extent::new([1 << 30, 1 << 30, 15]);
        assert_eq!(just.checked_size(), Some(15u64 << 60));
        assert_eq!(just.size(), 15u64 << 60);
        // Ranks beyond u128's reach saturate too.
        assert_eq!(Extent::new([i32::MAX; 8]).size(), u64::MAX);
        assert_eq!(Extent::new([i32::MAX; 8]).checked_size(), None);
        let mut rng = XorShift(7);
        for _ in 0..ROUNDS {
            let ext = Extent::new([rng.range(-2, 50), rng.range(-2, 50), rng.range(-2, 50)]);
            let product: i64 = ext.to_array().iter().map(|&c| c as i64).product();
            let want = if ext.is_positive() { product as u64 } else { 0 };
            assert_eq!(ext.size(), want, "{ext}");
            assert_eq!(ext.is_positive(), ext.to_array().iter().all(|&c| c > 0));
        }
    }

    fn check_round_trip<const N: usize>(ext: Extent<N>) {
        let all: Vec<Index<N>> = ext.indices().collect();
        assert_eq!(all.len() as u64, ext.size());
        assert_eq!(ext.indices().len() as u64, ext.size());
        for (linear, idx) in all.iter().enumerate() {
            assert!(ext.contains(idx));
            assert_eq!(ext.linear_offset(idx), Some(linear as u64), "{ext} {idx}");
            assert_eq!(ext.index_of(linear as u64), Some(*idx), "{ext} {linear}");
        }
        // Row-major: strictly increasing in lexicographic order.
        for pair in all.windows(2) {
            assert!(pair[0].to_array() < pair[1].to_array());
        }
        assert_eq!(ext.index_of(ext.size()), None);
        assert_eq!(ext.index_of(u64::MAX), None);
    }

    #[test]
    fn indices_linear_offset_index_of_round_trip() {
        check_round_trip(Extent::new([5]));
        check_round_trip(Extent::new([3, 4]));
        check_round_trip(Extent::new([2, 3, 4]));
        check_round_trip(Extent::new([1, 1, 1]));
        check_round_trip(Extent::new([2, 1, 3, 2]));
        check_round_trip(Extent::new([7, 1]));
        let mut rng = XorShift(99);
        for _ in 0..50 {
            check_round_trip(Extent::new([
                rng.range(1, 6),
                rng.range(1, 6),
                rng.range(1, 6),
            ]));
        }
    }

    #[test]
    fn indices_iterator_len_and_fuse() {
        let mut it = Extent::new([2, 3]).indices();
        assert_eq!(it.len(), 6);
        assert_eq!(it.next(), Some(Index::new([0, 0])));
        assert_eq!(it.len(), 5);
        let rest: Vec<_> = it.by_ref().collect();
        assert_eq!(rest.len(), 5);
        assert_eq!(rest.last(), Some(&Index::new([1, 2])));
        assert_eq!(it.len(), 0);
        assert_eq!(it.next(), None);
        assert_eq!(it.next(), None);
        assert_eq!(Extent::new([0, 3]).indices().count(), 0);
        assert_eq!(Extent::new([3, -1]).indices().next(), None);
        assert_eq!(Extent::new([-3]).indices().len(), 0);
        // A huge extent iterates lazily from the origin.
        let mut huge = Extent::new([i32::MAX; 3]).indices();
        assert_eq!(huge.len(), usize::try_from(u64::MAX).unwrap_or(usize::MAX));
        assert_eq!(huge.next(), Some(Index::new([0, 0, 0])));
        assert_eq!(huge.next(), Some(Index::new([0, 0, 1])));
        let cloned = huge.clone();
        assert_eq!(cloned.take(1).next(), Some(Index::new([0, 0, 2])));
    }

    #[test]
    fn linear_offset_and_index_of_out_of_range() {
        let ext = Extent::new([3, 4]);
        assert_eq!(ext.linear_offset(&Index::new([-1, 0])), None);
        assert_eq!(ext.linear_offset(&Index::new([0, 4])), None);
        assert_eq!(ext.index_of(12), None);
        assert_eq!(Extent::new([0, 4]).index_of(0), None);
        assert_eq!(Extent::new([-2, 4]).index_of(0), None);
        // Large extents: offsets stay exact up to u64.
        let big = Extent::new([i32::MAX, i32::MAX]);
        let last = Index::new([i32::MAX - 1, i32::MAX - 1]);
        let last_offset = big.size() - 1;
        assert_eq!(big.linear_offset(&last), Some(last_offset));
        assert_eq!(big.index_of(last_offset), Some(last));
        assert_eq!(big.index_of(last_offset + 1), None);
        // An extent larger than u64: every u64 offset is in range; offsets
        // past u64 are None.
        let huge = Extent::new([i32::MAX; 3]);
        let idx = huge.index_of(u64::MAX).expect("in range");
        assert_eq!(huge.linear_offset(&idx), Some(u64::MAX));
        assert_eq!(huge.linear_offset(&Index::new([i32::MAX - 1; 3])), None);
    }

    #[test]
    fn tile_checks_the_extent_at_runtime() {
        let t1 = Extent::new([25]).tile::<4>().expect("valid");
        assert_eq!(
            (t1.extent(), t1.tile_extent()),
            (Extent::new([25]), Extent::new([4]))
        );
        let t2 = Extent::new([25, 51]).tile::<4, 8>().expect("valid");
        assert_eq!(t2.tile_extent(), Extent::new([4, 8]));
        let t3 = Extent::new([25, 51, 85]).tile::<4, 8, 16>().expect("valid");
        assert_eq!(t3.tile_extent(), Extent::new([4, 8, 16]));
        assert!(Extent::new([1024]).tile::<1024>().is_ok());
        assert!(Extent::new([1, 1, 1]).tile::<1, 1, 1024>().is_ok());
        assert!(Extent::new([32, 32]).tile::<32, 32>().is_ok());
        for bad in [Extent::new([0]).tile::<4>(), Extent::new([-5]).tile::<4>()] {
            assert!(
                matches!(bad, Err(Error::InvalidComputeDomain(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(
            Extent::new([8, 0]).tile::<2, 2>(),
            Err(Error::InvalidComputeDomain(_))
        ));
        assert!(matches!(
            Extent::new([8, 8, i32::MIN]).tile::<2, 2, 2>(),
            Err(Error::InvalidComputeDomain(_))
        ));
    }
}
