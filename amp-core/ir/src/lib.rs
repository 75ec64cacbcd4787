//! The kernel compiler of amp-rs: IR -> types -> passes -> WGSL -> naga.
//!
//! `parallel_for_each!` and `#[kernel]` (in `amp-macros`) expand to code
//! that builds this crate's IR ([`Kernel`], [`Function`], [`Expr`], ...)
//! at a kernel's first launch; `amp-core`'s runtime hands it to
//! [`compile`] for a GPU or to [`measure`] for the CPU accelerator. The
//! stages, as in naga, are separate modules:
//!
//! | stage | module | what it does |
//! |---|---|---|
//! | IR | `ir` | the tree the macros build ([`Kernel`]) |
//! | types | `typeck` | reconstructs every type with Rust's rules |
//! | resources | `resources` | local and `tile_static` bytes, recursion |
//! | passes | `passes` | folding, unrolling, scalar replacement |
//! | back end | `wgsl` | the WGSL writer and its namer |
//! | validation | `validate` | naga parses and validates the WGSL |
//!
//! The IR has a text form (module `text`: [`Kernel`]'s `Display` and
//! [`parse_kernel`]), on which the stage tests in `tests/stages` are built:
//! a kernel's text in, each stage's result out.
//!
//! The crate depends on neither wgpu nor the proc-macro crates: a
//! [`Target`] says what the device offers, and the result is WGSL source
//! plus the facts a launcher needs ([`Shader`], [`Resources`]).
//!
//! This crate is an implementation detail of `amp-core`, public so that
//! the macros' generated code can name the IR; its API follows amp-core's
//! versions, not semver of its own.

#[cfg(feature = "wgsl")]
mod instance;
mod ir;
#[cfg(feature = "wgsl")]
mod passes;
#[cfg(feature = "wgsl")]
mod resources;
#[cfg(all(test, feature = "wgsl"))]
mod stage_tests;
#[cfg(feature = "wgsl")]
mod text;
#[cfg(feature = "wgsl")]
mod typeck;
#[cfg(feature = "wgsl")]
mod validate;
#[cfg(feature = "wgsl")]
mod wgsl;

pub use ir::*;
#[cfg(feature = "wgsl")]
pub use resources::{MAX_LOCAL_BYTES, Resources};
#[cfg(feature = "wgsl")]
pub use text::{ParseError, parse_function, parse_kernel, parse_kernel_in};
#[cfg(feature = "wgsl")]
pub use wgsl::{LOOP_GUARD_LIMIT, ParamLayout, Shader, WORKGROUP_SIZE};

/// An error of the kernel compiler.
///
/// `amp-core` turns it into its own `Error::KernelCompile` or
/// `Error::UnsupportedFeature`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The kernel cannot be lowered (an ill-typed tree, recursion, an
    /// `#[unroll]` loop that cannot be unrolled, WGSL naga rejects).
    #[error("kernel compile error in {kernel}: {message}")]
    Compile {
        /// The kernel's name and Rust source location.
        kernel: String,
        /// What went wrong.
        message: String,
    },
    /// The kernel needs what the target lacks (f64 transcendental
    /// functions in WGSL, ...).
    #[error("unsupported feature on {target}: {feature}")]
    Unsupported {
        /// The kind of target.
        target: String,
        /// The missing feature.
        feature: String,
    },
}

/// The compiler's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// What a GPU device offers the WGSL back end.
///
/// # Examples
///
/// ```
/// let target = amp_ir::Target { f64: true, ..amp_ir::Target::default() };
/// assert!(!target.immediates);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Target {
    /// Immediates (push constants) are available.
    pub immediates: bool,
    /// The most bytes of immediates; parameters that do not fit go to a
    /// uniform buffer.
    pub max_immediate_bytes: u32,
    /// `f16` arithmetic (`SHADER_F16`).
    pub f16: bool,
    /// `f64` arithmetic (`SHADER_F64`).
    pub f64: bool,
    /// Subgroup operations (`SUBGROUP`).
    pub subgroups: bool,
    /// Count loop iterations against [`LOOP_GUARD_LIMIT`] (Mesa's
    /// llvmpipe).
    pub loop_guard: bool,
}

#[cfg(feature = "wgsl")]
/// A kernel compiled to WGSL.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The module, with the facts the launcher needs.
    pub shader: Shader,
    /// What the kernel needs besides its code.
    pub resources: Resources,
    /// The writable container captures (indices into the kernel's
    /// captures) that the kernel never writes, which the WGSL declares
    /// read-only.
    pub demoted: Vec<usize>,
}

#[cfg(feature = "wgsl")]
/// Lowers `kernel` to validated WGSL for `target`.
///
/// Parameters are passed as immediates when the target has them and they
/// fit; writable containers the kernel never writes are declared read-only,
/// except those in `keep` (indices into the kernel's captures).
///
/// # Errors
///
/// [`Error::Compile`] if the kernel cannot be lowered,
/// [`Error::Unsupported`] if it needs what WGSL lacks.
pub fn compile(kernel: Kernel, target: &Target, keep: &[usize]) -> Result<Compiled> {
    let mut kernel = kernel;
    let mut types = typeck::check(&mut kernel)?;
    let resources = resources::measure(&kernel, &types)?;
    passes::optimize(&mut kernel, &mut types)?;
    passes::legalize(&mut kernel, &mut types)?;
    // Writable views that no statement writes are declared `read`: the
    // driver may then use read-only caches for them.
    let written = passes::written_captures(&kernel.body);
    let demoted: Vec<usize> = (0..kernel.captures.len())
        .filter(|&i| {
            matches!(
                kernel.captures[i].1,
                CaptureKind::Container { writable: true, .. }
            ) && !written.contains(&(i as u32))
                && !keep.contains(&i)
        })
        .collect();
    // (The captures keep their kinds: the instances of `#[kernel]`
    // functions are checked against the views as the kernel captured
    // them, a writable view parameter included.)
    let instances = passes::instances::instances(&kernel)?;
    let loop_guard = target.loop_guard;
    let mut immediates = target.immediates;
    let mut shader = wgsl::write(
        &kernel, &types, &instances, &demoted, immediates, loop_guard,
    )?;
    if shader.immediates && shader.params.words * 4 > target.max_immediate_bytes {
        immediates = false;
        shader = wgsl::write(&kernel, &types, &instances, &demoted, false, loop_guard)?;
    }
    // What the module needs and the target lacks is the caller's error,
    // not an invalid module.
    let needs = [
        (
            shader.uses_f64 && !target.f64,
            "f64 arithmetic (SHADER_F64)",
        ),
        (
            shader.uses_f16 && !target.f16,
            "f16 arithmetic (SHADER_F16)",
        ),
        (
            shader.uses_subgroups && !target.subgroups,
            "subgroup operations (SUBGROUP)",
        ),
    ];
    if let Some((_, feature)) = needs.iter().find(|(missing, _)| *missing) {
        return Err(Error::Unsupported {
            target: "the target GPU".to_string(),
            feature: format!("{feature}, which kernel {} uses", kernel.name),
        });
    }
    let module = validate::validate(&shader.source, &kernel.name, target)?;
    // Debug builds check the analysis against the WGSL: a read-write
    // binding the module never stores to (other than those in `keep`) is
    // one the IR analysis missed. (One it wrongly demoted is a store to a
    // read-only binding, which naga has rejected above.)
    #[cfg(debug_assertions)]
    {
        let containers: Vec<usize> = (0..kernel.captures.len())
            .filter(|&i| matches!(kernel.captures[i].1, CaptureKind::Container { .. }))
            .collect();
        let missed: Vec<usize> = validate::never_written(&module)
            .into_iter()
            .filter_map(|binding| containers.get(binding as usize).copied())
            .filter(|i| !keep.contains(i))
            .collect();
        if !missed.is_empty() {
            return Err(Error::Compile {
                kernel: kernel.name.clone(),
                message: format!(
                    "captures {missed:?} are never written but were not found read-only (a bug in amp-rs)"
                ),
            });
        }
    }
    // Kernels of doc tests (compiled from a temporary file) are not dumped:
    // their names would change with every run.
    if let Ok(dir) = std::env::var("AMP_DUMP_WGSL")
        && !kernel.name.starts_with('/')
        && !kernel.name.contains("rustdoctest")
    {
        // What every other GPU runs: the loop guard is llvmpipe's alone
        // (and tested on its own), so snapshots do not depend on it.
        let plain = if loop_guard {
            wgsl::write(&kernel, &types, &instances, &demoted, immediates, false)?.source
        } else {
            shader.source.clone()
        };
        dump(&dir, &dump_name(&kernel, shader.immediates, &plain), &plain);
    }
    shader.module = Some(std::sync::Arc::new(module));
    Ok(Compiled {
        shader,
        resources,
        demoted,
    })
}

#[cfg(feature = "wgsl")]
/// Lowers `kernel` to validated WGSL for `target` and returns the source.
///
/// # Errors
///
/// As [`compile`].
///
/// # Examples
///
/// ```
/// use amp_ir::*;
/// let span = Span::default();
/// // c[idx] = 2 * c[idx] over a writable rank-1 view of i32.
/// let load = Expr::new(ExprKind::Load(CaptureId(0), vec![Expr::new(ExprKind::KernelIndex, span)]), span);
/// let two = Expr::new(ExprKind::Lit(Lit::Int(2, None)), span);
/// let body = Block {
///     stmts: vec![Stmt::new(
///         StmtKind::Assign(
///             Place::Element(CaptureId(0), vec![Expr::new(ExprKind::KernelIndex, span)]),
///             None,
///             Expr::new(ExprKind::Binary(BinOp::Mul, Box::new(two), Box::new(load)), span),
///         ),
///         span,
///     )],
///     tail: None,
/// };
/// let kernel = Kernel {
///     name: "double".into(),
///     rank: 1,
///     captures: vec![("c", CaptureKind::Container { elem: Type::Scalar(Scalar::I32), rank: 1, writable: true })],
///     body,
///     span,
///     tile: None,
/// };
/// let wgsl = lower_to_wgsl(kernel, &Target::default())?;
/// assert!(wgsl.contains("@compute"));
/// # Ok::<(), amp_ir::Error>(())
/// ```
pub fn lower_to_wgsl(kernel: Kernel, target: &Target) -> Result<String> {
    compile(kernel, target, &[]).map(|c| c.shader.source)
}

#[cfg(feature = "wgsl")]
/// Types and measures `kernel` for a target without WGSL (the CPU
/// accelerator): the same checks as for a GPU (types, recursion, sizes,
/// `#[unroll]` loops that cannot be unrolled).
///
/// # Errors
///
/// [`Error::Compile`] as [`compile`] reports it, for every check that does
/// not concern WGSL.
pub fn measure(kernel: Kernel) -> Result<Resources> {
    let mut kernel = kernel;
    let mut types = typeck::check(&mut kernel)?;
    let needs = resources::measure(&kernel, &types)?;
    // The native form is LLVM's to optimise; the passes run only for their
    // errors (`#[unroll]` on a loop that cannot be), which every
    // accelerator reports alike, and only where there is an `#[unroll]`:
    // a first launch on the CPU stays cheap.
    if passes::has_forced_unroll(&kernel.body) {
        passes::optimize(&mut kernel, &mut types)?;
    }
    Ok(needs)
}

#[cfg(feature = "wgsl")]
/// What the CPU accelerator needs to know of a kernel: its resources, and
/// the captures declared writable that it never writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NativeNeeds {
    /// Local and `tile_static` memory, as [`measure`] gives them.
    pub resources: Resources,
    /// Container captures declared read-write that no statement of the
    /// kernel (or of a function instance it calls) writes: a launch need
    /// not save them for a rollback.
    pub unwritten: Vec<usize>,
}

#[cfg(feature = "wgsl")]
/// [`measure`], and the writable captures the kernel never writes (the IR
/// analysis behind the read-only demotion of GPU bindings).
///
/// # Errors
///
/// As [`measure`].
pub fn measure_native(kernel: Kernel) -> Result<NativeNeeds> {
    let mut kernel = kernel;
    let mut types = typeck::check(&mut kernel)?;
    let resources = resources::measure(&kernel, &types)?;
    if passes::has_forced_unroll(&kernel.body) {
        passes::optimize(&mut kernel, &mut types)?;
    }
    let written = passes::written_captures(&kernel.body);
    let unwritten = (0..kernel.captures.len())
        .filter(|&i| {
            matches!(
                kernel.captures[i].1,
                CaptureKind::Container { writable: true, .. }
            ) && !written.contains(&(i as u32))
        })
        .collect();
    Ok(NativeNeeds {
        resources,
        unwritten,
    })
}

#[cfg(feature = "wgsl")]
/// The WGSL type of a kernel type (as the writer declares it).
pub fn type_wgsl(t: &Type) -> String {
    wgsl::type_wgsl(t)
}

#[cfg(feature = "wgsl")]
/// The file name of a kernel's `AMP_DUMP_WGSL` dump: one file per kernel,
/// capture types (generic code instantiates a kernel per type) and
/// parameter passing (devices differ), with a content hash (instances of
/// one generic kernel with the same capture types can still differ in
/// const generics), deterministically.
fn dump_name(kernel: &Kernel, immediates: bool, source: &str) -> String {
    let mut name = kernel.name.clone();
    for (_, kind) in &kernel.captures {
        name.push('.');
        name.push_str(&match kind {
            CaptureKind::Container {
                elem,
                rank,
                writable,
            } => {
                format!(
                    "{}{rank}{}",
                    wgsl::type_wgsl(elem),
                    if *writable { "w" } else { "r" }
                )
            }
            CaptureKind::Scalar(s) => s.rust().to_string(),
            CaptureKind::Vector(n, s) => format!("{}x{n}", s.rust()),
            CaptureKind::Index(n) => format!("idx{n}"),
            CaptureKind::Struct(t) => wgsl::type_wgsl(t),
        });
    }
    name.push_str(if immediates { ".imm" } else { ".uniform" });
    let hash = source.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    name.push_str(&format!(".{hash:08x}"));
    name
}

#[cfg(feature = "wgsl")]
/// Writes `source` to `dir` as `<kernel name>.wgsl` (best effort: a dump
/// that cannot be written must not fail the launch).
fn dump(dir: &str, name: &str, source: &str) {
    let file: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = std::path::Path::new(dir).join(format!("{file}.wgsl"));
    if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, source)) {
        log::warn!("AMP_DUMP_WGSL: {} not written: {e}", path.display());
    }
}
