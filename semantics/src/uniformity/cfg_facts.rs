//! The CFG facts the uniformity analysis reads: reachability, dominance and
//! LLVM's cycle hierarchy, with the queries GenericUniformityImpl.h makes
//! (`DT.dominates`, `DT.properlyDominates`, `CI.getCycle`,
//! `Cycle::contains`, `Cycle::getExitBlocks`).
//!
//! The facts come from [`crate::cfg`] ([`DomTree::dominators`],
//! [`CycleInfo::compute`], both checked against `opt-22` there). Every fact
//! is computed once per function ([`CycleFacts`]): cycle membership in O(1)
//! from preorder intervals of the cycle tree, exit blocks once per cycle on
//! first use, so that the analysis stays near-linear on CFGs with thousands
//! of nested and irreducible cycles (issue 15).

use std::cell::OnceCell;
use std::collections::HashSet;

use crate::cfg::{Cfg, CycleId, CycleInfo, DomTree};
use crate::ir::BlockId;

/// `DT.dominates(A, B)` (reflexive; a block unreachable from the entry is
/// dominated by every block and dominates only itself), as
/// [`DomTree::dominates`] answers it.
pub fn dominates(dt: &DomTree, a: BlockId, b: BlockId) -> bool {
    dt.dominates(a, b)
}

/// `DT.properlyDominates(A, B)`: dominance with `A != B`.
pub fn properly_dominates(dt: &DomTree, a: BlockId, b: BlockId) -> bool {
    a != b && dt.dominates(a, b)
}

/// The cycle queries of one function, each answered from facts computed
/// once.
pub struct CycleFacts<'a> {
    pub cfg: &'a Cfg,
    pub ci: &'a CycleInfo,
    /// Preorder number of each cycle in the cycle tree.
    pre: Vec<u32>,
    /// Largest preorder number in each cycle's subtree.
    last: Vec<u32>,
    /// `Cycle::getExitBlocks` of each cycle, computed on first use.
    exits: Vec<OnceCell<Vec<BlockId>>>,
    /// `up[k][c]`: the ancestor 2^k levels above cycle `c` (binary
    /// lifting), so that walks up the cycle tree cost O(log depth).
    up: Vec<Vec<Option<CycleId>>>,
}

impl<'a> CycleFacts<'a> {
    /// Numbers the cycle tree (O(number of cycles)).
    pub fn new(cfg: &'a Cfg, ci: &'a CycleInfo) -> CycleFacts<'a> {
        let k = ci.cycles.len();
        let mut pre = vec![0u32; k];
        let mut last = vec![0u32; k];
        let mut counter = 0u32;
        // (cycle, children entered yet)
        let mut stack: Vec<(CycleId, bool)> =
            ci.top_level.iter().rev().map(|&c| (c, false)).collect();
        while let Some((c, entered)) = stack.pop() {
            if entered {
                last[c.0] = counter - 1;
                continue;
            }
            pre[c.0] = counter;
            counter += 1;
            stack.push((c, true));
            stack.extend(ci.cycles[c.0].children.iter().rev().map(|&ch| (ch, false)));
        }
        let max_depth = ci.cycles.iter().map(|c| c.depth).max().unwrap_or(0);
        let mut up: Vec<Vec<Option<CycleId>>> = vec![ci.cycles.iter().map(|c| c.parent).collect()];
        while (1u64 << up.len()) <= u64::from(max_depth) {
            let prev = up.last().expect("up starts with the parents");
            let next = prev.iter().map(|p| p.and_then(|q| prev[q.0])).collect();
            up.push(next);
        }
        CycleFacts {
            cfg,
            ci,
            pre,
            last,
            exits: (0..k).map(|_| OnceCell::new()).collect(),
            up,
        }
    }

    fn depth(&self, c: CycleId) -> u32 {
        self.ci.cycles[c.0].depth
    }

    /// The ancestor of `c` (reflexive) at depth `d` (`1 <= d <= depth(c)`).
    pub fn ancestor_at_depth(&self, c: CycleId, d: u32) -> CycleId {
        let mut x = c;
        let mut lift = self.depth(c) - d;
        let mut k = 0;
        while lift > 0 {
            if lift & 1 == 1 {
                x = self.up[k][x.0].expect("an ancestor exists above depth 1");
            }
            lift >>= 1;
            k += 1;
        }
        x
    }

    /// The innermost cycle containing both `a` and `b`, if any.
    pub fn common_ancestor(&self, a: CycleId, b: CycleId) -> Option<CycleId> {
        let (mut a, mut b) = (a, b);
        let d = self.depth(a).min(self.depth(b));
        a = self.ancestor_at_depth(a, d);
        b = self.ancestor_at_depth(b, d);
        if a == b {
            return Some(a);
        }
        for k in (0..self.up.len()).rev() {
            if let (Some(x), Some(y)) = (self.up[k][a.0], self.up[k][b.0]) {
                if x != y {
                    a = x;
                    b = y;
                }
            }
        }
        match (self.up[0][a.0], self.up[0][b.0]) {
            (Some(x), Some(y)) if x == y => Some(x),
            _ => None,
        }
    }

    /// The outermost ancestor of `c` (reflexive) that does not contain
    /// block `b`; `None` when `c` contains `b`.
    pub fn outermost_without(&self, c: CycleId, b: BlockId) -> Option<CycleId> {
        let common = self.ci.innermost[b.0].and_then(|bc| self.common_ancestor(c, bc));
        let d = common.map_or(1, |x| self.depth(x) + 1);
        (d <= self.depth(c)).then(|| self.ancestor_at_depth(c, d))
    }

    /// The innermost ancestor of `c` (reflexive) that contains block `b`.
    pub fn innermost_with(&self, c: CycleId, b: BlockId) -> Option<CycleId> {
        self.ci.innermost[b.0].and_then(|bc| self.common_ancestor(c, bc))
    }

    /// `Cycle::contains(Cycle)`: reflexive nesting, O(1).
    pub fn contains_cycle(&self, outer: CycleId, inner: CycleId) -> bool {
        self.pre[outer.0] <= self.pre[inner.0] && self.pre[inner.0] <= self.last[outer.0]
    }

    /// `Cycle::contains(Block)`, O(1).
    pub fn contains(&self, c: CycleId, b: BlockId) -> bool {
        self.ci.innermost[b.0].is_some_and(|i| self.contains_cycle(c, i))
    }

    /// `Cycle::getExitBlocks`: successors outside the cycle, in order of the
    /// cycle's block list then successor order, without duplicates.
    pub fn exit_blocks(&self, c: CycleId) -> &[BlockId] {
        self.exits[c.0].get_or_init(|| {
            let mut seen: HashSet<BlockId> = HashSet::new();
            let mut out = Vec::new();
            for &b in &self.ci.cycles[c.0].blocks {
                for &s in &self.cfg.succs[b.0] {
                    if !self.contains(c, s) && seen.insert(s) {
                        out.push(s);
                    }
                }
            }
            out
        })
    }

    /// `Cycle::print`: `depth=D: entries(E1 E2) B1 B2` (non-entry blocks in
    /// the cycle's block order).
    pub fn print_cycle(&self, c: CycleId) -> String {
        print_cycle(self.ci, self.cfg, c)
    }
}

/// `Cycle::print`: `depth=D: entries(E1 E2) B1 B2` (non-entry blocks in the
/// cycle's block order).
pub fn print_cycle(ci: &CycleInfo, cfg: &Cfg, c: CycleId) -> String {
    let cy = &ci.cycles[c.0];
    let mut s = format!("depth={}: entries(", cy.depth);
    let entries: Vec<&str> = cy.entries.iter().map(|e| cfg.names[e.0].as_str()).collect();
    s.push_str(&entries.join(" "));
    s.push(')');
    for b in &cy.blocks {
        if !cy.entries.contains(b) {
            s.push(' ');
            s.push_str(&cfg.names[b.0]);
        }
    }
    s
}
