//! Memory: places (locals, elements, fields), container loads, atomic
//! operations, `tile_static` elements, members (fields, vector components
//! and swizzles), and bit reinterpretation (`bitcast`, a view's words).

use super::solver::{Kind, Term};
use super::{Checker, i32t, type_error};
use crate::Result;
use crate::ir::*;

impl Checker<'_> {
    /// The term of an assignable place.
    pub(super) fn place(&mut self, p: &Place, span: Span) -> Result<Term> {
        match p {
            Place::Local(id) => Ok(self.local(*id)),
            Place::TileElement(id, idx) => self.tile_element(*id, idx, span),
            Place::Field(base, m) => {
                let bt = self.place(base, span)?;
                self.member(&bt, m, span)
            }
            Place::Element(c, idx) => self.load(*c, idx, span),
            Place::ArrayElement(id, idx) => {
                let mut t = self.local(*id);
                for i in idx {
                    let it = self.expr(i)?;
                    self.solver.require(&it, Kind::Int, span)?;
                    t = match self.solver.resolve(&t) {
                        Term::ArrayOf(elem, _) => *elem,
                        Term::Known(Type::Index(_)) => i32t(),
                        other => {
                            return Err(type_error(
                                span,
                                format!("indexing a non-array {other:?}"),
                            ));
                        }
                    };
                }
                Ok(t)
            }
        }
    }

    /// `bitcast(value, witness)`: 4-byte scalars both; the witness's type
    /// (a container witness: its element type).
    pub(super) fn bitcast(&mut self, args: &[Expr], span: Span) -> Result<Term> {
        let [value, witness] = args else {
            return Err(type_error(span, "bitcast takes two arguments".to_string()));
        };
        let four = |t: &Type| matches!(t, Type::Scalar(Scalar::I32 | Scalar::U32 | Scalar::F32));
        let target = match &witness.kind {
            ExprKind::Capture(c) => match self.capture(*c, span)? {
                CaptureKind::Container { elem, .. } => elem.clone(),
                _ => {
                    return Err(type_error(
                        span,
                        "bitcast into a scalar capture".to_string(),
                    ));
                }
            },
            _ => match self.expr(witness)? {
                Term::Known(t) => t,
                other => match self.solver.resolve(&other) {
                    Term::Known(t) => t,
                    _ => Type::Scalar(Scalar::I32),
                },
            },
        };
        let v = self.expr(value)?;
        let from = match self.solver.resolve(&v) {
            Term::Known(t) => t,
            _ => {
                // An unsuffixed literal: the other 4-byte integer type.
                self.solver
                    .unify(&v, &Term::Known(Type::Scalar(Scalar::I32)), span)?;
                Type::Scalar(Scalar::I32)
            }
        };
        if !four(&target) || !four(&from) {
            return Err(type_error(
                span,
                format!(
                    "reinterpret_as in kernels converts between i32, u32 and f32 (4-byte scalars), not `{from}` and `{target}`: make other reinterpretations on the host"
                ),
            ));
        }
        Ok(Term::Known(target))
    }

    /// `reinterpret_load(view, k, witness)` (the witness's type) and
    /// `reinterpret_store(view, k, value)` (no value).
    pub(super) fn reinterpret(&mut self, f: Builtin, args: &[Expr], span: Span) -> Result<Term> {
        // `[view, k, witness]` to load, `[view, value, k]` to store.
        let (view, k, third) = match (f, args) {
            (Builtin::ReinterpretLoad, [view, k, witness]) => (view, k, witness),
            (_, [view, value, k]) => (view, k, value),
            _ => return Err(type_error(span, format!("{f:?} takes three arguments"))),
        };
        let elem = match &view.kind {
            ExprKind::Capture(c) => match self.capture(*c, span)? {
                CaptureKind::Container { elem, .. } => elem.clone(),
                _ => return Err(type_error(span, "reinterpret_as of a scalar".to_string())),
            },
            _ => return Err(type_error(span, "reinterpret_as of a non-view".to_string())),
        };
        // In the arguments' order: literals are numbered in it.
        let (t, v) = match f {
            Builtin::ReinterpretLoad => {
                let t = self.expr(k)?;
                (t, self.expr(third)?)
            }
            _ => {
                let v = self.expr(third)?;
                (self.expr(k)?, v)
            }
        };
        // The position: an `i32`, or an `Index<1>` (`w[idx]`; the WGSL
        // lowering takes its component).
        if !matches!(self.solver.resolve(&t), Term::Known(Type::Index(1))) {
            self.solver
                .unify(&t, &Term::Known(Type::Scalar(Scalar::I32)), span)?;
        }
        let target = match self.solver.resolve(&v) {
            Term::Known(t) => t,
            _ => {
                // An unsuffixed literal stored: an `i32`, as in Rust.
                self.solver
                    .unify(&v, &Term::Known(Type::Scalar(Scalar::I32)), span)?;
                Type::Scalar(Scalar::I32)
            }
        };
        for t in [&elem, &target] {
            if t.words().is_none() {
                return Err(type_error(
                    span,
                    format!(
                        "reinterpret_as in kernels reads and writes types made of 4-byte scalars (i32, u32, f32, their 2- and 4-component vectors, arrays of them), not `{t}`: make other reinterpretations on the host"
                    ),
                ));
            }
        }
        Ok(match f {
            Builtin::ReinterpretLoad => Term::Known(target),
            _ => Term::Known(Type::Index(0)),
        })
    }

    /// The element type of `c[idx]` (one index, or one per dimension).
    pub(super) fn load(&mut self, c: CaptureId, idx: &[Expr], span: Span) -> Result<Term> {
        let (elem, rank) = match self.capture(c, span)? {
            CaptureKind::Container { elem, rank, .. } => (elem.clone(), *rank),
            CaptureKind::Scalar(_)
            | CaptureKind::Vector(..)
            | CaptureKind::Index(_)
            | CaptureKind::Struct(_) => {
                return Err(type_error(span, "indexing a scalar capture".to_string()));
            }
        };
        if idx.len() == 1 {
            let t = self.expr(&idx[0])?;
            match self.solver.resolve(&t) {
                Term::Known(Type::Index(n)) if n == rank => {}
                _ if rank == 1 => self.solver.require(&t, Kind::Int, span)?,
                other => {
                    return Err(type_error(
                        span,
                        format!("a rank-{rank} container indexed by {other:?}"),
                    ));
                }
            }
        } else {
            if idx.len() as u32 != rank {
                return Err(type_error(
                    span,
                    format!("a rank-{rank} container indexed by {} indices", idx.len()),
                ));
            }
            for i in idx {
                let t = self.expr(i)?;
                self.solver.require(&t, Kind::Int, span)?;
            }
        }
        Ok(Term::Known(elem))
    }

    /// An atomic operation: on a writable container's or a `tile_static`
    /// array's `i32`/`u32` element (`f32` for add, sub and exchange); its
    /// operands and value have the element's type.
    pub(super) fn atomic(
        &mut self,
        op: AtomicOp,
        place: &Place,
        args: &[Expr],
        span: Span,
    ) -> Result<Term> {
        let t = match place {
            Place::Element(c, idx) => {
                if let CaptureKind::Container {
                    writable: false, ..
                } = self.capture(*c, span)?
                {
                    return Err(type_error(
                        span,
                        "an atomic operation on a read-only view".to_string(),
                    ));
                }
                self.load(*c, idx, span)?
            }
            Place::TileElement(id, idx) => self.tile_element(*id, idx, span)?,
            _ => {
                return Err(type_error(
                    span,
                    "atomics apply to elements of captured views and tile_static arrays"
                        .to_string(),
                ));
            }
        };
        for a in args {
            let at = self.expr(a)?;
            self.solver.unify(&t, &at, span)?;
        }
        match self.solver.resolve(&t) {
            Term::Known(Type::Scalar(Scalar::I32 | Scalar::U32)) => {}
            Term::Known(Type::Scalar(Scalar::F32)) if op.allows_f32() => {}
            other => {
                return Err(type_error(
                    span,
                    format!(
                        "atomic {op:?} applies to i32 and u32 elements{}, not {other:?}",
                        if op.allows_f32() { " and f32" } else { "" }
                    ),
                ));
            }
        }
        Ok(t)
    }

    /// The element type of `tile_static` array `id` indexed by `idx`.
    pub(super) fn tile_element(&mut self, id: LocalId, idx: &[Expr], span: Span) -> Result<Term> {
        let mut t = self.local(id);
        for i in idx {
            let it = self.expr(i)?;
            self.solver.require(&it, Kind::Int, span)?;
            t = match self.solver.resolve(&t) {
                Term::ArrayOf(elem, _) => *elem,
                other => return Err(type_error(span, format!("indexing a non-array {other:?}"))),
            };
        }
        Ok(t)
    }

    /// The type of `member` of a value of type `t`.
    pub(super) fn member(&mut self, t: &Term, member: &Member, span: Span) -> Result<Term> {
        match (self.solver.resolve(t), member) {
            // `.x`, or a swizzle (`v.zyx()`: a vector of the components).
            (Term::Known(Type::Vector(n, s)), Member::Named(m)) => {
                for c in m.chars() {
                    let k = match c {
                        'x' => 0,
                        'y' => 1,
                        'z' => 2,
                        'w' => 3,
                        _ => return Err(type_error(span, format!("a vector has no field `{m}`"))),
                    };
                    if k >= n {
                        return Err(type_error(
                            span,
                            format!("a {n}-component vector has no component `{c}`"),
                        ));
                    }
                }
                match m.len() {
                    1 => Ok(Term::Known(Type::Scalar(s))),
                    len @ 2..=4 => Ok(Term::Known(Type::Vector(len as u8, s))),
                    _ => Err(type_error(span, format!("a vector has no field `{m}`"))),
                }
            }
            (Term::Known(Type::Struct(st)), Member::Named(m)) => st
                .fields
                .iter()
                .find(|(f, _)| f == m)
                .map(|(_, t)| Term::Known(t.clone()))
                .ok_or_else(|| type_error(span, format!("`{}` has no field `{m}`", st.name))),
            (Term::TupleOf(ts), Member::Index(i)) => ts
                .get(*i as usize)
                .cloned()
                .ok_or_else(|| type_error(span, format!("a tuple has no field {i}"))),
            (other, m) => Err(type_error(span, format!("field {m:?} of {other:?}"))),
        }
    }
}
