//! [`AcceleratorView`]: an ordered command queue on one accelerator.
//!
//! A view records commands (copies, kernel launches) in order. On a GPU
//! accelerator they go into a wgpu command encoder; on the CPU accelerator
//! they are host closures. [`QueuingMode::Immediate`] submits each command as
//! it is recorded; [`QueuingMode::Automatic`] keeps a batch and submits it on
//! `flush`, `wait`, `create_marker`, host access that needs results, or when
//! the batch grows past [`AUTOMATIC_MAX_COMMANDS`] commands or gets older
//! than [`AUTOMATIC_MAX_AGE`] (checked whenever a command is recorded).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::backend::device::DeviceContext;
use crate::backend::failure::{Channel, Failure, Failures};
use crate::backend::storage::{CpuMem, TransferCounters};
use crate::kernel::cancel::{self, CancelToken, Panic};
use crate::kernel_timing::TimingLog;
use crate::{Accelerator, CompletionFuture, Error, KernelTiming, QueuingMode, Result};

/// An automatic-mode batch is submitted once it holds this many commands.
pub(crate) const AUTOMATIC_MAX_COMMANDS: u32 = 256;
/// An automatic-mode batch older than this is submitted when the next command
/// is recorded.
pub(crate) const AUTOMATIC_MAX_AGE: Duration = Duration::from_millis(2);

/// A host command of the CPU accelerator: what it runs, the CPU memory it
/// writes (where its failure is recorded), and where the launch that
/// recorded it looks for its failure.
struct HostCommand {
    run: Box<dyn FnOnce() -> Result<()> + Send>,
    written: Vec<Arc<CpuMem>>,
    own: Option<Arc<std::sync::OnceLock<Arc<Failure>>>>,
    /// The view's cancel epoch when it was recorded.
    epoch: u64,
}
/// A callback run when the batch holding its command is submitted.
type OnSubmit = Box<dyn FnOnce() + Send>;

/// An ordered command queue on an [`Accelerator`], with a [`QueuingMode`].
///
/// A cheap handle: clones share one queue, and it is `Send + Sync`, so many
/// threads may record into one view at once (each command is recorded
/// atomically, in the order the threads get to it).
///
/// Corresponds to C++ AMP `accelerator_view`.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, QueuingMode};
///
/// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
/// view.flush()?;
/// view.create_marker()?.wait()?;
/// view.wait()?;
/// # Ok::<(), amp_core::Error>(())
/// ```
#[derive(Clone)]
pub struct AcceleratorView {
    inner: Arc<ViewInner>,
}

struct ViewInner {
    id: u64,
    accelerator: Accelerator,
    mode: QueuingMode,
    queue: Mutex<Queue>,
    /// The order of the CPU view's host batches.
    host_order: HostOrder,
    transfers: TransferCounters,
    /// Failures of the view's host commands not yet reported.
    failures: Failures,
    /// Bumped by `cancel`: host commands recorded before it stop.
    cancel_epoch: Arc<AtomicU64>,
    /// How long one host command may run (`set_timeout`).
    timeout: Mutex<Option<Duration>>,
    /// Kernel timings, while `set_kernel_timing` is on.
    timing: Arc<TimingLog>,
}

/// Runs a CPU view's host batches one at a time, in submission order,
/// whichever threads submitted them; `flush`, `wait` and markers wait for
/// every batch submitted before them, also those another thread runs.
#[derive(Default)]
struct HostOrder {
    /// Batches `0..served` have finished.
    served: Mutex<u64>,
    finished: parking_lot::Condvar,
}

/// A submitted batch of host commands and its place in the view's order.
struct HostBatch {
    ticket: u64,
    commands: Vec<HostCommand>,
}

/// The recording state of one view.
#[derive(Default)]
struct Queue {
    batch: Batch,
    /// Commands in `batch`.
    pending: u32,
    /// When the first command of `batch` was recorded.
    batch_started: Option<Instant>,
    /// The age past which an automatic batch is submitted
    /// ([`AUTOMATIC_MAX_AGE`] unless a test changed it).
    max_age: Duration,
    /// The last GPU submission of this view.
    last_submission: Option<wgpu::SubmissionIndex>,
    /// Host batches submitted so far (each one's ticket is its number).
    host_tickets: u64,
    stats: ViewStatistics,
}

#[derive(Default)]
enum Batch {
    #[default]
    Empty,
    Gpu {
        encoder: wgpu::CommandEncoder,
        on_submit: Vec<OnSubmit>,
    },
    Host(Vec<HostCommand>),
}

/// Counters of what a view recorded and submitted, for tests and tuning.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, QueuingMode};
///
/// let view = Accelerator::cpu().create_view(QueuingMode::Automatic);
/// let stats = view.statistics();
/// assert_eq!(stats.commands, 0);
/// assert_eq!(stats.submissions, 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct ViewStatistics {
    /// Commands recorded on the view so far.
    pub commands: u64,
    /// Batches submitted to the device (on the CPU accelerator: executed).
    pub submissions: u64,
    /// Commands recorded but not yet submitted.
    pub pending: u32,
}

/// Counters of the data transfers between the host and a view's
/// accelerator that the view caused, in each direction.
///
/// Transfers happen only when a reader needs data that is stale where it
/// reads, so these counters prove laziness: a read-only input is uploaded
/// once, a discarded output is never uploaded, a result is downloaded once.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, QueuingMode};
///
/// let view = Accelerator::cpu().create_view(QueuingMode::Automatic);
/// let t = view.transfers();
/// assert_eq!((t.uploads, t.downloads), (0, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct TransferStatistics {
    /// Host-to-accelerator transfers.
    pub uploads: u64,
    /// Bytes moved host-to-accelerator.
    pub bytes_uploaded: u64,
    /// Accelerator-to-host transfers.
    pub downloads: u64,
    /// Bytes moved accelerator-to-host.
    pub bytes_downloaded: u64,
}

static NEXT_VIEW_ID: AtomicU64 = AtomicU64::new(1);

impl AcceleratorView {
    pub(crate) fn new(accelerator: Accelerator, mode: QueuingMode) -> AcceleratorView {
        AcceleratorView {
            inner: Arc::new(ViewInner {
                id: NEXT_VIEW_ID.fetch_add(1, Ordering::Relaxed),
                accelerator,
                mode,
                queue: Mutex::new(Queue {
                    max_age: AUTOMATIC_MAX_AGE,
                    ..Queue::default()
                }),
                host_order: HostOrder::default(),
                transfers: TransferCounters::default(),
                failures: Failures::new(Channel::View),
                cancel_epoch: Arc::new(AtomicU64::new(0)),
                timeout: Mutex::new(None),
                timing: Arc::default(),
            }),
        }
    }

    /// The accelerator this view belongs to.
    ///
    /// Corresponds to C++ AMP `accelerator_view::accelerator`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, QueuingMode};
    ///
    /// let acc = Accelerator::default()?;
    /// let view = acc.create_view(QueuingMode::Immediate);
    /// assert_eq!(view.accelerator(), &acc);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn accelerator(&self) -> &Accelerator {
        &self.inner.accelerator
    }

    /// The view's queuing mode.
    ///
    /// Corresponds to C++ AMP `accelerator_view::queuing_mode`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, QueuingMode};
    ///
    /// let cpu = Accelerator::cpu();
    /// assert_eq!(cpu.default_view().queuing_mode(), QueuingMode::Automatic);
    /// let view = cpu.create_view(QueuingMode::Immediate);
    /// assert_eq!(view.queuing_mode(), QueuingMode::Immediate);
    /// ```
    pub fn queuing_mode(&self) -> QueuingMode {
        self.inner.mode
    }

    /// Whether the view's accelerator is an emulator (a software adapter or
    /// the CPU accelerator); see [`Accelerator::is_emulated`].
    ///
    /// A shortcut for `view.accelerator().is_emulated()` (in C++ AMP,
    /// `view.accelerator.is_emulated`).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// assert!(Accelerator::cpu().default_view().is_emulated());
    /// let view = Accelerator::default()?.default_view();
    /// assert_eq!(view.is_emulated(), view.accelerator().is_emulated());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn is_emulated(&self) -> bool {
        self.inner.accelerator.is_emulated()
    }

    /// What the view recorded and submitted so far.
    ///
    /// `commands` counts every command recorded on the view (device-side copies,
    /// kernel launches; host transfers are not commands), `submissions` the
    /// batches handed to the device, `pending` the commands recorded but not yet
    /// submitted. Has no C++ AMP counterpart.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, QueuingMode, copy};
    ///
    /// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
    /// let a = Array::from_slice([4], &[1, 2, 3, 4], &view)?;
    /// let mut b = Array::<i32, 1>::new([4], &view)?;
    /// copy(&a, &mut b)?; // a device-side copy: one command, kept in the batch
    /// assert_eq!((view.statistics().commands, view.statistics().pending), (1, 1));
    /// view.flush()?;
    /// let s = view.statistics();
    /// assert_eq!((s.commands, s.submissions, s.pending), (1, 1, 0));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn statistics(&self) -> ViewStatistics {
        let q = self.inner.queue.lock();
        ViewStatistics {
            pending: q.pending,
            ..q.stats
        }
    }

    /// Sets the age past which this view's automatic batch is submitted
    /// (tests that count a batch's commands must not race the clock).
    pub(crate) fn set_automatic_max_age(&self, age: Duration) {
        self.inner.queue.lock().max_age = age;
    }

    /// The transfers between the host and this view's accelerator that the
    /// view caused so far.
    ///
    /// Has no C++ AMP counterpart: use it to check that data moves no more often
    /// than the program needs.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, QueuingMode};
    ///
    /// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
    /// let a = Array::from_slice([256], &[7u32; 256], &view)?; // uploaded once
    /// assert_eq!(a.to_vec()?, a.to_vec()?); // downloaded once, read twice
    /// let t = view.transfers();
    /// assert_eq!((t.uploads, t.bytes_uploaded), (1, 1024));
    /// assert_eq!((t.downloads, t.bytes_downloaded), (1, 1024));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn transfers(&self) -> TransferStatistics {
        let t = &self.inner.transfers;
        TransferStatistics {
            uploads: t.uploads.load(Ordering::Relaxed),
            bytes_uploaded: t.bytes_uploaded.load(Ordering::Relaxed),
            downloads: t.downloads.load(Ordering::Relaxed),
            bytes_downloaded: t.bytes_downloaded.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn transfer_counters(&self) -> &TransferCounters {
        &self.inner.transfers
    }

    /// Submits every recorded command to the device, without waiting for them.
    /// Does nothing in immediate mode or when nothing is pending.
    ///
    /// Corresponds to C++ AMP `accelerator_view::flush`.
    ///
    /// # Errors
    ///
    /// [`Error::AcceleratorViewRemoved`](crate::Error::AcceleratorViewRemoved)
    /// if the device was lost; on the CPU accelerator, the error of a command
    /// of this view that failed (now or earlier, run by any thread) and was
    /// not yet reported to a `flush`, `wait` or `create_marker` of the view
    /// (the oldest; later failures are reported with it). A failed command
    /// changed no data, and the commands after it still ran. The code that
    /// next uses the data a failed kernel wrote gets the error too.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, QueuingMode, copy};
    ///
    /// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
    /// let a = Array::from_slice([3], &[1.0f32, 2.0, 3.0], &view)?;
    /// let mut b = Array::<f32, 1>::new([3], &view)?;
    /// copy(&a, &mut b)?;
    /// assert_eq!(view.statistics().pending, 1); // recorded, not yet submitted
    /// view.flush()?;
    /// assert_eq!(view.statistics().pending, 0); // submitted; it may still be running
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn flush(&self) -> Result<()> {
        self.submit_pending()?;
        self.take_failure()
    }

    /// Submits every recorded command (on the CPU: runs them), reporting no
    /// failures of them: the runtime's own ordering flushes, whose failures
    /// the code that uses the failed data or waits for the view reports.
    pub(crate) fn submit_pending(&self) -> Result<()> {
        let device = self.device()?;
        let (host, upto) = {
            let mut q = self.inner.queue.lock();
            (self.submit_locked(device, &mut q), q.host_tickets)
        };
        self.run_host(host);
        // On the CPU, submitted means run: the host reads memory next.
        self.wait_host(upto);
        Ok(())
    }

    /// The oldest failure of this view's host commands not yet reported.
    fn take_failure(&self) -> Result<()> {
        match self.inner.failures.take_first() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Cancels the CPU kernels recorded on this view so far: a running one
    /// stops at its next loop iteration or work item, pending ones fail
    /// when their batch runs. Each fails with [`Error::Cancelled`] and its
    /// writes are rolled back (its data is as it was before the launch); the
    /// error is reported like any failed kernel's (see [`flush`]). Commands
    /// recorded after the call run normally. Returns at once; [`wait`] waits
    /// for the cancelled kernels to stop.
    ///
    /// Device copies, and every command of a GPU view, are not cancelled:
    /// a GPU cannot interrupt a running shader. (On a GPU a runaway kernel is
    /// stopped by the driver's watchdog, if it has one, which loses the
    /// device: [`Error::AcceleratorViewRemoved`]; on llvmpipe the loop guard
    /// loses it after 64,000 iterations.)
    ///
    /// Has no direct C++ AMP counterpart: there, a runaway kernel is ended by
    /// the Windows watchdog (TDR) as `accelerator_view_removed`. See also
    /// [`set_timeout`](Self::set_timeout).
    ///
    /// [`flush`]: Self::flush
    /// [`wait`]: Self::wait
    /// [`Error::Cancelled`]: crate::Error::Cancelled
    /// [`Error::AcceleratorViewRemoved`]: crate::Error::AcceleratorViewRemoved
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::prelude::*;
    /// use amp_core::Error;
    /// use std::time::Duration;
    ///
    /// let view = Accelerator::cpu().create_view(QueuingMode::Automatic);
    /// let mut data = vec![1, 2, 3, 4];
    /// let v = ArrayView::new_mut([4], &mut data)?;
    /// let flag = 0;
    /// parallel_for_each!(view, v.extent(), |idx: Index<1>| {
    ///     v[idx] = 0;
    ///     while flag == 0 {} // never ends
    /// })?;
    /// let canceller = view.clone();
    /// std::thread::spawn(move || {
    ///     std::thread::sleep(Duration::from_millis(50));
    ///     canceller.cancel();
    /// });
    /// // Runs the kernel until the other thread cancels it.
    /// assert!(matches!(v.synchronize(), Err(Error::Cancelled(_))));
    /// assert_eq!(v.to_vec()?, [1, 2, 3, 4]); // rolled back
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn cancel(&self) {
        self.inner.cancel_epoch.fetch_add(1, Ordering::AcqRel);
    }

    /// Sets how long one CPU kernel of this view may run: a kernel still
    /// running after `timeout` is stopped, fails with [`Error::Timeout`] and
    /// its writes are rolled back (its data is as it was before the launch).
    /// `None` (the default) lets kernels run as long as they need. Applies to
    /// kernels that start after the call; the clock starts when a kernel
    /// starts running, not when it is recorded.
    ///
    /// Kernels are stopped at a loop iteration or between work items, so a
    /// kernel stops within a few microseconds of its deadline. GPU views
    /// ignore the timeout: a running shader cannot be interrupted (see
    /// [`cancel`](Self::cancel)).
    ///
    /// Corresponds to the Windows watchdog (TDR) that stops C++ AMP kernels
    /// running longer than about two seconds with
    /// `accelerator_view_removed`; here the view stays usable.
    ///
    /// [`Error::Timeout`]: crate::Error::Timeout
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::prelude::*;
    /// use amp_core::Error;
    /// use std::time::Duration;
    ///
    /// let view = Accelerator::cpu().create_view(QueuingMode::Immediate);
    /// view.set_timeout(Some(Duration::from_millis(100)));
    /// assert_eq!(view.timeout(), Some(Duration::from_millis(100)));
    /// let mut data = vec![7; 16];
    /// let v = ArrayView::new_mut([16], &mut data)?;
    /// let flag = 0;
    /// let r = parallel_for_each!(view, v.extent(), |idx: Index<1>| {
    ///     v[idx] = 0;
    ///     while flag == 0 {} // never ends
    /// });
    /// assert!(matches!(r, Err(Error::Timeout(_))));
    /// assert_eq!(v.to_vec()?, [7; 16]); // rolled back
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn set_timeout(&self, timeout: Option<Duration>) {
        *self.inner.timeout.lock() = timeout;
    }

    /// How long one CPU kernel of this view may run; see
    /// [`set_timeout`](Self::set_timeout).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, QueuingMode};
    ///
    /// let view = Accelerator::cpu().create_view(QueuingMode::Automatic);
    /// assert_eq!(view.timeout(), None);
    /// ```
    pub fn timeout(&self) -> Option<Duration> {
        *self.inner.timeout.lock()
    }

    /// Submits every recorded command and blocks until all the view's
    /// commands have finished.
    ///
    /// Corresponds to C++ AMP `accelerator_view::wait`.
    ///
    /// # Errors
    ///
    /// As [`flush`](Self::flush).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, QueuingMode, copy};
    ///
    /// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
    /// let a = Array::from_slice([2, 2], &[1, 2, 3, 4], &view)?;
    /// let mut b = Array::<i32, 2>::new([2, 2], &view)?;
    /// copy(&a, &mut b)?;
    /// view.wait()?; // the copy has finished on the accelerator
    /// assert_eq!(view.statistics().pending, 0);
    /// assert_eq!(b.to_vec()?, [1, 2, 3, 4]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn wait(&self) -> Result<()> {
        let device = self.device()?;
        let (host, last, upto) = {
            let mut q = self.inner.queue.lock();
            let host = self.submit_locked(device, &mut q);
            (host, q.last_submission.clone(), q.host_tickets)
        };
        self.run_host(host);
        self.wait_host(upto);
        self.take_failure()?;
        match (device, last) {
            (Some(device), Some(index)) => device.wait_for(&index),
            (Some(device), None) => device.check(),
            (None, _) => Ok(()),
        }
    }

    /// Submits every recorded command and returns a future that completes
    /// when they (and every earlier command of the view) have finished.
    ///
    /// Corresponds to C++ AMP `accelerator_view::create_marker`.
    ///
    /// # Errors
    ///
    /// As [`flush`](Self::flush).
    ///
    /// # Examples
    ///
    /// ```
    /// let view = amp_core::Accelerator::default()?.default_view();
    /// let marker = view.create_marker()?;
    /// futures::executor::block_on(marker.clone())?; // as a Future
    /// marker.wait()?;                               // or blocking
    /// assert!(marker.is_ready());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn create_marker(&self) -> Result<CompletionFuture> {
        let device = self.device()?;
        let (host, last, upto) = {
            let mut q = self.inner.queue.lock();
            let host = self.submit_locked(device, &mut q);
            (host, q.last_submission.clone(), q.host_tickets)
        };
        self.run_host(host);
        self.wait_host(upto);
        self.take_failure()?;
        Ok(match (device, last) {
            (Some(device), Some(index)) => CompletionFuture::gpu(Arc::clone(device), index),
            _ => CompletionFuture::ready(Ok(())),
        })
    }

    /// Records a command. On a GPU view `gpu` records into the batch's
    /// encoder; on the CPU view `host` becomes a host command. `on_submit`
    /// runs when the batch holding the command is submitted (executed, on the
    /// CPU).
    ///
    /// The view's lock is held while `gpu` records, so commands from
    /// several threads never interleave.
    pub(crate) fn record(
        &self,
        gpu: impl FnOnce(&DeviceContext, &mut wgpu::CommandEncoder) -> Result<()>,
        host: impl FnOnce() -> Result<()> + Send + 'static,
        on_submit: Option<OnSubmit>,
    ) -> Result<()> {
        self.record_writing(gpu, host, on_submit, Vec::new())
    }

    /// [`record`](Self::record), for a host command that writes `written`:
    /// if it fails, the failure is recorded there too, and reported by the
    /// next access to that data. The call returns the command's own error if
    /// the command ran within it (immediate mode), never another command's.
    pub(crate) fn record_writing(
        &self,
        gpu: impl FnOnce(&DeviceContext, &mut wgpu::CommandEncoder) -> Result<()>,
        host: impl FnOnce() -> Result<()> + Send + 'static,
        on_submit: Option<OnSubmit>,
        written: Vec<Arc<CpuMem>>,
    ) -> Result<()> {
        let device = self.device()?;
        let own = Arc::new(std::sync::OnceLock::new());
        let host_to_run = {
            let mut q = self.inner.queue.lock();
            // Age threshold: an old batch goes out before this command joins it.
            let mut ready: Vec<HostBatch> = match q.batch_started {
                Some(t) if t.elapsed() >= q.max_age => {
                    self.submit_locked(device, &mut q).into_iter().collect()
                }
                _ => Vec::new(),
            };
            match device {
                Some(device) => {
                    if matches!(q.batch, Batch::Empty) {
                        let encoder =
                            device
                                .device
                                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                                    label: Some("amp-rs batch"),
                                });
                        q.batch = Batch::Gpu {
                            encoder,
                            on_submit: Vec::new(),
                        };
                    }
                    let Batch::Gpu {
                        encoder,
                        on_submit: callbacks,
                    } = &mut q.batch
                    else {
                        unreachable!("a GPU view only holds GPU batches");
                    };
                    gpu(device, encoder)?;
                    callbacks.extend(on_submit);
                }
                None => {
                    if matches!(q.batch, Batch::Empty) {
                        q.batch = Batch::Host(Vec::new());
                    }
                    let Batch::Host(commands) = &mut q.batch else {
                        unreachable!("the CPU view only holds host batches");
                    };
                    let epoch = self.inner.cancel_epoch.load(Ordering::Acquire);
                    commands.push(HostCommand {
                        run: Box::new(host),
                        written,
                        own: Some(Arc::clone(&own)),
                        epoch,
                    });
                    if let Some(f) = on_submit {
                        commands.push(HostCommand {
                            run: Box::new(move || {
                                f();
                                Ok(())
                            }),
                            written: Vec::new(),
                            own: None,
                            epoch,
                        });
                    }
                }
            }
            q.pending += 1;
            q.stats.commands += 1;
            q.batch_started.get_or_insert_with(Instant::now);
            if self.inner.mode == QueuingMode::Immediate || q.pending >= AUTOMATIC_MAX_COMMANDS {
                ready.extend(self.submit_locked(device, &mut q));
            }
            ready
        };
        for batch in host_to_run {
            self.run_host(Some(batch));
        }
        match own.get() {
            Some(f) => Err(f.take_all()),
            None => Ok(()),
        }
    }

    /// Submits the batch. GPU commands go to the queue here; host commands
    /// are returned with their ticket, to be run (by [`run_host`]) once the
    /// lock is released.
    ///
    /// [`run_host`]: Self::run_host
    fn submit_locked(
        &self,
        device: Option<&Arc<DeviceContext>>,
        q: &mut Queue,
    ) -> Option<HostBatch> {
        let batch = std::mem::take(&mut q.batch);
        let had_commands = q.pending > 0;
        q.pending = 0;
        q.batch_started = None;
        match batch {
            Batch::Empty => None,
            Batch::Gpu { encoder, on_submit } => {
                if let Some(device) = device {
                    // A batch the device refuses runs none of its commands:
                    // reported by the next wait instead of lost silently.
                    // Error scopes are per thread, so another thread's
                    // error is never blamed on this view (a count of the
                    // device's uncaptured errors was: tests caught it).
                    let scope = device
                        .device
                        .push_error_scope(wgpu::ErrorFilter::Validation);
                    let index = device.queue.submit([encoder.finish()]);
                    match futures::executor::block_on(scope.pop()) {
                        // A refused submission's index cannot be waited for.
                        None => q.last_submission = Some(index),
                        Some(e) => {
                            log::error!("the device refused a batch of commands: {e}");
                            self.inner.failures.push(Failure::new(Error::Runtime(format!(
                                "the device refused a batch of commands, which did not run (a bug in amp-rs): {e}"
                            ))));
                        }
                    }
                }
                if had_commands {
                    q.stats.submissions += 1;
                }
                on_submit.into_iter().for_each(|f| f());
                None
            }
            Batch::Host(commands) => {
                if had_commands {
                    q.stats.submissions += 1;
                }
                let ticket = q.host_tickets;
                q.host_tickets += 1;
                Some(HostBatch { ticket, commands })
            }
        }
    }

    /// Runs a host batch once every batch submitted before it has finished,
    /// in order. Every command runs, whatever the ones before it did; a
    /// failed command's error is recorded (see
    /// [`failure`](crate::backend::failure)) for the code that waits for it.
    fn run_host(&self, batch: Option<HostBatch>) {
        let Some(batch) = batch else {
            return;
        };
        let order = &self.inner.host_order;
        self.wait_host(batch.ticket);
        /// Marks the batch finished, even if a command panics.
        struct Finished<'a>(&'a HostOrder);
        impl Drop for Finished<'_> {
            fn drop(&mut self) {
                *self.0.served.lock() += 1;
                self.0.finished.notify_all();
            }
        }
        let _finished = Finished(order);
        for c in batch.commands {
            if let Err(e) = self.run_command(c.run, c.epoch) {
                let failure = Failure::new(e);
                for mem in &c.written {
                    mem.failures.push(Arc::clone(&failure));
                }
                self.inner.failures.push(Arc::clone(&failure));
                if let Some(own) = c.own {
                    let _ = own.set(failure);
                }
            }
        }
    }

    /// Runs one host command under its cancel token (the view's cancel epoch
    /// when it was recorded, and its deadline from now); a panic that
    /// escapes it becomes an error.
    fn run_command(&self, run: Box<dyn FnOnce() -> Result<()> + Send>, epoch: u64) -> Result<()> {
        let deadline = self
            .timeout()
            .and_then(|limit| Some((Instant::now().checked_add(limit)?, limit)));
        let token = Arc::new(CancelToken {
            view_epoch: Arc::clone(&self.inner.cancel_epoch),
            epoch,
            deadline,
        });
        let result = {
            let _token = cancel::enter(Some(token));
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
        };
        match result {
            Ok(r) => r,
            Err(payload) => Err(match cancel::classify(&*payload) {
                Panic::Stop(stop) => stop.error("a command"),
                Panic::Message(m) => Error::Runtime(format!("a host command panicked: {m}")),
            }),
        }
    }

    /// Blocks until the host batches `0..upto` have finished.
    fn wait_host(&self, upto: u64) {
        let order = &self.inner.host_order;
        let mut served = order.served.lock();
        while *served < upto {
            order.finished.wait(&mut served);
        }
    }

    /// The device of a GPU view, checked for loss; `None` on the CPU.
    /// Turns the timing of this view's kernel launches on or off.
    ///
    /// While it is on, every kernel launched on the view records how long it
    /// ran ([`KernelTiming`]): on a GPU through timestamp queries written at
    /// the start and end of its compute pass, on the CPU accelerator with the
    /// host's clock. Read them with [`kernel_timings`](Self::kernel_timings).
    /// Off by default; untimed launches cost nothing extra.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedFeature`] (when turning it on) on a GPU whose
    /// device has no timestamp queries; as [`wait`](Self::wait) if the
    /// device was lost.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::prelude::*;
    ///
    /// let view = Accelerator::cpu().create_view(QueuingMode::Automatic);
    /// view.set_kernel_timing(true)?;
    /// let squares = Array::<i32, 1>::new([64], &view)?;
    /// parallel_for_each!(view, squares.extent(), |idx: Index<1>| {
    ///     squares[idx] = idx[0] * idx[0];
    /// })?;
    /// view.set_kernel_timing(false)?;
    /// parallel_for_each!(view, squares.extent(), |idx: Index<1>| {
    ///     squares[idx] = 0; // not timed
    /// })?;
    /// let timings = view.kernel_timings()?;
    /// assert_eq!(timings.len(), 1);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn set_kernel_timing(&self, on: bool) -> Result<()> {
        if on
            && let Some(device) = self.device()?
            && !device
                .device
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            return Err(Error::UnsupportedFeature {
                accelerator: self.inner.accelerator.description().to_string(),
                feature: "GPU timestamp queries (kernel timing)".to_string(),
            });
        }
        self.inner.timing.set_enabled(on);
        Ok(())
    }

    /// The timings of the kernels launched on this view while timing was on
    /// ([`set_kernel_timing`](Self::set_kernel_timing)), in launch order,
    /// since the previous call. Waits for the view's commands first.
    ///
    /// # Errors
    ///
    /// As [`wait`](Self::wait): a failed kernel or a lost device.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::prelude::*;
    ///
    /// let view = Accelerator::default()?.default_view();
    /// view.set_kernel_timing(true)?;
    /// let out = Array::<f32, 1>::new([4096], &view)?;
    /// for _ in 0..3 {
    ///     parallel_for_each!(view, out.extent(), |idx: Index<1>| {
    ///         out[idx] = (idx[0] as f32).sqrt();
    ///     })?;
    /// }
    /// let timings = view.kernel_timings()?;
    /// assert_eq!(timings.len(), 3);
    /// assert!(view.kernel_timings()?.is_empty()); // each timing is read once
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn kernel_timings(&self) -> Result<Vec<KernelTiming>> {
        self.wait()?;
        self.inner.timing.drain()
    }

    /// The view's kernel timing log (for the launch path).
    pub(crate) fn timing(&self) -> &Arc<TimingLog> {
        &self.inner.timing
    }

    fn device(&self) -> Result<Option<&Arc<DeviceContext>>> {
        let device = self.inner.accelerator.device()?;
        if let Some(d) = device {
            d.check()?;
        }
        Ok(device)
    }
}

impl PartialEq for AcceleratorView {
    fn eq(&self, other: &Self) -> bool {
        self.inner.id == other.inner.id
    }
}

impl Eq for AcceleratorView {}

impl std::hash::Hash for AcceleratorView {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.inner.id.hash(state);
    }
}

impl fmt::Debug for AcceleratorView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AcceleratorView")
            .field("id", &self.inner.id)
            .field("accelerator", &self.inner.accelerator.device_path())
            .field("mode", &self.inner.mode)
            .finish()
    }
}
