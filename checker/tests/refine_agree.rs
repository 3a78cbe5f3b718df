//! MC-07 (M-AGREE) and the mutation test of issue 6, on generated program
//! pairs (`testgen::refine_family`): the interpreter's verdict and the SMT
//! checker's must agree (`checker::agree`, the one implementation, also run
//! by `convcheck prove`); in particular the checker never says "refines"
//! where the interpreter finds a differing behaviour (mutation test). An
//! `unknown` from the checker fails the test too.

use checker::agree::{check_agreement, interp_refines, smt_verdict};
use proptest::prelude::{prop_assert, proptest, ProptestConfig};
use semantics::ir::Module;
use testgen::refine_family::{arb_mutation, arb_prog, mutate, render, OpKind, Place, Prog};

fn parse(text: &str) -> Module {
    semantics::parse_module("gen.ll", text).expect("generated programs parse")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// MC-07 / M-AGREE and the mutation test: the checker's verdict equals
    /// the interpreter's, so it never says "refines" where the interpreter
    /// finds a differing behaviour.
    #[test]
    fn mc07_checker_agrees_with_interpreter(
        p in arb_prog(2),
        (i, to) in arb_mutation(),
    ) {
        let q = mutate(&p, i, to);
        let (st, tt) = (render(&p), render(&q));
        let r = check_agreement(&st, &tt);
        prop_assert!(r.is_ok(), "{}\nsource:\n{}\ntarget:\n{}", r.err().unwrap_or_default(), st, tt);
    }
}

/// Non-vacuity of MC-07: the family contains both verdicts, and both
/// formalizations see them (sinking a reduction into the divergent arm is
/// wrong; moving a controlled reduction from the entry block to the join is
/// harmless, the `entry` token converges all threads at both places).
#[test]
fn mc07_family_has_both_verdicts() {
    let base = Prog {
        controlled: true,
        with_loop: false,
        ops: vec![(OpKind::Add, Place::Entry)],
    };
    let s = parse(&render(&base));
    let sink = parse(&render(&mutate(&base, 0, Some(Place::Arm))));
    let join = parse(&render(&mutate(&base, 0, Some(Place::Join))));
    assert_eq!(interp_refines(&s, &sink), Ok(false));
    assert_eq!(smt_verdict(&s, &sink), Ok(false));
    assert_eq!(interp_refines(&s, &join), Ok(true));
    assert_eq!(smt_verdict(&s, &join), Ok(true));
}
