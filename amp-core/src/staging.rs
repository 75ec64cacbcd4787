//! Staging arrays: arrays on the CPU accelerator, associated with a GPU
//! view, whose transfers to and from arrays on that view go through
//! mappable buffers (one copy each way, no intermediate host buffer: the
//! CPU copy's words are written into the mapped buffer directly).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use parking_lot::Mutex;

use crate::backend::device::DeviceContext;
use crate::backend::storage::{DeviceBinding, Storage};
use crate::range_set::RangeSet;
use crate::{AcceleratorView, Error, Result};

/// The mappable buffers of one staging array on its associated device,
/// created on first transfer and reused.
pub(crate) struct Staging {
    pub(crate) associated: AcceleratorView,
    upload: Mutex<Option<wgpu::Buffer>>,
    download: Mutex<Option<wgpu::Buffer>>,
}

impl Staging {
    pub(crate) fn new(associated: AcceleratorView) -> Staging {
        Staging {
            associated,
            upload: Mutex::new(None),
            download: Mutex::new(None),
        }
    }
}

/// Maps `buffer` for `mode`, waiting for the device's work through the
/// device's own wait: device loss and llvmpipe's loop guard (a kernel
/// before the copy that neared the loop limit) are reported here too.
fn mapped(device: &DeviceContext, buffer: &wgpu::Buffer, mode: wgpu::MapMode) -> Result<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(mode, .., move |r| {
        let _ = tx.send(r);
    });
    device.poll_until_idle()?;
    device.check_loop_guard()?;
    rx.recv()
        .map_err(|_| Error::Runtime("staging buffer mapping was cancelled".to_string()))?
        .map_err(|e| {
            device
                .check()
                .err()
                .unwrap_or_else(|| Error::Runtime(format!("cannot map a staging buffer: {e}")))
        })
}

/// Copies the whole staging array `src` (on the CPU accelerator) into the
/// whole GPU array `dst` on the staging array's associated device.
pub(crate) fn upload(
    staging: &Staging,
    src: &Arc<Storage>,
    dst: &Arc<Storage>,
    view: &AcceleratorView,
) -> Result<()> {
    let bytes = src.bytes();
    let region = RangeSet::from_range(0..bytes);
    let cpu_view = crate::Accelerator::cpu().default_view();
    let DeviceBinding::Cpu(from) = src.use_on(&region, &cpu_view, false, false)? else {
        return Err(Error::Runtime(
            "a staging array is not on the CPU".to_string(),
        ));
    };
    if bytes == 0 {
        return dst.use_on(&region, view, true, true).map(drop);
    }
    let Some(device) = view.accelerator().device()? else {
        return Err(Error::Runtime(
            "the destination is not on a GPU".to_string(),
        ));
    };
    let mut slot = staging.upload.lock();
    let buffer = match slot.take() {
        Some(b) => {
            mapped(device, &b, wgpu::MapMode::Write)?;
            b
        }
        None => device.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("amp-rs staging upload"),
            size: bytes.next_multiple_of(4),
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        }),
    };
    {
        // Straight from the CPU copy's words into the mapped buffer.
        let mut range = buffer
            .get_mapped_range_mut(..)
            .map_err(|e| Error::Runtime(format!("cannot write a staging buffer: {e}")))?;
        let (words, _) = range
            .slice(..bytes.next_multiple_of(4) as usize)
            .into_chunks::<4>();
        words.write_iter(
            from.access(crate::backend::cpu_gate::Mode::AtomicRead)[..bytes.div_ceil(4) as usize]
                .iter()
                .map(|w| w.load(Ordering::Relaxed).to_ne_bytes()),
        );
    }
    buffer.unmap();
    // The destination becomes the valid location only now, with nothing
    // left to fail before the copy is recorded but the device itself (whose
    // loss then fails every later read of the data).
    let to = match dst.use_on(&region, view, true, true) {
        Ok(DeviceBinding::Gpu(to)) => to,
        Ok(DeviceBinding::Cpu(_)) => {
            *slot = Some(buffer);
            return Err(Error::Runtime(
                "the destination is not on a GPU".to_string(),
            ));
        }
        Err(e) => {
            *slot = Some(buffer);
            return Err(e);
        }
    };
    let result = view.record(
        |_, encoder| {
            encoder.copy_buffer_to_buffer(&buffer, 0, &to, 0, bytes.next_multiple_of(4));
            Ok(())
        },
        || Ok(()),
        None,
    );
    // Submit now: the buffer is rewritten by the next upload, which must
    // not overtake this copy.
    let result = result.and_then(|()| view.flush());
    *slot = Some(buffer);
    view.transfer_counters().upload_bytes(bytes);
    result
}

/// Copies the whole GPU array `src` (on the staging array's associated
/// device) into the whole staging array `dst`.
pub(crate) fn download(
    staging: &Staging,
    src: &Arc<Storage>,
    dst: &Arc<Storage>,
    view: &AcceleratorView,
) -> Result<()> {
    let bytes = src.bytes();
    let region = RangeSet::from_range(0..bytes);
    let DeviceBinding::Gpu(from) = src.use_on(&region, view, false, false)? else {
        return Err(Error::Runtime("the source is not on a GPU".to_string()));
    };
    let cpu_view = crate::Accelerator::cpu().default_view();
    if bytes == 0 {
        return dst.use_on(&region, &cpu_view, true, true).map(drop);
    }
    let Some(device) = view.accelerator().device()? else {
        return Err(Error::Runtime("the source is not on a GPU".to_string()));
    };
    let mut slot = staging.download.lock();
    let buffer = slot.take().unwrap_or_else(|| {
        device.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("amp-rs staging download"),
            size: bytes.next_multiple_of(4),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    });
    let copied = view
        .record(
            |_, encoder| {
                encoder.copy_buffer_to_buffer(&from, 0, &buffer, 0, bytes.next_multiple_of(4));
                Ok(())
            },
            || Ok(()),
            None,
        )
        .and_then(|()| view.flush())
        .and_then(|()| mapped(device, &buffer, wgpu::MapMode::Read));
    if let Err(e) = copied {
        // Nothing reached the destination, whose record is unchanged.
        *slot = Some(buffer);
        return Err(e);
    }
    // The bytes are here: the destination becomes the valid location (not
    // before, so that a failure above leaves no record of data it never
    // received).
    let to = match dst.use_on(&region, &cpu_view, true, true) {
        Ok(DeviceBinding::Cpu(to)) => to,
        other => {
            buffer.unmap();
            *slot = Some(buffer);
            return match other {
                Err(e) => Err(e),
                Ok(_) => Err(Error::Runtime(
                    "a staging array is not on the CPU".to_string(),
                )),
            };
        }
    };
    {
        let range = buffer
            .get_mapped_range(..)
            .map_err(|e| Error::Runtime(format!("cannot read a staging buffer: {e}")))?;
        let words: &[u32] = bytemuck::cast_slice(&range[..bytes.next_multiple_of(4) as usize]);
        let to = to.access(crate::backend::cpu_gate::Mode::AtomicWrite);
        for (w, v) in to.iter().zip(words) {
            w.store(*v, Ordering::Relaxed);
        }
    }
    buffer.unmap();
    *slot = Some(buffer);
    view.transfer_counters().download_bytes(bytes);
    Ok(())
}
