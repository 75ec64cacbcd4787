//! `copy` between containers of different ranks does not compile: the rank
//! is part of the types (C++ AMP: `copy(array<T, 2>, array<T, 1>&)` is
//! ill-formed).

use amp_core::{Accelerator, Array, copy};

fn main() {
    let view = Accelerator::cpu().default_view();
    let square = Array::<f32, 2>::new([2, 2], &view).unwrap();
    let mut line = Array::<f32, 1>::new([4], &view).unwrap();
    copy(&square, &mut line).unwrap();
}
