//! The crate-wide error type.
//!
//! Mirrors C++ AMP's `runtime_exception` family: `out_of_memory`,
//! `invalid_compute_domain`, `unsupported_feature` and
//! `accelerator_view_removed` each have a variant of their own, and the
//! remaining `runtime_exception` cases are split by cause so that callers can
//! match on them.

/// The result type of every fallible amp-rs operation.
///
/// `E` defaults to [`Error`], so `Result<T>` is the usual spelling; `?`
/// propagates amp-rs errors through it. C++ AMP reports the same failures by
/// throwing `runtime_exception`.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, Array, Result};
///
/// fn sum_on_default(data: &[f32]) -> Result<f32> {
///     let view = Accelerator::default()?.default_view();
///     let a = Array::from_slice([data.len() as i32], data, &view)?;
///     Ok(a.to_vec()?.iter().sum())
/// }
///
/// assert_eq!(sum_on_default(&[1.0, 2.0, 3.0])?, 6.0);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every error amp-rs reports.
///
/// Corresponds to C++ AMP's `runtime_exception` and its subclasses. The enum is
/// `#[non_exhaustive]`: later versions may add variants.
///
/// # Examples
///
/// ```
/// use amp_core::{Error, Extent};
///
/// let err = Extent::new([0, 4]).tile::<2, 2>().unwrap_err();
/// assert!(matches!(err, Error::InvalidComputeDomain(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A compute domain (or an extent used as one) is invalid: a zero or
    /// negative component, a size the launch cannot express, or an extent that
    /// a tile does not divide. Nothing was run and no data changed.
    ///
    /// Corresponds to C++ AMP `invalid_compute_domain`.
    #[error("invalid compute domain: {0}")]
    InvalidComputeDomain(String),

    /// An allocation exceeds what the accelerator can hold or address.
    ///
    /// Corresponds to C++ AMP `out_of_memory`.
    #[error("out of memory on {accelerator}: {detail}")]
    OutOfMemory {
        /// The accelerator's description.
        accelerator: String,
        /// What was asked for and which limit it exceeds.
        detail: String,
    },

    /// The operation needs a capability the accelerator lacks (double
    /// precision, a tile larger than it supports, ...).
    ///
    /// Corresponds to C++ AMP `unsupported_feature`.
    #[error("unsupported feature on {accelerator}: {feature}")]
    UnsupportedFeature {
        /// The accelerator's description.
        accelerator: String,
        /// The missing feature or the exceeded limit.
        feature: String,
    },

    /// The accelerator view can no longer be used: its device was lost or
    /// destroyed. Every later operation on the view returns this error again.
    ///
    /// Corresponds to C++ AMP `accelerator_view_removed`.
    #[error("accelerator view removed: {reason}")]
    AcceleratorViewRemoved {
        /// Why the device was lost, as the driver reported it.
        reason: String,
    },

    /// No accelerator matches a device path or description.
    #[error("no accelerator matches {name:?} (available: {})", available.join(", "))]
    UnknownAccelerator {
        /// The path or description that was asked for.
        name: String,
        /// The device paths that exist.
        available: Vec<String>,
    },

    /// The default accelerator was already used, so it can no longer be
    /// changed.
    ///
    /// Corresponds to C++ AMP `accelerator::set_default` returning `false`.
    #[error("the default accelerator is already in use ({current}) and can no longer be changed")]
    DefaultAcceleratorInUse {
        /// The device path of the default accelerator in use.
        current: String,
    },

    /// An argument is out of its valid range (a bad section, a shape
    /// mismatch, ...). Nothing was changed.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// A kernel could not be compiled for the accelerator.
    #[error("kernel compile error in {kernel}: {message}")]
    KernelCompile {
        /// The kernel's name and Rust source location.
        kernel: String,
        /// What the shader compiler reported.
        message: String,
    },

    /// A kernel on the CPU accelerator was cancelled by
    /// [`AcceleratorView::cancel`](crate::AcceleratorView::cancel) before it
    /// finished. Its writes were rolled back: no data changed.
    ///
    /// C++ AMP has no cancellation; the nearest counterpart is
    /// `accelerator_view_removed` after a runaway kernel, except that the view
    /// stays usable.
    #[error("kernel cancelled: {0}")]
    Cancelled(String),

    /// A kernel on the CPU accelerator ran longer than its view's timeout
    /// ([`AcceleratorView::set_timeout`](crate::AcceleratorView::set_timeout))
    /// and was stopped. Its writes were rolled back: no data changed.
    ///
    /// Corresponds to C++ AMP `accelerator_view_removed` after the Windows
    /// watchdog (TDR) stopped a runaway kernel, except that the view stays
    /// usable.
    #[error("kernel timed out: {0}")]
    Timeout(String),

    /// The graphics backend reported an error that fits no other variant.
    ///
    /// Corresponds to a plain C++ AMP `runtime_exception`.
    #[error("accelerator runtime error: {0}")]
    Runtime(String),
}

impl From<amp_ir::Error> for Error {
    fn from(e: amp_ir::Error) -> Self {
        match e {
            amp_ir::Error::Compile { kernel, message } => Error::KernelCompile { kernel, message },
            amp_ir::Error::Unsupported { target, feature } => Error::UnsupportedFeature {
                accelerator: target,
                feature,
            },
        }
    }
}
