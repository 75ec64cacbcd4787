//! Parse stage: the macro input and the kernel body (syn) into the kernel
//! AST, resolving every name. Anything outside the kernel subset becomes a
//! spanned error saying what is not allowed and why; errors accumulate so
//! that one run reports every problem.

use proc_macro2::{Ident, Span};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Token, UnOp};

use super::ast::*;
use super::refs::{self, RefAlias, Target};

/// The raw macro input: `[view,] domain, |idx: Index<N>| body`.
pub(crate) struct Input {
    pub(crate) args: Punctuated<syn::Expr, Token![,]>,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        Ok(Input {
            args: Punctuated::parse_terminated(input)?,
        })
    }
}

/// Errors, accumulated.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub(crate) fn at(&mut self, tokens: impl quote::ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn into_result(self) -> Result<(), syn::Error> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A resolved name.
#[derive(Clone)]
enum Binding {
    /// A local; with an alias, the name refers to another local (a `match`
    /// binding is its scrutinee), spelled by the alias in native code.
    Local(u32, Option<Ident>),
    Index,
    /// The `TiledIndex` parameter of a tiled kernel.
    Tiled,
    /// A `tile_static!` array.
    TileStatic(u32),
    /// A `tile_static!` scalar (an array of one element inside).
    TileScalar(u32),
    /// A view parameter of a `#[kernel]` function: the capture id that
    /// stands for it ([`VIEW_PARAM_BASE`] + its number).
    View(u32),
    /// A section of a captured view made in the kernel
    /// (`let s = a.section(origin, extent);`): the view's capture, and the
    /// section's origin (in the view) and extent. Bound by a `let`, these
    /// are the hidden locals that hold them; for a view indexed where it is
    /// made (`a.section(o, e)[i]`), the expressions themselves.
    Section {
        capture: u32,
        capture_name: Ident,
        origin: Expr,
        extent: Expr,
    },
    /// A view of another shape made in the kernel
    /// (`let m = a.view_as(extent);`): the view's capture, the new extent,
    /// and the section's origin and extent when it reshapes a section.
    Reshaped {
        capture: u32,
        capture_name: Ident,
        extent: Expr,
        section: Option<(Expr, Expr)>,
    },
    /// A view of the same bits as another element type made in the kernel
    /// (`let w = a.reinterpret_as::<u32>();`): the view's capture (rank 1
    /// over its words in row-major order) and a value of the new element
    /// type (a zero, never evaluated: it gives the type).
    Reinterpreted {
        capture: u32,
        capture_name: Ident,
        witness: Expr,
    },
    /// A projection of a captured view or of a section made in the kernel
    /// (`let row = a.project(i);`, C++ AMP's `a[i]` of a view): the view's
    /// capture, the fixed leading components, and the section's origin and
    /// extent when it projects a section.
    Projection {
        capture: u32,
        capture_name: Ident,
        prefix: Vec<Expr>,
        section: Option<(Expr, Expr)>,
    },
}

impl Binding {
    /// For a view made in the kernel: the capture it views, and its name.
    fn made_view(&self) -> Option<(u32, Ident)> {
        match self {
            Binding::Section {
                capture,
                capture_name,
                ..
            }
            | Binding::Projection {
                capture,
                capture_name,
                ..
            }
            | Binding::Reshaped {
                capture,
                capture_name,
                ..
            }
            | Binding::Reinterpreted {
                capture,
                capture_name,
                ..
            } => Some((*capture, capture_name.clone())),
            _ => None,
        }
    }
}

/// Whether `m` is a view-making method: `section(o, e)`,
/// `section_from(o)`, `project(k)`, `view_as(e)` or `reinterpret_as()`
/// (whose element type is checked later).
fn is_view_method(m: &syn::ExprMethodCall) -> bool {
    (m.turbofish.is_none()
        && ((m.method == "section" && m.args.len() == 2)
            || (m.method == "section_from" && m.args.len() == 1)
            || (m.method == "project" && m.args.len() == 1)
            || (m.method == "view_as" && m.args.len() == 1)))
        || (m.method == "reinterpret_as" && m.args.is_empty())
}

/// A view-making method of a name, or of another such call
/// (`a.section(o, e).project(k)`): a view made in the kernel.
fn view_method(e: &syn::Expr) -> Option<&syn::ExprMethodCall> {
    match e {
        syn::Expr::MethodCall(m)
            if is_view_method(m)
                && (matches!(strip_parens(&m.receiver), syn::Expr::Path(_))
                    || view_method(strip_parens(&m.receiver)).is_some()) =>
        {
            Some(m)
        }
        _ => None,
    }
}

/// `let name = <view-making call>;`: the name and the initializer.
fn view_let(l: &syn::Local) -> Option<(Ident, &syn::Expr)> {
    let syn::Pat::Ident(p) = &l.pat else {
        return None;
    };
    if p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    match strip_parens(&init.expr) {
        syn::Expr::MethodCall(m) if is_view_method(m) => Some((p.ident.clone(), &init.expr)),
        _ => None,
    }
}

/// `&mut place` where the place is not a plain name (an element of an
/// array, a view or a `tile_static` array, or a field of one).
fn is_element_ref(a: &syn::Expr) -> bool {
    match strip_parens(a) {
        syn::Expr::Reference(r) if r.mutability.is_some() => {
            !matches!(strip_parens(&r.expr), syn::Expr::Path(_))
        }
        _ => false,
    }
}

/// A call (not of an atomic function, whose `&mut a[i]` is the element
/// itself) that passes an element by `&mut`.
fn is_mut_element_call(c: &syn::ExprCall) -> bool {
    let atomic = match &*c.func {
        syn::Expr::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident.to_string().starts_with("atomic_")),
        _ => true,
    };
    !atomic && c.args.iter().any(is_element_ref)
}

/// Whether `e` contains a call that passes an element by `&mut`.
fn has_mut_element_call(e: &syn::Expr) -> bool {
    struct Find(bool);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            self.0 |= is_mut_element_call(c);
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

/// `+=`, `-=`, ... (syn parses them as binary operators).
pub(crate) fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// The capture ids of a `#[kernel]` function's view parameters start here
/// (amp_core's `CaptureId::param`).
pub(crate) const VIEW_PARAM_BASE: u32 = 1 << 30;

struct Resolver<'e> {
    scopes: Vec<Vec<(String, Binding)>>,
    captures: Vec<Ident>,
    /// The upper-case single names a kernel uses: inlined as constants, and
    /// part of the compiled kernel's cache key.
    consts: Vec<Ident>,
    next_local: u32,
    errors: &'e mut Errors,
    /// The type parameters of the `#[kernel]` function being parsed.
    type_params: Vec<String>,
    /// Whether a `#[kernel]` function (not a kernel body) is being parsed:
    /// it cannot capture, and it may return a value.
    function: bool,
    /// Whether the kernel is tiled (has a `TiledIndex`).
    tiled: bool,
    /// The capture ids of a function's read-only view parameters.
    read_only_views: Vec<u32>,
    /// The locals of a function's `&mut` parameters.
    ref_params: Vec<u32>,
    /// The dimensions of each `tile_static` array (outermost first).
    tile_dims: std::collections::HashMap<u32, Vec<syn::Expr>>,
    /// Numbers the temporaries of `&mut` arguments copied in and out.
    fresh: u32,
    /// The locals that hold the position a call with a `&mut` result
    /// returns (`__amp_selN`): their initialiser is such a call.
    ref_calls: Vec<String>,
    /// Set by [`Resolver::index_chain`] for an element of a reinterpreted
    /// view: its capture and element type (the caller converts the bits).
    reinterpreted: Option<(u32, Expr)>,
}

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
fn atomic_function(name: &str) -> Option<(&'static str, usize)> {
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
fn subgroup_function(name: &str) -> Option<(&'static str, usize)> {
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

/// The literal `0i32`: the index of a tile_static scalar's one element.
fn zero(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Lit(Lit::Int(0, Some(Scalar::I32)), None),
        span,
    }
}

fn is_const_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Parses the whole invocation.
pub(crate) fn parse(input: Input, errors: &mut Errors) -> Option<Kernel> {
    let span = input.args.span();
    let mut args: Vec<syn::Expr> = input.args.into_iter().collect();
    let closure = match args.pop() {
        Some(syn::Expr::Closure(c)) => c,
        Some(other) => {
            errors.at(&other, "the last argument of parallel_for_each! must be the kernel: a closure `|idx: Index<N>| { .. }`");
            return None;
        }
        None => {
            errors.push(syn::Error::new(
                span,
                "parallel_for_each! takes an optional accelerator view, a compute domain and a kernel closure",
            ));
            return None;
        }
    };
    let (view, domain) = match args.len() {
        1 => (None, args.pop()?),
        2 => {
            let domain = args.pop()?;
            (args.pop(), domain)
        }
        _ => {
            errors.push(syn::Error::new(
                span,
                "parallel_for_each! takes an optional accelerator view, a compute domain and a kernel closure",
            ));
            return None;
        }
    };
    if let Some(m) = &closure.movability {
        errors.at(m, "a kernel closure cannot be `static`");
    }
    if let Some(a) = &closure.asyncness {
        errors.at(
            a,
            "a kernel cannot be `async`: kernels run to completion on the accelerator",
        );
    }
    let (index, rank, rank_path, tiled) = match closure.inputs.len() {
        1 => parse_index_param(&closure.inputs[0], errors)?,
        _ => {
            errors.at(
                &closure.inputs,
                "a kernel takes exactly one parameter, its index: `|idx: Index<N>|`",
            );
            return None;
        }
    };
    let param = if tiled {
        Binding::Tiled
    } else {
        Binding::Index
    };
    let mut resolver = Resolver {
        scopes: vec![vec![(index.to_string(), param)]],
        captures: Vec::new(),
        consts: Vec::new(),
        next_local: 0,
        errors,
        type_params: Vec::new(),
        function: false,
        tiled,
        read_only_views: Vec::new(),
        ref_params: Vec::new(),
        tile_dims: Default::default(),
        fresh: 0,
        ref_calls: Vec::new(),
        reinterpreted: None,
    };
    let body = match &*closure.body {
        syn::Expr::Block(b) => resolver.block(&b.block),
        other => {
            let e = resolver.expr(other);
            Block {
                stmts: Vec::new(),
                tail: e.map(Box::new),
            }
        }
    };
    Some(Kernel {
        view,
        domain,
        index,
        rank,
        rank_path,
        captures: resolver.captures,
        consts: resolver.consts,
        body,
        span: closure.span(),
        tiled,
    })
}

/// The kernel's parameter: its name, its rank (a literal, or `0` with the
/// path of a const generic parameter of the enclosing function), and
/// whether it is tiled.
type IndexParam = (Ident, u32, Option<syn::Path>, bool);

fn parse_index_param(pat: &syn::Pat, errors: &mut Errors) -> Option<IndexParam> {
    let syn::Pat::Type(pt) = pat else {
        errors.at(
            pat,
            "the kernel parameter needs its type: `|idx: Index<N>|`",
        );
        return None;
    };
    let name = match &*pt.pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
        other => {
            errors.at(
                other,
                "the kernel parameter must be a plain name, such as `idx`",
            );
            return None;
        }
    };
    let syn::Type::Path(tp) = &*pt.ty else {
        errors.at(&pt.ty, "the kernel parameter must be an `Index<N>`");
        return None;
    };
    let last = tp.path.segments.last()?;
    let tiled = last.ident == "TiledIndex";
    if last.ident != "Index" && !tiled {
        errors.at(&pt.ty, "the kernel parameter must be an `Index<N>`");
        return None;
    }
    let rank = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            })) => i.base10_parse::<u32>().ok(),
            syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => {
                // `Index<2>` parses as a const argument; a path in a type
                // position is a named constant: a const generic parameter
                // of the enclosing function (`fn f<const N: usize>`), so
                // that one generic host function serves every rank.
                if tiled {
                    errors.at(
                        p,
                        "write a tiled kernel's rank as a literal (`TiledIndex<2>`): its tile shape depends on it",
                    );
                    return None;
                }
                return Some((name, 0, Some(p.path.clone()), false));
            }
            _ => None,
        },
        _ => None,
    };
    match rank {
        Some(r) if tiled && !(1..=3).contains(&r) => {
            errors.at(&pt.ty, "tiled kernels have rank 1, 2 or 3, as C++ AMP's");
            None
        }
        Some(r) if r >= 1 => Some((name, r, None, tiled)),
        _ => {
            errors.at(
                &pt.ty,
                "the kernel parameter must be an `Index<N>` with a literal rank N >= 1",
            );
            None
        }
    }
}

fn scalar_suffix(
    suffix: &str,
    tokens: &dyn quote::ToTokens,
    errors: &mut Errors,
) -> Option<Scalar> {
    if suffix.is_empty() {
        return None;
    }
    match Scalar::from_name(suffix) {
        Some(s) => Some(s),
        None => {
            errors.at(
                tokens,
                format!(
                    "`{suffix}` is not available in kernels: WGSL computes with i32, u32, f32 and f64 (where the accelerator supports it)"
                ),
            );
            None
        }
    }
}

fn ty_of(ty: &syn::Type, type_params: &[String], errors: &mut Errors) -> Option<Ty> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            if let Some(s) = Scalar::from_name(&name) {
                return Some(Ty::Scalar(s));
            }
            if p.path.segments.len() == 1
                && let Some(k) = type_params.iter().position(|t| *t == name)
            {
                return Some(Ty::Param(k as u32));
            }
            if name == "Index"
                && let syn::PathArguments::AngleBracketed(a) = &last.arguments
                && let Some(syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }))) = a.args.first()
                && let Ok(n) = i.base10_parse::<u32>()
            {
                return Some(Ty::Index(n));
            }
            const NOT_KERNEL_TYPES: &[&str] = &[
                "i8", "i16", "i64", "i128", "isize", "u8", "u16", "u64", "u128", "usize", "char",
                "str", "String", "Vec", "Box", "Rc", "Arc", "Option", "Result", "Index",
            ];
            if NOT_KERNEL_TYPES.contains(&name.as_str()) {
                errors.at(
                    ty,
                    format!("`{name}` is not a kernel type: kernel values are i32, u32, f32, f64, bool, Index<N>, short vectors, #[derive(Element)] structs, tuples and fixed-size arrays of them"),
                );
                return None;
            }
            // A short vector or a `#[derive(Element)]` struct (rustc checks
            // that it implements `Element`).
            Some(Ty::Named(ty.clone()))
        }
        syn::Type::Tuple(t) if !t.elems.is_empty() => {
            let parts: Vec<Ty> = t
                .elems
                .iter()
                .filter_map(|e| ty_of(e, type_params, errors))
                .collect();
            (parts.len() == t.elems.len()).then_some(Ty::Tuple(parts))
        }
        syn::Type::Array(a) => {
            let elem = ty_of(&a.elem, type_params, errors)?;
            let n = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i.base10_parse::<u32>().ok(),
                _ => None,
            };
            match n {
                Some(n) => Some(Ty::Array(Box::new(elem), n)),
                None => {
                    errors.at(
                        &a.len,
                        "the length of a kernel array type must be a literal",
                    );
                    None
                }
            }
        }
        syn::Type::Reference(_) | syn::Type::Ptr(_) => {
            errors.at(ty, "references and pointers are not allowed in kernels: accelerator memory is reached through captured views");
            None
        }
        _ => {
            errors.at(ty, "this type is not allowed in kernels: kernel locals are i32, u32, f32, f64, bool, Index<N> and fixed-size arrays of them");
            None
        }
    }
}

fn bin_op(op: &syn::BinOp) -> Option<(BinaryOp, bool)> {
    use syn::BinOp::*;
    Some(match op {
        Add(_) => (BinaryOp::Add, false),
        Sub(_) => (BinaryOp::Sub, false),
        Mul(_) => (BinaryOp::Mul, false),
        Div(_) => (BinaryOp::Div, false),
        Rem(_) => (BinaryOp::Rem, false),
        And(_) => (BinaryOp::And, false),
        Or(_) => (BinaryOp::Or, false),
        BitXor(_) => (BinaryOp::BitXor, false),
        BitAnd(_) => (BinaryOp::BitAnd, false),
        BitOr(_) => (BinaryOp::BitOr, false),
        Shl(_) => (BinaryOp::Shl, false),
        Shr(_) => (BinaryOp::Shr, false),
        Eq(_) => (BinaryOp::Eq, false),
        Lt(_) => (BinaryOp::Lt, false),
        Le(_) => (BinaryOp::Le, false),
        Ne(_) => (BinaryOp::Ne, false),
        Ge(_) => (BinaryOp::Ge, false),
        Gt(_) => (BinaryOp::Gt, false),
        AddAssign(_) => (BinaryOp::Add, true),
        SubAssign(_) => (BinaryOp::Sub, true),
        MulAssign(_) => (BinaryOp::Mul, true),
        DivAssign(_) => (BinaryOp::Div, true),
        RemAssign(_) => (BinaryOp::Rem, true),
        BitXorAssign(_) => (BinaryOp::BitXor, true),
        BitAndAssign(_) => (BinaryOp::BitAnd, true),
        BitOrAssign(_) => (BinaryOp::BitOr, true),
        ShlAssign(_) => (BinaryOp::Shl, true),
        ShrAssign(_) => (BinaryOp::Shr, true),
        _ => return None,
    })
}

impl Resolver<'_> {
    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    }

    fn declare(&mut self, name: &Ident) -> u32 {
        let id = self.next_local;
        self.next_local += 1;
        self.scopes
            .last_mut()
            .expect("a scope")
            .push((name.to_string(), Binding::Local(id, None)));
        id
    }

    /// Whether `e` is the tiled index parameter itself.
    fn is_tiled_param(&self, e: &syn::Expr) -> bool {
        match strip_parens(e) {
            syn::Expr::Path(p) => self
                .path_ident(p)
                .is_some_and(|n| matches!(self.lookup(&n.to_string()), Some(Binding::Tiled))),
            _ => false,
        }
    }

    /// `t.global` (and the other index fields) of the tiled index.
    fn tiled_field(&self, e: &syn::Expr) -> Option<(&'static str, Ident)> {
        let syn::Expr::Field(f) = strip_parens(e) else {
            return None;
        };
        if !self.is_tiled_param(&f.base) {
            return None;
        }
        let syn::Member::Named(m) = &f.member else {
            return None;
        };
        let field = match m.to_string().as_str() {
            "global" => "Global",
            "local" => "Local",
            "tile" => "Tile",
            "tile_origin" => "TileOrigin",
            "tile_extent" => "TileExtent",
            _ => return None,
        };
        let syn::Expr::Path(p) = strip_parens(&f.base) else {
            return None;
        };
        Some((field, self.path_ident(p)?))
    }

    /// `t.barrier.wait()` and the other barriers: the `BarrierKind` name.
    fn barrier_call(&self, m: &syn::ExprMethodCall) -> Option<&'static str> {
        let syn::Expr::Field(f) = strip_parens(&m.receiver) else {
            return None;
        };
        if !self.is_tiled_param(&f.base)
            || !matches!(&f.member, syn::Member::Named(n) if n == "barrier")
        {
            return None;
        }
        Some(match m.method.to_string().as_str() {
            "wait" => "Wait",
            "wait_with_all_memory_fence" => "AllMemory",
            "wait_with_global_memory_fence" => "GlobalMemory",
            "wait_with_tile_static_memory_fence" => "TileStaticMemory",
            _ => return None,
        })
    }

    /// `tile_static! { let a: [[f32; TS]; TS]; .. }`: arrays of scalars
    /// shared by the work items of a tile.
    fn tile_static(&mut self, mac: &syn::Macro) -> Vec<Stmt> {
        let span = mac.span();
        // Refused outside tiles; the names are still declared, so that
        // their uses report nothing more.
        let refused = !self.tiled;
        if !self.tiled && self.function {
            self.errors.at(mac, "tile_static memory belongs to a tile: a #[kernel] function that declares it takes the tiled index (`t: &TiledIndex<N>`), and is called from tiled kernels");
        } else if !self.tiled {
            self.errors.at(mac, "tile_static memory belongs to a tile: it needs a tiled kernel (`|t: TiledIndex<N>|` over `extent.tile::<..>()`)");
        }
        let tokens = &mac.tokens;
        let block: syn::Block = match syn::parse2(quote::quote!({ #tokens })) {
            Ok(b) => b,
            Err(e) => {
                self.errors.push(e);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for stmt in &block.stmts {
            let syn::Stmt::Local(l) = stmt else {
                self.errors.at(
                    stmt,
                    "tile_static! declares arrays: `let name: [[f32; N]; M];`",
                );
                continue;
            };
            if let Some(init) = &l.init {
                self.errors.at(&init.expr, "tile_static arrays have no initialiser: write them in the kernel, then wait at a barrier");
                continue;
            }
            let syn::Pat::Type(pt) = &l.pat else {
                self.errors.at(
                    &l.pat,
                    "tile_static arrays need a type: `let name: [[f32; N]; M];`",
                );
                continue;
            };
            let syn::Pat::Ident(pi) = &*pt.pat else {
                self.errors
                    .at(&pt.pat, "tile_static arrays are named by a plain name");
                continue;
            };
            // [[[T; A]; B]; C]: dims C, B, A (outermost first).
            let mut dims = Vec::new();
            let mut ty = &*pt.ty;
            while let syn::Type::Array(a) = ty {
                dims.push(a.len.clone());
                ty = &a.elem;
            }
            // Any element type (a scalar, a short vector, a
            // `#[derive(Element)]` struct, a type parameter bounded by
            // `Element`): rustc checks the `Element` bound.
            let element = matches!(ty, syn::Type::Path(p) if p.qself.is_none())
                && !matches!(ty, syn::Type::Path(p) if p.path.is_ident("bool"));
            // A scalar (`let count: u32;`) is an array of one element.
            let scalar = dims.is_empty();
            if scalar {
                dims.push(syn::parse_quote!(1));
            }
            let (true, 1..=3) = (element, dims.len()) else {
                self.errors.at(&pt.ty, "tile_static arrays have 1 to 3 dimensions of an element type (i32, u32, f32, f64, a short vector, a #[derive(Element)] struct): `[[f32; N]; M]`");
                continue;
            };
            let local = self.declare(&pi.ident);
            self.scopes
                .last_mut()
                .expect("a scope")
                .last_mut()
                .expect("just declared")
                .1 = if scalar {
                Binding::TileScalar(local)
            } else {
                Binding::TileStatic(local)
            };
            if !scalar {
                self.tile_dims.insert(local, dims.clone());
            }
            let elem_param = match ty {
                syn::Type::Path(p) if p.qself.is_none() => p
                    .path
                    .get_ident()
                    .and_then(|i| self.type_params.iter().position(|t| i == t))
                    .map(|k| k as u32),
                _ => None,
            };
            out.push(Stmt {
                kind: StmtKind::TileStatic {
                    local,
                    name: pi.ident.clone(),
                    elem: ty.clone(),
                    elem_param,
                    dims,
                },
                span,
            });
        }
        if refused {
            return Vec::new();
        }
        out
    }

    fn capture(&mut self, name: &Ident) -> Option<u32> {
        if self.function {
            self.errors.at(
                name,
                format!("`{name}` is not a parameter, local or constant of this #[kernel] function: kernel functions cannot capture variables; pass `{name}` as a parameter"),
            );
            return None;
        }
        if let Some(i) = self.captures.iter().position(|c| c == name) {
            return Some(i as u32);
        }
        self.captures.push(name.clone());
        Some((self.captures.len() - 1) as u32)
    }

    fn block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        let mut out = Block::default();
        // `f(&mut s[i]);`: the element copied into a temporary, passed,
        // and stored back (statements of their own).
        let mut stmts: Vec<(syn::Stmt, bool)> = Vec::with_capacity(b.stmts.len());
        // References bound by `let` (`let r = &mut a[i];`, or a function's
        // `&mut` result): their uses in the rest of the block are rewritten
        // to the place (see `refs`). Statements the rewrites make are
        // processed in turn, from the front of the queue.
        let mut aliases: Vec<RefAlias> = Vec::new();
        let mut queue: std::collections::VecDeque<syn::Stmt> = b.stmts.iter().cloned().collect();
        while let Some(s) = queue.pop_front() {
            let last = queue.is_empty();
            if let Some((name, alias)) = refs::copied_reference(&s, &aliases) {
                let alias = RefAlias {
                    name: name.to_string(),
                    ..alias.clone()
                };
                aliases.push(alias);
                continue;
            }
            let (substituted, errors) = refs::substitute(&s, &aliases);
            if !errors.is_empty() {
                // One error for the mistake: the statement goes no further.
                for e in errors {
                    self.errors.push(e);
                }
                continue;
            }
            let s = &substituted;
            if let Some(lifted) = refs::lift_deref_call(s, &mut self.fresh) {
                for l in lifted.into_iter().rev() {
                    queue.push_front(l);
                }
                continue;
            }
            if let Some((p, r)) = refs::reference_let(s) {
                let name = p.ident.to_string();
                aliases.retain(|a| a.name != name);
                if p.mutability.is_some() {
                    self.errors.at(
                        p,
                        format!("a reference in a kernel refers to one place: bind it with `let {} = ..` (not `let mut`), and write the value it refers to as `*{} = ..`", p.ident, p.ident),
                    );
                    continue;
                }
                let mut pre = Vec::new();
                match self.bind_place_indices(&r.expr, &mut pre) {
                    Some(place) => {
                        stmts.extend(pre.into_iter().map(|s| (s, false)));
                        aliases.push(RefAlias {
                            name,
                            target: Target::Place(place),
                            mutable: r.mutability.is_some(),
                        });
                    }
                    None => self.errors.at(
                        &r.expr,
                        "a reference in a kernel (`let r = &mut x;`) refers to a local variable, a tile_static variable, a `&mut` parameter (`&mut *p`), or an element or field of an array, a view or a tile_static array",
                    ),
                }
                continue;
            }
            if let Some((p, call)) = refs::call_let(s)
                && refs::dereferenced(&p.ident.to_string(), &queue)
            {
                let name = p.ident.to_string();
                aliases.retain(|a| a.name != name);
                match self.ref_call(call) {
                    Some((pre, target)) => {
                        for l in pre.into_iter().rev() {
                            queue.push_front(l);
                        }
                        aliases.push(RefAlias {
                            name,
                            target,
                            mutable: true,
                        });
                    }
                    // Reported: the uses read the call's value instead,
                    // so that the mistake gives one error.
                    None => aliases.push(RefAlias {
                        name,
                        target: Target::Place(syn::Expr::Call(call.clone())),
                        mutable: true,
                    }),
                }
                continue;
            }
            if let syn::Stmt::Local(l) = s {
                let names = refs::pat_names(&l.pat);
                aliases.retain(|a| !names.contains(&a.name));
            }
            // A block's value (`if c { f(&mut s[i]) } else { 0 }`) keeps its
            // place as the value: lifted, not made a statement.
            let value = last && matches!(s, syn::Stmt::Expr(_, None));
            let copied = if value { None } else { self.copy_in_out(s) };
            match copied {
                Some(rewritten) => stmts.extend(rewritten.into_iter().map(|r| (r, false))),
                None => match self.lift_mut_calls(s) {
                    // The statement itself stays last (a block's value).
                    Some(mut rewritten) => {
                        let stmt = rewritten.pop().expect("the statement");
                        stmts.extend(rewritten.into_iter().map(|r| (r, false)));
                        stmts.push((stmt, last));
                    }
                    None => stmts.push((s.clone(), last)),
                },
            }
        }
        for (s, last) in &stmts {
            let (s, last) = (s, *last);
            match s {
                syn::Stmt::Local(l) => {
                    if let syn::Pat::Tuple(t) = &l.pat {
                        out.stmts.extend(self.local_tuple(l, t));
                    } else if let Some((name, init)) = view_let(l) {
                        out.stmts.extend(self.local_view(l, name, init));
                    } else if let Some(s) = self.local(l) {
                        out.stmts.push(s);
                    }
                }
                syn::Stmt::Expr(e, semi) => {
                    let is_tail = last && semi.is_none() && !is_statement_like(e);
                    if is_tail {
                        out.tail = self.expr(e).map(Box::new);
                    } else if let Some(s) = self.stmt_expr(e) {
                        out.stmts.push(s);
                    }
                }
                syn::Stmt::Item(item) => self.errors.at(
                    item,
                    "items (fn, struct, static, use, ...) cannot be declared inside a kernel: declare them outside it (helper functions as `#[kernel] fn`; constants are inlined by value)",
                ),
                syn::Stmt::Macro(m) if m.mac.path.is_ident("tile_static") || m.mac.path.segments.last().is_some_and(|s| s.ident == "tile_static") => {
                    out.stmts.extend(self.tile_static(&m.mac));
                }
                syn::Stmt::Macro(m) => self.errors.at(
                    &m.mac,
                    "macros are not allowed in kernels: accelerators cannot print, allocate or panic (C++ AMP restrict(amp))",
                ),
            }
        }
        self.scopes.pop();
        out
    }

    /// A statement that calls a `#[kernel]` function with `&mut` to an
    /// element (of a view, a local array or a `tile_static` array, or a
    /// field of one): `f(&mut s[i], x);` or `let r = f(&mut s[i]);` becomes
    ///
    /// ```text
    /// let __amp_i0 = i; let mut __amp_ref1 = s[__amp_i0];
    /// f(&mut __amp_ref1, x); s[__amp_i0] = __amp_ref1;
    /// ```
    ///
    /// (each index evaluated once, in order), so that functions take
    /// pointers to private memory only (what WGSL and naga's back ends
    /// allow). `None` for any other statement.
    fn copy_in_out(&mut self, s: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        let call = match s {
            syn::Stmt::Expr(syn::Expr::Call(c), _) => c,
            syn::Stmt::Local(l) => match l.init.as_ref() {
                Some(init) if init.diverge.is_none() => match strip_parens(&init.expr) {
                    syn::Expr::Call(c) => c,
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        };
        // Atomics take their element's place itself (`&mut a[i]` is
        // accepted there as `&a[i]`): never a copy.
        match &*call.func {
            syn::Expr::Path(p)
                if !p
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident.to_string().starts_with("atomic_")) => {}
            _ => return None,
        }
        let is_element = |a: &syn::Expr| match strip_parens(a) {
            syn::Expr::Reference(r) if r.mutability.is_some() => {
                !matches!(strip_parens(&r.expr), syn::Expr::Path(_))
            }
            _ => false,
        };
        if !call.args.iter().any(is_element) {
            return None;
        }
        let mut pre: Vec<syn::Stmt> = Vec::new();
        let mut post: Vec<syn::Stmt> = Vec::new();
        let mut new_call = call.clone();
        for arg in new_call.args.iter_mut() {
            if !is_element(arg) {
                continue;
            }
            let syn::Expr::Reference(r) = strip_parens(arg).clone() else {
                continue;
            };
            let span = r.span();
            let place = self.bind_place_indices(&r.expr, &mut pre)?;
            self.fresh += 1;
            let tmp = Ident::new(&format!("__amp_ref{}", self.fresh), span);
            pre.push(syn::parse_quote_spanned!(span=> let mut #tmp = #place;));
            *arg = syn::parse_quote_spanned!(span=> &mut #tmp);
            post.push(syn::parse_quote_spanned!(span=> #place = #tmp;));
        }
        let stmt: syn::Stmt = match s {
            syn::Stmt::Local(l) => {
                let mut l = l.clone();
                if let Some(init) = l.init.as_mut() {
                    *init.expr = syn::Expr::Call(new_call);
                }
                syn::Stmt::Local(l)
            }
            _ => syn::Stmt::Expr(syn::Expr::Call(new_call), Some(Default::default())),
        };
        pre.push(stmt);
        pre.extend(post);
        Some(pre)
    }

    /// A statement with calls that pass elements by `&mut` inside larger
    /// expressions (`let v = 1 + f(&mut s[i]);`, `a[k] = f(&mut s[i]) *
    /// 2;`, `if f(&mut s[i]) > 0 { .. }`, `return f(&mut s[i]);`): each such
    /// call becomes statements of its own before it (the element copied in,
    /// the call's result in a new local, the element stored back), and
    /// what Rust evaluates before the call (operands to its left) is bound
    /// to new locals first, so evaluation order is Rust's. Calls in places
    /// evaluated conditionally or repeatedly (after `&&`/`||`, in a branch,
    /// a loop condition) are left alone (and refused as before). `None`:
    /// nothing to do.
    fn lift_mut_calls(&mut self, s: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        let mut pre = Vec::new();
        let stmt = match s {
            syn::Stmt::Local(l) => {
                let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
                if !has_mut_element_call(&init.expr) {
                    return None;
                }
                let value = self.lift(&init.expr, &mut pre)?;
                let mut l = l.clone();
                if let Some(init) = l.init.as_mut() {
                    *init.expr = value;
                }
                syn::Stmt::Local(l)
            }
            syn::Stmt::Expr(e, semi) => {
                if !has_mut_element_call(e) {
                    return None;
                }
                let e = match e {
                    // Rust evaluates the assigned value before the place.
                    syn::Expr::Assign(a) if !has_mut_element_call(&a.left) => {
                        let mut a = a.clone();
                        *a.right = self.lift(&a.right, &mut pre)?;
                        syn::Expr::Assign(a)
                    }
                    syn::Expr::Binary(b)
                        if is_compound_assign(&b.op) && !has_mut_element_call(&b.left) =>
                    {
                        let mut b = b.clone();
                        *b.right = self.lift(&b.right, &mut pre)?;
                        syn::Expr::Binary(b)
                    }
                    syn::Expr::If(i) => {
                        let mut i = i.clone();
                        *i.cond = self.lift(&i.cond, &mut pre)?;
                        syn::Expr::If(i)
                    }
                    syn::Expr::Return(r) => {
                        let mut r = r.clone();
                        if let Some(v) = r.expr.as_mut() {
                            **v = self.lift(v, &mut pre)?;
                        }
                        syn::Expr::Return(r)
                    }
                    other => self.lift(other, &mut pre)?,
                };
                syn::Stmt::Expr(e, *semi)
            }
            _ => return None,
        };
        if pre.is_empty() {
            return None;
        }
        pre.push(stmt);
        Some(pre)
    }

    /// `e` with each call that passes elements by `&mut` (in a place Rust
    /// evaluates once, unconditionally) replaced by a new local holding its
    /// result; the statements computing it are pushed on `pre` (see
    /// [`Resolver::lift_mut_calls`]). `None`: a call in another place.
    fn lift(&mut self, e: &syn::Expr, pre: &mut Vec<syn::Stmt>) -> Option<syn::Expr> {
        if !has_mut_element_call(e) {
            return Some(e.clone());
        }
        let span = e.span();
        match e {
            syn::Expr::Paren(p) => {
                let inner = self.lift(&p.expr, pre)?;
                Some(syn::parse_quote_spanned!(span=> (#inner)))
            }
            syn::Expr::Call(c) => {
                let args: Vec<&syn::Expr> = c.args.iter().collect();
                let mut args = self.lift_seq(&args, pre)?;
                if !is_mut_element_call(c) {
                    let func = &c.func;
                    return Some(syn::parse_quote_spanned!(span=> #func(#(#args),*)));
                }
                // The call of its own: elements copied in and stored back.
                let mut post = Vec::new();
                for arg in args.iter_mut() {
                    if !is_element_ref(arg) {
                        continue;
                    }
                    let syn::Expr::Reference(r) = strip_parens(arg).clone() else {
                        continue;
                    };
                    let span = r.span();
                    let place = self.bind_place_indices(&r.expr, pre)?;
                    self.fresh += 1;
                    let tmp = Ident::new(&format!("__amp_ref{}", self.fresh), span);
                    pre.push(syn::parse_quote_spanned!(span=> let mut #tmp = #place;));
                    *arg = syn::parse_quote_spanned!(span=> &mut #tmp);
                    post.push(syn::parse_quote_spanned!(span=> #place = #tmp;));
                }
                self.fresh += 1;
                let result = Ident::new(&format!("__amp_r{}", self.fresh), span);
                let func = &c.func;
                pre.push(syn::parse_quote_spanned!(span=> let #result = #func(#(#args),*);));
                pre.extend(post);
                Some(syn::parse_quote_spanned!(span=> #result))
            }
            syn::Expr::MethodCall(m) => {
                let mut parts: Vec<&syn::Expr> = vec![&m.receiver];
                parts.extend(m.args.iter());
                let mut parts = self.lift_seq(&parts, pre)?.into_iter();
                let receiver = parts.next()?;
                let args: Vec<syn::Expr> = parts.collect();
                let (method, turbofish) = (&m.method, &m.turbofish);
                Some(syn::parse_quote_spanned!(span=> #receiver.#method #turbofish(#(#args),*)))
            }
            syn::Expr::Binary(b)
                if !matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_))
                    && !is_compound_assign(&b.op) =>
            {
                let [l, r]: [syn::Expr; 2] =
                    self.lift_seq(&[&b.left, &b.right], pre)?.try_into().ok()?;
                let op = &b.op;
                Some(syn::parse_quote_spanned!(span=> #l #op #r))
            }
            syn::Expr::Unary(u) => {
                let inner = self.lift(&u.expr, pre)?;
                let op = &u.op;
                Some(syn::parse_quote_spanned!(span=> #op #inner))
            }
            syn::Expr::Cast(c) => {
                let inner = self.lift(&c.expr, pre)?;
                let ty = &c.ty;
                Some(syn::parse_quote_spanned!(span=> #inner as #ty))
            }
            syn::Expr::Field(f) => {
                let base = self.lift(&f.base, pre)?;
                let member = &f.member;
                Some(syn::parse_quote_spanned!(span=> #base.#member))
            }
            syn::Expr::Index(ix) if !has_mut_element_call(&ix.expr) => {
                let index = self.lift(&ix.index, pre)?;
                let base = &ix.expr;
                Some(syn::parse_quote_spanned!(span=> #base[#index]))
            }
            syn::Expr::Tuple(t) => {
                let parts: Vec<&syn::Expr> = t.elems.iter().collect();
                let parts = self.lift_seq(&parts, pre)?;
                Some(syn::parse_quote_spanned!(span=> (#(#parts,)*)))
            }
            syn::Expr::Array(a) => {
                let parts: Vec<&syn::Expr> = a.elems.iter().collect();
                let parts = self.lift_seq(&parts, pre)?;
                Some(syn::parse_quote_spanned!(span=> [#(#parts),*]))
            }
            _ => None,
        }
    }

    /// Operands Rust evaluates in order: those before the last one with a
    /// lifted call are evaluated first, into new locals (names and
    /// literals are left as they are), so that the lifted statements do
    /// not run before them.
    fn lift_seq(&mut self, es: &[&syn::Expr], pre: &mut Vec<syn::Stmt>) -> Option<Vec<syn::Expr>> {
        let Some(last) = es.iter().rposition(|e| has_mut_element_call(e)) else {
            return Some(es.iter().map(|e| (*e).clone()).collect());
        };
        let mut out = Vec::new();
        for (k, e) in es.iter().enumerate() {
            if k < last {
                let v = self.lift(e, pre)?;
                if matches!(strip_parens(&v), syn::Expr::Lit(_) | syn::Expr::Path(_))
                    || is_element_ref(&v)
                    || matches!(strip_parens(&v), syn::Expr::Reference(_))
                {
                    out.push(v);
                    continue;
                }
                let span = v.span();
                self.fresh += 1;
                let t = Ident::new(&format!("__amp_v{}", self.fresh), span);
                pre.push(syn::parse_quote_spanned!(span=> let #t = #v;));
                out.push(syn::parse_quote_spanned!(span=> #t));
            } else if k == last {
                out.push(self.lift(e, pre)?);
            } else {
                out.push((*e).clone());
            }
        }
        Some(out)
    }

    /// `let r = f(args);` where `f` has a `&mut` result (`r` is
    /// dereferenced later): the statements that make it (each `&mut`
    /// argument's place with its indices bound, then `let __amp_selN =
    /// f(..);`, which the call's position marks, see [`Resolver::local`])
    /// and what `r` refers to: the place of the argument at the position
    /// the call returns.
    fn ref_call(&mut self, call: &syn::ExprCall) -> Option<(Vec<syn::Stmt>, Target)> {
        let mut pre = Vec::new();
        let mut candidates = Vec::new();
        let mut call = call.clone();
        for (k, arg) in call.args.iter_mut().enumerate() {
            let k = k as u32;
            match strip_parens(arg).clone() {
                syn::Expr::Reference(r) if r.mutability.is_some() => {
                    let place = self.bind_place_indices(&r.expr, &mut pre)?;
                    candidates.push((k, place.clone()));
                    *arg = syn::parse_quote_spanned!(r.span()=> &mut #place);
                }
                other if self.ref_param(&other).is_some() => {
                    candidates.push((k, syn::parse_quote_spanned!(other.span()=> *#other)));
                }
                _ => {}
            }
        }
        if candidates.is_empty() {
            self.errors.at(
                &call,
                "this call's result is dereferenced, but it passes no `&mut` argument: the `&mut` result of a #[kernel] function is one of its `&mut` parameters",
            );
            return None;
        }
        self.fresh += 1;
        let span = call.span();
        let selector = Ident::new(&format!("__amp_sel{}", self.fresh), span);
        self.ref_calls.push(selector.to_string());
        pre.push(syn::parse_quote_spanned!(span=> let #selector = #call;));
        Some((
            pre,
            Target::Select {
                selector,
                candidates,
            },
        ))
    }

    /// `place` with each index expression bound to a new local (pushed on
    /// `pre`), so that reading and then writing it evaluates them once.
    /// `None` (the call is left as it is, and refused as before) for what
    /// is not an indexed place or a field of one.
    fn bind_place_indices(
        &mut self,
        place: &syn::Expr,
        pre: &mut Vec<syn::Stmt>,
    ) -> Option<syn::Expr> {
        match place {
            syn::Expr::Paren(p) => self.bind_place_indices(&p.expr, pre),
            syn::Expr::Path(_) => Some(place.clone()),
            // `*p` of a `&mut` parameter.
            syn::Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => Some(place.clone()),
            syn::Expr::Field(f) => {
                let base = self.bind_place_indices(&f.base, pre)?;
                let member = &f.member;
                Some(syn::parse_quote_spanned!(f.span()=> #base.#member))
            }
            syn::Expr::Index(ix) => {
                let base = self.bind_place_indices(&ix.expr, pre)?;
                let mut bind = |this: &mut Self, e: &syn::Expr| -> syn::Expr {
                    let e = strip_usize_cast(e);
                    if matches!(strip_parens(e), syn::Expr::Lit(_)) {
                        return e.clone();
                    }
                    this.fresh += 1;
                    let t = Ident::new(&format!("__amp_i{}", this.fresh), e.span());
                    pre.push(syn::parse_quote_spanned!(e.span()=> let #t = #e;));
                    syn::parse_quote_spanned!(e.span()=> #t)
                };
                let index: syn::Expr = match strip_parens(&ix.index) {
                    syn::Expr::Array(a) => {
                        let parts: Vec<syn::Expr> = a.elems.iter().map(|x| bind(self, x)).collect();
                        syn::parse_quote_spanned!(a.span()=> [#(#parts),*])
                    }
                    other => bind(self, other),
                };
                Some(syn::parse_quote_spanned!(ix.span()=> #base[#index]))
            }
            _ => None,
        }
    }

    /// `let v = <view>;` where `<view>` makes a view from a captured view
    /// (or from a view made before, or a chain of them):
    /// `a.section(origin, extent)`, `a.section_from(origin)`,
    /// `a.project(i)`, `a.view_as(extent)`, `a.reinterpret_as::<T>()`
    /// (C++ AMP's view methods in `restrict(amp)` code). The values the view
    /// is made of are evaluated here, into hidden locals, and `v` is bound
    /// to the view over them (see [`Resolver::view_of`]).
    fn local_view(&mut self, l: &syn::Local, name: Ident, init: &syn::Expr) -> Vec<Stmt> {
        let span = l.span();
        let Some((capture, capture_name, Some(made))) = self.view_of(init) else {
            return Vec::new();
        };
        let mut stmts = Vec::new();
        let mut hoist = |this: &mut Self, what: String, e: Expr| -> Expr {
            // Values already held by a hidden local (a view made by an
            // earlier `let`) are not copied again.
            if matches!(&e.kind, ExprKind::Local(_, n) if n.to_string().starts_with("__amp_")) {
                return e;
            }
            let (stmt, (id, n)) = this.hidden_let(&format!("__amp_{name}_{what}"), e, span);
            stmts.push(stmt);
            Expr {
                kind: ExprKind::Local(id, n),
                span,
            }
        };
        let binding = match made {
            Binding::Section { origin, extent, .. } => Binding::Section {
                capture,
                capture_name,
                origin: hoist(self, "origin".into(), origin),
                extent: hoist(self, "extent".into(), extent),
            },
            Binding::Projection {
                prefix, section, ..
            } => {
                let section = section.map(|(o, e)| {
                    (
                        hoist(self, "origin".into(), o),
                        hoist(self, "extent".into(), e),
                    )
                });
                let prefix = prefix
                    .into_iter()
                    .enumerate()
                    .map(|(k, p)| hoist(self, format!("at{k}"), p))
                    .collect();
                Binding::Projection {
                    capture,
                    capture_name,
                    prefix,
                    section,
                }
            }
            Binding::Reshaped {
                extent, section, ..
            } => {
                let section = section.map(|(o, e)| {
                    (
                        hoist(self, "origin".into(), o),
                        hoist(self, "section_extent".into(), e),
                    )
                });
                Binding::Reshaped {
                    capture,
                    capture_name,
                    extent: hoist(self, "extent".into(), extent),
                    section,
                }
            }
            other => other,
        };
        self.bind(&name, binding);
        stmts
    }

    /// The view `e` stands for: a captured view or array, or a view
    /// parameter (`None` with it), or a view made in the kernel, by its
    /// `let` or by a chain of view-making calls (`a.section(o, e)`,
    /// `a.section(o, e).project(i)`, ...), with the capture it views. The
    /// binding of a chain holds the expressions of its values, evaluated
    /// where the view is indexed. Reports anything else.
    fn view_of(&mut self, e: &syn::Expr) -> Option<(u32, Ident, Option<Binding>)> {
        match strip_parens(e) {
            syn::Expr::MethodCall(m) if is_view_method(m) => {
                let base = self.view_of_receiver(m)?;
                self.derive_view(m, base)
            }
            other => {
                let method = Ident::new("section", other.span());
                self.view_named(other, &method)
            }
        }
    }

    /// The view a view-making method `m` is called on: a chain of such
    /// calls, or a view by name.
    fn view_of_receiver(
        &mut self,
        m: &syn::ExprMethodCall,
    ) -> Option<(u32, Ident, Option<Binding>)> {
        match strip_parens(&m.receiver) {
            syn::Expr::MethodCall(r) if is_view_method(r) => self.view_of(&m.receiver),
            other => self.view_named(other, &m.method),
        }
    }

    /// The view named by `e`, the receiver of `method`.
    fn view_named(
        &mut self,
        e: &syn::Expr,
        method: &Ident,
    ) -> Option<(u32, Ident, Option<Binding>)> {
        let name = match e {
            syn::Expr::Path(p) => self.path_ident(p),
            _ => None,
        };
        let Some(name) = name else {
            self.errors.at(
                e,
                format!("a view in a kernel is made from a captured view by name: `let v = a.{method}(..);`"),
            );
            return None;
        };
        match self.lookup(&name.to_string()) {
            None if !is_const_name(&name.to_string()) => {
                let c = self.capture(&name)?;
                Some((c, name, None))
            }
            Some(Binding::View(c)) => Some((c, name, None)),
            Some(b) if let Some((capture, capture_name)) = b.made_view() => {
                Some((capture, capture_name, Some(b)))
            }
            _ => {
                self.errors.at(
                    e,
                    format!("`{method}` in a kernel is a method of captured views and arrays (and of views made from them)"),
                );
                None
            }
        }
    }

    /// The view `m` makes from `base` (see [`Resolver::view_of`]).
    fn derive_view(
        &mut self,
        m: &syn::ExprMethodCall,
        (capture, capture_name, made): (u32, Ident, Option<Binding>),
    ) -> Option<(u32, Ident, Option<Binding>)> {
        let span = m.span();
        let binary = |op: BinaryOp, a: Expr, b: Expr| Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            span,
        };
        let whole = |capture: u32, capture_name: &Ident| Expr {
            kind: ExprKind::Extent(capture, capture_name.clone()),
            span,
        };
        let binding = match m.method.to_string().as_str() {
            "section" | "section_from"
                if let Some(Binding::Projection {
                    prefix, section, ..
                }) = made =>
            {
                // A section of a projection is the section of the
                // projected view that keeps the fixed components (extent 1
                // there), projected at 0: `a.project(p).section([r, c],
                // [h, w])` is `a.section([p, r, c], [1, h, w]).project(0)`.
                let comps = |this: &mut Self, e: &syn::Expr| -> Option<Vec<Expr>> {
                    match strip_parens(e) {
                        syn::Expr::Array(a) => a.elems.iter().map(|x| this.expr(x)).collect(),
                        other => Some(vec![this.expr(strip_usize_cast(other))?]),
                    }
                };
                let int = |v: u128| Expr {
                    kind: ExprKind::Lit(Lit::Int(v, Some(Scalar::I32)), None),
                    span,
                };
                let index = |parts: Vec<Expr>| Expr {
                    kind: ExprKind::MakeIndex(parts, false),
                    span,
                };
                let fixed = prefix.len();
                let relative = comps(self, &m.args[0])?;
                let sizes = if m.method == "section" {
                    comps(self, &m.args[1])?
                } else {
                    // To the end of the projected view.
                    let all = match &section {
                        Some((_, e)) => e.clone(),
                        None => whole(capture, &capture_name),
                    };
                    (0..relative.len())
                        .map(|k| {
                            let dim = Expr {
                                kind: ExprKind::Element(
                                    Box::new(all.clone()),
                                    Box::new(int((fixed + k) as u128)),
                                ),
                                span,
                            };
                            binary(BinaryOp::Sub, dim, relative[k].clone())
                        })
                        .collect()
                };
                let mut origin: Vec<Expr> = prefix;
                origin.extend(relative);
                let mut extent: Vec<Expr> = (0..fixed).map(|_| int(1)).collect();
                extent.extend(sizes);
                let origin = match section {
                    Some((o, _)) => binary(BinaryOp::Add, o, index(origin)),
                    None => index(origin),
                };
                Binding::Projection {
                    capture,
                    capture_name: capture_name.clone(),
                    prefix: (0..fixed).map(|_| int(0)).collect(),
                    section: Some((origin, index(extent))),
                }
            }
            "section" | "section_from" => {
                let base = match made {
                    None => None,
                    Some(Binding::Section { origin, extent, .. }) => Some((origin, extent)),
                    Some(_) => {
                        self.errors.at(
                            &m.receiver,
                            "a section of a view made with `view_as` or `reinterpret_as` is not supported in kernels: index that view, or make the section on the host",
                        );
                        return None;
                    }
                };
                let relative = self.index_value(&m.args[0])?;
                let extent = if m.method == "section" {
                    self.index_value(&m.args[1])?
                } else {
                    // `section_from(origin)`: to the end of the view.
                    let all = match &base {
                        Some((_, e)) => e.clone(),
                        None => whole(capture, &capture_name),
                    };
                    binary(BinaryOp::Sub, all, relative.clone())
                };
                let origin = match base {
                    Some((o, _)) => binary(BinaryOp::Add, o, relative),
                    None => relative,
                };
                Binding::Section {
                    capture,
                    capture_name: capture_name.clone(),
                    origin,
                    extent,
                }
            }
            "project" => {
                let (mut prefix, section) = match made {
                    None => (Vec::new(), None),
                    Some(Binding::Section { origin, extent, .. }) => {
                        (Vec::new(), Some((origin, extent)))
                    }
                    Some(Binding::Projection {
                        prefix, section, ..
                    }) => (prefix, section),
                    Some(_) => {
                        self.errors.at(
                            &m.receiver,
                            "a projection of a view made with `view_as` or `reinterpret_as` is not supported in kernels: index that view",
                        );
                        return None;
                    }
                };
                prefix.push(self.expr(strip_usize_cast(&m.args[0]))?);
                Binding::Projection {
                    capture,
                    capture_name: capture_name.clone(),
                    prefix,
                    section,
                }
            }
            "view_as" => {
                let at_zero = |prefix: &[Expr]| {
                    prefix
                        .iter()
                        .all(|p| matches!(p.kind, ExprKind::Lit(Lit::Int(0, _), _)))
                };
                let section = match made {
                    None => None,
                    Some(Binding::Section { origin, extent, .. }) => Some((origin, extent)),
                    // A projection at 0 (of a view, or of a section: a
                    // section of a projection is one) holds the first
                    // elements of its view in row-major order: reshaping it
                    // reshapes them.
                    Some(Binding::Projection {
                        prefix, section, ..
                    }) if at_zero(&prefix) => section,
                    Some(Binding::Projection { .. }) => {
                        self.errors.at(
                            &m.receiver,
                            "`view_as` of a projection in a kernel is supported for projections at 0 and for sections of projections: reshape the view first, or make the view on the host",
                        );
                        return None;
                    }
                    Some(_) => {
                        self.errors.at(
                            &m.receiver,
                            "`view_as` in a kernel is a method of captured views and arrays (and of sections made from them)",
                        );
                        return None;
                    }
                };
                // The new extent: `[r, c]` is written as an extent value.
                let extent = match strip_parens(&m.args[0]) {
                    syn::Expr::Array(a) => {
                        let parts: Vec<Expr> =
                            a.elems.iter().filter_map(|x| self.expr(x)).collect();
                        if parts.len() != a.elems.len() {
                            return None;
                        }
                        Expr {
                            kind: ExprKind::MakeIndex(parts, true),
                            span: a.span(),
                        }
                    }
                    other => self.expr(other)?,
                };
                Binding::Reshaped {
                    capture,
                    capture_name: capture_name.clone(),
                    extent,
                    section,
                }
            }
            _ => {
                // `reinterpret_as::<U>()`: `w[k]` reads the `k`-th value of
                // type `U` in the words of the view's elements (row-major),
                // `w[k] = v` stores `v`'s words there (C++ AMP's
                // `reinterpret_as` in `restrict(amp)` code). `U` is `i32`,
                // `u32`, `f32` or a 2- or 4-component vector of them.
                let ty = m.turbofish.as_ref().and_then(|t| match t.args.first() {
                    Some(syn::GenericArgument::Type(syn::Type::Path(p))) if t.args.len() == 1 => {
                        Some(p.clone())
                    }
                    _ => None,
                });
                let zero = |s: Scalar| Expr {
                    kind: ExprKind::Lit(
                        match s {
                            Scalar::F32 => Lit::Float(0.0, Some(s)),
                            _ => Lit::Int(0, Some(s)),
                        },
                        None,
                    ),
                    span,
                };
                let last = ty
                    .as_ref()
                    .and_then(|p| p.path.segments.last())
                    .map(|s| s.ident.to_string());
                let witness = match (last.as_deref(), &ty) {
                    (Some("i32"), _) => Some(zero(Scalar::I32)),
                    (Some("u32"), _) => Some(zero(Scalar::U32)),
                    (Some("f32"), _) => Some(zero(Scalar::F32)),
                    (Some(name), Some(p)) => match vector_type(name) {
                        Some((n @ (2 | 4), sc @ (Scalar::I32 | Scalar::U32 | Scalar::F32))) => {
                            let new: syn::ExprPath = syn::parse_quote_spanned!(span=> #p::new);
                            Some(Expr {
                                kind: ExprKind::MakeVector(
                                    n,
                                    sc,
                                    new,
                                    (0..n).map(|_| zero(sc)).collect(),
                                ),
                                span,
                            })
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let Some(witness) = witness else {
                    self.errors.at(
                        m,
                        "`reinterpret_as` in a kernel names its element type, one of i32, u32, f32 and their 2- and 4-component vectors (`Int2`, `Float4`, ...): `a.reinterpret_as::<u32>()`; make other reinterpretations on the host",
                    );
                    return None;
                };
                if made.is_some() {
                    self.errors.at(
                        &m.receiver,
                        "`reinterpret_as` in a kernel is a method of captured views and arrays: make it from the view, or on the host",
                    );
                    return None;
                }
                Binding::Reinterpreted {
                    capture,
                    capture_name: capture_name.clone(),
                    witness,
                }
            }
        };
        Some((capture, capture_name, Some(binding)))
    }

    /// `let <name> = init;` of a local the kernel's text does not name (a
    /// view's origin, extent or fixed component): the statement and the
    /// local.
    fn hidden_let(&mut self, name: &str, init: Expr, span: Span) -> (Stmt, (u32, Ident)) {
        let n = Ident::new(name, span);
        let id = self.declare(&n);
        let stmt = Stmt {
            kind: StmtKind::Let {
                local: id,
                name: n.clone(),
                mutable: false,
                ty: None,
                native_ty: None,
                init: Some(init),
            },
            span,
        };
        (stmt, (id, n))
    }

    /// Binds `name` in the innermost scope.
    fn bind(&mut self, name: &Ident, binding: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .push((name.to_string(), binding));
    }

    /// A component of a projection's extent (`row.extent()[k]`): the
    /// extent of its view, past the fixed components.
    fn projection_extent(&mut self, ix: &syn::ExprIndex) -> Option<Option<ExprKind>> {
        let syn::Expr::MethodCall(m) = strip_parens(&ix.expr) else {
            return Some(None);
        };
        if m.method != "extent" || !m.args.is_empty() {
            return Some(None);
        }
        let made = match strip_parens(&m.receiver) {
            // A projection made where it is used (`a.project(i).extent()[0]`).
            r if view_method(r).is_some() => match self.view_of(r)? {
                (_, _, Some(b @ Binding::Projection { .. })) => Some(b),
                _ => return Some(None),
            },
            syn::Expr::Path(p) => match self.path_ident(p) {
                Some(name) => self.lookup(&name.to_string()),
                None => return Some(None),
            },
            _ => return Some(None),
        };
        let Some(Binding::Projection {
            capture,
            capture_name,
            prefix,
            section,
        }) = made
        else {
            return Some(None);
        };
        let span = ix.span();
        let k = self.expr(strip_usize_cast(&ix.index))?;
        let fixed = Expr {
            kind: ExprKind::Lit(Lit::Int(prefix.len() as u128, None), None),
            span,
        };
        let whole = match section {
            Some((_, e)) => e.kind,
            None => ExprKind::Extent(capture, capture_name),
        };
        Some(Some(ExprKind::Element(
            Box::new(Expr { kind: whole, span }),
            Box::new(Expr {
                kind: ExprKind::Binary(BinaryOp::Add, Box::new(k), Box::new(fixed)),
                span,
            }),
        )))
    }

    /// An index or extent argument: `[i, j]` as an index value, else the
    /// expression.
    fn index_value(&mut self, e: &syn::Expr) -> Option<Expr> {
        match strip_parens(e) {
            syn::Expr::Array(a) => {
                let parts: Vec<Expr> = a.elems.iter().filter_map(|x| self.expr(x)).collect();
                (parts.len() == a.elems.len()).then(|| Expr {
                    kind: ExprKind::MakeIndex(parts, false),
                    span: a.span(),
                })
            }
            other => self.expr(other),
        }
    }

    /// `let (a, b) = e;` as `let tmp = e; let a = tmp.0; let b = tmp.1;`.
    fn local_tuple(&mut self, l: &syn::Local, t: &syn::PatTuple) -> Vec<Stmt> {
        let span = l.span();
        let Some(init) = l.init.as_ref().and_then(|i| self.expr(&i.expr)) else {
            self.errors
                .at(l, "a kernel `let (..)` needs an initialiser");
            return Vec::new();
        };
        let tmp = Ident::new(&format!("__amp_tuple{}", self.next_local), span);
        let local = self.declare(&tmp);
        let mut out = vec![Stmt {
            kind: StmtKind::Let {
                local,
                name: tmp.clone(),
                mutable: false,
                ty: None,
                native_ty: None,
                init: Some(init),
            },
            span,
        }];
        for (i, p) in t.elems.iter().enumerate() {
            let (name, mutable) = match p {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    (p.ident.clone(), p.mutability.is_some())
                }
                syn::Pat::Wild(_) => continue,
                other => {
                    self.errors
                        .at(other, "kernel tuple patterns bind plain names or `_`");
                    continue;
                }
            };
            let value = Expr {
                kind: ExprKind::Field(
                    Box::new(Expr {
                        kind: ExprKind::Local(local, tmp.clone()),
                        span,
                    }),
                    syn::Member::Unnamed(syn::Index {
                        index: i as u32,
                        span,
                    }),
                ),
                span,
            };
            let id = self.declare(&name);
            out.push(Stmt {
                kind: StmtKind::Let {
                    local: id,
                    name,
                    mutable,
                    ty: None,
                    native_ty: None,
                    init: Some(value),
                },
                span,
            });
        }
        out
    }

    fn local(&mut self, l: &syn::Local) -> Option<Stmt> {
        let span = l.span();
        let init = match &l.init {
            Some(init) => {
                if let Some((_, diverge)) = &init.diverge {
                    self.errors.at(diverge, "`let ... else` is not allowed in kernels: kernel values have no refutable patterns (no enums such as Option or Result); test with `if` and `return`");
                }
                self.expr(&init.expr)
            }
            None => None,
        };
        let (pat, ty, native_ty) = match &l.pat {
            syn::Pat::Type(pt) => (
                &*pt.pat,
                ty_of(&pt.ty, &self.type_params, self.errors),
                Some((*pt.ty).clone()),
            ),
            other => (other, None, None),
        };
        let (name, mutable) = match pat {
            // `let _ = e;` evaluates `e` and drops its value.
            syn::Pat::Wild(w) => {
                return match init {
                    Some(init) => Some(Stmt {
                        kind: StmtKind::Expr(init),
                        span,
                    }),
                    None => {
                        if l.init.is_none() {
                            self.errors
                                .at(w, "`let _;` binds nothing: write `let _ = value;`");
                        }
                        None
                    }
                };
            }
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                (p.ident.clone(), p.mutability.is_some())
            }
            other => {
                self.errors.at(other, "kernel `let` bindings are plain names (`let x`, `let mut x`) or tuples of them (`let (a, b)`); other patterns are not supported");
                return None;
            }
        };
        // A call with a `&mut` result (see `Resolver::ref_call`).
        let init = match init {
            Some(e) if self.ref_calls.contains(&name.to_string()) => Some(Expr {
                span: e.span,
                kind: ExprKind::RefCall(Box::new(e)),
            }),
            other => other,
        };
        // The initialiser is resolved before the new name is in scope.
        let local = self.declare(&name);
        Some(Stmt {
            kind: StmtKind::Let {
                local,
                name,
                mutable,
                ty,
                native_ty,
                init,
            },
            span,
        })
    }

    fn stmt_expr(&mut self, e: &syn::Expr) -> Option<Stmt> {
        let span = e.span();
        let kind = match e {
            syn::Expr::Assign(a) => {
                self.reinterpreted = None;
                let place = self.place(&a.left)?;
                let stored = self.reinterpreted.take();
                let value = self.expr(&a.right)?;
                match (stored, place) {
                    // `w[k] = v` of a reinterpreted view: `v`'s words stored
                    // in the view's elements.
                    (Some((c, _)), Place::Element(_, name, mut k)) if k.len() == 1 => {
                        let k = k.pop()?;
                        StmtKind::Expr(Expr {
                            kind: ExprKind::Call(
                                "ReinterpretStore",
                                Ident::new("reinterpret_store", span),
                                vec![
                                    Expr {
                                        kind: ExprKind::Capture(c, name),
                                        span,
                                    },
                                    value,
                                    k,
                                ],
                            ),
                            span,
                        })
                    }
                    (Some(_), _) => {
                        self.errors.at(
                            &a.left,
                            "a reinterpreted view is written element by element: `w[k] = v`",
                        );
                        return None;
                    }
                    (None, place) => StmtKind::Assign(place, None, value),
                }
            }
            syn::Expr::Binary(b) if matches!(bin_op(&b.op), Some((_, true))) => {
                let (op, _) = bin_op(&b.op)?;
                self.reinterpreted = None;
                let place = self.place(&b.left)?;
                if self.reinterpreted.take().is_some() {
                    self.errors.at(
                        &b.left,
                        "compound assignment to a reinterpreted view: write `w[k] = w[k] + v`",
                    );
                    return None;
                }
                StmtKind::Assign(place, Some(op), self.expr(&b.right)?)
            }
            syn::Expr::If(i) => {
                let cond = self.expr(&i.cond);
                let then = self.block(&i.then_branch);
                let els = i.else_branch.as_ref().map(|(_, e)| self.else_block(e));
                StmtKind::If(cond?, then, els)
            }
            syn::Expr::While(w) => {
                if let Some(l) = &w.label {
                    self.errors.at(l, "loop labels are not supported in kernels: WGSL has no labelled `break` or `continue`; use a flag variable");
                }
                let cond = self.expr(&w.cond);
                let body = self.block(&w.body);
                StmtKind::While(cond?, body)
            }
            syn::Expr::Loop(l) => {
                if let Some(l) = &l.label {
                    self.errors.at(l, "loop labels are not supported in kernels: WGSL has no labelled `break` or `continue`; use a flag variable");
                }
                StmtKind::Loop(self.block(&l.body))
            }
            syn::Expr::ForLoop(f) => return self.for_loop(f),
            syn::Expr::MethodCall(m) if self.barrier_call(m).is_some() => {
                if !m.args.is_empty() {
                    self.errors.at(&m.args, "tile barriers take no arguments");
                }
                StmtKind::Barrier(self.barrier_call(m)?, m.paren_token.span.close())
            }
            syn::Expr::Match(m) => {
                let e = self.match_expr(m, true)?;
                let ExprKind::Block(block) = e.kind else {
                    return None;
                };
                // A block statement, as `if true { .. }`.
                StmtKind::If(
                    Expr {
                        kind: ExprKind::Lit(Lit::Bool(true), None),
                        span,
                    },
                    block,
                    None,
                )
            }
            syn::Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    self.errors.at(b, "`break` in a kernel takes no label and no value: WGSL loops have neither; use a flag or a `let mut` declared before the loop");
                }
                StmtKind::Break
            }
            syn::Expr::Continue(c) => {
                if c.label.is_some() {
                    self.errors.at(c, "`continue` in a kernel takes no label");
                }
                StmtKind::Continue
            }
            syn::Expr::Return(r) => match &r.expr {
                Some(v) if self.function => StmtKind::Return(Some(self.expr(v)?)),
                Some(v) => {
                    self.errors
                        .at(v, "a kernel returns nothing: `return;` ends this work item");
                    StmtKind::Return(None)
                }
                None => StmtKind::Return(None),
            },
            syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                if let Some(u) = &b.block.stmts.first() {
                    let _ = u;
                }
                let block = self.block(&b.block);
                StmtKind::If(
                    Expr {
                        kind: ExprKind::Lit(Lit::Bool(true), None),
                        span,
                    },
                    block,
                    None,
                )
            }
            other => StmtKind::Expr(self.expr(other)?),
        };
        Some(Stmt { kind, span })
    }

    fn else_block(&mut self, e: &syn::Expr) -> Block {
        match e {
            syn::Expr::Block(b) => self.block(&b.block),
            syn::Expr::If(_) => {
                let stmt = self.stmt_expr(e);
                Block {
                    stmts: stmt.into_iter().collect(),
                    tail: None,
                }
            }
            other => {
                self.errors.at(other, "expected a block");
                Block::default()
            }
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Option<Stmt> {
        let span = f.span();
        let mut unroll = false;
        for a in &f.attrs {
            if a.path().is_ident("unroll") && matches!(a.meta, syn::Meta::Path(_)) {
                unroll = true;
            } else {
                self.errors.at(a, "the only attribute a kernel `for` loop takes is `#[unroll]` (unroll the loop fully; its range must be constant)");
            }
        }
        if let Some(l) = &f.label {
            self.errors.at(l, "loop labels are not supported in kernels: WGSL has no labelled `break` or `continue`; use a flag variable");
        }
        let name = match &*f.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            syn::Pat::Wild(w) => Ident::new("_", w.span()),
            other => {
                self.errors
                    .at(other, "a kernel `for` loop binds one plain name");
                return None;
            }
        };
        // `a..b`, `a..=b`, `(a..b).step_by(s)`, each optionally `.rev()`.
        let (iter, reverse) = match strip_parens(&f.expr) {
            syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                (strip_parens(&m.receiver), true)
            }
            other => (other, false),
        };
        if let syn::Expr::MethodCall(m) = iter
            && m.method == "step_by"
            && matches!(strip_parens(&m.receiver), syn::Expr::MethodCall(r) if r.method == "rev")
        {
            self.errors.at(
                m,
                "write `(a..b).step_by(s).rev()` (the forward steps, last first): `.rev().step_by(s)` is not supported in kernels",
            );
            return None;
        }
        let (range, step) = match iter {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let step = strip_usize_cast(&m.args[0]);
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) = strip_parens(step)
                    && i.base10_parse::<u128>().is_ok_and(|v| v == 0)
                {
                    self.errors.at(
                        &m.args[0],
                        "`step_by(0)` never advances (Rust panics on it): a kernel `for` loop needs a step of at least 1; a step that is 0 at run time skips the loop on every accelerator",
                    );
                    return None;
                }
                (strip_parens(&m.receiver), Some(step))
            }
            other => (strip_parens(other), None),
        };
        let syn::Expr::Range(r) = range else {
            self.errors.at(
                &f.expr,
                "kernel `for` loops iterate over integer ranges only: `a..b`, `a..=b` or `(a..b).step_by(s)`, optionally followed by `.rev()` (no iterators over collections)",
            );
            return None;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.errors
                .at(r, "a kernel `for` range needs both ends: `a..b`");
            return None;
        };
        if let Some(bound) = [start, end].into_iter().find(|b| is_float_literal(b)) {
            self.errors.at(bound, "kernel `for` loops iterate over integer ranges only (a float range is not an iterator in Rust either); use `while` for a float counter");
        }
        let start = self.expr(start);
        let end = self.expr(end);
        let step = step.and_then(|s| self.expr(s));
        self.scopes.push(Vec::new());
        let var = self.declare(&name);
        let body = self.block(&f.body);
        self.scopes.pop();
        Some(Stmt {
            kind: StmtKind::For {
                var,
                name,
                start: start?,
                end: end?,
                inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                step,
                body,
                unroll,
                reverse,
            },
            span,
        })
    }

    fn place(&mut self, e: &syn::Expr) -> Option<Place> {
        if let syn::Expr::Unary(u) = strip_parens(e)
            && let UnOp::Deref(_) = u.op
            && let Some((id, name)) = self.ref_param(&u.expr)
        {
            return Some(Place::Local(id, name));
        }
        match strip_parens(e) {
            syn::Expr::Path(p) => match self.path_ident(p) {
                Some(name) => match self.lookup(&name.to_string()) {
                    Some(Binding::Local(id, _)) if self.ref_params.contains(&id) => {
                        self.errors.at(
                            p,
                            format!("`{name}` is a `&mut` parameter: assign the caller's value as `*{name}`"),
                        );
                        None
                    }
                    Some(Binding::Local(id, alias)) => {
                        Some(Place::Local(id, alias.unwrap_or(name)))
                    }
                    Some(Binding::Index | Binding::Tiled) => {
                        self.errors.at(p, "the kernel's index cannot be assigned");
                        None
                    }
                    Some(Binding::TileScalar(id)) => {
                        Some(Place::TileElement(id, name, vec![zero(p.span())]))
                    }
                    Some(Binding::TileStatic(_)) => {
                        self.errors.at(
                            p,
                            "a tile_static array is assigned element by element: `a[i] = ..`",
                        );
                        None
                    }
                    Some(Binding::View(_)) => {
                        self.errors.at(
                            p,
                            "a view parameter is assigned element by element: `a[i] = ..`",
                        );
                        None
                    }
                    Some(Binding::Section { .. }) => {
                        self.errors
                            .at(p, "a section is assigned element by element: `s[i] = ..`");
                        None
                    }
                    Some(Binding::Projection { .. }) => {
                        self.errors.at(
                            p,
                            "a projection is assigned element by element: `row[j] = ..`",
                        );
                        None
                    }
                    Some(Binding::Reshaped { .. }) => {
                        self.errors
                            .at(p, "a view is assigned element by element: `m[i] = ..`");
                        None
                    }
                    Some(Binding::Reinterpreted { .. }) => {
                        self.errors
                            .at(p, "a view is assigned element by element: `w[k] = ..`");
                        None
                    }
                    None if is_const_name(&name.to_string()) => {
                        self.errors.at(
                            p,
                            format!("`{name}` is a constant (an upper-case name) and cannot be assigned; name a local variable in snake case"),
                        );
                        None
                    }
                    None => {
                        self.errors.at(
                            p,
                            "captured variables are copied into the kernel and cannot be assigned; write results to a captured ArrayView",
                        );
                        None
                    }
                },
                None => {
                    self.errors.at(
                        p,
                        "only locals and elements of captured views can be assigned in kernels",
                    );
                    None
                }
            },
            syn::Expr::Field(f) => Some(Place::Field(
                Box::new(self.place(&f.base)?),
                f.member.clone(),
            )),
            syn::Expr::Index(_) => {
                let (base, indices) = self.index_chain(e)?;
                match base {
                    IndexBase::Capture(c, name) => {
                        self.check_writable(c, &name)?;
                        Some(Place::Element(c, name, indices))
                    }
                    IndexBase::Local(id, name) => Some(Place::ArrayElement(id, name, indices)),
                    IndexBase::TileStatic(id, name) => Some(Place::TileElement(id, name, indices)),
                    IndexBase::KernelIndex(name) => {
                        self.errors
                            .at(name, "the kernel's index cannot be assigned");
                        None
                    }
                    IndexBase::Const(path) => {
                        self.errors.at(path, "a constant cannot be assigned");
                        None
                    }
                }
            }
            other => {
                self.errors.at(
                    other,
                    "only locals and elements of captured views can be assigned in kernels",
                );
                None
            }
        }
    }

    /// A call of an atomic function: `&a[i]` (an element of a captured
    /// view or of a `tile_static` array) first, then for
    /// `atomic_compare_exchange` `&mut expected` (a local), then values.
    fn atomic(
        &mut self,
        c: &syn::ExprCall,
        path: &syn::ExprPath,
        name: &str,
        op: &'static str,
        arity: usize,
    ) -> Option<Expr> {
        if c.args.len() != arity {
            let form = match arity {
                1 => format!("`{name}(&a[idx])`"),
                3 => format!("`{name}(&a[idx], &mut expected, value)`"),
                _ => format!("`{name}(&a[idx], value)`"),
            };
            self.errors.at(
                c,
                format!(
                    "`{name}` takes {arity} argument{}: {form}",
                    if arity == 1 { "" } else { "s" }
                ),
            );
            return None;
        }
        let place_error = format!(
            "the first argument of `{name}` is the element it applies to, `&a[idx]`: an element of a captured view or array, or of a tile_static array (C++ AMP atomics apply to global and tile_static memory)"
        );
        let syn::Expr::Reference(r) = strip_parens(&c.args[0]) else {
            self.errors.at(&c.args[0], place_error);
            return None;
        };
        // `&count` of a tile_static scalar.
        if let syn::Expr::Path(p) = strip_parens(&r.expr)
            && let Some(n) = self.path_ident(p)
            && let Some(Binding::TileScalar(id)) = self.lookup(&n.to_string())
        {
            let target = Place::TileElement(id, n, vec![zero(p.span())]);
            return self.atomic_rest(c, path, op, arity, target);
        }
        if !matches!(strip_parens(&r.expr), syn::Expr::Index(_)) {
            self.errors.at(&c.args[0], place_error);
            return None;
        }
        let (base, idx) = self.index_chain(&r.expr)?;
        if self.reinterpreted.take().is_some() {
            self.errors.at(
                &c.args[0],
                "atomics on a view reinterpreted in the kernel are not supported: make the view with reinterpret_as on the host",
            );
            return None;
        }
        let target = match base {
            IndexBase::Capture(cap, n) => {
                self.check_writable(cap, &n)?;
                Place::Element(cap, n, idx)
            }
            IndexBase::TileStatic(id, n) => Place::TileElement(id, n, idx),
            IndexBase::Local(..) | IndexBase::KernelIndex(_) | IndexBase::Const(_) => {
                self.errors.at(&c.args[0], place_error);
                return None;
            }
        };
        self.atomic_rest(c, path, op, arity, target)
    }

    /// The rest of an atomic call, after its element `target`.
    fn atomic_rest(
        &mut self,
        c: &syn::ExprCall,
        path: &syn::ExprPath,
        op: &'static str,
        arity: usize,
        target: Place,
    ) -> Option<Expr> {
        let span = c.span();
        let mut rest = c.args.iter().skip(1);
        let expected = if op == "CompareExchange" {
            let arg = rest.next().expect("three arguments");
            let local = match strip_parens(arg) {
                syn::Expr::Reference(r) if r.mutability.is_some() => match strip_parens(&r.expr) {
                    syn::Expr::Path(p) => {
                        self.path_ident(p)
                            .and_then(|n| match self.lookup(&n.to_string()) {
                                Some(Binding::Local(id, alias)) => Some((id, alias.unwrap_or(n))),
                                _ => None,
                            })
                    }
                    _ => None,
                },
                _ => None,
            };
            let Some((id, n)) = local else {
                self.errors.at(
                    arg,
                    "the second argument of `atomic_compare_exchange` is `&mut expected`, a `let mut` local of the kernel: it receives the element's value when the exchange fails",
                );
                return None;
            };
            let old = self.next_local;
            self.next_local += 2;
            Some((id, n, old, old + 1))
        } else {
            None
        };
        let args: Vec<Expr> = rest.filter_map(|a| self.expr(a)).collect();
        if args.len() + 1 + usize::from(expected.is_some()) != arity {
            return None;
        }
        Some(Expr {
            kind: ExprKind::Atomic(Box::new(Atomic {
                path: path.clone(),
                op,
                implicit_one: arity == 1,
                target,
                args,
                expected,
            })),
            span,
        })
    }

    /// The local of `e` if it names a `&mut` parameter.
    fn ref_param(&self, e: &syn::Expr) -> Option<(u32, Ident)> {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        let name = self.path_ident(p)?;
        match self.lookup(&name.to_string()) {
            Some(Binding::Local(id, _)) if self.ref_params.contains(&id) => Some((id, name)),
            _ => None,
        }
    }

    /// `&mut place` (or a `&mut` parameter passed on): an argument for a
    /// `&mut T` parameter, which must be a local or an element of a local
    /// array (accelerator functions take pointers to private memory only).
    fn addr_of(&mut self, a: &syn::Expr) -> Option<Expr> {
        let span = a.span();
        let place = match strip_parens(a) {
            syn::Expr::Reference(r) => self.place(&r.expr)?,
            other => {
                let (id, name) = self.ref_param(other)?;
                Place::Local(id, name)
            }
        };
        // (Pointers to array elements trip naga's SPIR-V writer: a local,
        // a whole local array or a `&mut` parameter only.)
        if !matches!(place, Place::Local(..)) {
            self.errors.at(
                a,
                "a `&mut` argument is a local variable, a whole local array, or an element (of an array, a view or a tile_static array) passed in a call that runs once where it is written (not after `&&`/`||`, in a branch or a loop condition): the element is copied in and stored back after the call; call it in a `let` first (`let r = f(&mut s[i]);`)",
            );
            return None;
        }
        Some(Expr {
            kind: ExprKind::AddrOf(Box::new(place)),
            span,
        })
    }

    /// Refuses a write to a read-only view parameter (rustc would, in
    /// terms of the runtime's types).
    fn check_writable(&mut self, c: u32, name: &Ident) -> Option<()> {
        if self.read_only_views.contains(&c) {
            self.errors.at(
                name,
                format!("`{name}` is a read-only view parameter (`&ArrayView<'_, T, N, ReadOnly>`): take `&ArrayView<'_, T, N>` to write through it"),
            );
            return None;
        }
        Some(())
    }

    /// An argument of a `#[kernel]` function call: a value, or (C++ AMP
    /// passes them by reference) a captured view or array (`&a`), or the
    /// tiled index (`&t`), which the function's view and tiled parameters
    /// bind.
    fn call_arg(&mut self, a: &syn::Expr) -> Option<Expr> {
        if let syn::Expr::Reference(r) = strip_parens(a)
            && r.mutability.is_some()
        {
            return self.addr_of(a);
        }
        if self.ref_param(a).is_some() {
            return self.addr_of(a);
        }
        let inner = match strip_parens(a) {
            syn::Expr::Reference(r) if r.mutability.is_none() => strip_parens(&r.expr),
            other => other,
        };
        if let syn::Expr::Path(p) = inner
            && let Some(name) = self.path_ident(p)
        {
            let span = a.span();
            match self.lookup(&name.to_string()) {
                Some(Binding::Tiled) => {
                    return Some(Expr {
                        kind: ExprKind::TiledArg(name),
                        span,
                    });
                }
                Some(Binding::View(c)) => {
                    return Some(Expr {
                        kind: ExprKind::Capture(c, name),
                        span,
                    });
                }
                None if !is_const_name(&name.to_string()) && !matches!(a, syn::Expr::Path(_)) => {
                    // `&a` of a capture: the capture itself.
                    let c = self.capture(&name)?;
                    return Some(Expr {
                        kind: ExprKind::Capture(c, name),
                        span,
                    });
                }
                _ => {}
            }
        }
        self.expr(a)
    }

    /// `x.inc()`, `x.dec()`, `x.post_inc()`, `x.post_dec()` of a local
    /// `Index`/`Extent` (C++ AMP's `++x`, `--x`, `x++`, `x--`): lowered to
    /// `{ x += 1; x }` and `{ let old = x; x += 1; old }`.
    fn step(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let span = m.span();
        let method = m.method.to_string();
        let local = match strip_parens(&m.receiver) {
            syn::Expr::Path(p) => {
                self.path_ident(p)
                    .and_then(|n| match self.lookup(&n.to_string()) {
                        Some(Binding::Local(id, alias)) => Some((id, alias.unwrap_or(n))),
                        _ => None,
                    })
            }
            _ => None,
        };
        let Some((id, name)) = local else {
            self.errors.at(
                &m.receiver,
                format!("`{method}` steps a local `Index` or `Extent` variable in place: call it on a `let mut` local by name"),
            );
            return None;
        };
        let op = if method.ends_with("inc") {
            BinaryOp::Add
        } else {
            BinaryOp::Sub
        };
        let one = Expr {
            kind: ExprKind::Lit(
                Lit::Int(1, Some(Scalar::I32)),
                Some(syn::parse_quote_spanned!(span=> 1i32)),
            ),
            span,
        };
        let local_expr = |id: u32, name: &Ident| Expr {
            kind: ExprKind::Local(id, name.clone()),
            span,
        };
        let step = Stmt {
            kind: StmtKind::Assign(Place::Local(id, name.clone()), Some(op), one),
            span,
        };
        let block = if method.starts_with("post") {
            let old = self.next_local;
            self.next_local += 1;
            let old_name = Ident::new("__amp_old", span);
            Block {
                stmts: vec![
                    Stmt {
                        kind: StmtKind::Let {
                            local: old,
                            name: old_name.clone(),
                            mutable: false,
                            ty: None,
                            native_ty: None,
                            init: Some(local_expr(id, &name)),
                        },
                        span,
                    },
                    step,
                ],
                tail: Some(Box::new(local_expr(old, &old_name))),
            }
        } else {
            Block {
                stmts: vec![step],
                tail: Some(Box::new(local_expr(id, &name))),
            }
        };
        Some(Expr {
            kind: ExprKind::Block(block),
            span,
        })
    }

    fn path_ident(&self, p: &syn::ExprPath) -> Option<Ident> {
        if p.qself.is_none() && p.path.segments.len() == 1 && p.path.segments[0].arguments.is_none()
        {
            Some(p.path.segments[0].ident.clone())
        } else {
            None
        }
    }

    /// `v[i]...` of a view made in the kernel (`made`; `at` is `v`): the
    /// element of the captured view it stands for, and its index.
    fn index_view(
        &mut self,
        made: Binding,
        indices: &[&syn::Expr],
        at: &syn::Expr,
    ) -> Option<(IndexBase, Vec<Expr>)> {
        let span = at.span();
        match made {
            Binding::Section {
                capture,
                capture_name,
                origin,
                ..
            } => {
                // `s[i]`, `s[[i, j]]`, `s[i][j]`: the view's element at the
                // section's origin plus the index.
                let mut parts = Vec::new();
                for i in indices {
                    let i = strip_usize_cast(i);
                    parts.push(self.index_value(i)?);
                }
                let index = if parts.len() == 1 {
                    parts.pop().expect("one index")
                } else {
                    Expr {
                        kind: ExprKind::MakeIndex(parts, false),
                        span,
                    }
                };
                let at = Expr {
                    kind: ExprKind::Binary(BinaryOp::Add, Box::new(origin), Box::new(index)),
                    span,
                };
                Some((IndexBase::Capture(capture, capture_name), vec![at]))
            }
            Binding::Reinterpreted {
                capture,
                capture_name,
                witness,
            } => {
                // `w[k]`: the value at position `k` (the caller reads or
                // writes it with `reinterpret_load`/`reinterpret_store`).
                let [k] = indices else {
                    self.errors.at(
                        at,
                        "a reinterpreted view has rank 1: index it with one position, `w[k]`",
                    );
                    return None;
                };
                let k = match strip_parens(strip_usize_cast(k)) {
                    syn::Expr::Array(a) if a.elems.len() == 1 => self.expr(&a.elems[0])?,
                    other => self.expr(other)?,
                };
                self.reinterpreted = Some((capture, witness));
                Some((IndexBase::Capture(capture, capture_name), vec![k]))
            }
            Binding::Reshaped {
                capture,
                capture_name,
                extent,
                section,
            } => {
                // `m[idx]`, `m[[i, j]]`, `m[i][j]`: the view's element at the
                // index's row-major position in the new extent.
                let mut parts = Vec::new();
                for i in indices {
                    let i = strip_usize_cast(i);
                    parts.push(self.index_value(i)?);
                }
                let index = if parts.len() == 1 {
                    parts.pop().expect("one index")
                } else {
                    Expr {
                        kind: ExprKind::MakeIndex(parts, false),
                        span,
                    }
                };
                let call = |ir: &'static str, method: &str, args: Vec<Expr>| Expr {
                    kind: ExprKind::Call(ir, Ident::new(method, span), args),
                    span,
                };
                let at = call("Linearize", "linearize", vec![extent, index]);
                let whole = match &section {
                    Some((_, e)) => e.clone(),
                    None => Expr {
                        kind: ExprKind::Extent(capture, capture_name.clone()),
                        span,
                    },
                };
                let mut index = call("Delinearize", "delinearize", vec![whole, at]);
                if let Some((origin, _)) = section {
                    index = Expr {
                        kind: ExprKind::Binary(BinaryOp::Add, Box::new(origin), Box::new(index)),
                        span,
                    };
                }
                Some((IndexBase::Capture(capture, capture_name), vec![index]))
            }
            Binding::Projection {
                capture,
                capture_name,
                prefix,
                section,
            } => {
                // `row[j]`, `row[[j, k]]`, `row[j][k]`: the view's element
                // at the fixed components, then the index's.
                let mut parts: Vec<Expr> = prefix;
                for i in indices {
                    match strip_parens(strip_usize_cast(i)) {
                        syn::Expr::Array(a) => {
                            for x in &a.elems {
                                parts.push(self.expr(strip_usize_cast(x))?);
                            }
                        }
                        other => parts.push(self.expr(other)?),
                    }
                }
                let parts = match section {
                    None => parts,
                    Some((origin, _)) => vec![Expr {
                        kind: ExprKind::Binary(
                            BinaryOp::Add,
                            Box::new(origin),
                            Box::new(Expr {
                                kind: ExprKind::MakeIndex(parts, false),
                                span,
                            }),
                        ),
                        span,
                    }],
                };
                Some((IndexBase::Capture(capture, capture_name), parts))
            }
            _ => {
                self.errors.at(at, "not a view made in the kernel");
                None
            }
        }
    }

    fn index_chain(&mut self, e: &syn::Expr) -> Option<(IndexBase, Vec<Expr>)> {
        self.reinterpreted = None;
        let mut indices = Vec::new();
        let mut cur = strip_parens(e);
        while let syn::Expr::Index(ix) = cur {
            indices.push(&*ix.index);
            cur = strip_parens(&ix.expr);
        }
        indices.reverse();
        if view_method(cur).is_some() {
            // A view made where it is indexed (`a.section(o, e)[i]`, or a
            // chain of them): indexed as through a `let`, with the values
            // it is made of evaluated here.
            let (_, _, made) = self.view_of(cur)?;
            return self.index_view(made?, &indices, cur);
        }
        let syn::Expr::Path(p) = cur else {
            self.errors.at(
                cur,
                "only captured views, local arrays and the kernel index can be indexed in kernels",
            );
            return None;
        };
        let Some(name) = self.path_ident(p) else {
            if p.qself.is_none() {
                // `module::TABLE[i]`: a constant array.
                let indices = indices
                    .iter()
                    .map(|i| self.expr(strip_usize_cast(i)))
                    .collect::<Option<Vec<_>>>()?;
                return Some((IndexBase::Const(p.path.clone()), indices));
            }
            self.errors.at(
                p,
                "only captured views, local arrays and the kernel index can be indexed in kernels",
            );
            return None;
        };
        let base = match self.lookup(&name.to_string()) {
            None if is_const_name(&name.to_string()) => {
                if !self.function && !self.consts.contains(&name) {
                    self.consts.push(name.clone());
                }
                IndexBase::Const(p.path.clone())
            }
            Some(Binding::Local(id, alias)) => IndexBase::Local(id, alias.unwrap_or(name)),
            Some(Binding::Index) => IndexBase::KernelIndex(name),
            Some(Binding::View(c)) => IndexBase::Capture(c, name),
            Some(
                b @ (Binding::Section { .. }
                | Binding::Projection { .. }
                | Binding::Reshaped { .. }
                | Binding::Reinterpreted { .. }),
            ) => {
                return self.index_view(b, &indices, cur);
            }
            Some(Binding::TileStatic(id)) => IndexBase::TileStatic(id, name),
            Some(Binding::TileScalar(_)) => {
                self.errors.at(
                    &name,
                    "a tile_static scalar is not an array: use it by name",
                );
                return None;
            }
            Some(Binding::Tiled) => {
                self.errors.at(
                    &name,
                    "index a field of the tiled index: `t.global[0]`, `t.local[1]`",
                );
                return None;
            }
            None => {
                let c = self.capture(&name)?;
                IndexBase::Capture(c, name)
            }
        };
        let container = matches!(base, IndexBase::Capture(..));
        let mut out = Vec::new();
        for (k, i) in indices.iter().enumerate() {
            let i = strip_usize_cast(i);
            // A container indexed by `[i, j]` uses it as an Index value.
            let expr = match (container, k, strip_parens(i)) {
                (true, 0, syn::Expr::Array(a)) if indices.len() == 1 => {
                    let parts: Vec<Expr> = a.elems.iter().filter_map(|x| self.expr(x)).collect();
                    Some(Expr {
                        kind: ExprKind::MakeIndex(parts, false),
                        span: a.span(),
                    })
                }
                _ => self.expr(i),
            };
            out.push(expr?);
        }
        Some((base, out))
    }

    fn expr(&mut self, e: &syn::Expr) -> Option<Expr> {
        let span = e.span();
        let kind = match e {
            syn::Expr::Lit(l) => {
                // A negative literal token (from a pattern): `-(literal)`.
                let digits = match &l.lit {
                    syn::Lit::Int(i) => i
                        .base10_digits()
                        .strip_prefix('-')
                        .map(|d| (d.to_string(), i.suffix().to_string(), false)),
                    syn::Lit::Float(f) => f
                        .base10_digits()
                        .strip_prefix('-')
                        .map(|d| (d.to_string(), f.suffix().to_string(), true)),
                    _ => None,
                };
                if let Some((d, suffix, float)) = digits {
                    let lit = if float {
                        syn::Lit::Float(syn::LitFloat::new(&format!("{d}{suffix}"), l.span()))
                    } else {
                        syn::Lit::Int(syn::LitInt::new(&format!("{d}{suffix}"), l.span()))
                    };
                    let inner = Expr {
                        kind: ExprKind::Lit(self.lit(&lit)?, Some(lit)),
                        span,
                    };
                    return Some(Expr {
                        kind: ExprKind::Unary(UnaryOp::Neg, Box::new(inner)),
                        span,
                    });
                }
                ExprKind::Lit(self.lit(&l.lit)?, Some(l.lit.clone()))
            }
            syn::Expr::Paren(p) => return self.expr(&p.expr),
            syn::Expr::Group(g) => return self.expr(&g.expr),
            syn::Expr::Path(p) => {
                if let Some(name) = self.path_ident(p) {
                    match self.lookup(&name.to_string()) {
                        Some(Binding::Local(id, _)) if self.ref_params.contains(&id) => {
                            self.errors.at(
                                p,
                                format!("`{name}` is a `&mut` parameter: read and write the caller's value as `*{name}`"),
                            );
                            return None;
                        }
                        Some(Binding::Local(id, alias)) => {
                            ExprKind::Local(id, alias.unwrap_or(name))
                        }
                        Some(Binding::Index) => ExprKind::KernelIndex(name),
                        Some(Binding::Tiled) => {
                            self.errors.at(p, "use the fields of the tiled index: `t.global`, `t.local`, `t.tile`, `t.tile_origin`, `t.tile_extent` (or pass it to a #[kernel] function: `f(&t)`)");
                            return None;
                        }
                        Some(Binding::View(c)) => ExprKind::Capture(c, name),
                        Some(Binding::TileStatic(_)) => {
                            self.errors
                                .at(p, "a tile_static array is used element by element: `a[i]`");
                            return None;
                        }
                        Some(Binding::Section { .. }) => {
                            self.errors.at(
                                p,
                                "a section made in a kernel is used element by element (`s[i]`) and by `s.extent()`; pass the whole view to #[kernel] functions",
                            );
                            return None;
                        }
                        Some(Binding::Projection { .. }) => {
                            self.errors.at(
                                p,
                                "a projection made in a kernel is used element by element (`row[j]`) and by `row.extent()[k]`; pass the whole view to #[kernel] functions",
                            );
                            return None;
                        }
                        Some(Binding::Reshaped { .. }) => {
                            self.errors.at(
                                p,
                                "a view made with `view_as` in a kernel is used element by element (`m[i]`) and by `m.extent()`; pass the whole view to #[kernel] functions",
                            );
                            return None;
                        }
                        Some(Binding::Reinterpreted { .. }) => {
                            self.errors.at(
                                p,
                                "a view made with `reinterpret_as` in a kernel is used element by element (`w[k]`); pass the whole view to #[kernel] functions",
                            );
                            return None;
                        }
                        Some(Binding::TileScalar(id)) => ExprKind::TileLoad(
                            id,
                            name,
                            vec![zero(span)],
                            Default::default(),
                            Vec::new(),
                        ),
                        // An upper-case name is a constant or a const
                        // parameter, inlined. In a kernel it may also be a
                        // variable: its value is part of the compiled
                        // kernel's cache key, so it is right at every launch.
                        None if is_const_name(&name.to_string()) => {
                            if !self.function && !self.consts.contains(&name) {
                                self.consts.push(name.clone());
                            }
                            ExprKind::Const(p.path.clone())
                        }
                        None => {
                            let c = self.capture(&name)?;
                            ExprKind::Capture(c, name)
                        }
                    }
                } else if p.qself.is_none() {
                    // `i32::MAX`, `module::CONST`: constants.
                    ExprKind::Const(p.path.clone())
                } else {
                    self.errors
                        .at(p, "qualified paths are not allowed in kernels");
                    return None;
                }
            }
            syn::Expr::Binary(b) => match bin_op(&b.op) {
                Some((op, false)) => {
                    let l = self.expr(&b.left);
                    let r = self.expr(&b.right);
                    ExprKind::Binary(op, Box::new(l?), Box::new(r?))
                }
                _ => {
                    self.errors
                        .at(b, "compound assignment is a statement in kernels");
                    return None;
                }
            },
            syn::Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => ExprKind::Unary(UnaryOp::Neg, Box::new(self.expr(&u.expr)?)),
                UnOp::Not(_) => ExprKind::Unary(UnaryOp::Not, Box::new(self.expr(&u.expr)?)),
                // `*a` of a `&mut` parameter: the caller's local.
                UnOp::Deref(_) if let Some((id, name)) = self.ref_param(&u.expr) => {
                    ExprKind::Local(id, name)
                }
                _ => {
                    self.errors.at(u, "only references bound by `let` (`let r = &mut x; *r += 1;`) and `&mut` parameters of #[kernel] functions can be dereferenced in kernels");
                    return None;
                }
            },
            syn::Expr::Cast(c) => {
                let to = match &*c.ty {
                    // Index and `step_by` positions strip their `as usize`
                    // before reaching here (`strip_usize_cast`).
                    syn::Type::Path(p) if p.path.is_ident("usize") => {
                        self.errors.at(
                            &c.ty,
                            "`as usize` is only allowed as a whole index (`a[i as usize]`) or `step_by(n as usize)`: kernels have no usize (WGSL integers are 32-bit); cast to u32 or i32",
                        );
                        return None;
                    }
                    syn::Type::Path(p) => match p
                        .path
                        .get_ident()
                        .and_then(|i| Scalar::from_name(&i.to_string()))
                    {
                        Some(s) => s,
                        None => {
                            self.errors.at(&c.ty, "kernels can cast to i32, u32, f32 and f64 only: WGSL has no 8-, 16- or 64-bit integers");
                            return None;
                        }
                    },
                    other => {
                        self.errors.at(other, "kernels can cast to i32, u32, f32 and f64 only: WGSL has no 8-, 16- or 64-bit integers");
                        return None;
                    }
                };
                ExprKind::Cast(Box::new(self.expr(&c.expr)?), to)
            }
            // A component of a computed value (`t.global[0]`,
            // `a.extent()[1]`, `(idx + off)[0]`, `e.post_inc()[0]`).
            syn::Expr::Index(ix)
                if view_method(strip_parens(&ix.expr)).is_none()
                    && (self.tiled_field(&ix.expr).is_some()
                        || matches!(
                            strip_parens(&ix.expr),
                            syn::Expr::MethodCall(_)
                                | syn::Expr::Binary(_)
                                | syn::Expr::Unary(_)
                                | syn::Expr::Call(_)
                                | syn::Expr::Block(_)
                                | syn::Expr::Field(_)
                        )) =>
            {
                if let Some(kind) = self.projection_extent(ix)? {
                    return Some(Expr { kind, span });
                }
                let base = self.expr(&ix.expr)?;
                let i = self.expr(strip_usize_cast(&ix.index))?;
                ExprKind::Element(Box::new(base), Box::new(i))
            }
            syn::Expr::Index(_) => {
                let (base, mut indices) = self.index_chain(e)?;
                match base {
                    IndexBase::Capture(c, name)
                        if let Some((_, witness)) = self.reinterpreted.take() =>
                    {
                        // `w[k]` of a reinterpreted view: the value made of
                        // the words at position `k`.
                        ExprKind::Call(
                            "ReinterpretLoad",
                            Ident::new("reinterpret_load", span),
                            vec![
                                Expr {
                                    kind: ExprKind::Capture(c, name),
                                    span,
                                },
                                indices.pop()?,
                                witness,
                            ],
                        )
                    }
                    IndexBase::Capture(c, name) => ExprKind::Load(c, name, indices),
                    IndexBase::TileStatic(id, name) => {
                        // Fewer indices than dimensions: a row (an array).
                        let rest = self
                            .tile_dims
                            .get(&id)
                            .map(|d| d.iter().skip(indices.len()).cloned().collect())
                            .unwrap_or_default();
                        ExprKind::TileLoad(id, name, indices, Default::default(), rest)
                    }
                    IndexBase::Local(..) | IndexBase::Const(_) => {
                        let kind = match base {
                            IndexBase::Local(id, name) => ExprKind::Local(id, name),
                            IndexBase::Const(path) => ExprKind::Const(path),
                            _ => unreachable!("a local or a constant"),
                        };
                        let mut acc = Expr { kind, span };
                        for i in indices.drain(..) {
                            acc = Expr {
                                kind: ExprKind::Element(Box::new(acc), Box::new(i)),
                                span,
                            };
                        }
                        return Some(acc);
                    }
                    IndexBase::KernelIndex(name) => {
                        if indices.len() != 1 {
                            self.errors
                                .at(e, "the kernel index has one level of components: `idx[0]`");
                            return None;
                        }
                        ExprKind::Element(
                            Box::new(Expr {
                                kind: ExprKind::KernelIndex(name),
                                span,
                            }),
                            Box::new(indices.pop()?),
                        )
                    }
                }
            }
            syn::Expr::Array(a) => {
                ExprKind::Array(a.elems.iter().filter_map(|x| self.expr(x)).collect())
            }
            syn::Expr::Repeat(r) => {
                ExprKind::Repeat(Box::new(self.expr(&r.expr)?), (*r.len).clone())
            }
            // `a.section(o, e).extent()`: the extent of a view made where
            // it is used.
            syn::Expr::MethodCall(m)
                if m.method == "extent"
                    && m.args.is_empty()
                    && view_method(strip_parens(&m.receiver)).is_some() =>
            {
                match self.view_of(&m.receiver)? {
                    (
                        _,
                        _,
                        Some(Binding::Section { extent, .. } | Binding::Reshaped { extent, .. }),
                    ) => extent.kind,
                    // A section of a projection: its sizes past the fixed
                    // components.
                    (
                        _,
                        _,
                        Some(Binding::Projection {
                            prefix,
                            section: Some((_, extent)),
                            ..
                        }),
                    ) if matches!(&extent.kind, ExprKind::MakeIndex(parts, _) if parts.len() > prefix.len()) =>
                    {
                        let ExprKind::MakeIndex(parts, _) = extent.kind else {
                            unreachable!("matched above")
                        };
                        ExprKind::MakeIndex(parts[prefix.len()..].to_vec(), true)
                    }
                    _ => {
                        self.errors.at(
                            e,
                            "the extent of a projection or a reinterpreted view made in a kernel is read by component, from a `let` of it: `let row = a.project(i);`, then `row.extent()[0]`",
                        );
                        return None;
                    }
                }
            }
            syn::Expr::MethodCall(m) if m.method == "extent" && m.args.is_empty() => {
                let receiver = match strip_parens(&m.receiver) {
                    syn::Expr::Path(p) => self.path_ident(p),
                    _ => None,
                };
                match receiver {
                    Some(name) if self.lookup(&name.to_string()).is_none() => {
                        ExprKind::Extent(self.capture(&name)?, name)
                    }
                    Some(name) if let Some(Binding::View(c)) = self.lookup(&name.to_string()) => {
                        ExprKind::Extent(c, name)
                    }
                    Some(name)
                        if let Some(Binding::Section { extent, .. }) =
                            self.lookup(&name.to_string()) =>
                    {
                        extent.kind
                    }
                    Some(name)
                        if let Some(Binding::Reshaped { extent, .. }) =
                            self.lookup(&name.to_string()) =>
                    {
                        extent.kind
                    }
                    Some(name)
                        if let Some(Binding::Projection { .. }) =
                            self.lookup(&name.to_string()) =>
                    {
                        self.errors.at(
                            e,
                            format!("a projection's extent is read by component in kernels: `{name}.extent()[0]`"),
                        );
                        return None;
                    }
                    _ => {
                        self.errors.at(
                            &m.receiver,
                            "`.extent()` in a kernel reads a captured view's or array's extent: call it on a captured container by name (`a.extent()`)",
                        );
                        return None;
                    }
                }
            }
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "inc" | "dec" | "post_inc" | "post_dec"
                ) && m.args.is_empty() =>
            {
                return self.step(m);
            }
            // Short-vector swizzles (C++ AMP's `v.xy`, `v.zyx`).
            syn::Expr::MethodCall(m)
                if m.args.is_empty()
                    && m.turbofish.is_none()
                    && is_swizzle(&m.method.to_string()) =>
            {
                ExprKind::Swizzle(Box::new(self.expr(&m.receiver)?), m.method.clone())
            }
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if name.starts_with("wait")
                    && matches!(strip_parens(&m.receiver), syn::Expr::Field(f) if matches!(&f.member, syn::Member::Named(n) if n == "barrier"))
                {
                    let msg = if self.tiled {
                        "a barrier is a statement of its own: `t.barrier.wait();`"
                    } else {
                        "barriers exist only in tiled kernels: launch over `extent.tile::<..>()` with a `|t: TiledIndex<N>|` kernel"
                    };
                    self.errors.at(m, msg);
                    return None;
                }
                const VIEW_METHODS: &[&str] = &[
                    "section",
                    "section_from",
                    "project",
                    "view_as",
                    "reinterpret_as",
                    "get",
                    "set",
                    "synchronize",
                    "synchronize_async",
                    "synchronize_to",
                    "refresh",
                    "discard_data",
                    "to_vec",
                    "view",
                    "copy_to",
                ];
                let Some(b) = builtin(&name) else {
                    let message = if VIEW_METHODS.contains(&name.as_str()) {
                        format!(
                            "`{name}` of a view or array is host code, not available inside kernels: index the captured view (`a[idx]`, `a[[i, j]]`) and read `a.extent()`; a section is made with its own `let` (`let s = a.section(origin, extent);`); make other views on the host and capture them"
                        )
                    } else {
                        format!(
                            "`{name}` is not available in kernels; kernels may call the math functions WGSL provides (sqrt, abs, min, max, clamp, floor, exp, sin, mul_add, ...)"
                        )
                    };
                    self.errors.at(&m.method, message);
                    return None;
                };
                if m.turbofish.is_some() {
                    self.errors.at(
                        &m.turbofish,
                        "kernel math functions take no generic arguments",
                    );
                }
                let mut args = vec![self.expr(&m.receiver)?];
                for a in &m.args {
                    // `extent.contains(&idx)` takes its index by reference,
                    // as on the host.
                    let a = match strip_parens(a) {
                        syn::Expr::Reference(r) if name == "contains" && r.mutability.is_none() => {
                            &*r.expr
                        }
                        other => other,
                    };
                    args.push(self.expr(a)?);
                }
                ExprKind::Call(b, m.method.clone(), args)
            }
            syn::Expr::Call(c) => {
                if let syn::Expr::Path(p) = &*c.func {
                    let segs: Vec<String> = p
                        .path
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect();
                    if segs.len() >= 2
                        && (segs[segs.len() - 2] == "Index" || segs[segs.len() - 2] == "Extent")
                        && segs[segs.len() - 1] == "new"
                        && c.args.len() == 1
                        && let syn::Expr::Array(a) = strip_parens(&c.args[0])
                    {
                        let parts: Vec<Expr> =
                            a.elems.iter().filter_map(|x| self.expr(x)).collect();
                        if parts.len() != a.elems.len() {
                            return None;
                        }
                        return Some(Expr {
                            kind: ExprKind::MakeIndex(parts, segs[segs.len() - 2] == "Extent"),
                            span,
                        });
                    }
                    if segs.len() >= 2
                        && let Some((n, sc)) = vector_type(&segs[segs.len() - 2])
                        && (segs[segs.len() - 1] == "new" || segs[segs.len() - 1] == "splat")
                    {
                        let args: Vec<Expr> = c.args.iter().filter_map(|a| self.expr(a)).collect();
                        let want = if segs[segs.len() - 1] == "new" {
                            n as usize
                        } else {
                            1
                        };
                        if args.len() != c.args.len() || args.len() != want {
                            return None;
                        }
                        return Some(Expr {
                            kind: ExprKind::MakeVector(n, sc, p.clone(), args),
                            span,
                        });
                    }
                    const HEAP: &[&str] = &[
                        "Vec", "Box", "String", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap",
                        "VecDeque",
                    ];
                    if segs.iter().any(|s| HEAP.contains(&s.as_str())) {
                        self.errors.at(
                            &c.func,
                            "heap allocation is not possible in kernels: accelerators have no heap (C++ AMP restrict(amp)); use a fixed-size array local `[T; N]`",
                        );
                        return None;
                    }
                    if segs.len() == 2
                        && segs[0] == "f32"
                        && segs[1] == "from_bits"
                        && c.args.len() == 1
                    {
                        let arg = self.expr(&c.args[0])?;
                        let method = p.path.segments[1].ident.clone();
                        return Some(Expr {
                            kind: ExprKind::Call("FromBits", method, vec![arg]),
                            span,
                        });
                    }
                    // `f16::from_f32(x)` / `from_f64` (`half::f16`, the
                    // `half` feature of amp-core).
                    if segs.len() >= 2
                        && segs[segs.len() - 2] == "f16"
                        && (segs[segs.len() - 1] == "from_f32"
                            || segs[segs.len() - 1] == "from_f64")
                        && c.args.len() == 1
                    {
                        let from = &segs[segs.len() - 1];
                        // (typeck gives the argument the parameter's type,
                        // as rustc does.)
                        let arg = self.expr(&c.args[0])?;
                        let method = p.path.segments.last()?.ident.clone();
                        let b = if from == "from_f32" {
                            "HalfFromF32"
                        } else {
                            "HalfFromF64"
                        };
                        return Some(Expr {
                            kind: ExprKind::Call(b, method, vec![arg]),
                            span,
                        });
                    }
                    if let Some(name) = segs.last()
                        && let Some((op, arity)) = atomic_function(name)
                    {
                        return self.atomic(c, p, name, op, arity);
                    }
                    if let Some(name) = segs.last()
                        && let Some((b, arity)) = subgroup_function(name)
                    {
                        let args: Vec<Expr> = c.args.iter().filter_map(|a| self.expr(a)).collect();
                        if args.len() != c.args.len() {
                            return None;
                        }
                        if args.len() != arity {
                            self.errors
                                .at(c, format!("`{name}` takes {arity} argument(s)"));
                            return None;
                        }
                        let method = p.path.segments.last()?.ident.clone();
                        return Some(Expr {
                            kind: ExprKind::Call(b, method, args),
                            span,
                        });
                    }
                    if p.qself.is_none() {
                        // A `#[kernel]` function (anything else fails to
                        // compile: its IR builder does not exist).
                        let args: Vec<Expr> =
                            c.args.iter().filter_map(|a| self.call_arg(a)).collect();
                        if args.len() != c.args.len() {
                            return None;
                        }
                        return Some(Expr {
                            kind: ExprKind::CallFn(p.clone(), args),
                            span,
                        });
                    }
                }
                self.errors.at(
                    &c.func,
                    "kernels can call only #[kernel] functions (by name) and the math methods such as `x.sqrt()`: accelerators have no function pointers (C++ AMP restrict(amp))",
                );
                return None;
            }
            syn::Expr::If(i) => {
                let cond = self.expr(&i.cond);
                let then = self.block(&i.then_branch);
                let Some((_, els)) = &i.else_branch else {
                    self.errors.at(i, "an `if` used as a value needs an `else`");
                    return None;
                };
                let els = match &**els {
                    syn::Expr::Block(b) => self.block(&b.block),
                    other => {
                        let e = self.expr(other);
                        Block {
                            stmts: Vec::new(),
                            tail: e.map(Box::new),
                        }
                    }
                };
                ExprKind::If(Box::new(cond?), then, els)
            }
            syn::Expr::Block(b) if b.label.is_none() => ExprKind::Block(self.block(&b.block)),
            syn::Expr::Loop(_) | syn::Expr::While(_) | syn::Expr::ForLoop(_) => {
                let keyword = match e {
                    syn::Expr::Loop(l) => l.loop_token.span,
                    syn::Expr::While(w) => w.while_token.span,
                    syn::Expr::ForLoop(f) => f.for_token.span,
                    _ => span,
                };
                self.errors.push(syn::Error::new(keyword, "a loop cannot be used as a value in kernels (`break` takes no value there); assign a `let mut` declared before the loop"));
                return None;
            }
            syn::Expr::Reference(r) => {
                self.errors.at(r, "a reference in a kernel is bound by `let` (`let r = &mut a[i];`, `let r = &x;`) or passed as a function's argument (`f(&mut x)`, `atomic_fetch_add(&a[i], 1)`); a reference cannot be a value of other expressions");
                return None;
            }
            syn::Expr::Closure(c) => {
                self.errors.at(c, "closures are not allowed in kernels: accelerators have no function pointers (C++ AMP restrict(amp))");
                return None;
            }
            // A `&mut` parameter returned (marked by `refs::mark_ref_results`).
            syn::Expr::Macro(m) if m.mac.path.is_ident("__amp_ref_result") => {
                let args = m
                    .mac
                    .parse_body_with(Punctuated::<syn::Expr, Token![,]>::parse_terminated)
                    .ok()?;
                match (args.first(), args.get(1)) {
                    (
                        Some(syn::Expr::Path(p)),
                        Some(syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(pos),
                            ..
                        })),
                    ) => ExprKind::RefResult(pos.base10_parse().ok()?, self.path_ident(p)?),
                    _ => return None,
                }
            }
            syn::Expr::Macro(m) => {
                self.errors.at(&m.mac, "macros are not allowed in kernels: accelerators cannot print, allocate or panic (C++ AMP restrict(amp))");
                return None;
            }
            syn::Expr::Tuple(t) => {
                if t.elems.is_empty() {
                    self.errors.at(t, "`()` has no value in kernels");
                    return None;
                }
                let items: Vec<Expr> = t.elems.iter().filter_map(|x| self.expr(x)).collect();
                if items.len() != t.elems.len() {
                    return None;
                }
                ExprKind::MakeTuple(items)
            }
            syn::Expr::Struct(st) => {
                if let Some(rest) = &st.rest {
                    self.errors.at(
                        rest,
                        "struct update syntax (`..base`) is not supported in kernels",
                    );
                }
                let mut fields = Vec::new();
                for f in &st.fields {
                    let syn::Member::Named(name) = &f.member else {
                        self.errors
                            .at(&f.member, "kernel struct literals name their fields");
                        return None;
                    };
                    fields.push((name.clone(), self.expr(&f.expr)?));
                }
                ExprKind::MakeStruct(st.path.clone(), fields)
            }
            syn::Expr::Match(m) => return self.match_expr(m, false),
            syn::Expr::Field(f) if self.tiled_field(e).is_some() => {
                let (field, name) = self.tiled_field(e)?;
                ExprKind::Tiled(field, name)
            }
            syn::Expr::Field(f) if self.is_tiled_param(&f.base) => {
                self.errors.at(f, "the tiled index has the fields `global`, `local`, `tile`, `tile_origin`, `tile_extent`, and `barrier` (for `t.barrier.wait()` statements)");
                return None;
            }
            syn::Expr::Field(f) => ExprKind::Field(Box::new(self.expr(&f.base)?), f.member.clone()),
            syn::Expr::Range(r) => {
                self.errors.at(
                    r,
                    "ranges are only allowed as the iterator of a kernel `for` loop",
                );
                return None;
            }
            syn::Expr::Unsafe(u) => {
                self.errors.at(u.unsafe_token, "`unsafe` is not allowed in kernels: there are no raw pointers, FFI or unchecked operations on the accelerator");
                return None;
            }
            syn::Expr::Async(_)
            | syn::Expr::Await(_)
            | syn::Expr::Yield(_)
            | syn::Expr::TryBlock(_)
            | syn::Expr::Try(_) => {
                self.errors.at(e, "async, await, `?` and try blocks are not allowed in kernels: a work item runs to completion and cannot suspend or propagate errors");
                return None;
            }
            syn::Expr::Let(l) => {
                self.errors.at(l, "`let` conditions (`if let`, `while let`) are not allowed in kernels: kernel values have no refutable patterns (no enums such as Option or Result); use a plain `if`");
                return None;
            }
            other => {
                self.errors
                    .at(other, "this expression is not allowed in kernels");
                return None;
            }
        };
        Some(Expr { kind, span })
    }

    /// `match` on an integer (or `bool`), lowered to `let m = scrutinee;`
    /// and an `if`/`else` chain (rustc checks exhaustiveness, so the last
    /// arm is the final `else`). As a statement (`as_stmt`) the arms are
    /// statements; as an expression they are values.
    fn match_expr(&mut self, m: &syn::ExprMatch, as_stmt: bool) -> Option<Expr> {
        let span = m.span();
        let scrutinee = self.expr(&m.expr)?;
        self.scopes.push(Vec::new());
        let tmp = Ident::new(&format!("__amp_match{}", self.next_local), span);
        let local = self.declare(&tmp);
        let let_stmt = Stmt {
            kind: StmtKind::Let {
                local,
                name: tmp.clone(),
                mutable: false,
                ty: None,
                native_ty: None,
                init: Some(scrutinee),
            },
            span,
        };
        let value = Expr {
            kind: ExprKind::Local(local, tmp.clone()),
            span,
        };
        let mut arms = Vec::new();
        for arm in &m.arms {
            self.scopes.push(Vec::new());
            let mut binds = Vec::new();
            let cond = self.pattern(&arm.pat, &value, &mut binds);
            let guard = arm.guard.as_ref().and_then(|(_, g)| self.expr(g));
            let body = match (&*arm.body, as_stmt) {
                (syn::Expr::Block(b), _) if b.label.is_none() => self.block(&b.block),
                (other, true) => Block {
                    stmts: self.stmt_expr(other).into_iter().collect(),
                    tail: None,
                },
                (other, false) => Block {
                    stmts: Vec::new(),
                    tail: self.expr(other).map(Box::new),
                },
            };
            self.scopes.pop();
            let cond = match (cond, guard) {
                (Some(c), Some(g)) => Some(Expr {
                    kind: ExprKind::Binary(BinaryOp::And, Box::new(c), Box::new(g)),
                    span,
                }),
                (None, Some(g)) => Some(g),
                (c, None) => c,
            };
            let mut body = body;
            body.stmts.splice(0..0, binds);
            arms.push((cond, body));
        }
        self.scopes.pop();
        // Build the chain from the last arm backwards.
        let mut chain: Option<Block> = None;
        for (i, (cond, body)) in arms.into_iter().enumerate().rev() {
            chain = Some(match (chain, cond) {
                (None, _) => body, // the last arm: rustc proved the match exhaustive
                (Some(rest), Some(cond)) if as_stmt => Block {
                    stmts: vec![Stmt {
                        kind: StmtKind::If(cond, body, Some(rest)),
                        span,
                    }],
                    tail: None,
                },
                (Some(rest), Some(cond)) => Block {
                    stmts: Vec::new(),
                    tail: Some(Box::new(Expr {
                        kind: ExprKind::If(Box::new(cond), body, rest),
                        span,
                    })),
                },
                (Some(_), None) => {
                    let _ = i;
                    self.errors.at(
                        m,
                        "a kernel `match` arm that matches everything must be the last arm",
                    );
                    body
                }
            });
        }
        let mut block = chain.unwrap_or_default();
        // rustc checks the exhaustiveness of the original patterns (guarded
        // arms do not count, as in Rust); the lowered `if` chain would hide
        // a missing case.
        let pats: Vec<&syn::Pat> = m
            .arms
            .iter()
            .filter(|a| a.guard.is_none())
            .map(|a| &a.pat)
            .collect();
        let check = Stmt {
            kind: StmtKind::NativeCheck(quote::quote_spanned! {span=>
                #[allow(unreachable_patterns, unused_variables, clippy::all)]
                match #tmp { #(#pats => {})* }
            }),
            span,
        };
        block.stmts.insert(0, check);
        block.stmts.insert(0, let_stmt);
        Some(Expr {
            kind: ExprKind::Block(block),
            span,
        })
    }

    /// The condition under which `pat` matches `value` (`None`: always),
    /// pushing `let` statements for the names it binds.
    fn pattern(&mut self, pat: &syn::Pat, value: &Expr, binds: &mut Vec<Stmt>) -> Option<Expr> {
        let span = pat.span();
        let eq = |this: &mut Self, e: &syn::Expr| -> Option<Expr> {
            let rhs = this.expr(e)?;
            Some(Expr {
                kind: ExprKind::Binary(BinaryOp::Eq, Box::new(value.clone()), Box::new(rhs)),
                span,
            })
        };
        match pat {
            syn::Pat::Wild(_) => None,
            syn::Pat::Lit(l) => {
                // `-5` in a pattern is one literal token; kernels see `-(5)`.
                let negative = match &l.lit {
                    syn::Lit::Int(i) => i.base10_digits().strip_prefix('-').map(|d| {
                        syn::Lit::Int(syn::LitInt::new(&format!("{d}{}", i.suffix()), i.span()))
                    }),
                    syn::Lit::Float(f) => f.base10_digits().strip_prefix('-').map(|d| {
                        syn::Lit::Float(syn::LitFloat::new(&format!("{d}{}", f.suffix()), f.span()))
                    }),
                    _ => None,
                };
                match negative {
                    Some(lit) => {
                        let e: syn::Expr = syn::parse_quote_spanned!(span=> -#lit);
                        eq(self, &e)
                    }
                    None => eq(self, &syn::Expr::Lit(l.clone())),
                }
            }
            syn::Pat::Path(p) => eq(self, &syn::Expr::Path(p.clone())),
            syn::Pat::Paren(p) => self.pattern(&p.pat, value, binds),
            syn::Pat::Or(o) => {
                let mut acc: Option<Expr> = None;
                for case in &o.cases {
                    let c = self.pattern(case, value, binds)?;
                    acc = Some(match acc {
                        None => c,
                        Some(a) => Expr {
                            kind: ExprKind::Binary(BinaryOp::Or, Box::new(a), Box::new(c)),
                            span,
                        },
                    });
                }
                acc
            }
            syn::Pat::Range(r) => {
                let lo = r.start.as_ref().and_then(|s| self.expr(s)).map(|lo| Expr {
                    kind: ExprKind::Binary(BinaryOp::Ge, Box::new(value.clone()), Box::new(lo)),
                    span,
                });
                let op = match r.limits {
                    syn::RangeLimits::Closed(_) => BinaryOp::Le,
                    syn::RangeLimits::HalfOpen(_) => BinaryOp::Lt,
                };
                let hi = r.end.as_ref().and_then(|e| self.expr(e)).map(|hi| Expr {
                    kind: ExprKind::Binary(op, Box::new(value.clone()), Box::new(hi)),
                    span,
                });
                match (lo, hi) {
                    (Some(a), Some(b)) => Some(Expr {
                        kind: ExprKind::Binary(BinaryOp::And, Box::new(a), Box::new(b)),
                        span,
                    }),
                    (a, b) => a.or(b),
                }
            }
            syn::Pat::Ident(p)
                if p.by_ref.is_none() && p.subpat.is_none() && p.mutability.is_none() =>
            {
                if is_const_name(&p.ident.to_string()) {
                    // `LIMIT =>` compares with the constant, as in Rust.
                    let e: syn::Expr = syn::Expr::Path(syn::ExprPath {
                        attrs: Vec::new(),
                        qself: None,
                        path: p.ident.clone().into(),
                    });
                    return eq(self, &e);
                }
                // The name is the scrutinee under another name.
                let _ = &binds;
                if let ExprKind::Local(id, tmp) = &value.kind {
                    self.scopes
                        .last_mut()
                        .expect("a scope")
                        .push((p.ident.to_string(), Binding::Local(*id, Some(tmp.clone()))));
                }
                None
            }
            other => {
                self.errors.at(
                    other,
                    "kernel `match` patterns are integer or bool literals, constants, ranges, `|`, a name or `_`",
                );
                // Not "always matches": that would report a catch-all arm
                // that is not last.
                Some(Expr {
                    kind: ExprKind::Lit(Lit::Bool(false), None),
                    span,
                })
            }
        }
    }

    fn lit(&mut self, l: &syn::Lit) -> Option<Lit> {
        match l {
            syn::Lit::Int(i) => {
                let suffix = scalar_suffix(i.suffix(), i, self.errors);
                if suffix.is_some_and(|s| matches!(s, Scalar::F32 | Scalar::F64)) {
                    let v = i.base10_parse::<f64>().ok()?;
                    return Some(Lit::Float(v, suffix));
                }
                match i.base10_parse::<u128>() {
                    Ok(v) => Some(Lit::Int(v, suffix)),
                    Err(e) => {
                        self.errors.push(e);
                        None
                    }
                }
            }
            syn::Lit::Float(f) => {
                let suffix = scalar_suffix(f.suffix(), f, self.errors);
                match f.base10_parse::<f64>() {
                    Ok(v) => Some(Lit::Float(v, suffix)),
                    Err(e) => {
                        self.errors.push(e);
                        None
                    }
                }
            }
            syn::Lit::Bool(b) => Some(Lit::Bool(b.value)),
            other => {
                self.errors.at(other, "strings, characters and byte literals are not allowed in kernels: accelerators have no string or character types (WGSL has none)");
                None
            }
        }
    }
}

enum IndexBase {
    Capture(u32, Ident),
    /// A constant array (`GAUSS[i][j]`), inlined.
    Const(syn::Path),
    Local(u32, Ident),
    KernelIndex(Ident),
    TileStatic(u32, Ident),
}

/// Whether `name` is a swizzle: 2 to 4 of `x`, `y`, `z`, `w`, each once.
fn is_swizzle(name: &str) -> bool {
    (2..=4).contains(&name.len())
        && name.chars().all(|c| "xyzw".contains(c))
        && name
            .chars()
            .enumerate()
            .all(|(i, c)| !name[..i].contains(c))
}

fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}

/// Whether `e` is a float literal such as `1.0`, `-0.5` or `2f32`.
fn is_float_literal(e: &syn::Expr) -> bool {
    match strip_parens(e) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(_),
            ..
        }) => true,
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => matches!(i.suffix(), "f32" | "f64"),
        syn::Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => is_float_literal(&u.expr),
        _ => false,
    }
}

/// `x as usize` in an index or `step_by` position is the Rust spelling of
/// an index; the kernel uses `x` itself.
fn strip_usize_cast(e: &syn::Expr) -> &syn::Expr {
    match strip_parens(e) {
        syn::Expr::Cast(c) if matches!(&*c.ty, syn::Type::Path(p) if p.path.is_ident("usize")) => {
            &c.expr
        }
        other => other,
    }
}

/// Whether a block-final expression without `;` is a statement (its value
/// is `()`).
fn is_statement_like(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::If(i) => i.else_branch.is_none() || block_is_unit(&i.then_branch),
        syn::Expr::While(_) | syn::Expr::ForLoop(_) | syn::Expr::Loop(_) => true,
        syn::Expr::Assign(_)
        | syn::Expr::Return(_)
        | syn::Expr::Break(_)
        | syn::Expr::Continue(_) => true,
        syn::Expr::Binary(b) => matches!(bin_op(&b.op), Some((_, true))),
        syn::Expr::Match(m) => m.arms.iter().all(|a| match &*a.body {
            syn::Expr::Block(b) => block_is_unit(&b.block),
            other => is_statement_like(other),
        }),
        _ => false,
    }
}

fn block_is_unit(b: &syn::Block) -> bool {
    match b.stmts.last() {
        None => true,
        Some(syn::Stmt::Expr(e, None)) => is_statement_like(e),
        Some(_) => true,
    }
}

#[allow(dead_code)]
fn span_of(e: &syn::Expr) -> Span {
    e.span()
}

const BOUNDS: &[&str] = &["Number", "Float", "Integer"];

/// Parses a `#[kernel]` function.
pub(crate) fn parse_function(item: syn::ItemFn, errors: &mut Errors) -> Option<Function> {
    let sig = &item.sig;
    if let Some(a) = &sig.asyncness {
        errors.at(a, "a #[kernel] function cannot be `async`");
    }
    if let Some(u) = &sig.unsafety {
        errors.at(u, "a #[kernel] function cannot be `unsafe`");
    }
    if let Some(v) = &sig.variadic {
        errors.at(v, "a #[kernel] function cannot be variadic");
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi, "a #[kernel] function cannot have an ABI");
    }
    if let Some(w) = &sig.generics.where_clause {
        errors.at(
            w,
            "write the bounds of a #[kernel] function's type parameters inline: `<T: Float>`",
        );
    }
    // A `&mut` result (`-> &'a mut T`): the function tells its caller
    // which `&mut` parameter it is (see `refs::mark_ref_results`).
    let ref_result = match &sig.output {
        syn::ReturnType::Type(_, t) => match &**t {
            syn::Type::Reference(r) if r.mutability.is_some() => Some(r),
            _ => None,
        },
        syn::ReturnType::Default => None,
    };
    let mut type_params = Vec::new();
    let mut bounds = Vec::new();
    for p in &sig.generics.params {
        match p {
            syn::GenericParam::Type(t) => {
                let bound = t.bounds.iter().find_map(|b| match b {
                    syn::TypeParamBound::Trait(tb) => {
                        let last = tb.path.segments.last()?.ident.to_string();
                        BOUNDS.iter().find(|x| **x == last).copied()
                    }
                    _ => None,
                });
                match bound {
                    Some(b) if t.bounds.len() == 1 => bounds.push(b),
                    _ => errors.at(
                        t,
                        "a #[kernel] function's type parameter needs exactly one of the bounds `amp_core::Number`, `amp_core::Float` or `amp_core::Integer`",
                    ),
                }
                type_params.push(t.ident.to_string());
            }
            syn::GenericParam::Const(c) => match &c.ty {
                syn::Type::Path(p)
                    if p.path.is_ident("i32")
                        || p.path.is_ident("u32")
                        || p.path.is_ident("bool") => {}
                other => errors.at(
                    other,
                    "const parameters of #[kernel] functions are i32, u32 or bool",
                ),
            },
            // The lifetime of a `&mut` result (`fn f<'a>(a: &'a mut i32,
            // b: &'a mut i32) -> &'a mut i32`).
            syn::GenericParam::Lifetime(_) if ref_result.is_some() => {}
            syn::GenericParam::Lifetime(l) => {
                errors.at(
                    l,
                    "#[kernel] functions take lifetimes only for a `&mut` result (`fn f<'a>(a: &'a mut i32, b: &'a mut i32) -> &'a mut i32`)",
                );
            }
        }
    }
    let mut resolver = Resolver {
        scopes: vec![Vec::new()],
        captures: Vec::new(),
        consts: Vec::new(),
        next_local: 0,
        errors,
        type_params,
        function: true,
        tiled: false,
        read_only_views: Vec::new(),
        ref_params: Vec::new(),
        tile_dims: Default::default(),
        fresh: 0,
        ref_calls: Vec::new(),
        reinterpreted: None,
    };
    let mut params = Vec::new();
    let mut bindings = Vec::new();
    let mut tiled = None;
    let mut views = 0u32;
    for (position, input) in sig.inputs.iter().enumerate() {
        match input {
            syn::FnArg::Receiver(r) => resolver
                .errors
                .at(r, "#[kernel] functions are free functions: no `self`"),
            syn::FnArg::Typed(pt) => {
                if let Some(binding) = binding_param(&pt.ty, &resolver.type_params, resolver.errors)
                {
                    let name = match &*pt.pat {
                        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                            p.ident.clone()
                        }
                        other => {
                            resolver
                                .errors
                                .at(other, "#[kernel] function parameters are plain names");
                            continue;
                        }
                    };
                    let Some(binding) = binding else {
                        continue;
                    };
                    let bind = match &binding {
                        FnBinding::View { writable, .. } => {
                            views += 1;
                            let c = VIEW_PARAM_BASE + views - 1;
                            if !writable {
                                resolver.read_only_views.push(c);
                            }
                            Binding::View(c)
                        }
                        FnBinding::Tiled(_) => {
                            if tiled.is_some() {
                                resolver.errors.at(
                                    &pt.ty,
                                    "a #[kernel] function takes at most one tiled index",
                                );
                            }
                            tiled = Some(name.clone());
                            resolver.tiled = true;
                            Binding::Tiled
                        }
                    };
                    resolver.scopes[0].push((name.to_string(), bind));
                    bindings.push((position, binding));
                    continue;
                }
                let ty = match &*pt.ty {
                    // `&mut T`: the caller's local, through a pointer (C++
                    // AMP's `T&` parameters).
                    syn::Type::Reference(r) if r.mutability.is_some() => {
                        if let Some(l) = &r.lifetime
                            && ref_result.is_none()
                        {
                            resolver
                                .errors
                                .at(l, "#[kernel] functions take lifetimes only for a `&mut` result: write `&mut T`");
                        }
                        ty_of(&r.elem, &resolver.type_params, resolver.errors)
                            .map(|t| Ty::Ref(Box::new(t)))
                    }
                    _ => ty_of(&pt.ty, &resolver.type_params, resolver.errors),
                };
                let name = match &*pt.pat {
                    syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                        Some(p.ident.clone())
                    }
                    other => {
                        resolver
                            .errors
                            .at(other, "#[kernel] function parameters are plain names");
                        None
                    }
                };
                if let (Some(ty), Some(name)) = (ty, name) {
                    let local = resolver.declare(&name);
                    if let Ty::Ref(_) = ty {
                        resolver.ref_params.push(local);
                    }
                    params.push((local, name, ty));
                }
            }
        }
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => None,
        // The GPU function returns the position of the parameter.
        syn::ReturnType::Type(..) if ref_result.is_some() => Some(Ty::Scalar(Scalar::U32)),
        syn::ReturnType::Type(_, t) => ty_of(t, &resolver.type_params, resolver.errors),
    };
    let body = match ref_result {
        Some(r) => {
            if let syn::Type::Reference(inner) = &*r.elem {
                resolver.errors.at(
                    inner,
                    "a `&mut` result refers to a value, not to another reference",
                );
            }
            // The `&mut` parameters and their positions.
            let refs: Vec<(String, u32)> = sig
                .inputs
                .iter()
                .enumerate()
                .filter_map(|(k, a)| match a {
                    syn::FnArg::Typed(pt) => match (&*pt.pat, &*pt.ty) {
                        (syn::Pat::Ident(p), syn::Type::Reference(r)) if r.mutability.is_some() => {
                            Some((p.ident.to_string(), k as u32))
                        }
                        _ => None,
                    },
                    syn::FnArg::Receiver(_) => None,
                })
                .collect();
            if refs.is_empty() {
                resolver.errors.at(r, "a #[kernel] function with a `&mut` result takes `&mut` parameters: the result is one of them");
            }
            let mut block = (*item.block).clone();
            let mut errs = Vec::new();
            refs::mark_ref_results(&mut block, &refs, &mut errs);
            for e in errs {
                resolver.errors.push(e);
            }
            resolver.block(&block)
        }
        None => resolver.block(&item.block),
    };
    let _ = bounds.len();
    Some(Function {
        type_params: bounds,
        params,
        bindings,
        tiled,
        ret,
        body,
        item,
    })
}

/// Whether a `#[kernel]` function parameter of type `ty` binds a captured
/// container or the tiled index: `None` for a value parameter; `Some(None)`
/// for a binding parameter written wrongly (reported).
fn binding_param(
    ty: &syn::Type,
    type_params: &[String],
    errors: &mut Errors,
) -> Option<Option<FnBinding>> {
    let (reference, path) = match ty {
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Path(p) if p.qself.is_none() => (Some(r), p),
            _ => return None,
        },
        syn::Type::Path(p) if p.qself.is_none() => (None, p),
        _ => return None,
    };
    let last = path.path.segments.last()?;
    let kind = last.ident.to_string();
    if !matches!(kind.as_str(), "ArrayView" | "Array" | "TiledIndex") {
        return None;
    }
    // Reported, and then taken as if written right (one mistake, one
    // error).
    match reference {
        None => errors.at(
            ty,
            format!("a #[kernel] function takes a {kind} by reference, as C++ AMP's restrict(amp) functions do: `&{kind}<..>`"),
        ),
        Some(r) => {
            if let Some(m) = &r.mutability {
                errors.at(
                    m,
                    format!("take the {kind} by shared reference (`&{kind}<..>`): kernels write through a view's elements, not the view"),
                );
            }
        }
    }
    let args: Vec<&syn::GenericArgument> = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
            .collect(),
        _ => Vec::new(),
    };
    let rank_of = |a: Option<&&syn::GenericArgument>, errors: &mut Errors| -> Option<u32> {
        let n = match a {
            Some(syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }))) => i.base10_parse::<u32>().ok(),
            _ => None,
        };
        if n.is_none() {
            errors.at(
                ty,
                format!("write the {kind}'s rank as a literal: `{kind}<.., 2>`"),
            );
        }
        n
    };
    if kind == "TiledIndex" {
        let n = rank_of(args.first(), errors)?;
        return Some(Some(FnBinding::Tiled(n)));
    }
    let Some(syn::GenericArgument::Type(elem)) = args.first() else {
        errors.at(
            ty,
            format!("write the {kind}'s element type: `&{kind}<'_, f32, 1>`"),
        );
        return Some(None);
    };
    let Some(elem_ty) = ty_of(elem, type_params, errors) else {
        return Some(None);
    };
    let Some(rank) = rank_of(args.get(1), errors) else {
        return Some(None);
    };
    let writable = match (kind.as_str(), args.get(2)) {
        ("Array", _) | (_, None) => true,
        (_, Some(syn::GenericArgument::Type(syn::Type::Path(a))))
            if a.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "ReadOnly") =>
        {
            false
        }
        (_, Some(syn::GenericArgument::Type(syn::Type::Path(a))))
            if a.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "ReadWrite") =>
        {
            true
        }
        (_, Some(other)) => {
            errors.at(other, "a view's access is `ReadOnly` or `ReadWrite`");
            return Some(None);
        }
    };
    Some(Some(FnBinding::View {
        elem: elem.clone(),
        ty: elem_ty,
        rank,
        writable,
    }))
}

/// The size and scalar of a short vector type name (`Float4`).
fn vector_type(name: &str) -> Option<(u8, Scalar)> {
    let (scalar, n) = name.split_at(name.len().checked_sub(1)?);
    let n: u8 = n.parse().ok().filter(|n| (2..=4).contains(n))?;
    let s = match scalar {
        "Int" => Scalar::I32,
        "UInt" => Scalar::U32,
        "Float" => Scalar::F32,
        "Double" => Scalar::F64,
        _ => return None,
    };
    Some((n, s))
}
