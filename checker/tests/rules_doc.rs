//! docs/RULES.md defines every rule and claim ID the project names (issue
//! 17 item 2): the code and tests of every crate, the README, the examples,
//! the claim files, and the `--help` of every subcommand. An ID the page does
//! not define fails this test, naming the file and line.
//!
//! What counts as an ID: a rule `X-NAME...` with X one of P C S D U R M and
//! NAME starting with a letter (`S-CYCLE-1`, `D-MAX-ITER`), and a claim
//! `CL-NN` / `MC-NN`. Not IDs: finding numbers (`F-07`, and the per-area
//! finding numbers `S-1`, `U-9`, `R-2`, whose part after the dash is a
//! number). `S-CYCLE-1..4` is a range; `S-ENTRY-*` a family, which must
//! name the prefix of a defined ID, as must a claim prefix (`--only CL-1`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    testgen::oracle::workspace_root()
}

/// Placeholders in documentation and fixtures that are deliberately not
/// IDs: the claim-ID syntax (`CL-NN`, `MC-NN`, `MC-0N`), and the unknown
/// IDs tests use to check that they are rejected (claims CL-98, CL-99 in
/// the claim-format tests; S-CYCLE-5 in the rule-ID parser's test and the
/// claim-format test of `expect: invalid`).
const NOT_IDS: [&str; 6] = ["CL-NN", "MC-NN", "MC-0N", "CL-98", "CL-99", "S-CYCLE-5"];

#[derive(Debug, PartialEq, Eq)]
enum Use {
    /// One ID.
    Id(String),
    /// `PREFIX-*` or a claim-number prefix: some defined ID starts with it.
    Prefix(String),
}

fn is_id_char(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}

/// The IDs `text` names, with their 1-based line numbers.
fn uses(text: &str) -> Vec<(usize, Use)> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        let boundary = i == 0 || !(s[i - 1].is_ascii_alphanumeric() || b"_-".contains(&s[i - 1]));
        let claim = s[i..].starts_with(b"CL-") || s[i..].starts_with(b"MC-");
        let rule = b"PCSDURM".contains(&s[i]) && s.get(i + 1) == Some(&b'-');
        if !boundary || !(claim || rule) {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + if claim { 3 } else { 2 };
        // The first segment: a rule's starts with a letter (not a finding
        // number), a claim's is its number (or a placeholder).
        let first_ok = s.get(j).is_some_and(|b| {
            if claim {
                is_id_char(*b)
            } else {
                b.is_ascii_uppercase()
            }
        });
        if !first_ok {
            i += 1;
            continue;
        }
        loop {
            while j < s.len() && is_id_char(s[j]) {
                j += 1;
            }
            if !claim && s.get(j) == Some(&b'-') && s.get(j + 1).is_some_and(|b| is_id_char(*b)) {
                j += 1;
                continue;
            }
            break;
        }
        if s.get(j)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            // Part of a longer word (`MC-07x`, `S-LOOPy`).
            i = j;
            continue;
        }
        let id = String::from_utf8_lossy(&s[start..j]).into_owned();
        if s[j..].starts_with(b"-*") {
            out.push((line, Use::Prefix(format!("{id}-"))));
        } else if s[j..].starts_with(b"..") && s.get(j + 2).is_some_and(u8::is_ascii_digit) {
            // `S-CYCLE-1..4`: every ID of the range.
            let mut k = j + 2;
            while k < s.len() && s[k].is_ascii_digit() {
                k += 1;
            }
            let hi: u32 = String::from_utf8_lossy(&s[j + 2..k])
                .parse()
                .expect("digits");
            let cut = id.trim_end_matches(|c: char| c.is_ascii_digit());
            let lo: u32 = id[cut.len()..].parse().unwrap_or(hi);
            for n in lo..=hi {
                out.push((line, Use::Id(format!("{cut}{n}"))));
            }
            j = k;
        } else if claim && id.len() < 5 && id[3..].bytes().all(|b| b.is_ascii_digit()) {
            out.push((line, Use::Prefix(id)));
        } else {
            out.push((line, Use::Id(id)));
        }
        i = j;
    }
    out
}

/// The IDs docs/RULES.md defines: `- **ID**` items and the first column of
/// the claim tables.
fn defined() -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("docs/RULES.md")).expect("docs/RULES.md");
    let mut out = BTreeSet::new();
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("- **") {
            // `- **A** / **B** text` defines both.
            for part in rest.split("**").step_by(2) {
                let part = part.trim().trim_start_matches('/').trim();
                if part.is_empty() || part.contains(' ') {
                    break;
                }
                out.insert(part.to_string());
            }
        }
        if let Some(rest) = l.strip_prefix("| ") {
            let id = rest.split(" |").next().unwrap_or("").trim();
            if id.starts_with("CL-") || id.starts_with("MC-") {
                out.insert(id.to_string());
            }
        }
    }
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                files(&p, out);
            }
        } else if ["rs", "md", "ll", "claim", "sh", "toml", "py"]
            .iter()
            .any(|x| name.ends_with(&format!(".{x}")))
            || name == "Makefile"
        {
            out.push(p);
        }
    }
}

/// The `--help` text of the tool and of every subcommand.
fn helps() -> Vec<(String, String)> {
    let bin = env!("CARGO_BIN_EXE_convcheck");
    let help = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .output()
            .expect("convcheck runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let top = help(&["--help"]);
    let mut out = vec![("convcheck --help".to_string(), top.clone())];
    let commands = top
        .split("Commands:")
        .nth(1)
        .and_then(|r| r.split("\n\n").next())
        .expect("the help lists the subcommands");
    for l in commands.lines() {
        let Some(cmd) = l.split_whitespace().next() else {
            continue;
        };
        if cmd != "help" {
            out.push((format!("convcheck {cmd} --help"), help(&[cmd, "--help"])));
        }
    }
    assert!(out.len() >= 8, "subcommands found: {}", out.len());
    out
}

fn check(defined: &BTreeSet<String>, place: &str, text: &str, bad: &mut Vec<String>) {
    for (line, u) in uses(text) {
        let ok = match &u {
            Use::Id(id) => defined.contains(id) || NOT_IDS.contains(&id.as_str()),
            Use::Prefix(p) => defined.iter().any(|d| d.starts_with(p.as_str())),
        };
        if !ok {
            bad.push(format!("{place}:{line}: {u:?}"));
        }
    }
}

#[test]
fn every_id_the_project_names_is_defined() {
    let defined = defined();
    assert!(
        defined.len() > 80,
        "docs/RULES.md defines {}",
        defined.len()
    );
    let root = root();
    let mut list = Vec::new();
    for d in [
        "checker",
        "semantics",
        "testgen",
        "fuzz",
        "examples",
        "proofs",
        "scripts",
    ] {
        files(&root.join(d), &mut list);
    }
    list.push(root.join("README.md"));
    list.push(root.join("Makefile"));
    let mut bad = Vec::new();
    let mut scanned = 0;
    for f in &list {
        // This file spells wrong IDs on purpose (the scanner's test).
        if f.ends_with("checker/tests/rules_doc.rs") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        scanned += 1;
        let place = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        check(&defined, &place, &text, &mut bad);
    }
    assert!(scanned > 100, "only {scanned} files scanned");
    let helps = helps();
    // Users are pointed to the page, not to files outside the repository.
    assert!(helps[0].1.contains("docs/RULES.md"), "{}", helps[0].1);
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    assert!(readme.contains("docs/RULES.md") && !readme.contains("shared/SEMANTICS.md"));
    for (place, text) in helps {
        check(&defined, &place, &text, &mut bad);
    }
    assert!(
        bad.is_empty(),
        "IDs used but not defined in docs/RULES.md:\n{}",
        bad.join("\n")
    );
}

/// Every claim file names a claim of the page, and every claim of the page
/// has its file.
#[test]
fn claims_and_claim_files_match() {
    let defined = defined();
    let mut files: BTreeSet<String> = BTreeSet::new();
    for e in std::fs::read_dir(root().join("proofs"))
        .expect("proofs/")
        .flatten()
    {
        let n = e.file_name().to_string_lossy().into_owned();
        if let Some(id) = n.strip_suffix(".claim") {
            files.insert(id.to_string());
        }
    }
    let claims: BTreeSet<String> = defined
        .iter()
        .filter(|d| d.starts_with("CL-") || d.starts_with("MC-"))
        .cloned()
        .collect();
    assert_eq!(
        files, claims,
        "proofs/*.claim vs the claims of docs/RULES.md"
    );
}

/// The scanner itself, on the forms the page explains.
#[test]
fn scanner_reads_ranges_families_and_skips_finding_numbers() {
    let u = uses("S-CYCLE-1..3, S-ENTRY-*, D-MAX-ITER; F-07 (S-1) U-9 CL-12 --only CL-1\nMC-07.");
    let want = vec![
        (1, Use::Id("S-CYCLE-1".into())),
        (1, Use::Id("S-CYCLE-2".into())),
        (1, Use::Id("S-CYCLE-3".into())),
        (1, Use::Prefix("S-ENTRY-".into())),
        (1, Use::Id("D-MAX-ITER".into())),
        (1, Use::Id("CL-12".into())),
        (1, Use::Prefix("CL-1".into())),
        (2, Use::Id("MC-07".into())),
    ];
    assert_eq!(u, want);
    // A typo is an ID the page does not define.
    let mut bad = Vec::new();
    check(&defined(), "x", "rule D-MAXX and S-CYCLE-6", &mut bad);
    assert_eq!(bad.len(), 2, "{bad:?}");
}
