//! The Mandelbrot set, in the shape of C++ AMP's MandelBrot sample.
//!
//! The original computes, per pixel, how many iterations of
//! `z = z^2 + c` it takes `|z|` to exceed 2 (up to a maximum), and colours
//! the pixel by that count; its tiled version stops a tile's loop early
//! once every pixel of the tile has escaped, through a `tile_static` flag
//! read after a barrier. The port has both: [`iterations`] (one work item
//! per pixel) and [`iterations_tiled`] (the tile-wide early exit, which the
//! kernel language's uniformity rule accepts). [`write_png`] saves the
//! image.

use amp_core::Result;
use amp_core::prelude::*;

/// The view of the complex plane: the image's left, top, and the step
/// between pixels.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    /// The real part of the left column.
    pub left: f32,
    /// The imaginary part of the top row.
    pub top: f32,
    /// The distance between neighbouring pixels.
    pub step: f32,
}

impl Frame {
    /// The whole set in a `width x height` image.
    pub fn whole(width: i32, height: i32) -> Frame {
        let step = (3.0 / width as f32).max(2.4 / height as f32);
        Frame {
            left: -2.1 - (width as f32 * step - 3.0) / 2.0,
            top: 1.2 + (height as f32 * step - 2.4) / 2.0,
            step,
        }
    }
}

fn shape(width: i32, height: i32, out: &[u32]) -> Result<()> {
    if width <= 0 || height <= 0 || i64::from(width) * i64::from(height) != out.len() as i64 {
        return Err(Error::InvalidArgument(format!(
            "mandelbrot: a {width} x {height} image needs {} counts, not {}",
            i64::from(width.max(0)) * i64::from(height.max(0)),
            out.len()
        )));
    }
    Ok(())
}

/// The escape count of each pixel (row-major), at most `max_iter`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for a non-positive size or an `out` of
/// another length; any error of the launch.
///
/// # Examples
///
/// ```
/// use amp_examples::mandelbrot::{Frame, iterations, iterations_cpu};
///
/// let view = amp_core::Accelerator::cpu().default_view();
/// let mut got = vec![0u32; 16 * 12];
/// iterations(&view, &mut got, 16, 12, Frame::whole(16, 12), 100)?;
/// let mut want = vec![0u32; 16 * 12];
/// iterations_cpu(&mut want, 16, 12, Frame::whole(16, 12), 100);
/// assert_eq!(got, want);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn iterations(
    view: &AcceleratorView,
    out: &mut [u32],
    width: i32,
    height: i32,
    frame: Frame,
    max_iter: u32,
) -> Result<()> {
    shape(width, height, out)?;
    let o = ArrayView::new_mut([height, width], out)?;
    o.discard_data();
    let (left, top, step) = (frame.left, frame.top, frame.step);
    parallel_for_each!(view, o.extent(), |p: Index<2>| {
        let cr = left + p[1] as f32 * step;
        let ci = top - p[0] as f32 * step;
        let (mut zr, mut zi) = (0.0f32, 0.0f32);
        let mut n = 0u32;
        while n < max_iter && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            n += 1;
        }
        o[p] = n;
    })?;
    o.synchronize()
}

/// Tile side of [`iterations_tiled`].
pub const TILE: i32 = 16;

/// [`iterations`] by 16 x 16 tiles that stop together: after each batch of
/// 16 iterations, the tile's work items record in a `tile_static` flag
/// whether any of them is still iterating, and all leave the loop once none
/// is (C++ AMP's MandelBrot sample's tiled kernel).
///
/// # Errors
///
/// As [`iterations`].
pub fn iterations_tiled(
    view: &AcceleratorView,
    out: &mut [u32],
    width: i32,
    height: i32,
    frame: Frame,
    max_iter: u32,
) -> Result<()> {
    shape(width, height, out)?;
    let o = ArrayView::new_mut([height, width], out)?;
    o.discard_data();
    let (left, top, step) = (frame.left, frame.top, frame.step);
    let domain = o.extent().tile::<TILE, TILE>()?.pad()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! { let busy: u32; }
        let p = t.global;
        let cr = left + p[1] as f32 * step;
        let ci = top - p[0] as f32 * step;
        let (mut zr, mut zi) = (0.0f32, 0.0f32);
        let mut n = 0u32;
        // Pixels of the padding are done from the start.
        let mut done = p[0] >= height || p[1] >= width;
        loop {
            t.barrier.wait();
            if t.local[0] == 0 && t.local[1] == 0 {
                busy = 0;
            }
            t.barrier.wait();
            if !done {
                busy = 1;
            }
            t.barrier.wait();
            if busy == 0 {
                break;
            }
            let mut k = 0;
            while k < 16 && !done {
                let t2 = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t2;
                n += 1;
                k += 1;
                done = n >= max_iter || zr * zr + zi * zi > 4.0;
            }
        }
        if p[0] < height && p[1] < width {
            o[p] = n;
        }
    })?;
    o.synchronize()
}

/// The reference, in the same `f32` arithmetic.
pub fn iterations_cpu(out: &mut [u32], width: i32, height: i32, frame: Frame, max_iter: u32) {
    for y in 0..height {
        for x in 0..width {
            let cr = frame.left + x as f32 * frame.step;
            let ci = frame.top - y as f32 * frame.step;
            let (mut zr, mut zi) = (0.0f32, 0.0f32);
            let mut n = 0u32;
            while n < max_iter && zr * zr + zi * zi <= 4.0 {
                let t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                n += 1;
            }
            out[(y * width + x) as usize] = n;
        }
    }
}

/// Writes the counts as an RGB PNG: escaping pixels coloured by their
/// count, the set black.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the file cannot be written (with the
/// reason).
pub fn write_png(
    path: &std::path::Path,
    counts: &[u32],
    width: i32,
    height: i32,
    max_iter: u32,
) -> Result<()> {
    let io = |e: &dyn std::fmt::Display| {
        Error::InvalidArgument(format!("cannot write {}: {e}", path.display()))
    };
    let file = std::fs::File::create(path).map_err(|e| io(&e))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width as u32, height as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| io(&e))?;
    let rgb: Vec<u8> = counts
        .iter()
        .flat_map(|&n| {
            if n >= max_iter {
                [0, 0, 0]
            } else {
                let t = (n as f32 / max_iter as f32).sqrt();
                [
                    (9.0 * (1.0 - t) * t * t * t * 255.0) as u8,
                    (15.0 * (1.0 - t) * (1.0 - t) * t * t * 255.0) as u8,
                    (8.5 * (1.0 - t) * (1.0 - t) * (1.0 - t) * t * 255.0) as u8,
                ]
            }
        })
        .collect();
    w.write_image_data(&rgb).map_err(|e| io(&e))
}
