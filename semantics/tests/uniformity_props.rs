//! Property tests of the uniformity analysis that need no oracle:
//! - the modified post-order of GenericUniformityImpl.h (every reachable
//!   block once; every cycle a contiguous interval starting at its header;
//!   edges between blocks that share no cycle go backwards) on arbitrary
//!   CFGs from `testgen::cfg` (rule U-BRANCH relies on it);
//! - U-SOURCE and U-FIX closure on generated programs: thread ids are
//!   divergent; every instruction that reads a divergent value is divergent
//!   unless always uniform; every phi of a join of a divergent branch that
//!   merges different values is divergent (U-PHI).

use testgen::support as unif_support;

use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};
use semantics::cfg::{Cfg, CycleInfo};
use semantics::ir::{BlockId, InstKind, Module, Operand};
use semantics::uniformity::analysis::{operands_of, Analysis, InstRef};
use semantics::uniformity::cfg_facts::{outermost_divergent_cycle, CycleFacts, JoinCycles};
use semantics::uniformity::sync::{join_points, ModifiedPostOrder};
use testgen::uniformity::arb_function;
use unif_support::ugen;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// U-BRANCH: the modified post-order's invariants.
    #[test]
    fn modified_post_order_invariants(g in testgen::cfg::arb_cfg(12)) {
        let cfg = Cfg::from_succs(g.succs());
        let ci = CycleInfo::compute(&cfg);
        let mpo = ModifiedPostOrder::compute(&cfg, &ci);
        let reach = reachable(&cfg);
        // Every reachable block exactly once, nothing else.
        let mut seen = vec![0; cfg.len()];
        for b in &mpo.order {
            seen[b.0] += 1;
        }
        for b in 0..cfg.len() {
            prop_assert_eq!(seen[b], usize::from(reach[b]));
        }
        // Each cycle: an interval whose first element is the header.
        for c in &ci.cycles {
            let idx: Vec<usize> = c.blocks.iter().map(|b| mpo.index[b.0].expect("cycle blocks are reachable")).collect();
            let lo = *idx.iter().min().expect("cycles are not empty");
            let hi = *idx.iter().max().expect("cycles are not empty");
            prop_assert_eq!(hi - lo + 1, c.blocks.len());
            prop_assert_eq!(mpo.index[c.header().0], Some(lo));
            prop_assert_eq!(mpo.reducible_header[c.header().0], c.is_reducible());
        }
        // Edges between blocks with no common cycle go to earlier indices.
        for (u, &reached) in reach.iter().enumerate() {
            if !reached {
                continue;
            }
            for v in &cfg.succs[u] {
                let common = ci.cycles_containing(BlockId(u)).iter().any(|&c| ci.contains(c, *v));
                if !common {
                    prop_assert!(mpo.index[u] > mpo.index[v.0], "edge {} -> {} goes forward", u, v.0);
                }
            }
        }
    }

    /// U-MCONV: the tabulated `getOutermostDivergentCycle` the analysis
    /// uses answers as the direct walk for every (branch, join) pair, and
    /// the level-ancestor query as binary lifting, on arbitrary CFGs (many
    /// nested irreducible cycles).
    #[test]
    fn divergent_cycle_table_matches_direct_walk(g in testgen::cfg::arb_cfg(14)) {
        let cfg = Cfg::from_succs(g.succs());
        let dt = semantics::cfg::DomTree::dominators(&cfg);
        let ci = CycleInfo::compute(&cfg);
        let facts = CycleFacts::new(&cfg, &ci);
        let mut table = JoinCycles::new(cfg.len());
        for branch in (0..cfg.len()).map(BlockId) {
            for join in (0..cfg.len()).map(BlockId) {
                prop_assert_eq!(
                    table.outermost_divergent_cycle(&facts, &dt, branch, join),
                    outermost_divergent_cycle(&facts, &dt, branch, join),
                    "branch {} join {}", branch.0, join.0
                );
            }
        }
        for (c, cy) in ci.cycles.iter().enumerate() {
            for d in 1..=cy.depth {
                let c = semantics::cfg::CycleId(c);
                prop_assert_eq!(facts.ancestor_at_depth(c, d), facts.ancestor_by_lifting(c, d));
            }
        }
    }

    /// U-SOURCE, U-FIX, U-PHI: the result is closed under propagation.
    #[test]
    fn divergence_is_closed_under_propagation(u in arb_function()) {
        let mut m = Module::default();
        m.functions.push(ugen::build(&u));
        m.functions.extend(ugen::declarations());
        let f = &m.functions[0];
        let cfg = Cfg::from_function(f);
        let dt = semantics::cfg::DomTree::dominators(&cfg);
        let ci = CycleInfo::compute(&cfg);
        let mut a = Analysis::new(&m, f, &cfg, &dt, &ci);
        a.run();
        let always_uniform = |inst: &semantics::ir::Inst| matches!(&inst.kind, InstKind::Call(c) if c.callee_name().is_some_and(|n| n.contains("readfirstlane")));
        for b in f.block_ids() {
            let blk = f.block(b);
            for (i, inst) in blk.insts.iter().enumerate() {
                let r = InstRef { block: b, index: i };
                let reads_divergent = operands_of(f, r).iter().any(|o| matches!(o, Operand::Local(v) if a.is_divergent_value(*v)));
                if always_uniform(inst) {
                    prop_assert!(!a.div_insts[b.0][i], "always-uniform readfirstlane marked divergent");
                } else if reads_divergent {
                    prop_assert!(a.div_insts[b.0][i], "{} reads a divergent value but is uniform", i);
                }
                if matches!(&inst.kind, InstKind::Call(c) if c.callee_name() == Some("llvm.amdgcn.workitem.id.x")) {
                    prop_assert!(a.div_insts[b.0][i], "thread id uniform");
                }
            }
            let term = InstRef { block: b, index: blk.insts.len() };
            // U-EXIT / D-TEMPORAL: a uniform value defined in a cycle with a
            // divergent exit is read divergently by a terminator outside it.
            let temporal_use = a.temporal.iter().any(|(_, user, _)| *user == term);
            let cond_divergent = temporal_use || operands_of(f, term).iter().any(|o| matches!(o, Operand::Local(v) if a.is_divergent_value(*v)));
            prop_assert_eq!(a.div_term[b.0], cond_divergent, "U-BRANCH: a branch is divergent iff its condition is (block {})\n{}", b.0, semantics::ir::print::print_function(f));
            if !a.div_term[b.0] || !dt.is_in_tree(b) {
                continue;
            }
            let mpo = ModifiedPostOrder::compute(&cfg, &ci);
            for j in join_points(&cfg, &ci, &mpo, b).join_blocks {
                for (k, inst) in f.block(j).insts.iter().enumerate() {
                    if let InstKind::Phi { incoming, .. } = &inst.kind {
                        let first = &incoming[0].0;
                        let merges_different = incoming.iter().any(|(o, _)| o != first && inst.result.map(Operand::Local).as_ref() != Some(o));
                        if merges_different && !matches!(first.as_const(), Some(semantics::ir::Const::Undef)) {
                            prop_assert!(a.div_insts[j.0][k], "U-PHI: phi at join {} of divergent branch {} is uniform", j.0, b.0);
                        }
                    }
                }
            }
        }
    }
}

fn reachable(cfg: &Cfg) -> Vec<bool> {
    let mut seen = vec![false; cfg.len()];
    let mut stack = vec![0usize];
    if cfg.is_empty() {
        return seen;
    }
    seen[0] = true;
    while let Some(b) = stack.pop() {
        for s in &cfg.succs[b] {
            if !seen[s.0] {
                seen[s.0] = true;
                stack.push(s.0);
            }
        }
    }
    seen
}
