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

use crate::cli::{CliError, Exit};
use crate::prove::format::{load_dir, Claim};
use crate::prove::{
    check_finding_classes, check_links, default_jobs, recorded_findings, render_table, run_claims,
    summary, ClaimResult, Event, Status,
};

/// Check the documents' claims (one file per claim in DIR) and print the
/// table of expected and obtained verdicts.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The directory of claim files (`*.claim`) and FINDINGS.md; paths in
    /// the claims are relative to its parent directory. Default: `./proofs`
    /// in the repository, else the copy built into the binary.
    pub dir: Option<PathBuf>,
    /// Only the claims whose ID starts with this prefix (e.g. `CL-1`).
    #[arg(long)]
    pub only: Option<String>,
    /// Print every check's full report (counterexample tables, witnesses).
    #[arg(long)]
    pub verbose: bool,
    /// Number of claims run at once (each on its own thread, with its own
    /// Z3 context). Default: the available parallelism, at most 2. The
    /// table and its order do not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
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

/// Runs the claims of `dir` (filtered by `only`) on the default number of
/// workers ([`default_jobs`]).
pub fn run_suite(dir: &Path, only: Option<&str>) -> Result<Vec<ClaimResult>, CliError> {
    run_suite_jobs(dir, only, default_jobs())
}

/// [`run_suite`] on `jobs` workers.
pub fn run_suite_jobs(
    dir: &Path,
    only: Option<&str>,
    jobs: usize,
) -> Result<Vec<ClaimResult>, CliError> {
    let claims = selected(load(dir)?, only);
    Ok(run_claims(&base_of(dir), &claims, jobs, &mut |_| {}))
}

fn selected(claims: Vec<Claim>, only: Option<&str>) -> Vec<Claim> {
    claims
        .into_iter()
        .filter(|c| only.is_none_or(|p| c.id.starts_with(p)))
        .collect()
}

/// A progress bar on stderr when it is a terminal (hidden otherwise, so
/// pipes and logs get only the table).
fn progress_bar(len: usize) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(len as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {pos}/{len} claims  running: {msg}",
    ) {
        pb.set_style(style);
    }
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    pb
}

pub fn run(args: &Args) -> Result<Exit, CliError> {
    let dir = crate::builtin::claims_dir(args.dir.as_deref())?;
    if args.check_format {
        let claims = load(&dir)?;
        println!("{} claim files are well-formed", claims.len());
        return Ok(Exit::Ok);
    }
    let claims = selected(load(&dir)?, args.only.as_deref());
    let base = base_of(&dir);
    let jobs = args.jobs.unwrap_or_else(default_jobs).max(1);
    // Claims may finish out of order on several workers; each is printed
    // as soon as it and every claim before it are done, so the table is
    // the same for every --jobs.
    let pb = progress_bar(claims.len());
    let mut done: Vec<Option<String>> = vec![None; claims.len()];
    let mut running: Vec<usize> = Vec::new();
    let mut printed = 0;
    let mut on_event = |ev: Event<'_>| {
        match ev {
            Event::Started(i) => running.push(i),
            Event::Done(i, r) => {
                running.retain(|&j| j != i);
                let table = render_table(std::slice::from_ref(r), args.verbose);
                let rows = if i == 0 {
                    table
                } else {
                    table.split_once('\n').map_or("", |x| x.1).to_string()
                };
                done[i] = Some(rows);
                pb.inc(1);
                while let Some(Some(rows)) = done.get(printed) {
                    pb.suspend(|| print!("{rows}"));
                    printed += 1;
                }
            }
        }
        let ids: Vec<&str> = running.iter().map(|&j| claims[j].id.as_str()).collect();
        pb.set_message(ids.join(" "));
    };
    let results = run_claims(&base, &claims, jobs, &mut on_event);
    pb.finish_and_clear();
    println!("{}", summary(&results));
    Ok(if results.iter().any(|r| r.status == Status::Disagrees) {
        Exit::Negative
    } else {
        Exit::Ok
    })
}
