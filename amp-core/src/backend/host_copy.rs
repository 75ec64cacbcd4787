//! Large host-memory copies of transfers (into mapped staging memory, out
//! of it into host copies and slices), split over threads of a pool of
//! their own.
//!
//! One host thread copies pageable memory at 7-10 GB/s where the PCIe link
//! of a GPU takes 25-50 GB/s, so a transfer's host copies are split into
//! 1 MiB parts copied by the threads of this module's pool. A caller that is
//! itself a worker of a rayon pool (a user's `par_iter` doing transfers)
//! copies alone: waiting for another pool's job, a rayon worker runs tasks
//! of its own pool, and such a task may block on the storage lock this
//! caller holds (a deadlock that `large_copies_from_rayon_tasks_on_one_array`
//! reproduced).

use std::sync::OnceLock;

use rayon::prelude::*;

/// Bytes of one thread's part of a copy.
pub(crate) const PART_BYTES: usize = 1024 * 1024;

/// Copies of this size and more are split over threads.
pub(crate) const PARALLEL_MIN_BYTES: usize = 4 * PART_BYTES;

/// Threads of the pool, at most, unless `AMP_COPY_THREADS` says otherwise
/// (the pool never has more threads than the machine has cores). On a
/// 32-core H200 host, downloads of 256 MiB into a slice ran at 31.0 GB/s
/// with 16 threads and 38.1 with 32 (uploads 25.6-26.6 either way); on a
/// 16-core one, 32 threads (twice the cores) cut uploads to 18 GB/s.
const MAX_THREADS: usize = 32;

/// The pool's size: `AMP_COPY_THREADS` where it is a positive number (a
/// machine whose memory system wants more or fewer copying threads), else
/// the machine's parallelism up to [`MAX_THREADS`].
fn threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    match std::env::var("AMP_COPY_THREADS") {
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => {
                log::warn!("AMP_COPY_THREADS={v:?} is not a positive number; ignored");
                cores.min(MAX_THREADS)
            }
        },
        Err(_) => cores.min(MAX_THREADS),
    }
}

/// The pool, or `None` where its threads cannot be started (copies then
/// run on the calling thread).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = threads();
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("amp-copy-{i}"))
            .build()
            .map_err(|e| log::warn!("transfers copy on one thread: {e}"))
            .ok()
    })
    .as_ref()
}

/// Runs `job` (parts of a copy, each `Send`) on the pool: every part once,
/// returning when all are done; on the calling thread where there is no
/// pool or the caller is a rayon worker (see the module docs).
pub(crate) fn for_each<P: Send>(parts: Vec<P>, job: impl Fn(P) + Sync + Send) {
    match pool() {
        Some(pool) if rayon::current_thread_index().is_none() => {
            pool.install(|| parts.into_par_iter().for_each(job))
        }
        _ => parts.into_iter().for_each(job),
    }
}

/// Copies `src` into `dst` (equal lengths), split over threads from
/// [`PARALLEL_MIN_BYTES`] on.
pub(crate) fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    if dst.len() < PARALLEL_MIN_BYTES {
        dst.copy_from_slice(src);
        return;
    }
    let parts: Vec<(&mut [u8], &[u8])> = dst
        .chunks_mut(PART_BYTES)
        .zip(src.chunks(PART_BYTES))
        .collect();
    for_each(parts, |(d, s)| d.copy_from_slice(s));
}

/// Copies `src` into both `first` and `second` (equal lengths), split over
/// threads from [`PARALLEL_MIN_BYTES`] on: each thread copies its part of
/// `src` into `first`, then that part of `first` (still in its cache) into
/// `second`, so that `src` (a download's staging memory) is read once.
pub(crate) fn copy_bytes_twice(first: &mut [u8], second: &mut [u8], src: &[u8]) {
    if first.len() < PARALLEL_MIN_BYTES {
        first.copy_from_slice(src);
        second.copy_from_slice(first);
        return;
    }
    let parts: Vec<_> = first
        .chunks_mut(PART_BYTES)
        .zip(second.chunks_mut(PART_BYTES))
        .zip(src.chunks(PART_BYTES))
        .collect();
    for_each(parts, |((a, b), s): ((&mut [u8], &mut [u8]), &[u8])| {
        a.copy_from_slice(s);
        b.copy_from_slice(a);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_and_small_copies_copy_every_byte() {
        for len in [0, 7, PARALLEL_MIN_BYTES - 1, PARALLEL_MIN_BYTES + 12_345] {
            let src: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let mut dst = vec![0xA5u8; len];
            copy_bytes(&mut dst, &src);
            assert!(dst == src, "{len} bytes");
            let (mut one, mut two) = (vec![0x5Au8; len], vec![0x3Cu8; len]);
            copy_bytes_twice(&mut one, &mut two, &src);
            assert!(one == src && two == src, "{len} bytes, twice");
        }
    }
}
