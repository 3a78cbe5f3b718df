//! Threads sharing bytes of an observed buffer (docs/RULES.md §9,
//! R-MEM-SMT, P-MEM-UNDEF, R-MEM): agreeing reads (a thread reads a byte
//! other threads write, after its own write, every write of the byte
//! writing one value) are expressed by the encoding; write-write
//! disagreement without a synchronizing operation ends `undef` in both
//! formalizations, a source `undef` byte matching any non-poison target
//! byte and a target `undef` byte only a source `undef` or poison one.
//! Every counterexample is replayed on the interpreter (R-CEX, checked by
//! `common::check_memory`), and on each pair the interpreter's own verdict
//! agrees with the checker's (M-AGREE, MC-07 spirit:
//! `checker::agree::agreement_memory`, 2 threads, `%x` over {0, 1, 2},
//! zero and patterned buffers).

mod common;

use checker::agree::MemAgree;
use common::Got;

const DECL: &str = "declare i32 @tid() nounwind readnone\n\
                    declare void @barrier() convergent nounwind\n";

fn check(src: &str, tgt: &str, threads: Vec<usize>) -> Got {
    common::check_memory(src, tgt, DECL, threads)
}

/// The interpreter and the checker on the pair (M-AGREE).
fn agree(src: &str, tgt: &str) -> MemAgree {
    common::agree_memory(src, tgt, DECL)
}

/// `out[i+1] = out[i] + 1` for i in 0..3, in every thread: each thread
/// reads `out[1]` and `out[2]` after writing them itself, and every thread
/// writes the same values (`out[0]` is read only).
const CHAIN: &str = "define void @k(ptr %in, ptr %out, i32 %x) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr inbounds i32, ptr %out, i64 %i
  %a = load i32, ptr %p, align 4
  %b = add i32 %a, 1
  %i1 = add i64 %i, 1
  %q = getelementptr inbounds i32, ptr %out, i64 %i1
  store i32 %b, ptr %q, align 4
  %c = icmp ult i64 %i1, 3
  br i1 %c, label %loop, label %end
end:
  ret void
}";

/// The chain with the loads forwarded from the stores (what GVN or
/// LoopLoadElimination make of it).
const FORWARDED: &str = "define void @k(ptr %in, ptr %out, i32 %x) {
entry:
  %a = load i32, ptr %out, align 4
  %b1 = add i32 %a, 1
  %q1 = getelementptr inbounds i32, ptr %out, i64 1
  store i32 %b1, ptr %q1, align 4
  %b2 = add i32 %a, 2
  %q2 = getelementptr inbounds i32, ptr %out, i64 2
  store i32 %b2, ptr %q2, align 4
  %b3 = add i32 %a, 3
  %q3 = getelementptr inbounds i32, ptr %out, i64 3
  store i32 %b3, ptr %q3, align 4
  ret void
}";

/// R-MEM-SMT agreeing reads: the chain is checked (not `unsupported`), its
/// forwarded form refines it, and a target that changes one value is a
/// counterexample the interpreter replays (the target's `out[3]` is
/// `out[0] + 4`, no source execution ends with that).
#[test]
fn r_mem_smt_agreeing_reads_are_checked() {
    assert_eq!(check(CHAIN, CHAIN, vec![1, 2]), Got::Refines);
    assert_eq!(check(CHAIN, FORWARDED, vec![1, 2]), Got::Refines);
    let wrong = FORWARDED.replace("%b3 = add i32 %a, 3", "%b3 = add i32 %a, 4");
    assert_ne!(wrong, FORWARDED);
    assert_eq!(check(CHAIN, &wrong, vec![1, 2]), Got::Cex);
    assert_eq!(agree(CHAIN, FORWARDED), MemAgree::Verdict(true));
    assert_eq!(agree(CHAIN, &wrong), MemAgree::Verdict(false));
}

/// R-MEM-SMT: a read of a byte another thread writes, before the reader's
/// own write of it, is still a conflict (the value depends on the
/// schedule): `unsupported`. So is a read after the own write when the
/// threads write different values (`%x` differs per thread), and one
/// when only the last writes agree: each thread stores its id, a barrier,
/// reads the byte (the interpreter's thread 0 then reads thread 1's id,
/// not its own view) and stores 5 (the encoding's `ch` flag).
#[test]
fn r_mem_smt_read_before_own_write_stays_unsupported() {
    let first = "define void @k(ptr %in, ptr %out, i32 %x) {
entry:
  %q = getelementptr inbounds i32, ptr %out, i64 1
  %a = load i32, ptr %q, align 4
  %r = getelementptr inbounds i32, ptr %out, i64 2
  store i32 %a, ptr %r, align 4
  store i32 5, ptr %q, align 4
  ret void
}";
    let changed = "define void @k(ptr %in, ptr %out, i32 %x) {
entry:
  %t = call i32 @tid()
  store i32 %t, ptr %out, align 4
  call void @barrier()
  %a = load i32, ptr %out, align 4
  %t2 = add i32 %t, 2
  %o = getelementptr inbounds i32, ptr %out, i32 %t2
  store i32 %a, ptr %o, align 4
  store i32 5, ptr %out, align 4
  ret void
}";
    for src in [
        first.to_string(),
        CHAIN.replace("%b = add i32 %a, 1", "%b = add i32 %a, %x"),
        changed.to_string(),
    ] {
        match check(&src, &src, vec![1, 2]) {
            Got::Unsupported(why) => assert!(why.contains("communicate through memory"), "{why}"),
            other => panic!("{other:?}\n{src}"),
        }
        assert_eq!(agree(&src, &src), MemAgree::Outside);
    }
}

/// Every thread stores `v` to `out[0]` (no barrier).
fn store_all(v: &str) -> String {
    format!(
        "define void @k(ptr %in, ptr %out, i32 %x) {{
entry:
  %t = call i32 @tid()
  %v = {v}
  store i32 %v, ptr %out, align 4
  ret void
}}"
    )
}

/// P-MEM-UNDEF: threads storing their ids (different at 2 threads) leave
/// byte 0 of `out[0]` undef; a target storing 0 refines it (the source
/// byte is any value); the reverse is a counterexample (the target's byte
/// is undef, the source's 0), which the interpreter replays: its target
/// execution ends with `undef` too and no source execution's defined byte
/// matches it. Source and target both storing per-thread different values
/// refine each other (undef against undef).
#[test]
fn p_mem_undef_write_write_disagreement() {
    let tid = store_all("add i32 %t, 0");
    let zero = store_all("add i32 0, 0");
    assert_eq!(check(&tid, &zero, vec![1, 2]), Got::Refines);
    assert_eq!(agree(&tid, &zero), MemAgree::Verdict(true));
    assert_eq!(check(&zero, &tid, vec![2]), Got::Cex);
    assert_eq!(agree(&zero, &tid), MemAgree::Verdict(false));
    assert_eq!(check(&tid, &tid, vec![1, 2]), Got::Refines);
    // 1 - tid: 1 and 0, another per-thread assignment; undef at 2 threads.
    let other = store_all("sub i32 1, %t");
    assert_eq!(check(&tid, &other, vec![2]), Got::Refines);
    assert_eq!(agree(&tid, &other), MemAgree::Verdict(true));
    // At one thread the values are defined (0 against 1): a counterexample.
    assert_eq!(check(&tid, &other, vec![1]), Got::Cex);
}

/// P-MEM-UNDEF needs unordered writes: with a barrier in the kernel the
/// encoding does not express disagreeing writers (P-MEM-SYNC may order
/// them, and the later one is then the final value): `unsupported`.
#[test]
fn p_mem_undef_with_a_barrier_stays_unsupported() {
    let tid =
        store_all("add i32 %t, 0").replace("  ret void", "  call void @barrier()\n  ret void");
    match check(&tid, &tid, vec![1, 2]) {
        Got::Unsupported(why) => assert!(why.contains("communicate through memory"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// MC-07 (M-AGREE) on a small family that makes threads share bytes of
/// `%out` (what `testgen::int_memory`'s kernels, which keep threads on
/// their own slots, rarely do): every thread stores one of several
/// values (uniform, the thread id, the per-thread `%x`, mixes) to
/// `out[0]` (write-write agreement or disagreement, P-MEM-UNDEF), and in
/// a second shape then reads `out[0]` back and stores it to its own slot
/// (an agreeing read when the values agree, else a conflict: R-MEM-SMT).
/// On every pair the checker and the interpreter agree (counterexamples
/// replayed with the solver's buffers, refinements tested on two buffer
/// patterns), and each answer occurs.
#[test]
fn mc07_shared_bytes_checker_agrees_with_interpreter() {
    let values = [
        "add i32 0, 0",
        "add i32 %t, 0",
        "add i32 %x, 0",
        "sub i32 1, %t",
        "add i32 %x, %t",
        "and i32 %x, 1",
    ];
    let back = |v: &str| {
        store_all(v).replace(
            "  ret void",
            "  %r = load i32, ptr %out, align 4\n  %s = add i32 %r, 1\n  \
             %t1 = add i32 %t, 1\n  %o = getelementptr inbounds i32, ptr %out, i32 %t1\n  \
             store i32 %s, ptr %o, align 4\n  ret void",
        )
    };
    let mut pairs = Vec::new();
    for a in values {
        for b in values {
            pairs.push((store_all(a), store_all(b)));
        }
        pairs.push((back(a), back(a)));
        pairs.push((back(a), back("add i32 0, 0")));
    }
    let (mut yes, mut no, mut outside) = (0, 0, 0);
    for (s, t) in &pairs {
        match agree(s, t) {
            MemAgree::Verdict(true) => yes += 1,
            MemAgree::Verdict(false) => no += 1,
            MemAgree::Outside => outside += 1,
            MemAgree::SourceAlwaysUb => panic!("no source here is always UB:\n{s}"),
        }
    }
    eprintln!(
        "MC-07 shared bytes: {} pairs, {yes} refine, {no} counterexamples, {outside} outside \
         R-MEM-SMT",
        pairs.len()
    );
    assert!(yes > 0 && no > 0 && outside > 0, "{yes} {no} {outside}");
}
