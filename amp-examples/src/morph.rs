//! Image morphing, in the shape of C++ AMP's Morph sample: one work item
//! per output pixel blends two images, each sampled through a warp.
//!
//! A morph from image `A` to image `B` is described by a displacement
//! field `d`: the point `p` of `A` moves to `p + d(p)` in `B`. The frame at
//! time `t` in `[0, 1]` cross-dissolves `A` carried a fraction `t` of the
//! way with `B` carried back the rest of the way:
//!
//! ```text
//! frame_t(p) = (1 - t) A(p - t d(p)) + t B(p + (1 - t) d(p))
//! ```
//!
//! (the field is read at the frame's own pixel, the usual backward-warping
//! approximation). `A` and `B` are sampled bilinearly, positions outside the
//! image clamped to its border. Pixels are packed RGBA words (`0xAABBGGRR`,
//! the layout of the original's `unsigned int` pixels); the output's alpha
//! is 255.
//!
//! The per-pixel arithmetic is in `#[kernel]` functions ([`warp`],
//! [`lower`], [`upper`], [`bilerp`], [`mix`]) that [`morph_cpu`], the plain
//! Rust reference, calls as well, so both compute the same operations in
//! the same order.

use amp_core::prelude::*;
use amp_core::{Access, Result};

use crate::gaussian_blur::Image;

/// The inputs of a morph: two images of one size, packed RGBA, and the
/// displacement field from the first to the second, all row-major.
#[derive(Debug, Clone, Copy)]
pub struct Morph<'a> {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// The image at `t = 0`.
    pub from: &'a [u32],
    /// The image at `t = 1`.
    pub to: &'a [u32],
    /// Where each pixel of `from` goes (in pixels: `x`, `y`).
    pub field: &'a [Float2],
}

impl Morph<'_> {
    /// The sizes as `i32`s, checked against the slices' lengths.
    fn sizes(&self) -> Result<(i32, i32)> {
        let lens = [self.from.len(), self.to.len(), self.field.len()];
        match crate::gallery::grid_sizes(self.width, self.height, &lens) {
            Some(sizes) => Ok(sizes),
            None => Err(Error::InvalidArgument(format!(
                "morph needs two non-empty {} x {} images and a field of as many pixels, not {}, {} and {}",
                self.width,
                self.height,
                self.from.len(),
                self.to.len(),
                self.field.len()
            ))),
        }
    }
}

/// An image's pixels as packed RGBA words (alpha 255).
pub fn pack(img: &Image) -> Vec<u32> {
    img.rgb
        .chunks_exact(3)
        .map(|p| u32::from(p[0]) | u32::from(p[1]) << 8 | u32::from(p[2]) << 16 | 0xff00_0000)
        .collect()
}

/// Packed RGBA words as an RGB image (alpha dropped).
///
/// # Panics
///
/// If `pixels` does not hold `width * height` words.
pub fn unpack(width: u32, height: u32, pixels: &[u32]) -> Image {
    assert_eq!(
        pixels.len(),
        width as usize * height as usize,
        "one word a pixel"
    );
    Image {
        width,
        height,
        rgb: pixels
            .iter()
            .flat_map(|&p| [p as u8, (p >> 8) as u8, (p >> 16) as u8])
            .collect(),
    }
}

/// Where pixel coordinate `coord` is carried by the displacement `shift`
/// scaled by `k` (`-t` for the first image, `1 - t` for the second).
#[kernel]
pub fn warp(coord: i32, shift: f32, k: f32) -> f32 {
    coord as f32 + k * shift
}

/// The lower of the two pixels around position `p` on an axis of `n`
/// pixels, clamped to the image.
#[kernel]
pub fn lower(p: f32, n: i32) -> i32 {
    (p.floor() as i32).clamp(0, n - 1)
}

/// The upper of the two pixels around position `p`, clamped to the image.
#[kernel]
pub fn upper(p: f32, n: i32) -> i32 {
    (p.floor() as i32 + 1).clamp(0, n - 1)
}

/// The bilinear blend of four corner values (`p01` right of `p00`, `p10`
/// below it) at fractions `fx`, `fy`.
///
/// # Examples
///
/// ```
/// use amp_examples::morph::bilerp;
/// assert_eq!(bilerp(0.0, 4.0, 8.0, 12.0, 0.5, 0.25), 4.0);
/// ```
#[kernel]
pub fn bilerp(p00: f32, p01: f32, p10: f32, p11: f32, fx: f32, fy: f32) -> f32 {
    let top = p00 + (p01 - p00) * fx;
    let bottom = p10 + (p11 - p10) * fx;
    top + (bottom - top) * fy
}

/// Channel `c` (0 red, 1 green, 2 blue) of a packed pixel.
#[kernel]
pub fn channel(pixel: u32, c: i32) -> f32 {
    ((pixel >> (8 * c)) & 255) as f32
}

/// The output pixel from the four pixels of each image around its sample
/// point (`[p00, p01, p10, p11]`) and the points' fractions (`[fx, fy]`):
/// each channel sampled bilinearly in both and blended, `(1 - t) a + t b`,
/// rounded to a byte; alpha 255.
#[kernel]
pub fn mix(a: [u32; 4], fa: [f32; 2], b: [u32; 4], fb: [f32; 2], t: f32) -> u32 {
    let mut out = 0xff00_0000u32;
    for c in 0..3 {
        let ca = bilerp(
            channel(a[0], c),
            channel(a[1], c),
            channel(a[2], c),
            channel(a[3], c),
            fa[0],
            fa[1],
        );
        let cb = bilerp(
            channel(b[0], c),
            channel(b[1], c),
            channel(b[2], c),
            channel(b[3], c),
            fb[0],
            fb[1],
        );
        let v = ca + (cb - ca) * t;
        out |= ((v + 0.5) as u32).min(255) << (8 * c);
    }
    out
}

/// The frame of `m` at time `t` into `out` (one packed pixel each), on
/// `view`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for an empty image, slices whose lengths are
/// not `width * height`, or a `t` outside `[0, 1]`; any error of the
/// launch.
///
/// # Examples
///
/// ```
/// use amp_core::Float2;
/// use amp_examples::morph::{Morph, morph};
///
/// let view = amp_core::Accelerator::cpu().default_view();
/// // Black to white with no motion: halfway is mid grey.
/// let m = Morph {
///     width: 2,
///     height: 1,
///     from: &[0xff00_0000; 2],
///     to: &[0xffff_ffff; 2],
///     field: &[Float2::new(0.0, 0.0); 2],
/// };
/// let mut out = [0u32; 2];
/// morph(&view, &m, 0.5, &mut out)?;
/// assert_eq!(out, [0xff80_8080; 2]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn morph(view: &AcceleratorView, m: &Morph<'_>, t: f32, out: &mut [u32]) -> Result<()> {
    let (w, h) = m.sizes()?;
    check_t(t)?;
    if out.len() != m.from.len() {
        return Err(Error::InvalidArgument(format!(
            "morph writes {} pixels, not {}",
            m.from.len(),
            out.len()
        )));
    }
    let a = ArrayView::new([h, w], m.from)?;
    let b = ArrayView::new([h, w], m.to)?;
    let d = ArrayView::new([h, w], m.field)?;
    let o = ArrayView::new_mut([h, w], out)?;
    o.discard_data();
    frame(view, &a, &b, &d, &o, t)?;
    o.synchronize()
}

/// The frames of `m` at each time of `times`, the images and the field
/// uploaded once and kept on the accelerator, one launch per frame.
///
/// # Errors
///
/// As [`morph`].
pub fn morph_frames(view: &AcceleratorView, m: &Morph<'_>, times: &[f32]) -> Result<Vec<Vec<u32>>> {
    let (w, h) = m.sizes()?;
    for &t in times {
        check_t(t)?;
    }
    let a = Array::from_slice([h, w], m.from, view)?;
    let b = Array::from_slice([h, w], m.to, view)?;
    let d = Array::from_slice([h, w], m.field, view)?;
    let o = Array::<u32, 2>::new([h, w], view)?;
    let mut frames = Vec::with_capacity(times.len());
    for &t in times {
        frame(view, &a.view(), &b.view(), &d.view(), &o.view(), t)?;
        frames.push(o.to_vec()?);
    }
    Ok(frames)
}

fn check_t(t: f32) -> Result<()> {
    if (0.0..=1.0).contains(&t) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "morph times are in [0, 1], not {t}"
        )))
    }
}

/// The morph kernel: one work item per output pixel.
fn frame<A: Access, B: Access, D: Access>(
    view: &AcceleratorView,
    a: &ArrayView<'_, u32, 2, A>,
    b: &ArrayView<'_, u32, 2, B>,
    d: &ArrayView<'_, Float2, 2, D>,
    o: &ArrayView<'_, u32, 2>,
    t: f32,
) -> Result<()> {
    let (h, w) = (o.extent()[0], o.extent()[1]);
    let (back, ahead) = (-t, 1.0 - t);
    parallel_for_each!(view, o.extent(), |idx: Index<2>| {
        let (y, x) = (idx[0], idx[1]);
        let shift = d[idx];
        let (ax, ay) = (warp(x, shift.x, back), warp(y, shift.y, back));
        let (bx, by) = (warp(x, shift.x, ahead), warp(y, shift.y, ahead));
        let (ax0, ax1, ay0, ay1) = (lower(ax, w), upper(ax, w), lower(ay, h), upper(ay, h));
        let (bx0, bx1, by0, by1) = (lower(bx, w), upper(bx, w), lower(by, h), upper(by, h));
        o[idx] = mix(
            [a[[ay0, ax0]], a[[ay0, ax1]], a[[ay1, ax0]], a[[ay1, ax1]]],
            [ax - ax.floor(), ay - ay.floor()],
            [b[[by0, bx0]], b[[by0, bx1]], b[[by1, bx0]], b[[by1, bx1]]],
            [bx - bx.floor(), by - by.floor()],
            t,
        );
    })
}

/// The reference: the frame of `m` at time `t` in plain Rust, with the
/// same `#[kernel]` functions.
///
/// # Panics
///
/// If the slices' lengths are not `width * height`.
pub fn morph_cpu(m: &Morph<'_>, t: f32) -> Vec<u32> {
    let (w, h) = m.sizes().expect("a valid morph");
    let (back, ahead) = (-t, 1.0 - t);
    let at = |img: &[u32], y: i32, x: i32| img[(y * w + x) as usize];
    let mut out = Vec::with_capacity(m.from.len());
    for y in 0..h {
        for x in 0..w {
            let shift = m.field[(y * w + x) as usize];
            let (ax, ay) = (warp(x, shift.x, back), warp(y, shift.y, back));
            let (bx, by) = (warp(x, shift.x, ahead), warp(y, shift.y, ahead));
            let (ax0, ax1, ay0, ay1) = (lower(ax, w), upper(ax, w), lower(ay, h), upper(ay, h));
            let (bx0, bx1, by0, by1) = (lower(bx, w), upper(bx, w), lower(by, h), upper(by, h));
            out.push(mix(
                [
                    at(m.from, ay0, ax0),
                    at(m.from, ay0, ax1),
                    at(m.from, ay1, ax0),
                    at(m.from, ay1, ax1),
                ],
                [ax - ax.floor(), ay - ay.floor()],
                [
                    at(m.to, by0, bx0),
                    at(m.to, by0, bx1),
                    at(m.to, by1, bx0),
                    at(m.to, by1, bx1),
                ],
                [bx - bx.floor(), by - by.floor()],
                t,
            ));
        }
    }
    out
}

/// A swirl: every pixel turns about the image's centre by up to `turn`
/// radians (most near the centre, none at the corners) and moves outwards
/// by `spread` times its distance from the centre.
pub fn swirl(width: usize, height: usize, turn: f32, spread: f32) -> Vec<Float2> {
    let (cx, cy) = ((width as f32 - 1.0) / 2.0, (height as f32 - 1.0) / 2.0);
    let reach = (cx * cx + cy * cy).sqrt().max(1.0);
    let mut field = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            let (dx, dy) = (x as f32 - cx, y as f32 - cy);
            let r = (dx * dx + dy * dy).sqrt() / reach;
            let angle = turn * (1.0 - r).max(0.0).powi(2);
            let (s, c) = angle.sin_cos();
            let (nx, ny) = (c * dx - s * dy, s * dx + c * dy);
            field.push(Float2::new(
                nx * (1.0 + spread) - dx,
                ny * (1.0 + spread) - dy,
            ));
        }
    }
    field
}

/// `img` mirrored left to right: a second image for a morph from one
/// picture.
pub fn mirrored(img: &Image) -> Image {
    let w = img.width as usize;
    let rgb = img
        .rgb
        .chunks_exact(3 * w)
        .flat_map(|row| {
            row.chunks_exact(3)
                .rev()
                .flatten()
                .copied()
                .collect::<Vec<_>>()
        })
        .collect();
    Image {
        width: img.width,
        height: img.height,
        rgb,
    }
}
