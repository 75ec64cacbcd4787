// View and tiled-index parameters of #[kernel] functions are taken by
// shared reference, with the rank written as a literal; a read-only view
// cannot be passed where a writable one is taken.
use amp_core::prelude::*;

#[kernel]
fn by_value(t: TiledIndex<1>) -> i32 {
    t.local[0]
}

#[kernel]
fn by_mut(v: &mut ArrayView<'_, f32, 1>) {
    v[[0]] = 1.0;
}

#[kernel]
fn writes(v: &ArrayView<'_, f32, 1>, i: i32) {
    v[[i]] = 0.0;
}

#[kernel]
fn reads(v: &ArrayView<'_, f32, 1, ReadOnly>, i: i32) -> f32 {
    v[[i]] = 1.0;
    v[[i]]
}

fn main() {
    let xs = [0f32; 16];
    let x = ArrayView::new([16], &xs).unwrap();
    parallel_for_each!(x.extent(), |idx: Index<1>| {
        writes(&x, idx[0]);
    })
    .unwrap();
}
