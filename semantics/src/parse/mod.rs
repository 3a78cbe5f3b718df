//! Parser for the textual LLVM IR subset of rule P-PROG.
//!
//! Layout: [`lexer`] turns text into tokens with spans; `parser` holds the
//! token cursor and the module level (globals, headers, attribute groups,
//! metadata skipping); `types` parses types and constants; `attrs` the open
//! attribute syntax; `body` function bodies, with name resolution and
//! LLVM's numbering rules in `names`.
//!
//! Everything outside the subset is rejected with
//! [`ParseErrorKind::Unsupported`] naming the construct (rule P-PROG:
//! "never silently ignored"); metadata and debug records are the one
//! deliberate exception: they are accepted and dropped because no rule of
//! the semantics reads them.

mod attrs;
mod body;
pub mod lexer;
mod names;
mod parser;
mod types;

use crate::ir::{Module, Span};

/// Why a module was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// Malformed text.
    Syntax,
    /// Well-formed LLVM IR outside the subset; `construct` names it
    /// (`invoke`, `callbr`, `inline asm`, ...).
    Unsupported { construct: String },
}

/// A parse error at `file:line:col`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{}:{}: {}{message}", span.line, span.col, match kind { ParseErrorKind::Syntax => "error: ".to_string(), ParseErrorKind::Unsupported { construct } => format!("unsupported construct `{construct}`: ") })]
pub struct ParseError {
    pub file: String,
    pub span: Span,
    pub kind: ParseErrorKind,
    pub message: String,
}

/// Parses `text` (named `file` in diagnostics) into a [`Module`].
///
/// Rule P-PROG: the accepted subset; anything else is an error naming the
/// construct and its location. Never panics.
pub fn parse_module(file: &str, text: &str) -> Result<Module, ParseError> {
    let toks = lexer::lex(text).map_err(|e| ParseError {
        file: file.to_string(),
        span: e.span,
        kind: ParseErrorKind::Syntax,
        message: e.message,
    })?;
    parser::Parser::new(file, toks).module()
}
