//! Reliability: limits that must be refused or handled, never crash the
//! process or silently give another answer (the adversarial-testing issue,
//! defects D4, D5, D6, D7 and D9).

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_core::{Error, kernel};
use amp_tests::Rng;
use amp_tests::amp_test;

/// Sentinel for `f32` outputs.
const POISON_F32: f32 = -7.25e30;

/// Loops of more than 65,535 iterations run to the end on every
/// accelerator (Mesa's lavapipe cuts every loop there unless the writer
/// works around it), in `while`, `loop` and `for` form, nested too.
#[amp_test]
fn long_loops_run_to_the_end() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        if is_llvmpipe(view.accelerator()) {
            // Refused there: see `llvmpipe_loop_limit_loses_the_device`.
            continue;
        }
        let mut rng = Rng::new(9100 + k as u64);
        let n = 8;
        let counts: Vec<i32> = (0..n).map(|_| rng.range(65_000, 200_000)).collect();
        let mut out = vec![POISON_I32; n * 3];
        {
            let c = ArrayView::new([n as i32], &counts).unwrap();
            let o = ArrayView::new_mut([n as i32, 3], &mut out).unwrap();
            o.discard_data();
            parallel_for_each!(view, c.extent(), |idx: Index<1>| {
                let m = c[idx];
                let i = idx[0];
                let mut a = 0;
                while a < m {
                    a += 1;
                }
                let mut b = 0;
                loop {
                    if b == m {
                        break;
                    }
                    b += 1;
                }
                let mut s = 0;
                for j in 0..m {
                    s += j & 1;
                }
                o[[i, 0]] = a;
                o[[i, 1]] = b;
                o[[i, 2]] = s;
            })
            .unwrap();
        }
        let want: Vec<i32> = counts.iter().flat_map(|&m| [m, m, m / 2]).collect();
        assert_same(&out, &want, &what);
    }
}

/// Whether `acc` is Mesa's llvmpipe (lavapipe), which cuts loops.
fn is_llvmpipe(acc: &Accelerator) -> bool {
    acc.description().to_lowercase().contains("llvmpipe")
}

/// llvmpipe is never the default while the CPU accelerator (which runs
/// Rust's semantics) exists: it stops every work item's loops after 65,535
/// iterations in all (D9). It stays available by name.
#[test]
fn llvmpipe_ranks_below_the_cpu_accelerator() {
    let all = Accelerator::all();
    let cpu = all.iter().position(|a| a.is_cpu()).unwrap();
    for (i, a) in all.iter().enumerate() {
        if is_llvmpipe(a) {
            assert!(i > cpu, "{a} ranks above the CPU accelerator: {all:?}");
        }
    }
    assert!(!is_llvmpipe(&Accelerator::default().unwrap()));
}

/// A local array too large for any accelerator is refused at launch, on
/// every accelerator, with a clear error and no data touched (it aborted
/// the process on the CPU accelerator: a work item's stack overflowed).
#[amp_test]
fn huge_local_arrays_are_refused_everywhere() {
    for (view, what) in all_views() {
        let mut out = vec![POISON_F32; 64];
        let result = {
            let o = ArrayView::new_mut([64], &mut out).unwrap();
            let r = parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                let mut big = [0.0f32; 1 << 20];
                let i = idx[0] * 1000;
                big[i as usize] = 1.5;
                o[idx] = big[i as usize] + big[idx[0] as usize];
            });
            r.and_then(|()| o.synchronize())
        };
        match result {
            Err(Error::UnsupportedFeature { feature, .. }) => {
                assert!(
                    feature.contains("at most 262144 bytes"),
                    "{what}: {feature}"
                )
            }
            other => panic!("{what}: {other:?}"),
        }
        assert!(
            out.iter().all(|&x| x.to_bits() == POISON_F32.to_bits()),
            "{what}"
        );
    }
}

/// A local array just below the limit runs on the CPU accelerator, whose
/// work-item stacks are sized for it (a 200 KiB array overflowed the 512 KiB
/// stack of a tiled work item in unoptimised builds), tiled or not. GPUs run
/// a smaller one (LLVM takes minutes over a 200 KiB private array on
/// lavapipe).
#[amp_test]
fn large_local_arrays_below_the_limit_run() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9200 + k as u64);
        let n = 64;
        let seeds = f32s(&mut rng, n, -1.0, 1.0);
        let mut out = vec![POISON_F32; n];
        let mut tiled = vec![POISON_F32; n];
        let cpu = view.accelerator().is_cpu();
        // Elements of the array, as the kernels spell them.
        let len = if cpu { 51_200 } else { 1024 };
        {
            let s = ArrayView::new([n as i32], &seeds).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            let t = ArrayView::new_mut([n as i32], &mut tiled).unwrap();
            o.discard_data();
            t.discard_data();
            if cpu {
                parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                    let mut big = [0.0f32; 51_200];
                    let x = s[idx];
                    for j in 0..51_200 {
                        big[j as usize] = x * (j % 7) as f32;
                    }
                    o[idx] = big[51_199] + big[(idx[0] * 100) as usize];
                })
                .unwrap();
                parallel_for_each!(view, t.extent().tile::<16>().unwrap(), |ti: TiledIndex<
                    1,
                >| {
                    let mut big = [0.0f32; 51_200];
                    big[(ti.local[0] * 1000) as usize] = s[ti.global];
                    ti.barrier.wait();
                    t[ti.global] = big[(ti.local[0] * 1000) as usize] * 2.0 + big[51_199];
                })
                .unwrap();
            } else {
                parallel_for_each!(view, o.extent(), |idx: Index<1>| {
                    let mut big = [0.0f32; 1024];
                    let x = s[idx];
                    for j in 0..1024 {
                        big[j as usize] = x * (j % 7) as f32;
                    }
                    o[idx] = big[1023] + big[(idx[0] * 10) as usize];
                })
                .unwrap();
                parallel_for_each!(view, t.extent().tile::<16>().unwrap(), |ti: TiledIndex<
                    1,
                >| {
                    let mut big = [0.0f32; 1024];
                    big[(ti.local[0] * 60) as usize] = s[ti.global];
                    ti.barrier.wait();
                    t[ti.global] = big[(ti.local[0] * 60) as usize] * 2.0 + big[1023];
                })
                .unwrap();
            }
        }
        let stride = if cpu { 100 } else { 10 };
        let want: Vec<f32> = (0..n)
            .map(|i| seeds[i] * ((len - 1) % 7) as f32 + seeds[i] * ((i * stride) % 7) as f32)
            .collect();
        assert_close32(&out, &want, F32_BASIC, 1e-6, &what);
        let want: Vec<f32> = seeds.iter().map(|x| x * 2.0).collect();
        assert_close32(&tiled, &want, F32_BASIC, 0.0, &what);
    }
}

#[kernel]
fn ping(n: i32) -> i32 {
    if n <= 0 { 0 } else { pong(n - 1) + 1 }
}

#[kernel]
fn pong(n: i32) -> i32 {
    if n <= 0 { 0 } else { ping(n - 1) + 2 }
}

/// Mutual recursion is refused on every accelerator at launch (GPUs have
/// no call stack; the CPU accelerator ran it, and deep recursion aborted the
/// process), and the data is untouched; the functions still run on the
/// host. (A function that calls itself directly does not compile:
/// `tests/ui/kernel_firsthour_recursion.rs`.)
#[amp_test]
fn recursion_is_refused_everywhere() {
    assert_eq!(ping(3), 4);
    for (view, what) in all_views() {
        let depth = vec![1_000_000i32; 16];
        let mut out2 = vec![POISON_I32; 16];
        {
            let d = ArrayView::new([16], &depth).unwrap();
            let o2 = ArrayView::new_mut([16], &mut out2).unwrap();
            let err = parallel_for_each!(view, o2.extent(), |idx: Index<1>| {
                o2[idx] = ping(d[idx]);
            })
            .unwrap_err();
            assert!(
                matches!(&err, Error::KernelCompile { message, .. } if message.contains("calls itself")),
                "{what}: {err:?}"
            );
        }
        assert_same(&out2, &[POISON_I32; 16], &what);
    }
}

/// `tile_static` arrays beyond the accelerator's `max_tile_static_bytes`
/// are refused before anything runs (on GPUs nothing checked them: 1 GiB
/// crashed lavapipe), and the data is untouched.
#[amp_test]
fn tile_static_beyond_the_limit_is_refused() {
    for (view, what) in all_views() {
        let limit = view.accelerator().limits().max_tile_static_bytes;
        let mut out = vec![POISON_I32; 64];
        {
            let o = ArrayView::new_mut([64], &mut out).unwrap();
            let err =
                parallel_for_each!(view, o.extent().tile::<64>().unwrap(), |t: TiledIndex<
                    1,
                >| {
                    tile_static! { let s: [i32; 1 << 20]; }
                    s[(t.local[0] * 1000) as usize] = t.global[0];
                    t.barrier.wait();
                    o[t.global] = s[(t.local[0] * 1000) as usize];
                })
                .unwrap_err();
            match err {
                Error::UnsupportedFeature { feature, .. } => assert!(
                    feature.contains("4194304 bytes") && feature.contains(&limit.to_string()),
                    "{what}: {feature}"
                ),
                other => panic!("{what}: {other:?}"),
            }
            // At the limit, it runs.
            o.discard_data();
            parallel_for_each!(view, o.extent().tile::<64>().unwrap(), |t: TiledIndex<
                1,
            >| {
                tile_static! { let s: [i32; 4096]; }
                s[(t.local[0] * 64) as usize] = t.global[0] * 3;
                t.barrier.wait();
                o[t.global] = s[((63 - t.local[0]) * 64) as usize];
            })
            .unwrap();
        }
        let want: Vec<i32> = (0..64).map(|i| (63 - i) * 3).collect();
        assert_same(&out, &want, &what);
    }
}

/// Whether `acc`'s device memory is host memory (the CPU accelerator,
/// software adapters), where the memory-pressure tests expect small
/// transfers to keep working under the cap.
fn host_memory_device(acc: &Accelerator) -> bool {
    acc.is_emulated()
}

/// The variable that marks a child process of the memory-pressure test.
const PRESSURE_CHILD: &str = "AMP_TEST_PRESSURE_CHILD";

/// Caps this process's address space at its current size plus `extra`
/// bytes (the soft limit, with `prlimit` from util-linux, so that it can be
/// raised again).
fn cap_address_space(extra: u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let vm_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    let cap = vm_kib * 1024 + extra;
    let ok = std::process::Command::new("prlimit")
        .args([
            "--pid",
            &std::process::id().to_string(),
            &format!("--as={cap}:"),
        ])
        .status()
        .unwrap()
        .success();
    assert!(ok, "prlimit failed");
}

/// Runs the ignored test `name` of this binary in a child process with
/// the variable `marker` set (so that the child's body runs) and returns
/// its output; fails unless the child passed.
fn run_child(name: &str, marker: &str) -> String {
    // The test's full name in this binary: its module path without the
    // crate's name.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let name = format!("{module}::{name}");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(marker, "1")
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("1 passed"),
        "the child aborted or failed ({:?}):\n{text}",
        out.status
    );
    text
}

/// Under memory pressure (D6), copying a large array to the host is an
/// `OutOfMemory` error, not an abort, and the data stays readable; a
/// download into existing host memory needs no full-size staging copy.
#[test]
fn large_copies_under_memory_pressure() {
    if !std::path::Path::new("/usr/bin/prlimit").exists()
        && !std::path::Path::new("/bin/prlimit").exists()
    {
        // Where the tests must be complete (CI sets the variable), a
        // missing tool is a failure, not a pass.
        assert!(
            !amp_tests::adapter_required(),
            "prlimit (util-linux) is not installed: this test cannot run, and {} is set",
            amp_tests::REQUIRE_ADAPTER_VAR
        );
        eprintln!(
            "prlimit is not installed: skipped (set {} to fail instead)",
            amp_tests::REQUIRE_ADAPTER_VAR
        );
        return;
    }
    run_child("pressure_child_to_vec", PRESSURE_CHILD);
    run_child("pressure_child_synchronize", PRESSURE_CHILD);
}

/// 96 MiB arrays on every accelerator; with 120 MiB of address space
/// left, `to_vec` cannot hold a second copy: an error, and single elements
/// can still be read.
#[test]
#[ignore = "run by large_copies_under_memory_pressure in a child process"]
fn pressure_child_to_vec() {
    if std::env::var_os(PRESSURE_CHILD).is_none() {
        return;
    }
    const N: i32 = 24 << 20; // 96 MiB of u32 (lavapipe binds at most 128 MiB)
    for acc in amp_tests::accelerators() {
        let view = acc.default_view();
        let a = Array::<u32, 1>::new([N], &view).unwrap();
        parallel_for_each!(view, a.extent(), |idx: Index<1>| {
            a[idx] = (idx[0] as u32) * 2_654_435_761;
        })
        .unwrap();
        view.wait().unwrap();
        cap_address_space(120 << 20);
        let err = a.to_vec().unwrap_err();
        assert!(matches!(err, Error::OutOfMemory { .. }), "{acc}: {err:?}");
        // Single elements can still be read where device memory is host
        // memory; a hardware driver reserves address space for every
        // mapping and may refuse even a small one under the cap: then a
        // clear error too, never an abort.
        match a.view().get([N - 1]) {
            Ok(last) => assert_eq!(last, ((N - 1) as u32).wrapping_mul(2_654_435_761), "{acc}"),
            Err(e) => assert!(
                !host_memory_device(&acc) && matches!(e, Error::OutOfMemory { .. }),
                "{acc}: {e:?}"
            ),
        }
        drop(a);
        cap_address_space(u64::MAX >> 2);
    }
}

/// A kernel writes a 96 MiB host vector on every accelerator; with 72 MiB
/// of address space left, `synchronize` still brings it back (downloads go
/// through bounded buffers, not a full-size staging copy).
#[test]
#[ignore = "run by large_copies_under_memory_pressure in a child process"]
fn pressure_child_synchronize() {
    if std::env::var_os(PRESSURE_CHILD).is_none() {
        return;
    }
    const N: i32 = 24 << 20; // 96 MiB of u32
    let mut host = vec![0u32; N as usize];
    for acc in amp_tests::accelerators() {
        let view = acc.default_view();
        let v = ArrayView::new_mut([N], &mut host).unwrap();
        v.discard_data();
        parallel_for_each!(view, v.extent(), |idx: Index<1>| {
            v[idx] = (idx[0] as u32) ^ 0x5a5a_5a5a;
        })
        .unwrap();
        view.wait().unwrap();
        cap_address_space(72 << 20);
        let synced = v.synchronize();
        cap_address_space(u64::MAX >> 2);
        match synced {
            Ok(()) => {}
            // As above: a hardware driver may refuse a mapping under the
            // cap; the error is clear and the data is still on the device.
            Err(e) if !host_memory_device(&acc) => {
                assert!(matches!(e, Error::OutOfMemory { .. }), "{acc}: {e:?}");
                v.synchronize().unwrap();
            }
            Err(e) => panic!("{acc}: {e:?}"),
        }
        drop(v);
        assert!(
            host.iter()
                .enumerate()
                .all(|(i, &x)| x == (i as u32) ^ 0x5a5a_5a5a),
            "{acc}"
        );
        host.iter_mut().for_each(|x| *x = 0);
    }
}

/// The variable that marks the child process of the llvmpipe loop test.
const LOOP_CHILD: &str = "AMP_TEST_LOOP_CHILD";

/// On llvmpipe, which silently ends every loop of a work item after 65,535
/// iterations in all (D9), a kernel that comes near that count loses the
/// device (as a GPU watchdog would) instead of handing back results that
/// are not Rust's; kernels below it run as everywhere else. In a child
/// process: the device stays lost.
#[test]
fn llvmpipe_loop_limit_loses_the_device() {
    if !Accelerator::all().iter().any(is_llvmpipe) {
        return;
    }
    run_child("llvmpipe_loop_child", LOOP_CHILD);
}

#[test]
#[ignore = "run by llvmpipe_loop_limit_loses_the_device in a child process"]
fn llvmpipe_loop_child() {
    if std::env::var_os(LOOP_CHILD).is_none() {
        return;
    }
    let acc = Accelerator::all().into_iter().find(is_llvmpipe).unwrap();
    let view = acc.create_view(QueuingMode::Automatic);
    let run = |counts: &[i32], out: &mut [i32]| -> Result<(), Error> {
        let c = ArrayView::new([counts.len() as i32], counts)?;
        let o = ArrayView::new_mut([counts.len() as i32], out)?;
        parallel_for_each!(view, c.extent(), |idx: Index<1>| {
            let mut a = 0;
            for i in 0..c[idx] {
                a += i % 3;
            }
            o[idx] = a;
        })?;
        o.synchronize()
    };
    // Below the guard's count: exact results.
    let counts = [10, 1000, 30_000, 63_000];
    let mut out = [POISON_I32; 4];
    run(&counts, &mut out).unwrap();
    let want: Vec<i32> = counts
        .iter()
        .map(|&m| (0..m).map(|i| i % 3).sum())
        .collect();
    assert_same(&out, &want, "below the limit");
    // Above: the device is lost, the host data untouched.
    let counts = [10, 100_000, 20, 30];
    let mut out = [POISON_I32; 4];
    let err = run(&counts, &mut out).unwrap_err();
    match err {
        Error::AcceleratorViewRemoved { reason } => {
            assert!(reason.contains("65,535"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    assert_same(&out, &[POISON_I32; 4], "above the limit");
    assert!(matches!(
        view.wait(),
        Err(Error::AcceleratorViewRemoved { .. })
    ));
}

/// Barriers in the right operand of `&&`/`||` and in a `while` condition
/// are accepted when what decides whether they run is the same for every
/// thread of the tile (D7 refuses the other cases at compile time:
/// `tests/ui/kernel_barrier_divergent_{and,or,while_condition}.rs`), and
/// run on every accelerator.
#[amp_test]
// Runs in the CPU accelerator's threaded form (the macro's warning says why).
#[allow(deprecated)]
fn uniform_barriers_in_conditions_run() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(9300 + k as u64);
        let n = 256;
        let input = i32s(&mut rng, n, -100, 100);
        let rounds = rng.range(1, 6);
        let mut out = vec![POISON_I32; n];
        {
            let a = ArrayView::new([n as i32], &input).unwrap();
            let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
            o.discard_data();
            parallel_for_each!(view, o.extent().tile::<64>().unwrap(), |t: TiledIndex<
                1,
            >| {
                tile_static! { let s: [i32; 64]; }
                let l = t.local[0];
                s[l as usize] = a[t.global];
                let mut r = 0;
                // Uniform: `r` and `rounds` are the same in every thread.
                while r < rounds && {
                    t.barrier.wait_with_tile_static_memory_fence();
                    true
                } {
                    let next = s[((l + 1) % 64) as usize];
                    t.barrier.wait_with_tile_static_memory_fence();
                    s[l as usize] = next;
                    r += 1;
                }
                let tile_one = t.tile[0] >= 0;
                let ok = tile_one || {
                    t.barrier.wait();
                    false
                };
                t.barrier.wait_with_tile_static_memory_fence();
                o[t.global] = if ok { s[l as usize] } else { -1 };
            })
            .unwrap();
        }
        let want: Vec<i32> = (0..n)
            .map(|i| {
                let tile = i / 64 * 64;
                input[tile + (i % 64 + rounds as usize) % 64]
            })
            .collect();
        assert_same(&out, &want, &what);
    }
}

/// The variable that marks the child process of the dropped-view test.
const DROP_CHILD: &str = "AMP_TEST_DROP_CHILD";

/// A kernel error that reaches a view's `Drop` (the README's pattern:
/// views in a block, results back as they drop) is not lost: the host data
/// keeps its old contents, the view that ran the kernel reports the error
/// at its next `wait`, and the program hears of it on standard error with
/// no logger installed (it was discarded, and the program exited 0 with
/// stale output). On the CPU accelerator (an out-of-bounds index) and on
/// llvmpipe (its loop limit, which loses the device: in a child process).
#[test]
fn kernel_errors_reaching_a_views_drop_are_reported() {
    let text = run_child("drop_error_child", DROP_CHILD);
    let words = "amp-rs: error: a writable ArrayView dropped without its results";
    let want = if Accelerator::all().iter().any(is_llvmpipe) {
        2
    } else {
        1
    };
    assert_eq!(text.matches(words).count(), want, "{text}");
    assert!(text.contains("call `synchronize()?`"), "{text}");
}

#[test]
#[ignore = "run by kernel_errors_reaching_a_views_drop_are_reported in a child process"]
fn drop_error_child() {
    if std::env::var_os(DROP_CHILD).is_none() {
        return;
    }
    // The CPU accelerator: an index one past the end.
    let view = Accelerator::cpu().create_view(QueuingMode::Automatic);
    let input: Vec<i32> = (0..64).collect();
    let mut out = vec![POISON_I32; 64];
    {
        let a = ArrayView::new([64], &input).unwrap();
        let o = ArrayView::new_mut([64], &mut out).unwrap();
        parallel_for_each!(view, o.extent(), |idx: Index<1>| {
            o[idx] = a[[idx[0] + 1]];
        })
        .unwrap();
    }
    assert_same(
        &out,
        &[POISON_I32; 64],
        "CPU: the host data keeps its contents",
    );
    let err = view.wait().unwrap_err();
    assert!(err.to_string().contains("out of bounds"), "{err}");
    // llvmpipe: a loop past its limit loses the device.
    if let Some(acc) = Accelerator::all().into_iter().find(is_llvmpipe) {
        let view = acc.create_view(QueuingMode::Automatic);
        let counts = [10, 100_000, 20, 30];
        let mut out = [POISON_I32; 4];
        {
            let c = ArrayView::new([4], &counts[..]).unwrap();
            let o = ArrayView::new_mut([4], &mut out[..]).unwrap();
            parallel_for_each!(view, c.extent(), |idx: Index<1>| {
                let mut a = 0;
                for i in 0..c[idx] {
                    a += i % 3;
                }
                o[idx] = a;
            })
            .unwrap();
        }
        assert_same(
            &out,
            &[POISON_I32; 4],
            "llvmpipe: the host data keeps its contents",
        );
        assert!(matches!(
            view.wait(),
            Err(Error::AcceleratorViewRemoved { .. })
        ));
    }
}

/// The variable that marks the child process of the staging test.
const STAGING_CHILD: &str = "AMP_TEST_STAGING_CHILD";

/// A staging download after a kernel that neared llvmpipe's loop limit is
/// refused (its map wait skipped the loop guard and handed back results
/// of cut loops), and the staging array keeps its own data: it was marked
/// valid with the GPU's bytes before the copy was even recorded, so after
/// a failure it claimed data it never received. In a child process: the
/// device stays lost.
#[test]
fn staging_downloads_after_a_lost_device_change_nothing() {
    if !Accelerator::all().iter().any(is_llvmpipe) {
        return;
    }
    run_child("staging_child", STAGING_CHILD);
}

#[test]
#[ignore = "run by staging_downloads_after_a_lost_device_change_nothing in a child process"]
fn staging_child() {
    if std::env::var_os(STAGING_CHILD).is_none() {
        return;
    }
    use amp_core::{Array, copy};
    let acc = Accelerator::all().into_iter().find(is_llvmpipe).unwrap();
    let view = acc.create_view(QueuingMode::Automatic);
    let counts = [10i32, 100_000, 20, 30];
    let on_gpu = Array::from_slice([4], &counts, &view).unwrap();
    let mut staging = Array::<i32, 1>::new_staging([4], &view).unwrap();
    for i in 0..4 {
        staging.set([i], POISON_I32).unwrap();
    }
    parallel_for_each!(view, on_gpu.extent(), |idx: Index<1>| {
        let mut a = 0;
        for i in 0..on_gpu[idx] {
            a += i % 3;
        }
        on_gpu[idx] = a;
    })
    .unwrap();
    let err = copy(&on_gpu, &mut staging).unwrap_err();
    assert!(
        matches!(err, Error::AcceleratorViewRemoved { .. }),
        "{err:?}"
    );
    assert_same(
        &staging.to_vec().unwrap(),
        &[POISON_I32; 4],
        "the staging array keeps its data",
    );
}
