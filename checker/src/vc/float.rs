//! Floating-point operators of the term language (docs/RULES.md R-FLOAT-SMT).
//!
//! Floats are not a sort of their own: a float value is the bit-vector of
//! its IEEE 754 bit pattern (P-FLOAT), so `select`, `phi`, `bitcast`,
//! memory and observation treat floats as the integers of their width. The
//! operators here read their operands as IEEE binary values of a format
//! ([`FloatTy`]) and return bit patterns (or Booleans), with the
//! interpreter's conventions: round to nearest, ties to even; every NaN an
//! arithmetic operation or conversion produces is the format's canonical
//! NaN (P-FLOAT-NAN); every operator is total (a conversion to an integer
//! that does not fit gives 0; the encoder makes it poison).
//!
//! Z3 computes these operators with its floating-point theory
//! (`crate::smt::float`); [`apply`] computes them on values (the oracle
//! that models are checked against) with the interpreter's float code
//! (`semantics::machine::float`). The builders never fold them, so the
//! solver's answer stays independent of the interpreter's (MC-07).

use semantics::ir::float::FloatTy;
use semantics::ir::{BinOp, CastOp, Type};
use semantics::machine::float as interp;
use semantics::machine::Val;

use super::eval::{mask, to_signed, EvalError, Value};
use super::{Op, Sort, SortError};

/// A rounding direction of `roundToIntegral` (IEEE 754 §5.9).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RMode {
    /// `llvm.rint`, `llvm.nearbyint`, `llvm.roundeven`.
    NearestEven,
    /// `llvm.round`.
    NearestAway,
    /// `llvm.trunc`.
    TowardZero,
    /// `llvm.floor`.
    TowardNegative,
    /// `llvm.ceil`.
    TowardPositive,
}

/// A floating-point operator over format `f` (the `FloatTy` of [`Op::Fp`]):
/// the operands' format, except for [`FpOp::FromSInt`]/[`FpOp::FromUInt`]
/// whose result has it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FpOp {
    Add,
    Sub,
    Mul,
    Div,
    /// C `fmod` (LLVM `frem`): the remainder of the quotient truncated
    /// toward zero, exact.
    Rem,
    Sqrt,
    /// `a * b + c` rounded once.
    Fma,
    /// `roundToIntegral` in the given direction.
    Round(RMode),
    /// IEEE `<`, `<=`, `==` (false when an operand is NaN; `-0 == +0`).
    Lt,
    Le,
    Eq,
    /// Conversion into another format (`fpext`, `fptrunc`).
    Convert(FloatTy),
    /// A signed or unsigned integer (any width) rounded into the format.
    FromSInt,
    FromUInt,
    /// The value truncated toward zero as an integer of this width when
    /// it fits (signed or unsigned), else 0.
    ToSInt(u32),
    ToUInt(u32),
}

impl FpOp {
    /// The number of operands.
    pub fn arity(self) -> usize {
        match self {
            FpOp::Sqrt
            | FpOp::Round(_)
            | FpOp::Convert(_)
            | FpOp::FromSInt
            | FpOp::FromUInt
            | FpOp::ToSInt(_)
            | FpOp::ToUInt(_) => 1,
            FpOp::Fma => 3,
            _ => 2,
        }
    }

    /// A short name for messages and SMT-LIB helper functions.
    pub fn name(self) -> String {
        match self {
            FpOp::Round(m) => format!("round.{m:?}").to_lowercase(),
            FpOp::Convert(t) => format!("convert.{}", fmt_name(t)),
            FpOp::ToSInt(w) => format!("tosint.i{w}"),
            FpOp::ToUInt(w) => format!("touint.i{w}"),
            other => format!("{other:?}").to_lowercase(),
        }
    }
}

/// `f16`, `bf16`, `f32`, `f64`.
pub fn fmt_name(f: FloatTy) -> &'static str {
    match f {
        FloatTy::Half => "f16",
        FloatTy::BFloat => "bf16",
        FloatTy::Float => "f32",
        FloatTy::Double => "f64",
    }
}

/// (exponent bits, significand bits with the hidden one) of `f`.
pub fn ebits_sbits(f: FloatTy) -> (u32, u32) {
    (f.bits() - f.precision(), f.precision())
}

/// The result sort of `Op::Fp(op, f)` over arguments of sorts `args`.
pub(super) fn result_sort(op: FpOp, f: FloatTy, args: &[&Sort]) -> Result<Sort, SortError> {
    let fail = |why: &str| Err(SortError(format!("fp {} {f:?}: {why}", op.name())));
    if args.len() != op.arity() {
        return fail(&format!(
            "takes {} arguments, got {}",
            op.arity(),
            args.len()
        ));
    }
    let w = f.bits();
    match op {
        FpOp::FromSInt | FpOp::FromUInt => match args[0] {
            Sort::BitVec(_) => Ok(Sort::BitVec(w)),
            s => fail(&format!("takes a bit-vector, got {s:?}")),
        },
        _ => {
            if let Some(s) = args.iter().find(|s| ***s != Sort::BitVec(w)) {
                return fail(&format!("takes (_ BitVec {w}) operands, got {s:?}"));
            }
            Ok(match op {
                FpOp::Lt | FpOp::Le | FpOp::Eq => Sort::Bool,
                FpOp::Convert(t) => Sort::BitVec(t.bits()),
                FpOp::ToSInt(n) | FpOp::ToUInt(n) if (1..=64).contains(&n) => Sort::BitVec(n),
                FpOp::ToSInt(_) | FpOp::ToUInt(_) => return fail("integer width outside 1..=64"),
                _ => Sort::BitVec(w),
            })
        }
    }
}

fn float_bits(v: &Val) -> Option<u64> {
    match v {
        Val::Float { bits, .. } => Some(*bits),
        _ => None,
    }
}

/// The value of `Op::Fp(op, f)` at `args`, computed with the interpreter's
/// float semantics (`semantics::machine::float`).
pub(super) fn apply(op: FpOp, f: FloatTy, args: &[Value]) -> Result<Value, EvalError> {
    let ill = || EvalError::IllSorted(Op::Fp(op, f));
    let bits = |i: usize| -> Result<u64, EvalError> {
        match args.get(i) {
            Some(Value::Bv { width, bits }) if *width == f.bits() || i == 0 && is_from(op) => {
                Ok(*bits as u64)
            }
            _ => Err(ill()),
        }
    };
    let out = |x: u64| Value::bv(f.bits(), x as u128);
    let fl = |b: u64| Val::Float { ty: f, bits: b };
    let via_intrinsic = |name: &str, xs: &[u64]| -> Result<Value, EvalError> {
        let vals: Vec<Val> = xs.iter().map(|b| fl(*b)).collect();
        let r = interp::intrinsic(&format!("llvm.{name}"), &[], &vals)
            .and_then(Result::ok)
            .and_then(|v| float_bits(&v))
            .ok_or_else(ill)?;
        Ok(out(r))
    };
    if args.len() != op.arity() {
        return Err(ill());
    }
    Ok(match op {
        FpOp::Add | FpOp::Sub | FpOp::Mul | FpOp::Div | FpOp::Rem => {
            let bop = match op {
                FpOp::Add => BinOp::FAdd,
                FpOp::Sub => BinOp::FSub,
                FpOp::Mul => BinOp::FMul,
                FpOp::Div => BinOp::FDiv,
                _ => BinOp::FRem,
            };
            let r = interp::binary(bop, &[], f, bits(0)?, bits(1)?);
            out(float_bits(&r).ok_or_else(ill)?)
        }
        FpOp::Sqrt => via_intrinsic("sqrt", &[bits(0)?])?,
        FpOp::Fma => via_intrinsic("fma", &[bits(0)?, bits(1)?, bits(2)?])?,
        FpOp::Round(m) => {
            let name = match m {
                RMode::NearestEven => "roundeven",
                RMode::NearestAway => "round",
                RMode::TowardZero => "trunc",
                RMode::TowardNegative => "floor",
                RMode::TowardPositive => "ceil",
            };
            via_intrinsic(name, &[bits(0)?])?
        }
        FpOp::Lt | FpOp::Le | FpOp::Eq => {
            let (x, y) = (f.to_f64(bits(0)?), f.to_f64(bits(1)?));
            Value::Bool(match op {
                FpOp::Lt => x < y,
                FpOp::Le => x <= y,
                _ => x == y,
            })
        }
        FpOp::Convert(t) => Value::bv(t.bits(), t.from_f64(f.to_f64(bits(0)?)) as u128),
        FpOp::FromSInt | FpOp::FromUInt => {
            let Value::Bv { width, bits } = args[0] else {
                return Err(ill());
            };
            let (neg, mag) = if op == FpOp::FromSInt {
                let s = to_signed(width, bits);
                (s < 0, s.unsigned_abs())
            } else {
                (false, bits)
            };
            out(f.from_int(neg, mag))
        }
        FpOp::ToSInt(n) | FpOp::ToUInt(n) => {
            let cop = if matches!(op, FpOp::ToSInt(_)) {
                CastOp::FPToSI
            } else {
                CastOp::FPToUI
            };
            let r = interp::cast(cop, &[], &f.ty(), &Type::Int(n), fl(bits(0)?));
            match r {
                Some(Ok(Val::Int { v, .. })) => Value::bv(n, v & mask(n)),
                Some(Ok(Val::Poison)) => Value::bv(n, 0),
                _ => return Err(ill()),
            }
        }
    })
}

fn is_from(op: FpOp) -> bool {
    matches!(op, FpOp::FromSInt | FpOp::FromUInt)
}

/// The SMT-LIB helper function standing for `Op::Fp(op, f)` over arguments
/// of sorts `args`: its name and its `define-fun` (Z3's `fp.to_ieee_bv`
/// turns a float back into its bits, NaN made canonical first).
pub(super) fn smtlib_helper(op: FpOp, f: FloatTy, args: &[Sort]) -> (String, String) {
    let (e, s) = ebits_sbits(f);
    let w = f.bits();
    let from_w = args.first().and_then(Sort::bv_width).unwrap_or(w);
    let name = format!(
        "{}fp.{}.{}{}",
        super::smtlib::SHARED_PREFIX,
        op.name(),
        fmt_name(f),
        if is_from(op) {
            format!(".i{from_w}")
        } else {
            String::new()
        }
    );
    let params: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, srt)| format!("(a{i} {})", super::smtlib::sort(srt)))
        .collect();
    let x = |i: usize| format!("((_ to_fp {e} {s}) a{i})");
    let canon = |fmt: FloatTy, r: &str| {
        let (fw, nan) = (fmt.bits(), fmt.canonical_nan());
        format!(
            "(let ((r {r})) (ite (fp.isNaN r) {} (fp.to_ieee_bv r)))",
            super::smtlib::bv_literal(fw, nan as u128)
        )
    };
    let lit = |v: f64| {
        format!(
            "((_ to_fp {e} {s}) {})",
            super::smtlib::bv_literal(w, f.from_f64(v) as u128)
        )
    };
    let (range, body) = match op {
        FpOp::Add | FpOp::Sub | FpOp::Mul | FpOp::Div => {
            let o = format!("fp.{}", op.name());
            (
                format!("(_ BitVec {w})"),
                canon(f, &format!("({o} RNE {} {})", x(0), x(1))),
            )
        }
        FpOp::Rem => (
            format!("(_ BitVec {w})"),
            canon(
                f,
                &format!(
                    "(let ((x {}) (y {})) (let ((q (fp.rem x y)) (ay (fp.abs y))) \
                     (ite (and (not (fp.isZero q)) (xor (fp.isNegative q) (fp.isNegative x))) \
                     (fp.add RNE q (ite (fp.isNegative x) (fp.neg ay) ay)) q)))",
                    x(0),
                    x(1)
                ),
            ),
        ),
        FpOp::Sqrt => (
            format!("(_ BitVec {w})"),
            canon(f, &format!("(fp.sqrt RNE {})", x(0))),
        ),
        FpOp::Fma => (
            format!("(_ BitVec {w})"),
            canon(f, &format!("(fp.fma RNE {} {} {})", x(0), x(1), x(2))),
        ),
        FpOp::Round(m) => (
            format!("(_ BitVec {w})"),
            canon(f, &format!("(fp.roundToIntegral {} {})", rm_name(m), x(0))),
        ),
        FpOp::Lt | FpOp::Le | FpOp::Eq => {
            let o = match op {
                FpOp::Lt => "fp.lt",
                FpOp::Le => "fp.leq",
                _ => "fp.eq",
            };
            ("Bool".to_string(), format!("({o} {} {})", x(0), x(1)))
        }
        FpOp::Convert(t) => {
            let (te, ts) = ebits_sbits(t);
            (
                format!("(_ BitVec {})", t.bits()),
                canon(t, &format!("((_ to_fp {te} {ts}) RNE {})", x(0))),
            )
        }
        FpOp::FromSInt | FpOp::FromUInt => {
            let o = if op == FpOp::FromSInt {
                "to_fp"
            } else {
                "to_fp_unsigned"
            };
            (
                format!("(_ BitVec {w})"),
                canon(f, &format!("((_ {o} {e} {s}) RNE a0)")),
            )
        }
        FpOp::ToSInt(n) | FpOp::ToUInt(n) => {
            let (lo, hi, lo_incl, o) = to_int_range(op, n, f);
            let le = if lo_incl { "fp.leq" } else { "fp.lt" };
            (
                format!("(_ BitVec {n})"),
                format!(
                    "(let ((t (fp.roundToIntegral RTZ {}))) (ite (and ({le} {} t) (fp.lt t {})) \
                     ((_ {o} {n}) RTZ t) {}))",
                    x(0),
                    lit(lo),
                    lit(hi),
                    super::smtlib::bv_literal(n, 0)
                ),
            )
        }
    };
    let def = format!(
        "(define-fun {name} ({}) {range} {body})\n",
        params.join(" ")
    );
    (name, def)
}

/// `fptosi`/`fptoui` from format `f` to `iN`: the truncated value must lie
/// in `[lo, hi)` (the interpreter's test in `f64`,
/// `semantics::machine::float::cast`), and the SMT-LIB conversion's name.
/// `lo_incl`: whether the lower test is `lo <= t`, else `lo < t`. A bound
/// beyond the format is an infinity of it (half to i32: -2^31 is -inf),
/// which keeps the comparison exact for finite values; the infinity itself
/// must stay out of range, so the lower test is then strict (`t < +inf`
/// already is).
pub fn to_int_range(op: FpOp, n: u32, f: FloatTy) -> (f64, f64, bool, &'static str) {
    let (lo, hi, name) = if matches!(op, FpOp::ToSInt(_)) {
        let h = 2f64.powi(n as i32 - 1);
        (-h, h, "fp.to_sbv")
    } else {
        (0.0, 2f64.powi(n as i32), "fp.to_ubv")
    };
    let lo_incl = f.from_f64(lo) != f.from_f64(f64::NEG_INFINITY);
    (lo, hi, lo_incl, name)
}

/// The SMT-LIB name of a rounding direction.
pub fn rm_name(m: RMode) -> &'static str {
    match m {
        RMode::NearestEven => "RNE",
        RMode::NearestAway => "RNA",
        RMode::TowardZero => "RTZ",
        RMode::TowardNegative => "RTN",
        RMode::TowardPositive => "RTP",
    }
}
