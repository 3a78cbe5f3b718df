//! Control-flow graph facts: successor/predecessor lists in LLVM's order,
//! dominator and post-dominator trees, and cycle hierarchies.
//!
//! | concept                                   | module            | oracle / test |
//! |-------------------------------------------|-------------------|---------------|
//! | dominators, post-dominators (semi-NCA)    | [`dom`]           | iterative data-flow, `tests/dom_oracle.rs` |
//! | LLVM's cycle hierarchy (GenericCycleInfo) | [`cycles`]        | opt-22 `print<cycles>`, `tests/cycles_opt.rs`, `tests/cycles_corpus.rs` |
//! | every hierarchy over all DFS orders (D-HIER) | [`hierarchies`] (the DFS witness search in `witness`) | brute force over successor orders, `tests/cycle_hierarchies.rs` |
//!
//! Cost: dominators and [`CycleInfo::compute`] are near-linear in blocks and
//! edges plus the size of the output (each cycle lists its nested blocks, so
//! the output is the sum of the cycle sizes); `tests/cycles_scale.rs` times
//! them on 20,000-block CFGs.

use std::fmt::Write;
use std::ops::{Index, IndexMut};

use crate::ir::{BlockId, Function, Name};

/// The CFG of one function, with orders that match LLVM's so that analyses
/// that depend on traversal order (GenericCycleInfo) print what `opt` prints.
///
/// Every per-block list lives in one array ([`Adjacency`], [`Names`]):
/// a vector per block cost an allocation and 24 bytes of header each
/// (issue 17 item 8: a function of 1,000,000 blocks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    /// Successors of each block in terminator operand order, duplicates kept.
    pub succs: Adjacency,
    /// Predecessors of each block in LLVM's use-list order: a block's uses
    /// are prepended as terminators are parsed, so predecessors come in
    /// reverse textual order of the terminators that name the block (one
    /// entry per use, duplicates kept).
    pub preds: Adjacency,
    /// Block names as LLVM's analyses print them (`entry`, `7`).
    pub names: Names,
}

impl Cfg {
    pub fn from_function(f: &Function) -> Cfg {
        let mut cfg = Cfg::from_function_unnamed(f);
        cfg.names = Names::of_blocks(f);
        cfg
    }

    /// [`Cfg::from_function`] without the block names (`names` empty), for
    /// analyses that print nothing until their tables are gone: the caller
    /// sets `names` with [`Names::of_blocks`] before printing (memory on
    /// long functions: the names take about 12 bytes a block).
    pub fn from_function_unnamed(f: &Function) -> Cfg {
        let succs = Adjacency::from_fn(f.blocks.len(), |b, out| match &f.blocks[b].term.kind {
            crate::ir::TermKind::Br(t) => out.push(*t),
            crate::ir::TermKind::CondBr {
                on_true, on_false, ..
            } => out.extend([*on_true, *on_false]),
            crate::ir::TermKind::Switch { default, cases, .. } => {
                out.push(*default);
                out.extend(cases.iter().map(|(_, t)| *t));
            }
            crate::ir::TermKind::Ret(_) | crate::ir::TermKind::Unreachable => {}
        });
        debug_assert!(f
            .blocks
            .iter()
            .enumerate()
            .all(|(b, blk)| blk.term.successors() == succs[b]));
        let preds = succs.reversed();
        Cfg {
            succs,
            preds,
            names: Names::default(),
        }
    }

    /// Builds a CFG from successor lists alone (tests, generators);
    /// predecessors follow the same reverse-use order as [`Cfg::from_function`].
    pub fn from_succs(succs: Vec<Vec<usize>>) -> Cfg {
        let n = succs.len();
        let succs =
            Adjacency::from_fn(n, |b, out| out.extend(succs[b].iter().map(|&s| BlockId(s))));
        let preds = succs.reversed();
        let mut names = Names::with_capacity(n);
        for i in 0..n {
            names.push_fmt(format_args!("b{i}"));
        }
        Cfg {
            succs,
            preds,
            names,
        }
    }

    /// The same CFG with other successor lists (a permutation of each
    /// block's, as the D-HIER searches make): the predecessors are kept.
    pub fn with_succs(&self, succs: Vec<Vec<BlockId>>) -> Cfg {
        Cfg {
            succs: Adjacency::from_lists(succs),
            preds: self.preds.clone(),
            names: self.names.clone(),
        }
    }

    pub fn len(&self) -> usize {
        self.succs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }
    pub fn entry(&self) -> BlockId {
        BlockId(0)
    }
}

/// A list of blocks per block, all in one array (compressed rows): the
/// list of block `b` is `list[start[b]..start[b + 1]]`. Index it like a
/// `Vec<Vec<BlockId>>`: `adj[b]` is a slice.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Adjacency {
    start: Vec<u32>,
    list: Vec<BlockId>,
}

impl Adjacency {
    /// The lists of blocks `0..n`, each written by `fill(b, out)`.
    pub fn from_fn(n: usize, mut fill: impl FnMut(usize, &mut Vec<BlockId>)) -> Adjacency {
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(n + n / 2);
        for b in 0..n {
            start.push(Self::offset(list.len()));
            fill(b, &mut list);
        }
        start.push(Self::offset(list.len()));
        list.shrink_to_fit();
        Adjacency { start, list }
    }

    pub fn from_lists(lists: Vec<Vec<BlockId>>) -> Adjacency {
        Adjacency::from_fn(lists.len(), |b, out| out.extend_from_slice(&lists[b]))
    }

    /// The lists as one vector per block.
    pub fn to_lists(&self) -> Vec<Vec<BlockId>> {
        self.iter().map(<[BlockId]>::to_vec).collect()
    }

    fn offset(len: usize) -> u32 {
        u32::try_from(len).expect("P-PROG: a function has fewer than 2^32 CFG edges")
    }

    /// The reverse lists: `b` lists `a` once per occurrence of `b` in `a`'s
    /// list, the `a`s in decreasing order (LLVM's use-list order for
    /// predecessors: uses are prepended as terminators are parsed).
    pub fn reversed(&self) -> Adjacency {
        let n = self.len();
        let mut count = vec![0u32; n + 1];
        for s in &self.list {
            count[s.0 + 1] += 1;
        }
        for b in 0..n {
            count[b + 1] += count[b];
        }
        let start = count.clone();
        let mut next = count;
        let mut list = vec![BlockId(0); self.list.len()];
        for a in (0..n).rev() {
            for s in &self[a] {
                list[next[s.0] as usize] = BlockId(a);
                next[s.0] += 1;
            }
        }
        Adjacency { start, list }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The lists in block order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[BlockId]> + '_ {
        (0..self.len()).map(move |b| &self[b])
    }
}

impl Index<usize> for Adjacency {
    type Output = [BlockId];
    fn index(&self, b: usize) -> &[BlockId] {
        &self.list[self.start[b] as usize..self.start[b + 1] as usize]
    }
}

/// Lists keep their length: a list can be permuted in place.
impl IndexMut<usize> for Adjacency {
    fn index_mut(&mut self, b: usize) -> &mut [BlockId] {
        &mut self.list[self.start[b] as usize..self.start[b + 1] as usize]
    }
}

impl<'a> IntoIterator for &'a Adjacency {
    type Item = &'a [BlockId];
    type IntoIter = Box<dyn ExactSizeIterator<Item = &'a [BlockId]> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// One string per block, all in one buffer: `names[b]` is a `&str`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Names {
    text: String,
    end: Vec<u32>,
}

impl Names {
    /// The names of `f`'s blocks as LLVM's analyses print them.
    pub fn of_blocks(f: &Function) -> Names {
        let mut names = Names::with_capacity(f.blocks.len());
        for b in &f.blocks {
            match &b.name {
                Name::Named(s) => names.push(s),
                Name::Numbered(n) => names.push_fmt(format_args!("{n}")),
            }
        }
        names
    }

    fn with_capacity(n: usize) -> Names {
        Names {
            text: String::with_capacity(n * 4),
            end: Vec::with_capacity(n),
        }
    }
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.end.push(Adjacency::offset(self.text.len()));
    }
    fn push_fmt(&mut self, args: std::fmt::Arguments) {
        let _ = self.text.write_fmt(args);
        self.end.push(Adjacency::offset(self.text.len()));
    }
    pub fn len(&self) -> usize {
        self.end.len()
    }
    pub fn is_empty(&self) -> bool {
        self.end.is_empty()
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(move |b| &self[b])
    }
}

impl Index<usize> for Names {
    type Output = str;
    fn index(&self, b: usize) -> &str {
        let from = if b == 0 { 0 } else { self.end[b - 1] as usize };
        &self.text[from..self.end[b] as usize]
    }
}

pub mod cycles;
pub mod dom;
pub mod hierarchies;
mod witness;

pub use cycles::{all_hierarchies, Cycle, CycleId, CycleInfo};
pub use dom::DomTree;
pub use hierarchies::{all_hierarchies_checked, Hierarchies};
