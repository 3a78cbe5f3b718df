//! Launch symmetry (issue 18): an exact reduction of the enumeration of
//! per-thread inputs (P-INPUT), argued here and tested against the plain
//! enumeration (`run --no-reduce`) in `semantics/tests/interp_reduce.rs`.
//!
//! # The argument (R-BEHAV, M-OPER, P-LAUNCH)
//!
//! Let G be the permutations of thread ids that keep every thread in its
//! launch group and its subgroup ([`class_of`]; with `--subgroup-size`
//! smaller than a group, subgroup operations tell subgroups apart). For a
//! launch with per-thread input vector `y` write B(y) for its set of behaviours. When the program is *thread-blind*
//! ([`super::renaming::Threads::Blind`]), the semantics treats a thread id
//! only as a name:
//!
//! - no instruction reads it as a value (no thread-id intrinsic, ballot,
//!   read-first-lane or shuffle, whose results depend on member ids or on
//!   their order; reads of the group id, the sizes and the subgroup id are
//!   the same in threads of one group and subgroup);
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
//! then closes the behaviours it found under G ([`close`], [`arrangements`]). The closure
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
//! # Renaming lane values and opaque values (M-RENAME)
//!
//! The same argument, for a larger group. [`super::renaming::analyse`]
//! finds, by a value-flow analysis, the group G of renamings g = (π, ρ)
//! under which the semantics is equivariant, and falls back to a smaller
//! group (ultimately the identity) wherever it cannot show that:
//!
//! - π permutes threads. In a thread-blind program, as above. In a
//!   program that reads lane ids, or shuffles/broadcasts by a lane operand
//!   (one launch group forming one subgroup, no memory), π also renames
//!   every *lane value*: l becomes π(l) for l < N; values outside [0, N)
//!   are fixed (a shuffle reading them is out of range before and after).
//!   π must keep every set of lanes the program tells apart: each constant
//!   a lane value meets (`icmp eq %lane, 2`, a constant lane operand) is
//!   fixed, each relational comparison with a constant keeps its true side,
//!   and when lane values are drawn from the domain (an input `%id`, cl14
//!   and cl15), π maps the domain's lanes onto themselves (at 4 threads over
//!   {0, 1, 2}: π fixes lane 3). G's thread part is then a product of
//!   symmetric groups on the blocks of that partition.
//! - ρ_C permutes the free values (the domain minus the constants the
//!   class meets) of each *opaque* class C: values the program only copies
//!   (phi, select arms, calls and returns, a shuffle's value operand),
//!   compares for equality (`icmp eq/ne`, `switch`, uniform votes,
//!   match-any), passes to unknown functions and observes (cl14's `%data`,
//!   cl19's `%x`/`%y` and the results of `@pure.convergent.operation`).
//!
//! **Equivariance.** For g in G and an execution e of launch y, running
//! g·y with every choice renamed by g (the set chosen to fire renamed, a
//! value w drawn for an unknown function replaced by g(w)) gives an
//! execution g·e with behaviour g·B(e). By induction over the steps, the
//! state of g·e is the state of e renamed: a value of a renamed class is
//! produced only by an input, a draw, a lane-id read (thread π(t) reads
//! π(t)) or a copy of such values, and used only by copies, by equality
//! tests (g is injective on each class and fixes its constants and
//! poison, so every test, switch and phi takes the same edge), by
//! relational tests of lanes (π keeps their true sides), as a lane operand
//! (thread π(t) reads lane π(v), which is the renamed member holding the
//! renamed value; an out-of-range v stays out of range, and the UB it
//! causes names thread π(v)), or by unknown functions, which are
//! uninterpreted: every function is enumerated and F ↦ g∘F∘g⁻¹ maps the
//! set of them onto itself. Unrenamed values are computed from unrenamed
//! values only, so they are equal. Draws range over the domain, which g
//! maps onto itself. Threads run in id order between firings, so thread
//! renaming needs no memory and restarts on a mid-run contradiction, as
//! above. So B(g·y) = g·B(y).
//!
//! **Orbit representatives.** A launch is its uniform inputs and then
//! each thread's tuple of per-thread inputs; it is *canonical* when it is
//! the least of its images under G, lexicographically (with blind
//! thread renamings its image is first sorted within each class, the
//! canonical form under those; [`super::orbit::Launches`]). Every orbit has
//! exactly one least element, so U = ∪_y B(y) = G·(∪ B(y) over canonical
//! y). The search rejects a launch as soon as the choices made so far show
//! it is not canonical (an element that keeps the threads chosen so far
//! among themselves maps that prefix below itself), so no launch with that
//! prefix is enumerated.
//!
//! **Restricted growth of drawn values.** For an opaque class holding
//! results of unknown functions, drawn while running: let e be an
//! execution of a canonical launch y and A the class's free values y
//! holds. The renaming ρ that fixes A and maps the other free values, in
//! the order e first draws them, to the least values not in A, in order,
//! fixes y, so ρ·e is an execution of y whose draws are each a pinned
//! value, a value already used, or the least unused one. The search draws
//! only those ([`super::orbit::choose_result`]), keeping which free values
//! are used in the machine state (`Machine::used`, hashed by
//! memoization), and the closure (ρ is in G) adds the rest. Three draws
//! over {0, 1, 2} are then 5 sequences instead of 27.
//!
//! **Closure.** The search finds, up to memoization (exact on the
//! restricted tree, since the used values are part of the state) and state
//! symmetry, the behaviours of the restricted executions of the canonical
//! launches; [`super::orbit::close`] adds every image under G: lane
//! permutations times value permutations, blind thread renamings as
//! arrangements modulo identical records, value permutations modulo what
//! they do to values the behaviour does not show. The result is exactly
//! U, the plain search's behaviours. `semantics/tests/interp_reduce.rs`
//! compares the two on generated programs that read lane ids, shuffle by
//! an input lane and pass inputs to unknown functions.
//!
//! When the analysis finds a use it does not list, the class is not
//! renamed (`add %lane, 1`, a store, a branch on `%x == %y`'s negation is
//! fine but `%x < %y` is not); when an operation reads the order of lanes
//! (ballots, first-lane reads, scans, lane permutations), threads are not
//! renamed; G is kept to [`super::renaming::GROUP_CAP`] elements by
//! dropping the largest value classes. The counts line says which
//! renamings were used (JSON `launch_symmetry.group`).

use std::collections::BTreeMap;

use rustc_hash::FxHashSet;

use crate::ir::{InstKind, Type};

use super::launch::{Behaviour, DigestParts, Execution, ThreadRecord};
use super::program::Program;
use super::state::ThreadEnd;
use super::value::{int, Val};
use super::{Chooser, Options, Outcome};

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

/// [`class_of`] of each of `n` threads.
pub fn classes(opts: &Options, n: usize) -> Vec<Class> {
    (0..n).map(|t| class_of(opts, t as u32)).collect()
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
/// per-thread inputs; floats are the integer domain converted, P-FLOAT).
pub fn domain(ty: &Type, opts: &Options) -> Vec<Val> {
    match ty {
        Type::Int(1) => vec![int(1, 0), int(1, 1)],
        Type::Int(bits) if opts.int_domain.is_empty() => vec![int(*bits, 0)],
        Type::Int(bits) => opts.int_domain.iter().map(|x| int(*bits, *x)).collect(),
        t if crate::ir::float::FloatTy::of(t).is_some() => {
            let f = crate::ir::float::FloatTy::of(t).expect("guarded by the match arm");
            let xs: &[i128] = if opts.int_domain.is_empty() {
                &[0]
            } else {
                &opts.int_domain
            };
            xs.iter()
                .map(|x| super::float::val(f, f.from_int(*x < 0, x.unsigned_abs())))
                .collect()
        }
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
    let inv = inverse(perm);
    let threads: Vec<ThreadRecord> = inv
        .iter()
        .enumerate()
        .map(|(j, t)| ThreadRecord {
            tid: j as u32,
            ..e.threads[*t].clone()
        })
        .collect();
    let inputs = e
        .inputs
        .iter()
        .map(|(name, vals)| {
            let out = inv.iter().map(|t| vals[*t].clone()).collect();
            (name.clone(), out)
        })
        .collect();
    Execution {
        outcome: renamed_outcome(e, perm, &inv),
        threads,
        inputs,
        hierarchy: e.hierarchy.clone(),
        // Thread-blind programs access no memory (`memory`), so the final
        // contents are those of every thread order.
        memory: e.memory.clone(),
    }
}

/// `perm`'s inverse: position `j` of the image holds thread `inv[j]`.
fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (t, p) in perm.iter().enumerate() {
        inv[*p] = t;
    }
    inv
}

/// The outcome of [`renamed`]`(e, perm)`; `inv` is `perm`'s inverse.
fn renamed_outcome(e: &Execution, perm: &[usize], inv: &[usize]) -> Outcome {
    match &e.outcome {
        // The outcome names the lowest-numbered thread with UB.
        Outcome::Ub { .. } => inv
            .iter()
            .enumerate()
            .find_map(|(j, t)| match &e.threads[*t].end {
                Some(ThreadEnd::Ub { loc, why }) => Some(Outcome::Ub {
                    thread: j as u32,
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
    }
}

/// `renamed(e, perm).behaviour_digest()`, without building the renamed
/// execution (the closure builds only the images whose digest is new:
/// cl19-anchor-sink-all.src at 4 threads tries 1,559,502 images for
/// 175,176 new behaviours); `parts` are `e`'s
/// ([`DigestParts::new`]). The digest leaves out thread ids and inputs,
/// so the renamed execution is its records in the image's order.
pub fn renamed_digest(parts: &DigestParts, e: &Execution, perm: &[usize]) -> u128 {
    let inv = inverse(perm);
    parts.digest(&renamed_outcome(e, perm, &inv), Some((perm, &inv)))
}

/// The renamings of `e` under every group-preserving permutation of its
/// threads (thread `t` becomes `perm[t]`), modulo the swaps of identical
/// thread records (which fix the behaviour); the identity first, then
/// every other one once, generated one at a time. Lazy: an orbit of many
/// threads is astronomically large (50 threads with two kinds of records:
/// up to C(50, 25) images), so its consumer decides how many it takes
/// ([`close`]'s budgets).
pub fn arrangements(e: &Execution, opts: &Options) -> Arrangements {
    arrangements_within(e, &classes(opts, e.threads.len()))
}

/// [`arrangements`] under the permutations that keep every thread `t` in
/// `classes[t]` ([`orbit_within`]).
pub fn arrangements_within(e: &Execution, classes_of: &[Class]) -> Arrangements {
    // Class of each thread: identical records within a group (numbered
    // in order of first appearance).
    let same = |a: &ThreadRecord, b: &ThreadRecord| {
        a.group == b.group && (std::sync::Arc::ptr_eq(&a.body, &b.body) || a.body == b.body)
    };
    // The first thread of each class.
    let mut firsts: Vec<usize> = Vec::new();
    let classes: Vec<usize> = e
        .threads
        .iter()
        .enumerate()
        .map(|(t, th)| {
            firsts
                .iter()
                .position(|f| same(&e.threads[*f], th))
                .unwrap_or_else(|| {
                    firsts.push(t);
                    firsts.len() - 1
                })
        })
        .collect();
    let mut groups: BTreeMap<Class, Vec<usize>> = BTreeMap::new();
    assert_eq!(classes_of.len(), e.threads.len(), "one class per thread");
    for (t, c) in classes_of.iter().enumerate() {
        groups.entry(*c).or_default().push(t);
    }
    let groups: Vec<Vec<usize>> = groups.into_values().collect();
    let own: Vec<Vec<usize>> = groups
        .iter()
        .map(|ts| ts.iter().map(|t| classes[*t]).collect())
        .collect();
    Arrangements::new(e.threads.len(), groups.clone(), own, groups)
}

/// The iterator of [`arrangements`] (and of [`orbit`]'s labellings): per
/// group, the distinct arrangements of its threads' classes in
/// lexicographic order, combined as an odometer (the first group turning
/// fastest), the group's own arrangement first. An arrangement `a` of a
/// group's slots gives the permutation sending the i-th thread of class c
/// (in thread order) to the i-th slot holding c.
pub struct Arrangements {
    n: usize,
    groups: Vec<Vec<usize>>,
    /// Each group's classes in thread order (its own arrangement).
    own: Vec<Vec<usize>>,
    /// Each group's slots (thread ids) in order.
    dest: Vec<Vec<usize>>,
    /// Each group's current arrangement.
    cur: Vec<Vec<usize>>,
    /// Whether the own arrangements were given.
    started: bool,
    /// Whether `cur` is still to be given.
    pending: bool,
}

impl Arrangements {
    /// The arrangements of the threads `groups[g]`, of classes `own[g]`,
    /// over the slots `dest[g]` (`dest == groups`: renamings of the threads
    /// among themselves, the own arrangement the identity), for `n`
    /// threads in all.
    fn new(
        n: usize,
        groups: Vec<Vec<usize>>,
        own: Vec<Vec<usize>>,
        dest: Vec<Vec<usize>>,
    ) -> Arrangements {
        let cur = own
            .iter()
            .map(|o| {
                let mut a = o.clone();
                a.sort_unstable();
                a
            })
            .collect();
        Arrangements {
            n,
            groups,
            own,
            dest,
            cur,
            started: false,
            pending: true,
        }
    }

    /// The permutation of the arrangements `arr`, one per group.
    fn perm(&self, arr: &[Vec<usize>]) -> Vec<usize> {
        let mut perm: Vec<usize> = (0..self.n).collect();
        for (g, ts) in self.groups.iter().enumerate() {
            for (s, d) in assignment(ts, &self.own[g], &arr[g], &self.dest[g]) {
                perm[s] = d;
            }
        }
        perm
    }
}

impl Iterator for Arrangements {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        if !self.started {
            self.started = true;
            return Some(self.perm(&self.own));
        }
        loop {
            if self.pending {
                self.pending = false;
                // The own arrangements were given first.
                if self.cur != self.own {
                    return Some(self.perm(&self.cur));
                }
            }
            // Odometer over the groups' arrangements.
            let mut g = 0;
            loop {
                if g == self.cur.len() {
                    return None;
                }
                if next_permutation(&mut self.cur[g]) {
                    break;
                }
                self.cur[g].sort_unstable();
                g += 1;
            }
            self.pending = true;
        }
    }
}

/// Source thread → destination for the arrangement `to` of the threads
/// `ts` whose classes are `own` over the slots `dest`: the i-th thread of
/// class c (in thread order) goes to the i-th slot holding c.
fn assignment(ts: &[usize], own: &[usize], to: &[usize], dest: &[usize]) -> Vec<(usize, usize)> {
    let mut used = vec![false; ts.len()];
    let mut out = Vec::with_capacity(ts.len());
    for (slot, c) in to.iter().enumerate() {
        let i = (0..ts.len())
            .find(|i| !used[*i] && own[*i] == *c)
            .expect("an arrangement is a permutation of the group's own classes");
        used[i] = true;
        out.push((ts[i], dest[slot]));
    }
    out
}

/// The number of distinct arrangements of a multiset with these
/// multiplicities (n! / (k1! k2! ...)), or `None` past `u128`.
fn multinomial(counts: impl IntoIterator<Item = usize>) -> Option<u128> {
    // Built up one class at a time: C(n + k, k) for each class of k.
    let mut n: u128 = 0;
    let mut out: u128 = 1;
    for k in counts {
        for i in 1..=k as u128 {
            n += 1;
            // out * n / i stays an integer at every step (a binomial).
            out = out.checked_mul(n)? / i;
        }
    }
    Some(out)
}

/// The orbit of behaviour `e` under G (blind thread renamings within each
/// launch group and subgroup, [`class_of`]), without listing it: a
/// canonical digest, the same for every behaviour of the orbit, and the
/// orbit's size. `None` when more than `budget` labellings would have to be
/// tried, or the size passes `u128`.
///
/// Issue 18: the closure uses it past its listing limit ([`close`]), where
/// it only counts; enumerating an orbit's images to count them costs up to
/// |G| digests (8! at 8 threads of distinct records), this costs the
/// labellings below, usually a handful.
///
/// **Argument.** A labelling λ is a renaming in G; its image λ·e has
/// digest [`renamed_digest`]. Colour each thread by what no renaming
/// changes ([`DigestParts::color`]). Within each class, order the colours
/// and give the colour cells, in that order, consecutive slots of the
/// class's thread ids: the labellings considered are those sending each
/// cell onto its slots (the set H·λ₀ for H, the colour-preserving
/// renamings). For σ in G, σ·e has the same cells renamed by σ, so the
/// labellings of σ·e are those of e composed with σ⁻¹, and give the same
/// images: the least image digest is the same over the orbit (the
/// canonical digest). The labellings whose image is the least form one
/// coset λ·Aut(e), where Aut(e) (the renamings fixing e) preserves colours.
/// Two threads whose swap fixes e are *exchangeable*; that relation is an
/// equivalence ((t v) = (t u)(u v)(t u)) whose classes E give a subgroup
/// S_E of Aut(e), and images depend only on λ up to S_E: so only the
/// labellings increasing within each E class are tried (one per coset
/// λ·S_E), L = Π over cells of multinomial(cell; its E classes) of them,
/// of which |Aut(e)| / |S_E| give the least image. Then
/// |G·e| = |G| / |Aut(e)| = Π over classes of multinomial(class; cells)
/// × L / (the labellings giving the least image).
pub fn orbit(e: &Execution, opts: &Options, budget: u128) -> Option<(u128, u128)> {
    orbit_within(e, &classes(opts, e.threads.len()), budget)
}

/// [`orbit`] under the renamings that keep every thread `t` in
/// `classes[t]` and may permute the threads of a class arbitrarily (the
/// blind renamings when the classes are [`class_of`]'s; M-RENAME's lane
/// renamings on a behaviour that shows no lane value, with the blocks as
/// classes, `orbit::close`). The argument of [`orbit`] holds for any such
/// product of symmetric groups.
pub fn orbit_within(e: &Execution, classes_of: &[Class], budget: u128) -> Option<(u128, u128)> {
    let n = e.threads.len();
    let parts = DigestParts::new(e);
    let ident: Vec<usize> = (0..n).collect();
    let own = renamed_digest(&parts, e, &ident);
    // Cells: per class (in thread order), threads by colour.
    let mut cells: BTreeMap<(Class, u128), Vec<usize>> = BTreeMap::new();
    let mut classes: BTreeMap<Class, Vec<usize>> = BTreeMap::new();
    assert_eq!(classes_of.len(), n, "one class per thread");
    for (t, c) in classes_of.iter().copied().enumerate() {
        cells.entry((c, parts.color(t))).or_default().push(t);
        classes.entry(c).or_default().push(t);
    }
    let mut size: u128 = 1;
    for class in classes.keys() {
        let per_cell = cells
            .range((*class, 0)..=(*class, u128::MAX))
            .map(|(_, v)| v.len());
        size = size.checked_mul(multinomial(per_cell)?)?;
    }
    // Per cell: its threads, their exchangeable classes, its slots.
    let (mut groups, mut exchangeable, mut dest) = (Vec::new(), Vec::new(), Vec::new());
    let mut next_slot: BTreeMap<Class, usize> = BTreeMap::new();
    let mut labellings: u128 = 1;
    for ((class, _), ts) in &cells {
        let at = next_slot.entry(*class).or_insert(0);
        let slots = classes[class][*at..*at + ts.len()].to_vec();
        *at += ts.len();
        let mut reps: Vec<usize> = Vec::new();
        let labels: Vec<usize> = ts
            .iter()
            .map(|t| {
                let swapped = |r: usize| {
                    let mut p = ident.clone();
                    p.swap(*t, r);
                    renamed_digest(&parts, e, &p) == own
                };
                reps.iter().position(|r| swapped(*r)).unwrap_or_else(|| {
                    reps.push(*t);
                    reps.len() - 1
                })
            })
            .collect();
        let mut counts = vec![0; reps.len()];
        for c in &labels {
            counts[*c] += 1;
        }
        labellings = labellings.checked_mul(multinomial(counts)?)?;
        groups.push(ts.clone());
        exchangeable.push(labels);
        dest.push(slots);
    }
    if labellings > budget {
        return None;
    }
    // The least image digest and how many labellings give it.
    let mut least: Option<(u128, u128)> = None;
    for perm in Arrangements::new(n, groups, exchangeable, dest) {
        let d = renamed_digest(&parts, e, &perm);
        least = match least {
            Some((m, k)) if m == d => Some((m, k + 1)),
            Some((m, k)) if m < d => Some((m, k)),
            _ => Some((d, 1)),
        };
    }
    let (canon, hits) = least.expect("every cell has one arrangement at least");
    Some((canon, size.checked_mul(labellings / hits)?))
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

/// At most this many behaviours are listed after the closure under
/// renaming, times the thread count (thread records, so that memory stays
/// linear in threads times behaviours, about 300 bytes a record):
/// 1,000,000 (250,000 behaviours at 4 threads, 20,000 at 50). Past it the
/// closure lists no more behaviours but goes on counting them
/// ([`Closure::Counted`]): each further orbit of blind thread renamings by
/// its size ([`orbit`]), others by the digests of their images, up to
/// [`CLOSURE_DIGESTS`]; the listing is then incomplete, saying so. Issue 18
/// item 4.
pub const CLOSURE_RECORDS: usize = 1_000_000;

/// The closure counts at most this many thread records by digest
/// (distinct behaviours, listed and counted, times the thread count: 5,000,000
/// behaviours at 8 threads, 800,000 at 50) before it stops
/// ([`Closure::Capped`]): a digest set of 16 bytes per behaviour plus the
/// table's overhead (under 200 MiB), and time linear in thread records.
pub const CLOSURE_DIGESTS: usize = 40_000_000;

/// What [`close_under`] answers an emitted image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Emitted {
    /// No orbit enumerated so far produced it.
    Fresh,
    /// An orbit enumerated before produced it (this one or an earlier
    /// one): its images under thread renaming were all emitted then, so
    /// an emitter may skip them ([`emit_renamings`]).
    Known,
    /// Stop emitting (time limit, Ctrl-C, the count's limit).
    Stop,
}

/// How a closure under renaming ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closure {
    /// Every image of every behaviour was added.
    Complete,
    /// `go` answered `false` (time limit, Ctrl-C).
    Stopped,
    /// The listed behaviours reached this many ([`CLOSURE_RECORDS`]), and
    /// then every image was counted: this many distinct behaviours in all,
    /// the listed ones and renamings of them (the listing is incomplete,
    /// the count exact).
    Counted { listed: usize, total: usize },
    /// The listed behaviours reached this many ([`CLOSURE_RECORDS`]) and
    /// the counted ones [`CLOSURE_DIGESTS`].
    Capped(usize),
}

/// Closes the behaviours found under G (module documentation): every
/// image of every behaviour, each distinct behaviour key once; the images
/// carry the count of the behaviour they rename. `go` is asked before each
/// orbit and every 1,024 images; when it answers `false` (time limit,
/// Ctrl-C) the closure stops with the images found so far; it also stops
/// when the behaviours reach `cap` (each is a real behaviour; the result
/// is then incomplete). `digests`: the behaviours' digests as the search
/// computed them, one each (any other length: computed here).
pub fn close(
    behaviours: Vec<Behaviour>,
    digests: Vec<u128>,
    opts: &Options,
    cap: usize,
    go: &mut dyn FnMut() -> bool,
) -> (Vec<Behaviour>, Closure) {
    let classes = classes(opts, opts.threads as usize);
    let mut count = |e: &Execution| orbit_within(e, &classes, ORBIT_LABELLINGS);
    close_under(behaviours, digests, go, cap, Some(&mut count), |e, emit| {
        emit_renamings(e, arrangements_within(e, &classes), emit);
    })
}

/// Past the listing limit, [`close`] counts an orbit by [`orbit`] when at
/// most this many labellings decide it (every orbit at 8 threads: at most
/// 8! = 40,320), and by enumerating its images otherwise.
pub const ORBIT_LABELLINGS: u128 = 1_000_000;

/// Emits `e` renamed by each of `perms` (thread `t` becomes `perm[t]`;
/// the identity first, as [`arrangements`] lists them) to a
/// [`close_under`] `emit`, each as its digest and a function that builds
/// it. When the identity image, `e` itself, is [`Emitted::Known`], an
/// orbit enumerated before produced it and with it every thread renaming
/// of it (the arrangements list every distinct one, and those of two
/// images related by a thread renaming are the same set), so the rest are
/// skipped. `false` when `emit` answered [`Emitted::Stop`].
pub(super) fn emit_renamings(
    e: &Execution,
    perms: impl Iterator<Item = Vec<usize>>,
    emit: &mut dyn FnMut(u128, &mut dyn FnMut() -> Execution) -> Emitted,
) -> bool {
    emit_renamings_by(e, perms, emit, |perm| renamed(e, perm))
}

/// [`emit_renamings`], an image built by `build` (called only for a new
/// digest), which must give the execution [`renamed_digest`] digests:
/// `e` with its threads renamed by `perm`, and possibly values the digest
/// does not read changed with them (M-RENAME's `orbit::close` renames
/// the launch inputs and call arguments the listing prints).
pub(super) fn emit_renamings_by(
    e: &Execution,
    perms: impl Iterator<Item = Vec<usize>>,
    emit: &mut dyn FnMut(u128, &mut dyn FnMut() -> Execution) -> Emitted,
    build: impl Fn(&[usize]) -> Execution,
) -> bool {
    let parts = DigestParts::new(e);
    for (i, perm) in perms.enumerate() {
        let digest = renamed_digest(&parts, e, &perm);
        let mut image = || {
            let y = build(&perm);
            if super::reduce::checking_digests() {
                assert_eq!(y.behaviour_digest(), digest, "an image's digest");
            }
            y
        };
        match emit(digest, &mut image) {
            Emitted::Stop => return false,
            Emitted::Known if i == 0 => return true,
            _ => {}
        }
    }
    true
}

/// An orbit's canonical digest and size, or `None` ([`orbit`]).
pub(super) type OrbitCount<'a> = &'a mut dyn FnMut(&Execution) -> Option<(u128, u128)>;

/// The closure loop of [`close`] and of M-RENAME's [`super::orbit::close`]:
/// the distinct behaviours (by behaviour key), then, for each whose key no
/// earlier orbit produced, every image `images_of` emits, each new key
/// once, carrying the count of the behaviour it renames, until `go`
/// answers `false` or the behaviours reach `cap`, from where new images
/// are counted by digest without being built, up to [`CLOSURE_DIGESTS`]
/// thread records in all. `images_of` emits each
/// image as its behaviour digest and a function that builds it (called
/// only for a new digest), and stops emitting when `emit` returns
/// [`Emitted::Stop`]. `known`: the behaviours' digests, one each, or
/// empty to compute them here. `count`, when given, answers an orbit's
/// canonical digest and size ([`orbit`]) or `None`: past the listing limit
/// an orbit it answers is counted by that, without enumerating its images
/// (orbits are disjoint, and an orbit whose images were enumerated holds
/// every behaviour of it in `in_orbit`, so a behaviour outside it is in an
/// orbit counted by canonical digest or not yet counted).
pub(super) fn close_under(
    behaviours: Vec<Behaviour>,
    known: Vec<u128>,
    go: &mut dyn FnMut() -> bool,
    cap: usize,
    mut count: Option<OrbitCount<'_>>,
    mut images_of: impl FnMut(
        &Execution,
        &mut dyn FnMut(u128, &mut dyn FnMut() -> Execution) -> Emitted,
    ),
) -> (Vec<Behaviour>, Closure) {
    let mut seen: FxHashSet<u128> = FxHashSet::default();
    let mut out = Vec::new();
    let mut digests = Vec::new();
    let count_cap = CLOSURE_DIGESTS
        / behaviours
            .first()
            .map_or(1, |b| b.execution.threads.len().max(1));
    // The search's digests when it kept them, one per behaviour.
    let known = if known.len() == behaviours.len() {
        if super::reduce::checking_digests() {
            for (b, k) in behaviours.iter().zip(&known) {
                assert_eq!(
                    b.execution.behaviour_digest(),
                    *k,
                    "the search's digest is the behaviour's"
                );
            }
        }
        known
    } else {
        behaviours
            .iter()
            .map(|b| b.execution.behaviour_digest())
            .collect()
    };
    for (b, key) in behaviours.into_iter().zip(known) {
        if seen.insert(key) {
            out.push(b);
            digests.push(key);
        }
    }
    // Keys already produced by an orbit: a behaviour among them has the
    // same orbit, which need not be enumerated again.
    let mut in_orbit: FxHashSet<u128> = FxHashSet::default();
    let mut images = Vec::new();
    let mut end = Closure::Complete;
    let mut tried: u64 = 0;
    // Orbits counted by canonical digest, and their behaviours.
    let mut canonical: FxHashSet<u128> = FxHashSet::default();
    let mut counted: u128 = 0;
    for (b, key) in out.iter().zip(&digests) {
        if in_orbit.contains(key) {
            continue;
        }
        if !go() {
            end = Closure::Stopped;
            break;
        }
        let found = out.len();
        if found + images.len() >= cap {
            if let Some((canon, size)) = count.as_mut().and_then(|count| count(&b.execution)) {
                if canonical.insert(canon) {
                    counted += size;
                }
                continue;
            }
        }
        images_of(&b.execution, &mut |key, build| {
            tried += 1;
            if tried.is_multiple_of(1024) && !go() {
                end = Closure::Stopped;
                return Emitted::Stop;
            }
            let known = !in_orbit.insert(key);
            if seen.insert(key) {
                if found + images.len() < cap {
                    images.push(Behaviour {
                        execution: build(),
                        count: b.count,
                    });
                } else if seen.len() >= count_cap {
                    end = Closure::Capped(found + images.len());
                    return Emitted::Stop;
                }
            }
            if known {
                Emitted::Known
            } else {
                Emitted::Fresh
            }
        });
        if end != Closure::Complete {
            break;
        }
    }
    // Every behaviour is in an orbit enumerated into `in_orbit` or counted.
    let listed = out.len() + images.len();
    if end == Closure::Complete {
        match usize::try_from(in_orbit.len() as u128 + counted) {
            Ok(total) if total > listed => end = Closure::Counted { listed, total },
            Ok(_) => {}
            Err(_) => end = Closure::Capped(listed),
        }
    }
    out.extend(images);
    (out, end)
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
