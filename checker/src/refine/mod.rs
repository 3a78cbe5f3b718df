//! R-REF: does a target program refine a source program? Within bounds
//! (R-BOUND), by counterexample-guided iteration over the axiomatic
//! encoding (M-AXIOM, [`encode`]).
//!
//! For each thread count N the question "is there a launch and a target
//! execution whose observation no source execution shows, with no source
//! execution having UB" is exists-forall: the universal part ranges over the
//! source's nondeterministic choices (anchor keys and D-ORDER ranks). The
//! loop ([`check_threads`]):
//! 1. *propose* a launch and a complete target execution that defeats every
//!    source choice learned so far (each learned choice is a copy of the
//!    source encoding with its choice variables fixed; a source without
//!    anchors has no choices, so one copy decides the question at once);
//! 2. *check* it: search a source execution on that launch with the same
//!    observation, or with UB; if found, learn its choices and repeat;
//!    otherwise the proposal is a counterexample (unless a source execution
//!    was cut by the step bound, which makes the answer unknown).
//!
//! Nothing here is a proof beyond the bounds: every verdict carries them.

pub mod cutoff;
pub mod encode;
pub mod hier;
pub mod memobj;
pub mod mirror;
pub mod obs;
mod pipeline;
pub mod prog;
pub mod replay;
pub mod report;
mod scale;
mod signature;
pub mod sublaunch;
pub mod why;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::smt::{Budget, Incremental, Outcome, Query, Session, SmtError, UnknownReason};
use crate::vc::eval::{Model, Value};
use crate::vc::{Condition, TermId, Terms};

pub use pipeline::{args_by_name, check, check_pair, PairResult};
pub use why::{UnknownWhy, VacuousWhy, DEFAULT_TIME_LIMIT};

use encode::{encode, encode_with, Enc, Launch, Observe, Ranks};
use obs::{complete, concrete, CThread};
use prog::Prepared;

/// D-UNCTRL mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Uncontrolled {
    Maximal,
    Inferred,
}

/// How CEGIS finds source strategies for programs with anchors (F-21).
/// Every choice is exact; they differ only in speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategies {
    /// Learn the choices of each solver model (anchor keys and D-ORDER
    /// ranks, fixed to the model's values).
    Plain,
    /// First look for a matching source execution whose ranks are the
    /// launch-independent [`Ranks::Canonical`] function, and learn only its
    /// anchor keys; fall back to `Plain` when there is none.
    Canonical,
    /// `Canonical`, and before the first proposal, learn the mirror
    /// strategy: source anchors converge as the target's anchors of the same
    /// name did.
    Mirror,
}

/// Bounds and modes of a check (R-BOUND).
#[derive(Clone, Debug)]
pub struct Options {
    /// Thread counts to check, in order.
    pub threads: Vec<usize>,
    /// Block visits per thread (K).
    pub max_steps: usize,
    pub observe: Observe,
    pub uncontrolled: Uncontrolled,
    /// Limit per solver query.
    pub timeout: Duration,
    /// CEGIS iterations per thread count before answering unknown.
    pub max_iterations: usize,
    /// C-OPS: a shuffle outside the set is UB (not poison) unless its
    /// declaration says otherwise (`--shuffle-oob`).
    pub shuffle_oob_ub: bool,
    /// Restrict every integer input to these values (as the interpreter's
    /// `int_domain` does; used by the M-AGREE test). `None`: full range.
    pub input_domain: Option<Vec<i128>>,
    /// Source strategies for CEGIS (programs with anchors).
    pub strategies: Strategies,
    /// Budget of the whole run (every thread count, every query); `None`:
    /// unlimited. When spent the verdict is `unknown` ([`UnknownWhy::Stopped`]).
    pub time_limit: Option<Duration>,
    /// Set (by Ctrl-C) to stop the run: the verdict is then `unknown`
    /// ([`UnknownWhy::Stopped`]) with the thread counts decided before.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// `--cutoff W`: when C-PAIR's side conditions hold (proofs/CUTOFF.md),
    /// decide every thread count up to W from launches of 1 and 2 threads
    /// whose ids range over `0..W` ([`cutoff`]).
    pub cutoff: Option<usize>,
    /// R-CEX minimization: after a counterexample is found, look for one
    /// with small inputs and fewer block visits. Campaigns that only need
    /// the verdict turn it off (the verdict is the same either way).
    pub minimize: bool,
    /// Issue 16: asked for more than 4 threads, search 2 to 4 threads first
    /// and lift a counterexample found there ([`scale`]); `--no-lift` turns
    /// it off. Verdicts are the same either way.
    pub lift: bool,
    /// Issue 16: without `--cutoff`, asked for more than 4 threads, try
    /// theorem C-PAIR with W the largest asked count ([`cutoff::automatic`]);
    /// `--no-auto-cutoff` turns it off.
    pub auto_cutoff: bool,
    /// `--dump-smt DIR`: every solver query is also written to DIR as an
    /// SMT-LIB file ([`crate::smt::Session`]), for replay with `z3`.
    pub dump_smt: Option<std::path::PathBuf>,
    /// D-HIER: every cycle hierarchy of each program, or LLVM's alone
    /// (`--hierarchy`).
    pub hierarchy: hier::HierarchyMode,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            threads: vec![1, 2, 3, 4],
            max_steps: DEFAULT_MAX_STEPS,
            observe: Observe::Auto,
            uncontrolled: Uncontrolled::Maximal,
            timeout: Duration::from_secs(60),
            max_iterations: 64,
            shuffle_oob_ub: false,
            input_domain: None,
            strategies: Strategies::Canonical,
            time_limit: None,
            interrupt: None,
            cutoff: None,
            minimize: true,
            lift: true,
            auto_cutoff: true,
            dump_smt: None,
            hierarchy: hier::HierarchyMode::All,
        }
    }
}

/// Default bound on block visits per thread.
pub const DEFAULT_MAX_STEPS: usize = 8;

/// A counterexample (R-CEX) as found by the solver, before replay.
#[derive(Clone, Debug)]
pub struct Cex {
    pub threads: usize,
    /// Input name and value (signed), uniform ones once.
    pub inputs: Vec<(String, i128)>,
    /// Per parameter, per thread value (for replay).
    pub args: Vec<Vec<i128>>,
    pub target: Vec<CThread>,
    /// A source execution on the same launch (one of those that differ).
    pub source: Option<Vec<CThread>>,
    /// P-INPUT: each pointer parameter's buffer contents (by parameter
    /// name), for replay.
    pub buffers: std::collections::BTreeMap<String, Vec<u8>>,
    /// R-MEM: the target's final contents of observed objects (`None`:
    /// poison), and the shown source execution's.
    pub memory: Vec<(String, Vec<Option<u8>>)>,
    pub source_memory: Option<Vec<(String, Vec<Option<u8>>)>>,
    /// How a counterexample at many threads was found from a smaller one
    /// (issue 16, [`scale`]), for the report.
    pub lifted: Option<String>,
    /// The target execution's D-ANCHOR / D-ORDER choices: (thread, the
    /// choice's name without thread and encoding, value), so that a lifted
    /// launch can give a padded copy its original's choices ([`scale`]).
    pub target_choices: Vec<(usize, String, u128)>,
    /// Why the counterexample was not replayed on the interpreter when
    /// replay was asked (R-CEX), for the report.
    pub replay_note: Option<String>,
    /// R-FREEZE-SMT: the values the target's `freeze` choices take (signed),
    /// which replay adds to the interpreter's input domain.
    pub frozen: Vec<i128>,
    /// Lemma C-SUB ([`sublaunch`]): the small counterexample this one was
    /// built from by copying threads (not re-solved at `threads`); replay
    /// falls back to it when the interpreter cannot enumerate `threads`.
    pub sub: Option<Box<Cex>>,
}

/// The verdict (STYLE 3).
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Every target behaviour within the bounds is a source behaviour (or
    /// the source has UB). `cut`: per thread count at which some target
    /// executions were cut by the step bound, one launch on which that
    /// happens (compared only when every cut thread is stuck, R-PREFIX). (Executions over full-range inputs are too
    /// many to count; an example launch tells the user which inputs a
    /// larger `--max-steps` would cover.)
    Refines {
        cut: Vec<CutLaunch>,
    },
    Counterexample(Box<Cex>),
    /// Why no answer: solver time limit, iteration limit, bound too small,
    /// run stopped.
    Unknown(UnknownWhy),
    /// The check holds for a trivial reason (source always UB, ...).
    Vacuous(VacuousWhy),
}

/// A launch on which some target execution runs longer than the bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CutLaunch {
    pub threads: usize,
    /// Input name and value (signed), uniform ones once.
    pub inputs: Vec<(String, i128)>,
}

/// What a check did, for printing with the verdict.
#[derive(Clone, Debug)]
pub struct Outcome2 {
    pub verdict: Verdict,
    /// Per thread count checked: CEGIS iterations.
    pub iterations: Vec<(usize, usize)>,
    /// What `--cutoff` established, when asked.
    pub cutoff: Option<cutoff::Cutoff>,
}

/// Which program of a pair (R-REF): the source, which the target must
/// refine. Displays as `source` / `target`, the words of every message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Source,
    Target,
}

impl Side {
    /// The word the reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Source => "source",
            Side::Target => "target",
        }
    }
    /// `a` for the source, `b` for the target.
    pub fn pick<T>(self, source: T, target: T) -> T {
        match self {
            Side::Source => source,
            Side::Target => target,
        }
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error that is not a verdict.
#[derive(Debug, thiserror::Error)]
pub enum RefineError {
    #[error("solver: {0}")]
    Smt(#[from] SmtError),
    /// P-LAUNCH: the kernels' signatures differ, or one is missing
    /// (invalid input).
    #[error("{0}")]
    Signature(String),
    /// The encoder met a construct it cannot express in one of the programs.
    #[error("unsupported in the {role}: {what}")]
    Unsupported { role: Side, what: prog::Unsupported },
}

impl RefineError {
    fn source(what: prog::Unsupported) -> RefineError {
        RefineError::Unsupported {
            role: Side::Source,
            what,
        }
    }
    fn target(what: prog::Unsupported) -> RefineError {
        RefineError::Unsupported {
            role: Side::Target,
            what,
        }
    }
}

fn conj(terms: &mut Terms, xs: &[TermId]) -> TermId {
    terms.and(xs)
}

fn fix(terms: &mut Terms, vars: &[TermId], m: &Model) -> TermId {
    let mut cs = Vec::new();
    for &v in vars {
        let val = terms
            .as_var(v)
            .and_then(|id| m.var(id).cloned())
            .unwrap_or(Value::Bool(false));
        if let Some(c) = terms.value(&val) {
            if terms.sort(c) == terms.sort(v) {
                cs.push(terms.eq(v, c));
            }
        }
    }
    terms.and(&cs)
}

/// P-INPUT: uninterpreted functions belong to the launch (one
/// interpretation shared by the source and the target). The check of a
/// proposal keeps the proposal's interpretation at every point its model
/// fixed; other points stay free (any choice extends the interpretation).
fn fix_functions(terms: &mut Terms, m: &Model) -> TermId {
    let mut cs = Vec::new();
    let mut entries: Vec<_> = m.funcs.iter().collect();
    entries.sort_by_key(|(f, _)| f.index());
    for (f, table) in entries {
        let mut points: Vec<_> = table.entries.iter().collect();
        points.sort_by(|a, b| format!("{:?}", a.0).cmp(&format!("{:?}", b.0)));
        for (args, val) in points {
            let xs: Option<Vec<TermId>> = args.iter().map(|a| terms.value(a)).collect();
            let (Some(xs), Some(v)) = (xs, terms.value(val)) else {
                continue;
            };
            let app = terms.apply(*f, &xs);
            cs.push(terms.eq(app, v));
        }
    }
    terms.and(&cs)
}

/// A callback that sees every solver query's log line (`--stats`).
pub type Progress<'a> = Box<dyn FnMut(&crate::smt::QueryRecord) + 'a>;

/// The state of one check across thread counts.
pub struct Checker<'a, 'p> {
    pub src: &'a Prepared<'p>,
    pub tgt: &'a Prepared<'p>,
    pub opts: &'a Options,
    pub session: &'a mut Session,
    /// A tag for query names.
    pub tag: String,
    /// Called after every solver query with its log line (`--stats`).
    pub progress: Option<Progress<'a>>,
    /// C-PAIR's pair check: thread ids are inputs in `0..W` ([`Launch::free_ids`]).
    pub free_ids: Option<usize>,
    /// Small counterexamples found for lifting to larger thread counts.
    pub lift: scale::Lift,
}

enum PerN {
    Refines { cut: Option<CutLaunch> },
    Cex(Box<Cex>),
    Unknown(UnknownWhy),
}

impl Checker<'_, '_> {
    /// Runs every thread count; stops at the first counterexample.
    pub fn run(&mut self) -> Result<Outcome2, RefineError> {
        signature::same_kernel(self.src.module, self.tgt.module, &self.src.func.name)?;
        signature::same_uniform_params(self.src, self.tgt)?;
        self.session.budget = Budget::new(self.opts.time_limit, self.opts.interrupt.clone());
        let mut iterations = Vec::new();
        let mut any_cut = Vec::new();
        let mut unknown: Option<UnknownWhy> = None;
        let mut finished = Vec::new();
        let mut source_defined = false;
        let mut target_complete = false;
        for &n in &self.opts.threads.clone() {
            let (r, it) = self.check_scaled(n)?;
            iterations.push((n, it));
            // Vacuity only matters when no counterexample is found (a
            // counterexample is a complete target execution on a launch
            // where no source execution has UB); at many threads it is
            // among the costliest queries.
            if !matches!(r, PerN::Cex(_)) && self.session.budget.spent().is_none() {
                let (src_ok, tgt_ok) = self.vacuity(n)?;
                source_defined |= src_ok;
                target_complete |= tgt_ok;
            }
            // One stop mechanism (smt::Budget): a query cut by the run's
            // budget leaves this thread count undecided, and ends the run.
            if let (Some(stop), false) = (self.session.budget.spent(), matches!(r, PerN::Cex(_))) {
                return Ok(Outcome2 {
                    verdict: Verdict::Unknown(UnknownWhy::Stopped { stop, finished }),
                    iterations,
                    cutoff: None,
                });
            }
            match r {
                PerN::Cex(c) => {
                    return Ok(Outcome2 {
                        verdict: Verdict::Counterexample(c),
                        iterations,
                        cutoff: None,
                    })
                }
                PerN::Refines { cut } => {
                    any_cut.extend(cut);
                    finished.push(n);
                }
                PerN::Unknown(why) => {
                    unknown.get_or_insert(why);
                }
            }
        }
        let verdict = if let Some(why) = unknown {
            Verdict::Unknown(why)
        } else if !target_complete {
            Verdict::Unknown(UnknownWhy::TargetCut {
                max_steps: self.opts.max_steps,
            })
        } else if !source_defined {
            Verdict::Vacuous(VacuousWhy::SourceAlwaysUb)
        } else {
            Verdict::Refines { cut: any_cut }
        };
        Ok(Outcome2 {
            verdict,
            iterations,
            cutoff: None,
        })
    }

    fn solve(
        &mut self,
        terms: &Terms,
        name: &str,
        conds: Vec<Condition>,
    ) -> Result<Outcome, SmtError> {
        let q = Query {
            name: format!("{}-{name}", self.tag),
            timeout: self.opts.timeout,
            assertions: conds,
        };
        let r = self.session.solve(terms, &q);
        self.report_last();
        r
    }

    /// The launch of `n` threads: ids `0..n`, or free in `0..W` for C-PAIR.
    fn launch(&self, terms: &mut Terms, n: usize) -> Launch {
        let mut l = match self.free_ids {
            Some(w) => Launch::free_ids(terms, self.src, n, w),
            None => Launch::new(terms, self.src, n),
        };
        // R-FREEZE-SMT: a frozen poison ranges over the input domain when
        // there is one (the interpreter's `int_domain`).
        l.freeze_domain = self.opts.input_domain.clone();
        l
    }

    fn report_last(&mut self) {
        if let (Some(p), Some(rec)) = (self.progress.as_mut(), self.session.log.last()) {
            p(rec);
        }
    }

    /// Vacuity (STYLE 9): does some source execution run to the end without
    /// UB, and does some target execution return within the bound?
    fn vacuity(&mut self, n: usize) -> Result<(bool, bool), RefineError> {
        let mut terms = Terms::new();
        let launch = self.launch(&mut terms, n);
        let s = encode(
            &mut terms,
            self.src,
            &launch,
            self.opts.max_steps,
            "S",
            self.opts.observe,
        )
        .map_err(RefineError::source)?;
        let mut c = s.defs.clone();
        c.extend(&s.valid);
        c.extend(&launch.side);
        let ub = terms.or(&s.ub);
        c.push(terms.not(ub));
        for x in &s.cut {
            c.push(terms.not(*x));
        }
        let conds = c
            .into_iter()
            .map(|t| Condition::new(t, "source defined"))
            .collect();
        let src_ok = !matches!(
            self.solve(&terms, &format!("n{n}-source-defined"), conds)?,
            Outcome::Unsat
        );
        let t = encode(
            &mut terms,
            self.tgt,
            &launch,
            self.opts.max_steps,
            "T",
            self.opts.observe,
        )
        .map_err(RefineError::target)?;
        let mut c = t.defs.clone();
        c.extend(&t.valid);
        c.extend(&launch.side);
        for x in &t.cut {
            c.push(terms.not(*x));
        }
        let conds = c
            .into_iter()
            .map(|t| Condition::new(t, "target complete"))
            .collect();
        let tgt_ok = !matches!(
            self.solve(&terms, &format!("n{n}-target-complete"), conds)?,
            Outcome::Unsat
        );
        Ok((src_ok, tgt_ok))
    }

    /// A launch on which some target execution at `n` threads is cut by
    /// the bound, if there is one.
    fn target_cut(
        &mut self,
        terms: &mut Terms,
        launch: &Launch,
        t: &Enc,
        n: usize,
    ) -> Result<Option<CutLaunch>, RefineError> {
        let mut c = t.defs.clone();
        c.extend(&t.valid);
        c.extend(&launch.side);
        c.push(terms.or(&t.cut));
        let conds: Vec<Condition> = c
            .into_iter()
            .map(|x| Condition::new(x, "target cut"))
            .collect();
        // An example with small inputs reads better: try [-64, 64] first.
        let mut small: Vec<Condition> = conds.clone();
        for (_, v) in &launch.vars {
            let w = terms.sort(*v).bv_width().unwrap_or(32);
            if w > 7 {
                let lo = terms.bv_const(w, (1u128 << w) - 64);
                let hi = terms.bv_const(w, 64);
                let a = terms.bv_sge(*v, lo);
                let b = terms.bv_sle(*v, hi);
                small.push(Condition::new(a, "small example"));
                small.push(Condition::new(b, "small example"));
            }
        }
        let first = self.solve(terms, &format!("n{n}-target-cut-small"), small)?;
        let r = match first {
            Outcome::Sat(m) => Outcome::Sat(m),
            _ => self.solve(terms, &format!("n{n}-target-cut"), conds)?,
        };
        Ok(match r {
            Outcome::Sat(m) => Some(CutLaunch {
                threads: n,
                inputs: launch_inputs(terms, launch, &m),
            }),
            _ => None,
        })
    }

    /// The CEGIS loop for `n` threads (one pass over full-range inputs; a
    /// counterexample found is then minimized: small inputs, shorter
    /// traces).
    fn check_threads(&mut self, n: usize) -> Result<(PerN, usize), RefineError> {
        self.check_threads_with(n, &scale::Mode::default())
    }

    /// [`Checker::check_threads`] restricted as `mode` says (issue 16:
    /// launches pinned to a lifted counterexample, or per-thread inputs
    /// distinct); a restricted search's `Refines` only means "none there".
    fn check_threads_with(
        &mut self,
        n: usize,
        mode: &scale::Mode,
    ) -> Result<(PerN, usize), RefineError> {
        let k = self.opts.max_steps;
        let obs = self.opts.observe;
        let mut terms = Terms::new();
        let launch = self.launch(&mut terms, n);
        let t = encode(&mut terms, self.tgt, &launch, k, "T", obs).map_err(RefineError::target)?;
        // Restricted searches answer only counterexamples: no cut example.
        let cut = if mode.restricted() {
            None
        } else {
            self.target_cut(&mut terms, &launch, &t, n)?
        };
        let mut prop = Incremental::new(self.opts.timeout);
        for (c, why) in mode.constraints(&mut terms, self.src, &launch, &t) {
            prop.assert(&terms, Condition::new(c, why));
        }
        let minimize = self.opts.minimize && !mode.restricted();
        let max_iterations = match mode.pin {
            Some(_) => self.opts.max_iterations.min(scale::PINNED_ITERATIONS),
            None => self.opts.max_iterations,
        };
        let add = |terms: &mut Terms, prop: &mut Incremental, x: TermId, why: &str| {
            prop.assert(terms, Condition::new(x, why));
        };
        let tdefs = conj(&mut terms, &t.defs);
        add(&mut terms, &mut prop, tdefs, "target C-OPS results");
        let tvalid = conj(&mut terms, &t.valid);
        add(&mut terms, &mut prop, tvalid, "target D-INST/D-ORDER");
        for x in launch.side.clone() {
            add(
                &mut terms,
                &mut prop,
                x,
                "C-PAIR: thread ids distinct, below W",
            );
        }
        // R-PREFIX: a target execution is compared when every thread ends
        // or provably never ends (its prefix is then its observation);
        // others are cut by the bound and set aside (R-BOUND).
        for (c, st) in t.cut.clone().into_iter().zip(t.stuck.clone()) {
            let nc = terms.not(c);
            let final_ = terms.or(&[nc, st]);
            add(
                &mut terms,
                &mut prop,
                final_,
                "target execution complete or stuck",
            );
        }
        for a in domain_constraints(&mut terms, &launch, self.opts.input_domain.as_ref()) {
            add(&mut terms, &mut prop, a, "input domain");
        }
        // Symmetry breaking: when neither program reads thread indices,
        // renumbering the threads of a counterexample gives another one, so
        // only launches whose first per-thread input is sorted (unsigned)
        // across threads are proposed.
        // (Not for a pinned launch: its thread order is the padding's.)
        if mode.pin.is_none() && self.src.thread_symmetric() && self.tgt.thread_symmetric() {
            if let Some(i) = self.src.uniform_param.iter().position(|u| !u) {
                for w in launch.args[i].windows(2) {
                    let le = terms.bv_ule(w[0], w[1]);
                    add(&mut terms, &mut prop, le, "thread symmetry: inputs sorted");
                }
            }
        }
        // Only launches on which some source execution completes within
        // the bound are compared (R-BOUND); the others count as cut.
        let b = encode(&mut terms, self.src, &launch, k, "B", obs).map_err(RefineError::source)?;
        let mut bc = b.defs.clone();
        bc.extend(&b.valid);
        for c in &b.cut {
            bc.push(terms.not(*c));
        }
        let bc = conj(&mut terms, &bc);
        self.memory_model(&mut terms, &launch, &t, &b, n)?;
        add(
            &mut terms,
            &mut prop,
            bc,
            "some source execution completes within the bound",
        );
        if !self.src.has_anchor {
            // No anchors: the source's choices are its hierarchy (D-HIER)
            // and its frozen values (R-FREEZE-SMT), so one copy per
            // hierarchy decides the question when it has no `freeze`; with
            // one, the copy's frozen values follow the target's of the same
            // name, thread and step (else the operand's bits), one strategy
            // among those the check learns.
            for h in 0..self.src.hiers.len() {
                let name = if h == 0 {
                    "S0".to_string()
                } else {
                    format!("S0h{h}")
                };
                let s = encode(&mut terms, self.src, &launch, k, &name, obs)
                    .map_err(RefineError::source)?;
                let pick = s.hierarchy.map(|sel| {
                    let ht = terms.bv_const(encode::CW, h as u128);
                    terms.eq(sel, ht)
                });
                let tie = (!s.freeze.is_empty()).then(|| freeze_tie(&mut terms, &s, &t));
                let choice = match (pick, tie) {
                    (Some(a), Some(b)) => Some(terms.and(&[a, b])),
                    (a, b) => a.or(b),
                };
                self.learn(&mut terms, &mut prop, &s, &t, choice);
            }
        } else if self.opts.strategies == Strategies::Mirror {
            // The mirror strategy: the source's anchors make the choices
            // the target's anchors of the same name made (F-21).
            let s = encode_with(&mut terms, self.src, &launch, k, "M", obs, Ranks::Canonical)
                .map_err(RefineError::source)?;
            let tie = mirror_anchors(&mut terms, &s, &t);
            self.learn(&mut terms, &mut prop, &s, &t, Some(tie));
        }
        let mut input_vars: Vec<TermId> = launch.vars.iter().map(|x| x.1).collect();
        input_vars.extend(launch.buffers.iter().flat_map(|b| b.2.iter().copied()));
        // The shortest counterexample found so far (R-CEX minimization):
        // once one is found, the loop goes on asking for a target execution
        // with fewer block visits in total, until there is none or the
        // budget of extra rounds is spent. Any answer other than a shorter
        // counterexample ends the search with the best one.
        let mut best: Option<(Cex, usize)> = None;
        let mut extra = 0usize;
        let mut small_asked = false;
        let total = total_visits(&mut terms, &t);
        macro_rules! end {
            ($other:expr, $it:expr) => {
                return Ok(match best {
                    Some((c, _)) => (PerN::Cex(Box::new(c)), $it),
                    None => ($other, $it),
                })
            };
        }
        for it in 1..=max_iterations {
            let name = format!("{}-n{n}-{}propose-{it}", self.tag, mode.tag());
            let r = self.session.check(&terms, &mut prop, &name);
            self.report_last();
            let m = match r? {
                Outcome::Unsat => end!(PerN::Refines { cut: cut.clone() }, it),
                Outcome::Unknown(r) => end!(PerN::Unknown(reason(r, n)), it),
                Outcome::Sat(m) => m,
            };
            let fu = fix_functions(&mut terms, &m);
            let m = complete(&terms, &m);
            let fx = fix(&mut terms, &input_vars, &m);
            let ft = fix(&mut terms, &t.choices, &m);
            // Check: a source execution on this launch matching this target
            // execution; first with launch-independent ranks (a strategy
            // that generalizes when learned), then exactly.
            let mut pinned = vec![fx, ft, fu];
            pinned.extend(&t.defs);
            pinned.extend(&t.valid);
            // A pinned launch has one proposal: no strategy to generalize.
            let modes: &[Ranks] = if self.src.has_anchor
                && self.opts.strategies != Strategies::Plain
                && mode.pin.is_none()
            {
                &[Ranks::Canonical, Ranks::Free]
            } else {
                &[Ranks::Free]
            };
            let mut unmatched = None;
            for &ranks in modes {
                let (copy, query) = match ranks {
                    Ranks::Canonical => (format!("C{it}c"), format!("check-canonical-{it}")),
                    Ranks::Free => (format!("C{it}"), format!("check-{it}")),
                };
                let s = encode_with(&mut terms, self.src, &launch, k, &copy, obs, ranks)
                    .map_err(RefineError::source)?;
                let mut base = pinned.clone();
                base.extend(&s.defs);
                base.extend(&s.valid);
                let mut c = base.clone();
                let same = obs::matches(&mut terms, &s, &t);
                // A pinned launch (issue 16) asks once for a source
                // execution that matches or is cut: either ends the lift.
                c.push(match mode.pin {
                    Some(_) => {
                        let cut = terms.or(&s.cut);
                        terms.or(&[same, cut])
                    }
                    None => same,
                });
                let conds = c.into_iter().map(|x| Condition::new(x, "check")).collect();
                match self.solve(&terms, &format!("n{n}-full-{query}"), conds)? {
                    Outcome::Sat(_) if mode.pin.is_some() => {
                        end!(PerN::Refines { cut: None }, it)
                    }
                    Outcome::Sat(m2) => {
                        let m2 = complete(&terms, &m2);
                        let fx2 = fix(&mut terms, &s.choices, &m2);
                        self.learn(&mut terms, &mut prop, &s, &t, Some(fx2));
                        unmatched = None;
                        break;
                    }
                    Outcome::Unknown(r) => end!(PerN::Unknown(reason(r, n)), it),
                    Outcome::Unsat => unmatched = Some((s, base)),
                }
            }
            // The exact search found no matching source execution either.
            if let Some((s, base)) = unmatched {
                // No source execution matches: is one cut by the bound?
                let mut c = base.clone();
                let open = open_cut(&mut terms, &s);
                c.push(open);
                let conds = c
                    .into_iter()
                    .map(|x| Condition::new(x, "source cut"))
                    .collect();
                let cut_answer = match mode.pin {
                    Some(_) => Outcome::Unsat, // asked with the check above
                    None => self.solve(&terms, &format!("n{n}-full-source-cut-{it}"), conds)?,
                };
                match cut_answer {
                    Outcome::Unsat => {
                        let show = mode.pin.is_none().then_some(&base[..]);
                        let cex = self.build_cex(&mut terms, &launch, &t, &s, &m, show)?;
                        let len: usize = cex.target.iter().map(|th| th.blocks.len()).sum();
                        let large = cex.inputs.iter().any(|(_, v)| !(-8..=8).contains(v));
                        best = Some((cex, len));
                        extra += 1;
                        // Restricted searches (issue 16) only ask for
                        // small inputs, not for shorter traces.
                        let small_step = self.opts.minimize && !small_asked && large;
                        if !minimize && !small_step {
                            end!(PerN::Refines { cut: None }, it);
                        }
                        // Minimizing is optional: a short time limit.
                        prop.set_timeout(self.opts.timeout.min(MINIMIZE_TIMEOUT));
                        if small_step {
                            // Small inputs first (then shorter traces).
                            small_asked = true;
                            for c in small_inputs(&mut terms, &launch) {
                                prop.assert(&terms, Condition::new(c, "smaller inputs"));
                            }
                            continue;
                        }
                        if !minimize || extra > MINIMIZE_ROUNDS || len <= n {
                            end!(PerN::Refines { cut: None }, it);
                        }
                        let bound = terms.bv_const(16, len as u128);
                        let shorter = terms.bv_ult(total, bound);
                        prop.assert(&terms, Condition::new(shorter, "shorter counterexample"));
                        continue;
                    }
                    Outcome::Unknown(r) => end!(PerN::Unknown(reason(r, n)), it),
                    Outcome::Sat(_) => end!(
                        PerN::Unknown(UnknownWhy::SourceCut {
                            threads: n,
                            max_steps: k
                        }),
                        it
                    ),
                }
            }
        }
        end!(
            PerN::Unknown(UnknownWhy::Iterations {
                threads: n,
                limit: max_iterations
            }),
            max_iterations
        )
    }

    /// R-MEM-SMT: the encoding's per-thread memory views are the memory
    /// model's values only if no execution within the bounds has a byte
    /// of a shared object written by one thread and accessed by another;
    /// both programs are asked, and the pair is unsupported if either has
    /// one (threads communicating through memory are not encoded). Both
    /// must also observe the same objects (R-MEM).
    fn memory_model(
        &mut self,
        terms: &mut Terms,
        launch: &Launch,
        t: &Enc,
        s: &Enc,
        n: usize,
    ) -> Result<(), RefineError> {
        let names = |e: &Enc| {
            e.memory
                .iter()
                .map(|(n, b)| (n.clone(), b.len()))
                .collect::<Vec<_>>()
        };
        let (sn, tn) = (names(s), names(t));
        if sn.iter().any(|x| !tn.contains(x)) || tn.iter().any(|x| !sn.contains(x)) {
            return Err(RefineError::target(prog::Unsupported {
                construct: format!(
                    "observed memory objects that differ from the source's ({:?} vs {:?})",
                    tn.iter().map(|x| &x.0).collect::<Vec<_>>(),
                    sn.iter().map(|x| &x.0).collect::<Vec<_>>()
                ),
                at: format!("@{}", self.tgt.func.name),
                span: None,
            }));
        }
        for (e, side) in [(t, Side::Target), (s, Side::Source)] {
            if terms.literal(e.conflict).and_then(|v| v.as_bool()) == Some(false) {
                continue;
            }
            let mut c = e.defs.clone();
            c.extend(&e.valid);
            c.extend(&launch.side);
            c.push(e.conflict);
            let conds = c
                .into_iter()
                .map(|x| Condition::new(x, "R-MEM-SMT conflict"))
                .collect();
            let name = format!("n{n}-{}-memory-conflict", side.as_str());
            match self.solve(terms, &name, conds)? {
                Outcome::Unsat => {}
                other => {
                    let why = match other {
                        Outcome::Sat(_) => {
                            "threads communicate through memory: an execution \
                             within the bounds has a byte of a shared object written by one thread \
                             and accessed by another, which the encoding does not express \
                             (R-MEM-SMT)"
                        }
                        _ => {
                            "the solver could not decide whether threads communicate through \
                              memory (R-MEM-SMT)"
                        }
                    };
                    let p = side.pick(self.src, self.tgt);
                    let u = prog::Unsupported {
                        construct: why.to_string(),
                        at: format!("@{} ({n} threads)", p.func.name),
                        span: None,
                    };
                    return Err(match side {
                        Side::Source => RefineError::source(u),
                        Side::Target => RefineError::target(u),
                    });
                }
            }
        }
        Ok(())
    }

    /// Adds to the proposal: with the source choices of `s` determined by
    /// `choice` (fixed values, or a function of the target's choices; none
    /// when the source has no choices), the source does not match the
    /// target.
    fn learn(
        &mut self,
        terms: &mut Terms,
        prop: &mut Incremental,
        s: &Enc,
        t: &Enc,
        choice: Option<TermId>,
    ) {
        // `s` is a copy of the source encoding of its own (fresh result
        // variables) over the shared launch inputs, so the constraint
        // speaks about every launch.
        let mut pos = s.defs.clone();
        pos.extend(choice);
        let mut neg = s.valid.clone();
        neg.push(obs::matches(terms, s, t));
        let negc = terms.and(&neg);
        let not = terms.not(negc);
        pos.push(not);
        let all = terms.and(&pos);
        prop.assert(
            terms,
            Condition::new(all, format!("learned source {}", s.name)),
        );
    }

    fn build_cex(
        &mut self,
        terms: &mut Terms,
        launch: &Launch,
        t: &Enc,
        s: &Enc,
        m: &Model,
        // The source side's constraints on the launch, to show a source
        // execution; `None`: none shown.
        base: Option<&[TermId]>,
    ) -> Result<Cex, RefineError> {
        let target = concrete(terms, t, m);
        let args: Vec<Vec<i128>> = launch
            .args
            .iter()
            .map(|row| {
                row.iter()
                    .map(|x| {
                        let w = terms.sort(*x).bv_width().unwrap_or(32);
                        signed_of(w, obs::ev_bits(terms, m, *x))
                    })
                    .collect()
            })
            .collect();
        let inputs = launch_inputs(terms, launch, m);
        // One source execution on the same launch, for the side-by-side view
        // (not for a lifted launch of many threads, where finding one costs
        // more than the check; the replay shows the interpreter's).
        let (source, source_memory) = match base {
            None => (None, None),
            Some(base) => {
                let conds = base
                    .iter()
                    .map(|x| Condition::new(*x, "source on cex launch"))
                    .collect();
                match self.solve(terms, &format!("n{}-cex-source", t.n), conds)? {
                    Outcome::Sat(m2) => {
                        let m2 = complete(terms, &m2);
                        (
                            Some(concrete(terms, s, &m2)),
                            Some(obs::concrete_memory(terms, s, &m2)),
                        )
                    }
                    _ => (None, None),
                }
            }
        };
        let buffers = launch
            .buffers
            .iter()
            .map(|(_, name, bytes)| {
                let bs = bytes
                    .iter()
                    .map(|b| obs::ev_bits(terms, m, *b) as u8)
                    .collect();
                (name.clone(), bs)
            })
            .collect();
        Ok(Cex {
            threads: t.n,
            inputs,
            args,
            target,
            source,
            buffers,
            memory: obs::concrete_memory(terms, t, m),
            source_memory,
            lifted: None,
            target_choices: scale::choice_values(terms, t, m),
            replay_note: None,
            frozen: t
                .freeze
                .iter()
                .map(|f| {
                    let w = terms.sort(f.var).bv_width().unwrap_or(32);
                    signed_of(w, obs::ev_bits(terms, m, f.var))
                })
                .collect(),
            sub: None,
        })
    }
}

/// D-ANCHOR: the source's anchor keys equal to the target's for the anchor
/// of the same token name, thread and occurrence; a source anchor with no
/// namesake gets keys that never converge (thread-specific constants).
/// Every such assignment is one source strategy; it is learned up front so
/// that CEGIS need not discover, one partition of the threads at a time,
/// that the source can group its threads as the target did (F-21).
fn mirror_anchors(terms: &mut Terms, s: &Enc, t: &Enc) -> TermId {
    let mut cs = Vec::new();
    for (name, th, vars) in &s.anchor_keys {
        let twin = t
            .anchor_keys
            .iter()
            .find(|(n2, t2, _)| n2 == name && t2 == th)
            .map(|x| &x.2);
        for (j, v) in vars.iter().enumerate() {
            let rhs = match twin {
                Some(tv) if j < tv.len() => tv[j],
                _ => {
                    let w = terms.sort(*v).bv_width().unwrap_or(encode::CW);
                    let x = (th * s.k + j) as u128 & ((1u128 << w) - 1);
                    terms.bv_const(w, x)
                }
            };
            cs.push(terms.eq(*v, rhs));
        }
    }
    terms.and(&cs)
}

/// `--input-domain` (the M-AGREE test): every input of the launch within
/// the domain (a 1-bit input 0 or 1; P-INPUT: a float input ranges over
/// the domain converted). None without a domain.
fn domain_constraints(terms: &mut Terms, launch: &Launch, dom: Option<&Vec<i128>>) -> Vec<TermId> {
    let Some(dom) = dom else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (_, v) in &launch.vars {
        let w = terms.sort(*v).bv_width().unwrap_or(32);
        let vals: Vec<i128> = if w == 1 { vec![0, 1] } else { dom.clone() };
        let fmt = launch.floats.iter().find(|(x, _)| x == v).map(|(_, f)| *f);
        let alts: Vec<TermId> = vals
            .iter()
            .map(|x| {
                let bits = match fmt {
                    Some(f) => f.from_int(*x < 0, x.unsigned_abs()) as u128,
                    None => *x as u128,
                };
                let c = terms.bv_const(w, bits & ((1u128 << w) - 1));
                terms.eq(*v, c)
            })
            .collect();
        out.push(terms.or(&alts));
    }
    out
}

/// R-PREFIX: some thread of `e` is cut by the bound without being stuck
/// (it might still end, or do more, with more steps).
fn open_cut(terms: &mut Terms, e: &Enc) -> TermId {
    let xs: Vec<TermId> = e
        .cut
        .iter()
        .zip(&e.stuck)
        .map(|(c, st)| {
            let ns = terms.not(*st);
            terms.and(&[*c, ns])
        })
        .collect();
    terms.or(&xs)
}

/// Every input of more than 4 bits within [-8, 8] (signed).
fn small_inputs(terms: &mut Terms, launch: &Launch) -> Vec<TermId> {
    let mut out = Vec::new();
    for (_, v) in &launch.vars {
        let w = terms.sort(*v).bv_width().unwrap_or(32);
        if w > 4 {
            let lo = terms.bv_const(w, (1u128 << w) - 8);
            let hi = terms.bv_const(w, 8);
            out.push(terms.bv_sge(*v, lo));
            out.push(terms.bv_sle(*v, hi));
        }
    }
    out
}

/// Time limit of each query that looks for a smaller counterexample.
const MINIMIZE_TIMEOUT: Duration = Duration::from_secs(10);

/// Extra CEGIS rounds spent looking for a shorter counterexample.
const MINIMIZE_ROUNDS: usize = 4;

/// The number of block visits of the whole target execution (16 bits).
fn total_visits(terms: &mut Terms, t: &Enc) -> TermId {
    let none = terms.bv_const(t.bw, t.nb as u128);
    let one = terms.bv_const(16, 1);
    let zero = terms.bv_const(16, 0);
    let mut acc = zero;
    for row in &t.blk {
        for b in row.iter().take(t.k) {
            let running = terms.eq(*b, none);
            let inc = terms.ite(running, zero, one);
            acc = terms.bv_add(acc, inc);
        }
    }
    acc
}

/// The launch's input values in `m`, by name (signed).
/// R-FREEZE-SMT: a strategy for the source copy `s`'s frozen values: the
/// target's frozen value of the same name, thread and step, else the bits
/// the poison operand computed (a transform that drops `nsw` and the
/// `freeze` keeps the wrapped value).
fn freeze_tie(terms: &mut Terms, s: &Enc, t: &Enc) -> TermId {
    let eqs: Vec<TermId> = s
        .freeze
        .iter()
        .map(|f| {
            let w = terms.sort(f.var).bv_width();
            let other = t
                .freeze
                .iter()
                .find(|g| {
                    g.name == f.name
                        && g.t == f.t
                        && g.s == f.s
                        && terms.sort(g.var).bv_width() == w
                })
                .map(|g| g.var);
            terms.eq(f.var, other.unwrap_or(f.bits))
        })
        .collect();
    terms.and(&eqs)
}

fn launch_inputs(terms: &mut Terms, launch: &Launch, m: &Model) -> Vec<(String, i128)> {
    launch
        .vars
        .iter()
        .map(|(name, v)| {
            let w = terms.sort(*v).bv_width().unwrap_or(32);
            let bits = obs::ev_bits(terms, m, *v);
            (name.clone(), signed_of(w, bits))
        })
        .collect()
}

fn signed_of(w: u32, bits: u128) -> i128 {
    if w == 1 || w >= 128 {
        return bits as i128;
    }
    if bits & (1u128 << (w - 1)) != 0 {
        bits as i128 - (1i128 << w)
    } else {
        bits as i128
    }
}

/// The refine-level reason of a query's `unknown` at `threads`. A stopped
/// run is reported by [`Checker::run`] from the budget itself; the reason
/// here is then not shown.
fn reason(r: UnknownReason, threads: usize) -> UnknownWhy {
    match r {
        UnknownReason::Timeout => UnknownWhy::QueryTimeLimit { threads },
        UnknownReason::Solver(why) => UnknownWhy::Solver { threads, why },
        UnknownReason::Stopped(stop) => UnknownWhy::Stopped {
            stop,
            finished: Vec::new(),
        },
    }
}
