//! The kernel generator of the differential fuzzer (`tests/tests/fuzz.rs`).
//!
//! Pure Rust, `std` only: `tests/build.rs` includes this file and calls
//! [`generate`], which turns a seed and a count into the Rust source of
//! that many random kernels, each twice:
//!
//! - `run_K`: the kernel, a `parallel_for_each!` over one work item per
//!   input row, reading three `i32`, three `u32` and three `f32` inputs
//!   per work item from read-only views (`xi`, `xu`, `xf`, rank 2), three
//!   captured scalars (`ci`, `cu`, `cf`) and the kernel's upper-case
//!   constants, and writing one `i32`, one `u32` and one `f32` result per
//!   work item (`oi`, `ou`, `of`);
//! - `host_K`: the same statements and expressions as plain Rust on one
//!   work item's inputs, with every operation whose kernel meaning differs
//!   from Rust's debug-build operator spelled out: `wrapping_*` for
//!   `+ - *` and unary `-` on integers, `h::div_*` / `h::rem_*` (`x / 0 ==
//!   x`, `x % 0 == 0`, `MIN / -1 == MIN`), `h::shl_*` / `h::shr_*` (shift
//!   amounts modulo the width: 32, or 8 and 16 for the small integers),
//!   `h::clamp_*` (never panics), `h::*_euclid_*`,
//!   `wrapping_abs`, `wrapping_pow` (the helpers are `tests/fuzz/host.rs`).
//!   A compound assignment `v op= e` becomes `{ let r_ = e; v = op(v, r_); }`,
//!   because Rust evaluates the right side of a primitive compound
//!   assignment first. Everything else (evaluation order, `as` casts,
//!   comparisons, float arithmetic, loops, `match`) is the same Rust on
//!   both sides.
//!
//! The kernels use locals of type `i32`, `u32`, `f32`, `bool` and the
//! small integers `u8`, `i8`, `u16` and `i16` (`let`, `let mut`, with and
//! without annotations), assignments and compound
//! assignments, `if`/`else` statements and expressions, `for` loops over
//! constant ranges (`a..b`, `a..=b`, `step_by`, `rev`) and over ranges
//! with a run-time end or step, `while` loops, `break`/`continue`, `match`
//! (literals, `|`, ranges, constants, bindings with guards), block
//! expressions whose statements assign locals (also inside `&&`/`||` and
//! `if` branches), references to assignable locals ([`GEN_REFERENCES`]:
//! `let r = &mut a;`, `let r = if c { &mut a } else { &mut b };`, `let r;
//! r = &mut a;`, written through by `*r = e;` and `*r op= e;` in a block
//! in which neither local is otherwise used), and a `#[kernel]` helper per
//! kernel (`fun<no>(a: &mut T, b: U, c: f32)`, which changes `*a`; its host
//! copy is `hfun<no>`) called with `&mut v`, a reference `r`, or a choice
//! written in the call (`fun3(if c { &mut a } else { &mut b }, e, f)`), integer arithmetic, bit operations, shifts, comparisons,
//! casts between all the integer types and `f32` and `bool` to integers,
//! and the built-in methods of `docs/kernel-language.md` section 11 that
//! have an exact meaning (`min`, `max`, `clamp`, `abs`, `wrapping_*`,
//! `pow`, `rotate_*`, `*_euclid`, bit counts, `reverse_bits`, `abs_diff`,
//! `is_power_of_two`, `to_bits`, `floor`, `ceil`, `trunc`, `round`,
//! `fract`, `signum`, `copysign`, `is_nan` and the other float tests,
//! `to_degrees`, `to_radians`).
//!
//! The small integers ([`GEN_SMALL_INTS`]) compute as Rust's release
//! builds at their own width: literals with suffixes (`200u8`, `(-5i8)`)
//! or typed by their context, the `i32`/`u32` inputs cast (`(xi[[wi, 0]]
//! as i8)`), arithmetic, bit operations, shifts (any integer type as the
//! amount), `min`, `max`, `clamp`, `abs`, `wrapping_*` and `pow`, but none
//! of the bit functions (`count_ones`, `rotate_*`, `abs_diff`, ...) or
//! `*_euclid`, which kernels do not have for them. They reach the outputs
//! through casts (`(v as i32)`, `(v as f32)`) and comparisons.
//!
//! # Floats
//!
//! GPUs may fuse `a * b + c`, reassociate float arithmetic and apply
//! identities that hold for finite values only (`x - x == 0`), ignore the
//! sign of zero results of arithmetic, and give any result for `min`/`max`
//! with a NaN operand (`docs/kernel-language.md` sections 5 and 11). So
//! that every `f32` result has one right answer, the generator tracks what
//! is known of each `f32` expression ([`Fp`]) and only combines values in
//! ways where nothing of that latitude can change a result:
//!
//! - *rounded*: it contains an arithmetic operation (`+ - * %`,
//!   `to_degrees`, `to_radians`, `rem_euclid`, and `fract` and `round`,
//!   which amp-rs computes with arithmetic). The operands of an
//!   arithmetic operation are never rounded (not even through a local or
//!   `abs`/`floor`/`if`/`min`), so no result depends on fusing or on
//!   reassociation: each is one correctly rounded IEEE operation on exact
//!   values;
//! - *finite*, *varies* and the inputs read: the operands of an arithmetic
//!   operation are either all finite (literals, integer casts, values
//!   tested with `is_finite` and replaced), or all depend on run-time
//!   inputs and read different ones, so that no identity such as
//!   `x * 0.0 == 0` or `x - x == 0` applies when an operand is infinite or
//!   NaN;
//! - *may be NaN*: `min`, `max` and `clamp` only get operands that cannot
//!   be NaN (literals, integer casts, other `min`s, or a value tested with
//!   `is_nan`, `is_finite` or `x == x` and replaced);
//! - *zero sign definite*: the result's sign is defined even when it is
//!   zero (no arithmetic, `min`, `max` or `abs` inside, and no `if` or
//!   `match` choosing between values a driver may know: see
//!   [`GEN_SELECTED_ZERO_SIGN`]). `signum`, the sign
//!   operand of `copysign`, `is_sign_negative`/`is_sign_positive`,
//!   `to_bits` and a divisor only get such values (and `copysign`,
//!   `is_sign_*` and `to_bits` NaN-free ones, since a NaN's sign and
//!   payload are the driver's);
//! - *contains `floor`/`ceil`/`trunc`/`round`*: not an operand of `fract`
//!   (see [`GEN_FRACT_OF_ROUNDED`]).
//!
//! The `f32` output is compared bit for bit, any NaN matching any NaN, and
//! `0.0` matching `-0.0` unless its zero sign is definite. With
//! [`GEN_APPROX_F32`] a quarter of the kernels instead write a division,
//! a `sqrt`, `a * b + c` or `mul_add` of exact operands, which the host
//! checks within a tolerance it computes (`1e-5` relative for `/` and
//! `sqrt`; `1e-6 * (|a * b| + |c|)` for the multiply-adds, around the
//! fused or the unfused result: either is right, and they differ beyond
//! any tolerance where the product overflows); those results feed nothing
//! else.
//!
//! Float inputs are special values (`±0`, `±inf`, NaN, `±1e30`, `1`,
//! `0.5`, ...) or normal numbers between about `1e-6` and `1e12` in
//! magnitude, so that no single operation on them underflows to a
//! subnormal (which GPUs may flush to zero).
//!
//! # Flags
//!
//! Constructs with a known bug are generated only when their flag is on:
//! [`GEN_BOOL_XOR`], [`GEN_WRAPPING_NEG`], [`GEN_SELF_MUTATING_COMPOUND`]
//! (bugs being fixed), [`GEN_FRACT_OF_ROUNDED`], [`GEN_ABS_ZERO_SIGN`],
//! [`GEN_CONST_ZERO_DIVISOR`], [`GEN_SELECTED_ZERO_SIGN`] (differences on
//! lavapipe found by this fuzzer), [`GEN_CONST_BLOCK_OPERANDS`] (WGSL that naga rejects, found by
//! this fuzzer), [`GEN_FAST_MATH_IDENTITIES`] (driver latitude the
//! documentation allows), and for the small integers
//! [`GEN_SMALL_INT_CONSTS`] (constants, which kernels refuse),
//! [`GEN_SMALL_MIN_LITERAL`] (`-128i8`, which the CPU accelerator's code
//! refuses) and [`GEN_SMALL_WRAPPING_NEG`] (invalid WGSL). [`GEN_SMALL_INTS`]
//! (on) turns the small integers off altogether: the kernels are then those
//! of the generator before them. `AMP_FUZZ_FLAGS` changes the flags for one build
//! without editing this file ([`Flags::parse`]): `AMP_FUZZ_FLAGS=bool_xor`
//! turns one on, `all` every one, `-match` one off.

use std::fmt::Write as _;

/// `bool ^ bool` and `b ^= c` (they lowered to invalid WGSL; fixed, and
/// 2000 kernels with the flag on pass: turn it on).
pub(crate) const GEN_BOOL_XOR: bool = true;
/// `u32::wrapping_neg()` (it lowered to invalid WGSL; fixed, and 2000
/// kernels with the flag on pass: turn it on).
pub(crate) const GEN_WRAPPING_NEG: bool = true;
/// A compound assignment whose right side assigns its own target
/// (`v -= { v += 1; v }`: the CPU accelerator computed it wrongly; fixed,
/// and 2000 kernels with the flag on pass: turn it on).
pub(crate) const GEN_SELF_MUTATING_COMPOUND: bool = true;
/// `fract` of a value containing `floor`, `ceil`, `trunc` or `round`, or
/// that may be infinite (lavapipe gives `0.0` for `x.trunc().fract()` with
/// `x` infinite or NaN, and for `f32::INFINITY.abs().fract()`; Rust NaN:
/// documented driver latitude, `docs/kernel-language.md` section 5).
pub(crate) const GEN_FRACT_OF_ROUNDED: bool = false;
/// The sign of a zero `abs` result counts as defined (lavapipe gave `-0.0`
/// for `abs` of a `-0.0` it knew at compile time: `(-0.0f32).abs()`).
pub(crate) const GEN_ABS_ZERO_SIGN: bool = false;
/// A division whose divisor may be a constant `0.0`: lavapipe left the
/// output unwritten for `x / 0.0` (amp-rs now writes a literal zero
/// divisor as IEEE's result) and still does through a local
/// (`let z = 0.0f32; o[idx] = x / z;`, documented driver latitude,
/// `docs/kernel-language.md` section 12).
pub(crate) const GEN_CONST_ZERO_DIVISOR: bool = false;
/// Arithmetic whose operands a driver may relate by an identity that
/// holds for finite values only (lavapipe: `x - x` and `x * 0.0` are 0,
/// `(x + 1.0) - x` is 1, also for infinite or NaN `x`; the documented
/// reassociation latitude): on, operands are unconstrained; off, they are
/// all finite or all read different inputs.
pub(crate) const GEN_FAST_MATH_IDENTITIES: bool = false;
/// Shifts, float arithmetic and `sqrt` with an operand that contains a
/// block or `match` expression. Where that operand folded to a constant,
/// the WGSL had a constant expression that overflows, which naga rejected
/// on every GPU: `({ let t = 1u32; 1e30f32 }) * 1e30f32` ("Float literal
/// is infinite"), `65536u32 << (match 8u32 { _ => 20u32 })` ("<<
/// operation overflowed"), `({ let t = 1u32; -1.0f32 }).sqrt()` ("sqrt
/// built-in function argument is out of valid range"); literal operands
/// were fine. Fixed in the WGSL writer, and 2000 kernels with the flag on
/// pass: turn it on.
pub(crate) const GEN_CONST_BLOCK_OPERANDS: bool = true;
/// `match` expressions.
pub(crate) const GEN_MATCH: bool = true;
/// `f32` outputs compared within a tolerance (division, `sqrt`,
/// multiply-add).
pub(crate) const GEN_APPROX_F32: bool = true;
/// The sign of a zero chosen by an `if` or `match` between values the
/// driver may know (not all read from inputs) counts as defined. lavapipe
/// turns `if c { 1.0 } else { -0.0 }` (and `match` arms alike) into `+0.0`
/// where `-0.0` is chosen (NIR's `bcsel(c, 1.0, 0.0)` to `b2f(c)`, with
/// `-0.0` taken for `0.0`), so `x.copysign(if c { 1.0 } else { -0.0 })` is
/// `|x|`: the no-signed-zeros latitude, outside arithmetic
/// (`docs/kernel-language.md` section 5).
pub(crate) const GEN_SELECTED_ZERO_SIGN: bool = false;
/// Values of the small integer types `u8`, `i8`, `u16` and `i16`. Off, the
/// kernels are those of the generator before them, draw for draw.
pub(crate) const GEN_SMALL_INTS: bool = true;
/// Constants of the small integer types: upper-case constants (`const
/// C0_1: u8 = 200u8;`) and paths (`u8::MAX`, also as `match` patterns).
/// Kernels refused them until `ConstValue` covered the small types (found
/// by this generator); off, the same values are literals.
pub(crate) const GEN_SMALL_INT_CONSTS: bool = true;
/// The smallest `i8` and `i16` as negated literals: `-128i8`, `-32768i16`,
/// unsuffixed `-128` where the context makes it an `i8`, and the
/// patterns `-128 =>`. The CPU accelerator's code negated the literal
/// `128i8`, which rustc refuses, until a negated literal was written as
/// one (found by this generator); off, they are written `(-127i8 - 1)`
/// (and not as patterns).
pub(crate) const GEN_SMALL_MIN_LITERAL: bool = true;
/// `u8::wrapping_neg()` and `u16::wrapping_neg()`: the WGSL writer negated
/// them with unary `-`, which WGSL has only for signed types, until it
/// wrote `0u - x` for every unsigned type (found by this generator).
pub(crate) const GEN_SMALL_WRAPPING_NEG: bool = true;
/// References bound by `let` to assignable locals (one place, chosen at run
/// time, or bound by a later assignment), written through in a block of
/// their own.
pub(crate) const GEN_REFERENCES: bool = true;

/// Which flagged constructs are generated: the `GEN_*` constants, changed
/// by `AMP_FUZZ_FLAGS` (see [`Flags::parse`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Flags {
    /// [`GEN_BOOL_XOR`].
    pub(crate) bool_xor: bool,
    /// [`GEN_WRAPPING_NEG`].
    pub(crate) wrapping_neg: bool,
    /// [`GEN_SELF_MUTATING_COMPOUND`].
    pub(crate) self_mutating_compound: bool,
    /// [`GEN_FRACT_OF_ROUNDED`].
    pub(crate) fract_of_rounded: bool,
    /// [`GEN_ABS_ZERO_SIGN`].
    pub(crate) abs_zero_sign: bool,
    /// [`GEN_CONST_ZERO_DIVISOR`].
    pub(crate) const_zero_divisor: bool,
    /// [`GEN_FAST_MATH_IDENTITIES`].
    pub(crate) fast_math_identities: bool,
    /// [`GEN_CONST_BLOCK_OPERANDS`].
    pub(crate) const_block_operands: bool,
    /// [`GEN_MATCH`].
    pub(crate) matches: bool,
    /// [`GEN_APPROX_F32`].
    pub(crate) approx_f32: bool,
    /// [`GEN_SELECTED_ZERO_SIGN`].
    pub(crate) selected_zero_sign: bool,
    /// [`GEN_SMALL_INTS`].
    pub(crate) small_ints: bool,
    /// [`GEN_SMALL_INT_CONSTS`].
    pub(crate) small_int_consts: bool,
    /// [`GEN_SMALL_MIN_LITERAL`].
    pub(crate) small_min_literal: bool,
    /// [`GEN_SMALL_WRAPPING_NEG`].
    pub(crate) small_wrapping_neg: bool,
    /// [`GEN_REFERENCES`].
    pub(crate) references: bool,
}

impl Flags {
    /// The `GEN_*` constants.
    pub(crate) const DEFAULT: Flags = Flags {
        bool_xor: GEN_BOOL_XOR,
        wrapping_neg: GEN_WRAPPING_NEG,
        self_mutating_compound: GEN_SELF_MUTATING_COMPOUND,
        fract_of_rounded: GEN_FRACT_OF_ROUNDED,
        abs_zero_sign: GEN_ABS_ZERO_SIGN,
        const_zero_divisor: GEN_CONST_ZERO_DIVISOR,
        fast_math_identities: GEN_FAST_MATH_IDENTITIES,
        const_block_operands: GEN_CONST_BLOCK_OPERANDS,
        matches: GEN_MATCH,
        approx_f32: GEN_APPROX_F32,
        selected_zero_sign: GEN_SELECTED_ZERO_SIGN,
        small_ints: GEN_SMALL_INTS,
        small_int_consts: GEN_SMALL_INT_CONSTS,
        small_min_literal: GEN_SMALL_MIN_LITERAL,
        small_wrapping_neg: GEN_SMALL_WRAPPING_NEG,
        references: GEN_REFERENCES,
    };

    /// The flags and their names (`bool_xor` for [`GEN_BOOL_XOR`]).
    fn named(&mut self) -> [(&'static str, &mut bool); 16] {
        [
            ("bool_xor", &mut self.bool_xor),
            ("wrapping_neg", &mut self.wrapping_neg),
            ("self_mutating_compound", &mut self.self_mutating_compound),
            ("fract_of_rounded", &mut self.fract_of_rounded),
            ("abs_zero_sign", &mut self.abs_zero_sign),
            ("const_zero_divisor", &mut self.const_zero_divisor),
            ("fast_math_identities", &mut self.fast_math_identities),
            ("const_block_operands", &mut self.const_block_operands),
            ("match", &mut self.matches),
            ("approx_f32", &mut self.approx_f32),
            ("selected_zero_sign", &mut self.selected_zero_sign),
            ("small_ints", &mut self.small_ints),
            ("small_int_consts", &mut self.small_int_consts),
            ("small_min_literal", &mut self.small_min_literal),
            ("small_wrapping_neg", &mut self.small_wrapping_neg),
            ("references", &mut self.references),
        ]
    }

    /// [`Flags::DEFAULT`] changed by `spec`: names separated by commas,
    /// each turned on, or off with a leading `-` (`GEN_BOOL_XOR` or
    /// `bool_xor`; `all` for every flag): `AMP_FUZZ_FLAGS=all,-match`.
    pub(crate) fn parse(spec: &str) -> Result<Flags, String> {
        let mut flags = Flags::DEFAULT;
        for item in spec.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (on, name) = match item.strip_prefix('-') {
                Some(name) => (false, name),
                None => (true, item.strip_prefix('+').unwrap_or(item)),
            };
            let name = name.to_ascii_lowercase();
            let name = name.strip_prefix("gen_").unwrap_or(&name);
            let mut found = false;
            for (n, v) in flags.named() {
                if name == "all" || n == name {
                    *v = on;
                    found = true;
                }
            }
            if !found {
                return Err(format!("no fuzz flag `{item}`"));
            }
        }
        Ok(flags)
    }

    /// The flags that differ from [`Flags::DEFAULT`], in
    /// `AMP_FUZZ_FLAGS` form (empty if none).
    pub(crate) fn changes(mut self) -> String {
        let mut default = Flags::DEFAULT;
        let now: Vec<(&str, bool)> = self.named().into_iter().map(|(n, v)| (n, *v)).collect();
        default
            .named()
            .into_iter()
            .zip(now)
            .filter(|((_, d), (_, v))| **d != *v)
            .map(|(_, (n, v))| if v { n.to_string() } else { format!("-{n}") })
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Inputs of each type per work item.
pub(crate) const INPUTS: usize = 3;
/// Kernels per test function.
pub(crate) const BATCH: usize = 25;
/// The seed used when `AMP_FUZZ_SEED` is not set.
pub(crate) const DEFAULT_SEED: u64 = 0x5EED_A3B1;
/// The number of kernels when `AMP_FUZZ_COUNT` is not set.
pub(crate) const DEFAULT_COUNT: usize = 300;

/// Depth of the expressions of statements.
const STMT_EXPR_DEPTH: u32 = 3;
/// Depth of the output expressions.
const OUT_EXPR_DEPTH: u32 = 4;

/// The Rust source of `count` kernels from `seed` (see the module's
/// documentation): constants, `run_K` and `host_K` functions, the
/// `CASES` table and one `#[amp_test(no_snapshots)]` test per
/// [`BATCH`] kernels, to be included in `tests/tests/fuzz.rs`.
pub(crate) fn generate(seed: u64, count: usize, flags: Flags) -> String {
    let mut out = String::new();
    let changes = flags.changes();
    let _ = writeln!(
        out,
        "// Generated by tests/fuzz/gen.rs (tests/build.rs) from AMP_FUZZ_SEED={seed} \
         AMP_FUZZ_COUNT={count} AMP_FUZZ_FLAGS={changes:?}: do not edit.\n"
    );
    let _ = writeln!(out, "/// The flags changed by `AMP_FUZZ_FLAGS`.");
    let _ = writeln!(out, "pub(crate) const FLAGS: &str = {changes:?};");
    let _ = writeln!(out, "/// The generator's seed.");
    let _ = writeln!(out, "pub(crate) const SEED: u64 = {seed};");
    let _ = writeln!(out, "/// The number of kernels.");
    let _ = writeln!(out, "pub(crate) const COUNT: usize = {count};\n");
    for no in 0..count {
        let mut g = Gen::new(seed, no, flags);
        out.push_str(&g.kernel(no));
    }
    let _ = writeln!(out, "/// Every kernel, by number.");
    let _ = writeln!(out, "pub(crate) static CASES: [Case; {count}] = [");
    for no in 0..count {
        let _ = writeln!(
            out,
            "    Case {{ run: run_{no}, host: host_{no}, source: SOURCE_{no} }},"
        );
    }
    out.push_str("];\n\n");
    let mut first = 0;
    while first < count {
        let last = (first + BATCH).min(count) - 1;
        let _ = writeln!(
            out,
            "#[amp_test(no_snapshots)]\nfn kernels_{first:04}_to_{last:04}() {{\n    \
             run_batch(&CASES, {first}..{})\n}}\n",
            last + 1
        );
        first = last + 1;
    }
    out
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A value in `lo..=hi`.
    fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// An index into `weights`, drawn with those weights.
    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut r = (self.next() % u64::from(total)) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        unreachable!("weights sum to {total}")
    }
}

/// The scalar types of the kernels.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    I32,
    U32,
    F32,
    Bool,
    U8,
    I8,
    U16,
    I16,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::F32 => "f32",
            Ty::Bool => "bool",
            Ty::U8 => "u8",
            Ty::I8 => "i8",
            Ty::U16 => "u16",
            Ty::I16 => "i16",
        }
    }

    /// `u8`, `i8`, `u16` or `i16`.
    fn small(self) -> bool {
        matches!(self, Ty::U8 | Ty::I8 | Ty::U16 | Ty::I16)
    }

    /// A signed integer type.
    fn signed(self) -> bool {
        matches!(self, Ty::I32 | Ty::I8 | Ty::I16)
    }

    /// The smallest and largest value of an integer type.
    fn range(self) -> (i64, i64) {
        match self {
            Ty::I32 => (i32::MIN.into(), i32::MAX.into()),
            Ty::U32 => (0, u32::MAX.into()),
            Ty::U8 => (0, u8::MAX.into()),
            Ty::I8 => (i8::MIN.into(), i8::MAX.into()),
            Ty::U16 => (0, u16::MAX.into()),
            Ty::I16 => (i16::MIN.into(), i16::MAX.into()),
            Ty::F32 | Ty::Bool => unreachable!("{self:?} is not an integer type"),
        }
    }
}

/// What is known of an `f32` value (see the module's documentation);
/// integers and booleans carry [`Fp::EXACT`].
#[derive(Clone, Copy, Debug)]
struct Fp {
    /// Contains a rounded arithmetic operation.
    rounded: bool,
    /// May be NaN.
    nan: bool,
    /// The sign of a zero is defined.
    zdef: bool,
    /// Depends on run-time data (an input or capture) whatever the
    /// branches taken: no compiler can fold it to a constant.
    varies: bool,
    /// Contains `floor`, `ceil`, `trunc` or `round`.
    rnd: bool,
    /// Finite (never infinite or NaN).
    fin: bool,
    /// The float inputs it reads (`f0`, `f1`, `f2`, `cf`: bits 0 to 3).
    srcs: u8,
}

impl Fp {
    const EXACT: Fp = Fp {
        rounded: false,
        nan: false,
        zdef: true,
        varies: false,
        rnd: false,
        fin: true,
        srcs: 0,
    };

    /// A float input (`srcs` its bit) or any other input.
    const fn input(srcs: u8) -> Fp {
        Fp {
            rounded: false,
            nan: true,
            zdef: true,
            varies: true,
            rnd: false,
            fin: false,
            srcs,
        }
    }

    /// The result of an arithmetic operation on `self` and `o`.
    fn arith(self, o: Fp) -> Fp {
        Fp {
            rounded: true,
            nan: true,
            zdef: false,
            varies: false,
            rnd: self.rnd || o.rnd,
            fin: false,
            srcs: self.srcs | o.srcs,
        }
    }

    /// What holds of either value.
    fn join(self, o: Fp) -> Fp {
        Fp {
            rounded: self.rounded || o.rounded,
            nan: self.nan || o.nan,
            zdef: self.zdef && o.zdef,
            varies: self.varies && o.varies,
            rnd: self.rnd || o.rnd,
            fin: self.fin && o.fin,
            srcs: self.srcs | o.srcs,
        }
    }
}

/// What a consumer accepts of an `f32` expression, and whether an
/// unsuffixed literal may stand there (its type then comes from the
/// context).
#[derive(Clone, Copy, Debug)]
struct Req {
    rounded: bool,
    no_nan: bool,
    zdef: bool,
    varies: bool,
    no_rnd: bool,
    fin: bool,
    untyped: bool,
}

impl Req {
    fn ok(self, fp: Fp) -> bool {
        (self.rounded || !fp.rounded)
            && (!self.no_nan || !fp.nan)
            && (!self.zdef || fp.zdef)
            && (!self.varies || fp.varies)
            && (!self.no_rnd || !fp.rnd)
            && (!self.fin || fp.fin)
    }

    fn typed(self) -> Req {
        Req {
            untyped: false,
            ..self
        }
    }

    /// What a value must be to be stored in a local declared with `fp`
    /// (locals never count as varying).
    fn store(fp: Fp) -> Req {
        Req {
            rounded: fp.rounded,
            no_nan: !fp.nan,
            zdef: fp.zdef,
            varies: false,
            no_rnd: !fp.rnd,
            fin: fp.fin,
            untyped: true,
        }
    }
}

/// Anything, typed.
const ANY: Req = Req {
    rounded: true,
    no_nan: false,
    zdef: false,
    varies: false,
    no_rnd: false,
    fin: false,
    untyped: false,
};
/// Anything; an unsuffixed literal may stand here.
const LOOSE: Req = Req {
    untyped: true,
    ..ANY
};
/// The operand of an arithmetic operation.
const EXACT: Req = Req {
    rounded: false,
    ..ANY
};

/// A generated expression: its kernel and host texts.
struct Ex {
    k: String,
    h: String,
    fp: Fp,
    /// An unsuffixed literal (its type comes from the context).
    untyped: bool,
}

impl Ex {
    fn new(k: String, h: String) -> Ex {
        Ex {
            k,
            h,
            fp: Fp::EXACT,
            untyped: false,
        }
    }

    fn same(s: String) -> Ex {
        Ex::new(s.clone(), s)
    }

    /// Contains a block or `match` expression (see
    /// [`GEN_CONST_BLOCK_OPERANDS`]).
    fn has_block(&self) -> bool {
        self.k.contains("({") || self.k.contains("(match ")
    }

    fn with(mut self, fp: Fp) -> Ex {
        self.fp = fp;
        self
    }
}

/// A local, input, capture, constant or loop variable in scope.
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
    /// The target of the compound assignment being generated.
    frozen: bool,
    /// Borrowed by a reference being generated (`let r = &mut v;`): not
    /// read or written until the reference's block ends, as Rust's borrow
    /// rules demand.
    hidden: bool,
    /// For `f32`: what every value it holds satisfies.
    fp: Fp,
}

struct Gen {
    rng: Rng,
    f: Flags,
    vars: Vec<Var>,
    next: usize,
    /// Directly in a loop body (not inside an expression): `break` and
    /// `continue` may be generated.
    in_loop: bool,
    /// In a `match` guard: no assignments.
    no_mut: bool,
    /// The kernel's `#[kernel]` helper, if it has one: its name (the host
    /// copy is `h<name>`), the type of its `&mut` parameter and of its
    /// value parameter.
    helper: Option<(String, Ty, Ty)>,
    /// In the helper's body: no inputs (`xi[[wi, j]]`, ...) to read.
    no_inputs: bool,
}

/// The 32-bit integer types (the only ones with bit functions).
const INT_TYPES: [Ty; 2] = [Ty::I32, Ty::U32];
/// The integer types and `bool`: what compound assignments update.
const COMPOUND_TYPES: [Ty; 7] = [Ty::I32, Ty::U32, Ty::Bool, Ty::U8, Ty::I8, Ty::U16, Ty::I16];
/// Every type of a local.
const LOCAL_TYPES: [Ty; 8] = [
    Ty::I32,
    Ty::U32,
    Ty::F32,
    Ty::Bool,
    Ty::U8,
    Ty::I8,
    Ty::U16,
    Ty::I16,
];

impl Gen {
    fn new(seed: u64, no: usize, f: Flags) -> Gen {
        let mut rng = Rng(seed ^ (no as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
        rng.next();
        Gen {
            rng,
            f,
            vars: Vec::new(),
            next: 0,
            in_loop: false,
            no_mut: false,
            helper: None,
            no_inputs: false,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn push(&mut self, name: &str, ty: Ty, mutable: bool, fp: Fp) {
        self.vars.push(Var {
            name: name.to_string(),
            ty,
            mutable,
            frozen: false,
            hidden: false,
            fp,
        });
    }

    fn any_ty(&mut self) -> Ty {
        if !self.f.small_ints {
            return [Ty::I32, Ty::U32, Ty::F32, Ty::Bool][self.rng.weighted(&[30, 25, 30, 15])];
        }
        LOCAL_TYPES[self.rng.weighted(&[30, 25, 30, 15, 3, 3, 3, 3])]
    }

    /// `i32` or `u32` (bit functions, `abs_diff`).
    fn int_ty(&mut self) -> Ty {
        INT_TYPES[self.rng.below(2)]
    }

    /// Any integer type, mostly `i32` or `u32` (shift amounts, loop
    /// counters, `match` scrutinees, cast operands, comparisons).
    fn any_int_ty(&mut self) -> Ty {
        if !self.f.small_ints {
            return self.int_ty();
        }
        [Ty::I32, Ty::U32, Ty::U8, Ty::I8, Ty::U16, Ty::I16][self.rng.weighted(&[8, 8, 1, 1, 1, 1])]
    }

    /// The type of an operand cast to another type, with the weights
    /// `w` of `i32`, `u32`, `f32` and `bool` (and weight 1 for each small
    /// integer type).
    fn cast_from_ty(&mut self, w: [u32; 4]) -> Ty {
        if !self.f.small_ints {
            return [Ty::I32, Ty::U32, Ty::F32, Ty::Bool][self.rng.weighted(&w)];
        }
        LOCAL_TYPES[self.rng.weighted(&[w[0], w[1], w[2], w[3], 1, 1, 1, 1])]
    }

    /// One kernel: its constants, `run_K`, `host_K` and `SOURCE_K`.
    fn kernel(&mut self, no: usize) -> String {
        let mut consts = String::new();
        for (prefix, ty) in [("i", Ty::I32), ("u", Ty::U32), ("f", Ty::F32)] {
            for j in 0..INPUTS {
                self.push(&format!("{prefix}{j}"), ty, false, Fp::input(1 << j));
            }
        }
        self.push("ci", Ty::I32, false, Fp::input(0));
        self.push("cu", Ty::U32, false, Fp::input(0));
        self.push("cf", Ty::F32, false, Fp::input(1 << INPUTS));
        for j in 0..self.rng.below(3) {
            let ty = if self.f.small_ints {
                let s = u32::from(self.f.small_int_consts);
                [Ty::I32, Ty::U32, Ty::F32, Ty::U8, Ty::I8, Ty::U16, Ty::I16]
                    [self.rng.weighted(&[4, 4, 4, s, s, s, s])]
            } else {
                [Ty::I32, Ty::U32, Ty::F32][self.rng.below(3)]
            };
            let name = format!("C{no}_{j}");
            let value = match ty {
                Ty::F32 => self.float_lit(ANY),
                _ => self.int_lit(ty, false),
            };
            let _ = writeln!(consts, "const {name}: {} = {};", ty.name(), value.k);
            self.push(&name, ty, false, value.fp);
        }

        let helper = if self.f.references && self.rng.chance(50) {
            self.helper_fn(no)
        } else {
            String::new()
        };
        consts.push_str(&helper);

        let (mut kb, mut hb) = (String::new(), String::new());
        kb.push_str("    let wi = idx[0];\n");
        for (prefix, view) in [("i", "xi"), ("u", "xu"), ("f", "xf")] {
            for j in 0..INPUTS {
                let _ = writeln!(kb, "    let {prefix}{j} = {view}[[wi, {j}]];");
                let _ = writeln!(hb, "    let {prefix}{j} = {prefix}[{j}];");
            }
        }
        let n = 2 + self.rng.below(6);
        for _ in 0..n {
            self.stmt(2, "    ", &mut kb, &mut hb);
        }
        let ei = self.ex(Ty::I32, OUT_EXPR_DEPTH, LOOSE);
        let eu = self.ex(Ty::U32, OUT_EXPR_DEPTH, LOOSE);
        let _ = writeln!(kb, "    oi[idx] = {};", ei.k);
        let _ = writeln!(kb, "    ou[idx] = {};", eu.k);
        let _ = writeln!(hb, "    let out_i: i32 = {};", ei.h);
        let _ = writeln!(hb, "    let out_u: u32 = {};", eu.h);
        if self.f.approx_f32 && self.rng.chance(25) {
            let (k, h) = self.approx_f32();
            let _ = writeln!(kb, "    of[idx] = {k};");
            let _ = writeln!(hb, "    let (out_f, alt, tol, zero_sign) = {h};");
        } else {
            let ef = self.ex(Ty::F32, OUT_EXPR_DEPTH, LOOSE);
            let _ = writeln!(kb, "    of[idx] = {};", ef.k);
            let _ = writeln!(
                hb,
                "    let out_f: f32 = {};\n    let (alt, tol, zero_sign) = (out_f, 0.0, {});",
                ef.h, ef.fp.zdef
            );
        }
        hb.push_str("    Want { i: out_i, u: out_u, f: out_f, alt, tol, zero_sign }\n");

        let mut s = String::new();
        let _ = writeln!(s, "// Kernel {no}.");
        s.push_str(&consts);
        let _ = writeln!(
            s,
            "fn run_{no}(view: &AcceleratorView, x: &Inputs, o: &mut Outputs) -> amp_core::Result<()> {{\n    \
             let n = o.i.len() as i32;\n    \
             let xi = ArrayView::new([n, {INPUTS}], &x.i)?;\n    \
             let xu = ArrayView::new([n, {INPUTS}], &x.u)?;\n    \
             let xf = ArrayView::new([n, {INPUTS}], &x.f)?;\n    \
             let (ci, cu, cf) = (x.ci, x.cu, x.cf);\n    \
             let oi = ArrayView::new_mut([n], &mut o.i)?;\n    \
             let ou = ArrayView::new_mut([n], &mut o.u)?;\n    \
             let of = ArrayView::new_mut([n], &mut o.f)?;\n    \
             parallel_for_each!(view, Extent::new([n]), |idx: Index<1>| {{\n{kb}    }})?;\n    \
             oi.synchronize()?;\n    ou.synchronize()?;\n    of.synchronize()\n}}"
        );
        let _ = writeln!(
            s,
            "fn host_{no}(i: [i32; {INPUTS}], u: [u32; {INPUTS}], f: [f32; {INPUTS}], ci: i32, cu: u32, cf: f32) -> Want {{\n{hb}}}"
        );
        let _ = writeln!(
            s,
            "const SOURCE_{no}: &str = r##\"{consts}parallel_for_each!(view, Extent::new([n]), |idx: Index<1>| {{\n{kb}}})\"##;\n"
        );
        s
    }

    /// An `f32` output compared within a tolerance: its kernel text and a
    /// host expression of `(value, other right value, tolerance, false)`.
    fn approx_f32(&mut self) -> (String, String) {
        let d = OUT_EXPR_DEPTH - 1;
        loop {
            match self.rng.below(4) {
                0 => {
                    // A divisor the driver can fold to `0.0` may leave the
                    // output unwritten (`GEN_CONST_ZERO_DIVISOR`); and
                    // `x / x` may be taken for 1.
                    let Some([a, b]) = self.operands::<2>(d, EXACT) else {
                        continue;
                    };
                    if !b.fp.zdef || (!self.f.const_zero_divisor && !b.fp.varies) {
                        continue;
                    }
                    return (
                        format!("({} / {})", a.k, b.k),
                        format!(
                            "{{ let a_: f32 = {}; let b_: f32 = {}; let q_ = a_ / b_; \
                             (q_, q_, 1e-5 * q_.abs(), false) }}",
                            a.h, b.h
                        ),
                    );
                }
                1 => {
                    let a = self.ex(Ty::F32, d, EXACT);
                    if !self.f.const_block_operands && a.has_block() {
                        continue;
                    }
                    return (
                        format!("({}).sqrt()", a.k),
                        format!(
                            "{{ let a_: f32 = {}; let s_ = a_.sqrt(); (s_, s_, 1e-5 * s_.abs(), false) }}",
                            a.h
                        ),
                    );
                }
                n => {
                    let Some([a, b, c]) = self.operands::<3>(d, EXACT) else {
                        continue;
                    };
                    // Either result is right: fused, or not (the product
                    // may overflow where the fused sum does not).
                    let (k, v) = if n == 2 {
                        (
                            format!("(({} * {}) + {})", a.k, b.k, c.k),
                            "(a_ * b_) + c_, f32::mul_add(a_, b_, c_)",
                        )
                    } else {
                        (
                            format!("({}).mul_add({}, {})", a.k, b.k, c.k),
                            "f32::mul_add(a_, b_, c_), (a_ * b_) + c_",
                        )
                    };
                    return (
                        k,
                        format!(
                            "{{ let a_: f32 = {}; let b_: f32 = {}; let c_: f32 = {}; \
                             ({v}, 1e-6 * ((a_ * b_).abs() + c_.abs()), false) }}",
                            a.h, b.h, c.h
                        ),
                    );
                }
            }
        }
    }

    // ----- statements -----

    /// One statement (with a newline) appended to `k` and `h`.
    fn stmt(&mut self, depth: u32, ind: &str, k: &mut String, h: &mut String) {
        let has_compound = self.pick_mut(&COMPOUND_TYPES).is_some();
        let has_mut = self.pick_mut(&LOCAL_TYPES).is_some();
        let weights = [
            30,
            if has_mut { 15 } else { 0 },
            if has_compound { 20 } else { 0 },
            if depth > 0 { 10 } else { 0 },
            if depth > 0 { 10 } else { 0 },
            if depth > 0 { 3 } else { 0 },
            if self.in_loop { 6 } else { 0 },
            2,
            if self.f.references && has_compound {
                6
            } else {
                0
            },
            if self.helper.is_some() { 10 } else { 0 },
        ];
        match self.rng.weighted(&weights) {
            0 => {
                let (sk, sh) = self.let_stmt();
                let _ = writeln!(k, "{ind}{sk}");
                let _ = writeln!(h, "{ind}{sh}");
            }
            1 | 2 => {
                let (sk, sh) = self
                    .assign_stmt(STMT_EXPR_DEPTH, true)
                    .expect("a mutable local");
                let _ = writeln!(k, "{ind}{sk}");
                let _ = writeln!(h, "{ind}{sh}");
            }
            3 => {
                let c = self.ex(Ty::Bool, STMT_EXPR_DEPTH, ANY);
                let _ = writeln!(k, "{ind}if {} {{", c.k);
                let _ = writeln!(h, "{ind}if {} {{", c.h);
                self.block(depth - 1, ind, k, h);
                if self.rng.chance(60) {
                    let _ = writeln!(k, "{ind}}} else {{");
                    let _ = writeln!(h, "{ind}}} else {{");
                    self.block(depth - 1, ind, k, h);
                }
                let _ = writeln!(k, "{ind}}}");
                let _ = writeln!(h, "{ind}}}");
            }
            4 => self.for_stmt(depth, ind, k, h),
            5 => {
                let w = self.fresh("w");
                let limit = self.rng.between(0, 5);
                let _ = writeln!(k, "{ind}let mut {w}: i32 = 0;\n{ind}while {w} < {limit} {{");
                let _ = writeln!(h, "{ind}let mut {w}: i32 = 0;\n{ind}while {w} < {limit} {{");
                let _ = writeln!(k, "{ind}    {w} += 1;");
                let _ = writeln!(h, "{ind}    {w} += 1;");
                let mark = self.vars.len();
                self.push(&w, Ty::I32, false, Fp::EXACT);
                let in_loop = std::mem::replace(&mut self.in_loop, true);
                self.block(depth - 1, ind, k, h);
                self.in_loop = in_loop;
                self.vars.truncate(mark);
                // The counter stays readable after the loop.
                self.push(&w, Ty::I32, false, Fp::EXACT);
                let _ = writeln!(k, "{ind}}}");
                let _ = writeln!(h, "{ind}}}");
            }
            6 => {
                let c = self.ex(Ty::Bool, 2, ANY);
                let what = if self.rng.chance(50) {
                    "break"
                } else {
                    "continue"
                };
                let _ = writeln!(k, "{ind}if {} {{ {what}; }}", c.k);
                let _ = writeln!(h, "{ind}if {} {{ {what}; }}", c.h);
            }
            7 => {
                let ty = self.any_ty();
                let e = self.ex(ty, STMT_EXPR_DEPTH, ANY);
                let _ = writeln!(k, "{ind}let _ = {};", e.k);
                let _ = writeln!(h, "{ind}let _ = {};", e.h);
            }
            8 => self.ref_stmt(ind, k, h),
            _ => self.call_stmt(ind, k, h),
        }
    }

    /// One to three statements in a new scope, indented one level more.
    fn block(&mut self, depth: u32, ind: &str, k: &mut String, h: &mut String) {
        let mark = self.vars.len();
        let inner = format!("{ind}    ");
        for _ in 0..1 + self.rng.below(3) {
            self.stmt(depth, &inner, k, h);
        }
        self.vars.truncate(mark);
    }

    fn let_stmt(&mut self) -> (String, String) {
        let ty = self.any_ty();
        let mutable = self.rng.chance(60);
        let fp = if ty == Ty::F32 {
            Fp {
                rounded: self.rng.chance(50),
                nan: self.rng.chance(70),
                zdef: self.rng.chance(30),
                varies: false,
                rnd: self.rng.chance(50),
                fin: self.rng.chance(30),
                srcs: 0,
            }
        } else {
            Fp::EXACT
        };
        let annotate = ty == Ty::F32 || self.rng.chance(70);
        let mut req = Req::store(fp);
        req.untyped = annotate;
        let init = self.ex(ty, STMT_EXPR_DEPTH, req);
        let name = self.fresh("v");
        let m = if mutable { "mut " } else { "" };
        let t = if annotate {
            format!(": {}", ty.name())
        } else {
            String::new()
        };
        self.push(&name, ty, mutable, fp);
        (
            format!("let {m}{name}{t} = {};", init.k),
            format!("let {m}{name}{t} = {};", init.h),
        )
    }

    /// The index of a random assignable local of one of `types`.
    fn pick_mut(&mut self, types: &[Ty]) -> Option<usize> {
        if self.no_mut {
            return None;
        }
        let c: Vec<usize> = (0..self.vars.len())
            .filter(|&i| {
                let v = &self.vars[i];
                v.mutable && !v.frozen && !v.hidden && types.contains(&v.ty)
            })
            .collect();
        if c.is_empty() {
            None
        } else {
            Some(c[self.rng.below(c.len())])
        }
    }

    /// An assignment (`v = e;`) or compound assignment (`v op= e;`) to an
    /// assignable local, or `None` if there is none.
    fn assign_stmt(&mut self, d: u32, compound_ok: bool) -> Option<(String, String)> {
        let compound =
            compound_ok && self.rng.chance(55) && self.pick_mut(&COMPOUND_TYPES).is_some();
        if !compound {
            let i = self.pick_mut(&LOCAL_TYPES)?;
            let (name, ty, fp) = (self.vars[i].name.clone(), self.vars[i].ty, self.vars[i].fp);
            let e = self.ex(ty, d, Req::store(fp));
            return Some((format!("{name} = {};", e.k), format!("{name} = {};", e.h)));
        }
        let i = self.pick_mut(&COMPOUND_TYPES)?;
        let (name, ty) = (self.vars[i].name.clone(), self.vars[i].ty);
        if !self.f.self_mutating_compound {
            self.vars[i].frozen = true;
        }
        let result = self.compound(&name, ty, d);
        self.vars[i].frozen = false;
        Some(result)
    }

    /// `target op= e;` for a `target` of type `ty` (a local, or `*r`):
    /// kernel and host texts (the host evaluates `e` first, then applies
    /// the operation with the kernels' meaning).
    fn compound(&mut self, name: &str, ty: Ty, d: u32) -> (String, String) {
        let t = ty.name();
        if ty == Ty::Bool {
            let ops: &[&str] = if self.f.bool_xor {
                &["&", "|", "^"]
            } else {
                &["&", "|"]
            };
            let op = ops[self.rng.below(ops.len())];
            let e = self.ex(Ty::Bool, d, LOOSE);
            (
                format!("{name} {op}= {};", e.k),
                format!("{{ let r_ = {}; {name} = {name} {op} r_; }}", e.h),
            )
        } else {
            let op = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"][self.rng.below(10)];
            let e = if op == "<<" || op == ">>" {
                let st = self.any_int_ty();
                self.ex(st, d, ANY)
            } else {
                self.ex(ty, d, LOOSE)
            };
            let update = match op {
                "+" => format!("{t}::wrapping_add({name}, r_)"),
                "-" => format!("{t}::wrapping_sub({name}, r_)"),
                "*" => format!("{t}::wrapping_mul({name}, r_)"),
                "/" => format!("h::div_{t}({name}, r_)"),
                "%" => format!("h::rem_{t}({name}, r_)"),
                "<<" => format!("h::shl_{t}({name}, r_ as u32)"),
                ">>" => format!("h::shr_{t}({name}, r_ as u32)"),
                _ => format!("{name} {op} r_"),
            };
            (
                format!("{name} {op}= {};", e.k),
                format!("{{ let r_ = {}; {name} = {update}; }}", e.h),
            )
        }
    }

    /// A `#[kernel]` helper of the kernel, `fun<no>(a: &mut T, b: U, c: f32)`,
    /// that changes `*a` once or twice from `b`, `c`, literals and
    /// constants, and its
    /// host copy `hfun<no>` (plain Rust, the kernels' operations spelled out):
    /// both texts, to go before the kernel.
    fn helper_fn(&mut self, no: usize) -> String {
        // Mostly the types most locals have, so that calls find targets.
        let t = COMPOUND_TYPES[self.rng.weighted(&[4, 4, 2, 1, 1, 1, 1])];
        let u = self.any_ty();
        let name = format!("fun{no}");
        // The body sees its value parameter and the kernel's constants.
        let saved: Vec<Var> = std::mem::take(&mut self.vars);
        self.vars = saved
            .iter()
            .filter(|v| v.name.starts_with('C'))
            .map(|v| Var {
                name: v.name.clone(),
                ty: v.ty,
                mutable: false,
                frozen: false,
                hidden: false,
                fp: v.fp,
            })
            .collect();
        self.push("b", u, false, Fp::input(1 << (INPUTS + 1)));
        // A float that varies, which some expressions need.
        self.push("c", Ty::F32, false, Fp::input(1 << (INPUTS + 2)));
        self.no_inputs = true;
        let (mut kb, mut hb) = (String::new(), String::new());
        for _ in 0..1 + self.rng.below(2) {
            let (sk, sh) = if self.rng.chance(60) {
                self.compound("*a", t, 2)
            } else {
                let e = self.ex(t, 2, Req::store(Fp::EXACT));
                (format!("*a = {};", e.k), format!("*a = {};", e.h))
            };
            let _ = writeln!(kb, "    {sk}");
            let _ = writeln!(hb, "    {sh}");
        }
        self.no_inputs = false;
        self.vars = saved;
        self.helper = Some((name.clone(), t, u));
        let (tn, un) = (t.name(), u.name());
        format!(
            "#[amp_core::kernel]\n#[allow(unused_variables)]\nfn {name}(a: &mut {tn}, b: {un}, c: f32) {{\n{kb}}}\n\
             #[allow(unused_parens, unused_variables, clippy::all)]\nfn h{name}(a: &mut {tn}, b: {un}, c: f32) {{\n{hb}}}\n"
        )
    }

    /// A call of the kernel's helper that passes the reference `target`:
    /// kernel and host statements (the value argument cannot read the
    /// locals the reference borrows: they are hidden).
    fn helper_call(&mut self, target: &str) -> (String, String) {
        let (name, _, u) = self.helper.clone().expect("a helper");
        let e = self.ex(u, 2, LOOSE);
        let f = self.ex(Ty::F32, 2, LOOSE);
        (
            format!("{name}({target}, {}, {});", e.k, f.k),
            format!("h{name}({target}, {}, {});", e.h, f.h),
        )
    }

    /// `f(&mut v, e);` or `f(if c { &mut a } else { &mut b }, e);` with
    /// the kernel's helper, on assignable locals of its parameter's type
    /// (`e` generated with them hidden: Rust evaluates it while they are
    /// borrowed).
    fn call_stmt(&mut self, ind: &str, k: &mut String, h: &mut String) {
        let Some((name, t, u)) = self.helper.clone() else {
            return;
        };
        let a = match self.pick_mut(&[t]) {
            Some(a) => a,
            None => {
                // A local to pass, declared here.
                let e = self.ex(t, 2, Req::store(Fp::EXACT));
                let v = self.fresh("v");
                let tn = t.name();
                let _ = writeln!(k, "{ind}let mut {v}: {tn} = {};", e.k);
                let _ = writeln!(h, "{ind}let mut {v}: {tn} = {};", e.h);
                self.push(&v, t, true, Fp::EXACT);
                self.vars.len() - 1
            }
        };
        // Another local where there is one.
        let b = (0..4)
            .filter_map(|_| self.pick_mut(&[t]))
            .find(|&b| b != a)
            .unwrap_or(a);
        let (an, bn) = (self.vars[a].name.clone(), self.vars[b].name.clone());
        let (tk, th) = if self.rng.chance(40) {
            (format!("&mut {an}"), format!("&mut {an}"))
        } else {
            let c = self.ex(Ty::Bool, 2, ANY);
            (
                format!("if {} {{ &mut {an} }} else {{ &mut {bn} }}", c.k),
                format!("if {} {{ &mut {an} }} else {{ &mut {bn} }}", c.h),
            )
        };
        self.vars[a].hidden = true;
        self.vars[b].hidden = true;
        let e = self.ex(u, 2, LOOSE);
        let f = self.ex(Ty::F32, 2, LOOSE);
        self.vars[a].hidden = false;
        self.vars[b].hidden = false;
        let _ = writeln!(k, "{ind}{name}({tk}, {}, {});", e.k, f.k);
        let _ = writeln!(h, "{ind}h{name}({th}, {}, {});", e.h, f.h);
    }

    /// A block with a reference to one of two assignable locals of one
    /// type (`let r = &mut a;`, `let r = if c { &mut a } else { &mut b
    /// };`, or `let r; r = &mut a;`), written through once or twice
    /// (`*r = e;`, `*r op= e;`): the same Rust on both sides. While the
    /// reference lives, neither local is read or written.
    fn ref_stmt(&mut self, ind: &str, k: &mut String, h: &mut String) {
        let Some(a) = self.pick_mut(&COMPOUND_TYPES) else {
            return;
        };
        let ty = self.vars[a].ty;
        let others: Vec<usize> = (0..self.vars.len())
            .filter(|&i| {
                let v = &self.vars[i];
                v.mutable && !v.frozen && !v.hidden && v.ty == ty
            })
            .collect();
        let b = others[self.rng.below(others.len())];
        let (an, bn) = (self.vars[a].name.clone(), self.vars[b].name.clone());
        let r = self.fresh("r");
        let t = ty.name();
        let inner = format!("{ind}    ");
        let (bk, bh) = match self.rng.below(3) {
            0 => {
                let s = format!("let {r} = &mut {an};");
                (s.clone(), s)
            }
            1 => {
                // The condition is evaluated before either borrow starts.
                let c = self.ex(Ty::Bool, 2, ANY);
                (
                    format!("let {r} = if {} {{ &mut {an} }} else {{ &mut {bn} }};", c.k),
                    format!("let {r} = if {} {{ &mut {an} }} else {{ &mut {bn} }};", c.h),
                )
            }
            _ => {
                let ann = if self.rng.chance(50) {
                    format!(": &mut {t}")
                } else {
                    String::new()
                };
                let s = format!("let {r}{ann};\n{inner}{r} = &mut {an};");
                (s.clone(), s)
            }
        };
        let _ = writeln!(k, "{ind}{{\n{inner}{bk}");
        let _ = writeln!(h, "{ind}{{\n{inner}{bh}");
        self.vars[a].hidden = true;
        self.vars[b].hidden = true;
        let target = format!("*{r}");
        let callable = self.helper.as_ref().is_some_and(|(_, t, _)| *t == ty);
        for _ in 0..1 + self.rng.below(2) {
            let (sk, sh) = if callable && self.rng.chance(40) {
                self.helper_call(&r)
            } else if self.rng.chance(60) {
                self.compound(&target, ty, STMT_EXPR_DEPTH)
            } else {
                let e = self.ex(ty, STMT_EXPR_DEPTH, Req::store(Fp::EXACT));
                (
                    format!("{target} = {};", e.k),
                    format!("{target} = {};", e.h),
                )
            };
            let _ = writeln!(k, "{inner}{sk}");
            let _ = writeln!(h, "{inner}{sh}");
        }
        self.vars[a].hidden = false;
        self.vars[b].hidden = false;
        let _ = writeln!(k, "{ind}}}");
        let _ = writeln!(h, "{ind}}}");
    }

    fn for_stmt(&mut self, depth: u32, ind: &str, k: &mut String, h: &mut String) {
        let lt = self.any_int_ty();
        let (rk, rh) = self.range(lt);
        let var = if self.rng.chance(10) {
            "_".to_string()
        } else {
            self.fresh("k")
        };
        let mark = self.vars.len();
        let _ = writeln!(k, "{ind}for {var} in {rk} {{");
        let _ = writeln!(h, "{ind}for {var} in {rh} {{");
        if var != "_" {
            self.push(&var, lt, false, Fp::EXACT);
        }
        let in_loop = std::mem::replace(&mut self.in_loop, true);
        // Loop bodies mostly update what is outside: compound assignments.
        let inner = format!("{ind}    ");
        for _ in 0..1 + self.rng.below(3) {
            if self.rng.chance(40)
                && let Some((sk, sh)) = self.assign_stmt(STMT_EXPR_DEPTH, true)
            {
                let _ = writeln!(k, "{inner}{sk}");
                let _ = writeln!(h, "{inner}{sh}");
            } else {
                self.stmt(depth - 1, &inner, k, h);
            }
        }
        self.in_loop = in_loop;
        self.vars.truncate(mark);
        let _ = writeln!(k, "{ind}}}");
        let _ = writeln!(h, "{ind}}}");
    }

    /// A `for` range over `lt`: kernel and host texts.
    fn range(&mut self, lt: Ty) -> (String, String) {
        let t = lt.name();
        let lo = if lt.signed() {
            self.rng.between(-4, 4)
        } else {
            self.rng.between(0, 4)
        };
        let hi = lo + self.rng.between(0, 6);
        let step = self.rng.between(1, 3);
        let same = |s: String| (s.clone(), s);
        match self.rng.below(8) {
            0 => same(format!("{lo}{t}..{hi}")),
            1 => same(format!("{lo}{t}..={hi}")),
            2 => same(format!("({lo}{t}..{hi}).step_by({step})")),
            3 => same(format!("({lo}{t}..{hi}).rev()")),
            4 => same(format!("({lo}{t}..={hi}).rev()")),
            5 => same(format!("({lo}{t}..{hi}).step_by({step}).rev()")),
            6 => {
                let e = self.ex(lt, 2, ANY);
                (
                    format!("{lo}{t}..({} & 7)", e.k),
                    format!("{lo}{t}..({} & 7)", e.h),
                )
            }
            _ => {
                let e = self.ex(lt, 2, ANY);
                (
                    format!("({lo}{t}..{hi}).step_by((({} & 3) + 1) as usize)", e.k),
                    format!("({lo}{t}..{hi}).step_by((({} & 3) + 1) as usize)", e.h),
                )
            }
        }
    }

    // ----- expressions -----

    /// An expression of type `ty` at most `d` deep, satisfying `req`.
    fn ex(&mut self, ty: Ty, d: u32, req: Req) -> Ex {
        if d == 0 || self.rng.chance(20) {
            let e = self.leaf(ty, req);
            debug_assert!(ty != Ty::F32 || req.ok(e.fp), "{} for {req:?}", e.k);
            return e;
        }
        loop {
            let e = match ty {
                Ty::I32 | Ty::U32 | Ty::U8 | Ty::I8 | Ty::U16 | Ty::I16 => self.int_node(ty, d),
                Ty::F32 => self.float_node(d, req),
                Ty::Bool => self.bool_node(d),
            };
            if let Some(e) = e {
                debug_assert!(ty != Ty::F32 || req.ok(e.fp), "{} for {req:?}", e.k);
                return e;
            }
        }
    }

    /// A variable, literal, constant or input of type `ty`.
    fn leaf(&mut self, ty: Ty, req: Req) -> Ex {
        // Only inputs vary, and they may be NaN.
        debug_assert!(
            !(req.varies && (req.no_nan || req.fin)),
            "unsatisfiable {req:?}"
        );
        loop {
            match self.rng.weighted(&[50, 25, 10, 15]) {
                0 => {
                    let c: Vec<usize> = (0..self.vars.len())
                        .filter(|&i| {
                            let v = &self.vars[i];
                            !v.hidden && v.ty == ty && (ty != Ty::F32 || req.ok(v.fp))
                        })
                        .collect();
                    if !c.is_empty() {
                        let v = &self.vars[c[self.rng.below(c.len())]];
                        return Ex::same(v.name.clone()).with(v.fp);
                    }
                }
                1 => {
                    if ty == Ty::F32 && req.varies {
                        continue;
                    }
                    return match ty {
                        Ty::Bool => Ex::same(["true", "false"][self.rng.below(2)].to_string()),
                        Ty::F32 => self.float_lit(req),
                        _ => self.int_lit(ty, req.untyped),
                    };
                }
                2 => {
                    if !self.no_inputs && ty != Ty::Bool && (ty != Ty::F32 || req.ok(Fp::input(0)))
                    {
                        // A small integer: an `i32` or `u32` input cast.
                        let src = if ty.small() {
                            INT_TYPES[self.rng.below(2)]
                        } else {
                            ty
                        };
                        let (p, view) = match src {
                            Ty::I32 => ("i", "xi"),
                            Ty::U32 => ("u", "xu"),
                            _ => ("f", "xf"),
                        };
                        let j = self.rng.below(INPUTS);
                        let e = if self.rng.chance(70) {
                            let fp = Fp::input(if ty == Ty::F32 { 1 << j } else { 0 });
                            Ex::new(format!("{view}[[wi, {j}]]"), format!("{p}[{j}]")).with(fp)
                        } else {
                            // An index computed at run time.
                            let s = self.ex(Ty::U32, 1, ANY);
                            let every = (1 << INPUTS) - 1;
                            let fp = Fp::input(if ty == Ty::F32 { every } else { 0 });
                            Ex::new(
                                format!("{view}[[wi, ({} % {INPUTS}) as i32]]", s.k),
                                format!("{p}[({} % {INPUTS}) as usize]", s.h),
                            )
                            .with(fp)
                        };
                        if ty.small() {
                            let t = ty.name();
                            return Ex::new(
                                format!("({} as {t})", e.k),
                                format!("({} as {t})", e.h),
                            );
                        }
                        return e;
                    }
                }
                _ => {
                    if ty == Ty::F32 && req.varies {
                        continue;
                    }
                    if ty == Ty::F32 {
                        let it = self.any_int_ty();
                        let e = self.leaf(it, ANY);
                        return Ex::new(format!("({} as f32)", e.k), format!("({} as f32)", e.h));
                    }
                    if ty == Ty::Bool {
                        let ct = self.any_int_ty();
                        let a = self.leaf(ct, ANY);
                        let b = self.leaf(ct, LOOSE);
                        let op = ["==", "!=", "<", "<=", ">", ">="][self.rng.below(6)];
                        return Ex::new(
                            format!("({} {op} {})", a.k, b.k),
                            format!("({} {op} {})", a.h, b.h),
                        );
                    }
                    if ty.small() && self.rng.chance(50) {
                        // Another integer, truncated.
                        let it = self.any_int_ty();
                        let e = self.leaf(it, ANY);
                        let t = ty.name();
                        return Ex::new(format!("({} as {t})", e.k), format!("({} as {t})", e.h));
                    }
                    let e = self.int_lit(ty, req.untyped);
                    return e;
                }
            }
        }
    }

    fn int_lit(&mut self, ty: Ty, untyped_ok: bool) -> Ex {
        if ty.small() {
            return self.small_lit(ty, untyped_ok);
        }
        let t = ty.name();
        let v: i64 = if ty == Ty::I32 {
            const VALUES: [i64; 24] = [
                0,
                1,
                -1,
                2,
                -2,
                3,
                -3,
                5,
                7,
                8,
                16,
                31,
                32,
                33,
                -32,
                63,
                100,
                -128,
                255,
                1000,
                65536,
                i32::MAX as i64,
                i32::MIN as i64,
                -7,
            ];
            match self.rng.below(4) {
                0 => i64::from(self.rng.next() as u32 as i32),
                _ => VALUES[self.rng.below(VALUES.len())],
            }
        } else {
            const VALUES: [i64; 20] = [
                0,
                1,
                2,
                3,
                5,
                7,
                8,
                16,
                31,
                32,
                33,
                63,
                100,
                255,
                1000,
                65535,
                65536,
                0x8000_0000,
                0xffff_ffff,
                0xdead_beef,
            ];
            match self.rng.below(4) {
                0 => i64::from(self.rng.next() as u32),
                _ => VALUES[self.rng.below(VALUES.len())],
            }
        };
        if ty == Ty::I32 && v == i64::from(i32::MIN) {
            return Ex::same("i32::MIN".into());
        }
        if self.rng.chance(50)
            && ((ty == Ty::I32 && v == i64::from(i32::MAX))
                || (ty == Ty::U32 && v == i64::from(u32::MAX)))
        {
            return Ex::same(format!("{t}::MAX"));
        }
        let untyped = untyped_ok && v.abs() < 30000 && self.rng.chance(50);
        let suffix = if untyped { "" } else { t };
        let digits = if v >= 0 && self.rng.chance(15) {
            format!("{v:#x}")
        } else {
            v.abs().to_string()
        };
        let text = if v < 0 {
            format!("(-{digits}{suffix})")
        } else {
            format!("{digits}{suffix}")
        };
        let mut e = Ex::same(text);
        e.untyped = untyped;
        e
    }

    /// A literal of a small integer type (in range; a negative one
    /// `(-5i8)`, `(-128i8)` included).
    fn small_lit(&mut self, ty: Ty, untyped_ok: bool) -> Ex {
        const VALUES: [i64; 33] = [
            0, 1, -1, 2, -2, 3, -3, 5, -7, 7, 8, 15, 16, 31, 32, 33, -32, 63, 64, 100, -100, 127,
            -128, 128, 200, 255, 256, 1000, -1000, 32767, -32768, 32768, 65535,
        ];
        let t = ty.name();
        let (lo, hi) = ty.range();
        let v: i64 = match self.rng.below(4) {
            0 => {
                let bits = self.rng.next();
                match ty {
                    Ty::U8 => i64::from(bits as u8),
                    Ty::I8 => i64::from(bits as u8 as i8),
                    Ty::U16 => i64::from(bits as u16),
                    _ => i64::from(bits as u16 as i16),
                }
            }
            _ => {
                let fit: Vec<i64> = VALUES
                    .iter()
                    .copied()
                    .filter(|v| (lo..=hi).contains(v))
                    .collect();
                fit[self.rng.below(fit.len())]
            }
        };
        if self.f.small_int_consts && (v == hi || (ty.signed() && v == lo)) && self.rng.chance(40) {
            let which = if v == hi { "MAX" } else { "MIN" };
            return Ex::same(format!("{t}::{which}"));
        }
        let untyped = untyped_ok && self.rng.chance(50);
        let suffix = if untyped { "" } else { t };
        let digits = if v >= 0 && self.rng.chance(15) {
            format!("{v:#x}")
        } else {
            v.abs().to_string()
        };
        let text = if v == lo && v < 0 && !self.f.small_min_literal {
            format!("(-{}{suffix} - 1)", -v - 1)
        } else if v < 0 {
            format!("(-{digits}{suffix})")
        } else {
            format!("{digits}{suffix}")
        };
        let mut e = Ex::same(text);
        e.untyped = untyped;
        e
    }

    fn float_lit(&mut self, req: Req) -> Ex {
        // (path, NaN, finite)
        const PATHS: [(&str, bool, bool); 5] = [
            ("f32::INFINITY", false, false),
            ("f32::NEG_INFINITY", false, false),
            ("f32::NAN", true, false),
            ("f32::EPSILON", false, true),
            ("std::f32::consts::PI", false, true),
        ];
        const VALUES: [f32; 20] = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.0,
            3.0,
            -3.5,
            10.0,
            0.1,
            100.0,
            1e30,
            -1e30,
            1e-3,
            0.75,
            2147483648.0,
            -2147483904.0,
            4294967040.0,
            16777216.0,
        ];
        loop {
            match self.rng.below(6) {
                0 => {
                    let (p, nan, fin) = PATHS[self.rng.below(PATHS.len())];
                    let fp = Fp {
                        nan,
                        fin,
                        ..Fp::EXACT
                    };
                    if !req.ok(fp) {
                        continue;
                    }
                    return Ex::same(p.to_string()).with(fp);
                }
                n => {
                    let v = if n == 1 {
                        self.rng.between(-80, 80) as f32 / 4.0
                    } else {
                        VALUES[self.rng.below(VALUES.len())]
                    };
                    let untyped = req.untyped && self.rng.chance(50);
                    let suffix = if untyped { "" } else { "f32" };
                    let text = if v.is_sign_negative() {
                        format!("(-{:?}{suffix})", -v)
                    } else {
                        format!("{v:?}{suffix}")
                    };
                    let mut e = Ex::same(text);
                    e.untyped = untyped;
                    return e;
                }
            }
        }
    }

    /// `if c { a } else { b }`.
    fn if_ex(&mut self, ty: Ty, d: u32, req: Req) -> Ex {
        let c = self.ex(Ty::Bool, d - 1, ANY);
        let a = self.branch(ty, d - 1, req.typed());
        let b = self.branch(ty, d - 1, req.typed());
        let mut fp = a.fp.join(b.fp);
        if ty == Ty::F32 && !self.f.selected_zero_sign && !a.fp.varies && !b.fp.varies {
            // The driver may select between constants without their zero
            // signs (`GEN_SELECTED_ZERO_SIGN`).
            fp.zdef = false;
        }
        Ex::new(
            format!("(if {} {{ {} }} else {{ {} }})", c.k, a.k, b.k),
            format!("(if {} {{ {} }} else {{ {} }})", c.h, a.h, b.h),
        )
        .with(fp)
    }

    /// The inside of a branch: an expression, sometimes after an
    /// assignment.
    fn branch(&mut self, ty: Ty, d: u32, req: Req) -> Ex {
        let pre = if self.rng.chance(20) {
            let in_loop = std::mem::replace(&mut self.in_loop, false);
            let s = self.assign_stmt(d.min(2), true);
            self.in_loop = in_loop;
            s
        } else {
            None
        };
        let e = self.ex(ty, d, req);
        match pre {
            Some((sk, sh)) => {
                let fp = e.fp;
                Ex::new(format!("{sk} {}", e.k), format!("{sh} {}", e.h)).with(fp)
            }
            None => e,
        }
    }

    /// `{ let v: T = e; body }`.
    fn let_block(&mut self, ty: Ty, d: u32, req: Req) -> Ex {
        let vt = self.any_ty();
        let init = self.ex(vt, d - 1, LOOSE);
        let name = self.fresh("v");
        let mark = self.vars.len();
        self.push(&name, vt, false, init.fp);
        let body = self.ex(ty, d - 1, req.typed());
        self.vars.truncate(mark);
        let t = vt.name();
        let fp = body.fp;
        Ex::new(
            format!("({{ let {name}: {t} = {}; {} }})", init.k, body.k),
            format!("({{ let {name}: {t} = {}; {} }})", init.h, body.h),
        )
        .with(fp)
    }

    /// A `let` block written as a closure, inlined by the kernel compiler
    /// and a real closure on the host: called where it is written,
    /// `((|v: T| body)(init))`, or bound by `let` and called by name,
    /// `({ let f = |v: T| body; f(init) })`. Neither the body nor the
    /// argument assigns anything: on the host the closure borrows what its
    /// body reads from its creation, before the argument is evaluated.
    fn closure_block(&mut self, ty: Ty, d: u32, req: Req) -> Ex {
        let vt = self.any_ty();
        let no_mut = std::mem::replace(&mut self.no_mut, true);
        let init = self.ex(vt, d - 1, LOOSE);
        let name = self.fresh("v");
        let bound = self.rng.chance(50);
        let mark = self.vars.len();
        self.push(&name, vt, false, init.fp);
        let body = self.ex(ty, d - 1, req.typed());
        self.vars.truncate(mark);
        self.no_mut = no_mut;
        let t = vt.name();
        let fp = body.fp;
        let text = |init: &str, body: &str, f: &str| {
            if bound {
                format!("({{ let {f} = |{name}: {t}| {body}; {f}({init}) }})")
            } else {
                format!("((|{name}: {t}| {body})({init}))")
            }
        };
        // Not `f1` or `f2`, which would hide the inputs of those names
        // from the argument.
        let f = self.fresh("g");
        Ex::new(text(&init.k, &body.k, &f), text(&init.h, &body.h, &f)).with(fp)
    }

    /// `{ v op= e; body }`, or `None` without an assignable local.
    fn mut_block(&mut self, ty: Ty, d: u32, req: Req) -> Option<Ex> {
        let in_loop = std::mem::replace(&mut self.in_loop, false);
        let s = self.assign_stmt(d - 1, true);
        self.in_loop = in_loop;
        let (sk, sh) = s?;
        let body = self.ex(ty, d - 1, req.typed());
        let fp = body.fp;
        Some(
            Ex::new(
                format!("({{ {sk} {} }})", body.k),
                format!("({{ {sh} {} }})", body.h),
            )
            .with(fp),
        )
    }

    /// A `match` on an integer, with values of type `ty`.
    fn match_ex(&mut self, ty: Ty, d: u32, req: Req) -> Ex {
        let st = self.any_int_ty();
        let s = self.ex(st, d - 1, ANY);
        let req = req.typed();
        let mut fp: Option<Fp> = None;
        let mut ak = Vec::new();
        let mut ah = Vec::new();
        // Arms whose values the driver may know.
        let mut fixed = 0;
        let arms = 1 + self.rng.below(3);
        for arm in 0..=arms {
            let last = arm == arms;
            let mark = self.vars.len();
            // The last arm is `_` or a binding without a guard.
            let (pk, ph) = if last || self.rng.chance(20) {
                if self.rng.chance(50) {
                    ("_".to_string(), "_".to_string())
                } else {
                    let m = self.fresh("m");
                    self.push(&m, st, false, Fp::EXACT);
                    if last {
                        (m.clone(), m)
                    } else {
                        let no_mut = std::mem::replace(&mut self.no_mut, true);
                        let g = self.ex(Ty::Bool, 2, ANY);
                        self.no_mut = no_mut;
                        (format!("{m} if {}", g.k), format!("{m} if {}", g.h))
                    }
                }
            } else {
                let p = self.pattern(st);
                (p.clone(), p)
            };
            // A binding without a guard matches everything: it ends the
            // arms.
            let ends = pk == "_" || !pk.contains(" if ") && pk.starts_with('m');
            let v = self.ex(ty, d - 1, req);
            self.vars.truncate(mark);
            fp = Some(fp.map_or(v.fp, |f| f.join(v.fp)));
            fixed += usize::from(!v.fp.varies);
            ak.push(format!("{pk} => {}", v.k));
            ah.push(format!("{ph} => {}", v.h));
            if ends {
                break;
            }
        }
        Ex::new(
            format!("(match {} {{ {} }})", s.k, ak.join(", ")),
            format!("(match {} {{ {} }})", s.h, ah.join(", ")),
        )
        .with(Fp {
            // As in `if_ex` (`GEN_SELECTED_ZERO_SIGN`).
            zdef: fp.is_some_and(|f| f.zdef)
                && (ty != Ty::F32 || self.f.selected_zero_sign || fixed < 2),
            ..fp.expect("an arm")
        })
    }

    /// A refutable pattern over `st`.
    fn pattern(&mut self, st: Ty) -> String {
        let lit = |g: &mut Gen| -> i64 {
            if st.signed() {
                g.rng.between(-8, 8)
            } else {
                g.rng.between(0, 8)
            }
        };
        match self.rng.below(6) {
            0 | 1 => lit(self).to_string(),
            2 => {
                let n = 2 + self.rng.below(2);
                (0..n)
                    .map(|_| lit(self).to_string())
                    .collect::<Vec<_>>()
                    .join(" | ")
            }
            3 => {
                let a = lit(self);
                let b = a + self.rng.between(0, 5);
                if self.rng.chance(50) {
                    format!("{a}..={b}")
                } else {
                    format!("{a}..{}", b + 1)
                }
            }
            4 => {
                let a = lit(self);
                format!("{a}..")
            }
            _ => {
                let consts: Vec<String> = self
                    .vars
                    .iter()
                    .filter(|v| v.ty == st && v.name.starts_with('C'))
                    .map(|v| v.name.clone())
                    .collect();
                if consts.is_empty() {
                    let t = st.name();
                    let (lo, hi) = st.range();
                    let v = if st.signed() {
                        ["MIN", "MAX"][self.rng.below(2)]
                    } else {
                        "MAX"
                    };
                    if !st.small() || self.f.small_int_consts {
                        format!("{t}::{v}")
                    } else if v == "MIN" && self.f.small_min_literal {
                        lo.to_string()
                    } else {
                        hi.to_string()
                    }
                } else {
                    consts[self.rng.below(consts.len())].clone()
                }
            }
        }
    }

    /// An expression with an operator or call at the top, of the integer
    /// type `ty`, or `None` to draw again. Small integer types get no bit
    /// functions (`rotate_*`, `reverse_bits`, ...) and no `*_euclid`.
    fn int_node(&mut self, ty: Ty, d: u32) -> Option<Ex> {
        let t = ty.name();
        let signed = |w: u32| if ty.signed() { w } else { 0 };
        let unsigned = |w: u32| if ty.signed() { 0 } else { w };
        let u32_only = |w: u32| if ty == Ty::U32 { w } else { 0 };
        let wide = |w: u32| if ty.small() { 0 } else { w };
        let unsigned_neg = self.f.wrapping_neg && (!ty.small() || self.f.small_wrapping_neg);
        let weights = [
            20,
            8,
            6,
            5,
            6,
            4,
            2,
            signed(3) + if unsigned_neg { unsigned(2) } else { 0 },
            2,
            wide(2),
            wide(3),
            wide(1),
            u32_only(4),
            u32_only(2),
            8,
            5,
            3,
            4,
            if self.f.matches { 3 } else { 0 },
            u32_only(2),
        ];
        let e = match self.rng.weighted(&weights) {
            0 => {
                let op = ["+", "-", "*", "/", "%"][self.rng.below(5)];
                let a = self.ex(ty, d - 1, ANY);
                let b = self.ex(ty, d - 1, LOOSE);
                let h = match op {
                    "+" => format!("{t}::wrapping_add({}, {})", a.h, b.h),
                    "-" => format!("{t}::wrapping_sub({}, {})", a.h, b.h),
                    "*" => format!("{t}::wrapping_mul({}, {})", a.h, b.h),
                    "/" => format!("h::div_{t}({}, {})", a.h, b.h),
                    _ => format!("h::rem_{t}({}, {})", a.h, b.h),
                };
                Ex::new(format!("({} {op} {})", a.k, b.k), h)
            }
            1 => {
                let op = ["&", "|", "^"][self.rng.below(3)];
                let a = self.ex(ty, d - 1, ANY);
                let b = self.ex(ty, d - 1, LOOSE);
                Ex::new(
                    format!("({} {op} {})", a.k, b.k),
                    format!("({} {op} {})", a.h, b.h),
                )
            }
            2 => {
                let (op, f) = [("<<", "shl"), (">>", "shr")][self.rng.below(2)];
                let a = self.ex(ty, d - 1, ANY);
                let st = self.any_int_ty();
                let b = self.ex(st, d - 1, ANY);
                if !self.f.const_block_operands && (a.has_block() || b.has_block()) {
                    return None;
                }
                Ex::new(
                    format!("({} {op} {})", a.k, b.k),
                    format!("h::{f}_{t}({}, ({}) as u32)", a.h, b.h),
                )
            }
            3 => {
                let a = self.ex(ty, d - 1, ANY);
                if ty.signed() && self.rng.chance(50) {
                    Ex::new(format!("(-{})", a.k), format!("{t}::wrapping_neg({})", a.h))
                } else {
                    Ex::new(format!("(!{})", a.k), format!("(!{})", a.h))
                }
            }
            4 => {
                let m = ["wrapping_add", "wrapping_sub", "wrapping_mul"][self.rng.below(3)];
                let a = self.ex(ty, d - 1, ANY);
                let b = self.ex(ty, d - 1, LOOSE);
                Ex::new(
                    format!("({}).{m}({})", a.k, b.k),
                    format!("{t}::{m}({}, {})", a.h, b.h),
                )
            }
            5 => {
                let m = ["min", "max"][self.rng.below(2)];
                let a = self.ex(ty, d - 1, ANY);
                let b = self.ex(ty, d - 1, LOOSE);
                Ex::new(
                    format!("({}).{m}({})", a.k, b.k),
                    format!("{t}::{m}({}, {})", a.h, b.h),
                )
            }
            6 => {
                let a = self.ex(ty, d - 1, ANY);
                let lo = self.ex(ty, d - 1, LOOSE);
                let hi = self.ex(ty, d - 1, LOOSE);
                Ex::new(
                    format!("({}).clamp({}, {})", a.k, lo.k, hi.k),
                    format!("h::clamp_{t}({}, {}, {})", a.h, lo.h, hi.h),
                )
            }
            7 => {
                let a = self.ex(ty, d - 1, ANY);
                if ty.signed() && self.rng.chance(50) {
                    Ex::new(
                        format!("({}).abs()", a.k),
                        format!("{t}::wrapping_abs({})", a.h),
                    )
                } else {
                    Ex::new(
                        format!("({}).wrapping_neg()", a.k),
                        format!("{t}::wrapping_neg({})", a.h),
                    )
                }
            }
            8 => {
                let a = self.ex(ty, d - 1, ANY);
                let e = self.ex(Ty::U32, d - 1, LOOSE);
                Ex::new(
                    format!("({}).pow({})", a.k, e.k),
                    format!("{t}::wrapping_pow({}, {})", a.h, e.h),
                )
            }
            9 => {
                let m = ["rotate_left", "rotate_right"][self.rng.below(2)];
                let a = self.ex(ty, d - 1, ANY);
                let n = self.ex(Ty::U32, d - 1, LOOSE);
                Ex::new(
                    format!("({}).{m}({})", a.k, n.k),
                    format!("{t}::{m}({}, {})", a.h, n.h),
                )
            }
            10 => {
                let m = ["rem_euclid", "div_euclid"][self.rng.below(2)];
                let a = self.ex(ty, d - 1, ANY);
                let b = self.ex(ty, d - 1, LOOSE);
                Ex::new(
                    format!("({}).{m}({})", a.k, b.k),
                    format!("h::{m}_{t}({}, {})", a.h, b.h),
                )
            }
            11 => {
                let a = self.ex(ty, d - 1, ANY);
                Ex::new(
                    format!("({}).reverse_bits()", a.k),
                    format!("{t}::reverse_bits({})", a.h),
                )
            }
            12 => {
                let m = [
                    "count_ones",
                    "count_zeros",
                    "leading_zeros",
                    "trailing_zeros",
                    "leading_ones",
                    "trailing_ones",
                ][self.rng.below(6)];
                let at = self.int_ty();
                let a = self.ex(at, d - 1, ANY);
                Ex::new(
                    format!("({}).{m}()", a.k),
                    format!("{}::{m}({})", at.name(), a.h),
                )
            }
            13 => {
                let at = self.int_ty();
                let a = self.ex(at, d - 1, ANY);
                let b = self.ex(at, d - 1, LOOSE);
                Ex::new(
                    format!("({}).abs_diff({})", a.k, b.k),
                    format!("{}::abs_diff({}, {})", at.name(), a.h, b.h),
                )
            }
            14 => {
                let from = self.cast_from_ty([3, 3, 5, 2]);
                let a = self.ex(from, d - 1, ANY);
                Ex::new(format!("({} as {t})", a.k), format!("(({}) as {t})", a.h))
            }
            15 => self.if_ex(ty, d, ANY),
            16 if self.rng.chance(30) => self.closure_block(ty, d, ANY),
            16 => self.let_block(ty, d, ANY),
            17 => return self.mut_block(ty, d, ANY),
            18 => self.match_ex(ty, d, ANY),
            _ => {
                let req = Req {
                    no_nan: true,
                    zdef: true,
                    ..ANY
                };
                let a = self.ex(Ty::F32, d - 1, req);
                Ex::new(
                    format!("({}).to_bits()", a.k),
                    format!("f32::to_bits({})", a.h),
                )
            }
        };
        Some(e)
    }

    /// An `f32` expression with an operation at the top satisfying `req`,
    /// or `None` to draw again.
    fn float_node(&mut self, d: u32, req: Req) -> Option<Ex> {
        let arith = req.rounded && !req.no_nan && !req.zdef && !req.varies && !req.fin;
        let on = |c: bool, w: u32| if c { w } else { 0 };
        let weights = [
            on(arith, 20),
            on(arith, 3),
            6,
            on(!req.no_rnd, 6),
            on(!req.no_nan && req.rounded, 2),
            2,
            2,
            on(!req.zdef && !req.varies, 4),
            on(!req.zdef && !req.varies, 2),
            5,
            on(!req.varies, 3),
            on(!req.varies, 6),
            3,
            3,
            on(self.f.matches, 2),
        ];
        let inner = req.typed();
        // The operands of an arithmetic operation.
        let exact = Req {
            no_rnd: req.no_rnd,
            ..EXACT
        };
        let e = match self.rng.weighted(&weights) {
            0 => {
                let op = ["+", "-", "*", "%"][self.rng.below(4)];
                let [a, b] = self.operands(d - 1, exact)?;
                let fp = a.fp.arith(b.fp);
                Ex::new(
                    format!("({} {op} {})", a.k, b.k),
                    format!("({} {op} {})", a.h, b.h),
                )
                .with(fp)
            }
            1 => {
                if self.rng.chance(40) {
                    let [a, b] = self.operands(d - 1, exact)?;
                    let fp = a.fp.arith(b.fp);
                    Ex::new(
                        format!("({}).rem_euclid({})", a.k, b.k),
                        format!("f32::rem_euclid({}, {})", a.h, b.h),
                    )
                    .with(fp)
                } else {
                    let a = self.ex(Ty::F32, d - 1, exact);
                    if !self.f.const_block_operands && a.has_block() {
                        return None;
                    }
                    let fp = a.fp.arith(a.fp);
                    let m = ["to_degrees", "to_radians"][self.rng.below(2)];
                    Ex::new(format!("({}).{m}()", a.k), format!("f32::{m}({})", a.h)).with(fp)
                }
            }
            2 => {
                // `abs` of a zero the driver knows (a constant `-0.0`) may
                // keep its sign (`GEN_ABS_ZERO_SIGN`).
                let abs = self.rng.chance(50);
                if abs && req.zdef && !self.f.abs_zero_sign {
                    return None;
                }
                let a = self.ex(Ty::F32, d - 1, inner);
                if abs {
                    let fp = Fp {
                        zdef: a.fp.zdef && self.f.abs_zero_sign,
                        ..a.fp
                    };
                    Ex::new(format!("({}).abs()", a.k), format!("f32::abs({})", a.h)).with(fp)
                } else {
                    let fp = a.fp;
                    Ex::new(format!("(-{})", a.k), format!("(-{})", a.h)).with(fp)
                }
            }
            3 => {
                // amp-rs computes `round` with arithmetic (`floor(a) +
                // floor((a - floor(a)) * 2.0)`), which the driver may
                // reassociate with the arithmetic around it: it counts as
                // an arithmetic operation (on an exact operand, and not
                // the operand of another).
                let m = ["floor", "ceil", "trunc", "round"][self.rng.below(4)];
                let round = m == "round";
                if round && !req.rounded {
                    return None;
                }
                let r = Req {
                    rounded: req.rounded && !round,
                    ..inner
                };
                let a = self.ex(Ty::F32, d - 1, r);
                let fp = Fp {
                    rnd: true,
                    rounded: a.fp.rounded || round,
                    ..a.fp
                };
                Ex::new(format!("({}).{m}()", a.k), format!("f32::{m}({})", a.h)).with(fp)
            }
            4 => {
                // `fract` is `x - trunc(x)`: an arithmetic operation, as
                // `round`. The driver may take `floor(x) - trunc(floor(x))`
                // for 0, also where `x` is infinite, and so `fract` of an
                // infinity it knows (`f32::INFINITY.abs().fract()` was 0.0
                // on lavapipe, seed 20261203: `inf - inf` cancels an
                // infinity, documented latitude) (`GEN_FRACT_OF_ROUNDED`).
                let r = Req {
                    rounded: false,
                    no_rnd: req.no_rnd || !self.f.fract_of_rounded,
                    fin: inner.fin || !self.f.fract_of_rounded,
                    ..inner
                };
                let a = self.ex(Ty::F32, d - 1, r);
                let fp = Fp {
                    nan: a.fp.nan || !a.fp.fin,
                    rounded: true,
                    ..a.fp
                };
                Ex::new(format!("({}).fract()", a.k), format!("f32::fract({})", a.h)).with(fp)
            }
            5 => {
                let a = self.ex(
                    Ty::F32,
                    d - 1,
                    Req {
                        zdef: true,
                        ..inner
                    },
                );
                let fp = Fp { zdef: true, ..a.fp };
                Ex::new(
                    format!("({}).signum()", a.k),
                    format!("f32::signum({})", a.h),
                )
                .with(fp)
            }
            6 => {
                let x = self.ex(
                    Ty::F32,
                    d - 1,
                    Req {
                        zdef: false,
                        ..inner
                    },
                );
                let s = self.ex(
                    Ty::F32,
                    d - 1,
                    Req {
                        no_nan: true,
                        zdef: true,
                        varies: false,
                        ..inner
                    },
                );
                let fp = Fp {
                    rounded: x.fp.rounded || s.fp.rounded,
                    nan: x.fp.nan,
                    zdef: true,
                    varies: x.fp.varies,
                    rnd: x.fp.rnd || s.fp.rnd,
                    fin: x.fp.fin,
                    srcs: x.fp.srcs | s.fp.srcs,
                };
                Ex::new(
                    format!("({}).copysign({})", x.k, s.k),
                    format!("f32::copysign({}, {})", x.h, s.h),
                )
                .with(fp)
            }
            7 => {
                let m = ["min", "max"][self.rng.below(2)];
                let r = Req {
                    no_nan: true,
                    ..inner
                };
                let a = self.ex(Ty::F32, d - 1, r);
                let b = self.ex(Ty::F32, d - 1, Req { untyped: true, ..r });
                let fp = Fp {
                    nan: false,
                    zdef: false,
                    ..a.fp.join(b.fp)
                };
                Ex::new(
                    format!("({}).{m}({})", a.k, b.k),
                    format!("f32::{m}({}, {})", a.h, b.h),
                )
                .with(fp)
            }
            8 => {
                let r = Req {
                    no_nan: true,
                    ..inner
                };
                let a = self.ex(Ty::F32, d - 1, r);
                let lo = self.ex(Ty::F32, d - 1, Req { untyped: true, ..r });
                let hi = self.ex(Ty::F32, d - 1, Req { untyped: true, ..r });
                let fp = Fp {
                    nan: false,
                    zdef: false,
                    ..a.fp.join(lo.fp).join(hi.fp)
                };
                Ex::new(
                    format!("({}).clamp({}, {})", a.k, lo.k, hi.k),
                    format!("h::clamp_f32({}, {}, {})", a.h, lo.h, hi.h),
                )
                .with(fp)
            }
            9 => {
                let e = self.if_ex(Ty::F32, d, req);
                if req.zdef && !e.fp.zdef {
                    return None;
                }
                e
            }
            10 => {
                // A value made NaN-free: tested, and replaced by a literal.
                let x = self.ex(
                    Ty::F32,
                    d - 1,
                    Req {
                        no_nan: false,
                        fin: false,
                        ..inner
                    },
                );
                let l = self.float_lit(Req {
                    no_nan: true,
                    untyped: true,
                    ..inner
                });
                let t = self.fresh("v");
                let variant = if req.fin { 3 } else { self.rng.below(4) };
                let test = match variant {
                    0 => format!("{t}.is_nan()"),
                    1 => format!("{t} != {t}"),
                    2 => format!("!({t} == {t})"),
                    _ => format!("!{t}.is_finite()"),
                };
                let fp = Fp {
                    nan: false,
                    fin: variant == 3 || (x.fp.fin && l.fp.fin),
                    ..x.fp.join(l.fp)
                };
                Ex::new(
                    format!(
                        "({{ let {t}: f32 = {}; if {test} {{ {} }} else {{ {t} }} }})",
                        x.k, l.k
                    ),
                    format!(
                        "({{ let {t}: f32 = {}; if {test} {{ {} }} else {{ {t} }} }})",
                        x.h, l.h
                    ),
                )
                .with(fp)
            }
            11 => {
                let it = self.any_int_ty();
                let a = self.ex(it, d - 1, ANY);
                Ex::new(format!("({} as f32)", a.k), format!("(({}) as f32)", a.h))
            }
            12 if self.rng.chance(30) => self.closure_block(Ty::F32, d, req),
            12 => self.let_block(Ty::F32, d, req),
            13 => return self.mut_block(Ty::F32, d, req),
            _ => {
                let e = self.match_ex(Ty::F32, d, req);
                if req.zdef && !e.fp.zdef {
                    return None;
                }
                e
            }
        };
        Some(e)
    }

    /// `N` operands of an arithmetic operation, each satisfying `req`: all
    /// finite, or all run-time values reading different inputs, so that no
    /// identity a driver applies assuming finite values (`x - x == 0`,
    /// `x * 0.0 == 0`, `0.0 / x == 0`) can change the result (unless
    /// `GEN_FAST_MATH_IDENTITIES`). `None` if no such operands came.
    fn operands<const N: usize>(&mut self, d: u32, req: Req) -> Option<[Ex; N]> {
        let mode = self.rng.below(2);
        let mut out: Vec<Ex> = Vec::with_capacity(N);
        let mut srcs = 0u8;
        for i in 0..N {
            let r = Req {
                untyped: i > 0,
                ..req
            };
            let r = if self.f.fast_math_identities {
                r
            } else if mode == 0 {
                Req { fin: true, ..r }
            } else {
                Req { varies: true, ..r }
            };
            let mut found = None;
            for _ in 0..4 {
                let e = self.ex(Ty::F32, d, r);
                if !self.f.const_block_operands && e.has_block() {
                    continue;
                }
                if self.f.fast_math_identities || mode == 0 || e.fp.srcs & srcs == 0 {
                    found = Some(e);
                    break;
                }
            }
            let e = found?;
            srcs |= e.fp.srcs;
            out.push(e);
        }
        out.try_into().ok()
    }

    /// A `bool` expression with an operator or call at the top, or `None`
    /// to draw again.
    fn bool_node(&mut self, d: u32) -> Option<Ex> {
        let e = match self.rng.weighted(&[
            25,
            4,
            8,
            5,
            5,
            2,
            3,
            2,
            3,
            if self.f.matches { 1 } else { 0 },
        ]) {
            0 => {
                let ct = if self.f.small_ints {
                    LOCAL_TYPES[self.rng.weighted(&[6, 6, 8, 2, 1, 1, 1, 1])]
                } else {
                    [Ty::I32, Ty::U32, Ty::F32, Ty::Bool][self.rng.weighted(&[3, 3, 4, 1])]
                };
                let ops: &[&str] = if ct == Ty::Bool {
                    &["==", "!="]
                } else {
                    &["==", "!=", "<", "<=", ">", ">="]
                };
                let op = ops[self.rng.below(ops.len())];
                let a = self.ex(ct, d - 1, ANY);
                let b = self.ex(ct, d - 1, LOOSE);
                Ex::new(
                    format!("({} {op} {})", a.k, b.k),
                    format!("({} {op} {})", a.h, b.h),
                )
            }
            1 => {
                let a = self.ex(Ty::Bool, d - 1, ANY);
                Ex::new(format!("(!{})", a.k), format!("(!{})", a.h))
            }
            2 | 3 => {
                let ops: &[&str] = if self.f.bool_xor {
                    &["&&", "||", "&", "|", "^"]
                } else {
                    &["&&", "||", "&", "|"]
                };
                let op = ops[self.rng.below(ops.len())];
                let a = self.ex(Ty::Bool, d - 1, ANY);
                let b = self.ex(Ty::Bool, d - 1, ANY);
                Ex::new(
                    format!("({} {op} {})", a.k, b.k),
                    format!("({} {op} {})", a.h, b.h),
                )
            }
            4 => {
                if self.rng.chance(70) {
                    let m = ["is_nan", "is_finite", "is_infinite"][self.rng.below(3)];
                    let a = self.ex(Ty::F32, d - 1, ANY);
                    Ex::new(format!("({}).{m}()", a.k), format!("f32::{m}({})", a.h))
                } else {
                    let m = ["is_sign_negative", "is_sign_positive"][self.rng.below(2)];
                    let a = self.ex(
                        Ty::F32,
                        d - 1,
                        Req {
                            no_nan: true,
                            zdef: true,
                            ..ANY
                        },
                    );
                    Ex::new(format!("({}).{m}()", a.k), format!("f32::{m}({})", a.h))
                }
            }
            5 => {
                let a = self.ex(Ty::U32, d - 1, ANY);
                Ex::new(
                    format!("({}).is_power_of_two()", a.k),
                    format!("u32::is_power_of_two({})", a.h),
                )
            }
            6 => self.if_ex(Ty::Bool, d, ANY),
            7 if self.rng.chance(30) => self.closure_block(Ty::Bool, d, ANY),
            7 => self.let_block(Ty::Bool, d, ANY),
            8 => return self.mut_block(Ty::Bool, d, ANY),
            _ => self.match_ex(Ty::Bool, d, ANY),
        };
        Some(e)
    }
}
