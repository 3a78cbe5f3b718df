//! The CFG facts the uniformity analysis reads: reachability, dominance and
//! LLVM's cycle hierarchy, with the queries GenericUniformityImpl.h makes
//! (`DT.dominates`, `DT.properlyDominates`, `CI.getCycle`,
//! `Cycle::contains`, `Cycle::getExitBlocks`).
//!
//! The facts are stored in the shared [`DomTree`] and [`CycleInfo`] types of
//! [`crate::cfg`]. They are computed here by [`dominators`] (the simple
//! iterative data-flow algorithm) and [`llvm_cycles`] (GenericCycleInfo's
//! construction: DFS in successor order, headers by reverse preorder); the
//! uniformity tests cross-check them against `opt -passes=print<cycles>`
//! through the analysis output, which prints cycles.

use crate::cfg::{Cfg, Cycle, CycleId, CycleInfo, DomTree};
use crate::ir::BlockId;

/// Dominators by the iterative data-flow algorithm over reverse post-order.
/// Blocks unreachable from the entry are outside the tree.
pub fn dominators(cfg: &Cfg) -> DomTree {
    let n = cfg.len();
    let mut idom: Vec<Option<BlockId>> = vec![None; n];
    let mut in_tree = vec![false; n];
    if n == 0 {
        return DomTree { idom, in_tree };
    }
    let rpo = reverse_post_order(cfg);
    let mut order = vec![usize::MAX; n];
    for (i, b) in rpo.iter().enumerate() {
        order[b.0] = i;
        in_tree[b.0] = true;
    }
    // `doms[b]` = Some(idom) while iterating; the entry is its own idom.
    let mut doms: Vec<Option<usize>> = vec![None; n];
    doms[0] = Some(0);
    let intersect = |doms: &Vec<Option<usize>>, mut a: usize, mut b: usize| -> usize {
        while a != b {
            while order[a] > order[b] {
                a = doms[a].expect("processed blocks have an idom");
            }
            while order[b] > order[a] {
                b = doms[b].expect("processed blocks have an idom");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in rpo.iter().skip(1) {
            let mut new: Option<usize> = None;
            for p in &cfg.preds[b.0] {
                if doms[p.0].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p.0,
                    Some(x) => intersect(&doms, p.0, x),
                });
            }
            if new.is_some() && doms[b.0] != new {
                doms[b.0] = new;
                changed = true;
            }
        }
    }
    for b in 1..n {
        if in_tree[b] {
            idom[b] = doms[b].map(BlockId);
        }
    }
    DomTree { idom, in_tree }
}

/// Reverse post-order of the blocks reachable from the entry, DFS in
/// successor order.
fn reverse_post_order(cfg: &Cfg) -> Vec<BlockId> {
    let n = cfg.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (b, i) = *top;
        if i < cfg.succs[b].len() {
            top.1 += 1;
            let s = cfg.succs[b][i].0;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(BlockId(b));
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// Reflexive dominance as LLVM's `DominatorTree::dominates(A, B)` answers
/// it: a block unreachable from the entry is dominated by every block and
/// dominates nothing but itself.
pub fn dominates(dt: &DomTree, a: BlockId, b: BlockId) -> bool {
    if a == b || !dt.in_tree[b.0] {
        return true;
    }
    if !dt.in_tree[a.0] {
        return false;
    }
    let mut x = b;
    while let Some(p) = dt.idom[x.0] {
        if p == a {
            return true;
        }
        x = p;
    }
    false
}

/// `DT.properlyDominates(A, B)`: dominance with `A != B`.
pub fn properly_dominates(dt: &DomTree, a: BlockId, b: BlockId) -> bool {
    a != b && dominates(dt, a, b)
}

/// GenericCycleInfo's construction (GenericCycleImpl.h `run`): a DFS in
/// successor order (the last successor pushed is visited first), then each
/// block in reverse preorder is a header candidate if it is an ancestor of
/// one of its predecessors; the cycle grows backwards from those
/// predecessors, absorbing previously found top-level cycles as children.
pub fn llvm_cycles(cfg: &Cfg) -> CycleInfo {
    let n = cfg.len();
    // DFS numbering: start (1-based preorder) and end (largest start in subtree).
    let mut start = vec![0usize; n];
    let mut end = vec![0usize; n];
    let mut preorder: Vec<usize> = Vec::new();
    if n > 0 {
        let mut tree_stack: Vec<usize> = Vec::new();
        let mut trav: Vec<usize> = vec![0];
        let mut counter = 0;
        while let Some(&b) = trav.last() {
            if start[b] == 0 {
                tree_stack.push(trav.len());
                trav.extend(cfg.succs[b].iter().map(|s| s.0));
                counter += 1;
                start[b] = counter;
                preorder.push(b);
            } else {
                if tree_stack.last() == Some(&trav.len()) {
                    end[b] = counter;
                    tree_stack.pop();
                }
                trav.pop();
            }
        }
    }
    let valid = |b: usize| start[b] != 0;
    let is_ancestor = |a: usize, b: usize| start[a] <= start[b] && end[b] <= end[a];

    let mut cycles: Vec<Cycle> = Vec::new();
    // Innermost cycle of each block, and the top-level cycle it is in.
    let mut block_map: Vec<Option<usize>> = vec![None; n];
    let mut top_map: Vec<Option<usize>> = vec![None; n];
    let mut top_level: Vec<usize> = Vec::new();

    for &h in preorder.iter().rev() {
        let mut work: Vec<usize> = cfg.preds[h]
            .iter()
            .map(|p| p.0)
            .filter(|&p| valid(p) && is_ancestor(h, p))
            .collect();
        if work.is_empty() {
            continue;
        }
        let id = cycles.len();
        cycles.push(Cycle {
            entries: vec![BlockId(h)],
            blocks: vec![BlockId(h)],
            parent: None,
            children: Vec::new(),
            depth: 1,
        });
        block_map[h] = Some(id);
        let process_preds = |block: usize, work: &mut Vec<usize>, cycles: &mut Vec<Cycle>| {
            let mut is_entry = false;
            for p in &cfg.preds[block] {
                if !valid(p.0) {
                    continue;
                }
                if is_ancestor(h, p.0) {
                    work.push(p.0);
                } else {
                    is_entry = true;
                }
            }
            if is_entry {
                cycles[id].entries.push(BlockId(block));
            }
        };
        while let Some(b) = work.pop() {
            if b == h {
                continue;
            }
            if let Some(top) = top_map[b] {
                if top != id {
                    // Absorb the top-level cycle `top` as a child.
                    top_level.retain(|&c| c != top);
                    cycles[top].parent = Some(CycleId(id));
                    cycles[id].children.push(CycleId(top));
                    let child_blocks = cycles[top].blocks.clone();
                    for cb in &child_blocks {
                        top_map[cb.0] = Some(id);
                    }
                    cycles[id].blocks.extend(child_blocks);
                    let child_entries = cycles[top].entries.clone();
                    for e in child_entries {
                        process_preds(e.0, &mut work, &mut cycles);
                    }
                }
            } else {
                block_map[b] = Some(id);
                cycles[id].blocks.push(BlockId(b));
                process_preds(b, &mut work, &mut cycles);
                top_map[b] = Some(id);
            }
        }
        top_map[h] = Some(id);
        top_level.push(id);
    }
    // Depths, from the top.
    let mut stack: Vec<(usize, u32)> = top_level.iter().map(|&c| (c, 1)).collect();
    while let Some((c, d)) = stack.pop() {
        cycles[c].depth = d;
        for ch in cycles[c].children.clone() {
            stack.push((ch.0, d + 1));
        }
    }
    CycleInfo {
        cycles,
        top_level: top_level.into_iter().map(CycleId).collect(),
        innermost: block_map.into_iter().map(|c| c.map(CycleId)).collect(),
    }
}

/// `Cycle::contains(Block)`.
pub fn cycle_contains(ci: &CycleInfo, c: CycleId, b: BlockId) -> bool {
    // A block is in `c` iff `c` is its innermost cycle or an ancestor of it.
    let mut x = ci.innermost[b.0];
    while let Some(id) = x {
        if id == c {
            return true;
        }
        x = ci.cycles[id.0].parent;
    }
    false
}

/// `Cycle::contains(Cycle)`: reflexive nesting.
pub fn cycle_contains_cycle(ci: &CycleInfo, outer: CycleId, inner: CycleId) -> bool {
    let mut x = Some(inner);
    while let Some(id) = x {
        if id == outer {
            return true;
        }
        x = ci.cycles[id.0].parent;
    }
    false
}

/// `Cycle::getExitBlocks`: successors outside the cycle, in order of the
/// cycle's block list then successor order, without duplicates.
pub fn exit_blocks(ci: &CycleInfo, cfg: &Cfg, c: CycleId) -> Vec<BlockId> {
    let mut out: Vec<BlockId> = Vec::new();
    for &b in &ci.cycles[c.0].blocks {
        for &s in &cfg.succs[b.0] {
            if !cycle_contains(ci, c, s) && !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
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
