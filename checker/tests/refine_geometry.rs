//! P-LAUNCH in the encoding: thread-geometry reads other than the thread
//! id (`get_local_size`, `ntid`, group ids, dimensions 1 and 2) have the
//! interpreter's values for the checked launch (one group and one subgroup
//! of N threads, 1-D), so both formalizations agree (MC-07 over `%x` in
//! 0..=2) and the checker answers at full range instead of `unsupported`.

mod common;

use common::verdict_name;
use std::time::Duration;

use checker::agree::check_agreement;
use checker::refine::{check_pair, Options};
use checker::smt::Session;

const DECLS: &str = "declare void @use(i32)
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z14get_local_sizej(i32)
declare i64 @_Z12get_group_idj(i32)
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()";

fn verdict(src: &str, tgt: &str, threads: Vec<usize>) -> String {
    let (src, tgt) = (format!("{src}\n{DECLS}"), format!("{tgt}\n{DECLS}"));
    let s = semantics::parse_module("src.ll", &src).expect("test source parses");
    let t = semantics::parse_module("tgt.ll", &tgt).expect("test target parses");
    let o = Options {
        threads,
        timeout: Duration::from_secs(60),
        ..Options::default()
    };
    let mut session = Session::new(None);
    verdict_name(check_pair(&s, &t, "k", &o, &mut session, true, None).expect("check runs"))
}

fn both(src: &str, tgt: &str) -> String {
    let agree = check_agreement(&format!("{src}\n{DECLS}"), &format!("{tgt}\n{DECLS}"));
    assert!(agree.is_ok(), "M-AGREE: {agree:?}\n{src}\n=>\n{tgt}");
    verdict(src, tgt, vec![1, 2, 3])
}

fn k(body: &str) -> String {
    format!("define void @k(i32 %x) {{\nentry:\n{body}\n  call void @use(i32 %r)\n  ret void\n}}")
}

#[test]
fn sizes_and_ids_have_the_launch_values() {
    // A local id is below the local size; group ids and other dimensions
    // are 0.
    let s = k("  %id = call i64 @_Z12get_local_idj(i32 0)
  %n = call i64 @_Z14get_local_sizej(i32 0)
  %g = call i64 @_Z12get_group_idj(i32 0)
  %y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %lt = icmp ult i64 %id, %n
  %g0 = icmp eq i64 %g, 0
  %y0 = icmp eq i32 %y, 0
  %a = and i1 %lt, %g0
  %b = and i1 %a, %y0
  %r = zext i1 %b to i32");
    let t = k("  %r = add i32 1, 0");
    assert_eq!(both(&s, &t), "refines");
    // ntid.x is the launch size, not a constant.
    let s = k("  %r = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()");
    let t = k("  %r = add i32 2, 0");
    assert_eq!(both(&s, &t), "counterexample");
    assert_eq!(verdict(&s, &t, vec![2]), "refines");
}

/// C-OPS: OpenCL `sub_group_broadcast` reads the value of the member at a
/// lane as an index shuffle does (the interpreter's `read_lane`), so
/// broadcasting lane 0 equals the first-lane read when lane 0 is active,
/// and both formalizations agree.
#[test]
fn subgroup_broadcast_is_encoded() {
    let decls = "declare i32 @_Z19sub_group_broadcastjj(i32, i32) convergent
declare i32 @llvm.amdgcn.readfirstlane.i32(i32) convergent";
    let prog = |body: &str| {
        format!(
            "define void @k(i32 %x) convergent {{
entry:
{body}
  call void @use(i32 %r)
  ret void
}}
{decls}"
        )
    };
    let s = prog("  %r = call i32 @_Z19sub_group_broadcastjj(i32 %x, i32 0)");
    let t = prog("  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x)");
    assert_eq!(both(&s, &t), "refines");
    let t2 = prog("  %r = call i32 @_Z19sub_group_broadcastjj(i32 %x, i32 1)");
    assert_eq!(both(&s, &t2), "counterexample");
}
