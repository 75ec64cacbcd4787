use amp_core::{Element, Float4};

#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Cell {
    value: Float4,
    alive: bool,
}

// The type still implements `Element` after the error, so uses of it report
// nothing more.
fn takes_element<T: Element>() {}

fn main() {
    takes_element::<Cell>();
}
