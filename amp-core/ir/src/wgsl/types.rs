//! WGSL types: the spelling of kernel types (plain and atomic), the
//! declarations structs and tuples need, and member access (`.x`,
//! `.field`, `.f0`).

use super::compile_error;
use crate::Result;
use crate::ir::*;

/// The WGSL spelling of a type.
pub(crate) fn type_wgsl(t: &Type) -> String {
    match t {
        Type::Scalar(s) => s.wgsl().to_string(),
        Type::Index(n) => format!("array<i32, {n}>"),
        Type::Array(elem, n) => format!("array<{}, {n}>", type_wgsl(elem)),
        Type::Param(k) => format!("T{k}"), // never reaches WGSL: instances are concrete
        Type::Ref(t) => format!("ptr<function, {}>", type_wgsl(t)),
        Type::Vector(n, s) => format!("vec{n}<{}>", s.wgsl()),
        Type::Struct(st) => st.name.clone(),
        Type::Tuple(ts) => {
            let parts: Vec<String> = ts
                .iter()
                .map(|t| {
                    type_wgsl(t)
                        .chars()
                        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                        .collect()
                })
                .collect();
            format!("amp_tuple_{}", parts.join("_"))
        }
    }
}

/// The WGSL type of memory that atomics touch: `t` with its scalar
/// elements atomic (`f32` held as `atomic<u32>`).
pub(super) fn atomic_type_wgsl(t: &Type) -> String {
    match t {
        Type::Array(elem, n) => format!("array<{}, {n}>", atomic_type_wgsl(elem)),
        Type::Scalar(Scalar::F32) => "atomic<u32>".to_string(),
        other => format!("atomic<{}>", type_wgsl(other)),
    }
}

/// The WGSL spelling of `vecN<T>` (a `&'static str` for the parameter
/// struct's fields).
pub(super) fn vector_wgsl(n: u8, s: Scalar) -> &'static str {
    match (n, s) {
        (2, Scalar::I32) => "vec2<i32>",
        (3, Scalar::I32) => "vec3<i32>",
        (4, Scalar::I32) => "vec4<i32>",
        (2, Scalar::U32) => "vec2<u32>",
        (3, Scalar::U32) => "vec3<u32>",
        (4, Scalar::U32) => "vec4<u32>",
        (2, Scalar::F32) => "vec2<f32>",
        (3, Scalar::F32) => "vec3<f32>",
        (4, Scalar::F32) => "vec4<f32>",
        (2, _) => "vec2<f64>",
        (3, _) => "vec3<f64>",
        _ => "vec4<f64>",
    }
}

/// Records the declarations `t` needs (structs, tuples) in `decls`.
pub(super) fn note_type(t: &Type, decls: &mut std::collections::BTreeMap<String, String>) {
    match t {
        Type::Array(elem, _) | Type::Ref(elem) => note_type(elem, decls),
        Type::Struct(st) => {
            decls
                .entry(st.name.clone())
                .or_insert_with(|| st.declarations.clone());
        }
        Type::Tuple(ts) => {
            ts.iter().for_each(|t| note_type(t, decls));
            let name = type_wgsl(t);
            decls.entry(name.clone()).or_insert_with(|| {
                let fields: Vec<String> = ts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("    f{i}: {},\n", type_wgsl(t)))
                    .collect();
                format!("struct {name} {{\n{}}}\n", fields.concat())
            });
        }
        _ => {}
    }
}

/// The WGSL member access (`.x`, `.field`, `.f0`) and type of `m` of `t`.
pub(super) fn member_of(t: &Type, m: &Member, span: Span) -> Result<(String, Type)> {
    let ty = t.member(m).ok_or_else(|| {
        compile_error(
            span,
            match (t, m) {
                (Type::Struct(st), Member::Named(n)) => {
                    format!("`{}` has no field `{n}`", st.name)
                }
                (Type::Tuple(_), Member::Index(i)) => format!("a tuple has no field {i}"),
                _ => format!("field {m:?} of {t:?}"),
            },
        )
    })?;
    let name = match m {
        Member::Named(n) => format!(".{n}"),
        Member::Index(i) => format!(".f{i}"),
    };
    Ok((name, ty))
}
