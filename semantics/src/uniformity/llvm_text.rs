//! Instructions written the way LLVM's `Value::print` writes them, which is
//! what `print<uniformity>` shows (rule U-LLVM): canonical spacing,
//! `i1` constants as `true`/`false`, and the `align` LLVM adds to memory
//! operations from the AMDGPU data layout when the source omitted it.
//!
//! Only the instruction-level form is here (no module printer): the
//! module printer of `crate::ir::print` round-trips the source, which is a
//! different goal from matching LLVM's normalisation.

use std::fmt::Write;

use crate::ir::Attr;
use crate::ir::{
    Atomic, BinOp, Block, Call, CastOp, Const, Function, ICmpPred, Inst, InstKind, Name, Operand,
    RmwOp, TermKind, Terminator, Type, TypedConst, TypedOperand,
};

/// Whether a name can be written without quotes after `%` / `@`.
fn is_plain_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_'))
}

fn quote_name(s: &str) -> String {
    if is_plain_name(s) {
        s.to_string()
    } else {
        let mut out = String::from("\"");
        for b in s.bytes() {
            if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
                let _ = write!(out, "\\{b:02X}");
            } else {
                out.push(b as char);
            }
        }
        out.push('"');
        out
    }
}

/// `%name` / `%7`.
pub fn local_name(n: &Name) -> String {
    match n {
        Name::Named(s) => format!("%{}", quote_name(s)),
        Name::Numbered(k) => format!("%{k}"),
    }
}

/// Block label as an operand: `%entry`.
fn label(f: &Function, b: crate::ir::BlockId) -> String {
    local_name(&f.block(b).name)
}

pub fn ty(t: &Type) -> String {
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
            if *scalable {
                format!("<vscale x {len} x {}>", ty(elem))
            } else {
                format!("<{len} x {}>", ty(elem))
            }
        }
        Type::Array { len, elem } => format!("[{len} x {}]", ty(elem)),
        Type::Struct { fields, packed } => {
            let inner: Vec<String> = fields.iter().map(ty).collect();
            let body = if inner.is_empty() {
                "{}".to_string()
            } else {
                format!("{{ {} }}", inner.join(", "))
            };
            if *packed {
                format!("<{body}>")
            } else {
                body
            }
        }
        Type::Named(n) => format!("%{}", quote_name(n)),
        // LLVM 22 reads typed pointers as opaque ones.
        Type::TypedPtr { addrspace: 0, .. } => "ptr".into(),
        Type::TypedPtr { addrspace, .. } => format!("ptr addrspace({addrspace})"),
        Type::Func {
            ret,
            params,
            varargs,
        } => {
            let mut ps: Vec<String> = params.iter().map(ty).collect();
            if *varargs {
                ps.push("...".into());
            }
            format!("{} ({})", ty(ret), ps.join(", "))
        }
        Type::Label => "label".into(),
        Type::Token => "token".into(),
        Type::Metadata => "metadata".into(),
    }
}

/// A float literal as LLVM prints it: `%e` with six digits when that
/// round-trips, otherwise the 64-bit hex form.
fn float_lit(text: &str, t: &Type) -> String {
    if text.starts_with("0x") || text.starts_with("0X") {
        return text.to_string();
    }
    let Ok(v) = text.parse::<f64>() else {
        return text.to_string();
    };
    let exact_in_type = match t {
        Type::Float => (v as f32) as f64 == v,
        _ => true,
    };
    let e = format!("{v:.6e}");
    // Rust writes `1.000000e0`; LLVM writes `1.000000e+00`.
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let llvm = format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    if exact_in_type && llvm.parse::<f64>().ok() == Some(v) {
        llvm
    } else {
        format!("0x{:016X}", v.to_bits())
    }
}

/// A constant of type `t`.
pub fn constant(c: &Const, t: &Type) -> String {
    match c {
        Const::Int { value, .. } => {
            if t.int_bits() == Some(1) {
                if *value != 0 { "true" } else { "false" }.into()
            } else {
                value.to_string()
            }
        }
        Const::Float(s) => float_lit(s, t),
        Const::Null => "null".into(),
        Const::None => "none".into(),
        Const::Undef => "undef".into(),
        Const::Poison => "poison".into(),
        Const::ZeroInit => "zeroinitializer".into(),
        Const::Vector(xs) => format!("<{}>", typed_consts(xs)),
        Const::Array(xs) => format!("[{}]", typed_consts(xs)),
        Const::CString(bytes) => {
            let mut s = String::from("c\"");
            for &b in bytes {
                if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
                    let _ = write!(s, "\\{b:02X}");
                } else {
                    s.push(b as char);
                }
            }
            s.push('"');
            s
        }
        Const::Struct { fields, packed } => {
            let body = format!("{{ {} }}", typed_consts(fields));
            if *packed {
                format!("<{body}>")
            } else {
                body
            }
        }
        Const::Global(n) => format!("@{}", quote_name(n)),
        Const::Expr(e) => {
            let mut s = String::new();
            e.write_with(&mut s, &ty, &|x| {
                format!("{} {}", ty(&x.ty), constant(&x.value, &x.ty))
            });
            s
        }
    }
}

fn typed_consts(xs: &[TypedConst]) -> String {
    xs.iter()
        .map(|x| format!("{} {}", ty(&x.ty), constant(&x.value, &x.ty)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An operand of type `t` (without the type).
pub fn operand(f: &Function, o: &Operand, t: &Type) -> String {
    match o {
        Operand::Local(v) => local_name(&f.value(*v).name),
        Operand::Const(c) => constant(c, t),
        Operand::Metadata(m) => m.clone(),
    }
}

fn typed(f: &Function, o: &TypedOperand) -> String {
    format!("{} {}", ty(&o.ty), operand(f, &o.value, &o.ty))
}

/// ABI alignment in bytes under the AMDGPU data layout, used for the
/// `align` LLVM prints on memory operations written without one.
pub fn abi_align(t: &Type) -> u64 {
    match t {
        Type::Int(n) => match *n {
            0..=8 => 1,
            9..=16 => 2,
            17..=32 => 4,
            33..=64 => 8,
            _ => 16,
        },
        Type::Half | Type::BFloat => 2,
        Type::Float => 4,
        Type::Double => 8,
        Type::X86Fp80 | Type::Fp128 => 16,
        Type::Ptr(a) | Type::TypedPtr { addrspace: a, .. } => match a {
            2 | 3 | 5 | 6 => 4,
            7 | 9 => 32,
            8 => 16,
            _ => 8,
        },
        Type::Vector { len, elem, .. } => {
            let bytes = len * type_store_size(elem);
            bytes.max(1).next_power_of_two()
        }
        Type::Array { elem, .. } => abi_align(elem),
        Type::Struct { fields, packed } => {
            if *packed {
                1
            } else {
                fields.iter().map(abi_align).max().unwrap_or(1)
            }
        }
        _ => 1,
    }
}

fn type_store_size(t: &Type) -> u64 {
    match t {
        Type::Int(n) => (*n as u64).div_ceil(8),
        Type::Half | Type::BFloat => 2,
        Type::Float => 4,
        Type::Double => 8,
        Type::Ptr(2 | 3 | 5 | 6) => 4,
        _ => 8,
    }
}

fn flags_str(flags: &[String]) -> String {
    flags.iter().map(|f| format!("{f} ")).collect()
}

fn binop(op: BinOp) -> &'static str {
    op.mnemonic()
}

fn castop(op: CastOp) -> &'static str {
    op.mnemonic()
}

fn icmp(p: ICmpPred) -> &'static str {
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

fn rmw(op: RmwOp) -> &'static str {
    match op {
        RmwOp::Xchg => "xchg",
        RmwOp::Add => "add",
        RmwOp::Sub => "sub",
        RmwOp::And => "and",
        RmwOp::Nand => "nand",
        RmwOp::Or => "or",
        RmwOp::Xor => "xor",
        RmwOp::Max => "max",
        RmwOp::Min => "min",
        RmwOp::UMax => "umax",
        RmwOp::UMin => "umin",
        RmwOp::FAdd => "fadd",
        RmwOp::FSub => "fsub",
        RmwOp::FMax => "fmax",
        RmwOp::FMin => "fmin",
        RmwOp::UIncWrap => "uinc_wrap",
        RmwOp::UDecWrap => "udec_wrap",
        RmwOp::USubCond => "usub_cond",
        RmwOp::USubSat => "usub_sat",
    }
}

fn scope_order(a: &Atomic) -> String {
    let mut s = String::new();
    if let Some(sc) = &a.syncscope {
        let _ = write!(s, " syncscope(\"{sc}\")");
    }
    let _ = write!(s, " {}", a.ordering);
    if let Some(fl) = &a.failure {
        let _ = write!(s, " {fl}");
    }
    s
}

fn attr(a: &Attr) -> String {
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

fn call_text(f: &Function, c: &Call) -> String {
    let mut s = String::new();
    if let Some(t) = &c.tail {
        let _ = write!(s, "{t} ");
    }
    s.push_str("call ");
    s.push_str(&flags_str(&c.flags));
    if let Some(cc) = &c.cconv {
        let _ = write!(s, "{cc} ");
    }
    for a in &c.ret_attrs {
        let _ = write!(s, "{} ", attr(a));
    }
    s.push_str(&ty(&c.ty));
    let callee_ty = match &c.ty {
        Type::Func { .. } => Type::Ptr(0),
        _ => Type::Ptr(0),
    };
    let _ = write!(s, " {}(", operand(f, &c.callee, &callee_ty));
    let args: Vec<String> = c
        .args
        .iter()
        .map(|a| {
            let mut x = ty(&a.ty);
            for at in &a.attrs {
                let _ = write!(x, " {}", attr(at));
            }
            let _ = write!(x, " {}", operand(f, &a.value, &a.ty));
            x
        })
        .collect();
    s.push_str(&args.join(", "));
    s.push(')');
    for a in &c.fn_attrs {
        let _ = write!(s, " {}", attr(a));
    }
    if !c.bundles.is_empty() {
        let bs: Vec<String> = c
            .bundles
            .iter()
            .map(|b| {
                let ins: Vec<String> = b.inputs.iter().map(|i| typed(f, i)).collect();
                format!("\"{}\"({})", b.tag, ins.join(", "))
            })
            .collect();
        let _ = write!(s, " [ {} ]", bs.join(", "));
    }
    s
}

fn align_suffix(explicit: Option<u64>, t: &Type) -> String {
    format!(", align {}", explicit.unwrap_or_else(|| abi_align(t)))
}

/// One non-terminator instruction, without indentation.
pub fn inst(f: &Function, i: &Inst) -> String {
    let body = match &i.kind {
        InstKind::Binary {
            op,
            flags,
            ty: t,
            lhs,
            rhs,
        } => format!(
            "{} {}{} {}, {}",
            binop(*op),
            flags_str(flags),
            ty(t),
            operand(f, lhs, t),
            operand(f, rhs, t)
        ),
        InstKind::FNeg {
            flags,
            ty: t,
            value,
        } => {
            format!(
                "fneg {}{} {}",
                flags_str(flags),
                ty(t),
                operand(f, value, t)
            )
        }
        InstKind::ICmp {
            samesign,
            pred,
            ty: t,
            lhs,
            rhs,
        } => format!(
            "icmp {}{} {} {}, {}",
            if *samesign { "samesign " } else { "" },
            icmp(*pred),
            ty(t),
            operand(f, lhs, t),
            operand(f, rhs, t)
        ),
        InstKind::FCmp {
            flags,
            pred,
            ty: t,
            lhs,
            rhs,
        } => format!(
            "fcmp {}{} {} {}, {}",
            flags_str(flags),
            pred.0,
            ty(t),
            operand(f, lhs, t),
            operand(f, rhs, t)
        ),
        InstKind::Cast {
            op,
            flags,
            from,
            to,
        } => format!(
            "{} {}{} to {}",
            castop(*op),
            flags_str(flags),
            typed(f, from),
            ty(to)
        ),
        InstKind::Select {
            flags,
            cond,
            on_true,
            on_false,
        } => format!(
            "select {}{}, {}, {}",
            flags_str(flags),
            typed(f, cond),
            typed(f, on_true),
            typed(f, on_false)
        ),
        InstKind::Freeze(x) => format!("freeze {}", typed(f, x)),
        InstKind::Phi {
            flags,
            ty: t,
            incoming,
        } => {
            let ins: Vec<String> = incoming
                .iter()
                .map(|(o, b)| format!("[ {}, {} ]", operand(f, o, t), label(f, *b)))
                .collect();
            format!("phi {}{} {}", flags_str(flags), ty(t), ins.join(", "))
        }
        InstKind::Call(c) => call_text(f, c),
        InstKind::Alloca {
            ty: t,
            count,
            align,
            addrspace,
        } => {
            let mut s = format!("alloca {}", ty(t));
            if let Some(c) = count {
                let _ = write!(s, ", {}", typed(f, c));
            }
            s.push_str(&align_suffix(*align, t));
            if let Some(a) = addrspace {
                let _ = write!(s, ", addrspace({a})");
            }
            s
        }
        InstKind::Load {
            volatile,
            ty: t,
            ptr,
            atomic,
            align,
        } => format!(
            "load {}{}{}, {}{}{}",
            if atomic.is_some() { "atomic " } else { "" },
            if *volatile { "volatile " } else { "" },
            ty(t),
            typed(f, ptr),
            atomic.as_ref().map(scope_order).unwrap_or_default(),
            align_suffix(*align, t)
        ),
        InstKind::Store {
            volatile,
            value,
            ptr,
            atomic,
            align,
        } => format!(
            "store {}{}{}, {}{}{}",
            if atomic.is_some() { "atomic " } else { "" },
            if *volatile { "volatile " } else { "" },
            typed(f, value),
            typed(f, ptr),
            atomic.as_ref().map(scope_order).unwrap_or_default(),
            align_suffix(*align, &value.ty)
        ),
        InstKind::AtomicRmw {
            volatile,
            op,
            ptr,
            value,
            atomic,
            align,
        } => format!(
            "atomicrmw {}{} {}, {}{}{}",
            if *volatile { "volatile " } else { "" },
            rmw(*op),
            typed(f, ptr),
            typed(f, value),
            scope_order(atomic),
            align_suffix(*align, &value.ty)
        ),
        InstKind::CmpXchg {
            weak,
            volatile,
            ptr,
            cmp,
            new,
            atomic,
            align,
        } => format!(
            "cmpxchg {}{}{}, {}, {}{}{}",
            if *weak { "weak " } else { "" },
            if *volatile { "volatile " } else { "" },
            typed(f, ptr),
            typed(f, cmp),
            typed(f, new),
            scope_order(atomic),
            align_suffix(*align, &cmp.ty)
        ),
        InstKind::Gep {
            flags,
            source_ty,
            base,
            indices,
        } => {
            let mut s = format!(
                "getelementptr {}{}, {}",
                flags_str(flags),
                ty(source_ty),
                typed(f, base)
            );
            for i in indices {
                let _ = write!(s, ", {}", typed(f, i));
            }
            s
        }
        InstKind::ExtractValue { agg, indices } => {
            let idx: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
            format!("extractvalue {}, {}", typed(f, agg), idx.join(", "))
        }
        InstKind::InsertValue {
            agg,
            value,
            indices,
        } => {
            let idx: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
            format!(
                "insertvalue {}, {}, {}",
                typed(f, agg),
                typed(f, value),
                idx.join(", ")
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
    };
    match i.result {
        Some(v) => format!("{} = {body}", local_name(&f.value(v).name)),
        None => body,
    }
}

/// A terminator, without indentation; `switch` spans several lines as in
/// LLVM (cases indented by four spaces, `]` by two).
pub fn terminator(f: &Function, t: &Terminator) -> String {
    match &t.kind {
        TermKind::Br(b) => format!("br label {}", label(f, *b)),
        TermKind::CondBr {
            cond,
            on_true,
            on_false,
        } => format!(
            "br i1 {}, label {}, label {}",
            operand(f, cond, &Type::Int(1)),
            label(f, *on_true),
            label(f, *on_false)
        ),
        TermKind::Switch {
            ty: st,
            cond,
            default,
            cases,
        } => {
            let mut s = format!(
                "switch {} {}, label {} [\n",
                ty(st),
                operand(f, cond, st),
                label(f, *default)
            );
            for (c, b) in cases {
                let _ = writeln!(
                    s,
                    "    {} {}, label {}",
                    ty(st),
                    constant(c, st),
                    label(f, *b)
                );
            }
            s.push_str("  ]");
            s
        }
        TermKind::Ret(None) => "ret void".into(),
        TermKind::Ret(Some(v)) => format!("ret {}", typed(f, v)),
        TermKind::Unreachable => "unreachable".into(),
    }
}

/// An argument as `Argument::print` writes it: `i32 %a`.
pub fn argument(f: &Function, idx: usize) -> String {
    let p = &f.params[idx];
    match p.value {
        Some(v) => format!("{} {}", ty(&p.ty), local_name(&f.value(v).name)),
        None => ty(&p.ty),
    }
}

/// Block name as the analysis prints it (`entry`, `7`).
pub fn block_name(b: &Block) -> String {
    match &b.name {
        Name::Named(s) => quote_name(s),
        Name::Numbered(k) => k.to_string(),
    }
}
