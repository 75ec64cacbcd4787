//! A set of disjoint half-open `u64` ranges, kept sorted and merged: the
//! regions of a data source that one location holds valid.

use std::ops::Range;

/// Sorted, disjoint, non-adjacent, non-empty ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RangeSet {
    ranges: Vec<Range<u64>>,
}

impl RangeSet {
    /// The empty set.
    pub(crate) fn new() -> RangeSet {
        RangeSet::default()
    }

    /// The set holding exactly `range` (empty if `range` is).
    pub(crate) fn from_range(range: Range<u64>) -> RangeSet {
        let mut s = RangeSet::new();
        s.insert(range);
        s
    }

    /// The set of `ranges` (in any order, possibly overlapping).
    pub(crate) fn from_ranges(ranges: impl IntoIterator<Item = Range<u64>>) -> RangeSet {
        let mut all: Vec<Range<u64>> = ranges.into_iter().filter(|r| r.start < r.end).collect();
        all.sort_by_key(|r| r.start);
        let mut out: Vec<Range<u64>> = Vec::with_capacity(all.len());
        for r in all {
            match out.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => out.push(r),
            }
        }
        RangeSet { ranges: out }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub(crate) fn ranges(&self) -> &[Range<u64>] {
        &self.ranges
    }

    /// Total length of the ranges.
    #[allow(dead_code)] // used by tests and diagnostics
    pub(crate) fn len(&self) -> u64 {
        self.ranges.iter().map(|r| r.end - r.start).sum()
    }

    /// The smallest range covering the set, if any.
    pub(crate) fn hull(&self) -> Option<Range<u64>> {
        Some(self.ranges.first()?.start..self.ranges.last()?.end)
    }

    /// Adds `range`.
    pub(crate) fn insert(&mut self, range: Range<u64>) {
        if range.start >= range.end {
            return;
        }
        // First range that ends at or after range.start (may merge).
        let lo = self.ranges.partition_point(|r| r.end < range.start);
        // First range that starts after range.end (cannot merge).
        let hi = self.ranges.partition_point(|r| r.start <= range.end);
        let mut merged = range;
        if lo < hi {
            merged.start = merged.start.min(self.ranges[lo].start);
            merged.end = merged.end.max(self.ranges[hi - 1].end);
        }
        self.ranges.splice(lo..hi, std::iter::once(merged));
    }

    /// Adds every range of `other`.
    pub(crate) fn union_with(&mut self, other: &RangeSet) {
        if self.ranges.is_empty() {
            self.ranges = other.ranges.clone();
            return;
        }
        for r in &other.ranges {
            self.insert(r.clone());
        }
    }

    /// Removes `range`.
    pub(crate) fn remove(&mut self, range: Range<u64>) {
        if range.start >= range.end {
            return;
        }
        let lo = self.ranges.partition_point(|r| r.end <= range.start);
        let hi = self.ranges.partition_point(|r| r.start < range.end);
        if lo >= hi {
            return;
        }
        let mut keep = Vec::with_capacity(2);
        let first = self.ranges[lo].clone();
        let last = self.ranges[hi - 1].clone();
        if first.start < range.start {
            keep.push(first.start..range.start);
        }
        if last.end > range.end {
            keep.push(range.end..last.end);
        }
        self.ranges.splice(lo..hi, keep);
    }

    /// Removes every range of `other`.
    pub(crate) fn subtract(&mut self, other: &RangeSet) {
        for r in &other.ranges {
            if self.ranges.is_empty() {
                return;
            }
            self.remove(r.clone());
        }
    }

    /// `self - other`, as a new set.
    pub(crate) fn difference(&self, other: &RangeSet) -> RangeSet {
        let mut out = self.clone();
        out.subtract(other);
        out
    }

    /// `self ∩ other`, as a new set.
    pub(crate) fn intersection(&self, other: &RangeSet) -> RangeSet {
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a, b) = (&self.ranges[i], &other.ranges[j]);
            let start = a.start.max(b.start);
            let end = a.end.min(b.end);
            if start < end {
                out.push(start..end);
            }
            if a.end < b.end {
                i += 1;
            } else {
                j += 1;
            }
        }
        RangeSet { ranges: out }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bitmap model of a set over 0..64.
    fn model(s: &RangeSet) -> u64 {
        s.ranges()
            .iter()
            .flat_map(|r| r.clone())
            .fold(0, |m, i| m | (1 << i))
    }

    fn bits(r: &Range<u64>) -> u64 {
        r.clone().fold(0, |m, i| m | (1 << i))
    }

    fn well_formed(s: &RangeSet) -> bool {
        s.ranges().iter().all(|r| r.start < r.end)
            && s.ranges().windows(2).all(|w| w[0].end < w[1].start)
    }

    #[test]
    fn operations_agree_with_a_bitmap_model() {
        let mut seed = 0x1234_5678_9abc_def1_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            let mut a = RangeSet::new();
            let mut b = RangeSet::new();
            let (mut ma, mut mb) = (0u64, 0u64);
            for _ in 0..(next() % 6) {
                let s = next() % 64;
                let r = s..(s + next() % 12).min(64);
                a.insert(r.clone());
                ma |= bits(&r);
                let s = next() % 64;
                let r = s..(s + next() % 12).min(64);
                b.insert(r.clone());
                mb |= bits(&r);
            }
            assert!(well_formed(&a) && well_formed(&b));
            assert_eq!(model(&a), ma);
            assert_eq!(model(&a.difference(&b)), ma & !mb);
            assert_eq!(model(&a.intersection(&b)), ma & mb);
            let mut u = a.clone();
            u.union_with(&b);
            assert!(well_formed(&u));
            assert_eq!(model(&u), ma | mb);
            assert_eq!(u.len(), u64::from((ma | mb).count_ones()));
            let r = (next() % 64)..(next() % 64);
            let mut d = a.clone();
            d.remove(r.clone());
            assert!(well_formed(&d));
            assert_eq!(model(&d), ma & !bits(&r));
        }
    }

    #[test]
    fn from_ranges_merges_overlaps_and_neighbours() {
        let s = RangeSet::from_ranges([8..10, 0..4, 4..6, 9..12, 20..20]);
        assert_eq!(s.ranges(), &[0..6, 8..12]);
        assert_eq!(s.hull(), Some(0..12));
        assert_eq!(RangeSet::new().hull(), None);
    }
}
