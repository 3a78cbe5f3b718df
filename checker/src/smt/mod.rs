//! The only module that talks to Z3 (STYLE.md item 8, ARCHITECTURE.md).
//!
//! A [`Query`] is a named conjunction of [`Condition`]s over one
//! [`Terms`] arena with a time limit. [`solve`] translates it, runs Z3 and
//! answers [`Outcome::Sat`] with a model over the query's own variables,
//! [`Outcome::Unsat`], or [`Outcome::Unknown`] with the reason. A time-out is
//! always `Unknown(Timeout)`, never anything else (R-BOUND: "a solver
//! time-out answers unknown, never refines"). Before a model is returned it is
//! re-checked by the vc evaluator; a model that does not satisfy the query is
//! an internal error ([`SmtError::ModelMismatch`]), not an answer.
//!
//! [`Query::dump_smt`] writes a query as a standalone SMT-LIB file named after
//! it, replayable with the `z3` binary; a [`Session`] does that for every
//! query it runs when given a dump directory (`--dump-smt DIR`).
//!
//! # Which Z3 binding, and why
//!
//! The `z3` crate is pinned to `=0.22.0` (with `z3-sys =0.14.1`), linked
//! dynamically through pkg-config to Debian's libz3 4.8.12. It is the newest
//! release, and it builds and links here without `bindgen` or a download
//! feature: its bindings are pre-generated, and Rust only links the C
//! functions actually called, all of which exist in 4.8.12 (115 of the 817
//! functions z3-sys declares do not: character, finite-set, simplifier,
//! real-closed-field, parser-context and user-propagator APIs among them;
//! calling one fails at link time, not at run time). It needs Rust 1.88,
//! hence the workspace's `rust-version`. z3-sys warns that
//! it targets Z3 >= 4.13.3 and that `Z3_decl_kind` numbering changed since
//! 4.8.12 (4.8.16, 4.13.2, 4.14.1, 5.0.0, 5.3.0); this module therefore never
//! inspects declaration kinds: it builds terms, checks, and reads values by
//! evaluation, whose enums (`Z3_lbool`, `Z3_sort_kind`) did not change. The
//! tests of this module pin that behaviour on the installed library (model
//! values re-checked by our evaluator, Z3's own parse of our dumps agreeing
//! with the API).

mod budget;
mod float;
#[cfg(test)]
mod float_tests;
mod model;
#[cfg(test)]
pub(crate) mod tests;
mod translate;

use rustc_hash::FxHashSet as HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use z3::ast::Bool;
use z3::{Params, SatResult, Solver, Tactic};

use crate::vc::eval::Model;
use crate::vc::{smtlib, Condition, TermId, Terms};
use translate::Translator;

pub use budget::{Budget, Stop};

/// A named satisfiability question.
#[derive(Clone, Debug)]
pub struct Query {
    /// Names the query in logs, dumps and errors, e.g.
    /// `cegis-cl12-check-3`. Unique within a session for readable dumps.
    pub name: String,
    /// Wall-clock limit for the solver; reaching it answers
    /// `Unknown(Timeout)`.
    pub timeout: Duration,
    /// The query asks whether all of these hold at once.
    pub assertions: Vec<Condition>,
}

/// The answer to a query.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Satisfiable, with values for every variable and application in the
    /// assertions (checked against them by the vc evaluator).
    Sat(Model),
    Unsat,
    Unknown(UnknownReason),
}

/// Why the solver gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownReason {
    /// The query's time limit was reached.
    Timeout,
    /// Z3 gave up for another reason (its own words).
    Solver(String),
    /// The run stopped (its time budget spent, or Ctrl-C): the query was
    /// not run or was interrupted.
    Stopped(Stop),
}

impl std::fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnknownReason::Timeout => write!(f, "solver time limit reached"),
            UnknownReason::Solver(why) => write!(f, "solver gave up: {why}"),
            UnknownReason::Stopped(why) => write!(f, "run stopped: {why}"),
        }
    }
}

/// Failures that are not answers: our own bugs or an unusable dump directory.
#[derive(Debug, thiserror::Error)]
pub enum SmtError {
    /// Z3's model does not satisfy the query under the vc evaluator, or could
    /// not be read back: the translation, the evaluator or Z3 is wrong.
    #[error("query {query}: internal error: {detail}")]
    ModelMismatch { query: String, detail: String },
    #[error("query {query}: cannot write SMT-LIB dump {path}: {source}")]
    Dump {
        query: String,
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Query {
    pub fn new(name: impl Into<String>, timeout: Duration) -> Query {
        Query {
            name: name.into(),
            timeout,
            assertions: Vec::new(),
        }
    }

    /// Adds a condition that must hold.
    pub fn assert(&mut self, term: TermId, origin: impl Into<String>) {
        self.assertions.push(Condition::new(term, origin));
    }

    /// The standalone SMT-LIB script of this query.
    pub fn to_smtlib(&self, terms: &Terms) -> String {
        smtlib::script(
            terms,
            &self.name,
            Some(timeout_ms(self.timeout) as u64),
            &self.assertions,
        )
    }

    /// The dump's file name: the query name with every character outside
    /// `[A-Za-z0-9._-]` replaced by `_`, plus `.smt2`.
    pub fn file_name(&self) -> String {
        let stem: String = self
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let stem = if stem.is_empty() || stem.starts_with('.') {
            format!("q{stem}")
        } else {
            stem
        };
        format!("{stem}.smt2")
    }

    /// Writes the query to `dir/<file_name>` (creating `dir`), returning the
    /// path written.
    pub fn dump_smt(&self, terms: &Terms, dir: &Path) -> Result<PathBuf, SmtError> {
        let path = dir.join(self.file_name());
        let err = |source| SmtError::Dump {
            query: self.name.clone(),
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(err)?;
        std::fs::write(&path, self.to_smtlib(terms)).map_err(err)?;
        Ok(path)
    }
}

/// Z3 takes milliseconds as a `u32`; at least 1 (0 would mean "no limit" in
/// some Z3 versions) and saturating.
fn timeout_ms(t: Duration) -> u32 {
    u32::try_from(t.as_millis()).unwrap_or(u32::MAX).max(1)
}

/// Runs `query` on a fresh Z3 solver of this thread's context.
pub fn solve(terms: &Terms, query: &Query) -> Result<Outcome, SmtError> {
    run(terms, query, false, &Budget::default()).map(|(o, _)| o)
}

/// The answer of [`unsat_core`].
#[derive(Clone, Debug, PartialEq)]
pub enum CoreOutcome {
    /// Unsatisfiable, and so is the subset of the assertions at these indices
    /// (into `Query::assertions`, increasing; not necessarily minimal).
    Unsat { core: Vec<usize> },
    /// Satisfiable or unknown, as [`solve`] would answer.
    Other(Outcome),
}

/// Like [`solve`], but an unsat answer names assertions that conflict: their
/// origins say which IR conditions exclude each other, e.g. why a program is
/// always UB (STYLE.md item 9: vacuity is reported with its reason).
pub fn unsat_core(terms: &Terms, query: &Query) -> Result<CoreOutcome, SmtError> {
    Ok(match run(terms, query, true, &Budget::default())? {
        (Outcome::Unsat, core) => CoreOutcome::Unsat { core },
        (other, _) => CoreOutcome::Other(other),
    })
}

/// Solves `query`; with `track`, each assertion is guarded by a fresh
/// tracking literal and an unsat answer comes with the indices in the core.
fn run(
    terms: &Terms,
    query: &Query,
    track: bool,
    budget: &Budget,
) -> Result<(Outcome, Vec<usize>), SmtError> {
    if let Some(stop) = budget.spent() {
        return Ok((Outcome::Unknown(UnknownReason::Stopped(stop)), Vec::new()));
    }
    let mut tr = Translator::new();
    let bools: Vec<Bool> = query
        .assertions
        .iter()
        .map(|c| tr.boolean(terms, c.term))
        .collect();
    // Unsat cores need the plain solver (tracking literals).
    let solver = solver_for(eliminating(&tr) && !track);
    let mut trackers = Vec::new();
    for b in bools {
        if track {
            let p = Bool::fresh_const("track");
            solver.assert_and_track(b, &p);
            trackers.push(p);
        } else {
            solver.assert(b);
        }
    }
    let outcome = check(
        &solver,
        &mut tr,
        terms,
        &query.name,
        query.timeout,
        &query.assertions,
        budget,
    )?;
    let mut core = Vec::new();
    if outcome == Outcome::Unsat && track {
        let zcore = solver.get_unsat_core();
        core = (0..trackers.len())
            .filter(|&i| zcore.contains(&trackers[i]))
            .collect();
    }
    Ok((outcome, core))
}

/// Whether the translated query is solved by the solver that eliminates
/// equations first ([`solver_for`]): it has floating-point operations and
/// no uninterpreted function. With uninterpreted functions (unknown
/// callees) that strategy falls back to Z3's general `smt` tactic,
/// which reasons about the floats without bit-blasting them first: minutes
/// where the default solver takes seconds (LLVM's
/// `GVNHoist/hoist-convergent.ll`, `@no_convergent_call_hoisting`: 7 s
/// refines with the default solver, the time limit without it).
fn eliminating(tr: &Translator) -> bool {
    tr.float && !tr.uf
}

/// The solver for a query: Z3's default, or, for a query with
/// floating-point operations and no uninterpreted function
/// ([`eliminating`], R-FLOAT-SMT), one that first simplifies and
/// eliminates variables defined by equations (`solve-eqs`), then runs Z3's
/// floating-point/bit-vector strategy (its general one outside that logic).
/// A source and a target that compute one float value build one term for
/// it (`vc::build` hash-conses), but the C-OPS results over them are
/// variables defined by equations (`res = value`); Z3's incremental default
/// bit-blasts every float operation before it sees that the two sides
/// agree (minutes for a few `float4` operations in two threads), the
/// eliminating tactic finds it at once. Both decide the same formulas.
fn solver_for(float: bool) -> Solver {
    if !float {
        return Solver::new();
    }
    // After the elimination: Z3's floating-point/bit-vector strategy, or
    // its general one for goals outside that logic (uninterpreted
    // functions).
    let finish = Tactic::new("qffpbv").or_else(&Tactic::new("smt"));
    ["simplify", "solve-eqs", "simplify"]
        .iter()
        .map(|n| Tactic::new(n))
        .reduce(|a, b| a.and_then(&b))
        .expect("three tactics")
        .and_then(&finish)
        .solver()
}

/// Checks `solver`, which holds the translations of `assertions`, within
/// `timeout`, and reads its answer back (a model is re-checked against
/// `assertions` by the vc evaluator).
fn check(
    solver: &Solver,
    tr: &mut Translator,
    terms: &Terms,
    name: &str,
    timeout: Duration,
    assertions: &[Condition],
    budget: &Budget,
) -> Result<Outcome, SmtError> {
    if let Some(stop) = budget.spent() {
        return Ok(Outcome::Unknown(UnknownReason::Stopped(stop)));
    }
    let (timeout, clipped) = budget.clip(timeout);
    let mut params = Params::new();
    params.set_u32("timeout", timeout_ms(timeout));
    // Z3 would otherwise catch SIGINT itself during a check (answering
    // "interrupted from keyboard" while our handler never runs): Ctrl-C is
    // the run's Budget's, which interrupts Z3 through its context.
    params.set_bool("ctrl_c", false);
    solver.set_params(&params);
    let start = Instant::now();
    let result = budget.watch(solver.get_context(), || solver.check());
    let elapsed = start.elapsed();
    match result {
        SatResult::Unsat => Ok(Outcome::Unsat),
        SatResult::Unknown => {
            // The run's budget ended this query (Ctrl-C, or the limit
            // clipped to what was left of --time-limit).
            if let Some(stop) = budget.spent() {
                return Ok(Outcome::Unknown(UnknownReason::Stopped(stop)));
            }
            if clipped && elapsed >= timeout {
                return Ok(Outcome::Unknown(UnknownReason::Stopped(Stop::TimeLimit)));
            }
            let why = solver.get_reason_unknown().unwrap_or_default();
            // Z3 says "timeout" or "canceled" depending on where the limit
            // struck; the clock is the fallback for any other wording.
            let timed_out =
                why.contains("timeout") || why.contains("canceled") || elapsed >= timeout;
            Ok(Outcome::Unknown(if timed_out {
                UnknownReason::Timeout
            } else {
                UnknownReason::Solver(why)
            }))
        }
        SatResult::Sat => {
            let mismatch = |detail: String| SmtError::ModelMismatch {
                query: name.to_string(),
                detail,
            };
            let zmodel = solver
                .get_model()
                .ok_or_else(|| mismatch("Z3 answered sat without a model".into()))?;
            let roots: Vec<TermId> = assertions.iter().map(|c| c.term).collect();
            let model = model::extract(tr, &zmodel, terms, &roots).map_err(mismatch)?;
            check_model(terms, assertions, &model).map_err(mismatch)?;
            Ok(Outcome::Sat(model))
        }
    }
}

/// A solver that keeps its assertions between checks, so a growing
/// conjunction (the proposals of CEGIS) is translated once per condition
/// rather than once per check. Every check still has a name and a time
/// limit, and [`Incremental::snapshot`] is the standalone query it answers.
///
/// All calls must pass the same [`Terms`] arena (it may grow in between).
pub struct Incremental {
    solver: Solver,
    tr: Translator,
    assertions: Vec<Condition>,
    /// Limit of each check.
    pub timeout: Duration,
    /// The solver is [`solver_for`]`(true)` (the assertions have floats
    /// and no uninterpreted function, [`eliminating`]).
    float_solver: bool,
}

impl Incremental {
    pub fn new(timeout: Duration) -> Incremental {
        Incremental {
            solver: Solver::new(),
            tr: Translator::new(),
            assertions: Vec::new(),
            timeout,
            float_solver: false,
        }
    }

    /// Adds a condition for this and every later check.
    /// Changes the time limit of later checks.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    pub fn assert(&mut self, terms: &Terms, condition: Condition) {
        let b = self.tr.boolean(terms, condition.term);
        self.solver.assert(b);
        self.assertions.push(condition);
    }

    pub fn assertions(&self) -> &[Condition] {
        &self.assertions
    }

    /// The standalone query a check named `name` answers.
    pub fn snapshot(&self, name: &str) -> Query {
        Query {
            name: name.to_string(),
            timeout: self.timeout,
            assertions: self.assertions.clone(),
        }
    }

    /// Checks the conjunction of everything asserted so far.
    pub fn check(&mut self, terms: &Terms, name: &str) -> Result<Outcome, SmtError> {
        self.check_within(terms, name, &Budget::default())
    }

    /// [`Incremental::check`] within a run's budget.
    pub fn check_within(
        &mut self,
        terms: &Terms,
        name: &str,
        budget: &Budget,
    ) -> Result<Outcome, SmtError> {
        // Floats met for the first time (and no uninterpreted function),
        // or an uninterpreted function met after them: the same assertions
        // in the solver that [`eliminating`] chooses.
        let want = eliminating(&self.tr);
        if want != self.float_solver {
            self.solver = solver_for(want);
            for c in &self.assertions {
                let b = self.tr.boolean(terms, c.term);
                self.solver.assert(b);
            }
            self.float_solver = want;
        }
        check(
            &self.solver,
            &mut self.tr,
            terms,
            name,
            self.timeout,
            &self.assertions,
            budget,
        )
    }
}

/// Runs `f` on a thread of its own, whose Z3 context (the `z3` crate keeps
/// one per thread) is fresh, and returns its result (a panic in `f` is
/// resumed here).
///
/// Z3's answers depend on its context's history (which model it gives a
/// satisfiable query): a worker that checked function A before B could give
/// B another counterexample than a worker that checked B first. `validate`
/// and `prove` run each work item this way, so their output does not depend
/// on how items were spread over `--jobs` workers. Nothing of Z3 crosses
/// the threads (results are plain values).
pub fn in_fresh_context<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .stack_size(FRESH_STACK)
            .spawn_scoped(s, f)
            .expect("the operating system starts a thread");
        match worker.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Stack of an [`in_fresh_context`] thread: the main thread's 8 MiB, since
/// the work it runs was run there before.
const FRESH_STACK: usize = 8 << 20;

/// Every assertion must evaluate to true in `model`.
fn check_model(terms: &Terms, assertions: &[Condition], model: &Model) -> Result<(), String> {
    for c in assertions {
        match model.eval(terms, c.term) {
            Ok(v) if v.as_bool() == Some(true) => {}
            other => {
                return Err(format!(
                    "Z3 model does not satisfy assertion ({}) {}: evaluates to {other:?}",
                    c.origin,
                    terms.display(c.term)
                ))
            }
        }
    }
    Ok(())
}

/// One line of a [`Session`]'s log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryRecord {
    pub name: String,
    /// `sat`, `unsat` or `unknown`.
    pub answer: &'static str,
    pub elapsed: Duration,
    /// Where the query was dumped, if it was.
    pub dumped: Option<PathBuf>,
}

/// Runs queries, optionally dumping each, and keeps a log of them.
#[derive(Debug, Default)]
pub struct Session {
    /// `--dump-smt DIR`: write every query there before solving it.
    pub dump_dir: Option<PathBuf>,
    pub log: Vec<QueryRecord>,
    dumped_names: HashSet<String>,
    /// The run's deadline and interrupt flag, applied to every query.
    pub budget: Budget,
}

impl Session {
    pub fn new(dump_dir: Option<PathBuf>) -> Session {
        Session {
            dump_dir,
            log: Vec::new(),
            dumped_names: HashSet::default(),
            budget: Budget::default(),
        }
    }

    /// Dumps (if configured; a repeated name gets a `.N` suffix rather than
    /// overwriting an earlier dump) then solves `query`.
    pub fn solve(&mut self, terms: &Terms, query: &Query) -> Result<Outcome, SmtError> {
        let dumped = self.dump(terms, query)?;
        let start = Instant::now();
        let outcome = run(terms, query, false, &self.budget)?.0;
        self.record(&query.name, &outcome, start, dumped);
        Ok(outcome)
    }

    /// Like [`Session::solve`] for a check of an incremental solver; the dump
    /// is its [`Incremental::snapshot`].
    pub fn check(
        &mut self,
        terms: &Terms,
        solver: &mut Incremental,
        name: &str,
    ) -> Result<Outcome, SmtError> {
        let dumped = match self.dump_dir {
            Some(_) => self.dump(terms, &solver.snapshot(name))?,
            None => None,
        };
        let start = Instant::now();
        let outcome = solver.check_within(terms, name, &self.budget)?;
        self.record(name, &outcome, start, dumped);
        Ok(outcome)
    }

    fn dump(&mut self, terms: &Terms, query: &Query) -> Result<Option<PathBuf>, SmtError> {
        let Some(dir) = &self.dump_dir else {
            return Ok(None);
        };
        let mut q = query.clone();
        let mut n = 1;
        while !self.dumped_names.insert(q.file_name()) {
            n += 1;
            q.name = format!("{}.{n}", query.name);
        }
        q.dump_smt(terms, dir).map(Some)
    }

    fn record(&mut self, name: &str, outcome: &Outcome, start: Instant, dumped: Option<PathBuf>) {
        self.log.push(QueryRecord {
            name: name.to_string(),
            answer: match outcome {
                Outcome::Sat(_) => "sat",
                Outcome::Unsat => "unsat",
                Outcome::Unknown(_) => "unknown",
            },
            elapsed: start.elapsed(),
            dumped,
        });
    }
}
