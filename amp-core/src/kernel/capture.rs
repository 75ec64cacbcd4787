//! How captured variables reach a kernel: containers become buffer bindings
//! (made coherent first), scalars become launch parameters.

use std::sync::Arc;

use crate::backend::storage::{DeviceBinding, Storage};
use crate::kernel::native::CpuView;
use crate::kernel::types::{of_element, type_of};
use crate::layout::Layout;
use crate::{AcceleratorView, Access, Array, ArrayView, Element, Error, ReadWrite, Result};
use amp_ir::{CaptureKind, Scalar, Type};

/// A container's binding for one launch.
pub struct BoundContainer {
    /// Byte offset, extent and element strides, for the WGSL parameters.
    pub(crate) offset: u64,
    pub(crate) elem: u64,
    pub(crate) extent: Vec<i32>,
    pub(crate) strides: Vec<u64>,
    pub(crate) binding: Option<DeviceBinding>,
}

/// A scalar parameter's bits (little-endian words).
#[derive(Debug, Clone, PartialEq)]
pub enum ScalarValue {
    /// An `i32`.
    I32(i32),
    /// A `u32`.
    U32(u32),
    /// An `f32`.
    F32(f32),
    /// An `f64`.
    F64(f64),
    /// A `bool`.
    Bool(bool),
    /// A short vector, or an `Index`/`Extent`: its components' words
    /// (`f64` components take two).
    Vector {
        /// The words, the first `len` of them used.
        words: [u32; 8],
        /// How many words the components take.
        len: u8,
    },
    /// A `#[derive(Element)]` struct: its bytes as words.
    Words(Vec<u32>),
}

/// Something a kernel may capture. Implemented for [`ArrayView`], [`Array`]
/// (also behind `&` and `Arc`) and the scalar types; anything else is a
/// compile error at the capture.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be captured by a kernel",
    note = "kernels capture `ArrayView`s and `Array`s (by handle) and `i32`, `u32`, `f32`, `f64`, `u8`, `i8`, `u16`, `i16`, `bool`, short-vector, `Index` or `Extent` values (by copy); in generic code, bound a captured type parameter by `amp_core::Number`, `Float` or `Integer`",
    note = "host data (a `Vec`, a slice) goes in through a view made outside the kernel: `let w = ArrayView::new([n], &data)?;`, then use `w[idx]` in the kernel"
)]
pub trait Capture {
    /// What the native (CPU) form of the body sees.
    type Cpu: Send + Sync + 'static;
    /// The IR description of the capture.
    fn kind(&self) -> CaptureKind;
    /// The accelerator view an `Array` lives on (launches default to it).
    fn home_view(&self) -> Option<AcceleratorView> {
        None
    }
    /// Prepares the capture for a launch on `view`.
    fn bind(&self, view: &AcceleratorView) -> Result<Bound<Self::Cpu>>;
}

/// A capture prepared for one launch.
pub enum Bound<C> {
    /// A container: its GPU binding data and its CPU form.
    Container(BoundContainer, Option<C>),
    /// A scalar: its value, for both forms.
    Scalar(ScalarValue, C),
}

fn elem_type<T: Element>() -> Result<Type> {
    let e = T::element_type();
    of_element(&e).ok_or_else(|| Error::UnsupportedFeature {
        accelerator: "kernel compiler".to_string(),
        feature: format!("containers of `{}` in kernels", e.name),
    })
}

fn bind_view<T: Element, const N: usize>(
    storage: &Arc<Storage>,
    layout: &Layout<N>,
    writable: bool,
    view: &AcceleratorView,
) -> Result<(BoundContainer, Option<CpuView<T, N, ReadWrite>>)> {
    elem_type::<T>()?;
    let limits = view.accelerator().limits();
    if storage.bytes() > limits.max_binding_size {
        return Err(Error::UnsupportedFeature {
            accelerator: view.accelerator().description().to_string(),
            feature: format!(
                "binding {} bytes to a kernel: the max_storage_buffer_binding_size limit is {} bytes",
                storage.bytes(),
                limits.max_binding_size
            ),
        });
    }
    let region = layout.region();
    let binding = storage.use_on(&region, view, writable, false)?;
    let cpu = match &binding {
        DeviceBinding::Cpu(mem) => Some(CpuView::new(Arc::clone(mem), layout)),
        DeviceBinding::Gpu(_) => None,
    };
    Ok((
        BoundContainer {
            offset: layout.offset,
            elem: layout.elem,
            extent: layout.extent.to_array().to_vec(),
            strides: layout.strides.to_vec(),
            binding: Some(binding),
        },
        cpu,
    ))
}

fn retag<T: Element, const N: usize, A: Access>(v: CpuView<T, N, ReadWrite>) -> CpuView<T, N, A> {
    v.retag()
}

impl<T: Element, const N: usize, A: Access> Capture for ArrayView<'_, T, N, A> {
    type Cpu = CpuView<T, N, A>;

    fn kind(&self) -> CaptureKind {
        CaptureKind::Container {
            elem: type_of::<T>(),
            rank: N as u32,
            writable: A::WRITABLE,
        }
    }

    fn bind(&self, view: &AcceleratorView) -> Result<Bound<Self::Cpu>> {
        let (storage, layout) = self.parts();
        let (bound, cpu) = bind_view::<T, N>(storage, layout, A::WRITABLE, view)?;
        Ok(Bound::Container(bound, cpu.map(retag)))
    }
}

impl<T: Element, const N: usize> Capture for Array<T, N> {
    type Cpu = CpuView<T, N, ReadWrite>;

    fn kind(&self) -> CaptureKind {
        CaptureKind::Container {
            elem: type_of::<T>(),
            rank: N as u32,
            writable: true,
        }
    }

    fn home_view(&self) -> Option<AcceleratorView> {
        Some(self.accelerator_view().clone())
    }

    fn bind(&self, view: &AcceleratorView) -> Result<Bound<Self::Cpu>> {
        let layout = Layout::contiguous(self.extent(), 0, size_of::<T>() as u64);
        let (bound, cpu) = bind_view::<T, N>(self.storage(), &layout, true, view)?;
        Ok(Bound::Container(bound, cpu))
    }
}

#[diagnostic::do_not_recommend]
impl<T: Capture + ?Sized> Capture for &T {
    type Cpu = T::Cpu;
    fn kind(&self) -> CaptureKind {
        (**self).kind()
    }
    fn home_view(&self) -> Option<AcceleratorView> {
        (**self).home_view()
    }
    fn bind(&self, view: &AcceleratorView) -> Result<Bound<T::Cpu>> {
        (**self).bind(view)
    }
}

/// An `Arc<Array<T, N>>` (an array shared between threads) is captured as
/// the array it holds, as `&Array` is.
#[diagnostic::do_not_recommend]
impl<T: Capture + ?Sized> Capture for Arc<T> {
    type Cpu = T::Cpu;
    fn kind(&self) -> CaptureKind {
        (**self).kind()
    }
    fn home_view(&self) -> Option<AcceleratorView> {
        (**self).home_view()
    }
    fn bind(&self, view: &AcceleratorView) -> Result<Bound<T::Cpu>> {
        (**self).bind(view)
    }
}

macro_rules! scalar_capture {
    ($($t:ty => $s:ident),*) => {$(
        #[diagnostic::do_not_recommend]
        impl Capture for $t {
            type Cpu = $t;
            fn kind(&self) -> CaptureKind {
                CaptureKind::Scalar(Scalar::$s)
            }
            fn bind(&self, _view: &AcceleratorView) -> Result<Bound<$t>> {
                Ok(Bound::Scalar(ScalarValue::$s(*self), *self))
            }
        }
    )*};
}

scalar_capture!(i32 => I32, u32 => U32, f32 => F32, f64 => F64, bool => Bool);

/// Small integers travel as the 32-bit integer of the same value (WGSL
/// holds them in one).
macro_rules! small_capture {
    ($($t:ty => $s:ident, $wide:ident, $w:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl Capture for $t {
            type Cpu = $t;
            fn kind(&self) -> CaptureKind {
                CaptureKind::Scalar(Scalar::$s)
            }
            fn bind(&self, _view: &AcceleratorView) -> Result<Bound<$t>> {
                Ok(Bound::Scalar(ScalarValue::$wide(<$w>::from(*self)), *self))
            }
        }
    )*};
}

small_capture!(u8 => U8, U32, u32, i8 => I8, I32, i32, u16 => U16, U32, u32, i16 => I16, I32, i32);

/// An `f16` travels as the `f32` of the same value (exact both ways).
#[cfg(feature = "half")]
#[diagnostic::do_not_recommend]
impl Capture for half::f16 {
    type Cpu = half::f16;
    fn kind(&self) -> CaptureKind {
        CaptureKind::Scalar(Scalar::F16)
    }
    fn bind(&self, _view: &AcceleratorView) -> Result<Bound<half::f16>> {
        Ok(Bound::Scalar(ScalarValue::F32(self.to_f32()), *self))
    }
}

/// What the native body gets for a capture: a reference to a container's CPU
/// form, or a scalar by value.
pub trait BindNative {
    /// The type the body sees.
    type Out<'a>
    where
        Self: 'a;
    /// The value the body sees.
    fn native(&self) -> Self::Out<'_>;
}

impl<T: Element, const N: usize, A: Access> BindNative for CpuView<T, N, A> {
    type Out<'a> = &'a CpuView<T, N, A>;
    fn native(&self) -> &CpuView<T, N, A> {
        self
    }
}

macro_rules! scalar_native {
    ($($t:ty),*) => {$(
        impl BindNative for $t {
            type Out<'a> = $t;
            fn native(&self) -> $t {
                *self
            }
        }
    )*};
}

#[cfg(feature = "half")]
scalar_native!(half::f16);

scalar_native!(
    i32,
    u32,
    u8,
    i8,
    u16,
    i16,
    f32,
    f64,
    bool,
    crate::Int2,
    crate::Int3,
    crate::Int4,
    crate::UInt2,
    crate::UInt3,
    crate::UInt4,
    crate::Float2,
    crate::Float3,
    crate::Float4,
    crate::Double2,
    crate::Double3,
    crate::Double4
);

macro_rules! vector_capture {
    ($($t:ident),*) => {$(
        #[diagnostic::do_not_recommend]
        impl Capture for crate::$t {
            type Cpu = crate::$t;
            fn kind(&self) -> CaptureKind {
                match type_of::<crate::$t>() {
                    Type::Vector(n, s) => CaptureKind::Vector(n, s),
                    _ => unreachable!("a short vector"),
                }
            }
            fn bind(&self, _view: &AcceleratorView) -> Result<Bound<crate::$t>> {
                // The components' bytes, without the padding of 3-vectors.
                let Type::Vector(n, s) = type_of::<crate::$t>() else {
                    unreachable!("a short vector");
                };
                let len = usize::from(n) * if s == Scalar::F64 { 2 } else { 1 };
                let bytes = bytemuck::bytes_of(self);
                let mut words = [0u32; 8];
                for (w, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)).take(len) {
                    *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                }
                Ok(Bound::Scalar(ScalarValue::Vector { words, len: len as u8 }, *self))
            }
        }
    )*};
}

vector_capture!(
    Int2, Int3, Int4, UInt2, UInt3, UInt4, Float2, Float3, Float4, Double2, Double3, Double4
);

/// The most components an `Index`/`Extent` captured by value may have.
const MAX_CAPTURED_RANK: usize = 8;

fn geometry_words<const N: usize>(components: [i32; N], what: &str) -> Result<ScalarValue> {
    if N > MAX_CAPTURED_RANK {
        return Err(Error::UnsupportedFeature {
            accelerator: "kernel compiler".to_string(),
            feature: format!(
                "capturing an {what}<{N}> by value (kernels capture ranks up to {MAX_CAPTURED_RANK})"
            ),
        });
    }
    let mut words = [0u32; 8];
    for (w, c) in words.iter_mut().zip(components) {
        *w = c as u32;
    }
    Ok(ScalarValue::Vector {
        words,
        len: N as u8,
    })
}

#[diagnostic::do_not_recommend]
impl<const N: usize> Capture for crate::Index<N> {
    type Cpu = crate::Index<N>;
    fn kind(&self) -> CaptureKind {
        CaptureKind::Index(N as u32)
    }
    fn bind(&self, _view: &AcceleratorView) -> Result<Bound<crate::Index<N>>> {
        Ok(Bound::Scalar(
            geometry_words(self.to_array(), "Index")?,
            *self,
        ))
    }
}

#[diagnostic::do_not_recommend]
impl<const N: usize> Capture for crate::Extent<N> {
    type Cpu = crate::Extent<N>;
    fn kind(&self) -> CaptureKind {
        CaptureKind::Index(N as u32)
    }
    fn bind(&self, _view: &AcceleratorView) -> Result<Bound<crate::Extent<N>>> {
        Ok(Bound::Scalar(
            geometry_words(self.to_array(), "Extent")?,
            *self,
        ))
    }
}

/// A captured `TiledExtent` binds its extent (`te.extent()` in the kernel);
/// what else a kernel reads of it (`te.tile_extent()`, `te.tile_count()`,
/// `te.tile_size()`, `te.is_divisible()`) the host computes at the launch
/// and captures on its own (the macro's derived captures).
#[diagnostic::do_not_recommend]
impl<const N: usize> Capture for crate::TiledExtent<N> {
    type Cpu = crate::TiledExtent<N>;
    fn kind(&self) -> CaptureKind {
        CaptureKind::Index(N as u32)
    }
    fn bind(&self, _view: &AcceleratorView) -> Result<Bound<crate::TiledExtent<N>>> {
        Ok(Bound::Scalar(
            geometry_words(self.extent().to_array(), "TiledExtent")?,
            *self,
        ))
    }
}

impl<const N: usize> BindNative for crate::TiledExtent<N> {
    type Out<'a> = crate::TiledExtent<N>;
    fn native(&self) -> crate::TiledExtent<N> {
        *self
    }
}

impl<const N: usize> BindNative for crate::Index<N> {
    type Out<'a> = crate::Index<N>;
    fn native(&self) -> crate::Index<N> {
        *self
    }
}

impl<const N: usize> BindNative for crate::Extent<N> {
    type Out<'a> = crate::Extent<N>;
    fn native(&self) -> crate::Extent<N> {
        *self
    }
}

/// The capture kind of a `#[derive(Element)]` struct captured by value
/// (for the derive's `Capture` impl).
pub fn struct_kind<T: Element>() -> CaptureKind {
    CaptureKind::Struct(type_of::<T>())
}

/// Binds a `#[derive(Element)]` struct captured by value: its bytes become
/// launch parameters (for the derive's `Capture` impl).
///
/// # Errors
///
/// [`Error::UnsupportedFeature`] for a struct with `f64` fields (GPU
/// parameters carry 32-bit words; capture a view of it instead).
pub fn struct_bind<T: Element>(value: &T) -> Result<Bound<T>> {
    if type_of::<T>().uses_f64() {
        return Err(Error::UnsupportedFeature {
            accelerator: "kernel compiler".to_string(),
            feature: format!(
                "capturing a `{}` with f64 fields by value (capture a view of it instead)",
                T::element_type().name
            ),
        });
    }
    let words = bytemuck::bytes_of(value)
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok(Bound::Scalar(ScalarValue::Words(words), *value))
}

/// A tuple of captures (`(&a, &b, ..)`), as `parallel_for_each!` passes them.
pub trait CaptureList {
    /// The tuple of CPU forms.
    type Cpu: Send + Sync + 'static;
    /// The IR descriptions, in order.
    fn kinds(&self) -> Vec<CaptureKind>;
    /// The view the first captured `Array` lives on, if any.
    fn home_view(&self) -> Option<AcceleratorView>;
    /// Binds every capture for a launch on `view`.
    fn bind_all(&self, view: &AcceleratorView) -> Result<(Vec<BoundOrScalar>, Option<Self::Cpu>)>;
}

/// A bound capture without its CPU form.
pub enum BoundOrScalar {
    /// A container.
    Container(BoundContainer),
    /// A scalar.
    Scalar(ScalarValue),
}

macro_rules! capture_tuple {
    ($($name:ident $idx:tt),*) => {
        impl<$($name: Capture + ?Sized),*> CaptureList for ($(&$name,)*) {
            type Cpu = ($($name::Cpu,)*);

            fn kinds(&self) -> Vec<CaptureKind> {
                vec![$(self.$idx.kind()),*]
            }

            fn home_view(&self) -> Option<AcceleratorView> {
                None$(.or_else(|| self.$idx.home_view()))*
            }

            #[allow(non_snake_case)]
            fn bind_all(&self, view: &AcceleratorView) -> Result<(Vec<BoundOrScalar>, Option<Self::Cpu>)> {
                let mut all = Vec::new();
                let mut cpu_ok = true;
                $(
                    let $name = match self.$idx.bind(view)? {
                        Bound::Container(b, cpu) => {
                            all.push(BoundOrScalar::Container(b));
                            cpu_ok &= cpu.is_some();
                            cpu
                        }
                        Bound::Scalar(v, cpu) => {
                            all.push(BoundOrScalar::Scalar(v));
                            Some(cpu)
                        }
                    };
                )*
                let cpu = if cpu_ok {
                    Some(($($name.expect("bound on the CPU"),)*))
                } else {
                    None
                };
                Ok((all, cpu))
            }
        }
    };
}

impl CaptureList for () {
    type Cpu = ();
    fn kinds(&self) -> Vec<CaptureKind> {
        Vec::new()
    }
    fn home_view(&self) -> Option<AcceleratorView> {
        None
    }
    fn bind_all(&self, _view: &AcceleratorView) -> Result<(Vec<BoundOrScalar>, Option<()>)> {
        Ok((Vec::new(), Some(())))
    }
}

capture_tuple!(A0 0);
capture_tuple!(A0 0, A1 1);
capture_tuple!(A0 0, A1 1, A2 2);
capture_tuple!(A0 0, A1 1, A2 2, A3 3);
capture_tuple!(A0 0, A1 1, A2 2, A3 3, A4 4);
capture_tuple!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5);
capture_tuple!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6);
capture_tuple!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7);
capture_tuple!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8);
capture_tuple!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9);
capture_tuple!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10);
capture_tuple!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11);

/// Compiles only if `C` can be captured by a kernel (generated code calls it
/// at each captured name, so that the error points there).
pub fn assert_capture<C: Capture + ?Sized>(_capture: &C) {}

/// A captured container a kernel may write: an [`Array`] (also behind `&`
/// or `Arc`) or an [`ArrayView`] with write access. Generated code checks each container a
/// kernel writes (assigns an element of, or applies an atomic operation
/// to) against it at the first write, so that writing a read-only view is
/// reported there on the view's own type.
#[diagnostic::on_unimplemented(
    message = "cannot write to a read-only view (`{Self}`) in a kernel",
    label = "read-only view written here (an assignment or an atomic operation)",
    note = "capture an `ArrayView<_, _, ReadWrite>` (from `ArrayView::new_mut`) to write results"
)]
pub trait WritableCapture {}

impl<T: Element, const N: usize> WritableCapture for ArrayView<'_, T, N, ReadWrite> {}
impl<T: Element, const N: usize> WritableCapture for Array<T, N> {}
impl<T: WritableCapture + ?Sized> WritableCapture for &T {}
impl<T: WritableCapture + ?Sized> WritableCapture for Arc<T> {}

/// Compiles only if `C` may be written by a kernel (generated code calls it
/// where the kernel first writes `C`).
pub fn assert_writable<C: WritableCapture + ?Sized>(_capture: &C) {}

/// A captured container whose elements are made of 4-byte scalars (see
/// [`Words`](crate::kernel::native::Words)), which `reinterpret_as` inside
/// a kernel reads and writes word by word.
#[diagnostic::on_unimplemented(
    message = "`reinterpret_as` in a kernel reads and writes views of elements made of 4-byte scalars, not `{Self}`",
    label = "elements not made of i32, u32 or f32 words",
    note = "i32, u32, f32, Int2, Int4, UInt2, UInt4, Float2, Float4 and arrays of them (3-component vectors have padding; f64 is two words of one value); make other reinterpretations on the host"
)]
pub trait ReinterpretCapture {}

impl<T: crate::kernel::native::Words, const N: usize, A: Access> ReinterpretCapture
    for ArrayView<'_, T, N, A>
{
}
impl<T: crate::kernel::native::Words, const N: usize> ReinterpretCapture for Array<T, N> {}
impl<T: ReinterpretCapture + ?Sized> ReinterpretCapture for &T {}
impl<T: ReinterpretCapture + ?Sized> ReinterpretCapture for Arc<T> {}

/// Compiles only if `C`'s elements may be reinterpreted inside a kernel
/// (generated code calls it where the kernel first does).
pub fn assert_reinterpretable<C: ReinterpretCapture + ?Sized>(_capture: &C) {}

/// Compiles only if `T` is made of 4-byte words (generated code calls it
/// where a `#[kernel]` function reinterprets a view parameter of `T`).
pub fn assert_words<T: crate::kernel::native::Words>() {}
