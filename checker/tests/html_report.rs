//! `--report out.html` of `convcheck run` and `convcheck refine`: the page
//! is self-contained (no scripts, no external resources), shows each
//! thread's trace (CL-21's document table; a CL-02 counterexample), the CFG
//! as SVG with one highlighted path per thread, and the first difference.
//! The page is rendered in headless Chromium (`--dump-dom`) when it is
//! installed (`scripts/setup.sh chromium`); without it the rendering part
//! prints a loud SKIP, and fails under CI=true.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("convcheck-html-{}-{name}", std::process::id()))
}

fn convcheck(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("convcheck runs")
}

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser"].iter().find_map(|c| {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(c))
                .find(|f| f.is_file())
        })
    })
}

/// The DOM after Chromium loaded and rendered the page, or None (SKIP).
fn render(test: &str, page: &Path) -> Option<String> {
    let Some(bin) = chromium() else {
        return testgen::oracle::skip_or_fail(test, "chromium (scripts/setup.sh chromium)");
    };
    let profile = tmp(&format!("{test}-profile"));
    let out = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
            &format!("file://{}", page.display()),
        ])
        .output()
        .expect("chromium starts");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    for bad in ["<script", "http://", "https://", "src="] {
        let hits: Vec<_> = html.match_indices(bad).collect();
        // The SVG namespace is the one allowed URL.
        let allowed = html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count();
        if bad == "http://" {
            assert_eq!(hits.len(), allowed, "external reference in the page");
        } else {
            assert!(hits.is_empty(), "`{bad}` in the page");
        }
    }
}

#[test]
fn run_report_shows_the_cl21_traces() {
    let page = tmp("cl21.html");
    let out = convcheck(&[
        "run",
        "examples/interp/cl21-maximal-convergence.ll",
        "--threads",
        "2",
        "--report",
        page.to_str().expect("utf-8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).expect("report written");
    self_contained(&html);
    // The document's two threads (CU "Maximal Convergence").
    let traces = [
        "thread 0: Entry H B L H L Exit",
        "thread 1: Entry H L H B L H B L Exit",
    ];
    for t in traces {
        assert!(html.contains(t), "missing `{t}`");
    }
    assert_eq!(html.matches("<polyline class=\"thread t").count(), 2);
    assert_eq!(html.matches("<g class=\"block\">").count(), 5);
    if let Some(dom) = render("run_report_shows_the_cl21_traces", &page) {
        for t in traces {
            assert!(dom.contains(t), "rendered page lacks `{t}`");
        }
        assert!(dom.contains("<svg"), "no SVG in the rendered page");
        assert!(dom.contains("class=\"thread t1\""));
    }
    let _ = std::fs::remove_file(&page);
}

#[test]
fn refine_report_shows_the_counterexample_and_first_difference() {
    let page = tmp("cl02.html");
    let out = convcheck(&[
        "refine",
        "examples/refine/cl02-reduction-merge-divergent.src.ll",
        "examples/refine/cl02-reduction-merge-divergent.tgt.ll",
        "--threads",
        "2",
        "--report",
        page.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let html = std::fs::read_to_string(&page).expect("report written");
    self_contained(&html);
    // The traces of the text report (`  t0: 0 else end  (returns)`) are
    // the ones the page shows, for the source and the target.
    let traces: Vec<String> = text
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("t0: ")
                .or(l.trim().strip_prefix("t1: "))
                .map(|r| (l, r))
        })
        .filter(|(_, r)| r.contains("(returns)"))
        .map(|(l, r)| {
            let t = if l.trim().starts_with("t0") { 0 } else { 1 };
            format!("thread {t}: {}", r.split("  (").next().unwrap_or("").trim())
        })
        .collect();
    assert_eq!(traces.len(), 4, "{text}");
    for t in &traces {
        assert!(html.contains(t.as_str()), "missing `{t}`");
    }
    assert!(html.contains("source @example_kernel") && html.contains("target @example_kernel"));
    // Which thread shows the difference depends on the solver's model.
    assert!(
        html.contains("<li>target: thread 0, call #0 @use(")
            || html.contains("<li>target: thread 1, call #0 @use("),
        "{html}"
    );
    if let Some(dom) = render(
        "refine_report_shows_the_counterexample_and_first_difference",
        &page,
    ) {
        for t in &traces {
            assert!(dom.contains(t.as_str()), "rendered page lacks `{t}`");
        }
        assert_eq!(dom.matches("<svg").count(), 2);
    }
    let _ = std::fs::remove_file(&page);
}
