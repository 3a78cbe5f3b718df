//! Running one check of a claim file through the library APIs (never by
//! spawning `convcheck`): the command line of the check is parsed by the
//! same clap `Args` as the subcommand, so a claim file reads like the
//! command a person would type.

use std::path::{Path, PathBuf};

use clap::Parser;
use semantics::machine::{explore, query};
use semantics::rules::{verify_module, Options as RuleOptions};

use crate::cli::load_module;
use crate::cmd;
use crate::refine::report::render_text;
use crate::refine::{check_pair, Options, PairResult, Verdict};
use crate::smt::Session;

use super::format::{Check, Expect, Kind, RefineExpect};
use super::meta;

/// What a check produced.
#[derive(Clone, Debug)]
pub struct Obtained {
    /// The verdict in the vocabulary of `expect`.
    pub verdict: String,
    /// Whether it matches the expectation.
    pub agrees: bool,
    /// Bounds and modes the verdict holds under.
    pub bounds: String,
    /// The full report (counterexample table, witness, ...).
    pub detail: String,
    /// The check could not be run by this build (a missing capability):
    /// never counted as agreement.
    pub not_checked: bool,
}

impl Obtained {
    pub(crate) fn error(bounds: String, message: String) -> Obtained {
        Obtained {
            verdict: format!("error: {message}"),
            agrees: false,
            bounds,
            detail: message,
            not_checked: false,
        }
    }
}

#[derive(Parser)]
#[command(name = "verify", no_binary_name = true)]
struct VerifyCli {
    #[command(flatten)]
    a: cmd::verify::Args,
}

#[derive(Parser)]
#[command(name = "run", no_binary_name = true)]
struct RunCli {
    #[command(flatten)]
    a: cmd::run::Args,
}

#[derive(Parser)]
#[command(name = "uniformity", no_binary_name = true)]
struct UnifCli {
    #[command(flatten)]
    a: cmd::uniformity::Args,
}

#[derive(Parser)]
#[command(name = "refine", no_binary_name = true)]
struct RefineCli {
    #[command(flatten)]
    a: cmd::refine::Args,
}

fn rebase(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// Runs `check`, resolving relative paths against `base` (the directory
/// that holds `proofs/` and `examples/`).
pub fn run_check(base: &Path, check: &Check) -> Obtained {
    let args = check.args.clone();
    let joined = args.join(" ");
    match check.kind {
        Kind::Verify => match VerifyCli::try_parse_from(&args) {
            Ok(c) => verify(base, &c.a, &check.expect),
            Err(e) => Obtained::error(joined, first_line(&e.to_string())),
        },
        Kind::Run => match RunCli::try_parse_from(&args) {
            Ok(c) => run(base, &c.a, &check.expect),
            Err(e) => Obtained::error(joined, first_line(&e.to_string())),
        },
        Kind::Uniformity => match UnifCli::try_parse_from(&args) {
            Ok(c) => uniformity(base, &c.a),
            Err(e) => Obtained::error(joined, first_line(&e.to_string())),
        },
        Kind::Refine => match RefineCli::try_parse_from(&args) {
            Ok(c) => refine(base, &c.a, &check.expect),
            Err(e) => Obtained::error(joined, first_line(&e.to_string())),
        },
        Kind::Meta => meta::run(base, &args),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

/// `verify`: `valid`, or `invalid R1,R2` (the expected rules must all be
/// among the rules the verifier reports).
fn verify(base: &Path, a: &cmd::verify::Args, expect: &Expect) -> Obtained {
    let bounds = if a.llvm_compatible {
        "llvm-compatible".to_string()
    } else {
        "document rules".to_string()
    };
    let path = rebase(base, &a.file);
    let m = match load_module(&path) {
        Ok(m) => m,
        Err(e) => return Obtained::error(bounds, e.message),
    };
    let report = verify_module(
        &m,
        &RuleOptions {
            llvm_compatible: a.llvm_compatible,
            closed_paths: a.closed_paths,
        },
    );
    let rules = report.rules();
    let verdict = if rules.is_empty() {
        Expect::Valid
    } else {
        Expect::InvalidRules(rules.to_vec())
    };
    let agrees = match expect {
        Expect::Valid => rules.is_empty(),
        Expect::InvalidRules(want) => !rules.is_empty() && want.iter().all(|w| rules.contains(w)),
        _ => false,
    };
    let verdict = verdict.to_string();
    Obtained {
        detail: semantics::rules::render_text(&a.file.display().to_string(), &report),
        verdict,
        agrees,
        bounds,
        not_checked: false,
    }
}

/// `run --exists COND`: Always / Sometimes / Never over every execution
/// the interpreter explores within the bounds.
fn run(base: &Path, a: &cmd::run::Args, expect: &Expect) -> Obtained {
    let bounds = format!(
        "threads {}, steps {}, anchor {}, {}{}",
        a.threads,
        a.max_steps,
        format!("{:?}", a.anchor).to_lowercase(),
        format!("{:?}", a.uncontrolled).to_lowercase(),
        if a.args.is_empty() {
            String::new()
        } else {
            format!(", args {}", a.args.join(" "))
        }
    );
    let m = match load_module(&rebase(base, &a.file)) {
        Ok(m) => m,
        Err(e) => return Obtained::error(bounds, e.message),
    };
    let opts = match cmd::run::options(a) {
        Ok(o) => o,
        Err(e) => return Obtained::error(bounds, e.message),
    };
    let Some(text) = &a.exists else {
        return Obtained::error(bounds, "no --exists condition".into());
    };
    let cond = match query::parse(text) {
        Ok(c) => c,
        Err(e) => return Obtained::error(bounds, format!("--exists: {e}")),
    };
    let ex = match explore(&m, &opts) {
        Ok(x) => x,
        Err(e) => return Obtained::error(bounds, e.to_string()),
    };
    let (answer, witness) = query::answer(&m, &cond, &ex);
    let obtained = Expect::Exists(answer);
    let bounds = format!(
        "{bounds}; {} executions{}",
        ex.explored,
        if ex.complete { "" } else { " (incomplete)" }
    );
    Obtained {
        agrees: obtained == *expect,
        detail: format!(
            "{text}: {answer}{}",
            witness.map_or(String::new(), |w| format!(" (witness: behaviour {w})"))
        ),
        verdict: obtained.to_string(),
        bounds,
        not_checked: false,
    }
}

/// The SSA name a printed instruction defines (`%x = ...`).
fn defined_name(text: &str) -> Option<&str> {
    let (lhs, _) = text.split_once(" = ")?;
    lhs.trim().strip_prefix('%')
}

/// `uniformity`: the naming convention of `examples/uniformity` (values
/// `%uni.*` are uniform, `%div.*` divergent, as the document states).
fn uniformity(base: &Path, a: &cmd::uniformity::Args) -> Obtained {
    use semantics::uniformity::Mode;
    let mode = if a.sound { Mode::Sound } else { Mode::Llvm };
    let bounds = match mode {
        Mode::Llvm => "amdgcn, LLVM-compatible analysis",
        Mode::Sound => "amdgcn, sound analysis (--sound)",
    }
    .to_string();
    let m = match load_module(&rebase(base, &a.file)) {
        Ok(m) => m,
        Err(e) => return Obtained::error(bounds, e.message),
    };
    let mut named = 0;
    let mut wrong = Vec::new();
    for fu in semantics::uniformity::analyze_module_with(&m, mode) {
        for b in &fu.blocks {
            for d in &b.definitions {
                let Some(name) = defined_name(&d.text) else {
                    continue;
                };
                let want_div = if name.starts_with("div.") {
                    true
                } else if name.starts_with("uni.") {
                    false
                } else {
                    continue;
                };
                named += 1;
                if d.divergent != want_div {
                    wrong.push(format!(
                        "@{} %{name}: {}",
                        fu.function,
                        if d.divergent { "divergent" } else { "uniform" }
                    ));
                }
            }
        }
    }
    let agrees = wrong.is_empty() && named > 0;
    Obtained {
        verdict: if agrees {
            format!("names ({named} values)")
        } else if named == 0 {
            "no %uni./%div. values".into()
        } else {
            format!("{} of {named} differ", wrong.len())
        },
        agrees,
        bounds,
        detail: wrong.join("\n"),
        not_checked: false,
    }
}

/// CEGIS iterations per thread count in the suite (the command's default
/// is 64): keeps the suite within its time budget; a check that needs more
/// answers `unknown`, reported as not checked.
pub const PROVE_MAX_ITERATIONS: usize = 16;

/// A refinement check and its printed report.
pub struct RefineRun {
    /// The verdict, in the vocabulary of `expect`.
    pub kind: RefineExpect,
    /// The verdict as printed (with the reason of `unknown`).
    pub verdict: String,
    /// No verdict: the checker cannot encode a construct, or it answered
    /// unknown within its limits (a missing capability, not a verdict).
    pub unsupported: bool,
    pub bounds: String,
    pub text: String,
}

/// `refine`: the same steps as `convcheck refine` (static rules on both
/// sides, prepare, CEGIS, counterexample replay), returning the verdict
/// word and the text report.
pub fn refine_check(base: &Path, a: &cmd::refine::Args) -> Result<RefineRun, String> {
    let threads = cmd::refine::parse_threads(&a.threads)?;
    let bounds = format!(
        "threads {}, K={}, observe {:?}, {:?}",
        a.threads, a.max_steps, a.observe, a.uncontrolled
    )
    .to_lowercase();
    let src = load_module(&rebase(base, &a.src)).map_err(|e| e.message)?;
    let tgt = load_module(&rebase(base, &a.tgt)).map_err(|e| e.message)?;
    let kernel = match &a.kernel {
        Some(k) => k.trim_start_matches('@').to_string(),
        None => src
            .functions
            .iter()
            .find(|f| f.has_body())
            .map(|f| f.name.clone())
            .ok_or("the source defines no function")?,
    };
    let opts = Options {
        max_iterations: PROVE_MAX_ITERATIONS,
        ..a.options(threads)
    };
    let mut session = Session::new(None);
    let result = check_pair(&src, &tgt, &kernel, &opts, &mut session, !a.no_replay, None)
        .map_err(|e| e.to_string())?;
    let (outcome, replay, inlined) = match result {
        PairResult::Invalid {
            role,
            rules,
            message,
        } => {
            return Ok(RefineRun {
                kind: RefineExpect::Invalid,
                verdict: "invalid".into(),
                unsupported: false,
                bounds,
                text: format!("the {role} breaks {}: {message}", rules.join(", ")),
            })
        }
        PairResult::Unsupported { role, message, .. } => {
            return Ok(RefineRun {
                kind: RefineExpect::Unknown,
                verdict: "not checked (unsupported)".into(),
                unsupported: true,
                bounds,
                text: format!("unsupported by the refinement checker in the {role}: {message}"),
            })
        }
        PairResult::Checked {
            outcome,
            replay,
            inlined,
        } => (outcome, replay, inlined),
    };
    let report = a.report(
        &kernel,
        &opts,
        (&outcome, replay.as_ref()),
        session.log.len(),
        (&src, &tgt),
        inlined.as_deref(),
    );
    let text = render_text(&report);
    if let Some(Err(e)) = &replay {
        return Err(format!(
            "R-CEX: the interpreter does not confirm the counterexample: {e}"
        ));
    }
    let unknown = matches!(outcome.verdict, Verdict::Unknown(_));
    let (kind, verdict) = match &outcome.verdict {
        Verdict::Refines { .. } => (RefineExpect::Refines, "refines".to_string()),
        Verdict::Counterexample(_) => (RefineExpect::Counterexample, "counterexample".to_string()),
        Verdict::Unknown(r) => (RefineExpect::Unknown, format!("unknown ({r})")),
        Verdict::Vacuous(r) => (RefineExpect::Unknown, format!("unknown ({r})")),
    };
    Ok(RefineRun {
        kind,
        verdict,
        unsupported: unknown,
        bounds,
        text,
    })
}

fn refine(base: &Path, a: &cmd::refine::Args, expect: &Expect) -> Obtained {
    match refine_check(base, a) {
        Ok(r) => Obtained {
            agrees: !r.unsupported && *expect == Expect::Refine(r.kind),
            verdict: r.verdict,
            bounds: r.bounds,
            detail: r.text,
            not_checked: r.unsupported,
        },
        Err(e) => Obtained::error(format!("threads {}, K={}", a.threads, a.max_steps), e),
    }
}
