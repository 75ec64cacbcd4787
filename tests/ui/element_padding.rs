use amp_core::{Element, Float4};

// The host aligns `b` to 16 bytes, leaving 12 padding bytes after `a`.
#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Padded {
    a: f32,
    b: Float4,
}

fn main() {}
