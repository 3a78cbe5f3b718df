//! `convcheck verify FILE`: the static rules S-* of docs/RULES.md §3 (and
//! the P-PROG facts they rely on), every violation with its rule ID, sites
//! and LLVM's own message (rule S-LLVM).
//!
//! Text output: one LLVM-style diagnostic per violation (`file:line:col:
//! error: [RULE] ...`, the source line and a caret, the other sites
//! labelled, LLVM's own message as a note); under `--llvm-compatible`, the
//! text opt-22 prints plus our `  ; ` lines.
//!
//! Exit status ([`Exit`]): 0 valid, 1 violations found, 2 a construct
//! outside the subset, 3 bad input (unreadable file, parse error).

use std::path::PathBuf;

use semantics::ir::Module;
use semantics::rules::{render_json, render_text, verify_module, Options, Report, Role, Violation};

use crate::cli::{self, CliError, Exit};
use crate::diag::{Diagnostic, Note};

/// Check a module against the static convergence rules (S-ENTRY-*, S-LOOP-*,
/// S-ANCHOR-BUNDLE, S-MIX, S-TOKEN, S-CYCLE-1..4, S-REGION) and SSA
/// dominance. Prints every violation: LLVM's message and the values it
/// prints, then a `  ; [RULE] ...` line with our explanation and the sites.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The LLVM IR file (.ll) to check (`-`: standard input).
    pub file: PathBuf,
    /// Print the report as JSON ({"file", "valid", "violations": [...]}).
    #[arg(long)]
    pub json: bool,
    /// Follow LLVM 22's verifier exactly (which defects it checks, where it
    /// stops, the order and number of its messages) instead of the
    /// documents; with the `  ; ` lines removed the output equals
    /// `opt-22 -passes=verify -disable-output FILE`.
    #[arg(long)]
    pub llvm_compatible: bool,
    /// Check S-CYCLE-1..4 by brute force over every closed path of at most N
    /// edges (N >= 1) instead of over the cycle hierarchy (the oracle for
    /// S-CYCLE-SUFF / MC-03; exponential, for small functions). The verdict
    /// is then bounded by N, and the output says so.
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub closed_paths: Option<usize>,
}

/// Runs the subcommand; the report goes to stdout.
pub fn run(args: &Args) -> Result<Exit, CliError> {
    let (file, text) = cli::read_input(&args.file)?;
    let m = cli::parse_text(&file, &text)?;
    let opts = Options {
        llvm_compatible: args.llvm_compatible,
        closed_paths: args.closed_paths,
    };
    let report = verify_module(&m, &opts);
    // Functions the front end could not read (P-PROG) were not checked: the
    // verdict covers the others only, so it is no verdict for the module.
    let not_analysed: Vec<&str> = m
        .functions
        .iter()
        .filter(|f| f.unsupported.is_some())
        .map(|f| f.name.as_str())
        .collect();
    let out = if args.json {
        let mut s = render_json(&file, &report);
        if !not_analysed.is_empty() {
            if let Ok(mut j) = serde_json::from_str::<serde_json::Value>(&s) {
                j["not_analysed"] = serde_json::json!(not_analysed);
                s = j.to_string();
            }
        }
        if let Some(n) = args.closed_paths {
            // The verdict is bounded: say so in the object (issue 17).
            if let Ok(mut j) = serde_json::from_str::<serde_json::Value>(&s) {
                j["bound"] = serde_json::json!({
                    "closed_paths": n,
                    "rules": "S-CYCLE-1..4",
                });
                s = j.to_string();
            }
        }
        s.push('\n');
        s
    } else {
        let mut s = if args.llvm_compatible {
            render_text(&file, &report)
        } else {
            render_diagnostics(&file, &text, &m, &report)
        };
        if let Some(n) = args.closed_paths {
            s.push_str(&closed_paths_note(&file, n));
        }
        if !not_analysed.is_empty() {
            let names: Vec<String> = not_analysed.iter().map(|n| format!("@{n}")).collect();
            s.push_str(&format!(
                "{file}: not analysed (unsupported constructs, see the notes above): {}; \
                 the verdict covers the other functions only\n",
                names.join(", ")
            ));
        }
        s
    };
    crate::cli::emit(&out)?;
    Ok(if !report.is_valid() {
        Exit::Negative
    } else if !not_analysed.is_empty() {
        Exit::NoVerdict
    } else {
        Exit::Ok
    })
}

/// The line naming the bound of `--closed-paths N`: S-CYCLE-1..4 were
/// checked on closed paths of at most N edges only, so "valid" says nothing
/// about longer ones (bounded is not proved).
pub fn closed_paths_note(file: &str, n: usize) -> String {
    format!(
        "{file}: bound: S-CYCLE-1..4 checked only on closed paths of at most {n} edge{} \
         (--closed-paths {n}); longer closed paths were not checked. Without \
         --closed-paths every cycle is checked through the cycle hierarchy.\n",
        if n == 1 { "" } else { "s" }
    )
}

/// The name of a site's role in a diagnostic label.
fn role_name(r: Role) -> &'static str {
    match r {
        Role::Offender => "here",
        Role::Use => "the token is used here",
        Role::Definition => "the token is defined here",
        Role::Earlier => "the earlier instruction involved",
        Role::NotDominated => "a block not dominated",
        Role::CycleHeader => "the header of the cycle",
    }
}

/// One violation as an LLVM-style diagnostic: `file:line:col: error:
/// [RULE] message` at the offending site, the source line and a caret,
/// every other site labelled (a token's definition and its use), and
/// LLVM 22's own message and the cycle as notes.
pub fn diagnostic(file: &str, v: &Violation) -> Diagnostic {
    let main = v
        .sites
        .iter()
        .find(|s| s.role == Role::Offender)
        .or_else(|| v.sites.first());
    let (line, col) = main.map_or((0, 0), |s| (s.line, s.col));
    let prefix = format!("{}: ", v.rule);
    let text = v.message.strip_prefix(&prefix).unwrap_or(&v.message);
    let mut d = Diagnostic::error(
        file,
        line,
        col,
        &format!("[{}] in @{}: {text}", v.rule, v.function),
    );
    d.whole_line = true;
    d.label = main.map_or("", |s| role_name(s.role)).to_string();
    for s in &v.sites {
        if main.is_some_and(|m| std::ptr::eq(m, s)) || s.line == 0 {
            continue;
        }
        d.sites.push(Note {
            line: s.line,
            col: s.col,
            text: role_name(s.role).to_string(),
        });
    }
    if let Some(m) = &v.llvm_message {
        d.notes.push(format!("LLVM 22's verifier says: {m}"));
    }
    if let Some(c) = &v.cycle {
        d.notes.push(format!("cycle: {c}"));
    }
    d
}

/// The text report: one diagnostic per violation, then the summary line
/// (`FILE: valid` or `FILE: N violation(s) of RULES`).
pub fn render_diagnostics(file: &str, text: &str, _m: &Module, r: &Report) -> String {
    let mut s = String::new();
    for v in &r.violations {
        let d = diagnostic(file, v);
        if d.line == 0 {
            // No source position (a program built in memory): the header
            // without a snippet.
            s.push_str(&format!("{file}: error: {}\n", d.message));
            for n in &d.notes {
                s.push_str(&format!("  = {n}\n"));
            }
        } else {
            s.push_str(&d.render(text));
        }
    }
    s.push_str(&semantics::rules::render::summary_line(file, r));
    s
}
