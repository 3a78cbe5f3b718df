//! `refine` with memory (issue 12 item 3, R-MEM-SMT in docs/RULES.md §9):
//! input buffers, globals, `alloca`, `getelementptr`, `load`/`store`,
//! final memory observed (R-MEM), UB of out-of-bounds and null accesses
//! (P-MEM-ACCESS), and the thread-disjointness condition under which the
//! encoding's per-thread views are the memory model's values (programs
//! whose threads communicate through memory answer `unsupported`). Every
//! counterexample is replayed on the interpreter (R-CEX).

mod common;

use checker::refine::{check_pair, Options, PairResult, Verdict};
use checker::smt::Session;
use common::Got;

const DECL: &str = "declare void @barrier() convergent nounwind\n\
                    declare i32 @tid() nounwind readnone\n";

fn parse(text: &str) -> semantics::ir::Module {
    semantics::parse_module("t.ll", &format!("{text}\n{DECL}")).expect("test module parses")
}

/// The SMT checker at `threads` (tests/common's `check_memory`).
fn check(src: &str, tgt: &str, threads: Vec<usize>) -> Got {
    common::check_memory(src, tgt, DECL, threads)
}

fn two(src: &str, tgt: &str) -> Got {
    check(src, tgt, vec![1, 2])
}

/// `out[tid] = v` then a barrier.
const STORE_THEN_BARRIER: &str = "define void @k(ptr %out, i32 %v) {
entry:
  %t = call i32 @tid()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p
  call void @barrier()
  ret void
}";

/// The store sunk below the barrier (legal: no thread reads it).
const BARRIER_THEN_STORE: &str = "define void @k(ptr %out, i32 %v) {
entry:
  %t = call i32 @tid()
  call void @barrier()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p
  ret void
}";

/// The store sunk below the barrier into a divergent branch (only where
/// `%v` is nonzero): threads with `%v == 0` never store.
const BARRIER_THEN_DIVERGENT_STORE: &str = "define void @k(ptr %out, i32 %v) {
entry:
  %t = call i32 @tid()
  call void @barrier()
  %c = icmp ne i32 %v, 0
  br i1 %c, label %st, label %end
st:
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p
  br label %end
end:
  ret void
}";

#[test]
fn r_mem_store_sunk_below_barrier_refines() {
    assert_eq!(two(STORE_THEN_BARRIER, BARRIER_THEN_STORE), Got::Refines);
}

#[test]
fn r_mem_store_sunk_into_divergent_branch_is_a_replayed_counterexample() {
    assert_eq!(
        two(STORE_THEN_BARRIER, BARRIER_THEN_DIVERGENT_STORE),
        Got::Cex
    );
}

#[test]
fn r_mem_stored_value_changed_is_a_counterexample() {
    let tgt = STORE_THEN_BARRIER.replace("store i32 %v", "%w = add i32 %v, 1\n  store i32 %w");
    assert_eq!(two(STORE_THEN_BARRIER, &tgt), Got::Cex);
}

/// Loads of the input buffer: values are inputs shared by both programs.
#[test]
fn p_mem_access_load_input_buffer() {
    let src = "define void @k(ptr %in, ptr %out) {
entry:
  %t = call i32 @tid()
  %q = getelementptr inbounds i32, ptr %in, i32 %t
  %x = load i32, ptr %q
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  %y = add i32 %x, %x
  store i32 %y, ptr %p
  ret void
}";
    let same = src.replace("%y = add i32 %x, %x", "%y = shl i32 %x, 1");
    assert_eq!(two(src, &same), Got::Refines);
    let wrong = src.replace("%y = add i32 %x, %x", "%y = mul i32 %x, 3");
    assert_eq!(two(src, &wrong), Got::Cex);
}

/// -O0 style: values through an `alloca` (private memory) refine the
/// promoted program, and a wrong promotion is caught.
#[test]
fn p_mem_obj_alloca_promotion() {
    let o0 = "define void @k(ptr %out, i32 %v) {
entry:
  %a = alloca i32, align 4
  store i32 %v, ptr %a
  %t = call i32 @tid()
  %x = load i32, ptr %a
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %x, ptr %p
  ret void
}";
    let o2 = "define void @k(ptr %out, i32 %v) {
entry:
  %t = call i32 @tid()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p
  ret void
}";
    assert_eq!(two(o0, o2), Got::Refines);
    let bad = o2.replace("store i32 %v", "store i32 %t");
    assert_eq!(two(o0, &bad), Got::Cex);
}

/// P-MEM-ACCESS: an out-of-bounds store is UB, so the source allows
/// anything there; a target that stores out of bounds where the source
/// does not is a counterexample (target UB).
#[test]
fn p_mem_access_out_of_bounds_is_ub() {
    let src = "define void @k(ptr %out, i32 %i) {
entry:
  %p = getelementptr i32, ptr %out, i32 %i
  store i32 1, ptr %p
  ret void
}";
    let tgt = "define void @k(ptr %out, i32 %i) {
entry:
  %c = icmp ult i32 %i, 16
  br i1 %c, label %st, label %end
st:
  %p = getelementptr i32, ptr %out, i32 %i
  store i32 1, ptr %p
  br label %end
end:
  ret void
}";
    // The target only drops stores that were UB in the source.
    assert_eq!(check(src, tgt, vec![1]), Got::Refines);
    // The converse adds behaviours the source lacks? No: the source's UB
    // launches are the only difference, and there the target does
    // nothing, which the source's UB allows. The target storing one past
    // the end is UB the source does not have.
    let oob = src.replace("i32 %i\n  store", "i32 16\n  store");
    assert_eq!(check(tgt, &oob, vec![1]), Got::Cex);
}

/// Globals with initializers: a load of a constant global folds.
#[test]
fn p_mem_obj_global_initializer() {
    let src = "@g = internal constant [2 x i32] [i32 7, i32 9]
define void @k(ptr %out) {
entry:
  %t = call i32 @tid()
  %q = getelementptr inbounds [2 x i32], ptr @g, i32 0, i32 1
  %x = load i32, ptr %q
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %x, ptr %p
  ret void
}";
    let folded = "@g = internal constant [2 x i32] [i32 7, i32 9]
define void @k(ptr %out) {
entry:
  %t = call i32 @tid()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 9, ptr %p
  ret void
}";
    assert_eq!(two(src, folded), Got::Refines);
    let wrong = folded.replace("store i32 9", "store i32 7");
    assert_eq!(two(src, &wrong), Got::Cex);
}

/// R-MEM-SMT: threads that communicate through memory (a store, a
/// barrier, a load of another thread's byte) are outside the encoding.
#[test]
fn r_mem_smt_communication_is_unsupported() {
    let src = "define void @k(ptr %out, i32 %v) {
entry:
  %t = call i32 @tid()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p
  call void @barrier()
  %u = xor i32 %t, 1
  %q = getelementptr inbounds i32, ptr %out, i32 %u
  %x = load i32, ptr %q
  %r = getelementptr inbounds i32, ptr %out, i32 8
  store i32 %x, ptr %r
  ret void
}";
    match two(src, src) {
        Got::Unsupported(why) => assert!(why.contains("communicate through memory"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// -O0 as clang writes it for AMDGPU: the buffer pointer spilled to an
/// `alloca` of the 32-bit private address space and reloaded (P-MEM-PTR:
/// a stored pointer loads back with its provenance), the thread id read
/// through a call marked `convergent` at its call site (still the thread's
/// id, P-LAUNCH).
#[test]
fn p_mem_ptr_spilled_pointer_and_private_address_space() {
    let head =
        "target datalayout = \"e-p:64:64-p1:64:64-p3:32:32-p5:32:32-i64:64-n32:64-S32-A5-G1\"\n";
    let o0 = format!(
        "{head}define void @k(ptr addrspace(1) %out) {{
entry:
  %slot = alloca ptr addrspace(1), align 8, addrspace(5)
  %flat = addrspacecast ptr addrspace(5) %slot to ptr
  store ptr addrspace(1) %out, ptr %flat, align 8
  %t = call i32 @tid() #0
  %o = load ptr addrspace(1), ptr %flat, align 8
  %p = getelementptr inbounds i32, ptr addrspace(1) %o, i32 %t
  store i32 %t, ptr addrspace(1) %p, align 4
  ret void
}}
attributes #0 = {{ convergent }}"
    );
    let o2 = format!(
        "{head}define void @k(ptr addrspace(1) %out) {{
entry:
  %t = call i32 @tid()
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  store i32 %t, ptr addrspace(1) %p, align 4
  ret void
}}"
    );
    assert_eq!(two(&o0, &o2), Got::Refines);
    let bad = o2.replace("store i32 %t,", "%u = xor i32 %t, 1\n  store i32 %u,");
    assert_eq!(two(&o0, &bad), Got::Cex);
}

/// Every thread stores `%v` (uniform) to `out[0]`, with a barrier between
/// its store and `ret`.
const ALL_STORE_V: &str = "define amdgpu_kernel void @k(ptr %out, i32 %v) {
entry:
  store i32 %v, ptr %out
  call void @barrier()
  ret void
}";

/// R-MEM-SMT: bytes written by several threads and read by none, whose
/// writers' last values agree (the LoopUnroll AMDGPU/NVPTX kernels: every
/// thread stores the same prefix sums to the same slots), end with that
/// value in every schedule: checked, not `unsupported`. A target that
/// stores another value is a counterexample (replayed); one whose threads
/// store different values to one byte (with a barrier in the kernel, so
/// P-MEM-UNDEF does not apply), or read a byte another thread writes
/// before their own write of it, stays `unsupported`. A read of the byte
/// after the reader's own write of the value every thread writes is an
/// agreeing read (R-MEM-SMT): checked.
#[test]
fn r_mem_smt_agreeing_writers_are_checked() {
    assert_eq!(two(ALL_STORE_V, ALL_STORE_V), Got::Refines);
    let plus_one = ALL_STORE_V.replace("store i32 %v", "%w = add i32 %v, 1\n  store i32 %w");
    assert_eq!(two(ALL_STORE_V, &plus_one), Got::Cex);
    let per_thread = ALL_STORE_V.replace(
        "store i32 %v",
        "%t = call i32 @tid()\n  %w = add i32 %v, %t\n  store i32 %w",
    );
    match two(&per_thread, &per_thread) {
        Got::Unsupported(why) => assert!(why.contains("communicate through memory"), "{why}"),
        other => panic!("writers disagreeing: {other:?}"),
    }
    let reads_back = ALL_STORE_V.replace(
        "  ret void",
        "  %x = load i32, ptr %out\n  %q = getelementptr inbounds i32, ptr %out, i32 1\n  \
         store i32 %x, ptr %q\n  ret void",
    );
    assert_eq!(two(&reads_back, &reads_back), Got::Refines);
    let reads_first = ALL_STORE_V.replace(
        "  store i32 %v, ptr %out",
        "  %x = load i32, ptr %out\n  %q = getelementptr inbounds i32, ptr %out, i32 1\n  \
         store i32 %x, ptr %q\n  store i32 %v, ptr %out",
    );
    assert_ne!(reads_first, ALL_STORE_V);
    match two(&reads_first, &reads_first) {
        Got::Unsupported(why) => assert!(why.contains("communicate through memory"), "{why}"),
        other => panic!("a byte read before the reader's own write: {other:?}"),
    }
}

/// `--buffer-bytes` / `--grow-buffers` (P-MEM-OBJ, R-BOUND): a kernel
/// storing at byte 80 of a pointer parameter without `dereferenceable`
/// has UB on every launch with the default 64-byte buffers (vacuous);
/// with `grow_buffers` the buffers are doubled to 128 bytes, the store is
/// in bounds, and a target storing another value is a counterexample,
/// replayed with the grown buffers. The verdict names the size used.
#[test]
fn grow_buffers_doubles_input_buffers_of_an_always_ub_source() {
    let k = |v: u32| {
        format!(
            "define void @k(ptr %out) {{
entry:
  %p = getelementptr inbounds i8, ptr %out, i64 80
  store i32 {v}, ptr %p
  ret void
}}"
        )
    };
    let (s, t) = (parse(&k(1)), parse(&k(2)));
    let run = |o: &Options| {
        let mut session = Session::new(None);
        match check_pair(&s, &t, "k", o, &mut session, true, None) {
            Ok(PairResult::Checked {
                outcome, replay, ..
            }) => {
                if let Some(Err(e)) = replay {
                    panic!("R-CEX: the interpreter does not confirm: {e}");
                }
                (outcome.verdict, outcome.buffer_bytes)
            }
            other => panic!("{other:?}"),
        }
    };
    let base = Options {
        threads: vec![1],
        ..Options::default()
    };
    let (v, bytes) = run(&base);
    assert!(matches!(v, Verdict::Vacuous(_)), "{v:?}");
    assert_eq!(bytes, 64);
    let (v, bytes) = run(&Options {
        grow_buffers: Some(256),
        ..base.clone()
    });
    assert!(matches!(v, Verdict::Counterexample(_)), "{v:?}");
    assert_eq!(bytes, 128);
    // `--buffer-bytes` alone gives the same answer without growing.
    let (v, bytes) = run(&Options {
        buffer_bytes: 96,
        ..base
    });
    assert!(matches!(v, Verdict::Counterexample(_)), "{v:?}");
    assert_eq!(bytes, 96);
}
