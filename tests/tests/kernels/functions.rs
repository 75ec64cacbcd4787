//! `#[kernel]` functions: plain, generic (`T: Float`, `T: Integer`), const
//! generic, calling each other and across modules, compared with the same
//! functions called from plain Rust on every accelerator.

use amp_core::prelude::*;
use amp_core::{Element, Float, Integer, kernel};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

#[kernel]
fn square(x: f32) -> f32 {
    x * x
}

#[kernel]
fn lerp<T: Float>(a: T, b: T, t: T) -> T {
    a + (b - a) * t
}

#[kernel]
fn clamp_index(i: i32, n: i32) -> i32 {
    if i < 0 {
        return 0;
    }
    if i >= n { n - 1 } else { i }
}

#[kernel]
fn wrap_mul<T: Integer>(a: T, b: T) -> T {
    a * b + a
}

#[kernel]
fn times<const K: i32>(x: i32) -> i32 {
    let mut acc = 0;
    for _ in 0..K {
        acc += x;
    }
    acc
}

mod nested {
    use amp_core::{Float, kernel};

    /// Calls a function of the parent module and a generic one.
    #[kernel]
    pub fn poly<T: Float>(x: T, y: T) -> T {
        super::lerp(x, y, x) * y
    }
}

#[amp_test]
fn kernels_call_functions() {
    const N: usize = 1000;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(100 + k as u64);
        let xs: Vec<f32> = (0..N)
            .map(|_| rng.range(-1000, 1000) as f32 / 100.0)
            .collect();
        let is: Vec<i32> = (0..N)
            .map(|_| rng.range(-2_000_000_000, 2_000_000_000))
            .collect();
        let mut fout = vec![f32::NAN; N];
        let mut iout = vec![i32::MIN; N];
        {
            let x = ArrayView::new([N as i32], &xs).unwrap();
            let iv = ArrayView::new([N as i32], &is).unwrap();
            let fo = ArrayView::new_mut([N as i32], &mut fout).unwrap();
            let io = ArrayView::new_mut([N as i32], &mut iout).unwrap();
            let n = N as i32;
            parallel_for_each!(acc.default_view(), fo.extent(), |idx: Index<1>| {
                let j = clamp_index(idx[0] + 3, n);
                let v = x[idx];
                fo[idx] = nested::poly(square(v), x[j]) + lerp(1.0f32, 2.0, 0.5);
                io[idx] = wrap_mul(iv[idx], 7) + times::<3>(iv[j]);
            })
            .unwrap();
        }
        for i in 0..N {
            let j = clamp_index(i as i32 + 3, N as i32) as usize;
            let want = nested::poly(square(xs[i]), xs[j]) + lerp(1.0f32, 2.0, 0.5);
            let got = fout[i];
            assert!(
                (got - want).abs() <= 1e-4 * want.abs().max(1.0),
                "{acc} {i}: {got} vs {want}"
            );
            let want_i = is[i]
                .wrapping_mul(7)
                .wrapping_add(is[i])
                .wrapping_add(is[j].wrapping_mul(3));
            assert_eq!(iout[i], want_i, "{acc} {i}");
        }
    }
}

/// `#[kernel]` functions of another crate (`amp_tests::kernel_fns`), plain
/// and generic with a const parameter, called by path and through `use`.
#[amp_test]
fn kernels_call_functions_of_another_crate() {
    use amp_tests::kernel_fns::repeat_add;
    const N: usize = 777;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(300 + k as u64);
        let xs: Vec<f32> = (0..N)
            .map(|_| rng.range(-1000, 1000) as f32 / 100.0)
            .collect();
        let us: Vec<u32> = (0..N).map(|_| rng.next_u64() as u32).collect();
        let mut fout = vec![f32::NAN; N];
        let mut uout = vec![0xDEAD_BEEFu32; N];
        {
            let x = ArrayView::new([N as i32], &xs).unwrap();
            let u = ArrayView::new([N as i32], &us).unwrap();
            let fo = ArrayView::new_mut([N as i32], &mut fout).unwrap();
            let uo = ArrayView::new_mut([N as i32], &mut uout).unwrap();
            parallel_for_each!(acc.default_view(), fo.extent(), |idx: Index<1>| {
                fo[idx] = amp_tests::kernel_fns::clamp_to(x[idx], -2.5, 4.0);
                uo[idx] = repeat_add::<u32, 5>(u[idx], 11);
            })
            .unwrap();
        }
        for i in 0..N {
            let want = amp_tests::kernel_fns::clamp_to(xs[i], -2.5, 4.0);
            assert_eq!(fout[i], want, "{acc} {i}");
            assert_eq!(fout[i], xs[i].clamp(-2.5, 4.0), "{acc} {i}");
            let want_u = us[i].wrapping_mul(5).wrapping_add(11);
            assert_eq!(uout[i], want_u, "{acc} {i}");
        }
    }
}

/// A kernel inside a const-generic host function (C++ AMP's
/// `convolution_dim_simple<dim>` template): each instantiation is its own
/// kernel.
fn shift_sum<const DIM: i32>(
    view: &AcceleratorView,
    input: &ArrayView<'_, i32, 2, amp_core::ReadOnly>,
    out: &ArrayView<'_, i32, 2>,
) {
    let len = input.extent()[DIM as usize];
    parallel_for_each!(view, out.extent(), |idx: Index<2>| {
        let mut j = idx;
        j[DIM] = (idx[DIM] + 1) % len;
        out[idx] = input[idx] * 3 + input[j];
    })
    .unwrap();
}

/// A kernel inside a type-generic host function.
fn scale_add<T: amp_core::Float + Element>(
    view: &AcceleratorView,
    x: &ArrayView<'_, T, 1, amp_core::ReadOnly>,
    out: &ArrayView<'_, T, 1>,
    k: T,
) {
    parallel_for_each!(view, out.extent(), |idx: Index<1>| {
        out[idx] = x[idx] * k + x[idx];
    })
    .unwrap();
}

#[amp_test]
fn kernels_in_generic_host_functions() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.default_view();
        let mut rng = Rng::new(500 + k as u64);
        let (r, c) = (13usize, 21usize);
        let input: Vec<i32> = (0..r * c).map(|_| rng.next_u64() as i32).collect();
        for dim in 0..2 {
            let mut out = vec![i32::MIN; r * c];
            {
                let iv = ArrayView::new([r as i32, c as i32], &input).unwrap();
                let ov = ArrayView::new_mut([r as i32, c as i32], &mut out).unwrap();
                if dim == 0 {
                    shift_sum::<0>(&view, &iv, &ov);
                } else {
                    shift_sum::<1>(&view, &iv, &ov);
                }
            }
            for i in 0..r {
                for j in 0..c {
                    let (ni, nj) = if dim == 0 {
                        ((i + 1) % r, j)
                    } else {
                        (i, (j + 1) % c)
                    };
                    let want = input[i * c + j]
                        .wrapping_mul(3)
                        .wrapping_add(input[ni * c + nj]);
                    assert_eq!(out[i * c + j], want, "{acc} dim {dim} ({i}, {j})");
                }
            }
        }
        let xs: Vec<f32> = (0..300)
            .map(|_| rng.range(-1000, 1000) as f32 / 8.0)
            .collect();
        let mut out = vec![f32::NAN; 300];
        {
            let xv = ArrayView::new([300], &xs).unwrap();
            let ov = ArrayView::new_mut([300], &mut out).unwrap();
            scale_add(&view, &xv, &ov, 0.5f32);
        }
        for i in 0..300 {
            assert_eq!(out[i], xs[i] * 0.5 + xs[i], "{acc} {i}");
        }
        if acc.supports_double_precision() {
            let xd: Vec<f64> = xs.iter().map(|&x| f64::from(x) / 3.0).collect();
            let mut outd = vec![f64::NAN; 300];
            {
                let xv = ArrayView::new([300], &xd).unwrap();
                let ov = ArrayView::new_mut([300], &mut outd).unwrap();
                scale_add(&view, &xv, &ov, 0.25f64);
            }
            for i in 0..300 {
                assert!(
                    (outd[i] - (xd[i] * 0.25 + xd[i])).abs() <= 1e-12 * xd[i].abs().max(1.0),
                    "{acc} {i}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// C++ AMP's `restrict(amp)` functions that take views and the tiled index

/// `y[i] += a * x[i]`, through a read-only and a writable view parameter.
#[kernel]
fn axpy_at(x: &ArrayView<'_, f32, 1, ReadOnly>, y: &ArrayView<'_, f32, 1>, i: i32, a: f32) {
    y[[i]] = a * x[[i]] + y[[i]];
}

/// The sum of `v[i - 1] + v[i] + v[i + 1]` inside the view (a generic
/// element type; the view's extent read through the parameter, as C++
/// AMP's data member `v.extent`).
#[kernel]
fn sum3<T: Number>(v: &ArrayView<'_, T, 1, ReadOnly>, i: i32) -> T {
    let mut s = v[[i]];
    if i > 0 {
        s = s + v[[i - 1]];
    }
    if i + 1 < v.extent[0] {
        s = s + v[[i + 1]];
    }
    s
}

/// Counts `v`'s value into its bin, calling on through a view parameter.
#[kernel]
fn count_into(hist: &ArrayView<'_, u32, 1>, v: u32) -> u32 {
    bump(hist, (v % 16) as i32)
}

#[kernel]
fn bump(hist: &ArrayView<'_, u32, 1>, bin: i32) -> u32 {
    atomic_fetch_add(&hist[[bin]], 1u32)
}

/// Reverses each tile of `data` in place: every work item reads its
/// element, waits on the tile's barrier (all memory), and writes it at the
/// mirrored place.
#[kernel]
fn reverse_tile(data: &ArrayView<'_, i32, 1>, t: &TiledIndex<1>, width: i32) {
    let v = data[t.global];
    t.barrier.wait();
    data[[t.tile_origin[0] + width - 1 - t.local[0]]] = v;
    t.barrier.wait();
}

/// Views and the tiled index passed to `#[kernel]` functions (C++ AMP's
/// `restrict(amp)` functions take `array_view`s by reference, and the
/// Microsoft samples BitonicSort, Transpose, Histogram, ... pass the
/// `tiled_index` on to functions that wait on its barrier): read-only and
/// writable view parameters (a writable view passed where a read-only one
/// is taken), a generic element type, `extent()` of a parameter, a view
/// passed on to another function, atomics through a parameter, and a tiled
/// function with barriers; against plain Rust on fresh random inputs on
/// every accelerator, every output element checked.
#[amp_test]
// Runs in the CPU accelerator's threaded form (the macro's warning says why).
#[allow(deprecated)]
fn functions_take_views_and_the_tiled_index() {
    const TS: i32 = 64;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xF00D + k as u64);
        let n = rng.range(1, 500);
        let xs: Vec<f32> = (0..n)
            .map(|_| rng.range(-1000, 1000) as f32 / 8.0)
            .collect();
        let ys: Vec<f32> = (0..n)
            .map(|_| rng.range(-1000, 1000) as f32 / 8.0)
            .collect();
        let is: Vec<i32> = (0..n).map(|_| rng.range(-100_000, 100_000)).collect();
        let a = rng.range(-8, 8) as f32 / 4.0;
        let mut y = ys.clone();
        let mut sums = vec![f32::NAN; n as usize];
        let mut isums = vec![i32::MIN; n as usize];
        let mut hist = vec![0u32; 16];
        let mut olds = vec![u32::MAX; n as usize];
        {
            let xv = ArrayView::new([n], &xs).unwrap();
            let iv = ArrayView::new([n], &is).unwrap();
            let yv = ArrayView::new_mut([n], &mut y).unwrap();
            let sv = ArrayView::new_mut([n], &mut sums).unwrap();
            let isv = ArrayView::new_mut([n], &mut isums).unwrap();
            let hv = ArrayView::new_mut([16], &mut hist).unwrap();
            let ov = ArrayView::new_mut([n], &mut olds).unwrap();
            parallel_for_each!(&view, yv.extent(), |idx: Index<1>| {
                axpy_at(&xv, &yv, idx[0], a);
            })
            .unwrap();
            parallel_for_each!(&view, sv.extent(), |idx: Index<1>| {
                // `yv` is writable: passed where a read-only view is taken.
                sv[idx] = sum3(&yv, idx[0]);
                isv[idx] = sum3(&iv, idx[0]);
                ov[idx] = count_into(&hv, iv[idx] as u32);
            })
            .unwrap();
        }
        let want_y: Vec<f32> = (0..n as usize).map(|i| a * xs[i] + ys[i]).collect();
        assert_eq!(y, want_y, "{acc}");
        for i in 0..n as usize {
            let mut s = want_y[i];
            let mut t = is[i];
            if i > 0 {
                s += want_y[i - 1];
                t = t.wrapping_add(is[i - 1]);
            }
            if i + 1 < n as usize {
                s += want_y[i + 1];
                t = t.wrapping_add(is[i + 1]);
            }
            assert_eq!(sums[i], s, "{acc}: element {i}");
            assert_eq!(isums[i], t, "{acc}: element {i}");
        }
        let mut want_hist = vec![0u32; 16];
        for &v in &is {
            want_hist[(v as u32 % 16) as usize] += 1;
        }
        assert_eq!(hist, want_hist, "{acc}");
        // Each bin's old values are 0, 1, .. in some order.
        for b in 0..16u32 {
            let mut got: Vec<u32> = (0..n as usize)
                .filter(|&i| is[i] as u32 % 16 == b)
                .map(|i| olds[i])
                .collect();
            got.sort_unstable();
            let want: Vec<u32> = (0..got.len() as u32).collect();
            assert_eq!(got, want, "{acc}: bin {b}");
        }
        // The tiled function.
        let tiles = rng.range(1, 6);
        let data: Vec<i32> = (0..tiles * TS).map(|_| rng.range(-1000, 1000)).collect();
        let mut out = data.clone();
        {
            let dv = ArrayView::new_mut([tiles * TS], &mut out).unwrap();
            let domain = Extent::new([tiles * TS]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                reverse_tile(&dv, &t, TS);
            })
            .unwrap();
        }
        for (g, &v) in out.iter().enumerate() {
            let partner = (g / TS as usize) * TS as usize + TS as usize - 1 - g % TS as usize;
            assert_eq!(v, data[partner], "{acc}: element {g}");
        }
    }
}

// ---------------------------------------------------------------------------
// `&mut` parameters (C++ AMP's `T&` parameters of restrict(amp) functions)

/// Exchanges two values.
#[kernel]
fn swap_values<T: Number>(a: &mut T, b: &mut T) {
    let t = *a;
    *a = *b;
    *b = t;
}

/// Orders two values, passing its own `&mut` parameters on.
#[kernel]
fn order2(lo: &mut i32, hi: &mut i32) -> bool {
    if *lo > *hi {
        swap_values(lo, hi);
        return true;
    }
    false
}

/// Adds `x * k` to element `k` of a local array the caller owns.
#[kernel]
fn accumulate(acc: &mut [f32; 4], x: f32) {
    for k in 0..4 {
        acc[k] += x * k as f32;
    }
    *acc = [acc[3], acc[2], acc[1], acc[0]];
}

/// `&mut` parameters: locals and whole local arrays passed as `&mut x`,
/// read and written through `*p` (and `p[k]` for arrays), passed on to
/// another function; a generic one. Against plain
/// Rust (the same functions called on the host) on random inputs, on every
/// accelerator.
#[amp_test]
fn functions_take_mut_references_to_locals() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xBEEF + k as u64);
        let n = rng.range(1, 400);
        let xs: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let ys: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut lo = vec![i32::MIN; n as usize];
        let mut hi = vec![i32::MIN; n as usize];
        let mut sums = vec![f32::NAN; n as usize];
        {
            let xv = ArrayView::new([n], &xs).unwrap();
            let yv = ArrayView::new([n], &ys).unwrap();
            let lv = ArrayView::new_mut([n], &mut lo).unwrap();
            let hv = ArrayView::new_mut([n], &mut hi).unwrap();
            let sv = ArrayView::new_mut([n], &mut sums).unwrap();
            parallel_for_each!(&view, lv.extent(), |i: Index<1>| {
                let mut a = xv[i];
                let mut b = yv[i];
                let swapped = order2(&mut a, &mut b);
                lv[i] = a;
                hv[i] = if swapped { b + 1_000_000 } else { b };
                let mut acc = [0.0f32; 4];
                accumulate(&mut acc, a as f32);
                let (mut first, mut third) = (acc[0], acc[2]);
                swap_values(&mut first, &mut third);
                acc[0] = first;
                acc[2] = third;
                sv[i] = acc[0] * 1000.0 + acc[1] * 100.0 + acc[2] * 10.0 + acc[3];
            })
            .unwrap();
        }
        for i in 0..n as usize {
            let (mut a, mut b) = (xs[i], ys[i]);
            let swapped = order2(&mut a, &mut b);
            assert_eq!(lo[i], a, "{acc}: element {i}");
            assert_eq!(
                hi[i],
                if swapped { b + 1_000_000 } else { b },
                "{acc}: element {i}"
            );
            let mut s = [0.0f32; 4];
            accumulate(&mut s, a as f32);
            let (s0, s2) = (s[0], s[2]);
            s[0] = s2;
            s[2] = s0;
            assert_eq!(
                sums[i],
                s[0] * 1000.0 + s[1] * 100.0 + s[2] * 10.0 + s[3],
                "{acc}: element {i}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// `tile_static` inside `#[kernel]` functions (C++ AMP allows `tile_static`
// variables in `restrict(amp)` functions called from tiled kernels)

/// The element of `data` at the mirrored place of the work item's tile,
/// through a `tile_static` array of the function: one array per tile and
/// per instance (`T` = `f32` and `T` = `i32` are two), shared by the tile's
/// work items, and not the kernel's array of the same name.
#[kernel]
fn mirrored_in_tile<T: Number>(data: &ArrayView<'_, T, 1, ReadOnly>, t: &TiledIndex<1>) -> T {
    tile_static! { let s: [T; 32]; }
    s[t.local[0]] = data[t.global];
    t.barrier.wait();
    let v = s[31 - t.local[0]];
    t.barrier.wait();
    v
}

/// Counts the work items of the tile through a `tile_static` scalar of the
/// function, written by work item 0 and counted into with atomics.
#[kernel]
fn tile_population(t: &TiledIndex<1>) -> u32 {
    tile_static! { let count: u32; }
    if t.local[0] == 0 {
        count = 0u32;
    }
    t.barrier.wait();
    atomic_fetch_inc(&count);
    t.barrier.wait();
    count
}

/// `tile_static!` inside `#[kernel]` functions: per tile and per function
/// instance (a generic function called for `f32` and for `i32`, twice for
/// `i32`), separate from the kernel's own array of the same name, and a
/// `tile_static` scalar; against plain Rust on fresh random inputs on every
/// accelerator, every output element checked.
#[amp_test]
// Runs in the CPU accelerator's threaded form (the macro's warning says why).
#[allow(deprecated)]
fn functions_declare_tile_static_memory() {
    const TS: i32 = 32;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xF1F0 + k as u64);
        let tiles = rng.range(1, 9);
        let n = tiles * TS;
        let fs: Vec<f32> = (0..n)
            .map(|_| rng.range(-1000, 1000) as f32 / 4.0)
            .collect();
        let is: Vec<i32> = (0..n).map(|_| rng.range(-100_000, 100_000)).collect();
        let js: Vec<i32> = (0..n).map(|_| rng.range(-100_000, 100_000)).collect();
        let mut fout = vec![f32::NAN; n as usize];
        let mut iout = vec![i32::MIN; n as usize];
        let mut counts = vec![u32::MAX; n as usize];
        {
            let fv = ArrayView::new([n], &fs).unwrap();
            let iv = ArrayView::new([n], &is).unwrap();
            let jv = ArrayView::new([n], &js).unwrap();
            let fo = ArrayView::new_mut([n], &mut fout).unwrap();
            let io = ArrayView::new_mut([n], &mut iout).unwrap();
            let co = ArrayView::new_mut([n], &mut counts).unwrap();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; 32]; }
                s[t.local[0]] = 7;
                let f = mirrored_in_tile(&fv, &t);
                let a = mirrored_in_tile(&iv, &t);
                let b = mirrored_in_tile(&jv, &t);
                let c = tile_population(&t);
                t.barrier.wait();
                fo[t.global] = f;
                // The kernel's `s` is still 7 everywhere.
                io[t.global] = a - b * 3 + s[31 - t.local[0]];
                co[t.global] = c;
            })
            .unwrap();
        }
        for g in 0..n as usize {
            let p = (g / TS as usize) * TS as usize + TS as usize - 1 - g % TS as usize;
            assert_eq!(fout[g], fs[p], "{acc}: element {g}");
            let want = is[p].wrapping_sub(js[p].wrapping_mul(3)).wrapping_add(7);
            assert_eq!(iout[g], want, "{acc}: element {g}");
            assert_eq!(counts[g], TS as u32, "{acc}: element {g}");
        }
    }
}

// ---------------------------------------------------------------------------
// `&mut` to elements (C++ AMP passes `T&` to elements of arrays, views and
// `tile_static` arrays)

/// `&mut` to elements of a `tile_static` array, of a writable view and of
/// a local array, passed to `#[kernel]` functions (copied in, passed and
/// stored back): an odd-even transposition sort of each tile in
/// `tile_static` memory with `order2(&mut s[a], &mut s[b])`, the swapped
/// count written with `let r = order2(..)`, a view element doubled in
/// place and a local array's elements swapped with indices evaluated once;
/// against plain Rust on random inputs on every accelerator.
#[amp_test]
fn mut_references_to_elements_are_passed_to_functions() {
    const TS: i32 = 16;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xF2F0 + k as u64);
        let tiles = rng.range(1, 7);
        let n = tiles * TS;
        let data: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut sorted = vec![i32::MIN; n as usize];
        let mut scaled: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let before = scaled.clone();
        let mut swaps = vec![-1i32; n as usize];
        {
            let dv = ArrayView::new([n], &data).unwrap();
            let so = ArrayView::new_mut([n], &mut sorted).unwrap();
            let sc = ArrayView::new_mut([n], &mut scaled).unwrap();
            let sw = ArrayView::new_mut([n], &mut swaps).unwrap();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; 16]; }
                let l = t.local[0];
                s[l] = dv[t.global];
                t.barrier.wait();
                let mut count = 0;
                for phase in 0..16 {
                    let a = 2 * (l / 2) + phase % 2;
                    if l % 2 == 0 && a + 1 < 16 {
                        let swapped = order2(&mut s[a], &mut s[a + 1]);
                        if swapped {
                            count += 1;
                        }
                    }
                    t.barrier.wait();
                }
                so[t.global] = s[l];
                sw[t.global] = count;
                // A view element, in place.
                swap_values(&mut sc[t.global], &mut sc[t.global]);
                let mut pair = [sc[t.global], 3 * sc[t.global]];
                let mut i = 0;
                // Each index once: `i` is 0 for the read and the write.
                swap_values(&mut pair[i], &mut pair[1]);
                i += 1;
                sc[t.global] = pair[0] - pair[i];
            })
            .unwrap();
        }
        for tile in 0..tiles as usize {
            let r = tile * TS as usize..(tile + 1) * TS as usize;
            let mut want = data[r.clone()].to_vec();
            want.sort_unstable();
            assert_eq!(&sorted[r.clone()], &want[..], "{acc}: tile {tile}");
            // Odd-even transposition: even work items count their swaps.
            let mut model = data[r.clone()].to_vec();
            let mut counts = vec![0i32; TS as usize];
            for phase in 0..16usize {
                for l in (0..TS as usize).step_by(2) {
                    let a = l + phase % 2;
                    if a + 1 < 16 && model[a] > model[a + 1] {
                        model.swap(a, a + 1);
                        counts[l] += 1;
                    }
                }
            }
            assert_eq!(&swaps[r.clone()], &counts[..], "{acc}: tile {tile}");
        }
        let want: Vec<i32> = before
            .iter()
            .map(|&x| x.wrapping_mul(3).wrapping_sub(x))
            .collect();
        assert_eq!(scaled, want, "{acc}");
    }
}

/// Doubles `*x` and returns the doubled value plus one.
#[kernel]
fn double_then_next(x: &mut i32) -> i32 {
    *x = *x * 2;
    *x + 1
}

/// Both elements of a local array the caller owns, doubled through
/// `&mut` calls inside a `return` expression.
#[kernel]
fn double_both(pair: &mut [i32; 2]) -> i32 {
    return double_then_next(&mut pair[0]) - double_then_next(&mut pair[1]);
}

/// `&mut` to elements inside larger expressions: the call becomes a
/// statement of its own, and what Rust evaluates before it (the left
/// operand reading the same element) is evaluated first; in a `let`, an
/// assignment, a compound assignment, an `if` condition, nested in another
/// call and as a block's value; against plain Rust on every accelerator.
#[amp_test]
fn mut_references_to_elements_inside_expressions() {
    const N: usize = 300;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(0xF3F0 + k as u64);
        let start: Vec<i32> = (0..N).map(|_| rng.range(-1000, 1000)).collect();
        let mut data = start.clone();
        let mut out = vec![i32::MIN; N * 5];
        {
            let d = ArrayView::new_mut([N as i32], &mut data).unwrap();
            let o = ArrayView::new_mut([N as i32 * 5], &mut out).unwrap();
            parallel_for_each!(acc.default_view(), d.extent(), |i: Index<1>| {
                let g = i[0] * 5;
                let mut local = [d[i], 7];
                // The left operand reads the element before the call doubles it.
                let v = d[i] + double_then_next(&mut d[i]) * 10;
                // A unit call as a block's value: swapped twice.
                for _ in 0..2 {
                    swap_values(&mut local[0], &mut local[1])
                }
                o[g] = v;
                o[g + 1] = 1 + double_then_next(&mut local[0]);
                o[g + 2] += double_then_next(&mut local[1]) - local[1];
                if double_then_next(&mut local[0]) > 0 {
                    o[g + 3] = local[0];
                } else {
                    o[g + 3] = -local[0];
                }
                o[g + 4] = {
                    let w = local[1];
                    (w, double_then_next(&mut local[1])).0
                        * double_then_next(&mut local[1]).max(local[1])
                } + double_both(&mut local) * 1000
                    + if g >= 0 {
                        double_then_next(&mut local[1])
                    } else {
                        0
                    } * 100_000;
            })
            .unwrap();
        }
        for i in 0..N {
            let x = start[i];
            let mut e = x;
            let dtn = |v: &mut i32| {
                *v = v.wrapping_mul(2);
                v.wrapping_add(1)
            };
            let mut want = [0i32; 5];
            want[0] = x.wrapping_add(dtn(&mut e).wrapping_mul(10));
            assert_eq!(data[i], e, "{acc}: element {i} doubled in place");
            let mut local = [x, 7];
            want[1] = 1 + dtn(&mut local[0]);
            want[2] = i32::MIN.wrapping_add(dtn(&mut local[1]) - local[1]);
            want[3] = if dtn(&mut local[0]) > 0 {
                local[0]
            } else {
                -local[0]
            };
            let w = local[1];
            let first = (w, dtn(&mut local[1])).0;
            let second = dtn(&mut local[1]).max(local[1]);
            let both = dtn(&mut local[0]) - dtn(&mut local[1]);
            let last = dtn(&mut local[1]);
            want[4] = first
                .wrapping_mul(second)
                .wrapping_add(both.wrapping_mul(1000))
                .wrapping_add(last.wrapping_mul(100_000));
            assert_eq!(&out[i * 5..i * 5 + 5], &want, "{acc}: element {i} from {x}");
        }
    }
}

/// Adds two to `*x` through a reference to the parameter (`&mut *x`) and a
/// copy of that reference.
#[kernel]
fn bump_twice(x: &mut i32) {
    let r = &mut *x;
    *r += 1;
    let q = r;
    *q += 1;
}

/// References bound by `let` (C++ AMP's `T& r = ..;` in `restrict(amp)`
/// code): to a local (read, written, auto-dereferenced by a method,
/// copied), to a view element whose index changes after the `let` (the
/// reference keeps its element) and passed on to a `#[kernel]` function,
/// a shared reference to a read-only view's element, to a `tile_static`
/// scalar (assigned, and the target of an atomic) and to a `tile_static`
/// array element, and a name shadowing a reference; against plain Rust
/// on random inputs on every accelerator.
#[amp_test]
fn references_bound_by_let() {
    const TS: i32 = 16;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xAEF0 + k as u64);
        let tiles = rng.range(1, 6);
        let n = tiles * TS;
        let x: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let before: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut acc_data = before.clone();
        let mut out = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([n], &x).unwrap();
            let av = ArrayView::new_mut([n], &mut acc_data).unwrap();
            let ov = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! {
                    let s: [i32; 16];
                    let total: i32;
                }
                let l = t.local[0];
                let mut v = xv[t.global];
                let r = &mut v;
                *r += 1;
                *r = *r * 2;
                let w = r.abs();
                let r2 = r;
                *r2 -= 1;
                let mut g = t.global[0];
                let e = &mut av[g];
                g = 0;
                *e -= v + g;
                bump_twice(e);
                let xr = &xv[t.global];
                if l == 0 {
                    let z = &mut total;
                    *z = 0;
                }
                t.barrier.wait();
                let tot = &mut total;
                atomic_fetch_add(tot, *xr);
                t.barrier.wait();
                let cell = &mut s[l];
                *cell = *tot + l;
                t.barrier.wait();
                let r = s[(l + 1) % 16];
                ov[t.global] = r + w;
            })
            .unwrap();
        }
        for tile in 0..tiles as usize {
            let ts = TS as usize;
            let sum: i32 = x[tile * ts..(tile + 1) * ts].iter().sum();
            for l in 0..ts {
                let gid = tile * ts + l;
                let v = 2 * (x[gid] + 1);
                let want_acc = before[gid] - (v - 1) + 2;
                assert_eq!(acc_data[gid], want_acc, "{acc}: element {gid}");
                let want_out = sum + ((l + 1) % ts) as i32 + v.abs();
                assert_eq!(out[gid], want_out, "{acc}: element {gid}");
            }
        }
    }
}

/// The larger of two values, by reference (C++ AMP's `int& larger(int& a,
/// int& b) restrict(amp)`).
#[kernel]
fn larger<'a>(a: &'a mut i32, b: &'a mut i32) -> &'a mut i32 {
    if *a >= *b { a } else { b }
}

/// One of three values by reference, chosen by `k` with a `return` and a
/// `match`.
#[kernel]
fn pick3<'a>(k: i32, x: &'a mut i32, y: &'a mut i32, z: &'a mut i32) -> &'a mut i32 {
    if k == 0 {
        return x;
    }
    match k {
        1 => y,
        _ => &mut *z,
    }
}

/// Adds 100 to the larger of its two parameters, passing them on to a
/// function with a `&mut` result.
#[kernel]
fn bump_larger(a: &mut i32, b: &mut i32) {
    let r = larger(a, b);
    *r += 100;
}

/// `&mut` results of `#[kernel]` functions: bound by `let` and read and
/// written through (`*r += 1`, `*r = *r * 2`), dereferenced where the call
/// is made (`let v = *larger(..)`, `*pick3(..) *= 3`), chosen with `if`,
/// `return` and `match`, referring to a view element (written in place)
/// and to a function's own `&mut` parameters; against the same code with
/// Rust's references on random inputs, on every accelerator.
#[amp_test]
fn mut_results_of_functions() {
    fn larger_ref<'a>(a: &'a mut i32, b: &'a mut i32) -> &'a mut i32 {
        if *a >= *b { a } else { b }
    }
    fn pick3_ref<'a>(k: i32, x: &'a mut i32, y: &'a mut i32, z: &'a mut i32) -> &'a mut i32 {
        match k {
            0 => x,
            1 => y,
            _ => z,
        }
    }
    const N: usize = 300;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let mut rng = Rng::new(0xBEF0 + k as u64);
        let xs: Vec<i32> = (0..N).map(|_| rng.range(-100, 100)).collect();
        let ys: Vec<i32> = (0..N).map(|_| rng.range(-100, 100)).collect();
        let start: Vec<i32> = (0..N).map(|_| rng.range(-100, 100)).collect();
        let mut data = start.clone();
        let mut out = vec![i32::MIN; N * 4];
        {
            let xv = ArrayView::new([N as i32], &xs).unwrap();
            let yv = ArrayView::new([N as i32], &ys).unwrap();
            let d = ArrayView::new_mut([N as i32], &mut data).unwrap();
            let o = ArrayView::new_mut([N as i32 * 4], &mut out).unwrap();
            parallel_for_each!(acc.default_view(), d.extent(), |i: Index<1>| {
                let mut x = xv[i];
                let mut y = yv[i];
                let r = larger(&mut x, &mut y);
                *r += 1;
                let m = *r;
                let e = larger(&mut d[i], &mut y);
                *e = *e * 2;
                let v = *larger(&mut x, &mut y);
                let k = i[0] % 3;
                let mut z = m - v;
                *pick3(k, &mut x, &mut y, &mut z) *= 3;
                bump_larger(&mut x, &mut z);
                let base = i[0] * 4;
                o[base] = x;
                o[base + 1] = y;
                o[base + 2] = z;
                o[base + 3] = m + v;
            })
            .unwrap();
        }
        let mut want_data = start.clone();
        for j in 0..N {
            let (mut x, mut y) = (xs[j], ys[j]);
            let r = larger_ref(&mut x, &mut y);
            *r += 1;
            let m = *r;
            let e = larger_ref(&mut want_data[j], &mut y);
            *e *= 2;
            let v = *larger_ref(&mut x, &mut y);
            let mut z = m - v;
            *pick3_ref(j as i32 % 3, &mut x, &mut y, &mut z) *= 3;
            *larger_ref(&mut x, &mut z) += 100;
            assert_eq!(
                &out[j * 4..j * 4 + 4],
                &[x, y, z, m + v],
                "{acc}: element {j}"
            );
        }
        assert_eq!(data, want_data, "{acc}");
    }
}

// ---------------------------------------------------------------------------
// Writable view parameters that a function only reads, passed on (C++ AMP
// helpers take `array_view<float, 2>` whatever they do with it)

/// The sum over the work item's tile of `a[i] * b[i]`, through a
/// `tile_static` array and a barrier; `a` and `b` are writable view
/// parameters this function only reads.
#[kernel]
fn tile_dot(t: &TiledIndex<1>, a: &ArrayView<'_, f32, 1>, b: &ArrayView<'_, f32, 1>) -> f32 {
    tile_static! { let part: [f32; 16]; }
    part[t.local[0]] = a[t.global] * b[t.global];
    t.barrier.wait();
    let mut sum = 0.0f32;
    for k in 0..16 {
        sum += part[k];
    }
    t.barrier.wait();
    sum
}

/// Passes its writable views on to [`tile_dot`] (which only reads them)
/// and writes the result where the work item's element is.
#[kernel]
fn store_tile_dot(
    t: &TiledIndex<1>,
    a: &ArrayView<'_, f32, 1>,
    b: &ArrayView<'_, f32, 1>,
    out: &ArrayView<'_, f32, 1>,
) {
    let s = tile_dot(t, a, b);
    out[t.global] = s;
}

/// Writable view parameters that the called function only reads, passed
/// on from one `#[kernel]` function to another with the tiled index (the
/// views the kernel never writes are bound read-only on GPUs, and the
/// functions' instances must still accept them); against plain Rust on
/// fresh random inputs on every accelerator, every output element
/// checked.
#[amp_test]
// Runs in the CPU accelerator's threaded form (the macro's warning says why).
#[allow(deprecated)]
fn writable_view_parameters_only_read_are_passed_on() {
    const TS: i32 = 16;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xD07 + k as u64);
        let n = rng.range(1, 12) * TS;
        let mut xs: Vec<f32> = (0..n).map(|_| rng.range(-64, 64) as f32 / 4.0).collect();
        let mut ys: Vec<f32> = (0..n).map(|_| rng.range(-64, 64) as f32 / 4.0).collect();
        let (x0, y0) = (xs.clone(), ys.clone());
        let mut out = vec![f32::NAN; n as usize];
        {
            let xv = ArrayView::new_mut([n], &mut xs).unwrap();
            let yv = ArrayView::new_mut([n], &mut ys).unwrap();
            let ov = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                store_tile_dot(&t, &xv, &yv, &ov);
            })
            .unwrap();
            ov.synchronize().unwrap();
        }
        assert_eq!((xs, ys), (x0.clone(), y0.clone()), "{acc}: inputs changed");
        for (g, got) in out.iter().enumerate() {
            let tile = g / TS as usize * TS as usize;
            let mut want = 0.0f32;
            for i in tile..tile + TS as usize {
                want += x0[i] * y0[i];
            }
            assert_eq!(*got, want, "{acc}: element {g}");
        }
    }
}

// ---------------------------------------------------------------------------
// Per-thread arguments next to the tiled index (C++ AMP helpers take the
// `tiled_index` and values of the calling thread)

/// The sum over the work item's tile of `a[i] * w[i]`: each work item
/// stores its own product (`flat` is its place in the tile, `weight` its
/// own weight, both differing between work items) before the barrier.
#[kernel]
fn weighted_tile_sum(
    t: &TiledIndex<1>,
    flat: i32,
    a: &ArrayView<'_, f32, 1, ReadOnly>,
    weight: f32,
) -> f32 {
    tile_static! { let part: [f32; 16]; }
    part[flat] = a[t.global] * weight;
    t.barrier.wait();
    let mut sum = 0.0f32;
    for k in 0..16 {
        sum += part[k];
    }
    t.barrier.wait();
    sum
}

/// A `#[kernel]` function that takes the tiled index and arguments that
/// differ between the work items of a tile (its place in the tile, a
/// loaded weight), accepted because the function's barriers do not depend
/// on them (its summary, checked at compile time); against plain Rust on
/// fresh random inputs on every accelerator, every output element checked.
#[amp_test]
// Runs in the CPU accelerator's threaded form (the macro's warning says why).
#[allow(deprecated)]
fn functions_take_the_tiled_index_and_per_thread_arguments() {
    const TS: i32 = 16;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0x7A11 + k as u64);
        let n = rng.range(1, 12) * TS;
        let xs: Vec<f32> = (0..n).map(|_| rng.range(-64, 64) as f32 / 4.0).collect();
        let ws: Vec<f32> = (0..n).map(|_| rng.range(-8, 8) as f32 / 2.0).collect();
        let mut out = vec![f32::NAN; n as usize];
        {
            let xv = ArrayView::new([n], &xs).unwrap();
            let wv = ArrayView::new([n], &ws).unwrap();
            let ov = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                let flat = t.local[0];
                ov[t.global] = weighted_tile_sum(&t, flat, &xv, wv[t.global]);
            })
            .unwrap();
            ov.synchronize().unwrap();
        }
        for (g, got) in out.iter().enumerate() {
            let tile = g / TS as usize * TS as usize;
            let mut want = 0.0f32;
            for i in tile..tile + TS as usize {
                want += xs[i] * ws[i];
            }
            assert_eq!(*got, want, "{acc}: element {g}");
        }
    }
}

// ---------------------------------------------------------------------------
// References chosen at run time (C++ AMP's pointer to one of several
// objects: `float* p = c ? &a : &b;`)

/// `let r = if c { &mut x } else if .. { &mut a[i] } else { &mut tile[j] };`:
/// a reference to a local, an element of a local array or a `tile_static`
/// element, chosen per work item; written through (`*r += v`) and read
/// (`*r`), and a shared `&` chosen the same way; against plain Rust on
/// fresh random inputs on every accelerator, every output element checked.
#[amp_test]
fn references_chosen_at_run_time() {
    const TS: i32 = 8;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0x5E1 + k as u64);
        let n = rng.range(1, 20) * TS;
        let xs: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut out = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([n], &xs).unwrap();
            let ov = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; 8]; }
                s[t.local[0]] = 0;
                t.barrier.wait();
                let v = xv[t.global];
                let mut x = 1;
                let mut a = [10, 20, 30];
                let r = if v > 500 {
                    &mut x
                } else if v < -500 {
                    &mut a[((v & 1) + 1) as usize]
                } else {
                    &mut s[t.local[0]]
                };
                *r += v;
                let q = if v % 2 == 0 { &x } else { &a[2] };
                ov[t.global] = *r * 3 + *q + x + a[1] + a[2] + s[t.local[0]];
            })
            .unwrap();
            ov.synchronize().unwrap();
        }
        for (g, &v) in xs.iter().enumerate() {
            let mut x = 1;
            let mut a = [10, 20, 30];
            let mut s = 0;
            let r = if v > 500 {
                &mut x
            } else if v < -500 {
                &mut a[(v & 1) as usize + 1]
            } else {
                &mut s
            };
            *r += v;
            let rv = *r;
            let q = if v % 2 == 0 { x } else { a[2] };
            let want = rv * 3 + q + x + a[1] + a[2] + s;
            assert_eq!(out[g], want, "{acc}: element {g} ({v})");
        }
    }
}

/// Adds `v` to `*acc` (a `&mut` parameter).
#[kernel]
fn add_into(acc: &mut i32, v: i32) {
    *acc += v;
}

/// A `&mut` local passed to a `#[kernel]` function in a loop whose body
/// waits on the tile's barrier (a running sum over the tile's rounds, a
/// `tile_static` array refilled each round): the local keeps its value
/// across the barriers (the CPU accelerator's split form carries it per
/// work item); against plain Rust on fresh random inputs on every
/// accelerator, every output element checked.
#[amp_test]
fn mut_locals_passed_to_functions_in_loops_with_barriers() {
    const TS: i32 = 8;
    const ROUNDS: i32 = 5;
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xACC + k as u64);
        let n = rng.range(1, 10) * TS;
        let xs: Vec<i32> = (0..n * ROUNDS).map(|_| rng.range(-1000, 1000)).collect();
        let mut out = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([ROUNDS, n], &xs).unwrap();
            let ov = ArrayView::new_mut([n], &mut out).unwrap();
            let domain = Extent::new([n]).tile::<TS>().unwrap();
            parallel_for_each!(&view, domain, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; 8]; }
                let mut total = 0;
                for r in 0..ROUNDS {
                    s[t.local[0]] = xv[[r, t.global[0]]];
                    t.barrier.wait();
                    add_into(&mut total, s[TS - 1 - t.local[0]]);
                    t.barrier.wait();
                }
                ov[t.global] = total;
            })
            .unwrap();
            ov.synchronize().unwrap();
        }
        for (g, got) in out.iter().enumerate() {
            let tile = g / TS as usize * TS as usize;
            let mirrored = tile + TS as usize - 1 - g % TS as usize;
            let want: i32 = (0..ROUNDS as usize)
                .map(|r| xs[r * n as usize + mirrored])
                .fold(0i32, |a, b| a.wrapping_add(b));
            assert_eq!(*got, want, "{acc}: element {g}");
        }
    }
}

/// A point whose fields a `#[kernel]` function writes through a `&mut`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, amp_core::Element)]
struct Pt {
    x: f32,
    y: f32,
}

/// Sets `p.x` through the `&mut` parameter (auto-dereferenced, as in Rust)
/// and adds `dy` times the new `p.x` (read through the same auto-deref) to
/// `p.y`.
#[kernel]
fn move_point(p: &mut Pt, x: f32, dy: f32) {
    p.x = x;
    p.y += dy * p.x;
}

/// Smaller constructs porters write: a field assigned and read through a
/// `&mut` struct parameter (`p.x = v`, `p.y += dy * p.x`), `*f(..)` of a function's `&mut` result
/// used as a value, and a view reinterpreted in the kernel indexed by the
/// kernel's `Index<1>` (`w[idx]`); against plain Rust on fresh random
/// inputs on every accelerator, every output element checked.
#[amp_test]
fn field_writes_through_mut_parameters_and_reinterpreted_views_by_index() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xF1E1D + k as u64);
        let n = rng.range(1, 300);
        let xs: Vec<f32> = (0..n).map(|_| rng.range(-64, 64) as f32 / 4.0).collect();
        let is: Vec<i32> = (0..n).map(|_| rng.range(-1000, 1000)).collect();
        let mut pts = vec![
            Pt {
                x: f32::NAN,
                y: f32::NAN
            };
            n as usize
        ];
        let mut ints = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([n], &xs).unwrap();
            let iv = ArrayView::new([n], &is).unwrap();
            let pv = ArrayView::new_mut([n], &mut pts).unwrap();
            let ov = ArrayView::new_mut([n], &mut ints).unwrap();
            parallel_for_each!(&view, pv.extent(), |idx: Index<1>| {
                let mut p = Pt { x: 0.0, y: 1.0 };
                move_point(&mut p, xv[idx], 2.0);
                pv[idx] = p;
                let mut a = iv[idx];
                let mut b = 3;
                let bigger = *larger(&mut a, &mut b);
                let w = xv.reinterpret_as::<u32>();
                let bits = w[idx];
                ov[idx] = bigger + (bits & 0xff) as i32;
            })
            .unwrap();
            pv.synchronize().unwrap();
            ov.synchronize().unwrap();
        }
        for i in 0..n as usize {
            assert_eq!(
                pts[i],
                Pt {
                    x: xs[i],
                    y: 1.0 + 2.0 * xs[i]
                },
                "{acc}: element {i}"
            );
            let want = is[i].max(3) + (xs[i].to_bits() & 0xff) as i32;
            assert_eq!(ints[i], want, "{acc}: element {i}");
        }
    }
}

/// A `#[kernel]` function that clamps through a closure bound by `let` and
/// updates its `&mut` parameter through one called where it is written.
#[kernel]
fn clamp_through_closures(x: f32, lo: f32, acc: &mut f32) -> f32 {
    let clamp = |v: f32| v.max(lo).min(-lo);
    (|a: &mut f32, v: f32| {
        *a += v;
    })(acc, clamp(x));
    clamp(x * 2.0)
}

/// Closures in kernels (C++ AMP's lambdas in `restrict(amp)` code),
/// inlined where called: one called where it is written; ones bound by
/// `let` that read captures and locals, add to a local (`FnMut`), take
/// `&mut` parameters (a local, an element of a local array) and call each
/// other; and closures inside a `#[kernel]` function, whose `&mut`
/// parameter one of them takes on. Against the same closures in plain Rust
/// on fresh random inputs, every output element poisoned first.
#[amp_test]
fn closures_are_inlined_where_called() {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0xC105 + k as u64);
        let n = rng.range(1, 300);
        let xs: Vec<f32> = (0..n).map(|_| rng.range(-64, 64) as f32 / 8.0).collect();
        let scale = rng.range(1, 9);
        let lo = -(rng.range(1, 5) as f32);
        let mut ints = vec![i32::MIN; n as usize];
        let mut floats = vec![f32::NAN; n as usize];
        {
            let xv = ArrayView::new([n], &xs).unwrap();
            let iv = ArrayView::new_mut([n], &mut ints).unwrap();
            let fv = ArrayView::new_mut([n], &mut floats).unwrap();
            parallel_for_each!(&view, iv.extent(), |idx: Index<1>| {
                let i = idx[0];
                let sq = (|v: i32| v * v)(i + 1);
                let times = |v: i32| v * scale;
                let mut count = 0;
                let mut bump = |by: i32| count += by;
                bump(times(2));
                bump(i);
                let mut arr = [1, i, 3];
                let twice_at = |a: &mut [i32; 3], j: i32| {
                    a[j as usize] *= 2;
                    a[0] + a[j as usize]
                };
                let first = twice_at(&mut arr, 1);
                let mut t = 5;
                let inc = |r: &mut i32| *r += 1;
                inc(&mut t);
                inc(&mut arr[2]);
                // Names in a closure's body mean what they meant where it
                // was written: the outer `t2`, the earlier `twice`.
                let t2 = 3;
                let t2 = |v: i32| v + t2;
                let twice = |v: i32| v * 2;
                let twice = |v: i32| twice(v) + 1;
                iv[idx] = sq + count * 3 + first * 7 + arr[1] + arr[2] * 11 + t * 13
                    - t2(i) * 17
                    - twice(i) * 19;
                let mut acc = 0.5f32;
                let c = clamp_through_closures(xv[idx], lo, &mut acc);
                fv[idx] = c * 100.0 + acc;
            })
            .unwrap();
            iv.synchronize().unwrap();
            fv.synchronize().unwrap();
        }
        for i in 0..n {
            let sq = (i + 1) * (i + 1);
            let count = 2 * scale + i;
            let first = 1 + 2 * i;
            let want = sq + count * 3 + first * 7 + 2 * i + 4 * 11 + 6 * 13
                - (i + 3) * 17
                - (2 * i + 1) * 19;
            assert_eq!(ints[i as usize], want, "{acc}: element {i}");
            let x = xs[i as usize];
            let clamp = |v: f32| v.max(lo).min(-lo);
            let want = clamp(x * 2.0) * 100.0 + (0.5 + clamp(x));
            assert_eq!(floats[i as usize], want, "{acc}: element {i}");
        }
    }
}

/// A particle whose `#[kernel]` methods kernels call (C++ AMP's
/// `restrict(amp)` member functions).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Element)]
struct Body {
    pos: Float3,
    vel: Float3,
}

impl Body {
    /// `&mut self`: moves the body in place.
    #[kernel]
    fn advance(&mut self, dt: f32) {
        self.pos += self.vel * dt;
    }

    /// `&self`: reads it.
    #[kernel]
    fn speed2(&self) -> f32 {
        self.vel.x * self.vel.x + self.vel.y * self.vel.y + self.vel.z * self.vel.z
    }

    /// `self` by value: a changed copy.
    #[kernel]
    fn pushed(self, dv: f32) -> Body {
        let mut b = self;
        b.vel.x += dv;
        b
    }
}

/// A counter type whose whole `impl` is `#[kernel]`: a method calling an
/// associated function (`Self::clamp_to`) and another method
/// (`self.bump`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Element)]
struct Counter {
    n: i32,
}

#[kernel]
impl Counter {
    fn clamp_to(x: i32, hi: i32) -> i32 {
        if x > hi { hi } else { x }
    }

    fn bump(&mut self, by: i32) {
        self.n += by;
    }

    fn bump_clamped(&mut self, by: i32, hi: i32) -> i32 {
        self.bump(by);
        self.n = Self::clamp_to(self.n, hi);
        self.n
    }
}

/// `#[kernel]` methods and associated functions: `&mut self`, `&self` and
/// `self` receivers called with method syntax on locals whose type the
/// kernel shows (`let b = Body { .. }`, `let c: Body = ..`), associated
/// functions by path (`Counter::clamp_to`), methods calling methods and
/// associated functions through `self` and `Self`, in kernels and called on
/// the host; against plain Rust on fresh random inputs, every output
/// element poisoned first.
#[amp_test]
fn kernel_methods_and_associated_functions() {
    let mut c = Counter { n: 5 };
    assert_eq!(c.bump_clamped(10, 12), 12);
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        let mut rng = Rng::new(0x3E7 + k as u64);
        let n = rng.range(1, 200);
        let xs: Vec<f32> = (0..n).map(|_| rng.range(-64, 64) as f32 / 4.0).collect();
        let bys: Vec<i32> = (0..n).map(|_| rng.range(-50, 50)).collect();
        let hi = rng.range(0, 30);
        let poison = Body {
            pos: Float3::new(f32::NAN, f32::NAN, f32::NAN),
            vel: Float3::new(f32::NAN, f32::NAN, f32::NAN),
        };
        let mut bodies = vec![poison; n as usize];
        let mut speeds = vec![f32::NAN; n as usize];
        let mut counts = vec![i32::MIN; n as usize];
        {
            let xv = ArrayView::new([n], &xs).unwrap();
            let byv = ArrayView::new([n], &bys).unwrap();
            let bv = ArrayView::new_mut([n], &mut bodies).unwrap();
            let sv = ArrayView::new_mut([n], &mut speeds).unwrap();
            let cv = ArrayView::new_mut([n], &mut counts).unwrap();
            parallel_for_each!(&view, bv.extent(), |idx: Index<1>| {
                let x = xv[idx];
                let mut b = Body {
                    pos: Float3::new(x, 1.0, 2.0),
                    vel: Float3::new(0.5, x, -1.0),
                };
                b.advance(2.0);
                let c: Body = b.pushed(x);
                sv[idx] = c.speed2() + b.speed2();
                bv[idx] = c;
                let mut counter = Counter { n: idx[0] };
                let clamped = counter.bump_clamped(byv[idx], hi);
                cv[idx] = clamped * 1000 + Counter::clamp_to(byv[idx], 7) + counter.n * 0;
            })
            .unwrap();
            bv.synchronize().unwrap();
            sv.synchronize().unwrap();
            cv.synchronize().unwrap();
        }
        for i in 0..n as usize {
            let x = xs[i];
            let mut b = Body {
                pos: Float3::new(x, 1.0, 2.0),
                vel: Float3::new(0.5, x, -1.0),
            };
            b.advance(2.0);
            let c = b.pushed(x);
            assert_eq!(bodies[i], c, "{acc}: element {i}");
            assert_eq!(speeds[i], c.speed2() + b.speed2(), "{acc}: element {i}");
            let mut counter = Counter { n: i as i32 };
            let want = counter.bump_clamped(bys[i], hi) * 1000 + Counter::clamp_to(bys[i], 7);
            assert_eq!(counts[i], want, "{acc}: element {i}");
        }
    }
}
