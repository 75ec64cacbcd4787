//! [`Number`], [`Float`] and [`Integer`]: the bounds of generic `#[kernel]`
//! functions.

use crate::kernel::math;
use crate::kernel::native::ops;

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A number kernels compute with: `i32`, `u32`, `f32` or `f64`. Sealed.
///
/// The bound of a generic `#[kernel]` function's type parameter that needs
/// only arithmetic, comparisons, `min`, `max` and `clamp`. (`abs` and
/// negation need [`Float`]: as in Rust, `u32` has neither.)
///
/// Corresponds to the arithmetic types a C++ AMP template kernel function
/// may be instantiated with.
///
/// # Examples
///
/// ```
/// use amp_core::{Number, kernel};
///
/// /// The middle one of three values.
/// #[kernel]
/// fn median3<T: Number>(a: T, b: T, c: T) -> T {
///     a.min(b).max(a.max(b).min(c))
/// }
///
/// assert_eq!(median3(3, 1, 2), 2);
/// assert_eq!(median3(0.5f32, 2.0, 1.0), 1.0);
/// assert_eq!(median3(7u32, 9, 8), 8);
/// ```
pub trait Number:
    sealed::Sealed
    + Copy
    + PartialOrd
    + Send
    + Sync
    + 'static
    + ops::Arith
    + math::Num
    + crate::Element
    + crate::kernel::capture::Capture<Cpu = Self>
    + for<'a> crate::kernel::capture::BindNative<Out<'a> = Self>
{
}

/// `f32` or `f64`: a [`Number`] with the float math functions (`sqrt`,
/// `exp`, `sin`, `mul_add`, ...).
///
/// Corresponds to C++ AMP's `fast_math`/`precise_math` function families.
///
/// # Examples
///
/// ```
/// use amp_core::{Float, kernel};
///
/// #[kernel]
/// fn hypot<T: Float>(a: T, b: T) -> T {
///     (a * a + b * b).sqrt()
/// }
///
/// assert_eq!(hypot(3.0f32, 4.0), 5.0);
/// ```
pub trait Float: Number + math::Float + ops::Negate {}

/// `i32` or `u32`: a [`Number`] with the bit functions and shifts.
///
/// Corresponds to the `int` and `unsigned int` instantiations of a C++ AMP
/// template kernel function, with the bit intrinsics (`countbits`,
/// `firstbithigh`, `firstbitlow`, `reversebits`).
///
/// # Examples
///
/// ```
/// use amp_core::{Integer, kernel};
///
/// /// The position of the highest set bit (`x` must not be zero).
/// #[kernel]
/// fn highest_bit<T: Integer>(x: T) -> u32 {
///     31 - x.leading_zeros()
/// }
///
/// #[kernel]
/// fn halve<T: Integer>(x: T) -> T {
///     x >> 1u32
/// }
///
/// assert_eq!(highest_bit(1u32 << 10), 10);
/// assert_eq!(highest_bit(5i32), 2);
/// assert_eq!(halve(-8i32), -4); // arithmetic shift for i32
/// ```
pub trait Integer: Number + math::Bits + ops::Shift {}

impl Number for i32 {}
impl Number for u32 {}
impl Number for f32 {}
impl Number for f64 {}
impl Float for f32 {}
impl Float for f64 {}
impl Integer for i32 {}
impl Integer for u32 {}
