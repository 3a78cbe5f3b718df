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

use std::collections::{BTreeSet, HashMap};

use super::cfg_facts::{cycle_contains, exit_blocks};
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
        let n = cfg.len();
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
        mpo.stack_po(cfg, ci, &mut stack, None, &mut finalized);
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
        cfg: &Cfg,
        ci: &CycleInfo,
        stack: &mut Vec<BlockId>,
        cycle: Option<CycleId>,
        finalized: &mut [bool],
    ) {
        let inside = |b: BlockId| cycle.is_none_or(|c| cycle_contains(ci, c, b));
        while let Some(&next) = stack.last() {
            if finalized[next.0] {
                stack.pop();
                continue;
            }
            let nested = ci.innermost[next.0];
            let is_nested = nested != cycle
                && nested.is_some()
                && cycle.is_none_or(|c| {
                    super::cfg_facts::cycle_contains_cycle(
                        ci,
                        c,
                        nested.expect("checked is_some above"),
                    )
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
                for e in exit_blocks(ci, cfg, child) {
                    if !inside(e) || finalized[e.0] {
                        continue;
                    }
                    pushed = true;
                    stack.push(e);
                }
                if !pushed {
                    stack.pop();
                    self.cycle_po(cfg, ci, child, finalized);
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
    fn cycle_po(&mut self, cfg: &Cfg, ci: &CycleInfo, c: CycleId, finalized: &mut [bool]) {
        let header = ci.cycles[c.0].header();
        finalized[header.0] = true;
        self.append(header, ci.cycles[c.0].is_reducible());
        let mut stack = Vec::new();
        for &s in &cfg.succs[header.0] {
            if !cycle_contains(ci, c, s) || s == header || finalized[s.0] {
                continue;
            }
            stack.push(s);
        }
        self.stack_po(cfg, ci, &mut stack, Some(c), finalized);
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

fn insert_ordered(v: &mut Vec<BlockId>, b: BlockId) {
    if !v.contains(&b) {
        v.push(b);
    }
}

/// `DivergencePropagator::computeJoinPoints` for the branch ending `term`.
pub fn join_points(
    cfg: &Cfg,
    ci: &CycleInfo,
    mpo: &ModifiedPostOrder,
    term: BlockId,
) -> DivergenceDescriptor {
    let mut desc = DivergenceDescriptor::default();
    if cfg.succs[term.0].len() <= 1 {
        return desc;
    }
    let Some(term_idx) = mpo.index[term.0] else {
        return desc;
    };
    let mut labels: HashMap<BlockId, BlockId> = HashMap::new();
    // Indices (in the modified post-order) of blocks with a fresh label.
    let mut fresh: BTreeSet<usize> = BTreeSet::new();
    let term_cycle = ci.innermost[term.0];

    // The largest ancestor cycle of the branch's cycle that is irreducible
    // and has no reducible ancestor: propagation continues through it.
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

    // `computeJoin`: push `label` into `succ`; true when this makes a join.
    let compute_join = |labels: &mut HashMap<BlockId, BlockId>,
                        fresh: &mut BTreeSet<usize>,
                        succ: BlockId,
                        label: BlockId|
     -> bool {
        let old = labels.get(&succ).copied();
        if old == Some(label) {
            return false;
        }
        if old != Some(succ) {
            if let Some(i) = mpo.index[succ.0] {
                fresh.insert(i);
            }
        }
        match old {
            None => {
                labels.insert(succ, label);
                false
            }
            Some(_) => {
                labels.insert(succ, succ);
                true
            }
        }
    };

    for &s in &cfg.succs[term.0] {
        if let Some(c) = term_cycle {
            if !cycle_contains(ci, c, s) {
                insert_ordered(&mut desc.cycle_exit_blocks, s);
            }
        }
        if compute_join(&mut labels, &mut fresh, s, s) {
            insert_ordered(&mut desc.join_blocks, s);
        }
    }

    while let Some(&idx) = fresh.iter().next_back() {
        let block = mpo.order[idx];
        if fresh.len() == 1 && irreducible_ancestor.is_none_or(|c| !cycle_contains(ci, c, block)) {
            break;
        }
        fresh.remove(&idx);
        if idx == term_idx {
            continue;
        }
        let label = *labels
            .get(&block)
            .expect("a block with a fresh label has a label");
        if mpo.reducible_header[block.0] {
            let c = ci.innermost[block.0].expect("a reducible header is in its cycle");
            let inside = cycle_contains(ci, c, term);
            for e in exit_blocks(ci, cfg, c) {
                if compute_join(&mut labels, &mut fresh, e, label) {
                    if inside {
                        insert_ordered(&mut desc.cycle_exit_blocks, e);
                    } else {
                        insert_ordered(&mut desc.join_blocks, e);
                    }
                }
            }
        } else {
            for &s in &cfg.succs[block.0] {
                if compute_join(&mut labels, &mut fresh, s, label) {
                    insert_ordered(&mut desc.join_blocks, s);
                }
            }
        }
    }

    // Irreducible cycles containing the branch: an exit whose label differs
    // from the header's is a divergent exit.
    let mut c = term_cycle;
    while let Some(id) = c {
        let cy = &ci.cycles[id.0];
        if !cy.is_reducible() {
            let header_label = labels.get(&cy.header()).copied();
            for e in exit_blocks(ci, cfg, id) {
                if labels.get(&e).copied() != header_label {
                    insert_ordered(&mut desc.cycle_exit_blocks, e);
                }
            }
        }
        c = cy.parent;
    }
    desc
}
