use amp_core::prelude::*;

#[kernel]
fn boxed(x: f32) -> f32 {
    let b = Box::new(x);
    *b
}

fn main() {
    let _ = boxed(1.0);
}
