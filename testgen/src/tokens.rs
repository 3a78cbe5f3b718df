//! Convergence-token programs over generated CFGs, for the static-rule
//! verifier (S-*) and the interpreter (D-*).
//!
//! A [`TokenProgram`] is a [`GenCfg`] plus, per block, a list of convergence
//! operations placed before the terminator: the control intrinsics of C-INTR
//! (`entry`, `anchor`, `loop`, each defining token `%tK`) and calls
//! `%vK = call i32 @op(i32 %sJ)` to `declare i32 @op(i32) convergent`, either
//! controlled (C-CTRL, `[ "convergencectrl"(token %tK) ]`) or uncontrolled.
//!
//! Strategies:
//! - [`arb_token_module`]: arbitrary programs (free placements, planted
//!   defects from [`crate::defects`], and valid ones); free placements
//!   ([`arb_free_token_module`]) are valid or invalid (tokens
//!   used in cycles without their definition, `loop` not first, two hearts,
//!   `entry` outside the entry block or in a non-convergent function, mixed
//!   controlled and uncontrolled operations, uses not dominated by their
//!   definition, missing or extra bundles).
//! - [`arb_valid_token_module`]: placements that follow S-ENTRY-*, S-LOOP-*,
//!   S-MIX, S-CYCLE-1..4 and S-REGION (in LLVM's dominator-tree form) by
//!   construction (see `build_valid`).
//!
//! Both run over reducible and irreducible CFGs.

use std::fmt::Write;

use proptest::collection::vec;
use proptest::prelude::{any, prop_oneof, Just, Strategy};
use proptest::sample::Index;

use crate::cfg::{arb_cfg, arb_irreducible_cfg, arb_reducible_cfg, CondSource, GenCfg};
use crate::graph::{cycle_through_avoiding, natural_loops, reverse_postorder, DomSets};
use crate::oracle::verify_ll;

/// Which control intrinsic (C-INTR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    Entry,
    Anchor,
    Loop,
}

impl Intrinsic {
    pub fn name(self) -> &'static str {
        match self {
            Intrinsic::Entry => "llvm.experimental.convergence.entry",
            Intrinsic::Anchor => "llvm.experimental.convergence.anchor",
            Intrinsic::Loop => "llvm.experimental.convergence.loop",
        }
    }
}

/// One convergence operation placed in a block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TokInst {
    /// `%t{def} = call token @llvm.experimental.convergence.<kind>() [bundle]`.
    Intr {
        def: usize,
        kind: Intrinsic,
        /// The `"convergencectrl"` operand, if any (valid only for `loop`,
        /// S-ENTRY-BUNDLE / S-ANCHOR-BUNDLE / S-LOOP-BUNDLE).
        bundle: Option<usize>,
    },
    /// `%v{id} = call i32 @op(i32 %s{arg}) [bundle]`: controlled iff `token`.
    Op {
        id: usize,
        arg: usize,
        token: Option<usize>,
    },
}

impl TokInst {
    /// The token this instruction uses, if any.
    pub fn uses(&self) -> Option<usize> {
        match self {
            TokInst::Intr { bundle, .. } => *bundle,
            TokInst::Op { token, .. } => *token,
        }
    }

    /// The token this instruction defines, if any.
    pub fn defines(&self) -> Option<usize> {
        match self {
            TokInst::Intr { def, .. } => Some(*def),
            TokInst::Op { .. } => None,
        }
    }

    pub fn to_ll(&self) -> String {
        self.to_ll_prefixed("")
    }

    /// As [`TokInst::to_ll`] with `prefix` before every value name (`%{prefix}t0`),
    /// so that `opt`'s messages about a batch can be attributed to functions.
    pub fn to_ll_prefixed(&self, prefix: &str) -> String {
        let bundle = |t: &Option<usize>| match t {
            Some(t) => format!(" [ \"convergencectrl\"(token %{prefix}t{t}) ]"),
            None => String::new(),
        };
        match self {
            TokInst::Intr {
                def,
                kind,
                bundle: b,
            } => format!(
                "%{prefix}t{def} = call token @{}(){}",
                kind.name(),
                bundle(b)
            ),
            TokInst::Op { id, arg, token } => {
                format!(
                    "%{prefix}v{id} = call i32 @op(i32 %s{arg}){}",
                    bundle(token)
                )
            }
        }
    }
}

/// Where an instruction sits: block index and position within the block's
/// [`TokenProgram::insts`] list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    pub block: usize,
    pub pos: usize,
}

/// A function over a [`GenCfg`] with convergence operations, rendered as a
/// whole module by [`TokenProgram::to_ll`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TokenProgram {
    pub cfg: GenCfg,
    /// Whether the function has the `convergent` attribute (S-ENTRY-FUNC).
    pub convergent: bool,
    /// `insts[b]`: operations of block `b`, in order, before its terminator.
    pub insts: Vec<Vec<TokInst>>,
}

/// Name of the function in [`TokenProgram::to_ll`].
pub const KERNEL_NAME: &str = "k";

impl TokenProgram {
    /// All instructions with their sites, in block then position order.
    pub fn sites(&self) -> impl Iterator<Item = (Site, &TokInst)> {
        self.insts.iter().enumerate().flat_map(|(block, is)| {
            is.iter()
                .enumerate()
                .map(move |(pos, i)| (Site { block, pos }, i))
        })
    }

    /// Definition site and kind of every token, in `%t` number order.
    pub fn defs(&self) -> Vec<(usize, Site, Intrinsic)> {
        let mut v: Vec<(usize, Site, Intrinsic)> = self
            .sites()
            .filter_map(|(s, i)| match i {
                TokInst::Intr { def, kind, .. } => Some((*def, s, *kind)),
                TokInst::Op { .. } => None,
            })
            .collect();
        v.sort_unstable_by_key(|d| d.0);
        v
    }

    /// Where token `t` is defined.
    pub fn def_site(&self, t: usize) -> Option<Site> {
        self.sites()
            .find(|(_, i)| i.defines() == Some(t))
            .map(|(s, _)| s)
    }

    /// Every token use: (site of the user, token).
    pub fn uses(&self) -> Vec<(Site, usize)> {
        self.sites()
            .filter_map(|(s, i)| i.uses().map(|t| (s, t)))
            .collect()
    }

    /// Number of controlled and uncontrolled `@op` calls.
    pub fn op_counts(&self) -> (usize, usize) {
        let mut c = (0, 0);
        for (_, i) in self.sites() {
            if let TokInst::Op { token, .. } = i {
                if token.is_some() {
                    c.0 += 1;
                } else {
                    c.1 += 1;
                }
            }
        }
        c
    }

    /// The function alone, named `name`.
    pub fn to_function_ll(&self, name: &str) -> String {
        self.to_function_ll_prefixed(name, "")
    }

    /// The function with `prefix` on every token and op value name.
    pub fn to_function_ll_prefixed(&self, name: &str, prefix: &str) -> String {
        self.render(name, prefix, CondSource::Args)
    }

    /// The function named `name` with branch conditions from `conds`.
    pub fn to_function_ll_with_conds(&self, name: &str, conds: CondSource) -> String {
        self.render(name, "", conds)
    }

    fn render(&self, name: &str, prefix: &str, conds: CondSource) -> String {
        let attrs = if self.convergent { "convergent" } else { "" };
        self.cfg.to_ll_full(name, attrs, conds, &|b| {
            self.insts
                .get(b)
                .map(|is| is.iter().map(|i| i.to_ll_prefixed(prefix)).collect())
                .unwrap_or_default()
        })
    }

    /// A complete module whose branch conditions are read from the thread's
    /// input stream (see [`CondSource::Stream`]), for interpreter tests that
    /// need loops to iterate.
    pub fn to_ll_stream_conds(&self) -> String {
        format!(
            "{}{}\n{}",
            Self::declarations_ll(),
            CondSource::DECLARATIONS,
            self.render(KERNEL_NAME, "", CondSource::Stream)
        )
    }

    /// The declarations every token module needs.
    pub fn declarations_ll() -> String {
        let mut s = String::from("declare i32 @op(i32) convergent\n");
        for k in [Intrinsic::Entry, Intrinsic::Anchor, Intrinsic::Loop] {
            let _ = writeln!(s, "declare token @{}()", k.name());
        }
        s
    }

    /// A complete module: declarations plus the function `@k`.
    pub fn to_ll(&self) -> String {
        format!(
            "{}\n{}",
            Self::declarations_ll(),
            self.to_function_ll(KERNEL_NAME)
        )
    }

    /// One module holding several programs as `@k0, @k1, ...`, whose value
    /// names carry the prefix `k{i}.` (see [`verify_each`]).
    pub fn to_module_ll(progs: &[TokenProgram]) -> String {
        let mut s = Self::declarations_ll();
        for (i, p) in progs.iter().enumerate() {
            s.push('\n');
            let name = format!("{KERNEL_NAME}{i}");
            s.push_str(&p.to_function_ll_prefixed(&name, &format!("{name}.")));
        }
        s
    }
}

/// Any CFG shape the token strategies run over: reducible, irreducible, or
/// arbitrary.
pub fn arb_token_cfg(max_blocks: usize) -> impl Strategy<Value = GenCfg> {
    let max = max_blocks.max(3);
    prop_oneof![
        3 => arb_reducible_cfg(max),
        1 => arb_irreducible_cfg(max),
        1 => arb_cfg(max),
    ]
}

// ---------------------------------------------------------------------------
// (a) Arbitrary placements.

#[derive(Clone, Debug)]
enum RawAny {
    /// An intrinsic with an optional (index of a) bundle token.
    Intr(Intrinsic, Option<Index>),
    /// An op; `None` is uncontrolled. `bool`: prefer a dominating token.
    Op(Index, Option<(bool, Index)>),
}

fn raw_any() -> impl Strategy<Value = RawAny> {
    let opt_bundle =
        |p: f64| (proptest::bool::weighted(p), any::<Index>()).prop_map(|(b, i)| b.then_some(i));
    prop_oneof![
        1 => opt_bundle(0.1).prop_map(|b| RawAny::Intr(Intrinsic::Entry, b)),
        4 => opt_bundle(0.1).prop_map(|b| RawAny::Intr(Intrinsic::Anchor, b)),
        3 => opt_bundle(0.9).prop_map(|b| RawAny::Intr(Intrinsic::Loop, b)),
        8 => (any::<Index>(), proptest::bool::weighted(0.85), proptest::bool::weighted(0.85), any::<Index>())
            .prop_map(|(a, ctl, dom, t)| RawAny::Op(a, ctl.then_some((dom, t)))),
    ]
}

/// Arbitrary token programs, valid or not: half free placements
/// ([`arb_free_token_module`]), a third likely-valid programs with one
/// planted defect ([`crate::defects`], which reaches defects that free
/// placement rarely hits: two hearts, a heart outside the header, regions
/// that do not nest), and the rest likely-valid programs.
pub fn arb_token_module(max_blocks: usize) -> impl Strategy<Value = TokenProgram> {
    prop_oneof![
        3 => arb_free_token_module(max_blocks),
        2 => crate::defects::arb_defective_token_module(max_blocks).prop_map(|d| d.program),
        1 => arb_valid_token_module(max_blocks),
    ]
}

/// Free placements of intrinsics and ops, valid or not (see the module
/// doc). Token operands are drawn from all tokens of the function; an op
/// prefers (85%) a token whose definition dominates it, so that a good share
/// of programs pass and the invalid ones are usually invalid for a single,
/// interesting reason rather than a dominance error.
pub fn arb_free_token_module(max_blocks: usize) -> impl Strategy<Value = TokenProgram> {
    (
        arb_token_cfg(max_blocks),
        proptest::bool::weighted(0.85),
        vec(vec(raw_any(), 0..=3), 0..=max_blocks.max(3)),
    )
        .prop_map(|(cfg, convergent, raw)| build_any(cfg, convergent, &raw))
}

fn build_any(cfg: GenCfg, convergent: bool, raw: &[Vec<RawAny>]) -> TokenProgram {
    let n = cfg.blocks.len();
    let dom = DomSets::new(&cfg.succs());
    // Pass 1: number the definitions in block/position order.
    let mut insts: Vec<Vec<TokInst>> = vec![Vec::new(); n];
    let mut def_sites: Vec<Site> = Vec::new();
    for (b, block) in raw.iter().take(n).enumerate() {
        for (pos, r) in block.iter().enumerate() {
            if let RawAny::Intr(..) = r {
                def_sites.push(Site { block: b, pos });
            }
        }
    }
    let all: Vec<usize> = (0..def_sites.len()).collect();
    let pick = |i: &Index, from: &[usize]| (!from.is_empty()).then(|| from[i.index(from.len())]);
    // Pass 2: resolve operands.
    let (mut next_def, mut next_op) = (0, 0);
    for (b, block) in raw.iter().take(n).enumerate() {
        for (pos, r) in block.iter().enumerate() {
            let dominating: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&t| {
                    let d = def_sites[t];
                    (d.block == b && d.pos < pos) || (d.block != b && dom.dominates(d.block, b))
                })
                .collect();
            match r {
                RawAny::Intr(kind, bundle) => {
                    // Never the intrinsic's own token: LLVM rejects that as a
                    // plain SSA error, which tests nothing about convergence.
                    let others: Vec<usize> =
                        all.iter().copied().filter(|&t| t != next_def).collect();
                    // A `loop` only takes dominating tokens (else it loses its
                    // bundle: S-LOOP-BUNDLE), to keep dominance errors rare.
                    let from = if *kind == Intrinsic::Loop {
                        &dominating
                    } else {
                        &others
                    };
                    let bundle = bundle.as_ref().and_then(|i| pick(i, from));
                    insts[b].push(TokInst::Intr {
                        def: next_def,
                        kind: *kind,
                        bundle,
                    });
                    next_def += 1;
                }
                RawAny::Op(arg, ctl) => {
                    let token = ctl.as_ref().and_then(|(prefer_dom, i)| {
                        if *prefer_dom {
                            pick(i, &dominating).or_else(|| pick(i, &all))
                        } else {
                            pick(i, &all)
                        }
                    });
                    insts[b].push(TokInst::Op {
                        id: next_op,
                        arg: arg.index(cfg.num_i32),
                        token,
                    });
                    next_op += 1;
                }
            }
        }
    }
    TokenProgram {
        cfg,
        convergent,
        insts,
    }
}

// ---------------------------------------------------------------------------
// (b) Likely-valid placements.

#[derive(Clone, Debug)]
enum RawValidInst {
    Anchor,
    /// An op with a token choice among the legal ones.
    Op(Index, Index),
}

#[derive(Clone, Debug)]
struct RawValid {
    entry: bool,
    /// `convergent` attribute when there is no `entry` (which forces it).
    convergent: bool,
    /// Tokens at all (else only uncontrolled ops: valid by S-MIX too).
    controlled: bool,
    /// Per block: place a heart if the block is a natural loop header, and
    /// which legal parent token.
    hearts: Vec<(bool, Index)>,
    blocks: Vec<Vec<RawValidInst>>,
}

fn raw_valid(max_blocks: usize) -> impl Strategy<Value = RawValid> {
    let inst = prop_oneof![
        1 => Just(RawValidInst::Anchor),
        3 => (any::<Index>(), any::<Index>()).prop_map(|(a, t)| RawValidInst::Op(a, t)),
    ];
    (
        proptest::bool::weighted(0.85),
        proptest::bool::weighted(0.7),
        proptest::bool::weighted(0.9),
        vec((proptest::bool::weighted(0.8), any::<Index>()), max_blocks),
        vec(vec(inst, 0..=3), 0..=max_blocks),
    )
        .prop_map(|(entry, convergent, controlled, hearts, blocks)| RawValid {
            entry,
            convergent,
            controlled,
            hearts,
            blocks,
        })
}

/// Likely-valid token programs; the construction and what it guarantees
/// are documented on `build_valid`.
pub fn arb_valid_token_module(max_blocks: usize) -> impl Strategy<Value = TokenProgram> {
    let max = max_blocks.max(3);
    (arb_token_cfg(max), raw_valid(max)).prop_map(|(cfg, raw)| build_valid(cfg, &raw))
}

/// Places tokens so that the static rules hold by construction:
/// - S-ENTRY-PLACE / S-ENTRY-FUNC: `entry` only first in block 0 of a
///   `convergent` function;
/// - S-LOOP-PLACE / S-CYCLE-4: a `loop` heart only first in a natural loop
///   header `h`, with a parent token defined in a block `d` that strictly
///   dominates `h` such that every closed walk through `h` avoiding `d` stays
///   in blocks that `h` dominates;
/// - S-CYCLE-1..3: an op in block `u` uses a token defined earlier in `u` or
///   in a strictly dominating block `d` such that no closed walk through `u`
///   avoids `d` (if none exists, an `anchor` is placed right before the op);
/// - S-MIX: all ops controlled, or (10%) no tokens and all uncontrolled;
/// - S-REGION in LLVM's form: tokens are only used while their region is
///   open on the dominator-tree stack of [`ValidBuilder`].
///
/// Blocks are filled in reverse postorder, so parent tokens exist before
/// their users. Unreachable blocks only get anchors and ops that use
/// them.
fn build_valid(cfg: GenCfg, raw: &RawValid) -> TokenProgram {
    let n = cfg.blocks.len();
    let succs = cfg.succs();
    let dom = DomSets::new(&succs);
    let headers: Vec<usize> = natural_loops(&succs).iter().map(|l| l.header).collect();
    let mut b = ValidBuilder {
        insts: vec![Vec::new(); n],
        def_block: Vec::new(),
        live: Vec::new(),
        next_op: 0,
    };
    // Reverse postorder (dominators first, and the order in which LLVM
    // propagates live tokens), then the unreachable blocks.
    let mut order = reverse_postorder(&succs);
    order.extend((0..n).filter(|&x| !dom.is_reachable(x)));
    // Live-token stacks at block entry (S-REGION, see ValidBuilder).
    let mut live_in: Vec<Option<Vec<usize>>> = vec![None; n];
    let empty = Vec::new();
    for &blk in &order {
        let raw_insts = raw.blocks.get(blk).unwrap_or(&empty);
        let reach = dom.is_reachable(blk);
        if !raw.controlled {
            for r in raw_insts {
                if let RawValidInst::Op(a, _) = r {
                    b.op(blk, a.index(cfg.num_i32), None);
                }
            }
            continue;
        }
        b.live = live_in[blk].take().unwrap_or_default();
        if blk == 0 && raw.entry {
            b.def(blk, Intrinsic::Entry, None);
        }
        // Tokens from strictly dominating blocks (all placed already).
        let outer: Vec<usize> = (0..b.def_block.len())
            .filter(|&t| reach && b.def_block[t] != blk && dom.dominates(b.def_block[t], blk))
            .collect();
        let (want_heart, heart_pick) = raw
            .hearts
            .get(blk)
            .map_or((false, None), |(w, i)| (*w, Some(i)));
        if reach && want_heart && headers.contains(&blk) {
            let parents: Vec<usize> = outer
                .iter()
                .copied()
                .filter(|&t| b.live.contains(&t) && heart_ok(&succs, &dom, blk, b.def_block[t]))
                .collect();
            if let (false, Some(i)) = (parents.is_empty(), heart_pick) {
                let parent = parents[i.index(parents.len())];
                b.def(blk, Intrinsic::Loop, Some(parent));
            }
        }
        // Outer tokens usable by ops here: S-CYCLE-1 at block granularity.
        let usable_outer: Vec<usize> = outer
            .iter()
            .copied()
            .filter(|&t| {
                cycle_through_avoiding(&succs, blk, Some(b.def_block[t]))
                    .iter()
                    .all(|x| !x)
            })
            .collect();
        for r in raw_insts {
            match r {
                RawValidInst::Anchor => {
                    b.def(blk, Intrinsic::Anchor, None);
                }
                RawValidInst::Op(a, t) => {
                    let cands: Vec<usize> = b
                        .live
                        .iter()
                        .copied()
                        .filter(|&x| b.def_block[x] == blk || usable_outer.contains(&x))
                        .collect();
                    let token = if cands.is_empty() {
                        b.def(blk, Intrinsic::Anchor, None)
                    } else {
                        cands[t.index(cands.len())]
                    };
                    b.op(blk, a.index(cfg.num_i32), Some(token));
                }
            }
        }
        // Propagate like LLVM: the first predecessor in RPO passes on the
        // prefix of its stack whose definitions dominate the successor; later
        // ones intersect. Retreating edges arrive after the successor was
        // filled and change nothing.
        for &s in &succs[blk] {
            match &mut live_in[s] {
                None => {
                    let prefix = b
                        .live
                        .iter()
                        .copied()
                        .take_while(|&t| dom.dominates(b.def_block[t], s))
                        .collect();
                    live_in[s] = Some(prefix);
                }
                Some(l) => l.retain(|t| b.live.contains(t)),
            }
        }
    }
    TokenProgram {
        cfg,
        convergent: raw.entry || raw.convergent,
        insts: b.insts,
    }
}

/// State of [`build_valid`]. `live` is the stack of tokens whose regions are
/// open at the current point, in the form LLVM's verifier checks S-REGION
/// ("Convergence region is not well-nested", GenericConvergenceVerifierImpl.h):
/// a definition pushes its token, a use of token T requires T on the stack
/// and closes every region opened after T (pops down to T); stacks flow
/// along CFG edges in reverse postorder, intersected at joins.
struct ValidBuilder {
    insts: Vec<Vec<TokInst>>,
    /// Token t is defined in block `def_block[t]`.
    def_block: Vec<usize>,
    live: Vec<usize>,
    next_op: usize,
}

impl ValidBuilder {
    fn use_token(&mut self, t: usize) {
        if let Some(k) = self.live.iter().position(|&x| x == t) {
            self.live.truncate(k + 1);
        }
    }

    fn def(&mut self, blk: usize, kind: Intrinsic, bundle: Option<usize>) -> usize {
        if let Some(p) = bundle {
            self.use_token(p);
        }
        let def = self.def_block.len();
        self.insts[blk].push(TokInst::Intr { def, kind, bundle });
        self.def_block.push(blk);
        self.live.push(def);
        def
    }

    fn op(&mut self, blk: usize, arg: usize, token: Option<usize>) {
        if let Some(t) = token {
            self.use_token(t);
        }
        self.insts[blk].push(TokInst::Op {
            id: self.next_op,
            arg,
            token,
        });
        self.next_op += 1;
    }
}

/// The live-token stacks at entry and exit of every block, computed the way
/// LLVM's convergence verifier propagates them (see [`ValidBuilder`]); `None`
/// for blocks it never visits (unreachable ones). Uses of tokens that are
/// not on the stack are skipped (LLVM reports them as not well-nested).
#[allow(clippy::type_complexity)]
pub fn region_stacks(p: &TokenProgram) -> (Vec<Option<Vec<usize>>>, Vec<Option<Vec<usize>>>) {
    let succs = p.cfg.succs();
    let n = succs.len();
    let dom = DomSets::new(&succs);
    let mut def_block = std::collections::BTreeMap::new();
    for (t, site, _) in p.defs() {
        def_block.insert(t, site.block);
    }
    let mut pending: Vec<Option<Vec<usize>>> = vec![None; n];
    let mut live_in: Vec<Option<Vec<usize>>> = vec![None; n];
    let mut live_out: Vec<Option<Vec<usize>>> = vec![None; n];
    for b in reverse_postorder(&succs) {
        let mut live = pending[b].take().unwrap_or_default();
        live_in[b] = Some(live.clone());
        for i in p.insts.get(b).map(Vec::as_slice).unwrap_or_default() {
            if let Some(t) = i.uses() {
                if let Some(k) = live.iter().position(|&x| x == t) {
                    live.truncate(k + 1);
                }
            }
            if let Some(t) = i.defines() {
                live.push(t);
            }
        }
        for &s in &succs[b] {
            match &mut pending[s] {
                None if live_in[s].is_none() => {
                    let prefix = live
                        .iter()
                        .copied()
                        .take_while(|t| def_block.get(t).is_some_and(|&d| dom.dominates(d, s)))
                        .collect();
                    pending[s] = Some(prefix);
                }
                None => {}
                Some(l) => l.retain(|t| live.contains(t)),
            }
        }
        live_out[b] = Some(live);
    }
    (live_in, live_out)
}

/// S-CYCLE-4 for a heart in `h` whose token is defined in block `d`: `h` is
/// on a closed walk avoiding `d`, and every block of such walks is dominated
/// by `h` (so `h` is the header of a natural loop that excludes `d`).
pub fn heart_ok(succs: &[Vec<usize>], dom: &DomSets, h: usize, d: usize) -> bool {
    let scc = cycle_through_avoiding(succs, h, Some(d));
    scc[h] && (0..succs.len()).all(|x| !scc[x] || dom.dominates(h, x))
}

/// `opt -passes=verify` verdicts for many programs with few `opt` runs: the
/// programs go into one module per chunk (see [`TokenProgram::to_module_ll`])
/// and each of `opt`'s messages is attributed to the functions whose value
/// names it prints. A chunk with a message that names no function, or an
/// abnormal exit, is re-run one program at a time. `Err` holds `opt`'s
/// messages for that program.
pub fn verify_each(opt: &std::path::Path, progs: &[TokenProgram]) -> Vec<Result<(), String>> {
    let mut out = Vec::with_capacity(progs.len());
    for chunk in progs.chunks(40) {
        match verify_chunk(opt, chunk) {
            Some(v) => out.extend(v),
            None => out.extend(chunk.iter().map(|p| {
                let o = verify_ll(opt, &p.to_ll());
                if o.success() {
                    Ok(())
                } else {
                    Err(o.stderr)
                }
            })),
        }
    }
    out
}

fn verify_chunk(opt: &std::path::Path, chunk: &[TokenProgram]) -> Option<Vec<Result<(), String>>> {
    let o = verify_ll(opt, &TokenProgram::to_module_ll(chunk));
    if o.success() {
        return Some(vec![Ok(()); chunk.len()]);
    }
    if o.status != Some(1) {
        return None;
    }
    let mut msgs: Vec<String> = vec![String::new(); chunk.len()];
    // Messages start at column 0; the instructions they print are indented.
    let mut groups: Vec<Vec<&str>> = Vec::new();
    for line in o.stderr.lines() {
        if line.contains("error: input module is broken") {
            continue;
        }
        if line.starts_with(' ') {
            groups.last_mut()?.push(line);
        } else if !line.trim().is_empty() {
            groups.push(vec![line]);
        }
    }
    // A group that names no function (e.g. a cycle printed on its own line)
    // continues the previous group's message.
    let mut last: Vec<usize> = Vec::new();
    for g in &groups {
        let named: Vec<usize> = (0..chunk.len())
            .filter(|i| {
                let tag = format!("%{KERNEL_NAME}{i}.");
                g.iter().any(|l| l.contains(&tag))
            })
            .collect();
        if !named.is_empty() {
            last = named;
        } else if last.is_empty() {
            return None;
        }
        for &i in &last {
            let tag = format!("%{KERNEL_NAME}{i}.");
            msgs[i].push_str(&g.join("\n").replace(&tag, "%"));
            msgs[i].push('\n');
        }
    }
    Some(
        msgs.into_iter()
            .map(|m| if m.is_empty() { Ok(()) } else { Err(m) })
            .collect(),
    )
}
