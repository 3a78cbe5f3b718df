//! Issue 17 item 4: inputs are checked, never reinterpreted. Every typo in
//! a numeric option or an `--exists` reference is an error naming the
//! problem (bad-input status), not a silent `Never` or a wrapped value; a
//! bounded `verify --closed-paths N` names its bound.

use std::process::{Command, Output};

use checker::cli::Exit;
use checker::cmd::refine::{parse_threads, MAX_THREADS};

fn convcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(args)
        .current_dir(testgen::oracle::workspace_root())
        .output()
        .expect("convcheck runs")
}

const CL05: &str = "examples/interp/cl05-exit-loop-token.ll";

/// `convcheck run CL05 EXTRA...` fails with the bad-input status and a
/// message containing every one of `needles`.
fn rejected(extra: &[&str], needles: &[&str]) {
    let mut a = vec!["run", CL05];
    a.extend_from_slice(extra);
    let out = convcheck(&a);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(i32::from(Exit::BadInput.code())),
        "{extra:?}: stdout {} stderr {err}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty(), "{extra:?}: printed a result");
    for n in needles {
        assert!(err.contains(n), "{extra:?}: `{n}` not in `{err}`");
    }
}

#[test]
fn exists_references_are_checked_against_the_module_and_launch() {
    rejected(
        &["--exists", "t0@subgroupBalot ~ t1@subgroupBallot"],
        &["--exists", "no function @subgroupBalot"],
    );
    rejected(
        &["--exists", "t2@subgroupBallot ~ t1@subgroupBallot"],
        &["thread 2 does not exist", "2 threads"],
    );
    rejected(
        &[
            "--exists",
            "t0@subgroupBallot[99999999999999999999] ~ t1@subgroupBallot",
        ],
        &["99999999999999999999", "too large"],
    );
    rejected(&["--exists", "exists(t0%Q)"], &["block %Q"]);
    rejected(
        &["--exists", "t0@subgroupBallot == 99999999999999999999999"],
        &["does not fit", "i32"],
    );
    // The same references, spelled right, still answer.
    let ok = convcheck(&[
        "run",
        CL05,
        "--threads",
        "3",
        "--exists",
        "t2@subgroupBallot ~ t1@subgroupBallot && exists(t0%C)",
    ]);
    assert!(
        ok.status.code() == Some(0) || ok.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

#[test]
fn values_that_do_not_fit_the_parameter_type_are_rejected() {
    // CL-05's kernel takes `i32 %n`.
    rejected(
        &["--domain", "99999999999999999999999"],
        &["--domain", "does not fit i32", "%n"],
    );
    rejected(
        &["--arg", "n=99999999999999999999999"],
        &["--arg n", "does not fit i32"],
    );
    rejected(&["--arg", "n=0,4294967296"], &["4294967296", "i32"]);
    rejected(&["--arg", "n=-2147483649"], &["i32"]);
    // Both readings of a 32-bit literal are accepted, as LLVM does.
    for v in ["n=4294967295", "n=-2147483648"] {
        let out = convcheck(&["run", CL05, "--threads", "1", "--arg", v]);
        assert_eq!(
            out.status.code(),
            Some(i32::from(Exit::Ok.code())),
            "{v}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn counts_are_validated() {
    rejected(&["--groups", "0"], &["--groups 0", "between 1"]);
    rejected(&["--groups", "3"], &["--groups 3", "(2)"]);
    rejected(
        &["--threads", "4", "--groups", "3"],
        &["--groups 3", "make 2 groups"],
    );
    rejected(&["--threads", "0"], &["--threads 0"]);
    rejected(&["--max-steps", "0"], &["--max-steps 0"]);
    rejected(&["--max-executions", "0"], &["--max-executions 0"]);
    rejected(&["--random", "1", "--runs", "0"], &["--runs 0"]);
    // --runs without --random would be ignored: clap refuses it.
    let out = convcheck(&["run", CL05, "--runs", "5"]);
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--random"));
    // Accepted splits: 3 threads in 2 groups ({0,1},{2}), 2 in 2.
    for (t, g) in [("3", "2"), ("2", "2")] {
        let out = convcheck(&["run", CL05, "--threads", t, "--groups", g]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{t}/{g}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn refine_thread_limit_is_named() {
    let e = parse_threads("65").expect_err("over the limit");
    assert!(e.contains("at most 64"), "{e}");
    assert_eq!(MAX_THREADS, 64);
    let e = parse_threads("1..99999999999").expect_err("huge range");
    assert!(e.contains("99999999999 threads"), "{e}");
    let e = parse_threads("0").expect_err("no threads");
    assert!(e.contains("at least one thread"), "{e}");
    assert_eq!(parse_threads("64").ok(), Some(vec![64]));
    let help = convcheck(&["refine", "--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("between 1 and 64"));
}

/// MC-03's oracle is bounded: a `valid` under `--closed-paths N` names N.
#[test]
fn closed_paths_verdict_names_its_bound() {
    let out = convcheck(&[
        "verify",
        "examples/cl08-two-ops-outer-anchor.ll",
        "--closed-paths",
        "3",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(": valid"), "{text}");
    assert!(
        text.contains("closed paths of at most 3 edges") && text.contains("not checked"),
        "{text}"
    );
    let json = convcheck(&[
        "verify",
        "examples/cl08-two-ops-outer-anchor.ll",
        "--closed-paths",
        "3",
        "--json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(j["bound"]["closed_paths"], 3);
    // Without the bound, the hierarchy finds CL-08's violations.
    let full = convcheck(&["verify", "examples/cl08-two-ops-outer-anchor.ll"]);
    assert_eq!(full.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&full.stdout).contains("bound:"));
    let zero = convcheck(&[
        "verify",
        "examples/cl08-two-ops-outer-anchor.ll",
        "--closed-paths",
        "0",
    ]);
    assert!(!zero.status.success() && zero.stdout.is_empty());
    assert!(String::from_utf8_lossy(&zero.stderr).contains("--closed-paths"));
}

/// P-FLOAT: a `--arg` value of a floating-point parameter is an LLVM float
/// literal, read as LLParser reads one (exactly representable or
/// rejected), and printed back as `run` prints floats; an integer there is
/// the number, never a bit pattern (`--arg x=1` once ran as 1.4e-45).
#[test]
fn float_arguments_are_float_literals() {
    let dir = std::env::temp_dir().join(format!("convcheck-float-arg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("k.ll");
    std::fs::write(
        &file,
        "define void @k(float %x, double %d, half %h) convergent {\n\
         entry:\n  %c = fcmp olt float %x, 2.0\n  br i1 %c, label %a, label %b\n\
         a:\n  ret void\nb:\n  ret void\n}\n",
    )
    .expect("write kernel");
    let f = file.to_str().expect("utf-8 temp path");
    let run = |extra: &[&str]| {
        let mut a = vec!["run", f, "--threads", "2"];
        a.extend_from_slice(extra);
        convcheck(&a)
    };
    let out = run(&[
        "--arg",
        "x=1,0x3FF8000000000000",
        "--arg",
        "d=-2.5e+0",
        "--arg",
        "h=0xH3C00",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("%x = [1.000000e+00, 1.500000e+00]"), "{text}");
    assert!(
        text.contains("%d = [-2.500000e+00, -2.500000e+00]"),
        "{text}"
    );
    assert!(text.contains("%h = [0xH3C00, 0xH3C00]"), "{text}");
    // Both threads take `a` (x < 2.0): one behaviour, one execution.
    assert!(text.contains("distinct behaviours: 1"), "{text}");
    for (arg, needles) in [
        (
            "x=0.1",
            &["not exactly representable as float", "0x3FB99999A0000000"][..],
        ),
        ("x=abc", &["`abc` is not a float literal"][..]),
        ("h=1.0e-9", &["not exactly representable as half"][..]),
        ("d=1,2,3", &["3 values for 2 threads"][..]),
    ] {
        let out = run(&["--arg", arg]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(i32::from(Exit::BadInput.code())),
            "{arg}: {err}"
        );
        for n in needles {
            assert!(err.contains(n), "{arg}: `{n}` not in `{err}`");
        }
    }
    let out = convcheck(&["run", CL05, "--arg", "n=1.5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`1.5` is not an integer"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
