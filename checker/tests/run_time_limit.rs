//! `convcheck run --time-limit SECONDS` (issue 11 item 2): the enumeration
//! stops when the time is spent, what was found so far is printed, marked
//! partial and INCOMPLETE, with the exit status of an incomplete
//! enumeration: 0 for the listing, 2 (no verdict) for an `--exists`
//! question answered Always / Never over part of the executions.

use std::process::Command;
use std::time::{Duration, Instant};

fn big_launch() -> Vec<String> {
    let file = format!(
        "{}/../examples/refine/cl11-unroll-anchor-remainder.src.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    // Far more executions than one second allows (the plain enumeration
    // is forced, so that this stays true whatever the reductions achieve).
    [
        "run",
        &file,
        "--threads",
        "4",
        "--domain",
        "0,1,2,3,4",
        "--max-executions",
        "1000000000",
        "--no-reduce",
        "--time-limit",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn time_limit_prints_partial_results() {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(big_launch())
        .output()
        .expect("convcheck runs");
    assert!(start.elapsed() < Duration::from_secs(30));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.starts_with("TIME LIMIT (1 s): partial results"),
        "{stdout}"
    );
    assert!(stdout.contains("behaviour 1 ("), "{stdout}");
    assert!(stdout.contains("(INCOMPLETE"), "{stdout}");
    assert!(stderr.contains("time limit reached"), "{stderr}");
}

#[test]
fn time_limit_in_json_and_exists() {
    let mut a = big_launch();
    a.push("--json".into());
    let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(&a)
        .output()
        .expect("convcheck runs");
    assert_eq!(out.status.code(), Some(0));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["time_limit_reached"], true);
    assert_eq!(j["complete"], false);
    let mut a = big_launch();
    a.extend(["--exists".into(), "contradiction".into()]);
    let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(&a)
        .output()
        .expect("convcheck runs");
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("TIME LIMIT"), "{stdout}");
}

/// `--jobs 2`: the launches split between two workers; the limit, polled
/// on the main thread, stops both.
#[test]
fn time_limit_stops_every_worker() {
    let mut a = big_launch();
    a.extend(["--jobs".into(), "2".into(), "--json".into()]);
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(&a)
        .output()
        .expect("convcheck runs");
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(0));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["time_limit_reached"], true);
    assert_eq!(j["complete"], false);
    assert!(j["explored"].as_u64().is_some_and(|n| n > 0), "{j}");
}

#[test]
fn a_negative_time_limit_is_bad_input() {
    let file = format!(
        "{}/../examples/interp/cl21-maximal-convergence.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(["run", &file, "--time-limit=-1"])
        .output()
        .expect("convcheck runs");
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--time-limit"));
}

/// A launch that finishes within the limit is unaffected (exit 0, complete).
#[test]
fn time_limit_not_reached_is_a_normal_run() {
    let file = format!(
        "{}/../examples/interp/cl21-maximal-convergence.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(["run", &file, "--time-limit", "60", "--json"])
        .output()
        .expect("convcheck runs");
    assert_eq!(out.status.code(), Some(0));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["time_limit_reached"], false);
    assert_eq!(j["complete"], true);
}

/// Issue 18 item 4: a launch larger than the execution budget says so on
/// stderr before the enumeration starts (a lower bound on its launches),
/// and a fixed input does not.
#[test]
fn large_launch_states_its_size_before_starting() {
    let d = std::env::temp_dir().join(format!("convcheck-large-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    let f = d.join("split.ll");
    std::fs::write(
        &f,
        "define void @k(i32 %x) {\nentry:\n  %c = icmp sgt i32 %x, 0\n  br i1 %c, label %a, label %b\na:\n  br label %b\nb:\n  ret void\n}\n",
    )
    .expect("write");
    let run = |extra: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_convcheck"))
            .arg("run")
            .arg(&f)
            .args(["--threads", "1000", "--time-limit", "1"])
            .args(extra)
            .output()
            .expect("convcheck runs");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let err = run(&[]);
    assert!(
        err.starts_with("note: at least 501501 launches to enumerate (1000 threads"),
        "{err}"
    );
    assert!(!run(&["--arg", "x=1"]).contains("note:"));
}

/// `run --summary` prints the counts without the behaviours: the same
/// counts line as the full listing, and with --json the same fields but
/// "executions".
#[test]
fn summary_prints_the_counts_without_the_behaviours() {
    let file = format!(
        "{}/../examples/interp/cl21-scaled.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
            .args(["run", &file, "--threads", "3"])
            .args(extra)
            .output()
            .expect("convcheck runs");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let full = run(&[]);
    let summary = run(&["--summary"]);
    assert!(full.contains("behaviour 1 "), "{full}");
    assert!(!summary.contains("behaviour 1 "), "{summary}");
    assert!(
        summary.starts_with("executions explored: 18, distinct behaviours: 18,"),
        "{summary}"
    );
    assert!(
        full.ends_with(&summary),
        "the summary is the listing's tail:\n{summary}"
    );
    let mut full: serde_json::Value = serde_json::from_str(&run(&["--json"])).expect("json");
    let summary: serde_json::Value =
        serde_json::from_str(&run(&["--json", "--summary"])).expect("json");
    assert_eq!(full["executions"].as_array().map(Vec::len), Some(18));
    full.as_object_mut().expect("object").remove("executions");
    assert_eq!(full, summary);
}
