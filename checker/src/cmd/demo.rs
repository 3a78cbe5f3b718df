//! `convcheck demo`: the README's main command. Runs the spec-validation
//! suite on the built-in claims and examples and prints the headline
//! (claims confirmed, findings), then one counterexample (CL-12: unrolling
//! a loop whose heart uses an outer anchor) and one proof within bounds
//! (CL-13: unrolling without a remainder).

use std::path::PathBuf;

use crate::cli::{CliError, Exit};
use crate::prove::format::Kind;
use crate::prove::{recorded_findings, render_table, summary, ClaimResult, Status};

/// Run the claims suite and show one counterexample and one proof.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The claims directory (default: `./proofs` in the repository, else
    /// the copy built into the binary).
    pub dir: Option<PathBuf>,
}

/// The report of the first refine check of `id` whose verdict starts with
/// `verdict`.
fn refine_detail<'a>(results: &'a [ClaimResult], id: &str, verdict: &str) -> Option<&'a str> {
    let r = results.iter().find(|r| r.claim.id == id)?;
    r.checks
        .iter()
        .find(|(c, o, _)| c.kind == Kind::Refine && o.verdict.starts_with(verdict))
        .map(|(_, o, _)| o.detail.as_str())
}

pub fn run(args: &Args) -> Result<Exit, CliError> {
    let dir = crate::builtin::claims_dir(args.dir.as_deref())?;
    let results = crate::cmd::prove::run_suite(&dir, None)?;
    let findings = std::fs::read_to_string(dir.join("FINDINGS.md")).unwrap_or_default();
    let n_findings = recorded_findings(&findings).len();
    print!("{}", render_table(&results, false));
    println!();
    println!("== headline");
    println!("{}", summary(&results));
    println!(
        "{n_findings} findings recorded in {} (documents vs LLVM 22 vs this tool)",
        dir.join("FINDINGS.md").display()
    );
    println!();
    println!(
        "== CL-12: unrolling with a remainder when the heart uses an outer anchor (forbidden)"
    );
    match refine_detail(&results, "CL-12", "counterexample") {
        Some(d) => print!("{d}"),
        None => println!("(no counterexample obtained: see the table above)"),
    }
    println!();
    println!("== CL-13: unrolling by 2 without a remainder (allowed), proved within bounds");
    match refine_detail(&results, "CL-13", "refines") {
        Some(d) => print!("{d}"),
        None => println!("(no proof obtained: see the table above)"),
    }
    Ok(if results.iter().any(|r| r.status == Status::Disagrees) {
        Exit::Negative
    } else {
        Exit::Ok
    })
}
