//! Expand stage: one kernel AST, two outputs.
//!
//! - The IR builder: a closure that constructs `amp_core`'s kernel IR (called
//!   once per device and instantiation, at first launch).
//! - The native body: the same kernel as Rust for the CPU accelerator, with
//!   container accesses, integer arithmetic and math calls routed through
//!   `amp_core::__private::kernel` so that both forms mean the same thing.
//!
//! Generated code names everything by absolute path.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use super::ast::*;

/// The IR span of `span`: its file, line and column, as literals. (Not
/// `line!()` at the user's span: a literal with the user's span would make
/// lints judge the user's token by the generated one.)
/// The IR enum variant `v` names, as an identifier for generated code
/// (`Builtin::Sqrt` -> `Sqrt`).
fn variant(v: impl std::fmt::Debug) -> proc_macro2::Ident {
    proc_macro2::Ident::new(&format!("{v:?}"), proc_macro2::Span::call_site())
}

fn span_tokens(span: Span) -> TokenStream {
    let (line, column) = match std::panic::catch_unwind(|| span.unwrap()) {
        Ok(s) => (s.line() as u32, s.column() as u32),
        Err(_) => (0, 0),
    };
    quote! {
        __ir::Span { file: ::core::file!(), line: #line, column: #column }
    }
}

fn scalar_tokens(s: Scalar) -> TokenStream {
    let v = variant(s);
    quote!(__ir::Scalar::#v)
}

fn ty_tokens(t: &Ty) -> TokenStream {
    match t {
        Ty::Scalar(s) => {
            let s = scalar_tokens(*s);
            quote!(__ir::Type::Scalar(#s))
        }
        Ty::Index(n) => quote!(__ir::Type::Index(#n)),
        Ty::Array(e, n) => {
            let e = ty_tokens(e);
            quote!(__ir::Type::Array(::std::boxed::Box::new(#e), #n))
        }
        Ty::Param(k) => quote!(__ir::Type::Param(#k)),
        Ty::Named(t) => quote!(__ir::type_of::<#t>()),
        Ty::Tuple(ts) => {
            let ts = ts.iter().map(ty_tokens);
            quote!(__ir::Type::Tuple(::std::vec![#(#ts),*]))
        }
        Ty::Ref(t) => {
            let t = ty_tokens(t);
            quote!(__ir::Type::Ref(::std::boxed::Box::new(#t)))
        }
    }
}

thread_local! {
    /// The locals of the `&mut` parameters of the `#[kernel]` function
    /// being expanded: its native body reads and writes them as `*name`.
    static REF_PARAMS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
    /// In the native body of a `#[kernel]` function that takes the tiled
    /// index: the expression naming the function's instance, which keys
    /// its `tile_static` memory in the tile.
    static FN_TILE_KEY: std::cell::RefCell<Option<TokenStream>> = const { std::cell::RefCell::new(None) };
}

/// `name`, or `(*name)` for a `&mut` parameter.
fn native_local(id: u32, name: &proc_macro2::Ident) -> TokenStream {
    if REF_PARAMS.with(|r| r.borrow().contains(&id)) {
        quote!((*#name))
    } else {
        quote!(#name)
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
    let names: Vec<String> = k.captures.iter().map(|c| c.to_string()).collect();
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
    let native_binds = caps.iter().enumerate().map(|(i, c)| {
        let i = syn::Index::from(i);
        quote! {
            #[allow(unused_variables)]
            let #c = ::amp_core::__private::kernel::BindNative::native(&__amp_caps.#i);
        }
    });
    let native_body = native_block(Cx::default(), &k.body);
    let index = &k.index;
    let split = if k.tiled {
        super::split::split(k)
    } else {
        None
    };
    let launch = if let Some(split) = split {
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
    } else if k.tiled {
        quote! {
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
    } else {
        quote! {
            #[allow(clippy::all, unused_parens, unused_braces)]
            let __amp_native = ::amp_core::__private::kernel::native_kernel::<#rank, _, _>(
                &__amp_captures,
                move |__amp_caps, #index: ::amp_core::Index<#rank>| {
                    #(#native_binds)*
                    #native_body
                },
            );
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
    let write_checks = site_check(&sites.writes, "assert_writable");
    let reinterpret_checks = site_check(&sites.reinterprets, "assert_reinterpretable");
    quote! {
        {
            use ::amp_core::__private::kernel::ir as __ir;
            static __AMP_SITE: ::amp_core::__private::kernel::KernelSite = ::amp_core::__private::kernel::KernelSite {
                span: #site_span,
                capture_names: &[#(#names),*],
                infallible: #infallible,
            };
            // Each capture checked where the kernel uses it, so that a
            // capture of the wrong type is reported there.
            #(#capture_checks)*
            #(#write_checks)*
            #(#reinterpret_checks)*
            #uniform_calls
            let __amp_captures = (#(&#caps,)*);
            // The native form is rewritten user code: lints about its shape
            // would point at code the user did not write that way.
            #launch
        }
    }
}

// ---------------------------------------------------------------- IR builder

fn ir_block(b: &Block) -> TokenStream {
    let stmts = b
        .stmts
        .iter()
        .filter(|s| !matches!(s.kind, StmtKind::NativeCheck(_)))
        .map(ir_stmt);
    let tail = match &b.tail {
        Some(t) => {
            let t = ir_expr(t);
            quote!(::core::option::Option::Some(::std::boxed::Box::new(#t)))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        __ir::Block { stmts: ::std::vec![#(#stmts),*], tail: #tail }
    }
}

fn local_id(id: u32) -> TokenStream {
    quote!(__ir::LocalId(#id))
}

fn cap_id(id: u32) -> TokenStream {
    quote!(__ir::CaptureId(#id))
}

fn op_tokens(op: &BinOp) -> TokenStream {
    let v = variant(op);
    quote!(__ir::BinOp::#v)
}

fn ir_stmt(s: &Stmt) -> TokenStream {
    let span = span_tokens(s.span);
    let kind = match &s.kind {
        StmtKind::Let {
            local,
            name,
            ty,
            init,
            ..
        } => {
            let local = local_id(*local);
            let name = name.to_string();
            let ty = match ty {
                Some(t) => {
                    let t = ty_tokens(t);
                    quote!(::core::option::Option::Some(#t))
                }
                None => quote!(::core::option::Option::None),
            };
            let init = opt_expr(init.as_ref());
            quote!(__ir::StmtKind::Let { local: #local, name: #name, ty: #ty, init: #init })
        }
        StmtKind::Assign(place, op, e) => {
            let place = ir_place(place);
            let op = match op {
                Some(op) => {
                    let op = op_tokens(op);
                    quote!(::core::option::Option::Some(#op))
                }
                None => quote!(::core::option::Option::None),
            };
            let e = ir_expr(e);
            quote!(__ir::StmtKind::Assign(#place, #op, #e))
        }
        StmtKind::Expr(e) => {
            let e = ir_expr(e);
            quote!(__ir::StmtKind::Expr(#e))
        }
        StmtKind::If(c, a, b) => {
            let c = ir_expr(c);
            let a = ir_block(a);
            let b = match b {
                Some(b) => {
                    let b = ir_block(b);
                    quote!(::core::option::Option::Some(#b))
                }
                None => quote!(::core::option::Option::None),
            };
            quote!(__ir::StmtKind::If(#c, #a, #b))
        }
        StmtKind::While(c, body) => {
            let c = ir_expr(c);
            let body = ir_block(body);
            quote!(__ir::StmtKind::While(#c, #body))
        }
        StmtKind::Loop(body) => {
            let body = ir_block(body);
            quote!(__ir::StmtKind::Loop(#body))
        }
        StmtKind::For {
            var,
            name,
            start,
            end,
            inclusive,
            step,
            body,
            unroll,
            reverse,
        } => {
            let var = local_id(*var);
            let name = name.to_string();
            let start = ir_expr(start);
            let end = ir_expr(end);
            let step = opt_expr(step.as_ref());
            let body = ir_block(body);
            quote!(__ir::StmtKind::For {
                var: #var, name: #name, start: #start, end: #end,
                inclusive: #inclusive, step: #step, body: #body, unroll: #unroll,
                reverse: #reverse,
            })
        }
        StmtKind::Break => quote!(__ir::StmtKind::Break),
        StmtKind::Continue => quote!(__ir::StmtKind::Continue),
        StmtKind::Return(e) => {
            let e = opt_expr(e.as_ref());
            quote!(__ir::StmtKind::Return(#e))
        }
        StmtKind::NativeCheck(_) => unreachable!("filtered out of IR blocks"),
        StmtKind::Barrier(kind, _) => {
            let kind = variant(kind);
            quote!(__ir::StmtKind::Barrier(__ir::BarrierKind::#kind))
        }
        StmtKind::TileStatic {
            local,
            name,
            elem,
            elem_param,
            dims,
        } => {
            let local = local_id(*local);
            let name = name.to_string();
            let mut ty = match elem_param {
                Some(k) => quote!(__ir::Type::Param(#k)),
                None => quote_spanned!(s.span=> __ir::type_of::<#elem>()),
            };
            for len in dims.iter().rev() {
                ty = quote!(__ir::Type::Array(::std::boxed::Box::new(#ty), (#len) as u32));
            }
            quote!(__ir::StmtKind::TileStatic { local: #local, name: #name, ty: #ty })
        }
    };
    quote!(__ir::Stmt::new(#kind, #span))
}

fn opt_expr(e: Option<&Expr>) -> TokenStream {
    match e {
        Some(e) => {
            let e = ir_expr(e);
            quote!(::core::option::Option::Some(#e))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn ir_place(p: &Place) -> TokenStream {
    match p {
        Place::Local(id, _) => {
            let id = local_id(*id);
            quote!(__ir::Place::Local(#id))
        }
        Place::Element(c, _, idx) => {
            let c = cap_id(*c);
            let idx = idx.iter().map(ir_expr);
            quote!(__ir::Place::Element(#c, ::std::vec![#(#idx),*]))
        }
        Place::ArrayElement(id, _, idx) => {
            let id = local_id(*id);
            let idx = idx.iter().map(ir_expr);
            quote!(__ir::Place::ArrayElement(#id, ::std::vec![#(#idx),*]))
        }
        Place::TileElement(id, _, idx) => {
            let id = local_id(*id);
            let idx = idx.iter().map(ir_expr);
            quote!(__ir::Place::TileElement(#id, ::std::vec![#(#idx),*]))
        }
        Place::Field(base, m) => {
            let base = ir_place(base);
            let m = member_tokens(m);
            quote!(__ir::Place::Field(::std::boxed::Box::new(#base), #m))
        }
    }
}

fn ir_expr(e: &Expr) -> TokenStream {
    let span = span_tokens(e.span);
    let boxed = |x: &Expr| {
        let x = ir_expr(x);
        quote!(::std::boxed::Box::new(#x))
    };
    let kind = match &e.kind {
        ExprKind::Lit(l, _) => {
            let l = match l {
                Lit::Int(v, s) => {
                    let s = opt_scalar(*s);
                    quote!(__ir::Lit::Int(#v, #s))
                }
                Lit::Float(v, s) => {
                    let s = opt_scalar(*s);
                    quote!(__ir::Lit::Float(#v, #s))
                }
                Lit::Bool(b) => quote!(__ir::Lit::Bool(#b)),
            };
            quote!(__ir::ExprKind::Lit(#l))
        }
        ExprKind::Local(id, _) => {
            let id = local_id(*id);
            quote!(__ir::ExprKind::Local(#id))
        }
        ExprKind::Capture(c, _) => {
            let c = cap_id(*c);
            quote!(__ir::ExprKind::Capture(#c))
        }
        ExprKind::KernelIndex(_) => quote!(__ir::ExprKind::KernelIndex),
        // The tiled index passed to a function: binds its tiled parameter.
        ExprKind::TiledArg(_) => quote!(__ir::ExprKind::KernelIndex),
        // A `&mut` result on the GPU: the parameter's position.
        ExprKind::RefResult(pos, _) => {
            let pos = u128::from(*pos);
            quote!(__ir::ExprKind::Lit(__ir::Lit::Int(#pos, ::core::option::Option::Some(__ir::Scalar::U32))))
        }
        // The GPU function returns the position itself.
        ExprKind::RefCall(call) => return ir_expr(call),
        ExprKind::AddrOf(place) => {
            let place = ir_place(place);
            quote!(__ir::ExprKind::AddrOf(::std::boxed::Box::new(#place)))
        }
        ExprKind::Const(path) => {
            return quote_spanned! {e.span=> __ir::ConstValue::expr(#path, #span) };
        }
        ExprKind::Binary(op, l, r) => {
            let op = op_tokens(op);
            let (l, r) = (boxed(l), boxed(r));
            quote!(__ir::ExprKind::Binary(#op, #l, #r))
        }
        ExprKind::Unary(op, x) => {
            let op = match op {
                UnOp::Neg => quote!(Neg),
                UnOp::Not => quote!(Not),
            };
            let x = boxed(x);
            quote!(__ir::ExprKind::Unary(__ir::UnOp::#op, #x))
        }
        ExprKind::Cast(x, s) => {
            let x = boxed(x);
            let s = scalar_tokens(*s);
            quote!(__ir::ExprKind::Cast(#x, #s))
        }
        ExprKind::Extent(c, _) => {
            let c = *c;
            quote!(__ir::ExprKind::Extent(__ir::CaptureId(#c)))
        }
        ExprKind::Load(c, _, idx) => {
            let c = cap_id(*c);
            let idx = idx.iter().map(ir_expr);
            quote!(__ir::ExprKind::Load(#c, ::std::vec![#(#idx),*]))
        }
        ExprKind::Element(x, i) => {
            let (x, i) = (boxed(x), boxed(i));
            quote!(__ir::ExprKind::ArrayElement(#x, #i))
        }
        ExprKind::MakeIndex(parts, _) => {
            let parts = parts.iter().map(ir_expr);
            quote!(__ir::ExprKind::MakeIndex(::std::vec![#(#parts),*]))
        }
        ExprKind::Array(items) => {
            let items = items.iter().map(ir_expr);
            quote!(__ir::ExprKind::MakeArray(::std::vec![#(#items),*]))
        }
        ExprKind::Repeat(x, len) => {
            let x = boxed(x);
            quote!(__ir::ExprKind::RepeatArray(#x, (#len) as u32))
        }
        ExprKind::Call(b, _, args) => {
            let b = variant(b);
            let args = args.iter().map(ir_expr);
            quote!(__ir::ExprKind::Call(__ir::Builtin::#b, ::std::vec![#(#args),*]))
        }
        ExprKind::If(c, a, b) => {
            let c = boxed(c);
            let (a, b) = (ir_block(a), ir_block(b));
            quote!(__ir::ExprKind::If(#c, #a, #b))
        }
        ExprKind::Field(x, m) => {
            let x = boxed(x);
            let m = member_tokens(m);
            quote!(__ir::ExprKind::Field(#x, #m))
        }
        ExprKind::Swizzle(x, m) => {
            let x = boxed(x);
            let m = m.to_string();
            quote!(__ir::ExprKind::Field(#x, __ir::Member::Named(#m)))
        }
        ExprKind::Tiled(field, _) => {
            let field = variant(field);
            quote!(__ir::ExprKind::Tiled(__ir::TiledField::#field))
        }
        ExprKind::TileLoad(id, _, idx, uniform, _) => {
            let id = local_id(*id);
            let idx = idx.iter().map(ir_expr);
            let load = quote!(__ir::ExprKind::TileLoad(#id, ::std::vec![#(#idx),*]));
            if uniform.get() {
                // The same value for the whole tile (see `check`).
                quote!(__ir::ExprKind::Call(
                    __ir::Builtin::UniformLoad,
                    ::std::vec![__ir::Expr::new(#load, #span)],
                ))
            } else {
                load
            }
        }
        ExprKind::MakeVector(n, sc, _, args) => {
            let sc = scalar_tokens(*sc);
            let args = args.iter().map(ir_expr);
            quote!(__ir::ExprKind::MakeVector(#n, #sc, ::std::vec![#(#args),*]))
        }
        ExprKind::MakeStruct(path, fields) => {
            let fields = fields.iter().map(|(n, e)| {
                let n = n.to_string();
                let e = ir_expr(e);
                quote!((#n, #e))
            });
            quote_spanned!(e.span=> __ir::ExprKind::MakeStruct(__ir::type_of::<#path>(), ::std::vec![#(#fields),*]))
        }
        ExprKind::MakeTuple(items) => {
            let items = items.iter().map(ir_expr);
            quote!(__ir::ExprKind::MakeTuple(::std::vec![#(#items),*]))
        }
        ExprKind::CallFn(path, args) => {
            let builder = builder_path(path);
            let args = args.iter().map(ir_expr);
            quote_spanned!(e.span=>
                __ir::ExprKind::CallFn(
                    __ir::FnRef::new(#builder as fn() -> __ir::Function),
                    ::std::vec![#(#args),*],
                    ::std::vec::Vec::new(),
                )
            )
        }
        ExprKind::Block(b) => {
            let b = ir_block(b);
            quote!(__ir::ExprKind::Block(#b))
        }
        ExprKind::Atomic(a) => return ir_atomic(a, &span),
    };
    quote!(__ir::Expr::new(#kind, #span))
}

/// An atomic call in the IR. `inc`/`dec` add/subtract one;
/// `atomic_compare_exchange(&a[i], &mut expected, v)` becomes
/// `{ let old = <CompareExchange>(a[i], expected, v); let ok = old ==
/// expected; expected = old; ok }`, so that the passes see the write to
/// `expected` as an ordinary assignment.
fn ir_atomic(a: &Atomic, span: &TokenStream) -> TokenStream {
    let op = variant(a.op);
    let place = ir_place(&a.target);
    let mut args: Vec<TokenStream> = a.args.iter().map(ir_expr).collect();
    if a.implicit_one {
        args.push(quote!(__ir::Expr::new(
            __ir::ExprKind::Lit(__ir::Lit::Int(1, ::core::option::Option::None)),
            #span
        )));
    }
    let Some((expected, _, old, ok)) = &a.expected else {
        return quote!(__ir::Expr::new(
            __ir::ExprKind::Atomic(
                __ir::AtomicOp::#op,
                ::std::boxed::Box::new(#place),
                ::std::vec![#(#args),*],
            ),
            #span
        ));
    };
    let (expected, old, ok) = (local_id(*expected), local_id(*old), local_id(*ok));
    let local = |id: &TokenStream| quote!(__ir::Expr::new(__ir::ExprKind::Local(#id), #span));
    let (e_expected, e_old, e_ok) = (local(&expected), local(&old), local(&ok));
    quote!(__ir::Expr::new(
        __ir::ExprKind::Block(__ir::Block {
            stmts: ::std::vec![
                __ir::Stmt::new(__ir::StmtKind::Let {
                    local: #old,
                    name: "amp_cas_old",
                    ty: ::core::option::Option::None,
                    init: ::core::option::Option::Some(__ir::Expr::new(
                        __ir::ExprKind::Atomic(
                            __ir::AtomicOp::CompareExchange,
                            ::std::boxed::Box::new(#place),
                            ::std::vec![#e_expected, #(#args),*],
                        ),
                        #span
                    )),
                }, #span),
                __ir::Stmt::new(__ir::StmtKind::Let {
                    local: #ok,
                    name: "amp_cas_ok",
                    ty: ::core::option::Option::None,
                    init: ::core::option::Option::Some(__ir::Expr::new(
                        __ir::ExprKind::Binary(
                            __ir::BinOp::Eq,
                            ::std::boxed::Box::new(#e_old),
                            ::std::boxed::Box::new(#e_expected),
                        ),
                        #span
                    )),
                }, #span),
                __ir::Stmt::new(
                    __ir::StmtKind::Assign(__ir::Place::Local(#expected), ::core::option::Option::None, #e_old),
                    #span
                ),
            ],
            tail: ::core::option::Option::Some(::std::boxed::Box::new(#e_ok)),
        }),
        #span
    ))
}

fn opt_scalar(s: Option<Scalar>) -> TokenStream {
    match s {
        Some(s) => {
            let s = scalar_tokens(s);
            quote!(::core::option::Option::Some(#s))
        }
        None => quote!(::core::option::Option::None),
    }
}

// ------------------------------------------------------------- native body

const K: &str = "::amp_core::__private::kernel";

fn kpath(rest: &str) -> TokenStream {
    format!("{K}::{rest}").parse().expect("a path")
}

/// Where native code is generated: outside any loop of a work-item region
/// of the split form (see [`super::split`]), `break`, `continue` and
/// `return` leave the region's work-item loop instead.
#[derive(Clone, Copy, Default)]
pub(crate) struct Cx<'a> {
    pub(crate) exits: Option<&'a Exits>,
}

/// The code of `break`, `continue` and `return` in a work-item region.
pub(crate) struct Exits {
    pub(crate) brk: TokenStream,
    pub(crate) cont: TokenStream,
    pub(crate) ret: TokenStream,
}

pub(crate) fn native_block(cx: Cx<'_>, b: &Block) -> TokenStream {
    let stmts = b.stmts.iter().map(|s| native_stmt(cx, s));
    let tail = b.tail.as_ref().map(|t| native_expr(cx, t));
    quote! { #(#stmts)* #tail }
}

/// How the native form computes `op`: a function of
/// `amp_core::__private::kernel::ops` (wrapping, WGSL-safe arithmetic) or
/// Rust's own operator. Every operator has exactly one entry (no fallback).
fn native_op(op: BinOp) -> Result<&'static str, TokenStream> {
    Ok(match op {
        BinOp::Add => "ops::add",
        BinOp::Sub => "ops::sub",
        BinOp::Mul => "ops::mul",
        BinOp::Div => "ops::div",
        BinOp::Rem => "ops::rem",
        BinOp::Shl => "ops::shl",
        BinOp::Shr => "ops::shr",
        BinOp::BitAnd => return Err(quote!(&)),
        BinOp::BitOr => return Err(quote!(|)),
        BinOp::BitXor => return Err(quote!(^)),
        BinOp::Eq => return Err(quote!(==)),
        BinOp::Ne => return Err(quote!(!=)),
        BinOp::Lt => return Err(quote!(<)),
        BinOp::Le => return Err(quote!(<=)),
        BinOp::Gt => return Err(quote!(>)),
        BinOp::Ge => return Err(quote!(>=)),
        BinOp::And => return Err(quote!(&&)),
        BinOp::Or => return Err(quote!(||)),
    })
}

fn native_binary(op: &BinOp, l: TokenStream, r: TokenStream, span: Span) -> TokenStream {
    let op = match native_op(*op) {
        Ok(f) => {
            let f = kpath(f);
            return quote_spanned!(span=> #f(#l, #r));
        }
        Err(token) => token,
    };
    // The operator carries the user's span (for type errors); the
    // parentheses do not, so that rustc's `unused_parens` lint does not
    // fire on the user's code where the operation is an argument or an
    // `if` condition.
    let op = quote_spanned!(span=> #op);
    quote!((#l #op #r))
}

/// The index argument of a container access: one expression, or the
/// components of `a[i][j]` as `[i, j]`.
fn native_index(cx: Cx<'_>, idx: &[Expr]) -> TokenStream {
    if idx.len() == 1 {
        native_expr(cx, &idx[0])
    } else {
        let parts = idx.iter().map(|e| native_expr(cx, e));
        quote!([#(#parts),*])
    }
}

/// The values of a reversed kernel range, `(start..end).step_by(step).rev()`
/// (`..=` if `inclusive`), through the runtime's helper, which also gives
/// no values for a step of 0, as on GPUs.
pub(crate) fn native_rev_range(
    start: TokenStream,
    end: TokenStream,
    inclusive: bool,
    step: Option<TokenStream>,
) -> TokenStream {
    let f = kpath("ops::rev_range");
    let cast = kpath("ops::cast");
    let step = step.map_or(quote!(1usize), |s| quote!(#cast::<usize, _>(#s)));
    quote!(#f(#start, #end, #inclusive, #step))
}

/// `&=`, `|=`, `^=` for the bitwise compound assignments: they cannot
/// overflow, and spelled out as `x = x | v` they would trip clippy's
/// `assign_op_pattern` on the user's code.
fn bit_assign(op: &BinOp) -> Option<TokenStream> {
    match op {
        BinOp::BitAnd => Some(quote!(&=)),
        BinOp::BitOr => Some(quote!(|=)),
        BinOp::BitXor => Some(quote!(^=)),
        _ => None,
    }
}

pub(crate) fn native_stmt(cx: Cx<'_>, s: &Stmt) -> TokenStream {
    let span = s.span;
    match &s.kind {
        StmtKind::Let {
            name,
            mutable,
            native_ty,
            init,
            ..
        } => {
            let m = if *mutable { quote!(mut) } else { quote!() };
            let ty = native_ty.as_ref().map(|t| quote!(: #t));
            match init {
                // A call passing `&mut` arguments may have a `&mut` result:
                // bound as a value (its result never dereferenced), it is
                // refused in the user's terms.
                Some(
                    e @ Expr {
                        kind: ExprKind::CallFn(_, args),
                        ..
                    },
                ) if args.iter().any(|a| matches!(a.kind, ExprKind::AddrOf(_))) => {
                    let e = native_expr(cx, e);
                    let f = kpath("value");
                    quote_spanned!(span=> let #m #name #ty = #f(#e);)
                }
                Some(e) => {
                    let e = native_expr(cx, e);
                    quote_spanned!(span=> let #m #name #ty = #e;)
                }
                None => quote_spanned!(span=> let #m #name #ty;),
            }
        }
        StmtKind::Assign(place, op, e) => {
            let value = native_expr(cx, e);
            match place {
                Place::Field(..) => native_field_assign(cx, place, *op, value, span),
                Place::Local(id, name) => {
                    let name = native_local(*id, name);
                    match op {
                        None => quote_spanned!(span=> #name = #value;),
                        Some(op) if bit_assign(op).is_some() => {
                            let assign = bit_assign(op);
                            quote_spanned!(span=> #name #assign #value;)
                        }
                        // The value first (it may change the local, as
                        // in `v -= { v += 1; v }`), then the local.
                        Some(op) => {
                            let v = native_binary(op, name.clone(), quote!(__amp_v), span);
                            quote_spanned!(span=> { let __amp_v = #value; #name = #v; })
                        }
                    }
                }
                // As Rust does for primitives: the value first, then the
                // place, whose index is evaluated once.
                Place::ArrayElement(_, name, idx) => {
                    let idx = idx.iter().map(|e| native_expr(cx, e)).collect::<Vec<_>>();
                    let f = kpath("ops::cast");
                    let keys: Vec<_> = (0..idx.len())
                        .map(|k| format_ident!("__amp_k{}", k))
                        .collect();
                    let target = quote!(#name #([#keys])*);
                    let assign = match op {
                        None => quote_spanned!(span=> #target = __amp_v;),
                        Some(op) if bit_assign(op).is_some() => {
                            let assign = bit_assign(op);
                            quote_spanned!(span=> #target #assign __amp_v;)
                        }
                        Some(op) => {
                            let v = native_binary(op, target.clone(), quote!(__amp_v), span);
                            quote_spanned!(span=> #target = #v;)
                        }
                    };
                    quote_spanned!(span=> {
                        let __amp_v = #value;
                        #(let #keys = #f::<usize, _>(#idx);)*
                        #assign
                    })
                }
                Place::Element(_, name, idx) | Place::TileElement(_, name, idx) => {
                    let index = native_index(cx, idx);
                    let store = kpath("Store::store");
                    let v = match op {
                        None => quote!(__amp_v),
                        Some(op) => {
                            native_binary(op, quote!(#name.load(__amp_i)), quote!(__amp_v), span)
                        }
                    };
                    quote_spanned!(span=> {
                        let __amp_v = #value;
                        let __amp_i = #index;
                        #store(#name, __amp_i, #v);
                    })
                }
            }
        }
        // A call as written (a unit call bound to `_` is clippy's
        // `let_unit_value`); other values dropped through `_`.
        StmtKind::Expr(
            e @ Expr {
                kind: ExprKind::CallFn(..),
                ..
            },
        ) => {
            let e = native_expr(cx, e);
            quote_spanned!(span=> #e;)
        }
        StmtKind::Expr(e) => {
            let e = native_expr(cx, e);
            quote_spanned!(span=> let _ = #e;)
        }
        StmtKind::If(c, a, b) => {
            let c = native_expr(cx, c);
            let a = native_block(cx, a);
            match b {
                Some(b) => {
                    let b = native_block(cx, b);
                    quote_spanned!(span=> if #c { #a } else { #b })
                }
                None => quote_spanned!(span=> if #c { #a }),
            }
        }
        StmtKind::While(c, body) => {
            let c = native_expr(cx, c);
            let body = native_block(Cx::default(), body);
            // Every iteration polls for cancellation (a thread-local counter
            // decrement; see `amp_core`'s `kernel::cancel`).
            let poll = kpath("poll");
            quote_spanned!(span=> while #c { #poll(); #body })
        }
        StmtKind::Loop(body) => {
            let body = native_block(Cx::default(), body);
            let poll = kpath("poll");
            quote_spanned!(span=> loop { #poll(); #body })
        }
        StmtKind::For {
            name,
            start,
            end,
            inclusive,
            step,
            body,
            reverse,
            ..
        } => {
            // A loop over constant bounds without loops inside runs a
            // bounded number of times: it needs no cancellation poll (the
            // launch polls between work items or tiles).
            let bounded = is_constant(start)
                && is_constant(end)
                && step.as_ref().is_none_or(is_constant)
                && !body.stmts.iter().any(|s| {
                    matches!(
                        s.kind,
                        StmtKind::While(..) | StmtKind::Loop(_) | StmtKind::For { .. }
                    )
                });
            let start = native_expr(cx, start);
            let end = native_expr(cx, end);
            let body = native_block(Cx::default(), body);
            let poll = kpath("poll");
            let body = if bounded {
                body
            } else {
                quote!(#poll(); #body)
            };
            if *reverse {
                let iter = native_rev_range(
                    start,
                    end,
                    *inclusive,
                    step.as_ref().map(|s| native_expr(cx, s)),
                );
                return quote_spanned!(span=> for #name in #iter { #body });
            }
            let range = if *inclusive {
                quote!((#start..=#end))
            } else {
                quote!((#start..#end))
            };
            match step {
                Some(s) => {
                    // A step of 0 skips the loop, as on GPUs (Rust would
                    // panic); the range is evaluated before the step, as in
                    // Rust.
                    let s = native_expr(cx, s);
                    let f = kpath("ops::cast");
                    quote_spanned!(span=> for #name in {
                        let __amp_range = #range;
                        let __amp_step = #f::<usize, _>(#s);
                        __amp_range
                            .step_by(__amp_step.max(1))
                            .take(if __amp_step == 0 { 0 } else { usize::MAX })
                    } { #body })
                }
                None => quote_spanned!(span=> for #name in #range { #body }),
            }
        }
        StmtKind::Break => match cx.exits {
            Some(exits) => exits.brk.clone(),
            None => quote_spanned!(span=> break;),
        },
        StmtKind::Continue => match cx.exits {
            Some(exits) => exits.cont.clone(),
            None => quote_spanned!(span=> continue;),
        },
        StmtKind::NativeCheck(tokens) => tokens.clone(),
        StmtKind::Barrier(_, _) => {
            // Every form waits on the tile's synchronization on the CPU.
            quote_spanned!(span=> __amp_tiled.barrier.__amp_kernel_barrier();)
        }
        StmtKind::TileStatic {
            local,
            name,
            elem,
            dims,
            ..
        } => {
            let arr = format_ident!("__amp_tile_static_{}", local);
            let d = dims.len();
            let f = kpath("ops::cast");
            if let Some(key) = FN_TILE_KEY.with(|k| k.borrow().clone()) {
                // In a `#[kernel]` function: the tile's memory for this
                // declaration of this instance, shared by the tile.
                let mem = format_ident!("__amp_tile_memory_{}", local);
                return quote_spanned! {span=>
                    let #mem = __amp_tiled.barrier.__amp_function_tile_memory(
                        #key,
                        #local,
                        [#(#f::<usize, _>(#dims)),*].iter().product::<usize>()
                            * ::core::mem::size_of::<#elem>(),
                    );
                    let (#arr, _) = #mem.array::<#elem, #d>(
                        0,
                        [#(#f::<usize, _>(#dims)),*],
                    );
                    let #name = &#arr;
                };
            }
            quote_spanned! {span=>
                let (#arr, _amp_off) = __amp_tile_mem.array::<#elem, #d>(
                    _amp_off,
                    [#(#f::<usize, _>(#dims)),*],
                );
                let #name = &#arr;
            }
        }
        StmtKind::Return(None) => match cx.exits {
            Some(exits) => exits.ret.clone(),
            None => quote_spanned!(span=> return;),
        },
        StmtKind::Return(Some(e)) => {
            let e = native_expr(cx, e);
            quote_spanned!(span=> return #e;)
        }
    }
}

pub(crate) fn is_constant(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Lit(..) | ExprKind::Const(_))
}

pub(crate) fn native_expr(cx: Cx<'_>, e: &Expr) -> TokenStream {
    let span = e.span;
    match &e.kind {
        ExprKind::Lit(_, Some(original)) => quote!(#original),
        ExprKind::Lit(l, None) => match l {
            Lit::Int(v, s) => {
                let lit = match s {
                    Some(s) => proc_macro2::Literal::u128_unsuffixed(*v).to_string() + s.rust(),
                    None => proc_macro2::Literal::u128_unsuffixed(*v).to_string(),
                };
                let mut tok: proc_macro2::Literal = lit.parse().expect("a literal");
                tok.set_span(span);
                quote!(#tok)
            }
            Lit::Float(v, s) => {
                let mut text = format!("{v:?}");
                if !text.contains('.')
                    && !text.contains('e')
                    && !text.contains("inf")
                    && !text.contains("NaN")
                {
                    text.push_str(".0");
                }
                if let Some(s) = s {
                    text.push_str(s.rust());
                }
                let mut tok: proc_macro2::Literal = text.parse().expect("a literal");
                tok.set_span(span);
                quote!(#tok)
            }
            Lit::Bool(b) => quote_spanned!(span=> #b),
        },
        ExprKind::Local(id, name) => native_local(*id, name),
        ExprKind::Capture(_, name) | ExprKind::KernelIndex(name) => {
            quote!(#name)
        }
        ExprKind::AddrOf(place) => match &**place {
            Place::ArrayElement(_, name, idx) => {
                let idx = idx.iter().map(|e| native_expr(cx, e)).collect::<Vec<_>>();
                let f = kpath("ops::cast");
                quote_spanned!(span=> &mut #name #([#f::<usize, _>(#idx)])*)
            }
            Place::Local(id, name) => {
                let local = native_local(*id, name);
                quote_spanned!(span=> &mut #local)
            }
            _ => quote_spanned!(span=> ::core::compile_error!("a `&mut` argument is a local")),
        },
        // A `&TiledIndex` (or a reference to one: coerced at the call).
        ExprKind::TiledArg(name) => quote!(&#name),
        // The CPU function returns the reference itself.
        ExprKind::RefResult(_, name) => quote_spanned!(span=> #name),
        // The position of the argument the returned reference points to
        // (the GPU function returns it; here the addresses tell).
        ExprKind::RefCall(call) => {
            let ExprKind::CallFn(_, args) = &call.kind else {
                return quote_spanned!(span=> ::core::compile_error!("a call with a `&mut` result"));
            };
            let tests = args.iter().enumerate().filter_map(|(k, a)| match &a.kind {
                ExprKind::AddrOf(place) => match &**place {
                    Place::Local(id, name) => {
                        let local = native_local(*id, name);
                        let k = k as u32;
                        Some(quote_spanned!(span=> if ::core::ptr::eq(__amp_p, &raw const #local) { #k } else))
                    }
                    _ => None,
                },
                _ => None,
            });
            let call = native_expr(cx, call);
            quote_spanned!(span=> {
                let __amp_p: *const _ = #call;
                #(#tests)* { ::core::primitive::u32::MAX }
            })
        }
        ExprKind::Const(path) => quote_spanned!(span=> #path),
        ExprKind::Binary(op, l, r) => {
            native_binary(op, native_expr(cx, l), native_expr(cx, r), span)
        }
        ExprKind::Unary(op, x) => {
            let x = native_expr(cx, x);
            if *op == UnOp::Neg {
                let f = kpath("ops::neg");
                quote_spanned!(span=> #f(#x))
            } else {
                // Parentheses and braces the user did not write get the
                // macro's span, so that `unused_parens`/`unused_braces` do
                // not fire on the user's code (see `native_binary`).
                let not = quote_spanned!(span=> !#x);
                quote!((#not))
            }
        }
        ExprKind::Cast(x, s) => {
            let x = native_expr(cx, x);
            let s = format_ident!("{}", s.rust());
            let f = kpath("ops::cast");
            quote_spanned!(span=> #f::<#s, _>(#x))
        }
        // A row: an array built element by element (the prefix evaluated
        // once).
        ExprKind::TileLoad(_, name, idx, _, rest) if !rest.is_empty() => {
            let prefix: Vec<proc_macro2::Ident> = (0..idx.len())
                .map(|k| format_ident!("__amp_p{}", k))
                .collect();
            let values = idx.iter().map(|e| native_expr(cx, e));
            let f = kpath("ops::cast");
            fn row(
                name: &proc_macro2::Ident,
                index: Vec<TokenStream>,
                rest: &[syn::Expr],
                depth: usize,
            ) -> TokenStream {
                match rest.split_first() {
                    None => quote!(#name.load([#(#index),*])),
                    Some((len, rest)) => {
                        let j = format_ident!("__amp_j{}", depth);
                        let mut index = index;
                        index.push(quote!(#j as i32));
                        let inner = row(name, index, rest, depth + 1);
                        quote!(::core::array::from_fn::<_, { (#len) as usize }, _>(|#j| #inner))
                    }
                }
            }
            let start: Vec<TokenStream> = prefix.iter().map(|p| quote!(#f::<i32, _>(#p))).collect();
            let body = row(name, start, rest, 0);
            quote_spanned!(span=> { #(let #prefix = #values;)* #body })
        }
        ExprKind::TileLoad(_, name, idx, _, _) => {
            let index = native_index(cx, idx);
            quote_spanned!(span=> #name.load(#index))
        }
        ExprKind::Tiled(field, param) => {
            let field = format_ident!(
                "{}",
                match *field {
                    TiledField::Global => "global",
                    TiledField::Local => "local",
                    TiledField::Tile => "tile",
                    TiledField::TileOrigin => "tile_origin",
                    TiledField::TileExtent => "tile_extent",
                }
            );
            quote_spanned!(span=> #param.#field)
        }
        ExprKind::Extent(_, name) => quote_spanned!(span=> #name.extent()),
        ExprKind::Load(_, name, idx) => {
            let index = native_index(cx, idx);
            // Through a trait: the capture may also be an `Index`/`Extent`
            // value (`e[1]`).
            // The path carries the user's span, so that type errors about
            // the element (`-a[i]` of a `u32`) point at the user's code.
            let load: TokenStream = kpath("Load::load_at")
                .into_iter()
                .map(|mut t| {
                    t.set_span(span);
                    t
                })
                .collect();
            quote_spanned!(span=> #load(#name, #index))
        }
        ExprKind::Element(x, i) => {
            let x = native_expr(cx, x);
            let i = native_expr(cx, i);
            let f = kpath("ops::cast");
            quote_spanned!(span=> #x[#f::<usize, _>(#i)])
        }
        ExprKind::MakeIndex(parts, extent) => {
            let parts = parts.iter().map(|e| native_expr(cx, e));
            if *extent {
                quote_spanned!(span=> ::amp_core::Extent::new([#(#parts),*]))
            } else {
                quote_spanned!(span=> ::amp_core::Index::new([#(#parts),*]))
            }
        }
        ExprKind::Array(items) => {
            let items = items.iter().map(|e| native_expr(cx, e));
            quote_spanned!(span=> [#(#items),*])
        }
        ExprKind::Repeat(x, len) => {
            let x = native_expr(cx, x);
            quote_spanned!(span=> [#x; #len])
        }
        // Subgroup functions: the public ones (a subgroup of one).
        ExprKind::Call(_, method, args) if method.to_string().starts_with("subgroup_") => {
            let args = args.iter().map(|e| native_expr(cx, e));
            quote_spanned!(span=> ::amp_core::#method(#(#args),*))
        }
        ExprKind::Call(_, method, args) if method == "contains" && args.len() == 2 => {
            let (e, i) = (native_expr(cx, &args[0]), native_expr(cx, &args[1]));
            let shape = kpath("Shape");
            quote_spanned!(span=> #shape::contains(#e, &#i))
        }
        ExprKind::Call(_, method, args) => {
            let trait_path = match method.to_string().as_str() {
                "size" => kpath("Shape"),
                "linearize" | "delinearize" => kpath("Reshape"),
                "bitcast_as" => kpath("BitcastAs"),
                "reinterpret_load" => kpath("ReinterpretAs"),
                "reinterpret_store" => kpath("ReinterpretStore"),
                "abs" => kpath("Abs"),
                "min" | "max" | "clamp" => kpath("Num"),
                "count_ones" | "leading_zeros" | "trailing_zeros" | "reverse_bits"
                | "count_zeros" | "leading_ones" | "trailing_ones" | "wrapping_add"
                | "wrapping_sub" | "wrapping_mul" | "wrapping_neg" | "rotate_left"
                | "rotate_right" | "pow" | "abs_diff" => kpath("Bits"),
                "rem_euclid" | "div_euclid" => kpath("Euclid"),
                "sqrt" | "floor" | "ceil" | "exp" | "exp2" | "ln" | "log2" | "cos" | "mul_add"
                | "recip" => kpath("Componentwise"),
                "dot" | "length" | "distance" | "normalize" => kpath("Geometric"),
                "cross" => kpath("Cross"),
                "from_bits" => kpath("FromBits"),
                "is_power_of_two" => kpath("PowerOfTwo"),
                "to_bits" => kpath("ToBits"),
                "from_f32" => kpath("HalfFromF32"),
                "from_f64" => kpath("HalfFromF64"),
                "to_f32" | "to_f64" => kpath("HalfTo"),
                _ => kpath("Float"),
            };
            let args = args.iter().map(|e| native_expr(cx, e));
            quote_spanned!(span=> #trait_path::#method(#(#args),*))
        }
        ExprKind::CallFn(path, args) => {
            let args = args.iter().map(|e| native_expr(cx, e));
            quote_spanned!(span=> #path(#(#args),*))
        }
        ExprKind::Field(x, m) => {
            let x = native_expr(cx, x);
            quote_spanned!(span=> #x.#m)
        }
        ExprKind::Swizzle(x, m) => {
            let x = native_expr(cx, x);
            quote_spanned!(span=> #x.#m())
        }
        ExprKind::MakeVector(_, _, path, args) => {
            let args = args.iter().map(|e| native_expr(cx, e));
            quote_spanned!(span=> #path(#(#args),*))
        }
        ExprKind::MakeStruct(path, fields) => {
            let fields = fields.iter().map(|(n, e)| {
                let e = native_expr(cx, e);
                quote!(#n: #e)
            });
            quote_spanned!(span=> #path { #(#fields),* })
        }
        ExprKind::MakeTuple(items) => {
            let items = items.iter().map(|e| native_expr(cx, e));
            quote_spanned!(span=> (#(#items,)*))
        }
        ExprKind::If(c, a, b) => {
            let c = native_expr(cx, c);
            let (a, b) = (native_block(cx, a), native_block(cx, b));
            let if_else = quote_spanned!(span=> if #c { #a } else { #b });
            quote!((#if_else))
        }
        ExprKind::Block(b) => {
            let b = native_block(cx, b);
            quote!({ #b })
        }
        ExprKind::Atomic(a) => {
            let (name, idx) = match &a.target {
                Place::Element(_, name, idx) | Place::TileElement(_, name, idx) => (name, idx),
                _ => unreachable!("the parser accepts only elements of memory"),
            };
            let index = native_index(cx, idx);
            let access = kpath("AtomicAccess::atomic");
            let path = &a.path;
            let expected = a.expected.as_ref().map(|(_, n, ..)| quote!(&mut #n,));
            let args = a.args.iter().map(|e| native_expr(cx, e));
            quote_spanned!(span=> #path(#access(#name, #index), #expected #(#args),*))
        }
    }
}

/// A call of the uniformity summary of the `#[kernel]` function at `path`
/// (a `const fn` in its companion module, without generic arguments: the
/// summary is the same for every instance).
fn summary_path(path: &syn::ExprPath) -> TokenStream {
    let mut path = path.path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.arguments = syn::PathArguments::None;
        let span = last.ident.span();
        path.segments.push(syn::PathSegment::from(format_ident!(
            "__amp_varies",
            span = span
        )));
    }
    quote!(#path())
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

/// The name of the IR builder inside a `#[kernel]` function's companion
/// module.
const BUILDER: &str = "__amp_kernel";

/// The IR builder of the `#[kernel]` function at `path`: the function's
/// companion module (same path, type namespace) and its builder, keeping
/// only const generic arguments (the builder is generic over those; types
/// are inferred). A `use` of the function imports the module with it.
pub(crate) fn builder_path(path: &syn::ExprPath) -> TokenStream {
    let mut path = path.path.clone();
    let Some(last) = path.segments.last_mut() else {
        return quote!(#path);
    };
    let span = last.ident.span();
    let mut builder = syn::PathSegment::from(format_ident!("{}", BUILDER, span = span));
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
    last.arguments = syn::PathArguments::None;
    path.segments.push(builder);
    quote!(#path)
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
        let refs: Vec<u32> = f
            .params
            .iter()
            .filter(|(_, _, t)| matches!(t, Ty::Ref(_)))
            .map(|(id, _, _)| *id)
            .collect();
        REF_PARAMS.with(|r| *r.borrow_mut() = refs);
        // The instance's name keys its `tile_static` memory: the function's
        // marker type (in its companion module) with its generic arguments.
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
        let key = f.tiled.is_some().then(
            || quote!(::core::any::type_name::<(#fn_ident::__AmpTileKey, #(#generic_args,)*)>()),
        );
        FN_TILE_KEY.with(|k| *k.borrow_mut() = key);
        let native = native_block(Cx::default(), &f.body);
        // A view parameter read or written through `reinterpret_as`: its
        // element type is made of 4-byte words (checked on that type, as
        // `sites` does for a kernel's captures).
        let view_elems: Vec<&syn::Type> = f
            .bindings
            .iter()
            .filter_map(|(_, b)| match b {
                FnBinding::View { elem, .. } => Some(elem),
                FnBinding::Tiled(_) => None,
            })
            .collect();
        let word_checks = super::sites::sites(&f.body)
            .reinterprets
            .into_iter()
            .filter_map(|(c, span)| {
                let k = c.checked_sub(super::parse::VIEW_PARAM_BASE)?;
                let elem = view_elems.get(k as usize)?;
                Some(quote_spanned! {span=>
                    ::amp_core::__private::kernel::assert_words::<#elem>();
                })
            });
        let uniform_calls = uniform_call_checks(&f.body, f.tiled.is_some());
        let native = quote!(#(#word_checks)* #uniform_calls #native);
        REF_PARAMS.with(|r| r.borrow_mut().clear());
        FN_TILE_KEY.with(|k| *k.borrow_mut() = None);
        native
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
    let params = f.params.iter().map(|(local, pname, ty)| {
        let local = local_id(*local);
        let pname = pname.to_string();
        let ty = ty_tokens(ty);
        quote!((#local, #pname, #ty))
    });
    let ret = match &f.ret {
        Some(t) => {
            let t = ty_tokens(t);
            quote!(::core::option::Option::Some(#t))
        }
        None => quote!(::core::option::Option::None),
    };
    let bindings = f.bindings.iter().map(|(pos, b)| {
        let binding = match b {
            FnBinding::View {
                ty, rank, writable, ..
            } => {
                let ty = ty_tokens(ty);
                quote!(__ir::ParamBinding::View { elem: #ty, rank: #rank, writable: #writable })
            }
            FnBinding::Tiled(n) => quote!(__ir::ParamBinding::Tiled(#n)),
        };
        deepen_paths(quote!((#pos, #binding)))
    });
    // The native function takes the CPU form of each view: writable ones
    // of a writable access (a read-only one is refused in the user's terms),
    // read-only ones of any access (a writable view may be passed
    // where a read-only one is taken, as in C++ AMP).
    let mut sig = sig.clone();
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
    let tiled_alias = f.tiled.as_ref().filter(|_| with_native).map(|t| {
        quote! {
            #[allow(unused_variables)]
            let __amp_tiled = #t;
        }
    });
    // The uniformity summary: its own varying operations, and those of the
    // functions it calls (not itself: recursion is refused at launch).
    let sites = super::sites::sites(&f.body);
    let own = sites.varies;
    let callees = sites
        .calls
        .iter()
        .filter(|p| !p.path.is_ident(fn_name))
        .map(summary_path);
    let varies = deepen_paths(quote!(#own #(|| #callees)*));
    // The builder lives one module down: `super::` and `self::` paths of
    // the function's body and signature types must reach as far up.
    let body = deepen_paths(ir_block(&f.body));
    let params: Vec<TokenStream> = params.map(deepen_paths).collect();
    let ret = deepen_paths(ret);
    let span = span_tokens(sig.ident.span());
    let doc = format!("The kernel IR of [`{name}`] (generated by `#[kernel]`).");
    let fallback = (!with_native).then(|| quote!(#[allow(unused_variables)]));
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

            #[doc = #doc]
            pub fn #builder<#(#const_params),*>() -> ::amp_core::__private::kernel::ir::Function {
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
            }
        }
    }
}

/// Rewrites the relative paths of `tokens` for code moved one module down:
/// a path that starts with `super` gets one more, one that starts with
/// `self::` starts with `super::` instead.
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

/// `base.f.g = value` (or `op=`): direct on locals and local arrays; a
/// load-modify-store on a container element.
fn native_field_assign(
    cx: Cx<'_>,
    place: &Place,
    op: Option<BinOp>,
    value: TokenStream,
    span: Span,
) -> TokenStream {
    let mut fields = Vec::new();
    let mut root = place;
    while let Place::Field(base, m) = root {
        fields.push(m.clone());
        root = base;
    }
    fields.reverse();
    // The value is evaluated first, as Rust does (it may change the place:
    // `p.x -= { p.x += 1.0; p.x }`), then the place.
    let assign = |target: TokenStream| match op {
        None => quote_spanned!(span=> #target = __amp_v;),
        Some(op) => {
            let v = native_binary(&op, target.clone(), quote!(__amp_v), span);
            quote_spanned!(span=> #target = #v;)
        }
    };
    let assigned = match root {
        Place::Local(id, name) => {
            let name = native_local(*id, name);
            assign(quote!(#name #(.#fields)*))
        }
        Place::ArrayElement(_, name, idx) => {
            let idx = idx.iter().map(|e| native_expr(cx, e)).collect::<Vec<_>>();
            let f = kpath("ops::cast");
            assign(quote!(#name #([#f::<usize, _>(#idx)])* #(.#fields)*))
        }
        Place::Element(_, name, idx) => {
            let index = native_index(cx, idx);
            let store = kpath("Store::store");
            let body = assign(quote!(__amp_e #(.#fields)*));
            quote_spanned! {span=> {
                let __amp_i = #index;
                let mut __amp_e = #name.load(__amp_i);
                #body
                #store(#name, __amp_i, __amp_e);
            }}
        }
        Place::Field(..) => unreachable!("the root of a field chain is not a field"),
        Place::TileElement(_, name, idx) => {
            let index = native_index(cx, idx);
            let store = kpath("Store::store");
            let body = assign(quote!(__amp_e #(.#fields)*));
            quote_spanned! {span=> {
                let __amp_i = #index;
                let mut __amp_e = #name.load(__amp_i);
                #body
                #store(#name, __amp_i, __amp_e);
            }}
        }
    };
    quote_spanned!(span=> { let __amp_v = #value; #assigned })
}

fn member_tokens(m: &syn::Member) -> TokenStream {
    match m {
        syn::Member::Named(n) => {
            let n = n.to_string();
            quote!(__ir::Member::Named(#n))
        }
        syn::Member::Unnamed(i) => {
            let i = i.index;
            quote!(__ir::Member::Index(#i))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [BinOp; 18] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::And,
        BinOp::Or,
    ];

    /// Each operator has a native form of its own: an operator the native
    /// form did not know used to become `||`.
    #[test]
    fn every_operator_has_its_own_native_form() {
        let native: Vec<String> = ALL
            .iter()
            .map(|op| match native_op(*op) {
                Ok(f) => f.to_string(),
                Err(token) => token.to_string(),
            })
            .collect();
        let distinct: std::collections::HashSet<&String> = native.iter().collect();
        assert_eq!(distinct.len(), ALL.len(), "{native:?}");
        let or = native.iter().filter(|n| *n == "||").count();
        assert_eq!(or, 1, "only `Or` is `||`: {native:?}");
        let variants: std::collections::HashSet<String> =
            ALL.iter().map(|op| variant(op).to_string()).collect();
        assert_eq!(variants.len(), ALL.len());
        let text = native_binary(&BinOp::Ge, quote!(a), quote!(b), Span::call_site()).to_string();
        assert_eq!(text, "(a >= b)");
    }
}
