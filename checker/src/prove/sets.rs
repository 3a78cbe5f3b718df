//! Communicating sets of `@op` calls per behaviour, for MC-04 (as in
//! `semantics/tests/infer_tokens.rs`): each call is named by (thread, its
//! ordinal among the thread's `@op` calls), so programs whose instruction
//! positions differ (inserted intrinsics) compare equal when the sets do.

use std::collections::BTreeSet;

use semantics::machine::launch::Exploration;
use semantics::machine::Outcome;

/// The `@op` sets of every finished behaviour.
pub fn op_sets(ex: &Exploration) -> BTreeSet<Vec<Vec<(usize, usize)>>> {
    ex.behaviours
        .iter()
        .filter(|b| b.execution.outcome == Outcome::Finished)
        .map(|b| {
            let e = &b.execution;
            let sets = e.event_sets();
            let mut out = Vec::new();
            for (t, th) in e.threads.iter().enumerate() {
                let ordinal = |u: usize, pos: usize| {
                    e.threads[u]
                        .events
                        .iter()
                        .filter(|x| x.callee == "op")
                        .position(|x| x.pos == pos)
                };
                for (ev, set) in th.events.iter().zip(&sets[t]) {
                    if ev.callee != "op" {
                        continue;
                    }
                    let mut s: Vec<(usize, usize)> = set
                        .iter()
                        .filter_map(|(u, p)| ordinal(*u, *p).map(|k| (*u, k)))
                        .collect();
                    s.sort();
                    out.push(s);
                }
            }
            out.sort();
            out
        })
        .collect()
}
