//! Shared helpers of the amp-rs integration and conformance tests.
//!
//! Every kernel and container test runs on every accelerator this helper
//! returns. When the variable [`REQUIRE_ADAPTER_VAR`] is set (CI sets it),
//! the helpers panic unless at least one wgpu adapter exists, so that the
//! WGSL path cannot be skipped silently.

use amp_core::Accelerator;

/// Set to `1` to make the tests fail when no wgpu adapter exists.
pub const REQUIRE_ADAPTER_VAR: &str = "AMP_TEST_REQUIRE_ADAPTER";

/// Whether the tests must find a wgpu adapter.
pub fn adapter_required() -> bool {
    std::env::var(REQUIRE_ADAPTER_VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

pub use amp_test_macros::amp_test;

/// The kinds of accelerator an [`amp_test`] runs on, one test each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The CPU accelerator (test name `...::cpu`).
    Cpu,
    /// Every wgpu adapter (test name `...::wgpu`).
    Wgpu,
}

thread_local! {
    /// The kind of accelerator this thread's test runs on (`None`: all).
    static TARGET: std::cell::Cell<Option<Target>> = const { std::cell::Cell::new(None) };
}

/// Set to a file's path to append the name of every WGSL snapshot the tests
/// check to it (CI then finds snapshot files no test checks any more).
pub const SNAPSHOT_LIST_VAR: &str = "AMP_SNAPSHOT_LIST";

/// Runs `test` with [`accelerators`] narrowed to `target`: what the tests
/// `#[amp_test]` generates call. `path` is the generated module's path
/// (`kernels::arith::add_f32`), which names the test's WGSL snapshots.
///
/// With `snapshots` (the `cpu` test, or the `wgpu` test of a test that has
/// no `cpu` one), the kernels the test launches on this thread are
/// recorded, lowered for a reference device (no GPU needed), and each
/// distinct one is compared with its snapshots: its WGSL in
/// `tests/snapshots/wgsl` and its IR as the macros built it (the front
/// end's output, in the IR's text form) in `tests/snapshots/ir`
/// (`kernels__arith__add_f32.snap`, then `-2`, `-3`, ... in the order of
/// their first launch) with `insta`: a changed or new kernel fails the test
/// and writes a `.snap.new` file to review (`cargo insta review`, or
/// `INSTA_UPDATE=always` to accept every change).
///
/// # Panics
///
/// If `test` panics, or a snapshot differs.
pub fn run_on<R>(target: Target, path: &str, snapshots: bool, test: impl FnOnce() -> R) -> R {
    TARGET.with(|t| t.set(Some(target)));
    SAW_ACCELERATOR.with(|s| s.set(false));
    if snapshots {
        amp_core::__private::snapshot::start();
    }
    let result = test();
    if snapshots {
        check_snapshots(path, &amp_core::__private::snapshot::finish());
    }
    TARGET.with(|t| t.set(None));
    if !SAW_ACCELERATOR.with(std::cell::Cell::get) {
        note_no_accelerator(&format!("{path}::{}", target.name()));
    }
    result
}

/// Set to a file's path to append the name of every [`amp_test`] that ran
/// on no accelerator (its kind had none: a `wgpu` test without an adapter),
/// and so tested nothing; CI prints the list after each pass.
pub const NO_ACCELERATOR_LIST_VAR: &str = "AMP_NO_ACCELERATOR_LIST";

thread_local! {
    /// Whether [`accelerators`] returned any accelerator in this thread
    /// since the current [`run_on`] began.
    static SAW_ACCELERATOR: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Appends `test` to the [`NO_ACCELERATOR_LIST_VAR`] file, where it is set.
fn note_no_accelerator(test: &str) {
    use std::io::Write;
    if let Ok(list) = std::env::var(NO_ACCELERATOR_LIST_VAR) {
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&list)
            .and_then(|mut f| writeln!(f, "{test}"));
        if let Err(e) = written {
            panic!("{NO_ACCELERATOR_LIST_VAR}={list}: {e}");
        }
    }
}

impl Target {
    /// The test name's suffix: `cpu` or `wgpu`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Cpu => "cpu",
            Target::Wgpu => "wgpu",
        }
    }
}

/// Compares the recorded kernels of the test at `path` with their
/// snapshots.
fn check_snapshots(path: &str, kernels: &[amp_core::__private::snapshot::Recorded]) {
    let base = path.replace("::", "__");
    let names: Vec<String> = (0..kernels.len())
        .map(|i| {
            if i == 0 {
                base.clone()
            } else {
                format!("{base}-{}", i + 1)
            }
        })
        .collect();
    if let Ok(list) = std::env::var(SNAPSHOT_LIST_VAR)
        && !names.is_empty()
    {
        use std::io::Write;
        let lines: String = names.iter().map(|n| format!("{n}.snap\n")).collect();
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&list)
            .and_then(|mut f| f.write_all(lines.as_bytes()));
        if let Err(e) = written {
            panic!("{SNAPSHOT_LIST_VAR}={list}: {e}");
        }
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    // The WGSL, then the front end's output (the IR as the macros built
    // it, in the IR's text form) under the same names.
    type Text = fn(&amp_core::__private::snapshot::Recorded) -> &str;
    let forms: [(&str, Text); 2] = [("wgsl", |k| &k.wgsl), ("ir", |k| &k.ir)];
    for (dir, text) in forms {
        settings.set_snapshot_path(format!("../snapshots/{dir}"));
        settings.bind(|| {
            for (name, kernel) in names.iter().zip(kernels) {
                insta::assert_snapshot!(name.as_str(), text(kernel));
            }
        });
    }
}

/// Every accelerator to test on: each wgpu adapter and the CPU accelerator,
/// narrowed to one kind inside an [`amp_test`].
///
/// # Panics
///
/// If [`adapter_required`], wgpu adapters are wanted and none exists.
pub fn accelerators() -> Vec<Accelerator> {
    let all = Accelerator::all();
    let target = TARGET.with(std::cell::Cell::get);
    if adapter_required() && target != Some(Target::Cpu) {
        assert!(
            all.iter().any(|a| !a.is_cpu()),
            "{REQUIRE_ADAPTER_VAR} is set but no wgpu adapter was found \
             (install a Vulkan driver, e.g. mesa-vulkan-drivers for lavapipe); found: {all:?}"
        );
    }
    let chosen: Vec<Accelerator> = all
        .into_iter()
        .filter(|a| match target {
            None => true,
            Some(Target::Cpu) => a.is_cpu(),
            Some(Target::Wgpu) => !a.is_cpu(),
        })
        .collect();
    if !chosen.is_empty() {
        SAW_ACCELERATOR.with(|s| s.set(true));
    }
    chosen
}

/// The wgpu adapters only (possibly none, unless [`adapter_required`]).
pub fn gpu_accelerators() -> Vec<Accelerator> {
    accelerators().into_iter().filter(|a| !a.is_cpu()).collect()
}

/// Set to a number to draw other inputs in every test (the seed each test
/// uses is mixed with it); unset, every run draws the same inputs.
pub const SEED_VAR: &str = "AMP_TEST_SEED";

/// A small pseudo-random generator (xorshift64*), seeded per test so that
/// failures reproduce, different in every test. With [`SEED_VAR`] set, each
/// value of it gives every test fresh inputs; the seed is printed, and the
/// test harness shows it when a test fails.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded from `seed` (any value; zero is remapped), mixed
    /// with [`SEED_VAR`] where it is set.
    ///
    /// # Panics
    ///
    /// If [`SEED_VAR`] is set to something that is not a `u64`.
    pub fn new(seed: u64) -> Rng {
        let run = match std::env::var(SEED_VAR) {
            Ok(v) => v
                .trim()
                .parse::<u64>()
                .unwrap_or_else(|_| panic!("{SEED_VAR}={v:?} is not a u64")),
            Err(_) => 0,
        };
        if run != 0 {
            eprintln!("Rng::new({seed}) with {SEED_VAR}={run}");
        }
        let mixed = seed ^ run.wrapping_mul(0xD1B5_4A32_D192_ED03);
        Rng(mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: i32, hi: i32) -> i32 {
        let span = (i64::from(hi) - i64::from(lo)) as u64;
        (i64::from(lo) + (self.next_u64() % span) as i64) as i32
    }
}

/// `#[kernel]` functions defined in this crate and called from the kernels
/// of the test crates (`tests/tests/kernel_functions.rs`): kernel functions
/// work across crates.
pub mod kernel_fns {
    use amp_core::{Integer, kernel};

    /// `x` clamped to `[lo, hi]`, as C++ AMP's `direct3d::clamp`.
    #[kernel]
    pub fn clamp_to(x: f32, lo: f32, hi: f32) -> f32 {
        if x < lo {
            lo
        } else if x > hi {
            hi
        } else {
            x
        }
    }

    /// The sum of `x` repeated `K` times plus `y` (wrapping): a generic,
    /// const-generic kernel function.
    #[kernel]
    pub fn repeat_add<T: Integer, const K: i32>(x: T, y: T) -> T {
        let mut acc = y;
        for _ in 0..K {
            acc += x;
        }
        acc
    }
}

/// The repository README's example, compiled and run as a doc test.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctest;
