//! C-OPS: what a convergent operation computes over its communicating set,
//! one function per operation of the intrinsic table's `Op` that the
//! encoder models. Each takes the members (per thread u: whether u is in
//! the set, and u's arguments) and gives (value, poison, out of range).
//! The interpreter's counterpart is `semantics::machine::collective`.

use semantics::intrinsics::{Op, RedOp, Scan, Shfl, Vote};

use super::{mask, uf_name, Builder, V};
use crate::refine::prog::CallSem;
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
        let CallSem::Set { op, .. } = sem else {
            return self.op_uninterpreted(callee, w, mem);
        };
        match *op {
            Op::Ballot { arg } => self.op_ballot(arg as usize, w, mem),
            Op::Vote { vote, arg } => self.op_vote(vote, arg as usize, w, mem),
            Op::First { arg } => self.op_first(arg as usize, w, mem),
            Op::Reduce { op, arg, scan, .. } => self.op_reduce(op, (arg as usize, scan), t, w, mem),
            Op::CountBits { arg } => self.op_count_bits(arg as usize, w, mem),
            Op::IsFirst => self.op_is_first(t, w, mem),
            Op::Shuffle {
                val,
                idx,
                mode: Shfl::Idx,
                ..
            } => self.op_shuffle(t, (val as usize, idx as usize), w, mem),
            // The interpreter reads a broadcast's lane as an index shuffle
            // does (`machine::collective`, `read_lane`).
            Op::Broadcast { val, lane } => {
                self.op_shuffle(t, (val as usize, lane as usize), w, mem)
            }
            Op::Shuffle { val, idx, mode, .. } => {
                self.op_shuffle_relative(t, mode, (val as usize, idx as usize), w, mem)
            }
            Op::MatchAny { arg } => self.op_match_any(t, arg as usize, w, mem),
            Op::ActiveMask => self.op_active_mask(w, mem),
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

    /// Whether a member's argument (at its own width) is true: nonzero,
    /// as the interpreter's `truth`.
    fn nonzero(&mut self, b: TermId) -> TermId {
        let bw = self.t.sort(b).bv_width().unwrap_or(1);
        let z = self.bv(bw, 0);
        let zero = self.t.eq(b, z);
        self.t.not(zero)
    }

    /// Bit `u` of an `i{w}` mask when `c` holds (lanes past `w` are
    /// dropped, as the interpreter's mask of `w` bits).
    fn lane_bit(&mut self, w: u32, u: usize, c: TermId) -> TermId {
        let bit = self.bv(w, if (u as u32) < w { 1u128 << u } else { 0 });
        let z = self.bv(w, 0);
        self.t.ite(c, bit, z)
    }

    /// Operand `val` (as an `i{w}`) of the member whose lane is `lane` (a
    /// term of width `lw`): (value, poison, whether such a member exists);
    /// poison when none does.
    fn read_lane(
        &mut self,
        mem: &Members,
        (lane, lw): (TermId, u32),
        val: usize,
        w: u32,
    ) -> (TermId, TermId, TermId) {
        let mut v = self.bv(w, 0);
        let mut p = self.t.tru();
        let mut found = self.t.fls();
        for u in (0..mem.len()).rev() {
            let ut = self.bv(lw, u as u128);
            let is = self.t.eq(lane, ut);
            let c = self.t.and(&[is, mem[u].0]);
            let (b, pp) = self.member_arg(mem, u, val, w);
            v = self.t.ite(c, b, v);
            p = self.t.ite(c, pp, p);
            found = self.t.or(&[found, c]);
        }
        (v, p, found)
    }

    /// C-OPS ballot: bit u is set iff thread u is a member whose `i1`
    /// argument is true; poison if a member's argument is.
    fn op_ballot(&mut self, a: usize, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let mut acc = self.bv(w, 0);
        let mut poison = fls;
        for (u, (is, _)) in mem.iter().enumerate() {
            let (b, p) = self.member_arg(mem, u, a, 1);
            let one = self.bv(1, 1);
            let set = self.t.eq(b, one);
            let c = self.t.and(&[*is, set]);
            let add = self.lane_bit(w, u, c);
            acc = self.t.bv_or(acc, add);
            let pm = self.t.and(&[*is, p]);
            poison = self.t.or(&[poison, pm]);
        }
        (acc, poison, fls)
    }

    /// C-OPS read-first-lane / broadcast-first: the argument of the member
    /// with the lowest thread index.
    fn op_first(&mut self, a: usize, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let mut v = self.bv(w, 0);
        let mut p = self.t.tru();
        for u in (0..mem.len()).rev() {
            let (b, pp) = self.member_arg(mem, u, a, w);
            v = self.t.ite(mem[u].0, b, v);
            p = self.t.ite(mem[u].0, pp, p);
        }
        (v, p, fls)
    }

    /// C-OPS reductions over the members' arguments (non-members count as
    /// the identity); poison if a member's argument is. A scan reduces
    /// over the members of lanes up to this thread's (inclusive) or below
    /// it (exclusive; the identity when there is none), lanes being thread
    /// indices (one subgroup per launch), as `machine::collective`.
    fn op_reduce(
        &mut self,
        op: RedOp,
        (a, scan): (usize, Scan),
        t: usize,
        w: u32,
        mem: &Members,
    ) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let ident = match op {
            RedOp::Add | RedOp::Or | RedOp::Xor | RedOp::UMax => 0,
            RedOp::And | RedOp::UMin => mask(w),
            RedOp::Min => mask(w) >> 1,
            RedOp::Max => 1u128 << (w - 1),
        };
        let mut acc = self.bv(w, ident);
        let mut poison = fls;
        for (u, (is, _)) in mem.iter().enumerate() {
            let (b, p) = self.member_arg(mem, u, a, w);
            let idt = self.bv(w, ident);
            let counted = match scan {
                Scan::None => true,
                Scan::Inclusive => u <= t,
                Scan::Exclusive => u < t,
            };
            let x = if counted {
                self.t.ite(*is, b, idt)
            } else {
                idt
            };
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
                RedOp::Min => {
                    let c = self.t.bv_slt(x, acc);
                    self.t.ite(c, x, acc)
                }
                RedOp::Max => {
                    let c = self.t.bv_sgt(x, acc);
                    self.t.ite(c, x, acc)
                }
            };
            let pm = self.t.and(&[*is, p]);
            poison = self.t.or(&[poison, pm]);
        }
        (acc, poison, fls)
    }

    /// C-OPS count of the members whose argument is nonzero (HLSL/SPIR-V
    /// `WaveActiveCountBits`); poison if a member's argument is.
    fn op_count_bits(&mut self, a: usize, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let mut acc = self.bv(w, 0);
        let mut poison = fls;
        for (u, (is, _)) in mem.iter().enumerate() {
            let (b, p) = self.member_arg_any(mem, u, a);
            let nz = self.nonzero(b);
            let c = self.t.and(&[*is, nz]);
            let one = self.bv(w, 1);
            let zw = self.bv(w, 0);
            let inc = self.t.ite(c, one, zw);
            acc = self.t.bv_add(acc, inc);
            let pm = self.t.and(&[*is, p]);
            poison = self.t.or(&[poison, pm]);
        }
        (acc, poison, fls)
    }

    /// C-OPS `IsFirst`: whether this thread is the member of the lowest
    /// lane (lanes are thread indices); never poison.
    fn op_is_first(&mut self, t: usize, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let below: Vec<TermId> = mem[..t.min(mem.len())].iter().map(|(is, _)| *is).collect();
        let any = self.t.or(&below);
        let one = self.bv(w, 1);
        let z = self.bv(w, 0);
        (self.t.ite(any, z, one), fls, fls)
    }

    /// C-OPS shuffle by index (`@subgroupShuffle(data, id)`,
    /// `shfl.sync.idx(mask, data, id, clamp)`): operand `val` of the member
    /// whose lane is this thread's operand `idx`; a lane outside the set
    /// gives poison, and counts as out of range (UB when the call's row
    /// says so) unless `idx` itself is poison.
    fn op_shuffle(
        &mut self,
        t: usize,
        (val, idx): (usize, usize),
        w: u32,
        mem: &Members,
    ) -> (TermId, TermId, TermId) {
        let (id, idp) = self.member_arg_any(mem, t, idx);
        let iw = self.t.sort(id).bv_width().unwrap_or(32);
        let (v, p, found) = self.read_lane(mem, (id, iw), val, w);
        let p = self.t.or(&[p, idp]);
        let nf = self.t.not(found);
        let npid = self.t.not(idp);
        let oob = self.t.and(&[nf, npid]);
        (v, p, oob)
    }

    /// C-OPS shuffles relative to the thread's lane (`shfl.sync.up`,
    /// `.down`, `.bfly`): lane `me - idx`, `me + idx`, `me ^ idx`; a lane
    /// below 0 or past the subgroup (the launch's threads) gives the
    /// thread's own `val`, as PTX's full clamp; a lane inside the subgroup
    /// but outside the set is out of range, as for [`Builder::op_shuffle`].
    /// Lanes are computed 8 bits wider than `idx`, so no sum wraps.
    fn op_shuffle_relative(
        &mut self,
        t: usize,
        mode: Shfl,
        (val, idx): (usize, usize),
        w: u32,
        mem: &Members,
    ) -> (TermId, TermId, TermId) {
        let (id, idp) = self.member_arg_any(mem, t, idx);
        let ew = self.t.sort(id).bv_width().unwrap_or(32) + 8;
        let d = self.t.zero_ext(8, id);
        let me = self.bv(ew, t as u128);
        let size = self.bv(ew, mem.len() as u128);
        let (want, inside) = match mode {
            Shfl::Up => (self.t.bv_sub(me, d), self.t.bv_uge(me, d)),
            Shfl::Down => {
                let s = self.t.bv_add(me, d);
                (s, self.t.bv_ult(s, size))
            }
            Shfl::Bfly | Shfl::Idx => {
                let x = self.t.bv_xor(me, d);
                (x, self.t.bv_ult(x, size))
            }
        };
        let (v, p, found) = self.read_lane(mem, (want, ew), val, w);
        let (own, ownp) = self.member_arg(mem, t, val, w);
        let v = self.t.ite(inside, v, own);
        let p = self.t.ite(inside, p, ownp);
        let p = self.t.or(&[p, idp]);
        let nf = self.t.not(found);
        let npid = self.t.not(idp);
        let oob = self.t.and(&[inside, nf, npid]);
        (v, p, oob)
    }

    /// C-OPS votes (`vote.all`, `.any`, `.uni`, with or without `.sync`):
    /// whether the `i1` operand `a` is true in every member, in some
    /// member, or the same in every member; poison if a member's is.
    fn op_vote(&mut self, vote: Vote, a: usize, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let mut poison = fls;
        let mut bits = Vec::new();
        // The argument at its own width (`i1`, or OpenCL's `int`): nonzero
        // is true, as the interpreter's `truth`.
        let mut set_of = Vec::new();
        for (u, (is, _)) in mem.iter().enumerate() {
            let (b, p) = self.member_arg_any(mem, u, a);
            let pm = self.t.and(&[*is, p]);
            poison = self.t.or(&[poison, pm]);
            set_of.push(self.nonzero(b));
            bits.push(b);
        }
        let holds = match vote {
            Vote::All | Vote::Any => {
                let mut acc = if vote == Vote::All { self.t.tru() } else { fls };
                for (u, (is, _)) in mem.iter().enumerate() {
                    let set = set_of[u];
                    acc = if vote == Vote::All {
                        let out = self.t.not(*is);
                        let ok = self.t.or(&[out, set]);
                        self.t.and(&[acc, ok])
                    } else {
                        let c = self.t.and(&[*is, set]);
                        self.t.or(&[acc, c])
                    };
                }
                acc
            }
            Vote::Uni => {
                let mut acc = self.t.tru();
                for u in 0..mem.len() {
                    for v in u + 1..mem.len() {
                        let both = self.t.and(&[mem[u].0, mem[v].0]);
                        let e = self.t.eq(bits[u], bits[v]);
                        let ok = self.t.implies(both, e);
                        acc = self.t.and(&[acc, ok]);
                    }
                }
                acc
            }
        };
        let yes = self.bv(w, 1);
        let no = self.bv(w, 0);
        (self.t.ite(holds, yes, no), poison, fls)
    }

    /// C-OPS `match.any.sync`: the mask of the lanes of the members whose
    /// operand `a` equals this thread's (a member whose operand is poison
    /// equals none); poison if this thread's is.
    fn op_match_any(
        &mut self,
        t: usize,
        a: usize,
        w: u32,
        mem: &Members,
    ) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let (mine, mp) = self.member_arg_any(mem, t, a);
        let aw = self.t.sort(mine).bv_width().unwrap_or(1);
        let mut acc = self.bv(w, 0);
        for (u, (is, _)) in mem.iter().enumerate() {
            let (b, p) = self.member_arg(mem, u, a, aw);
            let e = self.t.eq(b, mine);
            let np = self.t.not(p);
            let c = self.t.and(&[*is, np, e]);
            let add = self.lane_bit(w, u, c);
            acc = self.t.bv_or(acc, add);
        }
        (acc, mp, fls)
    }

    /// C-OPS `activemask`: the mask of the members' lanes.
    fn op_active_mask(&mut self, w: u32, mem: &Members) -> (TermId, TermId, TermId) {
        let fls = self.t.fls();
        let mut acc = self.bv(w, 0);
        for (u, (is, _)) in mem.iter().enumerate() {
            let add = self.lane_bit(w, u, *is);
            acc = self.t.bv_or(acc, add);
        }
        (acc, fls, fls)
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
