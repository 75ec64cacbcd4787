//! Kernel timing (`set_kernel_timing`, `kernel_timings`): GPU timestamps
//! around each timed launch's pass, the host clock on the CPU accelerator.

use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

#[amp_test]
fn timed_launches_report_their_site_and_duration_in_order() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        view.set_kernel_timing(true).unwrap();
        let mut rng = Rng::new(900 + k as u64);
        let n = 1 << 14;
        let xs: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut light = vec![i32::MIN; 64];
        let mut heavy = vec![i32::MIN; n];
        let light_line;
        let heavy_line;
        {
            let x = ArrayView::from_slice(&xs).unwrap();
            let l = ArrayView::from_slice_mut(&mut light).unwrap();
            let h = ArrayView::from_slice_mut(&mut heavy).unwrap();
            light_line = line!() + 1;
            parallel_for_each!(&view, l.extent(), |idx: Index<1>| {
                l[idx] = x[idx] + 1;
            })
            .unwrap();
            heavy_line = line!() + 1;
            parallel_for_each!(&view, h.extent(), |idx: Index<1>| {
                let mut acc = x[idx];
                for i in 0..4000 {
                    acc = acc.wrapping_mul(31).wrapping_add(i ^ acc);
                }
                h[idx] = acc;
            })
            .unwrap();
        }
        for i in 0..64 {
            assert_eq!(light[i], xs[i] + 1, "{acc} light {i}");
        }
        for i in 0..n {
            let mut want = xs[i];
            for j in 0..4000 {
                want = want.wrapping_mul(31).wrapping_add(j ^ want);
            }
            assert_eq!(heavy[i], want, "{acc} heavy {i}");
        }
        let timings = view.kernel_timings().unwrap();
        assert_eq!(timings.len(), 2, "{acc}: {timings:?}");
        assert!(
            timings.iter().all(|t| t.file == file!()),
            "{acc}: {timings:?}"
        );
        assert_eq!(timings[0].line, light_line, "{acc}");
        assert_eq!(timings[1].line, heavy_line, "{acc}");
        assert!(
            timings[1].duration > timings[0].duration,
            "{acc}: 64 million loop steps took no longer than 64 additions: {timings:?}"
        );
        assert!(
            timings[1].duration < std::time::Duration::from_secs(600),
            "{acc}: an implausible duration (ticks misread?): {timings:?}"
        );
        // Read once; nothing is recorded once timing is off.
        assert!(view.kernel_timings().unwrap().is_empty(), "{acc}");
        view.set_kernel_timing(false).unwrap();
        let out = Array::<i32, 1>::new([16], &view).unwrap();
        parallel_for_each!(&view, out.extent(), |idx: Index<1>| {
            out[idx] = idx[0];
        })
        .unwrap();
        assert_eq!(out.to_vec().unwrap(), (0..16).collect::<Vec<i32>>());
        assert!(view.kernel_timings().unwrap().is_empty(), "{acc}");
    }
}
