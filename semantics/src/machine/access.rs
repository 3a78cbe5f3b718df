//! Step rules of the memory instructions (docs/RULES.md §9): `alloca`
//! (P-MEM-OBJ), `load`/`store`/`atomicrmw` (P-MEM-ACCESS), `getelementptr`
//! (P-MEM-LAYOUT), over the objects of [`super::memory`]. Stores to observed
//! objects are R-MEM events.
//!
//! Not modelled (reported as unsupported, never guessed): aggregates other
//! than `cmpxchg`'s `{ T, i1 }` result and vectors (whose layout is
//! P-VEC-MEM's, [`super::memory::encode`]), vectors of elements that are
//! not a whole number of bytes.
//! Data races (P-MEM-RACE) are detected under `Options::races` (every
//! access goes through [`race`]; barriers join clocks in
//! `sched::fire` via [`synchronizes`]); without it a racy program gets the
//! behaviours of the schedules the scheduler runs instead of UB (README,
//! "What this does not model").

use im::Vector;

use crate::ir::layout::DataLayout;
use crate::ir::{RmwOp, Type, TypedOperand};

use super::memory::{decode, encode, private_id, Byte, ObjKind, Object};
use super::state::{Loc, Machine, Observation, ThreadState};
use super::step::{choose_value, eval_t, unsupported, Ctx, R};
use super::value::{mask, signed, UbKind, Val};

/// The data layout, or the construct that makes it unusable.
pub(super) fn layout<'a>(cx: &'a Ctx, loc: Loc) -> R<&'a DataLayout> {
    cx.prog
        .layout
        .as_ref()
        .map_err(|e| unsupported(cx.prog, loc, &format!("data layout: {}", e.0)))
}

fn size(cx: &Ctx, loc: Loc, ty: &Type, alloc: bool) -> R<u64> {
    let dl = layout(cx, loc)?;
    let r = if alloc {
        dl.alloc_size(ty, cx.prog.module)
    } else {
        dl.store_size(ty, cx.prog.module)
    };
    r.map_err(|e| unsupported(cx.prog, loc, &format!("memory of this type ({})", e.0)))
}

/// P-MEM-OBJ: each execution of an `alloca` creates a fresh private object
/// of the thread, `count` times the type's allocation size, all poison.
pub(super) fn alloca(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &mut Ctx,
    loc: Loc,
    ty: &Type,
    count: Option<&TypedOperand>,
    addrspace: Option<u32>,
) -> R<Result<Val, UbKind>> {
    let n = match count {
        None => 1,
        Some(c) => match eval_t(m, th, cx, loc, c)? {
            Val::Int { bits, v } => v & mask(bits),
            // LangRef leaves a poison count undefined; the allocation size
            // is then unknown.
            _ => return Ok(Err(UbKind::AllocaOfPoisonCount)),
        },
    };
    let bytes = (size(cx, loc, ty, true)? as u128).saturating_mul(n);
    if bytes > 1 << 20 {
        return Err(unsupported(cx.prog, loc, "alloca larger than 1 MiB"));
    }
    let id = private_id(th.tid, th.allocas);
    th.allocas += 1;
    let f = cx.prog.func(loc.func);
    let name = match f.block(loc.block).insts[loc.index].result {
        Some(v) => format!("%{} of t{}", f.value(v).name, th.tid),
        None => format!("an alloca of t{}", th.tid),
    };
    m.mem.add(
        id,
        Object {
            name,
            kind: ObjKind::Private { tid: th.tid },
            space: addrspace.unwrap_or(0),
            bytes: Vector::from(vec![Byte::Poison; bytes as usize]),
        },
    );
    Ok(Ok(Val::Ptr { obj: id, off: 0 }))
}

/// P-MEM-ACCESS: a load of `ty` through `p`. Input bytes not read before
/// are chosen now (P-INPUT), as one value of the loaded type.
#[allow(clippy::too_many_arguments)]
pub(super) fn load(
    m: &mut Machine,
    th: &ThreadState,
    cx: &mut Ctx,
    loc: Loc,
    ty: &Type,
    p: Val,
    atomic: bool,
) -> R<Result<Val, UbKind>> {
    let n = size(cx, loc, ty, false)?;
    let (obj, off) = match m.mem.check(p, n, th.tid, false) {
        Ok(x) => x,
        Err(why) => return Ok(Err(why)),
    };
    if let Some(why) = race(m, th, cx, loc, obj, off, n, false, atomic) {
        return Ok(Err(why));
    }
    let mut bytes = m.mem.read(obj, off, n);
    if bytes.contains(&Byte::Unread) {
        let v = choose_value(m, cx.chooser, cx.opts, ty);
        let chosen = encode(v, ty, layout(cx, loc)?, cx.prog.module)
            .map_err(|e| unsupported(cx.prog, loc, &e.0))?;
        for (b, c) in bytes.iter_mut().zip(chosen) {
            if *b == Byte::Unread {
                *b = match c {
                    Byte::Data(x) => Byte::Input(x),
                    other => other,
                };
            }
        }
        m.mem.write(obj, off, &bytes);
    }
    decode(&bytes, ty, &m.mem)
        .map(Ok)
        .map_err(|e| unsupported(cx.prog, loc, &e.0))
}

/// P-MEM-ACCESS: a store of `v` as `ty` through `p`; R-MEM: a store to an
/// observed object (a global outside workgroup memory, an input buffer) is
/// an event of the thread.
#[allow(clippy::too_many_arguments)]
pub(super) fn store(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &Ctx,
    loc: Loc,
    ty: &Type,
    p: Val,
    v: Val,
    atomic: bool,
) -> R<Result<(), UbKind>> {
    let bytes = encode(v.clone(), ty, layout(cx, loc)?, cx.prog.module)
        .map_err(|e| unsupported(cx.prog, loc, &e.0))?;
    let (obj, off) = match m.mem.check(p, bytes.len() as u64, th.tid, true) {
        Ok(x) => x,
        Err(why) => return Ok(Err(why)),
    };
    if let Some(why) = race(m, th, cx, loc, obj, off, bytes.len() as u64, true, atomic) {
        return Ok(Err(why));
    }
    m.mem.write(obj, off, &bytes);
    // P-MEM-UNDEF: the thread's last write of each byte.
    m.mem.note_write(obj, off, &bytes, th.tid, atomic);
    if matches!(m.mem.objects[&obj].kind, ObjKind::Global | ObjKind::Input) {
        th.observations.push_back(Observation::Store {
            obj,
            off: off as i64,
            value: v,
        });
    }
    Ok(Ok(()))
}

/// P-MEM-RACE (with `Options::races`): checks and records an access; the
/// race it completes, as UB naming both accesses.
#[allow(clippy::too_many_arguments)]
fn race(
    m: &mut Machine,
    th: &ThreadState,
    cx: &Ctx,
    loc: Loc,
    obj: u32,
    off: u64,
    n: u64,
    write: bool,
    atomic: bool,
) -> Option<UbKind> {
    if !cx.opts.races {
        return None;
    }
    let at = super::step::loc_text(cx.prog, loc);
    let (byte, other, other_write) = m.mem.race_check(obj, off, n, th.tid, write, atomic, &at)?;
    Some(UbKind::DataRace {
        object: m.mem.objects[&obj].name.clone(),
        off: byte,
        this_write: write,
        other_tid: other.tid,
        other_write,
        other_at: other.at,
    })
}

/// Whether a fired convergent call orders memory (P-MEM-SYNC): a barrier
/// of the intrinsic table, or an unknown convergent function that may
/// access memory (not `readnone`, `memory(none)` or `nosync`).
pub fn synchronizes(module: &crate::ir::Module, call: &crate::ir::Call) -> bool {
    use super::program::{classify, CalleeKind};
    match classify(module, call) {
        CalleeKind::Builtin(crate::intrinsics::Op::Barrier(_)) => true,
        CalleeKind::UnknownConvergent => {
            let attrs = |a: &[crate::ir::Attr]| {
                module.expand_attrs(a).iter().any(|x| match x {
                    crate::ir::Attr::Word(w) => w == "readnone" || w == "nosync",
                    crate::ir::Attr::Paren { name, args } => name == "memory" && args == "none",
                    _ => false,
                })
            };
            let decl = call
                .callee_name()
                .and_then(|n| module.function(n))
                .is_some_and(|f| attrs(&f.fn_attrs));
            !(decl || attrs(&call.fn_attrs))
        }
        _ => false,
    }
}

/// Whether `name` is one of the memory intrinsics of [`mem_intrinsic`].
pub fn is_mem_intrinsic(name: &str) -> bool {
    ["llvm.memcpy.", "llvm.memmove.", "llvm.memset."]
        .iter()
        .any(|p| name.starts_with(p))
}

/// P-MEM-ACCESS: `llvm.memcpy`, `llvm.memcpy.inline`, `llvm.memmove`,
/// `llvm.memset`, `llvm.memset.inline` as byte loops under the load and
/// store rules (LangRef): a length of 0 does nothing; a poison length is
/// UB; `memcpy` of overlapping ranges is UB unless they are equal (LangRef:
/// "must either be equal or non-overlapping"); bytes keep what they are
/// (poison, pointer bytes with their provenance). R-MEM: each byte written
/// to an observed object is a store event of one `i8` (a pointer byte: its
/// address byte). Input bytes not read yet cannot be copied without
/// enumerating each of them: reported unsupported.
pub(super) fn mem_intrinsic(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &Ctx,
    loc: Loc,
    name: &str,
    args: &[Val],
) -> R<Result<(), UbKind>> {
    let set = name.starts_with("llvm.memset.");
    // `llvm.mem*.element.unordered.atomic.*` (same first three operands):
    // each element is an `unordered` atomic access, so under P-MEM-RACE it
    // never races with another atomic access (threads run alone between
    // scheduling points, so no element is torn either).
    let atomic = name.contains(".element.unordered.atomic");
    if args.len() < 3 {
        return Err(unsupported(
            cx.prog,
            loc,
            &format!("@{name} with {} argument(s)", args.len()),
        ));
    }
    let len = match args[2] {
        Val::Int { v, .. } => v,
        _ => return Ok(Err(UbKind::MemIntrinsicPoisonLength)),
    };
    if len == 0 {
        return Ok(Ok(()));
    }
    let len = u64::try_from(len).unwrap_or(u64::MAX);
    let (dobj, doff) = match m.mem.check(args[0].clone(), len, th.tid, true) {
        Ok(x) => x,
        Err(why) => return Ok(Err(why)),
    };
    let bytes: Vec<Byte> = if set {
        let b = match args[1] {
            Val::Int { v, .. } => Byte::Data(v as u8),
            _ => Byte::Poison,
        };
        vec![b; len as usize]
    } else {
        let (sobj, soff) = match m.mem.check(args[1].clone(), len, th.tid, false) {
            Ok(x) => x,
            Err(why) => return Ok(Err(why)),
        };
        // LangRef: the ranges "must either be equal or non-overlapping".
        if name.starts_with("llvm.memcpy.")
            && sobj == dobj
            && soff != doff
            && soff < doff + len
            && doff < soff + len
        {
            return Ok(Err(UbKind::OverlappingCopy));
        }
        if let Some(why) = race(m, th, cx, loc, sobj, soff, len, false, atomic) {
            return Ok(Err(why));
        }
        let b = m.mem.read(sobj, soff, len);
        if b.contains(&Byte::Unread) {
            return Err(unsupported(
                cx.prog,
                loc,
                &format!("@{name} of input bytes not read yet"),
            ));
        }
        b
    };
    if let Some(why) = race(m, th, cx, loc, dobj, doff, len, true, atomic) {
        return Ok(Err(why));
    }
    m.mem.write(dobj, doff, &bytes);
    // P-MEM-UNDEF: the thread's last write of each byte.
    m.mem.note_write(dobj, doff, &bytes, th.tid, atomic);
    if matches!(m.mem.objects[&dobj].kind, ObjKind::Global | ObjKind::Input) {
        for (i, b) in bytes.iter().enumerate() {
            let value = match *b {
                Byte::Data(x) | Byte::Input(x) => Val::Int {
                    bits: 8,
                    v: x as u128,
                },
                Byte::Ptr { obj, off, idx } => Val::Int {
                    bits: 8,
                    v: (super::memory::address(obj, off) >> (8 * idx as u32)) as u8 as u128,
                },
                Byte::Poison | Byte::Unread | Byte::Undef => Val::Poison,
            };
            th.observations.push_back(Observation::Store {
                obj: dobj,
                off: (doff + i as u64) as i64,
                value,
            });
        }
    }
    Ok(Ok(()))
}

/// `atomicrmw`: load, combine, store as one step of the thread (P-MEM-RACE:
/// atomics are sequentially consistent; a thread runs alone between
/// scheduling points, so the three happen together). Returns the old value.
#[allow(clippy::too_many_arguments)]
pub(super) fn atomicrmw(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &mut Ctx,
    loc: Loc,
    op: RmwOp,
    ty: &Type,
    p: Val,
    x: Val,
) -> R<Result<Val, UbKind>> {
    let old = match load(m, th, cx, loc, ty, p.clone(), true)? {
        Ok(v) => v,
        Err(why) => return Ok(Err(why)),
    };
    let new = rmw(cx, loc, op, old.clone(), x)?;
    Ok(store(m, th, cx, loc, ty, p, new, true)?.map(|()| old))
}

/// The `atomicrmw` operations on integers (LangRef).
fn rmw(cx: &Ctx, loc: Loc, op: RmwOp, old: Val, x: Val) -> R<Val> {
    if let (&Val::Float { ty: f, bits: a }, &Val::Float { bits: b, .. }) = (&old, &x) {
        return rmw_float(cx, loc, op, f, a, b);
    }
    let (&Val::Int { bits, v: a }, &Val::Int { v: b, .. }) = (&old, &x) else {
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
        RmwOp::UIncWrap => {
            if a >= b {
                0
            } else {
                a + 1
            }
        }
        RmwOp::UDecWrap => {
            if a == 0 || a > b {
                b
            } else {
                a - 1
            }
        }
        RmwOp::USubCond => {
            if a >= b {
                a - b
            } else {
                a
            }
        }
        RmwOp::USubSat => a.saturating_sub(b),
        _ => {
            return Err(unsupported(
                cx.prog,
                loc,
                "floating-point atomicrmw on integers",
            ))
        }
    };
    Ok(Val::Int {
        bits,
        v: r & mask(bits),
    })
}

/// `cmpxchg` (LangRef): load, compare with `cmp`, store `new` when equal,
/// as one step (P-MEM-RACE: atomics are sequentially consistent). The
/// result is `{ old, success }`. A `weak` exchange may fail spuriously: the
/// chooser takes both outcomes when the values are equal. Integers compare
/// by value, pointers by address (P-MEM-PTR); a poison operand in the
/// comparison is UB (whether memory changes would depend on poison).
#[allow(clippy::too_many_arguments)]
pub(super) fn cmpxchg(
    m: &mut Machine,
    th: &mut ThreadState,
    cx: &mut Ctx,
    loc: Loc,
    ty: &Type,
    p: Val,
    cmp: Val,
    new: Val,
    weak: bool,
) -> R<Result<Val, UbKind>> {
    let old = match load(m, th, cx, loc, ty, p.clone(), true)? {
        Ok(v) => v,
        Err(why) => return Ok(Err(why)),
    };
    let equal = match (&old, &cmp) {
        (Val::Int { v: a, .. }, Val::Int { v: b, .. }) => a == b,
        (&Val::Ptr { obj: o1, off: f1 }, &Val::Ptr { obj: o2, off: f2 }) => {
            super::memory::address(o1, f1) == super::memory::address(o2, f2)
        }
        (Val::Poison, _) | (_, Val::Poison) => return Ok(Err(UbKind::CmpXchgOnPoison)),
        _ => return Err(unsupported(cx.prog, loc, "cmpxchg of this type")),
    };
    let success = equal && !(weak && cx.chooser.choose(2) == 1);
    if success {
        if let Err(why) = store(m, th, cx, loc, ty, p, new, true)? {
            return Ok(Err(why));
        }
    }
    Ok(Ok(match old {
        Val::Int { bits, v } => Val::CmpXchgInt { bits, v, success },
        Val::Ptr { obj, off } => Val::CmpXchgPtr { obj, off, success },
        _ => unreachable!("the comparison above admits integers and pointers only"),
    }))
}

/// The floating-point `atomicrmw` operations (LangRef): `fadd`/`fsub` as
/// the instructions, `fmax`/`fmin` as `llvm.maxnum`/`llvm.minnum`, `xchg`.
fn rmw_float(
    cx: &Ctx,
    loc: Loc,
    op: RmwOp,
    f: crate::ir::float::FloatTy,
    a: u64,
    b: u64,
) -> R<Val> {
    use super::float::{binary, intrinsic, val};
    let fv = |x| val(f, x);
    Ok(match op {
        RmwOp::Xchg => fv(b),
        RmwOp::FAdd => binary(crate::ir::BinOp::FAdd, &[], f, a, b),
        RmwOp::FSub => binary(crate::ir::BinOp::FSub, &[], f, a, b),
        RmwOp::FMax | RmwOp::FMin => {
            let name = if op == RmwOp::FMax {
                "llvm.maxnum"
            } else {
                "llvm.minnum"
            };
            intrinsic(name, &[], &[fv(a), fv(b)])
                .expect("P-FLOAT: maxnum and minnum are float intrinsics")
                .expect("P-FLOAT: two float operands is their arity")
        }
        _ => {
            return Err(unsupported(
                cx.prog,
                loc,
                "integer atomicrmw on a floating-point value",
            ))
        }
    })
}

/// P-MEM-LAYOUT: `getelementptr` over evaluated operands: the base pointer
/// moved by each index times the allocation size of what it steps over
/// (struct indices by the field offsets). Poison when the base or an index
/// is; `inbounds` results outside `[0, size]` of their object are poison.
pub(super) fn gep(
    m: &Machine,
    cx: &Ctx,
    loc: Loc,
    flags: &[String],
    source_ty: &Type,
    p: Val,
    indices: &[Val],
) -> R<Val> {
    let dl = layout(cx, loc)?;
    let md = cx.prog.module;
    let err = |e: crate::ir::layout::LayoutError| {
        unsupported(cx.prog, loc, &format!("getelementptr ({})", e.0))
    };
    let mut delta: i64 = 0;
    let mut ty = source_ty.clone();
    for (k, idx) in indices.iter().enumerate() {
        let Val::Int { bits, v } = *idx else {
            return Ok(Val::Poison);
        };
        let i = signed(bits, v) as i64;
        let step = if k == 0 {
            dl.alloc_size(&ty, md).map_err(err)? as i64
        } else {
            let resolved = match &ty {
                Type::Named(_) => {
                    let (offs, _, _) = dl.struct_layout(&ty, md).map_err(err)?;
                    let fields = match md.types.iter().find(|t| Type::named(&t.name) == ty) {
                        Some(crate::ir::TypeDef {
                            ty: Some(Type::Struct { fields, .. }),
                            ..
                        }) => fields.clone(),
                        _ => return Err(unsupported(cx.prog, loc, "getelementptr into this type")),
                    };
                    Some((offs, fields))
                }
                Type::Struct { fields, .. } => {
                    Some((dl.struct_layout(&ty, md).map_err(err)?.0, fields.clone()))
                }
                _ => None,
            };
            match (resolved, ty.clone()) {
                (Some((offs, fields)), _) => {
                    let f = usize::try_from(i)
                        .ok()
                        .filter(|f| *f < fields.len())
                        .ok_or_else(|| unsupported(cx.prog, loc, "struct index out of range"))?;
                    delta = delta.wrapping_add(offs[f] as i64);
                    ty = fields[f].clone();
                    continue;
                }
                (None, t @ (Type::Array(_) | Type::Vector { .. })) => {
                    ty = t.element().expect("an array or vector").clone();
                    dl.alloc_size(&ty, md).map_err(err)? as i64
                }
                _ => return Err(unsupported(cx.prog, loc, "getelementptr into this type")),
            }
        };
        delta = delta.wrapping_add(i.wrapping_mul(step));
    }
    let Val::Ptr { obj, off } = p else {
        return Ok(Val::Poison);
    };
    let off = off.wrapping_add(delta);
    if flags.iter().any(|f| f == "inbounds") && obj != 0 {
        let len = m.mem.objects.get(&obj).map_or(0, |o| o.bytes.len() as i64);
        if off < 0 || off > len {
            return Ok(Val::Poison);
        }
    }
    Ok(Val::Ptr { obj, off })
}

/// P-MEM-OBJ at launch: one object per global (one per launch group for
/// workgroup globals), filled from its initializer. A global whose type has
/// no layout, or whose initializer holds something the byte model does not
/// represent, gets no object: using it is reported as
/// unsupported ([`super::step`] `const_val`), never guessed.
pub(super) fn init_globals(m: &mut Machine, cx: &mut Ctx, groups: u32) -> R<()> {
    let md = cx.prog.module;
    let Ok(dl) = cx.prog.layout.as_ref() else {
        return Ok(());
    };
    let mut todo = Vec::new();
    for (i, g) in md.globals.iter().enumerate() {
        let Ok(size) = dl.alloc_size(&g.ty, md) else {
            continue;
        };
        let space = g
            .keywords
            .iter()
            .find_map(|k| {
                k.strip_prefix("addrspace(")?
                    .strip_suffix(')')?
                    .parse()
                    .ok()
            })
            .unwrap_or(0);
        let wg = super::memory::is_workgroup(g);
        for group in 0..if wg { groups } else { 1 } {
            let id = super::memory::global_id(md, i, group);
            let external =
                g.init.is_none() || g.keywords.iter().any(|k| k == "externally_initialized");
            let fill = if external { Byte::Unread } else { Byte::Poison };
            m.mem.add(
                id,
                Object {
                    name: format!("@{}", g.name),
                    kind: if wg {
                        ObjKind::Workgroup { group }
                    } else {
                        ObjKind::Global
                    },
                    space,
                    bytes: Vector::from(vec![fill; size as usize]),
                },
            );
            if let Some(c) = &g.init {
                todo.push((id, group, c));
            }
        }
    }
    // Initializers may point at any global: all objects exist first.
    for (id, group, c) in todo {
        let ty = &md.globals[(id - 1 - md.globals.len() as u32 * group) as usize].ty;
        let loc = Loc {
            func: cx.prog.kernel,
            block: crate::ir::BlockId(0),
            index: 0,
        };
        match init_bytes(m, cx, loc, group, ty, c)? {
            Some(bytes) => m.mem.write(id, 0, &bytes),
            None => {
                m.mem.objects.remove(&id);
            }
        }
    }
    Ok(())
}

/// The bytes of constant `c` of type `ty` laid out in memory (padding is
/// poison); `None` when the byte model cannot represent it.
fn init_bytes(
    m: &Machine,
    cx: &Ctx,
    loc: Loc,
    group: u32,
    ty: &Type,
    c: &crate::ir::Const,
) -> R<Option<Vec<Byte>>> {
    use crate::ir::Const;
    let Ok(dl) = cx.prog.layout.as_ref() else {
        return Ok(None);
    };
    let md = cx.prog.module;
    let Ok(size) = dl.alloc_size(ty, md) else {
        return Ok(None);
    };
    let mut out = vec![Byte::Poison; size as usize];
    let put = |out: &mut Vec<Byte>, at: u64, b: Vec<Byte>| {
        for (i, x) in b.into_iter().enumerate() {
            if let Some(slot) = out.get_mut(at as usize + i) {
                *slot = x;
            }
        }
    };
    match (c, ty) {
        (Const::ZeroInit | Const::Null, _) => out = vec![Byte::Data(0); size as usize],
        (Const::Undef | Const::Poison, _) => {}
        (Const::CString(b), _) => put(&mut out, 0, b.iter().map(|x| Byte::Data(*x)).collect()),
        (
            Const::Array(items) | Const::Vector(items),
            t @ (Type::Array(_) | Type::Vector { .. }),
        ) => {
            let elem = t.element().expect("an array or vector");
            let Ok(stride) = dl.alloc_size(elem, md) else {
                return Ok(None);
            };
            for (k, it) in items.iter().enumerate() {
                match init_bytes(m, cx, loc, group, &it.ty, &it.value)? {
                    Some(b) => put(&mut out, k as u64 * stride, b),
                    None => return Ok(None),
                }
            }
        }
        (Const::Struct { fields, .. }, _) => {
            let Ok((offs, _, _)) = dl.struct_layout(ty, md) else {
                return Ok(None);
            };
            for (it, off) in fields.iter().zip(offs) {
                match init_bytes(m, cx, loc, group, &it.ty, &it.value)? {
                    Some(b) => put(&mut out, off, b),
                    None => return Ok(None),
                }
            }
        }
        (Const::Int { .. } | Const::Global(_) | Const::Expr(_), Type::Int(_) | Type::Ptr(_))
        | (Const::Float(_), Type::Half | Type::BFloat | Type::Float | Type::Double) => {
            let v = match super::step::const_val(m, cx, loc, group, ty, c) {
                Ok(v) => v,
                Err(_) => return Ok(None),
            };
            match encode(v, ty, dl, md) {
                Ok(b) => put(&mut out, 0, b),
                Err(_) => return Ok(None),
            }
        }
        _ => return Ok(None),
    }
    Ok(Some(out))
}

/// P-INPUT / P-MEM-OBJ: the buffer a kernel pointer parameter `name` points
/// to: the given contents (`Options::buffers`), else `dereferenceable(N)`
/// or `--buffer-bytes` bytes of input, chosen when first read.
pub(super) fn input_buffer(
    m: &mut Machine,
    opts: &super::Options,
    module: &crate::ir::Module,
    name: &str,
    param: &crate::ir::Param,
) -> Val {
    let space = match param.ty {
        Type::Ptr(s) => s,
        _ => 0,
    };
    let bytes: Vec<Byte> = match opts.buffers.get(name) {
        Some(b) => b.iter().map(|x| Byte::Data(*x)).collect(),
        None => {
            let deref = module
                .expand_attrs(&param.attrs)
                .iter()
                .find_map(|a| match a {
                    crate::ir::Attr::Paren { name, args }
                        if name == "dereferenceable" || name == "dereferenceable_or_null" =>
                    {
                        args.trim().parse::<u64>().ok()
                    }
                    _ => None,
                });
            vec![Byte::Unread; deref.unwrap_or(opts.buffer_bytes).min(1 << 20) as usize]
        }
    };
    let k = m.next_input;
    m.next_input += 1;
    let obj = super::memory::input_id(k);
    m.mem.add(
        obj,
        Object {
            name: format!("%{name}"),
            kind: ObjKind::Input,
            space,
            bytes: Vector::from(bytes),
        },
    );
    Val::Ptr { obj, off: 0 }
}
