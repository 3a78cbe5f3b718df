//! IEEE binary floating-point formats of the subset (`half`, `bfloat`,
//! `float`, `double`): literals as LangRef spells them, printing as
//! `opt` prints them, and correctly rounded conversion into each format
//! (docs/RULES.md P-FLOAT).
//!
//! Values are kept as bit patterns (`u64`, zero-extended), so that equal
//! values compare equal and NaN payloads survive the operations that LangRef
//! makes bitwise (`fneg`, `fabs`, `copysign`, loads, stores, `bitcast`).
//!
//! Rounding into `half` and `bfloat` is written here rather than taken from
//! the `half` crate: its `from_f64` drops the low 32 bits of the double's
//! significand before rounding, so a value just above a tie rounds to even
//! instead of up. One rounding routine ([`round`]) serves every format and
//! every source (integers of up to 128 bits, doubles, round-to-odd sums).

use super::Type;

/// A floating-point format of the subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatTy {
    Half,
    BFloat,
    Float,
    Double,
}

impl FloatTy {
    /// The format of an IR type (`x86_fp80` and `fp128` are outside the
    /// subset: `None`).
    pub fn of(ty: &Type) -> Option<FloatTy> {
        match ty {
            Type::Half => Some(FloatTy::Half),
            Type::BFloat => Some(FloatTy::BFloat),
            Type::Float => Some(FloatTy::Float),
            Type::Double => Some(FloatTy::Double),
            _ => None,
        }
    }

    pub fn ty(self) -> Type {
        match self {
            FloatTy::Half => Type::Half,
            FloatTy::BFloat => Type::BFloat,
            FloatTy::Float => Type::Float,
            FloatTy::Double => Type::Double,
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            FloatTy::Half | FloatTy::BFloat => 16,
            FloatTy::Float => 32,
            FloatTy::Double => 64,
        }
    }

    /// Precision in bits, the implicit leading bit included.
    pub fn precision(self) -> u32 {
        match self {
            FloatTy::Half => 11,
            FloatTy::BFloat => 8,
            FloatTy::Float => 24,
            FloatTy::Double => 53,
        }
    }

    /// Largest unbiased exponent (also the bias).
    fn emax(self) -> i32 {
        match self {
            FloatTy::Half => 15,
            FloatTy::BFloat | FloatTy::Float => 127,
            FloatTy::Double => 1023,
        }
    }

    fn frac_bits(self) -> u32 {
        self.precision() - 1
    }

    fn exp_mask(self) -> u64 {
        ((1u64 << (self.bits() - self.precision())) - 1) << self.frac_bits()
    }

    fn sign_bit(self) -> u64 {
        1u64 << (self.bits() - 1)
    }

    /// The canonical NaN the interpreter produces (P-FLOAT-NAN): positive,
    /// quiet, payload zero — LangRef's "preferred NaN".
    pub fn canonical_nan(self) -> u64 {
        self.exp_mask() | (1u64 << (self.frac_bits() - 1))
    }

    pub fn infinity(self, negative: bool) -> u64 {
        self.exp_mask() | if negative { self.sign_bit() } else { 0 }
    }

    pub fn is_nan(self, bits: u64) -> bool {
        bits & self.exp_mask() == self.exp_mask() && bits & ((1u64 << self.frac_bits()) - 1) != 0
    }

    pub fn is_inf(self, bits: u64) -> bool {
        bits & !self.sign_bit() == self.exp_mask()
    }

    pub fn is_negative(self, bits: u64) -> bool {
        bits & self.sign_bit() != 0
    }

    /// `fabs` and `fneg` are bit operations (LangRef): the sign bit alone.
    pub fn abs(self, bits: u64) -> u64 {
        bits & !self.sign_bit()
    }

    pub fn neg(self, bits: u64) -> u64 {
        bits ^ self.sign_bit()
    }

    /// The exact value as a double (every format of the subset is a subset
    /// of `double`). NaNs keep their sign and the top of their payload.
    pub fn to_f64(self, bits: u64) -> f64 {
        match self {
            FloatTy::Double => f64::from_bits(bits),
            _ => {
                let neg = self.is_negative(bits);
                let f = self.frac_bits();
                let frac = bits & ((1u64 << f) - 1);
                let bexp = ((bits & self.exp_mask()) >> f) as i32;
                let top = (self.exp_mask() >> f) as i32;
                let sign = if neg { 1u64 << 63 } else { 0 };
                if bexp == top {
                    // Infinity or NaN: the payload moves to the top of the
                    // double's fraction.
                    return f64::from_bits(sign | 0x7FF0_0000_0000_0000 | (frac << (52 - f)));
                }
                let (m, e) = if bexp == 0 {
                    (frac, 1 - self.emax() - f as i32)
                } else {
                    (frac | (1u64 << f), bexp - self.emax() - f as i32)
                };
                // m * 2^e is exact in a double: m has at most 24 bits and e
                // stays inside the double's range.
                let v = m as f64 * 2f64.powi(e);
                if neg {
                    -v
                } else {
                    v
                }
            }
        }
    }

    /// A double rounded to nearest, ties to even, into this format. A NaN
    /// becomes the canonical NaN (P-FLOAT-NAN).
    pub fn from_f64(self, x: f64) -> u64 {
        if x.is_nan() {
            return self.canonical_nan();
        }
        if x.is_infinite() {
            return self.infinity(x < 0.0);
        }
        if self == FloatTy::Double {
            return x.to_bits();
        }
        if x == 0.0 {
            return if x.is_sign_negative() {
                self.sign_bit()
            } else {
                0
            };
        }
        let (mag, exp) = decompose(x);
        round(x < 0.0, mag as u128, exp, false, self)
    }

    /// An integer (sign and magnitude) rounded into this format.
    pub fn from_int(self, negative: bool, mag: u128) -> u64 {
        if mag == 0 {
            return 0;
        }
        round(negative, mag, 0, false, self)
    }
}

/// A finite non-zero double as `mag * 2^exp` with an integer `mag`.
fn decompose(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let bexp = ((bits >> 52) & 0x7FF) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if bexp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), bexp - 1075)
    }
}

/// `(-1)^negative * (mag + sticky) * 2^exp`, where `sticky` stands for a
/// non-zero amount below `2^exp` smaller than `2^exp`, rounded to nearest,
/// ties to even, into `f` (overflow gives infinity, underflow subnormals or
/// zero). `mag` is not zero.
pub fn round(negative: bool, mag: u128, exp: i32, sticky: bool, f: FloatTy) -> u64 {
    let p = f.precision() as i32;
    let emin = 1 - f.emax();
    let top = 127 - mag.leading_zeros() as i32;
    let e = top + exp;
    // The result is a multiple of 2^q.
    let mut q = e.max(emin) - (p - 1);
    let shift = q - exp;
    let mut m: u128 = if shift <= 0 {
        mag << (-shift) as u32
    } else {
        let kept = mag.checked_shr(shift as u32).unwrap_or(0);
        let rem = if shift >= 128 {
            mag
        } else {
            mag & ((1u128 << shift) - 1)
        };
        let half = 1u128.checked_shl(shift as u32 - 1);
        let up = match half {
            None => false,
            Some(h) => rem > h || (rem == h && (sticky || kept & 1 == 1)),
        };
        kept + up as u128
    };
    if m >> p != 0 {
        m >>= 1;
        q += 1;
    }
    let sign = if negative { f.sign_bit() } else { 0 };
    if m >> (p - 1) == 0 {
        // Subnormal (q is the smallest quantum) or zero.
        return sign | m as u64;
    }
    let bexp = q + p - 1 + f.emax();
    if bexp > 2 * f.emax() {
        return sign | f.exp_mask();
    }
    sign | ((bexp as u64) << f.frac_bits()) | (m as u64 & ((1u64 << f.frac_bits()) - 1))
}

/// A double rounded to odd: when `err` (the exact value minus `x`) is not
/// zero and `x`'s last significand bit is even, the neighbour of `x` on the
/// side of the exact value. Rounding that into a format at least two bits
/// narrower gives the correctly rounded exact value (used for `fma` in
/// `half` and `bfloat`).
pub fn round_to_odd(x: f64, err: f64) -> f64 {
    if err == 0.0 || !x.is_finite() || x.to_bits() & 1 == 1 {
        return x;
    }
    if err > 0.0 {
        x.next_up()
    } else {
        x.next_down()
    }
}

/// The bit pattern of a floating literal of format `f` (LangRef "Simple
/// Constants"): decimal (`1.5`, `-2.0e+3`), `0x` with the bits of a double
/// (for every format; the value must convert exactly), `0xH` (half) and
/// `0xR` (bfloat) with the format's own bits. `Err` says why LLParser
/// rejects it.
pub fn parse_literal(text: &str, f: FloatTy) -> Result<u64, String> {
    let invalid = || "floating point constant invalid for type".to_string();
    let (neg, body) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if let Some(hex) = body.strip_prefix("0x") {
        let own = |want: FloatTy, digits: &str| -> Result<u64, String> {
            if want != f {
                return Err(invalid());
            }
            let b = u64::from_str_radix(digits, 16).map_err(|_| invalid())?;
            if b >> f.bits() != 0 {
                return Err(invalid());
            }
            Ok(if neg { f.neg(b) } else { b })
        };
        return match hex.as_bytes().first() {
            Some(b'H') => own(FloatTy::Half, &hex[1..]),
            Some(b'R') => own(FloatTy::BFloat, &hex[1..]),
            Some(b'K' | b'L' | b'M') => Err(invalid()),
            _ => {
                let b = u64::from_str_radix(hex, 16).map_err(|_| invalid())?;
                let d = f64::from_bits(if neg { b ^ (1 << 63) } else { b });
                exact_into(d, f).ok_or_else(invalid)
            }
        };
    }
    let d: f64 = text.parse().map_err(|_| invalid())?;
    exact_into(d, f).ok_or_else(invalid)
}

/// A double converted into `f` when no information is lost
/// (`ConstantFP::isValueValidForType`); NaNs keep their sign and the top
/// of their payload, quiet bit forced when nothing of the payload remains.
fn exact_into(d: f64, f: FloatTy) -> Option<u64> {
    if f == FloatTy::Double {
        return Some(d.to_bits());
    }
    if d.is_nan() {
        let b = d.to_bits();
        let shift = 52 - f.frac_bits();
        let mut frac = (b & ((1u64 << 52) - 1)) >> shift;
        if frac == 0 {
            frac = 1u64 << (f.frac_bits() - 1);
        }
        let sign = if d.is_sign_negative() {
            f.sign_bit()
        } else {
            0
        };
        return Some(sign | f.exp_mask() | frac);
    }
    let r = f.from_f64(d);
    (f.to_f64(r) == d || (d == 0.0 && r & !f.sign_bit() == 0)).then_some(r)
}

/// The literal `opt` prints for a value of format `f` (LLVM's
/// `AsmWriter`): `float` and `double` in `%e` form with six significant
/// digits when that reads back as the same double, else `0x` and the
/// double's bits in upper-case hex; `half` as `0xH` and `bfloat` as `0xR`
/// with four hex digits.
pub fn print(f: FloatTy, bits: u64) -> String {
    match f {
        FloatTy::Half => format!("0xH{bits:04X}"),
        FloatTy::BFloat => format!("0xR{bits:04X}"),
        FloatTy::Float | FloatTy::Double => {
            let d = if f == FloatTy::Float {
                let x = f.to_f64(bits);
                if x.is_nan() {
                    // LLVM widens the payload (to_f64 does) and keeps the
                    // quiet bit as it was.
                    let quiet = bits & (1 << 22) != 0;
                    let b = x.to_bits();
                    f64::from_bits(if quiet { b | (1 << 51) } else { b & !(1 << 51) })
                } else {
                    x
                }
            } else {
                f64::from_bits(bits)
            };
            if d.is_finite() {
                let s = format!("{d:.5e}");
                if s.parse::<f64>().ok() == Some(d) {
                    let (mant, exp) = s.split_once('e').expect("{:e} prints an exponent");
                    let exp: i32 = exp.parse().expect("{:e} prints an integer exponent");
                    let sign = if exp < 0 { '-' } else { '+' };
                    return format!("{mant}0e{sign}{:02}", exp.abs());
                }
            }
            format!("0x{:X}", d.to_bits())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Literals as `opt-22` prints them (checked against `opt-22 -S`).
    #[test]
    fn prints_like_opt() {
        let d = |x: f64| print(FloatTy::Double, x.to_bits());
        assert_eq!(d(0.3), "3.000000e-01");
        assert_eq!(d(123456.5), "0x40FE240800000000");
        assert_eq!(d(1e100), "1.000000e+100");
        assert_eq!(d(-0.0), "-0.000000e+00");
        assert_eq!(d(f64::from_bits(1)), "4.940660e-324");
        assert_eq!(d(1.23e-6), "1.230000e-06");
        assert_eq!(d(f64::INFINITY), "0x7FF0000000000000");
        let fl = |x: f32| print(FloatTy::Float, x.to_bits() as u64);
        assert_eq!(fl(0.1), "0x3FB99999A0000000");
        assert_eq!(fl(1.0), "1.000000e+00");
        assert_eq!(
            print(FloatTy::Float, FloatTy::Float.canonical_nan()),
            "0x7FF8000000000000"
        );
        assert_eq!(print(FloatTy::Half, 0x3800), "0xH3800");
        assert_eq!(print(FloatTy::BFloat, 0x3F80), "0xR3F80");
    }

    /// LLParser's acceptance: `float 0.1` is inexact, `half 0.5` exact.
    #[test]
    fn literals() {
        assert!(parse_literal("0.1", FloatTy::Float).is_err());
        assert_eq!(parse_literal("0.5", FloatTy::Half), Ok(0x3800));
        assert_eq!(parse_literal("0xH3800", FloatTy::Half), Ok(0x3800));
        assert!(parse_literal("0xH3800", FloatTy::Float).is_err());
        assert_eq!(
            parse_literal("0x3FB99999A0000000", FloatTy::Float),
            Ok(0.1f32.to_bits() as u64)
        );
        assert_eq!(
            parse_literal("-1.5e+3", FloatTy::Double),
            Ok((-1500f64).to_bits())
        );
        assert_eq!(parse_literal("1.e5", FloatTy::Double), Ok(1e5f64.to_bits()));
        assert_eq!(
            parse_literal("0x7FF8000000000000", FloatTy::Half),
            Ok(FloatTy::Half.canonical_nan())
        );
    }

    /// Rounding agrees with the hardware for `float` and rounds ties to
    /// even, with sticky bits below the first 32 of the double's fraction
    /// (where the `half` crate's conversion goes wrong).
    #[test]
    fn rounding() {
        for x in [1.0f64, 0.1, 1e-40, 3.4e38, 3.5e38, -7.25, 1e-46, 5e-324] {
            assert_eq!(
                FloatTy::Float.from_f64(x),
                (x as f32).to_bits() as u64,
                "{x}"
            );
        }
        // 1 + 2^-11 is a tie in half: to even (1.0); a hair above: up.
        let tie = 1.0 + 2f64.powi(-11);
        assert_eq!(FloatTy::Half.from_f64(tie), 0x3C00);
        assert_eq!(FloatTy::Half.from_f64(tie + 2f64.powi(-40)), 0x3C01);
        assert_eq!(FloatTy::Half.from_f64(65520.0), 0x7C00);
        assert_eq!(FloatTy::Half.from_f64(65519.0), 0x7BFF);
        assert_eq!(FloatTy::Half.from_f64(2f64.powi(-25)), 0);
        assert_eq!(FloatTy::Half.from_f64(2f64.powi(-25) * 1.5), 1);
        assert_eq!(
            FloatTy::BFloat.from_int(false, (1 << 24) + (1 << 16) + 1),
            0x4B81
        );
        for b in [0u64, 1, 0x3C00, 0x7BFF, 0x8001, 0x03FF] {
            assert_eq!(FloatTy::Half.from_f64(FloatTy::Half.to_f64(b)), b);
        }
        assert_eq!(
            FloatTy::Float.from_int(false, u128::MAX),
            (u128::MAX as f32).to_bits() as u64
        );
    }
}
