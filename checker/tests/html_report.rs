//! `--report out.html` of `convcheck run` and `convcheck refine` (issue 17
//! item 1): the page is self-contained (no scripts, no external resources),
//! shows each thread's trace (CL-21's document table; a CL-02
//! counterexample), the CFG as SVG laid out by Graphviz (or the fallback)
//! with every edge's arrow, back edges and self-loops (CL-12's loop on B),
//! cycles and headers, each thread's path along the edges, every behaviour
//! of `run` in a section of its own, and who communicates: each convergent
//! operation's dynamic instances with their communicating sets, checked
//! against CL-21's relations; `refine` shows the first difference's sets
//! side by side. `--dot` writes DOT that Graphviz accepts. The pages are
//! rendered in headless Chromium (`--dump-dom` and `--screenshot`) when it
//! is installed (`scripts/setup.sh`); without Chromium or Graphviz the
//! parts that need them print a loud SKIP, and fail under CI=true.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("convcheck-html-{}-{name}", std::process::id()))
}

/// Where pages and their screenshots are kept for people to look at:
/// `target/tmp/html-report/` (Cargo's scratch directory for tests).
fn kept(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir.join(name)
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

fn chromium_flags(profile: &Path) -> Vec<String> {
    [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect()
}

/// The DOM after Chromium loaded and rendered the page, or None (SKIP).
/// Also takes a screenshot (`<page>.png`, kept for people to look at) and
/// checks that it is a PNG of the window's size.
fn render(test: &str, page: &Path) -> Option<String> {
    let Some(bin) = chromium() else {
        return testgen::oracle::skip_or_fail(test, "chromium (scripts/setup.sh chromium)");
    };
    let url = format!("file://{}", page.display());
    let profile = tmp(&format!("{test}-profile"));
    let out = Command::new(&bin)
        .args(chromium_flags(&profile))
        .args(["--dump-dom", &url])
        .output()
        .expect("chromium starts");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = page.with_extension("png");
    let shot = Command::new(&bin)
        .args(chromium_flags(&profile))
        .args([
            "--window-size=1280,1600",
            &format!("--screenshot={}", png.display()),
            &url,
        ])
        .output()
        .expect("chromium starts");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let bytes = std::fs::read(&png).expect("screenshot written");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let w = u32::from_be_bytes(bytes[16..20].try_into().expect("IHDR width"));
    let h = u32::from_be_bytes(bytes[20..24].try_into().expect("IHDR height"));
    assert_eq!((w, h), (1280, 1600), "screenshot size");
    assert!(bytes.len() > 20_000, "an almost empty screenshot");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The `<g class="commset">` groups of a page: per group, its operation
/// (from the title) and its members' names (thread, label).
fn commsets(html: &str) -> Vec<(String, Vec<String>)> {
    html.split("<g class=\"commset\"><title>")
        .skip(1)
        .map(|g| {
            let g = &g[..g.find("</g>").expect("closed group")];
            let op = g
                .split(": communicating set")
                .next()
                .unwrap_or("")
                .to_string();
            let set = g
                .split('{')
                .nth(1)
                .and_then(|r| r.split('}').next())
                .unwrap_or("");
            (op, set.split(", ").map(str::to_string).collect())
        })
        .collect()
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
    let page = kept("cl21.html");
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
    assert_eq!(html.matches("<g class=\"thread t").count(), 2);
    assert_eq!(html.matches("<g class=\"block").count(), 5);
    assert_eq!(html.matches("<g class=\"block header\">").count(), 1, "H");
    // The loop's back edge L -> H, drawn and labelled; the cycle's box.
    assert!(html.contains("<path class=\"edge back\""), "no back edge");
    assert!(html.contains("<title>back edge L -&gt; H</title>"));
    assert!(html.contains("<g class=\"cycle\">") && html.contains("cycle, header H"));
    // Every edge has its arrow.
    let edges = html.matches("<path class=\"edge").count();
    assert_eq!(edges, 6, "Entry-H H-B H-L B-L L-H L-Exit");
    assert_eq!(
        html.matches("marker-end=\"url(#b0-").count(),
        edges,
        "an edge without an arrow"
    );
    // Who communicates: CL-21's relations (CU "Maximal Convergence") as
    // groups of the picture: H1~H2, B1!~B2, H3~H4, H3!~H5, L1~L2, L3~L4,
    // L3!~L5.
    let sets = commsets(&html);
    let group = |a: &str| {
        sets.iter()
            .find(|(_, m)| m.iter().any(|x| x.ends_with(&format!(" {a}"))))
            .map(|(_, m)| m.clone())
            .unwrap_or_else(|| panic!("{a} not drawn: {sets:?}"))
    };
    assert_eq!(group("H1"), ["t0 H1", "t1 H2"]);
    assert_eq!(group("H3"), ["t0 H3", "t1 H4"]);
    assert_eq!(group("H5"), ["t1 H5"]);
    assert_eq!(group("B1"), ["t0 B1"]);
    assert_eq!(group("B2"), ["t1 B2"]);
    assert_eq!(group("L1"), ["t0 L1", "t1 L2"]);
    assert_eq!(group("L3"), ["t0 L3", "t1 L4"]);
    assert_eq!(group("L5"), ["t1 L5"]);
    if let Some(dom) = render("run_report_shows_the_cl21_traces", &page) {
        for t in traces {
            assert!(dom.contains(t), "rendered page lacks `{t}`");
        }
        assert!(dom.contains("<svg"), "no SVG in the rendered page");
        assert!(dom.contains("class=\"thread t1\""));
        assert!(dom.contains("class=\"edge back\"") && dom.contains("class=\"commset\""));
    }
}

#[test]
fn refine_report_shows_the_counterexample_and_first_difference() {
    let page = kept("cl02.html");
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
        assert_eq!(dom.matches("<svg class=\"cfg\"").count(), 2);
    }
}

fn report(args: &[&str], name: &str, status: i32) -> (PathBuf, String) {
    let page = kept(name);
    let mut a = args.to_vec();
    let p = page.to_str().expect("utf-8").to_string();
    a.extend(["--report", &p]);
    let out = convcheck(&a);
    assert_eq!(
        out.status.code(),
        Some(status),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).expect("report written");
    self_contained(&html);
    (page, html)
}

const CL12: [&str; 2] = [
    "examples/refine/cl12-unroll-heart-remainder.src.ll",
    "examples/refine/cl12-unroll-heart-remainder.tgt.ll",
];

/// CL-12: the loop on B is a self-loop in source and target; the first
/// difference's communicating sets are drawn side by side.
#[test]
fn refine_report_draws_self_loops_and_the_difference_side_by_side() {
    let (page, html) = report(
        &["refine", CL12[0], CL12[1], "--threads", "2"],
        "cl12.html",
        1,
    );
    assert_eq!(
        html.matches("<path class=\"edge back self\"").count(),
        2,
        "B -> B in source and target"
    );
    assert_eq!(html.matches("<title>self-loop B</title>").count(), 2);
    assert!(html.contains("<h2>First difference</h2>"));
    let diff = html
        .split("<div class=\"sides difference\">")
        .nth(1)
        .expect("the difference's pictures");
    let diff = &diff[..diff.find("</div>").expect("closed")];
    assert!(diff.contains("<h3>target: thread") && diff.contains("<h3>source: thread"));
    let sets = commsets(diff);
    assert_eq!(sets.len(), 2, "one set per side: {sets:?}");
    assert_ne!(sets[0].1, sets[1].1, "the sets differ");
    assert!(commsets(&html).len() > 2, "who communicates, per side");
    if let Some(dom) = render("refine_report_draws_self_loops", &page) {
        assert!(dom.contains("class=\"edge back self\""));
        assert!(dom.contains("class=\"commset\""));
    }
}

/// CL-03 has no cycle: no edge is drawn as a back edge, every edge has its
/// arrow, and there is no "first difference" heading when the pair refines.
#[test]
fn acyclic_cfgs_have_no_back_edges_and_refines_has_no_difference() {
    let (_, html) = report(
        &[
            "refine",
            "examples/refine/cl03-jump-threading.src.ll",
            "examples/refine/cl03-jump-threading.tgt.ll",
            "--threads",
            "2",
        ],
        "cl03.html",
        0,
    );
    assert!(!html.contains("edge back"), "a back edge in an acyclic CFG");
    assert!(!html.contains("<g class=\"cycle\">"));
    let edges = html.matches("<path class=\"edge\"").count();
    assert_eq!(edges, 6 + 5, "source 6 edges, target 5");
    assert_eq!(html.matches("-arrow)\"").count(), edges);
    assert!(
        !html.contains("difference"),
        "a difference heading without a difference"
    );
}

/// `run --report` shows every behaviour, each with its CFG and paths.
#[test]
fn run_report_shows_every_behaviour() {
    let (page, html) = report(
        &[
            "run",
            "examples/interp/cl22-nested-irreducible.ll",
            "--threads",
            "3",
        ],
        "cl22.html",
        0,
    );
    let text = String::from_utf8_lossy(
        &convcheck(&[
            "run",
            "examples/interp/cl22-nested-irreducible.ll",
            "--threads",
            "3",
        ])
        .stdout,
    )
    .into_owned();
    let distinct: usize = text
        .split("distinct behaviours: ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|n| n.trim().parse().ok())
        .expect("the counts line");
    let behaviours = html.matches("<details class=\"behaviour\"").count();
    assert!(distinct >= 2, "CL-22 has several behaviours");
    assert_eq!(behaviours, distinct, "one section per behaviour");
    assert_eq!(html.matches("<svg class=\"cfg\"").count(), behaviours);
    for i in 1..=behaviours {
        assert!(html.contains(&format!("Behaviour {i} of {behaviours}:")));
    }
    assert!(html.contains("irreducible cycle, entries"));
    if let Some(dom) = render("run_report_shows_every_behaviour", &page) {
        assert_eq!(dom.matches("<svg class=\"cfg\"").count(), behaviours);
    }
}

/// Without Graphviz (`CONVCHECK_DOT=none`) the fallback layout draws the
/// same things and says which layout it is.
#[test]
fn fallback_layout_draws_the_same_elements() {
    let page = tmp("cl12-fallback.html");
    let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args([
            "run",
            CL12[0],
            "--arg",
            "counter=3,4",
            "--anchor",
            "maximal",
            "--report",
        ])
        .arg(&page)
        .env("CONVCHECK_DOT", "none")
        .current_dir(root())
        .output()
        .expect("convcheck runs");
    assert_eq!(out.status.code(), Some(0));
    let html = std::fs::read_to_string(&page).expect("report written");
    assert!(html.contains("simple layered layout (CONVCHECK_DOT=none)"));
    assert_eq!(html.matches("<path class=\"edge back self\"").count(), 1);
    assert!(html.contains("<g class=\"commset\">"));
    // The document's sets (anchor grouping both threads): the operation's
    // instances in the first iteration converged (D-LOOP, D-CTRL).
    let sets = commsets(&html);
    assert!(
        sets.iter()
            .any(|(op, m)| op.starts_with("@convergent.operation") && m == &["t0 B1", "t1 B2"]),
        "{sets:?}"
    );
    let _ = std::fs::remove_file(&page);
}

/// `--dot` writes annotated DOT that Graphviz accepts.
#[test]
fn dot_output_is_annotated_and_accepted_by_graphviz() {
    let out_dot = tmp("cl21.dot");
    let out = convcheck(&[
        "run",
        "examples/interp/cl21-maximal-convergence.ll",
        "--dot",
        out_dot.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(&out_dot).expect("dot written");
    assert!(
        text.starts_with("digraph \"CFG for 'kernel' function\""),
        "{text}"
    );
    assert!(text.contains("subgraph cluster_0") && text.contains("cycle, header H"));
    assert!(text.contains("label=\"back t0x1 t1x2\""), "{text}");
    assert!(text.contains("peripheries=2"));
    let cl12 = tmp("cl12.dot");
    let out = convcheck(&[
        "run",
        CL12[0],
        "--arg",
        "counter=3,4",
        "--anchor",
        "maximal",
        "--dot",
        cl12.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(&cl12).expect("dot written");
    assert!(
        text.contains(
            "b1 -> b1 [color=\"#c25e00\" fontcolor=\"#c25e00\" label=\"self-loop t0x2 t1x3\"]"
        ),
        "{text}"
    );
    let cl02 = tmp("cl02.dot");
    let out = convcheck(&[
        "refine",
        "examples/refine/cl02-reduction-merge-divergent.src.ll",
        "examples/refine/cl02-reduction-merge-divergent.tgt.ll",
        "--threads",
        "2",
        "--dot",
        cl02.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let pair = std::fs::read_to_string(&cl02).expect("dot written");
    assert_eq!(pair.matches("digraph ").count(), 2, "source and target");
    assert!(pair.contains("label=\"source @example_kernel\"") && pair.contains("t1x1"));
    let dot = Command::new("dot").arg("-V").output();
    if dot.is_err() {
        let _: Option<()> = testgen::oracle::skip_or_fail(
            "dot_output_is_annotated_and_accepted_by_graphviz",
            "Graphviz dot (scripts/setup.sh)",
        );
    } else {
        for f in [&out_dot, &cl12, &cl02] {
            let r = Command::new("dot")
                .args(["-Tsvg", "-o", "/dev/null"])
                .arg(f)
                .output()
                .expect("dot runs");
            assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        }
    }
    let _ = std::fs::remove_file(&out_dot);
    let _ = std::fs::remove_file(&cl12);
    let _ = std::fs::remove_file(&cl02);
}
