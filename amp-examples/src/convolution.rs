//! The C++ AMP separable convolution sample: an image (row-major `f32`,
//! `height x width`) filtered by a 1-D filter of `2 * radius + 1` taps
//! along each row, then along each column, with clamped borders.
//!
//! - [`convolution_cpu`]: the reference, on the host.
//! - [`convolution_simple`]: one work item per pixel and pass; the passes are
//!   one kernel in a const-generic host function (the sample's template
//!   `convolution_dim_simple<dim>`), and the intermediate image stays on the
//!   accelerator in an [`Array`].
//! - [`convolution_tiling`]: tiles of [`TILE_SIZE`] work items along the
//!   filtered dimension load a line of the image, halo included, into
//!   `tile_static` memory; after the barrier (a `tile_static` fence: only
//!   that memory is shared) the `TILE_SIZE - 2 * radius` work items in the
//!   middle apply the filter (the sample's `convolution_tile_dim<dim>`).

use amp_core::prelude::*;
use amp_core::{Access, Result};

/// Work items per tile along the filtered dimension in
/// [`convolution_tiling`] (the sample's `TILE_SIZE`).
pub const TILE_SIZE: i32 = 128;

/// The filter's radius, after checking the shapes.
fn check(out: &[f32], img: &[f32], filter: &[f32], width: i32, height: i32) -> Result<i32> {
    if width <= 0 || height <= 0 {
        return Err(Error::InvalidArgument(format!(
            "image sizes must be positive: {width} x {height}"
        )));
    }
    let pixels = i64::from(width) * i64::from(height);
    for (name, len) in [("image", img.len()), ("output", out.len())] {
        if len as i64 != pixels {
            return Err(Error::InvalidArgument(format!(
                "the {name} has {len} pixels, a {width} x {height} image needs {pixels}"
            )));
        }
    }
    if filter.len().is_multiple_of(2) || filter.len() > i32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "a filter has an odd number of taps (2 * radius + 1), not {}",
            filter.len()
        )));
    }
    Ok((filter.len() / 2) as i32)
}

/// The separable convolution on the host: the reference.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if a size is not positive, a slice's length
/// does not match the image, or the filter has an even number of taps.
///
/// # Examples
///
/// ```
/// // A 3-tap box filter over a 3 x 1 image, borders clamped.
/// let img = [3.0f32, 6.0, 9.0];
/// let mut out = [0.0f32; 3];
/// let third = 1.0 / 3.0;
/// amp_examples::convolution::convolution_cpu(&mut out, &img, &[third; 3], 3, 1)?;
/// // Rows: [4, 6, 8]; columns (one row, clamped): each value times 3 * third.
/// assert!((out[0] - 4.0).abs() < 1e-5 && (out[2] - 8.0).abs() < 1e-5);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn convolution_cpu(
    out: &mut [f32],
    img: &[f32],
    filter: &[f32],
    width: i32,
    height: i32,
) -> Result<()> {
    let radius = check(out, img, filter, width, height)?;
    let (w, h) = (width as usize, height as usize);
    let at = |i: i32, len: usize| i.clamp(0, len as i32 - 1) as usize;
    let mut tmp = vec![0.0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut sum = 0.0f32;
            for k in 0..2 * radius + 1 {
                sum += img[y * w + at(x as i32 + k - radius, w)] * filter[k as usize];
            }
            tmp[y * w + x] = sum;
        }
    }
    for y in 0..h {
        for x in 0..w {
            let mut sum = 0.0f32;
            for k in 0..2 * radius + 1 {
                sum += tmp[at(y as i32 + k - radius, h) * w + x] * filter[k as usize];
            }
            out[y * w + x] = sum;
        }
    }
    Ok(())
}

/// One pass of [`convolution_simple`] along dimension `DIM` (0: columns,
/// 1: rows): one work item per pixel.
fn convolution_dim_simple<const DIM: i32, A: Access, B: Access>(
    view: &AcceleratorView,
    input: &ArrayView<'_, f32, 2, A>,
    output: &ArrayView<'_, f32, 2>,
    filter: &ArrayView<'_, f32, 1, B>,
    radius: i32,
) -> Result<()> {
    let len = input.extent()[DIM as usize];
    parallel_for_each!(view, output.extent(), |idx: Index<2>| {
        let mut sum = 0.0f32;
        let mut a_idx = idx;
        for k in 0..2 * radius + 1 {
            a_idx[DIM] = (idx[DIM] + k - radius).clamp(0, len - 1);
            sum += input[a_idx] * filter[k];
        }
        output[idx] = sum;
    })
}

/// The separable convolution on `view`, one work item per pixel and pass.
///
/// The sample's `convolution_simple`: the image and the filter are
/// read-only views, the row pass writes an [`Array`] on `view` that the
/// column pass reads there (no round trip through the host), and the output
/// is discarded before and synchronized after.
///
/// # Errors
///
/// As [`convolution_cpu`], and any error of the launches.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
/// use amp_examples::convolution::{convolution_cpu, convolution_simple};
///
/// let view = Accelerator::cpu().default_view();
/// let img: Vec<f32> = (0..40).map(|i| (i * 7 % 11) as f32).collect();
/// let filter = [0.25f32, 0.5, 0.25];
/// let (mut want, mut got) = (vec![0.0f32; 40], vec![0.0f32; 40]);
/// convolution_cpu(&mut want, &img, &filter, 8, 5)?;
/// convolution_simple(&view, &mut got, &img, &filter, 8, 5)?;
/// assert_eq!(got, want);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn convolution_simple(
    view: &AcceleratorView,
    out: &mut [f32],
    img: &[f32],
    filter: &[f32],
    width: i32,
    height: i32,
) -> Result<()> {
    check(out, img, filter, width, height)?;
    on_slices(
        view,
        out,
        img,
        filter,
        [width, height],
        convolution_simple_on,
    )
}

/// A convolution of this module on views (`out`, `img`, `filter`, `tmp`).
type OnViews = fn(
    &AcceleratorView,
    &ArrayView<'_, f32, 2>,
    &ArrayView<'_, f32, 2, ReadOnly>,
    &ArrayView<'_, f32, 1, ReadOnly>,
    &Array<f32, 2>,
) -> Result<()>;

/// Runs `passes` over views of host slices, as the sample's functions do:
/// the image and the filter read-only, the intermediate image an [`Array`]
/// on `view`, the output discarded before and synchronized after.
fn on_slices(
    view: &AcceleratorView,
    out: &mut [f32],
    img: &[f32],
    filter: &[f32],
    [width, height]: [i32; 2],
    passes: OnViews,
) -> Result<()> {
    let image = ArrayView::new([height, width], img)?;
    let filt = ArrayView::new([filter.len() as i32], filter)?;
    let tmp = Array::<f32, 2>::new([height, width], view)?;
    let result = ArrayView::new_mut([height, width], out)?;
    result.discard_data();
    passes(view, &result, &image, &filt, &tmp)?;
    result.synchronize()
}

/// The radius of `filter`, if `out`, `img` and `tmp` have one extent.
fn check_on<A: Access, B: Access>(
    out: &ArrayView<'_, f32, 2>,
    img: &ArrayView<'_, f32, 2, A>,
    filter: &ArrayView<'_, f32, 1, B>,
    tmp: &Array<f32, 2>,
) -> Result<i32> {
    let e = img.extent();
    if out.extent() != e || tmp.extent() != e {
        return Err(Error::InvalidArgument(format!(
            "the image ({e}), the output ({}) and the intermediate image ({}) differ in shape",
            out.extent(),
            tmp.extent()
        )));
    }
    let taps = filter.extent()[0];
    if taps % 2 == 0 {
        return Err(Error::InvalidArgument(format!(
            "a filter has an odd number of taps (2 * radius + 1), not {taps}"
        )));
    }
    Ok(taps / 2)
}

/// The passes of [`convolution_simple`] on views of any data source (host
/// slices, [`Array`]s resident on an accelerator), with `tmp`, of the
/// image's extent, for the intermediate image.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the extents differ or the filter has an
/// even number of taps; any error of the launches.
pub fn convolution_simple_on<A: Access, B: Access>(
    view: &AcceleratorView,
    out: &ArrayView<'_, f32, 2>,
    img: &ArrayView<'_, f32, 2, A>,
    filter: &ArrayView<'_, f32, 1, B>,
    tmp: &Array<f32, 2>,
) -> Result<()> {
    let radius = check_on(out, img, filter, tmp)?;
    convolution_dim_simple::<1, _, _>(view, img, &tmp.view(), filter, radius)?;
    convolution_dim_simple::<0, _, _>(view, &tmp.view(), out, filter, radius)
}

/// One pass of [`convolution_tiling`] along dimension `DIM`, in tiles of
/// `T0 x T1` work items (`TILE_SIZE` along `DIM`, 1 along the other).
fn convolution_tile_dim<const DIM: i32, const T0: i32, const T1: i32, A: Access, B: Access>(
    view: &AcceleratorView,
    input: &ArrayView<'_, f32, 2, A>,
    output: &ArrayView<'_, f32, 2>,
    filter: &ArrayView<'_, f32, 1, B>,
    radius: i32,
) -> Result<()> {
    let len = output.extent()[DIM as usize];
    // Each tile filters TILE_SIZE - 2 * radius pixels; its other work items
    // only load the halo.
    let useful = TILE_SIZE - 2 * radius;
    let tiles = (len + useful - 1) / useful;
    let mut domain = output.extent();
    domain[DIM as usize] = tiles.checked_mul(TILE_SIZE).ok_or_else(|| {
        Error::InvalidArgument(format!("an image of {len} pixels along {DIM} is too large"))
    })?;
    parallel_for_each!(view, domain.tile::<T0, T1>()?, |t: TiledIndex<2>| {
        tile_static! { let line: [f32; TILE_SIZE]; }
        let l = t.local[DIM];
        let idx_convolve = t.tile[DIM] * useful + l - radius;
        let mut a_idx = t.global;
        a_idx[DIM] = idx_convolve.clamp(0, len - 1);
        line[l] = input[a_idx];
        t.barrier.wait_with_tile_static_memory_fence();
        if l >= radius && l < TILE_SIZE - radius && idx_convolve < len {
            let mut sum = 0.0f32;
            for k in 0..2 * radius + 1 {
                sum += line[l - radius + k] * filter[k];
            }
            let mut o = t.global;
            o[DIM] = idx_convolve;
            output[o] = sum;
        }
    })
}

/// The separable convolution on `view`, staging lines of the image in
/// `tile_static` memory.
///
/// The sample's `convolution_tiling`: the same arrays as
/// [`convolution_simple`], with tiles of [`TILE_SIZE`] work items along the
/// filtered dimension, `2 * radius` of which only load the halo.
///
/// # Errors
///
/// As [`convolution_cpu`]; [`Error::InvalidArgument`] if `2 * radius` is
/// not below [`TILE_SIZE`]; any error of the launches.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
/// use amp_examples::convolution::{convolution_cpu, convolution_tiling};
///
/// let view = Accelerator::cpu().default_view();
/// let img: Vec<f32> = (0..40).map(|i| (i * 7 % 11) as f32).collect();
/// let filter = [0.25f32, 0.5, 0.25];
/// let (mut want, mut got) = (vec![0.0f32; 40], vec![0.0f32; 40]);
/// convolution_cpu(&mut want, &img, &filter, 8, 5)?;
/// convolution_tiling(&view, &mut got, &img, &filter, 8, 5)?;
/// assert_eq!(got, want);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn convolution_tiling(
    view: &AcceleratorView,
    out: &mut [f32],
    img: &[f32],
    filter: &[f32],
    width: i32,
    height: i32,
) -> Result<()> {
    let radius = check(out, img, filter, width, height)?;
    tile_fits(radius)?;
    on_slices(
        view,
        out,
        img,
        filter,
        [width, height],
        convolution_tiling_on,
    )
}

/// Refuses a radius that leaves no work item of a tile to filter.
fn tile_fits(radius: i32) -> Result<()> {
    if 2 * radius >= TILE_SIZE {
        return Err(Error::InvalidArgument(format!(
            "a filter of radius {radius} leaves no work item of a {TILE_SIZE}-wide tile to filter"
        )));
    }
    Ok(())
}

/// The passes of [`convolution_tiling`] on views of any data source, as
/// [`convolution_simple_on`].
///
/// # Errors
///
/// As [`convolution_simple_on`], and [`Error::InvalidArgument`] if
/// `2 * radius` is not below [`TILE_SIZE`].
pub fn convolution_tiling_on<A: Access, B: Access>(
    view: &AcceleratorView,
    out: &ArrayView<'_, f32, 2>,
    img: &ArrayView<'_, f32, 2, A>,
    filter: &ArrayView<'_, f32, 1, B>,
    tmp: &Array<f32, 2>,
) -> Result<()> {
    let radius = check_on(out, img, filter, tmp)?;
    tile_fits(radius)?;
    convolution_tile_dim::<1, 1, TILE_SIZE, _, _>(view, img, &tmp.view(), filter, radius)?;
    convolution_tile_dim::<0, TILE_SIZE, 1, _, _>(view, &tmp.view(), out, filter, radius)
}

/// The largest radius [`convolution_optimized`] handles itself (larger
/// filters go to [`convolution_tiling`]'s passes).
pub const OPTIMIZED_MAX_RADIUS: i32 = 16;
/// Pixels per line of a tile of the row pass of [`convolution_optimized`].
const ROW_TILE: i32 = 256;
/// Work items per line of a tile of the row pass.
const ROW_ITEMS: i32 = 64;
/// Lines (rows) per tile of the row pass.
const ROW_LINES: i32 = 4;
/// Columns per tile of the column pass.
const COL_TILE: i32 = 32;
/// Work items per tile along the columns' direction in the column pass.
const COL_ITEMS: i32 = 8;
/// Output rows per tile of the column pass (`COL_ITEMS` work items, each
/// `COL_ROWS / COL_ITEMS` rows).
const COL_ROWS: i32 = 64;

/// The separable convolution written for speed, in the kernel language
/// only: every work item of a tile produces output (the apron is loaded by
/// extra loads, not by idle work items), and the column pass reads whole
/// rows of `COL_TILE` columns, so that neighbouring work items read
/// neighbouring pixels (coalesced), with the apron of `COL_ROWS` rows in
/// `tile_static` memory.
///
/// Filters of radius up to [`OPTIMIZED_MAX_RADIUS`]; larger ones run
/// [`convolution_tiling`]'s passes. Same arrays and results as
/// [`convolution_simple`].
///
/// # Errors
///
/// As [`convolution_tiling`].
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
/// use amp_examples::convolution::{convolution_cpu, convolution_optimized};
///
/// let view = Accelerator::cpu().default_view();
/// let img: Vec<f32> = (0..40).map(|i| (i * 7 % 11) as f32).collect();
/// let filter = [0.25f32, 0.5, 0.25];
/// let (mut want, mut got) = (vec![0.0f32; 40], vec![0.0f32; 40]);
/// convolution_cpu(&mut want, &img, &filter, 8, 5)?;
/// convolution_optimized(&view, &mut got, &img, &filter, 8, 5)?;
/// assert_eq!(got, want);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn convolution_optimized(
    view: &AcceleratorView,
    out: &mut [f32],
    img: &[f32],
    filter: &[f32],
    width: i32,
    height: i32,
) -> Result<()> {
    let radius = check(out, img, filter, width, height)?;
    if radius > OPTIMIZED_MAX_RADIUS {
        tile_fits(radius)?;
    }
    on_slices(
        view,
        out,
        img,
        filter,
        [width, height],
        convolution_optimized_on,
    )
}

/// The passes of [`convolution_optimized`] on views of any data source, as
/// [`convolution_simple_on`].
///
/// # Errors
///
/// As [`convolution_tiling_on`].
pub fn convolution_optimized_on<A: Access, B: Access>(
    view: &AcceleratorView,
    out: &ArrayView<'_, f32, 2>,
    img: &ArrayView<'_, f32, 2, A>,
    filter: &ArrayView<'_, f32, 1, B>,
    tmp: &Array<f32, 2>,
) -> Result<()> {
    let radius = check_on(out, img, filter, tmp)?;
    if radius > OPTIMIZED_MAX_RADIUS {
        return convolution_tiling_on(view, out, img, filter, tmp);
    }
    rows_optimized(view, img, &tmp.view(), filter, radius)?;
    columns_optimized(view, &tmp.view(), out, filter, radius)
}

/// The row pass of [`convolution_optimized`]: tiles of `ROW_LINES` rows of
/// `ROW_TILE` pixels, each work item `ROW_TILE / ROW_ITEMS` pixels of one
/// row, the lines and their aprons in `tile_static` memory.
fn rows_optimized<A: Access, B: Access>(
    view: &AcceleratorView,
    input: &ArrayView<'_, f32, 2, A>,
    output: &ArrayView<'_, f32, 2>,
    filter: &ArrayView<'_, f32, 1, B>,
    radius: i32,
) -> Result<()> {
    const PER_ITEM: i32 = ROW_TILE / ROW_ITEMS;
    let [h, w] = [output.extent()[0], output.extent()[1]];
    // Upper case: the kernel is compiled for this radius (one pipeline per
    // radius), so that its tap loop unrolls.
    #[allow(non_snake_case)]
    let RADIUS = radius;
    let row_tiles = (h + ROW_LINES - 1) / ROW_LINES;
    let col_tiles = (w + ROW_TILE - 1) / ROW_TILE;
    let domain = Extent::new([row_tiles * ROW_LINES, col_tiles * ROW_ITEMS])
        .tile::<ROW_LINES, ROW_ITEMS>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! {
            let lines: [[f32; ROW_TILE + 2 * OPTIMIZED_MAX_RADIUS]; ROW_LINES];
            let taps: [f32; 2 * OPTIMIZED_MAX_RADIUS + 1];
        }
        let ly = t.local[0];
        let lx = t.local[1];
        let row = t.global[0].min(h - 1);
        let first = t.tile[1] * ROW_TILE - RADIUS;
        // Pixel `first + j` of the row (clamped to it) goes to `lines[ly][j]`.
        #[unroll]
        for q in 0..(ROW_TILE + 2 * OPTIMIZED_MAX_RADIUS + ROW_ITEMS - 1) / ROW_ITEMS {
            let j = lx + q * ROW_ITEMS;
            if j < ROW_TILE + 2 * RADIUS {
                lines[ly][j] = input[[row, (first + j).clamp(0, w - 1)]];
            }
        }
        let me = ly * ROW_ITEMS + lx;
        if me < 2 * RADIUS + 1 {
            taps[me] = filter[me];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        if t.global[0] < h {
            for i in 0..PER_ITEM {
                let j = lx + i * ROW_ITEMS;
                let mut sum = 0.0f32;
                #[unroll]
                for k in 0..2 * RADIUS + 1 {
                    sum += lines[ly][j + k] * taps[k];
                }
                let col = t.tile[1] * ROW_TILE + j;
                if col < w {
                    output[[t.global[0], col]] = sum;
                }
            }
        }
    })
}

/// The column pass of [`convolution_optimized`]: tiles of `COL_ROWS` rows of
/// `COL_TILE` columns, the block and its apron rows in `tile_static`
/// memory, each work item `COL_ROWS / COL_ITEMS` rows of one column.
fn columns_optimized<A: Access, B: Access>(
    view: &AcceleratorView,
    input: &ArrayView<'_, f32, 2, A>,
    output: &ArrayView<'_, f32, 2>,
    filter: &ArrayView<'_, f32, 1, B>,
    radius: i32,
) -> Result<()> {
    const PER_ITEM: i32 = COL_ROWS / COL_ITEMS;
    let [h, w] = [output.extent()[0], output.extent()[1]];
    #[allow(non_snake_case)]
    let RADIUS = radius;
    let row_tiles = (h + COL_ROWS - 1) / COL_ROWS;
    let col_tiles = (w + COL_TILE - 1) / COL_TILE;
    let domain =
        Extent::new([row_tiles * COL_ITEMS, col_tiles * COL_TILE]).tile::<COL_ITEMS, COL_TILE>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! {
            let block: [[f32; COL_TILE]; COL_ROWS + 2 * OPTIMIZED_MAX_RADIUS];
            let taps: [f32; 2 * OPTIMIZED_MAX_RADIUS + 1];
        }
        let ty = t.local[0];
        let tx = t.local[1];
        let row0 = t.tile[0] * COL_ROWS;
        let col = (t.global[1]).min(w - 1);
        let first = row0 - RADIUS;
        let span = COL_ROWS + 2 * RADIUS;
        // Row `first + j` (clamped to the image) goes to `block[j]`.
        #[unroll]
        for q in 0..(COL_ROWS + 2 * OPTIMIZED_MAX_RADIUS) / COL_ITEMS {
            let j = ty + q * COL_ITEMS;
            if j < span {
                block[j][tx] = input[[(first + j).clamp(0, h - 1), col]];
            }
        }
        let me = ty * COL_TILE + tx;
        if me < 2 * RADIUS + 1 {
            taps[me] = filter[me];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        if t.global[1] < w {
            // Consecutive rows: the unrolled sums share their loads.
            for i in 0..PER_ITEM {
                let r = ty * PER_ITEM + i;
                let mut sum = 0.0f32;
                #[unroll]
                for k in 0..2 * RADIUS + 1 {
                    sum += block[r + k][tx] * taps[k];
                }
                if row0 + r < h {
                    output[[row0 + r, t.global[1]]] = sum;
                }
            }
        }
    })
}
