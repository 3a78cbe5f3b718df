//! P-MEM-UNDEF (docs/RULES.md §9): a byte of an observed object whose
//! last writes by two threads, neither happening before the other
//! (P-MEM-SYNC), differ ends `undef` in the final contents (R-MEM), as
//! LLVM's memory model makes a read that may see several writes return
//! `undef`; `run` prints it. Writers that agree keep their value (R-MEM-SMT's
//! relaxation); writes ordered by a barrier give the later one; atomic
//! writes are ordered (P-MEM-RACE's sequentially consistent atomics);
//! under `--races` such executions stay UB (P-MEM-RACE).

use semantics::machine::launch::Exploration;
use semantics::machine::memory::Byte;
use semantics::machine::{explore, Options};
use semantics::parse_module;

fn run(text: &str, threads: u32, races: bool) -> (Exploration, String) {
    let m = parse_module("undef.ll", text).unwrap_or_else(|e| panic!("{e}"));
    let ex = explore(
        &m,
        &Options {
            threads,
            races,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let shown = semantics::machine::render::text(&m, &ex);
    (ex, shown)
}

const HEAD: &str = "@g = global i32 7\n\
declare i32 @llvm.amdgcn.workitem.id.x()\n\
declare void @llvm.amdgcn.s.barrier() convergent\n";

fn kernel(body: &str) -> String {
    format!(
        "{HEAD}define void @k() {{\nentry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n{body}  ret void\n}}\n"
    )
}

/// The final contents of `@g` in every behaviour.
fn finals(ex: &Exploration) -> Vec<Vec<Byte>> {
    let mut out: Vec<Vec<Byte>> = ex
        .behaviours
        .iter()
        .map(|b| {
            b.execution
                .memory
                .iter()
                .find(|(n, _)| n == "@g")
                .map(|(_, bs)| bs.clone())
                .expect("@g is observed")
        })
        .collect();
    out.sort_by_key(|b| format!("{b:?}"));
    out.dedup();
    out
}

/// P-MEM-UNDEF: two threads store their id to `@g` with no barrier: byte 0
/// (0 vs 1) ends undef in every schedule, the other bytes (0 in both)
/// keep their common value; `run` prints the word as `undef`. One thread
/// alone: its value.
#[test]
fn p_mem_undef_disagreeing_writers_end_undef() {
    let text = kernel("  store i32 %t, ptr @g, align 4\n");
    let (ex, shown) = run(&text, 2, false);
    assert_eq!(ex.ub, 0);
    assert_eq!(
        finals(&ex),
        vec![vec![
            Byte::Undef,
            Byte::Data(0),
            Byte::Data(0),
            Byte::Data(0)
        ]]
    );
    assert!(shown.contains("memory @g = [undef]"), "{shown}");
    let (one, shown1) = run(&text, 1, false);
    assert_eq!(finals(&one), vec![vec![Byte::Data(0); 4]]);
    assert!(shown1.contains("memory @g = [0]"), "{shown1}");
}

/// R-MEM-SMT's relaxation, kept: writers whose last values agree give that
/// value (here after each wrote its id first: only the last writes count).
#[test]
fn p_mem_undef_agreeing_last_writes_keep_their_value() {
    let text = kernel("  store i32 %t, ptr @g, align 4\n  store i32 5, ptr @g, align 4\n");
    let (ex, shown) = run(&text, 2, false);
    assert_eq!(
        finals(&ex),
        vec![vec![
            Byte::Data(5),
            Byte::Data(0),
            Byte::Data(0),
            Byte::Data(0)
        ]]
    );
    assert!(shown.contains("memory @g = [5]"), "{shown}");
}

/// P-MEM-SYNC orders writes: thread 0 stores before a barrier, thread 1
/// after it, so thread 1's store is the final value (not undef). With the
/// barrier after both stores they are unordered again: undef.
#[test]
fn p_mem_undef_barrier_ordered_writes_give_the_later_one() {
    let ordered = kernel(
        "  %z = icmp eq i32 %t, 0\n  br i1 %z, label %a, label %b\n\
         a:\n  store i32 1, ptr @g, align 4\n  br label %b\n\
         b:\n  call void @llvm.amdgcn.s.barrier()\n  %o = icmp eq i32 %t, 1\n  br i1 %o, label %c, label %d\n\
         c:\n  store i32 2, ptr @g, align 4\n  br label %d\n\
         d:\n",
    );
    let (ex, _) = run(&ordered, 2, false);
    assert_eq!(ex.ub, 0);
    assert_eq!(
        finals(&ex),
        vec![vec![
            Byte::Data(2),
            Byte::Data(0),
            Byte::Data(0),
            Byte::Data(0)
        ]]
    );
    // Race-free: the same under race detection.
    let (rx, _) = run(&ordered, 2, true);
    assert_eq!(rx.ub, 0);
    let unordered = kernel(
        "  %v = add i32 %t, 1\n  store i32 %v, ptr @g, align 4\n  call void @llvm.amdgcn.s.barrier()\n",
    );
    let (ux, _) = run(&unordered, 2, false);
    assert_eq!(
        finals(&ux),
        vec![vec![
            Byte::Undef,
            Byte::Data(0),
            Byte::Data(0),
            Byte::Data(0)
        ]]
    );
}

/// Atomic writes are ordered (P-MEM-RACE: sequentially consistent): an
/// `atomicrmw add` by every thread ends with the sum, never undef.
#[test]
fn p_mem_undef_atomics_are_ordered() {
    let text = kernel("  %old = atomicrmw add ptr @g, i32 %t seq_cst, align 4\n");
    let (ex, _) = run(&text, 3, false);
    assert_eq!(
        finals(&ex),
        vec![vec![
            Byte::Data(10),
            Byte::Data(0),
            Byte::Data(0),
            Byte::Data(0)
        ]]
    );
}

/// Under `--races` the disagreeing writers race: UB, as before (P-MEM-RACE).
#[test]
fn p_mem_undef_is_ub_under_races() {
    let text = kernel("  store i32 %t, ptr @g, align 4\n");
    let (ex, _) = run(&text, 2, true);
    assert_eq!(ex.ub, ex.explored);
}
