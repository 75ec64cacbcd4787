//! WGSL and IR snapshots: the kernels one thread launches, as the macros
//! built them (the IR's text form: the front end's output) and lowered for
//! a reference device (WGSL), whatever accelerator they ran on.
//!
//! The project's tests record the kernels each test launches and compare
//! their WGSL with reviewed snapshots. So that snapshots do not depend on
//! the machine (its adapter's features and limits, or whether it has a GPU
//! at all), a recorded kernel is lowered again for [`reference_features`]
//! with immediates of [`REFERENCE_IMMEDIATE_BYTES`] and no loop guard, and
//! validated by naga alone: a machine without a GPU writes the same
//! snapshots as one with. Recording costs a thread-local check per launch
//! when it is off.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::{KernelKey, lower};
use amp_ir::Kernel;

/// The immediate bytes of the reference device (Vulkan's minimum push
/// constant size).
pub const REFERENCE_IMMEDIATE_BYTES: u32 = 128;

/// The features of the reference device: every feature a kernel may use.
pub fn reference_features() -> wgpu::Features {
    wgpu::Features::SHADER_F64
        | wgpu::Features::SHADER_F16
        | wgpu::Features::SUBGROUP
        | wgpu::Features::SHADER_FLOAT32_ATOMIC
        | wgpu::Features::IMMEDIATES
}

thread_local! {
    /// The kernels this thread launched since [`start`], in launch order,
    /// while recording.
    static RECORDED: RefCell<Option<Vec<Recorded>>> = const { RefCell::new(None) };
}

/// Reference WGSL by kernel instance (`None`: it does not lower).
#[allow(clippy::type_complexity)]
static REFERENCE: Mutex<Option<HashMap<KernelKey, Option<(Arc<str>, Arc<str>)>>>> =
    Mutex::new(None);

/// One recorded kernel.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Where the kernel is (`file:line:column`); for messages, not for
    /// snapshot names, which must not change when lines move.
    pub site: String,
    /// Its WGSL for the reference device.
    pub wgsl: Arc<str>,
    /// Its IR as the macros built it, in the IR's text form (with the
    /// `#[kernel]` functions it calls and the structs it uses).
    pub ir: Arc<str>,
}

/// Starts recording the kernels this thread launches (and forgets what was
/// recorded before).
pub fn start() {
    RECORDED.with(|r| *r.borrow_mut() = Some(Vec::new()));
}

/// Stops recording and returns the distinct kernels launched since
/// [`start`], in the order of their first launch.
pub fn finish() -> Vec<Recorded> {
    RECORDED.with(|r| r.borrow_mut().take()).unwrap_or_default()
}

/// Whether this thread records its launches.
pub(crate) fn recording() -> bool {
    RECORDED.with(|r| r.borrow().is_some())
}

/// Records the kernel instance `key`, lowering `kernel()` for the reference
/// device the first time the process sees it. A kernel that does not lower
/// for the reference device is not recorded (its launch reports why).
pub(crate) fn record(key: &KernelKey, site: &str, kernel: impl FnOnce() -> Kernel) {
    let known = REFERENCE
        .lock()
        .get_or_insert_with(HashMap::new)
        .get(key)
        .cloned();
    let texts = match known {
        Some(w) => w,
        None => {
            let mut kernel = kernel();
            if let Some(file) = kernel.name.split(':').next() {
                kernel.name = file.to_string();
            }
            let ir = Arc::<str>::from(kernel.to_string());
            let texts = match lower(
                kernel,
                reference_features(),
                REFERENCE_IMMEDIATE_BYTES,
                false,
                &[],
            ) {
                Ok(c) => Some((Arc::<str>::from(c.shader.source), ir)),
                Err(e) => {
                    log::debug!("kernel {site}: no reference WGSL: {e}");
                    None
                }
            };
            REFERENCE
                .lock()
                .get_or_insert_with(HashMap::new)
                .insert(key.clone(), texts.clone());
            texts
        }
    };
    let Some((wgsl, ir)) = texts else { return };
    RECORDED.with(|r| {
        if let Some(list) = r.borrow_mut().as_mut()
            && !list.iter().any(|k| k.wgsl == wgsl)
        {
            list.push(Recorded {
                site: site.to_string(),
                wgsl,
                ir,
            });
        }
    });
}
