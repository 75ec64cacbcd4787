use amp_core::prelude::*;

fn main() {
    let input = [1i32; 64];
    let mut out = [0i32; 64];
    let a = ArrayView::new([64], &input).unwrap();
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        let v = a[t.global];
        // The right operand runs only where `v > 0`: a barrier there is
        // reached by some threads of the tile only.
        let go = v > 0 && {
            t.barrier.wait();
            true
        };
        o[t.global] = if go { v } else { 0 };
    })
    .unwrap();
}
