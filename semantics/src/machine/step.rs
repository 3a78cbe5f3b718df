//! Single-thread step rules (P-THREAD), one function per instruction kind,
//! and the convergence rules that give each dynamic instance its key
//! (D-CTRL, D-LOOP, D-ENTRY-LAUNCH, D-ENTRY-CALL, D-MAX-ITER).

use crate::ir::{
    BinOp, Call, CastOp, Const, ICmpPred, Inst, InstKind, Operand, TermKind, Type, TypedOperand,
    ValueId,
};

use super::chooser::Chooser;
use super::program::{classify, is_convergent_call, CalleeKind, Program};
use super::state::{
    CallEvent, Frame, KeyId, KeyNode, Loc, Machine, Observation, Pending, Status, ThreadEnd,
    ThreadState, Visit,
};
use super::value::{binary, icmp, int, mask, signed, Arith, Val};
use super::{AnchorMode, Environment, Options, RunError};

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
enum Flow {
    /// Continue with the next instruction.
    Next,
    /// Control moved (branch, call, return); the frame is already updated.
    Jumped,
    /// The thread blocked or ended.
    Paused,
}

type R<T> = Result<T, Stop>;

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

fn unsupported(prog: &Program, loc: Loc, construct: &str) -> Stop {
    Stop::Error(RunError::Unsupported {
        construct: construct.to_string(),
        at: loc_text(prog, loc),
    })
}

/// Runs thread `t` until it blocks at a convergent operation or ends.
pub fn run_thread(m: &mut Machine, t: usize, cx: &mut Ctx) -> R<()> {
    let mut th = m.threads[t].clone();
    let r = run_loop(m, &mut th, cx);
    m.threads[t] = th;
    r
}

fn run_loop(m: &mut Machine, th: &mut ThreadState, cx: &mut Ctx) -> R<()> {
    while matches!(th.status, Status::Running) {
        th.steps += 1;
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

fn ub(th: &mut ThreadState, loc: Loc, why: impl Into<String>) -> Flow {
    th.status = Status::Done(ThreadEnd::Ub {
        loc,
        why: why.into(),
    });
    Flow::Paused
}

fn set(th: &mut ThreadState, v: Option<ValueId>, val: Val) {
    if let Some(v) = v {
        th.frames.back_mut().expect("frame").values.insert(v, val);
    }
}

/// Evaluates an operand of type `ty` in the innermost frame.
fn eval(m: &Machine, th: &ThreadState, cx: &Ctx, loc: Loc, ty: &Type, op: &Operand) -> R<Val> {
    match op {
        Operand::Local(v) => Ok(th
            .frames
            .back()
            .expect("frame")
            .values
            .get(v)
            .copied()
            .unwrap_or(Val::Poison)),
        Operand::Const(c) => const_val(m, cx, loc, ty, c),
        Operand::Metadata(_) => Err(unsupported(cx.prog, loc, "metadata operand")),
    }
}

fn const_val(_m: &Machine, cx: &Ctx, loc: Loc, ty: &Type, c: &Const) -> R<Val> {
    match (c, ty) {
        (Const::Int { value, .. }, Type::Int(bits)) => Ok(int(*bits, *value)),
        (Const::Null, _) => Ok(Val::Ptr { obj: 0, off: 0 }),
        (Const::Poison | Const::Undef, _) => Ok(Val::Poison),
        (Const::ZeroInit, Type::Int(bits)) => Ok(int(*bits, 0)),
        (Const::ZeroInit, Type::Ptr(_)) => Ok(Val::Ptr { obj: 0, off: 0 }),
        (Const::Global(name), _) => match cx.prog.globals.get(name) {
            Some(obj) => Ok(Val::Ptr { obj: *obj, off: 0 }),
            None => Err(unsupported(cx.prog, loc, "function pointer")),
        },
        _ => Err(unsupported(cx.prog, loc, "constant of this type")),
    }
}

fn eval_t(m: &Machine, th: &ThreadState, cx: &Ctx, loc: Loc, op: &TypedOperand) -> R<Val> {
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
        Type::Ptr(_) => {
            let obj = m.next_object;
            m.next_object += 1;
            m.input_objects.insert(obj);
            Val::Ptr { obj, off: 0 }
        }
        _ => Val::Void,
    }
}

fn bits_of(cx: &Ctx, loc: Loc, ty: &Type) -> R<u32> {
    ty.int_bits()
        .ok_or_else(|| unsupported(cx.prog, loc, "non-integer arithmetic"))
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
                    Arith::Ub("division by poison")
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
                (Val::Ptr { obj: o1, off: f1 }, Val::Ptr { obj: o2, off: f2 }) => match pred {
                    ICmpPred::Eq => int(1, ((o1, f1) == (o2, f2)) as i128),
                    ICmpPred::Ne => int(1, ((o1, f1) != (o2, f2)) as i128),
                    _ => return Err(unsupported(cx.prog, loc, "ordered pointer comparison")),
                },
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
            let r = cast(cx, loc, *op, flags, &from.ty, to, v)?;
            set(th, res, r);
        }
        InstKind::Phi { .. } => {
            // Phis are evaluated on block entry (see `enter_block`).
        }
        InstKind::Call(call) => return exec_call(m, th, cx, loc, res, call),
        InstKind::Alloca { .. } => {
            let obj = m.next_object;
            m.next_object += 1;
            m.private_objects.insert(obj);
            set(th, res, Val::Ptr { obj, off: 0 });
        }
        InstKind::Load { ty, ptr, .. } => {
            let p = eval_t(m, th, cx, loc, ptr)?;
            match load(m, cx, loc, ty, p)? {
                Ok(v) => set(th, res, v),
                Err(why) => return Ok(ub(th, loc, why)),
            }
        }
        InstKind::Store { value, ptr, .. } => {
            let v = eval_t(m, th, cx, loc, value)?;
            let p = eval_t(m, th, cx, loc, ptr)?;
            if let Err(why) = store(m, th, p, v) {
                return Ok(ub(th, loc, why));
            }
        }
        InstKind::AtomicRmw { op, ptr, value, .. } => {
            let p = eval_t(m, th, cx, loc, ptr)?;
            let x = eval_t(m, th, cx, loc, value)?;
            let old = match load(m, cx, loc, &value.ty, p)? {
                Ok(v) => v,
                Err(why) => return Ok(ub(th, loc, why)),
            };
            let new = rmw(cx, loc, *op, old, x)?;
            if let Err(why) = store(m, th, p, new) {
                return Ok(ub(th, loc, why));
            }
            set(th, res, old);
        }
        InstKind::Gep {
            source_ty,
            base,
            indices,
            ..
        } => {
            let p = eval_t(m, th, cx, loc, base)?;
            let mut off: i64 = 0;
            let mut ty = source_ty.clone();
            let mut poison = false;
            for (k, idx) in indices.iter().enumerate() {
                let i = match eval_t(m, th, cx, loc, idx)? {
                    Val::Int { bits, v } => signed(bits, v) as i64,
                    _ => {
                        poison = true;
                        0
                    }
                };
                if k == 0 {
                    off += i * size_of(cx, loc, &ty)?;
                } else {
                    match ty.clone() {
                        Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                            off += i * size_of(cx, loc, &elem)?;
                            ty = *elem;
                        }
                        Type::Struct { fields, .. } => {
                            let i = usize::try_from(i)
                                .map_err(|_| unsupported(cx.prog, loc, "negative struct index"))?;
                            for f in fields.iter().take(i) {
                                off += size_of(cx, loc, f)?;
                            }
                            ty = fields
                                .get(i)
                                .cloned()
                                .ok_or_else(|| unsupported(cx.prog, loc, "struct index"))?;
                        }
                        _ => return Err(unsupported(cx.prog, loc, "getelementptr into this type")),
                    }
                }
            }
            let v = match p {
                Val::Ptr { obj, off: o } if !poison => Val::Ptr { obj, off: o + off },
                _ => Val::Poison,
            };
            set(th, res, v);
        }
        other => {
            let name = format!("{other:?}");
            let name = name.split([' ', '{', '(']).next().unwrap_or("instruction");
            return Err(unsupported(cx.prog, loc, name));
        }
    }
    Ok(Flow::Next)
}

/// Allocation size of a type (naturally aligned scalars, unpadded
/// aggregates: enough for the simple memory of P-PROG).
fn size_of(cx: &Ctx, loc: Loc, ty: &Type) -> R<i64> {
    Ok(match ty {
        Type::Int(bits) => ((*bits as u64).div_ceil(8).max(1).next_power_of_two()) as i64,
        Type::Ptr(_) => 8,
        Type::Array { len, elem } => *len as i64 * size_of(cx, loc, elem)?,
        Type::Struct { fields, .. } => {
            let mut s = 0;
            for f in fields {
                s += size_of(cx, loc, f)?;
            }
            s
        }
        Type::Named(n) => match cx.prog.module.types.iter().find(|t| &t.name == n) {
            Some(crate::ir::TypeDef { ty: Some(t), .. }) => size_of(cx, loc, t)?,
            _ => return Err(unsupported(cx.prog, loc, "opaque type in getelementptr")),
        },
        _ => return Err(unsupported(cx.prog, loc, "getelementptr over this type")),
    })
}

fn cast(
    cx: &Ctx,
    loc: Loc,
    op: CastOp,
    flags: &[String],
    from: &Type,
    to: &Type,
    v: Val,
) -> R<Val> {
    let has = |f: &str| flags.iter().any(|x| x == f);
    let Val::Int { bits: fb, v: x } = v else {
        return match (op, v) {
            (_, Val::Poison) => Ok(Val::Poison),
            (CastOp::BitCast | CastOp::AddrSpaceCast, v) => Ok(v),
            _ => Err(unsupported(cx.prog, loc, "pointer cast")),
        };
    };
    let tb = bits_of(cx, loc, to)?;
    let _ = from;
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
        _ => return Err(unsupported(cx.prog, loc, "floating-point or pointer cast")),
    })
}

fn rmw(cx: &Ctx, loc: Loc, op: crate::ir::RmwOp, old: Val, x: Val) -> R<Val> {
    use crate::ir::RmwOp;
    let (Val::Int { bits, v: a }, Val::Int { v: b, .. }) = (old, x) else {
        return Ok(if op == RmwOp::Xchg { x } else { Val::Poison });
    };
    let (sa, sb) = (signed(bits, a), signed(bits, b));
    let r = match op {
        RmwOp::Xchg => b,
        RmwOp::Add => a.wrapping_add(b),
        RmwOp::Sub => a.wrapping_sub(b),
        RmwOp::And => a & b,
        RmwOp::Nand => !(a & b),
        RmwOp::Or => a | b,
        RmwOp::Xor => a ^ b,
        RmwOp::Max => sa.max(sb) as u128,
        RmwOp::Min => sa.min(sb) as u128,
        RmwOp::UMax => a.max(b),
        RmwOp::UMin => a.min(b),
        _ => return Err(unsupported(cx.prog, loc, "atomicrmw operation")),
    };
    Ok(Val::Int {
        bits,
        v: r & mask(bits),
    })
}

/// Reads memory; `Ok(Err(why))` is undefined behaviour.
fn load(m: &mut Machine, cx: &mut Ctx, loc: Loc, ty: &Type, p: Val) -> R<Result<Val, String>> {
    let Val::Ptr { obj, off } = p else {
        return Ok(Err("load through a poison or non-pointer value".into()));
    };
    if obj == 0 {
        return Ok(Err("load through null".into()));
    }
    if let Some(v) = m.memory.get(&(obj, off)).copied() {
        let fits = match (v, ty) {
            (Val::Int { bits, .. }, Type::Int(b)) => bits == *b,
            (Val::Ptr { .. }, Type::Ptr(_)) | (Val::Poison, _) => true,
            _ => false,
        };
        if !fits {
            return Err(unsupported(cx.prog, loc, "mixed-type memory access"));
        }
        return Ok(Ok(v));
    }
    if m.input_objects.contains(&obj) {
        let v = choose_value(m, cx.chooser, cx.opts, ty);
        m.memory.insert((obj, off), v);
        return Ok(Ok(v));
    }
    Ok(Ok(Val::Poison))
}

fn store(m: &mut Machine, th: &mut ThreadState, p: Val, v: Val) -> Result<(), String> {
    let Val::Ptr { obj, off } = p else {
        return Err("store through a poison or non-pointer value".into());
    };
    if obj == 0 {
        return Err("store through null".into());
    }
    m.memory.insert((obj, off), v);
    if !m.private_objects.contains(&obj) {
        th.observations
            .push_back(Observation::Store { obj, off, value: v });
    }
    Ok(())
}

/// D-MAX-ITER: the key of an instance of `loc` that is not controlled by a
/// token: derived from the key of the enclosing block visit.
fn max_key(m: &mut Machine, th: &ThreadState, loc: Loc) -> KeyId {
    let parent = th.frames.back().expect("frame").block_key;
    m.keys.intern(KeyNode::Inst { loc, parent, n: 0 })
}

/// The token operand of a controlled call (C-CTRL), if any.
fn token_of(m: &Machine, th: &ThreadState, cx: &Ctx, loc: Loc, call: &Call) -> R<Option<KeyId>> {
    let Some(b) = call.convergence_bundles().next() else {
        return Ok(None);
    };
    let ill = |message: &str| {
        Stop::Error(RunError::IllFormed {
            rule: "S-TOKEN",
            at: loc_text(cx.prog, loc),
            message: message.to_string(),
        })
    };
    let op = b
        .inputs
        .first()
        .ok_or_else(|| ill("empty convergencectrl bundle"))?;
    match eval_t(m, th, cx, loc, op)? {
        Val::Token(k) => Ok(Some(k)),
        _ => Err(ill(
            "convergencectrl operand is not a token from a control intrinsic",
        )),
    }
}

/// A call. Every convergent call is a scheduling point (M-OPER): the
/// thread computes the instance key, records the event and waits; the
/// scheduler fires the whole communicating set at once, so the order in
/// which sets fire is a linear extension of convergence-before (D-ORDER
/// holds by construction) and a thread arriving at a fired instance is
/// detected (the schedule is pruned). After the set fired, the thread
/// re-executes the call with [`ThreadState::resume`] set and completes it.
fn exec_call(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &mut Ctx,
    loc: Loc,
    res: Option<ValueId>,
    call: &Call,
) -> R<Flow> {
    let module = cx.prog.module;
    let kind = classify(module, call);
    let mut args = Vec::with_capacity(call.args.len());
    for a in &call.args {
        args.push(match &a.value {
            Operand::Metadata(_) => Val::Void,
            v => eval(m, th, cx, loc, &a.ty, v)?,
        });
    }
    let convergent = is_convergent_call(module, call);
    let ret_ty = match &call.ty {
        Type::Func { ret, .. } => (**ret).clone(),
        t => t.clone(),
    };
    let name = call.callee_name().unwrap_or("<indirect>").to_string();
    let resumed = th.resume.take().filter(|r| r.loc == loc);
    let (key, set_value) = match resumed {
        Some(r) => {
            if let Some(e) = th.events.get_mut(r.event) {
                e.result = Some(match (&kind, r.value) {
                    (_, Some(v)) => v,
                    (CalleeKind::Entry | CalleeKind::Loop | CalleeKind::Anchor, None) => {
                        Val::Token(r.key)
                    }
                    _ => Val::Void,
                });
            }
            (r.key, r.value)
        }
        None => {
            let key = instance_key(m, th, cx, loc, call, &kind)?;
            if convergent
                || matches!(
                    kind,
                    CalleeKind::Entry | CalleeKind::Loop | CalleeKind::Anchor
                )
            {
                let anchor_all = kind == CalleeKind::Anchor && cx.opts.anchor == AnchorMode::All;
                // D-INST first: a thread meeting its own fired instance again
                // is a contradiction of the rules, not an impossible schedule.
                if !anchor_all && th.used_keys.contains(&key) {
                    record_event(th, loc, &name, key, args.clone(), None)?;
                }
                if !anchor_all && m.fired.contains(&key) {
                    th.status = Status::Killed;
                    return Ok(Flow::Paused);
                }
                let event = th.events.len();
                if anchor_all {
                    // D-ANCHOR `all`: the scheduler chooses set and identity.
                    th.events.push_back(CallEvent {
                        loc,
                        callee: name,
                        pos: th.trace.len() - 1,
                        key,
                        args: args.clone(),
                        result: None,
                    });
                } else {
                    record_event(th, loc, &name, key, args.clone(), None)?;
                }
                th.status = Status::Waiting(Pending {
                    loc,
                    key: (!anchor_all).then_some(key),
                    args,
                    event,
                });
                return Ok(Flow::Paused);
            }
            (key, None)
        }
    };
    let value = match kind {
        CalleeKind::Entry | CalleeKind::Loop | CalleeKind::Anchor => Val::Token(key),
        k if k.needs_set() && ret_ty != Type::Void => {
            set_value.expect("M-OPER: a fired set gives every member a result")
        }
        CalleeKind::Defined(g) => {
            let callee = cx.prog.func(g);
            let mut values = im::HashMap::new();
            for (p, a) in callee.params.iter().zip(args) {
                if let Some(v) = p.value {
                    values.insert(v, a);
                }
            }
            th.frames.back_mut().expect("frame").index += 1;
            // D-ENTRY-CALL / D-MAX in a callee: the context is the key of
            // the call-site instance.
            th.frames.push_back(Frame {
                func: g,
                block: crate::ir::BlockId(0),
                index: 0,
                values,
                ctx: key,
                block_key: key,
                last_header: im::HashMap::new(),
                ret_to: res,
            });
            enter_block(m, th, cx, None)?;
            return Ok(Flow::Jumped);
        }
        CalleeKind::ThreadId => match ret_ty {
            Type::Int(bits) => int(bits, th.tid as i128),
            _ => return Err(unsupported(cx.prog, loc, "thread id of non-integer type")),
        },
        CalleeKind::UnknownPure => {
            let memo = format!("pure:{name}:{args:?}:{}", th.tid);
            match m.memo.get(&memo) {
                Some(v) => *v,
                None => {
                    let v = choose_value(m, cx.chooser, cx.opts, &ret_ty);
                    m.memo.insert(memo, v);
                    v
                }
            }
        }
        CalleeKind::PureIntrinsic(which) => pure_intrinsic(cx, loc, &which, &args)?,
        CalleeKind::Ignored => Val::Void,
        _ if convergent => Val::Void,
        _ => {
            // P-INPUT: the thread's input stream; the call is observable.
            let v = choose_value(m, cx.chooser, cx.opts, &ret_ty);
            th.observations.push_back(Observation::Call {
                callee: name,
                args,
                result: v,
            });
            v
        }
    };
    set(th, res, value);
    Ok(Flow::Next)
}

/// The key of this call's dynamic instance, by rule.
fn instance_key(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &Ctx,
    loc: Loc,
    call: &Call,
    kind: &CalleeKind,
) -> R<KeyId> {
    let token = token_of(m, th, cx, loc, call)?;
    Ok(match kind {
        // D-ENTRY-LAUNCH for the kernel's own frame, D-ENTRY-CALL inside a
        // callee (its context is the call-site instance key).
        CalleeKind::Entry => {
            let parent = if th.frames.len() == 1 {
                match cx.opts.environment {
                    Environment::OpenCl => m.keys.intern(KeyNode::Group(th.group)),
                    Environment::Cxx => m.keys.intern(KeyNode::Thread(th.tid)),
                }
            } else {
                th.frames.back().expect("frame").ctx
            };
            m.keys.intern(KeyNode::Inst { loc, parent, n: 0 })
        }
        // D-LOOP: converged iff the tokens come from converged instances and
        // this is the n-th execution with that token value.
        CalleeKind::Loop => {
            let Some(t) = token else {
                return Err(Stop::Error(RunError::IllFormed {
                    rule: "S-LOOP-BUNDLE",
                    at: loc_text(cx.prog, loc),
                    message: "loop intrinsic without a convergencectrl bundle".into(),
                }));
            };
            let n = th.loop_counts.get(&(loc, t)).copied().unwrap_or(0);
            th.loop_counts.insert((loc, t), n + 1);
            m.keys.intern(KeyNode::Inst { loc, parent: t, n })
        }
        // D-ANCHOR `maximal`: the maximally converged threads (D-MAX-ITER);
        // in mode `all` this key is a placeholder the scheduler replaces.
        CalleeKind::Anchor => max_key(m, th, loc),
        // D-CTRL for controlled calls, D-MAX-ITER for the others.
        _ => match token {
            Some(t) => m.keys.intern(KeyNode::Inst {
                loc,
                parent: t,
                n: 0,
            }),
            None => max_key(m, th, loc),
        },
    })
}

fn pure_intrinsic(cx: &Ctx, loc: Loc, which: &str, args: &[Val]) -> R<Val> {
    let ints: Option<Vec<(u32, u128)>> = args
        .iter()
        .map(|a| match a {
            Val::Int { bits, v } => Some((*bits, *v)),
            _ => None,
        })
        .collect();
    let Some(ints) = ints else {
        return Ok(Val::Poison);
    };
    let (bits, a) = *ints
        .first()
        .ok_or_else(|| unsupported(cx.prog, loc, "intrinsic without arguments"))?;
    let b = ints.get(1).map(|x| x.1).unwrap_or(0);
    let (sa, sb) = (signed(bits, a), signed(bits, b));
    let v = match which {
        "llvm.ctpop" => a.count_ones() as u128,
        "llvm.umin" => a.min(b),
        "llvm.umax" => a.max(b),
        "llvm.smin" => sa.min(sb) as u128,
        "llvm.smax" => sa.max(sb) as u128,
        _ => return Err(unsupported(cx.prog, loc, which)),
    };
    Ok(Val::Int {
        bits,
        v: v & mask(bits),
    })
}

/// Records a convergent call; D-INST: a thread never has two converged
/// instances, so a repeated key is a contradiction of the rules (CL-07).
fn record_event(
    th: &mut ThreadState,
    loc: Loc,
    callee: &str,
    key: KeyId,
    args: Vec<Val>,
    result: Option<Val>,
) -> R<()> {
    if th.used_keys.contains(&key) {
        return Err(Stop::Contradiction {
            rule: "D-INST",
            detail: format!(
                "thread {} executes {callee} twice with the same dynamic-instance key: the rules make two of its instances converged (I1 == I2)",
                th.tid
            ),
        });
    }
    th.used_keys.insert(key);
    th.events.push_back(CallEvent {
        loc,
        callee: callee.to_string(),
        pos: th.trace.len().saturating_sub(1),
        key,
        args,
        result,
    });
    Ok(())
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
            _ => return Ok(ub(th, loc, "branch on poison")),
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
            _ => return Ok(ub(th, loc, "switch on poison")),
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
        TermKind::Unreachable => return Ok(ub(th, loc, "reached unreachable")),
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
