//! MC-03 / S-CYCLE-SUFF as a property test: checking S-CYCLE-1..4 over the
//! cycles of LLVM's cycle hierarchy reports exactly the violations that
//! checking every closed path reports (by brute force over closed paths of
//! up to 2n+2 edges, enough to reach any two blocks of a cycle and return),
//! on generated programs with reducible and irreducible CFGs.

use testgen::support::token_prog as support;

use std::collections::BTreeSet;

use proptest::prelude::{prop_assert, prop_assert_eq, prop_oneof, proptest, ProptestConfig};
use semantics::rules::cycles::cycle_violation_keys;
use semantics::rules::{verify_module, Options, RuleId, Violation};
use support::{arb_token_prog, Refs};

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// MC-03: cycles and closed paths find the same S-CYCLE violations.
    #[test]
    fn mc03_cycles_and_closed_paths_agree(p in prop_oneof![
        arb_token_prog(testgen::cfg::arb_cfg(6), false, Refs::Dominating),
        arb_token_prog(testgen::cfg::arb_irreducible_cfg(6), false, Refs::Dominating),
        arb_token_prog(testgen::cfg::arb_reducible_cfg(6), false, Refs::Nearest),
    ]) {
        let m = p.to_module();
        let n = p.cfg.blocks.len();
        let by_cycles = verify_module(&m, &Options::default());
        let by_paths = verify_module(&m, &Options { llvm_compatible: false, closed_paths: Some(2 * n + 2) });
        prop_assert_eq!(cycle_violation_keys(&by_cycles.violations), cycle_violation_keys(&by_paths.violations));
        // Everything else is checked the same way in both modes.
        // The document mode's hierarchy (unreachable code included) keeps
        // LLVM's cycles of the reachable part, block set for block set.
        let facts = semantics::rules::FnFacts::new(&m, &m.functions[0], false);
        let sets = |ci: &semantics::cfg::CycleInfo| -> BTreeSet<Vec<usize>> {
            ci.cycles
                .iter()
                .map(|c| {
                    let mut v: Vec<usize> = c.blocks.iter().map(|b| b.0).collect();
                    v.sort();
                    v
                })
                .collect()
        };
        prop_assert!(sets(&facts.cycles).is_subset(&sets(facts.doc_cycles())));
        let rest = |vs: &[Violation]| vs.iter().filter(|v| !matches!(v.rule, RuleId::SCycle1 | RuleId::SCycle2 | RuleId::SCycle3 | RuleId::SCycle4)).count();
        prop_assert_eq!(rest(&by_cycles.violations), rest(&by_paths.violations));
    }
}

/// The property is not vacuous: over a fixed sample, each of the four
/// rules is violated somewhere, on both reducible and irreducible CFGs.
#[test]
fn mc03_sample_exercises_every_cycle_rule() {
    let progs = testgen::sample(
        &arb_token_prog(
            testgen::cfg::arb_irreducible_cfg(6),
            false,
            Refs::Dominating,
        ),
        300,
        7,
    );
    let mut seen = BTreeSet::new();
    for p in &progs {
        let r = verify_module(&p.to_module(), &Options::default());
        for (rule, _, _) in cycle_violation_keys(&r.violations) {
            seen.insert(rule);
        }
    }
    for r in [
        RuleId::SCycle1,
        RuleId::SCycle2,
        RuleId::SCycle3,
        RuleId::SCycle4,
    ] {
        assert!(
            seen.contains(&r),
            "{r} never violated in the sample: {seen:?}"
        );
    }
}
