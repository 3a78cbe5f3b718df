//! The claim-file format of `proofs/` (checker/src/prove/format.rs):
//! well-formed files parse to the fields they state; malformed files and
//! unknown fields are rejected with the right `file:line`.

use std::path::Path;

use checker::prove::format::{parse_claim, split_words, Expect, Kind, RefineExpect};
use semantics::machine::query::Answer;
use semantics::rules::RuleId;

const GOOD: &str = "\
# comment
claim: CL-99
source: CO \"Somewhere\"
statement: A statement that
  continues here.
verdict: forbidden
finding: F-01

check: refine a.src.ll a.tgt.ll --threads 2
expect: counterexample
check: run x.ll --exists \"t0@op ~ t1@op\"
expect: sometimes
";

fn parse(text: &str) -> Result<checker::prove::format::Claim, String> {
    parse_claim(Path::new("proofs/CL-99.claim"), text).map_err(|e| e.to_string())
}

#[test]
fn well_formed_file_parses_every_field() {
    let c = parse(GOOD).expect("parses");
    assert_eq!(c.id, "CL-99");
    assert_eq!(c.statement, "A statement that continues here.");
    assert_eq!(c.findings, vec!["F-01".to_string()]);
    assert_eq!(c.checks.len(), 2);
    assert_eq!(c.checks[0].kind, Kind::Refine);
    assert_eq!(c.checks[0].line, 9);
    assert_eq!(c.checks[0].args, ["a.src.ll", "a.tgt.ll", "--threads", "2"]);
    assert_eq!(c.checks[1].args, ["x.ll", "--exists", "t0@op ~ t1@op"]);
    assert_eq!(
        c.checks[0].expect,
        Expect::Refine(RefineExpect::Counterexample)
    );
    assert_eq!(c.checks[1].expect, Expect::Exists(Answer::Sometimes));
}

/// `expect` values are typed when the file is read: `verify`'s rule list is
/// made of rule IDs (a misspelled one is a format error at its line, not a
/// check that silently never agrees), and prints back as written.
#[test]
fn verify_expectations_are_rule_ids() {
    let file = |expect: &str| {
        GOOD.replace(
            "check: refine a.src.ll a.tgt.ll --threads 2\nexpect: counterexample\n",
            &format!("check: verify a.ll\nexpect: {expect}\n"),
        )
    };
    let c = parse(&file("invalid S-CYCLE-1, S-LOOP-BUNDLE")).expect("parses");
    assert_eq!(
        c.checks[0].expect,
        Expect::InvalidRules(vec![RuleId::SCycle1, RuleId::SLoopBundle])
    );
    assert_eq!(
        c.checks[0].expect.to_string(),
        "invalid S-CYCLE-1,S-LOOP-BUNDLE"
    );
    assert_eq!(
        parse(&file("invalid")).expect("parses").checks[0].expect,
        Expect::InvalidRules(vec![])
    );
    let e = parse(&file("invalid S-CYCLE-5")).expect_err("unknown rule");
    assert!(
        e.starts_with("proofs/CL-99.claim:10: `invalid S-CYCLE-5`: unknown rule ID"),
        "{e}"
    );
    let e = parse(&file("invalidate")).expect_err("not a verdict");
    assert!(
        e.contains("`invalidate` is not a verdict of a `verify` check"),
        "{e}"
    );
}

/// Each mutation of GOOD and the `file:line: message` prefix it must give.
#[test]
fn malformed_files_are_rejected_with_file_and_line() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "verdict: forbidden\n",
            "verdict: forbidden\nseverity: high\n",
            "proofs/CL-99.claim:7: unknown field `severity`",
        ),
        (
            "verdict: forbidden\n",
            "verdict forbidden\n",
            "proofs/CL-99.claim:6: expected `key: value`",
        ),
        (
            "verdict: forbidden\n",
            "verdict: forbidden\nverdict: allowed\n",
            "proofs/CL-99.claim:7: `verdict` given twice",
        ),
        (
            "expect: counterexample\n",
            "expect: maybe\n",
            "proofs/CL-99.claim:10: `maybe` is not a verdict of a `refine` check",
        ),
        (
            "check: refine a.src.ll a.tgt.ll --threads 2\nexpect: counterexample\n",
            "expect: counterexample\n",
            "proofs/CL-99.claim:9: `expect` without a preceding `check`",
        ),
        (
            "expect: counterexample\ncheck",
            "check",
            "proofs/CL-99.claim:10: the check of line 9 has no `expect`",
        ),
        (
            "check: refine",
            "check: prove",
            "proofs/CL-99.claim:9: unknown check kind `prove`",
        ),
        (
            "claim: CL-99\n",
            "claim: CL-99x\n",
            "proofs/CL-99.claim:2: bad claim ID",
        ),
        (
            "finding: F-01\n",
            "finding: bug\n",
            "proofs/CL-99.claim:7: bad finding ID",
        ),
        (
            "source: CO \"Somewhere\"\n",
            "",
            "proofs/CL-99.claim:11: missing `source`",
        ),
        (
            "# comment\n",
            "  dangling\n",
            "proofs/CL-99.claim:1: continuation line before any key",
        ),
        (
            "--exists \"t0@op ~ t1@op\"",
            "\"t0@op",
            "proofs/CL-99.claim:11: unterminated double quote",
        ),
        (
            "x.ll --exists",
            "x.ll --exist",
            "proofs/CL-99.claim:11: a `run` check needs `--exists CONDITION`",
        ),
        (
            "verdict: forbidden\n",
            "verdict:\n",
            "proofs/CL-99.claim:6: `verdict` has an empty value",
        ),
    ];
    for (from, to, want) in cases {
        assert!(GOOD.contains(from), "mutation source `{from}` not in GOOD");
        let text = GOOD.replacen(from, to, 1);
        let got = parse(&text).expect_err(&format!("accepted:\n{text}"));
        assert!(
            got.starts_with(want),
            "got `{got}`, want `{want}...` for\n{text}"
        );
    }
}

#[test]
fn claim_id_must_match_the_file_name() {
    let e = parse_claim(Path::new("proofs/CL-98.claim"), GOOD).expect_err("mismatch");
    assert_eq!(e.line, 1);
    assert!(e.message.contains("CL-98"), "{e}");
}

#[test]
fn no_checks_is_rejected() {
    let text: String = GOOD.lines().take(7).map(|l| format!("{l}\n")).collect();
    let e = parse(&text).expect_err("no checks");
    assert!(e.ends_with("no `check`"), "{e}");
}

#[test]
fn words_split_on_spaces_and_keep_quotes() {
    assert_eq!(
        split_words("a  \"b c\" d\"e\"").expect("splits"),
        vec!["a", "b c", "de"]
    );
    assert!(split_words("\"open").is_err());
}

/// Every claim file of the real proofs/ directory is well-formed, one per
/// claim of CLAIMS.md, and every finding it links is recorded.
#[test]
fn real_proofs_directory_is_well_formed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../proofs");
    let claims = checker::cmd::prove::load(&dir).expect("proofs/ is well-formed");
    let ids: Vec<&str> = claims.iter().map(|c| c.id.as_str()).collect();
    let mut want: Vec<String> = (1..=30).map(|n| format!("CL-{n:02}")).collect();
    want.extend((1..=7).map(|n| format!("MC-{n:02}")));
    assert_eq!(ids, want);
}

/// Every finding names its class (FINDINGS.md's introduction): the real
/// ledger passes, and each kind of bad heading is rejected with its line.
#[test]
fn findings_need_a_known_class() {
    use checker::prove::check_finding_classes;
    let ledger = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../proofs/FINDINGS.md"),
    )
    .expect("FINDINGS.md readable");
    assert_eq!(check_finding_classes(&ledger), Ok(()));
    let good = "### F-01 (S-1) Title (LLVM divergence, document ambiguity)\n\
                ### F-02 Title (tool bug, fixed by test x)\n\
                ### F-03 Title (our limitation: bound)\n";
    assert_eq!(check_finding_classes(good), Ok(()));
    for (bad, why) in [
        ("### F-04 (U-6) Title without class\n", "no class"),
        (
            "### F-05 Title (bound, not a disagreement)\n",
            "none of the known",
        ),
        ("### F-06 Title (tool bug)\n", "`fixed` or `open`"),
    ] {
        let e = check_finding_classes(&format!("{good}{bad}")).expect_err(bad);
        assert!(e.contains("FINDINGS.md:4:") && e.contains(why), "{e}");
    }
}
