//! naga validation of generated WGSL: a rejection here is a bug in the
//! writer, reported with naga's diagnostic and the kernel's source location.

use crate::{Error, Result};

/// Parses and validates `source` with the capabilities that `features`
/// enable on the device.
///
/// # Errors
///
/// [`Error::KernelCompile`] with naga's diagnostic.
pub(crate) fn validate(
    source: &str,
    kernel: &str,
    features: wgpu::Features,
) -> Result<naga::Module> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| Error::KernelCompile {
        kernel: kernel.to_string(),
        message: format!(
            "generated WGSL does not parse (a bug in amp-rs):\n{}\n{source}",
            e.emit_to_string(source)
        ),
    })?;
    let mut caps = naga::valid::Capabilities::empty();
    if features.contains(wgpu::Features::SHADER_F64) {
        caps |= naga::valid::Capabilities::FLOAT64;
    }
    if features.contains(wgpu::Features::IMMEDIATES) {
        caps |= naga::valid::Capabilities::IMMEDIATES;
    }
    let mut validator = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps);
    if features.contains(wgpu::Features::SUBGROUP) {
        validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            caps | naga::valid::Capabilities::SUBGROUP,
        );
        validator
            .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
            .subgroup_operations(naga::valid::SubgroupOperationSet::all());
    }
    validator
        .validate(&module)
        .map_err(|e| Error::KernelCompile {
            kernel: kernel.to_string(),
            message: format!(
                "generated WGSL is invalid (a bug in amp-rs):\n{}\n{source}",
                e.emit_to_string(source)
            ),
        })?;
    Ok(module)
}
