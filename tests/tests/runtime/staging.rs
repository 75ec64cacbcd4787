//! Staging arrays: arrays on the CPU accelerator associated with a GPU view,
//! moving data to and from arrays on that view through mappable buffers.

use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

#[amp_test]
fn staging_arrays_round_trip_through_their_associated_view() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for mode in [QueuingMode::Automatic, QueuingMode::Immediate] {
            let view = acc.create_view(mode);
            let mut rng = Rng::new(70 + k as u64);
            let n = 1 << 16;
            let data: Vec<i32> = (0..n).map(|_| rng.range(i32::MIN, i32::MAX)).collect();
            let mut staging = Array::<i32, 2>::new_staging([256, n / 256], &view).unwrap();
            assert_eq!(staging.associated_accelerator_view(), Some(&view));
            assert!(staging.accelerator_view().accelerator().is_cpu());
            copy(&data[..], &mut staging).unwrap();
            let mut on_device = Array::<i32, 2>::new([256, n / 256], &view).unwrap();
            // Twice: the second upload reuses the mapped buffer.
            for round in 0..2 {
                if round == 1 {
                    staging.set([3, 4], 12345).unwrap();
                }
                let before = view.transfers();
                copy(&staging, &mut on_device).unwrap();
                let after = view.transfers();
                if !acc.is_cpu() {
                    assert_eq!(
                        after.uploads - before.uploads,
                        1,
                        "{acc} {mode}: one upload"
                    );
                    assert_eq!(after.bytes_uploaded - before.bytes_uploaded, (n * 4) as u64);
                }
                let mut want = data.clone();
                if round == 1 {
                    want[3 * (n as usize / 256) + 4] = 12345;
                }
                assert!(
                    on_device.to_vec().unwrap() == want,
                    "{acc} {mode} round {round}"
                );
            }
            // Back: a kernel changes the device array, then it is copied into
            // a second staging array.
            let mut back = Array::<i32, 2>::new_staging([256, n / 256], &view).unwrap();
            let dev = on_device.view();
            parallel_for_each!(view, dev.extent(), |idx: Index<2>| {
                dev[idx] = dev[idx] ^ 0x5555;
            })
            .unwrap();
            let before = view.transfers();
            copy(&on_device, &mut back).unwrap();
            if !acc.is_cpu() {
                assert_eq!(
                    view.transfers().downloads - before.downloads,
                    1,
                    "{acc} {mode}"
                );
            }
            let got = back.to_vec().unwrap();
            for (i, g) in got.iter().enumerate() {
                let mut w = data[i];
                if i == 3 * (n as usize / 256) + 4 {
                    w = 12345;
                }
                assert_eq!(*g, w ^ 0x5555, "{acc} {mode} {i}");
            }
        }
    }
}
