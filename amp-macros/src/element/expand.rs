//! Stage 3: the generated code.
//!
//! For `struct S { a: A, b: B }` the derive generates, inside one
//! `const _: () = { ... };` block:
//!
//! - `LAYOUT`, the WGSL layout of `S` computed at compile time from the
//!   field types' `Element` constants;
//! - compile-time checks, in order, that each field is at the same offset
//!   on the host as in WGSL (with a dedicated message for a field WGSL
//!   packs into a preceding 3-component vector), that the host has no
//!   padding before each field and after the last one, and that the
//!   alignment and size agree; the first failing check panics during
//!   constant evaluation, with a literal message naming the struct and
//!   field, spanned at the field;
//! - `unsafe impl`s of `bytemuck::Zeroable` and `bytemuck::Pod`, and the
//!   `Element` impl.
//!
//! Everything is referred to by absolute paths (`::amp_core::...`,
//! `::core::...`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use super::parse::{Field, Input};

/// The impls and checks for a struct that passed [`check`](super::check).
pub(super) fn expand(input: &Input<'_>, fields: &[Field<'_>]) -> TokenStream {
    let name = input.ident;
    let name_str = name.unraw().to_string();
    let count = fields.len();
    let element = quote!(::amp_core::Element);

    // Every use of a field type is spanned at the type, so that a type that
    // is not an `Element` gets one error there.
    let members = fields.iter().map(|f| {
        let ty = f.ty;
        quote_spanned!(ty.span()=> (
            <#ty as ::amp_core::Element>::WGSL_MEMBER_SIZE,
            <#ty as ::amp_core::Element>::WGSL_ALIGN,
        ))
    });
    let requires_f64 = fields.iter().map(|f| {
        let ty = f.ty;
        quote_spanned!(ty.span()=> <#ty as ::amp_core::Element>::REQUIRES_F64)
    });
    let field_types = fields.iter().map(|f| {
        let ty = f.ty;
        let field_str = f.ident.unraw().to_string();
        quote_spanned!(ty.span()=> (#field_str, <#ty as ::amp_core::Element>::element_type()))
    });
    let packed_checks = fields.iter().map(|f| {
        let ty = f.ty;
        quote_spanned!(ty.span()=>
            ::core::assert!(
                !<#ty as ::amp_core::Element>::PACKED,
                "amp-rs: u8, i8, u16 and i16 cannot be fields of a #[derive(Element)] struct (WGSL lays out structs in 32-bit members): use u32 or i32 fields, or a container of the small integers"
            );
        )
    });
    let field_checks = fields
        .windows(2)
        .enumerate()
        .map(|(i, pair)| field_checks(&name_str, name, i + 1, &pair[0], &pair[1]));
    let struct_checks = struct_checks(&name_str, name, &fields[count - 1]);

    quote! {
        const _: () = {
            const LAYOUT: ::amp_core::__private::StructLayout<#count> =
                ::amp_core::__private::StructLayout::new(
                    [#(#members),*],
                    ::core::mem::align_of::<#name>(),
                );

            #(#packed_checks)*
            #(#field_checks)*
            #struct_checks

            // SAFETY: `#name` is `#[repr(C)]`, its fields are `Pod` (every
            // `Element` is), and the checks above, evaluated at compile time,
            // prove that it has no padding bytes.
            #[automatically_derived]
            unsafe impl ::amp_core::__private::bytemuck::Zeroable for #name {}

            // SAFETY: as for `Zeroable`.
            #[automatically_derived]
            unsafe impl ::amp_core::__private::bytemuck::Pod for #name {}

            #[automatically_derived]
            impl #element for #name {
                const WGSL_SIZE: usize = LAYOUT.size;
                const WGSL_ALIGN: usize = LAYOUT.align;
                const REQUIRES_F64: bool = #(#requires_f64)||*;

                fn element_type() -> ::amp_core::ElementType {
                    ::amp_core::__private::struct_element_type(
                        ::core::concat!(::core::module_path!(), "::", #name_str),
                        [#(#field_types),*],
                        &LAYOUT,
                    )
                }
            }

            // Kernels capture the struct by value (C++ AMP lambdas copy
            // amp-compatible classes): its bytes become launch parameters.
            #[automatically_derived]
            impl ::amp_core::__private::kernel::Capture for #name {
                type Cpu = #name;
                fn kind(&self) -> ::amp_core::__private::kernel::ir::CaptureKind {
                    ::amp_core::__private::kernel::struct_kind::<#name>()
                }
                fn bind(
                    &self,
                    _view: &::amp_core::AcceleratorView,
                ) -> ::amp_core::Result<::amp_core::__private::kernel::Bound<#name>> {
                    ::amp_core::__private::kernel::struct_bind(self)
                }
            }

            #[automatically_derived]
            impl ::amp_core::__private::kernel::BindNative for #name {
                type Out<'a> = #name;
                fn native(&self) -> #name {
                    *self
                }
            }
        };
    }
}

/// The checks of field `index` (`field`), which follows `prev`: its WGSL
/// offset, then host padding before it.
fn field_checks(
    name_str: &str,
    name: &syn::Ident,
    index: usize,
    prev: &Field<'_>,
    field: &Field<'_>,
) -> TokenStream {
    let (ident, prev_ident, prev_ty) = (field.ident, prev.ident, prev.ty);
    let field_str = ident.unraw().to_string();
    let prev_index = index - 1;
    let packed_into_vec3 = format!(
        "amp-rs: field `{field_str}` of `{name_str}` follows a 3-component vector, and WGSL \
         would place it inside the vector's last 4 bytes (8 for a Double3), which the host \
         vector uses as padding; move the field before the vector (with explicit padding up to \
         the vector's alignment), or follow the vector with a field aligned to at least 8 \
         bytes (16 after a Double3) such as a Float2 or Float4"
    );
    let offset_differs = format!(
        "amp-rs: field `{field_str}` of `{name_str}` is at a different offset on the host than \
         in WGSL storage layout, because a field type is aligned differently on the host; \
         reorder the fields or add explicit padding fields so that both layouts agree"
    );
    let padding_before = format!(
        "amp-rs: `{name_str}` has padding bytes before field `{field_str}`, where the host \
         aligns the field; element types cannot have padding (its bytes would be undefined on \
         the accelerator): add an explicit padding field before `{field_str}` (such as \
         `_pad: [f32; 3]` for 12 bytes) or reorder the fields, largest alignment first"
    );
    quote_spanned! {ident.span()=>
        if ::core::mem::offset_of!(#name, #ident) != LAYOUT.offsets[#index] {
            if <#prev_ty as ::amp_core::Element>::WGSL_MEMBER_SIZE
                < <#prev_ty as ::amp_core::Element>::WGSL_SIZE
                && LAYOUT.offsets[#index]
                    < LAYOUT.offsets[#prev_index] + <#prev_ty as ::amp_core::Element>::WGSL_SIZE
            {
                ::core::panic!(#packed_into_vec3);
            }
            ::core::panic!(#offset_differs);
        }
        if ::core::mem::offset_of!(#name, #ident)
            != ::core::mem::offset_of!(#name, #prev_ident) + ::core::mem::size_of::<#prev_ty>()
        {
            ::core::panic!(#padding_before);
        }
    }
}

/// The checks of the whole struct: no padding after the `last` field, then
/// the alignment and size.
fn struct_checks(name_str: &str, name: &syn::Ident, last: &Field<'_>) -> TokenStream {
    let (ident, ty) = (last.ident, last.ty);
    let field_str = ident.unraw().to_string();
    let padding_after = format!(
        "amp-rs: `{name_str}` has padding bytes after its last field `{field_str}`, because \
         the host rounds its size up to its alignment; element types cannot have padding (its \
         bytes would be undefined on the accelerator): add an explicit padding field at the \
         end (such as `_pad: [f32; 3]` for 12 bytes) or reorder the fields"
    );
    let align_differs = format!(
        "amp-rs: `{name_str}` is aligned to fewer bytes on the host than in WGSL storage \
         layout, because a field type is aligned differently on the host; add \
         #[repr(C, align(N))] with WGSL's alignment"
    );
    let size_differs = format!(
        "amp-rs: `{name_str}` has a different size on the host than in WGSL storage layout"
    );
    let tail = quote_spanned! {ident.span()=>
        if ::core::mem::size_of::<#name>()
            != ::core::mem::offset_of!(#name, #ident) + ::core::mem::size_of::<#ty>()
        {
            ::core::panic!(#padding_after);
        }
    };
    quote_spanned! {name.span()=>
        #tail
        if ::core::mem::align_of::<#name>() != LAYOUT.align {
            ::core::panic!(#align_differs);
        }
        if ::core::mem::size_of::<#name>() != LAYOUT.size {
            ::core::panic!(#size_differs);
        }
    }
}

/// The code generated after an error: the error itself comes from
/// [`check`](super::check); this adds an `Element` impl (and the `Pod` impls
/// it needs) so that uses of the type do not report further errors. The
/// crate does not compile either way. Generic types get nothing, since no
/// impl would fit them.
pub(super) fn fallback(input: &Input<'_>) -> TokenStream {
    let generics = input.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        return TokenStream::new();
    }
    let name = input.ident;
    quote! {
        const _: () = {
            // SAFETY: never compiled: the derive reported an error.
            #[automatically_derived]
            unsafe impl ::amp_core::__private::bytemuck::Zeroable for #name {}

            // SAFETY: never compiled: the derive reported an error.
            #[automatically_derived]
            unsafe impl ::amp_core::__private::bytemuck::Pod for #name {}

            #[automatically_derived]
            impl ::amp_core::Element for #name {
                const WGSL_SIZE: usize = ::core::mem::size_of::<Self>();
                const WGSL_ALIGN: usize = ::core::mem::align_of::<Self>();
                const REQUIRES_F64: bool = false;

                fn element_type() -> ::amp_core::ElementType {
                    ::core::unreachable!()
                }
            }
        };
    }
}
