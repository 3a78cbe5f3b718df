//! Floating-point expressions over constants (docs/RULES.md P-FLOAT), one
//! instruction per function, for the differential test of the interpreter
//! against `opt-22`'s constant folding (`semantics/tests/interp_float.rs`);
//! and small kernels over floats, pointers and memory
//! ([`arb_memory_kernel`]) for the reductions oracle.
//!
//! Operands mix the values where IEEE arithmetic has its corner cases
//! (signed zeros, the smallest subnormal, the largest finite value,
//! infinities, the canonical NaN, exact halves for rounding ties) with
//! random bit patterns. NaNs are generated only as the canonical quiet NaN:
//! LangRef leaves NaN payloads nondeterministic, and the comparison ignores
//! them anyway.

use proptest::prelude::{any, prop_oneof, Just, Strategy};
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

/// One step of a generated kernel over floats, pointers and memory
/// ([`arb_memory_kernel`]); operands index the float values defined so far.
#[derive(Clone, Debug)]
pub enum Step {
    Arith(&'static str, usize, usize),
    Intrinsic(&'static str, usize, usize),
    /// `select (fcmp pred a, b), a, b`.
    Select(&'static str, usize, usize),
    /// Store value `v` to this thread's slot (`@lds` or `@out`), or to the
    /// next thread's (a race when no barrier orders it: the interpreter
    /// shows the schedules' values, P-MEM-RACE).
    Store {
        shared: bool,
        next: bool,
        v: usize,
    },
    /// Load this thread's or the next thread's slot as a new value.
    Load {
        shared: bool,
        next: bool,
    },
    Barrier,
    /// A subgroup read of value `v` from the first active lane.
    FirstLane(usize),
    /// Branch on `fcmp olt a, b` around a store to `@out`.
    Branch(usize, usize),
    /// `ptrtoint` of two slot pointers compared `ult`, selecting a value.
    PtrCompare(usize, usize),
}

fn step() -> impl Strategy<Value = Step> {
    let ix = || 0..64usize;
    prop_oneof![
        3 => (select(vec!["fadd", "fsub", "fmul", "fdiv"]), ix(), ix())
            .prop_map(|(o, a, b)| Step::Arith(o, a, b)),
        1 => (select(vec!["minnum", "maximum", "copysign"]), ix(), ix())
            .prop_map(|(o, a, b)| Step::Intrinsic(o, a, b)),
        1 => (select(vec!["olt", "ueq", "one", "uno"]), ix(), ix())
            .prop_map(|(p, a, b)| Step::Select(p, a, b)),
        2 => (any::<bool>(), any::<bool>(), ix()).prop_map(|(shared, next, v)| Step::Store { shared, next, v }),
        2 => (any::<bool>(), any::<bool>()).prop_map(|(shared, next)| Step::Load { shared, next }),
        1 => Just(Step::Barrier),
        1 => ix().prop_map(Step::FirstLane),
        1 => (ix(), ix()).prop_map(|(a, b)| Step::Branch(a, b)),
        1 => (ix(), ix()).prop_map(|(a, b)| Step::PtrCompare(a, b)),
    ]
}

/// A kernel of 3 to 10 steps over floats (the per-thread argument `%x`, the thread id
/// converted), a workgroup array `@lds` and an observed global `@out`, with
/// barriers and a first-lane read: for the interpreter's reductions oracle
/// (`semantics/tests/interp_reduce.rs`). Slots are indexed by thread id
/// modulo 4, so any thread count runs in bounds.
pub fn arb_memory_kernel() -> impl Strategy<Value = String> {
    proptest::collection::vec(step(), 3..=10).prop_map(|steps| memory_kernel(&steps))
}

/// Thread id, this thread's slot and the next thread's, the id as a float.
const PROLOGUE: &str = "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %me = urem i32 %t, 4\n  %t1 = add i32 %t, 1\n  %nx = urem i32 %t1, 4\n  %tf = uitofp i32 %t to float\n";

/// The text of a kernel of `steps`.
pub fn memory_kernel(steps: &[Step]) -> String {
    let mut b = String::new();
    let mut vals = vec!["%x".to_string(), "%tf".to_string()];
    let mut fresh = 0usize;
    let mut name = |p: &str| {
        fresh += 1;
        format!("%{p}{fresh}")
    };
    let slot = |b: &mut String, shared: bool, next: bool, n: String| -> String {
        let (g, sp) = if shared {
            ("@lds", " addrspace(3)")
        } else {
            ("@out", "")
        };
        let i = if next { "%nx" } else { "%me" };
        b.push_str(&format!(
            "  {n} = getelementptr [4 x float], ptr{sp} {g}, i32 0, i32 {i}\n"
        ));
        format!("ptr{sp} {n}")
    };
    let mut blocks = 0;
    for s in steps {
        let pick = |k: usize| vals[k % vals.len()].clone();
        match s {
            Step::Arith(op, a, c) => {
                let r = name("f");
                b.push_str(&format!("  {r} = {op} float {}, {}\n", pick(*a), pick(*c)));
                vals.push(r);
            }
            Step::Intrinsic(op, a, c) => {
                let r = name("f");
                b.push_str(&format!(
                    "  {r} = call float @llvm.{op}.f32(float {}, float {})\n",
                    pick(*a),
                    pick(*c)
                ));
                vals.push(r);
            }
            Step::Select(p, a, c) => {
                let (cc, r) = (name("c"), name("f"));
                let (x, y) = (pick(*a), pick(*c));
                b.push_str(&format!("  {cc} = fcmp {p} float {x}, {y}\n"));
                b.push_str(&format!("  {r} = select i1 {cc}, float {x}, float {y}\n"));
                vals.push(r);
            }
            Step::Store { shared, next, v } => {
                let p = slot(&mut b, *shared, *next, name("p"));
                b.push_str(&format!("  store float {}, {p}, align 4\n", pick(*v)));
            }
            Step::Load { shared, next } => {
                let p = slot(&mut b, *shared, *next, name("p"));
                let r = name("f");
                b.push_str(&format!("  {r} = load float, {p}, align 4\n"));
                vals.push(r);
            }
            Step::Barrier => b.push_str("  call void @llvm.amdgcn.s.barrier()\n"),
            Step::FirstLane(v) => {
                let r = name("f");
                b.push_str(&format!(
                    "  {r} = call float @llvm.amdgcn.readfirstlane.f32(float {})\n",
                    pick(*v)
                ));
                vals.push(r);
            }
            Step::Branch(a, c) => {
                blocks += 1;
                let cc = name("c");
                b.push_str(&format!(
                    "  {cc} = fcmp olt float {}, {}\n  br i1 {cc}, label %then{blocks}, label %join{blocks}\nthen{blocks}:\n",
                    pick(*a),
                    pick(*c)
                ));
                let p = slot(&mut b, false, false, name("p"));
                b.push_str(&format!(
                    "  store float {}, {p}, align 4\n  br label %join{blocks}\njoin{blocks}:\n",
                    pick(*a)
                ));
            }
            Step::PtrCompare(a, c) => {
                let (p, q) = (
                    slot(&mut b, true, false, name("p")),
                    slot(&mut b, true, true, name("p")),
                );
                let (i, j, cc, r) = (name("i"), name("i"), name("c"), name("f"));
                b.push_str(&format!(
                    "  {i} = ptrtoint {p} to i32\n  {j} = ptrtoint {q} to i32\n  {cc} = icmp ult i32 {i}, {j}\n  {r} = select i1 {cc}, float {}, float {}\n",
                    pick(*a),
                    pick(*c)
                ));
                vals.push(r);
            }
        }
    }
    let last = vals.last().expect("two values at least").clone();
    let p = slot(&mut b, false, false, name("p"));
    format!(
        "@lds = addrspace(3) global [4 x float] poison\n@out = global [4 x float] zeroinitializer\n\
declare i32 @llvm.amdgcn.workitem.id.x()\ndeclare void @llvm.amdgcn.s.barrier() convergent\n\
declare float @llvm.amdgcn.readfirstlane.f32(float) convergent\n\
declare float @llvm.minnum.f32(float, float)\ndeclare float @llvm.maximum.f32(float, float)\n\
declare float @llvm.copysign.f32(float, float)\n\
define void @k(float %x) {{\nentry:\n{PROLOGUE}{b}  store float {last}, {p}, align 4\n  ret void\n}}\n"
    )
}
