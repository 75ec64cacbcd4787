//! Full unrolling of `for` loops over constant ranges.
//!
//! A loop whose start, end and step are constants (after folding) and whose
//! body has no `break` or `continue` of its own is replaced by one copy of
//! its body per iteration, the loop variable replaced by its value in each
//! (or bound to it, where the body assigns it), the copy's own locals
//! renamed and the copy folded again, so that indices computed from the
//! loop variable become constants for [`super::scalarize`]. Loops run at
//! most [`AUTO_TRIPS`] times and whose unrolled size stays under
//! [`AUTO_BUDGET`] are unrolled on their own; `#[unroll]` asks for any
//! count up to [`MAX_TRIPS`], and is an error where the loop cannot be
//! unrolled. Inner loops are considered after their outer loop, in each
//! copy, where their bounds may have become constants.

use super::{Fresh, fold, visit};
use crate::ir::*;
use crate::typeck::Types;
use crate::{Error, Result};

/// The largest trip count unrolled without `#[unroll]`.
pub(crate) const AUTO_TRIPS: i64 = 16;
/// The largest unrolled size (statements and expressions) without
/// `#[unroll]`.
pub(crate) const AUTO_BUDGET: usize = 2048;
/// The largest trip count `#[unroll]` accepts.
pub(crate) const MAX_TRIPS: i64 = 1024;
/// The most code (statements and expressions) that loops unrolled without
/// `#[unroll]` may add to one kernel or function, nested loops included:
/// four nested loops of 16 trips stop here instead of growing 65,536-fold.
pub(crate) const TOTAL_BUDGET: usize = 32_768;

/// Unrolls the loops of `b` that qualify.
///
/// # Errors
///
/// [`Error::Compile`] for a `#[unroll]` loop that cannot be unrolled.
pub(crate) fn block(
    b: &mut Block,
    types: &mut Types,
    fresh: &mut Fresh,
    budget: &mut usize,
) -> Result<()> {
    let mut out = Vec::with_capacity(b.stmts.len());
    for mut s in std::mem::take(&mut b.stmts) {
        match unroll(&s, types, fresh, budget)? {
            Some(copies) => {
                for mut c in copies {
                    fold::block(&mut c);
                    block(&mut c, types, fresh, budget)?;
                    out.extend(c.stmts);
                }
            }
            None => {
                let mut result = Ok(());
                fold::for_each_block(&mut s, &mut |inner| {
                    if result.is_ok() {
                        result = block(inner, types, fresh, budget);
                    }
                });
                result?;
                out.push(s);
            }
        }
    }
    b.stmts = out;
    Ok(())
}

/// The copies of the body of `s` if it is a loop to unroll.
fn unroll(
    s: &Stmt,
    types: &mut Types,
    fresh: &mut Fresh,
    budget: &mut usize,
) -> Result<Option<Vec<Block>>> {
    let StmtKind::For {
        var,
        name: var_name,
        start,
        end,
        inclusive,
        step,
        body,
        unroll: forced,
        reverse,
    } = &s.kind
    else {
        return Ok(None);
    };
    let refuse = |why: &str| -> Result<Option<Vec<Block>>> {
        if *forced {
            Err(Error::Compile {
                kernel: s.span.to_string(),
                message: format!("this `#[unroll]` loop cannot be unrolled: {why}"),
            })
        } else {
            Ok(None)
        }
    };
    let step_value = match step {
        Some(st) => fold::int(st).map(|(v, _)| v),
        None => Some(1),
    };
    let (Some((first, ty)), Some((last, _)), Some(step_value)) =
        (fold::int(start), fold::int(end), step_value)
    else {
        return refuse(
            "its range is not constant (bounds and step must be constants, such as literals, upper-case constants or tile sizes)",
        );
    };
    if step_value <= 0 {
        // A zero step skips the loop at run time; leave that to the loop.
        return refuse("its step is not positive");
    }
    if has_own_jump(body) {
        return refuse("its body has a `break` or `continue` of its own");
    }
    if visit::walk_has(body, &|s| matches!(s.kind, StmtKind::TileStatic { .. })) {
        return refuse("its body declares a tile_static array");
    }
    let last = if *inclusive { last } else { last - 1 };
    let trips = if last < first {
        0
    } else {
        (last - first) / step_value + 1
    };
    if trips > MAX_TRIPS {
        return refuse(&format!(
            "it runs {trips} times, more than the limit of {MAX_TRIPS}"
        ));
    }
    if !forced {
        let grown = trips as usize * visit::size(body);
        if trips > AUTO_TRIPS || grown > AUTO_BUDGET || grown > *budget {
            return Ok(None);
        }
        *budget -= grown;
    }
    let assigned = visit::assigns(body, *var);
    let mut copies = Vec::with_capacity(trips as usize);
    for k in 0..trips {
        // `.rev()`: the same values, last first.
        let k = if *reverse { trips - 1 - k } else { k };
        let value = fold::int_expr(first + k * step_value, ty, s.span);
        let (mut copy, _) = visit::fresh_copy(body, fresh, types);
        if assigned {
            // `for mut i in ..`: each copy starts from its own binding.
            let local = fresh.next();
            if let Some(t) = types.locals.get(var).cloned() {
                types.locals.insert(local, t);
            }
            visit::rename(&mut copy, &mut |l| if l == *var { local } else { l });
            copy.stmts.insert(
                0,
                Stmt::new(
                    StmtKind::Let {
                        local,
                        name: var_name,
                        ty: None,
                        init: Some(value),
                    },
                    s.span,
                ),
            );
        } else {
            visit::exprs_mut(&mut copy, &mut |e| {
                if e.kind == ExprKind::Local(*var) {
                    let span = e.span;
                    *e = value.clone();
                    e.span = span;
                }
            });
        }
        if let Some(t) = copy.tail.take() {
            let span = t.span;
            copy.stmts.push(Stmt::new(StmtKind::Expr(*t), span));
        }
        copies.push(copy);
    }
    Ok(Some(copies))
}

/// Whether `b` has a `break` or `continue` that leaves or restarts the loop
/// whose body it is (those of inner loops do not count).
fn has_own_jump(b: &Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue => true,
        StmtKind::If(_, a, e) => has_own_jump(a) || e.as_ref().is_some_and(has_own_jump),
        _ => false,
    }) || expr_blocks_jump(b)
}

/// `break` inside a block expression (`let x = if c { break } else { 1 };`).
fn expr_blocks_jump(b: &Block) -> bool {
    let mut found = false;
    for s in &b.stmts {
        let e = match &s.kind {
            StmtKind::Let { init: Some(e), .. }
            | StmtKind::Assign(_, _, e)
            | StmtKind::Expr(e)
            | StmtKind::Return(Some(e)) => e,
            StmtKind::If(c, ..) => c,
            _ => continue,
        };
        found |= expr_jumps(e);
    }
    found || b.tail.as_deref().is_some_and(expr_jumps)
}

fn expr_jumps(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::If(c, a, b) => expr_jumps(c) || has_own_jump(a) || has_own_jump(b),
        ExprKind::Block(b) => has_own_jump(b),
        _ => visit::children(e).into_iter().any(expr_jumps),
    }
}
