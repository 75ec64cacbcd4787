//! How the CPU accelerator runs a kernel's native form.
//!
//! Work runs on one pool of worker threads (rayon's), sized to the machine
//! and started once per process, so that a launch starts no thread:
//!
//! - a non-tiled kernel's work items are cut into contiguous chunks, a
//!   chunk per task;
//! - a tiled kernel whose barriers the macro compiled away (the *split*
//!   form, see `amp-macros`' `kernel::split`) gets batches of whole tiles:
//!   the body runs once per tile, each region between barriers a loop over
//!   the tile's work items, so a barrier costs nothing at run time;
//! - a tiled kernel the split form does not cover (see the macro's list)
//!   runs as before: the work items of a tile on threads of their own that
//!   meet at a condition-variable barrier ([`run_threaded`]).
//!
//! A failing work item (an out-of-bounds access, a cancellation) stops the
//! launch: chunks not yet started are skipped and the first error is
//! reported.

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use rayon::prelude::*;

use super::plain::{Own, Plan};
use super::{KernelSite, cancel, kernel_error, native};
use crate::{Error, Extent, Index, Result, TiledExtent, TiledIndex};

/// The stack of a pool thread: room for the deepest native kernel (its
/// locals, several copies of them in unoptimised code, are bounded by
/// [`amp_ir::MAX_LOCAL_BYTES`]).
const POOL_STACK: usize = 2 * 1024 * 1024 + 4 * amp_ir::MAX_LOCAL_BYTES as usize;

/// Below this many work items (and this much local memory), a non-tiled
/// launch runs on the calling thread: waking the pool costs more.
const INLINE_ITEMS: u64 = 4096;
const INLINE_LOCAL_BYTES: u64 = 16 * 1024;

/// Tasks per pool thread: enough for uneven chunks to balance.
const TASKS_PER_THREAD: usize = 4;

/// The CPU accelerator's pool of worker threads.
fn pool() -> Result<&'static rayon::ThreadPool> {
    static POOL: OnceLock<std::result::Result<rayon::ThreadPool, String>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("amp-cpu-{i}"))
            .stack_size(POOL_STACK)
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| {
        Error::Runtime(format!(
            "the CPU accelerator cannot start its worker threads: {e}"
        ))
    })
}

/// Runs `task(0..tasks)` on the pool, each with the launch's cancel token;
/// stops at the first failure and returns it.
fn run_tasks(site: &KernelSite, tasks: usize, task: &(dyn Fn(usize) + Sync)) -> Result<()> {
    let token = cancel::current();
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let failed = AtomicBool::new(false);
    let one = |k: usize| {
        if failed.load(Ordering::Relaxed) {
            return;
        }
        let _token = cancel::enter(token.clone());
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| task(k)));
        if let Err(payload) = run {
            failure.lock().get_or_insert(kernel_error(site, &*payload));
            failed.store(true, Ordering::Relaxed);
        }
    };
    pool()?.install(|| (0..tasks).into_par_iter().for_each(one));
    failure.into_inner().map_or(Ok(()), Err)
}

/// How many tasks to cut `items` units of work into.
fn task_count(items: u64) -> usize {
    let threads = rayon::current_num_threads().max(1);
    let threads = pool().map_or(threads, |p| p.current_num_threads().max(1));
    (items.min((threads * TASKS_PER_THREAD) as u64) as usize).max(1)
}

/// Calls `row(first, len)` for each run of work items `range` (in
/// row-major order) along the innermost dimension of `domain`: `first` is
/// the run's first index, the run goes on for `len` items along dimension
/// `N - 1`.
#[inline(always)]
fn for_rows<const N: usize>(
    domain: Extent<N>,
    range: std::ops::Range<u64>,
    mut row: impl FnMut(Index<N>, i32),
) {
    if range.is_empty() || N == 0 {
        return;
    }
    let mut idx = domain.index_of(range.start).expect("in the domain");
    let mut left = range.end - range.start;
    while left > 0 {
        let len = (domain[N - 1] - idx[N - 1]).min(left.min(i32::MAX as u64) as i32);
        row(idx, len);
        left -= len as u64;
        idx[N - 1] = 0;
        for d in (0..N - 1).rev() {
            idx[d] += 1;
            if idx[d] < domain[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Runs `run` over the work items `0..total`: inline when the launch is
/// small, else in contiguous chunks on the pool.
fn run_chunks(
    site: &KernelSite,
    total: u64,
    local_bytes: u64,
    run: &(dyn Fn(std::ops::Range<u64>) + Sync),
) -> Result<()> {
    if total <= INLINE_ITEMS && local_bytes <= INLINE_LOCAL_BYTES {
        return std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(0..total)))
            .map_err(|payload| kernel_error(site, &*payload));
    }
    let tasks = task_count(total);
    let chunk = total.div_ceil(tasks as u64);
    run_tasks(site, tasks, &|k| {
        let start = k as u64 * chunk;
        run(start..(start + chunk).min(total));
    })
}

/// Runs a kernel's native form over every index of `domain`.
pub(crate) fn run_native<const N: usize, C: Sync, F: Fn(&C, Index<N>) + Sync>(
    site: &KernelSite,
    domain: Extent<N>,
    total: u32,
    local_bytes: u64,
    infallible: bool,
    captures: &C,
    body: &F,
) -> Result<()> {
    // Work items `range`, in row-major order. A kernel that cannot fail is
    // not interrupted either: it changes data only by finishing.
    let run = |range: std::ops::Range<u64>| {
        for_rows(domain, range, |mut idx, len| {
            let first = idx[N - 1];
            for i in first..first + len {
                if !infallible {
                    cancel::poll();
                }
                idx[N - 1] = i;
                body(captures, idx);
            }
        })
    };
    run_chunks(site, u64::from(total), local_bytes, &run)
}

/// Runs a kernel's plain form (see [`plain`](super::plain)) over every
/// index of `domain`, if `prepare` obtains its plan; `None` (nothing ran,
/// nothing held) if not.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_plain<const N: usize, C: Sync, P: Sync>(
    site: &KernelSite,
    domain: Extent<N>,
    total: u32,
    local_bytes: u64,
    infallible: bool,
    captures: &C,
    mems: &[Option<(Arc<crate::backend::storage::CpuMem>, bool)>],
    prepare: &dyn Fn(&C, &mut Plan<'_, N>) -> P,
    body: &(impl Fn(&C, &P, &Own<'_, N>) + Sync),
) -> Option<Result<()>> {
    let mut plan = Plan::new(domain, mems);
    let plain = prepare(captures, &mut plan);
    if !plan.finish() {
        plan.release();
        return None;
    }
    let run = |range: std::ops::Range<u64>| {
        for_rows(domain, range, |idx, len| {
            let first = idx[N - 1];
            let mut own = Own::new(idx);
            if infallible {
                for i in first..first + len {
                    own.set_inner(i);
                    body(captures, &plain, &own);
                }
            } else {
                for i in first..first + len {
                    cancel::poll();
                    own.set_inner(i);
                    body(captures, &plain, &own);
                }
            }
        })
    };
    let result = run_chunks(site, u64::from(total), local_bytes, &run);
    drop(plain);
    plan.release();
    Some(result)
}

/// Consecutive tiles of a tiled launch, as the split native form of a
/// tiled kernel receives them.
pub struct TileBatch<const N: usize> {
    domain: TiledExtent<N>,
    tiles: Extent<N>,
    range: std::ops::Range<u64>,
}

impl<const N: usize> TileBatch<N> {
    /// Work items per tile.
    pub fn members(&self) -> usize {
        self.domain.tile_size() as usize
    }

    /// The batch's tiles, in row-major order.
    pub fn tiles(&self) -> impl Iterator<Item = TileAt<N>> + '_ {
        let extent = self.domain.tile_extent();
        self.range.clone().map(move |t| {
            let tile = self.tiles.index_of(t).expect("within the tiles");
            let mut origin = tile;
            for d in 0..N {
                origin[d] = tile[d] * extent[d];
            }
            TileAt {
                tile,
                origin,
                extent,
            }
        })
    }
}

/// One tile of a split launch.
#[derive(Clone, Copy)]
pub struct TileAt<const N: usize> {
    tile: Index<N>,
    origin: Index<N>,
    extent: Extent<N>,
}

impl<const N: usize> TileAt<N> {
    /// The tile's extent along dimension `d`.
    #[inline(always)]
    pub fn extent(&self, d: usize) -> i32 {
        self.extent[d]
    }

    /// The work item at `local` in the tile.
    #[inline(always)]
    pub fn item(&self, local: [i32; N]) -> WorkItem<N> {
        let local = Index::new(local);
        WorkItem {
            global: self.origin + local,
            local,
            tile: self.tile,
            tile_origin: self.origin,
            tile_extent: self.extent,
        }
    }
}

/// A work item of the split native form: the fields of its `TiledIndex`
/// (the barrier is compiled away).
#[derive(Clone, Copy)]
pub struct WorkItem<const N: usize> {
    /// `TiledIndex::global`.
    pub global: Index<N>,
    /// `TiledIndex::local`.
    pub local: Index<N>,
    /// `TiledIndex::tile`.
    pub tile: Index<N>,
    /// `TiledIndex::tile_origin`.
    pub tile_origin: Index<N>,
    /// `TiledIndex::tile_extent`.
    pub tile_extent: Extent<N>,
}

/// The values of one local of the split form, one per work item of a tile:
/// a local that lives across a barrier.
pub struct Slots<T> {
    values: Vec<T>,
    members: usize,
}

impl<T: Copy> Slots<T> {
    /// Room for `members` work items (allocated at the first write).
    pub fn new(members: usize) -> Self {
        Slots {
            values: Vec::new(),
            members,
        }
    }

    /// Work item `wi`'s value.
    #[inline(always)]
    pub fn get(&self, wi: usize) -> T {
        self.values[wi]
    }

    /// Sets work item `wi`'s value.
    #[inline(always)]
    pub fn put(&mut self, wi: usize, value: T) {
        if self.values.is_empty() {
            self.values = vec![value; self.members];
        }
        self.values[wi] = value;
    }
}

/// A `tile_static` array of the split form: plain memory, since one thread
/// runs every work item of a tile.
pub struct LocalTile<E: crate::Element, const D: usize> {
    cells: Box<[std::cell::Cell<E>]>,
    dims: [usize; D],
}

impl<E: crate::Element, const D: usize> LocalTile<E, D> {
    /// A zeroed array of `dims` (most significant first).
    pub fn new(dims: [usize; D]) -> Self {
        LocalTile {
            cells: vec![std::cell::Cell::new(E::zeroed()); dims.iter().product()]
                .into_boxed_slice(),
            dims,
        }
    }

    #[inline(always)]
    #[track_caller]
    fn at(&self, idx: Index<D>) -> usize {
        let mut linear = 0usize;
        for d in 0..D {
            if idx[d] as u32 as usize >= self.dims[d] {
                native::out_of_bounds(
                    "tile_static index",
                    idx,
                    "dimensions",
                    self.dims,
                    std::panic::Location::caller(),
                );
            }
            linear = linear * self.dims[d] + idx[d] as usize;
        }
        linear
    }

    /// Reads the element at `idx`.
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, idx: impl native::IntoIndex<D>) -> E {
        self.cells[self.at(idx.into_index())].get()
    }
}

#[diagnostic::do_not_recommend]
impl<E: crate::Element, const D: usize> native::Store<E, D> for LocalTile<E, D> {
    #[inline(always)]
    #[track_caller]
    fn store(&self, idx: impl native::IntoIndex<D>, value: E) {
        self.cells[self.at(idx.into_index())].set(value);
    }
}

#[diagnostic::do_not_recommend]
impl<E: crate::Element, const D: usize> native::AtomicAccess<E, D> for LocalTile<E, D> {
    #[inline(always)]
    #[track_caller]
    fn atomic(&self, idx: impl native::IntoIndex<D>) -> crate::atomic::AtomicRef<'_, E> {
        crate::atomic::AtomicRef::local(&self.cells[self.at(idx.into_index())])
    }
}

/// Runs the split native form of a tiled kernel: batches of consecutive
/// tiles on the pool.
pub(crate) fn run_split<const N: usize, C: Sync, F: Fn(&C, &TileBatch<N>) + Sync>(
    site: &KernelSite,
    domain: TiledExtent<N>,
    captures: &C,
    body: &F,
) -> Result<()> {
    let tiles = domain.tile_count();
    let total = tiles.size();
    let tasks = task_count(total);
    let chunk = total.div_ceil(tasks as u64);
    run_tasks(site, tasks, &|k| {
        let start = k as u64 * chunk;
        let batch = TileBatch {
            domain,
            tiles,
            range: start..(start + chunk).min(total),
        };
        body(captures, &batch);
    })
}

/// The most threads the CPU accelerator starts for one threaded tiled
/// launch (at least one tile's worth).
const MAX_TILE_THREADS: usize = 4096;

/// Runs a tiled kernel's threaded native form: tiles in parallel (one group
/// of threads per core), the work items of a tile on threads of their own
/// that meet at the tile's barriers and share its `tile_static` memory.
pub(crate) fn run_threaded<
    const N: usize,
    C: Sync,
    F: Fn(&C, &TiledIndex<N>, &native::TileMemory) + Sync,
>(
    site: &KernelSite,
    domain: TiledExtent<N>,
    tile_static_bytes: u32,
    stack: usize,
    captures: &C,
    body: &F,
) -> Result<()> {
    let tile = domain.tile_extent();
    let tiles = domain.tile_count();
    let total_tiles = tiles.size() as usize;
    let members = domain.tile_size() as usize;
    // One group of threads per core, but no more than MAX_TILE_THREADS
    // threads in all (a machine of many cores running tiles of 1024 work
    // items would otherwise start tens of thousands of threads).
    let groups = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_TILE_THREADS / members)
        .min(total_tiles)
        .max(1);
    // The command's cancel token, for every work-item thread.
    let token = cancel::current();
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for g in 0..groups {
            let gate = Arc::new(native::TileGate::new(members));
            let memory = Arc::new(native::TileMemory::new(tile_static_bytes));
            for k in 0..members {
                let (gate, group_gate, memory, failure, token) = (
                    Arc::clone(&gate),
                    Arc::clone(&gate),
                    Arc::clone(&memory),
                    &failure,
                    token.clone(),
                );
                let local = tile.index_of(k as u64).expect("within the tile");
                let spawned =
                    std::thread::Builder::new()
                        .stack_size(stack)
                        .spawn_scoped(s, move || {
                            let _token = cancel::enter(token);
                            let sync: Arc<dyn crate::TileSync> = gate.clone();
                            let mut t = g;
                            while t < total_tiles && !gate.aborted() {
                                let tile_index =
                                    tiles.index_of(t as u64).expect("within the tiles");
                                let mut global = local;
                                for d in 0..N {
                                    global[d] = tile_index[d] * tile[d] + local[d];
                                }
                                let tiled = TiledIndex::with_barrier(
                                    global,
                                    &domain,
                                    crate::TileBarrier::from_sync(Arc::clone(&sync)),
                                );
                                let run =
                                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                        cancel::poll();
                                        body(captures, &tiled, &memory)
                                    }));
                                if let Err(payload) = run {
                                    failure.lock().get_or_insert(kernel_error(site, &*payload));
                                    gate.abort();
                                    return;
                                }
                                // The whole tile finishes before its memory is reused.
                                sync.wait();
                                t += groups;
                            }
                        });
                if let Err(e) = spawned {
                    failure.lock().get_or_insert(Error::Runtime(format!(
                        "kernel failed on the CPU accelerator: cannot start a work-item thread: {e}"
                    )));
                    group_gate.abort();
                }
            }
        }
    });
    failure.into_inner().map_or(Ok(()), Err)
}
