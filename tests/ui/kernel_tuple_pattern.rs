use amp_core::prelude::*;

fn main() {
    let mut out = vec![0i32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let (a, [b, d]) = (idx[0], [1, 2]);
        c[idx] = a + b + d;
    });
}
