//! Token cursor and the module level of the grammar (rule P-PROG):
//! `source_filename`, `target`, type definitions, globals, function
//! headers, attribute groups and metadata definitions.

use std::cell::OnceCell;
use std::collections::{HashMap, VecDeque};

use super::attrs::AttrCtx;
use super::keywords::{CCONV_WORDS, LINKAGE_WORDS};
use super::lexer::{LexError, LexState, Lexer, Tok, Token};
use super::{ParseError, ParseErrorKind};
use crate::ir::{AttrGroup, Function, Global, Module, Name, Param, Span, Type, TypeDef};

/// How many tokens the parser sees at once: the current one and up to four
/// after it (`peek_at(4)` in `types`).
const LOOKAHEAD: usize = 5;

/// A place in the token stream to come back to (see [`Parser::rewind`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    state: LexState,
    pub span: Span,
}

/// The token cursor plus module-wide facts the body parser needs.
///
/// Tokens are lexed on demand with a lookahead of [`LOOKAHEAD`], so memory
/// does not grow with the file beyond the module being built (issue 17
/// item 8: the token list of a 1,000,000-block function took gigabytes).
pub(super) struct Parser<'s> {
    pub file: String,
    /// The source text and (built on first use) the byte offset of each
    /// line start, to keep the text of definitions with an unsupported body.
    src: &'s str,
    line_starts: OnceCell<Vec<usize>>,
    lexer: Lexer<'s>,
    /// The current token first, then the lookahead; each with the lexer
    /// state before it. Never empty; ends with `Eof` once the text (or a
    /// lexical error) is reached.
    ahead: VecDeque<(Token, LexState)>,
    /// The first lexical error met: it is the module's error, wherever the
    /// parser was (the type prescan reads every token first, so this is
    /// the first error in the text, as LLVM reports it).
    lex_error: Option<LexError>,
    /// Named struct types, for result types of `extractvalue` (pre-scanned
    /// so uses may precede definitions).
    pub named_types: HashMap<String, Option<Type>>,
    /// Default `alloca` address space from the datalayout's `A<n>`.
    pub alloca_as: u32,
    /// `@name` references with the first place each was used, checked
    /// against the module's globals and functions at the end.
    pub global_uses: Vec<(String, Span)>,
    pub global_seen: std::collections::HashSet<String>,
    /// `%T` type references with their first use, checked at the end.
    pub type_uses: Vec<(String, Span)>,
    pub type_seen: std::collections::HashSet<String>,
}

impl<'s> Parser<'s> {
    pub fn new(file: &str, src: &'s str) -> Parser<'s> {
        let mut p = Parser {
            file: file.to_string(),
            src,
            line_starts: OnceCell::new(),
            lexer: Lexer::new(src),
            ahead: VecDeque::with_capacity(LOOKAHEAD),
            lex_error: None,
            named_types: HashMap::new(),
            alloca_as: 0,
            global_uses: Vec::new(),
            global_seen: std::collections::HashSet::new(),
            type_uses: Vec::new(),
            type_seen: std::collections::HashSet::new(),
        };
        p.fill();
        p
    }

    // ---- cursor ----------------------------------------------------------

    /// Lexes until [`LOOKAHEAD`] tokens are buffered or `Eof` is.
    fn fill(&mut self) {
        while self.ahead.len() < LOOKAHEAD
            && !matches!(self.ahead.back(), Some((Token { tok: Tok::Eof, .. }, _)))
        {
            let before = self.lexer.state();
            let tok = match self.lexer.next_token() {
                Ok(Some(t)) => t,
                Ok(None) => Token {
                    tok: Tok::Eof,
                    span: self.lexer.here(),
                },
                Err(e) => {
                    let span = e.span;
                    self.lex_error.get_or_insert(e);
                    Token {
                        tok: Tok::Eof,
                        span,
                    }
                }
            };
            self.ahead.push_back((tok, before));
        }
    }

    pub fn peek(&self) -> &Tok {
        self.peek_at(0)
    }
    pub fn peek_at(&self, n: usize) -> &Tok {
        debug_assert!(
            n < LOOKAHEAD,
            "the parser looks at most {LOOKAHEAD} tokens ahead"
        );
        let i = n.min(self.ahead.len() - 1);
        &self.ahead[i].0.tok
    }
    pub fn span(&self) -> Span {
        self.ahead[0].0.span
    }
    pub fn bump(&mut self) {
        if !matches!(self.ahead[0].0.tok, Tok::Eof) {
            self.ahead.pop_front();
            self.fill();
        }
    }
    /// The current place, to [`rewind`](Parser::rewind) to.
    pub fn mark(&self) -> Mark {
        Mark {
            state: self.ahead[0].1,
            span: self.span(),
        }
    }
    /// Goes back (or forward) to `m`: the tokens from there are lexed again.
    pub fn rewind(&mut self, m: Mark) {
        self.lexer.restore(m.state);
        self.ahead.clear();
        self.fill();
    }
    /// The current token (cloned) and advance.
    pub fn take(&mut self) -> Tok {
        let t = self.peek().clone();
        self.bump();
        t
    }
    pub fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x == w)
    }
    pub fn is_punct(&self, c: char) -> bool {
        matches!(self.peek(), Tok::Punct(x) if *x == c)
    }
    pub fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }
    pub fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }
    pub fn expect_punct(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{c}'")))
        }
    }
    pub fn expect_word(&mut self, w: &str) -> Result<(), ParseError> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{w}'")))
        }
    }
    pub fn word(&self) -> Option<&str> {
        match self.peek() {
            Tok::Word(w) => Some(w),
            _ => None,
        }
    }
    /// `,` followed by the word `w`: consumes both.
    pub fn eat_comma_word(&mut self, w: &str) -> bool {
        if self.is_punct(',') && matches!(self.peek_at(1), Tok::Word(x) if x == w) {
            self.bump();
            self.bump();
            true
        } else {
            false
        }
    }

    // ---- errors ----------------------------------------------------------

    pub fn err_at(&self, span: Span, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.clone(),
            span,
            kind: ParseErrorKind::Syntax,
            message: message.into(),
        }
    }
    pub fn err(&self, message: impl Into<String>) -> ParseError {
        self.err_at(self.span(), message)
    }
    pub fn expected(&self, what: &str) -> ParseError {
        let found = match self.peek() {
            Tok::Eof => "end of file".to_string(),
            t => format!("'{}'", t.text()),
        };
        self.err(format!("expected {what}, found {found}"))
    }
    pub fn unsupported_at(&self, span: Span, construct: &str, message: &str) -> ParseError {
        ParseError {
            file: self.file.clone(),
            span,
            kind: ParseErrorKind::Unsupported {
                construct: construct.to_string(),
            },
            message: message.to_string(),
        }
    }
    pub fn unsupported(&self, construct: &str) -> ParseError {
        self.unsupported_at(
            self.span(),
            construct,
            "outside the accepted LLVM IR subset (rule P-PROG)",
        )
    }

    // ---- small pieces ----------------------------------------------------

    pub fn string(&mut self) -> Result<String, ParseError> {
        match self.peek().clone() {
            Tok::Str(s) => {
                let at = self.span();
                self.bump();
                String::from_utf8(s).map_err(|_| self.err_at(at, "string is not valid UTF-8"))
            }
            _ => Err(self.expected("a string constant")),
        }
    }
    pub fn uint<T: std::str::FromStr>(&mut self) -> Result<T, ParseError> {
        match self.peek().clone() {
            Tok::Int(s) => {
                let v = s
                    .parse::<T>()
                    .map_err(|_| self.err(format!("integer '{s}' out of range")))?;
                self.bump();
                Ok(v)
            }
            _ => Err(self.expected("an integer")),
        }
    }
    /// `addrspace(N)` after the word `addrspace` was seen.
    pub fn addrspace(&mut self) -> Result<u32, ParseError> {
        self.expect_word("addrspace")?;
        self.expect_punct('(')?;
        let n = self.uint::<u32>()?;
        self.expect_punct(')')?;
        Ok(n)
    }
    /// The tokens of a balanced group starting at an opening bracket, as
    /// normalised text (no space after openers, before closers and commas).
    pub fn balanced_text(&mut self) -> Result<String, ParseError> {
        let start = self.span();
        let mut depth = 0usize;
        let mut out = String::new();
        loop {
            let t = self.peek().clone();
            match t {
                Tok::Eof => return Err(self.err_at(start, "unbalanced brackets")),
                Tok::Punct('(' | '[' | '{' | '<') => depth += 1,
                Tok::Punct(')' | ']' | '}' | '>') => {
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            push_token_text(&mut out, &t);
            self.bump();
            if depth == 0 {
                return Ok(out);
            }
        }
    }
    // ---- module level ----------------------------------------------------

    /// Rule P-PROG, module level.
    pub fn module(mut self) -> Result<Module, ParseError> {
        let r = self.module_items();
        match self.lex_error.take() {
            Some(e) => Err(ParseError {
                file: self.file.clone(),
                span: e.span,
                kind: ParseErrorKind::Syntax,
                message: e.message,
            }),
            None => r,
        }
    }

    fn module_items(&mut self) -> Result<Module, ParseError> {
        self.prescan_types()?;
        let mut m = Module::default();
        let mut seen_groups: HashMap<u32, ()> = HashMap::new();
        // Names of globals and functions (one namespace), and of types.
        let mut global_names: std::collections::HashSet<String> = Default::default();
        let mut type_names: std::collections::HashSet<String> = Default::default();
        loop {
            let at = self.span();
            match self.peek().clone() {
                Tok::Eof => break,
                Tok::Word(w) => match w.as_str() {
                    "source_filename" => {
                        self.bump();
                        self.expect_punct('=')?;
                        m.source_filename = Some(self.string()?);
                    }
                    "target" => {
                        self.bump();
                        if self.eat_word("datalayout") {
                            self.expect_punct('=')?;
                            let dl = self.string()?;
                            self.alloca_as = alloca_addrspace(&dl);
                            m.datalayout = Some(dl);
                        } else if self.eat_word("triple") {
                            self.expect_punct('=')?;
                            m.triple = Some(self.string()?);
                        } else {
                            return Err(self.expected("'datalayout' or 'triple'"));
                        }
                    }
                    "define" | "declare" => {
                        let f = self.function()?;
                        if !global_names.insert(f.name.clone()) {
                            return Err(
                                self.err_at(f.span, format!("redefinition of '@{}'", f.name))
                            );
                        }
                        m.functions.push(f);
                    }
                    "attributes" => {
                        self.bump();
                        let id = match self.take() {
                            Tok::AttrRef(n) => n,
                            _ => return Err(self.err_at(at, "expected '#N' after 'attributes'")),
                        };
                        self.expect_punct('=')?;
                        self.expect_punct('{')?;
                        let attrs = self.attrs(AttrCtx::Group)?;
                        self.expect_punct('}')?;
                        if seen_groups.insert(id, ()).is_some() {
                            return Err(
                                self.err_at(at, format!("redefinition of attribute group #{id}"))
                            );
                        }
                        m.attr_groups.push(AttrGroup {
                            id,
                            attrs,
                            span: at,
                        });
                    }
                    "module" => return Err(self.unsupported("module asm")),
                    "uselistorder" | "uselistorder_bb" => return Err(self.unsupported(&w)),
                    _ if w.starts_with('$') => return Err(self.unsupported("comdat definition")),
                    _ => return Err(self.expected("a top-level entity")),
                },
                Tok::Local(name) => {
                    self.bump();
                    self.expect_punct('=')?;
                    self.expect_word("type")?;
                    let ty = if self.eat_word("opaque") {
                        None
                    } else {
                        Some(self.parse_type()?)
                    };
                    let name = type_name(&name);
                    if !type_names.insert(name.clone()) {
                        return Err(self.err_at(at, format!("redefinition of type '%{name}'")));
                    }
                    m.types.push(TypeDef { name, ty, span: at });
                }
                Tok::Global(name) => {
                    let g = self.global(name)?;
                    if !global_names.insert(g.name.clone()) {
                        return Err(
                            self.err_at(at, format!("redefinition of global '@{}'", g.name))
                        );
                    }
                    m.globals.push(g);
                }
                Tok::Meta(_) => {
                    let d = self.md_def()?;
                    m.metadata.push(d);
                }
                _ => return Err(self.expected("a top-level entity")),
            }
        }
        self.check_globals_defined(&global_names, &type_names)?;
        Ok(m)
    }

    /// Collects `%T = type ...` definitions first, so instruction result
    /// types can look structs up even when the definition comes later.
    fn prescan_types(&mut self) -> Result<(), ParseError> {
        let start = self.mark();
        loop {
            match (self.peek_at(0), self.peek_at(1), self.peek_at(2)) {
                (Tok::Eof, _, _) => break,
                (Tok::Local(n), Tok::Punct('='), Tok::Word(w)) if w == "type" => {
                    let name = type_name(n);
                    let here = self.mark();
                    for _ in 0..3 {
                        self.bump();
                    }
                    let ty = if self.eat_word("opaque") {
                        None
                    } else {
                        self.parse_type().ok()
                    };
                    self.named_types.insert(name, ty);
                    self.rewind(here);
                }
                _ => {}
            }
            self.bump();
        }
        if self.lex_error.is_some() {
            // `module` reports it.
            return Err(self.err("lexical error"));
        }
        self.rewind(start);
        self.type_uses.clear();
        self.type_seen.clear();
        Ok(())
    }

    /// Every `@name` used by a constant or call refers to a global or
    /// function of the module (LLVM: "use of undefined value").
    fn check_globals_defined(
        &self,
        defined: &std::collections::HashSet<String>,
        types: &std::collections::HashSet<String>,
    ) -> Result<(), ParseError> {
        for (name, span) in self.type_uses.iter() {
            if !types.contains(name) {
                return Err(self.err_at(*span, format!("use of undefined type named '{name}'")));
            }
        }
        for (name, span) in self.global_uses.iter() {
            // LLVM declares intrinsics implicitly when they are called.
            if !defined.contains(name) && !name.starts_with("llvm.") {
                return Err(self.err_at(*span, format!("use of undefined value '@{name}'")));
            }
        }
        Ok(())
    }

    /// `@g = [keywords] global|constant T [init] [, trailer]`.
    fn global(&mut self, name: String) -> Result<Global, ParseError> {
        let span = self.span();
        self.bump();
        self.expect_punct('=')?;
        let mut keywords = Vec::new();
        let mut has_decl_linkage = false;
        loop {
            let Some(w) = self.word().map(str::to_string) else {
                return Err(self.expected("'global' or 'constant'"));
            };
            match w.as_str() {
                "global" | "constant" => break,
                "alias" | "ifunc" => return Err(self.unsupported(&w)),
                "addrspace" => {
                    let n = self.addrspace()?;
                    keywords.push(format!("addrspace({n})"));
                }
                "thread_local" => {
                    self.bump();
                    if self.is_punct('(') {
                        let t = self.balanced_text()?;
                        keywords.push(format!("thread_local{t}"));
                    } else {
                        keywords.push(w);
                    }
                }
                _ if LINKAGE_WORDS.contains(&w.as_str())
                    || matches!(
                        w.as_str(),
                        "unnamed_addr" | "local_unnamed_addr" | "externally_initialized"
                    ) =>
                {
                    if w == "external" || w == "extern_weak" {
                        has_decl_linkage = true;
                    }
                    self.bump();
                    keywords.push(w);
                }
                _ => return Err(self.expected("'global' or 'constant'")),
            }
        }
        let is_constant = self.is_word("constant");
        self.bump();
        let ty = self.parse_type()?;
        let init = if has_decl_linkage {
            None
        } else {
            Some(self.parse_const(&ty)?)
        };
        let mut trailer = Vec::new();
        let mut md = Vec::new();
        while self.is_punct(',') {
            self.bump();
            let at = self.span();
            match self.peek().clone() {
                Tok::Meta(_) => md.push(self.md_attachment()?),
                Tok::Word(w) => {
                    self.bump();
                    match w.as_str() {
                        "align" => {
                            let n: u64 = self.uint()?;
                            trailer.push(format!("align {n}"));
                        }
                        "section" | "partition" | "code_model" => {
                            let s = self.string()?;
                            trailer.push(format!("{w} {}", crate::ir::print::quote_str(&s)));
                        }
                        "comdat" => trailer.push(self.comdat_rest()?),
                        "no_sanitize_address"
                        | "no_sanitize_hwaddress"
                        | "sanitize_memtag"
                        | "sanitize_address_dyninit" => trailer.push(w.into_string()),
                        _ => {
                            return Err(self.unsupported_at(
                                at,
                                &format!("global `{w}`"),
                                "unknown global variable property",
                            ))
                        }
                    }
                }
                _ => return Err(self.expected("a global variable property")),
            }
        }
        if matches!(self.peek(), Tok::AttrRef(_)) {
            return Err(self.unsupported("global variable attributes"));
        }
        Ok(Global {
            name,
            keywords,
            is_constant,
            ty,
            init,
            trailer,
            md,
            span,
        })
    }

    /// After `comdat`: optional `($name)`.
    fn comdat_rest(&mut self) -> Result<String, ParseError> {
        if self.is_punct('(') {
            Ok(format!("comdat{}", self.balanced_text()?))
        } else {
            Ok("comdat".to_string())
        }
    }

    /// `define|declare [linkage] [cconv] [ret attrs] T @f(params) ...`
    fn function(&mut self) -> Result<Function, ParseError> {
        let span = self.span();
        let is_definition = self.is_word("define");
        self.bump();
        // LLVM reads a declaration's attachments right after `declare`
        // (`declare !dbg !5 void @f()`), a definition's before its body.
        let mut md = Vec::new();
        while !is_definition && matches!(self.peek(), Tok::Meta(_)) {
            md.push(self.md_attachment()?);
        }
        let mut linkage = Vec::new();
        while let Some(w) = self.word() {
            if LINKAGE_WORDS.contains(&w) {
                linkage.push(w.to_string());
                self.bump();
            } else {
                break;
            }
        }
        let cconv = self.cconv()?;
        let ret_attrs = self.attrs(AttrCtx::Ret)?;
        let ret_ty = self.parse_type()?;
        let name_at = self.span();
        let name = match self.peek().clone() {
            Tok::Global(n) => {
                self.bump();
                n
            }
            _ => return Err(self.expected("a function name")),
        };
        let mut fb = super::names::FnBuilder::new();
        self.expect_punct('(')?;
        let mut params = Vec::new();
        let mut varargs = false;
        if !self.eat_punct(')') {
            loop {
                if self.peek() == &Tok::Ellipsis {
                    self.bump();
                    varargs = true;
                    self.expect_punct(')')?;
                    break;
                }
                let ty = self.parse_type()?;
                let attrs = self.attrs(AttrCtx::Param)?;
                let at = self.span();
                let written = match self.peek().clone() {
                    Tok::Local(n) => {
                        self.bump();
                        Some(n)
                    }
                    _ => None,
                };
                let (value, decl_name) = if is_definition {
                    let idx = params.len();
                    let v = fb.def_arg(self, written, ty.clone(), idx, at)?;
                    (Some(v), None)
                } else {
                    (None, written)
                };
                params.push(Param {
                    ty,
                    attrs,
                    value,
                    decl_name,
                });
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        // An intrinsic's declaration has LLVM's signature (the verifier's
        // "Intrinsic has incorrect argument type!").
        if name.starts_with("llvm.") && !varargs {
            let tys: Vec<Type> = params.iter().map(|p| p.ty.clone()).collect();
            crate::intrinsics::sig::check(&name, &ret_ty, &tys)
                .map_err(|e| self.err_at(name_at, e))?;
        }
        let unnamed_addr = match self.word() {
            Some(w @ ("unnamed_addr" | "local_unnamed_addr")) => {
                let w = w.to_string();
                self.bump();
                Some(w)
            }
            _ => None,
        };
        let mut trailer = Vec::new();
        if self.is_word("addrspace") {
            let n = self.addrspace()?;
            trailer.push(format!("addrspace({n})"));
        }
        let fn_attrs = self.attrs(AttrCtx::FnHeader)?;
        let mut header_unsupported: Option<ParseError> = None;
        loop {
            let at = self.span();
            match self.peek().clone() {
                Tok::Word(w) => match w.as_str() {
                    "section" | "partition" | "gc" => {
                        self.bump();
                        let s = self.string()?;
                        trailer.push(format!("{w} {}", crate::ir::print::quote_str(&s)));
                    }
                    "align" => {
                        self.bump();
                        let n: u64 = self.uint()?;
                        trailer.push(format!("align {n}"));
                    }
                    "comdat" => {
                        self.bump();
                        trailer.push(self.comdat_rest()?);
                    }
                    // The typed constant is read; the function's body is
                    // then kept unread (rule P-PROG, per function).
                    "prefix" | "prologue" | "personality" => {
                        self.bump();
                        let ty = self.parse_type()?;
                        self.parse_const(&ty)?;
                        header_unsupported.get_or_insert_with(|| {
                            self.unsupported_at(
                                at,
                                &w,
                                "outside the accepted LLVM IR subset (rule P-PROG)",
                            )
                        });
                    }
                    _ => break,
                },
                // `!kind !N` attachments of a definition; after a
                // declaration, `!N = ...` starts the next top-level entity.
                Tok::Meta(_) if is_definition => md.push(self.md_attachment()?),
                _ => break,
            }
        }
        let mut f = Function {
            name,
            is_definition,
            linkage,
            cconv,
            ret_attrs,
            ret_ty,
            params,
            varargs,
            unnamed_addr,
            fn_attrs,
            trailer,
            blocks: Vec::new(),
            values: Vec::new(),
            md,
            unsupported: None,
            span,
        };
        if is_definition {
            let open = self.mark();
            self.expect_punct('{')?;
            let args = fb.values.clone();
            let read = match header_unsupported {
                Some(e) => Err(e),
                None => self.body(&mut f, fb),
            };
            match read {
                Ok(()) => {}
                Err(e) if matches!(e.kind, ParseErrorKind::Unsupported { .. }) => {
                    self.keep_unsupported_body(&mut f, open, args, e)?
                }
                Err(e) => return Err(e),
            }
        }
        Ok(f)
    }

    /// Rule P-PROG per function: a definition using an unsupported
    /// construct keeps its header and its text; the cursor moves past the
    /// `}` matching the body's `{` (token `open`), so the rest of the
    /// module is read normally.
    fn keep_unsupported_body(
        &mut self,
        f: &mut Function,
        open: Mark,
        args: Vec<crate::ir::ValueInfo>,
        e: ParseError,
    ) -> Result<(), ParseError> {
        self.rewind(open);
        let mut depth = 0usize;
        let close = loop {
            match self.peek() {
                Tok::Eof => {
                    return Err(self.err_at(open.span, "function body has no closing '}'"));
                }
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break self.span();
                    }
                }
                _ => {}
            }
            self.bump();
        };
        let from = self.offset(f.span);
        let to = self.offset(close) + 1;
        let ParseErrorKind::Unsupported { construct } = e.kind else {
            return Err(e);
        };
        f.blocks.clear();
        f.values = args;
        f.unsupported = Some(Box::new(crate::ir::UnsupportedBody {
            construct,
            message: e.message,
            span: e.span,
            text: self.src.get(from..to).unwrap_or_default().to_string(),
        }));
        self.bump();
        Ok(())
    }

    /// The byte offset of a token's position in the source.
    fn offset(&self, s: Span) -> usize {
        let line = (s.line as usize).saturating_sub(1);
        self.line_starts
            .get_or_init(|| {
                std::iter::once(0)
                    .chain(self.src.match_indices('\n').map(|(i, _)| i + 1))
                    .collect()
            })
            .get(line)
            .copied()
            .unwrap_or(self.src.len())
            + (s.col as usize).saturating_sub(1)
    }

    /// A calling convention keyword or `cc N`.
    pub fn cconv(&mut self) -> Result<Option<String>, ParseError> {
        let Some(w) = self.word() else {
            return Ok(None);
        };
        if !CCONV_WORDS.contains(&w) {
            return Ok(None);
        }
        let w = w.to_string();
        self.bump();
        if w == "cc" {
            let n: u32 = self.uint()?;
            return Ok(Some(format!("cc {n}")));
        }
        Ok(Some(w))
    }
}

/// The name of a type definition: numbered types keep their digits.
pub(super) fn type_name(n: &Name) -> String {
    n.to_string()
}

/// Appends a token to normalised text: a space between tokens except after
/// an opener and before a closer or comma.
pub(super) fn push_token_text(out: &mut String, t: &Tok) {
    let s = t.text();
    let no_space_before = matches!(t, Tok::Punct(')' | ']' | '}' | ',' | '>' | ':'));
    let after_opener = out.ends_with(['(', '[', '{', '<']) || out.is_empty();
    if !no_space_before && !after_opener && !out.ends_with(' ') {
        out.push(' ');
    }
    out.push_str(&s);
}

/// The `A<n>` component of a datalayout string: the address space of
/// `alloca` results when none is written.
fn alloca_addrspace(dl: &str) -> u32 {
    dl.split('-')
        .find_map(|c| c.strip_prefix('A').and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}
