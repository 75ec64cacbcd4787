//! Helpers of the stage tests (`parse/tests.rs`, `check_tests.rs`,
//! `refs_tests.rs`, `split_tests.rs`): Rust source through the real stages,
//! and the errors they report as plain messages.

use proc_macro2::{TokenStream, TokenTree};

use super::ast::*;
use super::{check, parse};

/// The messages of `e` (a combined error holds one per mistake).
pub(crate) fn messages(e: syn::Error) -> Vec<String> {
    e.into_iter().map(|e| e.to_string()).collect()
}

/// The parse stage of a `parallel_for_each!` invocation (`domain, |idx| ..`):
/// the kernel (if any) and the parse errors' messages.
pub(crate) fn parse_kernel(input: TokenStream) -> (Option<Kernel>, Vec<String>) {
    let input: parse::Input = syn::parse2(input).expect("macro input");
    let mut errors = parse::Errors::default();
    let k = parse::parse(input, &mut errors);
    let errors = errors.into_result().err().map(messages).unwrap_or_default();
    (k, errors)
}

/// A kernel the parse stage accepts (panics with the errors otherwise).
pub(crate) fn kernel(input: TokenStream) -> Kernel {
    match parse_kernel(input) {
        (Some(k), e) if e.is_empty() => k,
        (_, e) => panic!("the parse stage refused the kernel: {e:#?}"),
    }
}

/// The parse errors of a kernel (panics if there are none).
pub(crate) fn parse_errors(input: TokenStream) -> Vec<String> {
    let (_, e) = parse_kernel(input);
    assert!(!e.is_empty(), "the parse stage accepted the kernel");
    e
}

/// A kernel the parse stage accepts, through the check stage: the kernel
/// (its `tile_static` loads marked) and the check's messages.
pub(crate) fn checked(input: TokenStream) -> (Kernel, Vec<String>) {
    let k = kernel(input);
    let mut errors = parse::Errors::default();
    check::check(&k, &mut errors);
    let errors = errors.into_result().err().map(messages).unwrap_or_default();
    (k, errors)
}

/// The check stage's messages for a kernel the parse stage accepts.
pub(crate) fn check_errors(input: TokenStream) -> Vec<String> {
    checked(input).1
}

/// A `#[kernel]` function the parse stage accepts.
pub(crate) fn function(item: TokenStream) -> Function {
    let item: syn::ItemFn = syn::parse2(item).expect("a function");
    let mut errors = parse::Errors::default();
    let f = parse::parse_function(item, false, &mut errors).expect("a function");
    if let Err(e) = errors.into_result() {
        panic!("the parse stage refused the function: {:#?}", messages(e));
    }
    f
}

/// The messages of the `compile_error!`s in an expansion (the errors a
/// macro entry point reports), in order.
pub(crate) fn compile_errors(out: &TokenStream) -> Vec<String> {
    let mut found = Vec::new();
    let tokens: Vec<TokenTree> = out.clone().into_iter().collect();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Ident(id) if id == "compile_error" => {
                if let Some(TokenTree::Group(g)) = tokens.get(i + 2)
                    && let Ok(lit) = syn::parse2::<syn::LitStr>(g.stream())
                {
                    found.push(lit.value());
                }
            }
            TokenTree::Group(g) => found.extend(compile_errors(&g.stream())),
            _ => {}
        }
    }
    found
}

/// The errors `#[kernel]` reports for `item` (parse and check).
pub(crate) fn kernel_function_errors(item: TokenStream) -> Vec<String> {
    compile_errors(&super::kernel_function(TokenStream::new(), item))
}

/// Whether `messages` has exactly `n` messages, each containing `part`.
#[track_caller]
pub(crate) fn assert_all(messages: &[String], n: usize, part: &str) {
    assert_eq!(messages.len(), n, "{messages:#?}");
    for m in messages {
        assert!(m.contains(part), "`{part}` not in {m:?}");
    }
}

/// The statements of a block, by kind name (`Let`, `Assign`, `If`, ...),
/// for asserting on a block's shape.
pub(crate) fn kinds(b: &Block) -> Vec<&'static str> {
    b.stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Let { .. } => "Let",
            StmtKind::Assign(..) => "Assign",
            StmtKind::Expr(_) => "Expr",
            StmtKind::If(..) => "If",
            StmtKind::While(..) => "While",
            StmtKind::Loop(_) => "Loop",
            StmtKind::For { .. } => "For",
            StmtKind::Break => "Break",
            StmtKind::Continue => "Continue",
            StmtKind::Return(_) => "Return",
            StmtKind::NativeCheck(_) => "NativeCheck",
            StmtKind::Barrier(..) => "Barrier",
            StmtKind::TileStatic { .. } => "TileStatic",
        })
        .collect()
}

/// The initialiser of the `let` at `stmts[i]`, and the local's name.
#[track_caller]
pub(crate) fn let_init(b: &Block, i: usize) -> (String, &Expr) {
    match &b.stmts[i].kind {
        StmtKind::Let {
            name,
            init: Some(e),
            ..
        } => (name.to_string(), e),
        _ => panic!("statement {i} is not a `let` with a value"),
    }
}
