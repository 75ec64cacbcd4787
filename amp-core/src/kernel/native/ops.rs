//! Kernel arithmetic with WGSL's (and release Rust's) semantics.

/// Arithmetic kernels may use; integers wrap, as in WGSL.
pub trait Arith: Copy {
    /// `a + b`.
    fn add(self, b: Self) -> Self;
    /// `a - b`.
    fn sub(self, b: Self) -> Self;
    /// `a * b`.
    fn mul(self, b: Self) -> Self;
    /// `a / b` (integers: `a` when `b == 0`, wrapping `MIN / -1`).
    fn div(self, b: Self) -> Self;
    /// `a % b` (integers: `0` when `b == 0` or `MIN % -1`).
    fn rem(self, b: Self) -> Self;
    /// `-a`.
    fn neg(self) -> Self;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            fn sub(self, b: Self) -> Self { self.wrapping_sub(b) }
            fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
            fn div(self, b: Self) -> Self { if b == 0 { self } else { self.wrapping_div(b) } }
            fn rem(self, b: Self) -> Self { if b == 0 { 0 } else { self.wrapping_rem(b) } }
            fn neg(self) -> Self { self.wrapping_neg() }
        }
    )*};
}
int_arith!(i32, u32, u8, i8, u16, i16);

macro_rules! float_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn add(self, b: Self) -> Self { self + b }
            fn sub(self, b: Self) -> Self { self - b }
            fn mul(self, b: Self) -> Self { self * b }
            fn div(self, b: Self) -> Self { self / b }
            fn rem(self, b: Self) -> Self { self % b }
            fn neg(self) -> Self { -self }
        }
    )*};
}
float_arith!(f32, f64);
// `half::f16` arithmetic rounds each result to `f16`, as WGSL's does.
#[cfg(feature = "half")]
float_arith!(half::f16);

impl<const N: usize> Arith for crate::Index<N> {
    fn add(self, b: Self) -> Self {
        self + b
    }
    fn sub(self, b: Self) -> Self {
        self - b
    }
    fn mul(self, b: Self) -> Self {
        let mut r = self;
        for d in 0..N {
            r[d] = self[d].wrapping_mul(b[d]);
        }
        r
    }
    fn div(self, b: Self) -> Self {
        let mut r = self;
        for d in 0..N {
            r[d] = self[d].div(b[d]);
        }
        r
    }
    fn rem(self, b: Self) -> Self {
        let mut r = self;
        for d in 0..N {
            r[d] = self[d].rem(b[d]);
        }
        r
    }
    fn neg(self) -> Self {
        -self
    }
}

/// Binary arithmetic between kernel values of possibly different types:
/// `T op T` (through [`Arith`]), and with short vectors, `vector op
/// vector`, `vector op scalar` and `scalar op vector` (componentwise;
/// integer components wrap), and `Index op i32`.
#[diagnostic::on_unimplemented(
    message = "mismatched types in kernel arithmetic: `{Self}` and `{Rhs}`",
    label = "`{Self}` on the left, `{Rhs}` on the right",
    note = "as in Rust, `+`, `-`, `*`, `/` and `%` take operands of one type and nothing converts implicitly: convert one side with `as` (`a as i32 - b`, `a - b as u32`); an index's components (`idx[0]`) are `i32`",
    note = "an `Index` or `Extent` combines with an `i32`, a short vector with its own component type"
)]
pub trait Binary<Rhs>: Copy {
    /// The result type.
    type Output;
    /// `self + rhs`.
    fn add2(self, rhs: Rhs) -> Self::Output;
    /// `self - rhs`.
    fn sub2(self, rhs: Rhs) -> Self::Output;
    /// `self * rhs`.
    fn mul2(self, rhs: Rhs) -> Self::Output;
    /// `self / rhs`.
    fn div2(self, rhs: Rhs) -> Self::Output;
    /// `self % rhs`.
    fn rem2(self, rhs: Rhs) -> Self::Output;
}

impl<T: Arith> Binary<T> for T {
    type Output = T;
    fn add2(self, rhs: T) -> T {
        self.add(rhs)
    }
    fn sub2(self, rhs: T) -> T {
        self.sub(rhs)
    }
    fn mul2(self, rhs: T) -> T {
        self.mul(rhs)
    }
    fn div2(self, rhs: T) -> T {
        self.div(rhs)
    }
    fn rem2(self, rhs: T) -> T {
        self.rem(rhs)
    }
}

#[diagnostic::do_not_recommend]
impl<const N: usize> Binary<i32> for crate::Index<N> {
    type Output = crate::Index<N>;
    fn add2(self, rhs: i32) -> Self {
        self + rhs
    }
    fn sub2(self, rhs: i32) -> Self {
        self - rhs
    }
    fn mul2(self, rhs: i32) -> Self {
        self * rhs
    }
    fn div2(self, rhs: i32) -> Self {
        self.div(crate::Index::new([rhs; N]))
    }
    fn rem2(self, rhs: i32) -> Self {
        self.rem(crate::Index::new([rhs; N]))
    }
}

#[diagnostic::do_not_recommend]
impl<const N: usize> Binary<crate::Index<N>> for i32 {
    type Output = crate::Index<N>;
    fn add2(self, rhs: crate::Index<N>) -> crate::Index<N> {
        crate::Index::new([self; N]).add(rhs)
    }
    fn sub2(self, rhs: crate::Index<N>) -> crate::Index<N> {
        crate::Index::new([self; N]).sub(rhs)
    }
    fn mul2(self, rhs: crate::Index<N>) -> crate::Index<N> {
        crate::Index::new([self; N]).mul(rhs)
    }
    fn div2(self, rhs: crate::Index<N>) -> crate::Index<N> {
        crate::Index::new([self; N]).div(rhs)
    }
    fn rem2(self, rhs: crate::Index<N>) -> crate::Index<N> {
        crate::Index::new([self; N]).rem(rhs)
    }
}

/// `Extent` arithmetic in kernels: as `Index` arithmetic (wrapping,
/// the kernel's division rules), with an `Extent` result where one
/// operand is an `Extent` (C++ AMP's `extent + index`).
macro_rules! extent_binary {
    ($($l:ty, $r:ty;)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<const N: usize> Binary<$r> for $l {
            type Output = crate::Extent<N>;
            fn add2(self, rhs: $r) -> crate::Extent<N> {
                crate::Extent::new(as_index(self).add(as_index(rhs)).to_array())
            }
            fn sub2(self, rhs: $r) -> crate::Extent<N> {
                crate::Extent::new(as_index(self).sub(as_index(rhs)).to_array())
            }
            fn mul2(self, rhs: $r) -> crate::Extent<N> {
                crate::Extent::new(as_index(self).mul(as_index(rhs)).to_array())
            }
            fn div2(self, rhs: $r) -> crate::Extent<N> {
                crate::Extent::new(as_index(self).div(as_index(rhs)).to_array())
            }
            fn rem2(self, rhs: $r) -> crate::Extent<N> {
                crate::Extent::new(as_index(self).rem(as_index(rhs)).to_array())
            }
        }
    )*};
}
extent_binary! {
    crate::Extent<N>, crate::Extent<N>;
    crate::Extent<N>, crate::Index<N>;
}
#[diagnostic::do_not_recommend]
impl<const N: usize> Binary<i32> for crate::Extent<N> {
    type Output = crate::Extent<N>;
    fn add2(self, rhs: i32) -> Self {
        self.add2(crate::Index::new([rhs; N]))
    }
    fn sub2(self, rhs: i32) -> Self {
        self.sub2(crate::Index::new([rhs; N]))
    }
    fn mul2(self, rhs: i32) -> Self {
        self.mul2(crate::Index::new([rhs; N]))
    }
    fn div2(self, rhs: i32) -> Self {
        self.div2(crate::Index::new([rhs; N]))
    }
    fn rem2(self, rhs: i32) -> Self {
        self.rem2(crate::Index::new([rhs; N]))
    }
}
#[diagnostic::do_not_recommend]
impl<const N: usize> Binary<crate::Extent<N>> for i32 {
    type Output = crate::Extent<N>;
    fn add2(self, rhs: crate::Extent<N>) -> crate::Extent<N> {
        crate::Extent::new([self; N]).add2(rhs)
    }
    fn sub2(self, rhs: crate::Extent<N>) -> crate::Extent<N> {
        crate::Extent::new([self; N]).sub2(rhs)
    }
    fn mul2(self, rhs: crate::Extent<N>) -> crate::Extent<N> {
        crate::Extent::new([self; N]).mul2(rhs)
    }
    fn div2(self, rhs: crate::Extent<N>) -> crate::Extent<N> {
        crate::Extent::new([self; N]).div2(rhs)
    }
    fn rem2(self, rhs: crate::Extent<N>) -> crate::Extent<N> {
        crate::Extent::new([self; N]).rem2(rhs)
    }
}
/// Either geometry type's components, as an `Index`.
trait AsIndex<const N: usize> {
    fn index(self) -> crate::Index<N>;
}
impl<const N: usize> AsIndex<N> for crate::Index<N> {
    fn index(self) -> crate::Index<N> {
        self
    }
}
impl<const N: usize> AsIndex<N> for crate::Extent<N> {
    fn index(self) -> crate::Index<N> {
        crate::Index::new(self.to_array())
    }
}
fn as_index<const N: usize>(x: impl AsIndex<N>) -> crate::Index<N> {
    x.index()
}

/// Integer vector division and remainder with WGSL's zero rules, per
/// component.
macro_rules! vector_binary {
    ($($v:ident: $s:ty [$($f:ident),+]),* $(,)?) => {$(
        #[diagnostic::do_not_recommend]
        impl Binary<crate::$v> for crate::$v {
            type Output = crate::$v;
            fn add2(self, r: Self) -> Self { self + r }
            fn sub2(self, r: Self) -> Self { self - r }
            fn mul2(self, r: Self) -> Self { self * r }
            fn div2(self, r: Self) -> Self { let mut o = self; $(o.$f = div(self.$f, r.$f);)+ o }
            fn rem2(self, r: Self) -> Self { let mut o = self; $(o.$f = rem(self.$f, r.$f);)+ o }
        }
        #[diagnostic::do_not_recommend]
        impl Binary<$s> for crate::$v {
            type Output = crate::$v;
            fn add2(self, r: $s) -> Self { self + r }
            fn sub2(self, r: $s) -> Self { self - r }
            fn mul2(self, r: $s) -> Self { self * r }
            fn div2(self, r: $s) -> Self { let mut o = self; $(o.$f = div(self.$f, r);)+ o }
            fn rem2(self, r: $s) -> Self { let mut o = self; $(o.$f = rem(self.$f, r);)+ o }
        }
        #[diagnostic::do_not_recommend]
        impl Binary<crate::$v> for $s {
            type Output = crate::$v;
            fn add2(self, r: crate::$v) -> crate::$v { self + r }
            fn sub2(self, r: crate::$v) -> crate::$v { self - r }
            fn mul2(self, r: crate::$v) -> crate::$v { self * r }
            fn div2(self, r: crate::$v) -> crate::$v { let mut o = r; $(o.$f = div(self, r.$f);)+ o }
            fn rem2(self, r: crate::$v) -> crate::$v { let mut o = r; $(o.$f = rem(self, r.$f);)+ o }
        }
    )*};
}
vector_binary!(
    Int2: i32 [x, y], Int3: i32 [x, y, z], Int4: i32 [x, y, z, w],
    UInt2: u32 [x, y], UInt3: u32 [x, y, z], UInt4: u32 [x, y, z, w],
    Float2: f32 [x, y], Float3: f32 [x, y, z], Float4: f32 [x, y, z, w],
    Double2: f64 [x, y], Double3: f64 [x, y, z], Double4: f64 [x, y, z, w],
);

/// `a + b`.
pub fn add<A: Binary<B, Output = O>, B, O>(a: A, b: B) -> O {
    a.add2(b)
}
/// `a - b`.
pub fn sub<A: Binary<B, Output = O>, B, O>(a: A, b: B) -> O {
    a.sub2(b)
}
/// `a * b`.
pub fn mul<A: Binary<B, Output = O>, B, O>(a: A, b: B) -> O {
    a.mul2(b)
}
/// `a / b`.
pub fn div<A: Binary<B, Output = O>, B, O>(a: A, b: B) -> O {
    a.div2(b)
}
/// `a % b`.
pub fn rem<A: Binary<B, Output = O>, B, O>(a: A, b: B) -> O {
    a.rem2(b)
}
/// `-a`.
pub fn neg<T: Negate>(a: T) -> T {
    a.negate()
}

/// Negation, for the types Rust negates (not `u32`).
#[diagnostic::on_unimplemented(
    message = "cannot negate `{Self}` in a kernel",
    label = "Rust has no unary `-` for this type",
    note = "as in Rust, unsigned integers cannot be negated; write `0 - x` (kernel integer arithmetic wraps)"
)]
pub trait Negate: Copy {
    /// `-self` (wrapping for `i32`).
    fn negate(self) -> Self;
}
macro_rules! negate {
    ($($t:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl Negate for $t {
            fn negate(self) -> Self { Arith::neg(self) }
        }
    )*};
}
negate!(i32, f32, f64, i8, i16);
#[cfg(feature = "half")]
negate!(half::f16);
#[diagnostic::do_not_recommend]
impl<const N: usize> Negate for crate::Index<N> {
    fn negate(self) -> Self {
        -self
    }
}
#[diagnostic::do_not_recommend]
impl<const N: usize> Negate for crate::Extent<N> {
    fn negate(self) -> Self {
        -self
    }
}
macro_rules! negate_vector {
    ($($v:ident),*) => {$(
        #[diagnostic::do_not_recommend]
        impl Negate for crate::$v {
            fn negate(self) -> Self { -self }
        }
    )*};
}
negate_vector!(
    Int2, Int3, Int4, Float2, Float3, Float4, Double2, Double3, Double4
);

/// Shifts with WGSL's semantics: the amount is taken modulo the width.
pub trait Shift: Copy {
    /// `a << b`.
    fn shl(self, b: u32) -> Self;
    /// `a >> b` (arithmetic for `i32`).
    fn shr(self, b: u32) -> Self;
}
macro_rules! shift {
    ($($t:ty),*) => {$(
        impl Shift for $t {
            fn shl(self, b: u32) -> Self { self.wrapping_shl(b) }
            fn shr(self, b: u32) -> Self { self.wrapping_shr(b) }
        }
        impl ShiftAmount for $t {
            fn amount(self) -> u32 { self as u32 }
        }
    )*};
}
shift!(i32, u32, u8, i8, u16, i16);
/// A shift amount: any kernel integer.
pub trait ShiftAmount: Copy {
    /// As `u32` (bit pattern).
    fn amount(self) -> u32;
}
/// `a << b`.
pub fn shl<T: Shift, S: ShiftAmount>(a: T, b: S) -> T {
    a.shl(b.amount())
}
/// `a >> b`.
pub fn shr<T: Shift, S: ShiftAmount>(a: T, b: S) -> T {
    a.shr(b.amount())
}

/// `value as To`, as a function (so that generated code needs no
/// parentheses around casts).
pub trait CastTo<To>: Copy {
    /// The cast.
    fn cast(self) -> To;
}

macro_rules! casts_to {
    ($from:ty => $($to:ty),*) => {$(
        impl CastTo<$to> for $from { fn cast(self) -> $to { self as $to } }
    )*};
}
macro_rules! casts {
    ($($from:ty),*) => {$(
        casts_to!($from => i32, u32, f32, f64, u8, i8, u16, i16);
    )*};
}
// `usize` for Rust constants (`N as i32` where `const N: usize`).
casts!(i32, u32, f32, f64, usize, u8, i8, u16, i16);
// Indices: integers only, as in Rust (`arr[x]` needs a `usize`).
casts_to!(i32 => usize);
casts_to!(u32 => usize);
casts_to!(u8 => usize);
casts_to!(i8 => usize);
casts_to!(u16 => usize);
casts_to!(i16 => usize);
// `tile_static!` lengths of `usize` constants (`[f32; LEN]`, Rust's
// array-length type).
impl CastTo<usize> for usize {
    fn cast(self) -> usize {
        self
    }
}
impl CastTo<i32> for bool {
    fn cast(self) -> i32 {
        self as i32
    }
}
impl CastTo<u32> for bool {
    fn cast(self) -> u32 {
        self as u32
    }
}
casts_to!(bool => u8, i8, u16, i16);

/// `value as To`.
pub fn cast<To, From: CastTo<To>>(value: From) -> To {
    value.cast()
}

/// An integer type a kernel `for` loop counts with.
pub trait LoopInt: Copy {
    /// The value, widened.
    fn wide(self) -> i64;
    /// `v` wrapped to the type.
    fn narrow(v: i64) -> Self;
}

impl LoopInt for i32 {
    fn wide(self) -> i64 {
        i64::from(self)
    }
    fn narrow(v: i64) -> Self {
        v as i32
    }
}

impl LoopInt for u32 {
    fn wide(self) -> i64 {
        i64::from(self)
    }
    fn narrow(v: i64) -> Self {
        v as u32
    }
}

macro_rules! small_loop_int {
    ($($t:ty),*) => {$(
        impl LoopInt for $t {
            fn wide(self) -> i64 { i64::from(self) }
            fn narrow(v: i64) -> Self { v as $t }
        }
    )*};
}
small_loop_int!(u8, i8, u16, i16);

/// The values of `(start..end).step_by(step).rev()` (`start..=end` if
/// `inclusive`): the forward values, last first. A step of 0 gives none,
/// as on GPUs (Rust panics).
pub fn rev_range<T: LoopInt>(
    start: T,
    end: T,
    inclusive: bool,
    step: usize,
) -> impl Iterator<Item = T> {
    let (a, b) = (start.wide(), end.wide());
    let last = if inclusive { b } else { b - 1 };
    let step = i64::try_from(step).unwrap_or(i64::MAX);
    let count = if step == 0 || last < a {
        0
    } else {
        (last - a) / step + 1
    };
    (0..count).rev().map(move |k| T::narrow(a + k * step))
}
