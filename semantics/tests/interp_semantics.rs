//! Single-thread semantics, outcome classes, C-OPS results, anchors and
//! contradictions of the reference interpreter, on small inline programs.

use semantics::ir::Module;
use semantics::machine::launch::Exploration;
use semantics::machine::query::{self, Answer};
use semantics::machine::{
    explore, render, AnchorMode, ArgValues, Environment, Options, Outcome, RunError, ShuffleOob,
};
use semantics::parse_module;

fn module(text: &str) -> Module {
    parse_module("test.ll", text).unwrap_or_else(|e| panic!("test program parses: {e}"))
}

fn go(text: &str, opts: &Options) -> (Module, Exploration) {
    let m = module(text);
    let ex = explore(&m, opts).expect("explores");
    (m, ex)
}

fn n(threads: u32) -> Options {
    Options {
        threads,
        ..Options::default()
    }
}

fn ask(m: &Module, ex: &Exploration, cond: &str) -> Answer {
    query::answer(m, &query::parse(cond).expect("parses"), ex).0
}

/// P-THREAD: division by zero is UB naming the instruction; the other
/// inputs finish. The argument is enumerated over the domain {0, 1, 2}.
#[test]
fn division_by_zero_is_ub_for_the_zero_input_only() {
    let (m, ex) = go(
        "define i32 @k(i32 %d) {\nentry:\n  %q = udiv i32 6, %d\n  ret i32 %q\n}\n",
        &n(1),
    );
    assert_eq!((ex.explored, ex.ub), (3, 1));
    let ub = ex
        .behaviours
        .iter()
        .find(|b| matches!(b.execution.outcome, Outcome::Ub { .. }))
        .expect("one UB behaviour");
    let text = render::outcome_text(&m, &ub.execution.outcome);
    assert!(
        text.contains("@k:%entry instruction 0: division by zero"),
        "{text}"
    );
}

/// P-THREAD: `unreachable` and a branch on poison are UB; `nsw` overflow
/// is poison, and poison reaching a branch is UB.
#[test]
fn unreachable_and_branch_on_poison_are_ub() {
    let (_, ex) = go("define void @k() {\nentry:\n  unreachable\n}\n", &n(1));
    assert_eq!(ex.ub, 1);
    let (m, ex) = go(
        "define void @k(i8 %x) {\nentry:\n  %y = add nsw i8 %x, 127\n  %c = icmp sgt i8 %y, 0\n  br i1 %c, label %a, label %b\na:\n  ret void\nb:\n  ret void\n}\n",
        &n(1),
    );
    // x = 0: 127 > 0; x in {1, 2}: signed overflow -> poison -> UB at the
    // branch. The two UB executions end in states that differ only in
    // dead values (M-LIVE), so the second is merged at its end.
    assert_eq!((ex.explored, ex.ub, ex.merged), (2, 1, 1));
    assert_eq!(ex.behaviours.len(), 2);
    assert_eq!(ask(&m, &ex, "ub"), Answer::Sometimes);
}

/// A thread exceeding the step bound is reported as cut, never dropped.
#[test]
fn infinite_loop_is_cut_not_dropped() {
    let (m, ex) = go(
        "define void @k() {\nentry:\n  br label %l\nl:\n  br label %l\n}\n",
        &Options {
            threads: 2,
            max_steps: 50,
            ..Options::default()
        },
    );
    assert_eq!((ex.explored, ex.cut, ex.behaviours.len()), (1, 1, 1));
    assert_eq!(ask(&m, &ex, "cut"), Answer::Always);
    assert!(render::counts(&ex).contains("cut: 1"));
}

/// Integer semantics: phi, select, casts, memory through alloca and a
/// global, atomicrmw, gep, calls to defined functions with return values.
#[test]
fn single_thread_values() {
    let text = "@g = global [4 x i32] zeroinitializer\n\
define i32 @add3(i32 %a) {\nentry:\n  %r = add i32 %a, 3\n  ret i32 %r\n}\n\
define i32 @k() {\nentry:\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %p = alloca i32\n  store i32 %tid, ptr %p\n  %v = load i32, ptr %p\n  %w = call i32 @add3(i32 %v)\n  %e = getelementptr [4 x i32], ptr @g, i64 0, i64 2\n  %old = atomicrmw add ptr %e, i32 %w monotonic\n  %t = trunc i32 %w to i8\n  %s = sext i8 %t to i32\n  %big = icmp ugt i32 %s, 3\n  %sel = select i1 %big, i32 %s, i32 100\n  %sum = add i32 %sel, %old\n  ret i32 %sum\n}\n\
declare i32 @llvm.amdgcn.workitem.id.x()\n";
    let o = Options {
        threads: 2,
        entry: Some("k".into()),
        ..Options::default()
    };
    let (_, ex) = go(text, &o);
    assert_eq!(ex.explored, 1);
    let e = &ex.behaviours[0].execution;
    let rets: Vec<String> = e.threads.iter().map(|t| format!("{:?}", t.end)).collect();
    // t0: w = 3, sel = 100 (3 is not > 3), old = 0 -> 100.
    // t1: w = 4, sel = 4, old = 3 (t0 added 3 first) -> 7.
    assert!(rets[0].contains("v: 100"), "{rets:?}");
    assert!(rets[1].contains("v: 7"), "{rets:?}");
}

const OPS: &str = "
define void @k(i32 %x) convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %tid, 2
  br i1 %c, label %then, label %end
then:
  %b = call i32 @subgroupBallot(i1 true) [ \"convergencectrl\"(token %t) ]
  %s = call i32 @subgroupAdd(i32 %x) [ \"convergencectrl\"(token %t) ]
  %f = call i32 @subgroupBroadcastFirst(i32 %x) [ \"convergencectrl\"(token %t) ]
  %other = xor i32 %tid, 1
  %sh = call i32 @subgroupShuffle(i32 %x, i32 2) [ \"convergencectrl\"(token %t) ]
  br label %end
end:
  ret void
}
declare token @llvm.experimental.convergence.entry()
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @subgroupBallot(i1) convergent
declare i32 @subgroupAdd(i32) convergent
declare i32 @subgroupBroadcastFirst(i32) convergent
declare i32 @subgroupShuffle(i32, i32) convergent
";

/// C-OPS over the communicating set {t0, t1} (t2 skips the block): ballot,
/// reduction, broadcast-first; a shuffle reading t2 (outside the set) is
/// poison or UB by option.
#[test]
fn c_ops_results_over_the_set() {
    let mut o = n(3);
    o.args
        .insert("x".into(), ArgValues::PerThread(vec![5, 7, 11]));
    let (m, ex) = go(OPS, &o);
    assert_eq!(ex.explored, 1);
    for c in [
        "t0@subgroupBallot == 3 && t1@subgroupBallot == 3",
        "t0@subgroupAdd == 12 && t1@subgroupAdd == 12",
        "t0@subgroupBroadcastFirst == 5 && t1@subgroupBroadcastFirst == 5",
        "t0@subgroupShuffle == poison",
        "size(t0@subgroupAdd) == 2 && !exists(t2@subgroupAdd)",
    ] {
        assert_eq!(ask(&m, &ex, c), Answer::Always, "{c}");
    }
    o.shuffle_oob = ShuffleOob::Ub;
    let (_, ex) = go(OPS, &o);
    assert_eq!(ex.ub, 1);
}

const ANCHOR: &str = "
define void @k() {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %b = call i32 @subgroupBallot(i1 true) [ \"convergencectrl\"(token %a) ]
  ret void
}
declare token @llvm.experimental.convergence.anchor()
declare i32 @subgroupBallot(i1) convergent
";

/// D-ANCHOR: in mode `all` every partition of the threads is a behaviour
/// (3 threads: 5 partitions); in mode `maximal` only the full set.
#[test]
fn anchor_sets_are_all_partitions() {
    let (m, ex) = go(ANCHOR, &n(3));
    let mut masks: Vec<String> = ex
        .behaviours
        .iter()
        .map(|b| {
            b.execution
                .threads
                .iter()
                .map(|t| {
                    t.events[1]
                        .result
                        .as_ref()
                        .map_or("-".into(), |r| r.to_string())
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    masks.sort();
    masks.dedup();
    assert_eq!(masks, vec!["1,2,4", "1,6,6", "3,3,4", "5,2,5", "7,7,7"]);
    assert_eq!(
        ask(&m, &ex, "t0@subgroupBallot ~ t1@subgroupBallot"),
        Answer::Sometimes
    );
    let (m, ex) = go(
        ANCHOR,
        &Options {
            threads: 3,
            anchor: AnchorMode::Maximal,
            ..Options::default()
        },
    );
    assert_eq!(ex.behaviours.len(), 1);
    assert_eq!(ask(&m, &ex, "t0@subgroupBallot == 7"), Answer::Always);
}

/// D-ENTRY-LAUNCH: `opencl` converges the kernel's entry within a group,
/// `cxx` never; groups split the threads.
#[test]
fn entry_environment_and_groups() {
    let text = "define void @k() convergent {\nentry:\n  %t = call token @llvm.experimental.convergence.entry()\n  %b = call i32 @subgroupBallot(i1 true) [ \"convergencectrl\"(token %t) ]\n  ret void\n}\ndeclare token @llvm.experimental.convergence.entry()\ndeclare i32 @subgroupBallot(i1) convergent\n";
    let (m, ex) = go(text, &n(4));
    assert_eq!(ask(&m, &ex, "t0@subgroupBallot == 15"), Answer::Always);
    let (m, ex) = go(
        text,
        &Options {
            threads: 4,
            groups: 2,
            ..Options::default()
        },
    );
    assert_eq!(
        ask(&m, &ex, "t0@subgroupBallot == 3 && t3@subgroupBallot == 12"),
        Answer::Always
    );
    let (m, ex) = go(
        text,
        &Options {
            threads: 4,
            environment: Environment::Cxx,
            ..Options::default()
        },
    );
    assert_eq!(ask(&m, &ex, "t2@subgroupBallot == 4"), Answer::Always);
}

/// D-ENTRY-CALL: a callee's `entry` converges the threads that called it
/// through converged call-site instances; here the call sites diverge.
#[test]
fn entry_of_a_callee_follows_the_call_site() {
    let text = "
define void @callee() convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %b = call i32 @subgroupBallot(i1 true) [ \"convergencectrl\"(token %t) ]
  ret void
}
define void @k() convergent {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %a, label %b
a:
  call void @callee() [ \"convergencectrl\"(token %t) ]
  br label %end
b:
  call void @callee() [ \"convergencectrl\"(token %t) ]
  br label %end
end:
  call void @callee() [ \"convergencectrl\"(token %t) ]
  ret void
}
declare token @llvm.experimental.convergence.entry()
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @subgroupBallot(i1) convergent
";
    let (m, ex) = go(
        text,
        &Options {
            threads: 3,
            entry: Some("k".into()),
            ..Options::default()
        },
    );
    // One behaviour; the scheduler tries the orders of the three sets at
    // the callee's entry that it cannot prove independent (pinned count):
    // 6 executions in the plain enumeration, 4 with memoized states
    // (orders that reach an explored state are abandoned), 1 since states
    // are compared at every scheduling point and at the end (M-LIVE's
    // round: the other orders meet it).
    assert_eq!(
        (ex.explored, ex.behaviours.len()),
        (1, 1),
        "{}",
        render::text(&m, &ex)
    );
    let (_, plain) = go(
        text,
        &Options {
            threads: 3,
            entry: Some("k".into()),
            reduce: false,
            ..Options::default()
        },
    );
    assert_eq!((plain.explored, plain.behaviours.len()), (6, 1));
    let e = &ex.behaviours[0].execution;
    // The first call's callee visits are in different columns (not converged).
    let table = render::table(&m, &ex.kernel, e);
    assert!(
        table.contains("t0 | entry | a |    | callee.entry |              | end"),
        "{table}"
    );
    // First ballot: t0 alone (call in %a), t1/t2 together (call in %b);
    // second ballot (call in %end): all three.
    for c in [
        "t0@subgroupBallot[0] == 1",
        "t1@subgroupBallot[0] == 6",
        "t0@subgroupBallot[1] == 7 && t2@subgroupBallot[1] == 7",
    ] {
        assert_eq!(ask(&m, &ex, c), Answer::Always, "{c}");
    }
}

/// CL-07 (CO "Rationale for the static rule on cycles", first example),
/// forced past the verifier: an operation in an infinite loop using an
/// outer anchor. The dynamic rules make every iteration's instance
/// converged with the others in one thread (I1 == I2): reported as a
/// contradiction, not a loop or a panic.
#[test]
fn cl07_contradiction_is_reported() {
    let text = "
define void @k() {
entry:
  %anchor = call token @llvm.experimental.convergence.anchor()
  br label %loop
loop:
  %x = call i32 @subgroupBallot(i1 true) [ \"convergencectrl\"(token %anchor) ]
  br label %loop
}
declare token @llvm.experimental.convergence.anchor()
declare i32 @subgroupBallot(i1) convergent
";
    let (m, ex) = go(text, &n(2));
    assert!(ex.contradictions > 0);
    assert_eq!(ask(&m, &ex, "contradiction"), Answer::Always);
    let out = render::text(&m, &ex);
    assert!(out.contains("contradiction (D-INST)"), "{out}");
    assert!(out.contains("I1 == I2"), "{out}");
}

/// Launch errors are typed: no kernel, unknown argument, unsupported
/// construct.
#[test]
fn launch_errors_are_typed() {
    let two =
        "define void @a() {\nentry:\n  ret void\n}\ndefine void @b() {\nentry:\n  ret void\n}\n";
    assert!(matches!(
        explore(&module(two), &n(1)),
        Err(RunError::BadLaunch(_))
    ));
    // P-LAUNCH: among several definitions, the only one with a kernel
    // calling convention runs (clang's OpenCL output: the kernel and its
    // `__clang_ocl_kern_imp_` body); two kernels still need --entry.
    let kernel_and_body = "define amdgpu_kernel void @k() {\nentry:\n  call void @body()\n  ret void\n}\ndefine void @body() {\nentry:\n  ret void\n}\n";
    let ex = explore(&module(kernel_and_body), &n(1)).expect("the kernel is found");
    assert_eq!(ex.kernel, "k");
    let two_kernels = "define amdgpu_kernel void @k() {\nentry:\n  ret void\n}\ndefine spir_kernel void @j() {\nentry:\n  ret void\n}\n";
    assert!(matches!(
        explore(&module(two_kernels), &n(1)),
        Err(RunError::BadLaunch(why)) if why.contains("not exactly one kernel")
    ));
    let mut o = n(1);
    o.args.insert("nope".into(), ArgValues::Uniform(1));
    let one = "define void @a(i32 %x) {\nentry:\n  ret void\n}\n";
    assert!(matches!(
        explore(&module(one), &o),
        Err(RunError::BadLaunch(_))
    ));
    // Floats are interpreted now (P-FLOAT); integers past 128 bits are not.
    let wide = "define void @a() {\nentry:\n  %x = add i256 1, 2\n  ret void\n}\n";
    assert!(matches!(
        explore(&module(wide), &n(1)),
        Err(RunError::Unsupported { .. })
    ));
}

/// Stopping through the progress callback keeps what was found and says
/// the exploration is incomplete (the Ctrl-C / budget path). The inputs
/// go through arithmetic, so that no renaming (M-RENAME) merges their 9
/// launches, and 3a + b is returned, so that no two end alike (memoization
/// compares finished states too); a branch on it makes both inputs
/// control, so that they are launched concretely (not M-DATA symbols).
#[test]
fn stopping_early_is_reported_incomplete() {
    let text = "define i32 @k(i32 %a, i32 %b) {\nentry:\n  %m = mul i32 %a, 3\n  %s = add i32 %m, %b\n  %p = icmp eq i32 %s, 100\n  br i1 %p, label %x, label %y\nx:\n  ret i32 %s\ny:\n  ret i32 %s\n}\n";
    let m = module(text);
    let full = explore(&m, &n(1)).expect("explores");
    assert_eq!(full.data_inputs, "");
    assert_eq!((full.explored, full.complete), (9, true));
    let mut calls = 0;
    let part = semantics::machine::explore_with(&m, &n(1), &mut |explored, _| {
        calls += 1;
        explored < 4
    })
    .expect("explores");
    assert_eq!((part.explored, part.complete), (4, false));
    assert_eq!(calls, 4);
    assert!(render::counts(&part).contains("INCOMPLETE"));
}

/// C-OPS, F-25: the result of an unknown convergent function is one
/// function of the communicating set and arguments per callee, not a fresh
/// choice per call: two calls with equal sets and arguments return equal
/// values (here a difference would reach `unreachable`), as in the SMT
/// encoding. Each call is still free in which value it returns.
#[test]
fn unknown_convergent_results_are_one_function_per_callee() {
    let text = "define void @k(i32 %x) convergent {\nentry:\n  %a = call i32 @f(i32 %x)\n  %b = call i32 @f(i32 %x)\n  %e = icmp eq i32 %a, %b\n  br i1 %e, label %ok, label %bad\nok:\n  ret void\nbad:\n  unreachable\n}\ndeclare i32 @f(i32) convergent\n";
    for threads in [1, 2] {
        let (_, ex) = go(text, &n(threads));
        assert!(ex.explored > 0);
        assert_eq!(ex.ub, 0, "{threads} threads: two calls of @f disagreed");
        assert!(ex.behaviours.len() > 1, "the value itself stays free");
    }
}
