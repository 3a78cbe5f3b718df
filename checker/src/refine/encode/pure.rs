//! P-THREAD: the pure integer intrinsics of the encoding (the rows of
//! `semantics::intrinsics` with `Op::Pure`), with the interpreter's meaning
//! (`semantics::machine::collective::pure_bits`, LangRef's semantics).

use semantics::intrinsics::PureOp;

use super::{Builder, V};
use crate::vc::TermId;

impl Builder<'_, '_> {
    /// P-THREAD: a pure integer intrinsic of width `w`; poison in any
    /// operand gives poison, and cttz/ctlz of 0 and abs of the minimum are
    /// poison when their `i1` flag is set. The call's types were checked
    /// (`prog::call_types`): value operands are `iw`, the flag `i1`.
    pub(super) fn pure_intrinsic(&mut self, op: PureOp, w: u32, args: &[V]) -> V {
        let values = usize::from(op.arity() - u8::from(op.has_flag()));
        let mut ops = Vec::with_capacity(values);
        let mut poisons = Vec::with_capacity(usize::from(op.arity()));
        for k in 0..values {
            let Some(v) = args.get(k) else {
                return self.poison(w);
            };
            let (b, p) = self.bits_of(v, w);
            ops.push(b);
            poisons.push(p);
        }
        let flag = if op.has_flag() {
            let Some(v) = args.get(values) else {
                return self.poison(w);
            };
            let (f, p) = self.bits_of(v, 1);
            poisons.push(p);
            let one = self.bv(1, 1);
            Some(self.t.eq(f, one))
        } else {
            None
        };
        let a = ops[0];
        let b = ops.get(1).copied().unwrap_or(a);
        let bits = match op {
            PureOp::Ctpop => self.ctpop(a, w),
            PureOp::UMin | PureOp::UMax | PureOp::SMin | PureOp::SMax => {
                let lt = match op {
                    PureOp::UMin | PureOp::UMax => self.t.bv_ult(a, b),
                    _ => self.t.bv_slt(a, b),
                };
                if matches!(op, PureOp::UMin | PureOp::SMin) {
                    self.t.ite(lt, a, b)
                } else {
                    self.t.ite(lt, b, a)
                }
            }
            PureOp::Cttz | PureOp::Ctlz => {
                // The index of the lowest (cttz) or highest (ctlz) set bit,
                // as a chain of ites from the other end; w when none is set.
                let mut acc = self.bv(w, w as u128);
                let order: Vec<u32> = if op == PureOp::Cttz {
                    (0..w).rev().collect()
                } else {
                    (0..w).collect()
                };
                for i in order {
                    let bit = self.t.extract(i, i, a);
                    let one = self.bv(1, 1);
                    let set = self.t.eq(bit, one);
                    let n = if op == PureOp::Cttz { i } else { w - 1 - i };
                    let k = self.bv(w, n as u128);
                    acc = self.t.ite(set, k, acc);
                }
                if let Some(f) = flag {
                    let zero = self.bv(w, 0);
                    let is_zero = self.t.eq(a, zero);
                    poisons.push(self.t.and(&[f, is_zero]));
                }
                acc
            }
            PureOp::Abs => {
                let zero = self.bv(w, 0);
                let neg = self.t.bv_slt(a, zero);
                let minus = self.t.bv_neg(a);
                if let Some(f) = flag {
                    let min = self.bv(w, 1u128 << (w - 1));
                    let is_min = self.t.eq(a, min);
                    poisons.push(self.t.and(&[f, is_min]));
                }
                self.t.ite(neg, minus, a)
            }
            PureOp::BitReverse => self.concat_parts(a, w, 1),
            PureOp::Bswap => self.concat_parts(a, w, 8),
            PureOp::Fshl | PureOp::Fshr => {
                // `a:b` shifted by `c mod w` in 2w bits, then the high (fshl)
                // or low (fshr) half.
                let c = ops[2];
                let wide = self.t.concat(a, b);
                let width = self.bv(w, w as u128);
                let s = self.t.bv_urem(c, width);
                let s = self.t.zero_ext(w, s);
                if op == PureOp::Fshl {
                    let x = self.t.bv_shl(wide, s);
                    self.t.extract(2 * w - 1, w, x)
                } else {
                    let x = self.t.bv_lshr(wide, s);
                    self.t.extract(w - 1, 0, x)
                }
            }
            PureOp::UAddSat => {
                let sum = self.t.bv_add(a, b);
                let over = self.t.bv_ult(sum, a);
                let max = self.bv(w, super::mask(w));
                self.t.ite(over, max, sum)
            }
            PureOp::USubSat => {
                let diff = self.t.bv_sub(a, b);
                let under = self.t.bv_ult(a, b);
                let zero = self.bv(w, 0);
                self.t.ite(under, zero, diff)
            }
            PureOp::SAddSat | PureOp::SSubSat => {
                // Overflow iff the result's sign differs from a's while b's
                // sign agrees with a's (add) or differs from it (sub).
                let r = if op == PureOp::SAddSat {
                    self.t.bv_add(a, b)
                } else {
                    self.t.bv_sub(a, b)
                };
                let sign = |s: &mut Self, x: TermId| s.t.extract(w - 1, w - 1, x);
                let (sa, sb, sr) = (sign(self, a), sign(self, b), sign(self, r));
                let same_ab = self.t.eq(sa, sb);
                let operands_allow = if op == PureOp::SAddSat {
                    same_ab
                } else {
                    self.t.not(same_ab)
                };
                let same_ar = self.t.eq(sa, sr);
                let flipped = self.t.not(same_ar);
                let over = self.t.and(&[operands_allow, flipped]);
                let zero = self.bv(w, 0);
                let a_neg = self.t.bv_slt(a, zero);
                let min = self.bv(w, 1u128 << (w - 1));
                let max = self.bv(w, super::mask(w) >> 1);
                let bound = self.t.ite(a_neg, min, max);
                self.t.ite(over, bound, r)
            }
        };
        let poison = self.t.or(&poisons);
        V::Int { bits, poison }
    }

    /// `llvm.ctpop` of a `w`-bit term.
    pub(super) fn ctpop(&mut self, a: TermId, w: u32) -> TermId {
        if w >= 8 && w.is_power_of_two() && w <= 64 {
            // SWAR population count (cheap to bit-blast, unlike a sum of w
            // extended bits).
            let rep = |byte: u128| -> u128 {
                let mut x = 0u128;
                for i in 0..(w / 8) {
                    x |= byte << (8 * i);
                }
                x
            };
            let sh = |s: &mut Self, x: TermId, n: u32| {
                let c = s.bv(w, n as u128);
                s.t.bv_lshr(x, c)
            };
            let m1 = self.bv(w, rep(0x55));
            let m2 = self.bv(w, rep(0x33));
            let m4 = self.bv(w, rep(0x0f));
            let x1 = sh(self, a, 1);
            let x1 = self.t.bv_and(x1, m1);
            let x = self.t.bv_sub(a, x1);
            let lo = self.t.bv_and(x, m2);
            let hi = sh(self, x, 2);
            let hi = self.t.bv_and(hi, m2);
            let x = self.t.bv_add(lo, hi);
            let x4 = sh(self, x, 4);
            let x = self.t.bv_add(x, x4);
            let mut x = self.t.bv_and(x, m4);
            let mut shift = 8;
            while shift < w {
                let y = sh(self, x, shift);
                x = self.t.bv_add(x, y);
                shift *= 2;
            }
            let keep = self.bv(w, 0xff);
            return self.t.bv_and(x, keep);
        }
        let mut acc = self.bv(w, 0);
        for i in 0..w {
            let bit = self.t.extract(i, i, a);
            let x = if w > 1 {
                self.t.zero_ext(w - 1, bit)
            } else {
                bit
            };
            acc = self.t.bv_add(acc, x);
        }
        acc
    }

    /// The `part`-bit pieces of `a` (w bits) in reverse order: bit reversal
    /// for 1, byte swap for 8.
    fn concat_parts(&mut self, a: TermId, w: u32, part: u32) -> TermId {
        let mut acc: Option<TermId> = None;
        // The lowest piece becomes the highest: concatenate from bit 0 up.
        for k in 0..w / part {
            let piece = self.t.extract(k * part + part - 1, k * part, a);
            acc = Some(match acc {
                None => piece,
                Some(x) => self.t.concat(x, piece),
            });
        }
        acc.unwrap_or(a)
    }
}
