//! Cycle hierarchies, built exactly as LLVM's GenericCycleInfo builds them
//! (DFS in successor order, headers by reverse preorder), so that the text
//! printed matches `opt -passes='print<cycles>'`; and the enumeration of every
//! hierarchy the CFG admits (rule D-HIER).

use super::Cfg;
use crate::ir::BlockId;

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
    /// Innermost cycle containing each block.
    pub innermost: Vec<Option<CycleId>>,
}

impl CycleInfo {
    /// LLVM's GenericCycleInfo on `cfg`.
    pub fn compute(cfg: &Cfg) -> CycleInfo {
        let _ = cfg;
        todo!("cfg helper")
    }
    pub fn cycle(&self, c: CycleId) -> &Cycle {
        &self.cycles[c.0]
    }
    /// The cycles containing `b`, innermost first.
    pub fn cycles_containing(&self, b: BlockId) -> Vec<CycleId> {
        let mut out = Vec::new();
        let mut c = self.innermost[b.0];
        while let Some(id) = c {
            out.push(id);
            c = self.cycles[id.0].parent;
        }
        out
    }
    /// The body of `opt -passes='print<cycles>'` for one function (without
    /// the `CycleInfo for function:` line).
    pub fn print(&self, cfg: &Cfg) -> String {
        let _ = cfg;
        todo!("cfg helper")
    }
}

/// Every cycle hierarchy the CFG admits over all DFS orders, deduplicated
/// (rule D-HIER). The first element is LLVM's. At most `limit` are returned.
pub fn all_hierarchies(cfg: &Cfg, limit: usize) -> Vec<CycleInfo> {
    let _ = (cfg, limit);
    todo!("cfg helper")
}
