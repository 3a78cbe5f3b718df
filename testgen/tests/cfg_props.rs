//! Property tests: the CFG strategies deliver what they promise, checked by
//! the independent oracles in `testgen::graph`, and `opt-22` accepts what
//! they render.

use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};
use proptest::test_runner::RngSeed;
use testgen::cfg::{arb_cfg, arb_irreducible_cfg, arb_reducible_cfg, CondSource, GenCfg, GenTerm};
use testgen::graph::{is_reducible, is_reducible_by_back_edges, natural_loops, reachable};
use testgen::oracle::{opt_or_skip, verify_ll};
use testgen::sample;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x5eed),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn arb_cfg_is_structurally_valid(g in arb_cfg(10)) {
        prop_assert_eq!(g.validate(), Ok(()));
        prop_assert!(g.blocks.len() <= 10);
    }

    /// The two classical definitions of reducibility agree (oracle check).
    #[test]
    fn reducibility_oracles_agree(g in arb_cfg(9)) {
        let s = g.succs();
        prop_assert_eq!(is_reducible(&s), is_reducible_by_back_edges(&s));
    }

    #[test]
    fn reducible_strategy_is_reducible(g in arb_reducible_cfg(12)) {
        prop_assert_eq!(g.validate(), Ok(()));
        prop_assert!(is_reducible(&g.succs()), "{}", g.to_ll("f"));
    }

    /// The smallest size the irreducible strategy accepts still delivers.
    #[test]
    fn irreducible_strategy_works_at_three_blocks(g in arb_irreducible_cfg(3)) {
        prop_assert_eq!(g.blocks.len(), 3);
        prop_assert!(!is_reducible(&g.succs()));
    }

    #[test]
    fn irreducible_strategy_is_irreducible(g in arb_irreducible_cfg(10)) {
        prop_assert_eq!(g.validate(), Ok(()));
        prop_assert!(!is_reducible(&g.succs()), "{}", g.to_ll("f"));
        prop_assert!(!is_reducible_by_back_edges(&g.succs()));
    }
}

/// Counts of features over a fixed sample, so a generator that silently
/// stops producing something (self loops, switches, ...) fails a test.
#[derive(Default, Debug)]
struct Mix {
    self_loop: usize,
    irreducible: usize,
    unreachable_block: usize,
    dup_succ: usize,
    switch: usize,
    loops: usize,
    nested_loops: usize,
    multi_latch: usize,
    multi_exit: usize,
}

fn mix(cfgs: &[GenCfg]) -> Mix {
    let mut m = Mix::default();
    for g in cfgs {
        let s = g.succs();
        let reach = reachable(&s);
        m.self_loop += s.iter().enumerate().any(|(b, ss)| ss.contains(&b)) as usize;
        m.irreducible += !is_reducible(&s) as usize;
        m.unreachable_block += reach.iter().any(|r| !r) as usize;
        m.dup_succ += s.iter().any(|ss| {
            let mut v = ss.clone();
            v.sort_unstable();
            v.windows(2).any(|w| w[0] == w[1])
        }) as usize;
        m.switch += g.blocks.iter().any(|t| matches!(t, GenTerm::Switch { .. })) as usize;
        let loops = natural_loops(&s);
        m.loops += !loops.is_empty() as usize;
        m.nested_loops += loops.iter().any(|l| {
            loops
                .iter()
                .any(|k| k.header != l.header && l.body[k.header] && !k.body[l.header])
        }) as usize;
        m.multi_latch += loops.iter().any(|l| l.latches.len() > 1) as usize;
        m.multi_exit += loops.iter().any(|l| {
            let exiting = (0..s.len())
                .filter(|&b| l.body[b] && s[b].iter().any(|&t| !l.body[t]))
                .count();
            exiting > 1
        }) as usize;
    }
    m
}

#[test]
fn arb_cfg_mixes_features() {
    let cfgs = sample(&arb_cfg(8), 500, 1);
    let m = mix(&cfgs);
    eprintln!("arb_cfg(8) x500: {m:?}");
    for (name, count) in [
        ("self loops", m.self_loop),
        ("irreducible", m.irreducible),
        ("unreachable blocks", m.unreachable_block),
        ("duplicate successors", m.dup_succ),
        ("switches", m.switch),
    ] {
        assert!(count >= 50, "only {count}/500 CFGs with {name}");
    }
}

#[test]
fn reducible_cfgs_have_structured_loops() {
    let cfgs = sample(&arb_reducible_cfg(10), 500, 2);
    let m = mix(&cfgs);
    eprintln!("arb_reducible_cfg(10) x500: {m:?}");
    assert_eq!(m.irreducible, 0);
    for (name, count) in [
        ("loops", m.loops),
        ("nested loops", m.nested_loops),
        ("multi-latch loops", m.multi_latch),
        ("multi-exit loops", m.multi_exit),
        ("switches", m.switch),
    ] {
        assert!(count >= 25, "only {count}/500 CFGs with {name}");
    }
}

/// `opt-22 -passes=verify` accepts every generated CFG: 3 strategies x 150,
/// 50 functions per module.
#[test]
fn opt_verifies_generated_cfgs() {
    let Some(opt) = opt_or_skip("opt_verifies_generated_cfgs") else {
        return;
    };
    let mut all: Vec<GenCfg> = sample(&arb_cfg(12), 150, 3);
    all.extend(sample(&arb_reducible_cfg(12), 150, 4));
    all.extend(sample(&arb_irreducible_cfg(12), 150, 5));
    for chunk in all.chunks(50) {
        let ll = GenCfg::to_module_ll(chunk);
        let out = verify_ll(&opt, &ll);
        assert!(out.success(), "opt rejected:\n{}\n{ll}", out.stderr);
    }
    eprintln!("opt-22 verified {} generated CFGs", all.len());
}

/// The stream-condition rendering (`CondSource::Stream`) is accepted too.
#[test]
fn opt_verifies_stream_condition_cfgs() {
    let Some(opt) = opt_or_skip("opt_verifies_stream_condition_cfgs") else {
        return;
    };
    let cfgs = sample(&arb_cfg(10), 150, 6);
    let mut ll = String::from(CondSource::DECLARATIONS);
    for (i, g) in cfgs.iter().enumerate() {
        ll.push_str(&g.to_ll_full(&format!("f{i}"), "", CondSource::Stream, &|_| Vec::new()));
    }
    assert!(ll.contains("= call i32 @input.i32()"));
    let out = verify_ll(&opt, &ll);
    assert!(out.success(), "{}", out.stderr);
    assert!(verify_ll(
        &opt,
        &cfgs[0].to_module_ll_with_conds("g", CondSource::Stream)
    )
    .success());
}
