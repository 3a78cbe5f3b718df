//! C-OPS: what a convergent operation computes over its communicating set,
//! one function per operation of the intrinsic table's `Op` that the
//! encoder models. Each takes the members (per thread u: whether u is in
//! the set, and u's arguments) and gives (value, poison, out of range).
//! The interpreter's counterpart is `semantics::machine::collective`.

use super::{mask, uf_name, Builder, V};
use crate::refine::prog::{CallSem, RedOp};
use crate::vc::{Sort, TermId};

/// Per thread u: (u is a member, u's argument values).
pub(super) type Members = [(TermId, Vec<V>)];

impl Builder<'_, '_> {
    /// C-OPS results for thread `t` over members `mem`, with result width
    /// `w`: (value, poison, out-of-range shuffle).
    pub(super) fn c_ops(
        &mut self,
        sem: &CallSem,
        callee: &str,
        t: usize,
        w: u32,
        mem: &Members,
    ) -> (TermId, TermId, TermId) {
        match sem {
            CallSem::Ballot => self.op_ballot(w, mem),
            CallSem::First => self.op_first(w, mem),
            CallSem::Reduce(op) => self.op_reduce(*op, w, mem),
            CallSem::Shuffle { .. } => self.op_shuffle(t, w, mem),
            _ => self.op_uninterpreted(callee, w, mem),
        }
    }

    /// Member u's argument i read as an `i{w}` (poison when absent;
    /// `bits_of` reports a width that disagrees).
    fn member_arg(&mut self, mem: &Members, u: usize, i: usize, w: u32) -> (TermId, TermId) {
        match mem[u].1.get(i) {
            Some(v) => self.bits_of(v, w),
            None => {
                let z = self.bv(w, 0);
                (z, self.t.tru())
            }
        }
    }

    /// Member u's argument i at its own width (1 when absent).
    fn member_arg_any(&mut self, mem: &Members, u: usize, i: usize) -> (TermId, TermId) {
        match mem[u].1.get(i) {
            Some(V::Int { bits, poison }) => (*bits, *poison),
            _ => {
                let z = self.bv(1, 0);
                (z, self.t.tru())
            }
        }
    }

    /// C-OPS ballot: bit u is set iff thread u is a member whose `i1`
    /// argument is true; poison if a member's argument is.
    fn op_ballot(&mut self, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let mut acc = self.bv(w, 0);
        let mut poison = fls;
        for (u, (is, _)) in mem.iter().enumerate() {
            let (b, p) = self.member_arg(mem, u, 0, 1);
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

    /// C-OPS read-first-lane / broadcast-first: the argument of the member
    /// with the lowest thread index.
    fn op_first(&mut self, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let mut v = self.bv(w, 0);
        let mut p = self.t.tru();
        for u in (0..mem.len()).rev() {
            let (b, pp) = self.member_arg(mem, u, 0, w);
            v = self.t.ite(mem[u].0, b, v);
            p = self.t.ite(mem[u].0, pp, p);
        }
        (v, p, fls)
    }

    /// C-OPS reductions over the members' arguments (non-members count as
    /// the identity); poison if a member's argument is.
    fn op_reduce(&mut self, op: RedOp, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let ident = match op {
            RedOp::Add | RedOp::Or | RedOp::Xor | RedOp::UMax => 0,
            RedOp::And | RedOp::UMin => mask(w),
            RedOp::SMin => mask(w) >> 1,
            RedOp::SMax => 1u128 << (w - 1),
        };
        let mut acc = self.bv(w, ident);
        let mut poison = fls;
        for (u, (is, _)) in mem.iter().enumerate() {
            let (b, p) = self.member_arg(mem, u, 0, w);
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

    /// C-OPS shuffle `@subgroupShuffle(data, id)`: the data of the member
    /// whose thread index is this thread's `id` (argument 1); a lane
    /// outside the set gives poison, and counts as out of range (UB when
    /// the call's row says so) unless `id` itself is poison.
    fn op_shuffle(&mut self, t: usize, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let (id, idp) = self.member_arg_any(mem, t, 1);
        let iw = self.t.sort(id).bv_width().unwrap_or(32);
        let mut v = self.bv(w, 0);
        let mut p = self.t.tru();
        let mut found = fls;
        for u in (0..mem.len()).rev() {
            let ut = self.bv(iw, u as u128);
            let is = self.t.eq(id, ut);
            let c = self.t.and(&[is, mem[u].0]);
            let (b, pp) = self.member_arg(mem, u, 0, w);
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

    /// C-OPS of an unknown convergent function (or a table row without a
    /// model): an uninterpreted function of the set's membership vector
    /// and the members' arguments.
    fn op_uninterpreted(
        &mut self,
        callee: &str,
        w: u32,
        mem: &Members,
    ) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let n = mem.len();
        let nargs = mem.first().map_or(0, |m| m.1.len());
        let mut dom = Vec::new();
        let mut xs = Vec::new();
        for (u, (is, _)) in mem.iter().enumerate() {
            dom.push(Sort::Bool);
            xs.push(*is);
            for i in 0..nargs {
                let (b, _) = self.member_arg_any(mem, u, i);
                let bw_ = self.t.sort(b).bv_width().unwrap_or(32);
                dom.push(Sort::BitVec(bw_));
                let z = self.bv(bw_, 0);
                xs.push(self.t.ite(*is, b, z));
            }
        }
        let fid = self.t.func(
            &uf_name(&format!("ufc.n{n}"), callee, &dom, w),
            &dom,
            Sort::BitVec(w),
        );
        (self.t.apply(fid, &xs), fls, fls)
    }
}
