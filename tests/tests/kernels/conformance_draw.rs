//! A seeded draw of Microsoft's C++ AMP conformance suite, ported.
//!
//! `python3 docs/conformance_draw.py <hcc git dir>` draws 40 of the 445 case
//! files of the suite's kernel chapters (`2_Cxx_Lang_Exte`,
//! `7_para_for_each`, `8_Corr_Sync_Cxx_AMP_Prog` under
//! `amp-conformance/Tests/` of ROCm/hcc at commit aaac0a59) with
//! `random.Random(20261128)`; `docs/conformance.md` has the table. Each test
//! below is the port of one drawn case that has a Rust meaning and passes,
//! named after it and citing its path; it keeps the case's shape (helper
//! functions, nesting, types) and checks every output element against plain
//! Rust on every accelerator, with outputs poisoned first. The drawn
//! negative cases that amp-rs refuses at compile time are listed in the
//! document only.

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_core::{Error, kernel};
use amp_tests::Rng;

/// The three control-flow cases' CPU `CalculateGroupSum`: the sum of each
/// group of `group` consecutive elements.
fn group_sums<T: Copy + std::ops::Add<Output = T>>(a: &[T], group: usize) -> Vec<T> {
    a.chunks(group)
        .map(|c| c[1..].iter().fold(c[0], |s, &v| s + v))
        .collect()
}

/// One control-flow case's launch (its `run`), instantiated for the
/// element types of the C++ case: `int`, `unsigned`, `float` and `double`
/// (`long` and `unsigned long` are `int` and `unsigned` on the suite's
/// targets).
struct Runs {
    int: fn(&AcceleratorView, &[i32], i32, i32, i32) -> Vec<i32>,
    uint: fn(&AcceleratorView, &[u32], u32, u32, i32) -> Vec<u32>,
    float: fn(&AcceleratorView, &[f32], f32, f32, i32) -> Vec<f32>,
    double: fn(&AcceleratorView, &[f64], f64, f64, i32) -> Vec<f64>,
}

/// Runs one of the three control-flow cases for each element type on every
/// accelerator (`double` where it has double precision, as the case
/// requires): with `x_met` the groups' sums come back, with `x_unmet` the
/// 100s that the first work item of each group wrote.
fn check_group_sum_case(
    seed: u64,
    size: i32,
    group: usize,
    (x_met, x_unmet): (i32, i32),
    run: &Runs,
) {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(seed + k as u64);
        let a = i32s(&mut rng, size as usize, 0, 101);
        let groups = size as usize / group;
        for (x, met) in [(x_met, true), (x_unmet, false)] {
            let want = |sums: Vec<i32>| if met { sums } else { vec![100; groups] };
            let got = (run.int)(&view, &a, 100, POISON_I32, x);
            assert_same(
                &got,
                &want(group_sums(&a, group)),
                &format!("{what} i32 x={x}"),
            );
            let au: Vec<u32> = a.iter().map(|&v| v as u32).collect();
            let got = (run.uint)(&view, &au, 100, POISON_U32, x);
            let w: Vec<u32> = want(group_sums(&a, group))
                .iter()
                .map(|&v| v as u32)
                .collect();
            assert_same(&got, &w, &format!("{what} u32 x={x}"));
            let af: Vec<f32> = a.iter().map(|&v| v as f32).collect();
            let got = (run.float)(&view, &af, 100.0, f32::NAN, x);
            let w: Vec<f32> = want(group_sums(&a, group))
                .iter()
                .map(|&v| v as f32)
                .collect();
            assert_bits32(&got, &w, &format!("{what} f32 x={x}"));
            if view.accelerator().supports_double_precision() {
                let ad: Vec<f64> = a.iter().map(|&v| f64::from(v)).collect();
                let got = (run.double)(&view, &ad, 100.0, f64::NAN, x);
                let w: Vec<f64> = want(group_sums(&a, group))
                    .iter()
                    .map(|&v| f64::from(v))
                    .collect();
                assert_close64(&got, &w, 0.0, 0.0, &format!("{what} f64 x={x}"));
            }
        }
    }
}

/// `2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/Switch/DoWhile`.
// The case's shape: loops on a captured value that every path leaves
// with `break` in their first iteration.
#[allow(clippy::never_loop, clippy::while_immutable_condition)]
mod switch_do_while {
    use amp_core::prelude::*;
    use amp_core::{Number, kernel};

    pub(super) const GROUP_SIZE: i32 = 4;

    /// The tile's sum through `tile_static` memory, written by its first
    /// work item.
    #[kernel]
    fn calculate_group_sum<T: Number>(
        idx: &TiledIndex<1>,
        flat_local_index: i32,
        fa: &Array<T, 1>,
        fb: &Array<T, 1>,
    ) {
        tile_static! { let shared: [T; GROUP_SIZE as usize]; }
        shared[flat_local_index] = fa[idx.global];
        idx.barrier.wait();
        if flat_local_index == 0 {
            let mut sum = shared[flat_local_index];
            for i in 1..GROUP_SIZE {
                sum += shared[flat_local_index + i];
            }
            fb[idx.tile] = sum;
        }
    }

    /// Ten nested `switch`es (`match`) and ten nested `do { .. } while
    /// (true)` loops (`loop`), all on the captured `x`, around the call that
    /// waits on the tile's barrier.
    #[kernel]
    fn kernel<T: Number>(
        idx: &TiledIndex<1>,
        fa: &Array<T, 1>,
        fb: &Array<T, 1>,
        hundred: T,
        x: i32,
    ) {
        let flat_local_index = idx.local[0];
        if flat_local_index == 0 {
            fb[idx.tile] = hundred;
        }
        match if x > 1 { 1 } else { 0 } {
            0 => {}
            _ => match if x > 2 { 1 } else { 0 } {
                0 => {}
                _ => match if x > 3 { 1 } else { 0 } {
                    0 => {}
                    _ => match if x > 4 { 1 } else { 0 } {
                        0 => {}
                        _ => match if x > 5 { 1 } else { 0 } {
                            0 => {}
                            _ => match if x > 6 { 1 } else { 0 } {
                                0 => {}
                                _ => match if x > 7 { 1 } else { 0 } {
                                    0 => {}
                                    _ => match if x > 8 { 1 } else { 0 } {
                                        0 => {}
                                        _ => match if x > 9 { 1 } else { 0 } {
                                            0 => {}
                                            _ => match if x > 10 { 1 } else { 0 } {
                                                0 => {}
                                                _ => loop {
                                                    if x <= 11 {
                                                        break;
                                                    }
                                                    loop {
                                                        if x <= 12 {
                                                            break;
                                                        }
                                                        loop {
                                                            if x <= 13 {
                                                                break;
                                                            }
                                                            loop {
                                                                if x <= 14 {
                                                                    break;
                                                                }
                                                                loop {
                                                                    if x <= 15 {
                                                                        break;
                                                                    }
                                                                    loop {
                                                                        if x <= 16 {
                                                                            break;
                                                                        }
                                                                        loop {
                                                                            if x <= 17 {
                                                                                break;
                                                                            }
                                                                            loop {
                                                                                if x <= 18 {
                                                                                    break;
                                                                                }
                                                                                loop {
                                                                                    if x <= 19 {
                                                                                        break;
                                                                                    }
                                                                                    loop {
                                                                                        if x <= 20 {
                                                                                            break;
                                                                                        }
                                                                                        calculate_group_sum(
                                                                                            idx,
                                                                                            flat_local_index,
                                                                                            fa,
                                                                                            fb,
                                                                                        );
                                                                                        break;
                                                                                    }
                                                                                    break;
                                                                                }
                                                                                break;
                                                                            }
                                                                            break;
                                                                        }
                                                                        break;
                                                                    }
                                                                    break;
                                                                }
                                                                break;
                                                            }
                                                            break;
                                                        }
                                                        break;
                                                    }
                                                    break;
                                                },
                                            },
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        }
    }

    /// Copies `a` to an `Array`, launches the kernel over it in tiles of
    /// `GROUP_SIZE` and returns the per-group results (poisoned first).
    // Runs in the CPU accelerator's threaded form (the macro's warning says why).
    #[allow(deprecated)]
    pub(super) fn run<T: Number>(
        view: &AcceleratorView,
        a: &[T],
        hundred: T,
        poison: T,
        x: i32,
    ) -> Vec<T> {
        let size = a.len() as i32;
        let fa = Array::from_slice([size], a, view).unwrap();
        let poisoned = vec![poison; a.len() / GROUP_SIZE as usize];
        let fb = Array::from_slice([size / GROUP_SIZE], &poisoned, view).unwrap();
        parallel_for_each!(
            view,
            fa.extent().tile::<GROUP_SIZE>().unwrap(),
            |idx: TiledIndex<1>| {
                kernel(&idx, &fa, &fb, hundred, x);
            }
        )
        .unwrap();
        fb.to_vec().unwrap()
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/Switch/DoWhile/test.cpp`:
/// a tiled kernel calls a function that sums its tile through
/// `tile_static` memory and a barrier, from under ten nested `switch`es and
/// ten nested `do`-`while` loops on a captured value (met: `x = 36`; not
/// met: `x = 18`).
#[test]
fn control_flow_test03_switch_do_while() {
    use switch_do_while::{GROUP_SIZE, run};
    check_group_sum_case(
        0xC0F3_0301,
        32,
        GROUP_SIZE as usize,
        (36, 18),
        &Runs {
            int: run::<i32>,
            uint: run::<u32>,
            float: run::<f32>,
            double: run::<f64>,
        },
    );
}

/// `2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/While/If`.
// The case's shape: loops on a captured value that every path leaves
// with `break` in their first iteration.
#[allow(clippy::never_loop, clippy::while_immutable_condition)]
mod while_if {
    use amp_core::prelude::*;
    use amp_core::{Number, kernel};

    pub(super) const GROUP_SIZE: i32 = 8;

    /// The tile's sum through `tile_static` memory, written by its first
    /// work item.
    #[kernel]
    fn calculate_group_sum<T: Number>(
        idx: &TiledIndex<1>,
        flat_local_index: i32,
        fa: &Array<T, 1>,
        fb: &Array<T, 1>,
    ) {
        tile_static! { let shared: [T; GROUP_SIZE as usize]; }
        shared[flat_local_index] = fa[idx.global];
        idx.barrier.wait();
        if flat_local_index == 0 {
            let mut sum = shared[flat_local_index];
            for i in 1..GROUP_SIZE {
                sum += shared[flat_local_index + i];
            }
            fb[idx.tile] = sum;
        }
    }

    /// Ten nested `while` loops (each left with `break`) and ten nested
    /// `if`s, all on the captured `x`, around the call that waits on the
    /// tile's barrier.
    #[kernel]
    fn kernel<T: Number>(
        idx: &TiledIndex<1>,
        fa: &Array<T, 1>,
        fb: &Array<T, 1>,
        hundred: T,
        x: i32,
    ) {
        let flat_local_index = idx.local[0];
        if flat_local_index == 0 {
            fb[idx.tile] = hundred;
        }
        while x > 1 {
            while x > 2 {
                while x > 3 {
                    while x > 4 {
                        while x > 5 {
                            while x > 6 {
                                while x > 7 {
                                    while x > 8 {
                                        while x > 9 {
                                            while x > 10 {
                                                if x > 11 {
                                                    if x > 12 {
                                                        if x > 13 {
                                                            if x > 14 {
                                                                if x > 15 {
                                                                    if x > 16 {
                                                                        if x > 17 {
                                                                            if x > 18 {
                                                                                if x > 19 {
                                                                                    if x > 20 {
                                                                                        calculate_group_sum(
                                                                                            idx,
                                                                                            flat_local_index,
                                                                                            fa,
                                                                                            fb,
                                                                                        );
                                                                                    }
                                                                                }
                                                                            }
                                                                        }
                                                                    }
                                                                }
                                                            }
                                                        }
                                                    }
                                                }
                                                break;
                                            }
                                            break;
                                        }
                                        break;
                                    }
                                    break;
                                }
                                break;
                            }
                            break;
                        }
                        break;
                    }
                    break;
                }
                break;
            }
            break;
        }
    }

    /// Copies `a` to an `Array`, launches the kernel over it in tiles of
    /// `GROUP_SIZE` and returns the per-group results (poisoned first).
    // Runs in the CPU accelerator's threaded form (the macro's warning says why).
    #[allow(deprecated)]
    pub(super) fn run<T: Number>(
        view: &AcceleratorView,
        a: &[T],
        hundred: T,
        poison: T,
        x: i32,
    ) -> Vec<T> {
        let size = a.len() as i32;
        let fa = Array::from_slice([size], a, view).unwrap();
        let poisoned = vec![poison; a.len() / GROUP_SIZE as usize];
        let fb = Array::from_slice([size / GROUP_SIZE], &poisoned, view).unwrap();
        parallel_for_each!(
            view,
            fa.extent().tile::<GROUP_SIZE>().unwrap(),
            |idx: TiledIndex<1>| {
                kernel(&idx, &fa, &fb, hundred, x);
            }
        )
        .unwrap();
        fb.to_vec().unwrap()
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/While/If/test.cpp`:
/// the tile-sum call from under ten nested `while` loops and ten nested
/// `if`s on a captured value (met: `x = 100`; not met: `x = 10`).
#[test]
fn control_flow_test03_while_if() {
    use while_if::{GROUP_SIZE, run};
    check_group_sum_case(
        0xC0F3_0302,
        32,
        GROUP_SIZE as usize,
        (100, 10),
        &Runs {
            int: run::<i32>,
            uint: run::<u32>,
            float: run::<f32>,
            double: run::<f64>,
        },
    );
}

/// `2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/For/DoWhile`.
// The case's shape: loops on a captured value that every path leaves
// with `break` in their first iteration.
#[allow(clippy::never_loop, clippy::while_immutable_condition)]
mod for_do_while {
    use amp_core::prelude::*;
    use amp_core::{Number, kernel};

    pub(super) const GROUP_SIZE: i32 = 4;

    /// The tile's sum through `tile_static` memory, written by its first
    /// work item.
    #[kernel]
    fn calculate_group_sum<T: Number>(
        idx: &TiledIndex<1>,
        flat_local_index: i32,
        fa: &Array<T, 1>,
        fb: &Array<T, 1>,
    ) {
        tile_static! { let shared: [T; GROUP_SIZE as usize]; }
        shared[flat_local_index] = fa[idx.global];
        idx.barrier.wait();
        if flat_local_index == 0 {
            let mut sum = shared[flat_local_index];
            for i in 1..GROUP_SIZE {
                sum += shared[flat_local_index + i];
            }
            fb[idx.tile] = sum;
        }
    }

    /// Ten nested `for (; x > k;)` loops (`while`) and ten nested
    /// `do`-`while (true)` loops (`loop`), each left with `break`, all on the
    /// captured `x`, around the call that waits on the tile's barrier.
    #[kernel]
    fn kernel<T: Number>(
        idx: &TiledIndex<1>,
        fa: &Array<T, 1>,
        fb: &Array<T, 1>,
        hundred: T,
        x: i32,
    ) {
        let flat_local_index = idx.local[0];
        if flat_local_index == 0 {
            fb[idx.tile] = hundred;
        }
        while x > 1 {
            while x > 2 {
                while x > 3 {
                    while x > 4 {
                        while x > 5 {
                            while x > 6 {
                                while x > 7 {
                                    while x > 8 {
                                        while x > 9 {
                                            while x > 10 {
                                                loop {
                                                    if x <= 11 {
                                                        break;
                                                    }
                                                    loop {
                                                        if x <= 12 {
                                                            break;
                                                        }
                                                        loop {
                                                            if x <= 13 {
                                                                break;
                                                            }
                                                            loop {
                                                                if x <= 14 {
                                                                    break;
                                                                }
                                                                loop {
                                                                    if x <= 15 {
                                                                        break;
                                                                    }
                                                                    loop {
                                                                        if x <= 16 {
                                                                            break;
                                                                        }
                                                                        loop {
                                                                            if x <= 17 {
                                                                                break;
                                                                            }
                                                                            loop {
                                                                                if x <= 18 {
                                                                                    break;
                                                                                }
                                                                                loop {
                                                                                    if x <= 19 {
                                                                                        break;
                                                                                    }
                                                                                    loop {
                                                                                        if x <= 20 {
                                                                                            break;
                                                                                        }
                                                                                        calculate_group_sum(
                                                                                            idx,
                                                                                            flat_local_index,
                                                                                            fa,
                                                                                            fb,
                                                                                        );
                                                                                        break;
                                                                                    }
                                                                                    break;
                                                                                }
                                                                                break;
                                                                            }
                                                                            break;
                                                                        }
                                                                        break;
                                                                    }
                                                                    break;
                                                                }
                                                                break;
                                                            }
                                                            break;
                                                        }
                                                        break;
                                                    }
                                                    break;
                                                }
                                                break;
                                            }
                                            break;
                                        }
                                        break;
                                    }
                                    break;
                                }
                                break;
                            }
                            break;
                        }
                        break;
                    }
                    break;
                }
                break;
            }
            break;
        }
    }

    /// Copies `a` to an `Array`, launches the kernel over it in tiles of
    /// `GROUP_SIZE` and returns the per-group results (poisoned first).
    // Runs in the CPU accelerator's threaded form (the macro's warning says why).
    #[allow(deprecated)]
    pub(super) fn run<T: Number>(
        view: &AcceleratorView,
        a: &[T],
        hundred: T,
        poison: T,
        x: i32,
    ) -> Vec<T> {
        let size = a.len() as i32;
        let fa = Array::from_slice([size], a, view).unwrap();
        let poisoned = vec![poison; a.len() / GROUP_SIZE as usize];
        let fb = Array::from_slice([size / GROUP_SIZE], &poisoned, view).unwrap();
        parallel_for_each!(
            view,
            fa.extent().tile::<GROUP_SIZE>().unwrap(),
            |idx: TiledIndex<1>| {
                kernel(&idx, &fa, &fb, hundred, x);
            }
        )
        .unwrap();
        fb.to_vec().unwrap()
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/For/DoWhile/test.cpp`:
/// the tile-sum call from under ten nested `for` loops and ten nested
/// `do`-`while` loops on a captured value (met: `x = 21`; not met:
/// `x = 20`).
#[test]
fn control_flow_test03_for_do_while() {
    use for_do_while::{GROUP_SIZE, run};
    check_group_sum_case(
        0xC0F3_0303,
        32,
        GROUP_SIZE as usize,
        (21, 20),
        &Runs {
            int: run::<i32>,
            uint: run::<u32>,
            float: run::<f32>,
            double: run::<f64>,
        },
    );
}

/// `BitwiseAndAssignment`'s kernel function: `&=` on an element of an
/// `Array` parameter.
#[kernel]
fn bitwise_and_kernel(idx: Index<2>, a_b: &Array<i32, 2>, a_a: &Array<i32, 2>) {
    a_b[idx] &= a_a[idx];
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Expressions/BuiltInOperators/Assignment/BitwiseAndAssignment/test.cpp`:
/// a `restrict(cpu, amp)` function applies `&=` to the elements of a 4x4
/// `array` from another (random values over the whole `i32` range).
#[test]
fn bitwise_and_assignment() {
    const N: i32 = 4;
    const M: i32 = 4;
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(0xB17A_0000 + k as u64);
        let a = any_i32s(&mut rng, (N * M) as usize);
        let value = (rng.next_u64() >> 32) as i32;
        let a_a = Array::from_slice([N, M], &a, &view).unwrap();
        let a_b = Array::from_slice([N, M], &vec![value; (N * M) as usize], &view).unwrap();
        parallel_for_each!(&view, a_a.extent(), |idx: Index<2>| {
            bitwise_and_kernel(idx, &a_b, &a_a);
        })
        .unwrap();
        let want: Vec<i32> = a.iter().map(|&x| value & x).collect();
        assert_same(&a_b.to_vec().unwrap(), &want, &what);
    }
}

/// `2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.01/If`, laid out
/// as the case (ten `if`s a line: rustfmt would indent each of the 63).
#[rustfmt::skip]
mod nested_if {
    use amp_core::prelude::*;
    use amp_core::kernel;

    /// The case's kernel function: 63 nested `if`s on `a` (its maximum
    /// nesting level); the innermost writes `new_value`, so only `a > 63`
    /// changes the element.
    #[kernel]
    pub(super) fn kernel(idx: Index<1>, fa: &Array<i32, 1>, a: i32, initial_value: i32, new_value: i32) {
        fa[idx] = initial_value;
        if a > 1 { if a > 2 { if a > 3 { if a > 4 { if a > 5 { if a > 6 { if a > 7 { if a > 8 { if a > 9 { if a > 10 {
        if a > 11 { if a > 12 { if a > 13 { if a > 14 { if a > 15 { if a > 16 { if a > 17 { if a > 18 { if a > 19 { if a > 20 {
        if a > 21 { if a > 22 { if a > 23 { if a > 24 { if a > 25 { if a > 26 { if a > 27 { if a > 28 { if a > 29 { if a > 30 {
        if a > 31 { if a > 32 { if a > 33 { if a > 34 { if a > 35 { if a > 36 { if a > 37 { if a > 38 { if a > 39 { if a > 40 {
        if a > 41 { if a > 42 { if a > 43 { if a > 44 { if a > 45 { if a > 46 { if a > 47 { if a > 48 { if a > 49 { if a > 50 {
        if a > 51 { if a > 52 { if a > 53 { if a > 54 { if a > 55 { if a > 56 { if a > 57 { if a > 58 { if a > 59 { if a > 60 {
        if a > 61 { if a > 62 { if a > 63 {
            fa[idx] = new_value;
        }}}}}}}}}}
        }}}}}}}}}}
        }}}}}}}}}}
        }}}}}}}}}}
        }}}}}}}}}}
        }}}}}}}}}}
        }}}
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.01/If/test.cpp`:
/// 63 nested `if`s in a `restrict(cpu, amp)` function, launched over 255
/// work items for each number of conditions met (1 to 64).
#[test]
fn control_flow_test01_if() {
    const MAX_NESTING_LEVEL: i32 = 63;
    for (view, what) in all_views() {
        let (initial_value, new_value) = (0, 1);
        for level in 1..=MAX_NESTING_LEVEL + 1 {
            let expected = if level > MAX_NESTING_LEVEL {
                new_value
            } else {
                initial_value
            };
            let fa = Array::from_slice([255], &[POISON_I32; 255], &view).unwrap();
            parallel_for_each!(&view, fa.extent(), |idx: Index<1>| {
                nested_if::kernel(idx, &fa, level, initial_value, new_value);
            })
            .unwrap();
            assert_same(
                &fa.to_vec().unwrap(),
                &[expected; 255],
                &format!("{what} level {level}"),
            );
        }
    }
}

/// `NegGrouped.03`'s `expect_exception`: launching over `ext` (a 3-D extent
/// its tile does not divide) fails with `InvalidComputeDomain`, and no work
/// item runs (`ran` keeps its poison).
fn expect_exception(av: &AcceleratorView, ext: TiledExtent<3>) -> bool {
    let x = 7;
    let mut ran = vec![POISON_I32];
    let result = {
        let ran_v = ArrayView::new_mut([1], &mut ran).unwrap();
        let result = parallel_for_each!(av, ext, |_t: TiledIndex<3>| {
            let y = x;
            ran_v[[0]] = y;
        });
        ran_v.synchronize().unwrap();
        result
    };
    matches!(result, Err(Error::InvalidComputeDomain(_))) && ran == [POISON_I32]
}

/// Case `amp-conformance/Tests/7_para_for_each/ComputeDomainTiled/Negative/NegGrouped.03/test.cpp`:
/// a tiled launch over a 3-D extent that the tile does not divide is an
/// `invalid_compute_domain` error, also for an extent of `i32::MAX` in the
/// last dimension.
#[test]
fn compute_domain_tiled_neg_grouped_03() {
    for (av, what) in default_views() {
        let cases = [
            Extent::new([4, 9, 49]).tile::<3, 3, 7>().unwrap(),
            Extent::new([4, 9, 49]).tile::<2, 2, 7>().unwrap(),
            Extent::new([4, 9, 49]).tile::<2, 3, 5>().unwrap(),
            Extent::new([1, 1, 1]).tile::<1, 1, 2>().unwrap(),
            Extent::new([1, 1, i32::MAX]).tile::<1, 1, 2>().unwrap(),
        ];
        for (i, ext) in cases.into_iter().enumerate() {
            assert!(expect_exception(&av, ext), "{what}: case {i}");
        }
    }
}

/// `Function_parameters/Test.02`'s `restrict(amp)` function without
/// parameters.
#[kernel]
fn no_parameters() -> i32 {
    2
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_4_amp_Rest_Modi/2_4_2_Rest_on_Func_Decl/Function_parameters/Test.02/test.cpp`:
/// a kernel function with no parameters, called on the accelerator (the
/// suite's `GPU_INVOKE`: one work item writing its result).
#[test]
fn function_parameters_test_02() {
    for (av, what) in all_views() {
        let mut r = vec![POISON_I32];
        {
            let rv = ArrayView::new_mut([1], &mut r).unwrap();
            parallel_for_each!(&av, rv.extent(), |idx: Index<1>| {
                rv[idx] = no_parameters();
            })
            .unwrap();
            rv.synchronize().unwrap();
        }
        assert_same(&r, &[2], &what);
    }
}

/// `ExternCPP.01`'s `restrict(amp)` function (`extern "C++"` is C++'s
/// default linkage: nothing to port).
#[kernel]
fn gpu_only() -> i32 {
    2
}

/// `ExternCPP.01`'s `restrict(cpu, amp)` function.
#[kernel]
fn gpu_cpu() -> i32 {
    1
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_4_amp_Rest_Modi/2_4_2_Rest_on_Func_Decl/Linkage_specification/ExternCPP.01/test.cpp`:
/// an amp-only function and a `cpu, amp` function called on the
/// accelerator, and the second called on the host.
#[test]
fn linkage_specification_extern_cpp_01() {
    for (av, what) in all_views() {
        let mut r = vec![POISON_I32; 2];
        {
            let rv = ArrayView::new_mut([2], &mut r).unwrap();
            parallel_for_each!(&av, Extent::new([1]), |_idx: Index<1>| {
                rv[[0]] = gpu_only();
                rv[[1]] = gpu_cpu();
            })
            .unwrap();
            rv.synchronize().unwrap();
        }
        assert_same(&r, &[2, 1], &what);
    }
    assert_eq!(gpu_cpu(), 1);
}

/// Case 37's class `C1`: no data, one static `restrict(cpu, amp)` member.
struct C1;

#[kernel]
impl C1 {
    /// A `restrict(cpu, amp)` static member function setting its `int&`
    /// parameter.
    fn foo(flag: &mut i32) {
        *flag = 1;
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_3_Expr_Invo_Rest_Func/2_3_2_Func_Over/Calling_context/CallingContext.19/test.cpp`:
/// host code calls a `restrict(cpu, amp)` static member function that sets
/// an `int&`; the same call from a kernel on every accelerator.
#[test]
fn calling_context_19() {
    let mut flag = 0;
    C1::foo(&mut flag);
    assert_eq!(flag, 1);
    for (av, what) in all_views() {
        let mut r = vec![POISON_I32; 64];
        {
            let rv = ArrayView::new_mut([64], &mut r).unwrap();
            parallel_for_each!(&av, rv.extent(), |idx: Index<1>| {
                let mut flag = 0;
                C1::foo(&mut flag);
                rv[idx] = flag;
            })
            .unwrap();
            rv.synchronize().unwrap();
        }
        assert_same(&r, &[1; 64], &what);
    }
}

/// Case `amp-conformance/Tests/7_para_for_each/7_1_Capt_Data_in_the_Kern_Func_Obje/Bool.01/test.cpp`:
/// a kernel captures a host `bool` by value and branches on it (the case
/// runs `true`; `false` too here).
#[test]
fn capture_bool_01() {
    const SIZE: i32 = 2048;
    for (av, what) in all_views() {
        for host_side_bool in [true, false] {
            let ac = Array::from_slice([SIZE], &[POISON_I32; SIZE as usize], &av).unwrap();
            parallel_for_each!(&av, ac.extent(), |idx: Index<1>| {
                if host_side_bool {
                    ac[idx] = 1;
                } else {
                    ac[idx] = 2;
                }
            })
            .unwrap();
            let expected = if host_side_bool { 1 } else { 2 };
            assert_same(
                &ac.to_vec().unwrap(),
                &[expected; SIZE as usize],
                &format!("{what} {host_side_bool}"),
            );
        }
    }
}

/// The class `c` of case 35 (`int`, `double`, `unsigned long`, `float`),
/// with the padding `Element` asks for after the `int`.
#[repr(C)]
#[derive(Clone, Copy, amp_core::Element)]
struct ClassC {
    i: i32,
    _pad: i32,
    d: f64,
    ul: u32,
    f: f32,
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Expressions/Pointers/ToLocal/Test08/test.cpp`:
/// pointers to locals declared in a nested scope, chosen by a branch on
/// view data (`pc = aFlag[0] == 0 ? &o : &o2`), then written field by field
/// (`pc->i = 2`) and through scalars (`*pi = 2`), and read back through the
/// locals, a copy (`c ot = *pc`) and a pointer to the copy. The case's
/// empty-struct and union locals have no Rust form (see
/// docs/conformance.md). The case runs flag 0; flag 1 here too, where the
/// checks of `o` fail and every element becomes 1. Each element starts
/// poisoned; the kernel sets it to the case's initial value first.
#[test]
fn pointers_to_local_test08() {
    const INIT_VALUE: i32 = 0x00ab_cdef;
    const SIZE: i32 = 100;
    for (av, what) in all_views() {
        if !av.accelerator().supports_double_precision() {
            continue;
        }
        for flag in [0, 1] {
            let a_flag = Array::from_slice([4], &[flag, 0, 0, 0], &av).unwrap();
            let a_a = Array::from_slice([SIZE], &[POISON_I32; SIZE as usize], &av).unwrap();
            parallel_for_each!(&av, a_a.extent(), |idx: Index<1>| {
                a_a[idx] = INIT_VALUE;
                let mut o = ClassC {
                    i: 1,
                    _pad: 0,
                    d: 1.0,
                    ul: 1,
                    f: 1.0,
                };
                let mut o2 = ClassC {
                    i: 1,
                    _pad: 0,
                    d: 1.0,
                    ul: 1,
                    f: 1.0,
                };
                let mut i = 1;
                let mut i2 = 0;
                let mut ul = 1u32;
                let mut ul2 = 0u32;
                let mut d = 1.0f64;
                let mut d2 = 0.0f64;
                let mut f = 1.0f32;
                let mut f2 = 0.0f32;
                for _cnt in 0..10 {
                    let pc = if a_flag[[0]] == 0 { &mut o } else { &mut o2 };
                    let pi = if a_flag[[0]] == 0 { &mut i } else { &mut i2 };
                    let pul = if a_flag[[0]] == 0 { &mut ul } else { &mut ul2 };
                    let pd = if a_flag[[0]] == 0 { &mut d } else { &mut d2 };
                    let pf = if a_flag[[0]] == 0 { &mut f } else { &mut f2 };
                    pc.i = 2;
                    pc.d = 2.0;
                    pc.ul = 2;
                    pc.f = 2.0;
                    if o.i != 2 || o.ul != 2 || pc.f != 2.0 || pc.d != 2.0 {
                        a_a[idx] = 1;
                    }
                    let ot = *pc;
                    let pct = &ot;
                    if ot.i != 2 || ot.ul != 2 || pct.f != 2.0 || pct.d != 2.0 {
                        a_a[idx] = 1;
                    }
                    *pi = 2;
                    *pul = 2;
                    *pd = 2.0;
                    *pf = 2.0;
                    if i != 2 || ul != 2 || f != 2.0 || d != 2.0 {
                        a_a[idx] = 1;
                    }
                    let it = *pi;
                    let ult = *pul;
                    let dt = *pd;
                    let ft = *pf;
                    if it != 2 || ult != 2 || ft != 2.0 || dt != 2.0 {
                        a_a[idx] = 1;
                    }
                }
            })
            .unwrap();
            let want = if flag == 0 { INIT_VALUE } else { 1 };
            assert_same(
                &a_a.to_vec().unwrap(),
                &[want; SIZE as usize],
                &format!("{what} flag {flag}"),
            );
        }
    }
}

/// Case 21's class `c`, a module (its only member is static, as case 37's
/// `C1`).
mod class_c {
    use amp_core::kernel;

    /// A `restrict(cpu, amp)` static function that calls an amp lambda on
    /// the spot with its `int&` parameter.
    #[kernel]
    pub(super) fn f(flag: &mut i32) {
        (|flag: &mut i32| {
            *flag = 1;
        })(flag);
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_3_Expr_Invo_Rest_Func/2_3_2_Func_Over/Calling_context/CallingContext.66/test.cpp`:
/// a `restrict(cpu, amp)` static function calls a lambda where it writes
/// it, passing on its `int&`; the case calls it on the host, and here from
/// a kernel on every accelerator too.
#[test]
fn calling_context_66() {
    let mut flag = 0;
    class_c::f(&mut flag);
    assert_eq!(flag, 1);
    for (av, what) in all_views() {
        let mut r = vec![POISON_I32; 64];
        {
            let rv = ArrayView::new_mut([64], &mut r).unwrap();
            parallel_for_each!(&av, rv.extent(), |idx: Index<1>| {
                let mut flag = 0;
                class_c::f(&mut flag);
                rv[idx] = flag;
            })
            .unwrap();
            rv.synchronize().unwrap();
        }
        assert_same(&r, &[1; 64], &what);
    }
}

/// Case 40's class: a private data member and a protected
/// `restrict(cpu, amp)` member function that a public host member function
/// calls (Rust's privacy: a private method of the type's module).
#[repr(C)]
#[derive(Clone, Copy, amp_core::Element)]
struct TestClass {
    r: i32,
}

#[kernel]
impl TestClass {
    fn setr(&mut self, a: i32) -> i32 {
        self.r = a;
        self.r
    }
}

impl TestClass {
    fn callprotected(&mut self, a: i32) -> i32 {
        self.setr(a)
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Functions/Member_access_control/test.02/test.cpp`:
/// a protected `restrict(cpu, amp)` member function (`int setr(int a)`,
/// writing the private member) called by a public host member function; the
/// case calls it on the host, and here the method from a kernel on every
/// accelerator too (`t.setr(i)` on a local), against plain Rust.
#[test]
fn member_access_control_test_02() {
    let mut test = TestClass { r: 0 };
    assert_eq!(test.callprotected(1), 1);
    assert_eq!(test.r, 1);
    for (k, (av, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(0x4002 + k as u64);
        let a = i32s(&mut rng, 97, -1000, 1000);
        let mut r = vec![POISON_I32; 97];
        {
            let av_a = ArrayView::new([97], &a).unwrap();
            let rv = ArrayView::new_mut([97], &mut r).unwrap();
            parallel_for_each!(&av, rv.extent(), |idx: Index<1>| {
                let mut t = TestClass { r: 0 };
                let got = t.setr(av_a[idx]);
                rv[idx] = got * 2 + t.r;
            })
            .unwrap();
            rv.synchronize().unwrap();
        }
        let want: Vec<i32> = a.iter().map(|&x| x * 3).collect();
        assert_same(&r, &want, &what);
    }
}

/// Case 33's `void hoo() restrict(amp)`.
#[kernel]
fn hoo() -> i32 {
    1
}

/// Case 33's `extern "C" void foo() restrict(amp)`, which calls `hoo`.
#[kernel]
extern "C" fn foo_extern_c(x: i32) -> i32 {
    hoo() + x
}

/// Case 33's `void boo() restrict(amp)`, which calls the `extern "C"`
/// function.
#[kernel]
fn boo(x: i32) -> i32 {
    foo_extern_c(x) * 2
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_4_amp_Rest_Modi/2_4_2_Rest_on_Func_Decl/Linkage_specification/ExternC.02/test.cpp`:
/// a `restrict(amp)` function with C linkage (`extern "C"`), calling and
/// called by other `restrict(amp)` functions. The case only compiles them;
/// here they return values (the C++ ones are `void`) and run from a kernel
/// on every accelerator and on the host.
#[test]
fn linkage_specification_extern_c_02() {
    assert_eq!(boo(5), 12);
    for (av, what) in all_views() {
        let mut r = vec![POISON_I32; 50];
        {
            let rv = ArrayView::new_mut([50], &mut r).unwrap();
            parallel_for_each!(&av, rv.extent(), |idx: Index<1>| {
                rv[idx] = boo(idx[0]);
            })
            .unwrap();
            rv.synchronize().unwrap();
        }
        let want: Vec<i32> = (0..50).map(|i| (1 + i) * 2).collect();
        assert_same(&r, &want, &what);
    }
}
