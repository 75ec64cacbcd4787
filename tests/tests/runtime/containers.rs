//! C++ AMP container semantics (spec chapter 5; CONFORMANCE.md, "Containers"):
//! `refresh`, `synchronize` / `synchronize_async`, write-back when the last
//! view drops, `discard_data` (also of sections), views with no data source,
//! overlapping sections, and views on several accelerator views writing one
//! source at once.
//!
//! "A kernel writes" is the runtime's test-kernel hook
//! (`amp_core::__private::launch_test_kernel`): hand-written WGSL on GPUs, a
//! Rust closure over the bound words on the CPU accelerator, with the bound
//! views made coherent exactly as a kernel launch makes them. The hook binds
//! a view's whole source buffer, so the kernels here address words of the
//! source; the word offsets come from C++ AMP's section geometry, computed by
//! the test, and the view passed to the hook decides which region is made
//! coherent and marked written.
//!
//! Host slices are inspected while their views still exist by
//! `std::mem::forget`ting the views first (safe: it only leaks them), so a
//! test can tell what `synchronize` wrote from what a view's drop would.
//!
//! Every test runs on every accelerator of `amp_tests::accelerators()`, in
//! both queuing modes where the mode matters, against a CPU reference on
//! pseudo-random data.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use amp_core::__private::{launch_test_kernel, read_arg, write_arg};
use amp_core::{
    Accelerator, AcceleratorView, Array, ArrayView, Element, Error, QueuingMode, TransferStatistics,
};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

// ---------------------------------------------------------------------------
// Test kernels and helpers (kept in this file: each test file is its own crate).

/// Element types the test kernels treat as one 32-bit word.
trait Word: Element + Copy + PartialEq + std::fmt::Debug {
    fn to_word(self) -> u32;
    fn random(rng: &mut Rng) -> Self;
    /// What outputs hold before a kernel writes them (NaN for floats).
    fn poison() -> Self;
}

impl Word for u32 {
    fn to_word(self) -> u32 {
        self
    }
    fn random(rng: &mut Rng) -> Self {
        rng.next_u64() as u32
    }
    fn poison() -> Self {
        0xDEAD_BEEF
    }
}

impl Word for i32 {
    fn to_word(self) -> u32 {
        self as u32
    }
    fn random(rng: &mut Rng) -> Self {
        rng.next_u64() as i32
    }
    fn poison() -> Self {
        0xDEAD_BEEFu32 as i32
    }
}

impl Word for f32 {
    fn to_word(self) -> u32 {
        self.to_bits()
    }
    fn random(rng: &mut Rng) -> Self {
        rng.range(-1_000_000, 1_000_000) as f32 / 64.0
    }
    fn poison() -> Self {
        f32::NAN
    }
}

fn random_vec<T: Word>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n).map(|_| T::random(rng)).collect()
}

/// What a test kernel does to each word it visits.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// `out[w] = v`: overwrites (for discarded outputs).
    Store,
    /// `out[w] = out[w] * 3 + v` (wrapping): the result depends on the data
    /// the kernel saw, so it proves the bound view was coherent.
    Affine,
}

impl Op {
    fn apply(self, old: u32, v: u32) -> u32 {
        match self {
            Op::Store => v,
            Op::Affine => old.wrapping_mul(3).wrapping_add(v),
        }
    }

    fn wgsl(self) -> &'static str {
        match self {
            Op::Store => "v",
            Op::Affine => "out[w] * 3u + v",
        }
    }
}

/// The value the range kernel combines into word `w`.
fn mix(w: u32, salt: u32) -> u32 {
    (w ^ salt).wrapping_mul(0x9E37_79B1)
}

/// A kernel on `view` applying `op` with `mix(w, salt)` to every word `w` in
/// `range` of `out`'s source. Binds nothing but `out`, so the transfer
/// counters see only `out`'s traffic.
fn kernel_range<T: Element, const N: usize>(
    view: &AcceleratorView,
    out: &ArrayView<'_, T, N>,
    range: std::ops::Range<u32>,
    op: Op,
    salt: u32,
) -> amp_core::Result<()> {
    let (lo, hi) = (range.start, range.end);
    assert!(hi > lo);
    let wgsl = format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x >= {n}u) {{ return; }}
    let w = {lo}u + g.x;
    let v = (w ^ {salt}u) * 2654435761u;
    out[w] = {expr};
}}",
        n = hi - lo,
        expr = op.wgsl()
    );
    launch_test_kernel(
        view,
        &[write_arg(out)],
        &wgsl,
        [(hi - lo).div_ceil(64), 1, 1],
        move |mem: &[&[AtomicU32]]| {
            for w in lo..hi {
                let cell = &mem[0][w as usize];
                cell.store(op.apply(cell.load(Relaxed), mix(w, salt)), Relaxed);
            }
        },
    )
}

/// A kernel on `view` applying `op` with `vals[i]` to word `at[i]` of `out`'s
/// source, for every `i` (the words must be distinct). The two lists are
/// bound as read-only views (uploaded on `view`).
fn kernel_scatter<T: Element, const N: usize>(
    view: &AcceleratorView,
    out: &ArrayView<'_, T, N>,
    at: &[u32],
    vals: &[u32],
    op: Op,
) -> amp_core::Result<()> {
    assert_eq!(at.len(), vals.len());
    assert!(!at.is_empty());
    let n = at.len();
    let at_view = ArrayView::new([n as i32], at)?;
    let val_view = ArrayView::new([n as i32], vals)?;
    let wgsl = format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> at: array<u32>;
@group(0) @binding(2) var<storage, read> vals: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x >= {n}u) {{ return; }}
    let w = at[g.x];
    let v = vals[g.x];
    out[w] = {expr};
}}",
        expr = op.wgsl()
    );
    launch_test_kernel(
        view,
        &[write_arg(out), read_arg(&at_view), read_arg(&val_view)],
        &wgsl,
        [(n as u32).div_ceil(64), 1, 1],
        move |mem: &[&[AtomicU32]]| {
            for i in 0..n {
                let w = mem[1][i].load(Relaxed) as usize;
                let v = mem[2][i].load(Relaxed);
                let cell = &mem[0][w];
                cell.store(op.apply(cell.load(Relaxed), v), Relaxed);
            }
        },
    )
}

/// A kernel on `view` copying word `i` of `input`'s source to word `i` of
/// `out`'s source, for `i` in `0..n`.
fn kernel_copy<T: Element, const N: usize, A: amp_core::Access>(
    view: &AcceleratorView,
    input: &ArrayView<'_, T, N, A>,
    out: &ArrayView<'_, T, N>,
    n: u32,
) -> amp_core::Result<()> {
    let wgsl = format!(
        "@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x >= {n}u) {{ return; }}
    out[g.x] = input[g.x];
}}"
    );
    launch_test_kernel(
        view,
        &[read_arg(input), write_arg(out)],
        &wgsl,
        [n.div_ceil(64), 1, 1],
        move |mem: &[&[AtomicU32]]| {
            let (input, out) = (mem[0], mem[1]);
            for (o, x) in out.iter().zip(input).take(n as usize) {
                o.store(x.load(Relaxed), Relaxed);
            }
        },
    )
}

/// The row-major offsets in a source of extent `parent` of the elements of
/// its section at `origin` of extent `ext`, in the section's row-major order
/// (C++ AMP's section geometry).
fn section_offsets(parent: &[i32], origin: &[i32], ext: &[i32]) -> Vec<u32> {
    let rank = parent.len();
    let count: i32 = ext.iter().product();
    let mut out = Vec::with_capacity(count as usize);
    let mut idx = vec![0i32; rank];
    for _ in 0..count {
        let mut linear = 0i64;
        for d in 0..rank {
            linear = linear * i64::from(parent[d]) + i64::from(origin[d] + idx[d]);
        }
        out.push(linear as u32);
        for d in (0..rank).rev() {
            idx[d] += 1;
            if idx[d] < ext[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// Both queuing modes of `acc`: a fresh view each.
fn views_of(acc: &Accelerator) -> [AcceleratorView; 2] {
    [
        acc.create_view(QueuingMode::Automatic),
        acc.create_view(QueuingMode::Immediate),
    ]
}

/// Ends views without running their destructors (no write-back), so that
/// the host slice they borrow can be inspected as `synchronize` left it.
fn forget<V>(v: V) {
    std::mem::forget(v);
}

fn diff(after: TransferStatistics, before: TransferStatistics) -> (u64, u64, u64, u64) {
    (
        after.uploads - before.uploads,
        after.bytes_uploaded - before.bytes_uploaded,
        after.downloads - before.downloads,
        after.bytes_downloaded - before.bytes_downloaded,
    )
}

// ---------------------------------------------------------------------------
// synchronize, synchronize_async, write-back on drop

#[derive(Clone, Copy, Debug)]
enum SyncHow {
    Blocking,
    AsyncWait,
    AsyncAwait,
}

fn synchronize_case<T: Word>(seed: u64) {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in views_of(&acc) {
            for how in [SyncHow::Blocking, SyncHow::AsyncWait, SyncHow::AsyncAwait] {
                let mut rng = Rng::new(seed + k as u64);
                let (rows, cols) = (rng.range(1, 40), rng.range(1, 70));
                let n = (rows * cols) as u32;
                let input: Vec<T> = random_vec(&mut rng, n as usize);
                let salt = rng.next_u64() as u32;
                let mut data = input.clone();
                let av = ArrayView::new_mut([rows, cols], &mut data).unwrap();
                kernel_range(&view, &av, 0..n, Op::Affine, salt).unwrap();
                let before = view.transfers();
                match how {
                    SyncHow::Blocking => av.synchronize().unwrap(),
                    SyncHow::AsyncWait => av.synchronize_async().unwrap().wait().unwrap(),
                    SyncHow::AsyncAwait => {
                        futures::executor::block_on(av.synchronize_async().unwrap()).unwrap()
                    }
                }
                let t = diff(view.transfers(), before);
                assert_eq!(
                    (t.2, t.3),
                    (1, u64::from(n) * 4),
                    "{acc} {how:?}: one download of the results"
                );
                // Host reads after synchronize need no transfer.
                assert_eq!(
                    av.get([rows - 1, cols - 1]).unwrap().to_word(),
                    Op::Affine.apply(input[n as usize - 1].to_word(), mix(n - 1, salt))
                );
                assert_eq!(view.transfers().downloads, before.downloads + 1, "{acc}");
                forget(av);
                for (w, (got, old)) in data.iter().zip(&input).enumerate() {
                    let want = Op::Affine.apply(old.to_word(), mix(w as u32, salt));
                    assert_eq!(got.to_word(), want, "{acc} {how:?} {view:?} word {w}");
                }
            }
        }
    }
}

#[amp_test]
fn synchronize_puts_kernel_results_in_the_host_slice_u32() {
    synchronize_case::<u32>(100);
}

#[amp_test]
fn synchronize_puts_kernel_results_in_the_host_slice_i32() {
    synchronize_case::<i32>(200);
}

#[amp_test]
fn synchronize_puts_kernel_results_in_the_host_slice_f32() {
    synchronize_case::<f32>(300);
}

#[amp_test]
fn synchronize_of_a_section_downloads_only_the_section() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in views_of(&acc) {
            let mut rng = Rng::new(400 + k as u64);
            let (rows, cols) = (9, 13);
            let input: Vec<u32> = random_vec(&mut rng, (rows * cols) as usize);
            let salt = rng.next_u64() as u32;
            let mut data = input.clone();
            let av = ArrayView::new_mut([rows, cols], &mut data).unwrap();
            kernel_range(&view, &av, 0..(rows * cols) as u32, Op::Affine, salt).unwrap();
            // A 3x4 block: not contiguous in the source.
            let (origin, ext) = ([2, 5], [3, 4]);
            let s = av.section(origin, ext).unwrap();
            let before = view.transfers();
            s.synchronize().unwrap();
            let t = diff(view.transfers(), before);
            assert_eq!(t.3, 12 * 4, "{acc}: only the section's bytes come back");
            forget((av, s));
            let inside = section_offsets(&[rows, cols], &origin, &ext);
            for (w, (got, old)) in data.iter().zip(&input).enumerate() {
                let want = if inside.contains(&(w as u32)) {
                    Op::Affine.apply(*old, mix(w as u32, salt))
                } else {
                    *old // still only on the accelerator: not synchronized
                };
                assert_eq!(*got, want, "{acc} word {w}");
            }
        }
    }
}

#[amp_test]
fn dropping_the_last_view_writes_results_back() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in views_of(&acc) {
            let mut rng = Rng::new(500 + k as u64);
            let n = rng.range(1, 3000) as u32;
            let input: Vec<f32> = random_vec(&mut rng, n as usize);
            let salt = rng.next_u64() as u32;
            let mut data = input.clone();
            {
                let av = ArrayView::new_mut([n as i32], &mut data).unwrap();
                let clone = av.clone();
                let tail = av.section_from([n as i32 / 2]).unwrap();
                kernel_range(&view, &clone, 0..n, Op::Affine, salt).unwrap();
                drop(av);
                drop(clone);
                // A section still holds the source: nothing is written back
                // yet, and the section reads the kernel's values.
                assert_eq!(view.transfers().downloads, 0, "{acc}");
                let i = n - 1 - n / 2;
                assert_eq!(
                    tail.get([i as i32]).unwrap().to_bits(),
                    Op::Affine.apply(input[n as usize - 1].to_bits(), mix(n - 1, salt))
                );
            }
            // The section was the last view: its drop wrote everything back.
            for (w, (got, old)) in data.iter().zip(&input).enumerate() {
                let want = Op::Affine.apply(old.to_bits(), mix(w as u32, salt));
                assert_eq!(got.to_bits(), want, "{acc} {view:?} word {w}");
            }
        }
    }
}

#[amp_test]
fn read_only_views_are_never_copied_back() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in views_of(&acc) {
            let mut rng = Rng::new(600 + k as u64);
            let n = rng.range(1, 5000) as u32;
            let input: Vec<i32> = random_vec(&mut rng, n as usize);
            let mut out = vec![i32::poison(); n as usize];
            {
                let src = ArrayView::new([n as i32], &input).unwrap();
                let dst = ArrayView::new_mut([n as i32], &mut out).unwrap();
                dst.discard_data();
                kernel_copy(&view, &src, &dst, n).unwrap();
                kernel_copy(&view, &src.clone(), &dst, n).unwrap();
                src.synchronize().unwrap();
                let t = view.transfers();
                assert_eq!(
                    (t.uploads, t.bytes_uploaded, t.downloads),
                    (1, u64::from(n) * 4, 0),
                    "{acc}: the input went up once, nothing came back"
                );
                drop(src);
                assert_eq!(view.transfers().downloads, 0, "{acc}: read-only drop");
            }
            let t = view.transfers();
            assert_eq!(
                (t.downloads, t.bytes_downloaded),
                (1, u64::from(n) * 4),
                "{acc}: only the written view came back"
            );
            assert_eq!(out, input, "{acc}");
        }
    }
}

// ---------------------------------------------------------------------------
// discard_data

fn discard_case<T: Word>(seed: u64) {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in views_of(&acc) {
            let mut rng = Rng::new(seed + k as u64);
            let (rows, cols) = (rng.range(1, 30), rng.range(1, 50));
            let n = (rows * cols) as u32;
            let salt = rng.next_u64() as u32;
            let mut data = vec![T::poison(); n as usize];
            let av = ArrayView::new_mut([rows, cols], &mut data).unwrap();
            av.discard_data();
            kernel_range(&view, &av, 0..n, Op::Store, salt).unwrap();
            av.synchronize().unwrap();
            let t = view.transfers();
            assert_eq!(
                (t.uploads, t.downloads, t.bytes_downloaded),
                (0, 1, u64::from(n) * 4),
                "{acc}: a discarded view is not uploaded"
            );
            forget(av);
            for (w, got) in data.iter().enumerate() {
                assert_ne!(
                    got.to_word(),
                    T::poison().to_word(),
                    "{acc}: word {w} unwritten"
                );
                assert_eq!(got.to_word(), mix(w as u32, salt), "{acc} word {w}");
            }
        }
    }
}

#[amp_test]
fn discard_then_kernel_then_synchronize_u32() {
    discard_case::<u32>(700);
}

#[amp_test]
fn discard_then_kernel_then_synchronize_f32() {
    discard_case::<f32>(800);
}

#[amp_test]
fn writes_through_discarded_sections_do_not_reach_the_host() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in views_of(&acc) {
            let mut rng = Rng::new(900 + k as u64);
            let parent = [6, 7, 8];
            let n = 6 * 7 * 8;
            let input: Vec<u32> = random_vec(&mut rng, n);
            let salt = rng.next_u64() as u32;
            let mut data = input.clone();
            let av = ArrayView::new_mut(parent, &mut data).unwrap();
            // The kernel writes every element, through the parent...
            kernel_range(&view, &av, 0..n as u32, Op::Affine, salt).unwrap();
            // ...then a 3-D block section of it is discarded.
            let (origin, ext) = ([1, 2, 3], [4, 3, 5]);
            av.section(origin, ext).unwrap().discard_data();
            av.synchronize().unwrap();
            let t = view.transfers();
            assert_eq!(
                t.bytes_downloaded,
                (n as u64 - 4 * 3 * 5) * 4,
                "{acc}: the discarded part is not downloaded"
            );
            forget(av);
            let discarded = section_offsets(&parent, &origin, &ext);
            for (w, (got, old)) in data.iter().zip(&input).enumerate() {
                let want = if discarded.contains(&(w as u32)) {
                    *old
                } else {
                    Op::Affine.apply(*old, mix(w as u32, salt))
                };
                assert_eq!(*got, want, "{acc} {view:?} word {w}");
            }
        }
    }
}

/// Port of the conformance suite's "discard_data with array_view" check:
/// random (possibly overlapping) sections are written by a kernel and then
/// discarded, many times; the source never changes.
#[amp_test]
fn repeatedly_discarded_section_writes_leave_the_source_unchanged() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.default_view();
        let mut rng = Rng::new(1000 + k as u64);
        let input: Vec<i32> = random_vec(&mut rng, 1000);
        let mut data = input.clone();
        let av = ArrayView::new_mut([10, 10, 10], &mut data).unwrap();
        for _ in 0..8 {
            let sections: Vec<_> = (0..3)
                .map(|_| {
                    let origin = [rng.range(0, 8), rng.range(0, 8), rng.range(0, 8)];
                    (origin, av.section_from(origin).unwrap())
                })
                .collect();
            for (origin, s) in &sections {
                // A 2x2x2 corner of the section, as the original test writes.
                let at = section_offsets(&[10, 10, 10], origin, &[2, 2, 2]);
                let vals: Vec<u32> = (0..8).map(|_| rng.next_u64() as u32).collect();
                kernel_scatter(&view, s, &at, &vals, Op::Store).unwrap();
            }
            for (_, s) in &sections {
                s.discard_data();
            }
            av.synchronize().unwrap();
        }
        forget(av);
        assert_eq!(data, input, "{acc}");
    }
}

// ---------------------------------------------------------------------------
// Views with no data source

#[test]
fn views_without_a_data_source_never_lose_their_only_copy() {
    let accs = accelerators();
    for (k, acc) in accs.iter().enumerate() {
        for view in views_of(acc) {
            let mut rng = Rng::new(1100 + k as u64);
            let (rows, cols) = (rng.range(1, 20), rng.range(1, 40));
            let n = (rows * cols) as u32;
            let av = ArrayView::<u32, 2>::with_extent([rows, cols]).unwrap();
            assert!(!av.has_data_source());
            let mut model: Vec<u32> = random_vec(&mut rng, n as usize);
            amp_core::copy(&model[..], &mut av.clone()).unwrap();
            // Discard before the kernel: the data must survive.
            av.discard_data();
            let salt = rng.next_u64() as u32;
            kernel_range(&view, &av, 0..n, Op::Affine, salt).unwrap();
            for (w, m) in model.iter_mut().enumerate() {
                *m = Op::Affine.apply(*m, mix(w as u32, salt));
            }
            // Discard after the kernel (results only on the accelerator).
            av.discard_data();
            av.project(0).unwrap().discard_data();
            // Another accelerator reads and updates it next.
            let other = &accs[(k + 1) % accs.len()];
            let salt2 = rng.next_u64() as u32;
            kernel_range(&other.default_view(), &av, 0..n, Op::Affine, salt2).unwrap();
            for (w, m) in model.iter_mut().enumerate() {
                *m = Op::Affine.apply(*m, mix(w as u32, salt2));
            }
            av.discard_data();
            av.synchronize().unwrap();
            assert_eq!(av.to_vec().unwrap(), model, "{acc} then {other}");
        }
    }
}

/// Port of the conformance suite's `refresh` check on views without a data
/// source: refresh before and after kernels on two views never loses data.
#[amp_test]
fn refresh_of_views_without_a_data_source_loses_nothing() {
    for acc in accelerators() {
        let (v1, v2) = (acc.default_view(), acc.create_view(QueuingMode::Automatic));
        let n = 256u32;
        let av = ArrayView::<u32, 1>::with_extent([n as i32]).unwrap();
        av.refresh();
        kernel_range(&v1, &av, 0..n, Op::Store, 0x1234).unwrap();
        kernel_range(&v2, &av, 0..n, Op::Affine, 0x5678).unwrap();
        av.refresh();
        let want: Vec<u32> = (0..n)
            .map(|w| Op::Affine.apply(mix(w, 0x1234), mix(w, 0x5678)))
            .collect();
        // Read on the accelerator (a kernel copies it out) and on the host.
        let mut out = vec![u32::poison(); n as usize];
        let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
        o.discard_data();
        kernel_copy(&v1, &av, &o, n).unwrap();
        drop(o);
        assert_eq!(out, want, "{acc}: read by a kernel");
        assert_eq!(av.to_vec().unwrap(), want, "{acc}: read on the host");
    }
}

// ---------------------------------------------------------------------------
// refresh

/// Rust's borrows forbid writing a slice while a view over it lives, so
/// "behind the view's back" is: between two views' lifetimes. A new view
/// over rewritten data must not see an earlier view's accelerator copy, and
/// after `refresh` a second view copied from the first sees the new data too
/// (on the host and in kernels).
#[amp_test]
fn refresh_sees_host_data_written_behind_the_views_back() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in views_of(&acc) {
            let mut rng = Rng::new(1200 + k as u64);
            let n = 30u32;
            let mut data: Vec<i32> = random_vec(&mut rng, n as usize);
            let salt = rng.next_u64() as u32;
            {
                let a = ArrayView::new_mut([n as i32], &mut data).unwrap();
                kernel_range(&view, &a, 0..n, Op::Affine, salt).unwrap();
            }
            // Written behind the (ended) views' back.
            data[17] = 93;
            let expected = data.clone();
            let mut out = vec![i32::poison(); n as usize];
            {
                let a = ArrayView::new_mut([n as i32], &mut data).unwrap();
                let b = a.clone();
                a.refresh();
                assert_eq!(a.get([17]).unwrap(), 93, "{acc}");
                assert_eq!(b.get([17]).unwrap(), 93, "{acc}");
                let o = ArrayView::new_mut([n as i32], &mut out).unwrap();
                o.discard_data();
                kernel_copy(&view, &b, &o, n).unwrap();
            }
            assert_eq!(out, expected, "{acc}: a kernel reads the refreshed data");
            assert_eq!(data, expected, "{acc}: nothing was written back over it");
        }
    }
}

#[amp_test]
fn refresh_makes_only_the_refreshed_region_stale_on_accelerators() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in views_of(&acc) {
            let mut rng = Rng::new(1300 + k as u64);
            let (rows, cols) = (12, 10);
            let n = (rows * cols) as u32;
            let input: Vec<u32> = random_vec(&mut rng, n as usize);
            let mut data = input.clone();
            let mut out = vec![u32::poison(); n as usize];
            {
                let a = ArrayView::new_mut([rows, cols], &mut data).unwrap();
                let o = ArrayView::new_mut([rows, cols], &mut out).unwrap();
                o.discard_data();
                kernel_copy(&view, &a, &o, n).unwrap();
                kernel_copy(&view, &a, &o, n).unwrap();
                let t0 = view.transfers();
                assert_eq!((t0.uploads, t0.bytes_uploaded), (1, u64::from(n) * 4));
                // Refresh rows 3..7 through a clone's section.
                let b = a.clone();
                b.section([3, 0], [4, cols]).unwrap().refresh();
                kernel_copy(&view, &a, &o, n).unwrap();
                let t = diff(view.transfers(), t0);
                assert_eq!(
                    (t.0, t.1),
                    (1, 4 * cols as u64 * 4),
                    "{acc}: only the refreshed rows go up again"
                );
                // Refreshing the whole view re-uploads everything once.
                a.refresh();
                kernel_copy(&view, &b, &o, n).unwrap();
                kernel_copy(&view, &b, &o, n).unwrap();
                let t = diff(view.transfers(), t0);
                assert_eq!((t.0, t.1), (2, (4 * cols as u32 + n) as u64 * 4), "{acc}");
            }
            assert_eq!(out, input, "{acc}");
            assert_eq!(data, input, "{acc}");
        }
    }
}

/// Port of the conformance check "write through the array's data on the
/// accelerator, call refresh on a view of it": a view whose host copy of an
/// array's element is current sees a kernel's write through another view.
#[amp_test]
fn refresh_of_an_array_view_sees_kernel_writes_through_other_views() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.default_view();
        let mut rng = Rng::new(1400 + k as u64);
        let input: Vec<i32> = random_vec(&mut rng, 10);
        let arr = Array::from_slice([10], &input, &view).unwrap();
        let av = arr.view();
        assert_eq!(av.get([0]).unwrap(), input[0]);
        let first = arr.section([0], [1]).unwrap();
        kernel_scatter(&view, &first, &[0], &[17], Op::Store).unwrap();
        av.refresh();
        assert_eq!(av.get([0]).unwrap(), 17, "{acc}");
        let mut want = input.clone();
        want[0] = 17;
        assert_eq!(arr.to_vec().unwrap(), want, "{acc}");
    }
}

// ---------------------------------------------------------------------------
// Arrays: views of an array synchronize to the array's accelerator

#[amp_test]
fn array_views_synchronize_to_the_arrays_accelerator() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for view in views_of(&acc) {
            let mut rng = Rng::new(1500 + k as u64);
            let n = 500u32;
            let input: Vec<u32> = random_vec(&mut rng, n as usize);
            let arr = Array::from_slice([n as i32], &input, &view).unwrap();
            let av = arr.view();
            let t0 = view.transfers();
            // Host writes go to the host copy only...
            let mut model = input.clone();
            for i in [0u32, 7, 499] {
                let v = rng.next_u64() as u32;
                av.set([i as i32], v).unwrap();
                model[i as usize] = v;
            }
            assert_eq!(view.transfers(), t0, "{acc}: set is lazy");
            // ...and synchronize moves them to the array's home.
            av.synchronize().unwrap();
            let t = diff(view.transfers(), t0);
            assert_eq!((t.1, t.2), (3 * 4, 0), "{acc}: three elements went up");
            let salt = rng.next_u64() as u32;
            kernel_range(&view, &av, 0..n, Op::Affine, salt).unwrap();
            assert_eq!(
                view.transfers().bytes_uploaded,
                t0.bytes_uploaded + 12,
                "{acc}: the kernel needed no upload"
            );
            for (w, m) in model.iter_mut().enumerate() {
                *m = Op::Affine.apply(*m, mix(w as u32, salt));
            }
            assert_eq!(arr.to_vec().unwrap(), model, "{acc}");
        }
    }
}

// ---------------------------------------------------------------------------
// Overlapping sections

#[derive(Clone, Copy, Debug)]
enum Step {
    HostSet,
    HostGet,
    ToVec,
    Kernel,
    DiscardThenStore,
    Synchronize,
    SynchronizeTo,
}

/// The data source of a randomized run.
#[derive(Clone, Copy, Debug)]
enum Origin {
    /// A writable host slice.
    HostSlice,
    /// No data source (`ArrayView::with_extent`).
    Unbacked,
    /// An `Array` on one of the views.
    Array,
}

/// Random sequences of host writes, host reads, kernels (on random
/// accelerator views), discard-and-overwrite, `synchronize` and
/// `synchronize_to` through overlapping 2-D sections of one source, checked
/// against a model at every read and at the end.
/// Host slices are also checked after `synchronize`, arrays on their home.
fn overlapping_sections_run(views: &[AcceleratorView], source: Origin, seed: u64) {
    let mut rng = Rng::new(seed);
    let parent = [12, 16];
    let n = 12 * 16;
    let mut model: Vec<u32> = random_vec(&mut rng, n);
    let mut data = model.clone();
    match source {
        Origin::HostSlice => {
            let av = ArrayView::new_mut(parent, &mut data).unwrap();
            overlapping_sections_steps(&av, views, &mut rng, &mut model, seed);
            av.synchronize().unwrap();
            forget(av);
            assert_eq!(data, model, "seed {seed}: host slice after synchronize");
        }
        Origin::Unbacked => {
            let av = ArrayView::<u32, 2>::with_extent(parent).unwrap();
            amp_core::copy(&data[..], &mut av.clone()).unwrap();
            overlapping_sections_steps(&av, views, &mut rng, &mut model, seed);
        }
        Origin::Array => {
            let home = &views[rng.range(0, views.len() as i32) as usize];
            let arr = Array::from_slice(parent, &data, home).unwrap();
            overlapping_sections_steps(&arr.view(), views, &mut rng, &mut model, seed);
            arr.view().synchronize().unwrap();
            assert_eq!(arr.to_vec().unwrap(), model, "seed {seed}: array");
        }
    }
}

fn overlapping_sections_steps(
    av: &ArrayView<'_, u32, 2>,
    views: &[AcceleratorView],
    rng: &mut Rng,
    model: &mut [u32],
    seed: u64,
) {
    let parent = [12, 16];
    let mut geometry = vec![
        ([0, 0], [8, 10]),  // overlaps the next one in rows 4..8, cols 6..10
        ([4, 6], [8, 10]),  // to the corner
        ([2, 0], [3, 16]),  // whole rows: contiguous
        ([0, 15], [12, 1]), // one column
    ];
    for _ in 0..2 {
        let origin = [rng.range(0, 11), rng.range(0, 15)];
        let ext = [rng.range(1, 13 - origin[0]), rng.range(1, 17 - origin[1])];
        geometry.push((origin, ext));
    }
    let sections: Vec<_> = geometry
        .iter()
        .map(|(o, e)| {
            (
                av.section(*o, *e).unwrap(),
                section_offsets(&parent, o, e),
                *e,
            )
        })
        .collect();
    let steps = [
        Step::HostSet,
        Step::HostGet,
        Step::ToVec,
        Step::Kernel,
        Step::DiscardThenStore,
        Step::Synchronize,
        Step::SynchronizeTo,
    ];
    for step_no in 0..60 {
        let (s, at, ext) = &sections[rng.range(0, sections.len() as i32) as usize];
        let step = steps[rng.range(0, steps.len() as i32) as usize];
        let view = &views[rng.range(0, views.len() as i32) as usize];
        let ctx = format!("seed {seed} step {step_no} {step:?} on {view:?}");
        let pick = rng.range(0, at.len() as i32) as usize;
        let idx = [pick as i32 / ext[1], pick as i32 % ext[1]];
        match step {
            Step::HostSet => {
                let v = rng.next_u64() as u32;
                s.set(idx, v).unwrap();
                model[at[pick] as usize] = v;
            }
            Step::HostGet => {
                assert_eq!(s.get(idx).unwrap(), model[at[pick] as usize], "{ctx}");
            }
            Step::ToVec => {
                let want: Vec<u32> = at.iter().map(|&w| model[w as usize]).collect();
                assert_eq!(s.to_vec().unwrap(), want, "{ctx}");
            }
            Step::Kernel | Step::DiscardThenStore => {
                let op = if let Step::Kernel = step {
                    Op::Affine
                } else {
                    s.discard_data();
                    Op::Store
                };
                let vals: Vec<u32> = at.iter().map(|_| rng.next_u64() as u32).collect();
                kernel_scatter(view, s, at, &vals, op).unwrap();
                for (&w, &v) in at.iter().zip(&vals) {
                    model[w as usize] = op.apply(model[w as usize], v);
                }
            }
            Step::Synchronize => s.synchronize().unwrap(),
            Step::SynchronizeTo => s.synchronize_to(view).unwrap(),
        }
    }
    assert_eq!(av.to_vec().unwrap(), model, "seed {seed}: final read");
}

const SOURCES: [Origin; 3] = [Origin::HostSlice, Origin::Unbacked, Origin::Array];

#[amp_test]
fn overlapping_sections_read_back_consistently() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        for (j, source) in SOURCES.into_iter().enumerate() {
            for seed in 0..3 {
                let seed = 1600 + 100 * k as u64 + 10 * j as u64 + seed;
                overlapping_sections_run(&views_of(&acc), source, seed);
            }
        }
    }
}

#[test]
fn overlapping_sections_stay_consistent_across_accelerators() {
    let views: Vec<AcceleratorView> = accelerators().iter().flat_map(views_of).collect();
    for (j, source) in SOURCES.into_iter().enumerate() {
        for seed in 0..4 {
            overlapping_sections_run(&views, source, 1700 + 10 * j as u64 + seed);
        }
    }
}

// ---------------------------------------------------------------------------
// Concurrent views

/// Two threads launch kernels at the same moment on two accelerator views
/// (two views of one accelerator, or two accelerators), each writing its own
/// half of one source; one `synchronize` then brings both halves home.
#[test]
fn concurrent_views_writing_disjoint_sections_of_one_source() {
    let accs = accelerators();
    let mut pairs = Vec::new();
    for a in &accs {
        pairs.push((
            a.create_view(QueuingMode::Automatic),
            a.create_view(QueuingMode::Automatic),
        ));
        pairs.push((
            a.create_view(QueuingMode::Immediate),
            a.create_view(QueuingMode::Automatic),
        ));
    }
    for (i, a) in accs.iter().enumerate() {
        for b in &accs[i + 1..] {
            pairs.push((a.default_view(), b.default_view()));
            pairs.push((b.create_view(QueuingMode::Immediate), a.default_view()));
        }
    }
    for (p, (va, vb)) in pairs.iter().enumerate() {
        for round in 0..50 {
            let mut rng = Rng::new(1800 + 100 * p as u64 + round);
            let cols = 512;
            let input: Vec<u32> = random_vec(&mut rng, 2 * cols);
            let (sa, sb) = (rng.next_u64() as u32, rng.next_u64() as u32);
            let mut data = input.clone();
            let av = ArrayView::new_mut([2, cols as i32], &mut data).unwrap();
            let top = av.section([0, 0], [1, cols as i32]).unwrap();
            let bottom = av.section([1, 0], [1, cols as i32]).unwrap();
            let barrier = std::sync::Barrier::new(2);
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    barrier.wait();
                    kernel_range(va, &top, 0..cols as u32, Op::Affine, sa).unwrap();
                });
                scope.spawn(|| {
                    barrier.wait();
                    kernel_range(vb, &bottom, cols as u32..2 * cols as u32, Op::Affine, sb)
                        .unwrap();
                });
            });
            av.synchronize().unwrap();
            forget((av, top, bottom));
            for (w, (got, old)) in data.iter().zip(&input).enumerate() {
                let salt = if w < cols { sa } else { sb };
                let want = Op::Affine.apply(*old, mix(w as u32, salt));
                assert_eq!(*got, want, "{va:?} + {vb:?} round {round} word {w}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Failures write nothing

#[amp_test]
fn f64_views_need_double_precision() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.default_view();
        let mut rng = Rng::new(1900 + k as u64);
        let n = 100u32;
        let input: Vec<f64> = (0..n)
            .map(|_| rng.range(-1000, 1000) as f64 / 8.0)
            .collect();
        let mut data = vec![f64::NAN; n as usize];
        let av = ArrayView::new_mut([n as i32], &mut data).unwrap();
        av.discard_data();
        // Each f64 is two words: store the input's bits word by word.
        let at: Vec<u32> = (0..2 * n).collect();
        let vals: Vec<u32> = input
            .iter()
            .flat_map(|x| {
                let b = x.to_bits();
                [b as u32, (b >> 32) as u32]
            })
            .collect();
        let result = kernel_scatter(&view, &av, &at, &vals, Op::Store);
        av.synchronize().unwrap();
        forget(av);
        if acc.supports_double_precision() {
            result.unwrap();
            assert_eq!(data, input, "{acc}");
        } else {
            assert!(
                matches!(result, Err(Error::UnsupportedFeature { .. })),
                "{acc}: {result:?}"
            );
            assert!(data.iter().all(|x| x.is_nan()), "{acc}: nothing ran");
            assert!(matches!(
                Array::<f64, 1>::new([4], &view),
                Err(Error::UnsupportedFeature { .. })
            ));
        }
    }
}

#[amp_test]
fn a_launch_that_cannot_allocate_writes_nothing() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let limit = acc.limits().max_buffer_size;
        let mut rng = Rng::new(2000 + k as u64);
        let input: Vec<u32> = random_vec(&mut rng, 64);
        let mut data = input.clone();
        let small = ArrayView::new_mut([64], &mut data).unwrap();
        // More bytes than the accelerator's largest buffer; a view with no
        // data source allocates nothing until it is used.
        let cols = i32::MAX as u64;
        let rows = (limit / 4 + 1).div_ceil(cols);
        assert!(rows <= i32::MAX as u64);
        let huge = ArrayView::<u32, 2>::with_extent([rows as i32, cols as i32]).unwrap();
        let err = huge.synchronize_to(&view).unwrap_err();
        let Error::OutOfMemory { detail, .. } = &err else {
            panic!("{acc}: {err:?}");
        };
        assert!(
            detail.contains("max_buffer_size") && detail.contains(&limit.to_string()),
            "{acc}: the error names the limit: {detail}"
        );
        let commands = view.statistics().commands;
        let result = launch_test_kernel(
            &view,
            &[write_arg(&small), write_arg(&huge)],
            "@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@compute @workgroup_size(1)
fn main() { a[0] = 1u; b[0] = 1u; }",
            [1, 1, 1],
            |mem: &[&[AtomicU32]]| {
                mem[0][0].store(1, Relaxed);
                mem[1][0].store(1, Relaxed);
            },
        );
        assert!(
            matches!(result, Err(Error::OutOfMemory { .. })),
            "{acc}: {result:?}"
        );
        assert_eq!(
            view.statistics().commands,
            commands,
            "{acc}: nothing recorded"
        );
        assert_eq!(small.to_vec().unwrap(), input, "{acc}");
        drop((small, huge));
        assert_eq!(data, input, "{acc}");
    }
}
