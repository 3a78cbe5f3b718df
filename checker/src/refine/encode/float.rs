//! R-FLOAT-SMT: floating-point instructions and intrinsics (P-FLOAT,
//! P-FLOAT-NAN, P-FLOAT-FMF) with the interpreter's meaning
//! (`semantics::machine::float`). A float value is its IEEE bit pattern
//! (a bit-vector with a poison flag, like an integer); the arithmetic is
//! the term language's floating-point operators (`vc::float`), which Z3
//! decides with its floating-point theory. Bitwise operations (`fneg`,
//! `fabs`, `copysign`, `bitcast`) are bit-vector operations, so NaN
//! payloads survive them as LangRef requires.

use semantics::ir::float::{parse_literal, FloatTy};
use semantics::ir::{BinOp, CastOp, Const, Operand, Type};

use super::thread::ThreadSt;
use super::{width, Builder, V};
use crate::vc::float::{to_int_range, FpOp, RMode};
use crate::vc::{Op, TermId};

/// The `fcmp` predicates (LangRef), all 16.
const FCMP_PREDS: [&str; 16] = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
    "une", "uno", "true",
];

/// Whether `pred` is one of `fcmp`'s predicates.
pub fn fcmp_pred_known(pred: &str) -> bool {
    FCMP_PREDS.contains(&pred)
}

fn has(flags: &[String], f: &str) -> bool {
    flags.iter().any(|x| x == f || x == "fast")
}

impl Builder<'_, '_> {
    /// Operand `op` of IR type `ty`: a float literal by its format's bits
    /// (P-FLOAT, read as LLParser reads it), anything else as
    /// [`Builder::operand`] reads it.
    pub(super) fn typed(&mut self, op: &Operand, ty: &Type, th: &ThreadSt) -> V {
        if semantics::machine::vector::shape(ty).is_some() {
            return self.vec_value(op, ty, th, false);
        }
        match (op, FloatTy::of(ty)) {
            (Operand::Const(c), Some(f)) => self.float_const(c, f),
            _ => self.operand(op, width(ty), th),
        }
    }

    /// [`Builder::typed`] before the current step (a phi's incoming value).
    pub(super) fn typed_before(&mut self, op: &Operand, ty: &Type, th: &ThreadSt) -> V {
        if semantics::machine::vector::shape(ty).is_some() {
            return self.vec_value(op, ty, th, true);
        }
        match (op, FloatTy::of(ty)) {
            (Operand::Const(c), Some(f)) => self.float_const(c, f),
            _ => self.operand_before(op, width(ty), th),
        }
    }

    /// A float constant: a literal's bits, `zeroinitializer` as +0, and
    /// poison/undef as poison.
    pub(super) fn float_const(&mut self, c: &Const, f: FloatTy) -> V {
        let w = f.bits();
        match c {
            Const::Float(text) => match parse_literal(text, f) {
                Ok(bits) => {
                    let b = self.bv(w, bits as u128);
                    self.int(b)
                }
                Err(why) => {
                    self.unsupported(format!("float constant {text} ({why})"));
                    self.poison(w)
                }
            },
            Const::ZeroInit => {
                let b = self.bv(w, 0);
                self.int(b)
            }
            Const::Poison | Const::Undef => self.poison(w),
            other => {
                self.unsupported(format!("constant {other:?} of type {f:?}"));
                self.poison(w)
            }
        }
    }

    fn fp(&mut self, op: FpOp, f: FloatTy, args: &[TermId]) -> TermId {
        self.t.app(Op::Fp(op, f), args)
    }

    /// The exponent field all ones (NaN or infinity), and the fraction.
    fn fields(&mut self, f: FloatTy, x: TermId) -> (TermId, TermId) {
        let w = f.bits();
        let frac = f.precision() - 1;
        let e = self.t.extract(w - 2, frac, x);
        let ones = self.bv(w - 1 - frac, super::mask(w - 1 - frac));
        let top = self.t.eq(e, ones);
        let m = self.t.extract(frac - 1, 0, x);
        (top, m)
    }

    /// Whether bits `x` are a NaN of format `f`.
    fn is_nan(&mut self, f: FloatTy, x: TermId) -> TermId {
        let (top, m) = self.fields(f, x);
        let zero = self.bv(f.precision() - 1, 0);
        let z = self.t.eq(m, zero);
        let nz = self.t.not(z);
        self.t.and(&[top, nz])
    }

    /// Whether bits `x` are an infinity of format `f`.
    fn is_inf(&mut self, f: FloatTy, x: TermId) -> TermId {
        let (top, m) = self.fields(f, x);
        let zero = self.bv(f.precision() - 1, 0);
        let z = self.t.eq(m, zero);
        self.t.and(&[top, z])
    }

    /// P-FLOAT-FMF: `nnan` (`ninf`) makes an operation poison when one of
    /// `values` (operands and result) is NaN (infinite).
    fn fmf_poison(&mut self, flags: &[String], f: FloatTy, values: &[TermId]) -> TermId {
        let mut out = Vec::new();
        for &v in values {
            if has(flags, "nnan") {
                out.push(self.is_nan(f, v));
            }
            if has(flags, "ninf") {
                out.push(self.is_inf(f, v));
            }
        }
        self.t.or(&out)
    }

    fn sign_bit(&mut self, f: FloatTy) -> TermId {
        let w = f.bits();
        self.bv(w, 1u128 << (w - 1))
    }

    /// `fadd`, `fsub`, `fmul`, `fdiv`, `frem` (P-FLOAT, P-FLOAT-FMF).
    pub(super) fn fbinary(
        &mut self,
        th: &ThreadSt,
        op: BinOp,
        flags: &[String],
        ty: &Type,
        lhs: &Operand,
        rhs: &Operand,
    ) -> V {
        let f = FloatTy::of(ty).expect("prepare admits float arithmetic on float types only");
        let a = self.typed(lhs, ty, th);
        let b = self.typed(rhs, ty, th);
        self.fbinary_elem(op, flags, f, &a, &b)
    }

    /// [`Builder::fbinary`] on two values of format `f` (a scalar or one
    /// element of a vector, R-VEC-SMT).
    pub(super) fn fbinary_elem(
        &mut self,
        op: BinOp,
        flags: &[String],
        f: FloatTy,
        a: &V,
        b: &V,
    ) -> V {
        let w = f.bits();
        let (ab, ap) = self.bits_of(a, w);
        let (bb, bp) = self.bits_of(b, w);
        let fop = match op {
            BinOp::FAdd => FpOp::Add,
            BinOp::FSub => FpOp::Sub,
            BinOp::FMul => FpOp::Mul,
            BinOp::FDiv => FpOp::Div,
            _ => FpOp::Rem,
        };
        let r = self.fp(fop, f, &[ab, bb]);
        let fp = self.fmf_poison(flags, f, &[ab, bb, r]);
        let poison = self.t.or(&[ap, bp, fp]);
        V::Int { bits: r, poison }
    }

    /// `fneg`: the sign bit flipped (payloads kept).
    pub(super) fn fneg(&mut self, th: &ThreadSt, flags: &[String], ty: &Type, x: &Operand) -> V {
        let f = FloatTy::of(ty).expect("prepare admits fneg on float types only");
        let a = self.typed(x, ty, th);
        self.fneg_elem(flags, f, &a)
    }

    /// [`Builder::fneg`] of one value of format `f`.
    pub(super) fn fneg_elem(&mut self, flags: &[String], f: FloatTy, a: &V) -> V {
        let (ab, ap) = self.bits_of(a, f.bits());
        let s = self.sign_bit(f);
        let r = self.t.bv_xor(ab, s);
        let fp = self.fmf_poison(flags, f, &[ab, r]);
        let poison = self.t.or(&[ap, fp]);
        V::Int { bits: r, poison }
    }

    /// `fcmp` with its 16 predicates: `o*` false on a NaN operand, `u*`
    /// true; an `i1`.
    pub(super) fn fcmp(
        &mut self,
        th: &ThreadSt,
        pred: &str,
        flags: &[String],
        ty: &Type,
        lhs: &Operand,
        rhs: &Operand,
    ) -> V {
        let f = FloatTy::of(ty).expect("prepare admits fcmp on float types only");
        let a = self.typed(lhs, ty, th);
        let b = self.typed(rhs, ty, th);
        self.fcmp_elem(pred, flags, f, &a, &b)
    }

    /// [`Builder::fcmp`] on two values of format `f`.
    pub(super) fn fcmp_elem(
        &mut self,
        pred: &str,
        flags: &[String],
        f: FloatTy,
        a: &V,
        b: &V,
    ) -> V {
        let w = f.bits();
        let (x, xp) = self.bits_of(a, w);
        let (y, yp) = self.bits_of(b, w);
        let na = self.is_nan(f, x);
        let nb = self.is_nan(f, y);
        let uno = self.t.or(&[na, nb]);
        let ord = self.t.not(uno);
        let lt = self.fp(FpOp::Lt, f, &[x, y]);
        let gt = self.fp(FpOp::Lt, f, &[y, x]);
        let le = self.fp(FpOp::Le, f, &[x, y]);
        let ge = self.fp(FpOp::Le, f, &[y, x]);
        let eq = self.fp(FpOp::Eq, f, &[x, y]);
        let ne = {
            let e = self.t.not(eq);
            self.t.and(&[ord, e])
        };
        let r = match pred {
            "false" => self.t.fls(),
            "true" => self.t.tru(),
            "ord" => ord,
            "uno" => uno,
            "oeq" => eq,
            "ogt" => gt,
            "oge" => ge,
            "olt" => lt,
            "ole" => le,
            "one" => ne,
            "ueq" => self.t.or(&[uno, eq]),
            "ugt" => self.t.or(&[uno, gt]),
            "uge" => self.t.or(&[uno, ge]),
            "ult" => self.t.or(&[uno, lt]),
            "ule" => self.t.or(&[uno, le]),
            // "une": unordered or not equal.
            _ => self.t.not(eq),
        };
        let one = self.bv(1, 1);
        let zero = self.bv(1, 0);
        let bits = self.t.ite(r, one, zero);
        let fp = self.fmf_poison(flags, f, &[x, y]);
        let poison = self.t.or(&[xp, yp, fp]);
        V::Int { bits, poison }
    }

    /// The casts with a float side (LangRef, as `machine::float::cast`):
    /// `fptrunc`/`fpext` (rounded, NaN canonical), `fptosi`/`fptoui`
    /// (poison unless the value truncated toward zero fits), `sitofp`/
    /// `uitofp` (rounded; `uitofp nneg` of a negative value is poison),
    /// `bitcast` (the same bits).
    pub(super) fn fcast(
        &mut self,
        th: &ThreadSt,
        op: CastOp,
        flags: &[String],
        from: &semantics::ir::TypedOperand,
        to: &Type,
    ) -> V {
        let a = self.typed(&from.value, &from.ty, th);
        self.fcast_elem(op, flags, &from.ty, to, &a)
    }

    /// [`Builder::fcast`] of one value of type `from` to `to` (scalars, or
    /// the element types of a vector cast).
    pub(super) fn fcast_elem(
        &mut self,
        op: CastOp,
        flags: &[String],
        from: &Type,
        to: &Type,
        a: &V,
    ) -> V {
        let (x, xp) = self.bits_of(a, width(from));
        let (ff, ft) = (FloatTy::of(from), FloatTy::of(to));
        let fls = self.t.fls();
        let (bits, extra) = match (op, ff, ft) {
            (CastOp::FPTrunc | CastOp::FPExt, Some(f), Some(t)) => {
                let r = self.fp(FpOp::Convert(t), f, &[x]);
                let p1 = self.fmf_poison(flags, f, &[x]);
                let p2 = self.fmf_poison(flags, t, &[r]);
                (r, self.t.or(&[p1, p2]))
            }
            (CastOp::FPToSI | CastOp::FPToUI, Some(f), None) => {
                let n = width(to);
                let fop = if op == CastOp::FPToSI {
                    FpOp::ToSInt(n)
                } else {
                    FpOp::ToUInt(n)
                };
                let r = self.fp(fop, f, &[x]);
                let (lo, hi, lo_incl, _) = to_int_range(fop, n, f);
                let t = self.fp(FpOp::Round(RMode::TowardZero), f, &[x]);
                let lo = self.bv(f.bits(), f.from_f64(lo) as u128);
                let hi = self.bv(f.bits(), f.from_f64(hi) as u128);
                let le = if lo_incl { FpOp::Le } else { FpOp::Lt };
                let above = self.fp(le, f, &[lo, t]);
                let below = self.fp(FpOp::Lt, f, &[t, hi]);
                let fits = self.t.and(&[above, below]);
                (r, self.t.not(fits))
            }
            (CastOp::SIToFP | CastOp::UIToFP, None, Some(t)) => {
                let fop = if op == CastOp::SIToFP {
                    FpOp::FromSInt
                } else {
                    FpOp::FromUInt
                };
                let r = self.fp(fop, t, &[x]);
                let p = if op == CastOp::UIToFP && flags.iter().any(|f| f == "nneg") {
                    let wf = width(from);
                    let zero = self.bv(wf, 0);
                    self.t.bv_slt(x, zero)
                } else {
                    fls
                };
                (r, p)
            }
            // `bitcast` between types of one width (prepare checked it).
            _ => (x, fls),
        };
        let poison = self.t.or(&[xp, extra]);
        V::Int { bits, poison }
    }

    /// P-FLOAT: the float intrinsics the interpreter evaluates
    /// (`machine::float::intrinsic`), on operands of the result's format:
    /// poison in, poison out; fast-math flags on every one but `fabs` and
    /// `copysign`.
    pub(super) fn float_intrinsic(
        &mut self,
        base: &str,
        flags: &[String],
        ty: &Type,
        args: &[V],
    ) -> V {
        let f = FloatTy::of(ty).expect("prepare admits float intrinsics of float type only");
        let w = f.bits();
        let mut xs = Vec::new();
        let mut ps = Vec::new();
        for a in args {
            let (b, p) = self.bits_of(a, w);
            xs.push(b);
            ps.push(p);
        }
        let sign = self.sign_bit(f);
        let round = |s: &mut Self, m: RMode, x: TermId| s.fp(FpOp::Round(m), f, &[x]);
        let r = match base {
            "fabs" => {
                let m = self.t.bv_not(sign);
                self.t.bv_and(xs[0], m)
            }
            "copysign" => {
                let m = self.t.bv_not(sign);
                let mag = self.t.bv_and(xs[0], m);
                let sg = self.t.bv_and(xs[1], sign);
                self.t.bv_or(mag, sg)
            }
            "fma" | "fmuladd" => self.fp(FpOp::Fma, f, &xs[..3]),
            "sqrt" => self.fp(FpOp::Sqrt, f, &xs[..1]),
            "floor" => round(self, RMode::TowardNegative, xs[0]),
            "ceil" => round(self, RMode::TowardPositive, xs[0]),
            "trunc" => round(self, RMode::TowardZero, xs[0]),
            "round" => round(self, RMode::NearestAway, xs[0]),
            "rint" | "nearbyint" | "roundeven" => round(self, RMode::NearestEven, xs[0]),
            "canonicalize" => {
                let nan = self.is_nan(f, xs[0]);
                let c = self.bv(w, f.canonical_nan() as u128);
                self.t.ite(nan, c, xs[0])
            }
            _ => self.min_max(base, f, xs[0], xs[1]),
        };
        let mut poison = ps;
        if !matches!(base, "fabs" | "copysign") {
            let mut vals = xs.clone();
            vals.push(r);
            poison.push(self.fmf_poison(flags, f, &vals));
        }
        V::Int {
            bits: r,
            poison: self.t.or(&poison),
        }
    }

    /// `minnum`/`maxnum`/`minimumnum`/`maximumnum` (a NaN operand yields
    /// the other) and `minimum`/`maximum` (a NaN operand yields NaN), with
    /// -0 < +0; two NaNs give the canonical NaN.
    fn min_max(&mut self, base: &str, f: FloatTy, a: TermId, b: TermId) -> TermId {
        let propagate = matches!(base, "minimum" | "maximum");
        let want_min = base.starts_with("min");
        let na = self.is_nan(f, a);
        let nb = self.is_nan(f, b);
        let nan = self.bv(f.bits(), f.canonical_nan() as u128);
        let lt = self.fp(FpOp::Lt, f, &[a, b]);
        let eq = self.fp(FpOp::Eq, f, &[a, b]);
        let sign = self.sign_bit(f);
        let sa = self.t.bv_and(a, sign);
        let sb = self.t.bv_and(b, sign);
        let zero = self.bv(f.bits(), 0);
        let a_neg = self.t.eq(sa, sign);
        let b_pos = self.t.eq(sb, zero);
        let tie = self.t.and(&[eq, a_neg, b_pos]);
        let a_less = self.t.or(&[lt, tie]);
        let pick = if want_min {
            self.t.ite(a_less, a, b)
        } else {
            self.t.ite(a_less, b, a)
        };
        let both = self.t.and(&[na, nb]);
        let (on_a_nan, on_b_nan) = if propagate { (nan, nan) } else { (b, a) };
        let r = self.t.ite(nb, on_b_nan, pick);
        let r = self.t.ite(na, on_a_nan, r);
        self.t.ite(both, nan, r)
    }
}
