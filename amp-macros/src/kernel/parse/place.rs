//! Places and indexing: what an assignment writes (a local, an element of
//! a captured view, a local array or a `tile_static` array, a field of
//! one), and what indexing reads (`a[i]`, `a[[i, j]]`, `a[i][j]`, a
//! component of a computed value, an element of a view made in the kernel,
//! a constant array). Parse resolves each into the AST's `Place`s and
//! element expressions (`ExprKind::Load`, `TileLoad`, `Element`); check
//! and expand see the captures and locals they name.

use proc_macro2::{Ident, Span};
use syn::UnOp;
use syn::spanned::Spanned;

use super::super::ast::*;
use super::view::view_method;
use super::{Binding, Resolver, is_const_name, strip_parens, strip_usize_cast, zero};

impl Resolver<'_> {
    pub(super) fn place(&mut self, e: &syn::Expr) -> Option<Place> {
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
                    Some(Binding::View(..)) => {
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
                    Some(Binding::LocalArray { .. }) => {
                        self.errors
                            .at(p, "a view is assigned element by element: `v[[i, j]] = ..`");
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
            syn::Expr::Field(f) => {
                // `p.x = v` through a `&mut` parameter auto-dereferences,
                // as in Rust (`(*p).x = v`).
                let base = match self.ref_param(&f.base) {
                    Some((id, name)) => Place::Local(id, name),
                    None => self.place(&f.base)?,
                };
                Some(Place::Field(Box::new(base), f.member.clone()))
            }
            syn::Expr::Index(_) => {
                if let Some(v) = self.read_only_local_view(e) {
                    self.errors.at(
                        &v,
                        format!("`{v}` views a local array read-only (`ArrayView::new`): make it with `ArrayView::new_mut(extent, &mut array)` to write through it"),
                    );
                    return None;
                }
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

    /// Refuses a write to a read-only view parameter (rustc would, in
    /// terms of the runtime's types).
    pub(super) fn check_writable(&mut self, c: u32, name: &Ident) -> Option<()> {
        if self.read_only_views.contains(&c) {
            self.errors.at(
                name,
                format!("`{name}` is a read-only view parameter (`&ArrayView<'_, T, N, ReadOnly>`): take `&ArrayView<'_, T, N>` to write through it"),
            );
            return None;
        }
        Some(())
    }

    /// A component of a computed value (`t.global[0]`, `a.extent()[1]`,
    /// `(idx + off)[0]`, `e.post_inc()[0]`).
    pub(super) fn component_expr(&mut self, ix: &syn::ExprIndex, span: Span) -> Option<Expr> {
        if let Some(kind) = self.projection_extent(ix)? {
            return Some(Expr { kind, span });
        }
        let base = self.expr(&ix.expr)?;
        let i = self.expr(strip_usize_cast(&ix.index))?;
        let kind = ExprKind::Element(Box::new(base), Box::new(i));
        Some(Expr { kind, span })
    }

    /// An element: of a captured view, a view made in the kernel, a
    /// `tile_static` array, a local or constant array, or the kernel index.
    pub(super) fn element_expr(&mut self, e: &syn::Expr, span: Span) -> Option<Expr> {
        let (base, mut indices) = self.index_chain(e)?;
        let kind = match base {
            IndexBase::Capture(c, name) if let Some((_, witness)) = self.reinterpreted.take() => {
                // `w[k]` of a reinterpreted view: the value made of
                // the words at position `k`.
                ExprKind::Call(
                    Builtin::ReinterpretLoad,
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
        };
        Some(Expr { kind, span })
    }

    pub(super) fn index_chain(&mut self, e: &syn::Expr) -> Option<(IndexBase, Vec<Expr>)> {
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
            Some(Binding::View(c, spelled)) => {
                IndexBase::Capture(c, super::spelled_at(&spelled, &name))
            }
            Some(
                b @ (Binding::Section { .. }
                | Binding::Projection { .. }
                | Binding::Reshaped { .. }
                | Binding::Reinterpreted { .. }
                | Binding::LocalArray { .. }),
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
                // `v[t]` with the tiled index: its global index (C++
                // AMP's `tiled_index` converts to `index` so).
                (true, 0, syn::Expr::Path(tp)) if indices.len() == 1 && self.is_tiled(tp) => {
                    let name = self.path_ident(tp)?;
                    Some(Expr {
                        kind: ExprKind::Tiled(TiledField::Global, name),
                        span: tp.span(),
                    })
                }
                _ => self.expr(i),
            };
            out.push(expr?);
        }
        Some((base, out))
    }

    /// Whether `p` names the tiled index (the kernel's parameter, or a
    /// `&TiledIndex` parameter of a #[kernel] function).
    pub(super) fn is_tiled(&self, p: &syn::ExprPath) -> bool {
        self.path_ident(p)
            .is_some_and(|n| matches!(self.lookup(&n.to_string()), Some(Binding::Tiled)))
    }

    /// The name at the root of the indexing `e` (`v[[i, j]]`, `v[i][j]`)
    /// if it is a read-only view over a local array.
    fn read_only_local_view(&self, e: &syn::Expr) -> Option<Ident> {
        let mut root = strip_parens(e);
        while let syn::Expr::Index(ix) = root {
            root = strip_parens(&ix.expr);
        }
        let syn::Expr::Path(p) = root else {
            return None;
        };
        let name = self.path_ident(p)?;
        match self.lookup(&name.to_string()) {
            Some(Binding::LocalArray {
                writable: false, ..
            }) => Some(name),
            _ => None,
        }
    }

    /// The index of `v[i]`, `v[[i, j]]` or `v[i][j]` of a view made in the
    /// kernel: one value, or the components as an `Index`.
    fn view_index(&mut self, indices: &[&syn::Expr], span: Span) -> Option<Expr> {
        let mut parts = Vec::new();
        for i in indices {
            parts.push(self.index_value(strip_usize_cast(i))?);
        }
        Some(if parts.len() == 1 {
            parts.pop().expect("one index")
        } else {
            Expr {
                kind: ExprKind::MakeIndex(parts, false),
                span,
            }
        })
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
                let index = self.view_index(indices, span)?;
                let at = Expr {
                    kind: ExprKind::Binary(BinOp::Add, Box::new(origin), Box::new(index)),
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
                let index = self.view_index(indices, span)?;
                let call = |ir: Builtin, method: &str, args: Vec<Expr>| Expr {
                    kind: ExprKind::Call(ir, Ident::new(method, span), args),
                    span,
                };
                let at = call(Builtin::Linearize, "linearize", vec![extent, index]);
                let whole = match &section {
                    Some((_, e)) => e.clone(),
                    None => Expr {
                        kind: ExprKind::Extent(capture, capture_name.clone()),
                        span,
                    },
                };
                let mut index = call(Builtin::Delinearize, "delinearize", vec![whole, at]);
                if let Some((origin, _)) = section {
                    index = Expr {
                        kind: ExprKind::Binary(BinOp::Add, Box::new(origin), Box::new(index)),
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
                            BinOp::Add,
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
            Binding::LocalArray {
                local,
                local_name,
                extent,
                ..
            } => {
                // `v[idx]`, `v[[i, j]]`, `v[i][j]`: the array's element at
                // the index's row-major position in the view's extent.
                let index = self.view_index(indices, span)?;
                let at = Expr {
                    kind: ExprKind::Call(
                        Builtin::Linearize,
                        Ident::new("linearize", span),
                        vec![extent, index],
                    ),
                    span,
                };
                Some((IndexBase::Local(local, local_name), vec![at]))
            }
            _ => {
                self.errors.at(at, "not a view made in the kernel");
                None
            }
        }
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
                kind: ExprKind::Binary(BinOp::Add, Box::new(k), Box::new(fixed)),
                span,
            }),
        )))
    }

    /// An index or extent argument: `[i, j]` as an index value, else the
    /// expression.
    pub(super) fn index_value(&mut self, e: &syn::Expr) -> Option<Expr> {
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
}

pub(super) enum IndexBase {
    Capture(u32, Ident),
    /// A constant array (`GAUSS[i][j]`), inlined.
    Const(syn::Path),
    Local(u32, Ident),
    KernelIndex(Ident),
    TileStatic(u32, Ident),
}
