//! Prefix sums, in the shape of the C++ AMP scan samples.
//!
//! A tiled scan: each tile scans its keys in `tile_static` memory (a step
//! per power of two, with barriers), the tiles' totals are scanned the same
//! way (recursively, while there is more than one tile), and each tile
//! adds the total of the tiles before it. Sums wrap (`u32`), so every
//! accelerator's result is exact.

use amp_core::Result;
use amp_core::prelude::*;

/// Keys per tile.
pub const TILE: i32 = 256;

/// Scans `data` in place (inclusive) on `view`.
fn scan_on(view: &AcceleratorView, data: &ArrayView<'_, u32, 1>) -> Result<()> {
    let n = data.extent()[0];
    let tiles = (n + TILE - 1) / TILE;
    let totals = Array::<u32, 1>::new([tiles], view)?;
    let tv = totals.view();
    let domain = Extent::new([tiles * TILE]).tile::<TILE>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<1>| {
        tile_static! { let s: [u32; TILE]; }
        let l = t.local[0];
        let g = t.global[0];
        s[l] = if g < n { data[[g]] } else { 0 };
        t.barrier.wait_with_tile_static_memory_fence();
        let mut off = 1;
        while off < TILE {
            let mut v = s[l];
            if l >= off {
                v = v.wrapping_add(s[l - off]);
            }
            t.barrier.wait_with_tile_static_memory_fence();
            s[l] = v;
            t.barrier.wait_with_tile_static_memory_fence();
            off *= 2;
        }
        if g < n {
            data[[g]] = s[l];
        }
        if l == TILE - 1 {
            tv[t.tile] = s[l];
        }
    })?;
    if tiles > 1 {
        scan_on(view, &tv)?;
        parallel_for_each!(view, data.extent(), |i: Index<1>| {
            let tile = i[0] / TILE;
            if tile > 0 {
                data[i] = data[i].wrapping_add(tv[[tile - 1]]);
            }
        })?;
    }
    Ok(())
}

/// The inclusive prefix sums of `keys` (`out[i] = keys[0] + .. + keys[i]`,
/// wrapping) on `view`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for an empty slice or one longer than
/// `i32::MAX`; any error of the launches.
///
/// # Examples
///
/// ```
/// let view = amp_core::Accelerator::cpu().default_view();
/// assert_eq!(amp_examples::scan::inclusive(&view, &[1, 2, 3, 4])?, [1, 3, 6, 10]);
/// assert_eq!(amp_examples::scan::exclusive(&view, &[1, 2, 3, 4])?, [0, 1, 3, 6]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn inclusive(view: &AcceleratorView, keys: &[u32]) -> Result<Vec<u32>> {
    if keys.is_empty() || i32::try_from(keys.len()).is_err() {
        return Err(Error::InvalidArgument(format!(
            "scan needs 1 to {} keys, not {}",
            i32::MAX,
            keys.len()
        )));
    }
    let mut out = keys.to_vec();
    {
        let data = ArrayView::from_slice_mut(&mut out)?;
        scan_on(view, &data)?;
        data.synchronize()?;
    }
    Ok(out)
}

/// The exclusive prefix sums of `keys` (`out[i] = keys[0] + .. +
/// keys[i - 1]`, `out[0] = 0`): the inclusive ones less each key.
///
/// # Errors
///
/// As [`inclusive`].
pub fn exclusive(view: &AcceleratorView, keys: &[u32]) -> Result<Vec<u32>> {
    let mut out = inclusive(view, keys)?;
    for (o, &k) in out.iter_mut().zip(keys) {
        *o = o.wrapping_sub(k);
    }
    Ok(out)
}

/// The reference: inclusive sums.
pub fn inclusive_cpu(keys: &[u32]) -> Vec<u32> {
    keys.iter()
        .scan(0u32, |acc, &k| {
            *acc = acc.wrapping_add(k);
            Some(*acc)
        })
        .collect()
}
