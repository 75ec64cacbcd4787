//! Walks over the kernel IR shared by the passes.

use std::collections::HashMap;

use crate::ir::*;

/// Calls `f` on every expression of `b`, children before parents
/// (expressions inside places, conditions and nested blocks included).
pub(crate) fn exprs_mut(b: &mut Block, f: &mut dyn FnMut(&mut Expr)) {
    for s in &mut b.stmts {
        stmt_exprs_mut(s, f);
    }
    if let Some(t) = &mut b.tail {
        expr_mut(t, f);
    }
}

/// [`exprs_mut`] for one statement.
pub(crate) fn stmt_exprs_mut(s: &mut Stmt, f: &mut dyn FnMut(&mut Expr)) {
    match &mut s.kind {
        StmtKind::Let { init, .. } => {
            if let Some(e) = init {
                expr_mut(e, f);
            }
        }
        StmtKind::Assign(p, _, e) => {
            expr_mut(e, f);
            place_exprs_mut(p, f);
        }
        StmtKind::Expr(e) => expr_mut(e, f),
        StmtKind::Return(e) => {
            if let Some(e) = e {
                expr_mut(e, f);
            }
        }
        StmtKind::If(c, a, b) => {
            expr_mut(c, f);
            exprs_mut(a, f);
            if let Some(b) = b {
                exprs_mut(b, f);
            }
        }
        StmtKind::While(c, body) => {
            expr_mut(c, f);
            exprs_mut(body, f);
        }
        StmtKind::Loop(body) => exprs_mut(body, f),
        StmtKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            expr_mut(start, f);
            expr_mut(end, f);
            if let Some(s) = step {
                expr_mut(s, f);
            }
            exprs_mut(body, f);
        }
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Barrier(_)
        | StmtKind::TileStatic { .. } => {}
    }
}

/// The index expressions of a place.
pub(crate) fn place_exprs_mut(p: &mut Place, f: &mut dyn FnMut(&mut Expr)) {
    match p {
        Place::Local(_) => {}
        Place::Element(_, idx) | Place::ArrayElement(_, idx) | Place::TileElement(_, idx) => {
            for i in idx {
                expr_mut(i, f);
            }
        }
        Place::Field(base, _) => place_exprs_mut(base, f),
    }
}

/// Calls `f` on `e` after its children.
pub(crate) fn expr_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::Capture(_)
        | ExprKind::KernelIndex
        | ExprKind::Extent(_)
        | ExprKind::Tiled(_) => {}
        ExprKind::Binary(_, l, r)
        | ExprKind::IndexComponent(l, r)
        | ExprKind::ArrayElement(l, r) => {
            expr_mut(l, f);
            expr_mut(r, f);
        }
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x, _)
        | ExprKind::RepeatArray(x, _)
        | ExprKind::Field(x, _) => expr_mut(x, f),
        ExprKind::Load(_, xs)
        | ExprKind::MakeIndex(xs)
        | ExprKind::MakeArray(xs)
        | ExprKind::Call(_, xs)
        | ExprKind::CallFn(_, xs, _)
        | ExprKind::MakeVector(_, _, xs)
        | ExprKind::MakeTuple(xs)
        | ExprKind::TileLoad(_, xs) => {
            for x in xs {
                expr_mut(x, f);
            }
        }
        ExprKind::MakeStruct(_, fields) => {
            for (_, x) in fields {
                expr_mut(x, f);
            }
        }
        ExprKind::Atomic(_, place, args) => {
            for x in args {
                expr_mut(x, f);
            }
            place_exprs_mut(place, f);
        }
        ExprKind::AddrOf(place) => place_exprs_mut(place, f),
        ExprKind::If(c, a, b) => {
            expr_mut(c, f);
            exprs_mut(a, f);
            exprs_mut(b, f);
        }
        ExprKind::Block(b) => exprs_mut(b, f),
    }
    f(e);
}

/// Calls `f` on every local id that `b` declares or mentions.
pub(crate) fn locals(b: &Block, f: &mut dyn FnMut(LocalId)) {
    let mut b = b.clone();
    rename(&mut b, &mut |l| {
        f(l);
        l
    });
}

/// Replaces every local id of `b` (declarations, uses, places, loop
/// variables, `tile_static` arrays) by `map(id)`.
pub(crate) fn rename(b: &mut Block, map: &mut dyn FnMut(LocalId) -> LocalId) {
    rename_block(
        b,
        &mut Ids {
            local: map,
            capture: &mut |c| c,
        },
    );
}

/// Replaces every capture id of `b` (loads, places, extents, captures
/// used as values or call arguments) by `map(id)`.
pub(crate) fn rename_captures(b: &mut Block, map: &mut dyn FnMut(CaptureId) -> CaptureId) {
    rename_block(
        b,
        &mut Ids {
            local: &mut |l| l,
            capture: map,
        },
    );
}

/// What [`rename`] and [`rename_captures`] map.
struct Ids<'a> {
    local: &'a mut dyn FnMut(LocalId) -> LocalId,
    capture: &'a mut dyn FnMut(CaptureId) -> CaptureId,
}

fn rename_block(b: &mut Block, map: &mut Ids<'_>) {
    for s in &mut b.stmts {
        rename_stmt(s, map);
    }
    if let Some(t) = &mut b.tail {
        rename_expr(t, map);
    }
}

fn rename_stmt(s: &mut Stmt, map: &mut Ids<'_>) {
    match &mut s.kind {
        StmtKind::Let { local, init, .. } => {
            *local = (map.local)(*local);
            if let Some(e) = init {
                rename_expr(e, map);
            }
        }
        StmtKind::Assign(p, _, e) => {
            rename_expr(e, map);
            rename_place(p, map);
        }
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => rename_expr(e, map),
        StmtKind::If(c, a, b) => {
            rename_expr(c, map);
            rename_block(a, map);
            if let Some(b) = b {
                rename_block(b, map);
            }
        }
        StmtKind::While(c, body) => {
            rename_expr(c, map);
            rename_block(body, map);
        }
        StmtKind::Loop(body) => rename_block(body, map),
        StmtKind::For {
            var,
            start,
            end,
            step,
            body,
            ..
        } => {
            rename_expr(start, map);
            rename_expr(end, map);
            if let Some(s) = step {
                rename_expr(s, map);
            }
            *var = (map.local)(*var);
            rename_block(body, map);
        }
        StmtKind::TileStatic { local, .. } => *local = (map.local)(*local),
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Barrier(_) => {}
    }
}

fn rename_place(p: &mut Place, map: &mut Ids<'_>) {
    match p {
        Place::Local(id) => *id = (map.local)(*id),
        Place::ArrayElement(id, idx) | Place::TileElement(id, idx) => {
            *id = (map.local)(*id);
            for i in idx {
                rename_expr(i, map);
            }
        }
        Place::Element(c, idx) => {
            *c = (map.capture)(*c);
            for i in idx {
                rename_expr(i, map);
            }
        }
        Place::Field(base, _) => rename_place(base, map),
    }
}

fn rename_expr(e: &mut Expr, map: &mut Ids<'_>) {
    // Blocks inside expressions declare locals too.
    match &mut e.kind {
        ExprKind::If(c, a, b) => {
            rename_expr(c, map);
            rename_block(a, map);
            rename_block(b, map);
            return;
        }
        ExprKind::Block(b) => {
            rename_block(b, map);
            return;
        }
        _ => {}
    }
    match &mut e.kind {
        ExprKind::Local(id) | ExprKind::TileLoad(id, _) => *id = (map.local)(*id),
        ExprKind::Capture(c) | ExprKind::Extent(c) | ExprKind::Load(c, _) => {
            *c = (map.capture)(*c);
        }
        _ => {}
    }
    match &mut e.kind {
        ExprKind::Binary(_, l, r)
        | ExprKind::IndexComponent(l, r)
        | ExprKind::ArrayElement(l, r) => {
            rename_expr(l, map);
            rename_expr(r, map);
        }
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x, _)
        | ExprKind::RepeatArray(x, _)
        | ExprKind::Field(x, _) => rename_expr(x, map),
        ExprKind::Load(_, xs)
        | ExprKind::MakeIndex(xs)
        | ExprKind::MakeArray(xs)
        | ExprKind::Call(_, xs)
        | ExprKind::CallFn(_, xs, _)
        | ExprKind::MakeVector(_, _, xs)
        | ExprKind::MakeTuple(xs)
        | ExprKind::TileLoad(_, xs) => {
            for x in xs {
                rename_expr(x, map);
            }
        }
        ExprKind::MakeStruct(_, fields) => {
            for (_, x) in fields {
                rename_expr(x, map);
            }
        }
        ExprKind::Atomic(_, place, args) => {
            for x in args {
                rename_expr(x, map);
            }
            rename_place(place, map);
        }
        ExprKind::AddrOf(place) => rename_place(place, map),
        _ => {}
    }
}

/// The locals that `b` declares (`let`, loop variables, `tile_static`),
/// nested statements and blocks inside expressions included.
pub(crate) fn declared(b: &Block) -> Vec<LocalId> {
    let mut out = Vec::new();
    walk_stmts(b, &mut |s| match &s.kind {
        StmtKind::Let { local, .. } | StmtKind::TileStatic { local, .. } => out.push(*local),
        StmtKind::For { var, .. } => out.push(*var),
        _ => {}
    });
    out
}

/// The direct sub-expressions of `e` (not those inside its blocks).
pub(crate) fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::Capture(_)
        | ExprKind::KernelIndex
        | ExprKind::Tiled(_)
        | ExprKind::Extent(_)
        | ExprKind::Block(_) => Vec::new(),
        ExprKind::Binary(_, l, r)
        | ExprKind::IndexComponent(l, r)
        | ExprKind::ArrayElement(l, r) => vec![&**l, &**r],
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x, _)
        | ExprKind::RepeatArray(x, _)
        | ExprKind::Field(x, _)
        | ExprKind::If(x, _, _) => vec![&**x],
        ExprKind::Load(_, xs)
        | ExprKind::MakeIndex(xs)
        | ExprKind::MakeArray(xs)
        | ExprKind::Call(_, xs)
        | ExprKind::CallFn(_, xs, _)
        | ExprKind::MakeVector(_, _, xs)
        | ExprKind::MakeTuple(xs)
        | ExprKind::TileLoad(_, xs) => xs.iter().collect(),
        ExprKind::MakeStruct(_, fields) => fields.iter().map(|(_, x)| x).collect(),
        ExprKind::Atomic(_, place, args) => {
            let mut out: Vec<&Expr> = args.iter().collect();
            place_exprs(place, &mut out);
            out
        }
        ExprKind::AddrOf(place) => {
            let mut out = Vec::new();
            place_exprs(place, &mut out);
            out
        }
    }
}

/// The index expressions of a place.
pub(crate) fn place_exprs<'e>(p: &'e Place, out: &mut Vec<&'e Expr>) {
    match p {
        Place::Local(_) => {}
        Place::Element(_, idx) | Place::ArrayElement(_, idx) | Place::TileElement(_, idx) => {
            out.extend(idx)
        }
        Place::Field(base, _) => place_exprs(base, out),
    }
}

/// Whether `b` assigns local `id` (as a whole or an element of it).
pub(crate) fn assigns(b: &Block, id: LocalId) -> bool {
    let mut found = false;
    walk_stmts(b, &mut |s| {
        if let StmtKind::Assign(p, _, _) = &s.kind
            && place_root(p) == Some(id)
        {
            found = true;
        }
    });
    found || address_taken(b).contains(&id)
}

/// The locals (or local arrays) whose address `b` passes to a `#[kernel]`
/// function's `&mut` parameter: the function may assign them.
pub(crate) fn address_taken(b: &Block) -> Vec<LocalId> {
    let mut out = Vec::new();
    let mut copy = b.clone();
    exprs_mut(&mut copy, &mut |e| {
        if let ExprKind::AddrOf(p) = &e.kind {
            out.extend(place_root(p));
        }
    });
    out
}

/// The local a place writes into, if it is one.
pub(crate) fn place_root(p: &Place) -> Option<LocalId> {
    match p {
        Place::Local(id) | Place::ArrayElement(id, _) => Some(*id),
        Place::Field(base, _) => place_root(base),
        Place::Element(..) | Place::TileElement(..) => None,
    }
}

/// The captured container a place writes into, if it is one (by number).
pub(crate) fn place_capture(p: &Place) -> Option<u32> {
    match p {
        Place::Element(c, _) => Some(c.0),
        Place::Field(base, _) => place_capture(base),
        Place::Local(_) | Place::ArrayElement(..) | Place::TileElement(..) => None,
    }
}

/// Calls `f` on every statement of `b`, nested ones included (also those of
/// blocks inside expressions).
pub(crate) fn walk_stmts(b: &Block, f: &mut dyn FnMut(&Stmt)) {
    for s in &b.stmts {
        f(s);
        match &s.kind {
            StmtKind::If(c, a, e) => {
                walk_expr_blocks(c, f);
                walk_stmts(a, f);
                if let Some(e) = e {
                    walk_stmts(e, f);
                }
            }
            StmtKind::While(c, body) => {
                walk_expr_blocks(c, f);
                walk_stmts(body, f);
            }
            StmtKind::Loop(body) => walk_stmts(body, f),
            StmtKind::For {
                start,
                end,
                step,
                body,
                ..
            } => {
                walk_expr_blocks(start, f);
                walk_expr_blocks(end, f);
                if let Some(s) = step {
                    walk_expr_blocks(s, f);
                }
                walk_stmts(body, f);
            }
            StmtKind::Let { init: Some(e), .. }
            | StmtKind::Assign(_, _, e)
            | StmtKind::Expr(e)
            | StmtKind::Return(Some(e)) => walk_expr_blocks(e, f),
            _ => {}
        }
    }
    if let Some(t) = &b.tail {
        walk_expr_blocks(t, f);
    }
}

fn walk_expr_blocks(e: &Expr, f: &mut dyn FnMut(&Stmt)) {
    match &e.kind {
        ExprKind::If(c, a, b) => {
            walk_expr_blocks(c, f);
            walk_stmts(a, f);
            walk_stmts(b, f);
        }
        ExprKind::Block(b) => walk_stmts(b, f),
        _ => {
            for c in children(e) {
                walk_expr_blocks(c, f);
            }
        }
    }
}

/// The number of statements and expressions in `b`: the size measure of
/// the unroller's budget.
pub(crate) fn size(b: &Block) -> usize {
    let mut n = 0;
    walk_stmts(b, &mut |_| n += 1);
    let mut b = b.clone();
    exprs_mut(&mut b, &mut |_| n += 1);
    n
}

/// A map of local ids to fresh ones, for a copy of a block.
pub(crate) fn fresh_copy(
    b: &Block,
    fresh: &mut super::Fresh,
    types: &mut super::Types,
) -> (Block, HashMap<LocalId, LocalId>) {
    let mut map = HashMap::new();
    for d in declared(b) {
        let new = fresh.next();
        if let Some(t) = types.locals.get(&d).cloned() {
            types.locals.insert(new, t);
        }
        map.insert(d, new);
    }
    let mut copy = b.clone();
    rename(&mut copy, &mut |l| map.get(&l).copied().unwrap_or(l));
    (copy, map)
}

/// Whether some statement of `b` (nested ones included) satisfies `pred`.
pub(crate) fn walk_has(b: &Block, pred: &dyn Fn(&Stmt) -> bool) -> bool {
    let mut found = false;
    walk_stmts(b, &mut |s| found |= pred(s));
    found
}
