//! Lexer for textual LLVM IR (rule P-PROG).
//!
//! Follows the token classes of LLVM's `LLLexer`: `%local`, `@global`,
//! `!meta`, `#N`, `label:`, integer and floating literals, strings,
//! keywords. Every token carries its 1-based line and column; the lexer
//! never panics, malformed input becomes an error token position.

use crate::ir::{CompactString, Name, Span};

/// One lexical token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Identifier or keyword: `define`, `i32`, `nuw`, `x`, `true` (inline
    /// up to 24 bytes: no allocation per token).
    Word(CompactString),
    /// A label definition `name:`, `"quoted":` or `5:`.
    Label(Name),
    /// `%name`, `%"quoted"`, `%5`.
    Local(Name),
    /// `@name`, `@"quoted"`, `@5` (numbered globals keep their digits).
    Global(String),
    /// `#N`, a reference to an attribute group.
    AttrRef(u32),
    /// `#dbg_value` and the other debug records.
    DbgRecord(String),
    /// `!name` or `!5`.
    Meta(String),
    /// `!"text"`.
    MetaStr(Vec<u8>),
    /// `"text"`, escapes resolved.
    Str(Vec<u8>),
    /// `c"text"`.
    CStr(Vec<u8>),
    /// Decimal integer literal as written (with optional `-`).
    Int(CompactString),
    /// Floating literal as written (decimal or `0x...` hex form).
    Float(String),
    /// `= , ( ) [ ] { } < > * : | !`
    Punct(char),
    /// `...`
    Ellipsis,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// A lexical error: position and message.
#[derive(Clone, Debug)]
pub struct LexError {
    pub span: Span,
    pub message: String,
}

fn is_label_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_')
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'-' | b'$' | b'.' | b'_')
}

/// Where the lexer is: enough to restart it there (the parser rewinds to
/// re-read a definition whose body is unsupported, and after the type
/// prescan).
#[derive(Clone, Copy, Debug)]
pub(super) struct LexState {
    pos: usize,
    line: u32,
    line_start: usize,
}

/// A cursor over the text producing one token at a time, so the parser
/// never holds the token list of the whole file (issue 17 item 8: the list
/// was most of the memory on a 1,000,000-block function).
pub(super) struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
    /// Where the current token starts (errors point there, even when the
    /// token, like a string, spans lines).
    tok_span: Span,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            src: text.as_bytes(),
            pos: 0,
            line: 1,
            line_start: 0,
            tok_span: Span { line: 1, col: 1 },
        }
    }

    pub(super) fn state(&self) -> LexState {
        LexState {
            pos: self.pos,
            line: self.line,
            line_start: self.line_start,
        }
    }

    pub(super) fn restore(&mut self, st: LexState) {
        self.pos = st.pos;
        self.line = st.line;
        self.line_start = st.line_start;
    }

    /// The position the lexer stopped at (where [`Tok::Eof`] is).
    pub(super) fn here(&self) -> Span {
        self.span_at(self.pos)
    }

    fn span_at(&self, pos: usize) -> Span {
        Span {
            line: self.line,
            col: (pos.saturating_sub(self.line_start) + 1) as u32,
        }
    }

    fn peek(&self, off: usize) -> u8 {
        self.src.get(self.pos + off).copied().unwrap_or(0)
    }

    fn err(&self, _pos: usize, message: impl Into<String>) -> LexError {
        LexError {
            span: self.tok_span,
            message: message.into(),
        }
    }

    /// Reads a quoted string starting at the opening `"`; resolves LLVM's
    /// escapes (`\\` and `\XX`). Strings may not span lines in practice, but
    /// LLVM allows it, so newlines are tracked.
    fn quoted(&mut self) -> Result<Vec<u8>, LexError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.src.get(self.pos) else {
                return Err(self.err(start, "end of file in string constant"));
            };
            self.pos += 1;
            match c {
                b'"' => return Ok(out),
                b'\\' => {
                    let a = self.peek(0);
                    let b = self.peek(1);
                    if a == b'\\' {
                        out.push(b'\\');
                        self.pos += 1;
                    } else if a.is_ascii_hexdigit() && b.is_ascii_hexdigit() {
                        let hex = |x: u8| (x as char).to_digit(16).unwrap_or(0) as u8;
                        out.push(hex(a) * 16 + hex(b));
                        self.pos += 2;
                    } else {
                        out.push(b'\\');
                    }
                }
                b'\n' => {
                    out.push(c);
                    self.line += 1;
                    self.line_start = self.pos;
                }
                _ => out.push(c),
            }
        }
    }

    fn label_chars(&mut self) -> CompactString {
        let s = self.pos;
        while is_label_char(self.peek(0)) {
            self.pos += 1;
        }
        CompactString::from_utf8_lossy(&self.src[s..self.pos])
    }

    fn utf8(&self, bytes: Vec<u8>, at: usize) -> Result<CompactString, LexError> {
        CompactString::from_utf8(bytes).map_err(|_| self.err(at, "name is not valid UTF-8"))
    }

    /// After a sigil: a quoted name, a number, or an identifier.
    fn sigil_name(&mut self, at: usize, what: &str) -> Result<(CompactString, bool), LexError> {
        let c = self.peek(0);
        if c == b'"' {
            let q = self.quoted()?;
            return Ok((self.utf8(q, at)?, false));
        }
        if c.is_ascii_digit() {
            let s = self.pos;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
            if is_label_char(self.peek(0)) {
                return Err(self.err(at, format!("invalid {what} name")));
            }
            return Ok((CompactString::from_utf8_lossy(&self.src[s..self.pos]), true));
        }
        if is_ident_start(c) {
            return Ok((self.label_chars(), false));
        }
        Err(self.err(at, format!("expected a {what} name after the sigil")))
    }

    /// The next token, `None` at the end of the text.
    pub(super) fn next_token(&mut self) -> Result<Option<Token>, LexError> {
        // Skip whitespace and comments.
        loop {
            let Some(&c) = self.src.get(self.pos) else {
                return Ok(None);
            };
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b';' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        let start = self.pos;
        let span = self.span_at(start);
        self.tok_span = span;
        let c = self.src[start];
        let tok = match c {
            b'%' => {
                self.pos += 1;
                let (s, numbered) = self.sigil_name(start, "local")?;
                if numbered {
                    let n = s
                        .parse::<u32>()
                        .map_err(|_| self.err(start, "value number too large"))?;
                    Tok::Local(Name::Numbered(n))
                } else {
                    Tok::Local(Name::Named(s))
                }
            }
            b'@' => {
                self.pos += 1;
                let (s, _) = self.sigil_name(start, "global")?;
                Tok::Global(s.into_string())
            }
            b'!' => {
                self.pos += 1;
                let n = self.peek(0);
                if n == b'"' {
                    Tok::MetaStr(self.quoted()?)
                } else if is_label_char(n) || n == b'\\' {
                    let s = self.pos;
                    while is_label_char(self.peek(0)) || self.peek(0) == b'\\' {
                        self.pos += 1;
                    }
                    Tok::Meta(String::from_utf8_lossy(&self.src[s..self.pos]).into_owned())
                } else {
                    Tok::Punct('!')
                }
            }
            b'#' => {
                self.pos += 1;
                if self.peek(0).is_ascii_digit() {
                    let s = self.pos;
                    while self.peek(0).is_ascii_digit() {
                        self.pos += 1;
                    }
                    let txt = String::from_utf8_lossy(&self.src[s..self.pos]).into_owned();
                    let n = txt
                        .parse::<u32>()
                        .map_err(|_| self.err(start, "attribute group number too large"))?;
                    Tok::AttrRef(n)
                } else if self.peek(0).is_ascii_alphabetic() {
                    let w = self.label_chars();
                    if w.starts_with("dbg_") {
                        Tok::DbgRecord(w.into_string())
                    } else {
                        return Err(self.err(start, format!("unknown token '#{w}'")));
                    }
                } else {
                    return Err(self.err(start, "expected attribute group number after '#'"));
                }
            }
            b'"' => {
                let s = self.quoted()?;
                if self.peek(0) == b':' {
                    self.pos += 1;
                    Tok::Label(Name::Named(self.utf8(s, start)?))
                } else {
                    Tok::Str(s)
                }
            }
            b'.' if self.peek(1) == b'.' && self.peek(2) == b'.' => {
                self.pos += 3;
                Tok::Ellipsis
            }
            b'0'..=b'9' | b'-' | b'+' => self.number_or_label(start)?,
            _ if is_ident_start(c) => {
                if c == b'c' && self.peek(1) == b'"' {
                    self.pos += 1;
                    Tok::CStr(self.quoted()?)
                } else {
                    let w = self.label_chars();
                    if self.peek(0) == b':' {
                        self.pos += 1;
                        Tok::Label(Name::Named(w))
                    } else {
                        Tok::Word(w)
                    }
                }
            }
            b'=' | b',' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>' | b'*' | b':'
            | b'|' => {
                self.pos += 1;
                Tok::Punct(c as char)
            }
            _ => {
                return Err(self.err(
                    start,
                    format!("unexpected character '{}'", c.escape_ascii()),
                ))
            }
        };
        Ok(Some(Token { tok, span }))
    }

    /// Integers, decimal and hex floats, and numeric labels (`5:`).
    fn number_or_label(&mut self, start: usize) -> Result<Tok, LexError> {
        let c = self.src[start];
        // Labels that start with a digit: `5:` (numbered) or `1abc:`.
        if c.is_ascii_digit() {
            let mut e = start;
            while e < self.src.len() && is_label_char(self.src[e]) {
                e += 1;
            }
            if self.src.get(e) == Some(&b':') {
                let w = CompactString::from_utf8_lossy(&self.src[start..e]);
                self.pos = e + 1;
                if w.bytes().all(|b| b.is_ascii_digit()) {
                    let n = w
                        .parse::<u32>()
                        .map_err(|_| self.err(start, "label number too large"))?;
                    return Ok(Tok::Label(Name::Numbered(n)));
                }
                return Ok(Tok::Label(Name::Named(w)));
            }
        }
        if c == b'-' && !self.peek(1).is_ascii_digit() {
            // `-name:` style labels.
            let w = self.label_chars();
            if self.peek(0) == b':' && w.len() > 1 {
                self.pos += 1;
                return Ok(Tok::Label(Name::Named(w)));
            }
            return Err(self.err(start, "unexpected character '-'"));
        }
        if c == b'0' && self.peek(1) == b'x' {
            self.pos += 2;
            let s = self.pos;
            if matches!(self.peek(0), b'K' | b'L' | b'M' | b'H' | b'R') {
                self.pos += 1;
            }
            while self.peek(0).is_ascii_hexdigit() {
                self.pos += 1;
            }
            if self.pos == s || !self.src[self.pos - 1].is_ascii_hexdigit() {
                return Err(self.err(start, "malformed hexadecimal floating point constant"));
            }
            return Ok(Tok::Float(
                String::from_utf8_lossy(&self.src[start..self.pos]).into_owned(),
            ));
        }
        self.pos += 1;
        if c == b'+' && !self.peek(0).is_ascii_digit() {
            return Err(self.err(start, "unexpected character '+'"));
        }
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        if self.peek(0) == b'.' {
            self.pos += 1;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
            if matches!(self.peek(0), b'e' | b'E')
                && (self.peek(1).is_ascii_digit()
                    || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit()))
            {
                self.pos += 2;
                while self.peek(0).is_ascii_digit() {
                    self.pos += 1;
                }
            }
            return Ok(Tok::Float(
                String::from_utf8_lossy(&self.src[start..self.pos]).into_owned(),
            ));
        }
        if c == b'+' {
            return Err(self.err(start, "integer constants may not start with '+'"));
        }
        Ok(Tok::Int(CompactString::from_utf8_lossy(
            &self.src[start..self.pos],
        )))
    }
}

/// Splits `text` into tokens, ending with [`Tok::Eof`].
pub fn lex(text: &str) -> Result<Vec<Token>, LexError> {
    let mut lx = Lexer::new(text);
    let mut out = Vec::new();
    while let Some(t) = lx.next_token()? {
        out.push(t);
    }
    out.push(Token {
        tok: Tok::Eof,
        span: lx.span_at(lx.pos),
    });
    Ok(out)
}

impl Tok {
    /// The token written back as LLVM text (used to keep raw metadata and
    /// parenthesised attribute arguments).
    pub fn text(&self) -> String {
        use crate::ir::print::{quote_bytes, quote_name};
        match self {
            Tok::Word(w) => w.to_string(),
            Tok::Label(n) => format!("{}:", quote_name(n)),
            Tok::Local(n) => format!("%{}", quote_name(n)),
            Tok::Global(g) => format!("@{}", crate::ir::print::quote_global(g)),
            Tok::AttrRef(n) => format!("#{n}"),
            Tok::DbgRecord(d) => format!("#{d}"),
            Tok::Meta(m) => format!("!{m}"),
            Tok::MetaStr(s) => format!("!{}", quote_bytes(s)),
            Tok::Str(s) => quote_bytes(s),
            Tok::CStr(s) => format!("c{}", quote_bytes(s)),
            Tok::Int(s) => s.to_string(),
            Tok::Float(s) => s.clone(),
            Tok::Punct(c) => c.to_string(),
            Tok::Ellipsis => "...".to_string(),
            Tok::Eof => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{lex, Tok};
    use crate::ir::Name;

    #[test]
    fn lexes_the_token_classes() {
        let toks: Vec<Tok> =
            lex("%x = add i32 %0, -5 ; c\n5: @\"a b\" !dbg #3 c\"hi\\0A\" 0x3FF0 1.5e+3 ...")
                .expect("valid tokens")
                .into_iter()
                .map(|t| t.tok)
                .collect();
        assert_eq!(
            toks,
            vec![
                Tok::Local(Name::Named("x".into())),
                Tok::Punct('='),
                Tok::Word("add".into()),
                Tok::Word("i32".into()),
                Tok::Local(Name::Numbered(0)),
                Tok::Punct(','),
                Tok::Int("-5".into()),
                Tok::Label(Name::Numbered(5)),
                Tok::Global("a b".into()),
                Tok::Meta("dbg".into()),
                Tok::AttrRef(3),
                Tok::CStr(b"hi\n".to_vec()),
                Tok::Float("0x3FF0".into()),
                Tok::Float("1.5e+3".into()),
                Tok::Ellipsis,
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn positions_are_one_based() {
        let toks = lex("a\n  b").expect("valid");
        assert_eq!((toks[1].span.line, toks[1].span.col), (2, 3));
    }
}
