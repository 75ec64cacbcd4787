//! C++ AMP's MersenneTwister sample: one MT19937 generator per work item,
//! each seeded differently, its 624-word state a local array (see
//! `amp_examples::mersenne_twister`).
//!
//! ```text
//! cargo run --release -p amp-examples --example mersenne_twister -- [--generators N] [--numbers K] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::mersenne_twister::{Mt19937, generate, generate_cpu};
use clap::Parser;

/// Draws numbers from many Mersenne Twisters at once and checks them bit
/// for bit against a plain-Rust MT19937.
#[derive(Parser)]
struct Args {
    /// Generators, one per work item (default 8192 on a GPU, 256 elsewhere).
    #[arg(long)]
    generators: Option<usize>,
    /// Numbers drawn from each generator.
    #[arg(long, default_value_t = 4096)]
    numbers: usize,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("mersenne_twister", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let generators = args
        .generators
        .unwrap_or(if is_slow(&view) { 256 } else { 8192 });
    let per = args.numbers;
    announce(
        "mersenne_twister",
        &view,
        &format!("{generators} MT19937 generators, {per} numbers each"),
    );
    // The reference itself: the published first outputs for seed 5489.
    let mut first = Mt19937::new(5489);
    let known = [
        3_499_211_612u32,
        581_869_302,
        3_890_346_734,
        3_586_334_585,
        545_404_204,
    ];
    if known.iter().any(|&k| first.next_u32() != k) {
        return Ok(Err("the reference MT19937 is wrong".to_string()));
    }
    let mut rng = Rand::new(41);
    let seeds: Vec<u32> = (0..generators).map(|_| rng.next_u64() as u32).collect();
    let mut got = vec![0u32; generators * per];
    let secs = time(args.common.runs, || generate(&view, &seeds, &mut got))?;
    let mut table = Table::default();
    table.row(
        format!("{generators} x {per} numbers"),
        secs,
        format!("{:.1} M numbers/s", (generators * per) as f64 / secs / 1e6),
    );
    table.print();
    let want = generate_cpu(&seeds, per);
    let differ = got.iter().zip(&want).filter(|(g, w)| g != w).count();
    Ok(if differ == 0 {
        Ok(())
    } else {
        Err(format!("{differ} of {} numbers differ", want.len()))
    })
}
