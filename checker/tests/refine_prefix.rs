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
    let (v, _, _) = check(&s, &t, &opts(vec![1], 5));
    assert!(v.starts_with("unknown"), "{v}");
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
