//! Matrix multiplication, as in the C++ AMP introduction: `c = a x b` for an
//! `m x w` matrix `a` and a `w x n` matrix `b`, row-major `f32`.
//!
//! [`matmul_simple`] runs one work item per element of `c`, reading `a` and
//! `b` from global memory; [`matmul_tiled`] stages `TS x TS` blocks of both
//! in `tile_static` memory, so each element is read from global memory
//! `TS` times less often. Unlike the original, the tiled kernel takes any
//! sizes: the domain is padded to whole tiles and the loads and the store
//! are guarded.

use amp_core::prelude::*;
use amp_core::{Access, Result};

/// The tile edge of [`matmul_tiled`] (the C++ AMP sample's `TS`).
pub const TS: i32 = 16;

/// Checks the slice lengths against the shapes, as a clear error.
fn check(vc: &[f32], va: &[f32], vb: &[f32], m: i32, n: i32, w: i32) -> Result<()> {
    let len = |r: i32, c: i32| i64::from(r) * i64::from(c);
    if m <= 0 || n <= 0 || w <= 0 {
        return Err(Error::InvalidArgument(format!(
            "matrix sizes must be positive: m = {m}, n = {n}, w = {w}"
        )));
    }
    for (name, got, want) in [
        ("a", va.len(), len(m, w)),
        ("b", vb.len(), len(w, n)),
        ("c", vc.len(), len(m, n)),
    ] {
        if got as i64 != want {
            return Err(Error::InvalidArgument(format!(
                "matrix {name} has {got} elements, its shape needs {want}"
            )));
        }
    }
    Ok(())
}

/// The inner size `w` of `c (m x n) = a (m x w) x b (w x n)`, if the
/// extents chain.
fn shapes<A: Access, B: Access>(
    c: &ArrayView<'_, f32, 2>,
    a: &ArrayView<'_, f32, 2, A>,
    b: &ArrayView<'_, f32, 2, B>,
) -> Result<i32> {
    let (ea, eb, ec) = (a.extent(), b.extent(), c.extent());
    if ea[1] != eb[0] || ec[0] != ea[0] || ec[1] != eb[1] {
        return Err(Error::InvalidArgument(format!(
            "cannot multiply {ea} by {eb} into {ec}"
        )));
    }
    Ok(ea[1])
}

/// `c = a x b` on the host, accumulating in `f64`: the reference.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if a size is not positive or a slice's length
/// does not match its shape.
///
/// # Examples
///
/// ```
/// let (a, b) = ([1.0f32, 2.0, 3.0, 4.0], [5.0f32, 6.0, 7.0, 8.0]);
/// let mut c = [0.0f32; 4];
/// amp_examples::matmul::matmul_cpu(&mut c, &a, &b, 2, 2, 2)?;
/// assert_eq!(c, [19.0, 22.0, 43.0, 50.0]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn matmul_cpu(vc: &mut [f32], va: &[f32], vb: &[f32], m: i32, n: i32, w: i32) -> Result<()> {
    check(vc, va, vb, m, n, w)?;
    let (m, n, w) = (m as usize, n as usize, w as usize);
    for row in 0..m {
        for col in 0..n {
            let mut sum = 0.0f64;
            for i in 0..w {
                sum += f64::from(va[row * w + i]) * f64::from(vb[i * n + col]);
            }
            vc[row * n + col] = sum as f32;
        }
    }
    Ok(())
}

/// `c = a x b` on `view`, one work item per element of `c`.
///
/// The C++ AMP sample's `MultiplyWithAMP`: `a` and `b` are read-only views
/// (uploaded, never copied back), `c` is discarded (never uploaded) and
/// synchronized at the end.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for bad shapes; any error of the launch
/// (out of memory, a lost device).
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
///
/// let view = Accelerator::cpu().default_view();
/// let (a, b) = ([1.0f32, 2.0, 3.0, 4.0], [5.0f32, 6.0, 7.0, 8.0]);
/// let mut c = [0.0f32; 4];
/// amp_examples::matmul::matmul_simple(&view, &mut c, &a, &b, 2, 2, 2)?;
/// assert_eq!(c, [19.0, 22.0, 43.0, 50.0]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn matmul_simple(
    view: &AcceleratorView,
    vc: &mut [f32],
    va: &[f32],
    vb: &[f32],
    m: i32,
    n: i32,
    w: i32,
) -> Result<()> {
    on_slices(view, vc, va, vb, [m, n, w], matmul_simple_on)
}

/// A kernel of this module on views (`c`, `a`, `b`).
type OnViews = fn(
    &AcceleratorView,
    &ArrayView<'_, f32, 2>,
    &ArrayView<'_, f32, 2, ReadOnly>,
    &ArrayView<'_, f32, 2, ReadOnly>,
) -> Result<()>;

/// Runs `kernel` over views of host slices, as the C++ AMP sample's
/// functions do: `a` and `b` read-only (uploaded, never copied back), `c`
/// discarded (never uploaded) and synchronized at the end.
fn on_slices(
    view: &AcceleratorView,
    vc: &mut [f32],
    va: &[f32],
    vb: &[f32],
    [m, n, w]: [i32; 3],
    kernel: OnViews,
) -> Result<()> {
    check(vc, va, vb, m, n, w)?;
    let a = ArrayView::new([m, w], va)?;
    let b = ArrayView::new([w, n], vb)?;
    let c = ArrayView::new_mut([m, n], vc)?;
    c.discard_data();
    kernel(view, &c, &a, &b)?;
    c.synchronize()
}

/// The kernel of [`matmul_simple`] on views of any data source (host
/// slices, [`Array`]s resident on an accelerator): `c = a x b` for `a` of
/// `m x w`, `b` of `w x n` and `c` of `m x n`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the extents do not chain; any error of the
/// launch.
pub fn matmul_simple_on<A: Access, B: Access>(
    view: &AcceleratorView,
    c: &ArrayView<'_, f32, 2>,
    a: &ArrayView<'_, f32, 2, A>,
    b: &ArrayView<'_, f32, 2, B>,
) -> Result<()> {
    let w = shapes(c, a, b)?;
    parallel_for_each!(view, c.extent(), |idx: Index<2>| {
        let row = idx[0];
        let col = idx[1];
        let mut sum = 0.0f32;
        for i in 0..w {
            sum += a[[row, i]] * b[[i, col]];
        }
        c[idx] = sum;
    })
}

/// `c = a x b` on `view`, in tiles of `TS x TS` work items that stage
/// blocks of `a` and `b` in `tile_static` memory.
///
/// The C++ AMP sample's `MultiplyWithTiling`, for any sizes: the domain is
/// padded to whole tiles; work items outside `c` load zeros and store
/// nothing. The sample's `t_idx.barrier.wait()` is a fence on all memory;
/// the work items share only `tile_static` data, so this port waits with
/// `wait_with_tile_static_memory_fence()`, which is 1.2x faster on an H100
/// (`docs/benchmarks.md`).
///
/// # Errors
///
/// [`Error::InvalidArgument`] for bad shapes; any error of the launch.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
///
/// let view = Accelerator::cpu().default_view();
/// let (a, b) = ([1.0f32, 2.0, 3.0, 4.0], [5.0f32, 6.0, 7.0, 8.0]);
/// let mut c = [0.0f32; 4];
/// amp_examples::matmul::matmul_tiled(&view, &mut c, &a, &b, 2, 2, 2)?;
/// assert_eq!(c, [19.0, 22.0, 43.0, 50.0]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn matmul_tiled(
    view: &AcceleratorView,
    vc: &mut [f32],
    va: &[f32],
    vb: &[f32],
    m: i32,
    n: i32,
    w: i32,
) -> Result<()> {
    on_slices(view, vc, va, vb, [m, n, w], matmul_tiled_on)
}

/// The kernel of [`matmul_tiled`] on views of any data source, as
/// [`matmul_simple_on`].
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the extents do not chain; any error of the
/// launch.
pub fn matmul_tiled_on<A: Access, B: Access>(
    view: &AcceleratorView,
    c: &ArrayView<'_, f32, 2>,
    a: &ArrayView<'_, f32, 2, A>,
    b: &ArrayView<'_, f32, 2, B>,
) -> Result<()> {
    let w = shapes(c, a, b)?;
    let (m, n) = (c.extent()[0], c.extent()[1]);
    let domain = c.extent().tile::<TS, TS>()?.pad()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        let row = t.local[0];
        let col = t.local[1];
        let grow = t.global[0];
        let gcol = t.global[1];
        let mut sum = 0.0f32;
        let mut i = 0;
        while i < w {
            tile_static! {
                let loc_a: [[f32; TS]; TS];
                let loc_b: [[f32; TS]; TS];
            }
            loc_a[row][col] = if grow < m && col + i < w {
                a[[grow, col + i]]
            } else {
                0.0
            };
            loc_b[row][col] = if row + i < w && gcol < n {
                b[[row + i, gcol]]
            } else {
                0.0
            };
            t.barrier.wait_with_tile_static_memory_fence();
            for k in 0..TS {
                sum += loc_a[row][k] * loc_b[k][col];
            }
            t.barrier.wait_with_tile_static_memory_fence();
            i += TS;
        }
        if grow < m && gcol < n {
            c[t.global] = sum;
        }
    })
}

/// Register-blocked matrix multiplication: each `16 x 16` tile computes a
/// `128 x 128` block of `c` (or `64 x 64` where the sizes are not multiples
/// of 128), each work item an `8 x 8` (`4 x 4`) sub-block kept in a local
/// accumulator array, stepping through the shared dimension through
/// `tile_static` copies of both operands.
///
/// Written as a kernel author would, with local arrays and loops over
/// constants: the kernel compiler unrolls the loops and turns the arrays into
/// registers on GPUs (see `docs/ARCHITECTURE.md`, "The optimising stage").
/// Sizes that are not multiples of 64 (`m`, `n`) and 16 (`w`) fall back to
/// [`matmul_tiled`]'s kernel. Not in the C++ AMP sample; it is what the
/// sample's tiled version leads to.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
///
/// let view = Accelerator::cpu().default_view();
/// let n = 64;
/// let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
/// let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32).collect();
/// let (mut c, mut want) = (vec![0.0f32; n * n], vec![0.0f32; n * n]);
/// let s = n as i32;
/// amp_examples::matmul::matmul_optimized(&view, &mut c, &a, &b, s, s, s)?;
/// amp_examples::matmul::matmul_cpu(&mut want, &a, &b, s, s, s)?;
/// assert_eq!(c, want);
/// # Ok::<(), amp_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`matmul_simple`].
pub fn matmul_optimized(
    view: &AcceleratorView,
    vc: &mut [f32],
    va: &[f32],
    vb: &[f32],
    m: i32,
    n: i32,
    w: i32,
) -> Result<()> {
    on_slices(view, vc, va, vb, [m, n, w], matmul_optimized_on)
}

/// The kernel of [`matmul_optimized`] on views of any data source, as
/// [`matmul_simple_on`]: [`matmul_blocked_on`] with the largest block that
/// divides the sizes, else [`matmul_tiled_on`].
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the extents do not chain; any error of the
/// launch.
pub fn matmul_optimized_on<A: Access, B: Access>(
    view: &AcceleratorView,
    c: &ArrayView<'_, f32, 2>,
    a: &ArrayView<'_, f32, 2, A>,
    b: &ArrayView<'_, f32, 2, B>,
) -> Result<()> {
    let w = shapes(c, a, b)?;
    let (m, n) = (c.extent()[0], c.extent()[1]);
    // The vector kernel where the sizes allow it and `b` and `c` are
    // contiguous (it reads and writes them as `Float4`s).
    if m % 128 == 0
        && n % 128 == 0
        && w % 8 == 0
        && b.reinterpret_as::<Float4>().is_ok()
        && c.reinterpret_as::<Float4>().is_ok()
    {
        return matmul_vec4_on(view, c, a, b);
    }
    for block in [128, 64] {
        if m % block == 0 && n % block == 0 && w % 16 == 0 {
            return matmul_blocked_on(view, c, a, b, block);
        }
    }
    matmul_tiled_on(view, c, a, b)
}

/// The register-blocked kernel of [`matmul_optimized`] with blocks of
/// `block x block` elements of `c` per tile: 128 (`8 x 8` per work item,
/// 8 deep) or 64 (`4 x 4`, 16 deep).
///
/// # Errors
///
/// [`Error::InvalidArgument`] for another block, or sizes that are not
/// multiples of it (`m`, `n`) and of 16 (`w`); as [`matmul_simple_on`].
pub fn matmul_blocked_on<A: Access, B: Access>(
    view: &AcceleratorView,
    c: &ArrayView<'_, f32, 2>,
    a: &ArrayView<'_, f32, 2, A>,
    b: &ArrayView<'_, f32, 2, B>,
    block: i32,
) -> Result<()> {
    let w = shapes(c, a, b)?;
    let (m, n) = (c.extent()[0], c.extent()[1]);
    if !matches!(block, 64 | 128) || m % block != 0 || n % block != 0 || w % 16 != 0 {
        return Err(Error::InvalidArgument(format!(
            "matmul_blocked_on: block {block} for {m}x{w} * {w}x{n} (blocks are 64 or 128, dividing both sizes of c; the shared size a multiple of 16)"
        )));
    }
    if block == 128 {
        blocked_128(view, c, a, b, w)
    } else {
        blocked_64(view, c, a, b, w)
    }
}

/// Defines a register-blocked kernel for one block shape (the shapes are
/// constants of the kernel, so that its loops unroll and its arrays become
/// registers).
macro_rules! blocked_kernel {
    ($name:ident, block: $block:expr, per_item: $r:expr, depth: $depth:expr) => {
        fn $name<A: Access, B: Access>(
            view: &AcceleratorView,
            c: &ArrayView<'_, f32, 2>,
            a: &ArrayView<'_, f32, 2, A>,
            b: &ArrayView<'_, f32, 2, B>,
            w: i32,
        ) -> Result<()> {
            /// Elements of `c` per tile side.
            const BM: i32 = $block;
            /// Elements of `c` per work item side.
            const R: i32 = $r;
            /// Work items per tile side.
            const T: i32 = BM / R;
            /// The depth of one step over the shared dimension.
            const BK: i32 = $depth;
            let (m, n) = (c.extent()[0], c.extent()[1]);
            let domain = Extent::new([m / R, n / R]).tile::<T, T>()?;
            parallel_for_each!(view, domain, |t: TiledIndex<2>| {
                // `a`'s block is stored transposed (`a_s[k][row]`), so that
                // both operands are read along a row of tile_static memory.
                tile_static! {
                    let a_s: [[f32; BM]; BK];
                    let b_s: [[f32; BM]; BK];
                }
                let ty = t.local[0];
                let tx = t.local[1];
                let me = ty * T + tx;
                let row0 = t.tile[0] * BM;
                let col0 = t.tile[1] * BM;
                // Work item (ty, tx) owns rows ty + T i and columns tx + T j
                // of the block: neighbouring work items, neighbouring columns.
                let mut sums = [[0.0f32; R as usize]; R as usize];
                let mut k0 = 0;
                while k0 < w {
                    #[unroll]
                    for q in 0..(BM * BK) / (T * T) {
                        let e = me + q * T * T;
                        a_s[e % BK][e / BK] = a[[row0 + e / BK, k0 + e % BK]];
                        b_s[e / BM][e % BM] = b[[k0 + e / BM, col0 + e % BM]];
                    }
                    t.barrier.wait_with_tile_static_memory_fence();
                    #[unroll]
                    for k in 0..BK {
                        let mut ar = [0.0f32; R as usize];
                        let mut br = [0.0f32; R as usize];
                        for i in 0..R {
                            ar[i] = a_s[k][ty + i * T];
                            br[i] = b_s[k][tx + i * T];
                        }
                        for i in 0..R {
                            for j in 0..R {
                                sums[i][j] += ar[i] * br[j];
                            }
                        }
                    }
                    t.barrier.wait_with_tile_static_memory_fence();
                    k0 += BK;
                }
                for i in 0..R {
                    for j in 0..R {
                        c[[row0 + ty + i * T, col0 + tx + j * T]] = sums[i][j];
                    }
                }
            })
        }
    };
}

blocked_kernel!(blocked_64, block: 64, per_item: 4, depth: 16);
blocked_kernel!(blocked_128, block: 128, per_item: 8, depth: 8);

/// Register-blocked matrix multiplication on `Float4`s: each `16 x 16` tile
/// computes a `128 x 128` block of `c`, each work item `8 x 8` elements in
/// two `4 x 4` quads, with `a` transposed first (by
/// [`transpose_tiled_on`](crate::transpose::transpose_tiled_on), into a
/// temporary array) so that both operands are read along rows as vectors,
/// from global memory and from `tile_static` memory alike.
///
/// This is the shape of the hand-written WGSL kernel it is measured against
/// (`docs/benchmarks.md`), written in the kernel language: `Float4` views
/// from [`ArrayView::reinterpret_as`] and [`ArrayView::view_as`],
/// `tile_static` arrays of `Float4`, and a `[[f32; 8]; 8]` accumulator that
/// the kernel compiler turns into registers.
///
/// # Errors
///
/// [`Error::InvalidArgument`] unless `m` and `n` are multiples of 128, `w`
/// of 8, and `b` and `c` are contiguous; as [`matmul_simple_on`].
pub fn matmul_vec4_on<A: Access, B: Access>(
    view: &AcceleratorView,
    c: &ArrayView<'_, f32, 2>,
    a: &ArrayView<'_, f32, 2, A>,
    b: &ArrayView<'_, f32, 2, B>,
) -> Result<()> {
    let w = shapes(c, a, b)?;
    let (m, n) = (c.extent()[0], c.extent()[1]);
    if m % 128 != 0 || n % 128 != 0 || w % 8 != 0 {
        return Err(Error::InvalidArgument(format!(
            "matmul_vec4_on: {m}x{w} * {w}x{n} (the sizes of c must be multiples of 128, the shared size of 8)"
        )));
    }
    // `b` and `c` as vectors first: a view that is not contiguous is
    // refused before anything runs.
    let b4 = b.reinterpret_as::<Float4>()?.view_as([w, n / 4])?;
    let c4 = c.reinterpret_as::<Float4>()?.view_as([m, n / 4])?;
    let at = Array::<f32, 2>::new([w, m], view)?;
    crate::transpose::transpose_tiled_on(view, &at.view(), a)?;
    let at4 = at
        .reinterpret_as::<Float4>()?
        .view_as([w, m / 4])?
        .as_read_only();
    vec4_kernel(view, &c4, &at4, &b4, w)
}

/// The kernel of [`matmul_vec4_on`] on `Float4` views: `c4` is `m x n/4`,
/// `at4` (`a` transposed) `w x m/4`, `b4` `w x n/4`.
fn vec4_kernel<B: Access>(
    view: &AcceleratorView,
    c4: &ArrayView<'_, Float4, 2>,
    at4: &ArrayView<'_, Float4, 2, ReadOnly>,
    b4: &ArrayView<'_, Float4, 2, B>,
    w: i32,
) -> Result<()> {
    /// Work items per tile side.
    const T: i32 = 16;
    /// `Float4`s per tile side of the block (128 elements).
    const Q: i32 = 32;
    /// The depth of one step over the shared dimension.
    const BK: i32 = 8;
    let (m, n4) = (c4.extent()[0], c4.extent()[1]);
    let domain = Extent::new([m / 8, n4 * 4 / 8]).tile::<T, T>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        // Both operands' blocks, `BK` deep, rows of `Q` vectors.
        tile_static! {
            let a_s: [[Float4; Q]; BK];
            let b_s: [[Float4; Q]; BK];
        }
        let ty = t.local[0];
        let tx = t.local[1];
        let me = ty * T + tx;
        // In vectors: the block's first row of `at4` and column of `b4`.
        let row_q = t.tile[0] * Q;
        let col_q = t.tile[1] * Q;
        // Each work item loads one vector of each operand per step.
        let lk = me / Q;
        let lq = me % Q;
        // Work item (ty, tx) owns the rows of vectors ty and ty + T of the
        // block and the columns of vectors tx and tx + T.
        let mut acc = [[0.0f32; 8]; 8];
        let mut k0 = 0;
        while k0 < w {
            a_s[lk][lq] = at4[[k0 + lk, row_q + lq]];
            b_s[lk][lq] = b4[[k0 + lk, col_q + lq]];
            t.barrier.wait_with_tile_static_memory_fence();
            #[unroll]
            for k in 0..BK {
                let a0 = a_s[k][ty];
                let a1 = a_s[k][ty + T];
                let b0 = b_s[k][tx];
                let b1 = b_s[k][tx + T];
                let ar = [a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w];
                let br = [b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w];
                for i in 0..8 {
                    for j in 0..8 {
                        acc[i][j] += ar[i] * br[j];
                    }
                }
            }
            t.barrier.wait_with_tile_static_memory_fence();
            k0 += BK;
        }
        for i in 0..4 {
            let r0 = (row_q + ty) * 4 + i;
            let r1 = (row_q + ty + T) * 4 + i;
            c4[[r0, col_q + tx]] = Float4::new(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
            c4[[r0, col_q + tx + T]] = Float4::new(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
            c4[[r1, col_q + tx]] =
                Float4::new(acc[i + 4][0], acc[i + 4][1], acc[i + 4][2], acc[i + 4][3]);
            c4[[r1, col_q + tx + T]] =
                Float4::new(acc[i + 4][4], acc[i + 4][5], acc[i + 4][6], acc[i + 4][7]);
        }
    })
}
