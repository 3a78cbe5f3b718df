//! `convcheck run --jobs N` (issue 18): the exhaustive search deals the
//! canonical launches out among N worker threads. What it lists must not
//! depend on N: the same behaviours in the same order (the counts of
//! explored and merged executions, and how many executions each behaviour
//! was seen in, may differ: each worker memoizes its own states). The
//! execution budget holds for the workers together (the time limit:
//! `run_time_limit.rs`).

use std::process::Command;

fn example(name: &str) -> String {
    format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .arg("run")
        .args(args)
        .output()
        .expect("convcheck runs")
}

/// The text report without the counts that depend on the workers.
fn listing(out: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| !l.starts_with("executions explored:"))
        .map(|l| match (l.starts_with("behaviour "), l.find(" (")) {
            // "behaviour 3 (2 executions): finished"
            (true, Some(i)) => {
                let rest = &l[i..];
                let close = rest.find("):").map_or(0, |j| j + 1);
                format!("{}{}", &l[..i], &rest[close..])
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Several launches (per-thread inputs, launch symmetry, memoization, an
/// anchor in `all` mode, M-DATA inputs, a restart after a contradiction):
/// 1, 2 and 3 workers print the same listing.
#[test]
fn workers_list_the_same_behaviours_in_the_same_order() {
    let cases: [(&str, &str, &[&str]); 6] = [
        ("refine/cl03-jump-threading.src.ll", "3", &[]),
        ("refine/cl13-unroll-heart-even.src.ll", "3", &[]),
        ("refine/cl06-inline-entry.src.ll", "3", &["--entry", "main"]),
        ("refine/cl14-shuffle-hoist-poison.src.ll", "3", &[]),
        ("interp/cl21-scaled.ll", "4", &[]),
        // A contradiction in the middle of a run: the search starts again
        // without thread renaming, on every worker.
        ("cl07-infinite-loop-outer-anchor.ll", "3", &["--no-verify"]),
    ];
    for (file, threads, extra) in cases {
        let f = example(file);
        let mut args = vec![f.as_str(), "--threads", threads];
        args.extend_from_slice(extra);
        let one = run(&args);
        assert_eq!(one.status.code(), Some(0), "{file}");
        let listed = listing(&one);
        assert!(listed.contains("behaviour 2"), "{file}: {listed}");
        for jobs in ["2", "3"] {
            let mut a = args.clone();
            a.extend(["--jobs", jobs]);
            let many = run(&a);
            assert_eq!(many.status.code(), Some(0), "{file} --jobs {jobs}");
            assert!(
                listing(&many) == listed,
                "{file} at {threads} threads: --jobs {jobs} printed another listing"
            );
        }
    }
}

/// The execution budget counts the workers' executions together (each
/// checks it after its own execution: at most one over per extra worker).
#[test]
fn workers_share_the_execution_budget() {
    let f = example("refine/cl11-unroll-anchor-remainder.src.ll");
    let out = run(&[
        &f,
        "--threads",
        "4",
        "--no-reduce",
        "--max-executions",
        "500",
        "--jobs",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["complete"], false);
    let spent = j["explored"].as_u64().expect("explored") + j["pruned"].as_u64().expect("pruned");
    assert!((500..=501).contains(&spent), "{j}");
    assert!(
        j["incomplete_because"]
            .as_str()
            .is_some_and(|s| s.contains("execution budget")),
        "{j}"
    );
}

#[test]
fn zero_workers_is_bad_input() {
    let f = example("interp/cl21-maximal-convergence.ll");
    let out = run(&[&f, "--jobs", "0"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--jobs"));
}
