//! Floating-point semantics of the interpreter (docs/RULES.md P-FLOAT,
//! P-FLOAT-NAN, P-FLOAT-FMF): concrete IEEE 754 binary arithmetic, round
//! to nearest, ties to even, in `half`, `bfloat`, `float` and `double`.
//!
//! `float` and `double` use the host's IEEE operations. `half` and `bfloat`
//! compute in `double` and round once into the format: for `+ - * /`,
//! `sqrt` and `frem` that is correctly rounded because a double has more
//! than twice their precision plus two bits (Figueroa's double-rounding
//! theorem); `fma` in those formats rounds the double sum to odd first
//! ([`round_to_odd`]). Every NaN an arithmetic operation produces is the
//! canonical NaN of the format (P-FLOAT-NAN); the bitwise operations
//! (`fneg`, `fabs`, `copysign`) keep payloads.

use crate::ir::float::{round_to_odd, FloatTy};
use crate::ir::{BinOp, CastOp, Type};

use super::value::{mask, signed, Val};

/// A float value of format `f`.
pub fn val(f: FloatTy, bits: u64) -> Val {
    Val::Float { ty: f, bits }
}

/// The result of an arithmetic operation computed as a double: rounded
/// into the format, NaN canonical.
fn of_f64(f: FloatTy, x: f64) -> u64 {
    f.from_f64(x)
}

fn has(flags: &[String], f: &str) -> bool {
    flags.iter().any(|x| x == f || x == "fast")
}

/// P-FLOAT-FMF: `nnan` makes an operation with a NaN operand or result
/// poison, `ninf` one with an infinite operand or result (LangRef
/// "Fast-Math Flags"; `fast` implies both). The other flags (`nsz`, `arcp`,
/// `contract`, `afn`, `reassoc`) allow other results; the interpreter
/// computes the IEEE one.
fn fmf_poison(flags: &[String], f: FloatTy, values: &[u64]) -> bool {
    (has(flags, "nnan") && values.iter().any(|b| f.is_nan(*b)))
        || (has(flags, "ninf") && values.iter().any(|b| f.is_inf(*b)))
}

/// `fadd`, `fsub`, `fmul`, `fdiv`, `frem` (LangRef; `frem` is C `fmod`,
/// exact in every format).
pub fn binary(op: BinOp, flags: &[String], f: FloatTy, a: u64, b: u64) -> Val {
    let r = match f {
        FloatTy::Float => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            let r = match op {
                BinOp::FAdd => x + y,
                BinOp::FSub => x - y,
                BinOp::FMul => x * y,
                BinOp::FDiv => x / y,
                _ => x % y,
            };
            if r.is_nan() {
                f.canonical_nan()
            } else {
                r.to_bits() as u64
            }
        }
        _ => {
            let (x, y) = (f.to_f64(a), f.to_f64(b));
            of_f64(
                f,
                match op {
                    BinOp::FAdd => x + y,
                    BinOp::FSub => x - y,
                    BinOp::FMul => x * y,
                    BinOp::FDiv => x / y,
                    _ => x % y,
                },
            )
        }
    };
    if fmf_poison(flags, f, &[a, b, r]) {
        return Val::Poison;
    }
    val(f, r)
}

/// `fneg`: flips the sign bit, NaN payload kept (LangRef).
pub fn fneg(flags: &[String], f: FloatTy, a: u64) -> Val {
    let r = f.neg(a);
    if fmf_poison(flags, f, &[a, r]) {
        return Val::Poison;
    }
    val(f, r)
}

/// `fcmp` with each of its 16 predicates: `o*` are false when an operand
/// is NaN, `u*` true; `ord`/`uno` test for NaN; `false`/`true` are
/// constant. `None` for a predicate LLVM does not have.
pub fn fcmp(pred: &str, flags: &[String], f: FloatTy, a: u64, b: u64) -> Option<Val> {
    let (x, y) = (f.to_f64(a), f.to_f64(b));
    let uno = x.is_nan() || y.is_nan();
    let r = match pred {
        "false" => false,
        "true" => true,
        "ord" => !uno,
        "uno" => uno,
        "oeq" => x == y,
        "ogt" => x > y,
        "oge" => x >= y,
        "olt" => x < y,
        "ole" => x <= y,
        "one" => !uno && x != y,
        "ueq" => uno || x == y,
        "ugt" => uno || x > y,
        "uge" => uno || x >= y,
        "ult" => uno || x < y,
        "ule" => uno || x <= y,
        "une" => x != y,
        _ => return None,
    };
    if fmf_poison(flags, f, &[a, b]) {
        return Some(Val::Poison);
    }
    Some(super::value::int(1, r as i128))
}

/// The casts that involve a floating-point type (LangRef): `fptrunc`,
/// `fpext`, `fptosi`/`fptoui` (poison when the truncated value does not fit,
/// or is NaN or infinite), `sitofp`/`uitofp` (rounded; `nneg` on a negative
/// value is poison), and `bitcast` between a float and an integer of its
/// width. `None` when neither side is a float (the integer rules apply),
/// `Some(Err)` for a cast the subset does not model.
pub fn cast(
    op: CastOp,
    flags: &[String],
    from: &Type,
    to: &Type,
    v: Val,
) -> Option<Result<Val, String>> {
    let (ff, tf) = (FloatTy::of(from), FloatTy::of(to));
    if ff.is_none() && tf.is_none() {
        return None;
    }
    if v == Val::Poison {
        return Some(Ok(Val::Poison));
    }
    let unsupported = || Some(Err(format!("{} of this value", op.mnemonic())));
    Some(Ok(match (op, v, ff, tf) {
        (CastOp::FPTrunc | CastOp::FPExt, Val::Float { ty, bits }, _, Some(t)) => {
            let r = of_f64(t, ty.to_f64(bits));
            if fmf_poison(flags, ty, &[bits]) || fmf_poison(flags, t, &[r]) {
                Val::Poison
            } else {
                val(t, r)
            }
        }
        (CastOp::FPToSI | CastOp::FPToUI, Val::Float { ty, bits }, _, None) => {
            let Some(n) = to.int_bits().filter(|n| (1..=128).contains(n)) else {
                return unsupported();
            };
            let t = ty.to_f64(bits).trunc();
            let (lo, hi) = if op == CastOp::FPToSI {
                (-(2f64.powi(n as i32 - 1)), 2f64.powi(n as i32 - 1))
            } else {
                (0.0, 2f64.powi(n as i32))
            };
            // NaN fails both comparisons.
            if t >= lo && t < hi {
                let r = if t < 0.0 {
                    (t as i128) as u128
                } else {
                    t as u128
                };
                Val::Int {
                    bits: n,
                    v: r & mask(n),
                }
            } else {
                Val::Poison
            }
        }
        (CastOp::SIToFP | CastOp::UIToFP, Val::Int { bits, v }, None, Some(t)) => {
            let (neg, mag) = if op == CastOp::SIToFP {
                let s = signed(bits, v);
                (s < 0, s.unsigned_abs())
            } else {
                if flags.iter().any(|f| f == "nneg") && signed(bits, v) < 0 {
                    return Some(Ok(Val::Poison));
                }
                (false, v)
            };
            val(t, t.from_int(neg, mag))
        }
        (CastOp::BitCast, Val::Float { ty, bits }, _, None) => match to {
            Type::Int(n) if *n == ty.bits() => Val::Int {
                bits: *n,
                v: bits as u128,
            },
            _ => return unsupported(),
        },
        (CastOp::BitCast, Val::Int { bits, v }, None, Some(t)) if bits == t.bits() => {
            val(t, v as u64)
        }
        (CastOp::BitCast, Val::Float { ty, bits }, _, Some(t)) if ty.bits() == t.bits() => {
            val(t, bits)
        }
        _ => return unsupported(),
    }))
}

/// The float intrinsics of [`intrinsic`] by base name, with their arity.
const INTRINSICS: &[(&str, usize)] = &[
    ("fabs", 1),
    ("copysign", 2),
    ("fma", 3),
    ("fmuladd", 3),
    ("minnum", 2),
    ("maxnum", 2),
    ("minimumnum", 2),
    ("maximumnum", 2),
    ("minimum", 2),
    ("maximum", 2),
    ("sqrt", 1),
    ("floor", 1),
    ("ceil", 1),
    ("trunc", 1),
    ("round", 1),
    ("rint", 1),
    ("nearbyint", 1),
    ("roundeven", 1),
    ("canonicalize", 1),
];

/// `llvm.fabs.f32` -> (`fabs`, 1).
fn base_arity(name: &str) -> Option<(&'static str, usize)> {
    let base = name.strip_prefix("llvm.")?.split('.').next()?;
    INTRINSICS.iter().find(|(n, _)| *n == base).copied()
}

/// Whether `name` is one of the float intrinsics of [`intrinsic`].
pub fn is_intrinsic(name: &str) -> bool {
    base_arity(name).is_some()
}

/// The float intrinsics the interpreter evaluates (a documented subset of
/// what clang emits, docs/RULES.md P-FLOAT): `fabs`, `copysign`, `fma`,
/// `fmuladd` (fused), `minnum`/`maxnum` and `minimumnum`/`maximumnum`
/// (NaN operands ignored), `minimum`/`maximum` (NaN propagated), all four
/// with -0 < +0, `sqrt`, `floor`, `ceil`, `trunc`, `round` (ties away),
/// `rint`/`nearbyint`/`roundeven` (ties to even), `canonicalize`. `None`
/// when `name` is not one of them or an operand is not a scalar float
/// (the call is then handled as any other); `Some(Err)` for the wrong
/// operand count.
pub fn intrinsic(name: &str, flags: &[String], args: &[Val]) -> Option<Result<Val, String>> {
    let (base, arity) = base_arity(name)?;
    let mut f = None;
    let mut bits = Vec::with_capacity(args.len());
    for a in args {
        match *a {
            Val::Float { ty, bits: b } if f.is_none_or(|g| g == ty) => {
                f = Some(ty);
                bits.push(Some(b));
            }
            Val::Poison => bits.push(None),
            _ => return None,
        }
    }
    if args.len() != arity {
        return Some(Err(format!(
            "@{name} called with {} argument(s); it takes {arity}",
            args.len()
        )));
    }
    let Some(f) = f else {
        return Some(Ok(Val::Poison));
    };
    let Some(bits) = bits.into_iter().collect::<Option<Vec<u64>>>() else {
        return Some(Ok(Val::Poison));
    };
    let x: Vec<f64> = bits.iter().map(|b| f.to_f64(*b)).collect();
    let unary = |g: fn(f64) -> f64| of_f64(f, g(x[0]));
    let r = match base {
        "fabs" => f.abs(bits[0]),
        "copysign" => f.abs(bits[0]) | (bits[1] & f.neg(0)),
        "fma" | "fmuladd" => fma(f, &bits),
        "minnum" | "maxnum" | "minimumnum" | "maximumnum" | "minimum" | "maximum" => {
            let propagate = matches!(base, "minimum" | "maximum");
            let want_min = base.starts_with("min");
            match (x[0].is_nan(), x[1].is_nan()) {
                (true, true) => f.canonical_nan(),
                (true, false) | (false, true) if propagate => f.canonical_nan(),
                (true, false) => bits[1],
                (false, true) => bits[0],
                (false, false) => {
                    // -0 < +0: compare the sign when the values are equal.
                    let a_less = x[0] < x[1]
                        || (x[0] == x[1] && f.is_negative(bits[0]) && !f.is_negative(bits[1]));
                    if a_less == want_min {
                        bits[0]
                    } else {
                        bits[1]
                    }
                }
            }
        }
        "sqrt" => unary(f64::sqrt),
        "floor" => unary(f64::floor),
        "ceil" => unary(f64::ceil),
        "trunc" => unary(f64::trunc),
        "round" => unary(f64::round),
        "rint" | "nearbyint" | "roundeven" => unary(f64::round_ties_even),
        _ => unary(|v| v),
    };
    if !matches!(base, "fabs" | "copysign")
        && fmf_poison(flags, f, &[bits.as_slice(), &[r]].concat())
    {
        return Some(Ok(Val::Poison));
    }
    Some(Ok(val(f, r)))
}

/// `fma(a, b, c)` rounded once (LangRef `llvm.fma`; `llvm.fmuladd` is
/// evaluated fused as well, one of the two results LangRef allows).
fn fma(f: FloatTy, b: &[u64]) -> u64 {
    match f {
        FloatTy::Float => {
            let [x, y, z] = [0, 1, 2].map(|i| f32::from_bits(b[i] as u32));
            let r = x.mul_add(y, z);
            if r.is_nan() {
                f.canonical_nan()
            } else {
                r.to_bits() as u64
            }
        }
        FloatTy::Double => of_f64(
            f,
            f64::from_bits(b[0]).mul_add(f64::from_bits(b[1]), f64::from_bits(b[2])),
        ),
        _ => {
            let [x, y, z] = [0, 1, 2].map(|i| f.to_f64(b[i]));
            // The product of two 11-bit (8-bit) significands is exact in a
            // double; the sum is rounded to odd (TwoSum gives its error).
            let p = x * y;
            let s = p + z;
            let bb = s - p;
            let err = (p - (s - bb)) + (z - bb);
            of_f64(f, round_to_odd(s, if s.is_finite() { err } else { 0.0 }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fv(x: f32) -> u64 {
        x.to_bits() as u64
    }

    /// P-FLOAT: IEEE results, canonical NaN, `nnan` poison.
    #[test]
    fn arithmetic() {
        let f = FloatTy::Float;
        assert_eq!(
            binary(BinOp::FAdd, &[], f, fv(0.1), fv(0.2)),
            val(f, fv(0.1 + 0.2))
        );
        assert_eq!(
            binary(BinOp::FDiv, &[], f, fv(0.0), fv(0.0)),
            val(f, f.canonical_nan())
        );
        assert_eq!(
            binary(BinOp::FDiv, &["nnan".into()], f, fv(0.0), fv(0.0)),
            Val::Poison
        );
        assert_eq!(
            binary(BinOp::FDiv, &["ninf".into()], f, fv(1.0), fv(0.0)),
            Val::Poison
        );
        assert_eq!(
            binary(BinOp::FRem, &[], f, fv(7.5), fv(2.0)),
            val(f, fv(1.5))
        );
        let h = FloatTy::Half;
        // 1 + 2^-11 ties to even in half.
        assert_eq!(binary(BinOp::FAdd, &[], h, 0x3C00, 0x1000), val(h, 0x3C00));
    }

    /// P-FLOAT: all 16 predicates on a NaN operand.
    #[test]
    fn fcmp_predicates() {
        let f = FloatTy::Float;
        let nan = f.canonical_nan();
        let t = |p: &str| fcmp(p, &[], f, nan, fv(1.0)) == Some(super::super::value::int(1, 1));
        for p in ["true", "uno", "ueq", "ugt", "uge", "ult", "ule", "une"] {
            assert!(t(p), "{p}");
        }
        for p in ["false", "ord", "oeq", "ogt", "oge", "olt", "ole", "one"] {
            assert!(!t(p), "{p}");
        }
        assert!(fcmp("bogus", &[], f, nan, nan).is_none());
    }

    /// LangRef: out-of-range conversions are poison.
    #[test]
    fn conversions() {
        let c = |op, from: Type, to: Type, v| cast(op, &[], &from, &to, v).unwrap().unwrap();
        assert_eq!(
            c(
                CastOp::FPToSI,
                Type::Float,
                Type::Int(8),
                val(FloatTy::Float, fv(-128.9))
            ),
            Val::Int { bits: 8, v: 0x80 }
        );
        assert_eq!(
            c(
                CastOp::FPToSI,
                Type::Float,
                Type::Int(8),
                val(FloatTy::Float, fv(128.0))
            ),
            Val::Poison
        );
        assert_eq!(
            c(
                CastOp::FPToUI,
                Type::Float,
                Type::Int(8),
                val(FloatTy::Float, fv(-0.5))
            ),
            Val::Int { bits: 8, v: 0 }
        );
        assert_eq!(
            c(
                CastOp::UIToFP,
                Type::Int(8),
                Type::Half,
                Val::Int { bits: 8, v: 255 }
            ),
            val(FloatTy::Half, 0x5BF8)
        );
    }
}
