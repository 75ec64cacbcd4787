//! Expressions: operators by precedence, casts, unary operators,
//! postfix operations and atoms (literals, calls, constructors, ...).

use super::super::lex::Tok;
use super::super::{ATOMICS, BINOPS, BUILTINS, ParseError, TILED, scalar_named};
use super::{PResult, Parser};
use crate::ir::*;

/// Binary operators by token, with their precedence (higher binds tighter).
pub(super) fn binop_of(t: &Tok) -> Option<(BinOp, u8)> {
    let Tok::Punct(p) = t else { return None };
    let op = BINOPS.iter().find(|(_, s)| s == p)?.0;
    let prec = match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
        BinOp::BitOr => 4,
        BinOp::BitXor => 5,
        BinOp::BitAnd => 6,
        BinOp::Shl | BinOp::Shr => 7,
        BinOp::Add | BinOp::Sub => 8,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 9,
    };
    Some((op, prec))
}

impl Parser {
    /// `a, b, c` up to `close` (consumed); a trailing comma is allowed.
    pub(super) fn exprs_until(&mut self, close: &str) -> PResult<Vec<Expr>> {
        let mut xs = Vec::new();
        while !self.eat(close) {
            xs.push(self.expr()?);
            if !self.eat(",") {
                self.expect(close)?;
                break;
            }
        }
        Ok(xs)
    }

    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.binary(1)
    }

    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.cast()?;
        while let Some((op, prec)) = binop_of(self.peek()) {
            if prec < min {
                break;
            }
            self.next();
            let rhs = self.binary(prec + 1)?;
            let span = lhs.span;
            lhs = Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span);
        }
        Ok(lhs)
    }

    fn cast(&mut self) -> PResult<Expr> {
        let mut x = self.unary()?;
        while self.eat_word("as") {
            let s = self.scalar()?;
            let span = x.span;
            x = Expr::new(ExprKind::Cast(Box::new(x), s), span);
        }
        Ok(x)
    }

    fn unary(&mut self) -> PResult<Expr> {
        let span = self.span();
        if self.eat("-") {
            // `-1.5f32`: a negative float literal.
            let negative = match self.peek() {
                Tok::Float(v, s) => Some(Lit::Float(-v, *s)),
                Tok::Ident(w) => match Self::special_float(w) {
                    Some(Lit::Float(v, s)) => Some(Lit::Float(-v, s)),
                    _ => None,
                },
                _ => None,
            };
            if let Some(lit) = negative {
                self.next();
                let lit = Expr::new(ExprKind::Lit(lit), span);
                return self.postfix(lit);
            }
            let x = self.unary()?;
            return Ok(Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(x)), span));
        }
        if self.eat("!") {
            let x = self.unary()?;
            return Ok(Expr::new(ExprKind::Unary(UnOp::Not, Box::new(x)), span));
        }
        if self.eat("&") {
            self.expect_word("mut")?;
            let p = self.place()?;
            return Ok(Expr::new(ExprKind::AddrOf(Box::new(p)), span));
        }
        let atom = self.atom()?;
        self.postfix(atom)
    }

    fn postfix(&mut self, mut x: Expr) -> PResult<Expr> {
        loop {
            let span = x.span;
            if self.is(".") && matches!(self.peek_at(1), Tok::Punct("[")) {
                self.next();
                self.next();
                let k = self.expr()?;
                self.expect("]")?;
                x = Expr::new(ExprKind::IndexComponent(Box::new(x), Box::new(k)), span);
            } else if self.eat(".") {
                let m = self.member()?;
                x = Expr::new(ExprKind::Field(Box::new(x), m), span);
            } else if self.eat("[") {
                for i in self.exprs_until("]")? {
                    x = Expr::new(ExprKind::ArrayElement(Box::new(x), Box::new(i)), span);
                }
            } else {
                return Ok(x);
            }
        }
    }

    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        self.expect("(")?;
        self.exprs_until(")")
    }

    fn special_float(word: &str) -> Option<Lit> {
        let (value, rest) = if let Some(rest) = word.strip_prefix("inf") {
            (f64::INFINITY, rest)
        } else {
            (f64::NAN, word.strip_prefix("NaN")?)
        };
        let suffix = match rest {
            "" => None,
            _ => Some(scalar_named(rest.strip_prefix('_')?)?),
        };
        Some(Lit::Float(value, suffix))
    }

    fn atom(&mut self) -> PResult<Expr> {
        let span = self.span();
        let e = |kind| Ok(Expr::new(kind, span));
        match self.peek().clone() {
            Tok::Int(v, s) => {
                self.next();
                e(ExprKind::Lit(Lit::Int(v, s)))
            }
            Tok::Float(v, s) => {
                self.next();
                e(ExprKind::Lit(Lit::Float(v, s)))
            }
            Tok::Local(l) => {
                self.next();
                e(ExprKind::Local(LocalId(l)))
            }
            Tok::Capture(c) => {
                self.next();
                if self.eat("[") {
                    let idx = self.exprs_until("]")?;
                    e(ExprKind::Load(c, idx))
                } else {
                    e(ExprKind::Capture(c))
                }
            }
            Tok::Punct("(") => {
                self.next();
                if self.eat(")") {
                    return e(ExprKind::MakeTuple(Vec::new()));
                }
                let first = self.expr()?;
                if self.eat(")") {
                    return Ok(first);
                }
                self.expect(",")?;
                let mut items = vec![first];
                items.extend(self.exprs_until(")")?);
                e(ExprKind::MakeTuple(items))
            }
            Tok::Punct("[") => {
                self.next();
                if self.eat("]") {
                    return e(ExprKind::MakeArray(Vec::new()));
                }
                let first = self.expr()?;
                if self.eat(";") {
                    let n = self.u32()?;
                    self.expect("]")?;
                    return e(ExprKind::RepeatArray(Box::new(first), n));
                }
                let mut items = vec![first];
                if self.eat(",") {
                    items.extend(self.exprs_until("]")?);
                } else {
                    self.expect("]")?;
                }
                e(ExprKind::MakeArray(items))
            }
            Tok::Punct("{") => e(ExprKind::Block(self.block()?)),
            Tok::Ident(w) => self.word_atom(&w, span),
            _ => self.expected("an expression"),
        }
    }

    fn word_atom(&mut self, w: &str, span: Span) -> PResult<Expr> {
        let e = |kind| Ok(Expr::new(kind, span));
        if let Some(l) = Self::special_float(w) {
            self.next();
            return e(ExprKind::Lit(l));
        }
        if let Some(n) = Self::vector_len(w) {
            self.next();
            self.expect("<")?;
            let s = self.scalar()?;
            self.expect_gt()?;
            let args = self.call_args()?;
            return e(ExprKind::MakeVector(n, s, args));
        }
        if let Some((op, _)) = ATOMICS.iter().find(|(_, n)| *n == w) {
            self.next();
            self.expect("(")?;
            let p = self.place()?;
            let mut args = Vec::new();
            if self.eat(",") {
                args = self.exprs_until(")")?;
            } else {
                self.expect(")")?;
            }
            return e(ExprKind::Atomic(*op, Box::new(p), args));
        }
        match w {
            "true" | "false" => {
                self.next();
                e(ExprKind::Lit(Lit::Bool(w == "true")))
            }
            "idx" => {
                self.next();
                e(ExprKind::KernelIndex)
            }
            "tiled" => {
                self.next();
                self.expect(".")?;
                let f = self.ident()?;
                match TILED.iter().find(|(_, n)| *n == f) {
                    Some((t, _)) => e(ExprKind::Tiled(*t)),
                    None => self.error(format!("`tiled` has no field `{f}`")),
                }
            }
            "index" => {
                self.next();
                let xs = self.call_args()?;
                e(ExprKind::MakeIndex(xs))
            }
            "extent" => {
                self.next();
                self.expect("(")?;
                let c = self.capture()?;
                self.expect(")")?;
                e(ExprKind::Extent(c))
            }
            "tile" => {
                self.next();
                let l = self.local()?;
                self.expect("[")?;
                let idx = self.exprs_until("]")?;
                e(ExprKind::TileLoad(l, idx))
            }
            "call" => {
                self.next();
                let at = self.span();
                let (label, _) = self.label()?;
                let Some(&(_, cell)) = self.fns.get(&label) else {
                    return Err(ParseError {
                        line: at.line,
                        column: at.column,
                        message: format!("no function `{label}` in the text"),
                    });
                };
                let mut type_args = Vec::new();
                if self.eat("::") {
                    self.expect("<")?;
                    loop {
                        type_args.push(self.ty()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.expect_gt()?;
                }
                let args = self.call_args()?;
                e(ExprKind::CallFn(FnRef::cell(cell), args, type_args))
            }
            "struct" => {
                self.next();
                let t = self.ty()?;
                self.expect("{")?;
                let mut fields = Vec::new();
                while !self.eat("}") {
                    let n = self.name()?;
                    self.expect(":")?;
                    fields.push((n, self.expr()?));
                    if !self.eat(",") {
                        self.expect("}")?;
                        break;
                    }
                }
                e(ExprKind::MakeStruct(t, fields))
            }
            "if" => {
                self.next();
                let c = self.expr()?;
                let a = self.block()?;
                self.expect_word("else")?;
                let b = self.block()?;
                e(ExprKind::If(Box::new(c), a, b))
            }
            _ => match BUILTINS.iter().find(|(_, n)| *n == w) {
                Some((b, _)) => {
                    self.next();
                    let args = self.call_args()?;
                    e(ExprKind::Call(*b, args))
                }
                None => self.error(format!("unknown word `{w}` in an expression")),
            },
        }
    }
}
