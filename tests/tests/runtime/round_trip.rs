//! Kernel-free round trips host -> accelerator -> host of 0, 1 and 2^20
//! elements of every scalar element type, short vectors (with the padding of
//! 3-component ones) and a `#[derive(Element)]` struct (`f64` ones where the accelerator has
//! double precision, `Error::UnsupportedFeature` elsewhere), on every
//! accelerator, through each container path: `Array::from_slice` /
//! `to_vec`, a device-side copy between arrays read back through a view into
//! a writable host view, and host views moved to an accelerator with
//! `synchronize_to` and into an array. The transfer counters prove that the
//! data really crossed (and crossed once).
//!
//! Also: allocations beyond an accelerator's `max_buffer_size` are
//! `Error::OutOfMemory` naming the limit and write nothing, and extents
//! whose byte size overflows (CONFORMANCE.md: "padding an extent near
//! `i32::MAX` and allocating must fail cleanly") are errors, not panics.

use amp_core::{
    Accelerator, AcceleratorView, Array, ArrayView, Double3, Element, Error, Extent, Float3,
    Float4, Int2, QueuingMode, UInt3, copy,
};
use amp_tests::amp_test;
use amp_tests::{Rng, accelerators};

const SIZES: [usize; 3] = [0, 1, 1 << 20];

trait Sample: Element + PartialEq + std::fmt::Debug {
    const NAME: &'static str;
    fn sample(rng: &mut Rng) -> Self;
    /// A value the sample data never holds, for poisoning outputs.
    fn poison() -> Self;
    /// Bit-exact equality (NaN-safe).
    fn same(&self, other: &Self) -> bool;
}

impl Sample for i32 {
    const NAME: &'static str = "i32";
    fn sample(rng: &mut Rng) -> Self {
        rng.next_u64() as i32
    }
    fn poison() -> Self {
        0x5EAD_BEEF
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl Sample for u32 {
    const NAME: &'static str = "u32";
    fn sample(rng: &mut Rng) -> Self {
        rng.next_u64() as u32
    }
    fn poison() -> Self {
        0xDEAD_BEEF
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl Sample for f32 {
    const NAME: &'static str = "f32";
    fn sample(rng: &mut Rng) -> Self {
        // Any bit pattern but NaN: infinities, subnormals and -0.0 included.
        loop {
            let x = f32::from_bits(rng.next_u64() as u32);
            if !x.is_nan() {
                return x;
            }
        }
    }
    fn poison() -> Self {
        f32::NAN
    }
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Sample for f64 {
    const NAME: &'static str = "f64";
    fn sample(rng: &mut Rng) -> Self {
        loop {
            let x = f64::from_bits(rng.next_u64());
            if !x.is_nan() {
                return x;
            }
        }
    }
    fn poison() -> Self {
        f64::NAN
    }
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

/// Short vectors: random components, bit-exact comparison of the
/// components (the padding of 3-component vectors is not data).
macro_rules! vector_sample {
    ($ty:ident, $name:literal, $comp:ty) => {
        impl Sample for $ty {
            const NAME: &'static str = $name;
            fn sample(rng: &mut Rng) -> Self {
                $ty::from(std::array::from_fn(|_| <$comp>::sample(rng)))
            }
            fn poison() -> Self {
                $ty::from(std::array::from_fn(|_| <$comp>::poison()))
            }
            fn same(&self, other: &Self) -> bool {
                let (a, b) = (self.to_array(), other.to_array());
                a.iter().zip(&b).all(|(x, y)| x.same(y))
            }
        }
    };
}

vector_sample!(Int2, "int_2", i32);
vector_sample!(UInt3, "uint_3", u32);
vector_sample!(Float3, "float_3", f32);
vector_sample!(Float4, "float_4", f32);
vector_sample!(Double3, "double_3", f64);

/// A user struct with scalars, explicit padding and a padded vector.
#[derive(Clone, Copy, Debug, PartialEq, amp_core::Element)]
#[repr(C)]
struct Body {
    mass: f32,
    id: u32,
    charge: i32,
    _pad: u32,
    position: Float3,
}

impl Sample for Body {
    const NAME: &'static str = "Body";
    fn sample(rng: &mut Rng) -> Self {
        Body {
            position: Float3::sample(rng),
            mass: f32::sample(rng),
            id: u32::sample(rng),
            charge: i32::sample(rng),
            _pad: 0,
        }
    }
    fn poison() -> Self {
        Body {
            position: Float3::poison(),
            mass: f32::NAN,
            id: u32::poison(),
            charge: i32::poison(),
            _pad: 0,
        }
    }
    fn same(&self, other: &Self) -> bool {
        self.position.same(&other.position)
            && self.mass.same(&other.mass)
            && self.id == other.id
            && self.charge == other.charge
    }
}

fn assert_same<T: Sample>(got: &[T], want: &[T], ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}: length");
    if let Some(i) = (0..got.len()).find(|&i| !got[i].same(&want[i])) {
        panic!("{ctx}: element {i} is {:?}, expected {:?}", got[i], want[i]);
    }
}

fn bytes<T>(n: usize) -> u64 {
    (n * size_of::<T>()) as u64
}

/// Whether `T` can live on `acc`; if not, checks that arrays of it are
/// refused with `UnsupportedFeature`.
fn supported<T: Sample>(acc: &Accelerator, view: &AcceleratorView) -> bool {
    if T::element_type().requires_f64() && !acc.supports_double_precision() {
        let r = Array::<T, 1>::from_slice([1], &[T::poison()], view);
        assert!(
            matches!(r, Err(Error::UnsupportedFeature { .. })),
            "{acc}: {} arrays: {r:?}",
            T::NAME
        );
        assert!(matches!(
            Array::<T, 2>::new([0, 3], view),
            Err(Error::UnsupportedFeature { .. })
        ));
        return false;
    }
    true
}

/// host -> device (`from_slice`) -> host (`to_vec`).
fn array_round_trip<T: Sample>(seed: u64) {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        if !supported::<T>(&acc, &view) {
            continue;
        }
        for n in SIZES {
            let ctx = format!("{acc} {} x {n}", T::NAME);
            let mut rng = Rng::new(seed + k as u64 + n as u64);
            let data: Vec<T> = (0..n).map(|_| T::sample(&mut rng)).collect();
            let t0 = view.transfers();
            let a = Array::from_slice([n as i32], &data, &view).unwrap();
            assert_same(&a.to_vec().unwrap(), &data, &ctx);
            assert_same(&a.to_vec().unwrap(), &data, &ctx);
            let t = view.transfers();
            let moved = u64::from(n > 0);
            assert_eq!(
                (t.uploads - t0.uploads, t.bytes_uploaded - t0.bytes_uploaded),
                (moved, bytes::<T>(n)),
                "{ctx}: uploaded once"
            );
            assert_eq!(
                (
                    t.downloads - t0.downloads,
                    t.bytes_downloaded - t0.bytes_downloaded
                ),
                (moved, bytes::<T>(n)),
                "{ctx}: downloaded once"
            );
        }
    }
}

/// host -> device -> (device copy) -> device -> host, read back through a
/// view of the copy into a writable view of a poisoned host buffer.
fn device_copy_round_trip<T: Sample>(seed: u64) {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Immediate);
        if !supported::<T>(&acc, &view) {
            continue;
        }
        for n in SIZES {
            let ctx = format!("{acc} {} x {n}", T::NAME);
            let mut rng = Rng::new(seed + k as u64 + n as u64);
            let data: Vec<T> = (0..n).map(|_| T::sample(&mut rng)).collect();
            let (rows, cols) = if n >= 1024 {
                (1024, n as i32 / 1024)
            } else {
                (1, n as i32)
            };
            let a = Array::from_slice([rows, cols], &data, &view).unwrap();
            let b = a.try_clone().unwrap();
            drop(a);
            let mut out = vec![T::poison(); n];
            let t0 = view.transfers();
            {
                let mut ov = ArrayView::new_mut([rows, cols], &mut out).unwrap();
                copy(&b.view(), &mut ov).unwrap();
            }
            let t = view.transfers();
            assert_eq!(
                (
                    t.downloads - t0.downloads,
                    t.bytes_downloaded - t0.bytes_downloaded
                ),
                (u64::from(n > 0), bytes::<T>(n)),
                "{ctx}: the copy was downloaded once"
            );
            assert_eq!(t.uploads, t0.uploads, "{ctx}");
            assert_same(&out, &data, &ctx);
        }
    }
}

/// A host view moved to an accelerator with `synchronize_to` (once, however
/// often asked), made into an array there, read back.
fn view_round_trip<T: Sample>(seed: u64) {
    for (k, acc) in accelerators().into_iter().enumerate() {
        let view = acc.create_view(QueuingMode::Automatic);
        if !supported::<T>(&acc, &view) {
            continue;
        }
        for n in SIZES {
            let ctx = format!("{acc} {} x {n}", T::NAME);
            let mut rng = Rng::new(seed + k as u64 + n as u64);
            let data: Vec<T> = (0..n).map(|_| T::sample(&mut rng)).collect();
            let mut host = data.clone();
            {
                let hv = ArrayView::new_mut([n as i32], &mut host).unwrap();
                let t0 = view.transfers();
                hv.synchronize_to(&view).unwrap();
                hv.synchronize_to(&view).unwrap();
                let t = view.transfers();
                assert_eq!(
                    (t.uploads - t0.uploads, t.bytes_uploaded - t0.bytes_uploaded),
                    (u64::from(n > 0), bytes::<T>(n)),
                    "{ctx}: uploaded once"
                );
                hv.synchronize().unwrap();
                let arr = Array::from_view(&hv, &view).unwrap();
                let mut out = vec![T::poison(); n];
                copy(&arr, &mut out[..]).unwrap();
                assert_same(&out, &data, &ctx);
            }
            // The host view was only read: nothing came back over it.
            assert_same(&host, &data, &ctx);
            let ro = ArrayView::new([n as i32], &data).unwrap();
            ro.synchronize_to(&view).unwrap();
            assert_same(&ro.to_vec().unwrap(), &data, &ctx);
        }
    }
}

#[amp_test]
fn array_round_trip_i32() {
    array_round_trip::<i32>(6000);
}

#[amp_test]
fn array_round_trip_u32() {
    array_round_trip::<u32>(6100);
}

#[amp_test]
fn array_round_trip_f32() {
    array_round_trip::<f32>(6200);
}

#[amp_test]
fn array_round_trip_f64() {
    array_round_trip::<f64>(6300);
}

#[amp_test]
fn device_copy_round_trip_i32() {
    device_copy_round_trip::<i32>(6400);
}

#[amp_test]
fn device_copy_round_trip_u32() {
    device_copy_round_trip::<u32>(6500);
}

#[amp_test]
fn device_copy_round_trip_f32() {
    device_copy_round_trip::<f32>(6600);
}

#[amp_test]
fn device_copy_round_trip_f64() {
    device_copy_round_trip::<f64>(6700);
}

#[amp_test]
fn view_round_trip_i32() {
    view_round_trip::<i32>(6800);
}

#[amp_test]
fn view_round_trip_u32() {
    view_round_trip::<u32>(6900);
}

#[amp_test]
fn view_round_trip_f32() {
    view_round_trip::<f32>(7000);
}

#[amp_test]
fn view_round_trip_f64() {
    view_round_trip::<f64>(7100);
}

/// Between two accelerators and back, through the host: every ordered pair.
#[test]
fn round_trip_between_accelerators() {
    let accs = accelerators();
    let mut rng = Rng::new(7200);
    let data: Vec<f32> = (0..(1 << 16)).map(|_| f32::sample(&mut rng)).collect();
    for a in &accs {
        for b in &accs {
            let x = Array::from_slice([1 << 16], &data, &a.default_view()).unwrap();
            let mut y = Array::<f32, 1>::new([1 << 16], &b.default_view()).unwrap();
            copy(&x, &mut y).unwrap();
            let mut z = Array::<f32, 1>::new([1 << 16], &a.default_view()).unwrap();
            copy(&y, &mut z).unwrap();
            assert_same(&z.to_vec().unwrap(), &data, &format!("{a} -> {b} -> {a}"));
        }
    }
}

// ---------------------------------------------------------------------------
// Limits

/// An extent of `u32`s just over `limit` bytes: rank 1 when it fits, else
/// rank 2.
fn over_limit(limit: u64) -> Result<Extent<1>, Extent<2>> {
    let elems = limit / 4 + 1;
    match i32::try_from(elems) {
        Ok(n) => Ok(Extent::new([n])),
        Err(_) => {
            let cols = i32::MAX as u64;
            let rows = elems.div_ceil(cols);
            Err(Extent::new([i32::try_from(rows).unwrap(), i32::MAX]))
        }
    }
}

fn check_out_of_memory<T: std::fmt::Debug>(r: amp_core::Result<T>, limit: u64, ctx: &str) {
    match r {
        Err(Error::OutOfMemory { detail, .. }) => assert!(
            detail.contains("max_buffer_size") && detail.contains(&limit.to_string()),
            "{ctx}: the error names the limit: {detail}"
        ),
        other => panic!("{ctx}: expected OutOfMemory, got {other:?}"),
    }
}

#[amp_test]
fn allocations_beyond_max_buffer_size_are_out_of_memory_and_write_nothing() {
    for acc in accelerators() {
        let view = acc.create_view(QueuingMode::Automatic);
        let limit = acc.limits().max_buffer_size;
        let before = (view.transfers(), view.statistics());
        let ctx = format!("{acc} (max_buffer_size {limit})");
        match over_limit(limit) {
            Ok(e) => {
                check_out_of_memory(Array::<u32, 1>::new(e, &view), limit, &ctx);
                // A view with no data source allocates on its first use.
                let v = ArrayView::<u32, 1>::with_extent(e).unwrap();
                check_out_of_memory(v.synchronize_to(&view), limit, &ctx);
            }
            Err(e) => {
                check_out_of_memory(Array::<u32, 2>::new(e, &view), limit, &ctx);
                let v = ArrayView::<u32, 2>::with_extent(e).unwrap();
                check_out_of_memory(v.synchronize_to(&view), limit, &ctx);
            }
        }
        // A host view whose data would be written by the failed copy: the
        // failure leaves both the host data and the accelerator untouched.
        let mut rng = Rng::new(7300);
        let data: Vec<u32> = (0..64).map(|_| rng.next_u64() as u32).collect();
        let mut host = data.clone();
        {
            let hv = ArrayView::new_mut([64], &mut host).unwrap();
            let big = ArrayView::<u32, 2>::with_extent([i32::MAX, i32::MAX]).unwrap();
            assert!(
                matches!(big.synchronize_to(&view), Err(Error::OutOfMemory { .. })),
                "{ctx}"
            );
            // Its host copy is runtime-owned: zeros until written, and
            // allocated on the first host write, which cannot succeed
            // either: an error, not an abort, and still zeros after it.
            assert_eq!(big.get([i32::MAX - 1, 5]).unwrap(), 0, "{ctx}");
            let r = big.set([0, 0], 1);
            assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{ctx}: {r:?}");
            assert_eq!(big.get([0, 0]).unwrap(), 0, "{ctx}");
            hv.synchronize().unwrap();
        }
        assert_eq!(host, data, "{ctx}");
        assert_eq!(
            (view.transfers(), view.statistics()),
            before,
            "{ctx}: nothing moved"
        );
    }
}

#[amp_test]
fn extents_whose_byte_size_overflows_fail_cleanly() {
    // Padding near i32::MAX cannot be expressed.
    let tiled = Extent::new([i32::MAX - 1]).tile::<4>().unwrap();
    assert!(matches!(tiled.pad(), Err(Error::InvalidComputeDomain(_))));
    assert_eq!(tiled.truncate().extent(), Extent::new([i32::MAX - 3]));
    for acc in accelerators() {
        let view = acc.default_view();
        // (2^31 - 1)^2 * 4 elements fit in a u64, their bytes do not.
        let r = Array::<f32, 3>::new([i32::MAX, i32::MAX, 4], &view);
        assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{acc}: {r:?}");
        // Not even the element count fits.
        let r = Array::<f64, 4>::new([i32::MAX; 4], &view);
        assert!(
            matches!(
                r,
                Err(Error::OutOfMemory { .. } | Error::UnsupportedFeature { .. })
            ),
            "{acc}: {r:?}"
        );
        let r = Array::<u32, 4>::new([i32::MAX; 4], &view);
        assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{acc}: {r:?}");
        let r = Array::<i32, 2>::from_iter_on([i32::MAX, i32::MAX], std::iter::empty(), &view);
        assert!(r.is_err(), "{acc}: {r:?}");
        // Padded-then-truncated extents stay allocatable when they fit.
        let t = Extent::new([1001]).tile::<8>().unwrap();
        let a = Array::<u32, 1>::new(t.pad().unwrap().extent(), &view).unwrap();
        assert_eq!(a.extent(), Extent::new([1008]), "{acc}");
    }
    // Views: a view with no data source of such an extent, and host slices
    // too short for it.
    let r = ArrayView::<f32, 3>::with_extent([i32::MAX, i32::MAX, 4]);
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    let r = ArrayView::<u32, 4>::with_extent([i32::MAX; 4]);
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    let data = [0u32; 4];
    let r = ArrayView::new([i32::MAX, i32::MAX, 4], &data[..]);
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    let mut data = [0f32; 4];
    let r = ArrayView::new_mut([i32::MAX; 3], &mut data[..]);
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
}

/// Every container path for short vectors and a derived struct.
#[amp_test]
fn vector_and_struct_round_trips() {
    fn all<T: Sample>(seed: u64) {
        array_round_trip::<T>(seed);
        device_copy_round_trip::<T>(seed + 100);
        view_round_trip::<T>(seed + 200);
    }
    all::<Int2>(8000);
    all::<UInt3>(8300);
    all::<Float3>(8600);
    all::<Float4>(8900);
    all::<Double3>(9200);
    all::<Body>(9500);
}
