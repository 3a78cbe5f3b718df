//! The document mode and the LLVM-compatible mode disagree on a verdict
//! only where proofs/FINDINGS.md says they do (S-1: a bundle on a
//! non-convergent call counts as convergent for S-LOOP-PLACE /
//! S-ENTRY-PLACE; S-3: LLVM's S-MIX counts a lone anchor as controlled;
//! S-6: the documents' closed paths include unreachable code).
//! Any other disagreement is a new finding or a bug and fails this test.

use testgen::support::token_prog as support;

use semantics::ir::InstKind;
use semantics::rules::{verify_module, Options, Report, RuleId};

fn llvm() -> Options {
    Options {
        llvm_compatible: true,
        closed_paths: None,
    }
}

/// Whether a module has a non-convergent call carrying a bundle (S-1).
fn has_bundle_on_plain_call(m: &semantics::ir::Module) -> bool {
    m.functions.iter().any(|f| {
        f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|i| match &i.kind {
                InstKind::Call(c) => {
                    c.convergence_bundles().next().is_some()
                        && !semantics::rules::facts::is_convergent_llvm(m, c)
                }
                _ => false,
            })
    })
}

/// Whether every violation is in a block unreachable from the entry.
fn all_unreachable(m: &semantics::ir::Module, r: &Report) -> bool {
    r.violations.iter().all(|v| {
        let Some(f) = m.function(&v.function) else {
            return false;
        };
        let cfg = semantics::cfg::Cfg::from_function(f);
        let reach = semantics::rules::facts::reverse_post_order(&cfg);
        !reach.iter().any(|b| f.block_name(*b) == v.block)
    })
}

fn explained(m: &semantics::ir::Module, doc: &Report, l: &Report) -> bool {
    // S-6: the documents' closed paths include unreachable code.
    if l.is_valid()
        && all_unreachable(m, doc)
        && doc.rules().iter().all(|r| {
            matches!(
                r,
                RuleId::SCycle1 | RuleId::SCycle2 | RuleId::SCycle3 | RuleId::SCycle4
            )
        })
    {
        return true;
    }
    // S-3: LLVM rejects by S-MIX alone what the documents accept.
    if doc.is_valid() && l.rules() == vec![RuleId::SMix] {
        return true;
    }
    // S-1: the documents reject by placement rules alone, LLVM accepts.
    l.is_valid()
        && has_bundle_on_plain_call(m)
        && doc
            .rules()
            .iter()
            .all(|r| matches!(r, RuleId::SLoopPlace | RuleId::SEntryPlace))
}

#[test]
fn modes_disagree_only_as_recorded_in_findings() {
    let mut mods: Vec<semantics::ir::Module> =
        testgen::sample(&support::arb_any_token_prog(6), 1500, 9)
            .iter()
            .map(|p| p.to_module())
            .collect();
    for p in testgen::sample(&testgen::tokens::arb_token_module(6), 1500, 10) {
        mods.push(semantics::parse_module("gen.ll", &p.to_ll()).expect("generated text parses"));
    }
    let (mut s1, mut s3, mut s6) = (0, 0, 0);
    for m in &mods {
        let doc = verify_module(m, &Options::default());
        let l = verify_module(m, &llvm());
        if doc.is_valid() == l.is_valid() {
            continue;
        }
        assert!(
            explained(m, &doc, &l),
            "unexplained disagreement: documents {:?}, LLVM {:?}",
            doc.rules(),
            l.rules()
        );
        if doc.is_valid() {
            s3 += 1;
        } else if all_unreachable(m, &doc) {
            s6 += 1;
        } else {
            s1 += 1;
        }
    }
    eprintln!(
        "modes: {} modules; S-1 shapes {s1}, S-3 shapes {s3}, S-6 shapes {s6}",
        mods.len()
    );
    assert!(s3 > 0, "the sample should contain S-3 shapes");
}

/// S-REGION: the document's definition (points dominated by the definition
/// from which a use is reachable) and LLVM's live-token walk flag the same
/// functions, except where the walk does not run (S-4: S-MIX) or a cycle
/// rule is broken too (S-5: regions over back edges).
#[test]
fn s_region_definition_agrees_with_llvm_walk() {
    let progs = testgen::sample(
        &support::arb_token_prog(testgen::cfg::arb_cfg(7), false, support::Refs::Dominating),
        3000,
        3,
    );
    let others = |r: &Report| {
        r.rules().iter().any(|x| {
            matches!(
                x,
                RuleId::SCycle1
                    | RuleId::SCycle2
                    | RuleId::SCycle3
                    | RuleId::SCycle4
                    | RuleId::SMix
            )
        })
    };
    let (mut compared, mut flagged) = (0, 0);
    for p in &progs {
        let m = p.to_module();
        let d = verify_module(&m, &Options::default());
        let l = verify_module(&m, &llvm());
        if others(&d) || others(&l) {
            continue;
        }
        compared += 1;
        let dr = d.rules().contains(&RuleId::SRegion);
        flagged += usize::from(dr);
        assert_eq!(dr, l.rules().contains(&RuleId::SRegion), "{}", p.to_ll());
    }
    eprintln!("S-REGION: {compared} functions compared, {flagged} flagged by both");
    assert!(flagged > 20 && compared > 1000, "{flagged} of {compared}");
}
