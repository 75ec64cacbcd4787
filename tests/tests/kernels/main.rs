//! Kernels: the kernel language on every accelerator (arithmetic, math,
//! control flow, domains, tiles, atomics, functions, constants, types) and
//! the optimised kernels, each against a CPU reference on random inputs.

#[path = "../kernel_support/mod.rs"]
mod kernel_support;

mod arith;
mod atomics;
mod conformance_draw;
mod conformance_draw2;
mod conformance_draw3;
mod conformance_draw4;
mod consts;
mod control;
mod domain;
mod functions;
mod fuzzed;
mod half;
mod matching;
mod math;
mod optimized;
mod plain;
mod reliability;
mod sections;
mod small_ints;
mod smoke;
mod stencil;
mod tiled;
mod tiled_more;
mod tiled_split;
mod types;
