//! Renderers for verifier reports (pure functions; the CLI prints).
//!
//! Text: for each violation, LLVM's message and the lines LLVM prints after
//! it, exactly as `opt-22 -passes=verify` would, then one line starting with
//! `  ; ` that carries our rule ID, place, explanation and sites. Dropping
//! the `  ; ` lines leaves text comparable with opt's output line for line.

use serde::Serialize;

use super::{Report, Violation};

/// Prefix of our annotation lines in the text output.
pub const NOTE_PREFIX: &str = "  ; ";

fn render_one(v: &Violation, s: &mut String) {
    match &v.llvm_message {
        Some(m) => s.push_str(m),
        None => {
            s.push_str("(no LLVM check) ");
            s.push_str(&v.message);
        }
    }
    s.push('\n');
    for l in &v.llvm_lines {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str(NOTE_PREFIX);
    s.push_str(&format!("[{}] @{}", v.rule, v.function));
    if !v.block.is_empty() {
        s.push_str(&format!(" %{}", v.block));
    }
    if let Some(i) = v.inst {
        s.push_str(&format!(" #{i}"));
    }
    s.push_str(": ");
    let prefix = format!("{}: ", v.rule);
    s.push_str(v.message.strip_prefix(&prefix).unwrap_or(&v.message));
    s.push('\n');
    for site in &v.sites {
        let role = serde_json::to_value(site.role)
            .ok()
            .and_then(|x| x.as_str().map(str::to_string))
            .unwrap_or_default();
        s.push_str(&format!(
            "{NOTE_PREFIX}  {role} at {}:{} (%{}): {}\n",
            site.line,
            site.col,
            site.block,
            site.text.trim_start()
        ));
    }
    if let Some(c) = &v.cycle {
        s.push_str(&format!("{NOTE_PREFIX}  cycle: {c}\n"));
    }
}

/// The text report of `file`: every violation, then a summary line.
pub fn render_text(file: &str, r: &Report) -> String {
    let mut s = String::new();
    for v in &r.violations {
        render_one(v, &mut s);
    }
    s.push_str(&summary_line(file, r));
    s
}

/// The last line of every text report of `file`: `valid`, or how many
/// violations of which rules.
pub fn summary_line(file: &str, r: &Report) -> String {
    if r.is_valid() {
        format!("{file}: valid\n")
    } else {
        let rules: Vec<&str> = r.rules().iter().map(|x| x.as_str()).collect();
        format!(
            "{file}: {} violation(s) of {}\n",
            r.violations.len(),
            rules.join(", ")
        )
    }
}

/// Only the lines LLVM would print (our annotations and summary dropped),
/// for line-by-line comparison with `opt-22 -passes=verify`.
pub fn render_llvm_lines(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    for v in &r.violations {
        if let Some(m) = &v.llvm_message {
            out.push(m.clone());
            out.extend(v.llvm_lines.iter().cloned());
        }
    }
    out
}

#[derive(Serialize)]
struct JsonReport<'a> {
    file: &'a str,
    valid: bool,
    violations: &'a [Violation],
}

/// The JSON report: `{"file", "valid", "violations": [...]}`.
pub fn render_json(file: &str, r: &Report) -> String {
    let j = JsonReport {
        file,
        valid: r.is_valid(),
        violations: &r.violations,
    };
    serde_json::to_string_pretty(&j).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
