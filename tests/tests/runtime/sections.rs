//! Sections, projections, `view_as` and `reinterpret_as` (C++ AMP spec
//! chapter 5; CONFORMANCE.md, "Containers"): alone and nested, on the host
//! and inside kernels, and every bad argument an `Err(InvalidArgument)`,
//! never a panic.
//!
//! The reference is C++ AMP's geometry, modelled here independently of the
//! runtime ([`Geo`]): a section adds `origin · strides` to its parent's
//! offset and keeps the parent's strides, a projection fixes the most
//! significant index, `view_as` lays a contiguous view out again row-major.
//! Kernels run through the runtime's test-kernel hook (hand-written WGSL on
//! GPUs, a Rust closure on the CPU accelerator), which binds the view's whole
//! source buffer, so they address the source's words at the offsets the model
//! gives; the bound view decides what is made coherent, which the transfer
//! counters check.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use amp_core::__private::{launch_test_kernel, read_arg, write_arg};
use amp_core::{AcceleratorView, Array, ArrayView, Element, Error, Extent};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

// ---------------------------------------------------------------------------
// The reference geometry

/// Where a view's elements lie in its source, per C++ AMP.
#[derive(Clone, Debug)]
struct Geo {
    offset: i64,
    extent: Vec<i32>,
    strides: Vec<i64>,
}

impl Geo {
    fn dense(extent: &[i32]) -> Geo {
        Geo::dense_at(0, extent)
    }

    fn dense_at(offset: i64, extent: &[i32]) -> Geo {
        let mut strides = vec![1i64; extent.len()];
        for d in (0..extent.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * i64::from(extent[d + 1]);
        }
        Geo {
            offset,
            extent: extent.to_vec(),
            strides,
        }
    }

    fn section(&self, origin: &[i32], extent: &[i32]) -> Geo {
        let shift: i64 = origin
            .iter()
            .zip(&self.strides)
            .map(|(&o, &s)| i64::from(o) * s)
            .sum();
        Geo {
            offset: self.offset + shift,
            extent: extent.to_vec(),
            strides: self.strides.clone(),
        }
    }

    fn project(&self, i: i32) -> Geo {
        Geo {
            offset: self.offset + i64::from(i) * self.strides[0],
            extent: self.extent[1..].to_vec(),
            strides: self.strides[1..].to_vec(),
        }
    }

    /// `view_as` of a contiguous view.
    fn view_as(&self, extent: &[i32]) -> Geo {
        Geo::dense_at(self.offset, extent)
    }

    /// The source offset of every element, in row-major order.
    fn offsets(&self) -> Vec<u32> {
        let count: i64 = self.extent.iter().map(|&e| i64::from(e)).product();
        let rank = self.extent.len();
        let mut idx = vec![0i32; rank];
        let mut out = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let off: i64 = idx
                .iter()
                .zip(&self.strides)
                .map(|(&i, &s)| i64::from(i) * s)
                .sum();
            out.push((self.offset + off) as u32);
            for d in (0..rank).rev() {
                idx[d] += 1;
                if idx[d] < self.extent[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        out
    }
}

/// A random section (origin, extent) inside `extent`.
fn random_section(rng: &mut Rng, extent: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let origin: Vec<i32> = extent.iter().map(|&e| rng.range(0, e)).collect();
    let ext = extent
        .iter()
        .zip(&origin)
        .map(|(&e, &o)| rng.range(1, e - o + 1))
        .collect();
    (origin, ext)
}

fn arr<const N: usize>(v: &[i32]) -> [i32; N] {
    v.try_into().expect("rank")
}

/// Checks every element of `v` (by `get` and by `to_vec`) against `model`
/// at the offsets `geo` gives.
fn check<T: Element + PartialEq + std::fmt::Debug, const N: usize, A: amp_core::Access>(
    v: &ArrayView<'_, T, N, A>,
    geo: &Geo,
    model: &[T],
    ctx: &str,
) {
    assert_eq!(
        v.extent().to_array().as_slice(),
        geo.extent.as_slice(),
        "{ctx}"
    );
    let offsets = geo.offsets();
    let all = v.to_vec().unwrap();
    for (k, idx) in v.extent().indices().enumerate() {
        let want = model[offsets[k] as usize];
        assert_eq!(v.get(idx).unwrap(), want, "{ctx}: element {idx}");
        assert_eq!(all[k], want, "{ctx}: to_vec element {k}");
    }
}

// ---------------------------------------------------------------------------
// Kernels (the runtime's test hook)

/// `out[at[i]] = out[at[i]] * 3 + vals[i]` (wrapping), in `out`'s source.
fn kernel_affine<T: Element, const N: usize>(
    view: &AcceleratorView,
    out: &ArrayView<'_, T, N>,
    at: &[u32],
    vals: &[u32],
) -> amp_core::Result<()> {
    assert_eq!(at.len(), vals.len());
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
    out[w] = out[w] * 3u + vals[g.x];
}}"
    );
    launch_test_kernel(
        view,
        &[write_arg(out), read_arg(&at_view), read_arg(&val_view)],
        &wgsl,
        [(n as u32).div_ceil(64), 1, 1],
        move |mem: &[&[AtomicU32]]| {
            for i in 0..n {
                let w = mem[1][i].load(Relaxed) as usize;
                let old = mem[0][w].load(Relaxed);
                mem[0][w].store(
                    old.wrapping_mul(3).wrapping_add(mem[2][i].load(Relaxed)),
                    Relaxed,
                );
            }
        },
    )
}

/// `out[i] = input[at[i]]`: reads words of `input`'s source (bound read-only
/// through `input`, a view or section) into the dense `out`.
fn kernel_gather<T: Element, const N: usize, A: amp_core::Access>(
    view: &AcceleratorView,
    input: &ArrayView<'_, T, N, A>,
    at: &[u32],
    out: &ArrayView<'_, u32, 1>,
) -> amp_core::Result<()> {
    let n = at.len();
    let at_view = ArrayView::new([n as i32], at)?;
    let wgsl = format!(
        "@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read> at: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x >= {n}u) {{ return; }}
    out[g.x] = input[at[g.x]];
}}"
    );
    launch_test_kernel(
        view,
        &[read_arg(input), read_arg(&at_view), write_arg(out)],
        &wgsl,
        [(n as u32).div_ceil(64), 1, 1],
        move |mem: &[&[AtomicU32]]| {
            for i in 0..n {
                let w = mem[1][i].load(Relaxed) as usize;
                mem[2][i].store(mem[0][w].load(Relaxed), Relaxed);
            }
        },
    )
}

fn affine(old: u32, v: u32) -> u32 {
    old.wrapping_mul(3).wrapping_add(v)
}

// ---------------------------------------------------------------------------
// On the host

#[amp_test]
fn section_then_view_as_addresses_the_parent() {
    let data: Vec<i32> = (0..100).collect();
    let mut writable = data.clone();
    let av = ArrayView::new([100], &data).unwrap();
    let s = av.section([10], [30]).unwrap().view_as([3, 10]).unwrap();
    assert_eq!(s[[2, 2]], av[[32]]);
    assert_eq!(s.get([2, 2]).unwrap(), 32);
    for idx in s.extent().indices() {
        assert_eq!(s[idx], 10 + 10 * idx[0] + idx[1]);
    }
    // The same through a writable view, a view with no data source and an
    // array on every accelerator.
    let w = ArrayView::new_mut([100], &mut writable).unwrap();
    let ws = w.section([10], [30]).unwrap().view_as([3, 10]).unwrap();
    assert_eq!(ws.get([2, 2]).unwrap(), w.get([32]).unwrap());
    ws.set([2, 2], -32).unwrap();
    assert_eq!(w.get([32]).unwrap(), -32);
    let none = ArrayView::<i32, 1>::with_extent([100]).unwrap();
    amp_core::copy(&data[..], &mut none.clone()).unwrap();
    let ns = none.section([10], [30]).unwrap().view_as([3, 10]).unwrap();
    assert_eq!(ns.get([2, 2]).unwrap(), 32);
    for acc in accelerators() {
        let a = Array::from_slice([100], &data, &acc.default_view()).unwrap();
        let s = a.section([10], [30]).unwrap().view_as([3, 10]).unwrap();
        assert_eq!(s.get([2, 2]).unwrap(), a.get([32]).unwrap(), "{acc}");
        assert_eq!(s.to_vec().unwrap(), (10..40).collect::<Vec<_>>(), "{acc}");
        let v = a.view_as([10, 10]).unwrap();
        assert_eq!(v.get([3, 2]).unwrap(), 32, "{acc}");
    }
}

#[test]
fn nested_sections_and_projections_match_the_model() {
    let mut rng = Rng::new(3000);
    for round in 0..40 {
        let dims = [rng.range(1, 8), rng.range(1, 8), rng.range(1, 8)];
        let n = (dims[0] * dims[1] * dims[2]) as usize;
        let model: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let ctx = format!("round {round} parent {dims:?}");
        let av = ArrayView::new(dims, &model).unwrap();
        let g0 = Geo::dense(&dims);
        check(&av, &g0, &model, &ctx);
        // section of a section
        let (o1, e1) = random_section(&mut rng, &dims);
        let s1 = av.section(arr::<3>(&o1), arr::<3>(&e1)).unwrap();
        let g1 = g0.section(&o1, &e1);
        check(&s1, &g1, &model, &format!("{ctx} s1 {o1:?} {e1:?}"));
        let (o2, e2) = random_section(&mut rng, &e1);
        let s2 = s1.section(arr::<3>(&o2), arr::<3>(&e2)).unwrap();
        let g2 = g1.section(&o2, &e2);
        check(&s2, &g2, &model, &format!("{ctx} s2 {o2:?} {e2:?}"));
        // projection of the nested section, then a section of that
        let i = rng.range(0, e2[0]);
        let p = s2.project(i).unwrap();
        let gp = g2.project(i);
        check(&p, &gp, &model, &format!("{ctx} project {i}"));
        let (o3, e3) = random_section(&mut rng, &gp.extent);
        let s3 = p.section(arr::<2>(&o3), arr::<2>(&e3)).unwrap();
        let g3 = gp.section(&o3, &e3);
        check(&s3, &g3, &model, &format!("{ctx} s3 {o3:?} {e3:?}"));
        let j = rng.range(0, e3[0]);
        let q = s3.project(j).unwrap();
        let gq = g3.project(j);
        check(&q, &gq, &model, &format!("{ctx} project {j}"));
        let from = rng.range(0, e3[1]);
        let r = q.section_from([from]).unwrap();
        let gr = gq.section(&[from], &[e3[1] - from]);
        check(&r, &gr, &model, &format!("{ctx} section_from {from}"));
        // Whole-row sections are contiguous and can be viewed again.
        let rows = rng.range(1, dims[0] + 1);
        let start = rng.range(0, dims[0] - rows + 1);
        let whole = av.section([start, 0, 0], [rows, dims[1], dims[2]]).unwrap();
        assert!(whole.is_contiguous(), "{ctx}");
        let flat = whole.view_as([rows * dims[1] * dims[2]]).unwrap();
        let gw = g0.section(&[start, 0, 0], &[rows, dims[1], dims[2]]);
        check(
            &flat,
            &gw.view_as(&[rows * dims[1] * dims[2]]),
            &model,
            &ctx,
        );
    }
}

#[test]
fn writes_through_nested_views_land_in_the_parent() {
    let mut rng = Rng::new(3100);
    for round in 0..20 {
        let dims = [rng.range(1, 7), rng.range(1, 9), rng.range(1, 9)];
        let n = (dims[0] * dims[1] * dims[2]) as usize;
        let mut model: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        let mut data = model.clone();
        {
            let av = ArrayView::new_mut(dims, &mut data).unwrap();
            let (o1, e1) = random_section(&mut rng, &dims);
            let i = rng.range(0, e1[0]);
            let v = av
                .section(arr::<3>(&o1), arr::<3>(&e1))
                .unwrap()
                .project(i)
                .unwrap();
            let g = Geo::dense(&dims).section(&o1, &e1).project(i);
            for (k, idx) in v.extent().indices().enumerate() {
                let x = rng.next_u64() as i32;
                v.set(idx, x).unwrap();
                model[g.offsets()[k] as usize] = x;
            }
            assert_eq!(av.to_vec().unwrap(), model, "round {round}");
        }
        assert_eq!(data, model, "round {round}");
    }
}

#[test]
fn projections_of_every_rank() {
    let mut rng = Rng::new(3200);
    let dims = [2, 3, 2, 2, 3, 2, 2, 3];
    let n: i32 = dims.iter().product();
    let model: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let flat = ArrayView::new([n], &model).unwrap();
    let g8 = Geo::dense(&dims);
    let v8 = flat.view_as(dims).unwrap();
    check(&v8, &g8, &model, "rank 8");
    let picks: Vec<i32> = dims.iter().map(|&d| rng.range(0, d)).collect();
    let v7 = v8.project(picks[0]).unwrap();
    let g7 = g8.project(picks[0]);
    check(&v7, &g7, &model, "rank 7");
    let v6 = v7.project(picks[1]).unwrap();
    let g6 = g7.project(picks[1]);
    check(&v6, &g6, &model, "rank 6");
    let v5 = v6.project(picks[2]).unwrap();
    let g5 = g6.project(picks[2]);
    check(&v5, &g5, &model, "rank 5");
    let v4 = v5.project(picks[3]).unwrap();
    let g4 = g5.project(picks[3]);
    check(&v4, &g4, &model, "rank 4");
    let v3 = v4.project(picks[4]).unwrap();
    let g3 = g4.project(picks[4]);
    check(&v3, &g3, &model, "rank 3");
    let v2 = v3.project(picks[5]).unwrap();
    let g2 = g3.project(picks[5]);
    check(&v2, &g2, &model, "rank 2");
    let v1 = v2.project(picks[6]).unwrap();
    let g1 = g2.project(picks[6]);
    check(&v1, &g1, &model, "rank 1");
    // A projection of a section of every rank's view is that rank's row.
    let s = v8
        .section([1, 1, 0, 0, 1, 0, 0, 1], [1, 2, 2, 2, 2, 2, 2, 2])
        .unwrap();
    let gs = g8.section(&[1, 1, 0, 0, 1, 0, 0, 1], &[1, 2, 2, 2, 2, 2, 2, 2]);
    check(
        &s.project(0).unwrap(),
        &gs.project(0),
        &model,
        "section rank 8",
    );
    // Out-of-range projections are errors at every rank.
    assert!(matches!(v8.project(2), Err(Error::InvalidArgument(_))));
    assert!(matches!(v5.project(-1), Err(Error::InvalidArgument(_))));
    assert!(matches!(v2.project(3), Err(Error::InvalidArgument(_))));
}

#[test]
fn view_as_changes_rank_and_size() {
    let mut rng = Rng::new(3300);
    let model: Vec<f32> = (0..120).map(|_| rng.range(-999, 999) as f32).collect();
    let av = ArrayView::new([120], &model).unwrap();
    let cube = av.view_as([4, 5, 6]).unwrap();
    check(&cube, &Geo::dense(&[4, 5, 6]), &model, "1 -> 3");
    let back = cube.view_as([120]).unwrap();
    check(&back, &Geo::dense(&[120]), &model, "3 -> 1");
    // Fewer elements than the view: the leading ones.
    let fewer = cube.view_as([7, 9]).unwrap();
    check(&fewer, &Geo::dense(&[7, 9]), &model, "fewer");
    // A contiguous section viewed again starts at the section.
    let rows = cube
        .section([1, 0, 0], [2, 5, 6])
        .unwrap()
        .view_as([6, 10])
        .unwrap();
    check(&rows, &Geo::dense_at(30, &[6, 10]), &model, "rows");
    // A single partial row is contiguous too.
    let part = cube.section([2, 3, 1], [1, 1, 4]).unwrap();
    assert!(part.is_contiguous());
    check(
        &part.view_as([2, 2]).unwrap(),
        &Geo::dense_at(60 + 18 + 1, &[2, 2]),
        &model,
        "part",
    );
    // Errors: more elements, zero or negative extents, non-contiguous views.
    assert!(matches!(av.view_as([121]), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        av.view_as([11, 11]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(av.view_as([0]), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        av.view_as([-2, -3]),
        Err(Error::InvalidArgument(_))
    ));
    let block = cube.section([0, 1, 1], [2, 2, 2]).unwrap();
    assert!(!block.is_contiguous());
    assert!(matches!(block.view_as([8]), Err(Error::InvalidArgument(_))));
}

#[test]
fn reinterpret_as_reads_and_writes_the_same_bytes() {
    let mut rng = Rng::new(3400);
    let bits: Vec<u32> = (0..64).map(|_| rng.next_u64() as u32).collect();
    let av = ArrayView::new([8, 8], &bits).unwrap();
    let f = av.reinterpret_as::<f32>().unwrap();
    assert_eq!(f.extent(), Extent::new([64]));
    for (i, &b) in bits.iter().enumerate() {
        assert_eq!(f.get([i as i32]).unwrap().to_bits(), b);
        assert_eq!(f[[i as i32]].to_bits(), b);
    }
    let i = av.reinterpret_as::<i32>().unwrap();
    assert_eq!(
        i.to_vec().unwrap(),
        bits.iter().map(|&b| b as i32).collect::<Vec<_>>()
    );
    // Pairs of words as f64 (host access only: no accelerator involved).
    let d = av.section([2, 0], [3, 8]).unwrap().reinterpret_as::<f64>();
    if let Ok(d) = d {
        assert_eq!(d.extent(), Extent::new([12]));
        for k in 0..12 {
            let (lo, hi) = (bits[16 + 2 * k], bits[16 + 2 * k + 1]);
            let want = f64::from_bits(u64::from(lo) | u64::from(hi) << 32);
            assert_eq!(d.get([k as i32]).unwrap().to_bits(), want.to_bits());
        }
    }
    // Writes through a reinterpreted view land in the source's bytes.
    let mut data: Vec<f32> = (0..24).map(|_| rng.range(-999, 999) as f32 / 4.0).collect();
    let mut model: Vec<u32> = data.iter().map(|x| x.to_bits()).collect();
    {
        let fv = ArrayView::new_mut([4, 6], &mut data).unwrap();
        let u = fv
            .section([1, 0], [2, 6])
            .unwrap()
            .reinterpret_as::<u32>()
            .unwrap();
        assert_eq!(u.extent(), Extent::new([12]));
        for k in 0..12 {
            let x = rng.next_u64() as u32;
            u.set([k], x).unwrap();
            model[6 + k as usize] = x;
        }
        let back = fv.reinterpret_as::<u32>().unwrap();
        assert_eq!(back.to_vec().unwrap(), model);
    }
    assert_eq!(data.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), model);
    // f64 data as u32 words doubles the extent.
    let doubles = [1.5f64, -2.25, 1e300];
    let dv = ArrayView::new([3], &doubles).unwrap();
    let w = dv.reinterpret_as::<u32>().unwrap();
    assert_eq!(w.extent(), Extent::new([6]));
    assert_eq!(w.get([3]).unwrap(), (doubles[1].to_bits() >> 32) as u32);
}

// ---------------------------------------------------------------------------
// Bad arguments

fn is_invalid<T: std::fmt::Debug>(r: amp_core::Result<T>, ctx: &str) {
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{ctx}: {r:?}");
}

/// Every bad section, projection, `view_as` or `reinterpret_as` of a rank-2
/// view is `Err(InvalidArgument)` (and never a panic).
fn bad_arguments_2d<A: amp_core::Access>(v: &ArrayView<'_, u32, 2, A>, ctx: &str) {
    let e = v.extent();
    let (r, c) = (e[0], e[1]);
    for (origin, extent) in [
        ([0, 0], [0, c]),               // zero length
        ([0, 0], [r, 0]),               // zero length
        ([0, 0], [r + 1, c]),           // too long
        ([1, 0], [r, c]),               // too long from the origin
        ([0, c - 1], [1, 2]),           // past the end of a row
        ([r, 0], [1, 1]),               // origin out of bounds
        ([0, c], [1, 1]),               // origin out of bounds
        ([-1, 0], [1, 1]),              // negative origin
        ([0, -5], [1, 1]),              // negative origin
        ([0, 0], [-1, 1]),              // negative extent
        ([0, 0], [1, -c]),              // negative extent
        ([i32::MAX, 0], [i32::MAX, 1]), // origin + extent overflows i32
        ([0, 1], [1, i32::MAX]),        // ...at the edge
        ([i32::MIN, i32::MIN], [1, 1]), // extremes
        ([0, 0], [i32::MIN, i32::MIN]), // extremes
    ] {
        is_invalid(
            v.section(origin, extent),
            &format!("{ctx} section {origin:?} {extent:?}"),
        );
    }
    for origin in [
        [r, 0],
        [0, c],
        [-1, 0],
        [0, -1],
        [i32::MAX, 0],
        [i32::MIN, 0],
    ] {
        is_invalid(
            v.section_from(origin),
            &format!("{ctx} section_from {origin:?}"),
        );
    }
    for i in [-1, r, i32::MAX, i32::MIN] {
        is_invalid(v.project(i), &format!("{ctx} project {i}"));
    }
    for idx in [[r, 0], [0, c], [-1, 0], [i32::MIN, i32::MAX]] {
        is_invalid(v.get(idx), &format!("{ctx} get {idx:?}"));
    }
    is_invalid(v.view_as([r * c + 1]), &format!("{ctx} view_as larger"));
    is_invalid(v.view_as([0, 1]), &format!("{ctx} view_as zero"));
    is_invalid(v.view_as([-1]), &format!("{ctx} view_as negative"));
    if r > 1 && c > 1 {
        let block = v.section([0, 0], [r, c - 1]).unwrap();
        is_invalid(
            block.view_as([r * (c - 1)]),
            &format!("{ctx} view_as of a block"),
        );
        is_invalid(
            block.reinterpret_as::<f32>(),
            &format!("{ctx} reinterpret a block"),
        );
    }
    // An odd number of words is not a whole number of f64s.
    if (r * c) % 2 == 1 {
        is_invalid(v.reinterpret_as::<f64>(), &format!("{ctx} reinterpret odd"));
    }
    is_invalid(
        v.section([0, 0], [1, 1]).unwrap().reinterpret_as::<f64>(),
        &format!("{ctx} reinterpret one word as f64"),
    );
    // Nested: a valid section's own bounds apply, not the parent's.
    if r > 1 {
        let first = v.section([0, 0], [1, c]).unwrap();
        is_invalid(first.section([1, 0], [1, 1]), &format!("{ctx} nested"));
        is_invalid(first.project(1), &format!("{ctx} nested project"));
    }
}

#[amp_test]
fn bad_sections_are_invalid_arguments_never_panics() {
    let data: Vec<u32> = (0..35).collect();
    let mut writable = data.clone();
    let ro = ArrayView::new([5, 7], &data).unwrap();
    bad_arguments_2d(&ro, "read-only");
    {
        let rw = ArrayView::new_mut([5, 7], &mut writable).unwrap();
        bad_arguments_2d(&rw, "writable");
        is_invalid(rw.set([5, 0], 1), "set out of bounds");
        is_invalid(rw.set([0, -1], 1), "set negative");
    }
    assert_eq!(writable, data, "nothing was written");
    bad_arguments_2d(
        &ArrayView::<u32, 2>::with_extent([3, 3]).unwrap(),
        "no source",
    );
    for acc in accelerators() {
        let a = Array::from_slice([5, 7], &data, &acc.default_view()).unwrap();
        bad_arguments_2d(&a.view(), &format!("array on {acc}"));
        is_invalid(a.section([0, 0], [6, 7]), &format!("{acc} array section"));
        is_invalid(a.view_as([36]), &format!("{acc} array view_as"));
        assert_eq!(a.to_vec().unwrap(), data, "{acc}");
    }
    // Rank 1 and 3 edges.
    let one = ArrayView::new([35], &data).unwrap();
    is_invalid(one.section([0], [0]), "rank 1 zero");
    is_invalid(one.section([30], [6]), "rank 1 too long");
    is_invalid(one.section([35], [1]), "rank 1 origin");
    is_invalid(one.section([-3], [2]), "rank 1 negative");
    is_invalid(one.section([3], [-2]), "rank 1 negative extent");
    is_invalid(one.section_from([36]), "rank 1 section_from");
    is_invalid(one.section_from([35]), "rank 1 section_from the end");
    let three = one.view_as([5, 7, 1]).unwrap();
    is_invalid(three.section([0, 0, 0], [5, 7, 2]), "rank 3 too long");
    is_invalid(three.section([4, 6, 1], [1, 1, 1]), "rank 3 origin");
    // Sections of an empty view: empty sections are refused.
    let empty = ArrayView::<u32, 1>::with_extent([0]).unwrap();
    is_invalid(empty.section([0], [0]), "empty view");
    is_invalid(empty.section([0], [1]), "empty view");
    is_invalid(empty.reinterpret_as::<f32>(), "reinterpret an empty view");
}

// ---------------------------------------------------------------------------
// Inside kernels

#[amp_test]
fn section_view_as_inside_a_kernel() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(amp_core::QueuingMode::Automatic);
        let mut rng = Rng::new(3500 + k as u64);
        let input: Vec<u32> = (0..100).map(|_| rng.next_u64() as u32).collect();
        let vals: Vec<u32> = (0..30).map(|_| rng.next_u64() as u32).collect();
        let mut data = input.clone();
        {
            let av = ArrayView::new_mut([100], &mut data).unwrap();
            let s = av.section([10], [30]).unwrap().view_as([3, 10]).unwrap();
            // The kernel's element (i, j) of s is word 10 + 10 i + j.
            let at = Geo::dense(&[100])
                .section(&[10], &[30])
                .view_as(&[3, 10])
                .offsets();
            assert_eq!(at[22], 32);
            kernel_affine(&view, &s, &at, &vals).unwrap();
            let t = view.transfers();
            assert_eq!(
                t.bytes_uploaded - 2 * 30 * 4,
                30 * 4,
                "{acc}: only the section was uploaded (besides the index lists)"
            );
            let want32 = affine(input[32], vals[22]);
            assert_eq!(s.get([2, 2]).unwrap(), want32, "{acc}");
            assert_eq!(av.get([32]).unwrap(), want32, "{acc}");
            assert_eq!(
                view.transfers().bytes_downloaded,
                4,
                "{acc}: one element read"
            );
        }
        for (w, (got, old)) in data.iter().zip(&input).enumerate() {
            let want = if (10..40).contains(&w) {
                affine(*old, vals[w - 10])
            } else {
                *old
            };
            assert_eq!(*got, want, "{acc} word {w}");
        }
    }
}

#[amp_test]
fn nested_views_inside_kernels() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(amp_core::QueuingMode::Automatic);
        let mut rng = Rng::new(3600 + k as u64);
        for round in 0..6 {
            let dims = [rng.range(2, 7), rng.range(2, 8), rng.range(2, 9)];
            let n = (dims[0] * dims[1] * dims[2]) as usize;
            let input: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let mut model = input.clone();
            let mut data = input.clone();
            let ctx = format!("{acc} round {round} {dims:?}");
            {
                let av = ArrayView::new_mut(dims, &mut data).unwrap();
                let g0 = Geo::dense(&dims);
                // section -> project -> section (rank 2, strided)
                let (o1, e1) = random_section(&mut rng, &dims);
                let i = rng.range(0, e1[0]);
                let p = av
                    .section(arr::<3>(&o1), arr::<3>(&e1))
                    .unwrap()
                    .project(i)
                    .unwrap();
                let (o2, e2) = random_section(&mut rng, &p.extent().to_array());
                let v = p.section(arr::<2>(&o2), arr::<2>(&e2)).unwrap();
                let g = g0.section(&o1, &e1).project(i).section(&o2, &e2);
                let at = g.offsets();
                let vals: Vec<u32> = at.iter().map(|_| rng.next_u64() as u32).collect();
                let before = view.transfers();
                kernel_affine(&view, &v, &at, &vals).unwrap();
                let up = view.transfers().bytes_uploaded - before.bytes_uploaded;
                assert_eq!(up - 2 * at.len() as u64 * 4, at.len() as u64 * 4, "{ctx}");
                for (&w, &x) in at.iter().zip(&vals) {
                    model[w as usize] = affine(model[w as usize], x);
                }
                check(&v, &g, &model, &ctx);
                // whole rows -> view_as -> project (contiguous)
                let rows = rng.range(1, dims[0] + 1);
                let start = rng.range(0, dims[0] - rows + 1);
                let len = rows * dims[1] * dims[2];
                let cols = (1..=len).rev().find(|c| len % c == 0 && *c <= 16).unwrap();
                let flat = av
                    .section([start, 0, 0], [rows, dims[1], dims[2]])
                    .unwrap()
                    .view_as([len / cols, cols])
                    .unwrap();
                let j = rng.range(0, len / cols);
                let row = flat.project(j).unwrap();
                let g = g0
                    .section(&[start, 0, 0], &[rows, dims[1], dims[2]])
                    .view_as(&[len / cols, cols])
                    .project(j);
                let at = g.offsets();
                let vals: Vec<u32> = at.iter().map(|_| rng.next_u64() as u32).collect();
                kernel_affine(&view, &row, &at, &vals).unwrap();
                for (&w, &x) in at.iter().zip(&vals) {
                    model[w as usize] = affine(model[w as usize], x);
                }
                check(&row, &g, &model, &ctx);
                check(&av, &g0, &model, &ctx);
            }
            assert_eq!(data, model, "{ctx}");
        }
    }
}

#[amp_test]
fn read_only_sections_inside_kernels_upload_only_the_section() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(amp_core::QueuingMode::Immediate);
        let mut rng = Rng::new(3700 + k as u64);
        let dims = [9, 11];
        let input: Vec<u32> = (0..99).map(|_| rng.next_u64() as u32).collect();
        let av = ArrayView::new(dims, &input).unwrap();
        let (o, e) = ([2, 3], [5, 4]);
        let s = av.section(o, e).unwrap();
        let at = Geo::dense(&dims).section(&o, &e).offsets();
        let mut out = vec![0xDEAD_BEEFu32; at.len()];
        {
            let ov = ArrayView::new_mut([at.len() as i32], &mut out).unwrap();
            ov.discard_data();
            kernel_gather(&view, &s, &at, &ov).unwrap();
            let t = view.transfers();
            assert_eq!(
                t.bytes_uploaded,
                2 * at.len() as u64 * 4,
                "{acc}: the section and the index list, nothing else"
            );
        }
        let want: Vec<u32> = at.iter().map(|&w| input[w as usize]).collect();
        assert_eq!(out, want, "{acc}");
        assert_eq!(
            view.transfers().downloads,
            1,
            "{acc}: only the output came back"
        );
    }
}

#[amp_test]
fn reinterpreted_views_inside_kernels() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(amp_core::QueuingMode::Automatic);
        let mut rng = Rng::new(3800 + k as u64);
        let input: Vec<f32> = (0..48)
            .map(|_| rng.range(-9999, 9999) as f32 / 16.0)
            .collect();
        let mut data = input.clone();
        let vals: Vec<u32> = (0..16).map(|_| rng.next_u64() as u32).collect();
        {
            let av = ArrayView::new_mut([6, 8], &mut data).unwrap();
            // Rows 2..4 as raw words, viewed as a 4x4 block of u32.
            let u = av
                .section([2, 0], [2, 8])
                .unwrap()
                .reinterpret_as::<u32>()
                .unwrap()
                .view_as([4, 4])
                .unwrap();
            let at = Geo::dense(&[48])
                .section(&[16], &[16])
                .view_as(&[4, 4])
                .offsets();
            kernel_affine(&view, &u, &at, &vals).unwrap();
            assert_eq!(
                u.get([3, 3]).unwrap(),
                affine(input[31].to_bits(), vals[15]),
                "{acc}"
            );
        }
        for (w, (got, old)) in data.iter().zip(&input).enumerate() {
            let want = if (16..32).contains(&w) {
                affine(old.to_bits(), vals[w - 16])
            } else {
                old.to_bits()
            };
            assert_eq!(got.to_bits(), want, "{acc} word {w}");
        }
    }
}
