use amp_core::prelude::*;

/// Counts a bin and returns its old count: a different value to each work
/// item, whatever its arguments.
#[kernel]
fn bump(hist: &ArrayView<'_, u32, 1>, bin: i32) -> u32 {
    atomic_fetch_add(&mut hist[[bin]], 1)
}

/// The same for every work item given the same arguments.
#[kernel]
fn twice(x: u32) -> u32 {
    x * 2
}

fn main() {
    let mut hist = [0u32; 4];
    let mut out = [0u32; 64];
    let h = ArrayView::new_mut([4], &mut hist).unwrap();
    let o = ArrayView::new_mut([64], &mut out).unwrap();
    parallel_for_each!(o.extent().tile::<16>().unwrap(), |t: TiledIndex<1>| {
        // Accepted: `twice`'s result is uniform where its argument is.
        if twice(3) > 4 {
            t.barrier.wait();
        }
        // Refused: `bump`'s arguments are uniform, its result is not.
        if bump(&h, 0) < 8 {
            t.barrier.wait();
        }
        o[t.global] = 1;
    })
    .unwrap();
}
