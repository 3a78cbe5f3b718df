//! C-OPS results over communicating sets, and D-ORDER as a rank function:
//! the cross-thread constraints of the encoding (M-AXIOM).

use std::collections::HashMap;

use super::{mask, member, select, Builder, Enc, Launch, Ranks, RW, V};
use crate::refine::prog::{CallSem, RedOp};
use crate::vc::{Sort, TermId};

impl Builder<'_, '_> {
    /// C-OPS: defining constraints of every result over its set.
    pub(super) fn define_results(
        &mut self,
        launch: &Launch,
        enc: &mut Enc,
        results: &HashMap<(usize, usize, usize), TermId>,
    ) {
        let n = launch.n;
        for t in 0..n {
            for s in 0..enc.k {
                for (o, &(bi, ii)) in enc.ops.clone().iter().enumerate() {
                    let Some(r) = results.get(&(t, s, o)).copied() else {
                        if let Some(u) = results.get(&(t, s, o + usize::MAX / 4)) {
                            // UB-shuffle without result (cannot happen: shuffles return).
                            let f = self.t.fls();
                            let e = self.t.eq(*u, f);
                            enc.defs.push(e);
                        }
                        continue;
                    };
                    let poison = results[&(t, s, o + usize::MAX / 2)];
                    let info = self.p.call(bi, ii).expect("ops are calls").clone();
                    let w = self.t.sort(r).bv_width().unwrap_or(32);
                    // Members: per thread u, (is member, argument values).
                    let mut mem: Vec<(TermId, Vec<V>)> = Vec::new();
                    for u in 0..n {
                        let alts = member(self.t, enc, t, s, o, u);
                        let conds: Vec<TermId> = alts.iter().map(|(c, _, _)| *c).collect();
                        let is = self.t.or(&conds);
                        // Placeholders of the op's own argument widths (every
                        // member is a copy of one static call: same types).
                        let own = enc.inst[t][s][o].args.clone();
                        let mut args: Vec<V> = own
                            .iter()
                            .map(|a| {
                                let w = self.width_of(a).unwrap_or(1);
                                self.poison(w)
                            })
                            .collect();
                        for (c, s2, o2) in alts.iter().rev() {
                            let theirs = enc.inst[u][*s2][*o2].args.clone();
                            for (i, a) in theirs.iter().enumerate() {
                                if i < args.len() {
                                    let old = args[i].clone();
                                    args[i] = self.ite_v(*c, a, &old);
                                }
                            }
                        }
                        mem.push((is, args));
                    }
                    let (val, pois, oob) = self.c_ops(&info.sem, &info.callee, t, w, &mem);
                    let here = enc.inst[t][s][o].here;
                    let e1 = self.t.eq(r, val);
                    let e2 = self.t.eq(poison, pois);
                    let both = self.t.and(&[e1, e2]);
                    let d = self.t.implies(here, both);
                    enc.defs.push(d);
                    if let Some(u) = results.get(&(t, s, o + usize::MAX / 4)) {
                        let ob = self.t.and(&[here, oob]);
                        let e = self.t.eq(*u, ob);
                        enc.defs.push(e);
                    }
                }
            }
        }
    }

    /// C-OPS results for thread `t` over members `mem` (u -> (member, args)):
    /// (value, poison, out-of-range shuffle).
    // The thread index `u` names a thread (bit `u`, `arg(self, u, ..)`),
    // not only a position in `mem`.
    #[allow(clippy::needless_range_loop)]
    fn c_ops(
        &mut self,
        sem: &CallSem,
        callee: &str,
        t: usize,
        w: u32,
        mem: &[(TermId, Vec<V>)],
    ) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let n = mem.len();
        // Member u's argument i read as an `i{w}` (poison when absent;
        // bits_of reports a width that disagrees).
        let arg = |s: &mut Self, u: usize, i: usize, w: u32| -> (TermId, TermId) {
            match mem[u].1.get(i) {
                Some(v) => s.bits_of(v, w),
                None => {
                    let z = s.bv(w, 0);
                    (z, s.t.tru())
                }
            }
        };
        // Member u's argument i at its own width (1 when absent).
        let arg_any = |s: &mut Self, u: usize, i: usize| -> (TermId, TermId) {
            match mem[u].1.get(i) {
                Some(V::Int { bits, poison }) => (*bits, *poison),
                _ => {
                    let z = s.bv(1, 0);
                    (z, s.t.tru())
                }
            }
        };
        match sem {
            CallSem::Ballot => {
                let mut acc = self.bv(w, 0);
                let mut poison = fls;
                for (u, (is, _)) in mem.iter().enumerate() {
                    let (b, p) = arg(self, u, 0, 1);
                    let one = self.bv(1, 1);
                    let set = self.t.eq(b, one);
                    let c = self.t.and(&[*is, set]);
                    let bit = self.bv(w, if (u as u32) < w { 1u128 << u } else { 0 });
                    let z = self.bv(w, 0);
                    let add = self.t.ite(c, bit, z);
                    acc = self.t.bv_or(acc, add);
                    let pm = self.t.and(&[*is, p]);
                    poison = self.t.or(&[poison, pm]);
                }
                (acc, poison, fls)
            }
            CallSem::First => {
                let mut v = self.bv(w, 0);
                let mut p = self.t.tru();
                for u in (0..n).rev() {
                    let (b, pp) = arg(self, u, 0, w);
                    v = self.t.ite(mem[u].0, b, v);
                    p = self.t.ite(mem[u].0, pp, p);
                }
                (v, p, fls)
            }
            CallSem::Reduce(op) => {
                let ident = match op {
                    RedOp::Add | RedOp::Or | RedOp::Xor | RedOp::UMax => 0,
                    RedOp::And | RedOp::UMin => mask(w),
                    RedOp::SMin => mask(w) >> 1,
                    RedOp::SMax => 1u128 << (w - 1),
                };
                let mut acc = self.bv(w, ident);
                let mut poison = fls;
                for (u, (is, _)) in mem.iter().enumerate() {
                    let (b, p) = arg(self, u, 0, w);
                    let idt = self.bv(w, ident);
                    let x = self.t.ite(*is, b, idt);
                    acc = match op {
                        RedOp::Add => self.t.bv_add(acc, x),
                        RedOp::And => self.t.bv_and(acc, x),
                        RedOp::Or => self.t.bv_or(acc, x),
                        RedOp::Xor => self.t.bv_xor(acc, x),
                        RedOp::UMin => {
                            let c = self.t.bv_ult(x, acc);
                            self.t.ite(c, x, acc)
                        }
                        RedOp::UMax => {
                            let c = self.t.bv_ugt(x, acc);
                            self.t.ite(c, x, acc)
                        }
                        RedOp::SMin => {
                            let c = self.t.bv_slt(x, acc);
                            self.t.ite(c, x, acc)
                        }
                        RedOp::SMax => {
                            let c = self.t.bv_sgt(x, acc);
                            self.t.ite(c, x, acc)
                        }
                    };
                    let pm = self.t.and(&[*is, p]);
                    poison = self.t.or(&[poison, pm]);
                }
                (acc, poison, fls)
            }
            CallSem::Shuffle { .. } => {
                // Own id argument (index 1): the lane to read.
                let (id, idp) = arg_any(self, t, 1);
                let iw = self.t.sort(id).bv_width().unwrap_or(32);
                let mut v = self.bv(w, 0);
                let mut p = self.t.tru();
                let mut found = fls;
                for u in (0..n).rev() {
                    let ut = self.bv(iw, u as u128);
                    let is = self.t.eq(id, ut);
                    let c = self.t.and(&[is, mem[u].0]);
                    let (b, pp) = arg(self, u, 0, w);
                    v = self.t.ite(c, b, v);
                    p = self.t.ite(c, pp, p);
                    found = self.t.or(&[found, c]);
                }
                let p = self.t.or(&[p, idp]);
                let nf = self.t.not(found);
                let npid = self.t.not(idp);
                let oob = self.t.and(&[nf, npid]);
                (v, p, oob)
            }
            _ => {
                // C-OPS unknown: uninterpreted function of the set's
                // (thread id, arguments), as a membership vector.
                let nargs = mem.first().map_or(0, |m| m.1.len());
                let mut dom = Vec::new();
                let mut xs = Vec::new();
                for (u, (is, _)) in mem.iter().enumerate() {
                    dom.push(Sort::Bool);
                    xs.push(*is);
                    for i in 0..nargs {
                        let (b, _) = arg_any(self, u, i);
                        let bw_ = self.t.sort(b).bv_width().unwrap_or(32);
                        dom.push(Sort::BitVec(bw_));
                        let z = self.bv(bw_, 0);
                        xs.push(self.t.ite(*is, b, z));
                    }
                }
                let fid = self.t.func(
                    &super::uf_name(&format!("ufc.n{n}"), callee, &dom, w),
                    &dom,
                    Sort::BitVec(w),
                );
                (self.t.apply(fid, &xs), fls, fls)
            }
        }
    }

    /// D-ORDER as a rank function (only with anchors; D-INST for anchors is
    /// asserted where their keys are made). Ranks are choice variables per
    /// (thread, operation, occurrence), strictly increasing in program order
    /// and equal on converged instances.
    pub(super) fn anchor_rules(&mut self, enc: &mut Enc) {
        if !self.p.has_anchor {
            return;
        }
        let n = enc.n;
        let k = enc.k;
        let nops = enc.ops.len();
        let mut slot = vec![0usize; nops];
        let mut per_block: HashMap<usize, usize> = HashMap::new();
        for (o, &(bi, _)) in enc.ops.iter().enumerate() {
            let e = per_block.entry(bi).or_insert(0);
            slot[o] = *e;
            *e += 1;
        }
        let canonical = self.ranks == Ranks::Canonical;
        // rank_at[t][s][o]: the rank of instance (t, s, o).
        let mut rank_at: Vec<Vec<Vec<TermId>>> = Vec::new();
        for t in 0..n {
            let rows: Vec<Vec<TermId>> = if canonical {
                // j * nops + o with j the occurrence (see Ranks::Canonical).
                let scale = self.t.bv_const(RW, nops as u128 & mask(RW));
                (0..k)
                    .map(|s| {
                        (0..nops)
                            .map(|o| {
                                let occ = enc.inst[t][s][o].occ;
                                let w = self.t.sort(occ).bv_width().unwrap_or(RW);
                                let j = if w < RW {
                                    self.t.zero_ext(RW - w, occ)
                                } else {
                                    occ
                                };
                                let jn = self.t.bv_mul(j, scale);
                                let oc = self.t.bv_const(RW, o as u128 & mask(RW));
                                self.t.bv_add(jn, oc)
                            })
                            .collect()
                    })
                    .collect()
            } else {
                let mut per_op = Vec::new();
                for o in 0..nops {
                    let vs: Vec<TermId> = (0..k)
                        .map(|j| self.fresh(&format!("rank.t{t}.o{o}.j{j}"), Sort::BitVec(RW)))
                        .collect();
                    enc.choices.extend(&vs);
                    per_op.push(vs);
                }
                (0..k)
                    .map(|s| {
                        (0..nops)
                            .map(|o| select(self.t, enc.inst[t][s][o].occ, &per_op[o]))
                            .collect()
                    })
                    .collect()
            };
            // Program order: every earlier instance has a smaller rank.
            let pos: Vec<(usize, usize)> = (0..k)
                .flat_map(|s| (0..nops).map(move |o| (s, o)))
                .filter(|(s, o)| {
                    self.t
                        .literal(enc.inst[t][*s][*o].here)
                        .and_then(|v| v.as_bool())
                        != Some(false)
                })
                .collect();
            for (i, &(s1, o1)) in pos.iter().enumerate() {
                for &(s2, o2) in &pos[i + 1..] {
                    // Canonical ranks of one operation grow with its
                    // occurrence count: program order holds by construction.
                    if canonical && o1 == o2 {
                        continue;
                    }
                    let before = s1 < s2 || (s1 == s2 && slot[o1] < slot[o2]);
                    let (a, b) = if before {
                        ((s1, o1), (s2, o2))
                    } else {
                        ((s2, o2), (s1, o1))
                    };
                    if s1 == s2 && enc.ops[o1].0 != enc.ops[o2].0 {
                        continue; // different blocks at one step: never both
                    }
                    let both = self
                        .t
                        .and(&[enc.inst[t][a.0][a.1].here, enc.inst[t][b.0][b.1].here]);
                    let lt = self.t.bv_ult(rows[a.0][a.1], rows[b.0][b.1]);
                    let c = self.t.implies(both, lt);
                    enc.valid.push(c);
                }
            }
            rank_at.push(rows);
        }
        for o in 0..nops {
            for t in 0..n {
                for u in t + 1..n {
                    for s in 0..k {
                        for (c, s2, o2) in member(self.t, enc, t, s, o, u) {
                            // Canonical: equal ranks of one operation are
                            // equal occurrence counts (copies of one anchor,
                            // o2 != o, never have equal canonical ranks).
                            let e = if canonical && o2 == o {
                                self.t.eq(enc.inst[t][s][o].occ, enc.inst[u][s2][o].occ)
                            } else {
                                self.t.eq(rank_at[t][s][o], rank_at[u][s2][o2])
                            };
                            let imp = self.t.implies(c, e);
                            enc.valid.push(imp);
                        }
                    }
                }
            }
        }
    }
}
