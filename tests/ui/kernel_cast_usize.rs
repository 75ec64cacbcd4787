use amp_core::prelude::*;

fn main() {
    let mut out = vec![0u32; 4];
    let c = ArrayView::new_mut([4], &mut out).unwrap();
    let _ = parallel_for_each!(c.extent(), |idx: Index<1>| {
        let n = idx[0] as usize;
        c[idx] = n as u32;
    });
}
