//! One thread per device that completes awaited work in submission order.
//!
//! The backend knows nothing of what a job completes: `CompletionFuture`
//! hands it a closure that blocks on the device and records the result.

use parking_lot::Mutex;

/// A job for the waiter thread: block until some submission completes and
/// record its result.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// The jobs of one device, run in the order they are queued by one thread.
///
/// The thread starts with the first job handed to it and ends when the
/// device is dropped (the sender lives in the device; each queued job keeps
/// the device alive only until it has run).
#[derive(Default)]
pub(crate) struct DeviceWaiter {
    queue: Mutex<Option<std::sync::mpsc::Sender<Job>>>,
}

/// How many waiter threads this process has started (see
/// [`waiter_threads_started`]).
static WAITER_THREADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many completion waiter threads this process has started: at most one
/// per device. For tests.
pub(crate) fn waiter_threads_started() -> usize {
    WAITER_THREADS.load(std::sync::atomic::Ordering::SeqCst)
}

impl DeviceWaiter {
    /// Queues `job`, starting the thread on first use.
    ///
    /// # Errors
    ///
    /// The operating system's error if no thread can be started; the job
    /// is dropped unrun.
    pub(crate) fn enqueue(&self, job: Job) -> std::io::Result<()> {
        let mut queue = self.queue.lock();
        let job = match queue.as_ref() {
            Some(sender) => match sender.send(job) {
                Ok(()) => return Ok(()),
                // The thread is gone (it cannot end while the sender lives,
                // unless it panicked): start another.
                Err(std::sync::mpsc::SendError(job)) => job,
            },
            None => job,
        };
        Self::spawn(&mut queue, job)
    }

    /// Starts the thread with `first` queued, and keeps its sender.
    fn spawn(queue: &mut Option<std::sync::mpsc::Sender<Job>>, first: Job) -> std::io::Result<()> {
        let (sender, receiver) = std::sync::mpsc::channel::<Job>();
        sender
            .send(first)
            .expect("the receiver is alive: it is in this function");
        std::thread::Builder::new()
            .name("amp-completion".to_string())
            .spawn(move || {
                // Jobs arrive in submission order (mostly; any order is
                // correct): a wait for a submission that has already
                // finished returns at once.
                while let Ok(job) = receiver.recv() {
                    job();
                }
            })?;
        WAITER_THREADS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        *queue = Some(sender);
        Ok(())
    }
}
