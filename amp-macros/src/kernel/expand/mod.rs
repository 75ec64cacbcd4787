//! Expand stage: one kernel AST, two outputs.
//!
//! - The IR builder: a closure that constructs `amp_core`'s kernel IR (called
//!   once per device and instantiation, at first launch).
//! - The native body: the same kernel as Rust for the CPU accelerator, with
//!   container accesses, integer arithmetic and math calls routed through
//!   `amp_core::__private::kernel` so that both forms mean the same thing.
//!
//! Generated code names everything by absolute path.
//!
//! This module holds the entry points ([`expand`] for `parallel_for_each!`,
//! [`expand_function`] for `#[kernel]` functions) and the helpers both
//! outputs share; [`ir`] emits the IR builder, [`native`] the CPU form, and
//! [`function`] a `#[kernel]` function with its companion module.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::*;

mod function;
mod ir;
mod native;
#[cfg(test)]
mod tests;

pub(crate) use function::{expand_function, receiver_shim, receiver_shim_name};

use function::barrier_summary_path;
pub(crate) use native::{Cx, Exits, native_expr, native_rev_range, native_stmt};

use super::plain::Use;
use function::summary_path;
use ir::ir_block;
use native::{native_block, plain_name};

/// The IR enum variant `v` names, as an identifier for generated code
/// (`Builtin::Sqrt` -> `Sqrt`).
fn variant(v: impl std::fmt::Debug) -> proc_macro2::Ident {
    proc_macro2::Ident::new(&format!("{v:?}"), proc_macro2::Span::call_site())
}

/// The IR span of `span`: its file, line and column, as literals. (Not
/// `line!()` at the user's span: a literal with the user's span would make
/// lints judge the user's token by the generated one.)
fn span_tokens(span: Span) -> TokenStream {
    let (line, column) = match std::panic::catch_unwind(|| span.unwrap()) {
        Ok(s) => (s.line() as u32, s.column() as u32),
        Err(_) => (0, 0),
    };
    quote! {
        __ir::Span { file: ::core::file!(), line: #line, column: #column }
    }
}

/// The whole expansion.
pub(crate) fn expand(k: &Kernel) -> TokenStream {
    let rank = match &k.rank_path {
        Some(path) => quote!(#path),
        None => {
            let r = k.rank as usize;
            quote!(#r)
        }
    };
    // A derived capture is named by what the user wrote (`te.tile_count()`).
    let names: Vec<String> = k
        .captures
        .iter()
        .map(|c| match k.derived.iter().find(|(h, _, _)| h == c) {
            Some((_, _, text)) => text.clone(),
            None => c.to_string(),
        })
        .collect();
    let derived = k.derived.iter().map(|(hidden, expr, _)| {
        quote_spanned! {expr.span()=>
            let #hidden = #expr;
        }
    });
    let caps = &k.captures;
    let site_span = span_tokens(k.span);
    let view = match &k.view {
        Some(v) => quote! {
            ::core::option::Option::Some(
                <_ as ::core::borrow::Borrow<::amp_core::AcceleratorView>>::borrow(&#v)
            )
        },
        None => quote!(::core::option::Option::None),
    };
    let domain = &k.domain;
    let infallible = super::safety::infallible(k);
    let ir_body = ir_block(&k.body);
    // Upper-case names (constants, usually) are not captures: the native
    // body uses them from the enclosing scope, the IR builder inlines their
    // values, and those values are part of the compiled kernel's key.
    let consts = &k.consts;
    let const_key = quote! {
        &[#(::amp_core::__private::kernel::ir::ConstValue::key(#consts)),*]
    };
    let native_binds = caps
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let i = syn::Index::from(i);
            quote! {
                #[allow(unused_variables)]
                let #c = ::amp_core::__private::kernel::BindNative::native(&__amp_caps.#i);
            }
        })
        .collect::<Vec<_>>();
    let native_body = native_block(Cx::default(), &k.body);
    let index = &k.index;
    let split = if k.tiled {
        Some(super::split::split(k))
    } else {
        None
    };
    // A tiled kernel the split form does not cover runs with a thread per
    // work item on the CPU accelerator: a warning at the kernel says why.
    let threaded_warning = match &split {
        Some(Err(why)) => threaded_warning(why, k.span),
        _ => TokenStream::new(),
    };
    let parts = LaunchParts {
        rank: &rank,
        view: &view,
        domain,
        const_key: &const_key,
        ir_body: &ir_body,
        native_binds: &native_binds,
        index,
    };
    let launch = match split {
        Some(Ok(split)) => split_launch(&parts, &split),
        Some(Err(_)) => threaded_launch(&parts, &native_body, &threaded_warning),
        None => match super::plain::plan(k) {
            Some(uses) => plain_launch(&parts, k, &uses, &native_body),
            None => plain_less_launch(&parts, &native_body),
        },
    };
    let capture_checks = caps.iter().map(|c| {
        quote_spanned! {c.span()=>
            ::amp_core::__private::kernel::assert_capture(&#c);
        }
    });
    // Writes and reinterpretations checked on the user's types, where the
    // kernel makes them (see `sites`).
    let sites = super::sites::sites(&k.body);
    let site_check = |list: &[(u32, proc_macro2::Span)], f: &str| -> Vec<TokenStream> {
        let f = format_ident!("{}", f);
        list.iter()
            .filter_map(|(c, span)| {
                let cap = k.captures.get(*c as usize)?;
                let cap = proc_macro2::Ident::new(&cap.to_string(), *span);
                Some(quote_spanned! {*span=>
                    ::amp_core::__private::kernel::#f(&#cap);
                })
            })
            .collect()
    };
    let uniform_calls = uniform_call_checks(&k.body, k.tiled);
    let varying_args = varying_arg_checks(&k.body, k.tiled);
    let write_checks = site_check(&sites.writes, "assert_writable");
    let reinterpret_checks = site_check(&sites.reinterprets, "assert_reinterpretable");
    quote! {
        {
            use ::amp_core::__private::kernel::ir as __ir;
            static __AMP_SITE: ::amp_core::__private::kernel::KernelSite = ::amp_core::__private::kernel::KernelSite {
                span: #site_span,
                capture_names: &[#(#names),*],
                infallible: #infallible,
                debug_build: ::core::cfg!(debug_assertions),
            };
            // Values the host computes for the kernel at the launch.
            #(#derived)*
            // Each capture checked where the kernel uses it, so that a
            // capture of the wrong type is reported there.
            #(#capture_checks)*
            #(#write_checks)*
            #(#reinterpret_checks)*
            #uniform_calls
            #varying_args
            let __amp_captures = (#(&#caps,)*);
            // The native form is rewritten user code: lints about its shape
            // would point at code the user did not write that way.
            #launch
        }
    }
}

/// What every launch form's code uses: the rank, the view and domain
/// expressions, the constants' key, the IR builder's body, the captures'
/// native bindings and the index parameter.
#[derive(Clone, Copy)]
struct LaunchParts<'a> {
    rank: &'a TokenStream,
    view: &'a TokenStream,
    domain: &'a syn::Expr,
    const_key: &'a TokenStream,
    ir_body: &'a TokenStream,
    native_binds: &'a [TokenStream],
    index: &'a proc_macro2::Ident,
}

/// The call of `launch_tiled` that both tiled forms end with (their
/// native closure bound to `__amp_native`).
fn launch_tiled(p: &LaunchParts<'_>) -> TokenStream {
    let LaunchParts {
        rank,
        view,
        domain,
        const_key,
        ir_body,
        ..
    } = *p;
    quote! {
        ::amp_core::__private::kernel::launch_tiled::<#rank, _, _, _>(
            #view,
            ::core::convert::Into::<::amp_core::TiledExtent<#rank>>::into(#domain),
            &__AMP_SITE,
            __amp_captures,
            #const_key,
            || -> __ir::Block { #ir_body },
            __amp_native,
        )
    }
}

/// The launch of a tiled kernel in the split form (`split`: its body).
fn split_launch(p: &LaunchParts<'_>, split: &TokenStream) -> TokenStream {
    // (The split body binds the index per work item itself.)
    let LaunchParts {
        rank, native_binds, ..
    } = *p;
    let launch = launch_tiled(p);
    quote! {
        // Locals restored per work item may go unused or unassigned in
        // some regions.
        #[allow(clippy::all, unused_parens, unused_braces, unused_variables, unused_mut, unused_assignments, unused_labels)]
        let __amp_native = ::amp_core::__private::kernel::native_split_kernel::<#rank, _, _>(
            &__amp_captures,
            move |__amp_caps, __amp_batch: &::amp_core::__private::kernel::TileBatch<#rank>| {
                #(#native_binds)*
                #split
            },
        );
        #launch
    }
}

/// The launch of a tiled kernel in the threaded form (a thread per work
/// item), with the compile-time warning that says why.
fn threaded_launch(
    p: &LaunchParts<'_>,
    native_body: &TokenStream,
    threaded_warning: &TokenStream,
) -> TokenStream {
    let LaunchParts {
        rank,
        native_binds,
        index,
        ..
    } = *p;
    let launch = launch_tiled(p);
    quote! {
        #threaded_warning
        #[allow(clippy::all, unused_parens, unused_braces)]
        let __amp_native = ::amp_core::__private::kernel::native_tiled_kernel::<#rank, _, _>(
            &__amp_captures,
            move |__amp_caps, #index: &::amp_core::TiledIndex<#rank>, __amp_tile_mem: &::amp_core::__private::kernel::TileMemory| {
                let __amp_tiled = #index;
                let _amp_off = 0usize;
                #(#native_binds)*
                #native_body
            },
        );
        #launch
    }
}

/// The launch of a kernel with a plain form (see `plain`): the same body,
/// with the captures it may access plainly read and written through plain
/// views, beside the atomic form.
fn plain_launch(
    p: &LaunchParts<'_>,
    k: &Kernel,
    uses: &[Use],
    native_body: &TokenStream,
) -> TokenStream {
    let LaunchParts {
        rank,
        view,
        domain,
        const_key,
        ir_body,
        native_binds,
        index,
    } = *p;
    let plain_body = native_block(
        Cx {
            exits: None,
            plain: Some(uses),
        },
        &k.body,
    );
    // Captures with plain views: read and written at the own index
    // (`Own`), or read there (`Read { own: true }`); the others keep
    // their atomic passes.
    let viewed = |u: &Use| matches!(u, Use::Own | Use::Read { own: true });
    let asks = uses.iter().enumerate().filter_map(|(i, u)| {
        let ix = syn::Index::from(i);
        let native = quote!(::amp_core::__private::kernel::BindNative::native(&__amp_caps.#ix));
        match u {
            Use::Own => Some(quote! {
                __amp_plan.own(#native, #i)
            }),
            Use::Read { own: true } => Some(quote! {
                ::amp_core::__private::kernel::PlainRead::plain_read(&#native, __amp_plan, #i)
            }),
            _ => None,
        }
    });
    let plain_binds = uses.iter().enumerate().filter_map(|(i, u)| {
        let plain = plain_name(i as u32);
        let k = syn::Index::from(uses[..i].iter().filter(|u| viewed(u)).count());
        viewed(u).then(|| {
            quote! {
                #[allow(unused_variables)]
                let #plain = &__amp_plain.#k;
            }
        })
    });
    let atomic = atomic_native(p, native_body);
    quote! {
        #atomic
        #[allow(clippy::all, unused_parens, unused_braces)]
        let __amp_plain_form = ::amp_core::__private::kernel::native_plain_kernel::<#rank, _, _, _, _>(
            &__amp_captures,
            |__amp_caps, __amp_plan| (#(#asks,)*),
            move |__amp_caps, __amp_plain, __amp_own| {
                #[allow(unused_variables)]
                let #index: ::amp_core::Index<#rank> = __amp_own.index();
                #(#native_binds)*
                #(#plain_binds)*
                #plain_body
            },
        );
        ::amp_core::__private::kernel::launch_plain::<#rank, _, _, _, _, _, _>(
            #view,
            ::core::convert::Into::<::amp_core::Extent<#rank>>::into(#domain),
            &__AMP_SITE,
            __amp_captures,
            #const_key,
            || -> __ir::Block { #ir_body },
            __amp_native,
            __amp_plain_form,
        )
    }
}

/// `let __amp_native = ..;`: the atomic native form of a non-tiled kernel
/// (a closure per work item), which both non-tiled launches have.
fn atomic_native(p: &LaunchParts<'_>, native_body: &TokenStream) -> TokenStream {
    let LaunchParts {
        rank,
        native_binds,
        index,
        ..
    } = *p;
    quote! {
        #[allow(clippy::all, unused_parens, unused_braces)]
        let __amp_native = ::amp_core::__private::kernel::native_kernel::<#rank, _, _>(
            &__amp_captures,
            move |__amp_caps, #index: ::amp_core::Index<#rank>| {
                #(#native_binds)*
                #native_body
            },
        );
    }
}

/// The launch of a non-tiled kernel without a plain form.
fn plain_less_launch(p: &LaunchParts<'_>, native_body: &TokenStream) -> TokenStream {
    let LaunchParts {
        rank,
        view,
        domain,
        const_key,
        ir_body,
        ..
    } = *p;
    let atomic = atomic_native(p, native_body);
    quote! {
        #atomic
        ::amp_core::__private::kernel::launch::<#rank, _, _, _>(
            #view,
            ::core::convert::Into::<::amp_core::Extent<#rank>>::into(#domain),
            &__AMP_SITE,
            __amp_captures,
            #const_key,
            || -> __ir::Block { #ir_body },
            __amp_native,
        )
    }
}

/// Compile-time checks of the `#[kernel]` function calls whose results a
/// tiled body's uniformity depends on ([`check::assumed_uniform_calls`]):
/// each callee's summary must say its result is the same for every work
/// item given the same arguments.
///
/// [`check::assumed_uniform_calls`]: super::check::assumed_uniform_calls
pub(crate) fn uniform_call_checks(body: &Block, tiled: bool) -> TokenStream {
    let checks = super::check::assumed_uniform_calls(body, tiled)
        .into_iter()
        .map(|(path, span)| {
            let name = path
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let message = format!(
                "the result of `{name}` decides whether work items reach a barrier here, but it may differ between the work items of a tile (`{name}` uses an atomic, a subgroup operation, the tiled index, or loads from memory): every work item of a tile must reach the same barriers"
            );
            let summary = summary_path(&path);
            quote_spanned! {span=>
                const _: () = if #summary { ::core::panic!(#message) };
            }
        });
    quote!(#(#checks)*)
}

/// Compile-time checks of the calls of a tiled body that pass the tiled
/// index with arguments that vary by work item
/// ([`check::varying_arg_calls`]): the callee's summary must say that its
/// barriers do not depend on those parameters.
///
/// [`check::varying_arg_calls`]: super::check::varying_arg_calls
pub(crate) fn varying_arg_checks(body: &Block, tiled: bool) -> TokenStream {
    let checks = super::check::varying_arg_calls(body, tiled)
        .into_iter()
        .map(|(path, span, mask)| {
            let name = path
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let message = format!("`{name}`: {}", super::check::CALL_ARGS_VARY);
            let summary = barrier_summary_path(&path);
            quote_spanned! {span=>
                const _: () = if (#summary & #mask) != 0 { ::core::panic!(#message) };
            }
        });
    quote!(#(#checks)*)
}

/// A compile-time warning at the kernel (stable Rust has no warnings from
/// procedural macros: the use of a deprecated item carries the text) that
/// a tiled kernel runs with a thread per work item on the CPU accelerator,
/// and why. `#[allow(deprecated)]` on the enclosing function silences it.
fn threaded_warning(why: &str, span: Span) -> TokenStream {
    let note = format!(
        "amp-rs: this tiled kernel runs on the CPU accelerator with a thread per work item (tens to hundreds of times slower than its split form, which runs a tile's work items in turn on one thread) because {why}. GPUs are not affected. Silence with #[allow(deprecated)] on the enclosing function."
    );
    quote_spanned! {span=>
        #[allow(non_upper_case_globals)]
        #[deprecated(note = #note)]
        const cpu_form_threaded: () = ();
        let () = cpu_form_threaded;
    }
}
