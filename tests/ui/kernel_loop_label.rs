use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        'rows: for i in 0..4 {
            for j in 0..4 {
                if i + j > idx[0] {
                    break 'rows;
                }
            }
        }
        c[idx] = 1.0;
    });
}
