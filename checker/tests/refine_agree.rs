//! MC-07 (M-AGREE) and the mutation test of issue 6, on generated program
//! pairs.
//!
//! Programs come from a small family: a kernel with a per-thread `%x`, a
//! divergent branch on `%x`, and convergent operations (a C-OPS reduction
//! whose value is observed by `@use`, or an unknown convergent call with side
//! effects) placed in the entry block, the branch arm, or the join block;
//! controlled by the `entry` token or uncontrolled; optionally inside a
//! short loop with a heart. A *mutation* moves one operation to another
//! block (sinking into the divergent arm, hoisting out of it, moving across
//! the loop) or drops the heart's operation: the deliberately wrong (or
//! sometimes harmless) transforms of the issue.
//!
//! The interpreter's verdict: for every launch of 2 threads with `%x` over
//! {0, 1, 2}, every target behaviour's observation (R-OBS) is one of the
//! source's, or the source has UB. The SMT checker runs on the same bounds
//! (`input_domain`). They must agree (M-AGREE); in particular the checker
//! never says "refines" where the interpreter finds a differing behaviour
//! (mutation test). An `unknown` from the checker fails the test too.

use std::collections::BTreeMap;

use checker::refine::obs::CThread;
use checker::refine::replay::{project, same_observation};
use checker::refine::{check_pair, Options, PairResult, Verdict};
use checker::smt::Session;
use proptest::prelude::*;
use semantics::ir::Module;
use semantics::machine::{explore, ArgValues, Options as MOptions};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Entry,
    Arm,
    Join,
    Loop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpKind {
    /// `%r = @subgroupAdd(%x)` then `@use(%r)`.
    Add,
    /// `@convergent.operation()` (observed with its set).
    Barrier,
}

#[derive(Clone, Debug)]
struct Prog {
    controlled: bool,
    with_loop: bool,
    ops: Vec<(OpKind, Place)>,
}

fn render(p: &Prog) -> String {
    let mut s = String::from("define void @k(i32 %x) convergent {\nentry:\n");
    if p.controlled {
        s += "  %tok = call token @llvm.experimental.convergence.entry()\n";
    }
    let bundle = |tok: &str| {
        if p.controlled {
            format!(" [ \"convergencectrl\"(token %{tok}) ]")
        } else {
            String::new()
        }
    };
    let mut n = 0;
    let mut emit = |s: &mut String, kind: OpKind, tok: &str| {
        n += 1;
        match kind {
            OpKind::Add => {
                *s += &format!(
                    "  %r{n} = call i32 @subgroupAdd(i32 %x){}\n  call void @use(i32 %r{n})\n",
                    bundle(tok)
                )
            }
            OpKind::Barrier => {
                *s += &format!("  call void @convergent.operation(){}\n", bundle(tok))
            }
        }
    };
    for (k, pl) in &p.ops {
        if *pl == Place::Entry {
            emit(&mut s, *k, "tok");
        }
    }
    s += "  %c = icmp slt i32 %x, 1\n  br i1 %c, label %arm, label %join\narm:\n";
    for (k, pl) in &p.ops {
        if *pl == Place::Arm {
            emit(&mut s, *k, "tok");
        }
    }
    s += "  br label %join\njoin:\n";
    for (k, pl) in &p.ops {
        if *pl == Place::Join {
            emit(&mut s, *k, "tok");
        }
    }
    if p.with_loop {
        s += "  br label %loop\nloop:\n  %i = phi i32 [ 0, %join ], [ %i.next, %loop ]\n";
        if p.controlled {
            s += "  %h = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %tok) ]\n";
        }
        for (k, pl) in &p.ops {
            if *pl == Place::Loop {
                emit(&mut s, *k, "h");
            }
        }
        s += "  %i.next = add i32 %i, 1\n  %more = icmp slt i32 %i.next, %x\n  br i1 %more, label %loop, label %exit\nexit:\n";
    }
    s += "  ret void\n}\n\n";
    s += "declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)\n";
    s += "declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)\n";
    s += "declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)\n";
    s += "declare void @convergent.operation() convergent nounwind\n";
    s += "declare void @use(i32)\n";
    s
}

fn arb_prog() -> impl Strategy<Value = Prog> {
    let place = prop_oneof![
        Just(Place::Entry),
        Just(Place::Arm),
        Just(Place::Join),
        Just(Place::Loop)
    ];
    let kind = prop_oneof![Just(OpKind::Add), Just(OpKind::Barrier)];
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec((kind, place), 1..3),
    )
        .prop_map(|(controlled, with_loop, mut ops)| {
            for o in &mut ops {
                if o.1 == Place::Loop && !with_loop {
                    o.1 = Place::Join;
                }
            }
            Prog {
                controlled,
                with_loop,
                ops,
            }
        })
}

/// A mutation: move operation `i` to `to` (or drop it when `to` is None).
fn mutate(p: &Prog, i: usize, to: Option<Place>) -> Prog {
    let mut q = p.clone();
    let i = i % q.ops.len();
    match to {
        Some(pl) if pl != Place::Loop || q.with_loop => q.ops[i].1 = pl,
        Some(_) => q.ops[i].1 = Place::Arm,
        None => {
            q.ops.remove(i);
        }
    }
    q
}

fn parse(text: &str) -> Module {
    semantics::parse_module("gen.ll", text).expect("generated programs parse")
}

const DOMAIN: [i128; 3] = [0, 1, 2];
const THREADS: usize = 2;

/// The interpreter's verdict (M-OPER): does every target behaviour appear
/// among the source's on every launch (or the source has UB)?
fn interp_refines(src: &Module, tgt: &Module) -> bool {
    let observe = checker::refine::encode::Observe::Auto;
    let mut launches = vec![vec![]];
    for _ in 0..THREADS {
        launches = launches
            .into_iter()
            .flat_map(|l: Vec<i128>| {
                DOMAIN.iter().map(move |v| {
                    let mut l = l.clone();
                    l.push(*v);
                    l
                })
            })
            .collect();
    }
    for xs in launches {
        let mut args = BTreeMap::new();
        args.insert("x".to_string(), ArgValues::PerThread(xs.clone()));
        let opts = MOptions {
            threads: THREADS as u32,
            args,
            max_steps: 400,
            ..MOptions::default()
        };
        let sx = explore(src, &opts).expect("source explores");
        let tx = explore(tgt, &opts).expect("target explores");
        let sobs: Vec<Vec<CThread>> = sx
            .behaviours
            .iter()
            .map(|b| project(src, &b.execution, observe))
            .collect();
        if sobs
            .iter()
            .any(|o| o.iter().any(|t| t.end == checker::refine::obs::CEnd::Ub))
        {
            continue;
        }
        for b in &tx.behaviours {
            let t = project(tgt, &b.execution, observe);
            if !sobs.iter().any(|s| same_observation(s, &t)) {
                return false;
            }
        }
    }
    true
}

fn smt_verdict(src: &Module, tgt: &Module) -> Result<bool, String> {
    let opts = Options {
        threads: vec![THREADS],
        max_steps: 8,
        input_domain: Some(DOMAIN.to_vec()),
        small_inputs_first: false,
        ..Options::default()
    };
    let mut session = Session::new(None);
    match check_pair(src, tgt, "k", &opts, &mut session, true, None) {
        Ok(PairResult::Checked {
            outcome, replay, ..
        }) => {
            if let Some(Err(e)) = replay {
                return Err(format!("replay disagrees: {e}"));
            }
            match outcome.verdict {
                Verdict::Refines { .. } => Ok(true),
                Verdict::Counterexample(_) => Ok(false),
                other => Err(format!("{other:?}")),
            }
        }
        other => Err(format!("{other:?}")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// MC-07 / M-AGREE and the mutation test: the checker's verdict equals
    /// the interpreter's, so it never says "refines" where the interpreter
    /// finds a differing behaviour.
    #[test]
    fn mc07_checker_agrees_with_interpreter(
        p in arb_prog(),
        i in 0usize..4,
        to in prop_oneof![
            Just(Some(Place::Entry)), Just(Some(Place::Arm)),
            Just(Some(Place::Join)), Just(Some(Place::Loop)), Just(None)
        ],
    ) {
        let q = mutate(&p, i, to);
        let (st, tt) = (render(&p), render(&q));
        let (s, t) = (parse(&st), parse(&tt));
        let want = interp_refines(&s, &t);
        let got = smt_verdict(&s, &t);
        prop_assert_eq!(got.clone(), Ok(want), "source:\n{}\ntarget:\n{}", st, tt);
    }
}

/// Non-vacuity of MC-07: the family contains both verdicts, and both
/// formalizations see them (sinking a reduction into the divergent arm is
/// wrong; moving a controlled reduction from the entry block to the join is
/// harmless, the `entry` token converges all threads at both places).
#[test]
fn mc07_family_has_both_verdicts() {
    let base = Prog {
        controlled: true,
        with_loop: false,
        ops: vec![(OpKind::Add, Place::Entry)],
    };
    let s = parse(&render(&base));
    let sink = parse(&render(&mutate(&base, 0, Some(Place::Arm))));
    let join = parse(&render(&mutate(&base, 0, Some(Place::Join))));
    assert!(!interp_refines(&s, &sink));
    assert_eq!(smt_verdict(&s, &sink), Ok(false));
    assert!(interp_refines(&s, &join));
    assert_eq!(smt_verdict(&s, &join), Ok(true));
}
