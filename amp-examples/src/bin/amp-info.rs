//! `amp-info`: lists every accelerator with its properties and marks the
//! default one.
//!
//! The amp-rs counterpart of the C++ AMP sample VerifyAmpDevices. Run it with
//! `cargo run --release -p amp-examples --bin amp-info`; set
//! `AMP_DEFAULT_ACCELERATOR` to a device path or a part of a description to
//! change the default. Exits with status 1 (and the reason) if the default
//! cannot be resolved, and checks that the default accelerator runs a command.

use std::process::ExitCode;

use amp_core::{Accelerator, QueuingMode};

fn main() -> ExitCode {
    amp_examples::gallery::init_logging();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("amp-info: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> amp_core::Result<()> {
    let all = Accelerator::all();
    let default = Accelerator::default()?;
    println!("{} accelerator(s):", all.len());
    for acc in &all {
        let mark = if *acc == default { " (default)" } else { "" };
        let limits = acc.limits();
        println!();
        println!("{}{mark}", acc.description());
        println!("  device_path                       {}", acc.device_path());
        println!("  backend                           {}", acc.backend());
        println!("  version                           {}", acc.version());
        println!(
            "  dedicated_memory                  {}",
            mib(acc.dedicated_memory())
        );
        println!("  is_emulated                       {}", acc.is_emulated());
        println!("  has_display                       {}", acc.has_display());
        println!(
            "  supports_double_precision         {}",
            acc.supports_double_precision()
        );
        println!(
            "  supports_limited_double_precision {}",
            acc.supports_limited_double_precision()
        );
        println!(
            "  supports_half_precision           {}",
            acc.supports_half_precision()
        );
        println!(
            "  max_threads_per_tile              {}",
            limits.max_threads_per_tile
        );
        println!(
            "  max_tile_dims (x, y, z)           {:?}",
            limits.max_tile_dims
        );
        println!(
            "  max_tile_static_bytes             {}",
            limits.max_tile_static_bytes
        );
        println!(
            "  max_buffer_size                   {}",
            mib(limits.max_buffer_size)
        );
        println!(
            "  max_binding_size                  {}",
            mib(limits.max_binding_size)
        );
    }
    // Prove the default accelerator works: record a command and wait for it.
    let view = default.create_view(QueuingMode::Immediate);
    view.create_marker()?.wait()?;
    println!();
    println!("default accelerator: {default} - ready");
    Ok(())
}

fn mib(bytes: u64) -> String {
    if bytes == 0 {
        "unknown".to_string()
    } else {
        format!("{} MiB", bytes / (1024 * 1024))
    }
}
