//! Views made in the kernel (C++ AMP's view methods in `restrict(amp)`
//! code): `a.section(origin, extent)`, `a.section_from(origin)`,
//! `a.project(i)`, `a.view_as(extent)` and `a.reinterpret_as::<T>()`, by
//! `let` or where they are used, and the extents of views (`a.extent()`).
//! Parse binds such a view to the capture it views with the values it is
//! made of (a `Binding`); indexing it (`place`) yields elements of the
//! captured view, so check and expand see only captures.

use proc_macro2::{Ident, Span};
use syn::spanned::Spanned;

use super::super::ast::*;
use super::ty::vector_type;
use super::{Binding, Resolver, is_const_name, strip_parens, strip_usize_cast};

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
pub(super) fn view_method(e: &syn::Expr) -> Option<&syn::ExprMethodCall> {
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
pub(super) fn view_let(l: &syn::Local) -> Option<(Ident, &syn::Expr)> {
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

/// `let name = ArrayView::new(extent, &array)` (or `new_mut(extent, &mut
/// array)`, either followed by `.unwrap()`, `.expect(..)` or `?`): a view
/// over a local array made in the kernel. The name, the extent and array
/// expressions, and whether it is `new_mut`.
pub(super) fn local_array_view(l: &syn::Local) -> Option<(Ident, &syn::Expr, &syn::Expr, bool)> {
    let syn::Pat::Ident(p) = &l.pat else {
        return None;
    };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let mut e = strip_parens(&init.expr);
    loop {
        match e {
            syn::Expr::Try(t) => e = strip_parens(&t.expr),
            syn::Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
                e = strip_parens(&m.receiver);
            }
            _ => break,
        }
    }
    let syn::Expr::Call(c) = e else {
        return None;
    };
    let syn::Expr::Path(f) = &*c.func else {
        return None;
    };
    let segs: Vec<String> = f
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let n = segs.len();
    if n < 2 || segs[n - 2] != "ArrayView" || c.args.len() != 2 {
        return None;
    }
    let writable = match segs[n - 1].as_str() {
        "new" => false,
        "new_mut" => true,
        _ => return None,
    };
    let syn::Expr::Reference(r) = strip_parens(&c.args[1]) else {
        return None;
    };
    Some((p.ident.clone(), &c.args[0], &*r.expr, writable))
}

/// `let name = source;` (not `mut`, no type annotation) of a plain name:
/// the two names.
pub(super) fn copy_let(l: &syn::Local) -> Option<(Ident, Ident)> {
    let syn::Pat::Ident(p) = &l.pat else {
        return None;
    };
    if p.by_ref.is_some() || p.subpat.is_some() || p.mutability.is_some() {
        return None;
    }
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    match strip_parens(&init.expr) {
        syn::Expr::Path(path)
            if path.qself.is_none()
                && path.path.segments.len() == 1
                && path.path.segments[0].arguments.is_none() =>
        {
            Some((p.ident.clone(), path.path.segments[0].ident.clone()))
        }
        _ => None,
    }
}

impl Resolver<'_> {
    /// What `let v2 = source;` binds `v2` to when `source` names a
    /// captured variable, a view parameter or a view made in the kernel:
    /// the same (C++ AMP copies an `array_view` by value, and the copy
    /// views the same data). A captured scalar is named the same way: it
    /// does not change while the kernel runs. `None` for a local.
    pub(super) fn copied_view(&mut self, source: &Ident) -> Option<Binding> {
        let name = source.to_string();
        match self.lookup(&name) {
            None if !is_const_name(&name) && !self.function => {
                let c = self.capture(source)?;
                Some(Binding::View(c, source.clone()))
            }
            Some(b @ Binding::View(..)) => Some(b),
            Some(b) if b.made_view().is_some() => Some(b),
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
    pub(super) fn local_view(
        &mut self,
        l: &syn::Local,
        name: Ident,
        init: &syn::Expr,
    ) -> Vec<Stmt> {
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

    /// `let v = ArrayView::new_mut(extent, &mut array);` in a kernel: `v`
    /// bound to the local array with the extent (evaluated here, into a
    /// hidden local).
    pub(super) fn local_array_view(
        &mut self,
        l: &syn::Local,
        name: Ident,
        extent: &syn::Expr,
        array: &syn::Expr,
        writable: bool,
    ) -> Vec<Stmt> {
        let span = l.span();
        let array_name = match strip_parens(array) {
            syn::Expr::Path(p) => self.path_ident(p),
            _ => None,
        };
        let Some((local, local_name)) =
            array_name.and_then(|n| match self.lookup(&n.to_string()) {
                Some(Binding::Local(id, alias)) => Some((id, alias.unwrap_or(n))),
                _ => None,
            })
        else {
            self.errors.at(
                array,
                "a view made in a kernel with `ArrayView::new` views a local array of the kernel by name (`&data`, `&mut data`); views of host data are made on the host and captured",
            );
            return Vec::new();
        };
        let extent = match strip_parens(extent) {
            // `[3, 4]`: the extent's components.
            syn::Expr::Array(a) => {
                let parts: Vec<Expr> = a.elems.iter().filter_map(|x| self.expr(x)).collect();
                if parts.len() != a.elems.len() {
                    return Vec::new();
                }
                Expr {
                    kind: ExprKind::MakeIndex(parts, true),
                    span,
                }
            }
            other => match self.expr(other) {
                Some(e) => e,
                None => return Vec::new(),
            },
        };
        let (stmt, (id, n)) = self.hidden_let(&format!("__amp_{name}_extent"), extent, span);
        let extent = Expr {
            kind: ExprKind::Local(id, n),
            span,
        };
        self.bind(
            &name,
            Binding::LocalArray {
                local,
                local_name,
                extent,
                writable,
            },
        );
        vec![stmt]
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

    /// The view `e` stands for: a captured view or array, or a view
    /// parameter (`None` with it), or a view made in the kernel, by its
    /// `let` or by a chain of view-making calls (`a.section(o, e)`,
    /// `a.section(o, e).project(i)`, ...), with the capture it views. The
    /// binding of a chain holds the expressions of its values, evaluated
    /// where the view is indexed. Reports anything else.
    pub(super) fn view_of(&mut self, e: &syn::Expr) -> Option<(u32, Ident, Option<Binding>)> {
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
            Some(Binding::View(c, spelled)) => Some((c, super::spelled_at(&spelled, &name), None)),
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
        let binding = match m.method.to_string().as_str() {
            "section" | "section_from"
                if let Some(Binding::Projection {
                    prefix, section, ..
                }) = made =>
            {
                self.derive_section_of_projection(
                    m,
                    capture,
                    capture_name.clone(),
                    prefix,
                    section,
                )?
            }
            "section" | "section_from" => {
                self.derive_section(m, capture, capture_name.clone(), made)?
            }
            "project" => self.derive_projection(m, capture, capture_name.clone(), made)?,
            "view_as" => self.derive_reshaped(m, capture, capture_name.clone(), made)?,
            _ => self.derive_reinterpreted(m, capture, capture_name.clone(), made)?,
        };
        Some((capture, capture_name, Some(binding)))
    }

    /// `section`/`section_from` of a projection (see
    /// [`Resolver::derive_view`]).
    fn derive_section_of_projection(
        &mut self,
        m: &syn::ExprMethodCall,
        capture: u32,
        capture_name: Ident,
        prefix: Vec<Expr>,
        section: Option<(Expr, Expr)>,
    ) -> Option<Binding> {
        let span = m.span();
        let binary = |op: BinOp, a: Expr, b: Expr| Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            span,
        };
        let whole = |capture: u32, capture_name: &Ident| Expr {
            kind: ExprKind::Extent(capture, capture_name.clone()),
            span,
        };
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
                    binary(BinOp::Sub, dim, relative[k].clone())
                })
                .collect()
        };
        let mut origin: Vec<Expr> = prefix;
        origin.extend(relative);
        let mut extent: Vec<Expr> = (0..fixed).map(|_| int(1)).collect();
        extent.extend(sizes);
        let origin = match section {
            Some((o, _)) => binary(BinOp::Add, o, index(origin)),
            None => index(origin),
        };
        Some(Binding::Projection {
            capture,
            capture_name: capture_name.clone(),
            prefix: (0..fixed).map(|_| int(0)).collect(),
            section: Some((origin, index(extent))),
        })
    }

    /// `section`/`section_from` of a view, or of a section (see
    /// [`Resolver::derive_view`]).
    fn derive_section(
        &mut self,
        m: &syn::ExprMethodCall,
        capture: u32,
        capture_name: Ident,
        made: Option<Binding>,
    ) -> Option<Binding> {
        let span = m.span();
        let binary = |op: BinOp, a: Expr, b: Expr| Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            span,
        };
        let whole = |capture: u32, capture_name: &Ident| Expr {
            kind: ExprKind::Extent(capture, capture_name.clone()),
            span,
        };
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
            binary(BinOp::Sub, all, relative.clone())
        };
        let origin = match base {
            Some((o, _)) => binary(BinOp::Add, o, relative),
            None => relative,
        };
        Some(Binding::Section {
            capture,
            capture_name: capture_name.clone(),
            origin,
            extent,
        })
    }

    /// `project` of a view, a section or a projection (see
    /// [`Resolver::derive_view`]).
    fn derive_projection(
        &mut self,
        m: &syn::ExprMethodCall,
        capture: u32,
        capture_name: Ident,
        made: Option<Binding>,
    ) -> Option<Binding> {
        let (mut prefix, section) = match made {
            None => (Vec::new(), None),
            Some(Binding::Section { origin, extent, .. }) => (Vec::new(), Some((origin, extent))),
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
        Some(Binding::Projection {
            capture,
            capture_name: capture_name.clone(),
            prefix,
            section,
        })
    }

    /// `view_as` of a view, a section or a projection at 0 (see
    /// [`Resolver::derive_view`]).
    fn derive_reshaped(
        &mut self,
        m: &syn::ExprMethodCall,
        capture: u32,
        capture_name: Ident,
        made: Option<Binding>,
    ) -> Option<Binding> {
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
                let parts: Vec<Expr> = a.elems.iter().filter_map(|x| self.expr(x)).collect();
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
        Some(Binding::Reshaped {
            capture,
            capture_name: capture_name.clone(),
            extent,
            section,
        })
    }

    /// `reinterpret_as::<U>()` of a view (see [`Resolver::derive_view`]).
    fn derive_reinterpreted(
        &mut self,
        m: &syn::ExprMethodCall,
        capture: u32,
        capture_name: Ident,
        made: Option<Binding>,
    ) -> Option<Binding> {
        let span = m.span();
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
                        kind: ExprKind::MakeVector(n, sc, new, (0..n).map(|_| zero(sc)).collect()),
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
        Some(Binding::Reinterpreted {
            capture,
            capture_name: capture_name.clone(),
            witness,
        })
    }

    // `a.section(o, e).extent()`: the extent of a view made where
    // it is used.
    pub(super) fn made_view_extent(
        &mut self,
        e: &syn::Expr,
        m: &syn::ExprMethodCall,
        span: Span,
    ) -> Option<Expr> {
        let kind = match self.view_of(&m.receiver)? {
            (_, _, Some(Binding::Section { extent, .. } | Binding::Reshaped { extent, .. })) => {
                extent.kind
            }
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
        };
        Some(Expr { kind, span })
    }

    /// `a.extent()` of a captured view or array, a view parameter, or a
    /// view made by `let`.
    pub(super) fn extent_expr(
        &mut self,
        e: &syn::Expr,
        m: &syn::ExprMethodCall,
        span: Span,
    ) -> Option<Expr> {
        let receiver = match strip_parens(&m.receiver) {
            syn::Expr::Path(p) => self.path_ident(p),
            _ => None,
        };
        let kind = match receiver {
            Some(name) if self.lookup(&name.to_string()).is_none() => {
                ExprKind::Extent(self.capture(&name)?, name)
            }
            Some(name) if let Some(Binding::View(c, spelled)) = self.lookup(&name.to_string()) => {
                ExprKind::Extent(c, super::spelled_at(&spelled, &name))
            }
            Some(name)
                if let Some(Binding::Section { extent, .. }) = self.lookup(&name.to_string()) =>
            {
                extent.kind
            }
            Some(name)
                if let Some(
                    Binding::Reshaped { extent, .. } | Binding::LocalArray { extent, .. },
                ) = self.lookup(&name.to_string()) =>
            {
                extent.kind
            }
            Some(name) if let Some(Binding::Projection { .. }) = self.lookup(&name.to_string()) => {
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
        };
        Some(Expr { kind, span })
    }
}
