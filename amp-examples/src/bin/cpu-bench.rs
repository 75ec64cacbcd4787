//! `cpu-bench`: the CPU accelerator against lavapipe (Mesa's LLVM software
//! Vulkan driver, through wgpu) and hand-written Rust, in one process.
//!
//! Run: `cargo run --release -p amp-examples --bin cpu-bench [REPS [FILTER]]
//! [--cpu-only] [--matmul N]` (`FILTER`: only the cases whose name contains
//! it; `--cpu-only` skips lavapipe; `--matmul N`: the matmuls at N^3).
//!
//! Every case works on `Array`s resident on the accelerator it runs on, and
//! times a launch followed by `wait` (median of `REPS` runs after a warm-up,
//! wall clock). Each result is checked against a CPU reference before it is
//! timed. Cases: saxpy over 2^24 `f32`, `reduction::sum_on` over 2^24, an
//! empty launch (one work item), the samples' `matmul_simple`,
//! `matmul_tiled` and `matmul_optimized` at 512^3 (`--matmul N` for N^3),
//! and `convolution_simple`, `convolution_tiling` and
//! `convolution_optimized` at 1024^2 with radius 7. Peers, in the same
//! process, on host vectors: rayon loops (saxpy, sum, an i-k-j matmul over
//! rows, a two-pass separable convolution) and `matrixmultiply::sgemm`
//! (its `threading` feature). lavapipe rows are skipped where it is not
//! installed (`apt-get install mesa-vulkan-drivers`).

use std::time::{Duration, Instant};

use amp_core::Result;
use amp_core::prelude::*;
use amp_examples::{convolution, matmul, max_relative_error, reduction};
use rayon::prelude::*;

const SAXPY_N: i32 = 1 << 24;
/// The default matmul size (`--matmul N`).
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
    peers: Vec<(&'static str, Duration)>,
}

fn ms(d: Duration) -> String {
    if d < Duration::from_millis(1) {
        format!("{:.1} us", d.as_secs_f64() * 1e6)
    } else {
        format!("{:.2} ms", d.as_secs_f64() * 1e3)
    }
}

fn run_all(
    view: &AcceleratorView,
    reps: usize,
    only: &str,
    mm: i32,
) -> Result<Vec<(String, Duration)>> {
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
    // sum
    if selected("sum") {
        let xs = values(SAXPY_N as usize, 6);
        let data = Array::from_slice([SAXPY_N], &xs, view)?;
        let partials = Array::<f32, 1>::new([reduction::PARTIALS], view)?;
        let total = Array::<f32, 1>::new([1], view)?;
        let run = || {
            reduction::sum_on(view, &data.view(), &partials, &total.view())?;
            view.wait()
        };
        run()?;
        check("sum", &total.to_vec()?, &[reduction::sum_cpu(&xs)], 1e-3)?;
        let t = median(reps, || run().expect("sum"));
        out.push((format!("sum 2^{}", SAXPY_N.trailing_zeros()), t));
    }
    // empty launch
    if selected("empty launch") {
        let one = Array::<i32, 1>::new([1], view)?;
        let t = median(reps * 40, || empty(view, &one).expect("launch"));
        out.push(("empty launch + wait".to_string(), t));
    }
    // matmul
    let n = mm as usize;
    let (va, vb) = (values(n * n, 3), values(n * n, 4));
    let mut want = vec![0.0f32; n * n];
    matmul::matmul_cpu(&mut want, &va, &vb, mm, mm, mm)?;
    let a = Array::from_slice([mm, mm], &va, view)?;
    let b = Array::from_slice([mm, mm], &vb, view)?;
    let c = Array::<f32, 2>::new([mm, mm], view)?;
    type Mm = fn(
        &AcceleratorView,
        &ArrayView<'_, f32, 2>,
        &ArrayView<'_, f32, 2>,
        &ArrayView<'_, f32, 2>,
    ) -> Result<()>;
    let kernels: [(&str, Mm); 3] = [
        ("matmul_simple", matmul::matmul_simple_on),
        ("matmul_tiled", matmul::matmul_tiled_on),
        ("matmul_optimized", matmul::matmul_optimized_on),
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
        out.push((format!("{name} {mm}^3"), t));
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
    let passes: [(&str, Conv); 3] = [
        ("convolution_simple", convolution::convolution_simple_on),
        ("convolution_tiling", convolution::convolution_tiling_on),
        (
            "convolution_optimized",
            convolution::convolution_optimized_on,
        ),
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

/// The rayon peer of the sum: `par_iter().sum()` over a host vector.
fn rayon_sum(reps: usize) -> Duration {
    let xs = values(SAXPY_N as usize, 6);
    median(reps, || {
        std::hint::black_box(xs.par_iter().sum::<f32>());
    })
}

/// The rayon peer of the matmuls: rows of `c` in parallel, each the i-k-j
/// loop (`c[i][..] += a[i][k] * b[k][..]`), which LLVM vectorises.
fn rayon_ikj(reps: usize, n: usize) -> Duration {
    let (va, vb) = (values(n * n, 3), values(n * n, 4));
    let mut vc = vec![0.0f32; n * n];
    median(reps, || {
        vc.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
            row.fill(0.0);
            for k in 0..n {
                let aik = va[i * n + k];
                for (c, b) in row.iter_mut().zip(&vb[k * n..(k + 1) * n]) {
                    *c += aik * b;
                }
            }
        });
        std::hint::black_box(&vc);
    })
}

/// `matrixmultiply::sgemm` (blocked, packed, SIMD; threads through its
/// `threading` feature): the tuned peer of the matmuls.
fn sgemm(reps: usize, n: usize) -> Duration {
    let (va, vb) = (values(n * n, 3), values(n * n, 4));
    let mut vc = vec![0.0f32; n * n];
    let (rs, cs) = (n as isize, 1isize);
    median(reps, || {
        // SAFETY: the three row-major n x n matrices are `va`, `vb` and
        // `vc` (n * n elements each, strides n and 1); `vc` is borrowed
        // mutably for the call and does not overlap the inputs.
        unsafe {
            matrixmultiply::sgemm(
                n,
                n,
                n,
                1.0,
                va.as_ptr(),
                rs,
                cs,
                vb.as_ptr(),
                rs,
                cs,
                0.0,
                vc.as_mut_ptr(),
                rs,
                cs,
            );
        }
        std::hint::black_box(&vc);
    })
}

/// The rayon peer of the convolutions: the same two separable passes as
/// `convolution_cpu` (rows, then columns, clamped at the edges), each row
/// of the output in parallel.
fn rayon_convolution(reps: usize) -> Duration {
    let n = CONV_N as usize;
    let r = CONV_RADIUS;
    let img = values(n * n, 5);
    let filter: Vec<f32> = (0..2 * r + 1)
        .map(|k| 1.0 / (1.0 + (k as f32 - r as f32).abs()))
        .collect();
    let mut tmp = vec![0.0f32; n * n];
    let mut out = vec![0.0f32; n * n];
    let mut want = vec![0.0f32; n * n];
    let at = |i: isize| i.clamp(0, n as isize - 1) as usize;
    let run = |tmp: &mut [f32], out: &mut [f32]| {
        tmp.par_chunks_mut(n).enumerate().for_each(|(y, row)| {
            let src = &img[y * n..(y + 1) * n];
            for (x, t) in row.iter_mut().enumerate() {
                let mut sum = 0.0f32;
                for (k, f) in filter.iter().enumerate() {
                    sum += src[at(x as isize + k as isize - r as isize)] * f;
                }
                *t = sum;
            }
        });
        out.par_chunks_mut(n).enumerate().for_each(|(y, row)| {
            row.fill(0.0);
            for (k, f) in filter.iter().enumerate() {
                let src = &tmp[at(y as isize + k as isize - r as isize) * n..][..n];
                for (o, t) in row.iter_mut().zip(src) {
                    *o += t * f;
                }
            }
        });
    };
    run(&mut tmp, &mut out);
    convolution::convolution_cpu(&mut want, &img, &filter, CONV_N, CONV_N)
        .expect("the reference convolution");
    assert!(
        max_relative_error(&out, &want).is_some_and(|e| e <= 1e-4),
        "the rayon convolution disagrees with convolution_cpu"
    );
    median(reps, || run(&mut tmp, &mut out))
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cpu_only = args.iter().any(|a| a == "--cpu-only");
    let mm = match args.iter().position(|a| a == "--matmul") {
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse::<i32>().ok())
            .filter(|&v| v > 0 && v % 64 == 0)
            .ok_or_else(|| {
                Error::InvalidArgument("--matmul takes a size, a positive multiple of 64".into())
            })?,
        None => MATMUL_N,
    };
    let skip = args.iter().position(|a| a == "--matmul").map(|i| i + 1);
    let args: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| *a != "--cpu-only" && *a != "--matmul" && Some(*i) != skip)
        .map(|(_, a)| a)
        .collect();
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
    let on_cpu = run_all(&cpu.create_view(QueuingMode::Automatic), reps, only, mm)?;
    let on_lavapipe = match &lavapipe {
        Some(a) => Some(run_all(
            &a.create_view(QueuingMode::Automatic),
            reps,
            only,
            mm,
        )?),
        None => None,
    };
    let mut rows: Vec<Row> = on_cpu
        .into_iter()
        .enumerate()
        .map(|(k, (case, cpu))| Row {
            case,
            cpu,
            lavapipe: on_lavapipe.as_ref().map(|l| l[k].1),
            peers: Vec::new(),
        })
        .collect();
    let has = |rows: &[Row], prefix: &str| rows.iter().any(|r| r.case.starts_with(prefix));
    let add = |rows: &mut Vec<Row>, prefix: &str, peer: (&'static str, Duration)| {
        for r in rows.iter_mut().filter(|r| r.case.starts_with(prefix)) {
            r.peers.push(peer);
        }
    };
    if has(&rows, "saxpy") {
        add(&mut rows, "saxpy", ("rayon loop", rayon_saxpy(reps)));
    }
    if has(&rows, "sum") {
        add(&mut rows, "sum", ("rayon sum", rayon_sum(reps)));
    }
    if has(&rows, "matmul") {
        add(
            &mut rows,
            "matmul",
            ("rayon i-k-j", rayon_ikj(reps, mm as usize)),
        );
    }
    if has(&rows, "matmul_optimized") {
        add(
            &mut rows,
            "matmul_optimized",
            ("matrixmultiply sgemm", sgemm(reps, mm as usize)),
        );
    }
    if has(&rows, "convolution") {
        add(
            &mut rows,
            "convolution",
            ("rayon two-pass", rayon_convolution(reps)),
        );
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
        let (peer, ratio) = if r.peers.is_empty() {
            ("-".to_string(), "-".to_string())
        } else {
            let names: Vec<String> = r
                .peers
                .iter()
                .map(|(name, p)| format!("{name} {}", ms(*p)))
                .collect();
            let ratios: Vec<String> = r
                .peers
                .iter()
                .map(|(_, p)| format!("{:.2}x", r.cpu.as_secs_f64() / p.as_secs_f64()))
                .collect();
            (names.join("; "), ratios.join("; "))
        };
        println!(
            "| {} | {} | {lvp} | {speedup} | {peer} | {ratio} |",
            r.case,
            ms(r.cpu)
        );
    }
    Ok(())
}
