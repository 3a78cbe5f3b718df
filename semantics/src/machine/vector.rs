//! Vector values and the vector instructions (docs/RULES.md §9b, P-VEC-*).
//!
//! A value of a fixed-width vector type `<N x T>` (T an integer, float or
//! pointer type) is [`Val::Vector`]: its N elements in order, each a scalar
//! value or poison (P-VEC). Element-wise instructions apply their scalar
//! rule to each element ([`zip`], [`map`]: P-VEC-ELEM); the element
//! access instructions (`extractelement`, `insertelement`,
//! `shufflevector`: P-VEC-ACCESS), `bitcast` (P-VEC-BITCAST) and the
//! `llvm.vector.reduce.*` intrinsics (P-VEC-REDUCE) are here. Loads and
//! stores lay elements out as the data layout does (P-VEC-MEM,
//! [`super::memory`]). Scalable vectors are not modelled (unsupported).

use std::sync::Arc;

use crate::ir::float::FloatTy;
use crate::ir::{BinOp, Type};

use super::step::R;
use super::value::{mask, signed, Arith, Val};

/// The element count and element type of a fixed-width vector type.
pub fn shape(ty: &Type) -> Option<(usize, &Type)> {
    match ty {
        Type::Vector {
            len,
            scalable: false,
            elem,
        } => Some((*len as usize, elem)),
        _ => None,
    }
}

/// The vector of `elems` (P-VEC).
pub fn of(elems: Vec<Val>) -> Val {
    Val::Vector(Arc::from(elems))
}

/// The elements of `v`, a value of an `n`-element vector type: a poison
/// value (a `poison` constant, an undefined local) is `n` poison elements.
pub fn lanes(v: &Val, n: usize) -> Vec<Val> {
    match v {
        Val::Vector(xs) => xs.to_vec(),
        _ => vec![Val::Poison; n],
    }
}

/// `v` as a value of type `ty`: a poison vector is [`Val::Vector`] of
/// poison elements, so that equal vectors are equal values.
pub fn normalise(ty: &Type, v: Val) -> Val {
    normalise_shape(shape(ty), v)
}

pub(super) fn normalise_shape(shape: Option<(usize, &Type)>, v: Val) -> Val {
    match (shape, v) {
        (Some((n, _)), Val::Poison) => of(vec![Val::Poison; n]),
        (_, v) => v,
    }
}

/// P-VEC-ELEM: `f` on the elements of `a` and `b` (vectors of type `ty`,
/// `f` given the element type), or on `a` and `b` themselves when `ty` is
/// a scalar type. The instruction is UB when an element's operation is
/// (the first such element's kind is reported).
pub(super) fn zip(
    ty: &Type,
    a: Val,
    b: Val,
    mut f: impl FnMut(&Type, Val, Val) -> R<Arith>,
) -> R<Arith> {
    let Some((n, et)) = shape(ty) else {
        return f(ty, a, b);
    };
    let mut out = Vec::with_capacity(n);
    for (x, y) in lanes(&a, n).into_iter().zip(lanes(&b, n)) {
        match f(et, x, y)? {
            Arith::Val(v) => out.push(v),
            ub => return Ok(ub),
        }
    }
    Ok(Arith::Val(of(out)))
}

/// P-VEC-ELEM: `f` on each element of `v` (of type `from`; the result has
/// type `to`, of the same element count), given both element types; on
/// `v` itself for scalar types.
pub(super) fn map(
    from: &Type,
    to: &Type,
    v: Val,
    mut f: impl FnMut(&Type, &Type, Val) -> Val,
) -> Val {
    match (shape(from), shape(to)) {
        (Some((n, fe)), Some((_, te))) => {
            of(lanes(&v, n).into_iter().map(|x| f(fe, te, x)).collect())
        }
        _ => f(from, to, v),
    }
}

/// P-VEC-ACCESS `extractelement`: element `idx` (unsigned); poison when
/// the index is poison or not below the element count (LangRef).
pub(super) fn extract(v: &Val, n: usize, idx: &Val) -> Val {
    match (v, index(idx)) {
        (Val::Vector(xs), Some(i)) if i < n as u128 => xs[i as usize].clone(),
        _ => Val::Poison,
    }
}

/// P-VEC-ACCESS `insertelement`: `v` with element `idx` replaced by `x`;
/// a poison index or one not below the element count gives a poison
/// vector (LangRef).
pub(super) fn insert(v: &Val, n: usize, x: Val, idx: &Val) -> Val {
    match index(idx) {
        Some(i) if i < n as u128 => {
            let mut xs = lanes(v, n);
            xs[i as usize] = x;
            of(xs)
        }
        _ => of(vec![Val::Poison; n]),
    }
}

fn index(idx: &Val) -> Option<u128> {
    match idx {
        Val::Int { v, .. } => Some(*v),
        _ => None,
    }
}

/// P-VEC-ACCESS `shufflevector`: element k of the result is element
/// `mask[k]` of the concatenation of `a` and `b` (each of `n` elements);
/// a poison (or `undef`) mask element gives a poison element (LangRef).
/// `Err` for a mask element not below `2n` (the verifier rejects it).
pub(super) fn shuffle(a: &Val, b: &Val, n: usize, mask: &Val, len: usize) -> Result<Val, String> {
    let both: Vec<Val> = lanes(a, n).into_iter().chain(lanes(b, n)).collect();
    let mut out = Vec::with_capacity(len);
    for m in lanes(mask, len) {
        out.push(match m {
            Val::Int { v, .. } if v < 2 * n as u128 => both[v as usize].clone(),
            Val::Int { v, .. } => {
                return Err(format!(
                    "shufflevector mask element {v} is not below twice the element count {n}"
                ))
            }
            _ => Val::Poison,
        });
    }
    Ok(of(out))
}

/// One bit of a value: `None` is a poison bit.
type Bit = Option<bool>;

/// The bits of `v` of type `ty`, least significant first; the elements of
/// a vector one after the other from element 0 (the little-endian order
/// of LLVM's `bitcast`). `Err` for values with no bit pattern (pointers).
fn to_bits(ty: &Type, v: &Val) -> Result<Vec<Bit>, String> {
    if let Some((n, et)) = shape(ty) {
        let mut out = Vec::new();
        for x in lanes(v, n) {
            out.extend(to_bits(et, &x)?);
        }
        return Ok(out);
    }
    let w = scalar_bits(ty)?;
    let word = match v {
        Val::Int { v, .. } => *v,
        Val::Float { bits, .. } => *bits as u128,
        Val::Poison => return Ok(vec![None; w as usize]),
        other => return Err(format!("bitcast of {other}")),
    };
    Ok((0..w).map(|i| Some(word >> i & 1 == 1)).collect())
}

fn scalar_bits(ty: &Type) -> Result<u32, String> {
    match (ty, FloatTy::of(ty)) {
        (Type::Int(w), _) if *w <= 128 => Ok(*w),
        (_, Some(f)) => Ok(f.bits()),
        _ => Err(format!(
            "bitcast involving {}",
            crate::ir::print::type_str(ty)
        )),
    }
}

/// The value of type `ty` whose bits are `bits`: a scalar (or element)
/// with a poison bit is poison.
fn from_bits(ty: &Type, bits: &[Bit]) -> Result<Val, String> {
    if let Some((n, et)) = shape(ty) {
        let w = scalar_bits(et)? as usize;
        return Ok(of((0..n)
            .map(|k| from_bits(et, &bits[k * w..(k + 1) * w]))
            .collect::<Result<Vec<Val>, String>>()?));
    }
    let w = scalar_bits(ty)?;
    let mut word = 0u128;
    for (i, b) in bits.iter().enumerate() {
        match b {
            Some(true) => word |= 1 << i,
            Some(false) => {}
            None => return Ok(Val::Poison),
        }
    }
    Ok(match FloatTy::of(ty) {
        Some(f) => super::float::val(f, word as u64),
        None => Val::Int { bits: w, v: word },
    })
}

/// P-VEC-BITCAST: `bitcast` from or to a vector type reinterprets the bits
/// (element 0 in the least significant bits); an element (or scalar) of
/// the result is poison when one of its bits comes from a poison element.
/// Vectors of pointers cast only to vectors of pointers of the same count
/// (LangRef), unchanged.
pub(super) fn bitcast(from: &Type, to: &Type, v: Val) -> Result<Val, String> {
    let ptrs = |t: &Type| matches!(shape(t), Some((_, Type::Ptr(_))));
    if ptrs(from) || ptrs(to) {
        return Ok(normalise(to, v));
    }
    let bits = to_bits(from, &v)?;
    let want = match shape(to) {
        Some((n, et)) => n * scalar_bits(et)? as usize,
        None => scalar_bits(to)? as usize,
    };
    if bits.len() != want {
        return Err(format!(
            "bitcast between types of {} and {want} bits",
            bits.len()
        ));
    }
    from_bits(to, &bits)
}

/// The `llvm.vector.reduce.*` intrinsic `name` reduces to this operation
/// (P-VEC-REDUCE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// An integer operation: `add`, `mul`, `and`, `or`, `xor`, `smax`,
    /// `smin`, `umax`, `umin`.
    Int(&'static str),
    /// `fadd`/`fmul`: a start value, then each element in order.
    FloatArith(BinOp),
    /// `fmax`/`fmin` (as `llvm.maxnum`/`minnum`), `fmaximum`/`fminimum`
    /// (as `llvm.maximum`/`minimum`): the float intrinsic it folds with.
    FloatMinMax(&'static str),
}

/// The reduction an `llvm.vector.reduce.*` callee names, if it is one.
pub fn reduction(name: &str) -> Option<Reduce> {
    let op = name
        .strip_prefix("llvm.vector.reduce.")?
        .split('.')
        .next()?;
    Some(match op {
        "add" | "mul" | "and" | "or" | "xor" | "smax" | "smin" | "umax" | "umin" => {
            let ops = [
                "add", "mul", "and", "or", "xor", "smax", "smin", "umax", "umin",
            ];
            Reduce::Int(ops[ops.iter().position(|o| *o == op)?])
        }
        "fadd" => Reduce::FloatArith(BinOp::FAdd),
        "fmul" => Reduce::FloatArith(BinOp::FMul),
        "fmax" => Reduce::FloatMinMax("llvm.maxnum"),
        "fmin" => Reduce::FloatMinMax("llvm.minnum"),
        "fmaximum" => Reduce::FloatMinMax("llvm.maximum"),
        "fminimum" => Reduce::FloatMinMax("llvm.minimum"),
        _ => return None,
    })
}

/// P-VEC-REDUCE: the value of `llvm.vector.reduce.*` (LangRef). Integer
/// reductions fold the elements with their operation (wrapping; a poison
/// element makes the result poison, as the sequence of scalar operations
/// does). `fadd`/`fmul` start from their first argument and apply the
/// operation to the elements in order, with the call's fast-math flags on
/// each step: the sequential result LangRef requires without `reassoc`,
/// and one of the results it allows with `reassoc` (P-FLOAT-FMF: the
/// interpreter computes one allowed result). `fmax`/`fmin`/`fmaximum`/
/// `fminimum` fold with `maxnum`/`minnum`/`maximum`/`minimum`.
pub fn reduce(r: Reduce, flags: &[String], args: &[Val]) -> Result<Val, String> {
    let arity = if matches!(r, Reduce::FloatArith(_)) {
        2
    } else {
        1
    };
    if args.len() != arity {
        return Err(format!(
            "vector reduction called with {} argument(s); it takes {arity}",
            args.len()
        ));
    }
    let elems = match &args[arity - 1] {
        Val::Vector(xs) => xs.to_vec(),
        Val::Poison => return Ok(Val::Poison),
        other => return Err(format!("vector reduction of {other}")),
    };
    match r {
        Reduce::Int(op) => {
            let mut acc: Option<(u32, u128)> = None;
            for x in elems {
                let Val::Int { bits, v } = x else {
                    return Ok(Val::Poison);
                };
                acc = Some(match acc {
                    None => (bits, v),
                    Some((_, a)) => (bits, int_step(op, bits, a, v)),
                });
            }
            Ok(acc.map_or(Val::Poison, |(bits, v)| Val::Int { bits, v }))
        }
        Reduce::FloatArith(op) => {
            let mut acc = args[0].clone();
            for x in elems {
                acc = match (&acc, &x) {
                    (Val::Float { ty, bits: a }, Val::Float { bits: b, .. }) => {
                        super::float::binary(op, flags, *ty, *a, *b)
                    }
                    _ => Val::Poison,
                };
            }
            Ok(acc)
        }
        Reduce::FloatMinMax(scalar) => {
            let mut it = elems.into_iter();
            let mut acc = it.next().unwrap_or(Val::Poison);
            for x in it {
                acc = match super::float::intrinsic(scalar, flags, &[acc, x]) {
                    Some(r) => r?,
                    None => Val::Poison,
                };
            }
            Ok(acc)
        }
    }
}

fn int_step(op: &str, bits: u32, a: u128, b: u128) -> u128 {
    let m = mask(bits);
    let (sa, sb) = (signed(bits, a), signed(bits, b));
    match op {
        "add" => a.wrapping_add(b) & m,
        "mul" => a.wrapping_mul(b) & m,
        "and" => a & b,
        "or" => a | b,
        "xor" => a ^ b,
        "smax" => {
            if sa >= sb {
                a
            } else {
                b
            }
        }
        "smin" => {
            if sa <= sb {
                a
            } else {
                b
            }
        }
        "umax" => a.max(b),
        _ => a.min(b),
    }
}

/// P-VEC-ELEM for intrinsics: `f` (a scalar intrinsic's rule) on the
/// elements of the vector arguments, lane by lane, scalar arguments (the
/// `i1` flag of `llvm.abs`/`ctlz`, `llvm.powi`'s exponent) passed to every
/// lane; `None` when no argument is a vector (the scalar rule applies) or
/// `f` does not apply to an element.
pub(super) fn lift_call(
    args: &[Val],
    mut f: impl FnMut(&[Val]) -> Option<Result<Val, String>>,
) -> Option<Result<Val, String>> {
    let n = args.iter().find_map(|a| match a {
        Val::Vector(xs) => Some(xs.len()),
        _ => None,
    })?;
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let lane: Vec<Val> = args
            .iter()
            .map(|a| match a {
                Val::Vector(xs) => xs[k].clone(),
                other => other.clone(),
            })
            .collect();
        match f(&lane)? {
            Ok(v) => out.push(v),
            Err(e) => return Some(Err(e)),
        }
    }
    Some(Ok(of(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(bits: u32, v: i128) -> Val {
        super::super::value::int(bits, v)
    }

    /// P-VEC-BITCAST: little-endian element order, poison per element.
    #[test]
    fn bitcast_orders_elements_little_endian() {
        let v4 = |e: Type| Type::Vector {
            len: 4,
            scalable: false,
            elem: Box::new(e),
        };
        let x = of(vec![i(8, 1), i(8, 2), i(8, 3), i(8, 4)]);
        assert_eq!(
            bitcast(&v4(Type::Int(8)), &Type::Int(32), x).unwrap(),
            i(32, 0x0403_0201)
        );
        let two = Type::Vector {
            len: 2,
            scalable: false,
            elem: Box::new(Type::Int(16)),
        };
        let y = of(vec![i(8, 1), Val::Poison, i(8, 3), i(8, 4)]);
        assert_eq!(
            bitcast(&v4(Type::Int(8)), &two, y).unwrap(),
            of(vec![Val::Poison, i(16, 0x0403)])
        );
    }

    /// P-VEC-ACCESS: out-of-range and poison indices give poison.
    #[test]
    fn element_access_out_of_range_is_poison() {
        let v = of(vec![i(32, 7), i(32, 8)]);
        assert_eq!(extract(&v, 2, &i(64, 1)), i(32, 8));
        assert_eq!(extract(&v, 2, &i(64, 2)), Val::Poison);
        assert_eq!(insert(&v, 2, i(32, 1), &i(32, 5)), of(vec![Val::Poison; 2]));
        let m = of(vec![i(32, 3), Val::Poison, i(32, 0)]);
        assert_eq!(
            shuffle(&v, &of(vec![i(32, 9), i(32, 10)]), 2, &m, 3).unwrap(),
            of(vec![i(32, 10), Val::Poison, i(32, 7)])
        );
    }

    /// P-VEC-REDUCE: integer reductions wrap; a poison element poisons.
    #[test]
    fn integer_reductions() {
        let v = of(vec![i(8, 100), i(8, 100), i(8, -3)]);
        assert_eq!(
            reduce(Reduce::Int("add"), &[], std::slice::from_ref(&v)).unwrap(),
            i(8, -59)
        );
        assert_eq!(
            reduce(Reduce::Int("smin"), &[], std::slice::from_ref(&v)).unwrap(),
            i(8, -3)
        );
        assert_eq!(reduce(Reduce::Int("umin"), &[], &[v]).unwrap(), i(8, 100));
        let p = of(vec![i(8, 0), Val::Poison]);
        assert_eq!(reduce(Reduce::Int("and"), &[], &[p]).unwrap(), Val::Poison);
    }
}
