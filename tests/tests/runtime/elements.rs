//! Kernel element types: the `Element` impls of the scalars, short vectors
//! and arrays, `#[derive(Element)]` structs, their WGSL descriptions, and the
//! short vectors' operators (C++ AMP spec chapter 10, "Graphics": short
//! vector types; chapter 5, the element types of `array` and `array_view`).
//!
//! Everything here runs on the CPU; no accelerator is needed.

use amp_core::{
    Double2, Double3, Double4, Element, ElementKind, ElementType, Float2, Float3, Float4, Int2,
    Int3, Int4, ScalarType, UInt2, UInt3, UInt4,
};
use amp_tests::Rng;
use bytemuck::Zeroable;
use std::hash::{BuildHasher, RandomState};

// --- layouts of the built-in element types ------------------------------------

/// The WGSL name, size, alignment and stride of `T`, after checking that its
/// constants agree with its `ElementType` and with the host layout.
fn layout<T: Element>() -> (String, u32, u32, u32) {
    let ty = T::element_type();
    assert_eq!(T::WGSL_SIZE, size_of::<T>(), "{ty}: WGSL_SIZE vs host size");
    assert_eq!(
        T::WGSL_ALIGN,
        align_of::<T>(),
        "{ty}: WGSL_ALIGN vs host alignment"
    );
    assert_eq!(ty.stride() as usize, T::WGSL_SIZE, "{ty}: stride");
    assert_eq!(ty.size as usize, T::WGSL_MEMBER_SIZE, "{ty}: member size");
    assert_eq!(ty.align as usize, T::WGSL_ALIGN, "{ty}: alignment");
    assert_eq!(ty.requires_f64(), T::REQUIRES_F64, "{ty}: f64");
    (unhashed(&ty.name), ty.size, ty.align, ty.stride())
}

/// A derived struct's WGSL name without the hash of its module path
/// (`Particle_1a2b3c4d` is `Particle`); other names unchanged.
fn unhashed(name: &str) -> String {
    match name.rsplit_once('_') {
        Some((base, hash)) if hash.len() == 8 && hash.chars().all(|c| c.is_ascii_hexdigit()) => {
            base.to_string()
        }
        _ => name.to_string(),
    }
}

/// Every scalar and short vector has WGSL's size, alignment and stride, on
/// the host too.
#[test]
fn scalar_and_vector_layouts_match_wgsl_and_the_host() {
    let s = |name: &str, size, align, stride| (name.to_owned(), size, align, stride);
    assert_eq!(layout::<i32>(), s("i32", 4, 4, 4));
    assert_eq!(layout::<u32>(), s("u32", 4, 4, 4));
    assert_eq!(layout::<f32>(), s("f32", 4, 4, 4));
    assert_eq!(layout::<f64>(), s("f64", 8, 8, 8));
    assert_eq!(layout::<Int2>(), s("vec2<i32>", 8, 8, 8));
    assert_eq!(layout::<Int3>(), s("vec3<i32>", 12, 16, 16));
    assert_eq!(layout::<Int4>(), s("vec4<i32>", 16, 16, 16));
    assert_eq!(layout::<UInt2>(), s("vec2<u32>", 8, 8, 8));
    assert_eq!(layout::<UInt3>(), s("vec3<u32>", 12, 16, 16));
    assert_eq!(layout::<UInt4>(), s("vec4<u32>", 16, 16, 16));
    assert_eq!(layout::<Float2>(), s("vec2<f32>", 8, 8, 8));
    assert_eq!(layout::<Float3>(), s("vec3<f32>", 12, 16, 16));
    assert_eq!(layout::<Float4>(), s("vec4<f32>", 16, 16, 16));
    assert_eq!(layout::<Double2>(), s("vec2<f64>", 16, 16, 16));
    assert_eq!(layout::<Double3>(), s("vec3<f64>", 24, 32, 32));
    assert_eq!(layout::<Double4>(), s("vec4<f64>", 32, 32, 32));
}

/// Arrays `[T; N]` are WGSL `array<T, N>` with the element's stride.
#[test]
fn array_layouts_match_wgsl_and_the_host() {
    let s = |name: &str, size, align, stride| (name.to_owned(), size, align, stride);
    assert_eq!(layout::<[f32; 3]>(), s("array<f32, 3>", 12, 4, 12));
    assert_eq!(
        layout::<[Float3; 2]>(),
        s("array<vec3<f32>, 2>", 32, 16, 32)
    );
    assert_eq!(
        layout::<[Double3; 1]>(),
        s("array<vec3<f64>, 1>", 32, 32, 32)
    );
    assert_eq!(
        layout::<[[Int2; 4]; 2]>(),
        s("array<array<vec2<i32>, 4>, 2>", 64, 8, 64)
    );
    assert_eq!(layout::<[u32; 64]>(), s("array<u32, 64>", 256, 4, 256));
    let ElementKind::Array { element, len } = <[UInt3; 5]>::element_type().kind else {
        panic!("not an array")
    };
    assert_eq!((*element, len), (UInt3::element_type(), 5));
}

/// Only types with `f64` in them need double precision.
#[test]
fn requires_f64_follows_the_components() {
    let with_f64 = [
        f64::REQUIRES_F64,
        Double2::REQUIRES_F64,
        Double3::REQUIRES_F64,
        Double4::REQUIRES_F64,
        <[Double2; 2]>::REQUIRES_F64,
        Frame::REQUIRES_F64,
    ];
    assert_eq!(with_f64, [true; 6]);
    let without_f64 = [
        i32::REQUIRES_F64,
        u32::REQUIRES_F64,
        f32::REQUIRES_F64,
        Float4::REQUIRES_F64,
        Int3::REQUIRES_F64,
        UInt2::REQUIRES_F64,
        Particle::REQUIRES_F64,
        Cluster::REQUIRES_F64,
    ];
    assert_eq!(without_f64, [false; 8]);
}

/// `ElementType` kinds, names and the scalar descriptions.
#[test]
fn element_type_kinds_and_names() {
    assert_eq!(
        i32::element_type().kind,
        ElementKind::Scalar(ScalarType::I32)
    );
    assert_eq!(
        Double4::element_type().kind,
        ElementKind::Vector {
            len: 4,
            scalar: ScalarType::F64
        }
    );
    assert_eq!(
        Float2::element_type(),
        ElementType::vector(2, ScalarType::F32)
    );
    assert_eq!(u32::element_type(), ElementType::scalar(ScalarType::U32));
    assert_eq!(Int3::element_type().to_string(), "vec3<i32>");
    let names: Vec<&str> = [
        ScalarType::I32,
        ScalarType::U32,
        ScalarType::F32,
        ScalarType::F64,
    ]
    .iter()
    .map(|s| s.wgsl_name())
    .collect();
    assert_eq!(names, ["i32", "u32", "f32", "f64"]);
    assert_eq!(Float4::element_type().wgsl_declarations(), "");
    assert_eq!(<[Int2; 3]>::element_type().wgsl_declarations(), "");
}

// --- derived structs ----------------------------------------------------------

/// A particle of an N-body simulation.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Element)]
struct Particle {
    position: Float4,
    velocity: Float4,
    mass: f32,
    _pad: [f32; 3],
}

/// A struct with a `Float3` first and derived structs inside.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Element)]
struct Cluster {
    center: Float3,
    members: [Particle; 2],
    leader: Particle,
    color: Float2,
    id: u32,
    weight: f32,
}

/// A double-precision struct with a `Double3` first.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Element)]
struct Frame {
    origin: Double3,
    scale: Double2,
    time: f64,
    step: i32,
    flags: u32,
}

/// An over-aligned struct.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, PartialEq, Element)]
struct Aligned {
    a: f32,
    b: f32,
    c: Int2,
}

/// The field names and offsets of a struct `ElementType`.
fn fields(ty: &ElementType) -> Vec<(&str, u32)> {
    let ElementKind::Struct { fields } = &ty.kind else {
        panic!("{ty} is not a struct")
    };
    fields.iter().map(|f| (f.name.as_str(), f.offset)).collect()
}

/// The derived layouts equal the host's, field by field.
#[test]
fn derived_struct_offsets_match_the_host() {
    let p = Particle::element_type();
    assert_eq!(
        (unhashed(&p.name).as_str(), p.size, p.align),
        ("Particle", 48, 16)
    );
    assert_eq!(
        fields(&p),
        [
            ("position", core::mem::offset_of!(Particle, position) as u32),
            ("velocity", core::mem::offset_of!(Particle, velocity) as u32),
            ("mass", core::mem::offset_of!(Particle, mass) as u32),
            ("_pad", core::mem::offset_of!(Particle, _pad) as u32),
        ]
    );
    assert_eq!(
        fields(&p),
        [
            ("position", 0),
            ("velocity", 16),
            ("mass", 32),
            ("_pad", 36)
        ]
    );
    assert_eq!(layout::<Particle>(), ("Particle".to_owned(), 48, 16, 48));

    let c = Cluster::element_type();
    assert_eq!(
        fields(&c),
        [
            ("center", 0),
            ("members", 16),
            ("leader", 112),
            ("color", 160),
            ("id", 168),
            ("weight", 172)
        ]
    );
    assert_eq!(core::mem::offset_of!(Cluster, leader), 112);
    assert_eq!(core::mem::offset_of!(Cluster, weight), 172);
    assert_eq!(layout::<Cluster>(), ("Cluster".to_owned(), 176, 16, 176));

    let f = Frame::element_type();
    assert_eq!(
        fields(&f),
        [
            ("origin", 0),
            ("scale", 32),
            ("time", 48),
            ("step", 56),
            ("flags", 60)
        ]
    );
    assert_eq!(layout::<Frame>(), ("Frame".to_owned(), 64, 32, 64));

    assert_eq!(layout::<Aligned>(), ("Aligned".to_owned(), 16, 16, 16));
    assert_eq!(layout::<[Aligned; 3]>().1, 48);
}

/// The WGSL declarations: nested structs first, each once.
#[test]
fn derived_struct_declarations() {
    // Struct names carry a hash of their module path (two structs of one
    // name from different modules are different WGSL types).
    let (p, c) = (Particle::element_type().name, Cluster::element_type().name);
    assert!(
        p.starts_with("Particle_") && c.starts_with("Cluster_"),
        "{p} {c}"
    );
    assert_eq!(
        Cluster::element_type().wgsl_declarations(),
        format!(
            "struct {p} {{\n    position: vec4<f32>,\n    velocity: vec4<f32>,\n    mass: f32,\n    \
             _pad: array<f32, 3>,\n}}\n\n\
             struct {c} {{\n    center: vec3<f32>,\n    members: array<{p}, 2>,\n    \
             leader: {p},\n    color: vec2<f32>,\n    id: u32,\n    weight: f32,\n}}\n"
        )
    );
    let fr = Frame::element_type().name;
    assert_eq!(
        Frame::element_type().wgsl_declarations(),
        format!(
            "struct {fr} {{\n    origin: vec3<f64>,\n    scale: vec2<f64>,\n    time: f64,\n    \
             step: i32,\n    flags: u32,\n}}\n"
        )
    );
    // The over-alignment is explicit, so WGSL agrees on it.
    let al = Aligned::element_type().name;
    assert_eq!(
        Aligned::element_type().wgsl_declarations(),
        format!("struct {al} {{\n    @align(16) a: f32,\n    b: f32,\n    c: vec2<i32>,\n}}\n")
    );
}

fn particle(rng: &mut Rng) -> Particle {
    let mut f = || rng.range(-1000, 1000) as f32 / 4.0;
    Particle {
        position: Float4::new(f(), f(), f(), 1.0),
        velocity: Float4::new(f(), f(), f(), 0.0),
        mass: f().abs(),
        _pad: [0.0; 3],
    }
}

/// Derived structs are `Pod`: they round-trip through bytes, with each field
/// at its reported offset.
#[test]
fn derived_structs_round_trip_through_bytes() {
    let mut rng = Rng::new(11);
    let clusters: Vec<Cluster> = (0..5)
        .map(|i| Cluster {
            center: Float3::new(i as f32, 2.0, -3.5),
            members: [particle(&mut rng), particle(&mut rng)],
            leader: particle(&mut rng),
            color: Float2::new(0.25, 0.75),
            id: 1000 + i,
            weight: rng.range(0, 100) as f32,
        })
        .collect();

    let bytes: &[u8] = bytemuck::cast_slice(&clusters);
    assert_eq!(bytes.len(), 5 * 176);
    let ty = Cluster::element_type();
    let offset = |name: &str| fields(&ty).iter().find(|(n, _)| *n == name).unwrap().1 as usize;
    for (i, c) in clusters.iter().enumerate() {
        let at = |o: usize| i * 176 + o;
        let id: u32 = bytemuck::pod_read_unaligned(&bytes[at(offset("id"))..][..4]);
        assert_eq!(id, c.id);
        let weight: f32 = bytemuck::pod_read_unaligned(&bytes[at(offset("weight"))..][..4]);
        assert_eq!(weight, c.weight);
        let center: [f32; 3] = bytemuck::pod_read_unaligned(&bytes[at(offset("center"))..][..12]);
        assert_eq!(center, [c.center.x, c.center.y, c.center.z]);
        // The leader's mass: the nested struct's field offset on top.
        let mass_at = at(offset("leader")) + 32;
        let mass: f32 = bytemuck::pod_read_unaligned(&bytes[mass_at..][..4]);
        assert_eq!(mass, c.leader.mass);
    }

    let mut back = vec![Cluster::zeroed(); clusters.len()];
    bytemuck::cast_slice_mut::<Cluster, u8>(&mut back).copy_from_slice(bytes);
    assert_eq!(back, clusters);

    let frame = Frame {
        origin: Double3::new(1.0, -2.0, 3.0),
        scale: Double2::splat(0.5),
        time: 12.5,
        step: -7,
        flags: 0xdead_beef,
    };
    let copy: Frame = bytemuck::pod_read_unaligned(bytemuck::bytes_of(&frame));
    assert_eq!(copy, frame);
    assert_eq!(
        bytemuck::cast::<Frame, [u8; 64]>(frame)[56..60],
        (-7i32).to_ne_bytes()
    );
}

/// A 3-component vector's padding bytes are zero when built on the host and
/// ignored when read back, as an accelerator may leave anything there.
#[test]
fn vec3_padding_is_zeroed_and_ignored() {
    let v = Float3::new(1.0, 2.0, 3.0);
    assert_eq!(&bytemuck::bytes_of(&v)[12..], &[0; 4]);
    let mut bytes: [u8; 16] = bytemuck::cast(v);
    bytes[12..].copy_from_slice(&[0xAB; 4]);
    let dirty: Float3 = bytemuck::cast(bytes);
    assert_eq!(dirty, v);
    assert_eq!(format!("{dirty:?}"), "Float3 { x: 1.0, y: 2.0, z: 3.0 }");
    let d = Double3::new(1.0, 2.0, 3.0);
    assert_eq!(&bytemuck::bytes_of(&d)[24..], &[0; 8]);
    let mut bytes: [u8; 16] = bytemuck::cast(Int3::new(1, 2, 3));
    bytes[12] = 1;
    let dirty: Int3 = bytemuck::cast(bytes);
    assert_eq!(dirty, Int3::new(1, 2, 3));
    let state = RandomState::new();
    assert_eq!(state.hash_one(dirty), state.hash_one(Int3::new(1, 2, 3)));
}

// --- short vector operators ----------------------------------------------------

/// Per-component reference arithmetic: wrapping for integers, as in kernels.
trait Scalar: Copy + PartialEq + core::fmt::Debug {
    fn random(rng: &mut Rng) -> Self;
    fn random_nonzero(rng: &mut Rng) -> Self;
    fn add(self, rhs: Self) -> Self;
    fn sub(self, rhs: Self) -> Self;
    fn mul(self, rhs: Self) -> Self;
    fn div(self, rhs: Self) -> Self;
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            fn random(rng: &mut Rng) -> Self {
                // Small values half of the time, to also test non-wrapping
                // results; any bits otherwise.
                if rng.next_u64() % 2 == 0 {
                    rng.range(-50, 50) as $t
                } else {
                    rng.next_u64() as $t
                }
            }
            fn random_nonzero(rng: &mut Rng) -> Self {
                loop {
                    let v = Self::random(rng);
                    if v != 0 {
                        return v;
                    }
                }
            }
            fn add(self, rhs: Self) -> Self {
                self.wrapping_add(rhs)
            }
            fn sub(self, rhs: Self) -> Self {
                self.wrapping_sub(rhs)
            }
            fn mul(self, rhs: Self) -> Self {
                self.wrapping_mul(rhs)
            }
            fn div(self, rhs: Self) -> Self {
                self.wrapping_div(rhs)
            }
        }
    )*};
}

macro_rules! float_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            fn random(rng: &mut Rng) -> Self {
                rng.range(-100_000, 100_000) as $t / 64.0
            }
            fn random_nonzero(rng: &mut Rng) -> Self {
                loop {
                    let v = Self::random(rng);
                    if v != 0.0 {
                        return v;
                    }
                }
            }
            fn add(self, rhs: Self) -> Self {
                self + rhs
            }
            fn sub(self, rhs: Self) -> Self {
                self - rhs
            }
            fn mul(self, rhs: Self) -> Self {
                self * rhs
            }
            fn div(self, rhs: Self) -> Self {
                self / rhs
            }
        }
    )*};
}

int_scalar!(i32, u32);
float_scalar!(f32, f64);

/// Checks `+ - * /` (vector with vector, with a scalar on either side, and
/// the compound assignments), conversions and `splat` of the short vector
/// `$v` against per-component arithmetic on pseudo-random values. Evaluates
/// to `(a, b, s)` of the last round, for kind-specific checks.
macro_rules! check_arithmetic {
    ($v:ident, $t:ty, $n:literal, $seed:literal, |$a:ident, $b:ident, $s:ident| $extra:block) => {{
        let mut rng = Rng::new($seed);
        for _ in 0..300 {
            let $a: [$t; $n] = core::array::from_fn(|_| <$t as Scalar>::random(&mut rng));
            let $b: [$t; $n] = core::array::from_fn(|_| <$t as Scalar>::random_nonzero(&mut rng));
            let $s: $t = <$t as Scalar>::random_nonzero(&mut rng);
            let (va, vb) = ($v::from($a), $v::from($b));
            let each = |f: &dyn Fn(usize) -> $t| -> [$t; $n] { core::array::from_fn(f) };

            assert_eq!(<[$t; $n]>::from(va), $a);
            assert_eq!(va.to_array(), $a);
            assert_eq!($v::splat($s).to_array(), [$s; $n]);

            assert_eq!((va + vb).to_array(), each(&|i| $a[i].add($b[i])));
            assert_eq!((va - vb).to_array(), each(&|i| $a[i].sub($b[i])));
            assert_eq!((va * vb).to_array(), each(&|i| $a[i].mul($b[i])));
            assert_eq!((va / vb).to_array(), each(&|i| $a[i].div($b[i])));

            assert_eq!((va + $s).to_array(), each(&|i| $a[i].add($s)));
            assert_eq!((va - $s).to_array(), each(&|i| $a[i].sub($s)));
            assert_eq!((va * $s).to_array(), each(&|i| $a[i].mul($s)));
            assert_eq!((va / $s).to_array(), each(&|i| $a[i].div($s)));

            assert_eq!(($s + va).to_array(), each(&|i| $s.add($a[i])));
            assert_eq!(($s - va).to_array(), each(&|i| $s.sub($a[i])));
            assert_eq!(($s * va).to_array(), each(&|i| $s.mul($a[i])));
            assert_eq!(($s / vb).to_array(), each(&|i| $s.div($b[i])));

            let mut c = va;
            c += vb;
            assert_eq!(c, va + vb);
            c -= $s;
            assert_eq!(c, va + vb - $s);
            c *= vb;
            assert_eq!(c, (va + vb - $s) * vb);
            c /= $s;
            assert_eq!(c, (va + vb - $s) * vb / $s);
            c = va;
            c += $s;
            c -= vb;
            c *= $s;
            c /= vb;
            assert_eq!(c, (va + $s - vb) * $s / vb);

            $extra
        }
    }};
}

#[test]
fn int_vector_operators() {
    check_arithmetic!(Int2, i32, 2, 1, |a, b, s| {
        let (va, vb) = (Int2::from(a), Int2::from(b));
        assert_eq!((-va).to_array(), a.map(i32::wrapping_neg));
        let rem = |x: i32, y: i32| x.wrapping_rem(y);
        assert_eq!((va % vb).to_array(), [rem(a[0], b[0]), rem(a[1], b[1])]);
        assert_eq!((va % s).to_array(), [rem(a[0], s), rem(a[1], s)]);
        assert_eq!((s % vb).to_array(), [rem(s, b[0]), rem(s, b[1])]);
        let mut c = va;
        c %= vb;
        assert_eq!(c, va % vb);
    });
    check_arithmetic!(Int3, i32, 3, 2, |a, b, s| {
        assert_eq!((-Int3::from(a)).to_array(), a.map(i32::wrapping_neg));
        let mut c = Int3::from(a);
        c %= s;
        assert_eq!(c.to_array(), a.map(|x| x.wrapping_rem(s)));
        assert_eq!((Int3::from(a) % Int3::from(b)).z, a[2].wrapping_rem(b[2]));
    });
    check_arithmetic!(Int4, i32, 4, 3, |a, b, s| {
        assert_eq!((-Int4::from(a)).to_array(), a.map(i32::wrapping_neg));
        assert_eq!((Int4::from(a) % s).to_array(), a.map(|x| x.wrapping_rem(s)));
        assert_eq!((Int4::from(a) % Int4::from(b)).w, a[3].wrapping_rem(b[3]));
    });
}

#[test]
fn uint_vector_operators() {
    check_arithmetic!(UInt2, u32, 2, 4, |a, b, s| {
        assert_eq!((UInt2::from(a) % s).to_array(), a.map(|x| x % s));
        assert_eq!((UInt2::from(a) % UInt2::from(b)).y, a[1] % b[1]);
        assert_eq!((s % UInt2::from(b)).x, s % b[0]);
    });
    check_arithmetic!(UInt3, u32, 3, 5, |a, b, s| {
        let mut c = UInt3::from(a);
        c %= UInt3::from(b);
        assert_eq!(c.to_array(), [a[0] % b[0], a[1] % b[1], a[2] % b[2]]);
        assert_eq!((UInt3::from(a) % s).to_array(), a.map(|x| x % s));
    });
    check_arithmetic!(UInt4, u32, 4, 6, |a, b, s| {
        assert_eq!((UInt4::from(a) % s).to_array(), a.map(|x| x % s));
        assert_eq!((UInt4::from(a) % UInt4::from(b)).z, a[2] % b[2]);
    });
}

#[test]
fn float_vector_operators() {
    check_arithmetic!(Float2, f32, 2, 7, |a, b, s| {
        assert_eq!((-Float2::from(a)).to_array(), a.map(|x| -x));
        let _ = (b, s);
    });
    check_arithmetic!(Float3, f32, 3, 8, |a, b, s| {
        assert_eq!((-Float3::from(a)).to_array(), a.map(|x| -x));
        let _ = (b, s);
    });
    check_arithmetic!(Float4, f32, 4, 9, |a, b, s| {
        assert_eq!((-Float4::from(a)).to_array(), a.map(|x| -x));
        let _ = (b, s);
    });
}

#[test]
fn double_vector_operators() {
    check_arithmetic!(Double2, f64, 2, 10, |a, b, s| {
        assert_eq!((-Double2::from(a)).to_array(), a.map(|x| -x));
        let _ = (b, s);
    });
    check_arithmetic!(Double3, f64, 3, 11, |a, b, s| {
        assert_eq!((-Double3::from(a)).to_array(), a.map(|x| -x));
        let _ = (b, s);
    });
    check_arithmetic!(Double4, f64, 4, 12, |a, b, s| {
        assert_eq!((-Double4::from(a)).to_array(), a.map(|x| -x));
        let _ = (b, s);
    });
}

/// Integer arithmetic wraps, as in kernels.
#[test]
fn integer_vectors_wrap_on_overflow() {
    assert_eq!(Int2::splat(i32::MAX) + 1, Int2::splat(i32::MIN));
    assert_eq!(-Int3::splat(i32::MIN), Int3::splat(i32::MIN));
    assert_eq!(
        Int2::new(i32::MIN, 7) / Int2::new(-1, 2),
        Int2::new(i32::MIN, 3)
    );
    assert_eq!(Int4::splat(i32::MIN) % Int4::splat(-1), Int4::splat(0));
    assert_eq!(UInt2::new(0, 1) - 2, UInt2::new(u32::MAX - 1, u32::MAX));
    assert_eq!(UInt4::splat(0x8000_0000) * 2, UInt4::splat(0));
}

#[test]
#[should_panic]
fn integer_vector_division_by_zero_panics() {
    let _ = Int2::new(1, 2) / Int2::new(1, 0);
}

#[test]
#[should_panic]
fn integer_vector_remainder_by_zero_panics() {
    let _ = UInt3::new(1, 2, 3) % 0;
}

/// Constructors, defaults, conversions, formatting.
#[test]
fn short_vector_basics() {
    assert_eq!(Float4::default(), Float4::splat(0.0));
    assert_eq!(Int3::default(), Int3::new(0, 0, 0));
    const V: UInt4 = UInt4::new(1, 2, 3, 4);
    assert_eq!((V.x, V.y, V.z, V.w), (1, 2, 3, 4));
    let d: [f64; 3] = Double3::new(0.5, 1.5, 2.5).into();
    assert_eq!(d, [0.5, 1.5, 2.5]);
    assert_eq!(Float3::from([1.0, 2.0, 3.0]), Float3::new(1.0, 2.0, 3.0));
    assert_ne!(Float2::new(1.0, 2.0), Float2::new(1.0, 2.5));

    assert_eq!(Int3::new(1, -2, 3).to_string(), "(1, -2, 3)");
    assert_eq!(UInt2::new(7, 8).to_string(), "(7, 8)");
    assert_eq!(
        Float4::new(1.5, -2.0, 0.0, 8.0).to_string(),
        "(1.5, -2, 0, 8)"
    );
    assert_eq!(format!("{:.2}", Float2::new(1.0, 0.5)), "(1.00, 0.50)");
    assert_eq!(format!("{:?}", Int2::new(1, 2)), "Int2 { x: 1, y: 2 }");
    assert_eq!(Double3::zeroed(), Double3::default());
}
