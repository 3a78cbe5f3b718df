//! R-FREEZE-SMT: `freeze` in the refinement encoding (issue 12 item 6). A
//! frozen poison is an arbitrary but fixed value per dynamic instance: in
//! the target a value the solver picks (part of the counterexample, which
//! replay gives to the interpreter's `freeze` through its input domain), in
//! the source a choice the check searches. Each pair pins its verdict; a
//! counterexample the interpreter does not confirm fails the test, and the
//! interpreter's verdict (M-OPER over `%x` in 0..=2, its freeze choosing
//! from the same domain) must agree with the checker's (MC-07).

mod common;

use common::verdict_name;
use std::time::Duration;

use checker::agree::check_agreement;
use checker::refine::{check_pair, Options};
use checker::smt::Session;

/// The verdict of `refine` on (src, tgt) for kernel `@k`, 1 and 2 threads.
fn verdict(src: &str, tgt: &str) -> String {
    let decls = "declare void @use(i32)";
    let (src, tgt) = (format!("{src}\n{decls}"), format!("{tgt}\n{decls}"));
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

/// `@k(i32 %x)` computing `%r` with `body`, observed by `@use`.
fn k(body: &str) -> String {
    format!("define void @k(i32 %x) {{\nentry:\n{body}\n  call void @use(i32 %r)\n  ret void\n}}")
}

const MAX: &str = "2147483647";

/// Both formalizations, then the checker at full range.
fn both(src: &str, tgt: &str) -> String {
    let decls = "declare void @use(i32)";
    let agree = check_agreement(&format!("{src}\n{decls}"), &format!("{tgt}\n{decls}"));
    let full = verdict(src, tgt);
    assert!(agree.is_ok(), "M-AGREE: {agree:?}\n{src}\n=>\n{tgt}");
    full
}

/// A freeze of a value that is never poison changes nothing; one of a
/// poison the source also has refines with the same name (the source
/// follows the target's choice).
#[test]
fn freeze_of_defined_values_and_shared_freezes_refine() {
    let s = k("  %r = add i32 %x, 1");
    let t = k("  %f = freeze i32 %x\n  %r = add i32 %f, 1");
    assert_eq!(both(&s, &t), "refines");
    assert_eq!(both(&t, &s), "refines");
    let s = k("  %p = add nsw i32 %x, 2147483647\n  %r = freeze i32 %p");
    assert_eq!(both(&s, &s), "refines");
}

/// The source's frozen poison may be any value: a target with the
/// wrapped sum (`nsw` dropped) or a constant refines it.
#[test]
fn source_freeze_is_a_choice() {
    let s = k(&format!(
        "  %p = add nsw i32 %x, {MAX}\n  %r = freeze i32 %p"
    ));
    let t = k(&format!("  %r = add i32 %x, {MAX}"));
    assert_eq!(both(&s, &t), "refines");
    let s = k("  %r = freeze i32 poison");
    let t = k("  %r = add i32 7, 0");
    assert_eq!(both(&s, &t), "refines");
}

/// The target's frozen poison may be any value: where the source is
/// defined, a counterexample, which replay confirms with the solver's
/// frozen value.
#[test]
fn target_freeze_of_poison_is_a_counterexample() {
    let s = k("  %r = add i32 7, 0");
    let t = k("  %r = freeze i32 poison");
    assert_eq!(both(&s, &t), "counterexample");
    // Adding `nsw` and freezing: when the sum overflows, the target's
    // frozen value need not be the wrapped one.
    let s = k(&format!(
        "  %p = add i32 %x, {MAX}\n  %r = sub i32 %p, {MAX}"
    ));
    let t = k(&format!(
        "  %p = add nsw i32 %x, {MAX}\n  %f = freeze i32 %p\n  %r = sub i32 %f, {MAX}"
    ));
    assert_eq!(verdict(&s, &t), "counterexample");
}

/// Freezing a branch condition that is poison where the source's branch
/// is UB refines (LoopUnswitch, SimplifyCFG insert such freezes).
#[test]
fn freezing_a_branch_on_poison_refines() {
    let prog = |cond: &str| {
        format!(
            "define void @k(i32 %x) {{
entry:
  %p = add nsw i32 %x, {MAX}
  %c0 = icmp eq i32 %p, 0
{cond}
  br i1 %c, label %a, label %b
a:
  call void @use(i32 1)
  ret void
b:
  call void @use(i32 2)
  ret void
}}"
        )
    };
    let s = prog("  %c = or i1 %c0, false");
    let t = prog("  %c = freeze i1 %c0");
    assert_eq!(verdict(&s, &t), "refines");
    // The converse introduces UB where the (frozen) source is defined.
    assert_eq!(verdict(&t, &s), "counterexample");
}
