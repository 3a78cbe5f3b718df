//! Runtime values and the integer semantics of the P-PROG subset
//! (LangRef: arithmetic with `nuw`/`nsw`/`exact` flags yields poison on
//! overflow; shifts by at least the bit width yield poison; division by zero
//! is undefined behaviour, reported by the caller).

use std::fmt;
use std::sync::Arc;

use crate::ir::float::FloatTy;
use crate::ir::{BinOp, ICmpPred};

use super::state::KeyId;

/// A runtime value. Integers are kept zero-extended in a `u128` and masked
/// to their width after every operation, so equal values compare equal.
/// Not `Copy` because of [`Val::Vector`]; cloning a vector shares its
/// elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Val {
    /// `iN` value, `bits <= 128`, `v < 2^bits`.
    Int { bits: u32, v: u128 },
    /// LLVM poison (and `undef`, which the subset reads as poison: a
    /// stricter reading, stated in the README's limits).
    Poison,
    /// A `half`, `bfloat`, `float` or `double` by its bit pattern
    /// (P-FLOAT): equal values compare equal, NaN payloads are kept.
    Float { ty: FloatTy, bits: u64 },
    /// A pointer into memory object `obj` at byte offset `off`; object 0 is
    /// the null object.
    Ptr { obj: u32, off: i64 },
    /// The `{ T, i1 }` result of `cmpxchg` on an integer (the only
    /// aggregates the interpreter builds; `extractvalue` reads them).
    CmpXchgInt { bits: u32, v: u128, success: bool },
    /// The `{ ptr, i1 }` result of `cmpxchg` on a pointer.
    CmpXchgPtr { obj: u32, off: i64, success: bool },
    /// The `{ i1, iN }` result of `llvm.amdgcn.if`/`else` (C-OPS): whether
    /// the thread takes the branch, and the mask of `bits` bits.
    CfMask { take: bool, bits: u32, mask: u128 },
    /// P-VEC: a fixed-width vector `<N x T>`, element 0 first; each
    /// element is an `Int`, `Float`, `Ptr` or `Poison` (poison per
    /// element). A vector-typed value is always this variant, a poison
    /// vector included (every element `Poison`), so equal vectors compare
    /// equal ([`super::vector`]).
    Vector(Arc<[Val]>),
    /// A convergence token (C-INTR): the key of the dynamic instance of the
    /// control intrinsic that produced it.
    Token(KeyId),
    /// The result of a `void` call.
    Void,
    /// M-DATA: a value computed from data inputs run as symbols
    /// ([`super::data`]); only the operations the analysis allows see one,
    /// and every record is instantiated before it is shown or compared.
    Sym(Arc<super::data::Sym>),
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Int { bits: 1, v } => write!(f, "{}", if *v == 1 { "true" } else { "false" }),
            Val::Int { bits, v } => write!(f, "{}", signed(*bits, *v)),
            Val::Poison => f.write_str("poison"),
            Val::Float { ty, bits } => f.write_str(&crate::ir::float::print(*ty, *bits)),
            Val::Ptr { obj: 0, off } => write!(f, "null+{off}"),
            Val::Ptr { obj, off } => write!(f, "obj{obj}+{off}"),
            Val::CmpXchgInt { bits, v, success } => {
                write!(f, "{{ {}, {} }}", Val::Int { bits: *bits, v: *v }, success)
            }
            Val::CmpXchgPtr { obj, off, success } => write!(
                f,
                "{{ {}, {} }}",
                Val::Ptr {
                    obj: *obj,
                    off: *off
                },
                success
            ),
            Val::CfMask { take, bits, mask } => write!(
                f,
                "{{ {take}, {} }}",
                Val::Int {
                    bits: *bits,
                    v: *mask
                }
            ),
            Val::Vector(xs) => {
                f.write_str("<")?;
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(">")
            }
            Val::Token(k) => write!(f, "token#{}", k.0),
            Val::Void => f.write_str("void"),
            Val::Sym(s) => write!(f, "sym({s:?})"),
        }
    }
}

/// `2^bits - 1`.
pub fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Builds an `iN` value from a signed or unsigned literal (two's complement).
pub fn int(bits: u32, value: i128) -> Val {
    Val::Int {
        bits,
        v: (value as u128) & mask(bits),
    }
}

/// The two's-complement reading of a `bits`-wide value.
pub fn signed(bits: u32, v: u128) -> i128 {
    if bits == 0 {
        return 0;
    }
    if bits >= 128 {
        return v as i128;
    }
    let sign = 1u128 << (bits - 1);
    if v & sign != 0 {
        (v | !mask(bits)) as i128
    } else {
        v as i128
    }
}

/// Result of an integer binary operation: a value, or undefined behaviour
/// with its kind.
pub enum Arith {
    Val(Val),
    Ub(UbKind),
}

/// The kinds of undefined behaviour the interpreter detects (M-OPER: a
/// thread that reaches one ends with UB; the refinement check lets the
/// target do anything after the source's UB). `Display` gives the text
/// of reports; JSON carries the same text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum UbKind {
    DivisionByZero,
    DivisionByPoison,
    /// `sdiv`/`srem` of the most negative value by -1.
    SignedDivisionOverflow,
    LoadThroughPoison,
    LoadThroughNull,
    StoreThroughPoison,
    StoreThroughNull,
    /// An `alloca` whose element count is poison.
    AllocaOfPoisonCount,
    /// P-MEM-ACCESS: a pointer with no object (freed, or made up by
    /// `inttoptr`).
    NoObject,
    /// P-MEM-ACCESS: an access outside `[0, size)` of its object.
    OutOfBounds {
        object: String,
        off: i64,
        size: u64,
        object_size: u64,
    },
    /// P-MEM-ACCESS: an access to another thread's `alloca`.
    OtherThreadsPrivate {
        object: String,
    },
    /// P-MEM-RACE: this access and an earlier one of another thread touch
    /// a common byte, one writes, not both are atomic, and no barrier
    /// orders them.
    DataRace {
        object: String,
        off: u64,
        this_write: bool,
        other_tid: u32,
        other_write: bool,
        other_at: String,
    },
    /// `cmpxchg` whose loaded or expected value is poison: whether it
    /// stores depends on poison.
    CmpXchgOnPoison,
    /// P-MEM-ACCESS: `llvm.memcpy` of overlapping ranges.
    OverlappingCopy,
    /// P-MEM-ACCESS: a memory intrinsic with a poison length.
    MemIntrinsicPoisonLength,
    BranchOnPoison,
    SwitchOnPoison,
    /// P-ASSUME: `llvm.assume` of false or poison (LangRef).
    AssumeFalse,
    ReachedUnreachable,
    /// A shuffle reads a thread outside its communicating set under
    /// `--shuffle-oob ub`.
    ShuffleOutOfSet {
        thread: u128,
    },
}

impl std::fmt::Display for UbKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UbKind::DivisionByZero => f.write_str("division by zero"),
            UbKind::DivisionByPoison => f.write_str("division by poison"),
            UbKind::SignedDivisionOverflow => {
                f.write_str("signed division overflow (INT_MIN / -1)")
            }
            UbKind::LoadThroughPoison => f.write_str("load through a poison or non-pointer value"),
            UbKind::LoadThroughNull => f.write_str("load through null"),
            UbKind::StoreThroughPoison => {
                f.write_str("store through a poison or non-pointer value")
            }
            UbKind::StoreThroughNull => f.write_str("store through null"),
            UbKind::AllocaOfPoisonCount => f.write_str("alloca with a poison element count"),
            UbKind::NoObject => f.write_str("memory access through a pointer to no object (P-MEM-ACCESS)"),
            UbKind::OutOfBounds {
                object,
                off,
                size,
                object_size,
            } => write!(
                f,
                "out-of-bounds access of {size} bytes at offset {off} of {object} ({object_size} bytes) (P-MEM-ACCESS)"
            ),
            UbKind::OtherThreadsPrivate { object } => write!(
                f,
                "access to {object}, a private object of another thread (P-MEM-ACCESS)"
            ),
            UbKind::CmpXchgOnPoison => f.write_str("cmpxchg compares poison"),
            UbKind::AssumeFalse => f.write_str("llvm.assume of false or poison"),
            UbKind::DataRace {
                object,
                off,
                this_write,
                other_tid,
                other_write,
                other_at,
            } => write!(
                f,
                "data race on byte {off} of {object}: this {} and the {} of thread {other_tid} at {other_at}, not ordered by a barrier (P-MEM-RACE)",
                if *this_write { "write" } else { "read" },
                if *other_write { "write" } else { "read" }
            ),
            UbKind::OverlappingCopy => {
                f.write_str("llvm.memcpy of overlapping ranges (P-MEM-ACCESS)")
            }
            UbKind::MemIntrinsicPoisonLength => {
                f.write_str("memory intrinsic with a poison length (P-MEM-ACCESS)")
            }
            UbKind::BranchOnPoison => f.write_str("branch on poison"),
            UbKind::SwitchOnPoison => f.write_str("switch on poison"),
            UbKind::ReachedUnreachable => f.write_str("reached unreachable"),
            UbKind::ShuffleOutOfSet { thread } => write!(
                f,
                "shuffle reads thread {thread}, which is not in the communicating set"
            ),
        }
    }
}

impl serde::Serialize for UbKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// LangRef integer binary operators with their poison-generating flags.
pub fn binary(op: BinOp, flags: &[String], bits: u32, a: u128, b: u128) -> Arith {
    let has = |f: &str| flags.iter().any(|x| x == f);
    let m = mask(bits);
    let (sa, sb) = (signed(bits, a), signed(bits, b));
    let poison = Arith::Val(Val::Poison);
    let ok = |v: u128| Arith::Val(Val::Int { bits, v: v & m });
    match op {
        BinOp::Add => {
            let (r, carry) = a.overflowing_add(b);
            if has("nuw") && (carry || r & !m != 0) {
                return poison;
            }
            if has("nsw") && sa.checked_add(sb).is_none_or(|s| s != signed(bits, r & m)) {
                return poison;
            }
            ok(r)
        }
        BinOp::Sub => {
            if has("nuw") && b > a {
                return poison;
            }
            let r = a.wrapping_sub(b);
            if has("nsw") && sa.checked_sub(sb).is_none_or(|s| s != signed(bits, r & m)) {
                return poison;
            }
            ok(r)
        }
        BinOp::Mul => {
            if has("nuw") && a.checked_mul(b).is_none_or(|r| r & !m != 0) {
                return poison;
            }
            let r = a.wrapping_mul(b);
            if has("nsw") && sa.checked_mul(sb).is_none_or(|s| s != signed(bits, r & m)) {
                return poison;
            }
            ok(r)
        }
        BinOp::UDiv | BinOp::URem => {
            if b == 0 {
                return Arith::Ub(UbKind::DivisionByZero);
            }
            if op == BinOp::UDiv {
                if has("exact") && !a.is_multiple_of(b) {
                    return poison;
                }
                ok(a / b)
            } else {
                ok(a % b)
            }
        }
        BinOp::SDiv | BinOp::SRem => {
            if b == 0 {
                return Arith::Ub(UbKind::DivisionByZero);
            }
            let min = signed(bits, 1u128 << (bits - 1));
            if sa == min && sb == -1 {
                return Arith::Ub(UbKind::SignedDivisionOverflow);
            }
            if op == BinOp::SDiv {
                if has("exact") && sa % sb != 0 {
                    return poison;
                }
                ok((sa / sb) as u128)
            } else {
                ok((sa % sb) as u128)
            }
        }
        BinOp::Shl | BinOp::LShr | BinOp::AShr => {
            if b >= bits as u128 {
                return poison;
            }
            let s = b as u32;
            match op {
                BinOp::Shl => {
                    let r = (a << s) & m;
                    if has("nuw") && (r >> s) != a {
                        return poison;
                    }
                    if has("nsw") && signed(bits, r) >> s != sa {
                        return poison;
                    }
                    ok(r)
                }
                BinOp::LShr => {
                    if has("exact") && (a >> s) << s != a {
                        return poison;
                    }
                    ok(a >> s)
                }
                _ => {
                    if has("exact") && (a >> s) << s != a {
                        return poison;
                    }
                    ok((sa >> s) as u128)
                }
            }
        }
        BinOp::And => ok(a & b),
        BinOp::Or => {
            if has("disjoint") && a & b != 0 {
                return poison;
            }
            ok(a | b)
        }
        BinOp::Xor => ok(a ^ b),
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => {
            unreachable!("P-FLOAT: the step rules send floating-point operators to machine::float")
        }
    }
}

/// `icmp` on two integers of width `bits`.
pub fn icmp(pred: ICmpPred, bits: u32, a: u128, b: u128) -> bool {
    let (sa, sb) = (signed(bits, a), signed(bits, b));
    match pred {
        ICmpPred::Eq => a == b,
        ICmpPred::Ne => a != b,
        ICmpPred::Ugt => a > b,
        ICmpPred::Uge => a >= b,
        ICmpPred::Ult => a < b,
        ICmpPred::Ule => a <= b,
        ICmpPred::Sgt => sa > sb,
        ICmpPred::Sge => sa >= sb,
        ICmpPred::Slt => sa < sb,
        ICmpPred::Sle => sa <= sb,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: Arith) -> Option<Val> {
        match a {
            Arith::Val(v) => Some(v),
            Arith::Ub(_) => None,
        }
    }

    #[test]
    fn add_flags_make_poison_on_overflow() {
        let nsw = vec!["nsw".to_string()];
        let nuw = vec!["nuw".to_string()];
        assert_eq!(v(binary(BinOp::Add, &nsw, 8, 127, 1)), Some(Val::Poison));
        assert_eq!(v(binary(BinOp::Add, &[], 8, 127, 1)), Some(int(8, -128)));
        assert_eq!(v(binary(BinOp::Add, &nuw, 8, 255, 1)), Some(Val::Poison));
        assert_eq!(v(binary(BinOp::Add, &nsw, 8, 255, 1)), Some(int(8, 0)));
    }

    #[test]
    fn division_by_zero_is_ub_and_shift_overflow_is_poison() {
        assert!(v(binary(BinOp::SDiv, &[], 32, 5, 0)).is_none());
        assert!(v(binary(BinOp::SDiv, &[], 8, 128, 255)).is_none());
        assert_eq!(v(binary(BinOp::Shl, &[], 8, 1, 8)), Some(Val::Poison));
        assert_eq!(v(binary(BinOp::AShr, &[], 8, 0x80, 7)), Some(int(8, -1)));
        assert_eq!(
            v(binary(BinOp::SRem, &[], 8, signed_u(8, -7), 2)),
            Some(int(8, -1))
        );
    }

    fn signed_u(bits: u32, x: i128) -> u128 {
        (x as u128) & mask(bits)
    }

    #[test]
    fn icmp_signedness() {
        assert!(icmp(ICmpPred::Slt, 8, 0xff, 0));
        assert!(!icmp(ICmpPred::Ult, 8, 0xff, 0));
    }
}
