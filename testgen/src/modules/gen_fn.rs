//! Module and function plans and their rendering (see the parent module
//! for the validity argument).

use std::fmt::Write;

use super::gen_inst::{gen_inst, Ctx};
use super::gen_types::{constant, Choices, GTy, VALUE_TYS};

/// A piece of an instruction's text: literal text, a value, or a block.
#[derive(Clone, Debug)]
pub enum Frag {
    S(String),
    V(usize),
    B(usize),
}

/// How a value or block is named.
#[derive(Clone, Debug)]
pub enum Naming {
    Named(String),
    /// Explicit `%N` with `gap` numbers skipped (LLVM 22 allows gaps).
    Numbered {
        gap: u32,
    },
    /// No name written: numbered implicitly.
    Implicit,
}

#[derive(Clone, Debug)]
pub struct Val {
    pub ty: GTy,
    pub naming: Naming,
}

#[derive(Clone, Debug)]
pub struct Ins {
    pub res: Option<usize>,
    pub frags: Vec<Frag>,
}

#[derive(Clone, Debug, Default)]
pub struct Blk {
    pub naming: Option<Naming>,
    pub phis: Vec<usize>,
    /// Per phi: incoming (value fragment, predecessor block), one per edge.
    pub phi_inc: Vec<Vec<(Frag, usize)>>,
    pub insts: Vec<Ins>,
    pub term: Vec<Frag>,
    pub succs: Vec<usize>,
}

/// A function signature, shared by the definition and its callers.
#[derive(Clone, Debug)]
pub struct Sig {
    pub name: String,
    pub ret: Option<GTy>,
    pub params: Vec<GTy>,
    pub cconv: Option<&'static str>,
    pub convergent: bool,
    pub kernel: bool,
}

fn pick_naming(c: &mut Choices, named: String) -> Naming {
    match c.below(10) {
        0..=4 => Naming::Named(named),
        5..=6 => Naming::Implicit,
        7 => Naming::Numbered {
            gap: 1 + c.below(3) as u32,
        },
        _ => Naming::Numbered { gap: 0 },
    }
}

/// A name that needs quotes now and then.
fn value_name(c: &mut Choices, id: usize) -> String {
    match c.below(12) {
        0 => format!("v {id}"),
        1 => format!("{id}v"),
        2 => format!("v.{id}$-_"),
        _ => format!("v{id}"),
    }
}

fn quote_if_needed(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.as_bytes()[0].is_ascii_digit()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'$' | b'.' | b'_'));
    if plain {
        s.to_string()
    } else {
        format!("\"{s}\"")
    }
}

const HEADER: &str = r#"%struct.S = type { i32, float }
%opaque.T = type opaque

@0 = private constant i32 7
@g = global i32 0, align 4
@ga = internal global [4 x i32] zeroinitializer, align 16
@gc = private unnamed_addr constant [6 x i8] c"hello\00", align 1
@gs = dso_local global %struct.S { i32 1, float 2.000000e+00 }
@gv = addrspace(1) global <4 x i32> <i32 1, i32 2, i32 3, i32 4>
@gp = global ptr @g
@ge = external global i32
@"quoted g" = global i1 true
@gd = constant double 0x3FF0000000000000, section ".rodata"
@gh = global half 0xH3C00
@gpk = global <{ i8, i32 }> <{ i8 1, i32 2 }>
@garr = global [2 x [2 x i32]] [[2 x i32] [i32 1, i32 2], [2 x i32] zeroinitializer]
@gu = weak global { i32, float } undef

declare i32 @ext(i32 noundef, i32) #0
declare void @conv() #1
declare float @ext_f(float) nounwind memory(none)
declare i32 @vararg(i32, ...)
declare void @dn(i32 %x, ptr nonnull %p)
declare zeroext i8 @ext_i8(i8 signext)
declare void @typed(i32 addrspace(1)*, i8*)
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.entry()
declare float @llvm.experimental.constrained.fadd.f32(float, float, metadata, metadata)
"#;

const FOOTER: &str = r#"
attributes #0 = { nounwind "k"="v" }
attributes #1 = { convergent nounwind }
attributes #2 = { strictfp }
attributes #3 = { noinline "no-frame-pointer" memory(argmem: readwrite) alignstack=16 }

!0 = !{i32 0, i32 10}
!1 = !{i32 1}
!named = !{!0, !1}
"#;

/// A whole module.
pub fn module(c: &mut Choices) -> String {
    let mut o = String::new();
    if c.chance(50) {
        o.push_str("source_filename = \"gen.ll\"\n");
    }
    if c.chance(30) {
        o.push_str("target triple = \"x86_64-unknown-linux-gnu\"\n");
    }
    o.push('\n');
    o.push_str(HEADER);
    let nfun = 1 + c.below(3);
    let mut sigs = Vec::new();
    for i in 0..nfun {
        let ret = match c.below(6) {
            0 | 1 => None,
            2 => Some(GTy::I32),
            3 => Some(GTy::F32),
            4 => Some(GTy::Sif),
            _ => Some(GTy::Ptr),
        };
        let params = (0..c.below(5)).map(|_| c.pick(VALUE_TYS)).collect();
        let cconv = c.pick(&[
            None,
            None,
            Some("ccc"),
            Some("fastcc"),
            Some("coldcc"),
            Some("spir_func"),
            Some("cc 8"),
        ]);
        sigs.push(Sig {
            name: if i == 1 && c.chance(30) {
                "f 1".to_string()
            } else {
                format!("f{i}")
            },
            ret,
            params,
            cconv,
            convergent: c.chance(30),
            kernel: false,
        });
    }
    if c.chance(40) {
        let params = (0..c.below(4)).map(|_| c.pick(VALUE_TYS)).collect();
        sigs.push(Sig {
            name: "kernel".to_string(),
            ret: None,
            params,
            cconv: Some(c.pick(&["amdgpu_kernel", "spir_kernel", "ptx_kernel"])),
            convergent: c.chance(50),
            kernel: true,
        });
    }
    for i in 0..sigs.len() {
        o.push('\n');
        o.push_str(&function(c, &sigs, i));
    }
    o.push_str(FOOTER);
    o
}

fn param_attrs(c: &mut Choices, t: GTy) -> &'static str {
    match t {
        GTy::Ptr | GTy::Ptr1 => c.pick(&[
            "",
            "",
            " noundef",
            " align 8",
            " nonnull",
            " readonly",
            " dereferenceable(8)",
            " noalias nocapture",
        ]),
        GTy::I8 => c.pick(&["", "", " noundef", " inreg", " signext", " range(i8 0, 4)"]),
        GTy::I32 | GTy::I64 | GTy::I1 => c.pick(&["", "", " noundef", " inreg", " signext"]),
        GTy::F32 | GTy::F64 | GTy::Half => c.pick(&["", " noundef", " nofpclass(nan inf)"]),
        _ => c.pick(&["", " noundef"]),
    }
}

/// One function definition.
fn function(c: &mut Choices, sigs: &[Sig], me: usize) -> String {
    let sig = &sigs[me];
    let controlled = c.chance(40);
    let mut vals: Vec<Val> = sig
        .params
        .iter()
        .enumerate()
        .map(|(i, t)| Val {
            ty: *t,
            naming: if c.chance(50) {
                Naming::Named(format!("a{i}"))
            } else if c.chance(50) {
                Naming::Implicit
            } else {
                Naming::Numbered { gap: 0 }
            },
        })
        .collect();
    let nargs = vals.len();
    // The CFG: terminator kinds and successors (the entry block has no
    // predecessors).
    let max_blocks = if c.chance(20) { 12 } else { 6 };
    let n = 1 + c.below(max_blocks);
    let mut blocks: Vec<Blk> = (0..n).map(|_| Blk::default()).collect();
    let mut term_kind = Vec::with_capacity(n);
    for (b, blk) in blocks.iter_mut().enumerate() {
        let k = if n == 1 { c.below(2) * 4 } else { c.below(5) };
        let tgt = |c: &mut Choices| 1 + c.below(n - 1);
        let succs = match k {
            1 => vec![tgt(c)],
            2 => vec![tgt(c), tgt(c)],
            3 => (0..1 + c.below(4)).map(|_| tgt(c)).collect(),
            _ => vec![],
        };
        blk.succs = succs;
        term_kind.push(k);
        blk.naming = Some(if b == 0 {
            match c.below(3) {
                0 => Naming::Implicit,
                1 => Naming::Named("entry".to_string()),
                _ => Naming::Numbered { gap: 0 },
            }
        } else {
            let nm = if c.chance(10) {
                format!("bb {b}")
            } else {
                format!("bb{b}")
            };
            pick_naming(c, nm)
        });
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, blk) in blocks.iter().enumerate() {
        for s in &blk.succs {
            preds[*s].push(b);
        }
    }
    // Phis (types only; incoming values once all blocks are generated).
    for b in 1..n {
        if preds[b].is_empty() {
            continue;
        }
        for _ in 0..c.below(3) {
            let ty = c.pick(VALUE_TYS);
            let id = vals.len();
            let nm = value_name(c, id);
            vals.push(Val {
                ty,
                naming: pick_naming(c, nm),
            });
            blocks[b].phis.push(id);
        }
    }
    // Bodies.
    let mut entry_vals: Vec<usize> = Vec::new();
    let mut block_vals: Vec<Vec<usize>> = vec![Vec::new(); n];
    for b in 0..n {
        let mut local: Vec<usize> = blocks[b].phis.clone();
        let mut token: Option<usize> = None;
        let mut insts = Vec::new();
        if b == 0 && controlled && sig.convergent {
            let id = vals.len();
            vals.push(Val {
                ty: GTy::Token,
                naming: Naming::Named("entry.tok".to_string()),
            });
            insts.push(Ins {
                res: Some(id),
                frags: vec![Frag::S(
                    "call token @llvm.experimental.convergence.entry()".to_string(),
                )],
            });
            token = Some(id);
        }
        for _ in 0..c.below(9) {
            let mut pool: Vec<usize> = (0..nargs).collect();
            if b != 0 {
                pool.extend(entry_vals.iter().copied());
            }
            pool.extend(local.iter().copied());
            let mut ctx = Ctx {
                vals: &mut vals,
                pool: &pool,
                sigs,
                controlled,
                token: &mut token,
                insts: &mut insts,
            };
            gen_inst(c, &mut ctx);
            for i in insts.iter() {
                if let Some(r) = i.res {
                    if !local.contains(&r) && vals[r].ty != GTy::Token {
                        local.push(r);
                    }
                }
            }
        }
        blocks[b].insts = insts;
        if b == 0 {
            entry_vals = local.clone();
        }
        block_vals[b] = local;
    }
    // Terminators and phi incoming values.
    for b in 0..n {
        let mut pool: Vec<usize> = (0..nargs).collect();
        if b != 0 {
            pool.extend(entry_vals.iter().copied());
        }
        pool.extend(block_vals[b].iter().copied());
        let succs = blocks[b].succs.clone();
        let term = match term_kind[b] {
            1 => vec![Frag::S("br label ".into()), Frag::B(succs[0])],
            2 => {
                let cond = opnd(c, &vals, &pool, GTy::I1);
                vec![
                    Frag::S("br i1 ".into()),
                    cond,
                    Frag::S(", label ".into()),
                    Frag::B(succs[0]),
                    Frag::S(", label ".into()),
                    Frag::B(succs[1]),
                ]
            }
            3 => {
                let ty = c.pick(&[GTy::I32, GTy::I8, GTy::I64]);
                let cond = opnd(c, &vals, &pool, ty);
                let mut f = vec![
                    Frag::S(format!("switch {} ", ty.text())),
                    cond,
                    Frag::S(", label ".into()),
                    Frag::B(succs[0]),
                    Frag::S(" [".into()),
                ];
                for (k, s) in succs.iter().enumerate().skip(1) {
                    f.push(Frag::S(format!(
                        "\n    {} {}, label ",
                        ty.text(),
                        k as i64 * 3 - 4
                    )));
                    f.push(Frag::B(*s));
                }
                f.push(Frag::S("\n  ]".into()));
                f
            }
            4 => vec![Frag::S("unreachable".into())],
            _ => match sig.ret {
                None => vec![Frag::S("ret void".into())],
                Some(t) => {
                    let v = opnd(c, &vals, &pool, t);
                    vec![Frag::S(format!("ret {} ", t.text())), v]
                }
            },
        };
        blocks[b].term = term;
    }
    for b in 1..n {
        let phis = blocks[b].phis.clone();
        let mut incs = Vec::new();
        for p in &phis {
            let ty = vals[*p].ty;
            let mut inc: Vec<(Frag, usize)> = Vec::new();
            for &pr in &preds[b] {
                // Duplicate edges must carry the same value.
                if let Some((f, _)) = inc.iter().find(|(_, q)| *q == pr) {
                    let f = f.clone();
                    inc.push((f, pr));
                    continue;
                }
                let mut pool: Vec<usize> = (0..nargs).collect();
                pool.extend(entry_vals.iter().copied());
                pool.extend(block_vals[pr].iter().copied());
                inc.push((opnd(c, &vals, &pool, ty), pr));
            }
            incs.push(inc);
        }
        blocks[b].phi_inc = incs;
    }
    render(c, sig, &vals, nargs, &blocks)
}

/// An operand of type `t`: a value from `pool` or a constant.
pub fn opnd(c: &mut Choices, vals: &[Val], pool: &[usize], t: GTy) -> Frag {
    let cands: Vec<usize> = pool.iter().copied().filter(|v| vals[*v].ty == t).collect();
    if !cands.is_empty() && c.chance(75) {
        Frag::V(c.pick(&cands))
    } else {
        Frag::S(constant(c, t))
    }
}

/// Writes the function, assigning numbers in textual order.
fn render(c: &mut Choices, sig: &Sig, vals: &[Val], nargs: usize, blocks: &[Blk]) -> String {
    let mut counter: u32 = 0;
    let mut names: Vec<String> = vec![String::new(); vals.len()];
    let mut explicit: Vec<bool> = vec![true; vals.len()];
    let number = |naming: &Naming, counter: &mut u32| -> (String, bool) {
        match naming {
            Naming::Named(s) => (quote_if_needed(s), true),
            Naming::Implicit => {
                let k = *counter;
                *counter += 1;
                (k.to_string(), false)
            }
            Naming::Numbered { gap } => {
                let k = *counter + gap;
                *counter = k + 1;
                (k.to_string(), true)
            }
        }
    };
    for (i, v) in vals.iter().enumerate().take(nargs) {
        // Arguments: no gaps (kept simple), implicit ones are unnamed.
        let naming = match v.naming {
            Naming::Numbered { .. } => Naming::Numbered { gap: 0 },
            ref n => n.clone(),
        };
        let (s, e) = number(&naming, &mut counter);
        names[i] = s;
        explicit[i] = e;
    }
    let mut bnames = vec![String::new(); blocks.len()];
    let mut blabel = vec![true; blocks.len()];
    // Number in textual order: label, phis, instructions.
    for (b, blk) in blocks.iter().enumerate() {
        let naming = blk.naming.clone().unwrap_or(Naming::Implicit);
        let (s, e) = number(&naming, &mut counter);
        bnames[b] = s;
        blabel[b] = e;
        for &p in &blk.phis {
            let (s, e) = number(&vals[p].naming, &mut counter);
            names[p] = s;
            explicit[p] = e;
        }
        for i in &blk.insts {
            if let Some(r) = i.res {
                let (s, e) = number(&vals[r].naming, &mut counter);
                names[r] = s;
                explicit[r] = e;
            }
        }
    }
    let frag = |f: &Frag| -> String {
        match f {
            Frag::S(s) => s.clone(),
            Frag::V(v) => format!("%{}", names[*v]),
            Frag::B(b) => format!("%{}", bnames[*b]),
        }
    };
    let mut o = String::new();
    o.push_str("define ");
    o.push_str(c.pick(&["", "", "internal ", "dso_local ", "hidden "]));
    if let Some(cc) = sig.cconv {
        o.push_str(cc);
        o.push(' ');
    }
    match sig.ret {
        None => o.push_str("void"),
        Some(t) => {
            if t == GTy::I32 && c.chance(30) {
                o.push_str("noundef ");
            }
            o.push_str(t.text());
        }
    }
    let _ = write!(o, " @{}(", quote_if_needed(&sig.name));
    for (i, t) in sig.params.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        o.push_str(t.text());
        o.push_str(param_attrs(c, *t));
        if explicit[i] || c.chance(50) {
            let _ = write!(o, " %{}", names[i]);
        }
    }
    o.push(')');
    if c.chance(20) {
        o.push_str(" local_unnamed_addr");
    }
    if sig.convergent {
        o.push_str(c.pick(&[" convergent", " #1"]));
    }
    for a in [
        " nounwind",
        " #0",
        " #3",
        " \"fn-attr\"=\"1\"",
        " mustprogress",
        " memory(readwrite)",
    ] {
        if c.chance(15) {
            o.push_str(a);
        }
    }
    if c.chance(10) {
        o.push_str(" section \".text.gen\"");
    }
    if c.chance(10) {
        o.push_str(" align 16");
    }
    o.push_str(" {\n");
    for (b, blk) in blocks.iter().enumerate() {
        if b > 0 {
            o.push('\n');
        }
        if blabel[b] {
            let _ = writeln!(o, "{}:", bnames[b]);
        }
        for (k, &p) in blk.phis.iter().enumerate() {
            o.push_str("  ");
            if explicit[p] {
                let _ = write!(o, "%{} = ", names[p]);
            }
            let _ = write!(o, "phi {} ", vals[p].ty.text());
            for (j, (f, pr)) in blk.phi_inc[k].iter().enumerate() {
                if j > 0 {
                    o.push_str(", ");
                }
                let _ = write!(o, "[ {}, %{} ]", frag(f), bnames[*pr]);
            }
            o.push('\n');
        }
        for i in &blk.insts {
            o.push_str("  ");
            if let Some(r) = i.res {
                if explicit[r] {
                    let _ = write!(o, "%{} = ", names[r]);
                }
            }
            for f in &i.frags {
                o.push_str(&frag(f));
            }
            o.push('\n');
        }
        o.push_str("  ");
        for f in &blk.term {
            o.push_str(&frag(f));
        }
        o.push('\n');
    }
    o.push_str("}\n");
    o
}
