//! Expressions: literals (a fresh variable of their kind when
//! unsuffixed), operators, casts, indices, arrays, vectors, structs and
//! tuples, `if` and blocks; every expression's term recorded for the
//! write-back.

use super::solver::{Kind, Term};
use super::{Checker, boolt, i32t, mismatch, type_error};
use crate::Result;
use crate::ir::*;

impl Checker<'_> {
    /// The term of a literal.
    fn lit(&mut self, l: &Lit) -> Term {
        match l {
            Lit::Int(_, Some(s)) | Lit::Float(_, Some(s)) => Term::Known(Type::Scalar(*s)),
            Lit::Int(_, None) => {
                let t = self.solver.fresh(Kind::Int);
                self.literals.push(t.clone());
                t
            }
            Lit::Float(_, None) => {
                let t = self.solver.fresh(Kind::Float);
                self.literals.push(t.clone());
                t
            }
            Lit::Bool(_) => boolt(),
        }
    }

    /// The term of `e`, recorded for the write-back of expression types.
    pub(super) fn expr(&mut self, e: &Expr) -> Result<Term> {
        let t = self.expr_term(e)?;
        self.exprs.insert(e, t.clone());
        Ok(t)
    }

    /// The term of `e` by its kind.
    fn expr_term(&mut self, e: &Expr) -> Result<Term> {
        let span = e.span;
        Ok(match &e.kind {
            ExprKind::Lit(l) => self.lit(l),
            ExprKind::Local(id) => self.local(*id),
            // The pointee's type: a `&mut T` parameter unifies with `T`.
            ExprKind::AddrOf(place) => self.place(place, span)?,
            ExprKind::Capture(c) => match self.capture(*c, span)? {
                CaptureKind::Scalar(s) => Term::Known(Type::Scalar(*s)),
                CaptureKind::Vector(n, s) => Term::Known(Type::Vector(*n, *s)),
                CaptureKind::Index(n) => Term::Known(Type::Index(*n)),
                CaptureKind::Struct(t) => Term::Known(t.clone()),
                CaptureKind::Container { .. } => {
                    return Err(type_error(span, "a container used as a value".to_string()));
                }
            },
            ExprKind::KernelIndex => Term::Known(Type::Index(self.rank)),
            ExprKind::Extent(c) => match self.capture(*c, span)? {
                CaptureKind::Container { rank, .. } => Term::Known(Type::Index(*rank)),
                CaptureKind::Scalar(_)
                | CaptureKind::Vector(..)
                | CaptureKind::Index(_)
                | CaptureKind::Struct(_) => {
                    return Err(type_error(span, "`.extent()` of a scalar".to_string()));
                }
            },
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, span)?,
            ExprKind::Unary(_, x) => self.expr(x)?,
            ExprKind::Cast(x, s) => {
                self.expr(x)?;
                Term::Known(Type::Scalar(*s))
            }
            ExprKind::Load(c, idx) => self.load(*c, idx, span)?,
            ExprKind::Atomic(op, place, args) => self.atomic(*op, place, args, span)?,
            ExprKind::IndexComponent(x, k) => {
                let xt = self.expr(x)?;
                let kt = self.expr(k)?;
                self.solver.require(&kt, Kind::Int, span)?;
                match self.solver.resolve(&xt) {
                    Term::Known(Type::Index(_)) => i32t(),
                    other => {
                        return Err(type_error(
                            span,
                            format!("component of a non-index {other:?}"),
                        ));
                    }
                }
            }
            ExprKind::MakeIndex(parts) => {
                for p in parts {
                    let t = self.expr(p)?;
                    self.solver.unify(&t, &i32t(), span)?;
                }
                Term::Known(Type::Index(parts.len() as u32))
            }
            ExprKind::ArrayElement(a, i) => {
                let at = self.expr(a)?;
                let it = self.expr(i)?;
                self.solver.require(&it, Kind::Int, span)?;
                match self.solver.resolve(&at) {
                    Term::ArrayOf(elem, _) => *elem,
                    Term::Known(Type::Index(_)) => i32t(),
                    other => {
                        return Err(type_error(span, format!("indexing a non-array {other:?}")));
                    }
                }
            }
            ExprKind::MakeArray(items) => {
                let t = self.solver.fresh(Kind::Any);
                for i in items {
                    let it = self.expr(i)?;
                    self.solver.unify(&t, &it, span)?;
                }
                Term::ArrayOf(Box::new(t), items.len() as u32)
            }
            ExprKind::RepeatArray(x, n) => Term::ArrayOf(Box::new(self.expr(x)?), *n),
            ExprKind::Call(f, args) => self.call(*f, args, span)?,
            ExprKind::Field(x, m) => {
                let xt = self.expr(x)?;
                self.member(&xt, m, span)?
            }
            ExprKind::Tiled(_) => Term::Known(Type::Index(self.rank)),
            ExprKind::TileLoad(id, idx) => self.tile_element(*id, idx, span)?,
            ExprKind::MakeVector(n, sc, args) => {
                for a in args {
                    let t = self.expr(a)?;
                    self.solver
                        .unify(&t, &Term::Known(Type::Scalar(*sc)), span)?;
                }
                Term::Known(Type::Vector(*n, *sc))
            }
            ExprKind::MakeStruct(ty, fields) => {
                let Type::Struct(st) = ty else {
                    return Err(type_error(span, "not a struct".to_string()));
                };
                for (name, e) in fields {
                    let ft = st
                        .fields
                        .iter()
                        .find(|(f, _)| f == name)
                        .map(|(_, t)| Term::Known(t.clone()))
                        .ok_or_else(|| {
                            type_error(span, format!("`{}` has no field `{name}`", st.name))
                        })?;
                    let et = self.expr(e)?;
                    self.solver.unify(&ft, &et, span)?;
                }
                Term::Known(ty.clone())
            }
            ExprKind::MakeTuple(items) => {
                let ts: Vec<Term> = items.iter().map(|i| self.expr(i)).collect::<Result<_>>()?;
                Term::TupleOf(ts)
            }
            ExprKind::CallFn(f, args, _) => self.call_fn(*f, args, span)?,
            ExprKind::If(c, a, b) => {
                let ct = self.expr(c)?;
                self.solver.unify(&ct, &boolt(), span)?;
                let at = self.block(a)?;
                let bt = self.block(b)?;
                self.solver.unify(&at, &bt, span)?;
                at
            }
            ExprKind::Block(b) => self.block(b)?,
        })
    }

    /// The term of `l op r`: Rust's operand rules (shifts of any integers,
    /// comparisons of one type, vectors with scalars, indices with `i32`).
    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, span: Span) -> Result<Term> {
        let lt = self.expr(l)?;
        let rt = self.expr(r)?;
        Ok(match op {
            BinOp::And | BinOp::Or => {
                self.solver.unify(&lt, &boolt(), span)?;
                self.solver.unify(&rt, &boolt(), span)?;
                boolt()
            }
            BinOp::Shl | BinOp::Shr => {
                self.solver.require(&lt, Kind::Int, span)?;
                self.solver.require(&rt, Kind::Int, span)?;
                lt
            }
            op if op.is_comparison() => {
                self.solver.unify(&lt, &rt, span)?;
                boolt()
            }
            _ if matches!(self.solver.resolve(&lt), Term::Known(Type::Vector(..)))
                || matches!(self.solver.resolve(&rt), Term::Known(Type::Vector(..))) =>
            {
                // vector op vector, vector op scalar, scalar op vector
                match (self.solver.resolve(&lt), self.solver.resolve(&rt)) {
                    (Term::Known(v @ Type::Vector(..)), Term::Known(w @ Type::Vector(..))) => {
                        if v != w {
                            return Err(mismatch(span, &v, &w));
                        }
                        Term::Known(v)
                    }
                    (Term::Known(Type::Vector(n, s)), other)
                    | (other, Term::Known(Type::Vector(n, s))) => {
                        self.solver
                            .unify(&other, &Term::Known(Type::Scalar(s)), span)?;
                        Term::Known(Type::Vector(n, s))
                    }
                    _ => unreachable!("one side is a vector"),
                }
            }
            _ => {
                // Index arithmetic: Index op Index, or Index op i32.
                match (self.solver.resolve(&lt), self.solver.resolve(&rt)) {
                    (Term::Known(Type::Index(n)), other) | (other, Term::Known(Type::Index(n))) => {
                        match other {
                            Term::Known(Type::Index(m)) if m == n => {}
                            t => self.solver.unify(&t, &i32t(), span)?,
                        }
                        Term::Known(Type::Index(n))
                    }
                    _ => {
                        self.solver.unify(&lt, &rt, span)?;
                        lt
                    }
                }
            }
        })
    }
}
