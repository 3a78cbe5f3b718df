//! Issue 11 item 2 (and issue 17 item 7): one stop mechanism for `refine`.
//! `--time-limit SECONDS` bounds the whole run: the verdict is then
//! `unknown (time limit; ...)` naming the thread counts finished (exit 2).
//! Ctrl-C stops the run the same way every time: the report is printed with
//! `unknown (interrupted; ...)` and the exit status is 130.

use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use checker::refine::{check_pair, Options, PairResult, UnknownWhy, Verdict};
use checker::smt::{Session, Stop};

fn example(stem: &str, role: &str) -> String {
    format!(
        "{}/../examples/refine/{stem}.{role}.ll",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A run that takes minutes: CL-11's pair at 5 threads and 12 block visits.
fn slow_refine(extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_convcheck"));
    c.arg("refine")
        .arg(example("cl11-unroll-anchor-remainder", "src"))
        .arg(example("cl11-unroll-anchor-remainder", "tgt"))
        .args(["--threads", "5", "--max-steps", "12"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

#[test]
fn time_limit_bounds_the_whole_run() {
    let start = Instant::now();
    let out = slow_refine(&["--time-limit", "2"])
        .output()
        .expect("convcheck runs");
    let elapsed = start.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("verdict: unknown (time limit; no thread count finished)"),
        "{stdout}"
    );
    // The budget, plus parsing and building the encoding on a loaded
    // machine; the run takes minutes without it.
    assert!(elapsed < Duration::from_secs(40), "{elapsed:?}");
}

/// Ctrl-C, early (while encoding or in the first query) and later: the same
/// outcome every time.
#[test]
fn ctrl_c_prints_the_verdict_marked_interrupted() {
    if Command::new("kill").arg("-l").output().is_err() {
        eprintln!("SKIP: no `kill` command to send SIGINT");
        return;
    }
    for wait in [800, 2500] {
        let child = slow_refine(&[]).spawn().expect("convcheck starts");
        std::thread::sleep(Duration::from_millis(wait));
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
        assert_eq!(
            out.status.code(),
            Some(130),
            "after {wait} ms: {stdout}{stderr}"
        );
        assert!(
            stdout.contains("verdict: unknown (interrupted; no thread count finished)"),
            "after {wait} ms: {stdout}"
        );
        assert!(stderr.contains("interrupted"), "{stderr}");
    }
}

fn checked(o: &Options) -> Verdict {
    let read = |role| {
        let p = example("cl02-reduction-merge-uniform", role);
        let text = std::fs::read_to_string(&p).expect("example readable");
        semantics::parse_module(&p, &text).expect("example parses")
    };
    let (s, t) = (read("src"), read("tgt"));
    let k = s
        .functions
        .iter()
        .find(|f| f.is_definition)
        .map(|f| f.name.clone())
        .expect("a kernel");
    let mut session = Session::new(None);
    match check_pair(&s, &t, &k, o, &mut session, false, None).expect("check runs") {
        PairResult::Checked { outcome, .. } => outcome.verdict,
        other => panic!("{other:?}"),
    }
}

/// The library: a spent budget or a set flag stops before any thread count
/// is decided; the reason is a type (no words compared).
#[test]
fn budget_and_interrupt_in_the_library() {
    let spent = Options {
        threads: vec![1, 2],
        time_limit: Some(Duration::ZERO),
        ..Options::default()
    };
    match checked(&spent) {
        Verdict::Unknown(UnknownWhy::Stopped { stop, finished }) => {
            assert_eq!(stop, Stop::TimeLimit);
            assert!(finished.is_empty());
        }
        other => panic!("{other:?}"),
    }
    let interrupted = Options {
        threads: vec![1, 2],
        interrupt: Some(Arc::new(AtomicBool::new(true))),
        ..Options::default()
    };
    match checked(&interrupted) {
        Verdict::Unknown(why) => assert!(why.is_interrupted(), "{why}"),
        other => panic!("{other:?}"),
    }
    // Non-vacuity: with budget left the same pair refines.
    let ample = Options {
        threads: vec![1, 2],
        time_limit: Some(Duration::from_secs(300)),
        interrupt: Some(Arc::new(AtomicBool::new(false))),
        ..Options::default()
    };
    assert!(matches!(checked(&ample), Verdict::Refines { .. }));
}
