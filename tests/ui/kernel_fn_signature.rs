use amp_core::kernel;

#[kernel]
fn generic_any<T: Copy>(x: T) -> T {
    x
}

#[kernel]
fn by_reference<'a>(x: &'a f32) -> f32 {
    *x
}

#[kernel]
fn wide<const N: usize>(x: i32) -> i32 {
    x
}

#[kernel]
async fn later(x: i32) -> i32 {
    x
}

fn main() {}
