//! Tests of closures in kernels (`closures`): the rewrites on their own
//! (what a call becomes) and the kernel AST the parse stage builds from
//! them, with the refusals and their messages.

use quote::quote;

use super::super::test_support::{kernel, kinds, parse_errors};
use super::*;

fn stmt(s: proc_macro2::TokenStream) -> syn::Stmt {
    syn::parse2(s).expect("a statement")
}

/// The statement `s` with the calls of `closures` inlined, as text.
fn inlined(s: proc_macro2::TokenStream, closures: &[BoundClosure]) -> String {
    let mut fresh = 0;
    let (s, errors) = inline(&stmt(s), closures, &mut fresh);
    assert!(errors.is_empty(), "{errors:?}");
    quote!(#s).to_string()
}

#[test]
fn a_call_becomes_a_block_binding_the_arguments_first() {
    // Written where it is called: value arguments evaluated into
    // temporaries first, in order, then bound (so `(y, x)` swaps); a
    // reference parameter names the argument's place.
    assert_eq!(
        inlined(quote!(let s = (|x: i32, y| x - y)(y, x);), &[]),
        "let s = { let __amp_c1 = y ; let __amp_c2 = x ; let x : i32 = __amp_c1 ; let y = __amp_c2 ; x - y } ;"
    );
    assert_eq!(
        inlined(quote!((|r: &mut f32| { *r += 1.0; })(p);), &[]),
        "{ let r = & mut * p ; * r += 1.0 ; } ;"
    );
    assert_eq!(
        inlined(quote!((|r: &mut f32| { *r += 1.0; })(&mut a[i]);), &[]),
        "{ let r = & mut a [i] ; * r += 1.0 ; } ;"
    );
    // Bound by `let`: the binding is the closure; each call is inlined.
    let bound = closure_let(&stmt(quote!(let add = |v| v + k;))).expect("a closure let");
    assert_eq!(bound.name, "add");
    assert_eq!(bound.free, ["k"]);
    assert!(closure_let(&stmt(quote!(let add = k + 1;))).is_none());
    assert_eq!(
        inlined(quote!(let t = add(add(1));), std::slice::from_ref(&bound)),
        "let t = { let __amp_c2 = { let __amp_c1 = 1 ; let v = __amp_c1 ; v + k } ; let v = __amp_c2 ; v + k } ;"
    );
    // A name bound again inside the statement shadows the closure.
    assert_eq!(
        inlined(
            quote!(for add in 0..2 {
                g(add);
            }),
            std::slice::from_ref(&bound)
        ),
        "for add in 0 .. 2 { g (add) ; }"
    );
}

#[test]
fn a_closures_names_mean_what_they_meant_where_it_was_written() {
    // `f2` in the body is the outer `f2` (the closure is not in scope in
    // its own `let`); a closure calling an earlier one of its own name
    // calls that one. Found by the fuzzer (seed 20261131).
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let f2 = 1.5f32;
            let f2 = |v: u32| f2;
            let g = |x: i32| x + 1;
            let g = |x: i32| g(x) * 2;
            d[idx] = f2(3) + g(idx[0]) as f32;
        }
    });
    assert_eq!(kinds(&k.body), ["Let", "Assign"]);
    let mut fresh = 0;
    let outer = closure_let(&stmt(quote!(let g = |x: i32| x + 1;))).expect("a closure");
    let mut inner = closure_let(&stmt(quote!(let g = |x: i32| g(x) * 2;))).expect("a closure");
    assert!(prepare(&mut inner, std::slice::from_ref(&outer), &mut fresh).is_empty());
    let body = &inner.closure.body;
    assert_eq!(
        quote!(#body).to_string(),
        "{ let __amp_c1 = x ; let x : i32 = __amp_c1 ; x + 1 } * 2"
    );
}

#[test]
fn closures_that_cannot_be_inlined_are_refused() {
    let mut bound = closure_let(&stmt(quote!(let add = |v| v + k;))).expect("a closure let");
    let errors = |s, c: &[BoundClosure]| {
        let mut fresh = 0;
        let (_, e) = inline(&stmt(s), c, &mut fresh);
        e.iter().map(|e| e.to_string()).collect::<Vec<_>>()
    };
    let e = errors(quote!(let t = g(add);), std::slice::from_ref(&bound));
    assert!(
        e[0].starts_with("`add` is a closure: in a kernel a closure can only be called"),
        "{e:?}"
    );
    let e = errors(quote!(let t = (|v: i32| v)(1, 2);), &[]);
    assert!(
        e[0].starts_with("this closure takes 1 arguments, not 2"),
        "{e:?}"
    );
    let e = errors(
        quote!(let t = (|v: i32| { if v > 0 { return 1; } v })(3);),
        &[],
    );
    assert!(
        e[0].contains("`return` in its body would return from the kernel"),
        "{e:?}"
    );
    rebind(std::slice::from_mut(&mut bound), &["k".to_string()]);
    let e = errors(quote!(let t = add(1);), std::slice::from_ref(&bound));
    assert!(
        e[0].starts_with("the closure `add` uses `k`, which is bound again"),
        "{e:?}"
    );
}

#[test]
fn the_parse_stage_sees_the_inlined_blocks() {
    // `let f = ..` makes no statement; each call is a block.
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let k = 3;
            let f = |v: i32| v * k;
            let a = f(idx[0]);
            let b = (|v: i32| v + 1)(a);
            d[idx] = a + b;
        }
    });
    assert_eq!(kinds(&k.body), ["Let", "Let", "Let", "Assign"]);
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let k = 3;
            let f = |v: i32| v * k;
            let k = 4;
            d[idx] = f(1);
        }
    });
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(
        e[0].contains("bound again between the closure and this call"),
        "{e:#?}"
    );
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let f = |v: i32| v;
            d[idx] = g(f);
        }
    });
    assert!(e.iter().any(|m| m.contains("`f` is a closure")), "{e:#?}");
}
