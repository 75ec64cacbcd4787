use amp_core::prelude::*;

fn main() {
    let n: u32 = 4;
    let mut out = vec![0i32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        c[idx] = (n - idx[0]) as i32;
    });
}
