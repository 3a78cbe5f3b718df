//! MC-07 (M-AGREE) on floats (R-FLOAT-SMT): on generated float kernels
//! (`testgen::float_kernels`, in `half`: arithmetic with fast-math flags, `fneg`,
//! float intrinsics, format round trips, corner-case constants, a
//! divergent branch on an `fcmp`, a ballot of a float compare, the result's
//! bits observed) and their mutants, the SMT checker's verdict at 2 threads
//! equals the interpreter's (`checker::agree::check_agreement`: `%x` over
//! the same domain in both; the encoding's float inputs are the domain
//! converted, P-INPUT); every counterexample is replayed (R-CEX).

use std::sync::atomic::{AtomicUsize, Ordering};

use checker::agree::{check_agreement, interp_refines};
use proptest::prelude::prop_assert;
use proptest::test_runner::{Config, TestRunner};
use testgen::float_kernels::{arb_mutation, arb_prog, mutate, render};

#[test]
fn mc07_float_checker_agrees_with_interpreter() {
    let cases = 24;
    let refines = AtomicUsize::new(0);
    let differ = AtomicUsize::new(0);
    let vacuous = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let r = runner.run(&(arb_prog(3), arb_mutation()), |(p, m)| {
        let q = mutate(&p, &m);
        let (st, tt) = (render(&p), render(&q));
        let r = check_agreement(&st, &tt);
        // A source with UB on every launch (a `nnan` operation on a NaN
        // constant feeding the branch) is the checker's `vacuous` verdict
        // (STYLE 9); the interpreter must then find that everything
        // refines it.
        if matches!(&r, Err(e) if e.contains("Vacuous(SourceAlwaysUb)")) {
            let parse = |t: &str| semantics::parse_module("gen.ll", t).expect("generated");
            prop_assert!(
                interp_refines(&parse(&st), &parse(&tt)) == Ok(true),
                "vacuous source that the interpreter does not find always UB:\n{}",
                st
            );
            vacuous.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        prop_assert!(
            r.is_ok(),
            "{}\nsource:\n{}\ntarget:\n{}",
            r.clone().err().unwrap_or_default(),
            st,
            tt
        );
        if r == Ok(true) {
            refines.fetch_add(1, Ordering::Relaxed);
        } else {
            differ.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    });
    if let Err(e) = r {
        panic!("{e}");
    }
    let (yes, no) = (
        refines.load(Ordering::Relaxed),
        differ.load(Ordering::Relaxed),
    );
    let vac = vacuous.load(Ordering::Relaxed);
    eprintln!(
        "MC-07 floats: {cases} pairs agree ({yes} refine, {no} counterexamples, {vac} with a \
         source always UB)"
    );
    assert!(yes > 0 && no > 0, "both verdicts occur");
}
