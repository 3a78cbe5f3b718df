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
            result: None,
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
        if let Some(v) = self.vector_inst(enc, th, ii, inst) {
            return v;
        }
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
                samesign,
                pred,
                ty,
                lhs,
                rhs,
            } => self.icmp(th, *pred, *samesign, ty, lhs, rhs),
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
            InstKind::Cast {
                op,
                flags,
                from,
                to,
            } => self.cast(th, *op, flags, from, to),
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
        let name = res.map_or_else(
            || format!("freeze{ii}"),
            |r| self.p.func.value(r).name.to_string(),
        );
        match self.typed(&op.value, &op.ty, th) {
            // R-VEC-SMT: each element frozen on its own, one choice per
            // element (named `%f[k]`), as the interpreter's
            // `machine::ops::freeze`.
            V::Vec(xs) => V::Vec(
                xs.iter()
                    .enumerate()
                    .map(|(k, x)| {
                        let w = self.width_of(x).unwrap_or(1);
                        self.freeze_elem(
                            enc,
                            th,
                            format!("{name}[{k}]"),
                            &format!("i{ii}.e{k}"),
                            w,
                            x,
                        )
                    })
                    .collect(),
            ),
            v => {
                let w = width(&op.ty);
                self.freeze_elem(enc, th, name, &format!("i{ii}"), w, &v)
            }
        }
    }

    /// [`Builder::freeze`] of one `i{w}` value: its choice variable is
    /// `frz.t{t}.s{s}.{what}`, recorded under `name` for replay.
    fn freeze_elem(
        &mut self,
        enc: &mut Enc,
        th: &ThreadSt,
        name: String,
        what: &str,
        w: u32,
        v: &V,
    ) -> V {
        let (b, p) = self.bits_of(v, w);
        let (t, s) = (th.t, th.s);
        let c = self.fresh(&format!("frz.t{t}.s{s}.{what}"), Sort::BitVec(w));
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

    /// P-THREAD `phi`: the incoming value of the block the thread was in
    /// at the previous step (poison at step 0); vectors alike (R-VEC-SMT).
    fn phi(&mut self, th: &ThreadSt, bw: u32, ty: &Type, incoming: &[(Operand, BlockId)]) -> V {
        let mut v = self.poison_of(ty);
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
        let a = self.operand(lhs, w, th);
        let b = self.operand(rhs, w, th);
        self.binary_elem(th, op, flags, w, &a, &b)
    }

    /// [`Builder::binary`] on two `i{w}` values (a scalar or one element
    /// of a vector, R-VEC-SMT).
    pub(super) fn binary_elem(
        &mut self,
        th: &mut ThreadSt,
        op: BinOp,
        flags: &[String],
        w: u32,
        a: &V,
        b: &V,
    ) -> V {
        let (ab, ap) = self.bits_of(a, w);
        let (cb, cp) = self.bits_of(b, w);
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
        samesign: bool,
        ty: &Type,
        lhs: &Operand,
        rhs: &Operand,
    ) -> V {
        let w = width(ty);
        let a = self.operand(lhs, w, th);
        let b = self.operand(rhs, w, th);
        self.icmp_elem(pred, samesign, w, &a, &b)
    }

    /// [`Builder::icmp`] on two `i{w}` values; `samesign` makes it poison
    /// when the operands' signs differ (LangRef, as the interpreter's
    /// `machine::ops::icmp`).
    pub(super) fn icmp_elem(&mut self, pred: ICmpPred, samesign: bool, w: u32, a: &V, b: &V) -> V {
        let (ab, ap) = self.bits_of(a, w);
        let (cb, cp) = self.bits_of(b, w);
        let r = self.icmp_pred(pred, ab, cb);
        let one = self.bv(1, 1);
        let zero = self.bv(1, 0);
        let bits = self.t.ite(r, one, zero);
        let mut poison = vec![ap, cp];
        if samesign {
            let sa = self.t.extract(w - 1, w - 1, ab);
            let sc = self.t.extract(w - 1, w - 1, cb);
            let same = self.t.eq(sa, sc);
            poison.push(self.t.not(same));
        }
        let poison = self.t.or(&poison);
        V::Int { bits, poison }
    }

    /// P-THREAD `select`: the chosen operand, poison if the condition is
    /// (a vector condition chooses element by element, R-VEC-SMT).
    fn select(
        &mut self,
        th: &ThreadSt,
        cond: &TypedOperand,
        on_true: &TypedOperand,
        on_false: &TypedOperand,
    ) -> V {
        let c = self.typed(&cond.value, &cond.ty, th);
        let x = self.typed(&on_true.value, &on_true.ty, th);
        let y = self.typed(&on_false.value, &on_false.ty, th);
        match (&c, &x, &y) {
            (V::Vec(cs), V::Vec(xs), V::Vec(ys)) if cs.len() == xs.len() => V::Vec(
                cs.iter()
                    .zip(xs.iter().zip(ys))
                    .map(|(c, (x, y))| self.select_elem(c, x, y))
                    .collect(),
            ),
            _ => self.select_elem(&c, &x, &y),
        }
    }

    /// `select` on an `i1` condition: `x` or `y`, every element poison when
    /// the condition is.
    fn select_elem(&mut self, c: &V, x: &V, y: &V) -> V {
        let (cb, cp) = self.bits_of(c, 1);
        let one = self.bv(1, 1);
        let ct = self.t.eq(cb, one);
        let v = self.ite_v(ct, x, y);
        self.or_poison(&v, cp)
    }

    /// `v` with `p` added to its poison flag (to each element's).
    pub(super) fn or_poison(&mut self, v: &V, p: TermId) -> V {
        match v {
            V::Int { bits, poison } => V::Int {
                bits: *bits,
                poison: self.t.or(&[*poison, p]),
            },
            V::Vec(xs) => V::Vec(xs.iter().map(|x| self.or_poison(x, p)).collect()),
            other => other.clone(),
        }
    }

    /// P-THREAD integer casts (`trunc`, `zext`, `sext`; prepare admits no
    /// other).
    fn cast(
        &mut self,
        th: &ThreadSt,
        op: CastOp,
        flags: &[String],
        from: &TypedOperand,
        to: &Type,
    ) -> V {
        let (wf, wt) = (width(&from.ty), width(to));
        let a = self.operand(&from.value, wf, th);
        self.cast_elem(op, flags, wf, wt, &a)
    }

    /// [`Builder::cast`] of one `i{wf}` value to `i{wt}`, with the flags'
    /// poison (LangRef, the interpreter's `machine::ops::cast`): `trunc
    /// nuw` when a dropped bit is set, `trunc nsw` when the value does not
    /// fit signed, `zext nneg` of a negative value.
    pub(super) fn cast_elem(&mut self, op: CastOp, flags: &[String], wf: u32, wt: u32, a: &V) -> V {
        let has = |f: &str| flags.iter().any(|x| x == f);
        let (ab, ap) = self.bits_of(a, wf);
        let mut poison = vec![ap];
        let bits = match op {
            CastOp::Trunc if wt <= wf => {
                let r = self.t.extract(wt - 1, 0, ab);
                if has("nuw") {
                    let back = self.t.zero_ext(wf - wt, r);
                    let same = self.t.eq(back, ab);
                    poison.push(self.t.not(same));
                }
                if has("nsw") {
                    let back = self.t.sign_ext(wf - wt, r);
                    let same = self.t.eq(back, ab);
                    poison.push(self.t.not(same));
                }
                r
            }
            CastOp::ZExt if wt >= wf => {
                if has("nneg") {
                    let zero = self.bv(wf, 0);
                    poison.push(self.t.bv_slt(ab, zero));
                }
                self.t.zero_ext(wt - wf, ab)
            }
            CastOp::SExt if wt >= wf => self.t.sign_ext(wt - wf, ab),
            _ => ab,
        };
        let poison = self.t.or(&poison);
        V::Int { bits, poison }
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
                // `exact`: poison when the division leaves a remainder.
                let p = if has("exact") && matches!(op, BinOp::UDiv | BinOp::SDiv) {
                    let rem = if op == BinOp::UDiv {
                        self.t.bv_urem(a, b)
                    } else {
                        self.t.bv_srem(a, b)
                    };
                    let z = self.t.eq(rem, zero);
                    self.t.not(z)
                } else {
                    fls
                };
                (r, p, Some(u))
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                let r = match op {
                    BinOp::Shl => self.t.bv_shl(a, b),
                    BinOp::LShr => self.t.bv_lshr(a, b),
                    _ => self.t.bv_ashr(a, b),
                };
                let ww = self.bv(w, w as u128);
                let mut p = vec![self.t.bv_uge(b, ww)];
                // The flags' poison (LangRef): `shl nuw`/`nsw` when shifting
                // back (logically/arithmetically) does not give `a`;
                // `lshr`/`ashr exact` when a shifted-out bit is set.
                let lost = |s: &mut Self, back: TermId| {
                    let same = s.t.eq(back, a);
                    s.t.not(same)
                };
                if op == BinOp::Shl && has("nuw") {
                    let back = self.t.bv_lshr(r, b);
                    p.push(lost(self, back));
                }
                if op == BinOp::Shl && has("nsw") {
                    let back = self.t.bv_ashr(r, b);
                    p.push(lost(self, back));
                }
                if op != BinOp::Shl && has("exact") {
                    let back = self.t.bv_shl(r, b);
                    p.push(lost(self, back));
                }
                (r, self.t.or(&p), None)
            }
            BinOp::And => (self.t.bv_and(a, b), fls, None),
            BinOp::Or => {
                // `disjoint`: poison when the operands share a set bit.
                let p = if has("disjoint") {
                    let both = self.t.bv_and(a, b);
                    let z = self.t.eq(both, zero);
                    self.t.not(z)
                } else {
                    fls
                };
                (self.t.bv_or(a, b), p, None)
            }
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
