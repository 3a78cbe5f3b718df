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

use std::collections::HashMap;

use semantics::ir::{
    BinOp, CastOp, Const, ICmpPred, InstKind, Operand, TermKind, Type, ValueDef, ValueId,
};

mod launch;
mod pure;
mod sets;

use launch::possible_blocks;
pub use launch::Launch;

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
    /// Per thread: observed convergent events and their final count.
    pub cev: Vec<Vec<CEv>>,
    pub cev_count: Vec<TermId>,
    /// Callee per op.
    pub op_callee: Vec<String>,
    /// D-ANCHOR choice variables: (the anchor's token name, thread, key
    /// variable of each occurrence). Lets CEGIS map a source anchor to the
    /// target anchor of the same name.
    pub anchor_keys: Vec<(String, usize, Vec<TermId>)>,
    /// D-CW class per op ([`Prepared::class`]) and the ops of each class:
    /// only instances of ops of one class can be converged.
    pub op_class: Vec<usize>,
    pub class_ops: Vec<Vec<usize>>,
    /// Per thread: `atomicrmw` events (memory abstraction, R-OBS).
    pub atom: Vec<Vec<Ev>>,
    pub atom_count: Vec<TermId>,
}

pub(crate) struct Builder<'a, 'p> {
    t: &'a mut Terms,
    p: &'a Prepared<'p>,
    name: String,
    observe: Observe,
    ranks: Ranks,
    /// The instruction being encoded (for [`Unsupported`] locations).
    here: (String, Option<semantics::ir::Span>),
    /// The first value whose width disagrees with its IR type: the encoding
    /// stops with it instead of building an ill-sorted term.
    bad: Option<Unsupported>,
}

fn width(ty: &Type) -> u32 {
    ty.int_bits().unwrap_or(32)
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

/// The static key length of each token value (D-CTRL/D-LOOP keys).
fn key_len(p: &Prepared, v: ValueId, depth: usize) -> usize {
    let ValueDef::Inst { block, index } = p.func.value(v).def else {
        return 0;
    };
    match p.call(block.0, index) {
        Some(c) => match c.sem {
            CallSem::Anchor => 1,
            CallSem::Loop if depth < 64 => c.token.map_or(0, |tok| key_len(p, tok, depth + 1)) + 1,
            _ => 0,
        },
        None => 0,
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
    let mut b = Builder {
        t: terms,
        p,
        name: name.to_string(),
        observe,
        ranks,
        here: (format!("@{}", p.func.name), None),
        bad: None,
    };
    let enc = b.run(launch, k);
    match b.bad {
        Some(u) => Err(u),
        None => Ok(enc),
    }
}

/// Per-thread running state of the encoder.
struct ThreadSt {
    cur: HashMap<ValueId, V>,
    ext_cnt: TermId,
    cev_cnt: TermId,
    /// Per enclosing-cycle id: header visits since the thread entered it.
    cyc: HashMap<usize, TermId>,
}

impl Builder<'_, '_> {
    fn is_observed(&self, sem: &CallSem) -> bool {
        match sem {
            CallSem::Entry | CallSem::Anchor | CallSem::Loop | CallSem::Tid => false,
            CallSem::Pure | CallSem::Stream | CallSem::Ignored | CallSem::PureIntrinsic(_) => false,
            CallSem::UnknownConv { effect: true } => self.observe != Observe::Values,
            _ => self.observe == Observe::Sets,
        }
    }

    fn run(&mut self, launch: &Launch, k: usize) -> Enc {
        let p = self.p;
        let f = p.func;
        let n = launch.n;
        let nb = f.blocks.len();
        let bw = (usize::BITS - nb.leading_zeros()).max(1);
        let mut ops = Vec::new();
        let mut op_callee = Vec::new();
        let mut op_index: HashMap<(usize, usize), usize> = HashMap::new();
        for (bi, row) in p.calls.iter().enumerate() {
            for (ii, c) in row.iter().enumerate() {
                if let Some(c) = c.as_ref().filter(|c| c.convergent) {
                    op_index.insert((bi, ii), ops.len());
                    ops.push((bi, ii));
                    op_callee.push(c.callee.clone());
                }
            }
        }
        // D-CW classes: the prepared classes, else one class per op.
        let mut op_class = Vec::new();
        let mut class_ops: Vec<Vec<usize>> = Vec::new();
        let mut by_prepared: HashMap<usize, usize> = HashMap::new();
        for (o, bi_ii) in ops.iter().enumerate() {
            let c = match p.class.get(bi_ii) {
                Some(pc) => *by_prepared.entry(*pc).or_insert_with(|| {
                    class_ops.push(Vec::new());
                    class_ops.len() - 1
                }),
                None => {
                    class_ops.push(Vec::new());
                    class_ops.len() - 1
                }
            };
            class_ops[c].push(o);
            op_class.push(c);
        }
        let mut enc = Enc {
            name: self.name.clone(),
            n,
            k,
            nb,
            bw,
            blk: Vec::new(),
            ub: Vec::new(),
            cut: Vec::new(),
            ret: Vec::new(),
            choices: Vec::new(),
            defs: Vec::new(),
            valid: Vec::new(),
            ops: ops.clone(),
            inst: Vec::new(),
            ext: Vec::new(),
            ext_count: Vec::new(),
            cev: Vec::new(),
            cev_count: Vec::new(),
            op_callee,
            anchor_keys: Vec::new(),
            op_class,
            class_ops,
            atom: Vec::new(),
            atom_count: Vec::new(),
        };
        // Results of convergent ops needing the set: fresh variables, defined below.
        let mut results: HashMap<(usize, usize, usize), TermId> = HashMap::new();
        for t in 0..n {
            self.thread(launch, t, k, &op_index, &mut enc, &mut results);
        }
        self.define_results(launch, &mut enc, &results);
        self.anchor_rules(&mut enc);
        enc
    }

    /// The value of operand `op` used with IR width `w`; a value of
    /// another width (its definition's type disagrees with this use) is
    /// reported as unsupported and read as poison, so terms stay well-sorted.
    fn operand(&mut self, op: &Operand, w: u32, local: &HashMap<ValueId, V>, st: &ThreadSt) -> V {
        match op {
            Operand::Local(v) => match local.get(v).or_else(|| st.cur.get(v)).cloned() {
                Some(x) => match self.width_of(&x) {
                    Some(got) if got != w => {
                        let name = self.p.func.value(*v).name.to_string();
                        self.unsupported(format!(
                            "%{name} of width {got} used as an i{w} (types disagree)"
                        ));
                        self.poison(w)
                    }
                    _ => x,
                },
                None => self.poison(w),
            },
            Operand::Const(Const::Int { value, .. }) => {
                let bits = self.bv(w, *value as u128);
                self.int(bits)
            }
            _ => self.poison(w),
        }
    }

    /// Bits and poison flag of `v` read as an `i{w}` (a token or a value
    /// of another width reads as poison; the latter is reported).
    fn bits_of(&mut self, v: &V, w: u32) -> (TermId, TermId) {
        match v {
            V::Int { bits, poison } if self.t.sort(*bits).bv_width() == Some(w) => (*bits, *poison),
            V::Int { bits, .. } => {
                let got = self.t.sort(*bits).bv_width();
                self.unsupported(format!(
                    "a value of width {got:?} used as an i{w} (types disagree)"
                ));
                let b = self.bv(w, 0);
                (b, self.t.tru())
            }
            _ => {
                let b = self.bv(w, 0);
                (b, self.t.tru())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[allow(clippy::map_entry)] // the vacant branch borrows `enc` mutably first
    fn thread(
        &mut self,
        launch: &Launch,
        t: usize,
        k: usize,
        op_index: &HashMap<(usize, usize), usize>,
        enc: &mut Enc,
        results: &mut HashMap<(usize, usize, usize), TermId>,
    ) {
        let p = self.p;
        let f = p.func;
        let nb = enc.nb;
        let bw = enc.bw;
        let none = self.bv(bw, nb as u128);
        let fls = self.t.fls();
        let mut st = ThreadSt {
            cur: HashMap::new(),
            ext_cnt: self.cw(0),
            cev_cnt: self.cw(0),
            cyc: HashMap::new(),
        };
        for (i, param) in f.params.iter().enumerate() {
            if let Some(v) = param.value {
                let bits = launch.args[i][t];
                let val = self.int(bits);
                st.cur.insert(v, val);
            }
        }
        // Initial (never-defined) values: poison ints, zero tokens.
        for (vi, info) in f.values.iter().enumerate() {
            if matches!(info.def, ValueDef::Inst { .. }) {
                let v = if info.ty.is_token() {
                    let kl = key_len(p, ValueId(vi), 0);
                    let key = (0..kl).map(|_| self.cw(0)).collect();
                    V::Tok {
                        key,
                        def: self.cw(255),
                    }
                } else if info.ty == Type::Void {
                    V::Void
                } else {
                    self.poison(width(&info.ty))
                };
                st.cur.insert(ValueId(vi), v);
            }
        }
        let possible = possible_blocks(f, k);
        let mut blk = vec![self.bv(bw, 0)];
        let mut ub_any = fls;
        let mut ret = match &f.ret_ty {
            Type::Void => V::Void,
            ty => self.poison(width(ty)),
        };
        let mut insts_t: Vec<Vec<Inst>> = Vec::new();
        let mut ext_t = Vec::new();
        let mut cev_t = Vec::new();
        let mut loop_hist: Vec<(usize, usize, TermId, TermId)> = Vec::new(); // (s, op, here, tokdef)
                                                                             // Occurrence counters per op (choices are indexed by occurrence, not
                                                                             // by step, so that a learned choice carries over to other launches).
        let mut occ: Vec<TermId> = (0..enc.ops.len()).map(|_| self.cw(0)).collect();
        // Occurrence counters per D-CW class (anchor choices are indexed by
        // the thread's occurrence of any copy of the anchor, D-INST).
        let mut cocc: Vec<TermId> = (0..enc.class_ops.len()).map(|_| self.cw(0)).collect();
        let mut anchor_vars: HashMap<usize, Vec<TermId>> = HashMap::new();
        for s in 0..k {
            let cur_blk = blk[s];
            let mut next = none;
            let mut new_cur = st.cur.clone();
            let mut step_insts: Vec<Option<Inst>> = vec![None; enc.ops.len()];
            let occ_before = occ.clone();
            let cocc_before = cocc.clone();
            let mut cocc_after = cocc.clone();
            let ext_before = st.ext_cnt;
            let cev_before = st.cev_cnt;
            let mut ext_after = ext_before;
            let mut cev_after = cev_before;
            // Cycle counters after this step (D-MAX keys).
            let mut cyc_after: HashMap<usize, TermId> = HashMap::new();
            let all_cycles: Vec<usize> = {
                let mut v: Vec<usize> = p.enclosing.iter().flatten().map(|(c, _)| *c).collect();
                v.sort();
                v.dedup();
                v
            };
            for c in &all_cycles {
                let old = st.cyc.get(c).copied().unwrap_or_else(|| self.cw(0));
                let header = p.cycles.cycle(semantics::cfg::CycleId(*c)).header();
                let mut val = self.cw(0);
                for (bi, enclosing) in p.enclosing.iter().enumerate() {
                    if enclosing.iter().any(|(cc, _)| cc == c) {
                        let bt = self.bv(bw, bi as u128);
                        let at = self.t.eq(cur_blk, bt);
                        let v = if bi == header.0 {
                            let one = self.cw(1);
                            self.t.bv_add(old, one)
                        } else {
                            old
                        };
                        val = self.t.ite(at, v, val);
                    }
                }
                cyc_after.insert(*c, val);
            }
            for (bi, block) in f.blocks.iter().enumerate() {
                self.here.0 = format!("@{} %{}", f.name, block.name);
                let bt = self.bv(bw, bi as u128);
                // A block no CFG path of length s reaches is never current
                // at step s: its instances, events and values fold away.
                let at = if possible[s][bi] {
                    self.t.eq(cur_blk, bt)
                } else {
                    fls
                };
                let mut local: HashMap<ValueId, V> = HashMap::new();
                let mut ub = fls;
                let mut ext_i = 0usize;
                let mut cev_i = 0usize;
                let mut local_c: HashMap<usize, TermId> = HashMap::new();
                for (ii, inst) in block.insts.iter().enumerate() {
                    self.here.1 = Some(inst.span);
                    let val: V = match &inst.kind {
                        InstKind::AtomicRmw { value, .. } => {
                            // Memory abstraction (prog::AtomicInfo): an
                            // observed event (R-OBS) whose result is an
                            // environment input (P-INPUT), a function of
                            // (thread, event ordinal) shared with the other
                            // program of the pair.
                            let Some(ai) = p.atomic(bi, ii).cloned() else {
                                continue;
                            };
                            let w = width(&value.ty);
                            let x = self.operand(&value.value, w, &local, &st);
                            let i = self.cw(ext_i);
                            ext_i += 1;
                            let ord = self.t.bv_add(ext_before, i);
                            ext_t.push(Ev {
                                here: at,
                                ord,
                                callee: atomic_event_name(&ai),
                                args: vec![x],
                            });
                            let fid = self.t.func(
                                &format!("atomic.{}.i{w}", ai.global),
                                &[Sort::BitVec(32), Sort::BitVec(CW)],
                                Sort::BitVec(w),
                            );
                            let tid = launch.tid(self.t, t, 32);
                            let bits = self.t.apply(fid, &[tid, ord]);
                            self.int(bits)
                        }
                        InstKind::Phi { ty, incoming, .. } => {
                            let w = width(ty);
                            let mut v = self.poison(w);
                            if s > 0 {
                                for (op, pred) in incoming {
                                    let ov = self.operand(op, w, &HashMap::new(), &st);
                                    let pt = self.bv(bw, pred.0 as u128);
                                    let c = self.t.eq(blk[s - 1], pt);
                                    v = self.ite_v(c, &ov, &v);
                                }
                            }
                            v
                        }
                        InstKind::Binary {
                            op,
                            flags,
                            ty,
                            lhs,
                            rhs,
                        } => {
                            let w = width(ty);
                            let a = self.operand(lhs, w, &local, &st);
                            let c = self.operand(rhs, w, &local, &st);
                            let (ab, ap) = self.bits_of(&a, w);
                            let (cb, cp) = self.bits_of(&c, w);
                            let (r, extra_poison, extra_ub) = self.binop(*op, flags, w, ab, cb);
                            let poison = self.t.or(&[ap, cp, extra_poison]);
                            if let Some(u) = extra_ub {
                                // Division UB: divisor zero (or poison), signed overflow.
                                let u = self.t.or(&[u, cp]);
                                ub = self.t.or(&[ub, u]);
                            }
                            V::Int { bits: r, poison }
                        }
                        InstKind::ICmp {
                            pred, ty, lhs, rhs, ..
                        } => {
                            let w = width(ty);
                            let a = self.operand(lhs, w, &local, &st);
                            let c = self.operand(rhs, w, &local, &st);
                            let (ab, ap) = self.bits_of(&a, w);
                            let (cb, cp) = self.bits_of(&c, w);
                            let r = self.icmp(*pred, ab, cb);
                            let one = self.bv(1, 1);
                            let zero = self.bv(1, 0);
                            let bits = self.t.ite(r, one, zero);
                            let poison = self.t.or(&[ap, cp]);
                            V::Int { bits, poison }
                        }
                        InstKind::Select {
                            cond,
                            on_true,
                            on_false,
                            ..
                        } => {
                            let w = width(&on_true.ty);
                            let c = self.operand(&cond.value, 1, &local, &st);
                            let x = self.operand(&on_true.value, w, &local, &st);
                            let y = self.operand(&on_false.value, w, &local, &st);
                            let (cb, cp) = self.bits_of(&c, 1);
                            let one = self.bv(1, 1);
                            let ct = self.t.eq(cb, one);
                            let v = self.ite_v(ct, &x, &y);
                            match v {
                                V::Int { bits, poison } => V::Int {
                                    bits,
                                    poison: self.t.or(&[poison, cp]),
                                },
                                other => other,
                            }
                        }
                        InstKind::Cast { op, from, to, .. } => {
                            let wf = width(&from.ty);
                            let wt = width(to);
                            let a = self.operand(&from.value, wf, &local, &st);
                            let (ab, ap) = self.bits_of(&a, wf);
                            let bits = match op {
                                CastOp::Trunc if wt <= wf => self.t.extract(wt - 1, 0, ab),
                                CastOp::ZExt if wt >= wf => self.t.zero_ext(wt - wf, ab),
                                CastOp::SExt if wt >= wf => self.t.sign_ext(wt - wf, ab),
                                _ => ab,
                            };
                            V::Int { bits, poison: ap }
                        }
                        InstKind::Call(call) => {
                            let info = p
                                .call(bi, ii)
                                .expect("prepare classified every call")
                                .clone();
                            let args: Vec<V> = call
                                .args
                                .iter()
                                .map(|a| {
                                    let w = width(&a.ty);
                                    self.operand(&a.value, w, &local, &st)
                                })
                                .collect();
                            let rw = width(&call.ty);
                            let mut result = match &call.ty {
                                Type::Void | Type::Token => V::Void,
                                _ => self.poison(rw),
                            };
                            if info.convergent {
                                let o = op_index[&(bi, ii)];
                                let c = enc.op_class[o];
                                let cur_c = local_c.get(&c).copied().unwrap_or(cocc_before[c]);
                                let one = self.cw(1);
                                let inc = self.t.bv_add(cur_c, one);
                                local_c.insert(c, inc);
                                let key: Vec<TermId> = match &info.sem {
                                    CallSem::Entry => Vec::new(),
                                    CallSem::Anchor => {
                                        // D-ANCHOR: the j-th instance of this anchor in
                                        // thread t gets the chosen key a[t][o][j].
                                        if let std::collections::hash_map::Entry::Vacant(slot) =
                                            anchor_vars.entry(c)
                                        {
                                            // One choice per possible occurrence
                                            // of any copy in the class.
                                            let copies = enc.class_ops[c].len();
                                            let vs: Vec<TermId> = (0..k * copies)
                                                .map(|j| {
                                                    self.fresh(
                                                        &format!("anchor.t{t}.o{o}.j{j}"),
                                                        Sort::BitVec(CW),
                                                    )
                                                })
                                                .collect();
                                            enc.choices.extend(&vs);
                                            let tok = match inst.result {
                                                Some(r) => f.value(r).name.to_string(),
                                                None => format!("op{o}"),
                                            };
                                            enc.anchor_keys.push((tok, t, vs.clone()));
                                            // D-INST: instances of one thread never converge.
                                            if vs.len() > 1 {
                                                let d = self.t.distinct(&vs);
                                                enc.valid.push(d);
                                            }
                                            slot.insert(vs);
                                        }
                                        let vs = anchor_vars[&c].clone();
                                        vec![select(self.t, cur_c, &vs)]
                                    }
                                    CallSem::Loop => {
                                        let tok = info.token.and_then(|tv| {
                                            local.get(&tv).or_else(|| st.cur.get(&tv)).cloned()
                                        });
                                        let (mut key, tdef) = match tok {
                                            Some(V::Tok { key, def }) => (key, def),
                                            _ => (Vec::new(), self.cw(0)),
                                        };
                                        // D-LOOP: 1 + earlier executions with the same token value.
                                        let mut cnt = self.cw(1);
                                        for (_, o2, here2, def2) in
                                            loop_hist.iter().filter(|h| h.1 == o)
                                        {
                                            let _ = o2;
                                            let same = self.t.eq(*def2, tdef);
                                            let c = self.t.and(&[*here2, same]);
                                            let one = self.cw(1);
                                            let z = self.cw(0);
                                            let inc = self.t.ite(c, one, z);
                                            cnt = self.t.bv_add(cnt, inc);
                                        }
                                        loop_hist.push((s, o, at, tdef));
                                        key.push(cnt);
                                        key
                                    }
                                    _ => match info.token {
                                        Some(tv) => {
                                            match local.get(&tv).or_else(|| st.cur.get(&tv)) {
                                                Some(V::Tok { key, .. }) => key.clone(),
                                                _ => Vec::new(),
                                            }
                                        }
                                        // D-MAX: iteration counters of the enclosing cycles.
                                        None => p.enclosing[bi]
                                            .iter()
                                            .map(|(c, _)| cyc_after[c])
                                            .collect(),
                                    },
                                };
                                if info.sem.is_token_def() {
                                    let def = self.cw(s);
                                    result = V::Tok {
                                        key: key.clone(),
                                        def,
                                    };
                                } else if !matches!(call.ty, Type::Void) {
                                    let r = self
                                        .fresh(&format!("res.t{t}.s{s}.o{o}"), Sort::BitVec(rw));
                                    let poison =
                                        self.fresh(&format!("poi.t{t}.s{s}.o{o}"), Sort::Bool);
                                    results.insert((t, s, o), r);
                                    results.insert((t, s, o + usize::MAX / 2), poison);
                                    result = V::Int { bits: r, poison };
                                }
                                if let CallSem::Shuffle { ub: true } = info.sem {
                                    let u = self.fresh(&format!("oob.t{t}.s{s}.o{o}"), Sort::Bool);
                                    results.insert((t, s, o + usize::MAX / 4), u);
                                    ub = self.t.or(&[ub, u]);
                                }
                                let ord = if self.is_observed(&info.sem) {
                                    let i = self.cw(cev_i);
                                    cev_i += 1;
                                    cev_t.push(CEv { s, op: o });
                                    Some(self.t.bv_add(cev_before, i))
                                } else {
                                    None
                                };
                                step_insts[o] = Some(Inst {
                                    here: at,
                                    key,
                                    args: args.clone(),
                                    ord,
                                    occ: occ_before[o],
                                });
                                let one = self.cw(1);
                                let inc = self.t.bv_add(occ[o], one);
                                occ[o] = self.t.ite(at, inc, occ[o]);
                            } else {
                                match info.sem {
                                    CallSem::Tid => {
                                        let bits = launch.tid(self.t, t, rw);
                                        result = self.int(bits);
                                    }
                                    CallSem::PureIntrinsic(op) => {
                                        result = self.pure_intrinsic(op, rw, &args);
                                    }
                                    CallSem::Pure if call.ty != Type::Void => {
                                        // P-INPUT: deterministic function of (args, tid).
                                        let mut dom: Vec<Sort> = args
                                            .iter()
                                            .map(|a| match a {
                                                V::Int { bits, .. } => self.t.sort(*bits).clone(),
                                                _ => Sort::BitVec(1),
                                            })
                                            .collect();
                                        dom.push(Sort::BitVec(32));
                                        let fid = self.t.func(
                                            &uf_name("uf", &info.callee, &dom, rw),
                                            &dom,
                                            Sort::BitVec(rw),
                                        );
                                        let mut xs: Vec<TermId> = Vec::new();
                                        for a in &args {
                                            let b = match a {
                                                V::Int { bits, .. } => *bits,
                                                _ => self.bv(1, 0),
                                            };
                                            xs.push(b);
                                        }
                                        let tid = launch.tid(self.t, t, 32);
                                        xs.push(tid);
                                        let bits = self.t.apply(fid, &xs);
                                        result = self.int(bits);
                                    }
                                    CallSem::Stream => {
                                        let i = self.cw(ext_i);
                                        ext_i += 1;
                                        let ord = self.t.bv_add(ext_before, i);
                                        ext_t.push(Ev {
                                            here: at,
                                            ord,
                                            callee: info.callee.clone(),
                                            args: args.clone(),
                                        });
                                    }
                                    _ => {}
                                }
                            }
                            result
                        }
                        _ => V::Void,
                    };
                    if let Some(r) = inst.result {
                        local.insert(r, val);
                    }
                }
                // Terminator.
                self.here.1 = Some(block.term.span);
                let (succ, ends_ub, ret_v) = match &block.term.kind {
                    TermKind::Br(d) => (Some(self.bv(bw, d.0 as u128)), fls, None),
                    TermKind::CondBr {
                        cond,
                        on_true,
                        on_false,
                    } => {
                        let c = self.operand(cond, 1, &local, &st);
                        let (cb, cp) = self.bits_of(&c, 1);
                        let one = self.bv(1, 1);
                        let ct = self.t.eq(cb, one);
                        let x = self.bv(bw, on_true.0 as u128);
                        let y = self.bv(bw, on_false.0 as u128);
                        (Some(self.t.ite(ct, x, y)), cp, None)
                    }
                    TermKind::Switch {
                        ty,
                        cond,
                        default,
                        cases,
                    } => {
                        let w = width(ty);
                        let c = self.operand(cond, w, &local, &st);
                        let (cb, cp) = self.bits_of(&c, w);
                        let mut d = self.bv(bw, default.0 as u128);
                        for (cv, dest) in cases.iter().rev() {
                            if let Const::Int { value, .. } = cv {
                                let k = self.bv(w, *value as u128);
                                let e = self.t.eq(cb, k);
                                let dt = self.bv(bw, dest.0 as u128);
                                d = self.t.ite(e, dt, d);
                            }
                        }
                        (Some(d), cp, None)
                    }
                    TermKind::Ret(v) => {
                        let rv = v.as_ref().map(|tv| {
                            let w = width(&tv.ty);
                            self.operand(&tv.value, w, &local, &st)
                        });
                        (None, fls, rv)
                    }
                    TermKind::Unreachable => (None, self.t.tru(), None),
                };
                let ub_here = self.t.or(&[ub, ends_ub]);
                let ub_at = self.t.and(&[at, ub_here]);
                ub_any = self.t.or(&[ub_any, ub_at]);
                let nxt = match succ {
                    Some(sx) => self.t.ite(ub_here, none, sx),
                    None => none,
                };
                next = self.t.ite(at, nxt, next);
                if let Some(rv) = ret_v {
                    ret = self.ite_v(at, &rv, &ret);
                }
                let mut local: Vec<(ValueId, V)> = local.into_iter().collect();
                local.sort_by_key(|(v, _)| v.0);
                for (v, val) in local {
                    let old = new_cur.get(&v).cloned().unwrap_or(V::Void);
                    let merged = self.ite_v(at, &val, &old);
                    new_cur.insert(v, merged);
                }
                let mut lc: Vec<(usize, TermId)> = local_c.into_iter().collect();
                lc.sort_by_key(|x| x.0);
                for (c, v) in lc {
                    cocc_after[c] = self.t.ite(at, v, cocc_after[c]);
                }
                if ext_i > 0 {
                    let i = self.cw(ext_i);
                    let plus = self.t.bv_add(ext_before, i);
                    ext_after = self.t.ite(at, plus, ext_after);
                }
                if cev_i > 0 {
                    let i = self.cw(cev_i);
                    let plus = self.t.bv_add(cev_before, i);
                    cev_after = self.t.ite(at, plus, cev_after);
                }
            }
            st.cur = new_cur;
            cocc = cocc_after;
            st.ext_cnt = ext_after;
            st.cev_cnt = cev_after;
            st.cyc = cyc_after;
            blk.push(next);
            let row = step_insts
                .into_iter()
                .map(|i| {
                    i.unwrap_or(Inst {
                        here: fls,
                        key: Vec::new(),
                        args: Vec::new(),
                        ord: None,
                        occ: fls,
                    })
                })
                .collect();
            insts_t.push(row);
        }
        let last = blk[k];
        let running = self.t.eq(last, none);
        let cut = self.t.not(running);
        enc.blk.push(blk);
        enc.ub.push(ub_any);
        enc.cut.push(cut);
        enc.ret.push(ret);
        enc.inst.push(insts_t);
        enc.ext.push(ext_t);
        enc.ext_count.push(st.ext_cnt);
        enc.cev.push(cev_t);
        enc.cev_count.push(st.cev_cnt);
    }

    /// P-THREAD integer semantics: result, extra poison, and UB condition.
    fn binop(
        &mut self,
        op: BinOp,
        flags: &[String],
        w: u32,
        a: TermId,
        b: TermId,
    ) -> (TermId, TermId, Option<TermId>) {
        let fls = self.t.fls();
        let zero = self.bv(w, 0);
        let has = |f: &str| flags.iter().any(|x| x == f);
        let wide = |s: &mut Self, signed: bool, x: TermId| {
            if signed {
                s.t.sign_ext(w, x)
            } else {
                s.t.zero_ext(w, x)
            }
        };
        let overflow = |s: &mut Self, r: TermId, op2: BinOp, signed: bool| {
            let xa = wide(s, signed, a);
            let xb = wide(s, signed, b);
            let exact = match op2 {
                BinOp::Add => s.t.bv_add(xa, xb),
                BinOp::Sub => s.t.bv_sub(xa, xb),
                _ => s.t.bv_mul(xa, xb),
            };
            let xr = wide(s, signed, r);
            let same = s.t.eq(exact, xr);
            s.t.not(same)
        };
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let r = match op {
                    BinOp::Add => self.t.bv_add(a, b),
                    BinOp::Sub => self.t.bv_sub(a, b),
                    _ => self.t.bv_mul(a, b),
                };
                let mut p = fls;
                if has("nsw") {
                    let o = overflow(self, r, op, true);
                    p = self.t.or(&[p, o]);
                }
                if has("nuw") {
                    let o = overflow(self, r, op, false);
                    p = self.t.or(&[p, o]);
                }
                (r, p, None)
            }
            BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem => {
                let r = match op {
                    BinOp::UDiv => self.t.bv_udiv(a, b),
                    BinOp::URem => self.t.bv_urem(a, b),
                    BinOp::SDiv => self.t.bv_sdiv(a, b),
                    _ => self.t.bv_srem(a, b),
                };
                let mut u = self.t.eq(b, zero);
                if matches!(op, BinOp::SDiv | BinOp::SRem) {
                    let min = self.bv(w, 1u128 << (w - 1));
                    let m1 = self.bv(w, mask(w));
                    let ia = self.t.eq(a, min);
                    let ib = self.t.eq(b, m1);
                    let ov = self.t.and(&[ia, ib]);
                    u = self.t.or(&[u, ov]);
                }
                (r, fls, Some(u))
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                let r = match op {
                    BinOp::Shl => self.t.bv_shl(a, b),
                    BinOp::LShr => self.t.bv_lshr(a, b),
                    _ => self.t.bv_ashr(a, b),
                };
                let ww = self.bv(w, w as u128);
                let p = self.t.bv_uge(b, ww);
                (r, p, None)
            }
            BinOp::And => (self.t.bv_and(a, b), fls, None),
            BinOp::Or => (self.t.bv_or(a, b), fls, None),
            BinOp::Xor => (self.t.bv_xor(a, b), fls, None),
            _ => (a, self.t.tru(), None),
        }
    }

    fn icmp(&mut self, pred: ICmpPred, a: TermId, b: TermId) -> TermId {
        match pred {
            ICmpPred::Eq => self.t.eq(a, b),
            ICmpPred::Ne => {
                let e = self.t.eq(a, b);
                self.t.not(e)
            }
            ICmpPred::Ugt => self.t.bv_ugt(a, b),
            ICmpPred::Uge => self.t.bv_uge(a, b),
            ICmpPred::Ult => self.t.bv_ult(a, b),
            ICmpPred::Ule => self.t.bv_ule(a, b),
            ICmpPred::Sgt => self.t.bv_sgt(a, b),
            ICmpPred::Sge => self.t.bv_sge(a, b),
            ICmpPred::Slt => self.t.bv_slt(a, b),
            ICmpPred::Sle => self.t.bv_sle(a, b),
        }
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

pub(super) fn keys_eq(t: &mut Terms, a: &[TermId], b: &[TermId]) -> TermId {
    if a.len() != b.len() {
        return t.fls();
    }
    let eqs: Vec<TermId> = a.iter().zip(b).map(|(x, y)| t.eq(*x, *y)).collect();
    t.and(&eqs)
}

/// The communicating set of instance (t, s, o) as seen from thread u:
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
            if terms.literal(other.here).and_then(|v| v.as_bool()) == Some(false) {
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
