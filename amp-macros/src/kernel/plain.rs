//! Which captures of a non-tiled kernel the CPU accelerator may access
//! with plain memory (amp-core's `kernel::plain`): a capture only read, or
//! read and written only at the work item's own index (`v[idx]`, with the
//! kernel's index parameter, which is injective over the domain).
//!
//! Any other use (an atomic, a field of an element written, a call that
//! takes the container, `reinterpret_as`, `&mut v[i]`) keeps the capture on
//! the atomic path.

use super::ast::*;

/// How the plain form of a kernel accesses one capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    /// Not accessed by index (a scalar, or used only for its extent).
    Unused,
    /// Only read; `own` if some read is at the work item's own index.
    Read { own: bool },
    /// Read and written only at the work item's own index.
    Own,
    /// Anything else: the atomic path.
    Atomic,
}

/// Per capture, its use; `None` if no capture gains from plain memory
/// (the kernel then has no plain form).
pub(crate) fn plan(k: &Kernel) -> Option<Vec<Use>> {
    if k.tiled {
        return None;
    }
    let mut uses = vec![Use::Unused; k.captures.len()];
    block(&k.body, &mut uses);
    uses.iter()
        .any(|u| matches!(u, Use::Read { .. } | Use::Own))
        .then_some(uses)
}

/// Whether `idx` is the kernel's index parameter itself.
fn is_own(idx: &[Expr]) -> bool {
    matches!(
        idx,
        [Expr {
            kind: ExprKind::KernelIndex(_),
            ..
        }]
    )
}

fn set(uses: &mut [Use], c: u32, new: Use) {
    let Some(u) = uses.get_mut(c as usize) else {
        return;
    };
    *u = match (*u, new) {
        (Use::Atomic, _) | (_, Use::Atomic) => Use::Atomic,
        (Use::Unused, n) => n,
        (Use::Read { own: a }, Use::Read { own: b }) => Use::Read { own: a || b },
        // Written at its own index and read there too.
        (Use::Own, Use::Read { own: true }) | (Use::Read { own: true }, Use::Own) => Use::Own,
        (Use::Own, Use::Own) => Use::Own,
        // Written at its own index, read elsewhere: work items race.
        (Use::Own, Use::Read { own: false }) | (Use::Read { own: false }, Use::Own) => Use::Atomic,
        (u, Use::Unused) => u,
    };
}

fn block(b: &Block, uses: &mut [Use]) {
    for st in &b.stmts {
        stmt(st, uses);
    }
    if let Some(t) = &b.tail {
        expr(t, uses);
    }
}

fn stmt(st: &Stmt, uses: &mut [Use]) {
    match &st.kind {
        StmtKind::Let { init, .. } => init.iter().for_each(|e| expr(e, uses)),
        StmtKind::Assign(p, _, e) => {
            expr(e, uses);
            place(p, uses, true);
        }
        StmtKind::Expr(e) => expr(e, uses),
        StmtKind::Return(e) => e.iter().for_each(|e| expr(e, uses)),
        StmtKind::If(c, a, b) => {
            expr(c, uses);
            block(a, uses);
            b.iter().for_each(|b| block(b, uses));
        }
        StmtKind::While(c, b) => {
            expr(c, uses);
            block(b, uses);
        }
        StmtKind::Loop(b) => block(b, uses),
        StmtKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            expr(start, uses);
            expr(end, uses);
            step.iter().for_each(|e| expr(e, uses));
            block(body, uses);
        }
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::NativeCheck(_)
        | StmtKind::Barrier(..)
        | StmtKind::TileStatic { .. } => {}
    }
}

/// A place read (`write` false: the base of a field) or written.
fn place(p: &Place, uses: &mut [Use], write: bool) {
    match p {
        Place::Element(c, _, idx) => {
            idx.iter().for_each(|e| expr(e, uses));
            let u = match (write, is_own(idx)) {
                (true, true) => Use::Own,
                (false, own) => Use::Read { own },
                (true, false) => Use::Atomic,
            };
            set(uses, *c, u);
        }
        Place::ArrayElement(_, _, idx) | Place::TileElement(_, _, idx) => {
            idx.iter().for_each(|e| expr(e, uses))
        }
        // A field of an element written: a read-modify-write of the
        // element through the atomic path.
        Place::Field(base, _) => {
            if let Some(c) = element_root(base) {
                set(uses, c, Use::Atomic);
            }
            place(base, uses, false);
        }
        Place::Local(..) => {}
    }
}

fn element_root(p: &Place) -> Option<u32> {
    match p {
        Place::Element(c, _, _) => Some(*c),
        Place::Field(base, _) => element_root(base),
        _ => None,
    }
}

fn expr(e: &Expr, uses: &mut [Use]) {
    let mut blocks: Vec<&Block> = Vec::new();
    super::split::visit_expr(e, &mut |x| match &x.kind {
        ExprKind::Load(c, _, idx) => set(uses, *c, Use::Read { own: is_own(idx) }),
        // By value: passed to a function, reinterpreted, a scalar.
        ExprKind::Capture(c, _) => set(uses, *c, Use::Atomic),
        ExprKind::Atomic(a) => {
            if let Some(c) = element_root(&a.target) {
                set(uses, c, Use::Atomic);
            }
        }
        ExprKind::AddrOf(p) => {
            if let Some(c) = element_root(p) {
                set(uses, c, Use::Atomic);
            }
        }
        ExprKind::If(_, a, b) => blocks.extend([a, b]),
        ExprKind::Block(b) => blocks.push(b),
        _ => {}
    });
    for b in blocks {
        block(b, uses);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// Each capture's use, by name; `None` without a plain form.
    fn uses(src: proc_macro2::TokenStream) -> Option<Vec<(String, Use)>> {
        let k = crate::kernel::test_support::kernel(src);
        let names: Vec<String> = k.captures.iter().map(|c| c.to_string()).collect();
        let mut v: Vec<(String, Use)> = names.into_iter().zip(plan(&k)?).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        Some(v)
    }

    fn named(list: &[(&str, Use)]) -> Option<Vec<(String, Use)>> {
        Some(list.iter().map(|(n, u)| (n.to_string(), *u)).collect())
    }

    #[test]
    fn own_index_reads_and_writes_are_plain() {
        assert_eq!(
            uses(quote!(e, |i: Index<1>| {
                y[i] = 2.0 * x[i] + y[i];
            })),
            named(&[("x", Use::Read { own: true }), ("y", Use::Own)])
        );
    }

    #[test]
    fn a_neighbour_read_of_a_written_view_is_atomic() {
        assert_eq!(
            uses(quote!(e, |i: Index<1>| {
                y[i] = x[i] + y[i + 1];
            })),
            named(&[("x", Use::Read { own: true }), ("y", Use::Atomic)])
        );
    }

    #[test]
    fn writes_elsewhere_atomics_and_copies_of_the_index_are_atomic() {
        assert_eq!(
            uses(quote!(e, |i: Index<1>| {
                y[0] = x[i];
            })),
            named(&[("x", Use::Read { own: true }), ("y", Use::Atomic)])
        );
        assert_eq!(
            uses(quote!(e, |i: Index<1>| {
                atomic_fetch_add(&y[i], 1);
            })),
            None
        );
        assert_eq!(
            uses(quote!(e, |i: Index<1>| {
                let j = i;
                y[j] = x[j];
            })),
            named(&[("x", Use::Read { own: false }), ("y", Use::Atomic)])
        );
        assert_eq!(
            uses(quote!(e, |i: Index<1>| {
                y[i].x = x[i];
            })),
            named(&[("x", Use::Read { own: true }), ("y", Use::Atomic)])
        );
    }

    #[test]
    fn tiled_kernels_have_no_plain_form() {
        assert_eq!(
            uses(quote!(e.tile::<4>(), |t: TiledIndex<1>| {
                y[t.global] = x[t.global];
            })),
            None
        );
    }
}
