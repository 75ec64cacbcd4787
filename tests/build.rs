//! Writes the differential fuzzer's kernels (`tests/tests/fuzz.rs`) to
//! `$OUT_DIR/fuzz_kernels.rs`, from `AMP_FUZZ_SEED`, `AMP_FUZZ_COUNT` and
//! `AMP_FUZZ_FLAGS` (defaults in `tests/fuzz/gen.rs`).

#[path = "fuzz/gen.rs"]
mod generator;

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=fuzz/gen.rs");
    println!("cargo:rerun-if-env-changed=AMP_FUZZ_SEED");
    println!("cargo:rerun-if-env-changed=AMP_FUZZ_COUNT");
    println!("cargo:rerun-if-env-changed=AMP_FUZZ_FLAGS");
    let seed = match std::env::var("AMP_FUZZ_SEED") {
        Ok(v) => parse(&v).unwrap_or_else(|| panic!("AMP_FUZZ_SEED={v:?} is not a u64")),
        Err(_) => generator::DEFAULT_SEED,
    };
    let count = match std::env::var("AMP_FUZZ_COUNT") {
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .unwrap_or_else(|_| panic!("AMP_FUZZ_COUNT={v:?} is not a count")),
        Err(_) => generator::DEFAULT_COUNT,
    };
    let flags = generator::Flags::parse(&std::env::var("AMP_FUZZ_FLAGS").unwrap_or_default())
        .unwrap_or_else(|e| panic!("AMP_FUZZ_FLAGS: {e}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(
        out.join("fuzz_kernels.rs"),
        generator::generate(seed, count, flags),
    )
    .expect("writing fuzz_kernels.rs");
}

/// A `u64` in decimal or `0x` hexadecimal.
fn parse(v: &str) -> Option<u64> {
    let v = v.trim();
    match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16).ok(),
        None => v.replace('_', "").parse().ok(),
    }
}
