//! The native body: the kernel AST as Rust for the CPU accelerator
//! (statements, expressions, places and operators), with container
//! accesses, integer arithmetic and math calls routed through
//! `amp_core::__private::kernel`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use super::super::ast::*;
use super::super::plain::Use;

thread_local! {
    /// The locals of the `&mut` parameters of the `#[kernel]` function
    /// being expanded: its native body reads and writes them as `*name`.
    pub(super) static REF_PARAMS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
    /// In the native body of a `#[kernel]` function that takes the tiled
    /// index: the expression naming the function's instance, which keys
    /// its `tile_static` memory in the tile.
    pub(super) static FN_TILE_KEY: std::cell::RefCell<Option<TokenStream>> = const { std::cell::RefCell::new(None) };
}

/// `name`, or `(*name)` for a `&mut` parameter.
fn native_local(id: u32, name: &proc_macro2::Ident) -> TokenStream {
    if REF_PARAMS.with(|r| r.borrow().contains(&id)) {
        quote!((*#name))
    } else {
        quote!(#name)
    }
}

const K: &str = "::amp_core::__private::kernel";

fn kpath(rest: &str) -> TokenStream {
    format!("{K}::{rest}").parse().expect("a path")
}

/// Where native code is generated: outside any loop of a work-item region
/// of the split form (see [`super::super::split`]), `break`, `continue` and
/// `return` leave the region's work-item loop instead.
#[derive(Clone, Copy, Default)]
pub(crate) struct Cx<'a> {
    pub(crate) exits: Option<&'a Exits>,
    /// In a kernel's plain form: each capture's use (see
    /// [`super::super::plain`]); its plain view is `__amp_plain_<n>`.
    pub(crate) plain: Option<&'a [Use]>,
}

/// The plain form's use of capture `c`, if it has a plain view.
fn plain_use(cx: Cx<'_>, c: u32) -> Option<Use> {
    match cx.plain?.get(c as usize)? {
        u @ (Use::Own | Use::Read { own: true }) => Some(*u),
        _ => None,
    }
}

/// The name of capture `c`'s plain view.
pub(crate) fn plain_name(c: u32) -> proc_macro2::Ident {
    format_ident!("__amp_plain_{}", c)
}

/// Whether `idx` is the kernel's own index.
fn is_own(idx: &[Expr]) -> bool {
    matches!(
        idx,
        [Expr {
            kind: ExprKind::KernelIndex(_),
            ..
        }]
    )
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
pub(super) fn native_op(op: BinOp) -> Result<&'static str, TokenStream> {
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

pub(super) fn native_binary(op: &BinOp, l: TokenStream, r: TokenStream, span: Span) -> TokenStream {
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
        } => native_let(cx, name, *mutable, native_ty.as_ref(), init.as_ref(), span),
        StmtKind::Assign(place, op, e) => native_assign(cx, place, op.as_ref(), e, span),
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
            let bounded = is_bounded_loop(start, end, step.as_ref(), body);
            let start = native_expr(cx, start);
            let end = native_expr(cx, end);
            let body = native_block(Cx::default(), body);
            let poll = kpath("poll");
            let body = if bounded {
                body
            } else {
                quote!(#poll(); #body)
            };
            let iter = if *reverse {
                native_rev_range(
                    start,
                    end,
                    *inclusive,
                    step.as_ref().map(|s| native_expr(cx, s)),
                )
            } else {
                native_range(cx, start, end, *inclusive, step.as_ref(), span)
            };
            quote_spanned!(span=> for #name in #iter { #body })
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
        } => native_tile_static(*local, name, elem, dims, span),
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

/// `let [mut] name[: ty] [= init];`.
fn native_let(
    cx: Cx<'_>,
    name: &proc_macro2::Ident,
    mutable: bool,
    native_ty: Option<&syn::Type>,
    init: Option<&Expr>,
    span: Span,
) -> TokenStream {
    let m = if mutable { quote!(mut) } else { quote!() };
    let ty = native_ty.map(|t| quote!(: #t));
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

/// `place = e` or `place op= e`.
fn native_assign(
    cx: Cx<'_>,
    place: &Place,
    op: Option<&BinOp>,
    e: &Expr,
    span: Span,
) -> TokenStream {
    let value = native_expr(cx, e);
    match place {
        Place::Field(..) => native_field_assign(cx, place, op.copied(), value, span),
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
        Place::Element(c, name, idx) if plain_use(cx, *c) == Some(Use::Own) && is_own(idx) => {
            let plain = proc_macro2::Ident::new(&plain_name(*c).to_string(), name.span());
            let store = kpath("PlainOwn::store_own");
            let load = kpath("PlainOwn::load_own");
            let v = match op {
                None => quote!(__amp_v),
                Some(op) => {
                    native_binary(op, quote!(#load(#plain, &__amp_own)), quote!(__amp_v), span)
                }
            };
            quote_spanned!(span=> {
                let __amp_v = #value;
                #store(#plain, &__amp_own, #v);
            })
        }
        Place::Element(_, name, idx) | Place::TileElement(_, name, idx) => {
            let index = native_index(cx, idx);
            let store = kpath("Store::store");
            let v = match op {
                None => quote!(__amp_v),
                Some(op) => native_binary(op, quote!(#name.load(__amp_i)), quote!(__amp_v), span),
            };
            quote_spanned!(span=> {
                let __amp_v = #value;
                let __amp_i = #index;
                #store(#name, __amp_i, #v);
            })
        }
    }
}

/// Whether a `for` loop needs no cancellation poll: a loop over constant
/// bounds without loops inside runs a bounded number of times (the launch
/// polls between work items or tiles).
fn is_bounded_loop(start: &Expr, end: &Expr, step: Option<&Expr>, body: &Block) -> bool {
    is_constant(start)
        && is_constant(end)
        && step.is_none_or(is_constant)
        && !body.stmts.iter().any(|s| {
            matches!(
                s.kind,
                StmtKind::While(..) | StmtKind::Loop(_) | StmtKind::For { .. }
            )
        })
}

/// The values of a forward kernel range, `start..end` (`..=` if
/// `inclusive`), stepped by `step` if any.
fn native_range(
    cx: Cx<'_>,
    start: TokenStream,
    end: TokenStream,
    inclusive: bool,
    step: Option<&Expr>,
    span: Span,
) -> TokenStream {
    let range = if inclusive {
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
            quote_spanned!(span=> {
                let __amp_range = #range;
                let __amp_step = #f::<usize, _>(#s);
                __amp_range
                    .step_by(__amp_step.max(1))
                    .take(if __amp_step == 0 { 0 } else { usize::MAX })
            })
        }
        None => range,
    }
}

/// A `tile_static!` array: the tile's memory for the declaration, shared by
/// the tile.
fn native_tile_static(
    local: u32,
    name: &proc_macro2::Ident,
    elem: &syn::Type,
    dims: &[syn::Expr],
    span: Span,
) -> TokenStream {
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

pub(crate) fn is_constant(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Lit(..) | ExprKind::Const(_))
}

pub(crate) fn native_expr(cx: Cx<'_>, e: &Expr) -> TokenStream {
    let span = e.span;
    match &e.kind {
        ExprKind::Lit(_, Some(original)) => quote!(#original),
        ExprKind::Lit(l, None) => native_lit(l, span),
        ExprKind::Local(id, name) => native_local(*id, name),
        ExprKind::Capture(_, name) | ExprKind::KernelIndex(name) => {
            quote!(#name)
        }
        ExprKind::AddrOf(place) => native_addr_of(cx, place, span),
        // A `&TiledIndex` (or a reference to one: coerced at the call).
        ExprKind::TiledArg(name) => quote!(&#name),
        // The CPU function returns the reference itself.
        ExprKind::RefResult(_, name) => quote_spanned!(span=> #name),
        ExprKind::RefCall(call) => native_ref_call(cx, call, span),
        ExprKind::Const(path) => quote_spanned!(span=> #path),
        ExprKind::Binary(op, l, r) => {
            native_binary(op, native_expr(cx, l), native_expr(cx, r), span)
        }
        // A negated literal as written (`-128i8`, `-2147483648`): Rust
        // takes the minimum of a signed type only with the `-` on the
        // literal itself.
        ExprKind::Unary(UnOp::Neg, x)
            if matches!(
                &x.kind,
                ExprKind::Lit(Lit::Int(..) | Lit::Float(..), Some(_))
            ) =>
        {
            let ExprKind::Lit(_, Some(lit)) = &x.kind else {
                unreachable!("matched above")
            };
            let neg = quote_spanned!(span=> -#lit);
            quote!((#neg))
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
        ExprKind::TileLoad(_, name, idx, _, rest) if !rest.is_empty() => {
            native_tile_row(cx, name, idx, rest, span)
        }
        ExprKind::TileLoad(_, name, idx, _, _) => {
            let index = native_index(cx, idx);
            quote_spanned!(span=> #name.load(#index))
        }
        ExprKind::Tiled(field, param) => native_tiled(*field, param, span),
        ExprKind::Extent(_, name) => quote_spanned!(span=> #name.extent()),
        ExprKind::Load(c, name, idx) => native_load(cx, *c, name, idx, span),
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
        ExprKind::Call(f, method, args) => native_call(cx, *f, method, args, span),
        // `value.m(args)` of a `#[kernel]` method: called as written
        // (Rust's auto-reference takes the receiver as `m` does); the
        // accelerators call `Type::__amp_m_recv(&mut value, args)`.
        ExprKind::CallFn(path, args)
            if let Some(method) = super::function::shim_call(path)
                && let Some((receiver, rest)) = args.split_first() =>
        {
            let receiver = match &receiver.kind {
                ExprKind::AddrOf(place) => native_receiver(cx, place, span),
                _ => native_expr(cx, receiver),
            };
            let rest = rest.iter().map(|e| native_expr(cx, e));
            quote_spanned!(span=> (#receiver).#method(#(#rest),*))
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
        ExprKind::Atomic(a) => native_atomic(cx, a, span),
    }
}

/// A literal the macro made (not written by the user): its Rust spelling,
/// with its suffix, at `span`.
fn native_lit(l: &Lit, span: Span) -> TokenStream {
    match l {
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
    }
}

/// `&mut place`: a `&mut` argument of a call (a local or a local array's
/// element).
/// The receiver of a method call: the place itself (Rust takes its
/// address as the method asks).
fn native_receiver(cx: Cx<'_>, place: &Place, span: Span) -> TokenStream {
    match place {
        Place::ArrayElement(_, name, idx) => {
            let idx = idx.iter().map(|e| native_expr(cx, e)).collect::<Vec<_>>();
            let f = kpath("ops::cast");
            quote_spanned!(span=> #name #([#f::<usize, _>(#idx)])*)
        }
        Place::Local(id, name) => native_local(*id, name),
        _ => quote_spanned!(span=> ::core::compile_error!("a method's receiver is a local")),
    }
}

fn native_addr_of(cx: Cx<'_>, place: &Place, span: Span) -> TokenStream {
    match place {
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
    }
}

/// The position of the argument the returned reference points to
/// (the GPU function returns it; here the addresses tell).
fn native_ref_call(cx: Cx<'_>, call: &Expr, span: Span) -> TokenStream {
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

/// A row of a `tile_static` array: an array built element by element (the
/// prefix evaluated once).
fn native_tile_row(
    cx: Cx<'_>,
    name: &proc_macro2::Ident,
    idx: &[Expr],
    rest: &[syn::Expr],
    span: Span,
) -> TokenStream {
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

/// A field of the tiled index (`t.local`).
fn native_tiled(field: TiledField, param: &proc_macro2::Ident, span: Span) -> TokenStream {
    let field = format_ident!(
        "{}",
        match field {
            TiledField::Global => "global",
            TiledField::Local => "local",
            TiledField::Tile => "tile",
            TiledField::TileOrigin => "tile_origin",
            TiledField::TileExtent => "tile_extent",
        }
    );
    quote_spanned!(span=> #param.#field)
}

/// A load of a container's element.
fn native_load(
    cx: Cx<'_>,
    c: u32,
    name: &proc_macro2::Ident,
    idx: &[Expr],
    span: Span,
) -> TokenStream {
    // In the plain form, own-index reads of a plain capture; every other
    // access is the atomic form's code, token for token, so that a mistake
    // in the kernel is reported once (rustc merges identical errors).
    if plain_use(cx, c).is_some() && is_own(idx) {
        let plain = proc_macro2::Ident::new(&plain_name(c).to_string(), name.span());
        let load: TokenStream = kpath("PlainOwn::load_own")
            .into_iter()
            .map(|mut t| {
                t.set_span(span);
                t
            })
            .collect();
        return quote_spanned!(span=> #load(#plain, &__amp_own));
    }
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

/// A built-in method or function call: dispatched on the IR's built-in
/// (the WGSL writer's), the Rust name kept for the call's spelling and span.
fn native_call(
    cx: Cx<'_>,
    f: Builtin,
    method: &proc_macro2::Ident,
    args: &[Expr],
    span: Span,
) -> TokenStream {
    let args_tokens = || args.iter().map(|e| native_expr(cx, e)).collect::<Vec<_>>();
    match f {
        // Subgroup functions: the public ones (a subgroup of one).
        Builtin::SubgroupAdd
        | Builtin::SubgroupMin
        | Builtin::SubgroupMax
        | Builtin::SubgroupBroadcast
        | Builtin::SubgroupBallot
        | Builtin::SubgroupSize
        | Builtin::SubgroupLane => {
            let args = args_tokens();
            return quote_spanned!(span=> ::amp_core::#method(#(#args),*));
        }
        // `Index::new(arr)` / `Extent::new(arr)` of a local array (the
        // parser names which).
        Builtin::IndexFromArray if args.len() == 1 => {
            let arr = native_expr(cx, &args[0]);
            return if method == "extent_from_array" {
                quote_spanned!(span=> ::amp_core::Extent::new(#arr))
            } else {
                quote_spanned!(span=> ::amp_core::Index::new(#arr))
            };
        }
        Builtin::Contains if args.len() == 2 => {
            let (e, i) = (native_expr(cx, &args[0]), native_expr(cx, &args[1]));
            let shape = kpath("Shape");
            return quote_spanned!(span=> #shape::contains(#e, &#i));
        }
        _ => {}
    }
    let trait_path = method_trait(f);
    let args = args_tokens();
    quote_spanned!(span=> #trait_path::#method(#(#args),*))
}

/// The runtime trait that gives the native form of built-in `f`.
fn method_trait(f: Builtin) -> TokenStream {
    use Builtin::*;
    match f {
        Size => kpath("Shape"),
        Linearize | Delinearize => kpath("Reshape"),
        Bitcast => kpath("BitcastAs"),
        ReinterpretLoad => kpath("ReinterpretAs"),
        ReinterpretStore => kpath("ReinterpretStore"),
        Abs => kpath("Abs"),
        Min | Max | Clamp => kpath("Num"),
        CountOnes | LeadingZeros | TrailingZeros | ReverseBits | CountZeros | LeadingOnes
        | TrailingOnes | RotateLeft | RotateRight | AbsDiff => kpath("Bits"),
        WrappingAdd | WrappingSub | WrappingMul | WrappingNeg | Pow => kpath("Wrapping"),
        RemEuclid | DivEuclid => kpath("Euclid"),
        Sqrt | Floor | Ceil | Exp | Exp2 | Ln | Log2 | Cos | MulAdd | Recip => {
            kpath("Componentwise")
        }
        Dot | Length | Distance | Normalize => kpath("Geometric"),
        Cross => kpath("Cross"),
        FromBits => kpath("FromBits"),
        IsPowerOfTwo => kpath("PowerOfTwo"),
        ToBits => kpath("ToBits"),
        HalfFromF32 => kpath("HalfFromF32"),
        HalfFromF64 => kpath("HalfFromF64"),
        HalfToF32 | HalfToF64 => kpath("HalfTo"),
        // The other float functions (`sin`, `powf`, `hypot`, ...); a
        // built-in the parser gives another Rust name than its own (a
        // uniform load, a select) never reaches the native form as a call.
        _ => kpath("Float"),
    }
}

/// An atomic call on an element of memory.
fn native_atomic(cx: Cx<'_>, a: &Atomic, span: Span) -> TokenStream {
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
