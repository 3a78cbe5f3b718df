//! MC-07 (M-AGREE) with memory (R-MEM-SMT, issue 12 item 3): on generated
//! integer kernels with input and output buffers, an `alloca` and a
//! constant global (`testgen::int_memory`), and targets derived by
//! mutations (a store dropped, moved into a divergent branch, reordered
//! across a barrier, its value changed), the SMT checker's verdict agrees
//! with the interpreter's at 2 threads (`checker::agree::
//! check_agreement_memory`); pairs where threads communicate through
//! memory are outside the encoding and answer unsupported, which the test
//! counts and bounds.

use std::sync::atomic::{AtomicUsize, Ordering};

use checker::agree::{agreement_memory, check_agreement_memory, MemAgree};
use proptest::prelude::prop_assert;
use proptest::test_runner::{Config, TestRunner};
use testgen::int_memory::{arb_mutation, arb_steps, arb_steps_memintr, mutate, render};

/// Case counts of [`agree_on`].
#[derive(Debug, Default)]
struct Tally {
    /// Checked by both formalizations.
    checked: usize,
    /// Of which both say refines (the others are counterexamples replayed
    /// on the interpreter).
    refines: usize,
    /// Sources always UB (the checker's `vacuous`, confirmed by the
    /// interpreter).
    vacuous: usize,
    /// Outside R-MEM-SMT (threads communicate through memory).
    outside: usize,
}

/// Runs `cases` generated pairs of `steps` through `agreement_memory`;
/// every one must agree.
fn agree_on<S>(steps: S, cases: u32) -> Tally
where
    S: proptest::strategy::Strategy<Value = Vec<testgen::int_memory::Step>>,
{
    let checked = AtomicUsize::new(0);
    let refines = AtomicUsize::new(0);
    let vacuous = AtomicUsize::new(0);
    let outside = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let r = runner.run(&(steps, arb_mutation()), |(p, m)| {
        let q = mutate(&p, m);
        let (st, tt) = (render(&p), render(&q));
        let r = agreement_memory(&st, &tt);
        prop_assert!(
            r.is_ok(),
            "{}\nsource:\n{}\ntarget:\n{}",
            r.err().unwrap_or_default(),
            st,
            tt
        );
        match r {
            Ok(MemAgree::Verdict(v)) => {
                checked.fetch_add(1, Ordering::Relaxed);
                if v {
                    refines.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(MemAgree::SourceAlwaysUb) => {
                vacuous.fetch_add(1, Ordering::Relaxed);
            }
            _ => {
                outside.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    });
    if let Err(e) = r {
        panic!("{e}");
    }
    Tally {
        checked: checked.load(Ordering::Relaxed),
        refines: refines.load(Ordering::Relaxed),
        vacuous: vacuous.load(Ordering::Relaxed),
        outside: outside.load(Ordering::Relaxed),
    }
}

/// MC-07 / M-AGREE on memory kernels: every generated pair agrees, and
/// most pairs are inside the encoding (threads not communicating through
/// memory).
#[test]
fn mc07_memory_checker_agrees_with_interpreter() {
    let cases = 64;
    let Tally {
        checked: n,
        refines: yes,
        vacuous,
        outside: out,
    } = agree_on(arb_steps(), cases);
    eprintln!(
        "MC-07 memory: {n} of {cases} pairs checked by both formalizations ({yes} refine, \
         {} counterexamples), {vacuous} sources always UB, {out} outside R-MEM-SMT",
        n - yes
    );
    assert!(yes > 0 && yes < n, "both verdicts occur");
    assert!(
        n * 2 >= cases as usize,
        "only {n} of {cases} pairs inside R-MEM-SMT"
    );
}

/// MC-07 / M-AGREE with the memory intrinsics (P-MEM-ACCESS, R-MEM-SMT):
/// every generated kernel has a `memcpy`, `memset`, `memmove` or
/// overlapping `memcpy` of a constant or argument-dependent length; the
/// SMT checker's verdict agrees with the interpreter's (counterexamples
/// replayed with the solver's buffers, refinements tested on two buffer
/// patterns).
#[test]
fn mc07_memintr_checker_agrees_with_interpreter() {
    let cases = 128;
    let Tally {
        checked: n,
        refines: yes,
        vacuous,
        outside: out,
    } = agree_on(arb_steps_memintr(), cases);
    eprintln!(
        "MC-07 memory intrinsics: {n} of {cases} pairs checked by both formalizations \
         ({yes} refine, {} counterexamples replayed), {vacuous} sources always UB \
         (confirmed by the interpreter), {out} outside R-MEM-SMT",
        n - yes
    );
    assert!(yes > 0 && yes < n, "both verdicts occur");
    assert!(
        vacuous > 0,
        "some source is always UB (overlap, out of bounds)"
    );
    assert!(
        n * 2 >= cases as usize,
        "only {n} of {cases} pairs inside R-MEM-SMT"
    );
}

/// Non-vacuity: both verdicts occur on fixed pairs of the family, and
/// communication through memory is recognised.
#[test]
fn mc07_memory_family_has_both_verdicts() {
    use testgen::int_memory::Step;
    let base = vec![
        Step::LoadIn { other: true },
        Step::StoreOut {
            other: false,
            v: 2,
            byte: None,
        },
        Step::Barrier,
        Step::If(1, vec![Step::Barrier]),
    ];
    let same = mutate(&base, (1, 1, 0)); // the store swapped below the barrier
    assert_eq!(
        check_agreement_memory(&render(&base), &render(&same)),
        Ok(Some(true))
    );
    let sunk = mutate(&base, (2, 1, 0)); // the store moved into the branch
    assert_eq!(
        check_agreement_memory(&render(&base), &render(&sunk)),
        Ok(Some(false))
    );
    let mut talk = base.clone();
    talk.push(Step::StoreOut {
        other: true,
        v: 0,
        byte: None,
    });
    assert_eq!(
        check_agreement_memory(&render(&talk), &render(&talk)),
        Ok(None)
    );
}
