//! Places (`%n`, `%n[i]`, `@k[i]`, `tile %n[i]`, `place.member`) and
//! members.

use super::super::intern;
use super::super::lex::Tok;
use super::{PResult, Parser};
use crate::ir::*;

impl Parser {
    pub(super) fn place(&mut self) -> PResult<Place> {
        let mut p = match self.peek().clone() {
            Tok::Local(l) => {
                self.next();
                if self.eat("[") {
                    let mut idx = self.exprs_until("]")?;
                    while self.eat("[") {
                        idx.extend(self.exprs_until("]")?);
                    }
                    Place::ArrayElement(LocalId(l), idx)
                } else {
                    Place::Local(LocalId(l))
                }
            }
            Tok::Capture(c) => {
                self.next();
                self.expect("[")?;
                let mut idx = self.exprs_until("]")?;
                while self.eat("[") {
                    idx.extend(self.exprs_until("]")?);
                }
                Place::Element(c, idx)
            }
            Tok::Ident(w) if w == "tile" => {
                self.next();
                let l = self.local()?;
                self.expect("[")?;
                let mut idx = self.exprs_until("]")?;
                while self.eat("[") {
                    idx.extend(self.exprs_until("]")?);
                }
                Place::TileElement(l, idx)
            }
            _ => return self.expected("a place"),
        };
        while self.is(".") && !matches!(self.peek_at(1), Tok::Punct("[")) {
            self.next();
            p = Place::Field(Box::new(p), self.member()?);
        }
        Ok(p)
    }

    pub(super) fn member(&mut self) -> PResult<Member> {
        match self.peek().clone() {
            Tok::Int(k, None) => {
                self.next();
                u32::try_from(k)
                    .map(Member::Index)
                    .or_else(|_| self.error("a field number too large"))
            }
            Tok::Ident(s) | Tok::Str(s) => {
                self.next();
                Ok(Member::Named(intern(&s)))
            }
            _ => self.expected("a field"),
        }
    }
}
