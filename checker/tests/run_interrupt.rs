//! `convcheck run` on Ctrl-C (issue 4): the enumeration stops, what was
//! found so far is printed and marked interrupted, exit status 130.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn ctrl_c_prints_partial_results_marked_interrupted() {
    if Command::new("kill").arg("-l").output().is_err() {
        eprintln!("SKIP: no `kill` command to send SIGINT");
        return;
    }
    let file = format!(
        "{}/../examples/refine/cl11-unroll-anchor-remainder.src.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    // Far more executions than can run in the test's time (tens of
    // seconds even in release builds).
    let child = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(["run", &file, "--threads", "4", "--domain", "0,1,2,3,4"])
        .args(["--max-executions", "1000000000", "--no-reduce"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("convcheck starts");
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let start = Instant::now();
    let out = child.wait_with_output().expect("convcheck ends");
    assert!(start.elapsed() < Duration::from_secs(30));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stdout.starts_with("INTERRUPTED (Ctrl-C): partial results"),
        "{stdout}"
    );
    assert!(stdout.contains("behaviour 1 ("), "{stdout}");
    assert!(stdout.contains("(INCOMPLETE"), "{stdout}");
    assert!(stderr.contains("interrupted"), "{stderr}");
}
