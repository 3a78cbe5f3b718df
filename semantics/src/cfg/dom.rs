//! Dominator and post-dominator trees.
//!
//! Two algorithms per tree (STYLE 13): a fast one used by every analysis and
//! the simple iterative data-flow algorithm kept as the oracle; a property
//! test (`tests/dom_oracle.rs`) cross-checks them on generated CFGs.
//!
//! Both algorithms run on a [`Graph`]: the CFG itself for dominators, or the
//! reversed CFG plus a virtual exit node for post-dominators (the virtual exit
//! is the root and has an edge to every block without successors, as in
//! LLVM's `PostDominatorTree`, except that blocks that cannot reach an exit,
//! such as infinite loops, stay outside the tree instead of being attached to
//! the virtual exit).

use super::Cfg;
use crate::ir::BlockId;

/// No immediate dominator (see [`DomTree::idom`]).
const NO_IDOM: u32 = u32::MAX;

/// A dominator tree over the blocks reachable from the entry (or, for
/// post-dominators, over the blocks that reach an exit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomTree {
    /// Immediate dominator of each block as a block index in 32 bits;
    /// `NO_IDOM` for the root(s) and for blocks outside the tree
    /// (unreachable). Read it with [`DomTree::idom`] (4 bytes a block
    /// instead of 16: issue 17, a function of 1,000,000 blocks).
    idom: Vec<u32>,
    /// Whether the block is in the tree.
    pub in_tree: Vec<bool>,
    /// Preorder entry/exit times of each block in the tree (a forest for
    /// post-dominators), so that [`DomTree::dominates`] is O(1). Derived from
    /// `idom` alone, so two trees with equal `idom` have equal numbers.
    euler: Vec<(u32, u32)>,
}

/// A directed graph with explicit predecessor lists: what the two dominator
/// algorithms need. Node `root` is the start of every path.
struct Graph {
    succs: Lists,
    preds: Lists,
    root: usize,
}

/// One list of nodes per node, all in one array (a vector per node cost an
/// allocation each: issue 17 item 8).
struct Lists {
    start: Vec<u32>,
    list: Vec<usize>,
}

impl Lists {
    fn from_fn(n: usize, mut fill: impl FnMut(usize, &mut Vec<usize>)) -> Lists {
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::new();
        for v in 0..n {
            start.push(list.len() as u32);
            fill(v, &mut list);
        }
        start.push(
            u32::try_from(list.len()).expect("P-PROG: a function has fewer than 2^32 CFG edges"),
        );
        Lists { start, list }
    }
    fn len(&self) -> usize {
        self.start.len() - 1
    }
}

impl std::ops::Index<usize> for Lists {
    type Output = [usize];
    fn index(&self, v: usize) -> &[usize] {
        &self.list[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

impl Graph {
    fn forward(cfg: &Cfg) -> Graph {
        let n = cfg.len();
        Graph {
            succs: Lists::from_fn(n, |b, out| out.extend(cfg.succs[b].iter().map(|s| s.0))),
            preds: Lists::from_fn(n, |b, out| out.extend(cfg.preds[b].iter().map(|p| p.0))),
            root: 0,
        }
    }

    /// The reversed CFG with a virtual exit node `n` (the root) whose
    /// successors are the blocks without successors.
    fn reverse_with_exit(cfg: &Cfg) -> Graph {
        let n = cfg.len();
        let is_exit = |b: usize| cfg.succs[b].is_empty();
        Graph {
            succs: Lists::from_fn(n + 1, |b, out| {
                if b < n {
                    out.extend(cfg.preds[b].iter().map(|p| p.0));
                } else {
                    out.extend((0..n).filter(|&e| is_exit(e)));
                }
            }),
            preds: Lists::from_fn(n + 1, |b, out| {
                if b < n {
                    out.extend(cfg.succs[b].iter().map(|s| s.0));
                    if is_exit(b) {
                        out.push(n);
                    }
                }
            }),
            root: n,
        }
    }

    fn len(&self) -> usize {
        self.succs.len()
    }

    /// Reverse postorder of the nodes reachable from the root (iterative DFS).
    fn reverse_postorder(&self) -> Vec<usize> {
        let n = self.len();
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(usize, usize)> = vec![(self.root, 0)];
        seen[self.root] = true;
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            if i < self.succs[v].len() {
                top.1 += 1;
                let w = self.succs[v][i];
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, 0));
                }
            } else {
                post.push(v);
                stack.pop();
            }
        }
        post.reverse();
        post
    }
}

/// Semi-NCA (Georgiadis, Tarjan, Werneck, "Finding dominators in practice",
/// 2006; the algorithm of LLVM's `GenericDomTreeConstruction.h`): semi-
/// dominators by Lengauer-Tarjan's path-compressed evaluation in reverse
/// preorder, then each immediate dominator is the nearest ancestor of the DFS
/// parent whose preorder number is at most the semi-dominator's. O(m log n)
/// with no iteration to a fixed point, so irreducible CFGs cost no more.
/// Returns the idom of each node (`Some(root)` for the root itself) or `None`
/// when unreachable.
fn idoms_fast(g: &Graph) -> Vec<Option<usize>> {
    // Node numbers as u32: seven arrays of the graph's size (issue 17 item
    // 8); `Lists` already limits a graph to 2^32 edges.
    const NONE: u32 = u32::MAX;
    let n = g.len();
    let num = |x: usize| x as u32;
    // Preorder numbering (iterative DFS in successor order).
    let mut dfn = vec![NONE; n];
    let mut vertex: Vec<u32> = Vec::with_capacity(n);
    let mut parent: Vec<u32> = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = vec![(g.root, 0)];
    dfn[g.root] = 0;
    vertex.push(num(g.root));
    parent.push(NONE);
    while let Some(top) = stack.last_mut() {
        let (v, i) = *top;
        if i < g.succs[v].len() {
            top.1 += 1;
            let w = g.succs[v][i];
            if dfn[w] == NONE {
                dfn[w] = num(vertex.len());
                parent.push(dfn[v]);
                vertex.push(num(w));
                stack.push((w, 0));
            }
        } else {
            stack.pop();
        }
    }
    let m = vertex.len();
    let mut semi: Vec<u32> = (0..num(m)).collect();
    let mut label: Vec<u32> = (0..num(m)).collect();
    let mut ancestor = vec![NONE; m];
    let mut path: Vec<usize> = Vec::new();
    for w in (1..m).rev() {
        for &p in &g.preds[vertex[w] as usize] {
            let v = dfn[p];
            if v == NONE {
                continue;
            }
            let v = v as usize;
            // eval(v): the vertex of minimum semi on v's compressed path.
            let u = if ancestor[v] == NONE {
                v
            } else {
                let mut x = v;
                while ancestor[ancestor[x] as usize] != NONE {
                    path.push(x);
                    x = ancestor[x] as usize;
                }
                while let Some(y) = path.pop() {
                    let a = ancestor[y] as usize;
                    if semi[label[a] as usize] < semi[label[y] as usize] {
                        label[y] = label[a];
                    }
                    ancestor[y] = ancestor[a];
                }
                label[v] as usize
            };
            if semi[u] < semi[w] {
                semi[w] = semi[u];
            }
        }
        ancestor[w] = parent[w];
    }
    drop(ancestor);
    drop(label);
    let mut idom_dfn = vec![0u32; m];
    for w in 1..m {
        let mut d = parent[w];
        while d > semi[w] {
            d = idom_dfn[d as usize];
        }
        idom_dfn[w] = d;
    }
    let mut idom = vec![None; n];
    for (w, &d) in idom_dfn.iter().enumerate() {
        idom[vertex[w] as usize] = Some(vertex[d as usize] as usize);
    }
    idom
}

/// The textbook data-flow formulation: `Dom(root) = {root}`,
/// `Dom(b) = {b} ∪ ⋂ Dom(p)` over reachable predecessors, iterated to a fixed
/// point over bit sets; the immediate dominator is the strict dominator with
/// the most dominators of its own. Quadratic; used only as an oracle.
fn idoms_simple(g: &Graph) -> Vec<Option<usize>> {
    let n = g.len();
    let words = n.div_ceil(64);
    let reachable = {
        let mut r = vec![false; n];
        for v in g.reverse_postorder() {
            r[v] = true;
        }
        r
    };
    let full = {
        let mut f = vec![0u64; words];
        for v in 0..n {
            f[v / 64] |= 1 << (v % 64);
        }
        f
    };
    let mut dom: Vec<Vec<u64>> = (0..n).map(|_| full.clone()).collect();
    dom[g.root] = vec![0; words];
    dom[g.root][g.root / 64] |= 1 << (g.root % 64);
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            if b == g.root || !reachable[b] {
                continue;
            }
            let mut new = full.clone();
            for &p in &g.preds[b] {
                if reachable[p] {
                    for (w, d) in new.iter_mut().zip(&dom[p]) {
                        *w &= d;
                    }
                }
            }
            new[b / 64] |= 1 << (b % 64);
            if new != dom[b] {
                dom[b] = new;
                changed = true;
            }
        }
    }
    let has = |set: &[u64], v: usize| set[v / 64] >> (v % 64) & 1 == 1;
    let count = |set: &[u64]| set.iter().map(|w| w.count_ones()).sum::<u32>();
    (0..n)
        .map(|b| {
            if !reachable[b] {
                None
            } else if b == g.root {
                Some(b)
            } else {
                (0..n)
                    .filter(|&d| d != b && has(&dom[b], d))
                    .max_by_key(|&d| count(&dom[d]))
            }
        })
        .collect()
}

impl DomTree {
    /// Builds the tree over the first `n` nodes of `g` from node idoms,
    /// dropping the root (and, for post-dominators, the virtual exit).
    fn from_idoms(n: usize, root: usize, idoms: &[Option<usize>]) -> DomTree {
        let in_tree: Vec<bool> = (0..n).map(|b| idoms[b].is_some()).collect();
        let idom: Vec<u32> = (0..n)
            .map(|b| match idoms[b] {
                Some(d) if b != root && d < n => {
                    u32::try_from(d).expect("P-PROG: a function has fewer than 2^32 - 1 blocks")
                }
                _ => NO_IDOM,
            })
            .collect();
        let euler = euler_numbers(&idom, &in_tree);
        DomTree {
            idom,
            in_tree,
            euler,
        }
    }

    /// Dominators, fast algorithm (semi-NCA).
    pub fn dominators(cfg: &Cfg) -> DomTree {
        if cfg.is_empty() {
            return DomTree::empty();
        }
        let g = Graph::forward(cfg);
        DomTree::from_idoms(cfg.len(), 0, &idoms_fast(&g))
    }
    /// Dominators, simple iterative oracle.
    pub fn dominators_simple(cfg: &Cfg) -> DomTree {
        if cfg.is_empty() {
            return DomTree::empty();
        }
        let g = Graph::forward(cfg);
        DomTree::from_idoms(cfg.len(), 0, &idoms_simple(&g))
    }
    /// Post-dominators with a virtual exit joining every block without
    /// successors; blocks that cannot reach an exit are outside the tree.
    pub fn post_dominators(cfg: &Cfg) -> DomTree {
        let g = Graph::reverse_with_exit(cfg);
        DomTree::from_idoms(cfg.len(), cfg.len(), &idoms_fast(&g))
    }
    /// Post-dominators, simple iterative oracle.
    pub fn post_dominators_simple(cfg: &Cfg) -> DomTree {
        let g = Graph::reverse_with_exit(cfg);
        DomTree::from_idoms(cfg.len(), cfg.len(), &idoms_simple(&g))
    }

    fn empty() -> DomTree {
        DomTree {
            idom: Vec::new(),
            in_tree: Vec::new(),
            euler: Vec::new(),
        }
    }

    /// Reflexive dominance. Follows LLVM: a block outside the tree is
    /// dominated by every block; a block outside the tree dominates only itself.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if a == b || !self.in_tree[b.0] {
            return true;
        }
        if !self.in_tree[a.0] {
            return false;
        }
        let (ia, oa) = self.euler[a.0];
        let (ib, ob) = self.euler[b.0];
        ia <= ib && ob <= oa
    }
    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a != b && self.dominates(a, b)
    }
    /// The immediate dominator of `b`; `None` for the root(s) and for
    /// blocks outside the tree.
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        let d = self.idom[b.0];
        (d != NO_IDOM).then_some(BlockId(d as usize))
    }
    /// Number of blocks (in the tree or not).
    pub fn len(&self) -> usize {
        self.idom.len()
    }
    pub fn is_empty(&self) -> bool {
        self.idom.is_empty()
    }
    pub fn is_in_tree(&self, b: BlockId) -> bool {
        self.in_tree[b.0]
    }
    /// The entry and exit times of `b` in a depth-first walk of the tree
    /// (`None` outside the tree): `a` dominates a block `b` of the tree iff
    /// `b`'s entry time lies in `a`'s interval.
    pub fn preorder_interval(&self, b: BlockId) -> Option<(u32, u32)> {
        self.in_tree[b.0].then(|| self.euler[b.0])
    }

    /// Children of each block in the tree, in block order.
    pub fn children(&self) -> Vec<Vec<BlockId>> {
        let mut ch = vec![Vec::new(); self.idom.len()];
        for b in 0..self.idom.len() {
            if let Some(d) = self.idom(BlockId(b)) {
                ch[d.0].push(BlockId(b));
            }
        }
        ch
    }

    /// Nearest common dominator of two blocks in the tree (`None` when they
    /// lie in different trees of a post-dominator forest or outside it).
    pub fn nearest_common_dominator(&self, a: BlockId, b: BlockId) -> Option<BlockId> {
        if !self.in_tree[a.0] || !self.in_tree[b.0] {
            return None;
        }
        let mut x = Some(a);
        while let Some(c) = x {
            if self.dominates(c, b) {
                return Some(c);
            }
            x = self.idom(c);
        }
        None
    }
}

/// Entry/exit times of an iterative preorder walk over the dominator forest.
fn euler_numbers(idom: &[u32], in_tree: &[bool]) -> Vec<(u32, u32)> {
    let n = idom.len();
    let idom_of = |b: usize| (idom[b] != NO_IDOM).then_some(idom[b] as usize);
    // Children in block order, one array for all (see `Lists`).
    let mut first = vec![0u32; n + 1];
    for d in (0..n).filter_map(idom_of) {
        first[d + 1] += 1;
    }
    for b in 0..n {
        first[b + 1] += first[b];
    }
    let mut next = first.clone();
    let mut list = vec![0usize; first[n] as usize];
    for b in 0..n {
        if let Some(d) = idom_of(b) {
            list[next[d] as usize] = b;
            next[d] += 1;
        }
    }
    drop(next);
    let children = Lists { start: first, list };
    let mut num = vec![(0u32, 0u32); n];
    let mut clock = 0u32;
    for r in 0..n {
        if !in_tree[r] || idom_of(r).is_some() {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
        num[r].0 = clock;
        clock += 1;
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            if i < children[v].len() {
                top.1 += 1;
                let c = children[v][i];
                num[c].0 = clock;
                clock += 1;
                stack.push((c, 0));
            } else {
                num[v].1 = clock;
                clock += 1;
                stack.pop();
            }
        }
    }
    num
}
