use amp_core::Element;

#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Pixel {
    rgba: [u8; 4],
}

fn main() {}
