//! Printer: writes a [`Module`](super::Module) back as LLVM IR text that
//! [`crate::parse::parse_module`] reads back to the same module (rule
//! P-PROG round trip: parse -> print -> parse is the identity, and printing
//! is a fixpoint). The layout follows LLVM's `AsmWriter` where the IR keeps
//! enough to do so; top-level entities are written in a fixed order
//! (header, types, globals, functions, attribute groups, metadata).

use std::fmt::Write;

mod inst;
mod md;
mod value;

pub use inst::{binop_str, castop_str, icmp_str, inst_str, rmw_str};
pub use md::md_str;
pub use value::{
    abi_align, attr_str, const_str, local_name, quote_bytes, quote_global, quote_name, quote_str,
    type_str, Style,
};

use super::{Block, Function, Global, Module};
use value::{write_attrs, write_const, write_type};

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
                Some(ty) => write_type(&mut o, ty, Style::Source),
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
    write_type(o, &g.ty, Style::Source);
    if let Some(c) = &g.init {
        o.push(' ');
        write_const(o, c, &g.ty, Style::Source);
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
    write_type(&mut o, &f.ret_ty, Style::Source);
    let _ = write!(o, " @{}(", quote_global(&f.name));
    for (i, p) in f.params.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        write_type(&mut o, &p.ty, Style::Source);
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
        inst::write_inst(o, f, inst, Style::Source);
        md::write_attachments(o, inst.meta.attachments(), ", ");
        o.push('\n');
    }
    md::write_dbg_records(o, &b.term.meta);
    o.push_str("  ");
    inst::write_term(o, f, &b.term, Style::Source);
    md::write_attachments(o, b.term.meta.attachments(), ", ");
    o.push('\n');
}
