//! A 256-bin histogram of bytes, in the shape of C++ AMP's Histogram
//! sample.
//!
//! The original counts with atomics: a simple version where every work
//! item increments its value's bin in global memory, and a tiled one where
//! each tile counts into its own `tile_static` bins (cheap atomics on
//! on-chip memory), then adds its bins to the global ones once. The port
//! keeps both, and counts bytes as the original does: the data is a `&[u8]`
//! (packed four to a 32-bit word in accelerator memory; each work item
//! reads its own byte).

use amp_core::Result;
use amp_core::prelude::*;

/// The number of bins.
pub const BINS: i32 = 256;
/// Work items per tile of the tiled version.
pub const TILE: i32 = 256;
/// Values each work item of the tiled version counts.
pub const PER_ITEM: i32 = 16;

fn check(data: &[u8]) -> Result<i32> {
    let n = i32::try_from(data.len())
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "histogram needs 1 to {} values, not {}",
                i32::MAX,
                data.len()
            ))
        })?;
    Ok(n)
}

/// The histogram of the bytes `data` with one global atomic increment per
/// byte.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for an empty slice or one longer than
/// `i32::MAX`; any error of the launch.
///
/// # Examples
///
/// ```
/// let view = amp_core::Accelerator::cpu().default_view();
/// let h = amp_examples::histogram::histogram_simple(&view, &[1, 1, 255, 0])?;
/// assert_eq!((h[0], h[1], h[255]), (1, 2, 1));
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn histogram_simple(view: &AcceleratorView, data: &[u8]) -> Result<Vec<u32>> {
    let n = check(data)?;
    let mut bins = vec![0u32; BINS as usize];
    {
        let d = ArrayView::new([n], data)?;
        let h = ArrayView::new_mut([BINS], &mut bins)?;
        parallel_for_each!(view, d.extent(), |i: Index<1>| {
            atomic_fetch_inc(&h[[d[i] as i32]]);
        })?;
    }
    Ok(bins)
}

/// The histogram of the bytes `data` with per-tile `tile_static` bins:
/// each work item counts [`PER_ITEM`] bytes into its tile's bins, and each
/// tile adds its bins to the global ones.
///
/// # Errors
///
/// As [`histogram_simple`].
///
/// # Examples
///
/// ```
/// let view = amp_core::Accelerator::cpu().default_view();
/// let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
/// let h = amp_examples::histogram::histogram_tiled(&view, &data)?;
/// assert_eq!(h, amp_examples::histogram::histogram_cpu(&data));
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn histogram_tiled(view: &AcceleratorView, data: &[u8]) -> Result<Vec<u32>> {
    let n = check(data)?;
    let mut bins = vec![0u32; BINS as usize];
    {
        let d = ArrayView::new([n], data)?;
        let h = ArrayView::new_mut([BINS], &mut bins)?;
        let items = (n + PER_ITEM - 1) / PER_ITEM;
        let domain = Extent::new([items]).tile::<TILE>()?.pad()?;
        parallel_for_each!(view, domain, |t: TiledIndex<1>| {
            tile_static! { let local: [u32; BINS]; }
            let l = t.local[0];
            local[l] = 0;
            t.barrier.wait_with_tile_static_memory_fence();
            // Neighbouring work items read neighbouring values.
            let base = t.tile[0] * TILE * PER_ITEM + l;
            for k in 0..PER_ITEM {
                let i = base + k * TILE;
                if i < n {
                    atomic_fetch_inc(&local[d[[i]] as i32]);
                }
            }
            t.barrier.wait_with_tile_static_memory_fence();
            let count = local[l];
            if count > 0 {
                atomic_fetch_add(&h[[l]], count);
            }
        })?;
    }
    Ok(bins)
}

/// The reference.
pub fn histogram_cpu(data: &[u8]) -> Vec<u32> {
    let mut bins = vec![0u32; BINS as usize];
    for &v in data {
        bins[usize::from(v)] += 1;
    }
    bins
}
