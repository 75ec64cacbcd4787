//! Multi-dimensional integer points: [`Index<N>`](crate::Index).
//!
//! An [`Index<N>`](crate::Index) names one point of an `N`-dimensional compute
//! domain or one element of an `N`-dimensional array. Its components are
//! `i32`, stored most significant first (`[row, column]` for rank 2), exactly
//! like C++ AMP's `index<N>`.
//!
//! Arithmetic on indices is componentwise and *wrapping*, as it is inside
//! kernels on every accelerator: overflow never panics, it wraps around in
//! two's complement. Division and remainder by zero panic on the CPU.

use core::fmt;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Index as IndexOp, IndexMut, Mul, MulAssign, Neg, Rem,
    RemAssign, Sub, SubAssign,
};

/// An `N`-dimensional integer point, most significant component first.
///
/// `Index<N>` is a small `Copy` value type: a `[i32; N]` with the C++ AMP
/// operator set. Any rank `N >= 1` is allowed; rank 0 is rejected at compile
/// time. The components may be negative (an index is also used as an offset).
///
/// Corresponds to C++ AMP `index<N>`.
///
/// # Operators
///
/// All operators are componentwise and use wrapping arithmetic (overflow wraps
/// around in two's complement instead of panicking, as in kernels; in
/// particular `i32::MIN / -1 == i32::MIN` and `i32::MIN % -1 == 0`):
///
/// | Expression | Result |
/// |---|---|
/// | `idx + idx`, `idx - idx` | `Index<N>` |
/// | `idx {+ - * / %} i32` | `Index<N>` |
/// | `i32 {+ - * / %} idx` | `Index<N>` (the scalar is the left operand of every component) |
/// | `idx += idx`, `idx -= idx` | in place |
/// | `idx {+= -= *= /= %=} i32` | in place |
/// | `-idx` | `Index<N>` |
///
/// C++ AMP's `++`/`--` are the methods [`inc`](Index::inc),
/// [`post_inc`](Index::post_inc), [`dec`](Index::dec) and
/// [`post_dec`](Index::post_dec).
///
/// # Panics
///
/// `/` and `%` (and `/=`, `%=`) panic if a divisor component is zero.
///
/// # Examples
///
/// ```
/// use amp_core::Index;
///
/// let idx = Index::new([3, 4]);
/// assert_eq!(idx[0], 3);
/// assert_eq!(idx + Index::new([1, 1]), Index::new([4, 5]));
/// assert_eq!(idx * 2, Index::new([6, 8]));
/// assert_eq!(10 - idx, Index::new([7, 6]));
/// assert_eq!(Index::new([i32::MAX]) + 1, Index::new([i32::MIN])); // wraps
/// assert_eq!(idx.to_string(), "[3, 4]");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Index<const N: usize>([i32; N]);

impl<const N: usize> Index<N> {
    /// The rank (number of dimensions) `N`.
    ///
    /// Corresponds to C++ AMP `index<N>::rank`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Index;
    ///
    /// assert_eq!(Index::<3>::RANK, 3);
    /// ```
    pub const RANK: usize = N;

    /// Creates an index from its components, most significant first.
    ///
    /// Corresponds to C++ AMP's `index<N>(i0, i1, ...)` and
    /// `index<N>(const int components[])` constructors. Rank 0 does not
    /// compile.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Index;
    ///
    /// let idx = Index::new([2, 5]);
    /// assert_eq!(idx.to_array(), [2, 5]);
    /// ```
    ///
    /// Rank 0 is a compile-time error:
    ///
    /// ```compile_fail,E0080
    /// let _ = amp_core::Index::<0>::new([]);
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(components: [i32; N]) -> Self {
        const { assert!(N >= 1, "Index<N> needs a rank N >= 1") };
        Self(components)
    }

    /// The index whose components are all zero (the origin).
    ///
    /// Equal to [`Index::default()`]. Corresponds to C++ AMP's default
    /// constructed `index<N>()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Index;
    ///
    /// assert_eq!(Index::<3>::zero(), Index::new([0, 0, 0]));
    /// ```
    #[inline]
    #[must_use]
    pub const fn zero() -> Self {
        Self::new([0; N])
    }

    /// Returns the rank (number of dimensions) `N`.
    ///
    /// The same as [`Index::RANK`]. Corresponds to C++ AMP `index<N>::rank`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Index;
    ///
    /// assert_eq!(Index::<2>::rank(), 2);
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
    /// use amp_core::Index;
    ///
    /// assert_eq!(Index::new([1, 2, 3]).to_array(), [1, 2, 3]);
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
    /// use amp_core::Index;
    ///
    /// let idx = Index::new([4, 5]);
    /// assert_eq!(idx.as_array().iter().sum::<i32>(), 9);
    /// ```
    #[inline]
    #[must_use]
    pub const fn as_array(&self) -> &[i32; N] {
        &self.0
    }

    /// Adds 1 to every component (wrapping) and returns the new value.
    ///
    /// Corresponds to C++ AMP's prefix `++idx`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Index;
    ///
    /// let mut idx = Index::new([1, 2]);
    /// assert_eq!(idx.inc(), Index::new([2, 3]));
    /// assert_eq!(idx, Index::new([2, 3]));
    /// ```
    #[inline]
    pub fn inc(&mut self) -> Self {
        *self += 1;
        *self
    }

    /// Adds 1 to every component (wrapping) and returns the old value.
    ///
    /// Corresponds to C++ AMP's postfix `idx++`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Index;
    ///
    /// let mut idx = Index::new([1, 2]);
    /// assert_eq!(idx.post_inc(), Index::new([1, 2]));
    /// assert_eq!(idx, Index::new([2, 3]));
    /// ```
    #[inline]
    pub fn post_inc(&mut self) -> Self {
        let old = *self;
        *self += 1;
        old
    }

    /// Subtracts 1 from every component (wrapping) and returns the new value.
    ///
    /// Corresponds to C++ AMP's prefix `--idx`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Index;
    ///
    /// let mut idx = Index::new([1, 2]);
    /// assert_eq!(idx.dec(), Index::new([0, 1]));
    /// assert_eq!(idx, Index::new([0, 1]));
    /// ```
    #[inline]
    pub fn dec(&mut self) -> Self {
        *self -= 1;
        *self
    }

    /// Subtracts 1 from every component (wrapping) and returns the old value.
    ///
    /// Corresponds to C++ AMP's postfix `idx--`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Index;
    ///
    /// let mut idx = Index::new([1, 2]);
    /// assert_eq!(idx.post_dec(), Index::new([1, 2]));
    /// assert_eq!(idx, Index::new([0, 1]));
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
    fn zip_map(self, rhs: Self, f: impl Fn(i32, i32) -> i32) -> Self {
        Self(core::array::from_fn(|i| f(self.0[i], rhs.0[i])))
    }
}

impl<const N: usize> Default for Index<N> {
    /// The origin: every component zero.
    #[inline]
    fn default() -> Self {
        Self::zero()
    }
}

impl<const N: usize> From<[i32; N]> for Index<N> {
    #[inline]
    fn from(components: [i32; N]) -> Self {
        Self::new(components)
    }
}

impl<const N: usize> From<Index<N>> for [i32; N] {
    #[inline]
    fn from(idx: Index<N>) -> Self {
        idx.0
    }
}

impl<const N: usize> AsRef<[i32]> for Index<N> {
    #[inline]
    fn as_ref(&self) -> &[i32] {
        &self.0
    }
}

impl<const N: usize> AsMut<[i32]> for Index<N> {
    #[inline]
    fn as_mut(&mut self) -> &mut [i32] {
        &mut self.0
    }
}

impl<const N: usize> IndexOp<usize> for Index<N> {
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

impl<const N: usize> IndexMut<usize> for Index<N> {
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

impl<const N: usize> fmt::Display for Index<N> {
    /// Formats as `[c0, c1, ...]`, e.g. `[3, 4]`; formatting flags apply to
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

impl<const N: usize> Neg for Index<N> {
    type Output = Self;

    /// Negates every component (wrapping: `-i32::MIN == i32::MIN`).
    #[inline]
    fn neg(self) -> Self {
        self.map(i32::wrapping_neg)
    }
}

/// `Index op Index` and `Index op= Index`, componentwise and wrapping.
macro_rules! index_index_ops {
    ($($Op:ident $op:ident $OpAssign:ident $op_assign:ident $wrapping:ident $sym:literal;)*) => {$(
        impl<const N: usize> $Op for Index<N> {
            type Output = Self;

            #[doc = concat!("Componentwise wrapping `self ", $sym, " rhs`.")]
            #[inline]
            fn $op(self, rhs: Self) -> Self {
                self.zip_map(rhs, i32::$wrapping)
            }
        }

        impl<const N: usize> $OpAssign for Index<N> {
            #[doc = concat!("Componentwise wrapping `self = self ", $sym, " rhs`.")]
            #[inline]
            fn $op_assign(&mut self, rhs: Self) {
                *self = $Op::$op(*self, rhs);
            }
        }
    )*};
}

index_index_ops! {
    Add add AddAssign add_assign wrapping_add "+";
    Sub sub SubAssign sub_assign wrapping_sub "-";
}

/// `Index op i32`, `i32 op Index` and `Index op= i32`, componentwise and
/// wrapping.
macro_rules! index_scalar_ops {
    ($($Op:ident $op:ident $OpAssign:ident $op_assign:ident $wrapping:ident $sym:literal;)*) => {$(
        impl<const N: usize> $Op<i32> for Index<N> {
            type Output = Self;

            #[doc = concat!("Componentwise wrapping `self[i] ", $sym, " rhs`.")]
            #[inline]
            fn $op(self, rhs: i32) -> Self {
                self.map(|c| c.$wrapping(rhs))
            }
        }

        impl<const N: usize> $Op<Index<N>> for i32 {
            type Output = Index<N>;

            #[doc = concat!("Componentwise wrapping `self ", $sym, " rhs[i]`.")]
            #[inline]
            fn $op(self, rhs: Index<N>) -> Index<N> {
                rhs.map(|c| self.$wrapping(c))
            }
        }

        impl<const N: usize> $OpAssign<i32> for Index<N> {
            #[doc = concat!("Componentwise wrapping `self[i] = self[i] ", $sym, " rhs`.")]
            #[inline]
            fn $op_assign(&mut self, rhs: i32) {
                *self = $Op::$op(*self, rhs);
            }
        }
    )*};
}

index_scalar_ops! {
    Add add AddAssign add_assign wrapping_add "+";
    Sub sub SubAssign sub_assign wrapping_sub "-";
    Mul mul MulAssign mul_assign wrapping_mul "*";
    Div div DivAssign div_assign wrapping_div "/";
    Rem rem RemAssign rem_assign wrapping_rem "%";
}

#[cfg(test)]
mod tests {
    use super::*;
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

        fn index<const N: usize>(&mut self) -> Index<N> {
            Index::new(core::array::from_fn(|_| self.next_i32()))
        }

        fn nonzero_index<const N: usize>(&mut self) -> Index<N> {
            Index::new(core::array::from_fn(|_| self.nonzero_i32()))
        }
    }

    const ROUNDS: usize = 2000;

    fn per_component<const N: usize>(a: Index<N>, b: Index<N>, f: fn(i32, i32) -> i32) -> [i32; N] {
        core::array::from_fn(|i| f(a[i], b[i]))
    }

    /// Checks every `Index op Index` operator against a per-component
    /// computation.
    fn check_index_index_ops<const N: usize>(rng: &mut XorShift) {
        for _ in 0..ROUNDS {
            let a: Index<N> = rng.index();
            let b: Index<N> = rng.index();
            assert_eq!((a + b).to_array(), per_component(a, b, i32::wrapping_add));
            assert_eq!((a - b).to_array(), per_component(a, b, i32::wrapping_sub));
            let mut c = a;
            c += b;
            assert_eq!(c, a + b);
            let mut c = a;
            c -= b;
            assert_eq!(c, a - b);
            assert_eq!((-a).to_array(), a.to_array().map(i32::wrapping_neg));
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

    /// Checks every `Index op i32`, `i32 op Index` and `Index op= i32` against
    /// a per-component computation.
    fn check_index_scalar_ops<const N: usize>(rng: &mut XorShift) {
        for _ in 0..ROUNDS {
            let a: Index<N> = rng.index();
            let s = rng.next_i32();
            let l = rng.next_i32();
            let d = rng.nonzero_i32();
            let nz: Index<N> = rng.nonzero_index();
            check_scalar_op!(a, s, l, a, +, +=, i32::wrapping_add);
            check_scalar_op!(a, s, l, a, -, -=, i32::wrapping_sub);
            check_scalar_op!(a, s, l, a, *, *=, i32::wrapping_mul);
            check_scalar_op!(a, d, l, nz, /, /=, i32::wrapping_div);
            check_scalar_op!(a, d, l, nz, %, %=, i32::wrapping_rem);
        }
    }

    #[test]
    fn operators_match_per_component_wrapping_arithmetic() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        check_index_index_ops::<1>(&mut rng);
        check_index_index_ops::<2>(&mut rng);
        check_index_index_ops::<3>(&mut rng);
        check_index_index_ops::<5>(&mut rng);
        check_index_scalar_ops::<1>(&mut rng);
        check_index_scalar_ops::<2>(&mut rng);
        check_index_scalar_ops::<3>(&mut rng);
        check_index_scalar_ops::<4>(&mut rng);
    }

    #[test]
    #[allow(
        clippy::modulo_one,
        reason = "`% -1` on an overloaded operator is the wrapping edge case under test"
    )]
    fn edge_cases_wrap() {
        let min = Index::new([i32::MIN, i32::MIN]);
        assert_eq!(min / -1, min);
        assert_eq!(min % -1, Index::new([0, 0]));
        assert_eq!(
            i32::MIN / Index::new([-1, 1]),
            Index::new([i32::MIN, i32::MIN])
        );
        assert_eq!(i32::MIN % Index::new([-1, 3]), Index::new([0, -2]));
        assert_eq!(-min, min);
        assert_eq!(Index::new([i32::MAX]) + 1, Index::new([i32::MIN]));
        assert_eq!(
            Index::new([i32::MIN]) - Index::new([1]),
            Index::new([i32::MAX])
        );
        assert_eq!(Index::new([0x4000_0000]) * 2, Index::new([i32::MIN]));
        // Remainder takes the sign of the dividend, like C++.
        assert_eq!(Index::new([-7, 7, -7]) % 3, Index::new([-1, 1, -1]));
        assert_eq!(Index::new([-7, 7]) % -3, Index::new([-1, 1]));
        assert_eq!(-7 % Index::new([3, -3]), Index::new([-1, -1]));
        assert_eq!(Index::new([-7, 7]) / 2, Index::new([-3, 3]));
    }

    #[test]
    fn scalar_on_the_left_is_the_left_operand() {
        let idx = Index::new([1, 2, 3]);
        assert_eq!(10 - idx, Index::new([9, 8, 7]));
        assert_eq!(12 / idx, Index::new([12, 6, 4]));
        assert_eq!(10 % idx, Index::new([0, 0, 1]));
        assert_eq!(2 * idx, Index::new([2, 4, 6]));
        assert_eq!(5 + idx, Index::new([6, 7, 8]));
    }

    #[test]
    #[should_panic(expected = "divide by zero")]
    fn division_by_zero_scalar_panics() {
        let _ = Index::new([1, 2]) / 0;
    }

    #[test]
    #[should_panic(expected = "divisor of zero")]
    fn remainder_by_zero_scalar_panics() {
        let _ = Index::new([1, 2]) % 0;
    }

    #[test]
    #[should_panic(expected = "divide by zero")]
    fn scalar_divided_by_zero_component_panics() {
        let _ = 7 / Index::new([1, 0]);
    }

    #[test]
    #[should_panic(expected = "divisor of zero")]
    fn remainder_assign_by_zero_panics() {
        let mut idx = Index::new([1, 2]);
        idx %= 0;
    }

    #[test]
    fn increment_and_decrement() {
        let mut idx = Index::new([0, i32::MAX, -1]);
        assert_eq!(idx.inc(), Index::new([1, i32::MIN, 0]));
        assert_eq!(idx.post_inc(), Index::new([1, i32::MIN, 0]));
        assert_eq!(idx, Index::new([2, i32::MIN + 1, 1]));
        assert_eq!(idx.dec(), Index::new([1, i32::MIN, 0]));
        assert_eq!(idx.post_dec(), Index::new([1, i32::MIN, 0]));
        assert_eq!(idx, Index::new([0, i32::MAX, -1]));
    }

    #[test]
    fn construction_and_conversion() {
        let idx = Index::new([3, -4, 5]);
        assert_eq!(Index::from([3, -4, 5]), idx);
        let arr: [i32; 3] = idx.into();
        assert_eq!(arr, [3, -4, 5]);
        assert_eq!(idx.to_array(), arr);
        assert_eq!(idx.as_array(), &arr);
        assert_eq!(idx.as_ref(), &[3, -4, 5][..]);
        assert_eq!(Index::<3>::rank(), 3);
        assert_eq!(Index::<7>::RANK, 7);
        assert_eq!(Index::<4>::default(), Index::zero());
        assert_eq!(Index::<4>::zero().to_array(), [0; 4]);
        let mut m = idx;
        m[1] = 9;
        m.as_mut()[2] = 1;
        assert_eq!(m, Index::new([3, 9, 1]));
        assert_eq!((m[0], m[1], m[2]), (3, 9, 1));
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn component_out_of_range_panics() {
        let idx = Index::new([1, 2]);
        let _ = idx[2];
    }

    #[test]
    fn display_and_debug() {
        assert_eq!(Index::new([3, 4]).to_string(), "[3, 4]");
        assert_eq!(Index::new([7]).to_string(), "[7]");
        assert_eq!(
            Index::new([-1, 0, i32::MIN]).to_string(),
            "[-1, 0, -2147483648]"
        );
        assert_eq!(format!("{:>2}", Index::new([1, 2])), "[ 1,  2]");
        assert_eq!(format!("{:?}", Index::new([1, 2])), "Index([1, 2])");
    }

    #[test]
    fn hash_and_eq() {
        let set: HashSet<Index<2>> = [Index::new([1, 2]), Index::new([1, 2]), Index::new([2, 1])]
            .into_iter()
            .collect();
        assert_eq!(set.len(), 2);
        assert!(set.contains(&Index::new([2, 1])));
        assert_ne!(Index::new([1, 2]), Index::new([2, 1]));
    }
}
