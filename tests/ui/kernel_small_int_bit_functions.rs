use amp_core::prelude::*;

fn main() {
    let bytes = vec![7u8; 16];
    let mut counts = vec![0u32; 16];
    let b = ArrayView::new([16], &bytes).unwrap();
    let c = ArrayView::new_mut([16], &mut counts).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        c[idx] = b[idx].count_ones();
    });
}
