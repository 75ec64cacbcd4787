//! `#[kernel]` functions: calls to them, and the WGSL instance of a
//! function for its type arguments and bound captures, written once per
//! module (`passes::instances` typed, optimised and legalized it, and
//! refused recursion).

use super::types::type_wgsl;
use super::{Namer, Writer, compile_error};
use crate::Result;
use crate::ir::*;
use crate::typeck;

impl Writer<'_> {
    /// A call of a `#[kernel]` function: the arguments that bind views and the
    /// tiled index pass nothing.
    pub(super) fn call_fn(
        &mut self,
        f: FnRef,
        args: &[Expr],
        type_args: &[Type],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        // The arguments that bind views and the tiled index pass
        // nothing: the instance uses what they bind directly.
        let func = f.function();
        let refs = crate::instance::value_args(&func, args);
        let bound = crate::instance::bound_captures(&func, args, span)?;
        let vals: Vec<String> = self.seq(&refs, pre)?.into_iter().map(|v| v.0).collect();
        let (name, ret) = self.function(f, type_args, bound, span)?;
        Ok((format!("{name}({})", vals.join(", ")), ret))
    }

    /// The WGSL name of the instance of `f` with `type_args`, writing it
    /// (and the instances it calls) first if needed.
    fn function(
        &mut self,
        f: FnRef,
        type_args: &[Type],
        bound: Vec<CaptureId>,
        span: Span,
    ) -> Result<(String, Type)> {
        let key = (f.key(), type_args.to_vec(), bound);
        let instances = self.instances;
        let instance = instances.get(&key).ok_or_else(|| {
            compile_error(
                span,
                "a `#[kernel]` function instance reached the writer unprepared (a bug in amp-rs: `passes::instances` lowers each one)",
            )
        })?;
        let (func, types) = (&instance.function, &instance.types);
        let ret = func
            .ret
            .as_ref()
            .map(|r| typeck::substitute(r, type_args))
            .unwrap_or(Type::Index(0));
        if let Some(name) = self.fns.borrow().names.get(&key) {
            return Ok((name.clone(), ret));
        }
        let name = {
            let mut reg = self.fns.borrow_mut();
            reg.count += 1;
            let stem: String = func
                .name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            format!("amp_fn_{stem}_{}", reg.count)
        };
        // The instance reads the kernel's bindings (the captures its view
        // parameters bind, the tiled index's module-scope variables) by
        // their global names, which its own names must not shadow.
        let mut namer = Namer::default();
        for c in &self.captures {
            namer.internal(c);
        }
        let mut w = Writer {
            kernel: self.kernel,
            types,
            namer,
            locals: Default::default(),
            captures: self.captures.clone(),
            out: String::new(),
            indent: 1,
            tmp: 0,
            uses_f64: false,
            uses_f16: false,
            immediates: self.immediates,
            loop_guard: self.loop_guard,
            fns: std::rc::Rc::clone(&self.fns),
            atomic: crate::passes::AtomicTargets {
                captures: self.atomic.captures.clone(),
                tiles: crate::passes::atomic_targets(&func.body).tiles,
            },
            subgroups: self.subgroups,
            tiled_functions: self.tiled_functions,
            function: Some({
                let mut reg = self.fns.borrow_mut();
                let next = reg.tile_prefixes.len();
                reg.tile_prefixes
                    .entry((key.0, type_args.to_vec()))
                    .or_insert_with(|| format!("amp_ts{next}_{}", func.name))
                    .clone()
            }),
            read_only: self.read_only.clone(),
            instances: self.instances,
        };
        let mut params = Vec::new();
        for (i, (local, pname, ty)) in func.params.iter().enumerate() {
            let ty = typeck::substitute(ty, type_args);
            w.note(&ty);
            params.push(format!("amp_a{i}: {}", type_wgsl(&ty)));
            if let Type::Ref(_) = ty {
                // A `&mut T` parameter: every use goes through the pointer.
                w.locals.insert(*local, format!("(*amp_a{i})"));
                continue;
            }
            let wname = w.namer.name(pname);
            w.locals.insert(*local, wname.clone());
            w.line(&format!("var {wname}: {} = amp_a{i};", type_wgsl(&ty)));
        }
        let result = (|| {
            w.block_stmts(&func.body)?;
            if let Some(t) = &func.body.tail {
                let mut pre = Vec::new();
                let (v, _) = w.expr(t, &mut pre)?;
                w.flush_pre(pre);
                if ret == Type::Index(0) {
                    w.line(&format!("_ = {v};"));
                } else {
                    w.line(&format!("return {v};"));
                }
            }
            Ok(())
        })();
        result?;
        self.note(&ret);
        self.uses_f64 |= w.uses_f64 || ret == Type::Scalar(Scalar::F64);
        self.uses_f16 |= w.uses_f16 || ret.uses_f16();
        let ret_text = if ret == Type::Index(0) {
            String::new()
        } else {
            format!(" -> {}", type_wgsl(&ret))
        };
        let def = format!(
            "fn {name}({}){ret_text} {{\n{}}}\n",
            params.join(", "),
            w.out
        );
        let mut reg = self.fns.borrow_mut();
        reg.defs.push_str(&def);
        reg.names.insert(key, name.clone());
        Ok((name, ret))
    }
}
