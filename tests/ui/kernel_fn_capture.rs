use amp_core::kernel;

static SCALE: f32 = 2.0;

#[kernel]
fn scaled(x: f32) -> f32 {
    let offset = 1.0f32;
    x * SCALE + offset + bias
}

fn main() {
    let _ = scaled(1.0);
}
