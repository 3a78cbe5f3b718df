//! M-LIVE-MEM (issue 18): input bytes that no continuation can read are
//! left out of the fingerprints memoization takes, as M-LIVE leaves out
//! dead frame values ([`super::liveness`]).
//!
//! An input byte of a buffer (P-INPUT, `Byte::Input`) holds the value a
//! load chose when it first read it. Once no thread can read it again,
//! its value matters to nothing: a later step reads memory only through a
//! load, an `atomicrmw` or a `cmpxchg` (P-MEM-ACCESS), or a call given a
//! pointer; and the finished execution shows input bytes the program did
//! not overwrite as unread (R-MEM, `memory::observed`). So two states
//! equal except for the values of such bytes have the same continuations
//! and the same finished behaviours, which is the argument of M-LIVE with
//! "frame value" read as "input byte".
//!
//! **Which bytes a continuation may read.** [`analyse`] takes every
//! instruction that may read memory in the functions the kernel may enter
//! (`Program::may_enter`), and returns `None`
//! (nothing is left out) unless each is a load, `atomicrmw` or `cmpxchg`
//! of the kernel function whose pointer, in every thread, is a launch
//! constant: computed from the kernel's pointer parameters (each points to
//! its own buffer at offset 0 in every launch, P-MEM-OBJ), integer
//! constants and the thread's geometry reads (P-LAUNCH: `workitem.id.x`,
//! `get_local_id`, ...) by integer arithmetic, casts and `getelementptr`
//! alone, evaluated with the interpreter's own operations. A call of a
//! function without a body that is given a pointer (`memcpy`, an unknown
//! function, a masked load), an indirect call, a call of the kernel
//! function itself (its loads would then run with other parameters than
//! the launch's), or any memory access in another function, makes the
//! analysis give up; so does a program in which no such read meets an
//! input byte not read yet. A state's live input
//! bytes ([`Readers::live`]) are then, for every thread that has not ended
//! and every such instruction its frames may still execute
//! ([`Program::may_reach`], an over-approximation), the bytes that thread
//! reads there; every other `Input` byte is fingerprinted as unread.
//!
//! This is what lets the search meet again the states of a kernel that
//! loads its inputs from buffers at `tid`-indexed addresses (`x = f[tid]`):
//! the words a thread has read and will not read again no longer tell
//! apart the states that follow. It pairs with the memoization lookup
//! after a thread's run that made choices ([`super::sched`]), taken only
//! when this analysis applies: the states after one thread ran then meet
//! before the next thread chooses its own inputs.

use std::collections::HashMap;

use crate::ir::{InstKind, Operand, Type, ValueDef, ValueId};

use super::chooser::{Chooser, ChooserMode};
use super::memory::Byte;
use super::program::{classify, CalleeKind, Program};
use super::state::{Loc, Machine, Status};
use super::step::Ctx;
use super::value::Val;
use super::Options;

/// Bytes of memory: object, offset, count.
pub type Span = (u32, i64, u64);

/// The instructions that may read memory, each with what every thread
/// reads there (M-LIVE-MEM).
#[derive(Clone, Debug)]
pub struct Readers {
    /// Per instruction: where it is, and per thread (index in the launch)
    /// the object, offset and byte count it reads.
    sites: Vec<(Loc, Vec<Span>)>,
}

/// What every thread may read of memory in the program run from `m` (a
/// launched machine), or `None` when some read is not a launch constant
/// (module documentation) or no read meets an input byte not read yet.
pub fn analyse(prog: &Program, opts: &Options, m: &Machine) -> Option<Readers> {
    let mut chooser = Chooser::new(ChooserMode::Exhaustive);
    let cx = Ctx {
        prog,
        opts,
        chooser: &mut chooser,
    };
    let dl = prog.layout.as_ref().ok()?;
    let mut sites = Vec::new();
    let mut memo: Vec<HashMap<ValueId, Option<Val>>> = vec![HashMap::new(); m.threads.len()];
    for (fi, f) in prog.module.functions.iter().enumerate() {
        // Functions the kernel never enters (clang's OpenCL output keeps
        // an uncalled copy of each kernel body) run nowhere.
        if !f.has_body() || !prog.may_enter(prog.kernel, fi) {
            continue;
        }
        for b in f.block_ids() {
            for (i, inst) in f.block(b).insts.iter().enumerate() {
                let (ty, ptr) = match &inst.kind {
                    InstKind::Load { ty, ptr, .. } => (ty, &**ptr),
                    InstKind::AtomicRmw { ptr, value, .. } => (&value.ty, ptr),
                    InstKind::CmpXchg { ptr, cmp, .. } => (&cmp.ty, &**ptr),
                    InstKind::Call(c) => {
                        let callee = classify(prog.module, c);
                        let defined = matches!(callee, CalleeKind::Defined(_));
                        let pointer = c.args.iter().any(|a| holds_pointer(&a.ty));
                        // A call of the kernel function itself would run
                        // its loads with other parameters than the launch's.
                        let kernel = matches!(callee, CalleeKind::Defined(g) if g == prog.kernel);
                        if c.callee_name().is_none() || (!defined && pointer) || kernel {
                            return None;
                        }
                        continue;
                    }
                    _ => continue,
                };
                if fi != prog.kernel {
                    return None;
                }
                let loc = Loc {
                    func: fi,
                    block: b,
                    index: i,
                };
                let n = dl.store_size(ty, prog.module).ok()?;
                let mut per_thread = Vec::with_capacity(m.threads.len());
                for (t, memo) in memo.iter_mut().enumerate() {
                    match constant(&cx, m, t, loc, &ptr.ty, &ptr.value, memo, 0)? {
                        Val::Ptr { obj, off } if obj != 0 => per_thread.push((obj, off, n)),
                        _ => return None,
                    }
                }
                sites.push((loc, per_thread));
            }
        }
    }
    // Nothing to leave out when nothing reads input bytes.
    let reads_input = sites.iter().any(|(_, per_thread)| {
        per_thread.iter().any(|&(obj, ..)| {
            m.mem
                .objects
                .get(&obj)
                .is_some_and(|o| o.bytes.iter().any(|b| matches!(b, Byte::Unread)))
        })
    });
    reads_input.then_some(Readers { sites })
}

/// Whether a value of type `t` is or holds a pointer.
fn holds_pointer(t: &Type) -> bool {
    match t {
        Type::Ptr(_) => true,
        Type::Vector { elem, .. } => holds_pointer(elem),
        Type::Array(a) => holds_pointer(&a.elem),
        // A named type is resolved nowhere here: assume it may.
        Type::Named(_) | Type::TypedPtr { .. } => true,
        Type::Struct { fields, .. } => fields.iter().any(holds_pointer),
        _ => false,
    }
}

/// The value of operand `op` (of type `ty`) of the kernel function in
/// thread `t` of `m` when it is a launch constant: a pointer parameter
/// (as launched), an integer constant, a geometry read, or integer
/// arithmetic, a cast or a `getelementptr` of such values; `None`
/// otherwise (and past a depth of 64 definitions).
#[allow(clippy::too_many_arguments)]
fn constant(
    cx: &Ctx,
    m: &Machine,
    t: usize,
    loc: Loc,
    ty: &Type,
    op: &Operand,
    memo: &mut HashMap<ValueId, Option<Val>>,
    depth: u32,
) -> Option<Val> {
    let th = &m.threads[t];
    let v = match op {
        Operand::Const(c) => return super::step::const_val(m, cx, loc, th.group, ty, c).ok(),
        Operand::Local(v) => *v,
        Operand::Metadata(_) => return None,
    };
    if let Some(x) = memo.get(&v) {
        return x.clone();
    }
    if depth > 64 {
        return None;
    }
    let f = cx.prog.func(loc.func);
    let x = match f.value(v).def {
        ValueDef::Arg(_) => match th.frames.iter().next().and_then(|fr| fr.values.get(&v)) {
            Some(p @ Val::Ptr { .. }) => Some(p.clone()),
            _ => None,
        },
        ValueDef::Inst { block, index } => {
            let at = Loc {
                func: loc.func,
                block,
                index: index as usize,
            };
            let inst = &f.block(block).insts[index as usize];
            let mut get = |ty: &Type, op: &Operand| constant(cx, m, t, at, ty, op, memo, depth + 1);
            match &inst.kind {
                InstKind::Binary {
                    op,
                    flags,
                    ty,
                    lhs,
                    rhs,
                } if matches!(ty, Type::Int(_)) => {
                    let (a, b) = (get(ty, lhs)?, get(ty, rhs)?);
                    match super::ops::binary(cx, at, *op, flags, ty, a, b).ok()? {
                        super::value::Arith::Val(v) => Some(v),
                        super::value::Arith::Ub(_) => None,
                    }
                }
                InstKind::Cast {
                    op,
                    flags,
                    from,
                    to,
                } if matches!(from.ty, Type::Int(_) | Type::Ptr(_)) => {
                    let a = get(&from.ty, &from.value)?;
                    super::ops::cast(m, cx, at, *op, flags, &from.ty, to, a).ok()
                }
                InstKind::Gep {
                    flags,
                    source_ty,
                    base,
                    indices,
                } => {
                    let p = get(&base.ty, &base.value)?;
                    let idx = indices
                        .iter()
                        .map(|i| get(&i.ty, &i.value))
                        .collect::<Option<Vec<Val>>>()?;
                    super::access::gep(m, cx, at, flags, source_ty, p, &idx).ok()
                }
                InstKind::Call(c) => match classify(cx.prog.module, c) {
                    CalleeKind::Builtin(op @ crate::intrinsics::Op::Index(..)) => {
                        let args = c
                            .args
                            .iter()
                            .map(|a| get(&a.ty, &a.value))
                            .collect::<Option<Vec<Val>>>()?;
                        let bits = f.value(v).ty.int_bits();
                        let geom = cx.opts.geometry();
                        super::collective::per_thread(&geom, th.tid, op, &args, bits).ok()
                    }
                    _ => None,
                },
                _ => None,
            }
        }
    };
    let x = x.filter(|v| matches!(v, Val::Int { .. } | Val::Ptr { .. }));
    memo.insert(v, x.clone());
    x
}

impl Readers {
    /// The bytes of memory some continuation of `m` may still read, as
    /// (object, offset, count): what each thread that has not ended reads
    /// at each reading instruction its frames may still execute.
    pub fn live(&self, prog: &Program, m: &Machine) -> Vec<Span> {
        let mut out = Vec::new();
        for (t, th) in m.threads.iter().enumerate() {
            if !matches!(th.status, Status::Running | Status::Waiting(_)) {
                continue;
            }
            // Innermost frame first, each at its next instruction (outer
            // frames are past their call).
            let at: Vec<Loc> = th
                .frames
                .iter()
                .rev()
                .map(|fr| Loc {
                    func: fr.func,
                    block: fr.block,
                    index: fr.index,
                })
                .collect();
            for (loc, per_thread) in &self.sites {
                if prog.may_reach(&at, *loc) {
                    out.push(per_thread[t]);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
