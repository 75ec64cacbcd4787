//! What every gallery example shares: the flags that choose the
//! accelerator and the number of timed runs, the timing table, and the
//! verdict line.
//!
//! Each example (`cargo run --release -p amp-examples --example <name>`)
//! runs a default size on the default accelerator (the CPU accelerator
//! where there is no GPU), checks the result against a plain-Rust
//! reference, prints the accelerator and a table of times, and prints
//! `<name>: ok` as its last line (exit status 1 and a message on a wrong
//! result, 2 on bad flags or an error).

use std::process::ExitCode;
use std::time::Instant;

use amp_core::{Accelerator, AcceleratorView, QueuingMode};

/// The flags of every example.
#[derive(clap::Args, Debug, Clone)]
pub struct Common {
    /// The accelerator: part of its description or device path, as
    /// `amp-info` prints them (default: the default accelerator).
    #[arg(long)]
    pub accelerator: Option<String>,
    /// Timed runs after a warm-up; the median is printed.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
}

impl Common {
    /// The view to run on.
    ///
    /// # Errors
    ///
    /// [`amp_core::Error::UnknownAccelerator`] for a name no accelerator
    /// matches; errors of choosing the default accelerator.
    pub fn view(&self) -> amp_core::Result<AcceleratorView> {
        init_logging();
        let acc = match &self.accelerator {
            Some(name) => Accelerator::find(name)?,
            None => Accelerator::default()?,
        };
        Ok(acc.create_view(QueuingMode::Automatic))
    }
}

/// Shows the runtime's diagnostics (kernel compiles, pipeline cache use) on
/// standard error as `RUST_LOG` asks (`RUST_LOG=amp_core=debug`); a second
/// call does nothing.
pub fn init_logging() {
    // An error only says that a logger is already installed.
    let _already = env_logger::try_init();
}

/// `width` x `height` as `i32`s when the grid is non-empty, its cell count
/// fits an `i32` and every slice of `lens` has that many cells.
pub fn grid_sizes(width: usize, height: usize, lens: &[usize]) -> Option<(i32, i32)> {
    let n = width.checked_mul(height)?;
    let (w, h) = (i32::try_from(width).ok()?, i32::try_from(height).ok()?);
    (n > 0 && i32::try_from(n).is_ok() && lens.iter().all(|&l| l == n)).then_some((w, h))
}

/// Whether `view` is emulated (the CPU accelerator, software Vulkan):
/// examples pick smaller default sizes there.
pub fn is_slow(view: &AcceleratorView) -> bool {
    view.accelerator().is_cpu() || view.accelerator().is_emulated()
}

/// The median seconds of `runs` calls of `f` after a warm-up call (which
/// compiles the kernels); transfers included.
///
/// # Errors
///
/// The first error of `f`.
pub fn time(runs: usize, mut f: impl FnMut() -> amp_core::Result<()>) -> amp_core::Result<f64> {
    f()?;
    let mut t = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        f()?;
        t.push(start.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    Ok(t[t.len() / 2])
}

/// A table of timings: rows of a name, milliseconds and a rate.
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<(String, f64, String)>,
}

impl Table {
    /// Adds a row: `what` took `secs` (median); `rate` is a throughput
    /// (`"12.3 GB/s"`) or empty.
    pub fn row(&mut self, what: impl Into<String>, secs: f64, rate: impl Into<String>) {
        self.rows.push((what.into(), secs, rate.into()));
    }

    /// Prints the table (Markdown).
    pub fn print(&self) {
        println!("| version | time (ms) | rate |");
        println!("|---|---|---|");
        for (what, secs, rate) in &self.rows {
            println!("| {what} | {:.3} | {rate} |", secs * 1e3);
        }
    }
}

/// Prints the accelerator of `view` as the example's first line.
pub fn announce(name: &str, view: &AcceleratorView, what: &str) {
    println!("{name}: {what} on {}", view.accelerator());
}

/// The example's exit: `<name>: ok` for a right result; the message and
/// status 1 for a wrong one, status 2 for an error.
pub fn finish(name: &str, result: amp_core::Result<Result<(), String>>) -> ExitCode {
    match result {
        Ok(Ok(())) => {
            println!("{name}: ok");
            ExitCode::SUCCESS
        }
        Ok(Err(wrong)) => {
            eprintln!("{name}: wrong result: {wrong}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("{name}: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// A reproducible pseudo-random generator (xorshift64*) for the
/// examples' inputs.
#[derive(Debug, Clone)]
pub struct Rand(u64);

impl Rand {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rand {
        Rand(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A float in `[lo, hi)`.
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// An integer in `[0, n)`.
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.next_u64() >> 32) % u64::from(n.max(1))) as u32
    }
}
