//! Planted defects: every kind is produced, and `opt-22 -passes=verify`
//! rejects the programs with the LLVM message each kind promises.

use std::collections::BTreeMap;

use proptest::prelude::{prop_assert, proptest, ProptestConfig};
use proptest::test_runner::RngSeed;
use testgen::defects::{arb_defective_token_module, Defect, DefectiveProgram};
use testgen::oracle::opt_or_skip;
use testgen::sample;
use testgen::tokens::{verify_each, TokenProgram};

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: RngSeed::Fixed(0xdef),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The reported site exists and every used token is defined.
    #[test]
    fn defect_sites_exist(d in arb_defective_token_module(8)) {
        prop_assert!(d.program.insts[d.site.block].len() > d.site.pos);
        for (_, t) in d.program.uses() {
            prop_assert!(d.program.def_site(t).is_some());
        }
    }
}

/// Over 480 programs: all 12 kinds occur (>= 10 each), opt rejects every
/// program, and prints the kind's LLVM message for >= 95% of them.
#[test]
fn opt_reports_planted_defects() {
    let Some(opt) = opt_or_skip("opt_reports_planted_defects") else {
        return;
    };
    let ds: Vec<DefectiveProgram> = sample(&arb_defective_token_module(8), 480, 31);
    let progs: Vec<TokenProgram> = ds.iter().map(|d| d.program.clone()).collect();
    let verdicts = verify_each(&opt, &progs);
    let mut per_kind: BTreeMap<Defect, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for (d, v) in ds.iter().zip(&verdicts) {
        let e = per_kind.entry(d.defect).or_default();
        e.0 += 1;
        match v {
            Err(msg) if msg.contains(d.defect.llvm_message()) => e.1 += 1,
            other => misses.push((d.defect, d.program.to_ll(), other.clone())),
        }
    }
    eprintln!("planted defects (kind: produced, reported by opt): {per_kind:?}");
    for k in Defect::ALL {
        let (n, _) = per_kind.get(&k).copied().unwrap_or_default();
        assert!(n >= 10, "{k:?} produced only {n} times");
    }
    let reported: usize = per_kind.values().map(|c| c.1).sum();
    if let Some((k, ll, v)) = misses.first() {
        eprintln!("first miss ({k:?}):\n{ll}\n{v:?}");
    }
    assert!(
        verdicts.iter().all(|v| v.is_err()),
        "opt accepted a defective program"
    );
    assert!(
        reported * 100 >= ds.len() * 95,
        "reported {reported}/{}",
        ds.len()
    );
}
