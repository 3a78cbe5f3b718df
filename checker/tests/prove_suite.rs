//! The spec-validation suite as an integration test: `convcheck prove` on
//! the real `proofs/` directory (every claim of CLAIMS.md against the
//! examples, through the library), and the suite's own verdict logic on
//! altered copies (a flipped expectation is a disagreement; with a recorded
//! finding it is accepted; a missing capability is never a pass).

use std::path::{Path, PathBuf};

use checker::cmd::prove::{run_suite, run_suite_jobs};
use checker::prove::{render_table, summary, Status};

fn proofs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../proofs")
}

#[test]
fn every_claim_agrees_or_links_a_finding() {
    let results = run_suite(&proofs(), None).expect("proofs/ loads");
    let table = render_table(&results, false);
    eprintln!("{table}{}", summary(&results));
    assert_eq!(results.len(), 37);
    let bad: Vec<&str> = results
        .iter()
        .filter(|r| r.status == Status::Disagrees)
        .map(|r| r.claim.id.as_str())
        .collect();
    assert!(
        bad.is_empty(),
        "claims disagree without a finding: {bad:?}\n{table}"
    );
    // A finding is only accepted where some check really disagrees, and a
    // confirmed claim has every check agreeing.
    for r in &results {
        match r.status {
            Status::Confirmed => {
                assert!(r.checks.iter().all(|(_, o, _)| o.agrees), "{}", r.claim.id)
            }
            Status::Finding => assert!(!r.claim.findings.is_empty()),
            Status::NotChecked => assert!(r.checks.iter().any(|(_, o, _)| o.not_checked)),
            Status::Disagrees => unreachable!(),
        }
    }
    // Meta-claims that run say how many programs they covered.
    for r in results.iter().filter(|r| r.claim.id.starts_with("MC-")) {
        for (_, o, _) in &r.checks {
            assert!(
                o.not_checked || o.bounds.contains("program"),
                "{}: {}",
                r.claim.id,
                o.bounds
            );
        }
    }
    // The exact suite result the README states (33 confirmed, 4 with a
    // recorded finding, 0 not checked): a claim that changes status must
    // change the README with it.
    let count = |s: Status| results.iter().filter(|r| r.status == s).count();
    assert_eq!(
        (
            count(Status::Confirmed),
            count(Status::Finding),
            count(Status::NotChecked)
        ),
        (33, 4, 0),
        "(confirmed, findings, not checked)\n{table}"
    );
}

fn copy_with(dir: &Path, id: &str, edit: &dyn Fn(&str) -> String) {
    let root = dir.parent().expect("tmp root");
    let _ = std::fs::create_dir_all(dir);
    let text = std::fs::read_to_string(proofs().join(format!("{id}.claim"))).expect("claim");
    std::fs::write(dir.join(format!("{id}.claim")), edit(&text)).expect("write");
    let findings = std::fs::read_to_string(proofs().join("FINDINGS.md")).expect("findings");
    std::fs::write(dir.join("FINDINGS.md"), findings).expect("write");
    // The claims name examples/... relative to the parent of proofs/.
    let examples = root.join("examples");
    if !examples.exists() {
        std::os::unix::fs::symlink(proofs().join("../examples"), &examples).expect("symlink");
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("convcheck-prove-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d.join("proofs")
}

#[test]
fn flipped_expectation_disagrees_and_a_finding_accepts_it() {
    let dir = tmp("flip");
    copy_with(&dir, "CL-21", &|t| {
        t.replace("expect: always", "expect: never")
    });
    let r = run_suite(&dir, None).expect("loads");
    assert_eq!(r[0].status, Status::Disagrees);
    let dir = tmp("flip-finding");
    copy_with(&dir, "CL-21", &|t| {
        t.replace("expect: always", "expect: never")
            .replace("verdict:", "finding: F-07\nverdict:")
    });
    let r = run_suite(&dir, None).expect("loads");
    assert_eq!(r[0].status, Status::Finding);
}

#[test]
fn unknown_finding_link_is_rejected() {
    let dir = tmp("link");
    copy_with(&dir, "CL-21", &|t| {
        t.replace("verdict:", "finding: F-99\nverdict:")
    });
    let e = run_suite(&dir, None).expect_err("F-99 is not recorded");
    assert!(e.message.contains("F-99 is not recorded"), "{}", e.message);
}

/// MC-07 runs in the suite (M-AGREE, `checker::agree`) and reports how many
/// generated pairs it covered and how many held.
#[test]
fn mc07_runs_and_reports_coverage() {
    let dir = tmp("mc07");
    copy_with(&dir, "MC-07", &|t| t.replace("--cases 30", "--cases 3"));
    let r = run_suite(&dir, None).expect("loads");
    assert_eq!(r[0].status, Status::Confirmed, "{:?}", r[0].checks);
    let o = &r[0].checks[0].1;
    assert_eq!(o.verdict, "holds on 3/3 programs");
    assert!(o.detail.contains("both say refines on"), "{}", o.detail);
}

/// A failing meta-claim is a disagreement unless it links its finding:
/// MC-06 on F-23's program without `finding: F-23`.
#[test]
fn failing_meta_claim_without_its_finding_disagrees() {
    let dir = tmp("mc06");
    copy_with(&dir, "MC-06", &|t| {
        t.replace("finding: F-23\n", "")
            .replace("--cases 2000", "--cases 5")
    });
    let r = run_suite(&dir, None).expect("loads");
    assert_eq!(r[0].status, Status::Disagrees);
    let (_, o, _) = &r[0].checks[1];
    assert_eq!(o.verdict, "fails");
    assert!(o.detail.contains("MC-06: block a"), "{}", o.detail);
}

#[test]
fn bad_check_arguments_are_a_disagreement_not_a_crash() {
    let dir = tmp("badarg");
    copy_with(&dir, "CL-21", &|t| {
        t.replace("--threads 2", "--threads two")
    });
    let r = run_suite(&dir, None).expect("loads");
    assert_eq!(r[0].status, Status::Disagrees);
    assert!(
        r[0].checks[0].1.verdict.starts_with("error:"),
        "{:?}",
        r[0].checks[0].1
    );
}

/// `--jobs`: claims run on several workers come back in file order with
/// the same verdicts as a sequential run (quick claims only: the run and
/// uniformity claims CL-2x and the cheap meta-claims).
#[test]
fn parallel_run_keeps_order_and_verdicts() {
    let dir = tmp("jobs");
    for id in [
        "CL-21", "CL-22", "CL-23", "CL-24", "CL-25", "MC-01", "MC-02", "MC-03",
    ] {
        copy_with(&dir, id, &|t| t.to_string());
    }
    let one = run_suite_jobs(&dir, None, 1).expect("loads");
    let two = run_suite_jobs(&dir, None, 2).expect("loads");
    let key = |r: &[checker::prove::ClaimResult]| -> Vec<(String, Status, Vec<String>)> {
        r.iter()
            .map(|c| {
                (
                    c.claim.id.clone(),
                    c.status,
                    c.checks.iter().map(|(_, o, _)| o.verdict.clone()).collect(),
                )
            })
            .collect()
    };
    assert_eq!(key(&one), key(&two));
    let ids: Vec<&str> = two.iter().map(|c| c.claim.id.as_str()).collect();
    assert_eq!(
        ids,
        ["CL-21", "CL-22", "CL-23", "CL-24", "CL-25", "MC-01", "MC-02", "MC-03"]
    );
}
