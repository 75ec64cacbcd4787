//! Closures in kernels (C++ AMP's lambdas in `restrict(amp)` code),
//! inlined where they are called.
//!
//! Accelerators have no function pointers, so a closure is not a value in
//! a kernel: the front end rewrites each call of one into a block before
//! the rest of the parse stage sees it, on the syntax tree, as `refs` does
//! for references:
//!
//! - `(|x: i32, r: &mut f32| body)(a, &mut y)` written where it is called
//!   becomes `{ let __amp_c1 = a; let x: i32 = __amp_c1; let r = &mut y;
//!   body }`: the arguments evaluated first, in order, as Rust evaluates
//!   them, then bound to the parameters; a `&mut` (or `&`) parameter is a
//!   reference to the argument's place (`&mut *p` for a reference passed
//!   on), which `refs` then resolves like any `let r = &mut ..;`;
//! - `let f = |x| x * k;` binds the closure (no code), and each later call
//!   `f(a)` in the block is rewritten the same way. Its body's names mean
//!   what they meant where the closure was written: a call after one of
//!   them is bound again (`let k = ..;` between the closure and the call)
//!   is refused, and so is a use of `f` other than a call.
//!
//! A closure's body may not `return` (that would return from the kernel,
//! not from the closure). Both forms of the kernel are built from the
//! rewritten tree.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::refs::{
    Shadowing, pat_names, visit_arm_shadowing, visit_block_shadowing, visit_for_shadowing,
};

/// A closure bound by `let` in the block being parsed.
#[derive(Clone)]
pub(crate) struct BoundClosure {
    /// The name it is bound to.
    pub(crate) name: String,
    /// The closure.
    pub(crate) closure: syn::ExprClosure,
    /// The names its body uses that it does not bind itself.
    free: Vec<String>,
    /// Those of `free` bound again since the closure was written.
    pub(crate) rebound: Vec<String>,
}

/// `let f = |..| ..;`: the closure and the name it is bound to.
pub(crate) fn closure_let(s: &syn::Stmt) -> Option<BoundClosure> {
    let syn::Stmt::Local(l) = s else {
        return None;
    };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let syn::Expr::Closure(c) = strip(&init.expr) else {
        return None;
    };
    let syn::Pat::Ident(p) = &l.pat else {
        return None;
    };
    let mut bound: Vec<String> = c.inputs.iter().flat_map(pat_names).collect();
    let mut names = Names::default();
    names.visit_expr(&c.body);
    bound.extend(names.bound);
    let free = names
        .used
        .into_iter()
        .filter(|n| !bound.contains(n))
        .collect();
    Some(BoundClosure {
        name: p.ident.to_string(),
        closure: c.clone(),
        free,
        rebound: Vec::new(),
    })
}

/// Marks the closures whose bodies use one of `names` (bound again by a
/// `let` of the block) as changed since they were written.
pub(crate) fn rebind(closures: &mut [BoundClosure], names: &[String]) {
    for c in closures {
        for n in names {
            if c.free.contains(n) && !c.rebound.contains(n) {
                c.rebound.push(n.clone());
            }
        }
    }
}

/// Inlines the calls in `c`'s body of the closures bound before it (its
/// body's names mean what they meant where it was written: not `c` itself,
/// which is not in scope in its own `let`, and an earlier closure of the
/// same name is the one it calls); the errors found.
pub(crate) fn prepare(
    c: &mut BoundClosure,
    closures: &[BoundClosure],
    fresh: &mut u32,
) -> Vec<syn::Error> {
    let mut v = Inline {
        closures,
        shadowed: Vec::new(),
        errors: Vec::new(),
        fresh,
    };
    for p in &c.closure.inputs {
        v.shadowed.extend(pat_names(p));
    }
    v.visit_expr_mut(&mut c.closure.body);
    v.errors
}

/// `s` with every call of a closure inlined (see the module docs), and the
/// errors found.
pub(crate) fn inline(
    s: &syn::Stmt,
    closures: &[BoundClosure],
    fresh: &mut u32,
) -> (syn::Stmt, Vec<syn::Error>) {
    let mut s = s.clone();
    let mut v = Inline {
        closures,
        shadowed: Vec::new(),
        errors: Vec::new(),
        fresh,
    };
    v.visit_stmt_mut(&mut s);
    (s, v.errors)
}

fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// The single names an expression uses, and those it binds (`let`
/// patterns, closure and `for` patterns, `match` arms).
#[derive(Default)]
struct Names {
    used: Vec<String>,
    bound: Vec<String>,
}

impl syn::visit::Visit<'_> for Names {
    fn visit_expr_path(&mut self, p: &syn::ExprPath) {
        if let Some(i) = p.path.get_ident() {
            self.used.push(i.to_string());
        }
    }
    fn visit_pat(&mut self, p: &syn::Pat) {
        self.bound.extend(pat_names(p));
    }
    fn visit_macro(&mut self, _: &syn::Macro) {}
}

impl Names {
    fn visit_expr(&mut self, e: &syn::Expr) {
        syn::visit::Visit::visit_expr(self, e);
    }
}

/// Whether `e` contains a `return`.
fn returns(e: &syn::Expr) -> bool {
    struct Find(bool);
    impl syn::visit::Visit<'_> for Find {
        fn visit_expr_return(&mut self, _: &syn::ExprReturn) {
            self.0 = true;
        }
        // A closure inside has its own `return`.
        fn visit_expr_closure(&mut self, _: &syn::ExprClosure) {}
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

struct Inline<'a> {
    closures: &'a [BoundClosure],
    /// Names bound again inside the statement.
    shadowed: Vec<String>,
    errors: Vec<syn::Error>,
    fresh: &'a mut u32,
}

impl Inline<'_> {
    /// The closure `e` names, if it is one of the bound closures.
    fn bound(&self, e: &syn::Expr) -> Option<&BoundClosure> {
        let syn::Expr::Path(p) = strip(e) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        if self.shadowed.contains(&name) {
            return None;
        }
        self.closures.iter().rev().find(|c| c.name == name)
    }

    /// The block a call of `c` with `args` becomes.
    fn expand(
        &mut self,
        c: &syn::ExprClosure,
        args: &[syn::Expr],
        span: Span,
    ) -> Option<syn::Expr> {
        if c.inputs.len() != args.len() {
            self.errors.push(syn::Error::new(
                span,
                format!(
                    "this closure takes {} arguments, not {}",
                    c.inputs.len(),
                    args.len()
                ),
            ));
            return None;
        }
        if c.asyncness.is_some() || c.constness.is_some() || c.lifetimes.is_some() {
            self.errors.push(syn::Error::new_spanned(
                c,
                "a closure in a kernel is a plain closure (`|x| ..`, `move |x| ..`)",
            ));
            return None;
        }
        if returns(&c.body) {
            self.errors.push(syn::Error::new_spanned(
                &c.body,
                "a closure in a kernel is inlined where it is called, so `return` in its body would return from the kernel: give the body a value instead (`if c { a } else { b }`)",
            ));
            return None;
        }
        let mut values: Vec<syn::Stmt> = Vec::new();
        let mut binds: Vec<syn::Stmt> = Vec::new();
        for (pat, arg) in c.inputs.iter().zip(args) {
            let (pat, ty) = match pat {
                syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
                other => (other, None),
            };
            match ty {
                // A reference parameter names the argument's place.
                Some(syn::Type::Reference(r)) => {
                    let syn::Pat::Ident(p) = pat else {
                        self.errors.push(syn::Error::new_spanned(
                            pat,
                            "a reference parameter of a closure in a kernel is a name",
                        ));
                        return None;
                    };
                    let ident = &p.ident;
                    let reference: syn::Expr = match strip(arg) {
                        syn::Expr::Reference(_) => arg.clone(),
                        other if r.mutability.is_some() => {
                            syn::parse_quote_spanned!(arg.span()=> &mut *#other)
                        }
                        other => syn::parse_quote_spanned!(arg.span()=> &*#other),
                    };
                    binds.push(syn::parse_quote_spanned!(span=> let #ident = #reference;));
                }
                _ => {
                    *self.fresh += 1;
                    let t = syn::Ident::new(&format!("__amp_c{}", self.fresh), arg.span());
                    values.push(syn::parse_quote_spanned!(arg.span()=> let #t = #arg;));
                    binds.push(match ty {
                        Some(ty) => syn::parse_quote_spanned!(span=> let #pat: #ty = #t;),
                        None => syn::parse_quote_spanned!(span=> let #pat = #t;),
                    });
                }
            }
        }
        // A block body's statements join the parameters' block (so that a
        // body without a value gives a block without one).
        let body: Vec<syn::Stmt> = match strip(&c.body) {
            syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.stmts.clone(),
            other => vec![syn::Stmt::Expr(other.clone(), None)],
        };
        Some(syn::parse_quote_spanned!(span=> {
            #(#values)*
            #(#binds)*
            #(#body)*
        }))
    }
}

impl VisitMut for Inline<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let span = e.span();
        match e {
            syn::Expr::Call(call) => {
                for a in call.args.iter_mut() {
                    self.visit_expr_mut(a);
                }
                let args: Vec<syn::Expr> = call.args.iter().cloned().collect();
                // A closure written here has its calls inlined now; a bound
                // one had them inlined where it was written (`prepare`).
                let closure = match strip(&call.func) {
                    syn::Expr::Closure(c) => {
                        let mut c = c.clone();
                        let saved = self.shadowed.len();
                        for p in &c.inputs {
                            self.shadowed.extend(pat_names(p));
                        }
                        self.visit_expr_mut(&mut c.body);
                        self.shadowed.truncate(saved);
                        Some(c)
                    }
                    f => match self.bound(f) {
                        Some(b) if !b.rebound.is_empty() => {
                            let (name, n) = (&b.name, &b.rebound[0]);
                            self.errors.push(syn::Error::new(
                                span,
                                format!("the closure `{name}` uses `{n}`, which is bound again between the closure and this call: the call would see the new `{n}`; rename the new binding"),
                            ));
                            return;
                        }
                        Some(b) => Some(b.closure.clone()),
                        None => None,
                    },
                };
                match closure {
                    Some(c) => {
                        if let Some(block) = self.expand(&c, &args, span) {
                            *e = block;
                        }
                    }
                    None => self.visit_expr_mut(&mut call.func),
                }
                return;
            }
            syn::Expr::Path(_) => {
                if let Some(b) = self.bound(e) {
                    let name = b.name.clone();
                    self.errors.push(syn::Error::new(
                        span,
                        format!("`{name}` is a closure: in a kernel a closure can only be called (`{name}(..)`), where it is inlined; accelerators have no function pointers"),
                    ));
                }
                return;
            }
            syn::Expr::ForLoop(f) => {
                visit_for_shadowing(self, f);
                return;
            }
            syn::Expr::Closure(c) => {
                let saved = self.shadowed.len();
                for p in &c.inputs {
                    self.shadowed.extend(pat_names(p));
                }
                self.visit_expr_mut(&mut c.body);
                self.shadowed.truncate(saved);
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        visit_arm_shadowing(self, arm);
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        visit_block_shadowing(self, b);
    }

    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

impl Shadowing for Inline<'_> {
    fn shadowed(&mut self) -> &mut Vec<String> {
        &mut self.shadowed
    }
}

#[cfg(test)]
#[path = "closures_tests.rs"]
mod tests;
