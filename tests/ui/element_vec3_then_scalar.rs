use amp_core::{Element, Float3};

// No padding on the host (16 + 4 + 12 = 32 bytes), but WGSL places
// `intensity` at byte 12, inside the vec3's last 4 bytes.
#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Light {
    direction: Float3,
    intensity: f32,
    _pad: [f32; 3],
}

fn main() {}
