//! The optimising stage: passes over the typed kernel IR, between type
//! reconstruction and the WGSL writer.
//!
//! The writer prints what it is given; these passes decide what that is.
//! Each pass is a function over a [`Block`] (a kernel's body or a
//! `#[kernel]` function's) and the locals' types, and keeps Rust's
//! semantics exactly (integer arithmetic wraps; `/` and `%` follow the
//! kernel language's rules for a zero divisor):
//!
//! 1. [`fold`]: constant folding of integer and boolean operations and
//!    propagation of locals bound once to a constant;
//! 2. [`unroll`]: full unrolling of `for` loops over constant ranges (small
//!    ones always, any size under `#[unroll]`), each copy folded again;
//! 3. [`scalarize`]: scalar replacement of local arrays whose every access
//!    has constant indices (after unrolling), so that accumulators live in
//!    registers instead of memory;
//! 4. [`fences`] (kernels only): tile barriers lose their storage-memory
//!    fence where no work item can observe it.
//!
//! The CPU accelerator compiles the native form of a kernel with LLVM, which
//! does the same on its own; it runs these passes only for their errors
//! (`#[unroll]` on a loop that cannot be unrolled), so that a kernel is
//! refused identically everywhere.

pub(crate) mod fences;
pub(crate) mod fold;
pub(crate) mod instances;
pub(crate) mod legalize;
pub(crate) mod lower;
pub(crate) mod narrow;
pub(crate) mod scalarize;
pub(crate) mod unroll;
pub(crate) mod visit;

use crate::Result;
use crate::ir::{Block, Function, Kernel, LocalId};
use crate::typeck::Types;

/// Runs every pass over a kernel's body.
///
/// # Errors
///
/// [`crate::Error::Compile`] for a `#[unroll]` loop that cannot be
/// unrolled.
pub(crate) fn optimize(kernel: &mut Kernel, types: &mut Types) -> Result<()> {
    optimize_block(&mut kernel.body, types)?;
    fences::relax(&mut kernel.body);
    Ok(())
}

/// Runs every pass over a `#[kernel]` function's instance.
///
/// # Errors
///
/// As [`optimize`].
pub(crate) fn optimize_function(function: &mut Function, types: &mut Types) -> Result<()> {
    optimize_block(&mut function.body, types)
}

fn optimize_block(body: &mut Block, types: &mut Types) -> Result<()> {
    let mut next = Fresh::after(body, types);
    fold::block(body);
    let mut budget = unroll::TOTAL_BUDGET;
    unroll::block(body, types, &mut next, &mut budget)?;
    scalarize::block(body, types, &mut next);
    Ok(())
}

/// Lowers Rust's semantics to WGSL's in the optimised, typed `kernel`
/// (the last stage before the writer; see [`legalize`]): annotates every
/// expression with its type, then rewrites the operators.
///
/// # Errors
///
/// [`crate::Error::Compile`] if the optimised body is ill-typed (a bug).
pub(crate) fn legalize(kernel: &mut Kernel, types: &mut Types) -> Result<()> {
    crate::typeck::annotate(kernel, types)?;
    let mut next = Fresh::after(&kernel.body, types);
    legalize::block(&mut kernel.body, &kernel.captures, types, &mut next)
}

/// [`legalize`] for a `#[kernel]` function's instance (annotated already).
///
/// # Errors
///
/// As [`legalize`].
pub(crate) fn legalize_function(
    function: &mut Function,
    captures: &[(&'static str, crate::ir::CaptureKind)],
    types: &mut Types,
) -> Result<()> {
    let mut next = Fresh::after(&function.body, types);
    legalize::block(&mut function.body, captures, types, &mut next)
}

/// Whether `body` has a loop marked `#[unroll]` (whose unrolling can fail).
pub(crate) fn has_forced_unroll(body: &Block) -> bool {
    visit::walk_has(body, &|s| {
        matches!(s.kind, crate::ir::StmtKind::For { unroll: true, .. })
    })
}

/// The memory that atomic operations touch in a kernel: those captured
/// containers and `tile_static` arrays get atomic WGSL types, and every
/// access to them becomes an atomic built-in.
#[derive(Debug, Default, Clone)]
pub(crate) struct AtomicTargets {
    /// Captured containers, by capture number.
    pub(crate) captures: std::collections::HashSet<u32>,
    /// `tile_static` arrays.
    pub(crate) tiles: std::collections::HashSet<LocalId>,
}

/// The memory that the atomic operations of `body` touch.
///
/// Captures are followed into the functions `body` calls (a view parameter
/// binds one); `tile_static` arrays are `body`'s own (a function's arrays
/// are its own locals, numbered apart from the caller's).
pub(crate) fn atomic_targets(body: &Block) -> AtomicTargets {
    let mut found = AtomicTargets::default();
    with_instances(body, &mut |e| {
        if let crate::ir::ExprKind::Atomic(_, place, _) = &e.kind
            && let crate::ir::Place::Element(c, _) = &**place
        {
            found.captures.insert(c.0);
        }
    });
    visit::exprs_mut(&mut body.clone(), &mut |e| {
        if let crate::ir::ExprKind::Atomic(_, place, _) = &e.kind
            && let crate::ir::Place::TileElement(id, _) = &**place
        {
            found.tiles.insert(*id);
        }
    });
    found
}

/// Whether `body` (or a function it calls) uses subgroup operations.
pub(crate) fn uses_subgroups(body: &Block) -> bool {
    let mut found = false;
    with_instances(body, &mut |e| {
        if let crate::ir::ExprKind::Call(b, _) = &e.kind {
            found |= b.is_subgroup();
        }
    });
    found
}

/// Whether `body` calls a `#[kernel]` function that takes the tiled index
/// (which then reads the work item's tiled index at module scope).
pub(crate) fn passes_tiled_index(body: &Block) -> bool {
    let mut found = false;
    with_instances(body, &mut |e| {
        if let crate::ir::ExprKind::CallFn(f, _, _) = &e.kind {
            found |= f
                .function()
                .bindings
                .iter()
                .any(|(_, b)| matches!(b, crate::ir::ParamBinding::Tiled(_)));
        }
    });
    found
}

/// Calls `f` on every expression of `body` and of the function instances
/// it calls, those called by them too (atomics on a view parameter touch
/// the capture the call binds, hence the instances): each instance once,
/// so recursion (an error elsewhere) ends here.
pub(crate) fn with_instances(body: &Block, f: &mut dyn FnMut(&crate::ir::Expr)) {
    instance_bodies(body, &mut |b| {
        visit::exprs_mut(&mut b.clone(), &mut |e| f(e));
    });
}

/// Calls `f` on `body` and on the body of each function instance it calls,
/// directly or not, once per instance, with the instance's view parameters
/// replaced by the captures they bind.
pub(crate) fn instance_bodies(body: &Block, f: &mut dyn FnMut(&Block)) {
    let mut seen = std::collections::HashSet::new();
    instance_bodies_in(body, f, &mut seen);
}

fn instance_bodies_in(
    body: &Block,
    f: &mut dyn FnMut(&Block),
    seen: &mut std::collections::HashSet<crate::instance::InstanceKey>,
) {
    f(body);
    let mut calls = Vec::new();
    visit::exprs_mut(&mut body.clone(), &mut |e| {
        if let crate::ir::ExprKind::CallFn(func, args, type_args) = &e.kind {
            let callee = func.function();
            if let Ok(bound) = crate::instance::bound_captures(&callee, args, e.span) {
                calls.push((*func, type_args.clone(), bound));
            }
        }
    });
    for (func, type_args, bound) in calls {
        if seen.insert((func.key(), type_args, bound.clone())) {
            let mut callee = func.function();
            crate::instance::specialize(&mut callee, &bound);
            instance_bodies_in(&callee.body, f, seen);
        }
    }
}

/// The container captures that `body`, or a function instance it calls,
/// may write: stores to their elements (or fields of them), atomic
/// operations on them, `reinterpret_as` stores, and `&mut` references to
/// their elements (passed on to a function, which may write through them).
///
/// The others can be bound read-only (the WGSL declares them `read`,
/// which lets drivers use read-only caches): the read-only demotion of
/// writable views a kernel never writes, as an analysis of the IR.
pub(crate) fn written_captures(body: &Block) -> std::collections::HashSet<u32> {
    use crate::ir::{Builtin, ExprKind, StmtKind};
    let mut written = std::collections::HashSet::new();
    instance_bodies(body, &mut |b| {
        visit::walk_stmts(b, &mut |s| {
            if let StmtKind::Assign(p, _, _) = &s.kind {
                written.extend(visit::place_capture(p));
            }
        });
        visit::exprs_mut(&mut b.clone(), &mut |e| match &e.kind {
            ExprKind::Atomic(_, p, _) | ExprKind::AddrOf(p) => {
                written.extend(visit::place_capture(p))
            }
            ExprKind::Call(Builtin::ReinterpretStore, args) => {
                if let Some(ExprKind::Capture(c)) = args.first().map(|a| &a.kind) {
                    written.insert(c.0);
                }
            }
            _ => {}
        });
    });
    written
}

/// A source of new local ids, above every id of the body.
#[derive(Debug)]
pub(crate) struct Fresh(u32);

impl Fresh {
    /// Ids after those of `body` and of `types`.
    pub(crate) fn after(body: &Block, types: &Types) -> Fresh {
        Fresh::above(body, types.locals.keys().copied())
    }

    /// Ids after those of `body` and of `reserved` (locals the body may not
    /// mention, such as a function's parameters).
    pub(crate) fn above(body: &Block, reserved: impl IntoIterator<Item = LocalId>) -> Fresh {
        let mut max = reserved.into_iter().map(|l| l.0).max().unwrap_or(0);
        visit::locals(body, &mut |l| max = max.max(l.0));
        Fresh(max + 1)
    }

    /// A new id.
    pub(crate) fn next(&mut self) -> LocalId {
        let id = LocalId(self.0);
        self.0 += 1;
        id
    }
}

#[cfg(test)]
mod tests;
