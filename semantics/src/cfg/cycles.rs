//! Cycle hierarchies, built exactly as LLVM's GenericCycleInfo builds them
//! (DFS in successor order, headers by reverse preorder), so that the text
//! printed matches `opt -passes='print<cycles>'`; and the enumeration of every
//! hierarchy the CFG admits (rule D-HIER).

use super::Cfg;
use crate::ir::BlockId;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CycleId(pub usize);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// Entry blocks; the first is the header.
    pub entries: Vec<BlockId>,
    /// All blocks of the cycle (including those of nested cycles), in
    /// LLVM's insertion order (header first).
    pub blocks: Vec<BlockId>,
    pub parent: Option<CycleId>,
    /// Child cycles in LLVM's order.
    pub children: Vec<CycleId>,
    /// 1 for top-level cycles.
    pub depth: u32,
}

impl Cycle {
    pub fn header(&self) -> BlockId {
        self.entries[0]
    }
    pub fn is_reducible(&self) -> bool {
        self.entries.len() == 1
    }
    pub fn contains(&self, b: BlockId) -> bool {
        self.blocks.contains(&b)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleInfo {
    pub cycles: Vec<Cycle>,
    /// Top-level cycles in LLVM's order.
    pub top_level: Vec<CycleId>,
    /// Innermost cycle containing each block, as a cycle index in 32 bits
    /// (`NO_CYCLE` for none). Read it with [`CycleInfo::innermost`] (4 bytes
    /// a block instead of 16: issue 17, a function of 1,000,000 blocks).
    innermost: Vec<u32>,
}

/// No cycle (see [`CycleInfo::innermost`]).
const NO_CYCLE: u32 = u32::MAX;

impl CycleInfo {
    /// LLVM's GenericCycleInfo on `cfg` (`GenericCycleInfoCompute::run` in
    /// llvm/include/llvm/ADT/GenericCycleImpl.h, LLVM 22), reproducing every
    /// order LLVM's printer exposes:
    ///
    /// 1. a DFS from the entry that explores successors last-first (LLVM
    ///    pushes all successors on a stack), numbering blocks in preorder and
    ///    recording the largest preorder number in each subtree;
    /// 2. header candidates in reverse preorder; a candidate with a
    ///    predecessor in its own DFS subtree (a back edge) heads a new cycle,
    ///    and those predecessors seed a worklist that pops from the back;
    /// 3. a popped block already in a cycle brings its current top-level
    ///    cycle under the new one (removed from the top-level list by moving
    ///    the last element into its slot; its blocks appended to the new
    ///    cycle's blocks; its entries' predecessors processed); a fresh block
    ///    is appended and its predecessors processed;
    /// 4. processing predecessors pushes those in the candidate's subtree and
    ///    marks the block an entry if another predecessor is reachable
    ///    (unreachable predecessors are ignored);
    /// 5. depths are assigned at the end, top-level cycles at depth 1.
    ///
    /// Near-linear: top-level lookups use a union-find over cycles instead of
    /// LLVM's per-cycle top-level pointers (same answers, no re-labelling of
    /// moved subtrees), and top-level removal uses a position index.
    pub fn compute(cfg: &Cfg) -> CycleInfo {
        let n = cfg.len();
        let mut info = CycleInfo {
            cycles: Vec::new(),
            top_level: Vec::new(),
            innermost: vec![NO_CYCLE; n],
        };
        if n == 0 {
            return info;
        }
        let dfs = Dfs::run(cfg);
        // Union-find parent of each cycle: the root of a cycle's set is its
        // current top-level ancestor.
        let mut uf: Vec<usize> = Vec::new();
        // Index of each top-level cycle in `info.top_level`.
        let mut top_pos: Vec<usize> = Vec::new();
        let mut worklist: Vec<usize> = Vec::new();

        for &cand in dfs.preorder.iter().rev() {
            for p in &cfg.preds[cand] {
                if dfs.is_ancestor(cand, p.0) {
                    worklist.push(p.0);
                }
            }
            if worklist.is_empty() {
                continue;
            }
            let c = info.cycles.len();
            info.cycles.push(Cycle {
                entries: vec![BlockId(cand)],
                blocks: vec![BlockId(cand)],
                parent: None,
                children: Vec::new(),
                depth: 0,
            });
            uf.push(c);
            top_pos.push(usize::MAX);
            info.set_innermost(cand, c);

            while let Some(b) = worklist.pop() {
                if b == cand {
                    continue;
                }
                if let Some(inner) = info.innermost(BlockId(b)) {
                    let top = uf_find(&mut uf, inner.0);
                    if top == c {
                        continue;
                    }
                    // Move the top-level cycle `top` under `c`, as LLVM's
                    // moveTopLevelCycleToNewParent does (swap with the last).
                    let pos = top_pos[top];
                    info.top_level.swap_remove(pos);
                    if let Some(moved) = info.top_level.get(pos) {
                        top_pos[moved.0] = pos;
                    }
                    uf[top] = c;
                    info.cycles[top].parent = Some(CycleId(c));
                    info.cycles[c].children.push(CycleId(top));
                    let child_blocks = info.cycles[top].blocks.clone();
                    info.cycles[c].blocks.extend(child_blocks);
                    let child_entries = info.cycles[top].entries.clone();
                    for e in child_entries {
                        process_predecessors(
                            cfg,
                            &dfs,
                            cand,
                            e.0,
                            &mut worklist,
                            &mut info.cycles[c],
                        );
                    }
                } else {
                    info.set_innermost(b, c);
                    info.cycles[c].blocks.push(BlockId(b));
                    process_predecessors(cfg, &dfs, cand, b, &mut worklist, &mut info.cycles[c]);
                }
            }
            top_pos[c] = info.top_level.len();
            info.top_level.push(CycleId(c));
        }

        // Depths, top-down (`updateDepth`).
        let mut stack: Vec<usize> = info.top_level.iter().map(|c| c.0).collect();
        while let Some(c) = stack.pop() {
            let d = match info.cycles[c].parent {
                Some(p) => info.cycles[p.0].depth + 1,
                None => 1,
            };
            info.cycles[c].depth = d;
            stack.extend(info.cycles[c].children.iter().map(|ch| ch.0));
        }
        // Grown by doubling: up to half would be slack (96 bytes a cycle,
        // and a cycle's block list grows as nested cycles join it).
        info.cycles.shrink_to_fit();
        info.top_level.shrink_to_fit();
        for c in &mut info.cycles {
            c.blocks.shrink_to_fit();
            c.entries.shrink_to_fit();
            c.children.shrink_to_fit();
        }
        info
    }
    /// The innermost cycle containing `b` (`None` outside every cycle).
    pub fn innermost(&self, b: BlockId) -> Option<CycleId> {
        let c = self.innermost[b.0];
        (c != NO_CYCLE).then_some(CycleId(c as usize))
    }
    /// The same cycles over blocks `1..`: what [`CycleInfo::compute`]
    /// gives on a CFG with a first block in front that no cycle contains,
    /// its blocks renumbered `b - 1` by the caller (`rules::facts`).
    pub fn without_first_block(&self, cycles: Vec<Cycle>) -> CycleInfo {
        CycleInfo {
            cycles,
            top_level: self.top_level.clone(),
            innermost: self.innermost[1..].to_vec(),
        }
    }
    /// Number of blocks of the CFG the cycles were computed on.
    pub fn block_count(&self) -> usize {
        self.innermost.len()
    }
    fn set_innermost(&mut self, b: usize, c: usize) {
        self.innermost[b] = u32::try_from(c).expect("P-PROG: fewer than 2^32 - 1 cycles");
    }
    pub fn cycle(&self, c: CycleId) -> &Cycle {
        &self.cycles[c.0]
    }
    /// The cycles containing `b`, innermost first.
    pub fn cycles_containing(&self, b: BlockId) -> Vec<CycleId> {
        let mut out = Vec::new();
        let mut c = self.innermost(b);
        while let Some(id) = c {
            out.push(id);
            c = self.cycles[id.0].parent;
        }
        out
    }
    /// Whether cycle `c` contains block `b`, in O(depth) (unlike
    /// [`Cycle::contains`], which scans the block list).
    pub fn contains(&self, c: CycleId, b: BlockId) -> bool {
        let depth = self.cycles[c.0].depth;
        let mut cur = self.innermost(b);
        while let Some(id) = cur {
            let cy = &self.cycles[id.0];
            if id == c {
                return true;
            }
            if cy.depth <= depth {
                return false;
            }
            cur = cy.parent;
        }
        false
    }
    /// The cycles in the order LLVM prints them: each top-level cycle in
    /// order, then its children depth-first.
    pub fn preorder(&self) -> Vec<CycleId> {
        let mut out = Vec::with_capacity(self.cycles.len());
        for &t in &self.top_level {
            let mut stack = vec![t];
            while let Some(c) = stack.pop() {
                out.push(c);
                stack.extend(self.cycles[c.0].children.iter().rev().copied());
            }
        }
        out
    }
    /// The body of `opt -passes='print<cycles>'` for one function (without
    /// the `CycleInfo for function:` line): per cycle in [`Self::preorder`],
    /// four spaces per depth level, `depth=D: entries(E1 E2)`, then each
    /// non-entry block of the cycle in block order.
    pub fn print(&self, cfg: &Cfg) -> String {
        let mut out = String::new();
        let mut is_entry = vec![false; cfg.len()];
        for c in self.preorder() {
            let cy = &self.cycles[c.0];
            for _ in 0..cy.depth {
                out.push_str("    ");
            }
            let _ = write!(out, "depth={}: entries(", cy.depth);
            for (i, e) in cy.entries.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(&cfg.names[e.0]);
                is_entry[e.0] = true;
            }
            out.push(')');
            for b in &cy.blocks {
                if !is_entry[b.0] {
                    out.push(' ');
                    out.push_str(&cfg.names[b.0]);
                }
            }
            out.push('\n');
            for e in &cy.entries {
                is_entry[e.0] = false;
            }
        }
        out
    }

    /// A canonical form of the hierarchy, independent of every order: the
    /// sorted list of (header, sorted entries, sorted blocks) per cycle.
    /// Parents are implied by block-set inclusion. Two hierarchies are the
    /// same (rule D-HIER) iff their canonical forms are equal.
    pub fn canonical(&self) -> Vec<(BlockId, Vec<BlockId>, Vec<BlockId>)> {
        let mut v: Vec<(BlockId, Vec<BlockId>, Vec<BlockId>)> = self
            .cycles
            .iter()
            .map(|c| {
                let mut e = c.entries.clone();
                e.sort();
                let mut b = c.blocks.clone();
                b.sort();
                (c.header(), e, b)
            })
            .collect();
        v.sort();
        v
    }
}

/// `ProcessPredecessors` of GenericCycleImpl.h: predecessors of `block` in
/// the candidate's DFS subtree join the worklist; a reachable predecessor
/// outside it makes `block` an entry of `cycle`.
fn process_predecessors(
    cfg: &Cfg,
    dfs: &Dfs,
    cand: usize,
    block: usize,
    worklist: &mut Vec<usize>,
    cycle: &mut Cycle,
) {
    let mut is_entry = false;
    for p in &cfg.preds[block] {
        if dfs.is_ancestor(cand, p.0) {
            worklist.push(p.0);
        } else if dfs.start[p.0] != 0 {
            is_entry = true;
        }
    }
    if is_entry {
        cycle.entries.push(BlockId(block));
    }
}

fn uf_find(uf: &mut [usize], x: usize) -> usize {
    let mut root = x;
    while uf[root] != root {
        root = uf[root];
    }
    let mut cur = x;
    while uf[cur] != root {
        let next = uf[cur];
        uf[cur] = root;
        cur = next;
    }
    root
}

/// LLVM's DFS (`GenericCycleInfoCompute::dfs`): successors explored in
/// reverse order; `start` is the 1-based preorder number (0 = unreachable),
/// `end` the largest preorder number in the block's subtree.
pub(crate) struct Dfs {
    pub(crate) start: Vec<u32>,
    pub(crate) end: Vec<u32>,
    pub(crate) preorder: Vec<usize>,
}

impl Dfs {
    pub(crate) fn run(cfg: &Cfg) -> Dfs {
        let n = cfg.len();
        let mut dfs = Dfs {
            start: vec![0; n],
            end: vec![0; n],
            preorder: Vec::with_capacity(n),
        };
        let mut counter = 0u32;
        // (block, number of successors not yet examined, counted from the end)
        let mut stack: Vec<(usize, usize)> = Vec::new();
        let mut open = |b: usize, dfs: &mut Dfs, stack: &mut Vec<(usize, usize)>| {
            counter += 1;
            dfs.start[b] = counter;
            dfs.preorder.push(b);
            stack.push((b, cfg.succs[b].len()));
        };
        open(0, &mut dfs, &mut stack);
        while let Some(&(b, left)) = stack.last() {
            let mut next = None;
            let mut left = left;
            while left > 0 {
                left -= 1;
                let s = cfg.succs[b][left].0;
                if dfs.start[s] == 0 {
                    next = Some(s);
                    break;
                }
            }
            if let Some(top) = stack.last_mut() {
                top.1 = left;
            }
            match next {
                Some(s) => open(s, &mut dfs, &mut stack),
                None => {
                    dfs.end[b] = dfs.preorder.len() as u32;
                    stack.pop();
                }
            }
        }
        dfs
    }

    /// `DFSInfo::isAncestorOf`: reflexive; false for unreachable `b`.
    pub(crate) fn is_ancestor(&self, a: usize, b: usize) -> bool {
        self.start[a] <= self.start[b] && self.end[b] <= self.end[a] && self.start[b] != 0
    }
}

/// Every cycle hierarchy the CFG admits over all DFS orders (rule D-HIER);
/// implemented in [`super::hierarchies`].
pub use super::hierarchies::all_hierarchies;
