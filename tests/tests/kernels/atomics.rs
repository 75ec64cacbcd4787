//! Atomics (C++ AMP's `atomic_fetch_*`, `atomic_exchange`,
//! `atomic_compare_exchange`) on elements of captured views and of
//! `tile_static` arrays, on every accelerator in both queuing modes, against
//! the same computation in plain Rust on fresh random inputs with edge
//! values (0, -1, `i32::MIN`, `i32::MAX`, `u32::MAX`).
//!
//! Atomic results that depend on the order of the work items are checked
//! by what every order guarantees: the final values of commutative
//! operations, tickets that form a permutation, old values bounded by the
//! final one, and exchanged values that are all accounted for.

use crate::kernel_support::*;
use amp_core::prelude::*;
use amp_tests::Rng;
use amp_tests::amp_test;

/// Work items per test kernel, and the cells they share.
const N: usize = 4099;
const CELLS: usize = 37;

fn edge_i32s(rng: &mut Rng, n: usize) -> Vec<i32> {
    let mut v = any_i32s(rng, n);
    for (k, e) in [0, -1, 1, i32::MIN, i32::MAX].into_iter().enumerate() {
        v[k * 7] = e;
    }
    v
}

fn edge_u32s(rng: &mut Rng, n: usize) -> Vec<u32> {
    let mut v = any_u32s(rng, n);
    for (k, e) in [0, 1, u32::MAX, 1 << 31].into_iter().enumerate() {
        v[k * 5] = e;
    }
    v
}

/// A histogram: `atomic_fetch_inc` on random bins. The tickets each work
/// item gets back are, bin by bin, a permutation of `0..count`: no two work
/// items saw the same old value.
#[amp_test]
fn histogram_tickets_are_unique() {
    for (k, (view, label)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(8100 + k as u64);
        let bins = i32s(&mut rng, N, 0, CELLS as i32);
        let mut hist = vec![0u32; CELLS];
        let mut tickets = vec![POISON_U32; N];
        {
            let b = ArrayView::from_slice(&bins).unwrap();
            let h = ArrayView::from_slice_mut(&mut hist).unwrap();
            let t = ArrayView::from_slice_mut(&mut tickets).unwrap();
            t.discard_data();
            parallel_for_each!(view, b.extent(), |i: Index<1>| {
                t[i] = atomic_fetch_inc(&h[[b[i]]]);
            })
            .unwrap();
            t.synchronize().unwrap();
            h.synchronize().unwrap();
        }
        let mut counts = vec![0u32; CELLS];
        let mut seen = vec![Vec::new(); CELLS];
        for (i, &bin) in bins.iter().enumerate() {
            counts[bin as usize] += 1;
            seen[bin as usize].push(tickets[i]);
        }
        assert_same(&hist, &counts, &label);
        for (bin, mut s) in seen.into_iter().enumerate() {
            s.sort_unstable();
            let want: Vec<u32> = (0..s.len() as u32).collect();
            assert_eq!(s, want, "{label}: tickets of bin {bin}");
        }
    }
}

/// Runs `op` of every work item `i` on cell `i % CELLS` of `cells` with
/// `vals[i]`, on `view`; returns the cells and the old values.
macro_rules! run_op {
    ($view:expr, $init:expr, $vals:expr, $f:ident) => {{
        let mut cells = $init.clone();
        let mut olds = vec![Default::default(); $vals.len()];
        {
            let v = ArrayView::from_slice(&$vals).unwrap();
            let c = ArrayView::from_slice_mut(&mut cells).unwrap();
            let o = ArrayView::from_slice_mut(&mut olds).unwrap();
            o.discard_data();
            let m = CELLS as i32;
            parallel_for_each!($view, v.extent(), |i: Index<1>| {
                o[i] = $f(&c[[i[0] % m]], v[i]);
            })
            .unwrap();
            c.synchronize().unwrap();
            o.synchronize().unwrap();
        }
        (cells, olds)
    }};
}

/// The cells after applying `f` in order (the final value of a commutative
/// operation is the same in every order).
fn fold_cells<T: Copy>(init: &[T], vals: &[T], f: impl Fn(T, T) -> T) -> Vec<T> {
    let mut cells = init.to_vec();
    for (i, &v) in vals.iter().enumerate() {
        cells[i % CELLS] = f(cells[i % CELLS], v);
    }
    cells
}

/// Every old value a work item got back is a value its cell held, as far
/// as the operation's order lets a test tell: `check(old, final)`.
fn check_olds<T: Copy + std::fmt::Debug>(
    olds: &[T],
    cells: &[T],
    what: &str,
    check: impl Fn(T, T) -> bool,
) {
    for (i, &old) in olds.iter().enumerate() {
        assert!(
            check(old, cells[i % CELLS]),
            "{what}: work item {i} got back {old:?}, cell ends {:?}",
            cells[i % CELLS]
        );
    }
}

#[amp_test]
fn integer_operations_match_rust() {
    for (k, (view, label)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(8200 + k as u64);
        let vals = edge_i32s(&mut rng, N);
        let init = edge_i32s(&mut rng, CELLS);
        let what = |op: &str| format!("{label} i32 {op}");

        let (cells, _) = run_op!(view, init, vals, atomic_fetch_add);
        assert_same(
            &cells,
            &fold_cells(&init, &vals, i32::wrapping_add),
            &what("add"),
        );
        let (cells, _) = run_op!(view, init, vals, atomic_fetch_sub);
        assert_same(
            &cells,
            &fold_cells(&init, &vals, i32::wrapping_sub),
            &what("sub"),
        );
        let (cells, olds) = run_op!(view, init, vals, atomic_fetch_and);
        assert_same(
            &cells,
            &fold_cells(&init, &vals, |a, b| a & b),
            &what("and"),
        );
        check_olds(&olds, &cells, &what("and"), |old, end| old & end == end);
        let (cells, olds) = run_op!(view, init, vals, atomic_fetch_or);
        assert_same(&cells, &fold_cells(&init, &vals, |a, b| a | b), &what("or"));
        check_olds(&olds, &cells, &what("or"), |old, end| old | end == end);
        let (cells, _) = run_op!(view, init, vals, atomic_fetch_xor);
        assert_same(
            &cells,
            &fold_cells(&init, &vals, |a, b| a ^ b),
            &what("xor"),
        );
        let (cells, olds) = run_op!(view, init, vals, atomic_fetch_min);
        assert_same(&cells, &fold_cells(&init, &vals, i32::min), &what("min"));
        check_olds(&olds, &cells, &what("min"), |old, end| old >= end);
        let (cells, olds) = run_op!(view, init, vals, atomic_fetch_max);
        assert_same(&cells, &fold_cells(&init, &vals, i32::max), &what("max"));
        check_olds(&olds, &cells, &what("max"), |old, end| old <= end);
    }
}

#[amp_test]
fn unsigned_operations_match_rust() {
    for (k, (view, label)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(8300 + k as u64);
        let vals = edge_u32s(&mut rng, N);
        let init = edge_u32s(&mut rng, CELLS);
        let what = |op: &str| format!("{label} u32 {op}");

        let (cells, _) = run_op!(view, init, vals, atomic_fetch_add);
        assert_same(
            &cells,
            &fold_cells(&init, &vals, u32::wrapping_add),
            &what("add"),
        );
        let (cells, _) = run_op!(view, init, vals, atomic_fetch_sub);
        assert_same(
            &cells,
            &fold_cells(&init, &vals, u32::wrapping_sub),
            &what("sub"),
        );
        let (cells, _) = run_op!(view, init, vals, atomic_fetch_xor);
        assert_same(
            &cells,
            &fold_cells(&init, &vals, |a, b| a ^ b),
            &what("xor"),
        );
        let (cells, olds) = run_op!(view, init, vals, atomic_fetch_min);
        assert_same(&cells, &fold_cells(&init, &vals, u32::min), &what("min"));
        check_olds(&olds, &cells, &what("min"), |old, end| old >= end);
        let (cells, olds) = run_op!(view, init, vals, atomic_fetch_max);
        assert_same(&cells, &fold_cells(&init, &vals, u32::max), &what("max"));
        check_olds(&olds, &cells, &what("max"), |old, end| old <= end);
        let (cells, olds) = run_op!(view, init, vals, atomic_fetch_or);
        assert_same(&cells, &fold_cells(&init, &vals, |a, b| a | b), &what("or"));
        check_olds(&olds, &cells, &what("or"), |old, end| old | end == end);
    }
}

/// `atomic_exchange` (`i32` and `f32`): every value put in comes out once,
/// either as some work item's old value or as a cell's final value.
#[amp_test]
fn exchange_loses_no_value() {
    fn accounted<T: Copy + PartialOrd + std::fmt::Debug>(
        init: &[T],
        vals: &[T],
        cells: &[T],
        olds: &[T],
        what: &str,
    ) {
        for c in 0..CELLS {
            let mut put: Vec<T> = std::iter::once(init[c])
                .chain(vals.iter().skip(c).step_by(CELLS).copied())
                .collect();
            let mut out: Vec<T> = std::iter::once(cells[c])
                .chain(olds.iter().skip(c).step_by(CELLS).copied())
                .collect();
            put.sort_by(|a, b| a.partial_cmp(b).unwrap());
            out.sort_by(|a, b| a.partial_cmp(b).unwrap());
            assert_eq!(out, put, "{what}: cell {c}");
        }
    }
    for (k, (view, label)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(8400 + k as u64);
        let vals = edge_i32s(&mut rng, N);
        let init = edge_i32s(&mut rng, CELLS);
        let (cells, olds) = run_op!(view, init, vals, atomic_exchange);
        accounted(&init, &vals, &cells, &olds, &format!("{label} i32"));

        let vals = f32s(&mut rng, N, -1e30, 1e30);
        let init = f32s(&mut rng, CELLS, -1.0, 1.0);
        let (cells, olds) = run_op!(view, init, vals, atomic_exchange);
        accounted(&init, &vals, &cells, &olds, &format!("{label} f32"));
    }
}

/// `f32` add and sub (a compare-exchange loop on GPUs): integer-valued
/// operands, so that every order gives the exact sum.
#[amp_test]
fn float_add_and_sub_are_exact_on_integers() {
    for (k, (view, label)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(8500 + k as u64);
        let vals: Vec<f32> = i32s(&mut rng, N, -1000, 1000)
            .into_iter()
            .map(|v| v as f32)
            .collect();
        let init: Vec<f32> = i32s(&mut rng, CELLS, -1000, 1000)
            .into_iter()
            .map(|v| v as f32)
            .collect();
        let (cells, olds) = run_op!(view, init, vals, atomic_fetch_add);
        assert_bits32(&cells, &fold_cells(&init, &vals, |a, b| a + b), &label);
        assert!(olds.iter().all(|o| o.fract() == 0.0), "{label}: olds");
        let (cells, _) = run_op!(view, init, vals, atomic_fetch_sub);
        assert_bits32(&cells, &fold_cells(&init, &vals, |a, b| a - b), &label);
    }
}

/// `atomic_compare_exchange` in a retry loop makes an atomic maximum of
/// `i32` (through `expected`, which a failed exchange updates), next to
/// plain reads of the same view; a first guess that is wrong on purpose
/// (`i32::MIN + 1`) must fail and be corrected. The count of failed
/// exchanges of each work item is written, so every element is checked.
#[amp_test]
fn compare_exchange_builds_a_maximum() {
    for (k, (view, label)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(8600 + k as u64);
        let vals = edge_i32s(&mut rng, N);
        let init = vec![i32::MIN; CELLS];
        let mut cells = init.clone();
        let mut fails = vec![POISON_I32; N];
        {
            let v = ArrayView::from_slice(&vals).unwrap();
            let c = ArrayView::from_slice_mut(&mut cells).unwrap();
            let f = ArrayView::from_slice_mut(&mut fails).unwrap();
            let m = CELLS as i32;
            parallel_for_each!(view, v.extent(), |i: Index<1>| {
                let cell = i[0] % m;
                let mut expected = i32::MIN + 1;
                let mut failed = 0;
                loop {
                    let want = if v[i] > expected { v[i] } else { expected };
                    if atomic_compare_exchange(&c[[cell]], &mut expected, want) {
                        break;
                    }
                    failed += 1;
                }
                // A plain read of memory that atomics touch.
                if c[[cell]] < v[i] {
                    failed = -1;
                }
                f[i] = failed;
            })
            .unwrap();
            c.synchronize().unwrap();
            f.synchronize().unwrap();
        }
        assert_same(&cells, &fold_cells(&init, &vals, i32::max), &label);
        // Every cell starts at i32::MIN, so every first guess fails once.
        for (i, &f) in fails.iter().enumerate() {
            assert!(f >= 1, "{label}: work item {i} failed {f} times");
        }
    }
}

/// Atomics on a `tile_static` array: a per-tile histogram (plain stores to
/// clear it, atomic increments, plain reads after a barrier) added into a
/// global one with `atomic_fetch_add`, in the CPU accelerator's split form
/// and in its threaded form (a local used across a barrier and declared
/// twice sends the kernel there).
#[amp_test]
fn tile_static_histograms() {
    const T: i32 = 64;
    const BINS: i32 = 16;
    let n = T * 20;
    for (k, (view, label)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(8700 + k as u64);
        let data = i32s(&mut rng, n as usize, 0, BINS);
        let mut want = vec![0u32; BINS as usize];
        data.iter().for_each(|&b| want[b as usize] += 1);
        for threaded in [false, true] {
            let mut hist = vec![0u32; BINS as usize];
            let mut own = vec![POISON_U32; n as usize];
            {
                let d = ArrayView::from_slice(&data).unwrap();
                let h = ArrayView::from_slice_mut(&mut hist).unwrap();
                let o = ArrayView::from_slice_mut(&mut own).unwrap();
                let domain = d.extent().tile::<T>().unwrap();
                if threaded {
                    parallel_for_each!(view, domain, |t: TiledIndex<1>| {
                        tile_static! { let part: [u32; BINS]; }
                        let l = t.local[0];
                        if l < BINS {
                            part[l] = 0;
                        }
                        t.barrier.wait();
                        let v = d[t.global];
                        atomic_fetch_add(&part[v], 1u32);
                        t.barrier.wait();
                        let v = part[v];
                        o[t.global] = v;
                        if l < BINS {
                            atomic_fetch_add(&h[[l]], part[l]);
                        }
                    })
                    .unwrap();
                } else {
                    parallel_for_each!(view, domain, |t: TiledIndex<1>| {
                        tile_static! { let part: [u32; BINS]; }
                        let l = t.local[0];
                        if l < BINS {
                            part[l] = 0;
                        }
                        t.barrier.wait();
                        let bin = d[t.global];
                        atomic_fetch_inc(&part[bin]);
                        t.barrier.wait();
                        o[t.global] = part[bin];
                        if l < BINS {
                            atomic_fetch_add(&h[[l]], part[l]);
                        }
                    })
                    .unwrap();
                }
                h.synchronize().unwrap();
                o.synchronize().unwrap();
            }
            let what = format!("{label} threaded={threaded}");
            assert_same(&hist, &want, &what);
            for (g, &count) in own.iter().enumerate() {
                let tile = g / T as usize;
                let bin = data[g];
                let in_tile = data[tile * T as usize..(tile + 1) * T as usize]
                    .iter()
                    .filter(|&&b| b == bin)
                    .count();
                assert_eq!(count as usize, in_tile, "{what}: element {g}");
            }
        }
    }
}

/// Plain writes and compound assignments to a view that atomics also touch
/// in the same kernel (its WGSL binding is atomic: every access is an
/// atomic built-in).
#[amp_test]
fn mixed_plain_and_atomic_access() {
    for (k, (view, label)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(8800 + k as u64);
        let x = i32s(&mut rng, N, -1000, 1000);
        let mut out = vec![POISON_I32; N];
        let mut total = vec![0i32; 1];
        {
            let xv = ArrayView::from_slice(&x).unwrap();
            let o = ArrayView::from_slice_mut(&mut out).unwrap();
            let t = ArrayView::from_slice_mut(&mut total).unwrap();
            o.discard_data();
            parallel_for_each!(view, xv.extent(), |i: Index<1>| {
                o[i] = xv[i];
                o[i] *= 3;
                o[i] += 1;
                let before = atomic_fetch_add(&o[i], 2);
                atomic_fetch_add(&t[[0]], before - o[i] + 2);
            })
            .unwrap();
            o.synchronize().unwrap();
            t.synchronize().unwrap();
        }
        let want: Vec<i32> = x.iter().map(|v| v * 3 + 3).collect();
        assert_same(&out, &want, &label);
        assert_eq!(total, [0], "{label}");
    }
}

/// Subgroup operations (beyond C++ AMP): each work item records its lane,
/// the subgroup size, the first lane's work item (`subgroup_broadcast`),
/// and the subgroup's sum, minimum, maximum and ballot of its random input.
/// The host groups the work items by their first lane's id and checks each
/// group against its members' inputs. GPUs without `SUBGROUP` refuse the
/// launch with `UnsupportedFeature`; the CPU accelerator has subgroups of
/// one.
#[amp_test]
fn subgroup_operations_combine_the_work_items_of_a_subgroup() {
    const N: i32 = 1024;
    let mut rng = Rng::new(0x5B6_0001);
    for (view, what) in all_views() {
        let xs: Vec<u32> = (0..N).map(|_| rng.range(0, 100_000) as u32).collect();
        let mut rec = vec![[POISON_U32; 10]; N as usize];
        let launched = {
            let x = ArrayView::new([N], &xs).unwrap();
            let r = ArrayView::new_mut([N], &mut rec).unwrap();
            parallel_for_each!(&view, r.extent(), |i: Index<1>| {
                let v = x[i];
                let ballot = subgroup_ballot(v % 2 == 0);
                r[i] = [
                    subgroup_lane(),
                    subgroup_size(),
                    subgroup_broadcast(i[0] as u32, 0u32),
                    subgroup_add(v),
                    subgroup_min(v),
                    subgroup_max(v),
                    ballot.x,
                    ballot.y,
                    ballot.z,
                    ballot.w,
                ];
            })
        };
        match launched {
            Ok(()) => {}
            Err(Error::UnsupportedFeature { feature, .. }) => {
                assert!(feature.contains("SUBGROUP"), "{what}: {feature}");
                assert!(!view.accelerator().is_cpu(), "{what}");
                continue;
            }
            Err(e) => panic!("{what}: {e}"),
        }
        let mut groups: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
        for (i, r) in rec.iter().enumerate() {
            groups.entry(r[2]).or_default().push(i);
        }
        for (first, members) in &groups {
            let size = rec[members[0]][1];
            assert!(size.is_power_of_two() && size <= 128, "{what}: size {size}");
            if view.accelerator().is_cpu() {
                assert_eq!(size, 1, "{what}");
            }
            assert_eq!(members.len() as u32, size, "{what}: subgroup of {first}");
            let mut lanes: Vec<u32> = members.iter().map(|&m| rec[m][0]).collect();
            lanes.sort_unstable();
            assert_eq!(
                lanes,
                (0..size).collect::<Vec<_>>(),
                "{what}: subgroup of {first}"
            );
            let lane0 = members.iter().find(|&&m| rec[m][0] == 0).unwrap();
            assert_eq!(*lane0 as u32, *first, "{what}");
            let vals: Vec<u32> = members.iter().map(|&m| xs[m]).collect();
            let sum = vals.iter().fold(0u32, |a, &b| a.wrapping_add(b));
            let mut ballot = [0u32; 4];
            for &m in members {
                if xs[m].is_multiple_of(2) {
                    let lane = rec[m][0];
                    ballot[(lane / 32) as usize] |= 1 << (lane % 32);
                }
            }
            for &m in members {
                assert_eq!(rec[m][1], size, "{what}: {m}");
                assert_eq!(rec[m][3], sum, "{what}: {m}");
                assert_eq!(rec[m][4], *vals.iter().min().unwrap(), "{what}: {m}");
                assert_eq!(rec[m][5], *vals.iter().max().unwrap(), "{what}: {m}");
                assert_eq!(&rec[m][6..10], &ballot[..], "{what}: {m}");
            }
        }
    }
}

/// `atomic_fetch_inc(&mut h[[bin]]);` as a statement of its own stays an
/// atomic on the element (a `&mut` element argument of other functions is
/// copied in and out; an atomic's never is): every count exact, with many
/// work items per bin.
#[amp_test]
fn atomics_through_mut_element_statements_stay_atomic() {
    for (k, (view, what)) in all_views().into_iter().enumerate() {
        let mut rng = Rng::new(0xA70 + k as u64);
        let n = 20_000usize;
        let vals = any_u32s(&mut rng, n);
        let mut hist = vec![0u32; 8];
        {
            let v = ArrayView::new([n as i32], &vals).unwrap();
            let h = ArrayView::new_mut([8], &mut hist).unwrap();
            parallel_for_each!(&view, v.extent(), |idx: Index<1>| {
                let bin = (v[idx] % 8) as i32;
                atomic_fetch_inc(&mut h[[bin]]);
            })
            .unwrap();
        }
        let mut want = vec![0u32; 8];
        for &x in &vals {
            want[(x % 8) as usize] += 1;
        }
        assert_eq!(hist, want, "{what}");
    }
}
