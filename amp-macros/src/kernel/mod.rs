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

/// `#[kernel]`: the function, plus its IR builder; on an `impl` block,
/// each of its functions.
pub(crate) fn kernel_function(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = parse::Errors::default();
    if !attr.is_empty() {
        errors.push(syn::Error::new_spanned(
            &attr,
            "#[kernel] takes no arguments",
        ));
    }
    if let Ok(imp) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        return kernel_impl(imp, errors);
    }
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                "#[kernel] applies to functions, methods and `impl` blocks",
            );
            let errors = e.to_compile_error();
            return quote::quote! { #errors #item };
        }
    };
    kernel_item(item, false, errors)
}

/// `#[kernel] impl T { .. }`: every function of the block is a `#[kernel]`
/// function (methods and associated functions alike), its companions
/// associated functions of `T`.
fn kernel_impl(imp: syn::ItemImpl, mut errors: parse::Errors) -> TokenStream {
    if let Some((_, path, _)) = &imp.trait_ {
        errors.push(syn::Error::new_spanned(
            path,
            "#[kernel] applies to inherent `impl` blocks (`impl T { .. }`), not to trait implementations: a trait's methods cannot be called in kernels (accelerators have no dynamic dispatch)",
        ));
        let errors = errors.into_result().err().map(|e| e.to_compile_error());
        return quote::quote! { #errors #imp };
    }
    let mut items = Vec::new();
    let mut first = Some(errors);
    for item in &imp.items {
        match item {
            syn::ImplItem::Fn(f) => {
                let attrs = f
                    .attrs
                    .iter()
                    .filter(|a| a.path().segments.last().is_none_or(|s| s.ident != "kernel"))
                    .cloned()
                    .collect();
                let item = syn::ItemFn {
                    attrs,
                    vis: f.vis.clone(),
                    sig: f.sig.clone(),
                    block: Box::new(f.block.clone()),
                };
                let errors = first.take().unwrap_or_default();
                items.push(kernel_item(item, true, errors));
            }
            other => items.push(quote::quote!(#other)),
        }
    }
    if let Some(errors) = first
        && let Err(e) = errors.into_result()
    {
        items.push(e.to_compile_error());
    }
    let mut out = imp.clone();
    out.items = vec![syn::ImplItem::Verbatim(quote::quote!(#(#items)*))];
    quote::quote!(#out)
}

/// One `#[kernel]` function (`in_impl`: an item of an `impl` block): parse,
/// check, expand; a method with a receiver also gets the function that
/// `value.method(..)` calls in kernels (see `expand::receiver_shim`).
fn kernel_item(item: syn::ItemFn, in_impl: bool, mut errors: parse::Errors) -> TokenStream {
    let function = parse::parse_function(item.clone(), in_impl, &mut errors);
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
    let shim = function
        .as_ref()
        .and_then(expand::receiver_shim)
        .map(|shim| kernel_item(shim, true, parse::Errors::default()));
    let expanded = match (function, errors.into_result()) {
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
    };
    quote::quote!(#expanded #shim)
}
