use amp_core::prelude::*;

fn main() {
    let mut out = vec![0i32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let pair = [idx[0], 1];
        c[idx] = match pair {
            [0, y] => y,
            _ => 0,
        };
        c[idx] = match idx[0] {
            small @ 0..=3 => small,
            _ => 0,
        };
    });
}
