//! `samples`, the README's main job: it runs every sample on the default
//! accelerator (also when forced to the CPU), reports each as matching the
//! CPU reference, and refuses bad arguments.

use std::process::Command;

fn samples(args: &[&str], default: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_samples"));
    cmd.args(args);
    match default {
        Some(v) => cmd.env("AMP_DEFAULT_ACCELERATOR", v),
        None => cmd.env_remove("AMP_DEFAULT_ACCELERATOR"),
    };
    let out = cmd.output().expect("samples runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn runs_every_sample_on_the_default_accelerator_and_on_the_cpu() {
    let small = [
        "--matmul", "40", "--conv", "70", "--radius", "3", "--runs", "1",
    ];
    for default in [None, Some("cpu")] {
        let (code, out, err) = samples(&small, default);
        assert_eq!(code, 0, "{default:?}\n{out}\n{err}");
        let expected = match default {
            Some(_) => amp_core::Accelerator::cpu(),
            None => amp_core::Accelerator::default().unwrap(),
        };
        assert!(
            out.starts_with(&format!("accelerator: {expected}\n")),
            "{out}"
        );
        for name in [
            "matmul_simple",
            "matmul_tiled",
            "convolution_simple",
            "convolution_tiling",
        ] {
            let line = out
                .lines()
                .find(|l| l.trim_start().starts_with(name))
                .unwrap_or_else(|| panic!("no line for {name}:\n{out}"));
            assert!(line.ends_with(" ok"), "{line}");
        }
        assert!(out.contains("all samples match the CPU reference"), "{out}");
    }
}

#[test]
fn refuses_bad_arguments() {
    for args in [
        &["--matmul"][..],
        &["--matmul", "0"],
        &["--conv", "-5"],
        &["--radius", "x"],
        &["--frobnicate"],
    ] {
        let (code, out, err) = samples(args, Some("cpu"));
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.starts_with("samples: "), "{args:?}: {err}");
    }
    // A radius too wide for a tile is an error of the tiled convolution.
    let (code, _, err) = samples(
        &[
            "--matmul", "8", "--conv", "8", "--radius", "64", "--runs", "1",
        ],
        Some("cpu"),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("radius 64"), "{err}");
}

/// `samples --help` (and `-h`) prints the usage to stdout, with how to pick
/// an accelerator, and exits 0 without running anything.
#[test]
fn help_goes_to_stdout_and_succeeds() {
    for flag in ["--help", "-h"] {
        let (code, out, err) = samples(&[flag], Some("cpu"));
        assert_eq!(code, 0, "{flag}: {out}{err}");
        assert!(out.contains("usage: samples"), "{flag}: {out}");
        assert!(out.contains("AMP_DEFAULT_ACCELERATOR"), "{flag}: {out}");
        assert!(
            !out.lines().any(|l| l.starts_with("accelerator: ")),
            "{flag} ran the samples: {out}"
        );
        assert!(err.is_empty(), "{flag}: {err}");
    }
}
