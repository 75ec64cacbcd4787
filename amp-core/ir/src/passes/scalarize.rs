//! Scalar replacement of local arrays.
//!
//! A local array (`let mut acc = [0.0f32; 16];`, nested arrays included)
//! whose every use is an element access with constant, in-range indices,
//! typically after [`super::unroll`], becomes one local per element. GPU
//! compilers keep scalars in registers but put arrays indexed at run time in
//! memory, which costs a register-blocked kernel most of its speed.
//! Arrays used whole (copied, passed to a function, indexed by a value the
//! passes cannot compute) are left alone.

use std::collections::{HashMap, HashSet};

use super::{Fresh, fold, visit};
use crate::ir::*;
use crate::typeck::Types;

/// The largest array (in elements) replaced by scalars.
pub(crate) const MAX_ELEMENTS: u32 = 256;

/// A candidate: its dimensions (outermost first), element type and the
/// locals of its elements (row-major).
struct Split {
    dims: Vec<u32>,
    elem: Type,
    parts: Vec<LocalId>,
}

/// Replaces the arrays of `b` that qualify by scalars.
pub(crate) fn block(b: &mut Block, types: &mut Types, fresh: &mut Fresh) {
    let mut splits = candidates(b, types);
    if splits.is_empty() {
        return;
    }
    // Every mention of a candidate must be a full element access with
    // constant indices (or its `let`).
    let mut seen: HashMap<LocalId, usize> = HashMap::new();
    let mut good: HashMap<LocalId, usize> = HashMap::new();
    let mut bad: HashSet<LocalId> = HashSet::new();
    {
        let mut copy = b.clone();
        visit::exprs_mut(&mut copy, &mut |e| {
            if let ExprKind::Local(l) = e.kind {
                *seen.entry(l).or_default() += 1;
            }
            if let Some((l, _)) = element(e, &splits) {
                *good.entry(l).or_default() += 1;
            }
        });
        visit::walk_stmts(b, &mut |s| {
            if let StmtKind::Assign(p, _, _) = &s.kind {
                check_place(p, &splits, &mut bad);
            }
            if let StmtKind::Let {
                local,
                init: Some(e),
                ..
            } = &s.kind
                && splits.contains_key(local)
                && flatten(e, &splits[local].dims).is_none()
            {
                bad.insert(*local);
            }
        });
    }
    splits.retain(|l, _| {
        !bad.contains(l) && seen.get(l).copied().unwrap_or(0) == good.get(l).copied().unwrap_or(0)
    });
    if splits.is_empty() {
        return;
    }
    for split in splits.values_mut() {
        let n: u32 = split.dims.iter().product();
        split.parts = (0..n)
            .map(|_| {
                let id = fresh.next();
                types.locals.insert(id, split.elem.clone());
                id
            })
            .collect();
    }
    visit::exprs_mut(b, &mut |e| {
        if let Some((l, flat)) = element(e, &splits) {
            e.kind = ExprKind::Local(splits[&l].parts[flat]);
        }
    });
    rewrite(b, &splits);
}

/// The local arrays declared by `let` at statement level (in statement
/// blocks only, each declared by one `let`), small enough to split.
fn candidates(b: &Block, types: &Types) -> HashMap<LocalId, Split> {
    let mut lets: HashMap<LocalId, usize> = HashMap::new();
    visit::walk_stmts(b, &mut |s| {
        if let StmtKind::Let { local, .. } = &s.kind {
            *lets.entry(*local).or_default() += 1;
        }
    });
    // An array whose element (or whole) a `&mut` argument points into
    // stays in memory: the function writes it through the pointer.
    let escaping = visit::address_taken(b);
    let mut out = HashMap::new();
    statement_lets(b, &mut |local| {
        if lets.get(&local) != Some(&1) || escaping.contains(&local) {
            return;
        }
        let Some(mut t) = types.locals.get(&local) else {
            return;
        };
        let mut dims = Vec::new();
        while let Type::Array(elem, n) = t {
            dims.push(*n);
            t = elem;
        }
        let n: u64 = dims.iter().map(|&d| u64::from(d)).product();
        if dims.is_empty() || n == 0 || n > u64::from(MAX_ELEMENTS) {
            return;
        }
        out.insert(
            local,
            Split {
                dims,
                elem: t.clone(),
                parts: Vec::new(),
            },
        );
    });
    out
}

fn statement_lets(b: &Block, f: &mut dyn FnMut(LocalId)) {
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Let { local, .. } => f(*local),
            StmtKind::If(_, a, e) => {
                statement_lets(a, f);
                if let Some(e) = e {
                    statement_lets(e, f);
                }
            }
            StmtKind::While(_, body) | StmtKind::Loop(body) | StmtKind::For { body, .. } => {
                statement_lets(body, f);
            }
            _ => {}
        }
    }
}

/// The constant index of `e` in `0..n`.
fn index_in(e: &Expr, n: u32) -> Option<usize> {
    let (v, _) = fold::int(e)?;
    (0..i64::from(n)).contains(&v).then_some(v as usize)
}

/// If `e` is a full element access `a[i][j]..` of a candidate with constant
/// indices in range: the candidate and the element's row-major position.
fn element(e: &Expr, splits: &HashMap<LocalId, Split>) -> Option<(LocalId, usize)> {
    let mut idx = Vec::new();
    let mut cur = e;
    while let ExprKind::ArrayElement(a, i) = &cur.kind {
        idx.push(&**i);
        cur = a;
    }
    let ExprKind::Local(l) = cur.kind else {
        return None;
    };
    let split = splits.get(&l)?;
    idx.reverse();
    flat_index(&idx, &split.dims).map(|f| (l, f))
}

fn flat_index(idx: &[&Expr], dims: &[u32]) -> Option<usize> {
    if idx.len() != dims.len() {
        return None;
    }
    let mut flat = 0;
    for (i, &d) in idx.iter().zip(dims) {
        flat = flat * d as usize + index_in(i, d)?;
    }
    Some(flat)
}

fn check_place(p: &Place, splits: &HashMap<LocalId, Split>, bad: &mut HashSet<LocalId>) {
    match p {
        Place::Local(l) => {
            bad.insert(*l);
        }
        Place::ArrayElement(l, idx) => {
            if let Some(split) = splits.get(l) {
                let idx: Vec<&Expr> = idx.iter().collect();
                if flat_index(&idx, &split.dims).is_none() {
                    bad.insert(*l);
                }
            }
        }
        Place::Field(base, _) => check_place(base, splits, bad),
        Place::Element(..) | Place::TileElement(..) => {}
    }
}

/// The elements of an array initialiser, row-major, if it is written
/// element by element (`[a, b]`, `[v; n]`, nested).
fn flatten(e: &Expr, dims: &[u32]) -> Option<Vec<Expr>> {
    let (&n, rest) = dims.split_first()?;
    let rows: Vec<&Expr> = match &e.kind {
        ExprKind::MakeArray(items) if items.len() == n as usize => items.iter().collect(),
        ExprKind::RepeatArray(v, m) if *m == n => vec![&**v; n as usize],
        _ => return None,
    };
    if rest.is_empty() {
        return Some(rows.into_iter().cloned().collect());
    }
    let mut out = Vec::new();
    for r in rows {
        out.extend(flatten(r, rest)?);
    }
    Some(out)
}

fn rewrite_place(p: &mut Place, splits: &HashMap<LocalId, Split>) {
    match p {
        Place::ArrayElement(l, idx) => {
            if let Some(split) = splits.get(l) {
                let refs: Vec<&Expr> = idx.iter().collect();
                if let Some(flat) = flat_index(&refs, &split.dims) {
                    *p = Place::Local(split.parts[flat]);
                }
            }
        }
        Place::Field(base, _) => rewrite_place(base, splits),
        _ => {}
    }
}

/// Replaces the candidates' `let`s by one `let` per element and their
/// element places by the element locals.
fn rewrite(b: &mut Block, splits: &HashMap<LocalId, Split>) {
    let mut out = Vec::with_capacity(b.stmts.len());
    for mut s in std::mem::take(&mut b.stmts) {
        fold::for_each_block(&mut s, &mut |inner| rewrite(inner, splits));
        // Blocks inside expressions (`let x = { a[0] = 1.0; a[0] };`).
        visit::stmt_exprs_mut(&mut s, &mut |e| match &mut e.kind {
            ExprKind::If(_, x, y) => {
                rewrite(x, splits);
                rewrite(y, splits);
            }
            ExprKind::Block(x) => rewrite(x, splits),
            _ => {}
        });
        match &mut s.kind {
            StmtKind::Assign(p, _, _) => rewrite_place(p, splits),
            StmtKind::Let {
                local, name, init, ..
            } if splits.contains_key(local) => {
                let split = &splits[local];
                let values = match init {
                    Some(e) => flatten(e, &split.dims)
                        .expect("checked")
                        .into_iter()
                        .map(Some)
                        .collect(),
                    None => vec![None; split.parts.len()],
                };
                for (part, init) in split.parts.iter().zip(values) {
                    out.push(Stmt::new(
                        StmtKind::Let {
                            local: *part,
                            name,
                            ty: None,
                            init,
                        },
                        s.span,
                    ));
                }
                continue;
            }
            _ => {}
        }
        out.push(s);
    }
    b.stmts = out;
}
