//! Issue 16 item 4 (`checker/src/refine/scale.rs`): asked for many
//! threads, the checker searches 2 to 4 threads first and lifts a
//! counterexample found there; the lifted launch is checked at the asked
//! thread count and replayed on the interpreter (R-CEX). Both directions:
//! claim counterexamples are found at 32 and 64 threads, lifted and
//! replayed; a pair whose 2-thread difference disappears with more
//! threads is not reported (the lift fails and the full search answers
//! refines, as without lifting); lifting never answers refines by itself.

use std::path::Path;
use std::time::Duration;

use checker::refine::{check_pair, Options, Outcome2, PairResult, Verdict};
use checker::smt::Session;
use semantics::ir::Module;

fn example(name: &str) -> Module {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/refine")
        .join(name);
    let text = std::fs::read_to_string(&p).expect("example readable");
    semantics::parse_module(&p.display().to_string(), &text).expect("example parses")
}

fn pair(stem: &str) -> (Module, Module) {
    (
        example(&format!("{stem}.src.ll")),
        example(&format!("{stem}.tgt.ll")),
    )
}

fn opts(threads: usize, lift: bool) -> Options {
    Options {
        threads: vec![threads],
        lift,
        timeout: Duration::from_secs(60),
        ..Options::default()
    }
}

/// The outcome and whether the counterexample (if any) was confirmed by
/// the interpreter; a replay disagreement fails the test (R-CEX).
fn check(src: &Module, tgt: &Module, kernel: &str, o: &Options) -> (Outcome2, bool) {
    let mut session = Session::new(None);
    match check_pair(src, tgt, kernel, o, &mut session, true, None).expect("check runs") {
        PairResult::Checked {
            outcome, replay, ..
        } => {
            if let Some(Err(e)) = &replay {
                panic!("R-CEX: the interpreter does not confirm: {e}");
            }
            // The target behaviour reproduced (with uninterpreted values,
            // as CL-01's texture sample, only the target side is replayed).
            let confirmed = matches!(replay, Some(Ok(_)));
            (outcome, confirmed)
        }
        other => panic!("not checked: {other:?}"),
    }
}

/// Claim counterexamples without anchors (CL-01, CL-26) at 32 and 64
/// threads: found by lifting a 2-thread counterexample, at the asked
/// thread count, and confirmed by the interpreter at that count.
#[test]
fn claim_counterexamples_lift_to_a_wave() {
    for (stem, kernel) in [
        ("cl01-texture-sink-divergent", "example_shader"),
        ("cl26-ballot-merge", "example"),
    ] {
        let (s, t) = pair(stem);
        for n in [32, 64] {
            let (o, confirmed) = check(&s, &t, kernel, &opts(n, true));
            let Verdict::Counterexample(c) = &o.verdict else {
                panic!("{stem} at {n}: {:?}", o.verdict)
            };
            assert_eq!(
                c.threads, n,
                "{stem}: the counterexample is at the asked count"
            );
            assert_eq!(c.target.len(), n);
            let how = c.lifted.as_deref().unwrap_or_default();
            assert!(
                how.contains("2-thread counterexample lifted"),
                "{stem}: {how}"
            );
            assert!(confirmed, "{stem} at {n}: replayed and confirmed");
        }
    }
}

/// CL-30's divergent pair differs only from 3 threads on (its reduction
/// sums thread ids): at 16 threads the 2-thread search finds nothing, the
/// 3-thread one does, and its lift is confirmed.
#[test]
fn a_three_thread_difference_lifts() {
    let (s, t) = pair("cl30-sink-divergent-branch");
    let (o, confirmed) = check(&s, &t, "example", &opts(16, true));
    let Verdict::Counterexample(c) = &o.verdict else {
        panic!("{:?}", o.verdict)
    };
    assert_eq!(c.threads, 16);
    let how = c.lifted.as_deref().unwrap_or_default();
    assert!(how.contains("3-thread counterexample lifted"), "{how}");
    assert!(confirmed);
}

/// A pair that differs at 2 threads and refines at 8: the source observes
/// a reduction's result when it is below 5 (else 0), the target always 0.
/// With every thread converged the sum of ones is the thread count, so
/// from 5 threads on both observe 0. The 2-thread counterexample does not
/// lift (the solver finds the source matching every padding), and the full
/// search at 8 threads answers refines, as it does without lifting.
#[test]
fn a_difference_that_vanishes_with_more_threads_is_not_reported() {
    let body = |obs: &str| {
        format!(
            "define void @k() convergent {{
  %e = call token @llvm.experimental.convergence.entry()
  %r = call i32 @subgroupAdd(i32 1) [ \"convergencectrl\"(token %e) ]
  %small = icmp slt i32 %r, 5
  %v = select i1 %small, i32 {obs}, i32 0
  call void @use(i32 %v)
  ret void
}}
declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)
declare void @use(i32)
"
        )
    };
    let parse = |t: &str| semantics::parse_module("t.ll", t).expect("test module parses");
    let (s, t) = (parse(&body("%r")), parse(&body("0")));
    let (two, _) = check(&s, &t, "k", &opts(2, true));
    assert!(
        matches!(two.verdict, Verdict::Counterexample(_)),
        "2 threads differ: {:?}",
        two.verdict
    );
    for lift in [true, false] {
        let (eight, _) = check(&s, &t, "k", &opts(8, lift));
        assert!(
            matches!(eight.verdict, Verdict::Refines { .. }),
            "lift {lift}: 8 threads refine: {:?}",
            eight.verdict
        );
    }
}

/// A refining claim pair at 16 threads: the small searches find nothing,
/// the full search answers refines, with and without lifting.
#[test]
fn lifting_never_answers_refines_by_itself() {
    let (s, t) = pair("cl29-move-control-equivalent");
    for lift in [true, false] {
        let (o, _) = check(&s, &t, "example", &opts(16, lift));
        assert!(
            matches!(o.verdict, Verdict::Refines { .. }),
            "lift {lift}: {:?}",
            o.verdict
        );
    }
}
