//! Calls: built-ins (subgroup operations, geometry of extents and
//! indices, short vectors, scalars; `bitcast` and reinterpretation are in
//! `memory.rs`) and `#[kernel]` functions (arguments, bound views, type
//! parameters, return type).

use super::solver::{Kind, Term};
use super::{Checker, boolt, term_of, type_error};
use crate::Result;
use crate::ir::*;

impl Checker<'_> {
    /// Subgroup operations.
    fn subgroup(&mut self, f: Builtin, args: &[Expr], span: Span) -> Result<Term> {
        let ts: Vec<Term> = args.iter().map(|a| self.expr(a)).collect::<Result<_>>()?;
        use Builtin::*;
        match (f, ts.as_slice()) {
            (SubgroupSize | SubgroupLane, []) => Ok(Term::Known(Type::Scalar(Scalar::U32))),
            (SubgroupAdd | SubgroupMin | SubgroupMax, [x]) => {
                self.solver.require(x, Kind::Any, span)?;
                Ok(x.clone())
            }
            (SubgroupBroadcast, [x, lane]) => {
                self.solver.require(lane, Kind::Int, span)?;
                Ok(x.clone())
            }
            (SubgroupBallot, [p]) => {
                self.solver.unify(p, &boolt(), span)?;
                Ok(Term::Known(Type::Vector(4, Scalar::U32)))
            }
            _ => Err(type_error(
                span,
                format!("{f:?} with {} arguments", ts.len()),
            )),
        }
    }

    /// The term of built-in `f` of `args`: by the first argument's type.
    pub(super) fn call(&mut self, f: Builtin, args: &[Expr], span: Span) -> Result<Term> {
        if f == Builtin::UniformLoad {
            return match args {
                [
                    x @ Expr {
                        kind: ExprKind::TileLoad(..),
                        ..
                    },
                ] => self.expr(x),
                _ => Err(type_error(
                    span,
                    "a uniform load of a non-tile_static value".to_string(),
                )),
            };
        }
        if f.is_subgroup() {
            return self.subgroup(f, args, span);
        }
        if f == Builtin::Bitcast {
            return self.bitcast(args, span);
        }
        if f == Builtin::IndexFromArray {
            // An `[i32; N]` (its elements unify with `i32`) is an index of
            // rank `N`.
            let [arr] = args else {
                return Err(type_error(span, "Index::new takes one array".to_string()));
            };
            let t = self.expr(arr)?;
            let n = match self.solver.resolve(&t) {
                Term::Known(Type::Array(_, n)) | Term::ArrayOf(_, n) => n,
                other => {
                    return Err(type_error(
                        span,
                        format!("Index::new takes an array of i32, not {other:?}"),
                    ));
                }
            };
            let elem = Term::Known(Type::Scalar(Scalar::I32));
            self.solver
                .unify(&t, &Term::ArrayOf(Box::new(elem), n), span)?;
            return Ok(Term::Known(Type::Index(n)));
        }
        if matches!(f, Builtin::ReinterpretLoad | Builtin::ReinterpretStore) {
            return self.reinterpret(f, args, span);
        }
        let ts: Vec<Term> = args.iter().map(|a| self.expr(a)).collect::<Result<_>>()?;
        let first = ts
            .first()
            .cloned()
            .ok_or_else(|| type_error(span, format!("{f:?} needs an argument")))?;
        use Builtin::*;
        // Geometry: `Extent`/`Index` values (one IR type).
        if let Term::Known(Type::Index(n)) = self.solver.resolve(&first) {
            return self.extent_call(f, n, first, &ts, span);
        }
        if matches!(f, Contains | Size | Linearize | Delinearize) {
            return Err(type_error(
                span,
                format!("{f:?} applies to an `Extent` (`e.contains(&idx)`, `e.size()`)"),
            ));
        }
        // Short vectors: the component-wise built-ins and the geometric ones.
        if let Term::Known(Type::Vector(n, s)) = self.solver.resolve(&first) {
            return self.vector_call(f, n, s, first, &ts, span);
        }
        self.scalar_call(f, first, &ts, span)
    }

    /// Geometry: built-ins of an extent or index of rank `n` (`first`).
    fn extent_call(
        &mut self,
        f: Builtin,
        n: u32,
        first: Term,
        ts: &[Term],
        span: Span,
    ) -> Result<Term> {
        use Builtin::*;
        match (f, ts.len()) {
            (Contains, 2) => {
                self.solver.unify(&first, &ts[1], span)?;
                Ok(boolt())
            }
            (Size, 1) => Ok(Term::Known(Type::Scalar(Scalar::U32))),
            (Linearize, 2) => {
                let at = self.solver.resolve(&ts[1]);
                if n == 1 && !matches!(at, Term::Known(Type::Index(_))) {
                    self.solver
                        .unify(&ts[1], &Term::Known(Type::Scalar(Scalar::I32)), span)?;
                } else {
                    self.solver.unify(&first, &ts[1], span)?;
                }
                Ok(Term::Known(Type::Scalar(Scalar::I32)))
            }
            (Delinearize, 2) => {
                self.solver
                    .unify(&ts[1], &Term::Known(Type::Scalar(Scalar::I32)), span)?;
                Ok(first)
            }
            _ => Err(type_error(
                span,
                format!("{f:?} does not apply to an extent or index of rank {n}"),
            )),
        }
    }

    /// Short vectors: the component-wise built-ins and the geometric ones.
    fn vector_call(
        &mut self,
        f: Builtin,
        n: u8,
        s: Scalar,
        first: Term,
        ts: &[Term],
        span: Span,
    ) -> Result<Term> {
        use Builtin::*;
        for t in &ts[1..] {
            self.solver.unify(&first, t, span)?;
        }
        let float = s.is_float();
        match f {
            Abs | Min | Max | Clamp => Ok(first),
            Sqrt | Floor | Ceil | Exp | Exp2 | Ln | Log2 | Cos | MulAdd | Recip | Normalize
                if float =>
            {
                Ok(first)
            }
            Dot | Length | Distance if float => Ok(Term::Known(Type::Scalar(s))),
            Cross if float && n == 3 => Ok(first),
            _ => Err(type_error(
                span,
                format!("{f:?} does not apply to a {n}-component vector of {s:?}"),
            )),
        }
    }

    /// Built-ins of scalars.
    fn scalar_call(&mut self, f: Builtin, first: Term, ts: &[Term], span: Span) -> Result<Term> {
        use Builtin::*;
        // The bit-level built-ins count or move the bits of the 32-bit
        // integer a small integer is held in: not the small type's answer.
        if let Term::Known(Type::Scalar(s)) = self.solver.resolve(&first)
            && s.is_small()
            && matches!(
                f,
                CountOnes
                    | LeadingZeros
                    | TrailingZeros
                    | CountZeros
                    | LeadingOnes
                    | TrailingOnes
                    | AbsDiff
                    | RotateLeft
                    | RotateRight
                    | ReverseBits
            )
        {
            return Err(type_error(
                span,
                format!(
                    "{f:?} of a {} value is not supported in kernels: convert it first (`x as u32`)",
                    s.rust()
                ),
            ));
        }
        match f {
            Dot | Length | Distance | Normalize | Cross => Err(type_error(
                span,
                format!("{f:?} applies to float short vectors"),
            )),
            CountOnes | LeadingZeros | TrailingZeros | CountZeros | LeadingOnes | TrailingOnes => {
                self.solver.require(&first, Kind::Int, span)?;
                Ok(Term::Known(Type::Scalar(Scalar::U32)))
            }
            AbsDiff => {
                self.solver.require(&first, Kind::Int, span)?;
                for t in &ts[1..] {
                    self.solver.unify(&first, t, span)?;
                }
                Ok(Term::Known(Type::Scalar(Scalar::U32)))
            }
            IsPowerOfTwo => {
                self.solver
                    .unify(&first, &Term::Known(Type::Scalar(Scalar::U32)), span)?;
                Ok(Term::Known(Type::Scalar(Scalar::Bool)))
            }
            RemEuclid | DivEuclid => {
                for t in &ts[1..] {
                    self.solver.unify(&first, t, span)?;
                }
                Ok(first)
            }
            FromBits => {
                self.solver
                    .unify(&first, &Term::Known(Type::Scalar(Scalar::U32)), span)?;
                Ok(Term::Known(Type::Scalar(Scalar::F32)))
            }
            HalfFromF32 | HalfFromF64 | HalfToF32 | HalfToF64 => {
                let (from, to) = match f {
                    HalfFromF32 => (Scalar::F32, Scalar::F16),
                    HalfFromF64 => (Scalar::F64, Scalar::F16),
                    HalfToF32 => (Scalar::F16, Scalar::F32),
                    _ => (Scalar::F16, Scalar::F64),
                };
                self.solver
                    .unify(&first, &Term::Known(Type::Scalar(from)), span)?;
                Ok(Term::Known(Type::Scalar(to)))
            }
            SinCos => {
                self.solver.require(&first, Kind::Float, span)?;
                Ok(Term::TupleOf(vec![first.clone(), first]))
            }
            WrappingAdd | WrappingSub | WrappingMul | WrappingNeg => {
                self.solver.require(&first, Kind::Int, span)?;
                for t in &ts[1..] {
                    self.solver.unify(&first, t, span)?;
                }
                Ok(first)
            }
            // Rust's `rotate_left(n: u32)`, `pow(exp: u32)`.
            RotateLeft | RotateRight | Pow => {
                self.solver.require(&first, Kind::Int, span)?;
                for t in &ts[1..] {
                    self.solver
                        .unify(t, &Term::Known(Type::Scalar(Scalar::U32)), span)?;
                }
                Ok(first)
            }
            Powi => {
                self.solver.require(&first, Kind::Float, span)?;
                for t in &ts[1..] {
                    self.solver
                        .unify(t, &Term::Known(Type::Scalar(Scalar::I32)), span)?;
                }
                Ok(first)
            }
            // `f32` only: an `f64`'s bits are a `u64`, which kernels lack.
            ToBits => {
                self.solver
                    .unify(&first, &Term::Known(Type::Scalar(Scalar::F32)), span)?;
                Ok(Term::Known(Type::Scalar(Scalar::U32)))
            }
            IsNan | IsFinite | IsInfinite | IsSignNegative | IsSignPositive => {
                self.solver.require(&first, Kind::Float, span)?;
                Ok(Term::Known(Type::Scalar(Scalar::Bool)))
            }
            ReverseBits => {
                self.solver.require(&first, Kind::Int, span)?;
                Ok(first)
            }
            Abs | Min | Max | Clamp => {
                for t in &ts[1..] {
                    self.solver.unify(&first, t, span)?;
                }
                Ok(first)
            }
            _ => {
                self.solver.require(&first, Kind::Float, span)?;
                for t in &ts[1..] {
                    self.solver.unify(&first, t, span)?;
                }
                Ok(first)
            }
        }
    }

    /// A call of a `#[kernel]` function: its arguments against the
    /// signature (type parameters as fresh variables of their bounds), the
    /// views its bindings take, and its return type.
    pub(super) fn call_fn(&mut self, f: FnRef, args: &[Expr], span: Span) -> Result<Term> {
        let sig = f.function();
        if sig.params.len() + sig.bindings.len() != args.len() {
            return Err(type_error(
                span,
                format!(
                    "`{}` takes {} arguments",
                    sig.name,
                    sig.params.len() + sig.bindings.len()
                ),
            ));
        }
        let value_args = crate::instance::value_args(&sig, args);
        let arg_terms: Vec<Term> = value_args
            .iter()
            .map(|a| self.expr(a))
            .collect::<Result<_>>()?;
        let vars: Vec<Term> = sig
            .type_params
            .iter()
            .map(|b| {
                self.solver.fresh(match b {
                    Bound::Float => Kind::Float,
                    Bound::Integer => Kind::Int,
                    Bound::Number | Bound::Element => Kind::Any,
                })
            })
            .collect();
        for ((_, _, pt), at) in sig.params.iter().zip(&arg_terms) {
            self.solver.unify(&term_of(pt, &vars), at, span)?;
        }
        // What the binding arguments bind: a captured container of
        // the parameter's element type, rank and access, or the
        // tiled index.
        let bound = crate::instance::bound_captures(&sig, args, span)?;
        let views = sig.bindings.iter().filter_map(|(_, b)| match b {
            ParamBinding::View {
                elem,
                rank,
                writable,
            } => Some((elem, *rank, *writable)),
            ParamBinding::Tiled(_) => None,
        });
        for ((elem, rank, writable), c) in views.zip(bound) {
            match self.capture(c, span)?.clone() {
                CaptureKind::Container {
                    elem: ce,
                    rank: cr,
                    writable: cw,
                } if cr == rank && (cw || !writable) => {
                    let ce = Term::Known(ce);
                    self.solver.unify(&term_of(elem, &vars), &ce, span)?;
                }
                other => {
                    return Err(type_error(
                        span,
                        format!(
                            "`{}` takes a {}rank-{rank} view, not {other:?}",
                            sig.name,
                            if writable { "writable " } else { "" }
                        ),
                    ));
                }
            }
        }
        for (_, b) in &sig.bindings {
            if let ParamBinding::Tiled(n) = b
                && *n != self.rank
            {
                return Err(type_error(
                    span,
                    format!("`{}` takes a rank-{n} tiled index", sig.name),
                ));
            }
        }
        self.calls.push(vars.clone());
        Ok(match &sig.ret {
            Some(r) => term_of(r, &vars),
            None => Term::Known(Type::Index(0)),
        })
    }
}
