// References are bound by `let` to a place (`let r = &mut a[i];`) or
// passed as arguments; other uses are refused, each with its reason.
use amp_core::prelude::*;

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let mut x = 1.0f32;
        let mut y = 2.0f32;
        // A reference as a value of another expression (a reference chosen
        // by `let r = if c { &x } else { &y };` is allowed).
        let r = (if idx[0] > 0 { &x } else { &y }, 1);
        // Not a place.
        let q = &mut (x + 1.0);
        // Rebindable.
        let mut m = &mut x;
        // Assigned itself.
        let s = &mut y;
        s = &mut x;
        c[idx] = x;
    });
}
