//! Single-thread step rules (P-THREAD), one function per instruction kind
//! (calls are in [`super::calls`]), and the D-MAX-ITER key of every block
//! visit.

use crate::ir::{
    Const, ConstExpr, Inst, InstKind, Operand, TermKind, Type, TypedConst, TypedOperand, ValueId,
};

use crate::ir::float::FloatTy;

use super::chooser::Chooser;
use super::ops::bits_of;
use super::program::Program;
use super::state::{KeyNode, Loc, Machine, Status, ThreadEnd, ThreadState, Visit};
use super::value::{binary, int, Arith, UbKind, Val};
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
///
/// The thread runs in place: the threads are lent out of the machine for
/// the run (no step rule reads another thread's state, only the
/// machine-wide parts), and [`super::state::Threads`]'s `IndexMut` copies
/// the thread only when a saved checkpoint shares it, dropping its whole
/// digest and keeping the chains over its histories. (Before, every run
/// copied the thread and dropped the old copy: a tenth of the
/// instructions of cl28-texture2d-sink-else.src at 4 threads.)
pub fn run_thread(m: &mut Machine, t: usize, cx: &mut Ctx) -> R<()> {
    let mut threads = std::mem::take(&mut m.threads);
    let r = run_loop(m, &mut threads[t], cx);
    m.threads = threads;
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
    if matches!(ty, Type::Vector { scalable: true, .. }) {
        return Err(unsupported(cx.prog, loc, "scalable vector"));
    }
    let v = match op {
        Operand::Local(v) => th
            .frames
            .back()
            .expect("frame")
            .values
            .get(v)
            .cloned()
            .unwrap_or(Val::Poison),
        Operand::Const(c) => const_val(m, cx, loc, th.group, ty, c)?,
        Operand::Metadata(_) => return Err(unsupported(cx.prog, loc, "metadata operand")),
    };
    Ok(super::vector::normalise(ty, v))
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
        // P-VEC: a vector constant element by element; `zeroinitializer`
        // is every element's zero.
        (Const::Vector(elems), _) if super::vector::shape(ty).is_some() => Ok(super::vector::of(
            elems
                .iter()
                .map(|e| const_val(m, cx, loc, group, &e.ty, &e.value))
                .collect::<R<Vec<Val>>>()?,
        )),
        (Const::ZeroInit, _) if super::vector::shape(ty).is_some() => {
            let (n, et) = super::vector::shape(ty).expect("guarded by the match arm");
            let z = const_val(m, cx, loc, group, et, &Const::ZeroInit)?;
            Ok(super::vector::of(vec![z; n]))
        }
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
        ConstExpr::Cast { op, from, to } => {
            super::ops::cast(m, cx, loc, *op, &[], &from.ty, to, sub(from)?)
        }
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
        // P-VEC: each element chosen on its own.
        Type::Vector {
            len,
            scalable: false,
            elem,
        } => super::vector::of(
            (0..*len)
                .map(|_| choose_value(m, chooser, opts, elem))
                .collect(),
        ),
        _ => Val::Void,
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
        } => {
            let (a, b) = (
                eval(m, th, cx, loc, ty, lhs)?,
                eval(m, th, cx, loc, ty, rhs)?,
            );
            match super::ops::binary(cx, loc, *op, flags, ty, a, b)? {
                Arith::Val(v) => set(th, res, v),
                Arith::Ub(why) => return Ok(ub(th, loc, why)),
            }
        }
        InstKind::FNeg { flags, ty, value } => {
            let a = eval(m, th, cx, loc, ty, value)?;
            set(th, res, super::ops::fneg(flags, ty, a));
        }
        InstKind::FCmp {
            flags,
            pred,
            ty,
            lhs,
            rhs,
        } => {
            let (a, b) = (
                eval(m, th, cx, loc, ty, lhs)?,
                eval(m, th, cx, loc, ty, rhs)?,
            );
            let v = super::ops::fcmp(cx, loc, &pred.0, flags, ty, a, b)?;
            set(th, res, v);
        }
        InstKind::ICmp {
            samesign,
            pred,
            ty,
            lhs,
            rhs,
        } => {
            let (a, b) = (
                eval(m, th, cx, loc, ty, lhs)?,
                eval(m, th, cx, loc, ty, rhs)?,
            );
            let v = super::ops::icmp(m, cx, loc, *pred, *samesign, ty, a, b)?;
            set(th, res, v);
        }
        InstKind::Select {
            cond,
            on_true,
            on_false,
            ..
        } => {
            let c = eval_t(m, th, cx, loc, cond)?;
            let x = eval_t(m, th, cx, loc, on_true)?;
            let y = eval_t(m, th, cx, loc, on_false)?;
            set(th, res, super::ops::select(&on_true.ty, c, x, y));
        }
        InstKind::Freeze(op) => {
            let v = eval_t(m, th, cx, loc, op)?;
            let v = super::ops::freeze(m, cx, &op.ty, v);
            set(th, res, v);
        }
        InstKind::Cast {
            op,
            flags,
            from,
            to,
        } => {
            let v = eval_t(m, th, cx, loc, from)?;
            let r = super::ops::cast(m, cx, loc, *op, flags, &from.ty, to, v)?;
            set(th, res, r);
        }
        InstKind::ExtractElement { vector, index } => {
            let (n, _) = vector_shape(cx, loc, &vector.ty)?;
            let v = eval_t(m, th, cx, loc, vector)?;
            let i = eval_t(m, th, cx, loc, index)?;
            set(th, res, super::vector::extract(&v, n, &i));
        }
        InstKind::InsertElement {
            vector,
            value,
            index,
        } => {
            let (n, _) = vector_shape(cx, loc, &vector.ty)?;
            let v = eval_t(m, th, cx, loc, vector)?;
            let x = eval_t(m, th, cx, loc, value)?;
            let i = eval_t(m, th, cx, loc, index)?;
            set(th, res, super::vector::insert(&v, n, x, &i));
        }
        InstKind::ShuffleVector { a, b, mask } => {
            let (n, _) = vector_shape(cx, loc, &a.ty)?;
            let (len, _) = vector_shape(cx, loc, &mask.ty)?;
            let x = eval_t(m, th, cx, loc, a)?;
            let y = eval_t(m, th, cx, loc, b)?;
            let k = eval_t(m, th, cx, loc, mask)?;
            let v = super::vector::shuffle(&x, &y, n, &k, len).map_err(|message| {
                Stop::Error(RunError::IllFormed {
                    rule: "P-PROG",
                    at: loc_text(cx.prog, loc),
                    message,
                })
            })?;
            set(th, res, v);
        }
        InstKind::Phi { .. } => {
            // Phis are evaluated on block entry (see `enter_block`).
        }
        InstKind::Call(call) => {
            // P-FLOAT: the float intrinsics of machine::float are computed
            // here; every other call goes through the call rules.
            if let Some(name) = call
                .callee_name()
                .filter(|n| super::float::is_intrinsic(n) || super::vector::reduction(n).is_some())
            {
                let args = call
                    .args
                    .iter()
                    .map(|a| eval(m, th, cx, loc, &a.ty, &a.value))
                    .collect::<R<Vec<Val>>>()?;
                // P-VEC-REDUCE, and P-VEC-ELEM for float intrinsics on
                // vectors (lane by lane).
                let r = match super::vector::reduction(name) {
                    Some(r) => Some(super::vector::reduce(r, &call.flags, &args)),
                    None => super::vector::lift_call(&args, |lane| {
                        super::float::intrinsic(name, &call.flags, lane)
                    })
                    .or_else(|| super::float::intrinsic(name, &call.flags, &args)),
                };
                if let Some(r) = r {
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
        } => match super::access::alloca(m, th, cx, loc, ty, count.as_deref(), *addrspace)? {
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

/// The element count and type of a fixed-width vector operand (P-VEC);
/// scalable vectors are not modelled.
fn vector_shape<'t>(cx: &Ctx, loc: Loc, ty: &'t Type) -> R<(usize, &'t Type)> {
    super::vector::shape(ty).ok_or_else(|| unsupported(cx.prog, loc, "scalable vector"))
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
    // The frame's fields, not a copy of the frame: a copy would share the
    // frame's maps, and the inserts below would then copy their nodes.
    let fr = th.frames.back().expect("frame");
    let (func, ctx) = (fr.func, fr.ctx);
    let f = cx.prog.func(func);
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
            func,
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
    let info = cx.prog.info(func);
    let h = m.hierarchy[func];
    let last_header = &th.frames.back().expect("frame").last_header;
    let parent = info.headers[h][b.0]
        .iter()
        .filter_map(|hb| last_header.get(hb))
        .max_by_key(|(seq, _)| *seq)
        .map(|(_, k)| *k)
        .unwrap_or(ctx);
    let key = m.keys.intern(KeyNode::Block {
        func,
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
        func,
        block: b,
        key,
    });
    Ok(())
}
