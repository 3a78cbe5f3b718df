//! Exact reductions of the exhaustive enumeration (issue 18), and the one
//! place where their soundness argument lives. Each keeps the set of
//! distinct behaviours (R-BEHAV) exactly; what they change is how many
//! executions are run to find them, so the multiplicity `count` of a
//! behaviour counts *representative* executions when a reduction is on
//! (`Options::reduce`, `run --no-reduce` turns them off and is the oracle
//! of the differential test `semantics/tests/interp_reduce.rs`).
//!
//! # Memoization of machine states (R-BEHAV, M-OPER)
//!
//! The exploration is a depth-first search over the choices of
//! [`super::Chooser`]. Everything that the rest of an execution does — and
//! everything the finished execution shows — is a function of the
//! [`Machine`] alone: the threads' frames, statuses, step counters, traces,
//! convergent-call events and observations (the history that R-BEHAV
//! prints is *inside* the state), memory, the fired instances, the
//! uninterpreted functions chosen so far and the cycle hierarchy. The
//! future choices are made afresh from that state (the chooser's log is
//! not read by the machine). So two paths of the search that reach equal
//! states at a scheduling point have the same set of continuations and the
//! same set of finished executions. The search visits the subtree of the
//! first one completely before it backtracks past it (depth-first), so
//! when the second arrives, its behaviours have all been found: the second
//! is cut, counted as `merged`.
//!
//! Equal states arise when independent firings commute (communicating sets
//! of different instructions fired in either order; anchor sets fired one
//! after the other in either order) and when different inputs lead to the
//! same state (an input read only by a branch whose two sides join, or
//! only by a value that is later overwritten, or never read). The last is
//! issue 18's "inputs that cannot influence control flow, sets or
//! observations are enumerated once", obtained without a syntactic
//! argument: the state says whether the input still matters. One caveat
//! is printed: the arguments shown with a behaviour are those of the first
//! execution found, and the per-behaviour count is the number of
//! executions that reached the end without meeting a known state.
//!
//! States are compared by a 128-bit fingerprint ([`fingerprint`]), not by
//! value: two different states collide with probability about 2^-128 per
//! pair, and the differential test compares against the unreduced search.
//! Dynamic-instance keys are hash-consed ids numbered in creation order,
//! which differs between schedules, so the fingerprint hashes a key by its
//! structure ([`super::state::Keys::canon`]); anchor instances chosen by
//! the scheduler (D-ANCHOR `all`) are named by their lowest member and its
//! event ordinal, not by a counter, for the same reason. Values whose
//! printed form contains raw key ids (observations, the uninterpreted
//! functions' argument strings) are hashed raw: that can only miss a merge,
//! never merge two states that differ.
//!
//! # State symmetry (memoization up to renaming threads)
//!
//! Under launch symmetry ([`super::symmetry`]: a thread-blind program, the
//! behaviours found closed under the group G of renamings of threads that
//! keep each thread in its launch group) the search also counts two states
//! as one when one is a renaming of the other, the classic symmetry
//! reduction of explicit-state model checkers (Murphi, SPIN). The
//! argument: in a thread-blind program a thread's name is read only as a
//! name (symmetry's module documentation), so for a renaming τ that keeps
//! every thread in its launch group and subgroup, the executions from the
//! state τ(s) are the τ-renamings of those from s, and B(τ(s)) = τ(B(s)).
//! When the search meets a state s' = τ(s) after having explored s
//! completely, the behaviours of s' are renamings of behaviours already
//! found, and the closure under G at the end adds them; so cutting s' loses
//! nothing. The closure needs no more than G: τ is in G. Anchor instances
//! are named by their lowest member and its call ordinal: in τ(s) an
//! instance may be named by a member that is not its lowest, but the
//! name is still unique (one instance per call of a thread) and names are
//! never shown (R-BEHAV shows which calls share an instance, not names),
//! so τ(s) behaves as s does up to names.
//!
//! [`fingerprint_up_to_threads`] computes a fingerprint of a canonical
//! renaming of the state: each thread's state is digested without its
//! name and without dynamic-instance keys (a signature); within each class
//! (launch group and subgroup) the threads are ordered by signature; the
//! state renamed by that order is
//! fingerprinted exactly (tags keep these fingerprints apart from plain
//! ones). Two states with equal fingerprints are renamings of each other
//! whatever order ties take (ties only lose merges). States whose
//! uninterpreted-function tables are non-empty (their keys hold thread ids
//! in text) or that hold threads' private objects get the plain
//! fingerprint. `semantics/tests/interp_reduce.rs` compares with the plain
//! search.
//!
//! # Resuming from saved states
//!
//! The search re-runs each execution with the choices of the previous one
//! up to the advanced choice: from the launch in the plain search, from
//! the state saved at the deepest scheduling point before that choice
//! otherwise ([`super::sched::Checkpoints`]). The machine is a function of
//! the choices made, so this runs the same executions in the same order.
//!
//! Launch symmetry, the other exact reduction, lives in
//! [`super::symmetry`] with its argument. Partial-order reduction by sleep
//! sets over [`super::sched`] was tried with per-location independence and
//! blocked no execution on the examples (README, "Partial-order reduction
//! (tried, not kept)").
//!
//! # Independence (what a future memory model must extend)
//!
//! Memoization needs no independence relation: it compares whole states.
//! The scheduler's *safe* firings ([`super::sched`]) rely on one: firing a
//! set whose instruction no other thread can still reach commutes with
//! every other firing, because firings touch only their members' states
//! and the set of fired keys. Loads, stores and atomics on shared memory
//! make threads interfere outside firings: when memory is modelled for
//! real (issues 12, 13), the threads' runs between firings stop commuting
//! and the argument above must add "and no thread outside the set accesses
//! memory the members access".

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use super::memory::ObjKind;
use super::state::{KeyId, KeyNode, Keys, Machine, Observation, Status, ThreadEnd, ThreadState};
use super::value::Val;
use xxhash_rust::xxh3::xxh3_128;

/// The states the search has reached at its branching points
/// (memoization), and whether states equal up to renaming threads count as
/// one (state symmetry, `class` non-empty).
pub struct States {
    seen: HashSet<u128>,
    /// Per thread, the class of threads it may be renamed into (launch
    /// group and subgroup); empty when state symmetry is off.
    class: Vec<u32>,
}

impl States {
    /// `up_to_threads`: the search runs under launch symmetry (a
    /// thread-blind program, [`super::symmetry::blind`]), whose behaviours
    /// are closed under renaming threads at the end.
    pub fn new(opts: &super::Options, up_to_threads: bool) -> States {
        let class = if up_to_threads {
            let mut ids: HashMap<super::symmetry::Class, u32> = HashMap::new();
            (0..opts.threads)
                .map(|t| {
                    let next = ids.len() as u32;
                    *ids.entry(super::symmetry::class_of(opts, t))
                        .or_insert(next)
                })
                .collect()
        } else {
            Vec::new()
        };
        States {
            seen: HashSet::new(),
            class,
        }
    }

    /// Records `m`; `false` when it (or, under state symmetry, a renaming
    /// of it) was reached before.
    pub fn first_visit(&mut self, m: &Machine) -> bool {
        let fp = if self.class.is_empty() {
            None
        } else {
            fingerprint_up_to_threads(m, &self.class)
        };
        self.seen.insert(fp.unwrap_or_else(|| fingerprint(m)))
    }
}

/// A 128-bit digest: the bytes that `Hash` writes, collected and hashed
/// once with XXH3-128 (the `xxhash-rust` crate). Before this, two keyed
/// SipHash streams hashed every item twice (a quarter of the instructions
/// of a memoized search). Small digests stay in an inline buffer.
#[derive(Clone)]
pub struct Fp {
    head: [u8; FP_INLINE],
    len: usize,
    /// Every byte once the inline buffer overflows.
    rest: Vec<u8>,
}

const FP_INLINE: usize = 120;

impl Fp {
    pub fn new() -> Fp {
        Fp {
            head: [0; FP_INLINE],
            len: 0,
            rest: Vec::new(),
        }
    }
    pub fn add<T: Hash + ?Sized>(&mut self, x: &T) {
        x.hash(self);
    }
    pub fn finish(&self) -> u128 {
        if self.rest.is_empty() {
            xxh3_128(&self.head[..self.len])
        } else {
            xxh3_128(&self.rest)
        }
    }
}

impl Hasher for Fp {
    fn write(&mut self, bytes: &[u8]) {
        if self.rest.is_empty() && self.len + bytes.len() <= FP_INLINE {
            self.head[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
        } else {
            if self.rest.is_empty() {
                self.rest.reserve(4 * FP_INLINE + bytes.len());
                self.rest.extend_from_slice(&self.head[..self.len]);
            }
            self.rest.extend_from_slice(bytes);
        }
    }
    /// Only `Hasher::finish`'s contract; fingerprints use [`Fp::finish`].
    fn finish(&self) -> u64 {
        Fp::finish(self) as u64
    }
}

impl Default for Fp {
    fn default() -> Fp {
        Fp::new()
    }
}

/// Digest of one item, for order-independent sums over unordered
/// collections (persistent hash maps iterate in an order that depends on
/// their history).
fn item<T: Hash + ?Sized>(x: &T) -> u128 {
    let mut f = Fp::new();
    f.add(x);
    f.finish()
}

/// How a fingerprint names threads and dynamic-instance keys: the state's
/// own names, or thread `t` renamed `perm[t]` throughout (thread ids,
/// anchor instances named by a member, C++ per-thread contexts).
struct Names<'a> {
    keys: &'a Keys,
    perm: Option<Vec<u32>>,
    /// Renamed digests of the keys met so far (keys form trees through
    /// their parents).
    cache: HashMap<KeyId, u128>,
}

impl<'a> Names<'a> {
    fn own(keys: &'a Keys) -> Names<'a> {
        Names {
            keys,
            perm: None,
            cache: HashMap::new(),
        }
    }

    fn renamed(keys: &'a Keys, perm: Vec<u32>) -> Names<'a> {
        Names {
            keys,
            perm: Some(perm),
            cache: HashMap::new(),
        }
    }

    fn tid(&self, t: u32) -> u32 {
        self.perm.as_ref().map_or(t, |p| p[t as usize])
    }

    /// The structural digest of `k` under the renaming: the same digest
    /// as [`Keys::intern`] computes, with the thread names in the nodes
    /// renamed (so the identity renaming gives [`Keys::canon`]).
    fn key(&mut self, k: KeyId) -> u128 {
        if self.perm.is_none() {
            return self.keys.canon(k);
        }
        // Iteratively: the chain of parents up to a known digest.
        let mut chain = vec![k];
        while let Some(&top) = chain.last() {
            if self.cache.contains_key(&top) {
                chain.pop();
                break;
            }
            match self.keys.node(top) {
                KeyNode::Block { parent, .. } | KeyNode::Inst { parent, .. } => chain.push(parent),
                _ => break,
            }
        }
        while let Some(x) = chain.pop() {
            let mut f = Fp::new();
            match self.keys.node(x) {
                KeyNode::Block {
                    func,
                    block,
                    parent,
                } => f.add(&(1u8, func, block, self.cache[&parent])),
                KeyNode::Inst { loc, parent, n } => f.add(&(2u8, loc, self.cache[&parent], n)),
                KeyNode::Fresh { loc, tid, event } => f.add(&(
                    3u8,
                    KeyNode::Fresh {
                        loc,
                        tid: self.tid(tid),
                        event,
                    },
                )),
                KeyNode::Thread(t) => f.add(&(3u8, KeyNode::Thread(self.tid(t)))),
                other => f.add(&(3u8, other)),
            }
            self.cache.insert(x, f.finish());
        }
        self.cache[&k]
    }

    /// A value with token keys replaced by their digest.
    fn val(&mut self, v: &Val) -> (u8, u128) {
        match v {
            Val::Token(k) => (1, self.key(*k)),
            other => (0, item(other)),
        }
    }

    /// Order-independent digest of a set of keys.
    fn key_set<'k>(&mut self, ks: impl Iterator<Item = &'k KeyId>) -> u128 {
        ks.map(|x| item(&self.key(*x)))
            .fold(0u128, u128::wrapping_add)
    }
}

/// Memoization (R-BEHAV): the fingerprint of everything in `m` that the rest of the
/// execution reads or the finished execution shows (see the module
/// documentation).
pub fn fingerprint(m: &Machine) -> u128 {
    let order: Vec<usize> = (0..m.threads.len()).collect();
    whole(m, &mut Names::own(&m.keys), &order, 0)
}

/// State symmetry (see the module documentation): a fingerprint of `m`
/// that is equal for states equal up to renaming threads within their
/// classes (`class[t]`: threads of one class may be renamed into each
/// other; classes are contiguous ranges of thread ids), or `None` when
/// the state holds names this renaming does not reach (uninterpreted
/// functions' tables, whose keys hold thread ids; private objects of
/// threads).
pub fn fingerprint_up_to_threads(m: &Machine, class: &[u32]) -> Option<u128> {
    if !m.memo.is_empty()
        || m.mem
            .objects
            .values()
            .any(|o| matches!(o.kind, ObjKind::Private { .. }))
    {
        return None;
    }
    let n = m.threads.len();
    let sig: Vec<u128> = m.threads.iter().map(signature).collect();
    // The canonical order: by class (contiguous, so position i is thread
    // id i's slot), then by signature; ties keep thread order (any choice
    // is sound: two states with equal fingerprints are renamings of one
    // another whichever order was chosen, see `whole`; ties between
    // threads that differ only in their keys lose merges).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|t| (class[*t], sig[*t], *t));
    let identity = order.iter().enumerate().all(|(i, t)| i == *t);
    let mut names = if identity {
        Names::own(&m.keys)
    } else {
        let mut perm = vec![0u32; n];
        for (i, t) in order.iter().enumerate() {
            perm[*t] = i as u32;
        }
        Names::renamed(&m.keys, perm)
    };
    Some(whole(m, &mut names, &order, 1))
}

/// A digest of a thread's state without its name and without dynamic-instance
/// keys (which name threads): equal for threads a renaming exchanges, and
/// cheap (no key digests), since it only orders the threads of a class.
fn signature(th: &ThreadState) -> u128 {
    let mut f = Fp::new();
    f.add(&(th.group, th.steps, th.seq, th.allocas));
    for fr in th.frames.iter() {
        f.add(&(fr.func, fr.block, fr.index, fr.ret_to));
        let vals = fr
            .values
            .iter()
            .filter(|(_, v)| !matches!(v, Val::Token(_)))
            .map(|(id, v)| item(&(id, v)))
            .fold(0u128, u128::wrapping_add);
        f.add(&vals);
    }
    match &th.status {
        Status::Waiting(p) => f.add(&(1u8, p.loc, p.event)),
        Status::Done(ThreadEnd::Returned(_)) => f.add(&3u8),
        Status::Done(e) => f.add(&(4u8, format!("{e:?}"))),
        Status::Running => f.add(&0u8),
        Status::Killed => f.add(&2u8),
    }
    f.add(&th.trace.len());
    for v in th.trace.iter() {
        f.add(&(v.func, v.block));
    }
    f.add(&th.events.len());
    for e in th.events.iter() {
        f.add(&(e.loc, e.pos));
    }
    f.add(&th.observations.len());
    f.finish()
}

/// The fingerprint of `m` with its threads taken in `order` and named by
/// `names`; `tag` keeps fingerprints of different kinds apart.
fn whole(m: &Machine, names: &mut Names, order: &[usize], tag: u8) -> u128 {
    let mut f = Fp::new();
    f.add(&tag);
    f.add(&m.hierarchy);
    // Memory (P-MEM-OBJ): object ids do not depend on the schedule, and
    // bytes hold no tokens, so the objects hash as they are (in id order).
    f.add(&m.mem);
    f.add(&m.next_input);
    let fired = names.key_set(m.fired.iter());
    f.add(&fired);
    f.add(
        &m.memo
            .iter()
            .map(|(s, v)| item(&(s, v)))
            .fold(0u128, u128::wrapping_add),
    );
    for t in order {
        thread(&mut f, &m.threads[*t], names);
    }
    f.finish()
}

/// One thread's part of a fingerprint.
fn thread(f: &mut Fp, th: &ThreadState, names: &mut Names) {
    f.add(&(names.tid(th.tid), th.group, th.steps, th.seq, th.allocas));
    for fr in th.frames.iter() {
        let (ctx, block_key) = (names.key(fr.ctx), names.key(fr.block_key));
        f.add(&(fr.func, fr.block, fr.index, ctx, block_key, fr.ret_to));
        let vals = fr
            .values
            .iter()
            .map(|(id, v)| item(&(id, names.val(v))))
            .fold(0u128, u128::wrapping_add);
        let hdrs = fr
            .last_header
            .iter()
            .map(|(b, (seq, key))| item(&(b, seq, names.key(*key))))
            .fold(0u128, u128::wrapping_add);
        f.add(&(vals, hdrs));
    }
    match &th.status {
        Status::Running => f.add(&0u8),
        Status::Waiting(p) => {
            let key = p.key.map(|k| names.key(k));
            f.add(&(1u8, p.loc, key, p.event));
            for a in &p.args {
                f.add(&names.val(a));
            }
        }
        Status::Killed => f.add(&2u8),
        Status::Done(ThreadEnd::Returned(v)) => f.add(&(3u8, names.val(v))),
        Status::Done(e) => f.add(&(4u8, format!("{e:?}"))),
    }
    f.add(&th.trace.len());
    for v in th.trace.iter() {
        f.add(&(v.func, v.block, names.key(v.key)));
    }
    f.add(&th.events.len());
    for e in th.events.iter() {
        f.add(&(e.loc, &e.callee, e.pos, names.key(e.key)));
        for a in &e.args {
            f.add(&names.val(a));
        }
        f.add(&e.result.map(|r| names.val(&r)));
    }
    f.add(&th.observations.len());
    for o in th.observations.iter() {
        match o {
            Observation::Call {
                callee,
                args,
                result,
            } => {
                f.add(&(0u8, callee));
                for a in args {
                    f.add(&names.val(a));
                }
                f.add(&names.val(result));
            }
            other => f.add(&(1u8, other)),
        }
    }
    let loops = th
        .loop_counts
        .iter()
        .map(|((loc, key), n)| item(&(loc, names.key(*key), n)))
        .fold(0u128, u128::wrapping_add);
    f.add(&loops);
    let used = names.key_set(th.used_keys.iter());
    f.add(&used);
    let resume = th.resume.as_ref().map(|r| {
        (
            r.loc,
            names.key(r.key),
            r.event,
            r.value.map(|v| names.val(&v)),
        )
    });
    f.add(&resume);
}
