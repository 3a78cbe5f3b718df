//! Non-terminator instructions of the subset (rule P-PROG), one small
//! parser per kind in the order of [`InstKind`]; result types are computed
//! here so uses can be checked against definitions.

use super::attrs::AttrCtx;
use super::body::{Body, UNSUPPORTED_OPS};
use super::lexer::Tok;
use super::parser::Parser;
use super::types::bool_like;
use super::typing;
use super::ParseError;
use crate::ir::print::type_str;
use crate::ir::{
    BinOp, Bundle, Call, CallArg, CastOp, FCmpPred, ICmpPred, InstKind, Operand, RmwOp, Span, Type,
};

/// Fast-math and wrap/exact flags that may follow an opcode.
pub(super) const FLAG_WORDS: &[&str] = &[
    "nuw", "nsw", "exact", "disjoint", "nneg", "fast", "nnan", "ninf", "nsz", "arcp", "contract",
    "afn", "reassoc",
];

const FCMP_PREDS: &[&str] = &[
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
    "une", "uno", "true",
];

pub(super) const ORDERINGS: &[&str] = &[
    "unordered",
    "monotonic",
    "acquire",
    "release",
    "acq_rel",
    "seq_cst",
];

fn binop(w: &str) -> Option<BinOp> {
    Some(match w {
        "add" => BinOp::Add,
        "sub" => BinOp::Sub,
        "mul" => BinOp::Mul,
        "udiv" => BinOp::UDiv,
        "sdiv" => BinOp::SDiv,
        "urem" => BinOp::URem,
        "srem" => BinOp::SRem,
        "shl" => BinOp::Shl,
        "lshr" => BinOp::LShr,
        "ashr" => BinOp::AShr,
        "and" => BinOp::And,
        "or" => BinOp::Or,
        "xor" => BinOp::Xor,
        "fadd" => BinOp::FAdd,
        "fsub" => BinOp::FSub,
        "fmul" => BinOp::FMul,
        "fdiv" => BinOp::FDiv,
        "frem" => BinOp::FRem,
        _ => return None,
    })
}

fn castop(w: &str) -> Option<CastOp> {
    Some(match w {
        "trunc" => CastOp::Trunc,
        "zext" => CastOp::ZExt,
        "sext" => CastOp::SExt,
        "fptrunc" => CastOp::FPTrunc,
        "fpext" => CastOp::FPExt,
        "fptoui" => CastOp::FPToUI,
        "fptosi" => CastOp::FPToSI,
        "uitofp" => CastOp::UIToFP,
        "sitofp" => CastOp::SIToFP,
        "ptrtoint" => CastOp::PtrToInt,
        "inttoptr" => CastOp::IntToPtr,
        "bitcast" => CastOp::BitCast,
        "addrspacecast" => CastOp::AddrSpaceCast,
        _ => return None,
    })
}

fn icmp_pred(w: &str) -> Option<ICmpPred> {
    Some(match w {
        "eq" => ICmpPred::Eq,
        "ne" => ICmpPred::Ne,
        "ugt" => ICmpPred::Ugt,
        "uge" => ICmpPred::Uge,
        "ult" => ICmpPred::Ult,
        "ule" => ICmpPred::Ule,
        "sgt" => ICmpPred::Sgt,
        "sge" => ICmpPred::Sge,
        "slt" => ICmpPred::Slt,
        "sle" => ICmpPred::Sle,
        _ => return None,
    })
}

fn rmw_op(w: &str) -> Option<RmwOp> {
    Some(match w {
        "xchg" => RmwOp::Xchg,
        "add" => RmwOp::Add,
        "sub" => RmwOp::Sub,
        "and" => RmwOp::And,
        "nand" => RmwOp::Nand,
        "or" => RmwOp::Or,
        "xor" => RmwOp::Xor,
        "max" => RmwOp::Max,
        "min" => RmwOp::Min,
        "umax" => RmwOp::UMax,
        "umin" => RmwOp::UMin,
        "fadd" => RmwOp::FAdd,
        "fsub" => RmwOp::FSub,
        "fmax" => RmwOp::FMax,
        "fmin" => RmwOp::FMin,
        "uinc_wrap" => RmwOp::UIncWrap,
        "udec_wrap" => RmwOp::UDecWrap,
        "usub_cond" => RmwOp::USubCond,
        "usub_sat" => RmwOp::USubSat,
        _ => return None,
    })
}

impl Parser<'_> {
    /// One non-terminator instruction; returns it with its result type
    /// (`None`/`Void` for instructions without a result).
    pub(super) fn instruction(
        &mut self,
        st: &mut Body<'_>,
        op: &str,
        at: Span,
    ) -> Result<(InstKind, Option<Type>), ParseError> {
        if UNSUPPORTED_OPS.contains(&op) {
            return Err(self.unsupported(op));
        }
        self.bump();
        if let Some(bop) = binop(op) {
            let flags = self.flags();
            let at = self.span();
            let ty = self.parse_type()?;
            let lhs = self.operand_of(st, &ty, false)?;
            self.expect_punct(',')?;
            let rhs = self.operand_of(st, &ty, false)?;
            if let Some(why) = typing::binary_error(bop, &ty) {
                return Err(self.err_at(at, why));
            }
            return Ok((
                InstKind::Binary {
                    op: bop,
                    flags: flags.into(),
                    ty: ty.clone(),
                    lhs,
                    rhs,
                },
                Some(ty),
            ));
        }
        if let Some(cop) = castop(op) {
            let flags = self.flags();
            let at = self.span();
            let from = self.typed_operand(st)?;
            self.expect_word("to")?;
            let to = self.parse_type()?;
            if !typing::cast_valid(cop, &from.ty, &to) {
                return Err(self.err_at(
                    at,
                    format!(
                        "invalid cast opcode for cast from '{}' to '{}'",
                        type_str(&from.ty),
                        type_str(&to)
                    ),
                ));
            }
            return Ok((
                InstKind::Cast {
                    op: cop,
                    flags: flags.into(),
                    from,
                    to: to.clone(),
                },
                Some(to),
            ));
        }
        let r = match op {
            "fneg" => {
                let flags = self.flags();
                let at = self.span();
                let ty = self.parse_type()?;
                let value = self.operand_of(st, &ty, false)?;
                if !typing::fp_like(&ty) {
                    return Err(self.err_at(at, "invalid operand type for instruction"));
                }
                (
                    InstKind::FNeg {
                        flags: flags.into(),
                        ty: ty.clone(),
                        value,
                    },
                    Some(ty),
                )
            }
            "icmp" => {
                let samesign = self.eat_word("samesign");
                let pred = match self.word().and_then(icmp_pred) {
                    Some(p) => p,
                    None => return Err(self.expected("an icmp predicate")),
                };
                self.bump();
                let at = self.span();
                let ty = self.parse_type()?;
                let lhs = self.operand_of(st, &ty, false)?;
                self.expect_punct(',')?;
                let rhs = self.operand_of(st, &ty, false)?;
                if !typing::int_like(&ty) && !typing::ptr_like(&ty) {
                    return Err(self.err_at(at, "icmp requires integer operands"));
                }
                let rty = bool_like(&ty);
                (
                    InstKind::ICmp {
                        samesign,
                        pred,
                        ty,
                        lhs,
                        rhs,
                    },
                    Some(rty),
                )
            }
            "fcmp" => {
                let flags = self.flags();
                let pred = match self.word() {
                    Some(w) if FCMP_PREDS.contains(&w) => FCmpPred(w.to_string()),
                    _ => return Err(self.expected("an fcmp predicate")),
                };
                self.bump();
                let at = self.span();
                let ty = self.parse_type()?;
                let lhs = self.operand_of(st, &ty, false)?;
                self.expect_punct(',')?;
                let rhs = self.operand_of(st, &ty, false)?;
                if !typing::fp_like(&ty) {
                    return Err(self.err_at(at, "fcmp requires floating point operands"));
                }
                let rty = bool_like(&ty);
                (
                    InstKind::FCmp {
                        flags: flags.into(),
                        pred: Box::new(pred),
                        ty,
                        lhs,
                        rhs,
                    },
                    Some(rty),
                )
            }
            "select" => {
                let flags = self.flags();
                let at = self.span();
                let cond = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let on_true = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let on_false = self.typed_operand(st)?;
                if let Some(why) = typing::select_error(&cond.ty, &on_true.ty, &on_false.ty) {
                    return Err(self.err_at(at, why));
                }
                let rty = on_true.ty.clone();
                (
                    InstKind::Select {
                        flags: flags.into(),
                        cond,
                        on_true: Box::new(on_true),
                        on_false: Box::new(on_false),
                    },
                    Some(rty),
                )
            }
            "freeze" => {
                let v = self.typed_operand(st)?;
                let rty = v.ty.clone();
                (InstKind::Freeze(v), Some(rty))
            }
            "phi" => {
                let flags = self.flags();
                let ty = self.parse_type()?;
                let mut incoming = Vec::new();
                loop {
                    self.expect_punct('[')?;
                    let v = self.operand_of(st, &ty, false)?;
                    self.expect_punct(',')?;
                    let b = self.block_ref(st)?;
                    self.expect_punct(']')?;
                    incoming.push((v, b));
                    if !(self.is_punct(',') && matches!(self.peek_at(1), Tok::Punct('['))) {
                        break;
                    }
                    self.bump();
                }
                // Grown from 4: most phis have two incoming values.
                incoming.shrink_to_fit();
                (
                    InstKind::Phi {
                        flags: flags.into(),
                        ty: ty.clone(),
                        incoming,
                    },
                    Some(ty),
                )
            }
            "tail" | "musttail" | "notail" => {
                self.expect_word("call")?;
                self.call(st, Some(op.to_string()))?
            }
            "call" => self.call(st, None)?,
            "alloca" => self.alloca(st)?,
            "load" => {
                let atomic = self.eat_word("atomic");
                let volatile = self.eat_word("volatile");
                let ty = self.parse_type()?;
                self.expect_punct(',')?;
                let ptr = self
                    .pointer_operand(st, "load operand must be a pointer to a first class type")?;
                let atomic = if atomic {
                    Some(self.atomic(false)?)
                } else {
                    None
                };
                let align = self.opt_align()?;
                (
                    InstKind::Load {
                        volatile,
                        ty: ty.clone(),
                        ptr: Box::new(ptr),
                        atomic: atomic.map(Box::new),
                        align,
                    },
                    Some(ty),
                )
            }
            "store" => {
                let atomic = self.eat_word("atomic");
                let volatile = self.eat_word("volatile");
                let value = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let ptr = self.pointer_operand(st, "store operand must be a pointer")?;
                let atomic = if atomic {
                    Some(self.atomic(false)?)
                } else {
                    None
                };
                let align = self.opt_align()?;
                (
                    InstKind::Store {
                        volatile,
                        value,
                        ptr: Box::new(ptr),
                        atomic: atomic.map(Box::new),
                        align,
                    },
                    None,
                )
            }
            "atomicrmw" => {
                let volatile = self.eat_word("volatile");
                let rop = match self.word().and_then(rmw_op) {
                    Some(o) => o,
                    None => return Err(self.expected("an atomicrmw operation")),
                };
                self.bump();
                let ptr = self.pointer_operand(st, "atomicrmw operand must be a pointer")?;
                self.expect_punct(',')?;
                let value = self.typed_operand(st)?;
                let atomic = self.atomic(false)?;
                let align = self.opt_align()?;
                let rty = value.ty.clone();
                (
                    InstKind::AtomicRmw {
                        volatile,
                        op: rop,
                        ptr,
                        value: Box::new(value),
                        atomic: Box::new(atomic),
                        align,
                    },
                    Some(rty),
                )
            }
            "cmpxchg" => {
                let weak = self.eat_word("weak");
                let volatile = self.eat_word("volatile");
                let ptr = self.pointer_operand(st, "cmpxchg operand must be a pointer")?;
                self.expect_punct(',')?;
                let cmp = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let new = self.typed_operand(st)?;
                let atomic = self.atomic(true)?;
                let align = self.opt_align()?;
                let rty = Type::Struct {
                    fields: vec![cmp.ty.clone(), Type::Int(1)].into(),
                    packed: false,
                };
                (
                    InstKind::CmpXchg {
                        weak,
                        volatile,
                        ptr: Box::new(ptr),
                        cmp: Box::new(cmp),
                        new: Box::new(new),
                        atomic: Box::new(atomic),
                        align,
                    },
                    Some(rty),
                )
            }
            "getelementptr" => self.gep(st)?,
            "extractvalue" => {
                let agg = self.typed_operand(st)?;
                let indices = self.indices()?;
                let rty = self
                    .aggregate_elem(&agg.ty, &indices)
                    .ok_or_else(|| self.err_at(at, "invalid extractvalue indices for type"))?;
                (InstKind::ExtractValue { agg, indices }, Some(rty))
            }
            "insertvalue" => {
                let agg = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let value = self.typed_operand(st)?;
                let indices = self.indices()?;
                let rty = agg.ty.clone();
                (
                    InstKind::InsertValue {
                        agg,
                        value: Box::new(value),
                        indices,
                    },
                    Some(rty),
                )
            }
            "extractelement" => {
                let vector = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let index = self.typed_operand(st)?;
                let rty = match &vector.ty {
                    Type::Vector { elem, .. } => (**elem).clone(),
                    _ => return Err(self.err_at(at, "extractelement requires a vector operand")),
                };
                (
                    InstKind::ExtractElement {
                        vector,
                        index: Box::new(index),
                    },
                    Some(rty),
                )
            }
            "insertelement" => {
                let vector = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let value = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let index = self.typed_operand(st)?;
                let rty = vector.ty.clone();
                (
                    InstKind::InsertElement {
                        vector,
                        value: Box::new(value),
                        index: Box::new(index),
                    },
                    Some(rty),
                )
            }
            "shufflevector" => {
                let a = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let b = self.typed_operand(st)?;
                self.expect_punct(',')?;
                let mask = self.typed_operand(st)?;
                let rty = match (&a.ty, &mask.ty) {
                    (Type::Vector { elem, .. }, Type::Vector { len, scalable, .. }) => {
                        Type::Vector {
                            len: *len,
                            scalable: *scalable,
                            elem: elem.clone(),
                        }
                    }
                    _ => return Err(self.err_at(at, "shufflevector requires vector operands")),
                };
                (
                    InstKind::ShuffleVector {
                        a,
                        b: Box::new(b),
                        mask: Box::new(mask),
                    },
                    Some(rty),
                )
            }
            _ => {
                return Err(self.err_at(at, format!("expected an instruction opcode, found '{op}'")))
            }
        };
        Ok(r)
    }

    fn alloca(&mut self, st: &mut Body<'_>) -> Result<(InstKind, Option<Type>), ParseError> {
        if self.is_word("inalloca") || self.is_word("swifterror") {
            return Err(self.unsupported("alloca inalloca/swifterror"));
        }
        let ty = self.parse_type()?;
        let mut count = None;
        let mut align = None;
        let mut addrspace = None;
        while self.is_punct(',') {
            match self.peek_at(1).clone() {
                Tok::Word(w) if w == "align" => {
                    self.bump();
                    self.bump();
                    align = Some(self.uint()?);
                }
                Tok::Word(w) if w == "addrspace" => {
                    self.bump();
                    addrspace = Some(self.addrspace()?);
                }
                Tok::Meta(_) => break,
                _ if count.is_none() && align.is_none() && addrspace.is_none() => {
                    self.bump();
                    count = Some(Box::new(self.typed_operand(st)?));
                }
                _ => return Err(self.expected("'align' or 'addrspace'")),
            }
        }
        let rty = Type::Ptr(addrspace.unwrap_or(self.alloca_as));
        Ok((
            InstKind::Alloca {
                ty,
                count,
                align,
                addrspace,
            },
            Some(rty),
        ))
    }

    fn gep(&mut self, st: &mut Body<'_>) -> Result<(InstKind, Option<Type>), ParseError> {
        let mut flags = Vec::new();
        while let Some(w) = self.word() {
            match w {
                "inbounds" | "nuw" | "nusw" => {
                    flags.push(w.to_string());
                    self.bump();
                }
                "inrange" => return Err(self.unsupported("getelementptr inrange")),
                _ => break,
            }
        }
        let source_ty = self.parse_type()?;
        self.expect_punct(',')?;
        let at = self.span();
        let base = self.typed_operand(st)?;
        if !matches!(
            base.ty,
            Type::Ptr(_) | Type::TypedPtr { .. } | Type::Vector { .. }
        ) {
            return Err(self.err_at(at, "base of getelementptr must be a pointer"));
        }
        let mut indices = Vec::new();
        while self.is_punct(',') && !matches!(self.peek_at(1), Tok::Meta(_)) {
            self.bump();
            let i_at = self.span();
            let i = self.typed_operand(st)?;
            if !matches!(i.ty, Type::Int(_) | Type::Vector { .. }) {
                return Err(self.err_at(i_at, "getelementptr index must be an integer"));
            }
            indices.push(i);
        }
        let shown: Vec<(&Type, Option<i128>)> = indices
            .iter()
            .map(|i| {
                let v = match (&i.ty, &i.value) {
                    (Type::Int(_), Operand::Const(c)) => match **c {
                        crate::ir::Const::Int { value, .. } => Some(value),
                        _ => None,
                    },
                    _ => None,
                };
                (&i.ty, v)
            })
            .collect();
        self.check_gep_indices(&source_ty, &shown)
            .map_err(|m| self.err_at(at, m))?;
        let rty = super::types::gep_result_type(&base.ty, indices.iter().map(|i| &i.ty));
        Ok((
            InstKind::Gep {
                flags: flags.into(),
                source_ty,
                base: Box::new(base),
                indices,
            },
            Some(rty),
        ))
    }

    /// `call` after the tail marker: `[fmf] [cconv] [ret attrs] T|FnTy
    /// callee(args) [fn attrs] [bundles]`.
    fn call(
        &mut self,
        st: &mut Body<'_>,
        tail: Option<String>,
    ) -> Result<(InstKind, Option<Type>), ParseError> {
        let flags = self.flags();
        let cconv = self.cconv()?;
        let ret_attrs = self.attrs(AttrCtx::Ret)?;
        if self.is_word("addrspace") {
            return Err(self.unsupported("call addrspace"));
        }
        let ty = self.parse_type()?;
        let callee_at = self.span();
        let callee = match self.peek().clone() {
            Tok::Global(g) => {
                self.bump();
                self.note_global_use(g.clone(), callee_at);
                Operand::constant(crate::ir::Const::Global(g))
            }
            Tok::Local(n) => {
                self.bump();
                // Callees through typed pointers or other address spaces
                // are accepted without a type check.
                st.fb.use_value_opt(self, n, None, callee_at)?
            }
            Tok::Word(w) if w == "asm" => return Err(self.unsupported("inline asm")),
            // Constant callees (`null`, `undef`, ...); constant expressions
            // and inline asm are rejected inside `parse_const`.
            _ => Operand::constant(self.parse_const(&Type::Ptr(0))?),
        };
        self.expect_punct('(')?;
        let mut args = Vec::new();
        if !self.eat_punct(')') {
            loop {
                if self.peek() == &Tok::Ellipsis {
                    return Err(self.unsupported("musttail varargs forwarding"));
                }
                let aty = self.parse_type()?;
                if aty == Type::Metadata {
                    let text = self.md_value_text()?;
                    args.push(CallArg {
                        ty: aty,
                        attrs: Vec::new(),
                        value: Operand::Metadata(Box::new(text)),
                    });
                } else {
                    let attrs = self.attrs(AttrCtx::Param)?;
                    let value = self.operand_of(st, &aty, false)?;
                    args.push(CallArg {
                        ty: aty,
                        attrs,
                        value,
                    });
                }
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        // LLParser's "invalid intrinsic signature": an intrinsic's call has
        // its signature (issue 12 item 9), reported at the callee.
        if let Some(crate::ir::Const::Global(g)) = callee.as_const() {
            let vararg = matches!(&ty, Type::Func(f) if f.varargs);
            if g.starts_with("llvm.") && !vararg {
                let ret = match &ty {
                    Type::Func(f) => f.ret.clone(),
                    t => t.clone(),
                };
                let tys: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
                crate::intrinsics::sig::check(g, &ret, &tys)
                    .map_err(|e| self.err_at(callee_at, e))?;
            }
        }
        let fn_attrs = self.attrs(AttrCtx::CallSite)?;
        let mut bundles = Vec::new();
        if self.eat_punct('[') {
            loop {
                let tag = self.string()?;
                self.expect_punct('(')?;
                let mut inputs = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        inputs.push(self.typed_operand(st)?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                bundles.push(Bundle { tag, inputs });
                if self.eat_punct(']') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        let rty = match &ty {
            Type::Func(f) => f.ret.clone(),
            t => t.clone(),
        };
        Ok((
            InstKind::Call(Box::new(Call {
                tail,
                flags,
                cconv,
                ret_attrs,
                ty,
                callee,
                args,
                fn_attrs,
                bundles,
            })),
            Some(rty),
        ))
    }
}
