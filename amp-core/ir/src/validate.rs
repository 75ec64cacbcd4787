//! naga validation of generated WGSL: a rejection here is a bug in the
//! writer, reported with naga's diagnostic and the kernel's source location.

use crate::{Error, Result, Target};

/// Parses and validates `source` with the capabilities that `target`
/// offers.
///
/// # Errors
///
/// [`Error::Compile`] with naga's diagnostic.
pub(crate) fn validate(source: &str, kernel: &str, target: &Target) -> Result<naga::Module> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| Error::Compile {
        kernel: kernel.to_string(),
        message: format!(
            "generated WGSL does not parse (a bug in amp-rs):\n{}\n{source}",
            e.emit_to_string(source)
        ),
    })?;
    let mut caps = naga::valid::Capabilities::empty();
    if target.f64 {
        caps |= naga::valid::Capabilities::FLOAT64;
    }
    if target.immediates {
        caps |= naga::valid::Capabilities::IMMEDIATES;
    }
    if target.f16 {
        caps |= naga::valid::Capabilities::SHADER_FLOAT16;
    }
    let mut validator = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps);
    if target.subgroups {
        validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            caps | naga::valid::Capabilities::SUBGROUP,
        );
        validator
            .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
            .subgroup_operations(naga::valid::SubgroupOperationSet::all());
    }
    validator.validate(&module).map_err(|e| Error::Compile {
        kernel: kernel.to_string(),
        message: format!(
            "generated WGSL is invalid (a bug in amp-rs):\n{}\n{source}",
            e.emit_to_string(source)
        ),
    })?;
    Ok(module)
}

/// The binding numbers of the read-write storage buffers of `module` that
/// no statement stores to or accesses atomically: a kernel that only reads
/// a writable view can bind it read-only.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub(crate) fn never_written(module: &naga::Module) -> Vec<u32> {
    use naga::{Expression, Function, Handle, Statement};
    /// The global variable a pointer expression points into, if any.
    fn root(f: &Function, mut e: Handle<Expression>) -> Option<Handle<naga::GlobalVariable>> {
        loop {
            match f.expressions[e] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => e = base,
                Expression::GlobalVariable(g) => return Some(g),
                _ => return None,
            }
        }
    }
    fn walk(
        block: &naga::Block,
        f: &Function,
        written: &mut std::collections::HashSet<Handle<naga::GlobalVariable>>,
    ) {
        for s in block.iter() {
            match s {
                Statement::Block(b) => walk(b, f, written),
                Statement::If { accept, reject, .. } => {
                    walk(accept, f, written);
                    walk(reject, f, written);
                }
                Statement::Switch { cases, .. } => {
                    for c in cases {
                        walk(&c.body, f, written);
                    }
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    walk(body, f, written);
                    walk(continuing, f, written);
                }
                Statement::Store { pointer, .. } | Statement::Atomic { pointer, .. } => {
                    if let Some(g) = root(f, *pointer) {
                        written.insert(g);
                    }
                }
                // A pointer into storage passed to a function would hide
                // its writes: keep every storage buffer writable then.
                Statement::Call { arguments, .. } => {
                    for &a in arguments {
                        if let Some(g) = root(f, a) {
                            written.insert(g);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut written = std::collections::HashSet::new();
    let functions = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .chain(module.entry_points.iter().map(|e| &e.function));
    for f in functions {
        walk(&f.body, f, &mut written);
    }
    module
        .global_variables
        .iter()
        .filter_map(|(h, g)| match g.space {
            naga::AddressSpace::Storage { access }
                if access.contains(naga::StorageAccess::STORE) && !written.contains(&h) =>
            {
                g.binding.as_ref().map(|b| b.binding)
            }
            _ => None,
        })
        .collect()
}
