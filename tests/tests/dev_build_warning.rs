//! The CPU accelerator's one-time warning about kernels compiled without
//! optimisation (a debug build of the crate that writes them): logged once
//! per process, with the advice, at the first CPU launch; not at all from
//! a build without debug assertions. Its own test binary: it installs a
//! recording logger for the process.

use std::sync::Mutex;

use amp_core::prelude::*;

/// The warnings logged so far.
static WARNINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Recorder;

impl log::Log for Recorder {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn
    }

    fn log(&self, record: &log::Record<'_>) {
        if record.level() == log::Level::Warn {
            WARNINGS.lock().unwrap().push(record.args().to_string());
        }
    }

    fn flush(&self) {}
}

static RECORDER: Recorder = Recorder;

#[test]
fn unoptimised_kernels_are_reported_once_with_the_advice() {
    log::set_logger(&RECORDER).unwrap();
    log::set_max_level(log::LevelFilter::Warn);
    let view = Accelerator::cpu().default_view();
    for round in 0..3 {
        let mut out = vec![0i32; 64];
        {
            let o = ArrayView::new_mut([64], &mut out).unwrap();
            parallel_for_each!(&view, o.extent(), |idx: Index<1>| {
                o[idx] = idx[0] * 2 + round;
            })
            .unwrap();
            o.synchronize().unwrap();
        }
        let want: Vec<i32> = (0..64).map(|i| i * 2 + round).collect();
        assert_eq!(out, want);
    }
    let warnings: Vec<String> = WARNINGS
        .lock()
        .unwrap()
        .iter()
        .filter(|w| w.contains("debug build"))
        .cloned()
        .collect();
    if cfg!(debug_assertions) {
        assert_eq!(warnings.len(), 1, "{warnings:#?}");
        assert!(
            warnings[0].contains("opt-level = 1") && warnings[0].contains("--release"),
            "{}",
            warnings[0]
        );
    } else {
        assert!(warnings.is_empty(), "{warnings:#?}");
    }
}
