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
use super::{Checker, Options, RefineError};
use crate::smt::{Budget, Outcome, Session};
use crate::vc::{Condition, Terms};
use semantics::ir::Module;

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
    /// usual): which, for the report.
    Fails(String),
    /// The solver gave no answer (time limit): why, for the report.
    Unknown(String),
}

impl Checker<'_, '_> {
    /// The strategy check of C-MIRROR at 1 and 2 threads with ids free in
    /// `0..wave`: is there a launch and a complete target execution that
    /// the mirror strategy's source execution does not match (nor has UB)?
    /// One query per thread count; no CEGIS (the strategy is fixed).
    pub(super) fn mirror_strategy(&mut self, wave: usize) -> Result<Strategy, RefineError> {
        for n in [1, 2] {
            match self.strategy_on(n, Some(wave))? {
                Strategy::Holds => {}
                other => return Ok(other),
            }
        }
        Ok(Strategy::Holds)
    }

    /// The strategy check on launches of `n` threads: ids free in
    /// `0..wave` (the pair check), or the ids `0..n` of a plain launch
    /// (`wave` `None`: [`strategy_at`]).
    fn strategy_on(&mut self, n: usize, wave: Option<usize>) -> Result<Strategy, RefineError> {
        let k = self.opts.max_steps;
        let obs = self.opts.observe;
        let mut terms = Terms::new();
        let mut launch = match wave {
            Some(wave) => Launch::free_ids(&mut terms, self.src, n, wave),
            None => Launch::new(&mut terms, self.src, n),
        };
        launch.freeze_domain = self.opts.input_domain.clone();
        launch.add_streams(&mut terms, &[self.src, self.tgt], k);
        let t = encode(&mut terms, self.tgt, &launch, k, "T", obs).map_err(RefineError::target)?;
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
        for x in
            super::cegis::domain_constraints(&mut terms, &launch, self.opts.input_domain.as_ref())
        {
            add(x, "input domain");
        }
        for x in &s.defs {
            add(*x, "mirror source execution");
        }
        // R-BOUND: only launches on which some source execution ends or
        // is stuck (R-PREFIX) in every thread are compared. Without
        // `freeze` a thread's source path is a function of its inputs (S1,
        // S3), so one execution with a thread cut without being stuck
        // means all are cut there, on this launch and on every larger
        // launch holding the thread: such launches are set aside here as
        // there. (With `freeze` the paths may differ per choice: nothing
        // is set aside, a stronger check.)
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
        let threads = format!("{n} thread{}", if n == 1 { "" } else { "s" });
        Ok(match self.solve(&terms, &name, c)? {
            Outcome::Unsat => Strategy::Holds,
            Outcome::Sat(m) => {
                let inputs: Vec<String> = super::launch_inputs(&mut terms, &launch, &m)
                    .iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect();
                Strategy::Fails(format!(
                    "the mirror strategy does not match a target execution at {threads} ({})",
                    inputs.join(", ")
                ))
            }
            Outcome::Unknown(r) => Strategy::Unknown(format!(
                "no answer from the strategy check at {threads} ({r:?})"
            )),
        })
    }
}

/// Validation of theorem C-MIRROR (proofs/CUTOFF.md "Validation", `make
/// mirror-campaign`): the strategy check on the plain launch of `n`
/// threads (ids `0..n`, every other input free): one `n`-thread query
/// that does not rest on the theorem's reduction to pairs. `Holds` means
/// that the mirror strategy's source execution is valid and matches every
/// complete (or stuck) target execution there, so the target refines the
/// source at `n` threads (R-REF within `opts`' bounds) by a direct
/// argument; `Fails` names the launch, `Unknown` the missing answer. Errors:
/// the pair is outside the encoding, invalid, or the solver failed.
pub fn strategy_at(
    src: &Module,
    tgt: &Module,
    kernel: &str,
    opts: &Options,
    n: usize,
) -> Result<Strategy, String> {
    let describe = |r: super::PairResult| format!("{r:?}");
    let (isrc, itgt) = super::pipeline::inline_pair(src, tgt, kernel).map_err(|e| describe(*e))?;
    let (ps, pt) = super::pipeline::prepare_pair(&isrc, &itgt, kernel, opts, opts.buffer_bytes)
        .map_err(|e| describe(*e))?;
    let mut session = Session::new(None);
    let mut checker = Checker {
        src: &ps,
        tgt: &pt,
        opts,
        session: &mut session,
        tag: "mirror-at".into(),
        progress: None,
        free_ids: None,
        free_results: false,
        lift: Default::default(),
    };
    checker.session.budget = Budget::new(opts.time_limit, opts.interrupt.clone());
    checker.strategy_on(n, None).map_err(|e| format!("{e:?}"))
}
