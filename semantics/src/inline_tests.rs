//! Tests of [`super::inline_kernel`]: the document's "Function inlining"
//! example (D-ENTRY-CALL), returns, nesting, recursion, fresh names, the
//! static rules on the result, and the interpreter as an oracle: the
//! inlined kernel shows exactly the original's behaviours (M-OPER).

use std::collections::{BTreeSet, HashSet};

use proptest::prelude::{prop_assert, proptest, ProptestConfig};

use super::{called_definition, inline_kernel, Inlined};
use crate::ir::{InstKind, Module, Name};
use crate::machine::launch::Execution;
use crate::machine::state::ThreadEnd;
use crate::machine::{explore, Options, Outcome, Val};
use crate::parse_module;
use crate::rules::{verify_module, Options as ROptions};

const DECLS: &str = "
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i32 @op(i32) convergent
declare void @ext(i32)
declare i32 @llvm.amdgcn.workitem.id.x()
";

fn parse(text: &str) -> Module {
    parse_module("test.ll", &format!("{DECLS}\n{text}")).expect("test module parses")
}

fn inline(m: &Module, k: &str) -> Inlined {
    inline_kernel(m, k).expect("inlining succeeds")
}

fn assert_valid(m: &Module) {
    let r = verify_module(m, &ROptions::default());
    assert!(
        r.violations.is_empty(),
        "inlined module breaks static rules: {:?}\n{}",
        r.violations,
        crate::ir::print::print_module(m)
    );
}

fn kernel_calls_defined(i: &Inlined, k: &str) -> bool {
    let f = i.module.function(k).expect("kernel");
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|x| match &x.kind {
            InstKind::Call(c) => super::calls_definition(&i.module, c),
            _ => false,
        })
}

/// Names of values and blocks of `k` are unique.
fn assert_unique_names(m: &Module, k: &str) {
    let f = m.function(k).expect("kernel");
    let mut seen = HashSet::new();
    for v in &f.values {
        assert!(
            seen.insert(v.name.clone()),
            "duplicate value name {}",
            v.name
        );
    }
    let mut seen: HashSet<&Name> = HashSet::new();
    for b in &f.blocks {
        assert!(seen.insert(&b.name), "duplicate block name {}", b.name);
    }
}

/// What an execution shows, independent of how the code is split into
/// functions: per thread, the convergent calls of declared functions other
/// than the control intrinsics (callee, arguments, result, communicating
/// set named by (thread, ordinal)), the observations and the end; only
/// finished executions (the step bound counts instructions, which inlining
/// changes).
fn project(m: &Module, e: &Execution) -> Option<String> {
    if !matches!(e.outcome, Outcome::Finished) {
        return None;
    }
    let sets = e.event_sets();
    let kept = |t: usize, i: usize| {
        let c = e.threads[t].events[i].callee.trim_start_matches('@');
        !c.starts_with("llvm.experimental.convergence.")
            && !m.function(c).is_some_and(|f| f.is_definition)
    };
    let ord: Vec<Vec<Option<usize>>> = (0..e.threads.len())
        .map(|t| {
            let mut k = 0;
            (0..e.threads[t].events.len())
                .map(|i| {
                    kept(t, i).then(|| {
                        k += 1;
                        k - 1
                    })
                })
                .collect()
        })
        .collect();
    let mut s = format!("{:?};", e.inputs);
    for (t, th) in e.threads.iter().enumerate() {
        for (i, ev) in th.events.iter().enumerate() {
            if ord[t][i].is_none() {
                continue;
            }
            let mut set: Vec<(usize, usize)> = sets[t][i]
                .iter()
                .filter_map(|(u, pos)| {
                    let j = e.threads[*u]
                        .events
                        .iter()
                        .position(|x| x.pos == *pos && x.key == ev.key)?;
                    Some((*u, ord[*u][j]?))
                })
                .collect();
            set.sort();
            // Token values are identities, not observations. Results of
            // unknown convergent functions are compared: they are one
            // function per callee (C-OPS, F-25), so inlining keeps them.
            let r = match &ev.result {
                Some(Val::Token(_)) => None,
                r => r.clone(),
            };
            s += &format!("{}{:?}{:?}{:?},", ev.callee, ev.args, r, set);
        }
        let end = match &th.end {
            Some(ThreadEnd::Returned(v)) => format!("ret {v:?}"),
            Some(ThreadEnd::Ub { .. }) => "ub".into(),
            other => format!("{other:?}"),
        };
        s += &format!("{:?}{end};", th.observations);
    }
    Some(s)
}

fn behaviours(m: &Module, k: &str, threads: u32) -> BTreeSet<String> {
    let opts = Options {
        entry: Some(k.into()),
        threads,
        int_domain: vec![0, 1],
        max_steps: 400,
        ..Options::default()
    };
    let ex = explore(m, &opts).expect("exploration runs");
    assert!(ex.complete, "exploration incomplete");
    ex.behaviours
        .iter()
        .filter_map(|b| project(m, &b.execution))
        .collect()
}

/// The interpreter oracle: same behaviours before and after inlining.
fn assert_same_behaviours(m: &Module, k: &str) {
    let i = inline(m, k);
    assert!(!kernel_calls_defined(&i, k));
    assert_valid(&i.module);
    for n in 1..=2 {
        let a = behaviours(m, k, n);
        let b = behaviours(&i.module, k, n);
        assert!(!a.is_empty(), "no finished execution at {n} threads");
        assert_eq!(a, b, "behaviours differ at {n} threads");
    }
}

/// D-ENTRY-CALL, CO "Function inlining": the document's example inlines to
/// exactly the document's "After inlining" kernel (structural equality).
#[test]
fn cl06_example_inlines_to_the_documents_result() {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |f: &str| {
        let p = format!("{root}/../examples/refine/{f}");
        let t = std::fs::read_to_string(&p).expect("example present");
        parse_module(&p, &t).expect("example parses")
    };
    let src = read("cl06-inline-entry.src.ll");
    let tgt = read("cl06-inline-entry.tgt.ll");
    let i = inline(&src, "main");
    assert_eq!(i.calls_inlined, 1);
    assert_eq!(i.module.function("main"), tgt.function("main"));
    assert_valid(&i.module);
    // The operation's origin is the callee's instruction, via the call.
    let f = i.module.function("main").expect("main");
    let (b, x) = f
        .blocks
        .iter()
        .enumerate()
        .find_map(|(b, blk)| {
            blk.insts
                .iter()
                .position(|x| matches!(&x.kind, InstKind::Call(c) if c.callee_name() == Some("convergent.operation")))
                .map(|x| (b, x))
        })
        .expect("the operation is inlined");
    let o = &i.origins[b][x];
    assert_eq!(o.loc.func, "callee");
    assert_eq!(o.path.len(), 1);
    assert_eq!(o.path[0].func, "main");
}

/// The call-site token replaces every use of the callee's `entry`
/// (D-ENTRY-CALL), in nested callees too, and behaviours are unchanged.
#[test]
fn token_replaces_entry_through_nested_calls() {
    let m = parse(
        "
define i32 @g(i32 %x) convergent {
  %e = call token @llvm.experimental.convergence.entry()
  %r = call i32 @op(i32 %x) [ \"convergencectrl\"(token %e) ]
  ret i32 %r
}
define i32 @f(i32 %x) convergent {
  %e = call token @llvm.experimental.convergence.entry()
  %y = add i32 %x, 1
  %r = call i32 @g(i32 %y) [ \"convergencectrl\"(token %e) ]
  %s = call i32 @op(i32 %r) [ \"convergencectrl\"(token %e) ]
  ret i32 %s
}
define void @k(i32 %a) convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %c = icmp eq i32 %a, 0
  br i1 %c, label %then, label %done
then:
  %v = call i32 @f(i32 %a) [ \"convergencectrl\"(token %t) ]
  call void @ext(i32 %v)
  br label %done
done:
  ret void
}
",
    );
    let i = inline(&m, "k");
    assert_eq!(i.calls_inlined, 2);
    let f = i.module.function("k").expect("k");
    // Every remaining `entry` is the kernel's own.
    let entries = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|x| matches!(&x.kind, InstKind::Call(c) if c.callee_name() == Some("llvm.experimental.convergence.entry")))
        .count();
    assert_eq!(entries, 1);
    // Both operations use the kernel's token %t.
    let t = f
        .values
        .iter()
        .position(|v| v.name == Name::Named("t".into()))
        .expect("%t");
    let ops: Vec<_> = f
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(b, blk)| blk.insts.iter().enumerate().map(move |(x, i)| (b, x, i)))
        .filter_map(|(b, x, inst)| match &inst.kind {
            InstKind::Call(c) if c.callee_name() == Some("op") => Some((b, x, c.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(ops.len(), 2);
    for (b, x, c) in &ops {
        let tok = c.convergence_bundles().next().expect("bundle").inputs[0]
            .value
            .as_local();
        assert_eq!(tok, Some(crate::ir::ValueId(t)));
        assert!(!i.origins[*b][*x].path.is_empty());
    }
    // Nested: g's operation came through two call sites.
    assert!(ops
        .iter()
        .any(|(b, x, _)| i.origins[*b][*x].path.len() == 2));
    // Straight-line callees add no blocks.
    assert_eq!(f.blocks.len(), m.function("k").expect("k").blocks.len());
    assert_unique_names(&i.module, "k");
    assert_same_behaviours(&m, "k");
}

/// Several returns: a join block with a phi defines the call's result.
#[test]
fn multiple_returns_join_with_phi() {
    let m = parse(
        "
define i32 @f(i32 %x) {
entry:
  %c = icmp slt i32 %x, 1
  br i1 %c, label %small, label %big
small:
  ret i32 7
big:
  %y = mul i32 %x, 3
  ret i32 %y
}
define void @k(i32 %a) {
entry:
  %v = call i32 @f(i32 %a)
  %w = add i32 %v, 1
  call void @ext(i32 %w)
  ret void
}
",
    );
    let i = inline(&m, "k");
    let f = i.module.function("k").expect("k");
    let join = f
        .blocks
        .iter()
        .find(|b| b.name == Name::Named("f.ret".into()))
        .expect("join block f.ret");
    match &join.insts[0].kind {
        InstKind::Phi { incoming, .. } => assert_eq!(incoming.len(), 2),
        other => panic!("expected a phi, found {other:?}"),
    }
    assert_same_behaviours(&m, "k");
}

/// A callee inlined twice gets fresh, unique names; the caller's successor
/// phis are retargeted to the block that now holds the terminator.
#[test]
fn names_unique_and_successor_phis_retargeted() {
    let m = parse(
        "
define i32 @f(i32 %x) {
entry:
  %c = icmp eq i32 %x, 0
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  %p = phi i32 [ 1, %a ], [ %x, %entry ]
  ret i32 %p
}
define void @k(i32 %a) {
entry:
  %c = icmp eq i32 %a, 1
  br i1 %c, label %l, label %j
l:
  %v = call i32 @f(i32 %a)
  %w = call i32 @f(i32 %v)
  br label %j
j:
  %r = phi i32 [ %w, %l ], [ 5, %entry ]
  call void @ext(i32 %r)
  ret void
}
",
    );
    let i = inline(&m, "k");
    assert_eq!(i.calls_inlined, 2);
    assert_unique_names(&i.module, "k");
    assert_same_behaviours(&m, "k");
}

/// Recursion, direct or mutual, is inlined to `RECURSION_DEPTH` nested
/// copies; the call past it becomes a block that loops forever, so the
/// result is a valid program without calls of defined functions.
#[test]
fn recursion_is_cut_at_the_depth() {
    let m = parse(
        "
define void @f(i32 %x) {
  call void @f(i32 %x)
  ret void
}
define void @g(i32 %x) {
  call void @h(i32 %x)
  ret void
}
define void @h(i32 %x) {
  call void @g(i32 %x)
  ret void
}
define void @k1(i32 %a) {
  call void @f(i32 %a)
  ret void
}
define void @k2(i32 %a) {
  call void @g(i32 %a)
  ret void
}
",
    );
    for k in ["k1", "k2"] {
        let i = inline_kernel(&m, k).expect("recursion is inlined to a depth");
        assert!(i.recursion_cuts >= 1, "{k}: a call is cut");
        let f = i.module.function(k).expect("kernel");
        // The cut: a block that loops forever, and no call of a defined
        // function left.
        assert!(f
            .blocks
            .iter()
            .enumerate()
            .any(|(b, blk)| { blk.term.successors() == [crate::ir::BlockId(b)] }));
        assert!(f
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .all(|x| called_definition(&i.module, x).is_none()));
        assert_valid(&i.module);
    }
}

/// A recursion that ends within the depth (a countdown from the argument,
/// with a convergent call at each level, over the interpreter's inputs 0 to
/// 2: at most 3 nested copies) has the original's behaviours once inlined,
/// at 1 and 2 threads.
#[test]
fn recursion_within_the_depth_keeps_behaviours() {
    let m = parse(
        "
define void @f(i32 %n) convergent {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more
more:
  %r = call i32 @op(i32 %n)
  call void @ext(i32 %r)
  %m = sub i32 %n, 1
  call void @f(i32 %m)
  br label %done
done:
  ret void
}
define void @k(i32 %a) {
entry:
  %c = icmp ult i32 %a, 3
  br i1 %c, label %go, label %out
go:
  call void @f(i32 %a)
  br label %out
out:
  ret void
}
",
    );
    assert_eq!(inline(&m, "k").recursion_cuts, 1);
    assert_same_behaviours(&m, "k");
}

/// A call without a token of a callee that uses `entry` is rejected (its
/// D-ENTRY-CALL has no token to substitute), naming the call.
#[test]
fn uncontrolled_call_of_entry_callee_rejected() {
    let m = parse(
        "
define void @f() convergent {
  %e = call token @llvm.experimental.convergence.entry()
  %r = call i32 @op(i32 0) [ \"convergencectrl\"(token %e) ]
  ret void
}
define void @k() {
entry:
  call void @f()
  ret void
}
",
    );
    let e = inline_kernel(&m, "k").expect_err("rejected");
    assert!(e.message.contains("without a convergencectrl token"), "{e}");
    assert!(e.at.contains("@k %entry"), "{e}");
}

/// D-ENTRY-CALL with D-MAX: in a `convergent` kernel without `entry`, an
/// uncontrolled call outside every cycle of a callee that uses `entry`
/// gets the token of an `entry` inserted at the kernel's start; the
/// interpreter, which runs the uncontrolled calls itself (the callee's
/// `entry` converged as the call sites are), sees the same behaviours. In
/// a cycle the call is still rejected.
#[test]
fn uncontrolled_entry_calls_outside_cycles_get_an_entry_token() {
    let callee = "
define i32 @f(i32 %x) convergent {
  %e = call token @llvm.experimental.convergence.entry()
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ \"convergencectrl\"(token %e) ]
  ret i32 %r
}
declare i32 @llvm.amdgcn.readfirstlane.i32(i32) convergent
";
    let m = parse(&format!(
        "{callee}
define void @k() convergent {{
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %a = call i32 @f(i32 %t)
  call void @ext(i32 %a)
  %c = icmp ult i32 %t, 1
  br i1 %c, label %then, label %done
then:
  %b = call i32 @f(i32 %t)
  call void @ext(i32 %b)
  br label %done
done:
  ret void
}}
"
    ));
    let i = inline(&m, "k");
    assert!(i.entry_added);
    assert_eq!(i.calls_inlined, 2);
    assert_same_behaviours(&m, "k");
    let looped = parse(&format!(
        "{callee}
define void @k(i1 %c) convergent {{
entry:
  br label %loop
loop:
  %a = call i32 @f(i32 0)
  br i1 %c, label %loop, label %done
done:
  ret void
}}
"
    ));
    let e = inline_kernel(&looped, "k").expect_err("rejected");
    assert!(e.message.contains("without a convergencectrl token"), "{e}");
}

/// Calls inside a loop, anchors in the callee, a callee with a loop of its
/// own: the interpreter sees the same behaviours.
#[test]
fn anchor_callee_in_loop_same_behaviours() {
    let m = parse(
        "
define i32 @f(i32 %x) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %r = call i32 @op(i32 %x) [ \"convergencectrl\"(token %a) ]
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %h ]
  %i1 = add i32 %i, 1
  %d = icmp slt i32 %i1, %x
  br i1 %d, label %h, label %out
out:
  ret i32 %r
}
define void @k(i32 %n) {
entry:
  br label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %loop ]
  %v = call i32 @f(i32 %j)
  call void @ext(i32 %v)
  %j1 = add i32 %j, 1
  %c = icmp slt i32 %j1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
",
    );
    assert_same_behaviours(&m, "k");
}

/// Builds a kernel `@k` with the generated program's parameters that calls
/// it as `@f` (with the kernel's `entry` token when `@f` uses `entry`, and
/// twice when `@f` has no anchor: copies of one anchor are one static
/// instruction, which the interpreter on the inlined module cannot know).
fn caller_of(p: &testgen::tokens::TokenProgram) -> Option<String> {
    let callee = p.to_function_ll("f");
    let m = parse_module(
        "gen.ll",
        &format!(
            "{}\n{callee}",
            testgen::tokens::TokenProgram::declarations_ll()
        ),
    )
    .ok()?;
    let f = m.function("f")?;
    let params: Vec<String> = f
        .params
        .iter()
        .map(|q| {
            let ty = crate::ir::print::type_str(&q.ty);
            let name = f.value(q.value.expect("named")).name.to_string();
            format!("{ty} %{name}")
        })
        .collect();
    let args = params.join(", ");
    let uses_entry = callee.contains("convergence.entry");
    let has_anchor = callee.contains("convergence.anchor");
    let (head, bundle, attr) = if uses_entry {
        (
            "  %kt = call token @llvm.experimental.convergence.entry()\n",
            " [ \"convergencectrl\"(token %kt) ]",
            " convergent",
        )
    } else {
        ("", "", "")
    };
    let call = format!("  call void @f({args}){bundle}\n");
    let calls = if has_anchor {
        call
    } else {
        format!("{call}{call}")
    };
    Some(format!(
        "{}\n{callee}\ndefine void @k({}){attr} {{\n{head}{calls}  ret void\n}}\n",
        testgen::tokens::TokenProgram::declarations_ll(),
        params.join(", ")
    ))
}

/// Runs the oracle on one generated callee and launch values: `Ok(n)` with
/// the number of thread counts (of 1 and 2) whose explorations were
/// complete and compared, `Err` on a difference.
fn compare_generated(p: &testgen::tokens::TokenProgram, vals: &[i128]) -> Result<usize, String> {
    let Some(text) = caller_of(p) else {
        return Ok(0);
    };
    let m = parse_module("gen.ll", &text).map_err(|e| e.to_string())?;
    if !verify_module(&m, &ROptions::default())
        .violations
        .is_empty()
    {
        return Ok(0);
    }
    let i = inline_kernel(&m, "k").map_err(|e| e.to_string())?;
    if kernel_calls_defined(&i, "k") {
        return Err("a call of a defined function is left".into());
    }
    let r = verify_module(&i.module, &ROptions::default());
    if !r.violations.is_empty() {
        return Err(format!("inlined module breaks rules: {:?}", r.violations));
    }
    let f = i.module.function("k").ok_or("no kernel")?;
    let mut names = HashSet::new();
    for v in &f.values {
        if !names.insert(v.name.clone()) {
            return Err(format!("duplicate name {}", v.name));
        }
    }
    let mut compared = 0;
    for n in 1..=2u32 {
        // One launch per case: per-thread argument values from `vals`.
        let mut args = std::collections::BTreeMap::new();
        for (j, q) in f.params.iter().enumerate() {
            let name = f
                .value(q.value.ok_or("unnamed parameter")?)
                .name
                .to_string();
            let per: Vec<i128> = (0..n as usize)
                .map(|t| vals[(j * 2 + t) % vals.len()])
                .collect();
            args.insert(name, crate::machine::ArgValues::PerThread(per));
        }
        let opts = Options {
            entry: Some("k".into()),
            threads: n,
            args,
            int_domain: vec![0, 1],
            max_steps: 80,
            max_executions: 1_500,
            ..Options::default()
        };
        let a = explore(&m, &opts).map_err(|e| e.to_string())?;
        let b = explore(&i.module, &opts).map_err(|e| e.to_string())?;
        if !(a.complete && b.complete) {
            continue;
        }
        let pa: BTreeSet<String> = a
            .behaviours
            .iter()
            .filter_map(|x| project(&m, &x.execution))
            .collect();
        let pb: BTreeSet<String> = b
            .behaviours
            .iter()
            .filter_map(|x| project(&i.module, &x.execution))
            .collect();
        if pa != pb {
            return Err(format!(
                "behaviours differ at {n} threads\noriginal: {pa:?}\ninlined: {pb:?}\n{text}"
            ));
        }
        compared += 1;
    }
    Ok(compared)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Oracle: the interpreter shows the same behaviours on the inlined
    /// module as on the original (M-OPER runs calls natively), for valid
    /// generated callees with convergent operations (D-ENTRY-CALL, D-CTRL,
    /// D-LOOP, D-ANCHOR, D-MAX inside a callee), at 1 and 2 threads.
    #[test]
    fn inlining_preserves_interpreter_behaviours(
        p in testgen::tokens::arb_valid_token_module(3),
        vals in proptest::collection::vec(0i128..2, 16),
    ) {
        let r = compare_generated(&p, &vals);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

/// The same oracle on a fixed sample (the same programs on every run), so
/// that the comparison is known not to be vacuous: most explorations are
/// complete and compared.
#[test]
fn inlining_preserves_behaviours_on_a_fixed_sample() {
    let strategy = (
        testgen::tokens::arb_valid_token_module(3),
        proptest::collection::vec(0i128..2, 16),
    );
    let cases = testgen::sample(&strategy, 24, 7);
    let mut compared = 0;
    for (p, vals) in &cases {
        match compare_generated(p, vals) {
            Ok(c) => compared += c,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(
        compared >= cases.len(),
        "only {compared} comparisons of {} possible",
        2 * cases.len()
    );
}

/// The record R-PREFIX-REC reads: every inlined call with its frame, entry
/// point and arguments, every cut call likewise, and the frame of every
/// block's terminator. A self-recursion with a countdown: three copies of
/// `@f`, nested (each frame extends the previous one), the cut call's
/// frame that of the third copy, its argument the third copy's `%m`
/// (after renumbering), and the cut block's terminator one frame deeper.
#[test]
fn recursion_records_frames_and_arguments() {
    let m = parse(
        "
define void @f(i32 %n) {
entry:
  %m = sub i32 %n, 1
  call void @f(i32 %m)
  ret void
}
define void @k(i32 %a) {
entry:
  call void @f(i32 %a)
  ret void
}
",
    );
    let i = inline(&m, "k");
    let f = i.module.function("k").expect("kernel");
    assert_eq!(i.calls.len(), 3);
    assert_eq!(i.cuts.len(), 1);
    assert_eq!(i.term_frames.len(), f.blocks.len());
    for (d, c) in i.calls.iter().enumerate() {
        assert_eq!(c.callee, "f");
        assert_eq!(c.frame.len(), d + 1, "copy {d} nests in the previous");
        if d > 0 {
            assert!(c.frame.starts_with(&i.calls[d - 1].frame));
        }
        // The copy's first instruction is its `%m`, in its frame.
        let inst = &f.blocks[c.block.0].insts[c.start];
        assert_eq!(i.origins[c.block.0][c.start].path, c.frame);
        assert!(matches!(inst.kind, InstKind::Binary { .. }));
    }
    assert_eq!(i.calls[0].args.len(), 1);
    let cut = &i.cuts[0];
    assert_eq!(cut.callee, "f");
    assert_eq!(cut.frame, i.calls[2].frame);
    let name = |op: &crate::ir::Operand| match op {
        crate::ir::Operand::Local(v) => f.value(*v).name.to_string(),
        other => format!("{other:?}"),
    };
    // The cut call passes the third copy's `%m`; the third copy was
    // called with the second's.
    let third_m = f.blocks[i.calls[2].block.0].insts[i.calls[2].start]
        .result
        .expect("%m");
    assert_eq!(cut.args[0].1, crate::ir::Operand::Local(third_m));
    assert_ne!(name(&cut.args[0].1), name(&i.calls[2].args[0].1));
    assert_eq!(
        f.blocks[cut.block.0].term.successors(),
        [cut.block],
        "the cut block loops"
    );
    let mut deeper = cut.frame.clone();
    deeper.push(cut.call.clone());
    assert_eq!(i.term_frames[cut.block.0], deeper);
}
