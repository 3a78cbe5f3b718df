//! Translation validation of `opt` pipelines for convergence (issue 14):
//! which functions to check, matching them between opt's input and output,
//! checking each (R-REF within bounds, through [`adapter`]) in parallel,
//! and the per-function results.
//!
//! | concern | module |
//! | --- | --- |
//! | locating and running opt, `; RUN:` lines | [`opt`] |
//! | the single coupling to the refinement checker | [`adapter`] |
//! | `--bisect`: the first pass that breaks refinement | [`bisect`] |
//! | text and JSON output | [`render`] |

pub mod adapter;
pub mod bisect;
pub mod opt;
pub mod render;
pub mod testing;
pub mod unchanged;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use semantics::ir::{InstKind, Module};
use semantics::machine::program::is_convergent_call;

use crate::refine::Options;
use adapter::Pair;

/// The verdict of one function (issue 14's six words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnVerdict {
    /// Refines within the printed bounds (R-BOUND).
    Refines,
    Counterexample,
    Unknown,
    Vacuous,
    /// A construct outside the encoding (named with its place).
    Unsupported,
    /// The source or target breaks a static rule (named).
    Invalid,
}

impl FnVerdict {
    pub fn name(self) -> &'static str {
        match self {
            FnVerdict::Refines => "refines",
            FnVerdict::Counterexample => "counterexample",
            FnVerdict::Unknown => "unknown",
            FnVerdict::Vacuous => "vacuous",
            FnVerdict::Unsupported => "unsupported",
            FnVerdict::Invalid => "invalid",
        }
    }
}

/// The result of checking one function.
#[derive(Clone, Debug)]
pub struct FnResult {
    pub name: String,
    pub verdict: FnVerdict,
    /// Why (unknown, vacuous), the construct and place (unsupported), the
    /// rule (invalid); a note for refines (cut executions) or empty.
    pub reason: String,
    /// R-BOUND: the bounds and modes, one line.
    pub bounds: String,
    pub seconds: f64,
    /// The counterexample as `convcheck refine` prints it.
    pub text: Option<String>,
    /// The counterexample as `convcheck refine --json` gives it.
    pub counterexample: Option<serde_json::Value>,
    /// Our own error (exit status 70), when there was one.
    pub internal: Option<String>,
    /// `--bisect` on a counterexample: the pass found, or why none.
    pub bisect: Option<Result<bisect::Found, String>>,
    /// R-BOUND: the block visits per thread the verdict holds for (more
    /// than `--max-steps` when `--grow-steps` raised it).
    pub steps: usize,
    /// R-BOUND: the bytes of input buffers the verdict holds for (more
    /// than `--buffer-bytes` when `--grow-buffers` raised it).
    pub buffer_bytes: u64,
    /// R-REFL: the verdict is "refines" because the pipeline did not change
    /// the function ([`unchanged`]), for every bound; `reason` says what
    /// the check itself answered.
    pub reflexive: bool,
}

/// Rule C-CONV through calls: the defined functions of `m` that contain a
/// convergent operation or a convergence control intrinsic (as the
/// interpreter classifies calls, `is_convergent_call`), or call a defined
/// function that does, directly or not. In module order.
pub fn convergent_functions(m: &Module) -> Vec<String> {
    let defined: Vec<_> = m.functions.iter().filter(|f| f.is_definition).collect();
    let mut set: BTreeSet<&str> = defined
        .iter()
        .filter(|f| calls(f).iter().any(|c| is_convergent_call(m, c)))
        .map(|f| f.name.as_str())
        .collect();
    loop {
        let before = set.len();
        for f in &defined {
            if !set.contains(f.name.as_str())
                && calls(f)
                    .iter()
                    .any(|c| c.callee_name().is_some_and(|n| set.contains(n)))
            {
                set.insert(f.name.as_str());
            }
        }
        if set.len() == before {
            break;
        }
    }
    defined
        .iter()
        .filter(|f| set.contains(f.name.as_str()))
        .map(|f| f.name.clone())
        .collect()
}

fn calls(f: &semantics::ir::Function) -> Vec<&semantics::ir::Call> {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match &i.kind {
            InstKind::Call(c) => Some(&**c),
            _ => None,
        })
        .collect()
}

/// Which functions to check and which the pass removed or added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Matching {
    /// Selected in the source and defined in the target, or selected in
    /// the target and defined in the source (the pass made it convergent).
    pub checked: Vec<String>,
    /// Selected in the source, not defined in the target.
    pub removed: Vec<String>,
    /// Selected in the target, not defined in the source.
    pub added: Vec<String>,
    /// Selected, not checked (`--skip-function`).
    pub skipped: Vec<String>,
}

/// Matches functions by name (issue 14: a function removed or added by the
/// pass is reported as such).
pub fn match_functions(src: &Module, tgt: &Module) -> Matching {
    let defined = |m: &Module, n: &str| m.function(n).is_some_and(|f| f.is_definition);
    let mut out = Matching::default();
    for n in convergent_functions(src) {
        if defined(tgt, &n) {
            out.checked.push(n);
        } else {
            out.removed.push(n);
        }
    }
    for n in convergent_functions(tgt) {
        if !defined(src, &n) {
            out.added.push(n);
        } else if !out.checked.contains(&n) {
            // The pass introduced convergent operations (AMDGPU's atomic
            // optimizer writes a wave scan): checked too.
            out.checked.push(n);
        }
    }
    out
}

/// Settings of a run over several functions.
pub struct RunSettings<'a> {
    pub opts: &'a Options,
    pub replay: bool,
    pub time_limit: Option<Duration>,
    /// Functions checked at once (each on its own thread and Z3 context).
    pub jobs: usize,
    /// Called after each function with (done, total, result).
    pub on_done: &'a (dyn Fn(usize, usize, &FnResult) + Sync),
}

/// The result of a function not checked because the run was stopped.
pub fn not_checked_interrupted(name: &str, opts: &Options) -> FnResult {
    FnResult {
        name: name.to_string(),
        verdict: FnVerdict::Unknown,
        reason: "not checked: interrupted (Ctrl-C)".into(),
        bounds: crate::refine::report::bounds_used_text(opts, opts.max_steps),
        seconds: 0.0,
        text: None,
        counterexample: None,
        internal: None,
        bisect: None,
        steps: opts.max_steps,
        buffer_bytes: opts.buffer_bytes,
        reflexive: false,
    }
}

/// Checks every function of `names` ([`adapter::check_function`]) with up
/// to `jobs` at once; results in the order of `names`. Once the options'
/// interrupt flag is set (Ctrl-C), the checks under way stop with an
/// `unknown (interrupted)` verdict and the others are not started.
pub fn check_all(pair: &Pair, names: &[String], s: &RunSettings) -> Vec<FnResult> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<FnResult>>> = Mutex::new(vec![None; names.len()]);
    let stopped = || {
        s.opts
            .interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
    };
    let worker = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(name) = names.get(i) else { break };
        let r = if stopped() {
            not_checked_interrupted(name, s.opts)
        } else {
            crate::smt::in_fresh_context(|| {
                adapter::check_function(pair, name, s.opts, s.replay, s.time_limit)
            })
        };
        let d = done.fetch_add(1, Ordering::Relaxed) + 1;
        (s.on_done)(d, names.len(), &r);
        results.lock().expect("no worker panics holding the lock")[i] = Some(r);
    };
    std::thread::scope(|sc| {
        for _ in 1..s.jobs.clamp(1, names.len().max(1)) {
            sc.spawn(worker);
        }
        worker();
    });
    results
        .into_inner()
        .expect("no worker panics holding the lock")
        .into_iter()
        .map(|r| r.expect("every index below names.len() was taken by a worker"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Module {
        semantics::parse_module("t.ll", s).expect("test module parses")
    }

    #[test]
    fn selection_follows_calls() {
        let m = parse(
            "declare void @bar() convergent\n\
             define void @a() {\n  call void @bar()\n  ret void\n}\n\
             define void @b() {\n  call void @a()\n  ret void\n}\n\
             define void @c() {\n  call void @b()\n  ret void\n}\n\
             define void @plain() {\n  ret void\n}\n\
             define void @tok() {\n  %t = call token @llvm.experimental.convergence.entry()\n  ret void\n}\n\
             declare token @llvm.experimental.convergence.entry() convergent\n",
        );
        assert_eq!(convergent_functions(&m), vec!["a", "b", "c", "tok"]);
        let t = parse(
            "declare void @bar() convergent\n\
             define void @b() {\n  call void @bar()\n  ret void\n}\n\
             define void @n() {\n  call void @bar()\n  ret void\n}\n",
        );
        let mm = match_functions(&m, &t);
        assert_eq!(mm.checked, vec!["b"]);
        assert_eq!(mm.removed, vec!["a", "c", "tok"]);
        assert_eq!(mm.added, vec!["n"]);
    }
}
