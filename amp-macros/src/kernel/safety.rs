//! Which kernels cannot fail once started.
//!
//! A non-tiled kernel whose every container access is at the kernel's own
//! index, with no loop, no local-array indexing and no `#[kernel]` call,
//! cannot go out of bounds (once the runtime has checked that each
//! container's extent is the domain's) and finishes in bounded time, so the
//! CPU accelerator neither snapshots what it writes (to restore it if it
//! fails) nor polls for cancellation while it runs. Conservative: anything
//! else may fail.

use super::ast::*;

/// Whether `k` cannot fail once started (see the module docs).
pub(crate) fn infallible(k: &Kernel) -> bool {
    !k.tiled && block(&k.body)
}

fn block(b: &Block) -> bool {
    b.stmts.iter().all(stmt) && b.tail.as_ref().is_none_or(|t| expr(t))
}

fn stmt(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Let { init, .. } => init.as_ref().is_none_or(expr),
        StmtKind::Assign(p, _, e) => place(p) && expr(e),
        StmtKind::Expr(e) => expr(e),
        StmtKind::If(c, a, b) => expr(c) && block(a) && b.as_ref().is_none_or(block),
        StmtKind::Return(None) | StmtKind::NativeCheck(_) => true,
        StmtKind::While(..)
        | StmtKind::Loop(_)
        | StmtKind::For { .. }
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(Some(_))
        | StmtKind::Barrier(..)
        | StmtKind::TileStatic { .. } => false,
    }
}

/// An index that is the kernel's own index parameter.
fn own_index(idx: &[Expr]) -> bool {
    matches!(
        idx,
        [Expr {
            kind: ExprKind::KernelIndex(_),
            ..
        }]
    )
}

fn place(p: &Place) -> bool {
    match p {
        Place::Local(..) => true,
        Place::Element(_, _, idx) => own_index(idx),
        Place::Field(base, _) => place(base),
        Place::ArrayElement(..) | Place::TileElement(..) => false,
    }
}

fn expr(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(..)
        | ExprKind::Local(..)
        | ExprKind::Capture(..)
        | ExprKind::KernelIndex(_)
        | ExprKind::Extent(..)
        | ExprKind::Const(_) => true,
        ExprKind::Binary(_, a, b) => expr(a) && expr(b),
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x, _)
        | ExprKind::Field(x, _)
        | ExprKind::Swizzle(x, _) => expr(x),
        ExprKind::Repeat(x, _) => expr(x),
        ExprKind::Load(_, _, idx) => own_index(idx),
        // `idx[d]` with a literal `d` (typeck and rustc check its range).
        ExprKind::Element(base, i) => {
            matches!(base.kind, ExprKind::KernelIndex(_))
                && matches!(i.kind, ExprKind::Lit(Lit::Int(..), _))
        }
        ExprKind::MakeIndex(xs, _)
        | ExprKind::Array(xs)
        | ExprKind::Call(_, _, xs)
        | ExprKind::MakeVector(_, _, _, xs)
        | ExprKind::MakeTuple(xs) => xs.iter().all(expr),
        ExprKind::MakeStruct(_, fields) => fields.iter().all(|(_, x)| expr(x)),
        ExprKind::If(c, a, b) => expr(c) && block(a) && block(b),
        ExprKind::Block(b) => block(b),
        // Atomics may index anywhere (a histogram's bins).
        ExprKind::CallFn(..)
        | ExprKind::RefCall(_)
        | ExprKind::RefResult(..)
        | ExprKind::TiledArg(_)
        | ExprKind::AddrOf(_)
        | ExprKind::Tiled(..)
        | ExprKind::TileLoad(..)
        | ExprKind::Atomic(..) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(body: proc_macro2::TokenStream) -> Kernel {
        let input: super::super::parse::Input = syn::parse2(body).expect("parses");
        let mut errors = super::super::parse::Errors::default();
        let k = super::super::parse::parse(input, &mut errors).expect("a kernel");
        assert!(errors.into_result().is_ok());
        k
    }

    #[test]
    fn own_index_accesses_cannot_fail() {
        let k = kernel(quote::quote! {
            e, |i: Index<1>| { y[i] = 2.0 * x[i] + y[i]; }
        });
        assert!(infallible(&k));
        let k = kernel(quote::quote! {
            e, |i: Index<2>| { let r = i[0]; if r > 0 { c[i] = a[i]; } else { c[i] = 0.0; } }
        });
        assert!(infallible(&k));
    }

    #[test]
    fn other_accesses_loops_and_calls_may_fail() {
        for body in [
            quote::quote! { e, |i: Index<1>| { y[i] = x[[i[0] + 1]]; } },
            quote::quote! { e, |i: Index<1>| { for k in 0..4 { y[i] = x[i]; } } },
            quote::quote! { e, |i: Index<1>| { let a = [1.0f32; 4]; y[i] = a[i[0]]; } },
            quote::quote! { e, |i: Index<1>| { y[i] = f(x[i]); } },
            quote::quote! { e, |i: Index<1>| { let mut k = 0; while k < 3 { k += 1; } } },
        ] {
            assert!(!infallible(&kernel(body.clone())), "{body}");
        }
    }
}
