//! `refine --cutoff W`: theorem C-PAIR (proofs/CUTOFF.md, issue 16 item 3).
//! Both directions: pairs meeting side conditions (A)-(E) get a verdict for
//! every thread count up to W from the 1- and 2-thread checks with free
//! thread ids, and that verdict agrees with bounded checks at larger thread
//! counts; pairs breaking a condition get the bounded verdict with the
//! failing condition named, including CUTOFF.md's 3-thread counterexample
//! (why (B) is needed).

use std::path::Path;
use std::time::Duration;

use checker::refine::cutoff::Cutoff;
use checker::refine::{check_pair, Options, Outcome2, PairResult, Side, Verdict};
use checker::smt::Session;
use semantics::ir::Module;

fn parse(text: &str) -> Module {
    semantics::parse_module("t.ll", text).expect("test module parses")
}

fn example(name: &str) -> Module {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/refine")
        .join(name);
    let text = std::fs::read_to_string(&p).expect("example readable");
    semantics::parse_module(&p.display().to_string(), &text).expect("example parses")
}

fn opts(threads: Vec<usize>, cutoff: Option<usize>) -> Options {
    Options {
        threads,
        cutoff,
        timeout: Duration::from_secs(60),
        ..Options::default()
    }
}

/// The outcome; a replay disagreement fails the test (R-CEX).
fn check(src: &Module, tgt: &Module, kernel: &str, o: &Options) -> Outcome2 {
    let mut session = Session::new(None);
    match check_pair(src, tgt, kernel, o, &mut session, true, None).expect("check runs") {
        PairResult::Checked {
            outcome, replay, ..
        } => {
            if let Some(Err(e)) = replay {
                panic!("R-CEX: the interpreter does not confirm: {e}");
            }
            outcome
        }
        other => panic!("not checked: {other:?}"),
    }
}

fn name(v: &Verdict) -> &'static str {
    checker::refine::report::verdict_name(v)
}

fn cex_threads(o: &Outcome2) -> usize {
    match &o.verdict {
        Verdict::Counterexample(c) => c.threads,
        v => panic!("expected a counterexample, got {v:?}"),
    }
}

const DECLS: &str = "
declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @use(i32)
";

/// The source runs the operation in every thread; the target skips it in
/// the thread with id 17 only.
fn tid17() -> (Module, Module) {
    let src = format!(
        "define void @k() convergent {{
  %e = call token @llvm.experimental.convergence.entry()
  call void @convergent.operation() [ \"convergencectrl\"(token %e) ]
  ret void
}}
{DECLS}"
    );
    let tgt = format!(
        "define void @k() convergent {{
A:
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %skip = icmp eq i32 %tid, 17
  br i1 %skip, label %C, label %B
B:
  call void @convergent.operation() [ \"convergencectrl\"(token %e) ]
  br label %C
C:
  ret void
}}
{DECLS}"
    );
    (parse(&src), parse(&tgt))
}

/// C-PAIR side 6: the pair check ranges thread ids over the whole wave.
/// Thread 17 exists only in launches of 18 threads or more: with W = 32 the
/// pair check finds it and the verdict stays the bounded one; with W = 17
/// (ids 0..16) C-PAIR answers for every thread count up to 17, and the
/// bounded checks at 18 threads agree that the difference then appears.
#[test]
fn cutoff_pair_check_ranges_ids_over_the_wave() {
    let (s, t) = tid17();
    let o = check(&s, &t, "k", &opts(vec![1, 2], Some(32)));
    assert_eq!(name(&o.verdict), "refines", "bounded at 1..2 threads");
    match &o.cutoff {
        Some(Cutoff::PairCheck { wave: 32, why, .. }) => {
            assert!(
                why.contains("tid[t0] = 17") || why.contains("tid[t1] = 17"),
                "{why}"
            )
        }
        c => panic!("expected the pair check to fail, got {c:?}"),
    }
    let o = check(&s, &t, "k", &opts(vec![1, 2], Some(17)));
    assert!(
        matches!(o.cutoff, Some(Cutoff::Holds { wave: 17 })),
        "{:?}",
        o.cutoff
    );
    assert_eq!(name(&o.verdict), "refines");
    let o = check(&s, &t, "k", &opts(vec![17, 18], None));
    assert_eq!(cex_threads(&o), 18, "the difference needs thread 17");
}

/// A counterexample at a thread count above W is still found: C-PAIR
/// covers 1..=W, the asked counts above W are checked as usual.
#[test]
fn cutoff_checks_thread_counts_above_w_as_usual() {
    let (s, t) = tid17();
    let o = check(&s, &t, "k", &opts(vec![2, 18], Some(17)));
    assert!(
        matches!(o.cutoff, Some(Cutoff::Holds { wave: 17 })),
        "{:?}",
        o.cutoff
    );
    assert_eq!(cex_threads(&o), 18);
}

/// proofs/CUTOFF.md's reduction pair: `subgroupAdd` of 1 in every thread
/// (source) or of 0 in thread 0 (target), observed as `r >= 3`.
fn reduction_pair() -> (Module, Module) {
    let body = |a: &str| {
        format!(
            "define void @k() convergent {{
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %z = icmp eq i32 %tid, 0
  {a}
  %r = call i32 @subgroupAdd(i32 %a) [ \"convergencectrl\"(token %e) ]
  %big = icmp sge i32 %r, 3
  %out = zext i1 %big to i32
  call void @use(i32 %out)
  ret void
}}
{DECLS}"
        )
    };
    (
        parse(&body("%a = select i1 %z, i32 1, i32 1")),
        parse(&body("%a = select i1 %z, i32 0, i32 1")),
    )
}

/// proofs/CUTOFF.md, "Counterexample to the naive claim": a reduction whose
/// result reaches an observation through `r >= 3` differs only at three
/// threads. (B) fails, the tool says so and gives the bounded verdict.
#[test]
fn cutoff_refused_when_a_convergent_result_is_used() {
    let (s, t) = reduction_pair();
    let o = check(&s, &t, "k", &opts(vec![1, 2], Some(8)));
    assert_eq!(name(&o.verdict), "refines", "1 and 2 threads agree");
    match &o.cutoff {
        Some(Cutoff::NotApplicable { failures, .. }) => {
            assert!(failures.iter().all(|f| f.condition == 'B'), "{failures:?}");
            assert_eq!(failures.len(), 2, "source and target: {failures:?}");
            assert!(failures[0].what.contains("%r"), "{failures:?}");
        }
        c => panic!("(B) must fail: {c:?}"),
    }
    let o = check(&s, &t, "k", &opts(vec![1, 2, 3], Some(8)));
    assert_eq!(cex_threads(&o), 3, "the naive claim fails at 3 threads");
}

/// (A), (C) and (D) are checked too, each named. (A) and (D) alone send
/// the pair to theorem C-MIRROR, whose strategy check (M) is named when it
/// fails (CL-12, a counterexample); CL-13 and an irreducible pair without
/// convergent values are decided by it (`mirror_decides_cl13_and_refuses_cl12`).
#[test]
fn cutoff_names_each_failing_condition() {
    let anchors = (
        example("cl12-unroll-heart-remainder.src.ll"),
        example("cl12-unroll-heart-remainder.tgt.ll"),
    );
    let o = check(&anchors.0, &anchors.1, "example", &opts(vec![1], Some(8)));
    let Some(Cutoff::NotApplicable { failures, .. }) = &o.cutoff else {
        panic!("anchors: {:?}", o.cutoff)
    };
    assert!(failures.iter().any(|f| f.condition == 'A'), "{failures:?}");
    assert!(
        failures.iter().all(|f| matches!(f.condition, 'A' | 'M')),
        "{failures:?}"
    );
    let atomic = parse(&format!(
        "@g = global i32 0
define void @k() convergent {{
  %e = call token @llvm.experimental.convergence.entry()
  %old = atomicrmw add ptr @g, i32 1 seq_cst
  call void @convergent.operation() [ \"convergencectrl\"(token %e) ]
  ret void
}}
{DECLS}"
    ));
    let o = check(&atomic, &atomic, "k", &opts(vec![1], Some(8)));
    let Some(Cutoff::NotApplicable { failures, .. }) = &o.cutoff else {
        panic!("atomics: {:?}", o.cutoff)
    };
    assert!(failures.iter().any(|f| f.condition == 'C'), "{failures:?}");
    // An irreducible cycle (two entries, %L and %R) in the source; a
    // reduction whose value is used, so that C-MIRROR does not apply
    // either and (D) is reported with (B).
    let irr = parse(&format!(
        "define void @k(i1 %c, i1 %d) {{
A:
  br i1 %c, label %L, label %R
L:
  call void @convergent.operation()
  %r = call i32 @subgroupAdd(i32 1)
  call void @use(i32 %r)
  br i1 %d, label %R, label %X
R:
  br i1 %d, label %L, label %X
X:
  ret void
}}
{DECLS}"
    ));
    let o = check(&irr, &irr, "k", &opts(vec![1], Some(8)));
    let Some(Cutoff::NotApplicable { failures, .. }) = &o.cutoff else {
        panic!("irreducible: {:?}", o.cutoff)
    };
    assert!(
        failures
            .iter()
            .any(|f| f.condition == 'D' && f.role == Side::Source),
        "{failures:?}"
    );
}

/// Claim pairs meeting the conditions: the C-PAIR verdict (W = 8) equals
/// the bounded verdict at 3 and 4 threads (a counterexample one way, a
/// proof the other), and the expected one.
#[test]
fn cutoff_agrees_with_bounded_checks_on_claim_pairs() {
    for (pair, kernel, expect) in [
        ("cl03-jump-threading", "example_original", "refines"),
        ("cl29-unroll-uncontrolled-even", "example", "refines"),
        ("cl29-move-control-equivalent", "example", "refines"),
        (
            "cl29-unroll-uncontrolled-remainder",
            "example",
            "counterexample",
        ),
    ] {
        let s = example(&format!("{pair}.src.ll"));
        let t = example(&format!("{pair}.tgt.ll"));
        let cut = check(&s, &t, kernel, &opts(vec![1, 2], Some(8)));
        let bounded = check(&s, &t, kernel, &opts(vec![3, 4], None));
        assert_eq!(name(&bounded.verdict), expect, "{pair} bounded at 3..4");
        match (&cut.cutoff, expect) {
            (Some(Cutoff::Holds { wave: 8 }), "refines") => {
                assert_eq!(name(&cut.verdict), "refines", "{pair}")
            }
            (Some(Cutoff::PairCheck { wave: 8, .. }), "counterexample") => {
                assert_eq!(name(&cut.verdict), "counterexample", "{pair}")
            }
            (c, _) => panic!("{pair}: {c:?} with {:?}", cut.verdict),
        }
    }
}

/// Issue 16: asked for more than 4 threads without `--cutoff`, C-PAIR is
/// tried by itself with W = the largest asked count. CL-03's pair meets
/// (A)-(E): `--threads 64` answers for every count up to 64; with the
/// automatic cutoff off the verdict is the bounded one, also refines.
#[test]
fn automatic_cutoff_answers_every_count_up_to_the_asked_one() {
    let s = example("cl03-jump-threading.src.ll");
    let t = example("cl03-jump-threading.tgt.ll");
    let o = check(&s, &t, "example_original", &opts(vec![64], None));
    assert!(
        matches!(o.cutoff, Some(Cutoff::Holds { wave: 64 })),
        "{:?}",
        o.cutoff
    );
    assert_eq!(name(&o.verdict), "refines");
    let off = Options {
        auto_cutoff: false,
        ..opts(vec![8], None)
    };
    let o = check(&s, &t, "example_original", &off);
    assert!(o.cutoff.is_none(), "{:?}", o.cutoff);
    assert_eq!(name(&o.verdict), "refines", "bounded at 8 threads");
    // Up to 4 threads nothing changes: the bounded checks run.
    let o = check(&s, &t, "example_original", &opts(vec![4], None));
    assert!(o.cutoff.is_none(), "{:?}", o.cutoff);
}

/// The automatic cutoff names a failing condition and gives the bounded
/// verdict (CUTOFF.md's reduction pair breaks (B)); and a pair check's
/// difference (the `tid == 17` pair) is lifted to the asked count with
/// the pair's thread ids in place, confirmed at 32 threads and replayed.
#[test]
fn automatic_cutoff_refused_or_lifted() {
    let (s, t) = reduction_pair();
    let o = check(&s, &t, "k", &opts(vec![5], None));
    match &o.cutoff {
        Some(Cutoff::NotApplicable { wave: 5, failures }) => {
            assert!(failures.iter().all(|f| f.condition == 'B'), "{failures:?}")
        }
        c => panic!("(B) must fail: {c:?}"),
    }
    // Bounded at 5 threads: the sums 5 and 4 are both >= 3 (the pair
    // differs at exactly 3 threads, see the test above).
    assert_eq!(name(&o.verdict), "refines");
    let (s, t) = tid17();
    let o = check(&s, &t, "k", &opts(vec![32], None));
    assert!(
        matches!(
            o.cutoff,
            Some(Cutoff::PairCheck {
                wave: 32,
                cex: Some(_),
                ..
            })
        ),
        "{:?}",
        o.cutoff
    );
    let Verdict::Counterexample(c) = &o.verdict else {
        panic!("{:?}", o.verdict)
    };
    assert_eq!(c.threads, 32);
    let how = c.lifted.as_deref().unwrap_or_default();
    assert!(how.contains("as t17"), "the pair's ids in place: {how}");
}

/// How a generated pair's branch reads the thread id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Branch {
    /// The family's `%x < 1`: nothing reads the id (threads symmetric).
    Symmetric,
    /// `%tid == K`: only thread K takes the arm (K in 0..8), so a
    /// difference needs thread K, i.e. at least K + 1 threads.
    OneThread(u32),
    /// `%x < %tid`: the arm depends on the id and the input.
    BelowTid,
}

/// Generated pairs meeting (A)-(E) (`testgen::refine_family` with only the
/// side-effecting `@convergent.operation()`: no anchors, no results, no
/// memory, reducible) and their mutations; the branch reads the thread id
/// in two of three readings ([`Branch`]), so that C-PAIR's id range (side
/// 6) is exercised.
fn arb_cutoff_pair() -> impl proptest::strategy::Strategy<Value = (String, String, Branch)> {
    use proptest::prelude::{prop_oneof, Just};
    use proptest::strategy::Strategy;
    use testgen::refine_family::{arb_mutation, arb_prog, mutate, render, OpKind};
    let branch = prop_oneof![
        Just(Branch::Symmetric),
        (0u32..8).prop_map(Branch::OneThread),
        Just(Branch::BelowTid),
    ];
    (arb_prog(2), arb_mutation(), branch).prop_map(|(mut p, (i, to), b)| {
        for o in &mut p.ops {
            o.0 = OpKind::Barrier;
        }
        let q = mutate(&p, i, to);
        (with_branch(&render(&p), b), with_branch(&render(&q), b), b)
    })
}

/// The family's program with its branch condition read as `b` says.
fn with_branch(text: &str, b: Branch) -> String {
    const FAMILY: &str = "  %c = icmp slt i32 %x, 1\n";
    assert!(text.contains(FAMILY), "refine_family's branch changed");
    let tid = "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n";
    let cond = match b {
        Branch::Symmetric => return text.to_string(),
        Branch::OneThread(k) => format!("{tid}  %c = icmp eq i32 %tid, {k}\n"),
        Branch::BelowTid => format!("{tid}  %c = icmp slt i32 %x, %tid\n"),
    };
    text.replace(FAMILY, &cond) + "declare i32 @llvm.amdgcn.workitem.id.x()\n"
}

/// What one pair's C-PAIR verdict and bounded verdicts gave.
#[derive(Debug, Default)]
struct Agreement {
    /// C-PAIR answered refines (every thread count up to W).
    holds: bool,
}

/// The C-PAIR verdict (W = 8, from 1 and 2 threads with free ids) against
/// the bounded verdicts at every thread count in `counts`. Agreement:
/// - C-PAIR refines: every count refines (the theorem; otherwise a bug);
/// - the pair check finds a difference at m threads with ids I: every
///   count N >= m that holds the ids (N > max I; any N >= m when nothing
///   reads the id, since the ids can then be renumbered) has a
///   counterexample (its threads can be padded with copies; in this
///   family no thread has undefined behaviour).
///
/// Anything else (including unknown answers) is reported as an error.
fn cutoff_vs_bounded(
    src: &str,
    tgt: &str,
    branch: Branch,
    base: &Options,
    counts: &[usize],
) -> Result<Agreement, String> {
    let (s, t) = (parse(src), parse(tgt));
    let with = |threads: Vec<usize>, cutoff: Option<usize>| Options {
        threads,
        cutoff,
        ..base.clone()
    };
    let cut = check(&s, &t, "k", &with(vec![1, 2], Some(8)));
    let reach = match &cut.cutoff {
        Some(Cutoff::Holds { .. }) => None,
        Some(Cutoff::PairCheck { cex: Some(c), .. }) => {
            let max_id = c
                .inputs
                .iter()
                .filter(|(k, _)| k.starts_with("tid["))
                .map(|(_, v)| *v as usize)
                .max()
                .unwrap_or(0);
            Some(match branch {
                Branch::Symmetric => c.threads,
                _ => c.threads.max(max_id + 1),
            })
        }
        c => return Err(format!("side conditions should hold and decide: {c:?}")),
    };
    let out = Agreement {
        holds: reach.is_none(),
    };
    for &n in counts {
        if reach.is_some_and(|r| n < r) {
            continue; // below the witness's reach: no requirement
        }
        let b = check(&s, &t, "k", &with(vec![n], None));
        let refines = match b.verdict {
            Verdict::Refines { .. } => true,
            Verdict::Counterexample(_) => false,
            v => return Err(format!("{n} threads: {v:?}")),
        };
        match reach {
            None if !refines => {
                return Err(format!(
                    "C-PAIR says refines for every N <= 8, {n} threads give a counterexample"
                ))
            }
            Some(r) if n >= r && refines => {
                return Err(format!(
                    "the pair check's difference reaches {r} threads, {n} threads refine"
                ))
            }
            _ => {}
        }
    }
    Ok(out)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 16, ..Default::default() })]

    /// Issue 16 item 3's validation, the CI slice: on generated pairs
    /// meeting (A)-(E), the C-PAIR verdict agrees with the bounded verdict
    /// at 3 and 4 threads. (`cutoff_campaign` runs more pairs, 1 to 8
    /// threads.)
    #[test]
    fn cutoff_matches_bounded_on_generated_pairs((s, t, b) in arb_cutoff_pair()) {
        let base = Options { minimize: false, ..opts(vec![], None) };
        let r = cutoff_vs_bounded(&s, &t, b, &base, &[3, 4]);
        proptest::prop_assert!(r.is_ok(), "{}\nsource:\n{s}\ntarget:\n{t}", r.unwrap_err());
    }
}

/// The campaign (not in `make test`; `make cutoff-campaign`): CUTOFF_CASES
/// generated pairs (default 1000), C-PAIR (W = 8) against every thread
/// count 1..=CUTOFF_MAX_N (default 8), at CUTOFF_MAX_STEPS block visits
/// (default 6), on CUTOFF_JOBS worker threads (default 1). Every
/// disagreement is printed; the test fails if there is one.
/// `cargo test --release -p checker --test refine_cutoff -- --ignored
/// cutoff_campaign --nocapture`.
#[test]
#[ignore = "campaign: about an hour"]
fn cutoff_campaign() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let cases = env("CUTOFF_CASES", 1000);
    let first = env("CUTOFF_START", 0);
    let max_n = env("CUTOFF_MAX_N", 8);
    let jobs = env("CUTOFF_JOBS", 1).max(1);
    let base = Options {
        max_steps: env("CUTOFF_MAX_STEPS", 6),
        minimize: false,
        // The bounded verdicts by the plain search (no lifting, no C-PAIR
        // tried by itself at more than 4 threads, issue 16).
        lift: false,
        auto_cutoff: false,
        ..opts(vec![], None)
    };
    let counts: Vec<usize> = (1..=max_n).collect();
    let mut runner = TestRunner::deterministic();
    let strat = arb_cutoff_pair();
    let pairs: Vec<(String, String, Branch)> = (0..cases)
        .map(|_| strat.new_tree(&mut runner).expect("generator").current())
        .collect();
    // CUTOFF_START..CUTOFF_CASES of the same deterministic sequence (to
    // split a campaign over processes).
    let pairs = &pairs[first.min(cases)..];
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let tally = Mutex::new((0usize, 0usize, 0usize, Vec::<String>::new()));
    let start = std::time::Instant::now();
    std::thread::scope(|sc| {
        for _ in 0..jobs {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((s, t, b)) = pairs.get(i) else { break };
                let i = i + first;
                let r = cutoff_vs_bounded(s, t, *b, &base, &counts);
                let mut g = tally.lock().expect("no worker panicked holding the tally");
                match r {
                    Ok(a) if a.holds => g.0 += 1,
                    Ok(_) => {
                        g.1 += 1;
                        g.2 += usize::from(*b != Branch::Symmetric);
                    }
                    Err(e) => {
                        let msg = format!("case {i} ({b:?}): {e}\nsource:\n{s}\ntarget:\n{t}");
                        eprintln!("cutoff campaign: DISAGREEMENT {msg}");
                        g.3.push(msg);
                    }
                }
                let d = done.fetch_add(1, Ordering::SeqCst) + 1;
                if d.is_multiple_of(25) {
                    eprintln!(
                        "cutoff campaign: {d}/{} pairs ({:.0} s): {} C-PAIR refines, {} differ \
                         ({} id-dependent), {} disagreements",
                        pairs.len(),
                        start.elapsed().as_secs_f64(),
                        g.0,
                        g.1,
                        g.2,
                        g.3.len()
                    );
                }
                drop(g);
            });
        }
    });
    let (holds, differs, id_differs, bad) = tally
        .into_inner()
        .expect("no worker panicked holding the tally");
    eprintln!(
        "cutoff campaign: pairs {first}..{cases} ({} read the thread id), threads 1..={max_n}, {} block \
         visits, {:.0} s: C-PAIR refines on {holds} (every count refines), the pair check finds a \
         difference on {differs} ({id_differs} of them id-dependent) and every count that holds \
         its witness differs; {} disagreements",
        pairs.iter().filter(|p| p.2 != Branch::Symmetric).count(),
        base.max_steps,
        start.elapsed().as_secs_f64(),
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n\n")
    );
}

/// C-MIRROR's first family: [`arb_cutoff_pair`] with the `entry` token
/// replaced by an `anchor` in both programs (the operations and loop hearts
/// it controls converge as the implementation chooses).
fn arb_anchor_pair() -> impl proptest::strategy::Strategy<Value = (String, String, Branch)> {
    use proptest::strategy::Strategy;
    arb_cutoff_pair().prop_map(|(s, t, b)| (anchored(&s), anchored(&t), b))
}

/// C-MIRROR's second family: every operation controlled by an anchor of
/// its own, right before it (`testgen::refine_family::render_own_anchors`),
/// and the mutation moves an operation with its anchor (or drops both):
/// source and target place their anchors differently, paired by name.
fn arb_own_anchor_pair() -> impl proptest::strategy::Strategy<Value = (String, String, Branch)> {
    use proptest::prelude::{prop_oneof, Just};
    use proptest::strategy::Strategy;
    use testgen::refine_family::{arb_mutation, arb_prog, mutate, render_own_anchors, OpKind};
    let branch = prop_oneof![
        Just(Branch::Symmetric),
        (0u32..8).prop_map(Branch::OneThread),
        Just(Branch::BelowTid),
    ];
    (arb_prog(2), arb_mutation(), branch).prop_map(|(mut p, (i, to), b)| {
        for o in &mut p.ops {
            o.0 = OpKind::Barrier;
        }
        let q = mutate(&p, i, to);
        let (s, t) = (render_own_anchors(&p), render_own_anchors(&q));
        (with_branch(&s, b), with_branch(&t, b), b)
    })
}

fn anchored(text: &str) -> String {
    text.replace(
        "call token @llvm.experimental.convergence.entry()",
        "call token @llvm.experimental.convergence.anchor()",
    ) + "declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn \
         memory(none)\n"
}

/// What [`mirror_vs_bounded`] found on one pair.
#[derive(Debug, Default)]
struct MirrorAgreement {
    /// C-MIRROR (or, without anchors, C-PAIR) answered refines for every
    /// thread count up to W.
    holds: bool,
    /// It was C-MIRROR (the pair has anchors), not C-PAIR.
    by_mirror: bool,
    /// Thread counts whose bounded check was asked and gave no answer.
    unanswered: usize,
    /// Thread counts whose strategy check on the plain launch gave no
    /// answer (solver time limit): nothing compared there.
    strategy_unanswered: usize,
    /// Thread counts whose bounded check was asked and answered refines.
    bounded_refines: usize,
    /// The interpreter's verdict at [`INTERP_THREADS`] threads (`%x` over
    /// {0, 1, 2}), when asked: `Some(true)` refines, `Some(false)` its
    /// exploration was incomplete; `None` not asked.
    interp: Option<bool>,
}

/// The thread count at which the campaign asks the interpreter (M-OPER,
/// the other formalization) for its verdict on pairs C-MIRROR decides.
const INTERP_THREADS: usize = 3;

/// Theorem C-MIRROR's soundness on one pair, W = 8. When `--cutoff 8`
/// answers refines through C-MIRROR, then at every thread count N in
/// `counts`:
/// - the strategy check on the plain N-thread launch (ids `0..N`,
///   `checker::refine::mirror::strategy_at`: one N-thread query, with
///   every pair of threads related directly, not through the theorem's
///   reduction) must hold: the mirror source execution is valid and
///   matches every target execution, so the target refines at N;
/// - with `bounded`, the plain bounded check (CEGIS over every source
///   choice, no cutoff, no lifting) must not find a counterexample
///   (unanswered checks are counted).
///
/// - with `bounded`, also the interpreter's exhaustive comparison at
///   [`INTERP_THREADS`] threads (`checker::agree::interp_refines_at`, M-OPER:
///   independent of the SMT encoding) must not find a difference.
///
/// When the strategy does not match at 1 or 2 threads, nothing is claimed.
/// (C-PAIR's `refines`, for pairs whose operations are all uncontrolled,
/// is checked by the bounded check only: it does not use the strategy.)
fn mirror_vs_bounded(
    src: &str,
    tgt: &str,
    base: &Options,
    counts: &[usize],
    bounded: bool,
    strategy_timeout: Duration,
) -> Result<MirrorAgreement, String> {
    let (s, t) = (parse(src), parse(tgt));
    let with = |threads: Vec<usize>, cutoff: Option<usize>| Options {
        threads,
        cutoff,
        ..base.clone()
    };
    let cut = check(&s, &t, "k", &with(vec![1, 2], Some(8)));
    let refines = matches!(cut.verdict, Verdict::Refines { .. });
    let mut out = MirrorAgreement {
        holds: refines
            && matches!(
                cut.cutoff,
                Some(Cutoff::Mirror { .. } | Cutoff::Holds { .. })
            ),
        by_mirror: refines && matches!(cut.cutoff, Some(Cutoff::Mirror { .. })),
        ..Default::default()
    };
    if !out.holds {
        return Ok(out);
    }
    if bounded {
        match checker::agree::interp_refines_at(&s, &t, INTERP_THREADS) {
            Ok(true) => out.interp = Some(true),
            Ok(false) => {
                return Err(format!(
                    "C-MIRROR says refines for every N <= 8; the interpreter finds a target \
                     behaviour no source execution shows at {INTERP_THREADS} threads"
                ))
            }
            Err(_) => out.interp = Some(false),
        }
    }
    for &n in counts {
        if out.by_mirror {
            let o = Options {
                timeout: strategy_timeout,
                ..base.clone()
            };
            match checker::refine::mirror::strategy_at(&s, &t, "k", &o, n)? {
                checker::refine::mirror::Strategy::Holds => {}
                checker::refine::mirror::Strategy::Fails(why) => {
                    return Err(format!(
                        "C-MIRROR says refines for every N <= 8; at {n} threads (ids 0..{n}) {why}"
                    ))
                }
                checker::refine::mirror::Strategy::Unknown(_) => out.strategy_unanswered += 1,
            }
        }
        if !bounded && out.by_mirror {
            continue;
        }
        let b = check(&s, &t, "k", &with(vec![n], None));
        match b.verdict {
            Verdict::Refines { .. } => out.bounded_refines += 1,
            Verdict::Counterexample(c) => {
                return Err(format!(
                    "C-MIRROR says refines for every N <= 8, {n} threads give a counterexample \
                     ({:?})",
                    c.inputs
                ))
            }
            _ => out.unanswered += 1,
        }
    }
    Ok(out)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

    /// Theorem C-MIRROR's validation, the CI slice: on generated pairs with
    /// anchors, a C-MIRROR `refines` agrees with the strategy check at 3
    /// and 4 threads and with the bounded verdicts there.
    /// (`mirror_campaign` runs more pairs and counts.)
    #[test]
    fn mirror_matches_bounded_on_generated_pairs((s, t, _b) in arb_anchor_pair()) {
        let base = Options { minimize: false, ..opts(vec![], None) };
        let r = mirror_vs_bounded(&s, &t, &base, &[3, 4], true, base.timeout);
        proptest::prop_assert!(r.is_ok(), "{}\nsource:\n{s}\ntarget:\n{t}", r.unwrap_err());
    }

    /// The same on pairs whose anchors are placed differently (each
    /// operation with an anchor of its own, moved with it).
    #[test]
    fn mirror_matches_bounded_on_moved_anchors((s, t, _b) in arb_own_anchor_pair()) {
        let base = Options { minimize: false, ..opts(vec![], None) };
        let r = mirror_vs_bounded(&s, &t, &base, &[3, 4], true, base.timeout);
        proptest::prop_assert!(r.is_ok(), "{}\nsource:\n{s}\ntarget:\n{t}", r.unwrap_err());
    }
}

/// The C-MIRROR campaign (not in `make test`; `make mirror-campaign`):
/// MIRROR_CASES generated pairs with anchors (default 1000; even cases from
/// [`arb_anchor_pair`], odd ones from [`arb_own_anchor_pair`]), C-MIRROR
/// (W = 8) against the strategy check on the plain launch at every thread
/// count 1..=MIRROR_MAX_N (default 8), and on every MIRROR_BOUNDED_EVERY-th
/// pair (default 10) also against the bounded verdict at those counts and
/// the interpreter at 3 threads, at MIRROR_MAX_STEPS block visits (default
/// 5); MIRROR_TIMEOUT limits each query (default 20 s) but the N-thread
/// strategy checks (MIRROR_STRATEGY_TIMEOUT, default 120 s); MIRROR_START
/// skips pairs.
#[test]
#[ignore = "campaign: make mirror-campaign (about an hour)"]
fn mirror_campaign() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let cases = env("MIRROR_CASES", 1000);
    let first = env("MIRROR_START", 0);
    let max_n = env("MIRROR_MAX_N", 8);
    let every = env("MIRROR_BOUNDED_EVERY", 10).max(1);
    let base = Options {
        max_steps: env("MIRROR_MAX_STEPS", 5),
        minimize: false,
        lift: false,
        auto_cutoff: false,
        timeout: Duration::from_secs(env("MIRROR_TIMEOUT", 20) as u64),
        ..opts(vec![], None)
    };
    let strategy_timeout = Duration::from_secs(env("MIRROR_STRATEGY_TIMEOUT", 120) as u64);
    let counts: Vec<usize> = (1..=max_n).collect();
    let mut runner = TestRunner::deterministic();
    let (same, moved) = (arb_anchor_pair().boxed(), arb_own_anchor_pair().boxed());
    let pairs: Vec<(String, String, Branch)> = (0..cases)
        .map(|i| {
            let strat = if i % 2 == 0 { &same } else { &moved };
            strat.new_tree(&mut runner).expect("generator").current()
        })
        .collect();
    let mut tally = MirrorAgreement::default();
    let (mut holds, mut mirror, mut other, mut bounded_pairs, mut bad) = (0, 0, 0, 0, Vec::new());
    let (mut interp_refines, mut interp_asked) = (0, 0);
    let start = std::time::Instant::now();
    for (i, (s, t, _)) in pairs.iter().enumerate().skip(first) {
        let bounded = i % every == 0;
        match mirror_vs_bounded(s, t, &base, &counts, bounded, strategy_timeout) {
            Ok(a) if a.holds => {
                holds += 1;
                mirror += usize::from(a.by_mirror);
                bounded_pairs += usize::from(bounded || !a.by_mirror);
                tally.unanswered += a.unanswered;
                tally.strategy_unanswered += a.strategy_unanswered;
                tally.bounded_refines += a.bounded_refines;
                interp_refines += usize::from(a.interp == Some(true));
                interp_asked += usize::from(a.interp.is_some());
            }
            Ok(_) => other += 1,
            Err(e) => {
                let msg = format!("case {i}: {e}\nsource:\n{s}\ntarget:\n{t}");
                eprintln!("mirror campaign: DISAGREEMENT {msg}");
                bad.push(msg);
            }
        }
        let d = i + 1 - first;
        if d.is_multiple_of(25) {
            eprintln!(
                "mirror campaign: {d} pairs ({:.0} s): {holds} refine by C-MIRROR/C-PAIR \
                 ({mirror} by C-MIRROR), {other} not decided by it, {} disagreements",
                start.elapsed().as_secs_f64(),
                bad.len()
            );
        }
    }
    eprintln!(
        "mirror campaign: pairs {first}..{cases}, threads 1..={max_n}, {} block visits, {:.0} s: \
         refines for every N <= 8 on {holds} pairs ({mirror} by C-MIRROR: the strategy check on \
         the plain launch held at every count 1..={max_n} that answered, {} unanswered); bounded \
         checks on {bounded_pairs} of \
         them: {} refined, {} unanswered, no counterexample; the interpreter at \
         {INTERP_THREADS} threads asked on {interp_asked}: refines on {interp_refines} (the others \
         incomplete); \
         {other} pairs not decided by the theorems; {} disagreements",
        base.max_steps,
        start.elapsed().as_secs_f64(),
        tally.strategy_unanswered,
        tally.bounded_refines,
        tally.unanswered,
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n\n")
    );
}

/// Theorem C-MIRROR at warp scale (issue 16 item 2): CL-13's unrolling
/// (an anchor controls the loop heart) refines for every thread count up
/// to 32 and 64 from the strategy check at 1 and 2 threads; CL-12's
/// remainder unrolling, which has a counterexample, is refused by the
/// strategy check (named as condition (M)) and its counterexample found.
#[test]
fn mirror_decides_cl13_and_refuses_cl12() {
    let cl13 = (
        example("cl13-unroll-heart-even.src.ll"),
        example("cl13-unroll-heart-even.tgt.ll"),
    );
    for n in [32, 64] {
        let o = check(&cl13.0, &cl13.1, "example", &opts(vec![n], None));
        assert!(
            matches!(o.cutoff, Some(Cutoff::Mirror { wave }) if wave == n),
            "CL-13 at {n}: {:?}",
            o.cutoff
        );
        assert_eq!(name(&o.verdict), "refines", "CL-13 at {n}");
    }
    let cl12 = (
        example("cl12-unroll-heart-remainder.src.ll"),
        example("cl12-unroll-heart-remainder.tgt.ll"),
    );
    let o = check(&cl12.0, &cl12.1, "example", &opts(vec![32], None));
    let Some(Cutoff::NotApplicable { failures, .. }) = &o.cutoff else {
        panic!("CL-12: {:?}", o.cutoff)
    };
    assert!(failures.iter().any(|f| f.condition == 'M'), "{failures:?}");
    assert_eq!(cex_threads(&o), 32);
    // An irreducible source (two hierarchies, C-PAIR's (D) fails) without
    // convergent values: the strategy runs the source under its first
    // hierarchy, which matches every target hierarchy here.
    let irr = parse(&format!(
        "define void @k(i1 %c, i1 %d) {{
A:
  br i1 %c, label %L, label %R
L:
  call void @convergent.operation()
  br i1 %d, label %R, label %X
R:
  br i1 %d, label %L, label %X
X:
  ret void
}}
{DECLS}"
    ));
    let o = check(&irr, &irr, "k", &opts(vec![1], Some(8)));
    assert!(
        matches!(o.cutoff, Some(Cutoff::Mirror { wave: 8 })),
        "{:?}",
        o.cutoff
    );
    assert_eq!(name(&o.verdict), "refines");
}
