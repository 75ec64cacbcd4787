//! The README's main job: runs the ported C++ AMP samples (matrix
//! multiplication, simple and tiled; separable convolution, simple and
//! tiled) on the default accelerator, checks every result against the CPU
//! reference and prints the times.
//!
//! ```text
//! samples [--matmul N] [--conv N] [--radius R] [--runs K]
//! ```
//!
//! `AMP_DEFAULT_ACCELERATOR` picks the accelerator (see `amp-info`); with no
//! GPU it is the CPU accelerator. On emulated accelerators (the CPU,
//! software Vulkan such as lavapipe) the default sizes are smaller.
//! Times are wall clock per call, transfers included (median of `K` runs
//! after a warm-up that compiles the kernels), beside the plain Rust loop
//! (one thread) that computes the reference. `--help` prints the usage and
//! how to choose the accelerator. Exits with 1 if a result is wrong, 2 on
//! bad arguments or an error.

use std::process::ExitCode;
use std::time::Instant;

use amp_core::{Accelerator, AcceleratorView};
use amp_examples::{convolution, matmul, max_relative_error};

/// What `--help` prints.
const HELP: &str = "\
samples: runs the ported C++ AMP samples (matrix multiplication, simple and
tiled; separable convolution, simple and tiled) on the default accelerator,
checks every result against a plain Rust reference and prints the times.

usage: samples [--matmul N] [--conv N] [--radius R] [--runs K]

  --matmul N   multiply N x N matrices (default 1024; 128 on the CPU
               accelerator and software GPUs)
  --conv N     convolve an N x N image (default 2048; 256 there)
  --radius R   the convolution filter's radius (default 8)
  --runs K     time the median of K runs after a warm-up (default 3)
  -h, --help   print this help

The accelerator: the best GPU wgpu finds (Vulkan, Metal, DX12, GL), else
the CPU accelerator (native Rust on every core, always there). To choose,
list them with `cargo run --release -p amp-examples --bin amp-info` and set
AMP_DEFAULT_ACCELERATOR to a device path it prints, e.g.

  AMP_DEFAULT_ACCELERATOR=vulkan/10de-2335/0 cargo run --release -p amp-examples --bin samples
  AMP_DEFAULT_ACCELERATOR=cpu cargo run --release -p amp-examples --bin samples

No GPU listed? Install its Vulkan driver (or Mesa's lavapipe, a software
Vulkan GPU, to try the GPU path). Build with --release: a debug build runs
CPU kernels unoptimised, tens of times slower.

Exit status: 0 when every result matches, 1 when one differs, 2 on bad
arguments or an error.";

struct Options {
    matmul: Option<i32>,
    conv: Option<i32>,
    radius: i32,
    runs: usize,
}

/// The options; `None` for `--help` (printed).
fn parse() -> Result<Option<Options>, String> {
    let mut o = Options {
        matmul: None,
        conv: None,
        radius: 8,
        runs: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| -> Result<i64, String> {
            let v = args.next().ok_or(format!("{name} needs a value"))?;
            v.parse::<i64>()
                .ok()
                .filter(|&n| n > 0 && n <= i64::from(i32::MAX))
                .ok_or(format!("{name} takes a positive number, not {v:?}"))
        };
        match flag.as_str() {
            "--matmul" => o.matmul = Some(value("--matmul")? as i32),
            "--conv" => o.conv = Some(value("--conv")? as i32),
            "--radius" => o.radius = value("--radius")? as i32,
            "--runs" => o.runs = value("--runs")? as usize,
            "-h" | "--help" => {
                println!("{HELP}");
                return Ok(None);
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(Some(o))
}

/// What the accelerator is, and how to run elsewhere.
fn describe(acc: &Accelerator) {
    if acc.is_cpu() {
        println!(
            "  the CPU accelerator: kernels run as native Rust on {} threads; no GPU was found, or AMP_DEFAULT_ACCELERATOR chose it (`samples --help` says how to run on a GPU)",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        );
    } else if acc.is_emulated() {
        println!(
            "  a software GPU ({}): kernels run as WGSL on the CPU, slower than a real GPU or the CPU accelerator (`samples --help` says how to choose)",
            acc.backend()
        );
    } else {
        println!("  a GPU, through {}", acc.backend());
    }
    if cfg!(debug_assertions) {
        println!(
            "  (a debug build: CPU-side work runs unoptimised; build with --release for representative times)"
        );
    }
}

/// Prints the time of the plain Rust loop that computed the reference.
fn report_reference(secs: f64, rate: f64, unit: &str) {
    println!(
        "  {:<22} {:>10.3} ms {:>10.2} {unit:<10} (the reference, one thread)",
        "plain Rust loop",
        secs * 1e3,
        rate,
    );
}

/// A reproducible pseudo-random matrix of small values.
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            ((x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) % 256) as f32 / 64.0 - 2.0
        })
        .collect()
}

/// Runs `f` once to warm up, then `runs` times; the median seconds.
fn time(runs: usize, mut f: impl FnMut() -> amp_core::Result<()>) -> amp_core::Result<f64> {
    f()?;
    let mut t = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        f()?;
        t.push(start.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    Ok(t[t.len() / 2])
}

/// Prints one result line; whether it matched the reference.
fn report(
    name: &str,
    secs: f64,
    rate: f64,
    unit: &str,
    got: &[f32],
    want: &[f32],
    tol: f32,
) -> bool {
    let err = max_relative_error(got, want);
    let ok = err.is_some_and(|e| e <= tol);
    let err = err.map_or("NaN".to_string(), |e| format!("{e:.1e}"));
    println!(
        "  {name:<22} {:>10.3} ms {:>10.2} {unit:<10} max rel. error {err:<8} {}",
        secs * 1e3,
        rate,
        if ok { "ok" } else { "MISMATCH" }
    );
    ok
}

/// Runs every sample; `small` picks the default sizes of emulated
/// accelerators (the CPU, software Vulkan).
fn run(view: &AcceleratorView, o: &Options, small: bool) -> amp_core::Result<bool> {
    let mut ok = true;
    let n = o.matmul.unwrap_or(if small { 128 } else { 1024 });
    let (a, b) = (values((n * n) as usize, 1), values((n * n) as usize, 2));
    let mut want = vec![0.0f32; (n * n) as usize];
    let start = Instant::now();
    matmul::matmul_cpu(&mut want, &a, &b, n, n, n)?;
    let reference = start.elapsed().as_secs_f64();
    println!("matrix multiplication, {n} x {n} x {n} (f32)");
    let flops = 2.0 * f64::from(n).powi(3);
    report_reference(reference, flops / reference / 1e9, "GFLOP/s");
    for (name, kernel) in [
        (
            "matmul_simple",
            matmul::matmul_simple as fn(_, &mut [f32], _, _, _, _, _) -> _,
        ),
        ("matmul_tiled", matmul::matmul_tiled),
    ] {
        let mut c = vec![f32::NAN; want.len()];
        let secs = time(o.runs, || kernel(view, &mut c, &a, &b, n, n, n))?;
        ok &= report(name, secs, flops / secs / 1e9, "GFLOP/s", &c, &want, 1e-4);
    }

    let size = o.conv.unwrap_or(if small { 256 } else { 2048 });
    let img = values((size * size) as usize, 3);
    let taps = 2 * o.radius + 1;
    let filter = vec![1.0 / taps as f32; taps as usize];
    let mut want = vec![0.0f32; img.len()];
    let start = Instant::now();
    convolution::convolution_cpu(&mut want, &img, &filter, size, size)?;
    let reference = start.elapsed().as_secs_f64();
    println!(
        "separable convolution, {size} x {size} image, radius {} (f32)",
        o.radius
    );
    let pixels = f64::from(size) * f64::from(size);
    report_reference(reference, pixels / reference / 1e6, "Mpixel/s");
    for (name, kernel) in [
        (
            "convolution_simple",
            convolution::convolution_simple as fn(_, &mut [f32], _, _, _, _) -> _,
        ),
        ("convolution_tiling", convolution::convolution_tiling),
    ] {
        let mut out = vec![f32::NAN; img.len()];
        let secs = time(o.runs, || kernel(view, &mut out, &img, &filter, size, size))?;
        ok &= report(
            name,
            secs,
            pixels / secs / 1e6,
            "Mpixel/s",
            &out,
            &want,
            1e-5,
        );
    }
    Ok(ok)
}

fn main() -> ExitCode {
    amp_examples::gallery::init_logging();
    let options = match parse() {
        Ok(Some(o)) => o,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("samples: {e}");
            return ExitCode::from(2);
        }
    };
    let acc = match Accelerator::default() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("samples: {e}");
            return ExitCode::from(2);
        }
    };
    println!("accelerator: {acc}");
    describe(&acc);
    match run(&acc.default_view(), &options, acc.is_emulated()) {
        Ok(true) => {
            println!("all samples match the CPU reference");
            ExitCode::SUCCESS
        }
        Ok(false) => {
            eprintln!("samples: a result differs from the CPU reference");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("samples: {e}");
            ExitCode::from(2)
        }
    }
}
