//! Concrete evaluation of terms: the oracle of this layer.
//!
//! Bit-vector operators follow the SMT-LIB `FixedSizeBitVectors` theory
//! exactly (including division by zero: `bvudiv x 0` is all ones, `bvurem x 0`
//! is `x`, and the signed forms are defined through them; shifts by at least
//! the width give 0, or all sign bits for `bvashr`), so that a model returned
//! by the solver can be checked here, and brute-force ground truth computed
//! here, independently of Z3.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::sync::Arc;

use super::{FuncId, Node, Op, Sort, TermId, Terms, VarId};

/// A concrete value of some sort.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Value {
    Bool(bool),
    /// `bits < 2^width`.
    Bv {
        width: u32,
        bits: u128,
    },
    Int(i128),
    /// The `index`-th element of the (finite) universe a model gives to an
    /// uninterpreted sort. Elements with different indices are different.
    Uninterpreted {
        sort: Arc<str>,
        index: u32,
    },
}

impl Value {
    pub fn sort(&self) -> Sort {
        match self {
            Value::Bool(_) => Sort::Bool,
            Value::Bv { width, .. } => Sort::BitVec(*width),
            Value::Int(_) => Sort::Int,
            Value::Uninterpreted { sort, .. } => Sort::Uninterpreted(sort.clone()),
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_bits(&self) -> Option<u128> {
        match self {
            Value::Bv { bits, .. } => Some(*bits),
            _ => None,
        }
    }

    pub fn bv(width: u32, bits: u128) -> Value {
        Value::Bv {
            width,
            bits: bits & mask(width),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Bv { width, bits } => write!(f, "{bits}:i{width}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Uninterpreted { sort, index } => write!(f, "{sort}!{index}"),
        }
    }
}

/// Why a term has no value.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum EvalError {
    #[error("variable {0} has no value")]
    UnassignedVar(String),
    #[error("function {0} has no value at these arguments")]
    UndefinedApplication(String),
    #[error("integer overflow in {0:?} (values are held in i128)")]
    IntOverflow(Op),
    #[error("ill-sorted values for {0:?}")]
    IllSorted(Op),
}

/// All ones in the low `width` bits.
pub fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Two's-complement reading of `bits` as a `width`-bit signed number.
pub fn to_signed(width: u32, bits: u128) -> i128 {
    if width < 128 && bits >> (width - 1) & 1 == 1 {
        (bits | !mask(width)) as i128
    } else {
        bits as i128
    }
}

/// An interpretation: values of variables, and tables of uninterpreted
/// functions (argument values to result, with an optional default).
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Model {
    pub vars: HashMap<VarId, Value>,
    pub funcs: HashMap<FuncId, FuncTable>,
}

/// A finite function table.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct FuncTable {
    pub entries: HashMap<Vec<Value>, Value>,
    /// The value at arguments not in `entries`, when known.
    pub default: Option<Value>,
}

impl Model {
    pub fn new() -> Model {
        Model::default()
    }

    /// The value of variable `v`, if assigned.
    pub fn var(&self, v: VarId) -> Option<&Value> {
        self.vars.get(&v)
    }

    /// Evaluates `t`. Every term is evaluated once (the DAG is shared).
    pub fn eval(&self, terms: &Terms, t: TermId) -> Result<Value, EvalError> {
        let mut values: HashMap<TermId, Value> = HashMap::default();
        for u in terms.reachable(&[t]) {
            let v = match terms.node(u) {
                Node::BoolConst(b) => Value::Bool(*b),
                Node::BvConst { width, bits } => Value::Bv {
                    width: *width,
                    bits: *bits,
                },
                Node::IntConst(i) => Value::Int(*i),
                Node::Var(v) => self
                    .vars
                    .get(v)
                    .cloned()
                    .ok_or_else(|| EvalError::UnassignedVar(terms.var_decl(*v).name.clone()))?,
                Node::App(op, args) => {
                    let args: Vec<Value> = args.iter().map(|a| values[a].clone()).collect();
                    match op {
                        Op::Apply(f) => {
                            let table = self.funcs.get(f);
                            table
                                .and_then(|tb| tb.entries.get(&args).or(tb.default.as_ref()))
                                .cloned()
                                .ok_or_else(|| {
                                    EvalError::UndefinedApplication(
                                        terms.func_decl(*f).name.clone(),
                                    )
                                })?
                        }
                        _ => apply_op(*op, &args)?,
                    }
                }
            };
            values.insert(u, v);
        }
        Ok(values.remove(&t).expect("t is reachable from itself"))
    }
}

fn bv_arg(op: Op, v: &Value) -> Result<(u32, u128), EvalError> {
    match v {
        Value::Bv { width, bits } => Ok((*width, *bits)),
        _ => Err(EvalError::IllSorted(op)),
    }
}

fn int_arg(op: Op, v: &Value) -> Result<i128, EvalError> {
    match v {
        Value::Int(i) => Ok(*i),
        _ => Err(EvalError::IllSorted(op)),
    }
}

fn bool_arg(op: Op, v: &Value) -> Result<bool, EvalError> {
    v.as_bool().ok_or(EvalError::IllSorted(op))
}

fn udiv(w: u32, s: u128, t: u128) -> u128 {
    s.checked_div(t).unwrap_or(mask(w))
}

fn urem(s: u128, t: u128) -> u128 {
    s.checked_rem(t).unwrap_or(s)
}

fn neg(w: u32, s: u128) -> u128 {
    s.wrapping_neg() & mask(w)
}

/// The value of interpreted operator `op` (anything but [`Op::Apply`]) at
/// `args`.
pub fn apply_op(op: Op, args: &[Value]) -> Result<Value, EvalError> {
    let b = |i: usize| bool_arg(op, &args[i]);
    let bv = |i: usize| bv_arg(op, &args[i]);
    let int = |i: usize| int_arg(op, &args[i]);
    let arity = |k: usize| {
        if args.len() == k {
            Ok(())
        } else {
            Err(EvalError::IllSorted(op))
        }
    };
    // Binary bit-vector operators: both widths equal.
    let bv2 = || -> Result<(u32, u128, u128), EvalError> {
        arity(2)?;
        let (w, s) = bv(0)?;
        let (w2, t) = bv(1)?;
        if w != w2 {
            return Err(EvalError::IllSorted(op));
        }
        Ok((w, s, t))
    };
    let out = |w: u32, bits: u128| Value::Bv {
        width: w,
        bits: bits & mask(w),
    };
    Ok(match op {
        Op::Not => {
            arity(1)?;
            Value::Bool(!b(0)?)
        }
        Op::And => Value::Bool((0..args.len()).try_fold(true, |acc, i| Ok(acc & b(i)?))?),
        Op::Or => Value::Bool((0..args.len()).try_fold(false, |acc, i| Ok(acc | b(i)?))?),
        Op::Implies => {
            arity(2)?;
            Value::Bool(!b(0)? || b(1)?)
        }
        Op::Xor => {
            arity(2)?;
            Value::Bool(b(0)? ^ b(1)?)
        }
        Op::Ite => {
            arity(3)?;
            if b(0)? {
                args[1].clone()
            } else {
                args[2].clone()
            }
        }
        Op::Eq => {
            arity(2)?;
            Value::Bool(args[0] == args[1])
        }
        Op::Distinct => {
            let mut all = true;
            for i in 0..args.len() {
                for j in i + 1..args.len() {
                    all &= args[i] != args[j];
                }
            }
            Value::Bool(all)
        }
        Op::BvNot => {
            arity(1)?;
            let (w, s) = bv(0)?;
            out(w, !s)
        }
        Op::BvNeg => {
            arity(1)?;
            let (w, s) = bv(0)?;
            out(w, neg(w, s))
        }
        Op::BvAnd => bv2().map(|(w, s, t)| out(w, s & t))?,
        Op::BvOr => bv2().map(|(w, s, t)| out(w, s | t))?,
        Op::BvXor => bv2().map(|(w, s, t)| out(w, s ^ t))?,
        Op::BvAdd => bv2().map(|(w, s, t)| out(w, s.wrapping_add(t)))?,
        Op::BvSub => bv2().map(|(w, s, t)| out(w, s.wrapping_sub(t)))?,
        Op::BvMul => bv2().map(|(w, s, t)| out(w, s.wrapping_mul(t)))?,
        Op::BvUdiv => bv2().map(|(w, s, t)| out(w, udiv(w, s, t)))?,
        Op::BvUrem => bv2().map(|(w, s, t)| out(w, urem(s, t)))?,
        Op::BvSdiv => bv2().map(|(w, s, t)| {
            let (ms, mt) = (to_signed(w, s) < 0, to_signed(w, t) < 0);
            let (s2, t2) = (
                if ms { neg(w, s) } else { s },
                if mt { neg(w, t) } else { t },
            );
            let q = udiv(w, s2, t2);
            out(w, if ms != mt { neg(w, q) } else { q })
        })?,
        Op::BvSrem => bv2().map(|(w, s, t)| {
            let (ms, mt) = (to_signed(w, s) < 0, to_signed(w, t) < 0);
            let (s2, t2) = (
                if ms { neg(w, s) } else { s },
                if mt { neg(w, t) } else { t },
            );
            let r = urem(s2, t2);
            out(w, if ms { neg(w, r) } else { r })
        })?,
        Op::BvShl => bv2().map(|(w, s, t)| out(w, if t >= w as u128 { 0 } else { s << t }))?,
        Op::BvLshr => bv2().map(|(w, s, t)| out(w, if t >= w as u128 { 0 } else { s >> t }))?,
        Op::BvAshr => bv2().map(|(w, s, t)| {
            let shift = t.min(w as u128 - 1) as u32;
            // A shift by >= w fills with the sign bit, as does one by w-1.
            out(w, (to_signed(w, s) >> shift) as u128)
        })?,
        Op::BvUlt => bv2().map(|(_, s, t)| Value::Bool(s < t))?,
        Op::BvUle => bv2().map(|(_, s, t)| Value::Bool(s <= t))?,
        Op::BvSlt => bv2().map(|(w, s, t)| Value::Bool(to_signed(w, s) < to_signed(w, t)))?,
        Op::BvSle => bv2().map(|(w, s, t)| Value::Bool(to_signed(w, s) <= to_signed(w, t)))?,
        Op::Concat => {
            arity(2)?;
            let (wh, h) = bv(0)?;
            let (wl, l) = bv(1)?;
            if wh + wl > super::MAX_BV_WIDTH {
                return Err(EvalError::IllSorted(op));
            }
            // wl < 128 here since wh >= 1.
            out(wh + wl, (h << wl) | l)
        }
        Op::Extract { hi, lo } => {
            arity(1)?;
            let (w, s) = bv(0)?;
            if hi < lo || hi >= w {
                return Err(EvalError::IllSorted(op));
            }
            out(hi - lo + 1, s >> lo)
        }
        Op::ZeroExt(k) => {
            arity(1)?;
            let (w, s) = bv(0)?;
            if w.saturating_add(k) > super::MAX_BV_WIDTH {
                return Err(EvalError::IllSorted(op));
            }
            out(w + k, s)
        }
        Op::SignExt(k) => {
            arity(1)?;
            let (w, s) = bv(0)?;
            if w.saturating_add(k) > super::MAX_BV_WIDTH {
                return Err(EvalError::IllSorted(op));
            }
            out(w + k, to_signed(w, s) as u128)
        }
        Op::IntAdd | Op::IntMul => {
            let mut acc: i128 = if op == Op::IntAdd { 0 } else { 1 };
            for i in 0..args.len() {
                let x = int(i)?;
                acc = if op == Op::IntAdd {
                    acc.checked_add(x)
                } else {
                    acc.checked_mul(x)
                }
                .ok_or(EvalError::IntOverflow(op))?;
            }
            Value::Int(acc)
        }
        Op::IntSub => {
            arity(2)?;
            Value::Int(
                int(0)?
                    .checked_sub(int(1)?)
                    .ok_or(EvalError::IntOverflow(op))?,
            )
        }
        Op::IntNeg => {
            arity(1)?;
            Value::Int(int(0)?.checked_neg().ok_or(EvalError::IntOverflow(op))?)
        }
        Op::IntLe => {
            arity(2)?;
            Value::Bool(int(0)? <= int(1)?)
        }
        Op::IntLt => {
            arity(2)?;
            Value::Bool(int(0)? < int(1)?)
        }
        Op::Fp(fop, f) => return super::float::apply(fop, f, args),
        Op::Apply(_) => return Err(EvalError::IllSorted(op)),
    })
}
