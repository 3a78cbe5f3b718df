//! Theorem C-MIRROR (proofs/CUTOFF.md, "Anchors: one strategy checked on
//! every pair"): C-PAIR without side condition (A). With anchors the
//! source's choices must be made consistently for all N threads at once,
//! so pairwise *existence* of matching source executions proves nothing;
//! a fixed *strategy* that is a per-thread function does: the source's
//! anchors converge exactly as the target's anchors of the same name did
//! (D-ANCHOR, [`super::cegis::mirror_anchors`]), D-ORDER ranks are the canonical
//! launch-independent function ([`Ranks::Canonical`]), frozen values
//! follow the target's ([`super::cegis::freeze_tie`]), the source runs under its
//! first cycle hierarchy (D-HIER). If, on every launch of 1
//! and 2 threads with ids free in `0..W`, every complete target execution
//! is matched by the strategy's source execution (or that execution has
//! UB), then on every launch of N <= W threads the strategy's execution
//! is valid and matches, because validity and the observation are per
//! thread and per pair of threads under C-SUB's (S1) and (S3).

use super::cutoff::Failure;
use super::encode::{encode, encode_with, Launch, Ranks};
use super::{Checker, RefineError};
use crate::smt::Outcome;
use crate::vc::{Condition, Terms};

/// C-MIRROR's side conditions that fail (empty: they hold): C-SUB's (S1)
/// no convergent values and (S3) no memory, and no read of a launch size
/// (the pair check's launch is not the N-thread one). Thread ids may be
/// read: the pair check's ids are free in `0..W`.
pub fn conditions(src: &super::prog::Prepared, tgt: &super::prog::Prepared) -> Vec<Failure> {
    super::sublaunch::conditions_with(src, tgt, true)
}

/// What the strategy check found.
pub enum Strategy {
    /// Every launch of 1 and 2 threads with ids in `0..W`: matched.
    Holds,
    /// A launch on which it does not match (the pair check then decides as
    /// usual), or no answer: why, for the report.
    Fails(String),
}

impl Checker<'_, '_> {
    /// The strategy check of C-MIRROR at 1 and 2 threads with ids free in
    /// `0..wave`: is there a launch and a complete target execution that
    /// the mirror strategy's source execution does not match (nor has UB)?
    /// One query per thread count; no CEGIS (the strategy is fixed).
    pub(super) fn mirror_strategy(&mut self, wave: usize) -> Result<Strategy, RefineError> {
        let k = self.opts.max_steps;
        let obs = self.opts.observe;
        for n in [1, 2] {
            let mut terms = Terms::new();
            let mut launch = Launch::free_ids(&mut terms, self.src, n, wave);
            launch.freeze_domain = self.opts.input_domain.clone();
            let t =
                encode(&mut terms, self.tgt, &launch, k, "T", obs).map_err(RefineError::target)?;
            let s = encode_with(&mut terms, self.src, &launch, k, "M", obs, Ranks::Canonical)
                .map_err(RefineError::source)?;
            let mut c: Vec<Condition> = Vec::new();
            let mut add = |x, why: &'static str| c.push(Condition::new(x, why));
            for x in t.defs.iter().chain(&t.valid).chain(&launch.side) {
                add(*x, "target execution on the launch");
            }
            for (cut, st) in t.cut.iter().zip(&t.stuck) {
                let nc = terms.not(*cut);
                add(terms.or(&[nc, *st]), "target execution complete or stuck");
            }
            for x in super::cegis::domain_constraints(
                &mut terms,
                &launch,
                self.opts.input_domain.as_ref(),
            ) {
                add(x, "input domain");
            }
            for x in &s.defs {
                add(*x, "mirror source execution");
            }
            // R-BOUND: only launches on which some source execution
            // ends or is stuck (R-PREFIX) in every thread are compared.
            // Without `freeze` a thread's source path is a function of its
            // inputs (S1, S3), so one execution with a thread cut without
            // being stuck means all are cut there, on this launch and on
            // every larger launch holding the thread: such launches are set
            // aside here as there. (With `freeze` the paths may differ per
            // choice: nothing is set aside, a stronger check.)
            if s.freeze.is_empty() {
                let stuck_too = !self.src.progress_required;
                for x in super::cegis::settled(&mut terms, &s, stuck_too) {
                    add(x, "R-BOUND: the source ends or is stuck");
                }
            }
            // D-HIER: the strategy runs the source under its first cycle
            // hierarchy, the same for every pair.
            if let Some(sel) = s.hierarchy {
                let h0 = terms.bv_const(super::encode::CW, 0);
                add(terms.eq(sel, h0), "C-MIRROR: the source's first hierarchy");
            }
            let tie = super::cegis::mirror_anchors(&mut terms, &s, &t);
            add(tie, "C-MIRROR: source anchors as the target's");
            if !s.freeze.is_empty() {
                let f = super::cegis::freeze_tie(&mut terms, &s, &t);
                add(f, "C-MIRROR: frozen values as the target's");
            }
            let mut ok = s.valid.clone();
            ok.push(super::obs::matches(&mut terms, &s, &t));
            let ok = terms.and(&ok);
            add(terms.not(ok), "C-MIRROR: the strategy does not match");
            let name = format!("n{n}-mirror-strategy");
            match self.solve(&terms, &name, c)? {
                Outcome::Unsat => {}
                Outcome::Sat(m) => {
                    let inputs: Vec<String> = super::launch_inputs(&mut terms, &launch, &m)
                        .iter()
                        .map(|(k, v)| format!("{k} = {v}"))
                        .collect();
                    return Ok(Strategy::Fails(format!(
                        "the mirror strategy does not match a target execution at {n} \
                         thread{} ({})",
                        if n == 1 { "" } else { "s" },
                        inputs.join(", ")
                    )));
                }
                Outcome::Unknown(r) => {
                    return Ok(Strategy::Fails(format!(
                        "no answer from the strategy check at {n} thread{} ({r:?})",
                        if n == 1 { "" } else { "s" }
                    )))
                }
            }
        }
        Ok(Strategy::Holds)
    }
}
