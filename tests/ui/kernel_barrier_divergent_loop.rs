use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 64];
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        // The trip count depends on the thread, through a local.
        let n = t.local[0] % 4;
        let mut i = 0;
        while i < n {
            t.barrier.wait();
            i += 1;
        }
        o[t.global] = i;
    })
    .unwrap();
}
