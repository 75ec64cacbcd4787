use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 64];
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        let mut n = 0;
        // The condition meets a barrier at every iteration, but threads
        // leave the loop after a number of iterations that depends on them.
        while {
            t.barrier.wait();
            n < t.local[0]
        } {
            n += 1;
        }
        o[t.global] = n;
    })
    .unwrap();
}
