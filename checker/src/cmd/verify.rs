//! `convcheck verify FILE`: the static rules S-* of SEMANTICS.md §3 (and
//! the P-PROG facts they rely on), every violation with its rule ID, sites
//! and LLVM's own message (rule S-LLVM).
//!
//! Exit status: 0 valid, 1 violations found, 2 bad input (unreadable file,
//! parse error, construct outside the subset).

use std::path::PathBuf;

use semantics::rules::{render_json, render_text, verify_module, Options};

use crate::cli::{load_module, CliError, Exit::Negative, Exit::Ok};

/// Check a module against the static convergence rules (S-ENTRY-*, S-LOOP-*,
/// S-ANCHOR-BUNDLE, S-MIX, S-TOKEN, S-CYCLE-1..4, S-REGION) and SSA
/// dominance. Prints every violation: LLVM's message and the values it
/// prints, then a `  ; [RULE] ...` line with our explanation and the sites.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The LLVM IR file (.ll) to check.
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
    /// edges instead of over the cycle hierarchy (the oracle for
    /// S-CYCLE-SUFF / MC-03; exponential, for small functions).
    #[arg(long, value_name = "N")]
    pub closed_paths: Option<usize>,
}

/// Runs the subcommand; the report goes to stdout.
pub fn run(args: &Args) -> Result<Exit, CliError> {
    let m = load_module(&args.file)?;
    let opts = Options {
        llvm_compatible: args.llvm_compatible,
        closed_paths: args.closed_paths,
    };
    let report = verify_module(&m, &opts);
    let file = args.file.display().to_string();
    let out = if args.json {
        let mut s = render_json(&file, &report);
        s.push('\n');
        s
    } else {
        render_text(&file, &report)
    };
    crate::cli::emit(&out)?;
    Ok(if report.is_valid() {
        Exit::Ok
    } else {
        Exit::Negative
    })
}
