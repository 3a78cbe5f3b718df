//! R-PREFIX (issue 12 item 7): a target thread cut by the step bound that
//! provably never ends (stuck: a lasso of quiet visits with the same
//! relevant values) is compared by its prefix, which is its whole
//! observation; a thread cut without being stuck stays "not compared"
//! (R-BOUND), so a slow loop is never a false counterexample. Pairs in
//! `checker/tests/data/prefix/`; every counterexample is replayed on the
//! interpreter (R-CEX), whose much larger bound cuts the stuck thread too.

use std::path::Path;

use checker::refine::obs::CEnd;
use checker::refine::{check_pair, Options, PairResult, Verdict};
use checker::smt::Session;
use semantics::ir::Module;

fn data(name: &str) -> Module {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/prefix")
        .join(name);
    let text = std::fs::read_to_string(&p).expect("test data readable");
    semantics::parse_module(&p.display().to_string(), &text).expect("test data parses")
}

fn opts(threads: Vec<usize>, max_steps: usize) -> Options {
    Options {
        threads,
        max_steps,
        ..Options::default()
    }
}

/// The verdict, with the counterexample's target ends; a replay
/// disagreement fails the test.
fn check(src: &Module, tgt: &Module, o: &Options) -> (String, Vec<CEnd>, usize) {
    let mut session = Session::new(None);
    match check_pair(src, tgt, "k", o, &mut session, true, None).expect("check runs") {
        PairResult::Checked {
            outcome, replay, ..
        } => {
            if let Some(Err(e)) = replay {
                panic!("R-CEX: the interpreter does not confirm: {e}");
            }
            match outcome.verdict {
                Verdict::Refines { cut } => ("refines".into(), Vec::new(), cut.len()),
                Verdict::Counterexample(c) => {
                    assert!(
                        matches!(replay, Some(Ok(_))),
                        "a counterexample is replayed"
                    );
                    let ends = c.target.iter().map(|t| t.end.clone()).collect();
                    ("counterexample".into(), ends, 0)
                }
                Verdict::Unknown(w) => (format!("unknown ({w})"), Vec::new(), 0),
                Verdict::Vacuous(w) => (format!("vacuous ({w})"), Vec::new(), 0),
            }
        }
        other => panic!("not checked: {other:?}"),
    }
}

/// The SimplifyCFG miscompile shape: threads with `%x == 1` never leave
/// the target's loop; at 2 threads the other thread's barrier has a set
/// without them (the source's has both). Before R-PREFIX this was
/// "refines" (the cut execution was set aside).
#[test]
fn spinning_target_is_a_counterexample() {
    let s = data("simplifycfg-spin.src.ll");
    let t = data("simplifycfg-spin.tgt.ll");
    let (v, ends, _) = check(&s, &t, &opts(vec![2], 8));
    assert_eq!(v, "counterexample");
    assert!(ends.contains(&CEnd::Cut), "a stuck target thread: {ends:?}");
    // One thread: the target hangs where the source returns.
    let (v, ends, _) = check(&s, &t, &opts(vec![1], 8));
    assert_eq!(v, "counterexample");
    assert_eq!(ends, vec![CEnd::Cut]);
    // At the smallest bound where the source ends (6 visits), the lasso
    // (two visits of the loop with the same %c) is found.
    let (v, _, _) = check(&s, &t, &opts(vec![1], 6));
    assert_eq!(v, "counterexample");
    // One visit fewer: the source is cut on every launch (it needs 6), so
    // nothing is compared, and the target's stuck threads do not hide
    // that (vacuous, not refines).
    let (v, _, _) = check(&s, &t, &opts(vec![1], 5));
    assert!(v.starts_with("vacuous") && v.contains("is cut"), "{v}");
}

/// A loop whose counter decides the exit is not stuck however long it
/// runs past the bound: not compared, never a counterexample (its real
/// run reaches the barrier with every thread).
#[test]
fn slow_loop_is_not_a_counterexample() {
    let s = data("simplifycfg-spin.src.ll");
    let t = data("slow-loop.tgt.ll");
    let (v, _, cut) = check(&s, &t, &opts(vec![1, 2], 8));
    assert_eq!(v, "refines");
    assert_eq!(cut, 2, "the cut launches are named, one per thread count");
}

/// The same spin on both sides refines: the launches where the source
/// spins are not compared (no source execution ends), the others agree.
#[test]
fn same_spin_refines() {
    let t = data("simplifycfg-spin.tgt.ll");
    let (v, _, _) = check(&t, &t, &opts(vec![1, 2], 8));
    assert_eq!(v, "refines");
}

/// R-PREFIX-REC: threads with `%x == 1` recurse forever with the same
/// arguments (stuck); the program refines itself, also at 1 thread where
/// such a thread never returns (compared as such, no longer "bound too
/// small"), and the stuck launches are named.
#[test]
fn endless_recursion_refines_itself() {
    let s = data("rec-spin.src.ll");
    let (v, _, cut) = check(&s, &s, &opts(vec![1, 2], 8));
    assert_eq!(v, "refines");
    assert_eq!(cut, 2, "a launch with a stuck thread, per thread count");
}

/// R-PREFIX-REC both ways: a target that returns where the source recurses
/// forever is a counterexample (the source never returns there), and so is
/// the reverse (the target's thread hangs, the source's reaches the
/// barrier); each replayed on the interpreter, which executes the calls of
/// the original modules natively (its larger bound cuts the recursion).
#[test]
fn endless_recursion_removed_or_added_is_a_counterexample() {
    let s = data("rec-spin.src.ll");
    let t = data("rec-spin-removed.tgt.ll");
    let (v, ends, _) = check(&s, &t, &opts(vec![1], 8));
    assert_eq!(v, "counterexample");
    assert!(!ends.contains(&CEnd::Cut), "the target returns: {ends:?}");
    let (v, ends, _) = check(&t, &s, &opts(vec![1], 8));
    assert_eq!(v, "counterexample");
    assert_eq!(ends, vec![CEnd::Cut], "the target never returns");
}

/// R-PREFIX-REC is not fooled by depth: a countdown recursion reaches the
/// inliner's cut with an argument different from every enclosing copy's,
/// so it is not stuck; the target that drops the barrier at depth 5 to 8
/// (a real difference, which the interpreter shows) is never "refines",
/// and neither is the program against itself (no target execution is
/// compared: unknown, bound too small).
#[test]
fn deep_recursion_is_not_stuck() {
    let s = data("rec-deep.src.ll");
    let t = data("rec-deep.tgt.ll");
    assert_eq!(checker::agree::interp_refines(&s, &t), Ok(false));
    let (v, _, _) = check(&s, &t, &opts(vec![1, 2], 8));
    assert!(v.starts_with("unknown (bound too small"), "{v}");
    let (v, _, _) = check(&s, &s, &opts(vec![1], 8));
    assert!(v.starts_with("unknown (bound too small"), "{v}");
}

/// R-PREFIX-REC: the same arguments at every level, but an event per
/// level: not quiet, so not stuck (it never returns, yet every level
/// adds an observation).
#[test]
fn endless_recursion_with_events_is_not_stuck() {
    let s = data("rec-emits.ll");
    let (v, _, _) = check(&s, &s, &opts(vec![1], 8));
    assert!(v.starts_with("unknown (bound too small"), "{v}");
}
