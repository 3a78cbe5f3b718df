//! Small float kernels and their mutants for MC-07 (M-AGREE) on floats
//! (docs/RULES.md R-FLOAT-SMT): `@k(i32 %x)` converts its per-thread
//! argument to a float, runs a few float operations (arithmetic with
//! fast-math flags, `fneg`, conversions, float intrinsics) mixing the
//! argument with corner-case constants ([`crate::floats::value`]: signed
//! zeros, subnormals, the largest finite value, infinities, NaN, rounding
//! ties), branches on an `fcmp` of the result (divergent: threads have
//! different `%x`), and feeds a ballot in the branch and an observed call
//! after it with compares and bit patterns of the values. Mutations change
//! one operation, swap operands, change a constant, toggle a fast-math
//! flag, or change the predicate: each target refines its source or not,
//! and the two formalizations must say the same.

use proptest::prelude::{any, prop_oneof, Strategy};
use proptest::sample::select;

use crate::floats::{value, Fmt};

/// An operand: an earlier value (by index, 0 is `sitofp %x`) or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Val(usize),
    Const(u64),
}

/// One float operation; its result is the next value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FStep {
    /// `fadd`/`fsub`/`fmul`/`fdiv`/`frem` with fast-math flags.
    Bin {
        op: &'static str,
        flags: &'static str,
        a: Src,
        b: Src,
    },
    Neg(Src),
    /// A two-operand intrinsic (`minnum`, `maximum`, `copysign`) or a
    /// one-operand one (`fabs`, `floor`, `sqrt`, ...; `b` unused).
    Intr {
        name: &'static str,
        a: Src,
        b: Src,
    },
    /// `fpext` to `double` and `fptrunc` back (or the reverse for double:
    /// `fptrunc` to `float` and back).
    RoundTrip(Src),
}

/// A kernel of the family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FProg {
    pub fmt: Fmt,
    pub steps: Vec<FStep>,
    /// The branch's predicate and constant.
    pub pred: &'static str,
    pub bound: u64,
}

const BIN: [&str; 5] = ["fadd", "fsub", "fmul", "fdiv", "frem"];
const FLAGS: [&str; 4] = ["", "nnan", "ninf", "nsz"];
const UNARY: [&str; 5] = ["fabs", "floor", "sqrt", "trunc", "canonicalize"];
const BINARY: [&str; 4] = ["minnum", "maxnum", "maximum", "copysign"];
const PREDS: [&str; 8] = ["oeq", "ogt", "ole", "one", "ueq", "ult", "uge", "uno"];

fn arb_src(f: Fmt, n: usize) -> impl Strategy<Value = Src> {
    prop_oneof![
        2 => (0..n).prop_map(Src::Val),
        1 => value(f).prop_map(Src::Const),
    ]
}

fn arb_step(f: Fmt, n: usize) -> impl Strategy<Value = FStep> {
    prop_oneof![
        4 => (select(&BIN[..]), select(&FLAGS[..]), arb_src(f, n), arb_src(f, n))
            .prop_map(|(op, flags, a, b)| FStep::Bin { op, flags, a, b }),
        1 => arb_src(f, n).prop_map(FStep::Neg),
        1 => (select(&UNARY[..]), arb_src(f, n)).prop_map(|(name, a)| FStep::Intr { name, a, b: a }),
        1 => (select(&BINARY[..]), arb_src(f, n), arb_src(f, n))
            .prop_map(|(name, a, b)| FStep::Intr { name, a, b }),
        1 => arb_src(f, n).prop_map(FStep::RoundTrip),
    ]
}

/// A kernel of 1 to `max_steps` operations over format `f`.
pub fn arb_prog_of(f: Fmt, max_steps: usize) -> impl Strategy<Value = FProg> {
    (1..=max_steps).prop_flat_map(move |n| {
        let steps: Vec<_> = (0..n).map(|i| arb_step(f, i + 1).boxed()).collect();
        (steps, select(&PREDS[..]), value(f)).prop_map(move |(steps, pred, bound)| FProg {
            fmt: f,
            steps,
            pred,
            bound,
        })
    })
}

/// A kernel over `half` (the cheapest format to decide; the operators
/// are the same for every format, `checker`'s `float_tests` checks each
/// format's against the interpreter).
pub fn arb_prog(max_steps: usize) -> impl Strategy<Value = FProg> {
    arb_prog_of(Fmt::Half, max_steps)
}

/// What a mutation changes (indices are taken modulo the sizes).
#[derive(Clone, Debug)]
pub enum FMutation {
    Op(usize, usize),
    Swap(usize),
    Const(usize, u64),
    Flag(usize, usize),
    Pred(usize),
    Bound(u64),
}

pub fn arb_mutation() -> impl Strategy<Value = FMutation> {
    prop_oneof![
        (any::<usize>(), 0..BIN.len()).prop_map(|(i, k)| FMutation::Op(i, k)),
        any::<usize>().prop_map(FMutation::Swap),
        (any::<usize>(), value(Fmt::Float)).prop_map(|(i, b)| FMutation::Const(i, b)),
        (any::<usize>(), 0..FLAGS.len()).prop_map(|(i, k)| FMutation::Flag(i, k)),
        (0..PREDS.len()).prop_map(FMutation::Pred),
        value(Fmt::Float).prop_map(FMutation::Bound),
    ]
}

fn fit(f: Fmt, b: u64) -> u64 {
    if f.bits() == 64 {
        b
    } else {
        b & ((1u64 << f.bits()) - 1)
    }
}

/// `p` with mutation `m` applied (a mutation that does not apply to the
/// chosen step leaves the program as it is).
pub fn mutate(p: &FProg, m: &FMutation) -> FProg {
    let mut q = p.clone();
    let n = q.steps.len();
    match *m {
        FMutation::Op(i, k) => {
            if let FStep::Bin { op, .. } = &mut q.steps[i % n] {
                *op = BIN[k];
            }
        }
        FMutation::Swap(i) => match &mut q.steps[i % n] {
            FStep::Bin { a, b, .. } | FStep::Intr { a, b, .. } => std::mem::swap(a, b),
            _ => {}
        },
        FMutation::Const(i, bits) => match &mut q.steps[i % n] {
            FStep::Bin {
                b: Src::Const(c), ..
            }
            | FStep::Bin {
                a: Src::Const(c), ..
            } => *c = fit(p.fmt, bits),
            _ => q.bound = fit(p.fmt, bits),
        },
        FMutation::Flag(i, k) => {
            if let FStep::Bin { flags, .. } = &mut q.steps[i % n] {
                *flags = FLAGS[k];
            }
        }
        FMutation::Pred(k) => q.pred = PREDS[k],
        FMutation::Bound(bits) => q.bound = fit(p.fmt, bits),
    }
    q
}

/// The kernel's text.
pub fn render(p: &FProg) -> String {
    let f = p.fmt;
    let ty = f.ir();
    let w = f.bits();
    let sfx = match f {
        Fmt::Half => "f16",
        Fmt::BFloat => "bf16",
        Fmt::Float => "f32",
        Fmt::Double => "f64",
    };
    let src = |s: &Src| match s {
        Src::Val(i) => format!("%v{i}"),
        Src::Const(b) => f.literal(*b),
    };
    let mut body = String::new();
    let mut decls = std::collections::BTreeSet::new();
    body.push_str(&format!("  %v0 = sitofp i32 %x to {ty}\n"));
    for (i, s) in p.steps.iter().enumerate() {
        let v = i + 1;
        match s {
            FStep::Bin { op, flags, a, b } => body.push_str(&format!(
                "  %v{v} = {op} {flags} {ty} {}, {}\n",
                src(a),
                src(b)
            )),
            FStep::Neg(a) => body.push_str(&format!("  %v{v} = fneg {ty} {}\n", src(a))),
            FStep::Intr { name, a, b } => {
                if UNARY.contains(name) {
                    decls.insert(format!("declare {ty} @llvm.{name}.{sfx}({ty})"));
                    body.push_str(&format!(
                        "  %v{v} = call {ty} @llvm.{name}.{sfx}({ty} {})\n",
                        src(a)
                    ));
                } else {
                    decls.insert(format!("declare {ty} @llvm.{name}.{sfx}({ty}, {ty})"));
                    body.push_str(&format!(
                        "  %v{v} = call {ty} @llvm.{name}.{sfx}({ty} {}, {ty} {})\n",
                        src(a),
                        src(b)
                    ));
                }
            }
            FStep::RoundTrip(a) => {
                let other = if f == Fmt::Double { "float" } else { "double" };
                let (there, back) = if f == Fmt::Double {
                    ("fptrunc", "fpext")
                } else {
                    ("fpext", "fptrunc")
                };
                body.push_str(&format!(
                    "  %r{v} = {there} {ty} {} to {other}\n  %v{v} = {back} {other} %r{v} to {ty}\n",
                    src(a)
                ));
            }
        }
    }
    let last = p.steps.len();
    let decls: Vec<String> = decls.into_iter().collect();
    format!(
        "define void @k(i32 %x) convergent {{
entry:
  %tok = call token @llvm.experimental.convergence.entry()
{body}  %c = fcmp {pred} {ty} %v{last}, {bound}
  br i1 %c, label %then, label %end
then:
  %d = fcmp olt {ty} %v{last}, %v0
  %m = call i32 @llvm.amdgcn.ballot.i32(i1 %d) [ \"convergencectrl\"(token %tok) ]
  call void @use32(i32 %m)
  br label %end
end:
  %bits = bitcast {ty} %v{last} to i{w}
  call void @use{w}(i{w} %bits)
  ret void
}}

declare token @llvm.experimental.convergence.entry() convergent
declare i32 @llvm.amdgcn.ballot.i32(i1) convergent nounwind willreturn memory(none)
declare void @use32(i32)
{}
{}
",
        if w == 32 {
            String::new()
        } else {
            format!("declare void @use{w}(i{w})")
        },
        decls.join("\n"),
        pred = p.pred,
        bound = f.literal(p.bound),
    )
}
