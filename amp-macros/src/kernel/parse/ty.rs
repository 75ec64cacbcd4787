//! Types: the kernel type a Rust type written in a kernel stands for
//! (`let x: f32`, a `#[kernel]` function's parameters and result), literal
//! suffixes, and the short-vector type names. Parse records these types in
//! the AST for check (typeck) and expand.

use super::super::ast::*;
use super::Errors;

pub(super) fn scalar_suffix(
    suffix: &str,
    tokens: &dyn quote::ToTokens,
    errors: &mut Errors,
) -> Option<Scalar> {
    if suffix.is_empty() {
        return None;
    }
    match super::super::ast::scalar_from_name(suffix) {
        Some(s) => Some(s),
        None => {
            errors.at(
                tokens,
                format!(
                    "`{suffix}` is not available in kernels: kernels compute with i32, u32, f32, f64 (where the accelerator supports it), u8, i8, u16 and i16"
                ),
            );
            None
        }
    }
}

pub(super) fn ty_of(ty: &syn::Type, type_params: &[String], errors: &mut Errors) -> Option<Ty> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            if let Some(s) = super::super::ast::scalar_from_name(&name) {
                return Some(Ty::Scalar(s));
            }
            if p.path.segments.len() == 1
                && let Some(k) = type_params.iter().position(|t| *t == name)
            {
                return Some(Ty::Param(k as u32));
            }
            if name == "Index"
                && let syn::PathArguments::AngleBracketed(a) = &last.arguments
                && let Some(syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }))) = a.args.first()
                && let Ok(n) = i.base10_parse::<u32>()
            {
                return Some(Ty::Index(n));
            }
            if let Some(mistake) = super::enum_mistake(&name)
                && (name == "Option" || name == "Result")
            {
                errors.once(mistake, ty);
                return None;
            }
            const NOT_KERNEL_TYPES: &[&str] = &[
                "i64", "i128", "isize", "u64", "u128", "usize", "char", "str", "String", "Vec",
                "Box", "Rc", "Arc", "Index",
            ];
            if NOT_KERNEL_TYPES.contains(&name.as_str()) {
                errors.at(
                    ty,
                    format!("`{name}` is not a kernel type: kernel values are i32, u32, f32, f64, u8, i8, u16, i16, bool, Index<N>, short vectors, #[derive(Element)] structs, tuples and fixed-size arrays of them"),
                );
                return None;
            }
            // A short vector or a `#[derive(Element)]` struct (rustc checks
            // that it implements `Element`).
            Some(Ty::Named(ty.clone()))
        }
        syn::Type::Tuple(t) if !t.elems.is_empty() => {
            let parts: Vec<Ty> = t
                .elems
                .iter()
                .filter_map(|e| ty_of(e, type_params, errors))
                .collect();
            (parts.len() == t.elems.len()).then_some(Ty::Tuple(parts))
        }
        syn::Type::Array(a) => {
            let elem = ty_of(&a.elem, type_params, errors)?;
            let n = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i.base10_parse::<u32>().ok(),
                _ => None,
            };
            match n {
                Some(n) => Some(Ty::Array(Box::new(elem), n)),
                None => {
                    errors.at(
                        &a.len,
                        "the length of a kernel array type must be a literal",
                    );
                    None
                }
            }
        }
        syn::Type::Reference(_) | syn::Type::Ptr(_) => {
            errors.at(ty, "references and pointers are not allowed in kernels: accelerator memory is reached through captured views");
            None
        }
        _ => {
            errors.at(ty, "this type is not allowed in kernels: kernel locals are i32, u32, f32, f64, bool, Index<N> and fixed-size arrays of them");
            None
        }
    }
}

/// The size and scalar of a short vector type name (`Float4`).
pub(super) fn vector_type(name: &str) -> Option<(u8, Scalar)> {
    let (scalar, n) = name.split_at(name.len().checked_sub(1)?);
    let n: u8 = n.parse().ok().filter(|n| (2..=4).contains(n))?;
    let s = match scalar {
        "Int" => Scalar::I32,
        "UInt" => Scalar::U32,
        "Float" => Scalar::F32,
        "Double" => Scalar::F64,
        _ => return None,
    };
    Some((n, s))
}
