//! C++ AMP's Morph sample: a sequence of frames morphing one PNG image
//! into another along a displacement field, one work item per output pixel
//! (see `amp_examples::morph`).
//!
//! ```text
//! cargo run --release -p amp-examples --example morph -- [--from A.png] [--to B.png] [--frames K] [--scale S] [--out OUT.png] [--accelerator NAME] [--runs R]
//! ```
//!
//! Without `--from` it morphs `amp-examples/assets/landscape.png`; without
//! `--to`, into the same picture mirrored, along a swirl.

use std::path::PathBuf;
use std::process::ExitCode;

use amp_examples::gallery::{Common, Table, announce, finish, is_slow, time};
use amp_examples::gaussian_blur::Image;
use amp_examples::morph::{Morph, mirrored, morph_cpu, morph_frames, pack, swirl, unpack};
use clap::Parser;

/// Morphs one image into another and checks every frame against the
/// host's.
#[derive(Parser)]
struct Args {
    /// The first image (8-bit RGB or RGBA PNG).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/landscape.png"))]
    from: PathBuf,
    /// The last image, of the same size (default: the first mirrored).
    #[arg(long)]
    to: Option<PathBuf>,
    /// Frames from the first image to the last (default 64 on a GPU, 5
    /// elsewhere).
    #[arg(long)]
    frames: Option<usize>,
    /// Each image enlarged this many times (nearest pixel; default 8 on a
    /// GPU, 1 elsewhere), for a larger frame.
    #[arg(long)]
    scale: Option<u32>,
    /// Where to write the middle frame.
    #[arg(long, default_value = "morph.png")]
    out: PathBuf,
    #[command(flatten)]
    common: Common,
}

fn main() -> ExitCode {
    let args = Args::parse();
    finish("morph", run(&args))
}

/// `img` enlarged `k` times, each pixel a `k x k` block.
fn enlarge(img: &Image, k: u32) -> Image {
    let (w, h) = (img.width * k, img.height * k);
    let mut rgb = Vec::with_capacity((w * h * 3) as usize);
    for y in 0..h {
        for x in 0..w {
            let i = (((y / k) * img.width + x / k) * 3) as usize;
            rgb.extend_from_slice(&img.rgb[i..i + 3]);
        }
    }
    Image {
        width: w,
        height: h,
        rgb,
    }
}

fn run(args: &Args) -> amp_core::Result<Result<(), String>> {
    let view = args.common.view()?;
    let slow = is_slow(&view);
    let scale = args.scale.unwrap_or(if slow { 1 } else { 8 }).max(1);
    let from = enlarge(&Image::read_png(&args.from)?, scale);
    let to = match &args.to {
        Some(path) => enlarge(&Image::read_png(path)?, scale),
        None => mirrored(&from),
    };
    if (to.width, to.height) != (from.width, from.height) {
        return Err(amp_core::Error::InvalidArgument(format!(
            "the images differ in size: {} x {} and {} x {}",
            from.width, from.height, to.width, to.height
        )));
    }
    let frames = args.frames.unwrap_or(if slow { 5 } else { 64 }).max(2);
    announce(
        "morph",
        &view,
        &format!("{} x {}, {frames} frames", from.width, from.height),
    );
    let (w, h) = (from.width as usize, from.height as usize);
    let (a, b) = (pack(&from), pack(&to));
    let field = swirl(w, h, 2.5, 0.15);
    let m = Morph {
        width: w,
        height: h,
        from: &a,
        to: &b,
        field: &field,
    };
    let times: Vec<f32> = (0..frames)
        .map(|k| k as f32 / (frames - 1) as f32)
        .collect();
    let mut got = Vec::new();
    let secs = time(args.common.runs, || {
        got = morph_frames(&view, &m, &times)?;
        Ok(())
    })?;
    let mut table = Table::default();
    let pixels = (w * h * frames) as f64;
    table.row(
        "one launch per frame",
        secs,
        format!("{:.1} Mpixel/s", pixels / secs / 1e6),
    );
    table.print();
    let middle = frames / 2;
    unpack(from.width, from.height, &got[middle]).write_png(&args.out)?;
    println!("wrote {} (t = {})", args.out.display(), times[middle]);
    // Every frame against the host's, every channel of every pixel: exact
    // on the CPU accelerator and lavapipe, within one level elsewhere (a
    // GPU that fuses multiply-adds may round a blend the other way).
    let acc = view.accelerator();
    let allowed = if acc.is_cpu() || acc.is_emulated() {
        0
    } else {
        1
    };
    let mut worst = 0;
    for (t, frame) in times.iter().zip(&got) {
        let want = morph_cpu(&m, *t);
        for (g, w) in frame.iter().zip(&want) {
            for c in 0..4 {
                let d = ((g >> (8 * c)) & 255).abs_diff((w >> (8 * c)) & 255);
                worst = worst.max(d);
            }
        }
    }
    println!("largest difference from the host's frames: {worst} (of 255)");
    Ok(if worst <= allowed {
        Ok(())
    } else {
        Err(format!(
            "the frames differ from the host's by up to {worst}"
        ))
    })
}
