use amp_core::Element;

#[derive(Clone, Copy)]
struct NotAnElement {
    x: f32,
}

#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Holder {
    inner: NotAnElement,
}

fn main() {}
