//! Conformance tests of the geometry types against the C++ AMP specification,
//! chapter 4 ("Basic Data Elements"): `index<N>`, `extent<N>`,
//! `tiled_extent<D0, D1, D2>` and `tiled_index<D0, D1, D2>`.
//!
//! Each test names the section of the specification it follows. Everything
//! here runs on the CPU; no accelerator is needed.

use amp_core::{Error, Extent, Index, TiledExtent, TiledIndex};

// --- 4.1 index<N> -----------------------------------------------------------

/// 4.1.1: construction, rank, component access and equality.
#[test]
fn index_construction_and_components() {
    let idx = Index::new([5, 6, 7]);
    assert_eq!(Index::<3>::rank(), 3);
    assert_eq!((idx[0], idx[1], idx[2]), (5, 6, 7));
    assert_eq!(Index::<2>::default(), Index::new([0, 0]));
    assert_eq!(Index::<2>::zero(), Index::default());
    assert_eq!(Index::from([5, 6, 7]), idx);
    assert_ne!(idx, Index::new([5, 6, 8]));
    let mut m = idx;
    m[2] = 0;
    assert_eq!(m, Index::new([5, 6, 0]));
    assert_eq!(<[i32; 3]>::from(m), [5, 6, 0]);
}

/// 4.1.2: index with index (`+`, `-`, `+=`, `-=`).
#[test]
fn index_arithmetic_with_index() {
    let a = Index::new([5, -3]);
    let b = Index::new([2, 4]);
    assert_eq!(a + b, Index::new([7, 1]));
    assert_eq!(a - b, Index::new([3, -7]));
    let mut c = a;
    c += b;
    assert_eq!(c, Index::new([7, 1]));
    c -= b;
    assert_eq!(c, a);
    assert_eq!(-a, Index::new([-5, 3]));
}

/// 4.1.2: index with int, int on either side, and the compound assignments.
#[test]
fn index_arithmetic_with_int() {
    let idx = Index::new([6, -9, 4]);
    assert_eq!(idx + 2, Index::new([8, -7, 6]));
    assert_eq!(idx - 2, Index::new([4, -11, 2]));
    assert_eq!(idx * 3, Index::new([18, -27, 12]));
    assert_eq!(idx / 2, Index::new([3, -4, 2]));
    assert_eq!(idx % 4, Index::new([2, -1, 0]));
    assert_eq!(2 + idx, Index::new([8, -7, 6]));
    assert_eq!(10 - idx, Index::new([4, 19, 6]));
    assert_eq!(3 * idx, Index::new([18, -27, 12]));
    assert_eq!(36 / idx, Index::new([6, -4, 9]));
    assert_eq!(20 % idx, Index::new([2, 2, 0]));
    let mut m = idx;
    m += 1;
    assert_eq!(m, Index::new([7, -8, 5]));
    m -= 1;
    assert_eq!(m, idx);
    m *= 2;
    assert_eq!(m, Index::new([12, -18, 8]));
    m /= 2;
    assert_eq!(m, idx);
    m %= 5;
    assert_eq!(m, Index::new([1, -4, 4]));
}

/// 4.1.2: `++` and `--`, prefix and postfix, on every component.
#[test]
fn index_increment_decrement() {
    let mut idx = Index::new([1, 2]);
    assert_eq!(idx.post_inc(), Index::new([1, 2]));
    assert_eq!(idx.inc(), Index::new([3, 4]));
    assert_eq!(idx.post_dec(), Index::new([3, 4]));
    assert_eq!(idx.dec(), Index::new([1, 2]));
    assert_eq!(idx, Index::new([1, 2]));
}

/// Kernel arithmetic wraps instead of trapping.
#[test]
#[allow(
    clippy::modulo_one,
    reason = "`% -1` on an overloaded operator is the wrapping edge case under test"
)]
fn index_arithmetic_wraps() {
    assert_eq!(Index::new([i32::MAX]) + 1, Index::new([i32::MIN]));
    assert_eq!(Index::new([i32::MIN]) / -1, Index::new([i32::MIN]));
    assert_eq!(Index::new([i32::MIN]) % -1, Index::new([0]));
    assert_eq!(-Index::new([i32::MIN]), Index::new([i32::MIN]));
}

// --- 4.2 extent<N> ----------------------------------------------------------

/// 4.2.1: construction, rank, component access and size.
#[test]
fn extent_construction_and_size() {
    let ext = Extent::new([3, 4, 5]);
    assert_eq!(Extent::<3>::rank(), 3);
    assert_eq!((ext[0], ext[1], ext[2]), (3, 4, 5));
    assert_eq!(ext.size(), 60);
    assert_eq!(Extent::new([7]).size(), 7);
    assert_eq!(Extent::<2>::default(), Extent::new([0, 0]));
    assert_eq!(Extent::<2>::default().size(), 0);
    assert_eq!(Extent::new([3, -4]).size(), 0);
    assert_eq!(Extent::new([3, -4]).checked_size(), None);
    let big = Extent::new([i32::MAX, i32::MAX]);
    assert_eq!(big.size(), (i32::MAX as u64) * (i32::MAX as u64));
    assert_eq!(Extent::new([i32::MAX, i32::MAX, i32::MAX]).size(), u64::MAX);
    assert_eq!(
        Extent::new([i32::MAX, i32::MAX, i32::MAX]).checked_size(),
        None
    );
}

/// 4.2.1: `extent::contains`.
#[test]
fn extent_contains() {
    let ext = Extent::new([2, 3]);
    let inside: Vec<Index<2>> = ext.indices().filter(|i| ext.contains(i)).collect();
    assert_eq!(inside.len(), 6);
    assert!(ext.contains(&Index::new([1, 2])));
    assert!(!ext.contains(&Index::new([2, 2])));
    assert!(!ext.contains(&Index::new([1, 3])));
    assert!(!ext.contains(&Index::new([-1, 0])));
    assert!(!Extent::new([0, 3]).contains(&Index::new([0, 0])));
}

/// 4.2.2: extent with extent and with index.
#[test]
fn extent_arithmetic_with_extent_and_index() {
    let ext = Extent::new([10, 20]);
    assert_eq!(ext + Extent::new([1, 2]), Extent::new([11, 22]));
    assert_eq!(ext - Extent::new([1, 2]), Extent::new([9, 18]));
    assert_eq!(ext + Index::new([1, 2]), Extent::new([11, 22]));
    assert_eq!(ext - Index::new([1, 2]), Extent::new([9, 18]));
    let mut m = ext;
    m += Index::new([5, 5]);
    assert_eq!(m, Extent::new([15, 25]));
    m -= Extent::new([5, 5]);
    assert_eq!(m, ext);
    m += Extent::new([1, 1]);
    m -= Index::new([1, 1]);
    assert_eq!(m, ext);
}

/// 4.2.2: extent with int, int on either side, compound assignments, `++`
/// and `--`.
#[test]
fn extent_arithmetic_with_int() {
    let ext = Extent::new([12, 8]);
    assert_eq!(ext + 1, Extent::new([13, 9]));
    assert_eq!(ext - 1, Extent::new([11, 7]));
    assert_eq!(ext * 2, Extent::new([24, 16]));
    assert_eq!(ext / 4, Extent::new([3, 2]));
    assert_eq!(ext % 5, Extent::new([2, 3]));
    assert_eq!(1 + ext, Extent::new([13, 9]));
    assert_eq!(20 - ext, Extent::new([8, 12]));
    assert_eq!(2 * ext, Extent::new([24, 16]));
    assert_eq!(48 / ext, Extent::new([4, 6]));
    assert_eq!(30 % ext, Extent::new([6, 6]));
    let mut m = ext;
    m *= 3;
    m /= 2;
    m += 2;
    m -= 4;
    m %= 7;
    assert_eq!(
        m,
        Extent::new([(12 * 3 / 2 + 2 - 4) % 7, (8 * 3 / 2 + 2 - 4) % 7])
    );
    let mut e = Extent::new([1]);
    assert_eq!(e.post_inc(), Extent::new([1]));
    assert_eq!(e.inc(), Extent::new([3]));
    assert_eq!(e.dec(), Extent::new([2]));
    assert_eq!(e.post_dec(), Extent::new([2]));
    assert_eq!(e, Extent::new([1]));
}

/// Row-major enumeration and linearization of an extent.
#[test]
fn extent_row_major_order() {
    let ext = Extent::new([2, 3]);
    let all: Vec<Index<2>> = ext.indices().collect();
    assert_eq!(all.first(), Some(&Index::new([0, 0])));
    assert_eq!(all[1], Index::new([0, 1]));
    assert_eq!(all[3], Index::new([1, 0]));
    for (n, idx) in all.iter().enumerate() {
        assert_eq!(ext.linear_offset(idx), Some(n as u64));
        assert_eq!(ext.index_of(n as u64), Some(*idx));
    }
    assert_eq!(ext.index_of(6), None);
}

/// Display of the geometry types.
#[test]
fn display_formats() {
    assert_eq!(Index::new([3, 4]).to_string(), "[3, 4]");
    assert_eq!(Index::new([7]).to_string(), "[7]");
    assert_eq!(Extent::new([3, 4]).to_string(), "[3, 4]");
    let tiled = Extent::new([25, 51]).tile::<4, 8>().unwrap().pad().unwrap();
    assert_eq!(tiled.to_string(), "[28, 56] tiled by [4, 8]");
}

// --- 4.3 tiled_extent<D0, D1, D2> -------------------------------------------

/// 4.3: `pad` and `truncate` of rank 1.
#[test]
fn tiled_extent_pad_truncate_rank1() {
    let tiled = Extent::new([25]).tile::<4>().unwrap();
    assert_eq!(tiled.pad().unwrap().extent(), Extent::new([28]));
    assert_eq!(tiled.truncate().extent(), Extent::new([24]));
    assert_eq!(tiled.tile_extent(), Extent::new([4]));
}

/// 4.3: `pad` and `truncate` of rank 2.
#[test]
fn tiled_extent_pad_truncate_rank2() {
    let tiled = Extent::new([25, 51]).tile::<4, 8>().unwrap();
    assert_eq!(tiled.pad().unwrap().extent(), Extent::new([28, 56]));
    assert_eq!(tiled.truncate().extent(), Extent::new([24, 48]));
    assert_eq!(tiled.tile_extent(), Extent::new([4, 8]));
}

/// 4.3: `pad` and `truncate` of rank 3.
#[test]
fn tiled_extent_pad_truncate_rank3() {
    let tiled = Extent::new([25, 51, 85]).tile::<4, 8, 16>().unwrap();
    assert_eq!(tiled.pad().unwrap().extent(), Extent::new([28, 56, 96]));
    assert_eq!(tiled.truncate().extent(), Extent::new([24, 48, 80]));
    assert_eq!(tiled.tile_extent(), Extent::new([4, 8, 16]));
    assert_eq!(tiled.tile_size(), 4 * 8 * 16);
}

/// 4.3: tile counts and divisibility.
#[test]
fn tiled_extent_tile_count_and_divisibility() {
    let tiled = Extent::new([25, 51]).tile::<4, 8>().unwrap();
    assert_eq!(tiled.tile_count(), Extent::new([7, 7]));
    assert!(!tiled.is_divisible());
    assert!(tiled.pad().unwrap().is_divisible());
    assert!(tiled.truncate().is_divisible());
    assert_eq!(tiled.truncate().tile_count(), Extent::new([6, 6]));
}

/// Padding an extent near `i32::MAX` fails cleanly instead of overflowing.
#[test]
fn pad_near_i32_max_is_an_invalid_compute_domain() {
    let tiled = Extent::new([16, i32::MAX - 1]).tile::<4, 4>().unwrap();
    match tiled.pad() {
        Err(Error::InvalidComputeDomain(msg)) => assert!(msg.contains("component 1"), "{msg}"),
        other => panic!("expected InvalidComputeDomain, got {other:?}"),
    }
    let rank3 = Extent::new([i32::MAX, 2, 2]).tile::<2, 2, 2>().unwrap();
    assert!(matches!(rank3.pad(), Err(Error::InvalidComputeDomain(_))));
    // Truncating the same extents is always fine.
    assert_eq!(tiled.truncate().extent(), Extent::new([16, i32::MAX - 3]));
}

/// `invalid_compute_domain`: tiling a non-positive extent, or a bad tile
/// shape given at run time.
#[test]
fn tile_errors() {
    assert!(matches!(
        Extent::new([0]).tile::<4>(),
        Err(Error::InvalidComputeDomain(_))
    ));
    assert!(matches!(
        Extent::new([8, -8]).tile::<2, 2>(),
        Err(Error::InvalidComputeDomain(_))
    ));
    assert!(matches!(
        Extent::new([8, 8, 0]).tile::<2, 2, 2>(),
        Err(Error::InvalidComputeDomain(_))
    ));
    let bad_tiles = [
        TiledExtent::new(Extent::new([8, 8]), Extent::new([0, 8])),
        TiledExtent::new(Extent::new([8, 8]), Extent::new([-2, 8])),
        TiledExtent::new(Extent::new([8, 8]), Extent::new([32, 64])),
        TiledExtent::new(Extent::new([0, 8]), Extent::new([2, 2])),
    ];
    for result in bad_tiles {
        assert!(
            matches!(result, Err(Error::InvalidComputeDomain(_))),
            "{result:?}"
        );
    }
    assert!(matches!(
        TiledExtent::new(Extent::new([4, 4, 4, 4]), Extent::new([1, 1, 1, 1])),
        Err(Error::InvalidComputeDomain(_))
    ));
    assert!(TiledExtent::new(Extent::new([32, 32]), Extent::new([32, 32])).is_ok());
}

// --- 4.4 tiled_index<D0, D1, D2> --------------------------------------------

/// 4.4: the specification's example: an 8x6 extent tiled 2x2, global (6,3).
#[test]
fn tiled_index_spec_example() {
    let tiled = Extent::new([8, 6]).tile::<2, 2>().unwrap();
    let t_idx = TiledIndex::new(Index::new([6, 3]), &tiled);
    assert_eq!(t_idx.global, Index::new([6, 3]));
    assert_eq!(t_idx.local, Index::new([0, 1]));
    assert_eq!(t_idx.tile, Index::new([3, 1]));
    assert_eq!(t_idx.tile_origin, Index::new([6, 2]));
    assert_eq!(t_idx.tile_extent, Extent::new([2, 2]));
    // Host code cannot wait on its barrier (tests/ui/kernel_barrier_on_host.rs).
    assert_eq!(
        format!("{:?}", t_idx.barrier),
        "TileBarrier { shared: false }"
    );
}

/// 4.4: the relations between the members hold for every work item, and the
/// work items of each tile cover it exactly once.
#[test]
fn tiled_index_relations_over_a_domain() {
    let tiled = Extent::new([8, 6]).tile::<2, 2>().unwrap();
    let mut per_tile = vec![0u32; tiled.tile_count().size() as usize];
    for global in tiled.extent().indices() {
        let t_idx = TiledIndex::new(global, &tiled);
        assert_eq!(t_idx.tile_origin + t_idx.local, global);
        assert_eq!(
            t_idx.tile_origin,
            Index::new([t_idx.tile[0] * 2, t_idx.tile[1] * 2])
        );
        assert!(t_idx.tile_extent.contains(&t_idx.local));
        let linear = tiled.tile_count().linear_offset(&t_idx.tile).unwrap();
        per_tile[linear as usize] += 1;
    }
    assert!(per_tile.iter().all(|&n| n == tiled.tile_size()));
}
