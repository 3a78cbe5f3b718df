//! Builds the IR of a generated uniformity program (testgen's `UFunc`)
//! directly, so the differential test does not depend on the parser, and
//! runs `opt-22` on batches of them.

use std::collections::HashMap;

use crate::uniformity::{UFunc, UInst, UOp, UTerm};
use semantics::ir::{
    Attr, BinOp, Block, BlockId, Call, CallArg, Const, Function, ICmpPred, Inst, InstKind, Module,
    Name, Operand, Param, Span, TermKind, Terminator, Type, TypedOperand, ValueDef, ValueId,
    ValueInfo,
};

fn decl(name: &str, ret: Type, params: Vec<Type>) -> Function {
    Function {
        name: name.into(),
        is_definition: false,
        linkage: vec![],
        cconv: None,
        ret_attrs: vec![],
        ret_ty: ret,
        params: params
            .into_iter()
            .map(|ty| Param {
                ty,
                attrs: vec![],
                value: None,
                decl_name: None,
            })
            .collect(),
        varargs: false,
        unnamed_addr: None,
        fn_attrs: vec![],
        trailer: vec![],
        blocks: vec![],
        values: vec![],
        md: Vec::new(),
        unsupported: None,
        span: Span::default(),
    }
}

/// The declarations generated programs call (as in
/// [`crate::uniformity::DECLARATIONS`]).
pub fn declarations() -> Vec<Function> {
    let mut nds = decl("convcheck.nds", Type::Int(32), vec![Type::Int(32)]);
    nds.fn_attrs = vec![Attr::Word("nodivergencesource".into())];
    vec![
        decl("llvm.amdgcn.workitem.id.x", Type::Int(32), vec![]),
        decl(
            "llvm.amdgcn.readfirstlane.i32",
            Type::Int(32),
            vec![Type::Int(32)],
        ),
        nds,
    ]
}

fn call(name: &str, args: Vec<Operand>) -> InstKind {
    InstKind::Call(Box::new(Call {
        tail: None,
        flags: vec![],
        cconv: None,
        ret_attrs: vec![],
        ty: Type::Int(32),
        callee: Operand::constant(Const::Global(name.into())),
        args: args
            .into_iter()
            .map(|value| CallArg {
                ty: Type::Int(32),
                attrs: vec![],
                value,
            })
            .collect(),
        fn_attrs: vec![],
        bundles: vec![],
    }))
}

/// The IR of `u`, as the parser would build it from `u.to_llvm()`.
pub fn build(u: &UFunc) -> Function {
    let nargs = u.inreg.len();
    let mut values: Vec<ValueInfo> = Vec::new();
    let mut params = Vec::new();
    for (i, &r) in u.inreg.iter().enumerate() {
        values.push(ValueInfo {
            name: Name::Named(format!("a{i}").into()),
            ty: Type::Int(32),
            def: ValueDef::Arg(i),
        });
        params.push(Param {
            ty: Type::Int(32),
            attrs: if r {
                vec![Attr::Word("inreg".into())]
            } else {
                vec![]
            },
            value: Some(ValueId(i)),
            decl_name: None,
        });
    }
    values.push(ValueInfo {
        name: Name::Named("out".into()),
        ty: Type::Ptr(1),
        def: ValueDef::Arg(nargs),
    });
    params.push(Param {
        ty: Type::Ptr(1),
        attrs: vec![],
        value: Some(ValueId(nargs)),
        decl_name: None,
    });
    // Results in textual order.
    let mut map: HashMap<usize, ValueId> = HashMap::new();
    for (bi, b) in u.blocks.iter().enumerate() {
        for (ii, i) in b.insts.iter().enumerate() {
            let (dst, ty) = match i {
                UInst::Tid { dst }
                | UInst::Add { dst, .. }
                | UInst::ReadFirstLane { dst, .. }
                | UInst::NoDivSource { dst, .. }
                | UInst::Phi { dst, .. } => (*dst, Type::Int(32)),
                UInst::Cmp { dst, .. } => (*dst, Type::Int(1)),
                UInst::Store { .. } => continue,
            };
            map.insert(dst, ValueId(values.len()));
            values.push(ValueInfo {
                name: Name::Named(format!("v{dst}").into()),
                ty,
                def: ValueDef::inst(BlockId(bi), ii),
            });
        }
    }
    let op = |o: &UOp| -> Operand {
        match o {
            UOp::Arg(i) => Operand::Local(ValueId(*i)),
            UOp::Val(v) => Operand::Local(map[v]),
            UOp::Const(c) => Operand::constant(Const::Int {
                value: *c as i128,
                bool_syntax: false,
            }),
        }
    };
    let i32o = |o: &UOp| TypedOperand {
        ty: Type::Int(32),
        value: op(o),
    };
    let blocks = u
        .blocks
        .iter()
        .enumerate()
        .map(|(bi, b)| {
            let insts = b
                .insts
                .iter()
                .map(|i| {
                    let (result, kind) = match i {
                        UInst::Tid { dst } => {
                            (Some(map[dst]), call("llvm.amdgcn.workitem.id.x", vec![]))
                        }
                        UInst::Add { dst, a, b } => (
                            Some(map[dst]),
                            InstKind::Binary {
                                op: BinOp::Add,
                                flags: vec![].into(),
                                ty: Type::Int(32),
                                lhs: op(a),
                                rhs: op(b),
                            },
                        ),
                        UInst::ReadFirstLane { dst, a } => (
                            Some(map[dst]),
                            call("llvm.amdgcn.readfirstlane.i32", vec![op(a)]),
                        ),
                        UInst::NoDivSource { dst, a } => {
                            (Some(map[dst]), call("convcheck.nds", vec![op(a)]))
                        }
                        UInst::Phi { dst, incoming } => (
                            Some(map[dst]),
                            InstKind::Phi {
                                flags: vec![].into(),
                                ty: Type::Int(32),
                                incoming: incoming
                                    .iter()
                                    .map(|(o, p)| (op(o), BlockId(*p)))
                                    .collect(),
                            },
                        ),
                        UInst::Cmp { dst, a, b } => (
                            Some(map[dst]),
                            InstKind::ICmp {
                                samesign: false,
                                pred: ICmpPred::Slt,
                                ty: Type::Int(32),
                                lhs: op(a),
                                rhs: op(b),
                            },
                        ),
                        UInst::Store { v } => (
                            None,
                            InstKind::Store {
                                volatile: false,
                                value: i32o(v),
                                ptr: Box::new(TypedOperand {
                                    ty: Type::Ptr(1),
                                    value: Operand::Local(ValueId(nargs)),
                                }),
                                atomic: None,
                                align: Some(4),
                            },
                        ),
                    };
                    Inst {
                        result,
                        kind,
                        meta: Default::default(),
                        span: Span::default(),
                    }
                })
                .collect();
            let kind = match &b.term {
                UTerm::Br(t) => TermKind::Br(BlockId(*t)),
                UTerm::CondBr { cond, t, f } => TermKind::CondBr {
                    cond: Operand::Local(map[cond]),
                    on_true: BlockId(*t),
                    on_false: BlockId(*f),
                },
                UTerm::Switch { on, default, cases } => TermKind::Switch {
                    ty: Box::new(Type::Int(32)),
                    cond: op(on),
                    default: BlockId(*default),
                    cases: cases
                        .iter()
                        .map(|(v, b)| {
                            (
                                Const::Int {
                                    value: *v as i128,
                                    bool_syntax: false,
                                },
                                BlockId(*b),
                            )
                        })
                        .collect(),
                },
                UTerm::Ret => TermKind::Ret(None),
                UTerm::Unreachable => TermKind::Unreachable,
            };
            Block {
                name: Name::Named(format!("b{bi}").into()),
                explicit_label: true,
                insts,
                term: Terminator {
                    kind,
                    meta: Default::default(),
                    span: Span::default(),
                },
                span: Span::default(),
            }
        })
        .collect();
    Function {
        name: u.name.clone(),
        is_definition: true,
        linkage: vec![],
        cconv: if u.kernel {
            Some("amdgpu_kernel".into())
        } else {
            None
        },
        ret_attrs: vec![],
        ret_ty: Type::Void,
        params,
        varargs: false,
        unnamed_addr: None,
        fn_attrs: vec![],
        trailer: vec![],
        blocks,
        values,
        md: vec![],
        unsupported: None,
        span: Span::default(),
    }
}

/// A module holding `funcs` and the declarations they need.
pub fn module_of(funcs: &[UFunc]) -> (Module, String) {
    let mut m = Module::default();
    let mut text = String::new();
    for u in funcs {
        m.functions.push(build(u));
        text.push_str(&u.to_llvm());
        text.push('\n');
    }
    m.functions.extend(declarations());
    text.push_str(crate::uniformity::DECLARATIONS);
    (m, text)
}

/// Runs `print<uniformity>` for `-mtriple=amdgcn--` on IR text; returns
/// opt's stderr (where the printer writes) or its error.
pub fn run_opt(opt: &std::path::Path, text: &str) -> Result<String, String> {
    let out = crate::oracle::run_opt(
        opt,
        &[
            "-mtriple=amdgcn--",
            "-passes=print<uniformity>",
            "-disable-output",
        ],
        text,
    );
    if out.success() {
        Ok(out.stderr)
    } else {
        Err(out.stderr)
    }
}

/// Splits opt's output into per-function sections, keyed by name.
pub fn split_sections(out: &str) -> Vec<(String, String)> {
    let mut res: Vec<(String, String)> = Vec::new();
    for line in out.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("UniformityInfo for function '") {
            let name = rest.trim_end().trim_end_matches("':").to_string();
            res.push((name, String::new()));
        }
        if let Some(last) = res.last_mut() {
            last.1.push_str(line);
        }
    }
    res
}

/// Puts the parts of a section whose order LLVM does not fix in a
/// canonical order: the divergent arguments (a pointer-keyed `DenseSet`,
/// printed in hash order that changes between runs), the cycle lists and
/// the temporal divergence entries (discovery order depends on that hash
/// order through the worklist).
pub fn normalize(section: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = section.split_inclusive('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let is_list_head = l == "DIVERGENT ARGUMENTS:\n"
            || l == "CYCLES ASSUMED DIVERGENT:\n"
            || l == "CYCLES WITH DIVERGENT EXIT:\n";
        if is_list_head {
            out.push_str(l);
            i += 1;
            let mut items = Vec::new();
            while i < lines.len() && lines[i].starts_with("  ") {
                items.push(lines[i]);
                i += 1;
            }
            items.sort();
            items.iter().for_each(|x| out.push_str(x));
            continue;
        }
        if l == "TEMPORAL DIVERGENCE LIST:\n" {
            out.push_str(l);
            i += 1;
            let mut entries = Vec::new();
            while i + 3 < lines.len() && lines[i].starts_with("Value         :") {
                entries.push(lines[i..i + 4].concat());
                i += 4;
            }
            entries.sort();
            entries.iter().for_each(|x| out.push_str(x));
            continue;
        }
        out.push_str(l);
        i += 1;
    }
    out
}

/// The per-instruction verdicts of a section: (block, position, divergent).
pub fn verdicts(section: &str) -> Vec<(String, usize, bool)> {
    let mut res = Vec::new();
    let mut block = String::new();
    let mut k = 0;
    for l in section.lines() {
        if let Some(b) = l.strip_prefix("BLOCK ") {
            block = b.to_string();
            k = 0;
        } else if l.starts_with("  DIVERGENT: ") || l.starts_with("             ") {
            if block.is_empty() {
                continue;
            }
            res.push((block.clone(), k, l.starts_with("  DIVERGENT: ")));
            k += 1;
        }
    }
    res
}

/// The header of a section (everything before the first `BLOCK`), parsed.
#[derive(Debug, Default)]
pub struct Header {
    pub args: Vec<String>,
    pub assumed: Vec<String>,
    pub exits: Vec<String>,
    /// (value, user, cycle)
    pub temporal: Vec<(String, String, String)>,
}

/// Splits a section into its parsed header and the block part (exact text).
pub fn parse_section(section: &str) -> (Header, String) {
    let mut h = Header::default();
    let (head, blocks) = match section.find("\nBLOCK ") {
        Some(i) => (&section[..i], &section[i..]),
        None => (section, ""),
    };
    let lines: Vec<&str> = head.lines().collect();
    let mut cur: Option<&str> = None;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        match l {
            "DIVERGENT ARGUMENTS:"
            | "CYCLES ASSUMED DIVERGENT:"
            | "CYCLES WITH DIVERGENT EXIT:"
            | "TEMPORAL DIVERGENCE LIST:" => cur = Some(l),
            _ if l.starts_with("Value         :") && i + 2 < lines.len() => {
                h.temporal.push((
                    l.to_string(),
                    lines[i + 1].to_string(),
                    lines[i + 2]
                        .trim_start_matches("Outside cycle :")
                        .to_string(),
                ));
                i += 3;
                continue;
            }
            _ if l.starts_with("  ") => match cur {
                Some("DIVERGENT ARGUMENTS:") => h.args.push(l.trim().to_string()),
                Some("CYCLES ASSUMED DIVERGENT:") => h.assumed.push(l.trim().to_string()),
                Some("CYCLES WITH DIVERGENT EXIT:") => h.exits.push(l.trim().to_string()),
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
    (h, blocks.to_string())
}

/// The blocks of a printed cycle `depth=D: entries(A B) C D`.
fn cycle_blocks(c: &str) -> std::collections::BTreeSet<String> {
    let rest = c.split_once(": ").map_or(c, |x| x.1);
    rest.replace("entries(", "")
        .replace(')', "")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn contains(outer: &str, inner: &str) -> bool {
    cycle_blocks(outer).is_superset(&cycle_blocks(inner))
}

fn sorted<T: Ord + Clone>(v: &[T]) -> Vec<T> {
    let mut v = v.to_vec();
    v.sort();
    v.dedup();
    v
}

/// Whether two headers agree on everything LLVM determines:
/// - the divergent arguments and the cycles with a divergent exit, as sets
///   (LLVM prints them in an order that varies between runs);
/// - the maximal cycles assumed divergent (inner ones are listed or not
///   depending on the order the worklist met them);
/// - the temporal divergence entries of every cycle that is not inside a
///   cycle assumed divergent (entries of those are recorded or not
///   depending on that order).
///
/// Returns the first disagreement.
pub fn headers_agree(a: &Header, b: &Header) -> Result<(), String> {
    if sorted(&a.args) != sorted(&b.args) {
        return Err(format!("divergent arguments {:?} vs {:?}", a.args, b.args));
    }
    if sorted(&a.exits) != sorted(&b.exits) {
        return Err(format!(
            "divergent-exit cycles {:?} vs {:?}",
            a.exits, b.exits
        ));
    }
    let maximal = |v: &[String]| -> Vec<String> {
        sorted(
            &v.iter()
                .filter(|c| !v.iter().any(|d| d != *c && contains(d, c)))
                .cloned()
                .collect::<Vec<_>>(),
        )
    };
    if maximal(&a.assumed) != maximal(&b.assumed) {
        return Err(format!(
            "assumed-divergent cycles {:?} vs {:?}",
            a.assumed, b.assumed
        ));
    }
    let assumed = maximal(&a.assumed);
    let determined = |h: &Header| -> Vec<(String, String, String)> {
        sorted(
            &h.temporal
                .iter()
                .filter(|t| !assumed.iter().any(|c| contains(c, &t.2)))
                .cloned()
                .collect::<Vec<_>>(),
        )
    };
    if determined(a) != determined(b) {
        return Err(format!(
            "temporal divergence {:?} vs {:?}",
            determined(a),
            determined(b)
        ));
    }
    Ok(())
}
