//! A Gaussian blur of an RGB PNG image, per channel, with the tiled
//! separable convolution of C++ AMP's Convolution sample (see
//! `amp_examples::gaussian_blur`).
//!
//! ```text
//! cargo run --release -p amp-examples --example gaussian_blur -- [--image IN.png] [--out OUT.png] [--radius R] [--sigma S] [--accelerator NAME] [--runs K]
//! ```
//!
//! Without `--image` it blurs `amp-examples/assets/landscape.png`.

use std::path::PathBuf;
use std::process::ExitCode;

use amp_examples::gallery::{Common, Table, announce, finish, time};
use amp_examples::gaussian_blur::{Image, blur, blur_channels};
use clap::Parser;

/// Blurs a PNG image and checks the result against the host's.
#[derive(Parser)]
struct Args {
    /// The image to blur (8-bit RGB or RGBA PNG).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/landscape.png"))]
    image: PathBuf,
    /// Where to write the blurred image.
    #[arg(long, default_value = "blurred.png")]
    out: PathBuf,
    /// The filter's radius (taps on each side).
    #[arg(long, default_value_t = 6)]
    radius: i32,
    /// The Gaussian's standard deviation, in pixels.
    #[arg(long, default_value_t = 3.0)]
    sigma: f32,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("gaussian_blur", run(&args))
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let img = Image::read_png(&args.image)?;
    announce(
        "gaussian_blur",
        &view,
        &format!(
            "{} ({} x {}), radius {}, sigma {}",
            args.image.display(),
            img.width,
            img.height,
            args.radius,
            args.sigma
        ),
    );
    let mut out = img.clone();
    let secs = time(args.common.runs, || {
        out = blur(&view, &img, args.radius, args.sigma)?;
        Ok(())
    })?;
    let mut table = Table::default();
    let pixels = f64::from(img.width) * f64::from(img.height);
    table.row(
        "separable, 3 channels",
        secs,
        format!("{:.1} Mpixel/s", pixels / secs / 1e6),
    );
    table.print();
    out.write_png(&args.out)?;
    println!("wrote {}", args.out.display());
    // The accelerator's channels against the host's, before rounding.
    let got = blur_channels(Some(&view), &img, args.radius, args.sigma)?;
    let want = blur_channels(None, &img, args.radius, args.sigma)?;
    let err = got
        .iter()
        .zip(&want)
        .flat_map(|(g, w)| g.iter().zip(w).map(|(a, b)| (a - b).abs()))
        .fold(0.0f32, f32::max);
    println!("largest difference from the host's blur: {err:.2e} (of 255)");
    Ok(if err < 1e-2 {
        Ok(())
    } else {
        Err(format!("the blur differs from the host's by up to {err}"))
    })
}
