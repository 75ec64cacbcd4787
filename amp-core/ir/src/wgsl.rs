//! The WGSL writer: a type-checked [`Kernel`] to WGSL source.
//!
//! It runs after `passes::legalize`, which has put the operators whose Rust
//! semantics differ from WGSL's in WGSL's terms: the writer prints `/`,
//! `%`, `!=`, `^` and shifts as WGSL's own (see that module for what is
//! still rewritten here).
//!
//! One writer emits every construct; a [`Namer`] gives every local and
//! capture a WGSL name that is neither a reserved word nor taken. Expressions
//! that need statements (`if` and block expressions) are hoisted into
//! temporaries before the statement that uses them, which is sound because
//! kernel expressions have no side effects.
//!
//! Non-tiled domains run as a one-dimensional grid of 256-thread workgroups
//! (split over two dispatch dimensions past the per-dimension limit); each
//! thread rebuilds its `Index<N>` from its linear id, so any rank works and
//! the last dimension is the fastest-varying, for coalesced accesses.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::ir::*;
use crate::typeck::{self, Types};
use crate::{Error, Result};

/// Threads per workgroup of a non-tiled launch.
pub const WORKGROUP_SIZE: u32 = 256;

/// Names a generated name must avoid besides WGSL's keywords, reserved
/// words and predeclared identifiers (naga's lists, `naga::keywords::wgsl`)
/// and the `amp_` prefix of the writer's own names: the entry point, the
/// parameter block's type, and a word the WGSL drafts reserve that naga's
/// list leaves out.
const OWN_NAMES: &[&str] = &["main", "AmpParams", "binding_array"];

/// Whether `name` is a keyword, a reserved word, a predeclared identifier
/// or one of the writer's own names.
fn is_taken_by_wgsl(name: &str) -> bool {
    naga::keywords::wgsl::RESERVED.contains(&name)
        || naga::keywords::wgsl::BUILTIN_IDENTIFIERS.contains(&name)
        || OWN_NAMES.contains(&name)
}

/// Gives each entity a unique WGSL name derived from its Rust name.
#[derive(Debug, Default)]
pub(crate) struct Namer {
    taken: HashSet<String>,
}

impl Namer {
    /// A unique, non-reserved WGSL identifier based on `base`.
    pub(crate) fn name(&mut self, base: &str) -> String {
        let mut stem: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if stem.is_empty() || stem.starts_with(|c: char| c.is_ascii_digit()) {
            stem.insert(0, 'v');
        }
        // `__` prefixes are reserved in WGSL; our own names use `amp_`.
        while stem.starts_with("__") {
            stem.remove(0);
        }
        if stem == "_" {
            stem = "v_".to_string();
        }
        if is_taken_by_wgsl(&stem) || stem.starts_with("amp_") {
            stem.push('_');
        }
        let mut name = stem.clone();
        let mut n = 1;
        while !self.taken.insert(name.clone()) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        name
    }

    /// Reserves an internal name (`amp_*`), which user names never take.
    pub(crate) fn internal(&mut self, name: &str) -> String {
        self.taken.insert(name.to_string());
        name.to_string()
    }
}

/// The layout of the launch parameters (a uniform block), in 32-bit words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamLayout {
    /// Word offset of each capture's first parameter (containers: offset,
    /// extent, strides; scalars: the value).
    pub capture_words: Vec<u32>,
    /// Total words (padded to 16 bytes).
    pub words: u32,
}

/// A WGSL module for a kernel, with the facts the launcher needs.
#[derive(Debug, Clone)]
pub struct Shader {
    /// The WGSL source.
    pub source: String,
    /// The launch parameters' layout.
    pub params: ParamLayout,
    /// Whether the module uses `f64`.
    pub uses_f64: bool,
    /// Whether the kernel computes with `f16` (needs `SHADER_F16`).
    pub uses_f16: bool,
    /// Whether the module uses subgroup operations (`SUBGROUP`).
    pub uses_subgroups: bool,
    /// Whether the parameters are immediates (else a uniform buffer bound
    /// after the containers).
    pub immediates: bool,
    /// Whether the module counts loop iterations (see [`LOOP_GUARD_LIMIT`]):
    /// then a status buffer is bound after the containers.
    pub loop_guard: bool,
    /// The module naga parsed and validated from `source` (set by
    /// `lower`): wgpu is handed this instead of parsing the WGSL a
    /// second time.
    pub module: Option<std::sync::Arc<naga::Module>>,
}

/// With the loop guard (for Mesa's llvmpipe, which stops the loops of a
/// work item after 65,535 iterations and loop entries in all), a work item
/// whose count of loop entries and iterations reaches this stores 1 in the
/// status buffer: the launch's results cannot be trusted. Below llvmpipe's
/// own count, with a margin.
pub const LOOP_GUARD_LIMIT: u32 = 64_000;

struct Writer<'k> {
    kernel: &'k Kernel,
    types: &'k Types,
    namer: Namer,
    locals: std::collections::HashMap<LocalId, String>,
    captures: Vec<String>,
    out: String,
    indent: usize,
    tmp: u32,
    uses_f64: bool,
    /// Whether an `f16` value occurs (the module then starts with
    /// `enable f16;`).
    uses_f16: bool,
    /// Parameters as immediates (push constants) instead of a uniform buffer.
    immediates: bool,
    /// Count loop entries and iterations (see [`LOOP_GUARD_LIMIT`]).
    loop_guard: bool,
    /// The `#[kernel]` function instances written so far (shared by the
    /// writers of the kernel and of every function it calls).
    fns: std::rc::Rc<std::cell::RefCell<FnRegistry>>,
    /// The memory atomics touch: its WGSL type is atomic, and every access
    /// to it is an atomic built-in.
    atomic: crate::passes::AtomicTargets,
    /// Whether the kernel (or a function it calls) uses subgroup
    /// operations.
    subgroups: bool,
    /// Whether the kernel calls functions that take its tiled index.
    tiled_functions: bool,
    /// The WGSL name of the function instance being written (`None` in the
    /// kernel's body).
    function: Option<String>,
}

/// `#[kernel]` function instances of one module.
#[derive(Default)]
struct FnRegistry {
    /// WGSL names of the instances written or being written.
    names: std::collections::HashMap<crate::instance::InstanceKey, String>,
    /// Functions being written (a call back into one is recursion).
    stack: Vec<usize>,
    /// The definitions, in the order they were finished.
    defs: String,
    /// Struct and tuple declarations, by name.
    decls: std::collections::BTreeMap<String, String>,
    count: u32,
    /// The prefix of each function's `tile_static` variables, by function
    /// and type arguments: instances that differ only in the captures
    /// their view parameters bind share them, as the one instance of C++
    /// AMP (and of the CPU accelerator) does.
    tile_prefixes: std::collections::HashMap<(usize, Vec<Type>), String>,
}

fn compile_error(span: Span, message: impl Into<String>) -> Error {
    Error::Compile {
        kernel: span.to_string(),
        message: message.into(),
    }
}

/// Whether `e` is a WGSL constant expression as written (literals and
/// inlined constants, combined by operators, casts and calls).
fn is_const(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_) => true,
        ExprKind::Unary(_, x) | ExprKind::Cast(x, _) => is_const(x),
        ExprKind::Binary(_, l, r) => is_const(l) && is_const(r),
        // `Int2::new(7, 8)`: a constant vector is constant-evaluated too.
        ExprKind::Call(_, args) | ExprKind::MakeVector(_, _, args) => args.iter().all(is_const),
        // A block whose value is a constant (`{ let t = 1u32; 1e30f32 }`,
        // a lowered one-arm `match`): its tail is written in place of the
        // block, and would form a constant expression with the operators
        // around it (an overflow there is a shader-creation error).
        ExprKind::Block(b) => b.tail.as_ref().is_some_and(|t| is_const(t)),
        _ => false,
    }
}

/// `Some(sign is negative)` if `e` is a float literal zero (`0.0`, `-0.0`,
/// `-(0.0)`).
fn literal_zero(e: &Expr) -> Option<bool> {
    match &e.kind {
        ExprKind::Lit(Lit::Float(z, _)) if *z == 0.0 => Some(z.is_sign_negative()),
        ExprKind::Unary(UnOp::Neg, x) => literal_zero(x).map(|n| !n),
        _ => None,
    }
}

/// Whether a line hoisted before a statement only declares a new name (a
/// `let` or a `var` with its initialiser): evaluating it early changes
/// nothing the rest of the statement reads.
fn is_pure_line(line: &str) -> bool {
    let l = line.trim_start();
    (l.starts_with("let ") || l.starts_with("var ")) && !l.contains("atomic")
}

/// Whether a value's text reads nothing that statements can change: a
/// literal or a temporary of the writer (bound once).
fn is_stable(text: &str) -> bool {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if c.is_ascii_digit() => true,
        Some('-') => chars.next().is_some_and(|c| c.is_ascii_digit()),
        _ => {
            text == "true"
                || text == "false"
                || text
                    .strip_prefix("amp_t")
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        }
    }
}

/// Operators whose constant evaluation can fail in WGSL.
fn is_arithmetic(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr
    )
}

/// Rust's `f32` `%` (C's `fmod`): exact, with the sign of `x`; NaN when
/// `x` is infinite or `y` is zero or NaN; `x` when `y` is infinite. The
/// remainder is reduced by `|y| * 2^k` with the largest `k` that fits,
/// each subtraction exact, at most one step per binary exponent (the loop
/// bound also ends it on drivers that flush subnormals).
const FMOD_F32: &str = "fn amp_fmod_f32(x: f32, y: f32) -> f32 {
    let bx = bitcast<u32>(x) & 0x7fffffffu;
    let by = bitcast<u32>(y) & 0x7fffffffu;
    if (bx >= 0x7f800000u || by > 0x7f800000u || by == 0u) { return bitcast<f32>(0x7fc00000u); }
    if (by == 0x7f800000u || bx < by) { return x; }
    let ay = bitcast<f32>(by);
    let fy = frexp(ay);
    var r = bitcast<f32>(bx);
    for (var i = 0; i < 300; i++) {
        if (!(r >= ay)) { break; }
        let fr = frexp(r);
        var k = i32(fr.exp) - i32(fy.exp);
        if (fy.fract > fr.fract) { k = k - 1; }
        r = r - ldexp(ay, k);
    }
    return bitcast<f32>(bitcast<u32>(r) | (bitcast<u32>(x) & 0x80000000u));
}
";

/// [`FMOD_F32`] for `f64` (WGSL has no 64-bit integers to test bits with,
/// and `frexp` of an `f64` needs them: comparisons, which are ordered, so
/// false for NaN, and the largest `|y| * 2^k <= r` found by halving `k`'s
/// range).
const FMOD_F64: &str = "fn amp_fmod_f64(x: f64, y: f64) -> f64 {
    let ax = abs(x);
    let ay = abs(y);
    if (!(ax <= 1.7976931348623157e308lf) || !(ay > 0.0lf)) { return f64(bitcast<f32>(0x7fc00000u)); }
    if (!(ay <= 1.7976931348623157e308lf) || ax < ay) { return x; }
    var r = ax;
    for (var i = 0; i < 2200; i++) {
        if (!(r >= ay)) { break; }
        var s = ay;
        for (var p = 1024; p >= 1; p = p / 2) {
            let t = ldexp(s, p);
            if (t <= r) { s = t; }
        }
        r = r - s;
    }
    return select(r, -r, x < 0.0lf);
}
";

/// Rust's `f32::powf`: its special values (`x^0 == 1` and `1^y == 1`
/// even for NaN, `(-1)^±inf == 1`, zeros and infinities with their signs,
/// negative bases to integer powers, NaN for other negative bases), and
/// the driver's `pow` of `|x|` otherwise (`pow` is undefined for negative
/// bases, and lavapipe's gives 0 for a zero base whatever the exponent).
/// `x` to the power `e` for integers, wrapping (Rust's `wrapping_pow`):
/// square and multiply, at most 32 rounds.
const IPOW: &str = "fn {NAME}(x: {T}, e: u32) -> {T} {
    var r: {T} = {T}(1);
    var b: {T} = x;
    var n: u32 = e;
    loop {
        if (n == 0u) { break; }
        if ((n & 1u) == 1u) { r = r * b; }
        n = n >> 1u;
        b = b * b;
    }
    return r;
}
";

/// `x` to the integer power `n`, in the order of LLVM's `powi` (compiler-rt's
/// `__powisf2`), which Rust's `powi` calls.
const POWI: &str = "fn {NAME}(x: {T}, n: i32) -> {T} {
    var r: {T} = {T}(1);
    var a: {T} = x;
    var b: i32 = n;
    loop {
        if ((b & 1i) != 0i) { r = r * a; }
        b = b / 2i;
        if (b == 0i) { break; }
        a = a * a;
    }
    return select(r, {T}(1) / r, n < 0i);
}
";

const POWF_F32: &str = "fn amp_powf_f32(x: f32, y: f32) -> f32 {
    let bx = bitcast<u32>(x);
    let ax = bx & 0x7fffffffu;
    let ay = bitcast<u32>(y) & 0x7fffffffu;
    let inf = bitcast<f32>(0x7f800000u);
    if (ay == 0u || bx == 0x3f800000u) { return 1.0f; }
    if (ax > 0x7f800000u || ay > 0x7f800000u) { return bitcast<f32>(0x7fc00000u); }
    if (ay == 0x7f800000u) {
        if (ax == 0x3f800000u) { return 1.0f; }
        return select(0.0f, inf, (ax > 0x3f800000u) == (y > 0.0f));
    }
    let integral = trunc(y) == y;
    let odd = integral && ay < 0x4b800000u && trunc(y * 0.5f) != y * 0.5f;
    var r: f32;
    if (ax == 0u) {
        r = select(0.0f, inf, y < 0.0f);
    } else if (ax == 0x7f800000u) {
        r = select(0.0f, inf, y > 0.0f);
    } else {
        r = pow(bitcast<f32>(ax), y);
    }
    if ((bx & 0x80000000u) != 0u) {
        if (odd) { return -r; }
        if (!integral && ax != 0u && ax != 0x7f800000u) { return bitcast<f32>(0x7fc00000u); }
    }
    return r;
}
";

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

/// The WGSL spelling of a type.
pub(crate) fn type_wgsl(t: &Type) -> String {
    match t {
        Type::Scalar(s) => s.wgsl().to_string(),
        Type::Index(n) => format!("array<i32, {n}>"),
        Type::Array(elem, n) => format!("array<{}, {n}>", type_wgsl(elem)),
        Type::Param(k) => format!("T{k}"), // never reaches WGSL: instances are concrete
        Type::Ref(t) => format!("ptr<function, {}>", type_wgsl(t)),
        Type::Vector(n, s) => format!("vec{n}<{}>", s.wgsl()),
        Type::Struct(st) => st.name.clone(),
        Type::Tuple(ts) => {
            let parts: Vec<String> = ts
                .iter()
                .map(|t| {
                    type_wgsl(t)
                        .chars()
                        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                        .collect()
                })
                .collect();
            format!("amp_tuple_{}", parts.join("_"))
        }
    }
}

/// The WGSL type of memory that atomics touch: `t` with its scalar
/// elements atomic (`f32` held as `atomic<u32>`).
fn atomic_type_wgsl(t: &Type) -> String {
    match t {
        Type::Array(elem, n) => format!("array<{}, {n}>", atomic_type_wgsl(elem)),
        Type::Scalar(Scalar::F32) => "atomic<u32>".to_string(),
        other => format!("atomic<{}>", type_wgsl(other)),
    }
}

/// The WGSL spelling of `vecN<T>` (a `&'static str` for the parameter
/// struct's fields).
fn vector_wgsl(n: u8, s: Scalar) -> &'static str {
    match (n, s) {
        (2, Scalar::I32) => "vec2<i32>",
        (3, Scalar::I32) => "vec3<i32>",
        (4, Scalar::I32) => "vec4<i32>",
        (2, Scalar::U32) => "vec2<u32>",
        (3, Scalar::U32) => "vec3<u32>",
        (4, Scalar::U32) => "vec4<u32>",
        (2, Scalar::F32) => "vec2<f32>",
        (3, Scalar::F32) => "vec3<f32>",
        (4, Scalar::F32) => "vec4<f32>",
        (2, _) => "vec2<f64>",
        (3, _) => "vec3<f64>",
        _ => "vec4<f64>",
    }
}

/// A plain read of an element of atomic memory.
fn atomic_load(target: &str, ty: &Type) -> String {
    if *ty == Type::Scalar(Scalar::F32) {
        format!("bitcast<f32>(atomicLoad(&{target}))")
    } else {
        format!("atomicLoad(&{target})")
    }
}

/// Records the declarations `t` needs (structs, tuples) in `decls`.
fn note_type(t: &Type, decls: &mut std::collections::BTreeMap<String, String>) {
    match t {
        Type::Array(elem, _) | Type::Ref(elem) => note_type(elem, decls),
        Type::Struct(st) => {
            decls
                .entry(st.name.clone())
                .or_insert_with(|| st.declarations.clone());
        }
        Type::Tuple(ts) => {
            ts.iter().for_each(|t| note_type(t, decls));
            let name = type_wgsl(t);
            decls.entry(name.clone()).or_insert_with(|| {
                let fields: Vec<String> = ts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("    f{i}: {},\n", type_wgsl(t)))
                    .collect();
                format!("struct {name} {{\n{}}}\n", fields.concat())
            });
        }
        _ => {}
    }
}

/// Writes `kernel` (already type-checked) as WGSL.
///
/// # Errors
///
/// [`Error::Compile`] for a construct the writer cannot express.
pub(crate) fn write(
    kernel: &Kernel,
    types: &Types,
    immediates: bool,
    loop_guard: bool,
) -> Result<Shader> {
    let w = Writer {
        kernel,
        types,
        namer: Namer::default(),
        locals: Default::default(),
        captures: Vec::new(),
        out: String::new(),
        indent: 0,
        tmp: 0,
        uses_f64: false,
        uses_f16: false,
        immediates,
        loop_guard,
        fns: Default::default(),
        atomic: crate::passes::atomic_targets(&kernel.body),
        subgroups: crate::passes::uses_subgroups(&kernel.body),
        tiled_functions: crate::passes::passes_tiled_index(&kernel.body),
        function: None,
    };
    w.module()
}

impl Writer<'_> {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn module(mut self) -> Result<Shader> {
        let k = self.kernel;
        let rank = k.rank as usize;
        // Parameters: total work items, the domain extent, then captures.
        let mut fields: Vec<(String, &'static str)> = vec![("amp_total".into(), "u32")];
        for d in 0..rank {
            fields.push((format!("amp_e{d}"), "i32"));
        }
        let mut capture_words = Vec::new();
        let mut f64_fields = Vec::new();
        let mut vector_fields = Vec::new();
        for (i, (name, kind)) in k.captures.iter().enumerate() {
            let wgsl_name = self.namer.name(name);
            match kind {
                CaptureKind::Container { rank, .. } => {
                    capture_words.push(fields.len() as u32);
                    fields.push((format!("amp_c{i}_off"), "u32"));
                    for d in 0..*rank {
                        fields.push((format!("amp_c{i}_e{d}"), "i32"));
                    }
                    for d in 0..*rank {
                        fields.push((format!("amp_c{i}_s{d}"), "u32"));
                    }
                }
                CaptureKind::Scalar(Scalar::F64) => {
                    capture_words.push(u32::MAX); // placed below, 8-aligned
                    f64_fields.push(i);
                }
                CaptureKind::Scalar(Scalar::Bool) => {
                    capture_words.push(fields.len() as u32);
                    fields.push((format!("amp_s{i}"), "u32"));
                }
                // As the `f32` of the same value (exact both ways): a
                // uniform block cannot hold `f16`, and naga cannot split a
                // word into two.
                CaptureKind::Scalar(Scalar::F16) => {
                    self.uses_f16 = true;
                    capture_words.push(fields.len() as u32);
                    fields.push((format!("amp_s{i}"), "u32"));
                }
                CaptureKind::Scalar(s) => {
                    capture_words.push(fields.len() as u32);
                    fields.push((format!("amp_s{i}"), s.wgsl()));
                }
                CaptureKind::Vector(n, s) => {
                    capture_words.push(u32::MAX); // placed below, aligned
                    vector_fields.push((i, *n, *s));
                }
                CaptureKind::Index(n) => {
                    capture_words.push(fields.len() as u32);
                    for d in 0..*n {
                        fields.push((format!("amp_s{i}_{d}"), "i32"));
                    }
                }
                CaptureKind::Struct(t) => {
                    // Its bytes as words, rebuilt where it is used.
                    capture_words.push(fields.len() as u32);
                    self.note(t);
                    let words = crate::resources::size_align(t).0 / 4;
                    for w in 0..words {
                        fields.push((format!("amp_s{i}_{w}"), "u32"));
                    }
                }
            }
            self.captures.push(wgsl_name);
        }
        if !f64_fields.is_empty() {
            self.uses_f64 = true;
            if fields.len() % 2 == 1 {
                fields.push(("amp_pad".into(), "u32"));
            }
            for i in f64_fields {
                capture_words[i] = fields.len() as u32;
                fields.push((format!("amp_s{i}"), "f64"));
                fields.push((String::new(), "")); // second word of the f64
            }
        }
        // Vectors last, each at WGSL's alignment of `vecN<T>` (2 or 4
        // components; a 3-component vector aligns as 4).
        for (i, n, s) in vector_fields {
            if s == Scalar::F64 {
                self.uses_f64 = true;
            }
            let comp_words = if s == Scalar::F64 { 2 } else { 1 };
            let align = comp_words * if n == 2 { 2 } else { 4 };
            while !fields.len().is_multiple_of(align) {
                let pad = format!("amp_pad{}", fields.len());
                fields.push((pad, "u32"));
            }
            capture_words[i] = fields.len() as u32;
            fields.push((format!("amp_s{i}"), vector_wgsl(n, s)));
            for _ in 1..usize::from(n) * comp_words {
                fields.push((String::new(), "")); // the vector's other words
            }
        }
        let words = (fields.len() as u32).next_multiple_of(4);

        self.line("// Generated by amp-rs from a parallel_for_each! kernel.");
        let _ = writeln!(self.out, "// kernel: {}", k.name);
        self.line("struct AmpParams {");
        for (name, ty) in fields.iter().filter(|f| !f.0.is_empty()) {
            let _ = writeln!(self.out, "    {name}: {ty},");
        }
        self.line("}");
        let mut binding = 0;
        for (i, (_, kind)) in k.captures.iter().enumerate() {
            if let CaptureKind::Container { elem, writable, .. } = kind {
                if elem.uses_f64() {
                    self.uses_f64 = true;
                }
                self.uses_f16 |= elem.uses_f16();
                self.note(elem);
                let access = if *writable { "read_write" } else { "read" };
                let elem_wgsl = if self.atomic.captures.contains(&(i as u32)) {
                    atomic_type_wgsl(elem)
                } else {
                    type_wgsl(elem)
                };
                let _ = writeln!(
                    self.out,
                    "@group(0) @binding({binding}) var<storage, {access}> {}: array<{elem_wgsl}>;",
                    self.captures[i],
                );
                binding += 1;
            }
        }
        if self.loop_guard {
            let _ = writeln!(
                self.out,
                "@group(0) @binding({binding}) var<storage, read_write> amp_status: atomic<u32>;\nvar<private> amp_iterations: u32;\nfn amp_loop_guard() {{\n    amp_iterations += 1u;\n    if (amp_iterations == {LOOP_GUARD_LIMIT}u) {{ atomicStore(&amp_status, 1u); }}\n}}"
            );
            binding += 1;
            for name in ["amp_status", "amp_iterations", "amp_loop_guard"] {
                self.namer.internal(name);
            }
        }
        if self.immediates {
            self.line("var<immediate> amp_p: AmpParams;");
        } else {
            let _ = writeln!(
                self.out,
                "@group(0) @binding({binding}) var<uniform> amp_p: AmpParams;"
            );
        }
        self.namer.internal("amp_p");
        if self.subgroups {
            // The subgroup's size and the work item's lane, at module scope
            // for `#[kernel]` functions.
            for name in ["amp_sg_size", "amp_sg_lane"] {
                self.namer.internal(name);
                let _ = writeln!(self.out, "var<private> {name}: u32;");
            }
        }
        if let Some(tile) = &k.tile {
            self.tiled_entry(rank, tile);
        } else {
            let _ = writeln!(
                self.out,
                "\n@compute @workgroup_size({WORKGROUP_SIZE})\nfn main(@builtin(workgroup_id) amp_wg: vec3<u32>, @builtin(num_workgroups) amp_nwg: vec3<u32>, @builtin(local_invocation_index) amp_li: u32{}) {{",
                self.subgroup_params()
            );
            self.indent = 1;
            self.subgroup_init();
            // The grid is a rectangle of workgroups, more than the domain
            // needs: those past the last one leave before their index is
            // computed, which could wrap past 2^32 and repeat work items.
            self.line("let amp_g = amp_wg.y * amp_nwg.x + amp_wg.x;");
            self.line(&format!(
                "if (amp_g > (amp_p.amp_total - 1u) / {WORKGROUP_SIZE}u) {{ return; }}"
            ));
            self.line(&format!(
                "let amp_lin = amp_g * {WORKGROUP_SIZE}u + amp_li;"
            ));
            self.line("if (amp_lin >= amp_p.amp_total) { return; }");
            self.line(&format!("var amp_idx: array<i32, {rank}>;"));
            self.line("var amp_rem = amp_lin;");
            for d in (0..rank).rev() {
                self.line(&format!(
                    "amp_idx[{d}] = i32(amp_rem % u32(amp_p.amp_e{d}));"
                ));
                if d > 0 {
                    self.line(&format!("amp_rem = amp_rem / u32(amp_p.amp_e{d});"));
                }
            }
        }
        let body = &k.body;
        self.block_stmts(body)?;
        if let Some(t) = &body.tail {
            let mut pre = Vec::new();
            let _ = self.expr(t, &mut pre)?;
            self.flush_pre(pre);
        }
        self.indent = 0;
        self.line("}");
        let defs = std::mem::take(&mut self.fns.borrow_mut().defs);
        if !defs.is_empty() {
            self.out.push('\n');
            self.out.push_str(&defs);
        }

        let decls = std::mem::take(&mut self.fns.borrow_mut().decls);
        for d in decls.values() {
            self.out.push('\n');
            self.out.push_str(d);
        }
        if self.uses_f16 {
            // An extension WGSL needs declared before everything else.
            self.out.insert_str(0, "enable f16;\n\n");
        }
        Ok(Shader {
            source: self.out,
            params: ParamLayout {
                capture_words,
                words,
            },
            uses_f64: self.uses_f64,
            uses_f16: self.uses_f16,
            uses_subgroups: self.subgroups,
            immediates: self.immediates,
            loop_guard: self.loop_guard,
            module: None,
        })
    }

    /// Declares the WGSL helper function `name` (`text`) once in the module
    /// and returns its name. Under the loop guard its loops count too.
    fn helper(&mut self, name: &str, text: &str) -> String {
        let guard = self.loop_guard;
        self.fns
            .borrow_mut()
            .decls
            .entry(format!("~{name}"))
            .or_insert_with(|| {
                if guard {
                    // Every iteration of its `for` loops counts.
                    text.lines()
                        .map(|l| {
                            if l.trim_start().starts_with("for (") {
                                format!("{l}\n        amp_loop_guard();\n")
                            } else {
                                format!("{l}\n")
                            }
                        })
                        .collect()
                } else {
                    text.to_string()
                }
            });
        name.to_string()
    }

    /// The exact `fmod` of `s` (`f32` or `f64`).
    fn fmod(&mut self, s: Scalar) -> String {
        if s == Scalar::F64 {
            self.uses_f64 = true;
            self.helper("amp_fmod_f64", FMOD_F64)
        } else {
            self.helper("amp_fmod_f32", FMOD_F32)
        }
    }

    /// Opens a WGSL `loop`, counting its entry and each iteration under the
    /// loop guard.
    fn open_loop(&mut self) {
        if self.loop_guard {
            self.line("amp_loop_guard();");
            self.line("loop {");
            self.line("    amp_loop_guard();");
        } else {
            self.line("loop {");
        }
    }

    fn flush_pre(&mut self, pre: Vec<String>) {
        for p in pre {
            self.line(&p);
        }
    }

    fn local_type(&self, id: LocalId, span: Span) -> Result<Type> {
        self.types
            .locals
            .get(&id)
            .cloned()
            .ok_or_else(|| compile_error(span, "a local of unknown type"))
    }

    fn local_name(&self, id: LocalId, span: Span) -> Result<String> {
        self.locals
            .get(&id)
            .cloned()
            .ok_or_else(|| compile_error(span, "a local used before its declaration"))
    }

    fn block_stmts(&mut self, b: &Block) -> Result<()> {
        for s in &b.stmts {
            self.stmt(s)?;
        }
        Ok(())
    }

    /// A nested block `{ .. }` whose tail (if any) is discarded.
    fn nested(&mut self, b: &Block) -> Result<()> {
        self.indent += 1;
        self.block_stmts(b)?;
        if let Some(t) = &b.tail {
            let mut pre = Vec::new();
            let _ = self.expr(t, &mut pre)?;
            self.flush_pre(pre);
        }
        self.indent -= 1;
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        let span = s.span;
        match &s.kind {
            StmtKind::Let {
                local, name, init, ..
            } => {
                let ty = self.local_type(*local, span)?;
                let mut pre = Vec::new();
                let value = init.as_ref().map(|e| self.expr(e, &mut pre)).transpose()?;
                self.flush_pre(pre);
                if ty == Type::Index(0) {
                    // A unit value (the result of a function without one,
                    // bound by the macro's rewrites): the call is kept, no
                    // variable is declared.
                    if let (
                        Some(v),
                        Some(Expr {
                            kind: ExprKind::CallFn(..),
                            ..
                        }),
                    ) = (&value, init)
                    {
                        self.line(&format!("{};", v.0));
                    }
                    self.locals.insert(*local, String::new());
                    return Ok(());
                }
                if ty == Type::Scalar(Scalar::F64) {
                    self.uses_f64 = true;
                }
                self.uses_f16 |= ty.uses_f16();
                self.note(&ty);
                let wname = self.namer.name(name);
                self.locals.insert(*local, wname.clone());
                match value {
                    Some(v) => self.line(&format!("var {wname}: {} = {};", type_wgsl(&ty), v.0)),
                    None => self.line(&format!("var {wname}: {};", type_wgsl(&ty))),
                }
            }
            StmtKind::Assign(place, op, e) => {
                // As in Rust, the value first, then the place.
                let mut pre = Vec::new();
                let mut value = vec![self.expr(e, &mut pre)?];
                let end = pre.len();
                let (target, target_ty) = self.place(place, span, &mut pre)?;
                if !pre[end..].iter().all(|l| is_pure_line(l)) {
                    self.bind_before(&mut value, &[end], &mut pre);
                }
                let value = value.pop().expect("one value");
                let atomic = self.is_atomic(place);
                let current = if atomic {
                    atomic_load(&target, &target_ty)
                } else {
                    target.clone()
                };
                let value = match op {
                    None => value.0,
                    Some(op) => {
                        self.binary(*op, (current, target_ty.clone()), value, span)?
                            .0
                    }
                };
                self.flush_pre(pre);
                if atomic {
                    let value = if target_ty == Type::Scalar(Scalar::F32) {
                        format!("bitcast<u32>({value})")
                    } else {
                        value
                    };
                    self.line(&format!("atomicStore(&{target}, {value});"));
                } else {
                    self.line(&format!("{target} = {value};"));
                }
            }
            StmtKind::Expr(e) => {
                let mut pre = Vec::new();
                let (text, ty) = self.expr(e, &mut pre)?;
                self.flush_pre(pre);
                if let ExprKind::CallFn(..) = e.kind {
                    // A call's effects are its point: keep it.
                    if ty == Type::Index(0) {
                        self.line(&format!("{text};"));
                    } else {
                        self.line(&format!("_ = {text};"));
                    }
                }
            }
            StmtKind::If(c, a, b) => {
                let mut pre = Vec::new();
                let cond = self.expr(c, &mut pre)?;
                self.flush_pre(pre);
                self.line(&format!("if ({}) {{", cond.0));
                self.nested(a)?;
                if let Some(b) = b {
                    self.line("} else {");
                    self.nested(b)?;
                }
                self.line("}");
            }
            StmtKind::While(c, body) => {
                self.open_loop();
                self.indent += 1;
                let mut pre = Vec::new();
                let cond = self.expr(c, &mut pre)?;
                self.flush_pre(pre);
                self.line(&format!("if (!({})) {{ break; }}", cond.0));
                self.indent -= 1;
                self.nested(body)?;
                self.line("}");
            }
            StmtKind::Loop(body) => {
                self.open_loop();
                self.nested(body)?;
                self.line("}");
            }
            StmtKind::For {
                var,
                name,
                start,
                end,
                inclusive,
                step,
                body,
                reverse,
                ..
            } => {
                let ty = self.local_type(*var, span)?;
                let tw = type_wgsl(&ty);
                let mut pre = Vec::new();
                let mut header: Vec<&Expr> = vec![start, end];
                header.extend(step.as_ref());
                let mut vals = self.seq(&header, &mut pre)?.into_iter();
                let (start, end) = (vals.next().expect("start"), vals.next().expect("end"));
                let stepped = step.is_some();
                let step = match vals.next() {
                    Some(v) => format!("{tw}({})", v.0),
                    None => format!("{tw}(1)"),
                };
                if *reverse {
                    self.flush_pre(pre);
                    return self
                        .reverse_for(*var, name, &ty, start.0, end.0, *inclusive, step, body);
                }
                self.flush_pre(pre);
                self.line("{");
                self.indent += 1;
                let end_name = self.fresh();
                let step_name = self.fresh();
                let wname = self.namer.name(name);
                self.locals.insert(*var, wname.clone());
                self.line(&format!("let {end_name} = {};", end.0));
                self.line(&format!("let {step_name} = {step};"));
                self.line(&format!("var {wname}: {tw} = {};", start.0));
                let cmp = if *inclusive { "<=" } else { "<" };
                self.open_loop();
                self.indent += 1;
                if stepped {
                    // Rust panics on `step_by(0)`; a GPU cannot, and must not
                    // loop forever: the loop does not run.
                    self.line(&format!(
                        "if (!({wname} {cmp} {end_name}) || {step_name} == {tw}(0)) {{ break; }}"
                    ));
                } else {
                    self.line(&format!("if (!({wname} {cmp} {end_name})) {{ break; }}"));
                }
                self.indent -= 1;
                self.nested(body)?;
                self.indent += 1;
                if *inclusive || stepped {
                    // `a..=b` ends after `b` even when `b` is the type's
                    // maximum, and `(a..b).step_by(s)` before `i + s` would
                    // pass `b` even where `i + s` overflows: `i <= b` holds
                    // here, so `b - i` is the distance as an unsigned number.
                    // (`break if` must be the last statement of `continuing`.)
                    let left = self.fresh();
                    let stop = if *inclusive { "<" } else { "<=" };
                    self.line("continuing {");
                    self.line(&format!("    let {left} = u32({end_name} - {wname});"));
                    self.line(&format!("    {wname} = {wname} + {step_name};"));
                    self.line(&format!("    break if {left} {stop} u32({step_name});"));
                    self.line("}");
                } else {
                    self.line(&format!(
                        "continuing {{ {wname} = {wname} + {step_name}; }}"
                    ));
                }
                self.indent -= 1;
                self.line("}");
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Break => self.line("break;"),
            StmtKind::Continue => self.line("continue;"),
            StmtKind::Return(None) => self.line("return;"),
            StmtKind::Barrier(kind) => match kind {
                BarrierKind::Wait | BarrierKind::AllMemory => {
                    self.line("storageBarrier();");
                    self.line("workgroupBarrier();");
                }
                BarrierKind::GlobalMemory => self.line("storageBarrier();"),
                BarrierKind::TileStaticMemory => self.line("workgroupBarrier();"),
            },
            StmtKind::TileStatic { local, name, ty } => {
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
                self.locals.insert(*local, wname.clone());
                self.note(ty);
                if ty.uses_f64() {
                    self.uses_f64 = true;
                }
                self.uses_f16 |= ty.uses_f16();
                let ty_wgsl = if self.atomic.tiles.contains(local) {
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
            StmtKind::Return(Some(e)) => {
                let mut pre = Vec::new();
                let (v, _) = self.expr(e, &mut pre)?;
                self.flush_pre(pre);
                self.line(&format!("return {v};"));
            }
        }
        Ok(())
    }

    /// A `for` loop over `(start..end).step_by(step).rev()`: the forward
    /// values, last first. The number of steps is counted down in a `u32`
    /// (the distance `last - start` as an unsigned number), so that no value
    /// past either end is ever formed; a step of 0 runs no iteration.
    #[allow(clippy::too_many_arguments)]
    fn reverse_for(
        &mut self,
        var: LocalId,
        name: &str,
        ty: &Type,
        start: String,
        end: String,
        inclusive: bool,
        step: String,
        body: &Block,
    ) -> Result<()> {
        let tw = type_wgsl(ty);
        self.line("{");
        self.indent += 1;
        let (first, last, stride, k) = (self.fresh(), self.fresh(), self.fresh(), self.fresh());
        self.line(&format!("let {first} = {start};"));
        self.line(&format!("let {last} = {end};"));
        self.line(&format!("let {stride} = u32({step});"));
        let nonempty = if inclusive {
            format!("{first} <= {last}")
        } else {
            format!("{first} < {last}")
        };
        let top = if inclusive {
            last.clone()
        } else {
            format!("({last} - {tw}(1))")
        };
        self.line(&format!("if ({nonempty} && {stride} != 0u) {{"));
        self.indent += 1;
        // `max`: a step that folds to the constant 0 must not form a
        // constant division by zero (a shader-creation error), though the
        // branch does not run then.
        self.line(&format!(
            "var {k}: u32 = u32({top} - {first}) / max({stride}, 1u);"
        ));
        let wname = self.namer.name(name);
        self.locals.insert(var, wname.clone());
        self.line(&format!("var {wname}: {tw};"));
        self.open_loop();
        self.indent += 1;
        self.line(&format!("{wname} = {first} + {tw}({k} * {stride});"));
        self.indent -= 1;
        self.nested(body)?;
        self.indent += 1;
        // (`break if` must end `continuing`.)
        self.line(&format!(
            "continuing {{ let {k}_last = {k} == 0u; {k} = {k} - 1u; break if {k}_last; }}"
        ));
        self.indent -= 1;
        self.line("}");
        self.indent -= 1;
        self.line("}");
        self.indent -= 1;
        self.line("}");
        Ok(())
    }

    /// The WGSL name of the instance of `f` with `type_args`, writing it
    /// (and the instances it calls) first if needed.
    fn function(
        &mut self,
        f: FnRef,
        type_args: &[Type],
        bound: Vec<CaptureId>,
        span: Span,
    ) -> Result<(String, Type)> {
        let key = (f.key(), type_args.to_vec(), bound);
        let mut func = f.function();
        crate::instance::specialize(&mut func, &key.2);
        let ret = func
            .ret
            .as_ref()
            .map(|r| typeck::substitute(r, type_args))
            .unwrap_or(Type::Index(0));
        if let Some(name) = self.fns.borrow().names.get(&key) {
            return Ok((name.clone(), ret));
        }
        if self.fns.borrow().stack.contains(&key.0) {
            return Err(compile_error(
                span,
                format!(
                    "`{}` calls itself (directly or through other functions): recursion is not allowed in kernels (C++ AMP restrict(amp)), as GPUs have no call stack",
                    func.name
                ),
            ));
        }
        let name = {
            let mut reg = self.fns.borrow_mut();
            reg.count += 1;
            let stem: String = func
                .name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            let name = format!("amp_fn_{stem}_{}", reg.count);
            reg.stack.push(key.0);
            name
        };
        let mut types = typeck::check_function(
            &mut func,
            type_args,
            &self.kernel.captures,
            self.kernel.rank,
        )?;
        crate::passes::optimize_function(&mut func, &mut types)?;
        typeck::annotate_function(
            &mut func,
            type_args,
            &self.kernel.captures,
            self.kernel.rank,
            &types,
        )?;
        crate::passes::legalize_function(&mut func, &self.kernel.captures, &mut types)?;
        // The instance reads the kernel's bindings (the captures its view
        // parameters bind, the tiled index's module-scope variables) by
        // their global names, which its own names must not shadow.
        let mut namer = Namer::default();
        for c in &self.captures {
            namer.internal(c);
        }
        let mut w = Writer {
            kernel: self.kernel,
            types: &types,
            namer,
            locals: Default::default(),
            captures: self.captures.clone(),
            out: String::new(),
            indent: 1,
            tmp: 0,
            uses_f64: false,
            uses_f16: false,
            immediates: self.immediates,
            loop_guard: self.loop_guard,
            fns: std::rc::Rc::clone(&self.fns),
            atomic: crate::passes::AtomicTargets {
                captures: self.atomic.captures.clone(),
                tiles: crate::passes::atomic_targets(&func.body).tiles,
            },
            subgroups: self.subgroups,
            tiled_functions: self.tiled_functions,
            function: Some({
                let mut reg = self.fns.borrow_mut();
                let next = reg.tile_prefixes.len();
                reg.tile_prefixes
                    .entry((key.0, type_args.to_vec()))
                    .or_insert_with(|| format!("amp_ts{next}_{}", func.name))
                    .clone()
            }),
        };
        let mut params = Vec::new();
        for (i, (local, pname, ty)) in func.params.iter().enumerate() {
            let ty = typeck::substitute(ty, type_args);
            w.note(&ty);
            params.push(format!("amp_a{i}: {}", type_wgsl(&ty)));
            if let Type::Ref(_) = ty {
                // A `&mut T` parameter: every use goes through the pointer.
                w.locals.insert(*local, format!("(*amp_a{i})"));
                continue;
            }
            let wname = w.namer.name(pname);
            w.locals.insert(*local, wname.clone());
            w.line(&format!("var {wname}: {} = amp_a{i};", type_wgsl(&ty)));
        }
        let result = (|| {
            w.block_stmts(&func.body)?;
            if let Some(t) = &func.body.tail {
                let mut pre = Vec::new();
                let (v, _) = w.expr(t, &mut pre)?;
                w.flush_pre(pre);
                if ret == Type::Index(0) {
                    w.line(&format!("_ = {v};"));
                } else {
                    w.line(&format!("return {v};"));
                }
            }
            Ok(())
        })();
        self.fns.borrow_mut().stack.pop();
        result?;
        self.note(&ret);
        self.uses_f64 |= w.uses_f64 || ret == Type::Scalar(Scalar::F64);
        self.uses_f16 |= w.uses_f16 || ret.uses_f16();
        let ret_text = if ret == Type::Index(0) {
            String::new()
        } else {
            format!(" -> {}", type_wgsl(&ret))
        };
        let def = format!(
            "fn {name}({}){ret_text} {{\n{}}}\n",
            params.join(", "),
            w.out
        );
        let mut reg = self.fns.borrow_mut();
        reg.defs.push_str(&def);
        reg.names.insert(key, name.clone());
        Ok((name, ret))
    }

    /// Writes `es` in Rust's order, left to right. Their statements are
    /// hoisted before the enclosing statement, so when a later operand's
    /// statements may have effects (an assignment in a block), every earlier
    /// operand's value is first bound to a `let` placed before them: it is
    /// the value Rust computed before those effects.
    fn seq(&mut self, es: &[&Expr], pre: &mut Vec<String>) -> Result<Vec<(String, Type)>> {
        let mut vals: Vec<(String, Type)> = Vec::with_capacity(es.len());
        // Where each value's statements end in `pre`.
        let mut ends: Vec<usize> = Vec::with_capacity(es.len());
        for e in es {
            let start = pre.len();
            let v = self.expr(e, pre)?;
            if !pre[start..].iter().all(|l| is_pure_line(l)) {
                self.bind_before(&mut vals, &ends, pre);
            }
            vals.push(v);
            ends.push(pre.len());
        }
        Ok(vals)
    }

    /// Binds each of `vals` that is not stable to a `let` at its place in
    /// `pre` (`ends[k]`: where value `k`'s statements ended).
    fn bind_before(&mut self, vals: &mut [(String, Type)], ends: &[usize], pre: &mut Vec<String>) {
        for k in (0..vals.len()).rev() {
            if !is_stable(&vals[k].0) {
                let tmp = self.fresh();
                pre.insert(ends[k], format!("let {tmp} = {};", vals[k].0));
                vals[k].0 = tmp;
            }
        }
    }

    fn fresh(&mut self) -> String {
        self.tmp += 1;
        self.namer.internal(&format!("amp_t{}", self.tmp))
    }

    /// The entry point of a tiled kernel: one workgroup per tile (the last
    /// dimension is x), and the `TiledIndex` fields of each thread.
    fn tiled_entry(&mut self, rank: usize, tile: &[u32]) {
        let dim = |d: usize| if d < rank { tile[rank - 1 - d] } else { 1 };
        // The tiled index of the work item: at module scope where
        // `#[kernel]` functions take it (they read it there), else local
        // to the entry point.
        let names = [
            "amp_local",
            "amp_tile",
            "amp_tile_origin",
            "amp_global",
            "amp_tile_extent",
            "amp_idx",
        ];
        for name in names {
            self.namer.internal(name);
            if self.tiled_functions {
                let _ = writeln!(self.out, "var<private> {name}: array<i32, {rank}>;");
            }
        }
        let _ = writeln!(
            self.out,
            "\n@compute @workgroup_size({}, {}, {})\nfn main(@builtin(workgroup_id) amp_wg: vec3<u32>, @builtin(num_workgroups) amp_nwg: vec3<u32>, @builtin(local_invocation_id) amp_lid: vec3<u32>{}) {{",
            dim(0),
            dim(1),
            dim(2),
            self.subgroup_params()
        );
        self.indent = 1;
        if !self.tiled_functions {
            for name in names {
                self.line(&format!("var {name}: array<i32, {rank}>;"));
            }
        }
        self.subgroup_init();
        let comps = ["x", "y", "z"];
        // The grid of tiles is linearised over up to three workgroup
        // dimensions, so that any number of tiles (up to the 2^32 - 1 work
        // items of a domain) can be dispatched; workgroups past the last
        // tile leave at once (uniformly: the whole workgroup does).
        let tile_size: u32 = tile.iter().product();
        self.line("let amp_tl = (amp_wg.z * amp_nwg.y + amp_wg.y) * amp_nwg.x + amp_wg.x;");
        self.line(&format!(
            "if (amp_tl >= amp_p.amp_total / {tile_size}u) {{ return; }}"
        ));
        self.line("var amp_trem = amp_tl;");
        for d in (0..rank).rev() {
            self.line(&format!(
                "amp_tile[{d}] = i32(amp_trem % (u32(amp_p.amp_e{d}) / {}u));",
                tile[d]
            ));
            if d > 0 {
                self.line(&format!(
                    "amp_trem = amp_trem / (u32(amp_p.amp_e{d}) / {}u);",
                    tile[d]
                ));
            }
        }
        for d in 0..rank {
            let c = comps[rank - 1 - d];
            self.line(&format!("amp_local[{d}] = i32(amp_lid.{c});"));
            self.line(&format!("amp_tile_extent[{d}] = {}i;", tile[d]));
            self.line(&format!(
                "amp_tile_origin[{d}] = amp_tile[{d}] * {}i;",
                tile[d]
            ));
            self.line(&format!(
                "amp_global[{d}] = amp_tile_origin[{d}] + amp_local[{d}];"
            ));
        }
        self.line("amp_idx = amp_global;");
    }

    /// The entry point's subgroup built-in parameters, if the module uses
    /// subgroup operations.
    fn subgroup_params(&self) -> &'static str {
        if self.subgroups {
            ", @builtin(subgroup_size) amp_sgs: u32, @builtin(subgroup_invocation_id) amp_sgi: u32"
        } else {
            ""
        }
    }

    /// Copies the subgroup built-ins to their module-scope variables.
    fn subgroup_init(&mut self) {
        if self.subgroups {
            self.line("amp_sg_size = amp_sgs;");
            self.line("amp_sg_lane = amp_sgi;");
        }
    }

    /// Records the declarations `t` needs.
    fn note(&mut self, t: &Type) {
        note_type(t, &mut self.fns.borrow_mut().decls);
    }

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
        let (i, elem, rank) = self.capture_container(c, span)?;
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
        Ok((format!("{}[{addr}]", self.captures[i]), elem))
    }

    /// `reinterpret_load(view, k, witness)` / `reinterpret_store(view, k,
    /// value)` (see [`Builtin::ReinterpretLoad`]): each 32-bit word of the
    /// value is a component of an element at a row-major position of the
    /// view, read or written (in `pre`) with a bitcast where the scalar
    /// types differ.
    fn reinterpret(
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
    fn is_atomic(&self, p: &Place) -> bool {
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
    fn atomic_op(
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

    fn place(&mut self, p: &Place, span: Span, pre: &mut Vec<String>) -> Result<(String, Type)> {
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

    fn lit(&mut self, l: &Lit, span: Span) -> Result<(String, Type)> {
        Ok(match *l {
            Lit::Bool(b) => (b.to_string(), Type::Scalar(Scalar::Bool)),
            Lit::Int(v, s) => {
                let s = s.unwrap_or(Scalar::I32);
                let text = match s {
                    Scalar::I32 if v <= i32::MAX as u128 => format!("{v}i"),
                    Scalar::I32 if v == 1 << 31 => "(-2147483647i - 1i)".to_string(),
                    Scalar::U32 if v <= u32::MAX as u128 => format!("{v}u"),
                    Scalar::F32 => format!("{v}.0f"),
                    Scalar::F64 => {
                        self.uses_f64 = true;
                        format!("{v}.0lf")
                    }
                    _ => {
                        return Err(compile_error(
                            span,
                            format!("literal {v} does not fit in {}", s.rust()),
                        ));
                    }
                };
                (text, Type::Scalar(s))
            }
            Lit::Float(v, s) => {
                let s = s.unwrap_or(Scalar::F64);
                if s == Scalar::F64 {
                    self.uses_f64 = true;
                }
                let finite = if s == Scalar::F32 {
                    (v as f32).is_finite()
                } else {
                    v.is_finite()
                };
                let text = if finite {
                    match s {
                        Scalar::F32 => format!("{:?}f", v as f32),
                        _ => format!("{v:?}lf"),
                    }
                } else {
                    // WGSL has no literal for infinities and NaN (and a
                    // constant expression must be finite); a bitcast is not
                    // a constant expression.
                    let bits = if v.is_nan() {
                        "0x7fc00000u"
                    } else if v > 0.0 {
                        "0x7f800000u"
                    } else {
                        "0xff800000u"
                    };
                    match s {
                        Scalar::F32 => format!("bitcast<f32>({bits})"),
                        _ => format!("f64(bitcast<f32>({bits}))"),
                    }
                };
                (text, Type::Scalar(s))
            }
        })
    }

    /// Writes `e`; statements it needs first go to `pre`.
    fn expr(&mut self, e: &Expr, pre: &mut Vec<String>) -> Result<(String, Type)> {
        let span = e.span;
        match &e.kind {
            ExprKind::Lit(l) => self.lit(l, span),
            ExprKind::Local(id) => Ok((self.local_name(*id, span)?, self.local_type(*id, span)?)),
            ExprKind::Capture(c) => match self.kernel.captures.get(c.0 as usize) {
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
            },
            ExprKind::KernelIndex => Ok(("amp_idx".to_string(), Type::Index(self.kernel.rank))),
            ExprKind::AddrOf(place) => {
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
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) => {
                let lv = self.expr(l, pre)?;
                let mut rpre = Vec::new();
                let rv = self.expr(r, &mut rpre)?;
                if rpre.iter().all(|l| is_pure_line(l)) {
                    pre.extend(rpre);
                    return self.binary(*op, lv, rv, span);
                }
                // The right operand's statements run only where Rust
                // evaluates it: `&&` and `||` short-circuit.
                let tmp = self.fresh();
                pre.push(format!("var {tmp}: bool = {};", lv.0));
                let test = if *op == BinOp::And {
                    tmp.clone()
                } else {
                    format!("!{tmp}")
                };
                pre.push(format!("if ({test}) {{"));
                pre.extend(rpre.into_iter().map(|l| format!("    {l}")));
                pre.push(format!("    {tmp} = {};", rv.0));
                pre.push("}".to_string());
                Ok((tmp, Type::Scalar(Scalar::Bool)))
            }
            ExprKind::Binary(op, l, r) => {
                let mut vals = self.seq(&[l, r], pre)?.into_iter();
                let (mut lv, rv) = (vals.next().expect("left"), vals.next().expect("right"));
                if is_const(l) && is_const(r) && is_arithmetic(*op) {
                    // Constant operands would make a WGSL constant
                    // expression, where overflow, shifting bits out, division
                    // by zero and non-finite results are shader-creation
                    // errors; Rust wraps (and gives inf/NaN) at run time.
                    let tmp = self.fresh();
                    pre.push(format!("let {tmp} = {};", lv.0));
                    lv.0 = tmp;
                }
                if let (BinOp::Div, Type::Scalar(Scalar::F32), Some(negative)) =
                    (op, &lv.1, literal_zero(r))
                {
                    // Division by a constant zero: IEEE's result, written
                    // out. Drivers that assume no infinities make `x / 0.0`
                    // poison (lavapipe dropped the store of the result).
                    return Ok((self.div_by_zero(&lv.0, negative, pre), lv.1));
                }
                self.binary(*op, lv, rv, span)
            }
            ExprKind::Unary(op, x) => {
                if let (UnOp::Neg, ExprKind::Lit(Lit::Int(v, Some(Scalar::I32)))) = (op, &x.kind)
                    && *v == 1 << 31
                {
                    return Ok(("(-2147483647i - 1i)".to_string(), Type::Scalar(Scalar::I32)));
                }
                let (mut v, t) = self.expr(x, pre)?;
                if is_const(x) && !matches!(x.kind, ExprKind::Lit(_)) {
                    // A constant operand is evaluated by the shader
                    // compiler, which rejects what wraps in Rust
                    // (`-i32::MIN`): negate it at run time.
                    let tmp = self.fresh();
                    pre.push(format!("let {tmp} = {v};"));
                    v = tmp;
                }
                let text = match (op, &t) {
                    (UnOp::Neg, Type::Index(n)) => {
                        let tmp = self.fresh();
                        pre.push(format!("let {tmp} = {v};"));
                        let parts: Vec<String> = (0..*n).map(|d| format!("-{tmp}[{d}]")).collect();
                        format!("array<i32, {n}>({})", parts.join(", "))
                    }
                    // Rust's `-x` flips the sign bit, NaN included; GPUs
                    // may give a negated NaN a canonical sign (NVIDIA), so
                    // `f32` values (not literals, which the shader compiler
                    // negates exactly) flip the bit.
                    (UnOp::Neg, Type::Scalar(Scalar::F32))
                        if !matches!(x.kind, ExprKind::Lit(_)) =>
                    {
                        format!("bitcast<f32>(bitcast<u32>({v}) ^ 0x80000000u)")
                    }
                    (UnOp::Neg, Type::Vector(n, Scalar::F32))
                        if !matches!(x.kind, ExprKind::Lit(_)) =>
                    {
                        format!(
                            "bitcast<vec{n}<f32>>(bitcast<vec{n}<u32>>({v}) ^ vec{n}<u32>(0x80000000u))"
                        )
                    }
                    // A negative literal (a negative constant) is
                    // parenthesised: `--0.5f` does not parse.
                    (UnOp::Neg, _) if v.starts_with('-') => format!("(-({v}))"),
                    (UnOp::Neg, _) => format!("(-{v})"),
                    (UnOp::Not, Type::Scalar(Scalar::Bool)) => format!("(!{v})"),
                    (UnOp::Not, _) => format!("(~{v})"),
                };
                Ok((text, t))
            }
            ExprKind::Cast(x, to) => {
                let (mut v, from) = self.expr(x, pre)?;
                if is_const(x) {
                    // As for binary operators: `1e300 as f32` is inf.
                    let tmp = self.fresh();
                    pre.push(format!("let {tmp} = {v};"));
                    v = tmp;
                }
                if *to == Scalar::F64 {
                    self.uses_f64 = true;
                }
                let text = match from {
                    Type::Scalar(f) if f == *to => v,
                    Type::Scalar(f) if f.is_float() && to.is_int() => {
                        // Rust: NaN -> 0, saturating at the integer range.
                        let (lo, hi) = match (*to, f) {
                            (Scalar::I32, Scalar::F32) => ("-2147483648.0", "2147483520.0"),
                            (Scalar::I32, _) => ("-2147483648.0", "2147483647.0"),
                            (_, Scalar::F32) => ("0.0", "4294967040.0"),
                            _ => ("0.0", "4294967295.0"),
                        };
                        let ty = f.wgsl();
                        let tmp = self.fresh();
                        pre.push(format!("let {tmp} = {v};"));
                        // NaN by its bits: `x != x` is false on drivers that
                        // compare ordered or assume no NaNs (lavapipe).
                        let is_nan = if f == Scalar::F32 {
                            format!("(bitcast<u32>({tmp}) & 0x7fffffffu) > 0x7f800000u")
                        } else {
                            format!("(bitcast<u32>(f32({tmp})) & 0x7fffffffu) > 0x7f800000u")
                        };
                        format!(
                            "select({to}(clamp({tmp}, {ty}({lo}), {ty}({hi}))), select({to}(0), {max}, {tmp} > {ty}({hi})), {is_nan} || {tmp} > {ty}({hi}))",
                            to = to.wgsl(),
                            max = if *to == Scalar::I32 {
                                "2147483647i"
                            } else {
                                "4294967295u"
                            }
                        )
                    }
                    _ => format!("{}({v})", to.wgsl()),
                };
                Ok((text, Type::Scalar(*to)))
            }
            ExprKind::Load(c, idx) => {
                let (text, ty) = self.address(*c, idx, span, pre)?;
                if self.atomic.captures.contains(&c.0) {
                    return Ok((atomic_load(&text, &ty), ty));
                }
                Ok((text, ty))
            }
            ExprKind::Atomic(op, place, args) => self.atomic_op(*op, place, args, span, pre),
            ExprKind::Extent(c) => {
                // The extent is part of the container's launch parameters.
                let (i, _, rank) = self.capture_container(*c, span)?;
                let parts: Vec<String> =
                    (0..rank).map(|d| format!("amp_p.amp_c{i}_e{d}")).collect();
                Ok((
                    format!("array<i32, {rank}>({})", parts.join(", ")),
                    Type::Index(rank),
                ))
            }
            ExprKind::TileLoad(id, idx) => {
                let (text, ty) = self.tile_element(*id, idx, span, pre)?;
                if self.atomic.tiles.contains(id) {
                    return Ok((atomic_load(&text, &ty), ty));
                }
                Ok((text, ty))
            }
            ExprKind::Tiled(f) => {
                let name = match f {
                    TiledField::Global => "amp_global",
                    TiledField::Local => "amp_local",
                    TiledField::Tile => "amp_tile",
                    TiledField::TileOrigin => "amp_tile_origin",
                    TiledField::TileExtent => "amp_tile_extent",
                };
                Ok((name.to_string(), Type::Index(self.kernel.rank)))
            }
            ExprKind::Field(x, m) => {
                let (v, t) = self.expr(x, pre)?;
                let (suffix, ft) = member_of(&t, m, span)?;
                let base = if v
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
                {
                    v
                } else {
                    let tmp = self.fresh();
                    pre.push(format!("let {tmp} = {v};"));
                    tmp
                };
                Ok((format!("{base}{suffix}"), ft))
            }
            ExprKind::MakeVector(n, sc, args) => {
                let args: Vec<&Expr> = args.iter().collect();
                let vals: Vec<String> = self.seq(&args, pre)?.into_iter().map(|v| v.0).collect();
                if *sc == Scalar::F64 {
                    self.uses_f64 = true;
                }
                let ty = Type::Vector(*n, *sc);
                Ok((format!("{}({})", type_wgsl(&ty), vals.join(", ")), ty))
            }
            ExprKind::MakeStruct(ty, fields) => {
                let Type::Struct(st) = ty else {
                    return Err(compile_error(span, "not a struct"));
                };
                self.note(ty);
                // Rust evaluates the fields in the order they are written.
                let written: Vec<&Expr> = fields.iter().map(|(_, e)| e).collect();
                let written_vals = self.seq(&written, pre)?;
                let mut vals = Vec::new();
                for (name, _) in &st.fields {
                    let k = fields
                        .iter()
                        .position(|(f, _)| f == name)
                        .ok_or_else(|| compile_error(span, format!("field `{name}` is missing")))?;
                    vals.push(written_vals[k].0.clone());
                }
                Ok((format!("{}({})", st.name, vals.join(", ")), ty.clone()))
            }
            ExprKind::MakeTuple(items) => {
                let items: Vec<&Expr> = items.iter().collect();
                let (vals, types): (Vec<String>, Vec<Type>) =
                    self.seq(&items, pre)?.into_iter().unzip();
                let ty = Type::Tuple(types);
                self.note(&ty);
                Ok((format!("{}({})", type_wgsl(&ty), vals.join(", ")), ty))
            }
            ExprKind::IndexComponent(x, k) => {
                let mut vals = self.seq(&[x, k], pre)?.into_iter();
                let (v, kv) = (vals.next().expect("index").0, vals.next().expect("k").0);
                let base = if v.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    v
                } else {
                    let tmp = self.fresh();
                    pre.push(format!("var {tmp} = {v};"));
                    tmp
                };
                Ok((format!("{base}[{kv}]"), Type::Scalar(Scalar::I32)))
            }
            ExprKind::MakeIndex(parts) => {
                let refs: Vec<&Expr> = parts.iter().collect();
                let vals: Vec<String> = self.seq(&refs, pre)?.into_iter().map(|v| v.0).collect();
                Ok((
                    format!("array<i32, {}>({})", parts.len(), vals.join(", ")),
                    Type::Index(parts.len() as u32),
                ))
            }
            ExprKind::ArrayElement(a, i) => {
                let mut vals = self.seq(&[a, i], pre)?.into_iter();
                let ((av, at), (iv, _)) =
                    (vals.next().expect("array"), vals.next().expect("index"));
                let elem = match at {
                    Type::Array(elem, _) => *elem,
                    Type::Index(_) => Type::Scalar(Scalar::I32),
                    _ => return Err(compile_error(span, "indexing a non-array")),
                };
                // An element of a local array (`acc[i][j]`) is read in
                // place; other array values are bound first.
                let base =
                    if av.chars().all(|c| c.is_alphanumeric() || c == '_') || is_local_element(a) {
                        av
                    } else {
                        let tmp = self.fresh();
                        pre.push(format!("var {tmp} = {av};"));
                        tmp
                    };
                Ok((format!("{base}[{iv}]"), elem))
            }
            ExprKind::MakeArray(items) => {
                let refs: Vec<&Expr> = items.iter().collect();
                let mut vals = Vec::new();
                let mut elem = Type::Scalar(Scalar::I32);
                for (v, t) in self.seq(&refs, pre)? {
                    vals.push(v);
                    elem = t;
                }
                let ty = Type::Array(Box::new(elem), items.len() as u32);
                Ok((format!("{}({})", type_wgsl(&ty), vals.join(", ")), ty))
            }
            ExprKind::RepeatArray(x, n) => {
                let (v, t) = self.expr(x, pre)?;
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {v};"));
                let ty = Type::Array(Box::new(t), *n);
                let vals = vec![tmp; *n as usize];
                Ok((format!("{}({})", type_wgsl(&ty), vals.join(", ")), ty))
            }
            ExprKind::CallFn(f, args, type_args) => {
                // The arguments that bind views and the tiled index pass
                // nothing: the instance uses what they bind directly.
                let func = f.function();
                let refs = crate::instance::value_args(&func, args);
                let bound = crate::instance::bound_captures(&func, args, span)?;
                let vals: Vec<String> = self.seq(&refs, pre)?.into_iter().map(|v| v.0).collect();
                let (name, ret) = self.function(*f, type_args, bound, span)?;
                Ok((format!("{name}({})", vals.join(", ")), ret))
            }
            ExprKind::Call(Builtin::UniformLoad, args) => match args.as_slice() {
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
            },
            ExprKind::Call(f @ (Builtin::ReinterpretLoad | Builtin::ReinterpretStore), args) => {
                self.reinterpret(*f, args, span, pre)
            }
            ExprKind::Call(Builtin::Bitcast, args) => {
                let [value, witness] = args.as_slice() else {
                    return Err(compile_error(span, "bitcast takes two arguments"));
                };
                let target = match &witness.kind {
                    ExprKind::Capture(c) => match self.kernel.captures.get(c.0 as usize) {
                        Some((_, CaptureKind::Container { elem, .. })) => elem.clone(),
                        _ => return Err(compile_error(span, "bitcast into a scalar capture")),
                    },
                    _ => self.expr(witness, pre)?.1,
                };
                let (v, _) = self.expr(value, pre)?;
                Ok((format!("bitcast<{}>({v})", type_wgsl(&target)), target))
            }
            ExprKind::Call(f, args) => {
                let refs: Vec<&Expr> = args.iter().collect();
                let mut vals: Vec<(String, Type)> = self.seq(&refs, pre)?;
                if !vals.is_empty() && args.iter().all(is_const) {
                    // As for binary operators: `(-1.0f32).sqrt()` is NaN.
                    let tmp = self.fresh();
                    pre.push(format!("let {tmp} = {};", vals[0].0));
                    vals[0].0 = tmp;
                }
                self.call(*f, vals, span, pre)
            }
            ExprKind::If(c, a, b) => {
                let (cv, _) = self.expr(c, pre)?;
                let tmp = self.fresh();
                // Write both branches into a nested writer state.
                let (a_pre, a_val) = self.hoisted_block(a)?;
                let (b_pre, b_val) = self.hoisted_block(b)?;
                let ty = a_val.1.clone();
                pre.push(format!("var {tmp}: {};", type_wgsl(&ty)));
                pre.push(format!("if ({cv}) {{"));
                pre.extend(a_pre.into_iter().map(|l| format!("    {l}")));
                pre.push(format!("    {tmp} = {};", a_val.0));
                pre.push("} else {".to_string());
                pre.extend(b_pre.into_iter().map(|l| format!("    {l}")));
                pre.push(format!("    {tmp} = {};", b_val.0));
                pre.push("}".to_string());
                Ok((tmp, ty))
            }
            ExprKind::Block(b) => {
                let (lines, val) = self.hoisted_block(b)?;
                pre.extend(lines);
                Ok(val)
            }
        }
    }

    /// `x / ±0.0` for an `f32` `x` without dividing: NaN where `x` is zero
    /// or NaN, else an infinity with the sign of `x` (flipped for `-0.0`).
    fn div_by_zero(&mut self, x: &str, negative_zero: bool, pre: &mut Vec<String>) -> String {
        let bits = self.fresh();
        pre.push(format!("let {bits} = bitcast<u32>({x});"));
        let flip = if negative_zero { "0x80000000u" } else { "0u" };
        format!(
            "bitcast<f32>(select((({bits} & 0x80000000u) ^ {flip}) | 0x7f800000u, 0x7fc00000u, ({bits} & 0x7fffffffu) == 0u || ({bits} & 0x7fffffffu) > 0x7f800000u))"
        )
    }

    /// Writes a block's statements as lines (for hoisting) and returns them
    /// with the value of its tail.
    fn hoisted_block(&mut self, b: &Block) -> Result<(Vec<String>, (String, Type))> {
        let saved_out = std::mem::take(&mut self.out);
        let saved_indent = self.indent;
        self.indent = 0;
        let result = (|| {
            self.block_stmts(b)?;
            let mut pre = Vec::new();
            let val = match &b.tail {
                Some(t) => self.expr(t, &mut pre)?,
                None => {
                    return Err(compile_error(
                        Span::default(),
                        "a block used as a value has no value",
                    ));
                }
            };
            self.flush_pre(pre);
            Ok(val)
        })();
        let body = std::mem::replace(&mut self.out, saved_out);
        self.indent = saved_indent;
        let val = result?;
        Ok((body.lines().map(str::to_string).collect(), val))
    }

    fn binary(
        &mut self,
        op: BinOp,
        (l, lt): (String, Type),
        (r, rt): (String, Type),
        span: Span,
    ) -> Result<(String, Type)> {
        if let (Type::Index(n), Type::Index(_)) = (&lt, &rt)
            && matches!(op, BinOp::Eq | BinOp::Ne)
        {
            // Arrays do not compare in WGSL: compare the components.
            let (join, cmp) = if op == BinOp::Eq {
                (" && ", "==")
            } else {
                (" || ", "!=")
            };
            let parts: Vec<String> = (0..*n)
                .map(|d| format!("({l}[{d}] {cmp} {r}[{d}])"))
                .collect();
            return Ok((
                format!("({})", parts.join(join)),
                Type::Scalar(Scalar::Bool),
            ));
        }
        if let (Type::Index(n), _) | (_, Type::Index(n)) = (&lt, &rt) {
            let n = *n;
            let part = |v: &str, t: &Type, d: u32| match t {
                Type::Index(_) => format!("{v}[{d}]"),
                _ => v.to_string(),
            };
            let parts: Vec<String> = (0..n)
                .map(|d| self.scalar_binary(op, &part(&l, &lt, d), &part(&r, &rt, d)))
                .collect();
            return Ok((
                format!("array<i32, {n}>({})", parts.join(", ")),
                Type::Index(n),
            ));
        }
        if let (Type::Vector(n, sc), _) | (_, Type::Vector(n, sc)) = (&lt, &rt) {
            let (n, sc) = (*n, *sc);
            let vt = Type::Vector(n, sc);
            let vw = type_wgsl(&vt);
            let widen = |v: &str, t: &Type| {
                if *t == vt {
                    v.to_string()
                } else {
                    format!("{vw}({v})")
                }
            };
            let (l, r) = (widen(&l, &lt), widen(&r, &rt));
            return Ok(match op {
                BinOp::Eq => (format!("all({l} == {r})"), Type::Scalar(Scalar::Bool)),
                BinOp::Ne => (format!("any({l} != {r})"), Type::Scalar(Scalar::Bool)),
                _ => (format!("({l} {} {r})", op.wgsl()), vt),
            });
        }
        let Type::Scalar(s) = lt else {
            return Err(compile_error(
                span,
                format!("operator {} on {lt:?}", op.wgsl()),
            ));
        };
        let text = self.scalar_binary(op, &l, &r);
        let ty = if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
            Type::Scalar(Scalar::Bool)
        } else {
            Type::Scalar(s)
        };
        Ok((text, ty))
    }

    /// `l op r` on scalars: WGSL's operator (Rust's semantics were lowered
    /// to WGSL's by `passes::legalize`).
    fn scalar_binary(&mut self, op: BinOp, l: &str, r: &str) -> String {
        format!("({l} {} {r})", op.wgsl())
    }

    /// `l op r` with Rust's results for `/` and `%` (what `rem_euclid` and
    /// `div_euclid` are built on; the operators themselves are lowered by
    /// `passes::legalize`).
    fn guarded_binary(
        &mut self,
        op: BinOp,
        l: &str,
        r: &str,
        s: Scalar,
        pre: &mut Vec<String>,
    ) -> String {
        match (op, s.is_int()) {
            // Rust's `/` and `%` on integers never trap here: x / 0 == x,
            // x % 0 == 0, MIN / -1 == MIN, MIN % -1 == 0 (WGSL's results).
            // The divisor becomes 1 in those cases, so that no backend
            // divides by zero or overflows (undefined in GLSL, a
            // shader-creation error in a WGSL constant expression), and the
            // `i32` remainder is `l - (l / d) * d` (GLSL leaves `%` of
            // negative operands undefined).
            (BinOp::Div | BinOp::Rem, true) => {
                let (lt, rt, d) = (self.fresh(), self.fresh(), self.fresh());
                pre.push(format!("let {lt} = {l};"));
                pre.push(format!("let {rt} = {r};"));
                let (one, unsafe_divisor) = if s == Scalar::I32 {
                    (
                        "1i",
                        format!("{rt} == 0i || ({lt} == (-2147483647i - 1i) && {rt} == -1i)"),
                    )
                } else {
                    ("1u", format!("{rt} == 0u"))
                };
                pre.push(format!("let {d} = select({rt}, {one}, {unsafe_divisor});"));
                match (op, s) {
                    (BinOp::Div, _) => format!("({lt} / {d})"),
                    (_, Scalar::I32) => format!("({lt} - ({lt} / {d}) * {d})"),
                    _ => format!("({lt} % {d})"),
                }
            }
            (BinOp::Rem, false) => {
                // Rust's float `%` is C's `fmod`, exact, with the sign of
                // `l`; WGSL's `%` is `l - r * trunc(l / r)`, inexact
                // (lavapipe: `100.0 % 0.7` was 0.5999985, `1.0 % 1e-6` 0).
                let f = self.fmod(s);
                if s == Scalar::F16 {
                    // `f16` operands are exact in `f32`, and so is the
                    // remainder, which fits `f16` again.
                    format!("f16({f}(f32({l}), f32({r})))")
                } else {
                    format!("{f}({l}, {r})")
                }
            }
            _ => format!("({l} {} {r})", op.wgsl()),
        }
    }

    /// [`Builtin::Fmod`]: the exact `fmod` helper, component by component
    /// on vectors (a scalar operand applies to every component); `f16`
    /// operands are exact in `f32`, and so is their remainder, which fits
    /// `f16` again.
    fn fmod_call(
        &mut self,
        args: Vec<(String, Type)>,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        let [(l, lt), (r, rt)] = args.as_slice() else {
            return Err(compile_error(span, "fmod takes two arguments"));
        };
        match (lt, rt) {
            (Type::Vector(n, s), _) | (_, Type::Vector(n, s)) => {
                let (n, s) = (*n, *s);
                let vt = Type::Vector(n, s);
                let f = self.fmod(s);
                let (lv, rv) = (self.fresh(), self.fresh());
                pre.push(format!("let {lv} = {l};"));
                pre.push(format!("let {rv} = {r};"));
                let part = |v: &str, t: &Type, c: &str| match t {
                    Type::Vector(..) => format!("{v}.{c}"),
                    _ => v.to_string(),
                };
                let parts: Vec<String> = ["x", "y", "z", "w"][..usize::from(n)]
                    .iter()
                    .map(|c| format!("{f}({}, {})", part(&lv, lt, c), part(&rv, rt, c)))
                    .collect();
                Ok((format!("{}({})", type_wgsl(&vt), parts.join(", ")), vt))
            }
            (Type::Scalar(Scalar::F16), _) => {
                let f = self.fmod(Scalar::F16);
                Ok((format!("f16({f}(f32({l}), f32({r})))"), lt.clone()))
            }
            (Type::Scalar(s), _) => {
                let f = self.fmod(*s);
                Ok((format!("{f}({l}, {r})"), lt.clone()))
            }
            _ => Err(compile_error(span, format!("fmod of {lt:?}"))),
        }
    }

    fn call(
        &mut self,
        f: Builtin,
        args: Vec<(String, Type)>,
        span: Span,
        pre: &mut Vec<String>,
    ) -> Result<(String, Type)> {
        use Builtin::*;
        match f {
            Select => {
                let [(fv, ft), (tv, _), (cv, _)] = args.as_slice() else {
                    return Err(compile_error(span, "select takes three arguments"));
                };
                return Ok((format!("select({fv}, {tv}, {cv})"), ft.clone()));
            }
            Fmod => return self.fmod_call(args, span, pre),
            SubgroupSize => return Ok(("amp_sg_size".into(), Type::Scalar(Scalar::U32))),
            SubgroupLane => return Ok(("amp_sg_lane".into(), Type::Scalar(Scalar::U32))),
            SubgroupBallot => {
                return Ok((
                    format!("subgroupBallot({})", args[0].0),
                    Type::Vector(4, Scalar::U32),
                ));
            }
            SubgroupAdd | SubgroupMin | SubgroupMax => {
                let name = match f {
                    SubgroupAdd => "subgroupAdd",
                    SubgroupMin => "subgroupMin",
                    _ => "subgroupMax",
                };
                return Ok((format!("{name}({})", args[0].0), args[0].1.clone()));
            }
            SubgroupBroadcast => {
                return Ok((
                    format!("subgroupShuffle({}, u32({}))", args[0].0, args[1].0),
                    args[0].1.clone(),
                ));
            }
            _ => {}
        }
        let ty = args
            .first()
            .map(|a| a.1.clone())
            .ok_or_else(|| compile_error(span, "missing argument"))?;
        if let Type::Index(n) = ty {
            // Geometry: `Extent` methods (type reconstruction admitted only
            // these, with matching ranks).
            let e = self.fresh();
            pre.push(format!("let {e} = {};", args[0].0));
            return Ok(match f {
                Contains => {
                    let i = self.fresh();
                    pre.push(format!("let {i} = {};", args[1].0));
                    let parts: Vec<String> = (0..n)
                        .map(|d| format!("({i}[{d}] >= 0i && {i}[{d}] < {e}[{d}])"))
                        .collect();
                    let all = if parts.is_empty() {
                        "true".to_string()
                    } else {
                        parts.join(" && ")
                    };
                    (format!("({all})"), Type::Scalar(Scalar::Bool))
                }
                Linearize => {
                    // Row-major, Horner's way: ((i0 * e1) + i1) * e2 + i2.
                    let i = self.fresh();
                    pre.push(format!("let {i} = {};", args[1].0));
                    let scalar = matches!(args[1].1, Type::Scalar(_));
                    let at = |d: u32| {
                        if scalar {
                            i.clone()
                        } else {
                            format!("{i}[{d}]")
                        }
                    };
                    let mut acc = at(0);
                    for d in 1..n {
                        acc = format!("({acc} * {e}[{d}] + {})", at(d));
                    }
                    (acc, Type::Scalar(Scalar::I32))
                }
                Delinearize => {
                    // The last component varies fastest; the first takes
                    // what is left (out of bounds if `k` is).
                    let (r, k) = (self.fresh(), self.fresh());
                    pre.push(format!("var {r}: array<i32, {n}>;"));
                    pre.push(format!("var {k} = {};", args[1].0));
                    for d in (1..n).rev() {
                        pre.push(format!("{r}[{d}] = {k} % {e}[{d}];"));
                        pre.push(format!("{k} = {k} / {e}[{d}];"));
                    }
                    pre.push(format!("{r}[0] = {k};"));
                    (r, Type::Index(n))
                }
                Size => {
                    let parts: Vec<String> = (0..n).map(|d| format!("u32({e}[{d}])")).collect();
                    let product = if parts.is_empty() {
                        "1u".to_string()
                    } else {
                        parts.join(" * ")
                    };
                    (format!("({product})"), Type::Scalar(Scalar::U32))
                }
                _ => {
                    return Err(compile_error(
                        span,
                        format!("{f:?} does not apply to an extent"),
                    ));
                }
            });
        }
        if let Type::Vector(_, s) = ty {
            // Short vectors: WGSL's built-ins, component by component (type
            // reconstruction admitted only those that have one).
            let a: Vec<&str> = args.iter().map(|a| a.0.as_str()).collect();
            let call = |name: &str| format!("{name}({})", a.join(", "));
            if s == Scalar::F64 && matches!(f, Exp | Exp2 | Ln | Log2 | Cos) {
                return Err(Error::Unsupported {
                    target: "GPU accelerators (WGSL)".to_string(),
                    feature: format!(
                        "the f64 transcendental function {f:?} at {span} (GPU shading languages have it for f32 only)"
                    ),
                });
            }
            let scalar = Type::Scalar(s);
            return Ok(match f {
                Dot => (call("dot"), scalar),
                Length => (call("length"), scalar),
                Distance => (call("distance"), scalar),
                Normalize => (call("normalize"), ty),
                Cross => (call("cross"), ty),
                Sqrt => (call("sqrt"), ty),
                Floor => (call("floor"), ty),
                Ceil => (call("ceil"), ty),
                Exp => (call("exp"), ty),
                Exp2 => (call("exp2"), ty),
                Ln => (call("log"), ty),
                Log2 => (call("log2"), ty),
                Cos => (call("cos"), ty),
                MulAdd => (call("fma"), ty),
                Recip => (format!("(1.0 / {})", a[0]), ty),
                Abs if s == Scalar::U32 => (format!("({})", a[0]), ty),
                Abs => (call("abs"), ty),
                Min => (call("min"), ty),
                Max => (call("max"), ty),
                Clamp => (format!("min(max({}, {}), {})", a[0], a[1], a[2]), ty),
                _ => {
                    return Err(compile_error(
                        span,
                        format!("{f:?} does not apply to short vectors"),
                    ));
                }
            });
        }
        if ty == Type::Scalar(Scalar::F64)
            && matches!(
                f,
                Exp | Exp2
                    | Ln
                    | Log2
                    | Sin
                    | Cos
                    | Tan
                    | Asin
                    | Acos
                    | Atan
                    | Atan2
                    | Sinh
                    | Cosh
                    | Tanh
                    | Powf
                    | Log10
            )
        {
            // SPIR-V (GLSL.std.450), HLSL and MSL have these for 32-bit
            // floats only: drivers that accept them on f64 compute garbage
            // (lavapipe does). Refuse rather than silently lose precision.
            return Err(Error::Unsupported {
                target: "GPU accelerators (WGSL)".to_string(),
                feature: format!(
                    "the f64 transcendental function {f:?} at {span} (GPU shading languages have it for f32 only; compute it in f32, e.g. `(x as f32).sin() as f64`)"
                ),
            });
        }
        let a: Vec<&str> = args.iter().map(|a| a.0.as_str()).collect();
        let simple = |name: &str| format!("{name}({})", a.join(", "));
        let text = match f {
            Sqrt => simple("sqrt"),
            // `abs` of a `u32` is the value itself; naga's GLSL output
            // computes it as `abs(int(x))`.
            Abs if ty == Type::Scalar(Scalar::U32) => format!("({})", a[0]),
            Abs => simple("abs"),
            Min => simple("min"),
            Max => simple("max"),
            Clamp => format!("min(max({}, {}), {})", a[0], a[1], a[2]),
            Floor => simple("floor"),
            Ceil => simple("ceil"),
            Round => {
                // Rust rounds half away from zero; WGSL's round() to even.
                // On the magnitude `a`: floor(a) plus 1 if its fraction
                // (exact) is at least one half; then the argument's sign
                // (`-0.0` for `-0.4`). Values of at least 2^23 (2^52 for
                // f64), infinities, NaN and zeros are their own rounding.
                let (tmp, mag, r) = (self.fresh(), self.fresh(), self.fresh());
                pre.push(format!("let {tmp} = {};", a[0]));
                pre.push(format!("let {mag} = abs({tmp});"));
                pre.push(format!(
                    "let {r} = floor({mag}) + floor(({mag} - floor({mag})) * 2.0);"
                ));
                let big = if ty == Type::Scalar(Scalar::F32) {
                    "8388608.0f"
                } else {
                    "4503599627370496.0lf"
                };
                format!(
                    "select(select({r}, -{r}, {tmp} < 0.0), {tmp}, {tmp} == 0.0 || !({mag} < {big}))"
                )
            }
            // lavapipe's `f64` `trunc` is wrong from 2^31 on (its `floor`
            // and `ceil` are right).
            Trunc if ty == Type::Scalar(Scalar::F64) => {
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {};", a[0]));
                format!("select(ceil({tmp}), floor({tmp}), {tmp} >= 0.0lf)")
            }
            Fract if ty == Type::Scalar(Scalar::F64) => {
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {};", a[0]));
                format!("({tmp} - select(ceil({tmp}), floor({tmp}), {tmp} >= 0.0lf))")
            }
            Trunc => simple("trunc"),
            Exp => simple("exp"),
            Exp2 => simple("exp2"),
            Ln => simple("log"),
            Log2 => simple("log2"),
            Sin | Tan | Asin => {
                // Odd functions are `x` itself, correctly rounded, where
                // |x| < 2^-12 (the cubic term is below half an ulp), so
                // zeros keep their sign and tiny arguments lose no digits;
                // NaN stays NaN.
                let name = match f {
                    Sin => "sin",
                    Tan => "tan",
                    _ => "asin",
                };
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {};", a[0]));
                format!(
                    "select({name}({tmp}), {tmp}, abs({tmp}) < 0.000244140625f || (bitcast<u32>({tmp}) & 0x7fffffffu) > 0x7f800000u)"
                )
            }
            Cos => simple("cos"),

            Acos => simple("acos"),
            // As `sin` (lavapipe's `atan(NaN)` is 0).
            Atan => {
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                format!(
                    "select(atan({x}), {x}, abs({x}) < 0.000244140625f || (bitcast<u32>({x}) & 0x7fffffffu) > 0x7f800000u)"
                )
            }
            Atan2 => simple("atan2"),
            // Drivers compute sinh and tanh from exponentials, which
            // cancel for small arguments (lavapipe: relative errors of 1e-1
            // near 1e-4); their Taylor series are exact there in f32.
            Sinh => {
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                format!(
                    "select(sinh({x}), {x} * (1.0 + {x} * {x} * (1.0 / 6.0 + {x} * {x} * (1.0 / 120.0 + {x} * {x} / 5040.0))), abs({x}) < 0.1)"
                )
            }
            Cosh => simple("cosh"),
            Tanh => {
                // Also 1 (with the sign) beyond 20, where exp overflows.
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                format!(
                    "select(select(tanh({x}), sign({x}), abs({x}) > 20.0), {x} * (1.0 - {x} * {x} * (1.0 / 3.0 - {x} * {x} * (2.0 / 15.0 - {x} * {x} * 17.0 / 315.0))), abs({x}) < 0.1)"
                )
            }
            Powf => {
                // Rust's special values and negative bases (WGSL's `pow` is
                // `exp2(y * log2(x))`; lavapipe's gives 0 for a zero base).
                let f = self.helper("amp_powf_f32", POWF_F32);
                format!("{f}({}, {})", a[0], a[1])
            }
            MulAdd => simple("fma"),
            Signum => {
                // Rust's `signum`: 1 for +0.0, -1 for -0.0, NaN for NaN
                // (WGSL's `sign` gives 0 for zeros).
                let tmp = self.fresh();
                pre.push(format!("let {tmp} = {};", a[0]));
                if ty == Type::Scalar(Scalar::F32) {
                    format!(
                        "select(select(-1.0f, 1.0f, (bitcast<u32>({tmp}) & 0x80000000u) == 0u), {tmp}, (bitcast<u32>({tmp}) & 0x7fffffffu) > 0x7f800000u)"
                    )
                } else {
                    format!(
                        "select(select(-1.0lf, 1.0lf, {tmp} > 0.0lf || ({tmp} == 0.0lf && 1.0lf / {tmp} > 0.0lf)), {tmp}, {tmp} != {tmp})"
                    )
                }
            }
            Recip => format!("(1.0 / {})", a[0]),
            // Rust's `fract`: `x - trunc(x)` (WGSL's `fract` floors).
            Fract => format!("({0} - trunc({0}))", a[0]),
            CountOnes => {
                return Ok((
                    format!("u32(countOneBits({}))", a[0]),
                    Type::Scalar(Scalar::U32),
                ));
            }
            LeadingZeros => {
                return Ok((
                    format!("u32(countLeadingZeros({}))", a[0]),
                    Type::Scalar(Scalar::U32),
                ));
            }
            TrailingZeros => {
                return Ok((
                    format!("u32(countTrailingZeros({}))", a[0]),
                    Type::Scalar(Scalar::U32),
                ));
            }
            ReverseBits => simple("reverseBits"),
            ToBits => {
                return Ok((format!("bitcast<u32>({})", a[0]), Type::Scalar(Scalar::U32)));
            }
            FromBits => {
                return Ok((format!("bitcast<f32>({})", a[0]), Type::Scalar(Scalar::F32)));
            }
            HalfFromF32 | HalfFromF64 => {
                self.uses_f16 = true;
                return Ok((format!("f16({})", a[0]), Type::Scalar(Scalar::F16)));
            }
            HalfToF32 => return Ok((format!("f32({})", a[0]), Type::Scalar(Scalar::F32))),
            HalfToF64 => {
                self.uses_f64 = true;
                return Ok((format!("f64({})", a[0]), Type::Scalar(Scalar::F64)));
            }
            Dot | Length | Distance | Normalize | Cross => {
                return Err(compile_error(
                    span,
                    format!("{f:?} applies to float short vectors, not {ty:?}"),
                ));
            }
            Contains | Size | Linearize | Delinearize | Bitcast | ReinterpretLoad
            | ReinterpretStore => {
                return Err(compile_error(
                    span,
                    format!("{f:?} applies to an extent, not {ty:?}"),
                ));
            }
            UniformLoad => {
                return Err(compile_error(span, "a uniform load of a computed value"));
            }
            SubgroupAdd | SubgroupMin | SubgroupMax | SubgroupBroadcast | SubgroupBallot
            | SubgroupSize | SubgroupLane | Select | Fmod => {
                unreachable!("subgroup built-ins, select and fmod are written above")
            }
            Hypot | Log | Ln1p | ExpM1 | Cbrt | SinCos | Asinh | Acosh | Atanh => {
                return Err(compile_error(
                    span,
                    format!(
                        "{f:?} reached the WGSL writer unlowered (a bug: passes::lower expands it)"
                    ),
                ));
            }
            IsPowerOfTwo => {
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                return Ok((
                    format!("({x} != 0u && ({x} & ({x} - 1u)) == 0u)"),
                    Type::Scalar(Scalar::Bool),
                ));
            }
            AbsDiff => {
                let (x, y) = (self.fresh(), self.fresh());
                pre.push(format!("let {x} = {};", a[0]));
                pre.push(format!("let {y} = {};", a[1]));
                return Ok((
                    format!("select(u32({y}) - u32({x}), u32({x}) - u32({y}), {x} > {y})"),
                    Type::Scalar(Scalar::U32),
                ));
            }
            // Through the kernel language's guarded `/` and `%` (0 and
            // `MIN / -1` as for the operators), then Rust's adjustment.
            RemEuclid | DivEuclid => {
                let s = match ty {
                    Type::Scalar(s) => s,
                    _ => return Err(compile_error(span, "rem_euclid of a non-scalar")),
                };
                let (x, y) = (self.fresh(), self.fresh());
                pre.push(format!("let {x} = {};", a[0]));
                pre.push(format!("let {y} = {};", a[1]));
                let r = self.guarded_binary(BinOp::Rem, &x, &y, s, pre);
                if s.is_float() {
                    // Rust: `r + |y|` for a negative remainder; the
                    // quotient is `trunc(x / y)` adjusted the same way.
                    let rt = self.fresh();
                    pre.push(format!("let {rt} = {r};"));
                    if f == RemEuclid {
                        format!("select({rt}, {rt} + abs({y}), {rt} < 0.0)")
                    } else {
                        let (q, qt) = (self.fresh(), self.fresh());
                        pre.push(format!("let {q} = {x} / {y};"));
                        pre.push(format!(
                            "let {qt} = select(ceil({q}), floor({q}), {q} >= 0.0);"
                        ));
                        format!(
                            "select({qt}, select({qt} + 1.0, {qt} - 1.0, {y} > 0.0), {rt} < 0.0)"
                        )
                    }
                } else if s == Scalar::U32 {
                    if f == RemEuclid {
                        r
                    } else {
                        self.guarded_binary(BinOp::Div, &x, &y, s, pre)
                    }
                } else {
                    let rt = self.fresh();
                    pre.push(format!("let {rt} = {r};"));
                    if f == RemEuclid {
                        format!("select({rt}, select({rt} + {y}, {rt} - {y}, {y} < 0i), {rt} < 0i)")
                    } else {
                        let q = self.guarded_binary(BinOp::Div, &x, &y, s, pre);
                        let qt = self.fresh();
                        pre.push(format!("let {qt} = {q};"));
                        format!("select({qt}, select({qt} - 1i, {qt} + 1i, {y} < 0i), {rt} < 0i)")
                    }
                }
            }
            CountZeros | LeadingOnes | TrailingOnes => {
                let name = match f {
                    CountZeros => "countOneBits",
                    LeadingOnes => "countLeadingZeros",
                    _ => "countTrailingZeros",
                };
                return Ok((
                    format!("u32({name}(~({})))", a[0]),
                    Type::Scalar(Scalar::U32),
                ));
            }
            // The first operand is bound first, so that constant operands
            // do not form a WGSL constant expression (where wrapping is an
            // error); at run time WGSL's integer arithmetic wraps.
            WrappingAdd | WrappingSub | WrappingMul => {
                let t = self.fresh();
                pre.push(format!("let {t} = {};", a[0]));
                let op = match f {
                    WrappingAdd => "+",
                    WrappingSub => "-",
                    _ => "*",
                };
                format!("({t} {op} {})", a[1])
            }
            WrappingNeg => {
                let t = self.fresh();
                pre.push(format!("let {t} = {};", a[0]));
                // WGSL has no unary `-` on `u32`: `0 - x` wraps the same.
                if ty == Type::Scalar(Scalar::U32) {
                    format!("(0u - {t})")
                } else {
                    format!("(-{t})")
                }
            }
            RotateLeft | RotateRight => {
                let (x, n) = (self.fresh(), self.fresh());
                let bits = if ty == Type::Scalar(Scalar::I32) {
                    format!("bitcast<u32>({})", a[0])
                } else {
                    a[0].to_string()
                };
                pre.push(format!("let {x} = {bits};"));
                pre.push(format!("let {n} = {} % 32u;", a[1]));
                let (first, second) = if f == RotateLeft {
                    ("<<", ">>")
                } else {
                    (">>", "<<")
                };
                let rotated = format!("(({x} {first} {n}) | ({x} {second} ((32u - {n}) % 32u)))");
                if ty == Type::Scalar(Scalar::I32) {
                    format!("bitcast<i32>{rotated}")
                } else {
                    rotated
                }
            }
            Pow => {
                let t = type_wgsl(&ty);
                let name = format!("amp_ipow_{t}");
                let text = IPOW.replace("{NAME}", &name).replace("{T}", &t);
                let f = self.helper(&name, &text);
                format!("{f}({}, {})", a[0], a[1])
            }
            Powi => {
                let t = type_wgsl(&ty);
                let name = format!("amp_powi_{t}");
                let text = POWI.replace("{NAME}", &name).replace("{T}", &t);
                let f = self.helper(&name, &text);
                format!("{f}({}, {})", a[0], a[1])
            }
            // f32 only (f64 is refused above, as the other transcendentals).
            Log10 => format!("(log2({}) * 0.30102999566398120f)", a[0]),
            // Rust's constants, one multiplication as Rust does.
            ToRadians if ty == Type::Scalar(Scalar::F64) => {
                format!("({} * 0.017453292519943295lf)", a[0])
            }
            ToRadians => format!("({} * 0.017453292f)", a[0]),
            ToDegrees if ty == Type::Scalar(Scalar::F64) => {
                format!("({} * 57.29577951308232lf)", a[0])
            }
            ToDegrees => format!("({} * 57.29578f)", a[0]),
            // Bit tests on `f32`; drivers may assume no NaN in comparisons.
            Copysign if ty == Type::Scalar(Scalar::F32) => format!(
                "bitcast<f32>((bitcast<u32>({}) & 0x7fffffffu) | (bitcast<u32>({}) & 0x80000000u))",
                a[0], a[1]
            ),
            IsNan | IsFinite | IsInfinite | IsSignNegative | IsSignPositive
                if ty == Type::Scalar(Scalar::F32) =>
            {
                let b = format!("bitcast<u32>({})", a[0]);
                let text = match f {
                    IsNan => format!("(({b} & 0x7fffffffu) > 0x7f800000u)"),
                    IsFinite => format!("(({b} & 0x7f800000u) != 0x7f800000u)"),
                    IsInfinite => format!("(({b} & 0x7fffffffu) == 0x7f800000u)"),
                    IsSignNegative => format!("(({b} & 0x80000000u) != 0u)"),
                    _ => format!("(({b} & 0x80000000u) == 0u)"),
                };
                return Ok((text, Type::Scalar(Scalar::Bool)));
            }
            // `f64`: through arithmetic (no 64-bit bitcast); the sign of a
            // NaN is not seen.
            Copysign => {
                let (x, s) = (self.fresh(), self.fresh());
                pre.push(format!("let {x} = abs({});", a[0]));
                pre.push(format!("let {s} = {};", a[1]));
                format!("select({x}, -{x}, {s} < 0.0lf || ({s} == 0.0lf && 1.0lf / {s} < 0.0lf))")
            }
            IsNan | IsFinite | IsInfinite | IsSignNegative | IsSignPositive => {
                let x = self.fresh();
                pre.push(format!("let {x} = {};", a[0]));
                let negative = format!("({x} < 0.0lf || ({x} == 0.0lf && 1.0lf / {x} < 0.0lf))");
                let text = match f {
                    IsNan => format!("(!({x} == {x}))"),
                    IsFinite => format!("(({x} - {x}) == 0.0lf)"),
                    IsInfinite => format!("(({x} == {x}) && !(({x} - {x}) == 0.0lf))"),
                    IsSignNegative => negative,
                    _ => format!("(!{negative})"),
                };
                return Ok((text, Type::Scalar(Scalar::Bool)));
            }
        };
        Ok((text, ty))
    }
}

/// Whether `e` is a local array or an element of one (`acc`, `acc[i]`).
fn is_local_element(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) => true,
        ExprKind::ArrayElement(a, _) => is_local_element(a),
        _ => false,
    }
}

/// The WGSL member access (`.x`, `.field`, `.f0`) and type of `m` of `t`.
fn member_of(t: &Type, m: &Member, span: Span) -> Result<(String, Type)> {
    match (t, m) {
        (Type::Vector(_, s), Member::Named(n)) if n.len() == 1 => {
            Ok((format!(".{n}"), Type::Scalar(*s)))
        }
        // A swizzle (type reconstruction checked the components).
        (Type::Vector(_, s), Member::Named(n)) => {
            Ok((format!(".{n}"), Type::Vector(n.len() as u8, *s)))
        }
        (Type::Struct(st), Member::Named(n)) => st
            .fields
            .iter()
            .find(|(f, _)| f == n)
            .map(|(f, ft)| (format!(".{f}"), ft.clone()))
            .ok_or_else(|| compile_error(span, format!("`{}` has no field `{n}`", st.name))),
        (Type::Tuple(ts), Member::Index(i)) => ts
            .get(*i as usize)
            .map(|ft| (format!(".f{i}"), ft.clone()))
            .ok_or_else(|| compile_error(span, format!("a tuple has no field {i}"))),
        _ => Err(compile_error(span, format!("field {m:?} of {t:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_namer_avoids_reserved_words_and_collisions() {
        let mut n = Namer::default();
        assert_eq!(n.name("sum"), "sum");
        assert_eq!(n.name("sum"), "sum_1");
        assert_eq!(n.name("loop"), "loop_");
        assert_eq!(n.name("loop"), "loop__1");
        assert_eq!(n.name("__x"), "_x");
        assert_eq!(n.name("select"), "select_");
        assert_eq!(n.name("main"), "main_");
        assert_eq!(n.name("amp_p"), "amp_p_");
        assert_eq!(n.name("_"), "v_");
        assert_eq!(n.name("1a"), "v1a");
        let naga_words = naga::keywords::wgsl::RESERVED
            .iter()
            .chain(naga::keywords::wgsl::BUILTIN_IDENTIFIERS);
        for word in naga_words.chain(OWN_NAMES) {
            let name = n.name(word);
            assert!(!is_taken_by_wgsl(&name), "{word} -> {name}");
            assert_ne!(&name, word);
        }
    }
}
