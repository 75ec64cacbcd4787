//! Statements: `let`, assignments, expression statements, `if`, loops
//! (`while`, `loop`, `for` over ranges forward and reversed), `break`,
//! `continue`, `return` and barriers.

use super::Writer;
use super::expr::is_pure_line;
use super::memory::atomic_load;
use super::types::type_wgsl;
use crate::Result;
use crate::ir::*;

impl Writer<'_> {
    /// Writes the statements of `b` (not its tail).
    pub(super) fn block_stmts(&mut self, b: &Block) -> Result<()> {
        for s in &b.stmts {
            self.stmt(s)?;
        }
        Ok(())
    }

    /// A nested block `{ .. }` whose tail (if any) is discarded.
    fn nested(&mut self, b: &Block) -> Result<()> {
        self.indent += 1;
        self.block_stmts(b)?;
        if let Some(t) = &b.tail {
            let mut pre = Vec::new();
            let _ = self.expr(t, &mut pre)?;
            self.flush_pre(pre);
        }
        self.indent -= 1;
        Ok(())
    }

    /// Opens a WGSL `loop`, counting its entry and each iteration under the
    /// loop guard.
    fn open_loop(&mut self) {
        if self.loop_guard {
            self.line("amp_loop_guard();");
            self.line("loop {");
            self.line("    amp_loop_guard();");
        } else {
            self.line("loop {");
        }
    }

    /// Writes statement `s`.
    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        let span = s.span;
        match &s.kind {
            StmtKind::Let {
                local, name, init, ..
            } => self.let_stmt(*local, name, init, span)?,
            StmtKind::Assign(place, op, e) => self.assign(place, *op, e, span)?,
            StmtKind::Expr(e) => {
                let mut pre = Vec::new();
                let (text, ty) = self.expr(e, &mut pre)?;
                self.flush_pre(pre);
                if let ExprKind::CallFn(..) = e.kind {
                    // A call's effects are its point: keep it.
                    if ty == Type::Index(0) {
                        self.line(&format!("{text};"));
                    } else {
                        self.line(&format!("_ = {text};"));
                    }
                }
            }
            StmtKind::If(c, a, b) => {
                let mut pre = Vec::new();
                let cond = self.expr(c, &mut pre)?;
                self.flush_pre(pre);
                self.line(&format!("if ({}) {{", cond.0));
                self.nested(a)?;
                if let Some(b) = b {
                    self.line("} else {");
                    self.nested(b)?;
                }
                self.line("}");
            }
            StmtKind::While(c, body) => {
                self.open_loop();
                self.indent += 1;
                let mut pre = Vec::new();
                let cond = self.expr(c, &mut pre)?;
                self.flush_pre(pre);
                self.line(&format!("if (!({})) {{ break; }}", cond.0));
                self.indent -= 1;
                self.nested(body)?;
                self.line("}");
            }
            StmtKind::Loop(body) => {
                self.open_loop();
                self.nested(body)?;
                self.line("}");
            }
            StmtKind::For {
                var,
                name,
                start,
                end,
                inclusive,
                step,
                body,
                reverse,
                ..
            } => self.for_stmt(
                *var, name, start, end, *inclusive, step, body, *reverse, span,
            )?,
            StmtKind::Break => self.line("break;"),
            StmtKind::Continue => self.line("continue;"),
            StmtKind::Return(None) => self.line("return;"),
            StmtKind::Barrier(kind) => match kind {
                BarrierKind::Wait | BarrierKind::AllMemory => {
                    self.line("storageBarrier();");
                    self.line("workgroupBarrier();");
                }
                BarrierKind::GlobalMemory => self.line("storageBarrier();"),
                BarrierKind::TileStaticMemory => self.line("workgroupBarrier();"),
            },
            StmtKind::TileStatic { local, name, ty } => self.tile_static(*local, name, ty),
            StmtKind::Return(Some(e)) => {
                let mut pre = Vec::new();
                let (v, _) = self.expr(e, &mut pre)?;
                self.flush_pre(pre);
                self.line(&format!("return {v};"));
            }
        }
        Ok(())
    }

    /// `let name = init;`: a WGSL `var` (none for a unit value).
    fn let_stmt(
        &mut self,
        local: LocalId,
        name: &str,
        init: &Option<Expr>,
        span: Span,
    ) -> Result<()> {
        let ty = self.local_type(local, span)?;
        let mut pre = Vec::new();
        let value = init.as_ref().map(|e| self.expr(e, &mut pre)).transpose()?;
        self.flush_pre(pre);
        if ty == Type::Index(0) {
            // A unit value (the result of a function without one,
            // bound by the macro's rewrites): the call is kept, no
            // variable is declared.
            if let (
                Some(v),
                Some(Expr {
                    kind: ExprKind::CallFn(..),
                    ..
                }),
            ) = (&value, init)
            {
                self.line(&format!("{};", v.0));
            }
            self.locals.insert(local, String::new());
            return Ok(());
        }
        if ty == Type::Scalar(Scalar::F64) {
            self.uses_f64 = true;
        }
        self.uses_f16 |= ty.uses_f16();
        self.note(&ty);
        let wname = self.namer.name(name);
        self.locals.insert(local, wname.clone());
        match value {
            Some(v) => self.line(&format!("var {wname}: {} = {};", type_wgsl(&ty), v.0)),
            None => self.line(&format!("var {wname}: {};", type_wgsl(&ty))),
        }
        Ok(())
    }

    /// `place = e` or `place op= e` (an atomic element: `atomicStore`).
    fn assign(&mut self, place: &Place, op: Option<BinOp>, e: &Expr, span: Span) -> Result<()> {
        // As in Rust, the value first, then the place.
        let mut pre = Vec::new();
        let mut value = vec![self.expr(e, &mut pre)?];
        let end = pre.len();
        if let (Place::Element(c, idx), None) = (place, op)
            && self.packed(c.0).is_some()
        {
            // A small integer's element, merged into its word (compound
            // assignments to small integers were expanded). The value is
            // bound first: Rust evaluates it before the place.
            let v = self.fresh();
            pre.push(format!("let {v} = {};", value[0].0));
            self.packed_store(*c, idx, &v, span, &mut pre)?;
            self.flush_pre(pre);
            return Ok(());
        }
        let (target, target_ty) = self.place(place, span, &mut pre)?;
        if !pre[end..].iter().all(|l| is_pure_line(l)) {
            self.bind_before(&mut value, &[end], &mut pre);
        }
        let value = value.pop().expect("one value");
        let atomic = self.is_atomic(place);
        let current = if atomic {
            atomic_load(&target, &target_ty)
        } else {
            target.clone()
        };
        let value = match op {
            None => value.0,
            Some(op) => {
                self.binary(op, (current, target_ty.clone()), value, span)?
                    .0
            }
        };
        self.flush_pre(pre);
        if atomic {
            let value = if target_ty == Type::Scalar(Scalar::F32) {
                format!("bitcast<u32>({value})")
            } else {
                value
            };
            self.line(&format!("atomicStore(&{target}, {value});"));
        } else {
            self.line(&format!("{target} = {value};"));
        }
        Ok(())
    }

    /// A `for` loop over a range (`start..end`, `start..=end`, with
    /// `step_by` and `.rev()`): a WGSL `loop` whose `continuing` steps the
    /// variable without overflowing past the end.
    #[allow(clippy::too_many_arguments)]
    fn for_stmt(
        &mut self,
        var: LocalId,
        name: &str,
        start: &Expr,
        end: &Expr,
        inclusive: bool,
        step: &Option<Expr>,
        body: &Block,
        reverse: bool,
        span: Span,
    ) -> Result<()> {
        let ty = self.local_type(var, span)?;
        let tw = type_wgsl(&ty);
        let mut pre = Vec::new();
        let mut header: Vec<&Expr> = vec![start, end];
        header.extend(step.as_ref());
        let mut vals = self.seq(&header, &mut pre)?.into_iter();
        let (start, end) = (vals.next().expect("start"), vals.next().expect("end"));
        let stepped = step.is_some();
        let step = match vals.next() {
            Some(v) => format!("{tw}({})", v.0),
            None => format!("{tw}(1)"),
        };
        if reverse {
            self.flush_pre(pre);
            return self.reverse_for(var, name, &ty, start.0, end.0, inclusive, step, body);
        }
        self.flush_pre(pre);
        // The loop's names are unique in the function (the namer's and
        // fresh temporaries), so they need no scope of their own: a brace
        // less per loop (naga's WGSL parser refuses nesting past 127
        // braces, which 64 nested loops reached).
        let end_name = self.fresh();
        let step_name = self.fresh();
        let wname = self.namer.name(name);
        self.locals.insert(var, wname.clone());
        self.line(&format!("let {end_name} = {};", end.0));
        self.line(&format!("let {step_name} = {step};"));
        self.line(&format!("var {wname}: {tw} = {};", start.0));
        let cmp = if inclusive { "<=" } else { "<" };
        self.open_loop();
        self.indent += 1;
        if stepped {
            // Rust panics on `step_by(0)`; a GPU cannot, and must not
            // loop forever: the loop does not run.
            self.line(&format!(
                "if (!({wname} {cmp} {end_name}) || {step_name} == {tw}(0)) {{ break; }}"
            ));
        } else {
            self.line(&format!("if (!({wname} {cmp} {end_name})) {{ break; }}"));
        }
        self.indent -= 1;
        self.nested(body)?;
        self.indent += 1;
        if inclusive || stepped {
            // `a..=b` ends after `b` even when `b` is the type's
            // maximum, and `(a..b).step_by(s)` before `i + s` would
            // pass `b` even where `i + s` overflows: `i <= b` holds
            // here, so `b - i` is the distance as an unsigned number.
            // (`break if` must be the last statement of `continuing`.)
            let left = self.fresh();
            let stop = if inclusive { "<" } else { "<=" };
            self.line("continuing {");
            self.line(&format!("    let {left} = u32({end_name} - {wname});"));
            self.line(&format!("    {wname} = {wname} + {step_name};"));
            self.line(&format!("    break if {left} {stop} u32({step_name});"));
            self.line("}");
        } else {
            self.line(&format!(
                "continuing {{ {wname} = {wname} + {step_name}; }}"
            ));
        }
        self.indent -= 1;
        self.line("}");
        Ok(())
    }

    /// A `for` loop over `(start..end).step_by(step).rev()`: the forward
    /// values, last first. The number of steps is counted down in a `u32`
    /// (the distance `last - start` as an unsigned number), so that no value
    /// past either end is ever formed; a step of 0 runs no iteration.
    #[allow(clippy::too_many_arguments)]
    fn reverse_for(
        &mut self,
        var: LocalId,
        name: &str,
        ty: &Type,
        start: String,
        end: String,
        inclusive: bool,
        step: String,
        body: &Block,
    ) -> Result<()> {
        let tw = type_wgsl(ty);
        // No scope of its own (see `for_stmt`).
        let (first, last, stride, k) = (self.fresh(), self.fresh(), self.fresh(), self.fresh());
        self.line(&format!("let {first} = {start};"));
        self.line(&format!("let {last} = {end};"));
        self.line(&format!("let {stride} = u32({step});"));
        let nonempty = if inclusive {
            format!("{first} <= {last}")
        } else {
            format!("{first} < {last}")
        };
        let top = if inclusive {
            last.clone()
        } else {
            format!("({last} - {tw}(1))")
        };
        self.line(&format!("if ({nonempty} && {stride} != 0u) {{"));
        self.indent += 1;
        // `max`: a step that folds to the constant 0 must not form a
        // constant division by zero (a shader-creation error), though the
        // branch does not run then.
        self.line(&format!(
            "var {k}: u32 = u32({top} - {first}) / max({stride}, 1u);"
        ));
        let wname = self.namer.name(name);
        self.locals.insert(var, wname.clone());
        self.line(&format!("var {wname}: {tw};"));
        self.open_loop();
        self.indent += 1;
        self.line(&format!("{wname} = {first} + {tw}({k} * {stride});"));
        self.indent -= 1;
        self.nested(body)?;
        self.indent += 1;
        // (`break if` must end `continuing`.)
        self.line(&format!(
            "continuing {{ let {k}_last = {k} == 0u; {k} = {k} - 1u; break if {k}_last; }}"
        ));
        self.indent -= 1;
        self.line("}");
        self.indent -= 1;
        self.line("}");
        Ok(())
    }
}
