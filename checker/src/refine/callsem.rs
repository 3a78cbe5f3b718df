//! What a call means in the refinement encoding (C-CONV, C-CTRL, C-INTR,
//! C-OPS, P-INPUT, R-CALL-IND, R-CALL-NODUP, R-CALL-PTR), read from the
//! one intrinsic table (`semantics::intrinsics`) and the declarations, and
//! written independently of the interpreter's `machine::program::classify`
//! on purpose (M-AXIOM; M-AGREE compares the two). Split from `prog`,
//! which prepares a kernel with these meanings.

use semantics::intrinsics::{self, Ctrl, Dim, Index, Op};
use semantics::ir::{Attr, Call, Module, Type, ValueId};

use super::prog::{float_ok, int_ok, type_name};

/// What a call does in the encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallSem {
    /// C-INTR `entry` (D-ENTRY-LAUNCH: one launch group, all converged).
    Entry,
    /// C-INTR `anchor` (D-ANCHOR: nondeterministic, constrained by D-ORDER).
    Anchor,
    /// C-INTR `loop` (D-LOOP).
    Loop,
    /// P-LAUNCH thread id.
    Tid,
    /// P-LAUNCH: another thread-geometry read (sizes, group and subgroup
    /// ids) of dimension `dim`, determined by the launch: one group and
    /// one subgroup of N threads, 1-D (`intrinsics::Geometry::index`).
    Geometry { what: Index, dim: u32 },
    /// C-OPS: an operation of the intrinsic table over the communicating
    /// set, with the table's operand positions (the interpreter's
    /// `machine::collective` reads the same row): a ballot, vote,
    /// first-lane read, shuffle, subgroup reduction, match or active mask
    /// ([`set_op_encoded`] lists which). `oob_ub`: a shuffle reading a lane
    /// outside the set is UB (`"convcheck-out-of-range"="ub"` or
    /// `--shuffle-oob ub`), else poison.
    Set { op: Op, oob_ub: bool },
    /// P-THREAD: a per-thread operation of the intrinsic table that reads
    /// the thread's lane (`llvm.amdgcn.mbcnt.{lo,hi}`, `inverse.ballot`),
    /// computed as the interpreter's `machine::collective::per_thread`
    /// with the lane the thread index (R-LANE-SMT).
    Lane(Op),
    /// C-OPS: an unknown convergent function, uninterpreted function of the
    /// communicating set; `effect`: it may have side effects (R-OBS event).
    UnknownConv { effect: bool },
    /// P-INPUT: unknown `readnone` function, uninterpreted of (args, tid);
    /// also a vector-register read (`llvm.read_register`).
    Pure,
    /// P-INPUT: a value of the environment that is the same in every
    /// thread (a scalar-register read, `llvm.read_register`): uninterpreted
    /// function of the arguments alone.
    UniformInput,
    /// P-INPUT / R-OBS: any other unknown function; an observable event.
    Stream,
    /// No semantic effect (`llvm.assume`, lifetime, debug).
    Ignored,
    /// P-FLOAT / R-FLOAT-SMT: a float intrinsic the interpreter computes
    /// (`semantics::machine::float::intrinsic`), by base name (`fabs`,
    /// `fma`, `minnum`, `floor`, ...).
    FloatIntrinsic(String),
    /// P-THREAD: a pure integer intrinsic of the one table (`llvm.ctpop`,
    /// min/max, cttz/ctlz, abs, bit and byte reversal, funnel shifts,
    /// saturating add/sub), as the interpreter's.
    PureIntrinsic(intrinsics::PureOp),
    /// P-VEC-REDUCE / R-VEC-SMT: `llvm.vector.reduce.*`, as the
    /// interpreter's `machine::vector::reduce`.
    VectorReduce(semantics::machine::vector::Reduce),
    /// P-MEM-ACCESS / R-MEM-SMT: `llvm.memcpy`, `llvm.memmove`,
    /// `llvm.memset` and their `.inline` forms, a byte loop of the thread
    /// whatever the declaration says (the interpreter's
    /// `machine::access::mem_intrinsic`, which runs before any call rule,
    /// so a `convergent` declaration makes no instance).
    MemIntrinsic(MemOp),
}

/// Which memory intrinsic (P-MEM-ACCESS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOp {
    /// `llvm.memcpy` (overlapping ranges are UB).
    Copy,
    /// `llvm.memmove`.
    Move,
    /// `llvm.memset`.
    Set,
}

/// P-MEM-ACCESS: the memory intrinsic `callee` names, as the interpreter's
/// `machine::access::is_mem_intrinsic` recognises it; `Err` for the forms
/// the encoding does not express (the element-wise atomic copies and
/// `llvm.memset.pattern`, whose operands are not those of the byte loop).
pub fn mem_op(callee: &str) -> Option<Result<MemOp, String>> {
    if !semantics::machine::access::is_mem_intrinsic(callee) {
        return None;
    }
    if callee.contains(".element.") || callee.starts_with("llvm.memset.pattern") {
        return Some(Err(format!(
            "intrinsic @{callee} (element-wise atomic and pattern forms are not encoded)"
        )));
    }
    Some(Ok(if callee.starts_with("llvm.memcpy.") {
        MemOp::Copy
    } else if callee.starts_with("llvm.memmove.") {
        MemOp::Move
    } else {
        MemOp::Set
    }))
}

/// A call as the encoding sees it.
#[derive(Clone, Debug)]
pub struct CallInfo {
    pub sem: CallSem,
    /// C-CONV.
    pub convergent: bool,
    /// C-CTRL: the token of the `"convergencectrl"` bundle.
    pub token: Option<ValueId>,
    /// Callee name without `@`.
    pub callee: String,
}

fn is_readnone(m: &Module, attrs: &[Attr]) -> bool {
    m.expand_attrs(attrs).iter().any(|a| match a {
        Attr::Word(w) => w == "readnone",
        Attr::Paren { name, args } => name == "memory" && args.trim() == "none",
        _ => false,
    })
}

fn str_attr<'a>(m: &'a Module, attrs: &'a [Attr], key: &str) -> Option<&'a str> {
    m.expand_attrs(attrs).into_iter().find_map(|a| match a {
        Attr::Str { key: k, value } if k == key => value.as_deref(),
        _ => None,
    })
}

/// C-CONV, C-CTRL, C-INTR, C-OPS, P-INPUT for one call site. A shuffle
/// whose declaration has no `"convcheck-out-of-range"` attribute is UB out
/// of range iff `oob_ub` (`--shuffle-oob`; default poison, C-OPS).
pub fn classify_call(m: &Module, call: &Call, oob_ub: bool) -> Result<CallInfo, String> {
    let Some(callee) = call.callee_name().map(str::to_string) else {
        return Ok(indirect_call(m, call));
    };
    let decl = m.function(&callee);
    if decl.is_some_and(|f| f.has_body()) {
        return Err(format!("call of defined function @{callee}"));
    }
    let decl_attrs: &[Attr] = decl.map(|f| f.fn_attrs.as_slice()).unwrap_or(&[]);
    let token = call
        .convergence_bundles()
        .next()
        .and_then(|b| b.inputs.first())
        .and_then(|op| op.value.as_local());
    // D-CALL-NC: a direct call of a declared function is convergent in
    // the dynamic semantics exactly when the function is (its attribute,
    // or the table's row below); the call site's `convergent` and bundle
    // count only for a name the module does not declare (and for indirect
    // calls, R-CALL-IND). The interpreter's counterpart is
    // `machine::program::is_dynamically_convergent_call`.
    let site_conv = decl.is_none() && (m.has_attr(&call.fn_attrs, "convergent") || token.is_some());
    let conv_attr = m.has_attr(decl_attrs, "convergent") || site_conv;
    // R-CALL-NODUP: an unknown `noduplicate` function is observed like a
    // convergent one (the interpreter's `machine::program::classify`).
    let nodup = semantics::machine::program::is_noduplicate_call(m, call);
    let pure = is_readnone(m, &call.fn_attrs) || is_readnone(m, decl_attrs);
    let unknown = if conv_attr || nodup {
        CallSem::UnknownConv { effect: !pure }
    } else if pure {
        CallSem::Pure
    } else {
        CallSem::Stream
    };
    let not_encoded = |what: &str| Err(format!("intrinsic @{callee} ({what} is not encoded)"));
    // P-MEM-ACCESS / R-MEM-SMT: a memory intrinsic is a byte loop of the
    // thread, never an instance (the interpreter's `machine::step` runs it
    // before the call rules, whatever the declaration's `convergent`).
    if let Some(op) = mem_op(&callee) {
        return Ok(CallInfo {
            sem: CallSem::MemIntrinsic(op?),
            convergent: false,
            token: None,
            callee,
        });
    }
    // P-VEC-REDUCE: the vector reductions the interpreter evaluates.
    if let Some(r) = semantics::machine::vector::reduction(&callee) {
        return Ok(CallInfo {
            sem: CallSem::VectorReduce(r),
            convergent: false,
            token: None,
            callee,
        });
    }
    // P-FLOAT: the float intrinsics the interpreter evaluates on floats
    // (on vectors of floats lane by lane, P-VEC-ELEM; its `step` computes
    // them before any call rule).
    if semantics::machine::float::is_intrinsic(&callee) && float_ok(elem_of(&call.ty)) {
        let base = callee
            .strip_prefix("llvm.")
            .and_then(|r| r.split('.').next())
            .unwrap_or_default()
            .to_string();
        return Ok(CallInfo {
            sem: CallSem::FloatIntrinsic(base),
            convergent: false,
            token: None,
            callee,
        });
    }
    let row = intrinsics::lookup(&callee);
    let sem = match row.map(|b| b.op) {
        Some(Op::Ctrl(Ctrl::Entry)) => CallSem::Entry,
        Some(Op::Ctrl(Ctrl::Anchor)) => CallSem::Anchor,
        Some(Op::Ctrl(Ctrl::Loop)) => CallSem::Loop,
        // One launch group and one subgroup: the local id, the global id
        // and the lane are the thread id (dimension 0; others are 0).
        Some(Op::Index(Index::LocalId | Index::GlobalId | Index::Lane, dim)) => match dim {
            Dim::None | Dim::Fixed(0) => CallSem::Tid,
            Dim::Arg(k) if const_int(call, k) == Some(0) => CallSem::Tid,
            Dim::Fixed(d) => CallSem::Geometry {
                what: Index::LocalId,
                dim: u32::from(d),
            },
            Dim::Arg(k) => match const_int(call, k) {
                Some(d) => CallSem::Geometry {
                    what: Index::LocalId,
                    dim: d.clamp(0, i128::from(u32::MAX)) as u32,
                },
                None => return not_encoded("a thread-geometry read of a variable dimension"),
            },
        },
        Some(Op::Index(what, dim)) => CallSem::Geometry {
            what,
            dim: match dim {
                Dim::None => 0,
                Dim::Fixed(d) => u32::from(d),
                Dim::Arg(k) => match const_int(call, k) {
                    Some(d) => d.clamp(0, i128::from(u32::MAX)) as u32,
                    None => return not_encoded("a thread-geometry read of a variable dimension"),
                },
            },
        },
        Some(op @ (Op::Mbcnt { .. } | Op::InverseBallot { .. } | Op::PassThrough { .. })) => {
            CallSem::Lane(op)
        }
        Some(op) if set_op_encoded(op) => CallSem::Set {
            op,
            oob_ub: matches!(op, Op::Shuffle { .. } | Op::Broadcast { .. })
                && match str_attr(m, decl_attrs, "convcheck-out-of-range") {
                    Some(v) => v == "ub",
                    None => oob_ub,
                },
        },
        // A barrier's only effect is its communicating set; a convergent
        // row without a model is an uninterpreted function of the set
        // (C-OPS), as an unknown convergent function with this declaration.
        // The AMDGPU lane permutations and compare ballots are abstracted
        // the same way here (the interpreter computes them,
        // `semantics::machine::lanes`).
        Some(Op::Barrier(_) | Op::Uninterpreted | Op::Lanes(_) | Op::CmpBallot { .. }) => {
            CallSem::UnknownConv { effect: !pure }
        }
        // The AMDGPU control-flow intrinsics (not `convergent` in LLVM):
        // unknown calls per their declarations here, as before the
        // interpreter modelled them.
        Some(Op::Cf(_)) => unknown.clone(),
        Some(Op::Ignored) => CallSem::Ignored,
        Some(Op::Pure(p)) => CallSem::PureIntrinsic(p),
        // P-INPUT: a register read, as the interpreter's
        // `machine::program::classify`: per thread for a vector register,
        // the same in every thread for a scalar one.
        Some(Op::Opaque) if intrinsics::is_register_read(&callee) => {
            if intrinsics::reads_vector_register(call) {
                CallSem::Pure
            } else {
                CallSem::UniformInput
            }
        }
        Some(Op::Opaque) => unknown.clone(),
        Some(op) => return not_encoded(&format!("C-OPS operation {op:?}")),
        // P-INPUT: another float intrinsic (`llvm.sin`, `llvm.exp`, ...) is an
        // unknown call per its declaration, as in the interpreter
        // (`machine::program::classify`): with `memory(none)` an
        // uninterpreted function of (arguments, thread).
        None if callee.starts_with("llvm.") && float_ok(&call.ty) => unknown.clone(),
        // C-OPS: an `llvm.` name outside the table declared or called
        // `convergent` (LLVM's tests declare such names, `@llvm.convergent`)
        // is an unknown convergent function, as in the interpreter
        // (`machine::program::classify`); the table holds every convergent
        // intrinsic LLVM defines, so no meaning is lost. The memory
        // intrinsics keep their meaning (P-MEM-ACCESS) whatever their
        // declaration says ([`mem_op`] above).
        None if callee.starts_with("llvm.") && conv_attr => unknown.clone(),
        None if callee.starts_with("llvm.") => return Err(format!("intrinsic @{callee}")),
        None => unknown.clone(),
    };
    if let Some(k) = row.and_then(|b| b.op.max_arg()) {
        if k as usize >= call.args.len() {
            return Err(format!(
                "call of @{callee} with {} argument(s) (the builtin reads argument {})",
                call.args.len(),
                k + 1
            ));
        }
    }
    let convergent = conv_attr
        || row.is_some_and(|b| b.row.convergent)
        || !matches!(
            sem,
            CallSem::Tid
                | CallSem::Lane(_)
                | CallSem::Geometry { .. }
                | CallSem::Pure
                | CallSem::UniformInput
                | CallSem::Stream
                | CallSem::Ignored
                | CallSem::PureIntrinsic(_)
                | CallSem::FloatIntrinsic(_)
                | CallSem::VectorReduce(_)
                | CallSem::MemIntrinsic(_)
        );
    Ok(CallInfo {
        sem,
        convergent,
        token,
        callee,
    })
}

/// P-LAUNCH: `@name` is an NVPTX kernel by the legacy annotation
/// `!nvvm.annotations = !{!{ptr @name, !"kernel", i32 1}, ...}`, which
/// opt-22 upgrades to the `ptx_kernel` calling convention when it reads a
/// module (so a module and its opt output agree on which parameters are
/// uniform).
pub fn nvvm_annotated_kernel(m: &Module, name: &str) -> bool {
    use semantics::ir::MdValue;
    let Some(MdValue::Tuple { elems, .. }) = m.md_def("nvvm.annotations") else {
        return false;
    };
    elems.iter().any(|e| {
        let node = match e {
            MdValue::Ref(r) => m.md_def(r),
            v => Some(v),
        };
        let Some(MdValue::Tuple { elems: ops, .. }) = node else {
            return false;
        };
        ops.get(1..).unwrap_or_default().chunks(2).any(|kv| {
            matches!(kv, [MdValue::Str(k), MdValue::Typed { value, .. }]
                if k.as_slice() == b"kernel" && value.trim() == "1")
        }) && matches!(ops.first(), Some(MdValue::Typed { value, .. })
                if value.trim().trim_start_matches('@').trim_matches('"') == name)
    })
}

/// The name an indirect call's events and uninterpreted function carry,
/// as the interpreter's (`machine::calls`).
pub const INDIRECT: &str = "<indirect>";

/// P-INPUT / C-OPS (issue 12 item 6): an indirect call is a call of an
/// unknown function with the callee pointer as an extra first argument
/// (`encode::calls`; the interpreter's `machine::calls::exec_call`):
/// convergent when the call site is (attribute or bundle), else `readnone`
/// per the call site's attributes, else an observed input-stream call.
fn indirect_call(m: &Module, call: &Call) -> CallInfo {
    let token = call
        .convergence_bundles()
        .next()
        .and_then(|b| b.inputs.first())
        .and_then(|op| op.value.as_local());
    let convergent = m.has_attr(&call.fn_attrs, "convergent") || token.is_some();
    let pure = is_readnone(m, &call.fn_attrs);
    let sem = if convergent {
        CallSem::UnknownConv { effect: !pure }
    } else if pure {
        CallSem::Pure
    } else {
        CallSem::Stream
    };
    CallInfo {
        sem,
        convergent,
        token,
        callee: INDIRECT.to_string(),
    }
}

/// C-OPS: the set operations of the table the encoder models
/// (`encode::ops`); the others answer `unsupported`.
pub fn set_op_encoded(op: Op) -> bool {
    matches!(
        op,
        Op::Ballot { .. }
            | Op::Vote { .. }
            | Op::First { .. }
            | Op::MatchAny { .. }
            | Op::ActiveMask
            | Op::Shuffle { scale: 1, .. }
            | Op::Broadcast { .. }
            | Op::CountBits { .. }
            | Op::IsFirst
            // Scans and workgroup scope too: refine launches one group of
            // one subgroup, so a thread's lane and its place in the group
            // are both its index (the interpreter's `lane_of`).
            | Op::Reduce { .. }
    )
}

/// Rule C-OPS / C-INTR: the argument and result types a modelled call needs
/// (the encoder derives its terms' widths from them); `Some(why)` when the
/// call's types do not fit its meaning.
pub(crate) fn call_types(sem: &CallSem, c: &Call) -> Option<String> {
    let arg = |i: usize| c.args.get(i).map(|a| &a.ty);
    let res = &c.ty;
    let shown = || {
        let args: Vec<String> = c.args.iter().map(|a| type_name(&a.ty)).collect();
        format!("{} ({})", type_name(res), args.join(", "))
    };
    let ok = match sem {
        CallSem::Entry | CallSem::Anchor | CallSem::Loop => {
            *res == Type::Token && c.args.is_empty()
        }
        CallSem::Set { op, .. } => match *op {
            Op::Ballot { arg: a } => int_ok(res) && arg(a as usize) == Some(&Type::Int(1)),
            // OpenCL's `sub_group_all(int)`: any integer, nonzero is true.
            Op::Vote { arg: a, .. } => int_ok(res) && arg(a as usize).is_some_and(int_ok),
            Op::First { arg: a } | Op::Reduce { arg: a, .. } => {
                int_ok(res) && arg(a as usize) == Some(res)
            }
            Op::Shuffle { val, idx, .. } | Op::Broadcast { val, lane: idx } => {
                int_ok(res)
                    && arg(val as usize) == Some(res)
                    && arg(idx as usize).is_some_and(int_ok)
            }
            Op::MatchAny { arg: a } | Op::CountBits { arg: a } => {
                int_ok(res) && arg(a as usize).is_some_and(int_ok)
            }
            Op::ActiveMask | Op::IsFirst => int_ok(res),
            _ => false,
        },
        CallSem::Tid | CallSem::Geometry { .. } => int_ok(res),
        CallSem::Lane(Op::Mbcnt { .. }) => {
            *res == Type::Int(32)
                && arg(0) == Some(&Type::Int(32))
                && arg(1) == Some(&Type::Int(32))
        }
        CallSem::Lane(Op::InverseBallot { arg: a }) => {
            *res == Type::Int(1) && arg(*a as usize).is_some_and(int_ok)
        }
        // Any type: the operand unchanged (`llvm.amdgcn.wwm`,
        // `addrspacecast.nonnull`), as `machine::collective::per_thread`.
        CallSem::Lane(Op::PassThrough { arg: a }) => arg(*a as usize) == Some(res),
        CallSem::Lane(_) => false,
        // The interpreter computes these on floats of one format (on
        // vectors of them lane by lane).
        CallSem::FloatIntrinsic(_) => {
            float_ok(elem_of(res))
                && !c.args.is_empty()
                && c.args.iter().all(|a| &a.ty == res)
                && semantics::machine::float::intrinsic(
                    &format!("llvm.{}", sem_base(sem)),
                    &[],
                    &vec![semantics::machine::Val::Poison; c.args.len()],
                )
                .is_some_and(|r| r.is_ok())
        }
        CallSem::PureIntrinsic(p) => {
            // The value operands have the result's type; cttz, ctlz and
            // abs end with an `i1` flag.
            let values = usize::from(p.arity() - u8::from(p.has_flag()));
            int_ok(elem_of(res))
                && c.args.len() == usize::from(p.arity())
                && c.args[..values].iter().all(|a| &a.ty == res)
                && (!p.has_flag() || c.args[values].ty == Type::Int(1))
                && (*p != intrinsics::PureOp::Bswap
                    || matches!(elem_of(res), Type::Int(w) if w.is_multiple_of(16)))
        }
        // P-VEC-REDUCE: a vector of the result's type (after the start
        // value of `fadd`/`fmul`).
        CallSem::VectorReduce(r) => {
            use semantics::machine::vector::Reduce;
            let (start, vec) = match (r, c.args.as_slice()) {
                (Reduce::FloatArith(_), [s, v]) => (Some(&s.ty), &v.ty),
                (Reduce::FloatArith(_), _) => return Some(format!("of {}", shown())),
                (_, [v]) => (None, &v.ty),
                _ => return Some(format!("of {}", shown())),
            };
            let elem_fits = match semantics::machine::vector::shape(vec) {
                Some((_, et)) => et == res,
                None => false,
            };
            let kind_fits = match r {
                Reduce::Int(_) => int_ok(res),
                _ => float_ok(res),
            };
            elem_fits && kind_fits && start.is_none_or(|s| s == res)
        }
        // P-MEM-ACCESS: (destination, source pointer or `i8` value,
        // length of at most 64 bits, optional `i1` volatile flag, which
        // the interpreter does not read either).
        CallSem::MemIntrinsic(op) => {
            *res == Type::Void
                && (3..=4).contains(&c.args.len())
                && matches!(arg(0), Some(Type::Ptr(_)))
                && match op {
                    MemOp::Set => arg(1) == Some(&Type::Int(8)),
                    MemOp::Copy | MemOp::Move => matches!(arg(1), Some(Type::Ptr(_))),
                }
                && matches!(arg(2), Some(Type::Int(w)) if (1..=64).contains(w))
                && c.args.get(3).is_none_or(|a| a.ty == Type::Int(1))
        }
        _ => *res != Type::Token,
    };
    if ok {
        None
    } else {
        let meaning = sem.meaning();
        Some(format!(
            "with types {}, which do not fit a {meaning}",
            shown()
        ))
    }
}

fn sem_base(sem: &CallSem) -> &str {
    match sem {
        CallSem::FloatIntrinsic(b) => b,
        _ => "",
    }
}

impl CallSem {
    /// P-INPUT / C-OPS: a call of an unknown function (uninterpreted or
    /// an input stream), which receives pointers as addresses (R-CALL-PTR).
    pub fn unknown_function(&self) -> bool {
        matches!(
            self,
            CallSem::UnknownConv { .. } | CallSem::Pure | CallSem::UniformInput | CallSem::Stream
        )
    }

    /// R-CALL-PTR: an unknown function with this meaning cannot access
    /// memory (`readnone`/`memory(none)`, a register read), or the call is
    /// modelled (not an unknown function at all).
    pub fn memory_free(&self) -> bool {
        !matches!(
            self,
            CallSem::Stream | CallSem::UnknownConv { effect: true }
        )
    }

    /// R-OBS: whether an instance of a convergent call with this meaning is
    /// an event observed with its communicating set (the encoder and the
    /// replay's projection both ask here).
    pub fn observed(&self, observe: super::encode::Observe) -> bool {
        use super::encode::Observe;
        match self {
            CallSem::Entry
            | CallSem::Anchor
            | CallSem::Loop
            | CallSem::Tid
            | CallSem::Lane(_)
            | CallSem::Geometry { .. } => false,
            CallSem::Pure
            | CallSem::UniformInput
            | CallSem::Stream
            | CallSem::Ignored
            | CallSem::PureIntrinsic(_)
            | CallSem::FloatIntrinsic(_)
            | CallSem::VectorReduce(_)
            | CallSem::MemIntrinsic(_) => false,
            CallSem::UnknownConv { effect: true } => observe != Observe::Values,
            _ => observe == Observe::Sets,
        }
    }

    /// The meaning's name in messages (`ballot`, `shuffle`, `anchor`).
    pub fn meaning(&self) -> String {
        let text = match self {
            CallSem::Set { op, .. } => format!("{op:?}"),
            other => format!("{other:?}"),
        };
        // The variant's name, its CamelCase as words: `PureIntrinsic` ->
        // `pure intrinsic`.
        let name = text.split([' ', '{', '(']).next().unwrap_or("call");
        let mut out = String::new();
        for (i, c) in name.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push(' ');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }
}

/// The element type of a fixed-width vector type, else the type itself
/// (P-VEC-ELEM: intrinsics on vectors apply lane by lane).
pub(crate) fn elem_of(ty: &Type) -> &Type {
    semantics::machine::vector::shape(ty).map_or(ty, |(_, et)| et)
}

/// The value of operand `k` when it is an integer constant.
fn const_int(call: &Call, k: u8) -> Option<i128> {
    call.args.get(k as usize).and_then(|a| a.value.as_int())
}
