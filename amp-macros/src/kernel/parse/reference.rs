//! References (`&`/`&mut`) in kernels. Accelerator functions take
//! pointers to private memory only, so parse rewrites what refers to other
//! memory before resolving it: an element passed by `&mut` to a
//! `#[kernel]` function is copied into a temporary and stored back
//! (`copy_in_out`, `lift_mut_calls`); `let r = f(..)` of a function with a
//! `&mut` result selects among its `&mut` arguments (`ref_call`);
//! `&mut place` arguments become `ExprKind::AddrOf`, and a returned `&mut`
//! parameter `ExprKind::RefResult`. References bound by `let` are
//! substituted by `refs` (see `stmt`). Check and expand see only places
//! and pointers to locals.

use proc_macro2::{Ident, Span};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Token, UnOp};

use super::super::ast::*;
use super::super::refs::{RefAlias, Target};
use super::expr::is_compound_assign;
use super::{Binding, Resolver, strip_parens, strip_usize_cast};

/// `&mut place` where the place is not a plain name (an element of an
/// array, a view or a `tile_static` array, or a field of one).
fn is_element_ref(a: &syn::Expr) -> bool {
    match strip_parens(a) {
        syn::Expr::Reference(r) if r.mutability.is_some() => {
            !matches!(strip_parens(&r.expr), syn::Expr::Path(_))
        }
        _ => false,
    }
}

/// A call (not of an atomic function, whose `&mut a[i]` is the element
/// itself) that passes an element by `&mut`.
fn is_mut_element_call(c: &syn::ExprCall) -> bool {
    let atomic = match &*c.func {
        syn::Expr::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident.to_string().starts_with("atomic_")),
        _ => true,
    };
    !atomic && c.args.iter().any(is_element_ref)
}

/// Whether `e` contains a call that passes an element by `&mut`.
fn has_mut_element_call(e: &syn::Expr) -> bool {
    struct Find(bool);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            self.0 |= is_mut_element_call(c);
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

impl Resolver<'_> {
    /// A statement that calls a `#[kernel]` function with `&mut` to an
    /// element (of a view, a local array or a `tile_static` array, or a
    /// field of one): `f(&mut s[i], x);` or `let r = f(&mut s[i]);` becomes
    ///
    /// ```text
    /// let __amp_i0 = i; let mut __amp_ref1 = s[__amp_i0];
    /// f(&mut __amp_ref1, x); s[__amp_i0] = __amp_ref1;
    /// ```
    ///
    /// (each index evaluated once, in order), so that functions take
    /// pointers to private memory only (what WGSL and naga's back ends
    /// allow). `None` for any other statement.
    pub(super) fn copy_in_out(&mut self, s: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        let call = match s {
            syn::Stmt::Expr(syn::Expr::Call(c), _) => c,
            syn::Stmt::Local(l) => match l.init.as_ref() {
                Some(init) if init.diverge.is_none() => match strip_parens(&init.expr) {
                    syn::Expr::Call(c) => c,
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        };
        // Atomics take their element's place itself (`&mut a[i]` is
        // accepted there as `&a[i]`): never a copy.
        match &*call.func {
            syn::Expr::Path(p)
                if !p
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident.to_string().starts_with("atomic_")) => {}
            _ => return None,
        }
        let is_element = |a: &syn::Expr| match strip_parens(a) {
            syn::Expr::Reference(r) if r.mutability.is_some() => {
                !matches!(strip_parens(&r.expr), syn::Expr::Path(_))
            }
            _ => false,
        };
        if !call.args.iter().any(is_element) {
            return None;
        }
        let mut pre: Vec<syn::Stmt> = Vec::new();
        let mut post: Vec<syn::Stmt> = Vec::new();
        let mut new_call = call.clone();
        for arg in new_call.args.iter_mut() {
            if !is_element(arg) {
                continue;
            }
            let syn::Expr::Reference(r) = strip_parens(arg).clone() else {
                continue;
            };
            let span = r.span();
            let place = self.bind_place_indices(&r.expr, &mut pre)?;
            self.fresh += 1;
            let tmp = Ident::new(&format!("__amp_ref{}", self.fresh), span);
            pre.push(syn::parse_quote_spanned!(span=> let mut #tmp = #place;));
            *arg = syn::parse_quote_spanned!(span=> &mut #tmp);
            post.push(syn::parse_quote_spanned!(span=> #place = #tmp;));
        }
        let stmt: syn::Stmt = match s {
            syn::Stmt::Local(l) => {
                let mut l = l.clone();
                if let Some(init) = l.init.as_mut() {
                    *init.expr = syn::Expr::Call(new_call);
                }
                syn::Stmt::Local(l)
            }
            _ => syn::Stmt::Expr(syn::Expr::Call(new_call), Some(Default::default())),
        };
        pre.push(stmt);
        pre.extend(post);
        Some(pre)
    }

    /// A statement with calls that pass elements by `&mut` inside larger
    /// expressions (`let v = 1 + f(&mut s[i]);`, `a[k] = f(&mut s[i]) *
    /// 2;`, `if f(&mut s[i]) > 0 { .. }`, `return f(&mut s[i]);`): each such
    /// call becomes statements of its own before it (the element copied in,
    /// the call's result in a new local, the element stored back), and
    /// what Rust evaluates before the call (operands to its left) is bound
    /// to new locals first, so evaluation order is Rust's. Calls in places
    /// evaluated conditionally or repeatedly (after `&&`/`||`, in a branch,
    /// a loop condition) are left alone (and refused as before). `None`:
    /// nothing to do.
    pub(super) fn lift_mut_calls(&mut self, s: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        let mut pre = Vec::new();
        let stmt = match s {
            syn::Stmt::Local(l) => {
                let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
                if !has_mut_element_call(&init.expr) {
                    return None;
                }
                let value = self.lift(&init.expr, &mut pre)?;
                let mut l = l.clone();
                if let Some(init) = l.init.as_mut() {
                    *init.expr = value;
                }
                syn::Stmt::Local(l)
            }
            syn::Stmt::Expr(e, semi) => {
                if !has_mut_element_call(e) {
                    return None;
                }
                let e = match e {
                    // Rust evaluates the assigned value before the place.
                    syn::Expr::Assign(a) if !has_mut_element_call(&a.left) => {
                        let mut a = a.clone();
                        *a.right = self.lift(&a.right, &mut pre)?;
                        syn::Expr::Assign(a)
                    }
                    syn::Expr::Binary(b)
                        if is_compound_assign(&b.op) && !has_mut_element_call(&b.left) =>
                    {
                        let mut b = b.clone();
                        *b.right = self.lift(&b.right, &mut pre)?;
                        syn::Expr::Binary(b)
                    }
                    syn::Expr::If(i) => {
                        let mut i = i.clone();
                        *i.cond = self.lift(&i.cond, &mut pre)?;
                        syn::Expr::If(i)
                    }
                    syn::Expr::Return(r) => {
                        let mut r = r.clone();
                        if let Some(v) = r.expr.as_mut() {
                            **v = self.lift(v, &mut pre)?;
                        }
                        syn::Expr::Return(r)
                    }
                    other => self.lift(other, &mut pre)?,
                };
                syn::Stmt::Expr(e, *semi)
            }
            _ => return None,
        };
        if pre.is_empty() {
            return None;
        }
        pre.push(stmt);
        Some(pre)
    }

    /// `e` with each call that passes elements by `&mut` (in a place Rust
    /// evaluates once, unconditionally) replaced by a new local holding its
    /// result; the statements computing it are pushed on `pre` (see
    /// [`Resolver::lift_mut_calls`]). `None`: a call in another place.
    fn lift(&mut self, e: &syn::Expr, pre: &mut Vec<syn::Stmt>) -> Option<syn::Expr> {
        if !has_mut_element_call(e) {
            return Some(e.clone());
        }
        let span = e.span();
        match e {
            syn::Expr::Paren(p) => {
                let inner = self.lift(&p.expr, pre)?;
                Some(syn::parse_quote_spanned!(span=> (#inner)))
            }
            syn::Expr::Call(c) => {
                let args: Vec<&syn::Expr> = c.args.iter().collect();
                let mut args = self.lift_seq(&args, pre)?;
                if !is_mut_element_call(c) {
                    let func = &c.func;
                    return Some(syn::parse_quote_spanned!(span=> #func(#(#args),*)));
                }
                // The call of its own: elements copied in and stored back.
                let mut post = Vec::new();
                for arg in args.iter_mut() {
                    if !is_element_ref(arg) {
                        continue;
                    }
                    let syn::Expr::Reference(r) = strip_parens(arg).clone() else {
                        continue;
                    };
                    let span = r.span();
                    let place = self.bind_place_indices(&r.expr, pre)?;
                    self.fresh += 1;
                    let tmp = Ident::new(&format!("__amp_ref{}", self.fresh), span);
                    pre.push(syn::parse_quote_spanned!(span=> let mut #tmp = #place;));
                    *arg = syn::parse_quote_spanned!(span=> &mut #tmp);
                    post.push(syn::parse_quote_spanned!(span=> #place = #tmp;));
                }
                self.fresh += 1;
                let result = Ident::new(&format!("__amp_r{}", self.fresh), span);
                let func = &c.func;
                pre.push(syn::parse_quote_spanned!(span=> let #result = #func(#(#args),*);));
                pre.extend(post);
                Some(syn::parse_quote_spanned!(span=> #result))
            }
            syn::Expr::MethodCall(m) => {
                let mut parts: Vec<&syn::Expr> = vec![&m.receiver];
                parts.extend(m.args.iter());
                let mut parts = self.lift_seq(&parts, pre)?.into_iter();
                let receiver = parts.next()?;
                let args: Vec<syn::Expr> = parts.collect();
                let (method, turbofish) = (&m.method, &m.turbofish);
                Some(syn::parse_quote_spanned!(span=> #receiver.#method #turbofish(#(#args),*)))
            }
            syn::Expr::Binary(b)
                if !matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_))
                    && !is_compound_assign(&b.op) =>
            {
                let [l, r]: [syn::Expr; 2] =
                    self.lift_seq(&[&b.left, &b.right], pre)?.try_into().ok()?;
                let op = &b.op;
                Some(syn::parse_quote_spanned!(span=> #l #op #r))
            }
            syn::Expr::Unary(u) => {
                let inner = self.lift(&u.expr, pre)?;
                let op = &u.op;
                Some(syn::parse_quote_spanned!(span=> #op #inner))
            }
            syn::Expr::Cast(c) => {
                let inner = self.lift(&c.expr, pre)?;
                let ty = &c.ty;
                Some(syn::parse_quote_spanned!(span=> #inner as #ty))
            }
            syn::Expr::Field(f) => {
                let base = self.lift(&f.base, pre)?;
                let member = &f.member;
                Some(syn::parse_quote_spanned!(span=> #base.#member))
            }
            syn::Expr::Index(ix) if !has_mut_element_call(&ix.expr) => {
                let index = self.lift(&ix.index, pre)?;
                let base = &ix.expr;
                Some(syn::parse_quote_spanned!(span=> #base[#index]))
            }
            syn::Expr::Tuple(t) => {
                let parts: Vec<&syn::Expr> = t.elems.iter().collect();
                let parts = self.lift_seq(&parts, pre)?;
                Some(syn::parse_quote_spanned!(span=> (#(#parts,)*)))
            }
            syn::Expr::Array(a) => {
                let parts: Vec<&syn::Expr> = a.elems.iter().collect();
                let parts = self.lift_seq(&parts, pre)?;
                Some(syn::parse_quote_spanned!(span=> [#(#parts),*]))
            }
            _ => None,
        }
    }

    /// Operands Rust evaluates in order: those before the last one with a
    /// lifted call are evaluated first, into new locals (names and
    /// literals are left as they are), so that the lifted statements do
    /// not run before them.
    fn lift_seq(&mut self, es: &[&syn::Expr], pre: &mut Vec<syn::Stmt>) -> Option<Vec<syn::Expr>> {
        let Some(last) = es.iter().rposition(|e| has_mut_element_call(e)) else {
            return Some(es.iter().map(|e| (*e).clone()).collect());
        };
        let mut out = Vec::new();
        for (k, e) in es.iter().enumerate() {
            if k < last {
                let v = self.lift(e, pre)?;
                if matches!(strip_parens(&v), syn::Expr::Lit(_) | syn::Expr::Path(_))
                    || is_element_ref(&v)
                    || matches!(strip_parens(&v), syn::Expr::Reference(_))
                {
                    out.push(v);
                    continue;
                }
                let span = v.span();
                self.fresh += 1;
                let t = Ident::new(&format!("__amp_v{}", self.fresh), span);
                pre.push(syn::parse_quote_spanned!(span=> let #t = #v;));
                out.push(syn::parse_quote_spanned!(span=> #t));
            } else if k == last {
                out.push(self.lift(e, pre)?);
            } else {
                out.push((*e).clone());
            }
        }
        Some(out)
    }

    /// `let r = f(args);` where `f` has a `&mut` result (`r` is
    /// dereferenced later): the statements that make it (each `&mut`
    /// argument's place with its indices bound, then `let __amp_selN =
    /// f(..);`, which the call's position marks, see [`Resolver::local`])
    /// and what `r` refers to: the place of the argument at the position
    /// the call returns.
    pub(super) fn ref_call(&mut self, call: &syn::ExprCall) -> Option<(Vec<syn::Stmt>, Target)> {
        // `let b = Box::new(x); *b`: the allocation is the mistake (its
        // uses read the call again, which repeats the same error at the
        // same place: rustc shows it once).
        if self.heap_call(call) {
            return None;
        }
        let mut pre = Vec::new();
        let mut candidates = Vec::new();
        let mut call = call.clone();
        for (k, arg) in call.args.iter_mut().enumerate() {
            let k = k as u32;
            match strip_parens(arg).clone() {
                syn::Expr::Reference(r) if r.mutability.is_some() => {
                    let place = self.bind_place_indices(&r.expr, &mut pre)?;
                    candidates.push((k, place.clone()));
                    *arg = syn::parse_quote_spanned!(r.span()=> &mut #place);
                }
                other if self.ref_param(&other).is_some() => {
                    candidates.push((k, syn::parse_quote_spanned!(other.span()=> *#other)));
                }
                _ => {}
            }
        }
        if candidates.is_empty() {
            self.errors.at(
                &call,
                "this call's result is dereferenced, but it passes no `&mut` argument: the `&mut` result of a #[kernel] function is one of its `&mut` parameters",
            );
            return None;
        }
        self.fresh += 1;
        let span = call.span();
        let selector = Ident::new(&format!("__amp_sel{}", self.fresh), span);
        self.ref_calls.push(selector.to_string());
        pre.push(syn::parse_quote_spanned!(span=> let #selector = #call;));
        Some((
            pre,
            Target::Select {
                selector,
                candidates,
            },
        ))
    }

    /// `let r = if c { &mut a } else { &mut b };` (C++ AMP's pointer to one
    /// of several locals, chosen at run time): the statements that bind
    /// each arm's index expressions and the number of the arm taken
    /// (`let __amp_selN = if c { 0 } else { 1 };`), and `r` as a reference
    /// that selects its place by that number. `None` (reported) where an
    /// arm is not a place or a constant is named.
    pub(super) fn chosen_reference(
        &mut self,
        p: &syn::PatIdent,
        choice: &syn::ExprIf,
    ) -> Option<(Vec<syn::Stmt>, RefAlias)> {
        if p.mutability.is_some() {
            self.errors.at(
                p,
                format!("a reference in a kernel refers to one place: bind it with `let {} = ..` (not `let mut`), and write the value it refers to as `*{} = ..`", p.ident, p.ident),
            );
            return None;
        }
        let arms = super::super::refs::reference_arms(choice)?;
        let mut pre = Vec::new();
        let mut candidates = Vec::new();
        let mut mutable = true;
        for (k, (_, r)) in arms.iter().enumerate() {
            if let Some(constant) = self.constant_path(&r.expr) {
                self.errors.at(
                    &r.expr,
                    format!("a reference in a kernel refers to a place of the kernel (a local, a tile_static variable, an element of an array or a view), not to a constant or static (`{constant}`)"),
                );
                return None;
            }
            let Some(place) = self.bind_place_indices(&r.expr, &mut pre) else {
                self.errors.at(
                    &r.expr,
                    "a reference in a kernel (`let r = &mut x;`) refers to a local variable, a tile_static variable, a `&mut` parameter (`&mut *p`), or an element or field of an array, a view or a tile_static array",
                );
                return None;
            };
            mutable &= r.mutability.is_some();
            candidates.push((k as u32, place));
        }
        self.fresh += 1;
        let span = choice.span();
        let selector = Ident::new(&format!("__amp_sel{}", self.fresh), span);
        // The arms' numbers, under the same conditions.
        let mut number: syn::Expr = {
            let last = (arms.len() - 1) as u32;
            syn::parse_quote_spanned!(span=> #last)
        };
        for (k, (cond, _)) in arms.iter().enumerate().rev().skip(1) {
            let k = k as u32;
            let cond = cond.expect("every arm but the last has a condition");
            number = syn::parse_quote_spanned!(span=> if #cond { #k } else { #number });
        }
        pre.push(syn::parse_quote_spanned!(span=> let #selector: u32 = #number;));
        Some((
            pre,
            RefAlias {
                name: p.ident.to_string(),
                target: Target::Select {
                    selector,
                    candidates,
                },
                mutable,
                shadowed: None,
            },
        ))
    }

    /// `place` with each index expression bound to a new local (pushed on
    /// `pre`), so that reading and then writing it evaluates them once.
    /// `None` (the call is left as it is, and refused as before) for what
    /// is not an indexed place or a field of one.
    pub(super) fn bind_place_indices(
        &mut self,
        place: &syn::Expr,
        pre: &mut Vec<syn::Stmt>,
    ) -> Option<syn::Expr> {
        match place {
            syn::Expr::Paren(p) => self.bind_place_indices(&p.expr, pre),
            syn::Expr::Path(_) => Some(place.clone()),
            // `*p` of a `&mut` parameter.
            syn::Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => Some(place.clone()),
            syn::Expr::Field(f) => {
                let base = self.bind_place_indices(&f.base, pre)?;
                let member = &f.member;
                Some(syn::parse_quote_spanned!(f.span()=> #base.#member))
            }
            syn::Expr::Index(ix) => {
                let base = self.bind_place_indices(&ix.expr, pre)?;
                let mut bind = |this: &mut Self, e: &syn::Expr| -> syn::Expr {
                    let e = strip_usize_cast(e);
                    if matches!(strip_parens(e), syn::Expr::Lit(_)) {
                        return e.clone();
                    }
                    this.fresh += 1;
                    let t = Ident::new(&format!("__amp_i{}", this.fresh), e.span());
                    // `&mut a[t]` with the tiled index: its global index.
                    let e: syn::Expr = match strip_parens(e) {
                        syn::Expr::Path(p) if this.is_tiled(p) => {
                            syn::parse_quote_spanned!(e.span()=> #p.global)
                        }
                        _ => e.clone(),
                    };
                    pre.push(syn::parse_quote_spanned!(e.span()=> let #t = #e;));
                    syn::parse_quote_spanned!(e.span()=> #t)
                };
                let index: syn::Expr = match strip_parens(&ix.index) {
                    syn::Expr::Array(a) => {
                        let parts: Vec<syn::Expr> = a.elems.iter().map(|x| bind(self, x)).collect();
                        syn::parse_quote_spanned!(a.span()=> [#(#parts),*])
                    }
                    other => bind(self, other),
                };
                Some(syn::parse_quote_spanned!(ix.span()=> #base[#index]))
            }
            _ => None,
        }
    }

    /// The path of `e` as written if it names a constant or a static (an
    /// upper-case name bound by no `let`, or a path of several segments),
    /// which a reference may not name.
    pub(super) fn constant_path(&self, e: &syn::Expr) -> Option<String> {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        match self.path_ident(p) {
            Some(name) => {
                let name = name.to_string();
                (super::is_const_name(&name) && self.lookup(&name).is_none()).then_some(name)
            }
            None => Some(
                quote::ToTokens::to_token_stream(&p.path)
                    .to_string()
                    .replace(' ', ""),
            ),
        }
    }

    /// The local of `e` if it names a `&mut` parameter.
    pub(super) fn ref_param(&self, e: &syn::Expr) -> Option<(u32, Ident)> {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        let name = self.path_ident(p)?;
        match self.lookup(&name.to_string()) {
            Some(Binding::Local(id, _)) if self.ref_params.contains(&id) => Some((id, name)),
            _ => None,
        }
    }

    /// `&mut place` (or a `&mut` parameter passed on): an argument for a
    /// `&mut T` parameter, which must be a local or an element of a local
    /// array (accelerator functions take pointers to private memory only).
    pub(super) fn addr_of(&mut self, a: &syn::Expr) -> Option<Expr> {
        let span = a.span();
        let place = match strip_parens(a) {
            syn::Expr::Reference(r) => self.place(&r.expr)?,
            other => {
                let (id, name) = self.ref_param(other)?;
                Place::Local(id, name)
            }
        };
        // (Pointers to array elements trip naga's SPIR-V writer: a local,
        // a whole local array or a `&mut` parameter only.)
        if !matches!(place, Place::Local(..)) {
            self.errors.at(
                a,
                "a `&mut` argument is a local variable, a whole local array, or an element (of an array, a view or a tile_static array) passed in a call that runs once where it is written (not after `&&`/`||`, in a branch or a loop condition): the element is copied in and stored back after the call; call it in a `let` first (`let r = f(&mut s[i]);`)",
            );
            return None;
        }
        Some(Expr {
            kind: ExprKind::AddrOf(Box::new(place)),
            span,
        })
    }

    /// A `&mut` parameter returned (marked by `refs::mark_ref_results`).
    pub(super) fn ref_result_expr(&mut self, m: &syn::ExprMacro, span: Span) -> Option<Expr> {
        let args = m
            .mac
            .parse_body_with(Punctuated::<syn::Expr, Token![,]>::parse_terminated)
            .ok()?;
        let kind = match (args.first(), args.get(1)) {
            (
                Some(syn::Expr::Path(p)),
                Some(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(pos),
                    ..
                })),
            ) => ExprKind::RefResult(pos.base10_parse().ok()?, self.path_ident(p)?),
            _ => return None,
        };
        Some(Expr { kind, span })
    }
}
