//! Instances of `#[kernel]` functions.
//!
//! A function is written (and type-checked, measured, searched for
//! atomics) once per distinct call shape: its type arguments, and the
//! captures its view parameters bind. C++ AMP passes `array_view`s to
//! `restrict(amp)` functions by reference; WGSL functions cannot take
//! storage buffers, so each instance reads and writes the bound capture's
//! buffer directly: the body's view parameter `k`
//! ([`CaptureId::param(k)`](CaptureId::param)) becomes that capture. A
//! tiled-index parameter binds nothing: the body's `t.local`, `t.global`,
//! ... and barriers are the kernel's own.

use super::ir::*;
use crate::{Error, Result};

/// What identifies an instance: the function, its type arguments, and the
/// captures its view parameters bind, in order.
pub(crate) type InstanceKey = (usize, Vec<Type>, Vec<CaptureId>);

fn call_error(span: Span, message: String) -> Error {
    Error::KernelCompile {
        kernel: span.to_string(),
        message,
    }
}

/// Whether argument `i` of a call of `func` binds instead of passing a
/// value.
pub(crate) fn is_binding(func: &Function, i: usize) -> bool {
    func.bindings.iter().any(|(pos, _)| *pos == i)
}

/// The arguments of a call of `func` that pass values, in order.
pub(crate) fn value_args<'a>(func: &Function, args: &'a [Expr]) -> Vec<&'a Expr> {
    args.iter()
        .enumerate()
        .filter(|(i, _)| !is_binding(func, *i))
        .map(|(_, a)| a)
        .collect()
}

/// The captures a call (its arguments `args`) binds to `func`'s view
/// parameters, in order; checks that each binding argument is what the
/// parameter takes.
///
/// # Errors
///
/// [`Error::KernelCompile`] for a view parameter not given a captured
/// container, or a tiled one not given the tiled index (a bug: the
/// function compiled as Rust with that call).
pub(crate) fn bound_captures(func: &Function, args: &[Expr], span: Span) -> Result<Vec<CaptureId>> {
    let mut out = Vec::new();
    for (pos, binding) in &func.bindings {
        let arg = args.get(*pos).map(|a| &a.kind);
        match (binding, arg) {
            (ParamBinding::View { .. }, Some(ExprKind::Capture(c))) => out.push(*c),
            (ParamBinding::Tiled(_), Some(ExprKind::KernelIndex)) => {}
            _ => {
                return Err(call_error(
                    span,
                    format!(
                        "argument {} of `{}` must be {} (this is a bug in amp-rs: the call compiled as Rust)",
                        pos + 1,
                        func.name,
                        match binding {
                            ParamBinding::View { .. } => "a captured view or array",
                            ParamBinding::Tiled(_) => "the kernel's tiled index",
                        }
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// The instance of `func` for `bound`: its view parameters replaced by the
/// captures the call binds (nested calls that pass them on included).
pub(crate) fn specialize(func: &mut Function, bound: &[CaptureId]) {
    let mut map = |c: &mut CaptureId| {
        if let Some(k) = c.as_param()
            && let Some(&to) = bound.get(k as usize)
        {
            *c = to;
        }
    };
    block(&mut func.body, &mut map);
}

fn block(b: &mut Block, map: &mut dyn FnMut(&mut CaptureId)) {
    for s in &mut b.stmts {
        stmt(s, map);
    }
    if let Some(t) = &mut b.tail {
        expr(t, map);
    }
}

fn stmt(s: &mut Stmt, map: &mut dyn FnMut(&mut CaptureId)) {
    match &mut s.kind {
        StmtKind::Let { init, .. } => {
            if let Some(e) = init {
                expr(e, map);
            }
        }
        StmtKind::Assign(p, _, e) => {
            place(p, map);
            expr(e, map);
        }
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr(e, map),
        StmtKind::If(c, a, b) => {
            expr(c, map);
            block(a, map);
            if let Some(b) = b {
                block(b, map);
            }
        }
        StmtKind::While(c, body) => {
            expr(c, map);
            block(body, map);
        }
        StmtKind::Loop(body) => block(body, map),
        StmtKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            expr(start, map);
            expr(end, map);
            if let Some(s) = step {
                expr(s, map);
            }
            block(body, map);
        }
        StmtKind::Return(None)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Barrier(_)
        | StmtKind::TileStatic { .. } => {}
    }
}

fn place(p: &mut Place, map: &mut dyn FnMut(&mut CaptureId)) {
    match p {
        Place::Local(_) => {}
        Place::Element(c, idx) => {
            map(c);
            idx.iter_mut().for_each(|i| expr(i, map));
        }
        Place::ArrayElement(_, idx) | Place::TileElement(_, idx) => {
            idx.iter_mut().for_each(|i| expr(i, map));
        }
        Place::Field(base, _) => place(base, map),
    }
}

fn expr(e: &mut Expr, map: &mut dyn FnMut(&mut CaptureId)) {
    match &mut e.kind {
        ExprKind::Capture(c) | ExprKind::Extent(c) => map(c),
        ExprKind::Load(c, xs) => {
            map(c);
            xs.iter_mut().for_each(|x| expr(x, map));
        }
        ExprKind::Atomic(_, p, args) => {
            place(p, map);
            args.iter_mut().for_each(|x| expr(x, map));
        }
        ExprKind::AddrOf(p) => place(p, map),
        ExprKind::Lit(_) | ExprKind::Local(_) | ExprKind::KernelIndex | ExprKind::Tiled(_) => {}
        ExprKind::Binary(_, l, r)
        | ExprKind::IndexComponent(l, r)
        | ExprKind::ArrayElement(l, r) => {
            expr(l, map);
            expr(r, map);
        }
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x, _)
        | ExprKind::RepeatArray(x, _)
        | ExprKind::Field(x, _) => expr(x, map),
        ExprKind::MakeIndex(xs)
        | ExprKind::MakeArray(xs)
        | ExprKind::Call(_, xs)
        | ExprKind::CallFn(_, xs, _)
        | ExprKind::MakeVector(_, _, xs)
        | ExprKind::MakeTuple(xs)
        | ExprKind::TileLoad(_, xs) => xs.iter_mut().for_each(|x| expr(x, map)),
        ExprKind::MakeStruct(_, fields) => fields.iter_mut().for_each(|(_, x)| expr(x, map)),
        ExprKind::If(c, a, b) => {
            expr(c, map);
            block(a, map);
            block(b, map);
        }
        ExprKind::Block(b) => block(b, map),
    }
}
