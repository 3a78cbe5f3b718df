//! Floating-point expressions over constants (docs/RULES.md P-FLOAT), one
//! instruction per function, for the differential test of the interpreter
//! against `opt-22`'s constant folding (`semantics/tests/interp_float.rs`).
//!
//! Operands mix the values where IEEE arithmetic has its corner cases
//! (signed zeros, the smallest subnormal, the largest finite value,
//! infinities, the canonical NaN, exact halves for rounding ties) with
//! random bit patterns. NaNs are generated only as the canonical quiet NaN:
//! LangRef leaves NaN payloads nondeterministic, and the comparison ignores
//! them anyway.

use proptest::prelude::{any, prop_oneof, Strategy};
use proptest::sample::select;

/// A format: its IR name, intrinsic suffix, width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    Half,
    BFloat,
    Float,
    Double,
}

impl Fmt {
    pub const ALL: [Fmt; 4] = [Fmt::Half, Fmt::BFloat, Fmt::Float, Fmt::Double];

    pub fn ir(self) -> &'static str {
        match self {
            Fmt::Half => "half",
            Fmt::BFloat => "bfloat",
            Fmt::Float => "float",
            Fmt::Double => "double",
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Fmt::Half => "f16",
            Fmt::BFloat => "bf16",
            Fmt::Float => "f32",
            Fmt::Double => "f64",
        }
    }

    pub fn bits(self) -> u32 {
        match self {
            Fmt::Half | Fmt::BFloat => 16,
            Fmt::Float => 32,
            Fmt::Double => 64,
        }
    }

    /// (exponent bits, fraction bits).
    fn fields(self) -> (u32, u32) {
        match self {
            Fmt::Half => (5, 10),
            Fmt::BFloat => (8, 7),
            Fmt::Float => (8, 23),
            Fmt::Double => (11, 52),
        }
    }

    fn is_nan(self, b: u64) -> bool {
        let (e, f) = self.fields();
        let exp = (b >> f) & ((1 << e) - 1);
        exp == (1 << e) - 1 && b & ((1 << f) - 1) != 0
    }

    fn canonical_nan(self) -> u64 {
        let (e, f) = self.fields();
        (((1u64 << e) - 1) << f) | (1 << (f - 1))
    }

    /// Corner-case bit patterns: ±0, ±1, 0.5, 1.5, 2.5, the smallest
    /// subnormal, the largest finite, ±infinity, NaN, 3, 0.1 (rounded).
    fn specials(self) -> Vec<u64> {
        let (e, f) = self.fields();
        let bias = (1u64 << (e - 1)) - 1;
        let sign = 1u64 << (e + f);
        let num = |exp: u64, frac: u64| ((exp + bias) << f) | frac;
        let inf = ((1u64 << e) - 1) << f;
        vec![
            0,
            sign,
            num(0, 0),
            sign | num(0, 0),
            num(0, 0) - (1 << f), // 0.5
            num(0, 1 << (f - 1)), // 1.5
            num(1, 1 << (f - 2)), // 2.5
            num(1, 1 << (f - 1)), // 3
            1,                    // smallest subnormal
            inf - 1,              // largest finite
            inf,
            sign | inf,
            self.canonical_nan(),
            num(0, 0) - (4 << f) + (0x99999 & ((1 << f) - 1)), // about 0.1
        ]
    }

    /// A literal for bits `b` that every format's parser accepts: `0xH`,
    /// `0xR`, or the double's bits.
    pub fn literal(self, b: u64) -> String {
        match self {
            Fmt::Half => format!("0xH{b:04X}"),
            Fmt::BFloat => format!("0xR{b:04X}"),
            Fmt::Float => {
                if self.is_nan(b) {
                    "0x7FF8000000000000".into()
                } else {
                    format!("0x{:016X}", (f32::from_bits(b as u32) as f64).to_bits())
                }
            }
            Fmt::Double => format!("0x{b:016X}"),
        }
    }
}

/// A value of a format: a corner case or random bits (NaNs canonical).
pub fn value(f: Fmt) -> impl Strategy<Value = u64> {
    let mask = if f.bits() == 64 {
        u64::MAX
    } else {
        (1u64 << f.bits()) - 1
    };
    prop_oneof![
        select(f.specials()),
        any::<u64>().prop_map(move |b| {
            let b = b & mask;
            if f.is_nan(b) {
                f.canonical_nan()
            } else {
                b
            }
        })
    ]
}

/// An integer operand for `sitofp`/`uitofp`: width and value (signed
/// decimal), around the formats' precision limits or random.
fn int_value() -> impl Strategy<Value = (u32, i128)> {
    (select(vec![8u32, 16, 32, 64]), any::<i64>(), 0..4u8).prop_map(|(w, r, kind)| {
        let v: i128 = match kind {
            // Around 2^11, 2^24, 2^53 (+1 makes a tie or a sticky bit).
            0 => (1i128 << [11, 24, 53][(r as u64 % 3) as usize]) + (r % 5) as i128,
            _ => r as i128,
        };
        let m = (1i128 << w) - 1;
        let u = v & m;
        let s = if u >= 1 << (w - 1) { u - (1 << w) } else { u };
        (w, s)
    })
}

/// One instruction over constants and the function that returns it.
#[derive(Clone, Debug)]
pub struct Case {
    /// The operation as a short name (`fadd`, `fcmp ult`, `llvm.fma`...).
    pub what: String,
    /// `define <ty> @NAME() { ... }` body lines: instruction and `ret`.
    pub body: String,
    pub ret_ty: String,
    /// Intrinsic declarations the body needs.
    pub decls: Vec<String>,
}

impl Case {
    pub fn function(&self, name: &str) -> String {
        format!(
            "define {} @{name}() {{\nentry:\n{}}}\n",
            self.ret_ty, self.body
        )
    }
}

const FCMP: [&str; 16] = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
    "une", "uno", "true",
];

const INTRINSICS: [(&str, usize); 18] = [
    ("fabs", 1),
    ("copysign", 2),
    ("fma", 3),
    ("fmuladd", 3),
    ("minnum", 2),
    ("maxnum", 2),
    ("minimum", 2),
    ("maximum", 2),
    ("minimumnum", 2),
    ("maximumnum", 2),
    ("sqrt", 1),
    ("floor", 1),
    ("ceil", 1),
    ("trunc", 1),
    ("round", 1),
    ("rint", 1),
    ("nearbyint", 1),
    ("roundeven", 1),
];

fn flags() -> impl Strategy<Value = &'static str> {
    select(vec!["", "", "", "nnan ", "ninf ", "nsz ", "fast "])
}

/// A case over format `f`.
pub fn case_of(f: Fmt) -> impl Strategy<Value = Case> {
    let t = f.ir();
    let v = move || value(f);
    let binary = (
        select(vec!["fadd", "fsub", "fmul", "fdiv", "frem"]),
        flags(),
        v(),
        v(),
    )
        .prop_map(move |(op, fl, a, b)| Case {
            what: op.into(),
            body: format!(
                "  %r = {op} {fl}{t} {}, {}\n  ret {t} %r\n",
                f.literal(a),
                f.literal(b)
            ),
            ret_ty: t.into(),
            decls: vec![],
        });
    let fneg = v().prop_map(move |a| Case {
        what: "fneg".into(),
        body: format!("  %r = fneg {t} {}\n  ret {t} %r\n", f.literal(a)),
        ret_ty: t.into(),
        decls: vec![],
    });
    let fcmp = (select(FCMP.to_vec()), v(), v()).prop_map(move |(p, a, b)| Case {
        what: format!("fcmp {p}"),
        body: format!(
            "  %r = fcmp {p} {t} {}, {}\n  ret i1 %r\n",
            f.literal(a),
            f.literal(b)
        ),
        ret_ty: "i1".into(),
        decls: vec![],
    });
    let intr = (select(INTRINSICS.to_vec()), v(), v(), v()).prop_map(move |((n, k), a, b, c)| {
        let args = [a, b, c][..k]
            .iter()
            .map(|x| format!("{t} {}", f.literal(*x)))
            .collect::<Vec<_>>()
            .join(", ");
        let name = format!("llvm.{n}.{}", f.suffix());
        let params = vec![t; k].join(", ");
        Case {
            what: format!("llvm.{n}"),
            body: format!("  %r = call {t} @{name}({args})\n  ret {t} %r\n"),
            ret_ty: t.into(),
            decls: vec![format!("declare {t} @{name}({params})")],
        }
    });
    let to_int = (
        select(vec!["fptosi", "fptoui"]),
        select(vec![1u32, 8, 16, 32, 64]),
        v(),
    )
        .prop_map(move |(op, w, a)| Case {
            what: op.into(),
            body: format!("  %r = {op} {t} {} to i{w}\n  ret i{w} %r\n", f.literal(a)),
            ret_ty: format!("i{w}"),
            decls: vec![],
        });
    let from_int =
        (select(vec!["sitofp", "uitofp"]), int_value()).prop_map(move |(op, (w, x))| Case {
            what: op.into(),
            body: format!("  %r = {op} i{w} {x} to {t}\n  ret {t} %r\n"),
            ret_ty: t.into(),
            decls: vec![],
        });
    let fp_cast = (select(Fmt::ALL.to_vec()), v()).prop_map(move |(g, a)| {
        let (op, ok) = match (f.bits(), g.bits()) {
            (x, y) if x < y => ("fpext", true),
            (x, y) if x > y => ("fptrunc", true),
            _ => ("bitcast", f == g),
        };
        if ok {
            Case {
                what: op.into(),
                body: format!(
                    "  %r = {op} {t} {} to {}\n  ret {} %r\n",
                    f.literal(a),
                    g.ir(),
                    g.ir()
                ),
                ret_ty: g.ir().into(),
                decls: vec![],
            }
        } else {
            let w = f.bits();
            Case {
                what: "bitcast".into(),
                body: format!(
                    "  %r = bitcast {t} {} to i{w}\n  ret i{w} %r\n",
                    f.literal(a)
                ),
                ret_ty: format!("i{w}"),
                decls: vec![],
            }
        }
    });
    prop_oneof![
        3 => binary,
        1 => fneg,
        2 => fcmp,
        3 => intr,
        1 => to_int,
        1 => from_int,
        1 => fp_cast,
    ]
}

/// A case over any of the four formats.
pub fn case() -> impl Strategy<Value = Case> {
    select(Fmt::ALL.to_vec()).prop_flat_map(case_of)
}
