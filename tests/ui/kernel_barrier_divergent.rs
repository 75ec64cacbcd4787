use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 64];
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        tile_static! { let shared: [i32; 16]; }
        shared[t.local[0]] = t.global[0];
        if t.local[0] < 8 {
            // Half the tile waits here, the other half never arrives.
            t.barrier.wait();
        }
        o[t.global] = shared[15 - t.local[0]];
    })
    .unwrap();
}
