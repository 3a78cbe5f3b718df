//! Rule S-REGION (ConvergentOperations.rst "Convergence Regions"): the
//! convergence region of token T is the set of program points dominated by
//! T's definition from which a use of T can be reached (without passing the
//! definition again: T is live there). If the region of T1 contains a use
//! of T2, it also contains T2's definition.
//!
//! A program point is "just before instruction i of block b". Liveness is
//! computed per token by a backward walk from its uses, so the cost is the
//! size of the regions, not tokens x blocks.

use crate::ir::BlockId;

use super::facts::{FnFacts, TokenUse};
use super::local::MSG_REGION;
use super::{Role, RuleId, Violation};

/// Liveness of one token: which blocks it is live out of / into.
struct Live {
    stamp: u32,
    live_in: Vec<u32>,
    live_out: Vec<u32>,
}

impl Live {
    fn is_in(&self, b: BlockId) -> bool {
        self.live_in[b.0] == self.stamp
    }
    fn is_out(&self, b: BlockId) -> bool {
        self.live_out[b.0] == self.stamp
    }
}

/// Rule S-REGION: convergence regions are well nested.
pub fn s_region(facts: &FnFacts, out: &mut Vec<Violation>) {
    let n = facts.func.blocks.len();
    // Token uses per token and per block (indices into facts.uses).
    let mut by_token: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    let mut by_block: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, u) in facts.uses.iter().enumerate() {
        by_token.entry(u.token.0).or_default().push(k);
        by_block[u.block.0].push(k);
    }
    let mut live = Live {
        stamp: 0,
        live_in: vec![0; n],
        live_out: vec![0; n],
    };
    for uses in by_token.values() {
        let t1 = facts.uses[uses[0]];
        let def = (t1.def_block, t1.def_inst);
        live.stamp += 1;
        // Backward walk from the uses.
        let mut work: Vec<BlockId> = Vec::new();
        let mut touched: Vec<BlockId> = vec![def.0];
        for &k in uses {
            let u = facts.uses[k];
            if u.block != def.0 && live.live_in[u.block.0] != live.stamp {
                live.live_in[u.block.0] = live.stamp;
                work.push(u.block);
                touched.push(u.block);
            }
        }
        while let Some(b) = work.pop() {
            for p in &facts.cfg.preds[b.0] {
                if live.live_out[p.0] != live.stamp {
                    live.live_out[p.0] = live.stamp;
                    touched.push(*p);
                }
                if *p != def.0 && live.live_in[p.0] != live.stamp {
                    live.live_in[p.0] = live.stamp;
                    work.push(*p);
                }
            }
        }
        touched.sort();
        touched.dedup();
        let in_region = |b: BlockId, i: usize| -> bool {
            let dominated = if b == def.0 {
                i > def.1
            } else {
                facts.reachable[b.0] && facts.dominates(def.0, b)
            };
            if !dominated {
                return false;
            }
            live.is_out(b)
                || uses.iter().any(|&k| {
                    let u = facts.uses[k];
                    u.block == b && u.inst >= i
                })
        };
        for &b in &touched {
            if !(live.is_in(b) || live.is_out(b) || b == def.0) {
                continue;
            }
            for &k in &by_block[b.0] {
                let u2: TokenUse = facts.uses[k];
                if u2.token == t1.token || !in_region(b, u2.inst) {
                    continue;
                }
                if in_region(u2.def_block, u2.def_inst) {
                    continue;
                }
                let t1n = super::print::print_value(facts.func, t1.token);
                let t2n = super::print::print_value(facts.func, u2.token);
                out.push(facts.violation(
                    RuleId::SRegion,
                    u2.block,
                    Some(u2.inst),
                    format!(
                        "S-REGION: the convergence region of {t1n} contains this use of {t2n} but not {t2n}'s definition"
                    ),
                    Some(MSG_REGION),
                    vec![
                        facts.text(u2.def_block, u2.def_inst),
                        facts.text(u2.block, u2.inst),
                    ],
                    vec![
                        facts.site(Role::Use, u2.block, Some(u2.inst)),
                        facts.site(Role::Definition, u2.def_block, Some(u2.def_inst)),
                        facts.site(Role::Earlier, def.0, Some(def.1)),
                    ],
                ));
            }
        }
    }
}
