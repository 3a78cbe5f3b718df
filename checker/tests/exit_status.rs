//! The project-wide exit-status scheme (`checker::cli::Exit`, README "Exit
//! status"): the README table and `--help` list it, usage errors are bad
//! input (3, not clap's 2), standard input is read for `-`, errors under
//! `--json` are JSON on stdout, and a panic exits 70 with one paragraph.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use checker::cli::{Exit, EXIT_HELP};

fn convcheck(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_convcheck"));
    c.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("RUST_BACKTRACE");
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().expect("convcheck starts");
    if let Some(mut i) = child.stdin.take() {
        // The child may exit before reading (a usage error): ignore EPIPE.
        let _ = i.write_all(stdin.as_bytes());
    }
    child.wait_with_output().expect("convcheck ends")
}

fn status(o: &Output) -> Option<Exit> {
    o.status.code().and_then(Exit::from_code)
}

#[test]
fn readme_table_lists_every_status() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    for e in Exit::ALL {
        let row = format!("| {} | {} |", e.code(), e.meaning());
        assert!(readme.contains(&row), "README lacks the row {row}");
    }
}

#[test]
fn every_help_ends_with_the_table() {
    for sub in [
        vec!["--help"],
        vec!["-h"],
        vec!["parse", "--help"],
        vec!["cycles", "--help"],
        vec!["verify", "--help"],
        vec!["run", "--help"],
        vec!["uniformity", "--help"],
        vec!["refine", "--help"],
        vec!["prove", "--help"],
        vec!["demo", "-h"],
    ] {
        let o = convcheck(&sub, "", &[]);
        assert_eq!(status(&o), Some(Exit::Ok), "{sub:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(EXIT_HELP), "{sub:?}:\n{out}");
    }
}

#[test]
fn usage_errors_are_bad_input() {
    let o = convcheck(&["run", "--no-such-flag", "x.ll"], "", &[]);
    assert_eq!(status(&o), Some(Exit::BadInput));
    let o = convcheck(&["frobnicate"], "", &[]);
    assert_eq!(status(&o), Some(Exit::BadInput));
}

#[test]
fn stdin_and_json_errors() {
    let valid = "define void @f() {\nentry:\n  ret void\n}\n";
    for sub in ["parse", "cycles", "verify", "uniformity"] {
        let o = convcheck(&[sub, "-"], valid, &[]);
        assert_eq!(status(&o), Some(Exit::Ok), "{sub}: {o:?}");
    }
    let o = convcheck(&["run", "-", "--threads", "1"], valid, &[]);
    assert_eq!(status(&o), Some(Exit::Ok), "{o:?}");

    let bad = "define void @f() {\nentry:\n  ret i32 %nope(\n}\n";
    let o = convcheck(&["parse", "-"], bad, &[]);
    assert_eq!(status(&o), Some(Exit::BadInput));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("<stdin>:3:"), "{err}");
    assert!(err.contains(": error: "), "{err}");
    assert!(
        err.contains("ret i32 %nope(") && err.contains('^'),
        "source line and caret:\n{err}"
    );

    for sub in ["verify", "uniformity", "run", "refine"] {
        let mut args = vec![sub, "--json", "-"];
        if sub == "refine" {
            args.push("-");
        }
        let o = convcheck(&args, bad, &[]);
        assert_eq!(status(&o), Some(Exit::BadInput), "{sub}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{sub}: stdout is not JSON ({e}): {o:?}"));
        assert_eq!(v["error"]["status"], 3, "{sub}: {v}");
        assert_eq!(v["error"]["line"], 3, "{sub}: {v}");
        assert_eq!(v["error"]["file"], "<stdin>", "{sub}: {v}");
    }
}

#[test]
fn a_panic_exits_70_with_one_paragraph() {
    let o = convcheck(
        &["parse", "whatever.ll"],
        "",
        &[("CONVCHECK_INTERNAL_TEST_PANIC", "1")],
    );
    assert_eq!(status(&o), Some(Exit::Internal), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("internal error in convcheck: "), "{err}");
    assert!(
        err.contains("please report it with the input file"),
        "{err}"
    );
    assert!(err.contains("parse whatever.ll"), "the command line: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one paragraph: {err}");
}

#[test]
fn unsupported_constructs_are_named_as_llvm_spells_them() {
    // Vectors are modelled (P-VEC); aggregates other than `cmpxchg`'s
    // result are not.
    let text = "define {i32, i32} @f(i32 %a) {\nentry:\n  %x = insertvalue {i32, i32} undef, i32 %a, 0\n  ret {i32, i32} %x\n}\n";
    let o = convcheck(&["run", "-", "--threads", "1"], text, &[]);
    assert_eq!(status(&o), Some(Exit::NoVerdict), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("`insertvalue`"), "{err}");
    assert!(!err.contains("InsertValue"), "a Rust name: {err}");
}
