//! C++ AMP's Histogram sample: 256 bins of random bytes (`u8` elements), with global
//! atomics and with per-tile `tile_static` bins (see
//! `amp_examples::histogram`).
//!
//! ```text
//! cargo run --release -p amp-examples --example histogram -- [--values N] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::histogram::{histogram_cpu, histogram_simple, histogram_tiled};
use clap::Parser;

/// Counts random bytes into 256 bins and checks the counts.
#[derive(Parser)]
struct Args {
    /// Values to count (default 2^26 on a GPU, 2^20 elsewhere).
    #[arg(long)]
    values: Option<usize>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("histogram", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let n = args
        .values
        .unwrap_or(if is_slow(&view) { 1 << 20 } else { 1 << 26 });
    announce("histogram", &view, &format!("{n} values, 256 bins"));
    let mut rng = Rand::new(11);
    // Skewed: most values in a few bins, as in images.
    let data: Vec<u8> = (0..n)
        .map(|_| ((rng.below(256) * rng.below(256)) / 255) as u8)
        .collect();
    let want = histogram_cpu(&data);
    let mut table = Table::default();
    let gb = |s: f64| format!("{:.1} GB/s", n as f64 / s / 1e9);
    let mut wrong = Vec::new();
    type Kernel = fn(&amp_core::AcceleratorView, &[u8]) -> amp_core::Result<Vec<u32>>;
    let versions: [(&str, Kernel); 2] = [
        ("global atomics", histogram_simple),
        ("tile_static bins", histogram_tiled),
    ];
    for (name, f) in versions {
        let mut got = Vec::new();
        let secs = time(args.common.runs, || {
            got = f(&view, &data)?;
            Ok(())
        })?;
        table.row(name, secs, gb(secs));
        if got != want {
            wrong.push(name);
        }
    }
    table.print();
    Ok(if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("wrong counts from {wrong:?}"))
    })
}
