//! A small family of convergent programs and their mutations, for the
//! agreement of the interpreter and the SMT refinement checker (MC-07,
//! M-AGREE) and the mutation test of issue 6.
//!
//! Programs: a kernel with a per-thread `%x`, a divergent branch on `%x`,
//! and convergent operations (a C-OPS reduction whose value is observed by
//! `@use`, or an unknown convergent call with side effects) placed in the
//! entry block, the branch arm, or the join block; controlled by the
//! `entry` token or uncontrolled; optionally inside a short loop with a
//! heart. A *mutation* moves one operation to another block (sinking into
//! the divergent arm, hoisting out of it, moving across the loop) or drops
//! it: the deliberately wrong (or sometimes harmless) transforms.

use proptest::prelude::{any, prop, prop_oneof, Just, Strategy};

/// Where an operation is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Entry,
    Arm,
    Join,
    Loop,
}

/// The kind of a convergent operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// `%r = @subgroupAdd(%x)` then `@use(%r)`.
    Add,
    /// `@convergent.operation()` (observed with its set).
    Barrier,
    /// `%r = @llvm.amdgcn.ballot.iW(i1)` of the low bit of `%x` (W = 32
    /// or 64), then `@use.iW(%r)`.
    Ballot(u32),
    /// `@llvm.amdgcn.readfirstlane.iW` of `%x` truncated or sign-extended
    /// to iW, then `@use.iW`.
    First(u32),
    /// `@llvm.amdgcn.wave.reduce.umax.iW(iW, i32 0)` of `%x` at width W.
    Reduce(u32),
    /// `@subgroupShuffle(i8, i32 %x)` of `%x` truncated to i8.
    Shuffle8,
    /// An NVPTX warp intrinsic of `%x` (or its low bit), then `@use.iW`.
    Nvptx(NvOp),
    /// P-INPUT / R-STREAM-SMT: a read of the thread's input stream
    /// (`%s{n} = call i32 @in()`, an unknown non-`readnone` function with
    /// a result, itself an observed event), then a use of the value.
    Stream(StreamUse),
    /// A group operation that reads lanes or counts members (OpenCL scans,
    /// SPIR-V count-bits and is-first-lane), then `@use.iW`.
    Lane(LaneOp),
}

/// The lane-reading group operations of the family (C-OPS in the
/// encoding: scans, count of set bits, is-first-lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneOp {
    /// `sub_group_scan_inclusive_add(%x)`.
    ScanIncAdd,
    /// `sub_group_scan_exclusive_add(%x)`.
    ScanExcAdd,
    /// `sub_group_scan_inclusive_max(%x)`.
    ScanIncMax,
    /// `llvm.spv.wave.active.countbits` of the low bit of `%x`.
    CountBits,
    /// `llvm.spv.wave.is.first.lane()`.
    IsFirst,
}

impl LaneOp {
    /// The call (result `%r{n}`, reading `%x` or the i1 `%v{n}`) and the
    /// declaration.
    fn call_and_decl(self, n: usize, bundle: &str) -> (String, String) {
        let attrs = "convergent nounwind";
        let scan = |name: &str| {
            (
                format!("  %r{n} = call i32 @_Z28sub_group_scan_{name}i(i32 %x){bundle}\n"),
                format!("declare i32 @_Z28sub_group_scan_{name}i(i32) {attrs}\n"),
            )
        };
        match self {
            LaneOp::ScanIncAdd => scan("inclusive_add"),
            LaneOp::ScanExcAdd => scan("exclusive_add"),
            LaneOp::ScanIncMax => scan("inclusive_max"),
            LaneOp::CountBits => (
                format!("  %r{n} = call i32 @llvm.spv.wave.active.countbits(i1 %v{n}){bundle}\n"),
                format!("declare i32 @llvm.spv.wave.active.countbits(i1) {attrs}\n"),
            ),
            LaneOp::IsFirst => (
                format!("  %r{n} = call i1 @llvm.spv.wave.is.first.lane(){bundle}\n"),
                format!("declare i1 @llvm.spv.wave.is.first.lane() {attrs}\n"),
            ),
        }
    }
}

/// What a stream read's value feeds (R-STREAM-SMT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamUse {
    /// `@use(%s)`.
    Use,
    /// `@use(7 udiv %s)`: undefined behaviour when the value is 0.
    Div,
    /// `@use(subgroupAdd(%s))`: the value enters a convergent operation.
    Add,
    /// `@use(%s - %x)`.
    Sub,
}

/// The NVPTX warp intrinsics of the family (issue 13), each with the
/// full mask `-1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NvOp {
    /// `vote.{all,any,uni}.sync` of the low bit of `%x` (an i1).
    Vote(&'static str),
    /// `vote.ballot.sync` of the low bit of `%x`.
    Ballot,
    /// `shfl.sync.{idx,up,down,bfly}.i32` of `%x` by 1.
    Shfl(&'static str),
    /// `redux.sync.{add,umax,...}` of `%x`.
    Redux(&'static str),
    /// `match.any.sync.i32` of `%x`.
    MatchAny,
    /// `activemask()`.
    ActiveMask,
}

impl NvOp {
    /// The call (named `%r{n}`; `%v{n}` is the low bit of `%x`) and its
    /// declaration.
    fn call_and_decl(self, n: usize, bundle: &str) -> (String, String) {
        let attrs = "convergent nounwind";
        match self {
            NvOp::Vote(m) => (
                format!("  %r{n} = call i1 @llvm.nvvm.vote.{m}.sync(i32 -1, i1 %v{n}){bundle}\n"),
                format!("declare i1 @llvm.nvvm.vote.{m}.sync(i32, i1) {attrs}\n"),
            ),
            NvOp::Ballot => (
                format!("  %r{n} = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %v{n}){bundle}\n"),
                format!("declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1) {attrs}\n"),
            ),
            NvOp::Shfl(m) => (
                format!(
                    "  %r{n} = call i32 @llvm.nvvm.shfl.sync.{m}.i32(i32 -1, i32 %x, i32 1, i32 31){bundle}\n"
                ),
                format!("declare i32 @llvm.nvvm.shfl.sync.{m}.i32(i32, i32, i32, i32) {attrs}\n"),
            ),
            NvOp::Redux(m) => (
                format!("  %r{n} = call i32 @llvm.nvvm.redux.sync.{m}(i32 %x, i32 -1){bundle}\n"),
                format!("declare i32 @llvm.nvvm.redux.sync.{m}(i32, i32) {attrs}\n"),
            ),
            NvOp::MatchAny => (
                format!("  %r{n} = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %x){bundle}\n"),
                format!("declare i32 @llvm.nvvm.match.any.sync.i32(i32, i32) {attrs}\n"),
            ),
            NvOp::ActiveMask => (
                format!("  %r{n} = call i32 @llvm.nvvm.activemask(){bundle}\n"),
                format!("declare i32 @llvm.nvvm.activemask() {attrs}\n"),
            ),
        }
    }
}

impl OpKind {
    /// The width of the value this operation produces and observes.
    fn width(self) -> u32 {
        match self {
            OpKind::Add => 32,
            OpKind::Barrier => 0,
            OpKind::Ballot(w) | OpKind::First(w) | OpKind::Reduce(w) => w,
            OpKind::Shuffle8 => 8,
            OpKind::Nvptx(NvOp::Vote(_)) => 1,
            OpKind::Nvptx(_) => 32,
            OpKind::Stream(_) => 32,
            OpKind::Lane(LaneOp::IsFirst) => 1,
            OpKind::Lane(_) => 32,
        }
    }
}

/// `%x` (an i32) converted to an `iW` named `%{name}`.
fn conv_x(name: &str, w: u32) -> String {
    match w {
        32 => format!("  %{name} = add i32 %x, 0\n"),
        w if w < 32 => format!("  %{name} = trunc i32 %x to i{w}\n"),
        w => format!("  %{name} = sext i32 %x to i{w}\n"),
    }
}

/// One program of the family.
#[derive(Clone, Debug)]
pub struct Prog {
    /// Operations controlled by the `entry` token (or uncontrolled).
    pub controlled: bool,
    /// Whether the program ends with a short loop with a heart.
    pub with_loop: bool,
    /// The convergent operations and where they are placed.
    pub ops: Vec<(OpKind, Place)>,
    /// A loop that never ends for some inputs (R-PREFIX), after the
    /// operations of its place.
    pub spin: Option<Spin>,
}

/// A loop that threads with `%x == value` never leave (a dead counter
/// runs in it; no convergent operation, no event), placed at the end of
/// the entry block, the arm or the join block: the shape of a miscompile
/// that keeps some threads in a loop forever (issue 12 item 7). With
/// `rec`, a call of `@spin` instead, a recursion that threads with `%x ==
/// value` never leave (the same arguments at every level, R-PREFIX-REC)
/// and that the others leave after at most two levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spin {
    pub place: Place,
    pub value: i32,
    pub rec: bool,
}

/// The recursive `@spin(%a, %v, %d)`: `%a == %v` calls itself with the
/// same arguments (forever), `%d > 0` once more with `%d` = 0, else it
/// returns; with `controlled`, through its `entry` token.
fn spin_fn_ll(controlled: bool) -> String {
    let (conv, tok, bundle) = if controlled {
        (
            " convergent",
            "  %e = call token @llvm.experimental.convergence.entry()\n",
            " [ \"convergencectrl\"(token %e) ]",
        )
    } else {
        ("", "", "")
    };
    format!(
        "define void @spin(i32 %a, i32 %v, i32 %d){conv} {{\nentry:\n{tok}  %stay = icmp eq i32 %a, %v\n  %pos = icmp sgt i32 %d, 0\n  %go = or i1 %stay, %pos\n  br i1 %go, label %again, label %done\nagain:\n  %d1 = select i1 %stay, i32 %d, i32 0\n  call void @spin(i32 %a, i32 %v, i32 %d1){bundle}\n  ret void\ndone:\n  ret void\n}}\n\n"
    )
}

/// The spin loop closing block `pred` (`%x == value` stays forever), then
/// the block `after.{pred}` that continues it.
fn spin_ll(pred: &str, value: i32) -> String {
    format!(
        "  br label %spin.{pred}\nspin.{pred}:\n  %s.{pred} = phi i32 [ 0, %{pred} ], [ %s.next.{pred}, %spin.{pred} ]\n  %s.next.{pred} = add i32 %s.{pred}, 1\n  %stay.{pred} = icmp eq i32 %x, {value}\n  br i1 %stay.{pred}, label %spin.{pred}, label %after.{pred}\nafter.{pred}:\n"
    )
}

/// The program as LLVM IR (a module with the kernel `@k(i32 %x)`).
pub fn render(p: &Prog) -> String {
    render_mode(p, false)
}

/// The program with every operation controlled by an `anchor` of its own
/// (D-ANCHOR), defined right before it and named after the operation's
/// index in `p.ops` (`%a0`, `%a1`, ...), so that a mutation moves an
/// operation together with its anchor and the names still pair them
/// (`p.controlled` is ignored; the loop has no heart). With [`mutate`]
/// this gives pairs whose source and target place anchors differently
/// (theorem C-MIRROR's validation, proofs/CUTOFF.md).
pub fn render_own_anchors(p: &Prog) -> String {
    render_mode(p, true)
        + "declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)\n"
}

fn render_mode(p: &Prog, own_anchors: bool) -> String {
    let controlled = p.controlled && !own_anchors;
    let mut s = String::from("define void @k(i32 %x) convergent {\nentry:\n");
    if controlled {
        s += "  %tok = call token @llvm.experimental.convergence.entry()\n";
    }
    let bundle = |tok: &str| {
        if controlled || own_anchors {
            format!(" [ \"convergencectrl\"(token %{tok}) ]")
        } else {
            String::new()
        }
    };
    let mut n = 0;
    let mut emit = |s: &mut String, kind: OpKind, i: usize, tok: &str| {
        n += 1;
        let own = format!("a{i}");
        let tok = if own_anchors {
            *s += &format!("  %{own} = call token @llvm.experimental.convergence.anchor()\n");
            own.as_str()
        } else {
            tok
        };
        match kind {
            OpKind::Add => {
                *s += &format!(
                    "  %r{n} = call i32 @subgroupAdd(i32 %x){}\n  call void @use(i32 %r{n})\n",
                    bundle(tok)
                )
            }
            OpKind::Barrier => {
                *s += &format!("  call void @convergent.operation(){}\n", bundle(tok))
            }
            OpKind::Ballot(w) => {
                *s += &conv_x(&format!("v{n}"), 1);
                *s += &format!(
                    "  %r{n} = call i{w} @llvm.amdgcn.ballot.i{w}(i1 %v{n}){}\n  call void @use.i{w}(i{w} %r{n})\n",
                    bundle(tok)
                )
            }
            OpKind::First(w) => {
                *s += &conv_x(&format!("v{n}"), w);
                *s += &format!(
                    "  %r{n} = call i{w} @llvm.amdgcn.readfirstlane.i{w}(i{w} %v{n}){}\n  call void @use.i{w}(i{w} %r{n})\n",
                    bundle(tok)
                )
            }
            OpKind::Reduce(w) => {
                *s += &conv_x(&format!("v{n}"), w);
                *s += &format!(
                    "  %r{n} = call i{w} @llvm.amdgcn.wave.reduce.umax.i{w}(i{w} %v{n}, i32 0){}\n  call void @use.i{w}(i{w} %r{n})\n",
                    bundle(tok)
                )
            }
            OpKind::Shuffle8 => {
                *s += &conv_x(&format!("v{n}"), 8);
                *s += &format!(
                    "  %r{n} = call i8 @subgroupShuffle(i8 %v{n}, i32 %x){}\n  call void @use.i8(i8 %r{n})\n",
                    bundle(tok)
                )
            }
            OpKind::Nvptx(op) => {
                *s += &conv_x(&format!("v{n}"), 1);
                *s += &op.call_and_decl(n, &bundle(tok)).0;
                let w = kind.width();
                *s += &format!("  call void @use.i{w}(i{w} %r{n})\n");
            }
            OpKind::Lane(op) => {
                *s += &conv_x(&format!("v{n}"), 1);
                *s += &op.call_and_decl(n, &bundle(tok)).0;
                let w = kind.width();
                *s += &format!("  call void @use.i{w}(i{w} %r{n})\n");
            }
            OpKind::Stream(u) => {
                *s += &format!("  %s{n} = call i32 @in()\n");
                *s += &match u {
                    StreamUse::Use => format!("  %r{n} = add i32 %s{n}, 0\n"),
                    StreamUse::Div => format!("  %r{n} = udiv i32 7, %s{n}\n"),
                    StreamUse::Add => format!(
                        "  %r{n} = call i32 @subgroupAdd(i32 %s{n}){}\n",
                        bundle(tok)
                    ),
                    StreamUse::Sub => format!("  %r{n} = sub i32 %s{n}, %x\n"),
                };
                *s += &format!("  call void @use(i32 %r{n})\n");
            }
        }
    };
    let spin_at = |pl: Place| p.spin.filter(|sp| sp.place == pl);
    // A recursive spin returns after two levels without the loop, one
    // with it (the kernel's paths stay within the agreement's bound).
    let levels = if p.with_loop { 0 } else { 1 };
    let spin_here = |s: &mut String, pred: &str, sp: Spin| -> bool {
        if sp.rec {
            *s += &format!(
                "  call void @spin(i32 %x, i32 {}, i32 {levels}){}\n",
                sp.value,
                // `@spin` is controlled through `entry` only when the
                // kernel has its `entry` token (not with own anchors).
                if controlled {
                    bundle("tok")
                } else {
                    String::new()
                }
            );
            false
        } else {
            *s += &spin_ll(pred, sp.value);
            true
        }
    };
    for (i, (k, pl)) in p.ops.iter().enumerate() {
        if *pl == Place::Entry {
            emit(&mut s, *k, i, "tok");
        }
    }
    if let Some(sp) = spin_at(Place::Entry) {
        spin_here(&mut s, "entry", sp);
    }
    s += "  %c = icmp slt i32 %x, 1\n  br i1 %c, label %arm, label %join\narm:\n";
    for (i, (k, pl)) in p.ops.iter().enumerate() {
        if *pl == Place::Arm {
            emit(&mut s, *k, i, "tok");
        }
    }
    if let Some(sp) = spin_at(Place::Arm) {
        spin_here(&mut s, "arm", sp);
    }
    s += "  br label %join\njoin:\n";
    for (i, (k, pl)) in p.ops.iter().enumerate() {
        if *pl == Place::Join {
            emit(&mut s, *k, i, "tok");
        }
    }
    let mut last = "join";
    if let Some(sp) = spin_at(Place::Join) {
        if spin_here(&mut s, "join", sp) {
            last = "after.join";
        }
    }
    if p.with_loop {
        s += &format!(
            "  br label %loop\nloop:\n  %i = phi i32 [ 0, %{last} ], [ %i.next, %loop ]\n"
        );
        if controlled {
            s += "  %h = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %tok) ]\n";
        }
        for (i, (k, pl)) in p.ops.iter().enumerate() {
            if *pl == Place::Loop {
                emit(&mut s, *k, i, "h");
            }
        }
        s += "  %i.next = add i32 %i, 1\n  %more = icmp slt i32 %i.next, %x\n  br i1 %more, label %loop, label %exit\nexit:\n";
    }
    s += "  ret void\n}\n\n";
    if p.spin.is_some_and(|sp| sp.rec) {
        s += &spin_fn_ll(controlled);
    }
    s += "declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)\n";
    s += "declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)\n";
    s += "declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)\n";
    s += "declare void @convergent.operation() convergent nounwind\n";
    s += "declare void @use(i32)\n";
    if p.ops.iter().any(|(k, _)| matches!(k, OpKind::Stream(_))) {
        s += "declare i32 @in()\n";
    }
    // Declarations of the operations of other widths, when used.
    let mut widths: Vec<u32> = Vec::new();
    let mut kinds: Vec<OpKind> = Vec::new();
    for (k, _) in &p.ops {
        if !matches!(k, OpKind::Add | OpKind::Barrier | OpKind::Stream(_)) {
            widths.push(k.width());
            kinds.push(*k);
        }
    }
    widths.sort_unstable();
    widths.dedup();
    kinds.sort_by_key(|k| format!("{k:?}"));
    kinds.dedup();
    for w in widths {
        s += &format!("declare void @use.i{w}(i{w})\n");
    }
    let attrs = "convergent nounwind willreturn memory(none)";
    for k in kinds {
        s += &match k {
            OpKind::Ballot(w) => format!("declare i{w} @llvm.amdgcn.ballot.i{w}(i1) {attrs}\n"),
            OpKind::First(w) => {
                format!("declare i{w} @llvm.amdgcn.readfirstlane.i{w}(i{w}) {attrs}\n")
            }
            OpKind::Reduce(w) => {
                format!("declare i{w} @llvm.amdgcn.wave.reduce.umax.i{w}(i{w}, i32) {attrs}\n")
            }
            OpKind::Shuffle8 => format!("declare i8 @subgroupShuffle(i8, i32) {attrs}\n"),
            OpKind::Nvptx(op) => op.call_and_decl(0, "").1,
            OpKind::Lane(op) => op.call_and_decl(0, "").1,
            OpKind::Add | OpKind::Barrier | OpKind::Stream(_) => String::new(),
        };
    }
    s
}

/// Programs with 1 to `max_ops` operations of kinds drawn from `kind`,
/// each in any place (one in the loop only when the program has one).
fn with_kinds(kind: impl Strategy<Value = OpKind>, max_ops: usize) -> impl Strategy<Value = Prog> {
    let place = prop_oneof![
        Just(Place::Entry),
        Just(Place::Arm),
        Just(Place::Join),
        Just(Place::Loop)
    ];
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec((kind, place), 1..=max_ops.max(1)),
    )
        .prop_map(|(controlled, with_loop, mut ops)| {
            for o in &mut ops {
                if o.1 == Place::Loop && !with_loop {
                    o.1 = Place::Join;
                }
            }
            Prog {
                controlled,
                with_loop,
                ops,
                spin: None,
            }
        })
}

/// Programs of the family with 1 to `max_ops` convergent operations.
pub fn arb_prog(max_ops: usize) -> impl Strategy<Value = Prog> {
    let kind = prop_oneof![Just(OpKind::Add), Just(OpKind::Barrier)];
    with_kinds(kind, max_ops)
}

/// Programs of the family whose operations produce values of varied
/// widths (ballots of i32/i64, first-lane reads and wave reductions of
/// i1/i8/i16/i32/i64, i8 shuffles) besides the i32 reduction: for the
/// robustness of the refinement checker (issue 11), not for MC-07.
pub fn arb_wide_prog(max_ops: usize) -> impl Strategy<Value = Prog> {
    let w = prop_oneof![Just(1u32), Just(8), Just(16), Just(32), Just(64)];
    let kind = prop_oneof![
        Just(OpKind::Add),
        prop_oneof![Just(32u32), Just(64)].prop_map(OpKind::Ballot),
        w.clone().prop_map(OpKind::First),
        w.prop_map(OpKind::Reduce),
        Just(OpKind::Shuffle8),
    ];
    with_kinds(kind, max_ops)
}

/// Programs of the family with NVPTX warp intrinsics (votes, ballots,
/// shuffles, `redux.sync`, `match.any.sync`, `activemask`) besides the
/// i32 reduction and the barrier: MC-07 / M-AGREE for their encoding
/// (`checker/tests/refine_nvptx.rs`).
pub fn arb_nvptx_prog(max_ops: usize) -> impl Strategy<Value = Prog> {
    let nv = prop_oneof![
        Just(NvOp::Vote("all")),
        Just(NvOp::Vote("any")),
        Just(NvOp::Vote("uni")),
        Just(NvOp::Ballot),
        Just(NvOp::Shfl("idx")),
        Just(NvOp::Shfl("up")),
        Just(NvOp::Shfl("down")),
        Just(NvOp::Shfl("bfly")),
        Just(NvOp::Redux("add")),
        Just(NvOp::Redux("umax")),
        Just(NvOp::Redux("min")),
        Just(NvOp::MatchAny),
        Just(NvOp::ActiveMask),
    ];
    let kind = prop_oneof![
        1 => Just(OpKind::Add),
        1 => Just(OpKind::Barrier),
        4 => nv.prop_map(OpKind::Nvptx),
    ];
    with_kinds(kind, max_ops)
}

/// Programs of the family with lane-reading group operations (OpenCL
/// inclusive/exclusive scans, SPIR-V count-bits and is-first-lane)
/// besides the i32 reduction and the barrier: MC-07 / M-AGREE for their
/// encoding (`checker/tests/refine_scans.rs`).
pub fn arb_lane_prog(max_ops: usize) -> impl Strategy<Value = Prog> {
    let lane = prop_oneof![
        Just(LaneOp::ScanIncAdd),
        Just(LaneOp::ScanExcAdd),
        Just(LaneOp::ScanIncMax),
        Just(LaneOp::CountBits),
        Just(LaneOp::IsFirst),
    ];
    let kind = prop_oneof![
        1 => Just(OpKind::Add),
        1 => Just(OpKind::Barrier),
        4 => lane.prop_map(OpKind::Lane),
    ];
    with_kinds(kind, max_ops)
}

/// Programs of the family whose operations include reads of the thread's
/// input stream (R-STREAM-SMT) besides the reduction and the barrier.
pub fn arb_stream_prog(max_ops: usize) -> impl Strategy<Value = Prog> {
    let u = prop_oneof![
        Just(StreamUse::Use),
        Just(StreamUse::Div),
        Just(StreamUse::Add),
        Just(StreamUse::Sub)
    ];
    let kind = prop_oneof![
        1 => Just(OpKind::Add),
        1 => Just(OpKind::Barrier),
        4 => u.prop_map(OpKind::Stream),
    ];
    with_kinds(kind, max_ops)
}

/// A transformation of a stream program (R-STREAM-SMT): one of
/// [`mutate`]'s moves or drops, a swap of two operations' order (so two
/// stream reads in one block trade positions), or a duplicate of one
/// operation in another place.
#[derive(Clone, Copy, Debug)]
pub enum StreamMutation {
    Move(usize, Option<Place>),
    Swap(usize, usize),
    Dup(usize, Place),
}

/// [`StreamMutation`] as a strategy.
pub fn arb_stream_mutation() -> impl Strategy<Value = StreamMutation> {
    let place = prop_oneof![Just(Place::Entry), Just(Place::Arm), Just(Place::Join)];
    prop_oneof![
        2 => arb_mutation().prop_map(|(i, to)| StreamMutation::Move(i, to)),
        2 => (0usize..4, 0usize..4).prop_map(|(i, j)| StreamMutation::Swap(i, j)),
        1 => (0usize..4, place).prop_map(|(i, pl)| StreamMutation::Dup(i, pl)),
    ]
}

/// Applies a [`StreamMutation`].
pub fn mutate_stream(p: &Prog, m: StreamMutation) -> Prog {
    match m {
        StreamMutation::Move(i, to) => mutate(p, i, to),
        StreamMutation::Swap(i, j) => {
            let mut q = p.clone();
            let n = q.ops.len();
            let (i, j) = (i % n, j % n);
            let (a, b) = (q.ops[i].0, q.ops[j].0);
            q.ops[i].0 = b;
            q.ops[j].0 = a;
            q
        }
        StreamMutation::Dup(i, pl) => {
            let mut q = p.clone();
            let k = q.ops[i % q.ops.len()].0;
            q.ops.push((k, pl));
            q
        }
    }
}

/// A mutation: move operation `i` (modulo the number of operations) to
/// `to` (or drop it when `to` is None).
pub fn mutate(p: &Prog, i: usize, to: Option<Place>) -> Prog {
    let mut q = p.clone();
    let i = i % q.ops.len();
    match to {
        Some(pl) if pl != Place::Loop || q.with_loop => q.ops[i].1 = pl,
        Some(_) => q.ops[i].1 = Place::Arm,
        None => {
            q.ops.remove(i);
        }
    }
    q
}

/// A mutation as a strategy: (operation index, destination or drop).
pub fn arb_mutation() -> impl Strategy<Value = (usize, Option<Place>)> {
    (
        0usize..4,
        prop_oneof![
            Just(Some(Place::Entry)),
            Just(Some(Place::Arm)),
            Just(Some(Place::Join)),
            Just(Some(Place::Loop)),
            Just(None)
        ],
    )
}

/// A spin loop (R-PREFIX) or none, as a strategy; `rec`: a recursive
/// spin (R-PREFIX-REC) instead of a loop.
pub fn arb_spin(rec: bool) -> impl Strategy<Value = Option<Spin>> {
    let place = prop_oneof![Just(Place::Entry), Just(Place::Arm), Just(Place::Join)];
    prop_oneof![
        1 => Just(None),
        3 => (place, 0i32..3).prop_map(move |(place, value)| Some(Spin { place, value, rec })),
    ]
}

/// Pairs for R-PREFIX (MC-07 with loops that never end for some inputs):
/// a program with a spin loop or none, and a target that moves one
/// operation (as [`mutate`]) and has its own spin loop or none.
pub fn arb_spin_pair(max_ops: usize) -> impl Strategy<Value = (Prog, Prog)> {
    spin_pair(max_ops, false)
}

/// Pairs for R-PREFIX-REC: as [`arb_spin_pair`] with recursive spins
/// (`@spin` calls itself forever for one value of `%x`) in place of loops.
pub fn arb_rec_pair(max_ops: usize) -> impl Strategy<Value = (Prog, Prog)> {
    spin_pair(max_ops, true)
}

fn spin_pair(max_ops: usize, rec: bool) -> impl Strategy<Value = (Prog, Prog)> {
    (
        arb_prog(max_ops),
        arb_spin(rec),
        arb_mutation(),
        arb_spin(rec),
    )
        .prop_map(|(mut p, s1, (i, to), s2)| {
            p.spin = s1;
            let mut q = mutate(&p, i, to);
            q.spin = s2;
            (p, q)
        })
}

/// The control flow of an [`IrrProg`] (D-HIER): a loop whose header `%H`
/// tests a flag that is `%c` on entry and false afterwards, or that loop
/// after jump threading of its entry edge (entry branches to `%A` / `%B`
/// directly, an irreducible cycle with two hierarchies), with the entry
/// branch written either way round (which one LLVM's DFS takes as header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Reducible,
    Threaded,
    ThreadedSwapped,
}

/// Where an operation of an [`IrrProg`] is: the arms `%A`, `%B`, the latch
/// `%L` or the exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrrPlace {
    A,
    B,
    L,
    Exit,
}

/// A program with a possibly irreducible cycle and uncontrolled convergent
/// operations (their D-MAX keys depend on the hierarchy): MC-07 where the
/// interpreter enumerates every hierarchy (issue 12 item 8).
#[derive(Clone, Debug)]
pub struct IrrProg {
    pub shape: Shape,
    /// Threads with `%x` odd run the loop twice, the others once.
    pub ops: Vec<(OpKind, IrrPlace)>,
}

/// The program as LLVM IR (kernel `@k(i32 %x)`; `Add` and `Barrier` only).
pub fn render_irr(p: &IrrProg) -> String {
    let mut n = 0;
    let mut ops_at = |pl: IrrPlace| {
        let mut s = String::new();
        for (k, at) in &p.ops {
            if *at != pl {
                continue;
            }
            n += 1;
            s += &match k {
                OpKind::Barrier => "  call void @convergent.operation()\n".to_string(),
                _ => format!(
                    "  %r{n} = call i32 @subgroupAdd(i32 %x)\n  call void @use(i32 %r{n})\n"
                ),
            };
        }
        s
    };
    let (a, b, l, exit) = (
        ops_at(IrrPlace::A),
        ops_at(IrrPlace::B),
        ops_at(IrrPlace::L),
        ops_at(IrrPlace::Exit),
    );
    let mut s = String::from(
        "define void @k(i32 %x) {\nentry:\n  %c = icmp slt i32 %x, 1\n  %odd = and i32 %x, 1\n  %n = add i32 %odd, 1\n",
    );
    match p.shape {
        Shape::Reducible => {
            s += "  br label %H\nH:\n  %i = phi i32 [ 0, %entry ], [ %i.next, %L ]\n  %f = phi i1 [ %c, %entry ], [ false, %L ]\n  br i1 %f, label %A, label %B\n";
            s += &format!("A:\n{a}  br label %L\nB:\n{b}  br label %L\n");
            s += "L:\n";
        }
        Shape::Threaded | Shape::ThreadedSwapped => {
            if p.shape == Shape::Threaded {
                s += "  br i1 %c, label %A, label %B\n";
            } else {
                s += "  %nc = xor i1 %c, true\n  br i1 %nc, label %B, label %A\n";
            }
            s += "H:\n  br label %B\n";
            s += &format!("A:\n{a}  br label %L\n");
            s +=
                &format!("B:\n  %i.b = phi i32 [ 0, %entry ], [ %i.next, %H ]\n{b}  br label %L\n");
            s += "L:\n  %i = phi i32 [ 0, %A ], [ %i.b, %B ]\n";
        }
    }
    s += &l;
    s += "  %i.next = add i32 %i, 1\n  %more = icmp ult i32 %i.next, %n\n  br i1 %more, label %H, label %exit\n";
    s += &format!("exit:\n{exit}  ret void\n}}\n\n");
    s += "declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)\n";
    s += "declare void @convergent.operation() convergent nounwind\n";
    s += "declare void @use(i32)\n";
    s
}

/// Pairs for MC-07 with irreducible cycles: a program and a target with
/// another (or the same) shape, one operation possibly moved.
pub fn arb_irr_pair() -> impl Strategy<Value = (IrrProg, IrrProg)> {
    let shape = prop_oneof![
        Just(Shape::Reducible),
        Just(Shape::Threaded),
        Just(Shape::ThreadedSwapped)
    ];
    let place = prop_oneof![
        Just(IrrPlace::A),
        Just(IrrPlace::B),
        Just(IrrPlace::L),
        Just(IrrPlace::Exit)
    ];
    let kind = prop_oneof![Just(OpKind::Add), Just(OpKind::Barrier)];
    (
        shape.clone(),
        shape,
        prop::collection::vec((kind, place.clone()), 1..=2),
        prop::option::of((0usize..2, place)),
    )
        .prop_map(|(s1, s2, ops, mv)| {
            let p = IrrProg { shape: s1, ops };
            let mut q = IrrProg {
                shape: s2,
                ops: p.ops.clone(),
            };
            if let Some((i, to)) = mv {
                let i = i % q.ops.len();
                q.ops[i].1 = to;
            }
            (p, q)
        })
}
