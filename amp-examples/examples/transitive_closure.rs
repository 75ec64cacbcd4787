//! C++ AMP's TransitiveClosure sample: which vertices of a random directed
//! graph reach which, by Warshall's algorithm, one launch per vertex and
//! blocked in `tile_static` memory with three launches per block (see
//! `amp_examples::transitive_closure`).
//!
//! ```text
//! cargo run --release -p amp-examples --example transitive_closure -- [--vertices N] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::transitive_closure::{closure_cpu, closure_simple, closure_tiled};
use clap::Parser;

/// Computes the transitive closure of a random graph and checks it against
/// a depth-first search from every vertex.
#[derive(Parser)]
struct Args {
    /// Vertices (default 2048 on a GPU, 256 elsewhere).
    #[arg(long)]
    vertices: Option<usize>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("transitive_closure", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let n = args
        .vertices
        .unwrap_or(if is_slow(&view) { 256 } else { 2048 });
    announce("transitive_closure", &view, &format!("{n} vertices"));
    // About one edge per vertex: long paths, and parts that reach little.
    let mut rng = Rand::new(31);
    let adjacency: Vec<u32> = (0..n * n)
        .map(|_| u32::from(rng.below(n.max(1) as u32) == 0))
        .collect();
    let want = closure_cpu(&adjacency, n);
    let reached = want.iter().filter(|&&x| x != 0).count();
    println!(
        "{} edges; {reached} of {} pairs connected",
        adjacency.iter().filter(|&&x| x != 0).count(),
        n * n
    );
    let mut table = Table::default();
    let rate = |s: f64| format!("{:.3} G pair-steps/s", (n as f64).powi(3) / s / 1e9);
    let mut wrong = Vec::new();
    type Kernel = fn(&amp_core::AcceleratorView, &[u32], usize, &mut [u32]) -> amp_core::Result<()>;
    let versions: [(&str, Kernel); 2] = [
        ("one launch per vertex", closure_simple),
        ("tile_static blocks", closure_tiled),
    ];
    for (name, f) in versions {
        let mut got = vec![u32::MAX; n * n];
        let secs = time(args.common.runs, || f(&view, &adjacency, n, &mut got))?;
        table.row(name, secs, rate(secs));
        if got != want {
            wrong.push(name);
        }
    }
    table.print();
    Ok(if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("wrong closure from {wrong:?}"))
    })
}
