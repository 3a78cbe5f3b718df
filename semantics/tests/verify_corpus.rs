//! Rule S-LLVM on LLVM's own verifier tests: for each corpus file the
//! LLVM-compatible verifier prints exactly what `opt-22 -passes=verify`
//! prints (messages and value lines, in order), hence the same verdict.
//! The document mode gives the same verdict except where a recorded
//! finding says otherwise (proofs/FINDINGS.md).

use semantics::parse_module;
use semantics::rules::{render::render_llvm_lines, verify_module, Options, RuleId};
use testgen::oracle::{corpus_or_skip, opt_or_skip, verify_ll};

const FILES: &[&str] = &[
    "llvm/llvm/test/Verifier/convergencectrl-invalid.ll",
    "llvm/llvm/test/Assembler/convergence-control.ll",
];

fn opt_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| !l.ends_with("error: input module is broken!") && !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn corpus_verifier_tests_match_opt() {
    let Some(corpus) = corpus_or_skip("corpus_verifier_tests_match_opt") else {
        return;
    };
    let Some(opt) = opt_or_skip("corpus_verifier_tests_match_opt") else {
        return;
    };
    for rel in FILES {
        let path = corpus.join(rel);
        let text = std::fs::read_to_string(&path).expect("corpus file readable");
        let m = parse_module(rel, &text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let out = verify_ll(&opt, &text);
        let theirs = opt_lines(&out.stderr);
        let llvm = verify_module(
            &m,
            &Options {
                llvm_compatible: true,
                closed_paths: None,
            },
        );
        let ours = render_llvm_lines(&llvm);
        assert_eq!(
            ours, theirs,
            "{rel}: LLVM-compatible output differs from opt-22"
        );
        assert_eq!(out.success(), llvm.is_valid(), "{rel}");
        let doc = verify_module(&m, &Options::default());
        assert_eq!(doc.is_valid(), llvm.is_valid(), "{rel}: document verdict");
    }
}

/// Per function of convergencectrl-invalid.ll: the rules the document mode
/// reports, checked against what each function's name says it tests.
#[test]
fn corpus_invalid_functions_break_the_expected_rules() {
    let Some(corpus) = corpus_or_skip("corpus_invalid_functions_break_the_expected_rules") else {
        return;
    };
    let rel = FILES[0];
    let text = std::fs::read_to_string(corpus.join(rel)).expect("corpus file readable");
    let m = parse_module(rel, &text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let r = verify_module(&m, &Options::default());
    let rules_of = |f: &str| -> Vec<RuleId> {
        let mut v: Vec<RuleId> = r
            .violations
            .iter()
            .filter(|v| v.function == f)
            .map(|v| v.rule)
            .collect();
        v.sort();
        v.dedup();
        v
    };
    use RuleId::*;
    let expect: &[(&str, &[RuleId])] = &[
        // The loop is also preceded by the anchors: LLVM stops at its first check.
        ("basic_syntax", &[SAnchorBundle, SLoopBundle, SLoopPlace]),
        ("wrong_token", &[SToken]),
        // LLVM 22 accepts it; C-CONV makes a bundle convergent (finding F-1).
        ("missing.attribute", &[]),
        ("multiple_tokens", &[SToken]),
        ("multiple_bundles", &[SToken]),
        ("mixed1", &[SMix]),
        ("mixed2", &[SMix]),
        ("region_nesting1", &[SRegion]),
        ("region_nesting2", &[SRegion]),
        ("use_in_cycle", &[SCycle1]),
        ("entry_at_start", &[SEntryPlace]),
        ("entry_in_convergent", &[SEntryFunc]),
        ("loop_at_start", &[SLoopPlace, SMix]),
        ("entry_at_entry", &[SEntryPlace]),
        // %t70_tok2's region spans the loop, so it holds the use of %t70_tok1
        // but not its definition: S-REGION by the document's definition.
        ("multiple_hearts", &[SLoopPlace, SCycle3, SRegion]),
        ("multiple_hearts_nested", &[SLoopPlace, SCycle2]),
        ("invalid_heart_nested", &[SCycle4]),
        ("irreducible1", &[SCycle4]),
        ("irreducible2", &[SCycle4]),
    ];
    for (f, want) in expect {
        assert_eq!(rules_of(f), want.to_vec(), "@{f}");
    }
}
