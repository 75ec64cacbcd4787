use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 16];
    let grid = ArrayView::new_mut([4, 4], &mut out).unwrap();
    let _ = parallel_for_each!(Extent::new([4]), |idx: Index<1>| {
        grid[idx] = 1.0;
    });
}
