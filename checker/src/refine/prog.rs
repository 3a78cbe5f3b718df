//! The static facts the axiomatic encoding (M-AXIOM) needs about one kernel:
//! what every call means (C-CONV, C-CTRL, C-INTR, C-OPS, P-INPUT: `callsem`), which
//! arguments are uniform (P-LAUNCH), the cycle hierarchy (D-MAX), and which
//! constructs lie outside what the encoding covers.
//!
//! What a callee is comes from the one intrinsic table
//! (`semantics::intrinsics`, issue 13); what it means here is written
//! independently of the interpreter's (`semantics::machine::collective`) on
//! purpose: the encoding is the second formalization (M-AXIOM), and M-AGREE
//! compares the two.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::callsem::call_types;
pub use super::callsem::{
    classify_call, nvvm_annotated_kernel, set_op_encoded, CallInfo, CallSem, INDIRECT,
};
use semantics::cfg::{Cfg, CycleInfo};
use semantics::inline::{Loc, Origin};
use semantics::intrinsics;
use semantics::ir::float::FloatTy;
use semantics::ir::{
    BinOp, BlockId, CastOp, Const, Function, InstKind, Module, Operand, RmwOp, TermKind, Type,
    ValueDef, ValueId,
};
use semantics::uniformity::analysis::{operands_of, InstRef};

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
    /// R-PREFIX-REC: how a thread at a cut recursive call can be stuck
    /// (set by the pipeline from the inliner's record; empty without
    /// recursion).
    pub rec_lassos: Vec<super::encode::RecLasso>,
    /// R-PREFIX: the module says threads must make progress (`mustprogress`
    /// or `willreturn` on a function, `llvm.loop.mustprogress` on a loop),
    /// so a thread that never returns may be undefined behaviour there:
    /// launches on which the source never returns are then not compared.
    pub progress_required: bool,
}

impl Prepared<'_> {
    /// R-STREAM-SMT: the most input-stream reads (calls of unknown
    /// non-`readnone` functions with an integer result) one block visit
    /// makes, and the widest such result; `None` without any.
    pub fn stream_reads(&self) -> Option<(usize, u32)> {
        let mut most = 0;
        let mut widest = 0;
        for (bi, row) in self.calls.iter().enumerate() {
            let mut here = 0;
            for (ii, c) in row.iter().enumerate() {
                if !c.as_ref().is_some_and(|c| c.sem == CallSem::Stream) {
                    continue;
                }
                if let InstKind::Call(call) = &self.func.blocks[bi].insts[ii].kind {
                    if let Type::Int(w) = call.ty {
                        here += 1;
                        widest = widest.max(w);
                    }
                }
            }
            most = usize::max(most, here);
        }
        (most > 0).then_some((most, widest))
    }

    /// Whether the kernel's meaning is invariant under renumbering the
    /// threads (with their inputs): nothing reads a thread's index. Thread
    /// ids, ballots (bit per lane), first-lane reads and shuffles (by lane
    /// index) do; reductions commute, and uninterpreted functions of
    /// thread ids or sets can be renumbered with the threads.
    pub fn thread_symmetric(&self) -> bool {
        !self.calls.iter().flatten().flatten().any(|c| match c.sem {
            CallSem::Tid | CallSem::Lane(_) => true,
            CallSem::Set { op, .. } => op.reads_lane(),
            _ => false,
        })
    }
}

pub(crate) fn int_ok(ty: &Type) -> bool {
    matches!(ty, Type::Int(w) if (1..=64).contains(w))
}

/// R-FLOAT-SMT: a scalar `half`, `bfloat`, `float` or `double`, whose value
/// the encoding holds as its bit pattern.
pub(crate) fn float_ok(ty: &Type) -> bool {
    FloatTy::of(ty).is_some()
}

/// An integer or float value of the encoding (a bit-vector).
pub(super) fn scalar_ok(ty: &Type) -> bool {
    int_ok(ty) || float_ok(ty)
}

/// Whether a cast `op` from `from` to `to` (scalars, or the element types
/// of a vector cast) is one the encoding computes.
pub(super) fn cast_fits(op: CastOp, from: &Type, to: &Type) -> bool {
    if float_ok(from) || float_ok(to) {
        let (ff, ft) = (FloatTy::of(from), FloatTy::of(to));
        return match (op, ff, ft) {
            (CastOp::FPTrunc, Some(a), Some(b)) => b.bits() < a.bits(),
            (CastOp::FPExt, Some(a), Some(b)) => b.bits() > a.bits(),
            (CastOp::FPToSI | CastOp::FPToUI, Some(_), None) => int_ok(to),
            (CastOp::SIToFP | CastOp::UIToFP, None, Some(_)) => int_ok(from),
            (CastOp::BitCast, _, _) => {
                scalar_ok(from)
                    && scalar_ok(to)
                    && super::encode::width(from) == super::encode::width(to)
            }
            _ => false,
        };
    }
    let (Some(wf), Some(wt)) = (int_width(from), int_width(to)) else {
        return false;
    };
    match op {
        CastOp::Trunc => wt < wf,
        CastOp::ZExt | CastOp::SExt => wt > wf,
        _ => false,
    }
}

/// The width of an integer type the encoding covers (i1 to i64).
pub(super) fn int_width(ty: &Type) -> Option<u32> {
    match ty {
        Type::Int(w) if (1..=64).contains(w) => Some(*w),
        _ => None,
    }
}

/// A type as LLVM spells it, for messages.
pub(crate) fn type_name(ty: &Type) -> String {
    semantics::ir::print::type_str(ty)
}

/// A cast's LLVM keyword.
pub(super) fn cast_name(op: CastOp) -> String {
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

pub(super) fn operand_ok(op: &Operand) -> bool {
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

pub(super) fn ptr_ok(ty: &Type, mem: &super::memobj::Objects) -> bool {
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
    prepare_inlined(
        m,
        kernel,
        oob_ub,
        None,
        semantics::machine::DEFAULT_BUFFER_BYTES,
    )
}

/// [`prepare`] for a kernel produced by `semantics::inline`, whose
/// `origins` identify the copies of one static instruction (D-CW classes),
/// with input buffers of `buffer_bytes` bytes where no `dereferenceable`
/// gives their size (P-MEM-OBJ).
pub fn prepare_inlined<'m>(
    m: &'m Module,
    kernel: &str,
    oob_ub: bool,
    origins: Option<&[Vec<Origin>]>,
    buffer_bytes: u64,
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
    let mem = super::memobj::objects(m, func, buffer_bytes).map_err(|e| Unsupported {
        construct: e,
        at: format!("@{kernel}"),
        span: None,
    })?;
    // P-MEM-ACCESS: a memory intrinsic reads and writes memory as loads
    // and stores do.
    let mem_call = |i: &semantics::ir::Inst| {
        matches!(&i.kind, InstKind::Call(c)
            if c.callee_name().is_some_and(semantics::machine::access::is_mem_intrinsic))
    };
    let has_access = func.blocks.iter().flat_map(|b| &b.insts).any(|i| {
        matches!(
            i.kind,
            InstKind::Load { .. } | InstKind::Store { .. } | InstKind::Gep { .. }
        ) || mem_call(i)
    });
    // R-CALL-PTR: the kernel reads or writes memory itself.
    let own_access = func.blocks.iter().flat_map(|b| &b.insts).any(|i| {
        matches!(
            i.kind,
            InstKind::Load { .. }
                | InstKind::Store { .. }
                | InstKind::AtomicRmw { .. }
                | InstKind::CmpXchg { .. }
        ) || mem_call(i)
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
            if let Some(r) = super::vecprep::vector_inst(&inst.kind, &mem) {
                r.map_err(|what| bad(&what))?;
                row.push(None);
                arow.push(None);
                continue;
            }
            let info = match &inst.kind {
                InstKind::Call(c) => {
                    let info = classify_call(m, c, oob_ub).map_err(|e| bad(&e))?;
                    // R-VEC-SMT: vectors in and out of the intrinsics the
                    // interpreter computes (call_types checks the shapes).
                    let lanes = matches!(
                        info.sem,
                        CallSem::PureIntrinsic(_)
                            | CallSem::FloatIntrinsic(_)
                            | CallSem::VectorReduce(_)
                    );
                    if !(matches!(c.ty, Type::Void | Type::Token)
                        || scalar_ok(&c.ty)
                        || lanes && super::vecprep::vec_ok(&c.ty))
                    {
                        return Err(bad("call with a non-integer result"));
                    }
                    // R-STREAM-SMT: integer results of input-stream calls
                    // are launch inputs; others are not encoded.
                    if info.sem == CallSem::Stream && !matches!(c.ty, Type::Void | Type::Int(_)) {
                        return Err(bad(&format!(
                            "unknown non-readnone call with a {} result (input stream; \
                             R-STREAM-SMT encodes integer results only)",
                            type_name(&c.ty)
                        )));
                    }
                    // A register read's metadata operand names the register
                    // (P-INPUT); it is no value of the encoding.
                    let register = intrinsics::is_register_read(&info.callee);
                    // R-MEM-SMT: a memory intrinsic only accesses through
                    // its pointers (no address is used), as load and store.
                    let accesses = matches!(info.sem, CallSem::MemIntrinsic(_));
                    if c.args.iter().any(|a| {
                        !(scalar_ok(&a.ty) && operand_ok(&a.value)
                            || wide_ptr(&a.ty, &mem) && operand_ok(&a.value)
                            || accesses && ptr_ok(&a.ty, &mem) && operand_ok(&a.value)
                            || lanes
                                && super::vecprep::vec_ok(&a.ty)
                                && super::vecprep::vec_operand_ok(&a.value)
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
                InstKind::Cast { op, from, to, .. } => {
                    if !cast_fits(*op, &from.ty, to) || !operand_ok(&from.value) {
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
    drop_unused_anchors(func, &mut calls);
    let has_anchor = has_anchor
        && calls
            .iter()
            .flatten()
            .flatten()
            .any(|c| c.sem == CallSem::Anchor);
    let kernel_cc = func.has_kernel_cc() || nvvm_annotated_kernel(m, kernel);
    let uniform_param = func
        .params
        .iter()
        .map(|p| kernel_cc || m.has_attr(&p.attrs, "inreg"))
        .collect();
    let cfg = Cfg::from_function(func);
    let cycles = CycleInfo::compute(&cfg);
    let enclosing = super::hier::enclosing(func, &cycles);
    let class = origins.map_or_else(HashMap::default, |o| classes(func, &calls, o));
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
        rec_lassos: Vec::new(),
        progress_required: progress_required(m),
    })
}

/// D-ANCHOR, D-ORDER: an `anchor` whose token has no use is not encoded.
/// Its instances may always converge with no other thread (D-ANCHOR),
/// which adds no convergence-before edge beyond program order (D-ORDER);
/// with other groupings it only constrains D-ORDER more; it has no value
/// and no event (R-OBS). So the observations of the program are those of
/// the program without it, and the encoding has one choice less per
/// instance (the interpreter, which executes it, finds the same
/// observations).
fn drop_unused_anchors(func: &Function, calls: &mut [Vec<Option<CallInfo>>]) {
    let mut used: HashSet<ValueId> = HashSet::default();
    for (b, blk) in func.blocks.iter().enumerate() {
        for i in 0..=blk.insts.len() {
            let r = InstRef {
                block: BlockId(b),
                index: i,
            };
            for op in operands_of(func, r) {
                if let Operand::Local(v) = op {
                    used.insert(*v);
                }
            }
        }
    }
    for (b, row) in calls.iter_mut().enumerate() {
        for (i, slot) in row.iter_mut().enumerate() {
            let Some(c) = slot.as_mut() else { continue };
            let result = func.blocks[b].insts[i].result;
            if c.sem == CallSem::Anchor && result.is_none_or(|r| !used.contains(&r)) {
                c.sem = CallSem::Ignored;
                c.convergent = false;
            }
        }
    }
}

/// R-PREFIX: whether `m` requires forward progress anywhere: a defined
/// function with `mustprogress` or `willreturn`, or a loop with
/// `llvm.loop.mustprogress` (LangRef; non-termination may then be
/// undefined behaviour, which the checker does not model).
pub fn progress_required(m: &Module) -> bool {
    m.functions.iter().filter(|f| f.has_body()).any(|f| {
        m.has_attr(&f.fn_attrs, "mustprogress")
            || m.has_attr(&f.fn_attrs, "willreturn")
            || (0..f.blocks.len()).any(|b| {
                m.loop_properties(f, BlockId(b))
                    .iter()
                    .any(|(name, _)| name == "llvm.loop.mustprogress")
            })
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
                .find(|t| *t.name == ***n)
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
            Type::Array(a) => {
                ty = a.elem.clone();
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
    let mut ids: HashMap<Key, usize> = HashMap::default();
    let mut out = HashMap::default();
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
                let index = index as usize;
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
