//! `#[derive(Element)]`, in three stages like `serde_derive`:
//!
//! 1. [`parse`] reads the `syn` input into a small model of the struct;
//! 2. [`check`] reports everything the derive refuses, each error spanned at
//!    the offending code, all of them at once;
//! 3. [`expand`] generates the impls and the compile-time layout checks, or,
//!    after an error, a fallback impl so that the one mistake does not cause
//!    further errors wherever the type is used.

mod check;
mod expand;
mod parse;

use core::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Expands `#[derive(Element)]` on `input`.
pub(crate) fn derive(input: &syn::DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let parsed = parse::Input::from_syn(input);
    let fields = check::check(&parsed, &mut errors);
    match (errors.into_error(), fields) {
        (None, Some(fields)) => expand::expand(&parsed, fields),
        (error, _) => {
            let mut tokens = error.map_or_else(TokenStream::new, |e| e.to_compile_error());
            tokens.extend(expand::fallback(&parsed));
            tokens
        }
    }
}

/// The errors found so far, combined into one `syn::Error`.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    /// Records an error spanned at `tokens`.
    fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        let error = syn::Error::new_spanned(tokens, message);
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// The combined error, if any was recorded.
    fn into_error(self) -> Option<syn::Error> {
        self.0
    }
}
