//! LLVM-style diagnostics (issue 17): `file:line:col: error: message`,
//! then the source line with a caret, then notes pointing at the other
//! sites involved (a token's definition and its use, STYLE 6).
//!
//! The snippet is laid out by `codespan-reporting` (its rich style: the
//! source lines, carets, labels and notes; its own first line, which
//! repeats the message without the place, is dropped); the first line is
//! LLVM's (and codespan's short style's) `file:line:col: error: message`.
//! Positions are LLVM's: 1-based lines and 1-based byte columns.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Chars, Config, DisplayStyle};

/// A label on another site of the same file: `line:col` and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub line: u32,
    pub col: u32,
    pub text: String,
}

/// One error with its place, the label under the caret, and notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
    /// Printed under the caret.
    pub label: String,
    /// Underline the rest of the source line (an instruction) instead of
    /// one caret (a token).
    pub whole_line: bool,
    /// Other sites of the file, labelled.
    pub sites: Vec<Note>,
    /// Lines printed after the snippet (`= note: ...`).
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(file: &str, line: u32, col: u32, message: &str) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            line,
            col,
            // A diagnostic's message is one line: the rest of a multi-line
            // message becomes notes.
            message: message.lines().next().unwrap_or("").to_string(),
            label: String::new(),
            whole_line: false,
            sites: Vec::new(),
            notes: message.lines().skip(1).map(str::to_string).collect(),
        }
    }

    fn config(style: DisplayStyle) -> Config {
        Config {
            display_style: style,
            chars: Chars::ascii(),
            ..Config::default()
        }
    }

    fn build(&self, source: &str) -> CsDiagnostic<()> {
        let range = |line: u32, col: u32, whole: bool| {
            let start = offset(source, line, col);
            let end = if whole {
                line_end(source, start)
            } else {
                next_char(source, start)
            };
            start..end
        };
        let mut labels = vec![
            Label::primary((), range(self.line, self.col, self.whole_line))
                .with_message(&self.label),
        ];
        for s in &self.sites {
            labels.push(Label::secondary((), range(s.line, s.col, true)).with_message(&s.text));
        }
        CsDiagnostic::error()
            .with_message(&self.message)
            .with_labels(labels)
            .with_notes(self.notes.clone())
    }

    /// The first line: `file:line:col: error: message` (the form of
    /// codespan's short style and of LLVM's tools).
    pub fn header(&self) -> String {
        format!(
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )
    }

    /// The source line(s) with caret and labels, and the notes (everything
    /// after the first line), each line ending in `\n`.
    pub fn snippet(&self, source: &str) -> String {
        let file = SimpleFile::new(self.file.as_str(), source);
        match term::emit_into_string(
            &Diagnostic::config(DisplayStyle::Rich),
            &file,
            &self.build(source),
        ) {
            Ok(s) => {
                let body = s.split_once('\n').map_or("", |x| x.1);
                // Rich output ends in a blank separator line; keep one
                // newline.
                let mut body = body.trim_end().to_string();
                body.push('\n');
                body
            }
            Err(_) => String::new(),
        }
    }

    /// [`Diagnostic::header`] and [`Diagnostic::snippet`] together.
    pub fn render(&self, source: &str) -> String {
        format!("{}\n{}", self.header(), self.snippet(source))
    }
}

/// The byte offset of 1-based `line` and byte column `col`, clamped to the
/// line (and the text), on a character boundary.
pub fn offset(source: &str, line: u32, col: u32) -> usize {
    let mut start = 0usize;
    for _ in 1..line.max(1) {
        match source[start..].find('\n') {
            Some(p) => start += p + 1,
            None => return source.len(),
        }
    }
    let end = line_end(source, start);
    let mut at = (start + col.max(1) as usize - 1).min(end);
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The end of the line containing `at` (before `\n` and trailing blanks).
fn line_end(source: &str, at: usize) -> usize {
    let end = source[at..].find('\n').map_or(source.len(), |p| at + p);
    at + source[at..end].trim_end().len()
}

/// The end of the character at `at` (or `at` itself at a line end).
fn next_char(source: &str, at: usize) -> usize {
    match source[at..].chars().next() {
        Some('\n') | None => at,
        Some(c) => at + c.len_utf8(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "define void @f() {\nentry:\n  %x = add i32 1, 2\n  ret void\n}\n";

    #[test]
    fn header_is_llvm_form() {
        let d = Diagnostic::error("t.ll", 3, 8, "expected type");
        assert_eq!(d.header(), "t.ll:3:8: error: expected type");
    }

    #[test]
    fn snippet_has_source_line_and_caret() {
        let d = Diagnostic::error("t.ll", 3, 8, "expected type");
        let s = d.snippet(SRC);
        assert!(s.contains("  %x = add i32 1, 2"), "{s}");
        let caret_line = s.lines().find(|l| l.contains('^')).expect("caret");
        let src_line = s.lines().find(|l| l.contains("%x = add")).expect("line");
        assert_eq!(
            caret_line.find('^'),
            src_line.find("add"),
            "caret under column 8:\n{s}"
        );
    }

    #[test]
    fn other_sites_are_labelled() {
        let mut d = Diagnostic::error("t.ll", 4, 3, "bad use");
        d.whole_line = true;
        d.label = "the use".into();
        d.sites.push(Note {
            line: 3,
            col: 3,
            text: "the definition".into(),
        });
        d.notes.push("LLVM says: something".into());
        let s = d.render(SRC);
        assert!(s.starts_with("t.ll:4:3: error: bad use\n"), "{s}");
        assert!(s.contains("the definition") && s.contains("the use"), "{s}");
        assert!(s.contains("= LLVM says: something"), "{s}");
    }

    #[test]
    fn positions_past_the_text_are_clamped() {
        let d = Diagnostic::error("t.ll", 99, 99, "end");
        assert!(d.render(SRC).starts_with("t.ll:99:99: error: end"));
        let d = Diagnostic::error("t.ll", 1, 500, "long col");
        let _ = d.render("é\u{1F600}x");
        assert_eq!(offset("a\u{e9}b", 1, 3), 1, "char boundary");
    }
}
