//! Method calls and calls: built-in methods (`x.sqrt()`, `e.contains(&i)`,
//! see `builtin`), `x.inc()`/`x.post_inc()` steps, constructors
//! (`Index::new([..])`, `Float4::new(..)`), `f32::from_bits`,
//! `f16::from_f32`, subgroup and atomic functions (see `atomic`), and calls
//! of `#[kernel]` functions (see `function`). Parse resolves each into an
//! AST call (`ExprKind::Call`, `CallFn`, `MakeIndex`, `MakeVector`, ...);
//! check validates and expand lowers them. The `expr` dispatcher routes
//! method calls of other kinds (extents, swizzles) elsewhere.

use proc_macro2::{Ident, Span};
use syn::spanned::Spanned;

use super::super::ast::*;
use super::builtin::{atomic_function, builtin, subgroup_function};
use super::ty::vector_type;
use super::{Binding, Resolver, is_const_name, strip_parens};

/// What a kernel may ask of a captured `TiledExtent` (C++ AMP's
/// `tiled_extent` members), each computed on the host at the launch.
const TILED_EXTENT_METHODS: &[&str] = &["tile_extent", "tile_count", "tile_size", "is_divisible"];

/// Methods of the standard library a newcomer may try on a kernel value
/// (not taken for a missing `#[kernel]` method in errors).
const STD_METHODS: &[&str] = &[
    "to_string",
    "clone",
    "into",
    "to_owned",
    "iter",
    "len",
    "unwrap",
    "expect",
    "as_ref",
    "collect",
    "map",
    "push",
];

impl Resolver<'_> {
    /// `te.tile_extent()`, `te.tile_count()`, `te.tile_size()` or
    /// `te.is_divisible()` of a captured `TiledExtent` `te`: a capture of its
    /// own, the value the host computes at the launch (the same for every
    /// work item). `te.extent()` is the capture of `te` itself, as for a
    /// view. A kernel function has no captures; its callers pass values.
    fn derived_capture(&mut self, m: &syn::ExprMethodCall) -> Option<ExprKind> {
        let method = m.method.to_string();
        if !TILED_EXTENT_METHODS.contains(&method.as_str())
            || !m.args.is_empty()
            || m.turbofish.is_some()
            || self.function
        {
            return None;
        }
        let syn::Expr::Path(p) = strip_parens(&m.receiver) else {
            return None;
        };
        let name = self.path_ident(p)?;
        if self.lookup(&name.to_string()).is_some() {
            return None;
        }
        let text = format!("{name}.{method}()");
        let hidden = Ident::new(&format!("__amp_{name}_{method}"), m.method.span());
        if !self.derived.iter().any(|(h, _, _)| *h == hidden) {
            self.derived
                .push((hidden.clone(), syn::Expr::MethodCall(m.clone()), text));
        }
        let c = self.capture(&hidden)?;
        Some(ExprKind::Capture(c, hidden))
    }

    /// `value.m(args)` where `value` is `self` or a local whose struct type
    /// the source shows (see `Resolver::local_types`): a call of that
    /// type's `#[kernel]` method `m`, through its receiver shim
    /// (`Type::__amp_m_recv(&mut value, args)`: the accelerators pass the
    /// receiver by pointer whatever `m` takes; the CPU form calls
    /// `value.m(args)` as written).
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) -> Option<syn::ExprCall> {
        let syn::Expr::Path(p) = strip_parens(&m.receiver) else {
            return None;
        };
        let name = self.path_ident(p)?;
        let Some(Binding::Local(id, _)) = self.lookup(&name.to_string()) else {
            return None;
        };
        let ty = self.local_types.get(&id)?.clone();
        let span = m.method.span();
        let shim = super::super::expand::receiver_shim_name(&m.method);
        let mut path = ty;
        let mut segment = syn::PathSegment::from(shim);
        if let Some(t) = &m.turbofish {
            segment.arguments =
                syn::PathArguments::AngleBracketed(syn::AngleBracketedGenericArguments {
                    colon2_token: Some(Default::default()),
                    lt_token: t.lt_token,
                    args: t.args.clone(),
                    gt_token: t.gt_token,
                });
        }
        path.segments.push(segment);
        let receiver: syn::Expr = if self.ref_params.contains(&id) {
            syn::parse_quote_spanned!(span=> #name)
        } else {
            syn::parse_quote_spanned!(span=> &mut #name)
        };
        let args = m.args.iter();
        Some(syn::parse_quote_spanned!(span=> #path(#receiver, #(#args),*)))
    }

    /// Whether `e` is a local whose type the source shows as a type other
    /// than `Index` and `Extent` (a struct: `x.inc()` is then its method).
    pub(super) fn struct_typed(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return false;
        };
        let Some(name) = self.path_ident(p) else {
            return false;
        };
        let Some(Binding::Local(id, _)) = self.lookup(&name.to_string()) else {
            return false;
        };
        self.local_types.get(&id).is_some_and(|t| {
            t.segments
                .last()
                .is_some_and(|s| s.ident != "Index" && s.ident != "Extent")
        })
    }

    /// Any other method call: a built-in method (`x.sqrt()`, `a.min(b)`,
    /// ...); barriers used as values, host view methods and other methods
    /// are reported.
    pub(super) fn builtin_method_expr(
        &mut self,
        m: &syn::ExprMethodCall,
        span: Span,
    ) -> Option<Expr> {
        let name = m.method.to_string();
        if let Some(kind) = self.derived_capture(m) {
            return Some(Expr { kind, span });
        }
        // A built-in's name stays the built-in (a local typed by an alias
        // of a short vector keeps its methods); a `#[kernel]` method of
        // that name is called by path.
        if builtin(&name).is_none()
            && let Some(call) = self.method_call(m)
        {
            return self.call_expr(&call, span);
        }
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
            } else if !STD_METHODS.contains(&name.as_str())
                && let syn::Expr::Path(p) = strip_parens(&m.receiver)
                && let Some(local) = self.path_ident(p)
                && matches!(self.lookup(&local.to_string()), Some(Binding::Local(..)))
            {
                format!(
                    "`{name}` is not available in kernels: kernels may call the math functions WGSL provides (sqrt, abs, min, max, clamp, floor, exp, sin, mul_add, ...) and #[kernel] methods; a #[kernel] method is called on `self` or on a local whose type the kernel shows (`let {local}: Type = ..;` or `let {local} = Type {{ .. }};`), or by path (`Type::{name}(&mut {local}, ..)`)"
                )
            } else {
                format!(
                    "`{name}` is not available in kernels; kernels may call the math functions WGSL provides (sqrt, abs, min, max, clamp, floor, exp, sin, mul_add, ...)"
                )
            };
            // A captured struct's `#[kernel]` method: its type is not in
            // the kernel's text.
            let captured = match strip_parens(&m.receiver) {
                syn::Expr::Path(p) => self.path_ident(p).filter(|n| {
                    self.lookup(&n.to_string()).is_none() && !is_const_name(&n.to_string())
                }),
                _ => None,
            };
            let message = match captured {
                Some(c) if !STD_METHODS.contains(&name.as_str()) => format!(
                    "{message}; if `{c}` is a captured struct with a #[kernel] method `{name}`, copy it into a local whose type the kernel shows first: `let v: Type = {c}; v.{name}(..)`"
                ),
                _ => message,
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
                syn::Expr::Reference(r) if name == "contains" && r.mutability.is_none() => &*r.expr,
                other => other,
            };
            args.push(self.expr(a)?);
        }
        let kind = ExprKind::Call(b, m.method.clone(), args);
        Some(Expr { kind, span })
    }

    /// `x.inc()`, `x.dec()`, `x.post_inc()`, `x.post_dec()` of a local
    /// `Index`/`Extent` (C++ AMP's `++x`, `--x`, `x++`, `x--`): lowered to
    /// `{ x += 1; x }` and `{ let old = x; x += 1; old }`.
    pub(super) fn step(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
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
            BinOp::Add
        } else {
            BinOp::Sub
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

    /// Whether `c` allocates (`Box::new(..)`, `Vec::new()`, ...); if so,
    /// reported.
    pub(super) fn heap_call(&mut self, c: &syn::ExprCall) -> bool {
        const HEAP: &[&str] = &[
            "Vec", "Box", "String", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap", "VecDeque",
        ];
        let syn::Expr::Path(p) = &*c.func else {
            return false;
        };
        if !p
            .path
            .segments
            .iter()
            .any(|s| HEAP.contains(&s.ident.to_string().as_str()))
        {
            return false;
        }
        self.errors.at(
            &c.func,
            "heap allocation is not possible in kernels: accelerators have no heap (C++ AMP restrict(amp)); use a fixed-size array local `[T; N]`",
        );
        true
    }

    /// A call: a constructor, a conversion, an atomic or subgroup
    /// function, or a `#[kernel]` function.
    /// `Index::new([..])`, `Extent::new([..])`, `Index::new(arr)`,
    /// `Index::<N>::default()` and `Extent::<N>::rank()`: the value (`None`
    /// inside when refused), or `None` for other calls.
    fn geometry_call(
        &mut self,
        c: &syn::ExprCall,
        p: &syn::ExprPath,
        segs: &[String],
        span: Span,
    ) -> Option<Option<Expr>> {
        if segs.len() >= 2
            && (segs[segs.len() - 2] == "Index" || segs[segs.len() - 2] == "Extent")
            && segs[segs.len() - 1] == "new"
            && c.args.len() == 1
            && let syn::Expr::Array(a) = strip_parens(&c.args[0])
        {
            let parts: Vec<Expr> = a.elems.iter().filter_map(|x| self.expr(x)).collect();
            if parts.len() != a.elems.len() {
                return Some(None);
            }
            return Some(Some(Expr {
                kind: ExprKind::MakeIndex(parts, segs[segs.len() - 2] == "Extent"),
                span,
            }));
        }
        if segs.len() >= 2 && (segs[segs.len() - 2] == "Index" || segs[segs.len() - 2] == "Extent")
        {
            let extent = segs[segs.len() - 2] == "Extent";
            let kind = if extent { "Extent" } else { "Index" };
            match (segs[segs.len() - 1].as_str(), c.args.len()) {
                // `Index::new(arr)` of an `[i32; N]` value.
                ("new", 1) => {
                    let Some(arr) = self.expr(&c.args[0]) else {
                        return Some(None);
                    };
                    let name = if extent {
                        "extent_from_array"
                    } else {
                        "index_from_array"
                    };
                    return Some(Some(Expr {
                        kind: ExprKind::Call(
                            Builtin::IndexFromArray,
                            proc_macro2::Ident::new(name, span),
                            vec![arr],
                        ),
                        span,
                    }));
                }
                // `Index::<N>::default()`: zeros (C++ AMP's `index<N> idx;`).
                ("default", 0) => {
                    let rank = p.path.segments[segs.len() - 2].arguments.clone();
                    let n = match rank {
                        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => {
                            match &a.args[0] {
                                syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                                    lit: syn::Lit::Int(i),
                                    ..
                                })) => i.base10_parse::<u32>().ok(),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    let Some(n) = n.filter(|n| (1..=64).contains(n)) else {
                        self.errors.at(
                            c,
                            format!("`{kind}::default()` in a kernel names its rank as a literal: `{kind}::<3>::default()`"),
                        );
                        return Some(None);
                    };
                    let parts = (0..n).map(|_| super::zero(span)).collect();
                    return Some(Some(Expr {
                        kind: ExprKind::MakeIndex(parts, extent),
                        span,
                    }));
                }
                // `Extent::<N>::rank()`: the rank, a constant (C++
                // AMP's `extent<N>::rank`), for generic-rank code.
                ("rank", 0) => {
                    let rank = match &p.path.segments[segs.len() - 2].arguments {
                        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => {
                            match &a.args[0] {
                                syn::GenericArgument::Const(e) => Some(e.clone()),
                                syn::GenericArgument::Type(syn::Type::Path(t))
                                    if t.qself.is_none() =>
                                {
                                    Some(syn::Expr::Path(syn::ExprPath {
                                        attrs: Vec::new(),
                                        qself: None,
                                        path: t.path.clone(),
                                    }))
                                }
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    let Some(rank) = rank else {
                        self.errors.at(
                            c,
                            format!("`{kind}::rank()` in a kernel names its rank: `{kind}::<N>::rank()` (or `{kind}::<3>::rank()`)"),
                        );
                        return Some(None);
                    };
                    return Some(self.expr(&rank));
                }
                _ => {}
            }
        }
        None
    }

    pub(super) fn call_expr(&mut self, c: &syn::ExprCall, span: Span) -> Option<Expr> {
        if let syn::Expr::Path(p) = &*c.func {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if let Some(made) = self.geometry_call(c, p, &segs, span) {
                return made;
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
            if self.heap_call(c) {
                return None;
            }
            if segs.len() == 2 && segs[0] == "f32" && segs[1] == "from_bits" && c.args.len() == 1 {
                let arg = self.expr(&c.args[0])?;
                let method = p.path.segments[1].ident.clone();
                return Some(Expr {
                    kind: ExprKind::Call(Builtin::FromBits, method, vec![arg]),
                    span,
                });
            }
            // `f16::from_f32(x)` / `from_f64` (`half::f16`, the
            // `half` feature of amp-core).
            if segs.len() >= 2
                && segs[segs.len() - 2] == "f16"
                && (segs[segs.len() - 1] == "from_f32" || segs[segs.len() - 1] == "from_f64")
                && c.args.len() == 1
            {
                let from = &segs[segs.len() - 1];
                // (typeck gives the argument the parameter's type,
                // as rustc does.)
                let arg = self.expr(&c.args[0])?;
                let method = p.path.segments.last()?.ident.clone();
                let b = if from == "from_f32" {
                    Builtin::HalfFromF32
                } else {
                    Builtin::HalfFromF64
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
            // `Some(x)`, `Ok(x)`, `Option::Some(x)`: kernels have no enums.
            if let Some(mistake) = segs.iter().find_map(|s| super::enum_mistake(s)) {
                self.errors.once(mistake, &c.func);
                return None;
            }
            // A direct call of the `#[kernel]` function being parsed.
            if let Some(own) = &self.function_name
                && p.qself.is_none()
                && (p.path.segments.len() == 1
                    || (p.path.segments.len() == 2 && p.path.segments[0].ident == "Self"))
                && p.path.segments.last().is_some_and(|s| s.ident == *own)
            {
                self.errors.at(
                    &c.func,
                    format!("`{own}` calls itself: kernels cannot recurse (accelerators have no call stack; WGSL and C++ AMP's restrict(amp) forbid recursion): write the recursion as a loop, with a fixed-size array local `[T; N]` as the stack if it needs one"),
                );
                return None;
            }
            // `pred(a)` of a parameter or local: a function value.
            if let Some(name) = self.path_ident(p)
                && self.lookup(&name.to_string()).is_some()
            {
                self.errors.at(
                    &c.func,
                    format!("`{name}` is a value, not a #[kernel] function: kernels call #[kernel] functions by name, and closures where the kernel binds them (`let f = |x| ..; f(1)`); a closure passed to a #[kernel] function (`F: Fn(i32) -> i32`) is not supported yet: call it in the kernel and pass its result"),
                );
                return None;
            }
            if p.qself.is_none() {
                // A `#[kernel]` function (anything else fails to
                // compile: its IR builder does not exist).
                let args: Vec<Expr> = c.args.iter().filter_map(|a| self.call_arg(a)).collect();
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
        None
    }
}
