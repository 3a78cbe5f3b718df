//! R-FLOAT-SMT: the floating-point operators of the term language
//! (`crate::vc::float`) in Z3's floating-point theory. Operands are bit
//! patterns, read as floats with `(_ to_fp e s)`; results go back to bit
//! patterns with `fp.to_ieee_bv`, a NaN first replaced by the format's
//! canonical NaN (P-FLOAT-NAN), so the result never depends on Z3's choice
//! of NaN bits.
//!
//! The z3 crate lacks the conversions from bit-vectors (`to_fp` of a bit
//! pattern, of a signed or unsigned integer); they are made through
//! `z3_sys` here, the crate's own wrapping taking ownership.

use semantics::ir::float::FloatTy;
use z3::ast::{Ast, Bool, Dynamic, Float, BV};
use z3::{Context, Sort as ZSort};

use crate::vc::float::{ebits_sbits, to_int_range, FpOp, RMode};

const WELL_SORTED: &str = "vc terms are sort-checked when built";

fn sort(f: FloatTy) -> ZSort {
    let (e, s) = ebits_sbits(f);
    ZSort::float(e, s)
}

fn rne() -> z3::ast::RoundingMode {
    z3::ast::RoundingMode::round_nearest_ties_to_even()
}

fn rm(m: RMode) -> z3::ast::RoundingMode {
    use z3::ast::RoundingMode as R;
    match m {
        RMode::NearestEven => R::round_nearest_ties_to_even(),
        RMode::NearestAway => R::round_nearest_ties_to_away(),
        RMode::TowardZero => R::round_towards_zero(),
        RMode::TowardNegative => R::round_towards_negative(),
        RMode::TowardPositive => R::round_towards_positive(),
    }
}

/// The float whose IEEE bit pattern is `x` (`(_ to_fp e s)` of a
/// bit-vector).
fn of_bits(x: &BV, f: FloatTy) -> Float {
    let ctx = Context::thread_local();
    let s = sort(f);
    // SAFETY: the context, the bit-vector and the sort are live Z3 objects
    // of this thread's context; `Float::wrap` takes a reference to the
    // returned term (`Z3_inc_ref`).
    unsafe {
        let raw = z3_sys::Z3_mk_fpa_to_fp_bv(ctx.get_z3_context(), x.get_z3_ast(), s.get_z3_sort())
            .expect("Z3_mk_fpa_to_fp_bv on a bit-vector of the format's width");
        Float::wrap(&ctx, raw)
    }
}

/// An integer rounded (to nearest, ties to even) into `f`.
fn of_int(x: &BV, f: FloatTy, signed: bool) -> Float {
    let ctx = Context::thread_local();
    let s = sort(f);
    let r = rne();
    // SAFETY: as in `of_bits`.
    unsafe {
        let c = ctx.get_z3_context();
        let raw = if signed {
            z3_sys::Z3_mk_fpa_to_fp_signed(c, r.get_z3_ast(), x.get_z3_ast(), s.get_z3_sort())
        } else {
            z3_sys::Z3_mk_fpa_to_fp_unsigned(c, r.get_z3_ast(), x.get_z3_ast(), s.get_z3_sort())
        }
        .expect("Z3_mk_fpa_to_fp_(un)signed on a bit-vector");
        Float::wrap(&ctx, raw)
    }
}

/// The bits of `r`, a NaN being the canonical NaN of `f` (P-FLOAT-NAN).
fn canonical_bits(r: &Float, f: FloatTy) -> BV {
    let nan = BV::from_u64(f.canonical_nan(), f.bits());
    r.is_nan().ite(&nan, &r.to_ieee_bv())
}

fn lit(f: FloatTy, v: f64) -> Float {
    of_bits(&BV::from_u64(f.from_f64(v), f.bits()), f)
}

/// `Op::Fp(op, f)` applied to translated arguments.
pub(crate) fn apply(op: FpOp, f: FloatTy, a: &[Dynamic]) -> Dynamic {
    let bv = |i: usize| a[i].as_bv().expect(WELL_SORTED);
    let x = |i: usize| of_bits(&bv(i), f);
    let d = |b: &BV| Dynamic::from_ast(b);
    let db = |b: &Bool| Dynamic::from_ast(b);
    match op {
        FpOp::Add => d(&canonical_bits(
            &x(0).add_with_rounding_mode(x(1), &rne()),
            f,
        )),
        FpOp::Sub => d(&canonical_bits(
            &x(0).sub_with_rounding_mode(x(1), &rne()),
            f,
        )),
        FpOp::Mul => d(&canonical_bits(
            &x(0).mul_with_rounding_mode(x(1), &rne()),
            f,
        )),
        FpOp::Div => d(&canonical_bits(
            &x(0).div_with_rounding_mode(x(1), &rne()),
            f,
        )),
        FpOp::Rem => {
            // C fmod from IEEE remainder: the remainder q of the quotient
            // rounded to nearest lies in [-|y|/2, |y|/2]; when its sign
            // differs from x's (and it is not zero), fmod is q + |y| with
            // x's sign, exactly representable, so the rounded sum is exact.
            let (xa, ya) = (x(0), x(1));
            let q = xa.rem(&ya);
            let ay = ya.unary_abs();
            let step = xa.is_negative().ite(&ay.unary_neg(), &ay);
            let fix = Bool::and(&[q.is_zero().not(), q.is_negative().xor(xa.is_negative())]);
            let r = fix.ite(&q.add_with_rounding_mode(step, &rne()), &q);
            d(&canonical_bits(&r, f))
        }
        FpOp::Sqrt => d(&canonical_bits(&x(0).sqrt(), f)),
        FpOp::Fma => d(&canonical_bits(&x(0).fma(x(1), x(2)), f)),
        FpOp::Round(m) => d(&canonical_bits(
            &x(0).round_to_integral_with_rounding_mode(&rm(m)),
            f,
        )),
        FpOp::Lt => db(&x(0).lt(x(1))),
        FpOp::Le => db(&x(0).le(x(1))),
        FpOp::Eq => db(&x(0).eq_fpa(x(1))),
        FpOp::Convert(t) => d(&canonical_bits(
            &x(0).to_fp_with_rounding_mode(&rne(), &sort(t)),
            t,
        )),
        FpOp::FromSInt | FpOp::FromUInt => {
            d(&canonical_bits(&of_int(&bv(0), f, op == FpOp::FromSInt), f))
        }
        FpOp::ToSInt(n) | FpOp::ToUInt(n) => {
            // The interpreter's test: the value truncated toward zero lies
            // in [lo, hi) (false for NaN), an infinity never
            // ([`to_int_range`]).
            let (lo, hi, lo_incl, _) = to_int_range(op, n, f);
            let rtz = z3::ast::RoundingMode::round_towards_zero();
            let t = x(0).round_to_integral_with_rounding_mode(&rtz);
            let above = if lo_incl {
                lit(f, lo).le(&t)
            } else {
                lit(f, lo).lt(&t)
            };
            let fits = Bool::and(&[above, t.lt(lit(f, hi))]);
            let v = if matches!(op, FpOp::ToSInt(_)) {
                t.to_sbv_with_rounding_mode(&rtz, n)
            } else {
                t.to_ubv_with_rounding_mode(&rtz, n)
            };
            d(&fits.ite(&v, &BV::from_u64(0, n)))
        }
    }
}
