//! Queuing modes, markers and concurrent use of views (C++ AMP spec chapter 3).
//!
//! Commands are probe commands recorded through the runtime's test hook (a
//! buffer clear on a GPU, a host command on the CPU); each reports when its
//! batch was submitted (GPU) or executed (CPU).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use amp_core::__private::enqueue_probe_command;
use amp_core::{AcceleratorView, QueuingMode};
use amp_tests::accelerators;
use amp_tests::amp_test;

/// Records `n` probe commands and returns the counter they bump when run.
fn probes(view: &AcceleratorView, n: usize, counter: &Arc<AtomicUsize>) {
    for _ in 0..n {
        let c = Arc::clone(counter);
        enqueue_probe_command(view, move || {
            c.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    }
}

#[amp_test]
fn immediate_mode_submits_every_command_at_once() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Immediate);
        let ran = Arc::new(AtomicUsize::new(0));
        for i in 1..=5 {
            probes(&view, 1, &ran);
            assert_eq!(ran.load(Ordering::SeqCst), i, "{acc}");
            let stats = view.statistics();
            assert_eq!(stats.commands, i as u64, "{acc}");
            assert_eq!(stats.submissions, i as u64, "{acc}");
            assert_eq!(stats.pending, 0, "{acc}");
        }
        view.wait().unwrap();
    }
}

#[amp_test]
fn automatic_mode_batches_until_flush() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        // Counted below: no age limit may split the batch on a busy machine.
        amp_core::__private::set_automatic_max_age(&view, Duration::from_secs(600));
        let ran = Arc::new(AtomicUsize::new(0));
        probes(&view, 10, &ran);
        let stats = view.statistics();
        assert_eq!(
            (stats.commands, stats.submissions, stats.pending),
            (10, 0, 10),
            "{acc}"
        );
        assert_eq!(
            ran.load(Ordering::SeqCst),
            0,
            "{acc}: nothing runs before the flush"
        );
        view.flush().unwrap();
        let stats = view.statistics();
        assert_eq!(
            (stats.commands, stats.submissions, stats.pending),
            (10, 1, 0),
            "{acc}"
        );
        assert_eq!(ran.load(Ordering::SeqCst), 10, "{acc}");
        // A flush with nothing pending submits nothing.
        view.flush().unwrap();
        assert_eq!(view.statistics().submissions, 1, "{acc}");
        view.wait().unwrap();
    }
}

#[amp_test]
fn wait_and_markers_submit_the_batch() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let ran = Arc::new(AtomicUsize::new(0));
        amp_core::__private::set_automatic_max_age(&view, Duration::from_secs(600));
        probes(&view, 3, &ran);
        view.wait().unwrap();
        assert_eq!(view.statistics().submissions, 1, "{acc}");
        assert_eq!(ran.load(Ordering::SeqCst), 3, "{acc}");

        probes(&view, 4, &ran);
        let marker = view.create_marker().unwrap();
        assert_eq!(
            view.statistics().submissions,
            2,
            "{acc}: the marker flushed"
        );
        assert_eq!(ran.load(Ordering::SeqCst), 7, "{acc}");
        marker.wait().unwrap();
        assert!(marker.is_ready());
        // Waiting again returns the same result at once.
        marker.wait().unwrap();
    }
}

#[amp_test]
fn automatic_mode_submits_past_the_size_threshold() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let ran = Arc::new(AtomicUsize::new(0));
        probes(&view, 1000, &ran);
        let stats = view.statistics();
        assert!(
            stats.submissions >= 1,
            "{acc}: a 1000-command batch was never submitted"
        );
        assert!(stats.pending < 1000, "{acc}");
        assert_eq!(
            ran.load(Ordering::SeqCst) + stats.pending as usize,
            1000,
            "{acc}"
        );
        view.wait().unwrap();
        assert_eq!(ran.load(Ordering::SeqCst), 1000, "{acc}");
    }
}

#[amp_test]
fn automatic_mode_submits_an_old_batch_when_the_next_command_comes() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let ran = Arc::new(AtomicUsize::new(0));
        probes(&view, 2, &ran);
        std::thread::sleep(Duration::from_millis(20));
        probes(&view, 1, &ran);
        let stats = view.statistics();
        assert_eq!((stats.submissions, stats.pending), (1, 1), "{acc}");
        assert_eq!(ran.load(Ordering::SeqCst), 2, "{acc}");
        view.wait().unwrap();
    }
}

#[amp_test]
fn markers_are_futures_with_continuations() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let ran = Arc::new(AtomicUsize::new(0));
        probes(&view, 5, &ran);
        let marker = view.create_marker().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let after = Arc::clone(&ran);
        marker.then(move |r| tx.send((r, after.load(Ordering::SeqCst))).unwrap());
        let awaited = futures::executor::block_on(marker.clone());
        assert_eq!(awaited, Ok(()), "{acc}");
        let (result, seen) = rx.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(result, Ok(()), "{acc}");
        assert_eq!(seen, 5, "{acc}: the continuation ran after the commands");
        // A continuation added after completion runs at once.
        let (tx, rx) = std::sync::mpsc::channel();
        marker.then(move |r| tx.send(r).unwrap());
        assert_eq!(rx.try_recv().unwrap(), Ok(()));
    }
}

#[amp_test]
fn markers_on_an_idle_view_are_ready() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Immediate);
        let marker = view.create_marker().unwrap();
        marker.wait().unwrap();
        assert!(marker.is_ready(), "{acc}");
    }
}

#[amp_test]
fn one_view_is_safe_to_use_from_many_threads() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 150;
    for acc in accelerators() {
        for mode in [QueuingMode::Automatic, QueuingMode::Immediate] {
            let view = acc.create_view(mode);
            let ran = Arc::new(AtomicUsize::new(0));
            std::thread::scope(|s| {
                for t in 0..THREADS {
                    let view = view.clone();
                    let ran = Arc::clone(&ran);
                    s.spawn(move || {
                        for i in 0..PER_THREAD {
                            probes(&view, 1, &ran);
                            if (i + t) % 37 == 0 {
                                view.flush().unwrap();
                            }
                            if (i + t) % 53 == 0 {
                                view.create_marker().unwrap().wait().unwrap();
                            }
                        }
                        view.wait().unwrap();
                    });
                }
            });
            view.wait().unwrap();
            let stats = view.statistics();
            assert_eq!(
                stats.commands,
                (THREADS * PER_THREAD) as u64,
                "{acc} {mode}"
            );
            assert_eq!(stats.pending, 0, "{acc} {mode}");
            assert_eq!(
                ran.load(Ordering::SeqCst),
                THREADS * PER_THREAD,
                "{acc} {mode}"
            );
            if mode == QueuingMode::Immediate {
                assert_eq!(stats.submissions, stats.commands, "{acc}");
            } else {
                assert!(
                    stats.submissions < stats.commands,
                    "{acc}: automatic mode batched nothing"
                );
            }
        }
    }
}

#[amp_test]
fn views_of_one_accelerator_queue_independently() {
    for acc in accelerators() {
        let a = acc.create_view(QueuingMode::Automatic);
        let b = acc.create_view(QueuingMode::Automatic);
        for v in [&a, &b] {
            amp_core::__private::set_automatic_max_age(v, Duration::from_secs(600));
        }
        let ran = Arc::new(AtomicUsize::new(0));
        probes(&a, 3, &ran);
        probes(&b, 2, &ran);
        b.flush().unwrap();
        assert_eq!(
            ran.load(Ordering::SeqCst),
            2,
            "{acc}: flushing b left a's batch alone"
        );
        assert_eq!(a.statistics().pending, 3, "{acc}");
        a.wait().unwrap();
        assert_eq!(ran.load(Ordering::SeqCst), 5, "{acc}");
    }
}

#[amp_test(wgpu)]
fn a_thousand_awaited_futures_share_one_waiter_thread_per_device() {
    let gpus = amp_tests::gpu_accelerators();
    for acc in &gpus {
        let view = acc.create_view(QueuingMode::Immediate);
        let ran = Arc::new(AtomicUsize::new(0));
        let mut markers = Vec::new();
        for _ in 0..1000 {
            probes(&view, 1, &ran);
            markers.push(view.create_marker().unwrap());
        }
        // Half continued, all awaited at once: each pending future is handed
        // to a waiter before any of them completes.
        let continued = Arc::new(AtomicUsize::new(0));
        for marker in markers.iter().step_by(2) {
            let continued = Arc::clone(&continued);
            marker.then(move |r| {
                if r.is_ok() {
                    continued.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        let results = futures::executor::block_on(futures::future::join_all(markers));
        assert!(results.iter().all(Result::is_ok), "{acc}: {results:?}");
        assert_eq!(ran.load(Ordering::SeqCst), 1000, "{acc}");
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while continued.load(Ordering::SeqCst) < 500 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(continued.load(Ordering::SeqCst), 500, "{acc}");
    }
    // Every device of the process (at most one per adapter), whatever the
    // other tests of this binary awaited.
    let started = amp_core::__private::completion_threads_started();
    assert!(
        started <= gpus.len(),
        "{started} completion threads for {} GPU devices",
        gpus.len()
    );
    if !gpus.is_empty() {
        assert!(started >= 1, "no future was completed by a waiter thread");
    }
}
