//! Why a refinement check gave no verdict, or a vacuous one (R-BOUND: every
//! `unknown` names its cause; STYLE 9: a vacuous check says why). Types, so
//! that callers (the CLI's exit status, `prove`) decide on the cause, not on
//! the words.

use std::fmt;
use std::time::Duration;

use crate::smt::Stop;

/// Why `refine` answers `unknown`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownWhy {
    /// A solver query reached its own limit (`--timeout`) at `threads`.
    QueryTimeLimit { threads: usize },
    /// Z3 gave up for another reason (its words).
    Solver { threads: usize, why: String },
    /// CEGIS ran `limit` iterations without deciding `threads`.
    Iterations { threads: usize, limit: usize },
    /// No target execution returns (or provably never returns, R-PREFIX)
    /// within `max_steps` block visits.
    TargetCut { max_steps: usize },
    /// A source execution on the launch of a candidate counterexample needs
    /// more than `max_steps` block visits.
    SourceCut { threads: usize, max_steps: usize },
    /// A counterexample found under the memory abstraction (atomic results
    /// as inputs) that real memory cannot produce.
    MemoryAbstraction { detail: String },
    /// The run stopped: its time budget (`--time-limit`) was spent, or it
    /// was interrupted (Ctrl-C). `finished`: the thread counts decided
    /// (refines within bounds) before.
    Stopped { stop: Stop, finished: Vec<usize> },
    /// D-HIER (`--hierarchy all`): a program has more cycle hierarchies
    /// than the encoding takes (`found` so far; `complete`: that is all).
    Hierarchies {
        role: &'static str,
        found: usize,
        complete: bool,
        limit: usize,
    },
}

impl UnknownWhy {
    /// The run was interrupted (Ctrl-C): exit status 130, not 2.
    pub fn is_interrupted(&self) -> bool {
        matches!(
            self,
            UnknownWhy::Stopped {
                stop: Stop::Interrupted,
                ..
            }
        )
    }
}

impl fmt::Display for UnknownWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownWhy::QueryTimeLimit { threads } => {
                write!(f, "{threads} threads: solver time limit")
            }
            UnknownWhy::Solver { threads, why } => {
                write!(f, "{threads} threads: solver gave up: {why}")
            }
            UnknownWhy::Iterations { threads, limit } => {
                write!(
                    f,
                    "{threads} threads: CEGIS iteration limit ({limit}) reached"
                )
            }
            UnknownWhy::TargetCut { max_steps } => write!(
                f,
                "bound too small: no target execution returns within {max_steps} block visits \
                 per thread (nor is shown never to return, R-PREFIX)"
            ),
            UnknownWhy::SourceCut { threads, max_steps } => write!(
                f,
                "{threads} threads: bound too small: a source execution on the launch of a \
                 candidate counterexample needs more than {max_steps} block visits"
            ),
            UnknownWhy::MemoryAbstraction { detail } => write!(
                f,
                "a counterexample under the memory abstraction (atomicrmw results as inputs) \
                 is not replayable with real memory: {detail}"
            ),
            UnknownWhy::Hierarchies {
                role,
                found,
                complete,
                limit,
            } => write!(
                f,
                "{role}: {}{found} cycle hierarchies, limit {limit} (D-HIER; `--hierarchy llvm` \
                 checks LLVM's alone)",
                if *complete { "" } else { "at least " }
            ),
            UnknownWhy::Stopped { stop, finished } => {
                write!(f, "{stop}; ")?;
                if finished.is_empty() {
                    write!(f, "no thread count finished")
                } else {
                    let ns: Vec<String> = finished.iter().map(|n| n.to_string()).collect();
                    write!(
                        f,
                        "refines at {} threads, the others not checked",
                        ns.join(", ")
                    )
                }
            }
        }
    }
}

/// Why a check holds for a trivial reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VacuousWhy {
    /// Every source execution has undefined behaviour (within the bound).
    SourceAlwaysUb,
    /// Every source execution has undefined behaviour or is cut by the
    /// bound without being stuck (R-PREFIX), and some would be free of UB
    /// were cut executions counted: a larger bound may compare something.
    SourceAlwaysCut { max_steps: usize },
}

impl fmt::Display for VacuousWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VacuousWhy::SourceAlwaysUb => {
                write!(f, "the source has undefined behaviour on every launch")
            }
            VacuousWhy::SourceAlwaysCut { max_steps } => write!(
                f,
                "bound too small: the source has undefined behaviour or is cut on every launch \
                 (no source execution ends or is shown never to return within {max_steps} block \
                 visits per thread)"
            ),
        }
    }
}

/// The time budget of a whole `refine` run by default (`--time-limit`).
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(300);
