//! `convcheck verify`: exit statuses (0 valid, 1 violations, 2 a function not
//! analysed, 3 bad input)
//! and the options reaching the library.

use std::path::PathBuf;

use checker::cli::Exit;
use checker::cmd::verify::{run, Args};

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("convcheck-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    p
}

fn args(file: PathBuf) -> Args {
    Args {
        file,
        json: false,
        llvm_compatible: false,
        closed_paths: None,
    }
}

const VALID: &str = "define void @k() convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  br label %h
h:
  %l = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %e) ]
  call void @op() [ \"convergencectrl\"(token %l) ]
  br label %h
}
declare void @op() convergent
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
";

#[test]
fn verify_exit_statuses() {
    let valid = tmp("valid.ll", VALID);
    assert_eq!(run(&args(valid.clone())).ok(), Some(Exit::Ok));
    let mut j = args(valid);
    j.json = true;
    j.llvm_compatible = true;
    assert_eq!(run(&j).ok(), Some(Exit::Ok));

    let cl07 =
        testgen::oracle::workspace_root().join("examples/cl07-infinite-loop-outer-anchor.ll");
    assert_eq!(run(&args(cl07.clone())).ok(), Some(Exit::Negative));
    let mut p = args(cl07);
    p.closed_paths = Some(6);
    assert_eq!(run(&p).ok(), Some(Exit::Negative));

    // P-PROG: a function the front end cannot read (inline asm) is not
    // checked, so a module holding one has no verdict (exit 2), whatever
    // the other functions give; a violation elsewhere still answers 1.
    let asm_fn =
        "define void @a() {\n  call void asm sideeffect \"s_nop 0\", \"\"()\n  ret void\n}\n";
    let partial = tmp("partial.ll", &format!("{VALID}{asm_fn}"));
    assert_eq!(run(&args(partial.clone())).ok(), Some(Exit::NoVerdict));
    let mut pj = args(partial);
    pj.json = true;
    assert_eq!(run(&pj).ok(), Some(Exit::NoVerdict));
    let cl07_text = std::fs::read_to_string(
        testgen::oracle::workspace_root().join("examples/cl07-infinite-loop-outer-anchor.ll"),
    )
    .expect("example readable");
    let both = tmp("both.ll", &format!("{cl07_text}{asm_fn}"));
    assert_eq!(run(&args(both)).ok(), Some(Exit::Negative));

    let bad = tmp("bad.ll", "define void @f( {\n");
    assert_eq!(
        run(&args(bad)).err().map(|e| e.status),
        Some(Exit::BadInput)
    );
    let missing = PathBuf::from("/nonexistent/definitely-missing.ll");
    assert_eq!(
        run(&args(missing)).err().map(|e| e.status),
        Some(Exit::BadInput)
    );
}

#[derive(clap::Parser)]
struct Wrapper {
    #[command(flatten)]
    args: Args,
}

/// The flags as the integrator will expose them (`convcheck verify ...`).
#[test]
fn verify_flags_parse() {
    use clap::{CommandFactory, Parser};
    let w = Wrapper::try_parse_from([
        "verify",
        "f.ll",
        "--json",
        "--llvm-compatible",
        "--closed-paths",
        "5",
    ])
    .expect("flags parse");
    assert_eq!(w.args.file, PathBuf::from("f.ll"));
    assert!(w.args.json && w.args.llvm_compatible);
    assert_eq!(w.args.closed_paths, Some(5));
    let help = Wrapper::command().render_long_help().to_string();
    assert!(
        help.contains("--llvm-compatible") && help.contains("opt-22"),
        "{help}"
    );
    assert!(
        Wrapper::try_parse_from(["verify"]).is_err(),
        "FILE is required"
    );
}
