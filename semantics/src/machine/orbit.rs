//! Orbit representatives under the renaming group G of
//! [`super::renaming`] (M-RENAME; the argument is in [`super::symmetry`]):
//! the elements of G, the canonical launches (each the least of its
//! images), the restricted-growth choice of renamed results of unknown
//! functions, and the closure of the behaviours found under G.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::chooser::Chooser;
use super::launch::{Behaviour, Execution};
use super::renaming::{Kind, Renaming, Threads};
use super::state::{Machine, Observation, ThreadEnd};
use super::value::{UbKind, Val};
use super::Options;

/// One element of G as the enumeration lists it: a permutation of the
/// threads (the identity unless threads are renamed with their lanes) and
/// a permutation of the free values of each opaque class.
#[derive(Clone, Debug)]
pub struct Elem {
    /// Thread (and lane) `t` becomes `perm[t]`.
    pub perm: Vec<u32>,
    /// Per class: for an opaque class, `free[i]` becomes `free[vals[c][i]]`
    /// (empty for lane classes).
    pub vals: Vec<Vec<usize>>,
}

impl Elem {
    fn identity(r: &Renaming) -> Elem {
        Elem {
            perm: (0..r.n).collect(),
            vals: r
                .classes
                .iter()
                .map(|c| (0..c.free.len()).collect())
                .collect(),
        }
    }

    fn is_identity(&self) -> bool {
        self.perm.iter().enumerate().all(|(i, p)| i as u32 == *p)
            && self
                .vals
                .iter()
                .all(|m| m.iter().enumerate().all(|(i, j)| i == *j))
    }

    /// The value `v` of class `class` renamed.
    pub fn apply(&self, r: &Renaming, class: Option<usize>, v: &Val) -> Val {
        let (Some(c), &Val::Int { bits, v: x }) = (class, v) else {
            return v.clone();
        };
        let cl = &r.classes[c];
        let y = match cl.kind {
            Kind::Lane if x < u128::from(r.n) => u128::from(self.perm[x as usize]),
            Kind::Lane => x,
            Kind::Opaque => match cl.free.iter().position(|f| *f == x) {
                Some(i) => cl.free[self.vals[c][i]],
                None => x,
            },
        };
        Val::Int { bits, v: y }
    }
}

/// Every permutation of `items` (Heap's algorithm), the identity first.
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    let mut a = items.to_vec();
    let mut out = vec![a.clone()];
    let n = a.len();
    let mut c = vec![0usize; n];
    let mut i = 0;
    while i < n {
        if c[i] < i {
            if i % 2 == 0 {
                a.swap(0, i);
            } else {
                a.swap(c[i], i);
            }
            out.push(a.clone());
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    out
}

/// The elements of G the enumeration lists (lane permutations times value
/// permutations; blind thread renamings are covered by sorting), the
/// identity first. `analyse` keeps their number under
/// [`super::renaming::GROUP_CAP`].
pub fn elements(r: &Renaming) -> Vec<Elem> {
    let mut out = vec![Elem::identity(r)];
    if let Threads::Lanes { blocks } = &r.threads {
        for b in blocks {
            let idx: Vec<usize> = b.iter().map(|x| *x as usize).collect();
            let perms = permutations(&idx);
            let idx = &idx;
            out = out
                .iter()
                .flat_map(|e| {
                    perms.iter().map(move |p| {
                        let mut e = e.clone();
                        for (from, to) in idx.iter().zip(p) {
                            e.perm[*from] = *to as u32;
                        }
                        e
                    })
                })
                .collect();
        }
    }
    for (c, cl) in r.classes.iter().enumerate() {
        if cl.kind != Kind::Opaque {
            continue;
        }
        let perms = permutations(&(0..cl.free.len()).collect::<Vec<_>>());
        let perms = &perms;
        out = out
            .iter()
            .flat_map(|e| {
                perms.iter().map(move |p| {
                    let mut e = e.clone();
                    e.vals[c] = p.clone();
                    e
                })
            })
            .collect();
    }
    out
}

/// One enumerated kernel parameter of a launch.
#[derive(Clone, Debug)]
pub struct Coord {
    /// Index into the kernel's parameters.
    pub param: usize,
    /// The same value in every thread (P-LAUNCH).
    pub uniform: bool,
    /// The values it ranges over ([`super::symmetry::domain`]).
    pub domain: Vec<Val>,
}

/// One element of G as [`Launches`] applies it: its thread permutation,
/// the map of each uniform coordinate's domain indices, the map of tuples,
/// and for each prefix length k whether the permutation maps threads
/// `0..=k` onto themselves.
type ElemTables = (Vec<u32>, Vec<Vec<u16>>, Vec<u32>, Vec<bool>);

/// Canonical launches under G: a launch is its uniform coordinates, then
/// each thread's tuple of per-thread coordinates (mixed radix, the first
/// coordinate most significant), compared lexicographically; it is
/// enumerated iff no image under G is smaller.
pub struct Launches {
    coords: Vec<Coord>,
    uniform: Vec<usize>,
    per_thread: Vec<usize>,
    /// Tuples per thread.
    size: usize,
    /// Per element: its thread permutation, the map of each uniform
    /// coordinate's domain indices, the map of tuples, and for each prefix
    /// length k whether the permutation maps threads `0..k` onto
    /// themselves.
    elems: Vec<ElemTables>,
    /// Blind thread renaming: per thread, its class (sorted launches).
    sorted: Option<Vec<super::symmetry::Class>>,
    /// Lane renaming: the blocks (as position ranges `s..e`) whose lanes
    /// no enumerated coordinate holds as a value. Permuting such a block
    /// moves tuples between its positions and changes none, so `elems`
    /// leaves those permutations out and each image sorts the block's
    /// tuples instead: the least image over the block's permutations
    /// (a launch is canonical only with each such block's tuples in
    /// increasing order). With `--threads 8` and lanes 0-2 read, this
    /// turns 4,320 listed elements into 36.
    runs: Vec<(usize, usize)>,
}

impl Launches {
    pub fn new(r: &Renaming, opts: &Options, coords: Vec<Coord>) -> Launches {
        let uniform: Vec<usize> = (0..coords.len()).filter(|k| coords[*k].uniform).collect();
        let per_thread: Vec<usize> = (0..coords.len()).filter(|k| !coords[*k].uniform).collect();
        let size: usize = per_thread
            .iter()
            .map(|k| coords[*k].domain.len().max(1))
            .product();
        let map = |g: &Elem, k: usize| -> Vec<u16> {
            let d = &coords[k].domain;
            let class = r.params.get(coords[k].param).copied().flatten();
            d.iter()
                .map(|v| {
                    let w = g.apply(r, class, v);
                    d.iter()
                        .position(|x| *x == w)
                        .expect("M-RENAME: renamings map each domain onto itself")
                        as u16
                })
                .collect()
        };
        let n = r.n as usize;
        // A block is position-only when its cycle (each lane to the next)
        // maps every domain value of every coordinate to itself: then so
        // does every permutation of the block.
        let runs: Vec<(usize, usize)> = match &r.threads {
            Threads::Lanes { blocks } => blocks
                .iter()
                .filter(|b| b.len() >= 2 && b.windows(2).all(|w| w[1] == w[0] + 1))
                .filter(|b| {
                    let mut g = Elem::identity(r);
                    for (i, l) in b.iter().enumerate() {
                        g.perm[*l as usize] = b[(i + 1) % b.len()];
                    }
                    (0..coords.len())
                        .all(|k| map(&g, k).iter().enumerate().all(|(i, j)| i == *j as usize))
                })
                .map(|b| (b[0] as usize, *b.last().expect("non-empty") as usize + 1))
                .collect(),
            _ => Vec::new(),
        };
        let moves_run = |g: &Elem| {
            runs.iter()
                .any(|(s, e)| (*s..*e).any(|i| g.perm[i] as usize != i))
        };
        let elems = elements(r)
            .into_iter()
            .filter(|g| !g.is_identity() && !moves_run(g))
            .map(|g| {
                let umaps: Vec<Vec<u16>> = uniform.iter().map(|k| map(&g, *k)).collect();
                let pmaps: Vec<Vec<u16>> = per_thread.iter().map(|k| map(&g, *k)).collect();
                let tuples: Vec<u32> = (0..size)
                    .map(|t| {
                        let digits = decode(t, &per_thread, &coords);
                        let mapped: Vec<usize> = digits
                            .iter()
                            .zip(&pmaps)
                            .map(|(d, m)| m[*d] as usize)
                            .collect();
                        encode(&mapped, &per_thread, &coords) as u32
                    })
                    .collect();
                let closed: Vec<bool> = (0..n)
                    .map(|k| g.perm[..=k].iter().all(|p| (*p as usize) <= k))
                    .collect();
                (g.perm, umaps, tuples, closed)
            })
            .collect();
        let sorted = (r.threads == Threads::Blind).then(|| {
            (0..opts.threads)
                .map(|t| super::symmetry::class_of(opts, t))
                .collect()
        });
        Launches {
            coords,
            uniform,
            per_thread,
            size,
            elems,
            sorted,
            runs,
        }
    }

    /// Sorts the part within `img` of each position-only block (`runs`).
    fn sort_runs(&self, img: &mut [u32]) {
        let n = img.len();
        for (s, e) in &self.runs {
            if *s < n {
                img[*s..(*e).min(n)].sort_unstable();
            }
        }
    }

    /// The enumerated parameters, in the order [`Launches::choose`]
    /// returns their values.
    pub fn coords(&self) -> &[Coord] {
        &self.coords
    }

    /// Chooses a canonical launch: `None` when the choices made so far are
    /// no launch's canonical prefix (the chooser then advances past them,
    /// so no launch with that prefix is enumerated). Returns the value of
    /// every coordinate in every thread, `vals[coord][thread]`.
    pub fn choose(&self, chooser: &mut Chooser, threads: usize) -> Option<Vec<Vec<Val>>> {
        let u: Vec<u16> = self
            .uniform
            .iter()
            .map(|k| chooser.choose(self.coords[*k].domain.len().max(1)) as u16)
            .collect();
        // Per element: how its image of the uniform coordinates compares
        // with them (an element that makes them smaller rejects the launch;
        // one that makes them greater never maps it below itself).
        let mut live: Vec<bool> = Vec::with_capacity(self.elems.len());
        for (_, umaps, _, _) in &self.elems {
            match cmp_mapped(&u, umaps) {
                std::cmp::Ordering::Less => return None,
                o => live.push(o == std::cmp::Ordering::Equal),
            }
        }
        let mut t: Vec<u32> = Vec::with_capacity(threads);
        let mut img: Vec<u32> = vec![0; threads];
        for k in 0..threads {
            let lo = match &self.sorted {
                Some(cls) if k > 0 && cls[k] == cls[k - 1] => t[k - 1] as usize,
                _ if self.runs.iter().any(|(s, e)| *s < k && k < *e) => t[k - 1] as usize,
                _ => 0,
            };
            t.push((lo + chooser.choose(self.size - lo)) as u32);
            let ok = match &self.sorted {
                None => self.prefix_canonical(&live, &t, &mut img),
                // Sorted launches: the least tuple of the first class's
                // image is at most the image of this thread's tuple, so
                // an element that maps it below the first tuple maps the
                // launch below itself.
                Some(cls) => {
                    cls[k] != cls[0]
                        || self
                            .elems
                            .iter()
                            .zip(&live)
                            .all(|((_, _, tuples, _), l)| !l || tuples[t[k] as usize] >= t[0])
                }
            };
            if !ok {
                return None;
            }
        }
        if !self.canonical(&live, &t, &mut img) {
            return None;
        }
        let mut out: Vec<Vec<Val>> = vec![Vec::new(); self.coords.len()];
        for (i, k) in self.uniform.iter().enumerate() {
            out[*k] = vec![self.coords[*k].domain[u[i] as usize].clone(); threads];
        }
        for tup in &t {
            let digits = decode(*tup as usize, &self.per_thread, &self.coords);
            for (d, k) in digits.iter().zip(&self.per_thread) {
                out[*k].push(self.coords[*k].domain[*d].clone());
            }
        }
        Some(out)
    }

    /// No element that keeps threads `0..t.len()` among themselves (and
    /// the uniform coordinates, `live`) maps the prefix below itself.
    ///
    /// The prefix's image sorts the part of each position-only block within
    /// it. When the prefix ends inside a block, the whole image sorts more
    /// tuples there, and the i-th least of more tuples is at most the i-th
    /// least of fewer: the whole image is at most the prefix's image at
    /// every position, so it is below the launch whenever the prefix's is.
    fn prefix_canonical(&self, live: &[bool], t: &[u32], img: &mut [u32]) -> bool {
        let k = t.len() - 1;
        for ((perm, _, tuples, closed), l) in self.elems.iter().zip(live) {
            if !l || !closed[k] {
                continue;
            }
            for (i, x) in t.iter().enumerate() {
                img[perm[i] as usize] = tuples[*x as usize];
            }
            self.sort_runs(&mut img[..=k]);
            if img[..=k] < *t {
                return false;
            }
        }
        true
    }

    /// The launch is the least of its images.
    fn canonical(&self, live: &[bool], t: &[u32], img: &mut [u32]) -> bool {
        for ((perm, _, tuples, _), l) in self.elems.iter().zip(live) {
            if !l {
                continue;
            }
            for (i, x) in t.iter().enumerate() {
                img[perm[i] as usize] = tuples[*x as usize];
            }
            if let Some(cls) = &self.sorted {
                // Blind renamings: the image's canonical form sorts each
                // class's tuples (classes are contiguous).
                let mut s = 0;
                while s < img.len() {
                    let e = (s..img.len())
                        .find(|i| cls[*i] != cls[s])
                        .unwrap_or(img.len());
                    img[s..e].sort_unstable();
                    s = e;
                }
            }
            self.sort_runs(img);
            if *img < *t {
                return false;
            }
        }
        true
    }
}

/// `u` mapped by `maps` compared with `u`.
fn cmp_mapped(u: &[u16], maps: &[Vec<u16>]) -> std::cmp::Ordering {
    for (x, m) in u.iter().zip(maps) {
        match m[*x as usize].cmp(x) {
            std::cmp::Ordering::Equal => {}
            o => return o,
        }
    }
    std::cmp::Ordering::Equal
}

fn decode(mut t: usize, per_thread: &[usize], coords: &[Coord]) -> Vec<usize> {
    let mut out = vec![0; per_thread.len()];
    for (i, k) in per_thread.iter().enumerate().rev() {
        let n = coords[*k].domain.len().max(1);
        out[i] = t % n;
        t /= n;
    }
    out
}

fn encode(digits: &[usize], per_thread: &[usize], coords: &[Coord]) -> usize {
    digits
        .iter()
        .zip(per_thread)
        .fold(0, |acc, (d, k)| acc * coords[*k].domain.len().max(1) + d)
}

/// The free values of each dynamic class that the launch's values already
/// use ([`Machine::used`]'s initial bits).
pub fn used_at_launch(r: &Renaming, inputs: &[(String, Vec<Val>)]) -> Vec<u64> {
    let mut used = vec![0u64; r.dynamic_classes()];
    for (name, vals) in inputs {
        let Some(c) = r.inputs.get(name).copied() else {
            continue;
        };
        let cl = &r.classes[c];
        let Some(j) = cl.dynamic else { continue };
        for v in vals {
            if let Val::Int { v, .. } = v {
                if let Some(i) = cl.free.iter().position(|f| f == v) {
                    used[j] |= 1 << i;
                }
            }
        }
    }
    used
}

/// A result of unknown callee `callee` of type `ty` (P-INPUT, C-OPS).
/// When the results form an opaque class (M-RENAME), the choice is
/// *restricted growth*: a pinned value, a free value already used in this
/// execution, or the least unused free value; otherwise every value of
/// the domain ([`super::step::choose_value`]).
pub fn choose_result(
    m: &mut Machine,
    chooser: &mut Chooser,
    opts: &Options,
    r: &Renaming,
    callee: &str,
    ty: &crate::ir::Type,
) -> Val {
    let class = r.results.get(callee).map(|c| (*c, &r.classes[*c]));
    let Some((_, cl)) = class.filter(|(_, cl)| cl.dynamic.is_some()) else {
        return super::step::choose_value(m, chooser, opts, ty);
    };
    let j = cl.dynamic.expect("filtered");
    let used = m.used[j];
    let fresh = (0..cl.free.len()).find(|i| used & (1 << i) == 0);
    let allowed: Vec<u128> = opts
        .int_domain
        .iter()
        .map(|x| (*x as u128) & super::value::mask(cl.bits))
        .filter(|x| match cl.free.iter().position(|f| f == x) {
            None => true,
            Some(i) => used & (1 << i) != 0 || Some(i) == fresh,
        })
        .collect();
    let v = allowed[chooser.choose(allowed.len())];
    if let Some(i) = cl.free.iter().position(|f| *f == v) {
        m.used[j] |= 1 << i;
    }
    Val::Int { bits: cl.bits, v }
}

/// The execution renamed by `g` (threads, lane values, opaque values):
/// where each renamed value appears is in `r` (inputs, call events,
/// observations, returned values; a shuffle's out-of-range thread).
pub fn image(e: &Execution, r: &Renaming, g: &Elem, inputs: &BTreeMap<String, usize>) -> Execution {
    let perm: Vec<usize> = g.perm.iter().map(|p| *p as usize).collect();
    let lanes = matches!(r.threads, Threads::Lanes { .. });
    let mut moved = e.clone();
    for th in &mut moved.threads {
        // A renamed copy of the body, kept only if the renaming changed it
        // (otherwise the image shares the representative's).
        let mut body = (*th.body).clone();
        for ev in std::sync::Arc::make_mut(&mut body.events) {
            let Some((args, res)) = r.sites.get(&ev.loc) else {
                continue;
            };
            for (a, c) in ev.args.iter_mut().zip(args) {
                *a = g.apply(r, *c, a);
            }
            if let Some(v) = &mut ev.result {
                *v = g.apply(r, *res, v);
            }
        }
        for o in &mut body.observations {
            if let Observation::Call {
                callee,
                args,
                result,
            } = o
            {
                for (k, a) in args.iter_mut().enumerate() {
                    *a = g.apply(r, r.slot(callee, k), a);
                }
                *result = g.apply(r, r.results.get(callee.as_str()).copied(), result);
            }
        }
        body.end = match body.end.take() {
            Some(ThreadEnd::Returned(v)) => Some(ThreadEnd::Returned(g.apply(r, r.ret, &v))),
            Some(ThreadEnd::Ub {
                loc,
                why: UbKind::ShuffleOutOfSet { thread },
            }) if lanes && thread < u128::from(r.n) => Some(ThreadEnd::Ub {
                loc,
                why: UbKind::ShuffleOutOfSet {
                    thread: u128::from(g.perm[thread as usize]),
                },
            }),
            other => other,
        };
        if body != *th.body {
            th.body = std::sync::Arc::new(body);
        }
    }
    for (name, vals) in &mut moved.inputs {
        let c = inputs.get(name).copied();
        for v in vals.iter_mut() {
            *v = g.apply(r, c, v);
        }
    }
    super::symmetry::renamed(&moved, &perm)
}

/// Closes the behaviours found under G (the argument is in
/// [`super::symmetry`]): every image of every behaviour, each distinct
/// behaviour key once, images carrying the count of the behaviour they
/// rename. Blind thread renamings are enumerated modulo the swaps of
/// identical thread records ([`super::symmetry::arrangements`]); value
/// renamings modulo what they do to values the behaviour does not show.
/// `go` and the budget `cap` stop it as in [`super::symmetry::close`].
pub fn close(
    behaviours: Vec<Behaviour>,
    digests: Vec<u128>,
    r: &Renaming,
    opts: &Options,
    cap: usize,
    go: &mut dyn FnMut() -> bool,
) -> (Vec<Behaviour>, super::symmetry::Closure) {
    let elems = elements(r);
    let inputs: BTreeMap<String, usize> = r.inputs.clone();
    // Past the listing limit, an orbit is counted by its size when its
    // behaviour shows no value G renames: G then acts on it by the thread
    // permutations alone (`image` changes nothing else the digest reads),
    // a product of symmetric groups over `classes` (the blocks of lane
    // renamings, the launch classes of blind ones, one class per thread
    // otherwise), which `symmetry::orbit_within` counts. Whether a
    // behaviour shows a renamed value is the same over its orbit, so every
    // orbit is counted one way only.
    let classes: Vec<super::symmetry::Class> = match &r.threads {
        Threads::Blind => super::symmetry::classes(opts, r.n as usize),
        Threads::Lanes { blocks } => (0..r.n)
            .map(|t| match blocks.iter().position(|b| b.contains(&t)) {
                Some(b) => (b as u32, (0, 0)),
                None => (u32::MAX, (t, 0)),
            })
            .collect(),
        Threads::Off(_) => (0..r.n).map(|t| (u32::MAX, (t, 0))).collect(),
    };
    let mut count = |x: &Execution| {
        if shows_renamed(x, r) {
            return None;
        }
        super::symmetry::orbit_within(x, &classes, super::symmetry::ORBIT_LABELLINGS)
    };
    super::symmetry::close_under(behaviours, digests, go, cap, Some(&mut count), |x, emit| {
        if !shows_renamed(x, r) {
            // G acts on `x` by the thread permutations alone: one image
            // per arrangement of its records within the classes, digested
            // without building it, built (`image`, which also renames
            // the launch inputs and call arguments the listing prints)
            // only when new.
            let arrangements = super::symmetry::arrangements_within(x, &classes);
            super::symmetry::emit_renamings_by(x, arrangements, emit, |perm| {
                let g = Elem {
                    perm: perm.iter().map(|p| *p as u32).collect(),
                    ..Elem::identity(r)
                };
                image(x, r, &g, &inputs)
            });
            return;
        }
        // Value renamings that differ only on values the behaviour does
        // not show give the same image.
        let shown = shown_values(x, r);
        let mut restrictions: HashSet<Vec<u32>> = HashSet::new();
        for g in &elems {
            let sig: Vec<u32> = g
                .perm
                .iter()
                .copied()
                .chain(shown.iter().map(|(c, i)| g.vals[*c][*i] as u32))
                .collect();
            if !restrictions.insert(sig) {
                continue;
            }
            let valued = image(x, r, g, &inputs);
            let arrangements: Box<dyn Iterator<Item = Vec<usize>>> = match r.threads {
                Threads::Blind => Box::new(super::symmetry::arrangements(x, opts)),
                _ => Box::new(std::iter::once((0..r.n as usize).collect())),
            };
            if !super::symmetry::emit_renamings(&valued, arrangements, emit) {
                return;
            }
        }
    })
}

/// The (opaque class, free value index) pairs whose values `e` shows.
fn shown_values(e: &Execution, r: &Renaming) -> BTreeSet<(usize, usize)> {
    let mut out = BTreeSet::new();
    let mut note = |c: Option<usize>, v: &Val| {
        if let (Some(c), Val::Int { v, .. }) = (c, v) {
            let cl = &r.classes[c];
            if cl.kind == Kind::Opaque {
                if let Some(i) = cl.free.iter().position(|f| f == v) {
                    out.insert((c, i));
                }
            }
        }
    };
    renamable_values(e, r, true, &mut note);
    for (name, vals) in &e.inputs {
        for v in vals {
            note(r.inputs.get(name).copied(), v);
        }
    }
    out
}

/// Whether some element of G changes a value that `e`'s behaviour digest
/// reads (the places [`image`] renames, launch inputs aside): a free
/// value of an opaque class, a lane value below the thread count, or
/// the thread a shuffle read out of its set under lane renamings.
fn shows_renamed(e: &Execution, r: &Renaming) -> bool {
    let mut shown = false;
    // A call event's arguments are not part of the behaviour (R-BEHAV,
    // `DigestParts::path`).
    renamable_values(e, r, false, &mut |c, v| {
        if let (Some(c), Val::Int { v, .. }) = (c, v) {
            let cl = &r.classes[c];
            shown |= match cl.kind {
                Kind::Opaque => cl.free.contains(v),
                Kind::Lane => *v < u128::from(r.n),
            };
        }
    });
    let lanes = matches!(r.threads, Threads::Lanes { .. });
    shown
        || (lanes
            && e.threads.iter().any(|th| {
                matches!(
                    th.end,
                    Some(ThreadEnd::Ub {
                        why: UbKind::ShuffleOutOfSet { thread },
                        ..
                    }) if thread < u128::from(r.n)
                )
            }))
}

/// Calls `note` with the class (if any) and value of every place of `e`'s
/// threads that [`image`] renames: call events' arguments (when
/// `event_args`) and results, observed calls' arguments and results,
/// returned values.
fn renamable_values(
    e: &Execution,
    r: &Renaming,
    event_args: bool,
    note: &mut dyn FnMut(Option<usize>, &Val),
) {
    for th in &e.threads {
        for ev in th.events.iter() {
            if let Some((args, res)) = r.sites.get(&ev.loc) {
                if event_args {
                    for (a, c) in ev.args.iter().zip(args) {
                        note(*c, a);
                    }
                }
                if let Some(v) = &ev.result {
                    note(*res, v);
                }
            }
        }
        for o in &th.observations {
            if let Observation::Call {
                callee,
                args,
                result,
            } = o
            {
                for (k, a) in args.iter().enumerate() {
                    note(r.slot(callee, k), a);
                }
                note(r.results.get(callee.as_str()).copied(), result);
            }
        }
        if let Some(ThreadEnd::Returned(v)) = &th.end {
            note(r.ret, v);
        }
    }
}
