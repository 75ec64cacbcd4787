//! C++ AMP's Antenna sample: the radiation pattern of a steered planar
//! antenna array over a grid of directions, a `sin`, a `cos` per element
//! and direction, `sqrt` and `atan2` per direction, and the pattern's
//! maximum by a reduction (see `amp_examples::antenna`).
//!
//! ```text
//! cargo run --release -p amp-examples --example antenna -- [--elements N] [--thetas T] [--phis P] [--accelerator NAME] [--runs K]
//! ```

use std::process::ExitCode;

use amp_examples::antenna::{
    Grid, TOLERANCE, pattern, pattern_cpu, pattern_error, rectangular, steer,
};
use amp_examples::gallery::{Common, Table, announce, finish, is_slow, time};
use clap::Parser;

/// Computes an antenna array's pattern and checks it against an `f64`
/// reference.
#[derive(Parser)]
struct Args {
    /// Elements per side of the square array (default 32 on a GPU, 8
    /// elsewhere).
    #[arg(long)]
    elements: Option<usize>,
    /// Elevations of the grid (default 512 on a GPU, 64 elsewhere).
    #[arg(long)]
    thetas: Option<usize>,
    /// Azimuths of the grid (default 1024 on a GPU, 128 elsewhere).
    #[arg(long)]
    phis: Option<usize>,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("antenna", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let slow = is_slow(&view);
    let side = args.elements.unwrap_or(if slow { 8 } else { 32 });
    let grid = Grid {
        thetas: args.thetas.unwrap_or(if slow { 64 } else { 512 }),
        phis: args.phis.unwrap_or(if slow { 128 } else { 1024 }),
    };
    announce(
        "antenna",
        &view,
        &format!(
            "{side} x {side} elements, {} x {} directions",
            grid.thetas, grid.phis
        ),
    );
    let mut elems = rectangular(side, side, 0.5);
    // The beam 30 degrees off broadside, at azimuth 45 degrees.
    steer(&mut elems, 30f64.to_radians(), 45f64.to_radians());
    let cells = grid.thetas * grid.phis;
    let (mut magnitude, mut phase) = (vec![f32::NAN; cells], vec![f32::NAN; cells]);
    let mut max = 0.0;
    let secs = time(args.common.runs, || {
        max = pattern(&view, &elems, grid, &mut magnitude, &mut phase)?;
        Ok(())
    })?;
    let mut table = Table::default();
    let terms = (cells * elems.len()) as f64;
    table.row(
        format!("{cells} directions x {} elements", elems.len()),
        secs,
        format!("{:.3} G terms/s", terms / secs / 1e9),
    );
    table.print();
    let (want_m, want_p, want_max) = pattern_cpu(&elems, grid);
    let peak = (0..cells)
        .max_by(|&a, &b| magnitude[a].total_cmp(&magnitude[b]))
        .unwrap_or(0);
    let (theta, phi) = grid.direction(peak / grid.phis, peak % grid.phis);
    println!(
        "main beam at elevation {:.1}, azimuth {:.1} degrees; peak {max:.4} (f64: {want_max:.4})",
        theta.to_degrees(),
        phi.to_degrees()
    );
    let err = pattern_error(&magnitude, &phase, &want_m, &want_p);
    let scale: f64 = elems.iter().map(|e| f64::from(e.z.abs())).sum();
    println!(
        "largest difference from the f64 pattern: {:.2e} of the amplitudes' sum",
        err / scale
    );
    Ok(
        if err <= TOLERANCE * scale && (f64::from(max) - want_max).abs() <= TOLERANCE * scale {
            Ok(())
        } else {
            Err(format!(
                "the pattern differs by {err} (amplitudes' sum {scale}), the maximum is {max} not {want_max}"
            ))
        },
    )
}
