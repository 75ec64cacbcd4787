//! Device buffers kept after their container is dropped, for the next
//! container of the same size; and downloads' staging buffers, for the next
//! download of the same size.
//!
//! Creating a large buffer is slow where reusing one is not: on an H200 a
//! new 256 MiB `Array` cost 9-10 ms before its first kernel could run
//! (`docs/benchmarks.md`), as long as uploading 256 MiB, and a program that
//! makes its containers in a loop (a product cut in row pieces, a view per
//! frame) paid it every round. A [`BufferPool`] per device keeps the buffers
//! of dropped containers, up to a byte budget, and hands one of exactly the
//! requested size back instead of creating another; it is cleared to zeros
//! on the queue first, as a new buffer would read (queue order puts the
//! clear after every command that used the buffer before and before every
//! command that uses it next). A download's staging buffer (mappable host
//! memory, whose creation pins pages) goes back once read and unmapped.
//! Small buffers are not kept: creating them is cheap.
//!
//! The budget is 2 GiB per device on hardware adapters and 256 MiB on
//! software ones (whose device memory is the host's), or
//! `AMP_BUFFER_CACHE_MB` mebibytes (`0`: keep none). An allocation that
//! fails for lack of memory empties the pool and is tried once more.

use std::collections::VecDeque;

use parking_lot::Mutex;

use super::device::DeviceContext;

/// Buffers smaller than this are not kept.
pub(crate) const MIN_POOLED_BYTES: u64 = 1024 * 1024;

/// The default budget on hardware adapters.
const HARDWARE_BUDGET: u64 = 2 << 30;

/// The default budget on software adapters (lavapipe).
const SOFTWARE_BUDGET: u64 = 256 << 20;

/// A device's kept buffers (see the module documentation).
#[derive(Default)]
pub(crate) struct BufferPool {
    state: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    /// Oldest first.
    buffers: VecDeque<wgpu::Buffer>,
    bytes: u64,
}

/// The budget of a device: `AMP_BUFFER_CACHE_MB` where it is a number,
/// else by the kind of adapter.
fn budget(ctx: &DeviceContext) -> u64 {
    static FROM_ENV: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    let from_env = FROM_ENV.get_or_init(|| {
        let v = std::env::var("AMP_BUFFER_CACHE_MB").ok()?;
        match v.trim().parse::<u64>() {
            Ok(mb) => Some(mb.saturating_mul(1 << 20)),
            Err(_) => {
                log::warn!("AMP_BUFFER_CACHE_MB={v:?} is not a number; ignored");
                None
            }
        }
    });
    if let Some(bytes) = from_env {
        return *bytes;
    }
    if ctx.is_software() {
        SOFTWARE_BUDGET
    } else {
        HARDWARE_BUDGET
    }
}

impl BufferPool {
    /// A kept buffer of exactly `size` bytes and `usage`, or `None`; where
    /// `clear`, cleared to zeros on the queue first (a download's staging
    /// needs no clear: only what a copy wrote into it is read).
    pub(crate) fn take(
        &self,
        ctx: &DeviceContext,
        size: u64,
        usage: wgpu::BufferUsages,
        clear: bool,
    ) -> Option<wgpu::Buffer> {
        if size < MIN_POOLED_BYTES {
            return None;
        }
        let buffer = {
            let mut kept = self.state.lock();
            // The most recently kept first: the likeliest to be warm.
            let at = kept
                .buffers
                .iter()
                .rposition(|b| b.size() == size && b.usage() == usage)?;
            let buffer = kept.buffers.remove(at)?;
            kept.bytes -= size;
            buffer
        };
        if !clear {
            return Some(buffer);
        }
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("amp-rs reused buffer clear"),
            });
        encoder.clear_buffer(&buffer, 0, None);
        ctx.queue.submit([encoder.finish()]);
        Some(buffer)
    }

    /// Whether a dropped buffer of `size` bytes would be kept.
    pub(crate) fn keeps(ctx: &DeviceContext, size: u64) -> bool {
        size >= MIN_POOLED_BYTES && size <= budget(ctx) && ctx.check().is_ok()
    }

    /// Keeps `buffer` (of a dropped container, or a download's staging
    /// once read and unmapped) for a later [`take`](Self::take), dropping
    /// the oldest kept ones beyond the budget.
    pub(crate) fn give(&self, ctx: &DeviceContext, buffer: wgpu::Buffer) {
        let size = buffer.size();
        if !Self::keeps(ctx, size) {
            return;
        }
        let budget = budget(ctx);
        let mut kept = self.state.lock();
        kept.bytes += size;
        kept.buffers.push_back(buffer);
        while kept.bytes > budget {
            let Some(old) = kept.buffers.pop_front() else {
                break;
            };
            kept.bytes -= old.size();
        }
    }

    /// Creates a buffer (none is kept for it): one that runs out of memory
    /// empties the pool and is tried once more; the error of the last try.
    pub(crate) fn create(
        &self,
        ctx: &DeviceContext,
        desc: &wgpu::BufferDescriptor<'_>,
    ) -> Result<wgpu::Buffer, wgpu::Error> {
        let create = || {
            let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let buffer = ctx.device.create_buffer(desc);
            match futures::executor::block_on(scope.pop()) {
                Some(e) => Err(e),
                None => Ok(buffer),
            }
        };
        create().or_else(|_| {
            self.empty();
            create()
        })
    }

    /// Drops every kept buffer (an allocation ran out of memory).
    pub(crate) fn empty(&self) {
        let mut kept = self.state.lock();
        kept.buffers.clear();
        kept.bytes = 0;
    }
}
