//! C++ AMP's BlackScholes sample: call and put prices of a batch of
//! European options (see `amp_examples::black_scholes`).
//!
//! ```text
//! cargo run --release -p amp-examples --example black_scholes -- [--options N] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::black_scholes::{price, price_cpu};
use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::max_relative_error;
use clap::Parser;

/// Prices European options by the Black-Scholes formula and checks them
/// against an f64 reference.
#[derive(Parser)]
struct Args {
    /// Options to price (default 4,194,304 on a GPU, 262,144 elsewhere).
    #[arg(long)]
    options: Option<usize>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("black_scholes", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let n = args
        .options
        .unwrap_or(if is_slow(&view) { 1 << 18 } else { 1 << 22 });
    announce("black_scholes", &view, &format!("{n} options"));
    let mut rng = Rand::new(7);
    let s: Vec<f32> = (0..n).map(|_| rng.range_f32(5.0, 30.0)).collect();
    let x: Vec<f32> = (0..n).map(|_| rng.range_f32(1.0, 100.0)).collect();
    let t: Vec<f32> = (0..n).map(|_| rng.range_f32(0.25, 10.0)).collect();
    let mut result = (Vec::new(), Vec::new());
    let secs = time(args.common.runs, || {
        result = price(&view, &s, &x, &t)?;
        Ok(())
    })?;
    let mut table = Table::default();
    table.row(
        format!("black_scholes {n} options"),
        secs,
        format!("{:.1} M options/s", n as f64 / secs / 1e6),
    );
    table.print();
    let (want_call, want_put) = price_cpu(&s, &x, &t);
    // Prices are in currency units: relative to max(|price|, 1).
    let err = max_relative_error(&result.0, &want_call)
        .zip(max_relative_error(&result.1, &want_put))
        .map_or(f32::INFINITY, |(c, p)| c.max(p));
    println!("largest difference from the f64 reference: {err:.2e} (of max(price, 1))");
    Ok(if err < 1e-3 {
        Ok(())
    } else {
        Err(format!("prices differ from the reference by up to {err}"))
    })
}
