//! Random well-sorted terms for property tests of this layer (the vc
//! evaluator, the printer, the Z3 translation and model extraction).
//!
//! Driven by a seed from proptest and a small deterministic generator, so a
//! failing case is reproduced by its seed. The vocabulary covers every
//! operator of [`Op`], bit-vectors of widths 1, 4, 8 and 12, integers, and an
//! uninterpreted sort with functions into and out of it.

use super::eval::{Model, Value};
use super::{FuncId, Op, Sort, TermId, Terms};

/// SplitMix64: tiny, deterministic, good enough to pick shapes.
pub(crate) struct Gen(u64);

impl Gen {
    pub(crate) fn new(seed: u64) -> Gen {
        Gen(seed)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The symbols random terms are built from.
pub(crate) struct Vocab {
    pub(crate) bools: Vec<TermId>,
    /// `(width, variable)`.
    pub(crate) bvs: Vec<(u32, TermId)>,
    pub(crate) ints: Vec<TermId>,
    pub(crate) us: Vec<TermId>,
    /// `f : bv8 -> bv8`.
    pub(crate) f: FuncId,
    /// `g : U x bv4 -> U`.
    pub(crate) g: FuncId,
    /// `p : U -> Bool`.
    pub(crate) p: FuncId,
    /// `h : U -> bv4`.
    pub(crate) h: FuncId,
}

pub(crate) const WIDTHS: [u32; 4] = [1, 4, 8, 12];

impl Vocab {
    pub(crate) fn new(terms: &mut Terms) -> Vocab {
        let u_sort = terms.uninterpreted_sort("U");
        let bools = (0..2)
            .map(|i| terms.var(&format!("b{i}"), Sort::Bool))
            .collect();
        let mut bvs = Vec::new();
        for w in WIDTHS {
            for i in 0..2 {
                bvs.push((w, terms.var(&format!("x{w}_{i}"), Sort::BitVec(w))));
            }
        }
        let ints = (0..2)
            .map(|i| terms.var(&format!("n{i}"), Sort::Int))
            .collect();
        let us = (0..2)
            .map(|i| terms.var(&format!("u{i}"), u_sort.clone()))
            .collect();
        let f = terms.func("f", &[Sort::BitVec(8)], Sort::BitVec(8));
        let g = terms.func("g", &[u_sort.clone(), Sort::BitVec(4)], u_sort.clone());
        let p = terms.func("p", std::slice::from_ref(&u_sort), Sort::Bool);
        let h = terms.func("h", std::slice::from_ref(&u_sort), Sort::BitVec(4));
        Vocab {
            bools,
            bvs,
            ints,
            us,
            f,
            g,
            p,
            h,
        }
    }

    /// A random assignment to the variables without function symbols: small
    /// integers (so products stay far from i128 overflow), any bit patterns.
    pub(crate) fn assignment(&self, terms: &Terms, g: &mut Gen) -> Model {
        let mut m = Model::new();
        for &b in &self.bools {
            m.vars
                .insert(terms.as_var(b).expect("a var"), Value::Bool(g.chance(50)));
        }
        for &(w, x) in &self.bvs {
            m.vars.insert(
                terms.as_var(x).expect("a var"),
                Value::bv(w, interesting_bits(g, w)),
            );
        }
        for &n in &self.ints {
            let v = g.below(41) as i128 - 20;
            m.vars
                .insert(terms.as_var(n).expect("a var"), Value::Int(v));
        }
        m
    }
}

/// Bit patterns biased to the corners (0, 1, all ones, sign bit).
pub(crate) fn interesting_bits(g: &mut Gen, w: u32) -> u128 {
    let all = super::eval::mask(w);
    match g.below(6) {
        0 => 0,
        1 => 1,
        2 => all,
        3 => 1u128 << (w - 1),
        _ => (g.next() as u128) & all,
    }
}

/// Whether generated terms may use the uninterpreted sort and functions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Uf {
    No,
    Yes,
}

/// A random Boolean term of depth at most `depth`.
pub(crate) fn bool_term(t: &mut Terms, v: &Vocab, g: &mut Gen, uf: Uf, depth: u32) -> TermId {
    if depth == 0 || g.chance(15) {
        return match g.below(4) {
            0 => t.bool_const(g.chance(50)),
            _ => v.bools[g.below(v.bools.len() as u64) as usize],
        };
    }
    let d = depth - 1;
    let choices = if uf == Uf::Yes { 12 } else { 10 };
    match g.below(choices) {
        0 => {
            let a = bool_term(t, v, g, uf, d);
            t.not(a)
        }
        1 | 2 => {
            let n = 2 + g.below(2) as usize;
            let args: Vec<TermId> = (0..n).map(|_| bool_term(t, v, g, uf, d)).collect();
            let op = [Op::And, Op::Or][g.below(2) as usize];
            raw(t, op, &args, g)
        }
        3 => {
            let a = bool_term(t, v, g, uf, d);
            let b = bool_term(t, v, g, uf, d);
            let op = [Op::Implies, Op::Xor][g.below(2) as usize];
            raw(t, op, &[a, b], g)
        }
        4 => {
            let c = bool_term(t, v, g, uf, d);
            let a = bool_term(t, v, g, uf, d);
            let b = bool_term(t, v, g, uf, d);
            raw(t, Op::Ite, &[c, a, b], g)
        }
        5..=7 => {
            let w = WIDTHS[g.below(WIDTHS.len() as u64) as usize];
            let a = bv_term(t, v, g, uf, w, d);
            let b = bv_term(t, v, g, uf, w, d);
            let ops = [
                Op::Eq,
                Op::Distinct,
                Op::BvUlt,
                Op::BvUle,
                Op::BvSlt,
                Op::BvSle,
            ];
            raw(t, ops[g.below(ops.len() as u64) as usize], &[a, b], g)
        }
        8 | 9 => {
            let a = int_term(t, v, g, d);
            let b = int_term(t, v, g, d);
            let ops = [Op::Eq, Op::IntLe, Op::IntLt];
            raw(t, ops[g.below(ops.len() as u64) as usize], &[a, b], g)
        }
        10 => {
            let a = u_term(t, v, g, d);
            let b = u_term(t, v, g, d);
            raw(t, Op::Eq, &[a, b], g)
        }
        _ => {
            let a = u_term(t, v, g, d);
            t.apply(v.p, &[a])
        }
    }
}

/// Applies `op` either through the simplifying builder or raw (unsimplified),
/// so that both paths reach the printer and the solver.
fn raw(t: &mut Terms, op: Op, args: &[TermId], g: &mut Gen) -> TermId {
    if g.chance(50) {
        t.try_app(op, args).expect("arb builds well-sorted terms")
    } else {
        t.app(op, args)
    }
}

/// A random bit-vector term of width `w`.
pub(crate) fn bv_term(t: &mut Terms, v: &Vocab, g: &mut Gen, uf: Uf, w: u32, depth: u32) -> TermId {
    let vars: Vec<TermId> = v
        .bvs
        .iter()
        .filter(|(vw, _)| *vw == w)
        .map(|p| p.1)
        .collect();
    if depth == 0 || g.chance(15) {
        if !vars.is_empty() && g.chance(60) {
            return vars[g.below(vars.len() as u64) as usize];
        }
        let bits = interesting_bits(g, w);
        return t.bv_const(w, bits);
    }
    let d = depth - 1;
    match g.below(if uf == Uf::Yes { 10 } else { 8 }) {
        0 => {
            let a = bv_term(t, v, g, uf, w, d);
            let op = [Op::BvNot, Op::BvNeg][g.below(2) as usize];
            raw(t, op, &[a], g)
        }
        1..=3 => {
            let a = bv_term(t, v, g, uf, w, d);
            let b = bv_term(t, v, g, uf, w, d);
            let ops = [
                Op::BvAnd,
                Op::BvOr,
                Op::BvXor,
                Op::BvAdd,
                Op::BvSub,
                Op::BvMul,
                Op::BvUdiv,
                Op::BvUrem,
                Op::BvSdiv,
                Op::BvSrem,
                Op::BvShl,
                Op::BvLshr,
                Op::BvAshr,
            ];
            raw(t, ops[g.below(ops.len() as u64) as usize], &[a, b], g)
        }
        4 => {
            let c = bool_term(t, v, g, uf, d);
            let a = bv_term(t, v, g, uf, w, d);
            let b = bv_term(t, v, g, uf, w, d);
            raw(t, Op::Ite, &[c, a, b], g)
        }
        5 => {
            // Extract from a wider (or equal) vector.
            let wider = WIDTHS
                .iter()
                .copied()
                .filter(|&x| x >= w)
                .collect::<Vec<_>>();
            let src_w = wider[g.below(wider.len() as u64) as usize];
            let lo = g.below((src_w - w + 1) as u64) as u32;
            let a = bv_term(t, v, g, uf, src_w, d);
            raw(t, Op::Extract { hi: lo + w - 1, lo }, &[a], g)
        }
        6 if w >= 2 => {
            let hi_w = 1 + g.below((w - 1) as u64) as u32;
            let a = bv_term(t, v, g, uf, hi_w, d);
            let b = bv_term(t, v, g, uf, w - hi_w, d);
            raw(t, Op::Concat, &[a, b], g)
        }
        7 if w >= 2 => {
            let src_w = 1 + g.below((w - 1) as u64) as u32;
            let a = bv_term(t, v, g, uf, src_w, d);
            let op = [Op::ZeroExt(w - src_w), Op::SignExt(w - src_w)][g.below(2) as usize];
            raw(t, op, &[a], g)
        }
        8 if w == 8 => {
            let a = bv_term(t, v, g, uf, 8, d);
            t.apply(v.f, &[a])
        }
        9 if w == 4 => {
            let a = u_term(t, v, g, d);
            t.apply(v.h, &[a])
        }
        _ => {
            let a = bv_term(t, v, g, uf, w, d);
            let b = bv_term(t, v, g, uf, w, d);
            raw(t, Op::BvAdd, &[a, b], g)
        }
    }
}

/// A random integer term.
pub(crate) fn int_term(t: &mut Terms, v: &Vocab, g: &mut Gen, depth: u32) -> TermId {
    if depth == 0 || g.chance(25) {
        return if g.chance(50) {
            v.ints[g.below(v.ints.len() as u64) as usize]
        } else {
            t.int_const(g.below(21) as i128 - 10)
        };
    }
    let d = depth - 1;
    let a = int_term(t, v, g, d);
    let b = int_term(t, v, g, d);
    match g.below(5) {
        0 => raw(t, Op::IntAdd, &[a, b], g),
        1 => raw(t, Op::IntSub, &[a, b], g),
        2 => {
            // Linear only: nonlinear integer arithmetic is undecidable, and
            // random instances of it can keep Z3 busy indefinitely.
            let k = t.int_const(g.below(7) as i128 - 3);
            raw(t, Op::IntMul, &[k, b], g)
        }
        3 => raw(t, Op::IntNeg, &[a], g),
        _ => {
            let c = bool_term(t, v, g, Uf::No, d);
            raw(t, Op::Ite, &[c, a, b], g)
        }
    }
}

/// A random term of the uninterpreted sort.
pub(crate) fn u_term(t: &mut Terms, v: &Vocab, g: &mut Gen, depth: u32) -> TermId {
    if depth == 0 || g.chance(40) {
        return v.us[g.below(v.us.len() as u64) as usize];
    }
    let a = u_term(t, v, g, depth - 1);
    let b = bv_term(t, v, g, Uf::Yes, 4, depth - 1);
    t.apply(v.g, &[a, b])
}
