use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 64];
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent(), |idx: Index<1>| {
        idx.barrier.wait();
        o[idx] = 1;
    })
    .unwrap();
}
