//! Device loss becomes `Error::AcceleratorViewRemoved`, never a panic, and
//! stays so for every later call. Its own test binary: a destroyed device
//! stays destroyed for the rest of the process.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use amp_core::__private::{destroy_device, enqueue_probe_command};
use amp_core::{Error, QueuingMode};
use amp_tests::{adapter_required, gpu_accelerators};

fn removed(result: amp_core::Result<()>) -> String {
    match result {
        Err(Error::AcceleratorViewRemoved { reason }) => reason,
        other => panic!("expected AcceleratorViewRemoved, got {other:?}"),
    }
}

#[test]
fn a_lost_device_removes_every_view_for_good() {
    let gpus = gpu_accelerators();
    if gpus.is_empty() {
        assert!(!adapter_required());
        eprintln!("no wgpu adapter: device loss cannot happen on the CPU accelerator");
        return;
    }
    for acc in gpus {
        let view = acc.create_view(QueuingMode::Automatic);
        let other = acc.create_view(QueuingMode::Immediate);
        let ran = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&ran);
        enqueue_probe_command(&view, move || {
            c.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        let marker_before = other.create_marker().unwrap();

        destroy_device(&view).unwrap();

        let reason = removed(view.flush());
        assert!(reason.contains("destroyed"), "{reason}");
        assert_eq!(removed(view.wait()), reason, "the same error every time");
        assert_eq!(removed(view.create_marker().map(drop)), reason);
        assert_eq!(removed(enqueue_probe_command(&view, || {})), reason);
        assert_eq!(removed(other.wait()), reason, "every view of the device");
        assert_eq!(removed(acc.default_view().flush()), reason);
        // A marker taken before the loss completes (with the loss or success),
        // and never hangs or panics.
        let _ = marker_before.wait();
        assert_eq!(ran.load(Ordering::SeqCst), 0, "the lost batch never ran");
    }
}
