//! Per-thread digests for memoization (issue 18; the argument for
//! memoization and state symmetry is in [`super::reduce`]).
//!
//! A state's fingerprint is a digest of the machine-wide parts (memory,
//! fired instances, uninterpreted functions, hierarchy) followed by one
//! 128-bit digest per thread, in the order the fingerprint takes the
//! threads. Between two branch points of the search only the threads that
//! ran or whose set fired change, so each thread's digest is kept with the
//! thread ([`DigestCache`], one per [`super::state::Slot`]) and recomputed
//! only after the thread changed. A thread's digest depends only on its own
//! state and on how threads are named (the renaming of state symmetry, or
//! the threads' own names): key digests are structural
//! ([`super::state::Keys::canon`]), the same in every machine that holds the
//! thread. So the cache is keyed by the renaming.
//!
//! The histories (trace, convergent-call events, observations) only grow:
//! a thread appends to them and never removes or reorders an entry, and of
//! the events only the last one (the call the thread waits at or resumes
//! from) is completed later (its key and result, [`super::sched`],
//! [`super::calls`]). They are digested as chains, `h(i+1) = XXH3-128(h(i)
//! ‖ entry i)`, kept across changes of the thread, so a changed thread
//! costs the entries appended since its last digest, not its whole history
//! (before this, every fingerprint rehashed every thread's whole trace:
//! quadratic in the steps of an execution). The chain of events stops
//! before the last event, which is digested afresh every time. Chains
//! and digests are kept per renaming: the canonical renaming of state
//! symmetry changes from one branch point to the next (it orders threads
//! by their signatures), so each thread keeps them under its
//! `NAMINGS` (4) most recently used renamings; a chain longer than its
//! history (never, by the invariant above) starts over.
//!
//! Exactness: a fingerprint now chains XXH3-128 over per-thread digests and
//! history entries instead of hashing the same bytes in one pass. Two
//! different states get equal fingerprints only if XXH3-128 collides on one
//! of the (linearly many) digests computed on the way; with 128-bit
//! digests that stays about as unlikely as one collision of the whole-state
//! hash before (a union bound over the digests computed, each ~2^-128 per
//! pair). The differential test against the plain search
//! (`semantics/tests/interp_reduce.rs`) and, in the same tests, the check
//! that every cached fingerprint equals one computed without caches
//! ([`super::reduce::check_digests`]) guard the invariants. (That check
//! fails when the events chain is made to cover the last event.)

use std::sync::Mutex;

use super::reduce::{item, At, Fp, Names};
use super::state::{Observation, Slot, Status, ThreadEnd};
use super::value::Val;

/// The digests memoization computed for one thread (module
/// documentation). Behind a mutex because the thread is shared between
/// the running machine and saved checkpoints, and the digest is stored when
/// a fingerprint reads the thread.
#[derive(Default)]
pub struct DigestCache(Mutex<Cache>);

#[derive(Clone, Copy, Default)]
struct Cache {
    /// Per renaming, the most recently used first, the first `used` of
    /// [`NAMINGS`]: the thread's digest and the chains over its histories.
    per: [PerNaming; NAMINGS],
    used: usize,
    /// The thread's signatures (names and keys left out; see
    /// [`signature`]). Dropped when the thread changes.
    sig: Option<(u128, u128)>,
    /// Name-free chains of the signature: trace blocks, event locations.
    sig_trace: Chain,
    sig_events: Chain,
}

/// The canonical renaming of a state changes from one branch point to the
/// next (threads are ordered by their signatures); a thread keeps its
/// digests under this many renamings.
const NAMINGS: usize = 4;

/// How a digest names threads: [`OWN`], or the id of a renaming in the
/// search's table (`reduce::Renamed`; a thread lives in one search).
pub(super) type Naming = u32;
/// The threads' own names.
pub(super) const OWN: Naming = u32::MAX;

#[derive(Clone, Copy, Default)]
struct PerNaming {
    naming: Naming,
    /// The whole thread's digest. Dropped when the thread changes.
    whole: Option<u128>,
    /// Chains over the histories. Kept when the thread changes.
    trace: Chain,
    events: Chain,
    observations: Chain,
}

impl Cache {
    /// The digests under `naming`, moved to the front (created if absent,
    /// the least recently used dropped past [`NAMINGS`]).
    fn under(&mut self, naming: Naming) -> &mut PerNaming {
        match self.per[..self.used]
            .iter()
            .position(|p| p.naming == naming)
        {
            Some(i) => self.per[..=i].rotate_right(1),
            None => {
                self.used = (self.used + 1).min(NAMINGS);
                self.per[..self.used].rotate_right(1);
                self.per[0] = PerNaming {
                    naming,
                    ..PerNaming::default()
                };
            }
        }
        &mut self.per[0]
    }

    fn forget_wholes(&mut self) {
        for p in &mut self.per[..self.used] {
            p.whole = None;
        }
        self.sig = None;
    }
}

/// A chained digest of the first `len` entries of a history, computed
/// under the renaming `naming`.
#[derive(Clone, Copy, Default)]
struct Chain {
    naming: Naming,
    len: usize,
    digest: u128,
}

impl Chain {
    /// Where to continue a chain over a history of `len` entries under
    /// `naming`: the entries digested so far, or 0 (starting over) when the
    /// chain was computed under another renaming or is longer than the
    /// history.
    fn start(&mut self, naming: Naming, len: usize) -> usize {
        if self.naming != naming || self.len > len {
            *self = Chain {
                naming,
                len: 0,
                digest: 0,
            };
        }
        self.len
    }

    /// Appends one entry, written into `f` by the caller.
    fn push(&mut self, entry: impl FnOnce(&mut Fp)) {
        let mut f = Fp::new();
        f.add(&self.digest);
        entry(&mut f);
        self.digest = f.finish();
        self.len += 1;
    }
}

impl DigestCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        // A poisoned cache holds digests of states already complete (a
        // panic cannot leave a half-written `Cache`: every field is
        // assigned whole), so its content is still valid.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The thread changed: its whole digest and signature no longer hold;
    /// the chains over the histories still do (they only grow).
    pub fn invalidate(&mut self) {
        self.0
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .forget_wholes();
    }
}

impl Clone for DigestCache {
    fn clone(&self) -> DigestCache {
        DigestCache(Mutex::new(*self.lock()))
    }
}

impl std::fmt::Debug for DigestCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DigestCache")
    }
}

/// The order-independent sums of the fired instances' key digests under
/// the most recent renamings, kept with the set ([`super::state::Fired`]):
/// the set only grows, so a sum extends by the instances fired since.
#[derive(Default)]
pub struct SumCache(Mutex<Vec<Chain>>);

impl Clone for SumCache {
    fn clone(&self) -> SumCache {
        SumCache(Mutex::new(self.lock().clone()))
    }
}

impl std::fmt::Debug for SumCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SumCache")
    }
}

impl SumCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Chain>> {
        // As `DigestCache::lock`: every field is assigned whole.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The digest of the fired instances under `names` (the same sum as
/// [`Names::key_set`] over the set).
pub(super) fn fired(set: &super::state::Fired, names: &mut Names) -> u128 {
    let mut c = set.cache.lock();
    let naming = names.key_naming();
    // The sums under the most recent renamings, as `Cache::under`.
    let i = match c.iter().position(|x| x.naming == naming) {
        Some(i) => i,
        None => {
            c.insert(
                0,
                Chain {
                    naming,
                    ..Chain::default()
                },
            );
            c.truncate(NAMINGS);
            0
        }
    };
    c[..=i].rotate_right(1);
    let sum = &mut c[0];
    let from = sum.start(naming, set.len());
    if from < set.len() {
        for k in set.in_order().focus().narrow(from..) {
            sum.digest = sum.digest.wrapping_add(item(&names.key(*k)));
            sum.len += 1;
        }
    }
    sum.digest
}

/// One thread's part of a fingerprint under `names` (everything of the
/// thread the rest of the execution reads or the finished execution
/// shows; see [`super::reduce`]), cached in the thread's slot.
pub(super) fn thread(slot: &Slot, names: &mut Names) -> u128 {
    let mut c = slot.cache.lock();
    let naming = names.naming();
    let c = c.under(naming);
    if let Some(d) = c.whole {
        return d;
    }
    let d = compute(&slot.th, c, naming, names);
    c.whole = Some(d);
    d
}

fn compute(
    th: &super::state::ThreadState,
    c: &mut PerNaming,
    naming: Naming,
    names: &mut Names,
) -> u128 {
    let mut f = Fp::new();
    f.add(&(names.tid(th.tid), th.group, th.steps, th.seq, th.allocas));
    for (i, fr) in th.frames.iter().enumerate() {
        let (ctx, block_key) = (names.key(fr.ctx), names.key(fr.block_key));
        f.add(&(fr.func, fr.block, fr.index, ctx, block_key, fr.ret_to));
        // M-LIVE: dead values are left out ([`super::liveness`]).
        let live = names.live(th, i);
        let vals = fr
            .values
            .iter()
            .filter(|(id, _)| live.contains(**id))
            .map(|(id, v)| item(&(id, names.val_at(At::Frame(fr.func, *id), v))))
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
            for (k, a) in p.args.iter().enumerate() {
                f.add(&names.val_at(At::Arg(p.loc, k), a));
            }
        }
        Status::Killed => f.add(&2u8),
        Status::Done(ThreadEnd::Returned(v)) => f.add(&(3u8, names.val_at(At::Ret, v))),
        Status::Done(e) => f.add(&(4u8, format!("{e:?}"))),
    }
    // The trace: a chain over every visit.
    let chain = &mut c.trace;
    let from = chain.start(naming, th.trace.len());
    if from < th.trace.len() {
        for v in th.trace.focus().narrow(from..) {
            let key = names.key(v.key);
            chain.push(|f| f.add(&(v.func, v.block, key)));
        }
    }
    f.add(&(th.trace.len(), chain.digest));
    // The events: a chain over all but the last, which may still change.
    let done = th.events.len().saturating_sub(1);
    let chain = &mut c.events;
    let from = chain.start(naming, done);
    for i in from..done {
        let d = event(&th.events[i], names);
        chain.push(|f| f.add(&d));
    }
    f.add(&(th.events.len(), chain.digest));
    if let Some(last) = th.events.get(done) {
        f.add(&event(last, names));
    }
    let chain = &mut c.observations;
    let from = chain.start(naming, th.observations.len());
    if from < th.observations.len() {
        for o in th.observations.focus().narrow(from..) {
            let d = observation(o, names);
            chain.push(|f| f.add(&d));
        }
    }
    f.add(&(th.observations.len(), chain.digest));
    let loops = th
        .loop_counts
        .iter()
        .map(|((loc, key), n)| item(&(loc, names.key(*key), n)))
        .fold(0u128, u128::wrapping_add);
    f.add(&loops);
    let used = names.key_set(th.used_keys.keys());
    f.add(&used);
    let resume = th.resume.as_ref().map(|r| {
        (
            r.loc,
            names.key(r.key),
            r.event,
            r.value.as_ref().map(|v| names.val_at(At::Res(r.loc), v)),
        )
    });
    f.add(&resume);
    f.finish()
}

/// A recorded convergent call without its arguments: they are not part of
/// a behaviour (R-BEHAV, `Execution::behaviour_digest`: callee, result and
/// communicating set), and no later step reads a past call's arguments
/// (what a later call of an unknown convergent function reads is the table
/// of results, `Machine::conv`, fingerprinted apart). States that differ
/// only there have the same continuations and show the same behaviours.
fn event(e: &super::state::CallEvent, names: &mut Names) -> u128 {
    let mut f = Fp::new();
    f.add(&(e.loc, &e.callee, e.pos, names.key(e.key)));
    f.add(&e.result.as_ref().map(|r| names.val_at(At::Res(e.loc), r)));
    f.finish()
}

fn observation(o: &Observation, names: &mut Names) -> u128 {
    let mut f = Fp::new();
    match o {
        Observation::Call {
            callee,
            args,
            result,
        } => {
            f.add(&(0u8, callee));
            for (k, a) in args.iter().enumerate() {
                f.add(&names.val_at(At::Slot(callee, k), a));
            }
            f.add(&names.val_at(At::Result(callee), result));
        }
        other => f.add(&(1u8, other)),
    }
    f.finish()
}

/// A digest of a thread's state without its name and without
/// dynamic-instance keys (which name threads): equal for threads a
/// renaming exchanges, and cheap (no key digests), since it only orders
/// the threads of a class (state symmetry, [`super::reduce`]). Under value
/// symmetry (`values`) the first digest leaves the frames' opaque values
/// out and the second keeps them: threads are ordered by the first, ties
/// broken by the second, so that states that differ by renaming values
/// order their threads alike where the first tells them apart, and states
/// that differ by renaming threads are ordered alike exactly as without
/// value symmetry. Without it both are the same digest. Cached like
/// [`thread`] (the search's renamings do not change).
pub(super) fn signature(
    slot: &Slot,
    values: Option<&super::renaming::Renaming>,
    live: Option<&super::liveness::Liveness>,
) -> (u128, u128) {
    let th = &slot.th;
    let mut c = slot.cache.lock();
    if let Some(s) = c.sig {
        return s;
    }
    let mut f = Fp::new();
    f.add(&(th.group, th.steps, th.seq, th.allocas));
    let mut blind = Fp::new();
    for (i, fr) in th.frames.iter().enumerate() {
        f.add(&(fr.func, fr.block, fr.index, fr.ret_to));
        let mut raw = 0u128;
        let mut without = 0u128;
        // M-LIVE: as in the fingerprint, dead values do not count.
        let alive = live.map_or(super::liveness::Live::All, |l| l.frame(th, i));
        for (id, v) in fr.values.iter() {
            if matches!(v, Val::Token(_)) || !alive.contains(*id) {
                continue;
            }
            let own = item(&(id, v));
            raw = raw.wrapping_add(own);
            let opaque = values.and_then(|r| r.opaque(r.values.get(&(fr.func, *id)).copied()));
            without = without.wrapping_add(match opaque {
                Some(c) => item(&(id, u8::MAX, c)),
                None => own,
            });
        }
        f.add(&raw);
        blind.add(&without);
    }
    match &th.status {
        Status::Waiting(p) => f.add(&(1u8, p.loc, p.event)),
        Status::Done(ThreadEnd::Returned(_)) => f.add(&3u8),
        Status::Done(e) => f.add(&(4u8, format!("{e:?}"))),
        Status::Running => f.add(&0u8),
        Status::Killed => f.add(&2u8),
    }
    let chain = &mut c.sig_trace;
    let from = chain.start(OWN, th.trace.len());
    if from < th.trace.len() {
        for v in th.trace.focus().narrow(from..) {
            chain.push(|f| f.add(&(v.func, v.block)));
        }
    }
    f.add(&(th.trace.len(), chain.digest));
    // An event's location and position never change once recorded.
    let chain = &mut c.sig_events;
    let from = chain.start(OWN, th.events.len());
    for i in from..th.events.len() {
        let e = &th.events[i];
        chain.push(|f| f.add(&(e.loc, e.pos)));
    }
    f.add(&(th.events.len(), chain.digest));
    f.add(&th.observations.len());
    let raw = f.finish();
    let s = if values.is_some() {
        blind.add(&(th.group, th.steps, th.seq, th.allocas));
        blind.add(&(c.sig_trace.digest, c.sig_events.digest, th.trace.len()));
        blind.add(&(th.events.len(), th.observations.len()));
        match &th.status {
            Status::Waiting(p) => blind.add(&(1u8, p.loc, p.event)),
            Status::Done(ThreadEnd::Returned(_)) => blind.add(&3u8),
            Status::Done(e) => blind.add(&(4u8, format!("{e:?}"))),
            Status::Running => blind.add(&0u8),
            Status::Killed => blind.add(&2u8),
        }
        for fr in th.frames.iter() {
            blind.add(&(fr.func, fr.block, fr.index, fr.ret_to));
        }
        (blind.finish(), raw)
    } else {
        (raw, raw)
    };
    c.sig = Some(s);
    s
}

/// Value symmetry (module documentation): per opaque class, a new index
/// for each free value, given in the order the values first occur in the
/// state with its threads taken in `order` (frames' values by value id,
/// the pending call's arguments, the returned value, events, observations,
/// the resumed call's result), then the values only the table of results
/// or the used values hold, then the rest, each in domain order. Any
/// bijection is sound (the fingerprint is of the state renamed by it, all
/// of it); first occurrence makes states that are renamings of one
/// another meet.
pub(super) fn relabel(
    m: &super::state::Machine,
    r: &super::renaming::Renaming,
    order: &[usize],
    live: Option<&super::liveness::Liveness>,
) -> Vec<Vec<usize>> {
    use super::state::{Observation, Status, ThreadEnd};
    let mut map: Vec<Vec<Option<usize>>> =
        r.classes.iter().map(|c| vec![None; c.free.len()]).collect();
    let mut next = vec![0usize; r.classes.len()];
    let mut note = |class: Option<usize>, v: &Val| {
        let (Some(c), Val::Int { v, .. }) = (r.opaque(class), v) else {
            return;
        };
        if let Some(i) = r.classes[c].free.iter().position(|f| f == v) {
            if map[c][i].is_none() {
                map[c][i] = Some(next[c]);
                next[c] += 1;
            }
        }
    };
    let site = |loc: &super::state::Loc| r.sites.get(loc);
    for t in order {
        let th = &m.threads[*t];
        for (i, fr) in th.frames.iter().enumerate() {
            // M-LIVE: dead values are not in the fingerprint; numbering
            // them would only tell renamings apart.
            let alive = live.map_or(super::liveness::Live::All, |l| l.frame(th, i));
            let mut vals: Vec<(&crate::ir::ValueId, &Val)> = fr
                .values
                .iter()
                .filter(|(id, _)| r.values.contains_key(&(fr.func, **id)) && alive.contains(**id))
                .collect();
            vals.sort_unstable_by_key(|(id, _)| **id);
            for (id, v) in vals {
                note(r.values.get(&(fr.func, *id)).copied(), v);
            }
        }
        match &th.status {
            Status::Waiting(p) => {
                if let Some((args, _)) = site(&p.loc) {
                    for (a, c) in p.args.iter().zip(args) {
                        note(*c, a);
                    }
                }
            }
            Status::Done(ThreadEnd::Returned(v)) => note(r.ret, v),
            _ => {}
        }
        // A past call's arguments are not fingerprinted (see `event`):
        // numbering them would only tell renamings apart.
        for e in th.events.iter() {
            if let Some((_, res)) = site(&e.loc) {
                if let Some(v) = &e.result {
                    note(*res, v);
                }
            }
        }
        for o in th.observations.iter() {
            if let Observation::Call {
                callee,
                args,
                result,
            } = o
            {
                for (k, a) in args.iter().enumerate() {
                    note(r.slot(callee, k), a);
                }
                note(r.results.get(callee.as_str()).copied(), result);
            }
        }
        if let Some(res) = &th.resume {
            if let (Some((_, c)), Some(v)) = (site(&res.loc), &res.value) {
                note(*c, v);
            }
        }
    }
    // Values held only by the table of results (in events, normally) or
    // by the used set, then the rest.
    let mut rest: Vec<(usize, usize)> = Vec::new();
    for (k, v) in m.conv.iter() {
        let callee = k.callee.as_deref().unwrap_or("<indirect>");
        if let Some(c) = r.opaque(r.results.get(callee).copied()) {
            if let Val::Int { v, .. } = v {
                if let Some(i) = r.classes[c].free.iter().position(|f| f == v) {
                    rest.push((c, i));
                }
            }
        }
    }
    rest.sort_unstable();
    for (c, cl) in r.classes.iter().enumerate() {
        if let Some(j) = cl.dynamic {
            rest.extend(
                (0..cl.free.len())
                    .filter(|i| m.used[j] & (1 << i) != 0)
                    .map(|i| (c, i)),
            );
        }
    }
    for (c, i) in rest {
        if map[c][i].is_none() {
            map[c][i] = Some(next[c]);
            next[c] += 1;
        }
    }
    map.into_iter()
        .zip(next)
        .map(|(m, mut next)| {
            m.into_iter()
                .map(|x| {
                    x.unwrap_or_else(|| {
                        next += 1;
                        next - 1
                    })
                })
                .collect()
        })
        .collect()
}
