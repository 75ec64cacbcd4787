//! The instances of the `#[kernel]` functions a kernel calls: each
//! function, for its type arguments and the captures its view parameters
//! bind, type-checked, optimised and legalized once, before the WGSL writer
//! prints them (the writer only prints: it looks each instance up here).

use std::collections::HashMap;

use super::visit;
use crate::instance::{InstanceKey, bound_captures, specialize};
use crate::ir::*;
use crate::typeck::{self, Types};
use crate::{Error, Result};

/// A function instance, lowered as far as the kernel's body is.
pub(crate) struct Instance {
    /// The function with its views bound, typed, optimised and legalized.
    pub(crate) function: Function,
    /// Its locals' types.
    pub(crate) types: Types,
}

/// Every instance a kernel reaches, by its key.
pub(crate) type Instances = HashMap<InstanceKey, Instance>;

/// The instances that `kernel`'s body (legalized) calls, directly or
/// through other instances.
///
/// # Errors
///
/// [`Error::Compile`] for recursion (a function that calls itself,
/// directly or through others) and for an instance that fails to
/// type-check or optimise.
pub(crate) fn instances(kernel: &Kernel) -> Result<Instances> {
    let mut out = Instances::new();
    let mut stack = Vec::new();
    collect(&kernel.body, kernel, &mut out, &mut stack)?;
    Ok(out)
}

/// The calls of `body`, in the order the writer meets them does not
/// matter: each instance is lowered once.
fn calls(body: &Block) -> Vec<(FnRef, Vec<Expr>, Vec<Type>, Span)> {
    let mut calls = Vec::new();
    visit::exprs_mut(&mut body.clone(), &mut |e| {
        if let ExprKind::CallFn(f, args, type_args) = &e.kind {
            calls.push((*f, args.clone(), type_args.clone(), e.span));
        }
    });
    calls
}

fn collect(
    body: &Block,
    kernel: &Kernel,
    out: &mut Instances,
    stack: &mut Vec<usize>,
) -> Result<()> {
    for (f, args, type_args, span) in calls(body) {
        let mut function = f.function();
        let bound = bound_captures(&function, &args, span)?;
        let key: InstanceKey = (f.key(), type_args.clone(), bound);
        if out.contains_key(&key) {
            continue;
        }
        if stack.contains(&key.0) {
            return Err(Error::Compile {
                kernel: span.to_string(),
                message: format!(
                    "`{}` calls itself (directly or through other functions): recursion is not allowed in kernels (C++ AMP restrict(amp)), as GPUs have no call stack",
                    function.name
                ),
            });
        }
        specialize(&mut function, &key.2);
        let mut types =
            typeck::check_function(&mut function, &type_args, &kernel.captures, kernel.rank)?;
        super::optimize_function(&mut function, &mut types)?;
        typeck::annotate_function(
            &mut function,
            &type_args,
            &kernel.captures,
            kernel.rank,
            &types,
        )?;
        super::legalize_function(&mut function, &kernel.captures, &mut types)?;
        stack.push(key.0);
        let inner = collect(&function.body, kernel, out, stack);
        stack.pop();
        inner?;
        out.insert(key, Instance { function, types });
    }
    Ok(())
}
