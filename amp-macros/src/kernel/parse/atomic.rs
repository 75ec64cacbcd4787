//! Atomic functions (`atomic_fetch_add(&a[i], v)`, ...,
//! `atomic_compare_exchange`): the element they apply to (of a captured
//! view or a `tile_static` array) and their arguments, resolved into an
//! `ExprKind::Atomic` that check validates and expand lowers. Their names
//! are in `builtin`; `call` dispatches to them.

use syn::spanned::Spanned;

use super::super::ast::*;
use super::place::IndexBase;
use super::{Binding, Resolver, strip_parens, zero};

impl Resolver<'_> {
    /// A call of an atomic function: `&a[i]` (an element of a captured
    /// view or of a `tile_static` array) first, then for
    /// `atomic_compare_exchange` `&mut expected` (a local), then values.
    pub(super) fn atomic(
        &mut self,
        c: &syn::ExprCall,
        path: &syn::ExprPath,
        name: &str,
        op: AtomicOp,
        arity: usize,
    ) -> Option<Expr> {
        if c.args.len() != arity {
            let form = match arity {
                1 => format!("`{name}(&a[idx])`"),
                3 => format!("`{name}(&a[idx], &mut expected, value)`"),
                _ => format!("`{name}(&a[idx], value)`"),
            };
            self.errors.at(
                c,
                format!(
                    "`{name}` takes {arity} argument{}: {form}",
                    if arity == 1 { "" } else { "s" }
                ),
            );
            return None;
        }
        let place_error = format!(
            "the first argument of `{name}` is the element it applies to, `&a[idx]`: an element of a captured view or array, or of a tile_static array (C++ AMP atomics apply to global and tile_static memory)"
        );
        let syn::Expr::Reference(r) = strip_parens(&c.args[0]) else {
            self.errors.at(&c.args[0], place_error);
            return None;
        };
        // `&count` of a tile_static scalar.
        if let syn::Expr::Path(p) = strip_parens(&r.expr)
            && let Some(n) = self.path_ident(p)
            && let Some(Binding::TileScalar(id)) = self.lookup(&n.to_string())
        {
            let target = Place::TileElement(id, n, vec![zero(p.span())]);
            return self.atomic_rest(c, path, op, arity, target);
        }
        if !matches!(strip_parens(&r.expr), syn::Expr::Index(_)) {
            self.errors.at(&c.args[0], place_error);
            return None;
        }
        let (base, idx) = self.index_chain(&r.expr)?;
        if self.reinterpreted.take().is_some() {
            self.errors.at(
                &c.args[0],
                "atomics on a view reinterpreted in the kernel are not supported: make the view with reinterpret_as on the host",
            );
            return None;
        }
        let target = match base {
            IndexBase::Capture(cap, n) => {
                self.check_writable(cap, &n)?;
                Place::Element(cap, n, idx)
            }
            IndexBase::TileStatic(id, n) => Place::TileElement(id, n, idx),
            IndexBase::Local(..) | IndexBase::KernelIndex(_) | IndexBase::Const(_) => {
                self.errors.at(&c.args[0], place_error);
                return None;
            }
        };
        self.atomic_rest(c, path, op, arity, target)
    }

    /// The rest of an atomic call, after its element `target`.
    fn atomic_rest(
        &mut self,
        c: &syn::ExprCall,
        path: &syn::ExprPath,
        op: AtomicOp,
        arity: usize,
        target: Place,
    ) -> Option<Expr> {
        let span = c.span();
        let mut rest = c.args.iter().skip(1);
        let expected = if op == AtomicOp::CompareExchange {
            let arg = rest.next().expect("three arguments");
            let local = match strip_parens(arg) {
                syn::Expr::Reference(r) if r.mutability.is_some() => match strip_parens(&r.expr) {
                    syn::Expr::Path(p) => {
                        self.path_ident(p)
                            .and_then(|n| match self.lookup(&n.to_string()) {
                                Some(Binding::Local(id, alias)) => Some((id, alias.unwrap_or(n))),
                                _ => None,
                            })
                    }
                    _ => None,
                },
                _ => None,
            };
            let Some((id, n)) = local else {
                self.errors.at(
                    arg,
                    "the second argument of `atomic_compare_exchange` is `&mut expected`, a `let mut` local of the kernel: it receives the element's value when the exchange fails",
                );
                return None;
            };
            let old = self.next_local;
            self.next_local += 2;
            Some((id, n, old, old + 1))
        } else {
            None
        };
        let args: Vec<Expr> = rest.filter_map(|a| self.expr(a)).collect();
        if args.len() + 1 + usize::from(expected.is_some()) != arity {
            return None;
        }
        Some(Expr {
            kind: ExprKind::Atomic(Box::new(Atomic {
                path: path.clone(),
                op,
                implicit_one: arity == 1,
                target,
                args,
                expected,
            })),
            span,
        })
    }
}
