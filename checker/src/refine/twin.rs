//! The twin strategy of CEGIS (proofs/FINDINGS.md F-21's family of exact
//! speed-ups for programs with anchors): a source strategy learned up
//! front in which the source makes the choices the target made.
//!
//! D-ANCHOR lets an anchor group any of its instances (constrained by
//! D-ORDER's rank function), so a target with anchors in a loop has many
//! executions that group instances of *different* iterations; CEGIS's
//! canonical strategies (same occurrence, same rank formula) cannot follow
//! them and learns one model at a time. When the source's convergent
//! operations are the target's (a pass that left them in place), or the
//! target's are copies of them (loop unrolling: `%tok.l2` becomes
//! `%tok.l2`, `%tok.l2.1`, ... in blocks `%l2`, `%l2.1`, ...), the source
//! can instead take, per thread, the anchor key and the D-ORDER rank of
//! its j-th occurrence of an operation from the target's j-th instance of
//! that operation's copies.
//!
//! Soundness: every source choice variable is set to a term over the
//! target's variables alone (never over the source's own execution), so
//! the assignment is one source strategy per target execution, like the
//! ones CEGIS learns from models; the learned constraint only removes
//! target executions that the strategy's source execution, when valid
//! (D-INST, D-ORDER), matches. A strategy that does not fit (an invalid
//! rank function, a different grouping) removes nothing and CEGIS goes on.

use rustc_hash::FxHashMap as HashMap;

use crate::vc::{TermId, Terms};

use super::encode::{Enc, TWIN_KEY_W};
use super::prog::{CallSem, Prepared};

/// How the source's operations correspond to the target's.
pub(super) enum Twins {
    /// The same operations (by index): the source's op `o` is the target's
    /// `tau[o]`, occurrence for occurrence.
    Same(Vec<usize>),
    /// Per source op, the target's copies of it; the source's j-th
    /// occurrence corresponds to the j-th instance of any copy, in the
    /// thread's program order.
    Copies(Vec<Vec<usize>>),
    /// The source has `loop` intrinsics (D-LOOP), whose occurrences
    /// unrolling merges (one heart per unrolled body), so occurrences do
    /// not correspond; every source anchor has a target anchor of the same
    /// name: the mirror strategy (`cegis::mirror_anchors`, anchors by name,
    /// canonical ranks), which D-LOOP's iteration counts make valid.
    Names,
}

/// Per convergent call, in block order: (block, instruction), block name,
/// position among the block's convergent calls, callee, token name (the
/// result of a token-defining call, else the `convergencectrl` token).
struct Op {
    at: (usize, usize),
    block: String,
    pos: usize,
    callee: String,
    token: String,
}

fn ops(p: &Prepared) -> Vec<Op> {
    let mut out = Vec::new();
    for (bi, row) in p.calls.iter().enumerate() {
        let mut pos = 0;
        for (ii, c) in row.iter().enumerate() {
            let Some(c) = c.as_ref().filter(|c| c.convergent) else {
                continue;
            };
            let inst = &p.func.blocks[bi].insts[ii];
            let tok = if c.sem.is_token_def() {
                inst.result
            } else {
                c.token
            };
            out.push(Op {
                at: (bi, ii),
                block: p.func.blocks[bi].name.to_string(),
                pos,
                callee: c.callee.clone(),
                token: tok.map_or(String::new(), |v| p.func.value(v).name.to_string()),
            });
            pos += 1;
        }
    }
    out
}

/// A name without the suffixes LLVM's cloning passes add: `.N` (unrolled
/// or cloned copies, with the digits uniquing appends: `tok.l2.11`), and
/// `.epil`, `.prol`, `.peel`, `.unr`, `.split`.
fn stem(name: &str) -> &str {
    let mut s = name;
    loop {
        let Some((head, tail)) = s.rsplit_once('.') else {
            return s;
        };
        let numeric = !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit());
        let cloned = matches!(tail, "epil" | "prol" | "peel" | "unr" | "split")
            || tail.starts_with("unr-")
            || tail.starts_with("epil")
            || tail.starts_with("peel");
        if head.is_empty() || !(numeric || cloned) {
            return s;
        }
        s = head;
    }
}

/// The correspondence of the twin strategy, if there is one: the same
/// operations ([`Twins::Same`]: same block names, same order in each
/// block, same callees, same D-CW classes), else copies by name stem
/// ([`Twins::Copies`]: every source operation has a stem signature of its
/// own and at least one target copy, no inlined copies of anchors). Both
/// programs must have one cycle hierarchy each, or equally many.
pub(super) fn twins(src: &Prepared, tgt: &Prepared) -> Option<Twins> {
    if src.hiers.len() != tgt.hiers.len() {
        return None;
    }
    let (so, to) = (ops(src), ops(tgt));
    if let Some(tau) = same_ops(src, tgt, &so, &to) {
        return Some(Twins::Same(tau));
    }
    let sem = |p: &Prepared, o: &Op| p.calls[o.at.0][o.at.1].as_ref().map(|c| c.sem.clone());
    let is = |p: &Prepared, o: &Op, x: CallSem| sem(p, o) == Some(x);
    if so.iter().any(|o| is(src, o, CallSem::Loop)) {
        let named = so.iter().filter(|o| is(src, o, CallSem::Anchor)).all(|o| {
            to.iter()
                .any(|x| is(tgt, x, CallSem::Anchor) && x.token == o.token)
        });
        return named.then_some(Twins::Names);
    }
    // Copies: (stem of the block, callee, stem of the token).
    let sig = |o: &Op| {
        (
            stem(&o.block).to_string(),
            o.callee.clone(),
            stem(&o.token).to_string(),
        )
    };
    let mut seen = HashMap::default();
    for o in &so {
        if seen.insert(sig(o), ()).is_some() {
            return None;
        }
    }
    // No inlined copies of one anchor (one operation per D-CW class).
    let singletons = |p: &Prepared| {
        let mut ids: Vec<usize> = p.class.values().copied().collect();
        let all = ids.len();
        ids.sort_unstable();
        ids.dedup();
        ids.len() == all
    };
    if !singletons(src) || !singletons(tgt) {
        return None;
    }
    let mut groups = Vec::new();
    for o in &so {
        let g: Vec<usize> = (0..to.len()).filter(|&j| sig(&to[j]) == sig(o)).collect();
        if g.is_empty() {
            return None;
        }
        groups.push(g);
    }
    Some(Twins::Copies(groups))
}

/// [`Twins::Same`]'s correspondence, if the operations are the same.
fn same_ops(src: &Prepared, tgt: &Prepared, so: &[Op], to: &[Op]) -> Option<Vec<usize>> {
    if so.len() != to.len() {
        return None;
    }
    let mut tau = Vec::with_capacity(so.len());
    for o in so {
        let j = to
            .iter()
            .position(|x| x.block == o.block && x.pos == o.pos && x.callee == o.callee)?;
        tau.push(j);
    }
    let mut sorted = tau.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != tau.len() {
        return None;
    }
    // D-CW classes correspond: two source operations share a class iff
    // their twins do.
    let class = |p: &Prepared, at: (usize, usize)| p.class.get(&at).copied();
    for (a, x) in so.iter().enumerate() {
        for (b, y) in so.iter().enumerate().skip(a + 1) {
            let same_s = class(src, x.at).is_some() && class(src, x.at) == class(src, y.at);
            let (tx, ty) = (to[tau[a]].at, to[tau[b]].at);
            let same_t = class(tgt, tx).is_some() && class(tgt, tx) == class(tgt, ty);
            if same_s != same_t {
                return None;
            }
        }
    }
    Some(tau)
}

/// The twin strategy's constraint on the source copy `s` (encoded with
/// free ranks) given the target `t`: every anchor key and D-ORDER rank of
/// `s` set from `t` (module doc), the cycle hierarchy as the target's, the
/// frozen values as the target's. `None` when the encodings' choices do
/// not line up.
pub(super) fn tie(terms: &mut Terms, s: &Enc, t: &Enc, map: &Twins) -> Option<TermId> {
    if s.rank_vars.len() != t.rank_vars.len() {
        return None;
    }
    let mut cs = Vec::new();
    match map {
        Twins::Same(tau) => same_tie(terms, s, t, tau, &mut cs)?,
        Twins::Copies(groups) => copies_tie(terms, s, t, groups, &mut cs)?,
        Twins::Names => return None,
    }
    match (s.hierarchy, t.hierarchy) {
        (Some(a), Some(b)) => cs.push(eq(terms, a, b)?),
        (None, None) => {}
        _ => return None,
    }
    if !s.freeze.is_empty() {
        cs.push(super::cegis::freeze_tie(terms, s, t));
    }
    Some(terms.and(&cs))
}

/// [`Twins::Same`]: variable for variable.
fn same_tie(
    terms: &mut Terms,
    s: &Enc,
    t: &Enc,
    tau: &[usize],
    cs: &mut Vec<TermId>,
) -> Option<()> {
    if s.ops.len() != tau.len() {
        return None;
    }
    for (th, (sr, tr)) in s.rank_vars.iter().zip(&t.rank_vars).enumerate() {
        for (o, vars) in sr.iter().enumerate() {
            let twin = tr.get(tau[o])?;
            if twin.len() != vars.len() {
                return None;
            }
            for (a, b) in vars.iter().zip(twin) {
                cs.push(eq(terms, *a, *b)?);
            }
        }
        for ((c, th2), vars) in &s.anchor_vars {
            if *th2 != th {
                continue;
            }
            let o = s.class_ops[*c].first()?;
            let tc = t.op_class[tau[*o]];
            let (_, twin) = t.anchor_vars.iter().find(|(k, _)| *k == (tc, th))?;
            if twin.len() != vars.len() {
                return None;
            }
            for (a, b) in vars.iter().zip(twin) {
                // The source's keys are wider ([`TWIN_KEY_W`]): the
                // target's key, zero-extended.
                let (wa, wb) = (terms.sort(*a).bv_width()?, terms.sort(*b).bv_width()?);
                let b = terms.zero_ext(wa.checked_sub(wb)?, *b);
                cs.push(eq(terms, *a, b)?);
            }
        }
    }
    Some(())
}

/// `a = b`, or `None` when their sorts differ (the encodings do not line
/// up: no strategy, rather than an ill-sorted term).
fn eq(terms: &mut Terms, a: TermId, b: TermId) -> Option<TermId> {
    (terms.sort(a) == terms.sort(b)).then(|| terms.eq(a, b))
}

/// Width of the instance counters of [`copies_tie`].
const COUNT_W: u32 = 16;

/// [`Twins::Copies`]: the source's j-th occurrence of op `o` takes the key
/// and rank of the target thread's j-th instance of any op of
/// `groups[o]`, in program order (steps, then instruction order in the
/// step's block); an occurrence the target does not have gets a key no
/// other thread's anchor has and rank 0.
fn copies_tie(
    terms: &mut Terms,
    s: &Enc,
    t: &Enc,
    groups: &[Vec<usize>],
    cs: &mut Vec<TermId>,
) -> Option<()> {
    if s.ops.len() != groups.len() {
        return None;
    }
    let k = t.k;
    for (th, sr) in s.rank_vars.iter().enumerate() {
        let tr = t.rank_vars.get(th)?;
        for (o, g) in groups.iter().enumerate() {
            // The target's instances of the group, in program order.
            let mut order: Vec<(usize, usize)> = Vec::new();
            for step in 0..k {
                let mut here: Vec<usize> = g.clone();
                here.sort_by_key(|o2| t.ops[*o2]);
                order.extend(here.into_iter().map(|o2| (step, o2)));
            }
            let one = terms.bv_const(COUNT_W, 1);
            let zero = terms.bv_const(COUNT_W, 0);
            let mut count = zero;
            let mut before = Vec::with_capacity(order.len());
            for &(step, o2) in &order {
                before.push(count);
                let inc = terms.ite(t.inst[th][step][o2].here, one, zero);
                count = terms.bv_add(count, inc);
            }
            // The j-th instance's rank and key, for every occurrence j.
            let vars = sr.get(o)?;
            let anchor = s
                .anchor_vars
                .iter()
                .find(|((c, th2), _)| *th2 == th && s.class_ops[*c] == [o])
                .map(|(_, v)| v);
            for (j, rv) in vars.iter().enumerate() {
                let jt = terms.bv_const(COUNT_W, j as u128);
                let rw = terms.sort(*rv).bv_width()?;
                let mut rank = terms.bv_const(rw, 0);
                // The key: the target anchor's D-CW class (8 bits), then
                // its key; none: all ones, then (thread, occurrence).
                let kv = anchor.and_then(|a| a.get(j));
                let mut key = kv.map(|v| {
                    let w = terms.sort(*v).bv_width().unwrap_or(TWIN_KEY_W);
                    let x = (0xff << (w - 8)) | ((th * s.k + j) as u128 & ((1u128 << (w - 8)) - 1));
                    terms.bv_const(w, x)
                });
                for (i, &(step, o2)) in order.iter().enumerate().rev() {
                    let inst = &t.inst[th][step][o2];
                    if terms.is_false(inst.here) {
                        continue;
                    }
                    let at_j = terms.eq(before[i], jt);
                    let c = terms.and(&[inst.here, at_j]);
                    let r = super::encode::select(terms, inst.occ, tr.get(o2)?);
                    if terms.sort(r) != terms.sort(rank) {
                        return None;
                    }
                    rank = terms.ite(c, r, rank);
                    if let (Some(kk), Some(tk)) = (key, inst.key.first()) {
                        let tw = terms.sort(*tk).bv_width()?;
                        let wide = terms.zero_ext(TWIN_KEY_W.checked_sub(tw)?, *tk);
                        let tag = (t.op_class[o2] & 0x7f) as u128;
                        let tag = terms.bv_const(TWIN_KEY_W, tag << (TWIN_KEY_W - 8));
                        let tagged = terms.bv_add(wide, tag);
                        if terms.sort(kk) != terms.sort(tagged) {
                            return None;
                        }
                        key = Some(terms.ite(c, tagged, kk));
                    }
                }
                cs.push(eq(terms, *rv, rank)?);
                if let (Some(v), Some(kk)) = (kv, key) {
                    cs.push(eq(terms, *v, kk)?);
                }
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::stem;

    /// LLVM's cloning suffixes are stripped, other dots are kept.
    #[test]
    fn stems() {
        assert_eq!(stem("tok.l2"), "tok.l2");
        assert_eq!(stem("tok.l2.1"), "tok.l2");
        assert_eq!(stem("tok.l2.11"), "tok.l2");
        assert_eq!(stem("tok.l2.1.3"), "tok.l2");
        assert_eq!(stem("tok.loop.epil"), "tok.loop");
        assert_eq!(stem("l3.epil"), "l3");
        assert_eq!(stem("x.0"), "x");
        assert_eq!(stem(".1"), ".1");
        assert_eq!(stem("12"), "12");
    }
}
