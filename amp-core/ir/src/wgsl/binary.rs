//! Operators and casts: binary operators (`&&` and `||` short-circuiting,
//! indices and vectors component by component), unary operators and `as`
//! casts, each printed as WGSL's own (`passes::legalize` lowered Rust's
//! semantics to WGSL's: guarded division, saturating casts, sign-bit
//! negation, operands kept out of constant expressions).

use super::expr::is_pure_line;
use super::types::type_wgsl;
use super::{Writer, compile_error};
use crate::Result;
use crate::ir::*;

impl Writer<'_> {
    /// `l && r` and `l || r`: the right operand's statements run only where
    /// Rust evaluates it.
    pub(super) fn short_circuit(
        &mut self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let lv = self.expr(l, pre)?;
        let mut rpre = Vec::new();
        let rv = self.expr(r, &mut rpre)?;
        if rpre.iter().all(|l| is_pure_line(l)) {
            pre.extend(rpre);
            return self.binary(op, lv, rv, span);
        }
        // The right operand's statements run only where Rust
        // evaluates it: `&&` and `||` short-circuit.
        let tmp = self.fresh();
        pre.push(format!("var {tmp}: bool = {};", lv.0));
        let test = if op == BinOp::And {
            tmp.clone()
        } else {
            format!("!{tmp}")
        };
        pre.push(format!("if ({test}) {{"));
        pre.extend(rpre.into_iter().map(|l| format!("    {l}")));
        pre.push(format!("    {tmp} = {};", rv.0));
        pre.push("}".to_string());
        Ok((tmp, Type::Scalar(Scalar::Bool)))
    }

    /// `l op r` (other than `&&` and `||`), operands in Rust's order.
    pub(super) fn binary_expr(
        &mut self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let mut vals = self.seq(&[l, r], pre)?.into_iter();
        let (lv, rv) = (vals.next().expect("left"), vals.next().expect("right"));
        self.binary(op, lv, rv, span)
    }

    /// `-x`, `!x` (`-i32::MIN` written without overflow; `-x` of an index
    /// component by component).
    pub(super) fn unary(
        &mut self,
        op: UnOp,
        x: &Expr,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        if let (UnOp::Neg, ExprKind::Lit(Lit::Int(v, Some(Scalar::I32)))) = (op, &x.kind)
            && *v == 1 << 31
        {
            return Ok(("(-2147483647i - 1i)".to_string(), Type::Scalar(Scalar::I32)));
        }
        let (v, t) = self.expr(x, pre)?;
        let text = match (op, &t) {
            (UnOp::Neg, Type::Index(n)) => {
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {v};"));
                let parts: Vec<String> = (0..*n).map(|d| format!("-{tmp}[{d}]")).collect();
                format!("array<i32, {n}>({})", parts.join(", "))
            }
            // A negative literal (a negative constant) is
            // parenthesised: `--0.5f` does not parse.
            (UnOp::Neg, _) if v.starts_with('-') => format!("(-({v}))"),
            (UnOp::Neg, _) => format!("(-{v})"),
            (UnOp::Not, Type::Scalar(Scalar::Bool)) => format!("(!{v})"),
            (UnOp::Not, _) => format!("(~{v})"),
        };
        Ok((text, t))
    }

    /// `x as to`: WGSL's conversion (a float to an integer saturates as
    /// in Rust: `passes::legalize` clamped the operand).
    pub(super) fn cast(
        &mut self,
        x: &Expr,
        to: Scalar,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let (v, from) = self.expr(x, pre)?;
        if to == Scalar::F64 {
            self.uses_f64 = true;
        }
        let text = match from {
            Type::Scalar(f) if f == to => v,
            _ => format!("{}({v})", to.wgsl()),
        };
        Ok((text, Type::Scalar(to)))
    }

    /// `l op r` of written operands: indices component by component,
    /// vectors with a scalar operand widened.
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        (l, lt): (String, Type),
        (r, rt): (String, Type),
        span: Span,
    ) -> Result<(String, Type)> {
        if let (Type::Index(n), Type::Index(_)) = (&lt, &rt)
            && matches!(op, BinOp::Eq | BinOp::Ne)
        {
            // Arrays do not compare in WGSL: compare the components.
            let (join, cmp) = if op == BinOp::Eq {
                (" && ", "==")
            } else {
                (" || ", "!=")
            };
            let parts: Vec<String> = (0..*n)
                .map(|d| format!("({l}[{d}] {cmp} {r}[{d}])"))
                .collect();
            return Ok((
                format!("({})", parts.join(join)),
                Type::Scalar(Scalar::Bool),
            ));
        }
        if let (Type::Index(n), _) | (_, Type::Index(n)) = (&lt, &rt) {
            let n = *n;
            let part = |v: &str, t: &Type, d: u32| match t {
                Type::Index(_) => format!("{v}[{d}]"),
                _ => v.to_string(),
            };
            let parts: Vec<String> = (0..n)
                .map(|d| self.scalar_binary(op, &part(&l, &lt, d), &part(&r, &rt, d)))
                .collect();
            return Ok((
                format!("array<i32, {n}>({})", parts.join(", ")),
                Type::Index(n),
            ));
        }
        if let (Type::Vector(n, sc), _) | (_, Type::Vector(n, sc)) = (&lt, &rt) {
            let (n, sc) = (*n, *sc);
            let vt = Type::Vector(n, sc);
            let vw = type_wgsl(&vt);
            let widen = |v: &str, t: &Type| {
                if *t == vt {
                    v.to_string()
                } else {
                    format!("{vw}({v})")
                }
            };
            let (l, r) = (widen(&l, &lt), widen(&r, &rt));
            return Ok(match op {
                BinOp::Eq => (format!("all({l} == {r})"), Type::Scalar(Scalar::Bool)),
                BinOp::Ne => (format!("any({l} != {r})"), Type::Scalar(Scalar::Bool)),
                _ => (format!("({l} {} {r})", op.wgsl()), vt),
            });
        }
        let Type::Scalar(s) = lt else {
            return Err(compile_error(
                span,
                format!("operator {} on {lt:?}", op.wgsl()),
            ));
        };
        let text = self.scalar_binary(op, &l, &r);
        let ty = if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
            Type::Scalar(Scalar::Bool)
        } else {
            Type::Scalar(s)
        };
        Ok((text, ty))
    }

    /// `l op r` on scalars: WGSL's operator (Rust's semantics were lowered
    /// to WGSL's by `passes::legalize`).
    fn scalar_binary(&mut self, op: BinOp, l: &str, r: &str) -> String {
        format!("({l} {} {r})", op.wgsl())
    }
}
