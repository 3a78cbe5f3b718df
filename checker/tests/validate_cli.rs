//! `convcheck validate` (issue 14): verdicts per function and exit statuses
//! (1 counterexample, 3 bad input or opt failing, 2 no verdict, 0 all
//! refine), with real opt-22 where a pass must run and with fake "opt"
//! scripts where the output must be known (a wrong target from
//! examples/refine, a failing opt, a function removed by the pass).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use testgen::oracle;

fn root() -> PathBuf {
    oracle::workspace_root()
}

fn tmp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("convcheck-validate-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A fake opt: a shell script that writes `body`'s output to opt's `-o`
/// file. `$in` is the input file, `$out` the output file, `$all` every
/// argument.
fn fake_opt(tag: &str, body: &str) -> PathBuf {
    let p = tmp_dir(tag).join("opt");
    std::fs::write(
        &p,
        format!(
            "#!/bin/sh\nall=\"$*\"\nwhile [ $# -gt 0 ]; do case \"$1\" in -o) out=\"$2\"; shift;; -*) ;; \
             *) in=\"$1\";; esac; shift; done\n{body}\n"
        ),
    )
    .expect("write fake opt");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    p
}

/// `convcheck validate ARGS` without `$OPT`.
fn validate_command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_convcheck"));
    c.arg("validate").args(args).env_remove("OPT");
    c
}

fn validate(args: &[&str]) -> Output {
    validate_command(args).output().expect("convcheck runs")
}

/// `convcheck validate FILE --opt OPT EXTRA --json`, which must exit 0;
/// its JSON.
fn validate_json_ok(file: &Path, opt: &Path, extra: &[&str]) -> serde_json::Value {
    let (file, opt) = (file.display().to_string(), opt.display().to_string());
    let mut args = vec![file.as_str(), "--opt", opt.as_str(), "--json"];
    args.extend_from_slice(extra);
    let o = validate(&args);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    serde_json::from_str(&out).expect("JSON")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn example(stem: &str, role: &str) -> String {
    root()
        .join(format!("examples/refine/{stem}.{role}.ll"))
        .display()
        .to_string()
}

/// R-REF through a real pipeline: instcombine and simplifycfg keep CL-02's
/// divergent reduction where it is; the function refines (exit 0).
#[test]
fn real_pipeline_refines() {
    let Some(opt) = oracle::opt_or_skip("real_pipeline_refines") else {
        return;
    };
    let opt = opt.display().to_string();
    let o = validate(&[
        &example("cl02-reduction-merge-divergent", "src"),
        "--opt",
        &opt,
        "--threads",
        "1..3",
        "--",
        "-passes=instcombine,simplifycfg",
        "-mtriple=amdgcn-amd-amdhsa",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        out.contains("@example_kernel") && out.contains("refines"),
        "{out}"
    );
    assert!(out.contains("bounds: threads 1..3"), "{out}");
}

/// R-CEX: a fake opt that sinks CL-01's texture sample into the divergent
/// branch (the document's wrong transform): counterexample, exit 1, printed
/// as `refine` prints it; the output file is kept and named.
#[test]
fn wrong_target_gives_counterexample() {
    let tgt = example("cl01-texture-sink-divergent", "tgt");
    let opt = fake_opt("cex", &format!("cp '{tgt}' \"$out\""));
    let o = validate(&[
        &example("cl01-texture-sink-divergent", "src"),
        "--opt",
        &opt.display().to_string(),
        "--threads",
        "1..2",
        "--",
        "-passes=sink",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("@example_shader  counterexample"), "{out}");
    assert!(
        out.contains("== counterexample for @example_shader =="),
        "{out}"
    );
    assert!(out.contains("first observable difference"), "{out}");
    assert!(
        out.contains("replay (R-CEX): target behaviour reproduced"),
        "{out}"
    );
    assert!(err.contains("opt's output is kept in"), "{err}");
    // The same as JSON, in issue 14's schema.
    let o = validate(&[
        &example("cl01-texture-sink-divergent", "src"),
        "--opt",
        &opt.display().to_string(),
        "--threads",
        "1..2",
        "--json",
        "--",
        "-passes=sink",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON output");
    assert_eq!(v["opt"][1], "-passes=sink", "{v}");
    let f = &v["functions"][0];
    assert_eq!(f["name"], "example_shader");
    assert_eq!(f["verdict"], "counterexample");
    assert!(f["seconds"].is_number() && f["reason"].is_string(), "{f}");
    assert_eq!(f["bounds"]["threads"], serde_json::json!([1, 2]));
    assert_eq!(f["counterexample"]["threads"], 2, "{f}");
}

#[test]
fn missing_opt_is_bad_input() {
    let o = validate(&[
        &example("cl01-texture-sink-divergent", "src"),
        "--opt",
        "/nonexistent/opt-22",
        "--",
        "-passes=sink",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}{err}");
    assert!(
        err.contains("/nonexistent/opt-22") && err.contains("--opt"),
        "{err}"
    );
    // Nothing given and nothing on PATH: the message names every way.
    let o = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(["validate", &example("cl01-texture-sink-divergent", "src")])
        .env_remove("OPT")
        .env("PATH", "/nonexistent")
        .output()
        .expect("convcheck runs");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("--opt") && err.contains("$OPT") && err.contains("opt-22"),
        "{err}"
    );
}

#[test]
fn failing_opt_shows_its_stderr() {
    let opt = fake_opt("fail", "echo 'opt: unknown pass name xyz' >&2; exit 1");
    let o = validate(&[
        &example("cl01-texture-sink-divergent", "src"),
        "--opt",
        &opt.display().to_string(),
        "--",
        "-passes=xyz",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}{err}");
    assert!(err.contains("unknown pass name xyz"), "{err}");
    assert!(err.contains("status 1"), "{err}");
}

#[test]
fn unreadable_or_unparsable_file_is_bad_input() {
    let opt = fake_opt("id", "cp \"$in\" \"$out\"");
    let o = validate(&["/nonexistent/x.ll", "--opt", &opt.display().to_string()]);
    assert_eq!(o.status.code(), Some(3));
    let bad = tmp_dir("parse").join("bad.ll");
    std::fs::write(&bad, "define void @k() {\n  frobnicate\n}\n").expect("write");
    let o = validate(&[
        &bad.display().to_string(),
        "--opt",
        &opt.display().to_string(),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("bad.ll:2:"), "{err}");
}

const TWO: &str = "declare void @barrier() convergent
declare <2 x float> @fsub(<2 x float>) convergent

define void @keep(i32 %x) {
entry:
  call void @barrier()
  ret void
}

define void @gone(i32 %x) {
entry:
  call void @barrier()
  ret void
}

define void @float(i32 %x) {
entry:
  %f = call <2 x float> @fsub(<2 x float> zeroinitializer)
  ret void
}

define void @plain(i32 %x) {
entry:
  ret void
}
";

/// A function the pass removed is reported as removed (not an error); an
/// unsupported construct in one function does not stop the others; the
/// exit status is 2 (one unsupported, nothing wrong); `--jobs 2` gives the
/// same rows.
#[test]
fn removed_and_unsupported_functions() {
    let d = tmp_dir("two");
    let file = d.join("two.ll");
    std::fs::write(&file, TWO).expect("write");
    // The fake pass deletes @gone (its 5 lines) and renames @float's %f
    // (a change, so R-REFL does not apply to it).
    let opt = fake_opt(
        "rm",
        "awk '/^define void @gone/{skip=1} skip&&/^}/{skip=0;next} !skip' \"$in\" \
         | sed 's/%f = /%g = /' > \"$out\"",
    );
    for jobs in ["1", "2"] {
        let o = validate(&[
            &file.display().to_string(),
            "--opt",
            &opt.display().to_string(),
            "--threads",
            "1..2",
            "--jobs",
            jobs,
        ]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{out}{err}");
        assert!(out.contains("@keep   refines"), "{out}");
        assert!(out.contains("@float  unsupported"), "{out}");
        assert!(
            out.contains("two.ll:18:3: call with a non-integer result"),
            "the place is file:line:col: {out}"
        );
        assert!(out.contains("@gone   removed by the pass"), "{out}");
        assert!(!out.contains("@plain"), "no convergent operation: {out}");
        assert!(
            out.contains("summary: 1 refines, 1 unsupported, 1 removed"),
            "{out}"
        );
    }
}

/// R-REFL: with a pass that changes nothing, @float (which the encoding
/// cannot express) refines for every bound, marked `reflexive` and
/// explained; @keep, which the check decides, is an ordinary "refines".
#[test]
fn unchanged_functions_refine_by_reflexivity() {
    let d = tmp_dir("refl");
    let file = d.join("two.ll");
    std::fs::write(&file, TWO).expect("write");
    // opt's own printing: attribute order, `memory(none)` and metadata
    // renumbering must not count as changes.
    let opt = fake_opt("reflopt", "cp \"$in\" \"$out\"");
    let v = validate_json_ok(&file, &opt, &["--threads", "1..2"]);
    let f = |n: &str| {
        v["functions"]
            .as_array()
            .expect("functions")
            .iter()
            .find(|f| f["name"] == n)
            .cloned()
            .unwrap_or_else(|| panic!("@{n} in {v}"))
    };
    assert_eq!(f("float")["verdict"], "refines", "{v}");
    assert_eq!(f("float")["reflexive"], true, "{v}");
    let why = f("float")["reason"].as_str().unwrap_or("").to_string();
    assert!(
        why.contains("R-REFL") && why.contains("the check alone: unsupported"),
        "{why}"
    );
    assert_eq!(f("keep")["verdict"], "refines", "{v}");
    assert!(f("keep").get("reflexive").is_none(), "{v}");
}

/// `--time-limit` per function: past it the verdict is unknown with why
/// (exit 2), and the check stops soon after (Z3 interrupted).
#[test]
fn time_limit_gives_unknown() {
    // A change (a value renamed), so R-REFL does not decide it.
    let opt = fake_opt("tl", "sed 's/%cc/%cc.r/g' \"$in\" > \"$out\"");
    let start = std::time::Instant::now();
    let o = validate(&[
        &example("cl02-reduction-merge-divergent", "src"),
        "--opt",
        &opt.display().to_string(),
        "--time-limit",
        "0.05",
        "--json",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["functions"][0]["verdict"], "unknown", "{v}");
    assert!(
        v["functions"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("--time-limit")),
        "{v}"
    );
    assert!(
        start.elapsed().as_secs_f64() < 30.0,
        "the limit stops the check"
    );
}

/// `--run-line`: the file's `; RUN: opt` options are used (the triple
/// mapped), `-S`/`%s`/pipes dropped.
#[test]
fn run_line_options() {
    let d = tmp_dir("rl");
    let file = d.join("rl.ll");
    let src =
        std::fs::read_to_string(example("cl02-reduction-merge-divergent", "src")).expect("example");
    std::fs::write(
        &file,
        format!("; RUN: opt -S -mtriple=amdgcn-unknown-amdpal -passes=instcombine < %s | FileCheck %s\n{src}"),
    )
    .expect("write");
    let opt = fake_opt("rlopt", "cp \"$in\" \"$out\"");
    let v = validate_json_ok(&file, &opt, &["--run-line", "--threads", "1"]);
    assert_eq!(v["opt"][1], "-mtriple=amdgcn-amd-amdhsa", "{v}");
    assert_eq!(v["opt"][2], "-passes=instcombine", "{v}");
    assert_eq!(v["opt"][3], "-S", "{v}");
}

#[test]
fn keep_dir_holds_the_output() {
    let d = tmp_dir("keep");
    let opt = fake_opt("keepopt", "cp \"$in\" \"$out\"");
    let o = validate(&[
        &example("cl02-reduction-merge-divergent", "src"),
        "--opt",
        &opt.display().to_string(),
        "--keep",
        &d.display().to_string(),
        "--threads",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(Path::new(&d)
        .join("cl02-reduction-merge-divergent.src.opt.ll")
        .is_file());
}

/// `--bisect`: a fake opt whose `sink` step makes CL-01's wrong transform
/// (every other pass is the identity); bisection names `sink` and checks its
/// before/after pair on its own (a counterexample again).
#[test]
fn bisect_names_the_breaking_pass() {
    let tgt = example("cl01-texture-sink-divergent", "tgt");
    let opt = fake_opt(
        "bisect",
        &format!(
            "case \"$all\" in\n\
             *-print-pipeline-passes*) echo 'instcombine,function(sink,simplifycfg),verify'; exit 0;;\n\
             *-O2*|*'=function(sink'*) cp '{tgt}' \"$out\";;\n\
             *) cp \"$in\" \"$out\";;\n\
             esac"
        ),
    );
    let keep = tmp_dir("bisect-keep");
    let o = validate(&[
        &example("cl01-texture-sink-divergent", "src"),
        "--opt",
        &opt.display().to_string(),
        "--threads",
        "1..2",
        "--bisect",
        "--keep",
        &keep.display().to_string(),
        "--json",
        "--",
        "-O2",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let b = &v["functions"][0]["bisect"];
    assert_eq!(b["pass"], "function(sink)", "{v}");
    assert_eq!(b["pair_verdict"], "counterexample", "{v}");
    assert!(
        b["before"]
            .as_str()
            .is_some_and(|p| p.ends_with("step-001.ll")),
        "{b}"
    );
}

/// Sends SIGINT to `child` after `wait_ms` and returns its output, which
/// must come within 30 s.
fn interrupt_after(child: std::process::Child, wait_ms: u64) -> Output {
    std::thread::sleep(std::time::Duration::from_millis(wait_ms));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let start = std::time::Instant::now();
    let out = child.wait_with_output().expect("convcheck ends");
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    out
}

fn spawn_validate(args: &[&str]) -> std::process::Child {
    validate_command(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("convcheck starts")
}

/// Ctrl-C (exit status 130) while opt runs: opt is killed and nothing is
/// checked; during the checks: the check under way answers unknown, the
/// table is printed, and the output names the interruption.
#[test]
fn ctrl_c_stops_opt_and_the_checks() {
    if Command::new("kill").arg("-l").output().is_err() {
        eprintln!("SKIP: no `kill` command to send SIGINT");
        return;
    }
    // A fake opt that never finishes by itself.
    let slow = fake_opt("ctrlc-opt", "sleep 600; cp \"$in\" \"$out\"");
    let src = example("cl11-unroll-anchor-remainder", "src");
    let child = spawn_validate(&[&src, "--opt", &slow.display().to_string(), "--", "-O2"]);
    let out = interrupt_after(child, 800);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(130), "{stdout}{stderr}");
    assert!(
        stderr.contains("interrupted (Ctrl-C); nothing was checked"),
        "{stderr}"
    );

    // A check that takes minutes: CL-11's pair at 5 threads, 12 visits.
    let tgt = example("cl11-unroll-anchor-remainder", "tgt");
    let copy = fake_opt("ctrlc-check", &format!("cp '{tgt}' \"$out\""));
    let child = spawn_validate(&[
        &src,
        "--opt",
        &copy.display().to_string(),
        "--threads",
        "5",
        "--max-steps",
        "12",
        "--",
        "-O2",
    ]);
    let out = interrupt_after(child, 2500);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(130), "{stdout}{stderr}");
    assert!(stdout.contains("unknown"), "{stdout}");
    assert!(stdout.contains("interrupted"), "{stdout}");
}
