use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 64];
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        let mut count = 0;
        for k in 0..4 {
            if t.local[0] == k {
                continue;
            }
            // Counted by some threads only: `count` varies by thread.
            count += 1;
        }
        if count > 2 {
            t.barrier.wait();
        }
        o[t.global] = count;
    })
    .unwrap();
}
