//! Every cycle hierarchy a CFG admits (rule D-HIER; "Cycle hierarchies" in
//! ConvergenceAndUniformity.rst: irreducible control flow yields different
//! hierarchies depending on the choice of headers during depth-first
//! traversal).
//!
//! # What a DFS determines
//!
//! For one DFS (one successor order per block), LLVM's GenericCycleInfo
//! builds the recursive decomposition: the top-level cycles are the
//! non-trivial SCCs of the reachable CFG; the header of a cycle is its block
//! with the smallest preorder number (the first one the DFS visits); the
//! children of a cycle `D` with header `x` are the non-trivial SCCs of
//! `D \ {x}`, again headed by their first-visited block. (LLVM's candidate
//! `H` collects the blocks of its DFS subtree that reach `H` inside the
//! subtree; the first-visited block of a strongly connected set is a DFS
//! ancestor of all its blocks, and ancestors' headers have smaller preorder
//! numbers, so that set is exactly the SCC of the current region.) A
//! hierarchy is therefore fixed by which block of each recursive SCC is
//! visited first.
//!
//! # The enumeration
//!
//! 1. *Candidate tree.* For a region `P` entered first at `s` (top level: the
//!    reachable blocks and the function entry; nested: a cycle `D` and its
//!    header), a sub-SCC `D'` can be first visited at `y` only if some
//!    predecessor `u` of `y` lies in `P \ D'` and is reachable from `s`
//!    inside `P \ D'`: the DFS tree path from `s` to the first-visited block
//!    of `D'` stays inside `P` (every block on it is reached from `s` and
//!    reaches `D' ⊆ P`) and avoids `D'` before `y`. Choosing a candidate per
//!    SCC and recursing into `D' \ {y}` with start `y` yields a finite tree
//!    of choices whose leaves ("combinations") include every hierarchy some
//!    DFS produces: *completeness* of step 1 is exactly the necessary
//!    condition just stated, applied at every level.
//! 2. *Realisability.* Choices in different SCCs are not independent (two
//!    sibling SCCs each reachable through a branch that also reaches a
//!    non-header of the other admit only two of the four combinations), so
//!    each combination is checked by searching for a DFS that visits every
//!    chosen header first in its cycle. The search decides, for a block `w`
//!    discovered with visited set `V`, whether some order of `w`'s
//!    successors keeps every constraint inside `w`'s subtree. It is exact
//!    because the set of blocks a DFS subtree visits is the set reachable
//!    from its root avoiding `V`, independent of the orders chosen inside
//!    it; so the state after exploring a successor is determined by
//!    `(V, successor)`, and trying every order of the (few) successors of
//!    each constrained block with memoisation on `(block, V)` explores every
//!    DFS up to that equivalence. Cycles with a single candidate impose no
//!    constraint (any DFS meeting the enclosing constraints visits the
//!    candidate first), and a subtree whose reach contains no non-header
//!    block of a multi-candidate cycle is accepted without search.
//!
//! A combination is output iff a witness DFS exists, so the result is exactly
//! the set of hierarchies of all DFS orders. Each one is materialised by
//! running [`CycleInfo::compute`] on the CFG with the witness successor
//! orders, so it carries LLVM's block and child orders for that DFS.
//!
//! Cost: a CFG whose cycles all have one entry has exactly one hierarchy
//! and returns at once. Otherwise the candidate tree is walked lazily (its
//! size is the product of the entry counts of the irreducible regions, so
//! only as many combinations as needed for `limit` are examined), and each
//! witness search is about quadratic in the blocks that reach a constrained
//! cycle (one reachability query per DFS step), branching only at blocks
//! whose subtree reaches a constrained cycle. Search bounds
//! (`MAX_COMBINATIONS`, `SEARCH_BUDGET`) make the worst case finite; hitting
//! one is reported by [`all_hierarchies_checked`] (`complete: false`), never
//! silently. Checked against brute force over all successor permutations in
//! `tests/cycle_hierarchies.rs`; timed in `tests/cycles_scale.rs`.

use super::cycles::CycleInfo;
use super::Cfg;
use crate::ir::BlockId;
use std::collections::{HashMap, HashSet};

/// At most this many combinations of the candidate tree are examined; beyond
/// it the result is marked incomplete (never reached by the tests' CFGs).
const MAX_COMBINATIONS: usize = 1 << 16;

/// One cycle of a candidate combination.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Spec {
    header: usize,
    /// Sorted.
    blocks: Vec<usize>,
    /// Whether the header was one of several candidates (a DFS constraint).
    constrained: bool,
}

/// Every cycle hierarchy the CFG admits over all DFS orders, deduplicated
/// (rule D-HIER). The first element is LLVM's. At most `limit` are returned.
/// See the module documentation for the enumeration and why it is complete;
/// [`all_hierarchies_checked`] also says whether a search budget cut it short.
pub fn all_hierarchies(cfg: &Cfg, limit: usize) -> Vec<CycleInfo> {
    all_hierarchies_checked(cfg, limit).hierarchies
}

/// The result of [`all_hierarchies_checked`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hierarchies {
    /// Distinct hierarchies, LLVM's first, at most `limit`.
    pub hierarchies: Vec<CycleInfo>,
    /// False when a search bound (`MAX_COMBINATIONS` candidate combinations,
    /// `SEARCH_BUDGET` subtree evaluations for one combination) was hit
    /// before `limit` hierarchies were found: the list may then miss some.
    pub complete: bool,
}

/// [`all_hierarchies`] with an honest completeness flag.
pub fn all_hierarchies_checked(cfg: &Cfg, limit: usize) -> Hierarchies {
    let mut complete = true;
    if limit == 0 {
        return Hierarchies {
            hierarchies: Vec::new(),
            complete,
        };
    }
    let llvm = CycleInfo::compute(cfg);
    // With a single entry per cycle every level has a single candidate
    // header (candidates are entries), so the hierarchy is unique.
    if cfg.is_empty() || llvm.cycles.iter().all(|c| c.is_reducible()) {
        return Hierarchies {
            hierarchies: vec![llvm],
            complete,
        };
    }
    let mut seen: HashSet<Vec<(usize, Vec<usize>)>> = HashSet::new();
    seen.insert(key_of_info(&llvm));
    let mut out = vec![llvm];
    let reach = reachable_from(cfg, 0, &vec![true; cfg.len()]);
    let region: Vec<usize> = (0..cfg.len()).filter(|&b| reach[b]).collect();
    let tree = candidate_tree(cfg, &region, &reach, &reach, 0);
    let mut examined = 0usize;
    let mut visit = |combo: &[Spec]| -> bool {
        if out.len() >= limit {
            return false;
        }
        examined += 1;
        if examined > MAX_COMBINATIONS {
            complete = false;
            return false;
        }
        let mut key: Vec<(usize, Vec<usize>)> =
            combo.iter().map(|s| (s.header, s.blocks.clone())).collect();
        key.sort();
        if seen.contains(&key) {
            return true;
        }
        let orders = match Witness::new(cfg, combo).find() {
            Found::Yes(orders) => orders,
            Found::No => return true,
            Found::OutOfBudget => {
                complete = false;
                return true;
            }
        };
        let permuted = Cfg {
            succs: orders,
            preds: cfg.preds.clone(),
            names: cfg.names.clone(),
        };
        let info = CycleInfo::compute(&permuted);
        // The witness DFS realises the combination by construction; a
        // mismatch would be a bug in the search, never shown as a result.
        if key_of_info(&info) == key {
            seen.insert(key);
            out.push(info);
        } else {
            debug_assert!(false, "D-HIER witness does not realise its combination");
        }
        true
    };
    for_each_combination(&mut vec![&tree.sccs[..]], &mut Vec::new(), &mut visit);
    let complete = complete || out.len() >= limit;
    Hierarchies {
        hierarchies: out,
        complete,
    }
}

/// Order-free identity of a hierarchy: sorted (header, sorted blocks).
fn key_of_info(info: &CycleInfo) -> Vec<(usize, Vec<usize>)> {
    let mut k: Vec<(usize, Vec<usize>)> = info
        .cycles
        .iter()
        .map(|c| {
            let mut b: Vec<usize> = c.blocks.iter().map(|b| b.0).collect();
            b.sort_unstable();
            (c.header().0, b)
        })
        .collect();
    k.sort();
    k
}

/// Blocks reachable from `s` through blocks with `allowed` set (`s` itself
/// is always included).
fn reachable_from(cfg: &Cfg, s: usize, allowed: &[bool]) -> Vec<bool> {
    let mut seen = vec![false; cfg.len()];
    seen[s] = true;
    let mut stack = vec![s];
    while let Some(v) = stack.pop() {
        for t in &cfg.succs[v] {
            if allowed[t.0] && !seen[t.0] {
                seen[t.0] = true;
                stack.push(t.0);
            }
        }
    }
    seen
}

/// Non-trivial SCCs (more than one block, or a self loop) of the subgraph
/// induced by `members` (iterative Tarjan), each sorted.
fn sccs(cfg: &Cfg, list: &[usize], members: &[bool]) -> Vec<Vec<usize>> {
    let n = cfg.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0;
    for &root in list {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&(v, i)) = call.last() {
            if i < cfg.succs[v].len() {
                if let Some(top) = call.last_mut() {
                    top.1 += 1;
                }
                let w = cfg.succs[v][i].0;
                if !members[w] {
                    continue;
                }
                if index[w] == usize::MAX {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(x) = stack.pop() {
                        on_stack[x] = false;
                        comp.push(x);
                        if x == v {
                            break;
                        }
                    }
                    let nontrivial = comp.len() > 1 || cfg.succs[v].iter().any(|t| t.0 == v);
                    if nontrivial {
                        comp.sort_unstable();
                        out.push(comp);
                    }
                }
            }
        }
    }
    out.sort();
    out
}

/// One non-trivial SCC of a region in the candidate tree, with each
/// candidate header and the candidate tree inside the SCC minus that header.
struct SccChoice {
    /// Sorted.
    blocks: Vec<usize>,
    constrained: bool,
    options: Vec<(usize, Node)>,
}

/// The candidate tree of one region: its SCCs, chosen independently here
/// (step 2 decides which combinations a single DFS realises).
struct Node {
    sccs: Vec<SccChoice>,
}

/// The candidate tree (step 1 of the module documentation) for the
/// non-trivial SCCs of `list` (members `in_sub`) inside the region
/// `in_region` entered first at `s`.
fn candidate_tree(
    cfg: &Cfg,
    list: &[usize],
    in_sub: &[bool],
    in_region: &[bool],
    s: usize,
) -> Node {
    let n = cfg.len();
    let mut sccs_out = Vec::new();
    for d in sccs(cfg, list, in_sub) {
        let mut in_d = vec![false; n];
        for &b in &d {
            in_d[b] = true;
        }
        let entries: Vec<usize> = d
            .iter()
            .copied()
            .filter(|&y| cfg.preds[y].iter().any(|u| in_region[u.0] && !in_d[u.0]))
            .collect();
        let candidates: Vec<usize> = if in_d[s] {
            vec![s]
        } else if entries.len() == 1 {
            // Some DFS visits D first, and only at an entry.
            entries
        } else {
            let outside: Vec<bool> = (0..n).map(|b| in_region[b] && !in_d[b]).collect();
            let reach = reachable_from(cfg, s, &outside);
            d.iter()
                .copied()
                .filter(|&y| cfg.preds[y].iter().any(|u| outside[u.0] && reach[u.0]))
                .collect()
        };
        let options = candidates
            .iter()
            .map(|&y| {
                let rest: Vec<usize> = d.iter().copied().filter(|&b| b != y).collect();
                let mut in_rest = in_d.clone();
                in_rest[y] = false;
                (y, candidate_tree(cfg, &rest, &in_rest, &in_d, y))
            })
            .collect();
        sccs_out.push(SccChoice {
            blocks: d,
            constrained: candidates.len() > 1,
            options,
        });
    }
    Node { sccs: sccs_out }
}

/// Calls `f` on every combination of the candidate tree (lazily, in
/// lexicographic order of the choices) until it returns false. `pending`
/// holds the SCC lists still to choose in; returns false when stopped.
///
/// Steps without a choice (an exhausted list, an SCC with one candidate
/// header) are taken in a loop and undone at the end, so the recursion is
/// as deep as the number of SCCs with a choice on the way, not the number
/// of SCCs (a chain of 10,000 loops overflowed the stack: issue 17 item 8).
fn for_each_combination<'t>(
    pending: &mut Vec<&'t [SccChoice]>,
    acc: &mut Vec<Spec>,
    f: &mut dyn FnMut(&[Spec]) -> bool,
) -> bool {
    // The lists popped by forced steps, in order; `true` when the step
    // also pushed a `Spec` and two lists.
    let mut forced: Vec<(&'t [SccChoice], bool)> = Vec::new();
    let cont = loop {
        let Some(slice) = pending.pop() else {
            break f(acc);
        };
        match slice.split_first() {
            None => forced.push((slice, false)),
            Some((first, rest)) if first.options.len() == 1 => {
                let (h, sub) = &first.options[0];
                acc.push(Spec {
                    header: *h,
                    blocks: first.blocks.clone(),
                    constrained: first.constrained,
                });
                pending.push(rest);
                pending.push(&sub.sccs);
                forced.push((slice, true));
            }
            Some((first, rest)) => {
                let mut cont = true;
                for (h, sub) in &first.options {
                    acc.push(Spec {
                        header: *h,
                        blocks: first.blocks.clone(),
                        constrained: first.constrained,
                    });
                    pending.push(rest);
                    pending.push(&sub.sccs);
                    cont = for_each_combination(pending, acc, f);
                    pending.pop();
                    pending.pop();
                    acc.pop();
                    if !cont {
                        break;
                    }
                }
                pending.push(slice);
                break cont;
            }
        }
    };
    for (slice, pushed) in forced.into_iter().rev() {
        if pushed {
            pending.pop();
            pending.pop();
            acc.pop();
        }
        pending.push(slice);
    }
    cont
}

/// Upper bound on subtree evaluations per combination in the witness search;
/// beyond it the combination is left undecided and the result is marked
/// incomplete (never reached by 40-block CFGs; see the tests).
const SEARCH_BUDGET: usize = 200_000;

/// Outcome of the witness search for one combination.
enum Found {
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
struct Witness<'a> {
    cfg: &'a Cfg,
    words: usize,
    /// Constrained cycles: (header, blocks as a bit set).
    constraints: Vec<(usize, Vec<u64>)>,
    /// Indices into `constraints` of the cycles containing each block.
    containing: Vec<Vec<usize>>,
    /// Non-header blocks of constrained cycles.
    risky: Vec<u64>,
    /// Blocks that reach a risky block.
    relevant: Vec<u64>,
    /// Whether the subtree of a block discovered in a (projected) visited
    /// state can meet every constraint; with the successor order that does.
    memo: HashMap<(usize, Vec<u32>), Option<Vec<usize>>>,
    evaluations: usize,
}

fn bit(set: &[u64], b: usize) -> bool {
    set[b / 64] >> (b % 64) & 1 == 1
}
fn set_bit(set: &mut [u64], b: usize) {
    set[b / 64] |= 1 << (b % 64);
}

impl<'a> Witness<'a> {
    fn new(cfg: &'a Cfg, combo: &[Spec]) -> Witness<'a> {
        let n = cfg.len();
        let words = n.div_ceil(64);
        let mut constraints = Vec::new();
        let mut containing = vec![Vec::new(); n];
        let mut risky = vec![0u64; words];
        for s in combo.iter().filter(|s| s.constrained) {
            let mut set = vec![0u64; words];
            for &b in &s.blocks {
                set_bit(&mut set, b);
                containing[b].push(constraints.len());
                if b != s.header {
                    set_bit(&mut risky, b);
                }
            }
            constraints.push((s.header, set));
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
        Witness {
            cfg,
            words,
            constraints,
            containing,
            risky,
            relevant,
            memo: HashMap::new(),
            evaluations: 0,
        }
    }

    /// Runs the search (on a thread with a large stack for big CFGs: the
    /// recursion is as deep as the DFS tree).
    fn find(self) -> Found {
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
        let empty = vec![0u64; self.words];
        match self.subtree_ok(0, &empty) {
            None => return Found::OutOfBudget,
            Some(false) => return Found::No,
            Some(true) => {}
        }
        // Replay the DFS with the recorded orders.
        let n = self.cfg.len();
        let mut succs: Vec<Vec<BlockId>> = self.cfg.succs.clone();
        let mut visited = vec![0u64; self.words];
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
    /// `avoid` (`w` included when relevant).
    fn reach(&self, w: usize, avoid: Option<&[u64]>) -> Vec<u64> {
        let mut r = vec![0u64; self.words];
        if !bit(&self.relevant, w) {
            return r;
        }
        set_bit(&mut r, w);
        let mut stack = vec![w];
        while let Some(v) = stack.pop() {
            for t in &self.cfg.succs[v] {
                let t = t.0;
                if bit(&self.relevant, t) && !bit(&r, t) && !avoid.is_some_and(|a| bit(a, t)) {
                    set_bit(&mut r, t);
                    stack.push(t);
                }
            }
        }
        r
    }

    /// Memo key of the subtree of `w` in state `visited`: the visited
    /// relevant blocks that `w` can reach at all.
    fn key(&self, w: usize, visited: &[u64]) -> Vec<u32> {
        let universe = self.reach(w, None);
        let mut k = Vec::new();
        for (i, (u, v)) in universe.iter().zip(visited).enumerate() {
            let mut x = u & v;
            while x != 0 {
                let b = x.trailing_zeros() as usize;
                k.push((i * 64 + b) as u32);
                x &= x - 1;
            }
        }
        k
    }

    /// Can the DFS subtree of `w`, discovered when `visited` are visited,
    /// meet every constraint? `None` when the budget is exhausted.
    fn subtree_ok(&mut self, w: usize, visited: &[u64]) -> Option<bool> {
        let reach = self.reach(w, Some(visited));
        if reach.iter().zip(&self.risky).all(|(r, k)| r & k == 0) {
            return Some(true);
        }
        let key = (w, self.key(w, visited));
        if let Some(r) = self.memo.get(&key) {
            return Some(r.is_some());
        }
        self.evaluations += 1;
        if self.evaluations > SEARCH_BUDGET {
            return None;
        }
        // Discovering `w` first in a constrained cycle it is not the header of
        // breaks the combination.
        let bad = self.containing[w].iter().any(|&c| {
            let (h, set) = &self.constraints[c];
            *h != w && set.iter().zip(visited).all(|(s, v)| s & v == 0)
        });
        let result = if bad {
            None
        } else {
            let mut v1 = visited.to_vec();
            set_bit(&mut v1, w);
            let mut order_memo: HashMap<Vec<u64>, Option<Vec<usize>>> = HashMap::new();
            self.order_search(w, v1, &mut order_memo)?
        };
        let ok = result.is_some();
        self.memo.insert(key, result);
        Some(ok)
    }

    /// An order for the relevant successors of `w` not yet in `visited`
    /// under which every explored subtree meets the constraints (outer
    /// `None`: budget exhausted).
    fn order_search(
        &mut self,
        w: usize,
        visited: Vec<u64>,
        memo: &mut HashMap<Vec<u64>, Option<Vec<usize>>>,
    ) -> Option<Option<Vec<usize>>> {
        let remaining: Vec<usize> = distinct(&self.cfg.succs[w])
            .into_iter()
            .filter(|&s| bit(&self.relevant, s) && !bit(&visited, s))
            .collect();
        if remaining.is_empty() {
            return Some(Some(Vec::new()));
        }
        if let Some(r) = memo.get(&visited) {
            return Some(r.clone());
        }
        let mut found = None;
        for &s in &remaining {
            if !self.subtree_ok(s, &visited)? {
                continue;
            }
            let r = self.reach(s, Some(&visited));
            let next: Vec<u64> = visited.iter().zip(&r).map(|(a, b)| a | b).collect();
            if let Some(rest) = self.order_search(w, next, memo)? {
                let mut o = vec![s];
                o.extend(rest);
                found = Some(o);
                break;
            }
        }
        memo.insert(visited, found.clone());
        Some(found)
    }
}

/// Successors without duplicates, first occurrence order.
fn distinct(succs: &[BlockId]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(succs.len());
    for s in succs {
        if !out.contains(&s.0) {
            out.push(s.0);
        }
    }
    out
}
