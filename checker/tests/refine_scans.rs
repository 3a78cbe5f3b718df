//! C-OPS in the encoding: subgroup scans (inclusive and exclusive), count
//! of set bits over the set and is-first-lane, which answered
//! `unsupported` before. Lanes are thread indices (one group of one
//! subgroup per launch), as the interpreter's `machine::collective`; each
//! pair is checked by both formalizations (M-AGREE, MC-07: the
//! interpreter's verdict over `%x` in 0..=2 equals the encoding's) and by
//! the encoding at full range, where counterexamples are replayed (R-CEX).

mod common;

use common::verdict_name;
use std::time::Duration;

use checker::agree::check_agreement;
use checker::refine::{check_pair, Options};
use checker::smt::Session;

const DECLS: &str = "declare void @use(i32)
declare i32 @_Z28sub_group_scan_inclusive_addi(i32) convergent
declare i32 @_Z28sub_group_scan_exclusive_addi(i32) convergent
declare i32 @_Z28sub_group_scan_inclusive_maxi(i32) convergent
declare i32 @_Z20sub_group_reduce_addi(i32) convergent
declare i32 @llvm.spv.wave.active.countbits(i1) convergent
declare i1 @llvm.spv.wave.is.first.lane() convergent
declare i64 @llvm.amdgcn.ballot.i64(i1) convergent
declare i64 @llvm.ctpop.i64(i64)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32) convergent
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
declare i1 @llvm.amdgcn.inverse.ballot.i64(i64) convergent
declare i32 @_Z13sub_group_alli(i32) convergent
declare i32 @_Z13sub_group_anyi(i32) convergent
declare i32 @llvm.amdgcn.wwm.i32(i32) convergent";

fn both(src: &str, tgt: &str) -> String {
    let (src, tgt) = (format!("{src}\n{DECLS}"), format!("{tgt}\n{DECLS}"));
    let agree = check_agreement(&src, &tgt);
    assert!(agree.is_ok(), "M-AGREE: {agree:?}\n{src}\n=>\n{tgt}");
    let s = semantics::parse_module("src.ll", &src).expect("test source parses");
    let t = semantics::parse_module("tgt.ll", &tgt).expect("test target parses");
    let o = Options {
        threads: vec![1, 2, 3],
        timeout: Duration::from_secs(60),
        ..Options::default()
    };
    let mut session = Session::new(None);
    verdict_name(check_pair(&s, &t, "k", &o, &mut session, true, None).expect("check runs"))
}

/// The kernel: `body` computes `%r`, used in a branch on `%x` (divergent)
/// or unconditionally.
fn k(body: &str) -> String {
    format!(
        "define void @k(i32 %x) convergent {{
entry:
{body}
  call void @use(i32 %r)
  ret void
}}"
    )
}

/// `%r` computed inside `if (x > 0)`: only the threads with `x > 0` take
/// part.
fn divergent(body: &str) -> String {
    format!(
        "define void @k(i32 %x) convergent {{
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %end
then:
{body}
  call void @use(i32 %r)
  br label %end
end:
  ret void
}}"
    )
}

/// An inclusive scan is the exclusive scan plus the thread's own value
/// (wrapping), in every set; dropping the own value is a difference.
#[test]
fn inclusive_scan_is_exclusive_plus_own() {
    let s = "  %r = call i32 @_Z28sub_group_scan_inclusive_addi(i32 %x)";
    let t = "  %e = call i32 @_Z28sub_group_scan_exclusive_addi(i32 %x)\n  %r = add i32 %e, %x";
    assert_eq!(both(&k(s), &k(t)), "refines");
    assert_eq!(both(&divergent(s), &divergent(t)), "refines");
    let wrong = "  %r = call i32 @_Z28sub_group_scan_exclusive_addi(i32 %x)";
    assert_eq!(both(&k(s), &k(wrong)), "counterexample");
}

/// The last lane's inclusive scan is the reduction; a scan is not a
/// reduction in the other lanes; the max scan is not the add scan.
#[test]
fn scans_read_the_lanes_below() {
    let red = "  %r = call i32 @_Z20sub_group_reduce_addi(i32 %x)";
    let scan = "  %r = call i32 @_Z28sub_group_scan_inclusive_addi(i32 %x)";
    assert_eq!(both(&k(red), &k(scan)), "counterexample");
    let max = "  %r = call i32 @_Z28sub_group_scan_inclusive_maxi(i32 %x)";
    assert_eq!(both(&k(scan), &k(max)), "counterexample");
}

/// Hoisting a scan out of a divergent branch changes its set (C-OPS over
/// the communicating set): the threads with `x <= 0` no longer stay out.
#[test]
fn scan_hoisted_out_of_a_branch_differs() {
    let scan = "  %r = call i32 @_Z28sub_group_scan_inclusive_addi(i32 %x)";
    let hoisted = "define void @k(i32 %x) convergent {
entry:
  %r = call i32 @_Z28sub_group_scan_inclusive_addi(i32 %x)
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %end
then:
  call void @use(i32 %r)
  br label %end
end:
  ret void
}";
    assert_eq!(both(&divergent(scan), hoisted), "counterexample");
}

/// Count of set bits over the set is the population count of the ballot;
/// is-first-lane is "my id is the first lane's id".
#[test]
fn count_bits_and_is_first() {
    let count = "  %c = icmp sgt i32 %x, 0\n  %r = call i32 @llvm.spv.wave.active.countbits(i1 %c)";
    let pop = "  %c = icmp sgt i32 %x, 0
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 %c)
  %p = call i64 @llvm.ctpop.i64(i64 %b)
  %r = trunc i64 %p to i32";
    assert_eq!(both(&k(count), &k(pop)), "refines");
    let off = pop.replace(
        "%r = trunc i64 %p to i32",
        "%q = trunc i64 %p to i32\n  %r = add i32 %q, 1",
    );
    assert_eq!(both(&k(count), &k(&off)), "counterexample");
    let first = "  %f = call i1 @llvm.spv.wave.is.first.lane()\n  %r = zext i1 %f to i32";
    let by_id = "  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %l = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %id)
  %f = icmp eq i32 %id, %l
  %r = zext i1 %f to i32";
    assert_eq!(both(&divergent(first), &divergent(by_id)), "refines");
    let never = "  %r = add i32 0, 0";
    assert_eq!(both(&divergent(first), &divergent(never)), "counterexample");
}

/// R-LANE-SMT: `mbcnt.hi(-1, mbcnt.lo(-1, 0))` is the lane, the thread
/// index (the usual AMDGPU idiom); `mbcnt.lo` alone is not 0; the inverse
/// ballot of a ballot of `c` is `c`, of 0 is false.
#[test]
fn mbcnt_and_inverse_ballot_read_the_lane() {
    let mbcnt = "  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %r = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)";
    let id = "  %r = call i32 @llvm.amdgcn.workitem.id.x()";
    assert_eq!(both(&k(mbcnt), &k(id)), "refines");
    let zero = "  %r = add i32 0, 0";
    assert_eq!(both(&k(mbcnt), &k(zero)), "counterexample");
    let masked = "  %r = call i32 @llvm.amdgcn.mbcnt.lo(i32 5, i32 %x)";
    let by_hand = "  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %one = shl i32 1, %id
  %below = sub i32 %one, 1
  %m = and i32 %below, 5
  %c = call i32 @llvm.ctpop.i32(i32 %m)
  %r = add i32 %c, %x";
    assert_eq!(
        both(
            &k(masked),
            &format!("{}\ndeclare i32 @llvm.ctpop.i32(i32)", k(by_hand))
        ),
        "refines"
    );
    let inv = "  %c = icmp sgt i32 %x, 0
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 %c)
  %f = call i1 @llvm.amdgcn.inverse.ballot.i64(i64 %b)
  %r = zext i1 %f to i32";
    let direct = "  %c = icmp sgt i32 %x, 0\n  %r = zext i1 %c to i32";
    assert_eq!(both(&k(inv), &k(direct)), "refines");
    let none = "  %f = call i1 @llvm.amdgcn.inverse.ballot.i64(i64 0)\n  %r = zext i1 %f to i32";
    assert_eq!(both(&k(none), &k(zero)), "refines");
    assert_eq!(both(&k(inv), &k(zero)), "counterexample");
}

/// OpenCL's `sub_group_all(int)` votes on nonzero `int`s (the
/// interpreter's `truth`), so normalising the argument to 0/1 changes
/// nothing and `any` differs; `llvm.amdgcn.wwm` passes its operand
/// through (R-LANE-SMT).
#[test]
fn int_votes_and_pass_through() {
    let all = "  %r = call i32 @_Z13sub_group_alli(i32 %x)";
    let norm = "  %nz = icmp ne i32 %x, 0
  %n = zext i1 %nz to i32
  %r = call i32 @_Z13sub_group_alli(i32 %n)";
    assert_eq!(both(&divergent(all), &divergent(norm)), "refines");
    let any = "  %r = call i32 @_Z13sub_group_anyi(i32 %x)";
    assert_eq!(both(&k(all), &k(any)), "counterexample");
    let wwm = "  %r = call i32 @llvm.amdgcn.wwm.i32(i32 %x)";
    let plain = "  %r = add i32 %x, 0";
    assert_eq!(both(&k(wwm), &k(plain)), "refines");
    let off = "  %r = add i32 %x, 1";
    assert_eq!(both(&k(wwm), &k(off)), "counterexample");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 32, ..proptest::prelude::ProptestConfig::default() })]

    /// MC-07 / M-AGREE on generated programs with scans, count-bits and
    /// is-first-lane (`testgen::refine_family::arb_lane_prog`, in the entry
    /// block, a divergent arm, the join or a loop with a heart, controlled
    /// or not) and a mutation moving or dropping one of them: the
    /// interpreter's verdict equals the SMT checker's.
    #[test]
    fn mc07_lane_ops_checker_agrees_with_interpreter(
        p in testgen::refine_family::arb_lane_prog(2),
        (i, to) in testgen::refine_family::arb_mutation(),
    ) {
        let q = testgen::refine_family::mutate(&p, i, to);
        let (st, tt) = (testgen::refine_family::render(&p), testgen::refine_family::render(&q));
        let r = check_agreement(&st, &tt);
        proptest::prop_assert!(r.is_ok(), "{}\nsource:\n{}\ntarget:\n{}", r.err().unwrap_or_default(), st, tt);
    }
}
