//! Tiled prefix sums (inclusive and exclusive) over `u32` keys (see
//! `amp_examples::scan`).
//!
//! ```text
//! cargo run --release -p amp-examples --example scan -- [--keys N] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::scan::{exclusive, inclusive, inclusive_cpu};
use clap::Parser;

/// Computes prefix sums of random keys and checks them.
#[derive(Parser)]
struct Args {
    /// Keys (default 2^24 on a GPU, 2^20 elsewhere).
    #[arg(long)]
    keys: Option<usize>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("scan", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let n = args
        .keys
        .unwrap_or(if is_slow(&view) { 1 << 20 } else { 1 << 24 });
    announce("scan", &view, &format!("{n} u32 keys"));
    let mut rng = Rand::new(5);
    let keys: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let want = inclusive_cpu(&keys);
    let gb = |s: f64| format!("{:.1} GB/s", n as f64 * 8.0 / s / 1e9);
    let mut table = Table::default();
    let mut incl = Vec::new();
    let secs = time(args.common.runs, || {
        incl = inclusive(&view, &keys)?;
        Ok(())
    })?;
    table.row("inclusive", secs, gb(secs));
    let mut excl = Vec::new();
    let secs = time(args.common.runs, || {
        excl = exclusive(&view, &keys)?;
        Ok(())
    })?;
    table.row("exclusive", secs, gb(secs));
    table.print();
    let excl_ok = excl
        .iter()
        .zip(&want)
        .zip(&keys)
        .all(|((&e, &w), &k)| e == w.wrapping_sub(k));
    Ok(if incl == want && excl_ok {
        Ok(())
    } else {
        Err("the sums differ from the reference".to_string())
    })
}
