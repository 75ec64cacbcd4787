//! Ports of the C++ AMP samples to amp-rs, written to read almost line by
//! line like the originals: [`matmul`] (the matrix multiplication of the
//! C++ AMP introduction, simple and tiled, and a register-blocked
//! `matmul_optimized`), [`convolution`] (the separable convolution sample:
//! `convolution_simple`, `convolution_tiling` and `convolution_optimized`),
//! [`reduction`] (a tiled sum), [`transpose`] (naive and tiled) and
//! [`multi_gpu`] (the multi-GPU matrix multiplication: row bands over every
//! accelerator).
//!
//! Each sample has a CPU reference and runs on any accelerator view; the
//! `samples` binary runs them all on the default accelerator and checks the
//! results, and `amp-examples/tests/samples.rs` runs them on every
//! accelerator.

pub mod antenna;
pub mod binomial_options;
pub mod bitonic_sort;
pub mod black_scholes;
pub mod convolution;
pub mod fluid;
pub mod gallery;
pub mod gaussian_blur;
pub mod histogram;
pub mod large_matmul;
pub mod mandelbrot;
pub mod matmul;
pub mod mersenne_twister;
pub mod morph;
pub mod multi_gpu;
pub mod nbody;
pub mod ocean;
pub mod random_traveler;
pub mod reduction;
pub mod scan;
pub mod transitive_closure;
pub mod transpose;

/// The largest relative difference between `got` and `want` (each
/// difference divided by `max(|want|, 1)`), or `None` if the lengths differ
/// or `got` holds a NaN where `want` does not.
///
/// # Examples
///
/// ```
/// use amp_examples::max_relative_error;
///
/// assert_eq!(max_relative_error(&[1.0, 2.0], &[1.0, 2.0]), Some(0.0));
/// assert_eq!(max_relative_error(&[1.0, 4.0], &[1.0, 2.0]), Some(1.0));
/// assert_eq!(max_relative_error(&[f32::NAN], &[1.0]), None);
/// ```
pub fn max_relative_error(got: &[f32], want: &[f32]) -> Option<f32> {
    if got.len() != want.len() {
        return None;
    }
    let mut worst = 0.0f32;
    for (&g, &w) in got.iter().zip(want) {
        if g.is_nan() != w.is_nan() {
            return None;
        }
        if !w.is_nan() {
            worst = worst.max((g - w).abs() / w.abs().max(1.0));
        }
    }
    Some(worst)
}
