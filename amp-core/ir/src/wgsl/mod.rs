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
//!
//! The writer is one [`Writer`] whose methods are spread over this
//! directory, one file per construct:
//!
//! | file | what it writes |
//! |---|---|
//! | `module.rs` | the module: parameter block, bindings, entry points, helper functions |
//! | `function.rs` | `#[kernel]` function instances and calls to them |
//! | `stmt.rs` | statements and loops |
//! | `expr.rs` | expressions: the dispatch, operand order, literals, `if` and blocks |
//! | `aggregate.rs` | vectors, structs, tuples, indices and arrays: construction and elements |
//! | `binary.rs` | operators and casts |
//! | `memory.rs` | captures, places, loads and stores, atomics, `tile_static`, reinterpretation |
//! | `call.rs` | built-in calls: the dispatch, geometry, short vectors, subgroups, `fmod` |
//! | `math.rs` | float built-ins: rounding, transcendental functions, bit-level float functions |
//! | `integer.rs` | integer built-ins: bit counts, rotations, wrapping, Euclidean division |
//! | `types.rs` | WGSL types, declarations and member access |
//! | `namer.rs` | the [`Namer`] |

mod aggregate;
mod binary;
mod call;
mod expr;
mod function;
mod integer;
mod math;
mod memory;
mod module;
mod namer;
mod stmt;
mod types;

use crate::ir::*;
use crate::typeck::Types;
use crate::{Error, Result};

use namer::Namer;
use types::note_type;
pub(crate) use types::type_wgsl;

/// Threads per workgroup of a non-tiled launch.
pub const WORKGROUP_SIZE: u32 = 256;

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

/// The state of the writer of one module or `#[kernel]` function instance.
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
    /// The writable container captures that nothing writes, declared
    /// `read` (by their index among the captures).
    read_only: Vec<usize>,
    /// The `#[kernel]` function instances the kernel calls, lowered.
    instances: &'k crate::passes::instances::Instances,
}

/// `#[kernel]` function instances of one module.
#[derive(Default)]
struct FnRegistry {
    /// WGSL names of the instances written or being written.
    names: std::collections::HashMap<crate::instance::InstanceKey, String>,
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

/// A compile error at `span`.
fn compile_error(span: Span, message: impl Into<String>) -> Error {
    Error::Compile {
        kernel: span.to_string(),
        message: message.into(),
    }
}

/// Writes `kernel` (already type-checked) as WGSL, the container
/// captures of `read_only` declared `read` (writable views the kernel
/// never writes).
///
/// # Errors
///
/// [`Error::Compile`] for a construct the writer cannot express.
pub(crate) fn write(
    kernel: &Kernel,
    types: &Types,
    instances: &crate::passes::instances::Instances,
    read_only: &[usize],
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
        read_only: read_only.to_vec(),
        instances,
    };
    w.module()
}

/// The writer's basics: lines, temporaries, locals and declarations.
impl Writer<'_> {
    /// Writes a line at the current indentation.
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Writes the lines hoisted before a statement.
    fn flush_pre(&mut self, pre: Vec<String>) {
        for p in pre {
            self.line(&p);
        }
    }

    /// A new temporary (`amp_tN`).
    fn fresh(&mut self) -> String {
        self.tmp += 1;
        self.namer.internal(&format!("amp_t{}", self.tmp))
    }

    /// The type of local `id`.
    fn local_type(&self, id: LocalId, span: Span) -> Result<Type> {
        self.types
            .locals
            .get(&id)
            .cloned()
            .ok_or_else(|| compile_error(span, "a local of unknown type"))
    }

    /// The WGSL name of local `id`.
    fn local_name(&self, id: LocalId, span: Span) -> Result<String> {
        self.locals
            .get(&id)
            .cloned()
            .ok_or_else(|| compile_error(span, "a local used before its declaration"))
    }

    /// Records the declarations `t` needs.
    fn note(&mut self, t: &Type) {
        note_type(t, &mut self.fns.borrow_mut().decls);
    }
}
