use amp_core::prelude::*;

#[repr(C)]
#[derive(Clone, Copy, Element)]
struct Particle {
    position: Float4,
    mass: f32,
    _pad: [f32; 3],
}

fn main() {
    let input = vec![
        Particle {
            position: Float4::splat(0.0),
            mass: 1.0,
            _pad: [0.0; 3],
        };
        4
    ];
    let mut out = input.clone();
    let a = ArrayView::new([4], &input).unwrap();
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let p = a[idx];
        c[idx] = Particle { mass: 2.0, ..p };
    });
}
