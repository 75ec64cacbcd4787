//! Check stage: rules that need the whole kernel AST (the parse stage
//! already rejected everything outside the subset's syntax).

use super::ast::*;
use super::parse::Errors;

/// Checks `k`, adding spanned errors.
pub(crate) fn check(k: &Kernel, errors: &mut Errors) {
    block(&k.body, 0, errors);
}

fn block(b: &Block, loops: u32, errors: &mut Errors) {
    for s in &b.stmts {
        stmt(s, loops, errors);
    }
    if let Some(t) = &b.tail {
        expr(t, loops, errors);
    }
}

fn stmt(s: &Stmt, loops: u32, errors: &mut Errors) {
    match &s.kind {
        StmtKind::Break | StmtKind::Continue if loops == 0 => errors.push(syn::Error::new(
            s.span,
            "`break` and `continue` must be inside a loop of the kernel",
        )),
        StmtKind::Let { init: Some(e), .. } | StmtKind::Expr(e) => expr(e, loops, errors),
        StmtKind::Assign(_, _, e) | StmtKind::Return(Some(e)) => expr(e, loops, errors),
        StmtKind::If(c, a, b) => {
            expr(c, loops, errors);
            block(a, loops, errors);
            if let Some(b) = b {
                block(b, loops, errors);
            }
        }
        StmtKind::While(c, body) => {
            expr(c, loops, errors);
            block(body, loops + 1, errors);
        }
        StmtKind::Loop(body) => block(body, loops + 1, errors),
        StmtKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            expr(start, loops, errors);
            expr(end, loops, errors);
            if let Some(s) = step {
                expr(s, loops, errors);
            }
            block(body, loops + 1, errors);
        }
        _ => {}
    }
}

fn expr(e: &Expr, loops: u32, errors: &mut Errors) {
    match &e.kind {
        ExprKind::If(c, a, b) => {
            expr(c, loops, errors);
            block(a, loops, errors);
            block(b, loops, errors);
        }
        ExprKind::Block(b) => block(b, loops, errors),
        ExprKind::Binary(_, l, r) | ExprKind::Element(l, r) => {
            expr(l, loops, errors);
            expr(r, loops, errors);
        }
        ExprKind::Unary(_, x) | ExprKind::Cast(x, _) | ExprKind::Repeat(x, _) => {
            expr(x, loops, errors)
        }
        ExprKind::Field(x, _) => expr(x, loops, errors),
        ExprKind::MakeStruct(_, fields) => fields.iter().for_each(|(_, x)| expr(x, loops, errors)),
        ExprKind::Load(_, _, xs)
        | ExprKind::MakeVector(_, _, _, xs)
        | ExprKind::MakeTuple(xs)
        | ExprKind::MakeIndex(xs)
        | ExprKind::Array(xs)
        | ExprKind::Call(_, _, xs) => {
            xs.iter().for_each(|x| expr(x, loops, errors));
        }
        _ => {}
    }
}
