// A tiled kernel the CPU accelerator cannot split at its barriers warns at
// compile time, with the reason (made an error here to be seen).
#![deny(deprecated)]

use amp_core::prelude::*;

#[amp_core::kernel]
fn stage(t: &TiledIndex<1>, v: &ArrayView<'_, f32, 1>) {
    tile_static! {
        let tile: [f32; 64];
    }
    tile[t.local[0] as usize] = v[t.global];
    t.barrier.wait();
    v[t.global] = tile[(63 - t.local[0]) as usize];
}

fn main() {
    let mut data = vec![1.0f32; 128];
    let v = ArrayView::new_mut([128], &mut data).unwrap();
    let domain = v.extent().tile::<64>().unwrap();
    let _ = parallel_for_each!(domain, |t: TiledIndex<1>| {
        stage(&t, &v);
    });
}
