//! Float built-ins of scalars: rounding and the basic functions (`sqrt`,
//! `abs`, `min`, `max`, `clamp`, `floor`, `ceil`, `round`, `trunc`,
//! `fract`, `mul_add`, `signum`, `recip`), the transcendental functions
//! and powers (with Rust's results where drivers differ), and the
//! bit-level float functions (`to_bits`, `from_bits`, `f16` conversions,
//! `copysign`, `is_nan` and the other classes).

use super::Writer;
use super::module::{IPOW, POWF_F32, POWI};
use super::types::type_wgsl;
use crate::Result;
use crate::ir::*;

impl Writer<'_> {
    /// Rounding and the basic functions (`abs`, `min`, `max` and `clamp` of
    /// integers too).
    pub(super) fn math_call(
        &mut self,
        f: Builtin,
        ty: Type,
        a: &[&str],
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        use Builtin::*;
        let simple = |name: &str| format!("{name}({})", a.join(", "));
        let text = match f {
            Sqrt => simple("sqrt"),
            // `abs` of a `u32` is the value itself; naga's GLSL output
            // computes it as `abs(int(x))`.
            Abs if ty == Type::Scalar(Scalar::U32) => format!("({})", a[0]),
            Abs => simple("abs"),
            Min => simple("min"),
            Max => simple("max"),
            Clamp => format!("min(max({}, {}), {})", a[0], a[1], a[2]),
            Floor => simple("floor"),
            Ceil => simple("ceil"),
            Round => {
                // Rust rounds half away from zero; WGSL's round() to even.
                // On the magnitude `a`: floor(a) plus 1 if its fraction
                // (exact) is at least one half; then the argument's sign
                // (`-0.0` for `-0.4`). Values of at least 2^23 (2^52 for
                // f64), infinities, NaN and zeros are their own rounding.
                let (tmp, mag, r) = (self.fresh(), self.fresh(), self.fresh());
                pre.push(format!("let {tmp} = {};", a[0]));
                pre.push(format!("let {mag} = abs({tmp});"));
                pre.push(format!(
                    "let {r} = floor({mag}) + floor(({mag} - floor({mag})) * 2.0);"
                ));
                let big = if ty == Type::Scalar(Scalar::F32) {
                    "8388608.0f"
                } else {
                    "4503599627370496.0lf"
                };
                format!(
                    "select(select({r}, -{r}, {tmp} < 0.0), {tmp}, {tmp} == 0.0 || !({mag} < {big}))"
                )
            }
            // lavapipe's `f64` `trunc` is wrong from 2^31 on (its `floor`
            // and `ceil` are right).
            Trunc if ty == Type::Scalar(Scalar::F64) => {
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {};", a[0]));
                format!("select(ceil({tmp}), floor({tmp}), {tmp} >= 0.0lf)")
            }
            Fract if ty == Type::Scalar(Scalar::F64) => {
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {};", a[0]));
                format!("({tmp} - select(ceil({tmp}), floor({tmp}), {tmp} >= 0.0lf))")
            }
            Trunc => simple("trunc"),
            MulAdd => simple("fma"),
            Signum => {
                // Rust's `signum`: 1 for +0.0, -1 for -0.0, NaN for NaN
                // (WGSL's `sign` gives 0 for zeros).
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {};", a[0]));
                if ty == Type::Scalar(Scalar::F32) {
                    format!(
                        "select(select(-1.0f, 1.0f, (bitcast<u32>({tmp}) & 0x80000000u) == 0u), {tmp}, (bitcast<u32>({tmp}) & 0x7fffffffu) > 0x7f800000u)"
                    )
                } else {
                    format!(
                        "select(select(-1.0lf, 1.0lf, {tmp} > 0.0lf || ({tmp} == 0.0lf && 1.0lf / {tmp} > 0.0lf)), {tmp}, {tmp} != {tmp})"
                    )
                }
            }
            Recip => format!("(1.0 / {})", a[0]),
            // Rust's `fract`: `x - trunc(x)` (WGSL's `fract` floors).
            Fract => format!("({0} - trunc({0}))", a[0]),
            _ => unreachable!("{f:?} is not a basic float function (see `call`)"),
        };
        Ok((text, ty))
    }

    /// The transcendental functions and powers (the `f64` transcendental
    /// functions were refused before), `to_radians` and `to_degrees`.
    pub(super) fn transcendental_call(
        &mut self,
        f: Builtin,
        ty: Type,
        a: &[&str],
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        use Builtin::*;
        let simple = |name: &str| format!("{name}({})", a.join(", "));
        let text = match f {
            Exp => simple("exp"),
            Exp2 => simple("exp2"),
            Ln => simple("log"),
            Log2 => simple("log2"),
            Sin | Tan | Asin => {
                // Odd functions are `x` itself, correctly rounded, where
                // |x| < 2^-12 (the cubic term is below half an ulp), so
                // zeros keep their sign and tiny arguments lose no digits;
                // NaN stays NaN.
                let name = match f {
                    Sin => "sin",
                    Tan => "tan",
                    _ => "asin",
                };
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {};", a[0]));
                format!(
                    "select({name}({tmp}), {tmp}, abs({tmp}) < 0.000244140625f || (bitcast<u32>({tmp}) & 0x7fffffffu) > 0x7f800000u)"
                )
            }
            Cos => simple("cos"),

            Acos => simple("acos"),
            // As `sin` (lavapipe's `atan(NaN)` is 0).
            Atan => {
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                format!(
                    "select(atan({x}), {x}, abs({x}) < 0.000244140625f || (bitcast<u32>({x}) & 0x7fffffffu) > 0x7f800000u)"
                )
            }
            Atan2 => simple("atan2"),
            // Drivers compute sinh and tanh from exponentials, which
            // cancel for small arguments (lavapipe: relative errors of 1e-1
            // near 1e-4); their Taylor series are exact there in f32.
            Sinh => {
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                format!(
                    "select(sinh({x}), {x} * (1.0 + {x} * {x} * (1.0 / 6.0 + {x} * {x} * (1.0 / 120.0 + {x} * {x} / 5040.0))), abs({x}) < 0.1)"
                )
            }
            Cosh => simple("cosh"),
            Tanh => {
                // Also 1 (with the sign) beyond 20, where exp overflows.
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                format!(
                    "select(select(tanh({x}), sign({x}), abs({x}) > 20.0), {x} * (1.0 - {x} * {x} * (1.0 / 3.0 - {x} * {x} * (2.0 / 15.0 - {x} * {x} * 17.0 / 315.0))), abs({x}) < 0.1)"
                )
            }
            Powf => {
                // Rust's special values and negative bases (WGSL's `pow` is
                // `exp2(y * log2(x))`; lavapipe's gives 0 for a zero base).
                let f = self.helper("amp_powf_f32", POWF_F32);
                format!("{f}({}, {})", a[0], a[1])
            }
            Pow => {
                let t = type_wgsl(&ty);
                let name = format!("amp_ipow_{t}");
                let text = IPOW.replace("{NAME}", &name).replace("{T}", &t);
                let f = self.helper(&name, &text);
                format!("{f}({}, {})", a[0], a[1])
            }
            Powi => {
                let t = type_wgsl(&ty);
                let name = format!("amp_powi_{t}");
                let text = POWI.replace("{NAME}", &name).replace("{T}", &t);
                let f = self.helper(&name, &text);
                format!("{f}({}, {})", a[0], a[1])
            }
            // f32 only (f64 is refused above, as the other transcendentals).
            Log10 => format!("(log2({}) * 0.30102999566398120f)", a[0]),
            // Rust's constants, one multiplication as Rust does.
            ToRadians if ty == Type::Scalar(Scalar::F64) => {
                format!("({} * 0.017453292519943295lf)", a[0])
            }
            ToRadians => format!("({} * 0.017453292f)", a[0]),
            ToDegrees if ty == Type::Scalar(Scalar::F64) => {
                format!("({} * 57.29577951308232lf)", a[0])
            }
            ToDegrees => format!("({} * 57.29578f)", a[0]),
            _ => unreachable!("{f:?} is not a transcendental function or power (see `call`)"),
        };
        Ok((text, ty))
    }

    /// The bit-level float functions: `to_bits`, `from_bits`, `f16`
    /// conversions, `copysign`, and the classes (`is_nan`, ...).
    pub(super) fn float_bits_call(
        &mut self,
        f: Builtin,
        ty: Type,
        a: &[&str],
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        use Builtin::*;
        let text = match f {
            ToBits => {
                return Ok((format!("bitcast<u32>({})", a[0]), Type::Scalar(Scalar::U32)));
            }
            FromBits => {
                return Ok((format!("bitcast<f32>({})", a[0]), Type::Scalar(Scalar::F32)));
            }
            HalfFromF32 | HalfFromF64 => {
                self.uses_f16 = true;
                return Ok((format!("f16({})", a[0]), Type::Scalar(Scalar::F16)));
            }
            HalfToF32 => return Ok((format!("f32({})", a[0]), Type::Scalar(Scalar::F32))),
            HalfToF64 => {
                self.uses_f64 = true;
                return Ok((format!("f64({})", a[0]), Type::Scalar(Scalar::F64)));
            }
            // Bit tests on `f32`; drivers may assume no NaN in comparisons.
            Copysign if ty == Type::Scalar(Scalar::F32) => format!(
                "bitcast<f32>((bitcast<u32>({}) & 0x7fffffffu) | (bitcast<u32>({}) & 0x80000000u))",
                a[0], a[1]
            ),
            IsNan | IsFinite | IsInfinite | IsSignNegative | IsSignPositive
                if ty == Type::Scalar(Scalar::F32) =>
            {
                let b = format!("bitcast<u32>({})", a[0]);
                let text = match f {
                    IsNan => format!("(({b} & 0x7fffffffu) > 0x7f800000u)"),
                    IsFinite => format!("(({b} & 0x7f800000u) != 0x7f800000u)"),
                    IsInfinite => format!("(({b} & 0x7fffffffu) == 0x7f800000u)"),
                    IsSignNegative => format!("(({b} & 0x80000000u) != 0u)"),
                    _ => format!("(({b} & 0x80000000u) == 0u)"),
                };
                return Ok((text, Type::Scalar(Scalar::Bool)));
            }
            // `f64`: through arithmetic (no 64-bit bitcast); the sign of a
            // NaN is not seen.
            Copysign => {
                let (x, s) = (self.fresh(), self.fresh());
                pre.push(format!("let {x} = abs({});", a[0]));
                pre.push(format!("let {s} = {};", a[1]));
                format!("select({x}, -{x}, {s} < 0.0lf || ({s} == 0.0lf && 1.0lf / {s} < 0.0lf))")
            }
            IsNan | IsFinite | IsInfinite | IsSignNegative | IsSignPositive => {
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                let negative = format!("({x} < 0.0lf || ({x} == 0.0lf && 1.0lf / {x} < 0.0lf))");
                let text = match f {
                    IsNan => format!("(!({x} == {x}))"),
                    IsFinite => format!("(({x} - {x}) == 0.0lf)"),
                    IsInfinite => format!("(({x} == {x}) && !(({x} - {x}) == 0.0lf))"),
                    IsSignNegative => negative,
                    _ => format!("(!{negative})"),
                };
                return Ok((text, Type::Scalar(Scalar::Bool)));
            }
            _ => unreachable!("{f:?} is not a bit-level float function (see `call`)"),
        };
        Ok((text, ty))
    }
}
