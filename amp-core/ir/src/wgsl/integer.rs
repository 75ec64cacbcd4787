//! Integer built-ins of scalars: bit counts and tests, `reverse_bits`,
//! rotations, wrapping arithmetic and `abs_diff` (`rem_euclid` and
//! `div_euclid` are lowered by `passes::legalize`).

use super::{Writer, compile_error};
use crate::Result;
use crate::ir::*;

impl Writer<'_> {
    /// Bit counts and tests, `reverse_bits`, rotations and wrapping
    /// arithmetic.
    pub(super) fn bits_call(
        &mut self,
        f: Builtin,
        ty: Type,
        a: &[&str],
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        use Builtin::*;
        let simple = |name: &str| format!("{name}({})", a.join(", "));
        let text = match f {
            CountOnes => {
                return Ok((
                    format!("u32(countOneBits({}))", a[0]),
                    Type::Scalar(Scalar::U32),
                ));
            }
            LeadingZeros => {
                return Ok((
                    format!("u32(countLeadingZeros({}))", a[0]),
                    Type::Scalar(Scalar::U32),
                ));
            }
            TrailingZeros => {
                return Ok((
                    format!("u32(countTrailingZeros({}))", a[0]),
                    Type::Scalar(Scalar::U32),
                ));
            }
            ReverseBits => simple("reverseBits"),
            IsPowerOfTwo => {
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                return Ok((
                    format!("({x} != 0u && ({x} & ({x} - 1u)) == 0u)"),
                    Type::Scalar(Scalar::Bool),
                ));
            }
            CountZeros | LeadingOnes | TrailingOnes => {
                let name = match f {
                    CountZeros => "countOneBits",
                    LeadingOnes => "countLeadingZeros",
                    _ => "countTrailingZeros",
                };
                return Ok((
                    format!("u32({name}(~({})))", a[0]),
                    Type::Scalar(Scalar::U32),
                ));
            }
            // The first operand is bound first, so that constant operands
            // do not form a WGSL constant expression (where wrapping is an
            // error); at run time WGSL's integer arithmetic wraps.
            WrappingAdd | WrappingSub | WrappingMul => {
                let t = self.fresh();
                pre.push(format!("let {t} = {};", a[0]));
                let op = match f {
                    WrappingAdd => "+",
                    WrappingSub => "-",
                    _ => "*",
                };
                format!("({t} {op} {})", a[1])
            }
            WrappingNeg => {
                let t = self.fresh();
                pre.push(format!("let {t} = {};", a[0]));
                // WGSL has no unary `-` on `u32` (which also holds `u8` and
                // `u16`): `0 - x` wraps the same.
                if matches!(ty, Type::Scalar(Scalar::U32 | Scalar::U8 | Scalar::U16)) {
                    format!("(0u - {t})")
                } else {
                    format!("(-{t})")
                }
            }
            RotateLeft | RotateRight => {
                let (x, n) = (self.fresh(), self.fresh());
                let bits = if ty == Type::Scalar(Scalar::I32) {
                    format!("bitcast<u32>({})", a[0])
                } else {
                    a[0].to_string()
                };
                pre.push(format!("let {x} = {bits};"));
                pre.push(format!("let {n} = {} % 32u;", a[1]));
                let (first, second) = if f == RotateLeft {
                    ("<<", ">>")
                } else {
                    (">>", "<<")
                };
                let rotated = format!("(({x} {first} {n}) | ({x} {second} ((32u - {n}) % 32u)))");
                if ty == Type::Scalar(Scalar::I32) {
                    format!("bitcast<i32>{rotated}")
                } else {
                    rotated
                }
            }
            _ => unreachable!("{f:?} is not an integer bit function (see `call`)"),
        };
        Ok((text, ty))
    }

    /// `abs_diff` (`rem_euclid` and `div_euclid` of scalars were lowered
    /// by `passes::legalize`; of other types they are refused).
    pub(super) fn euclid_call(
        &mut self,
        f: Builtin,
        ty: Type,
        a: &[&str],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        match f {
            Builtin::AbsDiff => {
                let (x, y) = (self.fresh(), self.fresh());
                pre.push(format!("let {x} = {};", a[0]));
                pre.push(format!("let {y} = {};", a[1]));
                Ok((
                    format!("select(u32({y}) - u32({x}), u32({x}) - u32({y}), {x} > {y})"),
                    Type::Scalar(Scalar::U32),
                ))
            }
            _ => Err(compile_error(
                span,
                format!("{f:?} of {ty:?} (scalars only)"),
            )),
        }
    }
}
