//! `llvm.memcpy`, `llvm.memmove` and `llvm.memset` in the reference
//! interpreter (docs/RULES.md P-MEM-ACCESS: byte loops under the load and
//! store rules; R-MEM: bytes written to observed objects are events).

use semantics::machine::launch::Exploration;
use semantics::machine::memory::words;
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, Options, UbKind};
use semantics::parse_module;

const DECLS: &str = "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\ndeclare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\ndeclare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\ndeclare void @llvm.lifetime.start.p0(i64, ptr)\n";

fn run(body: &str, opts: &Options) -> Exploration {
    let text = format!("{DECLS}{body}");
    let m = parse_module("mi.ll", &text).unwrap_or_else(|e| panic!("{e}"));
    explore(&m, opts).unwrap_or_else(|e| panic!("{e}"))
}

fn one_thread() -> Options {
    Options {
        threads: 1,
        ..Options::default()
    }
}

fn ends(ex: &Exploration) -> Vec<String> {
    ex.behaviours
        .iter()
        .map(|b| match &b.execution.threads[0].end {
            Some(ThreadEnd::Returned(v)) => v.to_string(),
            Some(ThreadEnd::Ub { why, .. }) => format!("UB: {why}"),
            other => format!("{other:?}"),
        })
        .collect()
}

/// A private struct initialised by memset, copied by memcpy to a global
/// (observed: final contents), pointers copied keep their provenance.
#[test]
fn memset_memcpy_through_private_memory() {
    let ex = run(
        "@out = global [2 x i32] zeroinitializer\n@g = global i32 41\n@pp = global ptr null\ndefine i32 @k() {\nentry:\n  %a = alloca [2 x i32], align 4\n  call void @llvm.lifetime.start.p0(i64 8, ptr %a)\n  call void @llvm.memset.p0.i64(ptr %a, i8 1, i64 8, i1 false)\n  call void @llvm.memcpy.p0.p0.i64(ptr @out, ptr %a, i64 8, i1 false)\n  %s = alloca ptr, align 8\n  store ptr @g, ptr %s, align 8\n  call void @llvm.memcpy.p0.p0.i64(ptr @pp, ptr %s, i64 8, i1 false)\n  %p = load ptr, ptr @pp, align 8\n  %v = load i32, ptr %p, align 4\n  ret i32 %v\n}\n",
        &one_thread(),
    );
    assert_eq!(ends(&ex), ["41"]);
    let out = &ex.behaviours[0]
        .execution
        .memory
        .iter()
        .find(|(n, _)| n == "@out")
        .expect("@out is observed")
        .1;
    assert_eq!(words(out), ["16843009", "16843009"]);
}

/// memmove handles overlap; memcpy of overlapping ranges is UB; a length of
/// 0 does nothing even through null; a poison length is UB; out of bounds
/// is UB.
#[test]
fn overlap_length_and_bounds() {
    let shift = "define i32 @k() {\nentry:\n  %a = alloca [4 x i8], align 4\n  store i32 67305985, ptr %a, align 4\n  %b = getelementptr i8, ptr %a, i64 1\n  call void @llvm.OP(ptr %b, ptr %a, i64 3, i1 false)\n  %v = load i32, ptr %a, align 4\n  ret i32 %v\n}\n";
    // 0x04030201 -> bytes 01 01 02 03.
    let mv = run(&shift.replace("OP", "memmove.p0.p0.i64"), &one_thread());
    assert_eq!(ends(&mv), [(0x0302_0101).to_string()]);
    let cp = run(&shift.replace("OP", "memcpy.p0.p0.i64"), &one_thread());
    assert_eq!(ends(&cp), [format!("UB: {}", UbKind::OverlappingCopy)]);
    // P-MEM-ACCESS: equal ranges are no overlap for memcpy (LangRef: "must
    // either be equal or non-overlapping"); the copy changes nothing.
    let same = shift
        .replace("OP", "memcpy.p0.p0.i64")
        .replace("ptr %b, ptr %a", "ptr %b, ptr %b");
    assert_eq!(
        ends(&run(&same, &one_thread())),
        [(0x0403_0201).to_string()]
    );
    let zero = run(
        "define i32 @k() {\nentry:\n  call void @llvm.memset.p0.i64(ptr null, i8 0, i64 0, i1 false)\n  ret i32 0\n}\n",
        &one_thread(),
    );
    assert_eq!(ends(&zero), ["0"]);
    let poison = run(
        "define i32 @k() {\nentry:\n  %a = alloca i32, align 4\n  call void @llvm.memset.p0.i64(ptr %a, i8 0, i64 poison, i1 false)\n  ret i32 0\n}\n",
        &one_thread(),
    );
    assert_eq!(
        ends(&poison),
        [format!("UB: {}", UbKind::MemIntrinsicPoisonLength)]
    );
    let oob = run(
        "define i32 @k() {\nentry:\n  %a = alloca i32, align 4\n  call void @llvm.memset.p0.i64(ptr %a, i8 0, i64 5, i1 false)\n  ret i32 0\n}\n",
        &one_thread(),
    );
    assert!(
        ends(&oob)[0].starts_with("UB: out-of-bounds"),
        "{:?}",
        ends(&oob)
    );
}

/// Copying input bytes never read is reported unsupported (each would have
/// to be enumerated), never guessed.
#[test]
fn copying_unread_input_is_unsupported() {
    let m = parse_module(
        "mi.ll",
        &format!("{DECLS}define void @k(ptr %out, ptr %in) {{\nentry:\n  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %in, i64 4, i1 false)\n  ret void\n}}\n"),
    )
    .unwrap();
    let err = explore(&m, &one_thread())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("input bytes not read yet"), "{err}");
}
