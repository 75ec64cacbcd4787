//! A matrix product larger than one launch's working set, in the shape of
//! C++ AMP's LargeMatrixMultiplication sample: `C = A x B` computed a block
//! of `C` at a time, each block's operands streamed to the accelerator as
//! `ArrayView`s over parts of the host matrices.
//!
//! [`matmul_large`] walks `C` in bands of `block_rows` rows: each band of
//! `A` is an `ArrayView` of its own over those rows of the host slice (so
//! only that band is uploaded, once per band), and within a band, blocks of
//! `block_cols` columns are computed from a column section of one
//! `ArrayView` over `B` into a section of one writable `ArrayView` over
//! `C`, each by the kernels of [`crate::matmul::matmul_optimized_on`]
//! (register-blocked where the block's sizes allow it, else the tiled
//! kernel). The band of `C` is synchronized back to the host before the
//! next band starts. The launches of a band are queued together, so the
//! band's upload, its launches and the previous band's download overlap as
//! the runtime allows.

use amp_core::Result;
use amp_core::prelude::*;

use crate::matmul::matmul_optimized_on;

/// The shapes of a blocked product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocks {
    /// Rows of `A` and `C`.
    pub m: usize,
    /// Columns of `B` and `C`.
    pub n: usize,
    /// Columns of `A`, rows of `B`.
    pub w: usize,
    /// Rows of `C` per band (the last band may have fewer).
    pub block_rows: usize,
    /// Columns of `C` per block (the last block of a band may have fewer).
    pub block_cols: usize,
}

fn check(vc: &[f32], va: &[f32], vb: &[f32], s: Blocks) -> Result<[i32; 5]> {
    let fits = |x: usize| i32::try_from(x).ok().filter(|&x| x > 0);
    let sizes = [s.m, s.n, s.w, s.block_rows, s.block_cols].map(fits);
    let total = [s.m * s.w, s.w * s.n, s.m * s.n].map(|x| i32::try_from(x).is_ok());
    match sizes {
        [Some(m), Some(n), Some(w), Some(br), Some(bc)]
            if total.iter().all(|&t| t)
                && va.len() == s.m * s.w
                && vb.len() == s.w * s.n
                && vc.len() == s.m * s.n =>
        {
            Ok([m, n, w, br, bc])
        }
        _ => Err(Error::InvalidArgument(format!(
            "matmul_large needs positive sizes and blocks and slices of m x w, w x n and m x n, not {s:?} with {}, {} and {} elements",
            va.len(),
            vb.len(),
            vc.len()
        ))),
    }
}

/// `c = a x b` (row-major `f32`: `a` is `m x w`, `b` is `w x n`) on `view`,
/// a block of `C` at a time (see the module's documentation).
///
/// # Errors
///
/// [`Error::InvalidArgument`] for a size or block that is not positive, or
/// a slice whose length does not match its shape; any error of the
/// launches and transfers.
///
/// # Examples
///
/// ```
/// use amp_examples::large_matmul::{Blocks, matmul_large};
///
/// let view = amp_core::Accelerator::cpu().default_view();
/// let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]; // 3 x 2
/// let b = [1.0f32, 0.0, 2.0, 0.0, 1.0, 3.0]; // 2 x 3
/// let mut c = [0.0f32; 9];
/// let s = Blocks { m: 3, n: 3, w: 2, block_rows: 2, block_cols: 2 };
/// matmul_large(&view, &mut c, &a, &b, s)?;
/// assert_eq!(c, [1.0, 2.0, 8.0, 3.0, 4.0, 18.0, 5.0, 6.0, 28.0]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn matmul_large(
    view: &AcceleratorView,
    vc: &mut [f32],
    va: &[f32],
    vb: &[f32],
    s: Blocks,
) -> Result<()> {
    let [m, n, w, br, bc] = check(vc, va, vb, s)?;
    let b = ArrayView::new([w, n], vb)?;
    let c = ArrayView::new_mut([m, n], vc)?;
    c.discard_data();
    let mut r0 = 0;
    while r0 < m {
        let rows = br.min(m - r0);
        let (lo, hi) = ((r0 * w) as usize, ((r0 + rows) * w) as usize);
        let a_band = ArrayView::new([rows, w], &va[lo..hi])?;
        let mut c0 = 0;
        while c0 < n {
            let cols = bc.min(n - c0);
            let b_block = b.section([0, c0], [w, cols])?;
            let c_block = c.section([r0, c0], [rows, cols])?;
            c_block.discard_data();
            matmul_optimized_on(view, &c_block, &a_band, &b_block)?;
            c0 += cols;
        }
        c.section([r0, 0], [rows, n])?.synchronize()?;
        r0 += rows;
    }
    Ok(())
}
