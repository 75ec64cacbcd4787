//! The kernel AST: the subset of Rust a kernel may contain, with every name
//! resolved (local, capture, the index parameter, or a constant) and every
//! node spanned at the user's code.

use proc_macro2::{Ident, Span};

pub(crate) use amp_ir::{AtomicOp, BarrierKind, BinOp, Builtin, Scalar, TiledField, UnOp};

/// The scalar type a Rust type name denotes (`f16` is named through
/// `half::f16` paths, resolved elsewhere).
pub(crate) fn scalar_from_name(name: &str) -> Option<Scalar> {
    Some(match name {
        "bool" => Scalar::Bool,
        "i32" => Scalar::I32,
        "u32" => Scalar::U32,
        "f32" => Scalar::F32,
        "f64" => Scalar::F64,
        "u8" => Scalar::U8,
        "i8" => Scalar::I8,
        "u16" => Scalar::U16,
        "i16" => Scalar::I16,
        _ => return None,
    })
}

/// Scalar types a kernel computes with.
#[derive(Debug, Clone)]
pub(crate) enum Ty {
    Scalar(Scalar),
    Index(u32),
    Array(Box<Ty>, u32),
    /// Type parameter `k` of a generic `#[kernel]` function.
    Param(u32),
    /// A short vector or `#[derive(Element)]` struct, by its Rust type.
    Named(syn::Type),
    /// A tuple.
    Tuple(Vec<Ty>),
    /// `&mut T` (a `#[kernel]` function parameter).
    Ref(Box<Ty>),
}

/// Literals, as written.
#[derive(Debug, Clone)]
pub(crate) enum Lit {
    Int(u128, Option<Scalar>),
    Float(f64, Option<Scalar>),
    Bool(bool),
}

#[derive(Debug, Clone)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
pub(crate) enum ExprKind {
    /// A literal, and its original token (the native body reuses it).
    Lit(Lit, Option<syn::Lit>),
    /// A local: its number and Rust name.
    Local(u32, Ident),
    /// A captured variable used by value.
    Capture(u32, Ident),
    /// The kernel's index parameter.
    KernelIndex(Ident),
    /// A constant (a path to a `const`), inlined by value.
    Const(syn::Path),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Cast(Box<Expr>, Scalar),
    /// `cap[i]` / `cap[i][j]`: a captured container's element.
    Load(u32, Ident, Vec<Expr>),
    /// `x[i]` on a local or the index parameter.
    Element(Box<Expr>, Box<Expr>),
    /// `Index::new([..])`, or an array literal used as an index.
    MakeIndex(Vec<Expr>, bool),
    Array(Vec<Expr>),
    Repeat(Box<Expr>, syn::Expr),
    /// A built-in (method-style) call: its IR name and its Rust method name.
    Call(Builtin, Ident, Vec<Expr>),
    /// A call of a `#[kernel]` function.
    CallFn(syn::ExprPath, Vec<Expr>),
    /// `e.x`, `e.field`, `e.0`.
    Field(Box<Expr>, syn::Member),
    /// `v.zyx()`: a short vector of some of `v`'s components.
    Swizzle(Box<Expr>, Ident),
    /// `Float4::new(..)` / `Float4::splat(v)`: size, scalar, the call's path.
    MakeVector(u8, Scalar, syn::ExprPath, Vec<Expr>),
    /// `Name { field: e, .. }`.
    MakeStruct(syn::Path, Vec<(Ident, Expr)>),
    /// `(a, b, ..)`.
    MakeTuple(Vec<Expr>),
    /// `t.global`, `t.local`, ... of the tiled index (`TiledField` name).
    Tiled(TiledField, Ident),
    /// `a[i][j]` of a `tile_static` array; the flag is set by the check
    /// stage where every work item of the tile reads the same element after
    /// a barrier, with no write to the array since (a uniform value).
    /// With fewer indices than the array has dimensions (`let row = m[k];`),
    /// the last field holds the lengths of the dimensions left (the value
    /// is an array).
    TileLoad(u32, Ident, Vec<Expr>, std::cell::Cell<bool>, Vec<syn::Expr>),
    /// `cap.extent()`: a captured container's extent.
    Extent(u32, Ident),
    /// A call of an atomic function (`atomic_fetch_add(&a[i], v)`).
    Atomic(Box<Atomic>),
    /// The tiled index passed to a `#[kernel]` function (`f(&t)`).
    TiledArg(Ident),
    /// `&mut place`: an argument for a `&mut T` parameter.
    AddrOf(Box<Place>),
    /// A `&mut` parameter given as the `&mut` result of a `#[kernel]`
    /// function (`if *a > *b { a } else { b }`): the parameter's position
    /// (the GPU form returns it) and its name (the CPU form returns the
    /// reference).
    RefResult(u32, Ident),
    /// A call of a `#[kernel]` function with a `&mut` result: the call
    /// (a `CallFn` whose `&mut` arguments are locals). Its value is the
    /// position of the parameter the result refers to (the caller then
    /// reads and writes that argument's place).
    RefCall(Box<Expr>),
    If(Box<Expr>, Block, Block),
    Block(Block),
}

/// An atomic function's call.
#[derive(Debug, Clone)]
pub(crate) struct Atomic {
    /// The function as written (the native body calls it).
    pub(crate) path: syn::ExprPath,
    /// The IR's `AtomicOp` variant (`inc` and `dec` add and subtract one).
    pub(crate) op: AtomicOp,
    /// Whether the call is `atomic_fetch_inc` or `atomic_fetch_dec`.
    pub(crate) implicit_one: bool,
    /// The element (`&a[i]`): a container's or a `tile_static` array's.
    pub(crate) target: Place,
    /// The operands after the element (and after `&mut expected`).
    pub(crate) args: Vec<Expr>,
    /// `atomic_compare_exchange`'s `&mut expected`: the local, and two
    /// locals of the lowering (the old value and the result).
    pub(crate) expected: Option<(u32, Ident, u32, u32)>,
}

#[derive(Debug, Clone)]
pub(crate) enum Place {
    Local(u32, Ident),
    Element(u32, Ident, Vec<Expr>),
    ArrayElement(u32, Ident, Vec<Expr>),
    /// A field of a place.
    Field(Box<Place>, syn::Member),
    /// An element of a `tile_static` array.
    TileElement(u32, Ident, Vec<Expr>),
}

#[derive(Debug, Clone)]
pub(crate) struct Stmt {
    pub(crate) kind: StmtKind,
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // a compile-time tree; boxing buys nothing
pub(crate) enum StmtKind {
    Let {
        local: u32,
        name: Ident,
        mutable: bool,
        ty: Option<Ty>,
        /// The annotation as written (the native body reuses it).
        native_ty: Option<syn::Type>,
        init: Option<Expr>,
    },
    /// `place = e` or `place op= e`.
    Assign(Place, Option<BinOp>, Expr),
    Expr(Expr),
    If(Expr, Block, Option<Block>),
    While(Expr, Block),
    Loop(Block),
    For {
        var: u32,
        name: Ident,
        start: Expr,
        end: Expr,
        inclusive: bool,
        step: Option<Expr>,
        body: Block,
        /// `#[unroll]` on the loop.
        unroll: bool,
        /// `.rev()` on the range (after any `step_by`).
        reverse: bool,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    /// Native-only code that makes rustc check what the lowering no longer
    /// shows it (a lowered `match`'s exhaustiveness).
    NativeCheck(proc_macro2::TokenStream),
    /// `t.barrier.wait()` and its variants (`BarrierKind` name), with the
    /// span of the call's closing parenthesis (errors cover the whole call).
    Barrier(BarrierKind, Span),
    /// A `tile_static!` array: element type and dimensions (outermost first).
    TileStatic {
        local: u32,
        name: Ident,
        elem: syn::Type,
        /// In a generic `#[kernel]` function: the number of the type
        /// parameter that `elem` names (its IR builder cannot name it).
        elem_param: Option<u32>,
        dims: Vec<syn::Expr>,
    },
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Block {
    pub(crate) stmts: Vec<Stmt>,
    pub(crate) tail: Option<Box<Expr>>,
}

/// A parsed `parallel_for_each!` invocation.
pub(crate) struct Kernel {
    pub(crate) view: Option<syn::Expr>,
    pub(crate) domain: syn::Expr,
    pub(crate) index: Ident,
    /// The rank, when written as a literal (else 0).
    pub(crate) rank: u32,
    /// The rank, when it is a const generic parameter of the enclosing
    /// function (`|i: Index<N>|`).
    pub(crate) rank_path: Option<syn::Path>,
    pub(crate) captures: Vec<Ident>,
    /// Captures the host computes at the launch (a captured
    /// `TiledExtent`'s `te.tile_extent()`, `te.tile_count()`, ...): the
    /// hidden local each is bound to, among `captures`, with its host
    /// expression and the text errors name it by.
    pub(crate) derived: Vec<(Ident, syn::Expr, String)>,
    /// Upper-case names used (constants, inlined; their values key the
    /// compiled kernel).
    pub(crate) consts: Vec<Ident>,
    pub(crate) body: Block,
    pub(crate) span: Span,
    /// Whether the parameter is a `TiledIndex` (a tiled kernel).
    pub(crate) tiled: bool,
}

/// A parameter of a `#[kernel]` function that binds instead of taking a
/// value.
#[allow(clippy::large_enum_variant)] // a compile-time tree; boxing buys nothing
pub(crate) enum FnBinding {
    /// `&ArrayView<'_, T, N[, A]>` / `&Array<T, N>`: the element type as
    /// written and as a kernel type, the rank, and whether it is writable.
    View {
        elem: syn::Type,
        ty: Ty,
        rank: u32,
        writable: bool,
    },
    /// `&TiledIndex<N>`.
    Tiled(u32),
}

/// A parsed `#[kernel]` function.
pub(crate) struct Function {
    pub(crate) item: syn::ItemFn,
    /// The bound (`Number`, `Float`, `Integer`) of each type parameter.
    pub(crate) type_params: Vec<&'static str>,
    pub(crate) params: Vec<(u32, Ident, Ty)>,
    /// The binding parameters: their position among all parameters.
    pub(crate) bindings: Vec<(usize, FnBinding)>,
    /// The name of the tiled-index parameter, if any.
    pub(crate) tiled: Option<Ident>,
    pub(crate) ret: Option<Ty>,
    pub(crate) body: Block,
    /// An item of an `impl` block (a method, or any function of a
    /// `#[kernel] impl`): its companions are associated functions
    /// (`Type::__amp_f_kernel`) instead of a module.
    pub(crate) method: bool,
    /// How a method takes `self`.
    pub(crate) receiver: Option<Receiver>,
}

/// How a `#[kernel]` method takes `self`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// `&mut self`.
    RefMut,
    /// `&self`.
    Ref,
    /// `self` (or `mut self`): a copy.
    Value,
}
