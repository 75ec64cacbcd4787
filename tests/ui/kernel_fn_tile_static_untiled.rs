// A #[kernel] function declares tile_static memory only if it takes the
// tiled index.
use amp_core::prelude::*;

#[kernel]
fn staged(x: f32) -> f32 {
    tile_static! { let s: [f32; 16]; }
    s[0] = x;
    s[0]
}

fn main() {}
