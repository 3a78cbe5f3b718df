//! Launch symmetry (issue 18): an exact reduction of the enumeration of
//! per-thread inputs (P-INPUT), argued here and tested against the plain
//! enumeration (`run --no-reduce`) in `semantics/tests/interp_reduce.rs`.
//!
//! # The argument (R-BEHAV, M-OPER, P-LAUNCH)
//!
//! Let G be the permutations of thread ids that keep every thread in its
//! launch group and its subgroup ([`class_of`]; with `--subgroup-size`
//! smaller than a group, subgroup operations tell subgroups apart). For a launch with per-thread input vector `y` write B(y)
//! for its set of behaviours. When the program is *thread-blind* (see
//! [`blind`]), the semantics treats a thread id only as a name:
//!
//! - no instruction reads it as a value (no thread-id intrinsic, ballot,
//!   read-first-lane or shuffle, whose results depend on member ids or on
//!   their order);
//! - no memory is accessed (the machine runs threads one after the other
//!   between firings, so a load could see the stores of lower-numbered
//!   threads only; issues 12 and 13 replace that by a real memory model);
//! - the uninterpreted functions (C-OPS unknown convergent, P-INPUT pure
//!   calls) take the ids as arguments but every function is enumerated, and
//!   a renaming maps the set of all functions onto itself; reductions are
//!   commutative and associative; anchor instances (D-ANCHOR `all`) are
//!   named by a member's id, a name only; the scheduler fires every
//!   candidate set and every anchor subset (`interp_symmetry.rs` tests
//!   exactly this invariance).
//!
//! Then B(σ·y) = σ·B(y) for σ in G, where σ renames thread t to σ(t) in
//! the behaviour (traces, converged-with classes, communicating sets,
//! results, observations, ends). Every input vector y is σ·x for the
//! vector x whose per-thread tuples are sorted within each class, so the
//! unreduced set U = ∪_y B(y) = G·(∪_x B(x)) over sorted x only. The
//! search therefore launches only sorted input vectors ([`choose_sorted`]),
//! then closes the behaviours it found under G ([`orbit`]). The closure
//! needs the whole group, not only the permutations that move the
//! behaviour's own inputs: memoization ([`super::reduce`]) may record a
//! behaviour under one sorted launch although it also belongs to others.
//! A behaviour's orbit is enumerated modulo the swaps of threads whose
//! records are identical (same group, trace, keys, events, observations
//! and end): such a swap maps every class and set onto itself, so it fixes
//! the behaviour. Each image is printed with the renamed inputs of the
//! execution it came from, which is a real execution of those inputs.
//!
//! One more condition: an execution stopped by a contradiction in the
//! middle of a run (D-INST) records the other threads where they were when
//! it stopped, which depends on the order threads run in, not only on the
//! names. When such an execution appears, the driver discards the reduced
//! search and runs the launch again without launch symmetry.
//!
//! The same argument lets memoization count states equal up to renaming
//! threads as one (state symmetry, [`super::reduce`]), which reduces anchor
//! groupings of threads in equal states: the groupings that differ only by
//! which of the equal threads fire reach renamings of one state, explored
//! once.
//!
//! Not done (issue 18): launches where a thread id is read. The argument
//! for them, written down but not implemented (no code relies on it):
//!
//! - A renaming σ acts on a launch by moving thread t's inputs to σ(t);
//!   in a program that reads ids, thread σ(t) then reads id σ(t) where
//!   thread t read t, so B(σy) = σB(y) needs every use of an id to be
//!   *equivariant*: f(σ(t)) = σ(f(t)) for values the program treats as
//!   thread names, and p(σ(t)) = p(t) for predicates it tests. Comparing
//!   an id with a constant c keeps only the σ that preserve {t : t < c}
//!   (or fix c, for ==); arithmetic on ids (t xor 1, t + 1) keeps only the
//!   σ that commute with it; a ballot's mask or a read-first-lane's value
//!   turns names into data and keeps no σ but the identity. The
//!   admissible renamings form a subgroup G' of G, found by a value-flow
//!   analysis of the ids, and only G' may be used.
//! - Shuffles (cl14, cl15): the lane operand is an *input* (`%id` over
//!   the domain), not an id read. σ is equivariant when the lane values
//!   are renamed with the threads: (σ·y) gives thread σ(t) the lane
//!   σ(y_t) (out-of-range lanes stay out of range: poison or UB either
//!   way). The launch set is closed under this action only for σ that map
//!   the domain's lanes onto themselves (at 4 threads over {0, 1, 2},
//!   σ must fix lane 3), and the behaviours' event arguments for the lane
//!   operand must be renamed in the closure too. G' is then not a product
//!   of symmetric groups on blocks of threads, so sorted tuples are not
//!   orbit representatives: a launch would be canonical when it is the
//!   least of its images under G' (24 images at 4 threads, 40,320 at 8),
//!   and [`orbit`] would enumerate G' with the lane values renamed.
//!
//! Neither was implemented or tested against the plain search, so these
//! launches run without launch symmetry; the counts line says why
//! (`blind`'s reason, JSON `launch_symmetry`).

use std::collections::{BTreeMap, HashSet};

use crate::ir::{InstKind, Type};

use super::launch::{Behaviour, Execution};
use super::program::{classify, CalleeKind, Program};
use super::state::ThreadEnd;
use super::value::{int, Val};
use super::{ArgValues, Chooser, Options, Outcome};

/// A launch group and a subgroup key within it.
pub type Class = (u32, (u32, u32));

/// The class of thread `t`: its launch group and subgroup (P-LAUNCH).
/// The renamings of G keep every thread in its class: subgroup operations
/// communicate within a subgroup, so a renaming that moved a thread to
/// another subgroup would change the sets (classes are contiguous ranges of
/// thread ids).
pub fn class_of(opts: &Options, t: u32) -> Class {
    let geo = opts.geometry();
    (geo.group_of(t), geo.subgroup_key(t))
}

/// Why launch symmetry does not apply to `prog` under `opts`, or `None`
/// when the program is thread-blind (module documentation).
pub fn blind(prog: &Program, opts: &Options) -> Option<String> {
    if opts
        .args
        .values()
        .any(|a| matches!(a, ArgValues::PerThread(_)))
    {
        return Some("per-thread arguments are given".into());
    }
    if let Some(why) = memory(prog) {
        return Some(why);
    }
    for f in &prog.module.functions {
        for b in &f.blocks {
            for inst in &b.insts {
                let InstKind::Call(c) = &inst.kind else {
                    continue;
                };
                if c.callee_name().is_none() {
                    return Some(format!("@{} makes an indirect call", f.name));
                }
                if let CalleeKind::Builtin(op) = classify(prog.module, c) {
                    if op.reads_lane() {
                        return Some(format!(
                            "@{} reads thread ids ({})",
                            f.name,
                            c.callee_name().unwrap_or("?")
                        ));
                    }
                }
            }
        }
    }
    None
}

/// Whether some function of the module accesses memory (the machine runs
/// threads one after the other between firings, so their memory accesses
/// do not commute with each other): the reason, or `None`.
pub fn memory(prog: &Program) -> Option<String> {
    prog.module.functions.iter().find_map(|f| {
        f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|inst| {
                matches!(
                    inst.kind,
                    InstKind::Load { .. }
                        | InstKind::Store { .. }
                        | InstKind::AtomicRmw { .. }
                        | InstKind::CmpXchg { .. }
                )
            })
            .then(|| format!("@{} accesses memory", f.name))
    })
}

/// P-INPUT: the values an enumerated input of type `ty` ranges over, in
/// the order [`super::step::choose_value`] tries them (pointers are never
/// per-thread inputs).
pub fn domain(ty: &Type, opts: &Options) -> Vec<Val> {
    match ty {
        Type::Int(1) => vec![int(1, 0), int(1, 1)],
        Type::Int(bits) if opts.int_domain.is_empty() => vec![int(*bits, 0)],
        Type::Int(bits) => opts.int_domain.iter().map(|x| int(*bits, *x)).collect(),
        _ => vec![Val::Void],
    }
}

/// Per-thread input tuples over `domains` (one domain per enumerated
/// per-thread parameter), non-decreasing (in the mixed-radix order of the
/// tuples) within each launch group: every multiset of tuples per group
/// exactly once. Returns `tuples[t][k]`, parameter `k` of thread `t`.
pub fn choose_sorted(chooser: &mut Chooser, domains: &[Vec<Val>], opts: &Options) -> Vec<Vec<Val>> {
    let size: usize = domains.iter().map(|d| d.len().max(1)).product();
    let mut out = Vec::with_capacity(opts.threads as usize);
    let mut prev: Option<(Class, usize)> = None;
    for t in 0..opts.threads {
        let g = class_of(opts, t);
        let lo = match prev {
            Some((pg, i)) if pg == g => i,
            _ => 0,
        };
        let i = lo + chooser.choose(size - lo);
        prev = Some((g, i));
        let mut rest = i;
        let mut tuple = vec![Val::Void; domains.len()];
        for (k, d) in domains.iter().enumerate().rev() {
            let n = d.len().max(1);
            tuple[k] = d.get(rest % n).cloned().unwrap_or(Val::Void);
            rest /= n;
        }
        out.push(tuple);
    }
    out
}

/// The execution with thread `t` renamed `perm[t]`: thread order and ids,
/// the outcome's thread names, the inputs (keys of dynamic instances are
/// names and need no change).
pub fn renamed(e: &Execution, perm: &[usize]) -> Execution {
    let mut threads = e.threads.clone();
    for (t, th) in e.threads.iter().enumerate() {
        let mut th = th.clone();
        th.tid = perm[t] as u32;
        threads[perm[t]] = th;
    }
    let outcome = match &e.outcome {
        // The outcome names the lowest-numbered thread with UB.
        Outcome::Ub { .. } => threads
            .iter()
            .find_map(|th| match &th.end {
                Some(ThreadEnd::Ub { loc, why }) => Some(Outcome::Ub {
                    thread: th.tid,
                    loc: *loc,
                    why: why.clone(),
                }),
                _ => None,
            })
            .unwrap_or_else(|| e.outcome.clone()),
        Outcome::Cut { threads } => {
            let mut ts: Vec<u32> = threads.iter().map(|t| perm[*t as usize] as u32).collect();
            ts.sort_unstable();
            Outcome::Cut { threads: ts }
        }
        o => o.clone(),
    };
    let inputs = e
        .inputs
        .iter()
        .map(|(name, vals)| {
            let mut out = vals.clone();
            for (t, v) in vals.iter().enumerate() {
                out[perm[t]] = v.clone();
            }
            (name.clone(), out)
        })
        .collect();
    Execution {
        outcome,
        threads,
        inputs,
        hierarchy: e.hierarchy.clone(),
        // Thread-blind programs access no memory (`memory`), so the final
        // contents are those of every thread order.
        memory: e.memory.clone(),
    }
}

/// The renamings of `e` under every group-preserving permutation, modulo
/// the swaps of identical thread records (which fix the behaviour); the
/// identity first.
pub fn orbit(e: &Execution, opts: &Options) -> Vec<Execution> {
    // Class of each thread: identical records within a group.
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    let classes: Vec<usize> = e
        .threads
        .iter()
        .map(|th| {
            let sig = format!(
                "{}|{:?}|{:?}|{:?}|{:?}",
                th.group, th.trace, th.events, th.observations, th.end
            );
            let next = ids.len();
            *ids.entry(sig).or_insert(next)
        })
        .collect();
    let mut groups: BTreeMap<Class, Vec<usize>> = BTreeMap::new();
    for t in 0..e.threads.len() {
        groups.entry(class_of(opts, t as u32)).or_default().push(t);
    }
    let groups: Vec<Vec<usize>> = groups.into_values().collect();
    // Per group, every distinct arrangement of its threads' classes; an
    // arrangement `a` of a group's slots gives the permutation sending the
    // i-th thread of class c (in thread order) to the i-th slot holding c.
    let per_group: Vec<Vec<Vec<(usize, usize)>>> = groups
        .iter()
        .map(|ts| {
            let mut a: Vec<usize> = ts.iter().map(|t| classes[*t]).collect();
            let own = a.clone();
            a.sort_unstable();
            let mut out = Vec::new();
            loop {
                out.push(assignment(ts, &own, &a));
                if !next_permutation(&mut a) {
                    break;
                }
            }
            // The identity first, so the execution itself leads its orbit.
            if let Some(i) = out.iter().position(|m| m.iter().all(|(s, d)| s == d)) {
                out.swap(0, i);
            }
            out
        })
        .collect();
    let mut out = Vec::new();
    let mut idx = vec![0usize; per_group.len()];
    let mut perm: Vec<usize> = (0..e.threads.len()).collect();
    loop {
        for (g, i) in idx.iter().enumerate() {
            for (s, d) in &per_group[g][*i] {
                perm[*s] = *d;
            }
        }
        out.push(renamed(e, &perm));
        // Odometer over the groups' arrangements.
        let mut g = 0;
        loop {
            if g == idx.len() {
                return out;
            }
            idx[g] += 1;
            if idx[g] < per_group[g].len() {
                break;
            }
            idx[g] = 0;
            g += 1;
        }
    }
}

/// Source thread → destination slot for the arrangement `to` of the group
/// `ts` whose threads have classes `own`.
fn assignment(ts: &[usize], own: &[usize], to: &[usize]) -> Vec<(usize, usize)> {
    let mut used = vec![false; ts.len()];
    let mut out = Vec::with_capacity(ts.len());
    for (slot, c) in to.iter().enumerate() {
        let i = (0..ts.len())
            .find(|i| !used[*i] && own[*i] == *c)
            .expect("an arrangement is a permutation of the group's own classes");
        used[i] = true;
        out.push((ts[i], ts[slot]));
    }
    out
}

/// Lexicographic successor; `false` after the last arrangement.
fn next_permutation(a: &mut [usize]) -> bool {
    let Some(i) = (1..a.len()).rev().find(|i| a[i - 1] < a[*i]) else {
        return false;
    };
    let j = (i..a.len())
        .rev()
        .find(|j| a[*j] > a[i - 1])
        .expect("a[i] > a[i-1], so some j >= i qualifies");
    a.swap(i - 1, j);
    a[i..].reverse();
    true
}

/// Closes the behaviours found under G (module documentation): every
/// image of every behaviour, each distinct behaviour key once; the images
/// carry the count of the behaviour they rename. `go` is asked before each
/// orbit; when it answers `false` (time limit, Ctrl-C) the closure stops
/// with the images found so far and returns `false` with them (each is a
/// real behaviour; the result is then incomplete).
pub fn close(
    behaviours: Vec<Behaviour>,
    opts: &Options,
    go: &mut dyn FnMut() -> bool,
) -> (Vec<Behaviour>, bool) {
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for b in behaviours {
        if seen.insert(b.execution.behaviour_key()) {
            out.push(b);
        }
    }
    // Keys already produced by an orbit: a behaviour among them has the
    // same orbit, which need not be enumerated again.
    let mut in_orbit: HashSet<String> = HashSet::new();
    let mut images = Vec::new();
    let mut finished = true;
    for b in &out {
        if in_orbit.contains(&b.execution.behaviour_key()) {
            continue;
        }
        if !go() {
            finished = false;
            break;
        }
        for e in orbit(&b.execution, opts) {
            let key = e.behaviour_key();
            in_orbit.insert(key.clone());
            if seen.insert(key) {
                images.push(Behaviour {
                    execution: e,
                    count: b.count,
                });
            }
        }
    }
    out.extend(images);
    (out, finished)
}

#[cfg(test)]
mod tests {
    use super::next_permutation;

    #[test]
    fn multiset_permutations_are_distinct_and_complete() {
        let mut a = vec![0, 0, 1, 2];
        let mut n = 1;
        while next_permutation(&mut a) {
            n += 1;
        }
        assert_eq!(n, 12, "4!/2! arrangements");
    }
}
