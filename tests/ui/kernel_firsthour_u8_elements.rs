use amp_core::prelude::*;

fn main() {
    let mut pixels = vec![0u8; 16];
    let image = ArrayView::new_mut([16], &mut pixels).unwrap();
    let _ = parallel_for_each!(image.extent(), |idx: Index<1>| {
        image[idx] = 255;
    });
}
