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
//! ## Where states are compared
//!
//! The argument above needs nothing of the point where the state is
//! taken: any state on the current path whose equal was reached on an
//! earlier path has had its whole subtree explored (a state never repeats
//! on one path: step counters and histories only grow). So
//! [`super::sched::run_execution`] looks the state up at every scheduling
//! point, after the threads ran and before a set fires (safe or chosen),
//! and once more when the execution ends (a finished state met before
//! shows a behaviour already recorded). Until this round it looked only
//! where the search branches (more than one candidate, not safe): two
//! independent firings made in either order and followed only by forced
//! ones (safe sets, single candidates) then met nowhere, and both orders
//! ran to the end (cl19-anchor-sink-all.src at 3 threads: 320,134
//! executions explored and 8,947 merged before; 17,753 explored and 68,445
//! merged now, 7.3 s -> 2.4 s of CPU, the same 7,848 behaviours). States
//! met during a replay (`Chooser::replaying`: resuming from a checkpoint
//! re-makes recorded choices) are not looked up: they were reached on this
//! very path.
//!
//! Where M-LIVE-MEM applies ([`super::readers`]: input bytes no
//! continuation reads are left out), the state is also looked up after a
//! thread's run that made choices (the inputs it loaded), when a later
//! thread is still to run in the same pass of
//! [`super::sched::run_execution`]. The rest of the execution from there is
//! the rest of the pass (the threads still running, in index order: every
//! thread before it is blocked or ended) and then the scheduling point,
//! which is what a pass started from that state does: a function of the
//! state alone, so the argument above holds there too. (Such a state has a
//! running thread, so it never equals one taken at a scheduling point.)
//! Without it the states after one thread loaded its inputs met only once
//! every thread had chosen its own: hip_vector_load at 2 threads, 531,441
//! executions for 400 behaviours; with it 400 explored and 14,889 merged.
//!
//! ## Dead frame values (M-LIVE)
//!
//! The fingerprint leaves out the frame values that no continuation can
//! read ([`super::liveness`], which holds the argument): two states equal
//! up to their dead values have the same continuations up to those values
//! and the same finished executions, since no step, no scheduling
//! decision and no part of a behaviour reads a dead value. Nothing
//! recorded is dropped: traces, events, observations and ends stay in the
//! fingerprint whole. This merges launches whose inputs differ only in
//! values a thread will not read again (cl04-caller-merge.src: a thread
//! that took one side of the branch never reads the other side's input;
//! at 3 threads, main with a budget of 10^8: 244,944 executions explored
//! and 157,464 merged; with M-LIVE alone 13,824 executions, with the
//! lookups at every scheduling point too 2,808 explored and 21,168
//! merged; the same 2,808 behaviours).
//!
//! ## Past call arguments and dead results
//!
//! Two more parts of a state are read by nothing that follows and shown
//! by no behaviour, so the fingerprint leaves them out too. (1) The
//! arguments of convergent calls already made: a behaviour
//! (`Execution::behaviour_digest`, R-BEHAV) holds each call's callee,
//! result and communicating set, not its arguments, and a later step reads
//! a past call only through the table of chosen results
//! ([`super::digest`], `event`). (2) Entries of that table, `Machine::conv`,
//! whose set holds a thread that has ended: an entry is read only by a
//! later call of the same callee by the very same threads with the same
//! arguments (C-OPS), which an ended thread cannot join (`conv`). The
//! printed arguments of a behaviour are those of the first execution found
//! that shows it, as its printed inputs are. cl19-anchor-sink-all.src at 3
//! threads: 17,753 executions explored and 68,445 merged -> 664 and
//! 28,702, 1.9 s -> 0.7 s of CPU; at 4 threads, complete with a budget of
//! 10^8: 890,940 explored and 6,822,033 merged, 169 s -> 9,603 and
//! 1,530,801, 29 s; the same 7,848 and 184,176 behaviours.
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
//! ones). The renamed state is never built: a key's renamed digest is one
//! hash of its name-free digest and its root's new name
//! ([`super::state::Keys::renamed`]), and a thread's part is its name-free
//! digest with the places that name threads renamed ([`super::digest`]),
//! so a new canonical order costs a few hashes per thread. Two states
//! with equal fingerprints are renamings of each other whatever order ties
//! take (ties only lose merges). States whose P-INPUT
//! uninterpreted-function table is non-empty (`Machine::memo`: readnone
//! calls keyed by arguments and thread ids, not renamed) or that hold threads'
//! private objects get the plain fingerprint.
//! `semantics/tests/interp_reduce.rs` compares with the plain search.
//!
//! ## Unknown convergent functions
//!
//! C-OPS models an unknown convergent function as an uninterpreted
//! function F of the multiset {(thread id, arguments)} of the set that
//! fires it (one function per callee); the machine chooses F's value at a
//! multiset the first time a set fires with it and keeps it in
//! `Machine::conv`, keyed by the (thread id, arguments) pairs in thread
//! order. For a renaming τ in G, the renamed state τ(s) holds the table
//! F∘τ⁻¹: at τ(M) the value F had at M (listed in the renamed thread
//! order, which is how τ(s) would have recorded it). From τ(s), a set τ(M)
//! fires exactly when M fires from s; it reads F∘τ⁻¹(τ(M)) = F(M) when s
//! reads F(M), and when F(M) is not yet chosen both make the same choice
//! over the same domain at the same point. So the executions from τ(s) are
//! the τ-renamings of those from s, results included, and
//! B(τ(s)) = τ(B(s)) as for the rest of the state: the table is
//! fingerprinted renamed (each key's ids renamed, the pairs re-sorted) and
//! no longer turns state symmetry off. (Before, the table was text keyed
//! by thread ids, which the renaming did not reach, and every state with
//! a chosen result took the plain fingerprint: cl19, cl20, cl28 and cl01
//! had no state symmetry.) The closure under G at the end is unchanged:
//! launch symmetry's argument already covers F, since every F is
//! enumerated and G maps the set of all F onto itself.
//!
//! ## Value symmetry (memoization up to renaming values)
//!
//! Under the renamings of M-RENAME ([`super::renaming`]) the behaviours
//! found are closed at the end under permutations ρ of the free values of
//! each opaque class (values the program only copies, compares for
//! equality, passes to unknown functions and observes). The semantics is
//! equivariant under ρ (the argument is in [`super::symmetry`]), so from
//! the state ρ(s) the executions are the ρ-images of those from s,
//! B(ρ(s)) = ρ(B(s)). The search draws renamed results in restricted
//! growth (a value already used or the least unused one), so it explores
//! only part of the executions from s; but every execution from s is a
//! renaming, by a ρ' that fixes the values s uses, of one it explores
//! (the same argument as for the launch), so G·(found from s) covers all
//! of B(s), hence all of B(ρ(s)). A state that renames one already
//! explored is therefore merged. The fingerprint is that of a canonical
//! renaming: each class's free values renumbered in the order they first
//! occur in the state, threads taken in the (canonical) order the
//! fingerprint takes them ([`super::digest::relabel`]); every position that holds a value
//! of an opaque class is renamed (frames, pending and resumed calls,
//! events, observations, the returned value, the table of results of
//! unknown convergent functions and the used values, `Machine::used`), so
//! two states with equal fingerprints are renamings of each other whatever
//! order was chosen. Thread signatures leave opaque frame values out, so
//! that renamed states order their threads alike. States holding P-INPUT
//! readnone results (`Machine::memo`) are not renamed.
//! Different schedules of unknown convergent functions draw their results
//! in different orders, which restricted growth numbers differently: these
//! states now meet (cl19-anchor-sink-all.src at 3 threads: 447,548 ->
//! 316,998 executions, 7,848 behaviours).
//!
//! # Resuming from saved states
//!
//! The search re-runs each execution with the choices of the previous one
//! up to the advanced choice: from the launch in the plain search, from
//! the state saved at the deepest scheduling point before that choice
//! otherwise ([`super::sched::Checkpoints`]). The machine is a function of
//! the choices made, so this runs the same executions in the same order.
//! Where M-LIVE-MEM applies, a state is also saved after a thread's run
//! that made choices and met no known state: resuming there runs the rest
//! of the pass, as the execution that saved it did (see "Where states are
//! compared").
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

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

use super::liveness::{Live, Liveness};
use super::memory::ObjKind;
use super::program::Program;
use super::renaming::Renaming;
use super::state::{KeyId, Keys, Loc, Machine};
use super::value::Val;
use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_128;

/// The states the search has reached at its scheduling points
/// (memoization), and whether states equal up to renaming threads count as
/// one (state symmetry, `class` non-empty).
pub struct States {
    seen: rustc_hash::FxHashSet<u128>,
    /// Per thread, the class of threads it may be renamed into (launch
    /// group and subgroup); empty when state symmetry is off.
    class: Vec<u32>,
    /// Value symmetry: the renamings whose opaque classes memoization may
    /// rename (M-RENAME); `None` when off.
    values: Option<Renaming>,
    /// The ids of the value renamings met (value symmetry).
    namings: ValueNamings,
    /// M-LIVE: the live values of each program point; dead frame values
    /// are left out of every fingerprint ([`super::liveness`]). `None`:
    /// every value counts.
    live: Option<Liveness>,
    /// M-LIVE-MEM: what each thread may still read of memory
    /// ([`super::readers`]); input bytes no continuation reads are left
    /// out of every fingerprint. `None` until the first launch is
    /// analysed ([`States::prepare`]), `Some(None)` when the analysis does
    /// not apply.
    readers: Option<Option<super::readers::Readers>>,
}

/// The ids of the value renamings the search's fingerprints used, for the
/// threads' digest caches ([`super::digest::Naming`]; what they keep names
/// no thread, so thread renamings need no id). (Renamed key
/// digests need no table: a key tree names at most one thread, and its
/// renamed digest is one hash of its name-free digest and the new name,
/// [`super::state::Keys::renamed`]. Before that, a search-wide table of
/// renamed digests keyed by (digest, renaming) was looked up for every
/// key of every fingerprint: 13% of `cl12-unroll-heart-remainder-inner.src`
/// at 8 threads in that lookup alone.)
#[derive(Default)]
pub(super) struct ValueNamings {
    ids: FxHashMap<Vec<u32>, u32>,
}

impl ValueNamings {
    fn id(&mut self, map: &[u32]) -> u32 {
        if let Some(id) = self.ids.get(map) {
            return *id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(map.to_vec(), id);
        id
    }
}

impl States {
    /// `up_to_threads`: the search runs under launch symmetry (a
    /// thread-blind program, [`super::renaming::Threads::Blind`]), whose
    /// behaviours are closed under renaming threads at the end. `values`:
    /// the search's renamings (M-RENAME), whose opaque values memoization
    /// renames too (value symmetry, module documentation).
    /// `live`: the liveness tables of the program (M-LIVE), or `None` to
    /// fingerprint every frame value.
    pub fn new(
        opts: &super::Options,
        up_to_threads: bool,
        values: &Renaming,
        live: Option<Liveness>,
    ) -> States {
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
            seen: Default::default(),
            class,
            values: values.has_opaque().then(|| values.clone()),
            namings: ValueNamings::default(),
            live,
            readers: None,
        }
    }

    /// M-LIVE-MEM: analyses, once per search, what the threads of `m` (a
    /// launched machine: pointer parameters are the same in every launch)
    /// may read of memory ([`super::readers::analyse`]).
    pub fn prepare(&mut self, prog: &Program, opts: &super::Options, m: &Machine) {
        if self.readers.is_none() {
            let r = (opts.reduce && self.live.is_some())
                .then(|| super::readers::analyse(prog, opts, m))
                .flatten();
            self.readers = Some(r);
        }
    }

    /// Whether input bytes are left out of fingerprints once dead
    /// (M-LIVE-MEM applies): the scheduler then also looks up the state
    /// after a thread's run that made choices ([`super::sched`]).
    pub fn reads_known(&self) -> bool {
        matches!(self.readers, Some(Some(_)))
    }

    /// Records `m`; `false` when it (or, under state symmetry, a renaming
    /// of it) was reached before.
    pub fn first_visit(&mut self, prog: &Program, m: &Machine) -> bool {
        let values = self.values.as_ref();
        let live = self.live.as_ref();
        let mem = match &self.readers {
            Some(Some(r)) => memory_digest(&m.mem, Some(&r.live(prog, m))),
            _ => memory_digest(&m.mem, None),
        };
        let fp = fingerprint_with(m, &self.class, values, &mut self.namings, live, mem);
        if CHECK_DIGESTS.load(Ordering::Relaxed) {
            let fresh = Machine {
                threads: m.threads.without_digests(),
                fired: m.fired.without_digests(),
                ..m.clone()
            };
            assert_eq!(
                fp,
                fingerprint_with(
                    &fresh,
                    &self.class,
                    values,
                    &mut ValueNamings::default(),
                    live,
                    mem
                ),
                "digest: a cached per-thread digest must equal a fresh one \
                 (histories only grow; a thread changes only through IndexMut)"
            );
        }
        self.seen.insert(fp)
    }
}

/// The fingerprint memoization takes: up to renaming threads within
/// `class` when state symmetry is on (`class` non-empty) and applies, and
/// up to renaming the opaque values of `values` when value symmetry is on
/// and applies.
fn fingerprint_with(
    m: &Machine,
    class: &[u32],
    values: Option<&Renaming>,
    namings: &mut ValueNamings,
    live: Option<&Liveness>,
    mem: u128,
) -> u128 {
    let values = values.filter(|_| m.memo.is_empty());
    let fp = if class.is_empty() {
        None
    } else {
        fingerprint_up_to_threads(m, class, values, namings, live, mem)
    };
    fp.or_else(|| {
        values.map(|r| {
            let order: Vec<usize> = (0..m.threads.len()).collect();
            let map = super::digest::relabel(m, r, &order, live);
            let mut names = Names::new(&m.keys, None, namings, Some((r, map)), live);
            whole(m, &mut names, &order, 2, mem)
        })
    })
    .unwrap_or_else(|| own_names(m, live, mem))
}

/// The digest of `mem` as fingerprints take it: whole, or with
/// M-LIVE-MEM's `live` bytes (object, offset, count), every input byte
/// outside them read as unread (no continuation reads it and R-MEM shows
/// none, [`super::readers`]).
fn memory_digest(mem: &super::memory::Memory, live: Option<&[super::readers::Span]>) -> u128 {
    use super::memory::Byte;
    let Some(live) = live else {
        return item(mem);
    };
    let mut f = Fp::new();
    f.add(&1u8);
    // Bytes other than pointers' as one code each, hashed as one slice.
    let mut codes: Vec<u16> = Vec::new();
    for (id, o) in mem.objects.iter() {
        f.add(&(id, &o.name, &o.kind, &o.space));
        codes.clear();
        for (i, b) in o.bytes.iter().enumerate() {
            let i = i as i64;
            codes.push(match b {
                Byte::Poison => 0x100,
                Byte::Unread => 0x200,
                Byte::Undef => 0x300,
                Byte::Data(x) => 0x400 | u16::from(*x),
                Byte::Input(x) => {
                    let read = live.iter().any(|&(obj, off, n)| {
                        obj == *id && off <= i && i < off.saturating_add(n as i64)
                    });
                    if read {
                        0x500 | u16::from(*x)
                    } else {
                        0x200
                    }
                }
                Byte::Ptr { .. } => {
                    f.add(&(i, b));
                    0x600
                }
            });
        }
        f.add(&codes[..]);
    }
    f.add(&(&mem.clocks, &mem.shadow, &mem.last));
    f.finish()
}

static CHECK_DIGESTS: AtomicBool = AtomicBool::new(false);

/// For tests: with `on`, every fingerprint memoization takes is computed a
/// second time without the per-thread digests kept with the threads
/// ([`super::digest`]) and the two must agree (a panic otherwise), and
/// the behaviour digests the search hands to the closure under renaming
/// (M-DATA instances digested before they are built among them) must be
/// those of the behaviours. Applies to the whole process; it costs a full
/// rehash per scheduling point.
pub fn check_digests(on: bool) {
    CHECK_DIGESTS.store(on, Ordering::Relaxed);
}

/// Whether [`check_digests`] is on.
pub(super) fn checking_digests() -> bool {
    CHECK_DIGESTS.load(Ordering::Relaxed)
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

impl Fp {
    /// Appends a fixed-size write: a store into the inline buffer, not a
    /// call of `memcpy` with a variable length (integers are most of what
    /// fingerprints hash, and those calls were a tenth of a memoized
    /// search). The same bytes as [`Hasher::write`].
    #[inline]
    fn push<const N: usize>(&mut self, bytes: [u8; N]) {
        if self.rest.is_empty() && self.len + N <= FP_INLINE {
            self.head[self.len..self.len + N].copy_from_slice(&bytes);
            self.len += N;
        } else {
            self.write(&bytes);
        }
    }
}

/// `Hasher::write_*` for each unsigned integer type: the integer's
/// native-endian bytes (their default definitions), through [`Fp::push`].
macro_rules! push_ints {
    ($($name:ident: $ty:ty),*) => {
        $(
            #[inline]
            fn $name(&mut self, i: $ty) {
                self.push(i.to_ne_bytes());
            }
        )*
    };
}

impl Hasher for Fp {
    push_ints!(write_u8: u8, write_u16: u16, write_u32: u32, write_u64: u64, write_u128: u128, write_usize: usize);
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
pub(super) fn item<T: Hash + ?Sized>(x: &T) -> u128 {
    let mut f = Fp::new();
    f.add(x);
    f.finish()
}

/// How a fingerprint names threads and dynamic-instance keys: the state's
/// own names, or thread `t` renamed `perm[t]` throughout (thread ids,
/// anchor instances named by a member, C++ per-thread contexts); and, under
/// value symmetry, how it renames the opaque values.
pub(super) struct Names<'a> {
    keys: &'a Keys,
    perm: Option<Vec<u32>>,
    /// The id of the value renaming ([`super::digest::OWN`] without
    /// value symmetry) for the threads' digest caches: what they keep is
    /// free of thread names ([`super::digest`]), so it holds under every
    /// renaming of threads.
    value_naming: super::digest::Naming,
    /// Value symmetry: the renamings and, per class, the new index of each
    /// free value ([`super::digest::relabel`]).
    vals: Option<(&'a Renaming, Vec<Vec<usize>>)>,
    /// M-LIVE: which frame values count ([`super::liveness`]); `None`:
    /// all of them.
    live: Option<&'a Liveness>,
}

/// Where a value sits in the state: the class it belongs to (M-RENAME).
#[derive(Clone, Copy)]
pub(super) enum At<'x> {
    /// SSA value `id` of a frame of function `func`.
    Frame(usize, crate::ir::ValueId),
    /// Argument `k` of the call at `loc` (pending call, event).
    Arg(Loc, usize),
    /// Result of the call at `loc` (event, resumed call).
    Res(Loc),
    /// The kernel's returned value.
    Ret,
    /// Argument `k` of an unknown callee (observation, result table).
    Slot(&'x str, usize),
    /// Result of an unknown callee.
    Result(&'x str),
}

impl<'a> Names<'a> {
    fn own(keys: &'a Keys, live: Option<&'a Liveness>) -> Names<'a> {
        Names {
            keys,
            perm: None,
            value_naming: super::digest::OWN,
            vals: None,
            live,
        }
    }

    /// Threads renamed by `perm` (if any) and values by `vals` (if any).
    fn new(
        keys: &'a Keys,
        perm: Option<Vec<u32>>,
        namings: &'a mut ValueNamings,
        vals: Option<(&'a Renaming, Vec<Vec<usize>>)>,
        live: Option<&'a Liveness>,
    ) -> Names<'a> {
        let value_naming = match &vals {
            None => super::digest::OWN,
            Some((_, map)) => {
                // The value renaming's id: each class's value map, each
                // followed by a separator.
                let mut whole: Vec<u32> = Vec::new();
                for m in map {
                    whole.extend(m.iter().map(|i| *i as u32));
                    whole.push(u32::MAX);
                }
                namings.id(&whole)
            }
        };
        Names {
            keys,
            perm,
            value_naming,
            vals,
            live,
        }
    }

    /// M-LIVE: which values of frame `i` of `th` the fingerprint takes.
    pub(super) fn live(&self, th: &super::state::ThreadState, i: usize) -> Live<'a> {
        self.live.map_or(Live::All, |l| l.frame(th, i))
    }

    /// The value `v` at `at`: renamed when value symmetry renames its
    /// class, as [`Names::val`] otherwise.
    pub(super) fn val_at(&mut self, at: At, v: &Val) -> (u8, u128) {
        if let (Some((r, map)), Val::Int { bits, v: x }) = (&self.vals, v) {
            let class = match at {
                At::Frame(f, id) => r.values.get(&(f, id)).copied(),
                At::Arg(loc, k) => r
                    .sites
                    .get(&loc)
                    .and_then(|(a, _)| a.get(k).copied().flatten()),
                At::Res(loc) => r.sites.get(&loc).and_then(|(_, res)| *res),
                At::Ret => r.ret,
                At::Slot(callee, k) => r.slot(callee, k),
                At::Result(callee) => r.results.get(callee).copied(),
            };
            if let Some(c) = r.opaque(class) {
                let free = &r.classes[c].free;
                if let Some(i) = free.iter().position(|f| f == x) {
                    return (
                        2,
                        item(&Val::Int {
                            bits: *bits,
                            v: free[map[c][i]],
                        }),
                    );
                }
            }
        }
        self.val(v)
    }

    /// The used free values of each dynamic class (`Machine::used`),
    /// renamed.
    pub(super) fn used(&self, used: &[u64]) -> Vec<u64> {
        let Some((r, map)) = &self.vals else {
            return used.to_vec();
        };
        let mut out = vec![0u64; used.len()];
        for (c, cl) in r.classes.iter().enumerate() {
            if let Some(j) = cl.dynamic {
                for (i, to) in map[c].iter().enumerate() {
                    if used[j] & (1 << i) != 0 {
                        out[j] |= 1 << to;
                    }
                }
            }
        }
        out
    }

    /// The value renaming's id for the threads' digest caches
    /// ([`super::digest::Naming`]).
    pub(super) fn value_naming(&self) -> super::digest::Naming {
        self.value_naming
    }

    pub(super) fn tid(&self, t: u32) -> u32 {
        self.perm.as_ref().map_or(t, |p| p[t as usize])
    }

    /// The structural digest of `k` under the renaming: the digest
    /// [`Keys::intern`] gives the tree with its thread names renamed (so
    /// the identity renaming gives [`Keys::canon`]); one hash, see
    /// [`super::state::Keys::renamed`].
    pub(super) fn key(&mut self, k: KeyId) -> u128 {
        match &self.perm {
            Some(p) => self.keys.renamed(k, p),
            None => self.keys.canon(k),
        }
    }

    /// The digest of `k` with its thread name erased, and the thread it
    /// names, if any ([`super::state::Keys::free`]).
    pub(super) fn free_key(&self, k: KeyId) -> (u128, Option<u32>) {
        self.keys.free(k)
    }

    /// [`Names::val_at`] with a token's thread name erased, and the thread
    /// it names, if any.
    pub(super) fn free_val_at(&mut self, at: At, v: &Val) -> ((u8, u128), Option<u32>) {
        match v {
            Val::Token(k) => {
                let (d, t) = self.keys.free(*k);
                ((1, d), t)
            }
            other => (self.val_at(at, other), None),
        }
    }

    /// A value with token keys replaced by their digest.
    pub(super) fn val(&mut self, v: &Val) -> (u8, u128) {
        match v {
            Val::Token(k) => (1, self.key(*k)),
            other => (0, item(other)),
        }
    }
}

/// Memoization (R-BEHAV): the fingerprint of everything in `m` that the rest of the
/// execution reads or the finished execution shows (see the module
/// documentation).
/// With `live` (M-LIVE), frame values dead at their frame's point are left
/// out ([`super::liveness`]).
pub fn fingerprint(m: &Machine, live: Option<&Liveness>) -> u128 {
    own_names(m, live, memory_digest(&m.mem, None))
}

/// [`fingerprint`] with the memory digested as `mem` ([`memory_digest`]).
fn own_names(m: &Machine, live: Option<&Liveness>, mem: u128) -> u128 {
    let order: Vec<usize> = (0..m.threads.len()).collect();
    whole(m, &mut Names::own(&m.keys, live), &order, 0, mem)
}

/// State symmetry (see the module documentation): a fingerprint of `m`
/// that is equal for states equal up to renaming threads within their
/// classes (`class[t]`: threads of one class may be renamed into each
/// other; classes are contiguous ranges of thread ids), or `None` when
/// the state holds names this renaming does not reach (the table of
/// P-INPUT per-thread uninterpreted functions, whose keys hold thread ids
/// this renaming does not rename; private objects of threads).
pub(super) fn fingerprint_up_to_threads(
    m: &Machine,
    class: &[u32],
    values: Option<&Renaming>,
    namings: &mut ValueNamings,
    live: Option<&Liveness>,
    mem: u128,
) -> Option<u128> {
    if !m.memo.is_empty()
        || m.mem
            .objects
            .values()
            .any(|o| matches!(o.kind, ObjKind::Private { .. }))
    {
        return None;
    }
    let n = m.threads.len();
    let sig: Vec<(u128, u128)> = m
        .threads
        .slots()
        .map(|t| super::digest::signature(t, values, live))
        .collect();
    // The canonical order: by class (contiguous, so position i is thread
    // id i's slot), then by signature; ties keep thread order (any choice
    // is sound: two states with equal fingerprints are renamings of one
    // another whichever order was chosen, see `whole`; ties between
    // threads that differ only in their keys lose merges).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|t| (class[*t], sig[*t].0, sig[*t].1, *t));
    let identity = order.iter().enumerate().all(|(i, t)| i == *t);
    let perm = (!identity).then(|| {
        let mut perm = vec![0u32; n];
        for (i, t) in order.iter().enumerate() {
            perm[*t] = i as u32;
        }
        perm
    });
    // Value symmetry: the opaque values relabelled in the renamed thread
    // order.
    let vals = values.map(|r| (r, super::digest::relabel(m, r, &order, live)));
    let tag = if vals.is_some() { 3 } else { 1 };
    let mut names = match (perm, vals) {
        (None, None) => Names::own(&m.keys, live),
        (p, vals) => Names::new(&m.keys, p, namings, vals, live),
    };
    Some(whole(m, &mut names, &order, tag, mem))
}

/// The results chosen for unknown convergent functions (C-OPS), with the
/// thread ids of each set renamed by `names` and the set listed in the
/// renamed thread order: the table the renamed machine would hold (see
/// "Unknown convergent functions" in the module documentation).
///
/// An entry whose set holds a thread that has ended is left out: only a
/// later call by the very same threads with the same arguments reads it
/// (C-OPS: the result is a function of the set), and an ended thread makes
/// no more calls, so the entry is dead (as M-LIVE's dead values are).
/// Except under M-DATA key uses: while some entry's arguments are symbolic
/// the table's entries constrain which instances of the execution are
/// real ([`super::data::key_constraints`]: an ended set's entries among
/// them), so every entry is kept.
fn conv(m: &Machine, names: &mut Names) -> u128 {
    let keyed = m
        .conv
        .keys()
        .any(|k| k.set.iter().any(|(_, a)| a.iter().any(super::data::is_sym)));
    m.conv
        .iter()
        .filter(|(k, _)| {
            keyed
                || k.set.iter().all(|(t, _)| {
                    !matches!(
                        m.threads[*t as usize].status,
                        super::state::Status::Done(_) | super::state::Status::Killed
                    )
                })
        })
        .map(|(k, v)| {
            let mut set: Vec<(u32, Vec<(u8, u128)>)> = k
                .set
                .iter()
                .map(|(t, args)| {
                    let callee = k.callee.as_deref().unwrap_or("<indirect>");
                    let args = args
                        .iter()
                        .enumerate()
                        .map(|(i, a)| names.val_at(At::Slot(callee, i), a))
                        .collect::<Vec<_>>();
                    (names.tid(*t), args)
                })
                .collect();
            set.sort_unstable();
            let callee = k.callee.as_deref().unwrap_or("<indirect>");
            item(&(&k.callee, set, names.val_at(At::Result(callee), v)))
        })
        .fold(0u128, u128::wrapping_add)
}

/// The fingerprint of `m` with its threads taken in `order` and named by
/// `names`, its memory digested as `mem` ([`memory_digest`]); `tag`
/// keeps fingerprints of different kinds apart.
fn whole(m: &Machine, names: &mut Names, order: &[usize], tag: u8, mem: u128) -> u128 {
    let mut f = Fp::new();
    f.add(&tag);
    f.add(&m.hierarchy);
    // Memory (P-MEM-OBJ): object ids do not depend on the schedule, and
    // bytes hold no tokens, so the objects hash as they are (in id order).
    f.add(&mem);
    f.add(&m.next_input);
    // M-RENAME: the free values drawn so far restrict later draws.
    f.add(&names.used(&m.used));
    let fired = super::digest::fired(&m.fired, names);
    f.add(&fired);
    f.add(
        &m.memo
            .iter()
            .map(|(s, v)| item(&(s, v)))
            .fold(0u128, u128::wrapping_add),
    );
    f.add(&conv(m, names));
    for t in order {
        f.add(&super::digest::thread(m.threads.slot(*t), names));
    }
    if names.perm.is_some() && CHECK_DIGESTS.load(Ordering::Relaxed) {
        let mut own = Names {
            keys: names.keys,
            perm: None,
            value_naming: names.value_naming,
            vals: names.vals.clone(),
            live: names.live,
        };
        for t in order {
            super::digest::check_places(m.threads.slot(*t), names, &mut own);
        }
    }
    f.finish()
}
