//! Which divergent branches can still change anything (issue 15).
//!
//! In LLVM's analysis (rule U-LLVM) the consequences of a divergent branch
//! are all idempotent: its joins taint phis (U-PHI) and may assume an
//! irreducible cycle divergent (U-MCONV), its divergent exits mark the
//! cycle around it (U-EXIT). On CFGs with large irreducible regions most
//! branches come after those consequences are already in place, and the
//! join computation (whose labels keep flowing around the whole region, so
//! it costs the region's size per branch) finds nothing new.
//!
//! A block is *saturated* when a join there can change nothing:
//! - every phi a join would taint (U-PHI: not one value and undefs) is
//!   divergent already, or its phis were tainted already;
//! - every irreducible cycle containing it is assumed divergent (covered):
//!   `getOutermostDivergentCycle` only ever answers an irreducible cycle
//!   containing the join (`getExtDivCycle` filters on irreducibility;
//!   `getIntDivCycle` starts at an irreducible cycle and widens only to a
//!   parent whose header does not dominate the join, which a reducible
//!   parent's header always does, since a child cycle never contains its
//!   parent's header), and a covered answer is skipped.
//!
//! Saturation only grows. A branch whose every reachable block is saturated
//! and whose every surrounding cycle has a divergent exit already (so that
//! U-EXIT stops at once) changes nothing; [`Saturation::nothing_reachable_open`]
//! answers that with a search that remembers (per strongly connected
//! component of the CFG: a top-level cycle, or a block outside every cycle)
//! either that everything reachable is saturated, for good, or one open
//! block it found, rechecked first next time. Only the LLVM-compatible mode
//! skips such branches (the sound mode has further consequences).

use super::cfg_facts::CycleFacts;
use super::tables::{MarkSet, PerInst};
use crate::cfg::{Cfg, CycleId, CycleInfo};
use crate::ir::{BlockId, Function, InstKind};

/// No open block known.
const NONE: u32 = u32::MAX;

/// The dynamic facts saturation reads, borrowed from the analysis.
pub struct Marks<'s> {
    /// Cycles inside an assumed-divergent cycle (reflexive).
    pub covered: &'s [bool],
    /// Blocks whose phis were tainted already.
    pub phis_tainted: &'s [bool],
    /// Divergent instructions, per block.
    pub div_insts: &'s PerInst<bool>,
    /// The function's cycles (each block's innermost cycle).
    pub ci: &'s CycleInfo,
}

/// The static part of the saturation test, and what the searches found.
pub struct Saturation {
    /// Per cycle, the representative of the strongly connected component
    /// of its blocks: the header of its top-level ancestor (a block outside
    /// every cycle is its own). Per cycle rather than per block: 4 bytes a
    /// cycle instead of a block.
    rep_of_cycle: Vec<u32>,
    /// Per cycle, its outermost irreducible ancestor (reflexive; `NONE`
    /// for none): the one of each block's innermost cycle.
    outer_of_cycle: Vec<u32>,
    /// `phis[phi_start[b]..phi_start[b + 1]]`: the indices of the phis of
    /// block `b` that a join would taint (rule U-PHI) and that are not
    /// always uniform.
    phi_start: Vec<u32>,
    phis: Vec<u32>,
    /// Per representative: everything reachable from the component is
    /// saturated (final).
    done: Vec<bool>,
    /// Per representative: an open block reachable from the component, or
    /// `NONE`.
    witness: Vec<u32>,
    /// The blocks the current search visited.
    seen: MarkSet,
    stack: Vec<BlockId>,
    visited: Vec<BlockId>,
}

impl Saturation {
    /// Knows nothing (a placeholder until [`Saturation::new`]).
    pub fn empty() -> Saturation {
        Saturation {
            rep_of_cycle: Vec::new(),
            outer_of_cycle: Vec::new(),
            phi_start: vec![0],
            phis: Vec::new(),
            done: Vec::new(),
            witness: Vec::new(),
            seen: MarkSet::new(0),
            stack: Vec::new(),
            visited: Vec::new(),
        }
    }

    /// `taintable(b, i)`: whether phi `i` of block `b` is one a join would
    /// taint that may still become divergent.
    pub fn new(
        facts: &CycleFacts,
        func: &Function,
        taintable: impl Fn(BlockId, usize) -> bool,
    ) -> Saturation {
        let (cfg, ci) = (facts.cfg, facts.ci);
        let n = cfg.len();
        // Outermost irreducible ancestor of each cycle, parents first
        // (a parent's preorder number is smaller: visit cycles top-down).
        let mut outer_of_cycle: Vec<Option<CycleId>> = vec![None; ci.cycles.len()];
        let mut stack: Vec<CycleId> = ci.top_level.clone();
        while let Some(c) = stack.pop() {
            let cy = &ci.cycles[c.0];
            let above = cy.parent.and_then(|p| outer_of_cycle[p.0]);
            outer_of_cycle[c.0] = above.or((!cy.is_reducible()).then_some(c));
            stack.extend(cy.children.iter().copied());
        }
        let rep_of_cycle: Vec<u32> = (0..ci.cycles.len())
            .map(|c| {
                let top = facts.ancestor_at_depth(CycleId(c), 1);
                ci.cycles[top.0].header().0 as u32
            })
            .collect();
        let outer_of_cycle: Vec<u32> = outer_of_cycle
            .iter()
            .map(|o| o.map_or(NONE, |x| x.0 as u32))
            .collect();
        let mut phi_start = Vec::with_capacity(n + 1);
        let mut phis = Vec::new();
        for (b, block) in func.blocks.iter().enumerate() {
            phi_start.push(phis.len() as u32);
            for (i, inst) in block.insts.iter().enumerate() {
                if matches!(inst.kind, InstKind::Phi { .. }) && taintable(BlockId(b), i) {
                    phis.push(i as u32);
                }
            }
        }
        phi_start.push(phis.len() as u32);
        Saturation {
            rep_of_cycle,
            outer_of_cycle,
            phi_start,
            phis,
            done: vec![false; n],
            witness: vec![NONE; n],
            seen: MarkSet::new(n),
            stack: Vec::new(),
            visited: Vec::new(),
        }
    }

    /// Whether a join at `b` can change nothing any more.
    /// The representative of `b`'s strongly connected component.
    fn rep(&self, ci: &CycleInfo, b: BlockId) -> usize {
        match ci.innermost(b) {
            Some(c) => self.rep_of_cycle[c.0] as usize,
            None => b.0,
        }
    }

    fn saturated(&self, marks: &Marks, b: BlockId) -> bool {
        let c = marks
            .ci
            .innermost(b)
            .map_or(NONE, |c| self.outer_of_cycle[c.0]);
        if c != NONE && !marks.covered[c as usize] {
            return false;
        }
        if marks.phis_tainted[b.0] {
            return true;
        }
        let (lo, hi) = (
            self.phi_start[b.0] as usize,
            self.phi_start[b.0 + 1] as usize,
        );
        self.phis[lo..hi]
            .iter()
            .all(|&i| marks.div_insts[b.0][i as usize])
    }

    /// Whether every block reachable from the successors of `branch` is
    /// saturated (a component's `done` covers its own blocks too, so it is
    /// set only for components whose blocks were checked).
    pub fn nothing_reachable_open(&mut self, cfg: &Cfg, marks: &Marks, branch: BlockId) -> bool {
        let r = self.rep(marks.ci, branch);
        if self.done[r] {
            return true;
        }
        let w = self.witness[r];
        if w != NONE && !self.saturated(marks, BlockId(w as usize)) {
            return false;
        }
        self.seen.clear();
        self.stack.clear();
        self.visited.clear();
        self.stack.extend_from_slice(&cfg.succs[branch.0]);
        while let Some(b) = self.stack.pop() {
            if self.done[self.rep(marks.ci, b)] || !self.seen.insert(b.0 as u32) {
                continue;
            }
            if !self.saturated(marks, b) {
                self.witness[r] = b.0 as u32;
                return false;
            }
            self.visited.push(b);
            self.stack.extend_from_slice(&cfg.succs[b.0]);
        }
        // Everything reachable from each visited block was visited (or is
        // known saturated), and is saturated.
        for &b in &self.visited {
            let r = self.rep(marks.ci, b);
            self.done[r] = true;
        }
        self.witness[r] = NONE;
        true
    }
}
