//! R-VEC-SMT: which vector instructions the encoding covers (the part of
//! [`super::prog::prepare`] for values of fixed-width vector types, P-VEC):
//! element-wise arithmetic, comparisons and casts, `select`, `phi`,
//! `freeze` of integer elements, vector loads and stores of elements of a
//! whole number of bytes, the element access instructions and `bitcast`.
//! Anything else with a vector type is named and unsupported.

use semantics::ir::{BinOp, CastOp, Const, InstKind, Operand, Type};

use super::prog::{cast_fits, float_ok, int_ok, operand_ok, ptr_ok, scalar_ok, type_name};

/// R-VEC-SMT: a fixed-width vector whose elements are integers (i1 to
/// i64) or floats of the encoding.
pub(crate) fn vec_ok(ty: &Type) -> bool {
    semantics::machine::vector::shape(ty).is_some_and(|(n, et)| n >= 1 && scalar_ok(et))
}

/// The element type of a vector the encoding covers.
fn elem(ty: &Type) -> &Type {
    super::callsem::elem_of(ty)
}

/// A vector operand the encoding reads: a local, or a constant vector of
/// integer, float and poison elements, `zeroinitializer`, `poison`/`undef`.
pub(super) fn vec_operand_ok(op: &Operand) -> bool {
    match op {
        Operand::Local(_) => true,
        Operand::Const(c) => match &**c {
            Const::Vector(xs) => xs.iter().all(|x| {
                matches!(
                    x.value,
                    Const::Int { .. } | Const::Float(_) | Const::Poison | Const::Undef
                )
            }),
            Const::ZeroInit | Const::Poison | Const::Undef => true,
            _ => false,
        },
        Operand::Metadata(_) => false,
    }
}

/// The bits of a scalar or vector type of the encoding (P-VEC-BITCAST).
fn total_bits(ty: &Type) -> Option<u64> {
    match semantics::machine::vector::shape(ty) {
        Some((n, et)) if scalar_ok(et) => Some(n as u64 * u64::from(super::encode::width(et))),
        Some(_) => None,
        None => scalar_ok(ty).then(|| u64::from(super::encode::width(ty))),
    }
}

/// R-VEC-SMT: the vector instructions the encoding covers, element by
/// element (`None`: not a vector instruction; `Some(Err)`: a vector
/// instruction outside the encoding, named).
pub(super) fn vector_inst(
    kind: &InstKind,
    mem: &super::memobj::Objects,
) -> Option<Result<(), String>> {
    let shown = |ty: &Type| type_name(ty);
    let ok = |c: bool, what: String| if c { Ok(()) } else { Err(what) };
    let is_vec = |ty: &Type| semantics::machine::vector::shape(ty).is_some();
    Some(match kind {
        InstKind::Binary {
            op, ty, lhs, rhs, ..
        } if is_vec(ty) => {
            let fop = matches!(
                op,
                BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem
            );
            ok(
                vec_ok(ty)
                    && fop == float_ok(elem(ty))
                    && vec_operand_ok(lhs)
                    && vec_operand_ok(rhs),
                format!("{} on {}", op.mnemonic(), shown(ty)),
            )
        }
        InstKind::ICmp { ty, lhs, rhs, .. } if is_vec(ty) => ok(
            vec_ok(ty) && int_ok(elem(ty)) && vec_operand_ok(lhs) && vec_operand_ok(rhs),
            format!("icmp of {}", shown(ty)),
        ),
        InstKind::FCmp {
            ty, lhs, rhs, pred, ..
        } if is_vec(ty) => ok(
            vec_ok(ty)
                && float_ok(elem(ty))
                && vec_operand_ok(lhs)
                && vec_operand_ok(rhs)
                && super::encode::fcmp_pred_known(&pred.0),
            format!("fcmp of {}", shown(ty)),
        ),
        InstKind::FNeg { ty, value, .. } if is_vec(ty) => ok(
            vec_ok(ty) && float_ok(elem(ty)) && vec_operand_ok(value),
            format!("fneg of {}", shown(ty)),
        ),
        InstKind::Cast { op, from, to, .. } if is_vec(&from.ty) || is_vec(to) => {
            let what = format!(
                "{} from {} to {}",
                super::prog::cast_name(*op),
                shown(&from.ty),
                shown(to)
            );
            let fits = if *op == CastOp::BitCast {
                total_bits(&from.ty).is_some() && total_bits(&from.ty) == total_bits(to)
            } else {
                match (
                    semantics::machine::vector::shape(&from.ty),
                    semantics::machine::vector::shape(to),
                ) {
                    (Some((n, fe)), Some((m, te))) => n == m && cast_fits(*op, fe, te),
                    _ => false,
                }
            };
            let operand = if is_vec(&from.ty) {
                vec_operand_ok(&from.value)
            } else {
                operand_ok(&from.value)
            };
            ok(fits && operand, what)
        }
        InstKind::Select {
            cond,
            on_true,
            on_false,
            ..
        } if is_vec(&on_true.ty) || is_vec(&cond.ty) => {
            let n = semantics::machine::vector::shape(&on_true.ty).map(|(n, _)| n);
            let cond_fits = cond.ty == Type::Int(1)
                || semantics::machine::vector::shape(&cond.ty)
                    .is_some_and(|(k, et)| Some(k) == n && *et == Type::Int(1));
            let cond_read = if is_vec(&cond.ty) {
                vec_operand_ok(&cond.value)
            } else {
                operand_ok(&cond.value)
            };
            ok(
                cond_fits
                    && vec_ok(&on_true.ty)
                    && on_false.ty == on_true.ty
                    && cond_read
                    && vec_operand_ok(&on_true.value)
                    && vec_operand_ok(&on_false.value),
                format!("select of {}", shown(&on_true.ty)),
            )
        }
        InstKind::Phi { ty, incoming, .. } if is_vec(ty) => ok(
            vec_ok(ty) && incoming.iter().all(|(o, _)| vec_operand_ok(o)),
            format!("phi of {}", shown(ty)),
        ),
        // R-FREEZE-SMT: integer elements only (a float the interpreter
        // picks from its domain converted, which replay could not follow).
        InstKind::Freeze(op) if is_vec(&op.ty) => ok(
            vec_ok(&op.ty) && int_ok(elem(&op.ty)) && vec_operand_ok(&op.value),
            format!("freeze of {}", shown(&op.ty)),
        ),
        // P-VEC-MEM: elements of a whole number of bytes.
        InstKind::Load { ty, ptr, .. } if is_vec(ty) => ok(
            vec_ok(ty)
                && super::encode::width(elem(ty)).is_multiple_of(8)
                && ptr_ok(&ptr.ty, mem)
                && operand_ok(&ptr.value),
            format!("load of {}", shown(ty)),
        ),
        InstKind::Store { value, ptr, .. } if is_vec(&value.ty) => ok(
            vec_ok(&value.ty)
                && super::encode::width(elem(&value.ty)).is_multiple_of(8)
                && vec_operand_ok(&value.value)
                && ptr_ok(&ptr.ty, mem)
                && operand_ok(&ptr.value),
            format!("store of {}", shown(&value.ty)),
        ),
        InstKind::ExtractElement { vector, index } => ok(
            vec_ok(&vector.ty)
                && vec_operand_ok(&vector.value)
                && int_ok(&index.ty)
                && operand_ok(&index.value),
            format!("extractelement of {}", shown(&vector.ty)),
        ),
        InstKind::InsertElement {
            vector,
            value,
            index,
        } => ok(
            vec_ok(&vector.ty)
                && value.ty == *elem(&vector.ty)
                && vec_operand_ok(&vector.value)
                && operand_ok(&value.value)
                && int_ok(&index.ty)
                && operand_ok(&index.value),
            format!("insertelement into {}", shown(&vector.ty)),
        ),
        InstKind::ShuffleVector { a, b, mask } => ok(
            vec_ok(&a.ty)
                && b.ty == a.ty
                && vec_operand_ok(&a.value)
                && vec_operand_ok(&b.value)
                && semantics::machine::vector::shape(&mask.ty).is_some()
                && matches!(
                    mask.value.as_const(),
                    Some(Const::Vector(_) | Const::ZeroInit | Const::Poison | Const::Undef)
                ),
            format!("shufflevector of {}", shown(&a.ty)),
        ),
        _ => return None,
    })
}
