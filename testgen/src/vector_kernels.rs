//! Small vector kernels and their mutants for MC-07 (M-AGREE) on vectors
//! (docs/RULES.md P-VEC-*, R-VEC-SMT): `@k(ptr %in, ptr %out, i32 %x)`
//! loads a `<4 x i8>` from its slot of `%in` (thread id modulo 4), splats
//! its argument, runs a few vector operations (element-wise arithmetic
//! with flags, shuffles with poison mask elements, compares and selects,
//! inserts and extracts at constant and variable indices, casts through
//! `<4 x i16>`, `<2 x i16>`, `i32` and `<4 x half>`, float compares and
//! float reductions), stores the result to its slot of
//! `%out`, reduces it (`llvm.vector.reduce.*`), branches on the frozen
//! reduction (divergent: threads have different inputs), takes a ballot of an
//! extracted element in the branch and observes the reduction after it.
//! Mutations change a shuffle mask element, an operation, a flag, a
//! constant element, the reduction or the compare: each target refines its
//! source or not, and the two formalizations must say the same.

use proptest::prelude::{any, prop_oneof, Just, Strategy};
use proptest::sample::select;

/// The second operand of an arithmetic step: an earlier vector or a
/// constant vector (`None`: a poison element).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VSrc {
    Val(usize),
    Const([Option<i8>; 4]),
}

/// One step; its result is the next vector value (v0 is the loaded
/// vector, v1 the splat of `trunc %x`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VStep {
    Bin {
        op: &'static str,
        flags: &'static str,
        a: usize,
        b: VSrc,
    },
    /// `shufflevector a, b, mask` (mask elements below 8, or poison).
    Shuffle {
        a: usize,
        b: usize,
        mask: [Option<u8>; 4],
    },
    /// `select (icmp pred a, b), a, b`.
    Select {
        pred: &'static str,
        a: usize,
        b: usize,
    },
    /// `insertelement a, trunc %x, idx` (`None`: the index is `%x`, out of
    /// range when `%x` is above 3).
    Insert { a: usize, idx: Option<u8> },
    /// 0: through `<4 x i16>` (`sext`, `mul` by 3, `trunc`); 1: through
    /// `i32` (`bitcast`, `add 1`, `bitcast` back); 2: through `<4 x half>`
    /// (`sitofp`, `fmul` by 0.5, `fptosi`).
    Cast { a: usize, kind: u8 },
    /// The splat of `extractelement a, idx` (`None`: index `%x`).
    Extract { a: usize, idx: Option<u8> },
    /// Floats: `a` and `b` converted to `<4 x half>`, then 0: `select
    /// (fcmp olt), a, b`; 1: the splat of `llvm.vector.reduce.fadd` of
    /// `a` from -0.0 (in order); 2: of `reduce.fmax`; 3: of `reduce.fminimum`;
    /// converted back with `fptosi`.
    Float { a: usize, b: usize, kind: u8 },
    /// `bitcast` to `<2 x i16>`, `add` 257 to each element, back.
    Widen { a: usize },
}

/// A kernel of the family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VProg {
    pub steps: Vec<VStep>,
    pub reduce: &'static str,
    pub pred: &'static str,
    pub bound: i8,
}

const BIN: [&str; 9] = [
    "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr",
];
const FLAGS: [&str; 3] = ["", "nsw", "nuw"];
const PREDS: [&str; 6] = ["eq", "ne", "slt", "ugt", "sge", "ule"];
const REDUCE: [&str; 7] = ["add", "mul", "xor", "smax", "umin", "and", "or"];

fn elem() -> impl Strategy<Value = Option<i8>> {
    prop_oneof![
        12 => select(vec![0i8, 1, 2, 3, -1, 7, -128, 127]).prop_map(Some),
        1 => Just(None),
    ]
}

fn arb_src(n: usize) -> impl Strategy<Value = VSrc> {
    prop_oneof![
        2 => (0..n).prop_map(VSrc::Val),
        1 => [elem(), elem(), elem(), elem()].prop_map(VSrc::Const),
    ]
}

fn mask_elem() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![6 => (0u8..8).prop_map(Some), 1 => Just(None)]
}

fn index() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![3 => (0u8..4).prop_map(Some), 1 => Just(None)]
}

fn arb_step(n: usize) -> impl Strategy<Value = VStep> {
    prop_oneof![
        4 => (select(BIN.to_vec()), select(FLAGS.to_vec()), 0..n, arb_src(n)).prop_map(
            |(op, flags, a, b)| {
                let flags = if matches!(op, "add" | "sub" | "mul" | "shl") { flags } else { "" };
                VStep::Bin { op, flags, a, b }
            }
        ),
        3 => (0..n, 0..n, [mask_elem(), mask_elem(), mask_elem(), mask_elem()])
            .prop_map(|(a, b, mask)| VStep::Shuffle { a, b, mask }),
        1 => (select(PREDS.to_vec()), 0..n, 0..n).prop_map(|(pred, a, b)| VStep::Select { pred, a, b }),
        1 => (0..n, index()).prop_map(|(a, idx)| VStep::Insert { a, idx }),
        1 => (0..n, 0u8..3).prop_map(|(a, kind)| VStep::Cast { a, kind }),
        1 => (0..n, index()).prop_map(|(a, idx)| VStep::Extract { a, idx }),
        1 => (0..n, 0..n, 0u8..4).prop_map(|(a, b, kind)| VStep::Float { a, b, kind }),
        1 => (0..n).prop_map(|a| VStep::Widen { a }),
    ]
}

/// A kernel of 1 to `max_steps` steps.
pub fn arb_prog(max_steps: usize) -> impl Strategy<Value = VProg> {
    (1..=max_steps).prop_flat_map(|n| {
        let steps: Vec<_> = (0..n).map(|i| arb_step(i + 2).boxed()).collect();
        (
            steps,
            select(REDUCE.to_vec()),
            select(PREDS.to_vec()),
            any::<i8>(),
        )
            .prop_map(|(steps, reduce, pred, bound)| VProg {
                steps,
                reduce,
                pred,
                bound,
            })
    })
}

/// What a mutation changes (indices taken modulo the sizes).
#[derive(Clone, Debug)]
pub enum VMutation {
    /// A shuffle's mask element (step, lane, new element).
    Mask(usize, usize, Option<u8>),
    Op(usize, usize),
    Flag(usize, usize),
    /// A constant operand's element (step, lane, new element).
    Const(usize, usize, Option<i8>),
    Reduce(usize),
    Pred(usize),
    Identity,
}

pub fn arb_mutation() -> impl Strategy<Value = VMutation> {
    prop_oneof![
        3 => (any::<usize>(), 0..4usize, mask_elem()).prop_map(|(i, l, m)| VMutation::Mask(i, l, m)),
        1 => (any::<usize>(), 0..BIN.len()).prop_map(|(i, k)| VMutation::Op(i, k)),
        1 => (any::<usize>(), 0..FLAGS.len()).prop_map(|(i, k)| VMutation::Flag(i, k)),
        1 => (any::<usize>(), 0..4usize, elem()).prop_map(|(i, l, e)| VMutation::Const(i, l, e)),
        1 => (0..REDUCE.len()).prop_map(VMutation::Reduce),
        1 => (0..PREDS.len()).prop_map(VMutation::Pred),
        1 => Just(VMutation::Identity),
    ]
}

/// `p` with mutation `m` applied (one that does not apply to the chosen
/// step leaves the program as it is).
pub fn mutate(p: &VProg, m: &VMutation) -> VProg {
    let mut q = p.clone();
    let n = q.steps.len();
    match *m {
        VMutation::Mask(i, l, e) => {
            let shuffles: Vec<usize> = (0..n)
                .filter(|j| matches!(q.steps[*j], VStep::Shuffle { .. }))
                .collect();
            if !shuffles.is_empty() {
                if let VStep::Shuffle { mask, .. } = &mut q.steps[shuffles[i % shuffles.len()]] {
                    mask[l] = e;
                }
            }
        }
        VMutation::Op(i, k) => {
            if let VStep::Bin { op, flags, .. } = &mut q.steps[i % n] {
                *op = BIN[k];
                if !matches!(*op, "add" | "sub" | "mul" | "shl") {
                    *flags = "";
                }
            }
        }
        VMutation::Flag(i, k) => {
            if let VStep::Bin { op, flags, .. } = &mut q.steps[i % n] {
                if matches!(*op, "add" | "sub" | "mul" | "shl") {
                    *flags = FLAGS[k];
                }
            }
        }
        VMutation::Const(i, l, e) => {
            if let VStep::Bin {
                b: VSrc::Const(c), ..
            } = &mut q.steps[i % n]
            {
                c[l] = e;
            } else {
                q.bound = e.unwrap_or(0);
            }
        }
        VMutation::Reduce(k) => q.reduce = REDUCE[k],
        VMutation::Pred(k) => q.pred = PREDS[k],
        VMutation::Identity => {}
    }
    q
}

fn lit(xs: &[Option<i8>; 4]) -> String {
    let parts: Vec<String> = xs
        .iter()
        .map(|x| match x {
            Some(v) => format!("i8 {v}"),
            None => "i8 poison".into(),
        })
        .collect();
    format!("<{}>", parts.join(", "))
}

/// The kernel's text.
pub fn render(p: &VProg) -> String {
    const V: &str = "<4 x i8>";
    let mut b = String::new();
    let val = |i: usize, k: usize| format!("%v{}", i % k);
    for (i, s) in p.steps.iter().enumerate() {
        let k = i + 2; // values defined so far
        let r = format!("%v{k}");
        match s {
            VStep::Bin {
                op,
                flags,
                a,
                b: src,
            } => {
                // Constant shift amounts are below the width (a poison
                // reduction would make most sources always UB).
                let y = match src {
                    VSrc::Val(j) => val(*j, k),
                    VSrc::Const(c) if matches!(*op, "shl" | "lshr" | "ashr") => {
                        lit(&c.map(|e| e.map(|v| v & 7)))
                    }
                    VSrc::Const(c) => lit(c),
                };
                b.push_str(&format!("  {r} = {op} {flags} {V} {}, {y}\n", val(*a, k)));
            }
            VStep::Shuffle { a, b: c, mask } => {
                let m: Vec<String> = mask
                    .iter()
                    .map(|x| match x {
                        Some(v) => format!("i32 {v}"),
                        None => "i32 poison".into(),
                    })
                    .collect();
                b.push_str(&format!(
                    "  {r} = shufflevector {V} {}, {V} {}, <4 x i32> <{}>\n",
                    val(*a, k),
                    val(*c, k),
                    m.join(", ")
                ));
            }
            VStep::Select { pred, a, b: c } => {
                let (x, y) = (val(*a, k), val(*c, k));
                b.push_str(&format!(
                    "  %c{k} = icmp {pred} {V} {x}, {y}\n  {r} = select <4 x i1> %c{k}, {V} {x}, {V} {y}\n"
                ));
            }
            VStep::Insert { a, idx } => {
                let i = idx.map_or("%x".to_string(), |v| v.to_string());
                b.push_str(&format!(
                    "  {r} = insertelement {V} {}, i8 %x8, i32 {i}\n",
                    val(*a, k)
                ));
            }
            VStep::Cast { a, kind } => {
                let x = val(*a, k);
                b.push_str(&match kind {
                    0 => format!(
                        "  %w{k} = sext {V} {x} to <4 x i16>\n  %m{k} = mul <4 x i16> %w{k}, splat (i16 3)\n  {r} = trunc <4 x i16> %m{k} to {V}\n"
                    ),
                    1 => format!(
                        "  %w{k} = bitcast {V} {x} to i32\n  %m{k} = add i32 %w{k}, 1\n  {r} = bitcast i32 %m{k} to {V}\n"
                    ),
                    _ => format!(
                        "  %w{k} = sitofp {V} {x} to <4 x half>\n  %m{k} = fmul <4 x half> %w{k}, splat (half 0xH3800)\n  {r} = fptosi <4 x half> %m{k} to {V}\n"
                    ),
                });
            }
            VStep::Float { a, b: c, kind } => {
                let (x, y) = (val(*a, k), val(*c, k));
                let h = "<4 x half>";
                b.push_str(&format!(
                    "  %fa{k} = sitofp {V} {x} to {h}\n  %fb{k} = sitofp {V} {y} to {h}\n"
                ));
                b.push_str(&match kind {
                    0 => format!(
                        "  %fc{k} = fcmp olt {h} %fa{k}, %fb{k}\n  %fr{k} = select <4 x i1> %fc{k}, {h} %fa{k}, {h} %fb{k}\n"
                    ),
                    _ => {
                        let call = match kind {
                            1 => format!("call half @llvm.vector.reduce.fadd.v4f16(half 0xH8000, {h} %fa{k})"),
                            2 => format!("call half @llvm.vector.reduce.fmax.v4f16({h} %fa{k})"),
                            _ => format!("call half @llvm.vector.reduce.fminimum.v4f16({h} %fa{k})"),
                        };
                        format!(
                            "  %fs{k} = {call}\n  %fi{k} = insertelement {h} poison, half %fs{k}, i64 0\n  %fr{k} = shufflevector {h} %fi{k}, {h} poison, <4 x i32> zeroinitializer\n"
                        )
                    }
                });
                b.push_str(&format!("  {r} = fptosi {h} %fr{k} to {V}\n"));
            }
            VStep::Widen { a } => {
                b.push_str(&format!(
                    "  %wa{k} = bitcast {V} {} to <2 x i16>\n  %wb{k} = add <2 x i16> %wa{k}, splat (i16 257)\n  {r} = bitcast <2 x i16> %wb{k} to {V}\n",
                    val(*a, k)
                ));
            }
            VStep::Extract { a, idx } => {
                let i = idx.map_or("%x".to_string(), |v| v.to_string());
                b.push_str(&format!(
                    "  %e{k} = extractelement {V} {}, i32 {i}\n  %s{k} = insertelement {V} poison, i8 %e{k}, i64 0\n  {r} = shufflevector {V} %s{k}, {V} poison, <4 x i32> zeroinitializer\n",
                    val(*a, k)
                ));
            }
        }
    }
    let last = format!("%v{}", p.steps.len() + 1);
    let red = p.reduce;
    format!(
        "define void @k(ptr %in, ptr %out, i32 %x) convergent {{
entry:
  %tok = call token @llvm.experimental.convergence.entry()
  %t = call i32 @tid()
  %me = and i32 %t, 3
  %pin = getelementptr inbounds {V}, ptr %in, i32 %me
  %pout = getelementptr inbounds {V}, ptr %out, i32 %me
  %v0 = load {V}, ptr %pin, align 4
  %x8 = trunc i32 %x to i8
  %s1 = insertelement {V} poison, i8 %x8, i64 0
  %v1 = shufflevector {V} %s1, {V} poison, <4 x i32> zeroinitializer
{b}  store {V} {last}, ptr %pout, align 4
  %red = call i8 @llvm.vector.reduce.{red}.v4i8({V} {last})
  %rf = freeze i8 %red
  %c = icmp {pred} i8 %rf, {bound}
  br i1 %c, label %then, label %end
then:
  %e = extractelement {V} {last}, i32 %x
  %d = icmp eq i8 %e, 0
  %m = call i32 @llvm.amdgcn.ballot.i32(i1 %d) [ \"convergencectrl\"(token %tok) ]
  call void @use32(i32 %m)
  br label %end
end:
  call void @use8(i8 %red)
  ret void
}}

declare token @llvm.experimental.convergence.entry() convergent
declare i32 @llvm.amdgcn.ballot.i32(i1) convergent nounwind willreturn memory(none)
declare i32 @tid() nounwind readnone
declare void @use32(i32)
declare void @use8(i8)
declare i8 @llvm.vector.reduce.{red}.v4i8({V})
declare half @llvm.vector.reduce.fadd.v4f16(half, <4 x half>)
declare half @llvm.vector.reduce.fmax.v4f16(<4 x half>)
declare half @llvm.vector.reduce.fminimum.v4f16(<4 x half>)
",
        pred = p.pred,
        bound = p.bound,
    )
}
