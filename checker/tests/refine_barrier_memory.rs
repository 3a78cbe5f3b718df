//! R-MEM-SYNC-SMT (docs/RULES.md §9): threads that communicate through a
//! shared buffer across an aligned barrier. Each thread stores its slot,
//! passes the barrier and reads its neighbour's slot: within each epoch
//! no byte one thread writes is touched by another, so the checker
//! expresses it (was `unsupported`), a target reading the wrong slot is a
//! counterexample the interpreter replays (R-CEX, `common::check_memory`),
//! and the interpreter's own verdict agrees (M-AGREE,
//! `checker::agree::agreement_memory`). Issue 12's mutants: the store sunk
//! below the barrier into a divergent branch, the load hoisted above the
//! barrier it depends on (a race in the target: unsupported, never a
//! "refines").

mod common;

use checker::agree::MemAgree;
use common::Got;

const DECL: &str = "declare i32 @tid() nounwind readnone\n\
                    declare void @barrier() convergent nounwind\n";

fn check(src: &str, tgt: &str, threads: Vec<usize>) -> Got {
    common::check_memory(src, tgt, DECL, threads)
}

fn agree(src: &str, tgt: &str) -> MemAgree {
    common::agree_memory(src, tgt, DECL)
}

/// `kernel` with the load of the neighbour's slot hoisted above the store
/// and the barrier.
fn hoist(kernel: &str) -> String {
    let h = kernel.replace(
        "  store i32 %v, ptr %p\n  call void @barrier()\n  %u = xor i32 %t, 1\n  %q = getelementptr inbounds i32, ptr %out, i32 %u\n  %y = load i32, ptr %q\n",
        "  %u = xor i32 %t, 1\n  %q = getelementptr inbounds i32, ptr %out, i32 %u\n  %y = load i32, ptr %q\n  store i32 %v, ptr %p\n  call void @barrier()\n",
    );
    assert_ne!(h, kernel, "the exchange's lines moved");
    h
}

/// `out[t] = x + 1; barrier; out[4 + t] = out[t ^ 1]`.
const EXCHANGE: &str = "define void @k(ptr %in, ptr %out, i32 %x) {
entry:
  %t = call i32 @tid()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  %v = add i32 %x, 1
  store i32 %v, ptr %p
  call void @barrier()
  %u = xor i32 %t, 1
  %q = getelementptr inbounds i32, ptr %out, i32 %u
  %y = load i32, ptr %q
  %s = add i32 %t, 4
  %r = getelementptr inbounds i32, ptr %out, i32 %s
  store i32 %y, ptr %r
  ret void
}";

#[test]
fn exchange_across_a_barrier_is_checked() {
    assert_eq!(check(EXCHANGE, EXCHANGE, vec![1, 2]), Got::Refines);
    assert_eq!(agree(EXCHANGE, EXCHANGE), MemAgree::Verdict(true));
    // Reading the own slot instead of the neighbour's.
    let own = EXCHANGE.replace(
        "%q = getelementptr inbounds i32, ptr %out, i32 %u",
        "%q = getelementptr inbounds i32, ptr %out, i32 %t",
    );
    assert_ne!(own, EXCHANGE);
    assert_eq!(check(EXCHANGE, &own, vec![1, 2]), Got::Cex);
    assert_eq!(agree(EXCHANGE, &own), MemAgree::Verdict(false));
}

/// The load hoisted above the barrier it depends on: in the target a
/// thread reads its neighbour's slot in the epoch the neighbour writes it
/// (a race): outside the encoding, never "refines".
#[test]
fn load_hoisted_above_its_barrier_is_not_refines() {
    let hoisted = hoist(EXCHANGE);
    match check(EXCHANGE, &hoisted, vec![1, 2]) {
        Got::Unsupported(why) => assert!(why.contains("communicate"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// A barrier some thread skips (inside a branch on `%x`) is not aligned:
/// the exchange across it is outside the encoding.
#[test]
fn divergent_barrier_is_outside() {
    let div = "define void @k(ptr %in, ptr %out, i32 %x) {
entry:
  %t = call i32 @tid()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %x, ptr %p
  %c = icmp eq i32 %x, 0
  br i1 %c, label %b, label %e
b:
  call void @barrier()
  br label %e
e:
  %u = xor i32 %t, 1
  %q = getelementptr inbounds i32, ptr %out, i32 %u
  %y = load i32, ptr %q
  %s = add i32 %t, 4
  %r = getelementptr inbounds i32, ptr %out, i32 %s
  store i32 %y, ptr %r
  ret void
}";
    match check(div, div, vec![1, 2]) {
        Got::Unsupported(why) => assert!(why.contains("communicate"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// The same pairs with AMDGPU's thread id and barrier (no unknown call,
/// so `validate` can test them on the interpreter): the exchange and its
/// own-slot mutant are decided by the encoding as above, and the hoisted
/// load, outside the encoding, is found by `validate`'s interpreter
/// testing (a launch whose target reads the neighbour's slot before the
/// neighbour stores it).
#[test]
fn hoisted_load_is_found_by_interpreter_testing() {
    use checker::validate::testing::{test_refinement, Tested};
    let amd = |s: &str| {
        format!(
            "{}\ndeclare i32 @llvm.amdgcn.workitem.id.x()\ndeclare void @llvm.amdgcn.s.barrier() convergent nounwind\n",
            s.replace("call i32 @tid()", "call i32 @llvm.amdgcn.workitem.id.x()")
                .replace("call void @barrier()", "call void @llvm.amdgcn.s.barrier()")
        )
    };
    let hoisted = hoist(EXCHANGE);
    assert_ne!(hoisted, EXCHANGE);
    let src = semantics::parse_module("src.ll", &amd(EXCHANGE)).expect("parses");
    let tgt = semantics::parse_module("tgt.ll", &amd(&hoisted)).expect("parses");
    let opts = checker::refine::Options {
        threads: vec![2],
        ..checker::refine::Options::default()
    };
    match test_refinement(&src, &tgt, "k", &opts, None) {
        Tested::Counterexample(_) => {}
        Tested::NoDifference { .. } => panic!("the hoisted load was not found"),
        Tested::NotTested(why) => panic!("not tested: {why}"),
    }
    let mut session = checker::smt::Session::new(None);
    let same = checker::refine::check_pair(&src, &src, "k", &opts, &mut session, true, None)
        .expect("check runs");
    assert_eq!(common::verdict_name(same), "refines");
}
