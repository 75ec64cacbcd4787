//! Kernel element types: the [`Element`](crate::Element) trait and the WGSL
//! type description [`ElementType`](crate::ElementType).
//!
//! Every value that lives in accelerator memory (in an array, an array view
//! or a kernel capture) has a type that implements [`Element`]: the scalars
//! `i32`, `u32`, `f32` and `f64`, the short vectors ([`Float4`](crate::Float4),
//! [`Int2`](crate::Int2), ...), fixed-size arrays `[T; N]` of elements, and
//! `#[repr(C)]` structs with `#[derive(Element)]`. These are exactly the types
//! WGSL can share with the host ("host-shareable" types), so the same bytes
//! mean the same values on the host, on the CPU accelerator and in a WGSL
//! storage buffer.
//!
//! # Layout
//!
//! Buffers are copied byte for byte between the host and the accelerator, so
//! the host layout of an element type must equal WGSL's storage layout (WGSL
//! §"Memory Layout"):
//!
//! | WGSL type | size | alignment |
//! |---|---|---|
//! | `i32`, `u32`, `f32` | 4 | 4 |
//! | `f64` | 8 | 8 |
//! | `vec2<T>` | 2 × size(T) | 2 × size(T) |
//! | `vec3<T>` | 3 × size(T) | 4 × size(T) |
//! | `vec4<T>` | 4 × size(T) | 4 × size(T) |
//! | `array<T, N>` | N × stride(T) | align(T) |
//! | `struct` | last member's end, rounded up to the alignment | largest member alignment |
//!
//! where `stride(T)` is `size(T)` rounded up to `align(T)` and each struct
//! member starts at the previous member's end rounded up to its own
//! alignment. Only `vec3<T>` has a stride larger than its size: in an array
//! each `vec3<f32>` takes 16 bytes, but in a struct the next member may start
//! right after its 12th byte. The host short vectors
//! ([`Float3`](crate::Float3), ...) always take the full 16 bytes (32 for
//! [`Double3`](crate::Double3)), so `#[derive(Element)]` refuses a struct in
//! which WGSL would pack the next field into those last bytes.

use core::fmt;

/// A type whose values can be stored in accelerator memory and used in
/// kernels.
///
/// Implemented for `i32`, `u32`, `f32`, `f64`, the short vectors
/// ([`Int2`](crate::Int2) ... [`Double4`](crate::Double4)), fixed-size arrays
/// `[T; N]` of elements (`N >= 1`, for the lengths [`bytemuck::Pod`] supports:
/// 1 to 32, 48, 64, 96, 128, 256, 512, 1024, 2048 and 4096), and every
/// `#[repr(C)]` struct with `#[derive(Element)]`.
///
/// An element type is [`bytemuck::Pod`]: buffers are copied byte for byte,
/// and every bit pattern the accelerator writes must be a valid value. Its
/// host layout equals WGSL's storage layout: [`WGSL_SIZE`](Self::WGSL_SIZE)
/// equals `size_of::<Self>()` and [`WGSL_ALIGN`](Self::WGSL_ALIGN) equals
/// `align_of::<Self>()` for every implementor in amp-rs, and the derive
/// checks this at compile time. Implement the trait with the derive rather
/// than by hand.
///
/// Corresponds to the element types C++ AMP allows in `array<T, N>` and
/// `array_view<T, N>`: `int`, `unsigned int`, `float`, `double`, the short
/// vectors and structs of them.
///
/// # Deriving
///
/// `#[derive(Element)]` (the derive macro has the same name as the trait)
/// implements `Element`, [`bytemuck::Zeroable`] and [`bytemuck::Pod`] for a
/// struct with named fields of element types. The struct must be
/// `#[repr(C)]` (optionally `#[repr(C, align(N))]`), `Copy`, and not generic.
/// The derive checks at compile time that the host layout equals WGSL's: no
/// padding bytes anywhere (add explicit padding fields instead) and every
/// field at the offset WGSL gives it. The WGSL struct has the Rust struct's
/// field names, which therefore must not be WGSL keywords or reserved words,
/// and is named after the Rust struct with a hash of its module path
/// (`Particle_5f0ec122`), so that structs of one name from different modules
/// stay different types in one kernel.
///
/// # Examples
///
/// ```
/// use amp_core::{Element, ElementKind, Float4};
///
/// /// A particle of an N-body simulation.
/// #[repr(C)]
/// #[derive(Clone, Copy, Element)]
/// struct Particle {
///     position: Float4,
///     velocity: Float4,
///     mass: f32,
///     _pad: [f32; 3],
/// }
///
/// assert_eq!(Particle::WGSL_SIZE, 48);
/// assert_eq!(Particle::WGSL_ALIGN, 16);
/// assert!(!Particle::REQUIRES_F64);
///
/// let ty = Particle::element_type();
/// // The name, and a hash of the module path (structs of one name from
/// // different modules are different WGSL types).
/// assert!(ty.name.starts_with("Particle_"));
/// let ElementKind::Struct { fields } = &ty.kind else { unreachable!() };
/// let offsets: Vec<u32> = fields.iter().map(|f| f.offset).collect();
/// assert_eq!(offsets, [0, 16, 32, 36]);
/// assert_eq!(
///     ty.wgsl_declarations(),
///     format!(
///         "struct {} {{\n    position: vec4<f32>,\n    velocity: vec4<f32>,\n    \
///          mass: f32,\n    _pad: array<f32, 3>,\n}}\n",
///         ty.name
///     )
/// );
///
/// let p = Particle {
///     position: Float4::new(1.0, 2.0, 3.0, 1.0),
///     velocity: Float4::splat(0.0),
///     mass: 2.5,
///     _pad: [0.0; 3],
/// };
/// let bytes: &[u8] = bytemuck::bytes_of(&p);
/// assert_eq!(bytes.len(), 48);
/// ```
///
/// A layout WGSL does not share is a compile-time error; here the host puts
/// 12 padding bytes before `b`:
///
/// ```compile_fail,E0080
/// use amp_core::{Element, Float4};
///
/// #[repr(C)]
/// #[derive(Clone, Copy, Element)]
/// struct Padded {
///     a: f32,
///     b: Float4,
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type of views and arrays",
    label = "`{Self}` is not an element type",
    note = "elements are `i32`, `u32`, `f32`, `f64`, `u8`, `i8`, `u16`, `i16`, the short vectors (`Float4`, ...), fixed-size arrays and `#[derive(Element)]` structs of the 32- and 64-bit ones"
)]
pub trait Element: bytemuck::Pod + Send + Sync + 'static {
    /// The number of bytes one value takes in a WGSL storage buffer: the
    /// array stride of the WGSL type (its size rounded up to its alignment).
    ///
    /// Equals `size_of::<Self>()` for every implementor. It is WGSL's size
    /// of the type for every type except the 3-component vectors, whose
    /// stride (16, or 32 for [`Double3`](crate::Double3)) is larger than their
    /// size (12 or 24); see [`WGSL_MEMBER_SIZE`](Self::WGSL_MEMBER_SIZE).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Element, Float3};
    ///
    /// assert_eq!(f64::WGSL_SIZE, 8);
    /// assert_eq!(Float3::WGSL_SIZE, 16);
    /// assert_eq!(<[f32; 5]>::WGSL_SIZE, 20);
    /// ```
    const WGSL_SIZE: usize;

    /// The number of bytes the type occupies as a member of a WGSL struct
    /// before the next member's alignment is applied (WGSL's `SizeOf`).
    ///
    /// Equal to [`WGSL_SIZE`](Self::WGSL_SIZE) except for the 3-component
    /// vectors: WGSL may place the next struct member right after the third
    /// component of a `vec3<f32>` (at byte 12 of its 16), while the host's
    /// [`Float3`](crate::Float3) always takes 16 bytes. `#[derive(Element)]`
    /// uses this to refuse such layouts. The default is `WGSL_SIZE`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Double3, Element, Float3, Float4};
    ///
    /// assert_eq!(Float4::WGSL_MEMBER_SIZE, 16);
    /// assert_eq!(Float3::WGSL_MEMBER_SIZE, 12);
    /// assert_eq!(Double3::WGSL_MEMBER_SIZE, 24);
    /// ```
    const WGSL_MEMBER_SIZE: usize = Self::WGSL_SIZE;

    /// The alignment of the type in WGSL's storage layout, in bytes.
    ///
    /// Equals `align_of::<Self>()` for every implementor.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Element, Float2, Float3};
    ///
    /// assert_eq!(u32::WGSL_ALIGN, 4);
    /// assert_eq!(Float2::WGSL_ALIGN, 8);
    /// assert_eq!(Float3::WGSL_ALIGN, 16);
    /// ```
    const WGSL_ALIGN: usize;

    /// Whether kernels using the type need double-precision (`f64`) support
    /// on the accelerator.
    ///
    /// Corresponds to C++ AMP's `accelerator::supports_double_precision`
    /// requirement for kernels that use `double`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Double2, Element};
    ///
    /// assert!(f64::REQUIRES_F64);
    /// assert!(Double2::REQUIRES_F64);
    /// assert!(<[f64; 2]>::REQUIRES_F64);
    /// assert!(!f32::REQUIRES_F64);
    /// ```
    const REQUIRES_F64: bool;

    /// Whether the type is a small integer (`u8`, `i8`, `u16`, `i16`),
    /// packed four or two to a 32-bit word in accelerator memory. Such
    /// types are elements of containers, but not fields of
    /// `#[derive(Element)]` structs or elements of element arrays (WGSL
    /// has no type of their size to lay those out with).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Element;
    ///
    /// assert!(u8::PACKED);
    /// assert!(!u32::PACKED);
    /// ```
    ///
    /// An array of small integers is not an element (a container of the
    /// small integers themselves is); the build stops where a container of
    /// them is made:
    ///
    /// ```compile_fail,E0080
    /// use amp_core::ArrayView;
    ///
    /// let mut pixels = vec![[0u8; 4]; 16];
    /// let _ = ArrayView::new_mut([16], &mut pixels);
    /// ```
    const PACKED: bool = false;

    /// Returns the WGSL description of the type, for the kernel compiler and
    /// for buffer declarations.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Element, ElementKind, Int3, ScalarType};
    ///
    /// let ty = Int3::element_type();
    /// assert_eq!(ty.name, "vec3<i32>");
    /// assert_eq!(ty.kind, ElementKind::Vector { len: 3, scalar: ScalarType::I32 });
    /// assert_eq!((ty.size, ty.align, ty.stride()), (12, 16, 16));
    /// ```
    fn element_type() -> ElementType;
}

/// A WGSL scalar type that can be stored in accelerator memory.
///
/// Corresponds to the C++ AMP scalar element types `int`, `unsigned int`,
/// `float` and `double` (WGSL `i32`, `u32`, `f32` and `f64`).
///
/// # Examples
///
/// ```
/// use amp_core::ScalarType;
///
/// assert_eq!(ScalarType::U32.wgsl_name(), "u32");
/// assert_eq!(ScalarType::F64.size(), 8);
/// assert_eq!(ScalarType::F32.to_string(), "f32");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScalarType {
    /// A 32-bit signed integer: Rust `i32`, WGSL `i32`, C++ AMP `int`.
    I32,
    /// A 32-bit unsigned integer: Rust `u32`, WGSL `u32`, C++ AMP
    /// `unsigned int`.
    U32,
    /// A 32-bit float: Rust `f32`, WGSL `f32`, C++ AMP `float`.
    F32,
    /// A 64-bit float: Rust `f64`, WGSL `f64` (an extension that needs the
    /// accelerator's double-precision support), C++ AMP `double`.
    F64,
    /// A 16-bit float: Rust `half::f16` (the crate's `half` feature), WGSL
    /// `f16` (an extension: kernels using it need
    /// [`Accelerator::supports_half_precision`](crate::Accelerator::supports_half_precision)).
    /// C++ AMP has no such type.
    F16,
    /// An 8-bit unsigned integer: Rust `u8`, held in a WGSL `u32` in
    /// kernels and packed four to a word in accelerator memory. C++ AMP has
    /// no such element type (it packs bytes by hand).
    U8,
    /// An 8-bit signed integer: Rust `i8`, held in a WGSL `i32` in kernels
    /// and packed four to a word in accelerator memory.
    I8,
    /// A 16-bit unsigned integer: Rust `u16`, held in a WGSL `u32` in
    /// kernels and packed two to a word in accelerator memory.
    U16,
    /// A 16-bit signed integer: Rust `i16`, held in a WGSL `i32` in
    /// kernels and packed two to a word in accelerator memory.
    I16,
}

impl ScalarType {
    /// Returns the WGSL name of the scalar type.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::ScalarType;
    ///
    /// assert_eq!(ScalarType::I32.wgsl_name(), "i32");
    /// assert_eq!(ScalarType::F64.wgsl_name(), "f64");
    /// ```
    #[must_use]
    pub const fn wgsl_name(self) -> &'static str {
        match self {
            Self::I32 => "i32",
            Self::U32 => "u32",
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::F16 => "f16",
            Self::U8 | Self::U16 => "u32",
            Self::I8 | Self::I16 => "i32",
        }
    }

    /// Returns the size of the scalar type in bytes, which is also its
    /// alignment.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::ScalarType;
    ///
    /// assert_eq!(ScalarType::F32.size(), 4);
    /// assert_eq!(ScalarType::F64.size(), 8);
    /// ```
    #[must_use]
    pub const fn size(self) -> u32 {
        match self {
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::F64 => 8,
            Self::F16 | Self::U16 | Self::I16 => 2,
            Self::U8 | Self::I8 => 1,
        }
    }
}

impl fmt::Display for ScalarType {
    /// Writes the WGSL name of the scalar type.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.wgsl_name())
    }
}

/// What kind of WGSL type an [`ElementType`] is, with its components.
///
/// The enum is `#[non_exhaustive]`: later versions may add kinds.
///
/// # Examples
///
/// ```
/// use amp_core::{Element, ElementKind, ScalarType};
///
/// assert_eq!(f32::element_type().kind, ElementKind::Scalar(ScalarType::F32));
/// let ElementKind::Array { element, len } = <[u32; 4]>::element_type().kind else {
///     unreachable!()
/// };
/// assert_eq!((element.name.as_str(), len), ("u32", 4));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElementKind {
    /// A scalar: `i32`, `u32`, `f32` or `f64`.
    Scalar(ScalarType),
    /// A short vector `vecN<T>` of `len` (2, 3 or 4) scalars.
    ///
    /// Corresponds to the C++ AMP short vector types (`int_2`, `float_4`,
    /// ...).
    Vector {
        /// The number of components: 2, 3 or 4.
        len: u8,
        /// The component type.
        scalar: ScalarType,
    },
    /// A fixed-size array `array<T, N>`.
    Array {
        /// The element type `T`.
        element: Box<ElementType>,
        /// The number of elements `N` (at least 1).
        len: u32,
    },
    /// A WGSL `struct`, from a `#[derive(Element)]` Rust struct.
    Struct {
        /// The members in declaration order, with their byte offsets.
        fields: Vec<FieldType>,
    },
}

/// One member of a struct [`ElementType`]: its name, type and byte offset.
///
/// # Examples
///
/// ```
/// use amp_core::{Element, FieldType};
///
/// let f = FieldType::new("mass", f32::element_type(), 32);
/// assert_eq!((f.name.as_str(), f.ty.name.as_str(), f.offset), ("mass", "f32", 32));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FieldType {
    /// The member's name, the same in Rust and WGSL.
    pub name: String,
    /// The member's type.
    pub ty: ElementType,
    /// The member's byte offset from the start of the struct.
    pub offset: u32,
}

impl FieldType {
    /// Creates a struct member description.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Element, FieldType, Float4};
    ///
    /// let f = FieldType::new("velocity", Float4::element_type(), 16);
    /// assert_eq!(f.ty.size, 16);
    /// ```
    #[must_use]
    pub fn new(name: impl Into<String>, ty: ElementType, offset: u32) -> Self {
        Self {
            name: name.into(),
            ty,
            offset,
        }
    }
}

/// The WGSL description of an [`Element`] type: its name, kind, size and
/// alignment in WGSL's storage layout.
///
/// `size` and `align` are WGSL's `SizeOf` and `AlignOf`;
/// [`stride`](Self::stride) is the array stride, the number of bytes one
/// value takes in a buffer (equal to [`Element::WGSL_SIZE`]). They differ only
/// for 3-component vectors. The fields are public for reading; the struct is
/// `#[non_exhaustive]`, so build values with [`scalar`](Self::scalar),
/// [`vector`](Self::vector), [`array`](Self::array) and
/// [`structure`](Self::structure) (or [`Element::element_type`]).
///
/// # Examples
///
/// ```
/// use amp_core::{Element, ElementType, Float3, ScalarType};
///
/// let ty = ElementType::array(Float3::element_type(), 4);
/// assert_eq!(ty.name, "array<vec3<f32>, 4>");
/// assert_eq!((ty.size, ty.align), (64, 16));
/// assert_eq!(ty, <[Float3; 4]>::element_type());
/// assert_eq!(ElementType::scalar(ScalarType::F64).to_string(), "f64");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ElementType {
    /// The WGSL type expression: `"f32"`, `"vec3<f32>"`,
    /// `"array<i32, 4>"`, or a struct's name.
    pub name: String,
    /// The kind of type, with its components.
    pub kind: ElementKind,
    /// The size in bytes in WGSL's storage layout (WGSL `SizeOf`).
    pub size: u32,
    /// The alignment in bytes in WGSL's storage layout (WGSL `AlignOf`).
    ///
    /// For a struct this includes the `@align` attribute of
    /// [`wgsl_declarations`](Self::wgsl_declarations), as in the WGSL
    /// specification; naga's layouter reports the members' largest
    /// alignment instead, which lays out the same bytes for every
    /// `#[derive(Element)]` struct, since these have no padding.
    pub align: u32,
}

impl ElementType {
    /// Describes a scalar type.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{ElementType, ScalarType};
    ///
    /// let ty = ElementType::scalar(ScalarType::I32);
    /// assert_eq!((ty.name.as_str(), ty.size, ty.align), ("i32", 4, 4));
    /// ```
    #[must_use]
    pub fn scalar(scalar: ScalarType) -> Self {
        Self {
            name: scalar.wgsl_name().to_owned(),
            kind: ElementKind::Scalar(scalar),
            size: scalar.size(),
            align: scalar.size(),
        }
    }

    /// Describes a short vector `vec{len}<scalar>`.
    ///
    /// # Panics
    ///
    /// If `len` is not 2, 3 or 4.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{ElementType, ScalarType};
    ///
    /// let ty = ElementType::vector(3, ScalarType::F64);
    /// assert_eq!((ty.name.as_str(), ty.size, ty.align), ("vec3<f64>", 24, 32));
    /// assert_eq!(ty.stride(), 32);
    /// ```
    #[must_use]
    pub fn vector(len: u8, scalar: ScalarType) -> Self {
        assert!(
            (2..=4).contains(&len),
            "WGSL vectors have 2, 3 or 4 components, not {len}"
        );
        let s = scalar.size();
        Self {
            name: format!("vec{len}<{}>", scalar.wgsl_name()),
            kind: ElementKind::Vector { len, scalar },
            size: u32::from(len) * s,
            align: if len == 2 { 2 * s } else { 4 * s },
        }
    }

    /// Describes a fixed-size array `array<element, len>`.
    ///
    /// # Panics
    ///
    /// If `len` is zero (WGSL has no empty arrays) or the array's size does
    /// not fit in a `u32`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{ElementType, ScalarType};
    ///
    /// let ty = ElementType::array(ElementType::vector(3, ScalarType::U32), 2);
    /// assert_eq!((ty.name.as_str(), ty.size, ty.align), ("array<vec3<u32>, 2>", 32, 16));
    /// ```
    #[must_use]
    pub fn array(element: ElementType, len: u32) -> Self {
        assert!(len > 0, "WGSL arrays need at least one element");
        let size = element
            .stride()
            .checked_mul(len)
            .expect("the array's size does not fit in a u32");
        Self {
            name: format!("array<{}, {len}>", element.name),
            size,
            align: element.align,
            kind: ElementKind::Array {
                element: Box::new(element),
                len,
            },
        }
    }

    /// Describes a WGSL struct with the given members, laid out by WGSL's
    /// rules: alignment the largest member alignment, size the last member's
    /// end rounded up to the alignment.
    ///
    /// The member offsets are taken as given: a member may start later than
    /// WGSL would place it, and [`wgsl_declarations`](Self::wgsl_declarations)
    /// then adds the `@size` attributes that reproduce the layout. To give
    /// the struct a larger alignment or size (as `#[repr(C, align(N))]`
    /// does), change [`align`](Self::align) and [`size`](Self::size)
    /// afterwards.
    ///
    /// # Panics
    ///
    /// If `fields` is empty, a member's offset is not a multiple of its
    /// alignment, or a member starts before the previous one ends.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Element, ElementType, FieldType, Float3};
    ///
    /// let ty = ElementType::structure(
    ///     "Light",
    ///     vec![
    ///         FieldType::new("position", Float3::element_type(), 0),
    ///         FieldType::new("intensity", f32::element_type(), 12),
    ///     ],
    /// );
    /// // WGSL packs `intensity` into the vec3's last 4 bytes.
    /// assert_eq!((ty.size, ty.align), (16, 16));
    /// ```
    #[must_use]
    pub fn structure(name: impl Into<String>, fields: Vec<FieldType>) -> Self {
        let name = name.into();
        assert!(
            !fields.is_empty(),
            "WGSL struct `{name}` needs at least one member"
        );
        let mut end = 0;
        let mut align = 1;
        for field in &fields {
            assert!(
                field.offset.is_multiple_of(field.ty.align),
                "member `{}` of struct `{name}` is at offset {}, not a multiple of its alignment {}",
                field.name,
                field.offset,
                field.ty.align
            );
            assert!(
                field.offset >= end,
                "member `{}` of struct `{name}` starts at offset {}, before the previous member ends at {end}",
                field.name,
                field.offset
            );
            end = field.offset + field.ty.size;
            align = align.max(field.ty.align);
        }
        Self {
            name,
            kind: ElementKind::Struct { fields },
            size: round_up(end, align),
            align,
        }
    }

    /// Returns the array stride: the number of bytes one value takes in a
    /// WGSL array or buffer, [`size`](Self::size) rounded up to
    /// [`align`](Self::align).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Element, Float3, Float4};
    ///
    /// assert_eq!(Float3::element_type().stride(), 16);
    /// assert_eq!(Float4::element_type().stride(), 16);
    /// ```
    #[must_use]
    pub fn stride(&self) -> u32 {
        round_up(self.size, self.align)
    }

    /// Returns whether the type contains `f64` anywhere, so that kernels
    /// using it need double-precision support.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Double3, Element};
    ///
    /// assert!(<[Double3; 2]>::element_type().requires_f64());
    /// assert!(!i32::element_type().requires_f64());
    /// ```
    #[must_use]
    pub fn requires_f64(&self) -> bool {
        match &self.kind {
            ElementKind::Scalar(s) | ElementKind::Vector { scalar: s, .. } => *s == ScalarType::F64,
            ElementKind::Array { element, .. } => element.requires_f64(),
            ElementKind::Struct { fields } => fields.iter().any(|f| f.ty.requires_f64()),
        }
    }

    /// Returns the WGSL `struct` declarations the type needs: the type itself
    /// if it is a struct, and every struct nested in it, each once, nested
    /// structs first. Empty for scalars, vectors and arrays of them.
    ///
    /// A member gets an `@align` or `@size` attribute only where WGSL's
    /// default layout would differ from the described one: `@align(N)` on
    /// the first member of a struct whose alignment is larger than its
    /// members' (`#[repr(C, align(N))]`), `@size(N)` on a member followed by
    /// a gap and on the last member of a struct that is larger than WGSL
    /// would make it. A WGSL compiler then computes exactly the described
    /// sizes, alignments and offsets.
    ///
    /// # Panics
    ///
    /// If two different structs with the same name are nested in the type,
    /// or a struct's layout cannot be expressed in WGSL (a member placed
    /// before WGSL's earliest offset for it, an alignment smaller than a
    /// member's, a size that is not a multiple of the alignment or smaller
    /// than WGSL's). Types from `#[derive(Element)]` never cause these
    /// panics except for the name clash.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Element, Float3};
    ///
    /// #[repr(C)]
    /// #[derive(Clone, Copy, Element)]
    /// struct Inner {
    ///     v: Float3,
    /// }
    ///
    /// #[repr(C)]
    /// #[derive(Clone, Copy, Element)]
    /// struct Outer {
    ///     a: Inner,
    ///     b: [Inner; 2],
    /// }
    ///
    /// let (i, o) = (Inner::element_type().name, Outer::element_type().name);
    /// assert_eq!(
    ///     Outer::element_type().wgsl_declarations(),
    ///     format!(
    ///         "struct {i} {{\n    v: vec3<f32>,\n}}\n\n\
    ///          struct {o} {{\n    a: {i},\n    b: array<{i}, 2>,\n}}\n"
    ///     )
    /// );
    /// assert_eq!(f32::element_type().wgsl_declarations(), "");
    /// ```
    #[must_use]
    pub fn wgsl_declarations(&self) -> String {
        let mut structs = Vec::new();
        collect_structs(self, &mut structs);
        let declarations: Vec<String> = structs.iter().map(|s| declare_struct(s)).collect();
        declarations.join("\n")
    }
}

impl fmt::Display for ElementType {
    /// Writes the WGSL type expression ([`ElementType::name`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// `n` rounded up to a multiple of `align` (a power of two).
const fn round_up(n: u32, align: u32) -> u32 {
    n.div_ceil(align) * align
}

/// The alignment of `ty` without `@align` attributes: the largest scalar
/// or vector alignment in it, which is what naga's layouter reports.
fn natural_align(ty: &ElementType) -> u32 {
    match &ty.kind {
        ElementKind::Scalar(_) | ElementKind::Vector { .. } => ty.align,
        ElementKind::Array { element, .. } => natural_align(element),
        ElementKind::Struct { fields } => fields
            .iter()
            .map(|f| natural_align(&f.ty))
            .max()
            .unwrap_or(1),
    }
}

/// Pushes the structs in `ty` onto `out`, nested ones first, each once.
fn collect_structs<'a>(ty: &'a ElementType, out: &mut Vec<&'a ElementType>) {
    match &ty.kind {
        ElementKind::Scalar(_) | ElementKind::Vector { .. } => {}
        ElementKind::Array { element, .. } => collect_structs(element, out),
        ElementKind::Struct { fields } => {
            if let Some(seen) = out.iter().find(|s| s.name == ty.name) {
                assert!(
                    *seen == ty,
                    "two different structs named `{}` are used in one element type; \
                     WGSL needs distinct struct names",
                    ty.name
                );
                return;
            }
            for field in fields {
                collect_structs(&field.ty, out);
            }
            out.push(ty);
        }
    }
}

/// The WGSL declaration of the struct type `ty`, with the attributes that
/// reproduce its layout.
fn declare_struct(ty: &ElementType) -> String {
    let ElementKind::Struct { fields } = &ty.kind else {
        unreachable!("declare_struct is only called on structs")
    };
    let name = &ty.name;
    let members_align = fields.iter().map(|f| f.ty.align).max().unwrap_or(1);
    assert!(
        ty.align >= members_align && ty.align.is_power_of_two(),
        "struct `{name}` has alignment {}, but WGSL aligns it to at least {members_align}",
        ty.align
    );
    assert!(
        ty.size.is_multiple_of(ty.align),
        "struct `{name}` has size {}, not a multiple of its alignment {}",
        ty.size,
        ty.align
    );
    // `sizes[i]`: the `@size` attribute member `i` needs, if any. A member
    // is placed by its natural alignment here: naga lays out a nested
    // struct by its members' alignments, ignoring an `@align` on its first
    // member (the WGSL specification does not), so an offset beyond that is
    // made explicit with `@size` on the previous member, which both agree on.
    let mut sizes: Vec<Option<u32>> = vec![None; fields.len()];
    let mut end = 0;
    for (i, field) in fields.iter().enumerate() {
        let earliest = round_up(end, natural_align(&field.ty));
        assert!(
            field.offset >= earliest && field.offset.is_multiple_of(field.ty.align),
            "member `{}` of struct `{name}` is at offset {}, before WGSL's earliest offset \
             {earliest} or not a multiple of its alignment {}",
            field.name,
            field.offset,
            field.ty.align
        );
        if field.offset > earliest {
            // Widen the previous member so that this one starts at its offset.
            sizes[i - 1] = Some(field.offset - fields[i - 1].offset);
        }
        end = field.offset + field.ty.size;
    }
    let wgsl_size = round_up(end, ty.align);
    assert!(
        ty.size >= wgsl_size,
        "struct `{name}` has size {}, smaller than WGSL's {wgsl_size}",
        ty.size
    );
    if ty.size > wgsl_size {
        let last = fields.len() - 1;
        sizes[last] = Some(ty.size - fields[last].offset);
    }

    let mut out = format!("struct {name} {{\n");
    for (i, field) in fields.iter().enumerate() {
        out.push_str("    ");
        if i == 0 && ty.align > members_align {
            out.push_str(&format!("@align({}) ", ty.align));
        }
        if let Some(size) = sizes[i] {
            out.push_str(&format!("@size({size}) "));
        }
        out.push_str(&format!("{}: {},\n", field.name, field.ty.name));
    }
    out.push_str("}\n");
    out
}

macro_rules! impl_scalar_element {
    ($($t:ty => $scalar:ident),* $(,)?) => {$(
        #[diagnostic::do_not_recommend]
        impl Element for $t {
            const WGSL_SIZE: usize = ScalarType::$scalar.size() as usize;
            const WGSL_ALIGN: usize = ScalarType::$scalar.size() as usize;
            const REQUIRES_F64: bool = matches!(ScalarType::$scalar, ScalarType::F64);

            fn element_type() -> ElementType {
                ElementType::scalar(ScalarType::$scalar)
            }
        }

        const _: () = assert!(
            <$t as Element>::WGSL_SIZE == size_of::<$t>()
                && <$t as Element>::WGSL_ALIGN == align_of::<$t>(),
            concat!("the host layout of `", stringify!($t), "` differs from WGSL's")
        );
    )*};
}

impl_scalar_element!(i32 => I32, u32 => U32, f32 => F32, f64 => F64);

macro_rules! impl_small_element {
    ($($t:ty => $scalar:ident),* $(,)?) => {$(
        #[diagnostic::do_not_recommend]
        impl Element for $t {
            const WGSL_SIZE: usize = size_of::<$t>();
            const WGSL_ALIGN: usize = size_of::<$t>();
            const REQUIRES_F64: bool = false;
            const PACKED: bool = true;

            fn element_type() -> ElementType {
                ElementType::scalar(ScalarType::$scalar)
            }
        }
    )*};
}

impl_small_element!(u8 => U8, i8 => I8, u16 => U16, i16 => I16);
#[cfg(feature = "half")]
impl_scalar_element!(half::f16 => F16);

/// A WGSL `array<T, N>`. WGSL has no empty arrays, so `N == 0` is a
/// compile-time error where the impl is used.
impl<T: Element, const N: usize> Element for [T; N]
where
    [T; N]: bytemuck::Pod,
{
    const WGSL_SIZE: usize = {
        assert!(N > 0, "amp-rs: WGSL arrays need at least one element");
        assert!(
            !T::PACKED,
            "amp-rs: arrays of u8, i8, u16 or i16 are not element types (WGSL holds each in a 32-bit word): make the container's elements the small integers themselves, or use u32/i32"
        );
        assert!(
            T::WGSL_SIZE == size_of::<T>() && T::WGSL_ALIGN == align_of::<T>(),
            "amp-rs: the array element type has a different layout on the host than in WGSL"
        );
        N * T::WGSL_SIZE
    };
    const WGSL_ALIGN: usize = T::WGSL_ALIGN;
    const REQUIRES_F64: bool = T::REQUIRES_F64;

    fn element_type() -> ElementType {
        let len = u32::try_from(N).expect("the array's length does not fit in a u32");
        ElementType::array(T::element_type(), len)
    }
}

/// The WGSL layout of a struct, computed at compile time by
/// `#[derive(Element)]`.
///
/// Not part of the public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct StructLayout<const N: usize> {
    /// Each member's byte offset.
    pub offsets: [usize; N],
    /// The struct's size (a multiple of `align`).
    pub size: usize,
    /// The struct's alignment: the larger of `natural_align` and the host
    /// alignment.
    pub align: usize,
    /// The largest member alignment.
    pub natural_align: usize,
}

impl<const N: usize> StructLayout<N> {
    /// Lays out a struct with members of the given `(WGSL_MEMBER_SIZE,
    /// WGSL_ALIGN)` by WGSL's rules, with at least the alignment
    /// `host_align`.
    #[must_use]
    pub const fn new(members: [(usize, usize); N], host_align: usize) -> Self {
        let mut offsets = [0; N];
        let mut end: usize = 0;
        let mut natural_align = 1;
        let mut i = 0;
        while i < N {
            let (size, align) = members[i];
            offsets[i] = end.div_ceil(align) * align;
            end = offsets[i] + size;
            if align > natural_align {
                natural_align = align;
            }
            i += 1;
        }
        let align = if host_align > natural_align {
            host_align
        } else {
            natural_align
        };
        Self {
            offsets,
            size: end.div_ceil(align) * align,
            align,
            natural_align,
        }
    }
}

/// Builds the [`ElementType`] of a `#[derive(Element)]` struct whose path
/// is `path` (`module_path!()::Name`).
///
/// Its WGSL name is the struct's name and a hash of its path, so that two
/// structs of one name from different modules are different WGSL types
/// (they shared one declaration, and one layout), and no struct name meets
/// a name the runtime declares (`AmpParams`).
///
/// Not part of the public API.
#[doc(hidden)]
#[must_use]
pub fn struct_element_type<const N: usize>(
    path: &str,
    fields: [(&str, ElementType); N],
    layout: &StructLayout<N>,
) -> ElementType {
    let base = path.rsplit("::").next().unwrap_or(path);
    let hash = path.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    let name = format!("{base}_{hash:08x}");
    let to_u32 = |n: usize| u32::try_from(n).expect("the struct's size does not fit in a u32");
    let fields = fields
        .into_iter()
        .zip(layout.offsets)
        .map(|((field, ty), offset)| FieldType::new(field, ty, to_u32(offset)))
        .collect();
    let mut ty = ElementType::structure(name, fields);
    ty.size = to_u32(layout.size);
    ty.align = to_u32(layout.align);
    ty
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Double2, Double3, Double4, Float2, Float3, Float4, Int2, Int3, Int4, UInt2, UInt3, UInt4,
    };

    /// The layout naga computes for a type: size, alignment, and the member
    /// offsets if it is a struct.
    #[derive(Debug, PartialEq)]
    struct NagaLayout {
        size: u32,
        align: u32,
        stride: u32,
        offsets: Vec<u32>,
    }

    /// Compiles `ty`'s declarations with a storage buffer of `array<ty>` and
    /// a trivial entry point through naga's WGSL front end and validator,
    /// and returns naga's layout of `ty` and of each nested struct by name.
    fn naga_layout(ty: &ElementType) -> (NagaLayout, Vec<(String, NagaLayout)>) {
        let source = format!(
            "{decls}\n@group(0) @binding(0) var<storage, read_write> data: array<{name}>;\n\n\
             @compute @workgroup_size(1)\nfn main() {{\n    let x = data[0];\n    data[1] = x;\n}}\n",
            decls = ty.wgsl_declarations(),
            name = ty.name,
        );
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{}\n{source}", e.emit_to_string(&source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{e:?}\n{source}"));
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).unwrap();

        let layout_of = |handle: naga::Handle<naga::Type>| {
            let l = layouter[handle];
            let offsets = match &module.types[handle].inner {
                naga::TypeInner::Struct { members, .. } => {
                    members.iter().map(|m| m.offset).collect()
                }
                _ => Vec::new(),
            };
            NagaLayout {
                size: l.size,
                align: l.alignment * 1,
                stride: l.to_stride(),
                offsets,
            }
        };
        let (_, data) = module
            .global_variables
            .iter()
            .find(|(_, v)| v.name.as_deref() == Some("data"))
            .unwrap();
        let naga::TypeInner::Array { base, stride, .. } = module.types[data.ty].inner else {
            panic!("`data` is not an array")
        };
        let top = layout_of(base);
        assert_eq!(stride, top.stride, "{source}");
        let structs = module
            .types
            .iter()
            .filter(|(_, t)| matches!(t.inner, naga::TypeInner::Struct { .. }))
            .map(|(h, t)| (t.name.clone().unwrap(), layout_of(h)))
            .collect();
        (top, structs)
    }

    /// The layout `ty` describes, in the form of [`NagaLayout`].
    fn described_layout(ty: &ElementType) -> NagaLayout {
        let offsets = match &ty.kind {
            ElementKind::Struct { fields } => fields.iter().map(|f| f.offset).collect(),
            _ => Vec::new(),
        };
        // naga's layouter ignores a struct's `@align` (see `declare_struct`).
        assert!(ty.align >= natural_align(ty) && ty.align.is_multiple_of(natural_align(ty)));
        NagaLayout {
            size: ty.size,
            align: natural_align(ty),
            stride: ty.stride(),
            offsets,
        }
    }

    /// Checks that naga computes exactly the layout `ty` describes, for `ty`
    /// and every struct nested in it.
    fn assert_naga_agrees(ty: &ElementType) {
        let (top, structs) = naga_layout(ty);
        assert_eq!(top, described_layout(ty), "{}", ty.name);
        let mut nested = Vec::new();
        collect_structs(ty, &mut nested);
        assert_eq!(structs.len(), nested.len());
        for s in nested {
            let (_, naga) = structs.iter().find(|(n, _)| *n == s.name).unwrap();
            assert_eq!(*naga, described_layout(s), "struct {}", s.name);
        }
    }

    /// Checks an `Element` impl: naga agrees with its `ElementType`, which
    /// agrees with its consts and the host layout.
    fn check_element<T: Element>() {
        let ty = T::element_type();
        assert_naga_agrees(&ty);
        assert_eq!(ty.stride() as usize, T::WGSL_SIZE, "{}", ty.name);
        assert_eq!(ty.size as usize, T::WGSL_MEMBER_SIZE, "{}", ty.name);
        assert_eq!(ty.align as usize, T::WGSL_ALIGN, "{}", ty.name);
        assert_eq!(T::WGSL_SIZE, size_of::<T>(), "{}", ty.name);
        assert_eq!(T::WGSL_ALIGN, align_of::<T>(), "{}", ty.name);
        assert_eq!(ty.requires_f64(), T::REQUIRES_F64, "{}", ty.name);
    }

    #[test]
    fn naga_agrees_on_scalars_and_vectors() {
        check_element::<i32>();
        check_element::<u32>();
        check_element::<f32>();
        check_element::<f64>();
        check_element::<Int2>();
        check_element::<Int3>();
        check_element::<Int4>();
        check_element::<UInt2>();
        check_element::<UInt3>();
        check_element::<UInt4>();
        check_element::<Float2>();
        check_element::<Float3>();
        check_element::<Float4>();
        check_element::<Double2>();
        check_element::<Double3>();
        check_element::<Double4>();
    }

    #[test]
    fn naga_agrees_on_arrays() {
        check_element::<[f32; 1]>();
        check_element::<[u32; 7]>();
        check_element::<[Float3; 3]>();
        check_element::<[Double3; 2]>();
        check_element::<[[Int2; 3]; 2]>();
    }

    #[repr(C)]
    #[derive(Clone, Copy, crate::Element)]
    struct Particle {
        position: Float4,
        velocity: Float4,
        mass: f32,
        _pad: [f32; 3],
    }

    #[repr(C)]
    #[derive(Clone, Copy, crate::Element)]
    struct Light {
        color: Float3,
        position: Float3,
        dir: Float2,
        intensity: f32,
        kind: u32,
    }

    #[repr(C)]
    #[derive(Clone, Copy, crate::Element)]
    struct Scene {
        center: Double3,
        lights: [Light; 2],
        particle: Particle,
        weights: Double2,
        flags: UInt3,
        scale: f64,
        count: i32,
        _pad: i32,
    }

    #[repr(C, align(16))]
    #[derive(Clone, Copy, crate::Element)]
    struct Aligned {
        a: f32,
        b: f32,
        c: Int2,
    }

    #[repr(C)]
    #[derive(Clone, Copy, crate::Element)]
    struct HoldsAligned {
        x: [Aligned; 2],
        y: Aligned,
    }

    #[test]
    fn naga_agrees_on_derived_structs() {
        check_element::<Particle>();
        check_element::<Light>();
        check_element::<Scene>();
        check_element::<Aligned>();
        check_element::<HoldsAligned>();
        check_element::<[Particle; 3]>();
        const { assert!(Scene::REQUIRES_F64) };
        const { assert!(!Light::REQUIRES_F64) };
        assert!(
            Aligned::element_type()
                .wgsl_declarations()
                .contains("@align(16) a: f32,")
        );
    }

    #[test]
    fn naga_agrees_on_hand_built_structs() {
        // WGSL packs `b` into the vec3's last bytes.
        let packed = ElementType::structure(
            "Packed",
            vec![
                FieldType::new("a", ElementType::vector(3, ScalarType::F32), 0),
                FieldType::new("b", ElementType::scalar(ScalarType::F32), 12),
            ],
        );
        assert_eq!((packed.size, packed.align), (16, 16));
        assert!(!packed.wgsl_declarations().contains('@'));
        assert_naga_agrees(&packed);

        // Gaps need `@size` on the member before them, a larger size on the
        // last member, a larger alignment `@align` on the first.
        let mut gappy = ElementType::structure(
            "Gappy",
            vec![
                FieldType::new("a", ElementType::scalar(ScalarType::U32), 0),
                FieldType::new("b", ElementType::vector(3, ScalarType::F32), 32),
                FieldType::new("c", ElementType::scalar(ScalarType::I32), 48),
                FieldType::new("d", packed.clone(), 80),
            ],
        );
        gappy.align = 32;
        gappy.size = 128;
        let decls = gappy.wgsl_declarations();
        assert!(decls.contains("@align(32) @size(32) a: u32,"), "{decls}");
        assert!(decls.contains("    @size(16) b: vec3<f32>,"), "{decls}");
        assert!(decls.contains("    @size(32) c: i32,"), "{decls}");
        assert!(decls.contains("    @size(48) d: Packed,"), "{decls}");
        assert_naga_agrees(&gappy);
        assert_naga_agrees(&ElementType::array(gappy, 2));
    }

    #[test]
    #[should_panic(expected = "two different structs named `S`")]
    fn struct_name_clash_panics() {
        let s1 = ElementType::structure("S", vec![FieldType::new("a", f32::element_type(), 0)]);
        let s2 = ElementType::structure("S", vec![FieldType::new("a", u32::element_type(), 0)]);
        let outer = ElementType::structure(
            "Outer",
            vec![FieldType::new("x", s1, 0), FieldType::new("y", s2, 4)],
        );
        let _ = outer.wgsl_declarations();
    }

    #[test]
    fn nested_structs_are_declared_once_in_order() {
        let decls = Scene::element_type().wgsl_declarations();
        // Names carry a hash of their module path: `Light_3196af60`.
        let order: Vec<&str> = decls
            .lines()
            .filter_map(|l| l.strip_prefix("struct "))
            .filter_map(|l| l.split('_').next())
            .collect();
        assert_eq!(order, ["Light", "Particle", "Scene"]);
    }

    #[test]
    fn struct_layout_follows_wgsl_rules() {
        let l = StructLayout::new([(12, 16), (4, 4), (8, 8), (24, 32)], 4);
        assert_eq!(l.offsets, [0, 12, 16, 32]);
        assert_eq!((l.size, l.align, l.natural_align), (64, 32, 32));
        let l = StructLayout::new([(4, 4)], 16);
        assert_eq!((l.size, l.align, l.natural_align), (16, 16, 4));
    }
}
