//! Dominator and post-dominator trees.
//!
//! Two algorithms per tree (STYLE 13): a fast one used by every analysis and
//! the simple iterative data-flow algorithm kept as the oracle; a property
//! test cross-checks them on generated CFGs.

use super::Cfg;
use crate::ir::BlockId;

/// A dominator tree over the blocks reachable from the entry (or, for
/// post-dominators, over the blocks that reach an exit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomTree {
    /// Immediate dominator of each block; `None` for the root(s) and for
    /// blocks outside the tree (unreachable).
    pub idom: Vec<Option<BlockId>>,
    /// Whether the block is in the tree.
    pub in_tree: Vec<bool>,
}

impl DomTree {
    /// Dominators, fast algorithm.
    pub fn dominators(cfg: &Cfg) -> DomTree {
        let _ = cfg;
        todo!("cfg helper")
    }
    /// Dominators, simple iterative oracle.
    pub fn dominators_simple(cfg: &Cfg) -> DomTree {
        let _ = cfg;
        todo!("cfg helper")
    }
    /// Post-dominators with a virtual exit joining every block without
    /// successors; blocks that cannot reach an exit are outside the tree.
    pub fn post_dominators(cfg: &Cfg) -> DomTree {
        let _ = cfg;
        todo!("cfg helper")
    }
    /// Post-dominators, simple iterative oracle.
    pub fn post_dominators_simple(cfg: &Cfg) -> DomTree {
        let _ = cfg;
        todo!("cfg helper")
    }
    /// Reflexive dominance. Follows LLVM: a block outside the tree is
    /// dominated by every block; a block outside the tree dominates only itself.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let _ = (a, b);
        todo!("cfg helper")
    }
    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a != b && self.dominates(a, b)
    }
    pub fn is_in_tree(&self, b: BlockId) -> bool {
        self.in_tree[b.0]
    }
}
