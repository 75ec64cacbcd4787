//! Who may touch a CPU accelerator memory at once, and how.
//!
//! The CPU accelerator's memory ([`CpuMem`](super::storage::CpuMem)) is
//! 32-bit words normally read and written with relaxed atomics, so that any
//! kernel, racy ones included, is defined behaviour. A launch that proves
//! it cannot race (see `kernel::plain` and docs/ARCHITECTURE.md, "Plain
//! memory on the CPU accelerator") reads and writes some of its memories
//! with plain loads and stores instead, which LLVM can vectorise. Rust's
//! memory model forbids a plain access concurrent with any write of the same
//! location, atomic or not; this gate makes such pairs impossible:
//!
//! | held \ asked  | atomic read | atomic write | plain read | plain write |
//! |---------------|-------------|--------------|------------|-------------|
//! | atomic read   | yes         | yes          | yes        | no          |
//! | atomic write  | yes         | yes          | no         | no          |
//! | plain read    | yes         | no           | yes        | no          |
//! | plain write   | no          | no           | no         | no          |
//!
//! Atomic holders (host transfers, kernels on the atomic path) wait for
//! what they need; a plain launch only *tries*, and on any refusal releases
//! what it took and runs on the atomic path. Plain holders therefore never
//! wait, so every wait ends: no cycle of waiters can form.

use parking_lot::{Condvar, Mutex};

/// How a holder accesses a memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Mode {
    /// Relaxed atomic loads only.
    AtomicRead,
    /// Relaxed atomic loads and stores.
    AtomicWrite,
    /// Plain loads.
    PlainRead,
    /// Plain loads and stores.
    PlainWrite,
}

impl Mode {
    /// Whether a holder in `self` excludes a holder in `other`.
    fn conflicts(self, other: Mode) -> bool {
        use Mode::*;
        matches!(
            (self, other),
            (PlainWrite, _) | (_, PlainWrite) | (PlainRead, AtomicWrite) | (AtomicWrite, PlainRead)
        )
    }
}

/// The holders of one memory, counted per mode.
#[derive(Default)]
struct Holders([u32; 4]);

impl Holders {
    fn admits(&self, mode: Mode) -> bool {
        [
            Mode::AtomicRead,
            Mode::AtomicWrite,
            Mode::PlainRead,
            Mode::PlainWrite,
        ]
        .into_iter()
        .all(|held| self.0[held as usize] == 0 || !held.conflicts(mode))
    }
}

/// The gate of one CPU memory.
#[derive(Default)]
pub(crate) struct Gate {
    holders: Mutex<Holders>,
    released: Condvar,
}

impl Gate {
    /// Enters in `mode` (an atomic mode), waiting for plain holders that
    /// exclude it to leave.
    pub(crate) fn enter(&self, mode: Mode) -> Pass<'_> {
        debug_assert!(matches!(mode, Mode::AtomicRead | Mode::AtomicWrite));
        let mut holders = self.holders.lock();
        while !holders.admits(mode) {
            self.released.wait(&mut holders);
        }
        holders.0[mode as usize] += 1;
        Pass { gate: self, mode }
    }

    /// Enters in `mode` if no holder excludes it now.
    pub(crate) fn try_enter(&self, mode: Mode) -> Option<Pass<'_>> {
        let mut holders = self.holders.lock();
        if !holders.admits(mode) {
            return None;
        }
        holders.0[mode as usize] += 1;
        Some(Pass { gate: self, mode })
    }
}

/// A holder's right to access a memory in one mode; leaving is dropping it.
pub(crate) struct Pass<'g> {
    gate: &'g Gate,
    mode: Mode,
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        let mut holders = self.gate.holders.lock();
        holders.0[self.mode as usize] -= 1;
        drop(holders);
        self.gate.released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_write_excludes_everyone_and_plain_read_excludes_writers() {
        let g = Gate::default();
        let w = g.try_enter(Mode::PlainWrite).expect("free");
        for m in [
            Mode::AtomicRead,
            Mode::AtomicWrite,
            Mode::PlainRead,
            Mode::PlainWrite,
        ] {
            assert!(g.try_enter(m).is_none(), "{m:?} beside a plain writer");
        }
        drop(w);
        let r = g.try_enter(Mode::PlainRead).expect("free");
        assert!(g.try_enter(Mode::PlainRead).is_some());
        assert!(g.try_enter(Mode::AtomicRead).is_some());
        assert!(g.try_enter(Mode::AtomicWrite).is_none());
        assert!(g.try_enter(Mode::PlainWrite).is_none());
        drop(r);
        let a = g.enter(Mode::AtomicWrite);
        assert!(g.try_enter(Mode::AtomicWrite).is_some());
        assert!(g.try_enter(Mode::PlainRead).is_none());
        drop(a);
        assert!(g.try_enter(Mode::PlainWrite).is_some());
    }

    #[test]
    fn an_atomic_holder_waits_for_the_plain_writer() {
        let g = std::sync::Arc::new(Gate::default());
        let w = g.try_enter(Mode::PlainWrite).expect("free");
        let left = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let t = {
            let (g, left) = (g.clone(), left.clone());
            std::thread::spawn(move || {
                let _p = g.enter(Mode::AtomicRead);
                left.load(std::sync::atomic::Ordering::SeqCst)
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        left.store(true, std::sync::atomic::Ordering::SeqCst);
        drop(w);
        assert!(
            t.join().expect("no panic"),
            "entered before the writer left"
        );
    }
}
