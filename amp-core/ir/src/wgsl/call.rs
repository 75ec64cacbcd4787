//! Built-in calls: the dispatch by the arguments' type (extents, short
//! vectors, scalars) and, for scalars, by family (see `math.rs` and
//! `integer.rs`); `select`, subgroup operations, geometry (`Extent`
//! methods), the built-ins of short vectors, `fmod`, and `bitcast`.

use super::types::type_wgsl;
use super::{Writer, compile_error};
use crate::ir::*;
use crate::{Error, Result};

impl Writer<'_> {
    /// A built-in call: its arguments in Rust's order.
    pub(super) fn call_expr(
        &mut self,
        f: Builtin,
        args: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let refs: Vec<&Expr> = args.iter().collect();
        let vals: Vec<(String, Type)> = self.seq(&refs, pre)?;
        self.call(f, vals, span, pre)
    }

    /// `bitcast(value, witness)`: `value`'s bits as the witness's type (a
    /// container witness: its element type).
    pub(super) fn bitcast(
        &mut self,
        args: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let [value, witness] = args else {
            return Err(compile_error(span, "bitcast takes two arguments"));
        };
        let target = match &witness.kind {
            ExprKind::Capture(c) => match self.kernel.captures.get(c.0 as usize) {
                Some((_, CaptureKind::Container { elem, .. })) => elem.clone(),
                _ => return Err(compile_error(span, "bitcast into a scalar capture")),
            },
            _ => self.expr(witness, pre)?.1,
        };
        let (v, _) = self.expr(value, pre)?;
        Ok((format!("bitcast<{}>({v})", type_wgsl(&target)), target))
    }

    /// Built-in `f` of the written arguments `args`: by family.
    fn call(
        &mut self,
        f: Builtin,
        args: Vec<(String, Type)>,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        use Builtin::*;
        match f {
            // An index is written as an `array<i32, N>`: the array itself.
            IndexFromArray => {
                return match args.as_slice() {
                    [(v, Type::Array(_, n))] => Ok((v.clone(), Type::Index(*n))),
                    _ => Err(compile_error(span, "Index::new takes one array")),
                };
            }
            Select => {
                let [(fv, ft), (tv, _), (cv, _)] = args.as_slice() else {
                    return Err(compile_error(span, "select takes three arguments"));
                };
                return Ok((format!("select({fv}, {tv}, {cv})"), ft.clone()));
            }
            Fmod => return self.fmod_call(args, span, pre),
            SubgroupSize | SubgroupLane | SubgroupBallot | SubgroupAdd | SubgroupMin
            | SubgroupMax | SubgroupBroadcast => return Ok(self.subgroup_call(f, &args)),
            _ => {}
        }
        let ty = args
            .first()
            .map(|a| a.1.clone())
            .ok_or_else(|| compile_error(span, "missing argument"))?;
        if let Type::Index(n) = ty {
            // Geometry: `Extent` methods (type reconstruction admitted only
            // these, with matching ranks).
            return self.extent_call(f, n, &args, span, pre);
        }
        if let Type::Vector(_, s) = ty {
            // Short vectors: WGSL's built-ins, component by component (type
            // reconstruction admitted only those that have one).
            return self.vector_call(f, ty, s, &args, span);
        }
        if ty == Type::Scalar(Scalar::F64)
            && matches!(
                f,
                Exp | Exp2
                    | Ln
                    | Log2
                    | Sin
                    | Cos
                    | Tan
                    | Asin
                    | Acos
                    | Atan
                    | Atan2
                    | Sinh
                    | Cosh
                    | Tanh
                    | Powf
                    | Log10
            )
        {
            // SPIR-V (GLSL.std.450), HLSL and MSL have these for 32-bit
            // floats only: drivers that accept them on f64 compute garbage
            // (lavapipe does). Refuse rather than silently lose precision.
            return Err(Error::Unsupported {
                target: "GPU accelerators (WGSL)".to_string(),
                feature: format!(
                    "the f64 transcendental function {f:?} at {span} (GPU shading languages have it for f32 only; compute it in f32, e.g. `(x as f32).sin() as f64`)"
                ),
            });
        }
        self.scalar_call(f, ty, &args, span, pre)
    }

    /// Subgroup operations (the size and the lane are module-scope
    /// variables that the entry point sets).
    fn subgroup_call(&self, f: Builtin, args: &[(String, Type)]) -> (String, Type) {
        use Builtin::*;
        match f {
            SubgroupSize => ("amp_sg_size".into(), Type::Scalar(Scalar::U32)),
            SubgroupLane => ("amp_sg_lane".into(), Type::Scalar(Scalar::U32)),
            SubgroupBallot => (
                format!("subgroupBallot({})", args[0].0),
                Type::Vector(4, Scalar::U32),
            ),
            SubgroupAdd | SubgroupMin | SubgroupMax => {
                let name = match f {
                    SubgroupAdd => "subgroupAdd",
                    SubgroupMin => "subgroupMin",
                    _ => "subgroupMax",
                };
                (format!("{name}({})", args[0].0), args[0].1.clone())
            }
            SubgroupBroadcast => (
                format!("subgroupShuffle({}, u32({}))", args[0].0, args[1].0),
                args[0].1.clone(),
            ),
            _ => unreachable!("{f:?} is not a subgroup operation"),
        }
    }

    /// Geometry: `Extent` methods of an extent of rank `n` (type
    /// reconstruction admitted only these, with matching ranks).
    fn extent_call(
        &mut self,
        f: Builtin,
        n: u32,
        args: &[(String, Type)],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        use Builtin::*;
        let e = self.fresh();
        pre.push(format!("let {e} = {};", args[0].0));
        Ok(match f {
            Contains => {
                let i = self.fresh();
                pre.push(format!("let {i} = {};", args[1].0));
                let parts: Vec<String> = (0..n)
                    .map(|d| format!("({i}[{d}] >= 0i && {i}[{d}] < {e}[{d}])"))
                    .collect();
                let all = if parts.is_empty() {
                    "true".to_string()
                } else {
                    parts.join(" && ")
                };
                (format!("({all})"), Type::Scalar(Scalar::Bool))
            }
            Linearize => {
                // Row-major, Horner's way: ((i0 * e1) + i1) * e2 + i2.
                let i = self.fresh();
                pre.push(format!("let {i} = {};", args[1].0));
                let scalar = matches!(args[1].1, Type::Scalar(_));
                let at = |d: u32| {
                    if scalar {
                        i.clone()
                    } else {
                        format!("{i}[{d}]")
                    }
                };
                let mut acc = at(0);
                for d in 1..n {
                    acc = format!("({acc} * {e}[{d}] + {})", at(d));
                }
                (acc, Type::Scalar(Scalar::I32))
            }
            Delinearize => {
                // The last component varies fastest; the first takes
                // what is left (out of bounds if `k` is).
                let (r, k) = (self.fresh(), self.fresh());
                pre.push(format!("var {r}: array<i32, {n}>;"));
                pre.push(format!("var {k} = {};", args[1].0));
                for d in (1..n).rev() {
                    pre.push(format!("{r}[{d}] = {k} % {e}[{d}];"));
                    pre.push(format!("{k} = {k} / {e}[{d}];"));
                }
                pre.push(format!("{r}[0] = {k};"));
                (r, Type::Index(n))
            }
            Size => {
                let parts: Vec<String> = (0..n).map(|d| format!("u32({e}[{d}])")).collect();
                let product = if parts.is_empty() {
                    "1u".to_string()
                } else {
                    parts.join(" * ")
                };
                (format!("({product})"), Type::Scalar(Scalar::U32))
            }
            _ => {
                return Err(compile_error(
                    span,
                    format!("{f:?} does not apply to an extent"),
                ));
            }
        })
    }

    /// Short vectors: WGSL's built-ins, component by component (type
    /// reconstruction admitted only those that have one).
    fn vector_call(
        &self,
        f: Builtin,
        ty: Type,
        s: Scalar,
        args: &[(String, Type)],
        span: Span,
    ) -> Result<(String, Type)> {
        use Builtin::*;
        let a: Vec<&str> = args.iter().map(|a| a.0.as_str()).collect();
        let call = |name: &str| format!("{name}({})", a.join(", "));
        if s == Scalar::F64 && matches!(f, Exp | Exp2 | Ln | Log2 | Cos) {
            return Err(Error::Unsupported {
                target: "GPU accelerators (WGSL)".to_string(),
                feature: format!(
                    "the f64 transcendental function {f:?} at {span} (GPU shading languages have it for f32 only)"
                ),
            });
        }
        let scalar = Type::Scalar(s);
        Ok(match f {
            Dot => (call("dot"), scalar),
            Length => (call("length"), scalar),
            Distance => (call("distance"), scalar),
            Normalize => (call("normalize"), ty),
            Cross => (call("cross"), ty),
            Sqrt => (call("sqrt"), ty),
            Floor => (call("floor"), ty),
            Ceil => (call("ceil"), ty),
            Exp => (call("exp"), ty),
            Exp2 => (call("exp2"), ty),
            Ln => (call("log"), ty),
            Log2 => (call("log2"), ty),
            Cos => (call("cos"), ty),
            MulAdd => (call("fma"), ty),
            Recip => (format!("(1.0 / {})", a[0]), ty),
            Abs if s == Scalar::U32 => (format!("({})", a[0]), ty),
            Abs => (call("abs"), ty),
            Min => (call("min"), ty),
            Max => (call("max"), ty),
            Clamp => (format!("min(max({}, {}), {})", a[0], a[1], a[2]), ty),
            _ => {
                return Err(compile_error(
                    span,
                    format!("{f:?} does not apply to short vectors"),
                ));
            }
        })
    }

    /// A built-in of scalar arguments, by family.
    fn scalar_call(
        &mut self,
        f: Builtin,
        ty: Type,
        args: &[(String, Type)],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        use Builtin::*;
        let a: Vec<&str> = args.iter().map(|a| a.0.as_str()).collect();
        match f {
            Sqrt | Abs | Min | Max | Clamp | Floor | Ceil | Round | Trunc | Fract | MulAdd
            | Signum | Recip => self.math_call(f, ty, &a, pre),
            Exp | Exp2 | Ln | Log2 | Sin | Tan | Asin | Cos | Acos | Atan | Atan2 | Sinh | Cosh
            | Tanh | Powf | Pow | Powi | Log10 | ToRadians | ToDegrees => {
                self.transcendental_call(f, ty, &a, pre)
            }
            ToBits | FromBits | HalfFromF32 | HalfFromF64 | HalfToF32 | HalfToF64 | Copysign
            | IsNan | IsFinite | IsInfinite | IsSignNegative | IsSignPositive => {
                self.float_bits_call(f, ty, &a, pre)
            }
            CountOnes | LeadingZeros | TrailingZeros | CountZeros | LeadingOnes | TrailingOnes
            | ReverseBits | IsPowerOfTwo | RotateLeft | RotateRight | WrappingAdd | WrappingSub
            | WrappingMul | WrappingNeg => self.bits_call(f, ty, &a, pre),
            AbsDiff | RemEuclid | DivEuclid => self.euclid_call(f, ty, &a, span, pre),
            Dot | Length | Distance | Normalize | Cross => Err(compile_error(
                span,
                format!("{f:?} applies to float short vectors, not {ty:?}"),
            )),
            Contains | Size | Linearize | Delinearize | Bitcast | ReinterpretLoad
            | ReinterpretStore => Err(compile_error(
                span,
                format!("{f:?} applies to an extent, not {ty:?}"),
            )),
            UniformLoad => Err(compile_error(span, "a uniform load of a computed value")),
            SubgroupAdd | SubgroupMin | SubgroupMax | SubgroupBroadcast | SubgroupBallot
            | SubgroupSize | SubgroupLane | Select | Fmod | IndexFromArray => {
                unreachable!(
                    "subgroup built-ins, select, fmod and index_from_array are written above"
                )
            }
            Hypot | Log | Ln1p | ExpM1 | Cbrt | SinCos | Asinh | Acosh | Atanh => {
                Err(compile_error(
                    span,
                    format!(
                        "{f:?} reached the WGSL writer unlowered (a bug: passes::lower expands it)"
                    ),
                ))
            }
        }
    }

    /// [`Builtin::Fmod`]: the exact `fmod` helper, component by component
    /// on vectors (a scalar operand applies to every component); `f16`
    /// operands are exact in `f32`, and so is their remainder, which fits
    /// `f16` again.
    fn fmod_call(
        &mut self,
        args: Vec<(String, Type)>,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let [(l, lt), (r, rt)] = args.as_slice() else {
            return Err(compile_error(span, "fmod takes two arguments"));
        };
        match (lt, rt) {
            (Type::Vector(n, s), _) | (_, Type::Vector(n, s)) => {
                let (n, s) = (*n, *s);
                let vt = Type::Vector(n, s);
                let f = self.fmod(s);
                let (lv, rv) = (self.fresh(), self.fresh());
                pre.push(format!("let {lv} = {l};"));
                pre.push(format!("let {rv} = {r};"));
                let part = |v: &str, t: &Type, c: &str| match t {
                    Type::Vector(..) => format!("{v}.{c}"),
                    _ => v.to_string(),
                };
                let parts: Vec<String> = ["x", "y", "z", "w"][..usize::from(n)]
                    .iter()
                    .map(|c| format!("{f}({}, {})", part(&lv, lt, c), part(&rv, rt, c)))
                    .collect();
                Ok((format!("{}({})", type_wgsl(&vt), parts.join(", ")), vt))
            }
            (Type::Scalar(Scalar::F16), _) => {
                let f = self.fmod(Scalar::F16);
                Ok((format!("f16({f}(f32({l}), f32({r})))"), lt.clone()))
            }
            (Type::Scalar(s), _) => {
                let f = self.fmod(*s);
                Ok((format!("{f}({l}, {r})"), lt.clone()))
            }
            _ => Err(compile_error(span, format!("fmod of {lt:?}"))),
        }
    }
}
