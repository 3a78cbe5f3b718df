//! The reference interpreter (M-OPER): the operational semantics of
//! `../shared/SEMANTICS.md` §1, §2 and §4 on concrete launches.
//!
//! | concept                                        | module        | rules |
//! |------------------------------------------------|---------------|-------|
//! | values, integer arithmetic, poison             | [`value`]     | P-THREAD |
//! | vector values, element access, bitcast, reductions | [`vector`] | P-VEC, P-VEC-ACCESS, P-VEC-BITCAST, P-VEC-REDUCE |
//! | value rules of arithmetic, compares, casts (scalars and element-wise) | `ops` | P-THREAD, P-VEC-ELEM |
//! | machine state, dynamic-instance keys           | [`state`]     | D-INST, D-CW |
//! | callee classification, cycles, reachability    | [`program`]   | C-CONV, C-INTR, C-OPS, D-HIER |
//! | single-thread step rules                       | [`step`]      | P-THREAD, D-MAX-ITER (block visits) |
//! | calls and the keys of convergent calls         | [`calls`]     | P-INPUT, C-CONV, D-CTRL, D-LOOP, D-ENTRY-*, D-ANCHOR |
//! | scheduler: firing communicating sets           | [`sched`]     | M-OPER, C-OPS, D-ANCHOR |
//! | literal maximal convergence, order checks      | [`dmax`]      | D-MAX, D-ORDER, D-CW |
//! | the one source of nondeterminism               | [`chooser`]   | — |
//! | exact reductions of the enumeration            | [`reduce`]    | R-BEHAV, M-OPER |
//! | per-thread digests of memoized states          | [`digest`]    | R-BEHAV |
//! | live frame values: what memoization compares   | [`liveness`]  | M-LIVE |
//! | data inputs, drawn results as symbols, instantiated | [`data`]      | M-DATA |
//! | launch symmetry: the argument, sorted inputs | [`symmetry`]  | R-BEHAV, P-INPUT, M-RENAME |
//! | which threads and values may be renamed        | [`renaming`]  | M-RENAME |
//! | the value-flow graph that analysis reads       | [`valueflow`] | M-RENAME |
//! | orbit representatives, restricted growth, closure | [`orbit`]  | M-RENAME |
//! | launches and the exploration driver            | [`launch`]    | P-LAUNCH, P-INPUT, R-BEHAV |
//! | output: tables, counts, JSON                   | [`render`]    | R-CEX layout |
//!
//! How an execution runs: every thread executes on its own until it reaches
//! a convergent operation whose result depends on its communicating set
//! (C-OPS), or an anchor whose set is chosen (D-ANCHOR `all`). The
//! scheduler then fires one set at a time. A set is identified by the *key*
//! of its dynamic instance (see [`state`]); a thread that later reaches an
//! instance that has already fired shows that the schedule was impossible,
//! and the execution is discarded (counted as pruned). Converged-with for
//! block visits follows D-MAX, computed operationally (D-MAX-ITER) while
//! running and checked against the literal definition in [`dmax`].

pub mod access;
pub mod calls;
pub mod chooser;
mod collective;
pub mod data;
pub mod digest;
pub mod dmax;
pub mod float;
pub mod lanes;
pub mod launch;
pub mod liveness;
pub mod memory;
mod ops;
pub mod orbit;
pub mod program;
pub mod query;
pub mod readers;
pub mod reduce;
pub mod renaming;
pub mod render;
pub mod sched;
pub mod state;
pub mod step;
pub mod symmetry;
pub mod value;
pub mod valueflow;
pub mod vector;

use std::collections::BTreeMap;

pub use chooser::{Chooser, ChooserMode};
pub use launch::{explore, explore_with, Exploration};
pub use state::{KeyId, Loc};
pub use value::{UbKind, Val};

/// D-ENTRY-LAUNCH: how `entry` of the launched kernel converges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Environment {
    /// Threads of the same launch group are converged (OpenCL workgroup).
    OpenCl,
    /// Never converged (C/C++ threads).
    Cxx,
}

/// D-ANCHOR: which sets an anchor may form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnchorMode {
    /// Every choice allowed by D-CW and D-ORDER.
    All,
    /// The threads maximally converged at the anchor (D-MAX-ITER).
    Maximal,
}

/// D-UNCTRL: semantics of uncontrolled convergent operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Uncontrolled {
    /// D-MAX.
    Maximal,
    /// Tokens inserted by the inference procedure, then D-CTRL/D-LOOP.
    Inferred,
}

/// C-OPS: a shuffle reading a thread outside the communicating set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleOob {
    Poison,
    Ub,
}

/// Values of one kernel argument (P-INPUT); for a float parameter, its
/// bit pattern (P-FLOAT).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgValues {
    /// The same value in every thread.
    Uniform(i128),
    /// One value per thread, in thread order.
    PerThread(Vec<i128>),
}

/// Everything that defines a launch and how it is explored.
#[derive(Clone, Debug)]
pub struct Options {
    /// Name of the kernel; `None`: the module's only definition.
    pub entry: Option<String>,
    /// Number of threads (P-LAUNCH).
    pub threads: u32,
    /// Number of launch groups; threads are split into contiguous groups
    /// of equal size (the last may be smaller).
    pub groups: u32,
    /// Threads per subgroup (`--subgroup-size`); `None`: all threads form
    /// one subgroup. Subgroup operations communicate within a subgroup,
    /// workgroup barriers and collectives across the workgroup (P-LAUNCH).
    pub subgroup_size: Option<u32>,
    /// Given argument values; the others are enumerated over the domain.
    pub args: BTreeMap<String, ArgValues>,
    /// Per-thread instruction bound; a thread exceeding it is cut.
    pub max_steps: u64,
    pub environment: Environment,
    pub anchor: AnchorMode,
    pub uncontrolled: Uncontrolled,
    pub shuffle_oob: ShuffleOob,
    /// Values tried for integer inputs that are not given (`i1` inputs
    /// always range over false/true).
    pub int_domain: Vec<i128>,
    pub chooser: ChooserMode,
    /// Stop after this many executions run to their end or pruned (the
    /// exploration is then reported incomplete). Executions abandoned at
    /// a state already explored are counted by [`Options::max_merged`].
    pub max_executions: u64,
    /// Stop after this many executions abandoned at a state already
    /// explored (memoization, [`reduce`]); `None`:
    /// [`MERGED_PER_EXECUTION`] times `max_executions`
    /// ([`Options::merge_budget`]). A merged execution is a prefix of an
    /// execution, usually a short one (the launch and the steps to the
    /// first scheduling point), so it gets a budget of its own: counted
    /// against `max_executions`, the merges of launches that differ in
    /// dead inputs stopped searches whose explored executions were well
    /// within it (cl04-caller-merge.src at 4 threads: 97,200 explored,
    /// 103,680 merged).
    pub max_merged: Option<u64>,
    /// The closure under renaming lists at most this many thread records
    /// (behaviours times threads) and counts the rest (by orbit size with
    /// blind thread renamings, [`symmetry::orbit`]; by digest otherwise)
    /// ([`symmetry::CLOSURE_RECORDS`], the default; tests set it low).
    pub closure_records: usize,
    /// Apply the exact reductions of [`reduce`] (memoized states) and
    /// [`symmetry`] (launch symmetry); `false` runs the
    /// plain enumeration, the oracle the reductions are tested against.
    pub reduce: bool,
    /// With `reduce`: run the results of uninterpreted functions that
    /// feed only data as symbols (M-DATA drawn results); `false` leaves
    /// them to value renaming (M-RENAME), for the tests of that
    /// reduction. Both are exact.
    pub drawn_results: bool,
    /// P-INPUT / P-MEM-OBJ: the size of an input buffer whose parameter has
    /// no `dereferenceable(N)` and whose contents are not given.
    pub buffer_bytes: u64,
    /// Given contents of pointer parameters' buffers, by parameter name
    /// (little-endian bytes; the buffer's size is their number).
    pub buffers: BTreeMap<String, Vec<u8>>,
    /// P-MEM-RACE: detect data races (vector clocks over P-MEM-SYNC) and
    /// end the thread that completes one with UB; `false` (the default for
    /// now) runs racy programs under the schedules' values (README).
    pub races: bool,
    /// P-INPUT / R-STREAM-SMT: given input streams, `[thread][k]`: the
    /// k-th integer result of the thread's calls of unknown non-`readnone`
    /// functions (truncated to the call's width); reads past the given
    /// values, and every read when this is empty, are drawn from the
    /// domain. Given streams turn the M-RENAME renamings off.
    pub streams: Vec<Vec<i128>>,
    /// Worker threads of the exhaustive search (at least 1): the canonical
    /// launches are dealt out among them round-robin (`launch.rs`,
    /// `search_jobs`). The distinct behaviours do not depend on it, nor
    /// does their order unless the closure under renaming adds some; the
    /// counts of explored and merged executions do (each worker memoizes
    /// its own states).
    pub jobs: usize,
}

/// Default per-thread step bound.
pub const DEFAULT_MAX_STEPS: u64 = 1000;
/// Default size of an input buffer (P-MEM-OBJ).
pub const DEFAULT_BUFFER_BYTES: u64 = 64;
/// Default number of executions explored before stopping.
pub const DEFAULT_MAX_EXECUTIONS: u64 = 100_000;
/// Merged executions allowed per execution of the budget, unless
/// [`Options::max_merged`] says otherwise.
pub const MERGED_PER_EXECUTION: u64 = 10;

impl Default for Options {
    fn default() -> Options {
        Options {
            entry: None,
            threads: 2,
            groups: 1,
            subgroup_size: None,
            args: BTreeMap::new(),
            max_steps: DEFAULT_MAX_STEPS,
            environment: Environment::OpenCl,
            anchor: AnchorMode::All,
            uncontrolled: Uncontrolled::Maximal,
            shuffle_oob: ShuffleOob::Poison,
            int_domain: vec![0, 1, 2],
            chooser: ChooserMode::Exhaustive,
            max_executions: DEFAULT_MAX_EXECUTIONS,
            max_merged: None,
            closure_records: symmetry::CLOSURE_RECORDS,
            reduce: true,
            drawn_results: true,
            buffer_bytes: DEFAULT_BUFFER_BYTES,
            buffers: BTreeMap::new(),
            races: false,
            streams: Vec::new(),
            jobs: 1,
        }
    }
}

impl Options {
    /// How many merged executions the search may abandon before it stops
    /// ([`Options::max_merged`]).
    pub fn merge_budget(&self) -> u64 {
        self.max_merged
            .unwrap_or_else(|| self.max_executions.saturating_mul(MERGED_PER_EXECUTION))
    }

    /// How many behaviours a listing holds: [`Options::closure_records`]
    /// thread records over the thread count (the closure under renaming,
    /// and M-DATA's instances, stop listing there).
    pub fn listing_cap(&self) -> usize {
        self.closure_records / self.threads.max(1) as usize
    }

    /// The launch group of thread `t`.
    pub fn group_of(&self, t: u32) -> u32 {
        self.geometry().group_of(t)
    }

    /// The thread geometry of the launch (P-LAUNCH).
    pub fn geometry(&self) -> crate::intrinsics::Geometry {
        crate::intrinsics::Geometry {
            threads: self.threads,
            groups: self.groups,
            subgroup: self.subgroup_size,
        }
    }
}

/// How one execution ended (STYLE 3).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Every thread returned.
    Finished,
    /// Undefined behaviour in `thread` at `loc`.
    Ub {
        thread: u32,
        loc: Loc,
        why: value::UbKind,
    },
    /// Some threads exceeded the step bound (and none hit UB).
    Cut { threads: Vec<u32> },
    /// The rules derive a contradiction (e.g. D-INST: two instances of one
    /// thread converged, CL-07; D-ORDER: a cycle in convergence-before).
    Contradiction { rule: &'static str, detail: String },
}

impl Outcome {
    pub fn class(&self) -> &'static str {
        match self {
            Outcome::Finished => "finished",
            Outcome::Ub { .. } => "undefined behaviour",
            Outcome::Cut { .. } => "cut by step bound",
            Outcome::Contradiction { .. } => "contradiction",
        }
    }
}

/// Why a launch could not be explored at all (STYLE 3).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The program breaks a static rule the interpreter relies on.
    #[error("ill-formed program ({rule}) at {at}: {message}")]
    IllFormed {
        rule: &'static str,
        at: String,
        message: String,
    },
    /// A construct outside the executable subset (P-PROG).
    #[error("unsupported construct `{construct}` at {at}")]
    Unsupported { construct: String, at: String },
    /// The launch description is wrong (no kernel, bad argument).
    #[error("bad launch: {0}")]
    BadLaunch(String),
}
