//! Blocks and statements: `let` (plain names, tuples, and views made in
//! the kernel, see `view`), assignments, `if`, `while`, `loop`, `for` over
//! ranges, `break`/`continue`/`return`, barriers and `tile_static!`. A
//! block first rewrites its statements for closures (`closures`: inlined
//! where called) and references (`refs`, and see `reference`), then
//! resolves each into the AST's `Stmt`s that check
//! validates and expand lowers.

use proc_macro2::Ident;
use syn::spanned::Spanned;

use super::super::ast::*;
use super::super::closures::{self, BoundClosure};
use super::super::refs::{self, RefAlias, Target};
use super::expr::bin_op;
use super::function::unit_body;
use super::ty::ty_of;
use super::view::{copy_let, local_array_view, view_let};
use super::{Resolver, strip_parens, strip_usize_cast};
use syn::UnOp;

impl Resolver<'_> {
    pub(super) fn block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        let stmts = self.rewritten(b);
        let out = self.resolved(&stmts);
        self.scopes.pop();
        out
    }

    /// The first stage of a block: its statements with closures inlined,
    /// references rewritten to their places (see `refs`) and `&mut`
    /// element arguments copied in and out, each with whether it is the
    /// block's last (its value).
    fn rewritten(&mut self, b: &syn::Block) -> Vec<(syn::Stmt, bool)> {
        // `f(&mut s[i]);`: the element copied into a temporary, passed,
        // and stored back (statements of their own).
        let mut stmts: Vec<(syn::Stmt, bool)> = Vec::with_capacity(b.stmts.len());
        // References bound by `let` (`let r = &mut a[i];`, or a function's
        // `&mut` result): their uses in the rest of the block are rewritten
        // to the place (see `refs`). Statements the rewrites make are
        // processed in turn, from the front of the queue.
        let mut aliases: Vec<RefAlias> = Vec::new();
        // Closures bound by `let` (`let f = |x| ..;`): each call in the rest
        // of the block is inlined, as are closures called where they are
        // written (see `closures`).
        let mut closures: Vec<BoundClosure> = Vec::new();
        let mut queue: std::collections::VecDeque<syn::Stmt> = b.stmts.iter().cloned().collect();
        while let Some(s) = queue.pop_front() {
            let last = queue.is_empty();
            if let Some(mut c) = closures::closure_let(&s) {
                for e in closures::prepare(&mut c, &closures, &mut self.fresh) {
                    self.errors.push(e);
                }
                closures.retain(|x| x.name != c.name);
                aliases.retain(|a| a.name != c.name);
                closures.push(c);
                continue;
            }
            // `let r; r = &place;`: bound where it is first assigned.
            if refs::deferred_reference(&s, &mut queue) {
                continue;
            }
            let (s, errors) = closures::inline(&s, &closures, &mut self.fresh);
            if !errors.is_empty() {
                for e in errors {
                    self.errors.push(e);
                }
                continue;
            }
            if let Some((name, alias)) = refs::copied_reference(&s, &aliases) {
                let alias = RefAlias {
                    name: name.to_string(),
                    ..alias.clone()
                };
                aliases.push(alias);
                continue;
            }
            let (substituted, errors) = refs::substitute(&s, &aliases);
            if !errors.is_empty() {
                // One error for the mistake: the statement goes no further.
                for e in errors {
                    self.errors.push(e);
                }
                continue;
            }
            let s = &substituted;
            if let Some(lifted) = refs::lift_deref_call(s, &mut self.fresh) {
                for l in lifted.into_iter().rev() {
                    queue.push_front(l);
                }
                continue;
            }
            if let Some((p, choice)) = refs::conditional_reference_let(s) {
                let name = p.ident.to_string();
                aliases.retain(|a| a.name != name);
                if let Some((pre, alias)) = self.chosen_reference(p, choice) {
                    stmts.extend(pre.into_iter().map(|s| (s, false)));
                    aliases.push(alias);
                }
                continue;
            }
            if let Some((p, r)) = refs::reference_let(s) {
                self.reference_let(p, r, &mut aliases, &mut stmts);
                continue;
            }
            if let Some((p, call)) = refs::call_let(s)
                && refs::dereferenced(&p.ident.to_string(), &queue)
            {
                let name = p.ident.to_string();
                aliases.retain(|a| a.name != name);
                match self.ref_call(call) {
                    Some((pre, target)) => {
                        for l in pre.into_iter().rev() {
                            queue.push_front(l);
                        }
                        aliases.push(RefAlias {
                            name,
                            target,
                            mutable: true,
                            shadowed: None,
                        });
                    }
                    // Reported: the uses read the call's value instead,
                    // so that the mistake gives one error.
                    None => aliases.push(RefAlias {
                        name,
                        target: Target::Place(syn::Expr::Call(call.clone())),
                        mutable: true,
                        shadowed: None,
                    }),
                }
                continue;
            }
            if let syn::Stmt::Local(l) = s {
                let names = refs::pat_names(&l.pat);
                aliases.retain(|a| !names.contains(&a.name));
                closures.retain(|c| !names.contains(&c.name));
                closures::rebind(&mut closures, &names);
                refs::shadow_targets(&mut aliases, &names);
            }
            // A block's value (`if c { f(&mut s[i]) } else { 0 }`) keeps its
            // place as the value: lifted, not made a statement.
            let value = last && matches!(s, syn::Stmt::Expr(_, None));
            let copied = if value { None } else { self.copy_in_out(s) };
            match copied {
                Some(rewritten) => stmts.extend(rewritten.into_iter().map(|r| (r, false))),
                None => match self.lift_mut_calls(s) {
                    // The statement itself stays last (a block's value).
                    Some(mut rewritten) => {
                        let stmt = rewritten.pop().expect("the statement");
                        stmts.extend(rewritten.into_iter().map(|r| (r, false)));
                        stmts.push((stmt, last));
                    }
                    None => stmts.push((s.clone(), last)),
                },
            }
        }
        stmts
    }

    /// `let r = &mut place;` (or `&place`): `r` becomes another name for
    /// the place (`aliases`), its index expressions bound to hidden locals
    /// first (pushed on `stmts`); what cannot be referred to is reported.
    fn reference_let(
        &mut self,
        p: &syn::PatIdent,
        r: &syn::ExprReference,
        aliases: &mut Vec<RefAlias>,
        stmts: &mut Vec<(syn::Stmt, bool)>,
    ) {
        let name = p.ident.to_string();
        aliases.retain(|a| a.name != name);
        if p.mutability.is_some() {
            self.errors.at(
                p,
                format!("a reference in a kernel refers to one place: bind it with `let {} = ..` (not `let mut`), and write the value it refers to as `*{} = ..`", p.ident, p.ident),
            );
            return;
        }
        if let Some(constant) = self.constant_path(&r.expr) {
            self.errors.at(
                &r.expr,
                format!("a reference in a kernel refers to a place of the kernel (a local, a tile_static variable, an element of an array or a view), not to a constant or static: read the value instead (`let {} = {constant};`); C++ AMP kernels may read a static constant but not take its address", p.ident),
            );
            // Its uses read the value, so that the mistake gives
            // one error.
            aliases.push(RefAlias {
                name,
                target: Target::Place((*r.expr).clone()),
                mutable: r.mutability.is_some(),
                shadowed: None,
            });
            return;
        }
        let mut pre = Vec::new();
        match self.bind_place_indices(&r.expr, &mut pre) {
            Some(place) => {
                stmts.extend(pre.into_iter().map(|s| (s, false)));
                aliases.push(RefAlias {
                    name,
                    target: Target::Place(place),
                    mutable: r.mutability.is_some(),
                    shadowed: None,
                });
            }
            None => self.errors.at(
                &r.expr,
                "a reference in a kernel (`let r = &mut x;`) refers to a local variable, a tile_static variable, a `&mut` parameter (`&mut *p`), or an element or field of an array, a view or a tile_static array",
            ),
        }
    }

    /// The second stage of a block: the rewritten statements resolved into
    /// the AST.
    fn resolved(&mut self, stmts: &[(syn::Stmt, bool)]) -> Block {
        let mut out = Block::default();
        for (s, last) in stmts {
            let (s, last) = (s, *last);
            match s {
                syn::Stmt::Local(l) => {
                    if let syn::Pat::Tuple(t) = &l.pat {
                        out.stmts.extend(self.local_tuple(l, t));
                    } else if let Some((name, source)) = copy_let(l)
                        && let Some(binding) = self.copied_view(&source)
                    {
                        // `let v2 = v;` of a captured view (or a view made
                        // or passed in): `v2` names the same view.
                        self.bind(&name, binding);
                    } else if let Some((name, extent, array, writable)) = local_array_view(l) {
                        out.stmts.extend(self.local_array_view(l, name, extent, array, writable));
                    } else if let Some((name, init)) = view_let(l) {
                        out.stmts.extend(self.local_view(l, name, init));
                    } else if let Some(s) = self.local(l) {
                        out.stmts.push(s);
                    }
                }
                syn::Stmt::Expr(e, semi) => {
                    let is_tail = last && semi.is_none() && !is_statement_like(e);
                    if is_tail {
                        out.tail = self.expr(e).map(Box::new);
                    } else if let Some(s) = self.stmt_expr(e) {
                        out.stmts.push(s);
                    }
                }
                syn::Stmt::Item(item) => self.errors.at(
                    item,
                    "items (fn, struct, static, use, ...) cannot be declared inside a kernel: declare them outside it (helper functions as `#[kernel] fn`; constants are inlined by value)",
                ),
                syn::Stmt::Macro(m) if m.mac.path.is_ident("tile_static") || m.mac.path.segments.last().is_some_and(|s| s.ident == "tile_static") => {
                    out.stmts.extend(self.tile_static(&m.mac));
                }
                syn::Stmt::Macro(m) => self.errors.at(
                    &m.mac,
                    "macros are not allowed in kernels: accelerators cannot print, allocate or panic (C++ AMP restrict(amp))",
                ),
            }
        }
        out
    }

    /// `let (a, b) = e;` as `let tmp = e; let a = tmp.0; let b = tmp.1;`.
    fn local_tuple(&mut self, l: &syn::Local, t: &syn::PatTuple) -> Vec<Stmt> {
        let span = l.span();
        let Some(init) = l.init.as_ref().and_then(|i| self.expr(&i.expr)) else {
            self.errors
                .at(l, "a kernel `let (..)` needs an initialiser");
            return Vec::new();
        };
        let tmp = Ident::new(&format!("__amp_tuple{}", self.next_local), span);
        let local = self.declare(&tmp);
        let mut out = vec![Stmt {
            kind: StmtKind::Let {
                local,
                name: tmp.clone(),
                mutable: false,
                ty: None,
                native_ty: None,
                init: Some(init),
            },
            span,
        }];
        for (i, p) in t.elems.iter().enumerate() {
            let (name, mutable) = match p {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    (p.ident.clone(), p.mutability.is_some())
                }
                syn::Pat::Wild(_) => continue,
                other => {
                    self.errors
                        .at(other, "kernel tuple patterns bind plain names or `_`");
                    continue;
                }
            };
            let value = Expr {
                kind: ExprKind::Field(
                    Box::new(Expr {
                        kind: ExprKind::Local(local, tmp.clone()),
                        span,
                    }),
                    syn::Member::Unnamed(syn::Index {
                        index: i as u32,
                        span,
                    }),
                ),
                span,
            };
            let id = self.declare(&name);
            out.push(Stmt {
                kind: StmtKind::Let {
                    local: id,
                    name,
                    mutable,
                    ty: None,
                    native_ty: None,
                    init: Some(value),
                },
                span,
            });
        }
        out
    }

    fn local(&mut self, l: &syn::Local) -> Option<Stmt> {
        let span = l.span();
        let init = match &l.init {
            Some(init) => {
                if let Some((_, diverge)) = &init.diverge {
                    self.errors.at(diverge, "`let ... else` is not allowed in kernels: kernel values have no refutable patterns (no enums such as Option or Result); test with `if` and `return`");
                }
                self.expr(&init.expr)
            }
            None => None,
        };
        let (pat, ty, native_ty) = match &l.pat {
            syn::Pat::Type(pt) => (
                &*pt.pat,
                ty_of(&pt.ty, &self.type_params, self.errors),
                Some((*pt.ty).clone()),
            ),
            other => (other, None, None),
        };
        let (name, mutable) = match pat {
            // `let _ = e;` evaluates `e` and drops its value.
            syn::Pat::Wild(w) => {
                return match init {
                    Some(init) => Some(Stmt {
                        kind: StmtKind::Expr(init),
                        span,
                    }),
                    None => {
                        if l.init.is_none() {
                            self.errors
                                .at(w, "`let _;` binds nothing: write `let _ = value;`");
                        }
                        None
                    }
                };
            }
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                (p.ident.clone(), p.mutability.is_some())
            }
            other => {
                self.errors.at(other, "kernel `let` bindings are plain names (`let x`, `let mut x`) or tuples of them (`let (a, b)`); other patterns are not supported");
                return None;
            }
        };
        // A call with a `&mut` result (see `Resolver::ref_call`).
        let init = match init {
            Some(e) if self.ref_calls.contains(&name.to_string()) => Some(Expr {
                span: e.span,
                kind: ExprKind::RefCall(Box::new(e)),
            }),
            other => other,
        };
        // The initialiser is resolved before the new name is in scope.
        let local = self.declare(&name);
        // The struct type the source shows, whose `#[kernel]` methods
        // `name.m(..)` calls.
        let shown = native_ty
            .as_ref()
            .and_then(|t| super::user_type(t, &self.type_params))
            .or_else(|| match l.init.as_ref().map(|i| strip_parens(&i.expr)) {
                Some(syn::Expr::Struct(s)) if s.qself.is_none() => super::user_type(
                    &syn::Type::Path(syn::TypePath {
                        qself: None,
                        path: s.path.clone(),
                    }),
                    &self.type_params,
                ),
                _ => None,
            });
        if let Some(t) = shown {
            self.local_types.insert(local, t);
        }
        Some(Stmt {
            kind: StmtKind::Let {
                local,
                name,
                mutable,
                ty,
                native_ty,
                init,
            },
            span,
        })
    }

    pub(super) fn stmt_expr(&mut self, e: &syn::Expr) -> Option<Stmt> {
        let span = e.span();
        let kind = match e {
            syn::Expr::Assign(a) => {
                self.reinterpreted = None;
                let place = self.place(&a.left)?;
                let stored = self.reinterpreted.take();
                let value = self.expr(&a.right)?;
                match (stored, place) {
                    // `w[k] = v` of a reinterpreted view: `v`'s words stored
                    // in the view's elements.
                    (Some((c, _)), Place::Element(_, name, mut k)) if k.len() == 1 => {
                        let k = k.pop()?;
                        StmtKind::Expr(Expr {
                            kind: ExprKind::Call(
                                Builtin::ReinterpretStore,
                                Ident::new("reinterpret_store", span),
                                vec![
                                    Expr {
                                        kind: ExprKind::Capture(c, name),
                                        span,
                                    },
                                    value,
                                    k,
                                ],
                            ),
                            span,
                        })
                    }
                    (Some(_), _) => {
                        self.errors.at(
                            &a.left,
                            "a reinterpreted view is written element by element: `w[k] = v`",
                        );
                        return None;
                    }
                    (None, place) => StmtKind::Assign(place, None, value),
                }
            }
            syn::Expr::Binary(b) if matches!(bin_op(&b.op), Some((_, true))) => {
                let (op, _) = bin_op(&b.op)?;
                self.reinterpreted = None;
                let place = self.place(&b.left)?;
                if self.reinterpreted.take().is_some() {
                    self.errors.at(
                        &b.left,
                        "compound assignment to a reinterpreted view: write `w[k] = w[k] + v`",
                    );
                    return None;
                }
                StmtKind::Assign(place, Some(op), self.expr(&b.right)?)
            }
            syn::Expr::If(i) => {
                let cond = self.expr(&i.cond);
                let then = self.block(&unit_body(&i.then_branch));
                let els = i.else_branch.as_ref().map(|(_, e)| self.else_block(e));
                StmtKind::If(cond?, then, els)
            }
            syn::Expr::While(w) => {
                if let Some(l) = &w.label {
                    self.errors.at(l, "loop labels are not supported in kernels: WGSL has no labelled `break` or `continue`; use a flag variable");
                }
                let cond = self.expr(&w.cond);
                let body = self.block(&unit_body(&w.body));
                StmtKind::While(cond?, body)
            }
            syn::Expr::Loop(l) => {
                if let Some(l) = &l.label {
                    self.errors.at(l, "loop labels are not supported in kernels: WGSL has no labelled `break` or `continue`; use a flag variable");
                }
                StmtKind::Loop(self.block(&unit_body(&l.body)))
            }
            syn::Expr::ForLoop(f) => return self.for_loop(f),
            syn::Expr::MethodCall(m) if self.barrier_call(m).is_some() => {
                if !m.args.is_empty() {
                    self.errors.at(&m.args, "tile barriers take no arguments");
                }
                StmtKind::Barrier(self.barrier_call(m)?, m.paren_token.span.close())
            }
            syn::Expr::Match(m) => {
                let e = self.match_expr(m, true)?;
                let ExprKind::Block(block) = e.kind else {
                    return None;
                };
                // A block statement, as `if true { .. }`.
                StmtKind::If(
                    Expr {
                        kind: ExprKind::Lit(Lit::Bool(true), None),
                        span,
                    },
                    block,
                    None,
                )
            }
            syn::Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    self.errors.at(b, "`break` in a kernel takes no label and no value: WGSL loops have neither; use a flag or a `let mut` declared before the loop");
                }
                StmtKind::Break
            }
            syn::Expr::Continue(c) => {
                if c.label.is_some() {
                    self.errors.at(c, "`continue` in a kernel takes no label");
                }
                StmtKind::Continue
            }
            syn::Expr::Return(r) => match &r.expr {
                Some(v) if self.function => StmtKind::Return(Some(self.expr(v)?)),
                Some(v) => {
                    self.errors
                        .at(v, "a kernel returns nothing: `return;` ends this work item");
                    StmtKind::Return(None)
                }
                None => StmtKind::Return(None),
            },
            syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                let block = self.block(&unit_body(&b.block));
                StmtKind::If(
                    Expr {
                        kind: ExprKind::Lit(Lit::Bool(true), None),
                        span,
                    },
                    block,
                    None,
                )
            }
            other => StmtKind::Expr(self.expr(other)?),
        };
        Some(Stmt { kind, span })
    }

    fn else_block(&mut self, e: &syn::Expr) -> Block {
        match e {
            syn::Expr::Block(b) => self.block(&unit_body(&b.block)),
            syn::Expr::If(_) => {
                let stmt = self.stmt_expr(e);
                Block {
                    stmts: stmt.into_iter().collect(),
                    tail: None,
                }
            }
            other => {
                self.errors.at(other, "expected a block");
                Block::default()
            }
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Option<Stmt> {
        let span = f.span();
        let mut unroll = false;
        for a in &f.attrs {
            if a.path().is_ident("unroll") && matches!(a.meta, syn::Meta::Path(_)) {
                unroll = true;
            } else {
                self.errors.at(a, "the only attribute a kernel `for` loop takes is `#[unroll]` (unroll the loop fully; its range must be constant)");
            }
        }
        if let Some(l) = &f.label {
            self.errors.at(l, "loop labels are not supported in kernels: WGSL has no labelled `break` or `continue`; use a flag variable");
        }
        let name = match &*f.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            syn::Pat::Wild(w) => Ident::new("_", w.span()),
            other => {
                self.errors
                    .at(other, "a kernel `for` loop binds one plain name");
                return None;
            }
        };
        // `a..b`, `a..=b`, `(a..b).step_by(s)`, each optionally `.rev()`.
        let (iter, reverse) = match strip_parens(&f.expr) {
            syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                (strip_parens(&m.receiver), true)
            }
            other => (other, false),
        };
        if let syn::Expr::MethodCall(m) = iter
            && m.method == "step_by"
            && matches!(strip_parens(&m.receiver), syn::Expr::MethodCall(r) if r.method == "rev")
        {
            self.errors.at(
                m,
                "write `(a..b).step_by(s).rev()` (the forward steps, last first): `.rev().step_by(s)` is not supported in kernels",
            );
            return None;
        }
        let (range, step) = match iter {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let step = strip_usize_cast(&m.args[0]);
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) = strip_parens(step)
                    && i.base10_parse::<u128>().is_ok_and(|v| v == 0)
                {
                    self.errors.at(
                        &m.args[0],
                        "`step_by(0)` never advances (Rust panics on it): a kernel `for` loop needs a step of at least 1; a step that is 0 at run time skips the loop on every accelerator",
                    );
                    return None;
                }
                (strip_parens(&m.receiver), Some(step))
            }
            other => (strip_parens(other), None),
        };
        let syn::Expr::Range(r) = range else {
            self.errors.at(
                &f.expr,
                "kernel `for` loops iterate over integer ranges only: `a..b`, `a..=b` or `(a..b).step_by(s)`, optionally followed by `.rev()` (no iterators over collections)",
            );
            return None;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.errors
                .at(r, "a kernel `for` range needs both ends: `a..b`");
            return None;
        };
        if let Some(bound) = [start, end].into_iter().find(|b| is_float_literal(b)) {
            self.errors.at(bound, "kernel `for` loops iterate over integer ranges only (a float range is not an iterator in Rust either); use `while` for a float counter");
        }
        let start = self.expr(start);
        let end = self.expr(end);
        let step = step.and_then(|s| self.expr(s));
        self.scopes.push(Vec::new());
        let var = self.declare(&name);
        let body = self.block(&unit_body(&f.body));
        self.scopes.pop();
        Some(Stmt {
            kind: StmtKind::For {
                var,
                name,
                start: start?,
                end: end?,
                inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                step,
                body,
                unroll,
                reverse,
            },
            span,
        })
    }
}

/// Whether `e` is a float literal such as `1.0`, `-0.5` or `2f32`.
fn is_float_literal(e: &syn::Expr) -> bool {
    match strip_parens(e) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(_),
            ..
        }) => true,
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => matches!(i.suffix(), "f32" | "f64"),
        syn::Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => is_float_literal(&u.expr),
        _ => false,
    }
}

/// Whether a block-final expression without `;` is a statement (its value
/// is `()`).
fn is_statement_like(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::If(i) => i.else_branch.is_none() || block_is_unit(&i.then_branch),
        syn::Expr::While(_) | syn::Expr::ForLoop(_) | syn::Expr::Loop(_) => true,
        syn::Expr::Assign(_)
        | syn::Expr::Return(_)
        | syn::Expr::Break(_)
        | syn::Expr::Continue(_) => true,
        syn::Expr::Binary(b) => matches!(bin_op(&b.op), Some((_, true))),
        syn::Expr::Match(m) => m.arms.iter().all(|a| match &*a.body {
            syn::Expr::Block(b) => block_is_unit(&b.block),
            other => is_statement_like(other),
        }),
        _ => false,
    }
}

fn block_is_unit(b: &syn::Block) -> bool {
    match b.stmts.last() {
        None => true,
        Some(syn::Stmt::Expr(e, None)) => is_statement_like(e),
        Some(_) => true,
    }
}
