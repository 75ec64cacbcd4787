use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let later = async { 1.0f32 };
        let now = later.await;
        let checked = now?;
        c[idx] = 1.0;
    });
    let _ = parallel_for_each!(c.extent(), async |idx: Index<1>| {
        c[idx] = 1.0;
    });
}
