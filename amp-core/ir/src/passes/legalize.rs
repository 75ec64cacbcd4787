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
//! | float `x as` an integer type | saturating, NaN to 0 (Rust's `as`): `select` over a clamped conversion, NaN tested by its bits (drivers that assume no NaN fold `x != x`) |
//! | `-x` of an `f32` scalar or vector (not a literal) | the sign bit flipped through `to_bits`/`from_bits`, NaN included (NVIDIA gives a negated NaN a canonical sign) |
//! | `f32` `x / 0.0`, `x / -0.0` (a literal zero) | IEEE's result from `x`'s bits, without dividing (drivers that assume no infinities make `x / 0.0` poison: lavapipe dropped the store of the result) |
//! | `u8`, `i8`, `u16`, `i16` results | wrapped back into the type's range ([`narrow`](super::narrow)); shift amounts modulo 8 or 16 |
//! | `rem_euclid`, `div_euclid` (scalars) | the lowered `%` and `/` above, then Rust's adjustment of a negative remainder |
//! | the position of a `reinterpret_as` view's access given as an `Index<1>` (`w[idx]`) | its component |
//!
//! Last, operands that would make a WGSL *constant expression* are bound
//! to a local first (see [`hoist_constants`]): the shader compiler
//! evaluates constant expressions and refuses overflow, shifting bits out,
//! division by zero and non-finite results, where Rust wraps (and gives
//! inf or NaN) at run time.
//!
//! The writer prints what comes out operator for operator.

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
    if let Some(err) = cx.error {
        return Err(err);
    }
    super::narrow::block(b);
    hoist_constants(b, types, fresh);
    Ok(())
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
        // A small integer: `x = x op v`, whose operation `passes::narrow`
        // wraps, and whose element a packed container stores whole.
        (_, Type::Scalar(s)) if s.is_small() => true,
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
    match &e.kind {
        ExprKind::Binary(..) => {}
        ExprKind::Cast(..) => return float_to_int(e, types, fresh),
        ExprKind::Unary(UnOp::Neg, _) => return negation(e, types, fresh),
        ExprKind::Call(Builtin::RemEuclid | Builtin::DivEuclid, _) => {
            return euclid(e, types, fresh);
        }
        ExprKind::Call(f @ (Builtin::ReinterpretLoad | Builtin::ReinterpretStore), _) => {
            position_component(*f, e);
            return Ok(());
        }
        _ => return Ok(()),
    }
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
        (Type::Scalar(Scalar::F32), _) if op == BinOp::Div && literal_zero(&r).is_some() => {
            let negative = literal_zero(&r) == Some(true);
            div_by_zero(l, negative, span, types, fresh)
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
            // Modulo the type's width (8 and 16 for the small integers).
            let bits = s.bits();
            let amount = match fold::int(&r) {
                // A constant amount: reduced here.
                Some((v, _)) => int_lit(v.rem_euclid(i64::from(bits)), Scalar::U32, span),
                None => {
                    let amount = if rt == u32t {
                        r
                    } else {
                        Expr::typed(ExprKind::Cast(Box::new(r), Scalar::U32), u32t.clone(), span)
                    };
                    binary(
                        BinOp::Rem,
                        amount,
                        int_lit(i64::from(bits), Scalar::U32, span),
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
        if op == BinOp::Rem && s.is_signed_int() {
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
    // evaluates `l` before `r`: `l` stays in place only if neither has an
    // effect the other could see (`r` changing what `l` reads, or `l`
    // assigning what `r` reads: `r` is bound first).
    let a = if pure(&r) && (trivial(&l) || (s == Scalar::U32 && pure(&l))) {
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
        (_, s) if s.is_signed_int() => {
            let q = binary(BinOp::Div, a.clone(), d.clone(), st.clone(), span);
            let p = binary(BinOp::Mul, q, d, st, span);
            binary(BinOp::Sub, a, p, ty, span)
        }
        _ => binary(BinOp::Rem, a, d, ty, span),
    };
    block_expr(stmts, tail, span)
}

fn u32_lit(v: u32, span: Span) -> Expr {
    int_lit(i64::from(v), Scalar::U32, span)
}

fn float_lit(v: f64, s: Scalar, span: Span) -> Expr {
    Expr::typed(ExprKind::Lit(Lit::Float(v, Some(s))), Type::Scalar(s), span)
}

fn call(f: Builtin, args: Vec<Expr>, ty: Type, span: Span) -> Expr {
    Expr::typed(ExprKind::Call(f, args), ty, span)
}

/// WGSL's `select(f, t, c)`: `t` where `c`, else `f`.
fn select(f: Expr, t: Expr, c: Expr, span: Span) -> Expr {
    let ty = f.ty.clone().expect("typed operands");
    call(Builtin::Select, vec![f, t, c], ty, span)
}

/// `x.to_bits()` of an `f32` `x`.
fn to_bits(x: Expr, span: Span) -> Expr {
    call(Builtin::ToBits, vec![x], Type::Scalar(Scalar::U32), span)
}

/// `f32::from_bits(x)`.
fn from_bits(x: Expr, span: Span) -> Expr {
    call(Builtin::FromBits, vec![x], Type::Scalar(Scalar::F32), span)
}

/// Whether the `f32` whose bits are `bits` (a local) is a NaN, by its
/// bits: `x != x` is false on drivers that compare ordered or assume no
/// NaN (lavapipe).
fn is_nan_bits(bits: &Expr, span: Span) -> Expr {
    let u32t = Type::Scalar(Scalar::U32);
    let magnitude = binary(
        BinOp::BitAnd,
        bits.clone(),
        u32_lit(0x7fff_ffff, span),
        u32t,
        span,
    );
    binary(
        BinOp::Gt,
        magnitude,
        u32_lit(0x7f80_0000, span),
        Type::Scalar(Scalar::Bool),
        span,
    )
}

/// `Some(sign is negative)` if `e` is a float literal zero (`0.0`, `-0.0`,
/// `-(0.0)`).
fn literal_zero(e: &Expr) -> Option<bool> {
    match &e.kind {
        ExprKind::Lit(Lit::Float(z, _)) if *z == 0.0 => Some(z.is_sign_negative()),
        ExprKind::Unary(UnOp::Neg, x) => literal_zero(x).map(|n| !n),
        _ => None,
    }
}

/// `x / ±0.0` for an `f32` `x`, without dividing: NaN where `x` is zero or
/// NaN, else an infinity with the sign of `x` (flipped for `-0.0`).
fn div_by_zero(
    x: Expr,
    negative_zero: bool,
    span: Span,
    types: &mut Types,
    fresh: &mut Fresh,
) -> Expr {
    let u32t = Type::Scalar(Scalar::U32);
    let boolean = Type::Scalar(Scalar::Bool);
    let mut stmts = Vec::new();
    let bits = bind(to_bits(x, span), &u32t, "bits", types, fresh, &mut stmts);
    let sign = binary(
        BinOp::BitAnd,
        bits.clone(),
        u32_lit(0x8000_0000, span),
        u32t.clone(),
        span,
    );
    let sign = if negative_zero {
        binary(
            BinOp::BitXor,
            sign,
            u32_lit(0x8000_0000, span),
            u32t.clone(),
            span,
        )
    } else {
        sign
    };
    let infinity = binary(
        BinOp::BitOr,
        sign,
        u32_lit(0x7f80_0000, span),
        u32t.clone(),
        span,
    );
    let magnitude = binary(
        BinOp::BitAnd,
        bits.clone(),
        u32_lit(0x7fff_ffff, span),
        u32t.clone(),
        span,
    );
    let zero = binary(
        BinOp::Eq,
        magnitude,
        u32_lit(0, span),
        boolean.clone(),
        span,
    );
    let nan = binary(BinOp::Or, zero, is_nan_bits(&bits, span), boolean, span);
    let result = select(infinity, u32_lit(0x7fc0_0000, span), nan, span);
    block_expr(stmts, from_bits(result, span), span)
}

/// `x as` an integer type, of a float `x`: Rust's saturating conversion
/// (NaN to 0, the integer type's bounds past its range); other casts stay.
fn float_to_int(e: &mut Expr, types: &mut Types, fresh: &mut Fresh) -> Result<()> {
    let ExprKind::Cast(x, to) = &e.kind else {
        return Ok(());
    };
    let to = *to;
    let from = match &x.ty {
        Some(Type::Scalar(f)) if f.is_float() && to.is_int() => *f,
        Some(_) => return Ok(()),
        None => return Err(untyped(e.span)),
    };
    let span = e.span;
    let ExprKind::Cast(x, _) = std::mem::replace(&mut e.kind, ExprKind::Lit(Lit::Bool(false)))
    else {
        unreachable!("matched above")
    };
    // An `f16` converts to `f32` exactly first.
    let (x, from) = if from == Scalar::F16 {
        let wide = Expr::typed(
            ExprKind::Cast(x, Scalar::F32),
            Type::Scalar(Scalar::F32),
            span,
        );
        (wide, Scalar::F32)
    } else {
        (*x, from)
    };
    let ft = Type::Scalar(from);
    let boolean = Type::Scalar(Scalar::Bool);
    let mut stmts = Vec::new();
    let t = bind(x, &ft, "value", types, fresh, &mut stmts);
    // The largest values of `from` that convert exactly.
    let (lo, hi) = match (to, from) {
        // A small integer's bounds are exact in every float type.
        (s, _) if s.is_small() => {
            let (lo, hi) = s.int_range();
            (lo as f64, hi as f64)
        }
        (Scalar::I32, Scalar::F32) => (-2_147_483_648.0, 2_147_483_520.0),
        (Scalar::I32, _) => (-2_147_483_648.0, 2_147_483_647.0),
        (_, Scalar::F32) => (0.0, 4_294_967_040.0),
        _ => (0.0, 4_294_967_295.0),
    };
    let max = int_lit(to.int_range().1, to, span);
    let above = || {
        binary(
            BinOp::Gt,
            t.clone(),
            float_lit(hi, from, span),
            boolean.clone(),
            span,
        )
    };
    let bits_of = if from == Scalar::F32 {
        t.clone()
    } else {
        Expr::typed(
            ExprKind::Cast(Box::new(t.clone()), Scalar::F32),
            Type::Scalar(Scalar::F32),
            span,
        )
    };
    let nan = is_nan_bits(&to_bits(bits_of, span), span);
    let clamped = call(
        Builtin::Clamp,
        vec![
            t.clone(),
            float_lit(lo, from, span),
            float_lit(hi, from, span),
        ],
        ft,
        span,
    );
    let converted = Expr::typed(
        ExprKind::Cast(Box::new(clamped), to),
        Type::Scalar(to),
        span,
    );
    let special = select(int_lit(0, to, span), max, above(), span);
    let out_of_range = binary(BinOp::Or, nan, above(), boolean, span);
    *e = block_expr(stmts, select(converted, special, out_of_range, span), span);
    Ok(())
}

/// `-x` of an `f32` scalar or vector that is not a literal: the sign bit
/// flipped (the shader compiler negates literals exactly).
fn negation(e: &mut Expr, types: &mut Types, fresh: &mut Fresh) -> Result<()> {
    let ExprKind::Unary(UnOp::Neg, x) = &e.kind else {
        return Ok(());
    };
    if matches!(x.kind, ExprKind::Lit(_)) {
        return Ok(());
    }
    let n = match &x.ty {
        Some(Type::Scalar(Scalar::F32)) => None,
        Some(Type::Vector(n, Scalar::F32)) => Some(*n),
        Some(_) => return Ok(()),
        None => return Err(untyped(e.span)),
    };
    let span = e.span;
    let ExprKind::Unary(_, x) = std::mem::replace(&mut e.kind, ExprKind::Lit(Lit::Bool(false)))
    else {
        unreachable!("matched above")
    };
    let flip = |c: Expr| {
        let bits = binary(
            BinOp::BitXor,
            to_bits(c, span),
            u32_lit(0x8000_0000, span),
            Type::Scalar(Scalar::U32),
            span,
        );
        from_bits(bits, span)
    };
    *e = match n {
        None => flip(*x),
        Some(n) => {
            // Component by component.
            let ty = Type::Vector(n, Scalar::F32);
            let mut stmts = Vec::new();
            let v = bind(*x, &ty, "vector", types, fresh, &mut stmts);
            let parts = ["x", "y", "z", "w"][..usize::from(n)]
                .iter()
                .map(|c| {
                    flip(Expr::typed(
                        ExprKind::Field(Box::new(v.clone()), Member::Named(c)),
                        Type::Scalar(Scalar::F32),
                        span,
                    ))
                })
                .collect();
            block_expr(
                stmts,
                Expr::typed(ExprKind::MakeVector(n, Scalar::F32, parts), ty, span),
                span,
            )
        }
    };
    Ok(())
}

/// `x.rem_euclid(y)`, `x.div_euclid(y)` of scalars: the lowered `%` (and
/// `/`), then Rust's adjustment where the remainder is negative.
fn euclid(e: &mut Expr, types: &mut Types, fresh: &mut Fresh) -> Result<()> {
    let ExprKind::Call(f, args) = &e.kind else {
        return Ok(());
    };
    let f = *f;
    let s = match (&e.ty, args.len()) {
        (Some(Type::Scalar(s)), 2) => *s,
        // Not a scalar: the writer refuses it.
        (Some(_), _) => return Ok(()),
        (None, _) => return Err(untyped(e.span)),
    };
    let span = e.span;
    let ExprKind::Call(_, args) = std::mem::replace(&mut e.kind, ExprKind::Lit(Lit::Bool(false)))
    else {
        unreachable!("matched above")
    };
    let st = Type::Scalar(s);
    let boolean = Type::Scalar(Scalar::Bool);
    let mut args = args.into_iter();
    let (x, y) = (args.next().expect("two"), args.next().expect("two"));
    let mut stmts = Vec::new();
    let x = bind(x, &st, "lhs", types, fresh, &mut stmts);
    let y = bind(y, &st, "rhs", types, fresh, &mut stmts);
    let op = |op: BinOp, types: &mut Types, fresh: &mut Fresh| {
        lower(
            op,
            x.clone(),
            st.clone(),
            y.clone(),
            st.clone(),
            st.clone(),
            span,
            types,
            fresh,
        )
    };
    if s == Scalar::U32 {
        // Unsigned: the remainder is never negative.
        let tail = op(
            if f == Builtin::RemEuclid {
                BinOp::Rem
            } else {
                BinOp::Div
            },
            types,
            fresh,
        );
        *e = block_expr(stmts, tail, span);
        return Ok(());
    }
    let r = op(BinOp::Rem, types, fresh);
    let r = bind(r, &st, "remainder", types, fresh, &mut stmts);
    let (zero, one) = if s.is_float() {
        (float_lit(0.0, s, span), float_lit(1.0, s, span))
    } else {
        (int_lit(0, s, span), int_lit(1, s, span))
    };
    let negative = binary(BinOp::Lt, r.clone(), zero.clone(), boolean.clone(), span);
    let tail = if s.is_float() {
        if f == Builtin::RemEuclid {
            // `r + |y|` for a negative remainder.
            let abs = call(Builtin::Abs, vec![y.clone()], st.clone(), span);
            let adjusted = binary(BinOp::Add, r.clone(), abs, st.clone(), span);
            select(r, adjusted, negative, span)
        } else {
            // The quotient truncated, adjusted the same way.
            let q = binary(BinOp::Div, x.clone(), y.clone(), st.clone(), span);
            let q = bind(q, &st, "quotient", types, fresh, &mut stmts);
            let ceil = call(Builtin::Ceil, vec![q.clone()], st.clone(), span);
            let floor = call(Builtin::Floor, vec![q.clone()], st.clone(), span);
            let at_or_above = binary(BinOp::Ge, q, zero, boolean.clone(), span);
            let qt = bind(
                select(ceil, floor, at_or_above, span),
                &st,
                "truncated",
                types,
                fresh,
                &mut stmts,
            );
            let up = binary(BinOp::Add, qt.clone(), one.clone(), st.clone(), span);
            let down = binary(BinOp::Sub, qt.clone(), one, st.clone(), span);
            let positive = binary(BinOp::Gt, y, float_lit(0.0, s, span), boolean, span);
            select(qt, select(up, down, positive, span), negative, span)
        }
    } else {
        // `i32`: `r + |y|` (wrapping) for a negative remainder.
        let y_negative = binary(BinOp::Lt, y.clone(), zero, boolean, span);
        if f == Builtin::RemEuclid {
            let plus = binary(BinOp::Add, r.clone(), y.clone(), st.clone(), span);
            let minus = binary(BinOp::Sub, r.clone(), y, st.clone(), span);
            select(r, select(plus, minus, y_negative, span), negative, span)
        } else {
            let q = op(BinOp::Div, types, fresh);
            let q = bind(q, &st, "quotient", types, fresh, &mut stmts);
            let down = binary(BinOp::Sub, q.clone(), one.clone(), st.clone(), span);
            let up = binary(BinOp::Add, q.clone(), one, st.clone(), span);
            select(q, select(down, up, y_negative, span), negative, span)
        }
    };
    *e = block_expr(stmts, tail, span);
    Ok(())
}

/// Whether `e` is written as a WGSL constant expression: literals, and
/// operators, casts, built-ins and constructors of them (a block whose
/// value is constant is written as its value).
fn is_const(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_) => true,
        ExprKind::Unary(_, x) | ExprKind::Cast(x, _) => is_const(x),
        ExprKind::Binary(_, l, r) => is_const(l) && is_const(r),
        ExprKind::Call(_, args) | ExprKind::MakeVector(_, _, args) => args.iter().all(is_const),
        ExprKind::Block(b) => b.tail.as_ref().is_some_and(|t| is_const(t)),
        _ => false,
    }
}

/// Operators whose constant evaluation can fail in WGSL.
fn is_arithmetic(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr
    )
}

/// Binds the first operand of each operation on constants to a local,
/// so that no WGSL constant expression forms where Rust computes at run
/// time: arithmetic on two constants (`i32::MAX + 1` wraps in Rust, and
/// is a shader-creation error as a constant expression), a unary operator
/// on a constant that is not a literal (`-i32::MIN`), a cast of a
/// constant (`1e300 as f32` is inf), a built-in of constants
/// (`(-1.0f32).sqrt()` is NaN).
pub(crate) fn hoist_constants(b: &mut Block, types: &mut Types, fresh: &mut Fresh) {
    visit::exprs_mut(b, &mut |e| {
        let span = e.span;
        let operand: Option<&mut Expr> = match &mut e.kind {
            ExprKind::Binary(op, l, r) if is_arithmetic(*op) && is_const(l) && is_const(r) => {
                Some(l)
            }
            ExprKind::Unary(_, x) if is_const(x) && !matches!(x.kind, ExprKind::Lit(_)) => Some(x),
            ExprKind::Cast(x, _) if is_const(x) => Some(x),
            ExprKind::Call(f, args)
                if !matches!(
                    f,
                    Builtin::UniformLoad
                        | Builtin::ReinterpretLoad
                        | Builtin::ReinterpretStore
                        | Builtin::Bitcast
                ) && !args.is_empty()
                    && args.iter().all(is_const) =>
            {
                args.first_mut()
            }
            _ => None,
        };
        let Some(operand) = operand else { return };
        let Some(ty) = operand.ty.clone() else { return };
        let value = std::mem::replace(operand, Expr::new(ExprKind::Lit(Lit::Bool(false)), span));
        let mut stmts = Vec::new();
        *operand = bind(value, &ty, "constant", types, fresh, &mut stmts);
        let node = std::mem::replace(e, Expr::new(ExprKind::Lit(Lit::Bool(false)), span));
        *e = block_expr(stmts, node, span);
    });
}

/// The position of a `reinterpret_as` view's access given as an
/// `Index<1>` (`w[idx]`): its component, an `i32`.
fn position_component(f: Builtin, e: &mut Expr) {
    let ExprKind::Call(_, args) = &mut e.kind else {
        return;
    };
    // `[view, k, witness]` to load, `[view, value, k]` to store.
    let at = if f == Builtin::ReinterpretLoad { 1 } else { 2 };
    let Some(k) = args.get_mut(at) else { return };
    if k.ty != Some(Type::Index(1)) {
        return;
    }
    let span = k.span;
    let index = std::mem::replace(k, Expr::new(ExprKind::Lit(Lit::Bool(false)), span));
    *k = Expr::typed(
        ExprKind::IndexComponent(Box::new(index), Box::new(int_lit(0, Scalar::U32, span))),
        Type::Scalar(Scalar::I32),
        span,
    );
}
