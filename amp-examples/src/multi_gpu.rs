//! Matrix multiplication over several accelerators, in the shape of C++
//! AMP's multi-GPU matrix multiplication sample.
//!
//! The original splits the rows of the product `C = A x B` into one band
//! per GPU accelerator: each band's work runs on that accelerator's own
//! view (its own queue), over a section of `A` and of `C` and the whole of
//! `B`, and the results are gathered into one host-side `array_view` by
//! synchronizing it. [`Issue::OneThread`] does the same with
//! `ArrayView::section`: one data source, one section per accelerator, each
//! launch queued on its accelerator's view before any is waited for, so
//! that the accelerators run at the same time; the runtime moves each
//! section to its accelerator and back (through the host).
//!
//! The host is the hub of every transfer, and an upload is host copies
//! made by the thread that launches. [`matmul_multi`] therefore issues each
//! band from a host thread of its own ([`Issue::ThreadPerBand`]), with its
//! own views over its rows of `A` and `C` and over `B`, so that the bands'
//! uploads and downloads overlap too; each band can be cut into pieces so
//! that its transfers overlap its own kernels. Where several products share
//! `B`, [`ResidentB`] keeps it on every accelerator (C++ AMP's `array` per
//! accelerator), and each product moves only its rows of `A` and `C`.

use amp_core::prelude::*;
use amp_core::{Access, Result};

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

/// The row pieces per band of [`matmul_multi`]: on two H200s, 4 pieces
/// beat 1 in three of four two-GPU measurements (`docs/benchmarks.md`).
pub const PIECES: usize = 4;

/// How [`matmul_multi_issued`] issues the bands' work from the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Issue {
    /// The sample's shape: one host thread queues every band over sections
    /// of one `ArrayView` per matrix, then gathers them. Each band's uploads
    /// are host copies made on that thread (under the source's lock), so
    /// the bands' transfers run one after the other; only the kernels and
    /// the downloads overlap.
    OneThread,
    /// One host thread per band, each with its own `ArrayView`s over its
    /// rows of `A`, over `B` and over its rows of `C`, so that the bands'
    /// uploads, kernels and downloads run at the same time. Each band is
    /// cut into `pieces` row pieces (at least 1), launched one after the
    /// other: the upload of a piece overlaps the kernel of the piece before,
    /// and the download of a piece the kernel of the piece after.
    ThreadPerBand {
        /// Row pieces per band (multiples of [`BAND_ROWS`] rows).
        pieces: usize,
    },
}

/// `c = a x b` (`a` is `m x w`, `b` is `w x n`, row-major) with the rows of
/// `c` split over `views`, one band each (see [`bands`]); every band runs
/// the register-blocked kernel of [`matmul::matmul_optimized_on`] on its
/// view. Returns when `c` holds the product. The bands are issued from one
/// host thread each, in [`PIECES`] pieces ([`Issue::ThreadPerBand`]), which
/// lets the bands' transfers overlap each other and the kernels;
/// [`matmul_multi_issued`] chooses.
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
    matmul_multi_issued(
        views,
        c,
        a,
        b,
        m,
        n,
        w,
        Issue::ThreadPerBand { pieces: PIECES },
    )
}

/// [`matmul_multi`], with the bands' work issued from the host as `issue`
/// says.
///
/// # Errors
///
/// As [`matmul_multi`]; with [`Issue::ThreadPerBand`], the error of the
/// first band (in row order) that failed.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
/// use amp_examples::multi_gpu::{Issue, matmul_multi_issued};
///
/// let views: Vec<_> = Accelerator::all().iter().map(|a| a.default_view()).collect();
/// let a: Vec<f32> = (0..256 * 16).map(|i| (i % 7) as f32).collect();
/// let b: Vec<f32> = (0..16 * 8).map(|i| (i % 5) as f32).collect();
/// let mut want = vec![0.0f32; 256 * 8];
/// amp_examples::matmul::matmul_cpu(&mut want, &a, &b, 256, 8, 16)?;
/// for issue in [Issue::OneThread, Issue::ThreadPerBand { pieces: 2 }] {
///     let mut c = vec![0.0f32; 256 * 8];
///     matmul_multi_issued(&views, &mut c, &a, &b, 256, 8, 16, issue)?;
///     assert_eq!(c, want);
/// }
/// # Ok::<(), amp_core::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn matmul_multi_issued(
    views: &[AcceleratorView],
    c: &mut [f32],
    a: &[f32],
    b: &[f32],
    m: i32,
    n: i32,
    w: i32,
    issue: Issue,
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
    match issue {
        Issue::OneThread => one_thread(views, c, a, b, m, n, w),
        Issue::ThreadPerBand { pieces } => thread_per_band(views, c, a, b, m, n, w, pieces.max(1)),
    }
}

/// [`Issue::OneThread`]: sections of one view per matrix.
fn one_thread(
    views: &[AcceleratorView],
    c: &mut [f32],
    a: &[f32],
    b: &[f32],
    m: i32,
    n: i32,
    w: i32,
) -> Result<()> {
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

/// [`Issue::ThreadPerBand`]: one scoped host thread per non-empty band,
/// over its own slices of `a` and `c`.
#[allow(clippy::too_many_arguments)]
fn thread_per_band(
    views: &[AcceleratorView],
    c: &mut [f32],
    a: &[f32],
    b: &[f32],
    m: i32,
    n: i32,
    w: i32,
    pieces: usize,
) -> Result<()> {
    per_band(views.len(), c, a, m, n, w, |k, a_band, c_band| {
        let bv = ArrayView::new([w, n], b)?;
        band(&views[k], c_band, a_band, &bv, pieces)
    })
}

/// Runs `job(k, a_band, c_band)` for each non-empty band `k` of
/// [`bands`]`(m, parts)` on a scoped host thread of its own, over the band's
/// rows of `a` (`m x w`) and `c` (`m x n`); the error of the first band (in
/// row order) that failed.
#[allow(clippy::too_many_arguments)]
fn per_band(
    parts: usize,
    c: &mut [f32],
    a: &[f32],
    m: i32,
    n: i32,
    w: i32,
    job: impl Fn(usize, &[f32], &mut [f32]) -> Result<()> + Sync,
) -> Result<()> {
    let (n_, w_) = (n as usize, w as usize);
    // Cut `a` and `c` at the band boundaries: each thread borrows its rows.
    let mut work = Vec::new();
    let (mut a_rest, mut c_rest) = (a, c);
    for (k, (start, end)) in bands(m, parts).into_iter().enumerate() {
        let rows = (end - start) as usize;
        let (a_band, a_next) = a_rest.split_at(rows * w_);
        let (c_band, c_next) = std::mem::take(&mut c_rest).split_at_mut(rows * n_);
        (a_rest, c_rest) = (a_next, c_next);
        if rows > 0 {
            work.push((k, a_band, c_band));
        }
    }
    let job = &job;
    let results: Vec<Result<()>> = std::thread::scope(|s| {
        let handles: Vec<_> = work
            .into_iter()
            .map(|(k, a_band, c_band)| s.spawn(move || job(k, a_band, c_band)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    results.into_iter().collect()
}

/// One band's work on `view`, on the calling thread: `c_band = a_band x bv`
/// in row pieces; returns when `c_band` holds the product.
fn band<B: Access>(
    view: &AcceleratorView,
    c_band: &mut [f32],
    a_band: &[f32],
    bv: &ArrayView<'_, f32, 2, B>,
    pieces: usize,
) -> Result<()> {
    let (w, n) = (bv.extent()[0], bv.extent()[1]);
    let rows = (c_band.len() / n as usize) as i32;
    let (mut a_rest, mut c_rest) = (a_band, c_band);
    // The piece launched before the current one, not yet gathered.
    let mut previous: Option<ArrayView<'_, f32, 2>> = None;
    for (start, end) in bands(rows, pieces) {
        if start == end {
            continue;
        }
        let r = end - start;
        let (a_piece, a_next) = a_rest.split_at(r as usize * w as usize);
        let (c_piece, c_next) = std::mem::take(&mut c_rest).split_at_mut(r as usize * n as usize);
        (a_rest, c_rest) = (a_next, c_next);
        let av = ArrayView::new([r, w], a_piece)?;
        let cv = ArrayView::new_mut([r, n], c_piece)?;
        cv.discard_data();
        matmul::matmul_optimized_on(view, &cv, &av, bv)?;
        view.flush()?;
        // Its download is queued behind its kernel; the piece before is
        // gathered while this one's kernel runs.
        let _download = cv.synchronize_async()?;
        if let Some(p) = previous.replace(cv) {
            p.synchronize()?;
        }
    }
    match previous {
        Some(p) => p.synchronize(),
        None => Ok(()),
    }
}

/// The right operand of several products, kept on each accelerator as an
/// [`Array`] (C++ AMP's `array` per accelerator): uploaded once, read by
/// every product of [`ResidentB::matmul`], so that each product moves only
/// its rows of `a` and `c`.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
/// use amp_examples::multi_gpu::ResidentB;
///
/// let views: Vec<_> = Accelerator::all().iter().map(|a| a.default_view()).collect();
/// let b: Vec<f32> = (0..16 * 8).map(|i| (i % 5) as f32).collect();
/// let resident = ResidentB::new(&views, &b, 16, 8)?;
/// for round in 0..2 {
///     let a: Vec<f32> = (0..64 * 16).map(|i| ((i + round) % 7) as f32).collect();
///     let mut c = vec![0.0f32; 64 * 8];
///     resident.matmul(&mut c, &a, 64)?;
///     let mut want = vec![0.0f32; 64 * 8];
///     amp_examples::matmul::matmul_cpu(&mut want, &a, &b, 64, 8, 16)?;
///     assert_eq!(c, want);
/// }
/// # Ok::<(), amp_core::Error>(())
/// ```
pub struct ResidentB {
    /// One copy of `b` per view, on that view's accelerator.
    copies: Vec<(AcceleratorView, Array<f32, 2>)>,
}

impl ResidentB {
    /// `b` (`w x n`, row-major) uploaded to each of `views`, from one host
    /// thread per view (the uploads overlap).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for an empty `views` or a `b` that is
    /// not `w x n`; any error of the allocations or uploads.
    pub fn new(views: &[AcceleratorView], b: &[f32], w: i32, n: i32) -> Result<ResidentB> {
        if views.is_empty() {
            return Err(Error::InvalidArgument(
                "ResidentB needs at least one accelerator view".to_string(),
            ));
        }
        let fits = w > 0
            && n > 0
            && w.checked_mul(n)
                .and_then(|x| usize::try_from(x).ok())
                .is_some_and(|x| x == b.len());
        if !fits {
            return Err(Error::InvalidArgument(format!(
                "ResidentB: {w}x{n} does not match a slice of {} elements",
                b.len()
            )));
        }
        let copies: Vec<Result<(AcceleratorView, Array<f32, 2>)>> = std::thread::scope(|s| {
            let handles: Vec<_> = views
                .iter()
                .map(|view| {
                    s.spawn(move || {
                        let array = Array::from_slice([w, n], b, view)?;
                        // Uploaded now, not at the first product.
                        array.view().synchronize_to(view)?;
                        Ok((view.clone(), array))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        Ok(ResidentB {
            copies: copies.into_iter().collect::<Result<_>>()?,
        })
    }

    /// `c = a x b` (`a` is `m x w`, row-major) with the rows of `c` split
    /// over the views as [`matmul_multi`] splits them, each band issued from
    /// its own host thread in [`PIECES`] pieces, reading the band's
    /// accelerator's copy of `b`. Returns when `c` holds the product.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for shapes that do not match; the error
    /// of the first band (in row order) that failed.
    pub fn matmul(&self, c: &mut [f32], a: &[f32], m: i32) -> Result<()> {
        let (w, n) = {
            let e = self.copies[0].1.extent();
            (e[0], e[1])
        };
        let len = |r: i32, k: i32| r.checked_mul(k).and_then(|x| usize::try_from(x).ok());
        if m <= 0 || len(m, n) != Some(c.len()) || len(m, w) != Some(a.len()) {
            return Err(Error::InvalidArgument(format!(
                "ResidentB::matmul: {m}x{w} times {w}x{n} does not match slices of {} and {} elements",
                a.len(),
                c.len()
            )));
        }
        per_band(self.copies.len(), c, a, m, n, w, |k, a_band, c_band| {
            let (view, b) = &self.copies[k];
            band(view, c_band, a_band, &b.view(), PIECES)
        })
    }
}
