//! The gallery samples on every accelerator (each wgpu adapter and the
//! CPU), on fresh random inputs of awkward sizes, against their plain-Rust
//! references, every output element checked; and each gallery example run
//! as a program at a small size, ending with its `ok` line.

use amp_core::{Error, QueuingMode};
use amp_examples::{
    antenna, binomial_options, bitonic_sort, black_scholes, fluid, histogram, large_matmul,
    mandelbrot, mersenne_twister, morph, nbody, ocean, random_traveler, reduction, scan,
    transitive_closure,
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
            // Skewed towards a few bins (contended atomics), any byte.
            let data: Vec<u8> = (0..n)
                .map(|i| {
                    if i % 3 == 0 {
                        rng.next_u64() as u8
                    } else {
                        rng.range(0, 4) as u8
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
        // The C++ sample's shape: `Float3` particles, `#[kernel]` functions.
        let mut got = start.clone();
        nbody::simulate_particles(&view, &mut got, 2).unwrap();
        let err = nbody::max_error(&got, &want);
        assert!(err < 1e-3, "{acc}: particles: {err}");
        for (g, w) in got.vel.iter().zip(&want.vel) {
            let d = (g.x - w.x)
                .abs()
                .max((g.y - w.y).abs())
                .max((g.z - w.z).abs());
            assert!(
                d <= 1e-3 * w.x.abs().max(w.y.abs()).max(w.z.abs()).max(1.0),
                "{acc}: velocity {g:?} vs {w:?}"
            );
        }
        let mut odd = nbody::Bodies {
            pos: vec![amp_core::Float4::splat(1.0); 3],
            vel: vec![amp_core::Float4::splat(0.0); 3],
        };
        assert!(nbody::simulate(&view, &mut odd, 1, true).is_err());
        assert!(nbody::simulate_particles(&view, &mut odd, 1).is_err());
    }
}

/// Transpose in the C++ sample's generic shape (a generic `#[kernel]`
/// function with a `tile_static` tile of `T`), over scalars, short vectors
/// and a struct of `Float3`s, against the plain transpose; every output
/// element poisoned first.
#[amp_test]
fn transpose_generic_over_element_types() {
    use amp_core::{Float3, Int2};
    use amp_examples::transpose::{GENERIC_TILE, transpose_generic};
    fn check<T: amp_core::Element + PartialEq + std::fmt::Debug>(
        view: &amp_core::AcceleratorView,
        input: &[T],
        poison: T,
        rows: i32,
        cols: i32,
    ) {
        let mut out = vec![poison; input.len()];
        transpose_generic(view, &mut out, input, rows, cols).unwrap();
        let (r, c) = (rows as usize, cols as usize);
        for i in 0..r {
            for j in 0..c {
                assert_eq!(
                    out[j * r + i],
                    input[i * c + j],
                    "({i}, {j}) of {rows} x {cols}"
                );
            }
        }
    }
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(650 + k as u64);
        let rows = GENERIC_TILE * rng.range(1, 4);
        let cols = GENERIC_TILE * rng.range(1, 5);
        let n = (rows * cols) as usize;
        let f: Vec<f32> = (0..n)
            .map(|_| rng.range(-1000, 1000) as f32 / 8.0)
            .collect();
        check(&view, &f, f32::NAN, rows, cols);
        let u: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        check(&view, &u, 0xDEAD_BEEF, rows, cols);
        let v: Vec<Int2> = (0..n)
            .map(|_| Int2::new(rng.range(-99, 99), rng.range(-99, 99)))
            .collect();
        check(&view, &v, Int2::new(i32::MIN, i32::MIN), rows, cols);
        let p: Vec<nbody::Particle> = (0..n)
            .map(|_| nbody::Particle {
                pos: Float3::new(rng.range(-9, 9) as f32, rng.range(-9, 9) as f32, 0.5),
                vel: Float3::new(1.0, rng.range(-9, 9) as f32, -2.0),
            })
            .collect();
        let bad = nbody::Particle {
            pos: Float3::new(-1e9, -1e9, -1e9),
            vel: Float3::new(-1e9, -1e9, -1e9),
        };
        check(&view, &p, bad, rows, cols);
        let mut out = vec![0.0f32; 15 * 16];
        assert!(matches!(
            transpose_generic(&view, &mut out, &[0.0; 15 * 16], 15, 16),
            Err(Error::InvalidArgument(_))
        ));
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
    run_example("transitive_closure", &["--vertices", "40"]);
    run_example(
        "mersenne_twister",
        &["--generators", "33", "--numbers", "700"],
    );
    run_example(
        "random_traveler",
        &["--airports", "30", "--walkers", "64", "--journeys", "8"],
    );
    run_example(
        "antenna",
        &["--elements", "4", "--thetas", "20", "--phis", "24"],
    );
    let morphed = std::env::temp_dir().join(format!("amp-morph-{}-{form}.png", std::process::id()));
    run_example(
        "morph",
        &[
            "--frames",
            "3",
            "--scale",
            "1",
            "--out",
            morphed.to_str().unwrap(),
        ],
    );
    std::fs::remove_file(&morphed).unwrap();
    let fluid_png =
        std::env::temp_dir().join(format!("amp-fluid-{}-{form}.png", std::process::id()));
    run_example(
        "fluid",
        &[
            "--size",
            "24",
            "--steps",
            "2",
            "--iterations",
            "6",
            "--out",
            fluid_png.to_str().unwrap(),
        ],
    );
    std::fs::remove_file(&fluid_png).unwrap();
    let ocean_png =
        std::env::temp_dir().join(format!("amp-ocean-{}-{form}.png", std::process::id()));
    run_example(
        "ocean",
        &[
            "--size",
            "16",
            "--frames",
            "2",
            "--out",
            ocean_png.to_str().unwrap(),
        ],
    );
    std::fs::remove_file(&ocean_png).unwrap();
    run_example("large_matmul", &["--size", "96", "--block", "40"]);
}

/// TransitiveClosure, one launch per vertex and blocked, against a search
/// from every vertex: sizes below, at and across the block side, edges
/// marked by any nonzero value, the output filled with a poison value
/// first.
#[amp_test]
fn transitive_closures_match_a_search_from_every_vertex() {
    type Closure =
        fn(&amp_core::AcceleratorView, &[u32], usize, &mut [u32]) -> amp_core::Result<()>;
    let versions: [(&str, Closure); 2] = [
        ("simple", transitive_closure::closure_simple),
        ("tiled", transitive_closure::closure_tiled),
    ];
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(900 + k as u64);
        for n in [1usize, 5, 16, 17, 40] {
            // About 1.5 edges per vertex, each a random nonzero value.
            let adjacency: Vec<u32> = (0..n * n)
                .map(|_| {
                    if rng.range(0, 2 * n as i32) < 3 {
                        rng.next_u64() as u32 | 1
                    } else {
                        0
                    }
                })
                .collect();
            let want = transitive_closure::closure_cpu(&adjacency, n);
            for (name, f) in versions {
                let mut got = vec![0xDEAD_BEEFu32; n * n];
                f(&view, &adjacency, n, &mut got).unwrap();
                assert_eq!(got, want, "{acc}: {name}, n = {n}, adjacency {adjacency:?}");
            }
        }
        let mut out = vec![0u32; 4];
        for (_, f) in versions {
            assert!(matches!(
                f(&view, &[0; 4], 3, &mut out),
                Err(Error::InvalidArgument(_))
            ));
            assert!(f(&view, &[], 0, &mut []).is_err());
        }
    }
}

/// The reference MT19937 gives the published first outputs for the
/// default seed (`init_genrand(5489)`).
#[test]
fn the_reference_mersenne_twister_gives_the_published_outputs() {
    let mut mt = mersenne_twister::Mt19937::new(5489);
    let first: Vec<u32> = (0..5).map(|_| mt.next_u32()).collect();
    assert_eq!(
        first,
        [
            3_499_211_612,
            581_869_302,
            3_890_346_734,
            3_586_334_585,
            545_404_204
        ]
    );
}

/// MersenneTwister: one MT19937 per work item, bit for bit against the
/// plain-Rust generator, over more than one twist of the state; the
/// output filled with a poison value first.
#[amp_test]
fn mersenne_twisters_match_the_reference_bit_for_bit() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(1000 + k as u64);
        for (generators, per) in [(1usize, 1usize), (3, 625), (70, 1300)] {
            let mut seeds: Vec<u32> = (0..generators).map(|_| rng.next_u64() as u32).collect();
            seeds[0] = 5489;
            if generators > 2 {
                seeds[1] = 0;
                seeds[2] = u32::MAX;
            }
            let mut got = vec![0xDEAD_BEEFu32; generators * per];
            mersenne_twister::generate(&view, &seeds, &mut got).unwrap();
            let want = mersenne_twister::generate_cpu(&seeds, per);
            let differ = got.iter().zip(&want).filter(|(g, w)| g != w).count();
            assert_eq!(differ, 0, "{acc}: {generators} x {per}: seeds {seeds:?}");
            assert_eq!(got[0], 3_499_211_612, "{acc}");
        }
        let mut out = vec![0u32; 5];
        assert!(matches!(
            mersenne_twister::generate(&view, &[1, 2], &mut out),
            Err(Error::InvalidArgument(_))
        ));
        assert!(mersenne_twister::generate(&view, &[], &mut out).is_err());
    }
}

/// RandomTraveler: the counts of final airports equal those of the same
/// journeys walked in plain Rust, and add up to the number of journeys
/// (the counts start at zero: every journey was counted once); a graph
/// with an airport without flights too.
#[amp_test]
fn random_traveler_counts_match_the_same_walks_in_plain_rust() {
    use random_traveler::{Graph, walk, walk_cpu};
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(1100 + k as u64);
        let dead_end = Graph {
            offsets: vec![0, 2, 2, 3],
            targets: vec![1, 2, 0],
            cumulative: vec![3, 4, 1],
        };
        for (airports, walkers, journeys, flights) in
            [(1usize, 1u32, 1u32, 1u32), (7, 37, 5, 12), (60, 256, 4, 20)]
        {
            let graph = Graph::random(airports, 6, rng.next_u64());
            for g in [&graph, &dead_end] {
                let start = rng.range(0, g.airports() as i32) as u32;
                let seed = rng.next_u64() as u32;
                let got = walk(&view, g, start, flights, walkers, journeys, seed).unwrap();
                let want = walk_cpu(g, start, flights, walkers, journeys, seed);
                assert_eq!(
                    got, want,
                    "{acc}: {airports} airports, start {start}, seed {seed}"
                );
                assert_eq!(got.iter().sum::<u32>(), walkers * journeys, "{acc}");
            }
        }
        let g = Graph::random(5, 2, 3);
        assert!(matches!(
            walk(&view, &g, 5, 1, 1, 1, 1),
            Err(Error::InvalidArgument(_))
        ));
        assert!(walk(&view, &g, 0, 1, 0, 1, 1).is_err());
        let mut bad = g.clone();
        bad.targets[0] = 9;
        assert!(walk(&view, &bad, 0, 1, 1, 1, 1).is_err());
    }
}

/// Antenna: the pattern's magnitudes, phases and maximum against the
/// `f64` reference, for random arrays on grids of awkward sizes, within
/// WGSL's accuracy for `sin`, `cos` and `atan2` on GPUs (closer on the CPU
/// accelerator); the outputs filled with NaN first.
#[amp_test]
fn antenna_patterns_match_the_f64_reference() {
    use amp_core::Float4;
    use antenna::{Grid, TOLERANCE, pattern, pattern_cpu, pattern_error};
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(1200 + k as u64);
        for (count, thetas, phis) in [(1usize, 1usize, 1usize), (9, 17, 33), (40, 40, 20)] {
            let elems: Vec<Float4> = (0..count)
                .map(|_| {
                    Float4::new(
                        rng.range(-400, 400) as f32 / 100.0,
                        rng.range(-400, 400) as f32 / 100.0,
                        rng.range(10, 100) as f32 / 100.0,
                        rng.range(0, 628) as f32 / 100.0,
                    )
                })
                .collect();
            let grid = Grid { thetas, phis };
            let cells = thetas * phis;
            let (mut m, mut p) = (vec![f32::NAN; cells], vec![f32::NAN; cells]);
            let max = pattern(&view, &elems, grid, &mut m, &mut p).unwrap();
            let (want_m, want_p, want_max) = pattern_cpu(&elems, grid);
            let scale: f64 = elems.iter().map(|e| f64::from(e.z)).sum();
            let tolerance = if acc.is_cpu() { 1e-4 } else { TOLERANCE };
            let err = pattern_error(&m, &p, &want_m, &want_p) / scale;
            assert!(
                err <= tolerance,
                "{acc}: {count} elements, {thetas} x {phis}: {err}"
            );
            let max_err = (f64::from(max) - want_max).abs() / scale;
            assert!(max_err <= tolerance, "{acc}: maximum {max} vs {want_max}");
            assert!(m.iter().all(|x| x.is_finite() && *x >= 0.0), "{acc}");
        }
        let mut m = vec![0.0; 4];
        let mut p = vec![0.0; 3];
        let grid = Grid { thetas: 2, phis: 2 };
        let one = [Float4::new(0.0, 0.0, 1.0, 0.0)];
        assert!(matches!(
            antenna::pattern(&view, &one, grid, &mut m, &mut p),
            Err(Error::InvalidArgument(_))
        ));
        let mut p = vec![0.0; 4];
        assert!(antenna::pattern(&view, &[], grid, &mut m, &mut p).is_err());
    }
}

/// The largest difference between two packed RGBA images, over every
/// channel of every pixel (256 where the lengths differ).
fn morph_difference(got: &[u32], want: &[u32]) -> u32 {
    if got.len() != want.len() {
        return 256;
    }
    got.iter()
        .zip(want)
        .flat_map(|(g, w)| {
            (0..4).map(move |c| ((g >> (8 * c)) & 255).abs_diff((w >> (8 * c)) & 255))
        })
        .max()
        .unwrap_or(0)
}

/// Morph: frames at several times, every channel of every pixel against
/// the plain-Rust frame, on random images and random fields that reach past
/// the border; the output filled with a poison value first (its alpha is
/// never the output's 255).
#[amp_test]
fn morph_frames_match_the_reference_pixel_for_pixel() {
    use amp_core::Float2;
    use morph::{Morph, morph, morph_cpu, morph_frames};
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(1300 + k as u64);
        // The same operations in the same order: exact on the CPU
        // accelerator and lavapipe; a GPU that fuses multiply-adds may
        // round a blend to the next level.
        let allowed = if acc.is_cpu() || acc.is_emulated() {
            0
        } else {
            1
        };
        for (w, h) in [(1usize, 1usize), (13, 7), (40, 33)] {
            let n = w * h;
            let a: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let b: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let reach = 8 * (w.max(h) as i32 + 2);
            let field: Vec<Float2> = (0..n)
                .map(|_| {
                    Float2::new(
                        rng.range(-reach, reach) as f32 / 5.0,
                        rng.range(-reach, reach) as f32 / 5.0,
                    )
                })
                .collect();
            let m = Morph {
                width: w,
                height: h,
                from: &a,
                to: &b,
                field: &field,
            };
            for t in [0.0f32, 0.3, 0.5, 1.0] {
                let mut got = vec![0x0BAD_F00Du32; n];
                morph(&view, &m, t, &mut got).unwrap();
                let want = morph_cpu(&m, t);
                let worst = morph_difference(&got, &want);
                assert!(
                    worst <= allowed,
                    "{acc}: {w} x {h}, t = {t}: {got:x?} vs {want:x?}"
                );
            }
            let frames = morph_frames(&view, &m, &[0.25, 0.75]).unwrap();
            for (frame, t) in frames.iter().zip([0.25, 0.75]) {
                let worst = morph_difference(frame, &morph_cpu(&m, t));
                assert!(worst <= allowed, "{acc}: {w} x {h}, frame at {t}");
            }
        }
        let m = Morph {
            width: 2,
            height: 2,
            from: &[0; 4],
            to: &[0; 4],
            field: &[Float2::new(0.0, 0.0); 3],
        };
        let mut out = vec![0u32; 4];
        assert!(matches!(
            morph(&view, &m, 0.5, &mut out),
            Err(Error::InvalidArgument(_))
        ));
        let m = Morph {
            field: &[Float2::new(0.0, 0.0); 4],
            ..m
        };
        assert!(morph(&view, &m, 1.5, &mut out).is_err());
        assert!(morph(&view, &m, 0.5, &mut out[..3]).is_err());
    }
}

/// The largest relative difference between two fluids' fields (infinite
/// where one holds a NaN the other does not, or the sizes differ).
fn fluid_difference(a: &fluid::State, b: &fluid::State) -> f32 {
    let flat = |s: &fluid::State| -> Vec<f32> {
        s.velocity
            .iter()
            .flat_map(|v| [v.x, v.y])
            .chain(s.pressure.iter().copied())
            .chain(s.density.iter().copied())
            .collect()
    };
    amp_examples::max_relative_error(&flat(a), &flat(b)).unwrap_or(f32::INFINITY)
}

/// FluidSimulation: a few steps (advection, divergence, Jacobi iterations,
/// projection) on random fields of awkward sizes, against the same steps in
/// plain Rust, which does the same operations in the same order: every
/// cell of every field equal on the CPU accelerator and lavapipe, within
/// 1e-4 on GPUs that may fuse multiply-adds (the library's scratch arrays
/// start as NaN, so a cell a kernel missed would differ).
#[amp_test]
fn fluid_steps_match_the_same_steps_in_plain_rust() {
    use amp_core::Float2;
    use fluid::{Params, State, simulate, simulate_cpu};
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(1400 + k as u64);
        for (w, h, steps, iterations) in
            [(1usize, 1usize, 1u32, 1u32), (7, 5, 2, 3), (33, 20, 3, 8)]
        {
            let n = w * h;
            let mut f = |lo: i32, hi: i32| rng.range(lo, hi) as f32 / 100.0;
            let start = State {
                width: w,
                height: h,
                velocity: (0..n)
                    .map(|_| Float2::new(f(-300, 300), f(-300, 300)))
                    .collect(),
                pressure: (0..n).map(|_| f(-100, 100)).collect(),
                density: (0..n).map(|_| f(0, 100)).collect(),
            };
            let params = Params {
                dt: 0.75,
                iterations,
            };
            let mut got = start.clone();
            simulate(&view, &mut got, steps, params).unwrap();
            let mut want = start.clone();
            simulate_cpu(&mut want, steps, params);
            assert!(want.density.iter().all(|d| d.is_finite()));
            if acc.is_cpu() || acc.is_emulated() {
                // The same operations in the same order: bit for bit.
                assert_eq!(got, want, "{acc}: {w} x {h}, {steps} steps");
            } else {
                // A GPU may fuse the multiply-adds of the interpolation.
                let err = fluid_difference(&got, &want);
                assert!(err <= 1e-4, "{acc}: {w} x {h}, {steps} steps: {err}");
            }
        }
        let mut bad = State::still(3, 2);
        bad.pressure.pop();
        let params = Params {
            dt: 1.0,
            iterations: 1,
        };
        assert!(matches!(
            simulate(&view, &mut bad, 1, params),
            Err(Error::InvalidArgument(_))
        ));
        let mut s = State::still(3, 2);
        let nan = Params {
            dt: f32::NAN,
            iterations: 1,
        };
        assert!(simulate(&view, &mut s, 1, nan).is_err());
        assert!(simulate(&view, &mut State::still(0, 4), 1, params).is_err());
    }
}

/// OceanCS: the 2-D FFT (rows, then columns, one tile per line in
/// `tile_static` memory), forward and inverse, on random values against the
/// definition in `f64`, within the error an `f32` FFT makes; and the height
/// fields of random Phillips spectra against the host's `f64` ones, within
/// that and the accelerator's `sin`/`cos` accuracy. The outputs are filled
/// with NaN first.
#[amp_test]
fn ocean_ffts_and_heights_match_the_f64_dft() {
    use amp_core::Float2;
    use ocean::{
        Spectrum, dft_2d_cpu, fft_2d, fft_tolerance, heights, heights_cpu, heights_tolerance,
    };
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(1500 + k as u64);
        for n in [2usize, 4, 32, 64] {
            let input: Vec<Float2> = (0..n * n)
                .map(|_| {
                    Float2::new(
                        rng.range(-1000, 1000) as f32 / 1000.0,
                        rng.range(-1000, 1000) as f32 / 1000.0,
                    )
                })
                .collect();
            let exact: Vec<[f64; 2]> = input
                .iter()
                .map(|v| [f64::from(v.x), f64::from(v.y)])
                .collect();
            for inverse in [false, true] {
                let mut got = input.clone();
                fft_2d(&view, &mut got, n, inverse).unwrap();
                let want = dft_2d_cpu(&exact, n, inverse);
                let norm = want
                    .iter()
                    .map(|v| v[0] * v[0] + v[1] * v[1])
                    .sum::<f64>()
                    .sqrt();
                let err = got
                    .iter()
                    .zip(&want)
                    .map(|(g, w)| (f64::from(g.x) - w[0]).hypot(f64::from(g.y) - w[1]))
                    .fold(0.0, f64::max);
                assert!(
                    err <= fft_tolerance(n * n, norm),
                    "{acc}: {n} x {n}, inverse {inverse}: {err} of {norm}"
                );
            }
        }
        let trig = if acc.is_cpu() || acc.is_emulated() {
            1e-6
        } else {
            1.0 / 2048.0
        };
        for (n, time) in [(2usize, 0.0f32), (8, 1.7), (32, 12.3), (64, 200.1)] {
            let dir = rng.range(0, 628) as f32 / 100.0;
            let spec = Spectrum::phillips(n, 300.0, 15.0, dir, 1.0, rng.next_u64()).unwrap();
            let mut h = vec![f32::NAN; n * n];
            heights(&view, &spec, time, &mut h).unwrap();
            let want = heights_cpu(&spec, time);
            let tolerance = heights_tolerance(&spec, time, &want, trig);
            let err = h
                .iter()
                .zip(&want)
                .map(|(g, w)| (f64::from(*g) - w).abs())
                .fold(0.0, f64::max);
            assert!(h.iter().all(|v| v.is_finite()), "{acc}: {n}");
            assert!(
                err <= tolerance,
                "{acc}: {n} x {n} at {time}: {err} > {tolerance}"
            );
        }
        let mut three = vec![Float2::new(0.0, 0.0); 9];
        assert!(matches!(
            fft_2d(&view, &mut three, 3, false),
            Err(Error::InvalidArgument(_))
        ));
        assert!(fft_2d(&view, &mut three, 2, false).is_err());
        let mut big = vec![Float2::new(0.0, 0.0); 2048 * 2048];
        assert!(fft_2d(&view, &mut big, 2048, true).is_err());
        let spec = Spectrum::phillips(4, 10.0, 5.0, 0.0, 1.0, 1).unwrap();
        assert!(heights(&view, &spec, 0.0, &mut [0.0; 15]).is_err());
    }
}

/// LargeMatrixMultiplication: products computed a block of `C` at a time,
/// with blocks that divide the sizes and blocks that do not (the last band
/// and column block short), some taking the register-blocked kernel; on
/// quarters in [-2, 2], so that every sum is exact and the result equals
/// the reference's; the output filled with NaN first.
#[amp_test]
fn large_matmul_blocks_match_the_reference() {
    use amp_examples::matmul::matmul_cpu;
    use large_matmul::{Blocks, matmul_large};
    let cases = [
        (1usize, 1usize, 1usize, 1usize, 1usize),
        (37, 53, 29, 16, 20),
        (70, 45, 33, 32, 64),
        (128, 192, 48, 64, 64),
        (130, 70, 16, 64, 128),
    ];
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(1600 + k as u64);
        for (m, n, w, block_rows, block_cols) in cases {
            let mut quarters = |len: usize| -> Vec<f32> {
                (0..len).map(|_| rng.range(-8, 9) as f32 / 4.0).collect()
            };
            let a = quarters(m * w);
            let b = quarters(w * n);
            let mut want = vec![0.0f32; m * n];
            matmul_cpu(&mut want, &a, &b, m as i32, n as i32, w as i32).unwrap();
            let mut got = vec![f32::NAN; m * n];
            let s = Blocks {
                m,
                n,
                w,
                block_rows,
                block_cols,
            };
            matmul_large(&view, &mut got, &a, &b, s).unwrap();
            assert_eq!(got, want, "{acc}: {s:?}");
        }
        let s = Blocks {
            m: 2,
            n: 2,
            w: 2,
            block_rows: 1,
            block_cols: 0,
        };
        let mut c = vec![0.0f32; 4];
        assert!(matches!(
            matmul_large(&view, &mut c, &[0.0; 4], &[0.0; 4], s),
            Err(Error::InvalidArgument(_))
        ));
        let s = Blocks { block_cols: 1, ..s };
        assert!(matmul_large(&view, &mut c, &[0.0; 3], &[0.0; 4], s).is_err());
        assert!(matmul_large(&view, &mut c, &[0.0; 4], &[0.0; 4], s).is_ok());
    }
}
