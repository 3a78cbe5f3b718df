//! The scheduler of M-OPER: runs every thread until it blocks, then fires
//! one communicating set at a time, and computes the results of C-OPS over
//! the set.
//!
//! Which set fires next: a set is *safe* when no thread outside it can
//! still reach its instruction ([`Program::may_reach`]) or, in the reduced
//! search, hold its key (one below an anchor instance the thread is not
//! in, see `is_safe`); firing a safe set
//! can never be invalidated by a late arrival, and since a set's key and
//! members are then fixed, firing it first loses no behaviour. Only when no
//! safe set exists does the chooser pick among all waiting sets; a thread
//! that afterwards reaches an instance that already fired marks the
//! schedule impossible (the execution is discarded as pruned).

use std::collections::BTreeMap;

use super::chooser::{Chooser, ChooserMode};
use super::collective::{set_results, Member};
use super::program::{CalleeKind, Program};
use super::state::{KeyId, KeyNode, Loc, Machine, Pending, Resume, Status, ThreadEnd};
use super::step::{run_thread, Ctx, Stop};
use super::value::Val;
use super::{Options, RunError};

/// How the scheduling of one execution ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecEnd {
    /// Every thread ended (returned, UB or cut).
    Done,
    /// A thread reached an already-fired instance: impossible schedule.
    Killed,
    /// The rules contradict themselves (D-INST, D-ORDER).
    Contradiction { rule: &'static str, detail: String },
    /// Memoization: the search reached a state whose continuations it has
    /// already explored; the execution is abandoned.
    Merged,
}

/// A set that may fire.
#[derive(Clone, Debug)]
enum Candidate {
    /// All threads waiting with this key.
    Key {
        key: KeyId,
        loc: Loc,
        members: Vec<usize>,
    },
    /// Threads waiting at an anchor in mode `all`; a nonempty subset fires.
    Anchor { members: Vec<usize> },
}

/// Machine states saved at the scheduling points of the current path, for
/// the exhaustive search to resume from instead of re-running the
/// execution from the launch ([`Chooser::resume_at`]): `(depth, state)`,
/// depth = number of choices made before the state, strictly increasing.
/// Every entry was saved on the current path (entries deeper than the
/// advanced choice are dropped after each execution,
/// [`Checkpoints::backtrack`]).
#[derive(Default)]
pub struct Checkpoints {
    /// How many states may be kept: 0 when none are saved (`run
    /// --no-reduce` re-runs every execution from the launch, the plain
    /// search). Past it, states are not saved and the search resumes from
    /// the deepest saved one, replaying the rest (same executions, memory
    /// bounded for long runs and large launches).
    cap: usize,
    stack: Vec<(usize, Machine)>,
}

impl Checkpoints {
    /// Checkpoints for a search over `threads` threads; `on` false for the
    /// plain search. The cap keeps the saved states to about 2^16 thread
    /// states (each saved state shares all but what changed with the
    /// others, `im`).
    pub fn new(on: bool, threads: u32) -> Checkpoints {
        Checkpoints {
            cap: if on {
                (65_536 / threads.max(1) as usize).max(16)
            } else {
                0
            },
            stack: Vec::new(),
        }
    }

    /// After [`Chooser::next_execution`]: drops the states saved after the
    /// advanced choice, and returns a copy of the deepest remaining one
    /// with the chooser set to resume there, or `None` (start from the
    /// launch).
    pub fn backtrack(&mut self, chooser: &mut Chooser) -> Option<Machine> {
        let limit = chooser.advanced();
        while self.stack.last().is_some_and(|(d, _)| *d > limit) {
            self.stack.pop();
        }
        let (d, m) = self.stack.last()?;
        chooser.resume_at(*d);
        Some(m.clone())
    }

    fn save(&mut self, chooser: &Chooser, m: &Machine) {
        let d = chooser.depth();
        if self.stack.len() < self.cap
            && chooser.mode() == ChooserMode::Exhaustive
            && self.stack.last().is_none_or(|(top, _)| *top < d)
        {
            self.stack.push((d, m.clone()));
        }
    }
}

/// Runs the launched machine (or one restored from `checkpoints`) to the
/// end of one execution, saving its state at every scheduling choice.
pub fn run_execution(
    prog: &Program,
    opts: &Options,
    chooser: &mut Chooser,
    m: &mut Machine,
    seen: &mut super::reduce::States,
    checkpoints: &mut Checkpoints,
) -> Result<ExecEnd, RunError> {
    let n = m.threads.len();
    seen.prepare(prog, opts, m);
    // States met during a replay were reached on this very path.
    let memo = |chooser: &Chooser| {
        opts.reduce && !chooser.replaying() && chooser.mode() == ChooserMode::Exhaustive
    };
    loop {
        for t in 0..n {
            if matches!(m.threads[t].status, Status::Running) {
                let before = chooser.depth();
                let mut cx = Ctx {
                    prog,
                    opts,
                    chooser,
                };
                match run_thread(m, t, &mut cx) {
                    Ok(()) => {}
                    Err(Stop::Error(e)) => return Err(e),
                    Err(Stop::Contradiction { rule, detail }) => {
                        return Ok(ExecEnd::Contradiction { rule, detail })
                    }
                }
                // M-LIVE-MEM: the state after a thread's run that made
                // choices (inputs it loaded), when other threads are still
                // to run; see `reduce`, "Where states are compared".
                if seen.reads_known()
                    && chooser.depth() > before
                    && (t + 1..n).any(|u| matches!(m.threads[u].status, Status::Running))
                    && !m.threads.iter().any(|t| matches!(t.status, Status::Killed))
                    && memo(chooser)
                {
                    if !seen.first_visit(prog, m) {
                        return Ok(ExecEnd::Merged);
                    }
                    // Resuming from here runs the rest of the pass, as
                    // this execution does.
                    checkpoints.save(chooser, m);
                }
            }
        }
        if m.threads.iter().any(|t| matches!(t.status, Status::Killed)) {
            return Ok(ExecEnd::Killed);
        }
        // Memoization (see `reduce`, "Where states are compared"): a state
        // that an earlier path already reached has been explored, whatever
        // comes next; checked at every scheduling point, the end of the
        // execution included.
        if memo(chooser) && !seen.first_visit(prog, m) {
            return Ok(ExecEnd::Merged);
        }
        let cands = candidates(m);
        if cands.is_empty() {
            return Ok(ExecEnd::Done);
        }
        let safe = cands.iter().position(|c| is_safe(prog, m, c, opts.reduce));
        let branches = cands.len() > 1
            || matches!(&cands[0], Candidate::Anchor { members } if members.len() > 1);
        if safe.is_none() && branches {
            // Every thread is blocked here, so resuming from this state
            // re-enters this loop with nothing to run and the same
            // candidates.
            checkpoints.save(chooser, m);
        }
        let pick = safe.unwrap_or_else(|| chooser.choose(cands.len()));
        fire(prog, opts, chooser, m, &cands[pick]);
    }
}

fn candidates(m: &Machine) -> Vec<Candidate> {
    let mut keyed: BTreeMap<(Loc, KeyId), Vec<usize>> = BTreeMap::new();
    let mut anchors: BTreeMap<Loc, Vec<usize>> = BTreeMap::new();
    for (t, th) in m.threads.iter().enumerate() {
        if let Status::Waiting(p) = &th.status {
            match p.key {
                Some(k) => keyed.entry((p.loc, k)).or_default().push(t),
                None => anchors.entry(p.loc).or_default().push(t),
            }
        }
    }
    let mut out: Vec<Candidate> = keyed
        .into_iter()
        .map(|((loc, key), members)| Candidate::Key { key, loc, members })
        .collect();
    out.extend(
        anchors
            .into_values()
            .map(|members| Candidate::Anchor { members }),
    );
    out
}

/// M-OPER: no thread outside the set can still reach the instruction.
///
/// With `by_token` (the reduced search), neither can a thread that cannot
/// hold the instance's key: a key derived from an anchor instance the
/// scheduler formed (D-ANCHOR `all`, [`KeyNode::Fresh`]) is reached only
/// by members of that instance. A thread gets a key below an anchor
/// instance only from a token, call context or block visit below it, and
/// the first of these only by being in the set the anchor fired with
/// (`used_keys`); an instance that has fired admits no late member. So
/// the set's members are as fixed as when no other thread can reach the
/// instruction, and firing it first loses no behaviour for the same
/// reason. (cl04-caller-merge.src at 4 threads: a group's ballot and
/// broadcast no longer wait for, and interleave with, the anchor choices
/// of threads outside the group.) The plain search (`--no-reduce`, the
/// oracle of `interp_reduce.rs`) keeps the reachability test alone.
fn is_safe(prog: &Program, m: &Machine, c: &Candidate, by_token: bool) -> bool {
    let Candidate::Key { key, loc, members } = c else {
        return false;
    };
    let anchor = by_token.then(|| fresh_ancestor(m, *key)).flatten();
    m.threads.iter().enumerate().all(|(t, th)| {
        if members.contains(&t) {
            return true;
        }
        let Status::Waiting(p) = &th.status else {
            return true;
        };
        if anchor.is_some_and(|a| !th.used_keys.contains_key(&a)) {
            return true;
        }
        let mut at: Vec<Loc> = Vec::new();
        for (i, fr) in th.frames.iter().enumerate().rev() {
            let index = if i + 1 == th.frames.len() {
                p.loc.index + 1
            } else {
                fr.index
            };
            at.push(Loc {
                func: fr.func,
                block: fr.block,
                index,
            });
        }
        !prog.may_reach(&at, *loc)
    })
}

/// The nearest anchor instance formed by the scheduler ([`KeyNode::Fresh`],
/// which has no parent) that `k` derives from through its chain of
/// parents, if any.
fn fresh_ancestor(m: &Machine, mut k: KeyId) -> Option<KeyId> {
    loop {
        match m.keys.node(k) {
            KeyNode::Block { parent, .. } | KeyNode::Inst { parent, .. } => k = parent,
            KeyNode::Fresh { .. } => return Some(k),
            KeyNode::Group(_) | KeyNode::Thread(_) => return None,
        }
    }
}

fn fire(prog: &Program, opts: &Options, chooser: &mut Chooser, m: &mut Machine, c: &Candidate) {
    match c {
        Candidate::Key { key, loc, members } => {
            m.fired.insert(*key);
            let inst = &prog.func(loc.func).block(loc.block).insts[loc.index];
            // P-MEM-SYNC (race detection, and P-MEM-UNDEF once an observed
            // object was written): a barrier orders memory.
            if m.mem.tracks_sync(opts.races) {
                if let crate::ir::InstKind::Call(c) = &inst.kind {
                    if super::access::synchronizes(prog.module, c) {
                        let tids: Vec<u32> = members.iter().map(|t| m.threads[*t].tid).collect();
                        m.mem.synchronize(&tids);
                    }
                }
            }
            let needs_set = match &inst.kind {
                crate::ir::InstKind::Call(c) => {
                    prog.call(*loc, c).kind.needs_set() && c.ty != crate::ir::Type::Void
                }
                _ => false,
            };
            let results: Vec<Result<Option<Val>, super::value::UbKind>> = if needs_set {
                op_results(prog, opts, chooser, m, *loc, members)
                    .into_iter()
                    .map(|r| r.map(Some))
                    .collect()
            } else {
                vec![Ok(None); members.len()]
            };
            for (t, r) in members.iter().zip(results) {
                resume(m, *t, *key, r);
            }
        }
        Candidate::Anchor { members, .. } => {
            // D-ANCHOR `all`: any nonempty subset of the waiting threads
            // fires now; the others stay and may join a later instance of
            // another thread (e.g. t1's second iteration with t0's first).
            // Every subset is enumerated exactly once by choosing its lowest
            // member, then each later member in or out. Restricting the
            // subset to contain the lowest-numbered waiting thread (as an
            // earlier version did) never lets a higher-numbered thread run
            // ahead alone, which loses behaviours and breaks thread symmetry.
            let first = chooser.choose(members.len());
            let mut chosen = vec![members[first]];
            for t in &members[first + 1..] {
                if chooser.choose(2) == 1 {
                    chosen.push(*t);
                }
            }
            let lowest = chosen[0];
            let Status::Waiting(p) = &m.threads[lowest].status else {
                unreachable!("M-OPER: members of a firing set are waiting");
            };
            let k = m.keys.intern(KeyNode::Fresh {
                loc: p.loc,
                tid: m.threads[lowest].tid,
                event: p.event as u32,
            });
            m.fired.insert(k);
            for t in chosen {
                let th = &mut m.threads[t];
                if let Status::Waiting(p) = &th.status {
                    let ev = p.event;
                    if let Some(e) = th.events.get_mut(ev) {
                        e.key = k;
                    }
                    th.used_keys.insert(k, ());
                }
                resume(m, t, k, Ok(None));
            }
        }
    }
}

/// Lets a member of a fired set complete its call (it re-executes the
/// call with [`super::state::ThreadState::resume`] set), or ends it with UB.
fn resume(m: &mut Machine, t: usize, key: KeyId, r: Result<Option<Val>, super::value::UbKind>) {
    let th = &mut m.threads[t];
    let Status::Waiting(Pending { loc, event, .. }) = th.status.clone() else {
        return;
    };
    match r {
        Ok(value) => {
            th.resume = Some(Resume {
                loc,
                key,
                event,
                value,
            });
            th.status = Status::Running;
        }
        Err(why) => th.status = Status::Done(ThreadEnd::Ub { loc, why }),
    }
}

/// C-OPS: the result of the operation at `loc` in each member, in order.
fn op_results(
    prog: &Program,
    opts: &Options,
    chooser: &mut Chooser,
    m: &mut Machine,
    loc: Loc,
    members: &[usize],
) -> Vec<Result<Val, super::value::UbKind>> {
    let inst = &prog.func(loc.func).block(loc.block).insts[loc.index];
    let crate::ir::InstKind::Call(call) = &inst.kind else {
        unreachable!("M-OPER: only calls wait for a communicating set");
    };
    let ret_bits = match &call.ty {
        crate::ir::Type::Int(b) => *b,
        // `{ i1, iN }` (llvm.amdgcn.if/else): the mask's width.
        crate::ir::Type::Func(f) => f
            .ret
            .int_bits()
            .or_else(|| match &f.ret {
                crate::ir::Type::Struct { fields, .. } => fields.last().and_then(|f| f.int_bits()),
                _ => None,
            })
            .unwrap_or(32),
        _ => 32,
    };
    let args: Vec<(u32, Vec<Val>)> = members
        .iter()
        .map(|t| {
            let th = &m.threads[*t];
            let Status::Waiting(p) = &th.status else {
                unreachable!("M-OPER: members of a firing set are waiting");
            };
            (th.tid, p.args.clone())
        })
        .collect();
    let same = |v: Val| vec![Ok(v); members.len()];
    if let CalleeKind::Builtin(op) = prog.call(loc, call).kind {
        let set: Vec<Member> = args
            .iter()
            .map(|(tid, a)| Member {
                tid: *tid,
                args: a.as_slice(),
            })
            .collect();
        return set_results(&opts.geometry(), opts.shuffle_oob, op, ret_bits, &set);
    }
    {
        {
            // An unknown convergent function: uninterpreted function of the
            // multiset of (thread id, arguments) over the set (C-OPS).
            // One function per callee (not per call site), as C-OPS says
            // and the SMT encoding does (F-25).
            // Members are in thread order, so `args` is too (the
            // multiset's canonical listing).
            let memo = super::state::ConvKey {
                callee: call.callee_name().map(str::to_string),
                set: args,
            };
            let v = match m.conv.get(&memo) {
                Some(v) => v.clone(),
                None => {
                    let ty = match &call.ty {
                        crate::ir::Type::Func(f) => f.ret.clone(),
                        t => t.clone(),
                    };
                    let name = call.callee_name().unwrap_or("<indirect>");
                    let v = if prog.data.draws.contains(name) {
                        // M-DATA drawn results: a fresh symbol.
                        super::data::draw(true, &memo, &ty)
                    } else {
                        // M-RENAME: restricted growth when the callee's
                        // results are renamed.
                        super::orbit::choose_result(m, chooser, opts, &prog.renaming, name, &ty)
                    };
                    m.conv.insert(memo, v.clone());
                    v
                }
            };
            same(v)
        }
    }
}
