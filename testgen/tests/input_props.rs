//! Thread-input strategies: canonical form, coverage of the spaces they
//! promise (checked against the exhaustive enumerations), and agreement with
//! the CFGs they are drawn for.

use std::collections::BTreeSet;

use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};
use proptest::test_runner::RngSeed;
use testgen::cfg::arb_reducible_cfg;
use testgen::inputs::{
    all_arg_values, all_partitions, arb_cfg_with_launch, arb_launch, arb_launch_n, I32_MAX_VALUE,
    MAX_THREADS,
};
use testgen::sample;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x1a0c),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn launches_are_canonical(l in arb_launch(2, 3)) {
        prop_assert!((1..=MAX_THREADS).contains(&l.num_threads()));
        prop_assert_eq!(l.validate(2, 3), Ok(()));
        for t in 0..l.num_threads() {
            prop_assert!(l.group_of(t).is_some());
        }
    }

    #[test]
    fn launches_match_their_cfg((g, l) in arb_cfg_with_launch(arb_reducible_cfg(6))) {
        prop_assert_eq!(l.validate(g.num_i1, g.num_i32), Ok(()));
        for t in &l.threads {
            prop_assert_eq!(t.to_ll_constants().len(), g.num_i1 + g.num_i32);
        }
    }
}

/// With four threads the strategy reaches every one of the 15 partitions and
/// every argument tuple, and produces both uniform and divergent arguments.
#[test]
fn launches_cover_their_space() {
    let ls = sample(&arb_launch_n(4, 1, 1), 3000, 21);
    let parts: BTreeSet<Vec<Vec<usize>>> = ls.iter().map(|l| l.groups.clone()).collect();
    assert_eq!(parts, all_partitions(4).into_iter().collect());
    let single = ls.iter().filter(|l| l.groups.len() == 1).count();
    assert!(single * 3 >= ls.len(), "one group in only {single}/3000");
    let tuples: BTreeSet<(Vec<bool>, Vec<i32>)> = ls
        .iter()
        .flat_map(|l| l.threads.iter().map(|t| (t.i1.clone(), t.i32.clone())))
        .collect();
    let expected: BTreeSet<(Vec<bool>, Vec<i32>)> = all_arg_values(1, 1, I32_MAX_VALUE)
        .into_iter()
        .map(|t| (t.i1, t.i32))
        .collect();
    assert_eq!(tuples, expected);
    let uni = ls
        .iter()
        .filter(|l| l.i1_uniform(0) && l.i32_uniform(0))
        .count();
    let div = ls
        .iter()
        .filter(|l| !l.i1_uniform(0) && !l.i32_uniform(0))
        .count();
    assert!(
        uni >= 300 && div >= 300,
        "uniform {uni}, divergent {div} of 3000"
    );
}

/// Every thread count occurs, and smaller launches keep canonical groups.
#[test]
fn all_thread_counts_occur() {
    let ls = sample(&arb_launch(1, 1), 400, 22);
    let counts: BTreeSet<usize> = ls.iter().map(|l| l.num_threads()).collect();
    assert_eq!(counts, (1..=MAX_THREADS).collect());
    assert!(ls.iter().all(|l| l.validate(1, 1).is_ok()));
}
