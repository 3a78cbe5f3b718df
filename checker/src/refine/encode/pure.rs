//! P-THREAD: the pure integer intrinsics of the encoding (`llvm.ctpop`,
//! `llvm.umin`/`umax`/`smin`/`smax`), with the interpreter's meaning.

use super::{Builder, V};
use crate::refine::prog::PureOp;
use crate::vc::TermId;

impl Builder<'_, '_> {
    /// P-THREAD: `llvm.ctpop` and the integer min/max intrinsics; poison
    /// in, poison out.
    pub(super) fn pure_intrinsic(&mut self, op: PureOp, w: u32, args: &[V]) -> V {
        let (a, pa) = match args.first() {
            Some(v) => self.bits_of(v, w),
            None => return self.poison(w),
        };
        let (b, pb) = match args.get(1) {
            Some(v) => self.bits_of(v, w),
            None => (a, pa),
        };
        let bits = match op {
            PureOp::Ctpop if w >= 8 && w.is_power_of_two() && w <= 64 => {
                // SWAR population count (cheap to bit-blast, unlike a sum
                // of w extended bits).
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
                self.t.bv_and(x, keep)
            }
            PureOp::Ctpop => {
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
        };
        let poison = if op == PureOp::Ctpop {
            pa
        } else {
            self.t.or(&[pa, pb])
        };
        V::Int { bits, poison }
    }
}
