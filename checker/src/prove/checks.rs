//! Running one check of a claim file through the library APIs (never by
//! spawning `convcheck`). The check's command line has already become
//! library options ([`super::request`]); nothing here sees the CLI's types.

use std::path::Path;

use semantics::machine::{explore, query};
use semantics::rules::verify_module;
use semantics::uniformity::Mode;

use crate::cli::load_module;
use crate::refine::report::{render_text, Report};
use crate::refine::{check, Options, PairResult, Verdict};

use super::format::{Check, Expect, RefineExpect};
use super::meta;
use super::request::{request, RefineRequest, Request};

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

/// Runs `check`, resolving relative paths against `base` (the directory
/// that holds `proofs/` and `examples/`).
pub fn run_check(base: &Path, check: &Check) -> Obtained {
    let parsed = match request(base, check) {
        Ok(p) => p,
        Err(r) => return Obtained::error(r.bounds, r.message),
    };
    let bounds = parsed.bounds;
    match parsed.request {
        Request::Verify { file, shown, rules } => {
            verify(&file, &shown, &rules, bounds, &check.expect)
        }
        Request::Run { file, opts, exists } => run(&file, &opts, &exists, bounds, &check.expect),
        Request::Uniformity { file, mode } => uniformity(&file, mode, bounds),
        Request::Refine(r) => refine(&r, bounds, &check.expect),
        Request::Meta(args) => meta::run(base, &args),
    }
}

/// `verify`: `valid`, or `invalid R1,R2` (the expected rules must all be
/// among the rules the verifier reports).
fn verify(
    path: &Path,
    shown: &str,
    rules: &semantics::rules::Options,
    bounds: String,
    expect: &Expect,
) -> Obtained {
    let m = match load_module(path) {
        Ok(m) => m,
        Err(e) => return Obtained::error(bounds, e.message),
    };
    let report = verify_module(&m, rules);
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
        detail: semantics::rules::render_text(shown, &report),
        verdict,
        agrees,
        bounds,
        not_checked: false,
    }
}

/// `run --exists COND`: Always / Sometimes / Never over every execution
/// the interpreter explores within the bounds.
fn run(
    path: &Path,
    opts: &semantics::machine::Options,
    (text, cond): &(String, query::Cond),
    bounds: String,
    expect: &Expect,
) -> Obtained {
    let m = match load_module(path) {
        Ok(m) => m,
        Err(e) => return Obtained::error(bounds, e.message),
    };
    let ex = match explore(&m, opts) {
        Ok(x) => x,
        Err(e) => return Obtained::error(bounds, e.to_string()),
    };
    let (answer, witness) = query::answer(&m, cond, &ex);
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
fn uniformity(path: &Path, mode: Mode, bounds: String) -> Obtained {
    let m = match load_module(path) {
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
pub fn refine_check(
    (src, tgt): (&Path, &Path),
    names: (String, String),
    kernel: Option<&str>,
    opts: &Options,
    replay: bool,
    bounds: String,
) -> Result<RefineRun, String> {
    let src_m = load_module(src).map_err(|e| e.message)?;
    let tgt_m = load_module(tgt).map_err(|e| e.message)?;
    let kernel = match kernel {
        Some(k) => k.trim_start_matches('@').to_string(),
        None => src_m
            .functions
            .iter()
            .find(|f| f.has_body())
            .map(|f| f.name.clone())
            .ok_or("the source defines no function")?,
    };
    let (src, tgt) = (&src_m, &tgt_m);
    let (result, queries) =
        check(src, tgt, &kernel, opts, replay, None).map_err(|e| e.to_string())?;
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
    let report = Report::new(
        names,
        &kernel,
        opts,
        (&outcome, replay.as_ref()),
        queries,
        (src, tgt),
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

fn refine(r: &RefineRequest, bounds: String, expect: &Expect) -> Obtained {
    let fallback = bounds.clone();
    match refine_check(
        (&r.src, &r.tgt),
        r.shown.clone(),
        r.kernel.as_deref(),
        &r.opts,
        r.replay,
        bounds,
    ) {
        Ok(r) => Obtained {
            agrees: !r.unsupported && *expect == Expect::Refine(r.kind),
            verdict: r.verdict,
            bounds: r.bounds,
            detail: r.text,
            not_checked: r.unsupported,
        },
        Err(e) => Obtained::error(fallback, e),
    }
}
