//! Stage 1: the `syn` input, reduced to what the derive needs.

use proc_macro2::Span;
use syn::spanned::Spanned;

/// A type deriving `Element`.
pub(super) struct Input<'a> {
    /// The type's name.
    pub(super) ident: &'a syn::Ident,
    /// Its generic parameters and where clause (refused unless empty).
    pub(super) generics: &'a syn::Generics,
    /// What its `#[repr]` attributes say.
    pub(super) repr: Repr,
    /// Its fields, or what it is instead of a struct with named fields.
    pub(super) body: Body<'a>,
}

/// The parts of `#[repr(...)]` the derive cares about.
#[derive(Default)]
pub(super) struct Repr {
    /// `repr(C)` is present.
    pub(super) c: bool,
    /// Where `repr(packed)` or `repr(packed(N))` is, if present.
    pub(super) packed: Option<Span>,
    /// Where `repr(transparent)` is, if present.
    pub(super) transparent: Option<Span>,
}

/// The shape of the type.
pub(super) enum Body<'a> {
    /// A struct with named fields (possibly none: `struct S {}`).
    Named(Vec<Field<'a>>),
    /// A tuple struct.
    Tuple(&'a syn::FieldsUnnamed),
    /// A unit struct.
    Unit,
    /// An enum.
    Enum(&'a syn::token::Enum),
    /// A union.
    Union(&'a syn::token::Union),
}

/// A named field.
pub(super) struct Field<'a> {
    /// The field's name.
    pub(super) ident: &'a syn::Ident,
    /// The field's type, as written.
    pub(super) ty: &'a syn::Type,
}

impl<'a> Input<'a> {
    /// Reads `input`. Never fails: everything wrong is reported by
    /// [`check`](super::check).
    pub(super) fn from_syn(input: &'a syn::DeriveInput) -> Self {
        let body = match &input.data {
            syn::Data::Struct(s) => match &s.fields {
                syn::Fields::Named(named) => Body::Named(
                    named
                        .named
                        .iter()
                        .filter_map(|f| {
                            Some(Field {
                                ident: f.ident.as_ref()?,
                                ty: &f.ty,
                            })
                        })
                        .collect(),
                ),
                syn::Fields::Unnamed(unnamed) => Body::Tuple(unnamed),
                syn::Fields::Unit => Body::Unit,
            },
            syn::Data::Enum(e) => Body::Enum(&e.enum_token),
            syn::Data::Union(u) => Body::Union(&u.union_token),
        };
        Input {
            ident: &input.ident,
            generics: &input.generics,
            repr: parse_repr(&input.attrs),
            body,
        }
    }
}

/// Collects the `#[repr]` attributes. Malformed ones are left to rustc,
/// which reports them itself.
fn parse_repr(attrs: &[syn::Attribute]) -> Repr {
    let mut repr = Repr::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") {
                repr.c = true;
            } else if meta.path.is_ident("packed") {
                repr.packed = Some(meta.path.span());
            } else if meta.path.is_ident("transparent") {
                repr.transparent = Some(meta.path.span());
            }
            // Skip the arguments of `align(N)`, `packed(N)`, ...
            if meta.input.peek(syn::token::Paren) {
                let _arguments;
                syn::parenthesized!(_arguments in meta.input);
            }
            Ok(())
        });
    }
    repr
}
