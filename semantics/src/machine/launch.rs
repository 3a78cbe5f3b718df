//! Launches (P-LAUNCH, P-INPUT) and the exploration driver that enumerates
//! every execution through the [`Chooser`] and collects the distinct
//! behaviours (R-BEHAV).

use rustc_hash::FxHashMap as HashMap;

use im::Vector;

use crate::ir::{BlockId, Module, Type};

use super::chooser::Chooser;
use super::dmax::check_order;
use super::memory::{Byte, ObjKind};
use super::program::Program;
use super::sched::{run_execution, Checkpoints, ExecEnd};
use super::state::{
    CallEvent, Frame, KeyNode, Keys, Machine, Observation, Status, ThreadEnd, ThreadState, Visit,
};
use super::step::{choose_value, enter_block, Ctx, Stop};
use super::value::{int, Val};
use super::{ArgValues, Options, Outcome, RunError};

/// One thread of a finished execution: its id and launch group, and what
/// it did ([`ThreadBody`], shared: the renamings of the closure under
/// renaming move a body to another thread id without copying it, so a
/// listed image costs a few pointers per thread). Reads and writes reach
/// the body's fields through `Deref`/`DerefMut` (a write copies a shared
/// body first).
#[derive(Clone, Debug)]
pub struct ThreadRecord {
    pub tid: u32,
    pub group: u32,
    pub body: std::sync::Arc<ThreadBody>,
}

/// What a thread of a finished execution did.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadBody {
    /// Block visits in order (positions index this list). Shared: an
    /// M-DATA instance or a renamed image that changes only observed values
    /// keeps the record's path and calls without copying them.
    pub trace: std::sync::Arc<Vec<Visit>>,
    /// Convergent calls in order (shared as `trace`).
    pub events: std::sync::Arc<Vec<CallEvent>>,
    /// Observable events (R-OBS).
    pub observations: Vec<Observation>,
    /// `None` if the thread was still blocked when the execution ended
    /// (another thread's contradiction).
    pub end: Option<ThreadEnd>,
}

impl std::ops::Deref for ThreadRecord {
    type Target = ThreadBody;
    fn deref(&self) -> &ThreadBody {
        &self.body
    }
}

impl std::ops::DerefMut for ThreadRecord {
    fn deref_mut(&mut self) -> &mut ThreadBody {
        std::sync::Arc::make_mut(&mut self.body)
    }
}

/// One complete execution.
#[derive(Clone, Debug)]
pub struct Execution {
    pub outcome: Outcome,
    pub threads: Vec<ThreadRecord>,
    /// Argument values per thread, by parameter name.
    pub inputs: Vec<(String, Vec<Val>)>,
    /// The cycle hierarchy used per function (index into
    /// [`super::program::FuncInfo::hierarchies`]).
    pub hierarchy: Vec<usize>,
    /// R-MEM (`final`): the contents of the observed objects (globals outside
    /// workgroup memory, input buffers) at the end, by object name, in
    /// object order.
    pub memory: Vec<(String, Vec<Byte>)>,
}

/// Argument values per thread, by parameter name.
pub type Inputs = Vec<(String, Vec<Val>)>;

/// A (thread, position) pair naming a block visit.
pub type VisitRef = (usize, usize);

impl Execution {
    /// Converged-with classes of block visits (D-CW), each sorted, in order
    /// of their first member.
    pub fn visit_classes(&self) -> Vec<Vec<VisitRef>> {
        let mut classes = group_by_key(self.threads.iter().map(|th| visit_keys(th))).0;
        classes.sort();
        classes
    }

    /// The communicating set of each convergent call (as visit positions),
    /// per thread and event index.
    pub fn event_sets(&self) -> Vec<Vec<Vec<VisitRef>>> {
        let (sets, of) = group_by_key(self.threads.iter().map(|th| event_keys(th)));
        of.iter()
            .map(|th| th.iter().map(|i| sets[*i as usize].clone()).collect())
            .collect()
    }

    /// A canonical description of what the execution shows (R-BEHAV): paths,
    /// converged-with classes, convergent calls with sets and results,
    /// observations, how each thread ended.
    pub fn behaviour_key(&self) -> String {
        let mut s = format!("{:?}|{:?}|", self.outcome, self.visit_classes());
        // Each call's communicating set, named by its first member (thread
        // order): the same partition of the calls as the sets themselves,
        // in text linear in the number of calls.
        let mut first: HashMap<super::KeyId, VisitRef> = HashMap::default();
        for (t, th) in self.threads.iter().enumerate() {
            for e in th.events.iter() {
                first.entry(e.key).or_insert((t, e.pos));
            }
        }
        let sets: Vec<Vec<VisitRef>> = self
            .threads
            .iter()
            .map(|th| th.events.iter().map(|e| first[&e.key]).collect())
            .collect();
        for (t, th) in self.threads.iter().enumerate() {
            let path: Vec<(usize, BlockId)> = th.trace.iter().map(|v| (v.func, v.block)).collect();
            // Token values are key ids, which depend on the order keys were
            // interned; the sets already say which instances are converged.
            let evs: Vec<(&str, Option<Val>, &VisitRef)> = th
                .events
                .iter()
                .zip(&sets[t])
                .map(|(e, s)| {
                    let r = match &e.result {
                        Some(Val::Token(_)) => Some(Val::Token(super::KeyId(0))),
                        r => r.clone(),
                    };
                    (e.callee.as_str(), r, s)
                })
                .collect();
            s += &format!("{path:?}{evs:?}{:?}{:?};", th.observations, th.end);
        }
        s += &format!("{:?}", self.memory);
        s
    }
}

impl Execution {
    /// A 128-bit digest of [`Execution::behaviour_key`]'s content (the same
    /// parts, hashed by structure instead of formatted: XXH3-128 over the
    /// bytes their `Hash` writes, [`super::reduce::Fp`]), so that equal
    /// keys give equal digests and different keys different ones but with
    /// probability about 2^-128 per pair. The search and the closure under
    /// renaming tell behaviours apart by it (formatting every finished
    /// execution's key was a fifth of the instructions of
    /// cl28-texture2d-sink-else.src at 4 threads).
    pub fn behaviour_digest(&self) -> u128 {
        DigestParts::new(self).digest(&self.outcome, None)
    }
}

/// The parts of an execution's behaviour digest that do not depend on the
/// order of its threads, computed once so that the closure under renaming
/// ([`super::symmetry::renamed_digest`]) digests each image of the
/// execution, its thread records in another order, without building it.
///
/// The digest: the outcome; then per thread in order, a digest of what
/// the thread alone shows (path, convergent calls with their results,
/// token results as one value, observations, end), then per block visit
/// its converged-with class (D-CW) and per call its communicating set,
/// each named by its least (thread, position) member; the memory. Naming
/// every member of a class by the class's least member describes the
/// partition exactly (two visits are in one class if and only if they
/// carry the same name) and needs no sorting, so an image costs time
/// linear in its visits and calls. A thread's path and calls, and the
/// memory, are hashed once and enter the digest as 128-bit digests.
pub struct DigestParts {
    /// Per thread: the digest of its path and convergent calls.
    paths: Vec<u128>,
    /// Per thread: the digest of its own record (its path digest,
    /// observations, end).
    threads: Vec<u128>,
    /// Converged-with classes of block visits, members as (thread, position).
    visits: Vec<Vec<VisitRef>>,
    /// Per thread, per block visit: its index in `visits`.
    visit_of: Vec<Vec<u32>>,
    /// Communicating sets of the calls, members as (thread, position).
    sets: Vec<Vec<VisitRef>>,
    /// Per thread, per call: its index in `sets`.
    set_of: Vec<Vec<u32>>,
    /// The digest of the observed memory.
    memory: u128,
}

/// A thread's block visits as (D-MAX-ITER key, position).
fn visit_keys(th: &ThreadBody) -> impl Iterator<Item = (super::KeyId, usize)> + '_ {
    th.trace.iter().enumerate().map(|(p, v)| (v.key, p))
}

/// A thread's convergent calls as (instance key, visit position).
fn event_keys(th: &ThreadBody) -> impl Iterator<Item = (super::KeyId, usize)> + '_ {
    th.events.iter().map(|ev| (ev.key, ev.pos))
}

/// Groups `(thread, position)` items by key: the groups in order of first
/// appearance, and per thread the group index of each of its items.
fn group_by_key<I>(items: impl Iterator<Item = I>) -> (Vec<Vec<VisitRef>>, Vec<Vec<u32>>)
where
    I: Iterator<Item = (super::KeyId, usize)>,
{
    let mut by_key: HashMap<super::KeyId, u32> = HashMap::default();
    let mut groups: Vec<Vec<VisitRef>> = Vec::new();
    let of = items
        .enumerate()
        .map(|(t, its)| {
            its.map(|(key, pos)| {
                let i = *by_key.entry(key).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() as u32 - 1
                });
                groups[i as usize].push((t, pos));
                i
            })
            .collect()
        })
        .collect();
    (groups, of)
}

impl DigestParts {
    pub fn new(e: &Execution) -> DigestParts {
        let (visits, visit_of) = group_by_key(e.threads.iter().map(|th| visit_keys(th)));
        let (sets, set_of) = group_by_key(e.threads.iter().map(|th| event_keys(th)));
        let paths: Vec<u128> = e.threads.iter().map(|th| Self::path(th)).collect();
        let threads = e
            .threads
            .iter()
            .zip(&paths)
            .map(|(th, p)| Self::thread(*p, th))
            .collect();
        let mut f = super::reduce::Fp::new();
        f.add(&e.memory);
        DigestParts {
            paths,
            threads,
            visits,
            visit_of,
            sets,
            set_of,
            memory: f.finish(),
        }
    }

    /// The digest of thread record `th`'s path and convergent calls (with
    /// their results, token results as one value).
    fn path(th: &ThreadBody) -> u128 {
        let mut f = super::reduce::Fp::new();
        f.add(&th.trace.len());
        for v in th.trace.iter() {
            f.add(&(v.func, v.block));
        }
        f.add(&th.events.len());
        for ev in th.events.iter() {
            let r = match &ev.result {
                Some(Val::Token(_)) => Some(Val::Token(super::KeyId(0))),
                r => r.clone(),
            };
            f.add(&(ev.callee.as_str(), r));
        }
        f.finish()
    }

    /// The digest of what a thread alone shows: `path` (its [`Self::path`])
    /// and `th`'s observations and end.
    fn thread(path: u128, th: &ThreadBody) -> u128 {
        let mut f = super::reduce::Fp::new();
        f.add(&path);
        f.add(&th.observations);
        f.add(&th.end);
        f.finish()
    }

    /// A digest of what thread `t` shows that no renaming of threads
    /// changes: its own record ([`Self::thread`]) and the sizes of its
    /// converged-with classes and communicating sets, in its order. Two
    /// threads one renaming maps onto each other have equal colours
    /// ([`super::symmetry::orbit`] labels threads colour by colour).
    pub fn color(&self, t: usize) -> u128 {
        let mut f = super::reduce::Fp::new();
        f.add(&self.threads[t]);
        for c in &self.visit_of[t] {
            f.add(&self.visits[*c as usize].len());
        }
        for s in &self.set_of[t] {
            f.add(&self.sets[*s as usize].len());
        }
        f.finish()
    }

    /// Replaces thread `t`'s own digest by that of `th`, which has the same
    /// path and calls: the parts of another execution that differs from
    /// this one only in what thread `t` observes and how it ends (an
    /// M-DATA instance of a symbolic record, [`super::data::instances`]),
    /// and, when `path`, in its convergent calls' results (drawn results).
    /// The sets and classes are those of this one.
    pub fn set_thread(&mut self, t: usize, th: &ThreadBody, path: bool) {
        if path {
            self.paths[t] = Self::path(th);
        }
        self.threads[t] = Self::thread(self.paths[t], th);
    }

    /// The digest of the execution with this outcome and its threads
    /// renamed by `order` = (`perm`, `inv`): thread `t` at position
    /// `perm[t]`, position `j` holding thread `inv[j]` (`None`: their own
    /// order).
    pub fn digest(&self, outcome: &Outcome, order: Option<(&[usize], &[usize])>) -> u128 {
        let n = self.threads.len();
        // A member's name: its renamed thread and position, packed.
        let name = |&(t, p): &VisitRef| -> u64 {
            let t = order.map_or(t, |(perm, _)| perm[t]);
            ((t as u64) << 32) | p as u64
        };
        let least = |groups: &[Vec<VisitRef>]| -> Vec<u64> {
            groups
                .iter()
                .map(|g| g.iter().map(name).min().unwrap_or_default())
                .collect()
        };
        let classes = least(&self.visits);
        let sets = least(&self.sets);
        let mut f = super::reduce::Fp::new();
        f.add(outcome);
        for j in 0..n {
            let t = order.map_or(j, |(_, inv)| inv[j]);
            f.add(&self.threads[t]);
            for c in &self.visit_of[t] {
                f.add(&classes[*c as usize]);
            }
            for s in &self.set_of[t] {
                f.add(&sets[*s as usize]);
            }
        }
        f.add(&self.memory);
        f.finish()
    }
}

/// A distinct behaviour and how many executions showed it.
#[derive(Clone, Debug)]
pub struct Behaviour {
    pub execution: Execution,
    pub count: u64,
}

/// Everything found by exploring a launch.
#[derive(Clone, Debug)]
pub struct Exploration {
    /// Distinct behaviours in order of discovery.
    pub behaviours: Vec<Behaviour>,
    /// Executions run to the end (every outcome class).
    pub explored: u64,
    /// Schedules discarded because a thread reached a fired instance (M-OPER).
    pub pruned: u64,
    /// Executions abandoned at a state already explored (memoization).
    pub merged: u64,
    /// Whether the exact reductions were on (`Options::reduce`).
    pub reduced: bool,
    /// Launch symmetry ([`super::symmetry`]): how many behaviours the
    /// closure under renaming added, or why no renaming was used.
    pub symmetry: Result<usize, String>,
    /// The closure under renaming stopped when the listed behaviours
    /// reached this many ([`super::symmetry::CLOSURE_RECORDS`] over the
    /// thread count); the result is then incomplete.
    pub closure_capped: Option<usize>,
    /// When the closure under renaming stopped listing at its limit but
    /// counted every image ([`super::symmetry::Closure::Counted`]): the
    /// number of distinct behaviours, listed or not (`complete` stays
    /// false: the listing is partial; the count is exact when the search
    /// was complete, [`Exploration::counted_complete`]).
    pub counted: Option<usize>,
    /// M-RENAME: the renamings used ([`super::renaming::Renaming::describe`]).
    pub renaming: String,
    pub cut: u64,
    pub ub: u64,
    pub contradictions: u64,
    /// Whether every choice was explored (exhaustive mode, within the
    /// execution budget).
    pub complete: bool,
    /// What stopped the search before every choice was explored (`None`
    /// when it ran out of choices; the closure under renaming has its own
    /// `closure_capped`).
    pub limit: Option<Limit>,
    /// The input domain, as printed with every result (R-BOUND).
    pub domain: String,
    /// Name of the kernel.
    pub kernel: String,
    /// Number of cycle hierarchies per defined function that has cycles.
    pub hierarchies: Vec<(String, usize)>,
    /// M-DATA: the data inputs and drawn results run once as symbols
    /// (`%a, %b, results of @f`), empty when none.
    pub data_inputs: String,
    /// The search's behaviour digests, one per entry of `behaviours`, for
    /// the closure under renaming (emptied by it).
    pub(crate) digests: Vec<u128>,
    /// Per entry of `behaviours` (while the search runs): the ordinal of
    /// the launch whose execution first showed it, by which the parallel
    /// search ([`Options::jobs`]) orders what its workers found.
    origins: Vec<u64>,
}

impl Exploration {
    /// Forgets what a search found (behaviours, counts, what stopped it),
    /// keeping the launch's description, for the driver to search again.
    fn restart(&mut self) {
        self.behaviours.clear();
        self.digests.clear();
        self.origins.clear();
        self.explored = 0;
        self.pruned = 0;
        self.merged = 0;
        self.cut = 0;
        self.ub = 0;
        self.contradictions = 0;
        self.complete = true;
        self.limit = None;
    }

    /// The number of distinct behaviours found: those listed, or all of
    /// them when the closure counted past its listing limit.
    pub fn distinct(&self) -> usize {
        self.counted.unwrap_or(self.behaviours.len())
    }

    /// Every behaviour was found and counted ([`Exploration::distinct`]
    /// exact), though perhaps not all listed: the search was complete and
    /// the closure under renaming either listed or counted every image.
    pub fn counted_complete(&self) -> bool {
        self.complete || (self.counted.is_some() && self.limit.is_none())
    }
}

/// Why a search stopped before exploring every choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `--max-executions`: executions run to their end or pruned.
    Executions(u64),
    /// `--max-merged`: executions abandoned at a state already explored.
    Merged(u64),
    /// The caller's progress callback said stop (time limit, Ctrl-C).
    Stopped,
    /// Random mode draws some executions, it does not enumerate them.
    Random,
    /// M-DATA: the instances of symbolic executions reached the listing
    /// limit (this many behaviours: `Options::closure_records` thread
    /// records over the thread count).
    Instances(usize),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::Executions(n) => write!(f, "execution budget reached (--max-executions {n})"),
            Limit::Merged(n) => write!(
                f,
                "budget of executions merged at explored states reached (--max-merged {n})"
            ),
            Limit::Stopped => write!(f, "stopped (time limit or interrupt)"),
            Limit::Random => write!(f, "random mode"),
            Limit::Instances(n) => write!(
                f,
                "listing limit reached: {n} behaviours instantiated from data inputs run as symbols"
            ),
        }
    }
}

/// Finds the kernel: `opts.entry`, or [`Module::default_entry`] (the only
/// definition, or the only kernel among several).
pub fn find_kernel(module: &Module, opts: &Options) -> Result<usize, RunError> {
    match &opts.entry {
        Some(name) => (0..module.functions.len())
            .find(|&i| module.functions[i].has_body() && &module.functions[i].name == name)
            .ok_or_else(|| RunError::BadLaunch(format!("no function definition named @{name}"))),
        None => module.default_entry().map_err(|n| match n {
            0 => RunError::BadLaunch("the module defines no function".into()),
            n => RunError::BadLaunch(format!(
                "the module defines {n} functions and not exactly one kernel; name the kernel with --entry"
            )),
        }),
    }
}

/// A lower bound on the launches an exhaustive run enumerates (issue 18
/// item 4, so that `run` can say before it starts that a launch is large):
/// the kernel's integer parameters without `--arg` each range over their
/// domain in every thread (`i1` two values, others `int_domain`), so there
/// are at least the multisets of `threads` per-thread input vectors,
/// C(threads + D - 1, D - 1) for D input vectors per thread, which launch
/// symmetry (the strongest reduction of launches) cannot go below. Inputs
/// drawn when first read (memory, unknown calls) only add launches. `None`
/// when the kernel cannot be found (the run reports that itself).
pub fn launches_at_least(module: &Module, opts: &Options) -> Option<f64> {
    let kernel = find_kernel(module, opts).ok()?;
    let f = &module.functions[kernel];
    // M-DATA: data inputs are not launched (a smaller count is still a
    // lower bound when the search launches them after all).
    let prog = Program::new(module, kernel);
    let data = super::data::analyse(&prog, opts, &data_candidates(&prog, opts), true, false);
    let mut per_thread = 1f64;
    for (i, p) in f.params.iter().enumerate() {
        let Some(v) = p.value else { continue };
        if opts.args.contains_key(&f.value(v).name.to_string()) || data.position(i).is_some() {
            continue;
        }
        per_thread *= match p.ty {
            crate::ir::Type::Int(1) => 2.0,
            crate::ir::Type::Int(_) => opts.int_domain.len().max(1) as f64,
            _ => 1.0,
        };
    }
    // C(n + D - 1, n) as a product, in floating point (it only has to say
    // "large").
    let n = f64::from(opts.threads);
    let d = per_thread;
    let k = n.min(d - 1.0);
    let mut c = 1f64;
    let mut i = 1f64;
    while i <= k {
        c *= (n + d - 1.0 - k + i) / i;
        i += 1.0;
        if !c.is_finite() {
            return Some(f64::INFINITY);
        }
    }
    Some(c)
}

/// Explores every execution of the launch described by `opts` (R-BEHAV).
pub fn explore(module: &Module, opts: &Options) -> Result<Exploration, RunError> {
    explore_with(module, opts, &mut |_, _| true)
}

/// [`explore`], calling `progress(explored, pruned)` after every execution;
/// when it returns `false` the exploration stops and is reported incomplete
/// (what was found so far is kept).
pub fn explore_with(
    module: &Module,
    opts: &Options,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<Exploration, RunError> {
    if opts.threads == 0 {
        return Err(RunError::BadLaunch(
            "a launch needs at least one thread".into(),
        ));
    }
    // D-UNCTRL `inferred`: tokens inserted by the inference procedure,
    // then the token rules apply.
    let inferred;
    let module = if opts.uncontrolled == super::Uncontrolled::Inferred {
        inferred = crate::infer::infer_tokens(module).map_err(|e| RunError::Unsupported {
            construct: "irreducible cycle in inferred mode".into(),
            at: e.to_string(),
        })?;
        &inferred
    } else {
        module
    };
    let kernel = find_kernel(module, opts)?;
    let mut prog = Program::new(module, kernel);
    for name in opts.args.keys() {
        let known = module.functions[kernel].params.iter().any(|p| {
            p.value
                .is_some_and(|v| module.functions[kernel].value(v).name.to_string() == *name)
        });
        if !known {
            return Err(RunError::BadLaunch(format!(
                "@{} has no parameter %{name}",
                module.functions[kernel].name
            )));
        }
    }
    let mut ex = Exploration {
        behaviours: Vec::new(),
        explored: 0,
        pruned: 0,
        merged: 0,
        reduced: opts.reduce && opts.chooser == super::ChooserMode::Exhaustive,
        symmetry: Err(String::new()),
        closure_capped: None,
        counted: None,
        renaming: String::new(),
        cut: 0,
        ub: 0,
        contradictions: 0,
        complete: true,
        limit: None,
        domain: format!(
            "i1 inputs over {{false, true}}; other integer inputs over {:?}",
            opts.int_domain
        ),
        kernel: module.functions[kernel].name.clone(),
        hierarchies: prog
            .funcs
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                f.as_ref()
                    .filter(|f| f.hierarchies.iter().any(|h| !h.cycles.is_empty()))
                    .map(|f| (module.functions[i].name.clone(), f.hierarchies.len()))
            })
            .collect(),
        data_inputs: String::new(),
        digests: Vec::new(),
        origins: Vec::new(),
    };
    // Launch symmetry and renamings (M-RENAME; `symmetry` holds the
    // argument, `renaming` the analysis, `orbit` the enumeration): orbit
    // representatives of the launches, then the behaviours closed under
    // the renamings.
    let reduced = ex.reduced;
    let renamings = |prog: &Program| {
        if !opts.streams.is_empty() {
            // R-STREAM-SMT: given streams differ per thread and per value;
            // no renaming of threads or results is admissible for them.
            super::renaming::Renaming::none("given input streams", opts.threads)
        } else if reduced {
            super::renaming::analyse(prog, opts)
        } else {
            super::renaming::Renaming::none("no reductions", opts.threads)
        }
    };
    // M-DATA: data inputs and drawn results run once as symbols (the
    // renamings leave them out: a symbol is not a domain value). Both
    // reductions are exact; where they compete, the renaming of unknown
    // functions' results wins unless those results are drawn: an input
    // that shares a class with results (`@op(%x)` and `@op(%a)`, `%a` a
    // result of `@op`; `@use(%x)` and `@use(%a)`) would leave those
    // results unrenamed as a symbol. Drawn results with data inputs (key
    // uses included) are tried first, then data inputs with key uses,
    // then without, then none.
    prog.renaming = renamings(&prog);
    if ex.reduced && opts.streams.is_empty() {
        let candidates = data_candidates(&prog, opts);
        let renamed: Vec<String> = prog.renaming.results.keys().cloned().collect();
        for (keys, draws) in [(true, true), (true, false), (false, false)] {
            if draws && !opts.drawn_results {
                continue;
            }
            prog.data = super::data::analyse(&prog, opts, &candidates, keys, draws);
            if !prog.data.any() {
                continue;
            }
            let with_data = renamings(&prog);
            // Every callee whose results were renamed still is, or is drawn.
            if renamed
                .iter()
                .all(|c| with_data.results.contains_key(c) || prog.data.draws.contains(c))
            {
                prog.renaming = with_data;
                break;
            }
            prog.data = super::data::Data::none();
        }
        ex.data_inputs = prog.data.describe();
    }
    loop {
        ex.renaming = prog.renaming.describe();
        let searched = match search_jobs(&prog, opts, progress, &mut ex) {
            // M-DATA: terms past their bound; every input concrete.
            Err(RunError::Unsupported { construct, .. })
                if prog.data.any() && construct == super::data::TOO_LARGE =>
            {
                prog.data = super::data::Data::none();
                prog.renaming = renamings(&prog);
                ex.data_inputs.clear();
                ex.restart();
                continue;
            }
            other => other?,
        };
        if searched {
            // A contradiction in the middle of a run: its record depends on
            // the order threads run in, so start again without renaming
            // threads (value renamings keep that order).
            ex.restart();
            prog.renaming = prog
                .renaming
                .without_threads("a run stopped at a contradiction (D-INST)");
            continue;
        }
        break;
    }
    // The closure lists up to the limit the instances already reached.
    let listing_full = matches!(ex.limit, Some(Limit::Instances(_)));
    if prog.renaming.any() && !listing_full {
        let found = ex.behaviours.len();
        let (explored, pruned) = (ex.explored, ex.pruned);
        let mut go = || progress(explored, pruned);
        let behaviours = std::mem::take(&mut ex.behaviours);
        let digests = std::mem::take(&mut ex.digests);
        // Memory linear in threads x behaviours: the closure lists at most
        // CLOSURE_RECORDS thread records.
        let cap = opts.listing_cap();
        let (closed, end) = if prog.renaming.blind_only() {
            super::symmetry::close(behaviours, digests, opts, cap, &mut go)
        } else {
            super::orbit::close(behaviours, digests, &prog.renaming, opts, cap, &mut go)
        };
        ex.behaviours = closed;
        ex.complete &= end == super::symmetry::Closure::Complete;
        match end {
            super::symmetry::Closure::Complete => {}
            super::symmetry::Closure::Stopped => {
                ex.limit.get_or_insert(Limit::Stopped);
            }
            super::symmetry::Closure::Capped(n) => ex.closure_capped = Some(n),
            super::symmetry::Closure::Counted { listed, total } => {
                ex.closure_capped = Some(listed);
                ex.counted = Some(total);
            }
        }
        ex.symmetry = Ok(ex.behaviours.len() - found);
    } else if prog.renaming.any() {
        // Renamings were used; the closure is skipped (the listing is
        // full).
        ex.symmetry = Ok(0);
    } else {
        ex.symmetry = Err(match &prog.renaming.threads {
            super::renaming::Threads::Off(why) => why.clone(),
            _ => "no reductions".into(),
        });
    }
    if !matches!(opts.chooser, super::ChooserMode::Exhaustive) {
        ex.complete = false;
        ex.limit = Some(Limit::Random);
    }
    Ok(ex)
}

/// [`search`] over every launch, in [`Options::jobs`] worker threads when
/// more than one is asked for (exhaustive mode).
///
/// Worker `w` of `k` runs the canonical launches whose ordinal is `w`
/// modulo `k` and skips the others as it skips non-canonical ones; each
/// keeps its own memoized states and checkpoints. The union is exact: the
/// launches partition the choice tree at its first choices, a worker's
/// merged execution abandons a state *it* explored already (so its
/// continuations' behaviours are in its own list, or under state symmetry
/// renamings of them that the closure adds), and the digests are
/// functions of the behaviours. The counts of explored and merged
/// executions depend on `k` (a state two workers reach is explored by
/// both), and so does the partial listing of a search stopped by a budget
/// or the time limit. The behaviours are listed in the order of the
/// launch that first showed them, then of discovery within it: the same
/// listing from run to run, and the single search's own order unless the
/// closure under renaming adds images (a worker may then list one that
/// the single search merged into a renamed state and left to the
/// closure). The caller's `progress` (time limit, Ctrl-C, the
/// spinner) is polled on this thread every few milliseconds with the
/// workers' totals; the budgets of executions and merges hold for the
/// total (each worker checks it after its execution, so the total may pass
/// it by up to `k - 1`). A search that ends in an error or a restart
/// (M-DATA terms past their bound, a contradiction under thread renaming)
/// ends as the single search would: at the least launch where one does,
/// every worker going on up to it (a worker's memo only hides states its
/// earlier launches explored, which would have ended there first).
fn search_jobs(
    prog: &Program,
    opts: &Options,
    progress: &mut dyn FnMut(u64, u64) -> bool,
    ex: &mut Exploration,
) -> Result<bool, RunError> {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let k = opts.jobs.max(1) as u64;
    if k == 1 || opts.chooser != super::ChooserMode::Exhaustive {
        let mut at = 0;
        return search(
            prog,
            opts,
            &mut |_, e, p, _| progress(e, p),
            ex,
            (0, 1),
            &mut at,
        );
    }
    // What stopped the workers (the first budget spent, or the caller);
    // unset while they go on.
    let stop: std::sync::OnceLock<Limit> = std::sync::OnceLock::new();
    let [explored, pruned, merged] = [(); 3].map(|_| AtomicU64::new(0));
    // The least ordinal of a launch where a worker's search ended in an
    // error or a restart: the single search would have ended at the
    // first such launch, so every worker goes on up to it.
    let first_end = AtomicU64::new(u64::MAX);
    let results: Vec<(Result<bool, RunError>, Exploration, u64)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..k)
            .map(|w| {
                let (prog, mut local) = (prog.clone(), ex.clone());
                let (stop, first_end) = (&stop, &first_end);
                let (explored, pruned, merged) = (&explored, &pruned, &merged);
                // The main thread's 8 MiB: the search ran there before.
                let worker = std::thread::Builder::new().stack_size(8 << 20);
                worker.spawn_scoped(s, move || {
                    let mut last = (0, 0, 0);
                    let mut tick = |launches: u64, e: u64, p: u64, m: u64| {
                        let total_e = explored.fetch_add(e - last.0, Relaxed) + e - last.0;
                        let total_p = pruned.fetch_add(p - last.1, Relaxed) + p - last.1;
                        let total_m = merged.fetch_add(m - last.2, Relaxed) + m - last.2;
                        last = (e, p, m);
                        if total_e + total_p >= opts.max_executions {
                            let _ = stop.set(Limit::Executions(opts.max_executions));
                        } else if total_m >= opts.merge_budget() {
                            let _ = stop.set(Limit::Merged(opts.merge_budget()));
                        }
                        stop.get().is_none() && launches <= first_end.load(Relaxed)
                    };
                    let mut at = 0;
                    let r = search(&prog, opts, &mut tick, &mut local, (w, k), &mut at);
                    if !matches!(r, Ok(false)) {
                        // An error, or a restart without thread renaming:
                        // later launches are not needed.
                        first_end.fetch_min(at, Relaxed);
                    }
                    (r, local, at)
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .expect("the operating system starts a thread");
        while !workers.iter().all(|h| h.is_finished()) {
            std::thread::sleep(std::time::Duration::from_millis(5));
            if stop.get().is_none() && !progress(explored.load(Relaxed), pruned.load(Relaxed)) {
                let _ = stop.set(Limit::Stopped);
            }
        }
        workers
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut found = Vec::new();
    let mut ended: Option<(u64, Result<bool, RunError>)> = None;
    for (r, local, at) in results {
        if !matches!(r, Ok(false)) && ended.as_ref().is_none_or(|(a, _)| at < *a) {
            ended = Some((at, r));
        }
        found.push(local);
    }
    if let Some((_, r)) = ended {
        return r;
    }
    // Each worker's behaviours, by the launch that first showed them,
    // moved out of the worker's list as they are merged.
    let mut order: Vec<(u64, usize, usize)> = Vec::new();
    let mut listed: Vec<Vec<Option<Behaviour>>> = Vec::new();
    for (w, local) in found.iter_mut().enumerate() {
        order.extend(local.origins.iter().enumerate().map(|(i, o)| (*o, w, i)));
        listed.push(
            std::mem::take(&mut local.behaviours)
                .into_iter()
                .map(Some)
                .collect(),
        );
        ex.explored += local.explored;
        ex.pruned += local.pruned;
        ex.merged += local.merged;
        ex.cut += local.cut;
        ex.ub += local.ub;
        ex.contradictions += local.contradictions;
        ex.complete &= local.complete;
        if ex.limit.is_none() {
            ex.limit = local.limit;
        }
    }
    order.sort_unstable();
    let mut index: HashMap<u128, usize> = HashMap::default();
    for (origin, w, i) in order {
        let digest = found[w].digests[i];
        let b = listed[w][i].take().expect("each entry merged once");
        match index.get(&digest) {
            Some(j) => ex.behaviours[*j].count += b.count,
            None => {
                index.insert(digest, ex.behaviours.len());
                ex.behaviours.push(b);
                ex.digests.push(digest);
                ex.origins.push(origin);
            }
        }
    }
    if let Some(l) = stop.get() {
        ex.limit = Some(*l);
    }
    // M-DATA: the listing of instances holds at most its limit in all.
    let cap = opts.listing_cap();
    if prog.data.any() && ex.behaviours.len() > cap {
        ex.behaviours.truncate(cap);
        ex.digests.truncate(cap);
        ex.origins.truncate(cap);
        ex.complete = false;
        ex.limit = Some(Limit::Instances(cap));
    }
    Ok(false)
}

/// The depth-first search over every choice, collecting distinct
/// behaviours into `ex`. Under the renamings of `prog.renaming` (M-RENAME)
/// launches are orbit representatives and draws of renamed results grow
/// restrictedly; when threads are renamed, the search returns `true`
/// (abandoned) at the first execution that ends in a contradiction in the
/// middle of a run.
///
/// `slice = (w, k)`: only the launches whose ordinal (canonical launches
/// in the order the search meets them, from 0) is `w` modulo `k` are run
/// ([`search_jobs`]); `(0, 1)` runs every launch. `tick(launches,
/// explored, pruned, merged)` is called after every execution and
/// answers whether to go on (`launches`: the canonical launches met so
/// far). `at` is set to the ordinal of each launch as it starts running:
/// where the search was when it returned.
fn search(
    prog: &Program,
    opts: &Options,
    tick: &mut dyn FnMut(u64, u64, u64, u64) -> bool,
    ex: &mut Exploration,
    slice: (u64, u64),
    at: &mut u64,
) -> Result<bool, RunError> {
    use super::renaming::Threads;
    let renaming = &prog.renaming;
    let threads_renamed = !matches!(renaming.threads, Threads::Off(_));
    // M-DATA: data inputs are symbols, not coordinates of the launch.
    let plan = (renaming.any() && !renaming.blind_only()).then(|| {
        let coords = coords(prog, opts)
            .into_iter()
            .filter(|c| prog.data.position(c.param).is_none())
            .collect();
        super::orbit::Launches::new(renaming, opts, coords)
    });
    let mut chooser = Chooser::new(opts.chooser);
    let mut index: HashMap<u128, usize> = HashMap::default();
    // State symmetry: memoization up to renaming threads, for blind
    // thread renamings (`reduce`).
    // M-LIVE: dead frame values left out of the fingerprints.
    let live = opts
        .reduce
        .then(|| super::liveness::Liveness::new(prog.module));
    let mut seen =
        super::reduce::States::new(opts, renaming.threads == Threads::Blind, renaming, live);
    // Resuming from saved states is exact (the machine is a function of
    // the choices made; `Chooser::resume_at`); the plain search
    // (`--no-reduce`) re-runs every execution from the launch.
    let mut checkpoints = Checkpoints::new(opts.reduce && opts.max_executions > 1, opts.threads);
    // The launch's inputs: its choices precede every saved state, so an
    // execution resumed from one has the inputs of the previous execution.
    // Launches that are not orbit representatives are skipped without
    // running (counted here, so that the time limit is checked).
    let mut skipped: u64 = 0;
    let mut launched: Option<Inputs> = None;
    // The machine before the launch, copied for every launch: its empty
    // persistent maps are then shared, not allocated (and freed) anew for
    // each of the launches, most of which are not canonical or merge at
    // their first scheduling point; a map is copied when first written.
    let blank = Machine {
        threads: super::state::Threads::new(),
        mem: Default::default(),
        next_input: 0,
        keys: Keys::default(),
        fired: super::state::Fired::new(),
        memo: super::state::HashMap::default(),
        conv: super::state::HashMap::default(),
        hierarchy: Vec::new(),
        used: Vec::new(),
    };
    // The canonical launches met so far, and the number of choices the
    // last one made: a launch built again after the chooser advanced one
    // of those choices is the next launch, otherwise the same one replayed.
    let mut ordinal: u64 = 0;
    let mut launch_depth: Option<usize> = None;
    loop {
        let advanced = chooser.advanced();
        let restored = match (checkpoints.backtrack(&mut chooser), &launched) {
            (Some(m), Some(inputs)) => Some((m, inputs.clone())),
            _ => {
                let built = launch(prog, opts, &mut chooser, plan.as_ref(), &blank)?;
                if built.is_some() && launch_depth.is_none_or(|d| advanced < d) {
                    launch_depth = Some(chooser.depth());
                    ordinal += 1;
                }
                built.filter(|_| (ordinal - 1) % slice.1 == slice.0)
            }
        };
        let Some((mut m, inputs)) = restored else {
            // Not canonical, or another worker's launch: the chooser
            // advances past this prefix (no state was saved since the
            // launch's choices).
            skipped += 1;
            if !chooser.next_execution() {
                break;
            }
            if skipped.is_multiple_of(1024) && !tick(ordinal, ex.explored, ex.pruned, ex.merged) {
                ex.complete = false;
                ex.limit = Some(Limit::Stopped);
                break;
            }
            continue;
        };
        launched = Some(inputs.clone());
        *at = ordinal - 1;
        let end = run_execution(
            prog,
            opts,
            &mut chooser,
            &mut m,
            &mut seen,
            &mut checkpoints,
        )?;
        if threads_renamed && matches!(end, ExecEnd::Contradiction { .. }) {
            return Ok(true);
        }
        if end == ExecEnd::Killed {
            ex.pruned += 1;
        } else if end == ExecEnd::Merged {
            ex.merged += 1;
        } else {
            ex.explored += 1;
            let exec = record(&m, end, inputs);
            match &exec.outcome {
                Outcome::Cut { .. } => ex.cut += 1,
                Outcome::Ub { .. } => ex.ub += 1,
                Outcome::Contradiction { .. } => ex.contradictions += 1,
                Outcome::Finished => {}
            }
            let mut add =
                |ex: &mut Exploration, key: u128, exec: &mut dyn FnMut() -> Execution| match index
                    .get(&key)
                {
                    Some(i) => ex.behaviours[*i].count += 1,
                    None => {
                        index.insert(key, ex.behaviours.len());
                        ex.digests.push(key);
                        ex.origins.push(ordinal - 1);
                        ex.behaviours.push(Behaviour {
                            execution: exec(),
                            count: 1,
                        });
                    }
                };
            if prog.data.any() {
                // M-DATA: the record's instances at every value of the
                // data inputs it shows, listed up to the closure's limit
                // of thread records, the time limit and Ctrl-C checked
                // every 1,024 instances.
                let cap = opts.listing_cap();
                let mut made: u64 = 0;
                let mut stop = None;
                let too_large = || RunError::Unsupported {
                    construct: super::data::TOO_LARGE.into(),
                    at: "the keys of uninterpreted functions".into(),
                };
                let keys = if prog.data.keys {
                    super::data::key_constraints(&m, &prog.data).ok_or_else(too_large)?
                } else {
                    Default::default()
                };
                super::data::instances(&exec, &keys, &prog.data, opts, &mut |key, e| {
                    if ex.behaviours.len() >= cap {
                        stop = Some(Limit::Instances(cap));
                        return false;
                    }
                    add(ex, key, e);
                    made += 1;
                    if made.is_multiple_of(1024)
                        && !tick(ordinal, ex.explored, ex.pruned, ex.merged)
                    {
                        stop = Some(Limit::Stopped);
                        return false;
                    }
                    true
                })
                .map_err(|_| too_large())?;
                if let Some(l) = stop {
                    ex.complete = false;
                    ex.limit = Some(l);
                    break;
                }
            } else {
                let key = exec.behaviour_digest();
                let mut exec = Some(exec);
                add(ex, key, &mut || exec.take().expect("built once"));
            }
        }
        if !chooser.next_execution() {
            break;
        }
        if !tick(ordinal, ex.explored, ex.pruned, ex.merged) {
            ex.complete = false;
            ex.limit = Some(Limit::Stopped);
            break;
        }
        if ex.explored + ex.pruned >= opts.max_executions {
            ex.complete = false;
            ex.limit = Some(Limit::Executions(opts.max_executions));
            break;
        }
        if ex.merged >= opts.merge_budget() {
            ex.complete = false;
            ex.limit = Some(Limit::Merged(opts.merge_budget()));
            break;
        }
    }
    Ok(false)
}

/// Builds the initial machine: hierarchies (D-HIER), arguments (P-INPUT),
/// globals, one frame per thread at the kernel's entry block.
/// With a `plan` (M-RENAME), the enumerated inputs form a canonical
/// launch ([`super::orbit::Launches`]), or `None` is returned as soon as
/// the choices show that they cannot; under blind thread renaming alone,
/// per-thread inputs are sorted ([`super::symmetry::choose_sorted`]).
fn launch(
    prog: &Program,
    opts: &Options,
    chooser: &mut Chooser,
    plan: Option<&super::orbit::Launches>,
    blank: &Machine,
) -> Result<Option<(Machine, Inputs)>, RunError> {
    let sym = prog.renaming.blind_only();
    let module = prog.module;
    let hierarchy: Vec<usize> = prog
        .funcs
        .iter()
        .map(|f| {
            f.as_ref()
                .map_or(0, |f| chooser.choose(f.hierarchies.len()))
        })
        .collect();
    let mut m = Machine {
        hierarchy,
        ..blank.clone()
    };
    let mut cx = Ctx {
        prog,
        opts,
        chooser,
    };
    match super::access::init_globals(&mut m, &mut cx, opts.groups) {
        Ok(()) => {}
        Err(Stop::Error(e)) => return Err(e),
        Err(Stop::Contradiction { detail, .. }) => return Err(RunError::BadLaunch(detail)),
    }
    let chooser = cx.chooser;
    let kf = prog.func(prog.kernel);
    for name in opts.buffers.keys() {
        let is_ptr = kf.params.iter().any(|p| {
            matches!(p.ty, Type::Ptr(_))
                && p.value
                    .is_some_and(|v| kf.value(v).name.to_string() == *name)
        });
        if !is_ptr {
            return Err(RunError::BadLaunch(format!(
                "--buffer {name}: @{} has no pointer parameter %{name}",
                kf.name
            )));
        }
    }
    let kernel_cc = kf.has_kernel_cc();
    let n = opts.threads as usize;
    let mut per_thread: Vec<Vec<Val>> = vec![Vec::new(); n];
    let mut inputs = Vec::new();
    let enumerated = |p: &crate::ir::Param| {
        let given = p
            .value
            .is_some_and(|v| opts.args.contains_key(&kf.value(v).name.to_string()));
        p.value.is_some()
            && !given
            && !matches!(p.ty, Type::Ptr(_))
            && !kernel_cc
            && !module.has_attr(&p.attrs, "inreg")
    };
    // Launch symmetry: the enumerated per-thread inputs as sorted tuples.
    let mut sorted = if sym {
        // M-DATA: data inputs are symbols, not sorted.
        let domains: Vec<Vec<Val>> = kf
            .params
            .iter()
            .enumerate()
            .filter(|(i, p)| enumerated(p) && prog.data.position(*i).is_none())
            .map(|(_, p)| super::symmetry::domain(&p.ty, opts))
            .collect();
        let tuples = super::symmetry::choose_sorted(chooser, &domains, opts);
        (0..domains.len())
            .map(|k| tuples.iter().map(|t| t[k].clone()).collect::<Vec<Val>>())
            .collect::<Vec<_>>()
            .into_iter()
    } else {
        Vec::new().into_iter()
    };
    // Orbit representatives: every enumerated input at once.
    let mut planned: Vec<Option<Vec<Val>>> = vec![None; kf.params.len()];
    if let Some(plan) = plan {
        let Some(vals) = plan.choose(chooser, n) else {
            return Ok(None);
        };
        for (c, vs) in plan.coords().iter().zip(vals) {
            planned[c.param] = Some(vs);
        }
    }
    for (pi, p) in kf.params.iter().enumerate() {
        let Some(v) = p.value else { continue };
        let name = kf.value(v).name.to_string();
        let uniform = kernel_cc || module.has_attr(&p.attrs, "inreg");
        if let Some(k) = prog.data.position(pi) {
            // M-DATA: a data input is a symbol per slot.
            let vals: Vec<Val> = (0..n)
                .map(|t| super::data::sym(super::data::Sym::Input(prog.data.slot(k, t))))
                .collect();
            for (t, x) in vals.iter().enumerate() {
                per_thread[t].push(x.clone());
            }
            inputs.push((name, vals));
            continue;
        }
        if let Some(vals) = planned[pi].take() {
            for (t, x) in vals.iter().enumerate() {
                per_thread[t].push(x.clone());
            }
            inputs.push((name, vals));
            continue;
        }
        if sym && enumerated(p) {
            let vals = sorted
                .next()
                .expect("symmetry: one sorted column per enumerated parameter");
            for (t, x) in vals.iter().enumerate() {
                per_thread[t].push(x.clone());
            }
            inputs.push((name, vals));
            continue;
        }
        let vals: Vec<Val> = match (opts.args.get(&name), &p.ty) {
            (Some(ArgValues::Uniform(x)), Type::Int(b)) => vec![int(*b, *x); n],
            (Some(ArgValues::PerThread(xs)), Type::Int(b)) => {
                if xs.len() != n {
                    return Err(RunError::BadLaunch(format!(
                        "--arg {name}: {} values for {n} threads",
                        xs.len()
                    )));
                }
                xs.iter().map(|x| int(*b, *x)).collect()
            }
            // P-FLOAT: a given float argument is its bit pattern (the
            // refinement checker replays the solver's bits, R-CEX).
            (Some(given), ty) if crate::ir::float::FloatTy::of(ty).is_some() => {
                let f = crate::ir::float::FloatTy::of(ty).expect("guarded by the match arm");
                let xs = match given {
                    ArgValues::Uniform(x) => vec![*x; n],
                    ArgValues::PerThread(xs) => xs.clone(),
                };
                if xs.len() != n {
                    return Err(RunError::BadLaunch(format!(
                        "--arg {name}: {} values for {n} threads",
                        xs.len()
                    )));
                }
                let m = super::value::mask(f.bits());
                xs.iter()
                    .map(|x| super::float::val(f, (*x as u128 & m) as u64))
                    .collect()
            }
            (Some(_), _) => {
                return Err(RunError::BadLaunch(format!(
                    "--arg {name}: only integer and float arguments can be given"
                )))
            }
            (None, Type::Ptr(_)) => {
                vec![super::access::input_buffer(&mut m, opts, module, &name, p); n]
            }
            (None, ty) if uniform => vec![choose_value(&mut m, chooser, opts, ty); n],
            (None, ty) => (0..n)
                .map(|_| choose_value(&mut m, chooser, opts, ty))
                .collect(),
        };
        for (t, x) in vals.iter().enumerate() {
            per_thread[t].push(x.clone());
        }
        inputs.push((name, vals));
    }
    // M-RENAME: the renamed values the launch already uses.
    m.used = super::orbit::used_at_launch(&prog.renaming, &inputs);
    for (t, args) in per_thread.into_iter().enumerate() {
        let group = opts.group_of(t as u32);
        let ctx = m.keys.intern(KeyNode::Group(group));
        let mut values = super::state::Values::new();
        for (p, a) in kf.params.iter().filter(|p| p.value.is_some()).zip(args) {
            values.insert(p.value.expect("filtered"), a);
        }
        let mut th = ThreadState {
            tid: t as u32,
            group,
            frames: super::state::Frames::unit(Frame {
                func: prog.kernel,
                block: BlockId(0),
                index: 0,
                values,
                ctx,
                block_key: ctx,
                last_header: super::state::VecMap::new(),
                ret_to: None,
            }),
            status: Status::Running,
            trace: Vector::new(),
            events: super::state::Events::new(),
            observations: Vector::new(),
            steps: 0,
            loop_counts: super::state::VecMap::new(),
            used_keys: super::state::VecMap::new(),
            seq: 0,
            resume: None,
            allocas: 0,
        };
        let mut cx = Ctx {
            prog,
            opts,
            chooser,
        };
        match enter_block(&mut m, &mut th, &mut cx, None) {
            Ok(()) => {}
            Err(Stop::Error(e)) => return Err(e),
            Err(Stop::Contradiction { detail, .. }) => return Err(RunError::BadLaunch(detail)),
        }
        m.threads.push_back(th);
    }
    Ok(Some((m, inputs)))
}

/// The candidates for data inputs (M-DATA): the kernel's enumerated
/// parameters, with whether each is uniform ([`super::data::analyse`]
/// keeps integer ones).
fn data_candidates(prog: &Program, opts: &Options) -> Vec<(usize, bool)> {
    coords(prog, opts)
        .into_iter()
        .map(|c| (c.param, c.uniform))
        .collect()
}

/// The kernel's enumerated inputs (P-INPUT): parameters not given by
/// `--arg`, not pointers; uniform ones for kernel calling conventions and
/// `inreg` (P-LAUNCH). The coordinates of a launch ([`super::orbit`]).
fn coords(prog: &Program, opts: &Options) -> Vec<super::orbit::Coord> {
    let module = prog.module;
    let kf = prog.func(prog.kernel);
    let kernel_cc = kf.has_kernel_cc();
    kf.params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let v = p.value?;
            let given = opts.args.contains_key(&kf.value(v).name.to_string());
            (!given && !matches!(p.ty, Type::Ptr(_))).then(|| super::orbit::Coord {
                param: i,
                uniform: kernel_cc || module.has_attr(&p.attrs, "inreg"),
                domain: super::symmetry::domain(&p.ty, opts),
            })
        })
        .collect()
}

/// Turns the final machine into an [`Execution`], classifying the outcome
/// and checking D-ORDER on the converged-with relation it produced.
fn record(m: &Machine, end: ExecEnd, inputs: Vec<(String, Vec<Val>)>) -> Execution {
    let threads: Vec<ThreadRecord> = m
        .threads
        .iter()
        .map(|th| ThreadRecord {
            tid: th.tid,
            group: th.group,
            body: std::sync::Arc::new(ThreadBody {
                trace: std::sync::Arc::new(th.trace.iter().cloned().collect()),
                events: std::sync::Arc::new(th.events.iter().cloned().collect()),
                observations: th.observations.iter().cloned().collect(),
                end: match &th.status {
                    Status::Done(e) => Some(e.clone()),
                    _ => None,
                },
            }),
        })
        .collect();
    let mut exec = Execution {
        outcome: Outcome::Finished,
        threads,
        inputs,
        hierarchy: m.hierarchy.clone(),
        memory: m
            .mem
            .objects
            .iter()
            .filter(|(_, o)| matches!(o.kind, ObjKind::Global | ObjKind::Input))
            .map(|(id, o)| {
                (
                    o.name.clone(),
                    o.bytes
                        .iter()
                        .enumerate()
                        // P-MEM-UNDEF: bytes whose unordered last writes
                        // differ end undef.
                        .map(|(i, b)| m.mem.final_byte(*id, i as u64, super::memory::observed(*b)))
                        .collect(),
                )
            })
            .collect(),
    };
    exec.outcome = match end {
        ExecEnd::Contradiction { rule, detail } => Outcome::Contradiction { rule, detail },
        _ => {
            let ub = exec.threads.iter().find_map(|t| match &t.end {
                Some(ThreadEnd::Ub { loc, why }) => Some(Outcome::Ub {
                    thread: t.tid,
                    loc: *loc,
                    why: why.clone(),
                }),
                _ => None,
            });
            let cut: Vec<u32> = exec
                .threads
                .iter()
                .filter(|t| t.end == Some(ThreadEnd::Cut))
                .map(|t| t.tid)
                .collect();
            match (ub, check_order(&exec)) {
                (Some(u), _) => u,
                (None, Err(detail)) => Outcome::Contradiction {
                    rule: "D-ORDER",
                    detail,
                },
                (None, Ok(())) if !cut.is_empty() => Outcome::Cut { threads: cut },
                (None, Ok(())) => Outcome::Finished,
            }
        }
    };
    exec
}
