//! Kernel types of element types: what the IR calls a Rust type the macros
//! name (`Type::of::<T>()` in the generated code, through
//! [`type_of`]).

use amp_ir::{Scalar, StructType, Type};

use crate::{Element, ElementKind, ElementType, ScalarType};

/// The kernel type of an element type (`None` for what kernels cannot
/// hold).
pub(crate) fn of_element(e: &ElementType) -> Option<Type> {
    let scalar = |s: &ScalarType| match s {
        ScalarType::I32 => Scalar::I32,
        ScalarType::U32 => Scalar::U32,
        ScalarType::F32 => Scalar::F32,
        ScalarType::F16 => Scalar::F16,
        ScalarType::U8 => Scalar::U8,
        ScalarType::I8 => Scalar::I8,
        ScalarType::U16 => Scalar::U16,
        ScalarType::I16 => Scalar::I16,
        _ => Scalar::F64,
    };
    Some(match &e.kind {
        ElementKind::Scalar(s) => Type::Scalar(scalar(s)),
        ElementKind::Vector { len, scalar: s } => Type::Vector(*len, scalar(s)),
        ElementKind::Array { element, len } => Type::Array(Box::new(of_element(element)?), *len),
        ElementKind::Struct { fields } => Type::Struct(std::sync::Arc::new(StructType {
            name: e.name.clone(),
            fields: fields
                .iter()
                .map(|f| Some((f.name.clone(), of_element(&f.ty)?)))
                .collect::<Option<_>>()?,
            declarations: e.wgsl_declarations(),
        })),
    })
}

/// The kernel type of `T`.
pub fn type_of<T: Element>() -> Type {
    of_element(&T::element_type()).unwrap_or(Type::Scalar(Scalar::U32))
}
