//! European option prices by the Black-Scholes formula, in the shape of
//! C++ AMP's BlackScholes sample.
//!
//! The original prices a batch of options in one `parallel_for_each`: each
//! work item reads its option's stock price, strike and time to expiry,
//! and writes the call and the put price, using `exp`, `log` and `sqrt` and
//! a `restrict(amp)` function for the cumulative normal distribution
//! (Abramowitz and Stegun's polynomial approximation). The port is the same
//! kernel; the cumulative normal is a `#[kernel]` function, which host code
//! calls too.

use amp_core::Result;
use amp_core::prelude::*;

/// The riskless interest rate.
pub const RATE: f32 = 0.02;
/// The volatility.
pub const VOLATILITY: f32 = 0.30;

/// The cumulative normal distribution, by Abramowitz and Stegun's
/// approximation 26.2.17 (absolute error below 7.5e-8).
///
/// # Examples
///
/// ```
/// use amp_examples::black_scholes::cnd;
///
/// assert!((cnd(0.0) - 0.5).abs() < 1e-6);
/// assert!((cnd(1.0) - 0.841_344_7).abs() < 1e-5);
/// ```
#[kernel]
pub fn cnd(d: f32) -> f32 {
    let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
    let poly = k
        * (0.319_381_53
            + k * (-0.356_563_78 + k * (1.781_477_9 + k * (-1.821_256 + k * 1.330_274_4))));
    let w = 1.0 - 0.398_942_3 * (-0.5 * d * d).exp() * poly;
    if d < 0.0 { 1.0 - w } else { w }
}

/// The call and put prices of options with stock prices `s`, strikes `x`
/// and times to expiry `t` (years), on `view`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the slices' lengths differ or exceed
/// `i32::MAX`; any error of the launch.
///
/// # Examples
///
/// ```
/// use amp_core::Accelerator;
///
/// let view = Accelerator::cpu().default_view();
/// let (call, put) = amp_examples::black_scholes::price(&view, &[100.0], &[100.0], &[1.0])?;
/// assert!((call[0] - 12.82).abs() < 0.01 && (put[0] - 10.84).abs() < 0.01);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn price(
    view: &AcceleratorView,
    s: &[f32],
    x: &[f32],
    t: &[f32],
) -> Result<(Vec<f32>, Vec<f32>)> {
    if s.len() != x.len() || s.len() != t.len() || i32::try_from(s.len()).is_err() {
        return Err(Error::InvalidArgument(format!(
            "black_scholes::price needs slices of one length up to i32::MAX, not {}, {} and {}",
            s.len(),
            x.len(),
            t.len()
        )));
    }
    let mut call = vec![0.0f32; s.len()];
    let mut put = vec![0.0f32; s.len()];
    if s.is_empty() {
        return Ok((call, put));
    }
    {
        let sv = ArrayView::from_slice(s)?;
        let xv = ArrayView::from_slice(x)?;
        let tv = ArrayView::from_slice(t)?;
        let cv = ArrayView::from_slice_mut(&mut call)?;
        let pv = ArrayView::from_slice_mut(&mut put)?;
        cv.discard_data();
        pv.discard_data();
        parallel_for_each!(view, cv.extent(), |i: Index<1>| {
            let (s, x, t) = (sv[i], xv[i], tv[i]);
            let sqrt_t = t.sqrt();
            let d1 =
                ((s / x).ln() + (RATE + 0.5 * VOLATILITY * VOLATILITY) * t) / (VOLATILITY * sqrt_t);
            let d2 = d1 - VOLATILITY * sqrt_t;
            let discount = x * (-RATE * t).exp();
            let (n1, n2) = (cnd(d1), cnd(d2));
            cv[i] = s * n1 - discount * n2;
            pv[i] = discount * (1.0 - n2) - s * (1.0 - n1);
        })?;
    }
    Ok((call, put))
}

/// The reference: the same formula in `f64` with `libm`'s `erf`-free
/// normal distribution (the same approximation, in double precision).
pub fn price_cpu(s: &[f32], x: &[f32], t: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let cnd64 = |d: f64| {
        let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
        let poly = k
            * (0.319_381_530
                + k * (-0.356_563_782
                    + k * (1.781_477_937 + k * (-1.821_255_978 + k * 1.330_274_429))));
        let w = 1.0 - 0.398_942_280_4 * (-0.5 * d * d).exp() * poly;
        if d < 0.0 { 1.0 - w } else { w }
    };
    let (r, v) = (f64::from(RATE), f64::from(VOLATILITY));
    s.iter()
        .zip(x)
        .zip(t)
        .map(|((&s, &x), &t)| {
            let (s, x, t) = (f64::from(s), f64::from(x), f64::from(t));
            let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
            let d2 = d1 - v * t.sqrt();
            let discount = x * (-r * t).exp();
            let call = s * cnd64(d1) - discount * cnd64(d2);
            let put = discount * (1.0 - cnd64(d2)) - s * (1.0 - cnd64(d1));
            (call as f32, put as f32)
        })
        .unzip()
}
