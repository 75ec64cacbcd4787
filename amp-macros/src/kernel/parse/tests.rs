//! Tests of the parse stage (the front end): Rust source through [`parse`]
//! and [`parse_function`] into the kernel AST, construct by construct, and
//! the refusals of what is outside the kernel subset, with their messages.

use proc_macro2::TokenStream;
use quote::quote;

use super::super::ast::*;
use super::super::test_support::{kernel, kinds, let_init, parse_errors, parse_kernel};

/// An untiled kernel of rank 1 around `body`.
fn body(body: TokenStream) -> Kernel {
    kernel(quote!(d, |i: Index<1>| { #body }))
}

/// A tiled kernel of rank 2 around `body`.
fn tiled(body: TokenStream) -> Kernel {
    kernel(quote!(d, |t: TiledIndex<2>| { #body }))
}

/// The parse errors of an untiled kernel around `body`.
fn refused(body: TokenStream) -> Vec<String> {
    parse_errors(quote!(d, |i: Index<1>| { #body }))
}

/// The value of the `let` at `stmts[k]` of a kernel's body.
#[track_caller]
fn init(k: &Kernel, at: usize) -> &Expr {
    let_init(&k.body, at).1
}

/// The only message of `errors`, which must start with `start`.
#[track_caller]
fn assert_one(errors: &[String], start: &str) {
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].starts_with(start),
        "{:?} does not start with {start:?}",
        errors[0]
    );
}

#[test]
fn names_resolve_to_locals_captures_constants_and_the_index() {
    let k = body(quote! {
        let x = 1;
        let y = x + a[i] + LIMIT + i32::MAX + b;
        let z = i[0] + a.extent()[0] + b;
    });
    // Captures in order of first use, each once; upper-case names are
    // constants (part of the kernel's key), paths too but not keyed.
    assert_eq!(k.captures, ["a", "b"]);
    assert_eq!(k.consts, ["LIMIT"]);
    assert!(!k.tiled);
    assert_eq!((k.index.to_string(), k.rank), ("i".to_string(), 1));
    // `((((x + a[i]) + LIMIT) + i32::MAX) + b)`, left-associated.
    let mut leaves = Vec::new();
    let mut e = init(&k, 1);
    while let ExprKind::Binary(BinOp::Add, l, r) = &e.kind {
        leaves.push(&r.kind);
        e = l;
    }
    leaves.push(&e.kind);
    leaves.reverse();
    assert!(matches!(leaves[0], ExprKind::Local(0, n) if n == "x"));
    assert!(
        matches!(leaves[1], ExprKind::Load(0, n, idx) if n == "a" && matches!(idx[0].kind, ExprKind::KernelIndex(_)))
    );
    assert!(matches!(leaves[2], ExprKind::Const(p) if p.is_ident("LIMIT")));
    assert!(matches!(leaves[3], ExprKind::Const(p) if p.segments.len() == 2));
    assert!(matches!(leaves[4], ExprKind::Capture(1, n) if n == "b"));
    let ExprKind::Binary(_, l, _) = &init(&k, 2).kind else {
        panic!()
    };
    let ExprKind::Binary(_, index, extent) = &l.kind else {
        panic!()
    };
    assert!(
        matches!(&index.kind, ExprKind::Element(base, _) if matches!(base.kind, ExprKind::KernelIndex(_)))
    );
    assert!(
        matches!(&extent.kind, ExprKind::Element(base, _) if matches!(base.kind, ExprKind::Extent(0, _)))
    );
}

#[test]
fn operators_map_to_the_irs_and_keep_rusts_precedence() {
    let table = [
        ("+", BinOp::Add),
        ("-", BinOp::Sub),
        ("*", BinOp::Mul),
        ("/", BinOp::Div),
        ("%", BinOp::Rem),
        ("&", BinOp::BitAnd),
        ("|", BinOp::BitOr),
        ("^", BinOp::BitXor),
        ("<<", BinOp::Shl),
        (">>", BinOp::Shr),
        ("==", BinOp::Eq),
        ("!=", BinOp::Ne),
        ("<", BinOp::Lt),
        ("<=", BinOp::Le),
        (">", BinOp::Gt),
        (">=", BinOp::Ge),
        ("&&", BinOp::And),
        ("||", BinOp::Or),
    ];
    for (op, want) in table {
        let src: TokenStream = format!("d, |i: Index<1>| {{ let x = 1; let v = x {op} x; }}")
            .parse()
            .expect("tokens");
        let k = kernel(src);
        match &init(&k, 1).kind {
            ExprKind::Binary(got, l, r) => {
                assert_eq!(*got, want, "{op}");
                assert!(matches!(
                    (&l.kind, &r.kind),
                    (ExprKind::Local(0, _), ExprKind::Local(0, _))
                ));
            }
            other => panic!("{op}: {other:?}"),
        }
    }
    // `-x * 2 + !b as i32`: `((-x) * 2) + ((!b) as i32)`.
    let k = body(quote! {
        let x = 1;
        let b = 3;
        let v = -x * 2 + !b as i32;
        let n = -5;
        let f = 2.5f32;
    });
    let ExprKind::Binary(BinOp::Add, l, r) = &init(&k, 2).kind else {
        panic!("{:?}", init(&k, 2))
    };
    assert!(
        matches!(&l.kind, ExprKind::Binary(BinOp::Mul, neg, _) if matches!(neg.kind, ExprKind::Unary(UnOp::Neg, _)))
    );
    assert!(
        matches!(&r.kind, ExprKind::Cast(not, Scalar::I32) if matches!(not.kind, ExprKind::Unary(UnOp::Not, _)))
    );
    assert!(matches!(
        &init(&k, 3).kind,
        ExprKind::Unary(UnOp::Neg, five) if matches!(five.kind, ExprKind::Lit(Lit::Int(5, None), _))
    ));
    assert!(
        matches!(init(&k, 4).kind, ExprKind::Lit(Lit::Float(v, Some(Scalar::F32)), _) if v == 2.5)
    );
}

#[test]
fn compound_assignments_are_statements_with_their_operator() {
    let table = [
        ("+=", BinOp::Add),
        ("-=", BinOp::Sub),
        ("*=", BinOp::Mul),
        ("/=", BinOp::Div),
        ("%=", BinOp::Rem),
        ("&=", BinOp::BitAnd),
        ("|=", BinOp::BitOr),
        ("^=", BinOp::BitXor),
        ("<<=", BinOp::Shl),
        (">>=", BinOp::Shr),
    ];
    for (op, want) in table {
        let src: TokenStream =
            format!("d, |i: Index<1>| {{ let mut x = 1; x {op} 2; o[i] {op} x; }}")
                .parse()
                .expect("tokens");
        let k = kernel(src);
        assert!(
            matches!(&k.body.stmts[1].kind, StmtKind::Assign(Place::Local(0, _), Some(got), _) if *got == want),
            "{op}: {:?}",
            k.body.stmts[1].kind
        );
        assert!(
            matches!(&k.body.stmts[2].kind, StmtKind::Assign(Place::Element(0, n, _), Some(got), _) if n == "o" && *got == want),
            "{op}: {:?}",
            k.body.stmts[2].kind
        );
    }
    let k = body(quote! {
        let mut p = [0; 4];
        p[2] = 7;
        p[1] += p[2];
    });
    assert!(
        matches!(&k.body.stmts[1].kind, StmtKind::Assign(Place::ArrayElement(0, _, idx), None, _) if idx.len() == 1)
    );
    assert!(matches!(
        &k.body.stmts[2].kind,
        StmtKind::Assign(Place::ArrayElement(0, _, _), Some(BinOp::Add), v)
            if matches!(&v.kind, ExprKind::Element(base, _) if matches!(base.kind, ExprKind::Local(0, _)))
    ));
    // A compound assignment is no value; a capture cannot be assigned.
    assert_one(
        &refused(quote! {
            let mut x = 1;
            let v = x += 1;
        }),
        "compound assignment is a statement in kernels",
    );
    assert_one(
        &refused(quote!(n = 3;)),
        "captured variables are copied into the kernel and cannot be assigned",
    );
}

#[test]
fn casts_to_kernel_scalars_and_the_usize_refusal() {
    let k = body(quote! {
        let x = 1;
        let a = x as f32;
        let b = x as u32;
        let c = x as f64;
        let d = (x as f32) as i32;
        let e = o[x as usize];
    });
    let to = |at| match &init(&k, at).kind {
        ExprKind::Cast(_, s) => *s,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        [to(1), to(2), to(3), to(4)],
        [Scalar::F32, Scalar::U32, Scalar::F64, Scalar::I32]
    );
    // `as usize` as a whole index is the Rust spelling of an index: gone.
    assert!(
        matches!(&init(&k, 5).kind, ExprKind::Load(_, _, idx) if matches!(idx[0].kind, ExprKind::Local(0, _)))
    );
    assert_one(
        &refused(quote! {
            let x = 1;
            let v = x as usize + 1;
        }),
        "`as usize` is only allowed as a whole index (`a[i as usize]`) or `step_by(n as usize)`",
    );
    assert_one(
        &refused(quote! {
            let x = 1;
            let v = x as u64;
        }),
        "kernels can cast to i32, u32, f32, f64, u8, i8, u16 and i16 only",
    );
}

#[test]
fn method_calls_are_built_ins() {
    let k = body(quote! {
        let x = 2.0f32;
        let v0 = x.sqrt();
        let v1 = x.abs().min(3.0);
        let v2 = x.mul_add(2.0, 1.0);
        let v3 = d.contains(&i);
        let v4 = f32::from_bits(7u32);
        let v5 = subgroup_add(x);
        let v6 = Float4::new(x, x, x, x);
        let v7 = Index::new([1, 2]);
        let v8 = v6.xy();
    });
    let call = |at| match &init(&k, at).kind {
        ExprKind::Call(b, name, args) => (*b, name.to_string(), args.len()),
        other => panic!("{other:?}"),
    };
    assert_eq!(call(1), (Builtin::Sqrt, "sqrt".into(), 1));
    assert_eq!(call(2), (Builtin::Min, "min".into(), 2));
    assert_eq!(call(3), (Builtin::MulAdd, "mul_add".into(), 3));
    // `contains(&i)` takes its index by reference, as on the host.
    assert_eq!(call(4), (Builtin::Contains, "contains".into(), 2));
    assert!(
        matches!(&init(&k, 4).kind, ExprKind::Call(_, _, args) if matches!(args[1].kind, ExprKind::KernelIndex(_)))
    );
    assert_eq!(call(5), (Builtin::FromBits, "from_bits".into(), 1));
    assert_eq!(call(6), (Builtin::SubgroupAdd, "subgroup_add".into(), 1));
    // `x.abs().min(3.0)`: the receiver is the first argument.
    assert!(
        matches!(&init(&k, 2).kind, ExprKind::Call(_, _, args) if matches!(args[0].kind, ExprKind::Call(Builtin::Abs, ..)))
    );
    assert!(
        matches!(init(&k, 7).kind, ExprKind::MakeVector(4, Scalar::F32, _, ref args) if args.len() == 4)
    );
    assert!(matches!(init(&k, 8).kind, ExprKind::MakeIndex(ref parts, false) if parts.len() == 2));
    assert!(matches!(&init(&k, 9).kind, ExprKind::Swizzle(_, m) if m == "xy"));
    // Other methods: not built-ins, or host code.
    assert_one(
        &refused(quote! {
            let x = 1.0f32;
            let v = x.frobnicate();
        }),
        "`frobnicate` is not available in kernels",
    );
    assert_one(
        &refused(quote!(let v = a.to_vec();)),
        "`to_vec` of a view or array is host code, not available inside kernels",
    );
}

#[test]
fn atomic_functions_are_atomic_ops_on_their_element() {
    let names = [
        ("atomic_fetch_add", AtomicOp::Add, false),
        ("atomic_fetch_sub", AtomicOp::Sub, false),
        ("atomic_fetch_and", AtomicOp::And, false),
        ("atomic_fetch_or", AtomicOp::Or, false),
        ("atomic_fetch_xor", AtomicOp::Xor, false),
        ("atomic_fetch_min", AtomicOp::Min, false),
        ("atomic_fetch_max", AtomicOp::Max, false),
        ("atomic_exchange", AtomicOp::Exchange, false),
        ("atomic_fetch_inc", AtomicOp::Add, true),
        ("atomic_fetch_dec", AtomicOp::Sub, true),
    ];
    for (name, op, implicit_one) in names {
        let args = if implicit_one { "" } else { ", 5" };
        let src: TokenStream = format!("d, |i: Index<1>| {{ let old = {name}(&h[i]{args}); }}")
            .parse()
            .expect("tokens");
        let k = kernel(src);
        match &init(&k, 0).kind {
            ExprKind::Atomic(a) => {
                assert_eq!((a.op, a.implicit_one), (op, implicit_one), "{name}");
                assert_eq!(a.args.len(), usize::from(!implicit_one), "{name}");
                assert!(
                    matches!(&a.target, Place::Element(0, n, _) if n == "h"),
                    "{name}"
                );
                assert!(a.expected.is_none());
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    // `atomic_compare_exchange(&a[i], &mut expected, value)`, and on a
    // `tile_static` scalar.
    let k = tiled(quote! {
        tile_static! { let count: u32; }
        let mut expected = 0u32;
        let ok = atomic_compare_exchange(&count, &mut expected, 1u32);
    });
    match &init(&k, 2).kind {
        ExprKind::Atomic(a) => {
            assert_eq!(a.op, AtomicOp::CompareExchange);
            assert!(
                matches!(&a.target, Place::TileElement(0, n, idx) if n == "count" && idx.len() == 1)
            );
            assert!(matches!(&a.expected, Some((1, n, _, _)) if n == "expected"));
            assert_eq!(a.args.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    assert_one(
        &refused(quote! {
            let mut x = 0;
            let old = atomic_fetch_add(&mut x, 1);
        }),
        "the first argument of `atomic_fetch_add` is the element it applies to, `&a[idx]`",
    );
    assert_one(
        &refused(quote!(let old = atomic_fetch_add(&h[i]);)),
        "`atomic_fetch_add` takes 2 arguments: `atomic_fetch_add(&a[idx], value)`",
    );
}

#[test]
fn the_tiled_index_fields_barriers_and_tile_static() {
    let k = tiled(quote! {
        tile_static! { let s: [[f32; 16]; 8]; }
        let g = t.global;
        let l = t.local[1];
        let a = t.tile;
        let b = t.tile_origin;
        let c = t.tile_extent[0];
        t.barrier.wait();
        t.barrier.wait_with_all_memory_fence();
        t.barrier.wait_with_global_memory_fence();
        t.barrier.wait_with_tile_static_memory_fence();
        s[l][0] = 1.0;
        let row = s[l];
    });
    assert!(k.tiled);
    assert_eq!(k.rank, 2);
    match &k.body.stmts[0].kind {
        StmtKind::TileStatic {
            name, elem, dims, ..
        } => {
            assert_eq!(name, "s");
            assert_eq!(quote!(#elem).to_string(), "f32");
            let dims: Vec<String> = dims.iter().map(|d| quote!(#d).to_string()).collect();
            assert_eq!(dims, ["8", "16"]);
        }
        other => panic!("{other:?}"),
    }
    let field = |e: &Expr| match &e.kind {
        ExprKind::Tiled(f, _) => *f,
        ExprKind::Element(base, _) => match &base.kind {
            ExprKind::Tiled(f, _) => *f,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    let fields: Vec<TiledField> = (1..=5).map(|at| field(init(&k, at))).collect();
    assert_eq!(
        fields,
        [
            TiledField::Global,
            TiledField::Local,
            TiledField::Tile,
            TiledField::TileOrigin,
            TiledField::TileExtent
        ]
    );
    let barriers: Vec<BarrierKind> = k
        .body
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Barrier(b, _) => Some(*b),
            _ => None,
        })
        .collect();
    assert_eq!(
        barriers,
        [
            BarrierKind::Wait,
            BarrierKind::AllMemory,
            BarrierKind::GlobalMemory,
            BarrierKind::TileStaticMemory
        ]
    );
    assert!(
        matches!(&k.body.stmts[10].kind, StmtKind::Assign(Place::TileElement(0, _, idx), None, _) if idx.len() == 2)
    );
    // `s[l]`: a row, with the length of the dimension left.
    assert!(
        matches!(&init(&k, 11).kind, ExprKind::TileLoad(0, _, idx, _, rest) if idx.len() == 1 && rest.len() == 1)
    );
    // Refusals: barriers outside tiled kernels, as values, other fields.
    assert_one(
        &refused(quote!(t.barrier.wait();)),
        "barriers exist only in tiled kernels",
    );
    let e = parse_errors(quote!(d, |t: TiledIndex<1>| {
        let v = t.barrier.wait();
    }));
    assert_one(
        &e,
        "a barrier is a statement of its own: `t.barrier.wait();`",
    );
    let e = parse_errors(quote!(d, |t: TiledIndex<1>| {
        let v = t.size;
    }));
    assert_one(
        &e,
        "the tiled index has the fields `global`, `local`, `tile`, `tile_origin`, `tile_extent`, and `barrier`",
    );
    assert_one(
        &refused(quote!(tile_static! { let s: [f32; 4]; })),
        "tile_static memory belongs to a tile: it needs a tiled kernel",
    );
}

#[test]
fn for_loops_over_ranges_with_steps_reversal_and_unroll() {
    let k = body(quote! {
        for a in 0..n {}
        for b in (1..=8).step_by(2) {}
        #[unroll]
        for c in (0..4).rev() {}
        for d in (0..16).step_by(k as usize).rev() {}
    });
    let loops: Vec<(String, bool, bool, bool, bool)> = k
        .body
        .stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::For {
                name,
                inclusive,
                step,
                unroll,
                reverse,
                ..
            } => (
                name.to_string(),
                *inclusive,
                step.is_some(),
                *unroll,
                *reverse,
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        loops,
        [
            ("a".to_string(), false, false, false, false),
            ("b".to_string(), true, true, false, false),
            ("c".to_string(), false, false, true, true),
            ("d".to_string(), false, true, false, true),
        ]
    );
    // The end is a capture; the step's `as usize` is stripped.
    let StmtKind::For { end, .. } = &k.body.stmts[0].kind else {
        panic!()
    };
    assert!(matches!(&end.kind, ExprKind::Capture(_, n) if n == "n"));
    let StmtKind::For {
        step: Some(step), ..
    } = &k.body.stmts[3].kind
    else {
        panic!()
    };
    assert!(matches!(&step.kind, ExprKind::Capture(_, n) if n == "k"));
    assert_one(
        &refused(quote!(for x in (0..4).step_by(0) {})),
        "`step_by(0)` never advances",
    );
    assert_one(
        &refused(quote!(for x in (0..4).rev().step_by(2) {})),
        "write `(a..b).step_by(s).rev()`",
    );
    assert_one(
        &refused(quote! {
            #[inline]
            for x in 0..4 {}
        }),
        "the only attribute a kernel `for` loop takes is `#[unroll]`",
    );
    assert_one(
        &refused(quote!(for x in v.iter() {})),
        "kernel `for` loops iterate over integer ranges only",
    );
    assert_one(
        &refused(quote!(for x in 0.0..1.0 {})),
        "kernel `for` loops iterate over integer ranges only (a float range",
    );
}

#[test]
fn match_is_lowered_to_an_if_chain() {
    let k = body(quote! {
        let x = i[0];
        match x {
            0 => o[i] = 1,
            1 | 2 => o[i] = 2,
            3..=5 => o[i] = 3,
            other => o[i] = other,
        }
        let v = match x {
            LIMIT => 1.0,
            _ => 0.0,
        };
    });
    // As a statement: `if true { let __amp_match1 = x; <native check>;
    // if x == 0 {..} else if x == 1 || x == 2 {..} else if ... }`.
    let StmtKind::If(always, block, None) = &k.body.stmts[1].kind else {
        panic!("{:?}", k.body.stmts[1].kind)
    };
    assert!(matches!(always.kind, ExprKind::Lit(Lit::Bool(true), _)));
    assert_eq!(kinds(block), ["Let", "NativeCheck", "If"]);
    assert_eq!(let_init(block, 0).0, "__amp_match1");
    let mut conds = Vec::new();
    let mut at = block;
    while let Some(Stmt {
        kind: StmtKind::If(c, _, Some(rest)),
        ..
    }) = at.stmts.last()
    {
        conds.push(match &c.kind {
            ExprKind::Binary(op, ..) => *op,
            other => panic!("{other:?}"),
        });
        at = rest;
    }
    // `0`: `==`; `1 | 2`: `||`; `3..=5`: `&&` of `>=` and `<=`.
    assert_eq!(conds, [BinOp::Eq, BinOp::Or, BinOp::And]);
    // The last arm binds `other` to the scrutinee's local.
    assert!(matches!(
        &at.stmts[0].kind,
        StmtKind::Assign(_, None, v) if matches!(&v.kind, ExprKind::Local(1, n) if n == "__amp_match1")
    ));
    // As a value: a block whose tail is an `if` expression; an upper-case
    // name is a constant compared with.
    let ExprKind::Block(value) = &init(&k, 2).kind else {
        panic!("{:?}", init(&k, 2))
    };
    assert!(matches!(
        value.tail.as_deref().map(|t| &t.kind),
        Some(ExprKind::If(c, _, _)) if matches!(&c.kind, ExprKind::Binary(BinOp::Eq, _, r) if matches!(r.kind, ExprKind::Const(_)))
    ));
    assert_one(
        &refused(quote! {
            let x = 1;
            match x {
                _ => o[i] = 0,
                1 => o[i] = 1,
            }
        }),
        "a kernel `match` arm that matches everything must be the last arm",
    );
    assert_one(
        &refused(quote! {
            let x = 1;
            match x {
                Some(y) => o[i] = y,
                _ => o[i] = 0,
            }
        }),
        "kernel `match` patterns are integer or bool literals, constants, ranges, `|`, a name or `_`",
    );
}

#[test]
fn lets_tuples_and_steps() {
    let k = body(quote! {
        let (a, mut b, _) = (1, 2.0f32, 3);
        b += 1.0;
        let mut j = Index::new([0]);
        let p = j.post_inc();
        let x: u32 = 4;
        let _ = x;
    });
    // `let (a, mut b, _) = e;`: a hidden local, then a field of it each.
    assert_eq!(kinds(&k.body)[..3], ["Let", "Let", "Let"]);
    assert_eq!(let_init(&k.body, 0).0, "__amp_tuple0");
    assert!(
        matches!(&init(&k, 2).kind, ExprKind::Field(base, syn::Member::Unnamed(ix)) if ix.index == 1 && matches!(base.kind, ExprKind::Local(0, _)))
    );
    assert!(matches!(
        &k.body.stmts[2].kind,
        StmtKind::Let { mutable: true, .. }
    ));
    // `j.post_inc()`: `{ let __amp_old = j; j += 1; __amp_old }`.
    let ExprKind::Block(step) = &init(&k, 5).kind else {
        panic!("{:?}", init(&k, 5))
    };
    assert_eq!(kinds(step), ["Let", "Assign"]);
    assert!(
        matches!(step.tail.as_deref().map(|t| &t.kind), Some(ExprKind::Local(_, n)) if n == "__amp_old")
    );
    // A type written: kept (and its kernel type); `let _ = e;` evaluates e.
    assert!(matches!(
        &k.body.stmts[6].kind,
        StmtKind::Let {
            ty: Some(Ty::Scalar(Scalar::U32)),
            native_ty: Some(_),
            ..
        }
    ));
    assert!(
        matches!(&k.body.stmts[7].kind, StmtKind::Expr(e) if matches!(e.kind, ExprKind::Local(..)))
    );
}

#[test]
fn what_kernels_cannot_do_is_refused_with_a_reason() {
    let cases = [
        (
            quote!(println!("{}", 1);),
            "macros are not allowed in kernels: accelerators cannot print, allocate or panic",
        ),
        (
            quote!(let v = Vec::new();),
            "heap allocation is not possible in kernels: accelerators have no heap",
        ),
        (
            quote!(let v = Box::new(1);),
            "heap allocation is not possible in kernels",
        ),
        (
            quote!(let f = g(|x: i32| x + 1);),
            "a closure in a kernel can only be called",
        ),
        (
            quote!(let s = "text";),
            "strings, characters and byte literals are not allowed in kernels",
        ),
        (
            quote!(unsafe {
                o[i] = 1;
            }),
            "`unsafe` is not allowed in kernels",
        ),
        (
            quote!(if let 1 = n {
                o[i] = 1;
            }),
            "`let` conditions (`if let`, `while let`) are not allowed in kernels",
        ),
        (
            quote!(
                fn helper() {}
            ),
            "items (fn, struct, static, use, ...) cannot be declared inside a kernel",
        ),
        (
            quote!('outer: loop {
                break;
            }),
            "loop labels are not supported in kernels",
        ),
        (quote!(let v = 5u64;), "`u64` is not available in kernels"),
        (
            quote!(return 3;),
            "a kernel returns nothing: `return;` ends this work item",
        ),
        (
            quote!(let v = 0..4;),
            "ranges are only allowed as the iterator of a kernel `for` loop",
        ),
    ];
    for (src, start) in cases {
        let e = refused(src.clone());
        assert!(
            e.iter().any(|m| m.starts_with(start)),
            "{src}: {e:#?} has no message starting {start:?}"
        );
    }
    // `as usize` outside an index (the message names the two places it is
    // allowed).
    let e = refused(quote! {
        let x = 3;
        o[i] = (x as usize) as i32;
    });
    assert_one(&e, "`as usize` is only allowed as a whole index");
    // Errors accumulate: one run reports every mistake.
    let e = refused(quote! {
        println!("a");
        let v = Vec::new();
        let w = 1u64;
    });
    assert_eq!(e.len(), 3, "{e:#?}");
}

#[test]
fn the_kernel_parameter_and_the_invocation_shape() {
    let one = |src: TokenStream, start: &str| {
        let (k, e) = parse_kernel(src);
        assert!(k.is_none());
        assert_one(&e, start);
    };
    one(
        quote!(d, |i: Index<1>, j: Index<1>| {}),
        "a kernel takes exactly one parameter, its index",
    );
    one(quote!(d, |i| {}), "the kernel parameter needs its type");
    one(
        quote!(d, |t: TiledIndex<4>| {}),
        "tiled kernels have rank 1, 2 or 3, as C++ AMP's",
    );
    one(
        quote!(d, |i: u32| {}),
        "the kernel parameter must be an `Index<N>`",
    );
    one(
        quote!(d, 5),
        "the last argument of parallel_for_each! must be the kernel",
    );
    one(
        quote!(v, d, e, |i: Index<1>| {}),
        "parallel_for_each! takes an optional accelerator view, a compute domain and a kernel closure",
    );
    // A rank named by a const generic parameter, and an accelerator view.
    let k = kernel(quote!(&view, d, |i: Index<N>| {}));
    assert_eq!(k.rank, 0);
    assert!(k.rank_path.as_ref().is_some_and(|p| p.is_ident("N")));
    assert!(k.view.is_some());
}

#[test]
fn kernel_functions_parameters_results_and_refusals() {
    let f = super::super::test_support::function(quote! {
        fn scale<T: Float>(x: T, k: f32, v: &ArrayView<'_, f32, 2>, t: &TiledIndex<2>, out: &mut f32) -> T {
            *out = k;
            x
        }
    });
    assert_eq!(f.type_params, ["Float"]);
    let params: Vec<String> = f.params.iter().map(|(_, n, _)| n.to_string()).collect();
    assert_eq!(params, ["x", "k", "out"]);
    assert!(matches!(f.params[0].2, Ty::Param(0)));
    assert!(matches!(f.params[2].2, Ty::Ref(_)));
    assert_eq!(
        f.tiled.as_ref().map(|t| t.to_string()).as_deref(),
        Some("t")
    );
    assert!(matches!(
        f.bindings.as_slice(),
        [
            (
                2,
                FnBinding::View {
                    rank: 2,
                    writable: true,
                    ..
                }
            ),
            (3, FnBinding::Tiled(2))
        ]
    ));
    assert!(matches!(f.ret, Some(Ty::Param(0))));
    // `*out = k`: the caller's local; the tail is the result.
    assert!(matches!(
        &f.body.stmts[0].kind,
        StmtKind::Assign(Place::Local(..), None, _)
    ));
    assert!(f.body.tail.is_some());
    let errors = |item: TokenStream| super::super::test_support::kernel_function_errors(item);
    assert_one(
        &errors(quote! {
            async fn f(x: i32) -> i32 { x }
        }),
        "a #[kernel] function cannot be `async`",
    );
    assert_one(
        &errors(quote! {
            fn f(x: i32) -> i32 { x + y }
        }),
        "`y` is not a parameter, local or constant of this #[kernel] function: kernel functions cannot capture variables",
    );
    assert_one(
        &errors(quote! {
            fn f<T: Clone>(x: T) -> T { x }
        }),
        "a #[kernel] function's type parameter needs exactly one of the bounds",
    );
    // `T: Element`: any element type, moved (the generic Transpose).
    let g = super::super::test_support::function(quote! {
        fn pass_on<T: Element>(x: T, v: &ArrayView<'_, T, 1>) -> T { x }
    });
    assert_eq!(g.type_params, ["Element"]);
    // `p.x` of a `&mut` parameter reads the caller's value (auto-deref),
    // as `(*p).x` does; the bare `p` as a value stays refused.
    let h = super::super::test_support::function(quote! {
        fn read_field(p: &mut Float4) -> f32 { p.x }
    });
    let tail = h.body.tail.as_deref().expect("a tail");
    assert!(
        matches!(&tail.kind, ExprKind::Field(base, _) if matches!(base.kind, ExprKind::Local(..))),
        "{tail:?}"
    );
    assert_one(
        &errors(quote! {
            fn f(p: &mut f32) -> f32 { p }
        }),
        "`p` is a `&mut` parameter: read and write the caller's value as `*p`",
    );
}

/// A captured `TiledExtent`'s members (`te.tile_count()`, ...) are
/// captures of their own, computed on the host once per launch however
/// often the kernel reads them and named in errors as written;
/// `te.extent()` stays the extent of the capture `te`; `Extent::<N>::rank()`
/// is its rank argument, and without one it is one error with the form.
#[test]
fn tiled_extent_members_are_derived_captures_and_rank_is_its_argument() {
    let k = body(quote! {
        let a = te.tile_size();
        let b = te.tile_size() + te.tile_count()[0] as u32;
        let e = te.extent();
        let r = Extent::<3>::rank();
        let s = Index::<N>::rank();
    });
    let names: Vec<String> = k.captures.iter().map(|c| c.to_string()).collect();
    assert_eq!(names, ["__amp_te_tile_size", "__amp_te_tile_count", "te"]);
    let derived: Vec<&str> = k.derived.iter().map(|(_, _, t)| t.as_str()).collect();
    assert_eq!(derived, ["te.tile_size()", "te.tile_count()"]);
    assert!(matches!(init(&k, 0).kind, ExprKind::Capture(0, _)));
    assert!(matches!(init(&k, 2).kind, ExprKind::Extent(2, _)));
    assert!(matches!(
        init(&k, 3).kind,
        ExprKind::Lit(Lit::Int(3, None), _)
    ));
    assert!(matches!(&init(&k, 4).kind, ExprKind::Const(p) if p.is_ident("N")));
    // A local of the same name is not a captured `TiledExtent`.
    assert_one(
        &refused(quote! {
            let te = 1;
            let x = te.tile_size();
        }),
        "`tile_size` is not available in kernels",
    );
    assert_one(
        &refused(quote! {
            let x = Extent::rank();
        }),
        "`Extent::rank()` in a kernel names its rank",
    );
}

/// `value.m(..)` on a local whose struct type the kernel shows (an
/// annotation or a struct literal) or on `self` calls that type's
/// `#[kernel]` method through its receiver shim, the receiver's place
/// passed by `&mut`; on a local of unknown type it is one error with the
/// forms that work. `#[kernel]` methods take `self` in all three forms.
#[test]
fn methods_are_called_through_their_types_receiver_shim() {
    let k = body(quote! {
        let mut p = Particle { x: 1.0 };
        let q: Particle = p;
        p.step(2.0);
        let e = q.energy();
    });
    let call = match &k.body.stmts[2].kind {
        StmtKind::Expr(e) => e,
        other => panic!("{other:?}"),
    };
    match &call.kind {
        ExprKind::CallFn(path, args) => {
            let path = quote!(#path).to_string().replace(' ', "");
            assert_eq!(path, "Particle::__amp_step_recv");
            assert!(matches!(args[0].kind, ExprKind::AddrOf(_)), "{:?}", args[0]);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(&init(&k, 3).kind, ExprKind::CallFn(p, _) if quote!(#p).to_string().contains("__amp_energy_recv"))
    );
    assert_one(
        &refused(quote! {
            let q = make();
            let e = q.energy();
        }),
        "`energy` is not available in kernels: kernels may call the math functions WGSL provides",
    );
    let f = super::super::test_support::function(quote! {
        fn step(&mut self, dt: f32) { self.x += dt; }
    });
    assert!(f.method);
    assert_eq!(f.receiver, Some(Receiver::RefMut));
    assert!(matches!(f.params[0].2, Ty::Ref(_)));
    let g = super::super::test_support::function(quote! {
        fn energy(self) -> f32 { self.x }
    });
    assert_eq!(g.receiver, Some(Receiver::Value));
    // A captured struct's method: the error says to copy it into a typed
    // local.
    let e = refused(quote! {
        let e = cap.energy();
    });
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(e[0].contains("copy it into a local whose type the kernel shows first: `let v: Type = cap; v.energy(..)`"), "{e:#?}");
    // A value of a type parameter calls the built-ins of its bound.
    let h = super::super::test_support::function(quote! {
        fn smaller<T: Number>(a: T, b: T) -> T { a.min(b) }
    });
    let tail = h.body.tail.as_deref().expect("a tail");
    assert!(matches!(tail.kind, ExprKind::Call(..)), "{tail:?}");
}

/// A view over a local array made in the kernel (`ArrayView::new_mut(e,
/// &mut a)`, with or without `.unwrap()`/`?`) indexes the array at the
/// linearized position; a read-only one (`new`) refuses writes, and the
/// view is not a value.
#[test]
fn views_over_local_arrays_index_the_array() {
    let k = body(quote! {
        let mut a = [0; 6];
        let v = ArrayView::new_mut([2, 3], &mut a).unwrap();
        v[[1, 2]] = 4;
        let r = ArrayView::new([6], &a)?;
        let x = r[5];
    });
    match &k.body.stmts[2].kind {
        StmtKind::Assign(Place::ArrayElement(_, name, idx), None, _) => {
            assert_eq!(name.to_string(), "a");
            assert!(
                matches!(idx[0].kind, ExprKind::Call(Builtin::Linearize, ..)),
                "{idx:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_one(
        &refused(quote! {
            let mut a = [0; 6];
            let r = ArrayView::new([6], &a);
            r[[1]] = 2;
        }),
        "`r` views a local array read-only",
    );
    assert_one(
        &refused(quote! {
            let mut a = [0; 6];
            let r = ArrayView::new([6], &a);
            let s = (r, 1);
        }),
        "a view over a local array made in a kernel is used element by element",
    );
}

/// `Index::default()` and `Extent::default()` in a kernel name their rank
/// as a literal (`Index::<3>::default()`, zeros); without it, one error
/// with the form to write.
#[test]
fn default_geometry_names_its_rank() {
    let k = kernel(quote! {
        d, |idx: Index<1>| {
            let z = Index::<3>::default();
            let e = Extent::<2>::default();
        }
    });
    let (_, z) = let_init(&k.body, 0);
    assert!(
        matches!(&z.kind, ExprKind::MakeIndex(parts, false) if parts.len() == 3),
        "{:?}",
        z.kind
    );
    let (_, e) = let_init(&k.body, 1);
    assert!(
        matches!(&e.kind, ExprKind::MakeIndex(parts, true) if parts.len() == 2),
        "{:?}",
        e.kind
    );
    let errors = parse_errors(quote! {
        d, |idx: Index<1>| {
            let z: Index<3> = Index::default();
        }
    });
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].contains("`Index::<3>::default()`"), "{errors:#?}");
}

/// `Option` and `Result` in a kernel are one mistake however often they
/// show (the result type, `Some(..)`, `None`): one error, with the form to
/// write instead, and never the capture advice a name like `None` would
/// otherwise get.
#[test]
fn option_and_result_are_one_error_each() {
    let errors = super::super::test_support::kernel_function_errors(quote! {
        fn checked_div(a: i32, b: i32) -> Option<i32> {
            if b == 0 { None } else { Some(a / b) }
        }
    });
    assert_one(&errors, "kernels have no `Option`");
    assert!(errors[0].contains("`-> (i32, bool)`"), "{errors:#?}");
    let errors = refused(quote! {
        let x = if i[0] > 0 { Option::Some(1) } else { None };
        let y: Result<i32, i32> = Ok(2);
        let z = Err(3);
    });
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(
        errors[0].starts_with("kernels have no `Option`"),
        "{errors:#?}"
    );
    assert!(
        errors[1].starts_with("kernels have no `Result`"),
        "{errors:#?}"
    );
}

/// A `#[kernel]` function calling itself is refused where it calls itself
/// (accelerators cannot recurse); calling another function of the same
/// shape is not.
#[test]
fn direct_recursion_is_refused() {
    let errors = super::super::test_support::kernel_function_errors(quote! {
        fn factorial(n: u32) -> u32 {
            if n <= 1 { 1 } else { n * factorial(n - 1) }
        }
    });
    assert_one(&errors, "`factorial` calls itself: kernels cannot recurse");
    let f = super::super::test_support::function(quote! {
        fn factorial(n: u32) -> u32 {
            if n <= 1 { 1 } else { n * product_below(n) }
        }
    });
    assert!(f.body.tail.is_some());
}

/// `let b = Box::new(x); *b`: one error, the allocation's.
#[test]
fn a_dereferenced_allocation_is_one_error() {
    let errors = super::super::test_support::kernel_function_errors(quote! {
        fn boxed(x: f32) -> f32 {
            let b = Box::new(x);
            *b
        }
    });
    // The use repeats the same error at the same place (rustc shows it
    // once); no other error.
    assert!(!errors.is_empty());
    assert!(
        errors
            .iter()
            .all(|e| e.starts_with("heap allocation is not possible in kernels")),
        "{errors:#?}"
    );
}

/// `let mut p: Option<&T> = None;` (a nullable pointer, C++ `T* p =
/// nullptr;`) gives the `Option` error, not a panic of the macro (found by
/// the third conformance draw, case 17).
#[test]
fn an_option_of_a_reference_is_one_error() {
    let e = parse_errors(quote! {
        d, |idx: Index<1>| {
            let o2 = 1;
            let mut ps: Option<&i32> = None;
            ps = Some(&o2);
        }
    });
    assert!(e[0].contains("Option"), "{e:#?}");
}

#[test]
fn a_container_indexed_by_the_tiled_index_reads_its_global_index() {
    // C++ AMP's `av[tidx]`: a `tiled_index` converts to its global index.
    let k = tiled(quote!(let x = a[t]; b[t] = x;));
    assert!(
        matches!(&init(&k, 0).kind, ExprKind::Load(_, a, idx)
            if a == "a" && matches!(&idx[0].kind, ExprKind::Tiled(TiledField::Global, _))),
        "{:?}",
        init(&k, 0)
    );
    assert!(matches!(
        &k.body.stmts[1].kind,
        StmtKind::Assign(Place::Element(_, b, idx), None, _)
            if b == "b" && matches!(&idx[0].kind, ExprKind::Tiled(TiledField::Global, _))
    ));
    // Elsewhere the tiled index is still used through its fields.
    let e = parse_errors(quote!(d, |t: TiledIndex<1>| {
        let x = t;
    }));
    assert_one(&e, "use the fields of the tiled index");
}

#[test]
fn a_final_match_of_a_function_without_a_result_is_a_statement() {
    // `2 => clear(a),`: the arm's value is `()`, so the `match` (and the
    // `if` around it) are statements, not values.
    let f = super::super::test_support::function(quote! {
        fn f(a: &mut i32, k: i32) {
            if k > 0 {
                match k {
                    2 => clear(a),
                    _ => bump(a),
                }
            } else {
                bump(a)
            }
        }
    });
    assert!(f.body.tail.is_none(), "{:?}", f.body.tail);
    let StmtKind::If(_, then, _) = &f.body.stmts[0].kind else {
        panic!("{:?}", f.body.stmts[0].kind)
    };
    assert!(then.tail.is_none(), "{:?}", then.tail);
    assert_eq!(kinds(then), ["If"]);
}

#[test]
fn inc_of_a_struct_typed_local_is_its_method() {
    // `rpa.inc()` with `rpa: &mut S1` is `S1`'s `#[kernel]` method (through
    // its receiver shim); `i.inc()` of an `Index` local is the step.
    let f = super::super::test_support::function(quote! {
        fn f(rpa: &mut S1, k: i32) {
            rpa.inc();
            let mut i = Index::new([k]);
            i.inc();
        }
    });
    assert!(
        matches!(&f.body.stmts[0].kind, StmtKind::Expr(Expr { kind: ExprKind::CallFn(p, _), .. })
            if p.path.segments.first().is_some_and(|s| s.ident == "S1")),
        "{:?}",
        f.body.stmts[0].kind
    );
    assert!(
        matches!(
            &f.body.stmts[2].kind,
            StmtKind::Expr(Expr {
                kind: ExprKind::Block(_),
                ..
            })
        ),
        "{:?}",
        f.body.stmts[2].kind
    );
    // A reference to a container's element at the tiled index binds the
    // global index.
    let k = tiled(quote!(let r = &mut a[t]; *r += 1;));
    let (name, value) = let_init(&k.body, 0);
    assert!(name.starts_with("__amp_i"), "{name}");
    assert!(
        matches!(&value.kind, ExprKind::Tiled(TiledField::Global, _)),
        "{value:?}"
    );
}

#[test]
fn calling_a_value_is_refused_in_the_users_terms() {
    // Was rustc's "cannot find module or crate `pred`" (the call taken
    // for one of a `#[kernel]` function named `pred`).
    let e = refused(quote!(let pred = 3; let x = pred(1);));
    assert_one(&e, "`pred` is a value, not a #[kernel] function");
}
