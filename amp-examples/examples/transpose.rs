//! C++ AMP's Transpose sample: a matrix transposed naively and through
//! `tile_static` blocks (see `amp_examples::transpose`).
//!
//! ```text
//! cargo run --release -p amp-examples --example transpose -- [--size N] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::transpose::{transpose_cpu, transpose_simple, transpose_tiled};
use clap::Parser;

/// Transposes a random matrix two ways and checks both.
#[derive(Parser)]
struct Args {
    /// The matrix is N x N (default 8192 on a GPU, 1024 elsewhere).
    #[arg(long)]
    size: Option<i32>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("transpose", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let n = args
        .size
        .unwrap_or(if is_slow(&view) { 1024 } else { 8192 });
    announce("transpose", &view, &format!("{n} x {n} f32"));
    let len = (n.max(0) as usize).pow(2);
    let mut rng = Rand::new(17);
    let input: Vec<f32> = (0..len).map(|_| rng.range_f32(-1.0, 1.0)).collect();
    let mut want = vec![0.0f32; len];
    transpose_cpu(&mut want, &input, n, n)?;
    let gb = |s: f64| format!("{:.1} GB/s", len as f64 * 8.0 / s / 1e9);
    let mut table = Table::default();
    let mut wrong = Vec::new();
    type Transpose =
        fn(&amp_core::AcceleratorView, &mut [f32], &[f32], i32, i32) -> amp_core::Result<()>;
    let versions: [(&str, Transpose); 2] =
        [("naive", transpose_simple), ("tiled", transpose_tiled)];
    for (name, f) in versions {
        let mut got = vec![f32::NAN; len];
        let secs = time(args.common.runs, || f(&view, &mut got, &input, n, n))?;
        table.row(name, secs, gb(secs));
        if got != want {
            wrong.push(name);
        }
    }
    table.print();
    Ok(if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("wrong transposes from {wrong:?}"))
    })
}
