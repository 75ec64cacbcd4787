//! A Gaussian blur of an RGB image, as a separable convolution per colour
//! channel on the accelerator (the kernels of [`crate::convolution`]), with
//! PNG files in and out.
//!
//! A Gaussian filter is separable: blurring the rows and then the columns
//! with the 1-D weights `exp(-x^2 / (2 sigma^2))` (normalised) is the 2-D
//! blur. Each channel goes through the tiled two-pass convolution, borders
//! clamped.

use amp_core::Result;
use amp_core::prelude::*;

use crate::convolution::{convolution_cpu, convolution_tiling};

/// An 8-bit RGB image, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width * height * 3` bytes: red, green, blue per pixel.
    pub rgb: Vec<u8>,
}

fn io_error(path: &std::path::Path, e: &dyn std::fmt::Display) -> Error {
    Error::InvalidArgument(format!("{}: {e}", path.display()))
}

impl Image {
    /// Reads a PNG file (8-bit RGB or RGBA; alpha is dropped).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming the file if it cannot be read or
    /// is not an 8-bit RGB(A) PNG.
    pub fn read_png(path: &std::path::Path) -> Result<Image> {
        let file = std::fs::File::open(path).map_err(|e| io_error(path, &e))?;
        let decoder = png::Decoder::new(std::io::BufReader::new(file));
        let mut reader = decoder.read_info().map_err(|e| io_error(path, &e))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| io_error(path, &"the image is too large"))?;
        let mut buf = vec![0u8; size];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| io_error(path, &e))?;
        let channels = match (info.color_type, info.bit_depth) {
            (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
            (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
            other => {
                return Err(io_error(
                    path,
                    &format!("{other:?} images are not supported: 8-bit RGB or RGBA only"),
                ));
            }
        };
        let rgb = buf[..info.buffer_size()]
            .chunks_exact(channels)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        Ok(Image {
            width: info.width,
            height: info.height,
            rgb,
        })
    }

    /// Writes the image as an 8-bit RGB PNG file.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] naming the file if it cannot be written.
    pub fn write_png(&self, path: &std::path::Path) -> Result<()> {
        let file = std::fs::File::create(path).map_err(|e| io_error(path, &e))?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| io_error(path, &e))?;
        w.write_image_data(&self.rgb)
            .map_err(|e| io_error(path, &e))
    }

    /// One channel (0 red, 1 green, 2 blue) as `f32`s.
    fn channel(&self, c: usize) -> Vec<f32> {
        self.rgb
            .iter()
            .skip(c)
            .step_by(3)
            .map(|&v| f32::from(v))
            .collect()
    }
}

/// The normalised 1-D Gaussian weights of `2 * radius + 1` taps.
///
/// # Examples
///
/// ```
/// let w = amp_examples::gaussian_blur::weights(3, 1.5);
/// assert_eq!(w.len(), 7);
/// assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
/// ```
pub fn weights(radius: i32, sigma: f32) -> Vec<f32> {
    let w: Vec<f32> = (-radius..=radius)
        .map(|x| (-(x * x) as f32 / (2.0 * sigma * sigma)).exp())
        .collect();
    let total: f32 = w.iter().sum();
    w.iter().map(|v| v / total).collect()
}

/// The blurred channels of `img` (before rounding to bytes): on `view`, or
/// on the host with `view` `None` (the reference).
///
/// # Errors
///
/// [`Error::InvalidArgument`] for an empty image, a radius the tiled
/// convolution does not take, or a non-positive `sigma`; any error of the
/// launches.
pub fn blur_channels(
    view: Option<&AcceleratorView>,
    img: &Image,
    radius: i32,
    sigma: f32,
) -> Result<[Vec<f32>; 3]> {
    let (w, h) = (
        i32::try_from(img.width).unwrap_or(0),
        i32::try_from(img.height).unwrap_or(0),
    );
    if w == 0 || h == 0 || sigma.is_nan() || sigma <= 0.0 || radius < 0 {
        return Err(Error::InvalidArgument(format!(
            "gaussian_blur needs a non-empty image, a radius >= 0 and a sigma > 0, not {w} x {h}, {radius} and {sigma}"
        )));
    }
    let filter = weights(radius, sigma);
    let mut out: [Vec<f32>; 3] = Default::default();
    for (c, o) in out.iter_mut().enumerate() {
        let plane = img.channel(c);
        *o = vec![0.0f32; plane.len()];
        match view {
            Some(v) => convolution_tiling(v, o, &plane, &filter, w, h)?,
            None => convolution_cpu(o, &plane, &filter, w, h)?,
        }
    }
    Ok(out)
}

/// `img` blurred on `view`.
///
/// # Errors
///
/// As [`blur_channels`].
///
/// # Examples
///
/// ```
/// use amp_examples::gaussian_blur::{Image, blur};
///
/// let view = amp_core::Accelerator::cpu().default_view();
/// let img = Image { width: 2, height: 1, rgb: vec![0, 0, 0, 255, 255, 255] };
/// let out = blur(&view, &img, 1, 1.0)?;
/// assert!(out.rgb[0] > 0 && out.rgb[3] < 255);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn blur(view: &AcceleratorView, img: &Image, radius: i32, sigma: f32) -> Result<Image> {
    let planes = blur_channels(Some(view), img, radius, sigma)?;
    let rgb = (0..planes[0].len())
        .flat_map(|i| {
            planes
                .iter()
                .map(move |p| p[i].round().clamp(0.0, 255.0) as u8)
        })
        .collect();
    Ok(Image {
        width: img.width,
        height: img.height,
        rgb,
    })
}
