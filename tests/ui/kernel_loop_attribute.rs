use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |idx: Index<1>| {
        let mut s = 0;
        #[unroll(4)]
        for v in 0..10 {
            s += v;
        }
        o[idx] = s;
    })
    .unwrap();
}
