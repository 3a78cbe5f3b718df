//! The spec-validation suite: one claim file per claim of CLAIMS.md in
//! `proofs/` ([`format`]), each check run through the library
//! ([`checks`], [`meta`]), and the verdict compared with the one the
//! document states. A disagreement is acceptable only when the claim links
//! a finding recorded in `proofs/FINDINGS.md` (CLAIMS.md: "A claim the tool
//! cannot confirm is not edited to pass: it is a finding").

pub mod checks;
pub mod format;
pub mod meta;
pub mod request;
pub mod sets;

use std::fmt::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use checks::{run_check, Obtained};
use format::{Check, Claim};

/// The outcome of one claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every check gives the document's verdict.
    Confirmed,
    /// Some check disagrees, and the claim links a recorded finding.
    Finding,
    /// Some check disagrees and no finding is recorded: a failure.
    Disagrees,
    /// A check needs a capability this build lacks (and none disagrees).
    NotChecked,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Confirmed => "confirmed",
            Status::Finding => "finding",
            Status::Disagrees => "DISAGREES",
            Status::NotChecked => "not checked",
        }
    }
}

/// One claim's result.
#[derive(Clone, Debug)]
pub struct ClaimResult {
    pub claim: Claim,
    pub checks: Vec<(Check, Obtained, Duration)>,
    pub status: Status,
    pub time: Duration,
}

/// Runs one claim.
pub fn run_claim(base: &Path, claim: &Claim) -> ClaimResult {
    let start = Instant::now();
    let mut checks = Vec::new();
    for c in &claim.checks {
        let t = Instant::now();
        let o = run_check(base, c);
        checks.push((c.clone(), o, t.elapsed()));
    }
    let disagree = checks.iter().any(|(_, o, _)| !o.agrees && !o.not_checked);
    let not_checked = checks.iter().any(|(_, o, _)| o.not_checked);
    let status = match (disagree, claim.findings.is_empty(), not_checked) {
        (true, false, _) => Status::Finding,
        (true, true, _) => Status::Disagrees,
        (false, _, true) => Status::NotChecked,
        (false, _, false) => Status::Confirmed,
    };
    ClaimResult {
        claim: claim.clone(),
        checks,
        status,
        time: start.elapsed(),
    }
}

/// The number of claims run at once when not given (`--jobs`): the
/// available parallelism, at most 2 (the refine checks dominate and each
/// holds a Z3 context and its memory).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 2)
}

/// Runs `claims` on `jobs` worker threads (at least 1) and returns the
/// results in the order of `claims`, whatever order they finish in.
/// `on_event` is called on the calling thread when a claim starts
/// (`Started(i)`) and when it is done (`Done(i, result)`), e.g. to print
/// finished claims in order or to drive a progress bar.
///
/// Each claim runs entirely on one worker: its refine checks create their
/// Z3 solver there (the `z3` crate's context is per thread), and nothing of
/// Z3 crosses threads (results are text).
pub fn run_claims(
    base: &Path,
    claims: &[Claim],
    jobs: usize,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Vec<ClaimResult> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<ClaimResult>> = vec![None; claims.len()];
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Option<ClaimResult>)>();
        for _ in 0..jobs.clamp(1, claims.len().max(1)) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(c) = claims.get(i) else { break };
                // A closed channel means the caller is gone: stop quietly.
                if tx.send((i, None)).is_err() {
                    break;
                }
                if tx
                    .send((i, Some(crate::smt::in_fresh_context(|| run_claim(base, c)))))
                    .is_err()
                {
                    break;
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            match r {
                None => on_event(Event::Started(i)),
                Some(r) => {
                    on_event(Event::Done(i, &r));
                    results[i] = Some(r);
                }
            }
        }
    });
    results
        .into_iter()
        .map(|r| r.expect("every claim index below claims.len() is taken by one worker, which sends its result"))
        .collect()
}

/// What [`run_claims`] reports while it runs.
#[derive(Debug)]
pub enum Event<'a> {
    /// Claim `i` started on a worker.
    Started(usize),
    /// Claim `i` is done.
    Done(usize, &'a ClaimResult),
}

/// The finding IDs (`### F-NN ...` headings) recorded in a FINDINGS.md.
pub fn recorded_findings(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("### "))
        .filter_map(|h| h.split_whitespace().next())
        .filter(|id| id.starts_with("F-"))
        .map(str::to_string)
        .collect()
}

/// The classes a finding's heading may name (FINDINGS.md's introduction).
pub const FINDING_CLASSES: [&str; 7] = [
    "tool bug",
    "document ambiguity",
    "document error",
    "LLVM divergence",
    "LLVM approximation",
    "LLVM behaviour",
    "our limitation",
];

/// Checks that every `### F-NN` heading of a FINDINGS.md ends with a
/// parenthesised class naming at least one of [`FINDING_CLASSES`], and that
/// a tool bug says whether it is `fixed` or `open`. Returns every offending
/// heading.
pub fn check_finding_classes(text: &str) -> Result<(), String> {
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(h) = line.strip_prefix("### F-") else {
            continue;
        };
        let class = h
            .trim_end()
            .strip_suffix(')')
            .and_then(|x| x.rsplit_once('('))
            .map(|x| x.1);
        let problem = match class {
            None => Some("no class in parentheses at the end of the heading"),
            Some(c) if !FINDING_CLASSES.iter().any(|k| c.contains(k)) => {
                Some("the class names none of the known classes")
            }
            Some(c) if c.contains("tool bug") && !c.contains("fixed") && !c.contains("open") => {
                Some("a tool bug must say `fixed` or `open`")
            }
            _ => None,
        };
        if let Some(p) = problem {
            bad.push(format!("FINDINGS.md:{}: {p}: {line}", n + 1));
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n(known classes: {})",
            bad.join("\n"),
            FINDING_CLASSES.join(", ")
        ))
    }
}

/// Checks that every `finding` a claim links is recorded in `findings`.
pub fn check_links(claims: &[Claim], findings: &[String]) -> Result<(), String> {
    for c in claims {
        for f in &c.findings {
            if !findings.contains(f) {
                return Err(format!(
                    "{}: finding {f} is not recorded in FINDINGS.md",
                    c.path.display()
                ));
            }
        }
    }
    Ok(())
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('~');
        t
    }
}

/// The table `convcheck prove` prints: claim, source section, expected,
/// obtained, bounds and modes, time. One row per check; the claim's status
/// on its first row.
pub fn render_table(results: &[ClaimResult], verbose: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<6} {:<11} {:<34} {:<22} {:<30} {:<46} {:>7}",
        "claim", "status", "source", "expected", "obtained", "bounds and modes", "time"
    );
    for r in results {
        for (i, (c, o, t)) in r.checks.iter().enumerate() {
            let (id, st, src) = if i == 0 {
                (
                    r.claim.id.as_str(),
                    r.status.as_str().to_string(),
                    clip(&r.claim.source, 34),
                )
            } else {
                ("", String::new(), String::new())
            };
            let expected = format!("{} {}", c.kind.as_str(), c.expect);
            let _ = writeln!(
                s,
                "{:<6} {:<11} {:<34} {:<22} {:<30} {:<46} {:>6.1}s",
                id,
                st,
                src,
                clip(&expected, 22),
                clip(&o.verdict, 30),
                clip(&o.bounds, 46),
                t.as_secs_f64()
            );
            if verbose || (!o.agrees && !o.not_checked && r.claim.findings.is_empty()) {
                for l in o.detail.lines().take(40) {
                    let _ = writeln!(s, "       | {l}");
                }
            }
        }
        if !r.claim.findings.is_empty() && r.status == Status::Finding {
            let _ = writeln!(s, "       `-> recorded: {}", r.claim.findings.join(", "));
        }
    }
    s
}

/// Counts per status.
pub fn summary(results: &[ClaimResult]) -> String {
    let n = |st: Status| results.iter().filter(|r| r.status == st).count();
    format!(
        "{} claims: {} confirmed, {} disagree with a recorded finding, {} not checked, {} disagree without a finding",
        results.len(),
        n(Status::Confirmed),
        n(Status::Finding),
        n(Status::NotChecked),
        n(Status::Disagrees)
    )
}
