//! C++ AMP's Reduction sample: the sum of a vector of `f32` by a cascade
//! of launches, by tiles in `tile_static` memory (two launches), and by
//! tiles adding into one total with an atomic (see
//! `amp_examples::reduction`).
//!
//! ```text
//! cargo run --release -p amp-examples --example reduction -- [--elements N] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::reduction::{sum, sum_atomic, sum_cpu, sum_simple};
use clap::Parser;

/// Sums random numbers three ways and checks each sum.
#[derive(Parser)]
struct Args {
    /// Elements (default 2^26 on a GPU, 2^20 elsewhere).
    #[arg(long)]
    elements: Option<usize>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("reduction", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let n = args
        .elements
        .unwrap_or(if is_slow(&view) { 1 << 20 } else { 1 << 26 });
    announce("reduction", &view, &format!("{n} f32 elements"));
    let mut rng = Rand::new(13);
    let data: Vec<f32> = (0..n).map(|_| rng.range_f32(0.0, 1.0)).collect();
    let want = sum_cpu(&data);
    let gb = |s: f64| format!("{:.1} GB/s", n as f64 * 4.0 / s / 1e9);
    let mut table = Table::default();
    let mut wrong = Vec::new();
    type Sum = fn(&amp_core::AcceleratorView, &[f32]) -> amp_core::Result<f32>;
    let versions: [(&str, Sum); 3] = [
        ("cascade of halvings", sum_simple),
        ("tiled, two launches", sum),
        ("tiled, atomic total", sum_atomic),
    ];
    for (name, f) in versions {
        let mut got = f32::NAN;
        let secs = time(args.common.runs, || {
            got = f(&view, &data)?;
            Ok(())
        })?;
        table.row(name, secs, gb(secs));
        // Sums of n values in [0, 1): f32 rounding of a tree of additions.
        if ((got - want) / want).abs() > 1e-4 {
            wrong.push(format!("{name}: {got} instead of {want}"));
        }
    }
    table.print();
    Ok(if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; "))
    })
}
