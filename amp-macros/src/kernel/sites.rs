//! Where a kernel writes its captured containers and where it reads or
//! writes them through `reinterpret_as`: the expansion checks each such
//! capture's type there, on the user's own type (`ArrayView<'_, f32, 1,
//! ReadOnly>`), so that a write to a read-only view or a reinterpretation
//! of `f64` elements is reported at the site in the user's terms rather
//! than through the CPU form's internal view type.

use proc_macro2::Span;

use super::ast::*;

/// The captures a kernel writes and reinterprets, each with the span of
/// its first such use (capture ids, in order of first use).
#[derive(Default)]
pub(crate) struct Sites {
    pub(crate) writes: Vec<(u32, Span)>,
    pub(crate) reinterprets: Vec<(u32, Span)>,
}

/// The sites of `body`.
pub(crate) fn sites(body: &Block) -> Sites {
    let mut s = Sites::default();
    block(body, &mut s);
    s
}

fn note(list: &mut Vec<(u32, Span)>, c: u32, span: Span) {
    if !list.iter().any(|(x, _)| *x == c) {
        list.push((c, span));
    }
}

fn block(b: &Block, s: &mut Sites) {
    for st in &b.stmts {
        stmt(st, s);
    }
    if let Some(t) = &b.tail {
        expr(t, s);
    }
}

fn stmt(st: &Stmt, s: &mut Sites) {
    match &st.kind {
        StmtKind::Let { init, .. } => init.iter().for_each(|e| expr(e, s)),
        StmtKind::Assign(p, _, e) => {
            expr(e, s);
            place(p, s, true);
        }
        StmtKind::Expr(e) => expr(e, s),
        StmtKind::Return(e) => e.iter().for_each(|e| expr(e, s)),
        StmtKind::If(c, a, b) => {
            expr(c, s);
            block(a, s);
            b.iter().for_each(|b| block(b, s));
        }
        StmtKind::While(c, b) => {
            expr(c, s);
            block(b, s);
        }
        StmtKind::Loop(b) => block(b, s),
        StmtKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            expr(start, s);
            expr(end, s);
            step.iter().for_each(|e| expr(e, s));
            block(body, s);
        }
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::NativeCheck(_)
        | StmtKind::Barrier(..)
        | StmtKind::TileStatic { .. } => {}
    }
}

/// The index expressions of `p`, and `p` itself where it is a captured
/// container's element and `write` is set.
fn place(p: &Place, s: &mut Sites, write: bool) {
    match p {
        Place::Element(c, name, idx) => {
            idx.iter().for_each(|e| expr(e, s));
            if write {
                note(&mut s.writes, *c, name.span());
            }
        }
        Place::ArrayElement(_, _, idx) | Place::TileElement(_, _, idx) => {
            idx.iter().for_each(|e| expr(e, s))
        }
        Place::Field(base, _) => place(base, s, write),
        Place::Local(..) => {}
    }
}

fn expr(e: &Expr, s: &mut Sites) {
    match &e.kind {
        ExprKind::Call(name, _, args) if name.starts_with("Reinterpret") => {
            if let Some(Expr {
                kind: ExprKind::Capture(c, cap),
                ..
            }) = args.first()
            {
                note(&mut s.reinterprets, *c, cap.span());
                if *name == "ReinterpretStore" {
                    note(&mut s.writes, *c, cap.span());
                }
            }
            args.iter().for_each(|x| expr(x, s));
        }
        ExprKind::Atomic(a) => {
            place(&a.target, s, true);
            a.args.iter().for_each(|x| expr(x, s));
        }
        ExprKind::Lit(..)
        | ExprKind::Local(..)
        | ExprKind::Capture(..)
        | ExprKind::KernelIndex(_)
        | ExprKind::Const(_)
        | ExprKind::Extent(..)
        | ExprKind::TiledArg(_)
        | ExprKind::RefResult(..)
        | ExprKind::Tiled(..) => {}
        ExprKind::Binary(_, a, b) | ExprKind::Element(a, b) => {
            expr(a, s);
            expr(b, s);
        }
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x, _)
        | ExprKind::Field(x, _)
        | ExprKind::Swizzle(x, _)
        | ExprKind::Repeat(x, _)
        | ExprKind::RefCall(x) => expr(x, s),
        ExprKind::Load(_, _, xs)
        | ExprKind::TileLoad(_, _, xs, _, _)
        | ExprKind::MakeIndex(xs, _)
        | ExprKind::Array(xs)
        | ExprKind::Call(_, _, xs)
        | ExprKind::CallFn(_, xs)
        | ExprKind::MakeVector(_, _, _, xs)
        | ExprKind::MakeTuple(xs) => xs.iter().for_each(|x| expr(x, s)),
        ExprKind::MakeStruct(_, fields) => fields.iter().for_each(|(_, x)| expr(x, s)),
        ExprKind::AddrOf(p) => place(p, s, false),
        ExprKind::If(c, a, b) => {
            expr(c, s);
            block(a, s);
            block(b, s);
        }
        ExprKind::Block(b) => block(b, s),
    }
}
