//! [`KernelTiming`]: how long a kernel launch ran on its accelerator, and
//! the per-view log that collects them.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

use crate::Result;
use crate::backend::device::DeviceContext;
use amp_ir::Span;

/// How long one kernel launch ran on its accelerator.
///
/// On a GPU, the time between the GPU timestamps written at the start and
/// at the end of the kernel's compute pass: the device's own measure of the
/// kernel, without the submission and the wait around it. On the CPU
/// accelerator, the wall-clock time from the kernel's start to its end on
/// the worker threads.
///
/// Collected by an [`AcceleratorView`](crate::AcceleratorView) after
/// [`set_kernel_timing(true)`](crate::AcceleratorView::set_kernel_timing),
/// read with [`kernel_timings`](crate::AcceleratorView::kernel_timings).
/// C++ AMP has no counterpart (its users reach for the Concurrency
/// Visualizer or DirectX timestamp queries).
///
/// # Examples
///
/// ```
/// use amp_core::prelude::*;
///
/// let view = Accelerator::default()?.default_view();
/// view.set_kernel_timing(true)?;
/// let out = Array::<i32, 1>::new([1024], &view)?;
/// parallel_for_each!(view, out.extent(), |idx: Index<1>| {
///     out[idx] = idx[0] * 2;
/// })?;
/// let timings = view.kernel_timings()?;
/// assert_eq!(timings.len(), 1);
/// assert!(timings[0].file.ends_with(".rs"));
/// println!("{}", timings[0]); // e.g. "src/main.rs:8:1: 0.012 ms"
/// # Ok::<(), amp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct KernelTiming {
    /// The source file of the kernel's `parallel_for_each!`, as `file!()`
    /// names it.
    pub file: &'static str,
    /// Its 1-based line.
    pub line: u32,
    /// Its 1-based column.
    pub column: u32,
    /// How long the kernel ran.
    pub duration: Duration,
}

impl fmt::Display for KernelTiming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {:.3} ms",
            self.file,
            self.line,
            self.column,
            self.duration.as_secs_f64() * 1e3
        )
    }
}

/// A launch whose timing is known, or still in GPU memory.
enum Entry {
    Known(KernelTiming),
    /// The two resolved GPU timestamps (16 bytes) of a launch.
    Gpu {
        span: Span,
        device: Arc<DeviceContext>,
        resolved: wgpu::Buffer,
    },
}

/// The timings a view collects while timing is on.
#[derive(Default)]
pub(crate) struct TimingLog {
    enabled: AtomicBool,
    entries: Mutex<Vec<Entry>>,
}

impl TimingLog {
    pub(crate) fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Release);
    }

    pub(crate) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    /// Records a CPU kernel's run.
    pub(crate) fn push_cpu(&self, span: Span, duration: Duration) {
        self.entries.lock().push(Entry::Known(KernelTiming {
            file: span.file,
            line: span.line,
            column: span.column,
            duration,
        }));
    }

    /// Begins a timed GPU launch: the compute pass descriptor's timestamp
    /// writes, and what [`end_gpu`](Self::end_gpu) resolves after the pass.
    pub(crate) fn begin_gpu(device: &DeviceContext) -> wgpu::QuerySet {
        device.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("amp-rs kernel timing"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        })
    }

    /// Resolves a timed launch's timestamps after its pass and logs them.
    pub(crate) fn end_gpu(
        &self,
        span: Span,
        device: &Arc<DeviceContext>,
        encoder: &mut wgpu::CommandEncoder,
        queries: &wgpu::QuerySet,
    ) {
        let resolved = device.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("amp-rs kernel timing"),
            size: 16,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        encoder.resolve_query_set(queries, 0..2, &resolved, 0);
        self.entries.lock().push(Entry::Gpu {
            span,
            device: Arc::clone(device),
            resolved,
        });
    }

    /// Every timing logged so far, in launch order, reading GPU timestamps
    /// back (the caller has waited for the launches); the log is emptied.
    pub(crate) fn drain(&self) -> Result<Vec<KernelTiming>> {
        let entries = std::mem::take(&mut *self.entries.lock());
        let mut out = Vec::with_capacity(entries.len());
        for entry in entries {
            match entry {
                Entry::Known(t) => out.push(t),
                Entry::Gpu {
                    span,
                    device,
                    resolved,
                } => {
                    let mut ticks = [0u64; 2];
                    device.read_buffer(&resolved, 0..16, |data| {
                        ticks[0] = u64::from_ne_bytes(data[0..8].try_into().unwrap_or_default());
                        ticks[1] = u64::from_ne_bytes(data[8..16].try_into().unwrap_or_default());
                        Ok(())
                    })?;
                    let period = f64::from(device.queue.get_timestamp_period());
                    let nanos = ticks[1].saturating_sub(ticks[0]) as f64 * period;
                    out.push(KernelTiming {
                        file: span.file,
                        line: span.line,
                        column: span.column,
                        duration: Duration::from_nanos(nanos.round() as u64),
                    });
                }
            }
        }
        Ok(out)
    }
}
