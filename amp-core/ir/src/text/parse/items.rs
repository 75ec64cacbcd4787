//! Items and types: `struct`, `fn` and `kernel` items, function labels,
//! types, scalars and views.

use std::fmt::Write as _;
use std::sync::Arc;

use super::super::lex::Tok;
use super::super::{BOUNDS, ParseError, default_declarations, name_text, quote, scalar_named};
use super::{PResult, Parser};
use crate::ir::*;

impl Parser {
    pub(super) fn scalar(&mut self) -> PResult<Scalar> {
        if let Tok::Ident(s) = self.peek()
            && let Some(s) = scalar_named(s)
        {
            self.next();
            return Ok(s);
        }
        self.expected("a scalar type")
    }

    /// `vecN` as a vector length.
    pub(super) fn vector_len(word: &str) -> Option<u8> {
        word.strip_prefix("vec")?.parse().ok()
    }

    pub(super) fn ty(&mut self) -> PResult<Type> {
        match self.peek().clone() {
            Tok::Ident(w) => {
                if let Some(s) = scalar_named(&w) {
                    self.next();
                    return Ok(Type::Scalar(s));
                }
                if w == "Index" {
                    self.next();
                    self.expect("<")?;
                    let n = self.u32()?;
                    self.expect_gt()?;
                    return Ok(Type::Index(n));
                }
                if let Some(n) = Self::vector_len(&w) {
                    self.next();
                    self.expect("<")?;
                    let s = self.scalar()?;
                    self.expect_gt()?;
                    return Ok(Type::Vector(n, s));
                }
                match self.structs.get(&w) {
                    Some(st) => {
                        let st = st.clone();
                        self.next();
                        Ok(Type::Struct(st))
                    }
                    None => self.error(format!("unknown type `{w}` (structs are declared first)")),
                }
            }
            Tok::Str(w) => match self.structs.get(&w) {
                Some(st) => {
                    let st = st.clone();
                    self.next();
                    Ok(Type::Struct(st))
                }
                None => self.error(format!("unknown struct {}", quote(&w))),
            },
            Tok::TyParam(k) => {
                self.next();
                Ok(Type::Param(k))
            }
            Tok::Punct("[") => {
                self.next();
                let e = self.ty()?;
                self.expect(";")?;
                let n = self.u32()?;
                self.expect("]")?;
                Ok(Type::Array(Box::new(e), n))
            }
            Tok::Punct("(") => {
                self.next();
                let mut ts = Vec::new();
                while !self.eat(")") {
                    ts.push(self.ty()?);
                    if !self.eat(",") {
                        self.expect(")")?;
                        break;
                    }
                }
                Ok(Type::Tuple(ts))
            }
            Tok::Punct("&") => {
                self.next();
                self.expect_word("mut")?;
                Ok(Type::Ref(Box::new(self.ty()?)))
            }
            _ => self.expected("a type"),
        }
    }

    /// `[mut] view<T, N>`.
    fn view(&mut self) -> PResult<(Type, u32, bool)> {
        let writable = self.eat_word("mut");
        self.expect_word("view")?;
        self.expect("<")?;
        let elem = self.ty()?;
        self.expect(",")?;
        let rank = self.u32()?;
        self.expect_gt()?;
        Ok((elem, rank, writable))
    }

    /// A function's label: a name and an optional `#k`.
    pub(super) fn label(&mut self) -> PResult<(String, &'static str)> {
        let name = self.name()?;
        let mut label = name_text(name);
        if self.eat("#") {
            let k = self.int()?;
            let _ = write!(label, "#{k}");
        }
        Ok((label, name))
    }

    pub(super) fn struct_item(&mut self) -> PResult<()> {
        self.expect_word("struct")?;
        let at = self.span();
        let name = self.name()?.to_string();
        if self.structs.contains_key(&name) {
            return Err(ParseError {
                line: at.line,
                column: at.column,
                message: format!("struct `{name}` is declared twice"),
            });
        }
        self.expect("{")?;
        let mut fields = Vec::new();
        while !self.eat("}") {
            let n = self.name()?.to_string();
            self.expect(":")?;
            fields.push((n, self.ty()?));
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        let mut st = StructType {
            name: name.clone(),
            fields,
            declarations: String::new(),
        };
        st.declarations = if self.eat_word("wgsl") {
            match self.next() {
                Tok::Str(s) => s,
                _ => {
                    self.i -= 1;
                    return self.expected("the WGSL declarations (a string)");
                }
            }
        } else {
            default_declarations(&st)
        };
        self.structs.insert(name, Arc::new(st));
        Ok(())
    }

    pub(super) fn function_item(&mut self) -> PResult<(String, Function)> {
        let span = self.span();
        self.expect_word("fn")?;
        let (label, name) = self.label()?;
        let mut type_params = Vec::new();
        if self.eat("<") {
            loop {
                match self.peek() {
                    Tok::TyParam(k) if *k as usize == type_params.len() => {
                        self.next();
                    }
                    _ => return self.expected(&format!("`${}`", type_params.len())),
                }
                self.expect(":")?;
                let b = self.ident()?;
                match BOUNDS.iter().find(|(_, n)| *n == b) {
                    Some((b, _)) => type_params.push(*b),
                    None => return self.error(format!("no bound `{b}`")),
                }
                if !self.eat(",") {
                    break;
                }
            }
            self.expect_gt()?;
        }
        self.expect("(")?;
        let mut params = Vec::new();
        let mut bindings = Vec::new();
        let mut views = 0;
        let mut position = 0;
        while !self.eat(")") {
            match self.peek().clone() {
                Tok::Local(l) => {
                    self.next();
                    let n = self.name()?;
                    self.expect(":")?;
                    params.push((LocalId(l), n, self.ty()?));
                }
                Tok::Capture(c) => {
                    if c.as_param() != Some(views) {
                        return self.expected(&format!("`@p{views}`"));
                    }
                    views += 1;
                    self.next();
                    self.expect(":")?;
                    let (elem, rank, writable) = self.view()?;
                    bindings.push((
                        position,
                        ParamBinding::View {
                            elem,
                            rank,
                            writable,
                        },
                    ));
                }
                Tok::Ident(w) if w == "tiled" => {
                    self.next();
                    self.expect("<")?;
                    let n = self.u32()?;
                    self.expect_gt()?;
                    bindings.push((position, ParamBinding::Tiled(n)));
                }
                _ => return self.expected("a parameter"),
            }
            position += 1;
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        let ret = if self.eat("->") {
            Some(self.ty()?)
        } else {
            None
        };
        let body = self.block()?;
        Ok((
            label,
            Function {
                name,
                type_params,
                params,
                ret,
                bindings,
                body,
                span,
            },
        ))
    }

    pub(super) fn kernel_item(&mut self) -> PResult<Kernel> {
        let span = self.span();
        self.expect_word("kernel")?;
        let name = match self.next() {
            Tok::Str(s) | Tok::Ident(s) => s,
            _ => {
                self.i -= 1;
                return self.expected("the kernel's name");
            }
        };
        self.expect_word("rank")?;
        let rank = self.u32()?;
        let tile = if self.eat_word("tile") {
            self.expect("[")?;
            let mut dims = Vec::new();
            while !self.eat("]") {
                dims.push(self.u32()?);
                if !self.eat(",") {
                    self.expect("]")?;
                    break;
                }
            }
            Some(dims)
        } else {
            None
        };
        self.expect("(")?;
        let mut captures = Vec::new();
        while !self.eat(")") {
            let c = self.capture()?;
            if c.0 as usize != captures.len() {
                self.i -= 1;
                return self.expected(&format!("`@{}`", captures.len()));
            }
            let n = self.name()?;
            self.expect(":")?;
            let kind = if self.is_word("view") || self.is_word("mut") {
                let (elem, rank, writable) = self.view()?;
                CaptureKind::Container {
                    elem,
                    rank,
                    writable,
                }
            } else {
                match self.ty()? {
                    Type::Scalar(s) => CaptureKind::Scalar(s),
                    Type::Vector(n, s) => CaptureKind::Vector(n, s),
                    Type::Index(n) => CaptureKind::Index(n),
                    t => CaptureKind::Struct(t),
                }
            };
            captures.push((n, kind));
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        let body = self.block()?;
        Ok(Kernel {
            name,
            rank,
            captures,
            body,
            span,
            tile,
        })
    }
}
