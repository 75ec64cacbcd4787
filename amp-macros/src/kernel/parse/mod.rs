//! Parse stage: the macro input and the kernel body (syn) into the kernel
//! AST, resolving every name. Anything outside the kernel subset becomes a
//! spanned error saying what is not allowed and why; errors accumulate so
//! that one run reports every problem.
//!
//! The first of three stages (parse -> check -> expand): [`parse`] (a
//! `parallel_for_each!` invocation) and [`parse_function`] (a `#[kernel]`
//! function) build the AST that `check` validates and `expand` lowers.
//! This module holds the entry points, the accumulated [`Errors`], and the
//! [`Resolver`] with its scopes and name resolution; each construct of the
//! kernel language is resolved in a module of its own, as further
//! `impl Resolver` blocks:
//!
//! - `stmt`: blocks, statements, `let`, loops;
//! - `expr`: the expression dispatcher, names, literals, operators, casts,
//!   `if`, tuple and struct literals;
//! - `call`: method calls and calls (built-in methods, constructors,
//!   subgroup functions, `#[kernel]` function calls);
//! - `atomic`: atomic functions;
//! - `place`: assigned places, indexing and elements;
//! - `view`: views made in the kernel (sections, projections, `view_as`,
//!   `reinterpret_as`) and extents;
//! - `reference`: references (`&`/`&mut`): copy-in/copy-out of elements,
//!   `&mut` arguments and results;
//! - `pattern`: `match` and its patterns;
//! - `tile_static`: `tile_static!`, the tiled index and barriers;
//! - `function`: `#[kernel]` functions (signatures, parameters, arguments);
//! - `ty`: types;
//! - `builtin`: the name tables of built-in methods and functions.

use proc_macro2::{Ident, Span};
use syn::Token;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use super::ast::*;

mod atomic;
mod builtin;
mod call;
mod expr;
mod function;
mod pattern;
mod place;
mod reference;
mod stmt;
mod tile_static;
mod ty;
mod view;

pub(crate) use expr::is_compound_assign;
pub(crate) use function::parse_function;

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
pub(crate) struct Errors {
    all: Option<syn::Error>,
    /// The mistakes reported once however often they recur (see
    /// [`Errors::once`]).
    reported: Vec<Mistake>,
}

/// A mistake that shows in several places of one kernel (its type, its
/// constructors) but is one error.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mistake {
    /// `Option`, `Some(..)`, `None`.
    Option,
    /// `Result`, `Ok(..)`, `Err(..)`.
    Result,
}

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.all {
            Some(all) => all.combine(e),
            None => self.all = Some(e),
        }
    }

    pub(crate) fn at(&mut self, tokens: impl quote::ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Reports `mistake` at its first place only: its later places add no
    /// error.
    pub(crate) fn once(&mut self, mistake: Mistake, tokens: impl quote::ToTokens) {
        if self.reported.contains(&mistake) {
            return;
        }
        self.reported.push(mistake);
        let message = match mistake {
            Mistake::Option => {
                "kernels have no `Option` (accelerators have no enums): return the value with a `bool` that says whether it is valid (`-> (i32, bool)`, with `(a / b, true)` and `(0, false)`), or a sentinel value such as `-1`"
            }
            Mistake::Result => {
                "kernels have no `Result` (accelerators have no enums, and a kernel cannot fail): return the value with a `bool` that says whether it is valid, e.g. `-> (f32, bool)`, or an error code the host checks after the launch"
            }
        };
        self.at(tokens, message);
    }

    pub(crate) fn into_result(self) -> Result<(), syn::Error> {
        match self.all {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The mistake a use of `Option`'s or `Result`'s name (`Some`, `None`,
/// `Option::Some`, `Ok`, ...) is, if it is one.
fn enum_mistake(name: &str) -> Option<Mistake> {
    match name {
        "Option" | "Some" | "None" => Some(Mistake::Option),
        "Result" | "Ok" | "Err" => Some(Mistake::Result),
        _ => None,
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
    /// stands for it ([`VIEW_PARAM_BASE`] + its number); or a copy of a
    /// capture or of a view parameter (`let v2 = v;`, C++ AMP's copy of an
    /// `array_view`), which names the same: its id and the name native
    /// code spells it by.
    View(u32, Ident),
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
    /// A view over a local array made in the kernel (`let v =
    /// ArrayView::new_mut([3, 4], &mut data);`, C++ AMP's `array_view<T,
    /// 2> v(3, 4, data)` over a local array in `restrict(amp)` code): the
    /// array, the view's extent (a hidden local) and whether it may be
    /// written. `v[[i, j]]` is the array's element at the index's
    /// row-major position.
    LocalArray {
        local: u32,
        local_name: Ident,
        extent: Expr,
        writable: bool,
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

/// The capture ids of a `#[kernel]` function's view parameters start here
/// (amp_core's `CaptureId::param`).
pub(crate) const VIEW_PARAM_BASE: u32 = 1 << 30;

/// Resolves a kernel body (or a `#[kernel]` function's) into the AST: the
/// scopes of the names in view, the captures and constants found so far,
/// and the accumulated errors. Its methods are spread over this module's
/// children, one construct each.
struct Resolver<'e> {
    scopes: Vec<Vec<(String, Binding)>>,
    captures: Vec<Ident>,
    /// Captures computed on the host at the launch (see `Kernel::derived`).
    derived: Vec<(Ident, syn::Expr, String)>,
    /// The user types (structs) of the locals whose type the source
    /// shows (`let p: Particle`, `let p = Particle { .. }`, a parameter
    /// `p: &mut Particle`, `self`): the type whose `#[kernel]` methods
    /// `p.step(..)` calls.
    local_types: std::collections::HashMap<u32, syn::Path>,
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
    /// The name of the `#[kernel]` function being parsed (a call of it in
    /// its own body is refused: accelerators have no recursion).
    function_name: Option<Ident>,
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

/// The literal `0i32`: the index of a tile_static scalar's one element.
fn zero(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Lit(Lit::Int(0, Some(Scalar::I32)), None),
        span,
    }
}

/// The name a view is spelled by in native code (`spelled`, the view a
/// copy names), at the span of its use (`used`), where errors point.
fn spelled_at(spelled: &Ident, used: &Ident) -> Ident {
    Ident::new(&spelled.to_string(), used.span())
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
        derived: Vec::new(),
        local_types: Default::default(),
        consts: Vec::new(),
        next_local: 0,
        errors,
        type_params: Vec::new(),
        function: false,
        function_name: None,
        tiled,
        read_only_views: Vec::new(),
        ref_params: Vec::new(),
        tile_dims: Default::default(),
        fresh: 0,
        ref_calls: Vec::new(),
        reinterpreted: None,
    };
    let body = match &*closure.body {
        syn::Expr::Block(b) => resolver.block(&function::unit_body(&b.block)),
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
        derived: resolver.derived,
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

impl Resolver<'_> {
    /// The binding of `name`, innermost scope first.
    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    }

    /// Declares a new local `name` in the innermost scope.
    fn declare(&mut self, name: &Ident) -> u32 {
        let id = self.next_local;
        self.next_local += 1;
        self.scopes
            .last_mut()
            .expect("a scope")
            .push((name.to_string(), Binding::Local(id, None)));
        id
    }

    /// Binds `name` in the innermost scope.
    fn bind(&mut self, name: &Ident, binding: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .push((name.to_string(), binding));
    }

    /// The capture id of `name`, a variable of the enclosing host code
    /// (refused in `#[kernel]` functions).
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

    /// The name of a single-segment path (`x`), if it is one.
    fn path_ident(&self, p: &syn::ExprPath) -> Option<Ident> {
        if p.qself.is_none() && p.path.segments.len() == 1 && p.path.segments[0].arguments.is_none()
        {
            Some(p.path.segments[0].ident.clone())
        } else {
            None
        }
    }
}

/// The user type (a struct, not a scalar, short vector or geometry type)
/// that `ty` (or `&mut ty`, `&ty`) names, if it is one: the type whose
/// `#[kernel]` methods a local of it calls. A type parameter of the
/// function (in `type_params`) is not one: its methods are the built-in
/// ones of its bound.
pub(super) fn user_type(ty: &syn::Type, type_params: &[String]) -> Option<syn::Path> {
    match ty {
        syn::Type::Reference(r) => user_type(&r.elem, type_params),
        syn::Type::Paren(p) => user_type(&p.elem, type_params),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?.ident.to_string();
            let builtin = ty::vector_type(&last).is_some()
                || matches!(
                    last.as_str(),
                    "Index"
                        | "Extent"
                        | "TiledIndex"
                        | "TiledExtent"
                        | "ArrayView"
                        | "Array"
                        | "f16"
                );
            let param = p.path.segments.len() == 1 && type_params.contains(&last);
            (last.starts_with(|c: char| c.is_ascii_uppercase()) && !builtin && !param)
                .then(|| p.path.clone())
        }
        _ => None,
    }
}

fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        other => other,
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

#[allow(dead_code)]
fn span_of(e: &syn::Expr) -> Span {
    e.span()
}

#[cfg(test)]
mod tests;
