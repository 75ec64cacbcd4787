//! C++ AMP's OceanCS sample: the height field of a patch of sea from a
//! wave spectrum, by an inverse 2-D FFT written in the kernel language with
//! `tile_static` memory, one tile per row and then per column (see
//! `amp_examples::ocean`); writes the last frame as a PNG.
//!
//! ```text
//! cargo run --release -p amp-examples --example ocean -- [--size N] [--frames K] [--out OUT.png] [--accelerator NAME] [--runs R]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use amp_core::Float2;
use amp_examples::gallery::{Common, Rand, Table, announce, finish, is_slow, time};
use amp_examples::ocean::{
    Spectrum, dft_2d_cpu, fft_2d, fft_tolerance, heights, heights_cpu, heights_tolerance, picture,
};
use clap::Parser;

/// Animates a sea and checks the FFT against a DFT in `f64`.
#[derive(Parser)]
struct Args {
    /// Samples per side, a power of two (default 1024 on a GPU, 32
    /// elsewhere).
    #[arg(long)]
    size: Option<usize>,
    /// Frames, 1/30 s apart (default 60 on a GPU, 3 elsewhere).
    #[arg(long)]
    frames: Option<usize>,
    /// Where to write the last frame's heights.
    #[arg(long, default_value = "ocean.png")]
    out: PathBuf,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("ocean", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let slow = is_slow(&view);
    let n = args.size.unwrap_or(if slow { 32 } else { 1024 });
    let frames = args.frames.unwrap_or(if slow { 3 } else { 60 }).max(1);
    announce(
        "ocean",
        &view,
        &format!("{n} x {n} heights, {frames} frames"),
    );
    let spec = Spectrum::phillips(n, 1000.0, 30.0, 0.6, 1e-2, 5)?;
    let mut h = vec![0.0f32; n * n];
    let mut last = 0.0f32;
    let secs = time(args.common.runs, || {
        for f in 0..frames {
            last = f as f32 / 30.0;
            heights(&view, &spec, last, &mut h)?;
        }
        Ok(())
    })?;
    let mut table = Table::default();
    // 5 N log2 N flops per complex FFT of N values.
    let values = (n * n) as f64;
    let flops = 5.0 * values * values.log2() * frames as f64;
    table.row(
        "spectrum, rows, columns, heights",
        secs,
        format!(
            "{:.1} frames/s, {:.2} GFLOP/s in the FFTs",
            frames as f64 / secs,
            flops / secs / 1e9
        ),
    );
    table.print();
    picture(&h, n).write_png(&args.out)?;
    println!("wrote {}", args.out.display());
    // The FFT on random values against the f64 DFT (the DFT takes n^3
    // steps: checked up to 128).
    let k = n.min(128);
    let mut rng = Rand::new(8);
    let mut data: Vec<Float2> = (0..k * k)
        .map(|_| Float2::new(rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0)))
        .collect();
    let input: Vec<[f64; 2]> = data
        .iter()
        .map(|v| [f64::from(v.x), f64::from(v.y)])
        .collect();
    fft_2d(&view, &mut data, k, false)?;
    let want = dft_2d_cpu(&input, k, false);
    let norm = want
        .iter()
        .map(|v| v[0] * v[0] + v[1] * v[1])
        .sum::<f64>()
        .sqrt();
    let fft_err = data
        .iter()
        .zip(&want)
        .map(|(g, w)| (f64::from(g.x) - w[0]).hypot(f64::from(g.y) - w[1]))
        .fold(0.0, f64::max);
    let fft_ok = fft_err <= fft_tolerance(k * k, norm);
    println!(
        "FFT of {k} x {k}: largest error {fft_err:.2e} ({:.2e} of the outputs' norm)",
        fft_err / norm
    );
    // The last frame against the host's (checked up to 128 per side).
    let mut heights_ok = true;
    if n <= 128 {
        let want = heights_cpu(&spec, last);
        let acc = view.accelerator();
        let trig = if acc.is_cpu() || acc.is_emulated() {
            1e-6
        } else {
            1.0 / 2048.0
        };
        let tolerance = heights_tolerance(&spec, last, &want, trig);
        let err = h
            .iter()
            .zip(&want)
            .map(|(g, w)| (f64::from(*g) - w).abs())
            .fold(0.0, f64::max);
        let highest = want.iter().fold(0.0f64, |m, w| m.max(w.abs()));
        println!(
            "heights (up to {highest:.2e}): largest error {err:.2e} (allowed {tolerance:.2e})"
        );
        heights_ok = err <= tolerance;
    }
    Ok(if fft_ok && heights_ok {
        Ok(())
    } else {
        Err(format!(
            "the FFT's error {fft_err:.3e} or the heights are off"
        ))
    })
}
