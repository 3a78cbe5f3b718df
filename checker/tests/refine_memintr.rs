//! `refine` with the memory intrinsics (issue 12, R-MEM-SMT and
//! P-MEM-ACCESS in docs/RULES.md §9): `llvm.memcpy`, `llvm.memmove`,
//! `llvm.memset` with constant and symbolic lengths, against loops of
//! loads and stores, moved across a barrier, with out-of-bounds and
//! overlapping ranges (UB), and the pointer provenance of copied bytes.
//! Every counterexample is replayed on the interpreter (R-CEX), with the
//! solver's buffer contents.

mod common;

use common::Got;

const DECL: &str = "declare void @barrier() convergent nounwind\n\
                    declare i32 @tid() nounwind readnone\n\
                    declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n\
                    declare void @llvm.memcpy.inline.p0.p0.i64(ptr, ptr, i64, i1)\n\
                    declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n\
                    declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n\
                    declare void @llvm.memset.inline.p0.i32(ptr, i8, i32, i1)\n";

/// The SMT checker at `threads` (tests/common's `check_memory`).
fn check(src: &str, tgt: &str, threads: Vec<usize>) -> Got {
    common::check_memory(src, tgt, DECL, threads)
}

fn two(src: &str, tgt: &str) -> Got {
    check(src, tgt, vec![1, 2])
}

/// Each thread copies its 4-byte slot of `%in` to its slot of `%out`.
const MEMCPY_SLOT: &str = "define void @k(ptr %out, ptr %in) {
entry:
  %t = call i32 @tid()
  %d = getelementptr inbounds i32, ptr %out, i32 %t
  %s = getelementptr inbounds i32, ptr %in, i32 %t
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 4, i1 false)
  ret void
}";

/// The same copy as a loop of byte loads and stores.
const LOOP_SLOT: &str = "define void @k(ptr %out, ptr %in) {
entry:
  %t = call i32 @tid()
  %d = getelementptr inbounds i32, ptr %out, i32 %t
  %s = getelementptr inbounds i32, ptr %in, i32 %t
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %ps = getelementptr inbounds i8, ptr %s, i64 %i
  %b = load i8, ptr %ps
  %pd = getelementptr inbounds i8, ptr %d, i64 %i
  store i8 %b, ptr %pd
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, 4
  br i1 %more, label %loop, label %end
end:
  ret void
}";

/// P-MEM-ACCESS / R-MEM-SMT: `memcpy` and the equivalent byte loop refine
/// each other, and the `.inline` form is the same copy.
#[test]
fn r_mem_smt_memcpy_is_a_loop_of_loads_and_stores() {
    assert_eq!(two(MEMCPY_SLOT, LOOP_SLOT), Got::Refines);
    assert_eq!(two(LOOP_SLOT, MEMCPY_SLOT), Got::Refines);
    let inline = MEMCPY_SLOT.replace("llvm.memcpy.p0", "llvm.memcpy.inline.p0");
    assert_eq!(two(MEMCPY_SLOT, &inline), Got::Refines);
    // One byte fewer in the loop: a counterexample.
    let short = LOOP_SLOT.replace("icmp ult i64 %i1, 4", "icmp ult i64 %i1, 3");
    assert_eq!(two(MEMCPY_SLOT, &short), Got::Cex);
}

/// A copy of a symbolic length `%n & 3` against the loop running `%n & 3`
/// times (at least once: the loop is a do-while guarded by `%n != 0`).
#[test]
fn r_mem_smt_memcpy_symbolic_length_is_a_guarded_loop() {
    let src = "define void @k(ptr %out, ptr %in, i64 %m) {
entry:
  %t = call i32 @tid()
  %n = and i64 %m, 3
  %d = getelementptr inbounds i32, ptr %out, i32 %t
  %s = getelementptr inbounds i32, ptr %in, i32 %t
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  ret void
}";
    let tgt = "define void @k(ptr %out, ptr %in, i64 %m) {
entry:
  %t = call i32 @tid()
  %n = and i64 %m, 3
  %d = getelementptr inbounds i32, ptr %out, i32 %t
  %s = getelementptr inbounds i32, ptr %in, i32 %t
  %z = icmp eq i64 %n, 0
  br i1 %z, label %end, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %ps = getelementptr inbounds i8, ptr %s, i64 %i
  %b = load i8, ptr %ps
  %pd = getelementptr inbounds i8, ptr %d, i64 %i
  store i8 %b, ptr %pd
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %end
end:
  ret void
}";
    assert_eq!(two(src, tgt), Got::Refines);
    assert_eq!(two(tgt, src), Got::Refines);
    // The thread reads its slot back after the copy (its view, R-MEM-SMT)
    // and stores the word to `%res`: bytes past the length keep their
    // old value.
    let back = |p: &str| {
        p.replace("ptr %in, i64 %m)", "ptr %in, i64 %m, ptr %res)")
            .replace(
                "  ret void
}",
                "  %r = getelementptr inbounds i32, ptr %res, i32 %t
                   %w = load i32, ptr %d
  store i32 %w, ptr %r
  ret void
}",
            )
    };
    assert_eq!(two(&back(src), &back(tgt)), Got::Refines);
    // The loop without its guard copies one byte when %n is 0.
    let unguarded = tgt.replace("br i1 %z, label %end, label %loop", "br label %loop");
    assert_eq!(two(src, &unguarded), Got::Cex);
}

/// `memset` of each thread's slot.
const MEMSET_SLOT: &str = "define void @k(ptr %out, i8 %v) {
entry:
  %t = call i32 @tid()
  %d = getelementptr inbounds i32, ptr %out, i32 %t
  call void @llvm.memset.p0.i64(ptr %d, i8 %v, i64 4, i1 false)
  ret void
}";

/// P-MEM-ACCESS: a `memset` whose length changes is a counterexample,
/// replayed on the interpreter; the `.inline` form with an `i32` length
/// and a volatile flag is the same `memset`.
#[test]
fn r_mem_smt_memset_length_changed_is_a_replayed_counterexample() {
    let shorter = MEMSET_SLOT.replace("i64 4, i1 false", "i64 3, i1 false");
    assert_eq!(two(MEMSET_SLOT, &shorter), Got::Cex);
    let longer = MEMSET_SLOT.replace("i64 4, i1 false", "i64 5, i1 false");
    assert_eq!(check(MEMSET_SLOT, &longer, vec![1]), Got::Cex);
    let inline = MEMSET_SLOT.replace(
        "@llvm.memset.p0.i64(ptr %d, i8 %v, i64 4, i1 false)",
        "@llvm.memset.inline.p0.i32(ptr %d, i8 %v, i32 4, i1 true)",
    );
    assert_eq!(two(MEMSET_SLOT, &inline), Got::Refines);
    // memset is four byte stores of %v: an i32 store of the splat.
    let store = "define void @k(ptr %out, i8 %v) {
entry:
  %t = call i32 @tid()
  %d = getelementptr inbounds i32, ptr %out, i32 %t
  %w = zext i8 %v to i32
  %s = mul i32 %w, 16843009
  store i32 %s, ptr %d
  ret void
}";
    assert_eq!(two(MEMSET_SLOT, store), Got::Refines);
    assert_eq!(two(store, MEMSET_SLOT), Got::Refines);
}

/// The copy, then a barrier.
const COPY_THEN_BARRIER: &str = "define void @k(ptr %out, ptr %in, i32 %v) {
entry:
  %t = call i32 @tid()
  %d = getelementptr inbounds i32, ptr %out, i32 %t
  %s = getelementptr inbounds i32, ptr %in, i32 %t
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 4, i1 false)
  call void @barrier()
  ret void
}";

/// C-CONV with memory: the copy sunk below the barrier refines (no thread
/// reads it); sunk into a divergent branch (only where `%v` is nonzero) it
/// is a counterexample, replayed on the interpreter.
#[test]
fn r_mem_smt_memcpy_sunk_below_barrier_into_divergent_branch() {
    let sunk = "define void @k(ptr %out, ptr %in, i32 %v) {
entry:
  %t = call i32 @tid()
  call void @barrier()
  %d = getelementptr inbounds i32, ptr %out, i32 %t
  %s = getelementptr inbounds i32, ptr %in, i32 %t
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 4, i1 false)
  ret void
}";
    assert_eq!(two(COPY_THEN_BARRIER, sunk), Got::Refines);
    let divergent = "define void @k(ptr %out, ptr %in, i32 %v) {
entry:
  %t = call i32 @tid()
  call void @barrier()
  %c = icmp ne i32 %v, 0
  br i1 %c, label %st, label %end
st:
  %d = getelementptr inbounds i32, ptr %out, i32 %t
  %s = getelementptr inbounds i32, ptr %in, i32 %t
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 4, i1 false)
  br label %end
end:
  ret void
}";
    assert_eq!(two(COPY_THEN_BARRIER, divergent), Got::Cex);
}

/// P-MEM-ACCESS: a copy of `%n` bytes from `%in` (64 bytes) to `%out`
/// (64 bytes) is UB when `%n` exceeds 64, so a target doing anything else
/// there refines; a target that differs at `%n = 64` (in bounds) does not.
#[test]
fn r_mem_smt_symbolic_length_out_of_bounds_is_source_ub() {
    let src = "define void @k(ptr %out, ptr %in, i64 %n) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %in, i64 %n, i1 false)
  ret void
}";
    let tgt = |bound: u32| {
        format!(
            "define void @k(ptr %out, ptr %in, i64 %n) {{
entry:
  %big = icmp ugt i64 %n, {bound}
  br i1 %big, label %junk, label %copy
junk:
  store i32 7, ptr %out
  ret void
copy:
  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %in, i64 %n, i1 false)
  ret void
}}"
        )
    };
    assert_eq!(check(src, &tgt(64), vec![1]), Got::Refines);
    assert_eq!(check(src, &tgt(63), vec![1]), Got::Cex);
    // A length of 0 does nothing, even through null.
    let null = "define void @k(ptr %out, i32 %v) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr null, ptr null, i64 0, i1 false)
  store i32 %v, ptr %out
  ret void
}";
    let plain = "define void @k(ptr %out, i32 %v) {
entry:
  store i32 %v, ptr %out
  ret void
}";
    assert_eq!(check(null, plain, vec![1]), Got::Refines);
    // A nonzero one through null is UB: the source is always UB.
    let bad = null.replace("i64 0, i1", "i64 1, i1");
    assert_eq!(check(&bad, plain, vec![1]), Got::Vacuous);
}

/// Each thread's 8-byte slot of `%out` (bytes `[8t, 8t + 8)`): copy bytes
/// `[8t, 8t + n)` to `[8t + 1, 8t + 1 + n)`.
fn shift(intrinsic: &str, n: &str) -> String {
    format!(
        "define void @k(ptr %out, i64 %m) {{
entry:
  %t = call i32 @tid()
  %n = and i64 %m, 7
  %s = getelementptr inbounds i64, ptr %out, i32 %t
  %d = getelementptr inbounds i8, ptr %s, i64 1
  call void @{intrinsic}(ptr %d, ptr %s, i64 {n}, i1 false)
  ret void
}}"
    )
}

/// P-MEM-ACCESS: `memmove` of overlapping ranges copies the old bytes;
/// `memcpy` of overlapping ranges (here: lengths 2 and more) is UB. So
/// `memmove` refines `memcpy` (defined where `memcpy` is), not the other
/// way round, and `memmove` is the backward byte loop, not the forward one.
#[test]
fn r_mem_smt_memmove_overlap_is_defined_memcpy_overlap_is_ub() {
    let mv = shift("llvm.memmove.p0.p0.i64", "%n");
    let cp = shift("llvm.memcpy.p0.p0.i64", "%n");
    assert_eq!(two(&cp, &mv), Got::Refines);
    assert_eq!(two(&mv, &cp), Got::Cex);
    // memcpy of 0 or 1 byte does not overlap: memmove of the same.
    let cp1 = shift("llvm.memcpy.p0.p0.i64", "1");
    let mv1 = shift("llvm.memmove.p0.p0.i64", "1");
    assert_eq!(two(&mv1, &cp1), Got::Refines);
    // Equal ranges are no overlap (LangRef: "must either be equal or
    // non-overlapping"): memcpy of a slot onto itself does nothing.
    let onto_itself =
        shift("llvm.memcpy.p0.p0.i64", "%n").replace("ptr %d, ptr %s", "ptr %s, ptr %s");
    let nothing = "define void @k(ptr %out, i64 %m) {
entry:
  ret void
}";
    assert_eq!(two(&onto_itself, nothing), Got::Refines);
    assert_eq!(two(nothing, &onto_itself), Got::Refines);
    // A constant overlapping memcpy: the source is always UB.
    let cp3 = shift("llvm.memcpy.p0.p0.i64", "3");
    assert_eq!(two(&cp3, &mv1), Got::Vacuous);
    // memmove of 3 bytes, byte by byte: backward (from the last byte)
    // refines, forward reads bytes it has already written.
    let mv3 = shift("llvm.memmove.p0.p0.i64", "3");
    let by_hand = |order: [u32; 3]| {
        let mut body = String::new();
        for k in order {
            body.push_str(&format!(
                "  %ps{k} = getelementptr inbounds i8, ptr %s, i64 {k}\n  \
                 %b{k} = load i8, ptr %ps{k}\n  \
                 %pd{k} = getelementptr inbounds i8, ptr %s, i64 {}\n  \
                 store i8 %b{k}, ptr %pd{k}\n",
                k + 1
            ));
        }
        format!(
            "define void @k(ptr %out, i64 %m) {{
entry:
  %t = call i32 @tid()
  %s = getelementptr inbounds i64, ptr %out, i32 %t
{body}  ret void
}}"
        )
    };
    assert_eq!(two(&mv3, &by_hand([2, 1, 0])), Got::Refines);
    assert_eq!(two(&mv3, &by_hand([0, 1, 2])), Got::Cex);
}

/// P-MEM-PTR: a pointer copied by `memcpy` keeps its provenance (a store
/// through the copy writes the object it points to); poison bytes are
/// copied as poison (a load of them is poison, which any target value
/// refines).
#[test]
fn r_mem_smt_memcpy_keeps_provenance_and_poison() {
    let src = "define void @k(ptr %out, i32 %v) {
entry:
  %a = alloca ptr
  %b = alloca ptr
  store ptr %out, ptr %a
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %a, i64 8, i1 false)
  %p = load ptr, ptr %b
  store i32 %v, ptr %p
  ret void
}";
    let tgt = "define void @k(ptr %out, i32 %v) {
entry:
  store i32 %v, ptr %out
  ret void
}";
    assert_eq!(check(src, tgt, vec![1]), Got::Refines);
    assert_eq!(check(tgt, src, vec![1]), Got::Refines);
    // An alloca's poison copied to %out: the source's final %out bytes are
    // poison, any target value refines them; the other way round not.
    let poison = "define void @k(ptr %out, i32 %v) {
entry:
  %a = alloca i32
  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %a, i64 4, i1 false)
  ret void
}";
    assert_eq!(check(poison, tgt, vec![1]), Got::Refines);
    assert_eq!(check(tgt, poison, vec![1]), Got::Cex);
}

/// P-MEM-ACCESS: a memory intrinsic called `convergent` (LLVM's
/// Attributor test `convergent.ll` declares `llvm.memcpy` so) is still
/// the byte loop, no instance: it refines the plain one and back.
#[test]
fn r_mem_smt_convergent_call_is_still_the_byte_loop() {
    let conv = format!(
        "{}\nattributes #0 = {{ convergent }}",
        MEMCPY_SLOT.replace("i64 4, i1 false)", "i64 4, i1 false) #0")
    );
    assert_eq!(two(MEMCPY_SLOT, &conv), Got::Refines);
    assert_eq!(two(&conv, MEMCPY_SLOT), Got::Refines);
    let sunk = COPY_THEN_BARRIER.replace("i64 4, i1 false)", "i64 4, i1 false) #0");
    let sunk = format!("{sunk}\nattributes #0 = {{ convergent }}");
    assert_eq!(two(COPY_THEN_BARRIER, &sunk), Got::Refines);
}

/// R-MEM-SMT: the element-wise atomic copy is not expressed: unsupported,
/// never guessed.
#[test]
fn r_mem_smt_element_atomic_copy_is_unsupported() {
    let src = "define void @k(ptr %out, ptr %in) {
entry:
  call void @llvm.memcpy.element.unordered.atomic.p0.p0.i64(ptr align 4 %out, ptr align 4 %in, i64 4, i32 4)
  ret void
}
declare void @llvm.memcpy.element.unordered.atomic.p0.p0.i64(ptr, ptr, i64, i32)";
    match two(src, src) {
        Got::Unsupported(m) => assert!(m.contains("element-wise"), "{m}"),
        other => panic!("{other:?}"),
    }
}
