//! `convcheck run` through its clap arguments (the subcommand wiring in
//! main.rs is the integrator's): option parsing, exit codes, and that the
//! examples run.

use clap::Parser;

use checker::cli::Exit;
use checker::cmd::run::{options, run, Args};

#[derive(Parser)]
struct Wrap {
    #[command(flatten)]
    args: Args,
}

fn args(list: &[&str]) -> Args {
    let mut v = vec!["run"];
    v.extend_from_slice(list);
    Wrap::try_parse_from(v).expect("arguments parse").args
}

fn example(name: &str) -> String {
    format!("{}/../examples/interp/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn defaults_and_per_thread_arguments() {
    let a = args(&["x.ll"]);
    assert_eq!((a.threads, a.groups), (2, 1));
    let o = options(&args(&[
        "x.ll",
        "--threads",
        "3",
        "--arg",
        "n=0,1,1",
        "--arg",
        "m=4",
    ]))
    .expect("options");
    assert_eq!(o.threads, 3);
    assert_eq!(
        format!("{:?}", o.args),
        r#"{"m": Uniform(4), "n": PerThread([0, 1, 1])}"#
    );
    assert!(
        options(&args(&["x.ll", "--arg", "n=0,1,1"])).is_err(),
        "3 values for 2 threads"
    );
    assert!(options(&args(&["x.ll", "--arg", "n"])).is_err());
}

#[test]
fn exists_answers_set_the_exit_status() {
    let f = example("cl05-exit-loop-token.ll");
    let sometimes = args(&[&f, "--exists", "t0@subgroupBallot ~ t1@subgroupBallot"]);
    assert_eq!(run(&sometimes).expect("runs"), Exit::Ok);
    let never = args(&[
        &f,
        "--exists",
        "t0@subgroupBallot == 3 && t1@subgroupBallot == 5",
    ]);
    assert_eq!(run(&never).expect("runs"), Exit::Negative);
    let bad = args(&[&f, "--exists", "t0@"]);
    assert_eq!(run(&bad).expect_err("bad condition").status, Exit::BadInput);
}

#[test]
fn examples_run_in_every_mode() {
    for f in [
        "cl21-maximal-convergence.ll",
        "cl22-nested-irreducible.ll",
        "cl25-convergence-order.ll",
        "cl05-exit-entry-token.ll",
    ] {
        let f = example(f);
        assert_eq!(run(&args(&[&f, "--threads", "3"])).expect("runs"), Exit::Ok);
        assert_eq!(run(&args(&[&f, "--json"])).expect("runs"), Exit::Ok);
    }
    let f = example("cl21-maximal-convergence.ll");
    assert_eq!(
        run(&args(&[
            &f,
            "--uncontrolled",
            "inferred",
            "--random",
            "3",
            "--runs",
            "5"
        ]))
        .expect("runs"),
        Exit::Ok
    );
    let missing = args(&["/nonexistent.ll"]);
    assert_eq!(run(&missing).expect_err("no file").status, Exit::BadInput);
}

/// CL-07: rejected by the static rules unless `--no-verify`, which shows the
/// contradiction the dynamic rules derive.
#[test]
fn verification_gate_and_no_verify() {
    let dir = std::env::temp_dir().join(format!("convcheck-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join("cl07.ll");
    std::fs::write(
        &f,
        "define void @k() {\nentry:\n  %anchor = call token @llvm.experimental.convergence.anchor()\n  br label %loop\nloop:\n  %x = call i32 @subgroupBallot(i1 true) [ \"convergencectrl\"(token %anchor) ]\n  br label %loop\n}\ndeclare token @llvm.experimental.convergence.anchor()\ndeclare i32 @subgroupBallot(i1) convergent\n",
    )
    .expect("write");
    let f = f.display().to_string();
    // A program breaking a static rule where a valid one is required is
    // bad input (3) in the project-wide scheme, not a negative verdict.
    assert_eq!(
        run(&args(&[&f])).expect_err("rejected").status,
        Exit::BadInput
    );
    assert_eq!(
        run(&args(&[&f, "--no-verify", "--exists", "contradiction"])).expect("runs"),
        Exit::Ok
    );
}

/// The README's `--exists` grammar is the one `run --help` prints
/// (`semantics::machine::query::HELP`), line for line from `COND :=` to
/// `VALUE :=` (indentation aside): a new atom must be documented in both.
#[test]
fn readme_exists_grammar_is_the_help_grammar() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"),
    )
    .expect("README.md");
    let grammar = |text: &str| -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.trim_start().starts_with("COND  :="))
            .expect("a `COND  :=` line");
        lines[start..]
            .iter()
            .take_while(|l| !l.trim().is_empty() && !l.starts_with("```"))
            .map(|l| l.trim().to_string())
            .take_while(|l| !l.starts_with("A REF"))
            .collect()
    };
    let help = grammar(semantics::machine::query::HELP);
    assert!(help.len() >= 10, "{help:?}");
    assert_eq!(grammar(&readme), help);
}

/// Issue 13: `run` names the calls it treats as unknown functions (not in
/// the intrinsic table) in its report (text and JSON), and not the table's
/// builtins;
/// `--subgroup-size` must divide the group size (bad input, exit 3).
#[test]
fn unknown_calls_are_listed_and_subgroup_size_is_checked() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("run_unknown_calls.ll");
    std::fs::write(
        &file,
        "define void @k() {\nentry:\n  %a = call i64 @_Z12get_local_idj(i32 0)\n  %b = call i32 @mystery(i64 %a)\n  %c = call i32 @conv(i64 %a) convergent\n  ret void\n}\ndeclare i64 @_Z12get_local_idj(i32)\ndeclare i32 @mystery(i64) memory(none)\ndeclare i32 @conv(i64) convergent\n",
    )
    .expect("temporary file written");
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_convcheck"))
            .arg("run")
            .arg(&file)
            .args(extra)
            .output()
            .expect("convcheck runs")
    };
    let o = run(&["--threads", "4", "--subgroup-size", "2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("calls treated as unknown functions")
            && out.contains("@conv (convergent")
            && out.contains("@mystery (readnone")
            && out.contains("--subgroup-size 2"),
        "{out}"
    );
    // The table's builtin is not an unknown call (the reductions line may
    // name it as a thread-id read).
    let unknown_line = out
        .lines()
        .find(|l| l.starts_with("calls treated as unknown functions"))
        .unwrap_or_default();
    assert!(!unknown_line.contains("get_local_id"), "{out}");
    let o = run(&["--threads", "2", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(j["unknown_calls"][0]["callee"], "conv");
    assert_eq!(j["unknown_calls"].as_array().map(Vec::len), Some(2));
    let o = run(&["--threads", "4", "--subgroup-size", "3"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("--subgroup-size 3"), "{err}");
}
