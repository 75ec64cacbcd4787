//! Host-to-device uploads through staging memory that stays allocated.
//!
//! `wgpu::Queue::write_buffer` stages every call in a buffer of its own,
//! allocated (and, on discrete GPUs, pinned) for that call, and keeps it
//! until the next submission: large uploads then run at the speed of
//! allocating and faulting in fresh host-visible memory (1.7 to 2.3 GB/s
//! measured on an H200, where PyTorch's pageable copies reach 7.1 GB/s,
//! `docs/benchmarks.md`). An [`UploadRing`] keeps a few mappable staging
//! buffers per device and cycles through them: the caller fills a mapped
//! slot straight from host memory (one copy), the slot's contents are
//! copied to the target on the queue, and the slot is mapped again while
//! the next slots are filled, so that host copies overlap the device's
//! copies. A slot is filled by several threads (`host_copy`'s pool), each
//! copying a part of it. Submissions are queue-ordered, so an upload lands after every
//! command submitted before it and before every command submitted after
//! it, as `write_buffer`'s did.

use std::sync::Arc;

use parking_lot::Mutex;

use super::device::DeviceContext;
use crate::{Error, Result};

/// Bytes per staging slot (a multiple of 4: GPU copies move words).
const SLOT_BYTES: u64 = 16 * 1024 * 1024;

/// Slots per device: while one is filled, the others are being copied.
const SLOTS: usize = 4;

/// Uploads smaller than this go through `write_buffer`, whose staging is
/// cheap at that size and needs no submission of its own.
pub(crate) const RING_MIN_BYTES: u64 = 256 * 1024;

/// A part of a mapped staging slot, handed to one thread.
struct Part<'a>(wgpu::WriteOnly<'a, [u8]>);

// SAFETY: a `WriteOnly<[u8]>` is an exclusive reference to bytes of mapped
// memory, as `&mut [u8]` is, and `&mut [u8]` is `Send`; wgpu implements
// `Send` for `WriteOnly<T>` only where `T` is sized.
unsafe impl Send for Part<'_> {}

/// Writes `bytes` (`None`: zeros) into `head`, with several threads where
/// it is large.
fn fill(mut head: wgpu::WriteOnly<'_, [u8]>, bytes: Option<&[u8]>) {
    use super::host_copy::{PARALLEL_MIN_BYTES, PART_BYTES};
    if head.len() < PARALLEL_MIN_BYTES {
        match bytes {
            Some(b) => head.copy_from_slice(b),
            None => head.fill(0),
        }
        return;
    }
    let mut parts = Vec::with_capacity(head.len().div_ceil(PART_BYTES));
    let mut at = 0;
    while !head.is_empty() {
        let k = head.len().min(PART_BYTES);
        let (part, rest) = head.split_at(k);
        let n = part.len();
        parts.push((Part(part), at));
        at += n;
        head = rest;
    }
    super::host_copy::for_each(parts, |(Part(mut part), at)| match bytes {
        Some(b) => part.copy_from_slice(&b[at..at + part.len()]),
        None => part.fill(0),
    });
}

/// A device's staging slots (created on first use).
#[derive(Default)]
pub(crate) struct UploadRing {
    state: Mutex<Ring>,
}

#[derive(Default)]
struct Ring {
    slots: Vec<Slot>,
    next: usize,
}

/// One staging buffer: mapped and free, or copied by a submission and
/// mapping again.
struct Slot {
    buffer: wgpu::Buffer,
    /// The result of the mapping requested after its last submission.
    mapped: Arc<Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>>,
    /// The submission that copies out of it, while not yet known mapped.
    submitted: Option<wgpu::SubmissionIndex>,
}

impl Slot {
    fn new(ctx: &DeviceContext) -> Result<Slot> {
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("amp-rs upload staging"),
            size: SLOT_BYTES,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        if let Some(e) = futures::executor::block_on(scope.pop()) {
            return Err(Error::OutOfMemory {
                accelerator: "a GPU accelerator".to_string(),
                detail: format!("cannot allocate {SLOT_BYTES} bytes of upload staging: {e}"),
            });
        }
        Ok(Slot {
            buffer,
            mapped: Arc::new(Mutex::new(None)),
            submitted: None,
        })
    }

    /// Waits until the slot is mapped (its last copy done).
    fn ready(&mut self, ctx: &DeviceContext) -> Result<()> {
        let Some(index) = self.submitted.take() else {
            return Ok(());
        };
        if self.mapped.lock().is_none() {
            ctx.wait_for(&index)?;
        }
        if self.mapped.lock().is_none() {
            // The callback runs during a poll.
            ctx.poll_until_idle()?;
        }
        match self.mapped.lock().take() {
            Some(Ok(())) => Ok(()),
            Some(Err(e)) => Err(ctx.check().err().unwrap_or_else(|| {
                Error::Runtime(format!("cannot map upload staging memory: {e}"))
            })),
            None => Err(Error::Runtime(
                "upload staging memory was never mapped".to_string(),
            )),
        }
    }
}

impl UploadRing {
    /// Writes `len` bytes at `offset` of `target` (a word multiple, or
    /// the target's end): `source(pos, n)` gives the `n` bytes at `offset +
    /// pos` (`None`: zeros), copied once, into staging; past `len`, up to a
    /// whole word, zeros.
    ///
    /// # Errors
    ///
    /// Device loss, or staging memory that cannot be allocated or mapped;
    /// what was written before stays written.
    pub(crate) fn write<'h>(
        &self,
        ctx: &DeviceContext,
        target: &wgpu::Buffer,
        offset: u64,
        len: u64,
        mut source: impl FnMut(u64, usize) -> Option<&'h [u8]>,
    ) -> Result<()> {
        debug_assert_eq!(offset % 4, 0, "GPU copies start on a word");
        let total = len.next_multiple_of(4);
        let mut ring = self.state.lock();
        let mut pos = 0;
        while pos < total {
            ctx.check()?;
            let n = (total - pos).min(SLOT_BYTES);
            let k = ring.next;
            ring.next = (k + 1) % SLOTS;
            if ring.slots.len() <= k {
                ring.slots.push(Slot::new(ctx)?);
            }
            if let Err(e) = ring.slots[k].ready(ctx) {
                // Never mapped again: a new slot takes its place next time.
                ring.slots.truncate(k);
                ring.next = k;
                return Err(e);
            }
            let slot = &mut ring.slots[k];
            {
                let mut view = slot.buffer.get_mapped_range_mut(0..n).map_err(|e| {
                    Error::Runtime(format!("cannot write upload staging memory: {e}"))
                })?;
                let held = (len.saturating_sub(pos)).min(n) as usize;
                let (head, mut pad) = view.slice(..).split_at(held);
                fill(head, source(pos, held));
                pad.fill(0);
            }
            slot.buffer.unmap();
            let mut encoder = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("amp-rs upload"),
                });
            encoder.copy_buffer_to_buffer(&slot.buffer, 0, target, offset + pos, n);
            let index = ctx.queue.submit([encoder.finish()]);
            let flag = Arc::clone(&slot.mapped);
            *flag.lock() = None;
            slot.buffer
                .map_async(wgpu::MapMode::Write, .., move |r| *flag.lock() = Some(r));
            slot.submitted = Some(index);
            pos += n;
        }
        Ok(())
    }
}
