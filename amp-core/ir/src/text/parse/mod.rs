//! The parser of the text form: its state and token-level helpers, and
//! the driver that reads a text's items. The constructs are parsed in
//! `items` (items and types), `stmt` (blocks and statements), `expr`
//! (expressions) and `place` (places and members).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use super::lex::{Lexer, Tok};
use super::{ParseError, intern};
use crate::ir::*;

mod expr;
mod items;
mod place;
mod stmt;

type PResult<T> = Result<T, ParseError>;

pub(super) struct Parser {
    toks: Vec<(Tok, u32, u32)>,
    i: usize,
    file: &'static str,
    structs: HashMap<String, Arc<StructType>>,
    fns: HashMap<String, (&'static str, &'static OnceLock<Function>)>,
}

impl Parser {
    pub(super) fn new(text: &str, file: &str) -> PResult<Parser> {
        let toks = Lexer {
            chars: text.chars().collect(),
            i: 0,
            line: 1,
            column: 1,
        }
        .tokens()?;
        Ok(Parser {
            toks,
            i: 0,
            file: intern(file),
            structs: HashMap::new(),
            fns: HashMap::new(),
        })
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].0
    }

    fn span(&self) -> Span {
        let (_, line, column) = self.toks[self.i];
        Span {
            file: self.file,
            line,
            column,
        }
    }

    pub(super) fn error<T>(&self, message: impl Into<String>) -> PResult<T> {
        let (_, line, column) = self.toks[self.i];
        Err(ParseError {
            line,
            column,
            message: message.into(),
        })
    }

    fn expected<T>(&self, what: &str) -> PResult<T> {
        self.error(format!("expected {what}, found {}", self.peek()))
    }

    fn next(&mut self) -> Tok {
        let t = self.toks[self.i].0.clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }

    fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.next();
        }
        yes
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.is_word(w);
        if yes {
            self.next();
        }
        yes
    }

    fn expect(&mut self, p: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.expected(&format!("`{p}`"))
        }
    }

    fn expect_word(&mut self, w: &str) -> PResult<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            self.expected(&format!("`{w}`"))
        }
    }

    /// A closing `>`, splitting `>>` and `>=` (nested generics).
    fn expect_gt(&mut self) -> PResult<()> {
        let rest = match self.peek() {
            Tok::Punct(">") => {
                self.next();
                return Ok(());
            }
            Tok::Punct(">>") => ">",
            Tok::Punct(">=") => "=",
            Tok::Punct(">>=") => ">=",
            _ => return self.expected("`>`"),
        };
        self.toks[self.i].0 = Tok::Punct(rest);
        self.toks[self.i].2 += 1;
        Ok(())
    }

    fn int(&mut self) -> PResult<u128> {
        match self.peek() {
            Tok::Int(v, None) => {
                let v = *v;
                self.next();
                Ok(v)
            }
            _ => self.expected("a number"),
        }
    }

    fn u32(&mut self) -> PResult<u32> {
        let v = self.int()?;
        u32::try_from(v).or_else(|_| self.error(format!("{v} is too large")))
    }

    fn ident(&mut self) -> PResult<String> {
        match self.peek() {
            Tok::Ident(s) => {
                let s = s.clone();
                self.next();
                Ok(s)
            }
            _ => self.expected("a name"),
        }
    }

    /// A name: an identifier or a string.
    fn name(&mut self) -> PResult<&'static str> {
        match self.peek().clone() {
            Tok::Ident(s) | Tok::Str(s) => {
                self.next();
                Ok(intern(&s))
            }
            _ => self.expected("a name"),
        }
    }

    fn local(&mut self) -> PResult<LocalId> {
        match self.peek() {
            Tok::Local(l) => {
                let l = *l;
                self.next();
                Ok(LocalId(l))
            }
            _ => self.expected("a local (`%n`)"),
        }
    }

    fn capture(&mut self) -> PResult<CaptureId> {
        match self.peek() {
            Tok::Capture(c) => {
                let c = *c;
                self.next();
                Ok(c)
            }
            _ => self.expected("a capture (`@n`)"),
        }
    }

    /// Every item of the text: the functions (first one first) and the
    /// kernels.
    pub(super) fn module(&mut self) -> PResult<(Vec<Function>, Vec<Kernel>)> {
        // Functions may be called before their item: declare them first.
        let mut depth = 0usize;
        for k in 0..self.toks.len() {
            match &self.toks[k].0 {
                Tok::Punct("{") => depth += 1,
                Tok::Punct("}") => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 && matches!(&self.toks[k].0, Tok::Ident(w) if w == "fn") {
                self.i = k + 1;
                let (label, name) = self.label()?;
                let cell: &'static OnceLock<Function> = Box::leak(Box::new(OnceLock::new()));
                if self.fns.insert(label.clone(), (name, cell)).is_some() {
                    return self.error(format!("function `{label}` is defined twice"));
                }
            }
        }
        self.i = 0;
        let mut functions = Vec::new();
        let mut kernels = Vec::new();
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Ident(w) if w == "struct" => self.struct_item()?,
                Tok::Ident(w) if w == "fn" => {
                    let (label, f) = self.function_item()?;
                    if let Some((_, cell)) = self.fns.get(&label) {
                        let _ = cell.set(f.clone());
                    }
                    functions.push(f);
                }
                Tok::Ident(w) if w == "kernel" => kernels.push(self.kernel_item()?),
                _ => return self.expected("`struct`, `fn` or `kernel`"),
            }
        }
        Ok((functions, kernels))
    }
}
