//! The coherence record of one data source: where its bytes live (the host
//! and a copy per accelerator), which byte ranges each location holds valid,
//! and the transfers that make a range valid where a reader needs it.
//!
//! Every `ArrayView` and section over one source shares one [`Storage`];
//! `Array`s are sources too. All state is behind one lock per source.
//!
//! Ordering: every device copy remembers the views that recorded commands
//! touching it (`users`; the latest is `last_user`). Any other access (host
//! reads and writes, uploads, another view's commands) first flushes those
//! views, so submission order (one wgpu queue per device) or host execution
//! order (the CPU accelerator) is program order.
//!
//! Soundness of host memory: a borrowed host slice is only read or written
//! while the lock is held, by methods of live views (which keep the borrow
//! alive); device commands never point into host memory (uploads copy the
//! bytes when recorded). When the last view drops, pending data is written
//! back and the pointer forgotten.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

use parking_lot::Mutex;

use crate::backend::buffer_pool::BufferPool;
use crate::backend::device::DeviceContext;
use crate::backend::host_copy::{copy_bytes, copy_bytes_twice};
use crate::range_set::RangeSet;
use crate::{Accelerator, AcceleratorView, CompletionFuture, Error, Result};

/// Where the data of a source came from, which decides its home location.
#[derive(Clone)]
pub(crate) enum Origin {
    /// A host slice the views borrow.
    Host,
    /// No data source (`ArrayView::with_extent`): the runtime owns the host
    /// copy, which starts as zeros.
    NoSource,
    /// An `Array` resident on `view`'s accelerator.
    Array { view: AcceleratorView },
}

/// A location that can hold a valid copy.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loc {
    Host,
    /// Index into `State::copies`.
    Device(usize),
}

/// The memory of the CPU accelerator: 32-bit words accessed atomically
/// (relaxed), so that kernels running on many host threads never race in
/// the Rust sense, whatever the kernel does.
pub(crate) struct CpuMem {
    words: Box<[AtomicU32]>,
    /// Who accesses the words at the moment, and how (plain launches
    /// exclude writers).
    gate: super::cpu_gate::Gate,
    /// Failures of commands that wrote this memory, reported by the next
    /// access to it (see [`failure`](crate::backend::failure)).
    pub(crate) failures: crate::backend::failure::Failures,
}

impl CpuMem {
    pub(crate) fn zeroed(bytes: u64) -> Result<CpuMem> {
        let words =
            usize::try_from(bytes.div_ceil(4)).map_err(|_| too_big(bytes, "address space"))?;
        let mut v: Vec<AtomicU32> = Vec::new();
        v.try_reserve_exact(words).map_err(|_| Error::OutOfMemory {
            accelerator: "CPU accelerator".to_string(),
            detail: format!("cannot allocate {bytes} bytes of host memory"),
        })?;
        v.resize_with(words, || AtomicU32::new(0));
        Ok(CpuMem {
            words: v.into_boxed_slice(),
            gate: super::cpu_gate::Gate::default(),
            failures: crate::backend::failure::Failures::new(
                crate::backend::failure::Channel::Data,
            ),
        })
    }

    /// The words, for a holder of a [`Pass`](super::cpu_gate::Pass) of
    /// this memory's gate (a launch, for its kernel and its rollback).
    pub(crate) fn words_held(&self) -> &[AtomicU32] {
        &self.words
    }

    /// Enters the memory's gate in an atomic `mode`, waiting for plain
    /// launches that exclude it.
    pub(crate) fn enter(&self, mode: super::cpu_gate::Mode) -> super::cpu_gate::Pass<'_> {
        self.gate.enter(mode)
    }

    /// Enters the memory's gate in `mode` if nothing excludes it now.
    pub(crate) fn try_enter(
        &self,
        mode: super::cpu_gate::Mode,
    ) -> Option<super::cpu_gate::Pass<'_>> {
        self.gate.try_enter(mode)
    }

    /// The words, with a pass in an atomic `mode` (host transfers).
    pub(crate) fn access(&self, mode: super::cpu_gate::Mode) -> Words<'_> {
        Words {
            pass: self.gate.enter(mode),
            words: &self.words,
        }
    }

    /// Reads `range` into `out`. Ranges of 2-byte elements (the `half`
    /// feature) may start or end inside a word.
    fn read(&self, range: Range<u64>, out: &mut [u8]) {
        let _pass = self.enter(super::cpu_gate::Mode::AtomicRead);
        if range.start.is_multiple_of(4) && out.len().is_multiple_of(4) {
            let first = (range.start / 4) as usize;
            for (i, chunk) in out.chunks_exact_mut(4).enumerate() {
                chunk.copy_from_slice(&self.words[first + i].load(Ordering::Relaxed).to_ne_bytes());
            }
            return;
        }
        for w in range.start / 4..range.end.div_ceil(4) {
            let bytes = self.words[w as usize].load(Ordering::Relaxed).to_ne_bytes();
            let lo = (w * 4).max(range.start);
            let hi = (w * 4 + 4).min(range.end);
            out[(lo - range.start) as usize..(hi - range.start) as usize]
                .copy_from_slice(&bytes[(lo - w * 4) as usize..(hi - w * 4) as usize]);
        }
    }

    /// Writes `data` over `range`. A word `range` covers only in part keeps
    /// its other bytes: they are merged in with a compare-and-swap, so a
    /// kernel writing the neighbouring element at the same time loses
    /// nothing.
    fn write(&self, range: Range<u64>, data: &[u8]) {
        let _pass = self.enter(super::cpu_gate::Mode::AtomicWrite);
        if range.start.is_multiple_of(4) && data.len().is_multiple_of(4) {
            let first = (range.start / 4) as usize;
            for (i, chunk) in data.chunks_exact(4).enumerate() {
                let word = u32::from_ne_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                self.words[first + i].store(word, Ordering::Relaxed);
            }
            return;
        }
        for w in range.start / 4..range.end.div_ceil(4) {
            let lo = (w * 4).max(range.start);
            let hi = (w * 4 + 4).min(range.end);
            let src = &data[(lo - range.start) as usize..(hi - range.start) as usize];
            let at = (lo - w * 4) as usize;
            let _ =
                self.words[w as usize].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                    let mut bytes = old.to_ne_bytes();
                    bytes[at..at + src.len()].copy_from_slice(src);
                    Some(u32::from_ne_bytes(bytes))
                });
        }
    }
}

/// A CPU memory's words with a pass of its gate in an atomic mode.
pub(crate) struct Words<'m> {
    #[allow(dead_code)] // held for its drop
    pass: super::cpu_gate::Pass<'m>,
    words: &'m [AtomicU32],
}

impl std::ops::Deref for Words<'_> {
    type Target = [AtomicU32];
    fn deref(&self) -> &[AtomicU32] {
        self.words
    }
}

/// The memory of one device copy.
pub(crate) enum DeviceMem {
    Gpu {
        device: Arc<DeviceContext>,
        buffer: wgpu::Buffer,
    },
    Cpu(Arc<CpuMem>),
}

struct DeviceCopy {
    accelerator: Accelerator,
    mem: DeviceMem,
    valid: RangeSet,
    /// The view that last recorded a command using this copy.
    last_user: Option<AcceleratorView>,
    /// Every view that bound this copy for a command (`use_on`). Flushing
    /// only `last_user` is not enough: a launch records its command after
    /// `use_on` returns, outside this source's lock, so when two threads
    /// launch on two views at once, the first view's command can land in
    /// its batch after the second view became `last_user` (and flushed the
    /// first one while it was still empty). Accesses therefore flush every
    /// user; flushing a view with nothing pending does nothing.
    users: Vec<AcceleratorView>,
}

impl Drop for DeviceCopy {
    /// A GPU buffer goes to its device's [`BufferPool`] for the next
    /// container of its size, after the commands recorded on it are
    /// submitted (the pool's clear for the next owner is submitted at once,
    /// and must come after them).
    fn drop(&mut self) {
        let DeviceMem::Gpu { device, buffer } = &self.mem else {
            return;
        };
        if !BufferPool::keeps(device, buffer.size()) {
            return;
        }
        for user in &self.users {
            if let Err(e) = user.submit_pending() {
                // Not kept: nothing may reuse it before those commands.
                log::debug!("a dropped buffer is not kept for reuse: {e}");
                return;
            }
        }
        device.attached::<BufferPool>().give(device, buffer.clone());
    }
}

/// The host location's memory.
enum HostMem {
    /// The user's slice (valid while a view lives).
    Borrowed { ptr: *mut u8, writable: bool },
    /// Runtime-owned memory (views with no data source, host shadows of
    /// arrays), allocated on first use; `None` reads as zeros.
    Owned(Option<Vec<u32>>),
    /// The borrow ended (the last view dropped).
    Detached,
}

struct State {
    host: HostMem,
    host_valid: RangeSet,
    copies: Vec<DeviceCopy>,
    /// Downloads started by `synchronize_async`, written into host memory by
    /// the next view method that takes the lock (while the borrow of the host
    /// data is alive).
    pending: Vec<PendingDownload>,
}

/// A device-to-host copy in flight: `staging` receives bytes `hull_start..`
/// of the source; `ranges` are the parts still to be written to the host
/// (commands and host writes since then shrink it).
struct PendingDownload {
    device: Arc<DeviceContext>,
    index: wgpu::SubmissionIndex,
    staging: wgpu::Buffer,
    hull_start: u64,
    ranges: RangeSet,
    mapped: Arc<Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>>,
    /// Read and unmapped: the staging buffer can serve another download.
    read: std::sync::atomic::AtomicBool,
}

impl Drop for PendingDownload {
    /// A staging buffer that was read and unmapped goes to the device's
    /// [`BufferPool`]; one still mapping (a download never waited for) is
    /// dropped.
    fn drop(&mut self) {
        if self.read.load(Ordering::Acquire) {
            self.device
                .attached::<BufferPool>()
                .give(&self.device, self.staging.clone());
        }
    }
}

/// One data source and its coherence record.
pub(crate) struct Storage {
    bytes: u64,
    origin: Origin,
    requires_f64: bool,
    state: Mutex<State>,
    /// Live `ArrayView` handles over this source.
    views: AtomicUsize,
}

// SAFETY: the only non-thread-safe field is the borrowed host pointer in
// `HostMem::Borrowed`. It comes from a `&[T]`/`&mut [T]` whose element type is
// `Send + Sync` (`Element` requires it), it is only dereferenced while
// `state`'s lock is held, and only by methods of live views, which carry the
// borrow's lifetime. So sharing or sending a `Storage` is as safe as sharing
// or sending that slice reference.
unsafe impl Send for Storage {}
// SAFETY: see the `Send` impl: every access goes through the mutex.
unsafe impl Sync for Storage {}

fn too_big(bytes: u64, what: &str) -> Error {
    Error::OutOfMemory {
        accelerator: "host".to_string(),
        detail: format!("{bytes} bytes exceed the {what}"),
    }
}

/// Counters of the transfers a view caused.
#[derive(Default)]
pub(crate) struct TransferCounters {
    pub(crate) uploads: AtomicU64,
    pub(crate) bytes_uploaded: AtomicU64,
    pub(crate) downloads: AtomicU64,
    pub(crate) bytes_downloaded: AtomicU64,
}

impl TransferCounters {
    /// Counts one upload of `bytes`.
    pub(crate) fn upload_bytes(&self, bytes: u64) {
        self.upload(bytes);
    }

    /// Counts one download of `bytes`.
    pub(crate) fn download_bytes(&self, bytes: u64) {
        self.download(bytes);
    }

    fn upload(&self, bytes: u64) {
        self.uploads.fetch_add(1, Ordering::Relaxed);
        self.bytes_uploaded.fetch_add(bytes, Ordering::Relaxed);
    }

    fn download(&self, bytes: u64) {
        self.downloads.fetch_add(1, Ordering::Relaxed);
        self.bytes_downloaded.fetch_add(bytes, Ordering::Relaxed);
    }
}

impl Storage {
    /// A source over a borrowed host slice of `bytes` bytes at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for reads (and writes if `writable`) of `bytes`
    /// bytes for as long as any view over the returned storage lives, and not
    /// be accessed otherwise meanwhile (the views hold the slice's borrow).
    pub(crate) unsafe fn borrowed(
        ptr: *mut u8,
        bytes: u64,
        writable: bool,
        requires_f64: bool,
    ) -> Storage {
        Storage {
            bytes,
            origin: Origin::Host,
            requires_f64,
            state: Mutex::new(State {
                host: HostMem::Borrowed { ptr, writable },
                host_valid: RangeSet::from_range(0..bytes),
                copies: Vec::new(),
                pending: Vec::new(),
            }),
            views: AtomicUsize::new(0),
        }
    }

    /// A source with no data: zeros, on the host.
    pub(crate) fn no_source(bytes: u64, requires_f64: bool) -> Storage {
        Storage {
            bytes,
            origin: Origin::NoSource,
            requires_f64,
            state: Mutex::new(State {
                host: HostMem::Owned(None),
                host_valid: RangeSet::from_range(0..bytes),
                copies: Vec::new(),
                pending: Vec::new(),
            }),
            views: AtomicUsize::new(0),
        }
    }

    /// An array's storage on `view`'s accelerator, zero-filled, or holding
    /// `init` (exactly `bytes` long).
    pub(crate) fn array(
        view: &AcceleratorView,
        bytes: u64,
        requires_f64: bool,
        init: Option<&[u8]>,
    ) -> Result<Storage> {
        let storage = Storage {
            bytes,
            origin: Origin::Array { view: view.clone() },
            requires_f64,
            state: Mutex::new(State {
                host: HostMem::Owned(None),
                host_valid: RangeSet::new(),
                copies: Vec::new(),
                pending: Vec::new(),
            }),
            views: AtomicUsize::new(0),
        };
        {
            let mut st = storage.state.lock();
            let d = storage.copy_index(&mut st, view.accelerator())?;
            // Fresh device memory is zero-filled (wgpu guarantees it).
            st.copies[d].valid = RangeSet::from_range(0..bytes);
            if let Some(data) = init {
                debug_assert_eq!(data.len() as u64, bytes);
                Self::flush_user(&mut st.copies[d], None)?;
                write_device(&st.copies[d].mem, 0..bytes, data)?;
                if bytes > 0 {
                    view.transfer_counters().upload(bytes);
                }
            }
            // The array's own view is the copy's first user, so transfers
            // that no command caused (`synchronize`, host reads) are counted
            // on it rather than on the accelerator's default view.
            st.copies[d].last_user = Some(view.clone());
            st.copies[d].users.push(view.clone());
        }
        Ok(storage)
    }

    /// The borrowed host data of a read-only host source.
    pub(crate) fn host_ptr(&self) -> Option<*const u8> {
        match self.state.lock().host {
            HostMem::Borrowed {
                ptr,
                writable: false,
            } => Some(ptr as *const u8),
            _ => None,
        }
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    pub(crate) fn origin(&self) -> &Origin {
        &self.origin
    }

    /// Registers a new view handle.
    pub(crate) fn add_view(&self) {
        self.views.fetch_add(1, Ordering::AcqRel);
    }

    /// Unregisters a view handle; the last one of a writable host source
    /// writes pending data back and ends the borrow.
    pub(crate) fn drop_view(&self) {
        if self.views.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        let mut st = self.state.lock();
        if let HostMem::Borrowed { writable, .. } = st.host {
            if writable
                && let Err(e) = self.make_valid_locked(
                    &mut st,
                    &RangeSet::from_range(0..self.bytes),
                    Loc::Host,
                    None,
                )
            {
                // A destructor cannot return the error. A failed kernel's
                // error stays recorded for the view that ran it (its next
                // `wait`/`flush`); a program that relies on the drop alone
                // must still hear of it, logger or not: standard error.
                report_lost_write_back(&e);
            }
            st.host = HostMem::Detached;
        }
    }

    /// The home location: where `synchronize` makes data valid.
    fn home(&self, st: &mut State) -> Result<Loc> {
        match &self.origin {
            Origin::Host | Origin::NoSource => Ok(Loc::Host),
            Origin::Array { view } => Ok(Loc::Device(self.copy_index(st, view.accelerator())?)),
        }
    }

    /// Makes `region` valid on the host.
    pub(crate) fn make_host_valid(&self, region: &RangeSet) -> Result<()> {
        let mut st = self.state.lock();
        self.make_valid_locked(&mut st, region, Loc::Host, None)
    }

    /// Makes `region` valid at the home location (`synchronize`).
    pub(crate) fn synchronize(&self, region: &RangeSet) -> Result<()> {
        let mut st = self.state.lock();
        let home = self.home(&mut st)?;
        self.make_valid_locked(&mut st, region, home, None)
    }

    /// Starts making `region` valid at the home location and returns a
    /// future for the transfers. GPU-to-host downloads run asynchronously;
    /// their bytes reach the host memory at the next access through a view
    /// (which waits for them). Other transfers complete before this returns.
    pub(crate) fn synchronize_async(&self, region: &RangeSet) -> Result<CompletionFuture> {
        let mut st = self.state.lock();
        let home = self.home(&mut st)?;
        let read_only = matches!(
            st.host,
            HostMem::Borrowed {
                writable: false,
                ..
            }
        );
        if home != Loc::Host || read_only {
            self.make_valid_locked(&mut st, region, home, None)?;
            return Ok(CompletionFuture::ready(Ok(())));
        }
        let mut missing = region.difference(&st.host_valid);
        for p in &st.pending {
            missing.subtract(&p.ranges);
        }
        if missing.is_empty() {
            return Ok(match st.pending.last() {
                Some(p) => CompletionFuture::gpu(Arc::clone(&p.device), p.index.clone()),
                None => CompletionFuture::ready(Ok(())),
            });
        }
        ensure_host_mem(&mut st.host, self.bytes)?;
        let mut future = CompletionFuture::ready(Ok(()));
        for i in 0..st.copies.len() {
            let part = missing.intersection(&st.copies[i].valid);
            if part.is_empty() {
                continue;
            }
            missing.subtract(&part);
            let copy = &mut st.copies[i];
            Self::flush_user(copy, None)?;
            let counted_on = copy
                .last_user
                .clone()
                .unwrap_or_else(|| copy.accelerator.default_view());
            match &copy.mem {
                DeviceMem::Gpu { device, buffer } => {
                    let pending = start_download(device, buffer, part)?;
                    counted_on
                        .transfer_counters()
                        .download(pending.ranges.len());
                    future = CompletionFuture::gpu(Arc::clone(device), pending.index.clone());
                    st.pending.push(pending);
                }
                DeviceMem::Cpu(_) => {
                    self.download(&mut st, i, &part, None)?;
                    st.host_valid.union_with(&part);
                }
            }
        }
        // What no location holds (discarded) is valid on the host as is.
        st.host_valid.union_with(&missing);
        Ok(future)
    }

    /// Makes `region` valid on `view`'s accelerator (`synchronize_to`).
    pub(crate) fn synchronize_to(&self, region: &RangeSet, view: &AcceleratorView) -> Result<()> {
        self.check_f64(view.accelerator())?;
        let mut st = self.state.lock();
        let d = self.copy_index(&mut st, view.accelerator())?;
        self.make_valid_locked(&mut st, region, Loc::Device(d), Some(view))
    }

    /// `UnsupportedFeature` if the data holds `f64` and `accelerator` lacks it.
    fn check_f64(&self, accelerator: &Accelerator) -> Result<()> {
        if self.requires_f64 && !accelerator.supports_double_precision() {
            return Err(Error::UnsupportedFeature {
                accelerator: accelerator.description().to_string(),
                feature: "double precision (f64) data: the adapter lacks SHADER_F64".to_string(),
            });
        }
        Ok(())
    }

    /// Host data changed behind the views' back: the host is the only valid
    /// location for `region`.
    pub(crate) fn refresh(&self, region: &RangeSet) {
        let mut st = self.state.lock();
        if matches!(st.host, HostMem::Borrowed { .. }) {
            drop_pending(&mut st, region);
            st.host_valid.union_with(region);
            for c in &mut st.copies {
                c.valid.subtract(region);
            }
        }
    }

    /// The contents of `region` are no longer needed anywhere. A source with
    /// no data source keeps them: its only copy is never thrown away.
    pub(crate) fn discard(&self, region: &RangeSet) {
        if matches!(self.origin, Origin::NoSource) {
            return;
        }
        let mut st = self.state.lock();
        drop_pending(&mut st, region);
        st.host_valid.subtract(region);
        for c in &mut st.copies {
            c.valid.subtract(region);
        }
    }

    /// Reads `range` (made valid on the host first) into `out`.
    ///
    /// # Errors
    ///
    /// As [`read_host_into`](Self::read_host_into), and `OutOfMemory` if
    /// `out` cannot grow.
    pub(crate) fn read_host(&self, region: &RangeSet, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let len =
            usize::try_from(region.len()).map_err(|_| too_big(region.len(), "address space"))?;
        out.try_reserve_exact(len)
            .map_err(|_| too_big(region.len(), "available host memory"))?;
        out.resize(len, 0);
        self.read_host_into(region, out, true)
    }

    /// Reads `region` (made valid on the host first) into `out`, which holds
    /// exactly its bytes, in order. An `Array`'s region read from its
    /// device copy fills the host copy too where `keep` (a second read then
    /// moves nothing); without `keep` (a `copy` into a host slice, which in
    /// C++ AMP always transfers) only `out` is written, one host copy fewer.
    pub(crate) fn read_host_into(
        &self,
        region: &RangeSet,
        out: &mut [u8],
        keep: bool,
    ) -> Result<()> {
        debug_assert_eq!(out.len() as u64, region.len());
        let mut st = self.state.lock();
        if self.read_array_device(&mut st, region, out, keep)? {
            return Ok(());
        }
        self.make_valid_locked(&mut st, region, Loc::Host, None)?;
        let mut at = 0;
        for r in region.ranges() {
            let len = (r.end - r.start) as usize;
            read_host_mem(&st.host, r.clone(), &mut out[at..at + len]);
            at += len;
        }
        Ok(())
    }

    /// Writes `data` over `range` on the host, which becomes the only valid
    /// location for it.
    pub(crate) fn write_host(&self, range: Range<u64>, data: &[u8]) -> Result<()> {
        let mut st = self.state.lock();
        if self.write_array_device(&mut st, range.clone(), data)? {
            return Ok(());
        }
        ensure_host_mem(&mut st.host, self.bytes)?;
        write_host_mem(&mut st.host, range.clone(), data)?;
        drop_pending(&mut st, &RangeSet::from_range(range.clone()));
        st.host_valid.insert(range.clone());
        for c in &mut st.copies {
            c.valid.remove(range.clone());
        }
        Ok(())
    }

    /// For an `Array` on a GPU whose device copy holds all of `region` and
    /// the host copy none of it: reads `region` from the device into `out`
    /// and, where `keep`, the host copy (which becomes valid: a second read
    /// does not transfer again) from each staging buffer, with several
    /// chunks' copies in flight, and returns `true`. Returns `false`,
    /// reading nothing, otherwise and for small reads.
    fn read_array_device(
        &self,
        st: &mut State,
        region: &RangeSet,
        out: &mut [u8],
        keep: bool,
    ) -> Result<bool> {
        let Origin::Array { view } = &self.origin else {
            return Ok(false);
        };
        if region.len() < super::upload::RING_MIN_BYTES {
            return Ok(false);
        }
        finish_pending(st)?;
        if !region.intersection(&st.host_valid).is_empty() {
            return Ok(false);
        }
        let d = self.copy_index(st, view.accelerator())?;
        if !region.difference(&st.copies[d].valid).is_empty() {
            return Ok(false);
        }
        let DeviceMem::Gpu { device, buffer } = &st.copies[d].mem else {
            return Ok(false);
        };
        let (device, buffer) = (Arc::clone(device), buffer.clone());
        // Commands recorded before this read, on any view, write first.
        Self::flush_user(&mut st.copies[d], None)?;
        if keep {
            ensure_host_mem(&mut st.host, self.bytes)?;
        }
        let mut host = keep.then_some(&mut st.host);
        // Up to DEPTH chunks' copies in flight while the host copies the
        // oldest one out: the link and the host copies overlap.
        const DEPTH: usize = 3;
        let mut inflight: std::collections::VecDeque<(PendingDownload, usize)> =
            std::collections::VecDeque::new();
        let mut at = 0;
        for r in region.ranges() {
            for c in chunks(words_of(r.clone())) {
                let part = c.start.max(r.start)..c.end.min(r.end);
                if part.is_empty() {
                    continue;
                }
                let len = (part.end - part.start) as usize;
                inflight.push_back((
                    start_download(&device, &buffer, RangeSet::from_range(part))?,
                    at,
                ));
                at += len;
                if inflight.len() >= DEPTH
                    && let Some((p, at)) = inflight.pop_front()
                {
                    finish_into(&p, &mut out[at..], host.as_deref_mut())?;
                }
            }
        }
        while let Some((p, at)) = inflight.pop_front() {
            finish_into(&p, &mut out[at..], host.as_deref_mut())?;
        }
        if keep {
            st.host_valid.union_with(region);
        }
        view.transfer_counters().download(region.len());
        Ok(true)
    }

    /// For an `Array` on a GPU: writes `data` over `range` straight into its
    /// device memory, which becomes the only valid location for it, and
    /// returns `true` (C++ AMP's `copy` into an `array` uploads; staging
    /// the bytes in the host copy first cost two host copies and a later
    /// upload). Returns `false`, writing nothing, for other sources, small
    /// writes, and ranges that do not start and end on whole words (GPU
    /// copies move words).
    fn write_array_device(&self, st: &mut State, range: Range<u64>, data: &[u8]) -> Result<bool> {
        let Origin::Array { view } = &self.origin else {
            return Ok(false);
        };
        let len = range.end - range.start;
        if len < super::upload::RING_MIN_BYTES
            || !range.start.is_multiple_of(4)
            || (!range.end.is_multiple_of(4) && range.end != self.bytes)
        {
            return Ok(false);
        }
        let d = self.copy_index(st, view.accelerator())?;
        if !matches!(st.copies[d].mem, DeviceMem::Gpu { .. }) {
            return Ok(false);
        }
        // Commands recorded before this write, on any view, read the old
        // data: they are submitted first (uploads are queue-ordered).
        Self::flush_user(&mut st.copies[d], None)?;
        let region = RangeSet::from_range(range.clone());
        // At least `RING_MIN_BYTES`: through the kept staging slots.
        if let Err(e) = write_device(&st.copies[d].mem, range, data) {
            // Part of the range may hold new bytes: the device copy of it
            // is no longer a valid one (the host's, if it has one, is).
            st.copies[d].valid.subtract(&region);
            return Err(e);
        }
        drop_pending(st, &region);
        st.host_valid.subtract(&region);
        for (i, c) in st.copies.iter_mut().enumerate() {
            if i == d {
                c.valid.union_with(&region);
            } else {
                c.valid.subtract(&region);
            }
        }
        view.transfer_counters().upload(len);
        Ok(true)
    }

    /// Prepares `region` for a command recorded on `view` (a kernel, a copy)
    /// and returns the device memory to bind. With `write`, the command's
    /// accelerator becomes the only valid location of `region`; with
    /// `discard` nothing is uploaded for it first (the command overwrites it).
    pub(crate) fn use_on(
        &self,
        region: &RangeSet,
        view: &AcceleratorView,
        write: bool,
        discard: bool,
    ) -> Result<DeviceBinding> {
        let accelerator = view.accelerator();
        self.check_f64(accelerator)?;
        let mut st = self.state.lock();
        let d = self.copy_index(&mut st, accelerator)?;
        if !discard {
            self.make_valid_locked(&mut st, region, Loc::Device(d), Some(view))?;
        }
        let copy = &mut st.copies[d];
        Self::flush_user(copy, Some(view))?;
        if !copy.users.contains(view) {
            copy.users.push(view.clone());
        }
        copy.last_user = Some(view.clone());
        let binding = match &copy.mem {
            DeviceMem::Gpu { buffer, .. } => DeviceBinding::Gpu(buffer.clone()),
            DeviceMem::Cpu(mem) => DeviceBinding::Cpu(Arc::clone(mem)),
        };
        if write || discard {
            drop_pending(&mut st, region);
            st.copies[d].valid.union_with(region);
            st.host_valid.subtract(region);
            for (i, c) in st.copies.iter_mut().enumerate() {
                if i != d {
                    c.valid.subtract(region);
                }
            }
        }
        Ok(binding)
    }

    /// The index of `accelerator`'s copy, allocated on first use.
    fn copy_index(&self, st: &mut State, accelerator: &Accelerator) -> Result<usize> {
        if let Some(i) = st.copies.iter().position(|c| &c.accelerator == accelerator) {
            return Ok(i);
        }
        let mem = allocate(accelerator, self.bytes)?;
        st.copies.push(DeviceCopy {
            accelerator: accelerator.clone(),
            mem,
            valid: RangeSet::new(),
            last_user: None,
            users: Vec::new(),
        });
        Ok(st.copies.len() - 1)
    }

    /// Flushes every user of `copy` except `except`, so that their
    /// commands are ordered before whatever comes next; then reports the
    /// failure of a command that wrote the copy, if one is not yet reported
    /// (its writes were rolled back: the data is as it was before it).
    fn flush_user(copy: &mut DeviceCopy, except: Option<&AcceleratorView>) -> Result<()> {
        for user in &copy.users {
            if Some(user) != except {
                user.submit_pending()?;
            }
        }
        if let DeviceMem::Cpu(mem) = &copy.mem
            && let Some(e) = mem.failures.take_first()
        {
            return Err(e);
        }
        Ok(())
    }

    /// Makes `region` valid at `target`, moving only what is stale there.
    /// `view` is the view that needs it (for attribution); host transfers are
    /// counted on the view that last used the device copy involved.
    fn make_valid_locked(
        &self,
        st: &mut State,
        region: &RangeSet,
        target: Loc,
        view: Option<&AcceleratorView>,
    ) -> Result<()> {
        finish_pending(st)?;
        let mut missing = match target {
            Loc::Host => region.difference(&st.host_valid),
            Loc::Device(d) => region.difference(&st.copies[d].valid),
        };
        if missing.is_empty() {
            return Ok(());
        }
        if let Loc::Host = target {
            ensure_host_mem(&mut st.host, self.bytes)?;
        }
        // Device -> host, from each copy that holds part of what is missing.
        // When the target is a device, stage through the host (which then
        // holds the data too); the host is the hub between accelerators.
        for i in 0..st.copies.len() {
            if Loc::Device(i) == target {
                continue;
            }
            let from_host = missing.intersection(&st.host_valid);
            let needed = missing.difference(&from_host);
            let part = needed.intersection(&st.copies[i].valid);
            if part.is_empty() {
                continue;
            }
            ensure_host_mem(&mut st.host, self.bytes)?;
            if matches!(
                st.host,
                HostMem::Borrowed {
                    writable: false,
                    ..
                }
            ) {
                // A read-only host source is valid everywhere on the host.
                continue;
            }
            self.download(st, i, &part, view)?;
            st.host_valid.union_with(&part);
            if target == Loc::Host {
                missing.subtract(&part);
            }
        }
        if let Loc::Device(d) = target {
            let from_host = missing.intersection(&st.host_valid);
            if !from_host.is_empty() {
                self.upload(st, d, &from_host, view)?;
            }
            // What no location holds (discarded, never written) is undefined:
            // mark it valid without a transfer. Memory is zero-initialised,
            // never uninitialised.
            st.copies[d].valid.union_with(&missing);
        } else {
            st.host_valid.union_with(&missing);
        }
        Ok(())
    }

    fn download(
        &self,
        st: &mut State,
        from: usize,
        part: &RangeSet,
        view: Option<&AcceleratorView>,
    ) -> Result<()> {
        let copy = &mut st.copies[from];
        Self::flush_user(copy, None)?;
        let counted_on = view
            .cloned()
            .or_else(|| copy.last_user.clone())
            .unwrap_or_else(|| copy.accelerator.default_view());
        let bytes = part.len();
        match &copy.mem {
            DeviceMem::Cpu(mem) => {
                // Through a bounded buffer: a download never needs a second
                // copy of the data.
                let mut buf = transfer_buffer(part)?;
                for r in part.ranges() {
                    for c in chunks(r.clone()) {
                        let b = &mut buf[..(c.end - c.start) as usize];
                        mem.read(c.clone(), b);
                        write_host_mem(&mut st.host, c, b)?;
                    }
                }
            }
            DeviceMem::Gpu { device, buffer } => {
                let hull = words_of(part.hull().expect("non-empty part"));
                // A staging buffer per chunk of the hull, never one of the
                // whole size. GPU copies move whole words: the hull is
                // widened to them, and only `part` reaches the host.
                for c in chunks(hull) {
                    let chunk_part = part.intersection(&RangeSet::from_range(c.clone()));
                    if chunk_part.is_empty() {
                        continue;
                    }
                    let hull = words_of(chunk_part.hull().expect("non-empty chunk"));
                    device.read_buffer(buffer, hull.clone(), |data| {
                        for r in chunk_part.ranges() {
                            let lo = (r.start - hull.start) as usize;
                            let hi = (r.end - hull.start) as usize;
                            write_host_mem(&mut st.host, r.clone(), &data[lo..hi])?;
                        }
                        Ok(())
                    })?;
                }
            }
        }
        counted_on.transfer_counters().download(bytes);
        Ok(())
    }

    fn upload(
        &self,
        st: &mut State,
        to: usize,
        part: &RangeSet,
        view: Option<&AcceleratorView>,
    ) -> Result<()> {
        Self::flush_user(&mut st.copies[to], None)?;
        let copy = &st.copies[to];
        let counted_on = view
            .cloned()
            .or_else(|| copy.last_user.clone())
            .unwrap_or_else(|| copy.accelerator.default_view());
        let host_read_only = matches!(
            st.host,
            HostMem::Borrowed {
                writable: false,
                ..
            }
        );
        let part = match &copy.mem {
            DeviceMem::Cpu(_) => part.clone(),
            DeviceMem::Gpu { .. } if host_read_only => {
                // A read-only host source holds every byte (kernels cannot
                // write it), so whole words come from it as they are.
                RangeSet::from_ranges(part.ranges().iter().map(|r| words_of(r.clone())))
            }
            DeviceMem::Gpu { .. } => {
                // GPU writes move whole words. Where `part` covers a word
                // only in part (2-byte elements), the rest of the word is
                // written too, from the host: first make the host hold it
                // wherever this copy holds it valid, so that nothing newer
                // on the device is overwritten by an older host value.
                let words =
                    RangeSet::from_ranges(part.ranges().iter().map(|r| words_of(r.clone())));
                let edges = words
                    .difference(part)
                    .intersection(&RangeSet::from_range(0..self.bytes));
                let stale = edges
                    .difference(&st.host_valid)
                    .intersection(&st.copies[to].valid);
                if !stale.is_empty() {
                    self.download(st, to, &stale, view)?;
                    st.host_valid.union_with(&stale);
                }
                words
            }
        };
        let copy = &st.copies[to];
        if let DeviceMem::Gpu { device, buffer } = &copy.mem
            && part.len() >= super::upload::RING_MIN_BYTES
        {
            // Large uploads: straight from host memory into staging that
            // stays allocated (see `upload`). Bytes past the end of the
            // source (its last word's padding) are written as zeros.
            for r in part.ranges() {
                let held = r.start..r.end.min(self.bytes).max(r.start);
                let host = &st.host;
                device.attached::<super::upload::UploadRing>().write(
                    device,
                    buffer,
                    r.start,
                    held.end - held.start,
                    |pos, n| host_bytes(host, held.start + pos..held.start + pos + n as u64),
                )?;
            }
            counted_on.transfer_counters().upload(part.len());
            return Ok(());
        }
        let mut buf = transfer_buffer(&part)?;
        for r in part.ranges() {
            for c in chunks(r.clone()) {
                let b = &mut buf[..(c.end - c.start) as usize];
                // Bytes past the end of the source (its last word's padding)
                // are written as zeros.
                let inside = c.start..c.end.min(self.bytes);
                let (held, pad) = b.split_at_mut((inside.end - inside.start) as usize);
                read_host_mem(&st.host, inside, held);
                pad.fill(0);
                write_device(&copy.mem, c, b)?;
            }
        }
        counted_on.transfer_counters().upload(part.len());
        Ok(())
    }
}

/// What a command binds for one captured container.
#[derive(Clone)]
pub(crate) enum DeviceBinding {
    Gpu(wgpu::Buffer),
    #[allow(dead_code)] // used by the CPU kernel path
    Cpu(Arc<CpuMem>),
}

/// The usage of containers' device buffers.
const DATA_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// Allocates `bytes` of zeroed memory on `accelerator` (on a GPU, a kept
/// buffer of the same size where the device's [`BufferPool`] has one).
fn allocate(accelerator: &Accelerator, bytes: u64) -> Result<DeviceMem> {
    let limits = accelerator.limits();
    if bytes > limits.max_buffer_size {
        return Err(Error::OutOfMemory {
            accelerator: accelerator.description().to_string(),
            detail: format!(
                "{bytes} bytes exceed the accelerator's max_buffer_size limit of {} bytes",
                limits.max_buffer_size
            ),
        });
    }
    match accelerator.device()? {
        None => Ok(DeviceMem::Cpu(Arc::new(CpuMem::zeroed(bytes)?))),
        Some(device) => {
            device.check()?;
            let size = bytes.max(4).next_multiple_of(4);
            let pool = device.attached::<BufferPool>();
            let buffer = match pool.take(device, size, DATA_USAGE, true) {
                Some(kept) => kept,
                None => pool
                    .create(
                        device,
                        &wgpu::BufferDescriptor {
                            label: Some("amp-rs data"),
                            size,
                            usage: DATA_USAGE,
                            mapped_at_creation: false,
                        },
                    )
                    .map_err(|e| Error::OutOfMemory {
                        accelerator: accelerator.description().to_string(),
                        detail: format!("cannot allocate {bytes} bytes: {e}"),
                    })?,
            };
            Ok(DeviceMem::Gpu {
                device: Arc::clone(device),
                buffer,
            })
        }
    }
}

fn ensure_host_mem(host: &mut HostMem, bytes: u64) -> Result<()> {
    match host {
        HostMem::Owned(mem @ None) => {
            let words =
                usize::try_from(bytes.div_ceil(4)).map_err(|_| too_big(bytes, "address space"))?;
            let mut v: Vec<u32> = Vec::new();
            v.try_reserve_exact(words)
                .map_err(|_| too_big(bytes, "available host memory"))?;
            v.resize(words, 0);
            *mem = Some(v);
            Ok(())
        }
        HostMem::Detached => Err(Error::InvalidArgument(
            "the host data of this source is no longer borrowed".to_string(),
        )),
        _ => Ok(()),
    }
}

/// The host bytes of `range`, borrowed (`None` where no host memory is
/// allocated: the bytes are zeros).
fn host_bytes(host: &HostMem, range: Range<u64>) -> Option<&[u8]> {
    let len = (range.end - range.start) as usize;
    match host {
        HostMem::Borrowed { ptr, .. } => {
            // SAFETY: as in `read_host_mem`: the borrow keeps the whole
            // source valid while views live, this runs under the source's
            // lock (no write through the views meanwhile), and `range` lies
            // within the source.
            Some(unsafe { std::slice::from_raw_parts(ptr.add(range.start as usize), len) })
        }
        HostMem::Owned(Some(words)) => {
            let bytes: &[u8] = bytemuck::cast_slice(words);
            Some(&bytes[range.start as usize..range.end as usize])
        }
        HostMem::Owned(None) | HostMem::Detached => None,
    }
}

fn read_host_mem(host: &HostMem, range: Range<u64>, out: &mut [u8]) {
    let len = (range.end - range.start) as usize;
    debug_assert_eq!(out.len(), len);
    match host {
        HostMem::Borrowed { ptr, .. } => {
            // SAFETY: `Storage::borrowed`'s contract keeps `ptr` valid for the
            // whole source while views live (this runs under the lock, from a
            // view method), and `range` lies within the source.
            let src = unsafe { std::slice::from_raw_parts(ptr.add(range.start as usize), len) };
            copy_bytes(out, src);
        }
        HostMem::Owned(Some(words)) => {
            let bytes: &[u8] = bytemuck::cast_slice(words);
            copy_bytes(out, &bytes[range.start as usize..range.end as usize]);
        }
        HostMem::Owned(None) | HostMem::Detached => out.fill(0),
    }
}

fn write_host_mem(host: &mut HostMem, range: Range<u64>, data: &[u8]) -> Result<()> {
    copy_bytes(host_mem_mut(host, range)?, data);
    Ok(())
}

/// The host bytes of `range`, to write.
fn host_mem_mut(host: &mut HostMem, range: Range<u64>) -> Result<&mut [u8]> {
    let len = (range.end - range.start) as usize;
    match host {
        HostMem::Borrowed {
            ptr,
            writable: true,
        } => {
            // SAFETY: as in `read_host_mem`; the borrow is a `&mut [T]`, so
            // writing is allowed, and no other reference to it exists while
            // the views hold it (nor while this slice lives: the state's lock
            // is held).
            Ok(unsafe { std::slice::from_raw_parts_mut(ptr.add(range.start as usize), len) })
        }
        HostMem::Owned(Some(words)) => {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
            Ok(&mut bytes[range.start as usize..range.end as usize])
        }
        HostMem::Borrowed {
            writable: false, ..
        } => Err(Error::InvalidArgument(
            "cannot write through a read-only view".to_string(),
        )),
        HostMem::Owned(None) | HostMem::Detached => {
            Err(Error::Runtime("host memory is not allocated".to_string()))
        }
    }
}

fn write_device(mem: &DeviceMem, range: Range<u64>, data: &[u8]) -> Result<()> {
    match mem {
        DeviceMem::Cpu(cpu) => {
            cpu.write(range, data);
            Ok(())
        }
        DeviceMem::Gpu { device, buffer } => {
            device.check()?;
            // GPU writes move whole words: callers start on a word, and a
            // length that is not whole words ends at the source's end, so
            // the rest of its last word is padding.
            debug_assert_eq!(range.start % 4, 0, "GPU writes start on a word");
            if data.len() as u64 >= super::upload::RING_MIN_BYTES {
                // Through the kept staging slots, filled by several threads
                // (`write_buffer` stages each call in fresh memory: 3 GB/s
                // for `Array::from_slice` of 256 MiB on an H200, where the
                // slots reach 25).
                device.attached::<super::upload::UploadRing>().write(
                    device,
                    buffer,
                    range.start,
                    data.len() as u64,
                    |pos, n| Some(&data[pos as usize..pos as usize + n]),
                )?;
            } else if !data.len().is_multiple_of(4) {
                let mut padded = data.to_vec();
                padded.resize(data.len().next_multiple_of(4), 0);
                device.queue.write_buffer(buffer, range.start, &padded);
            } else if !data.is_empty() {
                device.queue.write_buffer(buffer, range.start, data);
            }
            Ok(())
        }
    }
}

/// The most bytes one step of a transfer moves (and stages).
const TRANSFER_CHUNK: u64 = 32 * 1024 * 1024;

/// `range` widened to whole 32-bit words (GPU copies move words; ranges
/// of 2-byte elements may start or end inside one).
fn words_of(range: Range<u64>) -> Range<u64> {
    range.start / 4 * 4..range.end.next_multiple_of(4)
}

/// `range` in pieces of at most [`TRANSFER_CHUNK`] bytes (4-aligned
/// pieces when `range` starts on a word).
fn chunks(range: Range<u64>) -> impl Iterator<Item = Range<u64>> {
    let end = range.end;
    (range.start..end)
        .step_by(TRANSFER_CHUNK as usize)
        .map(move |s| s..(s + TRANSFER_CHUNK).min(end))
}

/// A host buffer for transfers of `part` through [`chunks`].
///
/// # Errors
///
/// `OutOfMemory` if the host cannot allocate it.
fn transfer_buffer(part: &RangeSet) -> Result<Vec<u8>> {
    let len = part.len().min(TRANSFER_CHUNK) as usize;
    let mut buf = Vec::new();
    buf.try_reserve_exact(len)
        .map_err(|_| too_big(len as u64, "available host memory"))?;
    buf.resize(len, 0);
    Ok(buf)
}

/// Forgets the parts of pending downloads that `region` supersedes.
fn drop_pending(st: &mut State, region: &RangeSet) {
    for p in &mut st.pending {
        p.ranges.subtract(region);
    }
}

/// Starts copying `part` of a GPU buffer to a mappable buffer.
fn start_download(
    device: &Arc<DeviceContext>,
    buffer: &wgpu::Buffer,
    part: RangeSet,
) -> Result<PendingDownload> {
    device.check()?;
    let hull = words_of(part.hull().expect("a non-empty part"));
    let len = hull.end - hull.start;
    let staging = device.staging_buffer(len, "amp-rs async download")?;
    let mut encoder = device
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("amp-rs async download"),
        });
    encoder.copy_buffer_to_buffer(buffer, hull.start, &staging, 0, len);
    let index = device.queue.submit([encoder.finish()]);
    let mapped = Arc::new(Mutex::new(None));
    let slot = Arc::clone(&mapped);
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        *slot.lock() = Some(r);
    });
    Ok(PendingDownload {
        device: Arc::clone(device),
        index,
        staging,
        hull_start: hull.start,
        ranges: part,
        mapped,
        read: std::sync::atomic::AtomicBool::new(false),
    })
}

/// Waits until a download's staging memory is mapped.
fn wait_mapped(p: &PendingDownload) -> Result<()> {
    if p.mapped.lock().is_none() {
        p.device.wait_for(&p.index)?;
    }
    if p.mapped.lock().is_none() {
        p.device.poll_until_idle()?;
    }
    p.device.check_loop_guard()?;
    let mapped = p.mapped.lock().take();
    match mapped {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(Error::Runtime(format!("cannot read device memory: {e}"))),
        None => Err(Error::Runtime("a download never completed".to_string())),
    }
}

/// Waits for a download and copies its bytes to the start of `out` (in
/// order) and, if given, into `host`.
fn finish_into(p: &PendingDownload, out: &mut [u8], mut host: Option<&mut HostMem>) -> Result<()> {
    wait_mapped(p)?;
    {
        let data = p
            .staging
            .get_mapped_range(..)
            .map_err(|e| Error::Runtime(format!("cannot read device memory: {e}")))?;
        let mut at = 0;
        for r in p.ranges.ranges() {
            let lo = (r.start - p.hull_start) as usize;
            let len = (r.end - r.start) as usize;
            match host.as_deref_mut() {
                // The staging memory read once, into both.
                Some(host) => copy_bytes_twice(
                    &mut out[at..at + len],
                    host_mem_mut(host, r.clone())?,
                    &data[lo..lo + len],
                ),
                None => copy_bytes(&mut out[at..at + len], &data[lo..lo + len]),
            }
            at += len;
        }
    }
    p.staging.unmap();
    p.read.store(true, Ordering::Release);
    Ok(())
}

/// Waits for every pending download and writes what is still current into
/// host memory, which becomes valid there.
fn finish_pending(st: &mut State) -> Result<()> {
    for p in std::mem::take(&mut st.pending) {
        wait_mapped(&p)?;
        {
            let data = p
                .staging
                .get_mapped_range(..)
                .map_err(|e| Error::Runtime(format!("cannot read device memory: {e}")))?;
            for r in p.ranges.ranges() {
                let lo = (r.start - p.hull_start) as usize;
                let hi = (r.end - p.hull_start) as usize;
                write_host_mem(&mut st.host, r.clone(), &data[lo..hi])?;
            }
        }
        p.staging.unmap();
        p.read.store(true, Ordering::Release);
        st.host_valid.union_with(&p.ranges);
    }
    Ok(())
}

/// Tells the user that a dropped view's data could not be written back to
/// its host source (the host slice keeps its old contents): on standard
/// error, always, and in the log.
fn report_lost_write_back(e: &Error) {
    log::error!("a view's results were not written back when it dropped: {e}");
    eprintln!(
        "amp-rs: error: a writable ArrayView dropped without its results: {e}\n\
         amp-rs: its host data keeps its old contents; call `synchronize()?` on the view \
         before it drops to handle this error (a destructor cannot return it)"
    );
}
