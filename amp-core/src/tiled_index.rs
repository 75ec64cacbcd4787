//! Work-item coordinates in a tiled launch: [`TiledIndex<N>`](crate::TiledIndex)
//! and the tile barrier [`TileBarrier`].
//!
//! A kernel launched over a [`TiledExtent<N>`](crate::TiledExtent) receives a
//! [`TiledIndex<N>`](crate::TiledIndex) per work item: its global index, its
//! index inside its tile, the index of its tile, the global index of the
//! tile's first work item, the tile shape, and a [`TileBarrier`] that
//! synchronizes the work items of the tile.
//!
//! For every work item, `tile * tile_extent + local == global` (componentwise)
//! and `0 <= local < tile_extent`.

use core::fmt;
use std::sync::Arc;

use crate::{Extent, Index, TiledExtent};

/// The synchronization primitive behind a [`TileBarrier`].
///
/// Implemented by the runtime's CPU executor; not meant for user code.
/// `wait` must block until every work item of the tile has called it, then
/// release them all, and must be reusable for the next phase.
#[doc(hidden)]
pub trait TileSync: Send + Sync {
    /// Blocks until every work item of the tile has arrived at the barrier.
    fn wait(&self);

    /// The tile's memory for the `tile_static` declaration `id` of the
    /// `#[kernel]` function instance `function`, of `bytes` bytes: the same
    /// for every work item of the tile. `None` where the runtime keeps none
    /// (each call then gets memory of its own).
    fn function_tile_memory(
        &self,
        function: &'static str,
        id: u32,
        bytes: usize,
    ) -> Option<Arc<crate::kernel::native::TileMemory>> {
        let _ = (function, id, bytes);
        None
    }
}

/// Synchronizes the work items of one tile.
///
/// A barrier is used only inside tiled kernels, as a statement of its own;
/// each form blocks the calling work item until every work item of its tile
/// has reached the same barrier, so that writes made before it (to
/// `tile_static` or global memory) are visible to the whole tile after it.
/// Every work item of a tile must reach every barrier: a barrier inside
/// control flow that not all of the tile takes deadlocks (C++ AMP calls this
/// undefined behavior; the kernel compiler refuses barriers under
/// conditions that vary within a tile).
///
/// | in a kernel | WGSL | C++ AMP `tile_barrier::` |
/// |---|---|---|
/// | `t.barrier.wait();` | `storageBarrier(); workgroupBarrier();` | `wait()` |
/// | `t.barrier.wait_with_all_memory_fence();` | `storageBarrier(); workgroupBarrier();` | `wait_with_all_memory_fence()` |
/// | `t.barrier.wait_with_global_memory_fence();` | `storageBarrier();` | `wait_with_global_memory_fence()` |
/// | `t.barrier.wait_with_tile_static_memory_fence();` | `workgroupBarrier();` | `wait_with_tile_static_memory_fence()` |
///
/// (Every WGSL barrier also synchronizes execution.) On the CPU accelerator
/// barriers are compiled away, or, in the thread-per-work-item form, wait on
/// the runtime's tile synchronization, which orders all memory.
///
/// As in C++ AMP ("barriers only in `restrict(amp)` code"), host code cannot
/// wait on a barrier: the `wait` forms exist only in kernel syntax, and
/// calling one outside a kernel is a compile error.
///
/// Corresponds to C++ AMP `tile_barrier`.
///
/// # Examples
///
/// ```
/// use amp_core::prelude::*;
///
/// let data: Vec<i32> = (0..64).collect();
/// let mut reversed = vec![0; 64];
/// let input = ArrayView::new([64], &data)?;
/// let out = ArrayView::new_mut([64], &mut reversed)?;
/// parallel_for_each!(Extent::new([64]).tile::<16>()?, |t: TiledIndex<1>| {
///     tile_static! { let s: [i32; 16]; }
///     s[t.local[0]] = input[t.global];
///     t.barrier.wait();                      // every write to `s` is done
///     out[t.global] = s[15 - t.local[0]];
/// })?;
/// assert_eq!(out.get([0])?, 15);
/// # Ok::<(), amp_core::Error>(())
/// ```
///
/// ```compile_fail
/// // Host code cannot wait on a barrier.
/// let tiled = amp_core::Extent::new([4]).tile::<4>().unwrap();
/// let t_idx = amp_core::TiledIndex::new(amp_core::Index::new([1]), &tiled);
/// t_idx.barrier.wait();
/// ```
#[derive(Clone)]
pub struct TileBarrier {
    sync: Option<Arc<dyn TileSync>>,
}

impl TileBarrier {
    /// Returns a barrier for a tile of a single work item (a
    /// [`TiledIndex`] built outside a launch has one): waiting on it in a
    /// kernel's native form returns at once.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::TileBarrier;
    ///
    /// let barrier = TileBarrier::single();
    /// assert_eq!(format!("{barrier:?}"), "TileBarrier { shared: false }");
    /// ```
    #[inline]
    #[must_use]
    pub const fn single() -> Self {
        Self { sync: None }
    }

    /// Returns a barrier that waits on `sync`, shared by the work items of a
    /// tile. Used by the runtime.
    #[doc(hidden)]
    #[inline]
    #[must_use]
    pub fn from_sync(sync: Arc<dyn TileSync>) -> Self {
        Self { sync: Some(sync) }
    }

    #[inline]
    fn arrive(&self) {
        if let Some(sync) = &self.sync {
            sync.wait();
        }
    }

    /// The barrier of kernel code (the native form of a tiled kernel
    /// calls this for each `t.barrier.wait*()` statement); not for host
    /// code, which cannot wait on barriers.
    #[doc(hidden)]
    #[inline]
    pub fn __amp_kernel_barrier(&self) {
        self.arrive();
    }

    /// The memory of a `tile_static` declaration inside a `#[kernel]`
    /// function (the native form of the function calls this): shared by
    /// the work items of the tile. Not for host code.
    #[doc(hidden)]
    pub fn __amp_function_tile_memory(
        &self,
        function: &'static str,
        id: u32,
        bytes: usize,
    ) -> Arc<crate::kernel::native::TileMemory> {
        self.sync
            .as_ref()
            .and_then(|s| s.function_tile_memory(function, id, bytes))
            .unwrap_or_else(|| Arc::new(crate::kernel::native::TileMemory::new(bytes as u32)))
    }
}

impl Default for TileBarrier {
    /// The single-participant barrier of [`TileBarrier::single`].
    #[inline]
    fn default() -> Self {
        Self::single()
    }
}

impl fmt::Debug for TileBarrier {
    /// Formats as `TileBarrier { shared: <bool> }`: `true` for a barrier
    /// shared by a tile of the runtime, `false` for a single-participant one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TileBarrier")
            .field("shared", &self.sync.is_some())
            .finish()
    }
}

/// The coordinates of one work item in a tiled launch, and its tile's
/// barrier.
///
/// The fields satisfy, componentwise, `local == global mod tile_extent`
/// (in `0..tile_extent`), `tile == global / tile_extent` (rounded down),
/// `tile_origin == tile * tile_extent` and
/// `tile_origin + local == global`.
///
/// Not `Copy`, because it carries the [`TileBarrier`]; the index fields are
/// `Copy`.
///
/// Corresponds to C++ AMP `tiled_index<D0, D1, D2>`.
///
/// # Examples
///
/// ```
/// use amp_core::{Extent, Index, TiledIndex};
///
/// let tiled = Extent::new([8, 6]).tile::<2, 2>()?;
/// let t_idx = TiledIndex::new(Index::new([6, 3]), &tiled);
/// assert_eq!(t_idx.local, Index::new([0, 1]));
/// assert_eq!(t_idx.tile, Index::new([3, 1]));
/// assert_eq!(t_idx.tile_origin, Index::new([6, 2]));
/// assert_eq!(t_idx.tile_extent, Extent::new([2, 2]));
/// # Ok::<(), amp_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TiledIndex<const N: usize> {
    /// The work item's index in the whole compute domain.
    ///
    /// Corresponds to C++ AMP `tiled_index::global`.
    pub global: Index<N>,
    /// The work item's index inside its tile, in `0..tile_extent`.
    ///
    /// Corresponds to C++ AMP `tiled_index::local`.
    pub local: Index<N>,
    /// The index of the work item's tile (`global / tile_extent`).
    ///
    /// Corresponds to C++ AMP `tiled_index::tile`.
    pub tile: Index<N>,
    /// The global index of the first work item of the tile
    /// (`tile * tile_extent`).
    ///
    /// Corresponds to C++ AMP `tiled_index::tile_origin`.
    pub tile_origin: Index<N>,
    /// The shape of a tile.
    ///
    /// Corresponds to C++ AMP `tiled_index::tile_extent`.
    pub tile_extent: Extent<N>,
    /// The barrier that synchronizes the work items of the tile.
    ///
    /// Corresponds to C++ AMP `tiled_index::barrier`.
    pub barrier: TileBarrier,
}

impl<const N: usize> TiledIndex<N> {
    /// Computes the tiled coordinates of the work item at `global` in
    /// `tiled`, with a single-participant barrier
    /// ([`TileBarrier::single`]).
    ///
    /// `local` and `tile` use floored division, so the relations of the type
    /// hold for any `global` (the runtime only passes indices of the
    /// domain).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Extent, Index, TiledIndex};
    ///
    /// let tiled = Extent::new([25, 51, 85]).tile::<4, 8, 16>()?;
    /// let t_idx = TiledIndex::new(Index::new([9, 17, 40]), &tiled);
    /// assert_eq!(t_idx.global, Index::new([9, 17, 40]));
    /// assert_eq!(t_idx.local, Index::new([1, 1, 8]));
    /// assert_eq!(t_idx.tile, Index::new([2, 2, 2]));
    /// assert_eq!(t_idx.tile_origin, Index::new([8, 16, 32]));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    #[must_use]
    pub fn new(global: Index<N>, tiled: &TiledExtent<N>) -> Self {
        Self::with_barrier(global, tiled, TileBarrier::single())
    }

    /// Like [`TiledIndex::new`], with the tile's shared `barrier`. Used by the
    /// runtime.
    #[doc(hidden)]
    #[must_use]
    pub fn with_barrier(global: Index<N>, tiled: &TiledExtent<N>, barrier: TileBarrier) -> Self {
        let tile_extent = tiled.tile_extent();
        let (g, t) = (global.to_array(), tile_extent.to_array());
        // Tile dimensions are positive, so euclidean division is floored
        // division and cannot overflow.
        let tile: [i32; N] = core::array::from_fn(|i| g[i].div_euclid(t[i]));
        Self {
            global,
            local: Index::new(core::array::from_fn(|i| g[i].rem_euclid(t[i]))),
            tile: Index::new(tile),
            tile_origin: Index::new(core::array::from_fn(|i| tile[i].wrapping_mul(t[i]))),
            tile_extent,
            barrier,
        }
    }
}

impl<const N: usize> From<TiledIndex<N>> for Index<N> {
    /// Returns the global index, like C++ AMP's conversion of a
    /// `tiled_index` to `index<N>`.
    #[inline]
    fn from(t_idx: TiledIndex<N>) -> Self {
        t_idx.global
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Barrier, Mutex};

    fn check_all_work_items<const N: usize>(tiled: TiledExtent<N>) {
        let padded = tiled.pad().expect("pads");
        let t = tiled.tile_extent();
        let mut seen = 0u64;
        for global in padded.extent().indices() {
            let ti = TiledIndex::new(global, &tiled);
            assert_eq!(ti.global, global);
            assert_eq!(ti.tile_extent, t);
            for i in 0..N {
                assert_eq!(ti.local[i], global[i] % t[i], "{global} in {tiled}");
                assert_eq!(ti.tile[i], global[i] / t[i], "{global} in {tiled}");
                assert!(0 <= ti.local[i] && ti.local[i] < t[i]);
            }
            assert!(t.contains(&ti.local));
            assert!(tiled.tile_count().contains(&ti.tile));
            assert_eq!(
                ti.tile_origin,
                Index::new(core::array::from_fn(|i| ti.tile[i] * t[i]))
            );
            assert_eq!(
                Index::new(core::array::from_fn(|i| ti.tile[i] * t[i] + ti.local[i])),
                global
            );
            assert_eq!(ti.tile_origin + ti.local, global);
            assert_eq!(Index::from(ti), global);
            seen += 1;
        }
        assert_eq!(seen, padded.extent().size());
    }

    #[test]
    fn fields_over_every_global_index() {
        check_all_work_items(Extent::new([25]).tile::<4>().unwrap());
        check_all_work_items(Extent::new([8, 6]).tile::<2, 2>().unwrap());
        check_all_work_items(Extent::new([25, 51]).tile::<4, 8>().unwrap());
        check_all_work_items(Extent::new([7, 9, 11]).tile::<2, 3, 4>().unwrap());
        check_all_work_items(Extent::new([5, 5, 5]).tile::<1, 1, 1>().unwrap());
        check_all_work_items(
            TiledExtent::new(Extent::new([3, 1024]), Extent::new([1, 1024])).unwrap(),
        );
    }

    #[test]
    fn cpp_amp_conformance_case() {
        let tiled = Extent::new([8, 6]).tile::<2, 2>().unwrap();
        let ti = TiledIndex::new(Index::new([6, 3]), &tiled);
        assert_eq!(ti.global, Index::new([6, 3]));
        assert_eq!(ti.local, Index::new([0, 1]));
        assert_eq!(ti.tile, Index::new([3, 1]));
        assert_eq!(ti.tile_origin, Index::new([6, 2]));
        assert_eq!(ti.tile_extent, Extent::new([2, 2]));
    }

    #[test]
    fn floored_for_negative_globals() {
        let tiled = Extent::new([8]).tile::<4>().unwrap();
        let ti = TiledIndex::new(Index::new([-1]), &tiled);
        assert_eq!(
            (ti.local, ti.tile, ti.tile_origin),
            (Index::new([3]), Index::new([-1]), Index::new([-4]))
        );
        assert_eq!(ti.tile_origin + ti.local, ti.global);
    }

    struct CountingSync(AtomicUsize);

    impl TileSync for CountingSync {
        fn wait(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn every_wait_variant_reaches_the_sync() {
        let sync = Arc::new(CountingSync(AtomicUsize::new(0)));
        let barrier = TileBarrier::from_sync(sync.clone());
        let tiled = Extent::new([4, 4]).tile::<2, 2>().unwrap();
        let ti = TiledIndex::with_barrier(Index::new([3, 2]), &tiled, barrier);
        assert_eq!(ti.local, Index::new([1, 0]));
        ti.barrier.__amp_kernel_barrier();
        ti.barrier.__amp_kernel_barrier();
        ti.barrier.__amp_kernel_barrier();
        ti.barrier.__amp_kernel_barrier();
        assert_eq!(sync.0.load(Ordering::SeqCst), 4);
        let clone = ti.clone();
        clone.barrier.__amp_kernel_barrier();
        assert_eq!(sync.0.load(Ordering::SeqCst), 5);
        assert_eq!(
            format!("{:?}", clone.barrier),
            "TileBarrier { shared: true }"
        );
    }

    #[test]
    fn single_barrier_is_a_no_op() {
        let single = TileBarrier::single();
        single.__amp_kernel_barrier();
        single.__amp_kernel_barrier();
        single.__amp_kernel_barrier();
        single.__amp_kernel_barrier();
        assert_eq!(format!("{single:?}"), "TileBarrier { shared: false }");
        assert_eq!(
            format!("{:?}", TileBarrier::default()),
            "TileBarrier { shared: false }"
        );
        let tiled = Extent::new([4]).tile::<2>().unwrap();
        let ti = TiledIndex::new(Index::new([3]), &tiled);
        assert_eq!(format!("{:?}", ti.barrier), "TileBarrier { shared: false }");
        assert!(format!("{ti:?}").contains("tile_origin: Index([2])"));
    }

    struct ThreadSync(Barrier);

    impl TileSync for ThreadSync {
        fn wait(&self) {
            self.0.wait();
        }
    }

    /// Four threads as one tile: each writes its slot, waits, then reads the
    /// slot of its neighbour, which must already be written.
    #[test]
    fn shared_barrier_blocks_until_the_whole_tile_arrives() {
        const TILE: i32 = 4;
        let tiled = Extent::new([TILE]).tile::<TILE>().unwrap();
        let sync: Arc<dyn TileSync> = Arc::new(ThreadSync(Barrier::new(TILE as usize)));
        let slots = Arc::new(Mutex::new(vec![0; TILE as usize]));
        let handles: Vec<_> = (0..TILE)
            .map(|g| {
                let ti = TiledIndex::with_barrier(
                    Index::new([g]),
                    &tiled,
                    TileBarrier::from_sync(sync.clone()),
                );
                let slots = slots.clone();
                std::thread::spawn(move || {
                    let me = ti.local[0] as usize;
                    std::thread::sleep(std::time::Duration::from_millis(10 * (3 - me as u64)));
                    slots.lock().unwrap()[me] = 100 + me;
                    ti.barrier.__amp_kernel_barrier();
                    let neighbour = (me + 1) % TILE as usize;
                    let seen = slots.lock().unwrap()[neighbour];
                    ti.barrier.__amp_kernel_barrier();
                    seen
                })
            })
            .collect();
        let seen: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(seen, vec![101, 102, 103, 100]);
    }
}
