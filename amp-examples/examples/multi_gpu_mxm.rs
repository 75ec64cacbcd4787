//! C++ AMP's multi-GPU matrix multiplication: the rows of `C = A x B` split
//! over every GPU accelerator (each with its own queue), the bands gathered
//! into one host buffer; timed on the first accelerator alone and on all of
//! them, transfers included.
//!
//! ```text
//! cargo run --release -p amp-examples --example multi_gpu_mxm -- [--size N] [--runs K] [--accelerators all|gpus|NAME,NAME..]
//! ```
//!
//! Without a GPU it runs on the CPU accelerator. The product is checked on
//! 64 random rows against an `f64` reference (relative error below 1e-3);
//! the last line is `multi_gpu_mxm: ok`. Exits with 1 on a wrong result,
//! 2 on bad arguments or an error.

use std::process::ExitCode;

use amp_core::{Accelerator, AcceleratorView, QueuingMode};
use amp_examples::gallery::{Rand, time};
use amp_examples::multi_gpu::{bands, matmul_multi};

struct Options {
    size: Option<i32>,
    runs: usize,
    accelerators: String,
}

const USAGE: &str = "usage: multi_gpu_mxm [--size N] [--runs K] [--accelerators all|gpus|NAME,NAME..]\n  --size N          the matrices are N x N (default 8192 on GPUs, 256 on the CPU accelerator)\n  --runs K          timed runs after a warm-up; the median is printed (default 5)\n  --accelerators    which accelerators share the work: every GPU (default `gpus`, the CPU\n                    accelerator where there is none), `all` of them, or those whose\n                    description or device path contains one of the names";

fn parse() -> Result<Options, String> {
    let mut o = Options {
        size: None,
        runs: 5,
        accelerators: "gpus".to_string(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let positive = |name: &str, v: String| -> Result<i64, String> {
            v.parse::<i64>()
                .ok()
                .filter(|&n| n > 0 && n <= 46_340)
                .ok_or(format!("{name} takes a number from 1 to 46340, not {v:?}"))
        };
        match flag.as_str() {
            "--size" => o.size = Some(positive("--size", value("--size")?)? as i32),
            "--runs" => o.runs = positive("--runs", value("--runs")?)? as usize,
            "--accelerators" => o.accelerators = value("--accelerators")?,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(o)
}

fn choose(spec: &str) -> Result<Vec<Accelerator>, String> {
    let all = Accelerator::all();
    let chosen: Vec<Accelerator> = match spec {
        "all" => all,
        "gpus" => {
            let gpus: Vec<Accelerator> = all
                .iter()
                .filter(|a| !a.is_cpu() && !a.is_emulated())
                .cloned()
                .collect();
            if gpus.is_empty() {
                vec![Accelerator::cpu()]
            } else {
                gpus
            }
        }
        names => all
            .into_iter()
            .filter(|a| {
                names.split(',').any(|n| {
                    !n.is_empty() && (a.description().contains(n) || a.device_path().contains(n))
                })
            })
            .collect(),
    };
    if chosen.is_empty() {
        return Err(format!("no accelerator matches {spec:?} (see `amp-info`)"));
    }
    Ok(chosen)
}

/// The largest relative error of 64 rows of `c` against `f64` dot products.
fn check(c: &[f32], a: &[f32], b: &[f32], n: usize) -> f64 {
    let mut worst = 0.0f64;
    let mut row = 12345usize;
    for _ in 0..64 {
        row = (row * 1_103_515_245 + 12_345) % n;
        for col in (0..n).step_by((n / 64).max(1)) {
            let want: f64 = (0..n)
                .map(|k| f64::from(a[row * n + k]) * f64::from(b[k * n + col]))
                .sum();
            let got = f64::from(c[row * n + col]);
            worst = worst.max((got - want).abs() / want.abs().max(1.0));
        }
    }
    worst
}

fn run(o: &Options) -> Result<bool, String> {
    let accs = choose(&o.accelerators)?;
    let emulated = accs.iter().all(|a| a.is_cpu() || a.is_emulated());
    let n = o.size.unwrap_or(if emulated { 256 } else { 8192 });
    println!("multi_gpu_mxm: {n} x {n} x {n} f32, rows split over:");
    for (k, (acc, (start, end))) in accs.iter().zip(bands(n, accs.len())).enumerate() {
        println!("  {k}: {acc} (rows {start}..{end})");
    }
    let len = (n as usize) * (n as usize);
    // Small values: the f64 check sees only the accumulation's rounding.
    let mut rng = Rand::new(1);
    let mut values =
        |n: usize| -> Vec<f32> { (0..n).map(|_| rng.below(256) as f32 / 64.0 - 2.0).collect() };
    let (a, b) = (values(len), values(len));
    let mut c = vec![f32::NAN; len];
    let all: Vec<AcceleratorView> = accs
        .iter()
        .map(|a| a.create_view(QueuingMode::Automatic))
        .collect();
    let one = &all[..1];
    let e = |e: amp_core::Error| e.to_string();
    let t_one = time(o.runs, || matmul_multi(one, &mut c, &a, &b, n, n, n)).map_err(e)?;
    let err_one = check(&c, &a, &b, n as usize);
    c.fill(f32::NAN);
    let t_all = time(o.runs, || matmul_multi(&all, &mut c, &a, &b, n, n, n)).map_err(e)?;
    let err_all = check(&c, &a, &b, n as usize);
    let flops = 2.0 * f64::from(n).powi(3);
    println!();
    println!("| accelerators | time (ms) | TFLOP/s | max rel. error (64 rows) |");
    println!("|---|---|---|---|");
    println!(
        "| 1 | {:.2} | {:.2} | {:.1e} |",
        t_one * 1e3,
        flops / t_one / 1e12,
        err_one
    );
    println!(
        "| {} | {:.2} | {:.2} | {:.1e} |",
        all.len(),
        t_all * 1e3,
        flops / t_all / 1e12,
        err_all
    );
    println!(
        "speedup of {} accelerators over 1, transfers included: {:.2}x",
        all.len(),
        t_one / t_all
    );
    Ok(err_one < 1e-3 && err_all < 1e-3)
}

fn main() -> ExitCode {
    let o = match parse() {
        Ok(o) => o,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(&o) {
        Ok(true) => {
            println!("multi_gpu_mxm: ok");
            ExitCode::SUCCESS
        }
        Ok(false) => {
            eprintln!("multi_gpu_mxm: the product differs from the reference");
            ExitCode::from(1)
        }
        Err(message) => {
            eprintln!("multi_gpu_mxm: {message}");
            ExitCode::from(2)
        }
    }
}
