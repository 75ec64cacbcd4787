//! Expressions: the dispatch over expression kinds (each construct's
//! method is in the file of its kind), Rust's evaluation order (operands
//! written left to right, their hoisted statements kept in order),
//! literals, field access, and `if` and block expressions, hoisted into
//! temporaries.

use super::types::{member_of, type_wgsl};
use super::{Writer, compile_error};
use crate::Result;
use crate::ir::*;

/// Whether a line hoisted before a statement only declares a new name (a
/// `let` or a `var` with its initialiser): evaluating it early changes
/// nothing the rest of the statement reads.
pub(super) fn is_pure_line(line: &str) -> bool {
    let l = line.trim_start();
    (l.starts_with("let ") || l.starts_with("var ")) && !l.contains("atomic")
}

/// Whether a value's text reads nothing that statements can change: a
/// literal or a temporary of the writer (bound once).
fn is_stable(text: &str) -> bool {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if c.is_ascii_digit() => true,
        Some('-') => chars.next().is_some_and(|c| c.is_ascii_digit()),
        _ => {
            text == "true"
                || text == "false"
                || text
                    .strip_prefix("amp_t")
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        }
    }
}

impl Writer<'_> {
    /// Writes `es` in Rust's order, left to right. Their statements are
    /// hoisted before the enclosing statement, so when a later operand's
    /// statements may have effects (an assignment in a block), every earlier
    /// operand's value is first bound to a `let` placed before them: it is
    /// the value Rust computed before those effects.
    pub(super) fn seq(
        &mut self,
        es: &[&Expr],
        pre: &mut Vec<String>,
    ) -> Result<Vec<(String, Type)>> {
        let mut vals: Vec<(String, Type)> = Vec::with_capacity(es.len());
        // Where each value's statements end in `pre`.
        let mut ends: Vec<usize> = Vec::with_capacity(es.len());
        for e in es {
            let start = pre.len();
            let v = self.expr(e, pre)?;
            if !pre[start..].iter().all(|l| is_pure_line(l)) {
                self.bind_before(&mut vals, &ends, pre);
            }
            vals.push(v);
            ends.push(pre.len());
        }
        Ok(vals)
    }

    /// Binds each of `vals` that is not stable to a `let` at its place in
    /// `pre` (`ends[k]`: where value `k`'s statements ended).
    pub(super) fn bind_before(
        &mut self,
        vals: &mut [(String, Type)],
        ends: &[usize],
        pre: &mut Vec<String>,
    ) {
        for k in (0..vals.len()).rev() {
            if !is_stable(&vals[k].0) {
                let tmp = self.fresh();
                pre.insert(ends[k], format!("let {tmp} = {};", vals[k].0));
                vals[k].0 = tmp;
            }
        }
    }

    /// A literal (`i32::MIN` as an expression, non-finite floats by their bits).
    fn lit(&mut self, l: &Lit, span: Span) -> Result<(String, Type)> {
        Ok(match *l {
            Lit::Bool(b) => (b.to_string(), Type::Scalar(Scalar::Bool)),
            Lit::Int(v, s) => {
                let s = s.unwrap_or(Scalar::I32);
                let text = match s {
                    Scalar::I32 if v <= i32::MAX as u128 => format!("{v}i"),
                    Scalar::I32 if v == 1 << 31 => "(-2147483647i - 1i)".to_string(),
                    Scalar::U32 if v <= u32::MAX as u128 => format!("{v}u"),
                    // Small integers are held in WGSL's 32-bit ones (the
                    // signed minimum is written negated: `-128i8`).
                    Scalar::U8 | Scalar::U16 if v <= s.int_range().1 as u128 => format!("{v}u"),
                    Scalar::I8 | Scalar::I16 if v <= s.int_range().1 as u128 + 1 => {
                        format!("{v}i")
                    }
                    Scalar::F32 => format!("{v}.0f"),
                    Scalar::F64 => {
                        self.uses_f64 = true;
                        format!("{v}.0lf")
                    }
                    _ => {
                        return Err(compile_error(
                            span,
                            format!("literal {v} does not fit in {}", s.rust()),
                        ));
                    }
                };
                (text, Type::Scalar(s))
            }
            Lit::Float(v, s) => {
                let s = s.unwrap_or(Scalar::F64);
                if s == Scalar::F64 {
                    self.uses_f64 = true;
                }
                let finite = if s == Scalar::F32 {
                    (v as f32).is_finite()
                } else {
                    v.is_finite()
                };
                let text = if finite {
                    match s {
                        Scalar::F32 => format!("{:?}f", v as f32),
                        _ => format!("{v:?}lf"),
                    }
                } else {
                    // WGSL has no literal for infinities and NaN (and a
                    // constant expression must be finite); a bitcast is not
                    // a constant expression.
                    let bits = if v.is_nan() {
                        "0x7fc00000u"
                    } else if v > 0.0 {
                        "0x7f800000u"
                    } else {
                        "0xff800000u"
                    };
                    match s {
                        Scalar::F32 => format!("bitcast<f32>({bits})"),
                        _ => format!("f64(bitcast<f32>({bits}))"),
                    }
                };
                (text, Type::Scalar(s))
            }
        })
    }

    /// Writes `e`; statements it needs first go to `pre`.
    pub(super) fn expr(&mut self, e: &Expr, pre: &mut Vec<String>) -> Result<(String, Type)> {
        let span = e.span;
        match &e.kind {
            ExprKind::Lit(l) => self.lit(l, span),
            ExprKind::Local(id) => Ok((self.local_name(*id, span)?, self.local_type(*id, span)?)),
            ExprKind::Capture(c) => self.capture_value(*c, span),
            ExprKind::KernelIndex => Ok(("amp_idx".to_string(), Type::Index(self.kernel.rank))),
            ExprKind::AddrOf(place) => self.addr_of(place, span, pre),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) => {
                self.short_circuit(*op, l, r, span, pre)
            }
            ExprKind::Binary(op, l, r) => self.binary_expr(*op, l, r, span, pre),
            ExprKind::Unary(op, x) => self.unary(*op, x, pre),
            ExprKind::Cast(x, to) => self.cast(x, *to, pre),
            ExprKind::Load(c, idx) => self.load(*c, idx, span, pre),
            ExprKind::Atomic(op, place, args) => self.atomic_op(*op, place, args, span, pre),
            ExprKind::Extent(c) => self.extent(*c, span),
            ExprKind::TileLoad(id, idx) => self.tile_load(*id, idx, span, pre),
            ExprKind::Tiled(f) => {
                let name = match f {
                    TiledField::Global => "amp_global",
                    TiledField::Local => "amp_local",
                    TiledField::Tile => "amp_tile",
                    TiledField::TileOrigin => "amp_tile_origin",
                    TiledField::TileExtent => "amp_tile_extent",
                };
                Ok((name.to_string(), Type::Index(self.kernel.rank)))
            }
            ExprKind::Field(x, m) => self.field(x, m, span, pre),
            ExprKind::MakeVector(n, sc, args) => self.make_vector(*n, *sc, args, pre),
            ExprKind::MakeStruct(ty, fields) => self.make_struct(ty, fields, span, pre),
            ExprKind::MakeTuple(items) => self.make_tuple(items, pre),
            ExprKind::IndexComponent(x, k) => self.index_component(x, k, pre),
            ExprKind::MakeIndex(parts) => self.make_index(parts, pre),
            ExprKind::ArrayElement(a, i) => self.array_element(a, i, span, pre),
            ExprKind::MakeArray(items) => self.make_array(items, pre),
            ExprKind::RepeatArray(x, n) => self.repeat_array(x, *n, pre),
            ExprKind::CallFn(f, args, type_args) => self.call_fn(*f, args, type_args, span, pre),
            ExprKind::Call(Builtin::UniformLoad, args) => self.uniform_load(args, span, pre),
            ExprKind::Call(f @ (Builtin::ReinterpretLoad | Builtin::ReinterpretStore), args) => {
                self.reinterpret(*f, args, span, pre)
            }
            ExprKind::Call(Builtin::Bitcast, args) => self.bitcast(args, span, pre),
            ExprKind::Call(f, args) => self.call_expr(*f, args, span, pre),
            ExprKind::If(c, a, b) => self.if_expr(c, a, b, span, pre),
            ExprKind::Block(b) => {
                let (lines, val) = self.hoisted_block(b, span)?;
                pre.extend(lines);
                Ok(val)
            }
        }
    }

    /// `x.m`: a field, a vector component or a swizzle (a computed base is
    /// bound first).
    fn field(
        &mut self,
        x: &Expr,
        m: &Member,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let (v, t) = self.expr(x, pre)?;
        let (suffix, ft) = member_of(&t, m, span)?;
        let base = if v
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            v
        } else {
            let tmp = self.fresh();
            pre.push(format!("let {tmp} = {v};"));
            tmp
        };
        Ok((format!("{base}{suffix}"), ft))
    }

    /// `if c { a } else { b }` as a value: a temporary assigned in both
    /// branches, hoisted.
    fn if_expr(
        &mut self,
        c: &Expr,
        a: &Block,
        b: &Block,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let (cv, _) = self.expr(c, pre)?;
        let tmp = self.fresh();
        // Write both branches into a nested writer state.
        let (a_pre, a_val) = self.hoisted_block(a, span)?;
        let (b_pre, b_val) = self.hoisted_block(b, span)?;
        let ty = a_val.1.clone();
        pre.push(format!("var {tmp}: {};", type_wgsl(&ty)));
        pre.push(format!("if ({cv}) {{"));
        pre.extend(a_pre.into_iter().map(|l| format!("    {l}")));
        pre.push(format!("    {tmp} = {};", a_val.0));
        pre.push("} else {".to_string());
        pre.extend(b_pre.into_iter().map(|l| format!("    {l}")));
        pre.push(format!("    {tmp} = {};", b_val.0));
        pre.push("}".to_string());
        Ok((tmp, ty))
    }

    /// Writes a block's statements as lines (for hoisting) and returns them
    /// with the value of its tail (`span`: the `if` or block expression's,
    /// for the error of a block without a value).
    fn hoisted_block(&mut self, b: &Block, span: Span) -> Result<(Vec<String>, (String, Type))> {
        let saved_out = std::mem::take(&mut self.out);
        let saved_indent = self.indent;
        self.indent = 0;
        let result = (|| {
            self.block_stmts(b)?;
            let mut pre = Vec::new();
            let val = match &b.tail {
                Some(t) => self.expr(t, &mut pre)?,
                None => {
                    return Err(compile_error(span, "a block used as a value has no value"));
                }
            };
            self.flush_pre(pre);
            Ok(val)
        })();
        let body = std::mem::replace(&mut self.out, saved_out);
        self.indent = saved_indent;
        let val = result?;
        Ok((body.lines().map(str::to_string).collect(), val))
    }
}
