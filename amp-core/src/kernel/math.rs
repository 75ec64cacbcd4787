//! Built-in functions of the kernel language, for the native (CPU) form of
//! kernel bodies. Each has the WGSL counterpart named in
//! [`Builtin`](amp_ir::Builtin).

/// Functions of both integers and floats.
pub trait Num: Copy {
    /// The smaller of the two.
    fn min(self, b: Self) -> Self;
    /// The larger of the two.
    fn max(self, b: Self) -> Self;
    /// `self` limited to `lo..=hi` (`min(max(self, lo), hi)`, as WGSL).
    fn clamp(self, lo: Self, hi: Self) -> Self {
        self.max(lo).min(hi)
    }
}

macro_rules! int_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn min(self, b: Self) -> Self { Ord::min(self, b) }
            fn max(self, b: Self) -> Self { Ord::max(self, b) }
        }
    )*};
}
int_num!(i32, u32, u8, i8, u16, i16);

macro_rules! float_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn min(self, b: Self) -> Self { <$t>::min(self, b) }
            fn max(self, b: Self) -> Self { <$t>::max(self, b) }
        }
    )*};
}
float_num!(f32, f64);

/// Absolute value, for the types Rust has it on (not `u32`).
#[diagnostic::on_unimplemented(
    message = "`abs` is not defined for `{Self}` in kernels",
    label = "as in Rust, unsigned integers have no `abs`"
)]
pub trait Abs: Copy {
    /// `|self|` (wrapping for `i32::MIN`, as WGSL's `abs` and Rust's
    /// release builds' `wrapping_abs`).
    fn abs(self) -> Self;
}

macro_rules! int_abs {
    ($($t:ty),*) => {$(
        impl Abs for $t {
            fn abs(self) -> Self { self.wrapping_abs() }
        }
    )*};
}
int_abs!(i32, i8, i16);

impl Abs for f32 {
    fn abs(self) -> Self {
        f32::abs(self)
    }
}

impl Abs for f64 {
    fn abs(self) -> Self {
        f64::abs(self)
    }
}

/// Integer bit functions, of `i32` and `u32` (a small integer's bits are
/// counted in the 32-bit word that holds it on GPUs: convert it first).
#[diagnostic::on_unimplemented(
    message = "the bit functions of `{Self}` are not supported in kernels",
    label = "convert it first: `(x as u32).count_ones()`",
    note = "kernels count and rotate the bits of `i32` and `u32` values"
)]
pub trait Bits: Euclid {
    /// Number of set bits (WGSL `countOneBits`).
    fn count_ones(self) -> u32;
    /// Leading zero bits (WGSL `countLeadingZeros`).
    fn leading_zeros(self) -> u32;
    /// Trailing zero bits (WGSL `countTrailingZeros`).
    fn trailing_zeros(self) -> u32;
    /// Bits reversed (WGSL `reverseBits`).
    fn reverse_bits(self) -> Self;
    /// Number of clear bits.
    fn count_zeros(self) -> u32;
    /// Leading one bits.
    fn leading_ones(self) -> u32;
    /// Trailing one bits.
    fn trailing_ones(self) -> u32;
    /// The bits rotated left by `n` (modulo 32).
    fn rotate_left(self, n: u32) -> Self;
    /// The bits rotated right by `n` (modulo 32).
    fn rotate_right(self, n: u32) -> Self;
    /// `|self - b|`, as a `u32` (Rust's `abs_diff`).
    fn abs_diff(self, b: Self) -> u32;
}

/// Wrapping integer arithmetic by name, of every kernel integer.
pub trait Wrapping: Copy {
    /// `self + b`, wrapping.
    fn wrapping_add(self, b: Self) -> Self;
    /// `self - b`, wrapping.
    fn wrapping_sub(self, b: Self) -> Self;
    /// `self * b`, wrapping.
    fn wrapping_mul(self, b: Self) -> Self;
    /// `-self`, wrapping.
    fn wrapping_neg(self) -> Self;
    /// `self` to the power `exp`, wrapping (kernel integers wrap; Rust's
    /// `pow` panics on overflow in debug builds).
    fn pow(self, exp: u32) -> Self;
}

macro_rules! wrapping {
    ($($t:ty),*) => {$(
        impl Wrapping for $t {
            fn wrapping_add(self, b: Self) -> Self { <$t>::wrapping_add(self, b) }
            fn wrapping_sub(self, b: Self) -> Self { <$t>::wrapping_sub(self, b) }
            fn wrapping_mul(self, b: Self) -> Self { <$t>::wrapping_mul(self, b) }
            fn wrapping_neg(self) -> Self { <$t>::wrapping_neg(self) }
            fn pow(self, exp: u32) -> Self { <$t>::wrapping_pow(self, exp) }
        }
    )*};
}
wrapping!(i32, u32, u8, i8, u16, i16);

/// Euclidean division, of integers and floats.
pub trait Euclid: Copy {
    /// The non-negative remainder of `self / b` (Rust's `rem_euclid`;
    /// integers wrap, and give 0 for `b == 0`, as kernel `%`).
    fn rem_euclid(self, b: Self) -> Self;
    /// The quotient that goes with [`Euclid::rem_euclid`] (integers wrap,
    /// and give `self` for `b == 0`, as kernel `/`).
    fn div_euclid(self, b: Self) -> Self;
}

macro_rules! int_euclid {
    ($($t:ty),*) => {$(
        impl Euclid for $t {
            fn rem_euclid(self, b: Self) -> Self {
                if b == 0 { 0 } else { <$t>::wrapping_rem_euclid(self, b) }
            }
            fn div_euclid(self, b: Self) -> Self {
                if b == 0 { self } else { <$t>::wrapping_div_euclid(self, b) }
            }
        }
    )*};
}
int_euclid!(i32, u32, u8, i8, u16, i16);

macro_rules! float_euclid {
    ($($t:ty),*) => {$(
        impl Euclid for $t {
            fn rem_euclid(self, b: Self) -> Self { <$t>::rem_euclid(self, b) }
            fn div_euclid(self, b: Self) -> Self { <$t>::div_euclid(self, b) }
        }
    )*};
}
float_euclid!(f32, f64);

/// `f32::from_bits` in kernels.
pub trait FromBits: Copy {
    /// The `f32` with these IEEE 754 bits (named after `f32::from_bits`,
    /// which the kernel form calls through this trait).
    #[allow(clippy::wrong_self_convention)]
    fn from_bits(self) -> f32;
}

impl FromBits for u32 {
    fn from_bits(self) -> f32 {
        f32::from_bits(self)
    }
}

/// `f16::from_f32(x)` in kernels (the `half` feature).
#[cfg(feature = "half")]
pub trait HalfFromF32: Copy {
    /// The nearest `f16` (named after `half::f16::from_f32`, which the
    /// kernel form calls through this trait).
    #[allow(clippy::wrong_self_convention)]
    fn from_f32(self) -> half::f16;
}

#[cfg(feature = "half")]
impl HalfFromF32 for f32 {
    fn from_f32(self) -> half::f16 {
        half::f16::from_f32(self)
    }
}

/// `f16::from_f64(x)` in kernels (the `half` feature).
#[cfg(feature = "half")]
pub trait HalfFromF64: Copy {
    /// The nearest `f16` (`half::f16::from_f64`).
    #[allow(clippy::wrong_self_convention)]
    fn from_f64(self) -> half::f16;
}

#[cfg(feature = "half")]
impl HalfFromF64 for f64 {
    fn from_f64(self) -> half::f16 {
        half::f16::from_f64(self)
    }
}

/// `h.to_f32()` and `h.to_f64()` of an `f16` in kernels (the `half`
/// feature); both are exact.
#[cfg(feature = "half")]
pub trait HalfTo: Copy {
    /// The value as an `f32`.
    #[allow(clippy::wrong_self_convention)]
    fn to_f32(self) -> f32;
    /// The value as an `f64`.
    #[allow(clippy::wrong_self_convention)]
    fn to_f64(self) -> f64;
}

#[cfg(feature = "half")]
impl HalfTo for half::f16 {
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
    fn to_f64(self) -> f64 {
        half::f16::to_f64(self)
    }
}

/// `is_power_of_two` (of `u32`, as in Rust).
pub trait PowerOfTwo: Copy {
    /// Whether exactly one bit is set.
    fn is_power_of_two(self) -> bool;
}

impl PowerOfTwo for u32 {
    fn is_power_of_two(self) -> bool {
        u32::is_power_of_two(self)
    }
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl Bits for $t {
            fn count_ones(self) -> u32 { <$t>::count_ones(self) }
            fn leading_zeros(self) -> u32 { <$t>::leading_zeros(self) }
            fn trailing_zeros(self) -> u32 { <$t>::trailing_zeros(self) }
            fn reverse_bits(self) -> Self { <$t>::reverse_bits(self) }
            fn count_zeros(self) -> u32 { <$t>::count_zeros(self) }
            fn leading_ones(self) -> u32 { <$t>::leading_ones(self) }
            fn trailing_ones(self) -> u32 { <$t>::trailing_ones(self) }
            fn rotate_left(self, n: u32) -> Self { <$t>::rotate_left(self, n) }
            fn rotate_right(self, n: u32) -> Self { <$t>::rotate_right(self, n) }
            fn abs_diff(self, b: Self) -> u32 { <$t>::abs_diff(self, b) }
        }
    )*};
}
bits!(i32, u32);

/// `to_bits` of an `f32` (an `f64`'s bits are a `u64`, which kernels lack).
pub trait ToBits: Copy {
    /// The IEEE 754 bits.
    fn to_bits(self) -> u32;
}

impl ToBits for f32 {
    fn to_bits(self) -> u32 {
        f32::to_bits(self)
    }
}

/// Float functions (`f32`, `f64`).
pub trait Float: Num + Abs + Euclid + Componentwise {
    /// Rounds half away from zero, as Rust's `round`.
    fn round(self) -> Self;
    #[allow(missing_docs)]
    fn trunc(self) -> Self;
    #[allow(missing_docs)]
    fn sin(self) -> Self;
    #[allow(missing_docs)]
    fn tan(self) -> Self;
    #[allow(missing_docs)]
    fn asin(self) -> Self;
    #[allow(missing_docs)]
    fn acos(self) -> Self;
    #[allow(missing_docs)]
    fn atan(self) -> Self;
    #[allow(missing_docs)]
    fn atan2(self, x: Self) -> Self;
    #[allow(missing_docs)]
    fn sinh(self) -> Self;
    #[allow(missing_docs)]
    fn cosh(self) -> Self;
    #[allow(missing_docs)]
    fn tanh(self) -> Self;
    #[allow(missing_docs)]
    fn powf(self, e: Self) -> Self;
    /// The sign, as Rust's `signum`: 1 for `+0.0` and positives, -1 for
    /// `-0.0` and negatives, NaN for NaN.
    fn signum(self) -> Self;
    /// `self - trunc(self)`, as Rust's `fract`.
    fn fract(self) -> Self;
    /// `self` to the integer power `n`.
    fn powi(self, n: i32) -> Self;
    /// The base-10 logarithm.
    fn log10(self) -> Self;
    /// Degrees to radians, as Rust: one multiplication.
    fn to_radians(self) -> Self;
    /// Radians to degrees, as Rust: one multiplication.
    fn to_degrees(self) -> Self;
    /// `self`'s magnitude with `sign`'s sign bit.
    fn copysign(self, sign: Self) -> Self;
    /// Whether `self` is NaN.
    fn is_nan(self) -> bool;
    /// Whether `self` is neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// Whether `self` is an infinity.
    fn is_infinite(self) -> bool;
    /// Whether the sign bit is set (`-0.0` and negative NaNs too).
    fn is_sign_negative(self) -> bool;
    /// Whether the sign bit is clear.
    fn is_sign_positive(self) -> bool;
    /// `sqrt(self^2 + y^2)` without overflow.
    fn hypot(self, y: Self) -> Self;
    /// The logarithm in `base`.
    fn log(self, base: Self) -> Self;
    /// `ln(1 + self)`, accurate for small `self`.
    fn ln_1p(self) -> Self;
    /// `e^self - 1`, accurate for small `self`.
    fn exp_m1(self) -> Self;
    /// The cube root.
    fn cbrt(self) -> Self;
    #[allow(missing_docs)]
    fn asinh(self) -> Self;
    #[allow(missing_docs)]
    fn acosh(self) -> Self;
    #[allow(missing_docs)]
    fn atanh(self) -> Self;
    /// `(sin(self), cos(self))`.
    fn sin_cos(self) -> (Self, Self);
}

macro_rules! float_fns {
    ($($t:ty),*) => {$(
        impl Float for $t {
            fn round(self) -> Self { <$t>::round(self) }
            fn trunc(self) -> Self { <$t>::trunc(self) }
            fn sin(self) -> Self { <$t>::sin(self) }
            fn tan(self) -> Self { <$t>::tan(self) }
            fn asin(self) -> Self { <$t>::asin(self) }
            fn acos(self) -> Self { <$t>::acos(self) }
            fn atan(self) -> Self { <$t>::atan(self) }
            fn atan2(self, x: Self) -> Self { <$t>::atan2(self, x) }
            fn sinh(self) -> Self { <$t>::sinh(self) }
            fn cosh(self) -> Self { <$t>::cosh(self) }
            fn tanh(self) -> Self { <$t>::tanh(self) }
            fn powf(self, e: Self) -> Self { <$t>::powf(self, e) }
            fn signum(self) -> Self { <$t>::signum(self) }
            fn fract(self) -> Self { <$t>::fract(self) }
            fn powi(self, n: i32) -> Self { <$t>::powi(self, n) }
            fn log10(self) -> Self { <$t>::log10(self) }
            fn to_radians(self) -> Self { <$t>::to_radians(self) }
            fn to_degrees(self) -> Self { <$t>::to_degrees(self) }
            fn copysign(self, sign: Self) -> Self { <$t>::copysign(self, sign) }
            fn is_nan(self) -> bool { <$t>::is_nan(self) }
            fn is_finite(self) -> bool { <$t>::is_finite(self) }
            fn is_infinite(self) -> bool { <$t>::is_infinite(self) }
            fn is_sign_negative(self) -> bool { <$t>::is_sign_negative(self) }
            fn is_sign_positive(self) -> bool { <$t>::is_sign_positive(self) }
            fn hypot(self, y: Self) -> Self { <$t>::hypot(self, y) }
            fn log(self, base: Self) -> Self { <$t>::log(self, base) }
            fn ln_1p(self) -> Self { <$t>::ln_1p(self) }
            fn exp_m1(self) -> Self { <$t>::exp_m1(self) }
            fn cbrt(self) -> Self { <$t>::cbrt(self) }
            fn asinh(self) -> Self { <$t>::asinh(self) }
            fn acosh(self) -> Self { <$t>::acosh(self) }
            fn atanh(self) -> Self { <$t>::atanh(self) }
            fn sin_cos(self) -> (Self, Self) { <$t>::sin_cos(self) }
        }
    )*};
}
float_fns!(f32, f64);

/// Float functions that apply to short vectors too, component by component
/// (WGSL's built-ins take vectors for these).
#[diagnostic::on_unimplemented(
    message = "this math function applies to `f32`, `f64` and float short vectors, not `{Self}`",
    label = "not a float or a float vector"
)]
pub trait Componentwise: Copy {
    #[allow(missing_docs)]
    fn sqrt(self) -> Self;
    #[allow(missing_docs)]
    fn floor(self) -> Self;
    #[allow(missing_docs)]
    fn ceil(self) -> Self;
    #[allow(missing_docs)]
    fn exp(self) -> Self;
    #[allow(missing_docs)]
    fn exp2(self) -> Self;
    #[allow(missing_docs)]
    fn ln(self) -> Self;
    #[allow(missing_docs)]
    fn log2(self) -> Self;
    #[allow(missing_docs)]
    fn cos(self) -> Self;
    /// `self * a + b`.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `1 / self`.
    fn recip(self) -> Self;
}

macro_rules! scalar_componentwise {
    ($($t:ty),*) => {$(
        impl Componentwise for $t {
            fn sqrt(self) -> Self { <$t>::sqrt(self) }
            fn floor(self) -> Self { <$t>::floor(self) }
            fn ceil(self) -> Self { <$t>::ceil(self) }
            fn exp(self) -> Self { <$t>::exp(self) }
            fn exp2(self) -> Self { <$t>::exp2(self) }
            fn ln(self) -> Self { <$t>::ln(self) }
            fn log2(self) -> Self { <$t>::log2(self) }
            fn cos(self) -> Self { <$t>::cos(self) }
            fn mul_add(self, a: Self, b: Self) -> Self { self * a + b }
            fn recip(self) -> Self { 1.0 / self }
        }
    )*};
}
scalar_componentwise!(f32, f64);

/// Geometric functions of float vectors (WGSL `dot`, `length`, `distance`,
/// `normalize`).
#[diagnostic::on_unimplemented(
    message = "`dot`, `length`, `distance` and `normalize` apply to float short vectors (`Float2`..`Double4`), not `{Self}`",
    label = "not a float short vector"
)]
pub trait Geometric: Copy {
    /// The component type.
    type Scalar;
    /// The dot product.
    fn dot(self, o: Self) -> Self::Scalar;
    /// The Euclidean length.
    fn length(self) -> Self::Scalar;
    /// The length of `self - o`.
    fn distance(self, o: Self) -> Self::Scalar;
    /// `self / self.length()`.
    fn normalize(self) -> Self;
}

/// The cross product of 3-component float vectors (WGSL `cross`).
#[diagnostic::on_unimplemented(
    message = "`cross` applies to `Float3` and `Double3`, not `{Self}`",
    label = "not a 3-component float vector"
)]
pub trait Cross: Copy {
    /// `self x o`.
    fn cross(self, o: Self) -> Self;
}

/// `Extent` methods in kernels: `contains` (as on the host) and `size`,
/// which in kernels is C++ AMP's `unsigned int` (a wrapping `u32` product;
/// the host's `Extent::size` is a `u64`).
#[diagnostic::on_unimplemented(
    message = "`contains` and `size` apply to an `Extent<N>` in kernels, not `{Self}`",
    label = "not an extent"
)]
pub trait Shape<const N: usize>: Copy {
    /// Whether every component of `idx` is in `0..self[d]`.
    fn contains(self, idx: &crate::Index<N>) -> bool;
    /// The number of indices, wrapping at `u32::MAX` as on GPUs.
    fn size(self) -> u32;
}

impl<const N: usize> Shape<N> for crate::Extent<N> {
    fn contains(self, idx: &crate::Index<N>) -> bool {
        crate::Extent::contains(&self, idx)
    }
    fn size(self) -> u32 {
        self.to_array()
            .iter()
            .fold(1u32, |p, &c| p.wrapping_mul(c as u32))
    }
}

/// Row-major positions in an extent, for views made with `view_as` inside
/// kernels (implemented for extents and for index values holding one).
pub trait Reshape<const N: usize>: Copy {
    /// The row-major position of `idx` (wrapping `i32` arithmetic, as on
    /// GPUs).
    ///
    /// # Panics
    ///
    /// If `idx` is outside the extent (the kernel fails, as with any
    /// out-of-bounds access on the CPU accelerator).
    fn linearize(self, idx: impl crate::kernel::native::IntoIndex<N>) -> i32;
    /// The index at row-major position `k` (the first component takes what
    /// is left: out of bounds if `k` is).
    fn delinearize(self, k: i32) -> crate::Index<N>;
}

#[track_caller]
fn linearize<const N: usize>(e: [i32; N], idx: crate::Index<N>) -> i32 {
    // As every container access on the CPU accelerator: an index outside
    // the view's extent fails the kernel (a GPU reads some element), with
    // the access's own line.
    if (0..N).any(|d| idx[d] as u32 >= e[d] as u32) {
        crate::kernel::native::out_of_bounds(
            "kernel index",
            idx,
            "extent",
            e.map(|b| b as usize),
            std::panic::Location::caller(),
        );
    }
    let mut acc = if N > 0 { idx[0] } else { 0 };
    for d in 1..N {
        acc = acc.wrapping_mul(e[d]).wrapping_add(idx[d]);
    }
    acc
}

use crate::kernel::native::delinearize;

impl<const N: usize> Reshape<N> for crate::Extent<N> {
    #[track_caller]
    fn linearize(self, idx: impl crate::kernel::native::IntoIndex<N>) -> i32 {
        linearize(self.to_array(), idx.into_index())
    }
    fn delinearize(self, k: i32) -> crate::Index<N> {
        delinearize(self.to_array(), k)
    }
}

impl<const N: usize> Reshape<N> for crate::Index<N> {
    #[track_caller]
    fn linearize(self, idx: impl crate::kernel::native::IntoIndex<N>) -> i32 {
        linearize(self.to_array(), idx.into_index())
    }
    fn delinearize(self, k: i32) -> crate::Index<N> {
        delinearize(self.to_array(), k)
    }
}

/// Bit reinterpretation between 4-byte scalars, for views made with
/// `reinterpret_as` inside kernels: `value.bitcast_as(witness)` has the
/// type of the witness (a value of it, or a container of it, which is not
/// read).
pub trait BitcastAs<W> {
    /// The reinterpreted type.
    type Out;
    /// `self`'s bits as [`Self::Out`](BitcastAs::Out).
    fn bitcast_as(self, witness: W) -> Self::Out;
}

macro_rules! bitcast_scalars {
    ($($from:ty => $($to:ty),*);* $(;)?) => {$($(
        impl BitcastAs<$to> for $from {
            type Out = $to;
            fn bitcast_as(self, _: $to) -> $to {
                bytemuck::cast(self)
            }
        }
    )*)*};
}

bitcast_scalars! {
    f32 => f32, i32, u32;
    i32 => f32, i32, u32;
    u32 => f32, i32, u32;
}

impl<S, T, const N: usize, A> BitcastAs<&crate::kernel::native::CpuView<T, N, A>> for S
where
    S: bytemuck::Pod,
    T: crate::Element,
    A: crate::Access,
{
    type Out = T;
    fn bitcast_as(self, _: &crate::kernel::native::CpuView<T, N, A>) -> T {
        bytemuck::cast(self)
    }
}

macro_rules! vector_math {
    (float $($name:ident($t:ty) [$($f:ident),+]);* $(;)?) => {$(
        impl Componentwise for crate::$name {
            fn sqrt(self) -> Self { Self::new($(self.$f.sqrt()),+) }
            fn floor(self) -> Self { Self::new($(self.$f.floor()),+) }
            fn ceil(self) -> Self { Self::new($(self.$f.ceil()),+) }
            fn exp(self) -> Self { Self::new($(self.$f.exp()),+) }
            fn exp2(self) -> Self { Self::new($(self.$f.exp2()),+) }
            fn ln(self) -> Self { Self::new($(self.$f.ln()),+) }
            fn log2(self) -> Self { Self::new($(self.$f.log2()),+) }
            fn cos(self) -> Self { Self::new($(self.$f.cos()),+) }
            fn mul_add(self, a: Self, b: Self) -> Self { Self::new($(self.$f * a.$f + b.$f),+) }
            fn recip(self) -> Self { Self::new($(1.0 / self.$f),+) }
        }
        impl Abs for crate::$name {
            fn abs(self) -> Self { Self::new($(self.$f.abs()),+) }
        }
        impl Num for crate::$name {
            fn min(self, b: Self) -> Self { Self::new($(<$t>::min(self.$f, b.$f)),+) }
            fn max(self, b: Self) -> Self { Self::new($(<$t>::max(self.$f, b.$f)),+) }
        }
        impl Geometric for crate::$name {
            type Scalar = $t;
            fn dot(self, o: Self) -> $t { crate::$name::dot(self, o) }
            fn length(self) -> $t { crate::$name::length(self) }
            fn distance(self, o: Self) -> $t { crate::$name::distance(self, o) }
            fn normalize(self) -> Self { crate::$name::normalize(self) }
        }
    )*};
    (int $($name:ident($t:ty) [$($f:ident),+]);* $(;)?) => {$(
        impl Num for crate::$name {
            fn min(self, b: Self) -> Self { Self::new($(Ord::min(self.$f, b.$f)),+) }
            fn max(self, b: Self) -> Self { Self::new($(Ord::max(self.$f, b.$f)),+) }
        }
    )*};
}
vector_math!(float
    Float2(f32) [x, y]; Float3(f32) [x, y, z]; Float4(f32) [x, y, z, w];
    Double2(f64) [x, y]; Double3(f64) [x, y, z]; Double4(f64) [x, y, z, w];
);
vector_math!(int
    Int2(i32) [x, y]; Int3(i32) [x, y, z]; Int4(i32) [x, y, z, w];
    UInt2(u32) [x, y]; UInt3(u32) [x, y, z]; UInt4(u32) [x, y, z, w];
);

macro_rules! signed_abs {
    ($($name:ident [$($f:ident),+]);*) => {$(
        impl Abs for crate::$name {
            fn abs(self) -> Self { Self::new($(self.$f.wrapping_abs()),+) }
        }
    )*};
}
signed_abs!(Int2 [x, y]; Int3 [x, y, z]; Int4 [x, y, z, w]);

impl Cross for crate::Float3 {
    fn cross(self, o: Self) -> Self {
        crate::Float3::cross(self, o)
    }
}

impl Cross for crate::Double3 {
    fn cross(self, o: Self) -> Self {
        crate::Double3::cross(self, o)
    }
}
