//! Many Mersenne Twisters at once, in the shape of C++ AMP's
//! MersenneTwister sample.
//!
//! The original gives every work item a generator of its own: the
//! generator's state is an array owned by the work item, seeded
//! differently for each, and the work item draws a run of numbers from it
//! with nothing but integer shifts, masks and exclusive ors. The port runs
//! the standard MT19937 (Matsumoto and Nishimura, 1998: a 624-word state,
//! `init_genrand` seeding, `genrand_int32` drawing), each work item's state
//! a local `[u32; 624]` array, and checks every number bit for bit against
//! [`Mt19937`], a plain-Rust generator written from the published
//! algorithm.
//!
//! Work item `g` writes its `k`-th number to `out[k * generators + g]`, so
//! that neighbouring work items write neighbouring words.

use amp_core::Result;
use amp_core::prelude::*;

/// Words of state.
pub const STATE: i32 = 624;
/// The offset of the word mixed in by the twist (MT19937's `M`).
pub const SHIFT: i32 = 397;
/// The twist's matrix (its last row, MT19937's `MATRIX_A`).
pub const MATRIX_A: u32 = 0x9908_b0df;
/// The most significant bit of a word.
pub const UPPER_MASK: u32 = 0x8000_0000;
/// The other 31 bits.
pub const LOWER_MASK: u32 = 0x7fff_ffff;
/// `init_genrand`'s multiplier.
pub const SEED_MULTIPLIER: u32 = 1_812_433_253;

/// MT19937's tempering of a state word into an output.
///
/// # Examples
///
/// ```
/// use amp_examples::mersenne_twister::temper;
/// assert_eq!(temper(0), 0);
/// ```
#[kernel]
pub fn temper(word: u32) -> u32 {
    let mut y = word;
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c_5680;
    y ^= (y << 15) & 0xefc6_0000;
    y ^ (y >> 18)
}

/// The state word that the twist puts at a place holding `word`, from the
/// next word `next` and the word [`SHIFT`] places on, `far`.
///
/// # Examples
///
/// ```
/// use amp_examples::mersenne_twister::{MATRIX_A, twist};
/// assert_eq!(twist(0, 1, 0), MATRIX_A);
/// ```
#[kernel]
pub fn twist(word: u32, next: u32, far: u32) -> u32 {
    let y = (word & UPPER_MASK) | (next & LOWER_MASK);
    let odd = 0u32.wrapping_sub(y & 1);
    far ^ (y >> 1) ^ (odd & MATRIX_A)
}

/// The reference generator: MT19937 in plain Rust.
#[derive(Clone)]
pub struct Mt19937 {
    mt: [u32; STATE as usize],
    next: usize,
}

impl Mt19937 {
    /// A generator seeded as `init_genrand(seed)` seeds one.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut g = amp_examples::mersenne_twister::Mt19937::new(5489);
    /// assert_eq!(g.next_u32(), 3_499_211_612);
    /// ```
    pub fn new(seed: u32) -> Mt19937 {
        let mut mt = [0u32; STATE as usize];
        mt[0] = seed;
        for i in 1..STATE as usize {
            let prev = mt[i - 1];
            mt[i] = SEED_MULTIPLIER
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 {
            mt,
            next: STATE as usize,
        }
    }

    /// The next number, as `genrand_int32` draws it.
    pub fn next_u32(&mut self) -> u32 {
        let n = STATE as usize;
        if self.next >= n {
            for i in 0..n {
                self.mt[i] = twist(
                    self.mt[i],
                    self.mt[(i + 1) % n],
                    self.mt[(i + SHIFT as usize) % n],
                );
            }
            self.next = 0;
        }
        let y = self.mt[self.next];
        self.next += 1;
        temper(y)
    }
}

impl std::fmt::Debug for Mt19937 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mt19937")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// Draws `out.len() / seeds.len()` numbers from one MT19937 per seed, a
/// work item per generator, the `k`-th number of generator `g` into
/// `out[k * seeds.len() + g]`.
///
/// # Errors
///
/// [`Error::InvalidArgument`] if there are no seeds, or `out`'s length is
/// not a multiple of their number; any error of the launch.
///
/// # Examples
///
/// ```
/// use amp_examples::mersenne_twister::{Mt19937, generate};
/// let view = amp_core::Accelerator::cpu().default_view();
/// let mut out = [0u32; 6];
/// generate(&view, &[5489, 1], &mut out)?;
/// let mut a = Mt19937::new(5489);
/// let mut b = Mt19937::new(1);
/// assert_eq!(out[0..2], [a.next_u32(), b.next_u32()]);
/// assert_eq!(out[2..4], [a.next_u32(), b.next_u32()]);
/// assert_eq!(out[4..6], [a.next_u32(), b.next_u32()]);
/// # Ok::<(), amp_core::Error>(())
/// ```
pub fn generate(view: &AcceleratorView, seeds: &[u32], out: &mut [u32]) -> Result<()> {
    let (generators, per) = i32::try_from(seeds.len())
        .ok()
        .filter(|&g| g > 0 && out.len().is_multiple_of(seeds.len()))
        .and_then(|g| Some((g, i32::try_from(out.len() / seeds.len()).ok()?)))
        .filter(|&(_, per)| per > 0)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "mersenne_twister::generate needs 1 or more seeds and a whole, nonzero number \
                 of outputs per seed, not {} seeds for {} outputs",
                seeds.len(),
                out.len()
            ))
        })?;
    let s = ArrayView::new([generators], seeds)?;
    let o = ArrayView::new_mut([per, generators], out)?;
    o.discard_data();
    parallel_for_each!(view, s.extent(), |idx: Index<1>| {
        let g = idx[0];
        // init_genrand
        let mut mt = [0u32; STATE as usize];
        mt[0] = s[idx];
        for i in 1..STATE {
            let prev = mt[i - 1];
            mt[i] = SEED_MULTIPLIER
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        // genrand_int32, `per` times
        let mut next = STATE;
        for k in 0..per {
            if next >= STATE {
                for i in 0..STATE {
                    mt[i] = twist(mt[i], mt[(i + 1) % STATE], mt[(i + SHIFT) % STATE]);
                }
                next = 0;
            }
            o[[k, g]] = temper(mt[next]);
            next += 1;
        }
    })?;
    o.synchronize()
}

/// The reference: the numbers [`generate`] draws, in its layout, from
/// [`Mt19937`].
///
/// # Panics
///
/// If `seeds` is empty.
pub fn generate_cpu(seeds: &[u32], per: usize) -> Vec<u32> {
    assert!(!seeds.is_empty(), "one or more seeds");
    let mut out = vec![0u32; seeds.len() * per];
    for (g, &seed) in seeds.iter().enumerate() {
        let mut mt = Mt19937::new(seed);
        for k in 0..per {
            out[k * seeds.len() + g] = mt.next_u32();
        }
    }
    out
}
