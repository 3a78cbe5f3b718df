//! The convergence rules that give each dynamic instance of a convergent
//! operation its key: one `key_*` function per D-* rule, in the order of
//! `semantics::machine::calls::instance_key` (the interpreter's keys are
//! interned trees; here a key is a vector of bit-vector terms, and two
//! instances of converged-with operations are converged iff their keys are
//! equal, D-CW in [`super::keys_eq`]).

use rustc_hash::FxHashMap as HashMap;

use semantics::ir::{ValueDef, ValueId};

use super::thread::{LoopVisit, ThreadSt};
use super::{select, Builder, Enc, V};
use crate::refine::prog::{CallInfo, CallSem, Prepared};
use crate::vc::{Sort, TermId};

/// The static key layout of each token value (D-CTRL/D-LOOP keys), as the
/// widths of its components: an anchor's key has one component (of
/// `anchor_w` bits), a `loop`'s one more than its token's (a count),
/// `entry`'s none.
pub(super) fn key_widths(p: &Prepared, v: ValueId, depth: usize, anchor_w: u32) -> Vec<u32> {
    let ValueDef::Inst { block, index } = p.func.value(v).def else {
        return Vec::new();
    };
    match p.call(block.0, index as usize) {
        Some(c) => match c.sem {
            CallSem::Anchor => vec![anchor_w],
            CallSem::Loop if depth < 64 => {
                let mut w = c
                    .token
                    .map_or(Vec::new(), |tok| key_widths(p, tok, depth + 1, anchor_w));
                w.push(super::CW);
                w
            }
            _ => Vec::new(),
        },
        None => Vec::new(),
    }
}

impl Builder<'_, '_> {
    /// The key of the current instance of convergent op `o`, by rule;
    /// `cur_c` is the thread's count of earlier occurrences of `o`'s D-CW
    /// class, `res` the call's result (an anchor's token name).
    pub(super) fn instance_key(
        &mut self,
        enc: &mut Enc,
        th: &mut ThreadSt,
        info: &CallInfo,
        o: usize,
        cur_c: TermId,
        res: Option<ValueId>,
    ) -> Vec<TermId> {
        match &info.sem {
            CallSem::Entry => self.key_entry(),
            CallSem::Anchor => self.key_anchor(enc, th, o, cur_c, res),
            CallSem::Loop => self.key_loop(th, info.token, o),
            _ => match info.token {
                Some(tv) => self.key_ctrl(th, tv),
                None => self.key_max(th),
            },
        }
    }

    /// Rule D-ENTRY-LAUNCH: `entry` of the launched kernel; the launch is
    /// one group, so every thread's instance is converged (the empty key).
    /// (D-ENTRY-CALL does not arise: calls of defined functions are inlined
    /// before encoding, and their copies' D-CW classes are
    /// `prog::classes`.)
    fn key_entry(&mut self) -> Vec<TermId> {
        Vec::new()
    }

    /// Rule D-ANCHOR: which threads execute converged instances of an
    /// `anchor` is a choice: the j-th instance of the anchor's D-CW class in
    /// thread t gets the choice variable a[t][class][j]. Rule D-INST: the
    /// instances of one thread are never converged (the choices of one
    /// thread are distinct). D-ORDER constrains the choices
    /// ([`Builder::anchor_rules`]).
    fn key_anchor(
        &mut self,
        enc: &mut Enc,
        th: &mut ThreadSt,
        o: usize,
        cur_c: TermId,
        res: Option<ValueId>,
    ) -> Vec<TermId> {
        let c = enc.op_class[o];
        if !th.anchor_vars.contains_key(&c) {
            // One choice per possible occurrence of any copy in the class.
            let t = th.t;
            let copies = enc.class_ops[c].len();
            let vs: Vec<TermId> = (0..self.k * copies)
                .map(|j| {
                    self.fresh(
                        &format!("anchor.t{t}.o{o}.j{j}"),
                        Sort::BitVec(self.anchor_w),
                    )
                })
                .collect();
            enc.choices.extend(&vs);
            let tok = match res {
                Some(r) => self.p.func.value(r).name.to_string(),
                None => format!("op{o}"),
            };
            enc.anchor_keys.push((tok, t, vs.clone()));
            enc.anchor_vars.push(((c, t), vs.clone()));
            if vs.len() > 1 {
                let d = self.t.distinct(&vs);
                enc.valid.push(d);
            }
            th.anchor_vars.insert(c, vs);
        }
        // `cur_c` is at most the number of earlier (step, op) positions of
        // the class at which an instance can be present (the current
        // step's block may hold several copies), so the select reads only
        // that prefix of the choices: the same value wherever the instance
        // is present.
        let possible = th
            .insts
            .iter()
            .flat_map(|row| enc.class_ops[c].iter().map(move |&o2| row[o2].here))
            .filter(|h| !self.t.is_false(*h))
            .count();
        let vs = &th.anchor_vars[&c];
        let n = (possible + enc.class_ops[c].len()).min(vs.len());
        vec![select(self.t, cur_c, &vs[..n])]
    }

    /// Rule D-LOOP: a `loop` instance's key is its token's key and the
    /// number of this thread's executions of the `loop` with that token
    /// value (1 + the earlier ones), so instances are converged iff their
    /// tokens come from converged instances and this is the same iteration.
    fn key_loop(&mut self, th: &mut ThreadSt, token: Option<ValueId>, o: usize) -> Vec<TermId> {
        let tok = token.and_then(|tv| th.lookup(&tv).cloned());
        let (mut key, tok_def) = match tok {
            Some(V::Tok { key, def }) => (key, def),
            _ => (Vec::new(), self.cw(0)),
        };
        let mut cnt = self.cw(1);
        for h in th.loop_hist.iter().filter(|h| h.op == o) {
            let same = self.t.eq(h.tok_def, tok_def);
            let c = self.t.and(&[h.here, same]);
            let one = self.cw(1);
            let z = self.cw(0);
            let inc = self.t.ite(c, one, z);
            cnt = self.t.bv_add(cnt, inc);
        }
        th.loop_hist.push(LoopVisit {
            op: o,
            here: th.visit.at,
            tok_def,
        });
        key.push(cnt);
        key
    }

    /// Rule D-CTRL: a controlled operation (not `loop`) is converged iff its
    /// tokens come from converged instances: its token's key.
    fn key_ctrl(&mut self, th: &ThreadSt, token: ValueId) -> Vec<TermId> {
        match th.lookup(&token) {
            Some(V::Tok { key, .. }) => key.clone(),
            _ => Vec::new(),
        }
    }

    /// Rule D-MAX-ITER: an uncontrolled operation (`--uncontrolled
    /// maximal`, D-MAX) is keyed by the iteration counters of its block's
    /// enclosing cycles, outermost first ([`Builder::cycle_counters`]).
    /// Rule D-HIER: with several hierarchies the key is the concatenation
    /// of each hierarchy's counters, those of the hierarchies the
    /// execution's selector does not pick zeroed; all threads share the
    /// selector, so two keys are equal iff they are under the picked one.
    fn key_max(&mut self, th: &ThreadSt) -> Vec<TermId> {
        let bi = th.visit.bi;
        let hs = &self.p.hiers;
        let Some(sel) = self.hsel else {
            return hs[0].enclosing[bi]
                .iter()
                .map(|(c, _)| th.cyc_after[&(0, *c)])
                .collect();
        };
        let mut key = Vec::new();
        for (h, hier) in hs.iter().enumerate() {
            let ht = self.cw(h);
            let on = self.t.eq(sel, ht);
            let zero = self.cw(0);
            for (c, _) in &hier.enclosing[bi] {
                key.push(self.t.ite(on, th.cyc_after[&(h, *c)], zero));
            }
        }
        key
    }

    /// Rule D-MAX-ITER: per cycle of each hierarchy (D-HIER), the thread's
    /// visits of its header since it last entered the cycle, after this
    /// step's block visit (a block outside the cycle resets the count).
    pub(super) fn cycle_counters(
        &mut self,
        enc: &Enc,
        th: &ThreadSt,
    ) -> HashMap<(usize, usize), TermId> {
        let p = self.p;
        let cur_blk = th.blk[th.s];
        let mut out = HashMap::default();
        for (h, hier) in p.hiers.iter().enumerate() {
            let mut all_cycles: Vec<usize> =
                hier.enclosing.iter().flatten().map(|(c, _)| *c).collect();
            all_cycles.sort();
            all_cycles.dedup();
            for c in all_cycles {
                let old = th.cyc.get(&(h, c)).copied().unwrap_or_else(|| self.cw(0));
                let header = hier.cycles.cycle(semantics::cfg::CycleId(c)).header();
                let mut val = self.cw(0);
                for (bi, enclosing) in hier.enclosing.iter().enumerate() {
                    if enclosing.iter().any(|(cc, _)| *cc == c) {
                        let bt = self.bv(enc.bw, bi as u128);
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
                out.insert((h, c), val);
            }
        }
        out
    }
}
