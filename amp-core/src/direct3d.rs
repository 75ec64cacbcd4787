//! C++ AMP's `concurrency::direct3d` intrinsics, callable in kernels and on
//! the host with the same results.
//!
//! Each is a `#[kernel]` function: in a kernel it is compiled with the
//! kernel (to WGSL on GPUs, natively on the CPU accelerator); on the host it
//! is an ordinary Rust function. Integer results are identical everywhere,
//! and so are those of the float functions that compare and select
//! ([`saturate`], [`step`], [`clamp`]). The arithmetic ones may differ in the
//! last bits on GPUs: [`rcp`] and [`smoothstep`] divide (GPUs may divide
//! within 2.5 ULP), and GPU compilers may fuse [`mad`] into one rounding (as
//! C++ AMP allows) or combine [`radians`]' multiplication with a
//! neighbouring one.
//!
//! C++ AMP overloads `clamp` and `mad` for `int`, `unsigned` and `float`;
//! here they are generic over the kernel number types. The other functions
//! take the types C++ AMP gives them.
//!
//! # Examples
//!
//! ```
//! use amp_core::direct3d::{firstbithigh, saturate};
//! use amp_core::prelude::*;
//!
//! let x = [-0.5f32, 0.25, 2.0];
//! let mut out = [0.0f32; 3];
//! {
//!     let xv = ArrayView::new([3], &x)?;
//!     let ov = ArrayView::new_mut([3], &mut out)?;
//!     parallel_for_each!(ov.extent(), |idx: Index<1>| {
//!         ov[idx] = saturate(xv[idx]);
//!     })?;
//! }
//! assert_eq!(out, [0.0, 0.25, 1.0]);
//! assert_eq!(firstbithigh(-1), -1);
//! # Ok::<(), amp_core::Error>(())
//! ```

use crate::{Number, kernel};

/// `|x|`, wrapping: `abs(i32::MIN)` is `i32::MIN`. Corresponds to
/// `direct3d::abs(int)`.
#[kernel]
pub fn abs(x: i32) -> i32 {
    if x < 0 { 0 - x } else { x }
}

/// `x` limited to `[lo, hi]` (`lo` if `x < lo`, `hi` if `x > hi`; a NaN
/// `x` stays NaN). Corresponds to `direct3d::clamp`.
#[kernel]
pub fn clamp<T: Number>(x: T, lo: T, hi: T) -> T {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// The number of set bits. Corresponds to `direct3d::countbits`.
#[kernel]
pub fn countbits(x: u32) -> u32 {
    x.count_ones()
}

/// The position (0 = least significant) of the highest bit that differs
/// from the sign bit: the highest set bit of a non-negative `x`, the
/// highest clear bit of a negative one; -1 when there is none (`0`, `-1`).
/// Corresponds to `direct3d::firstbithigh`.
#[kernel]
pub fn firstbithigh(x: i32) -> i32 {
    let v = if x < 0 { !x } else { x };
    if v == 0 {
        -1
    } else {
        31 - v.leading_zeros() as i32
    }
}

/// The position of the lowest set bit; -1 (all bits set) for 0.
/// Corresponds to `direct3d::firstbitlow`.
#[kernel]
pub fn firstbitlow(x: i32) -> i32 {
    if x == 0 {
        -1
    } else {
        x.trailing_zeros() as i32
    }
}

/// The larger of two `i32`s. Corresponds to `direct3d::imax`.
#[kernel]
pub fn imax(a: i32, b: i32) -> i32 {
    if a > b { a } else { b }
}

/// The smaller of two `i32`s. Corresponds to `direct3d::imin`.
#[kernel]
pub fn imin(a: i32, b: i32) -> i32 {
    if a < b { a } else { b }
}

/// The larger of two `u32`s. Corresponds to `direct3d::umax`.
#[kernel]
pub fn umax(a: u32, b: u32) -> u32 {
    if a > b { a } else { b }
}

/// The smaller of two `u32`s. Corresponds to `direct3d::umin`.
#[kernel]
pub fn umin(a: u32, b: u32) -> u32 {
    if a < b { a } else { b }
}

/// `a * b + c` (integers wrap; floats may be fused into one rounding on
/// GPUs). Corresponds to `direct3d::mad`.
#[kernel]
pub fn mad<T: Number>(a: T, b: T, c: T) -> T {
    a * b + c
}

/// `x` degrees in radians. Corresponds to `direct3d::radians`.
#[kernel]
pub fn radians(x: f32) -> f32 {
    x * 0.017_453_292_f32
}

/// `1 / x`. Corresponds to `direct3d::rcp`.
#[kernel]
pub fn rcp(x: f32) -> f32 {
    1.0 / x
}

/// The bits of `x` in reverse order. Corresponds to `direct3d::reversebits`.
#[kernel]
pub fn reversebits(x: u32) -> u32 {
    x.reverse_bits()
}

/// `x` limited to `[0, 1]`; NaN gives 0. Corresponds to
/// `direct3d::saturate`.
#[kernel]
pub fn saturate(x: f32) -> f32 {
    if x > 0.0 {
        if x < 1.0 { x } else { 1.0 }
    } else {
        0.0
    }
}

/// -1, 0 or 1 as `x` is negative, zero or positive. Corresponds to
/// `direct3d::sign`.
#[kernel]
pub fn sign(x: i32) -> i32 {
    if x > 0 {
        1
    } else if x < 0 {
        -1
    } else {
        0
    }
}

/// Hermite interpolation between 0 and 1 as `x` goes from `lo` to `hi`:
/// `t * t * (3 - 2 t)` with `t = saturate((x - lo) / (hi - lo))`.
/// Corresponds to `direct3d::smoothstep`.
#[kernel]
pub fn smoothstep(lo: f32, hi: f32, x: f32) -> f32 {
    let t = saturate((x - lo) / (hi - lo));
    t * t * (3.0 - 2.0 * t)
}

/// 1 if `x >= y`, else 0. Corresponds to `direct3d::step(y, x)`.
#[kernel]
pub fn step(y: f32, x: f32) -> f32 {
    if x >= y { 1.0 } else { 0.0 }
}
