//! Parser for the textual LLVM IR subset of rule P-PROG.
//!
//! Layout: [`lexer`] turns text into tokens with spans; `parser` holds the
//! token cursor and the module level (globals, headers, attribute groups,
//! metadata skipping); `types` parses types and constants; `attrs` the open
//! attribute syntax; `keywords` linkage and calling-convention words; `body`
//! blocks and terminators, `inst` the other instructions, with name resolution and
//! LLVM's numbering rules in `names`.
//!
//! Everything outside the subset is rejected with
//! [`ParseErrorKind::Unsupported`] naming the construct (rule P-PROG:
//! "never silently ignored"); metadata and debug records are the one
//! deliberate exception: they are accepted and kept (for printing) although
//! no rule of the semantics reads them, except loop metadata.
//!
//! Where the parser and LLVM 22's `LLParser` knowingly differ:
//! - `splat (T v)` is expanded into the vector constant it abbreviates (the
//!   IR has no splat constant); scalable splats are `Unsupported`.
//! - Calls to undeclared `llvm.*` intrinsics are accepted (LLVM declares
//!   them implicitly) but no declaration is added to the module.
//! - Integer constants must fit their type in its signed or unsigned
//!   spelling (`i8 255`, `i8 -128`); LLVM silently wraps `i8 300`.
//! - References to undefined attribute groups are accepted, as LLVM does.
//! - Numbering follows LLVM 22: unnamed arguments, the implicit entry
//!   block, unnamed non-void instructions and unnamed blocks share one
//!   counter; an explicit number may skip ahead but never go back.

mod attrs;
mod body;
mod inst;
mod keywords;
pub mod lexer;
mod metadata;
mod names;
pub(crate) use names::for_each_operand_mut;
mod parser;
mod symtab;
mod types;
mod typing;

use crate::ir::{Module, Span};

/// How deeply types, constants and metadata may nest (`[1 x [1 x ...]]`,
/// `!{!{...}}`, a pointer with many `*`). Real IR stays far below it
/// (clang output rarely exceeds 10); beyond it the parser reports a syntax
/// error at the construct instead of risking a stack overflow (issue 11).
pub const MAX_NESTING: usize = 256;

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
    parser::Parser::new(file, text).module()
}

#[cfg(test)]
mod tests;
