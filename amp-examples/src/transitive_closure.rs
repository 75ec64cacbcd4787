//! The transitive closure of a directed graph, in the shape of C++ AMP's
//! TransitiveClosure sample.
//!
//! The graph is an `n x n` adjacency matrix (`g[i][j] != 0`: an edge from
//! `i` to `j`); its closure has a 1 at `[i][j]` where a path of one or more
//! edges leads from `i` to `j` (so `[i][i]` is 1 only on a cycle). Both
//! versions are Warshall's algorithm: for each vertex `k` in turn, every
//! pair `(i, j)` gains the paths through `k`.
//!
//! - [`closure_simple`] is one launch per `k` over the whole matrix, as the
//!   sample's first version.
//! - [`closure_tiled`] is the sample's blocked version: the matrix is cut
//!   into [`TS`] x [`TS`] blocks, and for each block `kb` on the diagonal
//!   three launches over the same array run the three phases: the diagonal
//!   block alone (one tile), then the blocks of its row and column (each
//!   tile with the diagonal block in `tile_static` memory), then every other
//!   block (each tile with a block of row `kb` and one of column `kb` in
//!   `tile_static` memory). The matrix stays on the accelerator between the
//!   launches.
//!
//! Each launch works in place. A work item sets its element to 1 only where
//! it is still 0 and a path through `k` exists; the elements other work
//! items read in that step (row and column `k`) can never be in that state,
//! so no work item writes what another reads.

use amp_core::Result;
use amp_core::prelude::*;

/// The side of the blocks of [`closure_tiled`] (tiles of `TS x TS` work
/// items).
pub const TS: i32 = 16;

/// `n` as the matrix side, checked against the slices' lengths.
fn check(adjacency: &[u32], n: usize, out: &[u32]) -> Result<i32> {
    let side = i32::try_from(n)
        .ok()
        .filter(|&s| s > 0 && s <= 46_340 && adjacency.len() == n * n && out.len() == n * n)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "transitive_closure needs an n x n adjacency matrix and output with 0 < n <= 46340, \
                 not n = {n} with {} and {} elements",
                adjacency.len(),
                out.len()
            ))
        })?;
    Ok(side)
}

/// The closure of the `n x n` matrix `adjacency` (row-major; nonzero: an
/// edge) into `out` (0 or 1 each), with one launch over the whole matrix
/// per vertex.
///
/// # Errors
///
/// [`Error::InvalidArgument`] unless both slices hold `n * n` elements and
/// `n > 0`; any error of the launches.
///
/// # Examples
///
/// ```
/// let view = amp_core::Accelerator::cpu().default_view();
/// // 0 -> 1 -> 2
/// let g = [0, 1, 0, 0, 0, 1, 0, 0, 0];
/// let mut c = [9; 9];
/// amp_examples::transitive_closure::closure_simple(&view, &g, 3, &mut c)?;
/// assert_eq!(c, [0, 1, 1, 0, 0, 1, 0, 0, 0]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn closure_simple(
    view: &AcceleratorView,
    adjacency: &[u32],
    n: usize,
    out: &mut [u32],
) -> Result<()> {
    let n = check(adjacency, n, out)?;
    let a = ArrayView::new([n, n], adjacency)?;
    let g = ArrayView::new_mut([n, n], out)?;
    g.discard_data();
    parallel_for_each!(view, g.extent(), |idx: Index<2>| {
        g[idx] = (a[idx] != 0) as u32;
    })?;
    for k in 0..n {
        parallel_for_each!(view, g.extent(), |idx: Index<2>| {
            let (i, j) = (idx[0], idx[1]);
            if g[[i, j]] == 0 && g[[i, k]] != 0 && g[[k, j]] != 0 {
                g[[i, j]] = 1;
            }
        })?;
    }
    g.synchronize()
}

/// The closure of `adjacency` into `out`, as [`closure_simple`], with the
/// blocked algorithm: three launches per block of [`TS`] vertices, each
/// tile working on [`TS`] x [`TS`] blocks in `tile_static` memory. `n`
/// need not be a multiple of [`TS`]: the last blocks are padded with
/// vertices that have no edges.
///
/// # Errors
///
/// As [`closure_simple`].
///
/// # Examples
///
/// ```
/// let view = amp_core::Accelerator::cpu().default_view();
/// // A ring of 40 vertices: every vertex reaches every vertex.
/// let n = 40;
/// let mut g = vec![0u32; n * n];
/// for i in 0..n {
///     g[i * n + (i + 1) % n] = 1;
/// }
/// let mut c = vec![0u32; n * n];
/// amp_examples::transitive_closure::closure_tiled(&view, &g, n, &mut c)?;
/// assert!(c.iter().all(|&x| x == 1));
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn closure_tiled(
    view: &AcceleratorView,
    adjacency: &[u32],
    n: usize,
    out: &mut [u32],
) -> Result<()> {
    let n = check(adjacency, n, out)?;
    let a = ArrayView::new([n, n], adjacency)?;
    let g = ArrayView::new_mut([n, n], out)?;
    g.discard_data();
    parallel_for_each!(view, g.extent(), |idx: Index<2>| {
        g[idx] = (a[idx] != 0) as u32;
    })?;
    let blocks = (n + TS - 1) / TS;
    for kb in 0..blocks {
        // Phase 1: the diagonal block, paths through its own vertices.
        let diagonal = Extent::new([TS, TS]).tile::<TS, TS>()?;
        parallel_for_each!(view, diagonal, |t: TiledIndex<2>| {
            tile_static! { let b: [[u32; TS]; TS]; }
            let (li, lj) = (t.local[0], t.local[1]);
            let (gi, gj) = (kb * TS + li, kb * TS + lj);
            let inside = gi < n && gj < n;
            b[li][lj] = if inside { g[[gi, gj]] } else { 0 };
            t.barrier.wait_with_tile_static_memory_fence();
            for k in 0..TS {
                if b[li][lj] == 0 && b[li][k] != 0 && b[k][lj] != 0 {
                    b[li][lj] = 1;
                }
                t.barrier.wait_with_tile_static_memory_fence();
            }
            if inside {
                g[[gi, gj]] = b[li][lj];
            }
        })?;
        if blocks == 1 {
            break;
        }
        // Phase 2: the other blocks of row kb (tile row 0) and of column kb
        // (tile row 1), through the diagonal block.
        let cross = Extent::new([2 * TS, (blocks - 1) * TS]).tile::<TS, TS>()?;
        parallel_for_each!(view, cross, |t: TiledIndex<2>| {
            tile_static! {
                let own: [[u32; TS]; TS];
                let diag: [[u32; TS]; TS];
            }
            let (li, lj) = (t.local[0], t.local[1]);
            let in_row = t.tile[0] == 0;
            let other = if t.tile[1] >= kb {
                t.tile[1] + 1
            } else {
                t.tile[1]
            };
            let (bi, bj) = if in_row { (kb, other) } else { (other, kb) };
            let (gi, gj) = (bi * TS + li, bj * TS + lj);
            let inside = gi < n && gj < n;
            own[li][lj] = if inside { g[[gi, gj]] } else { 0 };
            let (di, dj) = (kb * TS + li, kb * TS + lj);
            diag[li][lj] = if di < n && dj < n { g[[di, dj]] } else { 0 };
            t.barrier.wait_with_tile_static_memory_fence();
            // `in_row` is the same for the whole tile (it comes from
            // `t.tile`), so the barriers may sit under it.
            if in_row {
                for k in 0..TS {
                    if own[li][lj] == 0 && diag[li][k] != 0 && own[k][lj] != 0 {
                        own[li][lj] = 1;
                    }
                    t.barrier.wait_with_tile_static_memory_fence();
                }
            } else {
                for k in 0..TS {
                    if own[li][lj] == 0 && own[li][k] != 0 && diag[k][lj] != 0 {
                        own[li][lj] = 1;
                    }
                    t.barrier.wait_with_tile_static_memory_fence();
                }
            }
            if inside {
                g[[gi, gj]] = own[li][lj];
            }
        })?;
        // Phase 3: every other block, through a block of row kb and one of
        // column kb (both final for this kb, and read only).
        let rest = Extent::new([(blocks - 1) * TS, (blocks - 1) * TS]).tile::<TS, TS>()?;
        parallel_for_each!(view, rest, |t: TiledIndex<2>| {
            tile_static! {
                let left: [[u32; TS]; TS];
                let above: [[u32; TS]; TS];
            }
            let (li, lj) = (t.local[0], t.local[1]);
            let bi = if t.tile[0] >= kb {
                t.tile[0] + 1
            } else {
                t.tile[0]
            };
            let bj = if t.tile[1] >= kb {
                t.tile[1] + 1
            } else {
                t.tile[1]
            };
            let (gi, gj) = (bi * TS + li, bj * TS + lj);
            // left: block (bi, kb); above: block (kb, bj).
            let (ki, kj) = (kb * TS + li, kb * TS + lj);
            left[li][lj] = if gi < n && kj < n { g[[gi, kj]] } else { 0 };
            above[li][lj] = if ki < n && gj < n { g[[ki, gj]] } else { 0 };
            t.barrier.wait_with_tile_static_memory_fence();
            if gi < n && gj < n && g[[gi, gj]] == 0 {
                let mut reach = 0u32;
                for k in 0..TS {
                    reach |= left[li][k] & above[k][lj];
                }
                if reach != 0 {
                    g[[gi, gj]] = 1;
                }
            }
        })?;
    }
    g.synchronize()
}

/// The reference: a depth-first search from every vertex, in plain Rust.
///
/// # Panics
///
/// If `adjacency` does not hold `n * n` elements.
pub fn closure_cpu(adjacency: &[u32], n: usize) -> Vec<u32> {
    assert_eq!(adjacency.len(), n * n, "an n x n matrix");
    let mut out = vec![0u32; n * n];
    let mut stack = Vec::new();
    for s in 0..n {
        let row = &mut out[s * n..(s + 1) * n];
        stack.clear();
        stack.push(s);
        while let Some(v) = stack.pop() {
            for w in 0..n {
                if adjacency[v * n + w] != 0 && row[w] == 0 {
                    row[w] = 1;
                    stack.push(w);
                }
            }
        }
    }
    out
}
