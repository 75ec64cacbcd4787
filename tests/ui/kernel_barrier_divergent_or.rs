use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 64];
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        let l = t.local[0];
        // Threads with `l < 8` skip the right operand and its barrier.
        if l < 8 || {
            t.barrier.wait_with_tile_static_memory_fence();
            false
        } {
            o[t.global] = 1;
        }
    })
    .unwrap();
}
