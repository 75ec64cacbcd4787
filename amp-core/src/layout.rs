//! Where the elements of a view lie in its source: a byte offset, an extent
//! and row-major strides (sections keep their parent's strides).

use crate::range_set::RangeSet;
use crate::{Error, Extent, Index, Result};

/// The placement of a rank-`N` view in its source's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout<const N: usize> {
    /// Byte offset of element `[0, .., 0]`.
    pub(crate) offset: u64,
    pub(crate) extent: Extent<N>,
    /// Distance between neighbours along each dimension, in elements.
    pub(crate) strides: [u64; N],
    /// Element size in bytes.
    pub(crate) elem: u64,
}

/// Row-major strides of `extent`.
fn row_major<const N: usize>(extent: &Extent<N>) -> [u64; N] {
    let mut strides = [0u64; N];
    let mut s = 1u64;
    for d in (0..N).rev() {
        strides[d] = s;
        s = s.saturating_mul(extent[d].max(0) as u64);
    }
    strides
}

/// Checks that every component of `extent` is positive.
pub(crate) fn check_extent<const N: usize>(extent: &Extent<N>, what: &str) -> Result<()> {
    if extent.is_positive() {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{what}: extent {extent} has a zero or negative component"
        )))
    }
}

/// Checks that no component of a container's `extent` is negative (empty
/// containers are allowed; empty sections are not).
pub(crate) fn check_container_extent<const N: usize>(extent: &Extent<N>, what: &str) -> Result<()> {
    if (0..N).all(|d| extent[d] >= 0) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{what}: extent {extent} has a negative component"
        )))
    }
}

impl<const N: usize> Layout<N> {
    /// A dense layout of `extent` at `offset`.
    pub(crate) fn contiguous(extent: Extent<N>, offset: u64, elem: u64) -> Layout<N> {
        Layout {
            offset,
            extent,
            strides: row_major(&extent),
            elem,
        }
    }

    /// The number of elements.
    pub(crate) fn len(&self) -> u64 {
        self.extent.size()
    }

    /// Whether the elements are dense and in row-major order.
    pub(crate) fn is_contiguous(&self) -> bool {
        (0..N).all(|d| self.extent[d] == 1 || self.strides[d] == row_major(&self.extent)[d])
    }

    /// The byte offset of element `idx` (which must be inside the extent).
    pub(crate) fn byte_offset(&self, idx: &Index<N>) -> u64 {
        let elems: u64 = (0..N).map(|d| idx[d] as u64 * self.strides[d]).sum();
        self.offset + elems * self.elem
    }

    /// The byte ranges the view covers.
    pub(crate) fn region(&self) -> RangeSet {
        if self.len() == 0 {
            return RangeSet::new();
        }
        if self.is_contiguous() {
            return RangeSet::from_range(self.offset..self.offset + self.len() * self.elem);
        }
        // One run per row (all dimensions but the last); neighbours merge.
        let row_bytes = self.extent[N - 1] as u64 * self.strides[N - 1] * self.elem;
        let dense_rows = self.strides[N - 1] == 1;
        let mut ranges = Vec::new();
        let mut outer = self.extent;
        outer[N - 1] = 1;
        for idx in outer.indices() {
            let start = self.byte_offset(&idx);
            if dense_rows {
                ranges.push(start..start + row_bytes);
            } else {
                for j in 0..self.extent[N - 1] as u64 {
                    let s = start + j * self.strides[N - 1] * self.elem;
                    ranges.push(s..s + self.elem);
                }
            }
        }
        RangeSet::from_ranges(ranges)
    }

    /// The byte range of one element.
    pub(crate) fn element_region(&self, idx: &Index<N>) -> RangeSet {
        let start = self.byte_offset(idx);
        RangeSet::from_range(start..start + self.elem)
    }

    /// Checks `idx` against the extent.
    pub(crate) fn check_index(&self, idx: &Index<N>) -> Result<()> {
        if self.extent.contains(idx) {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "index {idx} is out of bounds of extent {}",
                self.extent
            )))
        }
    }

    /// The section at `origin` of `extent`.
    pub(crate) fn section(&self, origin: Index<N>, extent: Extent<N>) -> Result<Layout<N>> {
        check_extent(&extent, "section")?;
        for d in 0..N {
            let end = i64::from(origin[d]) + i64::from(extent[d]);
            if origin[d] < 0 || end > i64::from(self.extent[d]) {
                return Err(Error::InvalidArgument(format!(
                    "section at {origin} of extent {extent} does not fit in extent {}",
                    self.extent
                )));
            }
        }
        Ok(Layout {
            offset: self.byte_offset(&origin),
            extent,
            strides: self.strides,
            elem: self.elem,
        })
    }

    /// The same elements seen with `extent` (dense views only, no larger).
    pub(crate) fn view_as<const M: usize>(&self, extent: Extent<M>) -> Result<Layout<M>> {
        check_extent(&extent, "view_as")?;
        if !self.is_contiguous() {
            return Err(Error::InvalidArgument(
                "view_as needs a contiguous view (a section of whole rows)".to_string(),
            ));
        }
        if extent.size() > self.len() {
            return Err(Error::InvalidArgument(format!(
                "view_as extent {extent} has more elements than the view's {}",
                self.extent
            )));
        }
        Ok(Layout::contiguous(extent, self.offset, self.elem))
    }

    /// The same bytes seen as `len` elements of `elem` bytes (dense only).
    pub(crate) fn reinterpret(&self, elem: u64) -> Result<Layout<1>> {
        if !self.is_contiguous() {
            return Err(Error::InvalidArgument(
                "reinterpret_as needs a contiguous view".to_string(),
            ));
        }
        let bytes = self.len() * self.elem;
        if !bytes.is_multiple_of(elem) {
            return Err(Error::InvalidArgument(format!(
                "reinterpret_as: {bytes} bytes are not a whole number of {elem}-byte elements"
            )));
        }
        let len = i32::try_from(bytes / elem).map_err(|_| {
            Error::InvalidArgument("reinterpret_as: too many elements for an extent".to_string())
        })?;
        if len == 0 {
            return Err(Error::InvalidArgument(
                "reinterpret_as of an empty view".to_string(),
            ));
        }
        Ok(Layout::contiguous(Extent::new([len]), self.offset, elem))
    }
}

/// Projection: fixing the most significant index. Implemented per rank
/// because stable Rust cannot write `N - 1` in a type.
pub(crate) trait Project<const M: usize> {
    fn project(&self, i: i32) -> Result<Layout<M>>;
}

macro_rules! impl_project {
    ($($n:literal => $m:literal),*) => {$(
        impl Project<$m> for Layout<$n> {
            fn project(&self, i: i32) -> Result<Layout<$m>> {
                if i < 0 || i >= self.extent[0] {
                    return Err(Error::InvalidArgument(format!(
                        "projection index {i} is out of bounds of extent {}",
                        self.extent
                    )));
                }
                let mut extent = [0; $m];
                let mut strides = [0; $m];
                extent.copy_from_slice(&self.extent.to_array()[1..]);
                strides.copy_from_slice(&self.strides[1..]);
                Ok(Layout {
                    offset: self.offset + i as u64 * self.strides[0] * self.elem,
                    extent: Extent::new(extent),
                    strides,
                    elem: self.elem,
                })
            }
        }
    )*};
}

impl_project!(2 => 1, 3 => 2, 4 => 3, 5 => 4, 6 => 5, 7 => 6, 8 => 7);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_of_sections_address_the_parent() {
        let l = Layout::contiguous(Extent::new([10, 20]), 0, 4);
        assert_eq!(l.region().ranges().to_vec(), vec![0..800]);
        let s = l.section(Index::new([2, 5]), Extent::new([3, 4])).unwrap();
        assert_eq!(s.byte_offset(&Index::new([0, 0])), (2 * 20 + 5) * 4);
        assert_eq!(s.byte_offset(&Index::new([2, 3])), (4 * 20 + 8) * 4);
        assert_eq!(s.region().ranges(), &[180..196, 260..276, 340..356]);
        assert!(!s.is_contiguous());
        let full_rows = l.section(Index::new([2, 0]), Extent::new([3, 20])).unwrap();
        assert!(full_rows.is_contiguous());
        assert_eq!(full_rows.region().ranges().to_vec(), vec![160..400]);
    }

    #[test]
    fn view_as_and_projection() {
        let l = Layout::contiguous(Extent::new([100]), 0, 4);
        let s = l.section(Index::new([10]), Extent::new([30])).unwrap();
        let v = s.view_as(Extent::new([3, 10])).unwrap();
        assert_eq!(v.byte_offset(&Index::new([2, 2])), 32 * 4);
        let row: Layout<1> = v.project(1).unwrap();
        assert_eq!(row.byte_offset(&Index::new([0])), 20 * 4);
        assert!(v.project(3).is_err());
        assert!(s.view_as(Extent::new([4, 10])).is_err());
    }

    #[test]
    fn bad_sections_are_errors() {
        let l = Layout::contiguous(Extent::new([5, 5]), 0, 4);
        assert!(l.section(Index::new([0, 0]), Extent::new([0, 5])).is_err());
        assert!(l.section(Index::new([1, 0]), Extent::new([5, 5])).is_err());
        assert!(l.section(Index::new([-1, 0]), Extent::new([1, 1])).is_err());
        assert!(l.section(Index::new([5, 0]), Extent::new([1, 1])).is_err());
        assert!(
            l.section(Index::new([i32::MAX, 0]), Extent::new([i32::MAX, 1]))
                .is_err()
        );
        assert!(
            l.reinterpret(8).is_err(),
            "100 bytes are not whole 8-byte elements"
        );
        assert_eq!(l.reinterpret(2).unwrap().extent, Extent::new([50]));
    }
}
