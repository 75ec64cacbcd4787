use amp_core::{Element, Float4};

// The host rounds the size up to 32 bytes, leaving 12 padding bytes at the end.
#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Tail {
    position: Float4,
    mass: f32,
}

fn main() {}
