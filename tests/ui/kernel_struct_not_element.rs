use amp_core::prelude::*;

#[derive(Clone, Copy)]
struct Point {
    x: f32,
    y: f32,
}

fn main() {
    let mut out = vec![0.0f32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let p = Point { x: 1.0, y: 2.0 };
        c[idx] = 1.0;
    });
    let p = Point { x: 0.0, y: 0.0 };
    let _ = p.x + p.y;
}
