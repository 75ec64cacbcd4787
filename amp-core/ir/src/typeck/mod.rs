//! Type reconstruction for the kernel IR, with Rust's rules.
//!
//! rustc has already type-checked the kernel body (its native form is
//! compiled for the CPU accelerator), so this pass only recovers the types
//! rustc chose: it unifies the operands of every operation, takes captured
//! variables' types from their Rust types, and defaults unconstrained integer
//! literals to `i32` and float literals to `f64`, as rustc does. It then
//! writes the resolved type into every unsuffixed literal, so that later
//! passes are purely bottom-up.
//!
//! The checker is one [`Checker`] whose methods are spread over this
//! directory, one file per construct:
//!
//! | file | what it checks |
//! |---|---|
//! | `solver.rs` | the unifier: terms, literal kinds, Rust's literal defaults |
//! | `stmt.rs` | blocks and statements |
//! | `expr.rs` | expressions and operators |
//! | `memory.rs` | places, loads, atomics, `tile_static` elements, fields, reinterpretation |
//! | `call.rs` | built-in calls and calls of `#[kernel]` functions |
//! | `write_back.rs` | the resolved types written into literals, calls and expressions |

mod call;
mod expr;
mod memory;
mod solver;
mod stmt;
mod write_back;

use std::collections::HashMap;

use crate::ir::*;
use crate::{Error, Result};
use solver::{Kind, Solver, Term};

/// A type reconstruction error (a bug in amp-rs: rustc accepted the body).
fn type_error(span: Span, message: String) -> Error {
    Error::Compile {
        kernel: span.to_string(),
        message: format!(
            "type reconstruction failed: {message} (this is a bug in amp-rs: the kernel compiled as Rust)"
        ),
    }
}

/// Types `a` and `b` that should be one.
fn mismatch(span: Span, a: &Type, b: &Type) -> Error {
    type_error(span, format!("`{a}` and `{b}` do not match"))
}

/// The resolved types of a kernel's locals.
#[derive(Debug, Default, Clone)]
pub(crate) struct Types {
    /// Every local's type.
    pub(crate) locals: HashMap<LocalId, Type>,
    /// The first float literal written without a suffix that Rust's
    /// default made `f64` (nothing constrained it to `f32`): where it is.
    /// The usual reason a kernel meant for `f32` needs double precision.
    pub(crate) defaulted_f64: Option<Span>,
}

/// The state of the type reconstruction of a kernel or function body.
struct Checker<'k> {
    solver: Solver,
    locals: HashMap<LocalId, Term>,
    captures: &'k [(&'static str, CaptureKind)],
    rank: u32,
    /// The term of every unsuffixed literal, in traversal order.
    literals: Vec<Term>,
    /// The type arguments of every `#[kernel]` function call, in order.
    calls: Vec<Vec<Term>>,
    /// The term of every expression checked, by address (the body is not
    /// changed between the check and the write-back that reads these).
    exprs: HashMap<*const Expr, Term>,
    /// The return type, when checking a `#[kernel]` function.
    ret: Option<Term>,
    /// The concrete type arguments, when checking a function instance.
    type_args: Vec<Type>,
}

/// The term of a signature type, with type parameters mapped to `params`.
fn term_of(t: &Type, params: &[Term]) -> Term {
    match t {
        Type::Param(k) => params
            .get(*k as usize)
            .cloned()
            .unwrap_or(Term::Known(Type::Param(*k))),
        Type::Array(elem, n) => Term::ArrayOf(Box::new(term_of(elem, params)), *n),
        // A `&mut T` parameter is typed as its pointee.
        Type::Ref(t) => term_of(t, params),
        other => Term::Known(other.clone()),
    }
}

/// `t` with type parameters replaced by `args`.
pub(crate) fn substitute(t: &Type, args: &[Type]) -> Type {
    match t {
        Type::Param(k) => args.get(*k as usize).cloned().unwrap_or(Type::Param(*k)),
        Type::Array(elem, n) => Type::Array(Box::new(substitute(elem, args)), *n),
        Type::Ref(t) => Type::Ref(Box::new(substitute(t, args))),
        other => other.clone(),
    }
}

const fn i32t() -> Term {
    Term::Known(Type::Scalar(Scalar::I32))
}

const fn boolt() -> Term {
    Term::Known(Type::Scalar(Scalar::Bool))
}

impl<'k> Checker<'k> {
    /// A checker of a body over `captures` with domain rank `rank`.
    fn new(captures: &'k [(&'static str, CaptureKind)], rank: u32, type_args: Vec<Type>) -> Self {
        Checker {
            solver: Solver {
                parent: Vec::new(),
                kind: Vec::new(),
                bound: Vec::new(),
            },
            locals: HashMap::new(),
            captures,
            rank,
            literals: Vec::new(),
            exprs: HashMap::new(),
            calls: Vec::new(),
            ret: None,
            type_args,
        }
    }

    /// Starts from the locals' known types.
    fn seed(&mut self, types: &Types) {
        for (id, t) in &types.locals {
            self.locals.insert(*id, Term::Known(t.clone()));
        }
    }

    /// The term of local `id` (a fresh variable at its first use).
    fn local(&mut self, id: LocalId) -> Term {
        if let Some(t) = self.locals.get(&id) {
            return t.clone();
        }
        let t = self.solver.fresh(Kind::Any);
        self.locals.insert(id, t.clone());
        t
    }

    /// Capture `id`'s kind.
    fn capture(&self, id: CaptureId, span: Span) -> Result<&CaptureKind> {
        self.captures
            .get(id.0 as usize)
            .map(|c| &c.1)
            .ok_or_else(|| type_error(span, format!("capture {} does not exist", id.0)))
    }
}

/// Reconstructs the types of `kernel`, writing them into its unsuffixed
/// literals, and returns the types of its locals.
///
/// # Errors
///
/// [`Error::Compile`] if the body is ill-typed (a bug: rustc accepted
/// the same body).
pub(crate) fn check(kernel: &mut Kernel) -> Result<Types> {
    // The front end's last step: methods WGSL lacks, in terms of others.
    crate::passes::lower::block(&mut kernel.body, &[]);
    crate::passes::lower::geometry_captures(&mut kernel.body, &kernel.captures);
    let mut checker = Checker::new(&kernel.captures, kernel.rank, Vec::new());
    checker.block(&kernel.body)?;
    Ok(checker.write_back(&mut kernel.body))
}

/// Gives the `tile_static` arrays of a generic function instance their
/// element types (`[T; 32]` with `T = f32`): the writer and the measure
/// read a declaration's type as it is.
fn instantiate_tile_static(b: &mut Block, args: &[Type]) {
    for s in &mut b.stmts {
        match &mut s.kind {
            StmtKind::TileStatic { ty, .. } => *ty = substitute(ty, args),
            StmtKind::If(_, a, b) => {
                instantiate_tile_static(a, args);
                if let Some(b) = b {
                    instantiate_tile_static(b, args);
                }
            }
            StmtKind::While(_, body) | StmtKind::Loop(body) | StmtKind::For { body, .. } => {
                instantiate_tile_static(body, args);
            }
            _ => {}
        }
    }
}

/// Reconstructs the types of an instance of `function` with `type_args`,
/// writing them into its literals and calls; returns its locals' types.
///
/// # Errors
///
/// [`Error::Compile`] if the body is ill-typed (a bug).
pub(crate) fn check_function(
    function: &mut Function,
    type_args: &[Type],
    captures: &[(&'static str, CaptureKind)],
    rank: u32,
) -> Result<Types> {
    let params: Vec<LocalId> = function.params.iter().map(|p| p.0).collect();
    crate::passes::lower::block(&mut function.body, &params);
    crate::passes::lower::geometry_captures(&mut function.body, captures);
    if !type_args.is_empty() {
        instantiate_tile_static(&mut function.body, type_args);
    }
    let mut checker = Checker::new(captures, rank, type_args.to_vec());
    let known: Vec<Term> = type_args.iter().map(|t| Term::Known(t.clone())).collect();
    for (local, _, ty) in &function.params {
        checker.locals.insert(*local, term_of(ty, &known));
    }
    let ret = function.ret.as_ref().map(|r| term_of(r, &known));
    checker.ret = ret.clone();
    let tail = checker.block(&function.body)?;
    if function.body.tail.is_some()
        && let Some(r) = &ret
    {
        checker.solver.unify(r, &tail, function.span)?;
    }
    Ok(checker.write_back(&mut function.body))
}

/// Writes the type of every expression of the typed kernel `kernel` (after
/// [`check`] and the passes, which add expressions without types) into
/// the expressions, its locals' types being `types`.
///
/// # Errors
///
/// [`Error::Compile`] if the body is ill-typed (a bug in a pass).
pub(crate) fn annotate(kernel: &mut Kernel, types: &Types) -> Result<()> {
    let mut checker = Checker::new(&kernel.captures, kernel.rank, Vec::new());
    checker.seed(types);
    checker.block(&kernel.body)?;
    checker.write_back(&mut kernel.body);
    Ok(())
}

/// [`annotate`] for an instance of `function` with `type_args` (after
/// [`check_function`] and the passes).
///
/// # Errors
///
/// [`Error::Compile`] if the body is ill-typed (a bug in a pass).
pub(crate) fn annotate_function(
    function: &mut Function,
    type_args: &[Type],
    captures: &[(&'static str, CaptureKind)],
    rank: u32,
    types: &Types,
) -> Result<()> {
    let mut checker = Checker::new(captures, rank, type_args.to_vec());
    checker.seed(types);
    let known: Vec<Term> = type_args.iter().map(|t| Term::Known(t.clone())).collect();
    for (local, _, ty) in &function.params {
        checker.locals.insert(*local, term_of(ty, &known));
    }
    let ret = function.ret.as_ref().map(|r| term_of(r, &known));
    checker.ret = ret.clone();
    let tail = checker.block(&function.body)?;
    if function.body.tail.is_some()
        && let Some(r) = &ret
    {
        checker.solver.unify(r, &tail, function.span)?;
    }
    checker.write_back(&mut function.body);
    Ok(())
}
