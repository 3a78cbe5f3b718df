//! Call steps (P-INPUT, C-CONV, C-INTR) and the convergence rules that
//! give each convergent call's dynamic instance its key (D-CTRL, D-LOOP,
//! D-ENTRY-LAUNCH, D-ENTRY-CALL, D-ANCHOR, D-MAX-ITER).

use crate::intrinsics::Op;
use crate::ir::{Call, Operand, Type, ValueId};

use super::collective::per_thread;
use super::program::CalleeKind;
use super::state::{
    CallEvent, Frame, KeyId, KeyNode, Loc, Machine, Observation, Pending, Status, ThreadState,
};
use super::step::{enter_block, eval, eval_t, loc_text, set, unsupported, Ctx, Flow, Stop, R};
use super::value::Val;
use super::{AnchorMode, Environment, RunError};

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
pub(super) fn exec_call(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &mut Ctx,
    loc: Loc,
    res: Option<ValueId>,
    call: &Call,
) -> R<Flow> {
    let facts = cx.prog.call(loc, call);
    let kind = facts.kind;
    let mut args = Vec::with_capacity(call.args.len() + 1);
    // P-INPUT / C-OPS (issue 12 item 6): an indirect call is a call of an
    // unknown function (`classify`) with the callee pointer as its first
    // argument, so it is observed and enters the uninterpreted function
    // like any argument (the SMT encoding's `encode::calls` does the same).
    if call.callee_name().is_none() {
        let ty = Type::Ptr(0);
        args.push(eval(m, th, cx, loc, &ty, &call.callee)?);
    }
    for a in &call.args {
        args.push(match &a.value {
            Operand::Metadata(_) => Val::Void,
            v => eval(m, th, cx, loc, &a.ty, v)?,
        });
    }
    // R-CALL-PTR: an unknown function receives a pointer as its address
    // (P-MEM-PTR's `ptrtoint` at 64 bits): it enters the uninterpreted
    // function and the observation as that integer (the SMT encoding's
    // `encode::calls` does the same). What the function does with memory
    // is not modelled.
    if matches!(
        kind,
        CalleeKind::UnknownConvergent
            | CalleeKind::UnknownPure
            | CalleeKind::UnknownUniform
            | CalleeKind::UnknownStream
    ) {
        for a in &mut args {
            if let Val::Ptr { obj, off } = *a {
                *a = Val::Int {
                    bits: 64,
                    v: u128::from(super::memory::address(obj, off)),
                };
            }
        }
    }
    // P-ASSUME (LangRef `llvm.assume`): a false or poison condition is UB;
    // a true one has no effect.
    if kind == CalleeKind::Ignored
        && call.callee_name() == Some("llvm.assume")
        && matches!(args.first(), Some(Val::Poison | Val::Int { v: 0, .. }))
    {
        th.status = Status::Done(super::state::ThreadEnd::Ub {
            loc,
            why: super::value::UbKind::AssumeFalse,
        });
        return Ok(Flow::Paused);
    }
    if let CalleeKind::Builtin(op) = kind {
        check_arity(cx, loc, call, op)?;
        let width = cx.opts.geometry().max_subgroup();
        if let Some(what) = super::lanes::unsupported(op, &args, width) {
            return Err(unsupported(cx.prog, loc, &what));
        }
    }
    // The AMDGPU control-flow intrinsics are not `convergent` in LLVM 22
    // (C-CONV), but what they compute is exec-mask bookkeeping over the
    // threads that execute them together (C-OPS): they wait for their
    // (maximally converged, D-MAX-ITER) set like a convergent call.
    // D-CALL-NC: a call site's `convergent` or bundle on a call of a
    // non-convergent function does not make it wait for a set.
    let convergent = facts.convergent || kind.needs_set();
    let ret_ty = match &call.ty {
        Type::Func(f) => f.ret.clone(),
        t => t.clone(),
    };
    let name = call.callee_name().unwrap_or("<indirect>").to_string();
    let resumed = th.resume.take().filter(|r| r.loc == loc);
    let (key, set_value) = match resumed {
        Some(r) => {
            if let Some(e) = th.events.get_mut(r.event) {
                e.result = Some(match (&kind, r.value.clone()) {
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
                if !anchor_all && th.used_keys.contains_key(&key) {
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
            let mut values = super::state::Values::new();
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
                last_header: super::state::VecMap::new(),
                ret_to: res,
            });
            enter_block(m, th, cx, None)?;
            return Ok(Flow::Jumped);
        }
        CalleeKind::UnknownPure => uninterpreted(m, cx, &name, &args, Some(th.tid), &ret_ty),
        CalleeKind::Builtin(op) if !op.needs_set() && ret_ty != Type::Void => {
            per_thread(&cx.opts.geometry(), th.tid, op, &args, ret_ty.int_bits())
                .map_err(|what| unsupported(cx.prog, loc, &what))?
        }
        CalleeKind::UnknownUniform => uninterpreted(m, cx, &name, &args, None, &ret_ty),
        CalleeKind::Ignored => Val::Void,
        _ if convergent => Val::Void,
        _ => {
            // P-INPUT: the thread's input stream; the call is observable.
            // R-STREAM-SMT: a launch that gives the thread's stream (the
            // replay of a counterexample, the agreement test) pins the
            // k-th result, k the number of stream calls with a result the
            // thread made before; otherwise the result is drawn (every
            // stream the domain allows).
            let v = match pinned_stream(th, cx, &ret_ty) {
                Some(v) => v,
                None => choose_result(m, cx, &name, &ret_ty),
            };
            th.observations.push_back(Observation::Call {
                callee: name,
                args,
                result: v.clone(),
            });
            v
        }
    };
    set(th, res, value);
    Ok(Flow::Next)
}

/// P-INPUT: the value of an uninterpreted function `callee` at `args`
/// (and at thread `tid` when the function may depend on it): chosen once
/// per execution, then the same at every call with that key.
fn uninterpreted(
    m: &mut Machine,
    cx: &mut Ctx,
    callee: &str,
    args: &[Val],
    tid: Option<u32>,
    ret_ty: &Type,
) -> Val {
    let key = super::state::MemoKey {
        callee: callee.to_string(),
        args: args.to_vec(),
        tid,
    };
    if let Some(v) = m.memo.get(&key) {
        return v.clone();
    }
    // M-DATA drawn results: a fresh symbol instead of a choice.
    let v = if cx.prog.data.draws.contains(callee) {
        super::data::draw(false, &key, ret_ty)
    } else {
        choose_result(m, cx, callee, ret_ty)
    };
    m.memo.insert(key, v.clone());
    v
}

/// R-STREAM-SMT: the launch's given value of this thread's next stream
/// read, when the launch gives one (`Options::streams`) and the result is
/// an integer: the value at the position of the number of stream results
/// the thread read before (its observed calls with a result), truncated
/// to the result's width.
fn pinned_stream(th: &ThreadState, cx: &Ctx, ret_ty: &Type) -> Option<Val> {
    let Type::Int(bits) = ret_ty else {
        return None;
    };
    let row = cx.opts.streams.get(th.tid as usize)?;
    let k = th
        .observations
        .iter()
        .filter(|o| matches!(o, Observation::Call { result, .. } if *result != Val::Void))
        .count();
    let x = *row.get(k)?;
    Some(Val::Int {
        bits: *bits,
        v: (x as u128) & super::value::mask(*bits),
    })
}

/// P-INPUT: a drawn result of unknown function `callee`, restricted to
/// orbit representatives when its results are renamed (M-RENAME,
/// [`super::orbit::choose_result`]).
fn choose_result(m: &mut Machine, cx: &mut Ctx, callee: &str, ret_ty: &Type) -> Val {
    super::orbit::choose_result(m, cx.chooser, cx.opts, &cx.prog.renaming, callee, ret_ty)
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

/// C-OPS: a builtin called with fewer operands than its row reads is an
/// ill-formed call, reported with the callee's name (never a panic).
fn check_arity(cx: &Ctx, loc: Loc, call: &Call, op: Op) -> R<()> {
    match op.max_arg() {
        Some(k) if k as usize >= call.args.len() => Err(Stop::Error(RunError::IllFormed {
            rule: "C-OPS",
            at: loc_text(cx.prog, loc),
            message: format!(
                "@{} called with {} argument(s); the builtin reads argument {}",
                call.callee_name().unwrap_or("<indirect>"),
                call.args.len(),
                k + 1
            ),
        })),
        _ => Ok(()),
    }
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
    if th.used_keys.contains_key(&key) {
        return Err(Stop::Contradiction {
            rule: "D-INST",
            detail: format!(
                "thread {} executes {callee} twice with the same dynamic-instance key: the rules make two of its instances converged (I1 == I2)",
                th.tid
            ),
        });
    }
    th.used_keys.insert(key, ());
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
