//! `match`: lowered in parse to a `let` of the scrutinee and an `if`/`else`
//! chain over the conditions its patterns stand for (integer and bool
//! literals, constants, ranges, `|`, names, `_`), with a native check that
//! keeps rustc's exhaustiveness check of the original patterns. Check and
//! expand see only the lowered blocks.

use proc_macro2::Ident;
use syn::spanned::Spanned;

use super::super::ast::*;
use super::{Binding, Resolver, is_const_name};

impl Resolver<'_> {
    /// `match` on an integer (or `bool`), lowered to `let m = scrutinee;`
    /// and an `if`/`else` chain (rustc checks exhaustiveness, so the last
    /// arm is the final `else`). As a statement (`as_stmt`) the arms are
    /// statements; as an expression they are values.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch, as_stmt: bool) -> Option<Expr> {
        let span = m.span();
        let scrutinee = self.expr(&m.expr)?;
        self.scopes.push(Vec::new());
        let tmp = Ident::new(&format!("__amp_match{}", self.next_local), span);
        let local = self.declare(&tmp);
        let let_stmt = Stmt {
            kind: StmtKind::Let {
                local,
                name: tmp.clone(),
                mutable: false,
                ty: None,
                native_ty: None,
                init: Some(scrutinee),
            },
            span,
        };
        let value = Expr {
            kind: ExprKind::Local(local, tmp.clone()),
            span,
        };
        let mut arms = Vec::new();
        for arm in &m.arms {
            self.scopes.push(Vec::new());
            let mut binds = Vec::new();
            let cond = self.pattern(&arm.pat, &value, &mut binds);
            let guard = arm.guard.as_ref().and_then(|(_, g)| self.expr(g));
            let body = match (&*arm.body, as_stmt) {
                (syn::Expr::Block(b), true) if b.label.is_none() => {
                    self.block(&super::function::unit_body(&b.block))
                }
                (syn::Expr::Block(b), false) if b.label.is_none() => self.block(&b.block),
                (other, true) => Block {
                    stmts: self.stmt_expr(other).into_iter().collect(),
                    tail: None,
                },
                (other, false) => Block {
                    stmts: Vec::new(),
                    tail: self.expr(other).map(Box::new),
                },
            };
            self.scopes.pop();
            let cond = match (cond, guard) {
                (Some(c), Some(g)) => Some(Expr {
                    kind: ExprKind::Binary(BinOp::And, Box::new(c), Box::new(g)),
                    span,
                }),
                (None, Some(g)) => Some(g),
                (c, None) => c,
            };
            let mut body = body;
            body.stmts.splice(0..0, binds);
            arms.push((cond, body));
        }
        self.scopes.pop();
        // Build the chain from the last arm backwards.
        let mut chain: Option<Block> = None;
        for (i, (cond, body)) in arms.into_iter().enumerate().rev() {
            chain = Some(match (chain, cond) {
                (None, _) => body, // the last arm: rustc proved the match exhaustive
                (Some(rest), Some(cond)) if as_stmt => Block {
                    stmts: vec![Stmt {
                        kind: StmtKind::If(cond, body, Some(rest)),
                        span,
                    }],
                    tail: None,
                },
                (Some(rest), Some(cond)) => Block {
                    stmts: Vec::new(),
                    tail: Some(Box::new(Expr {
                        kind: ExprKind::If(Box::new(cond), body, rest),
                        span,
                    })),
                },
                (Some(_), None) => {
                    let _ = i;
                    self.errors.at(
                        m,
                        "a kernel `match` arm that matches everything must be the last arm",
                    );
                    body
                }
            });
        }
        let mut block = chain.unwrap_or_default();
        // rustc checks the exhaustiveness of the original patterns (guarded
        // arms do not count, as in Rust); the lowered `if` chain would hide
        // a missing case.
        let pats: Vec<&syn::Pat> = m
            .arms
            .iter()
            .filter(|a| a.guard.is_none())
            .map(|a| &a.pat)
            .collect();
        let check = Stmt {
            kind: StmtKind::NativeCheck(quote::quote_spanned! {span=>
                #[allow(unreachable_patterns, unused_variables, clippy::all)]
                match #tmp { #(#pats => {})* }
            }),
            span,
        };
        block.stmts.insert(0, check);
        block.stmts.insert(0, let_stmt);
        Some(Expr {
            kind: ExprKind::Block(block),
            span,
        })
    }

    /// The condition under which `pat` matches `value` (`None`: always),
    /// pushing `let` statements for the names it binds.
    fn pattern(&mut self, pat: &syn::Pat, value: &Expr, binds: &mut Vec<Stmt>) -> Option<Expr> {
        let span = pat.span();
        let eq = |this: &mut Self, e: &syn::Expr| -> Option<Expr> {
            let rhs = this.expr(e)?;
            Some(Expr {
                kind: ExprKind::Binary(BinOp::Eq, Box::new(value.clone()), Box::new(rhs)),
                span,
            })
        };
        match pat {
            syn::Pat::Wild(_) => None,
            syn::Pat::Lit(l) => {
                // `-5` in a pattern is one literal token; kernels see `-(5)`.
                let negative = match &l.lit {
                    syn::Lit::Int(i) => i.base10_digits().strip_prefix('-').map(|d| {
                        syn::Lit::Int(syn::LitInt::new(&format!("{d}{}", i.suffix()), i.span()))
                    }),
                    syn::Lit::Float(f) => f.base10_digits().strip_prefix('-').map(|d| {
                        syn::Lit::Float(syn::LitFloat::new(&format!("{d}{}", f.suffix()), f.span()))
                    }),
                    _ => None,
                };
                match negative {
                    Some(lit) => {
                        let e: syn::Expr = syn::parse_quote_spanned!(span=> -#lit);
                        eq(self, &e)
                    }
                    None => eq(self, &syn::Expr::Lit(l.clone())),
                }
            }
            syn::Pat::Path(p) => eq(self, &syn::Expr::Path(p.clone())),
            syn::Pat::Paren(p) => self.pattern(&p.pat, value, binds),
            syn::Pat::Or(o) => {
                let mut acc: Option<Expr> = None;
                for case in &o.cases {
                    let c = self.pattern(case, value, binds)?;
                    acc = Some(match acc {
                        None => c,
                        Some(a) => Expr {
                            kind: ExprKind::Binary(BinOp::Or, Box::new(a), Box::new(c)),
                            span,
                        },
                    });
                }
                acc
            }
            syn::Pat::Range(r) => {
                let lo = r.start.as_ref().and_then(|s| self.expr(s)).map(|lo| Expr {
                    kind: ExprKind::Binary(BinOp::Ge, Box::new(value.clone()), Box::new(lo)),
                    span,
                });
                let op = match r.limits {
                    syn::RangeLimits::Closed(_) => BinOp::Le,
                    syn::RangeLimits::HalfOpen(_) => BinOp::Lt,
                };
                let hi = r.end.as_ref().and_then(|e| self.expr(e)).map(|hi| Expr {
                    kind: ExprKind::Binary(op, Box::new(value.clone()), Box::new(hi)),
                    span,
                });
                match (lo, hi) {
                    (Some(a), Some(b)) => Some(Expr {
                        kind: ExprKind::Binary(BinOp::And, Box::new(a), Box::new(b)),
                        span,
                    }),
                    (a, b) => a.or(b),
                }
            }
            syn::Pat::Ident(p)
                if p.by_ref.is_none() && p.subpat.is_none() && p.mutability.is_none() =>
            {
                if is_const_name(&p.ident.to_string()) {
                    // `LIMIT =>` compares with the constant, as in Rust.
                    let e: syn::Expr = syn::Expr::Path(syn::ExprPath {
                        attrs: Vec::new(),
                        qself: None,
                        path: p.ident.clone().into(),
                    });
                    return eq(self, &e);
                }
                // The name is the scrutinee under another name.
                let _ = &binds;
                if let ExprKind::Local(id, tmp) = &value.kind {
                    self.scopes
                        .last_mut()
                        .expect("a scope")
                        .push((p.ident.to_string(), Binding::Local(*id, Some(tmp.clone()))));
                }
                None
            }
            other => {
                self.errors.at(
                    other,
                    "kernel `match` patterns are integer or bool literals, constants, ranges, `|`, a name or `_`",
                );
                // Not "always matches": that would report a catch-all arm
                // that is not last.
                Some(Expr {
                    kind: ExprKind::Lit(Lit::Bool(false), None),
                    span,
                })
            }
        }
    }
}
