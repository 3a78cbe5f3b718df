//! P-THREAD: one thread's bounded execution, step by step. At step s the
//! thread is in one block (`blk[t][s]`) or no longer running; every block
//! that step s can reach is encoded, guarded by `at` (this is the current
//! block), and the step's values, events and counters are merged by `ite`
//! on `at`. The interpreter's counterpart is `semantics::machine::step`.

use rustc_hash::FxHashMap as HashMap;

use semantics::ir::{Block, Const, Operand, TermKind, Type, ValueDef, ValueId};

use super::keys::key_widths;
use super::launch::possible_blocks;
use super::{width, Builder, CEv, Enc, Ev, Inst, V};
use crate::vc::TermId;

/// Per-thread state of the encoder: what one step hands to the next, and
/// what the step being encoded builds. Every field is a term of the
/// encoding; "after" fields become the carried ones when the step ends.
pub(super) struct ThreadSt {
    /// The thread.
    pub t: usize,
    /// The step being encoded.
    pub s: usize,
    /// The block value meaning "not running" (`Enc::nb`).
    pub none: TermId,
    /// `[0..=s]`: the block term of each step so far (`blk[t][s]`).
    pub blk: Vec<TermId>,
    /// SSA values before this step (each the `ite` over the blocks that
    /// define it; poison ints and zero tokens before any definition).
    pub cur: HashMap<ValueId, V>,
    /// SSA values after this step.
    pub new_cur: HashMap<ValueId, V>,
    /// The block after this step (`none` when the thread stops).
    pub next: TermId,
    /// Undefined behaviour happened at some step so far.
    pub ub_any: TermId,
    /// The return value (meaningful once the thread returned).
    pub ret: V,
    /// `[s][op]`: the thread's instances of convergent operations.
    pub insts: Vec<Vec<Inst>>,
    /// This step's instances (None: the op's block is not encoded here).
    pub step_insts: Vec<Option<Inst>>,
    /// R-OBS: external call and atomic events, in program order.
    pub ext: Vec<Ev>,
    /// R-OBS: observed convergent calls, in program order.
    pub cev: Vec<CEv>,
    /// How many external / observed convergent events happened before
    /// this step, and after it.
    pub ext_cnt: TermId,
    pub cev_cnt: TermId,
    pub ext_after: TermId,
    pub cev_after: TermId,
    /// R-STREAM-SMT: how many input-stream values the thread read before
    /// this step, and after it.
    pub str_cnt: TermId,
    pub str_after: TermId,
    /// Per op: instances the thread executed so far (updated in place
    /// during the step), and the count before this step.
    pub occ: Vec<TermId>,
    pub occ_before: Vec<TermId>,
    /// Per D-CW class: occurrences of any op of the class before this
    /// step, and after it (D-ANCHOR choices are indexed by these).
    pub cocc: Vec<TermId>,
    pub cocc_after: Vec<TermId>,
    /// D-ANCHOR: per class, the choice variable of each occurrence.
    pub anchor_vars: HashMap<usize, Vec<TermId>>,
    /// D-LOOP: the `loop` instances encoded so far.
    pub loop_hist: Vec<LoopVisit>,
    /// D-MAX-ITER: per (hierarchy, cycle id), header visits since the
    /// thread last entered the cycle, before this step and after it.
    pub cyc: HashMap<(usize, usize), TermId>,
    pub cyc_after: HashMap<(usize, usize), TermId>,
    /// The block visit being encoded.
    pub visit: Visit,
    /// R-MEM-SMT: the thread's view of each object before this step, and
    /// after it.
    pub mem: Vec<Vec<super::MByte>>,
    pub new_mem: Vec<Vec<super::MByte>>,
    /// R-MEM-SMT: per object and byte, whether the thread wrote / read it
    /// so far (only shared objects' flags are set).
    pub wr: Vec<Vec<TermId>>,
    pub rd: Vec<Vec<TermId>>,
    /// R-MEM-SMT (agreeing reads): per object and byte, whether the thread
    /// wrote it with a value other than its previous write (`ch`), and
    /// whether it read it before its own first write (`nw`).
    pub ch: Vec<Vec<TermId>>,
    pub nw: Vec<Vec<TermId>>,
    /// R-MEM-SYNC-SMT: per shared byte, written / read since the thread's
    /// last barrier; the thread's segments so far; whether it passed more
    /// barriers than the encoding's epochs.
    pub wre: Vec<Vec<TermId>>,
    pub rde: Vec<Vec<TermId>>,
    pub segs: Vec<super::epochs::Seg>,
    pub sync_overflow: TermId,
}

/// One block at one step: everything its instructions build before it is
/// merged into the step.
pub(super) struct Visit {
    /// The block.
    pub bi: usize,
    /// The thread is in this block at this step.
    pub at: TermId,
    /// Values defined in this visit so far.
    pub local: HashMap<ValueId, V>,
    /// Undefined behaviour in this visit (if it happens).
    pub ub: TermId,
    /// External and observed convergent events of this visit so far.
    pub ext_i: usize,
    pub cev_i: usize,
    /// R-STREAM-SMT: input-stream values read in this visit so far.
    pub str_i: usize,
    /// Per D-CW class: occurrences including this visit's instances.
    pub local_c: HashMap<usize, TermId>,
    /// The thread's memory view after this visit's stores (None: no
    /// store).
    pub mem: Option<Vec<Vec<super::MByte>>>,
}

impl Visit {
    fn new(bi: usize, at: TermId, fls: TermId) -> Visit {
        Visit {
            bi,
            at,
            local: HashMap::default(),
            ub: fls,
            ext_i: 0,
            cev_i: 0,
            str_i: 0,
            local_c: HashMap::default(),
            mem: None,
        }
    }
}

/// D-LOOP: one `loop` instance of the thread, guarded by `here`, with the
/// step that defined its token (the token value within the thread).
pub(super) struct LoopVisit {
    pub op: usize,
    pub here: TermId,
    pub tok_def: TermId,
}

impl ThreadSt {
    /// The value `v` as seen in the current visit: defined earlier in the
    /// block, else before the step.
    pub fn lookup(&self, v: &ValueId) -> Option<&V> {
        self.visit.local.get(v).or_else(|| self.cur.get(v))
    }
}

impl Builder<'_, '_> {
    /// The whole encoding: the static convergent operations and their D-CW
    /// classes, every thread, then the cross-thread constraints (C-OPS
    /// results over sets, D-ORDER).
    pub(super) fn run(&mut self) -> Enc {
        let p = self.p;
        let f = p.func;
        let n = self.launch.n;
        let nb = f.blocks.len();
        let bw = (usize::BITS - nb.leading_zeros()).max(1);
        let mut ops = Vec::new();
        let mut op_callee = Vec::new();
        for (bi, row) in p.calls.iter().enumerate() {
            for (ii, c) in row.iter().enumerate() {
                if let Some(c) = c.as_ref().filter(|c| c.convergent) {
                    self.op_index.insert((bi, ii), ops.len());
                    ops.push((bi, ii));
                    op_callee.push(c.callee.clone());
                }
            }
        }
        // D-CW classes: the prepared classes, else one class per op.
        let mut op_class = Vec::new();
        let mut class_ops: Vec<Vec<usize>> = Vec::new();
        let mut by_prepared: HashMap<usize, usize> = HashMap::default();
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
            k: self.k,
            nb,
            bw,
            blk: Vec::new(),
            ub: Vec::new(),
            cut: Vec::new(),
            stuck: Vec::new(),
            ret: Vec::new(),
            choices: Vec::new(),
            defs: Vec::new(),
            valid: Vec::new(),
            ops,
            inst: Vec::new(),
            ext: Vec::new(),
            ext_count: Vec::new(),
            str_count: Vec::new(),
            cev: Vec::new(),
            cev_count: Vec::new(),
            op_callee,
            anchor_keys: Vec::new(),
            anchor_vars: Vec::new(),
            rank_vars: Vec::new(),
            cev_range: Vec::new(),
            op_class,
            class_ops,
            atom: Vec::new(),
            atom_count: Vec::new(),
            memory: Vec::new(),
            conflict: self.t.fls(),
            freeze: Vec::new(),
            hierarchy: None,
            exact_args: self.launch.free_results,
        };
        // D-HIER: one selector per execution when the program has several
        // cycle hierarchies (a choice: CEGIS fixes it like an anchor's).
        if p.hiers.len() > 1 {
            let sel = self.fresh("hierarchy", crate::vc::Sort::BitVec(super::CW));
            let count = self.cw(p.hiers.len());
            let in_range = self.t.bv_ult(sel, count);
            enc.choices.push(sel);
            enc.valid.push(in_range);
            enc.hierarchy = Some(sel);
            self.hsel = Some(sel);
        }
        enc.cev_range = self.cev_ranges(&enc);
        let quiet = super::stuck::Quiet::compute(p);
        self.init_epochs(&enc);
        let mut views = Vec::new();
        for t in 0..n {
            views.push(self.thread(t, &mut enc, &quiet));
        }
        self.final_memory(&mut enc, views);
        self.define_results(&mut enc);
        self.anchor_rules(&mut enc);
        enc
    }

    /// [`Enc::cev_range`]: per step and op, the ordinals an observed
    /// convergent event can have.
    fn cev_ranges(&self, enc: &Enc) -> Vec<Vec<Option<(usize, usize)>>> {
        let p = self.p;
        let f = p.func;
        // Per op: whether it is observed with its set, and its position
        // among its block's observed calls.
        let mut events = vec![0usize; f.blocks.len()];
        let mut pos: Vec<Option<(usize, usize)>> = Vec::with_capacity(enc.ops.len());
        for &(bi, ii) in &enc.ops {
            let observed = p.call(bi, ii).is_some_and(|c| c.sem.observed(self.observe));
            if observed {
                pos.push(Some((bi, events[bi])));
                events[bi] += 1;
            } else {
                pos.push(None);
            }
        }
        let ranges = super::launch::event_ranges(f, &events, self.k);
        (0..self.k)
            .map(|s| {
                pos.iter()
                    .map(|x| {
                        let (bi, i) = (*x)?;
                        let (lo, hi) = ranges[s][bi]?;
                        Some((lo + i, hi + i))
                    })
                    .collect()
            })
            .collect()
    }

    /// Thread `t`: its initial state, K steps, and what the encoding keeps;
    /// returns its final memory view and write/read flags (R-MEM-SMT).
    fn thread(&mut self, t: usize, enc: &mut Enc, quiet: &super::stuck::Quiet) -> ThreadMem {
        let mut th = self.thread_start(t, enc);
        let possible = possible_blocks(self.p.func, self.k);
        // R-PREFIX: the SSA values at the start of every step, for the
        // lasso test.
        let mut snaps = Vec::with_capacity(self.k + 1);
        let mut counts = Vec::with_capacity(self.k + 1);
        for (s, possible) in possible.iter().enumerate().take(self.k) {
            snaps.push(th.cur.clone());
            counts.push([th.ext_cnt, th.cev_cnt]);
            self.step(enc, &mut th, s, possible);
        }
        snaps.push(th.cur.clone());
        counts.push([th.ext_cnt, th.cev_cnt]);
        // R-MEM-SYNC-SMT (no terms at all without epochs).
        let epoch = if self.epochs.is_empty() {
            th.none
        } else {
            self.epoch_now(&th)
        };
        let last = th.blk[self.k];
        let running = self.t.eq(last, th.none);
        let cut = self.t.not(running);
        let lasso = self.stuck(quiet, &th.blk, &snaps, &counts);
        let rec = self.rec_stuck(&self.p.rec_lassos, &th.blk, &snaps, &counts);
        let lasso = self.t.or(&[lasso, rec]);
        let stuck = self.t.and(&[cut, lasso]);
        enc.stuck.push(stuck);
        enc.blk.push(th.blk);
        enc.ub.push(th.ub_any);
        enc.cut.push(cut);
        enc.ret.push(th.ret);
        enc.inst.push(th.insts);
        enc.ext.push(th.ext);
        enc.ext_count.push(th.ext_cnt);
        enc.str_count.push(th.str_cnt);
        enc.cev.push(th.cev);
        enc.cev_count.push(th.cev_cnt);
        ThreadMem {
            view: th.mem,
            wr: th.wr,
            rd: th.rd,
            ch: th.ch,
            nw: th.nw,
            wre: th.wre,
            rde: th.rde,
            segs: th.segs,
            epoch,
            sync_overflow: th.sync_overflow,
        }
    }

    /// R-MEM-SMT: the conflict condition and, for each observed object,
    /// its final contents.
    ///
    /// Conflict: for threads a != b, a writes a byte of a shared object
    /// and
    /// - b reads it, unless b read it only after its own first write of
    ///   it (`nw`), neither thread ever wrote it with a value other than
    ///   its previous write (`ch`), and both end with the same value
    ///   (bits, poison, provenance): *agreeing reads*. Taken over every
    ///   pair, every write of the byte by every thread then writes one
    ///   value v, and every read of it comes after the reader's own write
    ///   of v: whichever write a schedule of the interpreter lets the read
    ///   see (with or without `--races`), it reads v, which is the
    ///   reader's own view. So the per-thread view is the interpreter's
    ///   value, as for the agreeing writers below;
    /// - or b writes it too, their last values differ, and the kernel has
    ///   a synchronizing operation (P-MEM-SYNC: the two writes may be
    ///   ordered, and the later one would be the final value).
    ///
    /// Final contents (R-MEM): per byte a writing thread's last value
    /// (agreeing writers: every writer's, and the interpreter's final
    /// value in every schedule: some writer's last write), else the
    /// initial contents; `undef` (P-MEM-UNDEF) when two threads' last
    /// values differ: without a synchronizing operation no write of one
    /// thread happens before another thread's (P-MEM-SYNC is program order
    /// then), so both last writes are ones the final read may see, as the
    /// interpreter's `Memory::final_byte` decides. Such a byte read by
    /// another thread is a conflict (first case: the values differ).
    fn final_memory(&mut self, enc: &mut Enc, views: Vec<ThreadMem>) {
        let objs = self.p.mem.objects.clone();
        if objs.is_empty() {
            return;
        }
        // R-MEM-SYNC-SMT: communication across aligned barriers.
        let init = self.mem_start();
        let epochs =
            (!self.epochs.is_empty()).then(|| self.final_memory_epochs(enc, &views, &init));
        let p = self.p;
        let has_sync = p.func.blocks.iter().flat_map(|b| &b.insts).any(|i| {
            matches!(&i.kind, semantics::ir::InstKind::Call(c)
                if semantics::machine::access::synchronizes(p.module, c))
        });
        let mut conflicts = Vec::new();
        for (j, o) in objs.iter().enumerate() {
            if !o.shared() {
                continue;
            }
            let mut undef = vec![self.t.fls(); o.size as usize];
            for (c, u) in undef.iter_mut().enumerate() {
                let mut us = Vec::new();
                for a in 0..views.len() {
                    for b in 0..views.len() {
                        if a == b {
                            continue;
                        }
                        let (va, vb) = (&views[a], &views[b]);
                        let wa = va.wr[j][c];
                        let same = self.same_byte(va.view[j][c], vb.view[j][c]);
                        let differs = self.t.not(same);
                        let bad_read = self.t.or(&[vb.nw[j][c], va.ch[j][c], vb.ch[j][c], differs]);
                        let read = self.t.and(&[vb.rd[j][c], bad_read]);
                        let other_write = self.t.and(&[vb.wr[j][c], differs]);
                        if a < b {
                            us.push(self.t.and(&[wa, other_write]));
                        }
                        let acc = if has_sync {
                            self.t.or(&[read, other_write])
                        } else {
                            read
                        };
                        conflicts.push(self.t.and(&[wa, acc]));
                    }
                }
                *u = self.t.or(&us);
            }
            if !o.observed() {
                continue;
            }
            let mut bytes = init[j].clone();
            for (c, byte) in bytes.iter_mut().enumerate() {
                for v in &views {
                    let w = v.wr[j][c];
                    *byte = self.ite_byte(w, v.view[j][c], *byte);
                }
            }
            let shown = bytes
                .iter()
                .zip(&undef)
                .map(|(b, u)| {
                    let nu = self.t.not(*u);
                    (b.bits, self.t.and(&[b.poison, nu]), *u)
                })
                .collect();
            enc.memory.push((o.name.clone(), shown));
        }
        enc.conflict = self.t.or(&conflicts);
        if let Some(ep) = epochs {
            // Executions whose barriers are aligned use the epochs (their
            // conflict and final contents); the others the per-thread
            // views (a barrier then leaves the view as it is), where no
            // thread may read what another writes.
            let old = enc.conflict;
            enc.conflict = self.t.ite(ep.aligned, ep.conflict, old);
            for (entry, new) in enc.memory.iter_mut().zip(ep.memory) {
                for (b, n) in entry.1.iter_mut().zip(new) {
                    *b = (
                        self.t.ite(ep.aligned, n.0, b.0),
                        self.t.ite(ep.aligned, n.1, b.1),
                        self.t.ite(ep.aligned, n.2, b.2),
                    );
                }
            }
        }
    }

    /// P-LAUNCH: thread `t` starts in the entry block with its arguments;
    /// every other value is poison (a token: the zero key) until defined.
    fn thread_start(&mut self, t: usize, enc: &Enc) -> ThreadSt {
        let p = self.p;
        let f = p.func;
        let none = self.bv(enc.bw, enc.nb as u128);
        let fls = self.t.fls();
        let zero = self.cw(0);
        let mut cur = HashMap::default();
        for (i, param) in f.params.iter().enumerate() {
            if let Some(v) = param.value {
                let bits = self.launch.args[i][t];
                let val = self.int(bits);
                cur.insert(v, val);
            }
        }
        for (vi, info) in f.values.iter().enumerate() {
            if matches!(info.def, ValueDef::Inst { .. }) {
                let v = if info.ty.is_token() {
                    let widths = key_widths(p, ValueId(vi), 0, self.anchor_w);
                    let key = widths.iter().map(|w| self.bv(*w, 0)).collect();
                    V::Tok {
                        key,
                        def: self.cw(255),
                    }
                } else if info.ty == Type::Void {
                    V::Void
                } else {
                    self.poison_of(&info.ty)
                };
                cur.insert(ValueId(vi), v);
            }
        }
        let blk = vec![self.bv(enc.bw, 0)];
        let ret = match &f.ret_ty {
            Type::Void => V::Void,
            ty => self.poison(width(ty)),
        };
        // Occurrence counters per op (choices are indexed by occurrence,
        // not by step, so that a learned choice carries over to other
        // launches) and per D-CW class.
        let occ: Vec<TermId> = (0..enc.ops.len()).map(|_| self.cw(0)).collect();
        let mem = self.mem_start();
        let flags: Vec<Vec<TermId>> = mem.iter().map(|o| vec![fls; o.len()]).collect();
        let cocc: Vec<TermId> = (0..enc.class_ops.len()).map(|_| self.cw(0)).collect();
        ThreadSt {
            t,
            s: 0,
            none,
            blk,
            new_cur: cur.clone(),
            cur,
            next: none,
            ub_any: fls,
            ret,
            insts: Vec::new(),
            step_insts: Vec::new(),
            ext: Vec::new(),
            cev: Vec::new(),
            ext_cnt: zero,
            cev_cnt: zero,
            ext_after: zero,
            cev_after: zero,
            str_cnt: zero,
            str_after: zero,
            occ_before: occ.clone(),
            occ,
            cocc_after: cocc.clone(),
            cocc,
            anchor_vars: HashMap::default(),
            loop_hist: Vec::new(),
            cyc: HashMap::default(),
            cyc_after: HashMap::default(),
            visit: Visit::new(0, fls, fls),
            new_mem: mem.clone(),
            mem,
            wr: flags.clone(),
            rd: flags.clone(),
            ch: flags.clone(),
            nw: flags.clone(),
            wre: flags.clone(),
            rde: flags,
            segs: Vec::new(),
            sync_overflow: fls,
        }
    }

    /// Step `s`: every block some CFG path of length s reaches, then the
    /// step's results become the thread's state.
    fn step(&mut self, enc: &mut Enc, th: &mut ThreadSt, s: usize, possible: &[bool]) {
        th.s = s;
        th.next = th.none;
        th.new_cur = th.cur.clone();
        th.new_mem = th.mem.clone();
        th.step_insts = vec![None; enc.ops.len()];
        th.occ_before = th.occ.clone();
        th.cocc_after = th.cocc.clone();
        th.ext_after = th.ext_cnt;
        th.cev_after = th.cev_cnt;
        th.str_after = th.str_cnt;
        th.cyc_after = self.cycle_counters(enc, th);
        for (bi, block) in self.p.func.blocks.iter().enumerate() {
            self.block(enc, th, bi, block, possible[bi]);
        }
        th.cur = std::mem::take(&mut th.new_cur);
        th.mem = std::mem::take(&mut th.new_mem);
        th.cocc = th.cocc_after.clone();
        th.ext_cnt = th.ext_after;
        th.cev_cnt = th.cev_after;
        th.str_cnt = th.str_after;
        th.cyc = std::mem::take(&mut th.cyc_after);
        th.blk.push(th.next);
        let fls = self.t.fls();
        let row = std::mem::take(&mut th.step_insts)
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
        th.insts.push(row);
    }

    /// Block `bi` at the current step: its instructions in order, its
    /// terminator, and the merge of what it built into the step.
    fn block(
        &mut self,
        enc: &mut Enc,
        th: &mut ThreadSt,
        bi: usize,
        block: &Block,
        possible: bool,
    ) {
        let f = self.p.func;
        self.here.0 = format!("@{} %{}", f.name, block.name);
        let bt = self.bv(enc.bw, bi as u128);
        // A block no CFG path of length s reaches is never current at step
        // s: its instances, events and values fold away.
        let at = if possible {
            let cur_blk = th.blk[th.s];
            self.t.eq(cur_blk, bt)
        } else {
            self.t.fls()
        };
        let fls = self.t.fls();
        th.visit = Visit::new(bi, at, fls);
        for (ii, inst) in block.insts.iter().enumerate() {
            self.here.1 = Some(inst.span);
            let Some(val) = self.inst(enc, th, ii, inst) else {
                continue;
            };
            if let Some(r) = inst.result {
                th.visit.local.insert(r, val);
            }
        }
        self.here.1 = Some(block.term.span);
        let exit = self.terminator(enc, th, &block.term.kind);
        self.merge_visit(th, exit);
    }

    /// P-THREAD terminators: the successor (None: the thread stops), UB of
    /// the terminator itself, and the returned value.
    fn terminator(&mut self, enc: &Enc, th: &ThreadSt, term: &TermKind) -> Exit {
        let bw = enc.bw;
        let fls = self.t.fls();
        match term {
            TermKind::Br(d) => Exit {
                succ: Some(self.bv(bw, d.0 as u128)),
                ub: fls,
                ret: None,
            },
            TermKind::CondBr {
                cond,
                on_true,
                on_false,
            } => {
                let c = self.operand(cond, 1, th);
                let (cb, cp) = self.bits_of(&c, 1);
                let one = self.bv(1, 1);
                let ct = self.t.eq(cb, one);
                let x = self.bv(bw, on_true.0 as u128);
                let y = self.bv(bw, on_false.0 as u128);
                Exit {
                    succ: Some(self.t.ite(ct, x, y)),
                    ub: cp,
                    ret: None,
                }
            }
            TermKind::Switch {
                ty,
                cond,
                default,
                cases,
            } => {
                let w = width(ty);
                let c = self.operand(cond, w, th);
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
                Exit {
                    succ: Some(d),
                    ub: cp,
                    ret: None,
                }
            }
            TermKind::Ret(v) => {
                let ret = v.as_ref().map(|tv| self.typed(&tv.value, &tv.ty, th));
                Exit {
                    succ: None,
                    ub: fls,
                    ret,
                }
            }
            TermKind::Unreachable => Exit {
                succ: None,
                ub: self.t.tru(),
                ret: None,
            },
        }
    }

    /// Merges the visit into the step, guarded by `at`: UB stops the
    /// thread, the successor, the return value, the values defined, the
    /// occurrence and event counters.
    fn merge_visit(&mut self, th: &mut ThreadSt, exit: Exit) {
        let fls = self.t.fls();
        let visit = std::mem::replace(&mut th.visit, Visit::new(0, fls, fls));
        let at = visit.at;
        let ub_here = self.t.or(&[visit.ub, exit.ub]);
        let ub_at = self.t.and(&[at, ub_here]);
        th.ub_any = self.t.or(&[th.ub_any, ub_at]);
        let nxt = match exit.succ {
            Some(sx) => self.t.ite(ub_here, th.none, sx),
            None => th.none,
        };
        th.next = self.t.ite(at, nxt, th.next);
        if let Some(rv) = exit.ret {
            th.ret = self.ite_v(at, &rv, &th.ret);
        }
        if let Some(vm) = visit.mem {
            for (j, obj) in vm.into_iter().enumerate() {
                for (c, b) in obj.into_iter().enumerate() {
                    th.new_mem[j][c] = self.ite_byte(at, b, th.new_mem[j][c]);
                }
            }
        }
        let mut local: Vec<(ValueId, V)> = visit.local.into_iter().collect();
        local.sort_by_key(|(v, _)| v.0);
        for (v, val) in local {
            let old = th.new_cur.get(&v).cloned().unwrap_or(V::Void);
            let merged = self.ite_v(at, &val, &old);
            th.new_cur.insert(v, merged);
        }
        let mut lc: Vec<(usize, TermId)> = visit.local_c.into_iter().collect();
        lc.sort_by_key(|x| x.0);
        for (c, v) in lc {
            th.cocc_after[c] = self.t.ite(at, v, th.cocc_after[c]);
        }
        if visit.ext_i > 0 {
            let i = self.cw(visit.ext_i);
            let plus = self.t.bv_add(th.ext_cnt, i);
            th.ext_after = self.t.ite(at, plus, th.ext_after);
        }
        if visit.cev_i > 0 {
            let i = self.cw(visit.cev_i);
            let plus = self.t.bv_add(th.cev_cnt, i);
            th.cev_after = self.t.ite(at, plus, th.cev_after);
        }
        if visit.str_i > 0 {
            let i = self.cw(visit.str_i);
            let plus = self.t.bv_add(th.str_cnt, i);
            th.str_after = self.t.ite(at, plus, th.str_after);
        }
    }

    /// The value of operand `op` in the current visit, used with IR width
    /// `w`.
    pub(super) fn operand(&mut self, op: &Operand, w: u32, th: &ThreadSt) -> V {
        let found = match op {
            Operand::Local(v) => Some(th.lookup(v).cloned()),
            _ => None,
        };
        self.read(op, found, w)
    }

    /// The value of operand `op` before the current step (a phi's
    /// incoming value, read on the edge into the block).
    pub(super) fn operand_before(&mut self, op: &Operand, w: u32, th: &ThreadSt) -> V {
        let found = match op {
            Operand::Local(v) => Some(th.cur.get(v).cloned()),
            _ => None,
        };
        self.read(op, found, w)
    }

    /// Operand `op` (with `found`, the value of a local) as an `i{w}`; a
    /// value of another width (its definition's type disagrees with this
    /// use) is reported as unsupported and read as poison, so terms stay
    /// well-sorted.
    pub(super) fn read(&mut self, op: &Operand, found: Option<Option<V>>, w: u32) -> V {
        if let Some(value) = op.as_int() {
            let bits = self.bv(w, value as u128);
            return self.int(bits);
        }
        match (op, found) {
            (Operand::Local(v), Some(Some(x))) => match self.width_of(&x) {
                Some(got) if got != w => {
                    let name = self.p.func.value(*v).name.to_string();
                    self.unsupported(format!(
                        "%{name} of width {got} used as an i{w} (types disagree)"
                    ));
                    self.poison(w)
                }
                _ => x,
            },
            (Operand::Local(_), _) => self.poison(w),
            (Operand::Const(c), _) if matches!(**c, Const::Float(_)) => {
                // Float literals are read with their type (`typed`).
                self.unsupported(format!("float constant {c:?} read as an i{w}"));
                self.poison(w)
            }
            (Operand::Const(c), _) if w == super::PW => match self.ptr_constant(c) {
                Some(bits) => self.int(bits),
                None => self.poison(w),
            },
            _ => self.poison(w),
        }
    }

    /// Bits and poison flag of `v` read as an `i{w}` (a token or a value
    /// of another width reads as poison; the latter is reported).
    pub(super) fn bits_of(&mut self, v: &V, w: u32) -> (TermId, TermId) {
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
}

/// What a thread leaves for R-MEM-SMT: its final view of every object and
/// its per-byte write, read, changed and read-before-own-write flags.
pub(super) struct ThreadMem {
    pub(super) view: Vec<Vec<super::MByte>>,
    wr: Vec<Vec<TermId>>,
    rd: Vec<Vec<TermId>>,
    ch: Vec<Vec<TermId>>,
    nw: Vec<Vec<TermId>>,
    /// R-MEM-SYNC-SMT ([`super::epochs`]): the last segment's flags, the
    /// earlier segments, the final epoch, more barriers than epochs.
    pub(super) wre: Vec<Vec<TermId>>,
    pub(super) rde: Vec<Vec<TermId>>,
    pub(super) segs: Vec<super::epochs::Seg>,
    pub(super) epoch: TermId,
    pub(super) sync_overflow: TermId,
}

/// How a block visit ends (P-THREAD terminators).
pub(super) struct Exit {
    /// The successor block term; None: the thread stops (ret, unreachable).
    succ: Option<TermId>,
    /// The terminator itself is UB (a poison condition, `unreachable`).
    ub: TermId,
    /// The returned value.
    ret: Option<V>,
}
