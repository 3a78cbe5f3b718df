//! Token-program generators: structural promises (property tests) and the
//! acceptance rates of `opt-22 -passes=verify` (oracle tests).

use std::collections::BTreeMap;

use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};
use proptest::test_runner::RngSeed;
use testgen::cfg::CondSource;
use testgen::graph::{natural_loops, DomSets};
use testgen::oracle::{opt_or_skip, verify_ll};
use testgen::sample;
use testgen::tokens::{
    arb_token_module, arb_valid_token_module, verify_each, Intrinsic, TokInst, TokenProgram,
};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x70c3),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// S-ENTRY-PLACE, S-ENTRY-FUNC, S-LOOP-PLACE, S-LOOP-BUNDLE, S-MIX and
    /// SSA dominance of token uses hold for the likely-valid strategy,
    /// re-checked here with the independent dominator sets.
    #[test]
    fn valid_strategy_keeps_local_rules(p in arb_valid_token_module(8)) {
        let succs = p.cfg.succs();
        let dom = DomSets::new(&succs);
        let headers: Vec<usize> = natural_loops(&succs).iter().map(|l| l.header).collect();
        let (ctl, unctl) = p.op_counts();
        prop_assert!(ctl == 0 || unctl == 0, "S-MIX");
        for (site, inst) in p.sites() {
            if let TokInst::Intr { kind, bundle, .. } = inst {
                match kind {
                    Intrinsic::Entry => {
                        prop_assert_eq!((site.block, site.pos), (0, 0));
                        prop_assert!(p.convergent && bundle.is_none());
                    }
                    Intrinsic::Loop => {
                        prop_assert_eq!(site.pos, 0);
                        prop_assert!(headers.contains(&site.block));
                        prop_assert!(bundle.is_some());
                    }
                    Intrinsic::Anchor => prop_assert!(bundle.is_none()),
                }
            }
        }
        for (site, t) in p.uses() {
            let d = p.def_site(t).expect("used tokens are defined");
            prop_assert!(
                (d.block == site.block && d.pos < site.pos)
                    || (d.block != site.block && dom.dominates(d.block, site.block)),
                "use of %t{} at {:?} not dominated by {:?}", t, site, d
            );
        }
    }

    /// Every token an arbitrary program uses is defined somewhere (so `opt`
    /// never fails on an undefined name instead of a convergence rule).
    #[test]
    fn arbitrary_strategy_uses_defined_tokens(p in arb_token_module(8)) {
        for (_, t) in p.uses() {
            prop_assert!(p.def_site(t).is_some());
        }
        prop_assert_eq!(p.cfg.validate(), Ok(()));
    }
}

/// First line of opt's complaint, with value names masked so that messages
/// group by kind.
fn reason(stderr: &str) -> String {
    let line = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("<no message>");
    let line = line.split("error: ").last().unwrap_or(line);
    line.chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect()
}

fn rates(opt: &std::path::Path, progs: &[TokenProgram]) -> (usize, BTreeMap<String, usize>) {
    let mut ok = 0;
    let mut why: BTreeMap<String, usize> = BTreeMap::new();
    for v in verify_each(opt, progs) {
        match v {
            Ok(()) => ok += 1,
            Err(e) => *why.entry(reason(&e)).or_default() += 1,
        }
    }
    (ok, why)
}

/// Batched verdicts (one `opt` run per 40 programs, messages attributed by
/// value-name prefix) equal one-program-per-run verdicts.
#[test]
fn batched_verdicts_match_single_runs() {
    let Some(opt) = opt_or_skip("batched_verdicts_match_single_runs") else {
        return;
    };
    let progs = sample(&arb_token_module(8), 50, 13);
    let batched = verify_each(&opt, &progs);
    let mut rejected = 0;
    for (p, b) in progs.iter().zip(&batched) {
        let single = verify_ll(&opt, &p.to_ll());
        assert_eq!(
            single.success(),
            b.is_ok(),
            "{}\nsingle: {}\nbatched: {b:?}",
            p.to_ll(),
            single.stderr
        );
        if let Err(e) = b {
            rejected += 1;
            assert_eq!(reason(e), reason(&single.stderr));
        }
    }
    assert!(rejected > 0 && rejected < progs.len());
}

/// The likely-valid strategy is accepted by `opt-22 -passes=verify` in most
/// cases (>= 90% required; the rate is printed).
#[test]
fn opt_accepts_likely_valid_programs() {
    let Some(opt) = opt_or_skip("opt_accepts_likely_valid_programs") else {
        return;
    };
    let progs = sample(&arb_valid_token_module(8), 300, 11);
    let with_tokens = progs.iter().filter(|p| !p.defs().is_empty()).count();
    let hearts = progs
        .iter()
        .filter(|p| p.defs().iter().any(|d| d.2 == Intrinsic::Loop))
        .count();
    let (ok, why) = rates(&opt, &progs);
    eprintln!(
        "likely-valid: opt accepted {ok}/{} ({with_tokens} with tokens, {hearts} with loop hearts); rejections: {why:#?}",
        progs.len()
    );
    assert!(hearts >= 30, "only {hearts}/300 programs with a loop heart");
    assert!(
        ok * 10 >= progs.len() * 9,
        "accepted only {ok}/{}: {why:#?}",
        progs.len()
    );
}

/// The arbitrary strategy yields a healthy mix of accepted and rejected
/// programs (each >= 15%), with several distinct rejection reasons.
#[test]
fn opt_splits_arbitrary_programs() {
    let Some(opt) = opt_or_skip("opt_splits_arbitrary_programs") else {
        return;
    };
    let progs = sample(&arb_token_module(8), 300, 12);
    let (ok, why) = rates(&opt, &progs);
    eprintln!(
        "arbitrary: opt accepted {ok}/{}; rejections: {why:#?}",
        progs.len()
    );
    let n = progs.len();
    assert!(
        ok * 100 >= n * 15 && (n - ok) * 100 >= n * 15,
        "accepted {ok}/{n}"
    );
    assert!(
        why.len() >= 5,
        "only {} distinct rejection reasons: {why:#?}",
        why.len()
    );
}

/// With branch conditions read from the input stream (`CondSource::Stream`)
/// the likely-valid programs stay valid: 200 programs in one module.
#[test]
fn opt_accepts_valid_programs_with_stream_conditions() {
    let Some(opt) = opt_or_skip("opt_accepts_valid_programs_with_stream_conditions") else {
        return;
    };
    let progs = sample(&arb_valid_token_module(8), 200, 14);
    let mut ll = TokenProgram::declarations_ll();
    ll.push_str(CondSource::DECLARATIONS);
    for (i, p) in progs.iter().enumerate() {
        ll.push_str(&p.to_function_ll_with_conds(&format!("k{i}"), CondSource::Stream));
    }
    assert!(ll.contains("call i1 @input.i1()"));
    let out = verify_ll(&opt, &ll);
    assert!(out.success(), "{}", out.stderr);
    let one = progs[0].to_ll_stream_conds();
    assert!(verify_ll(&opt, &one).success());
}
