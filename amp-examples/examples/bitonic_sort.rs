//! C++ AMP's BitonicSort sample: a bitonic sorting network over `u32`
//! keys, long steps one launch each, short ones a tile at a time in
//! `tile_static` memory (see `amp_examples::bitonic_sort`).
//!
//! ```text
//! cargo run --release -p amp-examples --example bitonic_sort -- [--log2 M] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::bitonic_sort::sort;
use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use clap::Parser;

/// Sorts 2^M random keys and checks the order.
#[derive(Parser)]
struct Args {
    /// Sort 2^M keys (default 24 on a GPU, 18 elsewhere).
    #[arg(long)]
    log2: Option<u32>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("bitonic_sort", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let m = args.log2.unwrap_or(if is_slow(&view) { 18 } else { 24 });
    if m > 30 {
        return Ok(Err(format!("--log2 {m}: at most 30")));
    }
    let n = 1usize << m;
    announce("bitonic_sort", &view, &format!("{n} u32 keys"));
    let mut rng = Rand::new(3);
    let keys: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let mut got = keys.clone();
    let secs = time(args.common.runs, || {
        got.copy_from_slice(&keys);
        sort(&view, &mut got)
    })?;
    let mut table = Table::default();
    table.row(
        format!("bitonic sort 2^{m}"),
        secs,
        format!("{:.1} M keys/s", n as f64 / secs / 1e6),
    );
    table.print();
    let mut want = keys;
    want.sort_unstable();
    Ok(if got == want {
        Ok(())
    } else {
        Err("the keys are not sorted, or not the same keys".to_string())
    })
}
