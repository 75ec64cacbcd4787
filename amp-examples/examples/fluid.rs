//! C++ AMP's FluidSimulation sample: stable fluids on a 2-D grid, five
//! kinds of launch per step over arrays that stay on the accelerator (see
//! `amp_examples::fluid`); writes the dye of the last frame as a PNG.
//!
//! ```text
//! cargo run --release -p amp-examples --example fluid -- [--size N] [--steps K] [--iterations J] [--out OUT.png] [--accelerator NAME] [--runs R]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use amp_examples::fluid::{Params, picture, simulate, simulate_cpu, vortices};
use amp_examples::gallery::{Common, Table, announce, finish, is_slow, time};
use clap::Parser;

/// Simulates a fluid stirred by vortices and checks the last frame against
/// the same steps in plain Rust.
#[derive(Parser)]
struct Args {
    /// Cells per side (default 512 on a GPU, 48 elsewhere).
    #[arg(long)]
    size: Option<usize>,
    /// Steps (default 50 on a GPU, 4 elsewhere).
    #[arg(long)]
    steps: Option<u32>,
    /// Jacobi iterations of the pressure per step.
    #[arg(long, default_value_t = 30)]
    iterations: u32,
    /// Where to write the dye of the last frame.
    #[arg(long, default_value = "fluid.png")]
    out: PathBuf,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("fluid", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let slow = is_slow(&view);
    let n = args.size.unwrap_or(if slow { 48 } else { 512 });
    let steps = args.steps.unwrap_or(if slow { 4 } else { 50 });
    let params = Params {
        dt: 1.0,
        iterations: args.iterations,
    };
    announce(
        "fluid",
        &view,
        &format!(
            "{n} x {n} cells, {steps} steps of {} Jacobi iterations",
            params.iterations
        ),
    );
    let start = vortices(n, n, 6, 17);
    let mut got = start.clone();
    let secs = time(args.common.runs, || {
        got = start.clone();
        simulate(&view, &mut got, steps, params)
    })?;
    let mut table = Table::default();
    let launches = f64::from(steps) * f64::from(3 + params.iterations);
    table.row(
        format!("{} launches per step", 3 + params.iterations),
        secs,
        format!(
            "{:.1} Mcell-steps/s, {:.0} launches/s",
            (n * n) as f64 * f64::from(steps) / secs / 1e6,
            launches / secs
        ),
    );
    table.print();
    picture(&got).write_png(&args.out)?;
    println!("wrote {}", args.out.display());
    println!(
        "largest divergence: {:.3e} at the start, {:.3e} after",
        start.max_divergence(),
        got.max_divergence()
    );
    let mut want = start.clone();
    simulate_cpu(&mut want, steps, params);
    let flat = |s: &amp_examples::fluid::State| -> Vec<f32> {
        s.velocity
            .iter()
            .flat_map(|v| [v.x, v.y])
            .chain(s.pressure.iter().copied())
            .chain(s.density.iter().copied())
            .collect()
    };
    let err = amp_examples::max_relative_error(&flat(&got), &flat(&want)).unwrap_or(f32::INFINITY);
    println!("largest difference from the host's steps: {err:.2e}");
    // The same operations in the same order: exact on the CPU accelerator
    // and lavapipe; other GPUs may fuse multiply-adds.
    let acc = view.accelerator();
    let allowed = if acc.is_cpu() || acc.is_emulated() {
        0.0
    } else {
        1e-3
    };
    Ok(if err <= allowed {
        Ok(())
    } else {
        Err(format!("the fields differ from the host's by up to {err}"))
    })
}
