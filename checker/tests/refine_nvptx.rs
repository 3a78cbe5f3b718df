//! `refine` on NVPTX warp intrinsics (issue 13): `vote.{all,any,uni,ballot}`
//! with `.sync`, `shfl.sync.{idx,up,down,bfly}`, `redux.sync.*`,
//! `match.any.sync` and `activemask`, encoded from the one intrinsic table
//! (`semantics::intrinsics`, the rows the interpreter's
//! `machine::collective` reads). Every pair is checked by both
//! formalizations (M-AGREE, MC-07: `checker::agree`, two threads, `%x` in
//! {0, 1, 2}): the interpreter's verdict must equal the SMT checker's, and
//! every counterexample is replayed on the interpreter (R-CEX). Each
//! operation has a pair that refines (an identity of the operation) and one
//! that does not (a wrong rewrite, or a sink into a divergent arm).

use checker::agree::check_agreement;

const DECLS: &str = "
declare void @use(i32)
declare void @use1(i1)
declare i1 @llvm.nvvm.vote.all.sync(i32, i1) convergent nounwind
declare i1 @llvm.nvvm.vote.any.sync(i32, i1) convergent nounwind
declare i1 @llvm.nvvm.vote.uni.sync(i32, i1) convergent nounwind
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1) convergent nounwind
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32) convergent nounwind
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32) convergent nounwind
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32) convergent nounwind
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32) convergent nounwind
declare i32 @llvm.nvvm.redux.sync.add(i32, i32) convergent nounwind
declare i32 @llvm.nvvm.redux.sync.or(i32, i32) convergent nounwind
declare i32 @llvm.nvvm.redux.sync.umin(i32, i32) convergent nounwind
declare i32 @llvm.nvvm.redux.sync.umax(i32, i32) convergent nounwind
declare i32 @llvm.nvvm.redux.sync.min(i32, i32) convergent nounwind
declare i32 @llvm.nvvm.redux.sync.max(i32, i32) convergent nounwind
declare i32 @llvm.nvvm.match.any.sync.i32(i32, i32) convergent nounwind
declare i32 @llvm.nvvm.activemask() convergent nounwind
";

/// A kernel `@k(i32 %x)` with `%c` the low bit of `%x`, running `body`
/// in the entry block.
fn straight(body: &str) -> String {
    format!(
        "target triple = \"nvptx64-nvidia-cuda\"\n\
         define void @k(i32 %x) {{\nentry:\n  %c = trunc i32 %x to i1\n{body}  ret void\n}}\n{DECLS}"
    )
}

/// A kernel whose threads with `%c` set run `arm` in a divergent branch
/// after `pre` (in the entry block).
fn branch(pre: &str, arm: &str) -> String {
    format!(
        "target triple = \"nvptx64-nvidia-cuda\"\n\
         define void @k(i32 %x) {{\nentry:\n  %c = trunc i32 %x to i1\n{pre}  br i1 %c, label %a, label %j\n\
         a:\n{arm}  br label %j\nj:\n  ret void\n}}\n{DECLS}"
    )
}

/// M-AGREE on the pair, and the verdict both formalizations give.
fn agree(src: &str, tgt: &str) -> bool {
    match check_agreement(src, tgt) {
        Ok(v) => v,
        Err(e) => panic!("{e}\nsource:\n{src}\ntarget:\n{tgt}"),
    }
}

/// C-OPS votes: `all(c) == !any(!c)` and `uni(c) == all(c) | !any(c)`
/// refine; `uni` is not `all`; sinking `any` into the arm of `%c`
/// refines, sinking or hoisting `all` does not (the set changes).
#[test]
fn votes() {
    let all = straight(
        "  %r = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %c)\n  call void @use1(i1 %r)\n",
    );
    let not_any_not = straight(
        "  %n = xor i1 %c, true\n  %a = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %n)\n  \
         %r = xor i1 %a, true\n  call void @use1(i1 %r)\n",
    );
    assert!(agree(&all, &not_any_not), "vote.all(c) == !vote.any(!c)");
    let uni = straight(
        "  %r = call i1 @llvm.nvvm.vote.uni.sync(i32 -1, i1 %c)\n  call void @use1(i1 %r)\n",
    );
    let all_or_none = straight(
        "  %l = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %c)\n  \
         %y = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %c)\n  %ny = xor i1 %y, true\n  \
         %r = or i1 %l, %ny\n  call void @use1(i1 %r)\n",
    );
    assert!(agree(&uni, &all_or_none), "vote.uni == all | !any");
    assert!(!agree(&uni, &all), "vote.uni is not vote.all");
    // In the arm every member has %c set: `any` is true there either way,
    // `all` only when the arm holds every thread.
    let vote_in = |op: &str, hoist: bool| {
        let call = format!("  %r = call i1 @llvm.nvvm.vote.{op}.sync(i32 -1, i1 %c)\n");
        let use1 = "  call void @use1(i1 %r)\n";
        if hoist {
            branch(&call, use1)
        } else {
            branch("", &format!("{call}{use1}"))
        }
    };
    assert!(
        agree(&vote_in("any", true), &vote_in("any", false)),
        "vote.any sinks"
    );
    assert!(
        !agree(&vote_in("all", true), &vote_in("all", false)),
        "vote.all sunk"
    );
    assert!(
        !agree(&vote_in("all", false), &vote_in("all", true)),
        "vote.all hoisted"
    );
}

/// C-OPS `vote.ballot.sync`: nonzero iff `vote.any`; not equal to
/// `activemask`.
#[test]
fn ballot_sync() {
    let any = straight(
        "  %r = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %c)\n  call void @use1(i1 %r)\n",
    );
    let ballot_nonzero = straight(
        "  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %c)\n  \
         %r = icmp ne i32 %b, 0\n  call void @use1(i1 %r)\n",
    );
    assert!(agree(&any, &ballot_nonzero));
    assert!(agree(&ballot_nonzero, &any));
    let ballot = straight(
        "  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %c)\n  call void @use(i32 %b)\n",
    );
    let active = straight("  %b = call i32 @llvm.nvvm.activemask()\n  call void @use(i32 %b)\n");
    assert!(!agree(&ballot, &active), "a ballot is not the active mask");
}

/// C-OPS shuffles: a shuffle by 0 (up, down, butterfly) or by the own lane
/// is the thread's own value; `down` by 1 is not `up` by 1 (past the warp
/// both give the own value, inside they read the other thread); an index
/// shuffle sunk into the divergent arm reads a lane outside its set.
#[test]
fn shuffles() {
    let own = straight("  call void @use(i32 %x)\n");
    for mode in ["up", "down", "bfly"] {
        let by0 = straight(&format!(
            "  %r = call i32 @llvm.nvvm.shfl.sync.{mode}.i32(i32 -1, i32 %x, i32 0, i32 31)\n  \
             call void @use(i32 %r)\n"
        ));
        assert!(agree(&own, &by0), "shfl.sync.{mode} by 0 is the own value");
    }
    let down = straight(
        "  %r = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %x, i32 1, i32 31)\n  \
         call void @use(i32 %r)\n",
    );
    let up = straight(
        "  %r = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %x, i32 1, i32 31)\n  \
         call void @use(i32 %r)\n",
    );
    let bfly = straight(
        "  %r = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %x, i32 1, i32 31)\n  \
         call void @use(i32 %r)\n",
    );
    assert!(!agree(&down, &up), "shfl down 1 is not up 1");
    assert!(!agree(&bfly, &own), "shfl bfly 1 is not the own value");
    let hoisted = branch(
        "  %r = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %x, i32 1, i32 31)\n",
        "  call void @use(i32 %r)\n",
    );
    let sunk = branch(
        "",
        "  %r = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %x, i32 1, i32 31)\n  \
         call void @use(i32 %r)\n",
    );
    assert!(!agree(&hoisted, &sunk), "shfl.sync.idx sunk into the arm");
}

/// C-OPS `redux.sync`: `umin(x) == ~umax(~x)` and `min(x) == ~max(~x)`
/// refine; `add` is not `or`.
#[test]
fn redux_sync() {
    let red = |op: &str| {
        straight(&format!(
            "  %r = call i32 @llvm.nvvm.redux.sync.{op}(i32 %x, i32 -1)\n  call void @use(i32 %r)\n"
        ))
    };
    let dual = |op: &str| {
        straight(&format!(
            "  %n = xor i32 %x, -1\n  %m = call i32 @llvm.nvvm.redux.sync.{op}(i32 %n, i32 -1)\n  \
             %r = xor i32 %m, -1\n  call void @use(i32 %r)\n"
        ))
    };
    assert!(agree(&red("umin"), &dual("umax")), "umin(x) == ~umax(~x)");
    assert!(agree(&red("min"), &dual("max")), "min(x) == ~max(~x)");
    assert!(!agree(&red("add"), &red("or")), "redux add is not or");
}

/// C-OPS `match.any.sync` (a mask within the active lanes) and
/// `activemask` (`vote.ballot.sync(true)`); a match mask is not the active
/// mask, and an active mask sunk into the divergent arm is smaller.
#[test]
fn match_and_activemask() {
    let matched = straight(
        "  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %x)\n  call void @use(i32 %m)\n",
    );
    let matched_active = straight(
        "  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %x)\n  \
         %a = call i32 @llvm.nvvm.activemask()\n  %r = and i32 %m, %a\n  call void @use(i32 %r)\n",
    );
    assert!(
        agree(&matched, &matched_active),
        "match mask within the active mask"
    );
    let active = straight("  %b = call i32 @llvm.nvvm.activemask()\n  call void @use(i32 %b)\n");
    assert!(
        !agree(&matched, &active),
        "a match mask is not the active mask"
    );
    let ballot_true = straight(
        "  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 true)\n  call void @use(i32 %b)\n",
    );
    assert!(agree(&active, &ballot_true), "activemask == ballot(true)");
    let hoisted = branch(
        "  %b = call i32 @llvm.nvvm.activemask()\n",
        "  call void @use(i32 %b)\n",
    );
    let sunk = branch(
        "",
        "  %b = call i32 @llvm.nvvm.activemask()\n  call void @use(i32 %b)\n",
    );
    assert!(!agree(&hoisted, &sunk), "activemask sunk into the arm");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 32, ..proptest::prelude::ProptestConfig::default() })]

    /// MC-07 / M-AGREE on generated programs with NVPTX warp intrinsics
    /// (`testgen::refine_family::arb_nvptx_prog`: votes, ballots, the four
    /// shuffles, `redux.sync`, `match.any.sync`, `activemask`, in the entry
    /// block, a divergent arm, the join or a loop with a heart, controlled
    /// or not) and a mutation moving or dropping one of them: the
    /// interpreter's verdict equals the SMT checker's.
    #[test]
    fn mc07_nvptx_checker_agrees_with_interpreter(
        p in testgen::refine_family::arb_nvptx_prog(2),
        (i, to) in testgen::refine_family::arb_mutation(),
    ) {
        let q = testgen::refine_family::mutate(&p, i, to);
        let (st, tt) = (testgen::refine_family::render(&p), testgen::refine_family::render(&q));
        let r = check_agreement(&st, &tt);
        proptest::prop_assert!(r.is_ok(), "{}\nsource:\n{}\ntarget:\n{}", r.err().unwrap_or_default(), st, tt);
    }
}
