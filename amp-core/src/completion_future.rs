//! [`CompletionFuture`]: the completion of commands on an accelerator view.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;

use crate::Result;
use crate::backend::device::DeviceContext;

/// A continuation registered with [`CompletionFuture::then`].
type Continuation = Box<dyn FnOnce(Result<()>) + Send>;

/// Completes when a set of commands on an accelerator view has finished.
///
/// It is a [`std::future::Future`] (await it from any executor), it can be
/// waited for by blocking ([`wait`](Self::wait)), and it runs continuations
/// ([`then`](Self::then)). Clones share one completion, like C++
/// `std::shared_future`.
///
/// Waiting never spins: a blocking wait blocks in the driver; an awaited or
/// continued future is completed by its device's waiter thread, which blocks
/// in the driver. There is one such thread per device, however many futures
/// are awaited, started when one is first needed.
///
/// Corresponds to C++ AMP `completion_future`.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
/// use std::sync::mpsc;
///
/// let view = Accelerator::default()?.default_view();
/// let marker = view.create_marker()?;
/// let (tx, rx) = mpsc::channel();
/// marker.then(move |result| tx.send(result.is_ok()).unwrap());
/// assert!(rx.recv().unwrap());
/// # Ok::<(), amp_core::Error>(())
/// ```
#[derive(Clone)]
#[must_use = "a CompletionFuture does nothing unless waited for, awaited or continued"]
pub struct CompletionFuture {
    inner: Arc<Shared>,
}

struct Shared {
    /// What completes it: nothing (ready at creation) or a GPU submission.
    source: Option<(Arc<DeviceContext>, wgpu::SubmissionIndex)>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    result: Option<Result<()>>,
    wakers: Vec<Waker>,
    continuations: Vec<Continuation>,
    waiter_started: bool,
}

impl CompletionFuture {
    /// A future that is already complete with `result`.
    pub(crate) fn ready(result: Result<()>) -> CompletionFuture {
        CompletionFuture {
            inner: Arc::new(Shared {
                source: None,
                state: Mutex::new(State {
                    result: Some(result),
                    ..State::default()
                }),
            }),
        }
    }

    /// A future that completes when GPU submission `index` has finished.
    pub(crate) fn gpu(
        device: Arc<DeviceContext>,
        index: wgpu::SubmissionIndex,
    ) -> CompletionFuture {
        CompletionFuture {
            inner: Arc::new(Shared {
                source: Some((device, index)),
                state: Mutex::new(State::default()),
            }),
        }
    }

    /// Whether the commands have finished (without blocking or polling the
    /// device).
    ///
    /// Corresponds to C++ AMP `completion_future::wait_for(0)` returning
    /// `ready`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    ///
    /// let view = Accelerator::default()?.default_view();
    /// let marker = view.create_marker()?;
    /// marker.wait()?;
    /// assert!(marker.is_ready());
    /// assert!(marker.clone().is_ready()); // clones share one completion
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn is_ready(&self) -> bool {
        self.inner.state.lock().result.is_some()
    }

    /// Blocks until the commands have finished.
    ///
    /// Corresponds to C++ AMP `completion_future::wait` (and `get`).
    ///
    /// # Errors
    ///
    /// [`Error::AcceleratorViewRemoved`](crate::Error::AcceleratorViewRemoved)
    /// if the device was lost before they finished.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Accelerator, Array, QueuingMode, copy_async};
    ///
    /// let view = Accelerator::default()?.create_view(QueuingMode::Automatic);
    /// let a = Array::from_slice([4], &[1, 2, 3, 4], &view)?;
    /// let mut b = Array::<i32, 1>::new([4], &view)?;
    /// let done = copy_async(&a, &mut b)?;
    /// done.wait()?;
    /// assert!(done.is_ready());
    /// assert_eq!(b.to_vec()?, [1, 2, 3, 4]);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn wait(&self) -> Result<()> {
        if let Some(result) = &self.inner.state.lock().result {
            return result.clone();
        }
        let result = self.inner.block();
        self.inner.complete(result.clone());
        result
    }

    /// Runs `f` with the result once the commands have finished: at once, in
    /// this thread, if they already have; otherwise on a helper thread (or
    /// the thread that waits for the future first).
    ///
    /// A continuation that panics is reported on standard error; the panic
    /// goes no further, and the other continuations still run.
    ///
    /// Corresponds to C++ AMP `completion_future::then`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Accelerator;
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicBool, Ordering};
    ///
    /// let marker = Accelerator::default()?.default_view().create_marker()?;
    /// marker.wait()?;
    /// let ran = Arc::new(AtomicBool::new(false));
    /// let flag = Arc::clone(&ran);
    /// marker.then(move |result| flag.store(result.is_ok(), Ordering::SeqCst));
    /// assert!(ran.load(Ordering::SeqCst)); // already complete: `f` ran at once, here
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn then(&self, f: impl FnOnce(Result<()>) + Send + 'static) {
        let mut state = self.inner.state.lock();
        if let Some(result) = &state.result {
            let result = result.clone();
            drop(state);
            run_continuations(vec![Box::new(f)], &result);
            return;
        }
        state.continuations.push(Box::new(f));
        self.inner.start_waiter(&mut state);
        // No helper thread could start: the future completed with that
        // error, and the continuations run here, without the lock.
        if let Some(result) = state.result.clone() {
            let continuations = std::mem::take(&mut state.continuations);
            drop(state);
            run_continuations(continuations, &result);
        }
    }
}

impl Shared {
    /// Blocks until the source completes and returns its result.
    fn block(&self) -> Result<()> {
        match &self.source {
            Some((device, index)) => device.wait_for(index),
            None => Ok(()),
        }
    }

    /// Records the result (the first one wins), wakes every waiting task and
    /// runs the continuations.
    fn complete(&self, result: Result<()>) {
        let (wakers, continuations, result) = {
            let mut state = self.state.lock();
            if state.result.is_none() {
                state.result = Some(result);
            }
            (
                std::mem::take(&mut state.wakers),
                std::mem::take(&mut state.continuations),
                state.result.clone().unwrap_or(Ok(())),
            )
        };
        wakers.into_iter().for_each(Waker::wake);
        run_continuations(continuations, &result);
    }

    /// Hands the future to its device's waiter thread, once.
    fn start_waiter(self: &Arc<Self>, state: &mut State) {
        if state.waiter_started {
            return;
        }
        state.waiter_started = true;
        let Some((device, _)) = &self.source else {
            return;
        };
        let future = Arc::clone(self);
        let job = Box::new(move || {
            let result = future.block();
            future.complete(result);
        });
        if let Err(e) = device.waiter.enqueue(job) {
            // No thread: complete with the error rather than never.
            let result = Err(crate::Error::Runtime(format!(
                "cannot start a completion thread: {e}"
            )));
            state.result = Some(result);
            let wakers = std::mem::take(&mut state.wakers);
            wakers.into_iter().for_each(Waker::wake);
        }
    }
}

/// Runs every continuation with `result`, each on its own: a continuation
/// that panics is reported on standard error, and the ones after it still
/// run (its panic must not escape into whichever thread completed the
/// future, a helper thread or one that called `wait`).
fn run_continuations(continuations: Vec<Continuation>, result: &Result<()>) {
    for f in continuations {
        let result = result.clone();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || f(result)));
        if let Err(payload) = run {
            let msg = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            eprintln!("amp-rs: a CompletionFuture continuation panicked: {msg}");
        }
    }
}

impl Future for CompletionFuture {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.inner.state.lock();
        if let Some(result) = &state.result {
            return Poll::Ready(result.clone());
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        self.inner.start_waiter(&mut state);
        Poll::Pending
    }
}

impl fmt::Debug for CompletionFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompletionFuture")
            .field("ready", &self.is_ready())
            .finish()
    }
}
