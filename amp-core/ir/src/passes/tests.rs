//! Unit tests of the passes: IR in, IR out (and the WGSL of the result,
//! validated by naga), with no GPU.

use super::visit;
use crate::Error;
use crate::ir::*;
use crate::{typeck, validate, wgsl};

fn sp() -> Span {
    Span::default()
}
fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, sp())
}
fn s(kind: StmtKind) -> Stmt {
    Stmt::new(kind, sp())
}
fn i(v: i64) -> Expr {
    super::fold::int_expr(v, Scalar::I32, sp())
}
fn u(v: u32) -> Expr {
    e(ExprKind::Lit(Lit::Int(u128::from(v), Some(Scalar::U32))))
}
fn f(v: f32) -> Expr {
    e(ExprKind::Lit(Lit::Float(f64::from(v), Some(Scalar::F32))))
}
fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
    e(ExprKind::Binary(op, Box::new(l), Box::new(r)))
}
fn local(n: u32) -> Expr {
    e(ExprKind::Local(LocalId(n)))
}
fn elem(a: Expr, k: Expr) -> Expr {
    e(ExprKind::ArrayElement(Box::new(a), Box::new(k)))
}
/// `idx[0]`: a value no pass can know.
fn dynamic() -> Expr {
    e(ExprKind::IndexComponent(
        Box::new(e(ExprKind::KernelIndex)),
        Box::new(i(0)),
    ))
}
fn let_(n: u32, name: &'static str, init: Expr) -> Stmt {
    s(StmtKind::Let {
        local: LocalId(n),
        name,
        ty: None,
        init: Some(init),
    })
}
fn for_(var: u32, start: Expr, end: Expr, body: Vec<Stmt>, unroll: bool) -> Stmt {
    s(StmtKind::For {
        var: LocalId(var),
        name: "k",
        start,
        end,
        inclusive: false,
        step: None,
        body: Block {
            stmts: body,
            tail: None,
        },
        unroll,
        reverse: false,
    })
}
/// `out[idx] = value;`
fn store(value: Expr) -> Stmt {
    s(StmtKind::Assign(
        Place::Element(CaptureId(0), vec![e(ExprKind::KernelIndex)]),
        None,
        value,
    ))
}
fn kernel(elem: Scalar, stmts: Vec<Stmt>) -> Kernel {
    Kernel {
        name: "passes_test".to_string(),
        rank: 1,
        captures: vec![(
            "out",
            CaptureKind::Container {
                elem: Type::Scalar(elem),
                rank: 1,
                writable: true,
            },
        )],
        body: Block { stmts, tail: None },
        span: sp(),
        tile: None,
    }
}

/// Types, optimises and writes `k`; the WGSL is validated by naga.
fn run(mut k: Kernel) -> crate::Result<(Kernel, String)> {
    crate::text::tests::assert_round_trip(&k);
    let mut types = typeck::check(&mut k)?;
    super::optimize(&mut k, &mut types)?;
    crate::text::tests::assert_round_trip(&k);
    // The WGSL of the whole pipeline; the kernel as the optimising passes
    // left it.
    let mut lowered = k.clone();
    super::legalize(&mut lowered, &mut types)?;
    let shader = wgsl::write(
        &lowered,
        &types,
        &super::instances::instances(&lowered)?,
        &[],
        false,
        false,
    )?;
    validate::validate(&shader.source, &k.name, &crate::Target::default())?;
    Ok((k, shader.source))
}

/// Types, optimises and lowers `k` to WGSL's semantics; returns the
/// lowered kernel and its WGSL (validated by naga).
fn legalized(mut k: Kernel) -> crate::Result<(Kernel, String)> {
    let mut types = typeck::check(&mut k)?;
    super::optimize(&mut k, &mut types)?;
    super::legalize(&mut k, &mut types)?;
    let shader = wgsl::write(
        &k,
        &types,
        &super::instances::instances(&k)?,
        &[],
        false,
        false,
    )?;
    validate::validate(&shader.source, &k.name, &crate::Target::default())?;
    Ok((k, shader.source))
}

fn stored(k: &Kernel) -> Vec<Expr> {
    let mut out = Vec::new();
    visit::walk_stmts(&k.body, &mut |st| {
        if let StmtKind::Assign(Place::Element(..), None, v) = &st.kind {
            out.push(v.clone());
        }
    });
    out
}

fn count_stmts(b: &Block, pred: &dyn Fn(&Stmt) -> bool) -> usize {
    let mut n = 0;
    visit::walk_stmts(b, &mut |st| n += usize::from(pred(st)));
    n
}

#[test]
fn integer_constants_fold_with_the_kernel_semantics() {
    let cases = [
        (bin(BinOp::Mul, bin(BinOp::Add, i(2), i(3)), i(4)), i(20)),
        (
            bin(BinOp::Add, i(i64::from(i32::MAX)), i(1)),
            i(i64::from(i32::MIN)),
        ),
        (bin(BinOp::Div, i(7), i(0)), i(7)),
        (bin(BinOp::Rem, i(7), i(0)), i(0)),
        (
            bin(BinOp::Div, i(i64::from(i32::MIN)), i(-1)),
            i(i64::from(i32::MIN)),
        ),
        (bin(BinOp::Rem, i(-7), i(2)), i(-1)),
        (bin(BinOp::Shr, i(-8), u(33)), i(-4)),
        (bin(BinOp::Shl, u(1), u(31)), u(1 << 31)),
        (bin(BinOp::Sub, u(0), u(1)), u(u32::MAX)),
    ];
    for (input, want) in cases {
        let (_, ty) = super::fold::int(&want).expect("an integer");
        let (k, _) = run(kernel(ty, vec![store(input.clone())])).expect("kernel");
        assert_eq!(stored(&k), vec![want], "{input:?}");
    }
}

#[test]
fn short_circuits_and_branches_on_constants_fold() {
    // `if 3 < 2 { out = 1 } else { out = 2 }` keeps the else side.
    let body = vec![s(StmtKind::If(
        bin(BinOp::Lt, i(3), i(2)),
        Block {
            stmts: vec![store(i(1))],
            tail: None,
        },
        Some(Block {
            stmts: vec![store(i(2))],
            tail: None,
        }),
    ))];
    let (k, _) = run(kernel(Scalar::I32, body)).expect("kernel");
    assert_eq!(k.body.stmts.len(), 1);
    assert_eq!(stored(&k), vec![i(2)]);
    // `false && (idx[0] > 0)` is false without the right side.
    let cond = bin(
        BinOp::And,
        e(ExprKind::Lit(Lit::Bool(false))),
        bin(BinOp::Gt, dynamic(), i(0)),
    );
    let mut folded = cond.clone();
    visit::expr_mut(&mut folded, &mut super::fold::expr);
    assert_eq!(folded, e(ExprKind::Lit(Lit::Bool(false))));
    // Identities: `x + 0`, `1 * x`, `x << 0` are `x`; `x - 0` too, not `0 - x`.
    for (input, want) in [
        (bin(BinOp::Add, dynamic(), i(0)), dynamic()),
        (bin(BinOp::Mul, i(1), dynamic()), dynamic()),
        (bin(BinOp::Shl, dynamic(), u(0)), dynamic()),
        (bin(BinOp::Sub, dynamic(), i(0)), dynamic()),
        (
            bin(BinOp::Sub, i(0), dynamic()),
            bin(BinOp::Sub, i(0), dynamic()),
        ),
    ] {
        let mut folded = input.clone();
        visit::expr_mut(&mut folded, &mut super::fold::expr);
        assert_eq!(folded, want, "{input:?}");
    }
}

#[test]
fn locals_bound_to_constants_are_propagated() {
    let body = vec![
        let_(1, "n", bin(BinOp::Mul, i(4), i(4))),
        store(bin(BinOp::Add, local(1), dynamic())),
    ];
    let (k, src) = run(kernel(Scalar::I32, body)).expect("kernel");
    assert_eq!(stored(&k), vec![bin(BinOp::Add, i(16), dynamic())]);
    assert!(!src.contains("var n"), "{src}");
}

#[test]
fn small_constant_loops_are_unrolled() {
    // let mut s = 0; for k in 0..4 { s += k * 2; } out[idx] = s;
    let body = vec![
        let_(1, "s", i(0)),
        for_(
            2,
            i(0),
            i(4),
            vec![s(StmtKind::Assign(
                Place::Local(LocalId(1)),
                Some(BinOp::Add),
                bin(BinOp::Mul, local(2), i(2)),
            ))],
            false,
        ),
        store(local(1)),
    ];
    let (k, src) = run(kernel(Scalar::I32, body)).expect("kernel");
    assert_eq!(
        count_stmts(&k.body, &|st| matches!(st.kind, StmtKind::For { .. })),
        0
    );
    let adds: Vec<Expr> = k
        .body
        .stmts
        .iter()
        .filter_map(|st| match &st.kind {
            StmtKind::Assign(Place::Local(_), Some(BinOp::Add), v) => Some(v.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(adds, vec![i(0), i(2), i(4), i(6)]);
    assert!(!src.contains("loop"), "{src}");
}

#[test]
fn large_loops_stay_loops_unless_marked() {
    let body = |unroll| {
        vec![
            let_(1, "s", i(0)),
            for_(
                2,
                i(0),
                i(100),
                vec![s(StmtKind::Assign(
                    Place::Local(LocalId(1)),
                    Some(BinOp::Add),
                    local(2),
                ))],
                unroll,
            ),
            store(local(1)),
        ]
    };
    let is_for = |st: &Stmt| matches!(st.kind, StmtKind::For { .. });
    let (k, _) = run(kernel(Scalar::I32, body(false))).expect("kernel");
    assert_eq!(count_stmts(&k.body, &is_for), 1);
    let (k, _) = run(kernel(Scalar::I32, body(true))).expect("kernel");
    assert_eq!(count_stmts(&k.body, &is_for), 0);
    assert_eq!(k.body.stmts.len(), 102);
}

#[test]
fn unroll_of_a_loop_that_cannot_be_is_an_error() {
    let dynamic_end = vec![for_(1, i(0), dynamic(), vec![store(i(1))], true)];
    let err = run(kernel(Scalar::I32, dynamic_end)).expect_err("dynamic range");
    assert!(
        matches!(&err, Error::Compile { message, .. } if message.contains("#[unroll]") && message.contains("not constant")),
        "{err}"
    );
    let with_break = vec![for_(
        1,
        i(0),
        i(4),
        vec![store(i(1)), s(StmtKind::Break)],
        true,
    )];
    let err = run(kernel(Scalar::I32, with_break.clone())).expect_err("break");
    assert!(err.to_string().contains("break"), "{err}");
    // Without the attribute, the same loop is simply kept.
    let mut kept = with_break;
    if let StmtKind::For { unroll, .. } = &mut kept[0].kind {
        *unroll = false;
    }
    let (k, _) = run(kernel(Scalar::I32, kept)).expect("kept");
    assert_eq!(
        count_stmts(&k.body, &|st| matches!(st.kind, StmtKind::For { .. })),
        1
    );
}

/// `let mut acc = [[0.0; 2]; 2]; for a in 0..2 { for b in 0..2 {
/// acc[a][b] += (a * 2 + b) as f32 } } out[idx] = acc[1][0] + acc[0][1];`
fn accumulator_kernel(index: Option<Expr>) -> Kernel {
    let zero_row = e(ExprKind::RepeatArray(Box::new(f(0.0)), 2));
    let inner = for_(
        3,
        i(0),
        i(2),
        vec![s(StmtKind::Assign(
            Place::ArrayElement(
                LocalId(1),
                vec![local(2), index.clone().unwrap_or(local(3))],
            ),
            Some(BinOp::Add),
            e(ExprKind::Cast(
                Box::new(bin(BinOp::Add, bin(BinOp::Mul, local(2), i(2)), local(3))),
                Scalar::F32,
            )),
        ))],
        false,
    );
    kernel(
        Scalar::F32,
        vec![
            s(StmtKind::Let {
                local: LocalId(1),
                name: "acc",
                ty: None,
                init: Some(e(ExprKind::RepeatArray(Box::new(zero_row), 2))),
            }),
            for_(2, i(0), i(2), vec![inner], false),
            store(bin(
                BinOp::Add,
                elem(elem(local(1), i(1)), i(0)),
                elem(elem(local(1), i(0)), i(1)),
            )),
        ],
    )
}

#[test]
fn local_arrays_with_constant_indices_become_scalars() {
    let (k, src) = run(accumulator_kernel(None)).expect("kernel");
    let arrays = count_stmts(
        &k.body,
        &|st| matches!(&st.kind, StmtKind::Let { init: Some(x), .. } if matches!(x.kind, ExprKind::RepeatArray(..) | ExprKind::MakeArray(_))),
    );
    assert_eq!(arrays, 0);
    assert!(!src.contains("array<f32, 2>"), "{src}");
    assert!(
        !src.contains("f32(amp_t"),
        "int-to-float casts of constants fold: {src}"
    );
    // Four element locals, each initialised to 0.
    assert_eq!(
        count_stmts(
            &k.body,
            &|st| matches!(&st.kind, StmtKind::Let { init: Some(x), .. } if *x == f(0.0))
        ),
        4
    );
    let [v] = stored(&k).try_into().expect("one store");
    assert!(
        matches!(v.kind, ExprKind::Binary(BinOp::Add, ref l, ref r) if matches!(l.kind, ExprKind::Local(_)) && matches!(r.kind, ExprKind::Local(_))),
        "{v:?}"
    );
}

#[test]
fn arrays_indexed_at_run_time_stay_arrays() {
    let (_, src) = run(accumulator_kernel(Some(bin(BinOp::Rem, dynamic(), i(2))))).expect("kernel");
    assert!(src.contains("array<array<f32, 2>, 2>"), "{src}");
}

/// Four nested loops of 16 trips: the outer ones unroll until the kernel's
/// budget is spent; the rest stay loops, and the result is still right.
#[test]
fn nested_small_loops_stop_at_the_budget() {
    let add = s(StmtKind::Assign(
        Place::Local(LocalId(1)),
        Some(BinOp::Add),
        i(1),
    ));
    let mut body = vec![add];
    for var in [5u32, 4, 3, 2] {
        body = vec![for_(var, i(0), i(16), body, false)];
    }
    let mut stmts = vec![let_(1, "s", i(0))];
    stmts.extend(body);
    stmts.push(store(local(1)));
    let (k, _) = run(kernel(Scalar::I32, stmts)).expect("kernel");
    let loops = count_stmts(&k.body, &|st| matches!(st.kind, StmtKind::For { .. }));
    assert!(loops > 0, "everything was unrolled");
    assert!(
        visit::size(&k.body) <= 2 * super::unroll::TOTAL_BUDGET,
        "{}",
        visit::size(&k.body)
    );
}

/// `(0..4).rev()` unrolls to the values 3, 2, 1, 0, in that order.
#[test]
fn reversed_loops_unroll_last_value_first() {
    let mut lp = for_(
        2,
        i(0),
        i(4),
        vec![s(StmtKind::Assign(
            Place::Local(LocalId(1)),
            None,
            bin(BinOp::Add, bin(BinOp::Mul, local(1), i(10)), local(2)),
        ))],
        false,
    );
    if let StmtKind::For { reverse, .. } = &mut lp.kind {
        *reverse = true;
    }
    let (k, _) = run(kernel(
        Scalar::I32,
        vec![let_(1, "s", i(0)), lp, store(local(1))],
    ))
    .expect("kernel");
    let added: Vec<Expr> = k
        .body
        .stmts
        .iter()
        .filter_map(|st| match &st.kind {
            StmtKind::Assign(Place::Local(_), None, e) => match &e.kind {
                ExprKind::Binary(BinOp::Add, _, r) => Some((**r).clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        added,
        vec![i(3), i(2), i(1)],
        "the last copy adds 0: folded away"
    );
}

/// The float methods WGSL lacks are lowered before type reconstruction:
/// no call of them is left, their literals take the operands' type (`f32`
/// here: an `f64` literal would fail naga's validation without the
/// feature), and the kernel validates.
#[test]
fn float_methods_wgsl_lacks_are_lowered() {
    let x = || elem_load();
    for (f, args) in [
        (Builtin::Hypot, vec![x(), f(2.0)]),
        (Builtin::Log, vec![x(), f(3.0)]),
        (Builtin::Ln1p, vec![x()]),
        (Builtin::ExpM1, vec![x()]),
        (Builtin::Cbrt, vec![x()]),
        (Builtin::Asinh, vec![x()]),
        (Builtin::Acosh, vec![x()]),
        (Builtin::Atanh, vec![x()]),
    ] {
        let (k, wgsl) =
            run(kernel(Scalar::F32, vec![store(e(ExprKind::Call(f, args)))])).expect("kernel");
        let mut left = false;
        let mut body = k.body.clone();
        visit::exprs_mut(&mut body, &mut |x| {
            left |= matches!(&x.kind, ExprKind::Call(g, _) if *g == f);
        });
        assert!(!left, "{f:?} was not lowered");
        assert!(!wgsl.contains("lf"), "{f:?}: an f64 literal in\n{wgsl}");
    }
}

/// `out[idx]`: an `f32` the passes cannot know.
fn elem_load() -> Expr {
    e(ExprKind::Load(CaptureId(0), vec![e(ExprKind::KernelIndex)]))
}

/// Every `Binary(op, ..)` of `b`, with its divisor (right operand).
fn binaries(b: &Block, op: BinOp) -> Vec<Expr> {
    let mut out = Vec::new();
    visit::exprs_mut(&mut b.clone(), &mut |x| {
        if let ExprKind::Binary(o, _, r) = &x.kind
            && *o == op
        {
            out.push((**r).clone());
        }
    });
    out
}

#[test]
fn integer_division_by_a_variable_gets_a_safe_divisor() {
    // out[idx] = idx[0] / (idx[0] - 1); out[idx] = idx[0] % (idx[0] - 1)
    for op in [BinOp::Div, BinOp::Rem] {
        let k = kernel(
            Scalar::I32,
            vec![store(bin(op, dynamic(), bin(BinOp::Sub, dynamic(), i(1))))],
        );
        let (k, wgsl) = legalized(k).expect("compiles");
        // The divisor is a local bound to `select(r, 1, r == 0 || (l == MIN
        // && r == -1))`, and `%` is `l - (l / d) * d`.
        let divs = binaries(&k.body, BinOp::Div);
        assert_eq!(divs.len(), 1, "{wgsl}");
        assert!(matches!(divs[0].kind, ExprKind::Local(_)), "{wgsl}");
        assert!(binaries(&k.body, BinOp::Rem).is_empty(), "{wgsl}");
        assert!(wgsl.contains("select("), "{wgsl}");
        assert!(wgsl.contains("(-2147483647i - 1i)"), "{wgsl}");
    }
}

#[test]
fn division_by_a_safe_constant_is_wgsl_division() {
    // A constant divisor other than 0 and -1 needs no guard; the `i32`
    // remainder is still written with `/` (GLSL leaves `%` of negative
    // operands undefined).
    let k = kernel(Scalar::I32, vec![store(bin(BinOp::Div, dynamic(), i(3)))]);
    let (_, wgsl) = legalized(k).expect("compiles");
    assert!(!wgsl.contains("select("), "{wgsl}");
    assert!(wgsl.contains(" / 3i)"), "{wgsl}");
    let k = kernel(Scalar::I32, vec![store(bin(BinOp::Rem, dynamic(), i(3)))]);
    let (k, wgsl) = legalized(k).expect("compiles");
    assert!(binaries(&k.body, BinOp::Rem).is_empty(), "{wgsl}");
    let store_line = wgsl.lines().find(|l| l.contains("out[")).expect("a store");
    assert!(!store_line.contains('%'), "{wgsl}");
    // u32 `%` by a constant is WGSL's.
    let k = kernel(
        Scalar::U32,
        vec![store(bin(
            BinOp::Rem,
            e(ExprKind::Cast(Box::new(dynamic()), Scalar::U32)),
            u(5),
        ))],
    );
    let (_, wgsl) = legalized(k).expect("compiles");
    assert!(wgsl.contains(" % 5u)"), "{wgsl}");
}

#[test]
fn float_inequality_is_the_negated_equality() {
    // out[idx] = if f(idx) != 0.5 { 1.0 } else { 0.0 }
    let x = e(ExprKind::Cast(Box::new(dynamic()), Scalar::F32));
    let cond = bin(BinOp::Ne, x, f(0.5));
    let value = e(ExprKind::If(
        Box::new(cond),
        Block {
            stmts: vec![],
            tail: Some(Box::new(f(1.0))),
        },
        Block {
            stmts: vec![],
            tail: Some(Box::new(f(0.0))),
        },
    ));
    let (k, wgsl) = legalized(kernel(Scalar::F32, vec![store(value)])).expect("compiles");
    assert!(binaries(&k.body, BinOp::Ne).is_empty(), "{wgsl}");
    assert!(!wgsl.contains("!="), "{wgsl}");
    assert!(wgsl.contains("(!("), "{wgsl}");
}

#[test]
fn float_remainder_is_fmod() {
    let x = e(ExprKind::Cast(Box::new(dynamic()), Scalar::F32));
    let (k, wgsl) =
        legalized(kernel(Scalar::F32, vec![store(bin(BinOp::Rem, x, f(0.7)))])).expect("compiles");
    assert!(binaries(&k.body, BinOp::Rem).is_empty(), "{wgsl}");
    assert!(wgsl.contains("amp_fmod_f32("), "{wgsl}");
}

#[test]
fn shift_amounts_are_taken_modulo_32() {
    // A constant amount is reduced; a run-time one masked.
    let (_, wgsl) = legalized(kernel(
        Scalar::I32,
        vec![store(bin(BinOp::Shl, dynamic(), i(35)))],
    ))
    .expect("compiles");
    assert!(wgsl.contains(" << 3u)"), "{wgsl}");
    let (_, wgsl) = legalized(kernel(
        Scalar::I32,
        vec![store(bin(BinOp::Shr, dynamic(), dynamic()))],
    ))
    .expect("compiles");
    assert!(wgsl.contains(" % 32u)"), "{wgsl}");
}

#[test]
fn bool_exclusive_or_is_inequality() {
    // out[idx] = if (idx[0] > 1) ^ (idx[0] > 2) { 1 } else { 0 }
    let cond = bin(
        BinOp::BitXor,
        bin(BinOp::Gt, dynamic(), i(1)),
        bin(BinOp::Gt, dynamic(), i(2)),
    );
    let value = e(ExprKind::If(
        Box::new(cond),
        Block {
            stmts: vec![],
            tail: Some(Box::new(i(1))),
        },
        Block {
            stmts: vec![],
            tail: Some(Box::new(i(0))),
        },
    ));
    let (k, wgsl) = legalized(kernel(Scalar::I32, vec![store(value)])).expect("compiles");
    assert!(binaries(&k.body, BinOp::BitXor).is_empty(), "{wgsl}");
    assert!(!wgsl.contains(" ^ "), "{wgsl}");
}

#[test]
fn compound_division_evaluates_its_value_first() {
    // let v = idx[0]; v /= { v += 1; v }; out[idx] = v
    // Rust reads `v` after the block has changed it: the lowered
    // assignment binds the value first, then reads the place.
    let block = e(ExprKind::Block(Block {
        stmts: vec![s(StmtKind::Assign(
            Place::Local(LocalId(1)),
            Some(BinOp::Add),
            i(1),
        ))],
        tail: Some(Box::new(local(1))),
    }));
    let k = kernel(
        Scalar::I32,
        vec![
            let_(1, "v", dynamic()),
            s(StmtKind::Assign(
                Place::Local(LocalId(1)),
                Some(BinOp::Div),
                block,
            )),
            store(local(1)),
        ],
    );
    let (k, wgsl) = legalized(k).expect("compiles");
    // No compound division is left; the value is bound before the
    // assignment that reads `v`.
    let compound = count_stmts(&k.body, &|st| {
        matches!(st.kind, StmtKind::Assign(_, Some(BinOp::Div), _))
    });
    assert_eq!(compound, 0, "{wgsl}");
    let kinds: Vec<&StmtKind> = k.body.stmts.iter().map(|st| &st.kind).collect();
    let bound = kinds
        .iter()
        .position(|st| matches!(st, StmtKind::Let { init: Some(x), .. } if matches!(x.kind, ExprKind::Block(_))))
        .expect("the value is bound to a local");
    let assigned = kinds
        .iter()
        .position(|st| matches!(st, StmtKind::Assign(Place::Local(LocalId(1)), None, _)))
        .expect("a plain assignment of v");
    assert!(bound < assigned, "{wgsl}");
}

#[test]
fn index_division_is_lowered_component_by_component() {
    // out[idx] = (idx / 2)[0] with idx: Index<1> divided by a run-time 0
    let zero = bin(BinOp::Sub, dynamic(), dynamic());
    let q = bin(BinOp::Div, e(ExprKind::KernelIndex), zero);
    let value = e(ExprKind::IndexComponent(Box::new(q), Box::new(i(0))));
    let (k, wgsl) = legalized(kernel(Scalar::I32, vec![store(value)])).expect("compiles");
    let divs = binaries(&k.body, BinOp::Div);
    assert_eq!(divs.len(), 1, "{wgsl}");
    assert!(matches!(divs[0].kind, ExprKind::Local(_)), "{wgsl}");
    assert!(wgsl.contains("select("), "{wgsl}");
}
