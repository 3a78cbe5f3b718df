//! Rule U-BRANCH / U-EXIT: sync dependence. For a divergent branch, the
//! join blocks reachable from it along disjoint paths, and the cycle exits
//! reachable along a path disjoint from the path back to the cycle header
//! (temporal divergence).
//!
//! This follows GenericUniformityImpl.h: a *modified post-order* of the CFG
//! in which every cycle is a contiguous interval headed by its header
//! ([`ModifiedPostOrder`]), and a label propagation over it
//! ([`join_points`], LLVM's `DivergencePropagator::computeJoinPoints`): each
//! successor of the branch starts with its own label, labels flow along
//! edges in reverse modified post-order, and a block reached by two
//! different labels is a join. A reducible cycle's header forwards its label
//! straight to the cycle's exits, so the cycle is crossed in one step.

use rustc_hash::FxHashMap;

use super::cfg_facts::CycleFacts;
use super::tables::MarkSet;
use crate::cfg::{Cfg, CycleId, CycleInfo};
use crate::ir::BlockId;

/// LLVM's `ModifiedPostOrder`: a post-order of a virtually modified CFG in
/// which a cycle's header is numbered before (i.e. after, in post-order
/// terms, visited last among) the cycle's blocks and the blocks after the
/// cycle come before it. Reverse traversal visits each block after its
/// predecessors, except when the predecessor is a cycle header.
#[derive(Clone, Debug)]
pub struct ModifiedPostOrder {
    /// Blocks in modified post-order.
    pub order: Vec<BlockId>,
    /// Position of each block in `order` (`None` for unreachable blocks).
    pub index: Vec<Option<usize>>,
    /// Headers of reducible cycles (their label jumps to the cycle exits).
    pub reducible_header: Vec<bool>,
}

impl ModifiedPostOrder {
    /// `ModifiedPostOrder::compute`: the stack-based post-order from the
    /// entry, with every nested cycle handled by `cycle_po` once all its
    /// exits are finalized.
    pub fn compute(cfg: &Cfg, ci: &CycleInfo) -> ModifiedPostOrder {
        ModifiedPostOrder::compute_with(&CycleFacts::new(cfg, ci))
    }

    /// [`ModifiedPostOrder::compute`] with the function's cycle facts.
    pub fn compute_with(facts: &CycleFacts) -> ModifiedPostOrder {
        let n = facts.cfg.len();
        let mut mpo = ModifiedPostOrder {
            order: Vec::with_capacity(n),
            index: vec![None; n],
            reducible_header: vec![false; n],
        };
        if n == 0 {
            return mpo;
        }
        let mut finalized = vec![false; n];
        let mut stack = vec![BlockId(0)];
        mpo.stack_po(facts, &mut stack, None, &mut finalized);
        mpo
    }

    fn append(&mut self, b: BlockId, reducible_header: bool) {
        self.index[b.0] = Some(self.order.len());
        self.order.push(b);
        if reducible_header {
            self.reducible_header[b.0] = true;
        }
    }

    /// `computeStackPO`: post-order of the blocks on `stack` restricted to
    /// `cycle` (the whole function for `None`); a block inside a nested
    /// cycle stands for that whole child cycle, whose exits inside `cycle`
    /// are finished first.
    fn stack_po(
        &mut self,
        facts: &CycleFacts,
        stack: &mut Vec<BlockId>,
        cycle: Option<CycleId>,
        finalized: &mut [bool],
    ) {
        let (cfg, ci) = (facts.cfg, facts.ci);
        let inside = |b: BlockId| cycle.is_none_or(|c| facts.contains(c, b));
        while let Some(&next) = stack.last() {
            if finalized[next.0] {
                stack.pop();
                continue;
            }
            let nested = ci.innermost(next);
            let is_nested = nested != cycle
                && nested.is_some()
                && cycle.is_none_or(|c| {
                    facts.contains_cycle(c, nested.expect("checked is_some above"))
                });
            if is_nested {
                // The child of `cycle` on the way to `next`'s innermost cycle.
                let mut child = nested.expect("checked is_some above");
                while ci.cycles[child.0].parent != cycle {
                    child = ci.cycles[child.0]
                        .parent
                        .expect("a nested cycle has `cycle` as an ancestor");
                }
                let mut pushed = false;
                for &e in facts.exit_blocks(child) {
                    if !inside(e) || finalized[e.0] {
                        continue;
                    }
                    pushed = true;
                    stack.push(e);
                }
                if !pushed {
                    stack.pop();
                    self.cycle_po(facts, child, finalized);
                }
                continue;
            }
            let mut pushed = false;
            for &s in &cfg.succs[next.0] {
                if !inside(s) || finalized[s.0] {
                    continue;
                }
                pushed = true;
                stack.push(s);
            }
            if !pushed {
                stack.pop();
                finalized[next.0] = true;
                self.append(next, false);
            }
        }
    }

    /// `computeCyclePO`: the header is appended first (so it ends up last in
    /// reverse order among the cycle... first in reverse), then the
    /// post-order of the cycle body from the header's successors.
    fn cycle_po(&mut self, facts: &CycleFacts, c: CycleId, finalized: &mut [bool]) {
        let (cfg, ci) = (facts.cfg, facts.ci);
        let header = ci.cycles[c.0].header();
        finalized[header.0] = true;
        self.append(header, ci.cycles[c.0].is_reducible());
        let mut stack = Vec::new();
        for &s in &cfg.succs[header.0] {
            if !facts.contains(c, s) || s == header || finalized[s.0] {
                continue;
            }
            stack.push(s);
        }
        self.stack_po(facts, &mut stack, Some(c), finalized);
    }
}

/// What a divergent branch causes (LLVM's `DivergenceDescriptor`).
#[derive(Clone, Debug, Default)]
pub struct DivergenceDescriptor {
    /// Join points of disjoint paths from the branch (rule U-BRANCH), in
    /// discovery order.
    pub join_blocks: Vec<BlockId>,
    /// Divergent cycle exits (rule U-EXIT), in discovery order.
    pub cycle_exit_blocks: Vec<BlockId>,
}

/// No label yet (labels are positions, see [`JoinPropagator`]).
const NO_LABEL: u32 = u32::MAX;

/// The scratch state of [`JoinPropagator::join_points`], allocated once per
/// function and reset in time proportional to what the last query touched,
/// so that a query costs only the edges its labels cross.
///
/// Blocks are renumbered by *position*: their index in the modified
/// post-order, then the blocks it lacks (unreachable from the entry; no
/// label ever reaches them from a reachable branch, they are kept so that
/// the renumbering is total). Labels are positions too (LLVM's labels are
/// blocks; only their equality matters). The walk reads the *modified
/// successors* of each position from one flat array: the exit blocks of
/// the cycle for a reducible header (its label jumps over the cycle), the
/// CFG successors otherwise, so that the inner loop touches contiguous
/// memory only.
pub struct JoinPropagator {
    /// Block at each position (a block index in 32 bits).
    block_at: Vec<u32>,
    /// Position of each block.
    pos: Vec<u32>,
    /// Number of positions in the modified post-order (the reachable
    /// blocks); positions from here on are never walked.
    walked: usize,
    /// `succ_list[succ_start[p]..succ_start[p + 1]]`: the modified
    /// successors of position `p`, as positions.
    succ_start: Vec<u32>,
    succ_list: Vec<u32>,
    /// The positions of the headers of reducible cycles, as a bit set (the
    /// cycle is the header's innermost one: a bit a block instead of a
    /// 4-byte cycle index).
    reducible_header: Vec<u64>,
    /// Label of each position (`NO_LABEL` when unreached).
    labels: Vec<u32>,
    /// Positions whose label was set by the current query.
    touched: Vec<u32>,
    /// Positions with a fresh label, as a bit set; the largest is processed
    /// first (LLVM's `FreshLabels.find_last()`).
    fresh: FreshSet,
    /// Query number at which a position was last added to each result list.
    /// (Positions already added to each result list by the current query:
    /// a bit a position, reset through the list of those added, instead of
    /// a query stamp of 4 bytes a position each.)
    join_added: MarkSet,
    exit_added: MarkSet,
    /// Per cycle, computed on first use: the indices into its exit list,
    /// sorted by the depth of the exit block's innermost cycle (0 outside
    /// every cycle) then by index.
    /// (A map: only the irreducible cycles around divergent branches are
    /// asked about, and a cell a cycle took 24 bytes.)
    exits_by_depth: FxHashMap<u32, Vec<(u32, u32)>>,
    /// Scratch list of the exit indices [`JoinPropagator::pick_exits`]
    /// picked.
    picked: Vec<u32>,
}

impl JoinPropagator {
    /// Numbers the positions and lays out the modified successors
    /// (O(blocks + edges + total exit-list length)).
    pub fn new(facts: &CycleFacts, mpo: &ModifiedPostOrder) -> JoinPropagator {
        let (cfg, ci) = (facts.cfg, facts.ci);
        let n = cfg.len();
        let block_index =
            |b: BlockId| u32::try_from(b.0).expect("U-FIX: a function has fewer than 2^32 blocks");
        let mut block_at: Vec<u32> = Vec::with_capacity(n);
        block_at.extend(mpo.order.iter().map(|&b| block_index(b)));
        let walked = block_at.len();
        block_at.extend(
            (0..n)
                .map(BlockId)
                .filter(|b| mpo.index[b.0].is_none())
                .map(block_index),
        );
        let mut pos = vec![0u32; n];
        for (p, &b) in block_at.iter().enumerate() {
            pos[b as usize] = p as u32;
        }
        let mut succ_start = Vec::with_capacity(n + 1);
        let mut succ_list = Vec::with_capacity(n * 2);
        let mut reducible_header = vec![0u64; n.div_ceil(64)];
        for (p, b) in block_at.iter().map(|&b| BlockId(b as usize)).enumerate() {
            succ_start.push(succ_list.len() as u32);
            if mpo.reducible_header[b.0] {
                let c = ci.innermost(b).expect("a reducible header is in its cycle");
                reducible_header[p / 64] |= 1 << (p % 64);
                succ_list.extend(facts.exit_blocks(c).iter().map(|e| pos[e.0]));
            } else {
                succ_list.extend(cfg.succs[b.0].iter().map(|s| pos[s.0]));
            }
        }
        succ_start.push(succ_list.len() as u32);
        succ_list.shrink_to_fit();
        JoinPropagator {
            block_at,
            pos,
            walked,
            succ_start,
            succ_list,
            reducible_header,
            labels: vec![NO_LABEL; n],
            touched: Vec::new(),
            fresh: FreshSet::new(n),
            join_added: MarkSet::new(n),
            exit_added: MarkSet::new(n),
            exits_by_depth: FxHashMap::default(),
            picked: Vec::new(),
        }
    }

    /// The indices into the exit list of cycle `c` of the exits whose
    /// depth `filter` keeps, in list order.
    fn pick_exits(&mut self, facts: &CycleFacts, c: CycleId, filter: &ExitFilter) -> Vec<u32> {
        let key = u32::try_from(c.0).expect("fewer than 2^32 cycles");
        let by_depth = self.exits_by_depth.entry(key).or_insert_with(|| {
            let ci = facts.ci;
            let mut v: Vec<(u32, u32)> = facts
                .exit_blocks(c)
                .iter()
                .enumerate()
                .map(|(k, e)| {
                    let d = ci.innermost(*e).map_or(0, |x| ci.cycles[x.0].depth);
                    (d, k as u32)
                })
                .collect();
            v.sort_unstable();
            v
        });
        let mut picked = std::mem::take(&mut self.picked);
        picked.clear();
        for &d in &filter.depths {
            let lo = by_depth.partition_point(|&(x, _)| x < d);
            let hi = by_depth.partition_point(|&(x, _)| x <= d);
            picked.extend(by_depth[lo..hi].iter().map(|&(_, k)| k));
        }
        if let Some(d) = filter.from_depth {
            let lo = by_depth.partition_point(|&(x, _)| x < d);
            picked.extend(by_depth[lo..].iter().map(|&(_, k)| k));
        }
        picked.sort_unstable();
        picked.dedup();
        picked
    }

    fn add_join(&mut self, desc: &mut DivergenceDescriptor, p: u32) {
        if self.join_added.insert(p) {
            desc.join_blocks
                .push(BlockId(self.block_at[p as usize] as usize));
        }
    }

    fn add_exit(&mut self, desc: &mut DivergenceDescriptor, p: u32) {
        if self.exit_added.insert(p) {
            desc.cycle_exit_blocks
                .push(BlockId(self.block_at[p as usize] as usize));
        }
    }

    /// `computeJoin`: pushes `label` into position `succ`; true when this
    /// makes `succ` a join (two different labels meet).
    #[inline]
    fn compute_join(&mut self, succ: u32, label: u32) -> bool {
        let old = self.labels[succ as usize];
        if old == label {
            return false;
        }
        if old != succ && (succ as usize) < self.walked {
            self.fresh.insert(succ as usize);
        }
        if old == NO_LABEL {
            self.labels[succ as usize] = label;
            self.touched.push(succ);
            false
        } else {
            self.labels[succ as usize] = succ;
            true
        }
    }

    /// `DivergencePropagator::computeJoinPoints` for the branch ending
    /// `term`: each successor starts with its own label, labels flow along
    /// the modified successors in reverse modified post-order, and a block
    /// reached by two different labels is a join. The walk stops when one
    /// fresh label is left, unless it lies in the outermost irreducible
    /// cycle around the branch (labels keep flowing around it).
    ///
    /// `exits`: which exits of the irreducible cycles around the branch to
    /// compare with their headers' labels (the last step, which costs the
    /// length of those cycles' exit lists). The caller leaves out exits
    /// whose divergence can change nothing ([`ExitFilter`]); the joins are
    /// the same either way, and the exits reported are those of the full
    /// step that the filter keeps, in the same order.
    pub fn join_points(
        &mut self,
        facts: &CycleFacts,
        term: BlockId,
        exits: &ExitFilter,
    ) -> DivergenceDescriptor {
        let (cfg, ci) = (facts.cfg, facts.ci);
        let mut desc = DivergenceDescriptor::default();
        if cfg.succs[term.0].len() <= 1 {
            return desc;
        }
        let term_pos = self.pos[term.0];
        if term_pos as usize >= self.walked {
            return desc;
        }
        self.join_added.clear();
        self.exit_added.clear();
        for p in self.touched.drain(..) {
            self.labels[p as usize] = NO_LABEL;
        }
        self.fresh.clear();
        let term_cycle = ci.innermost(term);

        // The largest ancestor cycle of the branch's cycle that is
        // irreducible and has no reducible ancestor: propagation continues
        // through it.
        let irreducible_ancestor = term_cycle.and_then(|mut c| {
            if ci.cycles[c.0].is_reducible() {
                return None;
            }
            while let Some(p) = ci.cycles[c.0].parent {
                if ci.cycles[p.0].is_reducible() {
                    return Some(c);
                }
                c = p;
            }
            Some(c)
        });

        for &s in &cfg.succs[term.0] {
            let sp = self.pos[s.0];
            if let Some(c) = term_cycle {
                if !facts.contains(c, s) {
                    self.add_exit(&mut desc, sp);
                }
            }
            if self.compute_join(sp, sp) {
                self.add_join(&mut desc, sp);
            }
        }

        while let Some(p) = self.fresh.last() {
            if self.fresh.len() == 1
                && irreducible_ancestor
                    .is_none_or(|c| !facts.contains(c, BlockId(self.block_at[p] as usize)))
            {
                break;
            }
            self.fresh.remove(p);
            if p == term_pos as usize {
                continue;
            }
            let label = self.labels[p];
            debug_assert_ne!(label, NO_LABEL, "a block with a fresh label has a label");
            // Exits reached through a reducible header are divergent exits
            // when the branch is inside that cycle, joins otherwise.
            let as_exit = self.reducible_header[p / 64] & (1 << (p % 64)) != 0 && {
                let b = BlockId(self.block_at[p] as usize);
                let c = ci.innermost(b).expect("a reducible header is in its cycle");
                facts.contains(c, term)
            };
            let (lo, hi) = (self.succ_start[p] as usize, self.succ_start[p + 1] as usize);
            for k in lo..hi {
                let s = self.succ_list[k];
                if self.compute_join(s, label) {
                    if as_exit {
                        self.add_exit(&mut desc, s);
                    } else {
                        self.add_join(&mut desc, s);
                    }
                }
            }
        }

        // Irreducible cycles containing the branch: an exit whose label
        // differs from the header's is a divergent exit.
        let mut c = term_cycle.filter(|_| !exits.is_empty());
        while let Some(id) = c {
            let cy = &ci.cycles[id.0];
            if !cy.is_reducible() {
                let header_label = self.labels[self.pos[cy.header().0] as usize];
                let list = facts.exit_blocks(id);
                let check = |this: &mut Self, desc: &mut DivergenceDescriptor, e: BlockId| {
                    let ep = this.pos[e.0];
                    if this.labels[ep as usize] != header_label {
                        this.add_exit(desc, ep);
                    }
                };
                if exits.all() {
                    for &e in list {
                        check(self, &mut desc, e);
                    }
                } else {
                    let picked = self.pick_exits(facts, id, exits);
                    for &k in &picked {
                        check(self, &mut desc, list[k as usize]);
                    }
                    self.picked = picked;
                }
            }
            c = cy.parent;
        }
        desc
    }
}

/// `DivergencePropagator::computeJoinPoints` for the branch ending `term`,
/// as a one-off query (tests); the analysis keeps one [`JoinPropagator`]
/// per function instead.
pub fn join_points(
    cfg: &Cfg,
    ci: &CycleInfo,
    mpo: &ModifiedPostOrder,
    term: BlockId,
) -> DivergenceDescriptor {
    let facts = CycleFacts::new(cfg, ci);
    JoinPropagator::new(&facts, mpo).join_points(&facts, term, &ExitFilter::every())
}

/// Which divergent exits of the irreducible cycles around a branch matter,
/// by the depth of the exit block's innermost cycle (0 outside every
/// cycle): rule U-EXIT marks the ancestor of the branch's cycle one level
/// below the exit's depth, so an exit matters only when that cycle has no
/// divergent exit yet.
#[derive(Clone, Debug, Default)]
pub struct ExitFilter {
    /// Exit depths that matter.
    depths: Vec<u32>,
    /// Every exit depth from this one on matters.
    from_depth: Option<u32>,
}

impl ExitFilter {
    /// Every exit.
    pub fn every() -> ExitFilter {
        ExitFilter {
            depths: Vec::new(),
            from_depth: Some(0),
        }
    }

    /// Keeps the exits at `depth`.
    pub fn add(&mut self, depth: u32) {
        self.depths.push(depth);
    }

    /// Keeps the exits at `depth` and deeper.
    pub fn add_from(&mut self, depth: u32) {
        self.from_depth = Some(self.from_depth.map_or(depth, |d| d.min(depth)));
    }

    /// Keeps no exit.
    pub fn is_empty(&self) -> bool {
        self.depths.is_empty() && self.from_depth.is_none()
    }

    fn all(&self) -> bool {
        self.from_depth == Some(0)
    }
}

/// A set of indices below `n` as bits, with its size and an upper bound on
/// its largest element so that `last` scans each word at most once between
/// insertions above the bound.
struct FreshSet {
    words: Vec<u64>,
    len: usize,
    /// No element lies in a word above this one.
    top_word: usize,
}

impl FreshSet {
    fn new(n: usize) -> FreshSet {
        FreshSet {
            words: vec![0; n.div_ceil(64).max(1)],
            len: 0,
            top_word: 0,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn insert(&mut self, i: usize) {
        let (w, bit) = (i / 64, 1u64 << (i % 64));
        if self.words[w] & bit == 0 {
            self.words[w] |= bit;
            self.len += 1;
            self.top_word = self.top_word.max(w);
        }
    }

    fn remove(&mut self, i: usize) {
        let (w, bit) = (i / 64, 1u64 << (i % 64));
        if self.words[w] & bit != 0 {
            self.words[w] &= !bit;
            self.len -= 1;
        }
    }

    /// The largest element.
    fn last(&mut self) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        loop {
            let w = self.words[self.top_word];
            if w != 0 {
                return Some(self.top_word * 64 + 63 - w.leading_zeros() as usize);
            }
            self.top_word = self.top_word.checked_sub(1)?;
        }
    }

    fn clear(&mut self) {
        while let Some(i) = self.last() {
            self.remove(i);
        }
        self.top_word = 0;
    }
}
