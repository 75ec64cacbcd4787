//! Memory: captured values and containers, places (locals, elements,
//! fields), element addresses and loads, atomic operations, `tile_static`
//! arrays and their uniform loads, and the reinterpretation of a view's
//! 32-bit words.

use std::fmt::Write as _;

use super::expr::is_pure_line;
use super::types::{atomic_type_wgsl, member_of, type_wgsl};
use super::{Writer, compile_error};
use crate::Result;
use crate::ir::*;

/// The WGSL expression that rebuilds a value of type `t` from the words of
/// capture `capture` starting at byte `offset` (WGSL's storage layout,
/// which `#[derive(Element)]` structs have on the host too); `None` for
/// types that 32-bit words cannot carry (`f64`, `bool`, `f16`).
fn rebuild(t: &Type, capture: u32, offset: u64) -> Option<String> {
    use crate::resources::{round, size_align};
    let word = |o: u64| format!("amp_p.amp_s{capture}_{}", o / 4);
    let scalar = |s: Scalar, o: u64| match s {
        Scalar::U32 => Some(word(o)),
        Scalar::I32 | Scalar::F32 => Some(format!("bitcast<{}>({})", s.wgsl(), word(o))),
        Scalar::F64 | Scalar::Bool | Scalar::F16 => None,
        Scalar::U8 | Scalar::I8 | Scalar::U16 | Scalar::I16 => None,
    };
    Some(match t {
        Type::Scalar(s) => scalar(*s, offset)?,
        Type::Vector(n, s) => {
            let parts: Vec<String> = (0..u64::from(*n))
                .map(|k| scalar(*s, offset + 4 * k))
                .collect::<Option<_>>()?;
            format!("{}({})", type_wgsl(t), parts.join(", "))
        }
        Type::Array(elem, n) => {
            let (size, align) = size_align(elem);
            let stride = round(size, align);
            let parts: Vec<String> = (0..u64::from(*n))
                .map(|k| rebuild(elem, capture, offset + k * stride))
                .collect::<Option<_>>()?;
            format!("{}({})", type_wgsl(t), parts.join(", "))
        }
        Type::Struct(st) => {
            let mut at = offset;
            let mut parts = Vec::new();
            for (_, ft) in &st.fields {
                let (size, align) = size_align(ft);
                at = offset + round(at - offset, align);
                parts.push(rebuild(ft, capture, at)?);
                at += size;
            }
            format!("{}({})", st.name, parts.join(", "))
        }
        _ => return None,
    })
}

/// A plain read of an element of atomic memory.
pub(super) fn atomic_load(target: &str, ty: &Type) -> String {
    if *ty == Type::Scalar(Scalar::F32) {
        format!("bitcast<f32>(atomicLoad(&{target}))")
    } else {
        format!("atomicLoad(&{target})")
    }
}

impl Writer<'_> {
    /// A captured value (not a container): read from the parameter block.
    pub(super) fn capture_value(&self, c: CaptureId, span: Span) -> Result<(String, Type)> {
        match self.kernel.captures.get(c.0 as usize) {
            Some((_, CaptureKind::Scalar(Scalar::Bool))) => Ok((
                format!("(amp_p.amp_s{} != 0u)", c.0),
                Type::Scalar(Scalar::Bool),
            )),
            Some((_, CaptureKind::Scalar(Scalar::F16))) => Ok((
                format!("f16(bitcast<f32>(amp_p.amp_s{}))", c.0),
                Type::Scalar(Scalar::F16),
            )),
            Some((_, CaptureKind::Scalar(s))) => {
                Ok((format!("amp_p.amp_s{}", c.0), Type::Scalar(*s)))
            }
            Some((_, CaptureKind::Vector(n, s))) => {
                Ok((format!("amp_p.amp_s{}", c.0), Type::Vector(*n, *s)))
            }
            Some((_, CaptureKind::Struct(t))) => {
                let text = rebuild(t, c.0, 0).ok_or_else(|| {
                    compile_error(span, "a captured struct with f64, f16 or bool fields")
                })?;
                Ok((text, t.clone()))
            }
            Some((_, CaptureKind::Index(n))) => {
                let parts: Vec<String> =
                    (0..*n).map(|d| format!("amp_p.amp_s{}_{d}", c.0)).collect();
                Ok((
                    format!("array<i32, {n}>({})", parts.join(", ")),
                    Type::Index(*n),
                ))
            }
            _ => Err(compile_error(span, "a container used as a value")),
        }
    }

    /// `&place` (a `&mut` parameter passed on is its pointer itself).
    pub(super) fn addr_of(
        &mut self,
        place: &Place,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let (text, ty) = self.place(place, span, pre)?;
        // A `&mut` parameter passed on is its pointer itself (naga's
        // SPIR-V writer does not take `&(*p)`).
        let pointer = text
            .strip_prefix("(*")
            .and_then(|t| t.strip_suffix(')'))
            .filter(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_'))
            .map(str::to_string)
            .unwrap_or_else(|| format!("&{text}"));
        Ok((pointer, Type::Ref(Box::new(ty))))
    }

    /// The small integer type of container capture `c`'s elements, if they
    /// are packed four (`u8`, `i8`) or two (`u16`, `i16`) to a 32-bit word.
    pub(super) fn packed(&self, c: u32) -> Option<Scalar> {
        match self.kernel.captures.get(c as usize) {
            Some((
                _,
                CaptureKind::Container {
                    elem: Type::Scalar(s),
                    ..
                },
            )) if s.is_small() => Some(*s),
            _ => None,
        }
    }

    /// Whether packed container `c` is bound writable: its words are
    /// `atomic<u32>`, so that a store merges its element into the word
    /// without losing a neighbour another work item writes.
    pub(super) fn packed_atomic(&self, c: u32) -> bool {
        matches!(
            self.kernel.captures.get(c as usize),
            Some((_, CaptureKind::Container { writable: true, .. }))
        ) && !self.read_only.contains(&(c as usize))
    }

    /// The word holding element `c[idx]` of a packed container, and a
    /// local holding the element's bit offset in it.
    fn packed_word(
        &mut self,
        c: CaptureId,
        idx: &[Expr],
        s: Scalar,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, String)> {
        let (i, addr) = self.element_offset(c, idx, span, pre)?;
        let (e, shift) = (self.fresh(), self.fresh());
        let (log, per) = if s.bits() == 8 { (2, 4) } else { (1, 2) };
        pre.push(format!("let {e} = {addr};"));
        pre.push(format!(
            "let {shift} = ({e} & {}u) * {}u;",
            per - 1,
            s.bits()
        ));
        Ok((format!("{}[{e} >> {log}u]", self.captures[i]), shift))
    }

    /// `c[idx]` of a packed container: the element's bits of its word,
    /// zero- or sign-extended to 32 bits.
    fn packed_load(
        &mut self,
        c: CaptureId,
        idx: &[Expr],
        s: Scalar,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let (word, shift) = self.packed_word(c, idx, s, span, pre)?;
        let w = if self.packed_atomic(c.0) {
            format!("atomicLoad(&{word})")
        } else {
            word
        };
        let text = if s.is_signed_int() {
            let top = 32 - s.bits();
            format!("(bitcast<i32>({w} << ({top}u - {shift})) >> {top}u)")
        } else {
            format!("(({w} >> {shift}) & {}u)", s.int_range().1)
        };
        Ok((text, Type::Scalar(s)))
    }

    /// `c[idx] = value` of a packed container: the element merged into its
    /// word by a compare-exchange loop (another work item may write a
    /// neighbour in the same word at the same time; a racing write of the
    /// same element leaves one of the written values).
    pub(super) fn packed_store(
        &mut self,
        c: CaptureId,
        idx: &[Expr],
        value: &str,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<()> {
        let Some(s) = self.packed(c.0) else {
            return Err(compile_error(span, "not a packed container"));
        };
        if !self.packed_atomic(c.0) {
            return Err(compile_error(span, "a store to a read-only view"));
        }
        let (word, shift) = self.packed_word(c, idx, s, span, pre)?;
        let mask = u32::MAX >> (32 - s.bits());
        let (p, bits, old, r) = (self.fresh(), self.fresh(), self.fresh(), self.fresh());
        pre.push(format!("let {p} = &{word};"));
        pre.push(format!("let {bits} = (u32({value}) & {mask}u) << {shift};"));
        pre.push(format!("var {old} = atomicLoad({p});"));
        pre.push("loop {".to_string());
        pre.push(format!(
            "    let {r} = atomicCompareExchangeWeak({p}, {old}, ({old} & ~({mask}u << {shift})) | {bits});"
        ));
        pre.push(format!("    if ({r}.exchanged) {{ break; }}"));
        pre.push(format!("    {old} = {r}.old_value;"));
        pre.push("}".to_string());
        Ok(())
    }

    /// `c[idx]` read (an atomic element with `atomicLoad`).
    pub(super) fn load(
        &mut self,
        c: CaptureId,
        idx: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        if let Some(s) = self.packed(c.0) {
            return self.packed_load(c, idx, s, span, pre);
        }
        let (text, ty) = self.address(c, idx, span, pre)?;
        if self.atomic.captures.contains(&c.0) {
            return Ok((atomic_load(&text, &ty), ty));
        }
        Ok((text, ty))
    }

    /// `c.extent()`: the container's extent from the launch parameters.
    pub(super) fn extent(&mut self, c: CaptureId, span: Span) -> Result<(String, Type)> {
        // The extent is part of the container's launch parameters.
        let (i, _, rank) = self.capture_container(c, span)?;
        let parts: Vec<String> = (0..rank).map(|d| format!("amp_p.amp_c{i}_e{d}")).collect();
        Ok((
            format!("array<i32, {rank}>({})", parts.join(", ")),
            Type::Index(rank),
        ))
    }

    /// An element of a `tile_static` array read (an atomic element with
    /// `atomicLoad`).
    pub(super) fn tile_load(
        &mut self,
        id: LocalId,
        idx: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let (text, ty) = self.tile_element(id, idx, span, pre)?;
        if self.atomic.tiles.contains(&id) {
            return Ok((atomic_load(&text, &ty), ty));
        }
        Ok((text, ty))
    }

    /// A uniform load of a `tile_static` element (`workgroupUniformLoad`).
    pub(super) fn uniform_load(
        &mut self,
        args: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        match args {
            [
                Expr {
                    kind: ExprKind::TileLoad(id, idx),
                    ..
                },
            ] => {
                let (text, ty) = self.tile_element(*id, idx, span, pre)?;
                if self.atomic.tiles.contains(id) {
                    // Atomics have no uniform load; the macro marks
                    // none of their loads.
                    return Ok((atomic_load(&text, &ty), ty));
                }
                Ok((format!("workgroupUniformLoad(&{text})"), ty))
            }
            _ => Err(compile_error(
                span,
                "a uniform load of a non-tile_static value",
            )),
        }
    }

    /// `tile_static` array `name`: a module-scope `var<workgroup>`.
    pub(super) fn tile_static(&mut self, local: LocalId, name: &str, ty: &Type) {
        // A function's arrays are module-scope variables of its
        // instance: prefixed by the instance's name, so that they
        // meet neither the kernel's nor another instance's.
        let wname = match &self.function {
            Some(f) => {
                let stem: String = name
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                format!("{f}_{stem}")
            }
            None => self.namer.name(name),
        };
        self.locals.insert(local, wname.clone());
        self.note(ty);
        if ty.uses_f64() {
            self.uses_f64 = true;
        }
        self.uses_f16 |= ty.uses_f16();
        let ty_wgsl = if self.atomic.tiles.contains(&local) {
            atomic_type_wgsl(ty)
        } else {
            type_wgsl(ty)
        };
        let decl = format!("var<workgroup> {wname}: {ty_wgsl};\n");
        self.fns
            .borrow_mut()
            .decls
            .insert(format!("~{wname}"), decl);
    }

    /// The index, element type and rank of container capture `c`.
    fn capture_container(&self, c: CaptureId, span: Span) -> Result<(usize, Type, u32)> {
        match self.kernel.captures.get(c.0 as usize) {
            Some((_, CaptureKind::Container { elem, rank, .. })) => {
                Ok((c.0 as usize, elem.clone(), *rank))
            }
            _ => Err(compile_error(span, "not a container capture")),
        }
    }

    /// `a[i][j]` of a `tile_static` array.
    fn tile_element(
        &mut self,
        id: LocalId,
        idx: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let mut text = self.local_name(id, span)?;
        let mut t = self.local_type(id, span)?;
        for i in idx {
            let (v, _) = self.expr(i, pre)?;
            let _ = write!(text, "[{v}]");
            t = match t {
                Type::Array(elem, _) => *elem,
                _ => {
                    return Err(compile_error(
                        span,
                        "indexing a tile_static value that is not an array",
                    ));
                }
            };
        }
        Ok((text, t))
    }

    /// The element address expression of `c[idx]`.
    fn address(
        &mut self,
        c: CaptureId,
        idx: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        if let Some(s) = self.packed(c.0) {
            return Err(compile_error(
                span,
                format!(
                    "a reference to an element of a `{}` container: WGSL cannot point into part of a 32-bit word; copy the element to a local",
                    s.rust()
                ),
            ));
        }
        let (_, elem, _) = self.capture_container(c, span)?;
        let (i, addr) = self.element_offset(c, idx, span, pre)?;
        Ok((format!("{}[{addr}]", self.captures[i]), elem))
    }

    /// The capture's number and the element offset of `c[idx]` in its
    /// binding (in elements).
    fn element_offset(
        &mut self,
        c: CaptureId,
        idx: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(usize, String)> {
        let (i, _, rank) = self.capture_container(c, span)?;
        let comps: Vec<String> = if idx.len() == 1 {
            let (e, t) = self.expr(&idx[0], pre)?;
            match t {
                Type::Index(_) => {
                    let tmp = self.fresh();
                    pre.push(format!("let {tmp} = {e};"));
                    (0..rank).map(|d| format!("{tmp}[{d}]")).collect()
                }
                _ => vec![e],
            }
        } else {
            let idx: Vec<&Expr> = idx.iter().collect();
            self.seq(&idx, pre)?.into_iter().map(|v| v.0).collect()
        };
        let mut addr = format!("amp_p.amp_c{i}_off");
        for (d, comp) in comps.iter().enumerate() {
            let _ = write!(addr, " + u32({comp}) * amp_p.amp_c{i}_s{d}");
        }
        Ok((i, addr))
    }

    /// `reinterpret_load(view, k, witness)` / `reinterpret_store(view, k,
    /// value)` (see [`Builtin::ReinterpretLoad`]): each 32-bit word of the
    /// value is a component of an element at a row-major position of the
    /// view, read or written (in `pre`) with a bitcast where the scalar
    /// types differ.
    pub(super) fn reinterpret(
        &mut self,
        f: Builtin,
        args: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        // `[view, k, witness]` to load, `[view, value, k]` to store (Rust
        // evaluates the stored value before the place).
        let (view, k, third) = match (f, args) {
            (Builtin::ReinterpretLoad, [view, k, witness]) => (view, k, witness),
            (_, [view, value, k]) => (view, k, value),
            _ => return Err(compile_error(span, "reinterpret takes three arguments")),
        };
        let ExprKind::Capture(c) = view.kind else {
            return Err(compile_error(span, "reinterpret_as of a non-view"));
        };
        let (i, elem, rank) = self.capture_container(c, span)?;
        // As in Rust's `w[k] = v`: the value first, then the place.
        let (value, target) = match f {
            Builtin::ReinterpretLoad => (None, self.expr(third, pre)?.1),
            _ => {
                let (v, t) = self.expr(third, pre)?;
                let vt = self.fresh();
                pre.push(format!("let {vt} = {v};"));
                (Some(vt), t)
            }
        };
        let (kv, _) = self.expr(k, pre)?;
        let kt = self.fresh();
        pre.push(format!("let {kt} = {kv};"));
        let (Some(ew), Some(uw)) = (elem.words(), target.words()) else {
            return Err(compile_error(
                span,
                format!("reinterpret_as between {elem:?} and {target:?}: not 4-byte words"),
            ));
        };
        let (v, w) = (ew.len(), uw.len());
        let mut parts = Vec::new();
        for (j, us) in uw.iter().enumerate() {
            // The word's row-major position among the view's words.
            let p = if w == 1 {
                kt.clone()
            } else {
                format!("({kt} * {w}i + {j}i)")
            };
            let (e, comp) = if v == 1 {
                (p, None)
            } else {
                (format!("({p} / {v}i)"), Some(format!("({p} % {v}i)")))
            };
            // The element at row-major position `e` of the view.
            let r = self.fresh();
            pre.push(format!("var {r} = {e};"));
            let mut comps = vec![String::new(); rank as usize];
            for d in (1..rank as usize).rev() {
                let x = self.fresh();
                pre.push(format!("let {x} = {r} % amp_p.amp_c{i}_e{d};"));
                pre.push(format!("{r} = {r} / amp_p.amp_c{i}_e{d};"));
                comps[d] = x;
            }
            comps[0] = r;
            let mut addr = format!("amp_p.amp_c{i}_off");
            for (d, comp) in comps.iter().enumerate() {
                let _ = write!(addr, " + u32({comp}) * amp_p.amp_c{i}_s{d}");
            }
            let mut place = format!("{}[{addr}]", self.captures[i]);
            // The word's component within the element.
            if let Some(comp) = comp {
                let mut t = &elem;
                let mut at = comp;
                loop {
                    match t {
                        Type::Vector(..) => {
                            place = format!("{place}[{at}]");
                            break;
                        }
                        Type::Array(inner, _) => {
                            let per = inner.words().map_or(1, |w| w.len());
                            if per == 1 {
                                place = format!("{place}[{at}]");
                                break;
                            }
                            place = format!("{place}[{at} / {per}i]");
                            at = format!("({at} % {per}i)");
                            t = inner;
                        }
                        _ => break,
                    }
                }
            }
            let es = ew[0];
            match &value {
                None if es == *us => parts.push(place),
                None => parts.push(format!("bitcast<{}>({place})", us.wgsl())),
                Some(vt) => {
                    let word = if w == 1 {
                        vt.clone()
                    } else {
                        format!("{vt}[{j}]")
                    };
                    let word = if es == *us {
                        word
                    } else {
                        format!("bitcast<{}>({word})", es.wgsl())
                    };
                    pre.push(format!("{place} = {word};"));
                }
            }
        }
        Ok(match value {
            None if w == 1 => (parts.pop().expect("one word"), target),
            None => (
                format!("{}({})", type_wgsl(&target), parts.join(", ")),
                target,
            ),
            Some(_) => (String::new(), Type::Index(0)),
        })
    }

    /// Whether `p` is an element of memory that atomics touch.
    pub(super) fn is_atomic(&self, p: &Place) -> bool {
        match p {
            Place::Element(c, _) => self.atomic.captures.contains(&c.0),
            Place::TileElement(id, _) => self.atomic.tiles.contains(id),
            _ => false,
        }
    }

    /// An atomic operation: bound to a temporary, in order with the
    /// statements around it. `f32` elements are held as `atomic<u32>`: add
    /// and sub become a compare-exchange loop, so that no adapter feature is
    /// needed. Compare-exchange is strong (retried while it fails without a
    /// different value).
    pub(super) fn atomic_op(
        &mut self,
        op: AtomicOp,
        place: &Place,
        args: &[Expr],
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        if !self.is_atomic(place) {
            return Err(compile_error(
                span,
                "atomics apply to elements of captured views and tile_static arrays",
            ));
        }
        // As in Rust: the element's address, then the operands.
        let (target, ty) = self.place(place, span, pre)?;
        let ends_target = pre.len();
        let mut vals = Vec::new();
        let mut ends = Vec::new();
        for a in args {
            vals.push(self.expr(a, pre)?);
            ends.push(pre.len());
        }
        let ptr = if pre[ends_target..].iter().all(|l| is_pure_line(l)) {
            format!("&{target}")
        } else {
            // An operand has effects: the address is taken before them.
            let tmp = self.fresh();
            pre.insert(ends_target, format!("let {tmp} = &{target};"));
            for e in &mut ends {
                *e += 1;
            }
            tmp
        };
        self.bind_before(&mut vals, &ends, pre);
        let float = ty == Type::Scalar(Scalar::F32);
        let word = |v: &str| {
            if float {
                format!("bitcast<u32>({v})")
            } else {
                v.to_string()
            }
        };
        let old = self.fresh();
        match op {
            AtomicOp::Add | AtomicOp::Sub if float => {
                let sign = if op == AtomicOp::Add { "+" } else { "-" };
                let r = self.fresh();
                pre.push(format!("var {old} = atomicLoad({ptr});"));
                pre.push("loop {".to_string());
                pre.push(format!(
                    "    let {r} = atomicCompareExchangeWeak({ptr}, {old}, bitcast<u32>(bitcast<f32>({old}) {sign} {}));",
                    vals[0].0
                ));
                pre.push(format!("    if ({r}.exchanged) {{ break; }}"));
                pre.push(format!("    {old} = {r}.old_value;"));
                pre.push("}".to_string());
            }
            AtomicOp::CompareExchange => {
                let r = self.fresh();
                let (expected, new) = (&vals[0].0, &vals[1].0);
                pre.push(format!("var {old}: {};", type_wgsl(&ty)));
                pre.push("loop {".to_string());
                pre.push(format!(
                    "    let {r} = atomicCompareExchangeWeak({ptr}, {expected}, {new});"
                ));
                pre.push(format!("    {old} = {r}.old_value;"));
                pre.push(format!(
                    "    if ({r}.exchanged || {r}.old_value != {expected}) {{ break; }}"
                ));
                pre.push("}".to_string());
                return Ok((old, ty));
            }
            _ => {
                pre.push(format!(
                    "let {old} = {}({ptr}, {});",
                    op.wgsl(),
                    word(&vals[0].0)
                ));
            }
        }
        if float {
            return Ok((format!("bitcast<f32>({old})"), ty));
        }
        Ok((old, ty))
    }

    /// The WGSL text and type of an assignable place.
    pub(super) fn place(
        &mut self,
        p: &Place,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        match p {
            Place::Local(id) => Ok((self.local_name(*id, span)?, self.local_type(*id, span)?)),
            Place::Element(c, idx) => self.address(*c, idx, span, pre),
            Place::TileElement(id, idx) => self.tile_element(*id, idx, span, pre),
            Place::Field(base, m) => {
                let (b, t) = self.place(base, span, pre)?;
                let (suffix, ft) = member_of(&t, m, span)?;
                Ok((format!("{b}{suffix}"), ft))
            }
            Place::ArrayElement(id, idx) => {
                let mut s = self.local_name(*id, span)?;
                let mut t = self.local_type(*id, span)?;
                for i in idx {
                    let (v, _) = self.expr(i, pre)?;
                    let _ = write!(s, "[{v}]");
                    t = match t {
                        Type::Array(elem, _) => *elem,
                        Type::Index(_) => Type::Scalar(Scalar::I32),
                        _ => return Err(compile_error(span, "indexing a non-array")),
                    };
                }
                Ok((s, t))
            }
        }
    }
}
