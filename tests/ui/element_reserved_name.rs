use amp_core::{Element, Float4};

#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Ray {
    origin: Float4,
    target: Float4,
}

fn main() {}
