//! Lowering of the float methods WGSL has no built-in for, into IR of the
//! ones it has; runs before type reconstruction, so that the literals it
//! introduces get their type (`f32` or `f64`) from the operands, as a
//! user's would.
//!
//! Each lowering evaluates its operands once, in order (bound to locals),
//! and follows Rust's results at the special values (zeros keep their sign,
//! infinities and NaN as `std` gives them):
//!
//! - `x.hypot(y)`: `m * sqrt(1 + (n / m)^2)` with `m`, `n` the larger and
//!   smaller magnitude (no overflow for large operands); an infinite
//!   operand gives `+inf` even next to NaN.
//! - `x.log(b)`: `ln(x) / ln(b)`, as Rust computes it.
//! - `x.ln_1p()`, `x.exp_m1()`: their power series (to `x^5`) where
//!   `|x| < 0.01`, `ln(1 + x)` and `e^x - 1` elsewhere (relative error
//!   below 1e-5 plus the driver's `log`/`exp` error).
//! - `x.cbrt()`: `2^(log2|x| / 3)` refined by one Newton step, with `x`'s
//!   sign; zeros, infinities and NaN are their own cube roots.
//! - `x.asinh()`, `x.acosh()`, `x.atanh()`: through `ln_1p` (`asinh` of
//!   `|x| + x^2 / (1 + sqrt(1 + x^2))`, `acosh` of `d + sqrt(d (x + 1))`
//!   with `d = x - 1`, `atanh` as `ln_1p(2|x| / (1 - |x|)) / 2`), odd ones
//!   with the argument's sign; `ln(2|x|)` beyond 1e18.
//! - `x.sin_cos()`: `(x.sin(), x.cos())`.
//!
//! The CPU accelerator calls Rust's own methods instead (`std`'s results,
//! correctly rounded or within an ulp); `docs/kernel-language.md` section 11
//! gives the GPU accuracy.

use super::visit;
use crate::ir::*;

const LN_2: f64 = std::f64::consts::LN_2;

/// Lowers the calls of `body` (nested blocks included); `params` are
/// locals the body may not mention (a function's parameters).
pub(crate) fn block(body: &mut Block, params: &[LocalId]) {
    let mut next = super::Fresh::above(body, params.iter().copied());
    visit::exprs_mut(body, &mut |e| {
        if let ExprKind::Call(f, args) = &mut e.kind
            && let Some(lowered) = lower(*f, args, e.span, &mut next)
        {
            *e = lowered;
        }
    });
}

/// Rewrites component reads of `Index`/`Extent` captures (`e[1]`, parsed
/// as a container load) into element reads of the captured value, a
/// container's `a.extent` (C++ AMP's data member) into its extent, and
/// `te.extent()` of a captured `TiledExtent` (bound as its extent, an
/// `Index` capture) into the captured value.
pub(crate) fn geometry_captures(body: &mut Block, captures: &[(&'static str, CaptureKind)]) {
    visit::exprs_mut(body, &mut |e| {
        if let ExprKind::Load(c, idx) = &mut e.kind
            && idx.len() == 1
            && let Some((_, CaptureKind::Index(_))) = captures.get(c.0 as usize)
        {
            let value = Expr::new(ExprKind::Capture(*c), e.span);
            let k = idx.pop().expect("one index");
            e.kind = ExprKind::ArrayElement(Box::new(value), Box::new(k));
        }
        if let ExprKind::Extent(c) = e.kind
            && let Some((_, CaptureKind::Index(_))) = captures.get(c.0 as usize)
        {
            e.kind = ExprKind::Capture(c);
        }
        // `a.extent` of a container: C++ AMP's data member, `a.extent()`.
        if let ExprKind::Field(x, Member::Named("extent")) = &e.kind
            && let ExprKind::Capture(c) = x.kind
            && let Some((_, CaptureKind::Container { .. })) = captures.get(c.0 as usize)
        {
            e.kind = ExprKind::Extent(c);
        }
    });
}

/// A builder of lowered expressions at one span.
struct B<'n> {
    span: Span,
    next: &'n mut super::Fresh,
    stmts: Vec<Stmt>,
}

impl B<'_> {
    fn e(&self, kind: ExprKind) -> Expr {
        Expr::new(kind, self.span)
    }

    /// `let tmp = value;`, and `tmp`.
    fn bind(&mut self, name: &'static str, value: Expr) -> Expr {
        let local = self.next.next();
        self.stmts.push(Stmt::new(
            StmtKind::Let {
                local,
                name,
                ty: None,
                init: Some(value),
            },
            self.span,
        ));
        self.e(ExprKind::Local(local))
    }

    /// A float literal whose type inference gives.
    fn lit(&self, v: f64) -> Expr {
        if v < 0.0 {
            let pos = self.e(ExprKind::Lit(Lit::Float(-v, None)));
            return self.e(ExprKind::Unary(UnOp::Neg, Box::new(pos)));
        }
        self.e(ExprKind::Lit(Lit::Float(v, None)))
    }

    fn call(&self, f: Builtin, args: Vec<Expr>) -> Expr {
        self.e(ExprKind::Call(f, args))
    }

    fn bin(&self, op: BinOp, l: Expr, r: Expr) -> Expr {
        self.e(ExprKind::Binary(op, Box::new(l), Box::new(r)))
    }

    fn if_else(&self, c: Expr, a: Expr, b: Expr) -> Expr {
        let tail = |x: Expr| Block {
            stmts: Vec::new(),
            tail: Some(Box::new(x)),
        };
        self.e(ExprKind::If(Box::new(c), tail(a), tail(b)))
    }

    /// `x * (c[0] + x * (c[1] + ...))` (Horner's scheme): the power series
    /// with coefficients `c` of degree 1 up; zeros keep their sign.
    fn series(&self, x: &Expr, c: &[f64]) -> Expr {
        let mut acc = self.lit(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            acc = self.bin(
                BinOp::Add,
                self.lit(k),
                self.bin(BinOp::Mul, x.clone(), acc),
            );
        }
        self.bin(BinOp::Mul, x.clone(), acc)
    }

    /// `ln(1 + v)`: below 0.01 its series (to `v^5`: relative error under
    /// 2e-11); above, `1 + v` rounds by at most 6e-8, relative 6e-6 at
    /// worst. (Goldberg's `ln(u) * v / (u - 1)` would be exact, but drivers
    /// reassociate `(1 + v) - 1` to `v`.)
    fn ln_1p(&mut self, v: Expr) -> Expr {
        let v = self.bind("amp_v", v);
        let series = self.series(&v, &[1.0, -1.0 / 2.0, 1.0 / 3.0, -1.0 / 4.0, 1.0 / 5.0]);
        let plain = self.call(
            Builtin::Ln,
            vec![self.bin(BinOp::Add, self.lit(1.0), v.clone())],
        );
        let small = self.bin(BinOp::Lt, self.call(Builtin::Abs, vec![v]), self.lit(0.01));
        self.if_else(small, series, plain)
    }

    /// The block of the bound locals with value `tail`.
    fn finish(self, tail: Expr) -> Expr {
        Expr::new(
            ExprKind::Block(Block {
                stmts: self.stmts,
                tail: Some(Box::new(tail)),
            }),
            self.span,
        )
    }
}

fn lower(f: Builtin, args: &mut Vec<Expr>, span: Span, next: &mut super::Fresh) -> Option<Expr> {
    use BinOp::*;
    use Builtin::*;
    if !matches!(
        f,
        Hypot | Log | Ln1p | ExpM1 | Cbrt | SinCos | Asinh | Acosh | Atanh
    ) {
        return None;
    }
    let mut b = B {
        span,
        next,
        stmts: Vec::new(),
    };
    let mut operands = std::mem::take(args).into_iter();
    let x = b.bind("amp_x", operands.next()?);
    Some(match f {
        Hypot => {
            let y = b.bind("amp_y", operands.next()?);
            let ax = b.call(Abs, vec![x.clone()]);
            let ax = b.bind("amp_ax", ax);
            let ay = b.call(Abs, vec![y.clone()]);
            let ay = b.bind("amp_ay", ay);
            let m = b.call(Max, vec![ax.clone(), ay.clone()]);
            let m = b.bind("amp_m", m);
            let n = b.call(Min, vec![ax.clone(), ay.clone()]);
            let q = b.bin(Div, n, m.clone());
            let q = b.bind("amp_q", q);
            let one = b.lit(1.0);
            let q2 = b.bin(Mul, q.clone(), q);
            let root = b.call(Sqrt, vec![b.bin(Add, one, q2)]);
            let general = b.bin(Mul, m.clone(), root);
            let zero = b.lit(0.0);
            let is_zero = b.bin(Eq, m.clone(), zero);
            let general = b.if_else(is_zero, m, general);
            let nan = b.bin(
                Or,
                b.call(IsNan, vec![ax.clone()]),
                b.call(IsNan, vec![ay.clone()]),
            );
            let sum = b.bin(Add, ax.clone(), ay.clone());
            let general = b.if_else(nan, sum, general);
            let inf_y = b.call(IsInfinite, vec![ay.clone()]);
            let general = b.if_else(inf_y, ay, general);
            let inf_x = b.call(IsInfinite, vec![ax.clone()]);
            let result = b.if_else(inf_x, ax, general);
            b.finish(result)
        }
        Log => {
            let base = b.bind("amp_base", operands.next()?);
            let result = b.bin(Div, b.call(Ln, vec![x]), b.call(Ln, vec![base]));
            b.finish(result)
        }
        Ln1p => {
            let result = b.ln_1p(x);
            b.finish(result)
        }
        ExpM1 => {
            // As `ln_1p`: the series below 0.01, `e^x - 1` above.
            let series = b.series(&x, &[1.0, 1.0 / 2.0, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0]);
            let plain = b.bin(Sub, b.call(Exp, vec![x.clone()]), b.lit(1.0));
            let small = b.bin(Lt, b.call(Abs, vec![x.clone()]), b.lit(0.01));
            let result = b.if_else(small, series, plain);
            b.finish(result)
        }
        // The inverse hyperbolic functions through `ln_1p`, without the
        // cancellations of their `ln` forms near 0 (and near 1 for
        // `acosh`); odd ones take the argument's sign (zeros keep theirs);
        // beyond 1e18, where `x^2` overflows, `ln(2|x|)`.
        Asinh => {
            let a = b.call(Abs, vec![x.clone()]);
            let a = b.bind("amp_a", a);
            // |x| + x^2 / (1 + sqrt(1 + x^2))
            let a2 = b.bin(Mul, a.clone(), a.clone());
            let a2 = b.bind("amp_a2", a2);
            let den = b.bin(
                Add,
                b.lit(1.0),
                b.call(Sqrt, vec![b.bin(Add, b.lit(1.0), a2.clone())]),
            );
            let arg = b.bin(Add, a.clone(), b.bin(Div, a2, den));
            let near = b.ln_1p(arg);
            let far = b.bin(Add, b.call(Ln, vec![a.clone()]), b.lit(LN_2));
            let big = b.bin(Gt, a, b.lit(1e18));
            let mag = b.if_else(big, far, near);
            let result = b.call(Copysign, vec![mag, x]);
            b.finish(result)
        }
        Acosh => {
            // d = x - 1 (exact near 1); ln_1p(d + sqrt(d (x + 1))).
            let d = b.bin(Sub, x.clone(), b.lit(1.0));
            let d = b.bind("amp_d", d);
            let root = b.call(
                Sqrt,
                vec![b.bin(Mul, d.clone(), b.bin(Add, x.clone(), b.lit(1.0)))],
            );
            let near = b.ln_1p(b.bin(Add, d, root));
            let far = b.bin(Add, b.call(Ln, vec![x.clone()]), b.lit(LN_2));
            let big = b.bin(Gt, x, b.lit(1e18));
            let result = b.if_else(big, far, near);
            b.finish(result)
        }
        Atanh => {
            // 0.5 ln_1p(2|x| / (1 - |x|)), with x's sign.
            let a = b.call(Abs, vec![x.clone()]);
            let a = b.bind("amp_a", a);
            let arg = b.bin(
                Div,
                b.bin(Mul, b.lit(2.0), a.clone()),
                b.bin(Sub, b.lit(1.0), a),
            );
            let l = b.ln_1p(arg);
            let mag = b.bin(Mul, b.lit(0.5), l);
            let result = b.call(Copysign, vec![mag, x]);
            b.finish(result)
        }
        Cbrt => {
            let a = b.call(Abs, vec![x.clone()]);
            let a = b.bind("amp_a", a);
            let guess = b.call(
                Exp2,
                vec![b.bin(Div, b.call(Log2, vec![a.clone()]), b.lit(3.0))],
            );
            let r = b.bind("amp_r", guess);
            // One Newton step on r^3 = a: r - (r^3 - a) / (3 r^2).
            let r2 = b.bin(Mul, r.clone(), r.clone());
            let r2 = b.bind("amp_r2", r2);
            let step = b.bin(
                Div,
                b.bin(Sub, b.bin(Mul, r2.clone(), r.clone()), a.clone()),
                b.bin(Mul, b.lit(3.0), r2),
            );
            let refined = b.bin(Sub, r, step);
            let signed = b.call(Copysign, vec![refined, x.clone()]);
            let own = b.bin(
                Or,
                b.bin(Eq, a, b.lit(0.0)),
                b.e(ExprKind::Unary(
                    UnOp::Not,
                    Box::new(b.call(IsFinite, vec![x.clone()])),
                )),
            );
            let result = b.if_else(own, x, signed);
            b.finish(result)
        }
        SinCos => {
            let pair = b.e(ExprKind::MakeTuple(vec![
                b.call(Sin, vec![x.clone()]),
                b.call(Cos, vec![x]),
            ]));
            b.finish(pair)
        }
        _ => unreachable!("filtered above"),
    })
}
