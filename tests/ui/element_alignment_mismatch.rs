use amp_core::{Element, ElementType, ScalarType};

// A hand-written element type that claims WGSL's vec4 alignment (16) while
// the host aligns it to 4.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Loose([f32; 4]);

impl Element for Loose {
    const WGSL_SIZE: usize = 16;
    const WGSL_ALIGN: usize = 16;
    const REQUIRES_F64: bool = false;

    fn element_type() -> ElementType {
        ElementType::vector(4, ScalarType::F32)
    }
}

// The host puts `b` at 4, WGSL at 16.
#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Holder {
    a: f32,
    b: Loose,
    c: [f32; 3],
}

fn main() {}
