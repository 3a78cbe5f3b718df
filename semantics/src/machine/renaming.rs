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
//! Anything else (arithmetic, casts, memory, branches on booleans made from
//! the class, a given `--arg`) leaves the class unrenamed.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::intrinsics::{Dim, Index, Op, Shfl, Vote};
use crate::ir::{Const, Function, ICmpPred, InstKind, Operand, TermKind, Type, ValueDef, ValueId};
use crate::uniformity::analysis::{operands_of, InstRef};

use super::program::{classify, CalleeKind, Program};
use super::state::Loc;
use super::value::{icmp, mask};
use super::{ArgValues, Options};

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
    pub results: HashMap<String, usize>,
    /// Class of argument `k` of each unknown callee (observations).
    pub slots: HashMap<(String, usize), usize>,
    /// Per call site: classes of the arguments as an event records them,
    /// and of the result.
    pub sites: HashMap<Loc, (Vec<Option<usize>>, Option<usize>)>,
    /// Class of the kernel's return value (`ThreadEnd::Returned`).
    pub ret: Option<usize>,
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
            results: HashMap::new(),
            slots: HashMap::new(),
            sites: HashMap::new(),
            ret: None,
            n,
        }
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
        self.inputs.values_mut().for_each(|c| *c = new[*c].expect("kept"));
        map(&mut self.ret);
        self.results.retain(|_, c| new[*c].is_some());
        self.results.values_mut().for_each(|c| *c = new[*c].expect("kept"));
        self.slots.retain(|_, c| new[*c].is_some());
        self.slots.values_mut().for_each(|c| *c = new[*c].expect("kept"));
        for (args, res) in self.sites.values_mut() {
            args.iter_mut().for_each(map);
            map(res);
        }
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

/// A node of the value-flow graph.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    Value(usize, ValueId),
    /// The return value of a defined function.
    Ret(usize),
    /// Argument `k` of an unknown callee.
    Arg(String, usize),
    /// The results of an unknown callee.
    Res(String),
}

/// What is known of a node (merged over its class).
#[derive(Clone, Debug, Default)]
struct Facts {
    /// Why the class cannot be renamed.
    bad: Option<String>,
    types: BTreeSet<String>,
    bits: Option<u32>,
    pins: BTreeSet<i128>,
    /// Relational comparisons with a constant: (predicate, constant,
    /// whether the constant is the left operand).
    cuts: Vec<(ICmpPred, i128, bool)>,
    lane_source: bool,
    lane_sink: bool,
    /// An enumerated kernel argument or an unknown function's result.
    domain_source: bool,
    /// An unknown function's result (chosen while running).
    dynamic: bool,
    name: Option<String>,
}

struct Flow {
    ids: HashMap<Node, usize>,
    parent: Vec<usize>,
    facts: Vec<Facts>,
}

impl Flow {
    fn node(&mut self, n: Node) -> usize {
        if let Some(i) = self.ids.get(&n) {
            return *i;
        }
        let i = self.parent.len();
        self.parent.push(i);
        self.facts.push(Facts::default());
        self.ids.insert(n, i);
        i
    }
    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }
    fn link(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a] = b;
        }
    }
    fn bad(&mut self, i: usize, why: impl FnOnce() -> String) {
        if self.facts[i].bad.is_none() {
            self.facts[i].bad = Some(why());
        }
    }
    fn ty(&mut self, i: usize, ty: &Type) {
        match ty {
            Type::Int(b) if *b > 1 => {
                self.facts[i].types.insert(format!("i{b}"));
                self.facts[i].bits = Some(*b);
            }
            other => {
                self.facts[i].types.insert(format!("{other:?}"));
                self.bad(i, || "not an integer wider than i1".into());
            }
        }
    }
}

/// The operation of a builtin with respect to lanes: whether renaming
/// threads with their lane values keeps its meaning.
fn lane_reading(op: Op, call: &crate::ir::Call, opts: &Options) -> Result<bool, String> {
    let dim = |d: Dim| match d {
        Dim::None => Some(0),
        Dim::Fixed(x) => Some(u32::from(x)),
        Dim::Arg(k) => call
            .args
            .get(k as usize)
            .and_then(|a| a.value.as_int())
            .map(|x| x as u32),
    };
    Ok(match op {
        // Kept by every renaming within group and subgroup.
        Op::Index(
            Index::GroupId
            | Index::LocalSize
            | Index::GlobalSize
            | Index::NumGroups
            | Index::SubgroupSize
            | Index::MaxSubgroupSize
            | Index::SubgroupId
            | Index::NumSubgroups,
            d,
        ) if dim(d).is_some() => false,
        Op::Index(Index::LocalId | Index::GlobalId, d) if dim(d).is_some_and(|d| d != 0) => false,
        // Lane values (one group, one subgroup: local id = global id =
        // lane = thread id).
        Op::Index(Index::LocalId | Index::GlobalId | Index::Lane, d) if dim(d).is_some() => {
            single_subgroup(opts).map_err(|e| {
                format!("{} {e}", call.callee_name().unwrap_or("an indirect call"))
            })?;
            true
        }
        Op::Shuffle {
            mode: Shfl::Idx,
            scale: 1,
            ..
        }
        | Op::Broadcast { .. }
        | Op::WriteLane { .. } => {
            single_subgroup(opts).map_err(|e| {
                format!("{} {e}", call.callee_name().unwrap_or("an indirect call"))
            })?;
            true
        }
        op if op.reads_lane() => {
            return Err(format!(
                "{} reads the order of lanes",
                call.callee_name().unwrap_or("an indirect call")
            ))
        }
        _ => false,
    })
}

fn single_subgroup(opts: &Options) -> Result<(), String> {
    let g = opts.geometry();
    if opts.groups > 1 || g.max_subgroup() < opts.threads {
        return Err("reads lane ids in a launch of several groups or subgroups".into());
    }
    Ok(())
}

/// The renamings admissible for `prog` launched with `opts` (module
/// documentation).
pub fn analyse(prog: &Program, opts: &Options) -> Renaming {
    let n = opts.threads;
    let module = prog.module;
    let kernel = prog.kernel;
    let kf = prog.func(kernel);
    // Threads: what stops renaming them at all.
    let mut threads: Result<bool, String> = Ok(false);
    if n <= 1 {
        threads = Err("one thread".into());
    } else if opts
        .args
        .values()
        .any(|a| matches!(a, ArgValues::PerThread(_)))
    {
        threads = Err("per-thread arguments are given".into());
    } else if let Some(why) = super::symmetry::memory(prog) {
        threads = Err(why);
    }
    let mut flow = Flow {
        ids: HashMap::new(),
        parent: Vec::new(),
        facts: Vec::new(),
    };
    let mut lane_pins: BTreeSet<i128> = BTreeSet::new();
    let mut calls: Vec<(Loc, Vec<Option<usize>>, Option<usize>)> = Vec::new();
    for (fi, f) in module.functions.iter().enumerate() {
        if !f.has_body() {
            continue;
        }
        // Producers.
        for (vi, info) in f.values.iter().enumerate() {
            let v = ValueId(vi);
            let i = flow.node(Node::Value(fi, v));
            flow.ty(i, &info.ty);
            flow.facts[i].name = Some(format!("%{}", info.name));
            match info.def {
                ValueDef::Arg(p) if fi == kernel => {
                    let given = opts.args.contains_key(&info.name.to_string());
                    if given {
                        flow.bad(i, || "given by --arg".into());
                    } else if kf.params.get(p).is_some_and(|p| p.value == Some(v)) {
                        flow.facts[i].domain_source = true;
                    }
                }
                ValueDef::Arg(_) => {} // linked with the call sites' arguments
                ValueDef::Inst { block, index } => {
                    let inst = &f.block(block).insts[index];
                    produced(&mut flow, module, opts, i, &inst.kind, &mut threads);
                }
            }
        }
        // Uses.
        for b in f.block_ids() {
            let block = f.block(b);
            for (index, inst) in block.insts.iter().enumerate() {
                let loc = Loc {
                    func: fi,
                    block: b,
                    index,
                };
                let site = uses(
                    &mut flow,
                    prog,
                    fi,
                    f,
                    InstRef { block: b, index },
                    inst,
                    &mut lane_pins,
                );
                if let Some(s) = site {
                    calls.push((loc, s.0, s.1));
                }
            }
            let term = InstRef {
                block: b,
                index: block.insts.len(),
            };
            match &block.term.kind {
                TermKind::Switch { cond, cases, .. } => {
                    if let Some(v) = cond.as_local() {
                        let i = flow.node(Node::Value(fi, v));
                        for (c, _) in cases.iter() {
                            pin(&mut flow, i, c);
                        }
                    }
                }
                TermKind::Ret(Some(op)) => {
                    let r = flow.node(Node::Ret(fi));
                    flow.ty(r, &op.ty);
                    copy_into(&mut flow, fi, r, &op.value);
                }
                _ => {
                    for op in operands_of(f, term) {
                        if let Some(v) = op.as_local() {
                            let i = flow.node(Node::Value(fi, v));
                            flow.bad(i, || "a branch condition".into());
                        }
                    }
                }
            }
        }
    }
    // Merge the facts of each class.
    let len = flow.parent.len();
    let mut merged: HashMap<usize, Facts> = HashMap::new();
    for i in 0..len {
        let r = flow.find(i);
        let f = std::mem::take(&mut flow.facts[i]);
        let m = merged.entry(r).or_default();
        if m.bad.is_none() {
            m.bad = f.bad;
        }
        m.types.extend(f.types);
        m.bits = m.bits.or(f.bits);
        m.pins.extend(f.pins);
        m.cuts.extend(f.cuts);
        m.lane_source |= f.lane_source;
        m.lane_sink |= f.lane_sink;
        m.domain_source |= f.domain_source;
        m.dynamic |= f.dynamic;
        if m.name.is_none() {
            m.name = f.name;
        }
    }
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
        .map(|p| p.value.and_then(|v| node_class(&mut flow, &Node::Value(kernel, v))))
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
                    out.slots.insert((callee.clone(), *k), c);
                }
            }
            Node::Res(callee) => {
                if let Some(c) = node_class(&mut flow, &node) {
                    out.results.insert(callee.clone(), c);
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

/// Pins constant `c` on node `i`'s class (`poison`/`undef` are fixed by
/// every renaming; other constants make the class unrenamable).
fn pin(flow: &mut Flow, i: usize, c: &Const) {
    match c {
        Const::Int { value, .. } => {
            flow.facts[i].pins.insert(*value);
        }
        Const::Poison | Const::Undef => {}
        other => flow.bad(i, || format!("meets the constant {other:?}")),
    }
}

/// `op` flows into node `into`: linked when local, pinned when constant.
fn copy_into(flow: &mut Flow, fi: usize, into: usize, op: &Operand) {
    match op {
        Operand::Local(v) => {
            let j = flow.node(Node::Value(fi, *v));
            flow.link(into, j);
        }
        Operand::Const(c) => pin(flow, into, c),
        Operand::Metadata(_) => flow.bad(into, || "metadata".into()),
    }
}

/// How node `i` (the result of `kind`) is produced; lane-reading builtins
/// and indirect calls also decide whether threads may be renamed
/// (`threads`: `Ok(true)` when lane values are read).
fn produced(
    flow: &mut Flow,
    module: &crate::ir::Module,
    opts: &Options,
    i: usize,
    kind: &InstKind,
    threads: &mut Result<bool, String>,
) {
    match kind {
        InstKind::Phi { .. } | InstKind::Select { .. } => {} // see `uses`
        InstKind::Call(c) => match classify(module, c) {
            CalleeKind::Defined(g) => {
                let r = flow.node(Node::Ret(g));
                flow.link(i, r);
            }
            CalleeKind::UnknownConvergent
            | CalleeKind::UnknownPure
            | CalleeKind::UnknownUniform
            | CalleeKind::UnknownStream => match c.callee_name() {
                Some(name) => {
                    let r = flow.node(Node::Res(name.to_string()));
                    flow.facts[r].dynamic = true;
                    flow.facts[r].domain_source = true;
                    flow.link(i, r);
                }
                None => flow.bad(i, || "an indirect call's result".into()),
            },
            CalleeKind::Builtin(op) => match op {
                Op::Index(..) => match lane_reading(op, c, opts) {
                    Ok(true) => flow.facts[i].lane_source = true,
                    _ => flow.bad(i, || "a geometry read".into()),
                },
                Op::Shuffle { .. }
                | Op::Broadcast { .. }
                | Op::First { .. }
                | Op::PassThrough { .. }
                | Op::WriteLane { .. } => {} // copies, see `uses`
                _ => flow.bad(i, || format!("the result of {op:?}")),
            },
            _ => flow.bad(i, || "a call's result".into()),
        },
        other => {
            let what = format!("{other:?}");
            flow.bad(i, || what.chars().take(24).collect());
        }
    }
    // Thread renaming: indirect calls and lane-reading builtins.
    if let InstKind::Call(c) = kind {
        if c.callee_name().is_none() && threads.is_ok() {
            *threads = Err("makes an indirect call".into());
        }
        if let CalleeKind::Builtin(op) = classify(module, c) {
            match lane_reading(op, c, opts) {
                Ok(true) => {
                    if let Ok(l) = threads {
                        *l = true;
                    }
                }
                Ok(false) => {}
                Err(why) => {
                    if threads.is_ok() {
                        *threads = Err(why);
                    }
                }
            }
        }
    }
}

/// The uses of values by `inst` (module documentation); returns, for a
/// call, the nodes of its recorded arguments and of its result.
#[allow(clippy::type_complexity)]
fn uses(
    flow: &mut Flow,
    prog: &Program,
    fi: usize,
    f: &Function,
    at: InstRef,
    inst: &crate::ir::Inst,
    lane_pins: &mut BTreeSet<i128>,
) -> Option<(Vec<Option<usize>>, Option<usize>)> {
    let module = prog.module;
    let res = inst.result.map(|v| flow.node(Node::Value(fi, v)));
    let local = |flow: &mut Flow, op: &Operand| op.as_local().map(|v| flow.node(Node::Value(fi, v)));
    let bad_all = |flow: &mut Flow, why: &str| {
        for op in operands_of(f, at) {
            if let Some(v) = op.as_local() {
                let j = flow.node(Node::Value(fi, v));
                flow.bad(j, || why.to_string());
            }
        }
    };
    match &inst.kind {
        InstKind::Phi { incoming, .. } => {
            let r = res.expect("a phi has a result");
            for (op, _) in incoming {
                copy_into(flow, fi, r, op);
            }
            None
        }
        InstKind::Select {
            cond,
            on_true,
            on_false,
            ..
        } => {
            let r = res.expect("a select has a result");
            copy_into(flow, fi, r, &on_true.value);
            copy_into(flow, fi, r, &on_false.value);
            if let Some(c) = local(flow, &cond.value) {
                flow.bad(c, || "a select condition".into());
            }
            None
        }
        InstKind::ICmp { pred, lhs, rhs, .. } => {
            match (local(flow, lhs), local(flow, rhs)) {
                (Some(a), Some(b)) if matches!(pred, ICmpPred::Eq | ICmpPred::Ne) => {
                    flow.link(a, b)
                }
                (Some(a), Some(b)) => {
                    flow.bad(a, || "an ordering comparison".into());
                    flow.bad(b, || "an ordering comparison".into());
                }
                (Some(a), None) | (None, Some(a)) => {
                    let (c, left) = match (lhs.as_int(), rhs.as_int()) {
                        (Some(c), _) => (Some(c), true),
                        (_, Some(c)) => (Some(c), false),
                        _ => (None, false),
                    };
                    match c {
                        Some(c) if matches!(pred, ICmpPred::Eq | ICmpPred::Ne) => {
                            flow.facts[a].pins.insert(c);
                        }
                        Some(c) => flow.facts[a].cuts.push((*pred, c, left)),
                        None => {
                            let other = if lhs.as_local().is_some() { rhs } else { lhs };
                            if !matches!(other.as_const(), Some(Const::Poison | Const::Undef)) {
                                flow.bad(a, || "compared with a non-integer".into());
                            }
                        }
                    }
                }
                (None, None) => {}
            }
            None
        }
        InstKind::Call(c) => {
            let kind = classify(module, c);
            let arg_nodes: Vec<Option<usize>> =
                c.args.iter().map(|a| local(flow, &a.value)).collect();
            for b in &c.bundles {
                if b.tag != "convergencectrl" {
                    for x in &b.inputs {
                        if let Some(j) = local(flow, &x.value) {
                            flow.bad(j, || format!("a \"{}\" bundle operand", b.tag));
                        }
                    }
                }
            }
            let recorded = |args: Vec<Option<usize>>| {
                if c.callee_name().is_none() {
                    // The callee pointer is the first recorded argument.
                    std::iter::once(None).chain(args).collect()
                } else {
                    args
                }
            };
            match kind {
                CalleeKind::Defined(g) => {
                    let callee = prog.func(g);
                    for (k, a) in c.args.iter().enumerate() {
                        match callee.params.get(k).and_then(|p| p.value) {
                            Some(pv) => {
                                let p = flow.node(Node::Value(g, pv));
                                copy_into(flow, fi, p, &a.value);
                            }
                            None => {
                                if let Some(j) = local(flow, &a.value) {
                                    flow.bad(j, || "a variadic argument".into());
                                }
                            }
                        }
                    }
                }
                CalleeKind::UnknownConvergent
                | CalleeKind::UnknownPure
                | CalleeKind::UnknownUniform
                | CalleeKind::UnknownStream => match c.callee_name() {
                    Some(name) => {
                        for (k, a) in c.args.iter().enumerate() {
                            let s = flow.node(Node::Arg(name.to_string(), k));
                            flow.ty(s, &a.ty);
                            copy_into(flow, fi, s, &a.value);
                        }
                        if let Some(r) = res {
                            let s = flow.node(Node::Res(name.to_string()));
                            let ret = match &c.ty {
                                Type::Func { ret, .. } => (**ret).clone(),
                                t => t.clone(),
                            };
                            flow.ty(s, &ret);
                            flow.link(r, s);
                        }
                    }
                    None => bad_all(flow, "an indirect call's argument"),
                },
                CalleeKind::Builtin(op) => builtin(flow, fi, c, op, res, lane_pins),
                _ => bad_all(flow, "an argument of a control intrinsic"),
            }
            Some((recorded(arg_nodes), res))
        }
        _ => {
            bad_all(flow, "an operand of arithmetic, a cast or memory");
            None
        }
    }
}

/// The operands of builtin `op` (module documentation): copies into the
/// result, lane operands, equality-only operands; every other operand is
/// a use that no renaming keeps.
fn builtin(
    flow: &mut Flow,
    fi: usize,
    c: &crate::ir::Call,
    op: Op,
    res: Option<usize>,
    lane_pins: &mut BTreeSet<i128>,
) {
    let mut copies: Vec<u8> = Vec::new();
    let mut lanes: Vec<u8> = Vec::new();
    let mut equal: Vec<u8> = Vec::new();
    match op {
        Op::Shuffle {
            val,
            idx,
            mode: Shfl::Idx,
            scale: 1,
        } => {
            copies.push(val);
            lanes.push(idx);
        }
        Op::Shuffle { val, .. } | Op::First { arg: val } | Op::PassThrough { arg: val } => {
            copies.push(val)
        }
        Op::Broadcast { val, lane } => {
            copies.push(val);
            lanes.push(lane);
        }
        Op::WriteLane { val, lane, old } => {
            copies.extend([val, old]);
            lanes.push(lane);
        }
        Op::Vote {
            vote: Vote::Uni,
            arg,
        }
        | Op::MatchAny { arg } => equal.push(arg),
        _ => {}
    }
    for (k, a) in c.args.iter().enumerate() {
        let k8 = k as u8;
        let Some(v) = a.value.as_local() else {
            if lanes.contains(&k8) {
                match a.value.as_int() {
                    Some(x) => {
                        lane_pins.insert(x);
                    }
                    None => {} // poison: out of range before and after
                }
            }
            if copies.contains(&k8) {
                if let Some(r) = res {
                    if let Some(cst) = a.value.as_const() {
                        pin(flow, r, cst);
                    }
                }
            }
            continue;
        };
        let j = flow.node(Node::Value(fi, v));
        if copies.contains(&k8) {
            match res {
                Some(r) => flow.link(r, j),
                None => flow.bad(j, || "a copy without a result".into()),
            }
        } else if lanes.contains(&k8) {
            flow.facts[j].lane_sink = true;
        } else if !equal.contains(&k8) {
            flow.bad(j, || format!("an operand of {op:?}"));
        }
    }
}
