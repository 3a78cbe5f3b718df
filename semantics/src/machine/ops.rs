//! Value rules of the arithmetic, comparison, selection and cast
//! instructions (P-THREAD), one function per instruction kind, on scalars
//! and, element by element, on fixed-width vectors (P-VEC-ELEM: each
//! function lifts its scalar rule with [`super::vector::zip`] or
//! [`super::vector::map`]). The step rules ([`super::step`]) read the
//! operands and store the result; the floating-point rules are in
//! [`super::float`], the integer ones in [`super::value`].

use crate::ir::float::FloatTy;
use crate::ir::{BinOp, CastOp, ICmpPred, Type};

use super::state::{Loc, Machine};
use super::step::{choose_value, loc_text, unsupported, Ctx, Stop, R};
use super::value::{binary as int_binary, icmp as int_icmp, int, mask, signed, Arith, UbKind, Val};
use super::vector::{map, zip};
use super::RunError;

/// The width of an integer type the interpreter computes with (1 to 128).
pub(super) fn bits_of(cx: &Ctx, loc: Loc, ty: &Type) -> R<u32> {
    match ty.int_bits() {
        Some(b) if (1..=128).contains(&b) => Ok(b),
        Some(_) => Err(unsupported(cx.prog, loc, "integer wider than 128 bits")),
        None => Err(unsupported(cx.prog, loc, "non-integer arithmetic")),
    }
}

/// P-THREAD binary operators (integer: [`super::value::binary`]; float:
/// P-FLOAT [`super::float::binary`]); on vectors element-wise, UB when an
/// element's operation is UB (LangRef: a vector `udiv` by a vector with a
/// zero element is UB).
#[allow(clippy::too_many_arguments)]
pub(super) fn binary(
    cx: &Ctx,
    loc: Loc,
    op: BinOp,
    flags: &[String],
    ty: &Type,
    a: Val,
    b: Val,
) -> R<Arith> {
    // M-DATA: an operation on a data symbol builds a term (the analysis
    // allows only integer operations without UB here).
    if let (Type::Int(bits), true) = (ty, super::data::is_sym(&a) || super::data::is_sym(&b)) {
        return match super::data::bin(op, flags, *bits, a, b) {
            Some(v) => Ok(Arith::Val(v)),
            None => Err(unsupported(cx.prog, loc, super::data::TOO_LARGE)),
        };
    }
    zip(ty, a, b, |et, x, y| {
        binary_elem(cx, loc, op, flags, et, x, y)
    })
}

fn binary_elem(
    cx: &Ctx,
    loc: Loc,
    op: BinOp,
    flags: &[String],
    ty: &Type,
    a: Val,
    b: Val,
) -> R<Arith> {
    if let Some(f) = FloatTy::of(ty) {
        return Ok(Arith::Val(match (a, b) {
            (Val::Float { bits: a, .. }, Val::Float { bits: b, .. }) => {
                super::float::binary(op, flags, f, a, b)
            }
            _ => Val::Poison,
        }));
    }
    let bits = bits_of(cx, loc, ty)?;
    Ok(match (a, b) {
        (Val::Int { v: a, .. }, Val::Int { v: b, .. }) => int_binary(op, flags, bits, a, b),
        // Division by a poison divisor may be division by zero.
        (_, Val::Poison) if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) => {
            Arith::Ub(UbKind::DivisionByPoison)
        }
        _ => Arith::Val(Val::Poison),
    })
}

/// `fneg` (P-FLOAT: the sign bit flipped), element-wise on vectors.
pub(super) fn fneg(flags: &[String], ty: &Type, a: Val) -> Val {
    map(ty, ty, a, |_, _, x| match x {
        Val::Float { ty: f, bits } => super::float::fneg(flags, f, bits),
        _ => Val::Poison,
    })
}

/// `fcmp` (P-FLOAT), element-wise on vectors (a vector of `i1`).
#[allow(clippy::too_many_arguments)]
pub(super) fn fcmp(
    cx: &Ctx,
    loc: Loc,
    pred: &str,
    flags: &[String],
    ty: &Type,
    a: Val,
    b: Val,
) -> R<Val> {
    let r = zip(ty, a, b, |_, x, y| {
        Ok(Arith::Val(match (x, y) {
            (Val::Float { ty: f, bits: a }, Val::Float { bits: b, .. }) => {
                super::float::fcmp(pred, flags, f, a, b).ok_or_else(|| {
                    Stop::Error(RunError::IllFormed {
                        rule: "P-PROG",
                        at: loc_text(cx.prog, loc),
                        message: format!("unknown fcmp predicate '{pred}'"),
                    })
                })?
            }
            _ => Val::Poison,
        }))
    })?;
    Ok(value_of(r))
}

/// `icmp` on integers and (P-MEM-PTR) on pointers by address, at the
/// width of their address space; element-wise on vectors (a vector of
/// `i1`). `samesign`: poison when the operands' signs differ (LangRef).
#[allow(clippy::too_many_arguments)]
pub(super) fn icmp(
    m: &Machine,
    cx: &Ctx,
    loc: Loc,
    pred: ICmpPred,
    samesign: bool,
    ty: &Type,
    a: Val,
    b: Val,
) -> R<Val> {
    let r = zip(ty, a, b, |et, x, y| {
        Ok(Arith::Val(match (x, y) {
            (Val::Int { bits, v: a }, Val::Int { v: b, .. }) => {
                if samesign && (signed(bits, a) < 0) != (signed(bits, b) < 0) {
                    Val::Poison
                } else {
                    int(1, int_icmp(pred, bits, a, b) as i128)
                }
            }
            (Val::Ptr { obj: o1, off: f1 }, Val::Ptr { obj: o2, off: f2 }) => {
                let space = match et {
                    Type::Ptr(s) => *s,
                    _ => 0,
                };
                let w = pointer_bits(cx, loc, space)?;
                let a = pointer_address(cx, loc, m, o1, f1, space, w)?;
                let b = pointer_address(cx, loc, m, o2, f2, space, w)?;
                if samesign && (signed(w, a) < 0) != (signed(w, b) < 0) {
                    Val::Poison
                } else {
                    int(1, int_icmp(pred, w, a, b) as i128)
                }
            }
            _ => Val::Poison,
        }))
    })?;
    Ok(value_of(r))
}

/// The value of an operation without UB.
fn value_of(r: Arith) -> Val {
    match r {
        Arith::Val(v) => v,
        Arith::Ub(_) => unreachable!("comparisons and casts have no undefined behaviour"),
    }
}

/// `select` (LangRef): a scalar condition picks a whole operand, a vector
/// condition (P-VEC-ELEM) picks each element; a poison condition (element)
/// gives poison.
pub(super) fn select(ty: &Type, c: Val, on_true: Val, on_false: Val) -> Val {
    let pick = |c: &Val, x: Val, y: Val| match c {
        Val::Int { v: 1, .. } => x,
        Val::Int { .. } => y,
        _ => Val::Poison,
    };
    match (&c, super::vector::shape(ty)) {
        (Val::Vector(cs), Some((n, _))) => {
            let (xs, ys) = (
                super::vector::lanes(&on_true, n),
                super::vector::lanes(&on_false, n),
            );
            super::vector::of(
                cs.iter()
                    .zip(xs.into_iter().zip(ys))
                    .map(|(c, (x, y))| pick(c, x, y))
                    .collect(),
            )
        }
        (_, shape) => super::vector::normalise_shape(shape, pick(&c, on_true, on_false)),
    }
}

/// `freeze` (LangRef): a poison value, or each poison element of a
/// vector, becomes an arbitrary value of its type, chosen from the input
/// domain (P-INPUT); other values pass through.
pub(super) fn freeze(m: &mut Machine, cx: &mut Ctx, ty: &Type, v: Val) -> Val {
    let mut chooser = |et: &Type, x: Val| match x {
        Val::Poison => choose_value(m, cx.chooser, cx.opts, et),
        x => x,
    };
    match super::vector::shape(ty) {
        None => chooser(ty, v),
        Some((n, et)) => super::vector::of(
            super::vector::lanes(&v, n)
                .into_iter()
                .map(|x| chooser(et, x))
                .collect(),
        ),
    }
}

/// The casts (LangRef): integer, float (P-FLOAT, [`super::float::cast`])
/// and pointer (P-MEM-PTR) conversions, element-wise on vectors
/// (P-VEC-ELEM); `bitcast` involving a vector reinterprets the bits
/// (P-VEC-BITCAST, [`super::vector::bitcast`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn cast(
    m: &Machine,
    cx: &Ctx,
    loc: Loc,
    op: CastOp,
    flags: &[String],
    from: &Type,
    to: &Type,
    v: Val,
) -> R<Val> {
    if let (Type::Int(fb), Type::Int(tb), true) = (from, to, super::data::is_sym(&v)) {
        return super::data::cast(op, flags, *fb, *tb, v)
            .ok_or_else(|| unsupported(cx.prog, loc, super::data::TOO_LARGE));
    }
    let fv = super::vector::shape(from);
    let tv = super::vector::shape(to);
    if op == CastOp::BitCast && (fv.is_some() || tv.is_some()) {
        return super::vector::bitcast(from, to, v)
            .map_err(|what| unsupported(cx.prog, loc, &what));
    }
    let mut err = None;
    let r = map(from, to, v, |f, t, x| {
        match cast_elem(m, cx, loc, op, flags, f, t, x) {
            Ok(r) => r,
            Err(e) => {
                err.get_or_insert(e);
                Val::Poison
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(r),
    }
}

#[allow(clippy::too_many_arguments)]
fn cast_elem(
    m: &Machine,
    cx: &Ctx,
    loc: Loc,
    op: CastOp,
    flags: &[String],
    from: &Type,
    to: &Type,
    v: Val,
) -> R<Val> {
    if let Some(r) = super::float::cast(op, flags, from, to, v.clone()) {
        return r.map_err(|what| unsupported(cx.prog, loc, &what));
    }
    if let (CastOp::IntToPtr, Val::Int { v: x, .. }, Type::Ptr(space)) = (op, &v, to) {
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
    match op {
        CastOp::Trunc | CastOp::ZExt | CastOp::SExt | CastOp::BitCast => {
            Ok(int_cast(op, flags, fb, x, tb))
        }
        _ => Err(unsupported(cx.prog, loc, "pointer cast")),
    }
}

/// An integer-to-integer cast of `x` (`fb` bits) to `tb` bits with its
/// poison-generating flags (LangRef: `trunc nuw/nsw`, `zext nneg`); also
/// the evaluation of symbolic casts (M-DATA).
pub(super) fn int_cast(op: CastOp, flags: &[String], fb: u32, x: u128, tb: u32) -> Val {
    let has = |f: &str| flags.iter().any(|x| x == f);
    match op {
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
        _ => Val::Int { bits: tb, v: x },
    }
}

/// The pointer width in bits of address space `space` (P-MEM-LAYOUT).
pub(super) fn pointer_bits(cx: &Ctx, loc: Loc, space: u32) -> R<u32> {
    Ok(super::access::layout(cx, loc)?.pointer_size(space) as u32 * 8)
}

/// P-MEM-PTR: a pointer's address at width `w`; an object whose addresses
/// do not fit a narrow address space is reported unsupported (the fixed
/// bases of [`super::memory::SLOT`] are laid out for 64-bit pointers).
pub(super) fn pointer_address(
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
