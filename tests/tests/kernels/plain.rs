//! Plain memory on the CPU accelerator (issue 22): kernels whose captures
//! are only read, or read and written only at the work item's own index,
//! run with plain loads and stores; everything else (racy kernels, views
//! sharing memory with a written one) keeps the atomic path. Each case
//! compares with plain Rust on random inputs, on every accelerator.

use amp_core::prelude::*;
use amp_tests::{Rng, amp_test};

use crate::kernel_support::default_views;

/// Random `f32`s in `[-8, 8)`.
fn floats(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| rng.range(-8000, 8000) as f32 / 1000.0)
        .collect()
}

fn plain_launches() -> u64 {
    amp_core::__private::kernel::plain_launches()
}

#[amp_test]
fn saxpy_runs_plainly_on_the_cpu_and_matches_everywhere() {
    let mut rng = Rng::new(22_01);
    // Enough work items for the pool (several chunks).
    let n = 100_003;
    let (x, y0) = (floats(&mut rng, n), floats(&mut rng, n));
    let a = rng.range(-4, 4) as f32 * 0.75;
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| a * x + y).collect();
    for (view, label) in default_views() {
        let before = plain_launches();
        let xs = Array::from_slice([n as i32], &x, &view).unwrap();
        let ys = Array::from_slice([n as i32], &y0, &view).unwrap();
        let (xv, yv) = (xs.view(), ys.view());
        parallel_for_each!(view, yv.extent(), |i: Index<1>| {
            yv[i] = a * xv[i] + yv[i];
        })
        .unwrap();
        let got = ys.to_vec().unwrap();
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                "{label} {k}: {g} != {w}"
            );
        }
        if view.accelerator().is_cpu() {
            assert!(
                plain_launches() > before,
                "{label}: saxpy did not run plainly"
            );
        }
    }
}

/// Own-index writes through a section (strided rows inside a larger
/// array) change only the section's elements.
#[amp_test]
fn own_writes_through_a_section_leave_the_rest_alone() {
    let mut rng = Rng::new(22_02);
    let (rows, cols) = (97, 131);
    let src = floats(&mut rng, rows * cols);
    const POISON: f32 = -12345.5;
    for (view, label) in default_views() {
        let before = plain_launches();
        let mut out = vec![POISON; rows * cols];
        {
            let s = ArrayView::new([rows as i32, cols as i32], &src).unwrap();
            let o = ArrayView::new_mut([rows as i32, cols as i32], &mut out).unwrap();
            let inner = o
                .section([3, 5], [rows as i32 - 7, cols as i32 - 9])
                .unwrap();
            let from = s
                .section([3, 5], [rows as i32 - 7, cols as i32 - 9])
                .unwrap();
            parallel_for_each!(view, inner.extent(), |idx: Index<2>| {
                inner[idx] = from[idx] * 2.0 + idx[1] as f32;
            })
            .unwrap();
            o.synchronize().unwrap();
        }
        for r in 0..rows {
            for c in 0..cols {
                let inside = (3..rows - 4).contains(&r) && (5..cols - 4).contains(&c);
                let want = if inside {
                    src[r * cols + c] * 2.0 + (c - 5) as f32
                } else {
                    POISON
                };
                assert_eq!(out[r * cols + c], want, "{label} [{r}, {c}]");
            }
        }
        if view.accelerator().is_cpu() {
            assert!(
                plain_launches() > before,
                "{label}: the section did not run plainly"
            );
        }
    }
}

/// Every work item writes one element: a race, on the atomic path; the
/// element ends with one of the values written.
#[amp_test]
fn a_racy_write_keeps_the_atomic_path_and_one_written_value() {
    let mut rng = Rng::new(22_03);
    let n = 50_000;
    let x = floats(&mut rng, n);
    for (view, label) in default_views() {
        let xs = Array::from_slice([n as i32], &x, &view).unwrap();
        let one = Array::<f32, 1>::new([1], &view).unwrap();
        let (xv, ov) = (xs.view(), one.view());
        parallel_for_each!(view, xv.extent(), |i: Index<1>| {
            ov[0] = xv[i];
        })
        .unwrap();
        let got = one.to_vec().unwrap()[0];
        assert!(x.contains(&got), "{label}: {got} was not written");
    }
}

/// A view read at its neighbours while another view of the same array is
/// written: the plan refuses plain memory (one memory, a plain writer and
/// a reader); the answer is what disjoint halves give.
#[amp_test]
fn views_sharing_memory_with_a_written_view_stay_atomic() {
    let mut rng = Rng::new(22_04);
    let n = 40_000;
    let data = floats(&mut rng, 2 * n);
    for (view, label) in default_views() {
        let arr = Array::from_slice([2 * n as i32], &data, &view).unwrap();
        let whole = arr.view();
        let low = whole.section([0], [n as i32]).unwrap();
        let high = whole.section([n as i32], [n as i32]).unwrap();
        let m = n as i32;
        parallel_for_each!(view, high.extent(), |i: Index<1>| {
            let j = (i[0] + 1) % m;
            high[i] = low[j] - low[i];
        })
        .unwrap();
        let got = arr.to_vec().unwrap();
        for k in 0..n {
            assert_eq!(got[k], data[k], "{label}: low half changed at {k}");
            let want = data[(k + 1) % n] - data[k];
            assert_eq!(got[n + k], want, "{label}: {k}");
        }
    }
}

/// An out-of-bounds read in a plain launch fails the launch, and the data
/// it wrote is put back.
#[amp_test]
fn an_out_of_bounds_plain_read_fails_and_changes_nothing() {
    let mut rng = Rng::new(22_05);
    let n = 30_000;
    let (x, y0) = (floats(&mut rng, n), floats(&mut rng, n));
    for (view, label) in default_views() {
        if !view.accelerator().is_cpu() {
            // GPUs clamp or drop out-of-bounds accesses (C++ AMP leaves
            // them undefined); the CPU accelerator reports them.
            continue;
        }
        let xs = Array::from_slice([n as i32], &x, &view).unwrap();
        let ys = Array::from_slice([n as i32], &y0, &view).unwrap();
        let (xv, yv) = (xs.view(), ys.view());
        let err = parallel_for_each!(view, yv.extent(), |i: Index<1>| {
            yv[i] = xv[i[0] + 1];
        })
        .and_then(|_| ys.to_vec())
        .expect_err("the out-of-bounds read was not reported");
        assert!(err.to_string().contains("out of bounds"), "{label}: {err}");
        // Reported once: the data reads as it was.
        assert_eq!(
            ys.to_vec().unwrap(),
            y0,
            "{label}: a failed kernel changed data"
        );
    }
}

/// Host threads reading an array while plain launches write it: no
/// deadlock, and the last result is the reference.
#[amp_test]
fn host_reads_beside_plain_launches() {
    let mut rng = Rng::new(22_06);
    let n = 60_000;
    let x = floats(&mut rng, n);
    for (view, label) in default_views() {
        let xs = Array::from_slice([n as i32], &x, &view).unwrap();
        let ys = Array::<f32, 1>::new([n as i32], &view).unwrap();
        std::thread::scope(|s| {
            let reader = s.spawn(|| {
                for _ in 0..20 {
                    let v = xs.to_vec().unwrap();
                    assert_eq!(v.len(), n);
                }
            });
            for round in 0..20 {
                let (xv, yv) = (xs.view(), ys.view());
                let k = round as f32;
                parallel_for_each!(view, yv.extent(), |i: Index<1>| {
                    yv[i] = xv[i] + k;
                })
                .unwrap();
            }
            reader.join().unwrap();
        });
        let got = ys.to_vec().unwrap();
        for (i, (g, x)) in got.iter().zip(&x).enumerate() {
            assert_eq!(*g, x + 19.0, "{label} {i}");
        }
    }
}
