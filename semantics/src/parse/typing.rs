//! The operand-type rules LLParser applies while it reads an instruction
//! (issue 12 item 9, bad input): which types an arithmetic, compare, cast
//! or `select` accepts. A module that breaks one is rejected with LLParser's
//! message at LLParser's place (the first typed operand), so that an
//! ill-typed input never runs as undefined behaviour.
//!
//! Written from the LangRef's rules for each instruction ("Arguments:"
//! paragraphs) and checked against opt-22's messages (`parse::tests`).

use crate::ir::{BinOp, CastOp, Type};

/// The scalar of a vector type, or the type itself.
fn scalar(t: &Type) -> &Type {
    match t {
        Type::Vector { elem, .. } => elem,
        t => t,
    }
}

/// `(length, scalable)` of a vector type; `None` for a scalar.
fn count(t: &Type) -> Option<(u64, bool)> {
    match t {
        Type::Vector { len, scalable, .. } => Some((u64::from(*len), *scalable)),
        _ => None,
    }
}

fn is_fp(t: &Type) -> bool {
    matches!(
        t,
        Type::Half | Type::BFloat | Type::Float | Type::Double | Type::X86Fp80 | Type::Fp128
    )
}

/// An integer or a vector of integers.
pub fn int_like(t: &Type) -> bool {
    matches!(scalar(t), Type::Int(_))
}

/// A floating-point type or a vector of them.
pub fn fp_like(t: &Type) -> bool {
    is_fp(scalar(t))
}

/// A pointer or a vector of pointers.
pub fn ptr_like(t: &Type) -> bool {
    ptr_space(t).is_some()
}

/// The address space of a pointer or a vector of pointers.
fn ptr_space(t: &Type) -> Option<u32> {
    match scalar(t) {
        Type::Ptr(a) => Some(*a),
        Type::TypedPtr { addrspace, .. } => Some(*addrspace),
        _ => None,
    }
}

/// Bits of a scalar integer or floating-point type.
fn scalar_bits(t: &Type) -> Option<u64> {
    Some(match scalar(t) {
        Type::Int(b) => u64::from(*b),
        Type::Half | Type::BFloat => 16,
        Type::Float => 32,
        Type::Double => 64,
        Type::X86Fp80 => 80,
        Type::Fp128 => 128,
        _ => return None,
    })
}

/// The LLParser message for a binary operator whose operand type `t` it
/// does not take: integer operators want integers, floating ones floats.
pub fn binary_error(op: BinOp, t: &Type) -> Option<&'static str> {
    let float = matches!(
        op,
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem
    );
    let logical = matches!(op, BinOp::And | BinOp::Or | BinOp::Xor);
    match (float, logical) {
        (true, _) if !fp_like(t) => Some("invalid operand type for instruction"),
        (false, true) if !int_like(t) => {
            Some("instruction requires integer or integer vector operands")
        }
        (false, false) if !int_like(t) => Some("invalid operand type for instruction"),
        _ => None,
    }
}

/// Whether `op` converts `from` into `to` (LangRef, each conversion's
/// "Arguments:"): integer casts change the width in the stated direction,
/// float casts likewise, int<->float and pointer<->int cross over, a
/// `bitcast` keeps the size and never turns a pointer into a non-pointer,
/// an `addrspacecast` changes the address space; vectors convert element
/// by element and keep their length.
pub fn cast_valid(op: CastOp, from: &Type, to: &Type) -> bool {
    let first_class = |t: &Type| {
        !matches!(
            t,
            Type::Void
                | Type::Array(_)
                | Type::Struct { .. }
                | Type::Named(_)
                | Type::Func(_)
                | Type::Label
                | Type::Metadata
        )
    };
    if !first_class(from) || !first_class(to) {
        return false;
    }
    let same_count = count(from) == count(to);
    let (fb, tb) = (scalar_bits(from), scalar_bits(to));
    let ints = int_like(from) && int_like(to);
    let fps = fp_like(from) && fp_like(to);
    match op {
        CastOp::Trunc => ints && same_count && fb > tb,
        CastOp::ZExt | CastOp::SExt => ints && same_count && fb < tb,
        CastOp::FPTrunc => fps && same_count && fb > tb,
        CastOp::FPExt => fps && same_count && fb < tb,
        CastOp::UIToFP | CastOp::SIToFP => int_like(from) && fp_like(to) && same_count,
        CastOp::FPToUI | CastOp::FPToSI => fp_like(from) && int_like(to) && same_count,
        CastOp::PtrToInt => ptr_space(from).is_some() && int_like(to) && same_count,
        CastOp::IntToPtr => int_like(from) && ptr_space(to).is_some() && same_count,
        CastOp::AddrSpaceCast => match (ptr_space(from), ptr_space(to)) {
            (Some(a), Some(b)) => a != b && same_count,
            _ => false,
        },
        CastOp::BitCast => match (ptr_space(from), ptr_space(to)) {
            (None, None) => {
                let size = |t: &Type| {
                    let (n, scalable) = count(t).unwrap_or((1, false));
                    scalar_bits(t).map(|b| (b * n, scalable))
                };
                // Types without a size (token, label) are not bitcast.
                size(from).is_some() && size(from) == size(to)
            }
            (Some(a), Some(b)) if a == b => match (count(from), count(to)) {
                (Some(x), Some(y)) => x == y,
                (Some(x), None) | (None, Some(x)) => x == (1, false),
                (None, None) => true,
            },
            _ => false,
        },
    }
}

/// The LLParser message for a `select` of `cond` between values of types
/// `a` and `b` that LLVM rejects (`SelectInst` operand rules).
pub fn select_error(cond: &Type, a: &Type, b: &Type) -> Option<&'static str> {
    if a != b {
        return Some("both values to select must have same type");
    }
    if a.is_token() {
        return Some("select values cannot have token type");
    }
    match count(cond) {
        Some(n) => {
            if scalar(cond) != &Type::Int(1) {
                Some("vector select condition element type must be i1")
            } else if count(a).is_none() {
                Some("selected values for vector select must be vectors")
            } else if count(a) != Some(n) {
                Some(
                    "vector select requires selected vectors to have the same vector length as select condition",
                )
            } else {
                None
            }
        }
        None if cond != &Type::Int(1) => Some("select condition must be i1 or <n x i1>"),
        None => None,
    }
}
