//! Unit tests of the expand stage's operator tables.

use super::native::{native_binary, native_op};
use super::*;

const ALL: [BinOp; 18] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
    BinOp::BitAnd,
    BinOp::BitOr,
    BinOp::BitXor,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::And,
    BinOp::Or,
];

/// Each operator has a native form of its own: an operator the native
/// form did not know used to become `||`.
#[test]
fn every_operator_has_its_own_native_form() {
    let native: Vec<String> = ALL
        .iter()
        .map(|op| match native_op(*op) {
            Ok(f) => f.to_string(),
            Err(token) => token.to_string(),
        })
        .collect();
    let distinct: std::collections::HashSet<&String> = native.iter().collect();
    assert_eq!(distinct.len(), ALL.len(), "{native:?}");
    let or = native.iter().filter(|n| *n == "||").count();
    assert_eq!(or, 1, "only `Or` is `||`: {native:?}");
    let variants: std::collections::HashSet<String> =
        ALL.iter().map(|op| variant(op).to_string()).collect();
    assert_eq!(variants.len(), ALL.len());
    let text = native_binary(&BinOp::Ge, quote!(a), quote!(b), Span::call_site()).to_string();
    assert_eq!(text, "(a >= b)");
}
