// A tile_static flag read after a write with no barrier in between may
// differ between work items: breaking out of a loop of barriers on it is
// divergent (every work item of a tile must reach the same barriers).
use amp_core::prelude::*;

fn main() {
    let xs = [1u32; 64];
    let x = ArrayView::new([64], &xs).unwrap();
    let domain = Extent::new([64]).tile::<64>().unwrap();
    parallel_for_each!(domain, |t: TiledIndex<1>| {
        tile_static! { let busy: u32; }
        let mut v = x[t.global];
        loop {
            if t.local[0] == 0 {
                busy = 0;
            }
            t.barrier.wait();
            if v > 1 {
                busy = 1;
            }
            if busy == 0 {
                break;
            }
            v /= 2;
            t.barrier.wait();
        }
    })
    .unwrap();
}
