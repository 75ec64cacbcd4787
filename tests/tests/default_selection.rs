//! Default accelerator selection: `set_default`, the preference order and the
//! `AMP_DEFAULT_ACCELERATOR` variable; and `AMP_DENY_F64`, which refuses
//! kernels computing in `f64` on every accelerator. Both are process-wide
//! state, so each case that needs a fresh process re-runs this test binary
//! as a child.

use std::process::Command;

use amp_core::{Accelerator, Error};
use amp_tests::accelerators;

const CHILD_VAR: &str = "AMP_TEST_DEFAULT_CHILD";

/// Runs the ignored test `name` of this binary in a child process with
/// `AMP_DEFAULT_ACCELERATOR` set to `value` and returns whether it passed.
fn run_child(name: &str, value: &str) -> bool {
    run_child_with(name, &[("AMP_DEFAULT_ACCELERATOR", value)])
}

/// Runs the ignored test `name` of this binary in a child process with the
/// variables `vars` set and returns whether it passed.
fn run_child_with(name: &str, vars: &[(&str, &str)]) -> bool {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .envs(vars.iter().copied())
        .env(CHILD_VAR, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("1 passed") || stdout.contains("1 failed"),
        "{stdout}\n{stderr}"
    );
    out.status.success()
}

#[test]
fn set_default_works_until_the_default_is_used() {
    if std::env::var_os(CHILD_VAR).is_some() {
        return;
    }
    // This is the only test of this binary that touches the default in the
    // parent process.
    let all = accelerators();
    let last = all.last().unwrap().clone();
    Accelerator::set_default(last.device_path()).unwrap();
    assert!(matches!(
        Accelerator::set_default("no such accelerator"),
        Err(Error::UnknownAccelerator { .. })
    ));
    Accelerator::set_default(last.device_path()).unwrap();
    assert_eq!(Accelerator::default().unwrap(), last);
    match Accelerator::set_default("cpu") {
        Err(Error::DefaultAcceleratorInUse { current }) => assert_eq!(current, last.device_path()),
        other => panic!("expected DefaultAcceleratorInUse, got {other:?}"),
    }
    assert_eq!(
        Accelerator::default().unwrap(),
        last,
        "the default did not change"
    );
}

#[test]
#[ignore = "run as a child process by the tests below"]
fn child_default_is_unknown() {
    let name = std::env::var("AMP_DEFAULT_ACCELERATOR").unwrap();
    match Accelerator::default() {
        Err(Error::UnknownAccelerator { name: n, available }) => {
            assert!(
                n.contains(&name) && n.contains("AMP_DEFAULT_ACCELERATOR"),
                "{n}"
            );
            assert_eq!(available.len(), Accelerator::all().len());
        }
        other => panic!("expected UnknownAccelerator, got {other:?}"),
    }
    // The error is not a silent fallback the second time either.
    assert!(Accelerator::default().is_err());
}

#[test]
#[ignore = "run as a child process by the tests below"]
fn child_default_matches_variable() {
    let name = std::env::var("AMP_DEFAULT_ACCELERATOR").unwrap();
    let chosen = Accelerator::default().unwrap();
    assert!(
        chosen.device_path() == name
            || chosen
                .description()
                .to_lowercase()
                .contains(&name.to_lowercase()),
        "{name} selected {chosen:?}"
    );
    assert_eq!(Accelerator::default().unwrap(), chosen);
}

#[test]
#[ignore = "run as a child process by the tests below"]
fn child_default_is_best_ranked() {
    let chosen = Accelerator::default().unwrap();
    assert_eq!(chosen, Accelerator::all()[0]);
    // A Vulkan adapter beats the CPU accelerator, but for llvmpipe, whose
    // loops stop after 65,535 iterations.
    let llvmpipe = |a: &Accelerator| a.description().to_lowercase().contains("llvmpipe");
    if Accelerator::all()
        .iter()
        .any(|a| a.backend() == "vulkan" && !llvmpipe(a))
    {
        assert!(
            !chosen.is_cpu(),
            "a Vulkan adapter beats the CPU accelerator"
        );
    } else {
        assert!(!llvmpipe(&chosen), "llvmpipe is never the default");
    }
}

#[test]
fn an_unknown_name_in_the_variable_is_an_error() {
    if std::env::var_os(CHILD_VAR).is_some() {
        return;
    }
    assert!(run_child(
        "child_default_is_unknown",
        "no-such-accelerator-xyz"
    ));
}

#[test]
fn the_variable_selects_every_accelerator_by_path() {
    if std::env::var_os(CHILD_VAR).is_some() {
        return;
    }
    for acc in accelerators() {
        assert!(
            run_child("child_default_matches_variable", acc.device_path()),
            "{acc}"
        );
    }
    assert!(run_child("child_default_matches_variable", "CPU Accel"));
}

#[test]
fn without_the_variable_the_best_ranked_is_default() {
    if std::env::var_os(CHILD_VAR).is_some() {
        return;
    }
    assert!(run_child("child_default_is_best_ranked", ""));
}

/// Doubles `x` through a scale that Rust makes `f64`: `0.5` and `4.0` have
/// no suffix and nothing fixes their type (the mistake `AMP_DENY_F64` is
/// for). Returns the kernel's result and the line of the literal `0.5`.
fn doubled_through_f64(
    view: &amp_core::AcceleratorView,
    x: &[f32],
) -> (amp_core::Result<Vec<f32>>, u32) {
    use amp_core::prelude::*;
    let mut out = vec![f32::NAN; x.len()];
    let line = line!() + 5;
    let result = (|| {
        let xv = ArrayView::new([x.len() as i32], x)?;
        let o = ArrayView::new_mut([x.len() as i32], &mut out)?;
        parallel_for_each!(view, o.extent(), |i: Index<1>| {
            let scale = 0.5;
            let twice = scale * 4.0;
            o[i] = xv[i] * twice as f32;
        })?;
        o.synchronize()
    })();
    (result.map(|()| out), line)
}

#[test]
#[ignore = "run as a child process by the tests below"]
fn child_f64_kernels_are_refused_naming_the_literal() {
    use amp_core::prelude::*;
    let x: Vec<f32> = (0..37).map(|i| i as f32 - 3.5).collect();
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let (got, line) = doubled_through_f64(&view, &x);
        match got {
            Err(Error::UnsupportedFeature { feature, .. }) => {
                assert!(
                    feature.starts_with("double precision (f64)"),
                    "{acc}: {feature}"
                );
                assert!(
                    feature.contains(&format!("default_selection.rs:{line}:")),
                    "{acc}: the literal's line {line} is not named: {feature}"
                );
                assert!(feature.contains("AMP_DENY_F64"), "{acc}: {feature}");
            }
            other => panic!("{acc}: expected the f64 refusal, got {other:?}"),
        }
        // An `f32` kernel still runs.
        let mut out = vec![f32::NAN; x.len()];
        {
            let xv = ArrayView::new([x.len() as i32], &x).unwrap();
            let o = ArrayView::new_mut([x.len() as i32], &mut out).unwrap();
            parallel_for_each!(&view, o.extent(), |i: Index<1>| {
                let scale = 0.5f32;
                o[i] = xv[i] * (scale * 4.0);
            })
            .unwrap();
            o.synchronize().unwrap();
        }
        for (g, v) in out.iter().zip(&x) {
            assert_eq!(*g, v * 2.0, "{acc}");
        }
    }
}

/// `AMP_DENY_F64=1` refuses a kernel that computes in `f64` on every
/// accelerator (CPU included) with the error a GPU without double precision
/// gives, naming the unsuffixed literal that made it `f64`; without the
/// variable the same kernel runs (every accelerator here has `f64`).
#[test]
fn deny_f64_refuses_f64_kernels_everywhere_naming_the_literal() {
    if std::env::var_os(CHILD_VAR).is_some() {
        return;
    }
    assert!(run_child_with(
        "child_f64_kernels_are_refused_naming_the_literal",
        &[("AMP_DENY_F64", "1")]
    ));
    let x: Vec<f32> = (0..37).map(|i| i as f32 * 0.25).collect();
    for acc in accelerators() {
        if !acc.supports_double_precision() {
            continue;
        }
        let view = acc.create_view(amp_core::QueuingMode::Automatic);
        let (got, _) = doubled_through_f64(&view, &x);
        let got = got.unwrap_or_else(|e| panic!("{acc}: {e}"));
        for (g, v) in got.iter().zip(&x) {
            assert_eq!(*g, v * 2.0, "{acc}");
        }
    }
}
