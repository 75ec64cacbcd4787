//! Rust's semantics in WGSL's terms: the target lowering that runs last,
//! on typed IR (after [`typeck::annotate`](crate::typeck::annotate)), so
//! that the WGSL writer prints each operator as WGSL's own.
//!
//! | Rust | WGSL after this pass |
//! |---|---|
//! | integer `l / r`, `l % r` | the divisor becomes 1 where Rust's wrapping result is WGSL's (`x / 0 == x`, `x % 0 == 0`, `MIN / -1 == MIN`, `MIN % -1 == 0`), so that no backend divides by zero or overflows (undefined in GLSL, a shader-creation error in a WGSL constant expression); `i32` `%` is `l - (l / d) * d` (GLSL leaves `%` of negative operands undefined) |
//! | the same on `Index<N>` and integer vectors | component by component |
//! | float `l % r` | [`Builtin::Fmod`]: C's exact `fmod`, as Rust's `%` (WGSL's `%` is `l - r * trunc(l / r)`, inexact) |
//! | float `l != r` (scalars and vectors) | `!(l == r)`: true where an operand is NaN, as IEEE and Rust say; drivers may compile WGSL's `!=` to an ordered comparison |
//! | `bool` `l ^ r` | `l != r` (WGSL has no `^` on `bool`) |
//! | scalar `l << r`, `l >> r` | the amount as `u32` modulo 32 (Rust's wrapping shifts; a shift of 32 or more is a shader-creation error in a WGSL constant expression) |
//!
//! What the writer still decides itself, to be moved here next: float to
//! integer casts (saturating, NaN to 0), `f32` negation by the sign bit,
//! `x / 0.0` written as IEEE's result, and operands hoisted out of WGSL
//! constant expressions.

use crate::ir::*;
use crate::typeck::Types;
use crate::{Error, Result};

use super::{Fresh, fold, visit};

/// Lowers every Rust-semantics operator of `b` (typed: every expression
/// carries its type) to WGSL's, declaring the locals it adds in `types`.
///
/// # Errors
///
/// [`Error::Compile`] if an operator to lower has no type (a bug: a pass
/// added it after the types were annotated).
pub(crate) fn block(
    b: &mut Block,
    captures: &[(&'static str, CaptureKind)],
    types: &mut Types,
    fresh: &mut Fresh,
) -> Result<()> {
    let mut error = None;
    visit::exprs_mut(b, &mut |e| {
        if error.is_none()
            && let Err(err) = expr(e, types, fresh)
        {
            error = Some(err);
        }
    });
    if let Some(err) = error {
        return Err(err);
    }
    // Compound assignments, in every statement list: those of statements
    // (the body, branches, loops) and those of blocks inside expressions.
    let mut cx = Compound {
        captures,
        types,
        fresh,
        error: None,
    };
    cx.statement_blocks(b);
    visit::exprs_mut(b, &mut |e| match &mut e.kind {
        ExprKind::Block(inner) => cx.stmts(&mut inner.stmts),
        ExprKind::If(_, a, b) => {
            cx.stmts(&mut a.stmts);
            cx.stmts(&mut b.stmts);
        }
        _ => {}
    });
    cx.error.map_or(Ok(()), Err)
}

/// The lowering of compound assignments (`place op= value`) whose
/// operator [`lower`] rewrites: the value first (bound to a local, as Rust
/// evaluates it first), then the place's indices (bound to locals, so
/// that they are evaluated once), then `place = place op value`.
struct Compound<'a> {
    captures: &'a [(&'static str, CaptureKind)],
    types: &'a mut Types,
    fresh: &'a mut Fresh,
    error: Option<Error>,
}

impl Compound<'_> {
    /// Lowers the statement lists of `b` and of the statements nested in
    /// it (not those inside expressions).
    fn statement_blocks(&mut self, b: &mut Block) {
        for s in &mut b.stmts {
            match &mut s.kind {
                StmtKind::If(_, a, e) => {
                    self.statement_blocks(a);
                    if let Some(e) = e {
                        self.statement_blocks(e);
                    }
                }
                StmtKind::While(_, body) | StmtKind::Loop(body) | StmtKind::For { body, .. } => {
                    self.statement_blocks(body)
                }
                _ => {}
            }
        }
        self.stmts(&mut b.stmts);
    }

    /// Lowers the compound assignments of one statement list.
    fn stmts(&mut self, stmts: &mut Vec<Stmt>) {
        if !stmts
            .iter()
            .any(|s| matches!(s.kind, StmtKind::Assign(_, Some(_), _)))
        {
            return;
        }
        let mut out = Vec::with_capacity(stmts.len());
        for s in std::mem::take(stmts) {
            match s.kind {
                StmtKind::Assign(place, Some(op), value) => {
                    match self.assign(place, op, value, s.span, &mut out) {
                        Ok(()) => {}
                        Err(e) => {
                            self.error.get_or_insert(e);
                        }
                    }
                }
                kind => out.push(Stmt { kind, ..s }),
            }
        }
        *stmts = out;
    }

    fn assign(
        &mut self,
        place: Place,
        op: BinOp,
        value: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        let place_ty =
            place_type(&place, self.captures, self.types).ok_or_else(|| untyped(span))?;
        let value_ty = value.ty.clone().ok_or_else(|| untyped(span))?;
        if !lowered(op, &place_ty) {
            out.push(Stmt::new(StmtKind::Assign(place, Some(op), value), span));
            return Ok(());
        }
        let mut indices = Vec::new();
        visit::place_exprs(&place, &mut indices);
        let in_order = pure(&value) && indices.iter().all(|x| pure(x));
        let (v, place) = if in_order {
            // Nothing to order: the value and the place are read as they
            // are.
            (value, place)
        } else {
            let v = bind(value, &value_ty, "rhs", self.types, self.fresh, out);
            (v, self.bind_indices(place, out))
        };
        let current = read(&place, &place_ty, span);
        let new = lower(
            op,
            current,
            place_ty.clone(),
            v,
            value_ty,
            place_ty,
            span,
            self.types,
            self.fresh,
        );
        out.push(Stmt::new(StmtKind::Assign(place, None, new), span));
        Ok(())
    }

    /// `place` with each index that is not a local or a constant bound to
    /// a local first, in Rust's order.
    fn bind_indices(&mut self, place: Place, out: &mut Vec<Stmt>) -> Place {
        let idx = |xs: Vec<Expr>, this: &mut Self, out: &mut Vec<Stmt>| -> Vec<Expr> {
            xs.into_iter()
                .map(|x| match (&x.kind, x.ty.clone()) {
                    (ExprKind::Local(_) | ExprKind::Lit(_) | ExprKind::KernelIndex, _)
                    | (_, None) => x,
                    (_, Some(t)) => bind(x, &t, "index", this.types, this.fresh, out),
                })
                .collect()
        };
        match place {
            Place::Local(id) => Place::Local(id),
            Place::Element(c, xs) => Place::Element(c, idx(xs, self, out)),
            Place::ArrayElement(id, xs) => Place::ArrayElement(id, idx(xs, self, out)),
            Place::TileElement(id, xs) => Place::TileElement(id, idx(xs, self, out)),
            Place::Field(p, m) => Place::Field(Box::new(self.bind_indices(*p, out)), m),
        }
    }
}

/// Whether [`lower`] rewrites `op` on a left operand of type `t`.
fn lowered(op: BinOp, t: &Type) -> bool {
    match (op, t) {
        (BinOp::Div | BinOp::Rem, Type::Index(_)) => true,
        (BinOp::Div | BinOp::Rem, Type::Scalar(s) | Type::Vector(_, s)) => {
            s.is_int() || op == BinOp::Rem
        }
        (BinOp::BitXor, Type::Scalar(Scalar::Bool)) => true,
        (BinOp::Shl | BinOp::Shr, Type::Scalar(s)) => s.is_int(),
        _ => false,
    }
}

/// The type of `place`.
fn place_type(
    place: &Place,
    captures: &[(&'static str, CaptureKind)],
    types: &Types,
) -> Option<Type> {
    let element = |mut t: Type, n: usize| {
        for _ in 0..n {
            t = match t {
                Type::Array(e, _) => *e,
                other => return Some(other),
            };
        }
        Some(t)
    };
    match place {
        Place::Local(id) => types.locals.get(id).cloned(),
        Place::Element(c, _) => match &captures.get(c.0 as usize)?.1 {
            CaptureKind::Container { elem, .. } => Some(elem.clone()),
            _ => None,
        },
        Place::ArrayElement(id, xs) | Place::TileElement(id, xs) => {
            element(types.locals.get(id)?.clone(), xs.len())
        }
        Place::Field(p, m) => place_type(p, captures, types)?.member(m),
    }
}

/// An expression reading `place` (its indices bound already).
fn read(place: &Place, ty: &Type, span: Span) -> Expr {
    let kind = match place {
        Place::Local(id) => ExprKind::Local(*id),
        Place::Element(c, xs) => ExprKind::Load(*c, xs.clone()),
        Place::TileElement(id, xs) => ExprKind::TileLoad(*id, xs.clone()),
        Place::ArrayElement(id, xs) => {
            let mut e = Expr::new(ExprKind::Local(*id), span);
            for x in xs {
                e = Expr::new(
                    ExprKind::ArrayElement(Box::new(e), Box::new(x.clone())),
                    span,
                );
            }
            return Expr {
                ty: Some(ty.clone()),
                ..e
            };
        }
        Place::Field(p, m) => ExprKind::Field(Box::new(read(p, ty, span)), m.clone()),
    };
    Expr::typed(kind, ty.clone(), span)
}

fn untyped(span: Span) -> Error {
    Error::Compile {
        kernel: span.to_string(),
        message: "an operator reached the WGSL lowering without a type (a bug in amp-rs)"
            .to_string(),
    }
}

/// Lowers `e` (its operands are lowered already).
fn expr(e: &mut Expr, types: &mut Types, fresh: &mut Fresh) -> Result<()> {
    let ExprKind::Binary(op, l, r) = &e.kind else {
        return Ok(());
    };
    let op = *op;
    if !matches!(
        op,
        BinOp::Div | BinOp::Rem | BinOp::Ne | BinOp::BitXor | BinOp::Shl | BinOp::Shr
    ) {
        return Ok(());
    }
    let span = e.span;
    let (Some(lt), Some(rt)) = (l.ty.clone(), r.ty.clone()) else {
        return Err(untyped(span));
    };
    let ExprKind::Binary(_, l, r) = std::mem::replace(&mut e.kind, ExprKind::Lit(Lit::Bool(false)))
    else {
        unreachable!("matched above")
    };
    let (l, r) = (*l, *r);
    let ty = e.ty.clone().ok_or_else(|| untyped(span))?;
    *e = lower(op, l, lt, r, rt, ty, span, types, fresh);
    Ok(())
}

/// A local of type `ty` initialised with `init`, and an expression reading
/// it.
fn bind(
    init: Expr,
    ty: &Type,
    name: &'static str,
    types: &mut Types,
    fresh: &mut Fresh,
    stmts: &mut Vec<Stmt>,
) -> Expr {
    let span = init.span;
    let local = fresh.next();
    types.locals.insert(local, ty.clone());
    stmts.push(Stmt::new(
        StmtKind::Let {
            local,
            name,
            ty: None,
            init: Some(init),
        },
        span,
    ));
    Expr::typed(ExprKind::Local(local), ty.clone(), span)
}

/// Whether `e` may be written more than once at no cost and with no
/// effect: a local, a constant or a scalar capture.
fn trivial(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Lit(_) | ExprKind::Capture(_) => true,
        ExprKind::Unary(UnOp::Neg, x) => matches!(x.kind, ExprKind::Lit(_)),
        // A component of a local index or vector.
        ExprKind::IndexComponent(x, i) => {
            matches!(x.kind, ExprKind::Local(_)) && matches!(i.kind, ExprKind::Lit(_))
        }
        ExprKind::Field(x, _) => matches!(x.kind, ExprKind::Local(_)),
        _ => false,
    }
}

/// Whether evaluating `e` has no effect (so that it may move past other
/// evaluations): no block, branch, call of a `#[kernel]` function, atomic
/// or reference.
fn pure(e: &Expr) -> bool {
    let mut pure = true;
    visit::expr_mut(&mut e.clone(), &mut |x| {
        pure &= !matches!(
            x.kind,
            ExprKind::Block(_)
                | ExprKind::If(..)
                | ExprKind::CallFn(..)
                | ExprKind::Atomic(..)
                | ExprKind::AddrOf(_)
                | ExprKind::Call(Builtin::ReinterpretStore, _)
        );
    });
    pure
}

/// `e` itself if it is [`trivial`], else a local bound to it.
fn bind_unless_trivial(
    e: Expr,
    ty: &Type,
    name: &'static str,
    types: &mut Types,
    fresh: &mut Fresh,
    stmts: &mut Vec<Stmt>,
) -> Expr {
    if trivial(&e) {
        e
    } else {
        bind(e, ty, name, types, fresh, stmts)
    }
}

fn binary(op: BinOp, l: Expr, r: Expr, ty: Type, span: Span) -> Expr {
    Expr::typed(ExprKind::Binary(op, Box::new(l), Box::new(r)), ty, span)
}

fn int_lit(v: i64, s: Scalar, span: Span) -> Expr {
    let mut e = fold::int_expr(v, s, span);
    visit::expr_mut(&mut e, &mut |x| x.ty = Some(Type::Scalar(s)));
    e
}

/// `op` of `l` and `r` in WGSL's terms (see the module docs).
#[allow(clippy::too_many_arguments)]
fn lower(
    op: BinOp,
    l: Expr,
    lt: Type,
    r: Expr,
    rt: Type,
    ty: Type,
    span: Span,
    types: &mut Types,
    fresh: &mut Fresh,
) -> Expr {
    let boolean = Type::Scalar(Scalar::Bool);
    match (&lt, &rt) {
        // Index arithmetic: component by component (a scalar operand
        // applies to every component).
        (Type::Index(n), _) | (_, Type::Index(n)) if matches!(op, BinOp::Div | BinOp::Rem) => {
            let n = *n;
            let mut stmts = Vec::new();
            let a = bind_unless_trivial(l, &lt, "lhs", types, fresh, &mut stmts);
            let b = bind_unless_trivial(r, &rt, "rhs", types, fresh, &mut stmts);
            let i32t = Type::Scalar(Scalar::I32);
            let part = |x: &Expr, t: &Type, d: u32| match t {
                Type::Index(_) => Expr::typed(
                    ExprKind::IndexComponent(
                        Box::new(x.clone()),
                        Box::new(int_lit(i64::from(d), Scalar::U32, span)),
                    ),
                    Type::Scalar(Scalar::I32),
                    span,
                ),
                _ => x.clone(),
            };
            let parts = (0..n)
                .map(|d| {
                    lower(
                        op,
                        part(&a, &lt, d),
                        i32t.clone(),
                        part(&b, &rt, d),
                        i32t.clone(),
                        i32t.clone(),
                        span,
                        types,
                        fresh,
                    )
                })
                .collect();
            block_expr(
                stmts,
                Expr::typed(ExprKind::MakeIndex(parts), ty, span),
                span,
            )
        }
        // Integer vectors: component by component.
        (Type::Vector(n, s), _) | (_, Type::Vector(n, s))
            if s.is_int() && matches!(op, BinOp::Div | BinOp::Rem) =>
        {
            let (n, s) = (*n, *s);
            let st = Type::Scalar(s);
            let mut stmts = Vec::new();
            let a = bind(l, &lt, "lhs", types, fresh, &mut stmts);
            let b = bind(r, &rt, "rhs", types, fresh, &mut stmts);
            let part = |x: &Expr, t: &Type, c: &'static str| match t {
                Type::Vector(..) => Expr::typed(
                    ExprKind::Field(Box::new(x.clone()), Member::Named(c)),
                    st.clone(),
                    span,
                ),
                _ => x.clone(),
            };
            let parts = ["x", "y", "z", "w"][..usize::from(n)]
                .iter()
                .map(|c| {
                    lower(
                        op,
                        part(&a, &lt, c),
                        st.clone(),
                        part(&b, &rt, c),
                        st.clone(),
                        st.clone(),
                        span,
                        types,
                        fresh,
                    )
                })
                .collect();
            block_expr(
                stmts,
                Expr::typed(ExprKind::MakeVector(n, s, parts), ty, span),
                span,
            )
        }
        (Type::Scalar(s), _) if s.is_int() && matches!(op, BinOp::Div | BinOp::Rem) => {
            int_div(op, l, r, *s, ty, span, types, fresh)
        }
        (Type::Scalar(s) | Type::Vector(_, s), _) if s.is_float() && op == BinOp::Rem => {
            Expr::typed(ExprKind::Call(Builtin::Fmod, vec![l, r]), ty, span)
        }
        (Type::Scalar(s) | Type::Vector(_, s), _) if s.is_float() && op == BinOp::Ne => {
            let eq = binary(BinOp::Eq, l, r, boolean.clone(), span);
            Expr::typed(ExprKind::Unary(UnOp::Not, Box::new(eq)), boolean, span)
        }
        (Type::Scalar(Scalar::Bool), _) if op == BinOp::BitXor => binary(BinOp::Ne, l, r, ty, span),
        (Type::Scalar(s), _) if s.is_int() && matches!(op, BinOp::Shl | BinOp::Shr) => {
            let u32t = Type::Scalar(Scalar::U32);
            let amount = match fold::int(&r) {
                // A constant amount: reduced here.
                Some((v, _)) => int_lit(v.rem_euclid(32), Scalar::U32, span),
                None => {
                    let amount = if rt == u32t {
                        r
                    } else {
                        Expr::typed(ExprKind::Cast(Box::new(r), Scalar::U32), u32t.clone(), span)
                    };
                    binary(
                        BinOp::Rem,
                        amount,
                        int_lit(32, Scalar::U32, span),
                        u32t,
                        span,
                    )
                }
            };
            binary(op, l, amount, ty, span)
        }
        _ => binary(op, l, r, ty, span),
    }
}

/// A block expression: `stmts`, then `tail`.
fn block_expr(stmts: Vec<Stmt>, tail: Expr, span: Span) -> Expr {
    if stmts.is_empty() {
        return tail;
    }
    let ty = tail.ty.clone();
    Expr {
        kind: ExprKind::Block(Block {
            stmts,
            tail: Some(Box::new(tail)),
        }),
        span,
        ty,
    }
}

/// Scalar integer `l / r` or `l % r` with Rust's wrapping results.
#[allow(clippy::too_many_arguments)]
fn int_div(
    op: BinOp,
    l: Expr,
    r: Expr,
    s: Scalar,
    ty: Type,
    span: Span,
    types: &mut Types,
    fresh: &mut Fresh,
) -> Expr {
    let st = Type::Scalar(s);
    let boolean = Type::Scalar(Scalar::Bool);
    let safe_constant =
        matches!(fold::int(&r), Some((d, _)) if d != 0 && (d != -1 || s == Scalar::U32));
    if safe_constant {
        // A divisor that is a constant other than 0 (and -1 for `i32`)
        // needs no guard.
        if op == BinOp::Rem && s == Scalar::I32 {
            let mut stmts = Vec::new();
            let a = bind_unless_trivial(l, &st, "lhs", types, fresh, &mut stmts);
            let q = binary(BinOp::Div, a.clone(), r.clone(), st.clone(), span);
            let p = binary(BinOp::Mul, q, r, st.clone(), span);
            return block_expr(stmts, binary(BinOp::Sub, a, p, ty, span), span);
        }
        return binary(op, l, r, ty, span);
    }
    let mut stmts = Vec::new();
    // `l` is read twice for `i32` (the overflow test), `r` always. Rust
    // evaluates `l` before `r`: `l` stays in place only if `r` has no
    // effect (which could change what `l` reads).
    let a = if pure(&r) && (trivial(&l) || s == Scalar::U32) {
        l
    } else {
        bind(l, &st, "lhs", types, fresh, &mut stmts)
    };
    let b = bind_unless_trivial(r, &st, "rhs", types, fresh, &mut stmts);
    let zero = binary(
        BinOp::Eq,
        b.clone(),
        int_lit(0, s, span),
        boolean.clone(),
        span,
    );
    let unsafe_divisor = if s == Scalar::I32 {
        let min = binary(
            BinOp::Eq,
            a.clone(),
            int_lit(i64::from(i32::MIN), s, span),
            boolean.clone(),
            span,
        );
        let minus_one = binary(
            BinOp::Eq,
            b.clone(),
            int_lit(-1, s, span),
            boolean.clone(),
            span,
        );
        let overflow = binary(BinOp::And, min, minus_one, boolean.clone(), span);
        binary(BinOp::Or, zero, overflow, boolean, span)
    } else {
        zero
    };
    let divisor = Expr::typed(
        ExprKind::Call(
            Builtin::Select,
            vec![b, int_lit(1, s, span), unsafe_divisor],
        ),
        st.clone(),
        span,
    );
    let d = bind(divisor, &st, "divisor", types, fresh, &mut stmts);
    let tail = match (op, s) {
        (BinOp::Div, _) => binary(BinOp::Div, a, d, ty, span),
        (_, Scalar::I32) => {
            let q = binary(BinOp::Div, a.clone(), d.clone(), st.clone(), span);
            let p = binary(BinOp::Mul, q, d, st, span);
            binary(BinOp::Sub, a, p, ty, span)
        }
        _ => binary(BinOp::Rem, a, d, ty, span),
    };
    block_expr(stmts, tail, span)
}
