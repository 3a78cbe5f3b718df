//! Conventions shared by every `convcheck` subcommand: the exit-status
//! scheme ([`Exit`]), reading inputs (files or `-` for stdin), LLVM-style
//! diagnostics ([`crate::diag`]), the panic hook, and quiet closed pipes.

use std::fmt;
use std::io::{ErrorKind, IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::OnceLock;

use semantics::ir::Module;
use semantics::parse::ParseErrorKind;

use crate::diag;

/// The exit status of every subcommand, one scheme for all (README "Exit
/// status"). A script can tell a negative verdict, no verdict and bad
/// input apart in every subcommand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exit {
    /// Success or a positive verdict (valid, refines within bounds,
    /// `--exists` Always/Sometimes, every claim as expected).
    Ok,
    /// A negative verdict: violations, a counterexample, `--exists` Never,
    /// a claim that disagrees without a recorded finding.
    Negative,
    /// No verdict: unknown, vacuous, a construct outside the supported
    /// subset in otherwise readable input, an incomplete exploration where
    /// a verdict was asked.
    NoVerdict,
    /// Bad input: unreadable file, parse error, invalid arguments, a
    /// program breaking a static rule where a valid one is required.
    BadInput,
    /// An internal error: a bug of ours (the panic hook asks for a report).
    Internal,
    /// Stopped by Ctrl-C after printing partial results (128 + SIGINT).
    Interrupted,
}

impl Exit {
    /// Every status, in the order of the README table.
    pub const ALL: [Exit; 6] = [
        Exit::Ok,
        Exit::Negative,
        Exit::NoVerdict,
        Exit::BadInput,
        Exit::Internal,
        Exit::Interrupted,
    ];

    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Negative => 1,
            Exit::NoVerdict => 2,
            Exit::BadInput => 3,
            Exit::Internal => 70,
            Exit::Interrupted => 130,
        }
    }

    /// The status of a process exit code, if it is one of the scheme.
    pub fn from_code(code: i32) -> Option<Exit> {
        Exit::ALL.into_iter().find(|e| i32::from(e.code()) == code)
    }

    /// What the status means, as the README table and `--help` say it.
    pub fn meaning(self) -> &'static str {
        match self {
            Exit::Ok => "success / positive verdict",
            Exit::Negative => {
                "negative verdict (violations, counterexample, --exists Never, a claim disagrees)"
            }
            Exit::NoVerdict => {
                "no verdict (unknown, vacuous, unsupported construct, incomplete exploration)"
            }
            Exit::BadInput => {
                "bad input (unreadable file, parse error, invalid arguments, static rule broken)"
            }
            Exit::Internal => "internal error (a bug in convcheck: please report it)",
            Exit::Interrupted => "interrupted (Ctrl-C), partial results printed",
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code())
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e.code())
    }
}

/// The exit-status table of `--help` (kept in step with the README by the
/// `exit_status_table_in_readme` test).
pub const EXIT_HELP: &str = "\
Exit status:
  0    success / positive verdict
  1    negative verdict (violations, counterexample, --exists Never, a claim disagrees)
  2    no verdict (unknown, vacuous, unsupported construct, incomplete exploration)
  3    bad input (unreadable file, parse error, invalid arguments, static rule broken)
  70   internal error (a bug in convcheck: please report it)
  130  interrupted (Ctrl-C), partial results printed";

/// Where an error points in an input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

/// A failure that ends a subcommand with a given exit status after its
/// message has been written to stderr (or, under `--json`, to stdout as
/// `{"error": {...}}`).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CliError {
    pub status: Exit,
    /// One line: `file:line:col: error: ...` when the error has a place.
    pub message: String,
    /// The place, when the error has one.
    pub at: Option<Located>,
    /// The rendered source line, caret and notes that follow `message`.
    pub snippet: Option<String>,
}

impl CliError {
    pub fn new(status: Exit, message: impl Into<String>) -> CliError {
        CliError {
            status,
            message: message.into(),
            at: None,
            snippet: None,
        }
    }
    pub fn bad_input(message: impl Into<String>) -> CliError {
        CliError::new(Exit::BadInput, message)
    }
    pub fn no_verdict(message: impl Into<String>) -> CliError {
        CliError::new(Exit::NoVerdict, message)
    }
    pub fn internal(message: impl Into<String>) -> CliError {
        CliError::new(Exit::Internal, message)
    }
    /// Stdout was closed by its reader (`convcheck run ... | head`): the
    /// subcommand stops with status [`Exit::Ok`] and no message.
    pub fn closed_stdout() -> CliError {
        CliError::new(Exit::Ok, String::new())
    }

    /// The JSON form printed under `--json`: `{"error": {"status", "kind",
    /// "message", "file", "line", "col"}}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut e = serde_json::json!({
            "status": self.status.code(),
            "kind": match self.status {
                Exit::Ok => "ok",
                Exit::Negative => "negative",
                Exit::NoVerdict => "no-verdict",
                Exit::BadInput => "bad-input",
                Exit::Internal => "internal",
                Exit::Interrupted => "interrupted",
            },
            "message": self.message,
        });
        if let Some(at) = &self.at {
            e["file"] = serde_json::json!(at.file);
            e["line"] = serde_json::json!(at.line);
            e["col"] = serde_json::json!(at.col);
        }
        serde_json::json!({ "error": e })
    }
}

/// Writes `text` to stdout and flushes it. Unlike `print!`, which panics
/// with "failed printing to stdout: Broken pipe", a reader that closed the
/// pipe early ends the subcommand quietly ([`CliError::closed_stdout`]);
/// any other write error is reported.
pub fn emit(text: &str) -> Result<(), CliError> {
    emit_with(|out| out.write_all(text.as_bytes()))
}

/// [`emit`] for output written piece by piece (`write` gets a buffered
/// stdout), so that a large report is never held whole in memory.
pub fn emit_with(
    write: impl FnOnce(&mut std::io::BufWriter<std::io::StdoutLock<'static>>) -> std::io::Result<()>,
) -> Result<(), CliError> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(CliError::closed_stdout()),
        Err(e) => Err(CliError::internal(format!("cannot write to stdout: {e}"))),
    }
}

/// [`emit`] with a newline.
pub fn emitln(text: &str) -> Result<(), CliError> {
    emit(&format!("{text}\n"))
}

/// The name of standard input in diagnostics.
pub const STDIN_NAME: &str = "<stdin>";

/// Standard input, read once (so `convcheck refine - -` reads it once and
/// compares the program with itself).
fn stdin_bytes() -> Result<&'static [u8], CliError> {
    static STDIN: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    let r = STDIN.get_or_init(|| {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map(|_| buf)
            .map_err(|e| e.to_string())
    });
    match r {
        Ok(b) => Ok(b.as_slice()),
        Err(e) => Err(CliError::bad_input(format!(
            "{STDIN_NAME}: cannot read: {e}"
        ))),
    }
}

/// An input's name in diagnostics: the path as given, `<stdin>` for `-`.
pub fn input_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads a text input: a file, or standard input for `-`. Text that is
/// not UTF-8 is bad input, located at the first invalid byte.
pub fn read_input(path: &Path) -> Result<(String, String), CliError> {
    let name = input_name(path);
    if path.as_os_str() == "-" {
        let text = decode(&name, stdin_bytes()?)?;
        return Ok((name, text));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::bad_input(format!("{name}: cannot read: {e}")))?;
    // The file's bytes become the text without a copy (the copy doubled
    // the memory of reading: 84 MB more at 1,000,000 blocks).
    match String::from_utf8(bytes) {
        Ok(text) => Ok((name, text)),
        Err(e) => match decode(&name, e.as_bytes()) {
            Err(err) => Err(err),
            Ok(_) => unreachable!("from_utf8 and decode agree on what is UTF-8"),
        },
    }
}

/// The text of an input named `name`: bytes that are not UTF-8 are bad
/// input, located at the first invalid byte.
pub fn decode(name: &str, bytes: &[u8]) -> Result<String, CliError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line = good.iter().filter(|b| **b == b'\n').count() + 1;
            let last_nl = good.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
            let col = String::from_utf8_lossy(&good[last_nl..]).chars().count() + 1;
            let mut err = CliError::bad_input(format!(
                "{name}:{line}:{col}: error: the input is not UTF-8 text (invalid byte at offset {})",
                e.valid_up_to()
            ));
            err.at = Some(Located {
                file: name.to_string(),
                line: line as u32,
                col: col as u32,
            });
            Err(err)
        }
    }
}

/// Reads and parses an LLVM IR input (`-` for stdin). Parse errors carry
/// `file:line:col`, the source line and a caret; a syntax error is
/// [`Exit::BadInput`], a construct outside the subset [`Exit::NoVerdict`].
pub fn load_module(path: &Path) -> Result<Module, CliError> {
    let (name, text) = read_input(path)?;
    parse_text(&name, &text)
}

/// The deepest nesting of brackets (`(`, `[`, `{`, `<`) and pointer stars
/// the CLI passes to the parser and printers (issue 11 item 1: deep
/// nesting must end in an error, not a stack overflow): the parser's own
/// bound on types, constants and metadata ([`semantics::parse::MAX_NESTING`]),
/// applied to every bracket of the text before parsing, so that no
/// recursion of a later stage sees more. LLVM's own tests nest at most a
/// few dozen levels.
pub const MAX_NESTING: usize = semantics::parse::MAX_NESTING;

/// The place (1-based line and byte column) where `text` nests deeper
/// than [`MAX_NESTING`], outside comments and strings.
pub fn too_deep(text: &str) -> Option<(u32, u32)> {
    let (mut depth, mut stars, mut line, mut line_start) = (0usize, 0usize, 1u32, 0usize);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b';' => {
                while i + 1 < bytes.len() && bytes[i + 1] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                while i + 1 < bytes.len() && bytes[i + 1] != b'"' && bytes[i + 1] != b'\n' {
                    i += 1;
                }
                i += 1;
            }
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if b == b'*' {
            stars += 1;
        } else if !b.is_ascii_whitespace() {
            stars = 0;
        }
        if depth + stars > MAX_NESTING {
            return Some((line, (i - line_start + 1) as u32));
        }
        i += 1;
    }
    None
}

/// Parses `text` (named `name` in diagnostics), errors as [`load_module`].
/// Input nesting deeper than [`MAX_NESTING`] is bad input.
pub fn parse_text(name: &str, text: &str) -> Result<Module, CliError> {
    if let Some((line, col)) = too_deep(text) {
        let d = diag::Diagnostic::error(
            name,
            line,
            col,
            &format!("nesting deeper than {MAX_NESTING} levels (brackets or pointer stars)"),
        );
        return Err(CliError {
            status: Exit::BadInput,
            message: d.header(),
            at: Some(Located {
                file: name.to_string(),
                line,
                col,
            }),
            snippet: Some(d.snippet(text)),
        });
    }
    let m = semantics::parse_module(name, text).map_err(|e| {
        let (status, message) = match &e.kind {
            ParseErrorKind::Syntax => (Exit::BadInput, e.message.clone()),
            ParseErrorKind::Unsupported { construct } => (
                Exit::NoVerdict,
                format!("unsupported construct `{construct}`: {}", e.message),
            ),
        };
        let d = diag::Diagnostic::error(name, e.span.line, e.span.col, &message);
        CliError {
            status,
            message: d.header(),
            at: Some(Located {
                file: name.to_string(),
                line: e.span.line,
                col: e.span.col,
            }),
            snippet: Some(d.snippet(text)),
        }
    })?;
    // Rule P-PROG per function: say which definitions are not analysed.
    for f in &m.functions {
        if let Some(u) = &f.unsupported {
            eprintln!(
                "convcheck: note: {name}:{}: @{} is not analysed (unsupported construct `{}`); calls to it are treated as calls to a declaration",
                u.span, f.name, u.construct
            );
        }
    }
    Ok(m)
}

/// Turns a subcommand result into the process exit code, printing the
/// error: to stderr (the one-line message, then the source line and
/// caret), or under `json` to stdout as `{"error": {...}}`.
pub fn finish(result: Result<Exit, CliError>, json: bool) -> ExitCode {
    match result {
        Ok(code) => code.into(),
        Err(e) => {
            if json && e.status != Exit::Ok {
                let text = serde_json::to_string_pretty(&e.to_json())
                    .unwrap_or_else(|_| String::from("{\"error\": {}}"));
                // A closed stdout here leaves nothing to report to.
                let _ = emitln(&text);
            } else if !e.message.is_empty() {
                if e.at.is_some() {
                    eprintln!("{}", e.message);
                } else {
                    eprintln!("convcheck: {}", e.message);
                }
                if let Some(s) = &e.snippet {
                    eprint!("{s}");
                }
            }
            e.status.into()
        }
    }
}

/// The command line, for the panic hook's bug-report request.
fn command_line() -> String {
    std::env::args()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The paragraph the panic hook prints for a panic with `message` at
/// `location` (`file:line:col` of our source).
pub fn internal_error_paragraph(message: &str, location: &str, command: &str) -> String {
    format!(
        "internal error in convcheck: {message} at {location}; this is a bug in convcheck, \
         not in your input: please report it with the input file(s) and this command line: \
         {command}"
    )
}

/// Installs the panic hook: a panic (a bug of ours, never the user's input)
/// prints one paragraph asking for a bug report and ends the process with
/// [`Exit::Internal`] (70) instead of Rust's 101. `RUST_BACKTRACE=1` adds
/// the backtrace.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_else(|| "an unknown location".to_string());
        let mut err = std::io::stderr().lock();
        let _ = writeln!(
            err,
            "{}",
            internal_error_paragraph(&message, &location, &command_line())
        );
        if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
            let _ = writeln!(err, "{}", std::backtrace::Backtrace::force_capture());
        }
        let _ = err.flush();
        std::process::exit(i32::from(Exit::Internal.code()));
    }));
}

/// Whether progress bars may be drawn (stderr is a terminal).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// Strips an optional leading `@` from a function name given on the
/// command line (`--kernel @k` and `--kernel k` name the same function).
pub fn function_name(given: &str) -> &str {
    given.strip_prefix('@').unwrap_or(given)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_documented_ones() {
        let codes: Vec<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(codes, vec![0, 1, 2, 3, 70, 130]);
        for e in Exit::ALL {
            assert_eq!(Exit::from_code(i32::from(e.code())), Some(e));
            assert!(
                EXIT_HELP.contains(&format!("{:<4} {}", e.code(), e.meaning())),
                "{e:?}"
            );
        }
        assert_eq!(Exit::from_code(101), None);
    }

    #[test]
    fn panic_paragraph_names_message_location_and_command() {
        let p = internal_error_paragraph("boom", "src/x.rs:1:2", "convcheck run f.ll");
        assert!(p.starts_with("internal error in convcheck: boom at src/x.rs:1:2;"));
        assert!(p.contains("please report it with the input file"));
        assert!(p.ends_with("convcheck run f.ll"));
        assert!(!p.contains('\n'), "one paragraph");
    }

    #[test]
    fn function_names_accept_a_leading_at() {
        assert_eq!(function_name("@k2"), "k2");
        assert_eq!(function_name("k2"), "k2");
        assert_eq!(function_name("@"), "");
    }

    #[test]
    fn invalid_utf8_is_located() {
        let dir = std::env::temp_dir().join(format!("convcheck-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let p = dir.join("bad.ll");
        std::fs::write(&p, b"define void @f() {\n  r\xffet void\n}\n").expect("write");
        let e = read_input(&p).expect_err("not UTF-8");
        assert_eq!(e.status, Exit::BadInput);
        assert_eq!(e.at.as_ref().map(|a| (a.line, a.col)), Some((2, 4)));
        assert!(
            e.message.contains(":2:4: error: the input is not UTF-8"),
            "{}",
            e.message
        );
    }
}
