//! C-OPS results over communicating sets, and D-ORDER as a rank function:
//! the cross-thread constraints of the encoding (M-AXIOM).

use rustc_hash::FxHashMap as HashMap;

use super::{mask, member, select, Builder, Enc, InstanceId, Ranks, RW, V};
use crate::vc::{Sort, TermId};

impl Builder<'_, '_> {
    /// C-OPS: defining constraints of every result over its set: the
    /// members of instance (t, s, o)'s communicating set (D-CW, [`member`])
    /// and their arguments give its value, poison flag and, for a shuffle
    /// that is UB out of range, whether it read outside the set.
    pub(super) fn define_results(&mut self, enc: &mut Enc) {
        let n = self.launch.n;
        for t in 0..n {
            for s in 0..enc.k {
                for (o, &(bi, ii)) in enc.ops.clone().iter().enumerate() {
                    let Some(vars) = self.results.get(&InstanceId { t, s, op: o }).copied() else {
                        continue;
                    };
                    let Some((r, poison)) = vars.result else {
                        if let Some(u) = vars.oob {
                            // UB-shuffle without result (cannot happen: shuffles return).
                            let f = self.t.fls();
                            let e = self.t.eq(u, f);
                            enc.defs.push(e);
                        }
                        continue;
                    };
                    let info = self.p.call(bi, ii).expect("ops are calls").clone();
                    let w = self.t.sort(r).bv_width().unwrap_or(32);
                    let (val, pois, oob) = if self.launch.free_results {
                        self.free_result(enc, &info.callee, (t, s, o), w)
                    } else {
                        let mem = self.members(enc, t, s, o);
                        self.c_ops(&info.sem, &info.callee, t, w, &mem)
                    };
                    let here = enc.inst[t][s][o].here;
                    let e1 = self.t.eq(r, val);
                    let e2 = self.t.eq(poison, pois);
                    let both = self.t.and(&[e1, e2]);
                    let d = self.t.implies(here, both);
                    enc.defs.push(d);
                    if let Some(u) = vars.oob {
                        let ob = self.t.and(&[here, oob]);
                        let e = self.t.eq(u, ob);
                        enc.defs.push(e);
                    }
                }
            }
        }
    }

    /// Theorem C-VAL's pair check ([`super::Launch::free_results`]): the
    /// result of instance (t, s, o) is an input, the same function of
    /// (thread id, the event's ordinal, its arguments, poison flags and
    /// normalised bits) in the source and the target for one callee, in
    /// place of its C-OPS value over the set (value, poison, no
    /// out-of-range read: C-VAL excludes shuffles that are UB there).
    fn free_result(
        &mut self,
        enc: &Enc,
        callee: &str,
        (t, s, o): (usize, usize, usize),
        w: u32,
    ) -> (TermId, TermId, TermId) {
        let inst = &enc.inst[t][s][o];
        let ord = inst
            .ord
            .expect("C-VAL: the pair check observes every convergent call (Observe::Sets)");
        let args = inst.args.clone();
        let mut dom = vec![Sort::BitVec(32), Sort::BitVec(super::CW)];
        let tid = self.launch.tid(self.t, t, 32);
        let mut xs = vec![tid, ord];
        for a in &args {
            if let V::Int { bits, poison } = a {
                let bw = self.t.sort(*bits).bv_width().unwrap_or(1);
                let z = self.t.bv_const(bw, 0);
                dom.push(Sort::Bool);
                xs.push(*poison);
                dom.push(Sort::BitVec(bw));
                xs.push(self.t.ite(*poison, z, *bits));
            }
        }
        let fv = self.t.func(
            &super::uf_name("cval.value", callee, &dom, w),
            &dom,
            Sort::BitVec(w),
        );
        let fp = self.t.func(
            &super::uf_name("cval.poison", callee, &dom, 1),
            &dom,
            Sort::Bool,
        );
        let fls = self.t.fls();
        (self.t.apply(fv, &xs), self.t.apply(fp, &xs), fls)
    }

    /// Rule D-CW: the communicating set of instance (t, s, o), per thread u:
    /// whether u is a member, and the arguments of u's member instance.
    pub(super) fn members(
        &mut self,
        enc: &Enc,
        t: usize,
        s: usize,
        o: usize,
    ) -> Vec<(TermId, Vec<V>)> {
        let mut mem: Vec<(TermId, Vec<V>)> = Vec::new();
        for u in 0..self.launch.n {
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
        mem
    }

    /// Rule D-ORDER: convergence-before (program order and converged-with)
    /// has no cycle, as the existence of a rank function (only with
    /// anchors; D-INST for anchors is asserted where their keys are made,
    /// [`Builder::key_anchor`]). Ranks are choice variables per (thread,
    /// operation, occurrence), strictly increasing in program order and
    /// equal on converged instances.
    pub(super) fn anchor_rules(&mut self, enc: &mut Enc) {
        if !self.p.has_anchor {
            return;
        }
        let n = enc.n;
        let k = enc.k;
        let nops = enc.ops.len();
        let mut slot = vec![0usize; nops];
        let mut per_block: HashMap<usize, usize> = HashMap::default();
        for (o, &(bi, _)) in enc.ops.iter().enumerate() {
            let e = per_block.entry(bi).or_insert(0);
            slot[o] = *e;
            *e += 1;
        }
        let canonical = self.ranks == Ranks::Canonical;
        // rank_at[t][s][o]: the rank of instance (t, s, o).
        let mut rank_at: Vec<Vec<Vec<TermId>>> = Vec::new();
        for t in 0..n {
            // present[s][o]: instance (t, s, o) can happen (its condition
            // is not the literal false).
            let present: Vec<Vec<bool>> = (0..k)
                .map(|s| {
                    (0..nops)
                        .map(|o| !self.t.is_false(enc.inst[t][s][o].here))
                        .collect()
                })
                .collect();
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
                enc.rank_vars.push(per_op.clone());
                // The occurrence count of op o at step s is at most the
                // number of earlier steps at which o can be present, so
                // the select reads only that prefix of the variables (the
                // same value wherever the instance is present; a unrolled
                // body's op is present at one step in nine, not every
                // step).
                let mut earlier = vec![0usize; nops];
                (0..k)
                    .map(|s| {
                        (0..nops)
                            .map(|o| {
                                let n = (earlier[o] + 1).min(per_op[o].len());
                                earlier[o] += usize::from(present[s][o]);
                                select(self.t, enc.inst[t][s][o].occ, &per_op[o][..n])
                            })
                            .collect()
                    })
                    .collect()
            };
            // Program order: every earlier instance has a smaller rank.
            // Strict order is transitive, so it suffices that each present
            // instance's rank exceeds that of the last present instance
            // before it (a running maximum along program order): linear in
            // the possible (step, op) positions instead of quadratic, and
            // the same constraint (an instance at step s in one block and
            // one in another block at s are never both present).
            let mut pos: Vec<(usize, usize)> = (0..k)
                .flat_map(|s| (0..nops).map(move |o| (s, o)))
                .filter(|&(s, o)| present[s][o])
                .collect();
            pos.sort_by_key(|&(s, o)| (s, slot[o]));
            let mut any = self.t.fls();
            let mut last = self.t.bv_const(RW, 0);
            for &(s, o) in &pos {
                let here = enc.inst[t][s][o].here;
                let r = rows[s][o];
                let guard = self.t.and(&[here, any]);
                let lt = self.t.bv_ult(last, r);
                let c = self.t.implies(guard, lt);
                enc.valid.push(c);
                last = self.t.ite(here, r, last);
                any = self.t.or(&[any, here]);
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
