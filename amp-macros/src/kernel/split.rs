//! The split native form of a tiled kernel: barriers compiled away.
//!
//! On the CPU accelerator one thread runs every work item of a tile. The
//! body is cut at its barriers into *regions*; each region becomes a loop
//! over the tile's work items, so that all of them finish a region before
//! any starts the next: exactly what a barrier guarantees. Control flow that
//! contains barriers is uniform (the check stage proved it), so it runs once
//! per tile, around the regions' loops, with the values of work item 0.
//! This is the "work-item loop" technique of pocl and AdaptiveCpp.
//!
//! - A local declared in one region and used in another (or in a uniform
//!   condition) lives in [`Slots`](amp_core::__private::kernel::Slots), one
//!   value per work item: each region reads the values it uses at the start
//!   of a work item and writes back those it declares or assigns.
//! - `tile_static` arrays are plain memory of the batch of tiles.
//! - In a region, `break`/`continue` of a loop that contains barriers, and
//!   `return`, leave the work-item loop (after writing back) and set a flag
//!   that the uniform code after the loop acts on.
//!
//! [`split`] returns `None` for what this form does not cover; the kernel
//! then runs in the threaded form (a thread per work item). Not covered: a
//! barrier inside an expression (a block or `if` used as a value, a lowered
//! `match`); a block tail expression next to barriers; a local used across
//! a barrier whose name is also declared elsewhere in the kernel, or
//! declared without a value.

use std::collections::{BTreeSet, HashMap, HashSet};

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::ast::*;
use super::expand::{Cx, Exits, native_expr, native_stmt};

/// The body of the split native closure of `k` (which is tiled), or `None`
/// if the kernel needs the threaded form.
pub(crate) fn split(k: &Kernel) -> Result<TokenStream, &'static str> {
    // Locals that share a name (`let v` declared again after a barrier, a
    // name reused in two loops) get names of their own first: the regions
    // restore and store slotted locals by name.
    let renamed = rename_shared_names(&k.body);
    let body = renamed.as_ref().unwrap_or(&k.body);
    let nodes = nodes(body)?;
    let mut info = Info::default();
    info.scan(&nodes);
    info.decide()?;
    let mut g = Gen {
        info: &info,
        index: &k.index,
        rank: k.rank as usize,
        next_region: 0,
    };
    let body = g.nodes(&nodes, Pos::kernel_tail());
    let slots = info.slotted.iter().map(|id| {
        let s = slot(*id);
        quote! {
            let mut #s = ::amp_core::__private::kernel::Slots::new(__amp_batch.members());
        }
    });
    let tiles = info.tile_statics.iter().map(|(id, elem, dims)| {
        let arr = tile_array(*id);
        let d = dims.len();
        let f = quote!(::amp_core::__private::kernel::ops::cast);
        quote! {
            let #arr = ::amp_core::__private::kernel::LocalTile::<#elem, #d>::new(
                [#(#f::<usize, _>(#dims)),*],
            );
        }
    });
    let poll = quote!(::amp_core::__private::kernel::poll);
    let index = &k.index;
    let origin = vec![quote!(0i32); k.rank as usize];
    Ok(quote! {
        #(#slots)*
        #(#tiles)*
        '__amp_tile: for __amp_tile in __amp_batch.tiles() {
            #poll();
            // The uniform code's view of the tiled index: work item 0's.
            #[allow(unused_variables)]
            let #index = __amp_tile.item([#(#origin),*]);
            #body
        }
    })
}

/// A statement list after cutting at barriers.
enum Node<'a> {
    /// Statements without barriers, run by every work item in turn.
    Region(Vec<&'a Stmt>),
    /// Uniform control flow around regions.
    If(&'a Expr, Vec<Node<'a>>, Option<Vec<Node<'a>>>),
    While(&'a Expr, Vec<Node<'a>>),
    Loop(Vec<Node<'a>>),
    For(&'a Stmt, Vec<Node<'a>>),
}

/// Why a kernel whose barrier sits inside an expression keeps the threaded
/// form.
const IN_EXPRESSION: &str = "a barrier is inside an expression (an `if` or block used as a value, a loop condition or bound, a `let` value): only barriers in statements (also inside `if`, `while`, `loop` and `for` statements) are split; write `while c { .. }` with the barrier in its body rather than in a block that computes `c`";

/// Why a kernel that passes the tiled index to a function keeps the
/// threaded form.
const TILED_CALL: &str = "it passes the tiled index to a `#[kernel]` function, which may wait on the barrier inside (the split form cuts only the kernel's own body at its barriers)";

/// The reason `e`, which reaches a barrier, keeps the threaded form.
fn expression_reason(e: &Expr) -> &'static str {
    let mut call = false;
    visit_expr(e, &mut |x| call |= matches!(x.kind, ExprKind::TiledArg(_)));
    if call { TILED_CALL } else { IN_EXPRESSION }
}

/// Why a kernel whose body ends in a value keeps the threaded form.
const TAIL_VALUE: &str = "a block with barriers ends in a value";

fn nodes(b: &Block) -> Result<Vec<Node<'_>>, &'static str> {
    if let Some(t) = b.tail.as_ref().filter(|t| expr_has_barrier(t)) {
        return Err(expression_reason(t));
    }
    if b.tail.is_some() && b.stmts.iter().any(stmt_has_barrier) {
        return Err(TAIL_VALUE);
    }
    let mut out = Vec::new();
    let mut run: Vec<&Stmt> = Vec::new();
    for s in &b.stmts {
        if !stmt_has_barrier(s) {
            run.push(s);
            continue;
        }
        flush(&mut run, &mut out);
        match &s.kind {
            StmtKind::Barrier(..) => {}
            StmtKind::If(c, a, e) => {
                if expr_has_barrier(c) {
                    return Err(expression_reason(c));
                }
                let e = match e {
                    Some(e) => Some(nodes(e)?),
                    None => None,
                };
                out.push(Node::If(c, nodes(a)?, e));
            }
            StmtKind::While(c, body) => {
                if expr_has_barrier(c) {
                    return Err(expression_reason(c));
                }
                out.push(Node::While(c, nodes(body)?));
            }
            StmtKind::Loop(body) => out.push(Node::Loop(nodes(body)?)),
            StmtKind::For {
                start,
                end,
                step,
                body,
                ..
            } => {
                if expr_has_barrier(start)
                    || expr_has_barrier(end)
                    || step.as_ref().is_some_and(expr_has_barrier)
                {
                    return Err(IN_EXPRESSION);
                }
                out.push(Node::For(s, nodes(body)?));
            }
            // A barrier inside an expression statement, a `let` value or an
            // assignment.
            StmtKind::Expr(e) | StmtKind::Let { init: Some(e), .. } | StmtKind::Assign(_, _, e)
                if expr_has_barrier(e) =>
            {
                return Err(expression_reason(e));
            }
            _ => return Err(IN_EXPRESSION),
        }
    }
    if b.tail.is_some() {
        // A value at the end of the kernel or of a loop body (rare: they
        // are `()`).
        return Err(TAIL_VALUE);
    }
    flush(&mut run, &mut out);
    Ok(out)
}

/// Ends the current run of statements without barriers: a region.
fn flush<'a>(run: &mut Vec<&'a Stmt>, out: &mut Vec<Node<'a>>) {
    if !run.is_empty() {
        out.push(Node::Region(std::mem::take(run)));
    }
}

fn stmt_has_barrier(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Barrier(..) => true,
        StmtKind::Let { init, .. } => init.as_ref().is_some_and(expr_has_barrier),
        StmtKind::Assign(p, _, e) => place_has_barrier(p) || expr_has_barrier(e),
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr_has_barrier(e),
        StmtKind::If(c, a, b) => {
            expr_has_barrier(c) || block_has_barrier(a) || b.as_ref().is_some_and(block_has_barrier)
        }
        StmtKind::While(c, b) => expr_has_barrier(c) || block_has_barrier(b),
        StmtKind::Loop(b) => block_has_barrier(b),
        StmtKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            expr_has_barrier(start)
                || expr_has_barrier(end)
                || step.as_ref().is_some_and(expr_has_barrier)
                || block_has_barrier(body)
        }
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(None)
        | StmtKind::NativeCheck(_)
        | StmtKind::TileStatic { .. } => false,
    }
}

fn block_has_barrier(b: &Block) -> bool {
    b.stmts.iter().any(stmt_has_barrier) || b.tail.as_ref().is_some_and(|t| expr_has_barrier(t))
}

fn place_has_barrier(p: &Place) -> bool {
    match p {
        Place::Local(..) => false,
        Place::Element(_, _, idx)
        | Place::ArrayElement(_, _, idx)
        | Place::TileElement(_, _, idx) => idx.iter().any(expr_has_barrier),
        Place::Field(base, _) => place_has_barrier(base),
    }
}

fn expr_has_barrier(e: &Expr) -> bool {
    let mut found = false;
    visit_expr(e, &mut |x| {
        // A call that passes the tiled index may wait on the barrier
        // inside: such kernels keep a thread per work item.
        if let ExprKind::TiledArg(_) = &x.kind {
            found = true;
        }
        if let ExprKind::If(_, a, b) = &x.kind {
            found |= block_has_barrier(a) || block_has_barrier(b);
        }
        if let ExprKind::Block(b) = &x.kind {
            found |= block_has_barrier(b);
        }
    });
    found
}

/// Calls `f` on `e` and every expression inside it (not inside blocks'
/// statements: those are statements).
pub(super) fn visit_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Lit(..)
        | ExprKind::Local(..)
        | ExprKind::Capture(..)
        | ExprKind::KernelIndex(_)
        | ExprKind::Const(_)
        | ExprKind::Extent(..)
        | ExprKind::TiledArg(_)
        | ExprKind::RefResult(..)
        | ExprKind::Tiled(..) => {}
        ExprKind::RefCall(x) => visit_expr(x, f),
        ExprKind::Binary(_, a, b) | ExprKind::Element(a, b) => {
            visit_expr(a, f);
            visit_expr(b, f);
        }
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x, _)
        | ExprKind::Field(x, _)
        | ExprKind::Swizzle(x, _) => visit_expr(x, f),
        ExprKind::Repeat(x, _) => visit_expr(x, f),
        ExprKind::Load(_, _, xs)
        | ExprKind::TileLoad(_, _, xs, _, _)
        | ExprKind::MakeIndex(xs, _)
        | ExprKind::Array(xs)
        | ExprKind::Call(_, _, xs)
        | ExprKind::CallFn(_, xs)
        | ExprKind::MakeVector(_, _, _, xs)
        | ExprKind::MakeTuple(xs) => xs.iter().for_each(|x| visit_expr(x, f)),
        ExprKind::MakeStruct(_, fields) => fields.iter().for_each(|(_, x)| visit_expr(x, f)),
        ExprKind::Atomic(a) => {
            if let Place::Element(_, _, idx) | Place::TileElement(_, _, idx) = &a.target {
                idx.iter().for_each(|x| visit_expr(x, f));
            }
            a.args.iter().for_each(|x| visit_expr(x, f));
        }
        ExprKind::AddrOf(p) => {
            if let Place::ArrayElement(_, _, idx) = &**p {
                idx.iter().for_each(|x| visit_expr(x, f));
            }
        }
        ExprKind::If(c, _, _) => visit_expr(c, f),
        ExprKind::Block(_) => {}
    }
}

/// What the locals of a kernel do, region by region.
#[derive(Default)]
struct Info {
    /// Per region: locals it uses (reads or writes), locals it assigns,
    /// locals its own statement list declares, names declared at any depth.
    regions: Vec<RegionUse>,
    /// Locals used by uniform expressions, with their names.
    uniform_uses: HashSet<u32>,
    /// Every declaration: local -> (name, declared with a value, region).
    decls: HashMap<u32, Decl>,
    /// Locals kept per work item across regions.
    slotted: BTreeSet<u32>,
    /// `tile_static` arrays: local, element type, dimensions.
    tile_statics: Vec<(u32, syn::Type, Vec<syn::Expr>)>,
    /// Names, by local (for the conflict rule).
    names: HashMap<u32, String>,
}

#[derive(Default)]
struct RegionUse {
    uses: BTreeSet<u32>,
    /// `tile_static` arrays it reads or writes.
    tiles: BTreeSet<u32>,
    assigns: BTreeSet<u32>,
    declares: BTreeSet<u32>,
}

struct Decl {
    has_value: bool,
    /// The region whose own statement list declares it (None: a tile-level
    /// `for` variable, or a local nested in a region's blocks).
    region: Option<usize>,
}

impl Info {
    fn scan(&mut self, nodes: &[Node<'_>]) {
        for n in nodes {
            match n {
                Node::Region(stmts) => {
                    let r = self.regions.len();
                    let mut u = RegionUse::default();
                    for s in stmts {
                        if let StmtKind::Let {
                            local, name, init, ..
                        } = &s.kind
                        {
                            u.declares.insert(*local);
                            self.decls.insert(
                                *local,
                                Decl {
                                    has_value: init.is_some(),
                                    region: Some(r),
                                },
                            );
                            self.names.insert(*local, name.to_string());
                        }
                        self.stmt(s, &mut u);
                    }
                    self.regions.push(u);
                }
                Node::If(c, a, b) => {
                    self.uniform(c);
                    self.scan(a);
                    if let Some(b) = b {
                        self.scan(b);
                    }
                }
                Node::While(c, body) => {
                    self.uniform(c);
                    self.scan(body);
                }
                Node::Loop(body) => self.scan(body),
                Node::For(s, body) => {
                    if let StmtKind::For {
                        var,
                        name,
                        start,
                        end,
                        step,
                        ..
                    } = &s.kind
                    {
                        self.names.insert(*var, name.to_string());
                        self.decls.insert(
                            *var,
                            Decl {
                                has_value: true,
                                region: None,
                            },
                        );
                        self.uniform(start);
                        self.uniform(end);
                        if let Some(st) = step {
                            self.uniform(st);
                        }
                    }
                    self.scan(body);
                }
            }
        }
    }

    fn uniform(&mut self, e: &Expr) {
        let mut u = RegionUse::default();
        self.expr(e, &mut u);
        self.uniform_uses.extend(u.uses);
    }

    fn block(&mut self, b: &Block, u: &mut RegionUse) {
        for s in &b.stmts {
            self.stmt(s, u);
        }
        if let Some(t) = &b.tail {
            self.expr(t, u);
        }
    }

    fn stmt(&mut self, s: &Stmt, u: &mut RegionUse) {
        match &s.kind {
            StmtKind::Let {
                local, name, init, ..
            } => {
                self.names.entry(*local).or_insert_with(|| name.to_string());
                if let Some(e) = init {
                    self.expr(e, u);
                }
            }
            StmtKind::Assign(p, _, e) => {
                self.place(p, u);
                self.expr(e, u);
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e, u),
            StmtKind::If(c, a, b) => {
                self.expr(c, u);
                self.block(a, u);
                if let Some(b) = b {
                    self.block(b, u);
                }
            }
            StmtKind::While(c, b) => {
                self.expr(c, u);
                self.block(b, u);
            }
            StmtKind::Loop(b) => self.block(b, u),
            StmtKind::For {
                var,
                name,
                start,
                end,
                step,
                body,
                ..
            } => {
                self.names.entry(*var).or_insert_with(|| name.to_string());
                self.expr(start, u);
                self.expr(end, u);
                if let Some(st) = step {
                    self.expr(st, u);
                }
                self.block(body, u);
            }
            StmtKind::TileStatic {
                local,
                name,
                elem,
                dims,
                ..
            } => {
                self.names.insert(*local, name.to_string());
                self.tile_statics.push((*local, elem.clone(), dims.clone()));
            }
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(None)
            | StmtKind::NativeCheck(_)
            | StmtKind::Barrier(..) => {}
        }
    }

    fn place(&mut self, p: &Place, u: &mut RegionUse) {
        match p {
            Place::Local(id, _) => {
                u.uses.insert(*id);
                u.assigns.insert(*id);
            }
            Place::ArrayElement(id, _, idx) => {
                u.uses.insert(*id);
                u.assigns.insert(*id);
                idx.iter().for_each(|e| self.expr(e, u));
            }
            Place::Element(_, _, idx) => idx.iter().for_each(|e| self.expr(e, u)),
            Place::TileElement(id, _, idx) => {
                u.tiles.insert(*id);
                idx.iter().for_each(|e| self.expr(e, u));
            }
            Place::Field(base, _) => self.place(base, u),
        }
    }

    fn expr(&mut self, e: &Expr, u: &mut RegionUse) {
        let mut blocks: Vec<&Block> = Vec::new();
        let mut places: Vec<&Place> = Vec::new();
        visit_expr(e, &mut |x| match &x.kind {
            // `&mut local` passed to a `#[kernel]` function: the function
            // reads and writes the local.
            ExprKind::AddrOf(p) => places.push(p),
            ExprKind::Local(id, _) => {
                u.uses.insert(*id);
            }
            ExprKind::TileLoad(id, ..) => {
                u.tiles.insert(*id);
            }
            ExprKind::Atomic(a) => {
                if let Place::TileElement(id, _, _) = &a.target {
                    u.tiles.insert(*id);
                }
                // `atomic_compare_exchange` writes `expected`.
                if let Some((id, ..)) = &a.expected {
                    u.uses.insert(*id);
                    u.assigns.insert(*id);
                }
            }
            ExprKind::If(_, a, b) => {
                blocks.push(a);
                blocks.push(b);
            }
            ExprKind::Block(b) => blocks.push(b),
            _ => {}
        });
        for p in places {
            self.place(p, u);
        }
        for b in blocks {
            self.block(b, u);
        }
    }

    /// Chooses the slotted locals; an error (why) if the kernel needs the
    /// threaded form.
    fn decide(&mut self) -> Result<(), &'static str> {
        let mut used_in: HashMap<u32, BTreeSet<Option<usize>>> = HashMap::new();
        for (r, u) in self.regions.iter().enumerate() {
            for id in &u.uses {
                used_in.entry(*id).or_default().insert(Some(r));
            }
        }
        for id in &self.uniform_uses {
            used_in.entry(*id).or_default().insert(None);
        }
        for (id, places) in &used_in {
            let Some(decl) = self.decls.get(id) else {
                continue;
            };
            let Some(home) = decl.region else { continue };
            if places.iter().any(|p| *p != Some(home)) {
                if !decl.has_value {
                    return Err(
                        "a local declared without a value (`let x;`) is used on both sides of a barrier: give it a value where it is declared",
                    );
                }
                self.slotted.insert(*id);
            }
        }
        // A slotted local is restored under its own name, and a
        // `tile_static` array bound under its own, in every region that
        // uses them: no other local of the kernel may have that name.
        let tiles = self.tile_statics.iter().map(|(id, ..)| id);
        for id in self.slotted.iter().chain(tiles) {
            let name = &self.names[id];
            if self.names.iter().any(|(other, n)| other != id && n == name) {
                return Err(
                    "a local used on both sides of a barrier, or a `tile_static` array, shares its name with another local",
                );
            }
        }
        Ok(())
    }
}

fn slot(id: u32) -> Ident {
    format_ident!("__amp_slot{}", id)
}

fn tile_array(id: u32) -> Ident {
    format_ident!("__amp_tile_static_{}", id)
}

/// Where a node list sits: whether nothing follows it up to the end of the
/// innermost loop body that contains barriers (then a `continue` in its
/// region may simply end the work item's turn), and up to the end of the
/// kernel (the same for `return`).
#[derive(Clone, Copy)]
struct Pos {
    loop_tail: bool,
    kernel_tail: bool,
    in_loop: bool,
}

impl Pos {
    fn kernel_tail() -> Pos {
        Pos {
            loop_tail: false,
            kernel_tail: true,
            in_loop: false,
        }
    }
}

struct Gen<'a> {
    info: &'a Info,
    index: &'a Ident,
    rank: usize,
    /// Regions generated so far: they are generated in the order
    /// [`Info::scan`] numbered them.
    next_region: usize,
}

impl Gen<'_> {
    fn nodes(&mut self, nodes: &[Node<'_>], pos: Pos) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, n) in nodes.iter().enumerate() {
            let last = i + 1 == nodes.len();
            let pos = Pos {
                loop_tail: pos.loop_tail && last,
                kernel_tail: pos.kernel_tail && last,
                in_loop: pos.in_loop,
            };
            out.extend(self.node(n, pos));
        }
        out
    }

    /// The position of a loop body's nodes.
    fn loop_pos() -> Pos {
        Pos {
            loop_tail: true,
            kernel_tail: false,
            in_loop: true,
        }
    }

    /// Uniform code for `e`: the slotted locals it uses, as work item 0 has
    /// them.
    fn uniform(&self, e: &Expr) -> TokenStream {
        let mut u = RegionUse::default();
        let mut scratch = Info::default();
        scratch.expr(e, &mut u);
        let restores = u
            .uses
            .iter()
            .filter(|id| self.info.slotted.contains(id))
            .map(|id| {
                let (s, name) = (slot(*id), format_ident!("{}", self.info.names[id]));
                quote! { #[allow(unused_variables)] let #name = #s.get(0); }
            });
        // The `tile_static` variables it reads (a uniform load: the same
        // for every work item), bound as in a region.
        let tiles = u.tiles.iter().map(|id| {
            let (arr, n) = (tile_array(*id), format_ident!("{}", self.info.names[id]));
            quote! { let #n = &#arr; }
        });
        let e = native_expr(Cx::default(), e);
        quote!({ #(#restores)* #(#tiles)* #e })
    }

    fn node(&mut self, n: &Node<'_>, pos: Pos) -> TokenStream {
        match n {
            Node::Region(stmts) => self.region(stmts, pos),
            Node::If(c, a, b) => {
                let c = self.uniform(c);
                let a = self.nodes(a, pos);
                let b = b.as_ref().map(|b| {
                    let b = self.nodes(b, pos);
                    quote!(else { #b })
                });
                quote! { if #c { #a } #b }
            }
            Node::While(c, body) => {
                let c = self.uniform(c);
                let body = self.nodes(body, Self::loop_pos());
                let poll = quote!(::amp_core::__private::kernel::poll);
                quote! { while #c { #poll(); #body } }
            }
            Node::Loop(body) => {
                let body = self.nodes(body, Self::loop_pos());
                let poll = quote!(::amp_core::__private::kernel::poll);
                quote! { loop { #poll(); #body } }
            }
            Node::For(s, body) => {
                let body = self.nodes(body, Self::loop_pos());
                let StmtKind::For {
                    name,
                    start,
                    end,
                    inclusive,
                    step,
                    reverse,
                    ..
                } = &s.kind
                else {
                    unreachable!("a For node holds a for statement")
                };
                let (start, end) = (self.uniform(start), self.uniform(end));
                let poll = quote!(::amp_core::__private::kernel::poll);
                if *reverse {
                    let step = step.as_ref().map(|st| self.uniform(st));
                    let iter = super::expand::native_rev_range(start, end, *inclusive, step);
                    return quote! { for #name in #iter { #poll(); #body } };
                }
                let range = if *inclusive {
                    quote!((#start..=#end))
                } else {
                    quote!((#start..#end))
                };
                let f = quote!(::amp_core::__private::kernel::ops::cast);
                let iter = match step {
                    Some(st) => {
                        let st = self.uniform(st);
                        quote!({
                            let __amp_range = #range;
                            let __amp_step = #f::<usize, _>(#st);
                            __amp_range
                                .step_by(__amp_step.max(1))
                                .take(if __amp_step == 0 { 0 } else { usize::MAX })
                        })
                    }
                    None => range,
                };
                quote! { for #name in #iter { #poll(); #body } }
            }
        }
    }

    /// A region: every work item of the tile runs `stmts` in turn.
    fn region(&mut self, stmts: &[&Stmt], pos: Pos) -> TokenStream {
        let r = self.next_region;
        self.next_region += 1;
        let u = &self.info.regions[r];
        let slotted = &self.info.slotted;
        let name = |id: &u32| format_ident!("{}", self.info.names[id]);
        let restores: Vec<TokenStream> = u
            .uses
            .iter()
            .filter(|id| slotted.contains(id) && !u.declares.contains(id))
            .map(|id| {
                let (s, n) = (slot(*id), name(id));
                quote! {
                    #[allow(unused_variables, unused_mut, unused_assignments)]
                    let mut #n = #s.get(__amp_wi);
                }
            })
            .collect();
        let stores: Vec<TokenStream> = u
            .declares
            .iter()
            .chain(u.assigns.iter())
            .filter(|id| slotted.contains(id))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|id| {
                let (s, n) = (slot(*id), name(id));
                quote! { #s.put(__amp_wi, #n); }
            })
            .collect();
        // Exits: the work item's turn ends; flags tell the uniform code.
        // What the region declares is out of scope or unused after an exit
        // (the rest of the loop body or of the kernel does not run): only
        // the outer locals it assigned are written back.
        let exit_stores: Vec<TokenStream> = u
            .assigns
            .iter()
            .filter(|id| slotted.contains(id) && !u.declares.contains(id))
            .map(|id| {
                let (s, n) = (slot(*id), name(id));
                quote! { #s.put(__amp_wi, #n); }
            })
            .collect();
        let flag = format_ident!("__amp_exit{}", r);
        let leave = |code: u8| quote!({ #(#exit_stores)* #flag = #code; continue '__amp_wi; });
        let done = quote!({ #(#exit_stores)* continue '__amp_wi; });
        let exits = Exits {
            brk: leave(1),
            cont: if pos.loop_tail {
                done.clone()
            } else {
                leave(2)
            },
            ret: if pos.kernel_tail { done } else { leave(3) },
        };
        let cx = Cx {
            exits: Some(&exits),
            plain: None,
        };
        // `tile_static` declarations are hoisted to the batch; each region
        // binds the arrays it uses.
        let tiles = u.tiles.iter().map(|id| {
            let (arr, n) = (tile_array(*id), name(id));
            quote! { let #n = &#arr; }
        });
        let body: Vec<TokenStream> = stmts
            .iter()
            .filter(|s| !matches!(s.kind, StmtKind::TileStatic { .. }))
            .map(|s| native_stmt(cx, s))
            .collect();
        let uses_exits = stmts.iter().any(|s| stmt_exits(s));
        let after = if uses_exits {
            let cont = if pos.in_loop {
                quote! { if #flag == 1 { break; } if #flag == 2 { continue; } }
            } else {
                quote!()
            };
            quote! {
                #cont
                if #flag == 3 { continue '__amp_tile; }
            }
        } else {
            quote!()
        };
        let index = self.index;
        let ls: Vec<Ident> = (0..self.rank)
            .map(|d| format_ident!("__amp_l{}", d))
            .collect();
        // The work item's number: row-major over the tile.
        let mut wi = quote!(0usize);
        for (d, l) in ls.iter().enumerate() {
            wi = quote!((#wi * __amp_tile.extent(#d) as usize + #l as usize));
        }
        let mut loops = quote! {
            let __amp_wi = #wi;
            #[allow(unused_variables)]
            let #index = __amp_tile.item([#(#ls),*]);
            #(#tiles)*
            #(#restores)*
            #(#body)*
            #(#stores)*
        };
        for (d, l) in ls.iter().enumerate().rev() {
            let label = (d + 1 == self.rank).then(|| quote!('__amp_wi:));
            loops = quote! {
                #label for #l in 0..__amp_tile.extent(#d) { #loops }
            };
        }
        if uses_exits {
            quote! {
                let mut #flag = 0u8;
                #loops
                #after
            }
        } else {
            loops
        }
    }
}

/// Whether `s` has a `break`, `continue` or `return` outside the loops it
/// contains.
fn stmt_exits(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) => true,
        StmtKind::If(c, a, b) => {
            expr_exits(c) || block_exits(a) || b.as_ref().is_some_and(block_exits)
        }
        StmtKind::Let { init: Some(e), .. } | StmtKind::Expr(e) | StmtKind::Assign(_, _, e) => {
            expr_exits(e)
        }
        _ => false,
    }
}

fn block_exits(b: &Block) -> bool {
    b.stmts.iter().any(stmt_exits) || b.tail.as_ref().is_some_and(|t| expr_exits(t))
}

fn expr_exits(e: &Expr) -> bool {
    let mut found = false;
    visit_expr(e, &mut |x| match &x.kind {
        ExprKind::If(_, a, b) => found |= block_exits(a) || block_exits(b),
        ExprKind::Block(b) => found |= block_exits(b),
        _ => {}
    });
    found
}

/// `body` with every local (and `tile_static` array) whose name another one
/// shares renamed to `name_amp_<id>` (keeping the name's span), or `None`
/// if every name is used once. Shadowing keeps its meaning: each use refers
/// to its local by number.
fn rename_shared_names(body: &Block) -> Option<Block> {
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut body = body.clone();
    walk_block(&mut body, &mut |id, name| {
        names.entry(id).or_insert_with(|| name.to_string());
    });
    let mut count: HashMap<&str, usize> = HashMap::new();
    for n in names.values() {
        *count.entry(n.as_str()).or_default() += 1;
    }
    let shared: HashSet<u32> = names
        .iter()
        .filter(|(_, n)| count[n.as_str()] > 1)
        .map(|(id, _)| *id)
        .collect();
    if shared.is_empty() {
        return None;
    }
    walk_block(&mut body, &mut |id, name| {
        if shared.contains(&id) {
            *name = format_ident!("{}_amp_{}", name, id, span = name.span());
        }
    });
    Some(body)
}

/// Calls `f` on every local's (and `tile_static` array's) number and name
/// in `b`, declarations and uses.
fn walk_block(b: &mut Block, f: &mut dyn FnMut(u32, &mut Ident)) {
    for s in &mut b.stmts {
        walk_stmt(s, f);
    }
    if let Some(t) = &mut b.tail {
        walk_expr(t, f);
    }
}

fn walk_stmt(s: &mut Stmt, f: &mut dyn FnMut(u32, &mut Ident)) {
    match &mut s.kind {
        StmtKind::Let {
            local, name, init, ..
        } => {
            f(*local, name);
            if let Some(e) = init {
                walk_expr(e, f);
            }
        }
        StmtKind::Assign(p, _, e) => {
            walk_place(p, f);
            walk_expr(e, f);
        }
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => walk_expr(e, f),
        StmtKind::If(c, a, b) => {
            walk_expr(c, f);
            walk_block(a, f);
            if let Some(b) = b {
                walk_block(b, f);
            }
        }
        StmtKind::While(c, b) => {
            walk_expr(c, f);
            walk_block(b, f);
        }
        StmtKind::Loop(b) => walk_block(b, f),
        StmtKind::For {
            var,
            name,
            start,
            end,
            step,
            body,
            ..
        } => {
            f(*var, name);
            walk_expr(start, f);
            walk_expr(end, f);
            if let Some(st) = step {
                walk_expr(st, f);
            }
            walk_block(body, f);
        }
        StmtKind::TileStatic { local, name, .. } => f(*local, name),
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(None)
        | StmtKind::NativeCheck(_)
        | StmtKind::Barrier(..) => {}
    }
}

fn walk_place(p: &mut Place, f: &mut dyn FnMut(u32, &mut Ident)) {
    match p {
        Place::Local(id, name) => f(*id, name),
        Place::ArrayElement(id, name, idx) | Place::TileElement(id, name, idx) => {
            f(*id, name);
            idx.iter_mut().for_each(|e| walk_expr(e, f));
        }
        Place::Element(_, _, idx) => idx.iter_mut().for_each(|e| walk_expr(e, f)),
        Place::Field(base, _) => walk_place(base, f),
    }
}

fn walk_expr(e: &mut Expr, f: &mut dyn FnMut(u32, &mut Ident)) {
    match &mut e.kind {
        ExprKind::Local(id, name) => f(*id, name),
        ExprKind::TileLoad(id, name, idx, ..) => {
            f(*id, name);
            idx.iter_mut().for_each(|x| walk_expr(x, f));
        }
        ExprKind::Lit(..)
        | ExprKind::Capture(..)
        | ExprKind::KernelIndex(_)
        | ExprKind::Const(_)
        | ExprKind::Extent(..)
        | ExprKind::TiledArg(_)
        | ExprKind::RefResult(..)
        | ExprKind::Tiled(..) => {}
        ExprKind::Binary(_, a, b) | ExprKind::Element(a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x, _)
        | ExprKind::Field(x, _)
        | ExprKind::Swizzle(x, _)
        | ExprKind::Repeat(x, _)
        | ExprKind::RefCall(x) => walk_expr(x, f),
        ExprKind::Load(_, _, xs)
        | ExprKind::MakeIndex(xs, _)
        | ExprKind::Array(xs)
        | ExprKind::Call(_, _, xs)
        | ExprKind::CallFn(_, xs)
        | ExprKind::MakeVector(_, _, _, xs)
        | ExprKind::MakeTuple(xs) => xs.iter_mut().for_each(|x| walk_expr(x, f)),
        ExprKind::MakeStruct(_, fields) => fields.iter_mut().for_each(|(_, x)| walk_expr(x, f)),
        ExprKind::Atomic(a) => {
            walk_place(&mut a.target, f);
            a.args.iter_mut().for_each(|x| walk_expr(x, f));
            if let Some((id, name, ..)) = &mut a.expected {
                f(*id, name);
            }
        }
        ExprKind::AddrOf(p) => walk_place(p, f),
        ExprKind::If(c, a, b) => {
            walk_expr(c, f);
            walk_block(a, f);
            walk_block(b, f);
        }
        ExprKind::Block(b) => walk_block(b, f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(body: TokenStream) -> Kernel {
        let input: super::super::parse::Input = syn::parse2(body).expect("parses");
        let mut errors = super::super::parse::Errors::default();
        let k = super::super::parse::parse(input, &mut errors).expect("a kernel");
        assert!(errors.into_result().is_ok());
        k
    }

    #[test]
    fn barriers_in_loops_and_locals_across_them_are_split() {
        let k = kernel(quote! {
            d, |t: TiledIndex<1>| {
                tile_static! { let s: [f32; 16]; }
                let l = t.local[0];
                let mut sum = 0.0f32;
                let mut i = 0;
                while i < n {
                    s[l] = a[[t.global[0] + i]];
                    t.barrier.wait();
                    for k in 0..16 { sum += s[k]; }
                    t.barrier.wait();
                    if i > 100 { break; }
                    i += 16;
                }
                c[t.global] = sum;
            }
        });
        let info = {
            let nodes = nodes(&k.body).expect("split");
            let mut info = Info::default();
            info.scan(&nodes);
            info.decide().expect("no conflict");
            info
        };
        // `l`, `sum` and `i` live across barriers; `k` does not.
        let slotted: Vec<&str> = info
            .slotted
            .iter()
            .map(|id| info.names[id].as_str())
            .collect();
        assert_eq!(slotted, ["l", "sum", "i"]);
        let code = split(&k).expect("split").to_string();
        assert!(code.contains("__amp_wi"), "{code}");
        assert!(!code.contains("barrier"), "{code}");
    }

    #[test]
    fn what_the_split_form_does_not_cover_falls_back() {
        // A local used across a barrier whose name is declared again: the
        // locals are renamed apart, and the kernel is split.
        let k = kernel(quote! {
            d, |t: TiledIndex<1>| {
                tile_static! { let s: [i32; 4]; }
                let v = a[t.global];
                s[t.local[0]] = v;
                t.barrier.wait();
                let v = v + s[0];
                c[t.global] = v;
            }
        });
        let code = split(&k).expect("split after renaming").to_string();
        assert!(code.contains("v_amp_"), "{code}");
        // A local used across a barrier, declared without a value.
        let k = kernel(quote! {
            d, |t: TiledIndex<1>| {
                let v: i32;
                v = 3;
                t.barrier.wait();
                c[t.global] = v;
            }
        });
        let why = split(&k).expect_err("a value-less local across a barrier");
        assert!(why.contains("without a value"), "{why}");
    }
}

#[cfg(test)]
#[path = "split_tests.rs"]
mod stage_tests;
