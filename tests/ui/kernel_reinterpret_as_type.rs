// reinterpret_as in a kernel reads i32, u32, f32 and their 2- and
// 4-component vectors (3-component vectors have padding).
use amp_core::prelude::*;

fn main() {
    let data = [Float4::splat(0.0); 4];
    let mut out = [0.0f32; 4];
    let a = ArrayView::new([4], &data).unwrap();
    let o = ArrayView::new_mut([4], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let w = a.reinterpret_as::<Float3>();
        o[i] = w[i[0]].x;
    })
    .unwrap();
}
