//! `synchronize_async` downloads while the host goes on: the bytes reach the
//! host data at the next access through a view (or the drop of the last
//! one), and anything written after the call (a kernel on the device, a host
//! `set`) wins over the older bytes in flight.

use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

#[amp_test]
fn later_writes_win_over_downloads_in_flight() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for mode in [QueuingMode::Automatic, QueuingMode::Immediate] {
            let view = acc.create_view(mode);
            let mut rng = Rng::new(300 + k as u64);
            let n = 5000usize;
            let input: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
            let mut data = input.clone();
            {
                let v = ArrayView::new_mut([n as i32], &mut data).unwrap();
                parallel_for_each!(view, v.extent(), |idx: Index<1>| {
                    v[idx] = v[idx] * 3;
                })
                .unwrap();
                let done = v.synchronize_async().unwrap();
                // A second kernel rewrites the first half after the call.
                let half = v.section([0], [n as i32 / 2]).unwrap();
                parallel_for_each!(view, half.extent(), |idx: Index<1>| {
                    half[idx] = half[idx] + 1;
                })
                .unwrap();
                // And the host writes one element of the second half.
                v.set([n as i32 - 1], 424242).unwrap();
                futures::executor::block_on(done).unwrap();
                assert_eq!(v.get([0]).unwrap(), input[0] * 3 + 1, "{acc} {mode}");
            }
            for i in 0..n {
                let want = if i == n - 1 {
                    424242
                } else if i < n / 2 {
                    input[i] * 3 + 1
                } else {
                    input[i] * 3
                };
                assert_eq!(data[i], want, "{acc} {mode} element {i}");
            }
        }
    }
}

#[amp_test]
fn dropping_the_view_finishes_the_download() {
    for acc in accelerators() {
        let view = acc.default_view();
        let mut data = vec![1u32; 777];
        {
            let v = ArrayView::new_mut([777], &mut data).unwrap();
            parallel_for_each!(view, v.extent(), |idx: Index<1>| {
                v[idx] = idx[0] as u32 + 5;
            })
            .unwrap();
            let done = v.synchronize_async().unwrap();
            done.wait().unwrap();
            let before = view.transfers().downloads;
            drop(v);
            assert_eq!(
                view.transfers().downloads,
                before,
                "{acc}: no second download"
            );
        }
        for (i, x) in data.iter().enumerate() {
            assert_eq!(*x, i as u32 + 5, "{acc} {i}");
        }
    }
}
