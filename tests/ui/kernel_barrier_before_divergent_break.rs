use amp_core::prelude::*;

fn main() {
    let input = [1i32; 64];
    let mut out = [0i32; 64];
    let a = ArrayView::new([64], &input).unwrap();
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        let mut k = 0;
        loop {
            // Threads that broke out in an earlier iteration never come back
            // to this barrier.
            t.barrier.wait();
            if a[t.global] > k {
                break;
            }
            k += 1;
        }
        o[t.global] = k;
    })
    .unwrap();
}
