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

use super::cfg_facts::CycleFacts;
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
            let nested = ci.innermost[next.0];
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

/// No label yet (labels are block numbers).
const NO_LABEL: u32 = u32::MAX;

/// The scratch state of [`JoinPropagator::join_points`], allocated once per
/// function and reset in time proportional to what the last query touched,
/// so that a query costs only the blocks its labels reach.
pub struct JoinPropagator {
    /// Label of each block (`NO_LABEL` when unreached).
    labels: Vec<u32>,
    /// Blocks whose label was set by the current query.
    touched: Vec<usize>,
    /// Indices (in the modified post-order) of blocks with a fresh label,
    /// as a bit set; the largest is processed first (LLVM's
    /// `FreshLabels.find_last()`).
    fresh: FreshSet,
    /// Query number at which a block was last added to each result list.
    join_stamp: Vec<u32>,
    exit_stamp: Vec<u32>,
    query: u32,
}

impl JoinPropagator {
    pub fn new(n: usize) -> JoinPropagator {
        JoinPropagator {
            labels: vec![NO_LABEL; n],
            touched: Vec::new(),
            fresh: FreshSet::new(n),
            join_stamp: vec![0; n],
            exit_stamp: vec![0; n],
            query: 0,
        }
    }

    fn label(&self, b: BlockId) -> Option<u32> {
        Some(self.labels[b.0]).filter(|&l| l != NO_LABEL)
    }

    fn add_join(&mut self, desc: &mut DivergenceDescriptor, b: BlockId) {
        if self.join_stamp[b.0] != self.query {
            self.join_stamp[b.0] = self.query;
            desc.join_blocks.push(b);
        }
    }

    fn add_exit(&mut self, desc: &mut DivergenceDescriptor, b: BlockId) {
        if self.exit_stamp[b.0] != self.query {
            self.exit_stamp[b.0] = self.query;
            desc.cycle_exit_blocks.push(b);
        }
    }

    /// `computeJoin`: pushes `label` into `succ`; true when this makes
    /// `succ` a join (two different labels meet).
    fn compute_join(&mut self, mpo: &ModifiedPostOrder, succ: BlockId, label: u32) -> bool {
        let old = self.labels[succ.0];
        if old == label {
            return false;
        }
        if old != succ.0 as u32 {
            if let Some(i) = mpo.index[succ.0] {
                self.fresh.insert(i);
            }
        }
        if old == NO_LABEL {
            self.labels[succ.0] = label;
            self.touched.push(succ.0);
            false
        } else {
            self.labels[succ.0] = succ.0 as u32;
            true
        }
    }

    /// `DivergencePropagator::computeJoinPoints` for the branch ending
    /// `term`.
    pub fn join_points(
        &mut self,
        facts: &CycleFacts,
        mpo: &ModifiedPostOrder,
        term: BlockId,
    ) -> DivergenceDescriptor {
        let (cfg, ci) = (facts.cfg, facts.ci);
        let mut desc = DivergenceDescriptor::default();
        if cfg.succs[term.0].len() <= 1 {
            return desc;
        }
        let Some(term_idx) = mpo.index[term.0] else {
            return desc;
        };
        self.query += 1;
        for b in self.touched.drain(..) {
            self.labels[b] = NO_LABEL;
        }
        self.fresh.clear();
        let term_cycle = ci.innermost[term.0];

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
            if let Some(c) = term_cycle {
                if !facts.contains(c, s) {
                    self.add_exit(&mut desc, s);
                }
            }
            if self.compute_join(mpo, s, s.0 as u32) {
                self.add_join(&mut desc, s);
            }
        }

        while let Some(idx) = self.fresh.last() {
            let block = mpo.order[idx];
            if self.fresh.len() == 1
                && irreducible_ancestor.is_none_or(|c| !facts.contains(c, block))
            {
                break;
            }
            self.fresh.remove(idx);
            if idx == term_idx {
                continue;
            }
            let label = self
                .label(block)
                .expect("a block with a fresh label has a label");
            if mpo.reducible_header[block.0] {
                let c = ci.innermost[block.0].expect("a reducible header is in its cycle");
                let inside = facts.contains(c, term);
                for &e in facts.exit_blocks(c) {
                    if self.compute_join(mpo, e, label) {
                        if inside {
                            self.add_exit(&mut desc, e);
                        } else {
                            self.add_join(&mut desc, e);
                        }
                    }
                }
            } else {
                for &s in &cfg.succs[block.0] {
                    if self.compute_join(mpo, s, label) {
                        self.add_join(&mut desc, s);
                    }
                }
            }
        }

        // Irreducible cycles containing the branch: an exit whose label
        // differs from the header's is a divergent exit.
        let mut c = term_cycle;
        while let Some(id) = c {
            let cy = &ci.cycles[id.0];
            if !cy.is_reducible() {
                let header_label = self.label(cy.header());
                for &e in facts.exit_blocks(id) {
                    if self.label(e) != header_label {
                        self.add_exit(&mut desc, e);
                    }
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
    JoinPropagator::new(cfg.len()).join_points(&CycleFacts::new(cfg, ci), mpo, term)
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
