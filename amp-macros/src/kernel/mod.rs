//! `parallel_for_each!`: parse -> check -> expand.

mod ast;
mod check;
mod expand;
mod parse;

use proc_macro2::TokenStream;

/// The macro's implementation.
pub(crate) fn parallel_for_each(input: TokenStream) -> TokenStream {
    let input: parse::Input = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return fallback(e),
    };
    let mut errors = parse::Errors::default();
    let kernel = parse::parse(input, &mut errors);
    if let Some(k) = &kernel {
        check::check(k, &mut errors);
    }
    match (kernel, errors.into_result()) {
        (Some(k), Ok(())) => expand::expand(&k),
        (_, Err(e)) => fallback(e),
        (None, Ok(())) => fallback(syn::Error::new(
            proc_macro2::Span::call_site(),
            "invalid parallel_for_each!",
        )),
    }
}

/// One mistake, one error: the errors and a well-typed placeholder.
fn fallback(e: syn::Error) -> TokenStream {
    let errors = e.to_compile_error();
    quote::quote! {
        {
            #errors
            ::core::result::Result::<(), ::amp_core::Error>::Ok(())
        }
    }
}
