//! The AMDGPU control-flow intrinsics in the interpreter (C-OPS,
//! `machine::lanes::control_flow`): `llvm.amdgcn.if`/`else`/`if.break`/
//! `loop`/`end.cf` as si-annotate-control-flow writes them, computing their
//! exec masks over the threads that execute them together, so that the
//! annotated program runs as the structured one did. Values worked out by
//! hand on a wave of 4; opt-22's own annotation of a loop with a ballot
//! gives the ballots of its input.

use semantics::ir::Module;
use semantics::machine::launch::Exploration;
use semantics::machine::{explore, Options};
use semantics::parse_module;

fn module(text: &str) -> Module {
    parse_module("cf.ll", text).unwrap_or_else(|e| panic!("test program parses: {e}"))
}

fn wave(n: u32) -> Options {
    Options {
        threads: n,
        subgroup_size: Some(n),
        ..Options::default()
    }
}

/// Per thread, `callee=result` of each communicating event of the single
/// behaviour (overload suffixes dropped).
fn trace(ex: &Exploration) -> Vec<Vec<String>> {
    assert_eq!(ex.behaviours.len(), 1, "deterministic program");
    ex.behaviours[0]
        .execution
        .threads
        .iter()
        .map(|t| {
            t.events
                .iter()
                .map(|e| {
                    let name = e
                        .callee
                        .trim_start_matches('@')
                        .trim_start_matches("llvm.amdgcn.");
                    let name = name.split(".i").next().unwrap_or(name);
                    format!(
                        "{name}={}",
                        e.result.as_ref().map_or("-".into(), |r| r.to_string())
                    )
                })
                .collect()
        })
        .collect()
}

const ANNOTATED: &str = "
define void @k() {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %x, 2
  %if = call { i1, i64 } @llvm.amdgcn.if.i64(i1 %c)
  %t = extractvalue { i1, i64 } %if, 0
  %s = extractvalue { i1, i64 } %if, 1
  br i1 %t, label %then, label %flow
then:
  %b1 = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  br label %flow
flow:
  %e = call { i1, i64 } @llvm.amdgcn.else.i64.i64(i64 %s)
  %et = extractvalue { i1, i64 } %e, 0
  %em = extractvalue { i1, i64 } %e, 1
  br i1 %et, label %else, label %endif
else:
  %b2 = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  br label %endif
endif:
  call void @llvm.amdgcn.end.cf.i64(i64 %em)
  br label %loop
loop:
  %i = phi i32 [ 0, %endif ], [ %i1, %loop ]
  %brk = phi i64 [ 0, %endif ], [ %nb, %loop ]
  %bl = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %i1 = add i32 %i, 1
  %done = icmp ugt i32 %i1, %x
  %nb = call i64 @llvm.amdgcn.if.break.i64(i1 %done, i64 %brk)
  %l = call i1 @llvm.amdgcn.loop.i64(i64 %nb)
  br i1 %l, label %exit, label %loop
exit:
  call void @llvm.amdgcn.end.cf.i64(i64 %nb)
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1) convergent
declare { i1, i64 } @llvm.amdgcn.if.i64(i1)
declare { i1, i64 } @llvm.amdgcn.else.i64.i64(i64)
declare i64 @llvm.amdgcn.if.break.i64(i1, i64)
declare i1 @llvm.amdgcn.loop.i64(i64)
declare void @llvm.amdgcn.end.cf.i64(i64)
";

/// Lanes 0 and 1 take the `if` (its mask holds the others, 0b1100), the
/// ballot there sees 0b0011; `else` sends lanes 2 and 3 (its mask holds the
/// lanes that took the `if`); lane x runs the loop x + 1 times, so the
/// broken mask grows 1, 3, 7, 15 and the ballot in iteration n sees the
/// lanes >= n.
#[test]
fn structured_if_else_and_loop_by_hand() {
    let ex = explore(&module(ANNOTATED), &wave(4)).expect("explores");
    let t = trace(&ex);
    let head = |take_if: bool| {
        let mut v = vec![format!("if={{ {take_if}, 12 }}")];
        if take_if {
            v.push("ballot=3".into());
        }
        v.push(format!("else={{ {}, 3 }}", !take_if));
        if !take_if {
            v.push("ballot=12".into());
        }
        v.push("end.cf=void".into());
        v
    };
    let looped = |lane: usize| {
        let ballots = [15, 14, 12, 8];
        let broken = [1, 3, 7, 15];
        let mut v = Vec::new();
        for n in 0..=lane {
            v.push(format!("ballot={}", ballots[n]));
            v.push(format!("if.break={}", broken[n]));
            v.push(format!("loop={}", n == lane));
        }
        v.push("end.cf=void".into());
        v
    };
    for (lane, got) in t.iter().enumerate() {
        let mut want = head(lane < 2);
        want.extend(looped(lane));
        assert_eq!(got, &want, "lane {lane}");
    }
}

/// A loop with a divergent exit and a ballot, as LLVM IR before
/// instruction selection sees it: opt-22's structurizecfg and
/// si-annotate-control-flow (llc's order) write `if`/`if.break`/`loop`/
/// `end.cf`; the annotated kernel stores what its input stores (the sum
/// of the ballots a lane sees before it leaves), for n = 0, 3, 6 on 4 and
/// 6 lanes.
#[test]
fn opt_annotated_loop_runs_as_its_input() {
    let Some(opt) = testgen::oracle::opt_or_skip("opt_annotated_loop_runs_as_its_input") else {
        return;
    };
    let input = "target triple = \"amdgcn-amd-amdhsa\"
define amdgpu_kernel void @k(i32 %n, ptr addrspace(1) %out) {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %go = icmp ult i32 %x, %n
  br i1 %go, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %acc = phi i64 [ 0, %entry ], [ %acc1, %body ]
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %i1 = add i32 %i, 1
  %stop = icmp ugt i32 %i1, %x
  br i1 %stop, label %exit, label %body
body:
  %acc1 = add i64 %acc, %b
  br label %loop
exit:
  %r = phi i64 [ 0, %entry ], [ %acc, %loop ]
  %r32 = trunc i64 %r to i32
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %x
  store i32 %r32, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1) convergent
";
    let out = testgen::oracle::run_opt(
        &opt,
        &[
            "-mtriple=amdgcn-amd-amdhsa",
            "-mcpu=gfx90a",
            "-passes=amdgpu-unify-divergent-exit-nodes,fix-irreducible,unify-loop-exits,structurizecfg,amdgpu-annotate-uniform,si-annotate-control-flow",
            "-S",
        ],
        input,
    );
    assert!(out.success(), "{}", out.stderr);
    for name in [
        "@llvm.amdgcn.if.",
        "@llvm.amdgcn.if.break.",
        "@llvm.amdgcn.loop.",
        "@llvm.amdgcn.end.cf.",
    ] {
        assert!(
            out.stdout.contains(name),
            "opt wrote {name}:\n{}",
            out.stdout
        );
    }
    let returned = |text: &str, opts: &Options| -> Vec<Vec<String>> {
        let ex = explore(&module(text), opts).expect("explores");
        assert!(ex.complete, "complete");
        let mut v: Vec<Vec<String>> = ex
            .behaviours
            .iter()
            .map(|b| {
                let mut v: Vec<String> = b
                    .execution
                    .threads
                    .iter()
                    .map(|t| format!("{:?}", t.end))
                    .collect();
                v.push(format!("{:?}", b.execution.memory));
                v
            })
            .collect();
        v.sort();
        v
    };
    for threads in [4, 6] {
        let mut opts = wave(threads);
        opts.int_domain = vec![0, 3, 6];
        let want = returned(input, &opts);
        assert_eq!(want.len(), 3, "one behaviour per n: {want:?}");
        assert_eq!(returned(&out.stdout, &opts), want, "{threads} lanes");
    }
}
