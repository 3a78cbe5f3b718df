//! MC-05 and MC-06: the uniformity analysis against the reference
//! interpreter, on generated programs (testgen::uniformity, stores
//! dropped). The checks themselves are `semantics::uniformity::oracle`
//! (one implementation, also run by `convcheck prove`); this file draws the
//! programs and asserts non-vacuity.
//!
//! MC-05: the analysis is sound (U-DEF, U-FIX): every value it calls
//! uniform is equal in every pair of converged instances (D-CW) of every
//! finished execution the interpreter finds, under launches with uniform
//! kernel and `inreg` arguments and distinct per-thread values for the
//! others.
//!
//! MC-06: blocks the analysis treats as m-converged (U-MCONV) have the same
//! converged-with relation in every cycle hierarchy (D-HIER).

use std::collections::BTreeMap;

use proptest::prelude::{prop_assert, proptest, ProptestConfig};
use semantics::machine::state::Observation;
use semantics::machine::{explore, ArgValues, Options, Outcome, Val};
use semantics::parse_module;
use semantics::uniformity::oracle::{
    check_m_convergence, check_soundness, prepare, MConvCounts, SoundnessCounts,
};
use testgen::uniformity::{gen_function, UFunc, DECLARATIONS};

/// The module the checks run on, and the launch.
fn program(u: &UFunc, threads: u32) -> (semantics::ir::Module, Options) {
    prepare(
        &(u.without_stores().to_llvm() + DECLARATIONS),
        &u.name,
        threads,
    )
    .expect("generated programs parse")
}

/// MC-05 on one program; `Err` describes a violation, with the program.
fn check(u: &UFunc, threads: u32) -> Result<SoundnessCounts, String> {
    let (m, opts) = program(u, threads);
    check_soundness(&m, &u.name, &opts).map_err(|e| format!("{e}\n{}", u.to_llvm()))
}

/// MC-06 on one program.
fn check_mconv(u: &UFunc, threads: u32) -> Result<MConvCounts, String> {
    let (m, opts) = program(u, threads);
    check_m_convergence(&m, &u.name, &opts).map_err(|e| format!("{e}\n{}", u.to_llvm()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// MC-05 (rules U-DEF, U-FIX) on random generated programs.
    #[test]
    fn mc05_uniform_values_are_equal_in_converged_instances(
        (u, threads) in testgen::uniformity::arb_launch_sized(10),
    ) {
        let r = check(&u, threads);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

/// MC-05 is not vacuous: on a fixed sample, many converged pairs of
/// uniform values are compared, and divergent values do differ in
/// converged instances (so the launches separate threads).
#[test]
fn mc05_sample_compares_many_converged_pairs() {
    let mut total = SoundnessCounts::default();
    for id in 0..600u64 {
        let u = gen_function(0x5EED ^ id.wrapping_mul(0x9E37), "k");
        match check(&u, 2) {
            Ok(c) => total.add(c),
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!("MC-05 sample: {total:?}");
    assert!(total.executions >= 300, "{total:?}");
    assert!(total.uniform_pairs >= 900, "{total:?}");
    assert!(total.divergent_unequal >= 300, "{total:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// MC-06 (rules U-MCONV, D-HIER) on random generated programs.
    ///
    /// Ignored by default because it finds finding F-23 (proofs/FINDINGS.md):
    /// a divergent branch joining at itself in an irreducible cycle, which
    /// LLVM 22 and this analysis do not assume divergent (about 3 in 20,000
    /// generated programs; the shrunk counterexample is saved in
    /// `uniformity_interp.proptest-regressions` and replayed first, and has
    /// the shape of examples/uniformity/f23_self_join_irreducible.ll). The
    /// check is not weakened: run it with `--ignored`. By default MC-06 is
    /// covered by the fixed sample below, the F-23 guard, and `convcheck
    /// prove` (MC-06).
    #[test]
    #[ignore = "finds recorded finding F-23; run with --ignored"]
    fn mc06_m_converged_blocks_agree_across_hierarchies(
        (u, threads) in testgen::uniformity::arb_launch_sized(10),
    ) {
        let r = check_mconv(&u, threads);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

/// MC-06 is not vacuous: the sample has programs with several hierarchies
/// and blocks whose relation does differ between them (all inside cycles
/// the analysis assumes divergent).
#[test]
fn mc06_sample_has_hierarchy_dependent_blocks() {
    let (mut multi, mut differing) = (0, 0);
    for id in 0..600u64 {
        let u = gen_function(0x5EED ^ id.wrapping_mul(0x9E37), "k");
        match check_mconv(&u, 2) {
            Ok(c) => {
                multi += usize::from(c.hierarchies > 1);
                differing += c.differing_blocks;
            }
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!("MC-06 sample: {multi} programs with several hierarchies, {differing} hierarchy-dependent blocks");
    assert!(multi >= 20 && differing >= 5, "{multi} {differing}");
}

/// U-9 (proofs/FINDINGS.md): LLVM 22's analysis, and ours since it follows
/// LLVM (U-LLVM), call `%use` uniform in
/// examples/uniformity/u9_assumed_divergent_exit.ll, but the interpreter
/// finds converged instances of it (D-MAX, outside every cycle) storing
/// different values. This documents an LLVM approximation that breaks
/// U-DEF; it fails if either side changes.
#[test]
fn u9_llvm_misses_temporal_divergence_of_always_uniform_values() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/uniformity/u9_assumed_divergent_exit.ll");
    let text = std::fs::read_to_string(&path).expect("example readable");
    let module = parse_module("u9.ll", &text).expect("parses");
    let result = &semantics::uniformity::analyze_module(&module)[0];
    let use_verdict = result
        .blocks
        .iter()
        .flat_map(|b| &b.definitions)
        .find(|d| d.text.starts_with("%use = "))
        .expect("%use is analysed");
    assert!(
        !use_verdict.divergent,
        "the analysis (like LLVM 22) calls %use uniform"
    );
    assert!(result
        .cycles_assumed_divergent
        .iter()
        .any(|c| c.contains("entries(R P)")));

    let mut args = BTreeMap::new();
    args.insert("uni.enter".to_string(), ArgValues::Uniform(1));
    let opts = Options {
        threads: 2,
        max_steps: 100,
        args,
        ..Options::default()
    };
    let ex = explore(&module, &opts).expect("explores");
    let f = &module.functions[0];
    let exit = f
        .block_ids()
        .find(|&b| f.block_name(b) == "exit")
        .expect("exit block");
    let mut witnessed = false;
    for b in &ex.behaviours {
        let e = &b.execution;
        if e.outcome != Outcome::Finished {
            continue;
        }
        let stored: Vec<Option<Val>> = e
            .threads
            .iter()
            .map(|th| {
                th.observations.iter().find_map(|o| match o {
                    Observation::Store { value, .. } => Some(value.clone()),
                    _ => None,
                })
            })
            .collect();
        for class in e.visit_classes() {
            let in_exit = class
                .iter()
                .filter(|&&(t, p)| e.threads[t].trace[p].block == exit)
                .count();
            if in_exit == 2 && stored[0] != stored[1] {
                eprintln!("U-9: converged instances of %use store {stored:?}");
                witnessed = true;
            }
        }
    }
    assert!(
        witnessed,
        "the interpreter shows converged instances of %use with different values"
    );
}

/// F-23 (proofs/FINDINGS.md): in
/// examples/uniformity/f23_self_join_irreducible.ll the divergent branch in
/// `a` joins at `a` itself through the entry `b` of the irreducible cycle,
/// which breaks the diverged entry criterion; LLVM 22, and this analysis
/// since it follows LLVM (U-LLVM), assume no cycle divergent and call `%x`
/// uniform. The oracle shows both consequences: converged instances of `%x`
/// with different values (MC-05) and block `a`'s relation differing between
/// the two cycle hierarchies (MC-06). Fails if either side changes.
#[test]
fn f23_llvm_misses_self_join_in_irreducible_cycle() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/uniformity/f23_self_join_irreducible.ll");
    let text = std::fs::read_to_string(&path).expect("example readable");
    let module = parse_module("f23.ll", &text).expect("parses");
    let result = &semantics::uniformity::analyze_module(&module)[0];
    let x = result
        .blocks
        .iter()
        .flat_map(|b| &b.definitions)
        .find(|d| d.text.starts_with("%x = "))
        .expect("%x is analysed");
    assert!(!x.divergent, "the analysis (like LLVM 22) calls %x uniform");
    assert!(result.cycles_assumed_divergent.is_empty());

    let (m, opts) = prepare(&text, "f", 2).expect("parses");
    let e = check_soundness(&m, "f", &opts).expect_err("MC-05 fails on F-23");
    assert!(e.contains("%x") && e.contains("block a"), "{e}");
    let e = check_m_convergence(&m, "f", &opts).expect_err("MC-06 fails on F-23");
    assert!(e.contains("block a"), "{e}");
}
