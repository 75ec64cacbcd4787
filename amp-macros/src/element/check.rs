//! Stage 2: everything `#[derive(Element)]` refuses, each error spanned at
//! the code to change. The layout itself is checked later, at compile time,
//! by the generated code (only rustc knows the field types' layouts).

use syn::ext::IdentExt;

use super::Errors;
use super::parse::{Body, Field, Input};

/// What WGSL can store, for the error messages.
const HOST_SHAREABLE: &str = "WGSL host-shareable types are i32, u32, f32, f64, their short \
                              vectors, and #[derive(Element)] structs";

/// Reports everything wrong with `input` to `errors` and returns its fields
/// if it is a struct with at least one named field (even if other errors
/// were found).
pub(super) fn check<'i, 'a>(input: &'i Input<'a>, errors: &mut Errors) -> Option<&'i [Field<'a>]> {
    let fields = check_body(input, errors);
    check_generics(input.generics, errors);
    check_repr(input, errors);
    check_wgsl_name(input.ident, "struct name", errors);
    for field in fields.unwrap_or_default() {
        check_wgsl_name(field.ident, "field name", errors);
        check_field_type(field.ty, errors);
    }
    fields
}

fn check_body<'i, 'a>(input: &'i Input<'a>, errors: &mut Errors) -> Option<&'i [Field<'a>]> {
    match &input.body {
        Body::Named(fields) if fields.is_empty() => {
            errors.spanned(
                input.ident,
                "#[derive(Element)] needs at least one field: WGSL structs cannot be empty",
            );
            None
        }
        Body::Named(fields) => Some(fields),
        Body::Unit => {
            errors.spanned(
                input.ident,
                "#[derive(Element)] needs at least one named field: WGSL structs cannot be empty",
            );
            None
        }
        Body::Tuple(fields) => {
            errors.spanned(
                fields,
                "#[derive(Element)] needs named fields, because WGSL struct members have names: \
                 write `struct Name { x: f32, ... }`",
            );
            None
        }
        Body::Enum(token) => {
            errors.spanned(
                token,
                "#[derive(Element)] supports only structs: WGSL has no enums \
                 (store a u32 tag instead)",
            );
            None
        }
        Body::Union(token) => {
            errors.spanned(
                token,
                "#[derive(Element)] supports only structs: WGSL has no unions",
            );
            None
        }
    }
}

fn check_generics(generics: &syn::Generics, errors: &mut Errors) {
    if !generics.params.is_empty() {
        errors.spanned(
            &generics.params,
            "#[derive(Element)] does not support generic parameters or lifetimes: an element \
             type needs a single WGSL layout and struct name; declare a concrete struct for \
             each instantiation",
        );
    } else if let Some(where_clause) = &generics.where_clause {
        errors.spanned(
            where_clause,
            "#[derive(Element)] does not support where clauses",
        );
    }
}

fn check_repr(input: &Input<'_>, errors: &mut Errors) {
    if let Some(packed) = input.repr.packed {
        errors.spanned(
            quote::quote_spanned!(packed=> packed),
            "#[derive(Element)] does not support repr(packed): WGSL aligns every field to its \
             type's alignment; use #[repr(C)] and explicit padding fields",
        );
    } else if !input.repr.c {
        let message = "#[derive(Element)] requires #[repr(C)] (or #[repr(C, align(N))]): the \
                       accelerator reads the fields in declaration order at WGSL's offsets, and \
                       Rust's default layout may reorder them";
        match input.repr.transparent {
            Some(transparent) => {
                errors.spanned(quote::quote_spanned!(transparent=> transparent), message);
            }
            None => errors.spanned(input.ident, message),
        }
    }
}

/// WGSL's keywords and reserved words, which cannot name a struct or member:
/// naga's list (`naga::keywords::wgsl::RESERVED`), copied because a
/// procedural macro crate should not link naga; a unit test keeps the copy
/// equal to naga's.
#[rustfmt::skip]
const WGSL_RESERVED: &[&str] = &[
    "alias", "break", "case", "const", "const_assert", "continue", "continuing", "default",
    "diagnostic", "discard", "else", "enable", "false", "fn", "for", "if", "let", "loop",
    "override", "requires", "return", "struct", "switch", "true", "var", "while", "NULL", "Self",
    "abstract", "active", "alignas", "alignof", "as", "asm", "asm_fragment", "async", "attribute",
    "auto", "await", "become", "cast", "catch", "class", "co_await", "co_return", "co_yield",
    "coherent", "column_major", "common", "compile", "compile_fragment", "concept", "const_cast",
    "consteval", "constexpr", "constinit", "crate", "debugger", "decltype", "delete", "demote",
    "demote_to_helper", "do", "dynamic_cast", "enum", "explicit", "export", "extends", "extern",
    "external", "fallthrough", "filter", "final", "finally", "friend", "from", "fxgroup", "get",
    "goto", "groupshared", "highp", "impl", "implements", "import", "inline", "instanceof",
    "interface", "layout", "lowp", "macro", "macro_rules", "match", "mediump", "meta", "mod",
    "module", "move", "mut", "mutable", "namespace", "new", "nil", "noexcept", "noinline",
    "nointerpolation", "non_coherent", "noncoherent", "noperspective", "null", "nullptr", "of",
    "operator", "package", "packoffset", "partition", "pass", "patch", "pixelfragment", "precise",
    "precision", "premerge", "priv", "protected", "pub", "public", "readonly", "ref",
    "regardless", "register", "reinterpret_cast", "require", "resource", "restrict", "self",
    "set", "shared", "sizeof", "smooth", "snorm", "static", "static_assert", "static_cast", "std",
    "subroutine", "super", "target", "template", "this", "thread_local", "throw", "trait", "try",
    "type", "typedef", "typeid", "typename", "typeof", "union", "unless", "unorm", "unsafe",
    "unsized", "use", "using", "varying", "virtual", "volatile", "wgsl", "where", "with",
    "writeonly", "yield",
];

/// Refuses a name that is not a valid WGSL identifier.
fn check_wgsl_name(ident: &syn::Ident, what: &str, errors: &mut Errors) {
    let name = ident.unraw().to_string();
    if WGSL_RESERVED.contains(&name.as_str()) {
        errors.spanned(
            ident,
            format!(
                "{what} `{name}` is a keyword or reserved word in WGSL, and the WGSL struct \
                 uses the Rust names; rename it"
            ),
        );
    } else if name.starts_with("__") {
        errors.spanned(
            ident,
            format!(
                "{what} `{name}` starts with `__`, which WGSL reserves, and the WGSL struct \
                 uses the Rust names; rename it"
            ),
        );
    }
}

/// Refuses field types that can obviously never be element types, with an
/// explanation. Other non-element types are reported by rustc through the
/// generated code's `Element` bounds.
fn check_field_type(ty: &syn::Type, errors: &mut Errors) {
    let (what, hint) = match ty {
        syn::Type::Array(array) => return check_field_type(&array.elem, errors),
        syn::Type::Group(group) => return check_field_type(&group.elem, errors),
        syn::Type::Paren(paren) => return check_field_type(&paren.elem, errors),
        syn::Type::Path(path) if path.qself.is_none() => match known_non_element(&path.path) {
            Some(found) => found,
            None => return,
        },
        syn::Type::Reference(_) => (
            "references".to_owned(),
            "; the accelerator cannot follow host pointers, store the value itself",
        ),
        syn::Type::Ptr(_) => (
            "raw pointers".to_owned(),
            "; the accelerator cannot follow host pointers, store the value or an index",
        ),
        syn::Type::BareFn(_) => ("function pointers".to_owned(), ""),
        syn::Type::Slice(_) => ("slices".to_owned(), "; use a fixed-size array `[T; N]`"),
        syn::Type::Tuple(_) => (
            "tuples".to_owned(),
            "; use a #[derive(Element)] struct or a fixed-size array",
        ),
        syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => ("trait objects".to_owned(), ""),
        syn::Type::Never(_) => ("`!`".to_owned(), ""),
        _ => return,
    };
    let message = if matches!(what.as_str(), "`u8`" | "`i8`" | "`u16`" | "`i16`") {
        // Elements of containers, but not struct fields.
        format!("{what} cannot be a field of a #[derive(Element)] struct{hint}")
    } else {
        format!("{what} cannot be stored in accelerator memory: {HOST_SHAREABLE}{hint}")
    };
    errors.spanned(ty, message);
}

/// Recognizes primitive and standard library types that are not element
/// types, returning their description and a hint.
fn known_non_element(path: &syn::Path) -> Option<(String, &'static str)> {
    let last = path.segments.last()?;
    let name = last.ident.to_string();
    let prefix: Vec<String> = path
        .segments
        .iter()
        .take(path.segments.len() - 1)
        .map(|s| s.ident.to_string())
        .collect();
    let root = prefix.first().map(String::as_str);
    let std_root = matches!(root, Some("std" | "core" | "alloc"));
    let primitive = (prefix.is_empty() && path.leading_colon.is_none())
        || (std_root && prefix.len() == 2 && prefix[1] == "primitive");
    let hint = match name.as_str() {
        "bool" if primitive => "; use u32 (0 or 1) instead",
        "u8" | "i8" | "u16" | "i16" if primitive => {
            ": WGSL lays out structs in 32-bit members; use a u32 or i32 field (containers of the small integers themselves are fine: `Array<u8, N>`, `ArrayView<u8, N>`)"
        }
        "u64" | "i64" | "u128" | "i128" if primitive => {
            "; WGSL has no 64-bit integers, split the value into u32 fields"
        }
        "usize" | "isize" if primitive => "; use u32 or i32",
        "char" if primitive => "; store the code point as a u32",
        "f16" | "f128" if primitive => "; use f32 or f64",
        "str" if primitive => "; store text as a fixed-size array of u32 code points",
        "String" if prefix.is_empty() || std_root => {
            "; store text as a fixed-size array of u32 code points"
        }
        "Vec" | "Box" | "Rc" | "Arc" if prefix.is_empty() || std_root => {
            "; the accelerator cannot follow host pointers, use a fixed-size array `[T; N]`"
        }
        _ => return None,
    };
    Some((format!("`{name}`"), hint))
}

#[cfg(test)]
mod tests {
    use super::WGSL_RESERVED;

    #[test]
    fn the_reserved_words_are_nagas() {
        let ours: std::collections::BTreeSet<&str> = WGSL_RESERVED.iter().copied().collect();
        let naga: std::collections::BTreeSet<&str> =
            naga::keywords::wgsl::RESERVED.iter().copied().collect();
        assert_eq!(ours, naga);
    }
}
