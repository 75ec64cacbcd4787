// The elements of a view reinterpreted in a kernel are made of 4-byte
// words too: an `f64` view is reinterpreted on the host.
use amp_core::prelude::*;

fn main() {
    let data = [0.0f64; 4];
    let mut out = [0u32; 8];
    let a = ArrayView::new([4], &data).unwrap();
    let o = ArrayView::new_mut([8], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let w = a.reinterpret_as::<u32>();
        o[i] = w[i[0]];
    })
    .unwrap();
}

// The same in a #[kernel] function, through a view parameter.
#[kernel]
fn words_of(v: &ArrayView<'_, f64, 1, ReadOnly>, k: i32) -> u32 {
    let w = v.reinterpret_as::<u32>();
    w[k]
}
