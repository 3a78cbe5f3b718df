//! `convcheck prove [DIR]`: the spec-validation suite. Reads every claim
//! file of DIR (default `proofs`), rejects malformed files and unknown
//! fields with `file:line`, runs every check through the library and
//! prints the table (claim, source section, expected, obtained, bounds and
//! modes, time).
//!
//! Exit status: 0 every claim confirmed, not checked, or disagreeing with a
//! recorded finding; 1 a claim disagrees without a finding; 2 bad claim
//! files.

use std::path::{Path, PathBuf};

use crate::cli::{CliError, EXIT_NEGATIVE, EXIT_OK};
use crate::prove::format::{load_dir, Claim};
use crate::prove::{
    check_finding_classes, check_links, recorded_findings, render_table, run_claim, summary,
    ClaimResult, Status,
};

/// Check the documents' claims (one file per claim in DIR) and print the
/// table of expected and obtained verdicts.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The directory of claim files (`*.claim`) and FINDINGS.md; paths in
    /// the claims are relative to its parent directory.
    #[arg(default_value = "proofs")]
    pub dir: PathBuf,
    /// Only the claims whose ID starts with this prefix (e.g. `CL-1`).
    #[arg(long)]
    pub only: Option<String>,
    /// Print every check's full report (counterexample tables, witnesses).
    #[arg(long)]
    pub verbose: bool,
    /// Validate the claim files, the finding links and every finding's
    /// class in FINDINGS.md, run nothing.
    #[arg(long)]
    pub check_format: bool,
}

/// Loads and validates the claims of `dir` and their finding links.
pub fn load(dir: &Path) -> Result<Vec<Claim>, CliError> {
    let claims = load_dir(dir).map_err(|e| CliError::bad_input(e.to_string()))?;
    let findings_path = dir.join("FINDINGS.md");
    let findings = std::fs::read_to_string(&findings_path).unwrap_or_default();
    check_finding_classes(&findings).map_err(CliError::bad_input)?;
    check_links(&claims, &recorded_findings(&findings)).map_err(CliError::bad_input)?;
    Ok(claims)
}

/// The directory claim paths are relative to.
pub fn base_of(dir: &Path) -> PathBuf {
    match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Runs the claims of `dir` (filtered by `only`).
pub fn run_suite(dir: &Path, only: Option<&str>) -> Result<Vec<ClaimResult>, CliError> {
    let claims = load(dir)?;
    let base = base_of(dir);
    Ok(claims
        .iter()
        .filter(|c| only.is_none_or(|p| c.id.starts_with(p)))
        .map(|c| run_claim(&base, c))
        .collect())
}

pub fn run(args: &Args) -> Result<u8, CliError> {
    if args.check_format {
        let claims = load(&args.dir)?;
        println!("{} claim files are well-formed", claims.len());
        return Ok(EXIT_OK);
    }
    // One claim at a time, each printed as soon as it is done.
    let claims = load(&args.dir)?;
    let base = base_of(&args.dir);
    let mut results = Vec::new();
    let mut header = true;
    for c in claims
        .iter()
        .filter(|c| args.only.as_deref().is_none_or(|p| c.id.starts_with(p)))
    {
        let r = run_claim(&base, c);
        let table = render_table(std::slice::from_ref(&r), args.verbose);
        let rows = if header {
            table.as_str()
        } else {
            table.split_once('\n').map_or("", |x| x.1)
        };
        header = false;
        print!("{rows}");
        results.push(r);
    }
    println!("{}", summary(&results));
    Ok(if results.iter().any(|r| r.status == Status::Disagrees) {
        EXIT_NEGATIVE
    } else {
        EXIT_OK
    })
}
