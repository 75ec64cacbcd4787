//! C++ AMP's short vector types: [`Int2`](crate::Int2) ...
//! [`Double4`](crate::Double4).
//!
//! Each short vector is a small `Copy` struct of 2, 3 or 4 scalar
//! components with public fields `x`, `y`, `z`, `w`, laid out exactly like
//! the WGSL vector `vecN<T>` in a storage buffer, so it can be stored in
//! accelerator memory ([`Element`](crate::Element)) and used as a field of
//! `#[derive(Element)]` structs.
//!
//! | Rust | C++ AMP | WGSL | size | alignment |
//! |---|---|---|---|---|
//! | [`Int2`](crate::Int2), [`Int3`](crate::Int3), [`Int4`](crate::Int4) | `int_2`, `int_3`, `int_4` | `vec2<i32>`, `vec3<i32>`, `vec4<i32>` | 8, 16, 16 | 8, 16, 16 |
//! | [`UInt2`](crate::UInt2), [`UInt3`](crate::UInt3), [`UInt4`](crate::UInt4) | `uint_2`, `uint_3`, `uint_4` | `vec2<u32>`, `vec3<u32>`, `vec4<u32>` | 8, 16, 16 | 8, 16, 16 |
//! | [`Float2`](crate::Float2), [`Float3`](crate::Float3), [`Float4`](crate::Float4) | `float_2`, `float_3`, `float_4` | `vec2<f32>`, `vec3<f32>`, `vec4<f32>` | 8, 16, 16 | 8, 16, 16 |
//! | [`Double2`](crate::Double2), [`Double3`](crate::Double3), [`Double4`](crate::Double4) | `double_2`, `double_3`, `double_4` | `vec2<f64>`, `vec3<f64>`, `vec4<f64>` | 16, 32, 32 | 16, 32, 32 |
//!
//! The 3-component vectors take as many bytes as WGSL's array stride of
//! `vec3<T>` (16, or 32 for `f64`): the last 4 (or 8) bytes are padding.
//!
//! Arithmetic is componentwise, with another vector or with a scalar on
//! either side; integer arithmetic wraps on overflow, as it does in kernels.
//! Swizzles (C++ AMP's `v.zyx`) are methods: `v.zyx()` is the vector of
//! `v`'s components `z`, `y`, `x`, for every choice of 2 to 4 distinct
//! components, on the host and in kernels.
//!
//! ```
//! use amp_core::{Float2, Float4};
//!
//! let v = Float4::new(1.0, 2.0, 3.0, 4.0);
//! assert_eq!(v.wzyx(), Float4::new(4.0, 3.0, 2.0, 1.0));
//! assert_eq!(v.xz(), Float2::new(1.0, 3.0));
//! ```

use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use crate::{Element, ElementType, ScalarType};

/// Componentwise scalar arithmetic: wrapping for integers (as in kernels),
/// IEEE 754 for floats.
trait Arith: Copy {
    fn add(self, rhs: Self) -> Self;
    fn sub(self, rhs: Self) -> Self;
    fn mul(self, rhs: Self) -> Self;
    fn div(self, rhs: Self) -> Self;
    fn rem(self, rhs: Self) -> Self;
    fn neg(self) -> Self;
}

macro_rules! impl_int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn add(self, rhs: Self) -> Self {
                self.wrapping_add(rhs)
            }
            #[inline]
            fn sub(self, rhs: Self) -> Self {
                self.wrapping_sub(rhs)
            }
            #[inline]
            fn mul(self, rhs: Self) -> Self {
                self.wrapping_mul(rhs)
            }
            #[inline]
            fn div(self, rhs: Self) -> Self {
                self.wrapping_div(rhs)
            }
            #[inline]
            fn rem(self, rhs: Self) -> Self {
                self.wrapping_rem(rhs)
            }
            #[inline]
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
        }
    )*};
}

macro_rules! impl_float_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn add(self, rhs: Self) -> Self {
                self + rhs
            }
            #[inline]
            fn sub(self, rhs: Self) -> Self {
                self - rhs
            }
            #[inline]
            fn mul(self, rhs: Self) -> Self {
                self * rhs
            }
            #[inline]
            fn div(self, rhs: Self) -> Self {
                self / rhs
            }
            #[inline]
            fn rem(self, rhs: Self) -> Self {
                self % rhs
            }
            #[inline]
            fn neg(self) -> Self {
                -self
            }
        }
    )*};
}

impl_int_arith!(i32, u32);
impl_float_arith!(f32, f64);

/// Expands to `$value`, once per component `$f` (for `splat`).
macro_rules! component_value {
    ($f:ident, $value:ident) => {
        $value
    };
}

/// Implements a componentwise binary operator and its compound assignment,
/// with a vector or a scalar on either side.
macro_rules! impl_binop {
    ($name:ident, $t:ty, [$($f:ident),+], $Op:ident :: $op:ident, $OpAssign:ident :: $op_assign:ident) => {
        impl $Op for $name {
            type Output = Self;
            #[inline]
            fn $op(self, rhs: Self) -> Self {
                Self::new($(Arith::$op(self.$f, rhs.$f)),+)
            }
        }

        impl $Op<$t> for $name {
            type Output = Self;
            #[inline]
            fn $op(self, rhs: $t) -> Self {
                Self::new($(Arith::$op(self.$f, rhs)),+)
            }
        }

        impl $Op<$name> for $t {
            type Output = $name;
            #[inline]
            fn $op(self, rhs: $name) -> $name {
                $name::new($(Arith::$op(self, rhs.$f)),+)
            }
        }

        impl $OpAssign for $name {
            #[inline]
            fn $op_assign(&mut self, rhs: Self) {
                *self = $Op::$op(*self, rhs);
            }
        }

        impl $OpAssign<$t> for $name {
            #[inline]
            fn $op_assign(&mut self, rhs: $t) {
                *self = $Op::$op(*self, rhs);
            }
        }
    };
}

/// The operators and traits that depend on the component kind: `Neg` for
/// signed and float vectors, `%`, `Eq` and `Hash` for integer vectors.
macro_rules! impl_kind {
    (int, $name:ident, $t:ty, [$($f:ident),+]) => {
        impl_kind!(@neg $name, [$($f),+]);
        impl_kind!(@integer $name, $t, [$($f),+]);
    };
    (uint, $name:ident, $t:ty, [$($f:ident),+]) => {
        impl_kind!(@integer $name, $t, [$($f),+]);
    };
    (float, $name:ident, $t:ty, [$($f:ident),+]) => {
        impl_kind!(@neg $name, [$($f),+]);

        impl $name {
            /// The dot product: the sum of the componentwise products.
            ///
            /// Corresponds to HLSL's and WGSL's `dot` (C++ AMP's short vectors
            /// have none; its samples write the sum out). Also available in
            /// kernels.
            #[inline]
            #[must_use]
            pub fn dot(self, other: Self) -> $t {
                let mut sum: $t = 0.0;
                $(sum += self.$f * other.$f;)+
                sum
            }

            /// The Euclidean length, `self.dot(self).sqrt()`.
            ///
            /// Also available in kernels (WGSL `length`).
            #[inline]
            #[must_use]
            pub fn length(self) -> $t {
                self.dot(self).sqrt()
            }

            /// The length of `self - other`.
            ///
            /// Also available in kernels (WGSL `distance`).
            #[inline]
            #[must_use]
            pub fn distance(self, other: Self) -> $t {
                (self - other).length()
            }

            /// The vector of length 1 in `self`'s direction: `self /
            /// self.length()` (NaN components for a zero vector).
            ///
            /// Also available in kernels (WGSL `normalize`).
            #[inline]
            #[must_use]
            pub fn normalize(self) -> Self {
                self / self.length()
            }
        }
    };
    (@neg $name:ident, [$($f:ident),+]) => {
        impl Neg for $name {
            type Output = Self;
            #[inline]
            fn neg(self) -> Self {
                Self::new($(Arith::neg(self.$f)),+)
            }
        }
    };
    (@integer $name:ident, $t:ty, [$($f:ident),+]) => {
        impl_binop!($name, $t, [$($f),+], Rem::rem, RemAssign::rem_assign);

        impl Eq for $name {}

        impl Hash for $name {
            fn hash<H: Hasher>(&self, state: &mut H) {
                $(self.$f.hash(state);)+
            }
        }
    };
}

macro_rules! short_vector {
    (
        $(#[$attr:meta])*
        $name:ident($t:ty, $scalar:ident, $cpp:literal, $kind:ident, len $len:literal, align $align:literal)
        { $($f:ident),+ } $(pad $pad:ty)?;
        example [$ex0:literal $(, $ex:literal)*], two $two:literal, display $display:literal $(,)?
    ) => {
        #[doc = concat!(
            "A vector of ", stringify!($len), " `", stringify!($t), "` components, laid out like WGSL `vec",
            stringify!($len), "<", stringify!($t), ">` in a storage buffer."
        )]
        ///
        #[doc = concat!("Corresponds to C++ AMP `concurrency::graphics::", $cpp, "`.")]
        ///
        $(#[$attr])*
        ///
        /// The components are the public fields. Arithmetic (`+`, `-`, `*`,
        /// `/`, and `%` for integer vectors) is componentwise, with another
        /// vector or with a scalar on either side (the scalar is then used
        /// for every component), and each operator has its compound
        /// assignment (`+=`, ...). Integer arithmetic wraps on overflow, as
        /// it does in kernels; integer division and remainder by zero panic
        /// on the CPU. Signed and float vectors also have unary `-`.
        /// [`Display`](core::fmt::Display) writes the components as
        /// `(x, y, ...)`, passing the format options on to each.
        ///
        /// # Examples
        ///
        /// ```
        #[doc = concat!("use amp_core::{Element, ", stringify!($name), "};")]
        ///
        #[doc = concat!("let v = ", stringify!($name), "::new(", stringify!($ex0 $(, $ex)*), ");")]
        #[doc = concat!("assert_eq!(v.to_array(), [", stringify!($ex0 $(, $ex)*), "]);")]
        #[doc = concat!("assert_eq!(v + v, v * ", stringify!($two), ");")]
        #[doc = concat!("assert_eq!(", stringify!($two), " * v - v, v);")]
        #[doc = concat!("assert_eq!(v.to_string(), \"", $display, "\");")]
        #[doc = concat!(
            "assert_eq!(", stringify!($name), "::WGSL_SIZE, size_of::<", stringify!($name), ">());"
        )]
        /// ```
        #[repr(C, align($align))]
        #[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $name {
            $(
                #[doc = concat!("The `", stringify!($f), "` component.")]
                pub $f: $t,
            )+
            $(
                /// Padding up to WGSL's array stride; zero when built by the
                /// constructors, ignored by comparisons.
                _pad: $pad,
            )?
        }

        impl $name {
            /// Creates a vector from its components.
            ///
            #[doc = concat!("Corresponds to C++ AMP's `", $cpp, "(", stringify!($($f),+), ")` constructor.")]
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use amp_core::", stringify!($name), ";")]
            ///
            #[doc = concat!("let v = ", stringify!($name), "::new(", stringify!($ex0 $(, $ex)*), ");")]
            #[doc = concat!("assert_eq!(v.x, ", stringify!($ex0), ");")]
            /// ```
            #[inline]
            #[must_use]
            pub const fn new($($f: $t),+) -> Self {
                Self {
                    $($f,)+
                    // Zero.
                    $(_pad: <$pad>::MIN,)?
                }
            }

            /// Creates a vector with every component equal to `value`.
            ///
            #[doc = concat!("Corresponds to C++ AMP's `", $cpp, "(value)` constructor.")]
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use amp_core::", stringify!($name), ";")]
            ///
            #[doc = concat!(
                "assert_eq!(", stringify!($name), "::splat(", stringify!($two), ").to_array(), [",
                stringify!($two), "; ", stringify!($len), "]);"
            )]
            /// ```
            #[inline]
            #[must_use]
            pub const fn splat(value: $t) -> Self {
                Self::new($(component_value!($f, value)),+)
            }

            /// Returns the components as an array, `x` first.
            ///
            /// The same as `<[T; N]>::from(self)`.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use amp_core::", stringify!($name), ";")]
            ///
            #[doc = concat!(
                "let v = ", stringify!($name), "::new(", stringify!($ex0 $(, $ex)*), ");"
            )]
            #[doc = concat!("assert_eq!(v.to_array(), [", stringify!($ex0 $(, $ex)*), "]);")]
            /// ```
            #[inline]
            #[must_use]
            pub const fn to_array(self) -> [$t; $len] {
                [$(self.$f),+]
            }
        }

        impl From<[$t; $len]> for $name {
            #[inline]
            fn from([$($f),+]: [$t; $len]) -> Self {
                Self::new($($f),+)
            }
        }

        impl From<$name> for [$t; $len] {
            #[inline]
            fn from(v: $name) -> Self {
                v.to_array()
            }
        }

        impl PartialEq for $name {
            #[inline]
            fn eq(&self, other: &Self) -> bool {
                $(self.$f == other.$f)&&+
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    $(.field(stringify!($f), &self.$f))+
                    .finish()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("(")?;
                for (i, c) in self.to_array().iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    fmt::Display::fmt(c, f)?;
                }
                f.write_str(")")
            }
        }

        impl_binop!($name, $t, [$($f),+], Add::add, AddAssign::add_assign);
        impl_binop!($name, $t, [$($f),+], Sub::sub, SubAssign::sub_assign);
        impl_binop!($name, $t, [$($f),+], Mul::mul, MulAssign::mul_assign);
        impl_binop!($name, $t, [$($f),+], Div::div, DivAssign::div_assign);
        impl_kind!($kind, $name, $t, [$($f),+]);

        impl Element for $name {
            const WGSL_SIZE: usize =
                Self::WGSL_MEMBER_SIZE.div_ceil(Self::WGSL_ALIGN) * Self::WGSL_ALIGN;
            const WGSL_MEMBER_SIZE: usize = $len * size_of::<$t>();
            const WGSL_ALIGN: usize = size_of::<$t>() * if $len == 2 { 2 } else { 4 };
            const REQUIRES_F64: bool = matches!(ScalarType::$scalar, ScalarType::F64);

            fn element_type() -> ElementType {
                ElementType::vector($len, ScalarType::$scalar)
            }
        }

        const _: () = assert!(
            <$name as Element>::WGSL_SIZE == size_of::<$name>()
                && <$name as Element>::WGSL_ALIGN == align_of::<$name>(),
            concat!("the host layout of `", stringify!($name), "` differs from WGSL's")
        );
    };
}

short_vector! {
    /// Takes 8 bytes, aligned to 8.
    Int2(i32, I32, "int_2", int, len 2, align 8) { x, y };
    example [1, -2], two 2, display "(1, -2)",
}

short_vector! {
    /// Takes 16 bytes, aligned to 16, like `vec3<i32>` in a WGSL array: the
    /// last 4 bytes are padding. As a field of a `#[derive(Element)]` struct
    /// it must be the last field or be followed by a field aligned to at
    /// least 8 bytes (such as a `Int2` or `Int4`): WGSL would place a 4-byte
    /// field inside the padding, so the derive refuses that. Put 4-byte
    /// fields before the vector instead, with explicit padding up to its
    /// 16-byte boundary.
    Int3(i32, I32, "int_3", int, len 3, align 16) { x, y, z } pad u32;
    example [1, -2, 3], two 2, display "(1, -2, 3)",
}

short_vector! {
    /// Takes 16 bytes, aligned to 16.
    Int4(i32, I32, "int_4", int, len 4, align 16) { x, y, z, w };
    example [1, -2, 3, -4], two 2, display "(1, -2, 3, -4)",
}

short_vector! {
    /// Takes 8 bytes, aligned to 8.
    UInt2(u32, U32, "uint_2", uint, len 2, align 8) { x, y };
    example [1, 2], two 2, display "(1, 2)",
}

short_vector! {
    /// Takes 16 bytes, aligned to 16, like `vec3<u32>` in a WGSL array: the
    /// last 4 bytes are padding. As a field of a `#[derive(Element)]` struct
    /// it must be the last field or be followed by a field aligned to at
    /// least 8 bytes (such as a `UInt2` or `UInt4`): WGSL would place a 4-byte
    /// field inside the padding, so the derive refuses that. Put 4-byte
    /// fields before the vector instead, with explicit padding up to its
    /// 16-byte boundary.
    UInt3(u32, U32, "uint_3", uint, len 3, align 16) { x, y, z } pad u32;
    example [1, 2, 3], two 2, display "(1, 2, 3)",
}

short_vector! {
    /// Takes 16 bytes, aligned to 16.
    UInt4(u32, U32, "uint_4", uint, len 4, align 16) { x, y, z, w };
    example [1, 2, 3, 4], two 2, display "(1, 2, 3, 4)",
}

short_vector! {
    /// Takes 8 bytes, aligned to 8.
    Float2(f32, F32, "float_2", float, len 2, align 8) { x, y };
    example [1.5, -2.0], two 2.0, display "(1.5, -2)",
}

short_vector! {
    /// Takes 16 bytes, aligned to 16, like `vec3<f32>` in a WGSL array: the
    /// last 4 bytes are padding. As a field of a `#[derive(Element)]` struct
    /// it must be the last field or be followed by a field aligned to at
    /// least 8 bytes (such as a `Float2` or `Float4`): WGSL would place a 4-byte
    /// field inside the padding, so the derive refuses that. Put 4-byte
    /// fields before the vector instead, with explicit padding up to its
    /// 16-byte boundary.
    Float3(f32, F32, "float_3", float, len 3, align 16) { x, y, z } pad u32;
    example [1.5, -2.0, 3.0], two 2.0, display "(1.5, -2, 3)",
}

short_vector! {
    /// Takes 16 bytes, aligned to 16.
    Float4(f32, F32, "float_4", float, len 4, align 16) { x, y, z, w };
    example [1.5, -2.0, 3.0, 0.25], two 2.0, display "(1.5, -2, 3, 0.25)",
}

short_vector! {
    /// Takes 16 bytes, aligned to 16. Kernels using it need an accelerator
    /// with double-precision support.
    Double2(f64, F64, "double_2", float, len 2, align 16) { x, y };
    example [1.5, -2.0], two 2.0, display "(1.5, -2)",
}

short_vector! {
    /// Takes 32 bytes, aligned to 32, like `vec3<f64>` in a WGSL array: the
    /// last 8 bytes are padding. As a field of a `#[derive(Element)]` struct
    /// it must be the last field or be followed by a field aligned to at
    /// least 16 bytes (such as a `Double2` or `Double4`): WGSL would place
    /// an 8-byte or smaller field inside the padding, so the derive refuses
    /// that. Put smaller fields before the vector instead, with explicit
    /// padding up to its 32-byte boundary. Kernels using it need an
    /// accelerator with double-precision support.
    Double3(f64, F64, "double_3", float, len 3, align 32) { x, y, z } pad u64;
    example [1.5, -2.0, 3.0], two 2.0, display "(1.5, -2, 3)",
}

short_vector! {
    /// Takes 32 bytes, aligned to 32. Kernels using it need an accelerator
    /// with double-precision support.
    Double4(f64, F64, "double_4", float, len 4, align 32) { x, y, z, w };
    example [1.5, -2.0, 3.0, 0.25], two 2.0, display "(1.5, -2, 3, 0.25)",
}

macro_rules! cross {
    ($($name:ident),*) => {$(
        impl $name {
            /// The cross product `self x other`.
            ///
            /// Also available in kernels (WGSL `cross`).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use amp_core::", stringify!($name), ";")]
            ///
            #[doc = concat!("let (x, y) = (", stringify!($name), "::new(1.0, 0.0, 0.0), ", stringify!($name), "::new(0.0, 1.0, 0.0));")]
            #[doc = concat!("assert_eq!(x.cross(y), ", stringify!($name), "::new(0.0, 0.0, 1.0));")]
            /// assert_eq!(x.dot(y), 0.0);
            /// ```
            #[inline]
            #[must_use]
            pub fn cross(self, other: Self) -> Self {
                Self::new(
                    self.y * other.z - self.z * other.y,
                    self.z * other.x - self.x * other.z,
                    self.x * other.y - self.y * other.x,
                )
            }
        }
    )*};
}
cross!(Float3, Double3);

/// Swizzles: `v.zyx()` is the vector of `v`'s components `z`, `y`, `x`
/// (each component at most once, as C++ AMP's swizzle properties).
macro_rules! swizzles {
    ($name:ident: $($out:ident [$($m:ident($($c:ident),+)),+ $(,)?])+) => {
        impl $name {
            $($(
                #[doc = concat!(
                    "The components `", stringify!($($c),+), "` as a `", stringify!($out),
                    "` (C++ AMP's `", stringify!($m), "` swizzle; also in kernels, as WGSL's `.",
                    stringify!($m), "`)."
                )]
                #[inline]
                #[must_use]
                pub fn $m(self) -> $out {
                    $out::new($(self.$c),+)
                }
            )+)+
        }
    };
}

swizzles! { Int2:
    Int2 [xy(x, y), yx(y, x)]
}
swizzles! { Int3:
    Int2 [xy(x, y), xz(x, z), yx(y, x), yz(y, z), zx(z, x), zy(z, y)]
    Int3 [xyz(x, y, z), xzy(x, z, y), yxz(y, x, z), yzx(y, z, x), zxy(z, x, y), zyx(z, y, x)]
}
swizzles! { Int4:
    Int2 [xy(x, y), xz(x, z), xw(x, w), yx(y, x), yz(y, z), yw(y, w), zx(z, x), zy(z, y), zw(z, w), wx(w, x), wy(w, y), wz(w, z)]
    Int3 [xyz(x, y, z), xyw(x, y, w), xzy(x, z, y), xzw(x, z, w), xwy(x, w, y), xwz(x, w, z), yxz(y, x, z), yxw(y, x, w), yzx(y, z, x), yzw(y, z, w), ywx(y, w, x), ywz(y, w, z), zxy(z, x, y), zxw(z, x, w), zyx(z, y, x), zyw(z, y, w), zwx(z, w, x), zwy(z, w, y), wxy(w, x, y), wxz(w, x, z), wyx(w, y, x), wyz(w, y, z), wzx(w, z, x), wzy(w, z, y)]
    Int4 [xyzw(x, y, z, w), xywz(x, y, w, z), xzyw(x, z, y, w), xzwy(x, z, w, y), xwyz(x, w, y, z), xwzy(x, w, z, y), yxzw(y, x, z, w), yxwz(y, x, w, z), yzxw(y, z, x, w), yzwx(y, z, w, x), ywxz(y, w, x, z), ywzx(y, w, z, x), zxyw(z, x, y, w), zxwy(z, x, w, y), zyxw(z, y, x, w), zywx(z, y, w, x), zwxy(z, w, x, y), zwyx(z, w, y, x), wxyz(w, x, y, z), wxzy(w, x, z, y), wyxz(w, y, x, z), wyzx(w, y, z, x), wzxy(w, z, x, y), wzyx(w, z, y, x)]
}
swizzles! { UInt2:
    UInt2 [xy(x, y), yx(y, x)]
}
swizzles! { UInt3:
    UInt2 [xy(x, y), xz(x, z), yx(y, x), yz(y, z), zx(z, x), zy(z, y)]
    UInt3 [xyz(x, y, z), xzy(x, z, y), yxz(y, x, z), yzx(y, z, x), zxy(z, x, y), zyx(z, y, x)]
}
swizzles! { UInt4:
    UInt2 [xy(x, y), xz(x, z), xw(x, w), yx(y, x), yz(y, z), yw(y, w), zx(z, x), zy(z, y), zw(z, w), wx(w, x), wy(w, y), wz(w, z)]
    UInt3 [xyz(x, y, z), xyw(x, y, w), xzy(x, z, y), xzw(x, z, w), xwy(x, w, y), xwz(x, w, z), yxz(y, x, z), yxw(y, x, w), yzx(y, z, x), yzw(y, z, w), ywx(y, w, x), ywz(y, w, z), zxy(z, x, y), zxw(z, x, w), zyx(z, y, x), zyw(z, y, w), zwx(z, w, x), zwy(z, w, y), wxy(w, x, y), wxz(w, x, z), wyx(w, y, x), wyz(w, y, z), wzx(w, z, x), wzy(w, z, y)]
    UInt4 [xyzw(x, y, z, w), xywz(x, y, w, z), xzyw(x, z, y, w), xzwy(x, z, w, y), xwyz(x, w, y, z), xwzy(x, w, z, y), yxzw(y, x, z, w), yxwz(y, x, w, z), yzxw(y, z, x, w), yzwx(y, z, w, x), ywxz(y, w, x, z), ywzx(y, w, z, x), zxyw(z, x, y, w), zxwy(z, x, w, y), zyxw(z, y, x, w), zywx(z, y, w, x), zwxy(z, w, x, y), zwyx(z, w, y, x), wxyz(w, x, y, z), wxzy(w, x, z, y), wyxz(w, y, x, z), wyzx(w, y, z, x), wzxy(w, z, x, y), wzyx(w, z, y, x)]
}
swizzles! { Float2:
    Float2 [xy(x, y), yx(y, x)]
}
swizzles! { Float3:
    Float2 [xy(x, y), xz(x, z), yx(y, x), yz(y, z), zx(z, x), zy(z, y)]
    Float3 [xyz(x, y, z), xzy(x, z, y), yxz(y, x, z), yzx(y, z, x), zxy(z, x, y), zyx(z, y, x)]
}
swizzles! { Float4:
    Float2 [xy(x, y), xz(x, z), xw(x, w), yx(y, x), yz(y, z), yw(y, w), zx(z, x), zy(z, y), zw(z, w), wx(w, x), wy(w, y), wz(w, z)]
    Float3 [xyz(x, y, z), xyw(x, y, w), xzy(x, z, y), xzw(x, z, w), xwy(x, w, y), xwz(x, w, z), yxz(y, x, z), yxw(y, x, w), yzx(y, z, x), yzw(y, z, w), ywx(y, w, x), ywz(y, w, z), zxy(z, x, y), zxw(z, x, w), zyx(z, y, x), zyw(z, y, w), zwx(z, w, x), zwy(z, w, y), wxy(w, x, y), wxz(w, x, z), wyx(w, y, x), wyz(w, y, z), wzx(w, z, x), wzy(w, z, y)]
    Float4 [xyzw(x, y, z, w), xywz(x, y, w, z), xzyw(x, z, y, w), xzwy(x, z, w, y), xwyz(x, w, y, z), xwzy(x, w, z, y), yxzw(y, x, z, w), yxwz(y, x, w, z), yzxw(y, z, x, w), yzwx(y, z, w, x), ywxz(y, w, x, z), ywzx(y, w, z, x), zxyw(z, x, y, w), zxwy(z, x, w, y), zyxw(z, y, x, w), zywx(z, y, w, x), zwxy(z, w, x, y), zwyx(z, w, y, x), wxyz(w, x, y, z), wxzy(w, x, z, y), wyxz(w, y, x, z), wyzx(w, y, z, x), wzxy(w, z, x, y), wzyx(w, z, y, x)]
}
swizzles! { Double2:
    Double2 [xy(x, y), yx(y, x)]
}
swizzles! { Double3:
    Double2 [xy(x, y), xz(x, z), yx(y, x), yz(y, z), zx(z, x), zy(z, y)]
    Double3 [xyz(x, y, z), xzy(x, z, y), yxz(y, x, z), yzx(y, z, x), zxy(z, x, y), zyx(z, y, x)]
}
swizzles! { Double4:
    Double2 [xy(x, y), xz(x, z), xw(x, w), yx(y, x), yz(y, z), yw(y, w), zx(z, x), zy(z, y), zw(z, w), wx(w, x), wy(w, y), wz(w, z)]
    Double3 [xyz(x, y, z), xyw(x, y, w), xzy(x, z, y), xzw(x, z, w), xwy(x, w, y), xwz(x, w, z), yxz(y, x, z), yxw(y, x, w), yzx(y, z, x), yzw(y, z, w), ywx(y, w, x), ywz(y, w, z), zxy(z, x, y), zxw(z, x, w), zyx(z, y, x), zyw(z, y, w), zwx(z, w, x), zwy(z, w, y), wxy(w, x, y), wxz(w, x, z), wyx(w, y, x), wyz(w, y, z), wzx(w, z, x), wzy(w, z, y)]
    Double4 [xyzw(x, y, z, w), xywz(x, y, w, z), xzyw(x, z, y, w), xzwy(x, z, w, y), xwyz(x, w, y, z), xwzy(x, w, z, y), yxzw(y, x, z, w), yxwz(y, x, w, z), yzxw(y, z, x, w), yzwx(y, z, w, x), ywxz(y, w, x, z), ywzx(y, w, z, x), zxyw(z, x, y, w), zxwy(z, x, w, y), zyxw(z, y, x, w), zywx(z, y, w, x), zwxy(z, w, x, y), zwyx(z, w, y, x), wxyz(w, x, y, z), wxzy(w, x, z, y), wyxz(w, y, x, z), wyzx(w, y, z, x), wzxy(w, z, x, y), wzyx(w, z, y, x)]
}
