//! The instruction part of the printer: one arm per [`InstKind`], in the
//! order of the IR's definition, with LLVM's spelling of each opcode, and
//! the terminators; in either [`Style`].

use std::fmt::Write;

use super::super::{
    BinOp, BlockId, CallArg, CastOp, Function, ICmpPred, Inst, InstKind, RmwOp, TermKind,
    Terminator, Type,
};
use super::value::{
    quote_name, quote_str, write_align, write_atomic, write_attrs, write_const, write_flags,
    write_operand, write_type, write_typed, Style,
};

pub fn binop_str(op: BinOp) -> &'static str {
    op.mnemonic()
}

pub fn castop_str(op: CastOp) -> &'static str {
    op.mnemonic()
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

fn write_call_arg(o: &mut String, f: &Function, a: &CallArg, style: Style) {
    write_type(o, &a.ty, style);
    write_attrs(o, &a.attrs, true);
    o.push(' ');
    write_operand(o, f, &a.value, &a.ty, style);
}

/// One instruction as written (round-trip style), without indentation.
pub fn inst_str(f: &Function, inst: &Inst) -> String {
    Style::Source.inst(f, inst)
}

impl Style {
    /// One non-terminator instruction, without indentation.
    pub fn inst(self, f: &Function, inst: &Inst) -> String {
        let mut o = String::new();
        write_inst(&mut o, f, inst, self);
        o
    }

    /// A terminator, without indentation; `switch` spans several lines as
    /// in LLVM (cases indented by four spaces, `]` by two).
    pub fn term(self, f: &Function, t: &Terminator) -> String {
        let mut o = String::new();
        write_term(&mut o, f, t, self);
        o
    }
}

/// `%name` of block `b` as an operand.
pub(super) fn block_ref(f: &Function, b: BlockId) -> String {
    match f.blocks.get(b.0) {
        Some(bl) => format!("%{}", quote_name(&bl.name)),
        None => format!("%<invalid block {}>", b.0),
    }
}

pub(super) fn write_term(o: &mut String, f: &Function, t: &Terminator, style: Style) {
    match &t.kind {
        TermKind::Ret(None) => o.push_str("ret void"),
        TermKind::Ret(Some(v)) => {
            o.push_str("ret ");
            write_typed(o, f, v, style);
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
            write_operand(o, f, cond, &Type::Int(1), style);
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
            write_type(o, ty, style);
            o.push(' ');
            write_operand(o, f, cond, ty, style);
            let _ = write!(o, ", label {} [", block_ref(f, *default));
            for (c, t) in cases {
                o.push_str("\n    ");
                write_type(o, ty, style);
                o.push(' ');
                write_const(o, c, ty, style);
                let _ = write!(o, ", label {}", block_ref(f, *t));
            }
            o.push_str("\n  ]");
        }
        TermKind::Unreachable => o.push_str("unreachable"),
    }
}

pub(super) fn write_inst(o: &mut String, f: &Function, inst: &Inst, style: Style) {
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
            write_type(o, ty, style);
            o.push(' ');
            write_operand(o, f, lhs, ty, style);
            o.push_str(", ");
            write_operand(o, f, rhs, ty, style);
        }
        InstKind::FNeg { flags, ty, value } => {
            o.push_str("fneg");
            write_flags(o, flags);
            o.push(' ');
            write_type(o, ty, style);
            o.push(' ');
            write_operand(o, f, value, ty, style);
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
            write_type(o, ty, style);
            o.push(' ');
            write_operand(o, f, lhs, ty, style);
            o.push_str(", ");
            write_operand(o, f, rhs, ty, style);
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
            write_type(o, ty, style);
            o.push(' ');
            write_operand(o, f, lhs, ty, style);
            o.push_str(", ");
            write_operand(o, f, rhs, ty, style);
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
            write_typed(o, f, from, style);
            o.push_str(" to ");
            write_type(o, to, style);
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
            write_typed(o, f, cond, style);
            o.push_str(", ");
            write_typed(o, f, on_true, style);
            o.push_str(", ");
            write_typed(o, f, on_false, style);
        }
        InstKind::Freeze(v) => {
            o.push_str("freeze ");
            write_typed(o, f, v, style);
        }
        InstKind::Phi {
            flags,
            ty,
            incoming,
        } => {
            o.push_str("phi");
            write_flags(o, flags);
            o.push(' ');
            write_type(o, ty, style);
            for (i, (v, b)) in incoming.iter().enumerate() {
                o.push_str(if i > 0 { ", [ " } else { " [ " });
                write_operand(o, f, v, ty, style);
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
            write_type(o, &c.ty, style);
            o.push(' ');
            write_operand(o, f, &c.callee, &Type::Ptr(0), style);
            o.push('(');
            for (i, a) in c.args.iter().enumerate() {
                if i > 0 {
                    o.push_str(", ");
                }
                write_call_arg(o, f, a, style);
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
                        write_typed(o, f, inp, style);
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
            write_type(o, ty, style);
            if let Some(c) = count {
                o.push_str(", ");
                write_typed(o, f, c, style);
            }
            write_align(o, *align, ty, style);
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
            write_type(o, ty, style);
            o.push_str(", ");
            write_typed(o, f, ptr, style);
            if let Some(a) = atomic {
                write_atomic(o, a);
            }
            write_align(o, *align, ty, style);
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
            write_typed(o, f, value, style);
            o.push_str(", ");
            write_typed(o, f, ptr, style);
            if let Some(a) = atomic {
                write_atomic(o, a);
            }
            write_align(o, *align, &value.ty, style);
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
            write_typed(o, f, ptr, style);
            o.push_str(", ");
            write_typed(o, f, value, style);
            write_atomic(o, atomic);
            write_align(o, *align, &value.ty, style);
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
            write_typed(o, f, ptr, style);
            o.push_str(", ");
            write_typed(o, f, cmp, style);
            o.push_str(", ");
            write_typed(o, f, new, style);
            write_atomic(o, atomic);
            write_align(o, *align, &cmp.ty, style);
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
            write_type(o, source_ty, style);
            o.push_str(", ");
            write_typed(o, f, base, style);
            for i in indices {
                o.push_str(", ");
                write_typed(o, f, i, style);
            }
        }
        InstKind::ExtractValue { agg, indices } => {
            o.push_str("extractvalue ");
            write_typed(o, f, agg, style);
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
            write_typed(o, f, agg, style);
            o.push_str(", ");
            write_typed(o, f, value, style);
            for i in indices {
                let _ = write!(o, ", {i}");
            }
        }
        InstKind::ExtractElement { vector, index } => {
            o.push_str("extractelement ");
            write_typed(o, f, vector, style);
            o.push_str(", ");
            write_typed(o, f, index, style);
        }
        InstKind::InsertElement {
            vector,
            value,
            index,
        } => {
            o.push_str("insertelement ");
            write_typed(o, f, vector, style);
            o.push_str(", ");
            write_typed(o, f, value, style);
            o.push_str(", ");
            write_typed(o, f, index, style);
        }
        InstKind::ShuffleVector { a, b, mask } => {
            o.push_str("shufflevector ");
            write_typed(o, f, a, style);
            o.push_str(", ");
            write_typed(o, f, b, style);
            o.push_str(", ");
            write_typed(o, f, mask, style);
        }
    }
}
