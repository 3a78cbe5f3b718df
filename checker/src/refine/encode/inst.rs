//! P-THREAD: one function per instruction kind other than calls (those are
//! in [`super::calls`]): each reads its operands in the current block
//! visit and returns its value (bits and a poison flag), adding UB to the
//! visit where the instruction has some. The interpreter's counterpart is
//! `semantics::machine::step`.

use semantics::ir::float::FloatTy;
use semantics::ir::{
    BinOp, BlockId, CastOp, ICmpPred, Inst as IrInst, InstKind, Operand, Type, TypedOperand,
};

use super::thread::ThreadSt;
use super::{atomic_event_name, mask, width, Builder, Enc, Ev, CW, V};
use crate::vc::{Sort, TermId};

impl Builder<'_, '_> {
    /// R-OBS: an external event of the current visit (an unknown call or an
    /// `atomicrmw`), appended in program order; its ordinal among the
    /// thread's events.
    pub(super) fn event(&mut self, th: &mut ThreadSt, callee: String, args: Vec<V>) -> TermId {
        let i = self.cw(th.visit.ext_i);
        th.visit.ext_i += 1;
        let ord = self.t.bv_add(th.ext_cnt, i);
        th.ext.push(Ev {
            here: th.visit.at,
            ord,
            callee,
            args,
        });
        ord
    }

    /// One instruction of the current visit: its value (None for an
    /// instruction that defines nothing the encoding tracks).
    pub(super) fn inst(
        &mut self,
        enc: &mut Enc,
        th: &mut ThreadSt,
        ii: usize,
        inst: &IrInst,
    ) -> Option<V> {
        Some(match &inst.kind {
            InstKind::AtomicRmw { value, .. } => return self.atomicrmw(th, ii, value),
            InstKind::Binary {
                op,
                flags,
                ty,
                lhs,
                rhs,
            } if FloatTy::of(ty).is_some() => self.fbinary(th, *op, flags, ty, lhs, rhs),
            InstKind::FNeg { flags, ty, value } => self.fneg(th, flags, ty, value),
            InstKind::FCmp {
                flags,
                pred,
                ty,
                lhs,
                rhs,
            } => self.fcmp(th, &pred.0, flags, ty, lhs, rhs),
            InstKind::Cast {
                op,
                flags,
                from,
                to,
            } if FloatTy::of(&from.ty).is_some() || FloatTy::of(to).is_some() => {
                self.fcast(th, *op, flags, from, to)
            }
            InstKind::Phi { ty, incoming, .. } => self.phi(th, enc.bw, ty, incoming),
            InstKind::Binary {
                op,
                flags,
                ty,
                lhs,
                rhs,
            } => self.binary(th, *op, flags, ty, lhs, rhs),
            InstKind::ICmp {
                pred,
                ty: Type::Ptr(_),
                lhs,
                rhs,
                ..
            } => self.ptr_icmp(th, *pred, lhs, rhs),
            InstKind::ICmp {
                pred, ty, lhs, rhs, ..
            } => self.icmp(th, *pred, ty, lhs, rhs),
            InstKind::Load { ty, ptr, .. } => self.load(th, ty, ptr),
            InstKind::Store { value, ptr, .. } => {
                self.store(th, value, ptr);
                return None;
            }
            InstKind::Alloca { .. } => self.alloca(ii),
            InstKind::Gep {
                flags,
                source_ty,
                base,
                indices,
            } => self.gep(th, flags, source_ty, base, indices),
            InstKind::Cast {
                op: CastOp::AddrSpaceCast | CastOp::BitCast,
                from,
                ..
            } => self.operand(&from.value, super::PW, th),
            InstKind::Select {
                cond,
                on_true,
                on_false,
                ..
            } => self.select(th, cond, on_true, on_false),
            InstKind::Cast { op, from, to, .. } => self.cast(th, *op, from, to),
            InstKind::Call(call) => self.call(enc, th, ii, call, inst.result),
            InstKind::Freeze(op) => self.freeze(enc, th, ii, op, inst.result),
            _ => V::Void,
        })
    }

    /// Rule R-FREEZE-SMT (LangRef `freeze`, the interpreter's
    /// `machine::step`): a non-poison operand passes through; a poison one
    /// becomes an arbitrary but fixed value of this dynamic instance, a
    /// fresh choice variable per (thread, step) (in the target, part of
    /// the execution the solver proposes; in the source, a choice the
    /// CEGIS check searches, existential). Under a bounded input domain
    /// the choice ranges over it, as the interpreter's does.
    fn freeze(
        &mut self,
        enc: &mut Enc,
        th: &ThreadSt,
        ii: usize,
        op: &TypedOperand,
        res: Option<semantics::ir::ValueId>,
    ) -> V {
        let w = width(&op.ty);
        let v = self.operand(&op.value, w, th);
        let (b, p) = self.bits_of(&v, w);
        let (t, s) = (th.t, th.s);
        let c = self.fresh(&format!("frz.t{t}.s{s}.i{ii}"), Sort::BitVec(w));
        enc.choices.push(c);
        if let Some(dom) = self.launch.freeze_domain.clone() {
            let vals: Vec<i128> = if w == 1 { vec![0, 1] } else { dom };
            let alts: Vec<TermId> = vals
                .iter()
                .map(|x| {
                    let k = self.bv(w, *x as u128);
                    self.t.eq(c, k)
                })
                .collect();
            let any = self.t.or(&alts);
            enc.valid.push(any);
        }
        let name = res.map_or_else(
            || format!("freeze{ii}"),
            |r| self.p.func.value(r).name.to_string(),
        );
        enc.freeze.push(super::Frozen {
            name,
            t,
            s,
            var: c,
            bits: b,
        });
        let bits = self.t.ite(p, c, b);
        self.int(bits)
    }

    /// Memory abstraction (prog::AtomicInfo): an `atomicrmw` is an observed
    /// event (R-OBS) whose result is an environment input (P-INPUT), a
    /// function of (thread, event ordinal) shared with the other program of
    /// the pair.
    fn atomicrmw(&mut self, th: &mut ThreadSt, ii: usize, value: &TypedOperand) -> Option<V> {
        let ai = self.p.atomic(th.visit.bi, ii).cloned()?;
        let w = width(&value.ty);
        let x = self.operand(&value.value, w, th);
        let ord = self.event(th, atomic_event_name(&ai), vec![x]);
        let fid = self.t.func(
            &format!("atomic.{}.i{w}", ai.global),
            &[Sort::BitVec(32), Sort::BitVec(CW)],
            Sort::BitVec(w),
        );
        let tid = self.launch.tid(self.t, th.t, 32);
        let bits = self.t.apply(fid, &[tid, ord]);
        Some(self.int(bits))
    }

    /// Bits and poison of two `i{w}` operands, in order.
    fn two_operands(
        &mut self,
        th: &ThreadSt,
        w: u32,
        lhs: &Operand,
        rhs: &Operand,
    ) -> ((TermId, TermId), (TermId, TermId)) {
        let a = self.operand(lhs, w, th);
        let c = self.operand(rhs, w, th);
        (self.bits_of(&a, w), self.bits_of(&c, w))
    }

    /// P-THREAD `phi`: the incoming value of the block the thread was in
    /// at the previous step (poison at step 0).
    fn phi(&mut self, th: &ThreadSt, bw: u32, ty: &Type, incoming: &[(Operand, BlockId)]) -> V {
        let w = width(ty);
        let mut v = self.poison(w);
        if th.s > 0 {
            for (op, pred) in incoming {
                let ov = self.typed_before(op, ty, th);
                let pt = self.bv(bw, pred.0 as u128);
                let c = self.t.eq(th.blk[th.s - 1], pt);
                v = self.ite_v(c, &ov, &v);
            }
        }
        v
    }

    /// P-THREAD integer binary operators: poison in, poison out; division
    /// UB (divisor zero or poison, signed overflow) goes to the visit.
    fn binary(
        &mut self,
        th: &mut ThreadSt,
        op: BinOp,
        flags: &[String],
        ty: &Type,
        lhs: &Operand,
        rhs: &Operand,
    ) -> V {
        let w = width(ty);
        let ((ab, ap), (cb, cp)) = self.two_operands(th, w, lhs, rhs);
        let (r, extra_poison, extra_ub) = self.binop(op, flags, w, ab, cb);
        let poison = self.t.or(&[ap, cp, extra_poison]);
        if let Some(u) = extra_ub {
            let u = self.t.or(&[u, cp]);
            th.visit.ub = self.t.or(&[th.visit.ub, u]);
        }
        V::Int { bits: r, poison }
    }

    /// P-THREAD `icmp`: an `i1`, poison if an operand is.
    fn icmp(
        &mut self,
        th: &ThreadSt,
        pred: ICmpPred,
        ty: &Type,
        lhs: &Operand,
        rhs: &Operand,
    ) -> V {
        let w = width(ty);
        let ((ab, ap), (cb, cp)) = self.two_operands(th, w, lhs, rhs);
        let r = self.icmp_pred(pred, ab, cb);
        let one = self.bv(1, 1);
        let zero = self.bv(1, 0);
        let bits = self.t.ite(r, one, zero);
        let poison = self.t.or(&[ap, cp]);
        V::Int { bits, poison }
    }

    /// P-THREAD `select`: the chosen operand, poison if the condition is.
    fn select(
        &mut self,
        th: &ThreadSt,
        cond: &TypedOperand,
        on_true: &TypedOperand,
        on_false: &TypedOperand,
    ) -> V {
        let c = self.operand(&cond.value, 1, th);
        let x = self.typed(&on_true.value, &on_true.ty, th);
        let y = self.typed(&on_false.value, &on_false.ty, th);
        let (cb, cp) = self.bits_of(&c, 1);
        let one = self.bv(1, 1);
        let ct = self.t.eq(cb, one);
        match self.ite_v(ct, &x, &y) {
            V::Int { bits, poison } => V::Int {
                bits,
                poison: self.t.or(&[poison, cp]),
            },
            other => other,
        }
    }

    /// P-THREAD integer casts (`trunc`, `zext`, `sext`; prepare admits no
    /// other).
    fn cast(&mut self, th: &ThreadSt, op: CastOp, from: &TypedOperand, to: &Type) -> V {
        let wf = width(&from.ty);
        let wt = width(to);
        let a = self.operand(&from.value, wf, th);
        let (ab, ap) = self.bits_of(&a, wf);
        let bits = match op {
            CastOp::Trunc if wt <= wf => self.t.extract(wt - 1, 0, ab),
            CastOp::ZExt if wt >= wf => self.t.zero_ext(wt - wf, ab),
            CastOp::SExt if wt >= wf => self.t.sign_ext(wt - wf, ab),
            _ => ab,
        };
        V::Int { bits, poison: ap }
    }

    /// P-THREAD integer semantics of `op` on bits `a`, `b`: result, extra
    /// poison (nsw/nuw overflow, shift too large), and UB condition
    /// (division by zero, signed division overflow).
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

    /// P-THREAD: the comparison `pred` on bits `a`, `b`.
    pub(super) fn icmp_pred(&mut self, pred: ICmpPred, a: TermId, b: TermId) -> TermId {
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
