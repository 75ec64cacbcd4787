//! The name tables of the built-ins kernels call: math methods (`x.sqrt()`,
//! `v.dot(w)`, ...), atomic and subgroup functions, and short-vector
//! swizzles. Parse (`call`, `atomic`) looks names up here and records the
//! IR's built-in in the AST; check and expand read it there.

use amp_ir::{AtomicOp, Builtin};

const MATH_METHODS: &[(&str, Builtin)] = &[
    ("sqrt", Builtin::Sqrt),
    ("abs", Builtin::Abs),
    ("min", Builtin::Min),
    ("max", Builtin::Max),
    ("clamp", Builtin::Clamp),
    ("floor", Builtin::Floor),
    ("ceil", Builtin::Ceil),
    ("round", Builtin::Round),
    ("trunc", Builtin::Trunc),
    ("exp", Builtin::Exp),
    ("exp2", Builtin::Exp2),
    ("ln", Builtin::Ln),
    ("log2", Builtin::Log2),
    ("sin", Builtin::Sin),
    ("cos", Builtin::Cos),
    ("tan", Builtin::Tan),
    ("asin", Builtin::Asin),
    ("acos", Builtin::Acos),
    ("atan", Builtin::Atan),
    ("atan2", Builtin::Atan2),
    ("sinh", Builtin::Sinh),
    ("cosh", Builtin::Cosh),
    ("tanh", Builtin::Tanh),
    ("powf", Builtin::Powf),
    ("mul_add", Builtin::MulAdd),
    ("signum", Builtin::Signum),
    ("recip", Builtin::Recip),
    ("fract", Builtin::Fract),
    ("count_ones", Builtin::CountOnes),
    ("leading_zeros", Builtin::LeadingZeros),
    ("trailing_zeros", Builtin::TrailingZeros),
    ("reverse_bits", Builtin::ReverseBits),
    ("count_zeros", Builtin::CountZeros),
    ("leading_ones", Builtin::LeadingOnes),
    ("trailing_ones", Builtin::TrailingOnes),
    ("wrapping_add", Builtin::WrappingAdd),
    ("wrapping_sub", Builtin::WrappingSub),
    ("wrapping_mul", Builtin::WrappingMul),
    ("wrapping_neg", Builtin::WrappingNeg),
    ("rotate_left", Builtin::RotateLeft),
    ("rotate_right", Builtin::RotateRight),
    ("pow", Builtin::Pow),
    ("powi", Builtin::Powi),
    ("log10", Builtin::Log10),
    ("to_radians", Builtin::ToRadians),
    ("to_degrees", Builtin::ToDegrees),
    ("copysign", Builtin::Copysign),
    ("is_nan", Builtin::IsNan),
    ("is_finite", Builtin::IsFinite),
    ("is_infinite", Builtin::IsInfinite),
    ("is_sign_negative", Builtin::IsSignNegative),
    ("is_sign_positive", Builtin::IsSignPositive),
    ("to_bits", Builtin::ToBits),
    ("to_f32", Builtin::HalfToF32),
    ("to_f64", Builtin::HalfToF64),
    ("rem_euclid", Builtin::RemEuclid),
    ("div_euclid", Builtin::DivEuclid),
    ("abs_diff", Builtin::AbsDiff),
    ("is_power_of_two", Builtin::IsPowerOfTwo),
    ("hypot", Builtin::Hypot),
    ("log", Builtin::Log),
    ("ln_1p", Builtin::Ln1p),
    ("exp_m1", Builtin::ExpM1),
    ("cbrt", Builtin::Cbrt),
    ("asinh", Builtin::Asinh),
    ("acosh", Builtin::Acosh),
    ("atanh", Builtin::Atanh),
    ("sin_cos", Builtin::SinCos),
    ("dot", Builtin::Dot),
    ("length", Builtin::Length),
    ("distance", Builtin::Distance),
    ("normalize", Builtin::Normalize),
    ("cross", Builtin::Cross),
    ("contains", Builtin::Contains),
    ("size", Builtin::Size),
];

/// The IR name of a built-in method, if `name` is one.
pub(crate) fn builtin(name: &str) -> Option<Builtin> {
    MATH_METHODS
        .iter()
        .find(|(m, _)| *m == name)
        .map(|(_, b)| *b)
}

/// The IR operation and the argument count of an atomic function.
pub(super) fn atomic_function(name: &str) -> Option<(AtomicOp, usize)> {
    Some(match name {
        "atomic_fetch_add" => (AtomicOp::Add, 2),
        "atomic_fetch_sub" => (AtomicOp::Sub, 2),
        "atomic_fetch_and" => (AtomicOp::And, 2),
        "atomic_fetch_or" => (AtomicOp::Or, 2),
        "atomic_fetch_xor" => (AtomicOp::Xor, 2),
        "atomic_fetch_min" => (AtomicOp::Min, 2),
        "atomic_fetch_max" => (AtomicOp::Max, 2),
        "atomic_exchange" => (AtomicOp::Exchange, 2),
        "atomic_fetch_inc" => (AtomicOp::Add, 1),
        "atomic_fetch_dec" => (AtomicOp::Sub, 1),
        "atomic_compare_exchange" => (AtomicOp::CompareExchange, 3),
        _ => return None,
    })
}

/// The IR built-in and the argument count of a subgroup function.
pub(super) fn subgroup_function(name: &str) -> Option<(Builtin, usize)> {
    Some(match name {
        "subgroup_add" => (Builtin::SubgroupAdd, 1),
        "subgroup_min" => (Builtin::SubgroupMin, 1),
        "subgroup_max" => (Builtin::SubgroupMax, 1),
        "subgroup_broadcast" => (Builtin::SubgroupBroadcast, 2),
        "subgroup_ballot" => (Builtin::SubgroupBallot, 1),
        "subgroup_size" => (Builtin::SubgroupSize, 0),
        "subgroup_lane" => (Builtin::SubgroupLane, 0),
        _ => return None,
    })
}

/// Whether `name` is a swizzle: 2 to 4 of `x`, `y`, `z`, `w`, each once.
pub(super) fn is_swizzle(name: &str) -> bool {
    (2..=4).contains(&name.len())
        && name.chars().all(|c| "xyzw".contains(c))
        && name
            .chars()
            .enumerate()
            .all(|(i, c)| !name[..i].contains(c))
}
