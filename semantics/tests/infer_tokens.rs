//! Token inference (CO "Inferring Tokens", D-UNCTRL `inferred`): the
//! transformed programs pass LLVM's verifier (MC-04, first half), and on
//! reducible CFGs the behaviours of `maximal` (communicating sets of the
//! uncontrolled operations) are behaviours of the inferred program
//! (MC-04, second half).

use std::collections::BTreeSet;

use semantics::infer::{infer_tokens, InferError};
use semantics::ir::print::print_module;
use semantics::machine::launch::Exploration;
use semantics::machine::{explore, Options, Uncontrolled};
use semantics::parse_module;
use testgen::cfg::{arb_irreducible_cfg, arb_reducible_cfg, GenCfg};
use testgen::oracle::{opt_or_skip, verify_ll};

/// A generated CFG with an uncontrolled `@op` in every block whose index
/// is in `with_op`, and branch conditions from input streams.
fn program(cfg: &GenCfg, with_op: &dyn Fn(usize) -> bool) -> String {
    let body = |b: usize| {
        if with_op(b) {
            vec![format!("%op{b} = call i32 @op(i32 {b})")]
        } else {
            Vec::new()
        }
    };
    let mut out = String::new();
    for (n, line) in cfg.to_ll_with("k", "", &body).lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("define void @k(") {
            // The conditions no longer read the arguments: drop them, so
            // that the launch does not enumerate unused inputs.
            let attrs = t.split_once(')').map_or("", |x| x.1);
            out += &format!("define void @k(){attrs}\n");
        } else if let Some(rest) = t.strip_prefix("br i1 %c") {
            let rest = rest.split_once(',').map_or("", |x| x.1);
            out += &format!("  %in.{n} = call i1 @in()\n  br i1 %in.{n},{rest}\n");
        } else if let Some(rest) = t.strip_prefix("switch i32 %s") {
            let rest = rest.split_once(',').map_or("", |x| x.1);
            out += &format!("  %in.{n} = call i32 @in32()\n  switch i32 %in.{n},{rest}\n");
        } else {
            out += line;
            out.push('\n');
        }
    }
    out + "declare i1 @in()\ndeclare i32 @in32()\ndeclare i32 @op(i32) convergent\n"
}

/// The communicating sets of `@op` calls of every finished behaviour
/// (cut executions stop at different points in the two programs, whose
/// step counts differ by the inserted intrinsics), each call named by
/// (thread, its ordinal among the thread's `@op` calls).
fn op_sets(ex: &Exploration) -> BTreeSet<Vec<Vec<(usize, usize)>>> {
    ex.behaviours
        .iter()
        .filter(|b| b.execution.outcome == semantics::machine::Outcome::Finished)
        .map(|b| {
            let e = &b.execution;
            let sets = e.event_sets();
            let mut out = Vec::new();
            for (t, th) in e.threads.iter().enumerate() {
                let ordinal = |u: usize, pos: usize, callee: &str| {
                    e.threads[u]
                        .events
                        .iter()
                        .filter(|x| x.callee == callee)
                        .position(|x| x.pos == pos)
                };
                for (ev, set) in th.events.iter().zip(&sets[t]) {
                    if ev.callee != "op" {
                        continue;
                    }
                    let mut s: Vec<(usize, usize)> = set
                        .iter()
                        .filter_map(|(u, p)| ordinal(*u, *p, "op").map(|k| (*u, k)))
                        .collect();
                    s.sort();
                    out.push(s);
                }
            }
            out.sort();
            out
        })
        .collect()
}

#[test]
fn inferred_program_has_entry_hearts_and_bundles() {
    let text = "define void @k() {\nentry:\n  br label %h\nh:\n  %x = call i32 @op(i32 1)\n  br label %inner\ninner:\n  %y = call i32 @op(i32 2)\n  %c = call i1 @in()\n  br i1 %c, label %inner, label %latch\nlatch:\n  %d = call i1 @in()\n  br i1 %d, label %h, label %exit\nexit:\n  %z = call i32 @op(i32 3)\n  ret void\n}\ndeclare i1 @in()\ndeclare i32 @op(i32) convergent\n";
    let m = parse_module("t.ll", text).expect("parses");
    let out = print_module(&infer_tokens(&m).expect("reducible"));
    for needle in [
        "define void @k() convergent",
        "%conv.entry = call token @llvm.experimental.convergence.entry()",
        "%conv.loop.h = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %conv.entry) ]",
        "%conv.loop.inner = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %conv.loop.h) ]",
        "%x = call i32 @op(i32 1) [ \"convergencectrl\"(token %conv.loop.h) ]",
        "%y = call i32 @op(i32 2) [ \"convergencectrl\"(token %conv.loop.inner) ]",
        "%z = call i32 @op(i32 3) [ \"convergencectrl\"(token %conv.entry) ]",
    ] {
        assert!(out.contains(needle), "missing {needle} in\n{out}");
    }
    if let Some(opt) = opt_or_skip("inferred_program_has_entry_hearts_and_bundles") {
        let r = verify_ll(&opt, &out);
        assert!(r.success(), "{}\n{out}", r.stderr);
    }
}

#[test]
fn irreducible_cfgs_are_rejected_not_guessed() {
    let cfg = testgen::sample(&arb_irreducible_cfg(6), 1, 3).remove(0);
    let m = parse_module("t.ll", &program(&cfg, &|_| true)).expect("parses");
    assert!(matches!(
        infer_tokens(&m),
        Err(InferError::Irreducible { .. })
    ));
}

/// MC-04 on a fixed sample of reducible CFGs: the inferred program
/// verifies, and every combination of `@op` communicating sets a finished
/// `maximal` execution shows is shown by an inferred execution.
#[test]
fn mc04_inferred_verifies_and_matches_maximal() {
    let cfgs = testgen::sample(&arb_reducible_cfg(5), 30, 11);
    let opt = opt_or_skip("mc04_inferred_verifies_and_matches_maximal");
    let mut compared = 0;
    for (i, cfg) in cfgs.iter().enumerate() {
        let text = program(cfg, &|b| (b + i) % 2 == 0);
        let m = parse_module("g.ll", &text).expect("parses");
        let inferred = infer_tokens(&m).expect("reducible");
        if let Some(opt) = &opt {
            let printed = print_module(&inferred);
            let r = verify_ll(opt, &printed);
            assert!(r.success(), "{}\n{printed}", r.stderr);
        }
        // The inferred program executes one more instruction per `entry`
        // and per loop iteration (the intrinsics), so it gets twice the step
        // bound: every path that finishes under `maximal` finishes there too.
        let opts = Options {
            threads: 2,
            max_steps: 6,
            max_executions: 3000,
            ..Options::default()
        };
        let max = explore(&m, &opts).expect("explores");
        let inf = explore(
            &m,
            &Options {
                uncontrolled: Uncontrolled::Inferred,
                max_steps: 12,
                ..opts.clone()
            },
        )
        .expect("explores");
        if !max.complete || !inf.complete {
            continue;
        }
        let (a, b) = (op_sets(&max), op_sets(&inf));
        assert!(
            a.is_subset(&b),
            "MC-04 on\n{text}\nmaximal {a:?}\ninferred {b:?}"
        );
        compared += 1;
    }
    eprintln!("MC-04: compared {compared} of {}", cfgs.len());
    assert!(compared >= 12, "compared {compared}");
}
