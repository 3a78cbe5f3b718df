//! P-ASSUME: `llvm.assume` of false or poison is UB in both
//! formalizations (the interpreter, M-OPER, over `%x` in 0..=2 and the
//! checker at full range), so a target may use what the source assumes,
//! and a target that adds a failing assume introduces UB.

mod common;

use common::verdict_name;
use std::time::Duration;

use checker::agree::check_agreement;
use checker::refine::{check_pair, Options};
use checker::smt::Session;

const DECLS: &str = "declare void @use(i32)\ndeclare void @llvm.assume(i1)";

fn verdict(src: &str, tgt: &str) -> String {
    let (src, tgt) = (format!("{src}\n{DECLS}"), format!("{tgt}\n{DECLS}"));
    let s = semantics::parse_module("src.ll", &src).expect("test source parses");
    let t = semantics::parse_module("tgt.ll", &tgt).expect("test target parses");
    let o = Options {
        threads: vec![1, 2],
        timeout: Duration::from_secs(60),
        ..Options::default()
    };
    let mut session = Session::new(None);
    verdict_name(check_pair(&s, &t, "k", &o, &mut session, true, None).expect("check runs"))
}

/// Both formalizations agree (MC-07), then the checker's full-range verdict.
fn both(src: &str, tgt: &str) -> String {
    let agree = check_agreement(&format!("{src}\n{DECLS}"), &format!("{tgt}\n{DECLS}"));
    assert!(agree.is_ok(), "M-AGREE: {agree:?}\n{src}\n=>\n{tgt}");
    verdict(src, tgt)
}

fn k(body: &str) -> String {
    format!(
        "define void @k(i32 %x) {{\nentry:\n  %c = icmp sgt i32 %x, 1\n{body}\n  call void @use(i32 %r)\n  ret void\n}}"
    )
}

#[test]
fn a_target_may_use_what_the_source_assumes() {
    let s = k("  call void @llvm.assume(i1 %c)\n  %r = select i1 %c, i32 %x, i32 7");
    let t = k("  call void @llvm.assume(i1 %c)\n  %r = add i32 %x, 0");
    assert_eq!(both(&s, &t), "refines");
    // Without the source's assume the rewrite is wrong.
    let s2 = k("  %r = select i1 %c, i32 %x, i32 7");
    assert_eq!(both(&s2, &t), "counterexample");
    // An assume of poison is UB too (here for %x >= 1, where the `nsw`
    // sum overflows): the target may differ there.
    let s3 = k(
        "  %q = add nsw i32 %x, 2147483647\n  %b = icmp sgt i32 %q, 0\n  call void @llvm.assume(i1 %b)\n  %r = add i32 %x, 0",
    );
    let t3 = k(
        "  %q = add i32 %x, 2147483647\n  %b = icmp sgt i32 %q, 0\n  %r = select i1 %b, i32 %x, i32 5",
    );
    assert_eq!(both(&s3, &t3), "refines");
    // A target that adds an assume which can fail introduces UB.
    assert_eq!(both(&s2, &s), "counterexample");
    assert_eq!(both(&t3, &s3), "counterexample");
}
