use amp_core::prelude::*;

fn main() {
    let data = vec![0.0f32; 4];
    let a = ArrayView::new([4], &data).unwrap();
    let _ = parallel_for_each!(a.extent(), |idx: Index<1>| {
        a[idx] = 1.0;
    });
    let _ = parallel_for_each!(a.extent(), |idx: Index<1>| {
        a[idx] += 1.0;
    });
}
