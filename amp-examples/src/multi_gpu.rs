//! Matrix multiplication over several accelerators, in the shape of C++
//! AMP's multi-GPU matrix multiplication sample.
//!
//! The original splits the rows of the product `C = A x B` into one band
//! per GPU accelerator: each band's work runs on that accelerator's own
//! view (its own queue), over a section of `A` and of `C` and the whole of
//! `B`, and the results are gathered into one host-side `array_view` by
//! synchronizing it. The port does the same with `ArrayView::section`: one
//! data source, one section per accelerator, each launch queued on its
//! accelerator's view before any is waited for, so that the accelerators
//! run at the same time; the runtime moves each section to its accelerator
//! and back (through the host).

use amp_core::Result;
use amp_core::prelude::*;

use crate::matmul;

/// Rows per band are a multiple of this (the optimised kernel's block).
pub const BAND_ROWS: i32 = 64;

/// The row bands `[start, end)` of an `m`-row product over `parts`
/// accelerators: equal multiples of [`BAND_ROWS`] (the last one takes the
/// rest; bands may be empty when `m` is small).
///
/// # Examples
///
/// ```
/// use amp_examples::multi_gpu::bands;
///
/// assert_eq!(bands(256, 2), [(0, 128), (128, 256)]);
/// assert_eq!(bands(100, 2), [(0, 64), (64, 100)]);
/// assert_eq!(bands(10, 3), [(0, 10), (10, 10), (10, 10)]);
/// ```
pub fn bands(m: i32, parts: usize) -> Vec<(i32, i32)> {
    let parts = parts.max(1) as i32;
    let per = ((m + parts - 1) / parts + BAND_ROWS - 1) / BAND_ROWS * BAND_ROWS;
    (0..parts)
        .map(|p| ((p * per).min(m), ((p + 1) * per).min(m)))
        .collect()
}

/// `c = a x b` (`a` is `m x w`, `b` is `w x n`, row-major) with the rows of
/// `c` split over `views`, one band each (see [`bands`]); every band runs
/// the register-blocked kernel of [`matmul::matmul_optimized_on`] on its
/// view. Returns when `c` holds the product.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for an empty `views`, or shapes that are not
/// positive or do not match the slices; any error of a launch or of a
/// transfer.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
///
/// let views: Vec<_> = Accelerator::all().iter().map(|a| a.default_view()).collect();
/// let a: Vec<f32> = (0..64 * 16).map(|i| (i % 7) as f32).collect();
/// let b: Vec<f32> = (0..16 * 8).map(|i| (i % 5) as f32).collect();
/// let mut c = vec![0.0f32; 64 * 8];
/// amp_examples::multi_gpu::matmul_multi(&views, &mut c, &a, &b, 64, 8, 16)?;
/// let mut want = vec![0.0f32; 64 * 8];
/// amp_examples::matmul::matmul_cpu(&mut want, &a, &b, 64, 8, 16)?;
/// assert_eq!(c, want);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn matmul_multi(
    views: &[AcceleratorView],
    c: &mut [f32],
    a: &[f32],
    b: &[f32],
    m: i32,
    n: i32,
    w: i32,
) -> Result<()> {
    if views.is_empty() {
        return Err(Error::InvalidArgument(
            "matmul_multi needs at least one accelerator view".to_string(),
        ));
    }
    let len = |r: i32, k: i32| r.checked_mul(k).and_then(|x| usize::try_from(x).ok());
    if m <= 0
        || n <= 0
        || w <= 0
        || len(m, n) != Some(c.len())
        || len(m, w) != Some(a.len())
        || len(w, n) != Some(b.len())
    {
        return Err(Error::InvalidArgument(format!(
            "matmul_multi: {m}x{w} times {w}x{n} does not match slices of {}, {} and {} elements",
            a.len(),
            b.len(),
            c.len()
        )));
    }
    let av = ArrayView::new([m, w], a)?;
    let bv = ArrayView::new([w, n], b)?;
    let cv = ArrayView::new_mut([m, n], c)?;
    cv.discard_data();
    // Every band is queued before any is waited for: the accelerators
    // work at the same time.
    let mut sections = Vec::new();
    for (view, (start, end)) in views.iter().zip(bands(m, views.len())) {
        if start == end {
            continue;
        }
        let a_band = av.section([start, 0], [end - start, w])?;
        let c_band = cv.section([start, 0], [end - start, n])?;
        matmul::matmul_optimized_on(view, &c_band, &a_band, &bv)?;
        view.flush()?;
        sections.push(c_band);
    }
    // Gather: each band comes back from its accelerator.
    let pending: Vec<CompletionFuture> = sections
        .iter()
        .map(|s| s.synchronize_async())
        .collect::<Result<_>>()?;
    for p in pending {
        p.wait()?;
    }
    cv.synchronize()
}
