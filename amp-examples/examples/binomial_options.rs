//! C++ AMP's BinomialOptions sample: European calls priced on 512-level
//! binomial trees, one option per tile, the tree walked back in
//! `tile_static` memory with a barrier per level (see
//! `amp_examples::binomial_options`).
//!
//! ```text
//! cargo run --release -p amp-examples --example binomial_options -- [--options N] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::binomial_options::{price, price_cpu};
use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::max_relative_error;
use clap::Parser;

/// Prices options on binomial trees and checks them against an f64 tree.
#[derive(Parser)]
struct Args {
    /// Options (default 4096 on a GPU, 64 elsewhere).
    #[arg(long)]
    options: Option<usize>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("binomial_options", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let n = args
        .options
        .unwrap_or(if is_slow(&view) { 64 } else { 4096 });
    announce(
        "binomial_options",
        &view,
        &format!("{n} options, 512-level trees"),
    );
    let mut rng = Rand::new(23);
    let s: Vec<f32> = (0..n).map(|_| rng.range_f32(5.0, 30.0)).collect();
    let x: Vec<f32> = (0..n).map(|_| rng.range_f32(1.0, 100.0)).collect();
    let t: Vec<f32> = (0..n).map(|_| rng.range_f32(0.25, 10.0)).collect();
    let mut got = Vec::new();
    let secs = time(args.common.runs, || {
        got = price(&view, &s, &x, &t)?;
        Ok(())
    })?;
    let mut table = Table::default();
    table.row(
        format!("binomial trees, {n} options"),
        secs,
        format!("{:.0} options/s", n as f64 / secs),
    );
    table.print();
    let want = price_cpu(&s, &x, &t);
    let err = max_relative_error(&got, &want).unwrap_or(f32::INFINITY);
    println!("largest difference from the f64 tree: {err:.2e} (of max(price, 1))");
    Ok(if err < 1e-3 {
        Ok(())
    } else {
        Err(format!("prices differ by up to {err}"))
    })
}
