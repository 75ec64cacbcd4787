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
//! bound    := 'Number' | 'Float' | 'Integer'
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

use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex, OnceLock};

use crate::ir::*;

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
    Delinearize => "delinearize", Bitcast => "bitcast",
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
    Number => "Number", Float => "Float", Integer => "Integer",
});

names!(binop_name, BINOPS, BinOp {
    Add => "+", Sub => "-", Mul => "*", Div => "/", Rem => "%", BitAnd => "&",
    BitOr => "|", BitXor => "^", Shl => "<<", Shr => ">>", Eq => "==", Ne => "!=",
    Lt => "<", Le => "<=", Gt => ">", Ge => ">=", And => "&&", Or => "||",
});

const SCALARS: [Scalar; 6] = [
    Scalar::Bool,
    Scalar::I32,
    Scalar::U32,
    Scalar::F32,
    Scalar::F64,
    Scalar::F16,
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

// ---------------------------------------------------------------------------
// Printer
// ---------------------------------------------------------------------------

/// Writes the text form; records the functions and structs it meets, so
/// that a kernel's text can declare them.
#[derive(Default)]
struct Printer {
    out: String,
    depth: usize,
    /// The label of each function by key (a name, or `name#k` where
    /// functions share a name).
    labels: HashMap<usize, String>,
    /// Functions met in calls, in order, and their keys.
    fns: Vec<FnRef>,
    fn_keys: HashSet<usize>,
    /// Structs met in types, in order, and their names.
    structs: Vec<Arc<StructType>>,
    struct_names: HashSet<String>,
}

impl Printer {
    fn nl(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
    }

    fn s(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn ty(&mut self, t: &Type) {
        match t {
            Type::Scalar(s) => self.s(s.rust()),
            Type::Index(n) => {
                let _ = write!(self.out, "Index<{n}>");
            }
            Type::Array(e, n) => {
                self.s("[");
                self.ty(e);
                let _ = write!(self.out, "; {n}]");
            }
            Type::Param(k) => {
                let _ = write!(self.out, "${k}");
            }
            Type::Vector(n, s) => {
                let _ = write!(self.out, "vec{n}<{}>", s.rust());
            }
            Type::Struct(st) => {
                if self.struct_names.insert(st.name.clone()) {
                    self.structs.push(st.clone());
                }
                self.s(&name_text(&st.name));
            }
            Type::Tuple(ts) => {
                self.s("(");
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.ty(t);
                }
                if ts.len() == 1 {
                    self.s(",");
                }
                self.s(")");
            }
            Type::Ref(t) => {
                self.s("&mut ");
                self.ty(t);
            }
        }
    }

    fn view(&mut self, elem: &Type, rank: u32, writable: bool) {
        if writable {
            self.s("mut ");
        }
        self.s("view<");
        self.ty(elem);
        let _ = write!(self.out, ", {rank}>");
    }

    fn capture(&mut self, c: CaptureId) {
        let _ = match c.as_param() {
            Some(k) => write!(self.out, "@p{k}"),
            None => write!(self.out, "@{}", c.0),
        };
    }

    fn lit(&mut self, l: &Lit) {
        match *l {
            Lit::Int(v, s) => {
                let _ = write!(self.out, "{v}{}", s.map_or("", Scalar::rust));
            }
            Lit::Float(v, s) => {
                let suffix = s.map_or("", Scalar::rust);
                let _ = if v.is_nan() || v.is_infinite() {
                    let sign = if v.is_infinite() && v < 0.0 { "-" } else { "" };
                    let word = if v.is_nan() { "NaN" } else { "inf" };
                    let sep = if s.is_some() { "_" } else { "" };
                    write!(self.out, "{sign}{word}{sep}{suffix}")
                } else {
                    write!(self.out, "{v:?}{suffix}")
                };
            }
            Lit::Bool(b) => self.s(if b { "true" } else { "false" }),
        }
    }

    fn list(&mut self, xs: &[Expr]) {
        for (i, x) in xs.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            self.expr(x);
        }
    }

    /// `e` as the base of a postfix operation (`[i]`, `.x`, `.[k]`).
    fn base(&mut self, e: &Expr, bracket: bool) {
        let wrap = match &e.kind {
            ExprKind::Unary(..) | ExprKind::If(..) | ExprKind::Block(_) | ExprKind::AddrOf(_) => {
                true
            }
            ExprKind::Lit(Lit::Float(v, _)) => v.is_sign_negative(),
            ExprKind::Capture(_) => bracket,
            _ => false,
        };
        if wrap {
            self.s("(");
            self.expr(e);
            self.s(")");
        } else {
            self.expr(e);
        }
    }

    fn member(&mut self, m: &Member) {
        let _ = match m {
            Member::Named(n) => write!(self.out, ".{}", name_text(n)),
            Member::Index(k) => write!(self.out, ".{k}"),
        };
    }

    fn label(&self, f: FnRef) -> String {
        match self.labels.get(&f.key()) {
            Some(l) => l.clone(),
            None => name_text(f.function().name),
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Lit(l) => self.lit(l),
            ExprKind::Local(l) => {
                let _ = write!(self.out, "%{}", l.0);
            }
            ExprKind::Capture(c) => self.capture(*c),
            ExprKind::KernelIndex => self.s("idx"),
            ExprKind::Binary(op, l, r) => {
                self.s("(");
                self.expr(l);
                let _ = write!(self.out, " {} ", binop_name(*op));
                self.expr(r);
                self.s(")");
            }
            ExprKind::Unary(op, x) => {
                self.s(match op {
                    UnOp::Neg => "-",
                    UnOp::Not => "!",
                });
                let wrap = matches!(
                    x.kind,
                    ExprKind::Unary(..) | ExprKind::Lit(Lit::Float(..)) | ExprKind::AddrOf(_)
                );
                if wrap {
                    self.s("(");
                }
                self.expr(x);
                if wrap {
                    self.s(")");
                }
            }
            ExprKind::Cast(x, s) => {
                self.s("(");
                self.expr(x);
                let _ = write!(self.out, " as {})", s.rust());
            }
            ExprKind::Load(c, idx) => {
                self.capture(*c);
                self.s("[");
                self.list(idx);
                self.s("]");
            }
            ExprKind::IndexComponent(a, k) => {
                self.base(a, false);
                self.s(".[");
                self.expr(k);
                self.s("]");
            }
            ExprKind::MakeIndex(xs) => {
                self.s("index(");
                self.list(xs);
                self.s(")");
            }
            ExprKind::ArrayElement(a, i) => {
                self.base(a, true);
                self.s("[");
                self.expr(i);
                self.s("]");
            }
            ExprKind::MakeArray(xs) => {
                self.s("[");
                self.list(xs);
                self.s("]");
            }
            ExprKind::RepeatArray(x, n) => {
                self.s("[");
                self.expr(x);
                let _ = write!(self.out, "; {n}]");
            }
            ExprKind::Call(b, xs) => {
                self.s(builtin_name(*b));
                self.s("(");
                self.list(xs);
                self.s(")");
            }
            ExprKind::CallFn(f, args, type_args) => {
                if self.fn_keys.insert(f.key()) {
                    self.fns.push(*f);
                }
                let label = self.label(*f);
                self.s("call ");
                self.s(&label);
                if !type_args.is_empty() {
                    self.s("::<");
                    for (i, t) in type_args.iter().enumerate() {
                        if i > 0 {
                            self.s(", ");
                        }
                        self.ty(t);
                    }
                    self.s(">");
                }
                self.s("(");
                self.list(args);
                self.s(")");
            }
            ExprKind::AddrOf(p) => {
                self.s("&mut ");
                self.place(p);
            }
            ExprKind::If(c, a, b) => {
                self.s("if ");
                self.expr(c);
                self.s(" ");
                self.block(a);
                self.s(" else ");
                self.block(b);
            }
            ExprKind::Field(x, m) => {
                self.base(x, false);
                self.member(m);
            }
            ExprKind::MakeVector(n, s, xs) => {
                let _ = write!(self.out, "vec{n}<{}>(", s.rust());
                self.list(xs);
                self.s(")");
            }
            ExprKind::MakeStruct(t, fields) => {
                self.s("struct ");
                self.ty(t);
                self.s(" {");
                for (i, (n, x)) in fields.iter().enumerate() {
                    self.s(if i > 0 { ", " } else { " " });
                    self.s(&name_text(n));
                    self.s(": ");
                    self.expr(x);
                }
                self.s(if fields.is_empty() { "}" } else { " }" });
            }
            ExprKind::MakeTuple(xs) => {
                self.s("(");
                self.list(xs);
                if xs.len() == 1 {
                    self.s(",");
                }
                self.s(")");
            }
            ExprKind::Tiled(f) => {
                self.s("tiled.");
                self.s(tiled_name(*f));
            }
            ExprKind::TileLoad(id, idx) => {
                let _ = write!(self.out, "tile %{}[", id.0);
                self.list(idx);
                self.s("]");
            }
            ExprKind::Extent(c) => {
                self.s("extent(");
                self.capture(*c);
                self.s(")");
            }
            ExprKind::Atomic(op, p, args) => {
                self.s(atomic_name(*op));
                self.s("(");
                self.place(p);
                for a in args {
                    self.s(", ");
                    self.expr(a);
                }
                self.s(")");
            }
            ExprKind::Block(b) => self.block(b),
        }
    }

    fn place(&mut self, p: &Place) {
        match p {
            Place::Local(l) => {
                let _ = write!(self.out, "%{}", l.0);
            }
            Place::Element(c, idx) => {
                self.capture(*c);
                self.s("[");
                self.list(idx);
                self.s("]");
            }
            Place::ArrayElement(l, idx) => {
                let _ = write!(self.out, "%{}[", l.0);
                self.list(idx);
                self.s("]");
            }
            Place::Field(base, m) => {
                self.place(base);
                self.member(m);
            }
            Place::TileElement(l, idx) => {
                let _ = write!(self.out, "tile %{}[", l.0);
                self.list(idx);
                self.s("]");
            }
        }
    }

    fn block(&mut self, b: &Block) {
        if b.stmts.is_empty() && b.tail.is_none() {
            self.s("{}");
            return;
        }
        self.s("{");
        self.depth += 1;
        for st in &b.stmts {
            self.nl();
            self.stmt(st);
        }
        if let Some(t) = &b.tail {
            self.nl();
            self.s("=> ");
            self.expr(t);
        }
        self.depth -= 1;
        self.nl();
        self.s("}");
    }

    fn stmt(&mut self, st: &Stmt) {
        match &st.kind {
            StmtKind::Let {
                local,
                name,
                ty,
                init,
            } => {
                let _ = write!(self.out, "let %{} {}", local.0, name_text(name));
                if let Some(t) = ty {
                    self.s(": ");
                    self.ty(t);
                }
                if let Some(e) = init {
                    self.s(" = ");
                    self.expr(e);
                }
                self.s(";");
            }
            StmtKind::Assign(p, op, e) => {
                self.place(p);
                match op {
                    None => self.s(" = "),
                    Some(op) if !op.is_comparison() && !matches!(op, BinOp::And | BinOp::Or) => {
                        let _ = write!(self.out, " {}= ", binop_name(*op));
                    }
                    Some(op) => {
                        let _ = write!(self.out, " ({})= ", binop_name(*op));
                    }
                }
                self.expr(e);
                self.s(";");
            }
            StmtKind::Expr(e) => {
                self.expr(e);
                self.s(";");
            }
            StmtKind::If(c, a, b) => {
                self.s("if ");
                self.expr(c);
                self.s(" ");
                self.block(a);
                if let Some(b) = b {
                    self.s(" else ");
                    self.block(b);
                }
            }
            StmtKind::While(c, body) => {
                self.s("while ");
                self.expr(c);
                self.s(" ");
                self.block(body);
            }
            StmtKind::Loop(body) => {
                self.s("loop ");
                self.block(body);
            }
            StmtKind::For {
                var,
                name,
                start,
                end,
                inclusive,
                step,
                body,
                unroll,
                reverse,
            } => {
                if *unroll {
                    self.s("#[unroll] ");
                }
                let _ = write!(self.out, "for %{} {} in ", var.0, name_text(name));
                self.expr(start);
                self.s(if *inclusive { "..=" } else { ".." });
                self.expr(end);
                if let Some(s) = step {
                    self.s(" step ");
                    self.expr(s);
                }
                if *reverse {
                    self.s(" rev");
                }
                self.s(" ");
                self.block(body);
            }
            StmtKind::Break => self.s("break;"),
            StmtKind::Continue => self.s("continue;"),
            StmtKind::Return(None) => self.s("return;"),
            StmtKind::Return(Some(e)) => {
                self.s("return ");
                self.expr(e);
                self.s(";");
            }
            StmtKind::Barrier(b) => {
                let _ = write!(self.out, "barrier {};", barrier_name(*b));
            }
            StmtKind::TileStatic { local, name, ty } => {
                let _ = write!(self.out, "tile_static %{} {}: ", local.0, name_text(name));
                self.ty(ty);
                self.s(";");
            }
        }
    }

    fn kernel(&mut self, k: &Kernel) {
        let _ = write!(self.out, "kernel {} rank {}", quote(&k.name), k.rank);
        if let Some(tile) = &k.tile {
            let dims: Vec<String> = tile.iter().map(u32::to_string).collect();
            let _ = write!(self.out, " tile [{}]", dims.join(", "));
        }
        self.s(" (");
        for (i, (name, kind)) in k.captures.iter().enumerate() {
            self.depth += 1;
            self.nl();
            let _ = write!(self.out, "@{i} {}: ", name_text(name));
            match kind {
                CaptureKind::Container {
                    elem,
                    rank,
                    writable,
                } => self.view(elem, *rank, *writable),
                CaptureKind::Scalar(s) => self.ty(&Type::Scalar(*s)),
                CaptureKind::Vector(n, s) => self.ty(&Type::Vector(*n, *s)),
                CaptureKind::Index(n) => self.ty(&Type::Index(*n)),
                CaptureKind::Struct(t) => self.ty(t),
            }
            self.s(",");
            self.depth -= 1;
        }
        if !k.captures.is_empty() {
            self.nl();
        }
        self.s(") ");
        self.block(&k.body);
    }

    fn function(&mut self, f: &Function, label: &str) {
        let _ = write!(self.out, "fn {label}");
        if !f.type_params.is_empty() {
            self.s("<");
            for (k, b) in f.type_params.iter().enumerate() {
                if k > 0 {
                    self.s(", ");
                }
                let _ = write!(self.out, "${k}: {}", bound_name(*b));
            }
            self.s(">");
        }
        self.s("(");
        let total = f.params.len() + f.bindings.len();
        let mut values = f.params.iter();
        let mut views = 0;
        let mut bindings: Vec<&(usize, ParamBinding)> = f.bindings.iter().collect();
        bindings.sort_by_key(|(pos, _)| *pos);
        let mut bindings = bindings.into_iter().peekable();
        for i in 0..total {
            if i > 0 {
                self.s(", ");
            }
            if let Some((_, b)) = bindings.next_if(|(pos, _)| *pos == i) {
                match b {
                    ParamBinding::View {
                        elem,
                        rank,
                        writable,
                    } => {
                        let _ = write!(self.out, "@p{views}: ");
                        views += 1;
                        self.view(elem, *rank, *writable);
                    }
                    ParamBinding::Tiled(n) => {
                        let _ = write!(self.out, "tiled<{n}>");
                    }
                }
            } else if let Some((l, name, t)) = values.next() {
                let _ = write!(self.out, "%{} {}: ", l.0, name_text(name));
                self.ty(t);
            }
        }
        self.s(")");
        if let Some(r) = &f.ret {
            self.s(" -> ");
            self.ty(r);
        }
        self.s(" ");
        self.block(&f.body);
    }

    /// The declaration of `st`, after those of the structs in it that
    /// `done` lacks.
    fn struct_item(&mut self, st: &StructType, done: &mut HashSet<String>) {
        if !done.insert(st.name.clone()) {
            return;
        }
        for (_, t) in &st.fields {
            let mut inner = Vec::new();
            struct_types(t, &mut inner);
            for s in inner {
                self.struct_item(&s, done);
            }
        }
        let _ = write!(self.out, "struct {} {{", name_text(&st.name));
        for (i, (n, t)) in st.fields.iter().enumerate() {
            self.s(if i > 0 { ", " } else { " " });
            self.s(&name_text(n));
            self.s(": ");
            self.ty(t);
        }
        self.s(if st.fields.is_empty() { "}" } else { " }" });
        if st.declarations != default_declarations(st) {
            self.s(" wgsl ");
            self.s(&quote(&st.declarations));
        }
        self.s("\n\n");
    }
}

fn struct_types(t: &Type, out: &mut Vec<Arc<StructType>>) {
    match t {
        Type::Struct(st) => out.push(st.clone()),
        Type::Array(e, _) | Type::Ref(e) => struct_types(e, out),
        Type::Tuple(ts) => ts.iter().for_each(|t| struct_types(t, out)),
        _ => {}
    }
}

/// What a text prints at its root.
#[derive(Clone, Copy)]
enum Root<'a> {
    Kernel(&'a Kernel),
    Function(&'a Function),
}

/// The whole text of `root`: the structs and functions it uses, then
/// itself (a function first, then the functions it calls).
fn module(root: Root<'_>) -> String {
    // Discovery: print everything once to find the functions and structs.
    let mut p = Printer::default();
    match root {
        Root::Kernel(k) => p.kernel(k),
        Root::Function(f) => p.function(f, ""),
    }
    let mut functions: Vec<(Option<FnRef>, Function)> = Vec::new();
    if let Root::Function(f) = root {
        functions.push((None, f.clone()));
    }
    let mut i = 0;
    while i < p.fns.len() {
        let fr = p.fns[i];
        let f = fr.function();
        i += 1;
        // A function calling itself: its builder gives the root again.
        if matches!(root, Root::Function(r) if *r == f) {
            functions[0].0.get_or_insert(fr);
            continue;
        }
        p.function(&f, "");
        functions.push((Some(fr), f));
    }
    let mut j = 0;
    while j < p.structs.len() {
        let st = p.structs[j].clone();
        st.fields.iter().for_each(|(_, t)| p.ty(t));
        j += 1;
    }
    // Labels: the name, or `name#k` where functions share one.
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (_, f) in &functions {
        *count.entry(f.name).or_default() += 1;
    }
    let mut nth: HashMap<&str, usize> = HashMap::new();
    let mut labels: Vec<String> = Vec::new();
    let mut by_key = HashMap::new();
    for (fr, f) in &functions {
        let label = if count[f.name] > 1 {
            let k = nth.entry(f.name).or_default();
            *k += 1;
            format!("{}#{k}", name_text(f.name))
        } else {
            name_text(f.name)
        };
        if let Some(fr) = fr {
            by_key.insert(fr.key(), label.clone());
        }
        labels.push(label);
    }
    // The text.
    let mut q = Printer {
        labels: by_key,
        ..Printer::default()
    };
    let mut done = HashSet::new();
    for st in &p.structs {
        q.struct_item(st, &mut done);
    }
    for ((_, f), label) in functions.iter().zip(&labels) {
        q.function(f, label);
        q.s("\n\n");
    }
    if let Root::Kernel(k) = root {
        q.kernel(k);
        q.s("\n");
    }
    let mut out = q.out;
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
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

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

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

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Int(u128, Option<Scalar>),
    Float(f64, Option<Scalar>),
    Str(String),
    Local(u32),
    Capture(CaptureId),
    TyParam(u32),
    Punct(&'static str),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Int(v, s) => write!(f, "`{v}{}`", s.map_or("", Scalar::rust)),
            Tok::Float(v, s) => write!(f, "`{v:?}{}`", s.map_or("", Scalar::rust)),
            Tok::Str(s) => write!(f, "{}", quote(s)),
            Tok::Local(l) => write!(f, "`%{l}`"),
            Tok::Capture(c) => match c.as_param() {
                Some(k) => write!(f, "`@p{k}`"),
                None => write!(f, "`@{}`", c.0),
            },
            Tok::TyParam(k) => write!(f, "`${k}`"),
            Tok::Punct(p) => write!(f, "`{p}`"),
            Tok::Eof => f.write_str("the end of the text"),
        }
    }
}

const PUNCTS: [&str; 46] = [
    "<<=", ">>=", "..=", "::", "->", "=>", "==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "..", "(", ")", "[", "]", "{", "}", ",", ";", ":",
    ".", "=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "#",
];

struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: u32,
    column: u32,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn error(&self, message: String) -> ParseError {
        ParseError {
            line: self.line,
            column: self.column,
            message,
        }
    }

    fn digits(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek(0).filter(char::is_ascii_digit) {
            s.push(c);
            self.bump();
        }
        s
    }

    fn number(&mut self, after_dot: bool) -> Result<Tok, ParseError> {
        let mut text = self.digits();
        let mut float = false;
        if !after_dot {
            if self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
                text.push('.');
                text.push_str(&self.digits());
                float = true;
            }
            let sign = matches!(self.peek(1), Some('+' | '-'));
            let digit_at = if sign { 2 } else { 1 };
            if matches!(self.peek(0), Some('e' | 'E'))
                && self.peek(digit_at).is_some_and(|c| c.is_ascii_digit())
            {
                self.bump();
                text.push('e');
                if sign {
                    text.push(self.bump().unwrap_or('+'));
                }
                text.push_str(&self.digits());
                float = true;
            }
        }
        let suffix = self.suffix()?;
        if float {
            let v = text
                .parse::<f64>()
                .map_err(|e| self.error(format!("bad float literal `{text}`: {e}")))?;
            Ok(Tok::Float(v, suffix))
        } else {
            let v = text
                .parse::<u128>()
                .map_err(|e| self.error(format!("bad integer literal `{text}`: {e}")))?;
            Ok(Tok::Int(v, suffix))
        }
    }

    fn suffix(&mut self) -> Result<Option<Scalar>, ParseError> {
        if !self
            .peek(0)
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        {
            return Ok(None);
        }
        let mut s = String::new();
        while let Some(c) = self
            .peek(0)
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        {
            s.push(c);
            self.bump();
        }
        let name = s.strip_prefix('_').unwrap_or(&s);
        scalar_named(name)
            .map(Some)
            .ok_or_else(|| self.error(format!("`{s}` is not a literal suffix")))
    }

    fn string(&mut self) -> Result<Tok, ParseError> {
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                None => return Err(self.error("a string is not closed".to_string())),
                Some('"') => return Ok(Tok::Str(s)),
                Some('\\') => match self.bump() {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some('r') => s.push('\r'),
                    Some('0') => s.push('\0'),
                    Some('\\') => s.push('\\'),
                    Some('"') => s.push('"'),
                    Some('\'') => s.push('\''),
                    Some('u') if self.peek(0) == Some('{') => {
                        self.bump();
                        let mut hex = String::new();
                        while let Some(c) = self.bump() {
                            if c == '}' {
                                break;
                            }
                            hex.push(c);
                        }
                        let c = u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| self.error(format!("bad escape `\\u{{{hex}}}`")))?;
                        s.push(c);
                    }
                    other => {
                        return Err(self.error(format!("bad escape `\\{}`", other.unwrap_or(' '))));
                    }
                },
                Some(c) => s.push(c),
            }
        }
    }

    fn tokens(mut self) -> Result<Vec<(Tok, u32, u32)>, ParseError> {
        let mut out: Vec<(Tok, u32, u32)> = Vec::new();
        loop {
            // Whitespace and comments.
            loop {
                match self.peek(0) {
                    Some(c) if c.is_whitespace() => {
                        self.bump();
                    }
                    Some('/') if self.peek(1) == Some('/') => {
                        while self.peek(0).is_some_and(|c| c != '\n') {
                            self.bump();
                        }
                    }
                    _ => break,
                }
            }
            let (line, column) = (self.line, self.column);
            let Some(c) = self.peek(0) else {
                out.push((Tok::Eof, line, column));
                return Ok(out);
            };
            let after_dot = matches!(out.last(), Some((Tok::Punct("."), ..)));
            let tok = if c.is_ascii_digit() {
                self.number(after_dot)?
            } else if c.is_ascii_alphabetic() || c == '_' {
                let mut s = String::new();
                while let Some(c) = self
                    .peek(0)
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    s.push(c);
                    self.bump();
                }
                Tok::Ident(s)
            } else if c == '"' {
                self.string()?
            } else if c == '%' && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
                let d = self.digits();
                Tok::Local(
                    d.parse()
                        .map_err(|_| self.error(format!("bad local `%{d}`")))?,
                )
            } else if c == '$' {
                self.bump();
                let d = self.digits();
                Tok::TyParam(
                    d.parse()
                        .map_err(|_| self.error(format!("bad type parameter `${d}`")))?,
                )
            } else if c == '@' {
                self.bump();
                let param = self.peek(0) == Some('p');
                if param {
                    self.bump();
                }
                let d = self.digits();
                let k: u32 = d
                    .parse()
                    .map_err(|_| self.error(format!("bad capture `@{d}`")))?;
                Tok::Capture(if param {
                    CaptureId::param(k)
                } else {
                    CaptureId(k)
                })
            } else {
                let rest: String = self.chars[self.i..].iter().take(3).collect();
                let p = PUNCTS
                    .iter()
                    .find(|p| rest.starts_with(**p))
                    .ok_or_else(|| self.error(format!("unexpected character `{c}`")))?;
                for _ in 0..p.len() {
                    self.bump();
                }
                Tok::Punct(p)
            };
            out.push((tok, line, column));
        }
    }
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------

type PResult<T> = Result<T, ParseError>;

struct Parser {
    toks: Vec<(Tok, u32, u32)>,
    i: usize,
    file: &'static str,
    structs: HashMap<String, Arc<StructType>>,
    fns: HashMap<String, (&'static str, &'static OnceLock<Function>)>,
}

/// Binary operators by token, with their precedence (higher binds tighter).
fn binop_of(t: &Tok) -> Option<(BinOp, u8)> {
    let Tok::Punct(p) = t else { return None };
    let op = BINOPS.iter().find(|(_, s)| s == p)?.0;
    let prec = match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
        BinOp::BitOr => 4,
        BinOp::BitXor => 5,
        BinOp::BitAnd => 6,
        BinOp::Shl | BinOp::Shr => 7,
        BinOp::Add | BinOp::Sub => 8,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 9,
    };
    Some((op, prec))
}

impl Parser {
    fn new(text: &str, file: &str) -> PResult<Parser> {
        let toks = Lexer {
            chars: text.chars().collect(),
            i: 0,
            line: 1,
            column: 1,
        }
        .tokens()?;
        Ok(Parser {
            toks,
            i: 0,
            file: intern(file),
            structs: HashMap::new(),
            fns: HashMap::new(),
        })
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].0
    }

    fn span(&self) -> Span {
        let (_, line, column) = self.toks[self.i];
        Span {
            file: self.file,
            line,
            column,
        }
    }

    fn error<T>(&self, message: impl Into<String>) -> PResult<T> {
        let (_, line, column) = self.toks[self.i];
        Err(ParseError {
            line,
            column,
            message: message.into(),
        })
    }

    fn expected<T>(&self, what: &str) -> PResult<T> {
        self.error(format!("expected {what}, found {}", self.peek()))
    }

    fn next(&mut self) -> Tok {
        let t = self.toks[self.i].0.clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }

    fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.next();
        }
        yes
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.is_word(w);
        if yes {
            self.next();
        }
        yes
    }

    fn expect(&mut self, p: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.expected(&format!("`{p}`"))
        }
    }

    fn expect_word(&mut self, w: &str) -> PResult<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            self.expected(&format!("`{w}`"))
        }
    }

    /// A closing `>`, splitting `>>` and `>=` (nested generics).
    fn expect_gt(&mut self) -> PResult<()> {
        let rest = match self.peek() {
            Tok::Punct(">") => {
                self.next();
                return Ok(());
            }
            Tok::Punct(">>") => ">",
            Tok::Punct(">=") => "=",
            Tok::Punct(">>=") => ">=",
            _ => return self.expected("`>`"),
        };
        self.toks[self.i].0 = Tok::Punct(rest);
        self.toks[self.i].2 += 1;
        Ok(())
    }

    fn int(&mut self) -> PResult<u128> {
        match self.peek() {
            Tok::Int(v, None) => {
                let v = *v;
                self.next();
                Ok(v)
            }
            _ => self.expected("a number"),
        }
    }

    fn u32(&mut self) -> PResult<u32> {
        let v = self.int()?;
        u32::try_from(v).or_else(|_| self.error(format!("{v} is too large")))
    }

    fn ident(&mut self) -> PResult<String> {
        match self.peek() {
            Tok::Ident(s) => {
                let s = s.clone();
                self.next();
                Ok(s)
            }
            _ => self.expected("a name"),
        }
    }

    /// A name: an identifier or a string.
    fn name(&mut self) -> PResult<&'static str> {
        match self.peek().clone() {
            Tok::Ident(s) | Tok::Str(s) => {
                self.next();
                Ok(intern(&s))
            }
            _ => self.expected("a name"),
        }
    }

    fn local(&mut self) -> PResult<LocalId> {
        match self.peek() {
            Tok::Local(l) => {
                let l = *l;
                self.next();
                Ok(LocalId(l))
            }
            _ => self.expected("a local (`%n`)"),
        }
    }

    fn capture(&mut self) -> PResult<CaptureId> {
        match self.peek() {
            Tok::Capture(c) => {
                let c = *c;
                self.next();
                Ok(c)
            }
            _ => self.expected("a capture (`@n`)"),
        }
    }

    fn scalar(&mut self) -> PResult<Scalar> {
        if let Tok::Ident(s) = self.peek()
            && let Some(s) = scalar_named(s)
        {
            self.next();
            return Ok(s);
        }
        self.expected("a scalar type")
    }

    /// `vecN` as a vector length.
    fn vector_len(word: &str) -> Option<u8> {
        word.strip_prefix("vec")?.parse().ok()
    }

    fn ty(&mut self) -> PResult<Type> {
        match self.peek().clone() {
            Tok::Ident(w) => {
                if let Some(s) = scalar_named(&w) {
                    self.next();
                    return Ok(Type::Scalar(s));
                }
                if w == "Index" {
                    self.next();
                    self.expect("<")?;
                    let n = self.u32()?;
                    self.expect_gt()?;
                    return Ok(Type::Index(n));
                }
                if let Some(n) = Self::vector_len(&w) {
                    self.next();
                    self.expect("<")?;
                    let s = self.scalar()?;
                    self.expect_gt()?;
                    return Ok(Type::Vector(n, s));
                }
                match self.structs.get(&w) {
                    Some(st) => {
                        let st = st.clone();
                        self.next();
                        Ok(Type::Struct(st))
                    }
                    None => self.error(format!("unknown type `{w}` (structs are declared first)")),
                }
            }
            Tok::Str(w) => match self.structs.get(&w) {
                Some(st) => {
                    let st = st.clone();
                    self.next();
                    Ok(Type::Struct(st))
                }
                None => self.error(format!("unknown struct {}", quote(&w))),
            },
            Tok::TyParam(k) => {
                self.next();
                Ok(Type::Param(k))
            }
            Tok::Punct("[") => {
                self.next();
                let e = self.ty()?;
                self.expect(";")?;
                let n = self.u32()?;
                self.expect("]")?;
                Ok(Type::Array(Box::new(e), n))
            }
            Tok::Punct("(") => {
                self.next();
                let mut ts = Vec::new();
                while !self.eat(")") {
                    ts.push(self.ty()?);
                    if !self.eat(",") {
                        self.expect(")")?;
                        break;
                    }
                }
                Ok(Type::Tuple(ts))
            }
            Tok::Punct("&") => {
                self.next();
                self.expect_word("mut")?;
                Ok(Type::Ref(Box::new(self.ty()?)))
            }
            _ => self.expected("a type"),
        }
    }

    /// `[mut] view<T, N>`.
    fn view(&mut self) -> PResult<(Type, u32, bool)> {
        let writable = self.eat_word("mut");
        self.expect_word("view")?;
        self.expect("<")?;
        let elem = self.ty()?;
        self.expect(",")?;
        let rank = self.u32()?;
        self.expect_gt()?;
        Ok((elem, rank, writable))
    }

    /// `a, b, c` up to `close` (consumed); a trailing comma is allowed.
    fn exprs_until(&mut self, close: &str) -> PResult<Vec<Expr>> {
        let mut xs = Vec::new();
        while !self.eat(close) {
            xs.push(self.expr()?);
            if !self.eat(",") {
                self.expect(close)?;
                break;
            }
        }
        Ok(xs)
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.binary(1)
    }

    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.cast()?;
        while let Some((op, prec)) = binop_of(self.peek()) {
            if prec < min {
                break;
            }
            self.next();
            let rhs = self.binary(prec + 1)?;
            let span = lhs.span;
            lhs = Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span);
        }
        Ok(lhs)
    }

    fn cast(&mut self) -> PResult<Expr> {
        let mut x = self.unary()?;
        while self.eat_word("as") {
            let s = self.scalar()?;
            let span = x.span;
            x = Expr::new(ExprKind::Cast(Box::new(x), s), span);
        }
        Ok(x)
    }

    fn unary(&mut self) -> PResult<Expr> {
        let span = self.span();
        if self.eat("-") {
            // `-1.5f32`: a negative float literal.
            let negative = match self.peek() {
                Tok::Float(v, s) => Some(Lit::Float(-v, *s)),
                Tok::Ident(w) => match Self::special_float(w) {
                    Some(Lit::Float(v, s)) => Some(Lit::Float(-v, s)),
                    _ => None,
                },
                _ => None,
            };
            if let Some(lit) = negative {
                self.next();
                let lit = Expr::new(ExprKind::Lit(lit), span);
                return self.postfix(lit);
            }
            let x = self.unary()?;
            return Ok(Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(x)), span));
        }
        if self.eat("!") {
            let x = self.unary()?;
            return Ok(Expr::new(ExprKind::Unary(UnOp::Not, Box::new(x)), span));
        }
        if self.eat("&") {
            self.expect_word("mut")?;
            let p = self.place()?;
            return Ok(Expr::new(ExprKind::AddrOf(Box::new(p)), span));
        }
        let atom = self.atom()?;
        self.postfix(atom)
    }

    fn member(&mut self) -> PResult<Member> {
        match self.peek().clone() {
            Tok::Int(k, None) => {
                self.next();
                u32::try_from(k)
                    .map(Member::Index)
                    .or_else(|_| self.error("a field number too large"))
            }
            Tok::Ident(s) | Tok::Str(s) => {
                self.next();
                Ok(Member::Named(intern(&s)))
            }
            _ => self.expected("a field"),
        }
    }

    fn postfix(&mut self, mut x: Expr) -> PResult<Expr> {
        loop {
            let span = x.span;
            if self.is(".") && matches!(self.peek_at(1), Tok::Punct("[")) {
                self.next();
                self.next();
                let k = self.expr()?;
                self.expect("]")?;
                x = Expr::new(ExprKind::IndexComponent(Box::new(x), Box::new(k)), span);
            } else if self.eat(".") {
                let m = self.member()?;
                x = Expr::new(ExprKind::Field(Box::new(x), m), span);
            } else if self.eat("[") {
                for i in self.exprs_until("]")? {
                    x = Expr::new(ExprKind::ArrayElement(Box::new(x), Box::new(i)), span);
                }
            } else {
                return Ok(x);
            }
        }
    }

    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        self.expect("(")?;
        self.exprs_until(")")
    }

    fn special_float(word: &str) -> Option<Lit> {
        let (value, rest) = if let Some(rest) = word.strip_prefix("inf") {
            (f64::INFINITY, rest)
        } else {
            (f64::NAN, word.strip_prefix("NaN")?)
        };
        let suffix = match rest {
            "" => None,
            _ => Some(scalar_named(rest.strip_prefix('_')?)?),
        };
        Some(Lit::Float(value, suffix))
    }

    /// A function's label: a name and an optional `#k`.
    fn label(&mut self) -> PResult<(String, &'static str)> {
        let name = self.name()?;
        let mut label = name_text(name);
        if self.eat("#") {
            let k = self.int()?;
            let _ = write!(label, "#{k}");
        }
        Ok((label, name))
    }

    fn atom(&mut self) -> PResult<Expr> {
        let span = self.span();
        let e = |kind| Ok(Expr::new(kind, span));
        match self.peek().clone() {
            Tok::Int(v, s) => {
                self.next();
                e(ExprKind::Lit(Lit::Int(v, s)))
            }
            Tok::Float(v, s) => {
                self.next();
                e(ExprKind::Lit(Lit::Float(v, s)))
            }
            Tok::Local(l) => {
                self.next();
                e(ExprKind::Local(LocalId(l)))
            }
            Tok::Capture(c) => {
                self.next();
                if self.eat("[") {
                    let idx = self.exprs_until("]")?;
                    e(ExprKind::Load(c, idx))
                } else {
                    e(ExprKind::Capture(c))
                }
            }
            Tok::Punct("(") => {
                self.next();
                if self.eat(")") {
                    return e(ExprKind::MakeTuple(Vec::new()));
                }
                let first = self.expr()?;
                if self.eat(")") {
                    return Ok(first);
                }
                self.expect(",")?;
                let mut items = vec![first];
                items.extend(self.exprs_until(")")?);
                e(ExprKind::MakeTuple(items))
            }
            Tok::Punct("[") => {
                self.next();
                if self.eat("]") {
                    return e(ExprKind::MakeArray(Vec::new()));
                }
                let first = self.expr()?;
                if self.eat(";") {
                    let n = self.u32()?;
                    self.expect("]")?;
                    return e(ExprKind::RepeatArray(Box::new(first), n));
                }
                let mut items = vec![first];
                if self.eat(",") {
                    items.extend(self.exprs_until("]")?);
                } else {
                    self.expect("]")?;
                }
                e(ExprKind::MakeArray(items))
            }
            Tok::Punct("{") => e(ExprKind::Block(self.block()?)),
            Tok::Ident(w) => self.word_atom(&w, span),
            _ => self.expected("an expression"),
        }
    }

    fn word_atom(&mut self, w: &str, span: Span) -> PResult<Expr> {
        let e = |kind| Ok(Expr::new(kind, span));
        if let Some(l) = Self::special_float(w) {
            self.next();
            return e(ExprKind::Lit(l));
        }
        if let Some(n) = Self::vector_len(w) {
            self.next();
            self.expect("<")?;
            let s = self.scalar()?;
            self.expect_gt()?;
            let args = self.call_args()?;
            return e(ExprKind::MakeVector(n, s, args));
        }
        if let Some((op, _)) = ATOMICS.iter().find(|(_, n)| *n == w) {
            self.next();
            self.expect("(")?;
            let p = self.place()?;
            let mut args = Vec::new();
            if self.eat(",") {
                args = self.exprs_until(")")?;
            } else {
                self.expect(")")?;
            }
            return e(ExprKind::Atomic(*op, Box::new(p), args));
        }
        match w {
            "true" | "false" => {
                self.next();
                e(ExprKind::Lit(Lit::Bool(w == "true")))
            }
            "idx" => {
                self.next();
                e(ExprKind::KernelIndex)
            }
            "tiled" => {
                self.next();
                self.expect(".")?;
                let f = self.ident()?;
                match TILED.iter().find(|(_, n)| *n == f) {
                    Some((t, _)) => e(ExprKind::Tiled(*t)),
                    None => self.error(format!("`tiled` has no field `{f}`")),
                }
            }
            "index" => {
                self.next();
                let xs = self.call_args()?;
                e(ExprKind::MakeIndex(xs))
            }
            "extent" => {
                self.next();
                self.expect("(")?;
                let c = self.capture()?;
                self.expect(")")?;
                e(ExprKind::Extent(c))
            }
            "tile" => {
                self.next();
                let l = self.local()?;
                self.expect("[")?;
                let idx = self.exprs_until("]")?;
                e(ExprKind::TileLoad(l, idx))
            }
            "call" => {
                self.next();
                let at = self.span();
                let (label, _) = self.label()?;
                let Some(&(_, cell)) = self.fns.get(&label) else {
                    return Err(ParseError {
                        line: at.line,
                        column: at.column,
                        message: format!("no function `{label}` in the text"),
                    });
                };
                let mut type_args = Vec::new();
                if self.eat("::") {
                    self.expect("<")?;
                    loop {
                        type_args.push(self.ty()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.expect_gt()?;
                }
                let args = self.call_args()?;
                e(ExprKind::CallFn(FnRef::cell(cell), args, type_args))
            }
            "struct" => {
                self.next();
                let t = self.ty()?;
                self.expect("{")?;
                let mut fields = Vec::new();
                while !self.eat("}") {
                    let n = self.name()?;
                    self.expect(":")?;
                    fields.push((n, self.expr()?));
                    if !self.eat(",") {
                        self.expect("}")?;
                        break;
                    }
                }
                e(ExprKind::MakeStruct(t, fields))
            }
            "if" => {
                self.next();
                let c = self.expr()?;
                let a = self.block()?;
                self.expect_word("else")?;
                let b = self.block()?;
                e(ExprKind::If(Box::new(c), a, b))
            }
            _ => match BUILTINS.iter().find(|(_, n)| *n == w) {
                Some((b, _)) => {
                    self.next();
                    let args = self.call_args()?;
                    e(ExprKind::Call(*b, args))
                }
                None => self.error(format!("unknown word `{w}` in an expression")),
            },
        }
    }

    fn place(&mut self) -> PResult<Place> {
        let mut p = match self.peek().clone() {
            Tok::Local(l) => {
                self.next();
                if self.eat("[") {
                    let mut idx = self.exprs_until("]")?;
                    while self.eat("[") {
                        idx.extend(self.exprs_until("]")?);
                    }
                    Place::ArrayElement(LocalId(l), idx)
                } else {
                    Place::Local(LocalId(l))
                }
            }
            Tok::Capture(c) => {
                self.next();
                self.expect("[")?;
                let mut idx = self.exprs_until("]")?;
                while self.eat("[") {
                    idx.extend(self.exprs_until("]")?);
                }
                Place::Element(c, idx)
            }
            Tok::Ident(w) if w == "tile" => {
                self.next();
                let l = self.local()?;
                self.expect("[")?;
                let mut idx = self.exprs_until("]")?;
                while self.eat("[") {
                    idx.extend(self.exprs_until("]")?);
                }
                Place::TileElement(l, idx)
            }
            _ => return self.expected("a place"),
        };
        while self.is(".") && !matches!(self.peek_at(1), Tok::Punct("[")) {
            self.next();
            p = Place::Field(Box::new(p), self.member()?);
        }
        Ok(p)
    }

    fn block(&mut self) -> PResult<Block> {
        self.expect("{")?;
        let mut b = Block::default();
        loop {
            if self.eat("}") {
                return Ok(b);
            }
            if self.eat("=>") {
                b.tail = Some(Box::new(self.expr()?));
                self.expect("}")?;
                return Ok(b);
            }
            b.stmts.push(self.stmt()?);
        }
    }

    /// An assignment operator after a place: `=`, `+=`, `(==)=`.
    fn assign_op(&mut self) -> Option<Option<BinOp>> {
        if self.eat("=") {
            return Some(None);
        }
        if let Tok::Punct(p) = self.peek()
            && let Some(op) = p.strip_suffix('=')
            && let Some((op, _)) = BINOPS.iter().find(|(_, s)| *s == op)
            && !matches!(p, &"==" | &"!=" | &"<=" | &">=")
        {
            let op = *op;
            self.next();
            return Some(Some(op));
        }
        if self.is("(")
            && let Some((op, _)) = binop_of(self.peek_at(1))
            && matches!(self.peek_at(2), Tok::Punct(")"))
            && matches!(self.peek_at(3), Tok::Punct("="))
        {
            for _ in 0..4 {
                self.next();
            }
            return Some(Some(op));
        }
        None
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let span = self.span();
        let s = |kind| Ok(Stmt::new(kind, span));
        if self.is("#") {
            self.next();
            self.expect("[")?;
            self.expect_word("unroll")?;
            self.expect("]")?;
            if !self.is_word("for") {
                return self.expected("`for` after `#[unroll]`");
            }
            return self.for_loop(true, span);
        }
        let word = match self.peek() {
            Tok::Ident(w) => w.clone(),
            _ => String::new(),
        };
        match word.as_str() {
            "let" => {
                self.next();
                let local = self.local()?;
                let name = self.name()?;
                let ty = if self.eat(":") {
                    Some(self.ty()?)
                } else {
                    None
                };
                let init = if self.eat("=") {
                    Some(self.expr()?)
                } else {
                    None
                };
                self.expect(";")?;
                s(StmtKind::Let {
                    local,
                    name,
                    ty,
                    init,
                })
            }
            "if" => {
                self.next();
                let c = self.expr()?;
                let a = self.block()?;
                let b = if self.eat_word("else") {
                    Some(self.block()?)
                } else {
                    None
                };
                if self.eat(";") {
                    let Some(b) = b else {
                        return self.error("an `if` expression needs an `else`");
                    };
                    let e = Expr::new(ExprKind::If(Box::new(c), a, b), span);
                    return s(StmtKind::Expr(e));
                }
                s(StmtKind::If(c, a, b))
            }
            "while" => {
                self.next();
                let c = self.expr()?;
                let body = self.block()?;
                s(StmtKind::While(c, body))
            }
            "loop" => {
                self.next();
                let body = self.block()?;
                s(StmtKind::Loop(body))
            }
            "for" => self.for_loop(false, span),
            "break" | "continue" => {
                self.next();
                self.expect(";")?;
                s(if word == "break" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                })
            }
            "return" => {
                self.next();
                if self.eat(";") {
                    return s(StmtKind::Return(None));
                }
                let e = self.expr()?;
                self.expect(";")?;
                s(StmtKind::Return(Some(e)))
            }
            "barrier" => {
                self.next();
                let w = self.ident()?;
                let Some((b, _)) = BARRIERS.iter().find(|(_, n)| *n == w) else {
                    return self.error(format!("no barrier `{w}`"));
                };
                let b = *b;
                self.expect(";")?;
                s(StmtKind::Barrier(b))
            }
            "tile_static" => {
                self.next();
                let local = self.local()?;
                let name = self.name()?;
                self.expect(":")?;
                let ty = self.ty()?;
                self.expect(";")?;
                s(StmtKind::TileStatic { local, name, ty })
            }
            _ => {
                // An assignment if a place and an assignment operator come.
                if matches!(self.peek(), Tok::Local(_) | Tok::Capture(_)) || word == "tile" {
                    let save = self.i;
                    if let Ok(p) = self.place()
                        && let Some(op) = self.assign_op()
                    {
                        let e = self.expr()?;
                        self.expect(";")?;
                        return s(StmtKind::Assign(p, op, e));
                    }
                    self.i = save;
                }
                let e = self.expr()?;
                self.expect(";")?;
                s(StmtKind::Expr(e))
            }
        }
    }

    fn for_loop(&mut self, unroll: bool, span: Span) -> PResult<Stmt> {
        self.expect_word("for")?;
        let var = self.local()?;
        let name = self.name()?;
        self.expect_word("in")?;
        let start = self.expr()?;
        let inclusive = if self.eat("..=") {
            true
        } else {
            self.expect("..")?;
            false
        };
        let end = self.expr()?;
        let step = if self.eat_word("step") {
            Some(self.expr()?)
        } else {
            None
        };
        let reverse = self.eat_word("rev");
        let body = self.block()?;
        Ok(Stmt::new(
            StmtKind::For {
                var,
                name,
                start,
                end,
                inclusive,
                step,
                body,
                unroll,
                reverse,
            },
            span,
        ))
    }

    fn struct_item(&mut self) -> PResult<()> {
        self.expect_word("struct")?;
        let at = self.span();
        let name = self.name()?.to_string();
        if self.structs.contains_key(&name) {
            return Err(ParseError {
                line: at.line,
                column: at.column,
                message: format!("struct `{name}` is declared twice"),
            });
        }
        self.expect("{")?;
        let mut fields = Vec::new();
        while !self.eat("}") {
            let n = self.name()?.to_string();
            self.expect(":")?;
            fields.push((n, self.ty()?));
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        let mut st = StructType {
            name: name.clone(),
            fields,
            declarations: String::new(),
        };
        st.declarations = if self.eat_word("wgsl") {
            match self.next() {
                Tok::Str(s) => s,
                _ => {
                    self.i -= 1;
                    return self.expected("the WGSL declarations (a string)");
                }
            }
        } else {
            default_declarations(&st)
        };
        self.structs.insert(name, Arc::new(st));
        Ok(())
    }

    fn function_item(&mut self) -> PResult<(String, Function)> {
        let span = self.span();
        self.expect_word("fn")?;
        let (label, name) = self.label()?;
        let mut type_params = Vec::new();
        if self.eat("<") {
            loop {
                match self.peek() {
                    Tok::TyParam(k) if *k as usize == type_params.len() => {
                        self.next();
                    }
                    _ => return self.expected(&format!("`${}`", type_params.len())),
                }
                self.expect(":")?;
                let b = self.ident()?;
                match BOUNDS.iter().find(|(_, n)| *n == b) {
                    Some((b, _)) => type_params.push(*b),
                    None => return self.error(format!("no bound `{b}`")),
                }
                if !self.eat(",") {
                    break;
                }
            }
            self.expect_gt()?;
        }
        self.expect("(")?;
        let mut params = Vec::new();
        let mut bindings = Vec::new();
        let mut views = 0;
        let mut position = 0;
        while !self.eat(")") {
            match self.peek().clone() {
                Tok::Local(l) => {
                    self.next();
                    let n = self.name()?;
                    self.expect(":")?;
                    params.push((LocalId(l), n, self.ty()?));
                }
                Tok::Capture(c) => {
                    if c.as_param() != Some(views) {
                        return self.expected(&format!("`@p{views}`"));
                    }
                    views += 1;
                    self.next();
                    self.expect(":")?;
                    let (elem, rank, writable) = self.view()?;
                    bindings.push((
                        position,
                        ParamBinding::View {
                            elem,
                            rank,
                            writable,
                        },
                    ));
                }
                Tok::Ident(w) if w == "tiled" => {
                    self.next();
                    self.expect("<")?;
                    let n = self.u32()?;
                    self.expect_gt()?;
                    bindings.push((position, ParamBinding::Tiled(n)));
                }
                _ => return self.expected("a parameter"),
            }
            position += 1;
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        let ret = if self.eat("->") {
            Some(self.ty()?)
        } else {
            None
        };
        let body = self.block()?;
        Ok((
            label,
            Function {
                name,
                type_params,
                params,
                ret,
                bindings,
                body,
                span,
            },
        ))
    }

    fn kernel_item(&mut self) -> PResult<Kernel> {
        let span = self.span();
        self.expect_word("kernel")?;
        let name = match self.next() {
            Tok::Str(s) | Tok::Ident(s) => s,
            _ => {
                self.i -= 1;
                return self.expected("the kernel's name");
            }
        };
        self.expect_word("rank")?;
        let rank = self.u32()?;
        let tile = if self.eat_word("tile") {
            self.expect("[")?;
            let mut dims = Vec::new();
            while !self.eat("]") {
                dims.push(self.u32()?);
                if !self.eat(",") {
                    self.expect("]")?;
                    break;
                }
            }
            Some(dims)
        } else {
            None
        };
        self.expect("(")?;
        let mut captures = Vec::new();
        while !self.eat(")") {
            let c = self.capture()?;
            if c.0 as usize != captures.len() {
                self.i -= 1;
                return self.expected(&format!("`@{}`", captures.len()));
            }
            let n = self.name()?;
            self.expect(":")?;
            let kind = if self.is_word("view") || self.is_word("mut") {
                let (elem, rank, writable) = self.view()?;
                CaptureKind::Container {
                    elem,
                    rank,
                    writable,
                }
            } else {
                match self.ty()? {
                    Type::Scalar(s) => CaptureKind::Scalar(s),
                    Type::Vector(n, s) => CaptureKind::Vector(n, s),
                    Type::Index(n) => CaptureKind::Index(n),
                    t => CaptureKind::Struct(t),
                }
            };
            captures.push((n, kind));
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        let body = self.block()?;
        Ok(Kernel {
            name,
            rank,
            captures,
            body,
            span,
            tile,
        })
    }

    /// Every item of the text: the functions (first one first) and the
    /// kernels.
    fn module(&mut self) -> PResult<(Vec<Function>, Vec<Kernel>)> {
        // Functions may be called before their item: declare them first.
        let mut depth = 0usize;
        for k in 0..self.toks.len() {
            match &self.toks[k].0 {
                Tok::Punct("{") => depth += 1,
                Tok::Punct("}") => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 && matches!(&self.toks[k].0, Tok::Ident(w) if w == "fn") {
                self.i = k + 1;
                let (label, name) = self.label()?;
                let cell: &'static OnceLock<Function> = Box::leak(Box::new(OnceLock::new()));
                if self.fns.insert(label.clone(), (name, cell)).is_some() {
                    return self.error(format!("function `{label}` is defined twice"));
                }
            }
        }
        self.i = 0;
        let mut functions = Vec::new();
        let mut kernels = Vec::new();
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Ident(w) if w == "struct" => self.struct_item()?,
                Tok::Ident(w) if w == "fn" => {
                    let (label, f) = self.function_item()?;
                    if let Some((_, cell)) = self.fns.get(&label) {
                        let _ = cell.set(f.clone());
                    }
                    functions.push(f);
                }
                Tok::Ident(w) if w == "kernel" => kernels.push(self.kernel_item()?),
                _ => return self.expected("`struct`, `fn` or `kernel`"),
            }
        }
        Ok((functions, kernels))
    }
}

/// Parses the text of a kernel: the struct declarations and `#[kernel]`
/// functions it uses, and exactly one `kernel` item (the grammar is in the
/// [module documentation](self)). Every node's span is its position in
/// the text, with the file `<ir>`.
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
