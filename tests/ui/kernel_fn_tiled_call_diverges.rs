// A call that passes the tiled index may wait on the tile's barrier inside
// the function: every work item of the tile must make it (its other
// arguments may differ, where the function's barriers do not depend on
// them: see kernel_fn_tiled_call_varying_args.rs).
use amp_core::prelude::*;

#[kernel]
fn mirror(data: &ArrayView<'_, i32, 1>, t: &TiledIndex<1>, width: i32) {
    let v = data[t.global];
    t.barrier.wait();
    data[[t.tile_origin[0] + width - 1 - t.local[0]]] = v;
}

fn main() {
    let mut xs = [0i32; 64];
    let d = ArrayView::new_mut([64], &mut xs).unwrap();
    let domain = Extent::new([64]).tile::<64>().unwrap();
    parallel_for_each!(domain, |t: TiledIndex<1>| {
        if d[t.global] > 0 {
            mirror(&d, &t, 64);
        }
        mirror(&d, &t, t.local[0]);
    })
    .unwrap();
}
