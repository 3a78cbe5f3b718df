//! Small, deliberately simple graph analyses over successor lists, used by
//! the generators (to place things where they promise) and by tests as
//! *independent* oracles: nothing here shares code with `semantics::cfg`, so
//! a property test that compares the two catches bugs in either
//! (STYLE.md item 13, "keep oracles in the tree").
//!
//! Every function takes `succs[b]` = successors of block `b`, block 0 the
//! entry, and only looks at blocks reachable from the entry unless it says
//! otherwise (LLVM's dominator and cycle analyses ignore unreachable blocks
//! too).

use std::collections::BTreeSet;

/// Blocks reachable from block 0.
pub fn reachable(succs: &[Vec<usize>]) -> Vec<bool> {
    let mut seen = vec![false; succs.len()];
    if succs.is_empty() {
        return seen;
    }
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(b) = stack.pop() {
        for &s in &succs[b] {
            if !seen[s] {
                seen[s] = true;
                stack.push(s);
            }
        }
    }
    seen
}

/// Predecessor lists (one entry per edge, duplicates kept).
pub fn preds(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut p = vec![Vec::new(); succs.len()];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            p[s].push(b);
        }
    }
    p
}

/// Dominator sets by the textbook iterative data-flow equations
/// `Dom(b) = {b} ∪ ⋂ Dom(p)` over reachable predecessors. Quadratic, obviously
/// right, and independent of the Cooper-Harvey-Kennedy tree in `semantics`.
#[derive(Clone, Debug)]
pub struct DomSets {
    /// `dom[b][d]`: `d` dominates `b`. All false for unreachable `b`.
    dom: Vec<Vec<bool>>,
    reach: Vec<bool>,
}

impl DomSets {
    pub fn new(succs: &[Vec<usize>]) -> DomSets {
        let n = succs.len();
        let reach = reachable(succs);
        let pred = preds(succs);
        let mut dom: Vec<Vec<bool>> = (0..n).map(|b| vec![reach[b]; n]).collect();
        if n > 0 {
            dom[0] = vec![false; n];
            dom[0][0] = true;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..n {
                if !reach[b] {
                    continue;
                }
                let mut new = vec![true; n];
                for &p in pred[b].iter().filter(|&&p| reach[p]) {
                    for d in 0..n {
                        new[d] &= dom[p][d];
                    }
                }
                new[b] = true;
                if new != dom[b] {
                    dom[b] = new;
                    changed = true;
                }
            }
        }
        DomSets { dom, reach }
    }

    /// `a` dominates `b` (reflexive); false if either is unreachable.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        self.reach[b] && self.reach[a] && self.dom[b][a]
    }

    pub fn is_reachable(&self, b: usize) -> bool {
        self.reach[b]
    }

    /// The dominators of `b`, ascending.
    pub fn dominators_of(&self, b: usize) -> Vec<usize> {
        (0..self.dom.len())
            .filter(|&d| self.dominates(d, b))
            .collect()
    }
}

/// Reducibility by Hecht-Ullman T1/T2 interval reduction on the reachable
/// subgraph: repeatedly delete self loops (T1) and merge a non-entry node that
/// has a single predecessor into that predecessor (T2). The graph is reducible
/// iff this ends in a single node. Independent of dominators and DFS, so it
/// cross-checks [`is_reducible_by_back_edges`] and every generator.
pub fn is_reducible(succs: &[Vec<usize>]) -> bool {
    let reach = reachable(succs);
    let n = succs.len();
    // Collapsed multigraph as sets: T2 only cares about distinct predecessors.
    let mut out: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut inn: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for b in (0..n).filter(|&b| reach[b]) {
        for &s in &succs[b] {
            out[b].insert(s);
            inn[s].insert(b);
        }
    }
    let mut alive: BTreeSet<usize> = (0..n).filter(|&b| reach[b]).collect();
    loop {
        let mut progress = false;
        // T1: remove self loops.
        for &b in &alive {
            if out[b].remove(&b) {
                inn[b].remove(&b);
                progress = true;
            }
        }
        // T2: merge a node with a unique predecessor into it.
        let victim = alive.iter().copied().find(|&b| b != 0 && inn[b].len() == 1);
        if let Some(b) = victim {
            let p = *inn[b].iter().next().expect("len checked == 1");
            let bs: Vec<usize> = out[b].iter().copied().collect();
            out[p].remove(&b);
            for s in bs {
                inn[s].remove(&b);
                inn[s].insert(p);
                out[p].insert(s);
            }
            out[b].clear();
            inn[b].clear();
            alive.remove(&b);
            progress = true;
        }
        if !progress {
            return alive.len() <= 1;
        }
    }
}

/// Reducibility by the other classical definition: every retreating edge of
/// a depth-first search (an edge to a node still on the DFS stack) is a back
/// edge, i.e. its head dominates its tail.
pub fn is_reducible_by_back_edges(succs: &[Vec<usize>]) -> bool {
    let dom = DomSets::new(succs);
    retreating_edges(succs)
        .into_iter()
        .all(|(t, h)| dom.dominates(h, t))
}

/// Edges `(tail, head)` to a node on the DFS stack, visiting successors in
/// order from block 0 (iterative, so deep graphs cannot overflow).
pub fn retreating_edges(succs: &[Vec<usize>]) -> Vec<(usize, usize)> {
    let n = succs.len();
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    state[0] = 1;
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        if *i < succs[b].len() {
            let s = succs[b][*i];
            *i += 1;
            match state[s] {
                0 => {
                    state[s] = 1;
                    stack.push((s, 0));
                }
                1 => out.push((b, s)),
                _ => {}
            }
        } else {
            state[b] = 2;
            stack.pop();
        }
    }
    out
}

/// Reverse postorder of the blocks reachable from block 0, by a depth-first
/// search that visits successors in order (the order of LLVM's
/// `ReversePostOrderTraversal` over a function).
pub fn reverse_postorder(succs: &[Vec<usize>]) -> Vec<usize> {
    let n = succs.len();
    let mut post = Vec::with_capacity(n);
    if n == 0 {
        return post;
    }
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        if *i < succs[b].len() {
            let s = succs[b][*i];
            *i += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// Natural loop of header `h`: `h` plus every block that reaches a back-edge
/// tail `t` (with `h` dominating `t`) without passing through `h`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NaturalLoop {
    pub header: usize,
    /// Tails of the back edges into `header`, ascending, deduplicated.
    pub latches: Vec<usize>,
    /// Membership by block index.
    pub body: Vec<bool>,
}

/// All natural loops (one per header that has a back edge), by header.
pub fn natural_loops(succs: &[Vec<usize>]) -> Vec<NaturalLoop> {
    let n = succs.len();
    let dom = DomSets::new(succs);
    let pred = preds(succs);
    let mut loops = Vec::new();
    for h in 0..n {
        let mut latches: Vec<usize> = pred[h]
            .iter()
            .copied()
            .filter(|&t| dom.dominates(h, t))
            .collect();
        latches.sort_unstable();
        latches.dedup();
        if latches.is_empty() {
            continue;
        }
        let mut body = vec![false; n];
        body[h] = true;
        let mut stack: Vec<usize> = latches.clone();
        while let Some(b) = stack.pop() {
            if body[b] {
                continue;
            }
            body[b] = true;
            stack.extend(pred[b].iter().copied().filter(|&p| dom.is_reachable(p)));
        }
        loops.push(NaturalLoop {
            header: h,
            latches,
            body,
        });
    }
    loops
}

/// The blocks that lie on some closed walk through `b` that never enters
/// block `avoid` (pass `None` to avoid nothing): the strongly connected
/// component of `b` in the graph without `avoid`, or empty when there is no
/// such walk. This is the exact form of the closed-path conditions of rules
/// S-CYCLE-1 and S-CYCLE-4 at block granularity.
pub fn cycle_through_avoiding(succs: &[Vec<usize>], b: usize, avoid: Option<usize>) -> Vec<bool> {
    let n = succs.len();
    let mut res = vec![false; n];
    if Some(b) == avoid {
        return res;
    }
    let fwd = search(succs, b, avoid);
    let pred = preds(succs);
    let bwd = search(&pred, b, avoid);
    // b is on a closed walk iff some successor of b reaches b.
    let on_cycle = succs[b]
        .iter()
        .any(|&s| Some(s) != avoid && (s == b || bwd[s]));
    if !on_cycle {
        return res;
    }
    for x in 0..n {
        res[x] = fwd[x] && bwd[x];
    }
    res
}

fn search(adj: &[Vec<usize>], from: usize, avoid: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; adj.len()];
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(x) = stack.pop() {
        for &y in &adj[x] {
            if !seen[y] && Some(y) != avoid {
                seen[y] = true;
                stack.push(y);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::{
        cycle_through_avoiding, is_reducible, is_reducible_by_back_edges, natural_loops, DomSets,
    };

    #[test]
    fn classic_irreducible_triangle() {
        // 0 -> 1, 0 -> 2, 1 <-> 2: the cycle has two entries.
        let g = vec![vec![1, 2], vec![2], vec![1]];
        assert!(!is_reducible(&g));
        assert!(!is_reducible_by_back_edges(&g));
    }

    #[test]
    fn nested_loops_are_reducible() {
        // 0 -> 1 (outer header) -> 2 (inner header) -> 2 | 3 ; 3 -> 1 | 4.
        let g = vec![vec![1], vec![2], vec![2, 3], vec![1, 4], vec![]];
        assert!(is_reducible(&g));
        assert!(is_reducible_by_back_edges(&g));
        let loops = natural_loops(&g);
        assert_eq!(loops.len(), 2);
        assert_eq!(loops[0].header, 1);
        assert_eq!(loops[0].body, vec![false, true, true, true, false]);
        assert_eq!(loops[1].body, vec![false, false, true, false, false]);
    }

    #[test]
    fn unreachable_irreducibility_is_ignored() {
        // Blocks 1, 2, 3 are unreachable and form a two-entry cycle.
        let g = vec![vec![], vec![2, 3], vec![3], vec![2]];
        assert!(is_reducible(&g));
        assert!(is_reducible_by_back_edges(&g));
        let d = DomSets::new(&g);
        assert!(!d.dominates(1, 2));
    }

    #[test]
    fn cycles_avoiding_a_block() {
        let g = vec![vec![1], vec![2], vec![2, 3], vec![1, 4], vec![]];
        // Through 3 avoiding 1: none (3 only returns via 1).
        assert!(cycle_through_avoiding(&g, 3, Some(1)).iter().all(|&x| !x));
        // Through 2 avoiding 1: the self loop only.
        assert_eq!(
            cycle_through_avoiding(&g, 2, Some(1)),
            vec![false, false, true, false, false]
        );
        // Through 3 avoiding nothing: the outer loop.
        assert_eq!(
            cycle_through_avoiding(&g, 3, None),
            vec![false, true, true, true, false]
        );
    }
}
