//! R-OBS: observations of encoded executions, symbolically (the matching
//! condition between a source and a target execution) and concretely (read
//! out of a model for printing and replay).

use crate::vc::eval::{Model, Value};
use crate::vc::{Sort, TermId, Terms};

use super::encode::{member, Enc, V};

/// Source value `s` matches target value `t`: poison in the source is
/// matched by any target value (R-OBS).
fn val_match(terms: &mut Terms, s: &V, t: &V) -> TermId {
    match (s, t) {
        (V::Int { bits: a, poison: p }, V::Int { bits: b, poison: q }) => {
            if terms.sort(*a) != terms.sort(*b) {
                return *p;
            }
            let e = terms.eq(*a, *b);
            let nq = terms.not(*q);
            let both = terms.and(&[nq, e]);
            terms.or(&[*p, both])
        }
        (V::Void, V::Void) => terms.tru(),
        _ => terms.fls(),
    }
}

/// Exactly the same value: both poison, or neither and equal bits
/// (C-VAL's pair check, where the arguments of an event key its result).
fn val_same(terms: &mut Terms, s: &V, t: &V) -> TermId {
    match (s, t) {
        (V::Int { bits: a, poison: p }, V::Int { bits: b, poison: q }) => {
            if terms.sort(*a) != terms.sort(*b) {
                return terms.fls();
            }
            let pe = terms.eq(*p, *q);
            let e = terms.eq(*a, *b);
            let either = terms.or(&[*p, e]);
            terms.and(&[pe, either])
        }
        (V::Void, V::Void) => terms.tru(),
        _ => terms.fls(),
    }
}

fn args_match(terms: &mut Terms, s: &[V], t: &[V], exact: bool) -> TermId {
    if s.len() != t.len() {
        return terms.fls();
    }
    let cs: Vec<TermId> = s
        .iter()
        .zip(t)
        .map(|(a, b)| {
            if exact {
                val_same(terms, a, b)
            } else {
                val_match(terms, a, b)
            }
        })
        .collect();
    terms.and(&cs)
}

/// The set of observed instance (t, s, o) as seen from thread u: (member,
/// that member's ordinal).
fn set_view(
    terms: &mut Terms,
    e: &Enc,
    t: usize,
    s: usize,
    o: usize,
    u: usize,
) -> (TermId, TermId) {
    let alts = member(terms, e, t, s, o, u);
    let conds: Vec<TermId> = alts.iter().map(|(c, _, _)| *c).collect();
    let is = terms.or(&conds);
    let mut ord = terms.bv_const(super::encode::CW, 0);
    for (c, s2, o2) in alts.iter().rev() {
        if let Some(x) = e.inst[u][*s2][*o2].ord {
            ord = terms.ite(*c, x, ord);
        }
    }
    (is, ord)
}

/// R-REF: source execution `s` shows the same observation as target
/// execution `t`, or has undefined behaviour. Both encode the same launch.
pub fn matches(terms: &mut Terms, s: &Enc, t: &Enc) -> TermId {
    let n = s.n;
    let ub_s = terms.or(&s.ub);
    let ub_t = terms.or(&t.ub);
    let mut conj = vec![terms.not(ub_t)];
    for th in 0..n {
        // R-PREFIX: both threads end, with matching return values (below),
        // or both provably never end; a source thread cut by the bound
        // otherwise matches nothing (the checker answers unknown then).
        let ns = terms.not(s.cut[th]);
        let nt = terms.not(t.cut[th]);
        let rv = val_match(terms, &s.ret[th], &t.ret[th]);
        let ended = terms.and(&[ns, nt, rv]);
        let hang = terms.and(&[s.stuck[th], t.stuck[th]]);
        conj.push(terms.or(&[ended, hang]));
        // External calls, in order.
        conj.push(terms.eq(s.ext_count[th], t.ext_count[th]));
        for es in &s.ext[th] {
            for et in &t.ext[th] {
                let same_ord = terms.eq(es.ord, et.ord);
                let pre = terms.and(&[es.here, et.here, same_ord]);
                let ok = if es.callee == et.callee {
                    args_match(terms, &es.args, &et.args, false)
                } else {
                    terms.fls()
                };
                conj.push(terms.implies(pre, ok));
            }
        }
        // Convergent events with their sets; a pair whose ordinals cannot
        // be equal (disjoint ranges, below the counters' wrap) constrains
        // nothing and is left out.
        conj.push(terms.eq(s.cev_count[th], t.cev_count[th]));
        for cs in &s.cev[th] {
            for ct in &t.cev[th] {
                if apart(s.cev_range_at(cs.s, cs.op), t.cev_range_at(ct.s, ct.op)) {
                    continue;
                }
                let is_ = &s.inst[th][cs.s][cs.op];
                let it = &t.inst[th][ct.s][ct.op];
                let (Some(os), Some(ot)) = (is_.ord, it.ord) else {
                    continue;
                };
                let same_ord = terms.eq(os, ot);
                let pre = terms.and(&[is_.here, it.here, same_ord]);
                let ok = if s.op_callee[cs.op] == t.op_callee[ct.op] {
                    let (sa, ta) = (is_.args.clone(), it.args.clone());
                    let mut parts = vec![args_match(terms, &sa, &ta, s.exact_args)];
                    for u in 0..n {
                        if u == th {
                            continue;
                        }
                        let (ms, ords) = set_view(terms, s, th, cs.s, cs.op, u);
                        let (mt, ordt) = set_view(terms, t, th, ct.s, ct.op, u);
                        parts.push(terms.eq(ms, mt));
                        let oe = terms.eq(ords, ordt);
                        parts.push(terms.implies(ms, oe));
                    }
                    terms.and(&parts)
                } else {
                    terms.fls()
                };
                conj.push(terms.implies(pre, ok));
            }
        }
    }
    conj.push(memory_match(terms, s, t));
    let eq = terms.and(&conj);
    terms.or(&[ub_s, eq])
}

/// Two ordinal ranges that share no value, both below the wrap of the
/// `CW`-bit event counters.
fn apart(a: Option<(usize, usize)>, b: Option<(usize, usize)>) -> bool {
    let limit = 1usize << super::encode::CW;
    match (a, b) {
        (Some((a0, a1)), Some((b0, b1))) => a1 < limit && b1 < limit && (a1 < b0 || b1 < a0),
        _ => false,
    }
}

/// R-MEM: the final contents of the observed objects agree, byte by byte
/// (objects by name): a poison source byte matches any target byte; an
/// undef one (P-MEM-UNDEF) any target byte but poison; a defined one only
/// a defined target byte with the same bits (so a target undef byte only
/// a source undef or poison byte). The checker makes sure both programs
/// have the same observed objects.
fn memory_match(terms: &mut Terms, s: &Enc, t: &Enc) -> TermId {
    let mut conj = Vec::new();
    for (name, sb) in &s.memory {
        let Some((_, tb)) = t.memory.iter().find(|(n, _)| n == name) else {
            conj.push(terms.fls());
            continue;
        };
        if sb.len() != tb.len() {
            conj.push(terms.fls());
            continue;
        }
        for (&(a, p, u), &(b, q, v)) in sb.iter().zip(tb) {
            let e = terms.eq(a, b);
            let nq = terms.not(q);
            let nu = terms.not(u);
            let nv = terms.not(v);
            let any = terms.and(&[u, nq]);
            let both = terms.and(&[nu, nq, nv, e]);
            conj.push(terms.or(&[p, any, both]));
        }
    }
    terms.and(&conj)
}

/// R-MEM: the final contents of `e`'s observed objects in model `m`.
pub fn concrete_memory(terms: &Terms, e: &Enc, m: &Model) -> super::FinalMemory {
    e.memory
        .iter()
        .map(|(name, bytes)| {
            let bs = bytes
                .iter()
                .map(|(b, q, u)| {
                    if ev_bool(terms, m, *q) {
                        super::FinalByte::Poison
                    } else if ev_bool(terms, m, *u) {
                        super::FinalByte::Undef
                    } else {
                        super::FinalByte::Val(ev_bits(terms, m, *b) as u8)
                    }
                })
                .collect();
            (name.clone(), bs)
        })
        .collect()
}

/// Fills variables and function applications the solver left unassigned
/// (they do not occur in the query) with zeros, so that every term of an
/// encoding can be evaluated.
pub fn complete(terms: &Terms, model: &Model) -> Model {
    let mut m = model.clone();
    for v in terms.vars() {
        m.vars
            .entry(v)
            .or_insert_with(|| zero(&terms.var_decl(v).sort));
    }
    for f in terms.funcs() {
        let z = zero(&terms.func_decl(f).range);
        let e = m.funcs.entry(f).or_default();
        if e.default.is_none() {
            e.default = Some(z);
        }
    }
    m
}

fn zero(s: &Sort) -> Value {
    match s {
        Sort::Bool => Value::Bool(false),
        Sort::BitVec(w) => Value::bv(*w, 0),
        Sort::Int => Value::Int(0),
        Sort::Uninterpreted(_) => Value::Bool(false),
    }
}

pub fn ev_bool(terms: &Terms, m: &Model, t: TermId) -> bool {
    m.eval(terms, t)
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

pub fn ev_bits(terms: &Terms, m: &Model, t: TermId) -> u128 {
    m.eval(terms, t).ok().and_then(|v| v.as_bits()).unwrap_or(0)
}

/// A concrete value as observed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum CVal {
    Int { width: u32, value: i128 },
    Poison,
}

impl std::fmt::Display for CVal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CVal::Int { value, .. } => write!(f, "{value}"),
            CVal::Poison => write!(f, "poison"),
        }
    }
}

fn signed(width: u32, bits: u128) -> i128 {
    if width == 1 || width >= 128 {
        return bits as i128;
    }
    let sign = 1u128 << (width - 1);
    if bits & sign != 0 {
        (bits as i128) - (1i128 << width)
    } else {
        bits as i128
    }
}

pub fn cval(terms: &Terms, m: &Model, v: &V) -> Option<CVal> {
    match v {
        V::Int { bits, poison } => Some(if ev_bool(terms, m, *poison) {
            CVal::Poison
        } else {
            let w = terms.sort(*bits).bv_width().unwrap_or(32);
            CVal::Int {
                width: w,
                value: signed(w, ev_bits(terms, m, *bits)),
            }
        }),
        _ => None,
    }
}

/// One observable event of a concrete execution.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CEvent {
    pub callee: String,
    pub args: Vec<CVal>,
    /// For convergent events: the communicating set as (thread, ordinal).
    pub set: Option<Vec<(usize, usize)>>,
    /// R-STREAM-SMT: an input-stream call's result (the interpreter's
    /// recorded result on replay); none for other events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<CVal>,
}

/// How a thread ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum CEnd {
    Returned(Option<CVal>),
    Ub,
    Cut,
}

/// One thread of a concrete execution read from a model.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CThread {
    /// Block indices visited, in order.
    pub blocks: Vec<usize>,
    pub calls: Vec<CEvent>,
    pub conv: Vec<CEvent>,
    pub end: CEnd,
}

/// Reads thread `th` of `e` out of `m` (completed with [`complete`]).
pub fn concrete(terms: &mut Terms, e: &Enc, m: &Model) -> Vec<CThread> {
    let mut out = Vec::new();
    for th in 0..e.n {
        let mut blocks = Vec::new();
        for s in 0..e.k {
            let b = ev_bits(terms, m, e.blk[th][s]) as usize;
            if b >= e.nb {
                break;
            }
            blocks.push(b);
        }
        let mut calls: Vec<(u128, CEvent)> = Vec::new();
        for ev in &e.ext[th] {
            if ev_bool(terms, m, ev.here) {
                let args = ev.args.iter().filter_map(|a| cval(terms, m, a)).collect();
                calls.push((
                    ev_bits(terms, m, ev.ord),
                    CEvent {
                        callee: ev.callee.clone(),
                        args,
                        set: None,
                        result: ev.result.as_ref().and_then(|r| cval(terms, m, r)),
                    },
                ));
            }
        }
        calls.sort_by_key(|c| c.0);
        let mut conv: Vec<(u128, CEvent)> = Vec::new();
        for c in &e.cev[th] {
            let inst = &e.inst[th][c.s][c.op];
            if !ev_bool(terms, m, inst.here) {
                continue;
            }
            let mut set = Vec::new();
            for u in 0..e.n {
                let (is, ord) = set_view(terms, e, th, c.s, c.op, u);
                if ev_bool(terms, m, is) {
                    set.push((u, ev_bits(terms, m, ord) as usize));
                }
            }
            let args = inst.args.iter().filter_map(|a| cval(terms, m, a)).collect();
            conv.push((
                inst.ord.map_or(0, |o| ev_bits(terms, m, o)),
                CEvent {
                    callee: e.op_callee[c.op].clone(),
                    args,
                    set: Some(set),
                    result: None,
                },
            ));
        }
        conv.sort_by_key(|c| c.0);
        let end = if ev_bool(terms, m, e.ub[th]) {
            CEnd::Ub
        } else if ev_bool(terms, m, e.cut[th]) {
            CEnd::Cut
        } else {
            CEnd::Returned(cval(terms, m, &e.ret[th]))
        };
        out.push(CThread {
            blocks,
            calls: calls.into_iter().map(|c| c.1).collect(),
            conv: conv.into_iter().map(|c| c.1).collect(),
            end,
        });
    }
    out
}
