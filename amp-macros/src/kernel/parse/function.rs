//! `#[kernel]` functions: their signatures (type and const parameters,
//! value, `&mut`, view and tiled-index parameters, the result), their
//! bodies, and the arguments of calls to them. [`parse_function`] is the
//! parse stage of `#[kernel]`: it builds the `Function` that check
//! validates (as a kernel body) and expand turns into the native function
//! and its IR builder.

use proc_macro2::Ident;
use syn::spanned::Spanned;

use super::super::ast::*;
use super::super::refs;
use super::ty::ty_of;
use super::{Binding, Errors, Resolver, VIEW_PARAM_BASE, is_const_name, strip_parens};

/// The bounds a `#[kernel]` function's type parameter may have (one each).
const BOUNDS: &[&str] = &["Number", "Float", "Integer", "Element"];

/// Parses a `#[kernel]` function; `in_impl` if it is known to be an item
/// of an `impl` block (`#[kernel] impl`); a function with a `self`
/// receiver is one too.
pub(crate) fn parse_function(
    item: syn::ItemFn,
    in_impl: bool,
    errors: &mut Errors,
) -> Option<Function> {
    let sig = &item.sig;
    let receiver = sig.inputs.first().and_then(|a| match a {
        syn::FnArg::Receiver(r) if r.colon_token.is_none() => Some(match &r.reference {
            Some(_) if r.mutability.is_some() => Receiver::RefMut,
            Some(_) => Receiver::Ref,
            None => Receiver::Value,
        }),
        _ => None,
    });
    check_signature(sig, errors);
    // A `&mut` result (`-> &'a mut T`): the function tells its caller
    // which `&mut` parameter it is (see `refs::mark_ref_results`).
    let ref_result = match &sig.output {
        syn::ReturnType::Type(_, t) => match &**t {
            syn::Type::Reference(r) if r.mutability.is_some() => Some(r),
            _ => None,
        },
        syn::ReturnType::Default => None,
    };
    let (type_params, bounds) = generic_params(sig, ref_result, errors);
    let mut resolver = Resolver {
        scopes: vec![Vec::new()],
        captures: Vec::new(),
        derived: Vec::new(),
        local_types: Default::default(),
        consts: Vec::new(),
        next_local: 0,
        errors,
        type_params,
        function: true,
        function_name: Some(sig.ident.clone()),
        tiled: false,
        read_only_views: Vec::new(),
        ref_params: Vec::new(),
        tile_dims: Default::default(),
        fresh: 0,
        ref_calls: Vec::new(),
        reinterpreted: None,
    };
    let (params, bindings, tiled) = function_params(&mut resolver, sig, ref_result);
    let ret = match &sig.output {
        syn::ReturnType::Default => None,
        // The GPU function returns the position of the parameter.
        syn::ReturnType::Type(..) if ref_result.is_some() => Some(Ty::Scalar(Scalar::U32)),
        syn::ReturnType::Type(_, t) => ty_of(t, &resolver.type_params, resolver.errors),
    };
    let body = function_body(&mut resolver, &item, ref_result);
    let _ = bounds.len();
    Some(Function {
        type_params: bounds,
        params,
        bindings,
        tiled,
        ret,
        body,
        item,
        method: in_impl || receiver.is_some(),
        receiver,
    })
}

/// The parts of a `#[kernel]` function's signature it cannot have
/// (`async`, `unsafe`, variadic, an ABI, a `where` clause), reported.
fn check_signature(sig: &syn::Signature, errors: &mut Errors) {
    if let Some(a) = &sig.asyncness {
        errors.at(a, "a #[kernel] function cannot be `async`");
    }
    if let Some(u) = &sig.unsafety {
        errors.at(u, "a #[kernel] function cannot be `unsafe`");
    }
    if let Some(v) = &sig.variadic {
        errors.at(v, "a #[kernel] function cannot be variadic");
    }
    // `extern "C"` (C++ AMP's `extern "C"` linkage of a `restrict(amp)`
    // function) changes only how the host calls it.
    if let Some(abi) = &sig.abi
        && !abi
            .name
            .as_ref()
            .is_some_and(|n| matches!(n.value().as_str(), "C" | "Rust"))
    {
        errors.at(abi, "a #[kernel] function's ABI is `extern \"C\"` or Rust's: the accelerators call it as a kernel function whatever its ABI");
    }
    if let Some(w) = &sig.generics.where_clause {
        errors.at(
            w,
            "write the bounds of a #[kernel] function's type parameters inline: `<T: Float>`",
        );
    }
}

/// The type parameters of a `#[kernel]` function (their names, and the
/// bound of each), checking its generic parameters.
fn generic_params(
    sig: &syn::Signature,
    ref_result: Option<&syn::TypeReference>,
    errors: &mut Errors,
) -> (Vec<String>, Vec<&'static str>) {
    let mut type_params = Vec::new();
    let mut bounds = Vec::new();
    for p in &sig.generics.params {
        match p {
            syn::GenericParam::Type(t) => {
                let bound = t.bounds.iter().find_map(|b| match b {
                    syn::TypeParamBound::Trait(tb) => {
                        let last = tb.path.segments.last()?.ident.to_string();
                        BOUNDS.iter().find(|x| **x == last).copied()
                    }
                    _ => None,
                });
                match bound {
                    Some(b) if t.bounds.len() == 1 => bounds.push(b),
                    _ => errors.at(
                        t,
                        "a #[kernel] function's type parameter needs exactly one of the bounds `amp_core::Number`, `amp_core::Float`, `amp_core::Integer` or `amp_core::Element`",
                    ),
                }
                type_params.push(t.ident.to_string());
            }
            syn::GenericParam::Const(c) => match &c.ty {
                syn::Type::Path(p)
                    if p.path.is_ident("i32")
                        || p.path.is_ident("u32")
                        || p.path.is_ident("bool") => {}
                other => errors.at(
                    other,
                    "const parameters of #[kernel] functions are i32, u32 or bool",
                ),
            },
            // The lifetime of a `&mut` result (`fn f<'a>(a: &'a mut i32,
            // b: &'a mut i32) -> &'a mut i32`).
            syn::GenericParam::Lifetime(_) if ref_result.is_some() => {}
            syn::GenericParam::Lifetime(l) => {
                errors.at(
                    l,
                    "#[kernel] functions take lifetimes only for a `&mut` result (`fn f<'a>(a: &'a mut i32, b: &'a mut i32) -> &'a mut i32`)",
                );
            }
        }
    }
    (type_params, bounds)
}

/// A `#[kernel]` function's value parameters (local, name, type), its
/// binding parameters (position, binding) and its tiled-index parameter.
type Params = (
    Vec<(u32, Ident, Ty)>,
    Vec<(usize, FnBinding)>,
    Option<Ident>,
);

/// Declares a `#[kernel]` function's parameters in the resolver's
/// outermost scope.
fn function_params(
    resolver: &mut Resolver<'_>,
    sig: &syn::Signature,
    ref_result: Option<&syn::TypeReference>,
) -> Params {
    let mut params = Vec::new();
    let mut bindings = Vec::new();
    let mut tiled = None;
    let mut views = 0u32;
    for (position, input) in sig.inputs.iter().enumerate() {
        match input {
            // `self`, `&self`, `&mut self`: a local named `self` of type
            // `Self` (C++ AMP's member functions); by reference it is the
            // caller's value through a pointer, as a `&mut` parameter is.
            syn::FnArg::Receiver(r) => {
                if r.colon_token.is_some() {
                    resolver.errors.at(
                        r,
                        "a #[kernel] method takes `self`, `&self` or `&mut self`: no other receiver types",
                    );
                    continue;
                }
                let name = Ident::new("self", r.self_token.span);
                let this: syn::Type = syn::parse_quote_spanned!(r.self_token.span=> Self);
                let local = resolver.declare(&name);
                resolver.local_types.insert(local, syn::parse_quote!(Self));
                let ty = Ty::Named(this);
                if r.reference.is_some() {
                    resolver.ref_params.push(local);
                    params.push((local, name, Ty::Ref(Box::new(ty))));
                } else {
                    params.push((local, name, ty));
                }
            }
            syn::FnArg::Typed(pt) => {
                if let Some(binding) = binding_param(&pt.ty, &resolver.type_params, resolver.errors)
                {
                    let name = match &*pt.pat {
                        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                            p.ident.clone()
                        }
                        other => {
                            resolver
                                .errors
                                .at(other, "#[kernel] function parameters are plain names");
                            continue;
                        }
                    };
                    let Some(binding) = binding else {
                        continue;
                    };
                    let bind = match &binding {
                        FnBinding::View { writable, .. } => {
                            views += 1;
                            let c = VIEW_PARAM_BASE + views - 1;
                            if !writable {
                                resolver.read_only_views.push(c);
                            }
                            Binding::View(c, name.clone())
                        }
                        FnBinding::Tiled(_) => {
                            if tiled.is_some() {
                                resolver.errors.at(
                                    &pt.ty,
                                    "a #[kernel] function takes at most one tiled index",
                                );
                            }
                            tiled = Some(name.clone());
                            resolver.tiled = true;
                            Binding::Tiled
                        }
                    };
                    resolver.scopes[0].push((name.to_string(), bind));
                    bindings.push((position, binding));
                    continue;
                }
                let ty = match &*pt.ty {
                    // `&mut T`: the caller's local, through a pointer (C++
                    // AMP's `T&` parameters).
                    syn::Type::Reference(r) if r.mutability.is_some() => {
                        if let Some(l) = &r.lifetime
                            && ref_result.is_none()
                        {
                            resolver
                                .errors
                                .at(l, "#[kernel] functions take lifetimes only for a `&mut` result: write `&mut T`");
                        }
                        ty_of(&r.elem, &resolver.type_params, resolver.errors)
                            .map(|t| Ty::Ref(Box::new(t)))
                    }
                    _ => ty_of(&pt.ty, &resolver.type_params, resolver.errors),
                };
                let name = match &*pt.pat {
                    syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                        Some(p.ident.clone())
                    }
                    other => {
                        resolver
                            .errors
                            .at(other, "#[kernel] function parameters are plain names");
                        None
                    }
                };
                if let (Some(ty), Some(name)) = (ty, name) {
                    let local = resolver.declare(&name);
                    if let Some(t) = super::user_type(&pt.ty, &resolver.type_params) {
                        resolver.local_types.insert(local, t);
                    }
                    if let Ty::Ref(_) = ty {
                        resolver.ref_params.push(local);
                    }
                    params.push((local, name, ty));
                }
            }
        }
    }
    (params, bindings, tiled)
}

/// A `#[kernel]` function's body; with a `&mut` result, its returns are
/// marked with the position of the parameter they return.
fn function_body(
    resolver: &mut Resolver<'_>,
    item: &syn::ItemFn,
    ref_result: Option<&syn::TypeReference>,
) -> Block {
    let sig = &item.sig;
    match ref_result {
        Some(r) => {
            if let syn::Type::Reference(inner) = &*r.elem {
                resolver.errors.at(
                    inner,
                    "a `&mut` result refers to a value, not to another reference",
                );
            }
            // The `&mut` parameters and their positions.
            let refs: Vec<(String, u32)> = sig
                .inputs
                .iter()
                .enumerate()
                .filter_map(|(k, a)| match a {
                    syn::FnArg::Typed(pt) => match (&*pt.pat, &*pt.ty) {
                        (syn::Pat::Ident(p), syn::Type::Reference(r)) if r.mutability.is_some() => {
                            Some((p.ident.to_string(), k as u32))
                        }
                        _ => None,
                    },
                    syn::FnArg::Receiver(_) => None,
                })
                .collect();
            if refs.is_empty() {
                resolver.errors.at(r, "a #[kernel] function with a `&mut` result takes `&mut` parameters: the result is one of them");
            }
            let mut block = (*item.block).clone();
            let mut errs = Vec::new();
            refs::mark_ref_results(&mut block, &refs, &mut errs);
            for e in errs {
                resolver.errors.push(e);
            }
            resolver.block(&block)
        }
        None if matches!(sig.output, syn::ReturnType::Default) => {
            resolver.block(&unit_body(&item.block))
        }
        None => resolver.block(&item.block),
    }
}

/// A body whose value is `()` (a function without a result, a kernel),
/// with a final `match`, `if` or block made a statement: its arms' values
/// are `()` too (`2 => clear(a),` calls a function without a result),
/// which the front end cannot tell from the call alone.
pub(super) fn unit_body(b: &syn::Block) -> syn::Block {
    let mut b = b.clone();
    if let Some(syn::Stmt::Expr(e, semi @ None)) = b.stmts.last_mut()
        && matches!(
            e,
            syn::Expr::Match(_) | syn::Expr::If(_) | syn::Expr::Block(_)
        )
    {
        *semi = Some(Default::default());
    }
    b
}

/// Whether a `#[kernel]` function parameter of type `ty` binds a captured
/// container or the tiled index: `None` for a value parameter; `Some(None)`
/// for a binding parameter written wrongly (reported).
fn binding_param(
    ty: &syn::Type,
    type_params: &[String],
    errors: &mut Errors,
) -> Option<Option<FnBinding>> {
    let (reference, path) = match ty {
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Path(p) if p.qself.is_none() => (Some(r), p),
            _ => return None,
        },
        syn::Type::Path(p) if p.qself.is_none() => (None, p),
        _ => return None,
    };
    let last = path.path.segments.last()?;
    let kind = last.ident.to_string();
    if !matches!(kind.as_str(), "ArrayView" | "Array" | "TiledIndex") {
        return None;
    }
    // Reported, and then taken as if written right (one mistake, one
    // error).
    match reference {
        None => errors.at(
            ty,
            format!("a #[kernel] function takes a {kind} by reference, as C++ AMP's restrict(amp) functions do: `&{kind}<..>`"),
        ),
        Some(r) => {
            if let Some(m) = &r.mutability {
                errors.at(
                    m,
                    format!("take the {kind} by shared reference (`&{kind}<..>`): kernels write through a view's elements, not the view"),
                );
            }
        }
    }
    let args: Vec<&syn::GenericArgument> = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
            .collect(),
        _ => Vec::new(),
    };
    let rank_of = |a: Option<&&syn::GenericArgument>, errors: &mut Errors| -> Option<u32> {
        let n = match a {
            Some(syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }))) => i.base10_parse::<u32>().ok(),
            _ => None,
        };
        if n.is_none() {
            errors.at(
                ty,
                format!("write the {kind}'s rank as a literal: `{kind}<.., 2>`"),
            );
        }
        n
    };
    if kind == "TiledIndex" {
        let n = rank_of(args.first(), errors)?;
        return Some(Some(FnBinding::Tiled(n)));
    }
    let Some(syn::GenericArgument::Type(elem)) = args.first() else {
        errors.at(
            ty,
            format!("write the {kind}'s element type: `&{kind}<'_, f32, 1>`"),
        );
        return Some(None);
    };
    let Some(elem_ty) = ty_of(elem, type_params, errors) else {
        return Some(None);
    };
    let Some(rank) = rank_of(args.get(1), errors) else {
        return Some(None);
    };
    let writable = match (kind.as_str(), args.get(2)) {
        ("Array", _) | (_, None) => true,
        (_, Some(syn::GenericArgument::Type(syn::Type::Path(a))))
            if a.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "ReadOnly") =>
        {
            false
        }
        (_, Some(syn::GenericArgument::Type(syn::Type::Path(a))))
            if a.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "ReadWrite") =>
        {
            true
        }
        (_, Some(other)) => {
            errors.at(other, "a view's access is `ReadOnly` or `ReadWrite`");
            return Some(None);
        }
    };
    Some(Some(FnBinding::View {
        elem: elem.clone(),
        ty: elem_ty,
        rank,
        writable,
    }))
}

impl Resolver<'_> {
    /// An argument of a `#[kernel]` function call: a value, or (C++ AMP
    /// passes them by reference) a captured view or array (`&a`), or the
    /// tiled index (`&t`), which the function's view and tiled parameters
    /// bind.
    pub(super) fn call_arg(&mut self, a: &syn::Expr) -> Option<Expr> {
        if let syn::Expr::Reference(r) = strip_parens(a)
            && r.mutability.is_some()
        {
            return self.addr_of(a);
        }
        if self.ref_param(a).is_some() {
            return self.addr_of(a);
        }
        let inner = match strip_parens(a) {
            syn::Expr::Reference(r) if r.mutability.is_none() => strip_parens(&r.expr),
            other => other,
        };
        if let syn::Expr::Path(p) = inner
            && let Some(name) = self.path_ident(p)
        {
            let span = a.span();
            match self.lookup(&name.to_string()) {
                Some(Binding::Tiled) => {
                    return Some(Expr {
                        kind: ExprKind::TiledArg(name),
                        span,
                    });
                }
                Some(Binding::View(c, spelled)) => {
                    return Some(Expr {
                        kind: ExprKind::Capture(c, super::spelled_at(&spelled, &name)),
                        span,
                    });
                }
                None if !is_const_name(&name.to_string()) && !matches!(a, syn::Expr::Path(_)) => {
                    // `&a` of a capture: the capture itself.
                    let c = self.capture(&name)?;
                    return Some(Expr {
                        kind: ExprKind::Capture(c, name),
                        span,
                    });
                }
                _ => {}
            }
        }
        self.expr(a)
    }
}
