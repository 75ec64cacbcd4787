//! Procedural macros of amp-rs.
//!
//! Use them through `amp_core`, which re-exports each one next to the item it
//! implements: `#[derive(amp_core::Element)]` implements the trait
//! `amp_core::Element`. The generated code refers to `::amp_core` only, so
//! the crate using a macro must depend on `amp_core` under that name.

mod element;
mod kernel;

// Users see these docs through the re-export `amp_core::Element`, after the
// summary line and the examples written there (which run as doc tests of
// amp-core), hence no summary or examples here.
/// # Requirements
///
/// `#[derive(Element)]` implements `amp_core::Element`,
/// `bytemuck::Zeroable` and `bytemuck::Pod` for a struct, so that it can be
/// stored in accelerator memory and used in kernels as a WGSL `struct`. The
/// struct must
///
/// - be `#[repr(C)]`, optionally with `align(N)` (`#[repr(C, align(16))]`),
///   and not `packed`;
/// - have named fields, at least one, each of an element type: `i32`, `u32`,
///   `f32`, `f64`, a short vector (`Float4`, `Int2`, ...), another
///   `#[derive(Element)]` struct, or a fixed-size array `[T; N]` of these;
/// - have no generic parameters or lifetimes;
/// - be `Copy` (`#[derive(Clone, Copy, Element)]`);
/// - have the same layout on the host as in WGSL's storage layout: no
///   padding bytes (add explicit padding fields such as `_pad: [f32; 3]`
///   instead) and every field at the offset WGSL gives it. WGSL packs a
///   4-byte field right after the third component of a `vec3<f32>`, where
///   the host's `Float3` has padding, so a 3-component vector must be the
///   last field or be followed by a field aligned to at least 8 bytes (16
///   after a `Double3`).
///
/// The WGSL struct has the Rust struct's name and field names, so none of
/// them may be a WGSL keyword or reserved word (`target`, `type`, `filter`,
/// ...) or start with `__`. Every rule is checked at compile time; a
/// violation is a compile-time error naming the struct and the field.
///
/// Corresponds to the user-defined structs C++ AMP allows as `array` and
/// `array_view` elements.
#[proc_macro_derive(Element)]
pub fn derive_element(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    element::derive(&input).into()
}

// Users see these docs through the re-export `amp_core::parallel_for_each`,
// after the summary line and the examples written there (which run as doc
// tests of amp-core), hence no summary or examples here.
/// # Syntax
///
/// `parallel_for_each!([view,] domain, |idx: Index<N>| { body })` lowers the
/// body to WGSL for GPU accelerators and compiles it as Rust for the CPU
/// accelerator; both have the same semantics. The body may use the kernel
/// subset of Rust (see `docs/kernel-language.md`): captured `ArrayView`s and
/// `Array`s (indexed by `idx`, `[i, j]` or `a[i][j]`), captured `i32`, `u32`,
/// `f32`, `f64` and `bool` values (copied), constants (inlined), locals,
/// arithmetic, casts, `if`/`else`, `while`, `loop`, `for` over ranges,
/// `break`, `continue`, `return`, and math methods (`sqrt`, `abs`, `min`,
/// ...). Anything else is a compile error at the offending code.
///
/// Evaluates to `amp_core::Result<()>`.
///
/// Corresponds to C++ AMP `parallel_for_each` with a `restrict(amp)` lambda.
#[proc_macro]
pub fn parallel_for_each(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    kernel::parallel_for_each(input.into()).into()
}

// Users see these docs through the re-export `amp_core::kernel`, after the
// summary line and the examples written there (which run as doc tests of
// amp-core), hence no summary or examples here.
/// # Rules
///
/// The function may use the kernel subset of Rust (see
/// `docs/kernel-language.md`) on its parameters, locals and constants, call
/// other `#[kernel]` functions, and be generic: type parameters bounded by
/// exactly one of `amp_core::Number`, `amp_core::Float`,
/// `amp_core::Integer` or `amp_core::Element` (instantiated per call; an
/// `Element` parameter's values are only moved, not computed with), const parameters of type
/// `i32`, `u32` or `bool` (give them at the call: `f::<4>(x)`). Recursion is
/// rejected when a kernel using it is compiled.
///
/// Corresponds to a C++ AMP `restrict(amp)` function (and a function
/// template such as `convolution_dim_simple<dim>`).
#[proc_macro_attribute]
pub fn kernel(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    kernel::kernel_function(attr.into(), item.into()).into()
}
