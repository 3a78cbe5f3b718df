//! Which renamings the enumeration may use (M-RENAME): a value-flow
//! analysis of the module that finds the group G of renamings under which
//! the semantics is equivariant, B(g·y) = g·B(y) for every launch y. The
//! argument that enumerating orbit representatives and closing under G
//! keeps the behaviours exactly is in [`super::symmetry`]; this module
//! only decides, conservatively, which renamings are admissible. Anything
//! it does not recognise keeps its values unrenamed (or turns thread
//! renaming off), which is always exact: a smaller group only reduces less.
//!
//! # What is renamed
//!
//! - **Threads** ([`Threads`]): in a thread-blind program (no instruction
//!   reads a thread's position except through quantities that renamings
//!   within a launch group and subgroup keep: group id, sizes, subgroup id)
//!   any permutation within group and subgroup ([`Threads::Blind`]). In a
//!   program that reads lane ids, shuffles or broadcasts by lane, with one
//!   launch group forming one subgroup, a permutation π of the threads that
//!   renames every *lane value* with the threads ([`Threads::Lanes`]): lane
//!   l becomes π(l); values outside `[0, N)` stay (a shuffle reading them is
//!   out of range before and after).
//! - **Values** ([`Kind::Opaque`]): a class of values the program treats as
//!   names: it copies them (phi, select arms, calls, returns, the value
//!   operand of a shuffle), compares them for equality only (`icmp eq/ne`,
//!   `switch`, uniform votes, match-any), passes them to unknown functions
//!   and observes them. A permutation ρ of the domain's values (fixing every
//!   constant the class meets) renames them.
//!
//! # The analysis
//!
//! Nodes are SSA values, the return value of each defined function, and
//! the arguments and result of each unknown callee (one uninterpreted
//! function per callee, C-OPS and P-INPUT, so every call site of a callee
//! shares them). Copies and equality comparisons merge nodes into classes
//! (union-find). A class is renamable when:
//!
//! - every member is *produced* by a renamable source (an enumerated
//!   kernel argument, a result of an unknown function, whose values the
//!   chooser draws from the domain, a lane-id read in [`Threads::Lanes`]) or
//!   by a copy of members; constants met by the class are *pinned* (fixed
//!   by every renaming), `poison`/`undef` are fixed anyway;
//! - every *use* of a member is one listed above; for lane classes also a
//!   lane operand (shuffle by index, broadcast, write-lane) and a relational
//!   comparison with a constant (the renaming must then keep the set of
//!   lanes on which it is true);
//! - all members have one integer type wider than `i1` on which the domain
//!   values are distinct.
//!
//! Anything else (arithmetic, casts, memory, vector instructions, the
//! intrinsics the step rules compute from their operands: P-FLOAT's and
//! P-VEC-REDUCE's, whose declarations are otherwise unknown functions,
//! branches on booleans made from the class, a given `--arg`) leaves the
//! class unrenamed.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rustc_hash::FxHashMap;

use crate::ir::ValueId;

use super::program::Program;
use super::state::Loc;
use super::value::{icmp, mask};
use super::valueflow::{walk, Flow, Node, Walk};
use super::Options;

/// Most elements of G the enumeration may use (each launch is compared
/// with its images, and each behaviour renamed by each element): classes
/// are dropped, the largest first, until the group is this small.
pub const GROUP_CAP: usize = 5_040;

/// How threads are renamed (M-RENAME).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Threads {
    /// Not at all, and why.
    Off(String),
    /// Any permutation keeping every thread in its launch group and
    /// subgroup (a thread-blind program).
    Blind,
    /// Permutations π of the threads that permute each block among itself
    /// and rename every lane value l < N to π(l) (one group, one subgroup).
    Lanes { blocks: Vec<Vec<u32>> },
}

/// What a renamable class holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Lane values: renamed with the threads.
    Lane,
    /// Names: renamed by a permutation of `Class::free`.
    Opaque,
}

/// A renamable class of values.
#[derive(Clone, Debug)]
pub struct Class {
    pub kind: Kind,
    /// The members' integer width.
    pub bits: u32,
    /// Opaque: the domain values a renaming permutes (the domain minus the
    /// pinned constants), in domain order.
    pub free: Vec<u128>,
    /// Opaque with results of unknown functions among its members: its
    /// index in [`super::state::Machine::used`] (the restricted-growth
    /// choice of [`choose_result`]).
    pub dynamic: Option<usize>,
    /// A short name for the counts line (a member's name).
    pub name: String,
}

/// The admissible renamings of a launch and where renamed values appear.
#[derive(Clone, Debug)]
pub struct Renaming {
    pub threads: Threads,
    pub classes: Vec<Class>,
    /// Class of each kernel parameter (index into the kernel's params).
    pub params: Vec<Option<usize>>,
    /// Class of each kernel parameter by name (the launch's inputs).
    pub inputs: BTreeMap<String, usize>,
    /// Class of the results of each unknown callee.
    pub results: FxHashMap<String, usize>,
    /// Class of argument `k` of each unknown callee (observations), by
    /// callee then `k` ([`Renaming::slot`]; looked up by `&str` in every
    /// fingerprint, so not keyed by an owned `(String, usize)`).
    pub slots: FxHashMap<String, FxHashMap<usize, usize>>,
    /// Per call site: classes of the arguments as an event records them,
    /// and of the result.
    pub sites: FxHashMap<Loc, (Vec<Option<usize>>, Option<usize>)>,
    /// Class of the kernel's return value (`ThreadEnd::Returned`).
    pub ret: Option<usize>,
    /// Class of each SSA value (function, value) in an opaque class: the
    /// values memoization renames in frames (value symmetry,
    /// [`super::reduce`]).
    pub values: FxHashMap<(usize, ValueId), usize>,
    /// Threads of the launch.
    pub n: u32,
}

impl Renaming {
    /// No renaming at all.
    pub fn none(why: &str, n: u32) -> Renaming {
        Renaming {
            threads: Threads::Off(why.to_string()),
            classes: Vec::new(),
            params: Vec::new(),
            inputs: BTreeMap::new(),
            results: FxHashMap::default(),
            slots: FxHashMap::default(),
            sites: FxHashMap::default(),
            ret: None,
            values: FxHashMap::default(),
            n,
        }
    }

    /// The class of argument `k` of the unknown callee `callee`
    /// (observations, the table of results), if any.
    pub fn slot(&self, callee: &str, k: usize) -> Option<usize> {
        self.slots.get(callee).and_then(|s| s.get(&k)).copied()
    }

    /// Whether some renaming other than the identity is admissible.
    pub fn any(&self) -> bool {
        !matches!(self.threads, Threads::Off(_)) || !self.classes.is_empty()
    }

    /// The admissible renamings are exactly those of launch symmetry
    /// before this module (thread-blind, no value classes): the launches
    /// and closure of that code path.
    pub fn blind_only(&self) -> bool {
        self.threads == Threads::Blind && self.classes.is_empty()
    }

    /// The class of value `v`, if it is an opaque one (value symmetry of
    /// memoization).
    pub fn opaque(&self, class: Option<usize>) -> Option<usize> {
        class.filter(|c| self.classes[*c].kind == Kind::Opaque)
    }

    /// Whether some class is opaque (memoization may then merge states
    /// equal up to renaming their values).
    pub fn has_opaque(&self) -> bool {
        self.classes.iter().any(|c| c.kind == Kind::Opaque)
    }

    /// Opaque classes with results of unknown functions (the length of
    /// `Machine::used`).
    pub fn dynamic_classes(&self) -> usize {
        self.classes.iter().filter(|c| c.dynamic.is_some()).count()
    }

    /// Thread renaming turned off (a run stopped at a contradiction, see
    /// `symmetry`); value classes stay.
    pub fn without_threads(&self, why: &str) -> Renaming {
        let mut r = self.clone();
        r.threads = Threads::Off(why.to_string());
        for c in &mut r.classes {
            if c.kind == Kind::Lane {
                c.free.clear();
            }
        }
        // Lane classes are renamed with the threads only.
        let keep: Vec<bool> = r.classes.iter().map(|c| c.kind == Kind::Opaque).collect();
        r.retain(&keep);
        r
    }

    /// Keeps the classes with `keep[c]`, renumbering them.
    fn retain(&mut self, keep: &[bool]) {
        let mut new = vec![None; keep.len()];
        let mut classes = Vec::new();
        for (c, k) in keep.iter().enumerate() {
            if *k {
                new[c] = Some(classes.len());
                classes.push(self.classes[c].clone());
            }
        }
        let mut dynamic = 0;
        for c in &mut classes {
            if c.dynamic.is_some() {
                c.dynamic = Some(dynamic);
                dynamic += 1;
            }
        }
        self.classes = classes;
        let map = |c: &mut Option<usize>| *c = c.and_then(|i| new[i]);
        self.params.iter_mut().for_each(map);
        self.inputs.retain(|_, c| new[*c].is_some());
        self.inputs
            .values_mut()
            .for_each(|c| *c = new[*c].expect("kept"));
        map(&mut self.ret);
        self.results.retain(|_, c| new[*c].is_some());
        self.results
            .values_mut()
            .for_each(|c| *c = new[*c].expect("kept"));
        for slots in self.slots.values_mut() {
            slots.retain(|_, c| new[*c].is_some());
            slots.values_mut().for_each(|c| *c = new[*c].expect("kept"));
        }
        self.slots.retain(|_, slots| !slots.is_empty());
        for (args, res) in self.sites.values_mut() {
            args.iter_mut().for_each(map);
            map(res);
        }
        self.values.retain(|_, c| new[*c].is_some());
        self.values
            .values_mut()
            .for_each(|c| *c = new[*c].expect("kept"));
    }

    /// A description for the counts line.
    pub fn describe(&self) -> String {
        let threads = match &self.threads {
            Threads::Off(why) => format!("threads not renamed ({why})"),
            Threads::Blind => "threads renamed within groups (sorted per-thread inputs)".into(),
            Threads::Lanes { blocks } => format!(
                "threads renamed with the lane values they read, within {}",
                blocks
                    .iter()
                    .map(|b| format!("{b:?}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        };
        let opaque: Vec<&str> = self
            .classes
            .iter()
            .filter(|c| c.kind == Kind::Opaque)
            .map(|c| c.name.as_str())
            .collect();
        if opaque.is_empty() {
            threads
        } else {
            format!("{threads}; values renamed in {}", opaque.join(", "))
        }
    }
}

/// The renamings admissible for `prog` launched with `opts` (module
/// documentation).
pub fn analyse(prog: &Program, opts: &Options) -> Renaming {
    let n = opts.threads;
    let kernel = prog.kernel;
    let kf = prog.func(kernel);
    let Walk {
        mut flow,
        merged,
        mut lane_pins,
        calls,
        threads,
    } = walk(prog, opts);
    // Which classes are renamable, and how.
    let lanes = matches!(threads, Ok(true));
    let mut class_of_root: HashMap<usize, usize> = HashMap::new();
    let mut classes: Vec<Class> = Vec::new();
    let mut lane_cuts: Vec<Vec<bool>> = Vec::new();
    let mut lane_domain = false;
    let mut roots: Vec<usize> = merged.keys().copied().collect();
    roots.sort_unstable();
    // A lane value that no renaming can follow (read by arithmetic, say)
    // makes lane renaming unsound: threads are then not renamed at all.
    let mut lane_failure: Option<String> = None;
    for r in roots {
        let f = &merged[&r];
        let lane = f.lane_source || f.lane_sink;
        let unrenamable = |why: String| format!("a lane value {why}");
        let bits = match (&f.bad, f.types.len(), f.bits) {
            (Some(why), _, _) => Err(unrenamable(format!("is {why}"))),
            (None, 1, Some(bits)) => Ok(bits),
            _ => Err(unrenamable("has several types".into())),
        };
        let dom: Option<Vec<u128>> = bits.as_ref().ok().and_then(|bits| {
            let dom: Vec<u128> = opts
                .int_domain
                .iter()
                .map(|x| (*x as u128) & mask(*bits))
                .collect();
            let distinct: BTreeSet<u128> = dom.iter().copied().collect();
            (distinct.len() == dom.len()).then_some(dom)
        });
        let (bits, dom) = match (bits, dom) {
            (Ok(bits), Some(dom)) => (bits, dom),
            (Err(why), _) => {
                if lane && lane_failure.is_none() {
                    lane_failure = Some(format!("{why} ({})", f.name.clone().unwrap_or_default()));
                }
                continue;
            }
            (Ok(_), None) => {
                if lane && lane_failure.is_none() {
                    lane_failure = Some("the domain does not fit a lane value's type".into());
                }
                continue;
            }
        };
        if lane {
            if !lanes {
                continue;
            }
            for p in &f.pins {
                lane_pins.insert(*p);
            }
            for (pred, c, left) in &f.cuts {
                let c = (*c as u128) & mask(bits);
                lane_cuts.push(
                    (0..u128::from(n))
                        .map(|l| {
                            if *left {
                                icmp(*pred, bits, c, l)
                            } else {
                                icmp(*pred, bits, l, c)
                            }
                        })
                        .collect(),
                );
            }
            lane_domain |= f.domain_source;
            class_of_root.insert(r, classes.len());
            classes.push(Class {
                kind: Kind::Lane,
                bits,
                free: Vec::new(),
                dynamic: None,
                name: f.name.clone().unwrap_or_default(),
            });
            continue;
        }
        if !f.cuts.is_empty() || !f.domain_source {
            continue;
        }
        let pins: BTreeSet<u128> = f.pins.iter().map(|p| (*p as u128) & mask(bits)).collect();
        let free: Vec<u128> = dom.into_iter().filter(|v| !pins.contains(v)).collect();
        if free.len() < 2 {
            continue;
        }
        class_of_root.insert(r, classes.len());
        classes.push(Class {
            kind: Kind::Opaque,
            bits,
            free,
            dynamic: f.dynamic.then_some(0),
            name: f.name.clone().unwrap_or_default(),
        });
    }
    let threads = match (threads, lane_failure) {
        (Ok(true), Some(why)) => Err(why),
        (t, _) => t,
    };
    let threads = match threads {
        Err(why) => Threads::Off(why),
        Ok(false) => Threads::Blind,
        Ok(true) => {
            // The partition of the lanes every renaming keeps: pinned
            // lanes alone, each comparison's two sides, and the domain's
            // lanes when lane values are drawn from it.
            let mut cuts = lane_cuts;
            for p in &lane_pins {
                cuts.push((0..i128::from(n)).map(|l| l == *p).collect());
            }
            if lane_domain {
                cuts.push(
                    (0..i128::from(n))
                        .map(|l| opts.int_domain.contains(&l))
                        .collect(),
                );
            }
            let mut blocks: BTreeSetBlocks = BTreeSetBlocks::new(n);
            for c in &cuts {
                blocks.refine(c);
            }
            let blocks: Vec<Vec<u32>> = blocks.0.into_iter().filter(|b| b.len() > 1).collect();
            if blocks.is_empty() {
                Threads::Off("every lane is told apart".into())
            } else {
                Threads::Lanes { blocks }
            }
        }
    };
    let node_class = |flow: &mut Flow, n: &Node| -> Option<usize> {
        let i = *flow.ids.get(n)?;
        let r = flow.find(i);
        class_of_root.get(&r).copied()
    };
    let mut out = Renaming::none("", n);
    out.threads = threads;
    out.classes = classes;
    out.params = kf
        .params
        .iter()
        .map(|p| {
            p.value
                .and_then(|v| node_class(&mut flow, &Node::Value(kernel, v)))
        })
        .collect();
    for (p, c) in kf.params.iter().zip(&out.params) {
        if let (Some(v), Some(c)) = (p.value, c) {
            out.inputs.insert(kf.value(v).name.to_string(), *c);
        }
    }
    out.ret = node_class(&mut flow, &Node::Ret(kernel));
    let nodes: Vec<Node> = flow.ids.keys().cloned().collect();
    for node in nodes {
        match &node {
            Node::Arg(callee, k) => {
                if let Some(c) = node_class(&mut flow, &node) {
                    out.slots.entry(callee.clone()).or_default().insert(*k, c);
                }
            }
            Node::Res(callee) => {
                if let Some(c) = node_class(&mut flow, &node) {
                    out.results.insert(callee.clone(), c);
                }
            }
            Node::Value(f, v) => {
                if let Some(c) = node_class(&mut flow, &node) {
                    out.values.insert((*f, *v), c);
                }
            }
            _ => {}
        }
    }
    for (loc, args, res) in calls {
        let args = args
            .into_iter()
            .map(|a| a.and_then(|i| class_of_root.get(&flow.find(i)).copied()))
            .collect();
        let res = res.and_then(|i| class_of_root.get(&flow.find(i)).copied());
        out.sites.insert(loc, (args, res));
    }
    // Lane classes exist only with lane renaming; classes are dropped, the
    // largest group factor first, until G is small enough.
    let lane_classes = matches!(out.threads, Threads::Lanes { .. });
    let mut keep: Vec<bool> = out
        .classes
        .iter()
        .map(|c| c.kind == Kind::Opaque || lane_classes)
        .collect();
    loop {
        let size = group_size(&out, &keep);
        if size <= GROUP_CAP as f64 {
            break;
        }
        let largest = (0..keep.len())
            .filter(|c| keep[*c] && out.classes[*c].kind == Kind::Opaque)
            .max_by_key(|c| out.classes[*c].free.len());
        match largest {
            Some(c) => keep[c] = false,
            None => {
                out.threads = Threads::Off(format!("more than {GROUP_CAP} lane renamings"));
                keep.iter_mut().for_each(|k| *k = false);
            }
        }
    }
    out.retain(&keep);
    out
}

/// |G| as the enumeration lists it (lane permutations times value
/// permutations; sorting covers blind thread renamings).
fn group_size(r: &Renaming, keep: &[bool]) -> f64 {
    let fact = |k: usize| (1..=k).map(|x| x as f64).product::<f64>();
    let lanes = match &r.threads {
        Threads::Lanes { blocks } => blocks.iter().map(|b| fact(b.len())).product(),
        _ => 1.0,
    };
    r.classes
        .iter()
        .zip(keep)
        .filter(|(c, k)| **k && c.kind == Kind::Opaque)
        .map(|(c, _)| fact(c.free.len()))
        .product::<f64>()
        * lanes
}

/// A partition of the lanes `0..n`, refined by predicates.
struct BTreeSetBlocks(Vec<Vec<u32>>);

impl BTreeSetBlocks {
    fn new(n: u32) -> BTreeSetBlocks {
        BTreeSetBlocks(vec![(0..n).collect()])
    }
    fn refine(&mut self, side: &[bool]) {
        let mut out = Vec::new();
        for b in &self.0 {
            let (yes, no): (Vec<u32>, Vec<u32>) = b.iter().partition(|l| side[**l as usize]);
            out.extend([yes, no].into_iter().filter(|x| !x.is_empty()));
        }
        out.sort();
        self.0 = out;
    }
}
