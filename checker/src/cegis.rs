//! Counterexample-guided iteration for exists-forall problems.
//!
//! R-REF asks whether some behaviour of the target is produced by no
//! execution of the source: "exists a target execution such that for all
//! source executions the observations differ". Rather than hand the solver a
//! quantified formula (issue 6: "not by hoping a quantified query returns"),
//! [`run`] alternates two quantifier-free questions:
//!
//! 1. *propose*: a candidate for the existential side, consistent with every
//!    witness blocked so far;
//! 2. *check*: a witness for the universal side refuting the candidate; none
//!    means the candidate is a solution;
//!
//! and *blocks* each witness before proposing again. The loop is generic over
//! [`ExistsForall`], so the refinement checker can propose whole target
//! executions and block whole observation classes; [`SmtExistsForall`] is the
//! textbook instance over a formula `phi(x, y)`, used by the tests.
//!
//! Every query gets a name `<problem>-propose-<i>` / `<problem>-check-<i>`,
//! and the result counts iterations, so a verdict can state how it was
//! reached (R-BOUND) and every query can be dumped and replayed.

use std::collections::HashMap;
use std::time::Duration;

use crate::smt::{Incremental, Outcome, Query, Session, SmtError, UnknownReason};
use crate::vc::eval::{Model, Value};
use crate::vc::{Condition, Sort, TermId, Terms, VarId};

/// Answer of a propose step.
#[derive(Clone, Debug, PartialEq)]
pub enum Proposal<C> {
    Candidate(C),
    /// No candidate is consistent with the blocked witnesses: no solution.
    Exhausted,
    Unknown(UnknownReason),
}

/// Answer of a check step.
#[derive(Clone, Debug, PartialEq)]
pub enum Check<W> {
    /// The candidate satisfies the universal side: it is a solution.
    Holds,
    /// A witness on the universal side refutes the candidate.
    Refuted(W),
    Unknown(UnknownReason),
}

/// An exists-forall problem, as the three operations CEGIS needs. `query`
/// is the name the step's solver query must carry.
pub trait ExistsForall {
    type Candidate: Clone;
    type Witness;
    fn propose(&mut self, query: &str) -> Result<Proposal<Self::Candidate>, SmtError>;
    fn check(
        &mut self,
        candidate: &Self::Candidate,
        query: &str,
    ) -> Result<Check<Self::Witness>, SmtError>;
    /// Records `witness` so that no later proposal is refuted by it.
    fn block(&mut self, candidate: &Self::Candidate, witness: Self::Witness);
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum CegisOutcome<C> {
    /// A candidate for which the check found no witness.
    Found(C),
    /// Every candidate is refuted by some blocked witness.
    NoSolution,
    /// The named query answered unknown.
    Unknown {
        query: String,
        reason: UnknownReason,
    },
    /// `max_iterations` candidates were refuted without a conclusion.
    IterationLimit,
}

/// A run's outcome with its accounting.
#[derive(Clone, Debug, PartialEq)]
pub struct CegisResult<C> {
    pub outcome: CegisOutcome<C>,
    /// Number of propose steps taken (the last one included).
    pub iterations: usize,
    /// Names of the queries issued, in order.
    pub queries: Vec<String>,
}

/// Runs CEGIS on `problem`, whose queries are named after `name`, with at
/// most `max_iterations` propose steps.
pub fn run<P: ExistsForall>(
    problem: &mut P,
    name: &str,
    max_iterations: usize,
) -> Result<CegisResult<P::Candidate>, SmtError> {
    let mut queries = Vec::new();
    let finish = |outcome, iterations, queries| {
        Ok(CegisResult {
            outcome,
            iterations,
            queries,
        })
    };
    for i in 0..max_iterations {
        let iterations = i + 1;
        let pq = format!("{name}-propose-{i}");
        queries.push(pq.clone());
        let candidate = match problem.propose(&pq)? {
            Proposal::Candidate(c) => c,
            Proposal::Exhausted => return finish(CegisOutcome::NoSolution, iterations, queries),
            Proposal::Unknown(reason) => {
                let outcome = CegisOutcome::Unknown { query: pq, reason };
                return finish(outcome, iterations, queries);
            }
        };
        let cq = format!("{name}-check-{i}");
        queries.push(cq.clone());
        match problem.check(&candidate, &cq)? {
            Check::Holds => return finish(CegisOutcome::Found(candidate), iterations, queries),
            Check::Refuted(w) => problem.block(&candidate, w),
            Check::Unknown(reason) => {
                let outcome = CegisOutcome::Unknown { query: cq, reason };
                return finish(outcome, iterations, queries);
            }
        }
    }
    finish(CegisOutcome::IterationLimit, max_iterations, queries)
}

/// Why a formula cannot be posed as an [`SmtExistsForall`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProblemError {
    #[error("variable {0} is neither existential nor universal")]
    FreeVariable(String),
    #[error("variable {0} is both existential and universal")]
    BothSides(String),
    #[error("variable {0} has sort {1:?}, which has no literals to substitute")]
    NoLiterals(String, Sort),
    #[error("uninterpreted function {0}: its quantifier would be ambiguous")]
    Function(String),
    #[error("term {0} in the exists/forall lists is not a variable")]
    NotAVariable(String),
}

/// `exists x. (side(x) and forall y. phi(x, y))` over Bool, bit-vector and
/// Int variables, by substituting literal values: proposals solve
/// `side(x) and phi(x, y_k)` for every blocked witness `y_k` (on one
/// incremental solver, each instance asserted once); checks solve
/// `not phi(c, y)` for candidate `c`.
pub struct SmtExistsForall {
    pub terms: Terms,
    exists: Vec<VarId>,
    forall: Vec<VarId>,
    phi: TermId,
    /// Holds the side conditions and one instance of `phi` per blocked
    /// witness.
    proposer: Incremental,
    origin: String,
    timeout: Duration,
    /// Runs (and optionally dumps) every query; its log names them all.
    pub session: Session,
    blocked: Vec<HashMap<VarId, Value>>,
}

/// The value a variable takes when the solver leaves it unconstrained (it
/// was simplified away): any value is then as good as another.
fn default_value(sort: &Sort) -> Value {
    match sort {
        Sort::Bool => Value::Bool(false),
        Sort::BitVec(w) => Value::bv(*w, 0),
        Sort::Int => Value::Int(0),
        Sort::Uninterpreted(_) => unreachable!("SmtExistsForall::new rejects uninterpreted sorts"),
    }
}

impl SmtExistsForall {
    /// Poses `exists exists. forall forall. phi`; `origin` names where `phi`
    /// comes from. Every variable of `phi` must be on exactly one side.
    pub fn new(
        terms: Terms,
        exists: &[TermId],
        forall: &[TermId],
        phi: TermId,
        origin: impl Into<String>,
        timeout: Duration,
        session: Session,
    ) -> Result<SmtExistsForall, ProblemError> {
        let as_vars = |ts: &[TermId]| -> Result<Vec<VarId>, ProblemError> {
            ts.iter()
                .map(|&t| {
                    terms
                        .as_var(t)
                        .ok_or_else(|| ProblemError::NotAVariable(terms.display(t).to_string()))
                })
                .collect()
        };
        let (exists, forall) = (as_vars(exists)?, as_vars(forall)?);
        for v in exists.iter().chain(&forall) {
            let d = terms.var_decl(*v);
            if matches!(d.sort, Sort::Uninterpreted(_)) {
                return Err(ProblemError::NoLiterals(d.name.clone(), d.sort.clone()));
            }
            if exists.contains(v) && forall.contains(v) {
                return Err(ProblemError::BothSides(d.name.clone()));
            }
        }
        let both: Vec<VarId> = exists.iter().chain(&forall).copied().collect();
        only_over(&terms, phi, &both)?;
        Ok(SmtExistsForall {
            terms,
            exists,
            forall,
            phi,
            proposer: Incremental::new(timeout),
            origin: origin.into(),
            timeout,
            session,
            blocked: Vec::new(),
        })
    }

    /// Adds a constraint on the existential variables (only: a universal
    /// or free variable in it is an error).
    pub fn with_side(mut self, side: Condition) -> Result<SmtExistsForall, ProblemError> {
        only_over(&self.terms, side.term, &self.exists)?;
        self.proposer.assert(&self.terms, side);
        Ok(self)
    }

    /// The witnesses blocked so far.
    pub fn blocked(&self) -> &[HashMap<VarId, Value>] {
        &self.blocked
    }

    fn values_of(&self, model: &Model, vars: &[VarId]) -> HashMap<VarId, Value> {
        vars.iter()
            .map(|&v| {
                let value = model
                    .var(v)
                    .cloned()
                    .unwrap_or_else(|| default_value(&self.terms.var_decl(v).sort));
                (v, value)
            })
            .collect()
    }

    /// `phi` with the variables of `values` replaced by their literals.
    fn instantiate(&mut self, values: &HashMap<VarId, Value>) -> TermId {
        let map: HashMap<VarId, TermId> = values
            .iter()
            .map(|(&v, val)| {
                let lit = self
                    .terms
                    .value(val)
                    .expect("checked: no uninterpreted sorts");
                (v, lit)
            })
            .collect();
        self.terms.substitute(self.phi, &map)
    }
}

/// `t` mentions no function and no variable outside `allowed`.
fn only_over(terms: &Terms, t: TermId, allowed: &[VarId]) -> Result<(), ProblemError> {
    let (vars, funcs) = terms.symbols_of(&[t]);
    if let Some(&f) = funcs.first() {
        return Err(ProblemError::Function(terms.func_decl(f).name.clone()));
    }
    match vars.iter().find(|v| !allowed.contains(v)) {
        Some(v) => Err(ProblemError::FreeVariable(terms.var_decl(*v).name.clone())),
        None => Ok(()),
    }
}

impl ExistsForall for SmtExistsForall {
    type Candidate = HashMap<VarId, Value>;
    type Witness = HashMap<VarId, Value>;

    fn propose(&mut self, name: &str) -> Result<Proposal<Self::Candidate>, SmtError> {
        Ok(
            match self.session.check(&self.terms, &mut self.proposer, name)? {
                Outcome::Sat(m) => Proposal::Candidate(self.values_of(&m, &self.exists)),
                Outcome::Unsat => Proposal::Exhausted,
                Outcome::Unknown(r) => Proposal::Unknown(r),
            },
        )
    }

    fn check(
        &mut self,
        candidate: &Self::Candidate,
        name: &str,
    ) -> Result<Check<Self::Witness>, SmtError> {
        let inst = self.instantiate(candidate);
        let refuted = self.terms.not(inst);
        let mut q = Query::new(name, self.timeout);
        q.assert(refuted, format!("not {} at the candidate", self.origin));
        Ok(match self.session.solve(&self.terms, &q)? {
            Outcome::Sat(m) => Check::Refuted(self.values_of(&m, &self.forall)),
            Outcome::Unsat => Check::Holds,
            Outcome::Unknown(r) => Check::Unknown(r),
        })
    }

    fn block(&mut self, _candidate: &Self::Candidate, witness: Self::Witness) {
        let inst = self.instantiate(&witness);
        let origin = format!("{} at blocked witness {}", self.origin, self.blocked.len());
        self.proposer
            .assert(&self.terms, Condition::new(inst, origin));
        self.blocked.push(witness);
    }
}

#[cfg(test)]
mod tests;
