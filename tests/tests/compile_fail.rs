//! Compile-fail tests: code that amp-rs must refuse at compile time, each
//! with the exact error message committed next to it
//! (`tests/ui/*.stderr`). After an intended change of a message, regenerate
//! the snapshots with `TRYBUILD=overwrite cargo test -p amp-tests --test
//! compile_fail` and review them.

/// In a module of their own, so that a test run can leave them out
/// (`--skip ui::`: CI's pass without a Vulkan driver does).
mod ui {
    /// `#[derive(Element)]` refuses structs WGSL cannot share with the host
    /// (`tests/ui/element_*.rs`).
    #[test]
    fn element_derive_refuses_what_wgsl_cannot_share() {
        trybuild::TestCases::new().compile_fail("ui/element_*.rs");
    }

    /// `parallel_for_each!` refuses kernels outside the kernel language
    /// (`tests/ui/kernel_*.rs`; the rules are in `docs/kernel-language.md`).
    #[test]
    fn kernels_refuse_what_accelerators_cannot_run() {
        trybuild::TestCases::new().compile_fail("ui/kernel_*.rs");
    }

    /// `copy` refuses containers of other ranks or element types
    /// (`tests/ui/copy_*.rs`; C++ AMP's copies between them do not compile).
    #[test]
    fn copies_between_ranks_or_element_types_do_not_compile() {
        trybuild::TestCases::new().compile_fail("ui/copy_*.rs");
    }
}
