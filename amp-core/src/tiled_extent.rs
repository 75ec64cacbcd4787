//! Tiled compute domains: [`TiledExtent<N>`](crate::TiledExtent).
//!
//! A [`TiledExtent<N>`](crate::TiledExtent) is an [`Extent<N>`](crate::Extent)
//! divided into tiles: groups of work items that run together, can share
//! `tile_static` memory and can synchronize on a
//! [`TileBarrier`](crate::TileBarrier). Tiling is available for ranks 1 to 3,
//! with at most [`TiledExtent::MAX_TILE_SIZE`](crate::TiledExtent::MAX_TILE_SIZE)
//! (1024) work items per tile, as in C++ AMP.
//!
//! Make one with [`Extent::tile`](crate::Extent::tile), whose tile shape is
//! checked at compile time, or with [`TiledExtent::new`](crate::TiledExtent::new)
//! for a tile shape known only at run time. The extent need not be a multiple of
//! the tile: [`pad`](crate::TiledExtent::pad) rounds it up and
//! [`truncate`](crate::TiledExtent::truncate) rounds it down.

use core::fmt;

use crate::{Error, Extent, Result};

/// An extent divided into tiles of a fixed shape (ranks 1 to 3).
///
/// Holds the overall [`extent`](Self::extent) and the
/// [`tile_extent`](Self::tile_extent). The tile is always valid: every tile
/// dimension is positive and a tile holds at most
/// [`MAX_TILE_SIZE`](Self::MAX_TILE_SIZE) work items. The overall extent is
/// positive when built by [`Extent::tile`] or [`TiledExtent::new`]; only
/// [`truncate`](Self::truncate) can produce a zero component, which launches
/// then reject.
///
/// Corresponds to C++ AMP `tiled_extent<D0, D1, D2>` (with the tile shape
/// stored as a value rather than in the type).
///
/// # Examples
///
/// ```
/// use amp_core::{Extent, TiledExtent};
///
/// let tiled = Extent::new([25, 51]).tile::<4, 8>()?;
/// assert_eq!(tiled.tile_count(), Extent::new([7, 7]));
/// assert!(!tiled.is_divisible());
/// let padded = tiled.pad()?;
/// assert_eq!(padded.to_string(), "[28, 56] tiled by [4, 8]");
/// assert!(padded.is_divisible());
/// assert_eq!(TiledExtent::new(Extent::new([28, 56]), Extent::new([4, 8]))?, padded);
/// # Ok::<(), amp_core::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TiledExtent<const N: usize> {
    extent: Extent<N>,
    tile: Extent<N>,
}

impl<const N: usize> TiledExtent<N> {
    /// The most work items a tile may hold: 1024.
    ///
    /// The limit of C++ AMP (and of the `maxComputeInvocationsPerWorkgroup`
    /// limit of most GPUs; a device with a lower limit rejects larger tiles at
    /// launch).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::TiledExtent;
    ///
    /// assert_eq!(TiledExtent::<2>::MAX_TILE_SIZE, 1024);
    /// ```
    pub const MAX_TILE_SIZE: u32 = 1024;

    /// Divides `extent` into tiles of shape `tile`, both checked at run time.
    ///
    /// Prefer [`Extent::tile`] when the tile shape is a constant: it checks the
    /// shape at compile time. The extent need not be a multiple of the tile.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidComputeDomain`] if the rank is above 3, a tile
    /// dimension is zero or negative, the tile holds more than
    /// [`MAX_TILE_SIZE`](Self::MAX_TILE_SIZE) work items, a rank-3 tile's
    /// first dimension is above 64 (GPUs' workgroup `z` axis, as
    /// [`Extent::tile`] checks at compile time), or a component of `extent`
    /// is zero or negative.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Error, Extent, TiledExtent};
    ///
    /// let tiled = TiledExtent::new(Extent::new([8, 6]), Extent::new([2, 2]))?;
    /// assert_eq!(tiled.tile_count(), Extent::new([4, 3]));
    ///
    /// let too_big = TiledExtent::new(Extent::new([64, 64]), Extent::new([64, 32]));
    /// assert!(matches!(too_big, Err(Error::InvalidComputeDomain(_))));
    /// let rank4 = TiledExtent::new(Extent::new([2; 4]), Extent::new([1; 4]));
    /// assert!(matches!(rank4, Err(Error::InvalidComputeDomain(_))));
    /// let deep = TiledExtent::new(Extent::new([130, 2, 2]), Extent::new([65, 1, 1]));
    /// assert!(matches!(deep, Err(Error::InvalidComputeDomain(_))));
    /// assert!(TiledExtent::new(Extent::new([64, 4, 4]), Extent::new([64, 4, 4])).is_ok());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn new(extent: Extent<N>, tile: Extent<N>) -> Result<Self> {
        if N > 3 {
            return Err(Error::InvalidComputeDomain(format!(
                "cannot tile a rank-{N} extent: tiling supports ranks 1 to 3"
            )));
        }
        if !tile.is_positive() {
            return Err(Error::InvalidComputeDomain(format!(
                "invalid tile {tile}: every tile dimension must be positive"
            )));
        }
        if tile.size() > u64::from(Self::MAX_TILE_SIZE) {
            return Err(Error::InvalidComputeDomain(format!(
                "invalid tile {tile}: {} work items exceed the limit of {} per tile",
                tile.size(),
                Self::MAX_TILE_SIZE
            )));
        }
        if N == 3 && tile[0] > 64 {
            return Err(Error::InvalidComputeDomain(format!(
                "invalid tile {tile}: the first dimension of a rank-3 tile is at most 64 (GPUs' workgroup z axis)"
            )));
        }
        if !extent.is_positive() {
            return Err(Error::InvalidComputeDomain(format!(
                "cannot tile extent {extent}: every component must be positive"
            )));
        }
        Ok(Self { extent, tile })
    }

    /// Returns the overall extent (the compute domain).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let tiled = Extent::new([25]).tile::<4>()?;
    /// assert_eq!(tiled.extent(), Extent::new([25]));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn extent(&self) -> Extent<N> {
        self.extent
    }

    /// Returns the shape of one tile.
    ///
    /// Corresponds to C++ AMP `tiled_extent::tile_extent` (and its
    /// `tile_dim0`, `tile_dim1`, `tile_dim2` constants).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let tiled = Extent::new([25, 51]).tile::<4, 8>()?;
    /// assert_eq!(tiled.tile_extent(), Extent::new([4, 8]));
    /// assert_eq!(tiled.tile_extent()[1], 8);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn tile_extent(&self) -> Extent<N> {
        self.tile
    }

    /// Returns the number of work items in one tile: the product of the tile
    /// dimensions (at most [`MAX_TILE_SIZE`](Self::MAX_TILE_SIZE)).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let tiled = Extent::new([64, 64, 64]).tile::<4, 8, 16>()?;
    /// assert_eq!(tiled.tile_size(), 512);
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn tile_size(&self) -> u32 {
        // The constructors guarantee 1 <= size <= MAX_TILE_SIZE.
        self.tile.size() as u32
    }

    /// Returns the number of tiles along each dimension, counting a partial
    /// tile at the end as a whole one (ceiling division).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let tiled = Extent::new([25, 48]).tile::<4, 8>()?;
    /// assert_eq!(tiled.tile_count(), Extent::new([7, 6]));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    #[must_use]
    pub fn tile_count(&self) -> Extent<N> {
        let (e, t) = (self.extent.to_array(), self.tile.to_array());
        // e >= 0 and t >= 1, so the quotient is at most e and fits in i32.
        Extent::new(core::array::from_fn(|i| {
            (i64::from(e[i]) + i64::from(t[i]) - 1).div_euclid(i64::from(t[i])) as i32
        }))
    }

    /// Returns whether every component of the extent is a multiple of the
    /// matching tile dimension (no partial tiles).
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// assert!(Extent::new([8, 16]).tile::<4, 8>()?.is_divisible());
    /// assert!(!Extent::new([8, 17]).tile::<4, 8>()?.is_divisible());
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    #[must_use]
    pub fn is_divisible(&self) -> bool {
        let (e, t) = (self.extent.to_array(), self.tile.to_array());
        (0..N).all(|i| e[i] % t[i] == 0)
    }

    /// Returns this tiled extent with every component of the extent rounded
    /// up to a multiple of the tile.
    ///
    /// The kernel then runs on the padded extent; work items outside the
    /// original extent must be masked out by the kernel. Corresponds to C++
    /// AMP `tiled_extent::pad()`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidComputeDomain`] if a padded component would exceed
    /// `i32::MAX`; the message names the component.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::{Error, Extent};
    ///
    /// let tiled = Extent::new([25, 51, 85]).tile::<4, 8, 16>()?;
    /// assert_eq!(tiled.pad()?.extent(), Extent::new([28, 56, 96]));
    ///
    /// let near_max = Extent::new([i32::MAX]).tile::<4>()?;
    /// assert!(matches!(near_max.pad(), Err(Error::InvalidComputeDomain(_))));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    pub fn pad(&self) -> Result<Self> {
        let (e, t) = (self.extent.to_array(), self.tile.to_array());
        let mut padded = [0; N];
        for (i, p) in padded.iter_mut().enumerate() {
            let (ei, ti) = (i64::from(e[i]), i64::from(t[i]));
            let rounded = (ei + ti - 1).div_euclid(ti) * ti;
            *p = i32::try_from(rounded).map_err(|_| {
                Error::InvalidComputeDomain(format!(
                    "cannot pad extent {}: component {i} ({ei}) rounded up to a multiple of \
                     the tile dimension {ti} is {rounded}, which exceeds i32::MAX",
                    self.extent
                ))
            })?;
        }
        Ok(Self {
            extent: Extent::new(padded),
            tile: self.tile,
        })
    }

    /// Returns this tiled extent with every component of the extent rounded
    /// down to a multiple of the tile.
    ///
    /// The work items of the partial tiles are dropped; the caller handles
    /// them separately. A component smaller than its tile dimension becomes
    /// 0: the result is still returned, but launching on it fails with
    /// [`Error::InvalidComputeDomain`]. Corresponds to C++ AMP
    /// `tiled_extent::truncate()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use amp_core::Extent;
    ///
    /// let tiled = Extent::new([25, 51, 85]).tile::<4, 8, 16>()?;
    /// assert_eq!(tiled.truncate().extent(), Extent::new([24, 48, 80]));
    /// assert_eq!(Extent::new([3]).tile::<4>()?.truncate().extent(), Extent::new([0]));
    /// # Ok::<(), amp_core::Error>(())
    /// ```
    #[must_use]
    pub fn truncate(&self) -> Self {
        let (e, t) = (self.extent.to_array(), self.tile.to_array());
        Self {
            extent: Extent::new(core::array::from_fn(|i| e[i].div_euclid(t[i]) * t[i])),
            tile: self.tile,
        }
    }
}

impl<const N: usize> fmt::Display for TiledExtent<N> {
    /// Formats as `<extent> tiled by <tile>`, e.g. `[28, 56] tiled by [4, 8]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} tiled by {}", self.extent, self.tile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// A tiny xorshift64 generator for reproducible pseudo-random values.
    struct XorShift(u64);

    impl XorShift {
        fn next_u64(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        /// A value in `lo..=hi`.
        fn range(&mut self, lo: i32, hi: i32) -> i32 {
            (i64::from(lo) + (self.next_u64() % (i64::from(hi) - i64::from(lo) + 1) as u64) as i64)
                as i32
        }
    }

    fn tiled<const N: usize>(extent: [i32; N], tile: [i32; N]) -> TiledExtent<N> {
        TiledExtent::new(Extent::new(extent), Extent::new(tile)).expect("valid tiled extent")
    }

    #[test]
    fn cpp_amp_pad_and_truncate_numbers() {
        let t1 = tiled([25], [4]);
        assert_eq!(t1.pad().unwrap().extent(), Extent::new([28]));
        assert_eq!(t1.truncate().extent(), Extent::new([24]));
        let t2 = tiled([25, 51], [4, 8]);
        assert_eq!(t2.pad().unwrap().extent(), Extent::new([28, 56]));
        assert_eq!(t2.truncate().extent(), Extent::new([24, 48]));
        let t3 = tiled([25, 51, 85], [4, 8, 16]);
        assert_eq!(t3.pad().unwrap().extent(), Extent::new([28, 56, 96]));
        assert_eq!(t3.truncate().extent(), Extent::new([24, 48, 80]));
        // The tile is kept.
        assert_eq!(t3.pad().unwrap().tile_extent(), Extent::new([4, 8, 16]));
        assert_eq!(t3.truncate().tile_extent(), Extent::new([4, 8, 16]));
    }

    #[test]
    fn pad_truncate_tile_count_match_per_component_arithmetic() {
        let mut rng = XorShift(0x1234_5678_9ABC_DEF1);
        for _ in 0..2000 {
            let t = [rng.range(1, 10), rng.range(1, 10), rng.range(1, 10)];
            let e = [rng.range(1, 200), rng.range(1, 200), rng.range(1, 200)];
            let te = tiled(e, t);
            let padded = te.pad().unwrap().extent();
            let truncated = te.truncate().extent();
            let count = te.tile_count();
            for i in 0..3 {
                assert!(padded[i] >= e[i] && padded[i] - e[i] < t[i], "{te}");
                assert_eq!(padded[i] % t[i], 0, "{te}");
                assert!(truncated[i] <= e[i] && e[i] - truncated[i] < t[i], "{te}");
                assert_eq!(truncated[i] % t[i], 0, "{te}");
                assert_eq!(count[i], padded[i] / t[i], "{te}");
            }
            assert_eq!(te.is_divisible(), padded == te.extent());
            assert_eq!(te.is_divisible(), truncated == te.extent());
            assert!(te.pad().unwrap().is_divisible());
            assert!(te.truncate().is_divisible());
            // Idempotent.
            assert_eq!(te.pad().unwrap().pad().unwrap(), te.pad().unwrap());
            assert_eq!(te.truncate().truncate(), te.truncate());
            assert_eq!(te.tile_size() as i32, t[0] * t[1] * t[2]);
        }
    }

    #[test]
    fn pad_near_i32_max_fails_naming_the_component() {
        let te = tiled([8, i32::MAX - 2], [1, 4]);
        match te.pad() {
            Err(Error::InvalidComputeDomain(msg)) => {
                assert!(msg.contains("component 1"), "{msg}");
                assert!(msg.contains("2147483648"), "{msg}");
            }
            other => panic!("expected InvalidComputeDomain, got {other:?}"),
        }
        // The largest multiple below i32::MAX still pads fine.
        let ok = tiled([i32::MAX - 7], [8]);
        assert_eq!(ok.pad().unwrap().extent(), Extent::new([i32::MAX - 7]));
        let ok = tiled([i32::MAX], [1]);
        assert_eq!(ok.pad().unwrap().extent(), Extent::new([i32::MAX]));
        assert!(tiled([i32::MAX - 6], [8]).pad().is_err());
        // Truncation never overflows.
        assert_eq!(
            tiled([i32::MAX], [1024]).truncate().extent(),
            Extent::new([i32::MAX / 1024 * 1024])
        );
        assert_eq!(
            tiled([i32::MAX], [1024]).tile_count(),
            Extent::new([(1 << 21)])
        );
    }

    #[test]
    fn truncate_can_reach_zero() {
        let te = tiled([3, 20], [4, 8]);
        assert_eq!(te.truncate().extent(), Extent::new([0, 16]));
        assert_eq!(te.truncate().tile_count(), Extent::new([0, 2]));
        assert!(te.truncate().pad().is_ok());
        assert_eq!(te.truncate().pad().unwrap().extent(), Extent::new([0, 16]));
    }

    #[test]
    fn new_rejects_invalid_tiles_and_extents() {
        let bad: [(Result<TiledExtent<2>>, &str); 6] = [
            (
                TiledExtent::new(Extent::new([8, 8]), Extent::new([0, 2])),
                "positive",
            ),
            (
                TiledExtent::new(Extent::new([8, 8]), Extent::new([2, -2])),
                "positive",
            ),
            (
                TiledExtent::new(Extent::new([8, 8]), Extent::new([64, 32])),
                "1024",
            ),
            (
                TiledExtent::new(Extent::new([8, 8]), Extent::new([i32::MAX, i32::MAX])),
                "1024",
            ),
            (
                TiledExtent::new(Extent::new([0, 8]), Extent::new([2, 2])),
                "positive",
            ),
            (
                TiledExtent::new(Extent::new([8, -1]), Extent::new([2, 2])),
                "positive",
            ),
        ];
        for (result, needle) in bad {
            match result {
                Err(Error::InvalidComputeDomain(msg)) => assert!(msg.contains(needle), "{msg}"),
                other => panic!("expected InvalidComputeDomain, got {other:?}"),
            }
        }
        assert!(matches!(
            TiledExtent::new(Extent::new([2; 4]), Extent::new([1; 4])),
            Err(Error::InvalidComputeDomain(msg)) if msg.contains("rank-4")
        ));
        assert!(matches!(
            TiledExtent::new(Extent::new([2, 2, 2]), Extent::new([-1, -1, 1])),
            Err(Error::InvalidComputeDomain(_))
        ));
        assert!(TiledExtent::new(Extent::new([1]), Extent::new([1024])).is_ok());
        assert!(TiledExtent::new(Extent::new([1, 1]), Extent::new([1024, 1])).is_ok());
        assert!(TiledExtent::new(Extent::new([1, 1, 1]), Extent::new([4, 16, 16])).is_ok());
        assert!(TiledExtent::new(Extent::new([1, 1, 1]), Extent::new([4, 16, 17])).is_err());
    }

    #[test]
    fn new_matches_compile_time_tile() {
        assert_eq!(
            Extent::new([25, 51]).tile::<4, 8>().unwrap(),
            tiled([25, 51], [4, 8])
        );
        assert_eq!(Extent::new([9]).tile::<3>().unwrap(), tiled([9], [3]));
        assert_eq!(
            Extent::new([5, 6, 7]).tile::<1, 2, 3>().unwrap(),
            tiled([5, 6, 7], [1, 2, 3])
        );
    }

    #[test]
    fn display_accessors_and_traits() {
        let te = tiled([28, 56], [4, 8]);
        assert_eq!(te.to_string(), "[28, 56] tiled by [4, 8]");
        assert_eq!(tiled([7], [7]).to_string(), "[7] tiled by [7]");
        assert_eq!(te.extent(), Extent::new([28, 56]));
        assert_eq!(te.tile_extent(), Extent::new([4, 8]));
        assert_eq!(te.tile_size(), 32);
        assert_eq!(te.tile_count(), Extent::new([7, 7]));
        assert!(te.is_divisible());
        let copy = te;
        assert_eq!(copy, te);
        let set: HashSet<_> = [te, copy, tiled([28, 56], [8, 4])].into_iter().collect();
        assert_eq!(set.len(), 2);
        assert!(format!("{te:?}").starts_with("TiledExtent"));
    }
}
