//! Tiles: `tile_static!` declarations (memory shared by the work items of a
//! tile), the fields of the tiled index (`t.global`, `t.local`, ...) and
//! tile barriers (`t.barrier.wait()`). Parse resolves them into the AST
//! (`StmtKind::TileStatic`, `ExprKind::Tiled`, `StmtKind::Barrier`); check
//! requires barriers to be uniform, and expand lowers them.

use proc_macro2::Ident;
use syn::spanned::Spanned;

use super::super::ast::*;
use super::{Binding, Resolver, strip_parens};

impl Resolver<'_> {
    /// Whether `e` is the tiled index parameter itself.
    pub(super) fn is_tiled_param(&self, e: &syn::Expr) -> bool {
        match strip_parens(e) {
            syn::Expr::Path(p) => self
                .path_ident(p)
                .is_some_and(|n| matches!(self.lookup(&n.to_string()), Some(Binding::Tiled))),
            _ => false,
        }
    }

    /// `t.global` (and the other index fields) of the tiled index.
    pub(super) fn tiled_field(&self, e: &syn::Expr) -> Option<(TiledField, Ident)> {
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
            "global" => TiledField::Global,
            "local" => TiledField::Local,
            "tile" => TiledField::Tile,
            "tile_origin" => TiledField::TileOrigin,
            "tile_extent" => TiledField::TileExtent,
            _ => return None,
        };
        let syn::Expr::Path(p) = strip_parens(&f.base) else {
            return None;
        };
        Some((field, self.path_ident(p)?))
    }

    /// `t.barrier.wait()` and the other barriers: their kind.
    pub(super) fn barrier_call(&self, m: &syn::ExprMethodCall) -> Option<BarrierKind> {
        let syn::Expr::Field(f) = strip_parens(&m.receiver) else {
            return None;
        };
        if !self.is_tiled_param(&f.base)
            || !matches!(&f.member, syn::Member::Named(n) if n == "barrier")
        {
            return None;
        }
        Some(match m.method.to_string().as_str() {
            "wait" => BarrierKind::Wait,
            "wait_with_all_memory_fence" => BarrierKind::AllMemory,
            "wait_with_global_memory_fence" => BarrierKind::GlobalMemory,
            "wait_with_tile_static_memory_fence" => BarrierKind::TileStaticMemory,
            _ => return None,
        })
    }

    /// `tile_static! { let a: [[f32; TS]; TS]; .. }`: arrays of scalars
    /// shared by the work items of a tile.
    pub(super) fn tile_static(&mut self, mac: &syn::Macro) -> Vec<Stmt> {
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
}
