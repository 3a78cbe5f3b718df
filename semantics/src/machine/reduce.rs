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

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::state::{Keys, Machine, Status};
use super::value::Val;

/// A 128-bit digest built from two independently keyed SipHash streams.
#[derive(Clone)]
pub struct Fp {
    a: DefaultHasher,
    b: DefaultHasher,
}

impl Fp {
    pub fn new() -> Fp {
        let mut b = DefaultHasher::new();
        0x5eed_u64.hash(&mut b);
        Fp {
            a: DefaultHasher::new(),
            b,
        }
    }
    pub fn add<T: Hash + ?Sized>(&mut self, x: &T) {
        x.hash(&mut self.a);
        x.hash(&mut self.b);
    }
    pub fn finish(&self) -> u128 {
        (u128::from(self.a.finish()) << 64) | u128::from(self.b.finish())
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

/// A value with token keys replaced by their structural digest.
fn val(keys: &Keys, v: &Val) -> (u8, u128, u128) {
    match v {
        Val::Token(k) => (1, keys.canon(*k), 0),
        other => (0, item(other), 0),
    }
}

/// Memoization (R-BEHAV): the fingerprint of everything in `m` that the rest of the
/// execution reads or the finished execution shows (see the module
/// documentation).
pub fn fingerprint(m: &Machine) -> u128 {
    let keys = &m.keys;
    let k = |id| keys.canon(id);
    let mut f = Fp::new();
    f.add(&m.hierarchy);
    // Memory (P-MEM-OBJ): object ids do not depend on the schedule, and
    // bytes hold no tokens, so the objects hash as they are (in id order).
    f.add(&m.mem);
    f.add(&m.next_input);
    f.add(
        &m.fired
            .iter()
            .map(|x| item(&k(*x)))
            .fold(0u128, u128::wrapping_add),
    );
    f.add(
        &m.memo
            .iter()
            .map(|(s, v)| item(&(s, v)))
            .fold(0u128, u128::wrapping_add),
    );
    for th in m.threads.iter() {
        f.add(&(th.tid, th.group, th.steps, th.seq, th.allocas));
        for fr in th.frames.iter() {
            f.add(&(
                fr.func,
                fr.block,
                fr.index,
                k(fr.ctx),
                k(fr.block_key),
                fr.ret_to,
            ));
            let vals = fr
                .values
                .iter()
                .map(|(id, v)| item(&(id, val(keys, v))))
                .fold(0u128, u128::wrapping_add);
            let hdrs = fr
                .last_header
                .iter()
                .map(|(b, (seq, key))| item(&(b, seq, k(*key))))
                .fold(0u128, u128::wrapping_add);
            f.add(&(vals, hdrs));
        }
        match &th.status {
            Status::Running => f.add(&0u8),
            Status::Waiting(p) => {
                f.add(&(1u8, p.loc, p.key.map(k), p.event));
                for a in &p.args {
                    f.add(&val(keys, a));
                }
            }
            Status::Killed => f.add(&2u8),
            Status::Done(e) => f.add(&(3u8, format!("{e:?}"))),
        }
        f.add(&th.trace.len());
        for v in th.trace.iter() {
            f.add(&(v.func, v.block, k(v.key)));
        }
        f.add(&th.events.len());
        for e in th.events.iter() {
            f.add(&(e.loc, &e.callee, e.pos, k(e.key)));
            for a in &e.args {
                f.add(&val(keys, a));
            }
            f.add(&e.result.map(|r| val(keys, &r)));
        }
        f.add(&th.observations.len());
        for o in th.observations.iter() {
            f.add(o);
        }
        f.add(
            &th.loop_counts
                .iter()
                .map(|((loc, key), n)| item(&(loc, k(*key), n)))
                .fold(0u128, u128::wrapping_add),
        );
        f.add(
            &th.used_keys
                .iter()
                .map(|x| item(&k(*x)))
                .fold(0u128, u128::wrapping_add),
        );
        f.add(
            &th.resume
                .as_ref()
                .map(|r| (r.loc, k(r.key), r.event, r.value.map(|v| val(keys, &v)))),
        );
    }
    f.finish()
}
