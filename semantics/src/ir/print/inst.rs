//! The instruction part of the printer: one arm per [`InstKind`], in the
//! order of the IR's definition, with LLVM's spelling of each opcode.

use std::fmt::Write;

use super::super::{BinOp, CallArg, CastOp, Function, ICmpPred, Inst, InstKind, RmwOp};
use super::{
    block_ref, quote_name, quote_str, write_align, write_atomic, write_attrs, write_flags,
    write_operand, write_type, write_typed,
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

pub(super) fn write_inst(o: &mut String, f: &Function, inst: &Inst) {
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
