//! European call options priced on binomial trees, in the shape of C++
//! AMP's BinomialOptions sample.
//!
//! The original prices one option per tile: the tile's work items compute
//! the option's values at the tree's leaves (expiry) into `tile_static`
//! memory, then walk the tree back to the root a level at a time, each
//! level a step of every work item followed by a barrier. The port does the
//! same with two `tile_static` buffers (one level read, the next written),
//! [`STEPS`] levels per option.

use amp_core::Result;
use amp_core::prelude::*;

/// Levels of the tree.
pub const STEPS: i32 = 512;
/// Work items per tile (each handles every `TILE`-th node of a level).
pub const TILE: i32 = 128;
/// The riskless interest rate.
pub const RATE: f32 = 0.02;
/// The volatility.
pub const VOLATILITY: f32 = 0.30;

/// The tree's parameters for expiry `t`: the up factor's log, and the
/// discounted probabilities of going up and down.
fn parameters(t: f64) -> (f64, f64, f64) {
    let dt = t / f64::from(STEPS);
    let v_dt = f64::from(VOLATILITY) * dt.sqrt();
    let (u, d) = (v_dt.exp(), (-v_dt).exp());
    let pu = ((f64::from(RATE) * dt).exp() - d) / (u - d);
    let df = (-f64::from(RATE) * dt).exp();
    (v_dt, pu * df, (1.0 - pu) * df)
}

/// Call prices of options with stock prices `s`, strikes `x` and expiries
/// `t` (years), one tile per option on `view`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if the slices' lengths differ or are zero;
/// any error of the launch.
///
/// # Examples
///
/// ```
/// let view = amp_core::Accelerator::cpu().default_view();
/// let got = amp_examples::binomial_options::price(&view, &[100.0], &[100.0], &[1.0])?;
/// let want = amp_examples::binomial_options::price_cpu(&[100.0], &[100.0], &[1.0]);
/// assert!((got[0] - want[0]).abs() < 1e-2 && (got[0] - 12.82).abs() < 0.05);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn price(view: &AcceleratorView, s: &[f32], x: &[f32], t: &[f32]) -> Result<Vec<f32>> {
    let n = i32::try_from(s.len())
        .ok()
        .filter(|&n| n > 0 && s.len() == x.len() && s.len() == t.len() && n <= i32::MAX / TILE)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "binomial_options needs 1 or more options with one stock price, strike and expiry each, not {}, {} and {}",
                s.len(),
                x.len(),
                t.len()
            ))
        })?;
    // Per option: the up factor's log and the two discounted probabilities
    // (computed in f64 on the host, as the sample does).
    let params: Vec<Float4> = t
        .iter()
        .map(|&t| {
            let (v_dt, pu, pd) = parameters(f64::from(t));
            Float4::new(v_dt as f32, pu as f32, pd as f32, 0.0)
        })
        .collect();
    let mut out = vec![f32::NAN; s.len()];
    {
        let sv = ArrayView::new([n], s)?;
        let xv = ArrayView::new([n], x)?;
        let pv = ArrayView::new([n], &params)?;
        let ov = ArrayView::new_mut([n], &mut out)?;
        ov.discard_data();
        let domain = Extent::new([n * TILE]).tile::<TILE>()?;
        parallel_for_each!(view, domain, |t: TiledIndex<1>| {
            tile_static! {
                let a: [f32; STEPS + 1];
                let b: [f32; STEPS + 1];
            }
            let option = t.tile[0];
            let l = t.local[0];
            let (s0, strike, p) = (sv[[option]], xv[[option]], pv[[option]]);
            // The leaves: the call's value at each final price.
            let mut j = l;
            while j <= STEPS {
                let price = s0 * (p.x * (2 * j - STEPS) as f32).exp();
                a[j] = (price - strike).max(0.0);
                j += TILE;
            }
            t.barrier.wait_with_tile_static_memory_fence();
            // Two levels per turn: a -> b, then b -> a.
            let mut level = STEPS;
            while level > 0 {
                let mut j = l;
                while j < level {
                    b[j] = p.y * a[j + 1] + p.z * a[j];
                    j += TILE;
                }
                t.barrier.wait_with_tile_static_memory_fence();
                let mut j = l;
                while j < level - 1 {
                    a[j] = p.y * b[j + 1] + p.z * b[j];
                    j += TILE;
                }
                t.barrier.wait_with_tile_static_memory_fence();
                level -= 2;
            }
            if l == 0 {
                ov[[option]] = a[0];
            }
        })?;
    }
    Ok(out)
}

/// The reference: the same tree in `f64`.
pub fn price_cpu(s: &[f32], x: &[f32], t: &[f32]) -> Vec<f32> {
    s.iter()
        .zip(x)
        .zip(t)
        .map(|((&s, &x), &t)| {
            let (v_dt, pu, pd) = parameters(f64::from(t));
            let mut v: Vec<f64> = (0..=STEPS)
                .map(|j| {
                    (f64::from(s) * (v_dt * f64::from(2 * j - STEPS)).exp() - f64::from(x)).max(0.0)
                })
                .collect();
            for level in (1..=STEPS as usize).rev() {
                for j in 0..level {
                    v[j] = pu * v[j + 1] + pd * v[j];
                }
            }
            v[0] as f32
        })
        .collect()
}
