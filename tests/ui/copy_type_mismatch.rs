//! `copy` between containers of different element types does not compile,
//! even when the sizes agree (C++ AMP: `copy(array<int, 1>,
//! array_view<float, 1>)` is ill-formed).

use amp_core::{Accelerator, Array, ArrayView, copy};

fn main() {
    let view = Accelerator::cpu().default_view();
    let ints = Array::<i32, 1>::new([4], &view).unwrap();
    let mut floats = [0.0f32; 4];
    let mut target = ArrayView::new_mut([4], &mut floats).unwrap();
    copy(&ints, &mut target).unwrap();
}
