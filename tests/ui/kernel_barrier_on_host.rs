// C++ AMP: barriers only in restrict(amp) code. Host code cannot wait on a
// tile barrier (it would wait for work items that are not running).
use amp_core::{Extent, Index, TiledIndex};

fn main() {
    let tiled = Extent::new([4]).tile::<4>().unwrap();
    let t = TiledIndex::new(Index::new([1]), &tiled);
    t.barrier.wait();
}
