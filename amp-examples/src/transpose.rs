//! Matrix transpose, as in the C++ AMP Transpose sample: the naive kernel
//! reads rows and writes columns (one of the two strided); the tiled one
//! stages a `TILE x TILE` block in `tile_static` memory (padded by one
//! column, so that reading it by columns hits distinct banks), and both its
//! reads and its writes go along rows.

use amp_core::prelude::*;
use amp_core::{Access, Element, ReadOnly, Result, kernel};

/// The block edge of [`transpose_tiled`].
pub const TILE: i32 = 32;
/// Work items per block column: each handles `TILE / ROWS` rows.
const ROWS: i32 = 8;

/// The reference: `out[j][i] = input[i][j]` for an `rows x cols` input.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the lengths do not match the sizes.
pub fn transpose_cpu(out: &mut [f32], input: &[f32], rows: i32, cols: i32) -> Result<()> {
    check(out, input, rows, cols)?;
    let (r, c) = (rows as usize, cols as usize);
    for i in 0..r {
        for j in 0..c {
            out[j * r + i] = input[i * c + j];
        }
    }
    Ok(())
}

fn check(out: &[f32], input: &[f32], rows: i32, cols: i32) -> Result<()> {
    let len = i64::from(rows) * i64::from(cols);
    if rows <= 0 || cols <= 0 || input.len() as i64 != len || out.len() as i64 != len {
        return Err(Error::InvalidArgument(format!(
            "a {rows} x {cols} transpose needs two slices of {len} elements, not {} and {}",
            input.len(),
            out.len()
        )));
    }
    Ok(())
}

/// Transposes the `rows x cols` matrix `input` into `out` with one work
/// item per element.
///
/// # Errors
///
/// As [`transpose_cpu`]; any error of the launch.
pub fn transpose_simple(
    view: &AcceleratorView,
    out: &mut [f32],
    input: &[f32],
    rows: i32,
    cols: i32,
) -> Result<()> {
    on_slices(view, out, input, rows, cols, transpose_simple_on)
}

/// Transposes through `tile_static` blocks of [`TILE`] x [`TILE`].
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
/// use amp_examples::transpose::transpose_tiled;
///
/// let view = Accelerator::cpu().default_view();
/// let input: Vec<f32> = (0..6).map(|i| i as f32).collect();
/// let mut out = vec![0.0f32; 6];
/// transpose_tiled(&view, &mut out, &input, 2, 3)?;
/// assert_eq!(out, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
/// # Ok::<(), amp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`transpose_cpu`]; any error of the launch.
pub fn transpose_tiled(
    view: &AcceleratorView,
    out: &mut [f32],
    input: &[f32],
    rows: i32,
    cols: i32,
) -> Result<()> {
    on_slices(view, out, input, rows, cols, transpose_tiled_on)
}

/// A kernel of this module on views.
type OnViews =
    fn(&AcceleratorView, &ArrayView<'_, f32, 2>, &ArrayView<'_, f32, 2, ReadOnly>) -> Result<()>;

fn on_slices(
    view: &AcceleratorView,
    out: &mut [f32],
    input: &[f32],
    rows: i32,
    cols: i32,
    kernel: OnViews,
) -> Result<()> {
    check(out, input, rows, cols)?;
    let a = ArrayView::new([rows, cols], input)?;
    let o = ArrayView::new_mut([cols, rows], out)?;
    o.discard_data();
    kernel(view, &o, &a)?;
    o.synchronize()
}

fn shapes<A: Access>(out: &ArrayView<'_, f32, 2>, input: &ArrayView<'_, f32, 2, A>) -> Result<()> {
    let (i, o) = (input.extent(), out.extent());
    if o[0] != i[1] || o[1] != i[0] {
        return Err(Error::InvalidArgument(format!(
            "the transpose of a {i} matrix is {}x{}, not {o}",
            i[1], i[0]
        )));
    }
    Ok(())
}

/// The kernel of [`transpose_simple`] on views of any data source.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if `out`'s extent is not `input`'s reversed;
/// any error of the launch.
pub fn transpose_simple_on<A: Access>(
    view: &AcceleratorView,
    out: &ArrayView<'_, f32, 2>,
    input: &ArrayView<'_, f32, 2, A>,
) -> Result<()> {
    shapes(out, input)?;
    parallel_for_each!(view, input.extent(), |idx: Index<2>| {
        out[[idx[1], idx[0]]] = input[idx];
    })
}

/// The kernel of [`transpose_tiled`] on views of any data source.
///
/// # Errors
///
/// As [`transpose_simple_on`].
pub fn transpose_tiled_on<A: Access>(
    view: &AcceleratorView,
    out: &ArrayView<'_, f32, 2>,
    input: &ArrayView<'_, f32, 2, A>,
) -> Result<()> {
    shapes(out, input)?;
    let (rows, cols) = (input.extent()[0], input.extent()[1]);
    // Whole blocks of contiguous data: read and write `Float4`s.
    if rows % TILE == 0 && cols % TILE == 0 {
        let vectors = (
            input.reinterpret_as::<Float4>(),
            out.reinterpret_as::<Float4>(),
        );
        if let (Ok(in4), Ok(out4)) = vectors {
            let in4 = in4.view_as([rows, cols / 4])?;
            let out4 = out4.view_as([cols, rows / 4])?;
            return transpose_vec4(view, &out4, &in4);
        }
    }
    let blocks = [(rows + TILE - 1) / TILE, (cols + TILE - 1) / TILE];
    let domain = Extent::new([blocks[0] * ROWS, blocks[1] * TILE]).tile::<ROWS, TILE>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! { let block: [[f32; TILE + 1]; TILE]; }
        let ty = t.local[0];
        let tx = t.local[1];
        let r0 = t.tile[0] * TILE;
        let c0 = t.tile[1] * TILE;
        // Read rows r0 + ty + ROWS q of the block, columns along tx.
        #[unroll]
        for q in 0..TILE / ROWS {
            let r = ty + q * ROWS;
            if r0 + r < rows && c0 + tx < cols {
                block[r][tx] = input[[r0 + r, c0 + tx]];
            }
        }
        t.barrier.wait_with_tile_static_memory_fence();
        // Write rows c0 + ty + ROWS q of the output, along tx.
        #[unroll]
        for q in 0..TILE / ROWS {
            let r = ty + q * ROWS;
            if c0 + r < cols && r0 + tx < rows {
                out[[c0 + r, r0 + tx]] = block[tx][r];
            }
        }
    })
}

/// [`transpose_tiled_on`] for whole blocks of contiguous data: each work
/// item of a `32 x 8` tile reads one `Float4` of a row of the block and
/// writes one `Float4` of a row of the output, through the same padded
/// `tile_static` block (`out4` is `cols x rows/4`, `in4` `rows x cols/4`).
fn transpose_vec4<A: Access>(
    view: &AcceleratorView,
    out4: &ArrayView<'_, Float4, 2>,
    in4: &ArrayView<'_, Float4, 2, A>,
) -> Result<()> {
    /// Vectors per block row.
    const V: i32 = TILE / 4;
    let domain = in4.extent().tile::<TILE, V>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! { let block: [[f32; TILE + 1]; TILE]; }
        let ty = t.local[0];
        let tx = t.local[1];
        // Row ty of the block, columns 4 tx to 4 tx + 3.
        let v = in4[t.global];
        block[ty][4 * tx] = v.x;
        block[ty][4 * tx + 1] = v.y;
        block[ty][4 * tx + 2] = v.z;
        block[ty][4 * tx + 3] = v.w;
        t.barrier.wait_with_tile_static_memory_fence();
        // Output row: the block's column ty; its vector tx: the block's
        // rows 4 tx to 4 tx + 3.
        let c0 = t.tile[1] * TILE;
        let r0 = t.tile[0] * V;
        out4[[c0 + ty, r0 + tx]] = Float4::new(
            block[4 * tx][ty],
            block[4 * tx + 1][ty],
            block[4 * tx + 2][ty],
            block[4 * tx + 3][ty],
        );
    })
}

/// The tile edge of [`transpose_generic`] (the C++ sample's `tile_size`).
pub const GENERIC_TILE: i32 = 16;

/// The index with its two components swapped (the C++ sample's
/// `transpose(index<2>)` helper).
#[kernel]
pub fn transposed(idx: Index<2>) -> Index<2> {
    Index::new([idx[1], idx[0]])
}

/// One tile of the generic transpose, as the C++ sample's
/// `transpose_tiled_even<value_type, tile_size>` writes its kernel body: the
/// tile is read into `tile_static` memory transposed, and written at the
/// mirrored tile. Any element type: `T: Element` is moved, never computed
/// with.
#[kernel]
pub fn transpose_tile<T: Element>(
    ti: &TiledIndex<2>,
    data: &ArrayView<'_, T, 2, ReadOnly>,
    data_transpose: &ArrayView<'_, T, 2>,
) {
    tile_static! { let t1: [[T; GENERIC_TILE]; GENERIC_TILE]; }
    t1[ti.local[1]][ti.local[0]] = data[ti.global];
    ti.barrier.wait();
    let idxdst = transposed(ti.tile_origin);
    data_transpose[idxdst + ti.local] = t1[ti.local[0]][ti.local[1]];
}

/// Transposes the `rows x cols` matrix `input` of any element type into
/// `out`, in the shape of the C++ sample's template (a generic `#[kernel]`
/// function over views of `T` with a `tile_static` tile of `T`); both sizes
/// must be multiples of [`GENERIC_TILE`], as for the sample's
/// `transpose_tiled_even`.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, Int2};
/// use amp_examples::transpose::transpose_generic;
///
/// let view = Accelerator::cpu().default_view();
/// let input: Vec<Int2> = (0..16 * 32).map(|i| Int2::new(i, -i)).collect();
/// let mut out = vec![Int2::new(0, 0); 16 * 32];
/// transpose_generic(&view, &mut out, &input, 16, 32)?;
/// assert_eq!(out[16], input[1]); // out[1][0] == input[0][1]
/// # Ok::<(), amp_core::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::InvalidArgument`] if a size is not a positive multiple of
/// [`GENERIC_TILE`] or the lengths do not match the sizes; any error of the
/// launch.
// The CPU accelerator runs this kernel with a thread per work item: it
// calls a `#[kernel]` function that waits on the tile barrier (the
// split form cuts only a kernel's own body).
#[allow(deprecated)]
pub fn transpose_generic<T: Element>(
    view: &AcceleratorView,
    out: &mut [T],
    input: &[T],
    rows: i32,
    cols: i32,
) -> Result<()> {
    let len = i64::from(rows) * i64::from(cols);
    if rows <= 0
        || cols <= 0
        || rows % GENERIC_TILE != 0
        || cols % GENERIC_TILE != 0
        || input.len() as i64 != len
        || out.len() as i64 != len
    {
        return Err(Error::InvalidArgument(format!(
            "transpose_generic needs sizes that are positive multiples of {GENERIC_TILE} and two slices of rows x cols elements, not {rows} x {cols} with {} and {}",
            input.len(),
            out.len()
        )));
    }
    let data = ArrayView::new([rows, cols], input)?;
    let data_transpose = ArrayView::new_mut([cols, rows], out)?;
    data_transpose.discard_data();
    let domain = data.extent().tile::<GENERIC_TILE, GENERIC_TILE>()?;
    parallel_for_each!(view, domain, |ti: TiledIndex<2>| {
        transpose_tile(&ti, &data, &data_transpose);
    })?;
    data_transpose.synchronize()
}
