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
//! - `let s = r;` makes `s` another name for the same place.
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

/// A reference bound by `let` in the block being parsed.
#[derive(Clone)]
pub(crate) struct RefAlias {
    /// The reference's name.
    pub(crate) name: String,
    /// The place it refers to, its index expressions already bound to
    /// hidden locals.
    pub(crate) place: syn::Expr,
    /// `&mut` (else `&`).
    pub(crate) mutable: bool,
}

/// `s` with the uses of `aliases` rewritten (see the module docs); the
/// errors found (an assignment to the reference itself).
pub(crate) fn substitute(s: &syn::Stmt, aliases: &[RefAlias]) -> (syn::Stmt, Vec<syn::Error>) {
    let mut s = s.clone();
    if aliases.is_empty() {
        return (s, Vec::new());
    }
    let mut v = Substitute {
        aliases,
        shadowed: Vec::new(),
        errors: Vec::new(),
    };
    v.visit_stmt_mut(&mut s);
    (s, v.errors)
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
    /// Names bound again inside the statement (shadowing the references).
    shadowed: Vec<String>,
    errors: Vec<syn::Error>,
}

impl Substitute<'_> {
    fn alias(&self, e: &syn::Expr) -> Option<RefAlias> {
        let name = name_of(strip(e))?;
        if self.shadowed.contains(&name) {
            return None;
        }
        self.aliases.iter().rev().find(|a| a.name == name).cloned()
    }

    /// The place, parenthesised, with the span of the use it replaces.
    fn place(a: &RefAlias, span: Span) -> syn::Expr {
        let place = &a.place;
        syn::parse_quote_spanned!(span=> (#place))
    }
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let span = e.span();
        match e {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                if let Some(a) = self.alias(&u.expr) {
                    *e = Self::place(&a, span);
                    return;
                }
            }
            syn::Expr::Call(c) => {
                for arg in c.args.iter_mut() {
                    match self.alias(arg) {
                        Some(a) => {
                            let (place, span) = (&a.place, arg.span());
                            *arg = if a.mutable {
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
                self.visit_expr_mut(&mut f.expr);
                let saved = self.shadowed.len();
                self.shadowed.extend(pat_names(&f.pat));
                self.visit_block_mut(&mut f.body);
                self.shadowed.truncate(saved);
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let saved = self.shadowed.len();
        self.shadowed.extend(pat_names(&arm.pat));
        if let Some((_, guard)) = &mut arm.guard {
            self.visit_expr_mut(guard);
        }
        self.visit_expr_mut(&mut arm.body);
        self.shadowed.truncate(saved);
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let saved = self.shadowed.len();
        for s in &mut b.stmts {
            self.visit_stmt_mut(s);
            if let syn::Stmt::Local(l) = s {
                self.shadowed.extend(pat_names(&l.pat));
            }
        }
        self.shadowed.truncate(saved);
    }
}
