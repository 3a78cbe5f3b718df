//! M-AXIOM: the axiomatic encoding of one program's bounded executions in N
//! threads as vc terms.
//!
//! Every thread runs at most K block visits ("steps"). Step s of thread t
//! has a block term `blk[t][s]` (a bit-vector; the value `nb` means the
//! thread is no longer running), computed from the previous block and the
//! branch conditions, so a thread's path is a function of the launch inputs
//! (P-LAUNCH, P-INPUT) and of the results of its convergent operations. SSA
//! values are bit-vectors with a poison flag, merged per step by `ite` on the
//! block that defines them.
//!
//! Dynamic instances of convergent operations get *keys* (vectors of
//! bit-vector terms); two instances of the same static operation in
//! different threads are converged iff their keys are equal (D-CW):
//! - `entry` of the kernel: the empty key (D-ENTRY-LAUNCH, one group);
//! - `anchor`: a fresh choice variable (D-ANCHOR), distinct between
//!   instances of one thread (D-INST), constrained by D-ORDER;
//! - `loop`: the token's key and the count of this thread's executions of
//!   the `loop` with that token value (D-LOOP);
//! - other controlled operations: their token's key (D-CTRL);
//! - uncontrolled operations (`--uncontrolled maximal`, D-MAX): per
//!   enclosing cycle, outermost first, the number of visits of its header
//!   since the thread last entered the cycle (the iteration reading of
//!   D-MAX-ITER, for the one hierarchy LLVM computes).
//!
//! D-ORDER is the existence of a rank function: rank variables per
//! convergent-operation slot, strictly increasing in program order within a
//! thread and equal on converged instances (only emitted when the program
//! has anchors; elsewhere keys are determined by the paths).
//!
//! Results of C-OPS are fresh variables with *defining* constraints over the
//! communicating set (the members and their arguments), since a result can
//! depend on other threads' later steps (no stratification by step index).
//!
//! The encoder reads like the interpreter (`semantics::machine`): one place
//! per rule and per instruction kind, each naming its rule ID.
//!
//! | module | what | interpreter counterpart |
//! |---|---|---|
//! | [`thread`] | a thread's steps, block visits, terminators (P-THREAD) | `machine/step.rs` |
//! | [`inst`] | one function per non-call instruction kind (P-THREAD) | `machine/step.rs` |
//! | [`calls`] | calls: convergent instances, per-thread calls (C-CONV, P-INPUT) | `machine/calls.rs::exec_call` |
//! | [`keys`] | one `key_*` function per D-* rule (D-ENTRY-LAUNCH, D-ANCHOR, D-LOOP, D-CTRL, D-MAX-ITER) | `machine/calls.rs::instance_key` |
//! | [`sets`] | results over communicating sets, D-ORDER's rank function | `machine/sched.rs` |
//! | [`ops`] | one function per C-OPS operation over a set | `machine/collective.rs` |
//! | [`pure`] | pure integer intrinsics (P-THREAD) | `machine/collective.rs::per_thread` |
//! | [`float`] | float instructions and intrinsics (R-FLOAT-SMT) | `machine/float.rs` |
//! | [`vector`] | vector values and instructions, element by element (R-VEC-SMT) | `machine/vector.rs`, `machine/ops.rs` |
//! | [`launch`] | the launch's inputs, reachable (step, block) pairs (P-LAUNCH) | `machine/launch.rs` |

use rustc_hash::FxHashMap as HashMap;

use semantics::ir::Type;

mod calls;
mod epochs;
mod float;
mod inst;
mod keys;
mod launch;
mod memory;
mod ops;
mod pure;
mod sets;
mod stuck;
mod thread;
mod vector;

pub use float::fcmp_pred_known;
pub use launch::Launch;
pub use memory::{MByte, PW};
pub(crate) use stuck::recursion_lassos;
pub use stuck::RecLasso;

use super::prog::{CallSem, Prepared, Unsupported};
use crate::vc::{Sort, TermId, Terms};

/// Width of counters, ordinals, step numbers and key components.
pub const CW: u32 = 8;
/// Width of D-ORDER ranks.
pub(crate) const RW: u32 = 12;

/// A value of the encoding.
#[derive(Clone, Debug)]
pub enum V {
    Int {
        bits: TermId,
        poison: TermId,
    },
    /// P-VEC (R-VEC-SMT): a fixed-width vector, its elements in order,
    /// each an `Int` with its own poison flag.
    Vec(Vec<V>),
    /// A token: the key of the instance that produced it and the step at
    /// which it was produced (identifies the token value within a thread).
    Tok {
        key: Vec<TermId>,
        def: TermId,
    },
    Void,
}

/// One dynamic instance of a convergent operation (thread t, step s, op o).
#[derive(Clone, Debug)]
pub struct Inst {
    /// The thread executes this instance.
    pub here: TermId,
    pub key: Vec<TermId>,
    pub args: Vec<V>,
    /// Ordinal among the thread's observed convergent events (R-OBS), if
    /// this operation is observed with its set.
    pub ord: Option<TermId>,
    /// How many instances of this operation the thread executed before.
    pub occ: TermId,
}

/// An observable event that is not a convergent call (R-OBS).
#[derive(Clone, Debug)]
pub struct Ev {
    pub here: TermId,
    pub ord: TermId,
    pub callee: String,
    pub args: Vec<V>,
    /// R-STREAM-SMT: the value an input-stream call with a result read
    /// (shown in counterexamples; not part of the observation, which the
    /// stream position already determines).
    pub result: Option<V>,
}

/// An observed convergent call (R-OBS): points at `inst[t][s][op]`.
#[derive(Clone, Copy, Debug)]
pub struct CEv {
    pub s: usize,
    pub op: usize,
}

/// Which convergent calls are events observed with their sets (R-OBS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observe {
    /// Only those with side effects; modelled/pure ones through values.
    Auto,
    /// Every convergent call except the control intrinsics.
    Sets,
    /// None: only values and external calls.
    Values,
}

/// R-MEM, P-MEM-UNDEF: one byte of an observed object's final contents in
/// an encoding: its bits, poison flag and undef flag.
pub type FinalTerms = (TermId, TermId, TermId);

/// The encoding of one program for one launch.
pub struct Enc {
    pub name: String,
    pub n: usize,
    pub k: usize,
    /// Number of blocks; the block value `nb` means "not running".
    pub nb: usize,
    pub bw: u32,
    /// [t][0..=k] block terms (index k only tells whether the thread is cut).
    pub blk: Vec<Vec<TermId>>,
    /// Per thread: undefined behaviour happened.
    pub ub: Vec<TermId>,
    /// Per thread: still running after k steps.
    pub cut: Vec<TermId>,
    /// Per thread: cut, and provably never ending (R-PREFIX, [`stuck`]):
    /// its observation so far is its whole observation.
    pub stuck: Vec<TermId>,
    /// Per thread: the return value (meaningful when it returned).
    pub ret: Vec<V>,
    /// Nondeterministic choices (anchor keys, ranks): CEGIS fixes them.
    pub choices: Vec<TermId>,
    /// Defining constraints of results (functional given everything else).
    pub defs: Vec<TermId>,
    /// Constraints on choices (D-INST, D-ORDER).
    pub valid: Vec<TermId>,
    /// Static convergent operations: (block, instruction index).
    pub ops: Vec<(usize, usize)>,
    /// [t][s][op] instance terms (None when op's block can never be there;
    /// present for every step, `here` says whether it happens).
    pub inst: Vec<Vec<Vec<Inst>>>,
    /// Per thread: external call events and their final count.
    pub ext: Vec<Vec<Ev>>,
    pub ext_count: Vec<TermId>,
    /// R-STREAM-SMT: per thread, how many input-stream values it read.
    pub str_count: Vec<TermId>,
    /// Per thread: observed convergent events and their final count.
    pub cev: Vec<Vec<CEv>>,
    pub cev_count: Vec<TermId>,
    /// Callee per op.
    pub op_callee: Vec<String>,
    /// D-ANCHOR choice variables: (the anchor's token name, thread, key
    /// variable of each occurrence). Lets CEGIS map a source anchor to the
    /// target anchor of the same name.
    pub anchor_keys: Vec<(String, usize, Vec<TermId>)>,
    /// D-ANCHOR choice variables by (D-CW class, thread): the same
    /// variables as `anchor_keys`, for the twin strategy of CEGIS.
    pub anchor_vars: Vec<((usize, usize), Vec<TermId>)>,
    /// D-ORDER rank variables `[t][o][j]` (thread, operation, occurrence)
    /// with [`Ranks::Free`] and anchors; empty otherwise.
    pub rank_vars: Vec<Vec<Vec<TermId>>>,
    /// `[s][op]`: the range of ordinals an observed convergent event of
    /// `op` at step `s` can have (R-OBS; `launch::event_ranges` plus the
    /// call's position in its block), the same in every thread; `None`
    /// for an op that is not observed or cannot be at step `s`.
    pub cev_range: Vec<Vec<Option<(usize, usize)>>>,
    /// D-CW class per op ([`Prepared::class`]) and the ops of each class:
    /// only instances of ops of one class can be converged.
    pub op_class: Vec<usize>,
    pub class_ops: Vec<Vec<usize>>,
    /// Per thread: `atomicrmw` events (memory abstraction, R-OBS).
    pub atom: Vec<Vec<Ev>>,
    pub atom_count: Vec<TermId>,
    /// R-MEM: final contents of the observed objects, by the interpreter's
    /// object name (valid when [`Enc::conflict`] is false): per byte its
    /// bits, poison flag and undef flag (P-MEM-UNDEF; poison is false when
    /// undef is true).
    pub memory: Vec<(String, Vec<FinalTerms>)>,
    /// R-FREEZE-SMT: the choice variable of each `freeze` per (thread,
    /// step): the frozen value's name, thread, step, variable (also in
    /// [`Enc::choices`]), and the operand's bits (what a poison operand
    /// would have computed: a wrapped sum for `add nsw`).
    pub freeze: Vec<Frozen>,
    /// R-MEM-SMT: some byte of a shared object is written by one thread
    /// and accessed by another outside the cases the encoding expresses
    /// (agreeing writers, agreeing reads, P-MEM-UNDEF's disagreeing
    /// writers; the per-thread views are then not the memory model's
    /// values).
    pub conflict: TermId,
    /// D-HIER: the execution's hierarchy selector (an index into
    /// `Prepared::hiers`), when the program has several; also in `choices`.
    pub hierarchy: Option<TermId>,
    /// C-VAL ([`Launch::free_results`]): observed events' arguments are
    /// compared exactly (R-OBS otherwise lets source poison match).
    pub exact_args: bool,
}

/// R-FREEZE-SMT: one `freeze` choice of an encoding.
#[derive(Clone, Debug)]
pub struct Frozen {
    /// The frozen value's name (`%f` without `%`).
    pub name: String,
    pub t: usize,
    pub s: usize,
    /// The choice variable.
    pub var: TermId,
    /// The operand's bits.
    pub bits: TermId,
}

/// A dynamic instance of a convergent operation: (thread, step, op).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct InstanceId {
    pub t: usize,
    pub s: usize,
    pub op: usize,
}

/// The fresh variables of one instance that its communicating set defines
/// (C-OPS, [`Builder::define_results`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SetVars {
    /// The result's bits and poison flag (calls with an integer result).
    pub result: Option<(TermId, TermId)>,
    /// A shuffle that is UB out of range: whether this instance read a
    /// lane outside its set.
    pub oob: Option<TermId>,
}

pub(crate) struct Builder<'a, 'p> {
    t: &'a mut Terms,
    p: &'a Prepared<'p>,
    /// The launch being encoded and the step bound.
    launch: &'a Launch,
    k: usize,
    name: String,
    observe: Observe,
    ranks: Ranks,
    /// Index of each convergent call (block, instruction) among `Enc::ops`.
    op_index: HashMap<(usize, usize), usize>,
    /// Variables defined over communicating sets, per instance.
    results: HashMap<InstanceId, SetVars>,
    /// The instruction being encoded (for [`Unsupported`] locations).
    here: (String, Option<semantics::ir::Span>),
    /// The first value whose width disagrees with its IR type: the encoding
    /// stops with it instead of building an ill-sorted term.
    bad: Option<Unsupported>,
    /// D-HIER: the selector of the hierarchy (several hierarchies only).
    hsel: Option<TermId>,
    /// Width of D-ANCHOR key variables ([`CW`], or [`TWIN_KEY_W`] for the
    /// twin strategy's source copy, [`encode_twin`]).
    anchor_w: u32,
    /// R-MEM-SYNC-SMT: per op of `Enc::ops`, whether it synchronizes
    /// (P-MEM-SYNC), and the shared memory after each epoch
    /// ([`epochs`]; empty when the kernel has no synchronizing call or no
    /// shared object).
    sync_ops: Vec<bool>,
    epochs: Vec<Vec<Vec<MByte>>>,
    /// R-MEM-SYNC-SMT: whether every synchronizing instance of the
    /// execution has every thread (defined once every thread is encoded).
    aligned: Option<TermId>,
}

/// Width of the anchor keys of [`encode_twin`]'s encoding: a target
/// anchor's D-CW class (8 bits) and its key ([`CW`] bits), so that the
/// source's occurrences of one anchor can take the keys of several
/// target anchors (D-INST holds per class in the target).
pub const TWIN_KEY_W: u32 = 8 + CW;

/// The bit-vector width of a value of IR type `ty`: integers by their
/// width, floats by their format's (R-FLOAT-SMT), pointers [`PW`].
pub(crate) fn width(ty: &Type) -> u32 {
    match ty {
        Type::Ptr(_) => PW,
        _ => semantics::ir::float::FloatTy::of(ty)
            .map(|f| f.bits())
            .or_else(|| ty.int_bits())
            .unwrap_or(32),
    }
}

impl Builder<'_, '_> {
    fn bv(&mut self, w: u32, x: u128) -> TermId {
        self.t.bv_const(w, x & mask(w))
    }
    fn cw(&mut self, x: usize) -> TermId {
        self.bv(CW, x as u128)
    }
    fn fresh(&mut self, what: &str, sort: Sort) -> TermId {
        let n = format!("{}.{what}", self.name);
        self.t.fresh_var(&n, sort)
    }
    fn int(&mut self, bits: TermId) -> V {
        let f = self.t.fls();
        V::Int { bits, poison: f }
    }
    fn poison(&mut self, w: u32) -> V {
        let bits = self.bv(w, 0);
        let poison = self.t.tru();
        V::Int { bits, poison }
    }
    /// A poison value of IR type `ty`: for a vector, every element poison
    /// (P-VEC).
    fn poison_of(&mut self, ty: &Type) -> V {
        match semantics::machine::vector::shape(ty) {
            Some((n, et)) => {
                let w = width(et);
                V::Vec((0..n).map(|_| self.poison(w)).collect())
            }
            None => self.poison(width(ty)),
        }
    }
    /// Records that the encoder met a value it cannot express (the first
    /// one is reported; terms stay well-sorted meanwhile).
    fn unsupported(&mut self, construct: String) {
        if self.bad.is_none() {
            self.bad = Some(Unsupported {
                construct,
                at: self.here.0.clone(),
                span: self.here.1,
            });
        }
    }
    /// The bit-vector width of an int value.
    fn width_of(&self, v: &V) -> Option<u32> {
        match v {
            V::Int { bits, .. } => self.t.sort(*bits).bv_width(),
            _ => None,
        }
    }
    fn ite_v(&mut self, c: TermId, a: &V, b: &V) -> V {
        match (a, b) {
            (V::Int { bits: x, .. }, V::Int { bits: y, .. })
                if self.t.sort(*x) != self.t.sort(*y) =>
            {
                let (wa, wb) = (self.width_of(a), self.width_of(b));
                self.unsupported(format!(
                    "a merge of values of widths {wa:?} and {wb:?} (types disagree)"
                ));
                a.clone()
            }
            (V::Int { bits: x, poison: p }, V::Int { bits: y, poison: q }) => V::Int {
                bits: self.t.ite(c, *x, *y),
                poison: self.t.ite(c, *p, *q),
            },
            (V::Vec(xs), V::Vec(ys)) if xs.len() == ys.len() => V::Vec(
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| self.ite_v(c, x, y))
                    .collect(),
            ),
            (V::Vec(xs), V::Vec(ys)) => {
                self.unsupported(format!(
                    "a merge of vectors of {} and {} elements (types disagree)",
                    xs.len(),
                    ys.len()
                ));
                a.clone()
            }
            (V::Tok { key: k1, def: d1 }, V::Tok { key: k2, def: d2 }) if k1.len() == k2.len() => {
                V::Tok {
                    key: k1
                        .iter()
                        .zip(k2)
                        .map(|(x, y)| self.t.ite(c, *x, *y))
                        .collect(),
                    def: self.t.ite(c, *d1, *d2),
                }
            }
            _ => a.clone(),
        }
    }
}

pub(crate) fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// Encodes `p` for `launch` with at most `k` block visits per thread.
/// `name` prefixes every variable (several copies of the source coexist in
/// one CEGIS proposal).
pub fn encode(
    terms: &mut Terms,
    p: &Prepared,
    launch: &Launch,
    k: usize,
    name: &str,
    observe: Observe,
) -> Result<Enc, Unsupported> {
    encode_with(terms, p, launch, k, name, observe, Ranks::Free)
}

/// How D-ORDER's rank function is represented (only with anchors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranks {
    /// One free choice variable per (thread, operation, occurrence): exactly
    /// D-ORDER ("there exists a rank function").
    Free,
    /// One fixed rank function, the same for every launch: the j-th
    /// occurrence of operation o has rank `j * ops + o` (operations in
    /// block order, then instruction order). D-ORDER's constraints are then
    /// a *test* of this candidate, not a search: an execution valid under
    /// it is valid under D-ORDER, not conversely. CEGIS uses it for the
    /// source executions it learns, because a learned execution with
    /// launch-independent ranks stays a valid strategy on other launches
    /// (F-21), where ranks fixed to one model's values rarely do.
    Canonical,
}

/// Like [`encode`], with the rank representation chosen.
pub fn encode_with(
    terms: &mut Terms,
    p: &Prepared,
    launch: &Launch,
    k: usize,
    name: &str,
    observe: Observe,
    ranks: Ranks,
) -> Result<Enc, Unsupported> {
    encode_full(terms, p, launch, k, name, observe, ranks, CW)
}

/// [`encode_with`] free ranks and anchor keys of [`TWIN_KEY_W`] bits:
/// the source copy of CEGIS's twin strategy (`refine::twin`). Anchor
/// keys are labels compared for equality (D-ANCHOR), so wider ones give
/// the same executions.
pub fn encode_twin(
    terms: &mut Terms,
    p: &Prepared,
    launch: &Launch,
    k: usize,
    name: &str,
    observe: Observe,
) -> Result<Enc, Unsupported> {
    encode_full(terms, p, launch, k, name, observe, Ranks::Free, TWIN_KEY_W)
}

#[allow(clippy::too_many_arguments)] // the encodings' common entry point
fn encode_full(
    terms: &mut Terms,
    p: &Prepared,
    launch: &Launch,
    k: usize,
    name: &str,
    observe: Observe,
    ranks: Ranks,
    anchor_w: u32,
) -> Result<Enc, Unsupported> {
    let mut b = Builder {
        t: terms,
        p,
        launch,
        k,
        name: name.to_string(),
        // C-VAL's pair check keys results by observed events: it observes
        // every convergent call with its set.
        observe: if launch.free_results {
            Observe::Sets
        } else {
            observe
        },
        ranks,
        op_index: HashMap::default(),
        results: HashMap::default(),
        here: (format!("@{}", p.func.name), None),
        bad: None,
        hsel: None,
        sync_ops: Vec::new(),
        epochs: Vec::new(),
        aligned: None,
        anchor_w,
    };
    let enc = b.run();
    match b.bad {
        Some(u) => Err(u),
        None => Ok(enc),
    }
}

impl Enc {
    /// [`Enc::cev_range`] of `op` at step `s` (`None`: unknown).
    pub fn cev_range_at(&self, s: usize, op: usize) -> Option<(usize, usize)> {
        *self.cev_range.get(s)?.get(op)?
    }
}

impl CallSem {
    /// C-INTR: the call returns a token.
    pub fn is_token_def(&self) -> bool {
        matches!(self, CallSem::Entry | CallSem::Anchor | CallSem::Loop)
    }
}

/// The name of the uninterpreted function of callee `callee` with this
/// signature: source and target may declare one callee with different
/// types, which are then different functions (never one ill-sorted one).
pub(super) fn uf_name(prefix: &str, callee: &str, dom: &[Sort], range: u32) -> String {
    let sig: Vec<String> = dom
        .iter()
        .map(|s| match s {
            Sort::BitVec(w) => format!("i{w}"),
            Sort::Bool => "b".to_string(),
            other => format!("{other:?}").to_lowercase(),
        })
        .collect();
    format!("{prefix}.{callee}.{}.i{range}", sig.join("_"))
}

/// Rule D-CW: two instances of converged-with operations are converged iff
/// their keys are equal.
pub(super) fn keys_eq(t: &mut Terms, a: &[TermId], b: &[TermId]) -> TermId {
    if a.len() != b.len() {
        return t.fls();
    }
    let eqs: Vec<TermId> = a.iter().zip(b).map(|(x, y)| t.eq(*x, *y)).collect();
    t.and(&eqs)
}

/// Rule D-CW: the communicating set of instance (t, s, o) as seen from thread u:
/// whether u is a member, and u's member instance's step (as a list of
/// (condition, step) alternatives, at most one of which holds).
///
/// Members are instances of the ops of `o`'s D-CW class (copies of one
/// static instruction after inlining), so each alternative also names the
/// member's op: (condition, step, op).
pub fn member(
    terms: &mut Terms,
    enc: &Enc,
    t: usize,
    s: usize,
    o: usize,
    u: usize,
) -> Vec<(TermId, usize, usize)> {
    let mut out = Vec::new();
    if u == t {
        out.push((enc.inst[t][s][o].here, s, o));
        return out;
    }
    let me = enc.inst[t][s][o].clone();
    for &o2 in &enc.class_ops[enc.op_class[o]] {
        for s2 in 0..enc.k {
            let other = &enc.inst[u][s2][o2];
            if terms.is_false(other.here) {
                continue;
            }
            let ke = keys_eq(terms, &me.key, &other.key);
            let c = terms.and(&[me.here, other.here, ke]);
            out.push((c, s2, o2));
        }
    }
    out
}

/// The name of an `atomicrmw` event (R-OBS): operation and global.
pub fn atomic_event_name(a: &super::prog::AtomicInfo) -> String {
    format!(
        "atomicrmw {} @{}",
        format!("{:?}", a.op).to_lowercase(),
        a.global
    )
}

/// `xs[i]` for a term `i` (an `ite` chain; out of range gives the last).
pub(crate) fn select(t: &mut Terms, i: TermId, xs: &[TermId]) -> TermId {
    let w = t.sort(i).bv_width().unwrap_or(CW);
    let mut acc = *xs.last().expect("select from a non-empty list");
    for (j, x) in xs.iter().enumerate().rev().skip(1) {
        let jt = t.bv_const(w, j as u128);
        let c = t.eq(i, jt);
        acc = t.ite(c, *x, acc);
    }
    acc
}
