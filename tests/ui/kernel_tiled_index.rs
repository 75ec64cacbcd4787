use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 16];
    let c = ArrayView::new_mut([16], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent().tile::<4>().unwrap(), |t: TiledIndex<1>| {
        c[t.global] = 1.0;
    });
}
