//! `#[amp_test]`: a test run once per kind of accelerator, as wgpu names
//! its tests per backend.
//!
//! ```ignore
//! #[amp_test]
//! fn add_f32() {
//!     for (view, label) in views(QueuingMode::Immediate) { /* ... */ }
//! }
//! ```
//!
//! keeps `fn add_f32` and adds a module of the same name with two tests,
//! `add_f32::cpu` and `add_f32::wgpu`. Each calls the function with the
//! accelerator lists of `amp_tests` (`accelerators()` and the helpers built
//! on it) narrowed to the CPU accelerator or to the wgpu adapters, so that
//! `cargo test cpu` runs every test on the CPU accelerator alone. The `cpu`
//! test also checks the WGSL of the kernels the test launched against its
//! reviewed snapshots (`amp_tests::run_on`).

use proc_macro::TokenStream;
use quote::quote;
use syn::{Error, ItemFn, parse_macro_input};

/// Turns a test function into one test per kind of accelerator (see the
/// crate's documentation). `#[should_panic]` and `#[ignore]` apply to each.
/// `#[amp_test(wgpu)]` makes only the `wgpu` test (a test of GPU-only
/// behaviour; it checks the snapshots of its kernels, where an adapter
/// exists), `#[amp_test(cpu)]` only the `cpu` one. `no_snapshots` (alone
/// or after a kind: `#[amp_test(cpu, no_snapshots)]`) checks no WGSL
/// snapshots: for generated kernels (`tests/tests/fuzz.rs`), which change
/// with their seed.
#[proc_macro_attribute]
pub fn amp_test(args: TokenStream, item: TokenStream) -> TokenStream {
    let args = proc_macro2::TokenStream::from(args);
    let (kinds, no_snapshots): (Vec<String>, bool) = match syn::parse::Parser::parse2(
        syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated,
        args.clone(),
    ) {
        Ok(list)
            if list
                .iter()
                .all(|k| k == "cpu" || k == "wgpu" || k == "no_snapshots") =>
        {
            let no_snapshots = list.iter().any(|k| k == "no_snapshots");
            let kinds: Vec<String> = list
                .iter()
                .filter(|k| *k != "no_snapshots")
                .map(ToString::to_string)
                .collect();
            if kinds.is_empty() {
                (vec!["cpu".into(), "wgpu".into()], no_snapshots)
            } else {
                (kinds, no_snapshots)
            }
        }
        _ => {
            return Error::new_spanned(
                args,
                "expected `#[amp_test]`, `#[amp_test(cpu)]` or `#[amp_test(wgpu)]`, \
                 optionally with `no_snapshots`",
            )
            .to_compile_error()
            .into();
        }
    };
    let mut func = parse_macro_input!(item as ItemFn);
    if !func.sig.inputs.is_empty() || func.sig.asyncness.is_some() {
        return Error::new_spanned(
            &func.sig,
            "an #[amp_test] takes no arguments and is not async",
        )
        .to_compile_error()
        .into();
    }
    let (test_attrs, own): (Vec<_>, Vec<_>) = func.attrs.drain(..).partition(|a| {
        a.path().is_ident("should_panic")
            || a.path().is_ident("ignore")
            || a.path().is_ident("test")
    });
    func.attrs = own;
    let test_attrs: Vec<_> = test_attrs
        .into_iter()
        .filter(|a| !a.path().is_ident("test"))
        .collect();
    let name = &func.sig.ident;
    let output = &func.sig.output;
    // The `cpu` test checks the WGSL snapshots; a test of GPU-only
    // behaviour checks them in its `wgpu` test.
    let only_wgpu = kinds.len() == 1 && kinds[0] == "wgpu";
    let tests = kinds.iter().map(|kind| {
        let test = syn::Ident::new(kind, proc_macro2::Span::call_site());
        let target = syn::Ident::new(
            if kind == "cpu" { "Cpu" } else { "Wgpu" },
            proc_macro2::Span::call_site(),
        );
        let snapshots = !no_snapshots && (kind == "cpu" || only_wgpu);
        quote! {
            #[test]
            #(#test_attrs)*
            fn #test() #output {
                ::amp_tests::run_on(
                    ::amp_tests::Target::#target,
                    ::core::module_path!(),
                    #snapshots,
                    super::#name,
                )
            }
        }
    });
    quote! {
        #func

        mod #name {
            #(#tests)*
        }
    }
    .into()
}
