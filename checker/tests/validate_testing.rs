//! `validate` on functions the refinement encoding cannot express (threads
//! communicating through memory, atomics with memory):
//! bounded testing on the reference interpreter (checker::validate::testing)
//! finds a target behaviour no source execution shows on the same launch
//! (R-REF, R-MEM) and reports it as a counterexample; finding none leaves
//! the verdict `unsupported` with the figures, never `refines`. Real input:
//! opt-22's AMDGPU atomic optimizer, which rewrites an `atomicrmw add` into
//! a wave scan (ballot, mbcnt, readlane, cttz) done by one lane.

use std::time::Duration;

use checker::refine::Options;
use checker::validate::adapter::{check_function, Pair};
use checker::validate::testing::{test_refinement, Tested};
use checker::validate::FnVerdict;
use semantics::ir::Module;

fn parse(text: &str) -> Module {
    semantics::parse_module("t.ll", text).unwrap_or_else(|e| panic!("parses: {e}\n{text}"))
}

fn opts() -> Options {
    Options {
        threads: vec![1, 2, 3],
        max_steps: 8,
        timeout: Duration::from_secs(30),
        ..Options::default()
    }
}

const HEAD: &str =
    "target datalayout = \"e-p:64:64-p1:64:64-p3:32:32-p5:32:32-i64:64-n32:64-S32-A5-G1\"
target triple = \"amdgcn-amd-amdhsa\"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.ballot.i32(i1) convergent
";

/// The ballot stored by every thread, before and after a "sinking" of the
/// ballot into the branch of threads 0 and 1 (CL-01's shape with memory).
const SRC: &str = "define amdgpu_kernel void @k(ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %tid, 2
  %b = call i32 @llvm.amdgcn.ballot.i32(i1 %c)
  br i1 %c, label %then, label %end
then:
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  store i32 %b, ptr addrspace(1) %q
  br label %end
end:
  ret void
}
";

const SUNK: &str = "define amdgpu_kernel void @k(ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %tid, 2
  br i1 %c, label %then, label %end
then:
  %b = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  store i32 %b, ptr addrspace(1) %q
  br label %end
end:
  ret void
}
";

/// Sinking a ballot whose argument is the branch condition is correct
/// (the threads in the branch all have it true); sinking it with the
/// condition replaced by `true` is too. A sunk ballot of a *different*
/// value is not: threads 0..1 see only each other.
const SUNK_WRONG: &str = "define amdgpu_kernel void @k(ptr addrspace(1) %p) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %tid, 2
  br i1 %c, label %then, label %end
then:
  %b = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %b2 = add i32 %b, 0
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %d = icmp eq i32 %tid, 1
  %v = select i1 %d, i32 %b2, i32 0
  store i32 %v, ptr addrspace(1) %q
  br label %end
end:
  ret void
}
";

#[test]
fn testing_agrees_with_the_memory_semantics() {
    let src = parse(&format!("{HEAD}{SRC}"));
    let sunk = parse(&format!("{HEAD}{SUNK}"));
    let wrong = parse(&format!("{HEAD}{SUNK_WRONG}"));
    match test_refinement(&src, &sunk, "k", &opts(), None) {
        Tested::NoDifference {
            launches,
            target_behaviours,
            ..
        } => assert!(launches >= 6 && target_behaviours >= 6),
        other => panic!("sinking the ballot with its condition: {other:?}"),
    }
    match test_refinement(&src, &wrong, "k", &opts(), None) {
        Tested::Counterexample(text) => {
            assert!(
                text.contains("launch: 1 threads") || text.contains("launch: 2 threads"),
                "{text}"
            );
            assert!(text.contains("%p = ["), "names the buffer: {text}");
        }
        other => panic!("thread 0 stores 0 instead of the ballot: {other:?}"),
    }
}

/// Threads 0 and 1 exchange values through the buffer after a barrier:
/// outside the encoding's memory (R-MEM-SMT: threads communicating
/// through memory), so `validate` falls back to testing from 2 threads.
fn talking(f: &str) -> String {
    f.replace(
        "end:\n  ret void",
        "end:\n  call void @llvm.amdgcn.s.barrier()\n  %o = xor i32 %tid, 1\n  \
         %r = getelementptr i32, ptr addrspace(1) %p, i32 %o\n  \
         %x = load i32, ptr addrspace(1) %r\n  %w = add i32 %tid, 8\n  \
         %s = getelementptr i32, ptr addrspace(1) %p, i32 %w\n  \
         store i32 %x, ptr addrspace(1) %s\n  ret void",
    ) + "declare void @llvm.amdgcn.s.barrier() convergent\n"
}

/// Through `validate`'s adapter. Stores through a kernel buffer are in the
/// encoding now (R-MEM-SMT, issue 12 item 3): the correct sinking is
/// proved within the bounds and the wrong one is a replayed
/// counterexample. Threads that exchange slots across an aligned barrier
/// are in the encoding too (R-MEM-SYNC-SMT). When threads communicate
/// through the buffer without a barrier between (a race) the encoder
/// answers unsupported and testing decides: the counterexample is found,
/// and with no difference the verdict stays unsupported.
#[test]
fn adapter_reports_testing_results() {
    let src = parse(&format!("{HEAD}{SRC}"));
    let (sunk, wrong) = (
        parse(&format!("{HEAD}{SUNK}")),
        parse(&format!("{HEAD}{SUNK_WRONG}")),
    );
    let pair = |s, t| Pair {
        src: s,
        tgt: t,
        src_path: "src.ll",
        tgt_path: "tgt.ll",
    };
    let r = check_function(&pair(&src, &sunk), "k", &opts(), true, None);
    assert_eq!(r.verdict, FnVerdict::Refines, "{}", r.reason);
    let r = check_function(&pair(&src, &wrong), "k", &opts(), true, None);
    assert_eq!(r.verdict, FnVerdict::Counterexample, "{}", r.reason);
    assert!(!r.reason.contains("interpreter testing"), "{}", r.reason);

    let src = parse(&talking(&format!("{HEAD}{SRC}")));
    let (sunk, wrong) = (
        parse(&talking(&format!("{HEAD}{SUNK}"))),
        parse(&talking(&format!("{HEAD}{SUNK_WRONG}"))),
    );
    let two = Options {
        threads: vec![2, 3],
        ..opts()
    };
    let r = check_function(&pair(&src, &sunk), "k", &two, true, None);
    assert_eq!(r.verdict, FnVerdict::Refines, "{}", r.reason);
    let r = check_function(&pair(&src, &wrong), "k", &two, true, None);
    assert_eq!(r.verdict, FnVerdict::Counterexample, "{}", r.reason);
    assert!(!r.reason.contains("interpreter testing"), "{}", r.reason);

    // Without the barrier the exchange races: outside the encoding.
    let racing = |f: String| f.replace("  call void @llvm.amdgcn.s.barrier()\n", "");
    let src = parse(&racing(talking(&format!("{HEAD}{SRC}"))));
    let (sunk, wrong) = (
        parse(&racing(talking(&format!("{HEAD}{SUNK}")))),
        parse(&racing(talking(&format!("{HEAD}{SUNK_WRONG}")))),
    );
    let r = check_function(&pair(&src, &sunk), "k", &two, true, None);
    assert_eq!(r.verdict, FnVerdict::Unsupported, "{}", r.reason);
    assert!(
        r.reason.contains("no difference") && r.reason.contains("not a proof"),
        "{}",
        r.reason
    );
    let r = check_function(&pair(&src, &wrong), "k", &two, true, None);
    assert_eq!(r.verdict, FnVerdict::Counterexample, "{}", r.reason);
    assert!(r.reason.contains("interpreter testing"), "{}", r.reason);
    assert!(r.text.is_some_and(|t| t.contains("no source execution")));
}

const ATOMIC: &str = "target triple = \"amdgcn-amd-amdhsa\"
define amdgpu_kernel void @k(ptr addrspace(1) %p) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %old = atomicrmw add ptr addrspace(1) %p, i32 %tid syncscope(\"agent\") monotonic
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
";

/// opt-22's `amdgpu-atomic-optimizer` (iterative strategy) on a wave-wide
/// `atomicrmw add`: the scan it writes (ballot, mbcnt, a readlane loop over
/// the active lanes with cttz) gives the source's final memory at 1 to 3
/// threads; making the last lane (instead of lane 0) do the atomic is
/// still right, making no lane do it is a counterexample.
#[test]
fn atomic_optimizer_output_is_tested() {
    let Some(opt) = testgen::oracle::opt_or_skip("atomic_optimizer_output_is_tested") else {
        return;
    };
    let out = testgen::oracle::run_opt(
        &opt,
        &[
            "-passes=amdgpu-atomic-optimizer<strategy=iterative>",
            "-mtriple=amdgcn-amd-amdhsa",
            "-mcpu=gfx90a",
            "-S",
        ],
        ATOMIC,
    );
    assert!(out.success(), "{}", out.stderr);
    assert!(
        out.stdout.contains("@llvm.amdgcn.readlane") && out.stdout.contains("@llvm.cttz"),
        "the pass wrote its scan loop:\n{}",
        out.stdout
    );
    let src = parse(ATOMIC);
    let tgt = parse(&out.stdout);
    match test_refinement(&src, &tgt, "k", &opts(), None) {
        Tested::NoDifference { .. } => {}
        other => panic!("the atomic optimizer's output: {other:?}"),
    }
    // The lane that does the atomic is the one whose mbcnt is 0; asking for
    // mbcnt == 64 instead means no lane does it.
    let broken = out
        .stdout
        .replacen("icmp eq i32 %6, 0", "icmp eq i32 %6, 64", 1);
    assert_ne!(
        broken, out.stdout,
        "the elected-lane compare is where expected"
    );
    match test_refinement(&src, &parse(&broken), "k", &opts(), None) {
        Tested::Counterexample(_) => {}
        other => panic!("no lane does the atomic: {other:?}"),
    }
}
