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

pub mod callsem;
mod cegis;
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
mod twin;
mod vecprep;
pub mod why;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::smt::{Budget, Outcome, Query, Session, SmtError, UnknownReason};
use crate::vc::eval::{Model, Value};
use crate::vc::{Condition, TermId, Terms};

pub use pipeline::{args_by_name, check, check_pair, PairResult};
pub use why::{UnknownWhy, VacuousWhy, DEFAULT_TIME_LIMIT};

use encode::{encode, Enc, Launch, Observe};
use obs::CThread;
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
    /// `--grow-steps CAP` (R-BOUND): when the answer is that the bound is
    /// too small (no target execution settles, a candidate
    /// counterexample's source execution is cut, the source is cut on every
    /// launch), check again at twice `max_steps`, up to CAP block visits,
    /// within the time limit; the verdict names the bound used
    /// ([`Outcome2::max_steps`]). `None`: `max_steps` only.
    pub grow_steps: Option<usize>,
    /// P-MEM-OBJ, R-MEM-SMT: the bytes of each input buffer whose pointer
    /// parameter has no `dereferenceable(N)` (`--buffer-bytes`; default
    /// the interpreter's, 64).
    pub buffer_bytes: u64,
    /// `--grow-buffers CAP` (R-BOUND): when the source has undefined
    /// behaviour on every launch and some input buffer has the size
    /// `buffer_bytes` chose, check again with buffers twice as large, up
    /// to CAP bytes (at most `memobj::MAX_OBJECT_BYTES`), within the time
    /// limit; the verdict names the size used ([`Outcome2::buffer_bytes`]).
    pub grow_buffers: Option<u64>,
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
            grow_steps: None,
            buffer_bytes: semantics::machine::DEFAULT_BUFFER_BYTES,
            grow_buffers: None,
        }
    }
}

/// Default bound on block visits per thread.
pub const DEFAULT_MAX_STEPS: usize = 8;

/// R-MEM, P-MEM-UNDEF: one byte of an observed object's final contents as
/// counterexamples, the replay and the interpreter's verdict compare them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalByte {
    Val(u8),
    /// Poison (the interpreter's pointer bytes and input bytes never given
    /// read as poison too, which only a poison source byte matches).
    Poison,
    /// P-MEM-UNDEF: unordered last writes of two threads differ.
    Undef,
}

impl FinalByte {
    /// R-MEM: source byte `self` matches target byte `t`: a poison source
    /// byte matches anything; an undef one any byte but poison (P-MEM-UNDEF:
    /// undef is any value, never poison); a value only itself (so a target
    /// undef byte only a source undef or poison byte).
    pub fn matches(self, t: FinalByte) -> bool {
        match self {
            FinalByte::Poison => true,
            FinalByte::Undef => t != FinalByte::Poison,
            FinalByte::Val(_) => t == self,
        }
    }
}

/// R-MEM: final contents of observed objects, by object name.
pub type FinalMemory = Vec<(String, Vec<FinalByte>)>;

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
    /// R-MEM: the target's final contents of observed objects, and the
    /// shown source execution's.
    pub memory: FinalMemory,
    pub source_memory: Option<FinalMemory>,
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
    /// P-INPUT / R-STREAM-SMT: each thread's input stream (signed values
    /// at the stream width), which replay gives the interpreter
    /// (`Options::streams`); empty without stream reads.
    pub streams: Vec<Vec<i128>>,
}

/// The verdict (STYLE 3).
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Every target behaviour within the bounds is a source behaviour (or
    /// the source has UB). `cut`: per thread count at which some target
    /// executions were cut by the step bound without being stuck (so not
    /// compared, R-PREFIX), one launch on which that happens. (Executions
    /// over full-range inputs are too many to count; an example launch
    /// tells the user which inputs a larger `--max-steps` would cover.)
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
    /// R-PREFIX: the cut threads are stuck (they provably never return),
    /// so the execution is compared; false: some cut thread is not stuck
    /// and the execution is not compared.
    pub stuck: bool,
}

/// What a check did, for printing with the verdict.
#[derive(Clone, Debug)]
pub struct Outcome2 {
    pub verdict: Verdict,
    /// Per thread count checked: CEGIS iterations.
    pub iterations: Vec<(usize, usize)>,
    /// What `--cutoff` established, when asked.
    pub cutoff: Option<cutoff::Cutoff>,
    /// R-BOUND: the block visits per thread the verdict holds for
    /// (`Options::max_steps`, or more when `--grow-steps` raised it).
    pub max_steps: usize,
    /// R-BOUND, P-MEM-OBJ: the bytes of each input buffer without
    /// `dereferenceable` (`Options::buffer_bytes`, or more when
    /// `--grow-buffers` raised it).
    pub buffer_bytes: u64,
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
    /// C-VAL's pair check: results of convergent operations are inputs
    /// ([`Launch::free_results`]).
    pub free_results: bool,
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
        let mut source_cut = false;
        let mut target_complete = false;
        for &n in &self.opts.threads.clone() {
            let (r, it) = self.check_scaled(n)?;
            iterations.push((n, it));
            // Vacuity only matters when no counterexample is found (a
            // counterexample is a complete target execution on a launch
            // where no source execution has UB); at many threads it is
            // among the costliest queries.
            if !matches!(r, PerN::Cex(_)) && self.session.budget.spent().is_none() {
                let (src_ok, src_cut, tgt_ok) = self.vacuity(n)?;
                source_defined |= src_ok;
                source_cut |= src_cut;
                target_complete |= tgt_ok;
            }
            // One stop mechanism (smt::Budget): a query cut by the run's
            // budget leaves this thread count undecided, and ends the run.
            if let (Some(stop), false) = (self.session.budget.spent(), matches!(r, PerN::Cex(_))) {
                return Ok(Outcome2 {
                    verdict: Verdict::Unknown(UnknownWhy::Stopped { stop, finished }),
                    iterations,
                    cutoff: None,
                    max_steps: self.opts.max_steps,
                    buffer_bytes: self.opts.buffer_bytes,
                });
            }
            match r {
                PerN::Cex(c) => {
                    return Ok(Outcome2 {
                        verdict: Verdict::Counterexample(c),
                        iterations,
                        cutoff: None,
                        max_steps: self.opts.max_steps,
                        buffer_bytes: self.opts.buffer_bytes,
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
        } else if !source_defined && source_cut {
            Verdict::Vacuous(VacuousWhy::SourceAlwaysCut {
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
            max_steps: self.opts.max_steps,
            buffer_bytes: self.opts.buffer_bytes,
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
        l.free_results = self.free_results;
        l.add_streams(terms, &[self.src, self.tgt], self.opts.max_steps);
        l
    }

    fn report_last(&mut self) {
        if let (Some(p), Some(rec)) = (self.progress.as_mut(), self.session.log.last()) {
            p(rec);
        }
    }

    /// Vacuity (STYLE 9): does some source execution run to the end without
    /// UB, and does some target execution return within the bound? A
    /// thread that is stuck (R-PREFIX: it provably never returns) counts as
    /// run to its end, in the source only when it does not require
    /// progress (as the launches CEGIS compares). The middle answer: when
    /// no source execution runs to its end, does one run without UB at
    /// least as far as the bound (so the bound, not UB, is to blame)?
    fn vacuity(&mut self, n: usize) -> Result<(bool, bool, bool), RefineError> {
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
        let defined_so_far: Vec<Condition> = c
            .iter()
            .map(|t| Condition::new(*t, "source defined so far"))
            .collect();
        c.extend(cegis::settled(&mut terms, &s, !self.src.progress_required));
        let conds = c
            .into_iter()
            .map(|t| Condition::new(t, "source defined"))
            .collect();
        let src_ok = !matches!(
            self.solve(&terms, &format!("n{n}-source-defined"), conds)?,
            Outcome::Unsat
        );
        let src_cut = !src_ok
            && !matches!(
                self.solve(
                    &terms,
                    &format!("n{n}-source-defined-so-far"),
                    defined_so_far
                )?,
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
        c.extend(cegis::settled(&mut terms, &t, true));
        let conds = c
            .into_iter()
            .map(|t| Condition::new(t, "target complete"))
            .collect();
        let tgt_ok = !matches!(
            self.solve(&terms, &format!("n{n}-target-complete"), conds)?,
            Outcome::Unsat
        );
        Ok((src_ok, src_cut, tgt_ok))
    }

    /// A launch on which some target execution at `n` threads is cut by
    /// the bound without being stuck (R-PREFIX: such executions are not
    /// compared), if there is one; else one on which some target thread is
    /// stuck (compared: it provably never returns), if there is one.
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
        c.push(cegis::open_cut(terms, t));
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
        if let Outcome::Sat(m) = r {
            return Ok(Some(CutLaunch {
                threads: n,
                inputs: launch_inputs(terms, launch, &m),
                stuck: false,
            }));
        }
        // No execution set aside: is some thread stuck (R-PREFIX)?
        let stuck = terms.or(&t.stuck);
        if terms.is_false(stuck) {
            return Ok(None);
        }
        let mut c = t.defs.clone();
        c.extend(&t.valid);
        c.extend(&launch.side);
        c.push(stuck);
        let conds = c
            .into_iter()
            .map(|x| Condition::new(x, "target stuck"))
            .collect();
        Ok(
            match self.solve(terms, &format!("n{n}-target-stuck"), conds)? {
                Outcome::Sat(m) => Some(CutLaunch {
                    threads: n,
                    inputs: launch_inputs(terms, launch, &m),
                    stuck: true,
                }),
                _ => None,
            },
        )
    }
}

/// The launch's input values in `m`, by name (signed).
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
