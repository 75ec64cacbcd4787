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
/// only arithmetic, comparisons, `abs`, `min`, `max` and `clamp`.
///
/// Corresponds to the arithmetic types a C++ AMP template kernel function
/// may be instantiated with.
pub trait Number:
    sealed::Sealed + Copy + PartialOrd + Send + Sync + 'static + ops::Arith + math::Num
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
pub trait Integer: Number + math::Bits + ops::Shift {}

impl Number for i32 {}
impl Number for u32 {}
impl Number for f32 {}
impl Number for f64 {}
impl Float for f32 {}
impl Float for f64 {}
impl Integer for i32 {}
impl Integer for u32 {}
