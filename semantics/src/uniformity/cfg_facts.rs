//! The CFG facts the uniformity analysis reads: reachability, dominance and
//! LLVM's cycle hierarchy, with the queries GenericUniformityImpl.h makes
//! (`DT.dominates`, `DT.properlyDominates`, `CI.getCycle`,
//! `Cycle::contains`, `Cycle::getExitBlocks`).
//!
//! The facts come from [`crate::cfg`] ([`DomTree::dominators`],
//! [`CycleInfo::compute`], both checked against `opt-22` there); this module
//! only phrases the queries the way GenericUniformityImpl.h asks them.

use crate::cfg::{Cfg, CycleId, CycleInfo, DomTree};
use crate::ir::BlockId;

/// `DT.dominates(A, B)` (reflexive; a block unreachable from the entry is
/// dominated by every block and dominates only itself), as
/// [`DomTree::dominates`] answers it.
pub fn dominates(dt: &DomTree, a: BlockId, b: BlockId) -> bool {
    dt.dominates(a, b)
}

/// `DT.properlyDominates(A, B)`: dominance with `A != B`.
pub fn properly_dominates(dt: &DomTree, a: BlockId, b: BlockId) -> bool {
    a != b && dt.dominates(a, b)
}

/// `Cycle::contains(Block)`.
pub fn cycle_contains(ci: &CycleInfo, c: CycleId, b: BlockId) -> bool {
    ci.contains(c, b)
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
