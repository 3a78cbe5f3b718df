//! Shared by the cutoff test crates (`refine_cutoff`, `refine_mirror`,
//! `refine_cval`; `mod cutoff_support;`): parsing, the checks with replay,
//! and the generated pairs' branch readings (proofs/CUTOFF.md).
#![allow(dead_code)] // each crate uses a part

use std::path::Path;
use std::time::Duration;

use checker::refine::{check_pair, Options, Outcome2, PairResult, Verdict};
use checker::smt::Session;
use semantics::ir::Module;

pub fn parse(text: &str) -> Module {
    semantics::parse_module("t.ll", text).expect("test module parses")
}

pub fn example(name: &str) -> Module {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/refine")
        .join(name);
    let text = std::fs::read_to_string(&p).expect("example readable");
    semantics::parse_module(&p.display().to_string(), &text).expect("example parses")
}

pub fn opts(threads: Vec<usize>, cutoff: Option<usize>) -> Options {
    Options {
        threads,
        cutoff,
        timeout: Duration::from_secs(60),
        ..Options::default()
    }
}

/// The outcome; a replay disagreement fails the test (R-CEX).
pub fn check(src: &Module, tgt: &Module, kernel: &str, o: &Options) -> Outcome2 {
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

pub fn name(v: &Verdict) -> &'static str {
    checker::refine::report::verdict_name(v)
}

pub fn cex_threads(o: &Outcome2) -> usize {
    match &o.verdict {
        Verdict::Counterexample(c) => c.threads,
        v => panic!("expected a counterexample, got {v:?}"),
    }
}

/// How a generated pair's branch reads the thread id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
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
pub fn arb_cutoff_pair() -> impl proptest::strategy::Strategy<Value = (String, String, Branch)> {
    use proptest::strategy::Strategy;
    use testgen::refine_family::{arb_mutation, arb_prog, mutate, render, OpKind};
    (arb_prog(2), arb_mutation(), arb_branch()).prop_map(|(mut p, (i, to), b)| {
        for o in &mut p.ops {
            o.0 = OpKind::Barrier;
        }
        let q = mutate(&p, i, to);
        (with_branch(&render(&p), b), with_branch(&render(&q), b), b)
    })
}

/// The family's program with its branch condition read as `b` says.
pub fn with_branch(text: &str, b: Branch) -> String {
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

/// Declarations of the hand-written pairs.
pub const DECLS: &str = "
declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @use(i32)
";

/// How a generated pair's branch reads the thread id (C-PAIR side 6):
/// symmetric, one thread K in 0..8, or below the id.
pub fn arb_branch() -> impl proptest::strategy::Strategy<Value = Branch> {
    use proptest::prelude::{prop_oneof, Just};
    use proptest::strategy::Strategy;
    prop_oneof![
        Just(Branch::Symmetric),
        (0u32..8).prop_map(Branch::OneThread),
        Just(Branch::BelowTid),
    ]
}

/// A campaign's setting: the environment variable `name` as a number, or
/// `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A campaign's pairs: value `i` of `pick(i)`'s strategy, for `i` in
/// `0..cases`, drawn from proptest's deterministic runner (the same
/// sequence on every run, so that a campaign can be split and resumed).
pub fn generate<T>(
    cases: usize,
    mut pick: impl FnMut(usize) -> proptest::strategy::BoxedStrategy<T>,
) -> Vec<T>
where
    T: std::fmt::Debug,
{
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    (0..cases)
        .map(|i| pick(i).new_tree(&mut runner).expect("generator").current())
        .collect()
}

/// A campaign's bounded checks: the plain search (no lifting, no theorem
/// tried by itself above 4 threads), no minimization, `max_steps` block
/// visits, `timeout` per query.
pub fn campaign_options(max_steps: usize, timeout: Duration) -> Options {
    Options {
        max_steps,
        minimize: false,
        lift: false,
        auto_cutoff: false,
        timeout,
        ..opts(vec![], None)
    }
}
