//! Where a random traveler ends up, in the shape of C++ AMP's
//! RandomTraveler sample.
//!
//! The original's traveler starts at an airport and takes a number of
//! flights, each time an outgoing flight of the airport it is at, chosen
//! with probability proportional to the flight's frequency; the sample
//! finds the airports where the traveler is most likely to be at the end.
//! The port estimates that by Monte Carlo: every work item walks many
//! journeys with a random generator of its own (xorshift32, seeded from the
//! run's seed and the work item's index), and the final airports of all
//! journeys are counted with atomic increments into one histogram (the
//! reduction). [`walk_cpu`] walks the same journeys with the same
//! generator in plain Rust, so the counts agree exactly; [`distribution`]
//! is the exact probability of each airport (the chain's distribution after
//! the flights), which the counts approach.
//!
//! The flights are a graph in compressed rows: airport `a`'s flights are
//! `targets[offsets[a]..offsets[a + 1]]`, with running sums of their
//! frequencies in `cumulative` (so a flight is chosen by finding the first
//! running sum above a random number below the airport's total).

use amp_core::Result;
use amp_core::prelude::*;

use crate::gallery::Rand;

/// The flights between airports, in compressed rows (see the module's
/// documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    /// Where each airport's flights start in `targets`; one more element
    /// than there are airports.
    pub offsets: Vec<u32>,
    /// The destination of each flight.
    pub targets: Vec<u32>,
    /// The running sum of the frequencies of the airport's flights, up to
    /// and including this one (each frequency is at least 1).
    pub cumulative: Vec<u32>,
}

impl Graph {
    /// A random graph of `airports` airports (at least 1), each with 1 to
    /// `max_flights` flights of frequencies 1 to 100 to random airports,
    /// drawn from `seed`.
    pub fn random(airports: usize, max_flights: u32, seed: u64) -> Graph {
        let airports = airports.max(1);
        let mut rng = Rand::new(seed);
        let mut g = Graph {
            offsets: vec![0],
            targets: Vec::new(),
            cumulative: Vec::new(),
        };
        for _ in 0..airports {
            let mut sum = 0;
            for _ in 0..1 + rng.below(max_flights.max(1)) {
                sum += 1 + rng.below(100);
                g.targets.push(rng.below(airports as u32));
                g.cumulative.push(sum);
            }
            g.offsets.push(g.targets.len() as u32);
        }
        g
    }

    /// The number of airports.
    pub fn airports(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Where the traveler goes from `airport` with the random number `r`:
    /// the first flight whose running sum exceeds `r` modulo the airport's
    /// total; an airport without flights keeps the traveler.
    fn step(&self, airport: u32, r: u32) -> u32 {
        let (lo, hi) = (
            self.offsets[airport as usize] as usize,
            self.offsets[airport as usize + 1] as usize,
        );
        if hi == lo {
            return airport;
        }
        let pick = r % self.cumulative[hi - 1];
        let mut e = lo;
        while self.cumulative[e] <= pick {
            e += 1;
        }
        self.targets[e]
    }

    fn check(&self, start: u32) -> Result<i32> {
        let n = self.airports();
        let edges = self.targets.len();
        let fine = n > 0
            && self.offsets[0] == 0
            && self.offsets.windows(2).all(|w| w[0] <= w[1])
            && self.offsets[n] as usize == edges
            && self.cumulative.len() == edges
            && self.targets.iter().all(|&t| (t as usize) < n)
            && (0..n).all(|a| {
                let (lo, hi) = (self.offsets[a] as usize, self.offsets[a + 1] as usize);
                self.cumulative[lo..hi].windows(2).all(|w| w[0] < w[1])
                    && self.cumulative[lo..hi].first().is_none_or(|&c| c > 0)
            })
            && (start as usize) < n
            && i32::try_from(edges.max(n + 1)).is_ok();
        if fine {
            Ok(n as i32)
        } else {
            Err(Error::InvalidArgument(format!(
                "random_traveler needs a graph in compressed rows (offsets from 0 to the number \
                 of flights, destinations below {n}, rising running sums above 0) and a start \
                 below {n}; start {start}"
            )))
        }
    }
}

/// One step of xorshift32 (Marsaglia's 13, 17, 5): the generator's next
/// state, which is also its output. Never 0 for a state that is not 0.
///
/// # Examples
///
/// ```
/// assert_eq!(amp_examples::random_traveler::xorshift32(1), 270_369);
/// ```
#[kernel]
pub fn xorshift32(state: u32) -> u32 {
    let mut x = state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    x
}

/// The first state of work item `item`'s generator for the run's `seed`:
/// the two mixed by a multiply-xorshift hash, never 0.
///
/// # Examples
///
/// ```
/// use amp_examples::random_traveler::seed_for;
/// assert_ne!(seed_for(7, 0), seed_for(7, 1));
/// assert_ne!(seed_for(0, 0), 0);
/// ```
#[kernel]
pub fn seed_for(seed: u32, item: u32) -> u32 {
    let mut h = seed ^ item.wrapping_mul(0x9e37_79b9);
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h | 1
}

/// Counts the final airports of `walkers * journeys` journeys of `flights`
/// flights from `start`: `walkers` work items, each walking `journeys`
/// journeys with its own generator (see [`seed_for`]).
///
/// # Errors
///
/// [`Error::InvalidArgument`] for a malformed graph, a start outside it, or
/// `walkers == 0`; any error of the launch.
///
/// # Examples
///
/// ```
/// use amp_examples::random_traveler::{Graph, walk, walk_cpu};
/// let view = amp_core::Accelerator::cpu().default_view();
/// let g = Graph::random(20, 4, 1);
/// let counts = walk(&view, &g, 0, 5, 64, 10, 99)?;
/// assert_eq!(counts.iter().sum::<u32>(), 640);
/// assert_eq!(counts, walk_cpu(&g, 0, 5, 64, 10, 99));
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn walk(
    view: &AcceleratorView,
    graph: &Graph,
    start: u32,
    flights: u32,
    walkers: u32,
    journeys: u32,
    seed: u32,
) -> Result<Vec<u32>> {
    let n = graph.check(start)?;
    let items = i32::try_from(walkers)
        .ok()
        .filter(|&w| w > 0)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "random_traveler needs 1 to {} walkers, not {walkers}",
                i32::MAX
            ))
        })?;
    let edges = graph.targets.len().max(1) as i32;
    // A graph without flights still binds a one-element buffer.
    let (targets, cumulative) = if graph.targets.is_empty() {
        (vec![0u32], vec![1u32])
    } else {
        (graph.targets.clone(), graph.cumulative.clone())
    };
    let mut counts = vec![0u32; n as usize];
    {
        let off = ArrayView::new([n + 1], &graph.offsets)?;
        let dst = ArrayView::new([edges], &targets)?;
        let cum = ArrayView::new([edges], &cumulative)?;
        let c = ArrayView::new_mut([n], &mut counts)?;
        parallel_for_each!(view, Extent::new([items]), |idx: Index<1>| {
            let mut x = seed_for(seed, idx[0] as u32);
            for _ in 0..journeys {
                let mut airport = start;
                for _ in 0..flights {
                    let lo = off[[airport as i32]] as i32;
                    let hi = off[[airport as i32 + 1]] as i32;
                    if hi > lo {
                        x = xorshift32(x);
                        let pick = x % cum[[hi - 1]];
                        let mut e = lo;
                        while cum[[e]] <= pick {
                            e += 1;
                        }
                        airport = dst[[e]];
                    }
                }
                atomic_fetch_inc(&c[[airport as i32]]);
            }
        })?;
        c.synchronize()?;
    }
    Ok(counts)
}

/// The reference: the same journeys with the same generators, walked in
/// plain Rust.
///
/// # Panics
///
/// If `start` is not an airport of `graph`.
pub fn walk_cpu(
    graph: &Graph,
    start: u32,
    flights: u32,
    walkers: u32,
    journeys: u32,
    seed: u32,
) -> Vec<u32> {
    let mut counts = vec![0u32; graph.airports()];
    for item in 0..walkers {
        let mut x = seed_for(seed, item);
        for _ in 0..journeys {
            let mut airport = start;
            for _ in 0..flights {
                let (lo, hi) = (
                    graph.offsets[airport as usize],
                    graph.offsets[airport as usize + 1],
                );
                if hi > lo {
                    x = xorshift32(x);
                    airport = graph.step(airport, x);
                }
            }
            counts[airport as usize] += 1;
        }
    }
    counts
}

/// The exact probability of each airport after `flights` flights from
/// `start` (the distribution of the Markov chain, in `f64`).
///
/// # Panics
///
/// If `start` is not an airport of `graph`.
pub fn distribution(graph: &Graph, start: u32, flights: u32) -> Vec<f64> {
    let n = graph.airports();
    let mut p = vec![0.0f64; n];
    p[start as usize] = 1.0;
    for _ in 0..flights {
        let mut q = vec![0.0f64; n];
        for (a, &pa) in p.iter().enumerate() {
            let (lo, hi) = (graph.offsets[a] as usize, graph.offsets[a + 1] as usize);
            if hi == lo {
                q[a] += pa;
                continue;
            }
            let total = f64::from(graph.cumulative[hi - 1]);
            let mut below = 0;
            for e in lo..hi {
                let freq = graph.cumulative[e] - below;
                below = graph.cumulative[e];
                q[graph.targets[e] as usize] += pa * f64::from(freq) / total;
            }
        }
        p = q;
    }
    p
}
