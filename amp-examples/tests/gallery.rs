//! The gallery samples on every accelerator (each wgpu adapter and the
//! CPU), on fresh random inputs of awkward sizes, against their plain-Rust
//! references, every output element checked; and each gallery example run
//! as a program at a small size, ending with its `ok` line.

use amp_core::{Error, QueuingMode};
use amp_examples::{
    binomial_options, bitonic_sort, black_scholes, histogram, mandelbrot, nbody, reduction, scan,
};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

#[amp_test]
fn black_scholes_prices_match_the_f64_reference() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(100 + k as u64);
        for n in [1usize, 7, 1000, 4099] {
            let s: Vec<f32> = (0..n)
                .map(|_| rng.range(500, 3000) as f32 / 100.0)
                .collect();
            let x: Vec<f32> = (0..n)
                .map(|_| rng.range(100, 10_000) as f32 / 100.0)
                .collect();
            let t: Vec<f32> = (0..n).map(|_| rng.range(25, 1000) as f32 / 100.0).collect();
            let (call, put) = black_scholes::price(&view, &s, &x, &t).unwrap();
            let (want_call, want_put) = black_scholes::price_cpu(&s, &x, &t);
            let err = amp_examples::max_relative_error(&call, &want_call)
                .zip(amp_examples::max_relative_error(&put, &want_put))
                .map_or(f32::INFINITY, |(c, p)| c.max(p));
            assert!(err < 1e-3, "{acc}: n = {n}: error {err}");
        }
        assert!(matches!(
            black_scholes::price(&view, &[1.0], &[], &[1.0]),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[amp_test]
fn histograms_count_every_value() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(200 + k as u64);
        for n in [1usize, 255, 4097, 100_003] {
            // Skewed towards a few bins (contended atomics), any u32 value.
            let data: Vec<u32> = (0..n)
                .map(|i| {
                    if i % 3 == 0 {
                        rng.next_u64() as u32
                    } else {
                        rng.range(0, 4) as u32
                    }
                })
                .collect();
            let want = histogram::histogram_cpu(&data);
            assert_eq!(
                histogram::histogram_simple(&view, &data).unwrap(),
                want,
                "{acc}: {n}"
            );
            assert_eq!(
                histogram::histogram_tiled(&view, &data).unwrap(),
                want,
                "{acc}: {n}"
            );
        }
        assert!(histogram::histogram_tiled(&view, &[]).is_err());
    }
}

#[amp_test]
fn mandelbrot_counts_match_the_reference() {
    use mandelbrot::{Frame, iterations, iterations_cpu, iterations_tiled};
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        for (w, h) in [(1, 1), (33, 17), (64, 48)] {
            let frame = Frame::whole(w, h);
            let len = (w * h) as usize;
            let mut want = vec![0u32; len];
            iterations_cpu(&mut want, w, h, frame, 300);
            for tiled in [false, true] {
                let mut got = vec![u32::MAX; len];
                if tiled {
                    iterations_tiled(&view, &mut got, w, h, frame, 300).unwrap();
                } else {
                    iterations(&view, &mut got, w, h, frame, 300).unwrap();
                }
                assert!(got.iter().all(|&n| n <= 300), "{acc}: {w}x{h}");
                let differ = got.iter().zip(&want).filter(|(g, w)| g != w).count();
                // The CPU computes exactly the reference's arithmetic; a
                // GPU may fuse multiply-adds on the set's boundary.
                let allowed = if acc.is_cpu() { 0 } else { len / 100 + 1 };
                assert!(
                    differ <= allowed,
                    "{acc}: {w}x{h} tiled {tiled}: {differ} differ"
                );
            }
        }
        let mut wrong = vec![0u32; 5];
        assert!(iterations(&view, &mut wrong, 2, 2, Frame::whole(2, 2), 10).is_err());
    }
}

#[amp_test]
fn bitonic_sort_sorts_powers_of_two() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(300 + k as u64);
        for m in [0u32, 1, 6, 9, 10, 12] {
            let n = 1usize << m;
            // Duplicates and the extremes.
            let keys: Vec<u32> = (0..n)
                .map(|i| match i % 5 {
                    0 => u32::MAX,
                    1 => 0,
                    2 => rng.range(0, 10) as u32,
                    _ => rng.next_u64() as u32,
                })
                .collect();
            let mut got = keys.clone();
            bitonic_sort::sort(&view, &mut got).unwrap();
            let mut want = keys;
            want.sort_unstable();
            assert_eq!(got, want, "{acc}: 2^{m} keys");
        }
        let mut three = vec![3u32, 2, 1];
        assert!(matches!(
            bitonic_sort::sort(&view, &mut three),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(three, [3, 2, 1]);
    }
}

#[amp_test]
fn scans_match_the_reference() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(400 + k as u64);
        // One tile, a partial one, two levels and three levels of tiles.
        for n in [1usize, 255, 256, 257, 70_001] {
            let keys: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let want = scan::inclusive_cpu(&keys);
            assert_eq!(scan::inclusive(&view, &keys).unwrap(), want, "{acc}: {n}");
            let excl = scan::exclusive(&view, &keys).unwrap();
            let want_excl: Vec<u32> = want
                .iter()
                .zip(&keys)
                .map(|(w, k)| w.wrapping_sub(*k))
                .collect();
            assert_eq!(excl, want_excl, "{acc}: {n}");
        }
        assert!(scan::inclusive(&view, &[]).is_err());
    }
}

/// The Reduction sample's cascade of halvings and its atomic-total version
/// (the tiled two-launch one is tested in `samples.rs`): exact on values
/// `k / 16` with small `k` (sums of them are exact in `f32` in any order).
#[amp_test]
fn reductions_by_halvings_and_by_atomics() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(500 + k as u64);
        for n in [1usize, 2, 3, 255, 257, 100_003] {
            let data: Vec<f32> = (0..n).map(|_| rng.range(-64, 65) as f32 / 16.0).collect();
            let want = reduction::sum_cpu(&data);
            assert_eq!(
                reduction::sum_simple(&view, &data).unwrap(),
                want,
                "{acc}: {n}"
            );
            assert_eq!(
                reduction::sum_atomic(&view, &data).unwrap(),
                want,
                "{acc}: {n}"
            );
        }
        assert!(reduction::sum_atomic(&view, &[]).is_err());
        assert!(reduction::sum_simple(&view, &[]).is_err());
    }
}

/// NBody, simple and tiled, two steps, against the `f64` reference.
#[amp_test]
fn nbody_steps_match_the_f64_reference() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(600 + k as u64);
        let n = 2 * nbody::TILE as usize;
        let mut f = |lo: i32, hi: i32| rng.range(lo, hi) as f32 / 100.0;
        let start = nbody::Bodies {
            pos: (0..n)
                .map(|_| {
                    amp_core::Float4::new(
                        f(-1000, 1000),
                        f(-1000, 1000),
                        f(-1000, 1000),
                        f(50, 150),
                    )
                })
                .collect(),
            vel: (0..n)
                .map(|_| amp_core::Float4::new(f(-10, 10), f(-10, 10), f(-10, 10), 0.0))
                .collect(),
        };
        let mut want = start.clone();
        nbody::simulate_cpu(&mut want, 2);
        for tiled in [false, true] {
            let mut got = start.clone();
            nbody::simulate(&view, &mut got, 2, tiled).unwrap();
            let err = nbody::max_error(&got, &want);
            assert!(err < 1e-3, "{acc}: tiled {tiled}: {err}");
            assert!(got.vel.iter().all(|v| v.x.is_finite()), "{acc}");
        }
        let mut odd = nbody::Bodies {
            pos: vec![amp_core::Float4::splat(1.0); 3],
            vel: vec![amp_core::Float4::splat(0.0); 3],
        };
        assert!(nbody::simulate(&view, &mut odd, 1, true).is_err());
    }
}

/// BinomialOptions: one tile per option, against the `f64` tree.
#[amp_test]
fn binomial_option_prices_match_the_f64_tree() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(700 + k as u64);
        for n in [1usize, 5, 33] {
            let s: Vec<f32> = (0..n)
                .map(|_| rng.range(500, 3000) as f32 / 100.0)
                .collect();
            let x: Vec<f32> = (0..n)
                .map(|_| rng.range(100, 10_000) as f32 / 100.0)
                .collect();
            let t: Vec<f32> = (0..n).map(|_| rng.range(25, 1000) as f32 / 100.0).collect();
            let got = binomial_options::price(&view, &s, &x, &t).unwrap();
            let want = binomial_options::price_cpu(&s, &x, &t);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-3 * w.abs().max(1.0),
                    "{acc}: option {i}: {g} vs {w}"
                );
            }
        }
        assert!(binomial_options::price(&view, &[], &[], &[]).is_err());
    }
}

/// The Gaussian blur on every accelerator against the host's, on a random
/// image of an awkward size, and the PNG round trip of the result.
#[amp_test]
fn gaussian_blur_matches_the_host_and_round_trips_through_png() {
    use amp_examples::gaussian_blur::{Image, blur, blur_channels};
    let mut rng = Rng::new(800);
    let img = Image {
        width: 37,
        height: 21,
        rgb: (0..37 * 21 * 3).map(|_| rng.range(0, 256) as u8).collect(),
    };
    let want = blur_channels(None, &img, 4, 2.0).unwrap();
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let got = blur_channels(Some(&view), &img, 4, 2.0).unwrap();
        for (c, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.len(), w.len());
            for (i, (a, b)) in g.iter().zip(w).enumerate() {
                assert!(
                    (a - b).abs() < 1e-3,
                    "{acc}: channel {c}, pixel {i}: {a} vs {b}"
                );
            }
        }
        let out = blur(&view, &img, 4, 2.0).unwrap();
        // Named per accelerator: the test's two forms run at once.
        let tag: String = acc
            .device_path()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = std::env::temp_dir().join(format!("amp-blur-{}-{tag}.png", std::process::id()));
        out.write_png(&path).unwrap();
        assert_eq!(Image::read_png(&path).unwrap(), out, "{acc}");
        std::fs::remove_file(&path).unwrap();
        assert!(blur(&view, &img, 4, 0.0).is_err());
    }
    let missing = std::path::Path::new("/nonexistent/image.png");
    assert!(
        matches!(Image::read_png(missing), Err(Error::InvalidArgument(m)) if m.contains("nonexistent"))
    );
}

/// Runs the example `name` with `args` on the CPU accelerator and on the
/// first wgpu adapter (if there is one; those of the test's kind); its last line must be
/// `<name>: ok` on each.
fn run_example(name: &str, args: &[&str]) {
    let all = accelerators();
    if all.iter().any(|a| a.is_cpu()) {
        run_example_on(name, args, "cpu");
    }
    if let Some(gpu) = all.into_iter().find(|a| !a.is_cpu()) {
        run_example_on(name, args, gpu.device_path());
    }
}

fn run_example_on(name: &str, args: &[&str], accelerator: &str) {
    let exe = std::env::current_exe().unwrap();
    let example = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("examples")
        .join(name);
    let out = std::process::Command::new(&example)
        .args(args)
        .args(["--runs", "1", "--accelerator", accelerator])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (`cargo test -p amp-examples` builds the examples)",
                example.display()
            )
        });
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name} on {accelerator}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().last(),
        Some(format!("{name}: ok").as_str()),
        "{stdout}"
    );
    assert!(
        stdout.contains("| version | time (ms) | rate |"),
        "{stdout}"
    );
}

#[amp_test]
fn gallery_examples_run_and_check_themselves() {
    // The `wgpu` form on a machine without an adapter has nothing to run.
    let kinds = accelerators();
    if kinds.is_empty() {
        return;
    }
    // One image per form of the test (they run at once in one process).
    let form = if kinds.iter().any(|a| a.is_cpu()) {
        "cpu"
    } else {
        "wgpu"
    };
    let png =
        std::env::temp_dir().join(format!("amp-mandelbrot-{}-{form}.png", std::process::id()));
    run_example("black_scholes", &["--options", "5000"]);
    run_example("histogram", &["--values", "20000"]);
    run_example(
        "mandelbrot",
        &[
            "--width",
            "64",
            "--max-iter",
            "200",
            "--out",
            png.to_str().unwrap(),
        ],
    );
    // The image is a PNG of the requested size.
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let reader = decoder.read_info().unwrap();
    assert_eq!((reader.info().width, reader.info().height), (64, 48));
    std::fs::remove_file(&png).unwrap();
    run_example("bitonic_sort", &["--log2", "10"]);
    run_example("scan", &["--keys", "3000"]);
    run_example("reduction", &["--elements", "5000"]);
    run_example("transpose", &["--size", "40"]);
    run_example("nbody", &["--bodies", "256", "--steps", "1"]);
    run_example("binomial_options", &["--options", "3"]);
    let blurred =
        std::env::temp_dir().join(format!("amp-blurred-{}-{form}.png", std::process::id()));
    run_example("gaussian_blur", &["--out", blurred.to_str().unwrap()]);
    std::fs::remove_file(&blurred).unwrap();
}
