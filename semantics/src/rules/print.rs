//! Printing values the way LLVM's verifier prints them after a message
//! (`Value::print`: the instruction with two spaces of indentation, `label
//! %B` for blocks, `GenericCycle::print` for cycles), so that our text
//! output can be compared with `opt-22 -passes=verify` line for line (rule
//! S-LLVM). Call-site attribute groups are printed as written: LLVM
//! renumbers them, which is the one known difference.

use crate::cfg::{CycleId, CycleInfo};
use crate::ir::{
    Attr, BinOp, Block, BlockId, CastOp, Const, Function, ICmpPred, Inst, InstKind, Module, Name,
    Operand, TermKind, Type, TypedConst, TypedOperand, ValueId,
};

/// `label %B`
pub fn print_block_operand(f: &Function, b: BlockId) -> String {
    format!("label {}", print_local_name(&f.blocks[b.0].name))
}

/// `depth=1: entries(B C) D E`: entries in order, then the other blocks in
/// the cycle's block order.
pub fn print_cycle(f: &Function, ci: &CycleInfo, c: CycleId) -> String {
    let cy = ci.cycle(c);
    let entries: Vec<String> = cy.entries.iter().map(|b| f.block_name(*b)).collect();
    let mut s = format!("depth={}: entries({})", cy.depth, entries.join(" "));
    for b in &cy.blocks {
        if !cy.entries.contains(b) {
            s.push(' ');
            s.push_str(&f.block_name(*b));
        }
    }
    s
}

/// `%name`, quoted when LLVM would quote it.
pub fn print_local_name(n: &Name) -> String {
    match n {
        Name::Numbered(k) => format!("%{k}"),
        Name::Named(s) => {
            let plain = !s.is_empty()
                && s.chars().enumerate().all(|(i, c)| {
                    c.is_ascii_alphabetic()
                        || matches!(c, '-' | '$' | '.' | '_')
                        || (i > 0 && c.is_ascii_digit())
                });
            if plain {
                format!("%{s}")
            } else {
                format!("%\"{s}\"")
            }
        }
    }
}

pub fn print_value(f: &Function, v: ValueId) -> String {
    print_local_name(&f.value(v).name)
}

/// A value that is not an instruction, as LLVM prints it as an operand:
/// `token none`, `token %t`.
pub fn print_typed_operand(f: &Function, t: &TypedOperand) -> String {
    format!("{} {}", print_type(&t.ty), print_operand(f, &t.value))
}

pub fn print_type(t: &Type) -> String {
    match t {
        Type::Void => "void".into(),
        Type::Int(n) => format!("i{n}"),
        Type::Half => "half".into(),
        Type::BFloat => "bfloat".into(),
        Type::Float => "float".into(),
        Type::Double => "double".into(),
        Type::X86Fp80 => "x86_fp80".into(),
        Type::Fp128 => "fp128".into(),
        Type::Ptr(0) => "ptr".into(),
        Type::Ptr(a) => format!("ptr addrspace({a})"),
        Type::Vector {
            len,
            scalable,
            elem,
        } => {
            let v = if *scalable { "vscale x " } else { "" };
            format!("<{v}{len} x {}>", print_type(elem))
        }
        Type::Array { len, elem } => format!("[{len} x {}]", print_type(elem)),
        Type::Struct { fields, packed } => {
            let inner: Vec<String> = fields.iter().map(print_type).collect();
            if fields.is_empty() {
                if *packed { "<{}>" } else { "{}" }.into()
            } else if *packed {
                format!("<{{ {} }}>", inner.join(", "))
            } else {
                format!("{{ {} }}", inner.join(", "))
            }
        }
        Type::Named(n) => format!("%{n}"),
        Type::TypedPtr { pointee, addrspace } => {
            if *addrspace == 0 {
                format!("{}*", print_type(pointee))
            } else {
                format!("{} addrspace({addrspace})*", print_type(pointee))
            }
        }
        Type::Func {
            ret,
            params,
            varargs,
        } => {
            let mut ps: Vec<String> = params.iter().map(print_type).collect();
            if *varargs {
                ps.push("...".into());
            }
            format!("{} ({})", print_type(ret), ps.join(", "))
        }
        Type::Label => "label".into(),
        Type::Token => "token".into(),
        Type::Metadata => "metadata".into(),
    }
}

fn print_typed_const(t: &TypedConst) -> String {
    format!("{} {}", print_type(&t.ty), print_const(&t.value))
}

pub fn print_const(c: &Const) -> String {
    match c {
        Const::Int { value, bool_syntax } => {
            if *bool_syntax {
                if *value != 0 { "true" } else { "false" }.into()
            } else {
                value.to_string()
            }
        }
        Const::Float(s) => s.clone(),
        Const::Null => "null".into(),
        Const::None => "none".into(),
        Const::Undef => "undef".into(),
        Const::Poison => "poison".into(),
        Const::ZeroInit => "zeroinitializer".into(),
        Const::Vector(xs) => format!(
            "<{}>",
            xs.iter()
                .map(print_typed_const)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Const::Array(xs) => format!(
            "[{}]",
            xs.iter()
                .map(print_typed_const)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Const::CString(bytes) => {
            let mut s = String::from("c\"");
            for &b in bytes {
                if b.is_ascii_graphic() && b != b'"' && b != b'\\' || b == b' ' {
                    s.push(b as char);
                } else {
                    s.push_str(&format!("\\{b:02X}"));
                }
            }
            s.push('"');
            s
        }
        Const::Struct { fields, packed } => {
            let inner = fields
                .iter()
                .map(print_typed_const)
                .collect::<Vec<_>>()
                .join(", ");
            if *packed {
                format!("<{{ {inner} }}>")
            } else {
                format!("{{ {inner} }}")
            }
        }
        Const::Global(n) => format!("@{n}"),
        Const::Expr(e) => {
            let mut s = String::new();
            e.write_with(&mut s, &print_type, &print_typed_const);
            s
        }
    }
}

pub fn print_operand(f: &Function, op: &Operand) -> String {
    match op {
        Operand::Local(v) => print_value(f, *v),
        Operand::Const(c) => print_const(c),
        Operand::Metadata(s) => s.clone(),
    }
}

fn print_attr(a: &Attr) -> String {
    match a {
        Attr::Word(w) => w.clone(),
        Attr::Str { key, value: None } => format!("\"{key}\""),
        Attr::Str {
            key,
            value: Some(v),
        } => format!("\"{key}\"=\"{v}\""),
        Attr::Int { name, value } => format!("{name} {value}"),
        Attr::Paren { name, args } => format!("{name}({args})"),
        Attr::Group(n) => format!("#{n}"),
    }
}

fn binop_name(op: BinOp) -> &'static str {
    op.mnemonic()
}

fn cast_name(op: CastOp) -> &'static str {
    op.mnemonic()
}

fn pred_name(p: ICmpPred) -> &'static str {
    match p {
        ICmpPred::Eq => "eq",
        ICmpPred::Ne => "ne",
        ICmpPred::Ugt => "ugt",
        ICmpPred::Uge => "uge",
        ICmpPred::Ult => "ult",
        ICmpPred::Ule => "ule",
        ICmpPred::Sgt => "sgt",
        ICmpPred::Sge => "sge",
        ICmpPred::Slt => "slt",
        ICmpPred::Sle => "sle",
    }
}

fn words(prefix: &str, ws: &[String]) -> String {
    let mut s = String::from(prefix);
    for w in ws {
        s.push(' ');
        s.push_str(w);
    }
    s
}

fn typed(f: &Function, t: &TypedOperand) -> String {
    print_typed_operand(f, t)
}

/// The body of an instruction (after `%x = `).
fn print_kind(m: &Module, f: &Function, k: &InstKind) -> String {
    let _ = m;
    match k {
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } => format!(
            "{} {} {}, {}",
            words(binop_name(*op), flags),
            print_type(ty),
            print_operand(f, lhs),
            print_operand(f, rhs)
        ),
        InstKind::FNeg { flags, ty, value } => format!(
            "{} {} {}",
            words("fneg", flags),
            print_type(ty),
            print_operand(f, value)
        ),
        InstKind::ICmp {
            samesign,
            pred,
            ty,
            lhs,
            rhs,
        } => format!(
            "icmp {}{} {} {}, {}",
            if *samesign { "samesign " } else { "" },
            pred_name(*pred),
            print_type(ty),
            print_operand(f, lhs),
            print_operand(f, rhs)
        ),
        InstKind::FCmp {
            flags,
            pred,
            ty,
            lhs,
            rhs,
        } => format!(
            "{} {} {} {}, {}",
            words("fcmp", flags),
            pred.0,
            print_type(ty),
            print_operand(f, lhs),
            print_operand(f, rhs)
        ),
        InstKind::Cast {
            op,
            flags,
            from,
            to,
        } => format!(
            "{} {} to {}",
            words(cast_name(*op), flags),
            typed(f, from),
            print_type(to)
        ),
        InstKind::Select {
            flags,
            cond,
            on_true,
            on_false,
        } => format!(
            "{} {}, {}, {}",
            words("select", flags),
            typed(f, cond),
            typed(f, on_true),
            typed(f, on_false)
        ),
        InstKind::Freeze(x) => format!("freeze {}", typed(f, x)),
        InstKind::Phi {
            flags,
            ty,
            incoming,
        } => {
            let inc: Vec<String> = incoming
                .iter()
                .map(|(v, b)| {
                    format!(
                        "[ {}, {} ]",
                        print_operand(f, v),
                        print_local_name(&f.blocks[b.0].name)
                    )
                })
                .collect();
            format!(
                "{} {} {}",
                words("phi", flags),
                print_type(ty),
                inc.join(", ")
            )
        }
        InstKind::Call(c) => {
            let mut s = String::new();
            if let Some(t) = &c.tail {
                s.push_str(t);
                s.push(' ');
            }
            s.push_str(&words("call", &c.flags));
            if let Some(cc) = &c.cconv {
                s.push(' ');
                s.push_str(cc);
            }
            for a in &c.ret_attrs {
                s.push(' ');
                s.push_str(&print_attr(a));
            }
            s.push(' ');
            s.push_str(&print_type(&c.ty));
            s.push(' ');
            s.push_str(&print_operand(f, &c.callee));
            let args: Vec<String> = c
                .args
                .iter()
                .map(|a| {
                    let mut t = print_type(&a.ty);
                    for at in &a.attrs {
                        t.push(' ');
                        t.push_str(&print_attr(at));
                    }
                    t.push(' ');
                    t.push_str(&print_operand(f, &a.value));
                    t
                })
                .collect();
            s.push_str(&format!("({})", args.join(", ")));
            for a in &c.fn_attrs {
                s.push(' ');
                s.push_str(&print_attr(a));
            }
            if !c.bundles.is_empty() {
                let bs: Vec<String> = c
                    .bundles
                    .iter()
                    .map(|b| {
                        let ins: Vec<String> = b.inputs.iter().map(|t| typed(f, t)).collect();
                        format!("\"{}\"({})", b.tag, ins.join(", "))
                    })
                    .collect();
                s.push_str(&format!(" [ {} ]", bs.join(", ")));
            }
            s
        }
        InstKind::Alloca { ty, count, .. } => match count {
            Some(n) => format!("alloca {}, {}", print_type(ty), typed(f, n)),
            None => format!("alloca {}", print_type(ty)),
        },
        InstKind::Load { ty, ptr, align, .. } => {
            let mut s = format!("load {}, {}", print_type(ty), typed(f, ptr));
            if let Some(a) = align {
                s.push_str(&format!(", align {a}"));
            }
            s
        }
        InstKind::Store {
            value, ptr, align, ..
        } => {
            let mut s = format!("store {}, {}", typed(f, value), typed(f, ptr));
            if let Some(a) = align {
                s.push_str(&format!(", align {a}"));
            }
            s
        }
        InstKind::AtomicRmw { ptr, value, .. } => {
            format!("atomicrmw {}, {}", typed(f, ptr), typed(f, value))
        }
        InstKind::CmpXchg { ptr, cmp, new, .. } => format!(
            "cmpxchg {}, {}, {}",
            typed(f, ptr),
            typed(f, cmp),
            typed(f, new)
        ),
        InstKind::Gep {
            flags,
            source_ty,
            base,
            indices,
        } => {
            let mut s = format!(
                "{} {}, {}",
                words("getelementptr", flags),
                print_type(source_ty),
                typed(f, base)
            );
            for i in indices {
                s.push_str(", ");
                s.push_str(&typed(f, i));
            }
            s
        }
        InstKind::ExtractValue { agg, indices } => {
            let is: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
            format!("extractvalue {}, {}", typed(f, agg), is.join(", "))
        }
        InstKind::InsertValue {
            agg,
            value,
            indices,
        } => {
            let is: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
            format!(
                "insertvalue {}, {}, {}",
                typed(f, agg),
                typed(f, value),
                is.join(", ")
            )
        }
        InstKind::ExtractElement { vector, index } => {
            format!("extractelement {}, {}", typed(f, vector), typed(f, index))
        }
        InstKind::InsertElement {
            vector,
            value,
            index,
        } => format!(
            "insertelement {}, {}, {}",
            typed(f, vector),
            typed(f, value),
            typed(f, index)
        ),
        InstKind::ShuffleVector { a, b, mask } => format!(
            "shufflevector {}, {}, {}",
            typed(f, a),
            typed(f, b),
            typed(f, mask)
        ),
    }
}

/// An instruction as `Value::print` prints it: two spaces, `%x = `, body.
pub fn print_inst(m: &Module, f: &Function, inst: &Inst) -> String {
    let body = print_kind(m, f, &inst.kind);
    match inst.result {
        Some(v) => format!("  {} = {body}", print_value(f, v)),
        None => format!("  {body}"),
    }
}

fn print_term(f: &Function, b: &Block) -> String {
    let lbl = |x: &BlockId| format!("label {}", print_local_name(&f.blocks[x.0].name));
    match &b.term.kind {
        TermKind::Br(t) => format!("  br {}", lbl(t)),
        TermKind::CondBr {
            cond,
            on_true,
            on_false,
        } => format!(
            "  br i1 {}, {}, {}",
            print_operand(f, cond),
            lbl(on_true),
            lbl(on_false)
        ),
        TermKind::Switch {
            ty,
            cond,
            default,
            cases,
        } => {
            let mut s = format!(
                "  switch {} {}, {} [",
                print_type(ty),
                print_operand(f, cond),
                lbl(default)
            );
            for (c, t) in cases {
                s.push_str(&format!(
                    "\n    {} {}, {}",
                    print_type(ty),
                    print_const(c),
                    lbl(t)
                ));
            }
            s.push_str("\n  ]");
            s
        }
        TermKind::Ret(None) => "  ret void".into(),
        TermKind::Ret(Some(t)) => format!("  ret {}", typed(f, t)),
        TermKind::Unreachable => "  unreachable".into(),
    }
}

/// Instruction `i` of block `b`; `i == insts.len()` is the terminator.
pub fn print_inst_at(m: &Module, f: &Function, b: BlockId, i: usize) -> String {
    let block = f.block(b);
    match block.insts.get(i) {
        Some(inst) => print_inst(m, f, inst),
        None => print_term(f, block),
    }
}
