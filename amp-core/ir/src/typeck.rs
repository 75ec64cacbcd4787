//! Type reconstruction for the kernel IR, with Rust's rules.
//!
//! rustc has already type-checked the kernel body (its native form is
//! compiled for the CPU accelerator), so this pass only recovers the types
//! rustc chose: it unifies the operands of every operation, takes captured
//! variables' types from their Rust types, and defaults unconstrained integer
//! literals to `i32` and float literals to `f64`, as rustc does. It then
//! writes the resolved type into every unsuffixed literal, so that later
//! passes are purely bottom-up.

use std::collections::HashMap;

use crate::ir::*;
use crate::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Any,
    Int,
    Float,
}

#[derive(Debug, Clone)]
enum Term {
    Var(u32),
    Known(Type),
    /// An array whose element type may still be unknown.
    ArrayOf(Box<Term>, u32),
    /// A tuple whose element types may still be unknown.
    TupleOf(Vec<Term>),
}

struct Solver {
    parent: Vec<u32>,
    kind: Vec<Kind>,
    bound: Vec<Option<Term>>,
}

impl Solver {
    fn fresh(&mut self, kind: Kind) -> Term {
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

    fn resolve(&mut self, t: &Term) -> Term {
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

    fn unify(&mut self, a: &Term, b: &Term, span: Span) -> Result<()> {
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
    fn require(&mut self, t: &Term, kind: Kind, span: Span) -> Result<()> {
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
    fn finish(&mut self, t: &Term) -> Type {
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

fn type_error(span: Span, message: String) -> Error {
    Error::Compile {
        kernel: span.to_string(),
        message: format!(
            "type reconstruction failed: {message} (this is a bug in amp-rs: the kernel compiled as Rust)"
        ),
    }
}

fn mismatch(span: Span, a: &Type, b: &Type) -> Error {
    type_error(span, format!("`{a}` and `{b}` do not match"))
}

/// The resolved types of a kernel's locals.
#[derive(Debug, Default, Clone)]
pub(crate) struct Types {
    /// Every local's type.
    pub(crate) locals: HashMap<LocalId, Type>,
}

struct Checker<'k> {
    solver: Solver,
    locals: HashMap<LocalId, Term>,
    captures: &'k [(&'static str, CaptureKind)],
    rank: u32,
    /// The term of every unsuffixed literal, in traversal order.
    literals: Vec<Term>,
    /// The type arguments of every `#[kernel]` function call, in order.
    calls: Vec<Vec<Term>>,
    /// The term of every expression checked, by address (the body is not
    /// changed between the check and the write-back that reads these).
    exprs: HashMap<*const Expr, Term>,
    /// The return type, when checking a `#[kernel]` function.
    ret: Option<Term>,
    /// The concrete type arguments, when checking a function instance.
    type_args: Vec<Type>,
}

/// The term of a signature type, with type parameters mapped to `params`.
fn term_of(t: &Type, params: &[Term]) -> Term {
    match t {
        Type::Param(k) => params
            .get(*k as usize)
            .cloned()
            .unwrap_or(Term::Known(Type::Param(*k))),
        Type::Array(elem, n) => Term::ArrayOf(Box::new(term_of(elem, params)), *n),
        // A `&mut T` parameter is typed as its pointee.
        Type::Ref(t) => term_of(t, params),
        other => Term::Known(other.clone()),
    }
}

/// `t` with type parameters replaced by `args`.
pub(crate) fn substitute(t: &Type, args: &[Type]) -> Type {
    match t {
        Type::Param(k) => args.get(*k as usize).cloned().unwrap_or(Type::Param(*k)),
        Type::Array(elem, n) => Type::Array(Box::new(substitute(elem, args)), *n),
        Type::Ref(t) => Type::Ref(Box::new(substitute(t, args))),
        other => other.clone(),
    }
}

const fn i32t() -> Term {
    Term::Known(Type::Scalar(Scalar::I32))
}

const fn boolt() -> Term {
    Term::Known(Type::Scalar(Scalar::Bool))
}

impl<'k> Checker<'k> {
    fn new(captures: &'k [(&'static str, CaptureKind)], rank: u32, type_args: Vec<Type>) -> Self {
        Checker {
            solver: Solver {
                parent: Vec::new(),
                kind: Vec::new(),
                bound: Vec::new(),
            },
            locals: HashMap::new(),
            captures,
            rank,
            literals: Vec::new(),
            exprs: HashMap::new(),
            calls: Vec::new(),
            ret: None,
            type_args,
        }
    }

    /// Resolves every type (with Rust's literal defaults), writes literal
    /// and call types into `body`, and returns the locals' types.
    fn write_back(mut self, body: &mut Block) -> Types {
        let literals = std::mem::take(&mut self.literals);
        let lits: Vec<Type> = literals.iter().map(|t| self.solver.finish(t)).collect();
        let calls = std::mem::take(&mut self.calls);
        let calls: Vec<Vec<Type>> = calls
            .iter()
            .map(|args| args.iter().map(|t| self.solver.finish(t)).collect())
            .collect();
        let mut types = Types::default();
        let locals: Vec<(LocalId, Term)> =
            self.locals.iter().map(|(k, v)| (*k, v.clone())).collect();
        for (id, t) in locals {
            types.locals.insert(id, self.solver.finish(&t));
        }
        let mut next = Fill {
            lits: lits.into_iter(),
            calls: calls.into_iter(),
        };
        write_literals_block(body, &mut next);
        let exprs = std::mem::take(&mut self.exprs);
        crate::passes::visit::exprs_mut(body, &mut |e| {
            let key: *const Expr = &*e;
            if let Some(t) = exprs.get(&key) {
                e.ty = Some(self.solver.finish(t));
            }
        });
        types
    }

    /// Starts from the locals' known types.
    fn seed(&mut self, types: &Types) {
        for (id, t) in &types.locals {
            self.locals.insert(*id, Term::Known(t.clone()));
        }
    }

    fn local(&mut self, id: LocalId) -> Term {
        if let Some(t) = self.locals.get(&id) {
            return t.clone();
        }
        let t = self.solver.fresh(Kind::Any);
        self.locals.insert(id, t.clone());
        t
    }

    fn capture(&self, id: CaptureId, span: Span) -> Result<&CaptureKind> {
        self.captures
            .get(id.0 as usize)
            .map(|c| &c.1)
            .ok_or_else(|| type_error(span, format!("capture {} does not exist", id.0)))
    }

    fn block(&mut self, b: &Block) -> Result<Term> {
        for s in &b.stmts {
            self.stmt(s)?;
        }
        match &b.tail {
            Some(e) => self.expr(e),
            None => Ok(Term::Known(Type::Index(0))), // unit
        }
    }

    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        let span = s.span;
        match &s.kind {
            StmtKind::Let {
                local, ty, init, ..
            } => {
                let t = self.local(*local);
                if let Some(ty) = ty {
                    let known = Term::Known(substitute(ty, &self.type_args));
                    self.solver.unify(&t, &known, span)?;
                }
                if let Some(e) = init {
                    let et = self.expr(e)?;
                    self.solver.unify(&t, &et, span)?;
                }
            }
            StmtKind::Assign(place, op, e) => {
                let pt = self.place(place, span)?;
                let et = self.expr(e)?;
                match (op, self.solver.resolve(&pt), self.solver.resolve(&et)) {
                    (Some(BinOp::Shl | BinOp::Shr), ..) => {
                        self.solver.require(&et, Kind::Int, span)?
                    }
                    // `idx += 1`, `v *= 2.0`: an index or vector combined
                    // with one of its components, as for the operators.
                    (Some(_), Term::Known(Type::Index(_)), et)
                        if !matches!(et, Term::Known(Type::Index(_))) =>
                    {
                        self.solver.unify(&et, &i32t(), span)?
                    }
                    (Some(_), Term::Known(Type::Vector(_, sc)), et)
                        if !matches!(et, Term::Known(Type::Vector(..))) =>
                    {
                        self.solver
                            .unify(&et, &Term::Known(Type::Scalar(sc)), span)?
                    }
                    _ => self.solver.unify(&pt, &et, span)?,
                }
            }
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::If(c, a, b) => {
                let ct = self.expr(c)?;
                self.solver.unify(&ct, &boolt(), span)?;
                self.block(a)?;
                if let Some(b) = b {
                    self.block(b)?;
                }
            }
            StmtKind::While(c, body) => {
                let ct = self.expr(c)?;
                self.solver.unify(&ct, &boolt(), span)?;
                self.block(body)?;
            }
            StmtKind::Loop(body) => {
                self.block(body)?;
            }
            StmtKind::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                let vt = self.local(*var);
                let st = self.expr(start)?;
                let et = self.expr(end)?;
                self.solver.unify(&vt, &st, span)?;
                self.solver.unify(&vt, &et, span)?;
                self.solver.require(&vt, Kind::Int, span)?;
                if let Some(step) = step {
                    let t = self.expr(step)?;
                    self.solver.require(&t, Kind::Int, span)?;
                }
                self.block(body)?;
            }
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(None)
            | StmtKind::Barrier(_) => {}
            StmtKind::TileStatic { local, ty, .. } => {
                let t = self.local(*local);
                self.solver.unify(&t, &Term::Known(ty.clone()), span)?;
            }
            StmtKind::Return(Some(e)) => {
                let t = self.expr(e)?;
                match self.ret.clone() {
                    Some(r) => self.solver.unify(&r, &t, span)?,
                    None => return Err(type_error(span, "a kernel returns no value".to_string())),
                }
            }
        }
        Ok(())
    }

    fn place(&mut self, p: &Place, span: Span) -> Result<Term> {
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
    fn bitcast(&mut self, args: &[Expr], span: Span) -> Result<Term> {
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
    fn reinterpret(&mut self, f: Builtin, args: &[Expr], span: Span) -> Result<Term> {
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
        self.solver
            .unify(&t, &Term::Known(Type::Scalar(Scalar::I32)), span)?;
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

    fn load(&mut self, c: CaptureId, idx: &[Expr], span: Span) -> Result<Term> {
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

    /// The element type of `tile_static` array `id` indexed by `idx`.
    /// An atomic operation: on a writable container's or a `tile_static`
    /// array's `i32`/`u32` element (`f32` for add, sub and exchange); its
    /// operands and value have the element's type.
    fn atomic(&mut self, op: AtomicOp, place: &Place, args: &[Expr], span: Span) -> Result<Term> {
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

    fn tile_element(&mut self, id: LocalId, idx: &[Expr], span: Span) -> Result<Term> {
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
    fn member(&mut self, t: &Term, member: &Member, span: Span) -> Result<Term> {
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
    fn expr(&mut self, e: &Expr) -> Result<Term> {
        let t = self.expr_term(e)?;
        self.exprs.insert(e, t.clone());
        Ok(t)
    }

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
            ExprKind::Binary(op, l, r) => {
                let lt = self.expr(l)?;
                let rt = self.expr(r)?;
                match op {
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
                            (
                                Term::Known(v @ Type::Vector(..)),
                                Term::Known(w @ Type::Vector(..)),
                            ) => {
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
                            (Term::Known(Type::Index(n)), other)
                            | (other, Term::Known(Type::Index(n))) => {
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
                }
            }
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
            ExprKind::CallFn(f, args, _) => {
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
                            Bound::Number => Kind::Any,
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
                match &sig.ret {
                    Some(r) => term_of(r, &vars),
                    None => Term::Known(Type::Index(0)),
                }
            }
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

    fn call(&mut self, f: Builtin, args: &[Expr], span: Span) -> Result<Term> {
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
            return match (f, ts.len()) {
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
            };
        }
        if matches!(f, Contains | Size | Linearize | Delinearize) {
            return Err(type_error(
                span,
                format!("{f:?} applies to an `Extent` (`e.contains(&idx)`, `e.size()`)"),
            ));
        }
        // Short vectors: the component-wise built-ins and the geometric ones.
        if let Term::Known(Type::Vector(n, s)) = self.solver.resolve(&first) {
            for t in &ts[1..] {
                self.solver.unify(&first, t, span)?;
            }
            let float = s.is_float();
            return match f {
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
            };
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
}

/// Reconstructs the types of `kernel`, writing them into its unsuffixed
/// literals, and returns the types of its locals.
///
/// # Errors
///
/// [`Error::Compile`] if the body is ill-typed (a bug: rustc accepted
/// the same body).
pub(crate) fn check(kernel: &mut Kernel) -> Result<Types> {
    // The front end's last step: methods WGSL lacks, in terms of others.
    crate::passes::lower::block(&mut kernel.body, &[]);
    crate::passes::lower::geometry_captures(&mut kernel.body, &kernel.captures);
    let mut checker = Checker::new(&kernel.captures, kernel.rank, Vec::new());
    checker.block(&kernel.body)?;
    Ok(checker.write_back(&mut kernel.body))
}

/// Reconstructs the types of an instance of `function` with `type_args`,
/// writing them into its literals and calls; returns its locals' types.
///
/// # Errors
///
/// [`Error::Compile`] if the body is ill-typed (a bug).
/// Gives the `tile_static` arrays of a generic function instance their
/// element types (`[T; 32]` with `T = f32`): the writer and the measure
/// read a declaration's type as it is.
fn instantiate_tile_static(b: &mut Block, args: &[Type]) {
    for s in &mut b.stmts {
        match &mut s.kind {
            StmtKind::TileStatic { ty, .. } => *ty = substitute(ty, args),
            StmtKind::If(_, a, b) => {
                instantiate_tile_static(a, args);
                if let Some(b) = b {
                    instantiate_tile_static(b, args);
                }
            }
            StmtKind::While(_, body) | StmtKind::Loop(body) | StmtKind::For { body, .. } => {
                instantiate_tile_static(body, args);
            }
            _ => {}
        }
    }
}

pub(crate) fn check_function(
    function: &mut Function,
    type_args: &[Type],
    captures: &[(&'static str, CaptureKind)],
    rank: u32,
) -> Result<Types> {
    let params: Vec<LocalId> = function.params.iter().map(|p| p.0).collect();
    crate::passes::lower::block(&mut function.body, &params);
    crate::passes::lower::geometry_captures(&mut function.body, captures);
    if !type_args.is_empty() {
        instantiate_tile_static(&mut function.body, type_args);
    }
    let mut checker = Checker::new(captures, rank, type_args.to_vec());
    let known: Vec<Term> = type_args.iter().map(|t| Term::Known(t.clone())).collect();
    for (local, _, ty) in &function.params {
        checker.locals.insert(*local, term_of(ty, &known));
    }
    let ret = function.ret.as_ref().map(|r| term_of(r, &known));
    checker.ret = ret.clone();
    let tail = checker.block(&function.body)?;
    if function.body.tail.is_some()
        && let Some(r) = &ret
    {
        checker.solver.unify(r, &tail, function.span)?;
    }
    Ok(checker.write_back(&mut function.body))
}

/// Writes the type of every expression of the typed kernel `kernel` (after
/// [`check`] and the passes, which add expressions without types) into
/// the expressions, its locals' types being `types`.
///
/// # Errors
///
/// [`Error::Compile`] if the body is ill-typed (a bug in a pass).
pub(crate) fn annotate(kernel: &mut Kernel, types: &Types) -> Result<()> {
    let mut checker = Checker::new(&kernel.captures, kernel.rank, Vec::new());
    checker.seed(types);
    checker.block(&kernel.body)?;
    checker.write_back(&mut kernel.body);
    Ok(())
}

/// [`annotate`] for an instance of `function` with `type_args` (after
/// [`check_function`] and the passes).
///
/// # Errors
///
/// [`Error::Compile`] if the body is ill-typed (a bug in a pass).
pub(crate) fn annotate_function(
    function: &mut Function,
    type_args: &[Type],
    captures: &[(&'static str, CaptureKind)],
    rank: u32,
    types: &Types,
) -> Result<()> {
    let mut checker = Checker::new(captures, rank, type_args.to_vec());
    checker.seed(types);
    let known: Vec<Term> = type_args.iter().map(|t| Term::Known(t.clone())).collect();
    for (local, _, ty) in &function.params {
        checker.locals.insert(*local, term_of(ty, &known));
    }
    let ret = function.ret.as_ref().map(|r| term_of(r, &known));
    checker.ret = ret.clone();
    let tail = checker.block(&function.body)?;
    if function.body.tail.is_some()
        && let Some(r) = &ret
    {
        checker.solver.unify(r, &tail, function.span)?;
    }
    checker.write_back(&mut function.body);
    Ok(())
}

fn write_literals_block(b: &mut Block, next: &mut Fill) {
    for s in &mut b.stmts {
        write_literals_stmt(s, next);
    }
    if let Some(t) = &mut b.tail {
        write_literals(t, next);
    }
}

fn write_literals_place(place: &mut Place, next: &mut Fill) {
    match place {
        Place::Local(_) => {}
        Place::Element(_, idx) | Place::ArrayElement(_, idx) => {
            idx.iter_mut().for_each(|i| write_literals(i, next));
        }
        Place::Field(base, _) => write_literals_place(base, next),
        Place::TileElement(_, idx) => idx.iter_mut().for_each(|i| write_literals(i, next)),
    }
}

fn write_literals_stmt(s: &mut Stmt, next: &mut Fill) {
    match &mut s.kind {
        StmtKind::Let { init, .. } => {
            if let Some(e) = init {
                write_literals(e, next);
            }
        }
        StmtKind::Assign(place, _, e) => {
            write_literals_place(place, next);
            write_literals(e, next);
        }
        StmtKind::Expr(e) => write_literals(e, next),
        StmtKind::If(c, a, b) => {
            write_literals(c, next);
            write_literals_block(a, next);
            if let Some(b) = b {
                write_literals_block(b, next);
            }
        }
        StmtKind::While(c, body) => {
            write_literals(c, next);
            write_literals_block(body, next);
        }
        StmtKind::Loop(body) => write_literals_block(body, next),
        StmtKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            write_literals(start, next);
            write_literals(end, next);
            if let Some(step) = step {
                write_literals(step, next);
            }
            write_literals_block(body, next);
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) => {}
        StmtKind::Return(Some(e)) => write_literals(e, next),
        StmtKind::Barrier(_) | StmtKind::TileStatic { .. } => {}
    }
}

/// The resolved types to write back, in traversal order.
struct Fill {
    lits: std::vec::IntoIter<Type>,
    calls: std::vec::IntoIter<Vec<Type>>,
}

/// Visits expressions in exactly the order [`Checker::expr`] does.
fn write_literals(e: &mut Expr, next: &mut Fill) {
    match &mut e.kind {
        ExprKind::Lit(Lit::Int(_, suffix @ None)) | ExprKind::Lit(Lit::Float(_, suffix @ None)) => {
            if let Some(Type::Scalar(s)) = next.lits.next() {
                *suffix = Some(s);
            }
        }
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::Capture(_)
        | ExprKind::KernelIndex
        | ExprKind::Extent(_) => {}
        ExprKind::Field(x, _) => write_literals(x, next),
        ExprKind::Tiled(_) => {}
        ExprKind::TileLoad(_, idx) => idx.iter_mut().for_each(|i| write_literals(i, next)),
        ExprKind::MakeVector(_, _, xs) | ExprKind::MakeTuple(xs) => {
            xs.iter_mut().for_each(|x| write_literals(x, next));
        }
        ExprKind::MakeStruct(_, fields) => {
            fields.iter_mut().for_each(|(_, x)| write_literals(x, next));
        }
        ExprKind::CallFn(_, args, type_args) => {
            args.iter_mut().for_each(|a| write_literals(a, next));
            *type_args = next.calls.next().unwrap_or_default();
        }
        ExprKind::AddrOf(place) => write_literals_place(place, next),
        ExprKind::Binary(_, l, r) => {
            write_literals(l, next);
            write_literals(r, next);
        }
        ExprKind::Unary(_, x) | ExprKind::Cast(x, _) => write_literals(x, next),
        ExprKind::Load(_, idx)
        | ExprKind::MakeIndex(idx)
        | ExprKind::MakeArray(idx)
        | ExprKind::Call(_, idx) => {
            idx.iter_mut().for_each(|i| write_literals(i, next));
        }
        ExprKind::Atomic(_, place, args) => {
            write_literals_place(place, next);
            args.iter_mut().for_each(|a| write_literals(a, next));
        }
        ExprKind::IndexComponent(a, b) | ExprKind::ArrayElement(a, b) => {
            write_literals(a, next);
            write_literals(b, next);
        }
        ExprKind::RepeatArray(x, _) => write_literals(x, next),
        ExprKind::If(c, a, b) => {
            write_literals(c, next);
            write_literals_block(a, next);
            write_literals_block(b, next);
        }
        ExprKind::Block(b) => write_literals_block(b, next),
    }
}
