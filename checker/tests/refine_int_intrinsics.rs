//! P-THREAD in the encoding: each pure integer intrinsic of the table
//! (cttz, ctlz, abs, bitreverse, bswap, fshl, fshr, the saturating
//! add/sub) is checked against an expansion into plain instructions (the
//! shapes InstCombine recognises), in both directions, for every input
//! (the solver's, not samples); a target that differs in one bit gives a
//! counterexample the interpreter replays (R-CEX), so encoder and
//! interpreter compute the same values. The interpreter itself is checked
//! against opt-22's constant folding (semantics/tests/interp_int_intrinsics.rs).

mod common;

use common::verdict_name;
use std::time::Duration;

use checker::refine::{check_pair, Options};
use checker::smt::Session;
use semantics::ir::Module;

fn parse(text: &str) -> Module {
    semantics::parse_module("t.ll", text)
        .unwrap_or_else(|e| panic!("test module parses: {e}\n{text}"))
}

/// The verdict's name; a replay disagreement fails the test.
fn check(src: &str, tgt: &str) -> String {
    let (src, tgt) = (parse(src), parse(tgt));
    let o = Options {
        threads: vec![1],
        timeout: Duration::from_secs(60),
        ..Options::default()
    };
    let mut session = Session::new(None);
    verdict_name(check_pair(&src, &tgt, "k", &o, &mut session, true, None).expect("check runs"))
}

/// A kernel `@k(params)` returning `ty` computed by `body` (which defines
/// `%r`).
fn kernel(ty: &str, params: &str, body: &str) -> String {
    kernel_ret(ty, params, body, "%r")
}

/// [`kernel`] returning `ret`.
fn kernel_ret(ty: &str, params: &str, body: &str, ret: &str) -> String {
    format!(
        "define {ty} @k({params}) {{\n{body}\n  ret {ty} {ret}\n}}\n\
         declare i8 @llvm.ctpop.i8(i8)\n\
         declare i8 @llvm.cttz.i8(i8, i1)\n\
         declare i8 @llvm.ctlz.i8(i8, i1)\n\
         declare i8 @llvm.abs.i8(i8, i1)\n\
         declare i8 @llvm.bitreverse.i8(i8)\n\
         declare i32 @llvm.bswap.i32(i32)\n\
         declare i8 @llvm.fshl.i8(i8, i8, i8)\n\
         declare i8 @llvm.fshr.i8(i8, i8, i8)\n\
         declare i8 @llvm.uadd.sat.i8(i8, i8)\n\
         declare i8 @llvm.usub.sat.i8(i8, i8)\n\
         declare i8 @llvm.sadd.sat.i8(i8, i8)\n\
         declare i8 @llvm.ssub.sat.i8(i8, i8)\n"
    )
}

/// (intrinsic call defining `%r`, an expansion defining `%r`) over
/// `i8 %a, i8 %b, i8 %c` (bswap: i32 %w).
const PAIRS: &[(&str, &str, &str)] = &[
    (
        "cttz",
        "  %r = call i8 @llvm.cttz.i8(i8 %a, i1 false)",
        "  %n = sub i8 0, %a\n  %low = and i8 %a, %n\n  %m = sub i8 %low, 1\n  %r = call i8 @llvm.ctpop.i8(i8 %m)",
    ),
    (
        "ctlz",
        "  %r = call i8 @llvm.ctlz.i8(i8 %a, i1 false)",
        "  %s1 = lshr i8 %a, 1\n  %x1 = or i8 %a, %s1\n  %s2 = lshr i8 %x1, 2\n  %x2 = or i8 %x1, %s2\n  %s4 = lshr i8 %x2, 4\n  %x4 = or i8 %x2, %s4\n  %p = call i8 @llvm.ctpop.i8(i8 %x4)\n  %r = sub i8 8, %p",
    ),
    (
        "abs",
        "  %r = call i8 @llvm.abs.i8(i8 %a, i1 false)",
        "  %neg = icmp slt i8 %a, 0\n  %m = sub i8 0, %a\n  %r = select i1 %neg, i8 %m, i8 %a",
    ),
    (
        "bitreverse",
        "  %r = call i8 @llvm.bitreverse.i8(i8 %a)",
        "  %h = lshr i8 %a, 4\n  %l = shl i8 %a, 4\n  %x = or i8 %h, %l\n  %h2 = lshr i8 %x, 2\n  %h2m = and i8 %h2, 51\n  %l2 = shl i8 %x, 2\n  %l2m = and i8 %l2, -52\n  %y = or i8 %h2m, %l2m\n  %h1 = lshr i8 %y, 1\n  %h1m = and i8 %h1, 85\n  %l1 = shl i8 %y, 1\n  %l1m = and i8 %l1, -86\n  %r = or i8 %h1m, %l1m",
    ),
    (
        "fshl",
        "  %r = call i8 @llvm.fshl.i8(i8 %a, i8 %b, i8 %c)",
        "  %s = urem i8 %c, 8\n  %z = icmp eq i8 %s, 0\n  %t = sub i8 8, %s\n  %hi = shl i8 %a, %s\n  %lo = lshr i8 %b, %t\n  %o = or i8 %hi, %lo\n  %r = select i1 %z, i8 %a, i8 %o",
    ),
    (
        "fshr",
        "  %r = call i8 @llvm.fshr.i8(i8 %a, i8 %b, i8 %c)",
        "  %s = urem i8 %c, 8\n  %z = icmp eq i8 %s, 0\n  %t = sub i8 8, %s\n  %hi = shl i8 %a, %t\n  %lo = lshr i8 %b, %s\n  %o = or i8 %hi, %lo\n  %r = select i1 %z, i8 %b, i8 %o",
    ),
    (
        "uadd.sat",
        "  %r = call i8 @llvm.uadd.sat.i8(i8 %a, i8 %b)",
        "  %s = add i8 %a, %b\n  %o = icmp ult i8 %s, %a\n  %r = select i1 %o, i8 -1, i8 %s",
    ),
    (
        "usub.sat",
        "  %r = call i8 @llvm.usub.sat.i8(i8 %a, i8 %b)",
        "  %d = sub i8 %a, %b\n  %u = icmp ult i8 %a, %b\n  %r = select i1 %u, i8 0, i8 %d",
    ),
    (
        "sadd.sat",
        "  %r = call i8 @llvm.sadd.sat.i8(i8 %a, i8 %b)",
        "  %wa = sext i8 %a to i16\n  %wb = sext i8 %b to i16\n  %s = add i16 %wa, %wb\n  %hi = icmp sgt i16 %s, 127\n  %lo = icmp slt i16 %s, -128\n  %t = trunc i16 %s to i8\n  %c1 = select i1 %hi, i8 127, i8 %t\n  %r = select i1 %lo, i8 -128, i8 %c1",
    ),
    (
        "ssub.sat",
        "  %r = call i8 @llvm.ssub.sat.i8(i8 %a, i8 %b)",
        "  %wa = sext i8 %a to i16\n  %wb = sext i8 %b to i16\n  %s = sub i16 %wa, %wb\n  %hi = icmp sgt i16 %s, 127\n  %lo = icmp slt i16 %s, -128\n  %t = trunc i16 %s to i8\n  %c1 = select i1 %hi, i8 127, i8 %t\n  %r = select i1 %lo, i8 -128, i8 %c1",
    ),
];

const PARAMS: &str = "i8 %a, i8 %b, i8 %c";

/// Rule P-THREAD: intrinsic and expansion refine each other for every
/// input, and flipping the low bit of the result is a counterexample the
/// interpreter confirms.
#[test]
fn intrinsics_equal_their_expansions() {
    let mut wrong = Vec::new();
    for (name, call, expansion) in PAIRS {
        let intr = kernel("i8", PARAMS, call);
        let exp = kernel("i8", PARAMS, expansion);
        let flipped = kernel_ret(
            "i8",
            PARAMS,
            &format!("{call}\n  %r2 = xor i8 %r, 1"),
            "%r2",
        );
        for (what, s, t, want) in [
            ("intrinsic -> expansion", &intr, &exp, "refines"),
            ("expansion -> intrinsic", &exp, &intr, "refines"),
            ("intrinsic -> flipped", &intr, &flipped, "counterexample"),
        ] {
            let got = check(s, t);
            if got != want {
                wrong.push(format!("{name}: {what}: {got}, expected {want}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `bswap` on i32 against shifts and masks.
#[test]
fn bswap_equals_its_expansion() {
    let call = "  %r = call i32 @llvm.bswap.i32(i32 %a)";
    let exp = "  %b0 = shl i32 %a, 24\n  %t1 = and i32 %a, 65280\n  %b1 = shl i32 %t1, 8\n  %t2 = lshr i32 %a, 8\n  %b2 = and i32 %t2, 65280\n  %b3 = lshr i32 %a, 24\n  %o1 = or i32 %b0, %b1\n  %o2 = or i32 %o1, %b2\n  %r = or i32 %o2, %b3";
    let (i, e) = (kernel("i32", "i32 %a", call), kernel("i32", "i32 %a", exp));
    assert_eq!(check(&i, &e), "refines");
    assert_eq!(check(&e, &i), "refines");
}

/// The `i1` flags: cttz of 0 and abs of -128 are poison when the flag is
/// set, so the flagged call is refined by the defined one but not the
/// other way round (the target would return poison where the source
/// returns 8 or -128), a counterexample the interpreter confirms.
#[test]
fn poison_flags() {
    for (defined, flagged) in [
        (
            "  %r = call i8 @llvm.cttz.i8(i8 %a, i1 false)",
            "  %r = call i8 @llvm.cttz.i8(i8 %a, i1 true)",
        ),
        (
            "  %r = call i8 @llvm.ctlz.i8(i8 %a, i1 false)",
            "  %r = call i8 @llvm.ctlz.i8(i8 %a, i1 true)",
        ),
        (
            "  %r = call i8 @llvm.abs.i8(i8 %a, i1 false)",
            "  %r = call i8 @llvm.abs.i8(i8 %a, i1 true)",
        ),
    ] {
        let (d, f) = (
            kernel("i8", "i8 %a", defined),
            kernel("i8", "i8 %a", flagged),
        );
        assert_eq!(check(&f, &d), "refines", "{flagged} -> {defined}");
        assert_eq!(check(&d, &f), "counterexample", "{defined} -> {flagged}");
    }
}
