// A view made with `view_as` in a kernel is used element by element (a
// `let` of it names the same view, but it is no value of expressions).
use amp_core::prelude::*;

fn main() {
    let data = [0i32; 16];
    let mut out = [0i32; 4];
    let a = ArrayView::new([16], &data).unwrap();
    let o = ArrayView::new_mut([4], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let m = a.view_as([4, 4]);
        let copy = m;
        let pair = (copy, 0);
        o[i] = copy[[i[0], 0]] + pair.1;
    })
    .unwrap();
}
