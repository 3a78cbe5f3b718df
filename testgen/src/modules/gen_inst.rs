//! One random instruction of every kind the IR has.

use super::gen_fn::{opnd, Frag, Ins, Naming, Sig, Val};
use super::gen_types::{Choices, GTy, VALUE_TYS};

/// What an instruction generator may use and where it appends.
pub struct Ctx<'a> {
    pub vals: &'a mut Vec<Val>,
    /// Values that dominate the insertion point.
    pub pool: &'a [usize],
    pub sigs: &'a [Sig],
    /// Whether convergent calls carry `"convergencectrl"` bundles.
    pub controlled: bool,
    /// The convergence token of the current block, if one was made.
    pub token: &'a mut Option<usize>,
    pub insts: &'a mut Vec<Ins>,
}

impl Ctx<'_> {
    fn op(&self, c: &mut Choices, t: GTy) -> Frag {
        opnd(c, self.vals, self.pool, t)
    }
    /// `T v` as fragments.
    fn typed(&self, c: &mut Choices, t: GTy) -> Vec<Frag> {
        vec![S(format!("{} ", t.text())), self.op(c, t)]
    }
    fn new_val(&mut self, c: &mut Choices, ty: GTy) -> usize {
        let id = self.vals.len();
        let naming = match c.below(10) {
            0..=4 => Naming::Named(match c.below(10) {
                0 => format!("v {id}"),
                1 => format!("{id}v"),
                _ => format!("v{id}"),
            }),
            5..=6 => Naming::Implicit,
            7 => Naming::Numbered {
                gap: 1 + c.below(2) as u32,
            },
            _ => Naming::Numbered { gap: 0 },
        };
        self.vals.push(Val { ty, naming });
        id
    }
    fn push(&mut self, c: &mut Choices, ty: Option<GTy>, frags: Vec<Frag>) {
        let res = ty.map(|t| self.new_val(c, t));
        self.insts.push(Ins { res, frags });
    }
    /// A pointer operand (`ptr` or `ptr addrspace(1)`), typed.
    fn ptr(&self, c: &mut Choices) -> Vec<Frag> {
        let t = if c.chance(20) { GTy::Ptr1 } else { GTy::Ptr };
        self.typed(c, t)
    }
}

#[allow(non_snake_case)]
fn S(s: impl Into<String>) -> Frag {
    Frag::S(s.into())
}

fn flags(c: &mut Choices, options: &[&str]) -> String {
    let mut out = String::new();
    for f in options {
        if c.chance(25) {
            out.push(' ');
            out.push_str(f);
        }
    }
    out
}

const FMF: &[&str] = &[
    "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc",
];

fn cat(parts: Vec<Vec<Frag>>) -> Vec<Frag> {
    parts.into_iter().flatten().collect()
}

fn align(c: &mut Choices) -> &'static str {
    c.pick(&["", ", align 4", ", align 16", ""])
}

fn syncscope(c: &mut Choices) -> &'static str {
    c.pick(&[
        "",
        "",
        " syncscope(\"singlethread\")",
        " syncscope(\"agent\")",
    ])
}

/// Appends one random instruction (sometimes two: a convergence anchor
/// before the first controlled convergent call of a block).
pub fn gen_inst(c: &mut Choices, x: &mut Ctx<'_>) {
    match c.below(21) {
        0 | 1 => {
            let t = c.pick(&[GTy::I8, GTy::I32, GTy::I64, GTy::V4I32, GTy::I1]);
            let (op, fl): (&str, &[&str]) = c.pick(&[
                ("add", &["nuw", "nsw"][..]),
                ("sub", &["nuw", "nsw"]),
                ("mul", &["nuw", "nsw"]),
                ("shl", &["nuw", "nsw"]),
                ("udiv", &["exact"]),
                ("sdiv", &["exact"]),
                ("urem", &[]),
                ("srem", &[]),
                ("lshr", &["exact"]),
                ("ashr", &["exact"]),
                ("and", &[]),
                ("or", &["disjoint"]),
                ("xor", &[]),
            ]);
            let f = flags(c, fl);
            let l = x.op(c, t);
            let r = x.op(c, t);
            x.push(
                c,
                Some(t),
                vec![S(format!("{op}{f} {} ", t.text())), l, S(", "), r],
            );
        }
        2 => {
            let t = c.pick(&[GTy::F32, GTy::F64, GTy::Half, GTy::V2F32]);
            let op = c.pick(&["fadd", "fsub", "fmul", "fdiv", "frem"]);
            let f = flags(c, FMF);
            let l = x.op(c, t);
            let r = x.op(c, t);
            x.push(
                c,
                Some(t),
                vec![S(format!("{op}{f} {} ", t.text())), l, S(", "), r],
            );
        }
        3 => {
            let t = c.pick(&[GTy::F32, GTy::F64, GTy::V2F32]);
            let f = flags(c, FMF);
            let v = x.op(c, t);
            x.push(c, Some(t), vec![S(format!("fneg{f} {} ", t.text())), v]);
        }
        4 => {
            let t = c.pick(&[GTy::I32, GTy::I64, GTy::I8, GTy::Ptr, GTy::V4I32]);
            let pred = c.pick(&[
                "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
            ]);
            let ss = if t != GTy::Ptr && c.chance(20) {
                "samesign "
            } else {
                ""
            };
            let l = x.op(c, t);
            let r = x.op(c, t);
            let rt = if t == GTy::V4I32 { None } else { Some(GTy::I1) };
            // Vector compares produce `<4 x i1>`, which no other generator
            // consumes: keep the result unnamed-by-type (an i1 stand-in is
            // wrong), so give it its own value of a private type.
            match rt {
                Some(rt) => x.push(
                    c,
                    Some(rt),
                    vec![S(format!("icmp {ss}{pred} {} ", t.text())), l, S(", "), r],
                ),
                None => x.push(
                    c,
                    Some(GTy::V4I1),
                    vec![S(format!("icmp {ss}{pred} {} ", t.text())), l, S(", "), r],
                ),
            }
        }
        5 => {
            let t = c.pick(&[GTy::F32, GTy::F64, GTy::Half]);
            let pred = c.pick(&[
                "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
                "ult", "ule", "une", "uno", "true",
            ]);
            let f = flags(c, FMF);
            let l = x.op(c, t);
            let r = x.op(c, t);
            x.push(
                c,
                Some(GTy::I1),
                vec![S(format!("fcmp{f} {pred} {} ", t.text())), l, S(", "), r],
            );
        }
        6 => {
            let (op, from, to, fl): (&str, GTy, GTy, &[&str]) = c.pick(&[
                ("trunc", GTy::I64, GTy::I32, &["nuw", "nsw"][..]),
                ("trunc", GTy::I32, GTy::I8, &[]),
                ("zext", GTy::I32, GTy::I64, &["nneg"]),
                ("zext", GTy::I1, GTy::I32, &[]),
                ("sext", GTy::I8, GTy::I32, &[]),
                ("fptrunc", GTy::F64, GTy::F32, &[]),
                ("fpext", GTy::F32, GTy::F64, &[]),
                ("fpext", GTy::Half, GTy::F32, &[]),
                ("fptoui", GTy::F32, GTy::I32, &[]),
                ("fptosi", GTy::F64, GTy::I64, &[]),
                ("uitofp", GTy::I32, GTy::F32, &["nneg"]),
                ("sitofp", GTy::I64, GTy::F64, &[]),
                ("ptrtoint", GTy::Ptr, GTy::I64, &[]),
                ("inttoptr", GTy::I64, GTy::Ptr, &[]),
                ("bitcast", GTy::I32, GTy::F32, &[]),
                ("bitcast", GTy::V2F32, GTy::I64, &[]),
                ("addrspacecast", GTy::Ptr1, GTy::Ptr, &[]),
            ]);
            let f = flags(c, fl);
            let v = x.op(c, from);
            x.push(
                c,
                Some(to),
                vec![
                    S(format!("{op}{f} {} ", from.text())),
                    v,
                    S(format!(" to {}", to.text())),
                ],
            );
        }
        7 => {
            let t = c.pick(VALUE_TYS);
            let f = if t.is_float() {
                flags(c, FMF)
            } else {
                String::new()
            };
            let cond = x.op(c, GTy::I1);
            let a = x.op(c, t);
            let b = x.op(c, t);
            x.push(
                c,
                Some(t),
                vec![
                    S(format!("select{f} i1 ")),
                    cond,
                    S(format!(", {} ", t.text())),
                    a,
                    S(format!(", {} ", t.text())),
                    b,
                ],
            );
        }
        8 => {
            let t = c.pick(VALUE_TYS);
            let v = x.typed(c, t);
            x.push(c, Some(t), cat(vec![vec![S("freeze ")], v]));
        }
        9..=11 => call(c, x),
        12 => {
            let (ty, count) = c.pick(&[
                ("i32", ""),
                ("%struct.S", ""),
                ("[2 x i32]", ", i32 4"),
                ("i64", ", i8 2"),
            ]);
            let a = align(c);
            let asp = if c.chance(20) { ", addrspace(0)" } else { "" };
            x.push(
                c,
                Some(GTy::Ptr),
                vec![S(format!("alloca {ty}{count}{a}{asp}"))],
            );
        }
        13 => {
            let t = c.pick(VALUE_TYS);
            let p = x.ptr(c);
            if c.chance(25) && matches!(t, GTy::I32 | GTy::F32 | GTy::Ptr | GTy::I64) {
                let ord = c.pick(&["unordered", "monotonic", "acquire", "seq_cst"]);
                let ss = syncscope(c);
                x.push(
                    c,
                    Some(t),
                    cat(vec![
                        vec![S(format!("load atomic {}, ", t.text()))],
                        p,
                        vec![S(format!("{ss} {ord}, align 8"))],
                    ]),
                );
            } else {
                let v = if c.chance(15) { "volatile " } else { "" };
                let a = align(c);
                let md = if t == GTy::I32 && c.chance(30) {
                    ", !range !0"
                } else {
                    ""
                };
                x.push(
                    c,
                    Some(t),
                    cat(vec![
                        vec![S(format!("load {v}{}, ", t.text()))],
                        p,
                        vec![S(format!("{a}{md}"))],
                    ]),
                );
            }
        }
        14 => {
            let t = c.pick(VALUE_TYS);
            let v = x.typed(c, t);
            let p = x.ptr(c);
            if c.chance(25) && matches!(t, GTy::I32 | GTy::F32 | GTy::Ptr | GTy::I64) {
                let ord = c.pick(&["unordered", "monotonic", "release", "seq_cst"]);
                let ss = syncscope(c);
                x.push(
                    c,
                    None,
                    cat(vec![
                        vec![S("store atomic ")],
                        v,
                        vec![S(", ")],
                        p,
                        vec![S(format!("{ss} {ord}, align 8"))],
                    ]),
                );
            } else {
                let vol = if c.chance(15) { "volatile " } else { "" };
                let a = align(c);
                let md = if c.chance(20) {
                    ", !nontemporal !1"
                } else {
                    ""
                };
                x.push(
                    c,
                    None,
                    cat(vec![
                        vec![S(format!("store {vol}"))],
                        v,
                        vec![S(", ")],
                        p,
                        vec![S(format!("{a}{md}"))],
                    ]),
                );
            }
        }
        15 => {
            let (op, t) = c.pick(&[
                ("xchg", GTy::I32),
                ("add", GTy::I32),
                ("sub", GTy::I32),
                ("and", GTy::I32),
                ("nand", GTy::I32),
                ("or", GTy::I32),
                ("xor", GTy::I32),
                ("max", GTy::I32),
                ("min", GTy::I32),
                ("umax", GTy::I32),
                ("umin", GTy::I32),
                ("uinc_wrap", GTy::I32),
                ("udec_wrap", GTy::I32),
                ("usub_cond", GTy::I32),
                ("usub_sat", GTy::I32),
                ("fadd", GTy::F32),
                ("fsub", GTy::F32),
                ("fmax", GTy::F32),
                ("fmin", GTy::F32),
                ("xchg", GTy::Ptr),
            ]);
            let vol = if c.chance(15) { "volatile " } else { "" };
            let p = x.ptr(c);
            let v = x.typed(c, t);
            let ss = syncscope(c);
            let ord = c.pick(&["monotonic", "acquire", "release", "acq_rel", "seq_cst"]);
            let a = align(c);
            x.push(
                c,
                Some(t),
                cat(vec![
                    vec![S(format!("atomicrmw {vol}{op} "))],
                    p,
                    vec![S(", ")],
                    v,
                    vec![S(format!("{ss} {ord}{a}"))],
                ]),
            );
        }
        16 => {
            let weak = if c.chance(30) { "weak " } else { "" };
            let vol = if c.chance(15) { "volatile " } else { "" };
            let p = x.ptr(c);
            let a = x.typed(c, GTy::I32);
            let b = x.typed(c, GTy::I32);
            let ss = syncscope(c);
            let (s, f) = c.pick(&[
                ("seq_cst", "seq_cst"),
                ("acq_rel", "acquire"),
                ("monotonic", "monotonic"),
                ("acquire", "monotonic"),
                ("release", "monotonic"),
            ]);
            let al = align(c);
            x.push(
                c,
                Some(GTy::Cx),
                cat(vec![
                    vec![S(format!("cmpxchg {weak}{vol}"))],
                    p,
                    vec![S(", ")],
                    a,
                    vec![S(", ")],
                    b,
                    vec![S(format!("{ss} {s} {f}{al}"))],
                ]),
            );
        }
        17 => {
            let fl = flags(c, &["inbounds", "nuw", "nusw"]);
            match c.below(4) {
                0 => {
                    let p = x.typed(c, GTy::Ptr);
                    let i = x.typed(c, GTy::I64);
                    x.push(
                        c,
                        Some(GTy::Ptr),
                        cat(vec![
                            vec![S(format!("getelementptr{fl} i32, "))],
                            p,
                            vec![S(", ")],
                            i,
                        ]),
                    );
                }
                1 => {
                    let p = x.typed(c, GTy::Ptr);
                    let k = c.below(2);
                    x.push(
                        c,
                        Some(GTy::Ptr),
                        cat(vec![
                            vec![S(format!("getelementptr{fl} %struct.S, "))],
                            p,
                            vec![S(format!(", i32 0, i32 {k}"))],
                        ]),
                    );
                }
                2 => {
                    let i = x.typed(c, GTy::I64);
                    x.push(
                        c,
                        Some(GTy::Ptr),
                        cat(vec![
                            vec![S(format!("getelementptr{fl} [4 x i32], ptr @ga, i64 0, "))],
                            i,
                        ]),
                    );
                }
                _ => {
                    let p = x.typed(c, GTy::Ptr1);
                    let i = x.typed(c, GTy::I32);
                    x.push(
                        c,
                        Some(GTy::Ptr1),
                        cat(vec![
                            vec![S(format!("getelementptr{fl} i8, "))],
                            p,
                            vec![S(", ")],
                            i,
                        ]),
                    );
                }
            }
        }
        18 => {
            let t = c.pick(&[GTy::Sif, GTy::A2, GTy::Named, GTy::Cx]);
            let k = c.below(2);
            let agg = x.typed(c, t);
            if c.chance(50) {
                x.push(
                    c,
                    Some(t.fields()[k]),
                    cat(vec![
                        vec![S("extractvalue ")],
                        agg,
                        vec![S(format!(", {k}"))],
                    ]),
                );
            } else {
                let v = x.typed(c, t.fields()[k]);
                x.push(
                    c,
                    Some(t),
                    cat(vec![
                        vec![S("insertvalue ")],
                        agg,
                        vec![S(", ")],
                        v,
                        vec![S(format!(", {k}"))],
                    ]),
                );
            }
        }
        19 => {
            let (vt, et) = c.pick(&[(GTy::V4I32, GTy::I32), (GTy::V2F32, GTy::F32)]);
            let it = c.pick(&[GTy::I32, GTy::I64]);
            let v = x.typed(c, vt);
            let i = x.typed(c, it);
            if c.chance(50) {
                x.push(
                    c,
                    Some(et),
                    cat(vec![vec![S("extractelement ")], v, vec![S(", ")], i]),
                );
            } else {
                let e = x.typed(c, et);
                x.push(
                    c,
                    Some(vt),
                    cat(vec![
                        vec![S("insertelement ")],
                        v,
                        vec![S(", ")],
                        e,
                        vec![S(", ")],
                        i,
                    ]),
                );
            }
        }
        _ => {
            let (vt, n) = c.pick(&[(GTy::V4I32, 4usize), (GTy::V2F32, 2)]);
            let a = x.typed(c, vt);
            let b = x.typed(c, vt);
            let mask = if c.chance(20) {
                "zeroinitializer".to_string()
            } else {
                let els: Vec<String> = (0..n)
                    .map(|_| {
                        if c.chance(15) {
                            "i32 poison".to_string()
                        } else {
                            format!("i32 {}", c.below(2 * n))
                        }
                    })
                    .collect();
                format!("<{}>", els.join(", "))
            };
            x.push(
                c,
                Some(vt),
                cat(vec![
                    vec![S("shufflevector ")],
                    a,
                    vec![S(", ")],
                    b,
                    vec![S(format!(", <{n} x i32> {mask}"))],
                ]),
            );
        }
    }
}

/// A call: external declarations, intrinsics with `metadata` arguments,
/// varargs through an explicit function type, other defined functions,
/// indirect calls; with tail kinds, attributes and bundles.
fn call(c: &mut Choices, x: &mut Ctx<'_>) {
    let tail = c.pick(&["", "", "tail ", "notail "]);
    let fnattr = c.pick(&["", "", " #0", " nounwind", " \"cs\"=\"1\""]);
    match c.below(8) {
        0 => {
            let ra = if c.chance(30) { "noundef " } else { "" };
            let a = x.op(c, GTy::I32);
            let b = x.op(c, GTy::I32);
            x.push(
                c,
                Some(GTy::I32),
                vec![
                    S(format!("{tail}call {ra}i32 @ext(i32 noundef ")),
                    a,
                    S(", i32 "),
                    b,
                    S(format!("){fnattr}")),
                ],
            );
        }
        1 => {
            // The convergent declaration: controlled or not, per function.
            if x.controlled {
                let tok = match *x.token {
                    Some(t) => t,
                    None => {
                        let id = x.vals.len();
                        x.vals.push(Val {
                            ty: GTy::Token,
                            naming: Naming::Named(format!("tok{id}")),
                        });
                        x.insts.push(Ins {
                            res: Some(id),
                            frags: vec![S("call token @llvm.experimental.convergence.anchor()")],
                        });
                        *x.token = Some(id);
                        id
                    }
                };
                x.push(
                    c,
                    None,
                    vec![
                        S(format!(
                            "{tail}call void @conv(){fnattr} [ \"convergencectrl\"(token "
                        )),
                        Frag::V(tok),
                        S(") ]"),
                    ],
                );
            } else {
                x.push(c, None, vec![S(format!("{tail}call void @conv(){fnattr}"))]);
            }
        }
        2 => {
            let a = x.op(c, GTy::F32);
            let fl = flags(c, &["fast", "nnan"]);
            x.push(
                c,
                Some(GTy::F32),
                vec![
                    S(format!("{tail}call{fl} float @ext_f(float ")),
                    a,
                    S(format!("){fnattr}")),
                ],
            );
        }
        3 => {
            let a = x.op(c, GTy::I32);
            let b = x.op(c, GTy::I64);
            let d = x.op(c, GTy::F64);
            x.push(
                c,
                Some(GTy::I32),
                vec![
                    S(format!("{tail}call i32 (i32, ...) @vararg(i32 ")),
                    a,
                    S(", i64 "),
                    b,
                    S(", double "),
                    d,
                    S(format!("){fnattr}")),
                ],
            );
        }
        4 => {
            let a = x.op(c, GTy::F32);
            let b = x.op(c, GTy::F32);
            x.push(
                c,
                Some(GTy::F32),
                vec![
                    S("call float @llvm.experimental.constrained.fadd.f32(float "),
                    a,
                    S(", float "),
                    b,
                    S(", metadata !\"round.dynamic\", metadata !\"fpexcept.strict\") #2"),
                ],
            );
        }
        5 => {
            let a = x.op(c, GTy::I8);
            let bundle = if c.chance(20) {
                " [ \"deopt\"(i32 0) ]"
            } else {
                ""
            };
            x.push(
                c,
                Some(GTy::I8),
                vec![
                    S(format!("{tail}call zeroext i8 @ext_i8(i8 signext ")),
                    a,
                    S(format!("){fnattr}{bundle}")),
                ],
            );
            let v = x.op(c, GTy::I32);
            let p = x.op(c, GTy::Ptr);
            x.push(
                c,
                None,
                vec![S("call void @dn(i32 "), v, S(", ptr nonnull "), p, S(")")],
            );
            // Legacy typed-pointer syntax, which LLVM 22 still reads.
            let q = x.op(c, GTy::Ptr1);
            let p = x.op(c, GTy::Ptr);
            x.push(
                c,
                None,
                vec![
                    S("call void @typed(i32 addrspace(1)* "),
                    q,
                    S(", i8* "),
                    p,
                    S(")"),
                ],
            );
        }
        6 => {
            // Indirect call through a pointer value.
            let p = x.op(c, GTy::Ptr);
            let a = x.op(c, GTy::I32);
            x.push(
                c,
                Some(GTy::I32),
                vec![
                    S(format!("{tail}call i32 ")),
                    p,
                    S("(i32 inreg "),
                    a,
                    S(")"),
                ],
            );
        }
        _ => {
            let callable: Vec<usize> = (0..x.sigs.len()).filter(|i| !x.sigs[*i].kernel).collect();
            let Some(&k) = callable.get(c.below(callable.len().max(1))) else {
                return;
            };
            let sig = x.sigs[k].clone();
            let mut frags = vec![S(tail)];
            frags.push(S("call "));
            if let Some(cc) = sig.cconv {
                frags.push(S(format!("{cc} ")));
            }
            frags.push(S(format!(
                "{} @{}(",
                sig.ret.map_or("void", |t| t.text()),
                if sig.name.contains(' ') {
                    format!("\"{}\"", sig.name)
                } else {
                    sig.name.clone()
                }
            )));
            for (i, t) in sig.params.iter().enumerate() {
                if i > 0 {
                    frags.push(S(", "));
                }
                frags.push(S(format!("{} ", t.text())));
                frags.push(x.op(c, *t));
            }
            frags.push(S(format!("){fnattr}")));
            if sig.convergent && x.controlled {
                let tok = match *x.token {
                    Some(t) => t,
                    None => {
                        let id = x.vals.len();
                        x.vals.push(Val {
                            ty: GTy::Token,
                            naming: Naming::Named(format!("tok{id}")),
                        });
                        x.insts.push(Ins {
                            res: Some(id),
                            frags: vec![S("call token @llvm.experimental.convergence.anchor()")],
                        });
                        *x.token = Some(id);
                        id
                    }
                };
                frags.push(S(" [ \"convergencectrl\"(token "));
                frags.push(Frag::V(tok));
                frags.push(S(") ]"));
            }
            x.push(c, sig.ret, frags);
        }
    }
}
