//! [`QueuingMode`]: when an accelerator view hands its commands to the device.

use std::fmt;

/// When an [`AcceleratorView`](crate::AcceleratorView) submits the commands it
/// records (copies, kernel launches) to the device.
///
/// Corresponds to C++ AMP `queuing_mode`.
///
/// # Examples
///
/// ```
/// use amp_core::{Accelerator, QueuingMode};
///
/// let view = Accelerator::cpu().create_view(QueuingMode::Immediate);
/// assert_eq!(view.queuing_mode(), QueuingMode::Immediate);
/// assert_eq!(QueuingMode::default(), QueuingMode::Automatic);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum QueuingMode {
    /// Every command is submitted to the device as soon as it is recorded.
    ///
    /// Corresponds to C++ AMP `queuing_mode_immediate`.
    Immediate,
    /// Commands are recorded into one command buffer and submitted together
    /// on [`flush`](crate::AcceleratorView::flush),
    /// [`wait`](crate::AcceleratorView::wait),
    /// [`create_marker`](crate::AcceleratorView::create_marker), on any host
    /// access that needs their results, or once the batch passes a size or
    /// age threshold. This is the default, as in C++ AMP.
    ///
    /// Corresponds to C++ AMP `queuing_mode_automatic`.
    #[default]
    Automatic,
}

impl fmt::Display for QueuingMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QueuingMode::Immediate => "immediate",
            QueuingMode::Automatic => "automatic",
        })
    }
}
