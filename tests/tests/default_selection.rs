//! Default accelerator selection: `set_default`, the preference order and the
//! `AMP_DEFAULT_ACCELERATOR` variable. The default is process-wide state, so
//! each case that needs a fresh process re-runs this test binary as a child.

use std::process::Command;

use amp_core::{Accelerator, Error};
use amp_tests::accelerators;

const CHILD_VAR: &str = "AMP_TEST_DEFAULT_CHILD";

/// Runs the ignored test `name` of this binary in a child process with
/// `AMP_DEFAULT_ACCELERATOR` set to `value` and returns whether it passed.
fn run_child(name: &str, value: &str) -> bool {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("AMP_DEFAULT_ACCELERATOR", value)
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
