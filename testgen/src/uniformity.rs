//! Generated programs for the uniformity analysis (rules U-*): random CFGs
//! (reducible and irreducible, with loops whose exits depend on divergent
//! conditions), phis at joins, values used outside the cycles that define
//! them, divergence from `llvm.amdgcn.workitem.id.x` and from arguments of
//! non-kernel functions, uniform kernel and `inreg` arguments, and
//! always-uniform `readfirstlane`.
//!
//! A program is a plain description ([`UFunc`]) so that each crate can
//! build its own IR from it; [`UFunc::to_llvm`] renders it as LLVM IR for
//! `opt`. Every value is an `i32` except branch conditions (`i1`). SSA
//! validity holds by construction: an operand is an argument, a constant, or
//! a value defined in a block that dominates the use (for a phi: the end of
//! the incoming block).

use std::fmt::Write;

use proptest::prelude::{any, Strategy};

/// A small deterministic PRNG (SplitMix64), so a seed names a program.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u64) -> bool {
        self.next_u64() % 100 < p
    }
}

/// An `i32` operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UOp {
    /// Argument `i` (`%a{i}`).
    Arg(usize),
    /// Value `i` of the function (`%v{i}`).
    Val(usize),
    Const(i32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UInst {
    /// `%v = call i32 @llvm.amdgcn.workitem.id.x()`
    Tid { dst: usize },
    /// `%v = add i32 a, b`
    Add { dst: usize, a: UOp, b: UOp },
    /// `%v = call i32 @llvm.amdgcn.readfirstlane.i32(i32 a)`
    ReadFirstLane { dst: usize, a: UOp },
    /// `%v = phi i32 [a, %bK], ...` (one entry per predecessor edge).
    Phi {
        dst: usize,
        incoming: Vec<(UOp, usize)>,
    },
    /// `%v = call i32 @convcheck.nds(i32 a)`: an unknown function marked
    /// `nodivergencesource` (only in [`gen_function_sound`]'s programs).
    NoDivSource { dst: usize, a: UOp },
    /// `%c = icmp slt i32 a, b` (an `i1` value).
    Cmp { dst: usize, a: UOp, b: UOp },
    /// `store i32 v, ptr addrspace(1) %out`
    Store { v: UOp },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UTerm {
    Br(usize),
    /// `switch i32 on, label %default [ i32 0, label %c0 ... ]` with
    /// distinct targets.
    Switch {
        on: UOp,
        default: usize,
        cases: Vec<(i32, usize)>,
    },
    /// Condition is value `cond` (a `Cmp` in the same block).
    CondBr {
        cond: usize,
        t: usize,
        f: usize,
    },
    Ret,
    Unreachable,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UBlock {
    pub insts: Vec<UInst>,
    pub term: UTerm,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UFunc {
    pub name: String,
    /// `amdgpu_kernel` (all arguments uniform) or a plain function.
    pub kernel: bool,
    /// One flag per `i32` argument: `inreg` (uniform) or not.
    pub inreg: Vec<bool>,
    pub blocks: Vec<UBlock>,
    /// Number of values (`%v0` ...).
    pub num_values: usize,
}

/// Successor lists of a random CFG on `n` blocks: block 0 is the entry,
/// the last block returns; every other block branches to one or two
/// distinct blocks other than the entry (which LLVM requires to have no
/// predecessors). Back edges and cross edges are frequent, so cycles are
/// often irreducible.
fn random_cfg(rng: &mut Rng, n: usize) -> Vec<Vec<usize>> {
    let mut succs = Vec::with_capacity(n);
    for b in 0..n {
        if b + 1 == n {
            succs.push(Vec::new());
            continue;
        }
        // Bias towards forward edges so most blocks are reachable.
        let fwd = |rng: &mut Rng| b + 1 + rng.below(n - b - 1);
        let any = |rng: &mut Rng| 1 + rng.below(n - 1);
        let first = if rng.chance(70) { fwd(rng) } else { any(rng) };
        if n >= 5 && rng.chance(10) {
            // A switch with three distinct targets.
            let mut ts = vec![first];
            while ts.len() < 3 {
                let t = any(rng);
                if !ts.contains(&t) {
                    ts.push(t);
                }
            }
            succs.push(ts);
        } else if rng.chance(65) {
            let mut second = if rng.chance(55) { any(rng) } else { fwd(rng) };
            if second == first {
                second = 1 + first % (n - 1);
            }
            if second == first {
                succs.push(vec![first]);
            } else {
                succs.push(vec![first, second]);
            }
        } else if rng.chance(10) && b > 0 {
            succs.push(Vec::new());
        } else {
            succs.push(vec![first]);
        }
    }
    succs
}

/// Immediate dominators (None for the entry and unreachable blocks) by the
/// iterative algorithm; `reach[b]` tells reachability.
fn idoms(succs: &[Vec<usize>]) -> (Vec<Option<usize>>, Vec<bool>) {
    let n = succs.len();
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    // Reverse post-order.
    let mut seen = vec![false; n];
    let mut post = Vec::new();
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (b, i) = *top;
        if i < succs[b].len() {
            top.1 += 1;
            let s = succs[b][i];
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    let rpo: Vec<usize> = post.into_iter().rev().collect();
    let mut order = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        order[b] = i;
    }
    let mut dom: Vec<Option<usize>> = vec![None; n];
    dom[0] = Some(0);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if dom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut x) => {
                        let mut y = p;
                        while x != y {
                            while order[x] > order[y] {
                                x = dom[x].unwrap_or(0);
                            }
                            while order[y] > order[x] {
                                y = dom[y].unwrap_or(0);
                            }
                        }
                        x
                    }
                });
            }
            if new.is_some() && dom[b] != new {
                dom[b] = new;
                changed = true;
            }
        }
    }
    let reach = seen;
    let idom = (0..n)
        .map(|b| if b == 0 || !reach[b] { None } else { dom[b] })
        .collect();
    (idom, reach)
}

/// A random function from `seed` (2 to 10 blocks).
pub fn gen_function(seed: u64, name: &str) -> UFunc {
    gen_function_sized(seed, name, 10)
}

/// A random function from `seed` with 2 to `max_blocks` blocks (at least
/// 2); `gen_function_sized(s, n, 10)` is `gen_function(s, n)`.
pub fn gen_function_sized(seed: u64, name: &str, max_blocks: usize) -> UFunc {
    gen_with(seed, name, max_blocks, false)
}

/// Like [`gen_function_sized`], with the shapes where LLVM 22's analysis is
/// unsound against the documents' semantics made frequent, for the sound
/// mode's checks (issue 15, rule U-SOUND): phis (at cycle exits among
/// others) with constant incoming values half of the time, always-uniform
/// `readfirstlane` in 40% of the blocks (so inside irreducible cycles too),
/// and calls of a `nodivergencesource` function on any operand.
pub fn gen_function_sound(seed: u64, name: &str, max_blocks: usize) -> UFunc {
    gen_with(seed, name, max_blocks, true)
}

/// The generator; `sound_shapes` draws extra random numbers only when set,
/// so [`gen_function_sized`]'s programs do not depend on it.
fn gen_with(seed: u64, name: &str, max_blocks: usize, sound_shapes: bool) -> UFunc {
    let mut rng = Rng::new(seed);
    let n = 2 + rng.below(max_blocks.max(2) - 1);
    let succs = random_cfg(&mut rng, n);
    let (idom, reach) = idoms(&succs);
    let kernel = rng.chance(40);
    let nargs = 1 + rng.below(3);
    let inreg: Vec<bool> = (0..nargs).map(|_| rng.chance(35)).collect();

    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    // Values defined in each block, in order (i32 values only).
    let mut defined: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut next = 0usize;
    let mut blocks: Vec<UBlock> = Vec::with_capacity(n);
    // Dominator chain of b (strict), reachable blocks only.
    let strict_doms = |b: usize| -> Vec<usize> {
        let mut out = Vec::new();
        let mut x = idom[b];
        while let Some(d) = x {
            out.push(d);
            x = idom[d];
        }
        out
    };
    // Blocks are filled in dominator-tree-compatible order: a block's
    // dominators have smaller reverse-post-order numbers, but we fill in
    // index order and only read values of dominators that are already
    // filled; phis (which read ends of predecessors) are filled last.
    let order: Vec<usize> = {
        let mut o: Vec<usize> = (0..n).collect();
        o.sort_by_key(|&b| strict_doms(b).len());
        o
    };
    let mut body: Vec<Vec<UInst>> = vec![Vec::new(); n];
    let mut phi_slot: Vec<Option<usize>> = vec![None; n];
    let mut conds: Vec<Option<usize>> = vec![None; n];
    let mut switch_on: Vec<Option<UOp>> = vec![None; n];
    for &b in &order {
        let mut avail: Vec<UOp> = (0..nargs).map(UOp::Arg).collect();
        if reach[b] {
            for d in strict_doms(b) {
                avail.extend(defined[d].iter().map(|&v| UOp::Val(v)));
            }
        }
        let mut insts = Vec::new();
        if reach[b] && !preds[b].is_empty() && rng.chance(75) {
            let dst = next;
            next += 1;
            phi_slot[b] = Some(dst);
            defined[b].push(dst);
            avail.push(UOp::Val(dst));
        }
        let pick = |rng: &mut Rng, avail: &Vec<UOp>| -> UOp {
            if rng.chance(12) {
                UOp::Const(rng.below(8) as i32)
            } else {
                avail[rng.below(avail.len())]
            }
        };
        if rng.chance(if b == 0 { 70 } else { 20 }) {
            let dst = next;
            next += 1;
            insts.push(UInst::Tid { dst });
            defined[b].push(dst);
            avail.push(UOp::Val(dst));
        }
        for _ in 0..(1 + rng.below(2)) {
            let dst = next;
            next += 1;
            let a = pick(&mut rng, &avail);
            let c = pick(&mut rng, &avail);
            insts.push(UInst::Add { dst, a, b: c });
            defined[b].push(dst);
            avail.push(UOp::Val(dst));
        }
        if rng.chance(if sound_shapes { 40 } else { 15 }) {
            let dst = next;
            next += 1;
            let a = pick(&mut rng, &avail);
            insts.push(UInst::ReadFirstLane { dst, a });
            defined[b].push(dst);
            avail.push(UOp::Val(dst));
        }
        if sound_shapes && rng.chance(25) {
            let dst = next;
            next += 1;
            let a = pick(&mut rng, &avail);
            insts.push(UInst::NoDivSource { dst, a });
            defined[b].push(dst);
            avail.push(UOp::Val(dst));
        }
        if rng.chance(30) {
            let v = pick(&mut rng, &avail);
            insts.push(UInst::Store { v });
        }
        if succs[b].len() > 2 {
            switch_on[b] = Some(pick(&mut rng, &avail));
        }
        if succs[b].len() == 2 {
            let dst = next;
            next += 1;
            let a = pick(&mut rng, &avail);
            let c = pick(&mut rng, &avail);
            insts.push(UInst::Cmp { dst, a, b: c });
            conds[b] = Some(dst);
        }
        body[b] = insts;
    }
    // Phis: incoming from the end of each predecessor.
    let mut phis: Vec<Option<UInst>> = vec![None; n];
    for b in 0..n {
        let Some(dst) = phi_slot[b] else { continue };
        let mut incoming = Vec::new();
        for &p in &preds[b] {
            let mut avail: Vec<UOp> = (0..nargs).map(UOp::Arg).collect();
            if reach[p] {
                avail.extend(defined[p].iter().map(|&v| UOp::Val(v)));
                for d in strict_doms(p) {
                    avail.extend(defined[d].iter().map(|&v| UOp::Val(v)));
                }
            }
            let op = if rng.chance(if sound_shapes { 50 } else { 15 }) {
                UOp::Const(rng.below(4) as i32)
            } else {
                avail[rng.below(avail.len())]
            };
            incoming.push((op, p));
        }
        phis[b] = Some(UInst::Phi { dst, incoming });
    }
    for b in 0..n {
        let mut insts = Vec::new();
        if let Some(p) = phis[b].take() {
            insts.push(p);
        }
        insts.append(&mut body[b]);
        let term = match succs[b].as_slice() {
            [] if b + 1 < n && rng.chance(50) => UTerm::Unreachable,
            [] => UTerm::Ret,
            [t] => UTerm::Br(*t),
            [t, f] => UTerm::CondBr {
                cond: conds[b].unwrap_or(0),
                t: *t,
                f: *f,
            },
            [d, cases @ ..] => UTerm::Switch {
                on: switch_on[b].unwrap_or(UOp::Const(0)),
                default: *d,
                cases: cases
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| (i as i32, c))
                    .collect(),
            },
        };
        blocks.push(UBlock { insts, term });
    }
    UFunc {
        name: name.to_string(),
        kernel,
        inreg,
        blocks,
        num_values: next,
    }
}

fn op_text(o: UOp) -> String {
    match o {
        UOp::Arg(i) => format!("%a{i}"),
        UOp::Val(i) => format!("%v{i}"),
        UOp::Const(c) => c.to_string(),
    }
}

/// A `switch` terminator on one line.
pub fn switch_text(on: UOp, default: usize, cases: &[(i32, usize)]) -> String {
    let cs: Vec<String> = cases
        .iter()
        .map(|(v, b)| format!("i32 {v}, label %b{b}"))
        .collect();
    format!(
        "switch i32 {}, label %b{default} [ {} ]",
        op_text(on),
        cs.join(" ")
    )
}

impl UFunc {
    /// The function without its stores: what the interpreter-based checks
    /// (MC-05, MC-06) run, since stores define no value and only add
    /// observations.
    pub fn without_stores(&self) -> UFunc {
        let mut u = self.clone();
        for b in &mut u.blocks {
            b.insts.retain(|i| !matches!(i, UInst::Store { .. }));
        }
        u
    }

    /// The function as LLVM IR text (a `define`; the module needs
    /// [`DECLARATIONS`]).
    pub fn to_llvm(&self) -> String {
        let mut s = String::new();
        let cc = if self.kernel { "amdgpu_kernel " } else { "" };
        let mut params: Vec<String> = self
            .inreg
            .iter()
            .enumerate()
            .map(|(i, &r)| format!("i32 {}%a{i}", if r { "inreg " } else { "" }))
            .collect();
        params.push("ptr addrspace(1) %out".into());
        let _ = writeln!(
            s,
            "define {cc}void @{}({}) {{",
            self.name,
            params.join(", ")
        );
        for (bi, b) in self.blocks.iter().enumerate() {
            let _ = writeln!(s, "b{bi}:");
            for i in &b.insts {
                let line = match i {
                    UInst::Tid { dst } => {
                        format!("%v{dst} = call i32 @llvm.amdgcn.workitem.id.x()")
                    }
                    UInst::Add { dst, a, b } => {
                        format!("%v{dst} = add i32 {}, {}", op_text(*a), op_text(*b))
                    }
                    UInst::ReadFirstLane { dst, a } => format!(
                        "%v{dst} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {})",
                        op_text(*a)
                    ),
                    UInst::Phi { dst, incoming } => {
                        let ins: Vec<String> = incoming
                            .iter()
                            .map(|(o, p)| format!("[ {}, %b{p} ]", op_text(*o)))
                            .collect();
                        format!("%v{dst} = phi i32 {}", ins.join(", "))
                    }
                    UInst::NoDivSource { dst, a } => {
                        format!("%v{dst} = call i32 @convcheck.nds(i32 {})", op_text(*a))
                    }
                    UInst::Cmp { dst, a, b } => {
                        format!("%v{dst} = icmp slt i32 {}, {}", op_text(*a), op_text(*b))
                    }
                    UInst::Store { v } => {
                        format!("store i32 {}, ptr addrspace(1) %out, align 4", op_text(*v))
                    }
                };
                let _ = writeln!(s, "  {line}");
            }
            let t = match &b.term {
                UTerm::Br(t) => format!("br label %b{t}"),
                UTerm::CondBr { cond, t, f } => {
                    format!("br i1 %v{cond}, label %b{t}, label %b{f}")
                }
                UTerm::Switch { on, default, cases } => switch_text(*on, *default, cases),
                UTerm::Ret => "ret void".into(),
                UTerm::Unreachable => "unreachable".into(),
            };
            let _ = writeln!(s, "  {t}");
        }
        s.push_str("}\n");
        s
    }
}

/// Declarations every module of generated functions needs.
pub const DECLARATIONS: &str = "declare i32 @llvm.amdgcn.workitem.id.x()\n\
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n\
declare i32 @convcheck.nds(i32) nodivergencesource\n";

/// A proptest strategy over generated functions (named `f`).
pub fn arb_function() -> impl Strategy<Value = UFunc> {
    any::<u64>().prop_map(|seed| gen_function(seed, "f"))
}

/// [`arb_function`] with at most `max_blocks` blocks (the size bound the
/// meta-claims state).
pub fn arb_function_sized(max_blocks: usize) -> impl Strategy<Value = UFunc> {
    any::<u64>().prop_map(move |seed| gen_function_sized(seed, "f", max_blocks))
}

/// A launch for the interpreter-based checks (MC-05, MC-06): a function of
/// at most `max_blocks` blocks and a thread count, 2 or 3.
pub fn arb_launch_sized(max_blocks: usize) -> impl Strategy<Value = (UFunc, u32)> {
    (arb_function_sized(max_blocks), any::<bool>())
        .prop_map(|(u, three)| (u, if three { 3 } else { 2 }))
}

/// A launch of a [`gen_function_sound`] program (2 or 3 threads).
pub fn arb_launch_sound(max_blocks: usize) -> impl Strategy<Value = (UFunc, u32)> {
    (any::<u64>(), any::<bool>()).prop_map(move |(seed, three)| {
        (
            gen_function_sound(seed, "f", max_blocks),
            if three { 3 } else { 2 },
        )
    })
}

/// The hard shape for the uniformity benchmark and scale tests (issue 15):
/// a kernel of `n` blocks (at least 3) chained `b0 -> b1 -> ... -> b(n-1)`,
/// where about 25% of the blocks also branch back to a random earlier block
/// (many nested and overlapping cycles) and about 10% jump forward into the
/// middle of later blocks (making many of those cycles irreducible). Branch
/// conditions compare thread-id-dependent or uniform values; blocks with
/// several predecessors start with a phi; every block defines values read
/// by the blocks it dominates, so values defined in cycles are used after
/// them.
///
/// Linear in `n`: operands come from the block itself and its three
/// nearest dominators.
pub fn gen_hard_kernel(seed: u64, name: &str, n: usize) -> UFunc {
    let n = n.max(3);
    let mut rng = Rng::new(seed);
    let mut succs: Vec<Vec<usize>> = Vec::with_capacity(n);
    for b in 0..n {
        if b + 1 == n {
            succs.push(Vec::new());
        } else if b > 0 && rng.chance(25) {
            succs.push(vec![b + 1, 1 + rng.below(b)]);
        } else if b > 0 && b + 2 < n && rng.chance(13) {
            let far = (b + 2 + rng.below(64)).min(n - 1);
            succs.push(vec![b + 1, far]);
        } else {
            succs.push(vec![b + 1]);
        }
    }
    let (idom, reach) = idoms(&succs);
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let nargs = 2;
    let mut defined: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut next = 0usize;
    // Values available at the end of `b`: its own, then three dominators'.
    let near = |b: usize, defined: &[Vec<usize>]| -> Vec<UOp> {
        let mut out: Vec<UOp> = (0..nargs).map(UOp::Arg).collect();
        let mut x = Some(b);
        for _ in 0..4 {
            let Some(d) = x else { break };
            out.extend(defined[d].iter().map(|&v| UOp::Val(v)));
            x = idom[d];
        }
        out
    };
    // Blocks in index order: every dominator of a block reachable along the
    // chain has a smaller index, so its values exist already.
    let mut phi_slot: Vec<Option<usize>> = vec![None; n];
    let mut bodies: Vec<Vec<UInst>> = Vec::with_capacity(n);
    let mut conds: Vec<Option<usize>> = vec![None; n];
    for b in 0..n {
        let mut insts = Vec::new();
        if preds[b].len() > 1 && reach[b] {
            phi_slot[b] = Some(next);
            defined[b].push(next);
            next += 1;
        }
        let avail = match idom[b] {
            Some(d) if reach[b] => near(d, &defined),
            _ => (0..nargs).map(UOp::Arg).collect(),
        };
        let mut avail = avail;
        avail.extend(defined[b].iter().map(|&v| UOp::Val(v)));
        if b == 0 || rng.chance(8) {
            insts.push(UInst::Tid { dst: next });
            defined[b].push(next);
            avail.push(UOp::Val(next));
            next += 1;
        }
        for _ in 0..(1 + rng.below(2)) {
            let a = avail[rng.below(avail.len())];
            let c = if rng.chance(30) {
                UOp::Const(rng.below(8) as i32)
            } else {
                avail[rng.below(avail.len())]
            };
            insts.push(UInst::Add { dst: next, a, b: c });
            defined[b].push(next);
            avail.push(UOp::Val(next));
            next += 1;
        }
        if rng.chance(5) {
            let a = avail[rng.below(avail.len())];
            insts.push(UInst::ReadFirstLane { dst: next, a });
            defined[b].push(next);
            avail.push(UOp::Val(next));
            next += 1;
        }
        if succs[b].len() == 2 {
            // Half of the conditions read a uniform argument only.
            let a = if rng.chance(50) {
                UOp::Arg(rng.below(nargs))
            } else {
                avail[rng.below(avail.len())]
            };
            insts.push(UInst::Cmp {
                dst: next,
                a,
                b: UOp::Const(rng.below(16) as i32),
            });
            conds[b] = Some(next);
            next += 1;
        }
        if b + 1 == n {
            let v = avail[rng.below(avail.len())];
            insts.push(UInst::Store { v });
        }
        bodies.push(insts);
    }
    let mut blocks = Vec::with_capacity(n);
    for (b, body) in bodies.into_iter().enumerate() {
        let mut insts = Vec::with_capacity(body.len() + 1);
        if let Some(dst) = phi_slot[b] {
            let incoming = preds[b]
                .iter()
                .map(|&p| {
                    let avail = if reach[p] {
                        near(p, &defined)
                    } else {
                        (0..nargs).map(UOp::Arg).collect()
                    };
                    let op = if rng.chance(15) {
                        UOp::Const(rng.below(4) as i32)
                    } else {
                        avail[rng.below(avail.len())]
                    };
                    (op, p)
                })
                .collect();
            insts.push(UInst::Phi { dst, incoming });
        }
        insts.extend(body);
        let term = match succs[b].as_slice() {
            [] => UTerm::Ret,
            [t] => UTerm::Br(*t),
            [t, f] => UTerm::CondBr {
                cond: conds[b].expect("a two-way block got a Cmp above"),
                t: *t,
                f: *f,
            },
            _ => unreachable!("gen_hard_kernel makes at most two successors"),
        };
        blocks.push(UBlock { insts, term });
    }
    UFunc {
        name: name.to_string(),
        kernel: true,
        inreg: vec![false; nargs],
        blocks,
        num_values: next,
    }
}
