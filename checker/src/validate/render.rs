//! Printing a validation: one row per function (verdict, time, why), the
//! bounds (R-BOUND), then each counterexample as `convcheck refine` prints
//! it (R-CEX); or the JSON of issue 14.

use std::fmt::Write;

use serde_json::{json, Value};

use super::{FnResult, FnVerdict, Matching};
use crate::refine::report::bounds_text;
use crate::refine::Options;

/// Everything printed about one validation.
pub struct Validation<'a> {
    pub file: String,
    /// opt's full argument vector (program first).
    pub opt_argv: &'a [String],
    /// Where opt's output is (kept or temporary).
    pub output: String,
    pub opts: &'a Options,
    pub matching: &'a Matching,
    pub results: &'a [FnResult],
}

/// The text report.
pub fn render_text(v: &Validation) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "validate {}", v.file);
    let _ = writeln!(s, "opt: {}", v.opt_argv.join(" "));
    let _ = writeln!(s, "bounds: {}", bounds_text(v.opts));
    let width = v
        .results
        .iter()
        .map(|r| r.name.len())
        .chain(v.matching.removed.iter().map(String::len))
        .chain(v.matching.added.iter().map(String::len))
        .chain(v.matching.skipped.iter().map(String::len))
        .max()
        .unwrap_or(0)
        + 1;
    if v.results.is_empty() && v.matching.removed.is_empty() && v.matching.added.is_empty() {
        let _ = writeln!(
            s,
            "no function contains or reaches a convergent operation: nothing to check"
        );
    }
    for r in v.results {
        let why = match (r.verdict, r.reason.is_empty()) {
            // R-REFL: for every bound; the reason says so.
            (FnVerdict::Refines, _) if r.reflexive => r.reason.clone(),
            (FnVerdict::Refines, true) => "within bounds".to_string(),
            (_, true) => String::new(),
            (FnVerdict::Refines, false) => format!("within bounds; {}", r.reason),
            (_, false) => r.reason.clone(),
        };
        // R-BOUND: a verdict at a bound `--grow-steps` raised names it.
        let why = if r.reflexive {
            why
        } else if r.buffer_bytes > v.opts.buffer_bytes {
            format!("with {}-byte input buffers: {why}", r.buffer_bytes)
        } else {
            why
        };
        let why = if r.steps > v.opts.max_steps && !r.reflexive {
            format!("at {} block visits per thread: {why}", r.steps)
        } else {
            why
        };
        let _ = writeln!(
            s,
            "  @{:<width$} {:<14} {:>7.2}s  {}",
            r.name,
            r.verdict.name(),
            r.seconds,
            why
        );
    }
    for n in &v.matching.removed {
        let _ = writeln!(s, "  @{n:<width$} removed by the pass (not checked)");
    }
    for n in &v.matching.added {
        let _ = writeln!(
            s,
            "  @{n:<width$} added by the pass (no original to compare)"
        );
    }
    let count = |x: FnVerdict| v.results.iter().filter(|r| r.verdict == x).count();
    let mut parts = Vec::new();
    for x in [
        FnVerdict::Refines,
        FnVerdict::Counterexample,
        FnVerdict::Unknown,
        FnVerdict::Vacuous,
        FnVerdict::Unsupported,
        FnVerdict::Invalid,
    ] {
        let n = count(x);
        if n > 0 {
            parts.push(format!("{n} {}", x.name()));
        }
    }
    if !v.matching.removed.is_empty() {
        parts.push(format!("{} removed", v.matching.removed.len()));
    }
    if !v.matching.added.is_empty() {
        parts.push(format!("{} added", v.matching.added.len()));
    }
    if !v.matching.skipped.is_empty() {
        parts.push(format!("{} skipped", v.matching.skipped.len()));
    }
    if !parts.is_empty() {
        let _ = writeln!(s, "summary: {}", parts.join(", "));
    }
    for r in v.results {
        if let Some(t) = &r.text {
            let _ = writeln!(s, "\n== counterexample for @{} ==", r.name);
            s.push_str(t);
        }
        match &r.bisect {
            None => {}
            Some(Err(e)) => {
                let _ = writeln!(s, "\n== bisect @{}: no pass found: {e} ==", r.name);
            }
            Some(Ok(f)) => {
                let _ = writeln!(
                    s,
                    "\n== bisect @{}: first pass after which it stops refining: {} ==",
                    r.name, f.pass
                );
                let _ = writeln!(s, "before: {}", f.before.display());
                let _ = writeln!(s, "after:  {}", f.after.display());
                let why = if f.pair.reason.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", f.pair.reason)
                };
                let _ = writeln!(
                    s,
                    "that pass's pair on its own: {}{why}",
                    f.pair.verdict.name()
                );
                if let Some(t) = &f.pair.text {
                    s.push_str(t);
                }
            }
        }
    }
    s
}

/// The JSON report: `{"opt": [argv...], "functions": [{"name", "verdict",
/// "reason", "bounds", "seconds", "counterexample"?, "reflexive"?}]}`
/// (issue 14; `reflexive`: R-REFL), with
/// `removed`, `added`, `skipped`, `file` and `output` besides.
pub fn render_json(v: &Validation) -> Value {
    let functions: Vec<Value> = v
        .results
        .iter()
        .map(|r| {
            // R-BOUND: the bound this verdict holds for (`--grow-steps`).
            let bounds = json!({
                "threads": v.opts.threads,
                "max_block_visits": r.steps,
                "buffer_bytes": r.buffer_bytes,
                "text": r.bounds,
            });
            let mut f = json!({
                "name": r.name,
                "verdict": r.verdict.name(),
                "reason": r.reason,
                "bounds": bounds,
                "seconds": r.seconds,
            });
            if r.reflexive {
                // R-REFL: refines for every bound (unchanged by the pass).
                f["reflexive"] = json!(true);
            }
            if let Some(c) = &r.counterexample {
                f["counterexample"] = c.clone();
            }
            match &r.bisect {
                None => {}
                Some(Err(e)) => f["bisect"] = json!({ "error": e }),
                Some(Ok(b)) => {
                    f["bisect"] = json!({
                        "pass": b.pass,
                        "before": b.before.display().to_string(),
                        "after": b.after.display().to_string(),
                        "pair_verdict": b.pair.verdict.name(),
                        "pair_reason": b.pair.reason,
                        "counterexample": b.pair.counterexample,
                    })
                }
            }
            f
        })
        .collect();
    json!({
        "file": v.file,
        "opt": v.opt_argv,
        "output": v.output,
        "functions": functions,
        "removed": v.matching.removed,
        "added": v.matching.added,
        "skipped": v.matching.skipped,
    })
}
