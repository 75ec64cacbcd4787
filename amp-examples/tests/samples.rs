//! The ported C++ AMP samples on every accelerator (each wgpu adapter and
//! the CPU), on fresh random inputs of awkward sizes, against their CPU
//! references; every output element is poisoned first, so an unwritten one
//! fails. Also: bad shapes are errors that leave the output untouched, and
//! the convolution's intermediate image never crosses to the host.

use amp_core::{Accelerator, Error, QueuingMode};
use amp_examples::convolution::{
    TILE_SIZE, convolution_cpu, convolution_optimized, convolution_simple, convolution_tiling,
};
use amp_examples::matmul::{matmul_cpu, matmul_optimized, matmul_simple, matmul_tiled};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

/// Values `k / 16` with small `k`: products and sums of a few hundred of
/// them are exact in `f32`, whatever the order of the additions.
fn exact_values(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.range(-64, 65) as f32 / 16.0).collect()
}

type Matmul = fn(
    &amp_core::AcceleratorView,
    &mut [f32],
    &[f32],
    &[f32],
    i32,
    i32,
    i32,
) -> amp_core::Result<()>;

#[amp_test]
fn matrix_multiplication_simple_tiled_and_optimized() {
    // The last two are multiples of matmul_optimized's block (64, with a
    // shared dimension a multiple of 16); it falls back to the tiled kernel
    // for the others.
    let cases: [(i32, i32, i32); 7] = [
        (1, 1, 1),
        (16, 16, 16),
        (37, 53, 29),
        (64, 48, 80),
        (17, 3, 130),
        (64, 128, 48),
        (128, 64, 160),
    ];
    let kernels: [(&str, Matmul); 3] = [
        ("simple", matmul_simple),
        ("tiled", matmul_tiled),
        ("optimized", matmul_optimized),
    ];
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        for (c, &(m, n, w)) in cases.iter().enumerate() {
            let mut rng = Rng::new(1000 + 10 * k as u64 + c as u64);
            let a = exact_values(&mut rng, (m * w) as usize);
            let b = exact_values(&mut rng, (w * n) as usize);
            let mut want = vec![0.0f32; (m * n) as usize];
            matmul_cpu(&mut want, &a, &b, m, n, w).unwrap();
            for (name, kernel) in kernels {
                let mut got = vec![f32::NAN; (m * n) as usize];
                kernel(&view, &mut got, &a, &b, m, n, w).unwrap();
                for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g, r, "{acc} {name} {m}x{w} * {w}x{n}: element {i}");
                }
            }
        }
    }
}

#[amp_test]
fn register_blocked_kernels_scalar_and_vector() {
    use amp_examples::matmul::{matmul_blocked_on, matmul_vec4_on};
    // matmul_optimized takes the vector kernel for all of these; each
    // kernel is also called directly.
    let cases: [(i32, i32, i32); 3] = [(128, 128, 8), (256, 128, 24), (128, 384, 16)];
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        for (c, &(m, n, w)) in cases.iter().enumerate() {
            let mut rng = Rng::new(1500 + 10 * k as u64 + c as u64);
            let a = exact_values(&mut rng, (m * w) as usize);
            let b = exact_values(&mut rng, (w * n) as usize);
            let mut want = vec![0.0f32; (m * n) as usize];
            matmul_cpu(&mut want, &a, &b, m, n, w).unwrap();
            for name in ["optimized", "vec4", "blocked 128"] {
                let mut got = vec![f32::NAN; (m * n) as usize];
                if name == "optimized" {
                    matmul_optimized(&view, &mut got, &a, &b, m, n, w).unwrap();
                } else {
                    let av = amp_core::ArrayView::new([m, w], &a).unwrap();
                    let bv = amp_core::ArrayView::new([w, n], &b).unwrap();
                    let cv = amp_core::ArrayView::new_mut([m, n], &mut got).unwrap();
                    cv.discard_data();
                    if name == "vec4" {
                        matmul_vec4_on(&view, &cv, &av, &bv).unwrap();
                    } else if w % 16 == 0 {
                        matmul_blocked_on(&view, &cv, &av, &bv, 128).unwrap();
                    } else {
                        let err = matmul_blocked_on(&view, &cv, &av, &bv, 128).unwrap_err();
                        assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
                        continue;
                    }
                    cv.synchronize().unwrap();
                }
                for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g, r, "{acc} {name} {m}x{w} * {w}x{n}: element {i}");
                }
            }
        }
    }
}

#[test]
fn the_vector_matmul_refuses_sizes_it_cannot_take() {
    use amp_examples::matmul::matmul_vec4_on;
    let view = Accelerator::cpu().default_view();
    // Sizes of c not multiples of 128, a shared size not a multiple of 8,
    // and a c that is not contiguous (a section of a wider matrix).
    for (m, n, w) in [(64, 128, 8), (128, 128, 12)] {
        let (a, b) = (
            vec![1.0f32; (m * w) as usize],
            vec![1.0f32; (w * n) as usize],
        );
        let mut c = vec![7.0f32; (m * n) as usize];
        {
            let av = amp_core::ArrayView::new([m, w], &a).unwrap();
            let bv = amp_core::ArrayView::new([w, n], &b).unwrap();
            let cv = amp_core::ArrayView::new_mut([m, n], &mut c).unwrap();
            let err = matmul_vec4_on(&view, &cv, &av, &bv).unwrap_err();
            assert!(
                matches!(err, Error::InvalidArgument(_)),
                "{m} {n} {w}: {err:?}"
            );
        }
        assert!(c.iter().all(|&x| x == 7.0), "a refused call wrote to c");
    }
    let (a, b) = (vec![1.0f32; 128 * 8], vec![1.0f32; 8 * 128]);
    let mut wide = vec![7.0f32; 128 * 256];
    {
        let av = amp_core::ArrayView::new([128, 8], &a).unwrap();
        let bv = amp_core::ArrayView::new([8, 128], &b).unwrap();
        let cv = amp_core::ArrayView::new_mut([128, 256], &mut wide).unwrap();
        let half = cv.section([0, 0], [128, 128]).unwrap();
        let err = matmul_vec4_on(&view, &half, &av, &bv).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    }
    assert!(wide.iter().all(|&x| x == 7.0), "a refused call wrote to c");
}

#[test]
fn matrix_multiplication_refuses_bad_shapes() {
    let view = Accelerator::cpu().default_view();
    let (a, b) = (vec![1.0f32; 6], vec![1.0f32; 6]);
    for kernel in [
        matmul_simple as Matmul,
        matmul_tiled,
        matmul_optimized,
        |_: &_, c: &mut [f32], a: &[f32], b: &[f32], m, n, w| matmul_cpu(c, a, b, m, n, w),
    ] {
        // a is 2x3, b is 3x2: c is 2x2. Wrong lengths and non-positive sizes.
        for (m, n, w, c_len) in [(2, 2, 3, 5), (3, 2, 2, 6), (0, 2, 3, 4), (2, -2, 3, 4)] {
            let mut c = vec![7.0f32; c_len];
            let err = kernel(&view, &mut c, &a, &b, m, n, w).unwrap_err();
            assert!(
                matches!(err, Error::InvalidArgument(_)),
                "{m} {n} {w}: {err:?}"
            );
            assert!(c.iter().all(|&x| x == 7.0), "a refused call wrote to c");
        }
        let mut c = vec![7.0f32; 4];
        kernel(&view, &mut c, &a, &b, 2, 2, 3).unwrap();
        assert_eq!(c, [3.0; 4]);
    }
}

type Convolution =
    fn(&amp_core::AcceleratorView, &mut [f32], &[f32], &[f32], i32, i32) -> amp_core::Result<()>;

#[amp_test]
fn separable_convolution_simple_tiled_and_optimized() {
    // (width, height, radius): single pixels, radius 0, lines shorter than a
    // tile, tiles that do not divide the image, the largest tiled radius,
    // the largest radius of the optimized passes (and one above it, which
    // falls back to the tiled passes), images taller than a column tile.
    let cases: [(i32, i32, i32); 8] = [
        (1, 1, 0),
        (1, 9, 2),
        (130, 7, 3),
        (300, 257, 8),
        (40, 33, 63),
        (129, 2, 1),
        (70, 150, 16),
        (33, 65, 17),
    ];
    let kernels: [(&str, Convolution); 3] = [
        ("simple", convolution_simple),
        ("tiling", convolution_tiling),
        ("optimized", convolution_optimized),
    ];
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        for (c, &(width, height, radius)) in cases.iter().enumerate() {
            let mut rng = Rng::new(2000 + 10 * k as u64 + c as u64);
            let img: Vec<f32> = (0..width * height)
                .map(|_| rng.range(0, 256) as f32 / 8.0)
                .collect();
            let filter: Vec<f32> = (0..2 * radius + 1)
                .map(|_| rng.range(-16, 17) as f32 / 16.0)
                .collect();
            let mut want = vec![0.0f32; img.len()];
            convolution_cpu(&mut want, &img, &filter, width, height).unwrap();
            for (name, kernel) in kernels {
                let mut got = vec![f32::NAN; img.len()];
                kernel(&view, &mut got, &img, &filter, width, height).unwrap();
                for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                    // The same sums in the same order; a GPU may fuse a
                    // multiply and an add.
                    assert!(
                        (g - r).abs() <= 1e-5 * r.abs().max(1.0),
                        "{acc} {name} {width}x{height} r{radius}: pixel {i}: {g} vs {r}"
                    );
                }
            }
        }
    }
}

#[amp_test]
fn convolution_keeps_its_intermediate_image_on_the_accelerator() {
    let (width, height, radius) = (200, 120, 4);
    for acc in accelerators() {
        for (name, kernel) in [
            ("simple", convolution_simple as Convolution),
            ("tiling", convolution_tiling),
        ] {
            let view = acc.create_view(QueuingMode::Automatic);
            let mut rng = Rng::new(3000);
            let img: Vec<f32> = (0..width * height)
                .map(|_| rng.range(0, 256) as f32)
                .collect();
            let filter = vec![1.0f32 / 9.0; 2 * radius + 1];
            let mut out = vec![f32::NAN; img.len()];
            let before = view.transfers();
            kernel(&view, &mut out, &img, &filter, width, height).unwrap();
            let t = view.transfers();
            let image_bytes = (width * height) as u64 * 4;
            // The image and the filter go up once; the output never does.
            assert_eq!(t.uploads - before.uploads, 2, "{acc} {name}");
            assert_eq!(
                t.bytes_uploaded - before.bytes_uploaded,
                image_bytes + filter.len() as u64 * 4,
                "{acc} {name}"
            );
            // Only the output comes back; the intermediate image never does.
            assert_eq!(t.downloads - before.downloads, 1, "{acc} {name}");
            assert_eq!(
                t.bytes_downloaded - before.bytes_downloaded,
                image_bytes,
                "{acc} {name}"
            );
            assert!(out.iter().all(|x| x.is_finite()), "{acc} {name}");
        }
    }
}

#[test]
fn convolution_refuses_bad_shapes() {
    let view = Accelerator::cpu().default_view();
    let img = vec![1.0f32; 12];
    let cpu: Convolution = |_, o, i, f, w, h| convolution_cpu(o, i, f, w, h);
    for kernel in [convolution_simple as Convolution, convolution_tiling, cpu] {
        let mut out = vec![5.0f32; 12];
        for (filter_len, width, height) in [(2, 4, 3), (3, 5, 3), (3, 0, 12), (3, 4, -3)] {
            let err =
                kernel(&view, &mut out, &img, &vec![1.0; filter_len], width, height).unwrap_err();
            assert!(
                matches!(err, Error::InvalidArgument(_)),
                "{filter_len} {width} {height}: {err:?}"
            );
        }
        assert_eq!(out, [5.0; 12], "a refused call wrote to the output");
    }
    // A radius that leaves no work item of a tile to filter.
    let mut out = vec![5.0f32; 12];
    let wide = vec![0.0f32; TILE_SIZE as usize + 1];
    let err = convolution_tiling(&view, &mut out, &img, &wide, 4, 3).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert_eq!(out, [5.0; 12]);
}

#[amp_test]
fn reduction_sums_like_the_cpu() {
    use amp_examples::reduction::{sum, sum_cpu};
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        // One element, fewer than a tile, not a multiple of anything, more
        // than one unrolled stride of the whole domain; whole vectors (read
        // as `Float4`s), below and above one unrolled stride.
        for (c, n) in [1usize, 200, 262_145, 1_048_576 + 77, 4096, 4_194_304 + 64]
            .into_iter()
            .enumerate()
        {
            let mut rng = Rng::new(4000 + 10 * k as u64 + c as u64);
            let data: Vec<f32> = (0..n)
                .map(|_| rng.range(-1000, 1000) as f32 / 64.0)
                .collect();
            let want = sum_cpu(&data);
            let scale: f32 = data.iter().map(|x| x.abs()).sum();
            let got = sum(&view, &data).unwrap();
            assert!(
                (got - want).abs() <= 1e-5 * scale.max(1.0),
                "{acc} n={n}: {got} vs {want}"
            );
        }
        let err = sum(&view, &[]).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    }
}

#[amp_test]
fn transpose_simple_and_tiled() {
    use amp_examples::transpose::{transpose_cpu, transpose_simple, transpose_tiled};
    type Transpose =
        fn(&amp_core::AcceleratorView, &mut [f32], &[f32], i32, i32) -> amp_core::Result<()>;
    let kernels: [(&str, Transpose); 2] =
        [("simple", transpose_simple), ("tiled", transpose_tiled)];
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        // The last three are whole 32 x 32 blocks: read and written as `Float4`s.
        for (c, (rows, cols)) in [
            (1, 1),
            (33, 65),
            (64, 64),
            (100, 7),
            (7, 129),
            (32, 96),
            (160, 64),
        ]
        .into_iter()
        .enumerate()
        {
            let mut rng = Rng::new(5000 + 10 * k as u64 + c as u64);
            let input: Vec<f32> = (0..rows * cols)
                .map(|_| rng.range(-1 << 20, 1 << 20) as f32)
                .collect();
            let mut want = vec![0.0f32; input.len()];
            transpose_cpu(&mut want, &input, rows, cols).unwrap();
            for (name, kernel) in kernels {
                let mut got = vec![f32::NAN; input.len()];
                kernel(&view, &mut got, &input, rows, cols).unwrap();
                assert_eq!(got, want, "{acc} {name} {rows}x{cols}");
            }
        }
        let mut out = vec![7.0f32; 5];
        let err = transpose_tiled(&view, &mut out, &[1.0; 6], 2, 3).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
        assert!(out.iter().all(|&x| x == 7.0));
    }
}

/// The multi-GPU matrix multiplication (C++ AMP's multi-GPU sample) with its
/// row bands over every combination of this machine's accelerators (one
/// alone, and two of different kinds, so that bands of one view live on
/// different devices and are gathered through the host), on random shapes
/// with band edges inside and outside the optimised kernel's blocks; every
/// element of the product checked (exact: small values).
#[test]
fn multi_gpu_matrix_multiplication_over_every_accelerator_set() {
    use amp_examples::multi_gpu::{Issue, ResidentB, matmul_multi, matmul_multi_issued};
    let accs = accelerators();
    let mut sets: Vec<Vec<amp_core::AcceleratorView>> = accs
        .iter()
        .map(|a| vec![a.create_view(QueuingMode::Automatic)])
        .collect();
    if accs.len() >= 2 {
        sets.push(
            accs.iter()
                .map(|a| a.create_view(QueuingMode::Immediate))
                .collect(),
        );
        sets.push(
            accs.iter()
                .rev()
                .map(|a| a.create_view(QueuingMode::Automatic))
                .collect(),
        );
    }
    let mut rng = Rng::new(0x3617);
    for (s, views) in sets.iter().enumerate() {
        for &(m, n, w) in &[(1, 1, 1), (130, 64, 48), (192, 128, 64), (67, 33, 17)] {
            let a = exact_values(&mut rng, (m * w) as usize);
            let b = exact_values(&mut rng, (w * n) as usize);
            let mut want = vec![0.0f32; (m * n) as usize];
            matmul_cpu(&mut want, &a, &b, m, n, w).unwrap();
            let mut got = vec![f32::NAN; (m * n) as usize];
            matmul_multi(views, &mut got, &a, &b, m, n, w).unwrap();
            assert_eq!(got, want, "set {s}, {m}x{n}x{w}");
            // Every way of issuing the bands; 3 pieces leave one empty.
            for issue in [
                Issue::OneThread,
                Issue::ThreadPerBand { pieces: 1 },
                Issue::ThreadPerBand { pieces: 3 },
            ] {
                let mut got = vec![f32::NAN; (m * n) as usize];
                matmul_multi_issued(views, &mut got, &a, &b, m, n, w, issue).unwrap();
                assert_eq!(got, want, "set {s}, {m}x{n}x{w}, {issue:?}");
            }
            // `b` kept on every accelerator across two products with other
            // left operands (and another row count).
            let resident = ResidentB::new(views, &b, w, n).unwrap();
            for rows in [m, m + 61] {
                let a2 = exact_values(&mut rng, (rows * w) as usize);
                let mut want2 = vec![0.0f32; (rows * n) as usize];
                matmul_cpu(&mut want2, &a2, &b, rows, n, w).unwrap();
                let mut got = vec![f32::NAN; (rows * n) as usize];
                resident.matmul(&mut got, &a2, rows).unwrap();
                assert_eq!(got, want2, "set {s}, resident b, {rows}x{n}x{w}");
            }
            assert!(matches!(
                resident.matmul(&mut [0.0; 3], &a, m),
                Err(Error::InvalidArgument(_))
            ));
        }
    }
    assert!(matches!(
        ResidentB::new(&[], &[0.0; 4], 2, 2),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        ResidentB::new(&sets[0], &[0.0; 4], 2, 3),
        Err(Error::InvalidArgument(_))
    ));
    let mut c = vec![0.0f32; 4];
    assert!(matches!(
        matmul_multi(&[], &mut c, &[0.0; 4], &[0.0; 4], 2, 2, 2),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        matmul_multi(&sets[0], &mut c, &[0.0; 3], &[0.0; 4], 2, 2, 2),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        matmul_multi_issued(
            &sets[0],
            &mut c,
            &[0.0; 3],
            &[0.0; 4],
            2,
            2,
            2,
            Issue::OneThread
        ),
        Err(Error::InvalidArgument(_))
    ));
}

/// The `multi_gpu_mxm` example runs with small sizes and ends with its `ok`
/// line, on every accelerator together.
#[test]
fn multi_gpu_mxm_example_runs() {
    let exe = std::env::current_exe().unwrap();
    let example = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("examples")
        .join("multi_gpu_mxm");
    let out = std::process::Command::new(&example)
        .args(["--size", "96", "--runs", "1", "--accelerators", "all"])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (`cargo test -p amp-examples` builds the examples; `--test samples` alone does not)",
                example.display()
            )
        });
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.lines().last(), Some("multi_gpu_mxm: ok"), "{stdout}");
    assert!(stdout.contains("speedup of"), "{stdout}");
    // Every issue mode is timed, and the phases.
    for mode in [
        "one-thread",
        "threads",
        "pieces (4)",
        "phases of one product",
    ] {
        assert!(stdout.contains(mode), "{mode}: {stdout}");
    }
}
