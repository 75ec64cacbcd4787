//! A second seeded draw of Microsoft's C++ AMP conformance suite, ported.
//!
//! `python3 docs/conformance_draw2.py <hcc git dir>` draws 25 of the 170
//! `test.cpp` cases under `7_para_for_each`, `8_Corr_Sync_Cxx_AMP_Prog` and
//! `2_Cxx_Lang_Exte/2_x_general` (`amp-conformance/Tests/` of ROCm/hcc at
//! commit aaac0a59) with `random.Random(20261129)`; `docs/conformance.md`
//! ("Second draw") has the table. Each test below is the port of one drawn
//! case that has a Rust meaning and passes, named after it and citing its
//! path; it keeps the case's shape (helper functions, nesting, types) and
//! checks every output element against plain Rust on every accelerator,
//! with outputs poisoned first (or, where the case checks that a kernel
//! leaves its output alone, set to the case's own initial value). The drawn
//! negative cases that amp-rs refuses at compile time are listed in the
//! document only.

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_core::{Error, Number, kernel};
use amp_tests::Rng;

/// `BitwiseAndAssignment`'s `restrict(cpu, amp)` function: `&=` on an
/// element of one `array` parameter from another.
#[kernel]
fn bitwise_and_kernel(idx: Index<2>, a_b: &Array<i32, 2>, a_a: &Array<i32, 2>) {
    a_b[idx] &= a_a[idx];
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Expressions/BuiltInOperators/Assignment/BitwiseAndAssignment/test.cpp`:
/// a kernel calls a function that applies `&=` to the elements of a 4x4
/// `array` holding one random value, from another `array` (random values
/// over the whole `i32` range; the case draws them from `rand()`).
#[test]
fn bitwise_and_assignment() {
    const N: i32 = 4;
    const M: i32 = 4;
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(0xC2_0001 + k as u64);
        let a = any_i32s(&mut rng, (N * M) as usize);
        let value = any_i32s(&mut rng, 1)[0];
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

/// `2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.07/DoWhile`.
mod do_while_07 {
    use amp_core::kernel;
    use amp_core::prelude::*;

    pub(super) const X_SIZE: i32 = 8;
    pub(super) const Y_SIZE: i32 = 8;
    pub(super) const X_GROUP_SIZE: i32 = 4;
    pub(super) const Y_GROUP_SIZE: i32 = 4;

    /// The host's `CalculateGroupSum`: the sum of each 4x4 group of the
    /// 8x8 data, groups in row-major order.
    pub(super) fn host_group_sums(a: &[i32]) -> Vec<i32> {
        let mut b = Vec::new();
        for y in (0..Y_SIZE).step_by(Y_GROUP_SIZE as usize) {
            for x in (0..X_SIZE).step_by(X_GROUP_SIZE as usize) {
                let mut sum = 0;
                for gy in y..y + Y_GROUP_SIZE {
                    for gx in x..x + X_GROUP_SIZE {
                        sum += a[(gy * X_SIZE + gx) as usize];
                    }
                }
                b.push(sum);
            }
        }
        b
    }

    /// The tile's sum through `tile_static` memory, written by its first
    /// work item.
    #[kernel]
    fn calculate_group_sum(
        ti: &TiledIndex<2>,
        flat_local_index: i32,
        fa: &Array<i32, 2>,
        fb: &Array<i32, 2>,
    ) {
        tile_static! { let shared: [i32; (X_GROUP_SIZE * Y_GROUP_SIZE) as usize]; }
        shared[flat_local_index] = fa[ti.global];
        ti.barrier.wait();
        if flat_local_index == 0 {
            let mut sum = 0;
            for i in 0..X_GROUP_SIZE * Y_GROUP_SIZE {
                sum += shared[i];
            }
            fb[ti.tile] = sum;
        }
    }

    /// `do { CalculateGroupSum(..); break; } while (x > 1);`: a `loop`
    /// that calls the function and breaks before its condition.
    // The case's shape: the loop never comes round, and its condition (the
    // only use of `x`) is never reached.
    #[allow(clippy::never_loop, unreachable_code, unused_variables)]
    #[kernel]
    pub(super) fn kernel(ti: &TiledIndex<2>, fa: &Array<i32, 2>, fb: &Array<i32, 2>, x: i32) {
        let flat_local_index = ti.local[0] * X_GROUP_SIZE + ti.local[1];
        if flat_local_index == 0 {
            fb[ti.tile] = 100;
        }
        loop {
            calculate_group_sum(ti, flat_local_index, fa, fb);
            break;
            if x <= 1 {
                break;
            }
        }
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.07/DoWhile/test.cpp`:
/// a 4x4-tiled kernel calls a function that sums its tile through
/// `tile_static` memory and a barrier, from inside a `do`-`while` loop that
/// breaks after the call; the kernel's `x` is a local of the lambda.
#[test]
// Runs in the CPU accelerator's threaded form (the macro's warning says why).
#[allow(deprecated)]
fn control_flow_test07_do_while() {
    use do_while_07::*;
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(0xC2_0002 + k as u64);
        let a = i32s(&mut rng, (X_SIZE * Y_SIZE) as usize, 0, 101);
        let fa = Array::from_slice([X_SIZE, Y_SIZE], &a, &view).unwrap();
        let groups = [Y_SIZE / Y_GROUP_SIZE, X_SIZE / X_GROUP_SIZE];
        let fb = Array::from_slice(groups, &[POISON_I32; 4], &view).unwrap();
        parallel_for_each!(
            &view,
            fa.extent().tile::<Y_GROUP_SIZE, X_GROUP_SIZE>().unwrap(),
            |ti: TiledIndex<2>| {
                let x = 123;
                kernel(&ti, &fa, &fb, x);
            }
        )
        .unwrap();
        assert_same(&fb.to_vec().unwrap(), &host_group_sums(&a), &what);
    }
}

/// `Pointers/ToLocal/Test11.01`'s initial value of the output, which the
/// kernel leaves alone where it is right.
const TO_LOCAL_INIT_VALUE: i32 = 0x5EED;

/// The kernel of `Pointers/ToLocal/Test11.01`, for one element type: a
/// local assigned after its declaration, changed through a reference to
/// it; the element is written (to 1) only if the change is not seen.
// `v1 = zero` is the case's: the local is assigned, then overwritten
// through the reference.
#[allow(unused_assignments)]
fn to_local_11_01<T: Number>(view: &AcceleratorView, zero: T, one: T) -> Vec<i32> {
    const SIZE: i32 = 100;
    let a_a = Array::from_slice([SIZE], &[TO_LOCAL_INIT_VALUE; SIZE as usize], view).unwrap();
    parallel_for_each!(view, a_a.extent(), |idx: Index<1>| {
        let mut v1: T;
        v1 = zero;
        let p = &mut v1;
        *p = one;
        if v1 != one {
            a_a[idx] = 1;
        }
    })
    .unwrap();
    a_a.to_vec().unwrap()
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Expressions/Pointers/ToLocal/Test11.01/test.cpp`:
/// in a kernel of a function template (`int`, `unsigned`, `float`,
/// `double`), a reference to a local changes the local. A `T: Number` has
/// no literal of its own, so the case's `(type)0` and `(type)1` are
/// captured values.
#[test]
fn pointers_to_local_test11_01() {
    for (view, what) in all_views() {
        let unchanged = vec![TO_LOCAL_INIT_VALUE; 100];
        assert_same(
            &to_local_11_01(&view, 0i32, 1),
            &unchanged,
            &format!("{what} i32"),
        );
        assert_same(
            &to_local_11_01(&view, 0u32, 1),
            &unchanged,
            &format!("{what} u32"),
        );
        assert_same(
            &to_local_11_01(&view, 0.0f32, 1.0),
            &unchanged,
            &format!("{what} f32"),
        );
        if view.accelerator().supports_double_precision() {
            assert_same(
                &to_local_11_01(&view, 0.0f64, 1.0),
                &unchanged,
                &format!("{what} f64"),
            );
        }
    }
}

/// `Modulus`'s `restrict(cpu, amp)` function: `%` of two `unsigned int`
/// arrays into a third.
#[kernel]
fn modulus_kernel(idx: Index<2>, a_c: &Array<u32, 2>, a_a: &Array<u32, 2>, a_b: &Array<u32, 2>) {
    a_c[idx] = a_a[idx] % a_b[idx];
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Expressions/BuiltInOperators/Multiplicative/Modulus/test.cpp`:
/// `%` on 1024x512 random `u32` pairs in a kernel function (divisors from 1
/// up, as the case's; magnitudes spread over every bit length).
#[test]
fn multiplicative_modulus() {
    const N: i32 = 1024;
    const M: i32 = 512;
    let size = (N * M) as usize;
    for (k, (view, what)) in default_views().into_iter().enumerate() {
        let mut rng = Rng::new(0xC2_0005 + k as u64);
        let spread = |rng: &mut Rng| {
            any_u32s(rng, size)
                .into_iter()
                .map(|v| v >> (v % 32))
                .collect::<Vec<u32>>()
        };
        let a = spread(&mut rng);
        let b: Vec<u32> = spread(&mut rng).into_iter().map(|v| v.max(1)).collect();
        let a_a = Array::from_slice([N, M], &a, &view).unwrap();
        let a_b = Array::from_slice([N, M], &b, &view).unwrap();
        let a_c = Array::from_slice([N, M], &vec![POISON_U32; size], &view).unwrap();
        parallel_for_each!(&view, a_a.extent(), |idx: Index<2>| {
            modulus_kernel(idx, &a_c, &a_a, &a_b);
        })
        .unwrap();
        let want: Vec<u32> = a.iter().zip(&b).map(|(&x, &y)| x % y).collect();
        assert_same(&a_c.to_vec().unwrap(), &want, &what);
    }
}

/// The tiled group sum shared by `Test.03/Switch/For` and
/// `Test.03/If/DoWhile`: 32 elements in tiles of 4.
mod group_sum_1d {
    use amp_core::prelude::*;
    use amp_core::{Number, kernel};

    pub(super) const SIZE: i32 = 32;
    pub(super) const GROUP_SIZE: i32 = 4;

    /// The tile's sum through `tile_static` memory, written by its first
    /// work item. A `T: Number` has no zero, so the sum starts from the
    /// tile's first element (the case's `ElementType sum = 0;`).
    #[kernel]
    pub(super) fn calculate_group_sum<T: Number>(
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
}

/// Runs a 1-D group-sum case for `int`, `unsigned`, `float` and `double`
/// (`long` and `unsigned long` are `int` and `unsigned` on the suite's
/// targets) on every accelerator: with `x_met` the sums of the groups come
/// back, with `x_unmet` the 100 that each tile's first work item wrote.
fn check_group_sums_1d(
    seed: u64,
    (x_met, x_unmet): (i32, i32),
    int: fn(&AcceleratorView, &[i32], i32, i32, i32) -> Vec<i32>,
    uint: fn(&AcceleratorView, &[u32], u32, u32, i32) -> Vec<u32>,
    float: fn(&AcceleratorView, &[f32], f32, f32, i32) -> Vec<f32>,
    double: fn(&AcceleratorView, &[f64], f64, f64, i32) -> Vec<f64>,
) {
    use group_sum_1d::{GROUP_SIZE, SIZE};
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(seed + k as u64);
        let a = i32s(&mut rng, SIZE as usize, 0, 100);
        let sums: Vec<i32> = a
            .chunks(GROUP_SIZE as usize)
            .map(|g| g.iter().sum())
            .collect();
        let groups = sums.len();
        for (x, met) in [(x_met, true), (x_unmet, false)] {
            let want: Vec<i32> = if met { sums.clone() } else { vec![100; groups] };
            let w = format!("{what} x={x}");
            assert_same(&int(&view, &a, 100, POISON_I32, x), &want, &w);
            let au: Vec<u32> = a.iter().map(|&v| v as u32).collect();
            let wu: Vec<u32> = want.iter().map(|&v| v as u32).collect();
            assert_same(&uint(&view, &au, 100, POISON_U32, x), &wu, &w);
            let af: Vec<f32> = a.iter().map(|&v| v as f32).collect();
            let wf: Vec<f32> = want.iter().map(|&v| v as f32).collect();
            assert_bits32(&float(&view, &af, 100.0, f32::NAN, x), &wf, &w);
            if view.accelerator().supports_double_precision() {
                let ad: Vec<f64> = a.iter().map(|&v| f64::from(v)).collect();
                let wd: Vec<f64> = want.iter().map(|&v| f64::from(v)).collect();
                let got = double(&view, &ad, 100.0, f64::NAN, x);
                assert_close64(&got, &wd, 0.0, 0.0, &w);
            }
        }
    }
}

/// `2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/Switch/For`,
/// laid out as the case (five `switch`es and five `for`s a line).
// The case's shape: `for (; x > k;)` loops on a captured value that every
// path leaves with `break` in their first iteration.
#[rustfmt::skip]
#[allow(clippy::never_loop, clippy::while_immutable_condition)]
mod switch_for {
    use amp_core::prelude::*;
    use amp_core::{Number, kernel};
    use super::group_sum_1d::{GROUP_SIZE, SIZE, calculate_group_sum};

    /// Ten nested `switch`es (`match`) and ten nested `for (; x > k;)`
    /// loops (`while`), all on `x`, around the call that waits on the
    /// tile's barrier.
    #[kernel]
    pub(super) fn kernel<T: Number>(idx: &TiledIndex<1>, fa: &Array<T, 1>, fb: &Array<T, 1>, hundred: T, x: i32) {
        let flat_local_index = idx.local[0];
        if flat_local_index == 0 {
            fb[idx.tile] = hundred;
        }
        match if x > 1 { 1 } else { 0 } { 0 => {} _ => match if x > 2 { 1 } else { 0 } { 0 => {} _ =>
        match if x > 3 { 1 } else { 0 } { 0 => {} _ => match if x > 4 { 1 } else { 0 } { 0 => {} _ =>
        match if x > 5 { 1 } else { 0 } { 0 => {} _ => match if x > 6 { 1 } else { 0 } { 0 => {} _ =>
        match if x > 7 { 1 } else { 0 } { 0 => {} _ => match if x > 8 { 1 } else { 0 } { 0 => {} _ =>
        match if x > 9 { 1 } else { 0 } { 0 => {} _ => match if x > 10 { 1 } else { 0 } { 0 => {} _ =>
        {
            while x > 11 { while x > 12 { while x > 13 { while x > 14 { while x > 15 {
                while x > 16 { while x > 17 { while x > 18 { while x > 19 { while x > 20 {
                    calculate_group_sum(idx, flat_local_index, fa, fb);
                    break; } break; } break; } break; } break; }
                break; } break; } break; } break; } break; }
        }
        }}}}}}}}}}
    }

    /// Copies `a` to an `Array`, launches `kernel` over it in tiles of
    /// `GROUP_SIZE` and returns the per-group results (poisoned first).
    // Runs in the CPU accelerator's threaded form (the macro's warning says why).
    #[allow(deprecated)]
    pub(super) fn run<T: Number>(view: &AcceleratorView, a: &[T], hundred: T, poison: T, x: i32) -> Vec<T> {
        let fa = Array::from_slice([SIZE], a, view).unwrap();
        let fb = Array::from_slice([SIZE / GROUP_SIZE], &[poison; (SIZE / GROUP_SIZE) as usize], view).unwrap();
        parallel_for_each!(view, fa.extent().tile::<GROUP_SIZE>().unwrap(), |idx: TiledIndex<1>| {
            kernel(&idx, &fa, &fb, hundred, x);
        })
        .unwrap();
        fb.to_vec().unwrap()
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/Switch/For/test.cpp`:
/// a tiled kernel calls a function that sums its tile through
/// `tile_static` memory and a barrier, from under ten nested `switch`es and
/// ten nested `for` loops on a captured value (met: `x = 36`; not met: the
/// case's second launch passes 18).
#[test]
fn control_flow_test03_switch_for() {
    check_group_sums_1d(
        0xC2_0006,
        (36, 18),
        switch_for::run::<i32>,
        switch_for::run::<u32>,
        switch_for::run::<f32>,
        switch_for::run::<f64>,
    );
}

/// `2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/If/DoWhile`,
/// laid out as the case (five `if`s and five `do`-`while`s a line).
// The case's shape: `do { .. break; } while (true)` loops that every path
// leaves in their first iteration.
#[rustfmt::skip]
#[allow(clippy::never_loop)]
mod if_do_while {
    use amp_core::prelude::*;
    use amp_core::{Number, kernel};
    use super::group_sum_1d::{GROUP_SIZE, SIZE, calculate_group_sum};

    /// Ten nested `if`s and ten nested `do { if (x <= k) break; .. }
    /// while (true)` loops (`loop`), all on `x`, around the call that
    /// waits on the tile's barrier.
    #[kernel]
    pub(super) fn kernel<T: Number>(idx: &TiledIndex<1>, fa: &Array<T, 1>, fb: &Array<T, 1>, hundred: T, x: i32) {
        let flat_local_index = idx.local[0];
        if flat_local_index == 0 {
            fb[idx.tile] = hundred;
        }
        if x > 1 { if x > 2 { if x > 3 { if x > 4 { if x > 5 {
        if x > 6 { if x > 7 { if x > 8 { if x > 9 { if x > 10 {
            loop { if x <= 11 { break; } loop { if x <= 12 { break; } loop { if x <= 13 { break; } loop { if x <= 14 { break; } loop { if x <= 15 { break; }
            loop { if x <= 16 { break; } loop { if x <= 17 { break; } loop { if x <= 18 { break; } loop { if x <= 19 { break; } loop { if x <= 20 { break; }
            calculate_group_sum(idx, flat_local_index, fa, fb);
            break; } break; } break; } break; } break; }
            break; } break; } break; } break; } break; }
        }}}}}
        }}}}}
    }

    /// Copies `a` to an `Array`, launches `kernel` over it in tiles of
    /// `GROUP_SIZE` and returns the per-group results (poisoned first).
    // Runs in the CPU accelerator's threaded form (the macro's warning says why).
    #[allow(deprecated)]
    pub(super) fn run<T: Number>(view: &AcceleratorView, a: &[T], hundred: T, poison: T, x: i32) -> Vec<T> {
        let fa = Array::from_slice([SIZE], a, view).unwrap();
        let fb = Array::from_slice([SIZE / GROUP_SIZE], &[poison; (SIZE / GROUP_SIZE) as usize], view).unwrap();
        parallel_for_each!(view, fa.extent().tile::<GROUP_SIZE>().unwrap(), |idx: TiledIndex<1>| {
            kernel(&idx, &fa, &fb, hundred, x);
        })
        .unwrap();
        fb.to_vec().unwrap()
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Statements/ControlFlow/Test.03/If/DoWhile/test.cpp`:
/// a tiled kernel calls a function that sums its tile through
/// `tile_static` memory and a barrier, from under ten nested `if`s and ten
/// nested `do`-`while` loops on a captured value (met: `x = 21`; not met:
/// `x = 20`).
#[test]
fn control_flow_test03_if_do_while() {
    check_group_sums_1d(
        0xC2_0017,
        (21, 20),
        if_do_while::run::<i32>,
        if_do_while::run::<u32>,
        if_do_while::run::<f32>,
        if_do_while::run::<f64>,
    );
}

/// `ThreadGroupCount.04`'s `test`: each work item of a tiled launch
/// increments, atomically, the counter of its tile's row (or column) of
/// tiles, along the longer dimension; every counter must end at
/// `expected`.
fn thread_group_count(view: &AcceleratorView, ext: TiledExtent<2>, expected: i32) -> bool {
    let mut vec = vec![0i32; 65535];
    let vec_view = ArrayView::new_mut([vec.len() as i32], &mut vec).unwrap();
    parallel_for_each!(view, ext, |tidx: TiledIndex<2>| {
        if ext.extent()[0] > ext.extent()[1] {
            atomic_fetch_inc(&vec_view[tidx.tile[0]]);
        } else {
            atomic_fetch_inc(&vec_view[tidx.tile[1]]);
        }
    })
    .unwrap();
    vec_view.synchronize().unwrap();
    drop(vec_view);
    vec.iter().all(|&v| v == expected)
}

/// Case `amp-conformance/Tests/7_para_for_each/ComputeDomainTiled/ThreadGroupCount.04/test.cpp`:
/// tiled launches with 65535 tiles in one dimension (2-D): one tile per
/// counter, 8 by 2 tiles of 2x2, and 3 by 2 tiles of 3x2.
#[test]
fn compute_domain_tiled_thread_group_count_04() {
    for (view, what) in default_views() {
        let tiles = |e: [i32; 2]| Extent::new(e);
        assert!(
            thread_group_count(&view, tiles([65535, 1]).tile::<1, 1>().unwrap(), 1),
            "{what} 65535x1 in 1x1"
        );
        assert!(
            thread_group_count(&view, tiles([8, 2 * 65535]).tile::<2, 2>().unwrap(), 8 * 2),
            "{what} 8x131070 in 2x2"
        );
        assert!(
            thread_group_count(&view, tiles([3 * 65535, 4]).tile::<3, 2>().unwrap(), 3 * 4),
            "{what} 196605x4 in 3x2"
        );
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Expressions/BuiltInOperators/Assignment/LeftShiftAssignment/test.cpp`:
/// `<<=` on the elements of an `array` by shift counts in `0..4` (the
/// case's `rand() % sizeof(int)`), from random non-negative values.
#[test]
fn left_shift_assignment() {
    const SIZE: usize = 10;
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(0xC2_0011 + k as u64);
        let a = i32s(&mut rng, SIZE, 0, 4);
        let mut b = i32s(&mut rng, SIZE, 0, i32::MAX);
        let a_a = Array::from_slice([SIZE as i32], &a, &view).unwrap();
        let a_b = Array::from_slice([SIZE as i32], &b, &view).unwrap();
        parallel_for_each!(&view, a_a.extent(), |idx: Index<1>| {
            a_b[idx] <<= a_a[idx];
        })
        .unwrap();
        for i in 0..SIZE {
            b[i] <<= a[i];
        }
        assert_same(&a_b.to_vec().unwrap(), &b, &what);
    }
}

/// `RelationalEquality.01`'s `restrict(cpu, amp)` function: each of `==`,
/// `>=`, `>`, `<=`, `<`, `!=` into a `bool`, then 1 or 0 into its own
/// `array`.
// The case's shape: `if (mc == true)`.
#[allow(clippy::too_many_arguments, clippy::bool_comparison)]
#[kernel]
fn kernel_with_relational_operators(
    idx: Index<2>,
    a_c: &Array<i32, 2>,
    a_d: &Array<i32, 2>,
    a_e: &Array<i32, 2>,
    a_f: &Array<i32, 2>,
    a_g: &Array<i32, 2>,
    a_h: &Array<i32, 2>,
    a_a: &Array<i32, 2>,
    a_b: &Array<i32, 2>,
) {
    let mc = a_a[idx] == a_b[idx];
    if mc == true {
        a_c[idx] = 1;
    } else {
        a_c[idx] = 0;
    }
    let md = a_a[idx] >= a_b[idx];
    if md == true {
        a_d[idx] = 1;
    } else {
        a_d[idx] = 0;
    }
    let me = a_a[idx] > a_b[idx];
    if me == true {
        a_e[idx] = 1;
    } else {
        a_e[idx] = 0;
    }
    let mf = a_a[idx] <= a_b[idx];
    if mf == true {
        a_f[idx] = 1;
    } else {
        a_f[idx] = 0;
    }
    let mg = a_a[idx] < a_b[idx];
    if mg == true {
        a_g[idx] = 1;
    } else {
        a_g[idx] = 0;
    }
    let mh = a_a[idx] != a_b[idx];
    if mh == true {
        a_h[idx] = 1;
    } else {
        a_h[idx] = 0;
    }
}

/// Case `amp-conformance/Tests/2_Cxx_Lang_Exte/2_x_general/Expressions/BuiltInOperators/RelationalEquality/RelationalEquality.01/test.cpp`:
/// the six relational and equality operators on 1024x512 random `i32`
/// pairs, in a kernel function with eight `array` parameters (values in
/// `0..8`, so that every operator sees equal, smaller and larger operands;
/// the case draws them from `rand()`).
#[test]
fn relational_equality_01() {
    const N: i32 = 1024;
    const M: i32 = 512;
    let size = (N * M) as usize;
    type Op = fn(i32, i32) -> bool;
    let ops: [(&str, Op); 6] = [
        ("==", |x, y| x == y),
        (">=", |x, y| x >= y),
        (">", |x, y| x > y),
        ("<=", |x, y| x <= y),
        ("<", |x, y| x < y),
        ("!=", |x, y| x != y),
    ];
    for (k, (view, what)) in default_views().into_iter().enumerate() {
        let mut rng = Rng::new(0xC2_0015 + k as u64);
        let a = i32s(&mut rng, size, 0, 8);
        let b = i32s(&mut rng, size, 0, 8);
        let a_a = Array::from_slice([N, M], &a, &view).unwrap();
        let a_b = Array::from_slice([N, M], &b, &view).unwrap();
        let poisoned = vec![POISON_I32; size];
        let out = || Array::from_slice([N, M], &poisoned, &view).unwrap();
        let (a_c, a_d, a_e, a_f, a_g, a_h) = (out(), out(), out(), out(), out(), out());
        parallel_for_each!(&view, a_a.extent(), |idx: Index<2>| {
            kernel_with_relational_operators(idx, &a_c, &a_d, &a_e, &a_f, &a_g, &a_h, &a_a, &a_b);
        })
        .unwrap();
        for (arr, (name, op)) in [a_c, a_d, a_e, a_f, a_g, a_h].iter().zip(ops) {
            let want: Vec<i32> = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| i32::from(op(x, y)))
                .collect();
            assert_same(&arr.to_vec().unwrap(), &want, &format!("{what} {name}"));
        }
    }
}

/// `extent_negative_size`'s `expect_exception`: a launch over `ext` must
/// fail with `invalid_compute_domain` (`Error::InvalidComputeDomain`).
fn expect_invalid_compute_domain<const N: usize>(view: &AcceleratorView, ext: Extent<N>) -> bool {
    let x = 7;
    let launched = parallel_for_each!(view, ext, |_idx: Index<N>| {
        let y = x;
        let _ = y;
    });
    matches!(launched, Err(Error::InvalidComputeDomain(_)))
}

/// Case `amp-conformance/Tests/7_para_for_each/ComputeDomain/Negative/extent_negative_size/test.cpp`:
/// launches over extents with a negative (or zero and negative) component,
/// at ranks 1, 2, 3 and 128, are refused with `InvalidComputeDomain`.
#[test]
fn compute_domain_extent_negative_size() {
    for (view, what) in all_views() {
        assert!(
            expect_invalid_compute_domain(&view, Extent::new([-1])),
            "{what}"
        );
        assert!(
            expect_invalid_compute_domain(&view, Extent::new([-2, 3])),
            "{what}"
        );
        assert!(
            expect_invalid_compute_domain(&view, Extent::new([-2, -2])),
            "{what}"
        );
        assert!(
            expect_invalid_compute_domain(&view, Extent::new([0, -1])),
            "{what}"
        );
        assert!(
            expect_invalid_compute_domain(&view, Extent::new([i32::MIN, i32::MIN])),
            "{what}"
        );
        assert!(
            expect_invalid_compute_domain(&view, Extent::new([8, -1, 8])),
            "{what}"
        );
        let mut dim_size = [-1; 128];
        assert!(
            expect_invalid_compute_domain(&view, Extent::new(dim_size)),
            "{what}"
        );
        dim_size = [2; 128];
        dim_size[70] = -2;
        assert!(
            expect_invalid_compute_domain(&view, Extent::new(dim_size)),
            "{what}"
        );
        dim_size = [i32::MIN; 128];
        assert!(
            expect_invalid_compute_domain(&view, Extent::new(dim_size)),
            "{what}"
        );
    }
}
