use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 64];
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<64>().unwrap(), |t: TiledIndex<1>| {
        tile_static! { let flags: [bool; 64]; }
        flags[t.local[0]] = true;
        t.barrier.wait();
        o[t.global] = flags[0] as i32;
    })
    .unwrap();
}
