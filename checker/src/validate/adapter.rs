//! The one place `validate` touches the refinement checker: a source
//! module, a target module, a kernel name and the check's options in, one
//! per-function [`FnResult`] out. When refine's verdict types change, only
//! this file changes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use semantics::ir::Module;

use super::testing::{test_refinement, Tested};
use super::{FnResult, FnVerdict};
use crate::refine::report::{bounds_used_text, render_json, render_text, Report};
use crate::refine::{check, Options, PairResult, RefineError, Side, Verdict};

/// The two modules of a check and the files they were read from (for
/// messages and the counterexample's header).
pub struct Pair<'a> {
    pub src: &'a Module,
    pub tgt: &'a Module,
    pub src_path: &'a str,
    pub tgt_path: &'a str,
}

/// Checks that `@kernel` of `pair.tgt` refines `@kernel` of `pair.src`
/// (R-REF within `opts`' bounds, R-BOUND). `time_limit` bounds the whole
/// check: past it, every Z3 query of this check is interrupted and the
/// verdict is unknown. The check runs on a thread of its own, so it has a
/// Z3 context of its own (an interrupt cannot leak into another check).
pub fn check_function(
    pair: &Pair,
    kernel: &str,
    opts: &Options,
    replay: bool,
    time_limit: Option<Duration>,
) -> FnResult {
    let start = Instant::now();
    let joined = std::thread::scope(|s| {
        s.spawn(|| guarded(pair, kernel, opts, replay, time_limit, start))
            .join()
    });
    let seconds = start.elapsed().as_secs_f64();
    let mut r = FnResult {
        name: kernel.to_string(),
        verdict: FnVerdict::Unknown,
        reason: String::new(),
        bounds: bounds_used_text(opts, opts.max_steps),
        seconds,
        text: None,
        counterexample: None,
        internal: None,
        bisect: None,
        steps: opts.max_steps,
        buffer_bytes: opts.buffer_bytes,
        reflexive: false,
    };
    let Ok((result, timed_out, queries)) = joined else {
        // The panic message went to stderr through the panic hook.
        r.reason = "internal error: the check panicked".into();
        r.internal = Some(r.reason.clone());
        return r;
    };
    decide(
        pair, kernel, opts, time_limit, start, result, timed_out, queries, &mut r,
    );
    if super::unchanged::unchanged(pair.src, pair.tgt, kernel).is_ok() {
        reflexivity(&mut r);
    }
    r
}

/// R-REFL: the pipeline did not change the function, so it refines for
/// every bound. A verdict the check could not give (unsupported, unknown,
/// vacuous) becomes "refines" with the check's answer kept in the reason;
/// a counterexample is our bug (the encoding or the interpreter is not
/// reflexive) and is reported as an internal error.
fn reflexivity(r: &mut FnResult) {
    match r.verdict {
        FnVerdict::Refines | FnVerdict::Invalid => {}
        _ if r.internal.is_some() => {}
        FnVerdict::Counterexample => {
            r.verdict = FnVerdict::Unknown;
            r.reason = "internal error: R-REFL: a counterexample for a function the pipeline \
                        did not change (refinement is reflexive)"
                .into();
            r.internal = Some(r.reason.clone());
        }
        FnVerdict::Unknown | FnVerdict::Vacuous | FnVerdict::Unsupported => {
            let check = format!("{}: {}", r.verdict.name(), r.reason);
            r.verdict = FnVerdict::Refines;
            r.reflexive = true;
            r.text = None;
            r.counterexample = None;
            r.reason = format!(
                "unchanged by the pipeline, so it refines for every bound (R-REFL); \
                 the check alone: {check}"
            );
        }
    }
}

/// The verdict of the check's `result` into `r`.
#[allow(clippy::too_many_arguments)]
fn decide(
    pair: &Pair,
    kernel: &str,
    opts: &Options,
    time_limit: Option<Duration>,
    start: Instant,
    result: Result<PairResult, RefineError>,
    timed_out: bool,
    queries: usize,
    r: &mut FnResult,
) {
    let limit_text = |l: Duration| {
        format!(
            "per-function time limit of {}s reached (--time-limit)",
            l.as_secs_f64()
        )
    };
    let location = |role: Side| role.pick(pair.src_path, pair.tgt_path);
    match result {
        Err(_) if timed_out => {
            r.reason = limit_text(time_limit.expect("timed_out implies a limit"));
        }
        Err(RefineError::Signature(m)) => {
            r.verdict = FnVerdict::Unsupported;
            r.reason = format!("the pass changed the parameters: {m}");
        }
        Err(e) => {
            r.reason = format!("internal error: {e}");
            r.internal = Some(e.to_string());
        }
        Ok(PairResult::Invalid {
            role,
            rules,
            message,
        }) => {
            r.verdict = FnVerdict::Invalid;
            r.reason = format!(
                "the {role} ({}) breaks {}: {message}",
                location(role),
                rules.join(", ")
            );
        }
        Ok(PairResult::Unsupported {
            role,
            message,
            span,
        }) => {
            r.verdict = FnVerdict::Unsupported;
            let m = role.pick(pair.src, pair.tgt);
            r.reason = match span {
                Some(sp) => format!(
                    "in the {role}: {}:{}:{}: {message}",
                    location(role),
                    sp.line,
                    sp.col
                ),
                None => format!("in the {role}: {}", place(location(role), m, &message)),
            };
            // The encoding cannot say; the interpreter can still find a
            // difference on concrete launches (never a proof).
            let deadline = time_limit.map(|l| start + l);
            match test_refinement(pair.src, pair.tgt, kernel, opts, deadline) {
                Tested::Counterexample(text) => {
                    r.verdict = FnVerdict::Counterexample;
                    r.reason = format!(
                        "found by interpreter testing (the refinement encoding does not cover it: {})",
                        r.reason
                    );
                    r.text = Some(text);
                }
                Tested::NoDifference {
                    launches,
                    target_behaviours,
                    bounds,
                } => {
                    r.reason = format!(
                        "{}; interpreter testing found no difference on {launches} launches ({target_behaviours} target behaviours; {bounds}), which is not a proof",
                        r.reason
                    );
                }
                Tested::NotTested(why) => {
                    r.reason = format!("{}; not tested on the interpreter: {why}", r.reason);
                }
            }
            r.seconds = start.elapsed().as_secs_f64();
        }
        Ok(PairResult::Checked {
            outcome,
            replay,
            inlined,
        }) => {
            let report = Report {
                src: pair.src_path.to_string(),
                tgt: pair.tgt_path.to_string(),
                kernel: kernel.to_string(),
                opts,
                outcome: &outcome,
                replay: replay.as_ref(),
                queries,
                src_module: inlined.as_deref().map_or(pair.src, |b| &b.0),
                tgt_module: inlined.as_deref().map_or(pair.tgt, |b| &b.1),
                inlined: inlined.is_some(),
            };
            // R-BOUND: the bound the verdict holds for (`--grow-steps`).
            r.bounds = bounds_used_text(opts, outcome.max_steps);
            if let Some(b) = crate::refine::report::buffers_text(opts, outcome.buffer_bytes) {
                r.bounds = format!("{}; {b}", r.bounds);
            }
            r.steps = outcome.max_steps;
            r.buffer_bytes = outcome.buffer_bytes;
            match &outcome.verdict {
                Verdict::Refines { cut } => {
                    r.verdict = FnVerdict::Refines;
                    if cut.iter().any(|c| !c.stuck) {
                        r.reason = "some executions cut by the step bound, not compared".into();
                    } else if !cut.is_empty() {
                        r.reason = "some threads never return (R-PREFIX: stuck, compared as \
                                    such)"
                            .into();
                    }
                }
                Verdict::Counterexample(_) => {
                    r.verdict = FnVerdict::Counterexample;
                    r.text = Some(render_text(&report));
                    r.counterexample = render_json(&report).get("counterexample").cloned();
                    if let Some(Err(e)) = &replay {
                        r.verdict = FnVerdict::Unknown;
                        r.reason = format!(
                            "internal error: R-CEX: the reference interpreter does not confirm \
                             the counterexample: {e}"
                        );
                        r.internal = Some(r.reason.clone());
                    }
                }
                Verdict::Unknown(why) => {
                    r.reason = match time_limit {
                        Some(l) if timed_out => limit_text(l),
                        _ => why.to_string(),
                    };
                }
                Verdict::Vacuous(why) => {
                    r.verdict = FnVerdict::Vacuous;
                    r.reason = why.to_string();
                }
            }
        }
    }
}

/// `file:line:col: construct (where)` for refine's "construct at @k %b
/// line N" (the column is the instruction's on that line); other messages
/// as `file: message`.
fn place(file: &str, m: &Module, message: &str) -> String {
    let parsed = message.rsplit_once(" line ").and_then(|(head, line)| {
        let line: u32 = line.trim().parse().ok()?;
        let (construct, at) = head.rsplit_once(" at ")?;
        Some((construct, at, line))
    });
    let Some((construct, at, line)) = parsed else {
        return format!("{file}: {message}");
    };
    let col = m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.insts)
        .find(|i| i.span.line == line)
        .map_or(1, |i| i.span.col);
    format!("{file}:{line}:{col}: {construct} ({at})")
}

/// Runs the check with a watchdog that, once `time_limit` has passed,
/// interrupts this thread's Z3 context until the check returns. Returns
/// the result, whether the limit was reached and the number of queries.
fn guarded(
    pair: &Pair,
    kernel: &str,
    opts: &Options,
    replay: bool,
    time_limit: Option<Duration>,
    start: Instant,
) -> (Result<PairResult, RefineError>, bool, usize) {
    let ctx = z3::Context::thread_local();
    let done = AtomicBool::new(false);
    let fired = AtomicBool::new(false);
    let result = std::thread::scope(|s| {
        if let Some(limit) = time_limit {
            let handle = ctx.handle();
            let (done, fired) = (&done, &fired);
            s.spawn(move || {
                let deadline = start + limit;
                while !done.load(Ordering::Acquire) {
                    let now = Instant::now();
                    if now >= deadline {
                        fired.store(true, Ordering::Release);
                        handle.interrupt();
                        std::thread::sleep(Duration::from_millis(20));
                    } else {
                        std::thread::sleep((deadline - now).min(Duration::from_millis(50)));
                    }
                }
            });
        }
        let r = check(
            pair.src,
            pair.tgt,
            kernel,
            &Options {
                // No single query may outlive the function's limit.
                timeout: time_limit.map_or(opts.timeout, |l| opts.timeout.min(l)),
                ..opts.clone()
            },
            replay,
            None,
        );
        done.store(true, Ordering::Release);
        match r {
            Ok((r, queries)) => (Ok(r), queries),
            Err(e) => (Err(e), 0),
        }
    });
    (result.0, fired.load(Ordering::Acquire), result.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(verdict: FnVerdict) -> FnResult {
        FnResult {
            name: "k".into(),
            verdict,
            reason: "why".into(),
            bounds: String::new(),
            seconds: 0.0,
            text: None,
            counterexample: None,
            internal: None,
            bisect: None,
            steps: 8,
            buffer_bytes: 64,
            reflexive: false,
        }
    }

    /// R-REFL: an unchanged function's counterexample is our bug; what
    /// the check could not decide refines; a verdict it gave stands.
    #[test]
    fn reflexivity_decides_only_what_the_check_could_not() {
        let mut c = result(FnVerdict::Counterexample);
        reflexivity(&mut c);
        assert_eq!(c.verdict, FnVerdict::Unknown);
        assert!(c.internal.as_deref().is_some_and(|m| m.contains("R-REFL")));
        for v in [
            FnVerdict::Unknown,
            FnVerdict::Vacuous,
            FnVerdict::Unsupported,
        ] {
            let mut r = result(v);
            reflexivity(&mut r);
            assert_eq!(r.verdict, FnVerdict::Refines);
            assert!(r.reflexive);
            assert!(r
                .reason
                .contains(&format!("the check alone: {}: why", v.name())));
        }
        for v in [FnVerdict::Refines, FnVerdict::Invalid] {
            let mut r = result(v);
            reflexivity(&mut r);
            assert_eq!(r.verdict, v);
            assert!(!r.reflexive);
        }
    }
}
