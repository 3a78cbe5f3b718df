//! MC-07 (M-AGREE) and the mutation test of issue 6, on generated program
//! pairs (`testgen::refine_family`): the interpreter's verdict and the SMT
//! checker's must agree (`checker::agree`, the one implementation, also run
//! by `convcheck prove`); in particular the checker never says "refines"
//! where the interpreter finds a differing behaviour (mutation test). An
//! `unknown` from the checker fails the test too.

use checker::agree::{check_agreement, interp_refines, smt_verdict};
use proptest::prelude::{prop_assert, proptest, ProptestConfig};
use semantics::ir::Module;
use testgen::refine_family::{
    arb_irr_pair, arb_mutation, arb_prog, arb_rec_pair, arb_spin_pair, mutate, render, render_irr,
    IrrPlace, IrrProg, OpKind, Place, Prog, Shape, Spin,
};

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
        spin: None,
    };
    let s = parse(&render(&base));
    let sink = parse(&render(&mutate(&base, 0, Some(Place::Arm))));
    let join = parse(&render(&mutate(&base, 0, Some(Place::Join))));
    assert_eq!(interp_refines(&s, &sink), Ok(false));
    assert_eq!(smt_verdict(&s, &sink), Ok(false));
    assert_eq!(interp_refines(&s, &join), Ok(true));
    assert_eq!(smt_verdict(&s, &join), Ok(true));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// MC-07 / M-AGREE with loops that never end for some inputs
    /// (R-PREFIX): the checker compares a stuck target thread by its
    /// prefix, the interpreter by its cut execution (checked stable at
    /// twice its bound); both must give the same verdict.
    #[test]
    fn mc07_prefix_agrees_with_interpreter((p, q) in arb_spin_pair(2)) {
        let (st, tt) = (render(&p), render(&q));
        let r = check_agreement(&st, &tt);
        prop_assert!(r.is_ok(), "{}\nsource:\n{}\ntarget:\n{}", r.err().unwrap_or_default(), st, tt);
    }
}

/// Non-vacuity of the R-PREFIX cases: a target that spins where the
/// source does not is a counterexample for both formalizations (the
/// barrier's set loses the spinning thread), so is a target that returns
/// where the source spins (the source never returns there), and the same
/// spin on both sides refines (stuck threads match stuck threads). The
/// same with the spin a recursion (R-PREFIX-REC), controlled or not.
#[test]
fn mc07_prefix_has_both_verdicts() {
    for (rec, controlled) in [(false, false), (true, false), (true, true)] {
        let base = Prog {
            controlled,
            with_loop: false,
            ops: vec![(OpKind::Barrier, Place::Join)],
            spin: None,
        };
        let spin = Some(Spin {
            place: Place::Arm,
            value: 0,
            rec,
        });
        let spinning = Prog {
            spin,
            ..base.clone()
        };
        let s = parse(&render(&base));
        let t = parse(&render(&spinning));
        let what = format!("rec {rec}, controlled {controlled}");
        assert_eq!(interp_refines(&s, &t), Ok(false), "{what}");
        assert_eq!(smt_verdict(&s, &t), Ok(false), "{what}");
        assert_eq!(interp_refines(&t, &s), Ok(false), "{what}");
        assert_eq!(smt_verdict(&t, &s), Ok(false), "{what}");
        assert_eq!(interp_refines(&t, &t), Ok(true), "{what}");
        assert_eq!(smt_verdict(&t, &t), Ok(true), "{what}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// MC-07 / M-AGREE with recursions that never end for some inputs
    /// (R-PREFIX-REC): the checker inlines them to a depth and calls the
    /// thread stuck when the recursion repeats itself; the interpreter
    /// executes the calls natively and reads the cut thread as never
    /// ending (checked at twice its bound); both must give the same
    /// verdict.
    #[test]
    fn mc07_recursion_agrees_with_interpreter((p, q) in arb_rec_pair(2)) {
        let (st, tt) = (render(&p), render(&q));
        let r = check_agreement(&st, &tt);
        prop_assert!(r.is_ok(), "{}\nsource:\n{}\ntarget:\n{}", r.err().unwrap_or_default(), st, tt);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// MC-07 / M-AGREE with irreducible cycles (D-HIER): the interpreter
    /// enumerates every cycle hierarchy; the checker (`--hierarchy all`)
    /// tries every target hierarchy against some source hierarchy.
    #[test]
    fn mc07_hierarchies_agree_with_interpreter((p, q) in arb_irr_pair()) {
        let (st, tt) = (render_irr(&p), render_irr(&q));
        let r = check_agreement(&st, &tt);
        prop_assert!(r.is_ok(), "{}\nsource:\n{}\ntarget:\n{}", r.err().unwrap_or_default(), st, tt);
    }
}

/// Non-vacuity of the D-HIER cases: the reducible loop against its jump
/// threading with the header LLVM does not take differs for both
/// formalizations, and each shape refines itself.
#[test]
fn mc07_hierarchies_have_both_verdicts() {
    let prog = |shape| IrrProg {
        shape,
        ops: vec![(OpKind::Barrier, IrrPlace::L)],
    };
    let s = parse(&render_irr(&prog(Shape::Reducible)));
    let t = parse(&render_irr(&prog(Shape::ThreadedSwapped)));
    assert_eq!(interp_refines(&s, &t), Ok(false));
    assert_eq!(smt_verdict(&s, &t), Ok(false));
    assert_eq!(interp_refines(&t, &t), Ok(true));
    assert_eq!(smt_verdict(&t, &t), Ok(true));
}
