//! C++ AMP's multi-GPU matrix multiplication: the rows of `C = A x B` split
//! over every GPU accelerator (each with its own queue), the bands gathered
//! into one host buffer; timed on the first accelerator alone and on all of
//! them, transfers included.
//!
//! ```text
//! cargo run --release -p amp-examples --example multi_gpu_mxm -- [--size N] [--runs K]
//!     [--accelerators all|gpus|NAME,NAME..] [--mode all|one-thread|threads|pieces|resident] [--pieces P]
//!     [--timings]
//! ```
//!
//! `--mode` chooses how the host issues the bands (see
//! `amp_examples::multi_gpu::Issue`): `one-thread` is the sample's shape
//! (one thread queues every band over sections of one view per matrix),
//! `threads` issues each band from a thread of its own, `pieces` does that
//! with each band cut into `--pieces` row pieces (transfers overlapping
//! kernels; `matmul_multi` does this with 4 pieces), `resident` keeps `B` on
//! each accelerator across products (C++ AMP's `array` per accelerator:
//! `ResidentB`, its upload timed apart); `all` (the default) times each, so that
//! their ratios come from one run. After the table, the phases of one
//! product (uploads of `A`'s rows and of `B`, kernel, download of `C`'s
//! rows, each band from its own thread, the phases separated) are timed on
//! one accelerator and on all of them: where the time goes; and, beside
//! them, the same uploads made as `Array`s (one host copy per matrix, not
//! two), a measurement of the runtime's upload paths.
//!
//! Without a GPU it runs on the CPU accelerator. The product is checked on
//! 64 random rows against an `f64` reference (relative error below 1e-3);
//! the last line is `multi_gpu_mxm: ok`. Exits with 1 on a wrong result,
//! 2 on bad arguments or an error.

use std::process::ExitCode;
use std::sync::Barrier;
use std::time::Instant;

use amp_core::{Accelerator, AcceleratorView, Array, ArrayView, QueuingMode};
use amp_examples::gallery::{Rand, time};
use amp_examples::matmul::matmul_optimized_on;
use amp_examples::multi_gpu::{Issue, ResidentB, bands, matmul_multi_issued};

struct Options {
    size: Option<i32>,
    runs: usize,
    accelerators: String,
    mode: String,
    pieces: usize,
    timings: bool,
}

/// `--timings`: print every kernel's GPU time, per view, where the table
/// sums them.
static TIMINGS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

const USAGE: &str = "usage: multi_gpu_mxm [--size N] [--runs K] [--accelerators all|gpus|NAME,NAME..] [--mode all|one-thread|threads|pieces|resident] [--pieces P]\n  --size N          the matrices are N x N (default 8192 on GPUs, 256 on the CPU accelerator)\n  --runs K          timed runs after a warm-up; the median is printed (default 5)\n  --accelerators    which accelerators share the work: every GPU (default `gpus`, the CPU\n                    accelerator where there is none), `all` of them, or those whose\n                    description or device path contains one of the names\n  --mode M          how the host issues the bands: `one-thread` (the sample's shape: one\n                    thread queues every band), `threads` (one thread per band),\n                    `pieces` (one thread per band, each band in --pieces row pieces\n                    so that transfers overlap kernels, as `matmul_multi` does),\n                    `resident` (B uploaded to each accelerator once, before the timed\n                    products, which move only A's and C's rows), or\n                    `all` of them, timed in this run (default `all`)\n  --pieces P        row pieces per band for `pieces` (default 4)\n  --timings         print each kernel's GPU time (every launch, per accelerator)";

fn parse() -> Result<Options, String> {
    let mut o = Options {
        size: None,
        runs: 5,
        accelerators: "gpus".to_string(),
        mode: "all".to_string(),
        pieces: amp_examples::multi_gpu::PIECES,
        timings: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let positive = |name: &str, v: String| -> Result<i64, String> {
            v.parse::<i64>()
                .ok()
                .filter(|&n| n > 0 && n <= 46_340)
                .ok_or(format!("{name} takes a number from 1 to 46340, not {v:?}"))
        };
        match flag.as_str() {
            "--size" => o.size = Some(positive("--size", value("--size")?)? as i32),
            "--runs" => o.runs = positive("--runs", value("--runs")?)? as usize,
            "--accelerators" => o.accelerators = value("--accelerators")?,
            "--mode" => o.mode = value("--mode")?,
            "--pieces" => o.pieces = positive("--pieces", value("--pieces")?)? as usize,
            "--timings" => o.timings = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(o)
}

/// How a mode issues one product.
#[derive(Clone, Copy)]
enum Mode {
    /// [`matmul_multi_issued`], `B` from the host slice every product.
    Issue(Issue),
    /// [`ResidentB::matmul`]: `B` uploaded to each accelerator once, before
    /// the timed products.
    Resident,
}

/// The modes `--mode` names, with their names.
fn modes(o: &Options) -> Result<Vec<(String, Mode)>, String> {
    let one_thread = ("one-thread".to_string(), Mode::Issue(Issue::OneThread));
    let threads = (
        "threads".to_string(),
        Mode::Issue(Issue::ThreadPerBand { pieces: 1 }),
    );
    let pieces = (
        format!("pieces ({})", o.pieces),
        Mode::Issue(Issue::ThreadPerBand { pieces: o.pieces }),
    );
    let resident = ("resident B".to_string(), Mode::Resident);
    Ok(match o.mode.as_str() {
        "all" => vec![one_thread, threads, pieces, resident],
        "one-thread" => vec![one_thread],
        "threads" => vec![threads],
        "pieces" => vec![pieces],
        "resident" => vec![resident],
        other => return Err(format!("unknown --mode {other:?}\n{USAGE}")),
    })
}

fn choose(spec: &str) -> Result<Vec<Accelerator>, String> {
    let all = Accelerator::all();
    let chosen: Vec<Accelerator> = match spec {
        "all" => all,
        "gpus" => {
            let gpus: Vec<Accelerator> = all
                .iter()
                .filter(|a| !a.is_cpu() && !a.is_emulated())
                .cloned()
                .collect();
            if gpus.is_empty() {
                vec![Accelerator::cpu()]
            } else {
                gpus
            }
        }
        names => all
            .into_iter()
            .filter(|a| {
                names.split(',').any(|n| {
                    !n.is_empty() && (a.description().contains(n) || a.device_path().contains(n))
                })
            })
            .collect(),
    };
    if chosen.is_empty() {
        return Err(format!("no accelerator matches {spec:?} (see `amp-info`)"));
    }
    Ok(chosen)
}

/// The largest relative error of 64 rows of `c` against `f64` dot products.
fn check(c: &[f32], a: &[f32], b: &[f32], n: usize) -> f64 {
    let mut worst = 0.0f64;
    let mut row = 12345usize;
    for _ in 0..64 {
        row = (row * 1_103_515_245 + 12_345) % n;
        for col in (0..n).step_by((n / 64).max(1)) {
            let want: f64 = (0..n)
                .map(|k| f64::from(a[row * n + k]) * f64::from(b[k * n + col]))
                .sum();
            let got = f64::from(c[row * n + col]);
            worst = worst.max((got - want).abs() / want.abs().max(1.0));
        }
    }
    worst
}

/// The GPU time of the kernels each of `views` ran since the last call,
/// divided by `products`, the largest over the views; `None` where a view
/// has no kernel timing.
fn kernel_time(views: &[AcceleratorView], products: usize) -> Option<f64> {
    let mut worst = 0.0f64;
    for (k, v) in views.iter().enumerate() {
        let timings = v.kernel_timings().ok()?;
        if TIMINGS.load(std::sync::atomic::Ordering::Relaxed) && !timings.is_empty() {
            let list: Vec<String> = timings
                .iter()
                .map(|t| {
                    format!(
                        "{}:{} {:.2}",
                        t.line,
                        t.column,
                        t.duration.as_secs_f64() * 1e3
                    )
                })
                .collect();
            println!(
                "  view {k}, {} kernels (line:column ms): {}",
                timings.len(),
                list.join(", ")
            );
        }
        let total: f64 = timings.iter().map(|t| t.duration.as_secs_f64()).sum();
        worst = worst.max(total / products as f64);
    }
    Some(worst)
}

/// Waits until every command and upload recorded on `view` has run: a
/// one-element read submits the queue (staged uploads with it) and waits.
fn fence(view: &AcceleratorView) -> amp_core::Result<()> {
    Array::<f32, 1>::new([1], view)?.to_vec().map(drop)
}

/// The wall times of the three phases of one `n x n x n` product split over
/// `views`, each band issued from its own thread, the phases separated by
/// barriers: every band's upload of its rows of `A` and of `B` (until the
/// device holds them), every band's kernel (until it has run), every band's
/// download of its rows of `C` (until the host holds them).
fn phases(
    views: &[AcceleratorView],
    c: &mut [f32],
    a: &[f32],
    b: &[f32],
    n: i32,
) -> amp_core::Result<[f64; 3]> {
    let nu = n as usize;
    let mut work = Vec::new();
    let (mut a_rest, mut c_rest) = (a, c);
    for (view, (start, end)) in views.iter().zip(bands(n, views.len())) {
        let rows = (end - start) as usize;
        let (a_band, a_next) = a_rest.split_at(rows * nu);
        let (c_band, c_next) = std::mem::take(&mut c_rest).split_at_mut(rows * nu);
        (a_rest, c_rest) = (a_next, c_next);
        if rows > 0 {
            work.push((view, rows as i32, a_band, c_band));
        }
    }
    let barrier = Barrier::new(work.len() + 1);
    std::thread::scope(|s| {
        let handles: Vec<_> = work
            .into_iter()
            .map(|(view, rows, a_band, c_band)| {
                let barrier = &barrier;
                s.spawn(move || -> amp_core::Result<()> {
                    // Every barrier is reached, whatever fails: an error
                    // only skips the band's later steps.
                    let made = ArrayView::new([rows, n], a_band).and_then(|av| {
                        let bv = ArrayView::new([n, n], b)?;
                        Ok((av, bv, ArrayView::new_mut([rows, n], c_band)?))
                    });
                    barrier.wait();
                    let up = made.and_then(|(av, bv, cv)| {
                        av.synchronize_to(view)?;
                        bv.synchronize_to(view)?;
                        fence(view)?;
                        Ok((av, bv, cv))
                    });
                    barrier.wait();
                    let ran = up.and_then(|(av, bv, cv)| {
                        cv.discard_data();
                        matmul_optimized_on(view, &cv, &av, &bv)?;
                        view.wait()?;
                        Ok(cv)
                    });
                    barrier.wait();
                    let down = ran.and_then(|cv| cv.synchronize());
                    barrier.wait();
                    down
                })
            })
            .collect();
        barrier.wait();
        let mut at = [Instant::now(); 4];
        for t in &mut at[1..] {
            barrier.wait();
            *t = Instant::now();
        }
        for h in handles {
            h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        }
        Ok([1, 2, 3].map(|i| (at[i] - at[i - 1]).as_secs_f64()))
    })
}

/// The wall time of uploading every band's rows of `A` and `B` to its
/// accelerator as `Array`s, each band from its own thread:
/// `Array::from_slice` makes one host copy and one queue write per matrix,
/// where a view's upload stages 32 MiB pieces through a bounce buffer (two
/// host copies each). A measurement of the runtime's upload paths.
fn upload_arrays(views: &[AcceleratorView], a: &[f32], b: &[f32], n: i32) -> amp_core::Result<f64> {
    let nu = n as usize;
    let work: Vec<_> = views
        .iter()
        .zip(bands(n, views.len()))
        .filter(|(_, (start, end))| start < end)
        .map(|(view, (start, end))| {
            let rows = &a[start as usize * nu..end as usize * nu];
            (view, end - start, rows)
        })
        .collect();
    let barrier = Barrier::new(work.len() + 1);
    std::thread::scope(|s| {
        let handles: Vec<_> = work
            .into_iter()
            .map(|(view, rows, a_band)| {
                let barrier = &barrier;
                s.spawn(move || -> amp_core::Result<()> {
                    barrier.wait();
                    let up = Array::from_slice([rows, n], a_band, view).and_then(|aa| {
                        let bb = Array::from_slice([n, n], b, view)?;
                        fence(view)?;
                        Ok((aa, bb))
                    });
                    barrier.wait();
                    up.map(drop)
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        barrier.wait();
        let t = start.elapsed().as_secs_f64();
        for h in handles {
            h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        }
        Ok(t)
    })
}

fn run(o: &Options) -> Result<bool, String> {
    let modes = modes(o)?;
    TIMINGS.store(o.timings, std::sync::atomic::Ordering::Relaxed);
    let accs = choose(&o.accelerators)?;
    let emulated = accs.iter().all(|a| a.is_cpu() || a.is_emulated());
    let n = o.size.unwrap_or(if emulated { 256 } else { 8192 });
    println!("multi_gpu_mxm: {n} x {n} x {n} f32, rows split over:");
    for (k, (acc, (start, end))) in accs.iter().zip(bands(n, accs.len())).enumerate() {
        println!("  {k}: {acc} (rows {start}..{end})");
    }
    let len = (n as usize) * (n as usize);
    // Small values: the f64 check sees only the accumulation's rounding.
    let mut rng = Rand::new(1);
    let mut values =
        |n: usize| -> Vec<f32> { (0..n).map(|_| rng.below(256) as f32 / 64.0 - 2.0).collect() };
    let (a, b) = (values(len), values(len));
    let mut c = vec![f32::NAN; len];
    let all: Vec<AcceleratorView> = accs
        .iter()
        .map(|a| a.create_view(QueuingMode::Automatic))
        .collect();
    // GPU timestamps of the kernels, where the accelerators have them.
    let timed = all.iter().all(|v| v.set_kernel_timing(true).is_ok());
    let e = |e: amp_core::Error| e.to_string();
    let flops = 2.0 * f64::from(n).powi(3);
    let mut ok = true;
    // (mode, accelerators, seconds, kernel seconds, error)
    let mut rows = Vec::new();
    for (name, mode) in &modes {
        let mut measure = |views: &[AcceleratorView]| -> Result<(), String> {
            if o.timings {
                println!("{name} on {} accelerator(s), every product:", views.len());
            }
            c.fill(f32::NAN);
            let t = match mode {
                Mode::Issue(issue) => time(o.runs, || {
                    matmul_multi_issued(views, &mut c, &a, &b, n, n, n, *issue)
                })
                .map_err(e)?,
                Mode::Resident => {
                    let started = Instant::now();
                    let resident = ResidentB::new(views, &b, n, n).map_err(e)?;
                    println!(
                        "resident B on {} accelerator(s): uploaded in {:.2} ms (not in the table's time)",
                        views.len(),
                        started.elapsed().as_secs_f64() * 1e3
                    );
                    time(o.runs, || resident.matmul(&mut c, &a, n)).map_err(e)?
                }
            };
            let kernel = kernel_time(views, o.runs + 1).filter(|_| timed);
            let err = check(&c, &a, &b, n as usize);
            ok &= err < 1e-3;
            rows.push((name.clone(), views.len(), t, kernel, err));
            Ok(())
        };
        measure(&all[..1])?;
        if all.len() > 1 {
            measure(&all)?;
        } else {
            // One accelerator: "all" is the same row.
            let last = rows.last().cloned().expect("a row");
            rows.push(last);
        }
    }
    println!();
    println!(
        "| mode | accelerators | time (ms) | TFLOP/s | kernel (ms, GPU timestamps, slowest device) | max rel. error (64 rows) |"
    );
    println!("|---|---|---|---|---|---|");
    for (name, count, t, kernel, err) in &rows {
        let kernel = kernel.map_or("-".to_string(), |k| format!("{:.2}", k * 1e3));
        println!(
            "| {name} | {count} | {:.2} | {:.2} | {kernel} | {err:.1e} |",
            t * 1e3,
            flops / t / 1e12,
        );
    }
    for pair in rows.chunks(2) {
        let (one, many) = (&pair[0], &pair[1]);
        println!(
            "{}: speedup of {} accelerators over 1, transfers included: {:.2}x",
            one.0,
            many.1,
            one.2 / many.2
        );
    }
    let best = |count: usize| {
        rows.iter()
            .filter(|r| r.1 == count)
            .min_by(|x, y| x.2.total_cmp(&y.2))
            .expect("a row")
    };
    let (b1, bn) = (best(1), best(all.len()));
    println!(
        "best: speedup of {} accelerators ({}) over 1 ({}), transfers included: {:.2}x",
        all.len(),
        bn.0,
        b1.0,
        b1.2 / bn.2
    );
    // Where the time goes.
    let bytes = |rows: f64, cols: f64| rows * cols * 4.0;
    let nf = f64::from(n);
    println!();
    println!(
        "phases of one product, each band from its own thread (median of {}):",
        o.runs.min(3)
    );
    println!(
        "| accelerators | upload A rows + B (ms, GB/s) | kernel (ms; GPU timestamps) | download C rows (ms, GB/s) | sum (ms) | upload as Arrays (ms, GB/s) |"
    );
    println!("|---|---|---|---|---|---|");
    for views in [&all[..1], &all[..]] {
        let mut samples = Vec::new();
        for _ in 0..o.runs.min(3) {
            c.fill(f32::NAN);
            let _earlier = kernel_time(views, 1);
            let [up, k, down] = phases(views, &mut c, &a, &b, n).map_err(e)?;
            let k_gpu = kernel_time(views, 1).filter(|_| timed).unwrap_or(f64::NAN);
            ok &= check(&c, &a, &b, n as usize) < 1e-3;
            let arrays = upload_arrays(views, &a, &b, n).map_err(e)?;
            samples.push([up, k, down, k_gpu, arrays]);
        }
        let median = |i: usize| {
            let mut v: Vec<f64> = samples.iter().map(|s| s[i]).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let [up, k, down, k_gpu, arrays] = [0, 1, 2, 3, 4].map(median);
        let up_bytes = bytes(nf, nf) + bytes(nf, nf) * views.len() as f64;
        println!(
            "| {} | {:.2} ({:.2}) | {:.2}; {:.2} | {:.2} ({:.2}) | {:.2} | {:.2} ({:.2}) |",
            views.len(),
            up * 1e3,
            up_bytes / up / 1e9,
            k * 1e3,
            k_gpu * 1e3,
            down * 1e3,
            bytes(nf, nf) / down / 1e9,
            (up + k + down) * 1e3,
            arrays * 1e3,
            up_bytes / arrays / 1e9,
        );
    }
    Ok(ok)
}

fn main() -> ExitCode {
    let o = match parse() {
        Ok(o) => o,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(&o) {
        Ok(true) => {
            println!("multi_gpu_mxm: ok");
            ExitCode::SUCCESS
        }
        Ok(false) => {
            eprintln!("multi_gpu_mxm: the product differs from the reference");
            ExitCode::from(1)
        }
        Err(message) => {
            eprintln!("multi_gpu_mxm: {message}");
            ExitCode::from(2)
        }
    }
}
