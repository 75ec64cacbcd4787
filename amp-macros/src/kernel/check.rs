//! Check stage: rules that need the whole kernel AST (the parse stage
//! already rejected everything outside the subset's syntax).

use std::collections::HashSet;

use super::ast::*;
use super::parse::Errors;

/// Checks `k`, adding spanned errors.
pub(crate) fn check(k: &Kernel, errors: &mut Errors) {
    block(&k.body, 0, errors);
    if k.tiled {
        uniformity(&k.body, errors);
    }
}

/// Every thread of a tile must reach the same barriers: a barrier under
/// control flow that depends on the thread (its local or global index, or
/// data it loaded) is an error, as in C++ AMP (naga does not check it the
/// same way, and on GPUs it is undefined behaviour). The analysis is
/// conservative: values derived from `t.global`, `t.local`, container and
/// `tile_static` loads vary by thread, and so does everything assigned
/// under varying control. Threads part ways at a `break`, `continue` or
/// `return` under varying control: after a `continue`, the rest of that
/// loop's body is divergent; after a `break`, the whole loop (threads that
/// left miss its later barriers) until it ends, where they meet again;
/// after a `return`, the rest of the kernel. The right operand of `&&` and
/// `||` and a `while` condition are control flow too.
fn uniformity(body: &Block, errors: &mut Errors) {
    let u = Uniformity::run(body, None, true);
    for (_, (start, end), message) in u.errors {
        // Two tokens with the call's first and last spans: the error covers
        // the whole call.
        let call: proc_macro2::TokenStream = [start, end]
            .into_iter()
            .map(|span| proc_macro2::TokenTree::Ident(proc_macro2::Ident::new("t", span)))
            .collect();
        errors.push(syn::Error::new_spanned(call, message));
    }
}

/// The `#[kernel]` function calls of a tiled body whose results the
/// uniformity check took as uniform (their arguments are) and on which
/// that verdict depends: taken as varying, a barrier would be divergent.
/// The macro cannot see the callees' bodies; the expansion checks each one's
/// summary (`__amp_varies`, written by `#[kernel]`) at compile time.
pub(crate) fn assumed_uniform_calls(
    body: &Block,
    tiled: bool,
) -> Vec<(syn::ExprPath, proc_macro2::Span)> {
    if !tiled {
        return Vec::new();
    }
    let base = Uniformity::run(body, None, false);
    let mut out = Vec::new();
    for (at, path, span) in &base.uniform_calls {
        let probe = Uniformity::run(body, Some(*at), false);
        if probe.errors.len() > base.errors.len() {
            out.push((path.clone(), *span));
        }
    }
    out
}

const BARRIER_DIVERGES: &str = "this barrier is under control flow that depends on the thread (its index, or data it loaded): every thread of a tile must reach the same barriers (C++ AMP rejects this; on a GPU it is undefined behaviour)";
const CALL_DIVERGES: &str = "this call passes the tiled index, so the function may wait on the tile's barrier, but it is under control flow that depends on the thread (its index, or data it loaded): every thread of a tile must make the call";
/// The calls of a tiled body that pass the tiled index and arguments that
/// vary by work item, made by every work item: the function's path, the
/// call's span and the positions of the varying arguments (a bit each).
/// Such a call is valid where the function's barriers do not depend on
/// those parameters: the expansion checks the callee's summary
/// (`__amp_barrier_params`, written by `#[kernel]`) at compile time.
pub(crate) fn varying_arg_calls(
    body: &Block,
    tiled: bool,
) -> Vec<(syn::ExprPath, proc_macro2::Span, u64)> {
    if !tiled {
        return Vec::new();
    }
    Uniformity::run(body, None, false)
        .varying_arg_calls
        .into_iter()
        .map(|(_, path, span, mask)| (path, span, mask))
        .collect()
}

/// What the barriers of a `#[kernel]` function's body depend on, for
/// `params` (each parameter's position among all the function's
/// parameters, and its local): the positions whose parameter, varying by
/// work item, would make one of the body's own barriers (or calls that pass
/// the tiled index) divergent, as bits; and, per position, the calls that
/// would then pass varying values on to other functions (their paths and
/// the positions of those values), whose own summaries decide.
pub(crate) fn barrier_params(
    body: &Block,
    params: &[(usize, u32)],
) -> (u64, Vec<(usize, syn::ExprPath, u64)>) {
    let base = Uniformity::run(body, None, false);
    let mut own = 0u64;
    let mut passed = Vec::new();
    for &(pos, local) in params {
        let bit = 1u64 << pos.min(63);
        let probe = Uniformity::run_seeded(body, None, false, &[local]);
        if probe.errors.len() > base.errors.len() {
            own |= bit;
        }
        for (at, path, _, mask) in &probe.varying_arg_calls {
            let before = base
                .varying_arg_calls
                .iter()
                .find(|(p, ..)| p == at)
                .map_or(0, |c| c.3);
            let extra = mask & !before;
            if extra != 0 {
                passed.push((pos, path.clone(), extra));
            }
        }
    }
    (own, passed)
}

/// The message of a call whose varying arguments the callee's barriers
/// depend on (see [`varying_arg_calls`]).
pub(crate) const CALL_ARGS_VARY: &str = "this call passes the tiled index and arguments that differ between the threads of the tile, and the function's barriers depend on them (they decide whether or how often it waits): every thread of a tile must reach the same barriers; pass values that are the same for the whole tile, or compute the thread-dependent ones inside the function from the tiled index";

/// Where threads of a tile may have parted ways so far.
#[derive(Clone, Copy, Default)]
struct Split {
    /// A `continue` under varying control in the innermost loop's body.
    continued: bool,
    /// A `break` under varying control in the innermost loop.
    broke: bool,
    /// A `return` under varying control.
    returned: bool,
}

impl Split {
    fn any(self) -> bool {
        self.continued || self.broke || self.returned
    }
}

/// The `tile_static` arrays a piece of code writes (assignments to their
/// elements, atomics), and those that atomics use.
#[derive(Default)]
struct TileWrites {
    written: HashSet<u32>,
    atomic: HashSet<u32>,
}

impl TileWrites {
    fn of(b: &Block) -> HashSet<u32> {
        let mut w = TileWrites::default();
        w.block(b);
        w.written
    }

    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
        if let Some(t) = &b.tail {
            self.expr(t);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Let { init, .. } => init.iter().for_each(|e| self.expr(e)),
            StmtKind::Assign(place, _, e) => {
                if let Some(id) = tile_root(place) {
                    self.written.insert(id);
                }
                self.expr(e);
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::If(c, a, b) => {
                self.expr(c);
                self.block(a);
                b.iter().for_each(|b| self.block(b));
            }
            StmtKind::While(c, body) => {
                self.expr(c);
                self.block(body);
            }
            StmtKind::Loop(body) | StmtKind::For { body, .. } => self.block(body),
            _ => {}
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Atomic(a) => {
                if let Place::TileElement(id, ..) = &a.target {
                    self.written.insert(*id);
                    self.atomic.insert(*id);
                }
                a.args.iter().for_each(|x| self.expr(x));
            }
            ExprKind::If(c, a, b) => {
                self.expr(c);
                self.block(a);
                self.block(b);
            }
            ExprKind::Block(b) => self.block(b),
            ExprKind::Binary(_, l, r) | ExprKind::Element(l, r) => {
                self.expr(l);
                self.expr(r);
            }
            ExprKind::Unary(_, x)
            | ExprKind::Cast(x, _)
            | ExprKind::Field(x, _)
            | ExprKind::Swizzle(x, _)
            | ExprKind::RefCall(x)
            | ExprKind::Repeat(x, _) => self.expr(x),
            ExprKind::MakeIndex(xs, _)
            | ExprKind::Array(xs)
            | ExprKind::Call(_, _, xs)
            | ExprKind::CallFn(_, xs)
            | ExprKind::MakeVector(_, _, _, xs)
            | ExprKind::MakeTuple(xs)
            | ExprKind::Load(_, _, xs)
            | ExprKind::TileLoad(_, _, xs, _, _) => xs.iter().for_each(|x| self.expr(x)),
            ExprKind::MakeStruct(_, fields) => fields.iter().for_each(|(_, x)| self.expr(x)),
            _ => {}
        }
    }
}

/// The `tile_static` array a place writes, if it is one's element.
fn tile_root(p: &Place) -> Option<u32> {
    match p {
        Place::TileElement(id, ..) => Some(*id),
        Place::Field(base, _) => tile_root(base),
        _ => None,
    }
}

#[derive(Default)]
struct Uniformity {
    /// A call taken as varying whatever its arguments (a probe of
    /// [`assumed_uniform_calls`]).
    assume_varying: Option<*const ()>,
    /// Whether to mark uniform `tile_static` loads (not in probes).
    mark_loads: bool,
    /// `#[kernel]` function calls whose arguments are uniform, with the
    /// function's path and the call's span.
    uniform_calls: Vec<(*const (), syn::ExprPath, proc_macro2::Span)>,
    /// Calls that pass the tiled index, made by every work item, with
    /// arguments that vary by work item: the function's path, the call's
    /// span and the positions of the varying arguments (a bit each). The
    /// callee's summary says whether its barriers depend on those.
    varying_arg_calls: Vec<(*const (), syn::ExprPath, proc_macro2::Span, u64)>,
    varying: HashSet<u32>,
    split: Split,
    report: bool,
    /// `tile_static` arrays written since the last barrier (on some path).
    dirty: HashSet<u32>,
    /// `tile_static` arrays that atomics use (no uniform loads of those).
    atomic_tiles: HashSet<u32>,
    /// Divergent barriers, by statement (a loop body may be visited twice):
    /// the spans of the call's first and last tokens.
    errors: Vec<(
        *const (),
        (proc_macro2::Span, proc_macro2::Span),
        &'static str,
    )>,
}

impl Uniformity {
    /// The analysis of `body` to its fixed point, then one reporting pass.
    fn run(body: &Block, assume_varying: Option<*const ()>, mark_loads: bool) -> Uniformity {
        Self::run_seeded(body, assume_varying, mark_loads, &[])
    }

    /// [`Uniformity::run`] with the locals of `seed` (parameters of a
    /// `#[kernel]` function) varying from the start.
    fn run_seeded(
        body: &Block,
        assume_varying: Option<*const ()>,
        mark_loads: bool,
        seed: &[u32],
    ) -> Uniformity {
        let mut u = Uniformity {
            assume_varying,
            ..Uniformity::default()
        };
        u.varying.extend(seed.iter().copied());
        let mut scan = TileWrites::default();
        scan.block(body);
        u.atomic_tiles = scan.atomic;
        // The set of varying locals grows monotonically: iterate to a fixed
        // point, then report.
        for _ in 0..16 {
            let before = u.varying.len();
            u.split = Split::default();
            u.dirty.clear();
            u.block(body, false);
            if u.varying.len() == before {
                break;
            }
        }
        u.report = true;
        u.mark_loads = mark_loads;
        u.split = Split::default();
        u.dirty.clear();
        u.block(body, false);
        u
    }

    fn block(&mut self, b: &Block, ctx: bool) {
        for s in &b.stmts {
            self.stmt(s, ctx);
        }
        if let Some(t) = &b.tail {
            self.expr(t, ctx);
        }
    }

    /// Records an assignment to `local`: it varies if its value does, or if
    /// only some threads run the assignment.
    fn mark(&mut self, local: u32, varying: bool) {
        if varying || self.split.any() {
            self.varying.insert(local);
        }
    }

    fn place_root(p: &Place) -> Option<u32> {
        match p {
            Place::Local(id, _) | Place::ArrayElement(id, _, _) => Some(*id),
            Place::Field(base, _) => Self::place_root(base),
            Place::Element(..) | Place::TileElement(..) => None,
        }
    }

    fn place_varying(&mut self, p: &Place, ctx: bool) -> bool {
        match p {
            Place::Local(..) => false,
            Place::ArrayElement(_, _, idx)
            | Place::Element(_, _, idx)
            | Place::TileElement(_, _, idx) => self.any(idx, ctx),
            Place::Field(base, _) => self.place_varying(base, ctx),
        }
    }

    fn stmt(&mut self, s: &Stmt, ctx: bool) {
        match &s.kind {
            StmtKind::Let { local, init, .. } => {
                let v = init.as_ref().is_some_and(|e| self.expr(e, ctx));
                self.mark(*local, ctx || v);
            }
            StmtKind::Assign(place, _, e) => {
                let v = self.expr(e, ctx) | self.place_varying(place, ctx);
                if let Some(root) = Self::place_root(place) {
                    self.mark(root, ctx || v);
                }
                if let Some(id) = tile_root(place) {
                    self.dirty.insert(id);
                }
            }
            StmtKind::Expr(e) => {
                self.expr(e, ctx);
            }
            StmtKind::If(c, a, b) => {
                let inner = ctx || self.expr(c, ctx);
                let before = self.dirty.clone();
                self.block(a, inner);
                let after_a = std::mem::replace(&mut self.dirty, before);
                if let Some(b) = b {
                    self.block(b, inner);
                }
                self.dirty.extend(after_a);
            }
            StmtKind::While(c, body) => {
                // The condition runs at every iteration, as part of the
                // loop: `while c { body }` is `loop { if !c { break } body }`.
                // A varying condition lets threads leave at different
                // iterations, so the barriers of the condition (a block
                // expression) and of the body are divergent.
                let outer = self.split;
                self.split.broke = false;
                self.split.continued = false;
                // Writes anywhere in the loop reach its start (the previous
                // iteration) and its end (a `break`).
                let writes = TileWrites::of(body);
                self.dirty.extend(writes.iter().copied());
                let inner = ctx || self.expr(c, ctx);
                self.split.broke |= inner;
                self.block(body, inner);
                if self.split.broke || (self.split.returned && !outer.returned) {
                    self.expr(c, true);
                    self.block(body, true);
                }
                self.split = Split {
                    returned: self.split.returned,
                    ..outer
                };
                self.dirty.extend(writes);
            }
            StmtKind::Loop(body) => self.loop_body(body, ctx),
            StmtKind::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                let mut v = self.expr(start, ctx) | self.expr(end, ctx);
                if let Some(st) = step {
                    v |= self.expr(st, ctx);
                }
                self.mark(*var, ctx || v);
                self.loop_body(body, ctx || v);
            }
            StmtKind::Break => self.split.broke |= ctx,
            StmtKind::Continue => self.split.continued |= ctx,
            StmtKind::Return(_) => self.split.returned |= ctx,
            StmtKind::Barrier(_, end) => {
                let at = s as *const Stmt as *const ();
                if (ctx || self.split.any())
                    && self.report
                    && !self.errors.iter().any(|(p, ..)| *p == at)
                {
                    self.errors.push((at, (s.span, *end), BARRIER_DIVERGES));
                }
                self.dirty.clear();
            }
            StmtKind::NativeCheck(_) | StmtKind::TileStatic { .. } => {}
        }
    }

    /// A loop's body. If threads may leave the loop at different
    /// iterations (a `break` or `return` under varying control), the body
    /// is visited again as divergent: its barriers, before the exit too,
    /// are missed by the threads that left, and what it assigns varies.
    fn loop_body(&mut self, body: &Block, ctx: bool) {
        let outer = self.split;
        self.split.broke = false;
        self.split.continued = false;
        // Writes anywhere in the loop reach its start (the previous
        // iteration) and its end (a `break`).
        let writes = TileWrites::of(body);
        self.dirty.extend(writes.iter().copied());
        self.block(body, ctx);
        if self.split.broke || (self.split.returned && !outer.returned) {
            self.block(body, true);
        }
        // Threads that broke out or continued meet again where the loop
        // ends; those that returned do not.
        self.split = Split {
            returned: self.split.returned,
            ..outer
        };
        self.dirty.extend(writes);
    }

    /// Whether any of `xs` varies (visiting all of them: they may contain
    /// blocks whose statements matter).
    fn any(&mut self, xs: &[Expr], ctx: bool) -> bool {
        let mut v = false;
        for x in xs {
            v |= self.expr(x, ctx);
        }
        v
    }

    /// Whether `e` varies by thread (walking the statements of the blocks
    /// it contains).
    fn expr(&mut self, e: &Expr, ctx: bool) -> bool {
        match &e.kind {
            // The function may assign the local anything: it varies.
            ExprKind::AddrOf(place) => {
                self.place_varying(place, ctx);
                if let Some(root) = Self::place_root(place) {
                    self.mark(root, true);
                }
                false
            }
            ExprKind::Lit(..)
            | ExprKind::Capture(..)
            | ExprKind::TiledArg(_)
            | ExprKind::Const(_)
            | ExprKind::Extent(..) => false,
            ExprKind::Local(id, _) => self.varying.contains(id),
            ExprKind::KernelIndex(_) | ExprKind::Load(..) => true,
            // A `tile_static` element read at an address the whole tile
            // shares, in uniform control flow, after a barrier with no write
            // to the array since: the same value for every work item (C++
            // AMP's MandelBrot sample breaks out of a loop on such a flag).
            // Marked so that GPUs load it as uniform.
            ExprKind::TileLoad(id, _, idx, uniform, _) => {
                let address = self.any(idx, ctx);
                let same = !address
                    && !ctx
                    && !self.split.any()
                    && !self.dirty.contains(id)
                    && !self.atomic_tiles.contains(id);
                if self.report && self.mark_loads {
                    uniform.set(same);
                }
                !same
            }
            ExprKind::Tiled(field, _) => matches!(*field, TiledField::Global | TiledField::Local),
            // An atomic's old value differs by thread; so does what
            // `atomic_compare_exchange` writes to `expected`.
            ExprKind::Atomic(a) => {
                if let Place::Element(_, _, idx) | Place::TileElement(_, _, idx) = &a.target {
                    self.any(idx, ctx);
                }
                if let Place::TileElement(id, ..) = &a.target {
                    self.dirty.insert(*id);
                }
                self.any(&a.args, ctx);
                if let Some((id, ..)) = &a.expected {
                    self.mark(*id, true);
                }
                true
            }
            // The right operand of `&&` and `||` runs only for some values
            // of the left one: under varying control if the left varies
            // (a barrier in a block there is divergent).
            ExprKind::Binary(BinOp::And | BinOp::Or, l, r) => {
                let left = self.expr(l, ctx);
                self.expr(r, ctx || left) | left
            }
            ExprKind::Binary(_, l, r) | ExprKind::Element(l, r) => {
                self.expr(l, ctx) | self.expr(r, ctx)
            }
            ExprKind::Unary(_, x)
            | ExprKind::Cast(x, _)
            | ExprKind::Field(x, _)
            | ExprKind::Swizzle(x, _)
            | ExprKind::Repeat(x, _) => self.expr(x, ctx),
            // The result's position varies where the call's inputs do (a
            // function returning a `&mut` reads and writes them).
            ExprKind::RefCall(x) => {
                self.expr(x, ctx);
                true
            }
            ExprKind::RefResult(..) => false,
            // A call that passes the tiled index may wait on barriers: every
            // work item of the tile must make it, with the same arguments
            // (the function's uniformity check takes them as uniform).
            ExprKind::CallFn(path, xs)
                if xs.iter().any(|x| matches!(x.kind, ExprKind::TiledArg(_))) =>
            {
                let mut mask = 0u64;
                for (i, x) in xs.iter().enumerate() {
                    if self.expr(x, ctx) {
                        // (Past 64 arguments, the last bit stands for all.)
                        mask |= 1 << i.min(63);
                    }
                }
                let at = e as *const Expr as *const ();
                if (ctx || self.split.any()) && self.report {
                    if !self.errors.iter().any(|(p, ..)| *p == at) {
                        self.errors.push((at, (e.span, e.span), CALL_DIVERGES));
                    }
                } else if mask != 0
                    && self.report
                    && !self.varying_arg_calls.iter().any(|(p, ..)| *p == at)
                {
                    self.varying_arg_calls
                        .push((at, path.clone(), e.span, mask));
                }
                self.dirty.clear();
                true
            }
            // Subgroup operations differ between subgroups (their size is
            // the same everywhere).
            ExprKind::Call(b, _, xs) if b.is_subgroup() => {
                self.any(xs, ctx);
                *b != Builtin::SubgroupSize
            }
            // A function's result is uniform where its arguments are only
            // if the function's own summary says so (an atomic's old value
            // is not): calls on which the verdict depends are checked
            // against the summaries at compile time
            // (`assumed_uniform_calls`).
            ExprKind::CallFn(path, xs) => {
                let varying = self.any(xs, ctx);
                let at = e as *const Expr as *const ();
                if !varying && self.report && !self.uniform_calls.iter().any(|(p, ..)| *p == at) {
                    self.uniform_calls.push((at, path.clone(), e.span));
                }
                varying || self.assume_varying == Some(at)
            }
            ExprKind::MakeIndex(xs, _)
            | ExprKind::Array(xs)
            | ExprKind::Call(_, _, xs)
            | ExprKind::MakeVector(_, _, _, xs)
            | ExprKind::MakeTuple(xs) => self.any(xs, ctx),
            ExprKind::MakeStruct(_, fields) => {
                let mut v = false;
                for (_, x) in fields {
                    v |= self.expr(x, ctx);
                }
                v
            }
            ExprKind::If(c, a, b) => {
                let inner = ctx || self.expr(c, ctx);
                let before = self.dirty.clone();
                self.block(a, inner);
                let after_a = std::mem::replace(&mut self.dirty, before);
                self.block(b, inner);
                self.dirty.extend(after_a);
                inner
                    || a.tail.as_ref().is_some_and(|t| self.expr(t, inner))
                    || b.tail.as_ref().is_some_and(|t| self.expr(t, inner))
            }
            ExprKind::Block(b) => {
                self.block(b, ctx);
                b.tail.as_ref().is_some_and(|t| self.expr(t, ctx))
            }
        }
    }
}

fn block(b: &Block, loops: u32, errors: &mut Errors) {
    for s in &b.stmts {
        stmt(s, loops, errors);
    }
    if let Some(t) = &b.tail {
        expr(t, loops, errors);
    }
}

fn stmt(s: &Stmt, loops: u32, errors: &mut Errors) {
    match &s.kind {
        StmtKind::Break | StmtKind::Continue if loops == 0 => errors.push(syn::Error::new(
            s.span,
            "`break` and `continue` must be inside a loop of the kernel",
        )),
        StmtKind::Let { init: Some(e), .. } | StmtKind::Expr(e) => expr(e, loops, errors),
        StmtKind::Assign(_, _, e) | StmtKind::Return(Some(e)) => expr(e, loops, errors),
        StmtKind::If(c, a, b) => {
            expr(c, loops, errors);
            block(a, loops, errors);
            if let Some(b) = b {
                block(b, loops, errors);
            }
        }
        StmtKind::While(c, body) => {
            expr(c, loops, errors);
            block(body, loops + 1, errors);
        }
        StmtKind::Loop(body) => block(body, loops + 1, errors),
        StmtKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            expr(start, loops, errors);
            expr(end, loops, errors);
            if let Some(s) = step {
                expr(s, loops, errors);
            }
            block(body, loops + 1, errors);
        }
        _ => {}
    }
}

fn expr(e: &Expr, loops: u32, errors: &mut Errors) {
    match &e.kind {
        ExprKind::If(c, a, b) => {
            expr(c, loops, errors);
            block(a, loops, errors);
            block(b, loops, errors);
        }
        ExprKind::Block(b) => block(b, loops, errors),
        ExprKind::Binary(_, l, r) | ExprKind::Element(l, r) => {
            expr(l, loops, errors);
            expr(r, loops, errors);
        }
        ExprKind::Unary(_, x) | ExprKind::Cast(x, _) | ExprKind::Repeat(x, _) => {
            expr(x, loops, errors)
        }
        ExprKind::Field(x, _) => expr(x, loops, errors),
        ExprKind::MakeStruct(_, fields) => fields.iter().for_each(|(_, x)| expr(x, loops, errors)),
        ExprKind::Load(_, _, xs)
        | ExprKind::MakeVector(_, _, _, xs)
        | ExprKind::MakeTuple(xs)
        | ExprKind::MakeIndex(xs, _)
        | ExprKind::Array(xs)
        | ExprKind::Call(_, _, xs) => {
            xs.iter().for_each(|x| expr(x, loops, errors));
        }
        ExprKind::Atomic(a) => {
            if let Place::Element(_, _, idx) | Place::TileElement(_, _, idx) = &a.target {
                idx.iter().for_each(|x| expr(x, loops, errors));
            }
            a.args.iter().for_each(|x| expr(x, loops, errors));
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
