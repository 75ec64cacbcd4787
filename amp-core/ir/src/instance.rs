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

use crate::ir::*;
use crate::{Error, Result};

/// What identifies an instance: the function, its type arguments, and the
/// captures its view parameters bind, in order.
pub(crate) type InstanceKey = (usize, Vec<Type>, Vec<CaptureId>);

fn call_error(span: Span, message: String) -> Error {
    Error::Compile {
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
/// [`Error::Compile`] for a view parameter not given a captured
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
    crate::passes::visit::rename_captures(&mut func.body, &mut |c| {
        c.as_param()
            .and_then(|k| bound.get(k as usize).copied())
            .unwrap_or(c)
    });
}
