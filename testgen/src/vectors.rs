//! Vector instructions over constants (docs/RULES.md P-VEC-*), one
//! instruction per function, for the differential test of the interpreter
//! against `opt-22`'s constant folding (`semantics/tests/interp_vector.rs`):
//! element-wise integer and float arithmetic with their flags, `fneg`,
//! `icmp` (with `samesign`)/`fcmp`, `select` on vector and scalar
//! conditions, integer, float and `bitcast` conversions, the element access
//! instructions with in-range, out-of-range and poison indices,
//! `shufflevector` with poison mask elements, the `llvm.vector.reduce.*`
//! intrinsics, and intrinsics applied lane by lane. Operand elements mix
//! corner cases, random values and poison ([`crate::floats::value`] for
//! floats).

use proptest::prelude::{any, prop_oneof, Strategy};
use proptest::sample::select;

use crate::floats::{value, Case, Fmt};

/// An element type: an integer width or a float format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    Int(u32),
    Float(Fmt),
}

impl Elem {
    pub fn ir(self) -> String {
        match self {
            Elem::Int(w) => format!("i{w}"),
            Elem::Float(f) => f.ir().to_string(),
        }
    }
    pub fn bits(self) -> u32 {
        match self {
            Elem::Int(w) => w,
            Elem::Float(f) => f.bits(),
        }
    }
    /// The overloaded-intrinsic suffix of `<n x self>` (`v4i32`).
    fn suffix(self, n: usize) -> String {
        match self {
            Elem::Int(w) => format!("v{n}i{w}"),
            Elem::Float(Fmt::Half) => format!("v{n}f16"),
            Elem::Float(Fmt::BFloat) => format!("v{n}bf16"),
            Elem::Float(Fmt::Float) => format!("v{n}f32"),
            Elem::Float(Fmt::Double) => format!("v{n}f64"),
        }
    }
}

/// `<n x e>`.
fn vty(n: usize, e: Elem) -> String {
    format!("<{n} x {}>", e.ir())
}

/// A vector constant: each element a literal or `poison`.
fn vlit(e: Elem, xs: &[Option<String>]) -> String {
    let t = e.ir();
    let parts: Vec<String> = xs
        .iter()
        .map(|x| match x {
            Some(v) => format!("{t} {v}"),
            None => format!("{t} poison"),
        })
        .collect();
    format!("<{}>", parts.join(", "))
}

/// An integer of width `w` (signed decimal): corner cases or random.
fn int_elem(w: u32) -> impl Strategy<Value = String> {
    let min = -(1i128 << (w - 1));
    let max = (1i128 << (w - 1)) - 1;
    prop_oneof![
        select(vec![0i128, 1, -1, 2, 3, 7, min, max, min + 1]).prop_map(move |v| if w == 1 {
            (v & 1).to_string()
        } else {
            v.max(min).min(max).to_string()
        }),
        any::<i64>().prop_map(move |r| {
            let m = (1i128 << w) - 1;
            let u = (r as i128) & m;
            let s = if u >= 1 << (w - 1) { u - (1 << w) } else { u };
            s.to_string()
        }),
    ]
}

/// An element of `e`, poison one time in `1/p`.
fn elem(e: Elem, p: u32) -> impl Strategy<Value = Option<String>> {
    let lit = match e {
        Elem::Int(w) => int_elem(w).boxed(),
        Elem::Float(f) => value(f).prop_map(move |b| f.literal(b)).boxed(),
    };
    (0..p, lit).prop_map(|(k, v)| (k != 0).then_some(v))
}

/// `n` elements of `e`.
fn elems(e: Elem, n: usize, p: u32) -> impl Strategy<Value = Vec<Option<String>>> {
    proptest::collection::vec(elem(e, p), n)
}

/// `n` float elements with the sign bit clear (no poison).
fn nonneg_elems(e: Elem, n: usize) -> impl Strategy<Value = Vec<Option<String>>> {
    let f = match e {
        Elem::Float(f) => f,
        Elem::Int(_) => Fmt::Float,
    };
    let sign = 1u64 << (f.bits() - 1);
    proptest::collection::vec(value(f).prop_map(move |b| Some(f.literal(b & !sign))), n)
}

fn int_elem_ty() -> impl Strategy<Value = Elem> {
    select(vec![8u32, 16, 32, 64]).prop_map(Elem::Int)
}

fn float_elem_ty() -> impl Strategy<Value = Elem> {
    select(vec![Fmt::Half, Fmt::Float, Fmt::Double]).prop_map(Elem::Float)
}

fn len() -> impl Strategy<Value = usize> {
    select(vec![2usize, 3, 4, 8])
}

fn case(what: impl Into<String>, ret_ty: String, inst: String, decls: Vec<String>) -> Case {
    Case {
        what: what.into(),
        body: format!("  %r = {inst}\n  ret {ret_ty} %r\n"),
        ret_ty,
        decls,
    }
}

const INT_OPS: [(&str, &[&str]); 13] = [
    ("add", &["", "nuw ", "nsw ", "nuw nsw "]),
    ("sub", &["", "nuw ", "nsw "]),
    ("mul", &["", "nuw ", "nsw "]),
    ("udiv", &["", "exact "]),
    ("sdiv", &["", "exact "]),
    ("urem", &[""]),
    ("srem", &[""]),
    ("shl", &["", "nuw ", "nsw "]),
    ("lshr", &["", "exact "]),
    ("ashr", &["", "exact "]),
    ("and", &[""]),
    ("or", &["", "disjoint "]),
    ("xor", &[""]),
];

/// Element-wise integer arithmetic with its flags. Divisors have no zero
/// or poison element (those are UB: opt folds them to poison, which UB
/// allows, and the comparison would say nothing); shift amounts are mostly
/// below the width.
fn int_binary() -> impl Strategy<Value = Case> {
    (
        select(INT_OPS.to_vec()),
        any::<usize>(),
        int_elem_ty(),
        len(),
    )
        .prop_flat_map(|((op, flags), k, e, n)| {
            let fl = flags[k % flags.len()];
            let w = e.bits();
            let rhs = match op {
                "udiv" | "sdiv" | "urem" | "srem" => proptest::collection::vec(
                    int_elem(w).prop_map(|v| Some(if v == "0" { "3".into() } else { v })),
                    n,
                )
                .boxed(),
                "shl" | "lshr" | "ashr" => proptest::collection::vec(
                    (0..10u32, 0..w + 2).prop_map(|(p, s)| (p != 0).then(|| s.to_string())),
                    n,
                )
                .boxed(),
                _ => elems(e, n, 8).boxed(),
            };
            (elems(e, n, 8), rhs).prop_map(move |(a, b)| {
                let t = vty(n, e);
                case(
                    op,
                    t.clone(),
                    format!("{op} {fl}{t} {}, {}", vlit(e, &a), vlit(e, &b)),
                    vec![],
                )
            })
        })
}

fn fmf() -> impl Strategy<Value = &'static str> {
    select(vec!["", "", "nnan ", "ninf ", "nsz ", "fast "])
}

/// Element-wise float arithmetic (with fast-math flags) and `fneg`.
fn float_arith() -> impl Strategy<Value = Case> {
    (float_elem_ty(), len(), fmf()).prop_flat_map(|(e, n, fl)| {
        let t = vty(n, e);
        prop_oneof![
            3 => (select(vec!["fadd", "fsub", "fmul", "fdiv", "frem"]), elems(e, n, 8), elems(e, n, 8))
                .prop_map({
                    let t = t.clone();
                    move |(op, a, b)| case(op, t.clone(), format!("{op} {fl}{t} {}, {}", vlit(e, &a), vlit(e, &b)), vec![])
                }),
            1 => elems(e, n, 8).prop_map(move |a| case("fneg", t.clone(), format!("fneg {fl}{t} {}", vlit(e, &a)), vec![])),
        ]
    })
}

const ICMP: [&str; 10] = [
    "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
];
const FCMP: [&str; 16] = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
    "une", "uno", "true",
];

/// `icmp` (with `samesign`) and `fcmp`: a vector of `i1`.
fn compare() -> impl Strategy<Value = Case> {
    let icmp = (int_elem_ty(), len(), select(ICMP.to_vec()), any::<bool>()).prop_flat_map(
        |(e, n, p, same)| {
            (elems(e, n, 8), elems(e, n, 8)).prop_map(move |(a, b)| {
                let ss = if same { "samesign " } else { "" };
                case(
                    if same { "icmp samesign" } else { "icmp" },
                    format!("<{n} x i1>"),
                    format!(
                        "icmp {ss}{p} {} {}, {}",
                        vty(n, e),
                        vlit(e, &a),
                        vlit(e, &b)
                    ),
                    vec![],
                )
            })
        },
    );
    let fcmp =
        (float_elem_ty(), len(), select(FCMP.to_vec()), fmf()).prop_flat_map(|(e, n, p, fl)| {
            (elems(e, n, 8), elems(e, n, 8)).prop_map(move |(a, b)| {
                case(
                    "fcmp",
                    format!("<{n} x i1>"),
                    format!(
                        "fcmp {fl}{p} {} {}, {}",
                        vty(n, e),
                        vlit(e, &a),
                        vlit(e, &b)
                    ),
                    vec![],
                )
            })
        });
    prop_oneof![icmp, fcmp]
}

fn any_elem_ty() -> impl Strategy<Value = Elem> {
    prop_oneof![int_elem_ty(), float_elem_ty()]
}

/// `select` with a vector condition (poison elements included) or a
/// scalar one.
fn select_case() -> impl Strategy<Value = Case> {
    (any_elem_ty(), len(), any::<bool>()).prop_flat_map(|(e, n, scalar)| {
        let cond = if scalar {
            elems(Elem::Int(1), 1, 6)
                .prop_map(|c| match &c[0] {
                    Some(v) => format!("i1 {v}"),
                    None => "i1 poison".into(),
                })
                .boxed()
        } else {
            elems(Elem::Int(1), n, 6)
                .prop_map(move |c| format!("<{n} x i1> {}", vlit(Elem::Int(1), &c)))
                .boxed()
        };
        (cond, elems(e, n, 8), elems(e, n, 8)).prop_map(move |(c, a, b)| {
            let t = vty(n, e);
            case(
                if scalar { "select scalar" } else { "select" },
                t.clone(),
                format!("select {c}, {t} {}, {t} {}", vlit(e, &a), vlit(e, &b)),
                vec![],
            )
        })
    })
}

/// Integer and float conversions element by element.
fn conversions() -> impl Strategy<Value = Case> {
    let int =
        (int_elem_ty(), int_elem_ty(), len(), any::<usize>()).prop_flat_map(|(a, b, n, k)| {
            let (from, to) = if a.bits() == b.bits() {
                (Elem::Int(8), Elem::Int(32))
            } else {
                (a, b)
            };
            let (op, flags): (&str, &[&str]) = if from.bits() > to.bits() {
                ("trunc", &["", "nuw ", "nsw "])
            } else if k % 2 == 0 {
                ("zext", &["", "nneg "])
            } else {
                ("sext", &[""])
            };
            let fl = flags[k / 2 % flags.len()];
            elems(from, n, 8).prop_map(move |x| {
                case(
                    op,
                    vty(n, to),
                    format!(
                        "{op} {fl}{} {} to {}",
                        vty(n, from),
                        vlit(from, &x),
                        vty(n, to)
                    ),
                    vec![],
                )
            })
        });
    let float = (float_elem_ty(), float_elem_ty(), len()).prop_flat_map(|(a, b, n)| {
        let (from, to) = if a == b {
            (Elem::Float(Fmt::Float), Elem::Float(Fmt::Double))
        } else {
            (a, b)
        };
        let op = if from.bits() > to.bits() {
            "fptrunc"
        } else {
            "fpext"
        };
        elems(from, n, 8).prop_map(move |x| {
            case(
                op,
                vty(n, to),
                format!("{op} {} {} to {}", vty(n, from), vlit(from, &x), vty(n, to)),
                vec![],
            )
        })
    });
    let to_int =
        (float_elem_ty(), int_elem_ty(), len(), any::<bool>()).prop_flat_map(|(f, i, n, s)| {
            let op = if s { "fptosi" } else { "fptoui" };
            elems(f, n, 8).prop_map(move |x| {
                case(
                    op,
                    vty(n, i),
                    format!("{op} {} {} to {}", vty(n, f), vlit(f, &x), vty(n, i)),
                    vec![],
                )
            })
        });
    let from_int = (int_elem_ty(), float_elem_ty(), len(), 0..3u8).prop_flat_map(|(i, f, n, k)| {
        let (op, fl) = [("sitofp", ""), ("uitofp", ""), ("uitofp", "nneg ")][k as usize];
        elems(i, n, 8).prop_map(move |x| {
            case(
                op,
                vty(n, f),
                format!("{op} {fl}{} {} to {}", vty(n, i), vlit(i, &x), vty(n, f)),
                vec![],
            )
        })
    });
    prop_oneof![int, float, to_int, from_int]
}

/// A type of `bits` bits: a scalar integer or float, or a vector.
fn shape_of(bits: u32) -> impl Strategy<Value = (Option<usize>, Elem)> {
    let mut shapes: Vec<(Option<usize>, Elem)> = vec![(None, Elem::Int(bits))];
    for w in [8u32, 16, 32, 64] {
        if w < bits && bits.is_multiple_of(w) {
            shapes.push((Some((bits / w) as usize), Elem::Int(w)));
        }
    }
    for f in [Fmt::Half, Fmt::Float, Fmt::Double] {
        if f.bits() == bits {
            shapes.push((None, Elem::Float(f)));
        } else if f.bits() < bits && bits.is_multiple_of(f.bits()) {
            shapes.push((Some((bits / f.bits()) as usize), Elem::Float(f)));
        }
    }
    select(shapes)
}

/// `bitcast` between vectors, and between a vector and a scalar, of one
/// size (P-VEC-BITCAST).
fn bitcasts() -> impl Strategy<Value = Case> {
    select(vec![32u32, 64, 128])
        .prop_flat_map(|bits| (shape_of(bits), shape_of(bits)))
        .prop_filter("a vector on one side", |(a, b)| {
            (a.0.is_some() || b.0.is_some()) && a != b
        })
        .prop_flat_map(|((fnn, fe), (tn, te))| {
            elems(fe, fnn.unwrap_or(1), 10).prop_map(move |x| {
                let ty = |n: Option<usize>, e: Elem| match n {
                    Some(n) => vty(n, e),
                    None => e.ir(),
                };
                let lit = match fnn {
                    Some(_) => vlit(fe, &x),
                    None => x[0].clone().unwrap_or_else(|| "poison".into()),
                };
                case(
                    "bitcast",
                    ty(tn, te),
                    format!("bitcast {} {lit} to {}", ty(fnn, fe), ty(tn, te)),
                    vec![],
                )
            })
        })
}

/// An index operand: in range, out of range, or poison.
fn index(n: usize) -> impl Strategy<Value = String> {
    (select(vec!["i32", "i64", "i8"]), 0..10u32).prop_map(move |(t, k)| match k {
        0 => format!("{t} poison"),
        1 => format!("{t} {}", n + (k as usize)),
        _ => format!("{t} {}", k as usize % n),
    })
}

/// `extractelement`, `insertelement`, `shufflevector` (P-VEC-ACCESS).
fn access() -> impl Strategy<Value = Case> {
    let extract = (any_elem_ty(), len()).prop_flat_map(|(e, n)| {
        (elems(e, n, 6), index(n)).prop_map(move |(x, i)| {
            case(
                "extractelement",
                e.ir(),
                format!("extractelement {} {}, {i}", vty(n, e), vlit(e, &x)),
                vec![],
            )
        })
    });
    let insert = (any_elem_ty(), len()).prop_flat_map(|(e, n)| {
        (elems(e, n, 6), elem(e, 6), index(n)).prop_map(move |(x, y, i)| {
            let t = vty(n, e);
            let y = y.unwrap_or_else(|| "poison".into());
            case(
                "insertelement",
                t.clone(),
                format!("insertelement {t} {}, {} {y}, {i}", vlit(e, &x), e.ir()),
                vec![],
            )
        })
    });
    let shuffle = (any_elem_ty(), len(), len(), any::<bool>()).prop_flat_map(|(e, n, m, one)| {
        let mask = proptest::collection::vec(
            (0..8u32, 0..2 * n).prop_map(|(p, i)| (p != 0).then(|| i.to_string())),
            m,
        );
        (elems(e, n, 6), elems(e, n, 6), mask).prop_map(move |(a, b, k)| {
            let t = vty(n, e);
            let b = if one { "poison".into() } else { vlit(e, &b) };
            case(
                "shufflevector",
                vty(m, e),
                format!(
                    "shufflevector {t} {}, {t} {b}, {}",
                    vlit(e, &a),
                    format_args!("<{m} x i32> {}", vlit(Elem::Int(32), &k))
                ),
                vec![],
            )
        })
    });
    prop_oneof![extract, insert, shuffle]
}

const INT_REDUCE: [&str; 9] = [
    "add", "mul", "and", "or", "xor", "smax", "smin", "umax", "umin",
];

/// A case with, when opt-22 does not fold the instruction itself, an
/// oracle: a body of scalar instructions with the same meaning by
/// LangRef's definition, which opt folds instead.
pub type Oracle = (Case, Option<String>);

fn no_oracle(c: Case) -> Oracle {
    (c, None)
}

/// The scalar suffix of a float format (`f32`).
fn scalar_suffix(f: Fmt) -> &'static str {
    match f {
        Fmt::Half => "f16",
        Fmt::BFloat => "bf16",
        Fmt::Float => "f32",
        Fmt::Double => "f64",
    }
}

/// `llvm.vector.reduce.*` (P-VEC-REDUCE), integer and float. opt-22
/// folds the integer ones; a float reduction comes with its LangRef
/// scalarization as the oracle: `fadd`/`fmul` from the start value
/// through the elements in order (the sequential reduction; with
/// `reassoc` LangRef allows other orders too, and the interpreter computes
/// this one), `fmax`/`fmin`/`fmaximum`/`fminimum` as a chain of
/// `llvm.maxnum`/`minnum`/`maximum`/`minimum` (LangRef: "performed using
/// the llvm.maxnum semantics").
fn reductions() -> impl Strategy<Value = Oracle> {
    let int = (int_elem_ty(), len(), select(INT_REDUCE.to_vec())).prop_flat_map(|(e, n, op)| {
        elems(e, n, 12).prop_map(move |x| {
            let name = format!("llvm.vector.reduce.{op}.{}", e.suffix(n));
            let t = vty(n, e);
            no_oracle(case(
                format!("reduce.{op}"),
                e.ir(),
                format!("call {} @{name}({t} {})", e.ir(), vlit(e, &x)),
                vec![format!("declare {} @{name}({t})", e.ir())],
            ))
        })
    });
    let fl = (
        select(vec![Fmt::Half, Fmt::Float, Fmt::Double]),
        len(),
        select(vec!["fadd", "fmul", "fmax", "fmin", "fmaximum", "fminimum"]),
        select(vec!["", "", "nnan ", "reassoc ", "fast "]),
    )
        .prop_flat_map(|(f, n, op, fl)| {
            let e = Elem::Float(f);
            (elems(e, n, 12), elem(e, 12)).prop_map(move |(x, s)| {
                let name = format!("llvm.vector.reduce.{op}.{}", e.suffix(n));
                let (t, et) = (vty(n, e), e.ir());
                let lit = |v: &Option<String>| v.clone().unwrap_or_else(|| "poison".into());
                let start = matches!(op, "fadd" | "fmul");
                let (args, params) = if start {
                    (
                        format!("{et} {}, {t} {}", lit(&s), vlit(e, &x)),
                        format!("{et}, {t}"),
                    )
                } else {
                    (format!("{t} {}", vlit(e, &x)), t.clone())
                };
                let scalar = match op {
                    "fmax" => "maxnum",
                    "fmin" => "minnum",
                    "fmaximum" => "maximum",
                    _ => "minimum",
                };
                let sname = format!("llvm.{scalar}.{}", scalar_suffix(f));
                let mut oracle = String::new();
                let mut acc = if start { lit(&s) } else { lit(&x[0]) };
                for (k, xk) in x.iter().enumerate().skip(usize::from(!start)) {
                    let step = if start {
                        format!("{} {fl}{et} {acc}, {}", &op[..4], lit(xk))
                    } else {
                        format!("call {fl}{et} @{sname}({et} {acc}, {et} {})", lit(xk))
                    };
                    oracle.push_str(&format!("  %a{k} = {step}\n"));
                    acc = format!("%a{k}");
                }
                oracle.push_str(&format!("  ret {et} {acc}\n"));
                let mut decls = vec![format!("declare {et} @{name}({params})")];
                if !start {
                    decls.push(format!("declare {et} @{sname}({et}, {et})"));
                }
                (
                    case(
                        format!("reduce.{op}"),
                        et.clone(),
                        format!("call {fl}{et} @{name}({args})"),
                        decls,
                    ),
                    Some(oracle),
                )
            })
        });
    prop_oneof![2 => int, 1 => fl]
}

/// Intrinsics on vectors, lane by lane (P-VEC-ELEM): pure integer ones
/// and float ones.
fn lane_intrinsics() -> impl Strategy<Value = Case> {
    let int = (
        int_elem_ty(),
        len(),
        select(vec![
            ("smax", 2),
            ("umin", 2),
            ("abs", 1),
            ("ctpop", 0),
            ("ctlz", 1),
            ("bitreverse", 0),
            ("uadd.sat", 2),
            ("ssub.sat", 2),
            ("fshl", 3),
        ]),
    )
        .prop_flat_map(|(e, n, (op, k))| {
            (
                elems(e, n, 10),
                elems(e, n, 10),
                elems(e, n, 10),
                any::<bool>(),
            )
                .prop_map(move |(a, b, c, flag)| {
                    let t = vty(n, e);
                    let name = format!("llvm.{op}.{}", e.suffix(n));
                    let (args, params) = match k {
                        0 => (format!("{t} {}", vlit(e, &a)), t.clone()),
                        // `abs`/`ctlz`: a scalar i1 flag after the vector.
                        1 => (
                            format!("{t} {}, i1 {flag}", vlit(e, &a)),
                            format!("{t}, i1"),
                        ),
                        2 => (
                            format!("{t} {}, {t} {}", vlit(e, &a), vlit(e, &b)),
                            format!("{t}, {t}"),
                        ),
                        _ => (
                            format!(
                                "{t} {}, {t} {}, {t} {}",
                                vlit(e, &a),
                                vlit(e, &b),
                                vlit(e, &c)
                            ),
                            format!("{t}, {t}, {t}"),
                        ),
                    };
                    case(
                        format!("llvm.{op}"),
                        t.clone(),
                        format!("call {t} @{name}({args})"),
                        vec![format!("declare {t} @{name}({params})")],
                    )
                })
        });
    let float = (
        float_elem_ty(),
        len(),
        select(vec![
            ("fabs", 1),
            ("minnum", 2),
            ("maximum", 2),
            ("copysign", 2),
            ("fma", 3),
            ("sqrt", 1),
            ("floor", 1),
        ]),
    )
        .prop_flat_map(|(e, n, (op, k))| {
            // opt folds `sqrt` of non-negative elements only.
            let first = if op == "sqrt" {
                nonneg_elems(e, n).boxed()
            } else {
                elems(e, n, 10).boxed()
            };
            (first, elems(e, n, 10), elems(e, n, 10)).prop_map(move |(a, b, c)| {
                let t = vty(n, e);
                let name = format!("llvm.{op}.{}", e.suffix(n));
                let all = [vlit(e, &a), vlit(e, &b), vlit(e, &c)];
                let args: Vec<String> = all[..k].iter().map(|x| format!("{t} {x}")).collect();
                case(
                    format!("llvm.{op}"),
                    t.clone(),
                    format!("call {t} @{name}({})", args.join(", ")),
                    vec![format!(
                        "declare {t} @{name}({})",
                        vec![t.as_str(); k].join(", ")
                    )],
                )
            })
        });
    prop_oneof![int, float]
}

/// One vector instruction over constants, with its oracle when opt-22
/// does not fold it (float reductions).
pub fn vector_case() -> impl Strategy<Value = Oracle> {
    prop_oneof![
        4 => int_binary().prop_map(no_oracle),
        3 => float_arith().prop_map(no_oracle),
        3 => compare().prop_map(no_oracle),
        2 => select_case().prop_map(no_oracle),
        3 => conversions().prop_map(no_oracle),
        2 => bitcasts().prop_map(no_oracle),
        3 => access().prop_map(no_oracle),
        3 => reductions(),
        2 => lane_intrinsics().prop_map(no_oracle),
    ]
}
