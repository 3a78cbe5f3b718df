//! Single-thread step rules (P-THREAD), one function per instruction kind
//! (calls are in [`super::calls`]), and the D-MAX-ITER key of every block
//! visit.

use crate::ir::{
    BinOp, CastOp, Const, ConstExpr, Inst, InstKind, Operand, TermKind, Type, TypedConst,
    TypedOperand, ValueId,
};

use crate::ir::float::FloatTy;

use super::chooser::Chooser;
use super::program::Program;
use super::state::{KeyNode, Loc, Machine, Status, ThreadEnd, ThreadState, Visit};
use super::value::{binary, icmp, int, mask, signed, Arith, UbKind, Val};
use super::{Options, RunError};

/// Why a thread's run stopped the whole exploration or execution.
#[derive(Clone, Debug)]
pub enum Stop {
    /// The launch cannot be explored (unsupported / ill-formed).
    Error(RunError),
    /// The rules contradict themselves on this execution.
    Contradiction { rule: &'static str, detail: String },
}

/// What the step rules read besides the machine.
pub struct Ctx<'a, 'm> {
    pub prog: &'a Program<'m>,
    pub opts: &'a Options,
    pub chooser: &'a mut Chooser,
}

/// Result of one instruction.
pub(super) enum Flow {
    /// Continue with the next instruction.
    Next,
    /// Control moved (branch, call, return); the frame is already updated.
    Jumped,
    /// The thread blocked or ended.
    Paused,
}

pub(super) type R<T> = Result<T, Stop>;

pub fn loc_text(prog: &Program, loc: Loc) -> String {
    let f = prog.func(loc.func);
    let b = f.block(loc.block);
    let span = b
        .insts
        .get(loc.index)
        .map(|i| i.span)
        .unwrap_or(b.term.span);
    format!("@{}:%{}#{} (line {span})", f.name, b.name, loc.index)
}

/// The LLVM mnemonic of an instruction kind the interpreter does not run
/// (messages name constructs as LLVM spells them, never Rust names).
fn mnemonic(k: &InstKind) -> &'static str {
    match k {
        InstKind::Binary { .. } => "binary operator",
        InstKind::FNeg { .. } => "fneg",
        InstKind::ICmp { .. } => "icmp",
        InstKind::FCmp { .. } => "fcmp",
        InstKind::Cast { .. } => "cast",
        InstKind::Select { .. } => "select",
        InstKind::Freeze { .. } => "freeze",
        InstKind::Phi { .. } => "phi",
        InstKind::Call { .. } => "call",
        InstKind::Alloca { .. } => "alloca",
        InstKind::Load { .. } => "load",
        InstKind::Store { .. } => "store",
        InstKind::AtomicRmw { .. } => "atomicrmw",
        InstKind::CmpXchg { .. } => "cmpxchg",
        InstKind::Gep { .. } => "getelementptr",
        InstKind::ExtractValue { .. } => "extractvalue",
        InstKind::InsertValue { .. } => "insertvalue",
        InstKind::ExtractElement { .. } => "extractelement",
        InstKind::InsertElement { .. } => "insertelement",
        InstKind::ShuffleVector { .. } => "shufflevector",
    }
}

pub(super) fn unsupported(prog: &Program, loc: Loc, construct: &str) -> Stop {
    Stop::Error(RunError::Unsupported {
        construct: construct.to_string(),
        at: loc_text(prog, loc),
    })
}

/// Runs thread `t` until it blocks at a convergent operation or ends.
pub fn run_thread(m: &mut Machine, t: usize, cx: &mut Ctx) -> R<()> {
    let mut th = m.threads[t].clone();
    let r = run_loop(m, &mut th, cx);
    m.threads.replace(t, th);
    r
}

fn run_loop(m: &mut Machine, th: &mut ThreadState, cx: &mut Ctx) -> R<()> {
    while matches!(th.status, Status::Running) {
        // A call completed after its set fired was counted when it paused.
        if th.resume.is_none() {
            th.steps += 1;
        }
        if th.steps > cx.opts.max_steps {
            th.status = Status::Done(ThreadEnd::Cut);
            break;
        }
        let fr = th.frames.back().expect("a running thread has a frame");
        let loc = Loc {
            func: fr.func,
            block: fr.block,
            index: fr.index,
        };
        let block = cx.prog.func(loc.func).block(loc.block);
        let flow = match block.insts.get(loc.index) {
            Some(inst) => exec_inst(m, th, cx, loc, inst)?,
            None => exec_term(m, th, cx, loc)?,
        };
        if let Flow::Next = flow {
            th.frames.back_mut().expect("frame").index += 1;
        }
    }
    Ok(())
}

fn ub(th: &mut ThreadState, loc: Loc, why: UbKind) -> Flow {
    th.status = Status::Done(ThreadEnd::Ub { loc, why });
    Flow::Paused
}

pub(super) fn set(th: &mut ThreadState, v: Option<ValueId>, val: Val) {
    if let Some(v) = v {
        th.frames.back_mut().expect("frame").values.insert(v, val);
    }
}

/// Evaluates an operand of type `ty` in the innermost frame.
pub(super) fn eval(
    m: &Machine,
    th: &ThreadState,
    cx: &Ctx,
    loc: Loc,
    ty: &Type,
    op: &Operand,
) -> R<Val> {
    match op {
        Operand::Local(v) => Ok(th
            .frames
            .back()
            .expect("frame")
            .values
            .get(v)
            .cloned()
            .unwrap_or(Val::Poison)),
        Operand::Const(c) => const_val(m, cx, loc, th.group, ty, c),
        Operand::Metadata(_) => Err(unsupported(cx.prog, loc, "metadata operand")),
    }
}

/// A constant's value in a thread of launch group `group` (P-MEM-OBJ: a
/// workgroup global names its group's instance).
pub(super) fn const_val(
    m: &Machine,
    cx: &Ctx,
    loc: Loc,
    group: u32,
    ty: &Type,
    c: &Const,
) -> R<Val> {
    match (c, ty) {
        (Const::Int { value, .. }, Type::Int(bits)) if (1..=128).contains(bits) => {
            Ok(int(*bits, *value))
        }
        (Const::Null, _) => Ok(Val::Ptr { obj: 0, off: 0 }),
        (Const::Poison | Const::Undef, _) => Ok(Val::Poison),
        (Const::ZeroInit, Type::Int(bits)) => Ok(int(*bits, 0)),
        // P-FLOAT: literals by their bits (the parser checked them).
        (Const::Float(text), _) if FloatTy::of(ty).is_some() => {
            let f = FloatTy::of(ty).expect("guarded by the match arm");
            crate::ir::float::parse_literal(text, f)
                .map(|bits| super::float::val(f, bits))
                .map_err(|why| unsupported(cx.prog, loc, &format!("constant {text}: {why}")))
        }
        (Const::ZeroInit, _) if FloatTy::of(ty).is_some() => Ok(super::float::val(
            FloatTy::of(ty).expect("guarded by the match arm"),
            0,
        )),
        (Const::ZeroInit, Type::Ptr(_)) => Ok(Val::Ptr { obj: 0, off: 0 }),
        (Const::Global(name), _) => match cx.prog.globals.get(name) {
            Some(obj) => {
                let obj = super::memory::global_id(cx.prog.module, *obj as usize - 1, group);
                if !m.mem.objects.contains_key(&obj) {
                    return Err(unsupported(
                        cx.prog,
                        loc,
                        &format!("global @{name} (its type or initializer has no byte layout)"),
                    ));
                }
                Ok(Val::Ptr { obj, off: 0 })
            }
            None => Err(unsupported(cx.prog, loc, "function pointer")),
        },
        (Const::Expr(e), _) => const_expr_val(m, cx, loc, group, e),
        _ => Err(unsupported(cx.prog, loc, "constant of this type")),
    }
}

/// A constant expression's value (P-PROG): the same rules as the
/// instruction of the same opcode, over constant operands.
fn const_expr_val(m: &Machine, cx: &Ctx, loc: Loc, group: u32, e: &ConstExpr) -> R<Val> {
    let sub = |tc: &TypedConst| const_val(m, cx, loc, group, &tc.ty, &tc.value);
    match e {
        ConstExpr::Cast { op, from, to } => cast(m, cx, loc, *op, &[], &from.ty, to, sub(from)?),
        ConstExpr::Gep {
            flags,
            source_ty,
            base,
            indices,
        } => {
            let idx = indices.iter().map(sub).collect::<R<Vec<Val>>>()?;
            super::access::gep(m, cx, loc, flags, source_ty, sub(base)?, &idx)
        }
        ConstExpr::Binary {
            op,
            flags,
            lhs,
            rhs,
        } => {
            let bits = bits_of(cx, loc, &lhs.ty)?;
            match (sub(lhs)?, sub(rhs)?) {
                (Val::Int { v: a, .. }, Val::Int { v: b, .. }) => match binary(*op, flags, bits, a, b) {
                    Arith::Val(v) => Ok(v),
                    Arith::Ub(_) => unreachable!(
                        "P-PROG: the parser admits only add, sub and xor constant expressions, which have no undefined behaviour"
                    ),
                },
                _ => Ok(Val::Poison),
            }
        }
    }
}

pub(super) fn eval_t(
    m: &Machine,
    th: &ThreadState,
    cx: &Ctx,
    loc: Loc,
    op: &TypedOperand,
) -> R<Val> {
    eval(m, th, cx, loc, &op.ty, &op.value)
}

/// Picks a value of type `ty` for an input not given (P-INPUT).
pub fn choose_value(m: &mut Machine, chooser: &mut Chooser, opts: &Options, ty: &Type) -> Val {
    match ty {
        Type::Int(1) => int(1, chooser.choose(2) as i128),
        Type::Int(bits) => {
            let i = chooser.choose(opts.int_domain.len().max(1));
            int(*bits, opts.int_domain.get(i).copied().unwrap_or(0))
        }
        // P-INPUT for floats: the integer domain, converted.
        t if FloatTy::of(t).is_some() => {
            let f = FloatTy::of(t).expect("guarded by the match arm");
            let i = chooser.choose(opts.int_domain.len().max(1));
            let x = opts.int_domain.get(i).copied().unwrap_or(0);
            super::float::val(f, f.from_int(x < 0, x.unsigned_abs()))
        }
        Type::Ptr(space) => {
            // P-INPUT: a pointer input points to a fresh input buffer of
            // `--buffer-bytes` bytes, read lazily.
            let k = m.next_input;
            m.next_input += 1;
            let obj = super::memory::input_id(k);
            m.mem.add(
                obj,
                super::memory::Object {
                    name: format!("input buffer {k}"),
                    kind: super::memory::ObjKind::Input,
                    space: *space,
                    bytes: im::Vector::from(vec![
                        super::memory::Byte::Unread;
                        opts.buffer_bytes as usize
                    ]),
                },
            );
            Val::Ptr { obj, off: 0 }
        }
        _ => Val::Void,
    }
}

fn bits_of(cx: &Ctx, loc: Loc, ty: &Type) -> R<u32> {
    match ty.int_bits() {
        Some(b) if (1..=128).contains(&b) => Ok(b),
        Some(_) => Err(unsupported(cx.prog, loc, "integer wider than 128 bits")),
        None => Err(unsupported(cx.prog, loc, "non-integer arithmetic")),
    }
}

fn exec_inst(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &mut Ctx,
    loc: Loc,
    inst: &Inst,
) -> R<Flow> {
    let res = inst.result;
    match &inst.kind {
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } if FloatTy::of(ty).is_some() => {
            let f = FloatTy::of(ty).expect("guarded by the match arm");
            let v = match (
                eval(m, th, cx, loc, ty, lhs)?,
                eval(m, th, cx, loc, ty, rhs)?,
            ) {
                (Val::Float { bits: a, .. }, Val::Float { bits: b, .. }) => {
                    super::float::binary(*op, flags, f, a, b)
                }
                _ => Val::Poison,
            };
            set(th, res, v);
        }
        InstKind::FNeg { flags, ty, value } => {
            let v = match eval(m, th, cx, loc, ty, value)? {
                Val::Float { ty: f, bits } => super::float::fneg(flags, f, bits),
                Val::Poison => Val::Poison,
                _ => return Err(unsupported(cx.prog, loc, "fneg of a vector")),
            };
            set(th, res, v);
        }
        InstKind::FCmp {
            flags,
            pred,
            ty,
            lhs,
            rhs,
        } => {
            let v = match (
                eval(m, th, cx, loc, ty, lhs)?,
                eval(m, th, cx, loc, ty, rhs)?,
            ) {
                (Val::Float { ty: f, bits: a }, Val::Float { bits: b, .. }) => {
                    super::float::fcmp(&pred.0, flags, f, a, b).ok_or_else(|| {
                        Stop::Error(RunError::IllFormed {
                            rule: "P-PROG",
                            at: loc_text(cx.prog, loc),
                            message: format!("unknown fcmp predicate '{}'", pred.0),
                        })
                    })?
                }
                (Val::Poison, _) | (_, Val::Poison) => Val::Poison,
                _ => return Err(unsupported(cx.prog, loc, "fcmp of vectors")),
            };
            set(th, res, v);
        }
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } => {
            let bits = bits_of(cx, loc, ty)?;
            let (a, b) = (
                eval(m, th, cx, loc, ty, lhs)?,
                eval(m, th, cx, loc, ty, rhs)?,
            );
            let v = match (a, b) {
                (Val::Int { v: a, .. }, Val::Int { v: b, .. }) => binary(*op, flags, bits, a, b),
                // Division by a poison divisor may be division by zero.
                (_, Val::Poison)
                    if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) =>
                {
                    Arith::Ub(UbKind::DivisionByPoison)
                }
                _ => Arith::Val(Val::Poison),
            };
            match v {
                Arith::Val(v) => set(th, res, v),
                Arith::Ub(why) => return Ok(ub(th, loc, why)),
            }
        }
        InstKind::ICmp {
            pred, ty, lhs, rhs, ..
        } => {
            let (a, b) = (
                eval(m, th, cx, loc, ty, lhs)?,
                eval(m, th, cx, loc, ty, rhs)?,
            );
            let v = match (a, b) {
                (Val::Int { bits, v: a }, Val::Int { v: b, .. }) => {
                    int(1, icmp(*pred, bits, a, b) as i128)
                }
                // P-MEM-PTR: pointers compare by address, at the width of
                // their address space.
                (Val::Ptr { obj: o1, off: f1 }, Val::Ptr { obj: o2, off: f2 }) => {
                    let space = match ty {
                        Type::Ptr(s) => *s,
                        _ => 0,
                    };
                    let w = pointer_bits(cx, loc, space)?;
                    let a = pointer_address(cx, loc, m, o1, f1, space, w)?;
                    let b = pointer_address(cx, loc, m, o2, f2, space, w)?;
                    int(1, icmp(*pred, w, a, b) as i128)
                }
                _ => Val::Poison,
            };
            set(th, res, v);
        }
        InstKind::Select {
            cond,
            on_true,
            on_false,
            ..
        } => {
            let c = eval_t(m, th, cx, loc, cond)?;
            let v = match c {
                Val::Int { v: 1, .. } => eval_t(m, th, cx, loc, on_true)?,
                Val::Int { .. } => eval_t(m, th, cx, loc, on_false)?,
                _ => Val::Poison,
            };
            set(th, res, v);
        }
        InstKind::Freeze(op) => {
            let v = match eval_t(m, th, cx, loc, op)? {
                Val::Poison => choose_value(m, cx.chooser, cx.opts, &op.ty),
                v => v,
            };
            set(th, res, v);
        }
        InstKind::Cast {
            op,
            flags,
            from,
            to,
        } => {
            let v = eval_t(m, th, cx, loc, from)?;
            let r = cast(m, cx, loc, *op, flags, &from.ty, to, v)?;
            set(th, res, r);
        }
        InstKind::Phi { .. } => {
            // Phis are evaluated on block entry (see `enter_block`).
        }
        InstKind::Call(call) => {
            // P-FLOAT: the float intrinsics of machine::float are computed
            // here; every other call goes through the call rules.
            if let Some(name) = call.callee_name().filter(|n| super::float::is_intrinsic(n)) {
                let args = call
                    .args
                    .iter()
                    .map(|a| eval(m, th, cx, loc, &a.ty, &a.value))
                    .collect::<R<Vec<Val>>>()?;
                if let Some(r) = super::float::intrinsic(name, &call.flags, &args) {
                    let v = r.map_err(|message| {
                        Stop::Error(RunError::IllFormed {
                            rule: "P-PROG",
                            at: loc_text(cx.prog, loc),
                            message,
                        })
                    })?;
                    set(th, res, v);
                    return Ok(Flow::Next);
                }
            }
            if let Some(name) = call
                .callee_name()
                .filter(|n| super::access::is_mem_intrinsic(n))
            {
                let args = call
                    .args
                    .iter()
                    .map(|a| eval(m, th, cx, loc, &a.ty, &a.value))
                    .collect::<R<Vec<Val>>>()?;
                if let Err(why) = super::access::mem_intrinsic(m, th, cx, loc, name, &args)? {
                    return Ok(ub(th, loc, why));
                }
                return Ok(Flow::Next);
            }
            return super::calls::exec_call(m, th, cx, loc, res, call);
        }
        InstKind::Alloca {
            ty,
            count,
            addrspace,
            ..
        } => match super::access::alloca(m, th, cx, loc, ty, count.as_ref(), *addrspace)? {
            Ok(v) => set(th, res, v),
            Err(why) => return Ok(ub(th, loc, why)),
        },
        InstKind::Load {
            ty, ptr, atomic, ..
        } => {
            let p = eval_t(m, th, cx, loc, ptr)?;
            match super::access::load(m, th, cx, loc, ty, p, atomic.is_some())? {
                Ok(v) => set(th, res, v),
                Err(why) => return Ok(ub(th, loc, why)),
            }
        }
        InstKind::Store {
            value, ptr, atomic, ..
        } => {
            let v = eval_t(m, th, cx, loc, value)?;
            let p = eval_t(m, th, cx, loc, ptr)?;
            if let Err(why) =
                super::access::store(m, th, cx, loc, &value.ty, p, v, atomic.is_some())?
            {
                return Ok(ub(th, loc, why));
            }
        }
        InstKind::AtomicRmw { op, ptr, value, .. } => {
            let p = eval_t(m, th, cx, loc, ptr)?;
            let x = eval_t(m, th, cx, loc, value)?;
            match super::access::atomicrmw(m, th, cx, loc, *op, &value.ty, p, x)? {
                Ok(old) => set(th, res, old),
                Err(why) => return Ok(ub(th, loc, why)),
            }
        }
        InstKind::CmpXchg {
            weak,
            ptr,
            cmp,
            new,
            ..
        } => {
            let p = eval_t(m, th, cx, loc, ptr)?;
            let c = eval_t(m, th, cx, loc, cmp)?;
            let n = eval_t(m, th, cx, loc, new)?;
            match super::access::cmpxchg(m, th, cx, loc, &cmp.ty, p, c, n, *weak)? {
                Ok(v) => set(th, res, v),
                Err(why) => return Ok(ub(th, loc, why)),
            }
        }
        // The only aggregates are `cmpxchg` results and the `{ i1, iN }` of
        // the AMDGPU control-flow intrinsics.
        InstKind::ExtractValue { agg, indices } => {
            let v = match (eval_t(m, th, cx, loc, agg)?, indices.as_slice()) {
                (Val::CmpXchgInt { bits, v, .. }, [0]) => Val::Int { bits, v },
                (Val::CmpXchgPtr { obj, off, .. }, [0]) => Val::Ptr { obj, off },
                (Val::CmpXchgInt { success, .. } | Val::CmpXchgPtr { success, .. }, [1]) => {
                    int(1, success as i128)
                }
                (Val::CfMask { take, .. }, [0]) => int(1, take as i128),
                (Val::CfMask { bits, mask, .. }, [1]) => Val::Int { bits, v: mask },
                (Val::Poison, _) => Val::Poison,
                _ => return Err(unsupported(cx.prog, loc, "extractvalue of this aggregate")),
            };
            set(th, res, v);
        }
        InstKind::Gep {
            flags,
            source_ty,
            base,
            indices,
        } => {
            let p = eval_t(m, th, cx, loc, base)?;
            let idx = indices
                .iter()
                .map(|i| eval_t(m, th, cx, loc, i))
                .collect::<R<Vec<Val>>>()?;
            let v = super::access::gep(m, cx, loc, flags, source_ty, p, &idx)?;
            set(th, res, v);
        }
        other => return Err(unsupported(cx.prog, loc, mnemonic(other))),
    }
    Ok(Flow::Next)
}

#[allow(clippy::too_many_arguments)]
fn cast(
    m: &Machine,
    cx: &Ctx,
    loc: Loc,
    op: CastOp,
    flags: &[String],
    from: &Type,
    to: &Type,
    v: Val,
) -> R<Val> {
    let has = |f: &str| flags.iter().any(|x| x == f);
    if let Some(r) = super::float::cast(op, flags, from, to, v.clone()) {
        return r.map_err(|what| unsupported(cx.prog, loc, &what));
    }
    if let (CastOp::IntToPtr, Val::Int { v: x, .. }, Type::Ptr(space)) = (op, v.clone(), to) {
        // P-MEM-PTR: the integer zero-extended or truncated to the pointer
        // width, then the object whose range holds it.
        let w = pointer_bits(cx, loc, *space)?;
        let addr = (x & mask(w)) as u64;
        return Ok(m.mem.pointer_at(addr, *space));
    }
    let Val::Int { bits: fb, v: x } = v else {
        return match (op, v, from) {
            (_, Val::Poison, _) => Ok(Val::Poison),
            (CastOp::BitCast | CastOp::AddrSpaceCast, v, _) => Ok(v),
            // P-MEM-PTR: base + offset at the pointer width, then resized.
            (CastOp::PtrToInt, Val::Ptr { obj, off }, Type::Ptr(space)) => {
                let tb = bits_of(cx, loc, to)?;
                let w = pointer_bits(cx, loc, *space)?;
                let a = pointer_address(cx, loc, m, obj, off, *space, w)?;
                Ok(Val::Int {
                    bits: tb,
                    v: a & mask(tb),
                })
            }
            _ => Err(unsupported(cx.prog, loc, "pointer cast")),
        };
    };
    let tb = bits_of(cx, loc, to)?;
    Ok(match op {
        CastOp::Trunc => {
            let r = x & mask(tb);
            if (has("nuw") && r != x) || (has("nsw") && signed(tb, r) != signed(fb, x)) {
                Val::Poison
            } else {
                Val::Int { bits: tb, v: r }
            }
        }
        CastOp::ZExt => {
            if has("nneg") && signed(fb, x) < 0 {
                Val::Poison
            } else {
                Val::Int { bits: tb, v: x }
            }
        }
        CastOp::SExt => int(tb, signed(fb, x)),
        CastOp::BitCast => Val::Int { bits: tb, v: x },
        _ => return Err(unsupported(cx.prog, loc, "pointer cast")),
    })
}

/// The pointer width in bits of address space `space` (P-MEM-LAYOUT).
fn pointer_bits(cx: &Ctx, loc: Loc, space: u32) -> R<u32> {
    Ok(super::access::layout(cx, loc)?.pointer_size(space) as u32 * 8)
}

/// P-MEM-PTR: a pointer's address at width `w`; an object whose addresses
/// do not fit a narrow address space is reported unsupported (the fixed
/// bases of [`super::memory::SLOT`] are laid out for 64-bit pointers).
fn pointer_address(
    cx: &Ctx,
    loc: Loc,
    m: &Machine,
    obj: u32,
    off: i64,
    space: u32,
    w: u32,
) -> R<u128> {
    let a = super::memory::address(obj, off) as u128;
    if w < 64 && obj != 0 && obj != super::memory::NO_OBJECT {
        let end = super::memory::base_address(obj) as u128
            + m.mem.objects.get(&obj).map_or(0, |o| o.bytes.len() as u128);
        if end >> w != 0 {
            let name = m
                .mem
                .objects
                .get(&obj)
                .map_or_else(|| format!("object {obj}"), |o| o.name.clone());
            return Err(unsupported(
                cx.prog,
                loc,
                &format!(
                    "address of {name} in the {w}-bit address space {space} (P-MEM-PTR bases are 2 MiB apart by object id)"
                ),
            ));
        }
    }
    Ok(a & mask(w))
}

fn exec_term(m: &mut Machine, th: &mut ThreadState, cx: &mut Ctx, loc: Loc) -> R<Flow> {
    let f = cx.prog.func(loc.func);
    let term = &f.block(loc.block).term;
    let target = match &term.kind {
        TermKind::Br(b) => *b,
        TermKind::CondBr {
            cond,
            on_true,
            on_false,
        } => match eval(m, th, cx, loc, &Type::Int(1), cond)? {
            Val::Int { v, .. } => {
                if v == 1 {
                    *on_true
                } else {
                    *on_false
                }
            }
            _ => return Ok(ub(th, loc, UbKind::BranchOnPoison)),
        },
        TermKind::Switch {
            ty,
            cond,
            default,
            cases,
        } => match eval(m, th, cx, loc, ty, cond)? {
            Val::Int { bits, v } => cases
                .iter()
                .find(|(c, _)| matches!(c, Const::Int { value, .. } if int(bits, *value) == Val::Int { bits, v }))
                .map(|(_, b)| *b)
                .unwrap_or(*default),
            _ => return Ok(ub(th, loc, UbKind::SwitchOnPoison)),
        },
        TermKind::Ret(v) => {
            let val = match v {
                Some(op) => eval_t(m, th, cx, loc, op)?,
                None => Val::Void,
            };
            let fr = th.frames.pop_back().expect("frame");
            if th.frames.is_empty() {
                th.status = Status::Done(ThreadEnd::Returned(val));
                return Ok(Flow::Paused);
            }
            set(th, fr.ret_to, val);
            return Ok(Flow::Jumped);
        }
        TermKind::Unreachable => return Ok(ub(th, loc, UbKind::ReachedUnreachable)),
    };
    enter_block(m, th, cx, Some(target))?;
    Ok(Flow::Jumped)
}

/// Moves the innermost frame to `target` (or starts its current block when
/// `None`): evaluates the phis simultaneously, records the visit and its
/// D-MAX-ITER key.
pub fn enter_block(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &mut Ctx,
    target: Option<crate::ir::BlockId>,
) -> R<()> {
    let fr = th.frames.back().expect("frame").clone();
    let f = cx.prog.func(fr.func);
    let (prev, b) = match target {
        Some(t) => (Some(fr.block), t),
        None => (None, fr.block),
    };
    let block = f.block(b);
    let mut phis = Vec::new();
    let mut first = 0;
    for (i, inst) in block.insts.iter().enumerate() {
        let InstKind::Phi { ty, incoming, .. } = &inst.kind else {
            break;
        };
        first = i + 1;
        let loc = Loc {
            func: fr.func,
            block: b,
            index: i,
        };
        let v = match incoming.iter().find(|(_, p)| Some(*p) == prev) {
            Some((op, _)) => eval(m, th, cx, loc, ty, op)?,
            None => Val::Poison,
        };
        phis.push((inst.result, v));
    }
    // D-MAX-ITER: the last point of convergence is the most recent instance
    // of a header of a cycle containing `b`, else the invocation context.
    let info = cx.prog.info(fr.func);
    let h = m.hierarchy[fr.func];
    let parent = info.headers[h][b.0]
        .iter()
        .filter_map(|hb| fr.last_header.get(hb))
        .max_by_key(|(seq, _)| *seq)
        .map(|(_, k)| *k)
        .unwrap_or(fr.ctx);
    let key = m.keys.intern(KeyNode::Block {
        func: fr.func,
        block: b,
        parent,
    });
    th.seq += 1;
    let seq = th.seq;
    let fm = th.frames.back_mut().expect("frame");
    for (r, v) in phis {
        if let Some(r) = r {
            fm.values.insert(r, v);
        }
    }
    fm.block = b;
    fm.index = first;
    fm.block_key = key;
    if info.is_header[h][b.0] {
        fm.last_header.insert(b, (seq, key));
    }
    th.trace.push_back(Visit {
        func: fr.func,
        block: b,
        key,
    });
    Ok(())
}
