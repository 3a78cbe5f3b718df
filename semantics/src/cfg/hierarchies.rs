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
//!    condition just stated, applied at every level. (The reachability
//!    half of the condition always holds for an entry of a maximal SCC:
//!    see `candidate_tree`.)
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
//! witness search costs about the size of the function: it decides the
//! subtrees of cut points (blocks that dominate everything they reach)
//! first, deepest first, and every walk stops at them, so a step costs the
//! part of the function between cut points (see `Cuts`); it branches only
//! at blocks whose subtree reaches a constrained cycle. Search bounds
//! (`MAX_COMBINATIONS`, `SEARCH_BUDGET`) make the worst case finite; hitting
//! one is reported by [`all_hierarchies_checked`] (`complete: false`), never
//! silently. Checked against brute force over all successor permutations in
//! `tests/cycle_hierarchies.rs`; timed in `tests/cycles_scale.rs`.

use super::cycles::CycleInfo;
use super::witness::{Cuts, Found, Witness};
use super::Cfg;
use std::collections::HashSet;

/// At most this many combinations of the candidate tree are examined; beyond
/// it the result is marked incomplete (never reached by the tests' CFGs).
const MAX_COMBINATIONS: usize = 1 << 16;

/// One cycle of a candidate combination.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Spec {
    pub(super) header: usize,
    /// Sorted.
    pub(super) blocks: Vec<usize>,
    /// Whether the header was one of several candidates (a DFS constraint).
    pub(super) constrained: bool,
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
    let tree = candidate_tree(cfg, &region, &region, 0);
    let cuts = Cuts::new(cfg);
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
        let orders = match Witness::new(cfg, &cuts, combo).find() {
            Found::Yes(orders) => orders,
            Found::No => return true,
            Found::OutOfBudget => {
                complete = false;
                return true;
            }
        };
        let permuted = cfg.with_succs(orders);
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
/// induced by the sorted block list `list` (iterative Tarjan), each sorted.
/// Works in time linear in the list and its edges (plus a logarithmic
/// lookup per edge), not in the function: it runs once per cycle of every
/// candidate tree.
fn sccs(cfg: &Cfg, list: &[usize]) -> Vec<Vec<usize>> {
    let local = |b: usize| list.binary_search(&b).ok();
    let k = list.len();
    let mut index = vec![usize::MAX; k];
    let mut low = vec![0usize; k];
    let mut on_stack = vec![false; k];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0;
    for root in 0..k {
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
            if i < cfg.succs[list[v]].len() {
                if let Some(top) = call.last_mut() {
                    top.1 += 1;
                }
                let Some(w) = local(cfg.succs[list[v]][i].0) else {
                    continue;
                };
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
                        comp.push(list[x]);
                        if x == v {
                            break;
                        }
                    }
                    let nontrivial =
                        comp.len() > 1 || cfg.succs[list[v]].iter().any(|t| t.0 == list[v]);
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
/// non-trivial SCCs of the sorted block list `list` inside the region
/// `region` (sorted) entered first at `s`.
///
/// The candidates of an SCC `D` not containing `s` are its entries from
/// `region \ D`: the documentation's condition also asks the outside
/// predecessor `u` to be reachable from `s` avoiding `D`, but that always
/// holds. `D` is a maximal strongly connected set of `region` minus `s`'s
/// block (at the top level, of the reachable blocks), and `region` is
/// strongly connected from `s`; if every path from `s` to `u` inside
/// `region` passed through `D`, the part after its last visit of `D`
/// would lead from `D` to `u` (avoiding `s`, which no such path revisits
/// without meeting `D` again), and `u -> D` would put `u` in `D`. Checking
/// it anyway cost a walk of the whole function per irreducible cycle
/// (quadratic on long functions); a candidate no DFS can take would only be
/// rejected by the witness search.
fn candidate_tree(cfg: &Cfg, list: &[usize], region: &[usize], s: usize) -> Node {
    let mut sccs_out = Vec::new();
    for d in sccs(cfg, list) {
        let in_d = |b: usize| d.binary_search(&b).is_ok();
        let in_region = |b: usize| region.binary_search(&b).is_ok();
        let candidates: Vec<usize> = if in_d(s) {
            vec![s]
        } else {
            d.iter()
                .copied()
                .filter(|&y| cfg.preds[y].iter().any(|u| in_region(u.0) && !in_d(u.0)))
                .collect()
        };
        let options = candidates
            .iter()
            .map(|&y| {
                let rest: Vec<usize> = d.iter().copied().filter(|&b| b != y).collect();
                (y, candidate_tree(cfg, &rest, &d, y))
            })
            .collect();
        sccs_out.push(SccChoice {
            constrained: candidates.len() > 1,
            blocks: d,
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
