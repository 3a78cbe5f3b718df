//! R-VEC-SMT: vectors in the encoding, with the interpreter's meaning
//! (`semantics::machine::vector`, `machine::ops`; docs/RULES.md §9b). A
//! value of a fixed-width vector type is [`V::Vec`], one term pair (bits,
//! poison flag) per element. Element-wise instructions apply the scalar
//! encoding to each element (P-VEC-ELEM): integer and float arithmetic,
//! comparisons, casts (`select`, `phi`, `freeze` in [`super::inst`]);
//! `extractelement`/`insertelement` (any index: an `ite` over the
//! elements; poison when the index is poison or out of range) and
//! `shufflevector` (constant masks) are P-VEC-ACCESS; `bitcast` from or to
//! a vector concatenates and splits the bits, element 0 lowest
//! (P-VEC-BITCAST); the reductions and intrinsics on vectors are here too
//! (P-VEC-REDUCE, called from [`super::calls`]). Loads and stores go
//! through the byte memory ([`super::memory`], P-VEC-MEM).

use semantics::ir::float::FloatTy;
use semantics::ir::{CastOp, Const, Inst as IrInst, InstKind, Operand, Type, TypedOperand};
use semantics::machine::vector::{shape, Reduce};

use super::thread::ThreadSt;
use super::{width, Builder, Enc, V};
use crate::vc::TermId;

impl Builder<'_, '_> {
    /// Operand `op` of vector type `ty` (before the current step when
    /// `before`, a phi's incoming value): its elements. A value of another
    /// shape (types disagree) is reported and read as poison.
    pub(super) fn vec_value(&mut self, op: &Operand, ty: &Type, th: &ThreadSt, before: bool) -> V {
        let (n, et) = shape(ty).expect("vec_value reads fixed-width vector types");
        match op {
            Operand::Local(v) => {
                let found = if before {
                    th.cur.get(v).cloned()
                } else {
                    th.lookup(v).cloned()
                };
                match found {
                    Some(V::Vec(xs)) if xs.len() == n => V::Vec(xs),
                    None => self.poison_of(ty),
                    Some(_) => {
                        let name = self.p.func.value(*v).name.to_string();
                        self.unsupported(format!(
                            "%{name} used as a vector of {n} elements (types disagree)"
                        ));
                        self.poison_of(ty)
                    }
                }
            }
            Operand::Const(c) => match &**c {
                Const::Vector(xs) if xs.len() == n => V::Vec(
                    xs.iter()
                        .map(|x| self.scalar_const(&x.value, et, th))
                        .collect(),
                ),
                Const::ZeroInit => V::Vec(
                    (0..n)
                        .map(|_| self.scalar_const(&Const::ZeroInit, et, th))
                        .collect(),
                ),
                Const::Poison | Const::Undef => self.poison_of(ty),
                other => {
                    self.unsupported(format!("vector constant {other:?}"));
                    self.poison_of(ty)
                }
            },
            Operand::Metadata(_) => {
                self.unsupported("metadata used as a vector".into());
                self.poison_of(ty)
            }
        }
    }

    /// A scalar constant of type `ty` (an element of a vector constant).
    fn scalar_const(&mut self, c: &Const, ty: &Type, th: &ThreadSt) -> V {
        match (c, FloatTy::of(ty)) {
            (_, Some(f)) => self.float_const(c, f),
            (Const::ZeroInit, None) => {
                let z = self.bv(width(ty), 0);
                self.int(z)
            }
            _ => self.typed(&Operand::constant(c.clone()), ty, th),
        }
    }

    /// The elements of `v` (a vector read with [`Builder::vec_value`]).
    fn elems(v: V) -> Vec<V> {
        match v {
            V::Vec(xs) => xs,
            other => vec![other],
        }
    }

    /// The vector instructions that are neither loads, stores, `select`,
    /// `phi` nor `freeze` (those read vectors through [`Builder::typed`]):
    /// `Some(value)` for one of them, `None` for any other instruction.
    pub(super) fn vector_inst(
        &mut self,
        _enc: &mut Enc,
        th: &mut ThreadSt,
        _ii: usize,
        inst: &IrInst,
    ) -> Option<Option<V>> {
        let v = match &inst.kind {
            InstKind::Binary {
                op,
                flags,
                ty,
                lhs,
                rhs,
            } => {
                let (_, et) = shape(ty)?;
                let a = Self::elems(self.typed(lhs, ty, th));
                let b = Self::elems(self.typed(rhs, ty, th));
                let out = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| match FloatTy::of(et) {
                        Some(f) => self.fbinary_elem(*op, flags, f, x, y),
                        None => self.binary_elem(th, *op, flags, width(et), x, y),
                    })
                    .collect();
                V::Vec(out)
            }
            InstKind::FNeg { flags, ty, value } => {
                let (_, et) = shape(ty)?;
                let f = FloatTy::of(et).expect("prepare admits fneg on floats only");
                let a = Self::elems(self.typed(value, ty, th));
                V::Vec(a.iter().map(|x| self.fneg_elem(flags, f, x)).collect())
            }
            InstKind::ICmp {
                samesign,
                pred,
                ty,
                lhs,
                rhs,
            } => {
                let (_, et) = shape(ty)?;
                let a = Self::elems(self.typed(lhs, ty, th));
                let b = Self::elems(self.typed(rhs, ty, th));
                let w = width(et);
                V::Vec(
                    a.iter()
                        .zip(&b)
                        .map(|(x, y)| self.icmp_elem(*pred, *samesign, w, x, y))
                        .collect(),
                )
            }
            InstKind::FCmp {
                flags,
                pred,
                ty,
                lhs,
                rhs,
            } => {
                let (_, et) = shape(ty)?;
                let f = FloatTy::of(et).expect("prepare admits fcmp on floats only");
                let a = Self::elems(self.typed(lhs, ty, th));
                let b = Self::elems(self.typed(rhs, ty, th));
                V::Vec(
                    a.iter()
                        .zip(&b)
                        .map(|(x, y)| self.fcmp_elem(&pred.0, flags, f, x, y))
                        .collect(),
                )
            }
            InstKind::Cast {
                op,
                flags,
                from,
                to,
            } if shape(&from.ty).is_some() || shape(to).is_some() => {
                let v = self.typed(&from.value, &from.ty, th);
                if *op == CastOp::BitCast {
                    self.vec_bitcast(&from.ty, to, v)
                } else {
                    let (_, fe) = shape(&from.ty).expect("an element-wise cast of vectors");
                    let (_, te) = shape(to).expect("an element-wise cast of vectors");
                    let xs = Self::elems(v);
                    let float = FloatTy::of(fe).is_some() || FloatTy::of(te).is_some();
                    V::Vec(
                        xs.iter()
                            .map(|x| {
                                if float {
                                    self.fcast_elem(*op, flags, fe, te, x)
                                } else {
                                    self.cast_elem(*op, flags, width(fe), width(te), x)
                                }
                            })
                            .collect(),
                    )
                }
            }
            InstKind::ExtractElement { vector, index } => self.extract(th, vector, index),
            InstKind::InsertElement {
                vector,
                value,
                index,
            } => self.insert(th, vector, value, index),
            InstKind::ShuffleVector { a, b, mask } => self.shuffle(th, a, b, mask),
            _ => return None,
        };
        Some(Some(v))
    }

    /// Whether index `i` (bits and poison of its width) equals `k`; false
    /// when `k` does not fit the index type.
    fn index_is(&mut self, i: TermId, k: usize) -> TermId {
        let wi = self.t.sort(i).bv_width().unwrap_or(64);
        if wi < 64 && k as u128 >= 1u128 << wi {
            return self.t.fls();
        }
        let kt = self.bv(wi, k as u128);
        self.t.eq(i, kt)
    }

    /// P-VEC-ACCESS `extractelement`: the element the index selects;
    /// poison when the index is poison or not below the element count.
    fn extract(&mut self, th: &ThreadSt, vector: &TypedOperand, index: &TypedOperand) -> V {
        let (_, et) = shape(&vector.ty).expect("prepare admits fixed-width vectors");
        let xs = Self::elems(self.typed(&vector.value, &vector.ty, th));
        let iv = self.typed(&index.value, &index.ty, th);
        let (i, ip) = self.bits_of(&iv, width(&index.ty));
        let mut acc = self.poison(width(et));
        for (k, x) in xs.iter().enumerate().rev() {
            let c = self.index_is(i, k);
            acc = self.ite_v(c, x, &acc);
        }
        self.or_poison(&acc, ip)
    }

    /// P-VEC-ACCESS `insertelement`: the vector with the selected element
    /// replaced; every element poison when the index is poison or not
    /// below the element count.
    fn insert(
        &mut self,
        th: &ThreadSt,
        vector: &TypedOperand,
        value: &TypedOperand,
        index: &TypedOperand,
    ) -> V {
        let xs = Self::elems(self.typed(&vector.value, &vector.ty, th));
        let y = self.typed(&value.value, &value.ty, th);
        let iv = self.typed(&index.value, &index.ty, th);
        let (i, ip) = self.bits_of(&iv, width(&index.ty));
        let hits: Vec<TermId> = (0..xs.len()).map(|k| self.index_is(i, k)).collect();
        let any = self.t.or(&hits);
        let out_of_range = self.t.not(any);
        let bad = self.t.or(&[ip, out_of_range]);
        let out = xs
            .iter()
            .zip(&hits)
            .map(|(x, c)| {
                let e = self.ite_v(*c, &y, x);
                self.or_poison(&e, bad)
            })
            .collect();
        V::Vec(out)
    }

    /// P-VEC-ACCESS `shufflevector`: element k is element `mask[k]` of
    /// `a` followed by `b`; a poison or `undef` mask element gives poison.
    /// Prepare admits constant masks only.
    fn shuffle(
        &mut self,
        th: &ThreadSt,
        a: &TypedOperand,
        b: &TypedOperand,
        mask: &TypedOperand,
    ) -> V {
        let (len, _) = shape(&mask.ty).expect("prepare admits fixed-width masks");
        let (_, et) = shape(&a.ty).expect("prepare admits fixed-width vectors");
        let mut both = Self::elems(self.typed(&a.value, &a.ty, th));
        both.extend(Self::elems(self.typed(&b.value, &b.ty, th)));
        let ms: Vec<Option<usize>> = match mask.value.as_const() {
            Some(Const::Vector(xs)) => xs
                .iter()
                .map(|x| match x.value {
                    Const::Int { value, .. } => usize::try_from(value).ok(),
                    _ => None,
                })
                .collect(),
            Some(Const::ZeroInit) => vec![Some(0); len],
            _ => vec![None; len],
        };
        let w = width(et);
        V::Vec(
            ms.into_iter()
                .map(|m| match m.and_then(|k| both.get(k)) {
                    Some(x) => x.clone(),
                    None => self.poison(w),
                })
                .collect(),
        )
    }

    /// P-VEC-BITCAST: the bits of `v` (of type `from`) as a value of type
    /// `to`, element 0 in the least significant bits; an element of the
    /// result (or a scalar result) is poison when a source element it
    /// takes bits from is.
    fn vec_bitcast(&mut self, from: &Type, to: &Type, v: V) -> V {
        let src = Self::elems(v);
        let sw = match shape(from) {
            Some((_, et)) => width(et),
            None => width(from),
        };
        let parts: Vec<(TermId, TermId)> = src.iter().map(|x| self.bits_of(x, sw)).collect();
        let (count, tw) = match shape(to) {
            Some((n, et)) => (n, width(et)),
            None => (1, width(to)),
        };
        // Output element j takes bits [lo, hi) of the concatenation: the
        // overlapping slices of the source elements, highest first (no
        // term wider than an element is built).
        let out: Vec<V> = (0..count as u32)
            .map(|j| {
                let (lo, hi) = (j * tw, (j + 1) * tw);
                let mut bits: Option<TermId> = None;
                let mut ps = Vec::new();
                for (k, (b, p)) in parts.iter().enumerate() {
                    let (ks, ke) = (k as u32 * sw, (k as u32 + 1) * sw);
                    if ke <= lo || hi <= ks {
                        continue;
                    }
                    let piece = self.t.extract(hi.min(ke) - 1 - ks, lo.max(ks) - ks, *b);
                    bits = Some(match bits {
                        None => piece,
                        Some(acc) => self.t.concat(piece, acc),
                    });
                    ps.push(*p);
                }
                V::Int {
                    bits: bits.expect("the widths of a bitcast agree (prepare)"),
                    poison: self.t.or(&ps),
                }
            })
            .collect();
        match shape(to) {
            Some(_) => V::Vec(out),
            None => out.into_iter().next().expect("one scalar"),
        }
    }

    /// P-VEC-REDUCE (`machine::vector::reduce`): integer reductions fold
    /// with their operation, poison if an element is; `fadd`/`fmul` from
    /// the start value through the elements in order with the call's
    /// flags on each step; `fmax`/`fmin`/`fmaximum`/`fminimum` fold with
    /// the scalar intrinsic.
    pub(super) fn reduce(&mut self, r: Reduce, flags: &[String], ret: &Type, args: &[V]) -> V {
        let w = width(ret);
        let (start, vec) = match args {
            [s, v] => (Some(s.clone()), v.clone()),
            [v] => (None, v.clone()),
            _ => return self.poison(w),
        };
        let xs = Self::elems(vec);
        match r {
            Reduce::Int(op) => {
                let mut acc: Option<(TermId, TermId)> = None;
                for x in &xs {
                    let (b, p) = self.bits_of(x, w);
                    acc = Some(match acc {
                        None => (b, p),
                        Some((a, q)) => {
                            let r = self.int_step(op, a, b);
                            (r, self.t.or(&[q, p]))
                        }
                    });
                }
                match acc {
                    Some((bits, poison)) => V::Int { bits, poison },
                    None => self.poison(w),
                }
            }
            Reduce::FloatArith(op) => {
                let f = FloatTy::of(ret).expect("prepare admits float reductions of floats");
                let mut acc = start.unwrap_or_else(|| self.poison(w));
                for x in &xs {
                    acc = self.fbinary_elem(op, flags, f, &acc, x);
                }
                acc
            }
            Reduce::FloatMinMax(scalar) => {
                let base = scalar.trim_start_matches("llvm.");
                let mut it = xs.into_iter();
                let mut acc = it.next().unwrap_or_else(|| self.poison(w));
                for x in it {
                    acc = self.float_intrinsic(base, flags, ret, &[acc, x]);
                }
                acc
            }
        }
    }

    fn int_step(&mut self, op: &str, a: TermId, b: TermId) -> TermId {
        match op {
            "add" => self.t.bv_add(a, b),
            "mul" => self.t.bv_mul(a, b),
            "and" => self.t.bv_and(a, b),
            "or" => self.t.bv_or(a, b),
            "xor" => self.t.bv_xor(a, b),
            _ => {
                let keep_a = match op {
                    "smax" => self.t.bv_sge(a, b),
                    "smin" => self.t.bv_sle(a, b),
                    "umax" => self.t.bv_uge(a, b),
                    _ => self.t.bv_ule(a, b),
                };
                self.t.ite(keep_a, a, b)
            }
        }
    }

    /// P-VEC-ELEM for intrinsics: `f` on each lane, vector arguments read
    /// at the lane and scalar ones (a flag, an exponent) as they are.
    pub(super) fn lanes(&mut self, args: &[V], mut f: impl FnMut(&mut Self, &[V]) -> V) -> V {
        let n = args
            .iter()
            .find_map(|a| match a {
                V::Vec(xs) => Some(xs.len()),
                _ => None,
            })
            .unwrap_or(0);
        let out = (0..n)
            .map(|k| {
                let lane: Vec<V> = args
                    .iter()
                    .map(|a| match a {
                        V::Vec(xs) => xs[k].clone(),
                        other => other.clone(),
                    })
                    .collect();
                f(self, &lane)
            })
            .collect();
        V::Vec(out)
    }
}
