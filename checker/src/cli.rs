//! Conventions shared by every `convcheck` subcommand.
//!
//! Exit status: [`EXIT_OK`] success (valid, refines, ...), [`EXIT_NEGATIVE`]
//! a negative verdict (violations found, counterexample), [`EXIT_BAD_INPUT`]
//! bad input (unreadable file, parse error, unsupported construct),
//! [`EXIT_INTERNAL`] our own bug, [`EXIT_INTERRUPTED`] stopped by Ctrl-C.

use std::io::{ErrorKind, Write};
use std::path::Path;
use std::process::ExitCode;

use semantics::ir::Module;

pub const EXIT_OK: u8 = 0;
pub const EXIT_NEGATIVE: u8 = 1;
pub const EXIT_BAD_INPUT: u8 = 2;
pub const EXIT_INTERNAL: u8 = 70;
/// Stopped by Ctrl-C (128 + SIGINT) after printing partial results.
pub const EXIT_INTERRUPTED: u8 = 130;

/// A failure that ends a subcommand with a given exit status after its
/// message has been written to stderr.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CliError {
    pub status: u8,
    pub message: String,
}

impl CliError {
    pub fn bad_input(message: impl Into<String>) -> CliError {
        CliError {
            status: EXIT_BAD_INPUT,
            message: message.into(),
        }
    }
    pub fn internal(message: impl Into<String>) -> CliError {
        CliError {
            status: EXIT_INTERNAL,
            message: message.into(),
        }
    }
    /// Stdout was closed by its reader (`convcheck run ... | head`): the
    /// subcommand stops with status [`EXIT_OK`] and no message.
    pub fn closed_stdout() -> CliError {
        CliError {
            status: EXIT_OK,
            message: String::new(),
        }
    }
}

/// Writes `text` to stdout and flushes it. Unlike `print!`, which panics
/// with "failed printing to stdout: Broken pipe", a reader that closed the
/// pipe early ends the subcommand quietly ([`CliError::closed_stdout`]);
/// any other write error is reported.
pub fn emit(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(CliError::closed_stdout()),
        Err(e) => Err(CliError::internal(format!("cannot write to stdout: {e}"))),
    }
}

/// [`emit`] with a newline.
pub fn emitln(text: &str) -> Result<(), CliError> {
    emit(&format!("{text}\n"))
}

/// Reads and parses an LLVM IR file; errors carry `file:line:col` and exit
/// status [`EXIT_BAD_INPUT`].
pub fn load_module(path: &Path) -> Result<Module, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::bad_input(format!("{}: cannot read: {e}", path.display())))?;
    let file = path.display().to_string();
    let m =
        semantics::parse_module(&file, &text).map_err(|e| CliError::bad_input(e.to_string()))?;
    // Rule P-PROG per function: say which definitions are not analysed.
    for f in &m.functions {
        if let Some(u) = &f.unsupported {
            eprintln!(
                "convcheck: note: {file}:{}: @{} is not analysed (unsupported construct `{}`); calls to it are treated as calls to a declaration",
                u.span, f.name, u.construct
            );
        }
    }
    Ok(m)
}

/// Turns a subcommand result into the process exit code, printing the error.
pub fn finish(result: Result<u8, CliError>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if !e.message.is_empty() {
                eprintln!("convcheck: {}", e.message);
            }
            ExitCode::from(e.status)
        }
    }
}
