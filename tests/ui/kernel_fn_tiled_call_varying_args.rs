// A call that passes the tiled index may pass values that differ between
// the threads of the tile, unless the function's barriers depend on them
// (here, how often it waits), directly or through a function it passes
// them on to.
use amp_core::prelude::*;

#[kernel]
fn mirror(data: &ArrayView<'_, i32, 1>, t: &TiledIndex<1>, width: i32) {
    let v = data[t.global];
    t.barrier.wait();
    data[[t.tile_origin[0] + width - 1 - t.local[0]]] = v;
}

#[kernel]
fn steps(t: &TiledIndex<1>, rounds: i32) -> i32 {
    let mut n = 0;
    for _ in 0..rounds {
        t.barrier.wait();
        n += 1;
    }
    n
}

#[kernel]
fn passes_on(t: &TiledIndex<1>, k: i32) -> i32 {
    steps(t, k)
}

fn main() {
    let mut xs = [0i32; 64];
    let d = ArrayView::new_mut([64], &mut xs).unwrap();
    let domain = Extent::new([64]).tile::<64>().unwrap();
    parallel_for_each!(domain, |t: TiledIndex<1>| {
        // Accepted: `mirror`'s barrier does not depend on `width`.
        mirror(&d, &t, t.local[0] + 1);
        d[t.global] = steps(&t, t.local[0]);
        d[t.global] += passes_on(&t, t.local[0]);
    })
    .unwrap();
}
