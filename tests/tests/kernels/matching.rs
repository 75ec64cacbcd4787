//! `match` on integers in kernels (as a statement and as a value), compared
//! with the same `match` in plain Rust on every accelerator.

use amp_core::prelude::*;
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

const LIMIT: i32 = 40;

#[allow(clippy::manual_range_patterns)] // the same patterns as the kernel's
fn classify(v: i32) -> i32 {
    match v {
        0 => 100,
        1 | 2 | 3 => 200 + v,
        -5..=-1 => 300,
        LIMIT => 400,
        10..20 => 500,
        n if n > 1000 => 600,
        n => n * 2,
    }
}

#[amp_test]
fn match_on_integers() {
    const N: usize = 4096;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(500 + k as u64);
        let xs: Vec<i32> = (0..N)
            .map(|_| rng.range(-10, 60) + if rng.range(0, 8) == 0 { 2000 } else { 0 })
            .collect();
        let mut out = vec![i32::MIN; N];
        let mut out2 = vec![u32::MAX; N];
        {
            let x = ArrayView::new([N as i32], &xs).unwrap();
            let o = ArrayView::new_mut([N as i32], &mut out).unwrap();
            let o2 = ArrayView::new_mut([N as i32], &mut out2).unwrap();
            parallel_for_each!(acc.default_view(), o.extent(), |idx: Index<1>| {
                let v = x[idx];
                o[idx] = match v {
                    0 => 100,
                    1 | 2 | 3 => 200 + v,
                    -5..=-1 => 300,
                    LIMIT => 400,
                    10..20 => 500,
                    n if n > 1000 => 600,
                    n => n * 2,
                };
                match v % 3 {
                    0 => o2[idx] = 7,
                    1 => {
                        o2[idx] = 8;
                    }
                    _ => o2[idx] = 9,
                }
            })
            .unwrap();
        }
        for i in 0..N {
            assert_eq!(out[i], classify(xs[i]), "{acc} {i} ({})", xs[i]);
            let want = match xs[i] % 3 {
                0 => 7,
                1 => 8,
                _ => 9,
            };
            assert_eq!(out2[i], want, "{acc} {i}");
        }
    }
}
