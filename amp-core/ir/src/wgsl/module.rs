//! The module: the parameter block and its layout, the containers'
//! bindings, the entry points (non-tiled and tiled) and the WGSL helper
//! functions the writer declares once per module (`fmod`, `powf`, integer
//! powers).

use std::fmt::Write as _;

use super::types::{atomic_type_wgsl, type_wgsl, vector_wgsl};
use super::{LOOP_GUARD_LIMIT, ParamLayout, Shader, WORKGROUP_SIZE, Writer};
use crate::Result;
use crate::ir::*;

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

/// `x` to the power `e` for integers, wrapping (Rust's `wrapping_pow`):
/// square and multiply, at most 32 rounds.
pub(super) const IPOW: &str = "fn {NAME}(x: {T}, e: u32) -> {T} {
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
pub(super) const POWI: &str = "fn {NAME}(x: {T}, n: i32) -> {T} {
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

/// Rust's `f32::powf`: its special values (`x^0 == 1` and `1^y == 1`
/// even for NaN, `(-1)^±inf == 1`, zeros and infinities with their signs,
/// negative bases to integer powers, NaN for other negative bases), and
/// the driver's `pow` of `|x|` otherwise (`pow` is undefined for negative
/// bases, and lavapipe's gives 0 for a zero base whatever the exponent).
pub(super) const POWF_F32: &str = "fn amp_powf_f32(x: f32, y: f32) -> f32 {
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

impl Writer<'_> {
    /// Writes the whole module.
    pub(super) fn module(mut self) -> Result<Shader> {
        let k = self.kernel;
        let rank = k.rank as usize;
        let (fields, capture_words) = self.param_fields();
        let words = (fields.len() as u32).next_multiple_of(4);
        self.declarations(&fields);
        if let Some(tile) = &k.tile {
            self.tiled_entry(rank, tile);
        } else {
            self.linear_entry(rank);
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

    /// The parameter block's fields (name and WGSL type; an empty name for
    /// the second word of an `f64` and the other words of a vector) and
    /// each capture's first word. Names the captures.
    fn param_fields(&mut self) -> (Vec<(String, &'static str)>, Vec<u32>) {
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
        (fields, capture_words)
    }

    /// The module's header: the parameter block's type, the containers'
    /// bindings, the loop guard's status buffer, the parameters and the
    /// subgroup variables.
    fn declarations(&mut self, fields: &[(String, &'static str)]) {
        let k = self.kernel;
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
                let access = if *writable && !self.read_only.contains(&i) {
                    "read_write"
                } else {
                    "read"
                };
                let elem_wgsl = if self.packed(i as u32).is_some() {
                    // Small integers, packed into 32-bit words.
                    if self.packed_atomic(i as u32) {
                        "atomic<u32>".to_string()
                    } else {
                        "u32".to_string()
                    }
                } else if self.atomic.captures.contains(&(i as u32)) {
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
    }

    /// The entry point of a non-tiled kernel: a grid of
    /// [`WORKGROUP_SIZE`]-thread workgroups, each thread's `Index<N>`
    /// rebuilt from its linear id.
    fn linear_entry(&mut self, rank: usize) {
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
        // The outermost component needs no remainder: `amp_lin` is below
        // the product of the extents, so what is left is below `e0`.
        for d in (0..rank).rev() {
            if d == 0 {
                self.line("amp_idx[0] = i32(amp_rem);");
            } else {
                self.line(&format!(
                    "amp_idx[{d}] = i32(amp_rem % u32(amp_p.amp_e{d}));"
                ));
                self.line(&format!("amp_rem = amp_rem / u32(amp_p.amp_e{d});"));
            }
        }
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
        // (The outermost tile number needs no remainder, as above.)
        for d in (0..rank).rev() {
            if d == 0 {
                self.line("amp_tile[0] = i32(amp_trem);");
            } else {
                self.line(&format!(
                    "amp_tile[{d}] = i32(amp_trem % (u32(amp_p.amp_e{d}) / {}u));",
                    tile[d]
                ));
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

    /// Declares the WGSL helper function `name` (`text`) once in the module
    /// and returns its name. Under the loop guard its loops count too.
    pub(super) fn helper(&mut self, name: &str, text: &str) -> String {
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
    pub(super) fn fmod(&mut self, s: Scalar) -> String {
        if s == Scalar::F64 {
            self.uses_f64 = true;
            self.helper("amp_fmod_f64", FMOD_F64)
        } else {
            self.helper("amp_fmod_f32", FMOD_F32)
        }
    }
}
