//! `parallel_for_each!`: parse -> check -> expand.

mod ast;
mod check;
mod closures;
mod expand;
mod parse;
mod plain;
mod refs;
mod safety;
mod sites;
mod split;
#[cfg(test)]
mod test_support;

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

/// `#[kernel]`: the function, plus its IR builder.
pub(crate) fn kernel_function(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = parse::Errors::default();
    if !attr.is_empty() {
        errors.push(syn::Error::new_spanned(
            &attr,
            "#[kernel] takes no arguments",
        ));
    }
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let e = syn::Error::new(e.span(), "#[kernel] applies to free functions");
            let errors = e.to_compile_error();
            return quote::quote! { #errors #item };
        }
    };
    let function = parse::parse_function(item.clone(), &mut errors);
    if let Some(f) = &function {
        let k = ast::Kernel {
            view: None,
            domain: syn::parse_quote!(()),
            index: proc_macro2::Ident::new("__amp_no_index", proc_macro2::Span::call_site()),
            rank: 1,
            rank_path: None,
            captures: Vec::new(),
            derived: Vec::new(),
            consts: Vec::new(),
            body: f.body.clone(),
            span: proc_macro2::Span::call_site(),
            // A function that takes the tiled index is checked as a tiled
            // kernel (its barriers must be uniform; its parameters are, as
            // its callers check).
            tiled: f.tiled.is_some(),
        };
        check::check(&k, &mut errors);
    }
    match (function, errors.into_result()) {
        (Some(f), Ok(())) => expand::expand_function(&f, true),
        (Some(f), Err(e)) => {
            // One mistake, one error: the function's signature as its
            // callers see it (view parameters in their CPU form), its IR
            // builder, and no native body to report more errors in.
            let errors = e.to_compile_error();
            let function = expand::expand_function(&f, false);
            quote::quote! { #errors #function }
        }
        (None, Err(e)) => {
            // One mistake, one error: keep the function so its callers
            // still compile.
            let errors = e.to_compile_error();
            quote::quote! { #errors #item }
        }
        (None, Ok(())) => quote::quote! { #item },
    }
}
