//! Sorting by a bitonic network, in the shape of C++ AMP's BitonicSort
//! sample.
//!
//! A bitonic sort of `2^m` keys runs, for every block size `k = 2, 4, ..,
//! 2^m` and every distance `j = k / 2, k / 4, .., 1`, one step in which
//! every key is compared with the key `j` places away and the pair is put
//! in the block's order (ascending where bit `k` of the index is 0). The
//! original launches a kernel per step while `j` is large, and does the
//! steps with small `j` of one `k` in a single tiled launch, on a tile's
//! keys in `tile_static` memory with a barrier between steps; its
//! compare-and-exchange is a `restrict(amp)` function taking the
//! `array_view`. The port does the same ([`compare_exchange`] takes the view
//! by reference).

use amp_core::Result;
use amp_core::prelude::*;

/// Keys per tile of the tiled steps.
pub const TILE: i32 = 512;

/// One compare-and-exchange of a step: puts keys `i` and `i ^ j` of
/// `data` in the order of their block of `k` keys.
#[kernel]
pub fn compare_exchange(data: &ArrayView<'_, u32, 1>, i: i32, j: i32, k: i32) {
    let p = i ^ j;
    if p > i {
        let (a, b) = (data[[i]], data[[p]]);
        let ascending = (i & k) == 0;
        if (a > b) == ascending {
            data[[i]] = b;
            data[[p]] = a;
        }
    }
}

/// Sorts `keys` (a power of two of them) ascending on `view`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the length is not a power of two (or is
/// above 2^30); any error of the launches.
///
/// # Examples
///
/// ```
/// let view = amp_core::Accelerator::cpu().default_view();
/// let mut keys = vec![5u32, 1, 4, 2, 8, 7, 3, 6];
/// amp_examples::bitonic_sort::sort(&view, &mut keys)?;
/// assert_eq!(keys, [1, 2, 3, 4, 5, 6, 7, 8]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn sort(view: &AcceleratorView, keys: &mut [u32]) -> Result<()> {
    if !keys.len().is_power_of_two() || keys.len() > 1 << 30 {
        return Err(Error::InvalidArgument(format!(
            "bitonic_sort needs a power of two of keys up to 2^30, not {}",
            keys.len()
        )));
    }
    let n = keys.len() as i32;
    let data = ArrayView::from_slice_mut(keys)?;
    let mut k = 2;
    while k <= n {
        let mut j = k / 2;
        // Long distances: a launch per step.
        while j >= TILE.min(n) && j > 0 {
            parallel_for_each!(view, data.extent(), |i: Index<1>| {
                compare_exchange(&data, i[0], j, k);
            })?;
            j /= 2;
        }
        // The rest of this block size's steps, a tile at a time.
        if j > 0 {
            let ts = TILE.min(n);
            if ts == TILE {
                let domain = data.extent().tile::<TILE>()?;
                parallel_for_each!(view, domain, |t: TiledIndex<1>| {
                    tile_static! { let s: [u32; TILE]; }
                    let l = t.local[0];
                    let g = t.global[0];
                    s[l] = data[t.global];
                    t.barrier.wait_with_tile_static_memory_fence();
                    let mut d = j;
                    while d > 0 {
                        let p = l ^ d;
                        if p > l {
                            let (a, b) = (s[l], s[p]);
                            if (a > b) == ((g & k) == 0) {
                                s[l] = b;
                                s[p] = a;
                            }
                        }
                        t.barrier.wait_with_tile_static_memory_fence();
                        d /= 2;
                    }
                    data[t.global] = s[l];
                })?;
            } else {
                // Fewer keys than a tile: the global steps.
                while j > 0 {
                    parallel_for_each!(view, data.extent(), |i: Index<1>| {
                        compare_exchange(&data, i[0], j, k);
                    })?;
                    j /= 2;
                }
            }
        }
        k *= 2;
    }
    data.synchronize()
}
