//! `checker::cmd::refine::run` exit statuses (issue 6 "Verdicts and exit
//! status", and the project-wide scheme of `checker::cli::Exit`): 0
//! refines, 1 counterexample, 2 no verdict (unsupported construct), 3
//! invalid input (static rule, parse error, unreadable file), and the
//! `--threads` syntax.

use std::path::{Path, PathBuf};

use checker::cli::Exit;
use checker::cmd::refine::{
    parse_threads, run, Args, CheckArgs, HierarchyArg, ObserveArg, ShuffleOobArg, StrategiesArg,
    UncontrolledArg,
};

fn ex(stem: &str, role: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../examples/refine/{stem}.{role}.ll"))
}

fn args(stem: &str) -> Args {
    Args {
        src: ex(stem, "src"),
        tgt: ex(stem, "tgt"),
        kernel: None,
        check: CheckArgs {
            threads: "1..3".into(),
            max_steps: 8,
            observe: ObserveArg::Auto,
            uncontrolled: UncontrolledArg::Maximal,
            shuffle_oob: ShuffleOobArg::Poison,
            timeout: 30,
            strategies: StrategiesArg::Canonical,
            no_replay: false,
            hierarchy: HierarchyArg::All,
            grow_steps: None,
            buffer_bytes: semantics::machine::DEFAULT_BUFFER_BYTES,
            grow_buffers: None,
        },
        time_limit: 300,
        dump_smt: None,
        json: false,
        stats: false,
        report: None,
        dot: None,
        cutoff: None,
        no_lift: false,
        no_auto_cutoff: false,
    }
}

/// `--cutoff W` follows the exit-status scheme: 0 when C-PAIR gives
/// `refines` for every thread count up to W, 1 for the bounded
/// counterexample when the pair check finds a difference.
#[test]
fn cutoff_exit_statuses() {
    let mut a = Args {
        cutoff: Some(64),
        ..args("cl03-jump-threading")
    };
    a.check.threads = "2".into();
    assert_eq!(run(&a).ok(), Some(Exit::Ok));
    let mut a = Args {
        cutoff: Some(64),
        ..args("cl29-unroll-uncontrolled-remainder")
    };
    a.check.threads = "2".into();
    assert_eq!(run(&a).ok(), Some(Exit::Negative));
}

#[test]
fn exit_statuses() {
    assert_eq!(
        run(&args("cl02-reduction-merge-uniform")).ok(),
        Some(Exit::Ok)
    );
    assert_eq!(
        run(&args("cl02-reduction-merge-divergent")).ok(),
        Some(Exit::Negative)
    );
    let mut a = args("cl01-texture-sink-uniform");
    a.check.observe = ObserveArg::Sets;
    a.json = true;
    assert_eq!(run(&a).ok(), Some(Exit::Negative));
    // CL-18: the target breaks S-CYCLE-1.
    let e = run(&args("cl18-anchor-hoist-loop")).expect_err("invalid target");
    assert_eq!(e.status, Exit::BadInput);
    assert!(
        e.message.contains("S-CYCLE-1") && e.message.contains("target"),
        "{}",
        e.message
    );
    // Calls of defined functions are inlined (F-20 fixed), recursion to a
    // depth: a recursion without end whose arguments change is unknown (no
    // execution returns, and it never repeats itself: R-PREFIX-REC does
    // not apply), exit 2. An indirect call is a call of an unknown function
    // (R-CALL-IND): exit 0 against itself. Passing a pointer to an unknown
    // function that may access memory in a kernel that loads is outside
    // the encoding (R-CALL-PTR): no verdict (exit 2, the project-wide
    // scheme: an unsupported construct in readable input), as an error
    // naming it.
    let tmp = |name: &str, text: &str| {
        let p = std::env::temp_dir().join(format!("refine-{name}-{}.ll", std::process::id()));
        std::fs::write(&p, text).expect("temp file");
        p
    };
    let rec = tmp(
        "rec",
        "define void @f(i32 %x) {\n  %y = add i32 %x, 1\n  call void @f(i32 %y)\n  ret void\n}\n\
         define void @k(i32 %a) {\n  call void @f(i32 %a)\n  ret void\n}\n",
    );
    let mut a = args("cl02-reduction-merge-uniform");
    a.src = rec.clone();
    a.tgt = rec.clone();
    a.kernel = Some("k".into());
    assert_eq!(run(&a).ok(), Some(Exit::NoVerdict));
    let _ = std::fs::remove_file(&rec);
    let ind = tmp(
        "ind",
        "define void @k(ptr %f) {\n  call void %f()\n  ret void\n}\n",
    );
    a.src = ind.clone();
    a.tgt = ind.clone();
    assert_eq!(run(&a).ok(), Some(Exit::Ok));
    let _ = std::fs::remove_file(&ind);
    let ptr = tmp(
        "ptr",
        "define void @k(ptr %f) {\n  %v = load i32, ptr %f\n  call void %f(i32 %v)\n  \
         ret void\n}\n",
    );
    a.src = ptr.clone();
    a.tgt = ptr.clone();
    let e = run(&a).expect_err("unsupported");
    let _ = std::fs::remove_file(&ptr);
    assert_eq!(e.status, Exit::NoVerdict);
    assert!(
        e.message.contains("unsupported") && e.message.contains("R-CALL-PTR"),
        "{}",
        e.message
    );
    let mut a = args("cl02-reduction-merge-uniform");
    a.src = PathBuf::from("/nonexistent.ll");
    assert_eq!(run(&a).expect_err("unreadable").status, Exit::BadInput);
}

#[test]
fn dump_smt_writes_replayable_queries() {
    let dir = std::env::temp_dir().join(format!("refine-dump-{}", std::process::id()));
    let mut a = args("cl30-sink-divergent-branch");
    a.dump_smt = Some(dir.clone());
    assert_eq!(run(&a).ok(), Some(Exit::Negative));
    let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    assert!(n > 0, "no SMT-LIB files in {}", dir.display());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn threads_syntax() {
    assert_eq!(parse_threads("1..4"), Ok(vec![1, 2, 3, 4]));
    assert_eq!(parse_threads("2,8"), Ok(vec![2, 8]));
    assert_eq!(parse_threads("3"), Ok(vec![3]));
    assert!(parse_threads("0").is_err());
    assert!(parse_threads("x").is_err());
}
