//! The IR's text form: a printer ([`Display`](fmt::Display) for
//! [`Kernel`], [`Function`], [`Block`], [`Stmt`], [`Expr`], [`Place`] and
//! [`Type`]) and a parser ([`parse_kernel`], [`parse_function`]), for
//! tests (the stage tests of `tests/stages`), dumps and tools.
//!
//! The form is line-oriented and deterministic: one statement per line,
//! blocks indented by four spaces, every binary operation and cast in
//! parentheses. Spans are not printed (they would make golden files
//! brittle); the parser gives every node the span of its first token in
//! the text (`<file>:<line>:<column>`), so that errors name the text's
//! lines. Printing what the parser made gives the same text again.
//!
//! # Example
//!
//! ```text
//! struct Body { pos: vec4<f32>, mass: f32 }
//!
//! fn scale<$0: Float>(%0 x: $0, %1 k: $0) -> $0 {
//!     => (%0 * %1)
//! }
//!
//! kernel "example" rank 1 (
//!     @0 out: mut view<f32, 1>,
//!     @1 n: i32,
//! ) {
//!     let %1 acc: [f32; 4] = [0.0f32; 4];
//!     #[unroll] for %2 k in 0i32..4i32 {
//!         %1[%2] += (call scale::<f32>((%2 as f32), 2.0f32) * -1.5f32);
//!     }
//!     if (idx.[0i32] < @1) {
//!         @0[idx] = %1[3i32];
//!     }
//! }
//! ```
//!
//! # Grammar
//!
//! A text is a sequence of items: `struct` declarations, `fn` items (the
//! `#[kernel]` functions that calls name) and, for [`parse_kernel`],
//! exactly one `kernel`. `//` starts a comment to the end of the line.
//!
//! ```text
//! item     := struct | function | kernel
//! struct   := 'struct' NAME '{' (NAME ':' type),* '}' ['wgsl' STRING]
//! function := 'fn' LABEL ['<' ($k ':' bound),* '>'] '(' param,* ')' ['->' type] block
//! param    := %n NAME ':' type | @pk ':' view | 'tiled' '<' N '>'
//! kernel   := 'kernel' STRING 'rank' N ['tile' '[' N,* ']'] '(' (@k NAME ':' capture),* ')' block
//! capture  := view | type             (scalar, vector, Index<N> or struct)
//! view     := ['mut'] 'view' '<' type ',' N '>'
//! bound    := 'Number' | 'Float' | 'Integer' | 'Element'
//! LABEL    := NAME ['#' N]            (`#N` tells apart functions of one name)
//! NAME     := identifier | STRING
//! ```
//!
//! Types are spelled as in Rust where Rust has a spelling: `bool`, `i32`,
//! `u32`, `f32`, `f64`, `f16`, `[T; N]`, `(A, B)`, `(A,)`, `()`, `&mut T`,
//! `Index<N>`, a struct's name. Short vectors are `vec2<f32>` ...
//! `vec4<f64>` (WGSL's spelling: one form for every length and scalar,
//! where Rust has `Float4`, `Int2`, ...), type parameter `k` of a
//! function is `$k`.
//!
//! ```text
//! block := '{' stmt* ['=>' expr] '}'      (`=> e`: the block's tail value)
//! stmt  := 'let' %n NAME [':' type] ['=' expr] ';'
//!        | place '=' expr ';' | place OP'=' expr ';' | place '(' OP ')' '=' expr ';'
//!        | expr ';'
//!        | 'if' expr block ['else' block]
//!        | 'while' expr block | 'loop' block
//!        | ['#[unroll]'] 'for' %n NAME 'in' expr ('..' | '..=') expr ['step' expr] ['rev'] block
//!        | 'break' ';' | 'continue' ';' | 'return' [expr] ';'
//!        | 'barrier' ('wait' | 'all_memory' | 'global_memory' | 'tile_static_memory') ';'
//!        | 'tile_static' %n NAME ':' type ';'
//! place := %n | %n '[' expr,* ']' | @k '[' expr,* ']' | 'tile' %n '[' expr,* ']' | place '.' member
//! ```
//!
//! `OP=` is Rust's compound assignment (`+=` ... `>>=`); the other binary
//! operators, which Rust has no compound form of, are written `(OP)=`.
//! An `if` followed by `;` is an `if` expression used as a statement.
//!
//! Expressions, with their [`ExprKind`]:
//!
//! | text | kind |
//! |---|---|
//! | `3`, `3i32`, `7u32`, `1.5`, `1.5f32`, `-0.0f32`, `inf_f32`, `NaN`, `true` | `Lit` (the suffix is the literal's type, if any) |
//! | `%3` | `Local` |
//! | `@0`, `@p0` (view parameter 0 of a function) | `Capture` |
//! | `idx` | `KernelIndex` |
//! | `(a + b)`, `(a << b)`, `(a && b)` | `Binary` |
//! | `-x`, `!x` | `Unary` |
//! | `(x as f32)` | `Cast` |
//! | `@0[i, j]` | `Load` |
//! | `x.[k]` | `IndexComponent` |
//! | `index(i, j)` | `MakeIndex` |
//! | `x[i]` | `ArrayElement` (`(@0)[i]` for a capture) |
//! | `[a, b]`, `[v; 4]` | `MakeArray`, `RepeatArray` |
//! | `sqrt(x)`, `mul_add(a, b, c)` | `Call` (Rust's method name in snake case) |
//! | `call f::<f32>(a, @0)` | `CallFn` (type arguments once inferred) |
//! | `&mut place` | `AddrOf` |
//! | `if c { => a } else { => b }` | `If` |
//! | `x.name`, `x.0` | `Field` |
//! | `vec4<f32>(a, b, c, d)` | `MakeVector` |
//! | `struct Body { pos: p, mass: m }` | `MakeStruct` |
//! | `(a, b)`, `(a,)`, `()` | `MakeTuple` |
//! | `tiled.local` | `Tiled` |
//! | `tile %3[i, j]` | `TileLoad` |
//! | `extent(@0)` | `Extent` |
//! | `atomic_add(place, v)`, `atomic_compare_exchange(place, e, v)` | `Atomic` |
//! | `{ ... => e }` | `Block` |
//!
//! A negative float literal is written with its sign (`-1.5f32`); the
//! negation of a float literal is `-(1.5f32)`. Integer literals have no
//! sign: `-3i32` is the negation of `3i32`, as in Rust. NaN is printed as
//! `NaN` whatever its sign and payload.
//!
//! The printer parenthesises every binary operation and cast; the parser
//! also accepts Rust's precedences (`a + b * c`), for hand-written text.
//!
//! # Limits
//!
//! - Names that the IR holds as `&'static str` (locals', captures', struct
//!   fields of `MakeStruct`, [`Member::Named`], span files) are interned by
//!   leaking, and parsed functions are leaked ([`FnRef::shared`]): the
//!   parser is for tests and tools, not for a long-running program's hot
//!   path.
//! - Struct types are declared by name, with their fields; their WGSL
//!   declarations are made as `amp-core` makes them for a struct with no
//!   padding, unless the item gives them (`wgsl "..."`, printed where they
//!   differ). Two different struct types of one name cannot be printed
//!   apart.
//!
//! # Code
//!
//! This module holds the names the printer and the parser share, the
//! `Display` impls and the parsing functions; `print` is the printer,
//! `lex` the tokens and `parse` the parser (by construct: items and
//! types, statements, expressions, places).

use std::collections::HashSet;
use std::fmt::{self, Write as _};
use std::sync::{Mutex, OnceLock};

use crate::ir::*;

mod lex;
mod parse;
mod print;

use parse::Parser;
use print::{Printer, Root, module};

// ---------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------

macro_rules! names {
    ($name:ident, $table:ident, $ty:ident { $($v:ident => $s:literal),* $(,)? }) => {
        fn $name(x: $ty) -> &'static str {
            match x {
                $($ty::$v => $s),*
            }
        }
        const $table: &[($ty, &str)] = &[$(($ty::$v, $s)),*];
    };
}

names!(builtin_name, BUILTINS, Builtin {
    Sqrt => "sqrt", Abs => "abs", Min => "min", Max => "max", Clamp => "clamp",
    Floor => "floor", Ceil => "ceil", Round => "round", Trunc => "trunc",
    Exp => "exp", Exp2 => "exp2", Ln => "ln", Log2 => "log2", Sin => "sin",
    Cos => "cos", Tan => "tan", Asin => "asin", Acos => "acos", Atan => "atan",
    Atan2 => "atan2", Sinh => "sinh", Cosh => "cosh", Tanh => "tanh",
    Powf => "powf", MulAdd => "mul_add", Signum => "signum", Recip => "recip",
    Fract => "fract", CountOnes => "count_ones", LeadingZeros => "leading_zeros",
    TrailingZeros => "trailing_zeros", ReverseBits => "reverse_bits",
    CountZeros => "count_zeros", LeadingOnes => "leading_ones",
    TrailingOnes => "trailing_ones", WrappingAdd => "wrapping_add",
    WrappingSub => "wrapping_sub", WrappingMul => "wrapping_mul",
    WrappingNeg => "wrapping_neg", RotateLeft => "rotate_left",
    RotateRight => "rotate_right", Pow => "pow", Powi => "powi", Log10 => "log10",
    ToRadians => "to_radians", ToDegrees => "to_degrees", Copysign => "copysign",
    IsNan => "is_nan", IsFinite => "is_finite", IsInfinite => "is_infinite",
    IsSignNegative => "is_sign_negative", IsSignPositive => "is_sign_positive",
    ToBits => "to_bits", RemEuclid => "rem_euclid", DivEuclid => "div_euclid",
    AbsDiff => "abs_diff", IsPowerOfTwo => "is_power_of_two", Hypot => "hypot",
    Log => "log", Ln1p => "ln_1p", ExpM1 => "exp_m1", Cbrt => "cbrt",
    Asinh => "asinh", Acosh => "acosh", Atanh => "atanh", SinCos => "sin_cos",
    FromBits => "from_bits", HalfFromF32 => "half_from_f32",
    HalfFromF64 => "half_from_f64", HalfToF32 => "half_to_f32",
    HalfToF64 => "half_to_f64", Dot => "dot", Length => "length",
    Distance => "distance", Normalize => "normalize", Cross => "cross",
    Contains => "contains", Size => "size", Linearize => "linearize",
    Delinearize => "delinearize", IndexFromArray => "index_from_array", Bitcast => "bitcast",
    ReinterpretLoad => "reinterpret_load", ReinterpretStore => "reinterpret_store",
    UniformLoad => "uniform_load", SubgroupAdd => "subgroup_add",
    SubgroupMin => "subgroup_min", SubgroupMax => "subgroup_max",
    SubgroupBroadcast => "subgroup_broadcast", SubgroupBallot => "subgroup_ballot",
    SubgroupSize => "subgroup_size", SubgroupLane => "subgroup_lane",
    Select => "select", Fmod => "fmod",
});

names!(atomic_name, ATOMICS, AtomicOp {
    Add => "atomic_add", Sub => "atomic_sub", And => "atomic_and", Or => "atomic_or",
    Xor => "atomic_xor", Min => "atomic_min", Max => "atomic_max",
    Exchange => "atomic_exchange", CompareExchange => "atomic_compare_exchange",
});

names!(tiled_name, TILED, TiledField {
    Global => "global", Local => "local", Tile => "tile",
    TileOrigin => "tile_origin", TileExtent => "tile_extent",
});

names!(barrier_name, BARRIERS, BarrierKind {
    Wait => "wait", AllMemory => "all_memory", GlobalMemory => "global_memory",
    TileStaticMemory => "tile_static_memory",
});

names!(bound_name, BOUNDS, Bound {
    Number => "Number", Float => "Float", Integer => "Integer", Element => "Element",
});

names!(binop_name, BINOPS, BinOp {
    Add => "+", Sub => "-", Mul => "*", Div => "/", Rem => "%", BitAnd => "&",
    BitOr => "|", BitXor => "^", Shl => "<<", Shr => ">>", Eq => "==", Ne => "!=",
    Lt => "<", Le => "<=", Gt => ">", Ge => ">=", And => "&&", Or => "||",
});

const SCALARS: [Scalar; 10] = [
    Scalar::Bool,
    Scalar::I32,
    Scalar::U32,
    Scalar::F32,
    Scalar::F64,
    Scalar::F16,
    Scalar::U8,
    Scalar::I8,
    Scalar::U16,
    Scalar::I16,
];

fn scalar_named(s: &str) -> Option<Scalar> {
    SCALARS.into_iter().find(|x| x.rust() == s)
}

/// Whether `s` can be printed bare (else it is printed as a string).
fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn name_text(s: &str) -> String {
    if is_ident(s) { s.to_string() } else { quote(s) }
}

/// The WGSL declarations `amp-core` makes for `st` when its fields have no
/// padding: the structs nested in it first, each once.
fn default_declarations(st: &StructType) -> String {
    fn collect(st: &StructType, out: &mut Vec<String>, seen: &mut HashSet<String>) {
        for (_, t) in &st.fields {
            nested(t, out, seen);
        }
        if seen.insert(st.name.clone()) {
            let fields: String = st
                .fields
                .iter()
                .map(|(n, t)| format!("    {n}: {},\n", crate::type_wgsl(t)))
                .collect();
            out.push(format!("struct {} {{\n{fields}}}\n", st.name));
        }
    }
    fn nested(t: &Type, out: &mut Vec<String>, seen: &mut HashSet<String>) {
        match t {
            Type::Struct(inner) => collect(inner, out, seen),
            Type::Array(e, _) | Type::Ref(e) => nested(e, out, seen),
            Type::Tuple(ts) => ts.iter().for_each(|t| nested(t, out, seen)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    collect(st, &mut out, &mut HashSet::new());
    out.join("\n")
}

/// `s` as a `&'static str`, leaked once per distinct string.
fn intern(s: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(n) = names.get(s) {
        return n;
    }
    let n: &'static str = Box::leak(s.to_string().into_boxed_str());
    names.insert(n);
    n
}

/// An error of [`parse_kernel`] or [`parse_function`], at a position of
/// the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters).
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

/// The whole text: the struct declarations and `#[kernel]` functions the
/// kernel uses, then the kernel.
impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&module(Root::Kernel(self)))
    }
}

/// The struct declarations the function uses, the function, then the
/// functions it calls.
impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&module(Root::Function(self)))
    }
}

macro_rules! display_with {
    ($ty:ty, $method:ident, $doc:literal) => {
        #[doc = $doc]
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut p = Printer::default();
                p.$method(self);
                f.write_str(&p.out)
            }
        }
    };
}

display_with!(Type, ty, "A type in the text form (`[vec4<f32>; 2]`).");
display_with!(Expr, expr, "An expression in the text form.");
display_with!(Place, place, "A place in the text form (`@0[idx].x`).");
display_with!(Block, block, "A block in the text form, from `{` to `}`.");
display_with!(Stmt, stmt, "A statement in the text form.");

/// Parses the text of a kernel: the struct declarations and `#[kernel]`
/// functions it uses, and exactly one `kernel` item (the grammar is in the
/// docs of amp-ir's `text` module, `src/text/mod.rs`). Every node's span
/// is its position in the text, with the file `<ir>`.
///
/// # Errors
///
/// A [`ParseError`] at the first thing that does not follow the grammar.
///
/// # Examples
///
/// ```
/// let text = "kernel \"double\" rank 1 (\n    @0 c: mut view<i32, 1>,\n) {\n    @0[idx] = (2i32 * @0[idx]);\n}\n";
/// let kernel = amp_ir::parse_kernel(text)?;
/// assert_eq!(kernel.to_string(), text);
/// # Ok::<(), amp_ir::ParseError>(())
/// ```
pub fn parse_kernel(text: &str) -> Result<Kernel, ParseError> {
    parse_kernel_in(text, "<ir>")
}

/// [`parse_kernel`] with the spans' file `file` (leaked, once per
/// distinct name).
///
/// # Errors
///
/// As [`parse_kernel`].
pub fn parse_kernel_in(text: &str, file: &str) -> Result<Kernel, ParseError> {
    let mut p = Parser::new(text, file)?;
    let (_, mut kernels) = p.module()?;
    match kernels.len() {
        1 => Ok(kernels.remove(0)),
        n => p.error(format!("expected one kernel in the text, found {n}")),
    }
}

/// Parses the text of a `#[kernel]` function as [`Function`]'s `Display`
/// prints it: the struct declarations and functions it uses, the
/// function first of the functions, and no kernel.
///
/// # Errors
///
/// A [`ParseError`] at the first thing that does not follow the grammar,
/// or if the text has no function or has a kernel.
pub fn parse_function(text: &str) -> Result<Function, ParseError> {
    let mut p = Parser::new(text, "<ir>")?;
    let (mut functions, kernels) = p.module()?;
    if !kernels.is_empty() {
        return p.error("a function's text has no kernel");
    }
    if functions.is_empty() {
        return p.error("expected a function in the text");
    }
    Ok(functions.remove(0))
}

#[cfg(test)]
pub(crate) mod tests;
