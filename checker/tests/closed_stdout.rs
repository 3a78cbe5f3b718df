//! Every subcommand stops quietly when its reader closes stdout early
//! (`convcheck run ... | head`): no "failed printing to stdout: Broken
//! pipe" panic, no error message, exit status 0 (see `cli::emit`).

use std::io::Read;
use std::process::{Command, Stdio};

fn example(dir: &str, name: &str) -> String {
    format!("{}/../examples/{dir}/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `convcheck args` with a stdout pipe whose read end is closed
/// before the child writes anything; returns (status, stderr).
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("convcheck starts");
    drop(child.stdout.take());
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut err).expect("stderr reads");
    }
    let status = child.wait().expect("convcheck ends");
    (status.code(), err)
}

#[test]
fn every_subcommand_exits_quietly_on_a_closed_pipe() {
    let cl11 = example("refine", "cl11-unroll-anchor-remainder.src.ll");
    let cl21 = example("interp", "cl21-maximal-convergence.ll");
    let runs: Vec<Vec<&str>> = vec![
        vec!["parse", &cl11],
        vec!["cycles", &cl21],
        vec!["verify", &cl11],
        vec!["uniformity", &cl21],
        vec!["run", &cl11, "--threads", "3"],
        vec!["run", &cl11, "--json"],
        vec![
            "run",
            &cl11,
            "--exists",
            "t0@convergent.operation[0] ~ t1@convergent.operation[0]",
        ],
    ];
    for a in runs {
        let (code, err) = with_closed_stdout(&a);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{a:?}: {err}"
        );
        assert_eq!(code, Some(0), "{a:?}: {err}");
        assert!(err.trim().is_empty(), "{a:?} printed: {err}");
    }
}
