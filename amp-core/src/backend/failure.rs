//! Failures of host commands (kernels on the CPU accelerator), kept until
//! they are reported.
//!
//! A command runs when its batch is submitted, by whichever thread submits
//! it, so its error cannot simply be returned to the code that launched it.
//! A failure is recorded instead on the view that ran the command and on the
//! CPU memory of every container the command wrote. It is reported once to
//! each of two parties: the code that uses the data (the next access to any
//! of it: `synchronize`, a read, a later command using it) and the code that
//! waits for the view (its next `flush`, `wait` or `create_marker`), so that
//! whichever thread ran the batch, the code that launched the kernel learns
//! of the failure. A launch that ran its own command (immediate mode)
//! returns the error itself, and it is then reported nowhere else.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use crate::Error;

/// Who a failure is reported to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Channel {
    /// The code that uses the data the failed command wrote.
    Data,
    /// The code that waits for the view that ran it.
    View,
}

/// One failed command's error, reported at most once per [`Channel`].
pub(crate) struct Failure {
    error: Error,
    to_data: AtomicBool,
    to_view: AtomicBool,
}

impl Failure {
    /// A failure with `error`, not yet reported.
    pub(crate) fn new(error: Error) -> Arc<Failure> {
        Arc::new(Failure {
            error,
            to_data: AtomicBool::new(false),
            to_view: AtomicBool::new(false),
        })
    }

    fn flag(&self, channel: Channel) -> &AtomicBool {
        match channel {
            Channel::Data => &self.to_data,
            Channel::View => &self.to_view,
        }
    }

    /// The error for `channel`, unless it was already reported there.
    pub(crate) fn take(&self, channel: Channel) -> Option<Error> {
        (!self.flag(channel).swap(true, Ordering::AcqRel)).then(|| self.error.clone())
    }

    /// The error for the launch that ran the command itself: then no other
    /// party needs to hear of it.
    pub(crate) fn take_all(&self) -> Error {
        self.to_data.store(true, Ordering::Release);
        self.to_view.store(true, Ordering::Release);
        self.error.clone()
    }

    fn is_reported(&self, channel: Channel) -> bool {
        self.flag(channel).load(Ordering::Acquire)
    }
}

/// Failures waiting to be reported through one channel.
pub(crate) struct Failures {
    channel: Channel,
    list: Mutex<Vec<Arc<Failure>>>,
}

impl Failures {
    /// An empty list for `channel`.
    pub(crate) fn new(channel: Channel) -> Failures {
        Failures {
            channel,
            list: Mutex::new(Vec::new()),
        }
    }

    /// Records `failure`.
    pub(crate) fn push(&self, failure: Arc<Failure>) {
        let mut list = self.list.lock();
        list.retain(|f| !f.is_reported(self.channel));
        list.push(failure);
    }

    /// The oldest failure not yet reported through this channel; the later
    /// ones are reported with it (one error per access or wait, as C++ AMP
    /// throws one exception). The list is then empty.
    pub(crate) fn take_first(&self) -> Option<Error> {
        let mut list = self.list.lock();
        let mut found = None;
        for f in list.drain(..) {
            let e = f.take(self.channel);
            if found.is_none() {
                found = e;
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_reported_once_per_channel() {
        let (data, view) = (Failures::new(Channel::Data), Failures::new(Channel::View));
        let f = Failure::new(Error::Runtime("boom".into()));
        data.push(Arc::clone(&f));
        view.push(Arc::clone(&f));
        let other = Failures::new(Channel::Data);
        other.push(Arc::clone(&f));
        view.push(Failure::new(Error::Runtime("second".into())));
        assert!(matches!(data.take_first(), Some(Error::Runtime(m)) if m == "boom"));
        // Reported to the data's users once, whichever data they touch.
        assert!(other.take_first().is_none());
        // The oldest, and the later ones with it.
        assert!(matches!(view.take_first(), Some(Error::Runtime(m)) if m == "boom"));
        assert!(view.take_first().is_none());
        let g = Failure::new(Error::Runtime("own".into()));
        view.push(Arc::clone(&g));
        assert!(matches!(g.take_all(), Error::Runtime(m) if m == "own"));
        assert!(view.take_first().is_none());
    }
}
