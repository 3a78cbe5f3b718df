//! Printer: writes a [`Module`](super::Module) back as LLVM IR text that
//! [`crate::parse::parse_module`] reads back to the same module (rule
//! P-PROG round trip: parse -> print -> parse is the identity, and printing
//! is a fixpoint). The layout follows LLVM's `AsmWriter` where the IR keeps
//! enough to do so; top-level entities are written in a fixed order
//! (header, types, globals, functions, attribute groups).

use std::fmt::Write;

use super::{
    Atomic, Attr, BinOp, Block, CallArg, CastOp, Const, Function, Global, ICmpPred, Inst, InstKind,
    Module, Name, Operand, RmwOp, TermKind, Type, TypedConst, TypedOperand,
};

/// Whether a name can be written without quotes after `%`/`@` or before
/// `:` (LLVM's `[-a-zA-Z$._][-a-zA-Z$._0-9]*`).
fn is_plain(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && !b[0].is_ascii_digit()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_'))
}

/// `"..."` with LLVM's escapes: `\XX` for `"`, `\` and non-printable bytes.
pub fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    for &c in b {
        if (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\' {
            out.push(c as char);
        } else {
            let _ = write!(out, "\\{c:02X}");
        }
    }
    out.push('"');
    out
}

pub fn quote_str(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// A local or label name without its sigil, quoted if needed.
pub fn quote_name(n: &Name) -> String {
    match n {
        Name::Numbered(k) => k.to_string(),
        Name::Named(s) if is_plain(s) => s.clone(),
        Name::Named(s) => quote_str(s),
    }
}

/// A global name without `@`: numbered globals keep their digits.
pub fn quote_global(g: &str) -> String {
    if !g.is_empty() && g.bytes().all(|c| c.is_ascii_digit()) || is_plain(g) {
        g.to_string()
    } else {
        quote_str(g)
    }
}

pub fn type_str(t: &Type) -> String {
    let mut s = String::new();
    write_type(&mut s, t);
    s
}

fn write_type(o: &mut String, t: &Type) {
    match t {
        Type::Void => o.push_str("void"),
        Type::Int(n) => {
            let _ = write!(o, "i{n}");
        }
        Type::Half => o.push_str("half"),
        Type::BFloat => o.push_str("bfloat"),
        Type::Float => o.push_str("float"),
        Type::Double => o.push_str("double"),
        Type::X86Fp80 => o.push_str("x86_fp80"),
        Type::Fp128 => o.push_str("fp128"),
        Type::Ptr(0) => o.push_str("ptr"),
        Type::Ptr(n) => {
            let _ = write!(o, "ptr addrspace({n})");
        }
        Type::Vector {
            len,
            scalable,
            elem,
        } => {
            o.push('<');
            if *scalable {
                o.push_str("vscale x ");
            }
            let _ = write!(o, "{len} x ");
            write_type(o, elem);
            o.push('>');
        }
        Type::Array { len, elem } => {
            let _ = write!(o, "[{len} x ");
            write_type(o, elem);
            o.push(']');
        }
        Type::Struct { fields, packed } => {
            if *packed {
                o.push('<');
            }
            if fields.is_empty() {
                o.push_str("{}");
            } else {
                o.push_str("{ ");
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        o.push_str(", ");
                    }
                    write_type(o, f);
                }
                o.push_str(" }");
            }
            if *packed {
                o.push('>');
            }
        }
        Type::Named(n) => {
            o.push('%');
            o.push_str(&quote_global(n));
        }
        Type::TypedPtr { pointee, addrspace } => {
            write_type(o, pointee);
            if *addrspace != 0 {
                let _ = write!(o, " addrspace({addrspace})");
            }
            o.push('*');
        }
        Type::Func {
            ret,
            params,
            varargs,
        } => {
            write_type(o, ret);
            o.push_str(" (");
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    o.push_str(", ");
                }
                write_type(o, p);
            }
            if *varargs {
                o.push_str(if params.is_empty() { "..." } else { ", ..." });
            }
            o.push(')');
        }
        Type::Label => o.push_str("label"),
        Type::Token => o.push_str("token"),
        Type::Metadata => o.push_str("metadata"),
    }
}

pub fn const_str(c: &Const) -> String {
    let mut s = String::new();
    write_const(&mut s, c);
    s
}

fn write_typed_consts(o: &mut String, items: &[TypedConst]) {
    for (i, tc) in items.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        write_type(o, &tc.ty);
        o.push(' ');
        write_const(o, &tc.value);
    }
}

fn write_const(o: &mut String, c: &Const) {
    match c {
        Const::Int {
            value,
            bool_syntax: true,
        } => o.push_str(if *value != 0 { "true" } else { "false" }),
        Const::Int { value, .. } => {
            let _ = write!(o, "{value}");
        }
        Const::Float(s) => o.push_str(s),
        Const::Null => o.push_str("null"),
        Const::None => o.push_str("none"),
        Const::Undef => o.push_str("undef"),
        Const::Poison => o.push_str("poison"),
        Const::ZeroInit => o.push_str("zeroinitializer"),
        Const::Vector(items) => {
            o.push('<');
            write_typed_consts(o, items);
            o.push('>');
        }
        Const::Array(items) => {
            o.push('[');
            write_typed_consts(o, items);
            o.push(']');
        }
        Const::CString(b) => {
            o.push('c');
            o.push_str(&quote_bytes(b));
        }
        Const::Struct { fields, packed } => {
            if *packed {
                o.push('<');
            }
            if fields.is_empty() {
                o.push_str("{}");
            } else {
                o.push_str("{ ");
                write_typed_consts(o, fields);
                o.push_str(" }");
            }
            if *packed {
                o.push('>');
            }
        }
        Const::Global(g) => {
            o.push('@');
            o.push_str(&quote_global(g));
        }
    }
}

/// One attribute; `in_group` selects the `name=N` spelling of integer
/// attributes used inside `attributes #N = { ... }`.
pub fn attr_str(a: &Attr, in_group: bool) -> String {
    match a {
        Attr::Word(w) => w.clone(),
        Attr::Str { key, value: None } => quote_str(key),
        Attr::Str {
            key,
            value: Some(v),
        } => format!("{}={}", quote_str(key), quote_str(v)),
        Attr::Int { name, value } if in_group => format!("{name}={value}"),
        Attr::Int { name, value } => format!("{name} {value}"),
        Attr::Paren { name, args } => format!("{name}({args})"),
        Attr::Group(n) => format!("#{n}"),
    }
}

fn write_attrs(o: &mut String, attrs: &[Attr], lead_space: bool) {
    for (i, a) in attrs.iter().enumerate() {
        if i > 0 || lead_space {
            o.push(' ');
        }
        o.push_str(&attr_str(a, false));
    }
}

/// Writes `m` as LLVM IR text.
pub fn print_module(m: &Module) -> String {
    let mut o = String::new();
    if let Some(s) = &m.source_filename {
        let _ = writeln!(o, "source_filename = {}", quote_str(s));
    }
    if let Some(s) = &m.datalayout {
        let _ = writeln!(o, "target datalayout = {}", quote_str(s));
    }
    if let Some(s) = &m.triple {
        let _ = writeln!(o, "target triple = {}", quote_str(s));
    }
    if !m.types.is_empty() {
        o.push('\n');
        for t in &m.types {
            let _ = write!(o, "%{} = type ", quote_global(&t.name));
            match &t.ty {
                Some(ty) => write_type(&mut o, ty),
                None => o.push_str("opaque"),
            }
            o.push('\n');
        }
    }
    if !m.globals.is_empty() {
        o.push('\n');
        for g in &m.globals {
            write_global(&mut o, g);
        }
    }
    for f in &m.functions {
        o.push('\n');
        o.push_str(&print_function(f));
    }
    if !m.attr_groups.is_empty() {
        o.push('\n');
        for g in &m.attr_groups {
            let _ = write!(o, "attributes #{} = {{", g.id);
            for a in &g.attrs {
                o.push(' ');
                o.push_str(&attr_str(a, true));
            }
            o.push_str(" }\n");
        }
    }
    o
}

fn write_global(o: &mut String, g: &Global) {
    let _ = write!(o, "@{} = ", quote_global(&g.name));
    for k in &g.keywords {
        o.push_str(k);
        o.push(' ');
    }
    o.push_str(if g.is_constant {
        "constant "
    } else {
        "global "
    });
    write_type(o, &g.ty);
    if let Some(c) = &g.init {
        o.push(' ');
        write_const(o, c);
    }
    for t in &g.trailer {
        o.push_str(", ");
        o.push_str(t);
    }
    o.push('\n');
}

/// Writes one function (definition with body, or declaration).
pub fn print_function(f: &Function) -> String {
    let mut o = String::new();
    o.push_str(if f.is_definition {
        "define "
    } else {
        "declare "
    });
    for l in &f.linkage {
        o.push_str(l);
        o.push(' ');
    }
    if let Some(cc) = &f.cconv {
        o.push_str(cc);
        o.push(' ');
    }
    for a in &f.ret_attrs {
        o.push_str(&attr_str(a, false));
        o.push(' ');
    }
    write_type(&mut o, &f.ret_ty);
    let _ = write!(o, " @{}(", quote_global(&f.name));
    for (i, p) in f.params.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        write_type(&mut o, &p.ty);
        write_attrs(&mut o, &p.attrs, true);
        let name = match p.value {
            Some(v) => f.values.get(v.0).map(|vi| &vi.name),
            None => p.decl_name.as_ref(),
        };
        if let Some(n) = name {
            let _ = write!(o, " %{}", quote_name(n));
        }
    }
    if f.varargs {
        o.push_str(if f.params.is_empty() { "..." } else { ", ..." });
    }
    o.push(')');
    if let Some(u) = &f.unnamed_addr {
        o.push(' ');
        o.push_str(u);
    }
    let (pre, post): (Vec<&String>, Vec<&String>) =
        f.trailer.iter().partition(|t| t.starts_with("addrspace("));
    for t in pre {
        o.push(' ');
        o.push_str(t);
    }
    write_attrs(&mut o, &f.fn_attrs, true);
    for t in post {
        o.push(' ');
        o.push_str(t);
    }
    if !f.is_definition {
        o.push('\n');
        return o;
    }
    o.push_str(" {\n");
    for (i, b) in f.blocks.iter().enumerate() {
        if i > 0 {
            o.push('\n');
        }
        write_block(&mut o, f, b);
    }
    o.push_str("}\n");
    o
}

fn write_block(o: &mut String, f: &Function, b: &Block) {
    if b.explicit_label {
        let _ = writeln!(o, "{}:", quote_name(&b.name));
    }
    for inst in &b.insts {
        o.push_str("  ");
        write_inst(o, f, inst);
        o.push('\n');
    }
    o.push_str("  ");
    match &b.term.kind {
        TermKind::Ret(None) => o.push_str("ret void"),
        TermKind::Ret(Some(v)) => {
            o.push_str("ret ");
            write_typed(o, f, v);
        }
        TermKind::Br(t) => {
            let _ = write!(o, "br label {}", block_ref(f, *t));
        }
        TermKind::CondBr {
            cond,
            on_true,
            on_false,
        } => {
            o.push_str("br i1 ");
            write_operand(o, f, cond);
            let _ = write!(
                o,
                ", label {}, label {}",
                block_ref(f, *on_true),
                block_ref(f, *on_false)
            );
        }
        TermKind::Switch {
            ty,
            cond,
            default,
            cases,
        } => {
            o.push_str("switch ");
            write_type(o, ty);
            o.push(' ');
            write_operand(o, f, cond);
            let _ = write!(o, ", label {} [", block_ref(f, *default));
            for (c, t) in cases {
                o.push_str("\n    ");
                write_type(o, ty);
                o.push(' ');
                write_const(o, c);
                let _ = write!(o, ", label {}", block_ref(f, *t));
            }
            o.push_str(if cases.is_empty() { "]" } else { "\n  ]" });
        }
        TermKind::Unreachable => o.push_str("unreachable"),
    }
    o.push('\n');
}

fn block_ref(f: &Function, b: super::BlockId) -> String {
    match f.blocks.get(b.0) {
        Some(bl) => format!("%{}", quote_name(&bl.name)),
        None => format!("%<invalid block {}>", b.0),
    }
}

fn write_operand(o: &mut String, f: &Function, op: &Operand) {
    match op {
        Operand::Local(v) => match f.values.get(v.0) {
            Some(vi) => {
                o.push('%');
                o.push_str(&quote_name(&vi.name));
            }
            None => {
                let _ = write!(o, "%<invalid value {}>", v.0);
            }
        },
        Operand::Const(c) => write_const(o, c),
        Operand::Metadata(m) => o.push_str(m),
    }
}

fn write_typed(o: &mut String, f: &Function, t: &TypedOperand) {
    write_type(o, &t.ty);
    o.push(' ');
    write_operand(o, f, &t.value);
}

fn write_flags(o: &mut String, flags: &[String]) {
    for fl in flags {
        o.push(' ');
        o.push_str(fl);
    }
}

fn write_atomic(o: &mut String, a: &Atomic) {
    if let Some(s) = &a.syncscope {
        let _ = write!(o, " syncscope({})", quote_str(s));
    }
    o.push(' ');
    o.push_str(&a.ordering);
    if let Some(fl) = &a.failure {
        o.push(' ');
        o.push_str(fl);
    }
}

fn write_align(o: &mut String, a: Option<u64>) {
    if let Some(n) = a {
        let _ = write!(o, ", align {n}");
    }
}

pub fn binop_str(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::UDiv => "udiv",
        BinOp::SDiv => "sdiv",
        BinOp::URem => "urem",
        BinOp::SRem => "srem",
        BinOp::Shl => "shl",
        BinOp::LShr => "lshr",
        BinOp::AShr => "ashr",
        BinOp::And => "and",
        BinOp::Or => "or",
        BinOp::Xor => "xor",
        BinOp::FAdd => "fadd",
        BinOp::FSub => "fsub",
        BinOp::FMul => "fmul",
        BinOp::FDiv => "fdiv",
        BinOp::FRem => "frem",
    }
}

pub fn castop_str(op: CastOp) -> &'static str {
    match op {
        CastOp::Trunc => "trunc",
        CastOp::ZExt => "zext",
        CastOp::SExt => "sext",
        CastOp::FPTrunc => "fptrunc",
        CastOp::FPExt => "fpext",
        CastOp::FPToUI => "fptoui",
        CastOp::FPToSI => "fptosi",
        CastOp::UIToFP => "uitofp",
        CastOp::SIToFP => "sitofp",
        CastOp::PtrToInt => "ptrtoint",
        CastOp::IntToPtr => "inttoptr",
        CastOp::BitCast => "bitcast",
        CastOp::AddrSpaceCast => "addrspacecast",
    }
}

pub fn icmp_str(p: ICmpPred) -> &'static str {
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

pub fn rmw_str(op: RmwOp) -> &'static str {
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

fn write_call_arg(o: &mut String, f: &Function, a: &CallArg) {
    write_type(o, &a.ty);
    write_attrs(o, &a.attrs, true);
    o.push(' ');
    write_operand(o, f, &a.value);
}

/// One instruction, as it appears in a block (without indentation).
pub fn inst_str(f: &Function, inst: &Inst) -> String {
    let mut o = String::new();
    write_inst(&mut o, f, inst);
    o
}

fn write_inst(o: &mut String, f: &Function, inst: &Inst) {
    if let Some(v) = inst.result {
        if let Some(vi) = f.values.get(v.0) {
            let _ = write!(o, "%{} = ", quote_name(&vi.name));
        }
    }
    match &inst.kind {
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } => {
            o.push_str(binop_str(*op));
            write_flags(o, flags);
            o.push(' ');
            write_type(o, ty);
            o.push(' ');
            write_operand(o, f, lhs);
            o.push_str(", ");
            write_operand(o, f, rhs);
        }
        InstKind::FNeg { flags, ty, value } => {
            o.push_str("fneg");
            write_flags(o, flags);
            o.push(' ');
            write_type(o, ty);
            o.push(' ');
            write_operand(o, f, value);
        }
        InstKind::ICmp {
            samesign,
            pred,
            ty,
            lhs,
            rhs,
        } => {
            o.push_str(if *samesign { "icmp samesign " } else { "icmp " });
            o.push_str(icmp_str(*pred));
            o.push(' ');
            write_type(o, ty);
            o.push(' ');
            write_operand(o, f, lhs);
            o.push_str(", ");
            write_operand(o, f, rhs);
        }
        InstKind::FCmp {
            flags,
            pred,
            ty,
            lhs,
            rhs,
        } => {
            o.push_str("fcmp");
            write_flags(o, flags);
            let _ = write!(o, " {} ", pred.0);
            write_type(o, ty);
            o.push(' ');
            write_operand(o, f, lhs);
            o.push_str(", ");
            write_operand(o, f, rhs);
        }
        InstKind::Cast {
            op,
            flags,
            from,
            to,
        } => {
            o.push_str(castop_str(*op));
            write_flags(o, flags);
            o.push(' ');
            write_typed(o, f, from);
            o.push_str(" to ");
            write_type(o, to);
        }
        InstKind::Select {
            flags,
            cond,
            on_true,
            on_false,
        } => {
            o.push_str("select");
            write_flags(o, flags);
            o.push(' ');
            write_typed(o, f, cond);
            o.push_str(", ");
            write_typed(o, f, on_true);
            o.push_str(", ");
            write_typed(o, f, on_false);
        }
        InstKind::Freeze(v) => {
            o.push_str("freeze ");
            write_typed(o, f, v);
        }
        InstKind::Phi {
            flags,
            ty,
            incoming,
        } => {
            o.push_str("phi");
            write_flags(o, flags);
            o.push(' ');
            write_type(o, ty);
            for (i, (v, b)) in incoming.iter().enumerate() {
                o.push_str(if i > 0 { ", [ " } else { " [ " });
                write_operand(o, f, v);
                let _ = write!(o, ", {} ]", block_ref(f, *b));
            }
        }
        InstKind::Call(c) => {
            if let Some(t) = &c.tail {
                o.push_str(t);
                o.push(' ');
            }
            o.push_str("call");
            write_flags(o, &c.flags);
            if let Some(cc) = &c.cconv {
                o.push(' ');
                o.push_str(cc);
            }
            write_attrs(o, &c.ret_attrs, true);
            o.push(' ');
            write_type(o, &c.ty);
            o.push(' ');
            write_operand(o, f, &c.callee);
            o.push('(');
            for (i, a) in c.args.iter().enumerate() {
                if i > 0 {
                    o.push_str(", ");
                }
                write_call_arg(o, f, a);
            }
            o.push(')');
            write_attrs(o, &c.fn_attrs, true);
            if !c.bundles.is_empty() {
                o.push_str(" [ ");
                for (i, b) in c.bundles.iter().enumerate() {
                    if i > 0 {
                        o.push_str(", ");
                    }
                    o.push_str(&quote_str(&b.tag));
                    o.push('(');
                    for (j, inp) in b.inputs.iter().enumerate() {
                        if j > 0 {
                            o.push_str(", ");
                        }
                        write_typed(o, f, inp);
                    }
                    o.push(')');
                }
                o.push_str(" ]");
            }
        }
        InstKind::Alloca {
            ty,
            count,
            align,
            addrspace,
        } => {
            o.push_str("alloca ");
            write_type(o, ty);
            if let Some(c) = count {
                o.push_str(", ");
                write_typed(o, f, c);
            }
            write_align(o, *align);
            if let Some(a) = addrspace {
                let _ = write!(o, ", addrspace({a})");
            }
        }
        InstKind::Load {
            volatile,
            ty,
            ptr,
            atomic,
            align,
        } => {
            o.push_str("load ");
            if atomic.is_some() {
                o.push_str("atomic ");
            }
            if *volatile {
                o.push_str("volatile ");
            }
            write_type(o, ty);
            o.push_str(", ");
            write_typed(o, f, ptr);
            if let Some(a) = atomic {
                write_atomic(o, a);
            }
            write_align(o, *align);
        }
        InstKind::Store {
            volatile,
            value,
            ptr,
            atomic,
            align,
        } => {
            o.push_str("store ");
            if atomic.is_some() {
                o.push_str("atomic ");
            }
            if *volatile {
                o.push_str("volatile ");
            }
            write_typed(o, f, value);
            o.push_str(", ");
            write_typed(o, f, ptr);
            if let Some(a) = atomic {
                write_atomic(o, a);
            }
            write_align(o, *align);
        }
        InstKind::AtomicRmw {
            volatile,
            op,
            ptr,
            value,
            atomic,
            align,
        } => {
            o.push_str("atomicrmw ");
            if *volatile {
                o.push_str("volatile ");
            }
            o.push_str(rmw_str(*op));
            o.push(' ');
            write_typed(o, f, ptr);
            o.push_str(", ");
            write_typed(o, f, value);
            write_atomic(o, atomic);
            write_align(o, *align);
        }
        InstKind::CmpXchg {
            weak,
            volatile,
            ptr,
            cmp,
            new,
            atomic,
            align,
        } => {
            o.push_str("cmpxchg ");
            if *weak {
                o.push_str("weak ");
            }
            if *volatile {
                o.push_str("volatile ");
            }
            write_typed(o, f, ptr);
            o.push_str(", ");
            write_typed(o, f, cmp);
            o.push_str(", ");
            write_typed(o, f, new);
            write_atomic(o, atomic);
            write_align(o, *align);
        }
        InstKind::Gep {
            flags,
            source_ty,
            base,
            indices,
        } => {
            o.push_str("getelementptr");
            write_flags(o, flags);
            o.push(' ');
            write_type(o, source_ty);
            o.push_str(", ");
            write_typed(o, f, base);
            for i in indices {
                o.push_str(", ");
                write_typed(o, f, i);
            }
        }
        InstKind::ExtractValue { agg, indices } => {
            o.push_str("extractvalue ");
            write_typed(o, f, agg);
            for i in indices {
                let _ = write!(o, ", {i}");
            }
        }
        InstKind::InsertValue {
            agg,
            value,
            indices,
        } => {
            o.push_str("insertvalue ");
            write_typed(o, f, agg);
            o.push_str(", ");
            write_typed(o, f, value);
            for i in indices {
                let _ = write!(o, ", {i}");
            }
        }
        InstKind::ExtractElement { vector, index } => {
            o.push_str("extractelement ");
            write_typed(o, f, vector);
            o.push_str(", ");
            write_typed(o, f, index);
        }
        InstKind::InsertElement {
            vector,
            value,
            index,
        } => {
            o.push_str("insertelement ");
            write_typed(o, f, vector);
            o.push_str(", ");
            write_typed(o, f, value);
            o.push_str(", ");
            write_typed(o, f, index);
        }
        InstKind::ShuffleVector { a, b, mask } => {
            o.push_str("shufflevector ");
            write_typed(o, f, a);
            o.push_str(", ");
            write_typed(o, f, b);
            o.push_str(", ");
            write_typed(o, f, mask);
        }
    }
}
