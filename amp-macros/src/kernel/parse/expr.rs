//! Expressions: the dispatcher ([`Resolver::expr`]) that routes each
//! construct to its resolver method, and the constructs resolved here:
//! literals, names (locals, captures, constants, the kernel index),
//! unary and binary operators, casts, `if` values, and tuple and struct
//! literals. Parse builds the AST's `Expr`s that check (typeck) validates
//! and expand lowers.

use proc_macro2::Span;
use syn::UnOp;
use syn::spanned::Spanned;

use super::super::ast::*;
use super::builtin::is_swizzle;
use super::ty::scalar_suffix;
use super::view::view_method;
use super::{Binding, Resolver, is_const_name, strip_parens, zero};

impl Resolver<'_> {
    /// An expression: dispatched by construct to the resolver's methods
    /// (here, and in `call`, `place`, `view`, `reference`, `pattern`).
    pub(super) fn expr(&mut self, e: &syn::Expr) -> Option<Expr> {
        let span = e.span();
        let kind = match e {
            syn::Expr::Lit(l) => return self.lit_expr(l, span),
            syn::Expr::Paren(p) => return self.expr(&p.expr),
            syn::Expr::Group(g) => return self.expr(&g.expr),
            syn::Expr::Path(p) => return self.path_expr(p, span),
            syn::Expr::Binary(b) => return self.binary_expr(b, span),
            syn::Expr::Unary(u) => return self.unary_expr(u, span),
            syn::Expr::Cast(c) => return self.cast_expr(c, span),
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
                return self.component_expr(ix, span);
            }
            syn::Expr::Index(_) => return self.element_expr(e, span),
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
                return self.made_view_extent(e, m, span);
            }
            syn::Expr::MethodCall(m) if m.method == "extent" && m.args.is_empty() => {
                return self.extent_expr(e, m, span);
            }
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "inc" | "dec" | "post_inc" | "post_dec"
                ) && m.args.is_empty() =>
            {
                // `s.inc()` of a local whose struct type the source shows
                // (a `&mut S` parameter, `let s: S`): its `#[kernel]`
                // method, not the `Index` step.
                if self.struct_typed(&m.receiver)
                    && let Some(call) = self.method_call(m)
                {
                    return self.call_expr(&call, span);
                }
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
            syn::Expr::MethodCall(m) => return self.builtin_method_expr(m, span),
            syn::Expr::Call(c) => return self.call_expr(c, span),
            syn::Expr::If(i) => return self.if_expr(i, span),
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
                self.errors.at(c, "a closure in a kernel can only be called, where it is written (`(|x| x + 1)(a)`) or by the name a `let` binds it to (`let f = |x| x + 1; f(a)`), and it is inlined there: accelerators have no function pointers (C++ AMP restrict(amp))");
                return None;
            }
            // A `&mut` parameter returned (marked by `refs::mark_ref_results`).
            syn::Expr::Macro(m) if m.mac.path.is_ident("__amp_ref_result") => {
                return self.ref_result_expr(m, span);
            }
            syn::Expr::Macro(m) => {
                self.errors.at(&m.mac, "macros are not allowed in kernels: accelerators cannot print, allocate or panic (C++ AMP restrict(amp))");
                return None;
            }
            syn::Expr::Tuple(t) => return self.tuple_expr(t, span),
            syn::Expr::Struct(st) => return self.struct_expr(st, span),
            syn::Expr::Match(m) => return self.match_expr(m, false),
            syn::Expr::Field(f) if self.tiled_field(e).is_some() => {
                let (field, name) = self.tiled_field(e)?;
                ExprKind::Tiled(field, name)
            }
            syn::Expr::Field(f) if self.is_tiled_param(&f.base) => {
                self.errors.at(f, "the tiled index has the fields `global`, `local`, `tile`, `tile_origin`, `tile_extent`, and `barrier` (for `t.barrier.wait()` statements)");
                return None;
            }
            // `p.x` of a `&mut` parameter auto-dereferences, as in Rust.
            syn::Expr::Field(f) => {
                let base = match self.ref_param(&f.base) {
                    Some((id, name)) => Expr {
                        kind: ExprKind::Local(id, name),
                        span: f.base.span(),
                    },
                    None => self.expr(&f.base)?,
                };
                ExprKind::Field(Box::new(base), f.member.clone())
            }
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

    /// A literal (`1`, `2.5f32`, `true`).
    fn lit_expr(&mut self, l: &syn::ExprLit, span: Span) -> Option<Expr> {
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
                kind: ExprKind::Unary(amp_ir::UnOp::Neg, Box::new(inner)),
                span,
            });
        }
        let kind = ExprKind::Lit(self.lit(&l.lit)?, Some(l.lit.clone()));
        Some(Expr { kind, span })
    }

    /// A name: a local, the kernel index, a view parameter, a
    /// `tile_static` scalar, a constant, or a capture.
    fn path_expr(&mut self, p: &syn::ExprPath, span: Span) -> Option<Expr> {
        let kind = if let Some(name) = self.path_ident(p) {
            match self.lookup(&name.to_string()) {
                Some(Binding::Local(id, _)) if self.ref_params.contains(&id) => {
                    self.errors.at(
                        p,
                        format!("`{name}` is a `&mut` parameter: read and write the caller's value as `*{name}`"),
                    );
                    return None;
                }
                Some(Binding::Local(id, alias)) => ExprKind::Local(id, alias.unwrap_or(name)),
                Some(Binding::Index) => ExprKind::KernelIndex(name),
                Some(Binding::Tiled) => {
                    self.errors.at(p, "use the fields of the tiled index: `t.global`, `t.local`, `t.tile`, `t.tile_origin`, `t.tile_extent` (or pass it to a #[kernel] function: `f(&t)`)");
                    return None;
                }
                Some(Binding::View(c, spelled)) => {
                    ExprKind::Capture(c, super::spelled_at(&spelled, &name))
                }
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
                Some(Binding::LocalArray { .. }) => {
                    self.errors.at(
                        p,
                        "a view over a local array made in a kernel is used element by element (`v[[i, j]]`) and by `v.extent()`; pass the array itself to #[kernel] functions",
                    );
                    return None;
                }
                Some(Binding::TileScalar(id)) => {
                    ExprKind::TileLoad(id, name, vec![zero(span)], Default::default(), Vec::new())
                }
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
                // `None`: kernels have no `Option`.
                None if let Some(mistake) = super::enum_mistake(&name.to_string()) => {
                    self.errors.once(mistake, p);
                    return None;
                }
                None => {
                    let c = self.capture(&name)?;
                    ExprKind::Capture(c, name)
                }
            }
        } else if p.qself.is_none()
            && let Some(mistake) = p
                .path
                .segments
                .iter()
                .find_map(|s| super::enum_mistake(&s.ident.to_string()))
        {
            // `Option::None`, `std::option::Option::None`.
            self.errors.once(mistake, p);
            return None;
        } else if p.qself.is_none() {
            // `i32::MAX`, `module::CONST`: constants.
            ExprKind::Const(p.path.clone())
        } else {
            self.errors
                .at(p, "qualified paths are not allowed in kernels");
            return None;
        };
        Some(Expr { kind, span })
    }

    /// A binary operator (compound assignments are statements).
    fn binary_expr(&mut self, b: &syn::ExprBinary, span: Span) -> Option<Expr> {
        let kind = match bin_op(&b.op) {
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
        };
        Some(Expr { kind, span })
    }

    /// A unary operator, or `*p` of a `&mut` parameter.
    fn unary_expr(&mut self, u: &syn::ExprUnary, span: Span) -> Option<Expr> {
        let kind = match u.op {
            UnOp::Neg(_) => ExprKind::Unary(amp_ir::UnOp::Neg, Box::new(self.expr(&u.expr)?)),
            UnOp::Not(_) => ExprKind::Unary(amp_ir::UnOp::Not, Box::new(self.expr(&u.expr)?)),
            // `*a` of a `&mut` parameter: the caller's local.
            UnOp::Deref(_) if let Some((id, name)) = self.ref_param(&u.expr) => {
                ExprKind::Local(id, name)
            }
            _ => {
                self.errors.at(u, "only references bound by `let` (`let r = &mut x; *r += 1;`) and `&mut` parameters of #[kernel] functions can be dereferenced in kernels");
                return None;
            }
        };
        Some(Expr { kind, span })
    }

    /// A cast to a scalar type.
    fn cast_expr(&mut self, c: &syn::ExprCast, span: Span) -> Option<Expr> {
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
                .and_then(|i| super::super::ast::scalar_from_name(&i.to_string()))
            {
                Some(s) => s,
                None => {
                    self.errors.at(&c.ty, "kernels can cast to i32, u32, f32, f64, u8, i8, u16 and i16 only: WGSL has no 64-bit integers");
                    return None;
                }
            },
            other => {
                self.errors.at(other, "kernels can cast to i32, u32, f32, f64, u8, i8, u16 and i16 only: WGSL has no 64-bit integers");
                return None;
            }
        };
        let kind = ExprKind::Cast(Box::new(self.expr(&c.expr)?), to);
        Some(Expr { kind, span })
    }

    /// An `if` used as a value.
    fn if_expr(&mut self, i: &syn::ExprIf, span: Span) -> Option<Expr> {
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
        let kind = ExprKind::If(Box::new(cond?), then, els);
        Some(Expr { kind, span })
    }

    /// A tuple literal.
    fn tuple_expr(&mut self, t: &syn::ExprTuple, span: Span) -> Option<Expr> {
        if t.elems.is_empty() {
            self.errors.at(t, "`()` has no value in kernels");
            return None;
        }
        let items: Vec<Expr> = t.elems.iter().filter_map(|x| self.expr(x)).collect();
        if items.len() != t.elems.len() {
            return None;
        }
        let kind = ExprKind::MakeTuple(items);
        Some(Expr { kind, span })
    }

    /// A struct literal (`Point { x, y }`).
    fn struct_expr(&mut self, st: &syn::ExprStruct, span: Span) -> Option<Expr> {
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
        let kind = ExprKind::MakeStruct(st.path.clone(), fields);
        Some(Expr { kind, span })
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

pub(super) fn bin_op(op: &syn::BinOp) -> Option<(BinOp, bool)> {
    use syn::BinOp::*;
    Some(match op {
        Add(_) => (BinOp::Add, false),
        Sub(_) => (BinOp::Sub, false),
        Mul(_) => (BinOp::Mul, false),
        Div(_) => (BinOp::Div, false),
        Rem(_) => (BinOp::Rem, false),
        And(_) => (BinOp::And, false),
        Or(_) => (BinOp::Or, false),
        BitXor(_) => (BinOp::BitXor, false),
        BitAnd(_) => (BinOp::BitAnd, false),
        BitOr(_) => (BinOp::BitOr, false),
        Shl(_) => (BinOp::Shl, false),
        Shr(_) => (BinOp::Shr, false),
        Eq(_) => (BinOp::Eq, false),
        Lt(_) => (BinOp::Lt, false),
        Le(_) => (BinOp::Le, false),
        Ne(_) => (BinOp::Ne, false),
        Ge(_) => (BinOp::Ge, false),
        Gt(_) => (BinOp::Gt, false),
        AddAssign(_) => (BinOp::Add, true),
        SubAssign(_) => (BinOp::Sub, true),
        MulAssign(_) => (BinOp::Mul, true),
        DivAssign(_) => (BinOp::Div, true),
        RemAssign(_) => (BinOp::Rem, true),
        BitXorAssign(_) => (BinOp::BitXor, true),
        BitAndAssign(_) => (BinOp::BitAnd, true),
        BitOrAssign(_) => (BinOp::BitOr, true),
        ShlAssign(_) => (BinOp::Shl, true),
        ShrAssign(_) => (BinOp::Shr, true),
        _ => return None,
    })
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
