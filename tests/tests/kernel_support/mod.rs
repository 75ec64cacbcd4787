//! Helpers shared by the kernel tests (the `kernels` and `runtime` test
//! binaries include this module with `#[path]`): the accelerator views to run on, random
//! inputs, sentinels that prove every output element was written, and
//! float comparisons with explicit tolerances.

#![allow(dead_code)]

use amp_core::{AcceleratorView, QueuingMode};
use amp_tests::{Rng, accelerators};

/// Sentinel for `u32` outputs (a kernel that skips an element leaves it).
pub(crate) const POISON_U32: u32 = 0xDEAD_BEEF;
/// Sentinel for `i32` outputs.
pub(crate) const POISON_I32: i32 = 0xDEAD_BEEF_u32 as i32;

/// Relative tolerance for basic `f32` arithmetic (Vulkan allows 2.5 ulp for
/// division, and fusing `a * b + c` into an FMA).
pub(crate) const F32_BASIC: f32 = 1e-5;
/// Relative tolerance for `f32` transcendental functions on GPUs.
pub(crate) const F32_TRANSCENDENTAL: f32 = 1e-3;

/// One view per accelerator, in `mode`, with a label for assertion messages.
pub(crate) fn views(mode: QueuingMode) -> Vec<(AcceleratorView, String)> {
    accelerators()
        .into_iter()
        .map(|acc| {
            let label = format!("[{acc} / {mode}]");
            (acc.create_view(mode), label)
        })
        .collect()
}

/// Every accelerator in both queuing modes.
pub(crate) fn all_views() -> Vec<(AcceleratorView, String)> {
    let mut all = views(QueuingMode::Immediate);
    all.extend(views(QueuingMode::Automatic));
    all
}

/// Each accelerator's default view (automatic queuing).
pub(crate) fn default_views() -> Vec<(AcceleratorView, String)> {
    accelerators()
        .into_iter()
        .map(|acc| {
            let label = format!("[{acc} / default view]");
            (acc.default_view(), label)
        })
        .collect()
}

/// A uniform `f64` in `[0, 1)`.
pub(crate) fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// `n` uniform `f32` in `[lo, hi)`.
pub(crate) fn f32s(rng: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n)
        .map(|_| lo + (unit(rng) as f32) * (hi - lo))
        .collect()
}

/// `n` uniform `f64` in `[lo, hi)`.
pub(crate) fn f64s(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| lo + unit(rng) * (hi - lo)).collect()
}

/// `n` integers in `lo..hi`.
pub(crate) fn i32s(rng: &mut Rng, n: usize, lo: i32, hi: i32) -> Vec<i32> {
    (0..n).map(|_| rng.range(lo, hi)).collect()
}

/// `n` integers over the whole `i32` range.
pub(crate) fn any_i32s(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n).map(|_| (rng.next_u64() >> 32) as i32).collect()
}

/// `n` integers over the whole `u32` range.
pub(crate) fn any_u32s(rng: &mut Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| (rng.next_u64() >> 32) as u32).collect()
}

/// Whether `got` is within `rel * |want|` (or `abs`) of `want`; NaN matches
/// NaN and infinities match exactly.
pub(crate) fn close64(got: f64, want: f64, rel: f64, abs: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= abs.max(rel * want.abs())
}

/// [`close64`] for `f32`.
pub(crate) fn close32(got: f32, want: f32, rel: f32, abs: f32) -> bool {
    close64(
        f64::from(got),
        f64::from(want),
        f64::from(rel),
        f64::from(abs),
    )
}

/// Asserts `got[i]` is close to `want[i]` for every `i` (a NaN sentinel left
/// in `got` fails unless `want` is NaN too).
#[track_caller]
pub(crate) fn assert_close32(got: &[f32], want: &[f32], rel: f32, abs: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            close32(*g, *w, rel, abs),
            "{what}: element {i}: got {g:e}, want {w:e} (rel {rel:e}, abs {abs:e})"
        );
    }
}

/// [`assert_close32`] for `f64`.
#[track_caller]
pub(crate) fn assert_close64(got: &[f64], want: &[f64], rel: f64, abs: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            close64(*g, *w, rel, abs),
            "{what}: element {i}: got {g:e}, want {w:e} (rel {rel:e}, abs {abs:e})"
        );
    }
}

/// Asserts exact equality element by element, naming the first mismatch.
#[track_caller]
pub(crate) fn assert_same<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(g == w, "{what}: element {i}: got {g:?}, want {w:?}");
    }
}

/// Asserts bit-exact `f32` equality (NaN payloads aside: NaN matches NaN).
#[track_caller]
pub(crate) fn assert_bits32(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let same = (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits();
        assert!(same, "{what}: element {i}: got {g:e}, want {w:e}");
    }
}
