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
//! The repository's `docs/kernel-language.md` lists every construct a
//! kernel may use, and `docs/porting-guide.md` walks through porting the
//! C++ AMP samples.
