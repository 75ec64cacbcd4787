//! Constant folding and propagation.
//!
//! Integer and boolean operations on constants become constants, with the
//! kernel language's semantics (wrapping arithmetic; `x / 0 == x`,
//! `x % 0 == 0`, `MIN / -1 == MIN`; shift amounts modulo 32), which are
//! also the native form's: folding never changes a result. Float
//! arithmetic is left to the shader compiler (a GPU's rounding of some
//! operations is not the host's). A local bound once to a constant and
//! never assigned is replaced by the constant; a branch on a constant keeps
//! the side that runs.

use std::collections::HashMap;

use super::visit;
use crate::ir::*;

/// The value of an integer constant (`3i`, `-3i`, `7u`) and its type.
pub(crate) fn int(e: &Expr) -> Option<(i64, Scalar)> {
    match &e.kind {
        ExprKind::Lit(Lit::Int(v, Some(s))) => match s {
            Scalar::I32 if *v <= i32::MAX as u128 => Some((*v as i64, Scalar::I32)),
            Scalar::U32 if *v <= u32::MAX as u128 => Some((*v as i64, Scalar::U32)),
            _ => None,
        },
        ExprKind::Unary(UnOp::Neg, x) => match &x.kind {
            ExprKind::Lit(Lit::Int(v, Some(Scalar::I32))) if *v <= 1 << 31 => {
                Some((-(*v as i64), Scalar::I32))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The constant expression for `v` (wrapped to `s`) as the macros would
/// write it: a literal, negated when below zero.
pub(crate) fn int_expr(v: i64, s: Scalar, span: Span) -> Expr {
    let v = wrap(v as i128, s);
    let lit = |m: u128| Expr::new(ExprKind::Lit(Lit::Int(m, Some(s))), span);
    if v < 0 {
        Expr::new(
            ExprKind::Unary(UnOp::Neg, Box::new(lit(v.unsigned_abs() as u128))),
            span,
        )
    } else {
        lit(v as u128)
    }
}

/// `v` wrapped to the range of `s`, as Rust's `as` does.
fn wrap(v: i128, s: Scalar) -> i64 {
    match s {
        Scalar::U32 => i64::from(v as u32),
        Scalar::U8 => i64::from(v as u8),
        Scalar::I8 => i64::from(v as i8),
        Scalar::U16 => i64::from(v as u16),
        Scalar::I16 => i64::from(v as i16),
        _ => i64::from(v as i32),
    }
}

fn bool_of(e: &Expr) -> Option<bool> {
    match e.kind {
        ExprKind::Lit(Lit::Bool(b)) => Some(b),
        _ => None,
    }
}

fn bool_expr(b: bool, span: Span) -> Expr {
    Expr::new(ExprKind::Lit(Lit::Bool(b)), span)
}

/// Whether `e` is a constant the passes know the value of.
pub(crate) fn is_constant(e: &Expr) -> bool {
    int(e).is_some() || bool_of(e).is_some()
}

/// Folds `e` in place, assuming its operands are folded already (called
/// children first by [`visit::expr_mut`]).
pub(crate) fn expr(e: &mut Expr) {
    let span = e.span;
    let folded = match &e.kind {
        ExprKind::Unary(op, x) => match (op, &x.kind) {
            // `-3i` is how a negative constant is written: already folded.
            (UnOp::Neg, ExprKind::Lit(_)) => None,
            (UnOp::Neg, _) => int(x).map(|(v, s)| int_expr(-v, s, span)),
            (UnOp::Not, _) => match (bool_of(x), int(x)) {
                (Some(b), _) => Some(bool_expr(!b, span)),
                (_, Some((v, s))) => Some(int_expr(!v, s, span)),
                _ => None,
            },
        },
        ExprKind::Binary(op, l, r) => binary(*op, l, r, span),
        ExprKind::Cast(x, to) if to.is_int() => match (int(x), bool_of(x)) {
            (Some((v, _)), _) => Some(int_expr(v, *to, span)),
            (_, Some(b)) => Some(int_expr(i64::from(b), *to, span)),
            _ => None,
        },
        // `3 as f32` is the value Rust's `as` gives (round to nearest).
        ExprKind::Cast(x, to @ (Scalar::F32 | Scalar::F64)) => int(x).map(|(v, _)| {
            let value = if *to == Scalar::F32 {
                f64::from(v as f32)
            } else {
                v as f64
            };
            Expr::new(ExprKind::Lit(Lit::Float(value, Some(*to))), span)
        }),
        ExprKind::If(c, a, b) => bool_of(c).map(|c| {
            let chosen = if c { a.clone() } else { b.clone() };
            match (chosen.stmts.is_empty(), chosen.tail) {
                (true, Some(t)) => *t,
                (_, tail) => Expr::new(
                    ExprKind::Block(Block {
                        stmts: chosen.stmts,
                        tail,
                    }),
                    span,
                ),
            }
        }),
        ExprKind::Block(b) if b.stmts.is_empty() && b.tail.is_some() => b.tail.as_deref().cloned(),
        // An element of a constant array (an inlined `const TAPS: [f32; 5]`)
        // at a constant index: the element.
        ExprKind::ArrayElement(a, i) => match (&a.kind, int(i)) {
            (ExprKind::MakeArray(items), Some((k, _)))
                if k >= 0 && (k as usize) < items.len() && items.iter().all(is_literal_tree) =>
            {
                Some(items[k as usize].clone())
            }
            _ => None,
        },
        _ => None,
    };
    if let Some(f) = folded {
        *e = f;
    }
}

/// Whether `e` is a literal, a negated literal, or an array of those.
fn is_literal_tree(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_) => true,
        ExprKind::Unary(UnOp::Neg, x) => matches!(x.kind, ExprKind::Lit(_)),
        ExprKind::MakeArray(items) => items.iter().all(is_literal_tree),
        _ => false,
    }
}

fn binary(op: BinOp, l: &Expr, r: &Expr, span: Span) -> Option<Expr> {
    if let (Some(a), Some(b)) = (bool_of(l), bool_of(r)) {
        let v = match op {
            BinOp::And => a && b,
            BinOp::Or => a || b,
            BinOp::Eq => a == b,
            BinOp::Ne => a != b,
            BinOp::BitAnd => a & b,
            BinOp::BitOr => a | b,
            BinOp::BitXor => a ^ b,
            _ => return None,
        };
        return Some(bool_expr(v, span));
    }
    // `false && x` is false and `true || x` true without evaluating `x`,
    // as in Rust; `true && x` and `false || x` are `x`.
    match (op, bool_of(l)) {
        (BinOp::And, Some(false)) => return Some(bool_expr(false, span)),
        (BinOp::Or, Some(true)) => return Some(bool_expr(true, span)),
        (BinOp::And, Some(true)) | (BinOp::Or, Some(false)) => return Some(r.clone()),
        _ => {}
    }
    // Identities of integer arithmetic (`x + 0`, `x * 1`, `x << 0`): what
    // unrolling leaves where a loop variable was 0 or 1.
    let value = |e: &Expr| int(e).map(|(v, _)| v);
    match (op, value(l), value(r)) {
        (
            BinOp::Add | BinOp::Sub | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr,
            Some(_),
            Some(_),
        ) => {}
        (
            BinOp::Add | BinOp::Sub | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr,
            _,
            Some(0),
        )
        | (BinOp::Mul | BinOp::Div, _, Some(1)) => return Some(l.clone()),
        (BinOp::Add | BinOp::BitOr | BinOp::BitXor, Some(0), _) | (BinOp::Mul, Some(1), _) => {
            return Some(r.clone());
        }
        _ => {}
    }
    let ((a, s), (b, rs)) = (int(l)?, int(r)?);
    if !matches!(op, BinOp::Shl | BinOp::Shr) && s != rs {
        return None;
    }
    let (a, b) = (i128::from(a), i128::from(b));
    let cmp = |v: bool| Some(bool_expr(v, span));
    let value = match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        // The kernel language's division: `x / 0 == x`, `MIN / -1 == MIN`
        // (wrapped), `x % 0 == 0`, `MIN % -1 == 0`.
        BinOp::Div if b == 0 => a,
        BinOp::Div => a / b,
        BinOp::Rem if b == 0 => 0,
        BinOp::Rem => a % b,
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Shl | BinOp::Shr => {
            let amount = (b as u32) % 32;
            let v = match (op, s) {
                (BinOp::Shl, Scalar::I32) => i64::from((a as i32).wrapping_shl(amount)),
                (BinOp::Shl, _) => i64::from((a as u32).wrapping_shl(amount)),
                (_, Scalar::I32) => i64::from((a as i32) >> amount),
                _ => i64::from((a as u32) >> amount),
            };
            return Some(int_expr(v, s, span));
        }
        BinOp::Eq => return cmp(a == b),
        BinOp::Ne => return cmp(a != b),
        BinOp::Lt => return cmp(a < b),
        BinOp::Le => return cmp(a <= b),
        BinOp::Gt => return cmp(a > b),
        BinOp::Ge => return cmp(a >= b),
        BinOp::And | BinOp::Or => return None,
    };
    Some(int_expr(wrap(value, s), s, span))
}

/// Folds every expression of `b`, propagates constant locals and removes
/// branches on constants, until nothing changes.
pub(crate) fn block(b: &mut Block) {
    for _ in 0..8 {
        visit::exprs_mut(b, &mut expr);
        let before = b.clone();
        propagate(b);
        branches(b);
        if *b == before {
            break;
        }
    }
}

/// Replaces the locals bound once to a constant (and never assigned) by the
/// constant, and drops their `let`s.
fn propagate(b: &mut Block) {
    let mut constants: HashMap<LocalId, Expr> = HashMap::new();
    visit::walk_stmts(b, &mut |s| {
        if let StmtKind::Let {
            local,
            init: Some(e),
            ..
        } = &s.kind
            && is_constant(e)
        {
            constants.insert(*local, e.clone());
        }
    });
    if constants.is_empty() {
        return;
    }
    let mut assigned = Vec::new();
    let mut lets: HashMap<LocalId, usize> = HashMap::new();
    visit::walk_stmts(b, &mut |s| match &s.kind {
        StmtKind::Assign(p, _, _) => assigned.extend(visit::place_root(p)),
        StmtKind::Let { local, .. } => *lets.entry(*local).or_default() += 1,
        _ => {}
    });
    // A `&mut` argument may assign its local.
    assigned.extend(visit::address_taken(b));
    constants.retain(|l, _| !assigned.contains(l) && lets.get(l) == Some(&1));
    if constants.is_empty() {
        return;
    }
    visit::exprs_mut(b, &mut |e| {
        if let ExprKind::Local(l) = e.kind
            && let Some(c) = constants.get(&l)
        {
            let span = e.span;
            *e = c.clone();
            e.span = span;
        }
    });
    drop_lets(b, &|l| constants.contains_key(&l));
}

fn drop_lets(b: &mut Block, dead: &dyn Fn(LocalId) -> bool) {
    b.stmts
        .retain(|s| !matches!(&s.kind, StmtKind::Let { local, .. } if dead(*local)));
    for s in &mut b.stmts {
        for_each_block(s, &mut |b| drop_lets(b, dead));
    }
}

/// Calls `f` on the blocks directly inside statement `s`.
pub(crate) fn for_each_block(s: &mut Stmt, f: &mut dyn FnMut(&mut Block)) {
    match &mut s.kind {
        StmtKind::If(_, a, b) => {
            f(a);
            if let Some(b) = b {
                f(b);
            }
        }
        StmtKind::While(_, body) | StmtKind::Loop(body) | StmtKind::For { body, .. } => f(body),
        _ => {}
    }
}

/// `if true { a } else { b }` becomes `a`'s statements; `while false`
/// disappears.
fn branches(b: &mut Block) {
    let mut out = Vec::with_capacity(b.stmts.len());
    for mut s in std::mem::take(&mut b.stmts) {
        for_each_block(&mut s, &mut branches);
        match s.kind {
            StmtKind::If(c, a, e) if bool_of(&c).is_some() => {
                let chosen = if bool_of(&c) == Some(true) {
                    Some(a)
                } else {
                    e
                };
                if let Some(chosen) = chosen {
                    out.extend(chosen.stmts);
                    if let Some(t) = chosen.tail {
                        let span = t.span;
                        out.push(Stmt::new(StmtKind::Expr(*t), span));
                    }
                }
            }
            StmtKind::While(c, _) if bool_of(&c) == Some(false) => {}
            kind => out.push(Stmt { kind, span: s.span }),
        }
    }
    b.stmts = out;
}
