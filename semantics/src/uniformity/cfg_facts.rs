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

use rustc_hash::FxHashMap;

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
    /// The cycles of each depth (`by_depth[d - 1]`) as (preorder number,
    /// cycle), sorted: the ancestor of `c` at depth `d` is the last one
    /// numbered at most `pre[c]` (subtrees are preorder intervals), found
    /// by binary search over that depth's cycles only.
    by_depth: Vec<Vec<(u32, CycleId)>>,
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
        let mut by_depth: Vec<Vec<(u32, CycleId)>> = vec![Vec::new(); max_depth as usize];
        for (c, cy) in ci.cycles.iter().enumerate() {
            by_depth[cy.depth as usize - 1].push((pre[c], CycleId(c)));
        }
        by_depth.iter_mut().for_each(|l| {
            l.sort_unstable();
            l.shrink_to_fit();
        });
        CycleFacts {
            cfg,
            ci,
            pre,
            last,
            exits: (0..k).map(|_| OnceCell::new()).collect(),
            up,
            by_depth,
        }
    }

    fn depth(&self, c: CycleId) -> u32 {
        self.ci.cycles[c.0].depth
    }

    /// The ancestor of `c` (reflexive) at depth `d` (`1 <= d <= depth(c)`).
    pub fn ancestor_at_depth(&self, c: CycleId, d: u32) -> CycleId {
        let level = &self.by_depth[d as usize - 1];
        let k = level.partition_point(|&(p, _)| p <= self.pre[c.0]);
        let x = level[k
            .checked_sub(1)
            .expect("c has an ancestor at every depth up to its own")]
        .1;
        debug_assert_eq!(x, self.ancestor_by_lifting(c, d));
        x
    }

    /// [`CycleFacts::ancestor_at_depth`] by binary lifting (its oracle).
    pub fn ancestor_by_lifting(&self, c: CycleId, d: u32) -> CycleId {
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
        let common = self
            .ci
            .innermost(b)
            .and_then(|bc| self.common_ancestor(c, bc));
        let d = common.map_or(1, |x| self.depth(x) + 1);
        (d <= self.depth(c)).then(|| self.ancestor_at_depth(c, d))
    }

    /// The innermost ancestor of `c` (reflexive) that contains block `b`.
    pub fn innermost_with(&self, c: CycleId, b: BlockId) -> Option<CycleId> {
        self.ci
            .innermost(b)
            .and_then(|bc| self.common_ancestor(c, bc))
    }

    /// `Cycle::contains(Cycle)`: reflexive nesting, O(1).
    pub fn contains_cycle(&self, outer: CycleId, inner: CycleId) -> bool {
        self.pre[outer.0] <= self.pre[inner.0] && self.pre[inner.0] <= self.last[outer.0]
    }

    /// `Cycle::contains(Block)`, O(1).
    pub fn contains(&self, c: CycleId, b: BlockId) -> bool {
        self.ci
            .innermost(b)
            .is_some_and(|i| self.contains_cycle(c, i))
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
    let entries: Vec<&str> = cy.entries.iter().map(|e| &cfg.names[e.0]).collect();
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

/// Rule U-MCONV, `getOutermostDivergentCycle`: the cycle that the join
/// `join` of the divergent branch ending `branch` makes divergent as a
/// whole, if any. This is the direct transcription (a walk up the cycle
/// tree per question), kept as the oracle of [`JoinCycles`].
pub fn outermost_divergent_cycle(
    facts: &CycleFacts,
    dt: &DomTree,
    branch: BlockId,
    join: BlockId,
) -> Option<CycleId> {
    let cycle = facts.ci.innermost(join)?;
    let ext = ext_div_cycle(facts, cycle, branch);
    int_div_cycle(facts, dt, cycle, branch, join).or(ext)
}

/// `getExtDivCycle`: paths that diverged outside an irreducible cycle and
/// join inside it make the outermost such cycle divergent.
fn ext_div_cycle(facts: &CycleFacts, cycle: CycleId, branch: BlockId) -> Option<CycleId> {
    let cycle = facts.outermost_without(cycle, branch)?;
    (!facts.ci.cycles[cycle.0].is_reducible()).then_some(cycle)
}

/// `getIntDivCycle`: the diverged entry criterion (CU "Diverged entry
/// criterion"). A join inside the smallest irreducible cycle that contains
/// the branch is harmless when the branch or the cycle's header properly
/// dominates it; otherwise the cycle, widened to the outermost ancestor
/// whose header does not dominate the join, is divergent.
fn int_div_cycle(
    facts: &CycleFacts,
    dt: &DomTree,
    cycle: CycleId,
    branch: BlockId,
    join: BlockId,
) -> Option<CycleId> {
    let ci = facts.ci;
    if properly_dominates(dt, branch, join) {
        return None;
    }
    let mut c = facts.innermost_with(cycle, branch)?;
    if ci.cycles[c.0].is_reducible() || properly_dominates(dt, ci.cycles[c.0].header(), join) {
        return None;
    }
    while let Some(p) = ci.cycles[c.0].parent {
        if properly_dominates(dt, ci.cycles[p.0].header(), join) {
            break;
        }
        c = p;
    }
    Some(c)
}

/// [`outermost_divergent_cycle`] in O(log depth) per question: what it
/// reads of a join (where the widening walk of `getIntDivCycle` stops from
/// each cycle containing the join) depends on the join alone, so it is
/// tabulated once per join block, on first use, as the runs of depths at
/// which the walk goes on (a few per join on nests of reducible cycles,
/// whose headers dominate what they contain).
pub struct JoinCycles {
    /// The range of each join's runs in `runs`, from its first question
    /// on (a map: only joins inside cycles are asked about, and a table
    /// took 8 bytes a block).
    runs_of: FxHashMap<u32, (u32, u32)>,
    /// Maximal intervals `[lo, hi]` of depths `d >= 2` such that the header
    /// of the join's ancestor cycle at depth `d - 1` does not properly
    /// dominate the join: the walk from depth `d` in such a run climbs to
    /// depth `lo - 1` and stops there; from any other depth it stays.
    runs: Vec<(u32, u32)>,
}

impl JoinCycles {
    pub fn new(_blocks: usize) -> JoinCycles {
        JoinCycles {
            runs_of: FxHashMap::default(),
            runs: Vec::new(),
        }
    }

    /// The runs of `join`, whose innermost cycle is `inner`.
    fn runs(
        &mut self,
        facts: &CycleFacts,
        dt: &DomTree,
        join: BlockId,
        inner: CycleId,
    ) -> &[(u32, u32)] {
        let key = u32::try_from(join.0).expect("U-FIX: a function has fewer than 2^32 blocks");
        let (from, to) = match self.runs_of.get(&key) {
            Some(&range) => range,
            None => self.compute_runs(facts, dt, join, inner),
        };
        &self.runs[from as usize..to as usize]
    }

    /// Tabulates the runs of `join` (see [`JoinCycles::runs`]).
    fn compute_runs(
        &mut self,
        facts: &CycleFacts,
        dt: &DomTree,
        join: BlockId,
        inner: CycleId,
    ) -> (u32, u32) {
        let ci = facts.ci;
        let from = self.runs.len();
        // Walk up from the join's cycle: `c` at depth `d`, its parent at
        // `d - 1`; runs are found innermost first.
        let mut c = inner;
        let mut open: Option<u32> = None; // `hi` of the run being built
        while let Some(p) = ci.cycles[c.0].parent {
            let d = ci.cycles[c.0].depth;
            let climbs = !properly_dominates(dt, ci.cycles[p.0].header(), join);
            match (climbs, open) {
                (true, None) => open = Some(d),
                (false, Some(hi)) => {
                    self.runs.push((d + 1, hi));
                    open = None;
                }
                _ => {}
            }
            c = p;
        }
        if let Some(hi) = open {
            self.runs.push((2, hi));
        }
        self.runs[from..].reverse();
        let to = self.runs.len();
        let idx = |i: usize| u32::try_from(i).expect("fewer than 2^32 runs");
        let range = (idx(from), idx(to));
        self.runs_of.insert(idx(join.0), range);
        range
    }

    /// [`outermost_divergent_cycle`], answered from the join's runs.
    pub fn outermost_divergent_cycle(
        &mut self,
        facts: &CycleFacts,
        dt: &DomTree,
        branch: BlockId,
        join: BlockId,
    ) -> Option<CycleId> {
        let ci = facts.ci;
        let inner = ci.innermost(join)?;
        let depth = ci.cycles[inner.0].depth;
        // Depth of the innermost cycle containing both the join and the
        // branch (0: none).
        let common = ci
            .innermost(branch)
            .and_then(|bc| facts.common_ancestor(inner, bc))
            .map_or(0, |c| ci.cycles[c.0].depth);
        // getExtDivCycle: the outermost ancestor without the branch.
        let ext = (common < depth)
            .then(|| facts.ancestor_at_depth(inner, common + 1))
            .filter(|c| !ci.cycles[c.0].is_reducible());
        if common == 0 || properly_dominates(dt, branch, join) {
            return ext;
        }
        // getIntDivCycle from the innermost ancestor with the branch.
        let c = facts.ancestor_at_depth(inner, common);
        if ci.cycles[c.0].is_reducible() || properly_dominates(dt, ci.cycles[c.0].header(), join) {
            return ext;
        }
        let runs = self.runs(facts, dt, join, inner);
        let k = runs.partition_point(|&(_, hi)| hi < common);
        let top = match runs.get(k) {
            Some(&(lo, _)) if lo <= common => lo - 1,
            _ => common,
        };
        Some(facts.ancestor_at_depth(inner, top))
    }
}
