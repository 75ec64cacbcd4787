//! Blocks and statements: `let`, assignments and their operators, `if`,
//! loops, `for`, jumps, barriers and `tile_static` declarations.

use super::super::lex::Tok;
use super::super::{BARRIERS, BINOPS};
use super::expr::binop_of;
use super::{PResult, Parser};
use crate::ir::*;

impl Parser {
    pub(super) fn block(&mut self) -> PResult<Block> {
        self.expect("{")?;
        let mut b = Block::default();
        loop {
            if self.eat("}") {
                return Ok(b);
            }
            if self.eat("=>") {
                b.tail = Some(Box::new(self.expr()?));
                self.expect("}")?;
                return Ok(b);
            }
            b.stmts.push(self.stmt()?);
        }
    }

    /// An assignment operator after a place: `=`, `+=`, `(==)=`.
    fn assign_op(&mut self) -> Option<Option<BinOp>> {
        if self.eat("=") {
            return Some(None);
        }
        if let Tok::Punct(p) = self.peek()
            && let Some(op) = p.strip_suffix('=')
            && let Some((op, _)) = BINOPS.iter().find(|(_, s)| *s == op)
            && !matches!(p, &"==" | &"!=" | &"<=" | &">=")
        {
            let op = *op;
            self.next();
            return Some(Some(op));
        }
        if self.is("(")
            && let Some((op, _)) = binop_of(self.peek_at(1))
            && matches!(self.peek_at(2), Tok::Punct(")"))
            && matches!(self.peek_at(3), Tok::Punct("="))
        {
            for _ in 0..4 {
                self.next();
            }
            return Some(Some(op));
        }
        None
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let span = self.span();
        let s = |kind| Ok(Stmt::new(kind, span));
        if self.is("#") {
            self.next();
            self.expect("[")?;
            self.expect_word("unroll")?;
            self.expect("]")?;
            if !self.is_word("for") {
                return self.expected("`for` after `#[unroll]`");
            }
            return self.for_loop(true, span);
        }
        let word = match self.peek() {
            Tok::Ident(w) => w.clone(),
            _ => String::new(),
        };
        match word.as_str() {
            "let" => {
                self.next();
                let local = self.local()?;
                let name = self.name()?;
                let ty = if self.eat(":") {
                    Some(self.ty()?)
                } else {
                    None
                };
                let init = if self.eat("=") {
                    Some(self.expr()?)
                } else {
                    None
                };
                self.expect(";")?;
                s(StmtKind::Let {
                    local,
                    name,
                    ty,
                    init,
                })
            }
            "if" => {
                self.next();
                let c = self.expr()?;
                let a = self.block()?;
                let b = if self.eat_word("else") {
                    Some(self.block()?)
                } else {
                    None
                };
                if self.eat(";") {
                    let Some(b) = b else {
                        return self.error("an `if` expression needs an `else`");
                    };
                    let e = Expr::new(ExprKind::If(Box::new(c), a, b), span);
                    return s(StmtKind::Expr(e));
                }
                s(StmtKind::If(c, a, b))
            }
            "while" => {
                self.next();
                let c = self.expr()?;
                let body = self.block()?;
                s(StmtKind::While(c, body))
            }
            "loop" => {
                self.next();
                let body = self.block()?;
                s(StmtKind::Loop(body))
            }
            "for" => self.for_loop(false, span),
            "break" | "continue" => {
                self.next();
                self.expect(";")?;
                s(if word == "break" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                })
            }
            "return" => {
                self.next();
                if self.eat(";") {
                    return s(StmtKind::Return(None));
                }
                let e = self.expr()?;
                self.expect(";")?;
                s(StmtKind::Return(Some(e)))
            }
            "barrier" => {
                self.next();
                let w = self.ident()?;
                let Some((b, _)) = BARRIERS.iter().find(|(_, n)| *n == w) else {
                    return self.error(format!("no barrier `{w}`"));
                };
                let b = *b;
                self.expect(";")?;
                s(StmtKind::Barrier(b))
            }
            "tile_static" => {
                self.next();
                let local = self.local()?;
                let name = self.name()?;
                self.expect(":")?;
                let ty = self.ty()?;
                self.expect(";")?;
                s(StmtKind::TileStatic { local, name, ty })
            }
            _ => {
                // An assignment if a place and an assignment operator come.
                if matches!(self.peek(), Tok::Local(_) | Tok::Capture(_)) || word == "tile" {
                    let save = self.i;
                    if let Ok(p) = self.place()
                        && let Some(op) = self.assign_op()
                    {
                        let e = self.expr()?;
                        self.expect(";")?;
                        return s(StmtKind::Assign(p, op, e));
                    }
                    self.i = save;
                }
                let e = self.expr()?;
                self.expect(";")?;
                s(StmtKind::Expr(e))
            }
        }
    }

    fn for_loop(&mut self, unroll: bool, span: Span) -> PResult<Stmt> {
        self.expect_word("for")?;
        let var = self.local()?;
        let name = self.name()?;
        self.expect_word("in")?;
        let start = self.expr()?;
        let inclusive = if self.eat("..=") {
            true
        } else {
            self.expect("..")?;
            false
        };
        let end = self.expr()?;
        let step = if self.eat_word("step") {
            Some(self.expr()?)
        } else {
            None
        };
        let reverse = self.eat_word("rev");
        let body = self.block()?;
        Ok(Stmt::new(
            StmtKind::For {
                var,
                name,
                start,
                end,
                inclusive,
                step,
                body,
                unroll,
                reverse,
            },
            span,
        ))
    }
}
