//! Step 2 of the hierarchy enumeration (rule D-HIER, see the `hierarchies`
//! module): the search for a DFS that realises one combination of header
//! choices, and the cut points that keep it linear on long functions.

use super::dom::DomTree;
use super::hierarchies::Spec;
use super::Cfg;
use crate::ir::BlockId;
use std::collections::HashMap;

/// Upper bound on subtree evaluations per combination in the witness search,
/// plus 4 per block (a long function needs one per block on its own);
/// beyond it the combination is left undecided and the result is marked
/// incomplete (never reached by 40-block CFGs; see the tests).
pub(super) const SEARCH_BUDGET: usize = 200_000;

/// Cut points of the CFG: blocks `c` that dominate every block reachable
/// from them (`c`'s dominator-tree subtree is closed under successors).
///
/// They make the witness search linear on long functions. When a DFS
/// discovers a cut point `c`, no block `c` dominates has been visited (each
/// is discovered through `c`), and every constrained cycle through such a
/// block lies below `c` (it is reachable from the block, hence from `c`, and
/// dominated by `c`). So (1) the subtree of `c` is the same whatever was
/// visited before: its memo key is `c` alone; (2) a reachability walk from a
/// block `w` need not pass `c`: what lies beyond is either entered only
/// through `c` (when `w` is not below `c`) or, when `w` is below `c`, only
/// reachable through `c`, which is then an ancestor of `w` in the DFS and
/// visited; and after `c`'s subtree is explored, blocks beyond `c` are never
/// discovered again, so the search's visited sets may omit them. Without
/// this every DFS step walked the rest of the function (quadratic: 26 s for
/// `run` on a 10,000-block function with 16 hierarchies).
pub(super) struct Cuts {
    cut: Vec<bool>,
    /// Blocks of the dominator tree, children after their parents.
    preorder: Vec<usize>,
    idom: Vec<Option<usize>>,
}

impl Cuts {
    pub(super) fn new(cfg: &Cfg) -> Cuts {
        let n = cfg.len();
        let dom = DomTree::dominators(cfg);
        let interval = |b: usize| dom.preorder_interval(BlockId(b));
        let mut preorder: Vec<(u32, usize)> = (0..n)
            .filter_map(|b| interval(b).map(|(i, _)| (i, b)))
            .collect();
        preorder.sort_unstable();
        let preorder: Vec<usize> = preorder.into_iter().map(|(_, b)| b).collect();
        let idom: Vec<Option<usize>> = (0..dom.len())
            .map(|b| dom.idom(BlockId(b)).map(|d| d.0))
            .collect();
        // Smallest and largest entry time of a successor of a block of each
        // subtree: the subtree is closed under successors iff both lie in
        // its own interval.
        let mut lo = vec![u32::MAX; n];
        let mut hi = vec![0u32; n];
        for &b in &preorder {
            for t in &cfg.succs[b] {
                if let Some((i, _)) = interval(t.0) {
                    lo[b] = lo[b].min(i);
                    hi[b] = hi[b].max(i);
                }
            }
        }
        for &b in preorder.iter().rev() {
            if let Some(p) = idom[b] {
                lo[p] = lo[p].min(lo[b]);
                hi[p] = hi[p].max(hi[b]);
            }
        }
        let mut cut = vec![false; n];
        for &b in &preorder {
            if let Some((i, o)) = interval(b) {
                cut[b] = lo[b] == u32::MAX || (i <= lo[b] && hi[b] <= o);
            }
        }
        Cuts {
            cut,
            preorder,
            idom,
        }
    }

    /// Per block, whether `f` holds for a block it dominates (itself
    /// included).
    fn any_below(&self, f: impl Fn(usize) -> bool) -> Vec<bool> {
        let mut out = vec![false; self.cut.len()];
        for &b in self.preorder.iter().rev() {
            out[b] |= f(b);
            if let Some(p) = self.idom[b] {
                out[p] |= out[b];
            }
        }
        out
    }
}

/// Outcome of the witness search for one combination.
pub(super) enum Found {
    Yes(Vec<Vec<BlockId>>),
    No,
    OutOfBudget,
}

/// The witness search of step 2: a DFS whose first visit of every
/// constrained cycle is its chosen header.
///
/// Only *relevant* blocks matter: those that reach a non-header block of a
/// constrained cycle (`risky`). Headers and all constrained cycles are
/// relevant (a cycle's blocks reach each other), relevant blocks are closed
/// under predecessors, and a subtree rooted at an irrelevant block never
/// visits a relevant one. So visited sets are tracked on relevant blocks
/// only, successors outside them are explored last in any order, and the
/// memo key of a subtree is its root plus the visited relevant blocks it can
/// reach (the rest cannot influence it).
///
/// Cut points ([`Cuts`]) keep the search linear on long functions: the
/// subtree of every cut point that has a risky block below it is decided
/// first, deepest first, so the main search stops at each one (a memo hit)
/// instead of recursing through the rest of the function; reachability
/// walks stop at them; walks use a stamp array instead of fresh bit sets,
/// and visited sets are updated in place, so a step costs the size of the
/// walk, not of the function.
pub(super) struct Witness<'a> {
    cfg: &'a Cfg,
    /// Constrained cycles: (header, blocks).
    constraints: Vec<(usize, &'a [usize])>,
    /// Indices into `constraints` of the cycles containing each block.
    containing: Vec<Vec<usize>>,
    /// Non-header blocks of constrained cycles.
    risky: Vec<u64>,
    /// Blocks that reach a risky block.
    relevant: Vec<u64>,
    /// Cut points ([`Cuts`]).
    cut: &'a [bool],
    /// Whether a cut point's region (the blocks it dominates) holds a risky
    /// block.
    risky_below: Vec<bool>,
    /// Cut points with a risky block below, deepest first.
    cut_order: Vec<usize>,
    /// Whether the subtree of a block discovered in a (projected) visited
    /// state can meet every constraint; with the successor order that does.
    memo: HashMap<(usize, Vec<u32>), Option<Vec<usize>>>,
    evaluations: usize,
    budget: usize,
    /// Marks of the walks ([`Witness::walk`]): a block is marked when its
    /// stamp equals `epoch`.
    stamps: std::cell::RefCell<(Vec<u32>, u32)>,
}

fn bit(set: &[u64], b: usize) -> bool {
    set[b / 64] >> (b % 64) & 1 == 1
}
fn set_bit(set: &mut [u64], b: usize) {
    set[b / 64] |= 1 << (b % 64);
}
fn clear_bit(set: &mut [u64], b: usize) {
    set[b / 64] &= !(1 << (b % 64));
}

impl<'a> Witness<'a> {
    pub(super) fn new(cfg: &'a Cfg, cuts: &'a Cuts, combo: &'a [Spec]) -> Witness<'a> {
        let n = cfg.len();
        let words = n.div_ceil(64);
        let mut constraints = Vec::new();
        let mut containing = vec![Vec::new(); n];
        let mut risky = vec![0u64; words];
        for s in combo.iter().filter(|s| s.constrained) {
            for &b in &s.blocks {
                containing[b].push(constraints.len());
                if b != s.header {
                    set_bit(&mut risky, b);
                }
            }
            constraints.push((s.header, &s.blocks[..]));
        }
        let mut relevant = risky.clone();
        let mut stack: Vec<usize> = (0..n).filter(|&b| bit(&risky, b)).collect();
        while let Some(v) = stack.pop() {
            for p in &cfg.preds[v] {
                if !bit(&relevant, p.0) {
                    set_bit(&mut relevant, p.0);
                    stack.push(p.0);
                }
            }
        }
        let risky_below = cuts.any_below(|b| bit(&risky, b));
        let cut_order = cuts
            .preorder
            .iter()
            .rev()
            .copied()
            .filter(|&b| cuts.cut[b] && risky_below[b] && b != 0)
            .collect();
        Witness {
            cfg,
            constraints,
            containing,
            risky,
            relevant,
            cut: &cuts.cut,
            risky_below,
            cut_order,
            memo: HashMap::new(),
            evaluations: 0,
            budget: SEARCH_BUDGET + 4 * n,
            stamps: std::cell::RefCell::new((vec![0; n], 0)),
        }
    }

    /// Runs the search (on a thread with a large stack for big CFGs: the
    /// recursion is as deep as the DFS tree between cut points).
    pub(super) fn find(self) -> Found {
        if self.cfg.len() <= 1_000 {
            return self.find_inline();
        }
        let stack = 64 * 1024 * 1024 + self.cfg.len() * 2048;
        std::thread::scope(|scope| {
            match std::thread::Builder::new()
                .stack_size(stack)
                .spawn_scoped(scope, move || self.find_inline())
            {
                Ok(h) => h.join().unwrap_or(Found::OutOfBudget),
                Err(_) => Found::OutOfBudget,
            }
        })
    }

    /// Successor lists (in LLVM's order, explored last-first) of a DFS that
    /// realises the combination, if one exists.
    fn find_inline(mut self) -> Found {
        let n = self.cfg.len();
        let mut visited = vec![0u64; n.div_ceil(64)];
        // Nothing a cut point dominates is visited when a DFS discovers it,
        // and its walks never leave what it dominates: deciding it with
        // nothing visited is deciding it in every DFS.
        for c in std::mem::take(&mut self.cut_order) {
            match self.subtree_ok(c, &mut visited) {
                None => return Found::OutOfBudget,
                Some(false) => return Found::No,
                Some(true) => {}
            }
        }
        match self.subtree_ok(0, &mut visited) {
            None => return Found::OutOfBudget,
            Some(false) => return Found::No,
            Some(true) => {}
        }
        // Replay the DFS with the recorded orders.
        let mut succs: Vec<Vec<BlockId>> = self.cfg.succs.to_lists();
        let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        let mut explored: Vec<Vec<usize>> = vec![Vec::new(); n];
        let discover =
            |w: usize, visited: &mut Vec<u64>, stack: &mut Vec<(usize, Vec<usize>, usize)>| {
                let mut order = match self.memo.get(&(w, self.key(w, visited))) {
                    Some(Some(o)) => o.clone(),
                    _ => Vec::new(),
                };
                for s in distinct(&self.cfg.succs[w]) {
                    if !order.contains(&s) {
                        order.push(s);
                    }
                }
                set_bit(visited, w);
                stack.push((w, order, 0));
            };
        discover(0, &mut visited, &mut stack);
        while let Some(top) = stack.last_mut() {
            let (w, i) = (top.0, top.2);
            if i < top.1.len() {
                let s = top.1[i];
                top.2 += 1;
                if !bit(&visited, s) {
                    explored[w].push(s);
                    discover(s, &mut visited, &mut stack);
                }
            } else {
                stack.pop();
            }
        }
        for (w, ex) in explored.iter().enumerate() {
            // Exploration order first, then the rest; reversed because
            // LLVM's DFS takes the last successor first.
            let mut seq: Vec<BlockId> = ex.iter().map(|&s| BlockId(s)).collect();
            let mut used = vec![false; ex.len()];
            for t in &self.cfg.succs[w] {
                match ex.iter().position(|&s| s == t.0) {
                    Some(k) if !used[k] => used[k] = true,
                    _ => seq.push(*t),
                }
            }
            seq.reverse();
            succs[w] = seq;
        }
        Found::Yes(succs)
    }

    /// Relevant blocks reachable from `w` through relevant blocks not in
    /// `avoid` (`w` included when relevant), in walk order, not expanded
    /// past cut points other than `w` (see [`Cuts`]: what lies beyond one
    /// is reached only through it and is unvisited while it is), and
    /// whether one of those cut points has a risky block in its region.
    fn walk(&self, w: usize, avoid: Option<&[u64]>) -> (Vec<usize>, bool) {
        let mut risky_beyond = false;
        if !bit(&self.relevant, w) {
            return (Vec::new(), risky_beyond);
        }
        let mut guard = self.stamps.borrow_mut();
        let (stamps, epoch) = &mut *guard;
        *epoch = epoch.wrapping_add(1);
        if *epoch == 0 {
            stamps.iter_mut().for_each(|s| *s = 0);
            *epoch = 1;
        }
        let e = *epoch;
        stamps[w] = e;
        let mut out = vec![w];
        let mut next = 0;
        while next < out.len() {
            let v = out[next];
            next += 1;
            if v != w && self.cut[v] {
                risky_beyond |= self.risky_below[v];
                continue;
            }
            for t in &self.cfg.succs[v] {
                let t = t.0;
                if bit(&self.relevant, t) && stamps[t] != e && !avoid.is_some_and(|a| bit(a, t)) {
                    stamps[t] = e;
                    out.push(t);
                }
            }
        }
        (out, risky_beyond)
    }

    /// Memo key of the subtree of `w` in state `visited`: the visited
    /// relevant blocks that `w` can reach at all (sorted).
    fn key(&self, w: usize, visited: &[u64]) -> Vec<u32> {
        // Nothing a cut point dominates is visited when the DFS discovers
        // it, so its subtree does not depend on `visited` at all.
        if self.cut[w] {
            return Vec::new();
        }
        let mut k: Vec<u32> = self
            .walk(w, None)
            .0
            .into_iter()
            .filter(|&b| bit(visited, b))
            .map(|b| b as u32)
            .collect();
        k.sort_unstable();
        k
    }

    /// Can the DFS subtree of `w`, discovered when `visited` are visited,
    /// meet every constraint? `None` when the budget is exhausted.
    /// `visited` is restored before returning `Some`.
    ///
    /// A block with one relevant successor left is followed in a loop, not
    /// by recursion, so a long chain needs no stack frame per block.
    fn subtree_ok(&mut self, w: usize, visited: &mut Vec<u64>) -> Option<bool> {
        // Blocks set in `visited` here, to clear on return.
        let mut set_here: Vec<usize> = Vec::new();
        // Chain blocks passed, with their memo keys and their successor.
        let mut chain: Vec<((usize, Vec<u32>), usize)> = Vec::new();
        let mut cur = w;
        let ok = loop {
            let (reach, risky_beyond) = self.walk(cur, Some(visited));
            if !risky_beyond && reach.iter().all(|&b| !bit(&self.risky, b)) {
                break true;
            }
            drop(reach);
            let key = (cur, self.key(cur, visited));
            if let Some(r) = self.memo.get(&key) {
                break r.is_some();
            }
            self.evaluations += 1;
            if self.evaluations > self.budget {
                return None;
            }
            // Discovering `cur` first in a constrained cycle it is not the
            // header of breaks the combination.
            let bad = self.containing[cur].iter().any(|&c| {
                let (h, blocks) = self.constraints[c];
                h != cur && blocks.iter().all(|&b| !bit(visited, b))
            });
            if bad {
                self.memo.insert(key, None);
                break false;
            }
            set_bit(visited, cur);
            set_here.push(cur);
            let remaining = self.remaining(cur, visited);
            if let [s] = remaining[..] {
                chain.push((key, s));
                cur = s;
                continue;
            }
            let mut order_memo: HashMap<Vec<u32>, Option<Vec<usize>>> = HashMap::new();
            let result = self.order_search(cur, visited, &mut Vec::new(), &mut order_memo)?;
            let ok = result.is_some();
            self.memo.insert(key, result);
            break ok;
        };
        for (key, s) in chain.into_iter().rev() {
            self.memo.insert(key, ok.then(|| vec![s]));
        }
        for b in set_here {
            clear_bit(visited, b);
        }
        Some(ok)
    }

    /// The relevant successors of `w` not in `visited`, without repeats.
    fn remaining(&self, w: usize, visited: &[u64]) -> Vec<usize> {
        distinct(&self.cfg.succs[w])
            .into_iter()
            .filter(|&s| bit(&self.relevant, s) && !bit(visited, s))
            .collect()
    }

    /// An order for the relevant successors of `w` not yet in `visited`
    /// under which every explored subtree meets the constraints (outer
    /// `None`: budget exhausted). `added` lists the blocks the subtrees
    /// explored so far in this search added to `visited` (the memo's key:
    /// the rest of `visited` is the same for every call with one `memo`);
    /// both are restored before returning `Some`.
    fn order_search(
        &mut self,
        w: usize,
        visited: &mut Vec<u64>,
        added: &mut Vec<u32>,
        memo: &mut HashMap<Vec<u32>, Option<Vec<usize>>>,
    ) -> Option<Option<Vec<usize>>> {
        let remaining = self.remaining(w, visited);
        if remaining.is_empty() {
            return Some(Some(Vec::new()));
        }
        // One successor left: no order to choose.
        if let [s] = remaining[..] {
            return Some(self.subtree_ok(s, visited)?.then(|| vec![s]));
        }
        let mut key = added.clone();
        key.sort_unstable();
        if let Some(r) = memo.get(&key) {
            return Some(r.clone());
        }
        let mut found = None;
        for &s in &remaining {
            if !self.subtree_ok(s, visited)? {
                continue;
            }
            let before = added.len();
            for b in self.walk(s, Some(visited)).0 {
                set_bit(visited, b);
                added.push(b as u32);
            }
            let rest = self.order_search(w, visited, added, memo)?;
            for &b in &added[before..] {
                clear_bit(visited, b as usize);
            }
            added.truncate(before);
            if let Some(rest) = rest {
                let mut o = vec![s];
                o.extend(rest);
                found = Some(o);
                break;
            }
        }
        memo.insert(key, found.clone());
        Some(found)
    }
}

/// Successors without duplicates, first occurrence order.
pub(super) fn distinct(succs: &[BlockId]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(succs.len());
    for s in succs {
        if !out.contains(&s.0) {
            out.push(s.0);
        }
    }
    out
}
