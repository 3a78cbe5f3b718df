//! Rule D-HIER in the refinement checker: an implementation may pick any
//! cycle hierarchy of an irreducible CFG, so a program's behaviours are the
//! union over its hierarchies (R-BEHAV). The encoding (M-AXIOM) keys
//! uncontrolled operations by the iteration counters of the enclosing
//! cycles of one hierarchy (D-MAX-ITER); with several hierarchies, a
//! selector variable per execution picks one ([`crate::refine::encode`]):
//! the target's is part of the execution CEGIS proposes (every target
//! hierarchy is tried), the source's is one of its choices (some source
//! hierarchy must match). `--hierarchy llvm` keeps LLVM's hierarchy alone.
//!
//! The hierarchies come from `semantics::cfg::all_hierarchies_checked`, the
//! enumeration the interpreter uses (LLVM's first); past
//! [`HIERARCHY_LIMIT`] the check answers unknown.

use semantics::cfg::{all_hierarchies_checked, Cfg, CycleId, CycleInfo};
use semantics::ir::{BlockId, Function};

/// Which cycle hierarchies the checker considers (D-HIER).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HierarchyMode {
    /// LLVM's hierarchy alone (GenericCycleInfo's DFS order).
    Llvm,
    /// Every hierarchy of each program (D-HIER).
    All,
}

impl HierarchyMode {
    /// The word of `--hierarchy`.
    pub fn as_str(self) -> &'static str {
        match self {
            HierarchyMode::Llvm => "llvm",
            HierarchyMode::All => "all",
        }
    }
}

/// At most this many hierarchies per program are encoded; more answers
/// unknown (real CFGs have few: one per choice of entry of each
/// irreducible region).
pub const HIERARCHY_LIMIT: usize = 8;

/// One cycle hierarchy as the encoding reads it.
#[derive(Clone, Debug)]
pub struct Hier {
    pub cycles: CycleInfo,
    /// Per block, its enclosing cycles and their headers, outermost first
    /// (D-MAX-ITER).
    pub enclosing: Vec<Vec<(usize, BlockId)>>,
}

/// Per block, the cycles of `cycles` containing it with their headers,
/// outermost first (an outer cycle contains more blocks).
pub fn enclosing(func: &Function, cycles: &CycleInfo) -> Vec<Vec<(usize, BlockId)>> {
    let nb = func.blocks.len();
    (0..nb)
        .map(|b| {
            let mut cs: Vec<(usize, BlockId)> = cycles
                .cycles_containing(BlockId(b))
                .into_iter()
                .map(|c| (c.0, cycles.cycle(c).header()))
                .collect();
            cs.sort_by_key(|(c, _)| {
                std::cmp::Reverse(
                    (0..nb)
                        .filter(|x| cycles.contains(CycleId(*c), BlockId(*x)))
                        .count(),
                )
            });
            cs
        })
        .collect()
}

/// Too many hierarchies to encode (or the enumeration's search bound was
/// hit): how many were found, and whether that count is complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooMany {
    pub found: usize,
    pub complete: bool,
}

/// The hierarchies of `func` the mode asks for, LLVM's first.
pub fn hierarchies(func: &Function, mode: HierarchyMode) -> Result<Vec<Hier>, TooMany> {
    let cfg = Cfg::from_function(func);
    let all = match mode {
        HierarchyMode::Llvm => vec![CycleInfo::compute(&cfg)],
        HierarchyMode::All => {
            let h = all_hierarchies_checked(&cfg, HIERARCHY_LIMIT + 1);
            if h.hierarchies.len() > HIERARCHY_LIMIT || !h.complete {
                return Err(TooMany {
                    found: h.hierarchies.len(),
                    complete: h.complete && h.hierarchies.len() <= HIERARCHY_LIMIT,
                });
            }
            h.hierarchies
        }
    };
    Ok(all
        .into_iter()
        .map(|cycles| Hier {
            enclosing: enclosing(func, &cycles),
            cycles,
        })
        .collect())
}
