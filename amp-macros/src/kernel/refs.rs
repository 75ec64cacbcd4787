//! References bound by `let` in kernels (`let r = &mut a[i];`), C++ AMP's
//! `T& r = a[i];` in `restrict(amp)` code.
//!
//! Accelerators have no pointers to a work item's elements of views or
//! `tile_static` memory that a function could keep (WGSL pointers to
//! storage and workgroup memory cannot be stored or passed without an
//! extension), so a reference is resolved where it is written: the front
//! end binds the place's index expressions to hidden locals at the `let`
//! (each evaluated once, there, as Rust evaluates them) and then rewrites
//! every later use in the block on the syntax tree, before the rest of the
//! parse stage sees it:
//!
//! - `*r` becomes the place (`a[__amp_i1]`), read or written;
//! - `r` passed to a function (`f(r)`, `atomic_fetch_add(r, 1)`) becomes
//!   `&mut place` (`&place` for a shared reference), which the existing
//!   rules for `&mut` arguments then handle (elements copied in and out,
//!   atomics on the element itself);
//! - `r` elsewhere (`r.abs()`, `r[k]`, `r.x`) becomes the place, as
//!   Rust's auto-dereference reads it;
//! - `let s = r;` makes `s` another name for the same place;
//! - a call passing a reference chosen at run time (`f(r)` with `let r =
//!   if c { &mut a } else { &mut b };`, a function's `&mut` result, or
//!   `f(if c { &mut a } else { r })` written in the call) becomes a choice
//!   among calls, one per place (`expand_choice`): accelerators cannot
//!   pass a pointer chosen at run time;
//! - `let r; r = &place;` binds `r` at that first assignment
//!   (`deferred_reference`).
//!
//! Reads and writes through the reference therefore reach the element
//! itself, not a copy: a write through `r` is seen by a later read of
//! `a[i]` and the other way round, which is what a reference means. Both
//! the GPU and the CPU forms are built from the rewritten tree. A name
//! bound again by a later `let`, a `for` pattern or a `match` arm shadows
//! the reference from there on, as in Rust.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::parse::is_compound_assign;

/// A reference bound by `let` in the block being parsed.
#[derive(Clone)]
pub(crate) struct RefAlias {
    /// The reference's name.
    pub(crate) name: String,
    /// What it refers to.
    pub(crate) target: Target,
    /// `&mut` (else `&`).
    pub(crate) mutable: bool,
    /// A name of the target bound again since the reference was made (`let
    /// r = &mut x; let x = ..;`): the reference names its place, so a use
    /// after that would refer to the new binding. Uses are refused.
    pub(crate) shadowed: Option<String>,
}

/// The names a reference's target uses (its variables; the hidden locals of
/// its indices included): a later binding of one of them shadows the
/// target.
pub(crate) fn target_names(t: &Target) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'a> syn::visit::Visit<'a> for Names {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                self.0.push(i.to_string());
            }
        }
    }
    let mut names = Names(Vec::new());
    match t {
        Target::Place(e) => syn::visit::Visit::visit_expr(&mut names, e),
        Target::Select {
            selector,
            candidates,
        } => {
            names.0.push(selector.to_string());
            for (_, e) in candidates {
                syn::visit::Visit::visit_expr(&mut names, e);
            }
        }
    }
    names.0
}

/// Marks the references of `aliases` whose targets use one of `names`
/// (bound again by a `let`) as shadowed. The front end's hidden locals
/// (`__amp_*`, bound by the statements that make a reference) are not the
/// user's to shadow.
pub(crate) fn shadow_targets(aliases: &mut [RefAlias], names: &[String]) {
    for a in aliases.iter_mut().filter(|a| a.shadowed.is_none()) {
        a.shadowed = target_names(&a.target)
            .into_iter()
            .find(|n| names.contains(n) && !n.starts_with("__amp_"));
    }
}

/// What a reference refers to.
#[derive(Clone)]
pub(crate) enum Target {
    /// One place, its index expressions already bound to hidden locals.
    Place(syn::Expr),
    /// The result of a `#[kernel]` function with a `&mut` result
    /// (`let r = larger(&mut x, &mut a[i]);`): the local holding the
    /// position of the parameter it refers to, and the place passed at
    /// each position that takes `&mut`.
    Select {
        selector: syn::Ident,
        candidates: Vec<(u32, syn::Expr)>,
    },
}

/// `s` with the uses of `aliases` rewritten (see the module docs); the
/// errors found (an assignment to the reference itself).
pub(crate) fn substitute(s: &syn::Stmt, aliases: &[RefAlias]) -> (syn::Stmt, Vec<syn::Error>) {
    let mut s = s.clone();
    let mut v = Substitute {
        aliases,
        shadowed: Vec::new(),
        errors: Vec::new(),
        shadowed_uses: std::cell::RefCell::new(Vec::new()),
    };
    v.visit_stmt_mut(&mut s);
    let mut errors = v.errors;
    // One error per use (a use can be looked at more than once).
    let mut seen: Vec<String> = Vec::new();
    for (name, target, span) in v.shadowed_uses.into_inner() {
        let key = format!("{name} {target} {span:?}");
        if !seen.contains(&key) {
            seen.push(key);
            errors.push(syn::Error::new(
                span,
                format!("`{name}` refers to `{target}`, and `{target}` is bound again before this use: a reference in a kernel names its place, so it would refer to the new `{target}`; rename the new binding"),
            ));
        }
    }
    (s, errors)
}

/// The names a pattern binds.
pub(crate) fn pat_names(p: &syn::Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'a> syn::visit::Visit<'a> for Names {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut n = Names(Vec::new());
    syn::visit::Visit::visit_pat(&mut n, p);
    n.0
}

/// `let name = &mut place;` / `let name = &place;` (with or without a
/// reference type written): the name, whether it was declared `mut`, the
/// reference expression. `None` for any other statement.
pub(crate) fn reference_let(s: &syn::Stmt) -> Option<(&syn::PatIdent, &syn::ExprReference)> {
    let syn::Stmt::Local(l) = s else {
        return None;
    };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let pat = match &l.pat {
        syn::Pat::Type(pt) if matches!(&*pt.ty, syn::Type::Reference(_)) => &*pt.pat,
        syn::Pat::Type(_) => return None,
        other => other,
    };
    let syn::Pat::Ident(p) = pat else {
        return None;
    };
    if p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    match strip(&init.expr) {
        syn::Expr::Reference(r) => Some((p, r)),
        _ => None,
    }
}

/// `let r = if c { &mut a } else { &mut b };` (or `&`, with `else if`
/// arms): a reference chosen at run time, each arm's value a reference
/// and nothing else.
pub(crate) fn conditional_reference_let(s: &syn::Stmt) -> Option<(&syn::PatIdent, &syn::ExprIf)> {
    let syn::Stmt::Local(l) = s else {
        return None;
    };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let pat = match &l.pat {
        syn::Pat::Type(pt) if matches!(&*pt.ty, syn::Type::Reference(_)) => &*pt.pat,
        syn::Pat::Type(_) => return None,
        other => other,
    };
    let syn::Pat::Ident(p) = pat else {
        return None;
    };
    if p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let syn::Expr::If(e) = strip(&init.expr) else {
        return None;
    };
    reference_arms(e).map(|_| (p, e))
}

/// The arms of `e` (an `if` whose every arm's value is a reference, with
/// `else if` arms), in order: each arm's condition (`None` for the final
/// `else`) and its reference.
pub(crate) fn reference_arms(
    e: &syn::ExprIf,
) -> Option<Vec<(Option<&syn::Expr>, &syn::ExprReference)>> {
    fn arm(b: &syn::Block) -> Option<&syn::ExprReference> {
        match b.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => match strip(e) {
                syn::Expr::Reference(r) => Some(r),
                _ => None,
            },
            _ => None,
        }
    }
    let mut arms = vec![(Some(&*e.cond), arm(&e.then_branch)?)];
    let (_, else_branch) = e.else_branch.as_ref()?;
    match strip(else_branch) {
        syn::Expr::If(inner) => arms.extend(reference_arms(inner)?),
        syn::Expr::Block(b) => arms.push((None, arm(&b.block)?)),
        _ => return None,
    }
    Some(arms)
}

/// `let r;` (or `let r: &T;`) whose first use in `rest` is an assignment
/// of a reference (`r = &place;`, or a choice `r = if c { &a } else { &b
/// };`), a statement of its own: that statement is made the `let` (`let r
/// = &place;`), which then binds the reference as usual, and `true` is
/// returned (the declaration itself goes). Rust initialises a name
/// declared without a value on its first assignment, so nothing reads `r`
/// before it; this is Rust's form of a C++ pointer declared null and
/// pointed at a place later (`const s* ps = 0; ps = &o2;`). `false` for
/// other statements.
pub(crate) fn deferred_reference(
    s: &syn::Stmt,
    rest: &mut std::collections::VecDeque<syn::Stmt>,
) -> bool {
    let syn::Stmt::Local(l) = s else {
        return false;
    };
    if l.init.is_some() {
        return false;
    }
    let pat = match &l.pat {
        syn::Pat::Type(pt) if matches!(&*pt.ty, syn::Type::Reference(_)) => &*pt.pat,
        syn::Pat::Type(_) => return false,
        other => other,
    };
    let syn::Pat::Ident(p) = pat else {
        return false;
    };
    if p.by_ref.is_some() || p.subpat.is_some() {
        return false;
    }
    let name = p.ident.to_string();
    let Some(first) = rest.iter().position(|r| mentions(r, &name)) else {
        return false;
    };
    let syn::Stmt::Expr(syn::Expr::Assign(asg), Some(semi)) = &rest[first] else {
        return false;
    };
    if name_of(strip(&asg.left)).as_deref() != Some(name.as_str()) {
        return false;
    }
    let is_reference = match strip(&asg.right) {
        syn::Expr::Reference(_) => true,
        syn::Expr::If(e) => reference_arms(e).is_some(),
        _ => false,
    };
    if !is_reference || mentions_expr(&asg.right, &name) {
        return false;
    }
    let mut bound = l.clone();
    bound.init = Some(syn::LocalInit {
        eq_token: asg.eq_token,
        expr: asg.right.clone(),
        diverge: None,
    });
    bound.semi_token = *semi;
    rest[first] = syn::Stmt::Local(bound);
    true
}

/// Whether the statement names `name` (as a path of one segment).
fn mentions(s: &syn::Stmt, name: &str) -> bool {
    let mut f = Mentions { name, found: false };
    syn::visit::Visit::visit_stmt(&mut f, s);
    f.found
}

/// Whether the expression names `name` (as a path of one segment).
fn mentions_expr(e: &syn::Expr, name: &str) -> bool {
    let mut f = Mentions { name, found: false };
    syn::visit::Visit::visit_expr(&mut f, e);
    f.found
}

struct Mentions<'n> {
    name: &'n str,
    found: bool,
}

impl<'a> syn::visit::Visit<'a> for Mentions<'_> {
    fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
        if p.qself.is_none() && p.path.is_ident(self.name) {
            self.found = true;
        }
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        // Names in macro arguments (`tile_static!`, a user's macro) count.
        if m.tokens
            .clone()
            .into_iter()
            .any(|t| matches!(&t, proc_macro2::TokenTree::Ident(i) if i == self.name))
        {
            self.found = true;
        }
    }
}

/// `let name = other;` where `other` is a reference in `aliases`: the
/// new name and the reference it copies.
pub(crate) fn copied_reference<'a>(
    s: &syn::Stmt,
    aliases: &'a [RefAlias],
) -> Option<(syn::Ident, &'a RefAlias)> {
    let syn::Stmt::Local(l) = s else {
        return None;
    };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let syn::Pat::Ident(p) = &l.pat else {
        return None;
    };
    if p.by_ref.is_some() || p.subpat.is_some() || p.mutability.is_some() {
        return None;
    }
    let name = name_of(strip(&init.expr))?;
    let alias = aliases.iter().rev().find(|a| a.name == name)?;
    Some((p.ident.clone(), alias))
}

fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        other => other,
    }
}

fn name_of(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

struct Substitute<'a> {
    aliases: &'a [RefAlias],
    /// Names bound again inside the statement (shadowing the references,
    /// or the names their targets use).
    shadowed: Vec<String>,
    errors: Vec<syn::Error>,
    /// Uses of references whose target is shadowed: the reference, the
    /// shadowed name and the use.
    shadowed_uses: std::cell::RefCell<Vec<(String, String, Span)>>,
}

/// `e` with the root of its place (`r` or `*r` under fields and indices:
/// `r.x`, `(*r).a[k]`) replaced by `root`.
fn with_root(e: &syn::Expr, root: &syn::Expr) -> syn::Expr {
    match e {
        syn::Expr::Paren(p) => with_root(&p.expr, root),
        syn::Expr::Field(f) => {
            let mut f = f.clone();
            *f.base = with_root(&f.base, root);
            syn::Expr::Field(f)
        }
        syn::Expr::Index(ix) => {
            let mut ix = ix.clone();
            *ix.expr = with_root(&ix.expr, root);
            syn::Expr::Index(ix)
        }
        _ => root.clone(),
    }
}

impl Substitute<'_> {
    /// A place under a reference chosen at run time: `r.x`, `(*r).a[k]`,
    /// `r.p.y` where `r` is bound to a selection (`let r = if c { &mut a }
    /// else { &mut b };`, a function's `&mut` result): the reference. The
    /// indices along the way are left to the caller.
    fn selected_root(&self, e: &syn::Expr) -> Option<RefAlias> {
        match strip(e) {
            syn::Expr::Field(f) => self
                .selected(&f.base)
                .or_else(|| self.selected_root(&f.base))
                .or_else(|| {
                    self.alias(&f.base)
                        .filter(|a| matches!(a.target, Target::Select { .. }))
                }),
            syn::Expr::Index(ix) => self
                .selected(&ix.expr)
                .or_else(|| self.selected_root(&ix.expr))
                .or_else(|| {
                    self.alias(&ix.expr)
                        .filter(|a| matches!(a.target, Target::Select { .. }))
                }),
            _ => None,
        }
    }

    /// `r.x = value` / `r.x op= value` under a reference chosen at run
    /// time: the value evaluated once, first, then stored through the place
    /// the selector picks (`left` with its root replaced by each
    /// candidate).
    fn select_store_under(
        a: &RefAlias,
        left: &syn::Expr,
        op: proc_macro2::TokenStream,
        value: &syn::Expr,
        span: Span,
    ) -> syn::Expr {
        let Target::Select {
            selector,
            candidates,
        } = &a.target
        else {
            unreachable!("a selected reference")
        };
        let target = |place: &syn::Expr| -> syn::Expr {
            let root: syn::Expr = syn::parse_quote_spanned!(span=> (#place));
            with_root(left, &root)
        };
        let (last, rest) = candidates.split_last().expect("a candidate");
        let last = target(&last.1);
        let mut store: syn::Expr = syn::parse_quote_spanned!(span=> { #last #op __amp_rv; });
        for (k, place) in rest.iter().rev() {
            let place = target(place);
            store = syn::parse_quote_spanned!(span=>
                if #selector == #k { #place #op __amp_rv; } else #store
            );
        }
        syn::parse_quote_spanned!(span=> {
            let __amp_rv = #value;
            #store
        })
    }

    /// `*r` where `r` is a function's `&mut` result.
    fn selected(&self, e: &syn::Expr) -> Option<RefAlias> {
        match strip(e) {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self
                .alias(&u.expr)
                .filter(|a| matches!(a.target, Target::Select { .. })),
            _ => None,
        }
    }

    fn alias(&self, e: &syn::Expr) -> Option<RefAlias> {
        let name = name_of(strip(e))?;
        if self.shadowed.contains(&name) {
            return None;
        }
        let a = self.aliases.iter().rev().find(|a| a.name == name)?;
        let shadowed = a.shadowed.clone().or_else(|| {
            target_names(&a.target)
                .into_iter()
                .find(|n| self.shadowed.contains(n) && !n.starts_with("__amp_"))
        });
        if let Some(target) = shadowed {
            self.shadowed_uses
                .borrow_mut()
                .push((name, target, e.span()));
            return None;
        }
        Some(a.clone())
    }

    /// The value the reference refers to (parenthesised, with the span of
    /// the use it replaces): the place, or for a function's result the
    /// place its position selects.
    fn place(a: &RefAlias, span: Span) -> syn::Expr {
        match &a.target {
            Target::Place(place) => syn::parse_quote_spanned!(span=> (#place)),
            Target::Select {
                selector,
                candidates,
            } => {
                let (last, rest) = candidates.split_last().expect("a candidate");
                let last = &last.1;
                let mut e: syn::Expr = syn::parse_quote_spanned!(span=> (#last));
                for (k, place) in rest.iter().rev() {
                    e = syn::parse_quote_spanned!(span=>
                        (if #selector == #k { #place } else { #e })
                    );
                }
                e
            }
        }
    }

    /// `*r = value` / `*r op= value` for a function's result: the value
    /// evaluated once, first, then stored to the place the position
    /// selects.
    fn select_store(
        a: &RefAlias,
        op: proc_macro2::TokenStream,
        value: &syn::Expr,
        span: Span,
    ) -> syn::Expr {
        // The whole place is the root (`with_root` replaces it).
        Self::select_store_under(a, &syn::parse_quote!(__amp_root), op, value, span)
    }
}

impl Substitute<'_> {
    /// Visits the index expressions of the place `e` (`r.a[i + k]`), not
    /// its root.
    fn visit_place_indices(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Paren(p) => self.visit_place_indices(&mut p.expr),
            syn::Expr::Field(f) => self.visit_place_indices(&mut f.base),
            syn::Expr::Index(ix) => {
                self.visit_expr_mut(&mut ix.index);
                self.visit_place_indices(&mut ix.expr);
            }
            _ => {}
        }
    }
}

impl Substitute<'_> {
    /// The shared (`&`) reference that the place `e` writes through, if
    /// any: `*r`, `r.x`, `r[k]`, `(*r).a[i]` with `r` bound by `let r =
    /// &place;`.
    fn shared_root(&self, e: &syn::Expr) -> Option<RefAlias> {
        match e {
            syn::Expr::Paren(p) => self.shared_root(&p.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self
                .alias(&u.expr)
                .filter(|a| !a.mutable)
                .or_else(|| self.shared_root(&u.expr)),
            syn::Expr::Field(f) => self.shared_root(&f.base),
            syn::Expr::Index(ix) => self.shared_root(&ix.expr),
            syn::Expr::Path(_) => self.alias(e).filter(|a| !a.mutable),
            _ => None,
        }
    }

    /// Refuses a write through a shared reference, as Rust does (E0594):
    /// the rewrite would otherwise make it a write to the place itself.
    fn refuse_shared_write(&mut self, left: &syn::Expr) {
        // An assignment to the reference itself (`r = ..`) has its own
        // error below.
        if matches!(strip(left), syn::Expr::Path(_)) {
            return;
        }
        if let Some(a) = self.shared_root(left) {
            let name = &a.name;
            self.errors.push(syn::Error::new_spanned(
                left,
                format!("cannot assign through `{name}`, a shared reference (`&`): bind it with `&mut` (`let {name} = &mut ..;`) to write the place it refers to"),
            ));
        }
    }
}

/// The most calls one call becomes when its arguments' references are
/// chosen at run time (the product of the choices' arms).
const MAX_CHOICE_CALLS: usize = 64;

/// Whether evaluating `e` has no effect but its value (no call, method
/// call, assignment or macro): an argument before a choice that
/// `expand_choice` moves after the choice's condition.
fn pure(e: &syn::Expr) -> bool {
    struct Effects(bool);
    impl<'a> syn::visit::Visit<'a> for Effects {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Call(_)
                | syn::Expr::MethodCall(_)
                | syn::Expr::Assign(_)
                | syn::Expr::Macro(_) => self.0 = true,
                syn::Expr::Binary(b) if is_compound_assign(&b.op) => self.0 = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut v = Effects(false);
    syn::visit::Visit::visit_expr(&mut v, e);
    !v.0
}

/// The arms of a choice among references: each arm's condition (`None`
/// for the last) and its reference.
type ChoiceArms = Vec<(Option<syn::Expr>, syn::Expr)>;

impl Substitute<'_> {
    /// A reference argument chosen at run time: a reference bound to a
    /// choice (`let r = if c { &mut a } else { &mut b };`, a function's
    /// `&mut` result), or an `if` whose every arm is a reference (`&mut
    /// x`, `&v`) or a reference bound by `let`. Its arms, in order.
    fn choice_arms(&self, arg: &syn::Expr) -> Option<ChoiceArms> {
        let span = arg.span();
        if let Some(a) = self.bound(arg) {
            let Target::Select {
                selector,
                candidates,
            } = &a.target
            else {
                return None;
            };
            let n = candidates.len();
            return Some(
                candidates
                    .iter()
                    .enumerate()
                    .map(|(i, (k, place))| {
                        let cond =
                            (i + 1 < n).then(|| syn::parse_quote_spanned!(span=> #selector == #k));
                        let value: syn::Expr = if a.mutable {
                            syn::parse_quote_spanned!(span=> &mut (#place))
                        } else {
                            syn::parse_quote_spanned!(span=> &(#place))
                        };
                        (cond, value)
                    })
                    .collect(),
            );
        }
        match strip(arg) {
            syn::Expr::If(e) => self.if_arms(e).map(|arms| self.flatten(arms)),
            _ => None,
        }
    }

    /// The arms of a choice written in a call with the choices its arms
    /// name (references bound to a choice) made arms of their own, under
    /// both conditions, and adjacent arms that pass the same place merged
    /// (`if b { p1f1 } else { p1 }` with `p1` chosen between `av1f1` and
    /// `av1`: two calls, not three). Each condition is still evaluated at
    /// most once, in the same order.
    fn flatten(&self, arms: ChoiceArms) -> ChoiceArms {
        let span = Span::call_site();
        let mut flat: ChoiceArms = Vec::new();
        for (cond, value) in arms {
            // (A condition with effects is not repeated: its arm stays.)
            let inner = self
                .bound(&value)
                .filter(|a| matches!(a.target, Target::Select { .. }))
                .filter(|_| cond.as_ref().is_none_or(pure))
                .and_then(|_| self.choice_arms(&value));
            match inner {
                Some(inner) => {
                    let n = inner.len();
                    for (j, (sub, v)) in inner.into_iter().enumerate() {
                        let both = match (&cond, sub) {
                            (None, sub) => sub,
                            (Some(c), Some(sub)) => {
                                Some(syn::parse_quote_spanned!(span=> (#c) && (#sub)))
                            }
                            // The inner choice's last arm: the outer
                            // condition alone (it held, the others failed).
                            (Some(c), None) => {
                                debug_assert_eq!(j + 1, n);
                                Some(c.clone())
                            }
                        };
                        flat.push((both, v));
                    }
                }
                None => match self.bound(&value) {
                    // A reference bound to one place: that place.
                    Some(RefAlias {
                        target: Target::Place(place),
                        mutable,
                        ..
                    }) => {
                        let value: syn::Expr = if *mutable {
                            syn::parse_quote_spanned!(span=> &mut (#place))
                        } else {
                            syn::parse_quote_spanned!(span=> &(#place))
                        };
                        flat.push((cond, value));
                    }
                    _ => flat.push((cond, value)),
                },
            }
        }
        // The place a reference names, parentheses aside.
        let key = |e: &syn::Expr| match strip(e) {
            syn::Expr::Reference(r) => {
                let place = quote::ToTokens::to_token_stream(strip(&r.expr)).to_string();
                format!(
                    "{}{place}",
                    if r.mutability.is_some() { "&mut " } else { "&" }
                )
            }
            other => quote::ToTokens::to_token_stream(other).to_string(),
        };
        let mut merged: ChoiceArms = Vec::new();
        for (cond, value) in flat {
            if let Some((prev, prev_value)) = merged.last_mut()
                && key(prev_value) == key(&value)
            {
                match (prev.take(), cond) {
                    (Some(a), Some(b)) => {
                        *prev = Some(syn::parse_quote_spanned!(span=> (#a) || (#b)));
                    }
                    // `if a { v } else { v }`: `v`, with `a` still
                    // evaluated where it has effects.
                    (Some(a), None) if !pure(&a) => {
                        *prev = Some(a);
                        merged.push((None, value));
                    }
                    (Some(_) | None, None) => {}
                    (None, Some(_)) => unreachable!("the last arm has no condition"),
                }
                continue;
            }
            merged.push((cond, value));
        }
        merged
    }

    /// The reference bound by `let` that `e` names, without recording a
    /// use (`alias` does).
    fn bound(&self, e: &syn::Expr) -> Option<&RefAlias> {
        let name = name_of(strip(e))?;
        if self.shadowed.contains(&name) {
            return None;
        }
        self.aliases.iter().rev().find(|a| a.name == name)
    }

    /// The arms of an `if` whose every arm's value is a reference or a
    /// reference bound by `let` (with `else if` arms).
    fn if_arms(&self, e: &syn::ExprIf) -> Option<ChoiceArms> {
        let arm = |b: &syn::Block| -> Option<syn::Expr> {
            match b.stmts.as_slice() {
                [syn::Stmt::Expr(v, None)] => match strip(v) {
                    syn::Expr::Reference(_) => Some(v.clone()),
                    other if self.bound(other).is_some() => Some(v.clone()),
                    _ => None,
                },
                _ => None,
            }
        };
        let mut arms = vec![(Some((*e.cond).clone()), arm(&e.then_branch)?)];
        let (_, else_branch) = e.else_branch.as_ref()?;
        match strip(else_branch) {
            syn::Expr::If(inner) => arms.extend(self.if_arms(inner)?),
            syn::Expr::Block(b) => arms.push((None, arm(&b.block)?)),
            _ => return None,
        }
        Some(arms)
    }

    /// A call with an argument whose reference is chosen at run time
    /// (`f(r)` with `let r = if c { &mut a[i] } else { &mut b[i] };`, or
    /// `f(if c { &mut a[i] } else { &mut b[i] }, ..)`), made a choice
    /// among calls: `if c { f(&mut a[i], ..) } else { f(&mut b[i], ..) }`.
    /// Accelerators cannot pass a pointer chosen at run time (WGSL's
    /// pointers to storage and workgroup memory name one variable), so the
    /// choice moves out of the call; each call then passes one place, by
    /// the rules for `&mut` arguments. The condition is evaluated once, as
    /// before; for an `if` written in the call, before the arguments left
    /// of it, which must therefore have no effects (else refused). `None`
    /// for other calls.
    ///
    /// `statement`: the call is a statement of its own (`f(r);`), so each
    /// call is one too (a call used as a value is the `if`'s value).
    fn expand_choice(
        &mut self,
        c: &syn::ExprCall,
        span: Span,
        statement: bool,
    ) -> Option<syn::Expr> {
        let (pos, arms) = c
            .args
            .iter()
            .enumerate()
            .find_map(|(i, a)| self.choice_arms(a).map(|arms| (i, arms)))?;
        let calls: usize = c
            .args
            .iter()
            .map(|a| self.choice_arms(a).map_or(1, |arms| arms.len()))
            .fold(1usize, |n, k| n.saturating_mul(k));
        if calls > MAX_CHOICE_CALLS {
            self.errors.push(syn::Error::new_spanned(
                c,
                format!("this call's references are chosen at run time in {calls} combinations (at most {MAX_CHOICE_CALLS}): each combination becomes a call of its own, since accelerators cannot pass a pointer chosen at run time; choose fewer of them at run time, or pass the values"),
            ));
            return None;
        }
        if matches!(strip(&c.args[pos]), syn::Expr::If(_))
            && let Some(effect) = c.args.iter().take(pos).find(|a| !pure(a))
        {
            self.errors.push(syn::Error::new_spanned(
                effect,
                "an argument chosen at run time (`if .. { &mut a } else { &mut b }`) is decided before the call's other arguments (accelerators cannot pass a pointer chosen at run time, so the choice moves out of the call), and this argument before it has effects: bind the reference first (`let r = if .. { &mut a } else { &mut b };`) and pass `r`",
            ));
            return None;
        }
        let call_with = |v: &syn::Expr| {
            let mut call = c.clone();
            call.args[pos] = v.clone();
            call
        };
        let body = |v: &syn::Expr| -> syn::Block {
            let call = call_with(v);
            if statement {
                syn::parse_quote_spanned!(span=> { #call; })
            } else {
                syn::parse_quote_spanned!(span=> { #call })
            }
        };
        let (last, rest) = arms.split_last()?;
        let last = body(&last.1);
        let mut chain: syn::Expr = syn::parse_quote_spanned!(span=> #last);
        for (cond, v) in rest.iter().rev() {
            let cond = cond.as_ref()?;
            let then = body(v);
            chain = syn::parse_quote_spanned!(span=> if #cond #then else #chain);
        }
        if statement {
            Some(chain)
        } else {
            Some(syn::parse_quote_spanned!(span=> (#chain)))
        }
    }
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let span = e.span();
        match &*e {
            syn::Expr::Assign(asg) => self.refuse_shared_write(&asg.left.clone()),
            syn::Expr::Binary(b) if is_compound_assign(&b.op) => {
                self.refuse_shared_write(&b.left.clone())
            }
            _ => {}
        }
        match e {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                if let Some(a) = self.alias(&u.expr) {
                    *e = Self::place(&a, span);
                    return;
                }
            }
            // `r.x = v`, `(*r).a[k] op= v` under a reference chosen at run
            // time: the indices along the place are visited first.
            syn::Expr::Assign(asg) if self.selected_root(&asg.left).is_some() => {
                let a = self.selected_root(&asg.left).expect("checked");
                self.visit_place_indices(&mut asg.left);
                self.visit_expr_mut(&mut asg.right);
                *e = Self::select_store_under(&a, &asg.left, quote::quote!(=), &asg.right, span);
                return;
            }
            syn::Expr::Binary(b)
                if is_compound_assign(&b.op) && self.selected_root(&b.left).is_some() =>
            {
                let a = self.selected_root(&b.left).expect("checked");
                self.visit_place_indices(&mut b.left);
                self.visit_expr_mut(&mut b.right);
                let op = &b.op;
                *e = Self::select_store_under(&a, &b.left, quote::quote!(#op), &b.right, span);
                return;
            }
            syn::Expr::Assign(asg) if self.selected(&asg.left).is_some() => {
                let a = self.selected(&asg.left).expect("checked");
                self.visit_expr_mut(&mut asg.right);
                *e = Self::select_store(&a, quote::quote!(=), &asg.right, span);
                return;
            }
            syn::Expr::Binary(b)
                if self.selected(&b.left).is_some() && is_compound_assign(&b.op) =>
            {
                let a = self.selected(&b.left).expect("checked");
                self.visit_expr_mut(&mut b.right);
                let op = &b.op;
                *e = Self::select_store(&a, quote::quote!(#op), &b.right, span);
                return;
            }
            syn::Expr::Call(c) => {
                if let Some(expanded) = self.expand_choice(c, span, false) {
                    *e = expanded;
                    self.visit_expr_mut(e);
                    return;
                }
                for arg in c.args.iter_mut() {
                    match self.alias(arg) {
                        // Left by `expand_choice` only when it refused the
                        // call (reported there).
                        Some(RefAlias {
                            target: Target::Select { .. },
                            ..
                        }) => {}
                        Some(RefAlias {
                            target: Target::Place(place),
                            mutable,
                            ..
                        }) => {
                            let span = arg.span();
                            *arg = if mutable {
                                syn::parse_quote_spanned!(span=> &mut #place)
                            } else {
                                syn::parse_quote_spanned!(span=> &#place)
                            };
                        }
                        None => self.visit_expr_mut(arg),
                    }
                }
                self.visit_expr_mut(&mut c.func);
                return;
            }
            syn::Expr::Assign(a) if self.alias(&a.left).is_some() => {
                let name = name_of(strip(&a.left)).unwrap_or_default();
                self.errors.push(syn::Error::new_spanned(
                    &a.left,
                    format!("`{name}` is a reference bound once: assign the value it refers to as `*{name} = ..`"),
                ));
                self.visit_expr_mut(&mut a.right);
                return;
            }
            syn::Expr::Path(_) => {
                if let Some(a) = self.alias(e) {
                    *e = Self::place(&a, span);
                }
                return;
            }
            syn::Expr::ForLoop(f) => {
                visit_for_shadowing(self, f);
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        visit_arm_shadowing(self, arm);
    }

    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        // `f(r);` with `r` chosen at run time: a choice among call
        // statements (see `expand_choice`).
        if let syn::Stmt::Expr(syn::Expr::Call(c), Some(_)) = &*s {
            let span = c.span();
            let errors = self.errors.len();
            if let Some(expanded) = self.expand_choice(c, span, true) {
                *s = syn::Stmt::Expr(expanded, None);
                self.visit_stmt_mut(s);
                return;
            }
            if self.errors.len() > errors {
                // Refused (one error; the statement goes no further).
                return;
            }
        }
        syn::visit_mut::visit_stmt_mut(self, s);
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        visit_block_shadowing(self, b);
    }
}

impl Shadowing for Substitute<'_> {
    fn shadowed(&mut self) -> &mut Vec<String> {
        &mut self.shadowed
    }
}

/// A syntax rewriter that tracks the names bound again inside what it
/// visits (`let` patterns, `for` patterns, `match` arms), which shadow the
/// names it rewrites (references here, closures in `closures`).
pub(crate) trait Shadowing: VisitMut {
    /// The names bound again so far, innermost last.
    fn shadowed(&mut self) -> &mut Vec<String>;
}

/// `for pat in expr { body }`: `expr`, then `body` with `pat`'s names
/// shadowed.
pub(crate) fn visit_for_shadowing<V: Shadowing>(v: &mut V, f: &mut syn::ExprForLoop) {
    v.visit_expr_mut(&mut f.expr);
    let saved = v.shadowed().len();
    v.shadowed().extend(pat_names(&f.pat));
    v.visit_block_mut(&mut f.body);
    v.shadowed().truncate(saved);
}

/// A `match` arm: its guard and body with the pattern's names shadowed.
pub(crate) fn visit_arm_shadowing<V: Shadowing>(v: &mut V, arm: &mut syn::Arm) {
    let saved = v.shadowed().len();
    v.shadowed().extend(pat_names(&arm.pat));
    if let Some((_, guard)) = &mut arm.guard {
        v.visit_expr_mut(guard);
    }
    v.visit_expr_mut(&mut arm.body);
    v.shadowed().truncate(saved);
}

/// A block: each statement, a `let`'s names shadowed after it, until the
/// block ends.
pub(crate) fn visit_block_shadowing<V: Shadowing>(v: &mut V, b: &mut syn::Block) {
    let saved = v.shadowed().len();
    for s in &mut b.stmts {
        v.visit_stmt_mut(s);
        if let syn::Stmt::Local(l) = s {
            v.shadowed().extend(pat_names(&l.pat));
        }
    }
    v.shadowed().truncate(saved);
}

/// `let name = f(args);` (a call of a function by path): the name and the
/// call. Whether `f` returns a reference is told by the uses of `name`
/// ([`dereferenced`]).
pub(crate) fn call_let(s: &syn::Stmt) -> Option<(&syn::PatIdent, &syn::ExprCall)> {
    let syn::Stmt::Local(l) = s else {
        return None;
    };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let syn::Pat::Ident(p) = &l.pat else {
        return None;
    };
    match strip(&init.expr) {
        syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(_)) => Some((p, c)),
        _ => None,
    }
}

/// Whether `*name` occurs in `stmts` (before a statement that binds
/// `name` again): a local that is dereferenced holds a reference.
pub(crate) fn dereferenced<'a>(name: &str, stmts: impl IntoIterator<Item = &'a syn::Stmt>) -> bool {
    struct Find<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'a> syn::visit::Visit<'a> for Find<'_> {
        fn visit_expr_unary(&mut self, u: &'a syn::ExprUnary) {
            if matches!(u.op, syn::UnOp::Deref(_))
                && name_of(strip(&u.expr)).as_deref() == Some(self.name)
            {
                self.found = true;
            }
            syn::visit::visit_expr_unary(self, u);
        }
    }
    for s in stmts {
        let mut f = Find { name, found: false };
        syn::visit::Visit::visit_stmt(&mut f, s);
        if f.found {
            return true;
        }
        if let syn::Stmt::Local(l) = s
            && pat_names(&l.pat).iter().any(|n| n == name)
        {
            return false;
        }
    }
    false
}

/// A statement that dereferences a call's result where it is made
/// (`*f(..) = v;`, `*f(..) += v;`, `let x = *f(..);`), rewritten to bind
/// the call first (`let __amp_rcN = f(..);`), the assigned value before it
/// (Rust evaluates it first); `None` for other statements.
pub(crate) fn lift_deref_call(s: &syn::Stmt, fresh: &mut u32) -> Option<Vec<syn::Stmt>> {
    fn deref_call(e: &syn::Expr) -> Option<&syn::ExprCall> {
        match strip(e) {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => match strip(&u.expr) {
                syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(_)) => Some(c),
                _ => None,
            },
            _ => None,
        }
    }
    let mut next = |prefix: &str, span: Span| {
        *fresh += 1;
        syn::Ident::new(&format!("{prefix}{fresh}"), span)
    };
    match s {
        syn::Stmt::Expr(e, semi) => {
            let (left, right, op): (&syn::Expr, &syn::Expr, proc_macro2::TokenStream) = match e {
                syn::Expr::Assign(a) => (&a.left, &a.right, quote::quote!(=)),
                syn::Expr::Binary(b) if is_compound_assign(&b.op) => {
                    let op = &b.op;
                    (&b.left, &b.right, quote::quote!(#op))
                }
                _ => return None,
            };
            let call = deref_call(left)?;
            let span = e.span();
            let (value, reference) = (next("__amp_rv", span), next("__amp_rc", span));
            Some(vec![
                syn::parse_quote_spanned!(span=> let #value = #right;),
                syn::parse_quote_spanned!(span=> let #reference = #call;),
                syn::Stmt::Expr(
                    syn::parse_quote_spanned!(span=> *#reference #op #value),
                    *semi,
                ),
            ])
        }
        syn::Stmt::Local(l) => {
            let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
            let call = deref_call(&init.expr)?;
            let span = init.expr.span();
            let reference = next("__amp_rc", span);
            let mut l = l.clone();
            if let Some(init) = l.init.as_mut() {
                *init.expr = syn::parse_quote_spanned!(span=> *#reference);
            }
            Some(vec![
                syn::parse_quote_spanned!(span=> let #reference = #call;),
                syn::Stmt::Local(l),
            ])
        }
        _ => None,
    }
}

/// Marks the values a `#[kernel]` function with a `&mut` result returns
/// (its body's value and each `return`'s): a `&mut` parameter there
/// (`a`, or `&mut *a`) becomes `__amp_ref_result!(a, position)`, and each
/// branch of an `if` or `match` there is marked in turn. Anything else
/// returned is an error: the result refers to one of the parameters.
pub(crate) fn mark_ref_results(
    body: &mut syn::Block,
    params: &[(String, u32)],
    errors: &mut Vec<syn::Error>,
) {
    struct Returns<'p> {
        params: &'p [(String, u32)],
        errors: Vec<syn::Error>,
    }
    impl Returns<'_> {
        fn value(&mut self, e: &mut syn::Expr) {
            let param = match strip(e) {
                syn::Expr::Reference(r) if r.mutability.is_some() => match strip(&r.expr) {
                    syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                        name_of(strip(&u.expr))
                    }
                    _ => None,
                },
                other => name_of(other),
            };
            if let Some((name, pos)) = param.and_then(|n| self.params.iter().find(|(p, _)| *p == n))
            {
                let span = e.span();
                let name = syn::Ident::new(name, span);
                *e = syn::parse_quote_spanned!(span=> __amp_ref_result!(#name, #pos));
                return;
            }
            match e {
                syn::Expr::Paren(p) => self.value(&mut p.expr),
                syn::Expr::Block(b) => self.block(&mut b.block),
                syn::Expr::If(i) => {
                    self.block(&mut i.then_branch);
                    match &mut i.else_branch {
                        Some((_, els)) => self.value(els),
                        None => self.errors.push(syn::Error::new_spanned(
                            &*i,
                            "an `if` that gives a `&mut` result needs an `else`",
                        )),
                    }
                }
                syn::Expr::Match(m) => {
                    for arm in &mut m.arms {
                        self.value(&mut arm.body);
                    }
                }
                // Diverges: its own value is marked where it returns.
                syn::Expr::Return(_) => syn::visit_mut::VisitMut::visit_expr_mut(self, e),
                other => {
                    self.errors.push(syn::Error::new_spanned(
                        &*other,
                        "the `&mut` result of a #[kernel] function is one of its `&mut` parameters (`a`, or chosen with `if`/`match`): WGSL functions cannot return pointers, so the caller is told which parameter it is",
                    ));
                    // Reported: the first parameter stands in, so that
                    // the mistake gives one error.
                    if let Some((name, pos)) = self.params.first() {
                        let span = other.span();
                        let name = syn::Ident::new(name, span);
                        *other = syn::parse_quote_spanned!(span=> __amp_ref_result!(#name, #pos));
                    }
                }
            }
        }

        fn block(&mut self, b: &mut syn::Block) {
            let n = b.stmts.len();
            for (k, s) in b.stmts.iter_mut().enumerate() {
                match s {
                    syn::Stmt::Expr(e, None) if k + 1 == n => self.value(e),
                    other => syn::visit_mut::VisitMut::visit_stmt_mut(self, other),
                }
            }
        }
    }
    impl VisitMut for Returns<'_> {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            if let syn::Expr::Return(r) = e {
                match &mut r.expr {
                    Some(v) => self.value(v),
                    None => self.errors.push(syn::Error::new_spanned(
                        &*r,
                        "a #[kernel] function with a `&mut` result returns one of its `&mut` parameters",
                    )),
                }
                return;
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut r = Returns {
        params,
        errors: Vec::new(),
    };
    r.block(body);
    errors.extend(r.errors);
}

#[cfg(test)]
#[path = "refs_tests.rs"]
mod tests;
