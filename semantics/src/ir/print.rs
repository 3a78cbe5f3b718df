//! Printer: writes a [`Module`](super::Module) back as LLVM IR text that
//! [`crate::parse::parse_module`] reads back to the same module (rule
//! P-PROG round trip: parse -> print -> parse is the identity, and printing
//! is a fixpoint). The layout follows LLVM's `AsmWriter` where the IR keeps
//! enough to do so; top-level entities are written in a fixed order
//! (header, types, globals, functions, attribute groups, metadata).

use std::fmt::Write;

mod inst;
mod md;

pub use inst::{binop_str, castop_str, icmp_str, inst_str, rmw_str};
pub use md::md_str;

use super::{
    Atomic, Attr, Block, Const, Function, Global, Module, Name, Operand, TermKind, Type,
    TypedConst, TypedOperand,
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

pub(super) fn write_type(o: &mut String, t: &Type) {
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
        Const::Expr(e) => e.write_with(o, &type_str, &|tc| {
            let mut s = type_str(&tc.ty);
            s.push(' ');
            write_const(&mut s, &tc.value);
            s
        }),
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
    if !m.metadata.is_empty() {
        o.push('\n');
        for d in &m.metadata {
            md::write_md_def(&mut o, d);
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
    md::write_attachments(o, &g.md, ", ");
    o.push('\n');
}

/// Writes one function (definition with body, or declaration).
pub fn print_function(f: &Function) -> String {
    let mut o = String::new();
    if let Some(u) = &f.unsupported {
        // Rule P-PROG per function: the unread definition, as written.
        o.push_str(&u.text);
        o.push('\n');
        return o;
    }
    o.push_str(if f.is_definition {
        "define "
    } else {
        "declare "
    });
    if !f.is_definition {
        let mut a = String::new();
        md::write_attachments(&mut a, &f.md, " ");
        if !a.is_empty() {
            o.push_str(a.trim_start());
            o.push(' ');
        }
    }
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
    md::write_attachments(&mut o, &f.md, " ");
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
        md::write_dbg_records(o, &inst.meta);
        o.push_str("  ");
        inst::write_inst(o, f, inst);
        md::write_attachments(o, &inst.meta.attachments, ", ");
        o.push('\n');
    }
    md::write_dbg_records(o, &b.term.meta);
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
    md::write_attachments(o, &b.term.meta.attachments, ", ");
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
