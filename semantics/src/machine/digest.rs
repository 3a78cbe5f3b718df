//! Per-thread digests for memoization (issue 18; the argument for
//! memoization and state symmetry is in [`super::reduce`]).
//!
//! A state's fingerprint is a digest of the machine-wide parts (memory,
//! fired instances, uninterpreted functions, hierarchy) followed by one
//! 128-bit digest per thread, in the order the fingerprint takes the
//! threads. Between two branch points of the search only the threads that
//! ran or whose set fired change, so each thread's digest is kept with the
//! thread ([`DigestCache`], one per [`super::state::Slot`]) and recomputed
//! only after the thread changed.
//!
//! **Free of thread names.** Under state symmetry every fingerprint
//! renames threads by the state's canonical order, which changes from one
//! branch point to the next; a digest kept per renaming would be
//! recomputed whole, histories included, at almost every fingerprint
//! (before this, 36% of `cl12-unroll-heart-remainder-inner.src` at 8
//! threads). So what is kept names no thread: a thread's state is digested
//! with every thread name erased (a key tree names at most one thread, its
//! root, [`super::state::Keys::free`]), and the names go into [`Refs`]:
//! per thread named, the sum of digests of the *places* that name it (a
//! position in the traversal or in a history, or, in an unordered part, a
//! tag and the entry's name-free digest). The state is determined by the
//! name-free digest and the map from threads named to their places (the
//! erased digest fixes the structure, so the places fix where each name
//! goes), and the renamed state by the same digest and the map with each
//! thread renamed. So a thread's digest under a renaming `π` is
//! `H(free, Σ_t item(π(t), places(t)))`: a few hashes per fingerprint,
//! however long the thread's history. Values are renamed (value symmetry,
//! M-RENAME) inside the name-free digest, so what is kept is keyed by the
//! value renaming ([`Naming`]), usually none.
//!
//! The histories (trace, convergent-call events, observations) only grow:
//! a thread appends to them and never removes or reorders an entry, and of
//! the events only the last one (the call the thread waits at or resumes
//! from) is completed later (its key and result, [`super::sched`],
//! [`super::calls`]). They are digested as chains, `h(i+1) = XXH3-128(h(i)
//! ‖ entry i)`, with their places, kept across changes of the thread, so a
//! changed thread costs the entries appended since its last digest, not
//! its whole history (before this, every fingerprint rehashed every
//! thread's whole trace: quadratic in the steps of an execution). The
//! chain of events stops before the last event, which is digested afresh
//! every time. Each thread keeps its digests under its `NAMINGS` (4) most
//! recently used value renamings; a chain longer than its history (never,
//! by the invariant above) starts over. The fired instances (a set that
//! only grows) keep their sum and places the same way ([`SumCache`]).
//!
//! Exactness: a fingerprint chains XXH3-128 over per-thread digests,
//! history entries and sums of digests (multiset hashes) instead of
//! hashing the same bytes in one pass. Two different states get equal
//! fingerprints only if XXH3-128 collides on one of the (linearly many)
//! digests computed on the way, or a sum of digests does; with 128-bit
//! digests that stays about as unlikely as one collision of the
//! whole-state hash (a union bound over the digests computed, each ~2^-128
//! per pair). The differential test against the plain search
//! (`semantics/tests/interp_reduce.rs`) and, in the same tests, the check
//! that every cached fingerprint equals one computed without caches
//! ([`super::reduce::check_digests`]) guard the invariants. (That check
//! fails when the events chain is made to cover the last event.)

use std::sync::Mutex;

use super::reduce::{item, At, Fp, Names};
use super::state::{KeyId, Observation, Slot, Status, ThreadEnd};
use super::value::Val;

/// The digests memoization computed for one thread (module
/// documentation). Behind a mutex because the thread is shared between
/// the running machine and saved checkpoints, and the digest is stored when
/// a fingerprint reads the thread.
#[derive(Default)]
pub struct DigestCache(Mutex<Cache>);

#[derive(Clone, Default)]
struct Cache {
    /// Per value renaming, the most recently used first, the first `used`
    /// of [`NAMINGS`]: the thread's name-free digest and the chains over
    /// its histories.
    per: [PerNaming; NAMINGS],
    used: usize,
    /// The thread's signatures (names and keys left out; see
    /// [`signature`]). Dropped when the thread changes.
    sig: Option<(u128, u128)>,
    /// Name-free chains of the signature: trace blocks, event locations.
    sig_trace: Chain,
    sig_events: Chain,
}

/// Under value symmetry the canonical renaming of values changes from one
/// branch point to the next; a thread keeps its digests under this many.
const NAMINGS: usize = 4;

/// How a digest names values: [`OWN`], or the id of a value renaming in
/// the search's table (`reduce::ValueNamings`; a thread lives in one search).
pub(super) type Naming = u32;
/// The values' own names.
pub(super) const OWN: Naming = u32::MAX;

#[derive(Clone, Default)]
struct PerNaming {
    naming: Naming,
    /// The thread's name-free digest and places. Dropped when the thread
    /// changes.
    whole: Option<(u128, Refs)>,
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

/// The places that name each thread (module documentation): per thread
/// named, the sum of the digests of its places. Few entries (the threads
/// a thread's keys name: itself and the lowest members of the anchor
/// instances it joined).
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub(super) struct Refs(Vec<(u32, u128)>);

impl Refs {
    /// Thread `tid` is named at the place with digest `place`.
    fn add(&mut self, tid: u32, place: u128) {
        match self.0.iter_mut().find(|(t, _)| *t == tid) {
            Some((_, s)) => *s = s.wrapping_add(place),
            None => self.0.push((tid, place)),
        }
    }

    fn extend(&mut self, other: &Refs) {
        for (t, s) in &other.0 {
            self.add(*t, *s);
        }
    }

    /// The digest of the places with each thread renamed by `names`
    /// (order-independent).
    fn renamed(&self, names: &Names) -> u128 {
        self.0
            .iter()
            .map(|(t, s)| item(&(names.tid(*t), *s)))
            .fold(0u128, u128::wrapping_add)
    }
}

/// A chained digest of the first `len` entries of a history, computed
/// under the value renaming `naming`, with the places of the thread names
/// met (entry index and the name's ordinal within the entry).
#[derive(Clone, Default)]
struct Chain {
    naming: Naming,
    len: usize,
    digest: u128,
    refs: Refs,
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
                ..Chain::default()
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

    /// Appends one entry whose digest and thread names `digest` computes
    /// into a [`Free`] (places: this entry's index, then the ordinal).
    fn push_free(&mut self, names: &mut Names, digest: impl FnOnce(&mut Free) -> u128) {
        let mut free = Free::new(names, self.len as u64);
        let d = digest(&mut free);
        self.refs.extend(&free.refs);
        self.push(|f| f.add(&d));
    }
}

/// Digests a part of a thread with thread names erased, collecting the
/// places that name threads into `refs` (module documentation). A place
/// is `(0, base, ordinal)` for a name met in order (positions are
/// structural: the name-free digest fixes how many names come before);
/// and `(1, tag, entry)` for a name in an entry of an unordered part.
pub(super) struct Free<'n, 'a> {
    names: &'n mut Names<'a>,
    refs: Refs,
    base: u64,
    ordinal: u32,
}

impl<'n, 'a> Free<'n, 'a> {
    fn new(names: &'n mut Names<'a>, base: u64) -> Free<'n, 'a> {
        Free {
            names,
            refs: Refs::default(),
            base,
            ordinal: 0,
        }
    }

    /// A name met in order.
    fn at(&mut self, tid: Option<u32>) {
        if let Some(t) = tid {
            self.refs.add(t, item(&(0u8, self.base, self.ordinal)));
        }
        self.ordinal += 1;
    }

    /// `k` name-free, its thread named in order.
    fn key(&mut self, k: KeyId) -> u128 {
        let (d, t) = self.names.free_key(k);
        self.at(t);
        d
    }

    /// A thread id, named in order.
    fn tid(&mut self, t: u32) -> u32 {
        self.at(Some(t));
        u32::MAX
    }

    /// A value (tokens name-free), its thread named in order.
    fn val_at(&mut self, at: At, v: &Val) -> (u8, u128) {
        let (d, t) = self.names.free_val_at(at, v);
        self.at(t);
        d
    }

    /// The digest of an unordered part: the wrapping sum of its entries'
    /// name-free digests, each entry's thread (if any) named at
    /// `(1, tag, entry)`.
    fn set<T, D: std::hash::Hash>(
        &mut self,
        tag: (u8, u64),
        entries: impl Iterator<Item = T>,
        mut digest: impl FnMut(&mut Names, T) -> (D, Option<u32>),
    ) -> u128 {
        let mut sum = 0u128;
        for e in entries {
            let (d, t) = digest(self.names, e);
            sum = sum.wrapping_add(set_entry(&mut self.refs, tag, &d, t));
        }
        sum
    }
}

/// One entry of an unordered part tagged `tag`: its digest (the term of
/// the part's sum), its thread (if any) named at `(1, tag, digest)`.
fn set_entry(refs: &mut Refs, tag: (u8, u64), d: &impl std::hash::Hash, t: Option<u32>) -> u128 {
    let d = item(d);
    if let Some(t) = t {
        refs.add(t, item(&(1u8, tag, d)));
    }
    d
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
        DigestCache(Mutex::new(self.lock().clone()))
    }
}

impl std::fmt::Debug for DigestCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DigestCache")
    }
}

/// The fired instances' name-free sum and places, kept with the set
/// ([`super::state::Fired`]): the set only grows, so the sum extends by the
/// instances fired since. Keys hold no values: one for every renaming.
#[derive(Default)]
pub struct SumCache(Mutex<Chain>);

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
    fn lock(&self) -> std::sync::MutexGuard<'_, Chain> {
        // As `DigestCache::lock`: every field is assigned whole.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The digest of the fired instances under `names`: a set of keys, so
/// the wrapping sum of their name-free digests with each key's thread
/// named at the key's digest (as [`Free::set`]).
pub(super) fn fired(set: &super::state::Fired, names: &mut Names) -> u128 {
    let mut sum = set.cache.lock();
    let from = sum.start(OWN, set.len());
    if from < set.len() {
        for k in set.in_order().focus().narrow(from..) {
            let (d, t) = names.free_key(*k);
            let d = set_entry(&mut sum.refs, (0, 0), &d, t);
            sum.digest = sum.digest.wrapping_add(d);
            sum.len += 1;
        }
    }
    item(&(sum.digest, sum.refs.renamed(names)))
}

/// One thread's part of a fingerprint under `names` (everything of the
/// thread the rest of the execution reads or the finished execution
/// shows; see [`super::reduce`]): its name-free digest, cached in the
/// thread's slot, and its places renamed.
pub(super) fn thread(slot: &Slot, names: &mut Names) -> u128 {
    let mut c = slot.cache.lock();
    let naming = names.value_naming();
    let c = c.under(naming);
    if c.whole.is_none() {
        c.whole = Some(compute(&slot.th, c, naming, names));
    }
    let (d, refs) = c.whole.as_ref().expect("computed above");
    item(&(*d, refs.renamed(names)))
}

/// The name-free digest of a thread and the places that name threads
/// (module documentation).
fn compute(
    th: &super::state::ThreadState,
    c: &mut PerNaming,
    naming: Naming,
    names: &mut Names,
) -> (u128, Refs) {
    let mut f = Fp::new();
    let mut free = Free::new(names, u64::MAX);
    f.add(&(free.tid(th.tid), th.group, th.steps, th.seq, th.allocas));
    for (i, fr) in th.frames.iter().enumerate() {
        let (ctx, block_key) = (free.key(fr.ctx), free.key(fr.block_key));
        f.add(&(fr.func, fr.block, fr.index, ctx, block_key, fr.ret_to));
        // M-LIVE: dead values are left out ([`super::liveness`]).
        let live = free.names.live(th, i);
        let vals = free.set(
            (0, i as u64),
            fr.values.iter().filter(|(id, _)| live.contains(**id)),
            |names, (id, v)| {
                let (d, t) = names.free_val_at(At::Frame(fr.func, *id), v);
                ((id, d), t)
            },
        );
        let hdrs = free.set(
            (1, i as u64),
            fr.last_header.iter(),
            |names, (b, (seq, key))| {
                let (d, t) = names.free_key(*key);
                ((b, seq, d), t)
            },
        );
        f.add(&(vals, hdrs));
    }
    match &th.status {
        Status::Running => f.add(&0u8),
        Status::Waiting(p) => {
            let key = p.key.map(|k| free.key(k));
            f.add(&(1u8, p.loc, key, p.event));
            for (k, a) in p.args.iter().enumerate() {
                f.add(&free.val_at(At::Arg(p.loc, k), a));
            }
        }
        Status::Killed => f.add(&2u8),
        Status::Done(ThreadEnd::Returned(v)) => f.add(&(3u8, free.val_at(At::Ret, v))),
        Status::Done(e) => f.add(&(4u8, format!("{e:?}"))),
    }
    // The last event (not yet in its chain: it may still change).
    let done = th.events.len().saturating_sub(1);
    if let Some(last) = th.events.get(done) {
        f.add(&event(last, &mut free));
    }
    let loops = free.set((2, 0), th.loop_counts.iter(), |names, ((loc, key), n)| {
        let (d, t) = names.free_key(*key);
        ((loc, d, n), t)
    });
    f.add(&loops);
    let used = free.set((3, 0), th.used_keys.keys(), |names, key| {
        names.free_key(*key)
    });
    f.add(&used);
    let resume = th.resume.as_ref().map(|r| {
        (
            r.loc,
            free.key(r.key),
            r.event,
            r.value.as_ref().map(|v| free.val_at(At::Res(r.loc), v)),
        )
    });
    f.add(&resume);
    let mut refs = free.refs;
    // The trace: a chain over every visit.
    let chain = &mut c.trace;
    let from = chain.start(naming, th.trace.len());
    if from < th.trace.len() {
        for v in th.trace.focus().narrow(from..) {
            chain.push_free(names, |free| {
                let key = free.key(v.key);
                item(&(v.func, v.block, key))
            });
        }
    }
    f.add(&(th.trace.len(), chain.digest));
    // The events: a chain over all but the last, which may still change.
    let chain = &mut c.events;
    let from = chain.start(naming, done);
    for i in from..done {
        chain.push_free(names, |free| event(&th.events[i], free));
    }
    f.add(&(th.events.len(), chain.digest));
    let chain = &mut c.observations;
    let from = chain.start(naming, th.observations.len());
    if from < th.observations.len() {
        for o in th.observations.focus().narrow(from..) {
            chain.push_free(names, |free| observation(o, free));
        }
    }
    f.add(&(th.observations.len(), chain.digest));
    // The chains' places, kept apart from each other and from the rest's
    // by a tag.
    for (tag, chain) in [(0u8, &c.trace), (1, &c.events), (2, &c.observations)] {
        for (t, s) in &chain.refs.0 {
            refs.add(*t, item(&(2u8, tag, *s)));
        }
    }
    (f.finish(), refs)
}

/// A recorded convergent call without its arguments: they are not part of
/// a behaviour (R-BEHAV, `Execution::behaviour_digest`: callee, result and
/// communicating set), and no later step reads a past call's arguments
/// (what a later call of an unknown convergent function reads is the table
/// of results, `Machine::conv`, fingerprinted apart). States that differ
/// only there have the same continuations and show the same behaviours.
fn event(e: &super::state::CallEvent, free: &mut Free) -> u128 {
    let mut f = Fp::new();
    f.add(&(e.loc, &e.callee, e.pos, free.key(e.key)));
    f.add(&e.result.as_ref().map(|r| free.val_at(At::Res(e.loc), r)));
    f.finish()
}

fn observation(o: &Observation, free: &mut Free) -> u128 {
    let mut f = Fp::new();
    match o {
        Observation::Call { callee, .. } => f.add(&(0u8, callee)),
        other => f.add(&(1u8, other)),
    }
    for (at, v) in observed_values(o) {
        f.add(&free.val_at(at, v));
    }
    f.finish()
}

/// The values an observation holds, each with where it sits (M-RENAME
/// classes): an unknown call's arguments, then its result; none for the
/// other observations.
pub(super) fn observed_values(o: &Observation) -> impl Iterator<Item = (At<'_>, &Val)> + '_ {
    let (callee, args, result) = match o {
        Observation::Call {
            callee,
            args,
            result,
        } => (callee.as_str(), args.as_slice(), Some(result)),
        _ => ("", &[][..], None),
    };
    let args = args
        .iter()
        .enumerate()
        .map(move |(k, a)| (At::Slot(callee, k), a));
    args.chain(result.map(|r| (At::Result(callee), r)))
}

/// For [`super::reduce::check_digests`]: a thread's digest computed
/// directly, every thread name renamed where it occurs (no places, no
/// chains, no cache), and the same of its trace, of its events but the
/// last, and of its observations. Two renamings give equal direct digests
/// exactly when they agree on the threads the part names, which is what
/// the digests through places must reproduce ([`check_places`]).
fn direct(th: &super::state::ThreadState, names: &mut Names) -> [u128; 4] {
    let mut f = Fp::new();
    f.add(&(names.tid(th.tid), th.group, th.steps, th.seq, th.allocas));
    let sum = |xs: &mut dyn Iterator<Item = u128>| xs.fold(0u128, u128::wrapping_add);
    for (i, fr) in th.frames.iter().enumerate() {
        f.add(&(
            fr.func,
            fr.block,
            fr.index,
            names.key(fr.ctx),
            names.key(fr.block_key),
        ));
        let live = names.live(th, i);
        f.add(&sum(&mut fr
            .values
            .iter()
            .filter(|(id, _)| live.contains(**id))
            .map(|(id, v)| {
                item(&(id, names.val_at(At::Frame(fr.func, *id), v)))
            })));
        f.add(&sum(&mut fr
            .last_header
            .iter()
            .map(|(b, (seq, k))| item(&(b, seq, names.key(*k))))));
    }
    match &th.status {
        Status::Waiting(p) => {
            f.add(&(1u8, p.loc, p.key.map(|k| names.key(k)), p.event));
            for (k, a) in p.args.iter().enumerate() {
                f.add(&names.val_at(At::Arg(p.loc, k), a));
            }
        }
        Status::Done(ThreadEnd::Returned(v)) => f.add(&(3u8, names.val_at(At::Ret, v))),
        other => f.add(&format!("{other:?}")),
    }
    let mut part = Fp::new();
    for v in th.trace.iter() {
        part.add(&(v.func, v.block, names.key(v.key)));
    }
    let trace = part.finish();
    let mut part = Fp::new();
    let mut events = 0;
    for (i, e) in th.events.iter().enumerate() {
        if i + 1 == th.events.len() {
            events = part.finish();
        }
        part.add(&(e.loc, &e.callee, e.pos, names.key(e.key)));
        part.add(&e.result.as_ref().map(|r| names.val_at(At::Res(e.loc), r)));
    }
    let all_events = part.finish();
    let mut part = Fp::new();
    for o in th.observations.iter() {
        for (at, v) in observed_values(o) {
            part.add(&names.val_at(at, v));
        }
    }
    let observations = part.finish();
    f.add(&(trace, all_events, observations));
    f.add(&sum(&mut th
        .loop_counts
        .iter()
        .map(|((l, k), n)| item(&(l, names.key(*k), n)))));
    f.add(&sum(&mut th.used_keys.keys().map(|k| item(&names.key(*k)))));
    if let Some(r) = &th.resume {
        f.add(&(
            r.loc,
            names.key(r.key),
            r.value.as_ref().map(|v| names.val_at(At::Res(r.loc), v)),
        ));
    }
    [f.finish(), trace, events, observations]
}

/// For [`super::reduce::check_digests`]: the digest of `slot` under
/// `names` equals its digest under `own` (the same values, threads under
/// their own names) exactly when the direct digests ([`direct`]) are
/// equal, i.e. the places carry every thread name of the state; and the
/// same holds of each history's chain alone (the rest of a thread names
/// most threads its histories name, so the whole alone would rarely see
/// a history's places go missing). A panic otherwise.
pub(super) fn check_places(slot: &Slot, names: &mut Names, own: &mut Names) {
    let through_places = thread(slot, names) == thread(slot, own);
    let chains: Vec<Refs> = {
        let mut c = slot.cache.lock();
        let c = c.under(names.value_naming());
        vec![
            c.trace.refs.clone(),
            c.events.refs.clone(),
            c.observations.refs.clone(),
        ]
    };
    let (a, b) = (direct(&slot.th, names), direct(&slot.th, own));
    let what = ["thread", "trace", "events", "observations"];
    for (i, what) in what.iter().enumerate() {
        let through = match i {
            0 => through_places,
            _ => chains[i - 1].renamed(names) == chains[i - 1].renamed(own),
        };
        assert_eq!(
            through,
            a[i] == b[i],
            "digest: the {what} of thread {} must change under a renaming exactly \
             when the renaming moves a thread it names",
            slot.th.tid
        );
    }
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
    use super::state::{Status, ThreadEnd};
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
            for (at, v) in observed_values(o) {
                let class = match at {
                    At::Slot(callee, k) => r.slot(callee, k),
                    At::Result(callee) => r.results.get(callee).copied(),
                    _ => None,
                };
                note(class, v);
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
