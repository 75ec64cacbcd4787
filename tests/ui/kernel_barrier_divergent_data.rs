use amp_core::prelude::*;

fn main() {
    let input = [1i32; 64];
    let mut out = [0i32; 64];
    let a = ArrayView::new([64], &input).unwrap();
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        // Each thread loaded its own element: the condition may differ.
        let v = a[t.global];
        if v > 0 {
            t.barrier.wait_with_global_memory_fence();
        }
        o[t.global] = v;
    })
    .unwrap();
}
