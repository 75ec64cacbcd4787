//! Implementation details used by generated code and by the project's own
//! tests. Not part of the public API: anything here may change without notice.

use crate::{AcceleratorView, Result};

/// Records one probe command on `view`: on a GPU, a clear of a small scratch
/// buffer; on the CPU, a host command. `on_run` is called when the command's
/// batch is submitted (GPU) or executed (CPU).
pub fn enqueue_probe_command(
    view: &AcceleratorView,
    on_run: impl FnOnce() + Send + 'static,
) -> Result<()> {
    view.record(
        |device, encoder| {
            encoder.clear_buffer(device.scratch_buffer(), 0, None);
            Ok(())
        },
        || Ok(()),
        Some(Box::new(on_run)),
    )
}

/// Destroys the device of `view`'s accelerator, as a driver reset would.
/// Does nothing on the CPU accelerator. The accelerator stays unusable for
/// the rest of the process.
pub fn destroy_device(view: &AcceleratorView) -> Result<()> {
    if let Some(device) = view.accelerator().device()? {
        device.destroy();
    }
    Ok(())
}
