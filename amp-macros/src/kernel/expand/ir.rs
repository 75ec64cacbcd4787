//! The IR builder: the tokens of a closure that constructs `amp_core`'s
//! kernel IR from the kernel AST (statements, expressions, places, atomic
//! calls, types and literals).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::super::ast::*;
use super::function::builder_path;
use super::{span_tokens, variant};

fn scalar_tokens(s: Scalar) -> TokenStream {
    let v = variant(s);
    quote!(__ir::Scalar::#v)
}

pub(super) fn ty_tokens(t: &Ty) -> TokenStream {
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

pub(super) fn ir_block(b: &Block) -> TokenStream {
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

pub(super) fn local_id(id: u32) -> TokenStream {
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
            let l = ir_lit(l);
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

fn ir_lit(l: &Lit) -> TokenStream {
    match l {
        Lit::Int(v, s) => {
            let s = opt_scalar(*s);
            quote!(__ir::Lit::Int(#v, #s))
        }
        Lit::Float(v, s) => {
            let s = opt_scalar(*s);
            quote!(__ir::Lit::Float(#v, #s))
        }
        Lit::Bool(b) => quote!(__ir::Lit::Bool(#b)),
    }
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
