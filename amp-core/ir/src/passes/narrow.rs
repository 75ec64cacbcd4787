//! Small integers (`u8`, `i8`, `u16`, `i16`) in WGSL's terms: WGSL has no
//! 8- or 16-bit integers, so a small integer is held in the 32-bit integer
//! of the same signedness ([`Scalar::wide`]), always inside its own range.
//! Every operation whose 32-bit result can leave that range is wrapped
//! back into it, as Rust's wrapping arithmetic on the small type gives:
//!
//! | operation (result of a small type) | wrapped by |
//! |---|---|
//! | `+`, `-`, `*`, `<<`, `/`, `%`, unary `-`, `wrapping_*`, `pow`, `abs` | `& 0xff` (unsigned), `<< 24 >> 24` (signed, sign-extending) |
//! | `!x` of an unsigned one | the same |
//! | `x as` a small type, from a wider integer | the same (truncation) |
//!
//! Comparisons, `&`, `|`, `^` and `>>` of values inside the range stay
//! inside it; loads and literals are inside it. Runs inside
//! [`legalize`](super::legalize), after the compound assignments are
//! expanded and before constant operands are bound (the wrapping shifts of
//! a constant would be constant expressions).

use crate::ir::*;

use super::visit;

/// Wraps every small-integer result of `b` that can leave its range.
pub(crate) fn block(b: &mut Block) {
    visit::exprs_mut(b, &mut expr);
}

fn expr(e: &mut Expr) {
    let Some(Type::Scalar(s)) = e.ty else {
        return;
    };
    if !s.is_small() || !leaves_range(e, s) {
        return;
    }
    let span = e.span;
    let inner = std::mem::replace(e, Expr::new(ExprKind::Lit(Lit::Bool(false)), span));
    *e = wrap(inner, s, span);
}

/// Whether the 32-bit result of `e`, of small type `s`, may lie outside
/// `s`'s range.
fn leaves_range(e: &Expr, s: Scalar) -> bool {
    match &e.kind {
        ExprKind::Binary(op, ..) => matches!(
            op,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::Div | BinOp::Rem
        ),
        ExprKind::Unary(UnOp::Neg, x) => !matches!(x.kind, ExprKind::Lit(_)),
        ExprKind::Unary(UnOp::Not, _) => !s.is_signed_int(),
        ExprKind::Cast(x, _) => match &x.ty {
            Some(Type::Scalar(from)) if from.is_int() => {
                let (lo, hi) = from.int_range();
                let (tlo, thi) = s.int_range();
                lo < tlo || hi > thi
            }
            _ => false,
        },
        ExprKind::Call(f, _) => matches!(
            f,
            Builtin::Abs
                | Builtin::WrappingAdd
                | Builtin::WrappingSub
                | Builtin::WrappingMul
                | Builtin::WrappingNeg
                | Builtin::Pow
        ),
        _ => false,
    }
}

/// `e` (of small type `s`, held in 32 bits) brought back into `s`'s range.
fn wrap(e: Expr, s: Scalar, span: Span) -> Expr {
    let ty = Type::Scalar(s);
    let binary = |op, l: Expr, r: Expr| {
        Expr::typed(
            ExprKind::Binary(op, Box::new(l), Box::new(r)),
            ty.clone(),
            span,
        )
    };
    if s.is_signed_int() {
        let shift = || {
            Expr::typed(
                ExprKind::Lit(Lit::Int(u128::from(32 - s.bits()), Some(Scalar::U32))),
                Type::Scalar(Scalar::U32),
                span,
            )
        };
        binary(BinOp::Shr, binary(BinOp::Shl, e, shift()), shift())
    } else {
        let mask = Expr::typed(
            ExprKind::Lit(Lit::Int(s.int_range().1 as u128, Some(s))),
            ty.clone(),
            span,
        );
        binary(BinOp::BitAnd, e, mask)
    }
}
