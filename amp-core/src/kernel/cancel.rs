//! Stopping runaway kernels on the CPU accelerator: a view's
//! [`cancel`](crate::AcceleratorView::cancel) and its timeout
//! ([`set_timeout`](crate::AcceleratorView::set_timeout)).
//!
//! The native form of every kernel calls [`poll`] once per iteration of each
//! of its loops (and the launch calls it once per work item). A poll is a
//! thread-local counter decrement; every [`POLL_INTERVAL`] polls it checks
//! the command's cancel token: whether the view was cancelled since the
//! command was recorded, or the command's deadline passed. A stopped
//! kernel unwinds with a [`Stop`] payload (through `resume_unwind`, so the
//! panic hook prints nothing), which the launch turns into
//! [`Error::Cancelled`] or [`Error::Timeout`] and rolls back.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::Error;

/// Polls between two checks of the cancel token (and of the clock).
const POLL_INTERVAL: u32 = 4096;

/// Why a kernel was stopped: the payload it unwinds with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The view was cancelled.
    Cancelled,
    /// The command ran past the view's timeout.
    TimedOut(Duration),
}

impl Stop {
    /// The error a stopped kernel reports.
    pub(crate) fn error(self, what: &str) -> Error {
        match self {
            Stop::Cancelled => Error::Cancelled(format!(
                "{what} was cancelled by AcceleratorView::cancel; its writes were rolled back"
            )),
            Stop::TimedOut(limit) => Error::Timeout(format!(
                "{what} ran longer than the view's timeout of {limit:?} and was stopped; its writes were rolled back"
            )),
        }
    }
}

/// What a running host command checks: its view's cancel epoch (the command
/// is cancelled once it differs from the epoch at recording) and its
/// deadline.
pub(crate) struct CancelToken {
    pub(crate) view_epoch: Arc<AtomicU64>,
    pub(crate) epoch: u64,
    pub(crate) deadline: Option<(Instant, Duration)>,
}

impl CancelToken {
    /// Why the command must stop now, if it must.
    pub(crate) fn check(&self) -> Option<Stop> {
        if self.view_epoch.load(Ordering::Relaxed) != self.epoch {
            return Some(Stop::Cancelled);
        }
        match self.deadline {
            Some((at, limit)) if Instant::now() >= at => Some(Stop::TimedOut(limit)),
            _ => None,
        }
    }
}

thread_local! {
    static TOKEN: RefCell<Option<Arc<CancelToken>>> = const { RefCell::new(None) };
    static BUDGET: Cell<u32> = const { Cell::new(0) };
}

/// The cancel token of the command running on this thread, if any.
pub(crate) fn current() -> Option<Arc<CancelToken>> {
    TOKEN.with(|t| t.borrow().clone())
}

/// Installs `token` for this thread until the guard drops.
pub(crate) fn enter(token: Option<Arc<CancelToken>>) -> TokenGuard {
    let previous = TOKEN.with(|t| t.replace(token));
    BUDGET.with(|b| b.set(0));
    TokenGuard { previous }
}

/// Restores the previous token when dropped.
pub(crate) struct TokenGuard {
    previous: Option<Arc<CancelToken>>,
}

impl Drop for TokenGuard {
    fn drop(&mut self) {
        let previous = self.previous.take();
        TOKEN.with(|t| *t.borrow_mut() = previous);
    }
}

/// Called by native kernel code at every loop iteration: stops the kernel
/// (unwinding with a private payload that the launch turns into
/// [`Error::Cancelled`] or [`Error::Timeout`]) if its view was cancelled or
/// its timeout passed. Cheap: a thread-local decrement, the real check
/// every 4096 calls. Does nothing outside a kernel launch.
#[inline]
pub fn poll() {
    let due = BUDGET.with(|b| {
        let n = b.get();
        if n == 0 {
            b.set(POLL_INTERVAL);
            true
        } else {
            b.set(n - 1);
            false
        }
    });
    if due {
        check_now();
    }
}

/// Checks the current token now.
#[cold]
pub(crate) fn check_now() {
    let stop = TOKEN.with(|t| t.borrow().as_ref().and_then(|t| t.check()));
    if let Some(stop) = stop {
        std::panic::resume_unwind(Box::new(stop));
    }
}

/// The message of a kernel panic's payload, or the [`Stop`] it carries.
pub(crate) enum Panic {
    Stop(Stop),
    Message(String),
}

/// Classifies a caught panic payload.
pub(crate) fn classify(payload: &(dyn std::any::Any + Send)) -> Panic {
    if let Some(stop) = payload.downcast_ref::<Stop>() {
        return Panic::Stop(*stop);
    }
    Panic::Message(
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a kernel panicked".to_string()),
    )
}
