//! `bench-user`: kernels written the way a user writes them (from the kernel
//! language reference and the C++ AMP samples, without the tuned samples'
//! tricks), each beside the same algorithm written by hand in WGSL and run
//! through raw wgpu on the same adapter, in one run (issue 27, "GPU speed for
//! the kernels users write").
//!
//! Run: `cargo run --release -p amp-examples --bin bench-user -- [--small]
//! [--n N] [--mm N] [--img N] [--radius R] [--reps K] [--batch B]
//! [--only NAME[,NAME..]]`. Defaults (sized for an H100): `--n 2^26`
//! (copy, copy4, saxpy, reduce), `--mm 4096` (mm_rb64, `N^3`), `--img 8192`
//! (transpose and conv, `N^2`), `--radius 8`, `--reps 10`, `--batch 10`.
//! `--small` starts from sizes a software adapter runs in seconds (2^20,
//! mm 256, img 512, 5 reps of 5) before the other flags apply.
//! `AMP_DEFAULT_ACCELERATOR` picks the accelerator (`cpu` for the CPU
//! accelerator, which has no hand-written peer); without it,
//! `AMP_TEST_REQUIRE_ADAPTER=1` picks the best wgpu adapter (lavapipe where
//! it is the only one: the default ranks it below the CPU accelerator). Names for `--only`: `copy`,
//! `copy4`, `saxpy`, `reduce`, `transpose`, `conv`, `mm_rb64`, `mm_rb128` (work items
//! owning contiguous blocks), `mm_rb64s`, `mm_rb128s` (strided rows and columns), `poison`,
//! `transfers` (`--n` f32s copied from a host slice into an `Array` and back,
//! wall clock, GB/s; where the machine has several GPUs, also to and from
//! all of them at once, a thread each).
//!
//! Each kernel, on each side (amp-rs on a view of the default accelerator;
//! the hand-written WGSL on its own wgpu device of the same adapter, buffers
//! and bind groups made once), after two warm-up launches and 0.3 s of
//! sustained rounds (a GPU's clocks rise with load; both sides get the same):
//! - device time: the median of `K` launches timed by GPU timestamps at the
//!   start and end of each compute pass (amp-rs: `set_kernel_timing`; a
//!   kernel of several passes counts their sum);
//! - queued: the median of `K` rounds of `B` launches and one wait, wall
//!   clock, per launch (the hand peer: `B` launches, each its own pass, in
//!   one submission);
//! - launch + wait: the median of `K` launches each followed by a wait.
//!
//! The row `copy (poison+check each round)` repeats the copy in the shape of
//! a test harness: before each round the output is poisoned from the host
//! through a fresh `reinterpret_as` view, after it checked with `to_vec`;
//! only the launches and the wait are timed, so that what the launch path
//! does after a host write shows.
//!
//! `AMP_BENCH_HAND_FENCE=1` adds a storage-memory fence to every barrier of
//! the hand-written peers (`storageBarrier()` before `workgroupBarrier()`,
//! what C++ AMP's `tile_barrier::wait` asks for), to measure that fence.
//!
//! Outputs are poisoned before the measured launches and checked against a
//! plain Rust reference afterwards: every element, except the matrix
//! product (512 random elements, accumulated in `f64`, relative tolerance
//! 1e-3). A failed check prints a `FAIL` line, and the run exits with
//! status 1 after the table.

use std::time::Instant;

use amp_core::prelude::*;

// ---------------------------------------------------------------------------
// The user kernels.

/// `c = a`, one element per work item.
fn copy_user(view: &AcceleratorView, a: &Array<f32, 1>, c: &Array<f32, 1>) -> amp_core::Result<()> {
    parallel_for_each!(view, c.extent(), |idx: Index<1>| {
        c[idx] = a[idx];
    })
}

/// `a[0] = a[0] + 0`: a launch that uses `a` on the device (and so needs
/// its data there).
fn touch(view: &AcceleratorView, a: &Array<f32, 1>) -> amp_core::Result<()> {
    parallel_for_each!(view, Extent::new([1]), |idx: Index<1>| {
        a[idx] += 0.0;
    })
}

/// `c = a` through `Float4` views of the same arrays, one vector per work
/// item (the element count a multiple of 4).
fn copy4_user(
    view: &AcceleratorView,
    a: &Array<f32, 1>,
    c: &Array<f32, 1>,
) -> amp_core::Result<()> {
    let a4 = a.reinterpret_as::<Float4>()?;
    let c4 = c.reinterpret_as::<Float4>()?;
    parallel_for_each!(view, c4.extent(), |idx: Index<1>| {
        c4[idx] = a4[idx];
    })
}

/// `y = alpha x + y`.
fn saxpy_user(
    view: &AcceleratorView,
    alpha: f32,
    x: &Array<f32, 1>,
    y: &Array<f32, 1>,
) -> amp_core::Result<()> {
    parallel_for_each!(view, y.extent(), |idx: Index<1>| {
        y[idx] = alpha * x[idx] + y[idx];
    })
}

/// The sum of each tile of 256 elements of `data` into `partials` (one per
/// tile): every work item loads one element into `tile_static` memory, then
/// a tree halves the active work items until the first holds the sum.
fn reduce_user(
    view: &AcceleratorView,
    data: &Array<f32, 1>,
    partials: &Array<f32, 1>,
) -> amp_core::Result<()> {
    parallel_for_each!(view, data.extent().tile::<256>()?, |t: TiledIndex<1>| {
        tile_static! { let sh: [f32; 256]; }
        let l = t.local[0];
        sh[l] = data[t.global];
        t.barrier.wait();
        let mut s = 128;
        while s > 0 {
            if l < s {
                sh[l] += sh[l + s];
            }
            t.barrier.wait();
            s /= 2;
        }
        if l == 0 {
            partials[t.tile] = sh[0];
        }
    })
}

/// `out = input^T` through a 32 x 32 block in `tile_static` memory: each
/// work item reads one element of a row of the block, and after the
/// barrier writes one element of a row of the output (sizes multiples of
/// 32).
fn transpose_user(
    view: &AcceleratorView,
    input: &Array<f32, 2>,
    out: &Array<f32, 2>,
) -> amp_core::Result<()> {
    parallel_for_each!(view, input.extent().tile::<32, 32>()?, |t: TiledIndex<
        2,
    >| {
        tile_static! { let block: [[f32; 32]; 32]; }
        let ty = t.local[0];
        let tx = t.local[1];
        block[ty][tx] = input[t.global];
        t.barrier.wait();
        let row = t.tile[1] * 32 + ty;
        let col = t.tile[0] * 32 + tx;
        out[[row, col]] = block[tx][ty];
    })
}

/// The separable convolution of `img` by `weights` (`2 radius + 1` taps),
/// clamped at the borders: along the rows into `tmp`, then along the
/// columns into `out`, each work item reading its neighbours from the
/// arrays.
fn conv_user(
    view: &AcceleratorView,
    img: &Array<f32, 2>,
    tmp: &Array<f32, 2>,
    out: &Array<f32, 2>,
    weights: &Array<f32, 1>,
    radius: i32,
) -> amp_core::Result<()> {
    let height = img.extent()[0];
    let width = img.extent()[1];
    parallel_for_each!(view, img.extent(), |idx: Index<2>| {
        let mut sum = 0.0f32;
        for k in -radius..=radius {
            let x = (idx[1] + k).clamp(0, width - 1);
            sum += img[[idx[0], x]] * weights[k + radius];
        }
        tmp[idx] = sum;
    })?;
    parallel_for_each!(view, tmp.extent(), |idx: Index<2>| {
        let mut sum = 0.0f32;
        for k in -radius..=radius {
            let y = (idx[0] + k).clamp(0, height - 1);
            sum += tmp[[y, idx[1]]] * weights[k + radius];
        }
        out[idx] = sum;
    })
}

/// `c = a b`, register-blocked: a tile of 16 x 16 work items computes a
/// 64 x 64 block of `c`, each work item the 4 x 4 elements at rows
/// `4 ty ..` and columns `4 tx ..` of it in a local array, over steps of 16
/// along the shared dimension staged in `tile_static` memory (sizes
/// multiples of 64).
fn mm_user(
    view: &AcceleratorView,
    a: &Array<f32, 2>,
    b: &Array<f32, 2>,
    c: &Array<f32, 2>,
) -> amp_core::Result<()> {
    let (m, n, w) = (c.extent()[0], c.extent()[1], a.extent()[1]);
    let domain = Extent::new([m / 4, n / 4]).tile::<16, 16>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! {
            let a_s: [[f32; 16]; 64];
            let b_s: [[f32; 64]; 16];
        }
        let ty = t.local[0];
        let tx = t.local[1];
        let row0 = t.tile[0] * 64;
        let col0 = t.tile[1] * 64;
        let mut acc = [[0.0f32; 4]; 4];
        let mut k0 = 0;
        while k0 < w {
            // 1024 elements of each block, 4 per work item.
            for q in 0..4 {
                let e = ty * 16 + tx + q * 256;
                a_s[e / 16][e % 16] = a[[row0 + e / 16, k0 + e % 16]];
                b_s[e / 64][e % 64] = b[[k0 + e / 64, col0 + e % 64]];
            }
            t.barrier.wait();
            for k in 0..16 {
                for i in 0..4 {
                    for j in 0..4 {
                        acc[i][j] += a_s[ty * 4 + i][k] * b_s[k][tx * 4 + j];
                    }
                }
            }
            t.barrier.wait();
            k0 += 16;
        }
        for i in 0..4 {
            for j in 0..4 {
                c[[row0 + ty * 4 + i, col0 + tx * 4 + j]] = acc[i][j];
            }
        }
    })
}

/// [`mm_user`] with 128 x 128 blocks: 16 x 16 work items, each the 8 x 8
/// elements at rows `8 ty ..` and columns `8 tx ..` of the block in a local
/// array (sizes multiples of 128).
fn mm128_user(
    view: &AcceleratorView,
    a: &Array<f32, 2>,
    b: &Array<f32, 2>,
    c: &Array<f32, 2>,
) -> amp_core::Result<()> {
    let (m, n, w) = (c.extent()[0], c.extent()[1], a.extent()[1]);
    let domain = Extent::new([m / 8, n / 8]).tile::<16, 16>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! {
            let a_s: [[f32; 16]; 128];
            let b_s: [[f32; 128]; 16];
        }
        let ty = t.local[0];
        let tx = t.local[1];
        let row0 = t.tile[0] * 128;
        let col0 = t.tile[1] * 128;
        let mut acc = [[0.0f32; 8]; 8];
        let mut k0 = 0;
        while k0 < w {
            // 2048 elements of each block, 8 per work item.
            for q in 0..8 {
                let e = ty * 16 + tx + q * 256;
                a_s[e / 16][e % 16] = a[[row0 + e / 16, k0 + e % 16]];
                b_s[e / 128][e % 128] = b[[k0 + e / 128, col0 + e % 128]];
            }
            t.barrier.wait();
            for k in 0..16 {
                for i in 0..8 {
                    for j in 0..8 {
                        acc[i][j] += a_s[ty * 8 + i][k] * b_s[k][tx * 8 + j];
                    }
                }
            }
            t.barrier.wait();
            k0 += 16;
        }
        for i in 0..8 {
            for j in 0..8 {
                c[[row0 + ty * 8 + i, col0 + tx * 8 + j]] = acc[i][j];
            }
        }
    })
}

/// `c = a b` as [`mm_strided_user`] writes it: the 4 x 4 elements of
/// each work item are rows `ty + 16 i` and columns `tx + 16 j` of the block
/// (strided, where [`mm_user`]'s are contiguous), so that the 16 work items
/// of a row read 16 consecutive words of `b_s` and a warp's reads of `a_s`
/// fall into different banks.
fn mm_strided_user(
    view: &AcceleratorView,
    a: &Array<f32, 2>,
    b: &Array<f32, 2>,
    c: &Array<f32, 2>,
) -> amp_core::Result<()> {
    let (m, n, w) = (c.extent()[0], c.extent()[1], a.extent()[1]);
    let domain = Extent::new([m / 4, n / 4]).tile::<16, 16>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! {
            let a_s: [[f32; 16]; 64];
            let b_s: [[f32; 64]; 16];
        }
        let ty = t.local[0];
        let tx = t.local[1];
        let row0 = t.tile[0] * 64;
        let col0 = t.tile[1] * 64;
        let mut acc = [[0.0f32; 4]; 4];
        let mut k0 = 0;
        while k0 < w {
            for q in 0..4 {
                let e = ty * 16 + tx + q * 256;
                a_s[e / 16][e % 16] = a[[row0 + e / 16, k0 + e % 16]];
                b_s[e / 64][e % 64] = b[[k0 + e / 64, col0 + e % 64]];
            }
            t.barrier.wait();
            for k in 0..16 {
                for i in 0..4 {
                    for j in 0..4 {
                        acc[i][j] += a_s[ty + 16 * i][k] * b_s[k][tx + 16 * j];
                    }
                }
            }
            t.barrier.wait();
            k0 += 16;
        }
        for i in 0..4 {
            for j in 0..4 {
                c[[row0 + ty + 16 * i, col0 + tx + 16 * j]] = acc[i][j];
            }
        }
    })
}

/// [`mm_strided_user`] with 128 x 128 blocks: each work item the 8 x 8
/// elements at rows `ty + 16 i` and columns `tx + 16 j` of the block.
fn mm128_strided_user(
    view: &AcceleratorView,
    a: &Array<f32, 2>,
    b: &Array<f32, 2>,
    c: &Array<f32, 2>,
) -> amp_core::Result<()> {
    let (m, n, w) = (c.extent()[0], c.extent()[1], a.extent()[1]);
    let domain = Extent::new([m / 8, n / 8]).tile::<16, 16>()?;
    parallel_for_each!(view, domain, |t: TiledIndex<2>| {
        tile_static! {
            let a_s: [[f32; 16]; 128];
            let b_s: [[f32; 128]; 16];
        }
        let ty = t.local[0];
        let tx = t.local[1];
        let row0 = t.tile[0] * 128;
        let col0 = t.tile[1] * 128;
        let mut acc = [[0.0f32; 8]; 8];
        let mut k0 = 0;
        while k0 < w {
            for q in 0..8 {
                let e = ty * 16 + tx + q * 256;
                a_s[e / 16][e % 16] = a[[row0 + e / 16, k0 + e % 16]];
                b_s[e / 128][e % 128] = b[[k0 + e / 128, col0 + e % 128]];
            }
            t.barrier.wait();
            for k in 0..16 {
                for i in 0..8 {
                    for j in 0..8 {
                        acc[i][j] += a_s[ty + 16 * i][k] * b_s[k][tx + 16 * j];
                    }
                }
            }
            t.barrier.wait();
            k0 += 16;
        }
        for i in 0..8 {
            for j in 0..8 {
                c[[row0 + ty + 16 * i, col0 + tx + 16 * j]] = acc[i][j];
            }
        }
    })
}

/// The hand-written peer of the register-blocked products: `block` x
/// `block` elements of `c` per workgroup of 16 x 16, `block / 16` x
/// `block / 16` per invocation, in rows and columns `ty r + i`, `tx r + j`
/// (contiguous, [`mm_user`]) or `ty + 16 i`, `tx + 16 j` (`strided`,
/// [`mm_strided_user`]); the same loads and steps of 16 as the user
/// kernels. As a WGSL author keeps accumulators in registers: one scalar
/// `var` each, the loops over them written out (printed here, not typed),
/// the operands of a step read once into `let`s.
fn mm_hand_wgsl(block: u32, strided: bool) -> String {
    let r = block / 16;
    let row = |i: u32| {
        if strided {
            format!("ty + {}u", 16 * i)
        } else {
            format!("ty * {r}u + {i}u")
        }
    };
    let col = |j: u32| {
        if strided {
            format!("tx + {}u", 16 * j)
        } else {
            format!("tx * {r}u + {j}u")
        }
    };
    let mut w = format!(
        "struct P {{ m: u32, n: u32, w: u32, pad0: u32 }}
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: P;
var<workgroup> a_s: array<array<f32, 16>, {block}>;
var<workgroup> b_s: array<array<f32, {block}>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {{
    let tx = lid.x;
    let ty = lid.y;
    let row0 = wg.y * {block}u;
    let col0 = wg.x * {block}u;
"
    );
    for i in 0..r {
        for j in 0..r {
            w.push_str(&format!("    var acc_{i}_{j} = 0.0f;\n"));
        }
    }
    w.push_str(&format!(
        "    for (var k0 = 0u; k0 < p.w; k0 += 16u) {{
        for (var q = 0u; q < {r}u; q++) {{
            let e = ty * 16u + tx + q * 256u;
            a_s[e / 16u][e % 16u] = a[(row0 + e / 16u) * p.w + k0 + e % 16u];
            b_s[e / {block}u][e % {block}u] = b[(k0 + e / {block}u) * p.n + col0 + e % {block}u];
        }}
        workgroupBarrier();
        for (var k = 0u; k < 16u; k++) {{
"
    ));
    for i in 0..r {
        w.push_str(&format!("            let a{i} = a_s[{}][k];\n", row(i)));
    }
    for j in 0..r {
        w.push_str(&format!("            let b{j} = b_s[k][{}];\n", col(j)));
    }
    for i in 0..r {
        for j in 0..r {
            w.push_str(&format!("            acc_{i}_{j} += a{i} * b{j};\n"));
        }
    }
    w.push_str(
        "        }
        workgroupBarrier();
    }
",
    );
    for i in 0..r {
        for j in 0..r {
            w.push_str(&format!(
                "    c[(row0 + {}) * p.n + col0 + {}] = acc_{i}_{j};\n",
                row(i),
                col(j)
            ));
        }
    }
    w.push_str("}\n");
    w
}

// ---------------------------------------------------------------------------
// The hand-written WGSL peers: the same algorithms. Every shader's last
// binding is a uniform block of four words with the sizes; 1-D kernels
// count their workgroups over x and y (x at most 32768).

/// The peer of [`copy_user`]: one `f32` per invocation.
const COPY_WGSL: &str = r"
struct P { n: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> c: array<f32>;
@group(0) @binding(2) var<uniform> p: P;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let i = (wg.y * groups.x + wg.x) * 256u + l;
    if (i < p.n) {
        c[i] = a[i];
    }
}
";

/// The peer of [`copy4_user`]: one `vec4<f32>` per invocation.
const COPY4_WGSL: &str = r"
struct P { n: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> p: P;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let i = (wg.y * groups.x + wg.x) * 256u + l;
    if (i < p.n) {
        c[i] = a[i];
    }
}
";

/// The peer of [`saxpy_user`].
const SAXPY_WGSL: &str = r"
struct P { n: u32, alpha: f32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: P;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let i = (wg.y * groups.x + wg.x) * 256u + l;
    if (i < p.n) {
        y[i] = p.alpha * x[i] + y[i];
    }
}
";

/// The peer of [`reduce_user`]: the same tree in workgroup memory.
const REDUCE_WGSL: &str = r"
struct P { tiles: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<storage, read> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
var<workgroup> sh: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let tile = wg.y * groups.x + wg.x;
    if (tile >= p.tiles) {
        return;
    }
    sh[l] = data[tile * 256u + l];
    workgroupBarrier();
    var s = 128u;
    while (s > 0u) {
        if (l < s) {
            sh[l] += sh[l + s];
        }
        workgroupBarrier();
        s /= 2u;
    }
    if (l == 0u) {
        partials[tile] = sh[0];
    }
}
";

/// The peer of [`transpose_user`]: a 32 x 32 block, no padding.
const TRANSPOSE_WGSL: &str = r"
struct P { rows: u32, cols: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> c: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
var<workgroup> block: array<array<f32, 32>, 32>;

@compute @workgroup_size(32, 32)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let tx = lid.x;
    let ty = lid.y;
    block[ty][tx] = a[(wg.y * 32u + ty) * p.cols + wg.x * 32u + tx];
    workgroupBarrier();
    c[(wg.x * 32u + ty) * p.rows + wg.y * 32u + tx] = block[tx][ty];
}
";

/// The peer of [`conv_user`]: a pass along rows (`rows`) and one along
/// columns (`cols`), the radius a run-time value.
const CONV_WGSL: &str = r"
struct P { w: u32, h: u32, r: i32, pad0: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> wt: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> p: P;

@compute @workgroup_size(16, 16)
fn rows(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= p.w || g.y >= p.h) {
        return;
    }
    var sum = 0.0;
    for (var k = -p.r; k <= p.r; k++) {
        let x = clamp(i32(g.x) + k, 0, i32(p.w) - 1);
        sum += src[g.y * p.w + u32(x)] * wt[k + p.r];
    }
    dst[g.y * p.w + g.x] = sum;
}

@compute @workgroup_size(16, 16)
fn cols(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= p.w || g.y >= p.h) {
        return;
    }
    var sum = 0.0;
    for (var k = -p.r; k <= p.r; k++) {
        let y = clamp(i32(g.y) + k, 0, i32(p.h) - 1);
        sum += src[u32(y) * p.w + g.x] * wt[k + p.r];
    }
    dst[g.y * p.w + g.x] = sum;
}
";

/// Workgroups for `groups` of them in a line, as the 1-D shaders count
/// them: up to 65535 along x, else rows of 32768.
fn line(groups: u32) -> [u32; 3] {
    if groups <= 65535 {
        [groups, 1, 1]
    } else {
        [32768, groups.div_ceil(32768), 1]
    }
}

/// A wgpu device of its own on the accelerator's adapter, for the
/// hand-written peers.
struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// Whether the device writes timestamps at the start and end of passes.
    timestamps: bool,
}

impl Gpu {
    /// A device on the adapter named `name` of the backend `backend` (as
    /// amp-rs names them), with timestamp queries where it has them.
    fn new(name: &str, backend: &str) -> Option<Gpu> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter =
            futures::executor::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
                .into_iter()
                .find(|a| {
                    let info = a.get_info();
                    info.name == name && info.backend.to_str() == backend
                })?;
        let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        let (device, queue) =
            futures::executor::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("hand-written peers"),
                required_features: features,
                required_limits: adapter.limits(),
                ..Default::default()
            }))
            .ok()?;
        Some(Gpu {
            device,
            queue,
            timestamps: !features.is_empty(),
        })
    }

    /// A storage buffer holding `data`.
    fn storage<T: bytemuck::Pod>(&self, data: &[T]) -> wgpu::Buffer {
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: std::mem::size_of_val(data) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&buf, 0, bytemuck::cast_slice(data));
        buf
    }

    /// A uniform buffer holding four words.
    fn uniform(&self, words: [u32; 4]) -> wgpu::Buffer {
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue
            .write_buffer(&buf, 0, bytemuck::cast_slice(&words));
        buf
    }

    /// Waits for everything submitted.
    fn wait(&self) {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
    }

    /// The contents of `buf`, read back after everything submitted.
    fn read<T: bytemuck::Pod>(&self, buf: &wgpu::Buffer) -> Vec<T> {
        let size = buf.size();
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buf, 0, &staging, 0, size);
        self.queue.submit([encoder.finish()]);
        staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
        self.wait();
        let range = staging.slice(..).get_mapped_range().expect("mapped");
        bytemuck::cast_slice(&range).to_vec()
    }
}

/// One compute pass of a hand-written kernel.
struct Pass {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    groups: [u32; 3],
}

/// The query set and buffers that read a launch's timestamps back.
struct Timestamps {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
}

/// A hand-written kernel: its passes (one per dispatch), bound once.
struct Hand<'g> {
    gpu: &'g Gpu,
    passes: Vec<Pass>,
    timestamps: Option<Timestamps>,
}

impl<'g> Hand<'g> {
    /// The kernel of `wgsl` as passes of (entry point, workgroups, buffers
    /// at bindings 0, 1, ...).
    fn new(gpu: &'g Gpu, wgsl: &str, passes: &[(&str, [u32; 3], &[&wgpu::Buffer])]) -> Hand<'g> {
        // `AMP_BENCH_HAND_FENCE=1`: every barrier also fences storage memory
        // (what C++ AMP's `wait` asks for), to measure that fence's cost.
        let fenced;
        let wgsl = if std::env::var_os("AMP_BENCH_HAND_FENCE").is_some() {
            fenced = wgsl.replace(
                "workgroupBarrier();",
                "storageBarrier(); workgroupBarrier();",
            );
            fenced.as_str()
        } else {
            wgsl
        };
        let module = gpu
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            });
        let passes: Vec<Pass> = passes
            .iter()
            .map(|&(entry, groups, buffers)| {
                let pipeline =
                    gpu.device
                        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some(entry),
                            layout: None,
                            module: &module,
                            entry_point: Some(entry),
                            compilation_options: Default::default(),
                            cache: None,
                        });
                let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
                    .iter()
                    .enumerate()
                    .map(|(i, buf)| wgpu::BindGroupEntry {
                        binding: i as u32,
                        resource: buf.as_entire_binding(),
                    })
                    .collect();
                let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                });
                Pass {
                    pipeline,
                    bind_group,
                    groups,
                }
            })
            .collect();
        let timestamps = gpu.timestamps.then(|| {
            let count = 2 * passes.len() as u32;
            let size = 8 * u64::from(count);
            let buffer = |usage| {
                gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size,
                    usage,
                    mapped_at_creation: false,
                })
            };
            Timestamps {
                set: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: None,
                    ty: wgpu::QueryType::Timestamp,
                    count,
                }),
                resolve: buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC),
                read: buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
            }
        });
        Hand {
            gpu,
            passes,
            timestamps,
        }
    }

    /// Records one launch: each pass, with its timestamps when `timed`.
    fn record(&self, encoder: &mut wgpu::CommandEncoder, timed: bool) {
        for (i, p) in self.passes.iter().enumerate() {
            let timestamp_writes = self.timestamps.as_ref().filter(|_| timed).map(|t| {
                wgpu::ComputePassTimestampWrites {
                    query_set: &t.set,
                    beginning_of_pass_write_index: Some(2 * i as u32),
                    end_of_pass_write_index: Some(2 * i as u32 + 1),
                }
            });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes,
            });
            pass.set_pipeline(&p.pipeline);
            pass.set_bind_group(0, &p.bind_group, &[]);
            pass.dispatch_workgroups(p.groups[0], p.groups[1], p.groups[2]);
        }
    }

    /// Submits `count` launches in one submission.
    fn submit(&self, count: usize) {
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        for _ in 0..count {
            self.record(&mut encoder, false);
        }
        self.gpu.queue.submit([encoder.finish()]);
    }

    /// One launch timed by GPU timestamps, in seconds (its passes' sum);
    /// `None` without timestamp queries.
    fn device_time(&self) -> Option<f64> {
        let t = self.timestamps.as_ref()?;
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.record(&mut encoder, true);
        let count = 2 * self.passes.len() as u32;
        encoder.resolve_query_set(&t.set, 0..count, &t.resolve, 0);
        encoder.copy_buffer_to_buffer(&t.resolve, 0, &t.read, 0, t.read.size());
        self.gpu.queue.submit([encoder.finish()]);
        t.read
            .slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
        self.gpu.wait();
        let ticks: Vec<u64> =
            bytemuck::cast_slice(&t.read.slice(..).get_mapped_range().expect("mapped")).to_vec();
        t.read.unmap();
        let period = f64::from(self.gpu.queue.get_timestamp_period());
        let total: u64 = ticks.chunks(2).map(|s| s[1].saturating_sub(s[0])).sum();
        Some(total as f64 * period * 1e-9)
    }
}

// ---------------------------------------------------------------------------
// Measuring.

/// The three figures of one side of a row, in seconds.
#[derive(Clone, Copy, Default)]
struct Times {
    /// Median device time of a launch (GPU timestamps).
    device: Option<f64>,
    /// Median wall clock per launch of rounds of `batch` launches and a wait.
    queued: Option<f64>,
    /// Median wall clock of a launch followed by a wait.
    launch_wait: Option<f64>,
}

/// One row of the final table.
struct Row {
    kernel: String,
    size: String,
    amp: Times,
    hand: Option<Times>,
}

/// The median of `v` (not empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Wall-clock seconds of `f`.
fn timed(f: impl FnOnce()) -> f64 {
    let s = Instant::now();
    f();
    s.elapsed().as_secs_f64()
}

/// The run's settings.
#[derive(Clone)]
struct Opts {
    n: i32,
    mm: i32,
    img: i32,
    radius: i32,
    reps: usize,
    batch: usize,
    only: Option<Vec<String>>,
}

impl Opts {
    /// Whether the case `name` runs.
    fn runs(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }
}

/// Two warm-up launches, then the device time, the queued and the
/// launch + wait figures of `launch` on `view`.
fn measure_amp(view: &AcceleratorView, opts: &Opts, launch: impl Fn()) -> Times {
    let wait = || view.wait().expect("wait");
    for _ in 0..2 {
        launch();
        wait();
    }
    // A busy GPU first (its clocks rise with load: an idle one measured
    // barrier-heavy kernels up to 3x slower than a warm one).
    sustain(|| {
        for _ in 0..opts.batch {
            launch();
        }
        wait();
    });
    let device = view.set_kernel_timing(true).ok().map(|()| {
        let t = median(
            (0..opts.reps)
                .map(|_| {
                    launch();
                    view.kernel_timings()
                        .expect("kernel timings")
                        .iter()
                        .map(|k| k.duration.as_secs_f64())
                        .sum()
                })
                .collect(),
        );
        view.set_kernel_timing(false).expect("timing off");
        t
    });
    let queued = median(
        (0..opts.reps)
            .map(|_| {
                timed(|| {
                    for _ in 0..opts.batch {
                        launch();
                    }
                    wait();
                }) / opts.batch as f64
            })
            .collect(),
    );
    let launch_wait = median(
        (0..opts.reps)
            .map(|_| {
                timed(|| {
                    launch();
                    wait();
                })
            })
            .collect(),
    );
    Times {
        device,
        queued: Some(queued),
        launch_wait: Some(launch_wait),
    }
}

/// Runs `round` for at least [`SUSTAIN`] seconds: the warm-up that brings a
/// GPU's clocks up before a measurement (both sides get the same).
fn sustain(mut round: impl FnMut()) {
    let started = Instant::now();
    while started.elapsed().as_secs_f64() < SUSTAIN {
        round();
    }
}

/// Seconds of sustained launches before each side's measurement.
const SUSTAIN: f64 = 0.3;

/// [`measure_amp`] for a hand-written kernel.
fn measure_hand(hand: &Hand<'_>, opts: &Opts) -> Times {
    for _ in 0..2 {
        hand.submit(1);
        hand.gpu.wait();
    }
    sustain(|| {
        hand.submit(opts.batch);
        hand.gpu.wait();
    });
    let device = hand
        .gpu
        .timestamps
        .then(|| median((0..opts.reps).filter_map(|_| hand.device_time()).collect()));
    let queued = median(
        (0..opts.reps)
            .map(|_| {
                timed(|| {
                    hand.submit(opts.batch);
                    hand.gpu.wait();
                }) / opts.batch as f64
            })
            .collect(),
    );
    let launch_wait = median(
        (0..opts.reps)
            .map(|_| {
                timed(|| {
                    hand.submit(1);
                    hand.gpu.wait();
                })
            })
            .collect(),
    );
    Times {
        device,
        queued: Some(queued),
        launch_wait: Some(launch_wait),
    }
}

// ---------------------------------------------------------------------------
// Data and checks.

/// `n` pseudo-random multiples of 1/64 in [-2, 2) (an LCG's high bits), so
/// that sums of a few hundred are exact in `f32`.
fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((x >> 40) % 256) as f32 / 64.0 - 2.0
        })
        .collect()
}

/// `Ok` if every element of `got` is within `tol(want)` of `want` (NaN
/// never is); else the first mismatch and the count.
fn check(got: &[f32], want: &[f32], tol: impl Fn(usize, f32) -> f32) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} elements, expected {}", got.len(), want.len()));
    }
    let mut bad = (0..got.len()).filter(|&i| {
        let err = (got[i] - want[i]).abs();
        err.is_nan() || err > tol(i, want[i])
    });
    match bad.next() {
        None => Ok(()),
        Some(i) => Err(format!(
            "{} of {} elements wrong, first at {i}: {} (expected {})",
            1 + bad.count(),
            got.len(),
            got[i],
            want[i]
        )),
    }
}

/// Exactly equal (copies, transposes).
fn exact(_: usize, _: f32) -> f32 {
    0.0
}

/// The separable convolution on the host, summed in the kernels' order.
fn conv_cpu(img: &[f32], side: usize, weights: &[f32], radius: i32) -> Vec<f32> {
    let at = |i: i32| i.clamp(0, side as i32 - 1) as usize;
    let pass = |src: &[f32], along_rows: bool| {
        let mut dst = vec![0.0f32; side * side];
        for y in 0..side {
            for x in 0..side {
                let mut sum = 0.0f32;
                for k in -radius..=radius {
                    let v = if along_rows {
                        src[y * side + at(x as i32 + k)]
                    } else {
                        src[at(y as i32 + k) * side + x]
                    };
                    sum += v * weights[(k + radius) as usize];
                }
                dst[y * side + x] = sum;
            }
        }
        dst
    };
    pass(&pass(img, true), false)
}

/// Checks 512 pseudo-random elements of `c = a b` (all `n x n`), summed in
/// `f64`, to a relative 1e-3.
fn check_product(c: &[f32], a: &[f32], b: &[f32], n: usize) -> Result<(), String> {
    let mut x = 12345u64;
    let mut bad = Vec::new();
    for _ in 0..512 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let (r, col) = ((x >> 33) as usize % n, (x >> 13) as usize % n);
        let want: f64 = (0..n)
            .map(|i| f64::from(a[r * n + i]) * f64::from(b[i * n + col]))
            .sum();
        let got = f64::from(c[r * n + col]);
        let err = (got - want).abs();
        if err.is_nan() || err > 1e-3 * want.abs().max(1.0) {
            bad.push(format!("c[{r}][{col}] = {got} (expected {want})"));
        }
    }
    match bad.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "{} of 512 sampled elements wrong, first {first}",
            bad.len()
        )),
    }
}

/// `2^k` for powers of two, else the number.
fn size_name(n: i32) -> String {
    if n > 0 && (n as u32).is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// The run: the cases and the checks' failures.
struct Bench<'a> {
    view: AcceleratorView,
    gpu: Option<&'a Gpu>,
    opts: Opts,
    rows: Vec<Row>,
    failures: Vec<String>,
    /// `transfers`: (what, ms, GB/s) per direction.
    transfers: Vec<(String, f64, f64)>,
}

impl Bench<'_> {
    /// `transfers`: `copy` from a host slice into an `Array` of `n`
    /// elements (then a one-element kernel on it and a wait, so that the
    /// data is on the device), then back into a host slice; the median of
    /// `K` of each after one of each to warm up, every element checked.
    fn transfers(&mut self) -> amp_core::Result<()> {
        let n = self.opts.n;
        let data = random(n as usize, 9);
        let view = self.view.clone();
        let array = Array::<f32, 1>::new([n], &view)?;
        let mut back = vec![f32::NAN; n as usize];
        println!("transfers:");
        let (mut up, mut down) = (Vec::new(), Vec::new());
        for rep in 0..=self.opts.reps {
            let t_up = timed(|| {
                copy(&data[..], &mut array.view()).expect("upload");
                // A one-element kernel on the array, queued after the
                // upload's copies: waiting for it waits for them.
                touch(&view, &array).expect("launch");
                view.wait().expect("wait");
            });
            back.fill(f32::NAN);
            let t_down = timed(|| copy(&array, &mut back[..]).expect("download"));
            if rep > 0 {
                up.push(t_up);
                down.push(t_down);
            }
        }
        self.verdict("transfers round trip", check(&back, &data, exact));
        // New containers each round, as a loop that makes its arrays does:
        // what allocation adds to the transfer.
        let (mut fresh, mut from_slice, mut over_slice) = (Vec::new(), Vec::new(), Vec::new());
        for rep in 0..=self.opts.reps {
            let t_fresh = timed(|| {
                let a = Array::<f32, 1>::new([n], &view).expect("allocate");
                touch(&view, &a).expect("launch");
                view.wait().expect("wait");
            });
            let t_from = timed(|| {
                let a = Array::from_slice([n], &data, &view).expect("from_slice");
                touch(&view, &a).expect("launch");
                view.wait().expect("wait");
            });
            let t_over = timed(|| {
                let v = ArrayView::new([n], &data[..]).expect("view");
                v.synchronize_to(&view).expect("upload");
                // Queued after the upload's copies.
                touch(&view, &array).expect("launch");
                view.wait().expect("wait");
            });
            if rep > 0 {
                fresh.push(t_fresh);
                from_slice.push(t_from);
                over_slice.push(t_over);
            }
        }
        self.transfers_together(&data)?;
        let gb = f64::from(n) * 4.0 / 1e9;
        for (what, times) in [
            ("host -> device (copy from a slice)", up),
            ("device -> host (copy into a slice)", down),
            ("new Array (zeros) + first launch", fresh),
            ("host -> device (Array::from_slice, new array)", from_slice),
            (
                "host -> device (new ArrayView over the slice, synchronize_to)",
                over_slice,
            ),
        ] {
            let t = median(times);
            self.transfers.push((what.to_string(), t * 1e3, gb / t));
        }
        Ok(())
    }

    /// Where the machine has several GPUs: `--n` f32s copied from a host
    /// slice of its own into an `Array` on each GPU (and back), every GPU
    /// from a thread of its own at once; the rate counts every GPU's bytes.
    fn transfers_together(&mut self, data: &[f32]) -> amp_core::Result<()> {
        let gpus: Vec<_> = Accelerator::all()
            .into_iter()
            .filter(|a| !a.is_cpu() && !a.is_emulated())
            .collect();
        if gpus.len() < 2 {
            return Ok(());
        }
        let n = self.opts.n;
        let views: Vec<_> = gpus
            .iter()
            .map(|a| a.create_view(QueuingMode::Automatic))
            .collect();
        let sources: Vec<Vec<f32>> = (0..views.len()).map(|_| data.to_vec()).collect();
        let arrays = views
            .iter()
            .map(|v| Array::<f32, 1>::new([n], v))
            .collect::<amp_core::Result<Vec<_>>>()?;
        let mut backs: Vec<Vec<f32>> = (0..views.len())
            .map(|_| vec![f32::NAN; n as usize])
            .collect();
        let (mut up, mut down) = (Vec::new(), Vec::new());
        for rep in 0..=self.opts.reps {
            let t_up = timed(|| {
                std::thread::scope(|s| {
                    for ((view, array), src) in views.iter().zip(&arrays).zip(&sources) {
                        s.spawn(move || {
                            copy(&src[..], &mut array.view()).expect("upload");
                            touch(view, array).expect("launch");
                            view.wait().expect("wait");
                        });
                    }
                })
            });
            let t_down = timed(|| {
                std::thread::scope(|s| {
                    for (array, back) in arrays.iter().zip(backs.iter_mut()) {
                        s.spawn(move || copy(array, &mut back[..]).expect("download"));
                    }
                })
            });
            if rep > 0 {
                up.push(t_up);
                down.push(t_down);
            }
        }
        for back in &backs {
            self.verdict("transfers to every GPU at once", check(back, data, exact));
        }
        let gb = f64::from(n) * 4.0 * views.len() as f64 / 1e9;
        for (what, times) in [
            (
                format!("host -> {} GPUs at once (copy from slices)", views.len()),
                up,
            ),
            (
                format!("{} GPUs -> host at once (copy into slices)", views.len()),
                down,
            ),
        ] {
            let t = median(times);
            self.transfers.push((what, t * 1e3, gb / t));
        }
        Ok(())
    }

    /// Records the outcome of the check of `what`.
    fn verdict(&mut self, what: &str, result: Result<(), String>) {
        match result {
            Ok(()) => println!("  {what}: ok"),
            Err(e) => {
                println!("FAIL {what}: {e}");
                self.failures.push(format!("{what}: {e}"));
            }
        }
    }

    /// Adds a row and prints its progress line.
    fn row(&mut self, kernel: &str, size: String, amp: Times, hand: Option<Times>) {
        println!("  {kernel} {size}: measured");
        self.rows.push(Row {
            kernel: kernel.to_string(),
            size,
            amp,
            hand,
        });
    }

    /// `copy`, `copy4` and the poisoned copy.
    fn copies(&mut self) -> amp_core::Result<()> {
        if !["copy", "copy4", "poison"]
            .iter()
            .any(|c| self.opts.runs(c))
        {
            return Ok(());
        }
        let n = self.opts.n;
        let nu = n as usize;
        let data = random(nu, 1);
        let nan = vec![f32::NAN; nu];
        let view = self.view.clone();
        let a = Array::from_slice([n], &data, &view)?;
        let c = Array::from_slice([n], &nan, &view)?;
        let hand_bufs = self.gpu.map(|g| {
            (
                g,
                g.storage(&data),
                g.storage(&nan),
                g.uniform([n as u32, 0, 0, 0]),
            )
        });
        for (name, four) in [("copy", false), ("copy4", true)] {
            if !self.opts.runs(name) {
                continue;
            }
            println!("{name}:");
            copy(&nan[..], &mut c.view())?;
            let amp = measure_amp(&view, &self.opts, || {
                if four {
                    copy4_user(&view, &a, &c).expect("launch");
                } else {
                    copy_user(&view, &a, &c).expect("launch");
                }
            });
            self.verdict(&format!("{name} amp"), check(&c.to_vec()?, &data, exact));
            let hand = hand_bufs.as_ref().map(|(g, ba, bc, bp)| {
                g.queue.write_buffer(bc, 0, bytemuck::cast_slice(&nan));
                let (wgsl, items) = if four {
                    (COPY4_WGSL, n as u32 / 4)
                } else {
                    (COPY_WGSL, n as u32)
                };
                g.queue
                    .write_buffer(bp, 0, bytemuck::cast_slice(&[items, 0, 0, 0]));
                let hand = Hand::new(
                    g,
                    wgsl,
                    &[("main", line(items.div_ceil(256)), &[ba, bc, bp])],
                );
                let t = measure_hand(&hand, &self.opts);
                (t, check(&g.read::<f32>(bc), &data, exact))
            });
            let hand = hand.map(|(t, r)| {
                self.verdict(&format!("{name} hand"), r);
                t
            });
            self.row(name, size_name(n), amp, hand);
        }
        if self.opts.runs("poison") {
            println!("copy (poison+check each round):");
            // A test harness's round: poison the output from the host through a
            // fresh view, launch, wait, read everything back and check it.
            let poison = vec![0x7FC0_DEADu32; nu];
            let mut failed = None;
            let mut round = |count: usize| -> amp_core::Result<f64> {
                let mut fresh = c.reinterpret_as::<u32>()?;
                copy(&poison[..], &mut fresh)?;
                let secs = timed(|| {
                    for _ in 0..count {
                        copy_user(&view, &a, &c).expect("launch");
                    }
                    view.wait().expect("wait");
                });
                if let Err(e) = check(&c.to_vec()?, &data, exact) {
                    failed.get_or_insert(e);
                }
                Ok(secs / count as f64)
            };
            for _ in 0..2 {
                round(1)?;
            }
            let queued = median(
                (0..self.opts.reps)
                    .map(|_| round(self.opts.batch))
                    .collect::<amp_core::Result<_>>()?,
            );
            let launch_wait = median(
                (0..self.opts.reps)
                    .map(|_| round(1))
                    .collect::<amp_core::Result<_>>()?,
            );
            self.verdict("copy (poison+check) amp", failed.map_or(Ok(()), Err));
            let amp = Times {
                device: None,
                queued: Some(queued),
                launch_wait: Some(launch_wait),
            };
            let hand = hand_bufs.as_ref().map(|(g, ba, bc, bp)| {
                g.queue
                    .write_buffer(bp, 0, bytemuck::cast_slice(&[n as u32, 0, 0, 0]));
                let hand = Hand::new(
                    g,
                    COPY_WGSL,
                    &[("main", line((n as u32).div_ceil(256)), &[ba, bc, bp])],
                );
                let mut failed = None;
                let mut round = |count: usize| {
                    g.queue.write_buffer(bc, 0, bytemuck::cast_slice(&poison));
                    let secs = timed(|| {
                        hand.submit(count);
                        g.wait();
                    });
                    if let Err(e) = check(&g.read::<f32>(bc), &data, exact) {
                        failed.get_or_insert(e);
                    }
                    secs / count as f64
                };
                for _ in 0..2 {
                    round(1);
                }
                let queued = median(
                    (0..self.opts.reps)
                        .map(|_| round(self.opts.batch))
                        .collect(),
                );
                let launch_wait = median((0..self.opts.reps).map(|_| round(1)).collect());
                (
                    Times {
                        device: None,
                        queued: Some(queued),
                        launch_wait: Some(launch_wait),
                    },
                    failed.map_or(Ok(()), Err),
                )
            });
            let hand = hand.map(|(t, r)| {
                self.verdict("copy (poison+check) hand", r);
                t
            });
            self.row("copy (poison+check each round)", size_name(n), amp, hand);
        }
        Ok(())
    }

    /// `saxpy`: measured on a `y` that keeps accumulating, checked on one
    /// launch from the initial `y`.
    fn saxpy(&mut self) -> amp_core::Result<()> {
        let n = self.opts.n;
        let nu = n as usize;
        let alpha = 0.75f32;
        let (xs, ys) = (random(nu, 2), random(nu, 3));
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| alpha * x + y).collect();
        let tol = |_: usize, w: f32| 1e-6 * (w.abs() + 4.0);
        println!("saxpy:");
        let view = self.view.clone();
        let x = Array::from_slice([n], &xs, &view)?;
        let y = Array::from_slice([n], &ys, &view)?;
        let amp = measure_amp(&view, &self.opts, || {
            saxpy_user(&view, alpha, &x, &y).expect("launch");
        });
        copy(&ys[..], &mut y.view())?;
        saxpy_user(&view, alpha, &x, &y)?;
        self.verdict("saxpy amp", check(&y.to_vec()?, &want, tol));
        let hand = self.gpu.map(|g| {
            let (bx, by) = (g.storage(&xs), g.storage(&ys));
            let bp = g.uniform([n as u32, alpha.to_bits(), 0, 0]);
            let hand = Hand::new(
                g,
                SAXPY_WGSL,
                &[("main", line((n as u32).div_ceil(256)), &[&bx, &by, &bp])],
            );
            let t = measure_hand(&hand, &self.opts);
            g.queue.write_buffer(&by, 0, bytemuck::cast_slice(&ys));
            hand.submit(1);
            (t, check(&g.read::<f32>(&by), &want, tol))
        });
        let hand = hand.map(|(t, r)| {
            self.verdict("saxpy hand", r);
            t
        });
        self.row("saxpy", size_name(n), amp, hand);
        Ok(())
    }

    /// `reduce`: partial sums of tiles of 256, summed on the host.
    fn reduce(&mut self) -> amp_core::Result<()> {
        let n = self.opts.n;
        let nu = n as usize;
        let tiles = n / 256;
        let data = random(nu, 4);
        let want: Vec<f32> = data
            .chunks(256)
            .map(|c| c.iter().map(|&v| f64::from(v)).sum::<f64>() as f32)
            .collect();
        let total: f64 = data.iter().map(|&v| f64::from(v)).sum();
        let tol = |_: usize, w: f32| 1e-5 * (w.abs() + 256.0);
        let nan = vec![f32::NAN; tiles as usize];
        println!("reduce:");
        let view = self.view.clone();
        let input = Array::from_slice([n], &data, &view)?;
        let partials = Array::from_slice([tiles], &nan, &view)?;
        let amp = measure_amp(&view, &self.opts, || {
            reduce_user(&view, &input, &partials).expect("launch");
        });
        let got = partials.to_vec()?;
        let sum: f64 = got.iter().map(|&v| f64::from(v)).sum();
        println!("  sum {sum} (expected {total})");
        self.verdict("reduce amp", check(&got, &want, tol));
        let hand = self.gpu.map(|g| {
            let (bd, bo) = (g.storage(&data), g.storage(&nan));
            let bp = g.uniform([tiles as u32, 0, 0, 0]);
            let hand = Hand::new(
                g,
                REDUCE_WGSL,
                &[("main", line(tiles as u32), &[&bd, &bo, &bp])],
            );
            let t = measure_hand(&hand, &self.opts);
            (t, check(&g.read::<f32>(&bo), &want, tol))
        });
        let hand = hand.map(|(t, r)| {
            self.verdict("reduce hand", r);
            t
        });
        self.row("reduce", size_name(n), amp, hand);
        Ok(())
    }

    /// `transpose` of an `img x img` matrix.
    fn transpose(&mut self) -> amp_core::Result<()> {
        let side = self.opts.img;
        let s = side as usize;
        let data = random(s * s, 5);
        let want: Vec<f32> = (0..s * s).map(|k| data[(k % s) * s + k / s]).collect();
        let nan = vec![f32::NAN; s * s];
        println!("transpose:");
        let view = self.view.clone();
        let input = Array::from_slice([side, side], &data, &view)?;
        let out = Array::from_slice([side, side], &nan, &view)?;
        let amp = measure_amp(&view, &self.opts, || {
            transpose_user(&view, &input, &out).expect("launch");
        });
        self.verdict("transpose amp", check(&out.to_vec()?, &want, exact));
        let hand = self.gpu.map(|g| {
            let (bi, bo) = (g.storage(&data), g.storage(&nan));
            let bp = g.uniform([side as u32, side as u32, 0, 0]);
            let tiles = side as u32 / 32;
            let hand = Hand::new(
                g,
                TRANSPOSE_WGSL,
                &[("main", [tiles, tiles, 1], &[&bi, &bo, &bp])],
            );
            let t = measure_hand(&hand, &self.opts);
            (t, check(&g.read::<f32>(&bo), &want, exact))
        });
        let hand = hand.map(|(t, r)| {
            self.verdict("transpose hand", r);
            t
        });
        self.row("transpose", format!("{side}^2"), amp, hand);
        Ok(())
    }

    /// `conv`: the separable convolution of an `img x img` image.
    fn conv(&mut self) -> amp_core::Result<()> {
        let (side, radius) = (self.opts.img, self.opts.radius);
        let s = side as usize;
        let data = random(s * s, 6);
        let taps = 2 * radius + 1;
        let weights: Vec<f32> = (0..taps)
            .map(|k| (1.0 + (k % 3) as f32 / 4.0) / taps as f32)
            .collect();
        let want = conv_cpu(&data, s, &weights, radius);
        let tol = |_: usize, w: f32| 1e-5 * (w.abs() + 2.0);
        let nan = vec![f32::NAN; s * s];
        println!("conv:");
        let view = self.view.clone();
        let img = Array::from_slice([side, side], &data, &view)?;
        let tmp = Array::<f32, 2>::new([side, side], &view)?;
        let out = Array::from_slice([side, side], &nan, &view)?;
        let wts = Array::from_slice([taps], &weights, &view)?;
        let amp = measure_amp(&view, &self.opts, || {
            conv_user(&view, &img, &tmp, &out, &wts, radius).expect("launch");
        });
        self.verdict("conv amp", check(&out.to_vec()?, &want, tol));
        let hand = self.gpu.map(|g| {
            let (bi, bt, bo, bw) = (
                g.storage(&data),
                g.storage(&nan),
                g.storage(&nan),
                g.storage(&weights),
            );
            let bp = g.uniform([side as u32, side as u32, radius as u32, 0]);
            let groups = side as u32 / 16;
            let grid = [groups, groups, 1];
            let hand = Hand::new(
                g,
                CONV_WGSL,
                &[
                    ("rows", grid, &[&bi, &bw, &bt, &bp]),
                    ("cols", grid, &[&bt, &bw, &bo, &bp]),
                ],
            );
            let t = measure_hand(&hand, &self.opts);
            (t, check(&g.read::<f32>(&bo), &want, tol))
        });
        let hand = hand.map(|(t, r)| {
            self.verdict("conv hand", r);
            t
        });
        self.row("conv", format!("{side}^2 r{radius}"), amp, hand);
        Ok(())
    }

    /// `mm_rb64` (`block` 64) or `mm_rb128` (`block` 128) of `mm x mm`
    /// matrices, `mm_rb64s`/`mm_rb128s` where `strided` (skipped where `mm`
    /// is not a multiple of the block); the hand peer from [`mm_hand_wgsl`].
    fn mm(&mut self, block: i32, strided: bool) -> amp_core::Result<()> {
        let side = self.opts.mm;
        let name = format!("mm_rb{block}{}", if strided { "s" } else { "" });
        if side % block != 0 {
            println!("{name}: skipped (--mm {side} is not a multiple of {block})");
            return Ok(());
        }
        let s = side as usize;
        let (va, vb) = (random(s * s, 7), random(s * s, 8));
        let nan = vec![f32::NAN; s * s];
        println!("{name}:");
        let view = self.view.clone();
        let a = Array::from_slice([side, side], &va, &view)?;
        let b = Array::from_slice([side, side], &vb, &view)?;
        let c = Array::from_slice([side, side], &nan, &view)?;
        let amp = measure_amp(&view, &self.opts, || {
            match (block, strided) {
                (64, false) => mm_user(&view, &a, &b, &c),
                (64, true) => mm_strided_user(&view, &a, &b, &c),
                (_, false) => mm128_user(&view, &a, &b, &c),
                (_, true) => mm128_strided_user(&view, &a, &b, &c),
            }
            .expect("launch");
        });
        self.verdict(
            &format!("{name} amp"),
            check_product(&c.to_vec()?, &va, &vb, s),
        );
        let hand = self.gpu.map(|g| {
            let (ba, bb, bc) = (g.storage(&va), g.storage(&vb), g.storage(&nan));
            let bp = g.uniform([side as u32, side as u32, side as u32, 0]);
            let blocks = (side / block) as u32;
            let wgsl = mm_hand_wgsl(block as u32, strided);
            let hand = Hand::new(
                g,
                &wgsl,
                &[("main", [blocks, blocks, 1], &[&ba, &bb, &bc, &bp])],
            );
            let t = measure_hand(&hand, &self.opts);
            (t, check_product(&g.read::<f32>(&bc), &va, &vb, s))
        });
        let hand = hand.map(|(t, r)| {
            self.verdict(&format!("{name} hand"), r);
            t
        });
        self.row(&name, format!("{side}^3"), amp, hand);
        Ok(())
    }
}

/// Milliseconds, or `n/a`.
fn ms(v: Option<f64>) -> String {
    v.map_or("n/a".to_string(), |s| format!("{:.4}", s * 1e3))
}

/// The settings from the command line (exits with status 2 on a bad one).
fn parse_args() -> Opts {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = |msg: String| -> ! {
        eprintln!("bench-user: {msg}");
        eprintln!(
            "usage: bench-user [--small] [--n N] [--mm N] [--img N] [--radius R] [--reps K] [--batch B] [--only NAME[,NAME..]]"
        );
        std::process::exit(2)
    };
    let mut opts = if args.iter().any(|a| a == "--small") {
        Opts {
            n: 1 << 20,
            mm: 256,
            img: 512,
            radius: 8,
            reps: 5,
            batch: 5,
            only: None,
        }
    } else {
        Opts {
            n: 1 << 26,
            mm: 4096,
            img: 8192,
            radius: 8,
            reps: 10,
            batch: 10,
            only: None,
        }
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--small" {
            continue;
        }
        let Some(value) = it.next() else {
            usage(format!("{flag} needs a value"))
        };
        if flag == "--only" {
            opts.only = Some(value.split(',').map(str::to_string).collect());
            continue;
        }
        let v: i32 = value
            .parse()
            .ok()
            .filter(|&v| v > 0)
            .unwrap_or_else(|| usage(format!("{flag} needs a positive number, not {value:?}")));
        match flag.as_str() {
            "--n" => opts.n = v,
            "--mm" => opts.mm = v,
            "--img" => opts.img = v,
            "--radius" => opts.radius = v,
            "--reps" => opts.reps = v as usize,
            "--batch" => opts.batch = v as usize,
            _ => usage(format!("unknown argument {flag}")),
        }
    }
    if opts.n % 256 != 0 {
        usage(format!("--n must be a multiple of 256, not {}", opts.n));
    }
    if opts.img % 32 != 0 {
        usage(format!("--img must be a multiple of 32, not {}", opts.img));
    }
    if opts.mm % 64 != 0 {
        usage(format!("--mm must be a multiple of 64, not {}", opts.mm));
    }
    opts
}

/// The default accelerator; but where `AMP_TEST_REQUIRE_ADAPTER` is set
/// (not empty, not `0`, as the tests read it) and `AMP_DEFAULT_ACCELERATOR`
/// is not, the best wgpu adapter (so that lavapipe, which ranks below the
/// CPU accelerator, runs), and an exit with status 2 if there is none.
fn accelerator() -> amp_core::Result<Accelerator> {
    let require =
        std::env::var("AMP_TEST_REQUIRE_ADAPTER").is_ok_and(|v| !v.is_empty() && v != "0");
    if !require || std::env::var_os("AMP_DEFAULT_ACCELERATOR").is_some() {
        return Accelerator::default();
    }
    Accelerator::all()
        .into_iter()
        .find(|a| !a.is_cpu())
        .map_or_else(
            || {
                eprintln!(
                    "bench-user: AMP_TEST_REQUIRE_ADAPTER is set but there is no wgpu adapter"
                );
                std::process::exit(2)
            },
            Ok,
        )
}

fn main() -> amp_core::Result<()> {
    let opts = parse_args();
    let started = Instant::now();
    let acc = accelerator()?;
    println!(
        "adapter: {} ({}, {})",
        acc.description(),
        acc.device_path(),
        acc.backend()
    );
    let gpu = if acc.is_cpu() {
        println!(
            "the CPU accelerator: the hand-written peers are skipped, and its device times are the host's clock"
        );
        None
    } else {
        let gpu = Gpu::new(acc.description(), acc.backend());
        if gpu.is_none() {
            println!(
                "no wgpu adapter named {:?}: the hand-written peers are skipped",
                acc.description()
            );
        }
        gpu
    };
    if gpu.as_ref().is_some_and(|g| !g.timestamps) {
        println!("the adapter has no timestamp queries: no device times");
    }
    println!(
        "{} reps, batches of {}; sizes: n {}, mm {}, img {}, radius {}",
        opts.reps,
        opts.batch,
        size_name(opts.n),
        opts.mm,
        opts.img,
        opts.radius
    );
    let mut bench = Bench {
        view: acc.create_view(QueuingMode::Automatic),
        gpu: gpu.as_ref(),
        opts: opts.clone(),
        rows: Vec::new(),
        failures: Vec::new(),
        transfers: Vec::new(),
    };
    bench.copies()?;
    if opts.runs("saxpy") {
        bench.saxpy()?;
    }
    if opts.runs("reduce") {
        bench.reduce()?;
    }
    if opts.runs("transpose") {
        bench.transpose()?;
    }
    if opts.runs("conv") {
        bench.conv()?;
    }
    for (name, block, strided) in [
        ("mm_rb64", 64, false),
        ("mm_rb128", 128, false),
        ("mm_rb64s", 64, true),
        ("mm_rb128s", 128, true),
    ] {
        if opts.runs(name) {
            bench.mm(block, strided)?;
        }
    }
    if opts.runs("transfers") {
        bench.transfers()?;
    }

    println!();
    println!("adapter: {}", acc.description());
    println!(
        "| kernel | size | amp device (ms) | hand device (ms) | ratio | amp queued (ms/launch) | amp launch+wait (ms) | hand queued | hand launch+wait | wall/device |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in &bench.rows {
        let hand = r.hand.unwrap_or_default();
        let ratio = match (r.amp.device, hand.device) {
            (Some(a), Some(h)) => format!("{:.2}x", a / h),
            _ => "n/a".to_string(),
        };
        let wall_device = match (r.amp.queued, r.amp.device) {
            (Some(q), Some(d)) => format!("{:.2}", q / d),
            _ => "n/a".to_string(),
        };
        println!(
            "| {} | {} | {} | {} | {ratio} | {} | {} | {} | {} | {wall_device} |",
            r.kernel,
            r.size,
            ms(r.amp.device),
            ms(hand.device),
            ms(r.amp.queued),
            ms(r.amp.launch_wait),
            ms(hand.queued),
            ms(hand.launch_wait),
        );
    }
    println!(
        "(ratio: amp device / hand device; wall/device: amp queued / amp device; {:.1} s in all)",
        started.elapsed().as_secs_f64()
    );
    if !bench.transfers.is_empty() {
        println!();
        println!("| transfer of {} | ms | GB/s |", size_name(opts.n));
        println!("|---|---|---|");
        for (what, ms, rate) in &bench.transfers {
            println!("| {what} | {ms:.2} | {rate:.1} |");
        }
    }
    if !bench.failures.is_empty() {
        for f in &bench.failures {
            println!("FAIL {f}");
        }
        std::process::exit(1);
    }
    Ok(())
}
