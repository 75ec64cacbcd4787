//! Storage-memory fences that no work item can observe, dropped from tile
//! barriers.
//!
//! C++ AMP's `tile_barrier::wait` (and `wait_with_all_memory_fence`,
//! `wait_with_global_memory_fence`) orders the tile's accesses to captured
//! containers around the barrier as well as its `tile_static` accesses. In
//! WGSL that fence is `storageBarrier()`, which on an H100 made a
//! `tile_static` reduction tree 3.8x slower than the same tree with
//! `workgroupBarrier()` alone (docs/benchmarks.md, "Kernels as users write
//! them").
//!
//! The fence only matters where one work item of a tile may access a
//! container element before a barrier and another work item the same
//! element after it, one of the two accesses a write. This pass proves
//! there is no such pair in a simple, conservative way and then makes every
//! barrier of the kernel a `tile_static`-only one:
//!
//! - the containers the kernel may write (stores, atomics, `&mut`
//!   references, `reinterpret_as` stores; [`super::written_captures`]) are
//!   the only ones that can carry such a pair: the others are only read
//!   while the kernel runs;
//! - every access to one of those containers (a read as well as a write)
//!   must sit where no barrier can follow it in the work item's execution:
//!   after the last barrier, and not inside a loop that has a barrier;
//! - a kernel that calls a `#[kernel]` function keeps its fences (the
//!   callee's accesses and barriers are not followed).
//!
//! Then every write to a shared container happens after the work item's
//! last barrier, and every container read before a barrier reads memory
//! that nothing writes during the kernel: removing the storage fence
//! changes no value any work item can see.

use super::visit;
use crate::ir::{BarrierKind, Block, ExprKind, Stmt, StmtKind};

/// Makes every barrier of `body` a `tile_static`-only barrier where its
/// storage fence cannot be observed (see the module docs); returns whether
/// it did.
pub(crate) fn relax(body: &mut Block) -> bool {
    let fenced = |s: &Stmt| {
        matches!(
            s.kind,
            StmtKind::Barrier(
                BarrierKind::Wait | BarrierKind::AllMemory | BarrierKind::GlobalMemory
            )
        )
    };
    if !visit::walk_has(body, &fenced) || calls_functions(body) {
        return false;
    }
    let written: Vec<u32> = super::written_captures(body).into_iter().collect();
    if accessed_before_a_barrier(body, &written, false) {
        return false;
    }
    relax_stmts(body);
    // Statements in blocks inside expressions (`let x = { .. };`).
    visit::exprs_mut(body, &mut |e| match &mut e.kind {
        ExprKind::Block(b) => relax_stmts(b),
        ExprKind::If(_, a, b) => {
            relax_stmts(a);
            relax_stmts(b);
        }
        _ => {}
    });
    true
}

/// Whether `body` calls a `#[kernel]` function.
fn calls_functions(body: &Block) -> bool {
    let mut found = false;
    visit::exprs_mut(&mut body.clone(), &mut |e| {
        found |= matches!(e.kind, ExprKind::CallFn(..));
    });
    found
}

/// Whether an access to one of `written` in `b` may be followed by a
/// barrier, given whether one may follow `b` itself (`follows`).
fn accessed_before_a_barrier(b: &Block, written: &[u32], follows: bool) -> bool {
    let mut follows = follows;
    if let Some(tail) = &b.tail {
        let one = Block {
            stmts: Vec::new(),
            tail: Some(tail.clone()),
        };
        let inner = has_barrier(&one);
        if (follows || inner) && mentions(&one, written) {
            return true;
        }
        follows |= inner;
    }
    for s in b.stmts.iter().rev() {
        let one = Block {
            stmts: vec![s.clone()],
            tail: None,
        };
        let inner = has_barrier(&one);
        // Code that runs before the statement's own barriers, or again
        // after them (a loop's next iteration), may be followed by one.
        let around = follows || inner;
        let found = match &s.kind {
            StmtKind::If(c, then, otherwise) => {
                (around && mentions_expr(c, written))
                    || accessed_before_a_barrier(then, written, follows)
                    || otherwise
                        .as_ref()
                        .is_some_and(|o| accessed_before_a_barrier(o, written, follows))
            }
            StmtKind::While(c, body) => {
                (around && mentions_expr(c, written))
                    || accessed_before_a_barrier(body, written, around)
            }
            StmtKind::Loop(body) => accessed_before_a_barrier(body, written, around),
            StmtKind::For {
                start,
                end,
                step,
                body,
                ..
            } => {
                (around
                    && (mentions_expr(start, written)
                        || mentions_expr(end, written)
                        || step.as_ref().is_some_and(|e| mentions_expr(e, written))))
                    || accessed_before_a_barrier(body, written, around)
            }
            _ => around && mentions(&one, written),
        };
        if found {
            return true;
        }
        follows |= inner;
    }
    false
}

/// Whether `b` (nested statements included) has a barrier.
fn has_barrier(b: &Block) -> bool {
    visit::walk_has(b, &|s| matches!(s.kind, StmtKind::Barrier(_)))
}

/// Whether `e` reads or writes one of `written`.
fn mentions_expr(e: &crate::ir::Expr, written: &[u32]) -> bool {
    mentions(
        &Block {
            stmts: Vec::new(),
            tail: Some(Box::new(e.clone())),
        },
        written,
    )
}

/// Whether `b` reads or writes one of `written` (an element load, a store,
/// an atomic operation, a reference, or the container passed to a
/// built-in).
fn mentions(b: &Block, written: &[u32]) -> bool {
    let hit = |c: Option<u32>| c.is_some_and(|c| written.contains(&c));
    let mut found = false;
    visit::walk_stmts(b, &mut |s| {
        if let StmtKind::Assign(p, _, _) = &s.kind {
            found |= hit(visit::place_capture(p));
        }
    });
    visit::exprs_mut(&mut b.clone(), &mut |e| {
        found |= match &e.kind {
            ExprKind::Load(c, _) | ExprKind::Capture(c) => hit(Some(c.0)),
            ExprKind::Atomic(_, p, _) | ExprKind::AddrOf(p) => hit(visit::place_capture(p)),
            _ => false,
        };
    });
    found
}

/// Makes the barriers of `b`'s statements (and of their nested statement
/// blocks, not those inside expressions) `tile_static`-only.
fn relax_stmts(b: &mut Block) {
    for s in &mut b.stmts {
        match &mut s.kind {
            StmtKind::Barrier(kind) => *kind = BarrierKind::TileStaticMemory,
            StmtKind::If(_, a, e) => {
                relax_stmts(a);
                if let Some(e) = e {
                    relax_stmts(e);
                }
            }
            StmtKind::While(_, body) | StmtKind::Loop(body) | StmtKind::For { body, .. } => {
                relax_stmts(body)
            }
            _ => {}
        }
    }
}
