//! The static rules about cycles, S-CYCLE-1..4 (ConvergentOperations.rst
//! "Static Rules" / "Closed Paths"), checked two ways:
//!
//! - over the cycles of LLVM's cycle hierarchy ([`s_cycle_1`] ..
//!   [`s_cycle_4`]), which the documents say suffices (S-CYCLE-SUFF);
//! - by brute force over every closed path of at most N edges
//!   ([`closed_paths`]), the literal reading of the rules and the oracle
//!   of meta-claim MC-03.
//!
//! Both report one violation per *key*: the rule and the token uses
//! involved, so the two can be compared as sets. A closed path is
//! identified by the set of blocks it visits: every rule depends only on
//! which blocks (and so which uses and definitions) the path contains.

use std::collections::{BTreeMap, HashSet};

use crate::cfg::CycleId;
use crate::ir::BlockId;

use super::facts::{CtrlKind, FnFacts, TokenUse};
use super::print::{print_block_operand, print_cycle};
use super::{Role, RuleId, Violation};

pub const MSG_CYCLE_USE: &str = "Convergence token used by an instruction other than llvm.experimental.convergence.loop in a cycle that does not contain the token's definition.";
pub const MSG_HEART_DOM: &str = "Cycle heart must dominate all blocks in the cycle.";
pub const MSG_TWO_HEARTS: &str =
    "Two static convergence token uses in a cycle that does not contain either token's definition.";

/// A region of the CFG a rule is checked on: a cycle of the hierarchy or
/// the block set of a closed path.
struct Region {
    blocks: Vec<BlockId>,
    cycle: Option<CycleId>,
    /// `closed path through: B C D` for closed paths.
    path_text: Option<String>,
}

impl Region {
    /// Printed as LLVM prints a cycle, or as the closed path's blocks.
    fn text(&self, facts: &FnFacts) -> String {
        match (self.cycle, &self.path_text) {
            (Some(c), _) => print_cycle(facts.func, facts.doc_cycles(), c),
            (None, Some(t)) => t.clone(),
            (None, None) => String::new(),
        }
    }
}

/// Reusable membership marks and the token uses of each block, so that a
/// region costs its own size, not the function's.
struct Scratch {
    mark: Vec<u32>,
    stamp: u32,
    uses_by_block: Vec<Vec<usize>>,
}

impl Scratch {
    fn new(facts: &FnFacts) -> Scratch {
        let n = facts.func.blocks.len();
        let mut uses_by_block = vec![Vec::new(); n];
        for (k, u) in facts.uses.iter().enumerate() {
            uses_by_block[u.block.0].push(k);
        }
        Scratch {
            mark: vec![0; n],
            stamp: 0,
            uses_by_block,
        }
    }
}

/// The uses inside `r` of tokens defined outside `r`, in layout order.
fn outside_uses(facts: &FnFacts, r: &Region, sc: &mut Scratch) -> Vec<TokenUse> {
    sc.stamp += 1;
    for b in &r.blocks {
        sc.mark[b.0] = sc.stamp;
    }
    let mut out: Vec<TokenUse> = Vec::new();
    for b in &r.blocks {
        for &k in &sc.uses_by_block[b.0] {
            let u = facts.uses[k];
            if sc.mark[u.def_block.0] != sc.stamp {
                out.push(u);
            }
        }
    }
    out.sort_by_key(|u| (u.block, u.inst));
    out
}

/// Identity of a violation for deduplication and for MC-03.
type Key = (RuleId, Vec<(BlockId, usize)>);

fn use_sites(facts: &FnFacts, us: &[TokenUse]) -> Vec<super::Site> {
    let mut sites: Vec<super::Site> = us
        .iter()
        .map(|u| facts.site(Role::Use, u.block, Some(u.inst)))
        .collect();
    let mut defs: Vec<(BlockId, usize)> = us.iter().map(|u| (u.def_block, u.def_inst)).collect();
    defs.dedup();
    for (db, di) in defs {
        sites.push(facts.site(Role::Definition, db, Some(di)));
    }
    sites
}

/// The four checks on one region; pushes violations whose key is new.
fn check_region(
    facts: &FnFacts,
    r: &Region,
    which: &[RuleId],
    seen: &mut HashSet<Key>,
    sc: &mut Scratch,
    out: &mut Vec<Violation>,
) {
    let us = outside_uses(facts, r, sc);
    if us.is_empty() {
        return;
    }
    let text = r.text(facts);
    let mut push = |rule: RuleId, key_uses: &[TokenUse], v: Violation| {
        let mut k: Vec<(BlockId, usize)> = key_uses.iter().map(|u| (u.block, u.inst)).collect();
        k.sort();
        if seen.insert((rule, k)) {
            let mut v = v;
            v.cycle = Some(text.clone());
            out.push(v);
        }
    };
    let tok = |u: &TokenUse| crate::rules::print::print_value(facts.func, u.token);
    for u in &us {
        if which.contains(&RuleId::SCycle1) && u.user_kind != Some(CtrlKind::Loop) {
            let v = facts.violation(
                RuleId::SCycle1,
                u.block,
                Some(u.inst),
                format!(
                    "S-CYCLE-1: a closed path through this use of {} (not by a loop intrinsic) avoids the token's definition",
                    tok(u)
                ),
                Some(MSG_CYCLE_USE),
                vec![facts.text(u.block, u.inst), text.clone()],
                use_sites(facts, std::slice::from_ref(u)),
            );
            push(RuleId::SCycle1, std::slice::from_ref(u), v);
        }
        if which.contains(&RuleId::SCycle4) {
            let bad = r
                .blocks
                .iter()
                .copied()
                .find(|x| !facts.dominates(u.block, *x));
            if let Some(x) = bad {
                let mut sites = use_sites(facts, std::slice::from_ref(u));
                sites.push(facts.site(Role::NotDominated, x, None));
                let v = facts.violation(
                    RuleId::SCycle4,
                    u.block,
                    Some(u.inst),
                    format!(
                        "S-CYCLE-4: this use of {} lies on a closed path without the token's definition but does not dominate block %{} of it",
                        tok(u),
                        facts.func.block_name(x)
                    ),
                    Some(MSG_HEART_DOM),
                    vec![
                        facts.text(u.block, u.inst),
                        print_block_operand(facts.func, u.block),
                        text.clone(),
                    ],
                    sites,
                );
                push(RuleId::SCycle4, std::slice::from_ref(u), v);
            }
        }
    }
    for (a, u1) in us.iter().enumerate() {
        for u2 in &us[a + 1..] {
            let rule = if u1.token == u2.token {
                RuleId::SCycle2
            } else {
                RuleId::SCycle3
            };
            if !which.contains(&rule) {
                continue;
            }
            let msg = if rule == RuleId::SCycle2 {
                format!(
                    "S-CYCLE-2: a closed path through two uses of {} avoids its definition",
                    tok(u1)
                )
            } else {
                format!(
                    "S-CYCLE-3: a closed path through uses of {} and {} avoids both definitions",
                    tok(u1),
                    tok(u2)
                )
            };
            let pair = [*u1, *u2];
            let v = facts.violation(
                rule,
                u2.block,
                Some(u2.inst),
                msg,
                Some(MSG_TWO_HEARTS),
                vec![
                    facts.text(u2.block, u2.inst),
                    facts.text(u1.block, u1.inst),
                    text.clone(),
                ],
                use_sites(facts, &pair),
            );
            push(rule, &pair, v);
        }
    }
}

/// The cycles of LLVM's hierarchy, innermost first (so a violation is
/// reported at the smallest cycle that shows it).
fn cycle_regions(facts: &FnFacts) -> Vec<Region> {
    let ci = facts.doc_cycles();
    let mut ids: Vec<CycleId> = (0..ci.cycles.len()).map(CycleId).collect();
    ids.sort_by_key(|c| std::cmp::Reverse(ci.cycle(*c).depth));
    ids.into_iter()
        .map(|c| Region {
            blocks: ci.cycle(c).blocks.clone(),
            cycle: Some(c),
            path_text: None,
        })
        .collect()
}

fn by_cycles(facts: &FnFacts, rule: RuleId, out: &mut Vec<Violation>) {
    let mut seen = HashSet::new();
    let mut sc = Scratch::new(facts);
    for r in cycle_regions(facts) {
        check_region(facts, &r, &[rule], &mut seen, &mut sc, out);
    }
}

/// Rule S-CYCLE-1: every closed path through a use of token T other than
/// by a `loop` intrinsic also passes through T's definition.
pub fn s_cycle_1(facts: &FnFacts, out: &mut Vec<Violation>) {
    by_cycles(facts, RuleId::SCycle1, out);
}

/// Rule S-CYCLE-2: every closed path through two different uses of T
/// passes through T's definition.
pub fn s_cycle_2(facts: &FnFacts, out: &mut Vec<Violation>) {
    by_cycles(facts, RuleId::SCycle2, out);
}

/// Rule S-CYCLE-3: every closed path through uses of two different tokens
/// passes through the definition of at least one of them.
pub fn s_cycle_3(facts: &FnFacts, out: &mut Vec<Violation>) {
    by_cycles(facts, RuleId::SCycle3, out);
}

/// Rule S-CYCLE-4: in every closed path through a use U of T but not
/// through T's definition, U dominates every node of the path.
pub fn s_cycle_4(facts: &FnFacts, out: &mut Vec<Violation>) {
    by_cycles(facts, RuleId::SCycle4, out);
}

/// The block sets of every closed path (closed walk) of 1..=`max_len`
/// edges, deduplicated (unreachable code included: the rules speak of every
/// closed path in the CFG). Exhaustive: a
/// breadth-first search over (start, current block, blocks visited) states,
/// so every closed walk's block set is found once its shortest walk fits.
pub fn closed_path_sets(facts: &FnFacts, max_len: usize) -> Vec<Vec<bool>> {
    let n = facts.func.blocks.len();
    let mut found: BTreeMap<Vec<bool>, ()> = BTreeMap::new();
    for s in facts.func.block_ids() {
        let mut start = vec![false; n];
        start[s.0] = true;
        let mut seen: HashSet<(usize, Vec<bool>)> = HashSet::new();
        let mut frontier: Vec<(usize, Vec<bool>)> = vec![(s.0, start)];
        for _len in 0..max_len {
            let mut next = Vec::new();
            for (cur, set) in &frontier {
                for t in &facts.cfg.succs[*cur] {
                    if t.0 == s.0 {
                        found.insert(set.clone(), ());
                    }
                    let mut set2 = set.clone();
                    set2[t.0] = true;
                    if seen.insert((t.0, set2.clone())) {
                        next.push((t.0, set2));
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
    }
    found.into_keys().collect()
}

/// S-CYCLE-1..4 by brute force over every closed path of at most
/// `max_len` edges (Options::closed_paths; the oracle for MC-03).
pub fn closed_paths(facts: &FnFacts, max_len: usize, out: &mut Vec<Violation>) {
    let all = [
        RuleId::SCycle1,
        RuleId::SCycle2,
        RuleId::SCycle3,
        RuleId::SCycle4,
    ];
    let mut seen = HashSet::new();
    let mut sc = Scratch::new(facts);
    let mut sets = closed_path_sets(facts, max_len);
    // Smallest paths first, so each violation is shown on a small path.
    sets.sort_by_key(|s| s.iter().filter(|x| **x).count());
    for set in sets {
        let names: Vec<String> = (0..set.len())
            .filter(|&b| set[b])
            .map(|b| facts.func.block_name(BlockId(b)))
            .collect();
        let r = Region {
            blocks: (0..set.len()).filter(|&b| set[b]).map(BlockId).collect(),
            cycle: None,
            path_text: Some(format!("closed path through: {}", names.join(" "))),
        };
        check_region(facts, &r, &all, &mut seen, &mut sc, out);
    }
}

/// The identity of a cycle-rule violation (S-CYCLE-1..4): rule, function,
/// and the (block, instruction) of each use involved, sorted. MC-03
/// (S-CYCLE-SUFF) compares the cycle-based and closed-path checks by these
/// keys, in the property test and in `convcheck prove`.
pub type CycleViolationKey = (super::RuleId, String, Vec<(String, Option<usize>)>);

/// The [`CycleViolationKey`]s of the S-CYCLE-* violations in `vs`.
pub fn cycle_violation_keys(
    vs: &[super::Violation],
) -> std::collections::BTreeSet<CycleViolationKey> {
    use super::{Role, RuleId};
    vs.iter()
        .filter(|v| {
            matches!(
                v.rule,
                RuleId::SCycle1 | RuleId::SCycle2 | RuleId::SCycle3 | RuleId::SCycle4
            )
        })
        .map(|v| {
            let mut uses: Vec<(String, Option<usize>)> = v
                .sites
                .iter()
                .filter(|s| s.role == Role::Use)
                .map(|s| (s.block.clone(), s.inst))
                .collect();
            uses.sort();
            (v.rule, v.function.clone(), uses)
        })
        .collect()
}
