//! The write-back: every type resolved (with Rust's literal defaults) and
//! written into the body: unsuffixed literals get their suffix, calls of
//! `#[kernel]` functions their type arguments, every expression its type.

use super::solver::Term;
use super::{Checker, Types};
use crate::ir::*;

impl Checker<'_> {
    /// Resolves every type (with Rust's literal defaults), writes literal
    /// and call types into `body`, and returns the locals' types.
    pub(super) fn write_back(mut self, body: &mut Block) -> Types {
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
            defaulted_f64: None,
        };
        write_literals_block(body, &mut next);
        types.defaulted_f64 = next.defaulted_f64;
        let exprs = std::mem::take(&mut self.exprs);
        crate::passes::visit::exprs_mut(body, &mut |e| {
            let key: *const Expr = &*e;
            if let Some(t) = exprs.get(&key) {
                e.ty = Some(self.solver.finish(t));
            }
        });
        types
    }
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
    /// The first unsuffixed float literal that became `f64`.
    defaulted_f64: Option<Span>,
}

/// Visits expressions in exactly the order [`Checker::expr`] does.
fn write_literals(e: &mut Expr, next: &mut Fill) {
    match &mut e.kind {
        ExprKind::Lit(Lit::Float(_, suffix @ None)) => {
            if let Some(Type::Scalar(s)) = next.lits.next() {
                if s == Scalar::F64 && next.defaulted_f64.is_none() {
                    next.defaulted_f64 = Some(e.span);
                }
                *suffix = Some(s);
            }
        }
        ExprKind::Lit(Lit::Int(_, suffix @ None)) => {
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
