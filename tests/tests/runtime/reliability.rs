//! Reliability of the runtime (the adversarial-testing issue): failed
//! kernels leave data as it was and report their error to the code that
//! launched them (D1-D3), runaway kernels can be stopped (D8), and a
//! panicking continuation harms nothing else (D17).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_core::{Error, Result, kernel};
use amp_tests::accelerators;
use amp_tests::amp_test;

/// A continuation that panics neither escapes into the thread that
/// completes the future nor stops the continuations after it (D17), on a
/// ready future and on one that completes later.
#[amp_test]
fn a_panicking_continuation_harms_nothing_else() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let n = 1 << 16;
        let mut data = vec![1.0f32; n];
        let (tx, rx) = mpsc::channel();
        {
            let v = ArrayView::new_mut([n as i32], &mut data).unwrap();
            parallel_for_each!(view, v.extent(), |idx: Index<1>| {
                let mut x = v[idx];
                for _ in 0..200 {
                    x = x * 0.5 + 1.0;
                }
                v[idx] = x;
            })
            .unwrap();
            // Registered before the work may have finished, then after.
            let marker = view.create_marker().unwrap();
            marker.then(|_| panic!("a continuation panics"));
            let tx2 = tx.clone();
            marker.then(move |r| tx2.send(("second", r.is_ok())).unwrap());
            marker.wait().unwrap();
            marker.then(|_| panic!("a continuation panics again"));
            let tx3 = tx.clone();
            marker.then(move |r| tx3.send(("after", r.is_ok())).unwrap());
            v.synchronize().unwrap();
        }
        let mut got: Vec<_> = (0..2)
            .map(|_| {
                rx.recv_timeout(Duration::from_secs(30))
                    .expect("a continuation never ran")
            })
            .collect();
        got.sort();
        assert_eq!(got, [("after", true), ("second", true)], "{acc}");
        assert!(data.iter().all(|&x| (x - 2.0).abs() < 1e-5), "{acc}");
    }
}

/// A kernel that writes every element and then fails (an out-of-bounds
/// read in its last work item) on the CPU accelerator.
fn failing_kernel(
    view: &AcceleratorView,
    a: &ArrayView<'_, i32, 1, ReadOnly>,
    o: &ArrayView<'_, i32, 1, ReadWrite>,
) -> amp_core::Result<()> {
    let n = a.extent()[0];
    parallel_for_each!(view, o.extent(), |idx: Index<1>| {
        o[idx] = -1;
        let j = if idx[0] == n - 1 { n } else { idx[0] };
        o[idx] = a[[j]] * 2;
    })
}

/// A tiled kernel that writes every element, meets a barrier, and fails in
/// the last work item.
fn failing_tiled_kernel(
    view: &AcceleratorView,
    a: &ArrayView<'_, i32, 1, ReadOnly>,
    o: &ArrayView<'_, i32, 1, ReadWrite>,
) -> amp_core::Result<()> {
    let n = a.extent()[0];
    parallel_for_each!(view, o.extent().tile::<16>().unwrap(), |t: TiledIndex<
        1,
    >| {
        o[t.global] = -1;
        t.barrier.wait();
        let j = if t.global[0] == n - 1 { n } else { t.global[0] };
        o[t.global] = a[[j]] * 2;
    })
}

/// A failed kernel leaves the data as it was (D1), in both queuing modes,
/// tiled or not; the error reaches the launch (immediate) or the next
/// access to the data (automatic).
#[test]
fn a_failed_kernel_leaves_data_as_it_was() {
    for mode in [QueuingMode::Immediate, QueuingMode::Automatic] {
        for tiled in [false, true] {
            let view = Accelerator::cpu().create_view(mode);
            let mut rng = amp_tests::Rng::new(9400 + tiled as u64);
            let n = 4096;
            let input = i32s(&mut rng, n, -1000, 1000);
            let original = i32s(&mut rng, n, -1000, 1000);
            let mut out = original.clone();
            let what = format!("{mode} tiled={tiled}");
            {
                let a = ArrayView::new([n as i32], &input).unwrap();
                let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
                let launched = if tiled {
                    failing_tiled_kernel(&view, &a, &o)
                } else {
                    failing_kernel(&view, &a, &o)
                };
                let err = match mode {
                    QueuingMode::Immediate => launched.unwrap_err(),
                    _ => {
                        launched.unwrap();
                        o.synchronize().unwrap_err()
                    }
                };
                assert!(err.to_string().contains("out of bounds"), "{what}: {err}");
                // Reported once: the data reads as it was.
                assert_eq!(o.to_vec().unwrap(), original, "{what}");
            }
            assert_eq!(out, original, "{what}");
        }
    }
}

/// In one automatic batch, a failing kernel does not stop the kernels
/// after it (D2): their results arrive, and only the failed one's data
/// reports the error.
#[test]
fn a_failure_does_not_drop_the_rest_of_the_batch() {
    let mut rng = amp_tests::Rng::new(9410);
    let n = 512;
    let input = i32s(&mut rng, n, -1000, 1000);
    // The four launches must form one batch: were the first one submitted
    // before the second is recorded, the second launch (it writes the same
    // data) would report the first one's failure. The view's age limit is
    // raised so that a busy machine cannot split the batch, and a first
    // round on a view of its own compiles (measures) the kernels.
    for checked in [false, true] {
        let view = Accelerator::cpu().create_view(QueuingMode::Automatic);
        amp_core::__private::set_automatic_max_age(&view, Duration::from_secs(600));
        let mut bad = vec![POISON_I32; n];
        let mut good = vec![POISON_I32; n];
        let mut good2 = vec![POISON_I32; n];
        {
            let a = ArrayView::new([n as i32], &input).unwrap();
            let b = ArrayView::new_mut([n as i32], &mut bad).unwrap();
            let g = ArrayView::new_mut([n as i32], &mut good).unwrap();
            let g2 = ArrayView::new_mut([n as i32], &mut good2).unwrap();
            g.discard_data();
            g2.discard_data();
            let first = failing_kernel(&view, &a, &b);
            parallel_for_each!(view, g.extent(), |idx: Index<1>| {
                g[idx] = a[idx] + 1;
            })
            .unwrap();
            let second = failing_kernel(&view, &a, &b);
            parallel_for_each!(view, g2.extent(), |idx: Index<1>| {
                g2[idx] = a[idx] * 3;
            })
            .unwrap();
            if !checked {
                let _ = (first, second, view.wait(), b.synchronize());
                continue;
            }
            first.unwrap();
            second.unwrap();
            assert_eq!(view.statistics().pending, 4);
            g.synchronize().unwrap();
            g2.synchronize().unwrap();
            // The failures are reported to the view (once: the first, with
            // the later ones)...
            assert!(view.wait().is_err());
            view.wait().unwrap();
            // ...and once to the failed data's user.
            assert!(b.synchronize().is_err());
            b.synchronize().unwrap();
        }
        assert_same(
            &good,
            &input.iter().map(|x| x + 1).collect::<Vec<_>>(),
            "good",
        );
        assert_same(
            &good2,
            &input.iter().map(|x| x * 3).collect::<Vec<_>>(),
            "good2",
        );
        assert_same(&bad, &[POISON_I32; 512], "bad");
    }
}

/// A kernel's failure reaches the thread that launched it even when another
/// thread ran its batch (D3): the launcher's `synchronize` reports it and
/// its data is unchanged; the other thread's `flush` reports it too.
#[test]
fn a_failure_reaches_the_launching_thread() {
    let view = Accelerator::cpu().create_view(QueuingMode::Automatic);
    let mut rng = amp_tests::Rng::new(9420);
    let n = 1024;
    let input = i32s(&mut rng, n, -1000, 1000);
    let original = i32s(&mut rng, n, -1000, 1000);
    let mut out = original.clone();
    let (launched_tx, launched_rx) = mpsc::channel();
    let (flushed_tx, flushed_rx) = mpsc::channel();
    std::thread::scope(|s| {
        let other = view.clone();
        s.spawn(move || {
            launched_rx.recv().unwrap();
            // This thread runs the batch, and hears of the failure.
            assert!(other.flush().is_err());
            flushed_tx.send(()).unwrap();
        });
        let a = ArrayView::new([n as i32], &input).unwrap();
        let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
        failing_kernel(&view, &a, &o).unwrap();
        launched_tx.send(()).unwrap();
        flushed_rx.recv().unwrap();
        assert_eq!(view.statistics().pending, 0);
        let err = o.synchronize().unwrap_err();
        assert!(err.to_string().contains("out of bounds"), "{err}");
        o.synchronize().unwrap();
    });
    assert_eq!(out, original);
}

/// The CPU accelerator, in both queuing modes.
fn cpu_views() -> Vec<(AcceleratorView, String)> {
    [QueuingMode::Immediate, QueuingMode::Automatic]
        .into_iter()
        .map(|mode| {
            (
                Accelerator::cpu().create_view(mode),
                format!("[cpu / {mode}]"),
            )
        })
        .collect()
}

fn original(n: i32) -> Vec<i32> {
    (0..n).map(|i| i * 7 + 1).collect()
}

/// After a stopped kernel, the same view runs the next kernel correctly.
fn next_kernel_works(view: &AcceleratorView, what: &str) {
    let n = 100;
    let mut out = vec![POISON_I32; n as usize];
    {
        let o = ArrayView::new_mut([n], &mut out).unwrap();
        parallel_for_each!(view, o.extent(), |idx: Index<1>| {
            o[idx] = idx[0] + 1;
        })
        .unwrap();
        o.synchronize().unwrap();
    }
    assert_eq!(out, (1..=n).collect::<Vec<_>>(), "{what} next kernel");
}

/// A kernel that never ends (while `flag == 0`), writing its data as it
/// spins. Returns the error of the launch or of the synchronize after it.
fn spin(view: &AcceleratorView, o: &ArrayView<'_, i32, 1, ReadWrite>) -> Result<()> {
    let flag = 0;
    parallel_for_each!(view, o.extent(), |idx: Index<1>| {
        o[idx] = -7;
        while flag == 0 {
            o[idx] = o[idx] + 1;
        }
    })?;
    o.synchronize()
}

/// D8: a runaway kernel on the CPU accelerator is stopped by the view's
/// timeout: `Error::Timeout` within a bounded time, data unchanged, and the
/// view keeps working.
#[test]
fn runaway_kernel_times_out() {
    for (view, what) in cpu_views() {
        view.set_timeout(Some(Duration::from_millis(200)));
        assert_eq!(view.timeout(), Some(Duration::from_millis(200)));
        let n = 64;
        let before = original(n);
        let mut out = before.clone();
        {
            let o = ArrayView::new_mut([n], &mut out).unwrap();
            let start = Instant::now();
            let err = spin(&view, &o).unwrap_err();
            assert!(matches!(err, Error::Timeout(_)), "{what}: {err:?}");
            assert!(start.elapsed() < Duration::from_secs(20), "{what}");
            assert_eq!(o.to_vec().unwrap(), before, "{what}");
        }
        assert_eq!(out, before, "{what}");
        view.set_timeout(None);
        next_kernel_works(&view, &what);
    }
}

/// D8: `cancel` from another thread stops a running kernel with
/// `Error::Cancelled`; data unchanged; the view keeps working.
#[test]
fn runaway_kernel_is_cancelled() {
    for (view, what) in cpu_views() {
        let n = 64;
        let before = original(n);
        let mut out = before.clone();
        {
            let o = ArrayView::new_mut([n], &mut out).unwrap();
            let canceller = view.clone();
            let start = Instant::now();
            let err = std::thread::scope(|s| {
                s.spawn(move || {
                    std::thread::sleep(Duration::from_millis(150));
                    canceller.cancel();
                });
                spin(&view, &o).unwrap_err()
            });
            assert!(matches!(err, Error::Cancelled(_)), "{what}: {err:?}");
            assert!(start.elapsed() < Duration::from_secs(20), "{what}");
            assert_eq!(o.to_vec().unwrap(), before, "{what}");
        }
        assert_eq!(out, before, "{what}");
        next_kernel_works(&view, &what);
    }
}

#[kernel]
fn spin_until_nonzero(x: i32) -> i32 {
    let mut v = x;
    while v == 0 {
        v *= 1;
    }
    v
}

/// D8: loops in `#[kernel]` functions and tiled kernels are stopped too.
#[test]
fn runaway_tiled_kernel_and_kernel_function_time_out() {
    for (view, what) in cpu_views() {
        view.set_timeout(Some(Duration::from_millis(150)));
        let n = 64;
        let before = original(n);
        let mut out = before.clone();
        {
            let o = ArrayView::new_mut([n], &mut out).unwrap();
            let zero = 0;
            let domain = o.extent().tile::<8>().unwrap();
            let r = parallel_for_each!(view, domain, |t: TiledIndex<1>| {
                o[t.global] = 3;
                t.barrier.wait();
                o[t.global] = spin_until_nonzero(zero);
            })
            .and_then(|()| o.synchronize());
            assert!(matches!(r, Err(Error::Timeout(_))), "{what}: {r:?}");
            assert_eq!(o.to_vec().unwrap(), before, "{what}");
        }
        assert_eq!(out, before, "{what}");
        view.set_timeout(None);
        next_kernel_works(&view, &what);
    }
}

/// A batch the device refuses (a runtime bug, forced here) is reported by
/// the next wait instead of being dropped without a word; the view works
/// afterwards.
#[amp_test(wgpu)]
fn a_refused_batch_is_reported() {
    for acc in amp_tests::gpu_accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        amp_core::__private::enqueue_refused_command(&view).unwrap();
        let err = view.wait().unwrap_err();
        assert!(
            matches!(&err, Error::Runtime(m) if m.contains("refused")),
            "{acc}: {err:?}"
        );
        view.wait().unwrap();
        let a = Array::from_slice([4], &[1, 2, 3, 4], &view).unwrap();
        parallel_for_each!(&view, a.extent(), |idx: Index<1>| {
            a[idx] *= 2;
        })
        .unwrap();
        assert_eq!(a.to_vec().unwrap(), [2, 4, 6, 8], "{acc}");
    }
}

/// An out-of-bounds access on the CPU accelerator is one error, with the
/// line of the access itself (not only the kernel's), and nothing printed
/// through the panic hook: the work item stops without a panic message.
#[test]
fn an_out_of_bounds_access_names_its_own_line_and_prints_nothing() {
    use std::sync::{Arc, Mutex};
    let heard: Arc<Mutex<Vec<String>>> = Arc::default();
    let previous = Arc::new(std::panic::take_hook());
    {
        let (heard, previous) = (heard.clone(), previous.clone());
        std::panic::set_hook(Box::new(move |info| {
            heard.lock().unwrap().push(info.to_string());
            previous(info);
        }));
    }
    let mut rng = amp_tests::Rng::new(9430);
    let n = 300;
    let input = i32s(&mut rng, n, -1000, 1000);
    let mut out = vec![POISON_I32; n];
    let view = Accelerator::cpu().create_view(QueuingMode::Immediate);
    let a = ArrayView::new([n as i32], &input).unwrap();
    let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
    let line = line!() + 2;
    let err = parallel_for_each!(view, o.extent(), |i: Index<1>| {
        o[i] = a[i + 1] * 2;
    })
    .unwrap_err()
    .to_string();
    drop(std::panic::take_hook());
    let expected = format!("{}:{line}:", file!());
    assert!(err.contains("out of bounds"), "{err}");
    assert!(err.contains(&expected), "{err} does not name {expected}");
    let printed: Vec<String> = heard
        .lock()
        .unwrap()
        .iter()
        .filter(|m| m.contains("is out of bounds of"))
        .cloned()
        .collect();
    assert!(printed.is_empty(), "the panic hook printed {printed:?}");
}
