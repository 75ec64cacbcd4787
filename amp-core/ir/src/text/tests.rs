//! Round trips of the text form: a kernel printed, parsed and printed again
//! gives the same text, and the parsed kernel is the same tree (spans and
//! function identities aside).

use std::sync::Arc;

use super::*;

fn sp() -> Span {
    Span::default()
}
fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, sp())
}
fn s(kind: StmtKind) -> Stmt {
    Stmt::new(kind, sp())
}
fn b(x: Expr) -> Box<Expr> {
    Box::new(x)
}
fn int(v: u128, t: Option<Scalar>) -> Expr {
    e(ExprKind::Lit(Lit::Int(v, t)))
}
fn i(v: u128) -> Expr {
    int(v, Some(Scalar::I32))
}
fn fl(v: f64, t: Option<Scalar>) -> Expr {
    e(ExprKind::Lit(Lit::Float(v, t)))
}
fn local(n: u32) -> Expr {
    e(ExprKind::Local(LocalId(n)))
}
fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
    e(ExprKind::Binary(op, b(l), b(r)))
}
fn block(stmts: Vec<Stmt>, tail: Option<Expr>) -> Block {
    Block {
        stmts,
        tail: tail.map(Box::new),
    }
}
fn let_(n: u32, name: &'static str, ty: Option<Type>, init: Option<Expr>) -> Stmt {
    s(StmtKind::Let {
        local: LocalId(n),
        name,
        ty,
        init,
    })
}
fn assign(p: Place, op: Option<BinOp>, v: Expr) -> Stmt {
    s(StmtKind::Assign(p, op, v))
}
fn out(v: Expr) -> Stmt {
    assign(
        Place::Element(CaptureId(0), vec![e(ExprKind::KernelIndex)]),
        None,
        v,
    )
}
fn view(elem: Type, rank: u32, writable: bool) -> CaptureKind {
    CaptureKind::Container {
        elem,
        rank,
        writable,
    }
}
fn f32t() -> Type {
    Type::Scalar(Scalar::F32)
}
fn i32t() -> Type {
    Type::Scalar(Scalar::I32)
}
fn kernel(name: &str, captures: Vec<(&'static str, CaptureKind)>, stmts: Vec<Stmt>) -> Kernel {
    Kernel {
        name: name.to_string(),
        rank: 1,
        captures,
        body: block(stmts, None),
        span: sp(),
        tile: None,
    }
}

/// `text` without spans and function identities (which a parse changes),
/// and without an expression's type after its span (the parser makes
/// untyped expressions).
fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['s', 'F']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let skip = [("span: Span {", '}'), ("FnRef(", ')')]
            .into_iter()
            .find(|(open, _)| rest.starts_with(open));
        match skip {
            Some((open, close)) => {
                out.push_str(open);
                rest = &rest[rest.find(close).expect("closed")..];
                if open.starts_with("span")
                    && let Some(ty) = rest.strip_prefix("}, ty: ")
                {
                    out.push('}');
                    rest = &ty[value_len(ty)..];
                }
            }
            None => {
                out.push_str(&rest[..1]);
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The length of the `Debug` value at the start of `text`: up to a `,`,
/// `}` or `)` outside brackets (the spaces before it excluded).
fn value_len(text: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' | ',' if depth == 0 => return text[..i].trim_end().len(),
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    text.len()
}

/// The functions a kernel calls, in the printer's order.
fn functions_of(k: &Kernel) -> Vec<Function> {
    let mut p = Printer::default();
    p.kernel(k);
    let mut i = 0;
    let mut out = Vec::new();
    while i < p.fns.len() {
        let f = p.fns[i].function();
        p.function(&f, "");
        out.push(f);
        i += 1;
    }
    out
}

/// Prints `k`, parses the text, prints again: the same text and tree.
pub(crate) fn assert_round_trip(k: &Kernel) {
    let text = k.to_string();
    let parsed = parse_kernel(&text).unwrap_or_else(|err| panic!("{err}\n{text}"));
    assert_eq!(parsed.to_string(), text);
    // The text form has no expression types (type reconstruction writes
    // them): compare the trees without them.
    let untyped = |b: &Block| {
        let mut b = b.clone();
        crate::passes::visit::exprs_mut(&mut b, &mut |e| e.ty = None);
        b
    };
    assert_eq!(
        scrub(&format!("{:?}", untyped(&parsed.body))),
        scrub(&format!("{:?}", untyped(&k.body))),
        "{text}"
    );
    assert_eq!(parsed.captures, k.captures, "{text}");
    assert_eq!(
        (&parsed.name, parsed.rank, &parsed.tile),
        (&k.name, k.rank, &k.tile)
    );
    let (a, b) = (functions_of(k), functions_of(&parsed));
    assert_eq!(a.len(), b.len(), "{text}");
    for (a, b) in a.iter().zip(&b) {
        assert_eq!(scrub(&format!("{a:?}")), scrub(&format!("{b:?}")), "{text}");
    }
}

#[test]
fn scrub_drops_spans_function_identities_and_expression_types() {
    let text = "Expr { kind: Local(LocalId(1)), span: Span { file: \"a\", line: 1, column: 2 }, ty: Some(Struct(StructType { name: \"P\", fields: [] })) }, FnRef(0x1f)";
    assert_eq!(
        scrub(text),
        "Expr { kind: Local(LocalId(1)), span: Span {} }, FnRef()"
    );
}

#[test]
fn literals_and_operators() {
    let mut stmts = Vec::new();
    let lits = [
        int(0, None),
        int(7, Some(Scalar::I32)),
        int(4_294_967_295, Some(Scalar::U32)),
        int(u128::MAX, None),
        int(3, Some(Scalar::F32)),
        fl(1.5, None),
        fl(0.1, Some(Scalar::F64)),
        fl(f64::from(0.1f32), Some(Scalar::F32)),
        fl(-2.25, Some(Scalar::F32)),
        fl(-0.0, Some(Scalar::F32)),
        fl(0.0, None),
        fl(1e300, None),
        fl(-1e-300, Some(Scalar::F64)),
        fl(f64::INFINITY, Some(Scalar::F32)),
        fl(f64::NEG_INFINITY, None),
        fl(f64::NAN, Some(Scalar::F16)),
        fl(f64::NAN, None),
        fl(123_456_789.0, Some(Scalar::F16)),
        e(ExprKind::Lit(Lit::Bool(true))),
        e(ExprKind::Lit(Lit::Bool(false))),
    ];
    for (k, l) in lits.into_iter().enumerate() {
        stmts.push(let_(k as u32, "lit", None, Some(l)));
    }
    for (k, (op, _)) in BINOPS.iter().enumerate() {
        stmts.push(let_(
            100 + k as u32,
            "op",
            None,
            Some(bin(*op, local(1), bin(*op, local(2), local(3)))),
        ));
    }
    let neg = |x| e(ExprKind::Unary(UnOp::Neg, b(x)));
    let not = |x| e(ExprKind::Unary(UnOp::Not, b(x)));
    for x in [
        neg(i(3)),
        neg(neg(i(3))),
        neg(fl(1.5, Some(Scalar::F32))),
        neg(fl(-1.5, Some(Scalar::F32))),
        neg(fl(f64::INFINITY, None)),
        not(not(local(1))),
        not(bin(BinOp::And, local(1), local(2))),
        neg(e(ExprKind::Cast(b(local(1)), Scalar::F32))),
        e(ExprKind::Cast(b(neg(local(1))), Scalar::U32)),
        e(ExprKind::Cast(b(fl(-1.5, None)), Scalar::I32)),
        e(ExprKind::Cast(
            b(e(ExprKind::Cast(b(local(1)), Scalar::F64))),
            Scalar::F16,
        )),
        neg(e(ExprKind::Field(b(local(4)), Member::Named("x")))),
        e(ExprKind::Field(b(neg(local(4))), Member::Named("x"))),
        e(ExprKind::Field(
            b(fl(-1.0, Some(Scalar::F32))),
            Member::Named("x"),
        )),
        e(ExprKind::Field(
            b(fl(1.0, Some(Scalar::F32))),
            Member::Index(0),
        )),
        e(ExprKind::Field(
            b(e(ExprKind::Field(b(local(5)), Member::Index(1)))),
            Member::Index(0),
        )),
    ] {
        stmts.push(let_(200, "u", None, Some(x)));
    }
    assert_round_trip(&kernel("literals", vec![], stmts));
}

#[test]
fn containers_indices_and_arrays() {
    let idx = || e(ExprKind::KernelIndex);
    let stmts = vec![
        let_(
            1,
            "a",
            Some(Type::Array(Box::new(Type::Array(Box::new(f32t()), 2)), 3)),
            Some(e(ExprKind::RepeatArray(
                b(e(ExprKind::RepeatArray(b(fl(0.0, Some(Scalar::F32))), 2))),
                3,
            ))),
        ),
        let_(2, "b", Some(Type::Array(Box::new(i32t()), 0)), None),
        let_(3, "c", None, None),
        let_(
            4,
            "m",
            None,
            Some(e(ExprKind::MakeArray(vec![i(1), i(2), local(3)]))),
        ),
        let_(5, "empty", None, Some(e(ExprKind::MakeArray(vec![])))),
        let_(
            6,
            "i",
            Some(Type::Index(2)),
            Some(e(ExprKind::MakeIndex(vec![
                e(ExprKind::IndexComponent(b(idx()), b(i(1)))),
                e(ExprKind::IndexComponent(
                    b(e(ExprKind::Capture(CaptureId(2)))),
                    b(i(0)),
                )),
            ]))),
        ),
        let_(
            7,
            "l",
            None,
            Some(bin(
                BinOp::Add,
                e(ExprKind::Load(CaptureId(0), vec![idx()])),
                e(ExprKind::Load(CaptureId(1), vec![i(1), local(3)])),
            )),
        ),
        let_(8, "z", None, Some(e(ExprKind::Load(CaptureId(0), vec![])))),
        let_(
            9,
            "el",
            None,
            Some(e(ExprKind::ArrayElement(
                b(e(ExprKind::ArrayElement(b(local(1)), b(i(2))))),
                b(local(3)),
            ))),
        ),
        let_(
            10,
            "cap",
            None,
            Some(e(ExprKind::ArrayElement(
                b(e(ExprKind::Capture(CaptureId(2)))),
                b(i(1)),
            ))),
        ),
        let_(
            11,
            "x",
            None,
            Some(e(ExprKind::ArrayElement(
                b(e(ExprKind::Extent(CaptureId(1)))),
                b(i(0)),
            ))),
        ),
        let_(12, "n", None, Some(e(ExprKind::Capture(CaptureId(3))))),
        let_(
            13,
            "ii",
            None,
            Some(e(ExprKind::IndexComponent(b(local(6)), b(local(3))))),
        ),
        assign(
            Place::ArrayElement(LocalId(1), vec![i(0), i(1)]),
            None,
            fl(2.0, Some(Scalar::F32)),
        ),
        assign(
            Place::Element(CaptureId(1), vec![i(0), i(1)]),
            Some(BinOp::Add),
            e(ExprKind::Load(CaptureId(0), vec![idx()])),
        ),
        assign(Place::Local(LocalId(3)), None, i(4)),
        out(local(7)),
    ];
    let k = Kernel {
        rank: 2,
        ..kernel(
            "containers",
            vec![
                ("out", view(f32t(), 1, true)),
                ("grid", view(f32t(), 2, false)),
                ("origin", CaptureKind::Index(2)),
                ("n", CaptureKind::Scalar(Scalar::I32)),
                ("v", CaptureKind::Vector(4, Scalar::F32)),
            ],
            stmts,
        )
    };
    assert_round_trip(&k);
}

#[test]
fn control_flow() {
    let stmts = vec![
        let_(1, "s", None, Some(i(0))),
        s(StmtKind::If(
            bin(BinOp::Lt, local(1), i(3)),
            block(vec![assign(Place::Local(LocalId(1)), None, i(1))], None),
            None,
        )),
        s(StmtKind::If(
            e(ExprKind::Lit(Lit::Bool(true))),
            block(vec![], None),
            Some(block(
                vec![s(StmtKind::If(
                    local(2),
                    block(vec![s(StmtKind::Return(None))], None),
                    Some(block(vec![], None)),
                ))],
                None,
            )),
        )),
        s(StmtKind::While(
            bin(BinOp::Ne, local(1), i(10)),
            block(
                vec![
                    assign(Place::Local(LocalId(1)), Some(BinOp::Add), i(1)),
                    s(StmtKind::Continue),
                ],
                None,
            ),
        )),
        s(StmtKind::Loop(block(vec![s(StmtKind::Break)], None))),
        s(StmtKind::For {
            var: LocalId(3),
            name: "k",
            start: i(0),
            end: i(4),
            inclusive: false,
            step: None,
            body: block(vec![], None),
            unroll: false,
            reverse: false,
        }),
        s(StmtKind::For {
            var: LocalId(4),
            name: "j",
            start: bin(BinOp::Add, local(1), i(1)),
            end: e(ExprKind::IndexComponent(
                b(e(ExprKind::KernelIndex)),
                b(i(0)),
            )),
            inclusive: true,
            step: Some(i(2)),
            body: block(
                vec![assign(Place::Local(LocalId(1)), Some(BinOp::Mul), local(4))],
                None,
            ),
            unroll: true,
            reverse: true,
        }),
        s(StmtKind::Expr(e(ExprKind::If(
            b(local(2)),
            block(vec![], Some(i(1))),
            block(vec![], Some(i(2))),
        )))),
        s(StmtKind::Expr(e(ExprKind::Block(block(
            vec![let_(5, "t", None, Some(i(1)))],
            Some(local(5)),
        ))))),
        let_(
            6,
            "v",
            None,
            Some(bin(
                BinOp::Add,
                e(ExprKind::If(
                    b(local(2)),
                    block(
                        vec![let_(7, "w", None, Some(i(3)))],
                        Some(e(ExprKind::Block(block(vec![], Some(local(7)))))),
                    ),
                    block(vec![], Some(i(4))),
                )),
                e(ExprKind::Field(
                    b(e(ExprKind::If(
                        b(local(2)),
                        block(vec![], Some(local(8))),
                        block(vec![], Some(local(8))),
                    ))),
                    Member::Named("x"),
                )),
            )),
        ),
        out(local(1)),
    ];
    assert_round_trip(&kernel(
        "control",
        vec![("out", view(i32t(), 1, true))],
        stmts,
    ));
}

#[test]
fn compound_assignments_of_every_operator() {
    let stmts = BINOPS
        .iter()
        .map(|(op, _)| assign(Place::Local(LocalId(1)), Some(*op), local(2)))
        .collect();
    assert_round_trip(&kernel("compound", vec![], stmts));
}

#[test]
fn every_builtin() {
    let stmts = BUILTINS
        .iter()
        .map(|(f, _)| {
            s(StmtKind::Expr(e(ExprKind::Call(
                *f,
                vec![local(1), fl(2.0, None)],
            ))))
        })
        .chain([s(StmtKind::Expr(e(ExprKind::Call(
            Builtin::SubgroupSize,
            vec![],
        ))))])
        .collect();
    assert_round_trip(&kernel("builtins", vec![], stmts));
}

fn body_struct() -> Type {
    let inner = StructType {
        name: "Inner".to_string(),
        fields: vec![("v".to_string(), Type::Vector(3, Scalar::F32))],
        declarations: String::new(),
    };
    let inner = StructType {
        declarations: default_declarations(&inner),
        ..inner
    };
    let outer = StructType {
        name: "Body".to_string(),
        fields: vec![
            ("pos".to_string(), Type::Vector(4, Scalar::F32)),
            ("mass".to_string(), f32t()),
            (
                "parts".to_string(),
                Type::Array(Box::new(Type::Struct(Arc::new(inner))), 2),
            ),
        ],
        declarations: String::new(),
    };
    Type::Struct(Arc::new(StructType {
        declarations: default_declarations(&outer),
        ..outer
    }))
}

#[test]
fn vectors_structs_and_tuples() {
    let body = body_struct();
    let odd = Type::Struct(Arc::new(StructType {
        name: "Odd".to_string(),
        fields: vec![("a b".to_string(), Type::Scalar(Scalar::U32))],
        declarations: "struct Odd {\n    @size(16) a_b: u32,\n}\n\"quoted\"\t".to_string(),
    }));
    let stmts = vec![
        let_(
            1,
            "v",
            Some(Type::Vector(4, Scalar::F32)),
            Some(e(ExprKind::MakeVector(
                4,
                Scalar::F32,
                vec![local(2), local(2), local(2), fl(1.0, Some(Scalar::F32))],
            ))),
        ),
        let_(
            2,
            "splat",
            None,
            Some(e(ExprKind::MakeVector(2, Scalar::F64, vec![fl(0.5, None)]))),
        ),
        let_(
            3,
            "p",
            Some(body.clone()),
            Some(e(ExprKind::MakeStruct(
                body.clone(),
                vec![
                    ("pos", local(1)),
                    ("mass", fl(1.0, Some(Scalar::F32))),
                    ("parts", local(9)),
                ],
            ))),
        ),
        let_(
            4,
            "o",
            Some(odd.clone()),
            Some(e(ExprKind::MakeStruct(odd, vec![("a b", int(1, None))]))),
        ),
        let_(5, "unit", None, Some(e(ExprKind::MakeTuple(vec![])))),
        let_(6, "one", None, Some(e(ExprKind::MakeTuple(vec![i(1)])))),
        let_(
            7,
            "two",
            Some(Type::Tuple(vec![
                i32t(),
                Type::Tuple(vec![f32t()]),
                Type::Tuple(vec![]),
            ])),
            Some(e(ExprKind::MakeTuple(vec![i(1), local(6), local(5)]))),
        ),
        let_(
            8,
            "x",
            None,
            Some(e(ExprKind::Field(
                b(e(ExprKind::Field(b(local(3)), Member::Named("pos")))),
                Member::Named("x"),
            ))),
        ),
        let_(
            10,
            "q",
            None,
            Some(e(ExprKind::Field(
                b(e(ExprKind::Load(CaptureId(1), vec![i(0)]))),
                Member::Named("mass"),
            ))),
        ),
        let_(
            11,
            "r",
            None,
            Some(e(ExprKind::Field(
                b(e(ExprKind::Capture(CaptureId(2)))),
                Member::Named("mass"),
            ))),
        ),
        assign(
            Place::Field(
                Box::new(Place::Field(
                    Box::new(Place::Element(CaptureId(1), vec![e(ExprKind::KernelIndex)])),
                    Member::Named("pos"),
                )),
                Member::Named("y"),
            ),
            Some(BinOp::Sub),
            local(8),
        ),
        assign(
            Place::Field(Box::new(Place::Local(LocalId(7))), Member::Index(0)),
            None,
            i(3),
        ),
        assign(
            Place::Field(
                Box::new(Place::ArrayElement(LocalId(12), vec![i(0)])),
                Member::Named("weird-name"),
            ),
            None,
            i(3),
        ),
    ];
    assert_round_trip(&kernel(
        "structs \"and\"\ntuples",
        vec![
            ("out", view(f32t(), 1, true)),
            ("bodies", view(body.clone(), 1, true)),
            ("the body", CaptureKind::Struct(body)),
        ],
        stmts,
    ));
}

#[test]
fn tiles_barriers_and_atomics() {
    let tile = LocalId(1);
    let mut stmts = vec![
        s(StmtKind::TileStatic {
            local: tile,
            name: "cache",
            ty: Type::Array(Box::new(Type::Array(Box::new(i32t()), 16)), 16),
        }),
        assign(
            Place::TileElement(
                tile,
                vec![
                    e(ExprKind::IndexComponent(
                        b(e(ExprKind::Tiled(TiledField::Local))),
                        b(i(0)),
                    )),
                    i(1),
                ],
            ),
            None,
            e(ExprKind::Load(
                CaptureId(0),
                vec![e(ExprKind::Tiled(TiledField::Global))],
            )),
        ),
    ];
    for (k, _) in BARRIERS {
        stmts.push(s(StmtKind::Barrier(*k)));
    }
    for (k, (f, _)) in TILED.iter().enumerate() {
        stmts.push(let_(10 + k as u32, "t", None, Some(e(ExprKind::Tiled(*f)))));
    }
    stmts.push(let_(
        20,
        "u",
        None,
        Some(e(ExprKind::Call(
            Builtin::UniformLoad,
            vec![e(ExprKind::TileLoad(tile, vec![i(0), i(0)]))],
        ))),
    ));
    for (op, _) in ATOMICS {
        let args = if *op == AtomicOp::CompareExchange {
            vec![i(1), i(2)]
        } else {
            vec![i(1)]
        };
        stmts.push(s(StmtKind::Expr(e(ExprKind::Atomic(
            *op,
            Box::new(Place::Element(CaptureId(0), vec![e(ExprKind::KernelIndex)])),
            args.clone(),
        )))));
        stmts.push(let_(
            21,
            "old",
            None,
            Some(e(ExprKind::Atomic(
                *op,
                Box::new(Place::TileElement(tile, vec![i(0), i(1)])),
                args,
            ))),
        ));
    }
    let k = Kernel {
        rank: 2,
        tile: Some(vec![16, 16]),
        ..kernel("tiled", vec![("data", view(i32t(), 2, true))], stmts)
    };
    assert_round_trip(&k);
}

fn twice() -> Function {
    // fn twice<T: Number>(x: T, v: &ArrayView<f32, 1>, t: &TiledIndex<1>,
    //     acc: &mut T) -> T { *acc += x; t.barrier.wait(); x + x }
    Function {
        name: "twice",
        type_params: vec![Bound::Number, Bound::Float, Bound::Integer, Bound::Element],
        params: vec![
            (LocalId(0), "x", Type::Param(0)),
            (LocalId(1), "acc", Type::Ref(Box::new(Type::Param(0)))),
        ],
        ret: Some(Type::Param(0)),
        bindings: vec![
            (
                1,
                ParamBinding::View {
                    elem: f32t(),
                    rank: 1,
                    writable: false,
                },
            ),
            (2, ParamBinding::Tiled(1)),
            (
                4,
                ParamBinding::View {
                    elem: i32t(),
                    rank: 1,
                    writable: true,
                },
            ),
        ],
        body: block(
            vec![
                assign(Place::Local(LocalId(1)), Some(BinOp::Add), local(0)),
                s(StmtKind::Barrier(BarrierKind::Wait)),
                assign(
                    Place::Element(CaptureId::param(1), vec![i(0)]),
                    None,
                    e(ExprKind::Load(CaptureId::param(0), vec![i(0)])),
                ),
                s(StmtKind::Expr(e(ExprKind::CallFn(
                    FnRef::new(helper),
                    vec![],
                    vec![],
                )))),
            ],
            Some(bin(BinOp::Add, local(0), local(0))),
        ),
        span: sp(),
    }
}

fn helper() -> Function {
    Function {
        name: "helper",
        type_params: vec![],
        params: vec![],
        ret: None,
        bindings: vec![],
        body: block(vec![s(StmtKind::Return(None))], None),
        span: sp(),
    }
}

fn countdown() -> Function {
    // fn countdown(n: i32) -> i32 { if n > 0 { return countdown(n - 1); } 0 }
    Function {
        name: "countdown",
        type_params: vec![],
        params: vec![(LocalId(0), "n", i32t())],
        ret: Some(i32t()),
        bindings: vec![],
        body: block(
            vec![s(StmtKind::If(
                bin(BinOp::Gt, local(0), i(0)),
                block(
                    vec![s(StmtKind::Return(Some(e(ExprKind::CallFn(
                        FnRef::new(countdown),
                        vec![bin(BinOp::Sub, local(0), i(1))],
                        vec![],
                    )))))],
                    None,
                ),
                None,
            ))],
            Some(i(0)),
        ),
        span: sp(),
    }
}

#[test]
fn function_calls() {
    // Two different functions named `helper`, told apart as `helper#1`
    // and `helper#2` (in the order the printer meets them).
    let other_helper = FnRef::shared(Function {
        params: vec![(LocalId(0), "", f32t())],
        ..helper()
    });
    let stmts = vec![
        let_(1, "a", None, Some(i(1))),
        let_(
            2,
            "b",
            None,
            Some(e(ExprKind::CallFn(
                FnRef::new(twice),
                vec![
                    local(1),
                    e(ExprKind::Capture(CaptureId(1))),
                    e(ExprKind::KernelIndex),
                    e(ExprKind::AddrOf(Box::new(Place::Local(LocalId(1))))),
                    e(ExprKind::Capture(CaptureId(0))),
                ],
                vec![
                    i32t(),
                    Type::Vector(4, Scalar::F32),
                    Type::Array(Box::new(Type::Vector(2, Scalar::U32)), 2),
                ],
            ))),
        ),
        s(StmtKind::Expr(e(ExprKind::CallFn(
            other_helper,
            vec![e(ExprKind::AddrOf(Box::new(Place::ArrayElement(
                LocalId(3),
                vec![i(0)],
            ))))],
            vec![],
        )))),
        let_(
            4,
            "c",
            None,
            Some(e(ExprKind::CallFn(
                FnRef::new(countdown),
                vec![local(2)],
                vec![],
            ))),
        ),
        out(local(4)),
    ];
    let k = Kernel {
        tile: Some(vec![64]),
        ..kernel(
            "calls",
            vec![
                ("out", view(i32t(), 1, true)),
                ("input", view(f32t(), 1, false)),
            ],
            stmts,
        )
    };
    assert_round_trip(&k);
    let text = k.to_string();
    assert!(text.contains("fn helper#1(%0 \"\": f32)"), "{text}");
    assert!(text.contains("fn helper#2()"), "{text}");
    // A function alone: itself first, then what it calls.
    for f in [twice(), countdown()] {
        let text = f.to_string();
        let parsed = parse_function(&text).unwrap_or_else(|err| panic!("{err}\n{text}"));
        assert_eq!(parsed.to_string(), text);
        assert_eq!(scrub(&format!("{parsed:?}")), scrub(&format!("{f:?}")));
    }
    assert_eq!(
        countdown().to_string().matches("fn countdown").count(),
        1,
        "{}",
        countdown()
    );
}

#[test]
fn the_text_reads_as_documented() {
    let k = kernel(
        "double",
        vec![("c", view(i32t(), 1, true))],
        vec![
            let_(1, "n", Some(i32t()), Some(i(2))),
            s(StmtKind::For {
                var: LocalId(2),
                name: "k",
                start: i(0),
                end: i(4),
                inclusive: false,
                step: None,
                body: block(
                    vec![assign(
                        Place::Local(LocalId(1)),
                        Some(BinOp::Add),
                        e(ExprKind::Unary(UnOp::Neg, b(local(2)))),
                    )],
                    None,
                ),
                unroll: true,
                reverse: false,
            }),
            out(bin(
                BinOp::Mul,
                local(1),
                e(ExprKind::Load(CaptureId(0), vec![e(ExprKind::KernelIndex)])),
            )),
        ],
    );
    assert_eq!(
        k.to_string(),
        "kernel \"double\" rank 1 (
    @0 c: mut view<i32, 1>,
) {
    let %1 n: i32 = 2i32;
    #[unroll] for %2 k in 0i32..4i32 {
        %1 += -%2;
    }
    @0[idx] = (%1 * @0[idx]);
}
"
    );
    assert_round_trip(&k);
}

#[test]
fn the_parser_accepts_rust_precedence_and_comments() {
    let text = "// a comment
kernel k rank 1 () {
    let %1 a = 1 + 2 * 3 - -4 as f32 << 1u32; // trailing comment
    let %2 b = %1 == 3 && !%1 < 2 || true;
    let %3 c = %1 as u32 as f32;
}
";
    let k = parse_kernel(text).expect("parses");
    assert_eq!(
        k.to_string(),
        "kernel \"k\" rank 1 () {
    let %1 a = (((1 + (2 * 3)) - (-4 as f32)) << 1u32);
    let %2 b = (((%1 == 3) && (!%1 < 2)) || true);
    let %3 c = ((%1 as u32) as f32);
}
"
    );
}

#[test]
fn parse_errors_name_line_and_column() {
    let cases = [
        (
            "kernel \"k\" rank 1 () {\n    let %1 x = ;\n}",
            2,
            16,
            "expected an expression",
        ),
        (
            "kernel \"k\" rank 1 () {\n    @0 = 1;\n}",
            2,
            8,
            "expected `;`",
        ),
        ("kernel \"k\" rank 1 (@1 x: i32) {}", 1, 20, "expected `@0`"),
        (
            "kernel \"k\" rank 1 () {\n  let %1 x: Foo;\n}",
            2,
            13,
            "unknown type `Foo`",
        ),
        (
            "kernel \"k\" rank 1 () {\n  call nope();\n}",
            2,
            8,
            "no function `nope`",
        ),
        (
            "kernel \"k\" rank 1 () {\n  let %1 x = 3q;\n}",
            2,
            16,
            "not a literal suffix",
        ),
        (
            "kernel \"k\" rank 1 () { frobnicate(1); }",
            1,
            24,
            "unknown word `frobnicate`",
        ),
        ("fn f() {}", 1, 10, "found 0"),
        (
            "kernel \"k\" rank 1 () { let %1 x = \"open; }",
            1,
            43,
            "not closed",
        ),
    ];
    for (text, line, column, message) in cases {
        let err = parse_kernel(text).expect_err(text);
        assert!(
            err.line == line && err.column == column && err.message.contains(message),
            "{text}: {err}"
        );
    }
    let err = parse_function("kernel \"k\" rank 1 () {}").expect_err("a kernel");
    assert!(err.message.contains("no kernel"), "{err}");
}

#[test]
fn parsed_spans_are_text_positions() {
    let k = parse_kernel_in(
        "kernel \"k\" rank 1 () {\n    let %1 x = (1 + 2);\n}",
        "t.ir",
    )
    .expect("parses");
    let StmtKind::Let { init: Some(x), .. } = &k.body.stmts[0].kind else {
        panic!("a let")
    };
    assert_eq!(k.body.stmts[0].span.to_string(), "t.ir:2:5");
    // A binary operation is where its left operand is.
    assert_eq!(x.span.to_string(), "t.ir:2:17");
}
