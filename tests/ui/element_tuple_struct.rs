use amp_core::{Element, Float2};

#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Point(Float2, f32);

fn main() {}
