//! `#[kernel]` functions: the function itself (its body rewritten like a
//! kernel's native body), its companion module with the IR builder and
//! uniformity summary, and the paths that reach them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::super::ast::*;
use super::ir::{ir_block, local_id, ty_tokens};
use super::native::{Cx, FN_TILE_KEY, REF_PARAMS, native_block};
use super::{span_tokens, uniform_call_checks};

/// A call of the `const fn` `summary` in the companion module of the
/// `#[kernel]` function at `path` (without generic arguments: the
/// summaries are the same for every instance).
fn companion_call(path: &syn::ExprPath, summary: &str) -> TokenStream {
    let mut path = path.path.clone();
    if is_method_path(&path) {
        // `Type::f`: the associated function `Type::__amp_f_<summary>`.
        if let Some(last) = path.segments.last_mut() {
            let span = last.ident.span();
            last.ident = format_ident!(
                "__amp_{}{}",
                last.ident,
                summary.trim_start_matches("__amp"),
                span = span
            );
            last.arguments = syn::PathArguments::None;
        }
        return quote!(#path());
    }
    if let Some(last) = path.segments.last_mut() {
        last.arguments = syn::PathArguments::None;
        let span = last.ident.span();
        path.segments.push(syn::PathSegment::from(format_ident!(
            "{}",
            summary,
            span = span
        )));
    }
    quote!(#path())
}

/// A call of the uniformity summary (`__amp_varies`) of the `#[kernel]`
/// function at `path`.
pub(super) fn summary_path(path: &syn::ExprPath) -> TokenStream {
    companion_call(path, "__amp_varies")
}

/// A call of the barrier summary (`__amp_barrier_params`) of the
/// `#[kernel]` function at `path`: the positions of the parameters its
/// barriers depend on, a bit each.
pub(super) fn barrier_summary_path(path: &syn::ExprPath) -> TokenStream {
    companion_call(path, "__amp_barrier_params")
}

/// The name of the IR builder inside a `#[kernel]` function's companion
/// module.
const BUILDER: &str = "__amp_kernel";

/// The IR builder of the `#[kernel]` function at `path`: the function's
/// companion module (same path, type namespace) and its builder, keeping
/// only const generic arguments (the builder is generic over those; types
/// are inferred). A `use` of the function imports the module with it.
pub(crate) fn builder_path(path: &syn::ExprPath) -> TokenStream {
    let mut path = path.path.clone();
    let method = is_method_path(&path);
    let Some(last) = path.segments.last_mut() else {
        return quote!(#path);
    };
    let span = last.ident.span();
    let mut builder = if method {
        // `Type::f`: the associated function `Type::__amp_f_kernel`.
        syn::PathSegment::from(format_ident!("__amp_{}_kernel", last.ident, span = span))
    } else {
        syn::PathSegment::from(format_ident!("{}", BUILDER, span = span))
    };
    if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
        let consts: syn::punctuated::Punctuated<syn::GenericArgument, syn::Token![,]> = args
            .args
            .iter()
            .filter(|a| is_const_arg(a))
            .cloned()
            .collect();
        if !consts.is_empty() {
            let mut args = args.clone();
            args.args = consts;
            builder.arguments = syn::PathArguments::AngleBracketed(args);
        }
    }
    if method {
        *last = builder;
    } else {
        last.arguments = syn::PathArguments::None;
        path.segments.push(builder);
    }
    quote!(#path)
}

/// Whether the `#[kernel]` function at `path` is an item of an `impl`
/// block (`Type::f`, `Self::f`: the segment before the last names a type,
/// by Rust's naming convention), whose companions are associated
/// functions, rather than of a module (`module::f`, `f`), whose companion
/// is a module of its name.
pub(crate) fn is_method_path(path: &syn::Path) -> bool {
    let n = path.segments.len();
    n >= 2 && {
        let owner = path.segments[n - 2].ident.to_string();
        owner == "Self" || owner.starts_with(|c: char| c.is_ascii_uppercase())
    }
}

/// The name of the function a method call `value.m(..)` in a kernel calls:
/// `__amp_m_recv`, which takes the receiver by `&mut` whatever `m` takes.
pub(crate) fn receiver_shim_name(method: &proc_macro2::Ident) -> proc_macro2::Ident {
    format_ident!("__amp_{}_recv", method, span = method.span())
}

/// For a call of a receiver shim (`Type::__amp_m_recv`, see
/// [`receiver_shim`]), the method it stands for (`m`, with the call's
/// generic arguments): what the CPU form calls on the receiver.
pub(crate) fn shim_call(path: &syn::ExprPath) -> Option<TokenStream> {
    if !is_method_path(&path.path) {
        return None;
    }
    let last = path.path.segments.last()?;
    let s = last.ident.to_string();
    let m = s.strip_prefix("__amp_")?.strip_suffix("_recv")?;
    if m.is_empty() {
        return None;
    }
    let m = proc_macro2::Ident::new(m, last.ident.span());
    let args = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => {
            let a = &a.args;
            quote!(::<#a>)
        }
        _ => quote!(),
    };
    Some(quote!(#m #args))
}

/// For a method with a receiver (`&mut self`, `&self`, `self`), the
/// function that `value.m(args)` in a kernel calls on the accelerators:
/// `fn __amp_m_recv(this: &mut Self, args) -> R { Self::m(this, args) }`
/// (`Self::m(*this, args)` for `self` by value), itself a `#[kernel]`
/// associated function. The call passes the receiver's place by `&mut`,
/// since the caller cannot see how `m` takes it; the CPU form calls
/// `value.m(args)` itself (Rust's auto-reference).
pub(crate) fn receiver_shim(f: &Function) -> Option<syn::ItemFn> {
    let receiver = f.receiver?;
    let sig = &f.item.sig;
    // A `&mut` result is one of the parameters; its selector is not
    // passed on by a shim: such methods are called by path.
    if let syn::ReturnType::Type(_, t) = &sig.output
        && matches!(&**t, syn::Type::Reference(_))
    {
        return None;
    }
    let span = sig.ident.span();
    let name = receiver_shim_name(&sig.ident);
    let method = &sig.ident;
    let mut inputs: Vec<syn::FnArg> = vec![syn::parse_quote_spanned!(span=> this: &mut Self)];
    let mut args: Vec<syn::Expr> = vec![match receiver {
        Receiver::Value => syn::parse_quote_spanned!(span=> *this),
        Receiver::Ref | Receiver::RefMut => syn::parse_quote_spanned!(span=> this),
    }];
    for input in sig.inputs.iter().skip(1) {
        let syn::FnArg::Typed(pt) = input else {
            return None;
        };
        let syn::Pat::Ident(p) = &*pt.pat else {
            return None;
        };
        let ident = &p.ident;
        let ty = &pt.ty;
        inputs.push(syn::parse_quote_spanned!(span=> #ident: #ty));
        args.push(syn::parse_quote_spanned!(span=> #ident));
    }
    let consts: Vec<&proc_macro2::Ident> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Const(c) => Some(&c.ident),
            _ => None,
        })
        .collect();
    let turbofish = (!consts.is_empty()).then(|| quote!(::<#(#consts),*>));
    let generics = &sig.generics;
    let output = &sig.output;
    let vis = &f.item.vis;
    // A method without a result is called as a statement.
    let semi = matches!(output, syn::ReturnType::Default).then(|| quote!(;));
    Some(syn::parse_quote_spanned! {span=>
        #[doc(hidden)]
        #[allow(non_snake_case)]
        #vis fn #name #generics(#(#inputs),*) #output {
            Self::#method #turbofish(#(#args),*) #semi
        }
    })
}

fn is_const_arg(a: &syn::GenericArgument) -> bool {
    match a {
        syn::GenericArgument::Const(_) => true,
        syn::GenericArgument::Type(syn::Type::Path(p)) => p.path.get_ident().is_some_and(|i| {
            let s = i.to_string();
            s.chars().any(|c| c.is_ascii_uppercase())
                && s.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                && s.len() > 1
        }),
        _ => false,
    }
}

/// The expansion of a `#[kernel]` function: the function itself (its body
/// rewritten like a kernel's native body) and its IR builder.
pub(crate) fn expand_function(f: &Function, with_native: bool) -> TokenStream {
    let item = &f.item;
    let attrs = &item.attrs;
    let vis = &item.vis;
    let sig = &item.sig;
    let name = sig.ident.to_string();
    let fn_name = &sig.ident;
    let builder = format_ident!("{}", BUILDER);
    let native = if with_native {
        native_fn_body(f)
    } else {
        quote!(::core::unreachable!(
            "this #[kernel] function did not compile"
        ))
    };
    let const_params: Vec<&syn::ConstParam> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Const(c) => Some(c),
            _ => None,
        })
        .collect();
    let bounds = f.type_params.iter().map(|b| format_ident!("{}", b));
    let bindings = ir_bindings(f);
    let sig = native_signature(f);
    let tiled_alias = f.tiled.as_ref().filter(|_| with_native).map(|t| {
        quote! {
            #[allow(unused_variables)]
            let __amp_tiled = #t;
        }
    });
    let varies = varies_summary(f);
    let barrier_params = barrier_params_summary(f);
    // The builder lives one module down: `super::` and `self::` paths of
    // the function's body and signature types must reach as far up.
    let body = companion_scope(f, ir_block(&f.body));
    let params = ir_params(f);
    let ret = ir_ret(f);
    let span = span_tokens(sig.ident.span());
    let doc = format!("The kernel IR of [`{name}`] (generated by `#[kernel]`).");
    let fallback = (!with_native).then(|| quote!(#[allow(unused_variables)]));
    // The IR builder's body.
    let ir_function = quote! {
        use ::amp_core::__private::kernel::ir as __ir;
        __ir::Function {
            name: #name,
            type_params: ::std::vec![#(__ir::Bound::#bounds),*],
            params: ::std::vec![#(#params),*],
            ret: #ret,
            bindings: ::std::vec![#(#bindings),*],
            body: #body,
            span: #span,
        }
    };
    if f.method {
        // An item of an `impl` block: the companions are associated
        // functions of the type, named after the function.
        let kernel = format_ident!("__amp_{}_kernel", fn_name);
        let varies_fn = format_ident!("__amp_{}_varies", fn_name);
        let barrier_fn = format_ident!("__amp_{}_barrier_params", fn_name);
        let doc = format!("The kernel IR of `{name}` (generated by `#[kernel]`).");
        return quote! {
            #(#attrs)*
            #fallback
            #[allow(clippy::manual_swap)]
            #vis #sig {
                #tiled_alias
                #native
            }

            #[doc = #doc]
            #[doc(hidden)]
            #[allow(non_snake_case, dead_code, clippy::all)]
            #vis const fn #varies_fn() -> bool {
                #varies
            }

            #[doc = #doc]
            #[doc(hidden)]
            #[allow(non_snake_case, dead_code, clippy::all)]
            #vis const fn #barrier_fn() -> u64 {
                #barrier_params
            }

            #[doc = #doc]
            #[doc(hidden)]
            #[allow(non_snake_case, dead_code, unused_imports, clippy::all)]
            #vis fn #kernel<#(#const_params),*>() -> ::amp_core::__private::kernel::ir::Function {
                #ir_function
            }
        };
    }
    quote! {
        #(#attrs)*
        #fallback
        // Kernels have no `std::mem::swap`: exchanging through a temporary
        // is how they swap.
        #[allow(clippy::manual_swap)]
        #vis #sig {
            #tiled_alias
            #native
        }

        // The companion module: same name as the function, in the type
        // namespace, so that every path and `use` that reaches the function
        // reaches its IR builder too.
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_snake_case, dead_code, unused_imports, clippy::all)]
        #vis mod #fn_name {
            use super::*;

            /// Names the function's instances (keys their `tile_static`
            /// memory on the CPU accelerator).
            pub struct __AmpTileKey;

            /// Whether the function's result may differ between work items
            /// given the same arguments (its callers' uniformity checks
            /// evaluate it at compile time). A function, not a constant:
            /// mutually recursive functions (refused at launch, but valid
            /// on the host) would make constants a cycle.
            pub const fn __amp_varies() -> bool {
                #varies
            }

            /// The positions of the parameters whose values decide whether
            /// (or how often) the function reaches a barrier, a bit each:
            /// a caller passing the tiled index may pass values that differ
            /// between work items elsewhere (its compile-time check reads
            /// this). A function, as `__amp_varies`.
            pub const fn __amp_barrier_params() -> u64 {
                #barrier_params
            }

            #[doc = #doc]
            pub fn #builder<#(#const_params),*>() -> ::amp_core::__private::kernel::ir::Function {
                #ir_function
            }
        }
    }
}

/// The native body of the function: its checks, then its body rewritten
/// as a kernel's (with its `&mut` parameters and the key of its
/// `tile_static` memory set while it is generated).
fn native_fn_body(f: &Function) -> TokenStream {
    let refs: Vec<u32> = f
        .params
        .iter()
        .filter(|(_, _, t)| matches!(t, Ty::Ref(_)))
        .map(|(id, _, _)| *id)
        .collect();
    REF_PARAMS.with(|r| *r.borrow_mut() = refs);
    let key = tile_key(f);
    FN_TILE_KEY.with(|k| *k.borrow_mut() = key);
    let native = native_block(Cx::default(), &f.body);
    let word_checks = word_checks(f);
    let uniform_calls = uniform_call_checks(&f.body, f.tiled.is_some());
    let varying_args = super::varying_arg_checks(&f.body, f.tiled.is_some());
    let marker = (f.method && f.tiled.is_some()).then(|| {
        quote! {
            #[allow(non_camel_case_types, dead_code)]
            struct __AmpTileKey;
        }
    });
    let native = quote!(#marker #(#word_checks)* #uniform_calls #varying_args #native);
    REF_PARAMS.with(|r| r.borrow_mut().clear());
    FN_TILE_KEY.with(|k| *k.borrow_mut() = None);
    native
}

/// The instance's name keys its `tile_static` memory: the function's
/// marker type (in its companion module) with its generic arguments (for a
/// function that takes the tiled index).
fn tile_key(f: &Function) -> Option<TokenStream> {
    let sig = &f.item.sig;
    let fn_ident = &sig.ident;
    let generic_args: Vec<TokenStream> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => {
                let t = &t.ident;
                Some(quote!(#t))
            }
            syn::GenericParam::Const(c) => {
                let (v, ty) = (&c.ident, &c.ty);
                let holder = match quote!(#ty).to_string().as_str() {
                    "u32" => format_ident!("ConstU32"),
                    "bool" => format_ident!("ConstBool"),
                    _ => format_ident!("ConstI32"),
                };
                Some(quote!(::amp_core::__private::kernel::#holder<#v>))
            }
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    // A method's marker is a type declared in its body (an `impl` holds
    // no types): its path names the method.
    let marker = if f.method {
        quote!(__AmpTileKey)
    } else {
        quote!(#fn_ident::__AmpTileKey)
    };
    f.tiled
        .is_some()
        .then(|| quote!(::core::any::type_name::<(#marker, #(#generic_args,)*)>()))
}

/// A view parameter read or written through `reinterpret_as`: its
/// element type is made of 4-byte words (checked on that type, as
/// `sites` does for a kernel's captures).
fn word_checks(f: &Function) -> Vec<TokenStream> {
    let view_elems: Vec<&syn::Type> = f
        .bindings
        .iter()
        .filter_map(|(_, b)| match b {
            FnBinding::View { elem, .. } => Some(elem),
            FnBinding::Tiled(_) => None,
        })
        .collect();
    super::super::sites::sites(&f.body)
        .reinterprets
        .into_iter()
        .filter_map(|(c, span)| {
            let k = c.checked_sub(super::super::parse::VIEW_PARAM_BASE)?;
            let elem = view_elems.get(k as usize)?;
            Some(quote_spanned! {span=>
                ::amp_core::__private::kernel::assert_words::<#elem>();
            })
        })
        .collect()
}

/// The IR builder's parameters: `(local, name, type)` each, with paths
/// deepened for the companion module.
fn ir_params(f: &Function) -> Vec<TokenStream> {
    let params = f.params.iter().map(|(local, pname, ty)| {
        let local = local_id(*local);
        let pname = pname.to_string();
        let ty = ty_tokens(ty);
        quote!((#local, #pname, #ty))
    });
    params.map(|p| companion_scope(f, p)).collect()
}

/// The IR builder's return type, with paths deepened for the companion
/// module.
fn ir_ret(f: &Function) -> TokenStream {
    let ret = match &f.ret {
        Some(t) => {
            let t = ty_tokens(t);
            quote!(::core::option::Option::Some(#t))
        }
        None => quote!(::core::option::Option::None),
    };
    companion_scope(f, ret)
}

/// The IR builder's parameter bindings (views and the tiled index), by
/// position, with paths deepened for the companion module.
fn ir_bindings(f: &Function) -> Vec<TokenStream> {
    f.bindings
        .iter()
        .map(|(pos, b)| {
            let binding = match b {
                FnBinding::View {
                    ty, rank, writable, ..
                } => {
                    let ty = ty_tokens(ty);
                    quote!(__ir::ParamBinding::View { elem: #ty, rank: #rank, writable: #writable })
                }
                FnBinding::Tiled(n) => quote!(__ir::ParamBinding::Tiled(#n)),
            };
            companion_scope(f, quote!((#pos, #binding)))
        })
        .collect()
}

/// The native function's signature. It takes the CPU form of each view:
/// writable ones of a writable access (a read-only one is refused in the
/// user's terms), read-only ones of any access (a writable view may be
/// passed where a read-only one is taken, as in C++ AMP).
fn native_signature(f: &Function) -> syn::Signature {
    let mut sig = f.item.sig.clone();
    for (pos, b) in &f.bindings {
        if let FnBinding::View {
            elem,
            rank,
            writable,
            ..
        } = b
            && let Some(syn::FnArg::Typed(pt)) = sig.inputs.iter_mut().nth(*pos)
        {
            let rank = *rank as usize;
            let access = if *writable {
                quote!(impl ::amp_core::__private::kernel::WritableAccess)
            } else {
                quote!(impl ::amp_core::Access)
            };
            let span = syn::spanned::Spanned::span(&*pt.ty);
            *pt.ty = syn::parse_quote_spanned!(span=>
                &::amp_core::__private::kernel::CpuView<#elem, #rank, #access>
            );
        }
    }
    sig
}

/// The uniformity summary: its own varying operations, and those of the
/// functions it calls (not itself: recursion is refused at launch).
fn varies_summary(f: &Function) -> TokenStream {
    let fn_name = &f.item.sig.ident;
    let sites = super::super::sites::sites(&f.body);
    let own = sites.varies;
    let callees = sites
        .calls
        .iter()
        .filter(|p| !p.path.is_ident(fn_name))
        .map(summary_path);
    companion_scope(f, quote!(#own #(|| #callees)*))
}

/// The barrier summary (see `__amp_barrier_params`): the parameters the
/// function's own barriers depend on, and those it passes on to functions
/// whose barriers depend on them (not itself: recursion is refused at
/// launch).
fn barrier_params_summary(f: &Function) -> TokenStream {
    let fn_name = &f.item.sig.ident;
    if f.tiled.is_none() {
        // No tiled index: no barrier to reach.
        return quote!(0u64);
    }
    let bound: Vec<usize> = f.bindings.iter().map(|(pos, _)| *pos).collect();
    let positions = (0..f.params.len() + f.bindings.len()).filter(|p| !bound.contains(p));
    let params: Vec<(usize, u32)> = positions
        .zip(&f.params)
        .map(|(pos, (local, _, _))| (pos, *local))
        .collect();
    let (own, passed) = super::super::check::barrier_params(&f.body, &params);
    let passed: Vec<TokenStream> = passed
        .into_iter()
        .filter(|(_, path, _)| !path.path.is_ident(fn_name))
        .map(|(pos, path, mask)| {
            let summary = barrier_summary_path(&path);
            let bit = 1u64 << pos.min(63);
            quote! {
                if (#summary & #mask) != 0 {
                    bits |= #bit;
                }
            }
        })
        .collect();
    if passed.is_empty() {
        return quote!(#own);
    }
    companion_scope(
        f,
        quote! {
            let mut bits: u64 = #own;
            #(#passed)*
            bits
        },
    )
}

/// Rewrites the relative paths of `tokens` for code moved one module down:
/// a path that starts with `super` gets one more, one that starts with
/// `self::` starts with `super::` instead.
/// `tokens` as written in the function's companions: one module down for a
/// free function (see `deepen_paths`), in the same `impl` for a method.
fn companion_scope(f: &Function, tokens: TokenStream) -> TokenStream {
    if f.method {
        tokens
    } else {
        deepen_paths(tokens)
    }
}

fn deepen_paths(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Group, Ident, Punct, Spacing, TokenTree};
    let mut out = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    // Whether the previous tokens were `::` (so an ident continues a path).
    let mut after_colons = false;
    let mut colon_run = 0;
    while let Some(tt) = iter.next() {
        let starts_path = !after_colons;
        match &tt {
            TokenTree::Ident(i) if starts_path && i == "super" => {
                out.push(TokenTree::Ident(Ident::new("super", i.span())));
                let mut first = Punct::new(':', Spacing::Joint);
                first.set_span(i.span());
                let mut second = Punct::new(':', Spacing::Alone);
                second.set_span(i.span());
                out.extend([TokenTree::Punct(first), TokenTree::Punct(second)]);
                out.push(tt);
            }
            TokenTree::Ident(i)
                if starts_path
                    && i == "self"
                    && matches!(iter.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':') =>
            {
                out.push(TokenTree::Ident(Ident::new("super", i.span())));
            }
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), deepen_paths(g.stream()));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            _ => out.push(tt.clone()),
        }
        // Track `::` (two ':' puncts, the first joint).
        match out.last() {
            Some(TokenTree::Punct(p)) if p.as_char() == ':' => {
                colon_run += 1;
                after_colons = colon_run >= 2;
            }
            _ => {
                colon_run = 0;
                after_colons = false;
            }
        }
    }
    out.into_iter().collect()
}
