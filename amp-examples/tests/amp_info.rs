//! `amp-info`, the accelerator listing the README points to: it must list the
//! CPU accelerator (and every wgpu adapter), mark one default, and fail
//! clearly on a bad `AMP_DEFAULT_ACCELERATOR`.

use std::process::Command;

fn amp_info(default: Option<&str>) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_amp-info"));
    match default {
        Some(v) => cmd.env("AMP_DEFAULT_ACCELERATOR", v),
        None => cmd.env_remove("AMP_DEFAULT_ACCELERATOR"),
    };
    cmd.output().expect("amp-info runs")
}

#[test]
fn lists_every_accelerator_and_marks_the_default() {
    let out = amp_info(None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = amp_core::Accelerator::all();
    assert!(
        stdout.starts_with(&format!("{} accelerator(s):", all.len())),
        "{stdout}"
    );
    for acc in &all {
        assert!(
            stdout.contains(&format!(
                "device_path                       {}\n",
                acc.device_path()
            )),
            "{acc} missing from\n{stdout}"
        );
    }
    assert_eq!(stdout.matches("(default)").count(), 1, "{stdout}");
    assert!(stdout.contains("- ready"), "{stdout}");
}

#[test]
fn selects_the_cpu_accelerator_by_name() {
    let out = amp_info(Some("cpu"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("CPU accelerator (native Rust) (default)"),
        "{stdout}"
    );
    assert!(stdout.contains("default accelerator: CPU accelerator (native Rust) (cpu) - ready"));
}

#[test]
fn a_bad_default_name_fails_with_the_reason() {
    let out = amp_info(Some("definitely-not-a-device"));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no accelerator matches"), "{stderr}");
    assert!(stderr.contains("definitely-not-a-device"), "{stderr}");
    assert!(stderr.contains("cpu (CPU accelerator"), "{stderr}");
}
