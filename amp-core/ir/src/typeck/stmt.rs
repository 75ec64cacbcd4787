//! Statements and blocks: `let` (with its annotation), assignments
//! (compound ones as their operators), `if`, loops, `for` ranges,
//! `tile_static` declarations and `return`.

use super::solver::{Kind, Term};
use super::{Checker, boolt, i32t, substitute, type_error};
use crate::Result;
use crate::ir::*;

impl Checker<'_> {
    /// The term of block `b` (its tail's, or unit).
    pub(super) fn block(&mut self, b: &Block) -> Result<Term> {
        for s in &b.stmts {
            self.stmt(s)?;
        }
        match &b.tail {
            Some(e) => self.expr(e),
            None => Ok(Term::Known(Type::Index(0))), // unit
        }
    }

    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        let span = s.span;
        match &s.kind {
            StmtKind::Let {
                local, ty, init, ..
            } => {
                let t = self.local(*local);
                if let Some(ty) = ty {
                    let known = Term::Known(substitute(ty, &self.type_args));
                    self.solver.unify(&t, &known, span)?;
                }
                if let Some(e) = init {
                    let et = self.expr(e)?;
                    self.solver.unify(&t, &et, span)?;
                }
            }
            StmtKind::Assign(place, op, e) => {
                let pt = self.place(place, span)?;
                let et = self.expr(e)?;
                match (op, self.solver.resolve(&pt), self.solver.resolve(&et)) {
                    (Some(BinOp::Shl | BinOp::Shr), ..) => {
                        self.solver.require(&et, Kind::Int, span)?
                    }
                    // `idx += 1`, `v *= 2.0`: an index or vector combined
                    // with one of its components, as for the operators.
                    (Some(_), Term::Known(Type::Index(_)), et)
                        if !matches!(et, Term::Known(Type::Index(_))) =>
                    {
                        self.solver.unify(&et, &i32t(), span)?
                    }
                    (Some(_), Term::Known(Type::Vector(_, sc)), et)
                        if !matches!(et, Term::Known(Type::Vector(..))) =>
                    {
                        self.solver
                            .unify(&et, &Term::Known(Type::Scalar(sc)), span)?
                    }
                    _ => self.solver.unify(&pt, &et, span)?,
                }
            }
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::If(c, a, b) => {
                let ct = self.expr(c)?;
                self.solver.unify(&ct, &boolt(), span)?;
                self.block(a)?;
                if let Some(b) = b {
                    self.block(b)?;
                }
            }
            StmtKind::While(c, body) => {
                let ct = self.expr(c)?;
                self.solver.unify(&ct, &boolt(), span)?;
                self.block(body)?;
            }
            StmtKind::Loop(body) => {
                self.block(body)?;
            }
            StmtKind::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                let vt = self.local(*var);
                let st = self.expr(start)?;
                let et = self.expr(end)?;
                self.solver.unify(&vt, &st, span)?;
                self.solver.unify(&vt, &et, span)?;
                self.solver.require(&vt, Kind::Int, span)?;
                if let Some(step) = step {
                    let t = self.expr(step)?;
                    self.solver.require(&t, Kind::Int, span)?;
                }
                self.block(body)?;
            }
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(None)
            | StmtKind::Barrier(_) => {}
            StmtKind::TileStatic { local, ty, .. } => {
                let t = self.local(*local);
                self.solver.unify(&t, &Term::Known(ty.clone()), span)?;
            }
            StmtKind::Return(Some(e)) => {
                let t = self.expr(e)?;
                match self.ret.clone() {
                    Some(r) => self.solver.unify(&r, &t, span)?,
                    None => return Err(type_error(span, "a kernel returns no value".to_string())),
                }
            }
        }
        Ok(())
    }
}
