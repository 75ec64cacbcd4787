//! The printer: the text form of kernels, functions, blocks, statements,
//! expressions, places and types, and the whole text of a kernel or
//! function with the structs and functions it uses.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

use super::{
    atomic_name, barrier_name, binop_name, bound_name, builtin_name, default_declarations,
    name_text, quote, tiled_name,
};
use crate::ir::*;

/// Writes the text form; records the functions and structs it meets, so
/// that a kernel's text can declare them.
#[derive(Default)]
pub(super) struct Printer {
    pub(super) out: String,
    depth: usize,
    /// The label of each function by key (a name, or `name#k` where
    /// functions share a name).
    labels: HashMap<usize, String>,
    /// Functions met in calls, in order, and their keys.
    pub(super) fns: Vec<FnRef>,
    fn_keys: HashSet<usize>,
    /// Structs met in types, in order, and their names.
    structs: Vec<Arc<StructType>>,
    struct_names: HashSet<String>,
}

impl Printer {
    fn nl(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
    }

    fn s(&mut self, s: &str) {
        self.out.push_str(s);
    }

    pub(super) fn ty(&mut self, t: &Type) {
        match t {
            Type::Scalar(s) => self.s(s.rust()),
            Type::Index(n) => {
                let _ = write!(self.out, "Index<{n}>");
            }
            Type::Array(e, n) => {
                self.s("[");
                self.ty(e);
                let _ = write!(self.out, "; {n}]");
            }
            Type::Param(k) => {
                let _ = write!(self.out, "${k}");
            }
            Type::Vector(n, s) => {
                let _ = write!(self.out, "vec{n}<{}>", s.rust());
            }
            Type::Struct(st) => {
                if self.struct_names.insert(st.name.clone()) {
                    self.structs.push(st.clone());
                }
                self.s(&name_text(&st.name));
            }
            Type::Tuple(ts) => {
                self.s("(");
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.ty(t);
                }
                if ts.len() == 1 {
                    self.s(",");
                }
                self.s(")");
            }
            Type::Ref(t) => {
                self.s("&mut ");
                self.ty(t);
            }
        }
    }

    fn view(&mut self, elem: &Type, rank: u32, writable: bool) {
        if writable {
            self.s("mut ");
        }
        self.s("view<");
        self.ty(elem);
        let _ = write!(self.out, ", {rank}>");
    }

    fn capture(&mut self, c: CaptureId) {
        let _ = match c.as_param() {
            Some(k) => write!(self.out, "@p{k}"),
            None => write!(self.out, "@{}", c.0),
        };
    }

    fn lit(&mut self, l: &Lit) {
        match *l {
            Lit::Int(v, s) => {
                let _ = write!(self.out, "{v}{}", s.map_or("", Scalar::rust));
            }
            Lit::Float(v, s) => {
                let suffix = s.map_or("", Scalar::rust);
                let _ = if v.is_nan() || v.is_infinite() {
                    let sign = if v.is_infinite() && v < 0.0 { "-" } else { "" };
                    let word = if v.is_nan() { "NaN" } else { "inf" };
                    let sep = if s.is_some() { "_" } else { "" };
                    write!(self.out, "{sign}{word}{sep}{suffix}")
                } else {
                    write!(self.out, "{v:?}{suffix}")
                };
            }
            Lit::Bool(b) => self.s(if b { "true" } else { "false" }),
        }
    }

    fn list(&mut self, xs: &[Expr]) {
        for (i, x) in xs.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            self.expr(x);
        }
    }

    /// `e` as the base of a postfix operation (`[i]`, `.x`, `.[k]`).
    fn base(&mut self, e: &Expr, bracket: bool) {
        let wrap = match &e.kind {
            ExprKind::Unary(..) | ExprKind::If(..) | ExprKind::Block(_) | ExprKind::AddrOf(_) => {
                true
            }
            ExprKind::Lit(Lit::Float(v, _)) => v.is_sign_negative(),
            ExprKind::Capture(_) => bracket,
            _ => false,
        };
        if wrap {
            self.s("(");
            self.expr(e);
            self.s(")");
        } else {
            self.expr(e);
        }
    }

    fn member(&mut self, m: &Member) {
        let _ = match m {
            Member::Named(n) => write!(self.out, ".{}", name_text(n)),
            Member::Index(k) => write!(self.out, ".{k}"),
        };
    }

    fn label(&self, f: FnRef) -> String {
        match self.labels.get(&f.key()) {
            Some(l) => l.clone(),
            None => name_text(f.function().name),
        }
    }

    pub(super) fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Lit(l) => self.lit(l),
            ExprKind::Local(l) => {
                let _ = write!(self.out, "%{}", l.0);
            }
            ExprKind::Capture(c) => self.capture(*c),
            ExprKind::KernelIndex => self.s("idx"),
            ExprKind::Binary(op, l, r) => {
                self.s("(");
                self.expr(l);
                let _ = write!(self.out, " {} ", binop_name(*op));
                self.expr(r);
                self.s(")");
            }
            ExprKind::Unary(op, x) => {
                self.s(match op {
                    UnOp::Neg => "-",
                    UnOp::Not => "!",
                });
                let wrap = matches!(
                    x.kind,
                    ExprKind::Unary(..) | ExprKind::Lit(Lit::Float(..)) | ExprKind::AddrOf(_)
                );
                if wrap {
                    self.s("(");
                }
                self.expr(x);
                if wrap {
                    self.s(")");
                }
            }
            ExprKind::Cast(x, s) => {
                self.s("(");
                self.expr(x);
                let _ = write!(self.out, " as {})", s.rust());
            }
            ExprKind::Load(c, idx) => {
                self.capture(*c);
                self.s("[");
                self.list(idx);
                self.s("]");
            }
            ExprKind::IndexComponent(a, k) => {
                self.base(a, false);
                self.s(".[");
                self.expr(k);
                self.s("]");
            }
            ExprKind::MakeIndex(xs) => {
                self.s("index(");
                self.list(xs);
                self.s(")");
            }
            ExprKind::ArrayElement(a, i) => {
                self.base(a, true);
                self.s("[");
                self.expr(i);
                self.s("]");
            }
            ExprKind::MakeArray(xs) => {
                self.s("[");
                self.list(xs);
                self.s("]");
            }
            ExprKind::RepeatArray(x, n) => {
                self.s("[");
                self.expr(x);
                let _ = write!(self.out, "; {n}]");
            }
            ExprKind::Call(b, xs) => {
                self.s(builtin_name(*b));
                self.s("(");
                self.list(xs);
                self.s(")");
            }
            ExprKind::CallFn(f, args, type_args) => {
                if self.fn_keys.insert(f.key()) {
                    self.fns.push(*f);
                }
                let label = self.label(*f);
                self.s("call ");
                self.s(&label);
                if !type_args.is_empty() {
                    self.s("::<");
                    for (i, t) in type_args.iter().enumerate() {
                        if i > 0 {
                            self.s(", ");
                        }
                        self.ty(t);
                    }
                    self.s(">");
                }
                self.s("(");
                self.list(args);
                self.s(")");
            }
            ExprKind::AddrOf(p) => {
                self.s("&mut ");
                self.place(p);
            }
            ExprKind::If(c, a, b) => {
                self.s("if ");
                self.expr(c);
                self.s(" ");
                self.block(a);
                self.s(" else ");
                self.block(b);
            }
            ExprKind::Field(x, m) => {
                self.base(x, false);
                self.member(m);
            }
            ExprKind::MakeVector(n, s, xs) => {
                let _ = write!(self.out, "vec{n}<{}>(", s.rust());
                self.list(xs);
                self.s(")");
            }
            ExprKind::MakeStruct(t, fields) => {
                self.s("struct ");
                self.ty(t);
                self.s(" {");
                for (i, (n, x)) in fields.iter().enumerate() {
                    self.s(if i > 0 { ", " } else { " " });
                    self.s(&name_text(n));
                    self.s(": ");
                    self.expr(x);
                }
                self.s(if fields.is_empty() { "}" } else { " }" });
            }
            ExprKind::MakeTuple(xs) => {
                self.s("(");
                self.list(xs);
                if xs.len() == 1 {
                    self.s(",");
                }
                self.s(")");
            }
            ExprKind::Tiled(f) => {
                self.s("tiled.");
                self.s(tiled_name(*f));
            }
            ExprKind::TileLoad(id, idx) => {
                let _ = write!(self.out, "tile %{}[", id.0);
                self.list(idx);
                self.s("]");
            }
            ExprKind::Extent(c) => {
                self.s("extent(");
                self.capture(*c);
                self.s(")");
            }
            ExprKind::Atomic(op, p, args) => {
                self.s(atomic_name(*op));
                self.s("(");
                self.place(p);
                for a in args {
                    self.s(", ");
                    self.expr(a);
                }
                self.s(")");
            }
            ExprKind::Block(b) => self.block(b),
        }
    }

    pub(super) fn place(&mut self, p: &Place) {
        match p {
            Place::Local(l) => {
                let _ = write!(self.out, "%{}", l.0);
            }
            Place::Element(c, idx) => {
                self.capture(*c);
                self.s("[");
                self.list(idx);
                self.s("]");
            }
            Place::ArrayElement(l, idx) => {
                let _ = write!(self.out, "%{}[", l.0);
                self.list(idx);
                self.s("]");
            }
            Place::Field(base, m) => {
                self.place(base);
                self.member(m);
            }
            Place::TileElement(l, idx) => {
                let _ = write!(self.out, "tile %{}[", l.0);
                self.list(idx);
                self.s("]");
            }
        }
    }

    pub(super) fn block(&mut self, b: &Block) {
        if b.stmts.is_empty() && b.tail.is_none() {
            self.s("{}");
            return;
        }
        self.s("{");
        self.depth += 1;
        for st in &b.stmts {
            self.nl();
            self.stmt(st);
        }
        if let Some(t) = &b.tail {
            self.nl();
            self.s("=> ");
            self.expr(t);
        }
        self.depth -= 1;
        self.nl();
        self.s("}");
    }

    pub(super) fn stmt(&mut self, st: &Stmt) {
        match &st.kind {
            StmtKind::Let {
                local,
                name,
                ty,
                init,
            } => {
                let _ = write!(self.out, "let %{} {}", local.0, name_text(name));
                if let Some(t) = ty {
                    self.s(": ");
                    self.ty(t);
                }
                if let Some(e) = init {
                    self.s(" = ");
                    self.expr(e);
                }
                self.s(";");
            }
            StmtKind::Assign(p, op, e) => {
                self.place(p);
                match op {
                    None => self.s(" = "),
                    Some(op) if !op.is_comparison() && !matches!(op, BinOp::And | BinOp::Or) => {
                        let _ = write!(self.out, " {}= ", binop_name(*op));
                    }
                    Some(op) => {
                        let _ = write!(self.out, " ({})= ", binop_name(*op));
                    }
                }
                self.expr(e);
                self.s(";");
            }
            StmtKind::Expr(e) => {
                self.expr(e);
                self.s(";");
            }
            StmtKind::If(c, a, b) => {
                self.s("if ");
                self.expr(c);
                self.s(" ");
                self.block(a);
                if let Some(b) = b {
                    self.s(" else ");
                    self.block(b);
                }
            }
            StmtKind::While(c, body) => {
                self.s("while ");
                self.expr(c);
                self.s(" ");
                self.block(body);
            }
            StmtKind::Loop(body) => {
                self.s("loop ");
                self.block(body);
            }
            StmtKind::For {
                var,
                name,
                start,
                end,
                inclusive,
                step,
                body,
                unroll,
                reverse,
            } => {
                if *unroll {
                    self.s("#[unroll] ");
                }
                let _ = write!(self.out, "for %{} {} in ", var.0, name_text(name));
                self.expr(start);
                self.s(if *inclusive { "..=" } else { ".." });
                self.expr(end);
                if let Some(s) = step {
                    self.s(" step ");
                    self.expr(s);
                }
                if *reverse {
                    self.s(" rev");
                }
                self.s(" ");
                self.block(body);
            }
            StmtKind::Break => self.s("break;"),
            StmtKind::Continue => self.s("continue;"),
            StmtKind::Return(None) => self.s("return;"),
            StmtKind::Return(Some(e)) => {
                self.s("return ");
                self.expr(e);
                self.s(";");
            }
            StmtKind::Barrier(b) => {
                let _ = write!(self.out, "barrier {};", barrier_name(*b));
            }
            StmtKind::TileStatic { local, name, ty } => {
                let _ = write!(self.out, "tile_static %{} {}: ", local.0, name_text(name));
                self.ty(ty);
                self.s(";");
            }
        }
    }

    pub(super) fn kernel(&mut self, k: &Kernel) {
        let _ = write!(self.out, "kernel {} rank {}", quote(&k.name), k.rank);
        if let Some(tile) = &k.tile {
            let dims: Vec<String> = tile.iter().map(u32::to_string).collect();
            let _ = write!(self.out, " tile [{}]", dims.join(", "));
        }
        self.s(" (");
        for (i, (name, kind)) in k.captures.iter().enumerate() {
            self.depth += 1;
            self.nl();
            let _ = write!(self.out, "@{i} {}: ", name_text(name));
            match kind {
                CaptureKind::Container {
                    elem,
                    rank,
                    writable,
                } => self.view(elem, *rank, *writable),
                CaptureKind::Scalar(s) => self.ty(&Type::Scalar(*s)),
                CaptureKind::Vector(n, s) => self.ty(&Type::Vector(*n, *s)),
                CaptureKind::Index(n) => self.ty(&Type::Index(*n)),
                CaptureKind::Struct(t) => self.ty(t),
            }
            self.s(",");
            self.depth -= 1;
        }
        if !k.captures.is_empty() {
            self.nl();
        }
        self.s(") ");
        self.block(&k.body);
    }

    pub(super) fn function(&mut self, f: &Function, label: &str) {
        let _ = write!(self.out, "fn {label}");
        if !f.type_params.is_empty() {
            self.s("<");
            for (k, b) in f.type_params.iter().enumerate() {
                if k > 0 {
                    self.s(", ");
                }
                let _ = write!(self.out, "${k}: {}", bound_name(*b));
            }
            self.s(">");
        }
        self.s("(");
        let total = f.params.len() + f.bindings.len();
        let mut values = f.params.iter();
        let mut views = 0;
        let mut bindings: Vec<&(usize, ParamBinding)> = f.bindings.iter().collect();
        bindings.sort_by_key(|(pos, _)| *pos);
        let mut bindings = bindings.into_iter().peekable();
        for i in 0..total {
            if i > 0 {
                self.s(", ");
            }
            if let Some((_, b)) = bindings.next_if(|(pos, _)| *pos == i) {
                match b {
                    ParamBinding::View {
                        elem,
                        rank,
                        writable,
                    } => {
                        let _ = write!(self.out, "@p{views}: ");
                        views += 1;
                        self.view(elem, *rank, *writable);
                    }
                    ParamBinding::Tiled(n) => {
                        let _ = write!(self.out, "tiled<{n}>");
                    }
                }
            } else if let Some((l, name, t)) = values.next() {
                let _ = write!(self.out, "%{} {}: ", l.0, name_text(name));
                self.ty(t);
            }
        }
        self.s(")");
        if let Some(r) = &f.ret {
            self.s(" -> ");
            self.ty(r);
        }
        self.s(" ");
        self.block(&f.body);
    }

    /// The declaration of `st`, after those of the structs in it that
    /// `done` lacks.
    fn struct_item(&mut self, st: &StructType, done: &mut HashSet<String>) {
        if !done.insert(st.name.clone()) {
            return;
        }
        for (_, t) in &st.fields {
            let mut inner = Vec::new();
            struct_types(t, &mut inner);
            for s in inner {
                self.struct_item(&s, done);
            }
        }
        let _ = write!(self.out, "struct {} {{", name_text(&st.name));
        for (i, (n, t)) in st.fields.iter().enumerate() {
            self.s(if i > 0 { ", " } else { " " });
            self.s(&name_text(n));
            self.s(": ");
            self.ty(t);
        }
        self.s(if st.fields.is_empty() { "}" } else { " }" });
        if st.declarations != default_declarations(st) {
            self.s(" wgsl ");
            self.s(&quote(&st.declarations));
        }
        self.s("\n\n");
    }
}

fn struct_types(t: &Type, out: &mut Vec<Arc<StructType>>) {
    match t {
        Type::Struct(st) => out.push(st.clone()),
        Type::Array(e, _) | Type::Ref(e) => struct_types(e, out),
        Type::Tuple(ts) => ts.iter().for_each(|t| struct_types(t, out)),
        _ => {}
    }
}

/// What a text prints at its root.
#[derive(Clone, Copy)]
pub(super) enum Root<'a> {
    Kernel(&'a Kernel),
    Function(&'a Function),
}

/// The whole text of `root`: the structs and functions it uses, then
/// itself (a function first, then the functions it calls).
pub(super) fn module(root: Root<'_>) -> String {
    // Discovery: print everything once to find the functions and structs.
    let mut p = Printer::default();
    match root {
        Root::Kernel(k) => p.kernel(k),
        Root::Function(f) => p.function(f, ""),
    }
    let mut functions: Vec<(Option<FnRef>, Function)> = Vec::new();
    if let Root::Function(f) = root {
        functions.push((None, f.clone()));
    }
    let mut i = 0;
    while i < p.fns.len() {
        let fr = p.fns[i];
        let f = fr.function();
        i += 1;
        // A function calling itself: its builder gives the root again.
        if matches!(root, Root::Function(r) if *r == f) {
            functions[0].0.get_or_insert(fr);
            continue;
        }
        p.function(&f, "");
        functions.push((Some(fr), f));
    }
    let mut j = 0;
    while j < p.structs.len() {
        let st = p.structs[j].clone();
        st.fields.iter().for_each(|(_, t)| p.ty(t));
        j += 1;
    }
    // Labels: the name, or `name#k` where functions share one.
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (_, f) in &functions {
        *count.entry(f.name).or_default() += 1;
    }
    let mut nth: HashMap<&str, usize> = HashMap::new();
    let mut labels: Vec<String> = Vec::new();
    let mut by_key = HashMap::new();
    for (fr, f) in &functions {
        let label = if count[f.name] > 1 {
            let k = nth.entry(f.name).or_default();
            *k += 1;
            format!("{}#{k}", name_text(f.name))
        } else {
            name_text(f.name)
        };
        if let Some(fr) = fr {
            by_key.insert(fr.key(), label.clone());
        }
        labels.push(label);
    }
    // The text.
    let mut q = Printer {
        labels: by_key,
        ..Printer::default()
    };
    let mut done = HashSet::new();
    for st in &p.structs {
        q.struct_item(st, &mut done);
    }
    for ((_, f), label) in functions.iter().zip(&labels) {
        q.function(f, label);
        q.s("\n\n");
    }
    if let Root::Kernel(k) = root {
        q.kernel(k);
        q.s("\n");
    }
    let mut out = q.out;
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
