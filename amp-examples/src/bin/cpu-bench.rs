//! `cpu-bench`: the CPU accelerator against lavapipe (Mesa's LLVM software
//! Vulkan driver, through wgpu) and hand-written Rust, in one process.
//!
//! Run: `cargo run --release -p amp-examples --bin cpu-bench [REPS [FILTER]]`
//! (`FILTER`: only the cases whose name contains it; `--cpu-only` skips
//! lavapipe).
//!
//! Every case works on `Array`s resident on the accelerator it runs on, and
//! times a launch followed by `wait` (median of `REPS` runs after a warm-up,
//! wall clock). Each result is checked against a CPU reference before it is
//! timed. Cases: saxpy over 2^24 `f32` beside a rayon loop, an empty
//! launch (one work item), the C++ AMP samples' `matmul_simple` and
//! `matmul_tiled` at 512^3, and `convolution_simple` and
//! `convolution_tiling` at 1024^2 with radius 7. lavapipe rows are skipped
//! where it is not installed (`apt-get install mesa-vulkan-drivers`).

use std::time::{Duration, Instant};

use amp_core::Result;
use amp_core::prelude::*;
use amp_examples::{convolution, matmul, max_relative_error};
use rayon::prelude::*;

const SAXPY_N: i32 = 1 << 24;
const MATMUL_N: i32 = 512;
const CONV_N: i32 = 1024;
const CONV_RADIUS: usize = 7;

/// The median of `reps` timed runs of `f`, after one untimed run.
fn median(reps: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// Deterministic pseudo-random values in `[-1, 1)`.
fn values(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        })
        .collect()
}

fn check(what: &str, got: &[f32], want: &[f32], tolerance: f32) -> Result<()> {
    match max_relative_error(got, want) {
        Some(e) if e <= tolerance => Ok(()),
        e => Err(Error::Runtime(format!(
            "{what}: wrong result (largest relative error {e:?})"
        ))),
    }
}

fn saxpy(view: &AcceleratorView, x: &Array<f32, 1>, y: &Array<f32, 1>) -> Result<()> {
    let (xv, yv) = (x.view(), y.view());
    parallel_for_each!(view, yv.extent(), |i: Index<1>| {
        yv[i] = 2.5f32 * xv[i] + yv[i];
    })?;
    view.wait()
}

fn empty(view: &AcceleratorView, out: &Array<i32, 1>) -> Result<()> {
    let o = out.view();
    parallel_for_each!(view, o.extent(), |i: Index<1>| {
        o[i] = 1;
    })?;
    view.wait()
}

/// One row of the table: the CPU accelerator, lavapipe and a peer.
struct Row {
    case: String,
    cpu: Duration,
    lavapipe: Option<Duration>,
    peer: Option<(&'static str, Duration)>,
}

fn ms(d: Duration) -> String {
    if d < Duration::from_millis(1) {
        format!("{:.1} us", d.as_secs_f64() * 1e6)
    } else {
        format!("{:.2} ms", d.as_secs_f64() * 1e3)
    }
}

fn run_all(view: &AcceleratorView, reps: usize, only: &str) -> Result<Vec<(String, Duration)>> {
    let selected = |case: &str| case.contains(only);
    let mut out = Progress(Vec::new());
    // saxpy
    if selected("saxpy") {
        let (xs, ys) = (values(SAXPY_N as usize, 1), values(SAXPY_N as usize, 2));
        let x = Array::from_slice([SAXPY_N], &xs, view)?;
        let y = Array::from_slice([SAXPY_N], &ys, view)?;
        saxpy(view, &x, &y)?;
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| 2.5 * x + y).collect();
        check("saxpy", &y.to_vec()?, &want, 1e-6)?;
        let t = median(reps, || saxpy(view, &x, &y).expect("saxpy"));
        out.push((format!("saxpy 2^{}", SAXPY_N.trailing_zeros()), t));
    }
    // empty launch
    if selected("empty launch") {
        let one = Array::<i32, 1>::new([1], view)?;
        let t = median(reps * 40, || empty(view, &one).expect("launch"));
        out.push(("empty launch + wait".to_string(), t));
    }
    // matmul
    let n = MATMUL_N as usize;
    let (va, vb) = (values(n * n, 3), values(n * n, 4));
    let mut want = vec![0.0f32; n * n];
    matmul::matmul_cpu(&mut want, &va, &vb, MATMUL_N, MATMUL_N, MATMUL_N)?;
    let a = Array::from_slice([MATMUL_N, MATMUL_N], &va, view)?;
    let b = Array::from_slice([MATMUL_N, MATMUL_N], &vb, view)?;
    let c = Array::<f32, 2>::new([MATMUL_N, MATMUL_N], view)?;
    type Mm = fn(
        &AcceleratorView,
        &ArrayView<'_, f32, 2>,
        &ArrayView<'_, f32, 2>,
        &ArrayView<'_, f32, 2>,
    ) -> Result<()>;
    let kernels: [(&str, Mm); 2] = [
        ("matmul_simple", matmul::matmul_simple_on),
        ("matmul_tiled", matmul::matmul_tiled_on),
    ];
    for (name, kernel) in kernels {
        if !selected(name) {
            continue;
        }
        let run = || {
            kernel(view, &c.view(), &a.view(), &b.view())?;
            view.wait()
        };
        run()?;
        check(name, &c.to_vec()?, &want, 1e-4)?;
        let t = median(reps, || run().expect(name));
        out.push((format!("{name} {MATMUL_N}^3"), t));
    }
    // convolution
    let n = CONV_N as usize;
    let img_host = values(n * n, 5);
    let filter_host: Vec<f32> = (0..2 * CONV_RADIUS + 1)
        .map(|k| 1.0 / (1.0 + (k as f32 - CONV_RADIUS as f32).abs()))
        .collect();
    let mut want = vec![0.0f32; n * n];
    convolution::convolution_cpu(&mut want, &img_host, &filter_host, CONV_N, CONV_N)?;
    let img = Array::from_slice([CONV_N, CONV_N], &img_host, view)?;
    let filter = Array::from_slice([filter_host.len() as i32], &filter_host, view)?;
    let tmp = Array::<f32, 2>::new([CONV_N, CONV_N], view)?;
    let result = Array::<f32, 2>::new([CONV_N, CONV_N], view)?;
    type Conv = fn(
        &AcceleratorView,
        &ArrayView<'_, f32, 2>,
        &ArrayView<'_, f32, 2>,
        &ArrayView<'_, f32, 1>,
        &Array<f32, 2>,
    ) -> Result<()>;
    let passes: [(&str, Conv); 2] = [
        ("convolution_simple", convolution::convolution_simple_on),
        ("convolution_tiling", convolution::convolution_tiling_on),
    ];
    for (name, passes) in passes {
        if !selected(name) {
            continue;
        }
        let run = || {
            passes(view, &result.view(), &img.view(), &filter.view(), &tmp)?;
            view.wait()
        };
        run()?;
        check(name, &result.to_vec()?, &want, 1e-4)?;
        let t = median(reps, || run().expect(name));
        out.push((format!("{name} {CONV_N}^2 r{CONV_RADIUS}"), t));
    }
    Ok(out.0)
}

/// The rows measured so far, each also printed to stderr as it comes.
struct Progress(Vec<(String, Duration)>);

impl Progress {
    fn push(&mut self, row: (String, Duration)) {
        eprintln!("  {}: {}", row.0, ms(row.1));
        self.0.push(row);
    }
}

/// The rayon peer of saxpy: the same arithmetic over host vectors.
fn rayon_saxpy(reps: usize) -> Duration {
    let (xs, mut ys) = (values(SAXPY_N as usize, 1), values(SAXPY_N as usize, 2));
    median(reps, || {
        ys.par_iter_mut()
            .zip(xs.par_iter())
            .for_each(|(y, &x)| *y += 2.5f32 * x);
    })
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cpu_only = args.iter().any(|a| a == "--cpu-only");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--cpu-only").collect();
    let only = args.get(1).map_or("", |s| s.as_str());
    let reps: usize = match args.first() {
        Some(a) => a
            .parse()
            .map_err(|_| Error::InvalidArgument(format!("REPS: not a number: {a}")))?,
        None => 5,
    };
    let cpu = Accelerator::cpu();
    let lavapipe = Accelerator::all()
        .into_iter()
        .filter(|_| !cpu_only)
        .find(|a| a.description().to_lowercase().contains("llvmpipe"));
    println!(
        "cpu-bench: {} threads; CPU accelerator vs {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        lavapipe
            .as_ref()
            .map_or("(no lavapipe)", |a| a.description())
    );
    let on_cpu = run_all(&cpu.create_view(QueuingMode::Automatic), reps, only)?;
    let on_lavapipe = match &lavapipe {
        Some(a) => Some(run_all(&a.create_view(QueuingMode::Automatic), reps, only)?),
        None => None,
    };
    let mut rows: Vec<Row> = on_cpu
        .into_iter()
        .enumerate()
        .map(|(k, (case, cpu))| Row {
            case,
            cpu,
            lavapipe: on_lavapipe.as_ref().map(|l| l[k].1),
            peer: None,
        })
        .collect();
    if let Some(row) = rows.iter_mut().find(|r| r.case.starts_with("saxpy")) {
        row.peer = Some(("rayon loop", rayon_saxpy(reps)));
    }
    println!();
    println!("| case | CPU accelerator | lavapipe | lavapipe / CPU | peer | CPU / peer |");
    println!("|---|---|---|---|---|---|");
    for r in &rows {
        let (lvp, speedup) = match r.lavapipe {
            Some(l) => (
                ms(l),
                format!("{:.1}x", l.as_secs_f64() / r.cpu.as_secs_f64()),
            ),
            None => ("-".to_string(), "-".to_string()),
        };
        let (peer, ratio) = match r.peer {
            Some((name, p)) => (
                format!("{name} {}", ms(p)),
                format!("{:.2}x", r.cpu.as_secs_f64() / p.as_secs_f64()),
            ),
            None => ("-".to_string(), "-".to_string()),
        };
        println!(
            "| {} | {} | {lvp} | {speedup} | {peer} | {ratio} |",
            r.case,
            ms(r.cpu)
        );
    }
    Ok(())
}
