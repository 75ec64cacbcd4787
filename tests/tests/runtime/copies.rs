//! `copy` and `copy_async` (C++ AMP `concurrency::copy` / `copy_async`, spec
//! chapter 5; CONFORMANCE.md, "Containers") in every direction: array to
//! array on one accelerator and across accelerators, view to array, array to
//! view, slice to array, array to slice, view to slice, slice to view and
//! view to view, with sections (strided) and read-only views among the
//! sources and targets; synchronously, by waiting, by `block_on` and with a
//! continuation (`then`). Mismatched extents or lengths are errors that
//! write nothing. Copies between ranks or element types do not compile
//! (`tests/ui/copy_*.rs`).
//!
//! Every case runs on every accelerator of `amp_tests::accelerators()`, on
//! pseudo-random data, with destinations poisoned beforehand.

use std::sync::mpsc;
use std::time::Duration;

use amp_core::{
    Accelerator, AcceleratorView, Array, ArrayView, CopySource, CopyTarget, Element, Error,
    QueuingMode, copy, copy_async,
};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

const POISON: i32 = 0x5EAD_BEEF;

/// How a copy is issued and completed.
#[derive(Clone, Copy, Debug)]
enum How {
    Sync,
    AsyncWait,
    AsyncBlockOn,
    AsyncThen,
}

const HOWS: [How; 4] = [How::Sync, How::AsyncWait, How::AsyncBlockOn, How::AsyncThen];

fn do_copy<T, const N: usize, S, D>(how: How, src: &S, dst: &mut D) -> amp_core::Result<()>
where
    T: Element,
    S: CopySource<T, N> + ?Sized,
    D: CopyTarget<T, N> + ?Sized,
{
    match how {
        How::Sync => copy(src, dst),
        How::AsyncWait => {
            let done = copy_async(src, dst)?;
            done.wait()?;
            assert!(done.is_ready());
            Ok(())
        }
        How::AsyncBlockOn => futures::executor::block_on(copy_async(src, dst)?),
        How::AsyncThen => {
            let done = copy_async(src, dst)?;
            let (tx, rx) = mpsc::channel();
            done.then(move |r| tx.send(r).unwrap());
            let result = rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the continuation runs");
            assert!(
                rx.recv_timeout(Duration::from_millis(5)).is_err(),
                "the continuation runs once"
            );
            assert!(done.is_ready());
            result
        }
    }
}

fn random_i32(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n).map(|_| rng.next_u64() as i32).collect()
}

/// Row-major offsets of the section at `origin` of extent `ext` in a 2-D
/// source `cols` wide.
fn block(cols: i32, origin: [i32; 2], ext: [i32; 2]) -> Vec<usize> {
    let mut out = Vec::new();
    for r in 0..ext[0] {
        for c in 0..ext[1] {
            out.push(((origin[0] + r) * cols + origin[1] + c) as usize);
        }
    }
    out
}

fn fresh_views(acc: &Accelerator) -> [AcceleratorView; 2] {
    [
        acc.create_view(QueuingMode::Automatic),
        acc.create_view(QueuingMode::Immediate),
    ]
}

// ---------------------------------------------------------------------------
// Array to array

#[amp_test]
fn array_to_array_on_one_accelerator_copies_on_the_device() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in fresh_views(&acc) {
            for how in HOWS {
                let mut rng = Rng::new(5000 + k as u64);
                let (rows, cols) = (rng.range(1, 50), rng.range(1, 50));
                let n = (rows * cols) as usize;
                let data = random_i32(&mut rng, n);
                let a = Array::from_slice([rows, cols], &data, &view).unwrap();
                let mut b = Array::from_slice([rows, cols], &vec![POISON; n], &view).unwrap();
                // A host write into the target before the copy is superseded.
                b.set([0, 0], 7).unwrap();
                let t0 = view.transfers();
                do_copy(how, &a, &mut b).unwrap();
                assert_eq!(view.transfers(), t0, "{acc} {how:?}: no host transfer");
                assert_eq!(b.to_vec().unwrap(), data, "{acc} {how:?}");
                assert_eq!(a.to_vec().unwrap(), data, "{acc} {how:?}: source unchanged");
                let t = view.transfers();
                assert_eq!(
                    (
                        t.downloads - t0.downloads,
                        t.bytes_downloaded - t0.bytes_downloaded
                    ),
                    (2, 2 * n as u64 * 4),
                    "{acc} {how:?}: each array read back once"
                );
            }
        }
    }
}

#[amp_test]
fn array_copies_include_host_writes_and_ignore_later_ones() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(5100 + k as u64);
        let n = 1000;
        let data = random_i32(&mut rng, n);
        let a = Array::from_slice([n as i32], &data, &view).unwrap();
        let mut b = Array::<i32, 1>::new([n as i32], &view).unwrap();
        // Written on the host before the copy: part of it.
        let mut want = data.clone();
        want[3] = 33;
        a.set([3], 33).unwrap();
        let done = copy_async(&a, &mut b).unwrap();
        // Written on the host after the copy was issued: not part of it.
        a.set([4], 44).unwrap();
        done.wait().unwrap();
        assert_eq!(b.to_vec().unwrap(), want, "{acc}");
        want[4] = 44;
        assert_eq!(a.to_vec().unwrap(), want, "{acc}");
        // A copy still pending in an automatic batch is seen by the next read.
        let mut c = Array::<i32, 1>::new([n as i32], &view).unwrap();
        let _pending = copy_async(&b, &mut c).unwrap();
        let mut out = vec![POISON; n];
        copy(&c, &mut out[..]).unwrap();
        want[4] = data[4];
        assert_eq!(out, want, "{acc}");
        // Clones and copy_to are copies too.
        let d = c.try_clone().unwrap();
        let mut e = Array::<i32, 1>::new([n as i32], &view).unwrap();
        d.copy_to(&mut e).unwrap();
        assert_eq!(e.to_vec().unwrap(), want, "{acc}");
    }
}

#[test]
fn array_to_array_across_accelerators() {
    let accs = accelerators();
    for (i, from) in accs.iter().enumerate() {
        for (j, to) in accs.iter().enumerate() {
            if i == j {
                continue;
            }
            for how in HOWS {
                let mut rng = Rng::new(5200 + 10 * i as u64 + j as u64);
                let dims = [rng.range(1, 9), rng.range(1, 9), rng.range(1, 9)];
                let n = (dims[0] * dims[1] * dims[2]) as usize;
                let data: Vec<f32> = (0..n)
                    .map(|_| rng.range(-1 << 20, 1 << 20) as f32)
                    .collect();
                let a = Array::from_slice(dims, &data, &from.default_view()).unwrap();
                let mut b =
                    Array::from_slice(dims, &vec![f32::NAN; n], &to.default_view()).unwrap();
                do_copy(how, &a, &mut b).unwrap();
                assert_eq!(b.to_vec().unwrap(), data, "{from} -> {to} {how:?}");
                assert_eq!(b.accelerator_view().accelerator(), to);
                assert_eq!(
                    a.to_vec().unwrap(),
                    data,
                    "{from} -> {to}: source unchanged"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Host slices

#[amp_test]
fn slice_to_array_and_array_to_slice() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in fresh_views(&acc) {
            for how in HOWS {
                let mut rng = Rng::new(5300 + k as u64);
                let n = rng.range(1, 5000) as usize;
                let data: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
                let mut a = Array::<u32, 2>::new([1, n as i32], &view).unwrap();
                do_copy(how, &data[..], &mut a).unwrap();
                let mut out = vec![POISON as u32; n];
                do_copy(how, &a, &mut out[..]).unwrap();
                assert_eq!(out, data, "{acc} {how:?}");
                assert_eq!(a.get([0, n as i32 - 1]).unwrap(), data[n - 1]);
            }
        }
    }
}

#[amp_test]
fn view_to_slice_and_slice_to_view() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for how in HOWS {
            let mut rng = Rng::new(5400 + k as u64);
            let (rows, cols) = (12, 17);
            let input = random_i32(&mut rng, (rows * cols) as usize);
            let (origin, ext) = ([3, 4], [5, 6]);
            let at = block(cols, origin, ext);
            // A strided section of a read-only view to a slice.
            let src = ArrayView::new([rows, cols], &input).unwrap();
            let mut out = vec![POISON; 30];
            do_copy(how, &src.section(origin, ext).unwrap(), &mut out[..]).unwrap();
            let want: Vec<i32> = at.iter().map(|&w| input[w]).collect();
            assert_eq!(out, want, "{acc} {how:?}");
            // A slice into a strided section of a writable view whose data is
            // on an accelerator: the copy supersedes it, the rest is kept.
            let fresh = random_i32(&mut rng, 30);
            let mut data = input.clone();
            {
                let dv = ArrayView::new_mut([rows, cols], &mut data).unwrap();
                dv.synchronize_to(&acc.default_view()).unwrap();
                let mut s = dv.section(origin, ext).unwrap();
                do_copy(how, &fresh[..], &mut s).unwrap();
                assert_eq!(s.to_vec().unwrap(), fresh, "{acc} {how:?}");
            }
            let mut want = input.clone();
            for (&w, &x) in at.iter().zip(&fresh) {
                want[w] = x;
            }
            assert_eq!(data, want, "{acc} {how:?}");
        }
    }
}

// ---------------------------------------------------------------------------
// Views and arrays

#[amp_test]
fn view_to_array_and_array_to_view() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in fresh_views(&acc) {
            for how in HOWS {
                let mut rng = Rng::new(5500 + k as u64);
                let (rows, cols) = (rng.range(2, 20), rng.range(2, 20));
                let input = random_i32(&mut rng, (rows * cols) as usize);
                let ext = [rows - 1, cols - 1];
                let at = block(cols, [1, 1], ext);
                let section_data: Vec<i32> = at.iter().map(|&w| input[w]).collect();
                // Read-only view, strided section, view with no data source
                // and a view of another array: each into an array.
                let ro = ArrayView::new([rows, cols], &input).unwrap();
                let mut a = Array::<i32, 2>::new([rows, cols], &view).unwrap();
                do_copy(how, &ro, &mut a).unwrap();
                assert_eq!(a.to_vec().unwrap(), input, "{acc} {how:?} read-only");
                let mut s = Array::<i32, 2>::new(ext, &view).unwrap();
                do_copy(how, &ro.section([1, 1], ext).unwrap(), &mut s).unwrap();
                assert_eq!(s.to_vec().unwrap(), section_data, "{acc} {how:?} section");
                let none = ArrayView::<i32, 2>::with_extent([rows, cols]).unwrap();
                copy(&input[..], &mut none.clone()).unwrap();
                let mut b = Array::<i32, 2>::new([rows, cols], &view).unwrap();
                do_copy(how, &none, &mut b).unwrap();
                assert_eq!(b.to_vec().unwrap(), input, "{acc} {how:?} no source");
                let mut c = Array::<i32, 2>::new(ext, &view).unwrap();
                do_copy(how, &a.section([1, 1], ext).unwrap(), &mut c).unwrap();
                assert_eq!(
                    c.to_vec().unwrap(),
                    section_data,
                    "{acc} {how:?} array section"
                );
                // Array into a writable view, and into a strided section.
                let mut out = vec![POISON; (rows * cols) as usize];
                {
                    let mut ov = ArrayView::new_mut([rows, cols], &mut out).unwrap();
                    do_copy(how, &a, &mut ov).unwrap();
                }
                assert_eq!(out, input, "{acc} {how:?} into a view");
                let mut out = vec![POISON; (rows * cols) as usize];
                {
                    let ov = ArrayView::new_mut([rows, cols], &mut out).unwrap();
                    do_copy(how, &c, &mut ov.section([1, 1], ext).unwrap()).unwrap();
                }
                for (w, x) in out.iter().enumerate() {
                    let want = at
                        .iter()
                        .position(|&p| p == w)
                        .map_or(POISON, |i| section_data[i]);
                    assert_eq!(*x, want, "{acc} {how:?} into a section, word {w}");
                }
            }
        }
    }
}

#[test]
fn view_to_view() {
    let accs = accelerators();
    for (k, acc) in accs.iter().enumerate() {
        for how in HOWS {
            let mut rng = Rng::new(5600 + k as u64);
            let (rows, cols) = (10, 14);
            let input = random_i32(&mut rng, (rows * cols) as usize);
            let ext = [4, 9];
            let (from, to) = ([2, 3], [5, 1]);
            // The source's data lives only on an accelerator (a device copy
            // between arrays), the target's on another one.
            let a = Array::from_slice([rows, cols], &input, &acc.default_view()).unwrap();
            let b = a.try_clone().unwrap();
            let other = &accs[(k + 1) % accs.len()];
            let mut out = vec![POISON; (rows * cols) as usize];
            {
                let ov = ArrayView::new_mut([rows, cols], &mut out).unwrap();
                ov.synchronize_to(&other.default_view()).unwrap();
                let mut target = ov.section(to, ext).unwrap();
                do_copy(how, &b.section(from, ext).unwrap(), &mut target).unwrap();
                // Whole view to whole view (read-only to writable).
                let ro = ArrayView::new([rows, cols], &input).unwrap();
                let mut all = ArrayView::<i32, 2>::with_extent([rows, cols]).unwrap();
                do_copy(how, &ro, &mut all).unwrap();
                assert_eq!(all.to_vec().unwrap(), input, "{acc} {how:?}");
            }
            let src = block(cols, from, ext);
            let dst = block(cols, to, ext);
            for (w, x) in out.iter().enumerate() {
                let want = dst
                    .iter()
                    .position(|&p| p == w)
                    .map_or(POISON, |i| input[src[i]]);
                assert_eq!(*x, want, "{acc} -> {other} {how:?} word {w}");
            }
        }
    }
}

#[amp_test]
fn a_copy_into_a_view_makes_accelerator_copies_stale() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(5700 + k as u64);
        let n = 256;
        let input = random_i32(&mut rng, n);
        let fresh = random_i32(&mut rng, 64);
        let mut data = input.clone();
        {
            let dv = ArrayView::new_mut([n as i32], &mut data).unwrap();
            dv.synchronize_to(&view).unwrap();
            dv.synchronize_to(&view).unwrap();
            let t0 = view.transfers();
            assert_eq!((t0.uploads, t0.bytes_uploaded), (1, n as u64 * 4));
            copy(&fresh[..], &mut dv.section([100], [64]).unwrap()).unwrap();
            dv.synchronize_to(&view).unwrap();
            let t = view.transfers();
            assert_eq!(
                (t.uploads - t0.uploads, t.bytes_uploaded - t0.bytes_uploaded),
                (1, 64 * 4),
                "{acc}: exactly the copied elements went up again"
            );
            // Reading the view back (into an array) sees the new data.
            let mut arr = Array::<i32, 1>::new([n as i32], &view).unwrap();
            copy(&dv, &mut arr).unwrap();
            let mut want = input.clone();
            want[100..164].copy_from_slice(&fresh);
            assert_eq!(arr.to_vec().unwrap(), want, "{acc}");
        }
        assert_eq!(&data[100..164], &fresh[..], "{acc}");
        assert_eq!(&data[..100], &input[..100], "{acc}");
    }
}

// ---------------------------------------------------------------------------
// Element types and shapes

#[amp_test]
fn f64_copies_where_double_precision_is_supported() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.default_view();
        let mut rng = Rng::new(5800 + k as u64);
        let data: Vec<f64> = (0..300).map(|_| rng.next_u64() as f64 / 7.0).collect();
        if !acc.supports_double_precision() {
            let r = Array::from_slice([300], &data, &view);
            assert!(
                matches!(r, Err(Error::UnsupportedFeature { .. })),
                "{acc}: {r:?}"
            );
            // Host-only copies of f64 views need no accelerator.
            let src = ArrayView::new([300], &data).unwrap();
            let mut out = vec![f64::NAN; 300];
            copy(&src, &mut out[..]).unwrap();
            assert_eq!(out, data, "{acc}");
            continue;
        }
        for how in HOWS {
            let a = Array::from_slice([3, 100], &data, &view).unwrap();
            let mut b = Array::<f64, 2>::new([3, 100], &view).unwrap();
            do_copy(how, &a, &mut b).unwrap();
            let mut out = vec![f64::NAN; 300];
            do_copy(how, &b, &mut out[..]).unwrap();
            assert_eq!(out, data, "{acc} {how:?}");
        }
    }
}

#[amp_test]
fn empty_copies_succeed() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        for how in HOWS {
            let a = Array::<u32, 2>::new([0, 5], &view).unwrap();
            let mut b = Array::<u32, 2>::new([0, 5], &view).unwrap();
            do_copy(how, &a, &mut b).unwrap();
            let empty: [u32; 0] = [];
            do_copy(how, &empty[..], &mut b).unwrap();
            let mut out: [u32; 0] = [];
            do_copy(how, &b, &mut out[..]).unwrap();
            assert!(b.to_vec().unwrap().is_empty());
        }
        let t = view.transfers();
        assert_eq!((t.bytes_uploaded, t.bytes_downloaded), (0, 0), "{acc}");
    }
}

// ---------------------------------------------------------------------------
// Mismatches

fn is_invalid(r: amp_core::Result<()>, ctx: &str) {
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{ctx}: {r:?}");
}

#[test]
fn mismatched_extents_are_errors_and_write_nothing() {
    let accs = accelerators();
    for (k, acc) in accs.iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        for how in HOWS {
            let ctx = format!("{acc} {how:?}");
            let mut rng = Rng::new(5900 + k as u64);
            let data = random_i32(&mut rng, 12);
            let keep = random_i32(&mut rng, 12);
            // Same number of elements, different extents.
            let a23 = Array::from_slice([2, 3], &data[..6], &view).unwrap();
            let mut a32 = Array::from_slice([3, 2], &keep[..6], &view).unwrap();
            is_invalid(
                do_copy(how, &a23, &mut a32),
                &format!("{ctx} array [2,3] -> [3,2]"),
            );
            assert_eq!(a32.to_vec().unwrap(), keep[..6], "{ctx}");
            // Arrays on different accelerators (through the host).
            let other = &accs[(k + 1) % accs.len()];
            let mut far = Array::from_slice([4, 3], &keep, &other.default_view()).unwrap();
            is_invalid(do_copy(how, &a23, &mut far), &format!("{ctx} across"));
            assert_eq!(far.to_vec().unwrap(), keep, "{ctx}");
            // Slices of the wrong length, both ways.
            let mut a = Array::from_slice([12], &keep, &view).unwrap();
            is_invalid(
                do_copy(how, &data[..11], &mut a),
                &format!("{ctx} short slice"),
            );
            is_invalid(
                do_copy(how, &[0; 13][..], &mut a),
                &format!("{ctx} long slice"),
            );
            assert_eq!(a.to_vec().unwrap(), keep, "{ctx}");
            let mut out = keep.clone();
            is_invalid(
                do_copy(how, &a23, &mut out[..]),
                &format!("{ctx} array -> slice"),
            );
            assert_eq!(out, keep, "{ctx}");
            // Views: view -> view, view -> array, array -> view, slice -> view.
            let src = ArrayView::new([3, 4], &data).unwrap();
            let mut dst_data = keep.clone();
            {
                let mut dst = ArrayView::new_mut([4, 3], &mut dst_data).unwrap();
                is_invalid(do_copy(how, &src, &mut dst), &format!("{ctx} view -> view"));
                let mut sec = dst.section([0, 0], [2, 3]).unwrap();
                is_invalid(
                    do_copy(how, &a32, &mut sec),
                    &format!("{ctx} array -> section"),
                );
                is_invalid(
                    do_copy(how, &data[..5], &mut sec),
                    &format!("{ctx} slice -> view"),
                );
                let mut b = Array::from_slice([4, 3], &keep, &view).unwrap();
                is_invalid(do_copy(how, &src, &mut b), &format!("{ctx} view -> array"));
                assert_eq!(b.to_vec().unwrap(), keep, "{ctx}");
                let mut short = [POISON; 11];
                is_invalid(
                    do_copy(how, &src.section([0, 0], [3, 4]).unwrap(), &mut short[..]),
                    &format!("{ctx} view -> slice"),
                );
                assert!(short.iter().all(|&x| x == POISON), "{ctx}");
            }
            assert_eq!(dst_data, keep, "{ctx}: the views wrote nothing");
        }
    }
}

/// A large copy from a host slice into an `Array` goes to the array's
/// accelerator at once (C++ AMP's `copy` into an `array`): kernels recorded
/// before it still read the old data, kernels after it the new, and a copy
/// back into a slice reads the new data; with sizes that end inside a word
/// (`f16`), and on every accelerator and queuing mode.
#[amp_test]
fn large_copies_into_arrays_order_with_kernels() {
    use amp_core::Extent;
    use amp_core::parallel_for_each;
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in fresh_views(&acc) {
            let mut rng = Rng::new(5700 + k as u64);
            // Above the staging ring's 256 KiB threshold, not a multiple of
            // the 16 MiB slots' element count.
            let n = 300_001 + rng.range(0, 1000) as usize;
            let old: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let new: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let a = Array::from_slice([n as i32], &old, &view).unwrap();
            let before = Array::<u32, 1>::new([n as i32], &view).unwrap();
            let after = Array::<u32, 1>::new([n as i32], &view).unwrap();
            // Recorded first (in automatic mode, not yet submitted).
            parallel_for_each!(view, Extent::new([n as i32]), |i: Index<1>| {
                before[i] = a[i] ^ 1;
            })
            .unwrap();
            copy(&new[..], &mut a.view()).unwrap();
            parallel_for_each!(view, Extent::new([n as i32]), |i: Index<1>| {
                after[i] = a[i] ^ 1;
            })
            .unwrap();
            let mut back = vec![POISON as u32; n];
            copy(&a, &mut back[..]).unwrap();
            assert!(back == new, "{acc}: the array after the copy");
            let flip = |v: &[u32]| v.iter().map(|x| x ^ 1).collect::<Vec<_>>();
            assert!(
                before.to_vec().unwrap() == flip(&old),
                "{acc}: a kernel recorded before"
            );
            assert!(
                after.to_vec().unwrap() == flip(&new),
                "{acc}: a kernel recorded after"
            );
            // A copy of half-words ending inside a word.
            if acc.supports_half_precision() {
                let m = 2 * 200_001 + 1;
                let halves: Vec<amp_core::f16> = (0..m)
                    .map(|_| amp_core::f16::from_f32(rng.range(-1000, 1000) as f32))
                    .collect();
                let h = Array::<amp_core::f16, 1>::new([m as i32], &view).unwrap();
                copy(&halves[..], &mut h.view()).unwrap();
                let mut back = vec![amp_core::f16::ZERO; m];
                copy(&h, &mut back[..]).unwrap();
                assert!(back == halves, "{acc}: f16");
            }
        }
    }
}

/// Large copies into and out of one `Array` from several tasks of rayon's
/// global pool at once (a user's `par_iter`): a transfer's host copies run
/// on threads of their own, so a caller waiting for them never picks up
/// another task that would block on the array it holds (with the global
/// pool, that deadlocked). Every read sees one task's whole write.
#[amp_test]
fn large_copies_from_rayon_tasks_on_one_array() {
    use rayon::prelude::*;
    for acc in accelerators() {
        let view = acc.default_view();
        // 8 MiB: above the size from which host copies are split.
        let n = 2 * 1024 * 1024;
        let a = Array::<u32, 1>::new([n as i32], &view).unwrap();
        (0..8u32).into_par_iter().for_each(|k| {
            let data = vec![k; n];
            copy(&data[..], &mut a.view()).unwrap();
            let mut back = vec![u32::MAX; n];
            copy(&a, &mut back[..]).unwrap();
            let first = back[0];
            assert!(first < 8, "{acc}: {first}");
            assert!(back.iter().all(|&x| x == first), "{acc}: a torn read");
        });
    }
}

/// A large copy from an `Array` into a host slice reads the device copy
/// into the slice alone (the array's host copy is not filled: a copy
/// transfers, as in C++ AMP): each copy after a kernel brings the kernel's
/// result, each moves the data once, and `to_vec` afterwards reads the
/// current data, at most once for two calls; on every accelerator.
#[amp_test]
fn large_copies_out_of_arrays_follow_kernels() {
    use amp_core::prelude::*;
    // Above the sizes that read the device copy straight into the slice.
    const N: usize = (1 << 20) + 5;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xC0B1 + k as u64);
        let data: Vec<u32> = (0..N).map(|_| rng.next_u64() as u32).collect();
        let a = Array::from_slice([N as i32], &data, &view).unwrap();
        let mut want = data.clone();
        for round in 1..=3u32 {
            parallel_for_each!(&view, a.extent(), |i: Index<1>| {
                a[i] = a[i].wrapping_mul(3) ^ round;
            })
            .unwrap();
            for w in &mut want {
                *w = w.wrapping_mul(3) ^ round;
            }
            let t0 = view.transfers();
            let mut out = vec![POISON as u32; N];
            copy(&a, &mut out[..]).unwrap();
            let bad = (0..N).find(|&j| out[j] != want[j]);
            assert_eq!(bad, None, "{acc}: round {round}, copy");
            let t1 = view.transfers();
            assert_eq!(
                t1.bytes_downloaded - t0.bytes_downloaded,
                (N * 4) as u64,
                "{acc}: round {round}"
            );
        }
        let t0 = view.transfers();
        assert!(a.to_vec().unwrap() == want, "{acc}: to_vec");
        assert!(a.to_vec().unwrap() == want, "{acc}: to_vec again");
        let t1 = view.transfers();
        // At most one download for the two reads (none where the array
        // lives in host memory).
        assert!(
            t1.bytes_downloaded - t0.bytes_downloaded <= (N * 4) as u64,
            "{acc}: to_vec twice moved {} bytes",
            t1.bytes_downloaded - t0.bytes_downloaded
        );
    }
}
