//! C++ AMP's `concurrency::precise_math` functions that Rust's `f32` has no
//! method for, callable in kernels and on the host with the same code.
//!
//! The functions Rust has are methods in kernels (`x.sqrt()`, `x.hypot(y)`,
//! `x.ln_1p()`, ...: `docs/kernel-language.md` section 11); these are the
//! rest that numerical code asks for. Each is a `#[kernel]` function over
//! `f32`, as direct3d's are. There are no `f64` forms: GPUs have no `f64`
//! `exp` or `ln` (kernels refuse them), and on the host the `libm` crate has
//! them.
//!
//! Accuracy: the tolerances within which `tests/tests/kernels/math.rs`
//! (`precise_math_matches_f64_references`) checks them against independent
//! `f64` references on lavapipe and the CPU accelerator, over [-30, 30] and
//! the special values:
//!
//! | function | method | tested within |
//! |---|---|---|
//! | [`erf`] | Taylor series below 0.5, `1 - erfc` above | 2e-6 relative (1e-7 absolute) |
//! | [`erfc`] | a Chebyshev fit of `erfc(z) e^(z^2)` (fractional error 1.2e-7), times `e^(-z^2)` | `1e-6 + 2e-6 z^2` relative (GPU `exp` loses accuracy with its argument) |
//! | [`tgamma`] | Lanczos (g = 5, 6 terms), through `exp(ln)` so that it overflows only where the result does; reflection (through [`sinpi`]) below 0.5 | 1e-4 relative |
//! | [`lgamma`] | the same, in logarithms | 1e-5 relative or absolute |
//! | [`sinpi`], [`cospi`] | `x` reduced exactly to `[-0.5, 0.5)`, then `sin`/`cos` | 1e-5 relative or 1e-6 absolute |
//! | [`rsqrt`], [`exp10`], [`fdim`] | `1 / sqrt(x)`, `2^(x log2 10)`, `x - y` or 0 | 1e-6, `2e-6 max(1, abs(x))`, 1e-7 relative |
//!
//! # Examples
//!
//! ```
//! use amp_core::precise_math::{erf, tgamma};
//! use amp_core::prelude::*;
//!
//! let x = [0.5f32, 1.0, 4.0];
//! let mut out = [0.0f32; 3];
//! {
//!     let xv = ArrayView::new([3], &x)?;
//!     let ov = ArrayView::new_mut([3], &mut out)?;
//!     parallel_for_each!(ov.extent(), |idx: Index<1>| {
//!         ov[idx] = tgamma(xv[idx]) + erf(xv[idx]);
//!     })?;
//! }
//! assert!((out[2] - (6.0 + erf(4.0))).abs() < 1e-4);
//! assert!((tgamma(0.5) - std::f32::consts::PI.sqrt()).abs() < 1e-6);
//! # Ok::<(), amp_core::Error>(())
//! ```

use crate::kernel;

/// The error function, `2/sqrt(pi) * integral of e^(-t^2) from 0 to x`.
/// Corresponds to `precise_math::erf(float)` (`erff`).
#[kernel]
pub fn erf(x: f32) -> f32 {
    let z = x.abs();
    if z < 0.5 {
        // 2/sqrt(pi) (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320)
        let x2 = x * x;
        x * core::f32::consts::FRAC_2_SQRT_PI
            * (1.0
                + x2 * (-0.333_333_34
                    + x2 * (0.1
                        + x2 * (-0.023_809_524 + x2 * (0.004_629_63 + x2 * -0.000_757_575_8)))))
    } else {
        (1.0 - erfc(z)).copysign(x)
    }
}

/// The complementary error function, `1 - erf(x)`, without the
/// cancellation for large `x`. Corresponds to `precise_math::erfc(float)`.
#[kernel]
pub fn erfc(x: f32) -> f32 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let fit = -1.265_512_2
        + t * (1.000_023_7
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_204
                                + t * (1.488_515_9 + t * (-0.822_152_2 + t * 0.170_872_77))))))));
    let r = t * (fit - z * z).exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// `ln(Gamma(y))` for `y >= 0.5` (Lanczos, g = 5): the shared part of
/// [`tgamma`] and [`lgamma`].
#[kernel]
fn lanczos_ln_gamma(y: f32) -> f32 {
    let sum = 1.0
        + 76.180_09 / (y + 1.0)
        + -86.505_32 / (y + 2.0)
        + 24.014_098 / (y + 3.0)
        + -1.231_739_6 / (y + 4.0)
        + 0.001_208_651 / (y + 5.0)
        + -0.000_005_395_239_4 / (y + 6.0);
    let t = y + 5.5;
    // sqrt(2 pi) = 2.5066282746310002
    (y + 0.5) * t.ln() - t + (2.506_628_3 * sum / y).ln()
}

/// The gamma function, `(x - 1)!` for positive integers `x`. Corresponds to
/// `precise_math::tgamma(float)`: `±inf` at `±0`, NaN at negative integers
/// and `-inf`, `inf` past 35.04 (where `f32` ends) and at `+inf`.
#[kernel]
pub fn tgamma(x: f32) -> f32 {
    // `+inf` by its bits (Lanczos' formula gives `inf - inf` there; a
    // comparison may be folded by a GPU compiler that assumes no
    // infinities).
    if x.to_bits() == 0x7f80_0000 {
        f32::INFINITY
    } else if x <= 0.0 && x == x.floor() {
        if x == 0.0 { 1.0 / x } else { f32::NAN }
    } else if x < 0.5 {
        // Reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x).
        let g = lanczos_ln_gamma(1.0 - x).exp();
        core::f32::consts::PI / (sinpi(x) * g)
    } else {
        lanczos_ln_gamma(x).exp()
    }
}

/// `ln |Gamma(x)|`. Corresponds to `precise_math::lgamma(float)`: `inf` at
/// zero, the negative integers and `±inf`.
#[kernel]
pub fn lgamma(x: f32) -> f32 {
    // `ln Gamma(±inf)` is `+inf` (Lanczos' formula gives `inf - inf`).
    if x.is_infinite() || (x <= 0.0 && x == x.floor()) {
        f32::INFINITY
    } else if x < 0.5 {
        // ln(pi / |sin(pi x)|) - ln Gamma(1 - x)
        (core::f32::consts::PI / sinpi(x).abs()).ln() - lanczos_ln_gamma(1.0 - x)
    } else {
        lanczos_ln_gamma(x)
    }
}

/// `sin(pi x)`, with `x` reduced exactly first (to `x - n` for the nearest
/// integer `n`), so that it is accurate for large `x` and exactly 0 at the
/// integers. Corresponds to `precise_math::sinpi(float)`.
#[kernel]
pub fn sinpi(x: f32) -> f32 {
    let n = (x + 0.5).floor();
    let s = (core::f32::consts::PI * (x - n)).sin();
    if n - 2.0 * (n * 0.5).floor() == 0.0 {
        s
    } else {
        -s
    }
}

/// `cos(pi x)`, with `x` reduced exactly first, as [`sinpi`]. Corresponds
/// to `precise_math::cospi(float)`.
#[kernel]
pub fn cospi(x: f32) -> f32 {
    let n = (x + 0.5).floor();
    let c = (core::f32::consts::PI * (x - n)).cos();
    if n - 2.0 * (n * 0.5).floor() == 0.0 {
        c
    } else {
        -c
    }
}

/// `1 / sqrt(x)`. Corresponds to `precise_math::rsqrt(float)`.
#[kernel]
pub fn rsqrt(x: f32) -> f32 {
    1.0 / x.sqrt()
}

/// `10^x`. Corresponds to `precise_math::exp10(float)`.
#[kernel]
pub fn exp10(x: f32) -> f32 {
    (x * core::f32::consts::LOG2_10).exp2()
}

/// The positive difference: `x - y` if `x > y`, else 0; NaN if either is
/// NaN. Corresponds to `precise_math::fdim(float, float)`.
#[kernel]
pub fn fdim(x: f32, y: f32) -> f32 {
    if x > y {
        x - y
    } else if x <= y {
        0.0
    } else {
        x + y
    }
}
