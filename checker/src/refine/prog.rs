//! The static facts the axiomatic encoding (M-AXIOM) needs about one kernel:
//! what every call means (C-CONV, C-CTRL, C-INTR, C-OPS, P-INPUT), which
//! arguments are uniform (P-LAUNCH), the cycle hierarchy (D-MAX), and which
//! constructs lie outside what the encoding covers.
//!
//! What a callee is comes from the one intrinsic table
//! (`semantics::intrinsics`, issue 13); what it means here is written
//! independently of the interpreter's (`semantics::machine::collective`) on
//! purpose: the encoding is the second formalization (M-AXIOM), and M-AGREE
//! compares the two.

use std::collections::HashMap;

use semantics::cfg::{Cfg, CycleInfo};
use semantics::inline::{Loc, Origin};
use semantics::intrinsics::{self, Ctrl, Dim, Index, Op, Scan, Scope};
use semantics::ir::float::FloatTy;
use semantics::ir::{
    Attr, BinOp, BlockId, Call, CastOp, Const, Function, InstKind, Module, Operand, RmwOp,
    TermKind, Type, ValueDef, ValueId,
};

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
}

/// An `atomicrmw` on a global, under the memory abstraction of the
/// encoding (which has no memory): an observable event (R-OBS) carrying
/// the global's name, the operation and the value operand, whose result is
/// an environment input (P-INPUT), an uninterpreted function of (thread,
/// ordinal of the thread's atomic events) shared by the source and the
/// target like the launch. This over-approximates what other threads'
/// atomics can return, so a counterexample that depends on the returned
/// values may not be reproducible with real memory (see `replay`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtomicInfo {
    /// The global, without `@`.
    pub global: String,
    pub op: RmwOp,
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

/// Why a program is outside what the encoding covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The construct's name as the IR spells it (`bitcast`, `phi of double`).
    pub construct: String,
    /// Function and block (`@k %A`).
    pub at: String,
    /// Line and column in the input file, when the construct has one.
    pub span: Option<semantics::ir::Span>,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} in {}", self.construct, self.at)
    }
}

/// One kernel, prepared for encoding.
pub struct Prepared<'m> {
    pub module: &'m Module,
    pub func: &'m Function,
    /// Per block, per instruction: the call meaning (None for non-calls).
    pub calls: Vec<Vec<Option<CallInfo>>>,
    /// P-LAUNCH: parameter holds the same value in every thread.
    pub uniform_param: Vec<bool>,
    /// LLVM's cycle hierarchy (D-MAX uses one hierarchy; see README limits).
    pub cycles: CycleInfo,
    /// Per block, the enclosing cycles' headers, outermost first (D-MAX).
    pub enclosing: Vec<Vec<(usize, BlockId)>>,
    /// D-HIER: the hierarchies the encoding keys uncontrolled operations
    /// by (LLVM's alone unless the pipeline sets every one, [`super::hier`]).
    pub hiers: Vec<super::hier::Hier>,
    /// Whether the kernel has an `anchor` (D-ORDER constraints are needed).
    pub has_anchor: bool,
    /// Per block, per instruction: the `atomicrmw` meaning (memory
    /// abstraction, see [`AtomicInfo`]).
    pub atomics: Vec<Vec<Option<AtomicInfo>>>,
    /// Per convergent call (block, index): its D-CW class. Instances of
    /// two calls of one class may be converged: inlined copies of one
    /// static instruction whose key comes from a copy of one anchor (see
    /// [`classes`]). Calls not in the map are their own class.
    pub class: HashMap<(usize, usize), usize>,
    /// R-MEM-SMT: the memory objects (empty without memory).
    pub mem: super::memobj::Objects,
}

impl Prepared<'_> {
    /// Whether the kernel's meaning is invariant under renumbering the
    /// threads (with their inputs): nothing reads a thread's index. Thread
    /// ids, ballots (bit per lane), first-lane reads and shuffles (by lane
    /// index) do; reductions commute, and uninterpreted functions of
    /// thread ids or sets can be renumbered with the threads.
    pub fn thread_symmetric(&self) -> bool {
        !self.calls.iter().flatten().flatten().any(|c| match c.sem {
            CallSem::Tid => true,
            CallSem::Set { op, .. } => op.reads_lane(),
            _ => false,
        })
    }
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
    let conv_attr =
        m.has_attr(&call.fn_attrs, "convergent") || m.has_attr(decl_attrs, "convergent");
    // R-CALL-NODUP: an unknown `noduplicate` function is observed like a
    // convergent one (the interpreter's `machine::program::classify`).
    let nodup = semantics::machine::program::is_noduplicate_call(m, call);
    let pure = is_readnone(m, &call.fn_attrs) || is_readnone(m, decl_attrs);
    let unknown = if conv_attr || token.is_some() || nodup {
        CallSem::UnknownConv { effect: !pure }
    } else if pure {
        CallSem::Pure
    } else {
        CallSem::Stream
    };
    let not_encoded = |what: &str| Err(format!("intrinsic @{callee} ({what} is not encoded)"));
    // P-FLOAT: the float intrinsics the interpreter evaluates on scalar
    // floats (its `step` computes them before any call rule).
    if semantics::machine::float::is_intrinsic(&callee) && float_ok(&call.ty) {
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
        // declaration says; the encoding does not express them.
        None if callee.starts_with("llvm.")
            && conv_attr
            && !semantics::machine::access::is_mem_intrinsic(&callee) =>
        {
            unknown.clone()
        }
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
        || token.is_some()
        || row.is_some_and(|b| b.row.convergent)
        || !matches!(
            sem,
            CallSem::Tid
                | CallSem::Geometry { .. }
                | CallSem::Pure
                | CallSem::UniformInput
                | CallSem::Stream
                | CallSem::Ignored
                | CallSem::PureIntrinsic(_)
                | CallSem::FloatIntrinsic(_)
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
            | Op::Reduce {
                scan: Scan::None,
                scope: Scope::Subgroup,
                ..
            }
    )
}

fn int_ok(ty: &Type) -> bool {
    matches!(ty, Type::Int(w) if (1..=64).contains(w))
}

/// R-FLOAT-SMT: a scalar `half`, `bfloat`, `float` or `double`, whose value
/// the encoding holds as its bit pattern.
pub(crate) fn float_ok(ty: &Type) -> bool {
    FloatTy::of(ty).is_some()
}

/// An integer or float value of the encoding (a bit-vector).
fn scalar_ok(ty: &Type) -> bool {
    int_ok(ty) || float_ok(ty)
}

/// Rule C-OPS / C-INTR: the argument and result types a modelled call needs
/// (the encoder derives its terms' widths from them); `Some(why)` when the
/// call's types do not fit its meaning.
fn call_types(sem: &CallSem, c: &Call) -> Option<String> {
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
            Op::Vote { arg: a, .. } => {
                *res == Type::Int(1) && arg(a as usize) == Some(&Type::Int(1))
            }
            Op::First { arg: a } | Op::Reduce { arg: a, .. } => {
                int_ok(res) && arg(a as usize) == Some(res)
            }
            Op::Shuffle { val, idx, .. } | Op::Broadcast { val, lane: idx } => {
                int_ok(res)
                    && arg(val as usize) == Some(res)
                    && arg(idx as usize).is_some_and(int_ok)
            }
            Op::MatchAny { arg: a } => int_ok(res) && arg(a as usize).is_some_and(int_ok),
            Op::ActiveMask => int_ok(res),
            _ => false,
        },
        CallSem::Tid | CallSem::Geometry { .. } => int_ok(res),
        // The interpreter computes these on floats of one format.
        CallSem::FloatIntrinsic(_) => {
            float_ok(res)
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
            int_ok(res)
                && c.args.len() == usize::from(p.arity())
                && c.args[..values].iter().all(|a| &a.ty == res)
                && (!p.has_flag() || c.args[values].ty == Type::Int(1))
                && (*p != intrinsics::PureOp::Bswap
                    || matches!(res, Type::Int(w) if w.is_multiple_of(16)))
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

/// The width of an integer type the encoding covers (i1 to i64).
fn int_width(ty: &Type) -> Option<u32> {
    match ty {
        Type::Int(w) if (1..=64).contains(w) => Some(*w),
        _ => None,
    }
}

/// A type as LLVM spells it, for messages.
fn type_name(ty: &Type) -> String {
    semantics::ir::print::type_str(ty)
}

/// A cast's LLVM keyword.
fn cast_name(op: CastOp) -> String {
    format!("{op:?}").to_lowercase()
}

/// The terminator's operands are integers of the encoding's widths (the
/// encoder derives every width from these types).
fn check_terminator(
    kernel: &str,
    b: &semantics::ir::Block,
    ret_ty: &Type,
) -> Result<(), Unsupported> {
    let bad = |what: String| Unsupported {
        construct: what,
        at: format!("@{kernel} %{}", b.name),
        span: Some(b.term.span),
    };
    match &b.term.kind {
        TermKind::CondBr { cond, .. } if !operand_ok(cond) => {
            Err(bad("br on a non-integer constant".into()))
        }
        TermKind::Switch {
            ty, cond, cases, ..
        } => {
            if !int_ok(ty) {
                return Err(bad(format!("switch on {}", type_name(ty))));
            }
            if !operand_ok(cond) || !cases.iter().all(|(c, _)| matches!(c, Const::Int { .. })) {
                return Err(bad("switch on a non-integer constant".into()));
            }
            Ok(())
        }
        TermKind::Ret(Some(v)) if &v.ty != ret_ty || !operand_ok(&v.value) => {
            Err(bad(format!("ret of {}", type_name(&v.ty))))
        }
        _ => Ok(()),
    }
}

fn operand_ok(op: &Operand) -> bool {
    match op {
        Operand::Local(_) => true,
        Operand::Const(c) => const_ok(c),
        _ => false,
    }
}

/// The constants the encoding reads: integers, poison/undef, and pointers
/// to objects (`null`, `@g`, an `addrspacecast`/`bitcast` of one;
/// P-MEM-PTR).
fn const_ok(c: &Const) -> bool {
    match c {
        Const::Int { .. }
        | Const::Float(_)
        | Const::Poison
        | Const::Undef
        | Const::Null
        | Const::Global(_) => true,
        Const::Expr(e) => matches!(
            &**e,
            semantics::ir::ConstExpr::Cast {
                op: CastOp::AddrSpaceCast | CastOp::BitCast,
                from,
                to: Type::Ptr(_),
            } if matches!(from.ty, Type::Ptr(_)) && const_ok(&from.value)
        ),
        _ => false,
    }
}

/// R-MEM-SMT: an integer of the encoding's widths or a pointer (of a
/// module with a data layout).
fn value_ok(ty: &Type, mem: &super::memobj::Objects) -> bool {
    scalar_ok(ty) || ptr_ok(ty, mem)
}

fn ptr_ok(ty: &Type, mem: &super::memobj::Objects) -> bool {
    matches!(ty, Type::Ptr(_)) && mem.layout.is_some()
}

/// A pointer whose address the encoding uses (compared, stored): of a
/// 64-bit address space (P-MEM-PTR lays bases out for 64-bit addresses).
fn wide_ptr(ty: &Type, mem: &super::memobj::Objects) -> bool {
    match (ty, &mem.layout) {
        (Type::Ptr(s), Some(dl)) => dl.pointer_size(*s) == 8,
        _ => false,
    }
}

/// Prepares kernel `kernel` (name without `@`) of `m`, or says which
/// construct the encoding does not cover (P-PROG subset of the checker).
pub fn prepare<'m>(m: &'m Module, kernel: &str, oob_ub: bool) -> Result<Prepared<'m>, Unsupported> {
    prepare_inlined(m, kernel, oob_ub, None)
}

/// [`prepare`] for a kernel produced by `semantics::inline`, whose
/// `origins` identify the copies of one static instruction (D-CW classes).
pub fn prepare_inlined<'m>(
    m: &'m Module,
    kernel: &str,
    oob_ub: bool,
    origins: Option<&[Vec<Origin>]>,
) -> Result<Prepared<'m>, Unsupported> {
    let func = m
        .function(kernel)
        .filter(|f| f.has_body())
        .ok_or_else(|| Unsupported {
            construct: format!("no defined function @{kernel}"),
            at: "the module".into(),
            span: None,
        })?;
    if !(func.ret_ty == Type::Void || scalar_ok(&func.ret_ty)) {
        return Err(Unsupported {
            construct: format!("kernel returning {}", type_name(&func.ret_ty)),
            at: format!("@{kernel}"),
            span: None,
        });
    }
    let mem = super::memobj::objects(m, func).map_err(|e| Unsupported {
        construct: e,
        at: format!("@{kernel}"),
        span: None,
    })?;
    let has_access = func.blocks.iter().flat_map(|b| &b.insts).any(|i| {
        matches!(
            i.kind,
            InstKind::Load { .. } | InstKind::Store { .. } | InstKind::Gep { .. }
        )
    });
    // R-CALL-PTR: the kernel reads or writes memory itself.
    let own_access = func.blocks.iter().flat_map(|b| &b.insts).any(|i| {
        matches!(
            i.kind,
            InstKind::Load { .. }
                | InstKind::Store { .. }
                | InstKind::AtomicRmw { .. }
                | InstKind::CmpXchg { .. }
        )
    });
    let mut calls = Vec::new();
    let mut atomics = Vec::new();
    let mut has_anchor = false;
    for b in &func.blocks {
        let mut row = Vec::new();
        let mut arow = Vec::new();
        for inst in &b.insts {
            let bad = |what: &str| Unsupported {
                construct: what.to_string(),
                at: format!("@{kernel} %{}", b.name),
                span: Some(inst.span),
            };
            let info = match &inst.kind {
                InstKind::Call(c) => {
                    let info = classify_call(m, c, oob_ub).map_err(|e| bad(&e))?;
                    if !(matches!(c.ty, Type::Void | Type::Token) || scalar_ok(&c.ty)) {
                        return Err(bad("call with a non-integer result"));
                    }
                    if info.sem == CallSem::Stream && c.ty != Type::Void {
                        return Err(bad(
                            "unknown non-readnone call with a result (input stream)",
                        ));
                    }
                    // A register read's metadata operand names the register
                    // (P-INPUT); it is no value of the encoding.
                    let register = intrinsics::is_register_read(&info.callee);
                    if c.args.iter().any(|a| {
                        !(scalar_ok(&a.ty) && operand_ok(&a.value)
                            || wide_ptr(&a.ty, &mem) && operand_ok(&a.value)
                            || register && matches!(a.value, Operand::Metadata(_)))
                    }) {
                        return Err(bad("call argument that is not an integer or a pointer"));
                    }
                    if c.callee_name().is_none()
                        && !(matches!(c.callee, Operand::Local(_)) && wide_ptr(&Type::Ptr(0), &mem))
                    {
                        return Err(bad("indirect call through a callee the encoding lacks"));
                    }
                    // R-CALL-PTR: what an unknown function does with memory
                    // is not modelled; a pointer reaching one (argument or
                    // callee) is only a value, which is exact only when the
                    // callee cannot access memory or the kernel does not.
                    let passes_ptr = c.callee_name().is_none()
                        || c.args.iter().any(|a| matches!(a.ty, Type::Ptr(_)));
                    if passes_ptr && own_access && !info.sem.memory_free() {
                        return Err(bad(
                            "pointer passed to an unknown function that may access memory, \
                             in a kernel that accesses memory (R-CALL-PTR)",
                        ));
                    }
                    if let Some(why) = call_types(&info.sem, c) {
                        return Err(bad(&format!("call of @{} {why}", info.callee)));
                    }
                    has_anchor |= info.sem == CallSem::Anchor;
                    Some(info)
                }
                InstKind::ICmp { ty, lhs, rhs, .. } if ptr_ok(ty, &mem) => {
                    if !wide_ptr(ty, &mem) {
                        return Err(bad(&format!(
                            "icmp of {} (addresses of narrow pointers)",
                            type_name(ty)
                        )));
                    }
                    if !operand_ok(lhs) || !operand_ok(rhs) {
                        return Err(bad("icmp of a pointer constant the encoding lacks"));
                    }
                    None
                }
                InstKind::Binary {
                    op, ty, lhs, rhs, ..
                } if float_ok(ty) => {
                    if !matches!(
                        op,
                        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem
                    ) || !operand_ok(lhs)
                        || !operand_ok(rhs)
                    {
                        return Err(bad(&format!("{} on {}", op.mnemonic(), type_name(ty))));
                    }
                    None
                }
                InstKind::FNeg { ty, value, .. } | InstKind::FCmp { ty, lhs: value, .. }
                    if !float_ok(ty) || !operand_ok(value) =>
                {
                    return Err(bad(&format!("float operation on {}", type_name(ty))));
                }
                InstKind::FNeg { .. } => None,
                InstKind::FCmp { pred, rhs, .. } => {
                    if !operand_ok(rhs) || !super::encode::fcmp_pred_known(&pred.0) {
                        return Err(bad(&format!("fcmp {}", pred.0)));
                    }
                    None
                }
                InstKind::Binary { ty, lhs, rhs, .. } | InstKind::ICmp { ty, lhs, rhs, .. } => {
                    if !int_ok(ty) || !operand_ok(lhs) || !operand_ok(rhs) {
                        return Err(bad("non-integer arithmetic or comparison"));
                    }
                    None
                }
                InstKind::Select {
                    cond,
                    on_true,
                    on_false,
                    ..
                } => {
                    if cond.ty != Type::Int(1) {
                        return Err(bad(&format!("select on {}", type_name(&cond.ty))));
                    }
                    if !value_ok(&on_true.ty, &mem) || on_false.ty != on_true.ty {
                        return Err(bad(&format!("select of {}", type_name(&on_true.ty))));
                    }
                    if ![cond, on_true, on_false]
                        .iter()
                        .all(|o| operand_ok(&o.value))
                    {
                        return Err(bad("select of a non-integer constant"));
                    }
                    None
                }
                InstKind::Phi { ty, incoming, .. } => {
                    if !value_ok(ty, &mem) {
                        return Err(bad(&format!("phi of {}", type_name(ty))));
                    }
                    if !incoming.iter().all(|(o, _)| operand_ok(o)) {
                        return Err(bad("phi of a non-integer constant"));
                    }
                    None
                }
                InstKind::Cast {
                    op: CastOp::AddrSpaceCast | CastOp::BitCast,
                    from,
                    to,
                    ..
                } if ptr_ok(to, &mem) && ptr_ok(&from.ty, &mem) => {
                    if !operand_ok(&from.value) {
                        return Err(bad("cast of a pointer constant the encoding lacks"));
                    }
                    None
                }
                InstKind::Load { ty, ptr, .. } => {
                    if !(scalar_ok(ty) || wide_ptr(ty, &mem)) {
                        return Err(bad(&format!("load of {}", type_name(ty))));
                    }
                    if !ptr_ok(&ptr.ty, &mem) || !operand_ok(&ptr.value) {
                        return Err(bad("load through this pointer"));
                    }
                    None
                }
                InstKind::Store { value, ptr, .. } => {
                    if !(scalar_ok(&value.ty) || wide_ptr(&value.ty, &mem))
                        || !operand_ok(&value.value)
                    {
                        return Err(bad(&format!("store of {}", type_name(&value.ty))));
                    }
                    if !ptr_ok(&ptr.ty, &mem) || !operand_ok(&ptr.value) {
                        return Err(bad("store through this pointer"));
                    }
                    None
                }
                InstKind::Alloca { .. } => None,
                InstKind::Gep {
                    source_ty,
                    base,
                    indices,
                    ..
                } => {
                    if !ptr_ok(&base.ty, &mem) || !operand_ok(&base.value) {
                        return Err(bad("getelementptr on this base"));
                    }
                    if !indices
                        .iter()
                        .all(|i| int_ok(&i.ty) && operand_ok(&i.value))
                    {
                        return Err(bad("getelementptr with a non-integer index"));
                    }
                    if let Err(e) = gep_steps(&mem, m, source_ty, indices) {
                        return Err(bad(&format!("getelementptr ({e})")));
                    }
                    None
                }
                InstKind::Cast { op, from, to, .. } if float_ok(&from.ty) || float_ok(to) => {
                    let (ff, ft) = (FloatTy::of(&from.ty), FloatTy::of(to));
                    let fits = match (op, ff, ft) {
                        (CastOp::FPTrunc, Some(a), Some(b)) => b.bits() < a.bits(),
                        (CastOp::FPExt, Some(a), Some(b)) => b.bits() > a.bits(),
                        (CastOp::FPToSI | CastOp::FPToUI, Some(_), None) => int_ok(to),
                        (CastOp::SIToFP | CastOp::UIToFP, None, Some(_)) => int_ok(&from.ty),
                        (CastOp::BitCast, _, _) => {
                            scalar_ok(&from.ty)
                                && scalar_ok(to)
                                && super::encode::width(&from.ty) == super::encode::width(to)
                        }
                        _ => false,
                    };
                    if !fits || !operand_ok(&from.value) {
                        return Err(bad(&format!(
                            "{} from {} to {}",
                            cast_name(*op),
                            type_name(&from.ty),
                            type_name(to)
                        )));
                    }
                    None
                }
                InstKind::Cast { op, from, to, .. } => {
                    let (Some(wf), Some(wt)) = (int_width(&from.ty), int_width(to)) else {
                        return Err(bad(&format!(
                            "{} from {} to {}",
                            cast_name(*op),
                            type_name(&from.ty),
                            type_name(to)
                        )));
                    };
                    let fits = match op {
                        CastOp::Trunc => wt < wf,
                        CastOp::ZExt | CastOp::SExt => wt > wf,
                        _ => false,
                    };
                    if !fits || !operand_ok(&from.value) {
                        return Err(bad(&format!(
                            "{} from {} to {}",
                            cast_name(*op),
                            type_name(&from.ty),
                            type_name(to)
                        )));
                    }
                    None
                }
                // R-FREEZE-SMT: an integer freeze is a choice of the
                // encoding; a float or pointer one the interpreter picks
                // from its input domain converted or as a fresh buffer,
                // which replay could not follow.
                InstKind::Freeze(op) => {
                    if !int_ok(&op.ty) || !operand_ok(&op.value) {
                        return Err(bad(&format!("freeze of {}", type_name(&op.ty))));
                    }
                    None
                }
                InstKind::AtomicRmw { op, ptr, value, .. } => {
                    if has_access {
                        return Err(bad(
                            "atomicrmw in a function with loads or stores (the atomic event \
                             abstraction has no memory)",
                        ));
                    }
                    let global = match ptr.value.as_const() {
                        Some(semantics::ir::Const::Global(g))
                            if m.globals.iter().any(|x| &x.name == g) =>
                        {
                            g.clone()
                        }
                        _ => return Err(bad("atomicrmw on a pointer that is not a global")),
                    };
                    if !int_ok(&value.ty) || !operand_ok(&value.value) {
                        return Err(bad("atomicrmw on a non-integer value"));
                    }
                    arow.push(Some(AtomicInfo { global, op: *op }));
                    row.push(None);
                    continue;
                }
                other => {
                    let name = format!("{other:?}");
                    let name = name
                        .split([' ', '{', '('])
                        .next()
                        .unwrap_or("?")
                        .to_lowercase();
                    return Err(bad(&name));
                }
            };
            row.push(info);
            arow.push(None);
        }
        check_terminator(kernel, b, &func.ret_ty)?;
        calls.push(row);
        atomics.push(arow);
    }
    for p in &func.params {
        if !value_ok(&p.ty, &mem) {
            return Err(Unsupported {
                construct: format!("kernel parameter of {}", type_name(&p.ty)),
                at: format!("@{kernel}"),
                span: None,
            });
        }
    }
    let kernel_cc = func
        .cconv
        .as_deref()
        .is_some_and(|c| c.ends_with("_kernel") || c == "ptx_kernel")
        || nvvm_annotated_kernel(m, kernel);
    let uniform_param = func
        .params
        .iter()
        .map(|p| kernel_cc || m.has_attr(&p.attrs, "inreg"))
        .collect();
    let cfg = Cfg::from_function(func);
    let cycles = CycleInfo::compute(&cfg);
    let enclosing = super::hier::enclosing(func, &cycles);
    let class = origins.map_or_else(HashMap::new, |o| classes(func, &calls, o));
    Ok(Prepared {
        module: m,
        func,
        calls,
        uniform_param,
        hiers: vec![super::hier::Hier {
            cycles: cycles.clone(),
            enclosing: enclosing.clone(),
        }],
        cycles,
        enclosing,
        has_anchor,
        atomics,
        class,
        mem,
    })
}

/// One step of a `getelementptr` offset: a constant byte offset (a struct
/// field) or a stride that multiplies the index (P-MEM-LAYOUT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GepStep {
    Field(u64),
    Stride(u64),
}

/// P-MEM-LAYOUT: the steps of a `getelementptr` over `source_ty` with these
/// indices, from the module's data layout.
pub fn gep_steps(
    mem: &super::memobj::Objects,
    m: &Module,
    source_ty: &Type,
    indices: &[semantics::ir::TypedOperand],
) -> Result<Vec<GepStep>, String> {
    let dl = mem.layout.as_ref().ok_or("no data layout")?;
    let mut ty = source_ty.clone();
    let mut out = Vec::new();
    for (k, idx) in indices.iter().enumerate() {
        if k == 0 {
            out.push(GepStep::Stride(dl.alloc_size(&ty, m).map_err(|e| e.0)?));
            continue;
        }
        let resolved = match &ty {
            Type::Named(n) => m
                .types
                .iter()
                .find(|t| *t.name == **n)
                .and_then(|t| t.ty.clone())
                .ok_or_else(|| format!("opaque type %{n}"))?,
            other => other.clone(),
        };
        match &resolved {
            Type::Struct { fields, .. } => {
                let (offs, _, _) = dl.struct_layout(&resolved, m).map_err(|e| e.0)?;
                let f = match idx.value.as_int() {
                    Some(value) => usize::try_from(value)
                        .ok()
                        .filter(|f| *f < fields.len())
                        .ok_or("struct index out of range")?,
                    _ => return Err("variable struct index".into()),
                };
                out.push(GepStep::Field(offs[f]));
                ty = fields[f].clone();
            }
            Type::Array { elem, .. } => {
                ty = (**elem).clone();
                out.push(GepStep::Stride(dl.alloc_size(&ty, m).map_err(|e| e.0)?));
            }
            other => return Err(format!("indexing into {}", type_name(other))),
        }
    }
    Ok(out)
}

/// D-CW classes of the convergent calls of an inlined kernel. Instances of
/// copies of one static instruction X are converged in the original
/// program iff their keys are equal there. A key is built from X's
/// location and its parent's key (the token's defining instance, or for a
/// callee's `entry` the call-site instance), down to a root: the kernel's
/// `entry` or block visits (one launch, unique per copy) or an `anchor`,
/// whose key is a free choice (D-ANCHOR) and forgets where the copy came
/// from. So two copies can have equal keys only when the chain of static
/// locations from X down to an anchor is the same, including the call
/// sites crossed below the anchor: the class is (X's location, the
/// locations of the token definitions on the chain, X's call path below the
/// anchor's). Calls whose chain does not end at an anchor are not in the
/// map (each is its own class, as without inlining).
pub fn classes(
    func: &Function,
    calls: &[Vec<Option<CallInfo>>],
    origins: &[Vec<Origin>],
) -> HashMap<(usize, usize), usize> {
    type Key = (Vec<Loc>, Vec<Loc>);
    let mut ids: HashMap<Key, usize> = HashMap::new();
    let mut out = HashMap::new();
    for (bi, row) in calls.iter().enumerate() {
        for (ii, c) in row.iter().enumerate() {
            let Some(c) = c.as_ref().filter(|c| c.convergent || c.sem.is_token_def()) else {
                continue;
            };
            let mut chain = vec![origins[bi][ii].loc.clone()];
            let mut cur = c.clone();
            let mut root = None;
            for _ in 0..64 {
                if cur.sem == CallSem::Anchor {
                    root = Some(chain.len());
                    break;
                }
                let Some(tok) = cur.token else { break };
                let ValueDef::Inst { block, index } = func.value(tok).def else {
                    break;
                };
                let Some(d) = calls[block.0][index].as_ref() else {
                    break;
                };
                chain.push(origins[block.0][index].loc.clone());
                if d.sem == CallSem::Anchor {
                    let own = &origins[bi][ii].path;
                    let depth = origins[block.0][index].path.len().min(own.len());
                    let key = (chain.clone(), own[depth..].to_vec());
                    let next = ids.len();
                    out.insert((bi, ii), *ids.entry(key).or_insert(next));
                    root = None;
                    break;
                }
                cur = d.clone();
            }
            if root.is_some() {
                // X is an anchor itself: its class is its location.
                let key = (chain, Vec::new());
                let next = ids.len();
                out.insert((bi, ii), *ids.entry(key).or_insert(next));
            }
        }
    }
    out
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
            | CallSem::Geometry { .. } => false,
            CallSem::Pure
            | CallSem::UniformInput
            | CallSem::Stream
            | CallSem::Ignored
            | CallSem::PureIntrinsic(_)
            | CallSem::FloatIntrinsic(_) => false,
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

impl Prepared<'_> {
    /// The call at (block, inst), if that instruction is a call.
    pub fn call(&self, b: usize, i: usize) -> Option<&CallInfo> {
        self.calls[b][i].as_ref()
    }
    /// The `atomicrmw` at (block, inst), if that instruction is one.
    pub fn atomic(&self, b: usize, i: usize) -> Option<&AtomicInfo> {
        self.atomics[b][i].as_ref()
    }
}

/// The value of operand `k` when it is an integer constant.
fn const_int(call: &Call, k: u8) -> Option<i128> {
    call.args.get(k as usize).and_then(|a| a.value.as_int())
}
