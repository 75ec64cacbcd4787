//! Tests of references bound by `let` (`refs`): the syntax rewrites on
//! their own, and the kernel AST the parse stage builds from them (reads and
//! writes through a reference reach the place itself, its indices evaluated
//! once), with the refusals and their messages.

use quote::quote;

use super::super::ast::*;
use super::super::test_support::{kernel, kinds, let_init, parse_errors};
use super::*;

/// The local a `let` of `b` named `name` declares (the last such `let`).
#[track_caller]
fn local_of(b: &Block, name: &str) -> u32 {
    b.stmts
        .iter()
        .rev()
        .find_map(|s| match &s.kind {
            StmtKind::Let { local, name: n, .. } if n == name => Some(*local),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no `let {name}`"))
}

/// The names of the `let`s of `b`, in order.
fn let_names(b: &Block) -> Vec<String> {
    b.stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Let { name, .. } => Some(name.to_string()),
            _ => None,
        })
        .collect()
}

/// The local `e` reads.
#[track_caller]
fn local(e: &Expr) -> u32 {
    match &e.kind {
        ExprKind::Local(id, _) => *id,
        other => panic!("not a local: {other:?}"),
    }
}

fn stmt(s: proc_macro2::TokenStream) -> syn::Stmt {
    syn::parse2(s).expect("a statement")
}

#[test]
fn a_reference_to_an_element_is_the_element_with_its_index_evaluated_once() {
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let k = idx[0] * 2;
            let r = &mut a[k + 1];
            *r += 1.0;
            *r = *r * 2.0;
            o[idx] = *r;
        }
    });
    let b = &k.body;
    // The index is bound to a hidden local at the `let`; the reference
    // itself is no local at all.
    assert_eq!(let_names(b), ["k", "__amp_i1"]);
    assert_eq!(kinds(b), ["Let", "Let", "Assign", "Assign", "Assign"]);
    let (_, index) = let_init(b, 1);
    assert!(
        matches!(&index.kind, ExprKind::Binary(BinOp::Add, l, _) if local(l) == local_of(b, "k")),
        "{index:?}"
    );
    let i = local_of(b, "__amp_i1");
    let a = k
        .captures
        .iter()
        .position(|c| c == "a")
        .expect("a captured") as u32;
    // `*r += 1.0` and `*r = *r * 2.0`: writes of `a[__amp_i1]`, and a read.
    match &b.stmts[2].kind {
        StmtKind::Assign(Place::Element(c, name, idx), Some(BinOp::Add), _) => {
            assert_eq!((*c, name.to_string()), (a, "a".to_string()));
            assert_eq!(idx.len(), 1);
            assert_eq!(local(&idx[0]), i);
        }
        other => panic!("{other:?}"),
    }
    match &b.stmts[3].kind {
        StmtKind::Assign(Place::Element(c, _, idx), None, value) => {
            assert_eq!((*c, local(&idx[0])), (a, i));
            let ExprKind::Binary(BinOp::Mul, read, _) = &value.kind else {
                panic!("{value:?}")
            };
            assert!(
                matches!(&read.kind, ExprKind::Load(c, _, idx) if *c == a && local(&idx[0]) == i),
                "{read:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // `o[idx] = *r`: the read of the element.
    match &b.stmts[4].kind {
        StmtKind::Assign(Place::Element(..), None, value) => assert!(
            matches!(&value.kind, ExprKind::Load(c, _, idx) if *c == a && local(&idx[0]) == i),
            "{value:?}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_reference_to_a_local_reads_and_writes_the_local() {
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let r = &x;
            let y = *r + 1;
            let w = &mut x;
            *w = 5;
            let z = w.abs();
            o[idx] = y + z;
        }
    });
    let b = &k.body;
    // A plain name has no index to bind: no hidden locals.
    assert_eq!(let_names(b), ["x", "y", "z"]);
    let x = local_of(b, "x");
    let (_, y) = let_init(b, 1);
    assert!(
        matches!(&y.kind, ExprKind::Binary(BinOp::Add, l, _) if local(l) == x),
        "{y:?}"
    );
    assert!(
        matches!(&b.stmts[2].kind, StmtKind::Assign(Place::Local(id, _), None, _) if *id == x),
        "{:?}",
        b.stmts[2].kind
    );
    // `w.abs()`: auto-dereferenced, as Rust reads it.
    let (_, z) = let_init(b, 3);
    assert!(
        matches!(&z.kind, ExprKind::Call(Builtin::Abs, _, args) if local(&args[0]) == x),
        "{z:?}"
    );
}

#[test]
fn a_reference_passed_on_or_copied_is_the_same_place() {
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            tile_static! { let s: [u32; 16]; }
            let mut x = 0u32;
            let r = &mut x;
            bump(r);
            let q = r;
            *q += 2;
            let e = &s[t.local[0]];
            atomic_fetch_add(e, 1);
            let c = &mut h[t.global];
            bump(c);
        }
    });
    let b = &k.body;
    let x = local_of(b, "x");
    // `bump(r)`: `&mut x` passed.
    let StmtKind::Expr(call) = &b.stmts[2].kind else {
        panic!("{:?}", b.stmts[2].kind)
    };
    match &call.kind {
        ExprKind::CallFn(path, args) => {
            assert_eq!(quote!(#path).to_string(), "bump");
            assert!(
                matches!(&args[0].kind, ExprKind::AddrOf(p) if matches!(&**p, Place::Local(id, _) if *id == x)),
                "{args:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // `let q = r;` names the same place: no `let q`.
    assert!(!let_names(b).contains(&"q".to_string()));
    assert!(
        matches!(&b.stmts[3].kind, StmtKind::Assign(Place::Local(id, _), Some(BinOp::Add), _) if *id == x),
        "{:?}",
        b.stmts[3].kind
    );
    // The atomic applies to the `tile_static` element itself, at the index
    // bound where the reference was made.
    let i = local_of(b, "__amp_i1");
    let StmtKind::Expr(atomic) = &b.stmts[5].kind else {
        panic!("{:?}", b.stmts[5].kind)
    };
    match &atomic.kind {
        ExprKind::Atomic(a) => {
            assert_eq!(a.op, AtomicOp::Add);
            assert!(!a.implicit_one && a.args.len() == 1);
            assert!(
                matches!(&a.target, Place::TileElement(_, n, idx) if n == "s" && local(&idx[0]) == i),
                "{:?}",
                a.target
            );
        }
        other => panic!("{other:?}"),
    }
    // An element passed on to a function is copied in and stored back.
    let tail = &kinds(b)[6..];
    assert_eq!(
        tail,
        ["Let", "Let", "Let", "Expr", "Assign"],
        "{:#?}",
        b.stmts
    );
    match &b.stmts[10].kind {
        StmtKind::Assign(Place::Element(_, name, _), None, value) => {
            assert_eq!(name, "h");
            assert_eq!(local(value), local_of(b, "__amp_ref4"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_later_binding_of_the_name_shadows_the_reference() {
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let r = &mut x;
            for r in 0..4 {
                o[idx] += r;
            }
            let r = 7;
            o[idx] = r;
        }
    });
    let b = &k.body;
    let StmtKind::For { var, body, .. } = &b.stmts[1].kind else {
        panic!("{:?}", b.stmts[1].kind)
    };
    // The loop variable inside the loop, the new local after it.
    let StmtKind::Assign(_, _, v) = &body.stmts[0].kind else {
        panic!()
    };
    assert_eq!(local(v), *var);
    let StmtKind::Assign(_, _, v) = &b.stmts[3].kind else {
        panic!()
    };
    assert_eq!(local(v), local_of(b, "r"));
    assert_ne!(local_of(b, "r"), local_of(b, "x"));
    // A binding in a nested block shadows the reference there only.
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let r = &mut x;
            {
                let r = 5;
                o[idx] = r;
            }
            *r = 3;
        }
    });
    let b = &k.body;
    let StmtKind::If(_, inner, None) = &b.stmts[1].kind else {
        panic!("{:?}", b.stmts[1].kind)
    };
    let StmtKind::Assign(_, _, v) = &inner.stmts[1].kind else {
        panic!()
    };
    assert_eq!(local(v), local_of(inner, "r"));
    assert!(
        matches!(&b.stmts[2].kind, StmtKind::Assign(Place::Local(id, _), None, _) if *id == local_of(b, "x")),
        "{:?}",
        b.stmts[2].kind
    );
}

#[test]
fn references_that_are_not_one_place_bound_once_are_refused() {
    // `let mut` of a reference.
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut r = &mut x;
        }
    });
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(
        e[0].starts_with(
            "a reference in a kernel refers to one place: bind it with `let r = ..` (not `let mut`)"
        ),
        "{e:#?}"
    );
    // Assigning the reference itself.
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut y = 2;
            let r = &mut x;
            r = &mut y;
        }
    });
    assert_eq!(
        e,
        ["`r` is a reference bound once: assign the value it refers to as `*r = ..`"]
    );
    // `&mut` of a value that is not a place.
    for init in [quote!(&mut (x + 1)), quote!(&mut f(x)), quote!(&x.abs())] {
        let e = parse_errors(quote! {
            d, |idx: Index<1>| {
                let mut x = 1;
                let r = #init;
            }
        });
        assert_eq!(e.len(), 1, "{init}: {e:#?}");
        assert!(
            e[0].starts_with(
                "a reference in a kernel (`let r = &mut x;`) refers to a local variable"
            ),
            "{init}: {e:#?}"
        );
    }
    // A reference is no value of other expressions.
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut y = 2;
            let r = (if idx[0] > 0 { &mut x } else { &mut y }, 1);
        }
    });
    assert!(
        e.iter()
            .any(|m| m.contains("a reference cannot be a value of other expressions")),
        "{e:#?}"
    );
}

#[test]
fn a_reference_chosen_at_run_time_selects_its_place_by_number() {
    // `let r = if c { &mut x } else if c2 { &mut a[i] } else { &mut y };`:
    // the element's index bound first, the arm's number in a selector
    // local, and each use of `*r` the place the number selects.
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut y = 2;
            let mut a = [0; 4];
            let r = if idx[0] > 0 { &mut x } else if idx[0] < -5 { &mut a[idx[0] + 1] } else { &mut y };
            *r += 3;
            d[idx] = *r + x + y + a[0];
        }
    });
    let names: Vec<String> = k
        .body
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Let { name, .. } => Some(name.to_string()),
            _ => None,
        })
        .collect();
    assert!(names.iter().any(|n| n.starts_with("__amp_i")), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("__amp_sel")),
        "{names:?}"
    );
    // `*r += 3` became a store selected by the number (an `if` chain).
    assert_eq!(
        kinds(&k.body),
        ["Let", "Let", "Let", "Let", "Let", "If", "Assign"]
    );
    // A `let mut` reference and an arm that is not a place are refused.
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut r = if idx[0] > 0 { &mut x } else { &mut x };
        }
    });
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(e[0].contains("refers to one place"), "{e:#?}");
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let r = if idx[0] > 0 { &mut x } else { &mut (x + 1) };
            *r = 2;
        }
    });
    assert!(
        e.iter().any(|m| m.contains("refers to a local variable")),
        "{e:#?}"
    );
}

#[test]
fn a_kernel_functions_mut_result_selects_among_its_mut_arguments() {
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let m = larger(&mut x, &mut a[idx[0]]);
            *m += 1;
        }
    });
    let b = &k.body;
    // The element's index bound (`__amp_i1`); the call, passing the element
    // copied in and out (`__amp_ref4`, as every `&mut` element argument),
    // its position in `__amp_sel2` (a `RefCall`); then the store: the
    // value first, then the place the position selects.
    assert_eq!(
        let_names(b),
        ["x", "__amp_i1", "__amp_i3", "__amp_ref4", "__amp_sel2"]
    );
    assert_eq!(
        kinds(b),
        ["Let", "Let", "Let", "Let", "Let", "Assign", "If"]
    );
    let (_, sel) = let_init(b, 4);
    assert!(
        matches!(&sel.kind, ExprKind::RefCall(call) if matches!(&call.kind, ExprKind::CallFn(..))),
        "{sel:?}"
    );
    let StmtKind::If(_, store, None) = &b.stmts[6].kind else {
        panic!("{:?}", b.stmts[6].kind)
    };
    assert_eq!(kinds(store), ["Let", "If"]);
    assert_eq!(let_init(store, 0).0, "__amp_rv");
    // `if __amp_sel2 == 0 { x += .. } else { a[__amp_i1] += .. }`.
    let StmtKind::If(cond, first, Some(second)) = &store.stmts[1].kind else {
        panic!("{:?}", store.stmts[1].kind)
    };
    assert!(
        matches!(&cond.kind, ExprKind::Binary(BinOp::Eq, l, _) if local(l) == local_of(b, "__amp_sel2")),
        "{cond:?}"
    );
    assert!(
        matches!(&first.stmts[0].kind, StmtKind::Assign(Place::Local(id, _), Some(BinOp::Add), _) if *id == local_of(b, "x"))
    );
    assert!(matches!(
        &second.stmts[0].kind,
        StmtKind::Assign(Place::Element(_, a, idx), Some(BinOp::Add), _)
            if a == "a" && local(&idx[0]) == local_of(b, "__amp_i1")
    ));
    // Passing the result on is a choice among calls: `bump(&mut x)` or
    // `bump(&mut y)`, by the position the result holds.
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut y = 2;
            let m = larger(&mut x, &mut y);
            *m += 1;
            bump(m);
        }
    });
    let last = k.body.stmts.last().expect("a statement");
    let StmtKind::If(cond, first, Some(second)) = &last.kind else {
        panic!("{:?}", last.kind)
    };
    assert!(
        matches!(&cond.kind, ExprKind::Binary(BinOp::Eq, l, _)
            if matches!(&l.kind, ExprKind::Local(_, n) if n.to_string().starts_with("__amp_sel"))),
        "{cond:?}"
    );
    for (block, name) in [(first, "x"), (second, "y")] {
        let call = block
            .stmts
            .iter()
            .find_map(|s| match &s.kind {
                StmtKind::Expr(Expr {
                    kind: ExprKind::CallFn(f, args),
                    ..
                }) => Some((f, args)),
                _ => None,
            })
            .expect("the call");
        assert_eq!(call.0.path.segments[0].ident, "bump");
        assert!(
            matches!(&call.1[0].kind, ExprKind::AddrOf(p) if matches!(&**p, Place::Local(id, _) if *id == local_of(&k.body, name))),
            "{:?}",
            call.1[0]
        );
    }
}

#[test]
fn the_rewrites_on_their_own() {
    // Which `let`s bind references.
    let yes = stmt(quote!(let r: &mut f32 = &mut a[i];));
    let (p, r) = reference_let(&yes).expect("a reference let");
    assert_eq!(
        (p.ident.to_string(), r.mutability.is_some()),
        ("r".into(), true)
    );
    assert!(reference_let(&stmt(quote!(let r = (&x);))).is_some());
    assert!(reference_let(&stmt(quote!(let r: f32 = a[i];))).is_none());
    assert!(reference_let(&stmt(quote!(let r: f32 = &x;))).is_none());
    assert!(reference_let(&stmt(quote!(let (r, s) = (&x, &y);))).is_none());
    assert!(reference_let(&stmt(quote!(let ref r = x;))).is_none());
    // Uses rewritten: `*r` and `r` as the place, `r` passed as `&mut place`,
    // a name bound again left alone.
    let alias = RefAlias {
        name: "r".into(),
        target: Target::Place(syn::parse_quote!(a[__amp_i1])),
        mutable: true,
        shadowed: None,
    };
    let aliases = [alias];
    let rewrite = |s| {
        let (s, errors) = substitute(&stmt(s), &aliases);
        assert!(errors.is_empty());
        quote!(#s).to_string()
    };
    assert_eq!(
        rewrite(quote!(*r += r.abs();)),
        "(a [__amp_i1]) += (a [__amp_i1]) . abs () ;"
    );
    assert_eq!(rewrite(quote!(f(r, 1);)), "f (& mut a [__amp_i1] , 1) ;");
    assert_eq!(
        rewrite(quote!(for r in 0..4 {
            g(r);
        })),
        "for r in 0 .. 4 { g (r) ; }"
    );
    let (_, errors) = substitute(&stmt(quote!(r = &mut y;)), &aliases);
    assert_eq!(errors.len(), 1);
    // `let s = r;` copies the reference.
    let (name, of) = copied_reference(&stmt(quote!(let s = r;)), &aliases).expect("a copy");
    assert_eq!((name.to_string(), of.name.as_str()), ("s".into(), "r"));
    assert!(copied_reference(&stmt(quote!(let mut s = r;)), &aliases).is_none());
    // A local that is dereferenced before it is bound again holds a
    // reference.
    let later = [stmt(quote!(let v = *m + 1;))];
    assert!(dereferenced("m", &later));
    let shadowed = [stmt(quote!(let m = 3;)), stmt(quote!(let v = *m;))];
    assert!(!dereferenced("m", &shadowed));
    assert_eq!(
        pat_names(&syn::parse_quote!((a, mut b, _))),
        ["a".to_string(), "b".to_string()]
    );
    // `*f(..) = v;`: the value first, then the call, then the store.
    let mut fresh = 0;
    let lifted =
        lift_deref_call(&stmt(quote!(*pick(&mut x, &mut y) = g(2);)), &mut fresh).expect("lifted");
    let lifted: Vec<String> = lifted.iter().map(|s| quote!(#s).to_string()).collect();
    assert_eq!(
        lifted,
        [
            "let __amp_rv1 = g (2) ;",
            "let __amp_rc2 = pick (& mut x , & mut y) ;",
            "* __amp_rc2 = __amp_rv1 ;"
        ]
    );
    assert!(lift_deref_call(&stmt(quote!(*r = 1;)), &mut fresh).is_none());
    // A field or element under a reference chosen at run time (`r.i = v`,
    // `(*r).a[k] += v`): the value first, then a store through the place
    // the selector picks, its index evaluated in the chosen arm only.
    let chosen = [RefAlias {
        name: "r".into(),
        target: Target::Select {
            selector: syn::parse_quote!(__amp_sel1),
            candidates: vec![(0, syn::parse_quote!(p)), (1, syn::parse_quote!(q))],
        },
        mutable: true,
        shadowed: None,
    }];
    let rewrite = |s| {
        let (s, errors) = substitute(&stmt(s), &chosen);
        assert!(errors.is_empty(), "{errors:?}");
        quote!(#s).to_string()
    };
    assert_eq!(
        rewrite(quote!(r.i = g(1);)),
        "{ let __amp_rv = g (1) ; if __amp_sel1 == 0u32 { (p) . i = __amp_rv ; } else { (q) . i = __amp_rv ; } } ;"
    );
    assert_eq!(
        rewrite(quote!((*r).a[k] += 2;)),
        "{ let __amp_rv = 2 ; if __amp_sel1 == 0u32 { (p) . a [k] += __amp_rv ; } else { (q) . a [k] += __amp_rv ; } } ;"
    );
}

#[test]
fn a_functions_mut_result_is_one_of_its_mut_parameters() {
    let params = [("a".to_string(), 0u32), ("b".to_string(), 1u32)];
    let mut body: syn::Block = syn::parse_quote!({ if *a > *b { a } else { &mut *b } });
    let mut errors = Vec::new();
    mark_ref_results(&mut body, &params, &mut errors);
    assert!(errors.is_empty());
    assert_eq!(
        quote!(#body).to_string(),
        "{ if * a > * b { __amp_ref_result ! (a , 0u32) } else { __amp_ref_result ! (b , 1u32) } }"
    );
    // Anything else returned is refused (once), the first parameter
    // standing in.
    let mut body: syn::Block = syn::parse_quote!({
        if *a > 0 {
            return a;
        }
        &mut x
    });
    let mut errors = Vec::new();
    mark_ref_results(&mut body, &params, &mut errors);
    let messages: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(messages.len(), 1, "{messages:#?}");
    assert!(
        messages[0].starts_with(
            "the `&mut` result of a #[kernel] function is one of its `&mut` parameters"
        )
    );
    assert!(
        quote!(#body)
            .to_string()
            .contains("return __amp_ref_result ! (a , 0u32)")
    );
}

#[test]
fn a_use_after_the_target_is_bound_again_is_refused() {
    // Rust's `r` still refers to the first `x`; the kernel's reference
    // names its place, so after `let x` it would write the new `x`: the
    // use is refused (it gave 2 in `o[idx]` where Rust gives 5).
    let msg = "`r` refers to `x`, and `x` is bound again before this use: a reference in a kernel names its place, so it would refer to the new `x`; rename the new binding";
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let r = &mut x;
            let mut x = 5;
            *r = 2;
            o[idx] = x;
        }
    });
    assert_eq!(e, [msg]);
    // Bound again inside a nested block, by a `for` variable, by a match
    // arm, and the view of an element reference bound again.
    for body in [
        quote! { let mut x = 1; let r = &mut x; { let x = 3; *r += x; } o[idx] = x; },
        quote! { let mut x = 1; let r = &mut x; for x in 0..4 { *r += x; } o[idx] = x; },
        quote! { let mut x = 1; let r = &mut x; match idx[0] { x => { *r += x; } } o[idx] = x; },
    ] {
        let e = parse_errors(quote! { d, |idx: Index<1>| { #body } });
        assert_eq!(e, [msg], "{body}");
    }
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let r = &mut o[idx];
            let o = 5;
            *r = o;
        }
    });
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("`r` refers to `o`"), "{e:?}");
    // Uses before the new binding, and the binding's own initialiser,
    // still reach the first `x`.
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let r = &mut x;
            *r += 1;
            let x = *r + 10;
            o[idx] = x;
        }
    });
    let first = local_of(&k.body, "x");
    assert_ne!(first, 0);
}

/// A reference to a constant or a static (`let p = &FLAG;`) is refused:
/// C++ AMP kernels may read a static constant but not take its address,
/// and a kernel's reference names a place of the kernel.
#[test]
fn references_to_constants_and_statics_are_refused() {
    for init in [
        quote!(&FLAG),
        quote!(&mut FLAG),
        quote!(&consts::TABLE),
        quote!(&(LIMIT)),
    ] {
        let e = parse_errors(quote! {
            d, |idx: Index<1>| {
                let p = #init;
                d[idx] = *p;
            }
        });
        assert_eq!(e.len(), 1, "{init}: {e:#?}");
        assert!(
            e[0].starts_with("a reference in a kernel refers to a place of the kernel")
                && e[0].contains("not to a constant or static")
                && e[0].contains("let p = "),
            "{init}: {e:#?}"
        );
    }
}

/// A write through a shared reference (`let r = &a[i]; *r = 2;`) is
/// refused, once, as Rust refuses it (E0594); the rewrite would otherwise
/// write the place (found by the third conformance draw, case 22). Reads
/// through it, and writes through `&mut` ones, stay allowed.
#[test]
fn writes_through_shared_references_are_refused() {
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut k = 1;
            let r = &k;
            *r = 2;
        }
    });
    assert_eq!(
        e,
        [
            "cannot assign through `r`, a shared reference (`&`): bind it with `&mut` (`let r = &mut ..;`) to write the place it refers to"
        ]
    );
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut v = Float4::splat(0.0);
            let q = &v;
            q.x += 1.0;
        }
    });
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(e[0].starts_with("cannot assign through `q`"), "{e:#?}");
    // Reads through `&`, and writes through `&mut`, are accepted.
    kernel(quote! {
        d, |idx: Index<1>| {
            let mut k = 1;
            let r = &k;
            let m = &mut k;
            *m = *r + 1;
        }
    });
}

#[test]
fn a_reference_chosen_at_run_time_is_passed_as_a_choice_among_calls() {
    // `f(r)` with `r` chosen by `let`, and `f(if c { &mut a } else { r })`
    // written in the call: one call per place, under the same conditions.
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut y = 2;
            let mut z = 3;
            let r = if idx[0] > 4 { &mut x } else { &mut y };
            bump(if idx[0] == 0 { &mut z } else { r }, 7);
        }
    });
    // The outer choice is the written `if`; its `else` is the choice `r`
    // holds.
    let last = k.body.stmts.last().expect("a statement");
    let StmtKind::If(_, first, Some(second)) = &last.kind else {
        panic!("{:?}", last.kind)
    };
    fn passed(b: &Block) -> Vec<String> {
        let mut out = Vec::new();
        for s in &b.stmts {
            match &s.kind {
                StmtKind::Expr(Expr {
                    kind: ExprKind::CallFn(_, args),
                    ..
                }) => {
                    if let ExprKind::AddrOf(p) = &args[0].kind
                        && let Place::Local(_, name) = &**p
                    {
                        out.push(name.to_string());
                    }
                }
                StmtKind::If(_, t, e) => {
                    out.extend(passed(t));
                    if let Some(e) = e {
                        out.extend(passed(e));
                    }
                }
                _ => {}
            }
        }
        out
    }
    assert_eq!(passed(first), ["z"]);
    assert_eq!(passed(second), ["x", "y"]);
    // Arms that pass the same place are one call: `x` when `c` holds or
    // `r` holds `x`, else `y`.
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut y = 2;
            let c = idx[0] > 1;
            let r = if idx[0] > 4 { &mut x } else { &mut y };
            let q = &mut x;
            bump(if c { q } else { r }, 7);
        }
    });
    let last = k.body.stmts.last().expect("a statement");
    let StmtKind::If(cond, first, Some(second)) = &last.kind else {
        panic!("{:?}", last.kind)
    };
    assert!(
        matches!(&cond.kind, ExprKind::Binary(BinOp::Or, ..)),
        "{cond:?}"
    );
    assert_eq!(passed(first), ["x"]);
    assert_eq!(passed(second), ["y"]);
    // An argument with effects before a choice written in the call is
    // refused: the choice would be decided first.
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut y = 2;
            two(next(), if idx[0] > 4 { &mut x } else { &mut y });
        }
    });
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(
        e[0].contains("is decided before the call's other arguments"),
        "{e:#?}"
    );
    // More combinations than `MAX_CHOICE_CALLS` are refused.
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let mut x = 1;
            let mut y = 2;
            let c = idx[0] > 4;
            let r = if c { &mut x } else { &mut y };
            many(r, r, r, r, r, r, r);
        }
    });
    assert!(
        e.iter()
            .any(|m| m.contains("128 combinations (at most 64)")),
        "{e:#?}"
    );
}

#[test]
fn a_reference_declared_then_assigned_is_bound_at_its_assignment() {
    let mut rest: std::collections::VecDeque<syn::Stmt> = [
        stmt(quote!(let w = 1;)),
        stmt(quote!(r = &mut a[i];)),
        stmt(quote!(*r += 1;)),
    ]
    .into_iter()
    .collect();
    assert!(deferred_reference(&stmt(quote!(let r;)), &mut rest));
    assert_eq!(
        quote::ToTokens::to_token_stream(&rest[1]).to_string(),
        quote!(let r = &mut a[i];).to_string()
    );
    // With its type written, the `let` keeps it.
    let mut typed: std::collections::VecDeque<syn::Stmt> =
        [stmt(quote!(p = &o;))].into_iter().collect();
    assert!(deferred_reference(&stmt(quote!(let p: &S;)), &mut typed));
    assert_eq!(
        quote::ToTokens::to_token_stream(&typed[0]).to_string(),
        quote!(let p: &S = &o;).to_string()
    );
    // Not when the name is read first, assigned a value, or assigned in a
    // branch.
    for first in [
        quote!(let v = r;),
        quote!(r = 5;),
        quote!(if c {
            r = &a;
        } else {
            r = &b;
        }),
    ] {
        let mut rest: std::collections::VecDeque<syn::Stmt> =
            [stmt(first), stmt(quote!(r = &x;))].into_iter().collect();
        assert!(!deferred_reference(&stmt(quote!(let r;)), &mut rest));
    }
    // Through the front end: the kernel reads `x` through `p`.
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let x = 4;
            let p;
            p = &x;
            a[idx] = *p;
        }
    });
    let StmtKind::Assign(_, None, value) = &k.body.stmts.last().expect("a statement").kind else {
        panic!("{:?}", k.body.stmts.last())
    };
    assert_eq!(local(value), local_of(&k.body, "x"));
}
