//! The example programs of CLAIMS.md (CL-07 .. CL-10) in `examples/`: each
//! file's header states the expected verdict, the rules it breaks (document
//! mode) and LLVM 22's verdict; this harness checks all three (and that the
//! LLVM-compatible output equals opt-22's when opt-22 is available). A file
//! without the three annotations is an error, not a skip.

use std::collections::BTreeSet;
use std::path::PathBuf;

use semantics::parse_module;
use semantics::rules::{render::render_llvm_lines, verify_module, Options};
use testgen::oracle::{find_opt, verify_ll, workspace_root};

struct Expect {
    valid: bool,
    rules: BTreeSet<String>,
    llvm_valid: bool,
}

fn header(text: &str, key: &str) -> Option<String> {
    text.lines()
        .take_while(|l| l.starts_with(';') || l.trim().is_empty())
        .find_map(|l| l.strip_prefix(&format!("; {key}:")))
        .map(|s| s.trim().to_string())
}

fn verdict(s: &str, file: &str) -> bool {
    match s {
        "valid" => true,
        "rejected" => false,
        other => panic!("{file}: verdict must be valid or rejected, not {other:?}"),
    }
}

fn expectations(text: &str, file: &str) -> Expect {
    let get = |k: &str| header(text, k).unwrap_or_else(|| panic!("{file}: missing `; {k}:`"));
    Expect {
        valid: verdict(&get("expect-verdict"), file),
        rules: get("expect-rules")
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty() && s != "none")
            .collect(),
        llvm_valid: verdict(&get("expect-llvm-22"), file),
    }
}

fn example_files() -> Vec<PathBuf> {
    let dir = workspace_root().join("examples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "ll")
                && p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                    n.starts_with("cl07")
                        || n.starts_with("cl08")
                        || n.starts_with("cl09")
                        || n.starts_with("cl10")
                })
        })
        .collect();
    v.sort();
    v
}

#[test]
fn examples_cl07_to_cl10_have_the_stated_verdicts() {
    let files = example_files();
    assert_eq!(
        files.len(),
        4,
        "expected the CL-07..CL-10 examples: {files:?}"
    );
    let opt = find_opt();
    for path in files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("example readable");
        let want = expectations(&text, &name);
        let m = parse_module(&name, &text).unwrap_or_else(|e| panic!("{e}"));
        let doc = verify_module(&m, &Options::default());
        let got: BTreeSet<String> = doc.rules().iter().map(|r| r.to_string()).collect();
        assert_eq!(doc.is_valid(), want.valid, "{name}: document verdict");
        assert_eq!(got, want.rules, "{name}: rules broken");
        let llvm = verify_module(
            &m,
            &Options {
                llvm_compatible: true,
                closed_paths: None,
            },
        );
        assert_eq!(
            llvm.is_valid(),
            want.llvm_valid,
            "{name}: LLVM-compatible verdict"
        );
        // The brute-force closed-path check agrees on every example (MC-03).
        let paths = verify_module(
            &m,
            &Options {
                llvm_compatible: false,
                closed_paths: Some(16),
            },
        );
        let got_paths: BTreeSet<String> = paths.rules().iter().map(|r| r.to_string()).collect();
        assert_eq!(got_paths, want.rules, "{name}: closed-path rules");
        match &opt {
            Some(opt) => {
                let out = verify_ll(opt, &text);
                assert_eq!(out.success(), want.llvm_valid, "{name}: opt-22 verdict");
                let theirs: Vec<String> = out
                    .stderr
                    .lines()
                    .filter(|l| !l.ends_with("error: input module is broken!") && !l.is_empty())
                    .map(str::to_string)
                    .collect();
                assert_eq!(render_llvm_lines(&llvm), theirs, "{name}: output vs opt-22");
            }
            None => eprintln!("*** SKIP opt-22 comparison for {name}: opt-22 not found ***"),
        }
    }
}
