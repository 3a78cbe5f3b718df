//! `convcheck validate --run-line` over LLVM's own Transforms tests in
//! ../shared/corpus/llvm/llvm/test/Transforms (issue 14, Evidence): every
//! `.ll` file with its first `; RUN: opt` line, verdict per (file, function)
//! pinned in checker/tests/data/validate_corpus.tsv. A file that does not
//! get that far is pinned with its exit status (`-` as the function): 3 bad
//! input or opt failing, 2 a construct outside the subset. `refines-unchanged`:
//! the check itself did not decide, but the pass left the function
//! unchanged, so it refines by reflexivity (R-REFL).
//!
//! Bounds: threads 1..2, 8 block visits per thread, doubled up to 256
//! where too small to settle a function (`--grow-steps 256`), input buffers
//! without `dereferenceable` of 64 bytes doubled up to 512 where the source
//! has UB on every launch (`--grow-buffers 512`), 120 s per function (the
//! README's corpus figures use the same). A counterexample pinned here must be a finding in
//! proofs/FINDINGS.md (a real miscompile) or a bug of ours; none is today.
//!
//! Skipped loudly without opt-22 or ../shared; failing under CI=true. Set
//! CONVCHECK_BLESS=1 to rewrite the data file from this run (then review
//! the diff: every change of verdict needs a reason in the commit message).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use testgen::oracle;

const DATA: &str = "tests/data/validate_corpus.tsv";

/// `--grow-steps`: a step bound too small to settle a function is doubled
/// from 8 up to this (R-BOUND; the verdict names the bound it holds for).
const GROW_STEPS: &str = "256";
/// `--grow-buffers`: input buffers without `dereferenceable` (64 bytes) of
/// a source with UB on every launch are doubled up to this (P-MEM-OBJ).
const GROW_BUFFERS: &str = "512";

/// (file, function) -> verdict for one file; `skips` are (file, function)
/// pairs left to `make validate-campaign` (too slow for the suite).
fn validate_file(
    opt: &Path,
    transforms: &Path,
    file: &Path,
    skips: &[(String, String)],
) -> Vec<(String, String, String)> {
    let rel = file
        .strip_prefix(transforms)
        .expect("file under the corpus")
        .display()
        .to_string();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_convcheck"));
    cmd.arg("validate").arg(file);
    for (_, f) in skips.iter().filter(|(f, _)| *f == rel) {
        cmd.args(["--skip-function", f]);
    }
    let out = cmd
        .args(["--run-line", "--threads", "1..2", "--max-steps", "8"])
        .args(["--grow-steps", GROW_STEPS, "--grow-buffers", GROW_BUFFERS])
        .args(["--time-limit", "120", "--json", "--opt"])
        .arg(opt)
        .output()
        .expect("convcheck runs");
    let code = out.status.code().unwrap_or(-1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{rel}: exit status {code}, output is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    if v.get("error").is_some() {
        // Under --json an error is `{"error": {...}}` on stdout: bad input
        // (3) or a construct outside the subset in a readable file (2).
        assert!(
            code == 3 || code == 2,
            "{rel}: an error with exit status {code} (only 2 or 3 may stop a file): {v}"
        );
        return vec![(rel, "-".into(), format!("exit-{code}"))];
    }
    let mut rows = Vec::new();
    for f in v["functions"].as_array().expect("functions array") {
        let name = f["name"].as_str().expect("name").to_string();
        let mut verdict = f["verdict"].as_str().expect("verdict").to_string();
        if f["reflexive"].as_bool() == Some(true) {
            // R-REFL: refines because the pass left it unchanged; the
            // check alone did not decide it (pinned apart).
            verdict = "refines-unchanged".into();
        }
        rows.push((rel.clone(), name, verdict));
    }
    for (key, what) in [
        ("removed", "removed"),
        ("added", "added"),
        ("skipped", "skipped"),
    ] {
        for n in v[key].as_array().expect("removed/added arrays") {
            rows.push((rel.clone(), n.as_str().expect("name").into(), what.into()));
        }
    }
    if rows.is_empty() {
        rows.push((rel, "-".into(), format!("exit-{code}")));
    }
    rows
}

#[test]
fn llvm_transforms_tests_validate_as_pinned() {
    let Some(opt) = oracle::opt_or_skip("llvm_transforms_tests_validate_as_pinned") else {
        return;
    };
    let Some(corpus) = oracle::corpus_or_skip("llvm_transforms_tests_validate_as_pinned") else {
        return;
    };
    let transforms = corpus.join("llvm/llvm/test/Transforms");
    let all = testgen::oracle::ll_files(&transforms);
    assert!(
        !all.is_empty(),
        "{} holds no .ll file",
        transforms.display()
    );
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let pinned_text = std::fs::read_to_string(&data).expect("the pinned data file");
    // `# skip FILE FUNCTION why`: too slow for the suite at these bounds.
    let skips: Vec<(String, String)> = pinned_text
        .lines()
        .filter_map(|l| l.strip_prefix("# skip "))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.to_string(), it.next()?.to_string()))
        })
        .collect();
    let mut got: BTreeMap<(String, String), String> = BTreeMap::new();
    for f in &all {
        for (file, func, verdict) in validate_file(&opt, &transforms, f, &skips) {
            got.insert((file, func), verdict);
        }
    }
    // The README's figures: (file, function) rows by verdict, and the
    // share of checked functions (not skipped, not removed or added by
    // the pass; a stopped file counts as one) with a verdict.
    let mut by: BTreeMap<&str, usize> = BTreeMap::new();
    for v in got.values() {
        *by.entry(v.as_str()).or_default() += 1;
    }
    let decided = by.get("refines").copied().unwrap_or(0)
        + by.get("refines-unchanged").copied().unwrap_or(0)
        + by.get("counterexample").copied().unwrap_or(0);
    let checked: usize = by
        .iter()
        .filter(|(v, _)| !matches!(**v, "skipped" | "removed" | "added"))
        .map(|(_, n)| n)
        .sum();
    eprintln!(
        "validate_corpus: {by:?}; {decided} of {checked} checked (file, function) pairs with a \
         verdict ({:.1}%)",
        100.0 * decided as f64 / checked.max(1) as f64
    );
    if std::env::var_os("CONVCHECK_BLESS").is_some() {
        let mut text: String = pinned_text
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        for ((file, func), v) in &got {
            text.push_str(&format!("{file}\t{func}\t{v}\n"));
        }
        std::fs::write(&data, text).expect("write the data file");
        return;
    }
    let mut pinned: BTreeMap<(String, String), String> = BTreeMap::new();
    for line in pinned_text.lines().filter(|l| !l.starts_with('#')) {
        let mut it = line.split('\t');
        let (Some(a), Some(b), Some(c)) = (it.next(), it.next(), it.next()) else {
            panic!("{DATA}: bad line `{line}`");
        };
        pinned.insert((a.into(), b.into()), c.into());
    }
    let mut diffs = Vec::new();
    for (k, v) in &got {
        match pinned.get(k) {
            Some(p) if p == v => {}
            Some(p) => diffs.push(format!("{} @{}: pinned {p}, now {v}", k.0, k.1)),
            None => diffs.push(format!("{} @{}: not pinned, now {v}", k.0, k.1)),
        }
    }
    for (k, p) in &pinned {
        if !got.contains_key(k) {
            diffs.push(format!("{} @{}: pinned {p}, now absent", k.0, k.1));
        }
    }
    assert!(
        diffs.is_empty(),
        "verdicts differ from {DATA}:\n{}",
        diffs.join("\n")
    );
    // A pinned counterexample is a real miscompile written up in
    // proofs/FINDINGS.md (naming the test file), never just a pinned row.
    let findings = std::fs::read_to_string(oracle::workspace_root().join("proofs/FINDINGS.md"))
        .expect("proofs/FINDINGS.md");
    for ((file, func), _) in got.iter().filter(|(_, v)| *v == "counterexample") {
        assert!(
            findings.contains(file.as_str()),
            "{file} @{func}: a counterexample that proofs/FINDINGS.md does not write up"
        );
    }
}

/// Issue 14, Performance: a file of 10 functions (LLVM's
/// FunctionAttrs/convergent.ll, its RUN line's pipeline) validated at the
/// default bounds (threads 1..4, 8 block visits) within 60 s, every
/// function given a row.
#[test]
fn ten_functions_validate_within_a_minute() {
    let Some(opt) = oracle::opt_or_skip("ten_functions_validate_within_a_minute") else {
        return;
    };
    let Some(corpus) = oracle::corpus_or_skip("ten_functions_validate_within_a_minute") else {
        return;
    };
    let file = corpus.join("llvm/llvm/test/Transforms/FunctionAttrs/convergent.ll");
    let start = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .arg("validate")
        .arg(&file)
        .args(["--run-line", "--json", "--opt"])
        .arg(&opt)
        .output()
        .expect("convcheck runs");
    let took = start.elapsed();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let rows = v["functions"].as_array().expect("functions array").len();
    assert_eq!(rows, 10, "one row per function: {v}");
    assert!(
        took < std::time::Duration::from_secs(60),
        "10 functions took {took:?}"
    );
    eprintln!("FunctionAttrs/convergent.ll: 10 functions validated in {took:?}");
}
