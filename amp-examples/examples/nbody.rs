//! C++ AMP's NBody sample: particles under mutual gravity, `Float4`
//! positions and velocities, simple and tiled (see `amp_examples::nbody`).
//!
//! ```text
//! cargo run --release -p amp-examples --example nbody -- [--bodies N] [--steps S] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_core::Float4;
use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::nbody::{Bodies, TILE, max_error, simulate, simulate_cpu};
use clap::Parser;

/// Simulates particles and checks them against an f64 reference.
#[derive(Parser)]
struct Args {
    /// Particles, a multiple of 256 (default 16384 on a GPU, 1024 elsewhere).
    #[arg(long)]
    bodies: Option<usize>,
    /// Steps per run.
    #[arg(long, default_value_t = 4)]
    steps: u32,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("nbody", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let n = args
        .bodies
        .unwrap_or(if is_slow(&view) { 1024 } else { 16384 });
    announce("nbody", &view, &format!("{n} bodies, {} steps", args.steps));
    let mut rng = Rand::new(19);
    let start = Bodies {
        pos: (0..n)
            .map(|_| {
                Float4::new(
                    rng.range_f32(-10.0, 10.0),
                    rng.range_f32(-10.0, 10.0),
                    rng.range_f32(-10.0, 10.0),
                    rng.range_f32(0.5, 1.5),
                )
            })
            .collect(),
        vel: vec![Float4::splat(0.0); n],
    };
    // The reference is O(n^2) per step on one core: the check simulates
    // the first bodies as a system of their own when the run is large.
    let checked = if n * n * args.steps as usize > 1 << 30 {
        4 * TILE as usize
    } else {
        n
    };
    let small = Bodies {
        pos: start.pos[..checked].to_vec(),
        vel: start.vel[..checked].to_vec(),
    };
    let mut want = small.clone();
    simulate_cpu(&mut want, args.steps);
    let interactions = (n * n) as f64 * f64::from(args.steps);
    let mut table = Table::default();
    let mut wrong = Vec::new();
    for tiled in [false, true] {
        let name = if tiled { "tiled" } else { "simple" };
        let secs = time(args.common.runs, || {
            let mut b = start.clone();
            simulate(&view, &mut b, args.steps, tiled)
        })?;
        table.row(
            name,
            secs,
            format!("{:.1} G interactions/s", interactions / secs / 1e9),
        );
        let mut b = small.clone();
        simulate(&view, &mut b, args.steps, tiled)?;
        let err = max_error(&b, &want);
        if err > 1e-3 {
            wrong.push(format!("{name}: positions differ by up to {err}"));
        }
    }
    table.print();
    Ok(if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; "))
    })
}
