//! The name tables of the built-ins kernels call: math methods (`x.sqrt()`,
//! `v.dot(w)`, ...), atomic and subgroup functions, and short-vector
//! swizzles. Parse (`call`, `atomic`) looks names up here and records the
//! IR's name of each built-in in the AST; check and expand read it there.

const MATH_METHODS: &[(&str, &str)] = &[
    ("sqrt", "Sqrt"),
    ("abs", "Abs"),
    ("min", "Min"),
    ("max", "Max"),
    ("clamp", "Clamp"),
    ("floor", "Floor"),
    ("ceil", "Ceil"),
    ("round", "Round"),
    ("trunc", "Trunc"),
    ("exp", "Exp"),
    ("exp2", "Exp2"),
    ("ln", "Ln"),
    ("log2", "Log2"),
    ("sin", "Sin"),
    ("cos", "Cos"),
    ("tan", "Tan"),
    ("asin", "Asin"),
    ("acos", "Acos"),
    ("atan", "Atan"),
    ("atan2", "Atan2"),
    ("sinh", "Sinh"),
    ("cosh", "Cosh"),
    ("tanh", "Tanh"),
    ("powf", "Powf"),
    ("mul_add", "MulAdd"),
    ("signum", "Signum"),
    ("recip", "Recip"),
    ("fract", "Fract"),
    ("count_ones", "CountOnes"),
    ("leading_zeros", "LeadingZeros"),
    ("trailing_zeros", "TrailingZeros"),
    ("reverse_bits", "ReverseBits"),
    ("count_zeros", "CountZeros"),
    ("leading_ones", "LeadingOnes"),
    ("trailing_ones", "TrailingOnes"),
    ("wrapping_add", "WrappingAdd"),
    ("wrapping_sub", "WrappingSub"),
    ("wrapping_mul", "WrappingMul"),
    ("wrapping_neg", "WrappingNeg"),
    ("rotate_left", "RotateLeft"),
    ("rotate_right", "RotateRight"),
    ("pow", "Pow"),
    ("powi", "Powi"),
    ("log10", "Log10"),
    ("to_radians", "ToRadians"),
    ("to_degrees", "ToDegrees"),
    ("copysign", "Copysign"),
    ("is_nan", "IsNan"),
    ("is_finite", "IsFinite"),
    ("is_infinite", "IsInfinite"),
    ("is_sign_negative", "IsSignNegative"),
    ("is_sign_positive", "IsSignPositive"),
    ("to_bits", "ToBits"),
    ("to_f32", "HalfToF32"),
    ("to_f64", "HalfToF64"),
    ("rem_euclid", "RemEuclid"),
    ("div_euclid", "DivEuclid"),
    ("abs_diff", "AbsDiff"),
    ("is_power_of_two", "IsPowerOfTwo"),
    ("hypot", "Hypot"),
    ("log", "Log"),
    ("ln_1p", "Ln1p"),
    ("exp_m1", "ExpM1"),
    ("cbrt", "Cbrt"),
    ("asinh", "Asinh"),
    ("acosh", "Acosh"),
    ("atanh", "Atanh"),
    ("sin_cos", "SinCos"),
    ("dot", "Dot"),
    ("length", "Length"),
    ("distance", "Distance"),
    ("normalize", "Normalize"),
    ("cross", "Cross"),
    ("contains", "Contains"),
    ("size", "Size"),
];

/// The IR name of a built-in method, if `name` is one.
pub(crate) fn builtin(name: &str) -> Option<&'static str> {
    MATH_METHODS
        .iter()
        .find(|(m, _)| *m == name)
        .map(|(_, b)| *b)
}

/// The IR operation and the argument count of an atomic function.
pub(super) fn atomic_function(name: &str) -> Option<(&'static str, usize)> {
    Some(match name {
        "atomic_fetch_add" => ("Add", 2),
        "atomic_fetch_sub" => ("Sub", 2),
        "atomic_fetch_and" => ("And", 2),
        "atomic_fetch_or" => ("Or", 2),
        "atomic_fetch_xor" => ("Xor", 2),
        "atomic_fetch_min" => ("Min", 2),
        "atomic_fetch_max" => ("Max", 2),
        "atomic_exchange" => ("Exchange", 2),
        "atomic_fetch_inc" => ("Add", 1),
        "atomic_fetch_dec" => ("Sub", 1),
        "atomic_compare_exchange" => ("CompareExchange", 3),
        _ => return None,
    })
}

/// The IR built-in and the argument count of a subgroup function.
pub(super) fn subgroup_function(name: &str) -> Option<(&'static str, usize)> {
    Some(match name {
        "subgroup_add" => ("SubgroupAdd", 1),
        "subgroup_min" => ("SubgroupMin", 1),
        "subgroup_max" => ("SubgroupMax", 1),
        "subgroup_broadcast" => ("SubgroupBroadcast", 2),
        "subgroup_ballot" => ("SubgroupBallot", 1),
        "subgroup_size" => ("SubgroupSize", 0),
        "subgroup_lane" => ("SubgroupLane", 0),
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
