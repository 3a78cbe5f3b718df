//! MC-07 (M-AGREE) on floats (R-FLOAT-SMT): on generated float kernels
//! (`testgen::float_kernels`, in `half`: arithmetic with fast-math flags, `fneg`,
//! float intrinsics, format round trips, corner-case constants, a
//! divergent branch on an `fcmp`, a ballot of a float compare, the result's
//! bits observed) and their mutants, the SMT checker's verdict at 2 threads
//! equals the interpreter's (`checker::agree::check_agreement`: `%x` over
//! the same domain in both; the encoding's float inputs are the domain
//! converted, P-INPUT); every counterexample is replayed (R-CEX).

mod common;

use checker::agree::check_agreement;
use testgen::float_kernels::{arb_mutation, arb_prog, mutate, render};

#[test]
fn mc07_float_checker_agrees_with_interpreter() {
    let cases = 24;
    let t = common::mc07_generated(
        cases,
        (arb_prog(3), arb_mutation()),
        |(p, m)| (render(&p), render(&mutate(&p, &m))),
        check_agreement,
    );
    let (yes, no, vac) = (t.refines, t.differ, t.vacuous);
    eprintln!(
        "MC-07 floats: {cases} pairs agree ({yes} refine, {no} counterexamples, {vac} with a \
         source always UB)"
    );
    assert!(yes > 0 && no > 0, "both verdicts occur");
}
