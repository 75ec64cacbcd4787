//! Device limits are errors that name the limit, never a silent failure:
//! a container larger than the adapter can bind to a kernel gives
//! `UnsupportedFeature`, and nothing runs.

use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::gpu_accelerators;

#[amp_test(wgpu)]
fn a_container_beyond_the_binding_limit_is_refused_at_launch() {
    for acc in gpu_accelerators() {
        let limits = acc.limits();
        if limits.max_binding_size >= limits.max_buffer_size
            || limits.max_binding_size > (512 << 20)
        {
            eprintln!(
                "{acc}: binding limit {} not testable here",
                limits.max_binding_size
            );
            continue;
        }
        let n = (limits.max_binding_size / 4 + 1) as i32;
        let view = acc.default_view();
        let big = Array::<u32, 1>::new([n], &view).unwrap();
        let v = big.view();
        let err = parallel_for_each!(view, Extent::new([4]), |idx: Index<1>| {
            v[idx] = 7;
        })
        .unwrap_err();
        match &err {
            Error::UnsupportedFeature { feature, .. } => {
                assert!(
                    feature.contains("max_storage_buffer_binding_size"),
                    "{feature}"
                );
            }
            other => panic!("{acc}: expected UnsupportedFeature, got {other:?}"),
        }
        assert_eq!(big.get([0]).unwrap(), 0, "{acc}: nothing ran");
    }
}
