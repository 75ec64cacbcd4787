//! Operators and casts: binary operators (`&&` and `||` short-circuiting,
//! indices and vectors component by component, constant operands kept out
//! of WGSL constant expressions, division by a constant zero written out),
//! unary operators, `as` casts (Rust's saturating float-to-integer
//! conversion), and the guarded `/` and `%` that the Euclidean built-ins
//! are built on.

use super::expr::{is_const, is_pure_line};
use super::types::type_wgsl;
use super::{Writer, compile_error};
use crate::Result;
use crate::ir::*;

/// `Some(sign is negative)` if `e` is a float literal zero (`0.0`, `-0.0`,
/// `-(0.0)`).
fn literal_zero(e: &Expr) -> Option<bool> {
    match &e.kind {
        ExprKind::Lit(Lit::Float(z, _)) if *z == 0.0 => Some(z.is_sign_negative()),
        ExprKind::Unary(UnOp::Neg, x) => literal_zero(x).map(|n| !n),
        _ => None,
    }
}

/// Operators whose constant evaluation can fail in WGSL.
fn is_arithmetic(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr
    )
}

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
        let (mut lv, rv) = (vals.next().expect("left"), vals.next().expect("right"));
        if is_const(l) && is_const(r) && is_arithmetic(op) {
            // Constant operands would make a WGSL constant
            // expression, where overflow, shifting bits out, division
            // by zero and non-finite results are shader-creation
            // errors; Rust wraps (and gives inf/NaN) at run time.
            let tmp = self.fresh();
            pre.push(format!("let {tmp} = {};", lv.0));
            lv.0 = tmp;
        }
        if let (BinOp::Div, Type::Scalar(Scalar::F32), Some(negative)) =
            (op, &lv.1, literal_zero(r))
        {
            // Division by a constant zero: IEEE's result, written
            // out. Drivers that assume no infinities make `x / 0.0`
            // poison (lavapipe dropped the store of the result).
            return Ok((self.div_by_zero(&lv.0, negative, pre), lv.1));
        }
        self.binary(op, lv, rv, span)
    }

    /// `-x`, `!x`: Rust's results (`-i32::MIN` wraps, `-x` of an `f32` flips
    /// the sign bit).
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
        let (mut v, t) = self.expr(x, pre)?;
        if is_const(x) && !matches!(x.kind, ExprKind::Lit(_)) {
            // A constant operand is evaluated by the shader
            // compiler, which rejects what wraps in Rust
            // (`-i32::MIN`): negate it at run time.
            let tmp = self.fresh();
            pre.push(format!("let {tmp} = {v};"));
            v = tmp;
        }
        let text = match (op, &t) {
            (UnOp::Neg, Type::Index(n)) => {
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {v};"));
                let parts: Vec<String> = (0..*n).map(|d| format!("-{tmp}[{d}]")).collect();
                format!("array<i32, {n}>({})", parts.join(", "))
            }
            // Rust's `-x` flips the sign bit, NaN included; GPUs
            // may give a negated NaN a canonical sign (NVIDIA), so
            // `f32` values (not literals, which the shader compiler
            // negates exactly) flip the bit.
            (UnOp::Neg, Type::Scalar(Scalar::F32)) if !matches!(x.kind, ExprKind::Lit(_)) => {
                format!("bitcast<f32>(bitcast<u32>({v}) ^ 0x80000000u)")
            }
            (UnOp::Neg, Type::Vector(n, Scalar::F32)) if !matches!(x.kind, ExprKind::Lit(_)) => {
                format!(
                    "bitcast<vec{n}<f32>>(bitcast<vec{n}<u32>>({v}) ^ vec{n}<u32>(0x80000000u))"
                )
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

    /// `x as to`: float to integer saturates (NaN to 0), as in Rust.
    pub(super) fn cast(
        &mut self,
        x: &Expr,
        to: Scalar,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let (mut v, from) = self.expr(x, pre)?;
        if is_const(x) {
            // As for binary operators: `1e300 as f32` is inf.
            let tmp = self.fresh();
            pre.push(format!("let {tmp} = {v};"));
            v = tmp;
        }
        if to == Scalar::F64 {
            self.uses_f64 = true;
        }
        let text = match from {
            Type::Scalar(f) if f == to => v,
            Type::Scalar(f) if f.is_float() && to.is_int() => {
                // Rust: NaN -> 0, saturating at the integer range.
                let (lo, hi) = match (to, f) {
                    (Scalar::I32, Scalar::F32) => ("-2147483648.0", "2147483520.0"),
                    (Scalar::I32, _) => ("-2147483648.0", "2147483647.0"),
                    (_, Scalar::F32) => ("0.0", "4294967040.0"),
                    _ => ("0.0", "4294967295.0"),
                };
                let ty = f.wgsl();
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {v};"));
                // NaN by its bits: `x != x` is false on drivers that
                // compare ordered or assume no NaNs (lavapipe).
                let is_nan = if f == Scalar::F32 {
                    format!("(bitcast<u32>({tmp}) & 0x7fffffffu) > 0x7f800000u")
                } else {
                    format!("(bitcast<u32>(f32({tmp})) & 0x7fffffffu) > 0x7f800000u")
                };
                format!(
                    "select({to}(clamp({tmp}, {ty}({lo}), {ty}({hi}))), select({to}(0), {max}, {tmp} > {ty}({hi})), {is_nan} || {tmp} > {ty}({hi}))",
                    to = to.wgsl(),
                    max = if to == Scalar::I32 {
                        "2147483647i"
                    } else {
                        "4294967295u"
                    }
                )
            }
            _ => format!("{}({v})", to.wgsl()),
        };
        Ok((text, Type::Scalar(to)))
    }

    /// `x / ±0.0` for an `f32` `x` without dividing: NaN where `x` is zero
    /// or NaN, else an infinity with the sign of `x` (flipped for `-0.0`).
    fn div_by_zero(&mut self, x: &str, negative_zero: bool, pre: &mut Vec<String>) -> String {
        let bits = self.fresh();
        pre.push(format!("let {bits} = bitcast<u32>({x});"));
        let flip = if negative_zero { "0x80000000u" } else { "0u" };
        format!(
            "bitcast<f32>(select((({bits} & 0x80000000u) ^ {flip}) | 0x7f800000u, 0x7fc00000u, ({bits} & 0x7fffffffu) == 0u || ({bits} & 0x7fffffffu) > 0x7f800000u))"
        )
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

    /// `l op r` with Rust's results for `/` and `%` (what `rem_euclid` and
    /// `div_euclid` are built on; the operators themselves are lowered by
    /// `passes::legalize`).
    pub(super) fn guarded_binary(
        &mut self,
        op: BinOp,
        l: &str,
        r: &str,
        s: Scalar,
        pre: &mut Vec<String>,
    ) -> String {
        match (op, s.is_int()) {
            // Rust's `/` and `%` on integers never trap here: x / 0 == x,
            // x % 0 == 0, MIN / -1 == MIN, MIN % -1 == 0 (WGSL's results).
            // The divisor becomes 1 in those cases, so that no backend
            // divides by zero or overflows (undefined in GLSL, a
            // shader-creation error in a WGSL constant expression), and the
            // `i32` remainder is `l - (l / d) * d` (GLSL leaves `%` of
            // negative operands undefined).
            (BinOp::Div | BinOp::Rem, true) => {
                let (lt, rt, d) = (self.fresh(), self.fresh(), self.fresh());
                pre.push(format!("let {lt} = {l};"));
                pre.push(format!("let {rt} = {r};"));
                let (one, unsafe_divisor) = if s == Scalar::I32 {
                    (
                        "1i",
                        format!("{rt} == 0i || ({lt} == (-2147483647i - 1i) && {rt} == -1i)"),
                    )
                } else {
                    ("1u", format!("{rt} == 0u"))
                };
                pre.push(format!("let {d} = select({rt}, {one}, {unsafe_divisor});"));
                match (op, s) {
                    (BinOp::Div, _) => format!("({lt} / {d})"),
                    (_, Scalar::I32) => format!("({lt} - ({lt} / {d}) * {d})"),
                    _ => format!("({lt} % {d})"),
                }
            }
            (BinOp::Rem, false) => {
                // Rust's float `%` is C's `fmod`, exact, with the sign of
                // `l`; WGSL's `%` is `l - r * trunc(l / r)`, inexact
                // (lavapipe: `100.0 % 0.7` was 0.5999985, `1.0 % 1e-6` 0).
                let f = self.fmod(s);
                if s == Scalar::F16 {
                    // `f16` operands are exact in `f32`, and so is the
                    // remainder, which fits `f16` again.
                    format!("f16({f}(f32({l}), f32({r})))")
                } else {
                    format!("{f}({l}, {r})")
                }
            }
            _ => format!("({l} {} {r})", op.wgsl()),
        }
    }
}
