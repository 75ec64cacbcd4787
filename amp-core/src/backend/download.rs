//! Device-to-host downloads through staging memory that stays allocated,
//! pipelined.
//!
//! A blocking download of one staging buffer at a time (copy, wait, map,
//! read, unmap) leaves the device idle while the host reads and the host
//! idle while the device copies, and allocates its staging every time. A
//! [`DownloadRing`] keeps a few mappable buffers per device and keeps
//! several copies in flight: while the host reads one slot, the device
//! fills the next ones. The host receives the pieces in order.

use std::sync::Arc;

use parking_lot::Mutex;

use super::device::DeviceContext;
use crate::{Error, Result};

/// Bytes per staging slot (a multiple of 4: GPU copies move words).
const SLOT_BYTES: u64 = 16 * 1024 * 1024;

/// Slots per device: copies in flight while the host reads.
const SLOTS: usize = 4;

/// Downloads smaller than this use one staging buffer of their own.
pub(crate) const RING_MIN_BYTES: u64 = 256 * 1024;

/// A device's download staging slots (created on first use).
#[derive(Default)]
pub(crate) struct DownloadRing {
    slots: Mutex<Vec<wgpu::Buffer>>,
}

/// A slot's copy in flight: the slot, the source bytes it holds, its
/// submission and the result of its mapping.
struct InFlight {
    slot: usize,
    at: u64,
    len: u64,
    index: wgpu::SubmissionIndex,
    mapped: Arc<Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>>,
}

impl DownloadRing {
    /// Reads `ranges` of `source` (word-aligned, in order), handing
    /// `take(at, bytes)` the bytes that start at `at`, in order, while they
    /// are mapped.
    ///
    /// # Errors
    ///
    /// Device loss, staging memory that cannot be allocated or mapped, or
    /// what `take` returns (the copies still in flight are waited for
    /// first).
    pub(crate) fn read(
        &self,
        ctx: &DeviceContext,
        source: &wgpu::Buffer,
        ranges: &[std::ops::Range<u64>],
        mut take: impl FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut slots = self.slots.lock();
        while slots.len() < SLOTS {
            slots.push(ctx.staging_buffer(SLOT_BYTES, "amp-rs download staging")?);
        }
        // The pieces to copy: each range in slot-sized parts.
        let mut pieces = ranges.iter().flat_map(|r| {
            debug_assert!(r.start % 4 == 0 && r.end % 4 == 0, "whole words");
            (r.start..r.end)
                .step_by(SLOT_BYTES as usize)
                .map(move |s| (s, (r.end - s).min(SLOT_BYTES)))
        });
        let mut pending: std::collections::VecDeque<InFlight> = Default::default();
        let mut outcome = Ok(());
        loop {
            // Keep every slot busy while there is more to copy.
            while outcome.is_ok() && pending.len() < SLOTS {
                let Some((at, len)) = pieces.next() else {
                    break;
                };
                if let Err(e) = ctx.check() {
                    outcome = Err(e);
                    break;
                }
                let slot = (0..SLOTS)
                    .find(|s| pending.iter().all(|p| p.slot != *s))
                    .expect("a free slot");
                let mut encoder =
                    ctx.device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("amp-rs download"),
                        });
                encoder.copy_buffer_to_buffer(source, at, &slots[slot], 0, len);
                let index = ctx.queue.submit([encoder.finish()]);
                let mapped = Arc::new(Mutex::new(None));
                let flag = Arc::clone(&mapped);
                slots[slot].map_async(wgpu::MapMode::Read, 0..len, move |r| *flag.lock() = Some(r));
                pending.push_back(InFlight {
                    slot,
                    at,
                    len,
                    index,
                    mapped,
                });
            }
            let Some(p) = pending.pop_front() else {
                break;
            };
            let step = Self::finish(ctx, &slots[p.slot], &p, outcome.is_ok(), &mut take);
            if outcome.is_ok() {
                outcome = step;
            }
        }
        if outcome.is_err() {
            // A slot may be left mapping: new ones are made next time.
            slots.clear();
        }
        outcome
    }

    /// Waits for `p`'s mapping, hands its bytes to `take` (if `deliver`),
    /// and unmaps the slot.
    fn finish(
        ctx: &DeviceContext,
        slot: &wgpu::Buffer,
        p: &InFlight,
        deliver: bool,
        take: &mut impl FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        if p.mapped.lock().is_none() {
            ctx.wait_for(&p.index)?;
        }
        if p.mapped.lock().is_none() {
            // The callback runs during a poll.
            ctx.poll_until_idle()?;
        }
        let mapped = p.mapped.lock().take();
        match mapped {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                return Err(ctx
                    .check()
                    .err()
                    .unwrap_or_else(|| Error::Runtime(format!("cannot read device memory: {e}"))));
            }
            None => return Err(Error::Runtime("a download never completed".to_string())),
        }
        let result = if deliver {
            match slot.get_mapped_range(0..p.len) {
                Ok(data) => take(p.at, &data),
                Err(e) => Err(Error::Runtime(format!("cannot read device memory: {e}"))),
            }
        } else {
            Ok(())
        };
        slot.unmap();
        result
    }
}
