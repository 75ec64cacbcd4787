//! The lexer of the text form: its tokens (names, literals, locals,
//! captures, type parameters, punctuation) with their lines and columns.

use std::fmt;

use super::{ParseError, quote, scalar_named};
use crate::ir::*;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Int(u128, Option<Scalar>),
    Float(f64, Option<Scalar>),
    Str(String),
    Local(u32),
    Capture(CaptureId),
    TyParam(u32),
    Punct(&'static str),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Int(v, s) => write!(f, "`{v}{}`", s.map_or("", Scalar::rust)),
            Tok::Float(v, s) => write!(f, "`{v:?}{}`", s.map_or("", Scalar::rust)),
            Tok::Str(s) => write!(f, "{}", quote(s)),
            Tok::Local(l) => write!(f, "`%{l}`"),
            Tok::Capture(c) => match c.as_param() {
                Some(k) => write!(f, "`@p{k}`"),
                None => write!(f, "`@{}`", c.0),
            },
            Tok::TyParam(k) => write!(f, "`${k}`"),
            Tok::Punct(p) => write!(f, "`{p}`"),
            Tok::Eof => f.write_str("the end of the text"),
        }
    }
}

const PUNCTS: [&str; 46] = [
    "<<=", ">>=", "..=", "::", "->", "=>", "==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "..", "(", ")", "[", "]", "{", "}", ",", ";", ":",
    ".", "=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "#",
];

pub(super) struct Lexer {
    pub(super) chars: Vec<char>,
    pub(super) i: usize,
    pub(super) line: u32,
    pub(super) column: u32,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn error(&self, message: String) -> ParseError {
        ParseError {
            line: self.line,
            column: self.column,
            message,
        }
    }

    fn digits(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek(0).filter(char::is_ascii_digit) {
            s.push(c);
            self.bump();
        }
        s
    }

    fn number(&mut self, after_dot: bool) -> Result<Tok, ParseError> {
        let mut text = self.digits();
        let mut float = false;
        if !after_dot {
            if self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
                text.push('.');
                text.push_str(&self.digits());
                float = true;
            }
            let sign = matches!(self.peek(1), Some('+' | '-'));
            let digit_at = if sign { 2 } else { 1 };
            if matches!(self.peek(0), Some('e' | 'E'))
                && self.peek(digit_at).is_some_and(|c| c.is_ascii_digit())
            {
                self.bump();
                text.push('e');
                if sign {
                    text.push(self.bump().unwrap_or('+'));
                }
                text.push_str(&self.digits());
                float = true;
            }
        }
        let suffix = self.suffix()?;
        if float {
            let v = text
                .parse::<f64>()
                .map_err(|e| self.error(format!("bad float literal `{text}`: {e}")))?;
            Ok(Tok::Float(v, suffix))
        } else {
            let v = text
                .parse::<u128>()
                .map_err(|e| self.error(format!("bad integer literal `{text}`: {e}")))?;
            Ok(Tok::Int(v, suffix))
        }
    }

    fn suffix(&mut self) -> Result<Option<Scalar>, ParseError> {
        if !self
            .peek(0)
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        {
            return Ok(None);
        }
        let mut s = String::new();
        while let Some(c) = self
            .peek(0)
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        {
            s.push(c);
            self.bump();
        }
        let name = s.strip_prefix('_').unwrap_or(&s);
        scalar_named(name)
            .map(Some)
            .ok_or_else(|| self.error(format!("`{s}` is not a literal suffix")))
    }

    fn string(&mut self) -> Result<Tok, ParseError> {
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                None => return Err(self.error("a string is not closed".to_string())),
                Some('"') => return Ok(Tok::Str(s)),
                Some('\\') => match self.bump() {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some('r') => s.push('\r'),
                    Some('0') => s.push('\0'),
                    Some('\\') => s.push('\\'),
                    Some('"') => s.push('"'),
                    Some('\'') => s.push('\''),
                    Some('u') if self.peek(0) == Some('{') => {
                        self.bump();
                        let mut hex = String::new();
                        while let Some(c) = self.bump() {
                            if c == '}' {
                                break;
                            }
                            hex.push(c);
                        }
                        let c = u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| self.error(format!("bad escape `\\u{{{hex}}}`")))?;
                        s.push(c);
                    }
                    other => {
                        return Err(self.error(format!("bad escape `\\{}`", other.unwrap_or(' '))));
                    }
                },
                Some(c) => s.push(c),
            }
        }
    }

    pub(super) fn tokens(mut self) -> Result<Vec<(Tok, u32, u32)>, ParseError> {
        let mut out: Vec<(Tok, u32, u32)> = Vec::new();
        loop {
            // Whitespace and comments.
            loop {
                match self.peek(0) {
                    Some(c) if c.is_whitespace() => {
                        self.bump();
                    }
                    Some('/') if self.peek(1) == Some('/') => {
                        while self.peek(0).is_some_and(|c| c != '\n') {
                            self.bump();
                        }
                    }
                    _ => break,
                }
            }
            let (line, column) = (self.line, self.column);
            let Some(c) = self.peek(0) else {
                out.push((Tok::Eof, line, column));
                return Ok(out);
            };
            let after_dot = matches!(out.last(), Some((Tok::Punct("."), ..)));
            let tok = if c.is_ascii_digit() {
                self.number(after_dot)?
            } else if c.is_ascii_alphabetic() || c == '_' {
                let mut s = String::new();
                while let Some(c) = self
                    .peek(0)
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    s.push(c);
                    self.bump();
                }
                Tok::Ident(s)
            } else if c == '"' {
                self.string()?
            } else if c == '%' && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
                let d = self.digits();
                Tok::Local(
                    d.parse()
                        .map_err(|_| self.error(format!("bad local `%{d}`")))?,
                )
            } else if c == '$' {
                self.bump();
                let d = self.digits();
                Tok::TyParam(
                    d.parse()
                        .map_err(|_| self.error(format!("bad type parameter `${d}`")))?,
                )
            } else if c == '@' {
                self.bump();
                let param = self.peek(0) == Some('p');
                if param {
                    self.bump();
                }
                let d = self.digits();
                let k: u32 = d
                    .parse()
                    .map_err(|_| self.error(format!("bad capture `@{d}`")))?;
                Tok::Capture(if param {
                    CaptureId::param(k)
                } else {
                    CaptureId(k)
                })
            } else {
                let rest: String = self.chars[self.i..].iter().take(3).collect();
                let p = PUNCTS
                    .iter()
                    .find(|p| rest.starts_with(**p))
                    .ok_or_else(|| self.error(format!("unexpected character `{c}`")))?;
                for _ in 0..p.len() {
                    self.bump();
                }
                Tok::Punct(p)
            };
            out.push((tok, line, column));
        }
    }
}
