//! The kernel IR: what `parallel_for_each!` and `#[kernel]` expand to.
//!
//! The macros translate a kernel body (already type-checked by rustc, since
//! the same body is compiled natively for the CPU accelerator) into code that
//! builds this tree at first launch. Types are then reconstructed by
//! the type reconstruction pass with Rust's own rules (unification, integer
//! literals defaulting to `i32`, float literals to `f64`), the tree is
//! written as WGSL by the WGSL writer and validated by naga.
//!
//! Every node that can fail carries a [`Span`]: the Rust source location the
//! macro saw, so runtime errors name the user's code.

use std::fmt;

/// A Rust source location (`file:line:column`) of a kernel construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The source file, as `file!()` reports it.
    pub file: &'static str,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A scalar type kernels compute with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `bool` (locals only; never stored in buffers).
    Bool,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `f32`.
    F32,
    /// `f64` (needs `SHADER_F64` on GPUs).
    F64,
    /// `f16` (`half::f16`; needs `SHADER_F16` on GPUs).
    F16,
    /// `u8`: a `u32` in WGSL holding a value in `0..=255` (every operation
    /// that could leave the range wraps back into it); four to a word in
    /// containers.
    U8,
    /// `i8`: an `i32` in WGSL holding a value in `-128..=127`; four to a
    /// word in containers.
    I8,
    /// `u16`: a `u32` in WGSL holding a value in `0..=65535`; two to a word
    /// in containers.
    U16,
    /// `i16`: an `i32` in WGSL holding a value in `-32768..=32767`; two to a
    /// word in containers.
    I16,
}

impl Scalar {
    /// The WGSL spelling.
    pub fn wgsl(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::F16 => "f16",
            Scalar::U8 | Scalar::U16 => "u32",
            Scalar::I8 | Scalar::I16 => "i32",
        }
    }

    /// Whether it is an integer type (`i32`, `u32`, or one of the small
    /// integers).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Scalar::I32 | Scalar::U32 | Scalar::U8 | Scalar::I8 | Scalar::U16 | Scalar::I16
        )
    }

    /// Whether it is one of the small integers (`u8`, `i8`, `u16`, `i16`),
    /// which WGSL holds in the 32-bit integer of the same signedness.
    pub fn is_small(self) -> bool {
        matches!(self, Scalar::U8 | Scalar::I8 | Scalar::U16 | Scalar::I16)
    }

    /// Whether it is a signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::I8 | Scalar::I16)
    }

    /// The number of bits of an integer type (32 for the others).
    pub fn bits(self) -> u32 {
        match self {
            Scalar::U8 | Scalar::I8 => 8,
            Scalar::U16 | Scalar::I16 => 16,
            Scalar::F64 => 64,
            Scalar::F16 => 16,
            _ => 32,
        }
    }

    /// The 32-bit type WGSL computes a small integer in (`u32` for `u8`
    /// and `u16`, `i32` for `i8` and `i16`); the type itself for others.
    pub fn wide(self) -> Scalar {
        match self {
            Scalar::U8 | Scalar::U16 => Scalar::U32,
            Scalar::I8 | Scalar::I16 => Scalar::I32,
            s => s,
        }
    }

    /// The smallest and largest value of an integer type.
    pub fn int_range(self) -> (i64, i64) {
        match self {
            Scalar::U8 => (0, 255),
            Scalar::I8 => (-128, 127),
            Scalar::U16 => (0, 65_535),
            Scalar::I16 => (-32_768, 32_767),
            Scalar::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
            _ => (0, i64::from(u32::MAX)),
        }
    }

    /// Whether it is `f32`, `f64` or `f16`.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64 | Scalar::F16)
    }

    /// The Rust spelling.
    pub fn rust(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::F16 => "f16",
            Scalar::U8 => "u8",
            Scalar::I8 => "i8",
            Scalar::U16 => "u16",
            Scalar::I16 => "i16",
        }
    }
}

/// A kernel value type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// A scalar.
    Scalar(Scalar),
    /// An `Index<N>` (or `[i32; N]` used as one): `array<i32, N>` in WGSL.
    Index(u32),
    /// A fixed-size array local `[T; N]`.
    Array(Box<Type>, u32),
    /// Type parameter `k` of a generic `#[kernel]` function (signatures
    /// only; replaced by a concrete type per instantiation).
    Param(u32),
    /// A short vector (`Float4`: `vec4<f32>`).
    Vector(u8, Scalar),
    /// A `#[derive(Element)]` struct.
    Struct(std::sync::Arc<StructType>),
    /// A tuple local.
    Tuple(Vec<Type>),
    /// `&mut T`: a `#[kernel]` function parameter through which the
    /// function reads and writes its caller's local (C++ AMP's `T&`
    /// parameters); in signatures only.
    Ref(Box<Type>),
}

/// A struct type of the kernel language.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StructType {
    /// The Rust (and WGSL) name.
    pub name: String,
    /// The fields, in declaration order.
    pub fields: Vec<(String, Type)>,
    /// The WGSL declarations of the struct and the structs it contains.
    pub declarations: String,
}

impl Type {
    /// The scalar type of each 32-bit word of the type, in memory order,
    /// if it is made of 4-byte scalars with no padding (`i32`, `u32`,
    /// `f32`, their 2- and 4-component vectors, arrays of them).
    pub fn words(&self) -> Option<Vec<Scalar>> {
        match self {
            Type::Scalar(s @ (Scalar::I32 | Scalar::U32 | Scalar::F32)) => Some(vec![*s]),
            Type::Vector(n @ (2 | 4), s @ (Scalar::I32 | Scalar::U32 | Scalar::F32)) => {
                Some(vec![*s; usize::from(*n)])
            }
            Type::Array(e, n) => {
                let w = e.words()?;
                Some(
                    w.iter()
                        .copied()
                        .cycle()
                        .take(w.len() * *n as usize)
                        .collect(),
                )
            }
            _ => None,
        }
    }

    /// The type of member `m` of a value of this type: a vector's component
    /// or swizzle, a struct's field, a tuple's element (`None` if it has no
    /// such member).
    pub fn member(&self, m: &Member) -> Option<Type> {
        match (self, m) {
            (Type::Vector(_, s), Member::Named(n)) if n.len() == 1 => Some(Type::Scalar(*s)),
            // A swizzle (type reconstruction checked the components).
            (Type::Vector(_, s), Member::Named(n)) => Some(Type::Vector(n.len() as u8, *s)),
            (Type::Struct(st), Member::Named(n)) => st
                .fields
                .iter()
                .find(|(f, _)| f == n)
                .map(|(_, t)| t.clone()),
            (Type::Tuple(ts), Member::Index(i)) => ts.get(*i as usize).cloned(),
            _ => None,
        }
    }

    /// Whether the type (or a part of it) is `f16`.
    pub fn uses_f16(&self) -> bool {
        match self {
            Type::Scalar(s) | Type::Vector(_, s) => *s == Scalar::F16,
            Type::Array(e, _) => e.uses_f16(),
            Type::Struct(st) => st.fields.iter().any(|(_, t)| t.uses_f16()),
            Type::Tuple(ts) => ts.iter().any(Type::uses_f16),
            Type::Ref(t) => t.uses_f16(),
            Type::Index(_) | Type::Param(_) => false,
        }
    }

    /// Whether the type (or a part of it) is `f64`.
    pub fn uses_f64(&self) -> bool {
        match self {
            Type::Scalar(s) | Type::Vector(_, s) => *s == Scalar::F64,
            Type::Array(e, _) => e.uses_f64(),
            Type::Struct(st) => st.fields.iter().any(|(_, t)| t.uses_f64()),
            Type::Tuple(ts) => ts.iter().any(Type::uses_f64),
            Type::Ref(t) => t.uses_f64(),
            Type::Index(_) | Type::Param(_) => false,
        }
    }
}

/// A field of a vector, struct or tuple.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Member {
    /// `.x`, `.position`.
    Named(&'static str),
    /// `.0`.
    Index(u32),
}

impl From<Scalar> for Type {
    fn from(s: Scalar) -> Type {
        Type::Scalar(s)
    }
}

/// A local variable of a kernel (or helper function), numbered by the macro.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// A captured variable, numbered in capture order.
///
/// In a `#[kernel]` function's body, view parameter `k` is written as the
/// capture [`CaptureId::param(k)`](CaptureId::param); each instance of the
/// function replaces it by the capture its call passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CaptureId(pub u32);

impl CaptureId {
    /// Where the ids of view parameters start.
    const PARAM_BASE: u32 = 1 << 30;

    /// View parameter `k` of a `#[kernel]` function.
    pub const fn param(k: u32) -> CaptureId {
        CaptureId(Self::PARAM_BASE + k)
    }

    /// The view parameter this id stands for, if it is one.
    pub const fn as_param(self) -> Option<u32> {
        if self.0 >= Self::PARAM_BASE {
            Some(self.0 - Self::PARAM_BASE)
        } else {
            None
        }
    }
}

/// What a `#[kernel]` function parameter that takes no value binds: a
/// captured container (C++ AMP passes `array_view`s to `restrict(amp)`
/// functions by reference) or the kernel's tiled index (with its barrier).
#[derive(Debug, Clone, PartialEq)]
pub enum ParamBinding {
    /// `&ArrayView<'_, T, N[, A]>` or `&Array<T, N>`.
    View {
        /// The element type.
        elem: Type,
        /// The rank.
        rank: u32,
        /// Whether the function may write it.
        writable: bool,
    },
    /// `&TiledIndex<N>`: the function may read its fields and wait on its
    /// barrier.
    Tiled(u32),
}

/// Binary operators (Rust semantics: integer arithmetic wraps; `/` and `%`
/// truncate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    /// Whether the result is `bool` whatever the operands.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    /// The WGSL operator.
    pub fn wgsl(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-x` (wrapping for integers).
    Neg,
    /// `!x` (logical for `bool`, bitwise for integers).
    Not,
}

/// Built-in functions, spelled as Rust methods (`x.sqrt()`) or free
/// functions of `amp_core::math`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Builtin {
    Sqrt,
    Abs,
    Min,
    Max,
    Clamp,
    Floor,
    Ceil,
    Round,
    Trunc,
    Exp,
    Exp2,
    Ln,
    Log2,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Powf,
    MulAdd,
    Signum,
    Recip,
    Fract,
    CountOnes,
    LeadingZeros,
    TrailingZeros,
    ReverseBits,
    CountZeros,
    LeadingOnes,
    TrailingOnes,
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    WrappingNeg,
    RotateLeft,
    RotateRight,
    Pow,
    Powi,
    Log10,
    ToRadians,
    ToDegrees,
    Copysign,
    IsNan,
    IsFinite,
    IsInfinite,
    IsSignNegative,
    IsSignPositive,
    ToBits,
    RemEuclid,
    DivEuclid,
    AbsDiff,
    IsPowerOfTwo,
    Hypot,
    Log,
    Ln1p,
    ExpM1,
    Cbrt,
    Asinh,
    Acosh,
    Atanh,
    SinCos,
    FromBits,
    /// `f16::from_f32(x)` (`half::f16`): `x` is an `f32`.
    HalfFromF32,
    /// `f16::from_f64(x)`: `x` is an `f64`.
    HalfFromF64,
    /// `h.to_f32()` of an `f16`.
    HalfToF32,
    /// `h.to_f64()` of an `f16`.
    HalfToF64,
    Dot,
    Length,
    Distance,
    Normalize,
    Cross,
    /// `extent.contains(&index)`: every component in `0..extent[d]`.
    Contains,
    /// `extent.size()`: the product of the components, as a wrapping `u32`
    /// (C++ AMP's `unsigned int`).
    Size,
    /// `extent.linearize(index)`: the row-major position of `index` in
    /// `extent` (an `i32`; a rank-1 index may be an `i32`). Made by the
    /// macros for views made with `view_as` inside kernels.
    Linearize,
    /// `extent.delinearize(k)`: the index at row-major position `k` of
    /// `extent`. Made by the macros for views made with `view_as` inside
    /// kernels.
    Delinearize,
    /// `Index::new(arr)` / `Extent::new(arr)` of an `[i32; N]` value that is
    /// not an array literal (C++ AMP's `index<N> idx(arr);`): the index with
    /// the array's elements as its components.
    IndexFromArray,
    /// `bitcast(value, witness)`: `value`'s bits as the type of `witness`
    /// (a literal, or a captured container, whose element type it takes
    /// without reading it); both 4-byte scalars. Made by the macros for
    /// views made with `reinterpret_as` inside kernels.
    Bitcast,
    /// `reinterpret_load(view, k, witness)`: element `k` of `view` read as
    /// the type of `witness` (not evaluated), counting both in 32-bit words
    /// over `view`'s elements in row-major order: word `j` of the result is
    /// word `(k * W + j) % V` of element `(k * W + j) / V`, where the
    /// result has `W` words and an element `V`. Both types are made of
    /// 4-byte scalars with no padding (`i32`, `u32`, `f32`, their 2- and
    /// 4-component vectors, arrays of them). Made by the macros for views
    /// made with `reinterpret_as` inside kernels.
    ReinterpretLoad,
    /// `reinterpret_store(view, value, k)`: stores `value`'s words where
    /// [`ReinterpretLoad`](Builtin::ReinterpretLoad) reads them (the value
    /// first: Rust evaluates it before the place).
    ReinterpretStore,
    /// A `tile_static` element (the argument, a `TileLoad`) read at an
    /// address every work item of the tile shares, after a barrier and
    /// before any write to the array: the same value for the whole tile
    /// (WGSL's `workgroupUniformLoad`), so control flow may depend on it.
    /// The macro's uniformity check marks these loads.
    UniformLoad,
    /// `subgroup_add(x)`: the sum over the active work items of the
    /// subgroup (WGSL `subgroupAdd`); the CPU accelerator's subgroups have
    /// one work item.
    SubgroupAdd,
    /// `subgroup_min(x)` (WGSL `subgroupMin`).
    SubgroupMin,
    /// `subgroup_max(x)` (WGSL `subgroupMax`).
    SubgroupMax,
    /// `subgroup_broadcast(x, lane)`: `x` of work item `lane` of the
    /// subgroup (WGSL `subgroupShuffle`).
    SubgroupBroadcast,
    /// `subgroup_ballot(p)`: a bit per lane whose `p` is true, in a
    /// `UInt4` (WGSL `subgroupBallot`).
    SubgroupBallot,
    /// `subgroup_size()`: the work items of a subgroup.
    SubgroupSize,
    /// `subgroup_lane()`: the work item's index in its subgroup.
    SubgroupLane,
    /// WGSL's `select(f, t, c)`: `t` where `c`, else `f` (both evaluated).
    /// Made by the WGSL lowering (`passes::legalize`), never by the macros.
    Select,
    /// Rust's float `%`: C's exact `fmod`, with the sign of the dividend.
    /// Made by the WGSL lowering (`passes::legalize`) from `%`.
    Fmod,
}

impl Builtin {
    /// Whether this is a subgroup operation (the module needs the
    /// `SUBGROUP` feature).
    pub fn is_subgroup(self) -> bool {
        matches!(
            self,
            Builtin::SubgroupAdd
                | Builtin::SubgroupMin
                | Builtin::SubgroupMax
                | Builtin::SubgroupBroadcast
                | Builtin::SubgroupBallot
                | Builtin::SubgroupSize
                | Builtin::SubgroupLane
        )
    }
}

/// Atomic read-modify-write operations (C++ AMP's `atomic_fetch_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum AtomicOp {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Min,
    Max,
    Exchange,
    CompareExchange,
}

impl AtomicOp {
    /// The WGSL built-in.
    pub fn wgsl(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomicAdd",
            AtomicOp::Sub => "atomicSub",
            AtomicOp::And => "atomicAnd",
            AtomicOp::Or => "atomicOr",
            AtomicOp::Xor => "atomicXor",
            AtomicOp::Min => "atomicMin",
            AtomicOp::Max => "atomicMax",
            AtomicOp::Exchange => "atomicExchange",
            AtomicOp::CompareExchange => "atomicCompareExchangeWeak",
        }
    }

    /// Whether `f32` elements are allowed.
    pub fn allows_f32(self) -> bool {
        matches!(self, AtomicOp::Add | AtomicOp::Sub | AtomicOp::Exchange)
    }
}

/// A literal as the macro saw it: unsuffixed literals get their type from
/// inference, as in Rust.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lit {
    /// An integer literal, with its suffix type if any.
    Int(u128, Option<Scalar>),
    /// A float literal, with its suffix type if any.
    Float(f64, Option<Scalar>),
    /// `true` / `false`.
    Bool(bool),
}

/// An expression.
///
/// Two expressions are equal if their kinds and spans are (whether or not
/// they carry their types).
#[derive(Debug, Clone)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is in the Rust source.
    pub span: Span,
    /// Its type, written by type reconstruction (`None` before it, and on
    /// expressions a pass made until types are annotated again).
    pub ty: Option<Type>,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        self.kind == other.kind && self.span == other.span
    }
}

/// The kinds of [`Expr`].
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A literal.
    Lit(Lit),
    /// A local variable.
    Local(LocalId),
    /// A captured scalar (by value) — containers are only indexed.
    Capture(CaptureId),
    /// The kernel's index parameter (`idx` in `|idx: Index<N>|`).
    KernelIndex,
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A unary operation.
    Unary(UnOp, Box<Expr>),
    /// `e as T`.
    Cast(Box<Expr>, Scalar),
    /// An element of a captured container: `a[idx]`, `a[[i, j]]`, `a[i][j]`.
    Load(CaptureId, Vec<Expr>),
    /// Component `k` of an index value: `idx[k]`.
    IndexComponent(Box<Expr>, Box<Expr>),
    /// An index value built from components: `[i, j]` or `Index::new([i, j])`.
    MakeIndex(Vec<Expr>),
    /// An element of a fixed-size array local: `arr[i]`.
    ArrayElement(Box<Expr>, Box<Expr>),
    /// An array value `[a, b, c]` (as a local initialiser).
    MakeArray(Vec<Expr>),
    /// An array value `[v; n]`.
    RepeatArray(Box<Expr>, u32),
    /// A built-in function call.
    Call(Builtin, Vec<Expr>),
    /// A call of a `#[kernel]` function, with its type arguments (filled in
    /// by type reconstruction).
    CallFn(FnRef, Vec<Expr>, Vec<Type>),
    /// `&mut place`, an argument for a `&mut T` parameter of a `#[kernel]`
    /// function: a local or an element of a local array.
    AddrOf(Box<Place>),
    /// `if c { a } else { b }` as an expression.
    If(Box<Expr>, Block, Block),
    /// `e.x`, `e.field`, `e.0`.
    Field(Box<Expr>, Member),
    /// `Float4::new(a, b, c, d)` (or `splat(v)`: one argument).
    MakeVector(u8, Scalar, Vec<Expr>),
    /// `Name { field: e, .. }` of a `#[derive(Element)]` struct.
    MakeStruct(Type, Vec<(&'static str, Expr)>),
    /// `(a, b, ..)`.
    MakeTuple(Vec<Expr>),
    /// A field of the tiled index (`t.local`).
    Tiled(TiledField),
    /// An element of a `tile_static` array: `a[i][j]`.
    TileLoad(LocalId, Vec<Expr>),
    /// `a.extent()` of a captured container (an `Index<N>`-shaped value).
    Extent(CaptureId),
    /// An atomic operation on an element of a captured container or of a
    /// `tile_static` array (a [`Place::Element`] or [`Place::TileElement`]),
    /// with its operands; its value is the element's old value.
    /// `CompareExchange` takes the expected and the new value, and
    /// exchanges only if the element equals the expected one.
    Atomic(AtomicOp, Box<Place>, Vec<Expr>),
    /// A block with a tail expression.
    Block(Block),
}

/// A place that can be assigned.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// A local variable.
    Local(LocalId),
    /// An element of a captured container.
    Element(CaptureId, Vec<Expr>),
    /// An element of a fixed-size array local.
    ArrayElement(LocalId, Vec<Expr>),
    /// A field of a place: `p.x = ..`, `c[idx].mass = ..`.
    Field(Box<Place>, Member),
    /// An element of a `tile_static` array.
    TileElement(LocalId, Vec<Expr>),
}

/// A statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Where it is in the Rust source.
    pub span: Span,
}

/// The kinds of [`Stmt`].
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // built once per kernel; boxing buys nothing
pub enum StmtKind {
    /// `let [mut] x[: T] [= e];`
    Let {
        /// The new local.
        local: LocalId,
        /// Its Rust name (for readable WGSL).
        name: &'static str,
        /// An explicit type annotation.
        ty: Option<Type>,
        /// The initialiser.
        init: Option<Expr>,
    },
    /// `place = e` or `place op= e`.
    Assign(Place, Option<BinOp>, Expr),
    /// An expression evaluated for its effects (or a block's tail).
    Expr(Expr),
    /// `if c { .. } [else { .. }]`.
    If(Expr, Block, Option<Block>),
    /// `while c { .. }`.
    While(Expr, Block),
    /// `loop { .. }`.
    Loop(Block),
    /// `for v in start..end` / `start..=end`, optionally `.step_by(s)`.
    For {
        /// The loop variable.
        var: LocalId,
        /// Its Rust name.
        name: &'static str,
        /// The range start.
        start: Expr,
        /// The range end.
        end: Expr,
        /// Whether the end is included (`..=`).
        inclusive: bool,
        /// `step_by`'s argument.
        step: Option<Expr>,
        /// The loop body.
        body: Block,
        /// Whether the loop is marked `#[unroll]`: unrolled fully, or an
        /// error where it cannot be.
        unroll: bool,
        /// `.rev()`: the same values, last first.
        reverse: bool,
    },
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `return` (ends this work item), or `return e` in a `#[kernel]`
    /// function.
    Return(Option<Expr>),
    /// A tile barrier.
    Barrier(BarrierKind),
    /// `tile_static! { let name: ty; }`: memory shared by a tile.
    TileStatic {
        /// The array.
        local: LocalId,
        /// Its Rust name.
        name: &'static str,
        /// Its type (an array).
        ty: Type,
    },
}

/// A block: statements and an optional tail expression (its value).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// The value of the block.
    pub tail: Option<Box<Expr>>,
}

/// How a captured variable is used.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CaptureKind {
    /// A container of rank `rank` with elements of `elem`; `writable` if the
    /// kernel may write it.
    Container {
        /// The element type.
        elem: Type,
        /// The rank.
        rank: u32,
        /// Whether the view type allows writes.
        writable: bool,
    },
    /// A scalar copied by value into the launch's parameters.
    Scalar(Scalar),
    /// A short vector (`Float4`: 4 and `F32`) copied by value into the
    /// launch's parameters.
    Vector(u8, Scalar),
    /// An `Index<N>` or `Extent<N>` of rank N copied by value into the
    /// launch's parameters (an `array<i32, N>` in the kernel).
    Index(u32),
    /// A `#[derive(Element)]` struct (its type) copied by value into the
    /// launch's parameters, word by word.
    Struct(Type),
}

/// A whole kernel: what one `parallel_for_each!` lowers to.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    /// A readable name (`file:line`), for diagnostics and dumps.
    pub name: String,
    /// The rank of the compute domain.
    pub rank: u32,
    /// The captured variables, in [`CaptureId`] order.
    pub captures: Vec<(&'static str, CaptureKind)>,
    /// The body.
    pub body: Block,
    /// Where the kernel is.
    pub span: Span,
    /// The tile shape (most significant dimension first) of a tiled kernel.
    pub tile: Option<Vec<u32>>,
}

/// A field of a kernel's `TiledIndex`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TiledField {
    /// `t.global`.
    Global,
    /// `t.local`.
    Local,
    /// `t.tile`.
    Tile,
    /// `t.tile_origin`.
    TileOrigin,
    /// `t.tile_extent`.
    TileExtent,
}

/// The four C++ AMP barriers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarrierKind {
    /// `wait` (all memory).
    Wait,
    /// `wait_with_all_memory_fence`.
    AllMemory,
    /// `wait_with_global_memory_fence`.
    GlobalMemory,
    /// `wait_with_tile_static_memory_fence`.
    TileStaticMemory,
}

/// Shorthands for generated code (keeps macro output small and readable).
impl Expr {
    /// A new expression at `span`.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr {
            kind,
            span,
            ty: None,
        }
    }

    /// A new expression at `span` whose type is known.
    pub fn typed(kind: ExprKind, ty: Type, span: Span) -> Expr {
        Expr {
            kind,
            span,
            ty: Some(ty),
        }
    }
}

impl Stmt {
    /// A new statement at `span`.
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        Stmt { kind, span }
    }
}

/// A Rust constant that a kernel inlines: a scalar literal, or an array
/// of them (`const TAPS: [f32; 5]`, `const GAUSS: [[f32; 5]; 5]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be inlined into a kernel as a constant",
    note = "constants in kernels (paths such as `i32::MAX`, upper-case names such as `TS`) must be `i32`, `u32`, `f32`, `f64`, `u8`, `i8`, `u16`, `i16`, `bool`, `usize` (used through a cast: `N as i32`) or arrays of those; name local variables in snake case to capture them"
)]
pub trait ConstValue: Copy {
    /// The expression that stands for the value.
    fn expr(self, span: Span) -> Expr;
    /// A digest of the value's bits, for the key of a kernel compiled with
    /// it inlined.
    fn key(self) -> u64;
}

macro_rules! scalar_const_value {
    ($($t:ty),*) => {$(
        impl ConstValue for $t {
            fn expr(self, span: Span) -> Expr {
                const_expr(self, span)
            }
            fn key(self) -> u64 {
                ConstLit::key(self)
            }
        }
    )*};
}
scalar_const_value!(i32, u32, f32, f64, bool, usize, u8, i8, u16, i16);

impl<T: ConstValue, const N: usize> ConstValue for [T; N] {
    fn expr(self, span: Span) -> Expr {
        Expr::new(
            ExprKind::MakeArray(self.iter().map(|x| x.expr(span)).collect()),
            span,
        )
    }
    fn key(self) -> u64 {
        // FNV-1a over the elements' keys.
        self.iter().fold(0xcbf2_9ce4_8422_2325, |h, x| {
            (h ^ x.key()).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }
}

/// A Rust scalar constant that a kernel inlines as a literal.
pub trait ConstLit: Copy {
    /// The literal.
    fn lit(self) -> Lit;
    /// The value's bits, for the key of a kernel compiled with it inlined.
    fn key(self) -> u64;
}

impl ConstLit for i32 {
    fn lit(self) -> Lit {
        Lit::Int(self.unsigned_abs() as u128, Some(Scalar::I32))
    }
    fn key(self) -> u64 {
        u64::from(self as u32)
    }
}

impl ConstLit for u32 {
    fn lit(self) -> Lit {
        Lit::Int(self as u128, Some(Scalar::U32))
    }
    fn key(self) -> u64 {
        u64::from(self)
    }
}

macro_rules! small_const_lit {
    ($($t:ty => $s:ident),*) => {$(
        impl ConstLit for $t {
            fn lit(self) -> Lit {
                Lit::Int(i64::from(self).unsigned_abs().into(), Some(Scalar::$s))
            }
            fn key(self) -> u64 {
                i64::from(self) as u64
            }
        }
    )*};
}
small_const_lit!(u8 => U8, i8 => I8, u16 => U16, i16 => I16);

impl ConstLit for f32 {
    fn lit(self) -> Lit {
        Lit::Float(self as f64, Some(Scalar::F32))
    }
    fn key(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl ConstLit for f64 {
    fn lit(self) -> Lit {
        Lit::Float(self, Some(Scalar::F64))
    }
    fn key(self) -> u64 {
        self.to_bits()
    }
}

/// `usize` constants (`const N: usize`, `Index::<2>::RANK`) are untyped
/// integer literals: a kernel uses them through a cast (`N as i32`) or where
/// the context gives them a type.
impl ConstLit for usize {
    fn lit(self) -> Lit {
        Lit::Int(self as u128, None)
    }
    fn key(self) -> u64 {
        self as u64
    }
}

impl ConstLit for bool {
    fn lit(self) -> Lit {
        Lit::Bool(self)
    }
    fn key(self) -> u64 {
        u64::from(self)
    }
}

/// The expression for the value of a Rust constant (negative numbers become
/// a negated literal, as they would be written).
pub fn const_expr<T: ConstLit + PartialOrd + Default>(value: T, span: Span) -> Expr {
    let lit = Expr::new(ExprKind::Lit(value.lit()), span);
    let negative = match value.lit() {
        Lit::Int(..) => value < T::default(),
        Lit::Float(f, _) => f.is_sign_negative() && f != 0.0,
        Lit::Bool(_) => false,
    };
    if negative {
        match value.lit() {
            Lit::Float(f, s) => Expr::new(ExprKind::Lit(Lit::Float(f, s)), span),
            _ => Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(lit)), span),
        }
    } else {
        lit
    }
}

/// A `#[kernel]` function: by its IR builder (generated by `#[kernel]`),
/// or a [`Function`] made at run time (parsed from the IR's text form).
#[derive(Clone, Copy)]
pub struct FnRef(FnSource);

/// Where a [`FnRef`]'s function comes from.
#[derive(Clone, Copy)]
enum FnSource {
    /// The builder `#[kernel]` generates.
    Builder(fn() -> Function),
    /// A function made at run time, leaked (set once; a cell so that
    /// parsed functions may call each other, themselves included).
    Shared(&'static std::sync::OnceLock<Function>),
}

impl FnRef {
    /// The function that `builder` builds (what `#[kernel]` generates).
    pub const fn new(builder: fn() -> Function) -> FnRef {
        FnRef(FnSource::Builder(builder))
    }

    /// A function made at run time (by tools and tests: the text form's
    /// parser). It is leaked: it lives as long as the program.
    pub fn shared(function: Function) -> FnRef {
        let cell = Box::leak(Box::new(std::sync::OnceLock::new()));
        let _ = cell.set(function);
        FnRef(FnSource::Shared(cell))
    }

    /// A function defined later through `cell` (leaked), so that parsed
    /// functions can call each other, or themselves, before all are made.
    #[cfg(feature = "wgsl")]
    pub(crate) fn cell(cell: &'static std::sync::OnceLock<Function>) -> FnRef {
        FnRef(FnSource::Shared(cell))
    }

    /// The function's IR (a fresh copy).
    ///
    /// # Panics
    ///
    /// If the function was declared by the parser and never defined (the
    /// parser refuses such text).
    pub fn function(self) -> Function {
        match self.0 {
            FnSource::Builder(build) => build(),
            FnSource::Shared(cell) => cell
                .get()
                .cloned()
                .expect("a `#[kernel]` function declared but never defined"),
        }
    }

    /// A key identifying the function (and its const arguments).
    pub fn key(self) -> usize {
        match self.0 {
            FnSource::Builder(build) => build as usize,
            FnSource::Shared(cell) => std::ptr::from_ref(cell) as usize,
        }
    }
}

impl PartialEq for FnRef {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl fmt::Debug for FnRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FnRef({:#x})", self.key())
    }
}

/// What a type parameter of a `#[kernel]` function accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bound {
    /// Any kernel number (`amp_core::Number`).
    Number,
    /// `f32` or `f64` (`amp_core::Float`).
    Float,
    /// `i32` or `u32` (`amp_core::Integer`).
    Integer,
    /// Any element type (`amp_core::Element`): scalars, short vectors and
    /// `#[derive(Element)]` structs, which the function only moves (loads,
    /// stores, copies, passes on), as C++ AMP's `template <typename T>`
    /// helpers over `array_view<T>` do.
    Element,
}

/// The IR of a `#[kernel]` function.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// Its Rust name.
    pub name: &'static str,
    /// The bounds of its type parameters, in order.
    pub type_params: Vec<Bound>,
    /// Its parameters: local, Rust name, type.
    pub params: Vec<(LocalId, &'static str, Type)>,
    /// Its return type (`None` for `()`).
    pub ret: Option<Type>,
    /// Its parameters that bind instead of taking a value: their position
    /// among all of its parameters (the call's arguments), and what they
    /// bind. View parameter `k` (in this order, tiled ones not counted) is
    /// [`CaptureId::param(k)`](CaptureId::param) in the body.
    pub bindings: Vec<(usize, ParamBinding)>,
    /// Its body.
    pub body: Block,
    /// Where it is.
    pub span: Span,
}
