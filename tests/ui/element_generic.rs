use amp_core::Element;

#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Pair<T: Element> {
    a: T,
    b: T,
}

fn main() {}
