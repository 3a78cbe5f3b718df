//! The machine state (STYLE 2): one struct, [`Machine`], holds everything an
//! execution needs; persistent `im` collections make a copy of the state
//! cheap, so a search can fork it.
//!
//! Dynamic-instance identity is a *key* (D-INST, D-CW): two dynamic instances
//! of the same static instance in different threads are converged iff their
//! keys are equal. Keys are hash-consed trees ([`KeyNode`]) whose shape
//! follows the rule that created them (D-CTRL, D-LOOP, D-ENTRY-*, D-ANCHOR,
//! D-MAX-ITER).

use std::ops::{Index, IndexMut};
use std::sync::Arc;

use im::Vector;

/// The hasher of the machine's persistent maps and sets: FxHash
/// (`rustc-hash`), a few instructions per key, the same in every run. Their
/// keys are small integers and tuples of them (value ids, blocks, key ids,
/// locations). The default, SipHash under a random key, was a tenth of the
/// instructions of a memoized search (cl28-texture2d-sink-else.src at 4
/// threads). Nothing reads these maps in their iteration order where it
/// could show: fingerprints sum over them ([`super::reduce`]), and the
/// order was already random from one run to the next.
pub type Fx = rustc_hash::FxBuildHasher;
/// A persistent map hashed by [`Fx`].
pub type HashMap<K, V> = im::HashMap<K, V, Fx>;
/// A persistent set hashed by [`Fx`].
pub type HashSet<K> = im::HashSet<K, Fx>;

use crate::ir::{BlockId, ValueId};

use super::value::Val;

/// An interned key; equal ids mean equal keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId(pub u32);

/// A static instruction: function index in the module, block, and index in
/// the block (`insts.len()` names the terminator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub func: usize,
    pub block: BlockId,
    pub index: usize,
}

/// The node of a key tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyNode {
    /// Launch group `g`: the context of the kernel invocation of every thread
    /// of the group (D-MAX outside cycles; D-ENTRY-LAUNCH `opencl`).
    Group(u32),
    /// A single thread: D-ENTRY-LAUNCH `cxx` (never converged).
    Thread(u32),
    /// A visit of `block` of function `func` whose last point of convergence
    /// is `parent` (D-MAX-ITER): the key of the most recent instance of a
    /// header of a cycle containing the block, or the invocation context.
    Block {
        func: usize,
        block: BlockId,
        parent: KeyId,
    },
    /// An instance of the instruction at `loc` derived from `parent`; `n`
    /// is the D-LOOP iteration count (0 for every other rule).
    Inst { loc: Loc, parent: KeyId, n: u32 },
    /// An anchor instance whose set was chosen by the scheduler (D-ANCHOR,
    /// mode `all`): a fresh identity, named by its lowest member `tid` and
    /// the ordinal `event` of the call among that thread's convergent
    /// calls (unique, since a thread makes each call once; and independent
    /// of the order in which sets fired, which memoization needs).
    Fresh { loc: Loc, tid: u32, event: u32 },
}

/// Hash-consing table of keys.
#[derive(Clone, Debug, Default)]
pub struct Keys {
    /// Key id -> node.
    nodes: Vector<KeyNode>,
    /// Node -> key id.
    ids: HashMap<KeyNode, KeyId>,
    /// Key id -> digest of the key's tree (memoization): equal for equal trees
    /// whatever order the keys were interned in; and, for a tree that
    /// names a thread, its name-free digest and the thread it names (see
    /// [`KeyDigest`]).
    canon: Vector<KeyDigest>,
}

/// The digests of a key tree (memoization, state symmetry). A tree names
/// at most one thread: its root (a [`KeyNode::Fresh`] or
/// [`KeyNode::Thread`] node; every other node has one parent, and the other
/// roots name none). Such a tree's digest is `H(5, free, tid)`, where
/// `free` digests the tree with the root's thread id erased: the tree is
/// determined by the pair, so equal digests still mean equal trees (up to
/// XXH3-128 collisions), and renaming thread `tid` to `u` gives the digest
/// `H(5, free, u)` without walking the tree ([`Keys::renamed`]). A tree
/// that names no thread keeps its digest under every renaming.
#[derive(Clone, Copy, Debug)]
struct KeyDigest {
    canon: u128,
    /// `(free, tid)` for a tree that names a thread.
    named: Option<(u128, u32)>,
}

/// The root's thread id in a name-free digest.
const ERASED: u32 = u32::MAX;

/// The digest of a tree that names thread `tid`, from its name-free digest.
fn named_digest(free: u128, tid: u32) -> u128 {
    let mut f = super::reduce::Fp::new();
    f.add(&(5u8, free, tid));
    f.finish()
}

impl Keys {
    pub fn intern(&mut self, node: KeyNode) -> KeyId {
        if let Some(id) = self.ids.get(&node) {
            return *id;
        }
        let id = KeyId(self.nodes.len() as u32);
        let mut f = super::reduce::Fp::new();
        // A child takes its parent's name-free digest and names the same
        // thread.
        let named = match node {
            KeyNode::Block {
                func,
                block,
                parent,
            } => {
                let (p, tid) = self.free(parent);
                f.add(&(1u8, func, block, p));
                tid
            }
            KeyNode::Inst { loc, parent, n } => {
                let (p, tid) = self.free(parent);
                f.add(&(2u8, loc, p, n));
                tid
            }
            KeyNode::Fresh { loc, tid, event } => {
                f.add(&(
                    3u8,
                    KeyNode::Fresh {
                        loc,
                        tid: ERASED,
                        event,
                    },
                ));
                Some(tid)
            }
            KeyNode::Thread(t) => {
                f.add(&(3u8, KeyNode::Thread(ERASED)));
                Some(t)
            }
            other => {
                f.add(&(3u8, other));
                None
            }
        };
        let d = f.finish();
        let digest = match named {
            Some(tid) => KeyDigest {
                canon: named_digest(d, tid),
                named: Some((d, tid)),
            },
            None => KeyDigest {
                canon: d,
                named: None,
            },
        };
        self.nodes.push_back(node);
        self.ids.insert(node, id);
        self.canon.push_back(digest);
        id
    }
    /// The structural digest of `k` (memoization).
    pub fn canon(&self, k: KeyId) -> u128 {
        self.canon[k.0 as usize].canon
    }
    /// The digest of `k` with its thread name erased, and the thread it
    /// names (the canonical digest and `None` for a tree that names none;
    /// see [`KeyDigest`]).
    pub fn free(&self, k: KeyId) -> (u128, Option<u32>) {
        let d = self.canon[k.0 as usize];
        match d.named {
            Some((free, tid)) => (free, Some(tid)),
            None => (d.canon, None),
        }
    }
    /// The digest of `k` with its threads renamed by `perm` (thread `t`
    /// named `perm[t]`): the same digest as [`Keys::canon`] of the renamed
    /// tree, in one hash (see [`KeyDigest`]).
    pub fn renamed(&self, k: KeyId, perm: &[u32]) -> u128 {
        let d = self.canon[k.0 as usize];
        match d.named {
            Some((free, tid)) => named_digest(free, perm[tid as usize]),
            None => d.canon,
        }
    }
    pub fn node(&self, k: KeyId) -> KeyNode {
        self.nodes[k.0 as usize]
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// One activation of a function in one thread.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Function index in the module.
    pub func: usize,
    /// Current block.
    pub block: BlockId,
    /// Index of the next instruction of `block` to execute
    /// (`insts.len()` = the terminator).
    pub index: usize,
    /// SSA values defined so far in this activation.
    pub values: Values,
    /// Invocation context for D-MAX: the launch group for the kernel, the
    /// key of the call-site instance for a callee (D-ENTRY-CALL, D-MAX
    /// "inside a called function").
    pub ctx: KeyId,
    /// Key of the current block visit (D-MAX-ITER).
    pub block_key: KeyId,
    /// Most recent instance of each cycle header in this activation:
    /// (thread-local sequence number, key). D-MAX-ITER picks, among the
    /// headers of the cycles containing a block, the most recent one.
    pub last_header: VecMap<BlockId, (u64, KeyId)>,
    /// Where the caller stores the returned value.
    pub ret_to: Option<ValueId>,
}

/// A small persistent map of a thread's state: pairs sorted by key, in one
/// vector shared copy-on-write (copying a thread copies a pointer; the
/// first write after a copy copies the pairs). A thread's maps are short
/// (its frame's values, its headers' last instances of D-MAX-ITER, its
/// D-LOOP counts and its convergent calls' keys of D-INST, all within
/// `--max-steps`, default 1,000, instructions), so a copy is a short
/// `memcpy`, lookups are binary searches, and iterating is a scan. (Held in
/// `im` hash maps, every write after a copy copied a node of 32 slots, and
/// creating, hashing, iterating and dropping their nodes were a tenth of
/// the instructions of a memoized search.) The cost moves to large maps:
/// the first write after a copy copies every pair (once per thread and
/// scheduling point at which a saved state shares the thread, not once per
/// write), so a frame holding many thousands of values (`--max-steps`
/// raised far past its default) pays that copy where a hash map copied one
/// path of nodes. Iteration is in key order; every reader is indifferent to
/// the order (fingerprints sum over the entries, [`super::digest`]).
#[derive(Clone, Debug)]
pub struct VecMap<K, V>(Arc<Vec<(K, V)>>);

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap(Arc::new(Vec::new()))
    }
}

impl<K: Ord + Copy, V: Clone> VecMap<K, V> {
    pub fn new() -> Self {
        VecMap::default()
    }
    pub fn get(&self, k: &K) -> Option<&V> {
        self.0
            .binary_search_by_key(k, |(x, _)| *x)
            .ok()
            .map(|i| &self.0[i].1)
    }
    pub fn contains_key(&self, k: &K) -> bool {
        self.0.binary_search_by_key(k, |(x, _)| *x).is_ok()
    }
    /// Sets `k` to `v`; the previous value, if any.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        let pairs = Arc::make_mut(&mut self.0);
        match pairs.binary_search_by_key(&k, |(x, _)| *x) {
            Ok(i) => Some(std::mem::replace(&mut pairs[i].1, v)),
            Err(i) => {
                pairs.insert(i, (k, v));
                None
            }
        }
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> + '_ {
        self.0.iter().map(|(k, v)| (k, v))
    }
    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.0.iter().map(|(k, _)| k)
    }
}

/// The SSA values defined in a frame ([`VecMap`]).
pub type Values = VecMap<ValueId, Val>;

/// A visit of a block by a thread: one entry of the thread's trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Visit {
    pub func: usize,
    pub block: BlockId,
    /// D-MAX-ITER key: visits with equal keys are converged.
    pub key: KeyId,
}

/// How a thread ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ThreadEnd {
    /// Returned from the kernel with this value.
    Returned(Val),
    /// Undefined behaviour at an instruction.
    Ub { loc: Loc, why: super::value::UbKind },
    /// Exceeded the per-thread step bound.
    Cut,
}

/// A convergent operation a thread is blocked at (M-OPER): its result
/// depends on the communicating set, so it waits until the scheduler fires
/// its set.
#[derive(Clone, Debug)]
pub struct Pending {
    pub loc: Loc,
    /// The instance key; `None` for an anchor in mode `all`, whose identity
    /// the scheduler chooses (D-ANCHOR).
    pub key: Option<KeyId>,
    /// Evaluated arguments.
    pub args: Vec<Val>,
    /// Index of the event this call recorded in [`ThreadState::events`].
    pub event: usize,
}

/// A fired convergent call the thread is about to complete.
#[derive(Clone, Debug)]
pub struct Resume {
    pub loc: Loc,
    /// The instance key (for an anchor in mode `all`, the chosen identity).
    pub key: KeyId,
    /// Index of the call's event.
    pub event: usize,
    /// The result over the communicating set (C-OPS), if the operation has one.
    pub value: Option<Val>,
}

#[derive(Clone, Debug)]
pub enum Status {
    /// Executing instructions.
    Running,
    /// Blocked at a convergent operation.
    Waiting(Pending),
    /// Reached an already-fired instance: this schedule is impossible
    /// (M-OPER) and the execution is discarded.
    Killed,
    Done(ThreadEnd),
}

/// A convergent call as the thread saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallEvent {
    pub loc: Loc,
    /// Callee name.
    pub callee: String,
    /// Position of the enclosing block visit in the thread's trace.
    pub pos: usize,
    pub key: KeyId,
    pub args: Vec<Val>,
    /// `None` until the operation fired.
    pub result: Option<Val>,
}

/// An observable event (R-OBS) other than convergent calls.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Observation {
    Store {
        obj: u32,
        off: i64,
        value: Val,
    },
    Call {
        callee: String,
        args: Vec<Val>,
        result: Val,
    },
}

/// Per-thread state.
#[derive(Clone, Debug)]
pub struct ThreadState {
    pub tid: u32,
    pub group: u32,
    /// Call stack, innermost last.
    pub frames: Frames,
    pub status: Status,
    /// Block visits in order.
    pub trace: Vector<Visit>,
    /// Convergent calls in order.
    pub events: Events,
    /// Observable events in order (R-OBS).
    pub observations: Vector<Observation>,
    /// Instructions executed (compared with `max_steps`).
    pub steps: u64,
    /// D-LOOP: executions of each `loop` intrinsic per token value.
    pub loop_counts: VecMap<(Loc, KeyId), u32>,
    /// Keys of this thread's convergent-call instances (D-INST: a thread
    /// never has two converged instances).
    pub used_keys: VecMap<KeyId, ()>,
    /// Thread-local counter ordering header visits (D-MAX-ITER).
    pub seq: u64,
    /// Set by the scheduler when this thread's set fired (M-OPER).
    pub resume: Option<Resume>,
    /// `alloca`s executed so far: names the next private object
    /// (P-MEM-OBJ, [`super::memory::private_id`]).
    pub allocas: u32,
}

/// The whole machine.
#[derive(Clone, Debug)]
pub struct Machine {
    pub threads: Threads,
    /// Memory (P-MEM-OBJ): globals, input buffers, allocas.
    pub mem: super::memory::Memory,
    /// Input buffers created so far (P-INPUT): the next one's index.
    pub next_input: u32,
    pub keys: Keys,
    /// Instances of convergent operations that have fired (M-OPER): a thread
    /// reaching one later makes the schedule impossible.
    pub fired: Fired,
    /// Uninterpreted functions of P-INPUT (readnone calls, by callee,
    /// arguments and, for per-thread ones, the thread id): argument tuple
    /// -> chosen result.
    pub memo: HashMap<MemoKey, Val>,
    /// C-OPS unknown convergent functions: the result chosen for a
    /// communicating set, keyed by the callee and the set's (thread id,
    /// arguments) pairs in thread order. Kept apart from `memo` so that
    /// memoization can rename the thread ids (state symmetry,
    /// [`super::reduce`]).
    pub conv: HashMap<ConvKey, Val>,
    /// Chosen cycle hierarchy per function (D-HIER).
    pub hierarchy: Vec<usize>,
    /// M-RENAME, restricted growth: per opaque class whose values are
    /// drawn for unknown functions, the free values used so far (bit i:
    /// `Class::free[i]`), read by [`super::orbit::choose_result`]. Empty
    /// without renamings.
    pub used: Vec<u64>,
}

/// The fired instances of a [`Machine`] (M-OPER): a set that only grows,
/// with the order of insertion kept so that memoization digests only the
/// instances fired since its last digest ([`super::digest::fired`]).
#[derive(Clone, Debug, Default)]
pub struct Fired {
    set: HashSet<KeyId>,
    order: Vector<KeyId>,
    pub cache: super::digest::SumCache,
}

impl Fired {
    pub fn new() -> Fired {
        Fired::default()
    }
    pub fn insert(&mut self, k: KeyId) {
        if self.set.insert(k).is_none() {
            self.order.push_back(k);
        }
    }
    pub fn contains(&self, k: &KeyId) -> bool {
        self.set.contains(k)
    }
    pub fn len(&self) -> usize {
        self.order.len()
    }
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
    /// The same set without digests (the check of
    /// [`super::reduce::check_digests`]).
    pub fn without_digests(&self) -> Fired {
        Fired {
            set: self.set.clone(),
            order: self.order.clone(),
            cache: Default::default(),
        }
    }
    /// The instances in the order they fired.
    pub fn in_order(&self) -> &Vector<KeyId> {
        &self.order
    }
}

/// The argument of a P-INPUT uninterpreted function: a `readnone`
/// callee's arguments and the calling thread (per-thread functions,
/// [`super::program::CalleeKind::UnknownPure`]), or the arguments alone
/// (uniform ones, `UnknownUniform`, `tid` `None`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemoKey {
    pub callee: String,
    pub args: Vec<Val>,
    pub tid: Option<u32>,
}

/// The argument of an unknown convergent function (C-OPS: an
/// uninterpreted function of the multiset of (thread id, arguments) over
/// the communicating set; one function per callee, F-25).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConvKey {
    pub callee: Option<String>,
    /// (thread id, arguments) of each member, in thread-id order.
    pub set: Vec<(u32, Vec<Val>)>,
}

/// The threads of a [`Machine`], each shared copy-on-write: cloning a
/// machine (the search's checkpoints, [`super::sched`]) copies one pointer
/// per thread, and changing a thread copies that thread alone. (Held in an
/// `im::Vector`, the first change after a clone copied the vector's whole
/// chunk of 64 thread-state slots, tens of kilobytes: over a third of the
/// instructions of a memoized search.)
///
/// Each thread carries the digests memoization computed for it
/// ([`super::digest::DigestCache`]): the only way to change a thread is
/// [`IndexMut`], which drops the digests of the whole thread and keeps the
/// chained digests of its append-only histories; a machine restored from a
/// checkpoint shares the unchanged threads, digests included.
#[derive(Clone, Debug, Default)]
pub struct Threads(Vec<Arc<Slot>>);

/// One thread and its memoization digests.
#[derive(Clone, Debug)]
pub struct Slot {
    pub th: ThreadState,
    pub cache: super::digest::DigestCache,
}

impl Threads {
    pub fn new() -> Threads {
        Threads(Vec::new())
    }
    pub fn push_back(&mut self, th: ThreadState) {
        self.0.push(Arc::new(Slot {
            th,
            cache: Default::default(),
        }));
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn get(&self, t: usize) -> Option<&ThreadState> {
        self.0.get(t).map(|s| &s.th)
    }
    pub fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = &ThreadState> + ExactSizeIterator + Clone + '_ {
        self.0.iter().map(|s| &s.th)
    }
    /// The same threads without any digest (the check of
    /// [`super::reduce::check_digests`]).
    pub fn without_digests(&self) -> Threads {
        let mut out = Threads::new();
        for th in self.iter() {
            out.push_back(th.clone());
        }
        out
    }
    /// Thread `t` with its digests (memoization, [`super::reduce`]).
    pub fn slot(&self, t: usize) -> &Slot {
        &self.0[t]
    }
    /// Each thread with its digests (memoization, [`super::reduce`]).
    pub fn slots(&self) -> impl ExactSizeIterator<Item = &Slot> + '_ {
        self.0.iter().map(|s| &**s)
    }
}

impl Index<usize> for Threads {
    type Output = ThreadState;
    fn index(&self, t: usize) -> &ThreadState {
        &self.0[t].th
    }
}

impl IndexMut<usize> for Threads {
    fn index_mut(&mut self, t: usize) -> &mut ThreadState {
        let s = Arc::make_mut(&mut self.0[t]);
        s.cache.invalidate();
        &mut s.th
    }
}

impl Index<usize> for Events {
    type Output = CallEvent;
    fn index(&self, i: usize) -> &CallEvent {
        &self.0[i]
    }
}

impl<'a> IntoIterator for &'a Threads {
    type Item = &'a ThreadState;
    type IntoIter =
        std::iter::Map<std::slice::Iter<'a, Arc<Slot>>, fn(&'a Arc<Slot>) -> &'a ThreadState>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|s| &s.th)
    }
}

/// A thread's call stack, innermost last: a plain vector (a stack is one
/// to three frames deep; an `im::Vector` copied its chunk of 64 frame slots
/// on the first change after every clone of the thread). The method names
/// are those of `im::Vector` the callers used.
#[derive(Clone, Debug, Default)]
pub struct Frames(Vec<Frame>);

impl Frames {
    pub fn unit(f: Frame) -> Frames {
        Frames(vec![f])
    }
    pub fn push_back(&mut self, f: Frame) {
        self.0.push(f);
    }
    pub fn pop_back(&mut self) -> Option<Frame> {
        self.0.pop()
    }
    pub fn back(&self) -> Option<&Frame> {
        self.0.last()
    }
    pub fn back_mut(&mut self) -> Option<&mut Frame> {
        self.0.last_mut()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Frame> {
        self.0.iter()
    }
}

/// A thread's convergent calls in order, each shared copy-on-write:
/// cloning a thread copies one pointer per event and completing an event
/// ([`Events::get_mut`], when its set fires) copies that event alone (an
/// `im::Vector` copied its whole chunk of up to 64 events, each with its
/// callee name and arguments, on the first change after a clone).
#[derive(Clone, Debug, Default)]
pub struct Events(Vec<Arc<CallEvent>>);

impl Events {
    pub fn new() -> Events {
        Events(Vec::new())
    }
    pub fn push_back(&mut self, e: CallEvent) {
        self.0.push(Arc::new(e));
    }
    pub fn get(&self, i: usize) -> Option<&CallEvent> {
        self.0.get(i).map(|e| &**e)
    }
    pub fn get_mut(&mut self, i: usize) -> Option<&mut CallEvent> {
        self.0.get_mut(i).map(Arc::make_mut)
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = &CallEvent> + ExactSizeIterator + Clone + '_ {
        self.0.iter().map(|e| &**e)
    }
}
