//! The unifier of type reconstruction: terms (known types, type variables
//! of literals with their kind, arrays and tuples of terms), union-find
//! with kinds, and Rust's defaults for literals left unconstrained.

use super::{mismatch, type_error};
use crate::Result;
use crate::ir::*;

/// What a literal's type variable may become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Any,
    Int,
    Float,
}

/// A type being reconstructed.
#[derive(Debug, Clone)]
pub(super) enum Term {
    Var(u32),
    Known(Type),
    /// An array whose element type may still be unknown.
    ArrayOf(Box<Term>, u32),
    /// A tuple whose element types may still be unknown.
    TupleOf(Vec<Term>),
}

/// Union-find over type variables, each with its kind and its binding.
pub(super) struct Solver {
    pub(super) parent: Vec<u32>,
    pub(super) kind: Vec<Kind>,
    pub(super) bound: Vec<Option<Term>>,
}

impl Solver {
    pub(super) fn fresh(&mut self, kind: Kind) -> Term {
        let id = self.parent.len() as u32;
        self.parent.push(id);
        self.kind.push(kind);
        self.bound.push(None);
        Term::Var(id)
    }

    fn find(&mut self, v: u32) -> u32 {
        let p = self.parent[v as usize];
        if p == v {
            return v;
        }
        let r = self.find(p);
        self.parent[v as usize] = r;
        r
    }

    pub(super) fn resolve(&mut self, t: &Term) -> Term {
        match t {
            Term::Known(Type::Array(elem, n)) => {
                Term::ArrayOf(Box::new(Term::Known((**elem).clone())), *n)
            }
            Term::Known(Type::Tuple(ts)) => {
                Term::TupleOf(ts.iter().map(|t| Term::Known(t.clone())).collect())
            }
            Term::Known(_) | Term::ArrayOf(..) | Term::TupleOf(..) => t.clone(),
            Term::Var(v) => {
                let r = self.find(*v);
                match self.bound[r as usize].clone() {
                    Some(t) => self.resolve(&t),
                    None => Term::Var(r),
                }
            }
        }
    }

    fn kind_ok(kind: Kind, ty: &Type) -> bool {
        match (kind, ty) {
            (Kind::Any, _) => true,
            (Kind::Int, Type::Scalar(s)) => s.is_int(),
            (Kind::Float, Type::Scalar(s)) => s.is_float(),
            _ => false,
        }
    }

    pub(super) fn unify(&mut self, a: &Term, b: &Term, span: Span) -> Result<()> {
        match (self.resolve(a), self.resolve(b)) {
            (Term::Known(x), Term::Known(y)) => {
                if x == y {
                    Ok(())
                } else {
                    Err(mismatch(span, &x, &y))
                }
            }
            (Term::ArrayOf(x, n), Term::ArrayOf(y, m)) => {
                if n != m {
                    return Err(type_error(span, format!("arrays of {n} and {m} elements")));
                }
                self.unify(&x, &y, span)
            }
            (Term::ArrayOf(..), Term::Known(t)) | (Term::Known(t), Term::ArrayOf(..)) => {
                Err(type_error(span, format!("an array and {t:?} do not match")))
            }
            (Term::TupleOf(xs), Term::TupleOf(ys)) => {
                if xs.len() != ys.len() {
                    return Err(type_error(span, "tuples of different lengths".to_string()));
                }
                for (x, y) in xs.iter().zip(&ys) {
                    self.unify(x, y, span)?;
                }
                Ok(())
            }
            (Term::TupleOf(..), other @ (Term::Known(_) | Term::ArrayOf(..)))
            | (other @ (Term::Known(_) | Term::ArrayOf(..)), Term::TupleOf(..)) => Err(type_error(
                span,
                format!("a tuple and {other:?} do not match"),
            )),
            (Term::Var(v), Term::Known(t)) | (Term::Known(t), Term::Var(v)) => {
                let kind = self.kind[v as usize];
                if !Self::kind_ok(kind, &t) {
                    return Err(type_error(
                        span,
                        format!("a {kind:?} literal cannot have type {t:?}"),
                    ));
                }
                self.bound[v as usize] = Some(Term::Known(t));
                Ok(())
            }
            (Term::Var(v), arr @ (Term::ArrayOf(..) | Term::TupleOf(..)))
            | (arr @ (Term::ArrayOf(..) | Term::TupleOf(..)), Term::Var(v)) => {
                if self.kind[v as usize] != Kind::Any {
                    return Err(type_error(span, "a literal cannot be an array".to_string()));
                }
                self.bound[v as usize] = Some(arr);
                Ok(())
            }
            (Term::Var(x), Term::Var(y)) => {
                if x == y {
                    return Ok(());
                }
                let (kx, ky) = (self.kind[x as usize], self.kind[y as usize]);
                let kind = match (kx, ky) {
                    (Kind::Any, k) | (k, Kind::Any) => k,
                    (a, b) if a == b => a,
                    _ => {
                        return Err(type_error(
                            span,
                            "an integer and a float literal were mixed".to_string(),
                        ));
                    }
                };
                self.parent[x as usize] = y;
                self.kind[y as usize] = kind;
                Ok(())
            }
        }
    }

    /// Constrains `t` to be of `kind`.
    pub(super) fn require(&mut self, t: &Term, kind: Kind, span: Span) -> Result<()> {
        match self.resolve(t) {
            Term::Known(ty) => {
                if Self::kind_ok(kind, &ty) {
                    Ok(())
                } else {
                    Err(type_error(
                        span,
                        format!("expected a {kind:?} value, found {ty:?}"),
                    ))
                }
            }
            Term::ArrayOf(..) | Term::TupleOf(..) => Err(type_error(
                span,
                format!("expected a {kind:?} value, found an array or tuple"),
            )),
            Term::Var(v) => {
                let k = self.kind[v as usize];
                self.kind[v as usize] = match (k, kind) {
                    (Kind::Any, k) | (k, Kind::Any) => k,
                    (a, b) if a == b => a,
                    _ => {
                        return Err(type_error(
                            span,
                            "an integer and a float were mixed".to_string(),
                        ));
                    }
                };
                Ok(())
            }
        }
    }

    /// The final type of `t`, with Rust's literal defaults.
    pub(super) fn finish(&mut self, t: &Term) -> Type {
        match self.resolve(t) {
            Term::Known(ty) => ty,
            Term::ArrayOf(elem, n) => Type::Array(Box::new(self.finish(&elem)), n),
            Term::TupleOf(ts) => Type::Tuple(ts.iter().map(|t| self.finish(t)).collect()),
            Term::Var(v) => match self.kind[v as usize] {
                Kind::Float => Type::Scalar(Scalar::F64),
                _ => Type::Scalar(Scalar::I32),
            },
        }
    }
}
