//! Sum of an `f32` vector, in the shape of the C++ AMP Reduction sample's
//! tiled cascade: each tile of [`TILE`] work items accumulates a strided
//! share of the input in registers, reduces it in `tile_static` memory to
//! one partial sum, and a second, single-tile launch reduces the partial
//! sums.
//!
//! The addition order differs from a sequential loop, so results agree with
//! [`sum_cpu`] to rounding, not bit for bit.
//!
//! The sample's other versions are here too: [`sum_simple`] (a launch per
//! halving of the data, the sample's first, simplest cascade) and
//! [`sum_atomic`] (each tile's sum added to the total with an atomic, one
//! launch).

use amp_core::prelude::*;
use amp_core::{Access, Result};

/// Work items per tile.
pub const TILE: i32 = 256;
/// Tiles of the first launch (and partial sums of the second).
pub const PARTIALS: i32 = 1024;
/// Elements each work item reads per step of its loop.
const UNROLL: i32 = 4;

/// The reference: a sequential sum, accumulated in `f64`.
pub fn sum_cpu(data: &[f32]) -> f32 {
    data.iter().map(|&x| f64::from(x)).sum::<f64>() as f32
}

/// The sum of `data` on `view`.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
///
/// let view = Accelerator::cpu().default_view();
/// let data: Vec<f32> = (0..10_000).map(|i| (i % 10) as f32).collect();
/// assert_eq!(amp_examples::reduction::sum(&view, &data)?, 45_000.0);
/// # Ok::<(), amp_core::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::InvalidArgument`] for an empty slice or one longer than
/// `i32::MAX`; any error of the launches.
pub fn sum(view: &AcceleratorView, data: &[f32]) -> Result<f32> {
    let len = i32::try_from(data.len())
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "reduction::sum needs 1 to {} elements, not {}",
                i32::MAX,
                data.len()
            ))
        })?;
    let input = ArrayView::new([len], data)?;
    let partials = Array::<f32, 1>::new([PARTIALS], view)?;
    let mut total = [0.0f32];
    {
        let out = ArrayView::new_mut([1], &mut total)?;
        out.discard_data();
        sum_on(view, &input, &partials, &out)?;
        out.synchronize()?;
    }
    Ok(total[0])
}

/// The two launches of [`sum`] on views of any data source: `partials`
/// (of [`PARTIALS`] elements) receives each tile's sum, `out[0]` the total.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if `partials` does not have [`PARTIALS`]
/// elements or `out` is not one element; any error of the launches.
pub fn sum_on<A: Access>(
    view: &AcceleratorView,
    data: &ArrayView<'_, f32, 1, A>,
    partials: &Array<f32, 1>,
    out: &ArrayView<'_, f32, 1>,
) -> Result<()> {
    if partials.extent()[0] != PARTIALS || out.extent()[0] != 1 {
        return Err(Error::InvalidArgument(format!(
            "reduction::sum_on needs {PARTIALS} partial sums and a 1-element output, not {} and {}",
            partials.extent(),
            out.extent()
        )));
    }
    let n = data.extent()[0];
    let p = partials.view();
    let domain = Extent::new([PARTIALS * TILE]).tile::<TILE>()?;
    // Contiguous data of whole vectors is read as `Float4`s: a quarter of
    // the loads, each four times wider.
    let vectors = match data.reinterpret_as::<Float4>() {
        Ok(d4) if n % 4 == 0 => Some(d4),
        _ => None,
    };
    if let Some(d4) = vectors {
        let n4 = n / 4;
        parallel_for_each!(view, domain, |t: TiledIndex<1>| {
            tile_static! { let part: [f32; TILE]; }
            let l = t.local[0];
            let stride = PARTIALS * TILE;
            let mut acc = Float4::splat(0.0);
            let mut i = t.global[0];
            while i < n4 - (UNROLL - 1) * stride {
                #[unroll]
                for u in 0..UNROLL {
                    acc += d4[[i + u * stride]];
                }
                i += UNROLL * stride;
            }
            while i < n4 {
                acc += d4[[i]];
                i += stride;
            }
            part[l] = (acc.x + acc.y) + (acc.z + acc.w);
            t.barrier.wait_with_tile_static_memory_fence();
            let mut half = TILE / 2;
            while half > 0 {
                if l < half {
                    part[l] += part[l + half];
                }
                t.barrier.wait_with_tile_static_memory_fence();
                half /= 2;
            }
            if l == 0 {
                p[t.tile] = part[0];
            }
        })?;
        return final_sum(view, &p, out);
    }
    parallel_for_each!(view, domain, |t: TiledIndex<1>| {
        tile_static! { let part: [f32; TILE]; }
        let l = t.local[0];
        let stride = PARTIALS * TILE;
        // Neighbouring work items read neighbouring elements, UNROLL
        // strides at a time.
        let mut acc = 0.0f32;
        let mut i = t.global[0];
        while i < n - (UNROLL - 1) * stride {
            #[unroll]
            for u in 0..UNROLL {
                acc += data[[i + u * stride]];
            }
            i += UNROLL * stride;
        }
        while i < n {
            acc += data[[i]];
            i += stride;
        }
        part[l] = acc;
        t.barrier.wait_with_tile_static_memory_fence();
        let mut half = TILE / 2;
        while half > 0 {
            if l < half {
                part[l] += part[l + half];
            }
            t.barrier.wait_with_tile_static_memory_fence();
            half /= 2;
        }
        if l == 0 {
            p[t.tile] = part[0];
        }
    })?;
    final_sum(view, &p, out)
}

/// The second pass of [`sum_on`]: one tile adds the [`PARTIALS`] partial
/// sums into `out`.
fn final_sum(
    view: &AcceleratorView,
    p: &ArrayView<'_, f32, 1>,
    out: &ArrayView<'_, f32, 1>,
) -> Result<()> {
    let domain = Extent::new([TILE]).tile::<TILE>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<1>| {
        tile_static! { let part: [f32; TILE]; }
        let l = t.local[0];
        let mut acc = 0.0f32;
        #[unroll]
        for u in 0..PARTIALS / TILE {
            acc += p[[l + u * TILE]];
        }
        part[l] = acc;
        t.barrier.wait_with_tile_static_memory_fence();
        let mut half = TILE / 2;
        while half > 0 {
            if l < half {
                part[l] += part[l + half];
            }
            t.barrier.wait_with_tile_static_memory_fence();
            half /= 2;
        }
        if l == 0 {
            out[[0]] = part[0];
        }
    })
}

fn length(data: &[f32], what: &str) -> Result<i32> {
    i32::try_from(data.len())
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "reduction::{what} needs 1 to {} elements, not {}",
                i32::MAX,
                data.len()
            ))
        })
}

/// The sum of `data` by the simplest cascade: each launch adds the upper
/// half of the remaining elements to the lower half, until one is left
/// (`log2(n)` launches, the data staying on the accelerator between them).
///
/// # Errors
///
/// As [`sum`].
///
/// # Examples
///
/// ```
/// let view = amp_core::Accelerator::cpu().default_view();
/// let data: Vec<f32> = (0..1001).map(|i| (i % 4) as f32).collect();
/// assert_eq!(amp_examples::reduction::sum_simple(&view, &data)?, 1500.0);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn sum_simple(view: &AcceleratorView, data: &[f32]) -> Result<f32> {
    let n = length(data, "sum_simple")?;
    let work = Array::from_slice([n], data, view)?;
    let w = work.view();
    let mut remaining = n;
    while remaining > 1 {
        let half = remaining / 2;
        let odd = remaining % 2;
        parallel_for_each!(view, [half], |i: Index<1>| {
            // The element past the halves of an odd count stays in place.
            w[i] += w[[i[0] + half + odd]];
        })?;
        remaining = half + odd;
    }
    w.get([0])
}

/// The sum of `data` in one launch: each tile reduces its share in
/// `tile_static` memory, and its first work item adds the tile's sum to
/// the total with an atomic `f32` addition (the tiles' order, and so the
/// rounding, varies from run to run).
///
/// # Errors
///
/// As [`sum`].
///
/// # Examples
///
/// ```
/// let view = amp_core::Accelerator::cpu().default_view();
/// let data = vec![0.5f32; 10_000];
/// assert_eq!(amp_examples::reduction::sum_atomic(&view, &data)?, 5000.0);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn sum_atomic(view: &AcceleratorView, data: &[f32]) -> Result<f32> {
    let n = length(data, "sum_atomic")?;
    let input = ArrayView::new([n], data)?;
    let mut total = [0.0f32];
    {
        let out = ArrayView::new_mut([1], &mut total)?;
        let items = ((n + UNROLL - 1) / UNROLL).min(PARTIALS * TILE);
        let domain = Extent::new([items]).tile::<TILE>()?.pad()?;
        let stride = domain.extent()[0];
        parallel_for_each!(view, domain, |t: TiledIndex<1>| {
            tile_static! { let part: [f32; TILE]; }
            let l = t.local[0];
            let mut acc = 0.0f32;
            let mut i = t.global[0];
            while i < n {
                acc += input[[i]];
                i += stride;
            }
            part[l] = acc;
            t.barrier.wait_with_tile_static_memory_fence();
            let mut half = TILE / 2;
            while half > 0 {
                if l < half {
                    part[l] += part[l + half];
                }
                t.barrier.wait_with_tile_static_memory_fence();
                half /= 2;
            }
            if l == 0 {
                atomic_fetch_add(&out[[0]], part[0]);
            }
        })?;
    }
    Ok(total[0])
}
