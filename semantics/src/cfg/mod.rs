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

use compact_str::ToCompactString;

use crate::ir::{BlockId, CompactString, Function, Name};

/// The CFG of one function, with orders that match LLVM's so that analyses
/// that depend on traversal order (GenericCycleInfo) print what `opt` prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    /// Successors of each block in terminator operand order, duplicates kept.
    pub succs: Vec<Vec<BlockId>>,
    /// Predecessors of each block in LLVM's use-list order: a block's uses
    /// are prepended as terminators are parsed, so predecessors come in
    /// reverse textual order of the terminators that name the block (one
    /// entry per use, duplicates kept).
    pub preds: Vec<Vec<BlockId>>,
    /// Block names as LLVM's analyses print them (`entry`, `7`), inline up
    /// to 24 bytes (no allocation per block; issue 17 item 8).
    pub names: Vec<CompactString>,
}

impl Cfg {
    pub fn from_function(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let succs: Vec<Vec<BlockId>> = f.blocks.iter().map(|b| b.term.successors()).collect();
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in succs.iter().enumerate() {
            for s in ss {
                preds[s.0].push(BlockId(b));
            }
        }
        for p in &mut preds {
            p.reverse();
        }
        let names = f
            .blocks
            .iter()
            .map(|b| match &b.name {
                Name::Named(s) => s.clone(),
                Name::Numbered(n) => n.to_compact_string(),
            })
            .collect();
        Cfg {
            succs,
            preds,
            names,
        }
    }

    /// Builds a CFG from successor lists alone (tests, generators);
    /// predecessors follow the same reverse-use order as [`Cfg::from_function`].
    pub fn from_succs(succs: Vec<Vec<usize>>) -> Cfg {
        let n = succs.len();
        let succs: Vec<Vec<BlockId>> = succs
            .into_iter()
            .map(|v| v.into_iter().map(BlockId).collect())
            .collect();
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in succs.iter().enumerate() {
            for s in ss {
                preds[s.0].push(BlockId(b));
            }
        }
        for p in &mut preds {
            p.reverse();
        }
        Cfg {
            succs,
            preds,
            names: (0..n).map(|i| format!("b{i}").into()).collect(),
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

pub mod cycles;
pub mod dom;
pub mod hierarchies;
mod witness;

pub use cycles::{all_hierarchies, Cycle, CycleId, CycleInfo};
pub use dom::DomTree;
pub use hierarchies::{all_hierarchies_checked, Hierarchies};
