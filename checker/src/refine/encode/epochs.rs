//! R-MEM-SYNC-SMT (docs/RULES.md §9): threads that communicate through
//! shared memory across synchronizing operations (P-MEM-SYNC: barriers,
//! unknown convergent calls that may access memory).
//!
//! When every executed synchronizing instance has every thread of the
//! launch in its communicating set (aligned barriers), the k-th such
//! instance of each thread is one instance, and it splits every thread's
//! execution into the same epochs 0, 1, 2, ... Between two barriers
//! happens-before is program order, across one it is total (P-MEM-SYNC).
//! If, within each epoch, no byte written by one thread is read or written
//! by another (the execution is data-race free, P-MEM-RACE), a load reads
//! P-MEM-VALUE's value: the thread's own latest write of the epoch, else
//! the memory after the previous epoch, which is the memory after the
//! epoch before it updated by the one writer (if any) of each byte in it.
//! That is what the interpreter computes in every schedule.
//!
//! Encoding: `G[e]`, the shared memory after epoch `e` (fresh bytes for
//! `e < EPOCHS`), is defined after every thread is encoded from each
//! thread's view at the barrier ending epoch `e` and its epoch-local write
//! flags (`wre`). At a barrier a thread's view of every shared byte becomes
//! `G[e]` for its epoch `e`; its epoch-local read and write flags (`rde`,
//! `wre`) restart. An execution in which some synchronizing instance
//! misses a thread, or a thread passes more than `EPOCHS - 1` barriers,
//! keeps the per-thread views of R-MEM-SMT (and its conflict condition,
//! no thread reading what another writes). Otherwise the conflict
//! condition (the pair is then unsupported) is: in one epoch a thread reads a byte another
//! writes, or two threads write one byte and end the epoch with different
//! values of it (writers that agree end with their common value in every
//! schedule, R-MEM-SMT's relaxation, per epoch). Final contents: the last
//! epoch's writer of each byte, else the memory after the last barrier.

use super::thread::{ThreadMem, ThreadSt};
use super::{Builder, Enc, FinalTerms, MByte};
use crate::vc::{Sort, TermId};

/// Epochs the encoding expresses (barriers per thread, plus one).
pub const EPOCHS: usize = 4;

/// A thread's state at one of its barriers, or at its end: whether it
/// happens, the epoch it ends, the epoch-local write and read flags, and
/// the thread's view of the shared objects.
#[derive(Clone)]
pub(super) struct Seg {
    pub here: TermId,
    pub epoch: TermId,
    pub wre: Vec<Vec<TermId>>,
    pub rde: Vec<Vec<TermId>>,
    pub view: Vec<Vec<MByte>>,
}

impl Builder<'_, '_> {
    /// The synchronizing operations among `enc.ops`, and the fresh bytes
    /// of `G` when the kernel has one and a shared object.
    pub(super) fn init_epochs(&mut self, enc: &Enc) {
        let p = self.p;
        self.sync_ops = enc
            .ops
            .iter()
            .map(|&(bi, ii)| match &p.func.blocks[bi].insts[ii].kind {
                semantics::ir::InstKind::Call(c) => {
                    semantics::machine::access::synchronizes(p.module, c)
                }
                _ => false,
            })
            .collect();
        let shared = p.mem.objects.iter().any(|o| o.shared());
        if !shared || !self.sync_ops.iter().any(|x| *x) {
            return;
        }
        let objs = p.mem.objects.clone();
        self.aligned = Some(self.fresh("sync.aligned", Sort::Bool));
        self.epochs = (0..EPOCHS)
            .map(|e| {
                objs.iter()
                    .enumerate()
                    .map(|(j, o)| {
                        if !o.shared() {
                            return Vec::new();
                        }
                        (0..o.size)
                            .map(|c| MByte {
                                bits: self.fresh(&format!("g.e{e}.o{j}.b{c}"), Sort::BitVec(8)),
                                poison: self.fresh(&format!("gp.e{e}.o{j}.b{c}"), Sort::Bool),
                                tag: self.fresh(
                                    &format!("gt.e{e}.o{j}.b{c}"),
                                    Sort::BitVec(super::memory::TW),
                                ),
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
    }

    /// The number of synchronizing instances the thread executed so far
    /// (its epoch).
    pub(super) fn epoch_now(&mut self, th: &ThreadSt) -> TermId {
        let mut e = self.cw(0);
        for (o, sync) in self.sync_ops.clone().into_iter().enumerate() {
            if sync {
                e = self.t.bv_add(e, th.occ[o]);
            }
        }
        e
    }

    /// A synchronizing instance of the thread in this visit (before its
    /// occurrence is counted): the thread's segment ends, its view of
    /// every shared byte becomes `G` after its epoch, and its epoch-local
    /// flags restart.
    pub(super) fn barrier_memory(&mut self, th: &mut ThreadSt) {
        if self.epochs.is_empty() {
            return;
        }
        let at = th.visit.at;
        let epoch = self.epoch_now(th);
        let view = th.visit.mem.clone().unwrap_or_else(|| th.mem.clone());
        th.segs.push(Seg {
            here: at,
            epoch,
            wre: th.wre.clone(),
            rde: th.rde.clone(),
            view: view.clone(),
        });
        let limit = self.cw(EPOCHS - 1);
        let over = self.t.bv_ugt(epoch, limit);
        let over = self.t.and(&[at, over]);
        th.sync_overflow = self.t.or(&[th.sync_overflow, over]);
        let mut new = view;
        let nat = self.t.not(at);
        // Executions whose barriers are not all aligned keep the
        // per-thread views (R-MEM-SMT without epochs).
        let aligned = self
            .aligned
            .expect("init_epochs made the alignment variable");
        let take = self.t.and(&[at, aligned]);
        for (j, obj) in new.iter_mut().enumerate() {
            if self.epochs[0][j].is_empty() {
                continue;
            }
            for (c, byte) in obj.iter_mut().enumerate() {
                let mut sel = self.epochs[EPOCHS - 1][j][c];
                for e in (0..EPOCHS - 1).rev() {
                    let et = self.cw(e);
                    let is = self.t.eq(epoch, et);
                    sel = self.ite_byte(is, self.epochs[e][j][c], sel);
                }
                *byte = self.ite_byte(take, sel, *byte);
                th.wre[j][c] = self.t.and(&[th.wre[j][c], nat]);
                th.rde[j][c] = self.t.and(&[th.rde[j][c], nat]);
            }
        }
        th.visit.mem = Some(new);
    }

    /// `G`'s definitions (into `enc.defs`), and for executions whose
    /// barriers are aligned the conflict condition and the final contents
    /// of the observed objects (module documentation).
    pub(super) fn final_memory_epochs(
        &mut self,
        enc: &mut Enc,
        views: &[ThreadMem],
        init: &[Vec<MByte>],
    ) -> EpochParts {
        let objs = self.p.mem.objects.clone();
        let n = views.len();
        let tru = self.t.tru();
        // Every thread's segments, its end last.
        let segs: Vec<Vec<Seg>> = views
            .iter()
            .map(|v| {
                let mut s = v.segs.clone();
                s.push(Seg {
                    here: tru,
                    epoch: v.epoch,
                    wre: v.wre.clone(),
                    rde: v.rde.clone(),
                    view: v.view.clone(),
                });
                s
            })
            .collect();
        // G[e]: G[e - 1] (the initial contents for e = 0) updated by the
        // byte's writer in epoch e.
        for e in 0..EPOCHS {
            let et = self.cw(e);
            for (j, o) in objs.iter().enumerate() {
                if !o.shared() {
                    continue;
                }
                for (c, &first) in init[j].iter().enumerate().take(o.size as usize) {
                    let mut val = if e == 0 {
                        first
                    } else {
                        self.epochs[e - 1][j][c]
                    };
                    for th in &segs {
                        for sg in &th[..th.len() - 1] {
                            let is = self.t.eq(sg.epoch, et);
                            let cond = self.t.and(&[sg.here, is, sg.wre[j][c]]);
                            val = self.ite_byte(cond, sg.view[j][c], val);
                        }
                    }
                    let g = self.epochs[e][j][c];
                    let eb = self.t.eq(g.bits, val.bits);
                    let ep = self.t.eq(g.poison, val.poison);
                    let eg = self.t.eq(g.tag, val.tag);
                    let d = self.t.and(&[eb, ep, eg]);
                    enc.defs.push(d);
                }
            }
        }
        let overflow: Vec<TermId> = views.iter().map(|v| v.sync_overflow).collect();
        let overflow = self.t.or(&overflow);
        let mut conflicts: Vec<TermId> = Vec::new();
        let mut misaligned: Vec<TermId> = Vec::new();
        // Aligned barriers: every synchronizing instance has every thread.
        for t in 0..n {
            for s in 0..enc.k {
                for o in 0..enc.ops.len() {
                    if !self.sync_ops[o] || s >= enc.inst[t].len() {
                        continue;
                    }
                    let here = enc.inst[t][s][o].here;
                    if self.t.is_false(here) {
                        continue;
                    }
                    let mem = self.members(enc, t, s, o);
                    let all: Vec<TermId> = mem.iter().map(|(is, _)| *is).collect();
                    let all = self.t.and(&all);
                    let missing = self.t.not(all);
                    misaligned.push(self.t.and(&[here, missing]));
                }
            }
        }
        // Data-race freedom within each epoch.
        for a in 0..n {
            for b in 0..n {
                if a == b {
                    continue;
                }
                for sa in &segs[a] {
                    for sb in &segs[b] {
                        let same = self.t.eq(sa.epoch, sb.epoch);
                        let mut bytes = Vec::new();
                        for (j, o) in objs.iter().enumerate() {
                            if !o.shared() {
                                continue;
                            }
                            for c in 0..o.size as usize {
                                // Another thread's write of the byte in
                                // the epoch with another value at the
                                // epoch's end (agreeing writers, as
                                // R-MEM-SMT's, end with their value).
                                let same_v = self.same_byte(sa.view[j][c], sb.view[j][c]);
                                let differs = self.t.not(same_v);
                                let other_w = self.t.and(&[sb.wre[j][c], differs]);
                                let acc = self.t.or(&[sb.rde[j][c], other_w]);
                                bytes.push(self.t.and(&[sa.wre[j][c], acc]));
                            }
                        }
                        let any = self.t.or(&bytes);
                        conflicts.push(self.t.and(&[sa.here, sb.here, same, any]));
                    }
                }
            }
        }
        // Final contents: the last epoch's writer, else the memory after
        // the last barrier (every thread's view of an unwritten byte).
        let fls = self.t.fls();
        let mut memory = Vec::new();
        for (j, o) in objs.iter().enumerate() {
            if !o.observed() {
                continue;
            }
            let shown = (0..o.size as usize)
                .map(|c| {
                    let mut byte = views[0].view[j][c];
                    for th in &segs {
                        let last = th.last().expect("every thread has its end segment");
                        byte = self.ite_byte(last.wre[j][c], last.view[j][c], byte);
                    }
                    (byte.bits, byte.poison, fls)
                })
                .collect::<Vec<FinalTerms>>();
            memory.push(shown);
        }
        // More barriers than epochs: the per-thread views instead.
        misaligned.push(overflow);
        let mis = self.t.or(&misaligned);
        let aligned = self.t.not(mis);
        let var = self
            .aligned
            .expect("init_epochs made the alignment variable");
        let d = self.t.eq(var, aligned);
        enc.defs.push(d);
        EpochParts {
            aligned,
            conflict: self.t.or(&conflicts),
            memory,
        }
    }
}

/// What [`Builder::final_memory_epochs`] gives the final-memory step:
/// whether every synchronizing instance had every thread and the thread
/// passed at most `EPOCHS - 1` barriers, the epochs' conflict condition,
/// and the final contents of the observed objects (in `Enc::memory`'s
/// order).
pub(super) struct EpochParts {
    pub aligned: TermId,
    pub conflict: TermId,
    pub memory: Vec<Vec<FinalTerms>>,
}
