use amp_core::Element;

#[derive(Clone, Copy, Element)]
struct NoRepr {
    a: f32,
    b: f32,
}

fn main() {}
