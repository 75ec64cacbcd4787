use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 64];
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        if t.global[0] >= 60 {
            // These threads never reach the barrier below.
            return;
        }
        t.barrier.wait();
        o[t.global] = 1;
    })
    .unwrap();
}
