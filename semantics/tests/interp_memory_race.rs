//! Data races as undefined behaviour (docs/RULES.md P-MEM-RACE, with
//! happens-before from P-MEM-SYNC: program order and fired barriers), under
//! `Options::races`: both accesses are named; barriers order, ballots do
//! not; atomics do not race with atomics; race-free programs keep their
//! behaviours; memoization stays exact with the clocks in the state.

use std::collections::BTreeSet;

use semantics::machine::launch::Exploration;
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, Options, UbKind};
use semantics::parse_module;

fn run(text: &str, threads: u32, races: bool) -> Exploration {
    let m = parse_module("race.ll", text).unwrap_or_else(|e| panic!("{e}"));
    explore(
        &m,
        &Options {
            threads,
            races,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn races(ex: &Exploration) -> Vec<String> {
    ex.behaviours
        .iter()
        .flat_map(|b| b.execution.threads.iter())
        .filter_map(|t| match &t.end {
            Some(ThreadEnd::Ub {
                why: why @ UbKind::DataRace { .. },
                ..
            }) => Some(why.to_string()),
            _ => None,
        })
        .collect()
}

const HEAD: &str = "@g = global i32 0\n@lds = addrspace(3) global [4 x i32] poison\ndeclare i32 @llvm.amdgcn.workitem.id.x()\ndeclare void @llvm.amdgcn.s.barrier() convergent\ndeclare i64 @llvm.amdgcn.ballot.i64(i1) convergent\n";

fn kernel(body: &str) -> String {
    format!("{HEAD}define i32 @k() {{\nentry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %n = xor i32 %t, 1\n  %mine = getelementptr [4 x i32], ptr addrspace(3) @lds, i32 0, i32 %t\n  %other = getelementptr [4 x i32], ptr addrspace(3) @lds, i32 0, i32 %n\n{body}}}\n")
}

/// Two threads writing one global without a barrier: UB naming both
/// writes; without race detection, the schedules' value.
#[test]
fn write_write_race() {
    let text = kernel("  store i32 %t, ptr @g, align 4\n  ret i32 0\n");
    let ex = run(&text, 2, true);
    assert_eq!(ex.ub, ex.explored);
    let r = races(&ex);
    assert!(
        r.iter().all(|m| m.contains("data race on byte 0 of @g: this write and the write of thread 0 at @k:%entry#4 (line 12:3)")),
        "{r:?}"
    );
    assert_eq!(run(&text, 2, false).ub, 0);
}

/// Each thread writes its slot, a barrier, then reads its neighbour's:
/// race-free, the values exchanged. Without the barrier, or with a ballot
/// (which does not order memory) in its place: a read-write race.
#[test]
fn barriers_order_and_ballots_do_not() {
    let body = |sync: &str| {
        format!("  store i32 %t, ptr addrspace(3) %mine, align 4\n{sync}  %v = load i32, ptr addrspace(3) %other, align 4\n  ret i32 %v\n")
    };
    let ok = run(
        &kernel(&body("  call void @llvm.amdgcn.s.barrier()\n")),
        2,
        true,
    );
    assert_eq!(ok.ub, 0);
    let got: BTreeSet<Vec<String>> = ok
        .behaviours
        .iter()
        .map(|b| {
            b.execution
                .threads
                .iter()
                .map(|t| format!("{:?}", t.end))
                .collect()
        })
        .collect();
    assert_eq!(got.len(), 1);
    assert!(format!("{got:?}").contains("Returned(Int { bits: 32, v: 1 })"));
    for sync in ["", "  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true)\n"] {
        let ex = run(&kernel(&body(sync)), 2, true);
        assert_eq!(ex.ub, ex.explored, "{sync:?}");
        assert!(races(&ex).iter().all(|m| m.contains("of @lds")));
    }
}

/// Atomic read-modify-writes of one location do not race with each other;
/// an atomic store and a plain load do.
#[test]
fn atomics() {
    let ex = run(
        &kernel("  %o = atomicrmw add ptr @g, i32 1 seq_cst, align 4\n  ret i32 0\n"),
        3,
        true,
    );
    assert_eq!(ex.ub, 0);
    let ex = run(
        &kernel("  store atomic i32 %t, ptr @g seq_cst, align 4\n  %v = load i32, ptr @g, align 4\n  ret i32 %v\n"),
        2,
        true,
    );
    assert_eq!(ex.ub, ex.explored);
}

/// Memoization with race detection (clocks and per-byte accesses are in
/// the state): the reduced search finds the plain search's behaviours on
/// the generated float/memory kernels, some of which race.
#[test]
fn reduced_equals_plain_with_race_detection() {
    let progs = testgen::sample(&testgen::floats::arb_memory_kernel(), 100, 53);
    let mut racy = 0;
    for text in &progs {
        let m = parse_module("gen.ll", text).expect("generated module parses");
        let o = |reduce| Options {
            threads: 2,
            races: true,
            reduce,
            max_steps: 40,
            int_domain: vec![0, 1],
            ..Options::default()
        };
        let a = explore(&m, &o(false)).expect("explores");
        let b = explore(&m, &o(true)).expect("explores");
        let keys = |ex: &Exploration| -> BTreeSet<String> {
            ex.behaviours
                .iter()
                .map(|b| b.execution.behaviour_key())
                .collect()
        };
        assert_eq!(keys(&a), keys(&b), "on\n{text}");
        racy += usize::from(!races(&a).is_empty());
    }
    assert!(racy >= 10 && racy < progs.len(), "{racy} racy programs");
}

/// P-MEM-RACE with P-MEM-ACCESS: the element-wise `unordered` atomic
/// `memset` is atomic, so two threads setting one global race only
/// through the plain `memset`.
#[test]
fn element_wise_atomic_memset_does_not_race() {
    let decls = "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\ndeclare void @llvm.memset.element.unordered.atomic.p0.i64(ptr, i8, i64, i32)\n";
    let plain = format!(
        "{decls}{}",
        kernel("  call void @llvm.memset.p0.i64(ptr @g, i8 1, i64 4, i1 false)\n  ret i32 0\n")
    );
    let atomic = format!(
        "{decls}{}",
        kernel("  call void @llvm.memset.element.unordered.atomic.p0.i64(ptr @g, i8 1, i64 4, i32 4)\n  ret i32 0\n")
    );
    assert!(!races(&run(&plain, 2, true)).is_empty());
    let ex = run(&atomic, 2, true);
    assert!(races(&ex).is_empty(), "{:?}", races(&ex));
    assert_eq!(ex.ub, 0);
}
