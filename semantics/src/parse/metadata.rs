//! Metadata (rule P-PROG, kept for the round trip): definitions
//! `!N = ...`, attachments `, !kind !N`, inline values and debug records.
//! Nesting of `!{...}` tuples is bounded by [`super::MAX_NESTING`].

use super::lexer::Tok;
use super::parser::{push_token_text, Parser};
use super::ParseError;
use crate::ir::{DbgRecord, MdAttachment, MdDef, MdValue};

impl Parser<'_> {
    /// One metadata value: `!5`, `!"s"`, `!{...}`, `!DIThing(...)`,
    /// `distinct !{...}`, `null`, or a typed value `i32 0` (as in
    /// `metadata i32 0`).
    pub fn md_value(&mut self, depth: usize) -> Result<MdValue, ParseError> {
        if depth > super::MAX_NESTING {
            return Err(self.err(format!(
                "metadata nested deeper than {} levels",
                super::MAX_NESTING
            )));
        }
        let distinct = self.eat_word("distinct");
        match self.peek().clone() {
            Tok::Meta(m) => {
                self.bump();
                if self.is_punct('(') {
                    let args = self.balanced_text()?;
                    Ok(MdValue::Special {
                        distinct,
                        kind: m,
                        args,
                    })
                } else if distinct {
                    Err(self.expected("'(' after a distinct specialised node"))
                } else {
                    Ok(MdValue::Ref(m))
                }
            }
            Tok::MetaStr(s) if !distinct => {
                self.bump();
                Ok(MdValue::Str(s))
            }
            Tok::Punct('!') => {
                self.bump();
                self.expect_punct('{')?;
                let mut elems = Vec::new();
                if !self.eat_punct('}') {
                    loop {
                        if self.eat_word("null") {
                            elems.push(MdValue::Null);
                        } else {
                            elems.push(self.md_value(depth + 1)?);
                        }
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Ok(MdValue::Tuple { distinct, elems })
            }
            _ if distinct => Err(self.expected("'!{' or '!DI...(' after 'distinct'")),
            _ => {
                // A typed value: a type then one value token, or a
                // bracketed group, or a constant expression `word (...)`.
                let ty = self.parse_type()?;
                let mut value = String::new();
                match self.peek() {
                    Tok::Punct('<' | '[' | '{') => value = self.balanced_text()?,
                    Tok::Eof | Tok::Punct(_) => return Err(self.expected("a metadata value")),
                    t => {
                        let t = t.clone();
                        push_token_text(&mut value, &t);
                        self.bump();
                        if matches!(t, Tok::Word(_)) && self.is_punct('(') {
                            value.push(' ');
                            value.push_str(&self.balanced_text()?);
                        }
                    }
                }
                Ok(MdValue::Typed { ty, value })
            }
        }
    }

    /// The text of one metadata value, for `metadata` call arguments.
    pub fn md_value_text(&mut self) -> Result<String, ParseError> {
        Ok(crate::ir::print::md_str(&self.md_value(0)?))
    }

    /// `, !kind value` attachments after an instruction or global.
    pub fn md_attachments(&mut self) -> Result<Vec<MdAttachment>, ParseError> {
        let mut out = Vec::new();
        while self.is_punct(',') && matches!(self.peek_at(1), Tok::Meta(_)) {
            self.bump();
            out.push(self.md_attachment()?);
        }
        Ok(out)
    }

    /// `!kind value` (at a `Tok::Meta`).
    pub fn md_attachment(&mut self) -> Result<MdAttachment, ParseError> {
        let Tok::Meta(kind) = self.take() else {
            return Err(self.expected("a metadata attachment"));
        };
        let value = self.md_value(0)?;
        Ok(MdAttachment { kind, value })
    }

    /// `!name = value` at module level (at the `Tok::Meta`).
    pub fn md_def(&mut self) -> Result<MdDef, ParseError> {
        let span = self.span();
        let Tok::Meta(name) = self.take() else {
            return Err(self.expected("a metadata definition"));
        };
        self.expect_punct('=')?;
        let value = self.md_value(0)?;
        Ok(MdDef { name, value, span })
    }

    /// `#dbg_kind(...)` (at the `Tok::DbgRecord`).
    pub fn dbg_record(&mut self) -> Result<DbgRecord, ParseError> {
        let Tok::DbgRecord(kind) = self.take() else {
            return Err(self.expected("a debug record"));
        };
        if !self.is_punct('(') {
            return Err(self.expected("'(' after a debug record"));
        }
        let args = self.balanced_text()?;
        Ok(DbgRecord { kind, args })
    }
}
