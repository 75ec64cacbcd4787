//! Composite values: vectors, structs, tuples, indices and arrays built
//! from their parts (in Rust's order), and their elements read (`idx[k]`,
//! `a[i]`).

use super::types::type_wgsl;
use super::{Writer, compile_error};
use crate::Result;
use crate::ir::*;

/// Whether `e` is a local array or an element of one (`acc`, `acc[i]`).
fn is_local_element(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) => true,
        ExprKind::ArrayElement(a, _) => is_local_element(a),
        _ => false,
    }
}

impl Writer<'_> {
    /// `vecN<T>(..)` of its components.
    pub(super) fn make_vector(
        &mut self,
        n: u8,
        sc: Scalar,
        args: &[Expr],
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let args: Vec<&Expr> = args.iter().collect();
        let vals: Vec<String> = self.seq(&args, pre)?.into_iter().map(|v| v.0).collect();
        if sc == Scalar::F64 {
            self.uses_f64 = true;
        }
        let ty = Type::Vector(n, sc);
        Ok((format!("{}({})", type_wgsl(&ty), vals.join(", ")), ty))
    }

    /// A struct literal: the fields in the order written, passed in the
    /// order declared.
    pub(super) fn make_struct(
        &mut self,
        ty: &Type,
        fields: &[(&'static str, Expr)],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let Type::Struct(st) = ty else {
            return Err(compile_error(span, "not a struct"));
        };
        self.note(ty);
        // Rust evaluates the fields in the order they are written.
        let written: Vec<&Expr> = fields.iter().map(|(_, e)| e).collect();
        let written_vals = self.seq(&written, pre)?;
        let mut vals = Vec::new();
        for (name, _) in &st.fields {
            let k = fields
                .iter()
                .position(|(f, _)| f == name)
                .ok_or_else(|| compile_error(span, format!("field `{name}` is missing")))?;
            vals.push(written_vals[k].0.clone());
        }
        Ok((format!("{}({})", st.name, vals.join(", ")), ty.clone()))
    }

    /// A tuple (a struct `amp_tuple_..` of its element types).
    pub(super) fn make_tuple(
        &mut self,
        items: &[Expr],
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let items: Vec<&Expr> = items.iter().collect();
        let (vals, types): (Vec<String>, Vec<Type>) = self.seq(&items, pre)?.into_iter().unzip();
        let ty = Type::Tuple(types);
        self.note(&ty);
        Ok((format!("{}({})", type_wgsl(&ty), vals.join(", ")), ty))
    }

    /// `idx[k]`: a component of an index (a computed index is bound first).
    pub(super) fn index_component(
        &mut self,
        x: &Expr,
        k: &Expr,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let mut vals = self.seq(&[x, k], pre)?.into_iter();
        let (v, kv) = (vals.next().expect("index").0, vals.next().expect("k").0);
        let base = if v.chars().all(|c| c.is_alphanumeric() || c == '_') {
            v
        } else {
            let tmp = self.fresh();
            pre.push(format!("var {tmp} = {v};"));
            tmp
        };
        Ok((format!("{base}[{kv}]"), Type::Scalar(Scalar::I32)))
    }

    /// An index from its components.
    pub(super) fn make_index(
        &mut self,
        parts: &[Expr],
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let refs: Vec<&Expr> = parts.iter().collect();
        let vals: Vec<String> = self.seq(&refs, pre)?.into_iter().map(|v| v.0).collect();
        Ok((
            format!("array<i32, {}>({})", parts.len(), vals.join(", ")),
            Type::Index(parts.len() as u32),
        ))
    }

    /// `a[i]`: an element of an array value.
    pub(super) fn array_element(
        &mut self,
        a: &Expr,
        i: &Expr,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let mut vals = self.seq(&[a, i], pre)?.into_iter();
        let ((av, at), (iv, _)) = (vals.next().expect("array"), vals.next().expect("index"));
        let elem = match at {
            Type::Array(elem, _) => *elem,
            Type::Index(_) => Type::Scalar(Scalar::I32),
            _ => return Err(compile_error(span, "indexing a non-array")),
        };
        // An element of a local array (`acc[i][j]`) is read in
        // place; other array values are bound first.
        let base = if av.chars().all(|c| c.is_alphanumeric() || c == '_') || is_local_element(a) {
            av
        } else {
            let tmp = self.fresh();
            pre.push(format!("var {tmp} = {av};"));
            tmp
        };
        Ok((format!("{base}[{iv}]"), elem))
    }

    /// `[a, b, ..]`.
    pub(super) fn make_array(
        &mut self,
        items: &[Expr],
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let refs: Vec<&Expr> = items.iter().collect();
        let mut vals = Vec::new();
        let mut elem = Type::Scalar(Scalar::I32);
        for (v, t) in self.seq(&refs, pre)? {
            vals.push(v);
            elem = t;
        }
        let ty = Type::Array(Box::new(elem), items.len() as u32);
        Ok((format!("{}({})", type_wgsl(&ty), vals.join(", ")), ty))
    }

    /// `[x; n]` (`x` evaluated once).
    pub(super) fn repeat_array(
        &mut self,
        x: &Expr,
        n: u32,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let (v, t) = self.expr(x, pre)?;
        let tmp = self.fresh();
        pre.push(format!("let {tmp} = {v};"));
        let ty = Type::Array(Box::new(t), n);
        let vals = vec![tmp; n as usize];
        Ok((format!("{}({})", type_wgsl(&ty), vals.join(", ")), ty))
    }
}
