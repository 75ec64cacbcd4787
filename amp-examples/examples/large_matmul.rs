//! C++ AMP's LargeMatrixMultiplication sample: a product computed a block
//! of `C` at a time, the operands streamed through `ArrayView`s over parts
//! of the host matrices (see `amp_examples::large_matmul`), timed end to
//! end next to the in-memory `matmul_optimized` on the same matrices.
//!
//! ```text
//! cargo run --release -p amp-examples --example large_matmul -- [--size N] [--block B] [--accelerator NAME] [--runs R]
//! ```

use std::process::ExitCode;

use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::large_matmul::{Blocks, matmul_large};
use amp_examples::matmul::{matmul_cpu, matmul_optimized};
use clap::Parser;

/// Multiplies two random `N x N` matrices by blocks and in one piece and
/// checks both.
#[derive(Parser)]
struct Args {
    /// The matrices' side (default 8192 on a GPU, 320 elsewhere).
    #[arg(long)]
    size: Option<usize>,
    /// The side of the blocks of `C` (default 2048 on a GPU, 128
    /// elsewhere).
    #[arg(long)]
    block: Option<usize>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("large_matmul", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let slow = is_slow(&view);
    let n = args.size.unwrap_or(if slow { 320 } else { 8192 });
    let block = args.block.unwrap_or(if slow { 128 } else { 2048 });
    announce(
        "large_matmul",
        &view,
        &format!("{n} x {n} matrices, blocks of {block} x {block}"),
    );
    // Quarters in [-2, 2]: every product and sum is exact in f32 up to
    // n = 2^15, so every method gives the exact result.
    let mut rng = Rand::new(42);
    let mut values = |len: usize| -> Vec<f32> {
        (0..len)
            .map(|_| (rng.below(17) as f32 - 8.0) / 4.0)
            .collect()
    };
    let a = values(n * n);
    let b = values(n * n);
    let s = Blocks {
        m: n,
        n,
        w: n,
        block_rows: block,
        block_cols: block,
    };
    let side = i32::try_from(n)
        .map_err(|_| amp_core::Error::InvalidArgument(format!("{n} is too large a side")))?;
    let mut blocked = vec![f32::NAN; n * n];
    let mut whole = vec![f32::NAN; n * n];
    let mut table = Table::default();
    let rate = |secs: f64| format!("{:.1} GFLOP/s", 2.0 * (n as f64).powi(3) / secs / 1e9);
    let secs = time(args.common.runs, || {
        matmul_large(&view, &mut blocked, &a, &b, s)
    })?;
    table.row(format!("blocks of {block} x {block}"), secs, rate(secs));
    let secs = time(args.common.runs, || {
        matmul_optimized(&view, &mut whole, &a, &b, side, side, side)
    })?;
    table.row("matmul_optimized, in one piece", secs, rate(secs));
    table.print();
    // Every element where the host can afford it, else 512 random ones.
    let picks: Vec<usize> = if n <= 512 {
        let mut want = vec![0.0f32; n * n];
        matmul_cpu(&mut want, &a, &b, side, side, side)?;
        if blocked != want {
            return Ok(Err("the blocked product differs from the host's".into()));
        }
        (0..n * n).collect()
    } else {
        let mut pick = Rand::new(7);
        (0..512)
            .map(|_| (pick.next_u64() % (n * n) as u64) as usize)
            .collect()
    };
    for &i in &picks {
        let (row, col) = (i / n, i % n);
        let want: f64 = (0..n)
            .map(|k| f64::from(a[row * n + k]) * f64::from(b[k * n + col]))
            .sum();
        if f64::from(blocked[i]) != want || f64::from(whole[i]) != want {
            return Ok(Err(format!(
                "element ({row}, {col}): blocked {}, in one piece {}, exact {want}",
                blocked[i], whole[i]
            )));
        }
    }
    println!(
        "{} elements checked against the exact products",
        picks.len()
    );
    Ok(Ok(()))
}
