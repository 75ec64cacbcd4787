//! What a kernel needs of an accelerator beyond its code: the bytes of its
//! local variables per work item (along the deepest chain of `#[kernel]`
//! calls) and of its `tile_static` arrays per tile. Measured on the typed
//! IR, once per kernel and device, and checked at launch on every
//! accelerator, so that a kernel an accelerator cannot hold is refused with
//! an error instead of overflowing a CPU work item's stack (which aborts the
//! process) or failing inside a GPU driver.
//!
//! The walk also refuses recursion (directly or through other functions),
//! which rustc accepts but GPUs cannot run: the CPU accelerator refuses it
//! too, so that a kernel runs everywhere or nowhere.

use std::collections::HashMap;

use crate::ir::{Block, Expr, ExprKind, FnRef, Kernel, Place, Scalar, Span, Stmt, StmtKind, Type};
use crate::typeck::{self, Types};
use crate::{Error, Result};

/// The most bytes of local variables a work item may hold, on every
/// accelerator (CUDA allows 512 KiB of local memory per thread; Vulkan
/// drivers spill private arrays to memory of that kind). Documented in
/// `docs/kernel-language.md`.
pub const MAX_LOCAL_BYTES: u64 = 256 * 1024;

/// What a kernel needs besides its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Resources {
    /// Bytes of local variables of one work item: the kernel's own, plus the
    /// most that one chain of `#[kernel]` calls adds (an upper bound: every
    /// local counts, whether or not their lifetimes overlap).
    pub local_bytes: u64,
    /// Bytes of the `tile_static` arrays of one tile.
    pub tile_static_bytes: u64,
    /// Where the kernel body has its first float literal without a suffix
    /// that became `f64` (`let half = 0.5;` with nothing making it `f32`):
    /// named by the errors of accelerators without double precision, the
    /// usual cause of a kernel meant for `f32` needing it.
    pub f64_literal: Option<crate::ir::Span>,
    /// Whether the kernel computes in `f64` anywhere: a capture, a local,
    /// a value of the body or of a `#[kernel]` function it calls (what
    /// `AMP_DENY_F64` refuses on every accelerator).
    pub uses_f64: bool,
    /// Where the first `f64` value of the kernel body is (a literal, a
    /// read of an `f64` capture, ...), when the body has one.
    pub f64_at: Option<crate::ir::Span>,
}

/// Measures the typed kernel `kernel` (after [`typeck::check`], whose result
/// is `types`).
///
/// # Errors
///
/// [`Error::Compile`] if a `#[kernel]` function calls itself, directly
/// or through others, or a function instance is ill-typed (a bug).
pub(crate) fn measure(kernel: &Kernel, types: &Types) -> Result<Resources> {
    let mut m = Measure {
        captures: kernel.captures.clone(),
        rank: kernel.rank,
        ..Measure::default()
    };
    let mut body = BodyFacts::default();
    m.block(&kernel.body, &mut body)?;
    let f64_at = first_f64_value(&kernel.body);
    let uses_f64 = m.uses_f64
        || f64_at.is_some()
        || types.locals.values().any(Type::uses_f64)
        || kernel.captures.iter().any(|(_, k)| match k {
            crate::ir::CaptureKind::Container { elem, .. } => elem.uses_f64(),
            crate::ir::CaptureKind::Scalar(s) | crate::ir::CaptureKind::Vector(_, s) => {
                *s == crate::ir::Scalar::F64
            }
            crate::ir::CaptureKind::Struct(t) => t.uses_f64(),
            crate::ir::CaptureKind::Index(_) => false,
        });
    Ok(Resources {
        local_bytes: locals_bytes(types, &body.tile_static) + body.deepest_call,
        // Each function instance's `tile_static` arrays exist once, however
        // often it is called.
        tile_static_bytes: body.tile_static_bytes.saturating_add(m.function_tile_bytes),
        f64_literal: types.defaulted_f64,
        uses_f64,
        f64_at,
    })
}

/// The span of the first expression of `body` (in traversal order) whose
/// type uses `f64`.
fn first_f64_value(body: &Block) -> Option<Span> {
    // (A copy: the walker visits mutably; this runs once per compiled
    // kernel.)
    let mut copy = body.clone();
    let mut at = None;
    crate::passes::visit::exprs_mut(&mut copy, &mut |e: &mut Expr| {
        if at.is_none() && e.ty.as_ref().is_some_and(Type::uses_f64) {
            at = Some(e.span);
        }
    });
    at
}

/// Function instances measured so far, and the chain being measured.
#[derive(Default)]
struct Measure {
    done: HashMap<crate::instance::InstanceKey, u64>,
    stack: Vec<usize>,
    /// The kernel's captures (what view parameters bind) and rank.
    captures: Vec<(&'static str, crate::ir::CaptureKind)>,
    rank: u32,
    /// The `tile_static` bytes of the function instances measured.
    function_tile_bytes: u64,
    /// Whether a function instance measured computes in `f64`.
    uses_f64: bool,
}

/// What the walk of one body found.
#[derive(Default)]
struct BodyFacts {
    /// The `tile_static` locals (not in private memory).
    tile_static: Vec<crate::ir::LocalId>,
    tile_static_bytes: u64,
    /// The largest footprint of a function called from the body.
    deepest_call: u64,
}

/// The bytes of every local of a body but its `tile_static` arrays.
fn locals_bytes(types: &Types, tile_static: &[crate::ir::LocalId]) -> u64 {
    types
        .locals
        .iter()
        .filter(|(id, _)| !tile_static.contains(id))
        .map(|(_, t)| size_align(t).0)
        .fold(0u64, u64::saturating_add)
}

/// The size and alignment of `t` as WGSL lays it out (which is at least what
/// the native form needs).
pub(crate) fn size_align(t: &Type) -> (u64, u64) {
    match t {
        Type::Scalar(Scalar::F64) => (8, 8),
        Type::Scalar(Scalar::F16) => (2, 2),
        Type::Scalar(_) | Type::Param(_) => (4, 4),
        Type::Index(n) => (4 * u64::from(*n), 4),
        Type::Vector(n, s) => {
            let w = if *s == Scalar::F64 { 8 } else { 4 };
            let n = u64::from(*n);
            let align = if n == 2 { 2 * w } else { 4 * w };
            (n * w, align)
        }
        Type::Array(e, n) => {
            let (size, align) = size_align(e);
            (round(size, align).saturating_mul(u64::from(*n)), align)
        }
        Type::Struct(st) => fields_size_align(st.fields.iter().map(|(_, t)| t)),
        Type::Tuple(ts) => fields_size_align(ts.iter()),
        // A pointer: the pointee is the caller's.
        Type::Ref(_) => (0, 1),
    }
}

/// `x` rounded up to a multiple of `align`.
pub(crate) fn round(x: u64, align: u64) -> u64 {
    x.div_ceil(align.max(1)) * align.max(1)
}

fn fields_size_align<'a>(fields: impl Iterator<Item = &'a Type>) -> (u64, u64) {
    let (mut size, mut align) = (0u64, 1u64);
    for f in fields {
        let (s, a) = size_align(f);
        size = round(size, a).saturating_add(s);
        align = align.max(a);
    }
    (round(size, align), align)
}

impl Measure {
    /// The footprint of the instance of `f` with `type_args`: its locals
    /// (parameters included) and its deepest call.
    fn function(&mut self, f: FnRef, type_args: &[Type], args: &[Expr], span: Span) -> Result<u64> {
        let mut func = f.function();
        let bound = crate::instance::bound_captures(&func, args, span)?;
        let key = (f.key(), type_args.to_vec(), bound);
        if let Some(&bytes) = self.done.get(&key) {
            return Ok(bytes);
        }
        crate::instance::specialize(&mut func, &key.2);
        if self.stack.contains(&key.0) {
            return Err(Error::Compile {
                kernel: span.to_string(),
                message: format!(
                    "`{}` calls itself (directly or through other functions): recursion is not allowed in kernels (C++ AMP restrict(amp)), on any accelerator: GPUs have no call stack",
                    func.name
                ),
            });
        }
        self.stack.push(key.0);
        let types = typeck::check_function(&mut func, type_args, &self.captures, self.rank)?;
        // An `#[unroll]` that cannot be is an error on every accelerator:
        // found here, where every accelerator measures the functions.
        if crate::passes::has_forced_unroll(&func.body) {
            crate::passes::optimize_function(&mut func.clone(), &mut types.clone())?;
        }
        let mut body = BodyFacts::default();
        let walked = self.block(&func.body, &mut body);
        self.stack.pop();
        walked?;
        self.uses_f64 |=
            types.locals.values().any(Type::uses_f64) || first_f64_value(&func.body).is_some();
        let bytes = locals_bytes(&types, &body.tile_static).saturating_add(body.deepest_call);
        self.function_tile_bytes = self
            .function_tile_bytes
            .saturating_add(body.tile_static_bytes);
        self.done.insert(key, bytes);
        Ok(bytes)
    }

    fn block(&mut self, b: &Block, facts: &mut BodyFacts) -> Result<()> {
        for s in &b.stmts {
            self.stmt(s, facts)?;
        }
        if let Some(t) = &b.tail {
            self.expr(t, facts)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, facts: &mut BodyFacts) -> Result<()> {
        match &s.kind {
            StmtKind::Let { init, .. } => {
                if let Some(e) = init {
                    self.expr(e, facts)?;
                }
            }
            StmtKind::Assign(place, _, e) => {
                self.place(place, facts)?;
                self.expr(e, facts)?;
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e, facts)?,
            StmtKind::If(c, a, b) => {
                self.expr(c, facts)?;
                self.block(a, facts)?;
                if let Some(b) = b {
                    self.block(b, facts)?;
                }
            }
            StmtKind::While(c, body) => {
                self.expr(c, facts)?;
                self.block(body, facts)?;
            }
            StmtKind::Loop(body) => self.block(body, facts)?,
            StmtKind::For {
                start,
                end,
                step,
                body,
                ..
            } => {
                self.expr(start, facts)?;
                self.expr(end, facts)?;
                if let Some(st) = step {
                    self.expr(st, facts)?;
                }
                self.block(body, facts)?;
            }
            StmtKind::TileStatic { local, ty, .. } => {
                facts.tile_static.push(*local);
                facts.tile_static_bytes = facts
                    .tile_static_bytes
                    .saturating_add(size_align(ty).0.next_multiple_of(16));
            }
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(None)
            | StmtKind::Barrier(_) => {}
        }
        Ok(())
    }

    fn place(&mut self, p: &Place, facts: &mut BodyFacts) -> Result<()> {
        match p {
            Place::Local(_) => Ok(()),
            Place::Element(_, xs) | Place::ArrayElement(_, xs) | Place::TileElement(_, xs) => {
                self.exprs(xs, facts)
            }
            Place::Field(base, _) => self.place(base, facts),
        }
    }

    fn exprs(&mut self, xs: &[Expr], facts: &mut BodyFacts) -> Result<()> {
        xs.iter().try_for_each(|x| self.expr(x, facts))
    }

    fn expr(&mut self, e: &Expr, facts: &mut BodyFacts) -> Result<()> {
        match &e.kind {
            ExprKind::Lit(_)
            | ExprKind::Local(_)
            | ExprKind::Capture(_)
            | ExprKind::KernelIndex
            | ExprKind::Extent(_)
            | ExprKind::Tiled(_) => Ok(()),
            ExprKind::Binary(_, l, r)
            | ExprKind::IndexComponent(l, r)
            | ExprKind::ArrayElement(l, r) => {
                self.expr(l, facts)?;
                self.expr(r, facts)
            }
            ExprKind::Unary(_, x)
            | ExprKind::Cast(x, _)
            | ExprKind::RepeatArray(x, _)
            | ExprKind::Field(x, _) => self.expr(x, facts),
            ExprKind::Load(_, xs)
            | ExprKind::MakeIndex(xs)
            | ExprKind::MakeArray(xs)
            | ExprKind::Call(_, xs)
            | ExprKind::MakeVector(_, _, xs)
            | ExprKind::MakeTuple(xs)
            | ExprKind::TileLoad(_, xs) => self.exprs(xs, facts),
            ExprKind::MakeStruct(_, fields) => {
                fields.iter().try_for_each(|(_, x)| self.expr(x, facts))
            }
            ExprKind::Atomic(_, place, args) => {
                self.exprs(args, facts)?;
                self.place(place, facts)
            }
            ExprKind::AddrOf(place) => self.place(place, facts),
            ExprKind::CallFn(f, args, type_args) => {
                self.exprs(args, facts)?;
                let bytes = self.function(*f, type_args, args, e.span)?;
                facts.deepest_call = facts.deepest_call.max(bytes);
                Ok(())
            }
            ExprKind::If(c, a, b) => {
                self.expr(c, facts)?;
                self.block(a, facts)?;
                self.block(b, facts)
            }
            ExprKind::Block(b) => self.block(b, facts),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_wgsl_layout() {
        let f32_ = Type::Scalar(Scalar::F32);
        assert_eq!(size_align(&f32_), (4, 4));
        assert_eq!(
            size_align(&Type::Array(Box::new(f32_.clone()), 1 << 20)).0,
            4 << 20
        );
        // vec3<f32> has a stride of 16 in arrays.
        let v3 = Type::Vector(3, Scalar::F32);
        assert_eq!(size_align(&Type::Array(Box::new(v3), 4)).0, 64);
        assert_eq!(
            size_align(&Type::Tuple(vec![f32_, Type::Scalar(Scalar::F64)])),
            (16, 8)
        );
    }
}
