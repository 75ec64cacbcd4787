// A section made in a kernel is used element by element, not as a value:
// `let t = s;` names the same section, but a section is not assigned.
use amp_core::prelude::*;

fn main() {
    let mut out = [0i32; 16];
    let o = ArrayView::new_mut([16], &mut out).unwrap();
    parallel_for_each!(o.extent(), |i: Index<1>| {
        let s = o.section([0], [4]);
        let t = s;
        s = t;
        o[i] = 1;
    })
    .unwrap();
}
