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
    /// Whether the code computes something that may differ between work
    /// items given the same inputs: it uses an atomic, a subgroup
    /// operation, the work item's index, or loads from memory (a
    /// `#[kernel]` function's uniformity summary, with `calls`).
    pub(crate) varies: bool,
    /// The `#[kernel]` functions it calls.
    pub(crate) calls: Vec<syn::ExprPath>,
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
        Place::Element(_, _, idx)
        | Place::ArrayElement(_, _, idx)
        | Place::TileElement(_, _, idx) => idx.iter().for_each(|e| expr(e, s)),
        Place::Field(base, _) => place(base, s, false),
        Place::Local(..) => {}
    }
    if write && let Some((c, span)) = element_root(p) {
        note(&mut s.writes, c, span);
    }
}

/// The captured container whose element `p` is (or is a field of).
fn element_root(p: &Place) -> Option<(u32, Span)> {
    match p {
        Place::Element(c, name, _) => Some((*c, name.span())),
        Place::Field(base, _) => element_root(base),
        _ => None,
    }
}

fn expr(e: &Expr, s: &mut Sites) {
    // The expressions inside `e` (`split::visit_expr`), then the blocks of
    // its `if`s and block expressions, whose statements it does not visit.
    let mut blocks: Vec<&Block> = Vec::new();
    super::split::visit_expr(e, &mut |x| match &x.kind {
        ExprKind::Call(name @ (Builtin::ReinterpretLoad | Builtin::ReinterpretStore), _, args) => {
            if let Some(Expr {
                kind: ExprKind::Capture(c, cap),
                ..
            }) = args.first()
            {
                note(&mut s.reinterprets, *c, cap.span());
                if *name == Builtin::ReinterpretStore {
                    note(&mut s.writes, *c, cap.span());
                }
            }
        }
        // Its indices are visited with the rest.
        ExprKind::Atomic(a) => {
            s.varies = true;
            if let Some((c, span)) = element_root(&a.target) {
                note(&mut s.writes, c, span);
            }
        }
        ExprKind::Call(name, ..) if name.is_subgroup() && *name != Builtin::SubgroupSize => {
            s.varies = true;
        }
        ExprKind::Load(..) | ExprKind::TileLoad(..) | ExprKind::KernelIndex(_) => s.varies = true,
        ExprKind::Tiled(field, _) if matches!(*field, TiledField::Global | TiledField::Local) => {
            s.varies = true
        }
        ExprKind::CallFn(path, _) if !s.calls.contains(path) => s.calls.push(path.clone()),
        ExprKind::If(_, a, b) => blocks.extend([a, b]),
        ExprKind::Block(b) => blocks.push(b),
        _ => {}
    });
    for b in blocks {
        block(b, s);
    }
}
