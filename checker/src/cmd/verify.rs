//! `convcheck verify FILE`: the static rules S-* of docs/RULES.md §3 (and
//! the P-PROG facts they rely on), every violation with its rule ID, sites
//! and LLVM's own message (rule S-LLVM).
//!
//! Exit status: 0 valid, 1 violations found, 2 bad input (unreadable file,
//! parse error, construct outside the subset).

use std::path::PathBuf;

use semantics::rules::{render_json, render_text, verify_module, Options};

use crate::cli::{load_module, CliError, EXIT_NEGATIVE, EXIT_OK};

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
    /// edges (N >= 1) instead of over the cycle hierarchy (the oracle for
    /// S-CYCLE-SUFF / MC-03; exponential, for small functions). The verdict
    /// is then bounded by N, and the output says so.
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub closed_paths: Option<usize>,
}

/// Runs the subcommand; the report goes to stdout.
pub fn run(args: &Args) -> Result<u8, CliError> {
    let m = load_module(&args.file)?;
    let opts = Options {
        llvm_compatible: args.llvm_compatible,
        closed_paths: args.closed_paths,
    };
    let report = verify_module(&m, &opts);
    let file = args.file.display().to_string();
    let out = if args.json {
        let mut s = render_json(&file, &report);
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
        let mut s = render_text(&file, &report);
        if let Some(n) = args.closed_paths {
            s.push_str(&closed_paths_note(&file, n));
        }
        s
    };
    crate::cli::emit(&out)?;
    Ok(if report.is_valid() {
        EXIT_OK
    } else {
        EXIT_NEGATIVE
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
