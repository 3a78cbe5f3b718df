//! MC-07 (M-AGREE) on vectors (R-VEC-SMT, P-VEC-*): on generated vector
//! kernels (`testgen::vector_kernels`: `<4 x i8>` loads and stores of each
//! thread's slot, element-wise arithmetic with flags, shuffles with poison
//! mask elements, compares and selects, inserts and extracts at constant
//! and variable indices, casts through other vector and scalar types, a
//! reduction feeding a divergent branch, a ballot and an observed call)
//! and their mutants, the SMT checker's verdict at 2 threads equals the
//! interpreter's (`checker::agree::check_agreement_memory`: `%x` over the
//! same domain, the interpreter on zero and patterned buffers, the checker
//! over every buffer content); every counterexample is replayed (R-CEX)
//! and its buffers must show the difference to the interpreter.

mod common;

use checker::agree::check_agreement_memory;
use testgen::vector_kernels::{arb_mutation, arb_prog, mutate, render, VMutation, VProg, VStep};

#[test]
fn mc07_vector_checker_agrees_with_interpreter() {
    let cases = 96;
    // `Ok(None)` (threads communicating through memory) is no verdict.
    let check = |s: &str, t: &str| match check_agreement_memory(s, t) {
        Ok(Some(v)) => Ok(v),
        other => Err(format!("{other:?}")),
    };
    let t = common::mc07_generated(
        cases,
        (arb_prog(4), arb_mutation()),
        |(p, m)| (render(&p), render(&mutate(&p, &m))),
        check,
    );
    let (yes, no, vac) = (t.refines, t.differ, t.vacuous);
    eprintln!(
        "MC-07 vectors: {cases} pairs agree ({yes} refine, {no} counterexamples, {vac} with a \
         source always UB)"
    );
    assert!(yes > 0 && no > 0, "both verdicts occur");
    assert!(vac * 4 <= cases as usize, "too many vacuous sources: {vac}");
}

/// The mutation the checker must catch: a shuffle mask element changed
/// (lanes 2 and 3 swapped) makes the stored vector differ; the checker's
/// counterexample is replayed on the interpreter (R-CEX) and its buffers
/// show the difference there too (`check_agreement_memory`).
#[test]
fn changed_shuffle_mask_is_a_counterexample() {
    let p = VProg {
        steps: vec![VStep::Shuffle {
            a: 0,
            b: 1,
            mask: [Some(0), Some(1), Some(2), Some(3)],
        }],
        reduce: "add",
        pred: "slt",
        bound: 0,
    };
    let q = mutate(&p, &VMutation::Mask(0, 2, Some(3)));
    let q = mutate(&q, &VMutation::Mask(0, 3, Some(2)));
    assert_ne!(p, q);
    assert_eq!(
        check_agreement_memory(&render(&p), &render(&q)),
        Ok(Some(false)),
        "the mask change must be a counterexample, confirmed by the interpreter"
    );
    assert_eq!(
        check_agreement_memory(&render(&p), &render(&p)),
        Ok(Some(true))
    );
}

/// R-VEC-SMT: what the encoding does not express is "unsupported" at the
/// instruction's `file:line:col`, never a verdict: a store of `<8 x i1>`
/// (elements sharing bytes) and a vector of pointers.
#[test]
fn vectors_outside_the_encoding_are_unsupported_with_a_location() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("refine-vector");
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let cases = [
        (
            "narrow.ll",
            "define void @k(ptr %out, i32 %x) {\nentry:\n  %v = insertelement <8 x i1> zeroinitializer, i1 true, i32 %x\n  store <8 x i1> %v, ptr %out, align 1\n  ret void\n}\n",
            "narrow.ll:4:3",
            "store of <8 x i1>",
        ),
        (
            "ptrs.ll",
            "define void @k(ptr %out, i32 %x) {\nentry:\n  %p = insertelement <2 x ptr> zeroinitializer, ptr %out, i32 %x\n  %q = extractelement <2 x ptr> %p, i32 0\n  store i32 1, ptr %q, align 4\n  ret void\n}\n",
            "ptrs.ll:3:3",
            "insertelement into <2 x ptr>",
        ),
    ];
    for (name, text, at, what) in cases {
        let f = dir.join(name);
        std::fs::write(&f, text).expect("temporary file");
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_convcheck"))
            .args(["refine", "--threads", "1"])
            .arg(&f)
            .arg(&f)
            .output()
            .expect("convcheck runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(at) && err.contains(what) && err.contains("unsupported"),
            "{name}: {err}"
        );
    }
}
