//! A guide to amp-rs: kernels, tiles, functions, and the C++ AMP names.
//!
//! This module holds no items; it is the crate's user guide, and each of
//! its examples is a test.
//!
//! # A first kernel
//!
//! A kernel is a closure given to [`parallel_for_each!`](crate::parallel_for_each),
//! run once per [`Index`](crate::Index) of an [`Extent`](crate::Extent). It
//! reads and writes [`ArrayView`](crate::ArrayView)s and
//! [`Array`](crate::Array)s by capturing them. The macro compiles it to WGSL
//! for GPUs and to native Rust for the CPU accelerator, at build time: a
//! kernel that uses something no accelerator can run is a compile error.
//!
//! ```
//! use amp_core::prelude::*;
//!
//! let a: Vec<f32> = (0..256).map(|i| i as f32).collect();
//! let mut b = vec![0.0f32; 256];
//! {
//!     let av = ArrayView::from_slice(&a)?; // read-only: never copied back
//!     let bv = ArrayView::from_slice_mut(&mut b)?;
//!     bv.discard_data(); // its old contents need not be uploaded
//!     parallel_for_each!(bv.extent(), |idx: Index<1>| {
//!         bv[idx] = av[idx] * av[idx];
//!     })?; // on the default accelerator
//!     // The results come back here, with any error of the kernel. The
//!     // view's drop would write them back too, but a destructor cannot
//!     // return an error: it prints it to standard error instead.
//!     bv.synchronize()?;
//! }
//! assert_eq!(b[12], 144.0);
//! # Ok::<(), amp_core::Error>(())
//! ```
//!
//! # Tiled kernels and `#[kernel]` functions
//!
//! A [`TiledExtent`](crate::TiledExtent) groups work items into tiles that
//! share `tile_static!` memory and meet at barriers
//! ([`TileBarrier`](crate::TileBarrier)). A function marked
//! [`#[kernel]`](crate::kernel) (C++ AMP's `restrict(amp, cpu)`) can be
//! called from kernels and from the host; it may be generic over the
//! element type through [`Number`](crate::Number),
//! [`Float`](crate::Float) or [`Integer`](crate::Integer).
//!
//! The example sums each tile of 64 values in `tile_static` memory, halving
//! the number of active work items at each step, and scales the sums with
//! a generic function. Everything comes from the prelude.
//!
//! ```
//! use amp_core::prelude::*;
//!
//! #[kernel]
//! fn scaled<T: Number>(x: T, k: T) -> T {
//!     x * k
//! }
//!
//! const TILE: i32 = 64;
//! let data: Vec<i32> = (0..1024).map(|i| i % 7).collect();
//! let mut sums = vec![0i32; 1024 / TILE as usize];
//! {
//!     let input = ArrayView::from_slice(&data)?;
//!     let out = ArrayView::from_slice_mut(&mut sums)?;
//!     let domain = input.extent().tile::<64>()?;
//!     parallel_for_each!(domain, |t: TiledIndex<1>| {
//!         tile_static! {
//!             let part: [i32; 64];
//!         }
//!         let me = t.local[0];
//!         part[me] = input[t.global];
//!         t.barrier.wait();
//!         let mut half = TILE / 2;
//!         while half > 0 {
//!             if me < half {
//!                 part[me] += part[me + half];
//!             }
//!             t.barrier.wait();
//!             half /= 2;
//!         }
//!         if me == 0 {
//!             out[t.tile] = scaled(part[0], 10);
//!         }
//!     })?;
//! }
//! let want: Vec<i32> = data.chunks(64).map(|c| 10 * c.iter().sum::<i32>()).collect();
//! assert_eq!(sums, want);
//! # Ok::<(), amp_core::Error>(())
//! ```
//!
//! # Choosing where kernels run
//!
//! [`Accelerator::all`](crate::Accelerator::all) lists every wgpu adapter and
//! the CPU accelerator; [`Accelerator::default`](crate::Accelerator::default)
//! picks the best (a real GPU when there is one, else the CPU accelerator;
//! the `AMP_DEFAULT_ACCELERATOR` variable overrides it). Launch on a chosen
//! [`AcceleratorView`](crate::AcceleratorView) by naming it first:
//! `parallel_for_each!(view, extent, |idx: Index<1>| { ... })`.
//!
//! ```
//! use amp_core::prelude::*;
//!
//! let view = Accelerator::cpu().create_view(QueuingMode::Automatic);
//! let squares = Array::<u32, 1>::new([8], &view)?;
//! parallel_for_each!(view, squares.extent(), |idx: Index<1>| {
//!     let i = idx[0] as u32;
//!     squares[idx] = i * i;
//! })?;
//! assert_eq!(squares.to_vec()?, [0, 1, 4, 9, 16, 25, 36, 49]);
//! # Ok::<(), amp_core::Error>(())
//! ```
//!
//! To pick a particular GPU, or Mesa's software Vulkan driver lavapipe
//! (which reports itself as `llvmpipe`: a GPU-like accelerator on any
//! machine, handy for testing the GPU path in CI), look through
//! [`Accelerator::all`](crate::Accelerator::all) by
//! [`description`](crate::Accelerator::description) (the adapter's name) or
//! [`backend`](crate::Accelerator::backend), and make a view of the one you
//! want with [`create_view`](crate::Accelerator::create_view) (or
//! [`default_view`](crate::Accelerator::default_view)).
//! [`device_path`](crate::Accelerator::device_path) names an accelerator
//! stably (`cpu`, `vulkan/10de-2335/0`): pass it to
//! [`Accelerator::find`](crate::Accelerator::find), or set
//! `AMP_DEFAULT_ACCELERATOR` to it to change the default without changing
//! the program.
//!
//! ```
//! use amp_core::prelude::*;
//!
//! for acc in Accelerator::all() {
//!     println!("{:<24} {} ({})", acc.device_path(), acc.description(), acc.backend());
//! }
//! // lavapipe where it is installed, else a named GPU, else the CPU.
//! let chosen = Accelerator::all()
//!     .into_iter()
//!     .find(|a| a.description().contains("llvmpipe"))
//!     .or_else(|| Accelerator::all().into_iter().find(|a| a.description().contains("NVIDIA")))
//!     .unwrap_or_else(Accelerator::cpu);
//! let view = chosen.create_view(QueuingMode::Automatic);
//! let ones = Array::<f32, 1>::new([4], &view)?;
//! parallel_for_each!(view, ones.extent(), |idx: Index<1>| {
//!     ones[idx] = 1.0;
//! })?;
//! assert_eq!(ones.to_vec()?, [1.0; 4]);
//! # Ok::<(), amp_core::Error>(())
//! ```
//!
//! # Views as `#[kernel]` function parameters
//!
//! A `#[kernel]` function takes views by shared reference, as C++ AMP's
//! `restrict(amp)` functions take `array_view`s by reference:
//! `&ArrayView<'_, T, N>` to read and write (a write needs a view from
//! `ArrayView::new_mut`), `&ArrayView<'_, T, N, ReadOnly>` to read only,
//! and `&Array<T, N>`. The kernel passes the captured view as `&v`:
//!
//! ```
//! use amp_core::prelude::*;
//!
//! #[kernel]
//! fn blur3(src: &ArrayView<'_, f32, 1, ReadOnly>, i: i32) -> f32 {
//!     let last = src.extent()[0] - 1;
//!     let (l, r) = ((i - 1).max(0), (i + 1).min(last));
//!     (src[l] + src[i] + src[r]) / 3.0
//! }
//!
//! #[kernel]
//! fn store(dst: &ArrayView<'_, f32, 1>, i: i32, v: f32) {
//!     dst[i] = v;
//! }
//!
//! let input = [3.0f32, 6.0, 9.0, 12.0];
//! let mut out = [0.0f32; 4];
//! {
//!     let src = ArrayView::new([4], &input)?;
//!     let dst = ArrayView::new_mut([4], &mut out)?;
//!     parallel_for_each!(dst.extent(), |idx: Index<1>| {
//!         store(&dst, idx[0], blur3(&src, idx[0]));
//!     })?;
//!     dst.synchronize()?;
//! }
//! assert_eq!(out, [4.0, 6.0, 9.0, 11.0]);
//! # Ok::<(), amp_core::Error>(())
//! ```
//!
//! # `tile_static!` lengths and indices
//!
//! A `tile_static!` array's lengths are literals or constants (`usize` or
//! `i32` ones: `[[f32; TILE]; TILE]`), fixed when the kernel compiles, as
//! a GPU reserves the memory per tile before the kernel runs; at most three
//! dimensions, of any element type. Index it with `i32` or `u32` values
//! (`a[t.local[0]]`; Rust's `a[k as usize]` is accepted too), one `[]` per
//! dimension, like a local array. An index outside the array fails the
//! launch, as an index outside a view does.
//!
//! ```
//! use amp_core::prelude::*;
//!
//! const TILE: usize = 4;
//! let m: Vec<i32> = (0..64).collect();
//! let mut out = vec![0i32; 64];
//! {
//!     let src = ArrayView::new([8, 8], &m)?;
//!     let dst = ArrayView::new_mut([8, 8], &mut out)?;
//!     let domain = dst.extent().tile::<4, 4>()?;
//!     parallel_for_each!(domain, |t: TiledIndex<2>| {
//!         tile_static! { let block: [[i32; TILE]; TILE]; }
//!         let (r, c) = (t.local[0], t.local[1]);
//!         block[r][c] = src[t.global];
//!         t.barrier.wait();
//!         // The transposed tile, written at the mirrored tile.
//!         let o = t.tile_origin;
//!         dst[[o[1] + r, o[0] + c]] = block[c][r];
//!     })?;
//!     dst.synchronize()?;
//! }
//! assert_eq!((out[1], out[8]), (8, 1));
//! # Ok::<(), amp_core::Error>(())
//! ```
//!
//! # Bytes
//!
//! `u8`, `i8`, `u16` and `i16` are element types: a byte image is an
//! `ArrayView<u8, 2>` of the bytes as they are. Accelerator memory packs
//! them four (or two) to a 32-bit word; a kernel reads and writes single
//! elements, computes with them as Rust does (arithmetic wraps at the
//! type's width, `x as u8` of a float saturates), and a store never
//! disturbs the neighbours another work item writes in the same word
//! (it is merged in with a compare-exchange on GPUs, so byte stores cost
//! more than word stores there):
//!
//! ```
//! use amp_core::prelude::*;
//!
//! let pixels: Vec<u8> = (0..=255).collect();
//! let mut inverted = vec![0u8; pixels.len()];
//! {
//!     let src = ArrayView::new([16, 16], &pixels)?;
//!     let dst = ArrayView::new_mut([16, 16], &mut inverted)?;
//!     parallel_for_each!(dst.extent(), |idx: Index<2>| {
//!         dst[idx] = 255 - src[idx];
//!     })?;
//!     dst.synchronize()?;
//! }
//! assert_eq!((inverted[0], inverted[200]), (255, 55));
//! # Ok::<(), amp_core::Error>(())
//! ```
//!
//! A histogram of bytes counts with atomics on a view of `u32` bins
//! (`atomic_fetch_inc(&bins[[byte as i32]])`), one per byte value; atomics
//! apply to `i32`, `u32` and `f32` elements only. The small integers are
//! not fields of `#[derive(Element)]` structs nor elements of element
//! arrays (`[u8; 4]`): WGSL lays those out in 32-bit members. Their bit
//! functions (`count_ones`, `rotate_left`, ...) are refused in kernels:
//! convert to `u32` first. Where speed matters on a GPU, packing four
//! bytes per `u32` by hand (`u32::from_le_bytes`, `(w >> (8 * k)) & 0xff`)
//! and giving each work item a word still saves the merging stores.
//!
//! # Logging
//!
//! amp-core reports what it does through the [`log`](https://docs.rs/log)
//! crate: each kernel compiled for a GPU (with its time), the form a
//! tiled kernel runs in on the CPU accelerator and the pipeline cache at
//! `debug`, kernels found already compiled at `trace`, and problems (a
//! debug build's slow CPU kernels, a cache not saved) at `warn`. Like every
//! library that uses `log`, it prints nothing until the program installs a
//! logger, so `RUST_LOG=amp_core=debug` alone shows nothing. With
//! `env_logger` (add `env_logger = "0.11"` to `[dependencies]`):
//!
//! ```rust,ignore
//! // (Not a doctest: it needs `env_logger` in your Cargo.toml.)
//! fn main() -> amp_core::Result<()> {
//!     env_logger::init(); // reads RUST_LOG
//!     // ... launch kernels ...
//!     Ok(())
//! }
//! ```
//!
//! ```text
//! RUST_LOG=amp_core=debug cargo run
//! ```
//!
//! `RUST_LOG=wgpu_core=warn,amp_core=debug` adds wgpu's own warnings. Any
//! other `log` backend works the same way.
//!
//! # Debug builds
//!
//! The macros compile each kernel's CPU form into the crate that writes it,
//! so a debug build (plain `cargo run` or `cargo test`) runs kernels on the
//! CPU accelerator without optimisation, tens of times slower than a release
//! build. `[profile.dev] opt-level = 1` in that crate's `Cargo.toml` keeps
//! `cargo run` usable (or run with `--release`). The first CPU launch from a
//! debug build logs a warning (`log::warn!`, once per process) with that
//! advice; install a logger (`env_logger::init()`, with `RUST_LOG=warn`) to
//! see it.
//!
//! # Memory and transfers
//!
//! Creating a large GPU buffer costs as much as filling it (about 10 ms for
//! 256 MiB on an H200), so the runtime keeps the device memory of dropped
//! containers of 1 MiB and more, per device, and hands it to the next
//! container of exactly the same size, cleared to zeros: a loop that makes
//! its arrays or views each round pays for the allocation once. Commands
//! recorded on a container are submitted when it is dropped, before its
//! memory is reused. The kept memory is bounded (2 GiB per GPU, 256 MiB on
//! a software adapter) and freed when an allocation runs out of memory.
//! Uploads and downloads copy host memory with several threads.
//!
//! Environment variables that tune this, read once per process:
//!
//! | variable | effect |
//! |---|---|
//! | `AMP_BUFFER_CACHE_MB` | device memory kept for reuse per device, in MiB (`0`: none) |
//! | `AMP_COPY_THREADS` | threads copying host memory for large transfers (default: the cores, at most 32) |
//! | `AMP_DEFAULT_ACCELERATOR` | the default accelerator (see above) |
//! | `AMP_DENY_F64` | `1`: refuse kernels that compute in `f64` on every accelerator, as a GPU without double precision does (to find an unsuffixed `0.5` that made a kernel `f64` before a user's GPU does) |
//!
//! # Compiled kernels between runs
//!
//! A kernel is compiled for a GPU on its first launch in a process. Where
//! the adapter supports wgpu's pipeline cache (Vulkan), the driver's
//! compiled code is saved under `AMP_CACHE_DIR` (else `amp-rs` in the
//! platform's cache directory) and loaded by the next run: on an NVIDIA
//! H200 the samples' kernels took 17-24 ms each to compile on a first run
//! and 1.5-6.5 ms on the next (a 69 KB cache file). Mesa's lavapipe keeps
//! nothing in that cache (its file is a 96-byte header); it has a shader
//! cache of its own (`~/.cache/mesa_shader_cache`, moved by
//! `MESA_SHADER_CACHE_DIR`, turned off by `MESA_SHADER_CACHE_DISABLE=true`),
//! which halves a rerun of the `samples` binary (1.0 s cold, 0.45-0.54 s
//! warm). Metal, DirectX 12 and OpenGL have no wgpu pipeline cache: their
//! drivers' own caches apply. `RUST_LOG=amp_core=debug` shows each compile's
//! time and the cache's loads and saves.
//!
//! # C++ AMP names
//!
//! | C++ AMP | amp-rs |
//! |---|---|
//! | `parallel_for_each(e, [=](index<2> idx) restrict(amp) { ... })` | `parallel_for_each!(e, \|idx: Index<2>\| { ... })` |
//! | `extent<N>`, `index<N>` | [`Extent<N>`](crate::Extent), [`Index<N>`](crate::Index) |
//! | `tiled_extent<T0, T1>`, `tiled_index<T0, T1>` | [`TiledExtent<N>`](crate::TiledExtent) from `e.tile::<T0, T1>()`, [`TiledIndex<N>`](crate::TiledIndex) |
//! | `tile_static float a[16][16];` | `tile_static! { let a: [[f32; 16]; 16]; }` |
//! | `t_idx.barrier.wait()` and its three fenced forms | `t.barrier.wait()`, `wait_with_all_memory_fence()`, `wait_with_global_memory_fence()`, `wait_with_tile_static_memory_fence()` |
//! | `array<T, N>`, `array_view<T, N>`, `array_view<const T, N>` | [`Array<T, N>`](crate::Array), [`ArrayView<T, N>`](crate::ArrayView), `ArrayView<T, N, ReadOnly>` |
//! | `synchronize()`, `refresh()`, `discard_data()` | the same names on [`ArrayView`](crate::ArrayView) |
//! | `accelerator`, `accelerator_view`, `queuing_mode` | [`Accelerator`](crate::Accelerator), [`AcceleratorView`](crate::AcceleratorView), [`QueuingMode`](crate::QueuingMode) |
//! | `completion_future` | [`CompletionFuture`](crate::CompletionFuture), also a Rust `Future` |
//! | `copy`, `copy_async` | [`copy`](crate::copy), [`copy_async`](crate::copy_async) |
//! | a `restrict(amp, cpu)` function | a [`#[kernel]`](crate::kernel) function |
//! | `atomic_fetch_add(&x, v)` | [`atomic_fetch_add(&x, v)`](crate::atomic_fetch_add) on an element of a view |
//! | `concurrency::fast_math`, `precise_math`, `direct3d` | Rust's float methods, [`precise_math`](crate::precise_math), [`direct3d`](crate::direct3d) |
//! | `float_4`, `int_2`, ... (short vectors) | [`Float4`](crate::Float4), [`Int2`](crate::Int2), ... |
//! | `runtime_exception` and its family | [`Error`](crate::Error) |
//!
//! [The kernel language](crate::kernel_language) lists every construct a
//! kernel may use (and the error each refused one gives), and
//! [the porting guide](crate::porting_guide) walks through porting the
//! C++ AMP samples.
