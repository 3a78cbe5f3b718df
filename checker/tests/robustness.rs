//! Regression inputs found by the fuzzer (`make fuzz`, crate
//! `convcheck-fuzz`): each file under `tests/data/robustness` starts with
//! `; EXPECT: STATUS TEXT`; every subcommand reading it must exit with
//! STATUS (never a signal, 101 or 70) and say TEXT on stderr.

use std::process::{Command, Stdio};

#[test]
fn fuzzer_findings_stay_fixed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/robustness");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/data/robustness")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 7,
        "regression inputs missing in {}",
        dir.display()
    );
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let expect = text
            .lines()
            .find_map(|l| l.strip_prefix("; EXPECT: "))
            .unwrap_or_else(|| panic!("{}: no `; EXPECT:` line", f.display()));
        let (status, message) = expect.split_once(' ').expect("STATUS TEXT");
        let status: i32 = status.parse().expect("numeric status");
        for sub in [
            vec!["parse"],
            vec!["verify"],
            vec!["verify", "--llvm-compatible"],
            vec!["cycles"],
            vec!["uniformity"],
            vec!["run", "--threads", "2", "--max-steps", "40"],
        ] {
            let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
                .args(&sub)
                .arg(&f)
                .stdin(Stdio::null())
                .output()
                .expect("convcheck runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(status),
                "{} {sub:?}: {err}",
                f.display()
            );
            assert!(err.contains(message), "{} {sub:?}: {err}", f.display());
        }
    }
}
