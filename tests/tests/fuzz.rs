//! The differential fuzzer: random kernels, each run on every accelerator
//! and compared with the same computation in plain Rust.
//!
//! `tests/build.rs` generates the kernels with `tests/fuzz/gen.rs` (whose
//! documentation lists the constructs and what is generated how) into
//! `$OUT_DIR/fuzz_kernels.rs`, which this file includes: for each kernel
//! `K`, `run_K` launches it and `host_K` computes one work item's expected
//! results with the kernel language's semantics (`tests/fuzz/host.rs`).
//! Each `#[amp_test(no_snapshots)]` test (`kernels_0000_to_0024::cpu`,
//! `::wgpu`, ...) runs 25 kernels on every accelerator of its kind; WGSL
//! snapshots are not checked (the kernels change with the seed).
//!
//! On each accelerator every kernel gets fresh random inputs (a seed per
//! kernel and accelerator kind; `AMP_TEST_SEED` changes them too): 50 work
//! items, each with three `i32`, `u32` and `f32` inputs (special values
//! such as `0`, `-1`, `MIN`, `MAX`, `±0.0`, `±inf`, NaN, `1e30` a third of
//! the time, small values a third, random bits or normal floats the rest)
//! and three captured scalars. The outputs are poisoned first, so a work
//! item that writes nothing shows as "not written".
//!
//! Compared: the `i32` and `u32` outputs bit for bit; the `f32` output bit
//! for bit, except that any NaN matches any NaN, and `0.0` matches `-0.0`
//! where the generator cannot vouch for the sign of a zero result (GPUs
//! need not keep it in arithmetic); and the division, `sqrt` and
//! multiply-add outputs within the tolerance their host evaluation gives
//! (infinities exactly). See `tests/fuzz/gen.rs` for how the generator
//! keeps every other float result exact on GPUs (no fusing or
//! reassociation can change it).
//!
//! A mismatch prints the seeds, the kernel's number and source, the
//! inputs and both results of the first mismatching work items; the test
//! fails at the end of its batch, naming every failing kernel.
//!
//! Thousands of kernels from another seed (the count and seed are read
//! when the test binary is built):
//!
//! ```text
//! AMP_FUZZ_SEED=12345 AMP_FUZZ_COUNT=2000 cargo test -p amp-tests --test fuzz --release
//! ```
//!
//! Known bugs keep some constructs out of the generated kernels until
//! they are fixed: the `GEN_*` flags at the top of `tests/fuzz/gen.rs`.
//! `AMP_FUZZ_FLAGS` turns them on or off for one build, to check a fix
//! (`AMP_FUZZ_FLAGS=bool_xor,wrapping_neg`, or `all`; `-match` turns one
//! off).

#[path = "kernel_support/mod.rs"]
mod kernel_support;

#[path = "../fuzz/host.rs"]
mod h;

use amp_core::prelude::*;
use amp_tests::{Rng, amp_test};
use kernel_support::{POISON_I32, POISON_U32, views};
use std::fmt::Write as _;
use std::ops::Range;

/// Work items per launch.
const ITEMS: usize = 50;
/// Inputs of each type per work item (`gen::INPUTS`).
const INPUTS: usize = 3;
/// The `f32` outputs' sentinel: a NaN no kernel computes.
const POISON_F32_BITS: u32 = 0x7FBA_DBAD;
/// Mismatching work items printed per kernel.
const SHOWN: usize = 3;

/// One launch's inputs: `INPUTS` values of each type per work item, row
/// by row, and the captured scalars.
#[derive(Debug)]
struct Inputs {
    i: Vec<i32>,
    u: Vec<u32>,
    f: Vec<f32>,
    ci: i32,
    cu: u32,
    cf: f32,
}

/// One launch's outputs, one of each per work item.
struct Outputs {
    i: Vec<i32>,
    u: Vec<u32>,
    f: Vec<f32>,
}

/// One work item's expected results.
struct Want {
    i: i32,
    u: u32,
    f: f32,
    /// Another right `f32` result (`f` unless fusing a multiply-add may
    /// change it).
    alt: f32,
    /// Absolute tolerance of `f` and `alt` (0: bit for bit, NaNs alike).
    tol: f32,
    /// Whether the sign of a zero `f` must match.
    zero_sign: bool,
}

/// `host_K`: one work item's expected results from its inputs and the
/// captured scalars.
type HostFn = fn([i32; INPUTS], [u32; INPUTS], [f32; INPUTS], i32, u32, f32) -> Want;

/// A generated kernel.
struct Case {
    /// Launches the kernel on a view.
    run: fn(&AcceleratorView, &Inputs, &mut Outputs) -> amp_core::Result<()>,
    /// One work item's expected results.
    host: HostFn,
    /// The kernel's source, for messages.
    source: &'static str,
}

/// The generated kernels and their tests.
#[allow(warnings, clippy::all, clippy::pedantic)]
mod generated {
    use super::*;

    include!(concat!(env!("OUT_DIR"), "/fuzz_kernels.rs"));
}

/// An `i32`: a special value, a small one or random bits, a third each.
fn any_i32(rng: &mut Rng) -> i32 {
    const SPECIAL: [i32; 12] = [
        0,
        1,
        -1,
        2,
        -2,
        i32::MIN,
        i32::MAX,
        31,
        32,
        33,
        -32,
        i32::MIN + 1,
    ];
    match rng.next_u64() % 3 {
        0 => SPECIAL[(rng.next_u64() % SPECIAL.len() as u64) as usize],
        1 => rng.range(-40, 41),
        _ => (rng.next_u64() >> 32) as i32,
    }
}

/// A `u32` (as [`any_i32`]).
fn any_u32(rng: &mut Rng) -> u32 {
    const SPECIAL: [u32; 10] = [
        0,
        1,
        2,
        u32::MAX,
        u32::MAX - 1,
        0x8000_0000,
        0x7FFF_FFFF,
        31,
        32,
        33,
    ];
    match rng.next_u64() % 3 {
        0 => SPECIAL[(rng.next_u64() % SPECIAL.len() as u64) as usize],
        1 => rng.range(0, 70) as u32,
        _ => (rng.next_u64() >> 32) as u32,
    }
}

/// An `f32`: a special value, a multiple of 0.25 in `[-20, 20]`, or a
/// normal number of magnitude `2^-20` to `2^40` with random bits, a third
/// each (never subnormal, never above `2^126` but for infinity).
fn any_f32(rng: &mut Rng) -> f32 {
    const SPECIAL: [f32; 18] = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e30,
        -1e30,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        3.0,
        1e-3,
        2147483648.0,
        -2147483904.0,
        4294967296.0,
    ];
    match rng.next_u64() % 3 {
        0 => SPECIAL[(rng.next_u64() % SPECIAL.len() as u64) as usize],
        1 => rng.range(-80, 81) as f32 / 4.0,
        _ => {
            let bits = rng.next_u64();
            let sign = ((bits >> 63) as u32) << 31;
            let exp = (127 - 20 + (bits >> 32) % 61) as u32;
            f32::from_bits(sign | (exp << 23) | (bits as u32 & 0x7F_FFFF))
        }
    }
}

/// Inputs for `ITEMS` work items from `seed`.
fn inputs(seed: u64) -> Inputs {
    let mut rng = Rng::new(seed);
    let n = ITEMS * INPUTS;
    Inputs {
        i: (0..n).map(|_| any_i32(&mut rng)).collect(),
        u: (0..n).map(|_| any_u32(&mut rng)).collect(),
        f: (0..n).map(|_| any_f32(&mut rng)).collect(),
        ci: any_i32(&mut rng),
        cu: any_u32(&mut rng),
        cf: any_f32(&mut rng),
    }
}

/// Whether the `f32` result `got` is what `want` allows.
fn f32_matches(got: f32, want: &Want) -> bool {
    f32_is(got, want.f, want) || f32_is(got, want.alt, want)
}

/// Whether `got` is `w`, as `want` compares.
fn f32_is(got: f32, w: f32, want: &Want) -> bool {
    if w.is_nan() || got.is_nan() {
        return w.is_nan() && got.is_nan();
    }
    if w.is_infinite() || got.is_infinite() {
        return got == w;
    }
    if want.tol > 0.0 {
        return (got - w).abs() <= want.tol;
    }
    if w == 0.0 && !want.zero_sign {
        return got == 0.0;
    }
    got.to_bits() == w.to_bits()
}

/// `x` with its bits.
fn show_f32(x: f32) -> String {
    format!("{x:e} ({:#010x})", x.to_bits())
}

/// Runs `cases[range]` on every accelerator of the test's kind, and fails
/// naming every kernel whose results differ from the host's.
fn run_batch(cases: &[Case], range: Range<usize>) {
    use generated::{COUNT, FLAGS, SEED};
    let mut failed: Vec<String> = Vec::new();
    for (view, label) in views(QueuingMode::Automatic) {
        let kind = u64::from(view.accelerator().is_cpu());
        for no in range.clone() {
            let case = &cases[no];
            let input_seed = SEED
                ^ (no as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ kind.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
            let x = inputs(input_seed);
            let mut o = Outputs {
                i: vec![POISON_I32; ITEMS],
                u: vec![POISON_U32; ITEMS],
                f: vec![f32::from_bits(POISON_F32_BITS); ITEMS],
            };
            let head = format!(
                "fuzz kernel {no} on {label}: AMP_FUZZ_SEED={SEED} AMP_FUZZ_COUNT={COUNT} AMP_FUZZ_FLAGS={FLAGS:?}, input seed {input_seed:#x}"
            );
            let launched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                (case.run)(&view, &x, &mut o)
            }));
            let mut report = String::new();
            match launched {
                Err(_) => {
                    let _ = writeln!(report, "  the launch panicked");
                }
                Ok(Err(e)) => {
                    let _ = writeln!(report, "  the launch failed: {e}");
                }
                Ok(Ok(())) => compare(case, &x, &o, &mut report),
            }
            if !report.is_empty() {
                eprintln!("{head}\nkernel:\n{}\n{report}", case.source);
                failed.push(format!("{no} on {label}"));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} fuzz kernel(s) of {range:?} differ from the host (details above): {}",
        failed.len(),
        failed.join(", ")
    );
}

/// Work item `w`'s inputs in `v`.
fn row<T: Copy>(v: &[T], w: usize) -> [T; INPUTS] {
    std::array::from_fn(|j| v[w * INPUTS + j])
}

/// Appends to `report` the first mismatching work items of a launch.
fn compare(case: &Case, x: &Inputs, o: &Outputs, report: &mut String) {
    let mut shown = 0;
    let mut bad = 0;
    for w in 0..ITEMS {
        let (i, u, f) = (row(&x.i, w), row(&x.u, w), row(&x.f, w));
        let want = (case.host)(i, u, f, x.ci, x.cu, x.cf);
        let (gi, gu, gf) = (o.i[w], o.u[w], o.f[w]);
        let ok_i = gi == want.i;
        let ok_u = gu == want.u;
        let ok_f = f32_matches(gf, &want);
        if ok_i && ok_u && ok_f {
            continue;
        }
        bad += 1;
        if shown == SHOWN {
            continue;
        }
        shown += 1;
        let fs: Vec<String> = f.iter().map(|&v| show_f32(v)).collect();
        let _ = writeln!(
            report,
            "  work item {w}: i = {i:?}, u = {u:?}, f = [{}], ci = {}, cu = {}, cf = {}",
            fs.join(", "),
            x.ci,
            x.cu,
            show_f32(x.cf)
        );
        let unwritten = |p: bool| if p { " (not written)" } else { "" };
        if !ok_i {
            let _ = writeln!(
                report,
                "    oi: got {gi} ({gi:#010x}){}, want {} ({:#010x})",
                unwritten(gi == POISON_I32),
                want.i,
                want.i
            );
        }
        if !ok_u {
            let _ = writeln!(
                report,
                "    ou: got {gu} ({gu:#010x}){}, want {} ({:#010x})",
                unwritten(gu == POISON_U32),
                want.u,
                want.u
            );
        }
        if !ok_f {
            let _ = writeln!(
                report,
                "    of: got {}{}, want {}{} (tolerance {:e}, zero sign {})",
                show_f32(gf),
                unwritten(gf.to_bits() == POISON_F32_BITS),
                show_f32(want.f),
                if want.alt.to_bits() == want.f.to_bits() {
                    String::new()
                } else {
                    format!(" or {}", show_f32(want.alt))
                },
                want.tol,
                if want.zero_sign {
                    "compared"
                } else {
                    "ignored"
                }
            );
        }
    }
    if bad > shown {
        let _ = writeln!(report, "  ... {} more work items differ", bad - shown);
    }
}
